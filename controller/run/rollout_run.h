/*
 * The campaign runner: a controller thread that carries running OS update
 * campaigns out over SSH, one step at a time, as the rollout engine
 * (rollout.h) decides.  Every step is stored in the inventory before it runs
 * (the node's row says it is running, the log has a "begin" line) and after
 * (its outcome, output and the node's next step), so a controller killed at
 * any point resumes where it stopped: a step whose start is recorded and
 * whose end is not runs again, and the steps that change a node check its
 * state first (install looks at the build and the boot time before it
 * installs anything, and never sends a second install in the boot it sent
 * one: it records the time before the command goes out).
 *
 * Drain and the "links pass" check go through struct rollout_adapters, so
 * that placements and wiring validation plug in without the runner knowing
 * them.
 */
#ifndef TBMESH_ROLLOUT_RUN_H
#define TBMESH_ROLLOUT_RUN_H

#include <stddef.h>

#include "rollout_api.h"

struct ctrl;
struct report;

struct rollout_adapters {
	/*
	 * Stop the placements on node for campaign camp (lockstep: every
	 * placement of the cluster), recorded in the inventory so that the
	 * campaign's end restores them, and wait until their jobs have no
	 * rank left (it may take a minute).  0 with what was done in what, or
	 * -1 with why in err.  Safe to run again after a crash.
	 */
	int (*drain)(struct ctrl *c, const struct ro_campaign *camp, const char *node, char *what,
	    size_t whatlen, char *err, size_t errlen);
	/* 1 when the node's links pass wiring validation, 0 with why when not. */
	int (*links_pass)(struct ctrl *c, const char *node, const struct report *r, char *why,
	    size_t whylen);
};

/* rollout_adapt.c: drain is placement_rollout_drain (placement_ctrl.h: the
 * placements are stopped and marked, not moved, and their jobs stopped);
 * links pass when wiring validation passes every expected link of the
 * node in its cluster (a node in no cluster: when its own report shows RDMA
 * enabled and every cabled port's RDMA device active with an IPv4). */
extern const struct rollout_adapters rollout_adapters_builtin;

struct rollout_runner;

/*
 * At start, before reports are taken: the nodes that an open campaign left
 * installing or waiting for their restart expect a reboot (the flag lives
 * in the registry only), so that the restart is not an unexpected one.
 */
void rollout_rearm_reboots(struct ctrl *c);

/* Start the thread; NULL when it cannot start. */
struct rollout_runner *rollout_runner_start(struct ctrl *c, const struct rollout_adapters *ad);
/* Stop it (a step under way is finished first) and free it; accepts NULL. */
void rollout_runner_stop(struct rollout_runner *r);

/*
 * A dry run of c (cluster nodes filled in c->nodes): for each node, skipped
 * when its last report is at the target, else every step with the command
 * lines it would run, in c->nodes[i].cmds.  Reads the inventory: called
 * with the store's lock held (from a store_with/store_txn function);
 * changes nothing.
 */
void rollout_dry_run(struct ctrl *c, struct ro_campaign *camp);

#endif
