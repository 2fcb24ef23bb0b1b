/*
 * What job_run.c (the API's calls) and job_loop.c (the runner's thread)
 * share: the job and its placement as stored, and the runner's wake-up.
 */
#ifndef TBMESH_JOB_INT_H
#define TBMESH_JOB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"
#include "plan.h"

struct ctrl;

/* Job id as stored (the store's lock taken here): 0, INV_NOTFOUND or -1. */
int job_store_get(struct ctrl *c, int64_t id, struct job *j);
/*
 * Store j at now, the operator's want as stored kept (the runner never
 * changes it), j->want set to it; with what, the event "what" by job:ID on
 * node ("" none) for reason.  0, or -1 (logged).
 */
int job_store_put(struct ctrl *c, struct job *j, double now, const char *node,
    const char *what, const char *reason);
/*
 * Placement id's plan and state ("active", "degraded", "stale"), reason
 * with it.  0, INV_NOTFOUND, or -1 with why in err.
 */
int job_plan_get(struct ctrl *c, int64_t id, struct plan *p, char *state, size_t statelen,
    char *reason, size_t reasonlen, char *err, size_t errlen);
/*
 * Placement id's state and reason as stored, its plan not read (the
 * runner's look at every loop): 0 with *found 1, or *found 0 when it is no
 * longer in the inventory; -1 when the inventory could not be read.
 */
int job_placement_state(struct ctrl *c, int64_t id, int *found, char *state, size_t statelen,
    char *reason, size_t reasonlen);
/* Have the runner look at the jobs now (no-op without a runner). */
void job_runner_wake(struct ctrl *c);

/* hang_after_idle: how long a probe may fail with no rank busy before hung. */
#define JOB_HANG_IDLE_FACTOR 2

#endif
