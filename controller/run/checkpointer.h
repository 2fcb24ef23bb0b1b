/*
 * The checkpointer: a thread with its own connection to the inventory that
 * copies the WAL back into the database file, so that the ingest writer's
 * commits never wait for a checkpoint (inventory.h, "checkpoints").
 */
#ifndef TBMESH_CHECKPOINTER_H
#define TBMESH_CHECKPOINTER_H

struct ctrl;
struct ckpt;

/*
 * Open a second connection to the inventory at path, stop the automatic
 * checkpoints of the store's connection (c->store) and start the thread.
 * NULL (logged) when it cannot: the store's connection then keeps
 * checkpointing by itself.
 */
struct ckpt *ckpt_start(struct ctrl *c, const char *path);
/* Stop the thread and close its connection; accepts NULL. */
void ckpt_stop(struct ckpt *k);

#endif
