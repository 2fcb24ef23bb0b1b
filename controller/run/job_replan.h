/*
 * A job whose placement cannot run (proto/job_api.h, "waiting"): what it
 * does about it, and, with replan auto, its move to a new placement of the
 * same model on what is left of its cluster.
 *
 * The choice is pure (job_route_of): an active placement runs; one an OS
 * update's rollout drained waits (the rollout's end restores it on the
 * same nodes); one removed waits (the operator removed it: the job is not
 * moved behind their back); any other (a node or link of it down, its
 * hostfile stale) is replanned when the job asks for it, else waits.
 *
 * The move (job_replan_apply) is one transaction: the model planned again
 * as `tbctl placement replan` plans it (the planner's rules, the nodes that
 * are ready, the old placement's memory counted free) with the old
 * placement's strategy and options, the new placement applied (an event,
 * as `tbctl place --apply`), the old one removed (an event: its memory
 * would otherwise stay held on the nodes left, and nothing runs it any
 * more), the job moved to it (replans + 1, its event).  A controller killed
 * at any point finds the job on the old placement, or on the new one.
 */
#ifndef TBMESH_JOB_REPLAN_H
#define TBMESH_JOB_REPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"
#include "plan.h"

struct ctrl;

enum job_route {
	JOB_ROUTE_RUN,       /* the placement is active */
	JOB_ROUTE_WAIT,      /* wait until it is active again */
	JOB_ROUTE_REPLAN     /* move to a new placement */
};

/*
 * The rollout whose drain stopped a placement, from its reason as
 * placement_rollout.c writes it ("drained by rollout 5: a2 updates to
 * 26.2", "stopped by rollout 5 (lockstep): ..."): its id, or 0.
 */
int64_t job_rollout_of(const char *reason);

/*
 * What a job that wants to run does about its placement: found 0 when the
 * placement is no longer in the inventory, else its state ("active",
 * "degraded", "stale", ...) and reason; replan the job's policy.
 */
enum job_route job_route_of(int found, const char *state, const char *reason,
    enum job_replan replan);

/*
 * Why a job waits for placement id, in buf: "placement 3 is degraded: a2
 * is down", "placement 3 was removed".
 */
void job_wait_why(int64_t id, int found, const char *state, const char *reason, char *buf,
    size_t size);

/*
 * The request that plans old's model again for its job: the model,
 * cluster, context, batch, runtime, entry point and MLX_METAL_FAST_SYNCH
 * (placement_request_of) and the strategy the old placement has; any node
 * of the cluster (the planner takes those that are ready).
 */
void job_replan_request(const struct plan *old, struct plan_request *req);

/*
 * Can a job run plan p (mlx-lm, 1 to JOB_RANKS_MAX ranks, a coordinator
 * for jaccl): 0, or -1 with why.
 */
int job_plan_runnable(const struct plan *p, char *err, size_t errlen);

/*
 * Move j to a new placement of its model (see above), at now; the events
 * say what was wrong with the old one (its reason: "a2 is unreachable").
 * 1: the old placement is active again (nothing done); 0: moved, j updated
 * as stored (placement, backend, replans) and the new plan in *np; -1 with
 * the planner's reason (or the inventory's) in err, nothing changed.  Takes
 * the store's lock.
 */
int job_replan_apply(struct ctrl *c, struct job *j, double now, struct plan *np, char *err,
    size_t errlen);

#endif
