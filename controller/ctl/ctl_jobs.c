/*
 * tbctl run, jobs, job show, job logs, job stop: a model run from an
 * applied placement, every rank started by the controller over SSH and
 * watched by it (tbmesh-jobs(7)).
 */
#include "ctl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_format.h"
#include "ctl_http.h"
#include "job_api.h"

#define JOB_ID_MAX 999999999999L
/* Seconds job stop waits for n ranks to end: each may take its 10 s grace, and SSH. */
#define STOP_WAIT(n) (30.0 + 15.0 * ((n) > 0 ? (n) : 1))
#define STOP_POLL_NS 250000000L  /* between two looks at the job */

static ctl_handler run, jobs, job_show, job_logs, job_stop;

const struct ctl_cmd ctl_cmd_run = {
	.name = "run",
	.usage = "PLACEMENT [--port P] [--python PATH] [--restart never|on-failure] "
	    "[--max-restarts N]",
	.help =
	    "Run an applied placement's model as a job, watched and restarted.\n"
	    "mlx-lm's server, one rank per node, each started by the controller over\n"
	    "SSH with the environment MLX's launcher gives it.  The controller\n"
	    "watches the ranks and rank 0's endpoint (a one-token completion) and\n"
	    "starts the job again when it fails or hangs, by its restart policy.\n"
	    "Refused, with nothing started, when the placement is not active, a\n"
	    "node has no SSH settings or pinned key, or a port is in use.\n"
	    "  --port P             rank 0's HTTP port (default 8080)\n"
	    "  --python PATH        the interpreter on the nodes (default python3)\n"
	    "  --restart POLICY     never, or on-failure (default)\n"
	    "  --max-restarts N     restarts on-failure allows (default 3)\n",
	.opts = CTL_OPT(PORT) | CTL_OPT(PYTHON) | CTL_OPT(RESTART) | CTL_OPT(MAX_RESTARTS),
	.min_pos = 1, .max_pos = 1,
	.handler = run,
};

const struct ctl_cmd ctl_cmd_jobs = {
	.name = "jobs",
	.usage = "",
	.help =
	    "List the jobs, newest first.\n"
	    "Each with its state, restarts, endpoint, since when, and why it failed\n"
	    "or hung.\n",
	.min_pos = 0, .max_pos = 0,
	.handler = jobs,
};

const struct ctl_cmd ctl_cmd_job_show = {
	.name = "job show",
	.usage = "ID",
	.help =
	    "Show a job and its ranks.\n"
	    "Per rank: node, pid, since when, alive, CPU seconds used and resident\n"
	    "memory, as the controller last read them.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = job_show,
};

const struct ctl_cmd ctl_cmd_job_logs = {
	.name = "job logs",
	.usage = "ID [--rank R] [--lines N]",
	.help =
	    "Print the last lines of each rank's output, read from its node.\n"
	    "  --rank R             only rank R's, without the \"== rank R ==\" line\n"
	    "  --lines N            lines per rank, 1 to 1000 (default 50)\n",
	.opts = CTL_OPT(RANK) | CTL_OPT(LINES),
	.min_pos = 1, .max_pos = 1,
	.handler = job_logs,
};

const struct ctl_cmd ctl_cmd_job_stop = {
	.name = "job stop",
	.usage = "ID",
	.help =
	    "Stop a job and wait until every rank has ended.\n"
	    "Each rank gets SIGTERM, then SIGKILL after a grace period, and is\n"
	    "checked gone.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = job_stop,
};

/* --python: not empty, short enough, no control character. */
static int
python_valid(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return n > 0 && n <= JOB_PYTHON_MAX;
}

int
ctl_run_request(const struct ctl_args *a, struct job_request *req, char *err,
    size_t errlen)
{
	long v = 0;
	int r = JOB_RESTART_ON_FAILURE;

	memset(req, 0, sizeof(*req));
	req->restart = JOB_RESTART_ON_FAILURE;
	req->max_restarts = -1;
	if (ctl_parse_count(a->pos[0], 1, JOB_ID_MAX, &v) == -1)
		goto bad_placement;
	req->placement = v;
	if (a->port != NULL && ctl_parse_count(a->port, 1, 65535, &v) == -1) {
		snprintf(err, errlen, "run: --port \"%s\" is not a port number", a->port);
		return -1;
	}
	req->port = a->port != NULL ? (int)v : 0;
	if (a->python != NULL && !python_valid(a->python)) {
		snprintf(err, errlen, "run: --python must be a path or command of 1 to %d "
		    "characters, on one line", JOB_PYTHON_MAX);
		return -1;
	}
	snprintf(req->python, sizeof(req->python), "%s", a->python ? a->python : "");
	if (a->restart != NULL && (r = job_restart_parse(a->restart)) < 0) {
		snprintf(err, errlen, "run: --restart \"%s\" is not never or on-failure",
		    a->restart);
		return -1;
	}
	if (a->restart != NULL)
		req->restart = (enum job_restart)r;
	if (a->max_restarts != NULL && ctl_parse_count(a->max_restarts, 0, JOB_MAX_RESTARTS_MAX,
	    &v) == -1) {
		snprintf(err, errlen, "run: --max-restarts \"%s\" is not a number from 0 to %d",
		    a->max_restarts, JOB_MAX_RESTARTS_MAX);
		return -1;
	}
	if (a->max_restarts != NULL)
		req->max_restarts = (int)v;
	return 0;
bad_placement:
	snprintf(err, errlen, "run: \"%s\" is not a placement id (tbctl placements)", a->pos[0]);
	return -1;
}

