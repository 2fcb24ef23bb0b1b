/*
 * tbctl run, jobs, job show, job logs, job stop: a model run from an
 * applied placement, every rank started by the controller over SSH and
 * watched by it (tbmesh-jobs(7)).
 */
#include "ctl.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	.usage = "PLACEMENT [--server] [--port P] [--python PATH] [--restart never|on-failure] "
	    "[--max-restarts N] [--replan never|auto]",
	.help =
	    "Run an applied placement's model as a job, watched and restarted.\n"
	    "mlx-lm's server, one rank per node, each started by the controller over\n"
	    "SSH with the environment MLX's launcher gives it.  The controller\n"
	    "watches the ranks and rank 0's endpoint (a one-token completion) and\n"
	    "starts the job again when it fails or hangs, by its restart policy.\n"
	    "Refused, with nothing started, when the placement is not active, a\n"
	    "node has no SSH settings or pinned key, or a port is in use.  When the\n"
	    "placement stops being active later (a node or link of it down, an OS\n"
	    "update draining it), the job's ranks are stopped and it waits, with the\n"
	    "reason, until the placement is active again; with --replan auto it is\n"
	    "moved at once to a new placement of the same model on the nodes left\n"
	    "(not for a rollout's drain, which the rollout's end undoes).\n"
	    "  --server             mlx_lm server, the entry point a job runs (the\n"
	    "                       default and only one: it is what gets probed)\n"
	    "  --port P             rank 0's HTTP port (default 8080)\n"
	    "  --python PATH        the interpreter on the nodes (default python3)\n"
	    "  --restart POLICY     never, or on-failure (default)\n"
	    "  --max-restarts N     restarts on-failure allows (default 3)\n"
	    "  --replan POLICY      never (default: wait for the placement), or auto\n"
	    "                       (plan the model again on what is left and move)\n",
	.opts = CTL_OPT(PORT) | CTL_OPT(PYTHON) | CTL_OPT(RESTART) | CTL_OPT(MAX_RESTARTS) |
	    CTL_OPT(REPLAN) | CTL_OPT(SERVER),
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
	.usage = "ID [--rank R] [--lines N] [--follow [--interval SECS]]",
	.help =
	    "Print the last lines of each rank's output, read from its node.\n"
	    "With --follow, go on printing each new line once as the ranks write it,\n"
	    "until Ctrl-C, or until the job is stopped, or failed with no restart to\n"
	    "come (then why, and exit 0).  A node that does not answer is said on\n"
	    "standard error and asked again.  Behind --json, one JSON object a line:\n"
	    "each answer that brings something (the API's, tbmesh-jobs(7)).\n"
	    "  --rank R             only rank R's, without the \"== rank R ==\" line\n"
	    "  --lines N            lines per rank, 1 to 1000 (default 50)\n"
	    "  --follow             print new lines as they come\n"
	    "  --interval SECS      with --follow, between two looks (default 1)\n",
	.opts = CTL_OPT(RANK) | CTL_OPT(LINES) | CTL_OPT(FOLLOW) | CTL_OPT(INTERVAL),
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
	if (a->replan != NULL && (r = job_replan_parse(a->replan)) < 0) {
		snprintf(err, errlen, "run: --replan \"%s\" is not never or auto", a->replan);
		return -1;
	}
	req->replan = a->replan != NULL ? (enum job_replan)r : JOB_REPLAN_NEVER;
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

/* ---- job logs --follow ---- */

static volatile sig_atomic_t follow_stop;      /* Ctrl-C or SIGTERM seen */
static volatile sig_atomic_t follow_asking;    /* a request is on its way */

/* Stop following: at once during a request (stdout is flushed before each). */
static void
follow_signal(int sig)
{
	(void)sig;
	if (follow_asking)
		_exit(CTL_EXIT_OK);
	follow_stop = 1;
}

/* What the follower knows of each rank. */
struct follow {
	int64_t from[JOB_RANKS_MAX];        /* the next offset; -1: its last lines */
	api_name node[JOB_RANKS_MAX];       /* where that offset is */
	char error[JOB_RANKS_MAX][256];     /* the last error said, "" none */
	int last;                           /* the rank whose lines were printed last */
};

