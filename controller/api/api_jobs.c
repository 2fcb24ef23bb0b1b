/*
 * Jobs over the API (shapes: proto/job_api.h):
 *   POST /v1/jobs                    start a job on an applied placement
 *   GET  /v1/jobs, GET /v1/jobs/{id} from the inventory
 *   POST /v1/jobs/{id}/stop          ask the runner to stop it (202)
 *   GET  /v1/jobs/{id}/logs?rank=R&lines=N&from=R:OFFSET,...
 *                                    each rank's last lines, or its lines
 *                                    from a byte offset (a follower's)
 * What is checked before a job starts and the stop are the job runner's
 * (run/job_run.h), each rank's log is read by run/job_rank.h; this file
 * decodes, answers and counts.  The start and the logs reach the nodes
 * (connects, SSH): they are answered from a thread of their own
 * (api_resp.slow), never the API's.
 */
#include "api_jobs.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "ctrl.h"
#include "inventory_jobs.h"
#include "job_api.h"
#include "job_rank.h"
#include "job_run.h"
#include "store.h"
#include "textbuf.h"

#define JOB_LOG_LINES_DEFAULT 50

/* What a slow answer needs: the request, decoded on the API's thread. */
struct job_slow {
	struct ctrl *c;
	struct job_request req;    /* submit */
};

/* Check and store the job: connects to the nodes' ports, so off the API's thread. */
static void
submit_slow(void *arg, struct api_resp *rs)
{
	struct job_slow *x = arg;
	struct job *j;
	char err[512];
	int status = 0;

	if (rs != NULL && (j = calloc(1, sizeof(*j))) == NULL)
		api_error(rs, 503, "out of memory");
	else if (rs != NULL) {
		if (job_submit(x->c, &x->req, j, &status, err, sizeof(err)) == -1)
			api_error(rs, status >= 400 ? status : 500, "%s", err);
		else
			api_body(rs, 201, job_encode(j));
		free(j);
	}
	free(x);
}

