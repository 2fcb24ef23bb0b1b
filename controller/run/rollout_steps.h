/*
 * Internal to the campaign runner (rollout_run.c, rollout_steps.c): one step
 * of one node, carried out.
 */
#ifndef TBMESH_ROLLOUT_STEPS_H
#define TBMESH_ROLLOUT_STEPS_H

#include <stddef.h>

#include "rollout.h"
#include "rollout_run.h"

#define RO_OUTPUT_MAX 8192   /* output kept per step in the log */

/* What running a step gave. */
struct ro_step_result {
	enum ro_outcome outcome;
	char reason[API_REASON_MAX + 1];
	char output[RO_OUTPUT_MAX];   /* "$ command" lines and what they printed */
	size_t output_len;
	char last_line[RO_LINE_MAX + 1];
	int label_found;              /* preflight set camp->label */
};

/*
 * Before a step's start is recorded: what the step must remember (cordon:
 * whether the node was cordoned; install: its boot time).  Called with the
 * store's lock held (from a store_with/store_txn function).
 */
void ro_step_prepare(struct ctrl *c, struct ro_campaign *camp, int i);

/*
 * Run node i's step (no lock held).  resumed: its start was recorded by an
 * earlier run of the controller.  Fills *res; may set camp->label (preflight)
 * and fields of node i (cordoned_by_us, wired_before).
 */
void ro_step_run(struct ctrl *c, const struct rollout_adapters *ad, struct ro_campaign *camp,
    int i, int resumed, struct ro_step_result *res);

/*
 * After a failure: record it, and keep the node cordoned, with the reason.
 * Called inside the caller's transaction (the store's lock held).  Returns
 * 1 when it cordoned the node, its view then in *rn for the registry once
 * the transaction is committed; else 0.
 */
struct reg_node;
int ro_step_fail_cordon(struct ctrl *c, const struct ro_campaign *camp, int i, double now,
    struct reg_node *rn);

#endif