/* base with the follower's offsets ("&from=0:812,1:90") into buf: 0, or -1. */
static int
follow_path(const char *base, const struct follow *f, char *buf, size_t size)
{
	char from[JOB_RANKS_MAX * 24];
	int n;

	if (job_logs_from_format(f->from, from, sizeof(from)) == -1)
		return -1;
	n = snprintf(buf, size, "%s%s%s", base, from[0] ? strchr(base, '?') ? "&from=" :
	    "?from=" : "", from);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/*
 * Take answer l (n ranks) into f: each rank's next offset; a rank now on
 * another node starts again from its last lines there, its lines of this
 * answer dropped (they were read at an offset of the other node's file).
 * Errors and resets said on stderr, an error once until it changes.
 */
static void
follow_take(struct follow *f, struct job_log *l, int n)
{
	for (int i = 0; i < n; i++) {
		struct job_log *k = &l[i];
		int r = k->rank;
		if (k->error[0]) {
			if (strcmp(f->error[r], k->error) != 0)
				ctl_errx("rank %d (%s): %s; still following", r, k->node, k->error);
			snprintf(f->error[r], sizeof(f->error[r]), "%s", k->error);
			continue;
		}
		if (f->error[r][0])
			ctl_errx("rank %d (%s): read again", r, k->node);
		f->error[r][0] = '\0';
		if (f->from[r] >= 0 && strcmp(f->node[r], k->node) != 0) {
			ctl_errx("rank %d is on %s now (was %s): its last lines there follow", r,
			    k->node, f->node[r]);
			for (int q = 0; q < k->n_lines; q++)
				free(k->lines[q]);
			k->n_lines = 0;
			f->from[r] = -1;
			snprintf(f->node[r], sizeof(f->node[r]), "%s", k->node);
			continue;
		}
		if (k->reset[0])
			ctl_errx("rank %d (%s): its log %s: read again from its start", r, k->node,
			    strcmp(k->reset, "shrank") == 0 ? "shrank" : "was replaced");
		snprintf(f->node[r], sizeof(f->node[r]), "%s", k->node);
		if (k->end >= 0)
			f->from[r] = k->end;
	}
}

/* Wait secs, or less when a signal comes. */
static void
follow_sleep(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };

	if (!follow_stop)
		nanosleep(&ts, NULL);
}

/* One look: ask, print what is new.  1 more to read at once, 0 not, 2 ended, -1 failed. */
static int
follow_once(struct ctl_client *cl, const struct ctl_args *a, const char *base,
    struct follow *f, int *exit_rc)
{
	struct job_logs_state st;
	struct job_log *l = NULL;
	struct ctl_reply r;
	char path[JOB_RANKS_MAX * 24 + 128], err[256];
	int n = 0, rc, more = 0;

	if (follow_path(base, f, path, sizeof(path)) == -1) {
		*exit_rc = ctl_fail("job logs: the path is too long");
		return -1;
	}
	fflush(stdout);
	follow_asking = 1;
	rc = ctl_call(cl, "GET", path, NULL, "job logs", &r);
	follow_asking = 0;
	if (rc != CTL_EXIT_OK) {
		long status = r.status;
		ctl_reply_free(&r);
		/* said by ctl_call; the controller or a node down: ask again */
		if (status == 0 || status >= 500)
			return 0;
		*exit_rc = rc;
		return -1;
	}
	if (job_logs_decode(r.body, r.len, &l, &n, err, sizeof(err)) == -1 ||
	    job_logs_state_decode(r.body, r.len, &st, err, sizeof(err)) == -1) {
		ctl_errx("cannot decode the logs: %s", err);
		ctl_reply_free(&r);
		return 0;
	}
	ctl_reply_free(&r);
	follow_take(f, l, n);
	for (int i = 0; i < n; i++)
		more |= l[i].more;
	ctl_job_logs_follow_print(stdout, &st, l, n, a->json, a->rank == NULL, &f->last);
	job_logs_free(l, n);
	if (st.ended && !more) {
		ctl_errx("job %" PRId64 " %s%s%s: no more lines", st.job, st.state >= 0 ?
		    job_state_str((enum job_state)st.state) : "ended", st.reason[0] ? ": " : "",
		    st.reason);
		return 2;
	}
	return more;
}

static int
job_logs_follow(struct ctl_client *cl, const struct ctl_args *a, const char *base)
{
	struct sigaction sa;
	struct follow *f = calloc(1, sizeof(*f));
	double every = 1;
	int rc = CTL_EXIT_OK, got = 0;

	if (f == NULL)
		return ctl_fail("out of memory");
	if (a->interval != NULL && (ctl_parse_duration(a->interval, &every) == -1 ||
	    every < 0.1 || every > 3600)) {
		free(f);
		return ctl_usage("job logs: --interval \"%s\" is not a time from 0.1 s to 1 h",
		    a->interval);
	}
	for (int r = 0; r < JOB_RANKS_MAX; r++)
		f->from[r] = -1;
	f->last = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = follow_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);   /* no SA_RESTART: the sleep ends at once */
	sigaction(SIGTERM, &sa, NULL);
	while (!follow_stop && (got = follow_once(cl, a, base, f, &rc)) >= 0 && got != 2)
		if (got == 0)
			follow_sleep(every);
	fflush(stdout);
	free(f);
	return got == -1 ? rc : CTL_EXIT_OK;
}

static int
job_logs(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[96], err[256];

	if (a->interval != NULL && !a->follow)
		return ctl_usage("job logs: --interval goes with --follow");
	if (ctl_job_logs_path(a, path, sizeof(path), err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	if (a->follow)
		return job_logs_follow(cl, a, path);
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
