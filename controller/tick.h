/*
 * The ticker: a thread that lets time pass over the inventory.  Every half
 * second it marks a ready node that has been silent for longer than
 * c->unreachable_after unreachable (the lifecycle engine's decision, applied
 * with ctrl_apply()); every minute it prunes the samples older than
 * c->retention.
 */
#ifndef TBMESH_TICK_H
#define TBMESH_TICK_H

struct ctrl;
struct ticker;

/* Start the thread over c, which must outlive it.  NULL, logged, when it cannot. */
struct ticker *tick_start(struct ctrl *c);

/* Stop the thread (a tick under way is finished), wait for it, free t.  Accepts NULL. */
void tick_stop(struct ticker *t);

/*
 * One tick at now: the nodes whose time is up, each decided again under
 * the inventory's lock on what is current there, so that a command in
 * between wins.
 */
void tick_once(struct ctrl *c, double now);

#endif
