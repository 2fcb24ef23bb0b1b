/*
 * The inventory behind its lock.  One struct inv is one SQLite connection,
 * used by one thread at a time; the controller's threads (the API's, the
 * ingest writer, the wiring monitor, the checkpointer, rollout and
 * provisioning runs) share one, and this is the only code that takes its
 * lock: callers hand it a function to run with the lock held.
 */
#ifndef TBMESH_STORE_H
#define TBMESH_STORE_H

#include <pthread.h>

#include "inventory.h"

struct store {
	struct inv *inv;
	pthread_mutex_t mu;
};

/* A function run with the lock held; its value is what the call returns. */
typedef int (*store_fn)(struct inv *inv, void *arg);

/* Around inv (the caller still owns and closes it).  0, or -1. */
int store_init(struct store *s, struct inv *inv);
void store_fini(struct store *s);

/* fn(inv, arg) with the lock held, outside any transaction (reads, and
 * single statements, each atomic on its own).  Returns fn's value. */
int store_with(struct store *s, store_fn fn, void *arg);

/*
 * fn(inv, arg) in one transaction with the lock held: begun before, and
 * committed when fn returns 0 (durable when this returns 0), rolled back
 * otherwise.  Returns fn's value, or -1 when the transaction could not be
 * begun or committed (then nothing of it is stored).
 */
int store_txn(struct store *s, store_fn fn, void *arg);

#endif
