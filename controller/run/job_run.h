/*
 * The job runner: a controller thread that starts every rank of an applied
 * placement over SSH (the SSH layer, pinned host keys, that OS updates
 * use), watches the job (each rank's process; rank 0's endpoint probed with
 * a one-token completion) and brings it back by its policy.  States and
 * JSON: proto/job_api.h.  Every step is stored before it runs (the want,
 * the generation, each rank's start_sent_at), so a controller killed at any
 * point stops what it may have started and starts it once again: no orphan
 * rank, no second copy.
 */
#ifndef TBMESH_JOB_RUN_H
#define TBMESH_JOB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"

struct ctrl;
struct job_runner;

/* HTTP status of a refusal (400, 404, 409, 503) in *status, with why in err. */

/*
 * Check req against the placement, the nodes' SSH settings, the
 * controller's SSH key and the ports (rank 0's HTTP port and the
 * coordinator's must be free), store the job (state starting) and wake the
 * runner.  0 with the job in *out; -1 with *status and err, nothing
 * stored or started.
 */
int job_submit(struct ctrl *c, const struct job_request *req, struct job *out, int *status,
    char *err, size_t errlen);
/* Ask the runner to stop job id (want stop, stored at once); -1 with *status. */
int job_stop(struct ctrl *c, int64_t id, struct job *out, int *status, char *err,
    size_t errlen);

/* Start the thread (it resumes the open jobs first); NULL when it cannot. */
struct job_runner *job_runner_start(struct ctrl *c);
/* Stop it (the ranks keep running: a restarted controller adopts them); accepts NULL. */
void job_runner_stop(struct job_runner *r);

#endif
