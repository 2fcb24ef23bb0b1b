/*
 * Jobs over the API (api_jobs.c): the routes' handlers, and the jobs'
 * series of /metrics.
 */
#ifndef TBMESH_API_JOBS_H
#define TBMESH_API_JOBS_H

#include "api_server.h"

struct ctrl;
struct textbuf;

void api_jobs_submit(struct api_req *rq, struct api_resp *rs);
void api_jobs_list(struct api_req *rq, struct api_resp *rs);
void api_job_show(struct api_req *rq, struct api_resp *rs);
void api_job_stop(struct api_req *rq, struct api_resp *rs);
void api_job_logs(struct api_req *rq, struct api_resp *rs);

/*
 * tbmesh_controller_jobs{state} (a gauge from the inventory) and the job
 * runner's counters, appended to t.  The gauge is left out when the
 * inventory cannot be read.
 */
void api_jobs_metrics(struct ctrl *c, struct textbuf *t);

#endif