void
api_jobs_submit(struct api_req *rq, struct api_resp *rs)
{
	struct job_slow *x = calloc(1, sizeof(*x));
	char err[512];

	if (x == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (job_request_decode(rq->body, rq->body_len, &x->req, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		free(x);
		return;
	}
	x->c = rq->c;
	rs->slow = submit_slow;
	rs->slow_arg = x;
}

/* The {id} of the path; 0 when it is not one (the 404 is sent). */
static int64_t
path_id(struct api_req *rq, struct api_resp *rs)
{
	char *end;
	long long v = strtoll(rq->param, &end, 10);

	if (rq->param[0] < '1' || rq->param[0] > '9' || *end != '\0' || strlen(rq->param) > 15 ||
	    v <= 0) {
		api_error(rs, 404, "job %s: no such job", rq->param);
		return 0;
	}
	return v;
}

/* What the read callbacks fill. */
struct job_read {
	int64_t id;
	struct job *one;           /* out: job id */
	struct job *all;           /* out: every job, malloc'd (the caller frees) */
	int n;
};

/* store_fn: job x->id into x->one. */
static int
read_job(struct inv *inv, void *arg)
{
	struct job_read *x = arg;

	return inv_job_get(inv, x->id, x->one);
}

/* store_fn: every job into x->all. */
static int
read_jobs(struct inv *inv, void *arg)
{
	struct job_read *x = arg;

	return inv_job_list(inv, &x->all, &x->n);
}

void
api_jobs_list(struct api_req *rq, struct api_resp *rs)
{
	struct job_read x = { 0 };

	if (store_with(&rq->c->store, read_jobs, &x) != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, job_list_encode(x.all, x.n));
	free(x.all);
}

void
api_job_show(struct api_req *rq, struct api_resp *rs)
{
	struct job_read x = { .id = path_id(rq, rs) };
	int rc;

	if (x.id == 0)
		return;
	if ((x.one = calloc(1, sizeof(*x.one))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	rc = store_with(&rq->c->store, read_job, &x);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "job %" PRId64 ": no such job", x.id);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, job_encode(x.one));
	free(x.one);
}

void
api_job_stop(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = path_id(rq, rs);
	struct job *j;
	char err[512];
	int status = 0;

	if (id == 0 || api_body_none(rq, rs) == -1)
		return;
	if ((j = calloc(1, sizeof(*j))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (job_stop(rq->c, id, j, &status, err, sizeof(err)) == -1)
		api_error(rs, status >= 400 ? status : 500, "%s", err);
	else
		api_body(rs, 202, job_encode(j));
	free(j);
}

/* What a logs request reads: each rank's from offset (-1: its last lines). */
struct logs_slow {
	struct ctrl *c;
	int64_t id;
	int rank;                  /* -1: every rank */
	int lines;                 /* 0: the default of each rank's mode */
	int64_t from[JOB_RANKS_MAX];
};

/* Whether j will write no more lines unless the operator asks (job_api.h's "ended"). */
static int
logs_ended(const struct job *j)
{
	if (j->state == JOB_STOPPED)
		return 1;
	return j->state == JOB_FAILED && (j->want == JOB_WANT_STOP ||
	    j->restart_policy == JOB_RESTART_NEVER || j->restarts >= j->max_restarts);
}

/*
 * Read x's ranks of j into l (*n of them), one SSH command each: a node
 * that does not answer has its error, the others their lines.  The ranks
 * that failed, the last one's why in err.
 */
static int
logs_read(const struct logs_slow *x, const struct job *j, struct job_log *l, int *n, char *err,
    size_t errlen)
{
	int failed = 0;

	*n = 0;
	for (int r = 0; r < j->n_ranks; r++) {
		struct job_log *k = &l[*n];
		int lines = x->lines > 0 ? x->lines : x->from[r] >= 0 ? JOB_LOG_LINES_MAX :
		    JOB_LOG_LINES_DEFAULT;
		if (x->rank != -1 && r != x->rank)
			continue;
		(*n)++;
		k->rank = r;
		snprintf(k->node, sizeof(k->node), "%s", j->ranks[r].node);
		k->start = k->end = k->size = -1;
		if (job_rank_log(x->c, j, r, x->from[r], lines, k, k->error, sizeof(k->error)) == 0)
			continue;
		if (k->error[0] == '\0')
			snprintf(k->error, sizeof(k->error), "%s: not read", k->node);
		snprintf(err, errlen, "rank %d's output could not be read: %s", r, k->error);
		failed++;
	}
	return failed;
}

/* The lines, read over SSH from the nodes: off the API's thread. */
static void
logs_slow(void *arg, struct api_resp *rs)
{
	struct logs_slow *x = arg;
	struct job_read rd = { .id = x->id };
	struct job_logs_state st = { .job = x->id };
	struct job_log *l = NULL;
	char err[512] = "";
	int n = 0, failed, rc;

	if (rs == NULL)
		goto out;
	if ((rd.one = calloc(1, sizeof(*rd.one))) == NULL ||
	    (l = calloc(JOB_RANKS_MAX, sizeof(*l))) == NULL) {
		api_error(rs, 503, "out of memory");
		goto out;
	}
	rc = store_with(&x->c->store, read_job, &rd);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "job %" PRId64 " not found", x->id);
	else if (rc != 0)
		api_error(rs, 503, "job %" PRId64 ": the inventory could not be read", x->id);
	else if (x->rank >= rd.one->n_ranks)
		api_error(rs, 400, "rank: job %" PRId64 " has ranks 0 to %d", x->id,
		    rd.one->n_ranks - 1);
	else if ((failed = logs_read(x, rd.one, l, &n, err, sizeof(err))) == n && n > 0)
		api_error(rs, 502, "%s", err);
	else {
		st.state = (int)rd.one->state;
		snprintf(st.reason, sizeof(st.reason), "%s", rd.one->reason);
		st.ended = logs_ended(rd.one);
		api_body(rs, 200, job_logs_encode(&st, l, n));
	}
out:
	job_logs_free(l, n);
	free(rd.one);
	free(x);
}

void
api_job_logs(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = path_id(rq, rs);
	double rank = -1, lines = 0;
	const char *from = rq->query(rq->qctx, "from");
	struct logs_slow *x;
	char err[256];

	if (id == 0 ||
	    api_query_number(rq, rs, "rank", 0, JOB_RANKS_MAX - 1, &rank) == -1 ||
	    api_query_number(rq, rs, "lines", 1, JOB_LOG_LINES_MAX, &lines) == -1)
		return;
	if (rank != (int)rank || lines != (int)lines) {
		api_error(rs, 400, "rank and lines are whole numbers");
		return;
	}
	if ((x = calloc(1, sizeof(*x))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (from != NULL && job_logs_from_parse(from, x->from, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		free(x);
		return;
	}
	if (from == NULL)
		for (int r = 0; r < JOB_RANKS_MAX; r++)
			x->from[r] = -1;
	x->c = rq->c;
	x->id = id;
	x->rank = (int)rank;
	x->lines = (int)lines;
	rs->slow = logs_slow;
	rs->slow_arg = x;
}

static void
counter(struct textbuf *t, const char *name, const char *help, uint_fast64_t v)
{
	textbuf_printf(t, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
	    (unsigned long long)v);
}

void
api_jobs_metrics(struct ctrl *c, struct textbuf *t)
{
	struct ctrl_counters *k = &c->ctr;
	struct job_read x = { 0 };
	int count[JOB_STATE_COUNT] = { 0 };

	counter(t, "tbmesh_controller_job_starts_total",
	    "Job generations started (first starts and restarts).",
	    atomic_load(&k->jobs_started));
	counter(t, "tbmesh_controller_job_restarts_total",
	    "Jobs started again by their restart policy after a failure or a hang.",
	    atomic_load(&k->jobs_restarts));
	counter(t, "tbmesh_controller_job_hangs_total", "Jobs found hung.",
	    atomic_load(&k->jobs_hangs));
	counter(t, "tbmesh_controller_job_failures_total", "Jobs that became failed.",
	    atomic_load(&k->jobs_failures));
	counter(t, "tbmesh_controller_job_probes_total",
	    "One-token completions sent to rank 0 of a job.", atomic_load(&k->job_probes));
	counter(t, "tbmesh_controller_job_probe_failures_total",
	    "Probes that got no good answer.", atomic_load(&k->job_probe_failures));
	if (store_with(&c->store, read_jobs, &x) != 0) {
		free(x.all);
		return;
	}
	for (int i = 0; i < x.n; i++)
		if ((unsigned)x.all[i].state < JOB_STATE_COUNT)
			count[x.all[i].state]++;
	free(x.all);
	textbuf_printf(t, "# HELP tbmesh_controller_jobs Jobs by state.\n"
	    "# TYPE tbmesh_controller_jobs gauge\n");
	for (int s = 0; s < JOB_STATE_COUNT; s++)
		textbuf_printf(t, "tbmesh_controller_jobs{state=\"%s\"} %d\n",
		    job_state_str((enum job_state)s), count[s]);
}
