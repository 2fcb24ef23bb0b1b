/*
 * The inventory's jobs (inventory.h's rules on threads, transactions and
 * return values apply): a job and its ranks as proto/job_api.h describes
 * them.  What the runner is about to do is stored before it does it (the
 * operator's want, the generation, each rank's start_sent_at), so that a
 * controller killed at any point finds every rank it may have started.
 */
#ifndef TBMESH_INVENTORY_JOBS_H
#define TBMESH_INVENTORY_JOBS_H

#include <stdint.h>

#include "inventory.h"
#include "job_api.h"

/*
 * Store a new job (its id is set in j->id) with its ranks; INV_CONFLICT
 * when another job of that placement is not stopped or failed.  In a
 * transaction or not.
 */
int inv_job_add(struct inv *inv, struct job *j);
/* By id, with its ranks; INV_NOTFOUND if none. */
int inv_job_get(struct inv *inv, int64_t id, struct job *out);
/* Every job, newest first; *out malloc'd (free() it; NULL when *n is 0). */
int inv_job_list(struct inv *inv, struct job **out, int *n);
/*
 * The jobs that are not stopped, nor failed with want stop, oldest first;
 * *out malloc'd as above.
 */
int inv_job_open(struct inv *inv, struct job **out, int *n);
/*
 * Write the job's own fields (state, reason, want, generation, restarts,
 * endpoint, the times) and every rank's fields as in j (its ranks are
 * j's, no others).  want is only changed from run to stop here: a stop
 * asked through inv_job_set_want while the caller held its copy is kept.
 * INV_NOTFOUND if there is no such job.  In a transaction or not.
 */
int inv_job_put(struct inv *inv, const struct job *j);
/* Set want (and updated_at); INV_NOTFOUND if none. */
int inv_job_set_want(struct inv *inv, int64_t id, enum job_want want, double now);

#endif