int
ctl_job_logs_path(const struct ctl_args *a, char *buf, size_t size, char *err,
    size_t errlen)
{
	long id, rank = -1, lines = -1;
	int n;

	if (ctl_parse_count(a->pos[0], 1, JOB_ID_MAX, &id) == -1) {
		snprintf(err, errlen, "job logs: \"%s\" is not a job id", a->pos[0]);
		return -1;
	}
	if (a->rank != NULL && ctl_parse_count(a->rank, 0, JOB_RANKS_MAX - 1, &rank) == -1) {
		snprintf(err, errlen, "job logs: --rank \"%s\" is not a rank from 0 to %d", a->rank,
		    JOB_RANKS_MAX - 1);
		return -1;
	}
	if (a->lines != NULL && ctl_parse_count(a->lines, 1, JOB_LOG_LINES_MAX, &lines) == -1) {
		snprintf(err, errlen, "job logs: --lines \"%s\" is not a number from 1 to %d",
		    a->lines, JOB_LOG_LINES_MAX);
		return -1;
	}
	n = snprintf(buf, size, "/v1/jobs/%ld/logs", id);
	if (n >= 0 && rank >= 0)
		n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%crank=%ld", '?',
		    rank);
	if (n >= 0 && lines > 0)
		n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%clines=%ld",
		    rank >= 0 ? '&' : '?', lines);
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errlen, "job logs: the path is too long");
		return -1;
	}
	return 0;
}

static int
run(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct job_request req;
	struct ctl_reply r;
	struct job *j;
	char err[512], *body;
	int rc;

	if (ctl_run_request(a, &req, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	if ((body = job_request_encode(&req)) == NULL || (j = calloc(1, sizeof(*j))) == NULL) {
		free(body);
		return ctl_fail("out of memory");
	}
	rc = ctl_call(cl, "POST", "/v1/jobs", body, "run", &r);
	free(body);
	if (rc == CTL_EXIT_OK && job_decode(r.body, r.len, j, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the job: %s", err);
	if (rc == CTL_EXIT_OK)
		rc = out->job_started(&r, j);
	free(j);
	ctl_reply_free(&r);
	return rc;
}

static int
jobs(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/jobs", out->jobs);
}

/* The job id of the command's first argument; CTL_EXIT_OK or a usage error said. */
static int
job_id(const char *cmd, const char *s, long *id)
{
	if (ctl_parse_count(s, 1, JOB_ID_MAX, id) == -1)
		return ctl_usage("%s: \"%s\" is not a job id (tbctl jobs)", cmd, s);
	return CTL_EXIT_OK;
}

static int
job_show(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[64];
	long id;
	int rc;

	if ((rc = job_id("job show", a->pos[0], &id)) != CTL_EXIT_OK)
		return rc;
	snprintf(path, sizeof(path), "/v1/jobs/%ld", id);
	return ctl_get(cl, a, path, out->job);
}

static int
job_logs(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[96], err[256];

	if (ctl_job_logs_path(a, path, sizeof(path), err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	return ctl_get(cl, a, path, out->job_logs);
}

/* GET job path into *j, the reply in *r (freed first); CTL_EXIT_OK or a failure said. */
static int
job_read(struct ctl_client *cl, const char *path, struct ctl_reply *r, struct job *j)
{
	char err[256];
	int rc;

	ctl_reply_free(r);
	if ((rc = ctl_call(cl, "GET", path, NULL, "job stop", r)) != CTL_EXIT_OK)
		return rc;
	if (job_decode(r->body, r->len, j, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the job: %s", err);
	return CTL_EXIT_OK;
}

/*
 * Whether the stop asked at asked (the job's updated_at then) has ended:
 * stopped, or failed since (a rank that would not die).
 */
static int
stop_ended(const struct job *j, double asked)
{
	return j->state == JOB_STOPPED || (j->state == JOB_FAILED && j->updated_at > asked);
}

static int
job_stop(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct timespec pause = { 0, STOP_POLL_NS };
	struct ctl_reply r = { 0 };
	char path[64], err[256];
	struct job *j;
	double asked, until;
	long id;
	int rc;

	if ((rc = job_id("job stop", a->pos[0], &id)) != CTL_EXIT_OK)
		return rc;
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return ctl_fail("out of memory");
	snprintf(path, sizeof(path), "/v1/jobs/%ld/stop", id);
	rc = ctl_call(cl, "POST", path, "{}", "job stop", &r);
	if (rc == CTL_EXIT_OK && job_decode(r.body, r.len, j, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the job: %s", err);
	asked = j->updated_at;
	until = ctl_now() + STOP_WAIT(j->n_ranks);
	path[strlen(path) - strlen("/stop")] = '\0';
	while (rc == CTL_EXIT_OK && !stop_ended(j, asked) && ctl_now() < until) {
		nanosleep(&pause, NULL);
		rc = job_read(cl, path, &r, j);
	}
	if (rc == CTL_EXIT_OK && j->state == JOB_STOPPED)
		rc = out->job_stopped(&r, j);
	else if (rc == CTL_EXIT_OK && j->state == JOB_FAILED)
		rc = ctl_fail("job %ld failed while stopping: %s", id, ctl_str(j->reason));
	else if (rc == CTL_EXIT_OK)
		rc = ctl_fail("job %ld is still %s after %.0f s (tbctl job show %ld)", id,
		    job_state_str(j->state), STOP_WAIT(j->n_ranks), id);
	free(j);
	ctl_reply_free(&r);
	return rc;
}
