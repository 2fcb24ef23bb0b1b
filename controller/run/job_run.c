/*
 * Jobs as the API asks for them (see job_run.h): submit, with every
 * refusal made before anything is stored or started; stop; logs.  The
 * runner's thread is job_loop.c.
 */
#include "job_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "inventory.h"
#include "inventory_jobs.h"
#include "inventory_placement.h"
#include "job_env.h"
#include "job_int.h"
#include "job_probe.h"
#include "log.h"
#include "node_ssh.h"

/* ---- the inventory ---- */

struct job_arg {
	struct ctrl *c;
	int64_t id;
	struct job *j;
	double now;
	const char *node, *what, *reason;
	enum job_want want;
};

static int
get_fn(struct inv *inv, void *arg)
{
	struct job_arg *a = arg;

	return inv_job_get(inv, a->id, a->j);
}

int
job_store_get(struct ctrl *c, int64_t id, struct job *j)
{
	struct job_arg a = { .c = c, .id = id, .j = j };

	return store_with(&c->store, get_fn, &a);
}

static int
put_fn(struct inv *inv, void *arg)
{
	struct job_arg *a = arg;
	struct job *cur = malloc(sizeof(*cur));
	int rc;

	if (cur == NULL)
		return -1;
	rc = inv_job_get(inv, a->j->id, cur);
	if (rc == 0)
		a->j->want = cur->want;
	free(cur);
	if (rc != 0)
		return rc;
	a->j->updated_at = a->now;
	if ((rc = inv_job_put(inv, a->j)) != 0)
		return rc;
	if (a->what != NULL) {
		char actor[32];
		snprintf(actor, sizeof(actor), "job:%" PRId64, a->j->id);
		ctrl_event(a->c, a->now, actor, a->node ? a->node : "", a->what,
		    a->reason ? a->reason : "");
	}
	return 0;
}

int
job_store_put(struct ctrl *c, struct job *j, double now, const char *node, const char *what,
    const char *reason)
{
	struct job_arg a = { .c = c, .j = j, .now = now, .node = node, .what = what,
		.reason = reason };
	int rc = store_txn(&c->store, put_fn, &a);

	if (rc != 0)
		log_warnx("job %" PRId64 ": could not be stored (%d)", j->id, rc);
	return rc == 0 ? 0 : -1;
}

struct plan_arg {
	int64_t id;
	struct inv_placement p;
};

static int
plan_fn(struct inv *inv, void *arg)
{
	struct plan_arg *a = arg;

	return inv_placement_get(inv, a->id, &a->p);
}

int
job_plan_get(struct ctrl *c, int64_t id, struct plan *p, char *state, size_t statelen,
    char *reason, size_t reasonlen, char *err, size_t errlen)
{
	struct plan_arg a = { .id = id };
	int rc = store_with(&c->store, plan_fn, &a);

	if (rc != 0) {
		snprintf(err, errlen, rc == INV_NOTFOUND ? "placement %" PRId64 " not found" :
		    "placement %" PRId64 ": the inventory could not be read", id);
		return rc;
	}
	snprintf(state, statelen, "%s", a.p.state);
	snprintf(reason, reasonlen, "%s", a.p.reason);
	rc = plan_json_decode(a.p.json, strlen(a.p.json), p, err, errlen);
	free(a.p.json);
	if (rc != 0) {
		log_warnx("placement %" PRId64 "'s plan does not decode: %s", id, err);
		snprintf(err, errlen, "placement %" PRId64 "'s plan could not be read", id);
		return -1;
	}
	return 0;
}

int
job_placement_state(struct ctrl *c, int64_t id, int *found, char *state, size_t statelen,
    char *reason, size_t reasonlen)
{
	struct plan_arg a = { .id = id };
	int rc = store_with(&c->store, plan_fn, &a);

	*found = rc == 0;
	state[0] = reason[0] = '\0';
	if (rc == INV_NOTFOUND)
		return 0;
	if (rc != 0)
		return -1;
	snprintf(state, statelen, "%s", a.p.state);
	snprintf(reason, reasonlen, "%s", a.p.reason);
	free(a.p.json);
	return 0;
}

/* ---- submit ---- */

static int
refuse(int *status, int code, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
refuse(int *status, int code, char *err, size_t errlen, const char *fmt, ...)
{
	char buf[1024];   /* fmt's arguments may be err */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s", buf);
	*status = code;
	return -1;
}

struct open_arg {
	int64_t placement;
	int64_t busy;                /* a job of the placement that is not over; 0 none */
	enum job_state state;
};

static int
open_fn(struct inv *inv, void *arg)
{
	struct open_arg *a = arg;
	struct job *js = NULL;
	int n = 0, rc = inv_job_open(inv, &js, &n);

	for (int i = 0; rc == 0 && i < n; i++)
		if (js[i].placement == a->placement && js[i].state != JOB_FAILED &&
		    js[i].state != JOB_STOPPED) {
			a->busy = js[i].id;
			a->state = js[i].state;
		}
	free(js);
	return rc;
}

/* "ip:port" into ip and *port; -1 when it is not that. */
static int
split_addr(const char *s, char *ip, size_t iplen, int *port)
{
	const char *colon = strrchr(s, ':');

	if (colon == NULL || (size_t)(colon - s) >= iplen || (*port = atoi(colon + 1)) <= 0)
		return -1;
	snprintf(ip, iplen, "%.*s", (int)(colon - s), s);
	return 0;
}

/* The checks on the placement and its plan: 0, or -1 with *status. */
static int
check_plan(struct ctrl *c, int64_t id, struct plan *p, int *status, char *err, size_t errlen)
{
	char state[16], reason[API_REASON_MAX + 1];
	int rc = job_plan_get(c, id, p, state, sizeof(state), reason, sizeof(reason), err, errlen);

	if (rc != 0)
		return refuse(status, rc == INV_NOTFOUND ? 404 : 503, err, errlen, "%s", err);
	if (strcmp(state, "active") != 0)
		return refuse(status, 409, err, errlen, "placement %" PRId64 " is %s%s%s: only an "
		    "active placement runs (tbctl placement replan %" PRId64 ")", id, state,
		    reason[0] ? ": " : "", reason, id);
	if (p->runtime == PLAN_RT_EXO)
		return refuse(status, 409, err, errlen, "placement %" PRId64 " is for exo, which "
		    "starts its models itself: tbmesh runs mlx-lm placements", id);
	if (p->n_ranks < 1 || p->n_ranks > JOB_RANKS_MAX)
		return refuse(status, 409, err, errlen, "placement %" PRId64 " has %d ranks: a job "
		    "runs 1 to %d", id, p->n_ranks, JOB_RANKS_MAX);
	if (p->n_ranks > 1 && strncmp(p->backend, "jaccl", 5) == 0 && p->coordinator[0] == '\0')
		return refuse(status, 409, err, errlen, "placement %" PRId64 " has no coordinator "
		    "for %s: %s", id, p->backend, p->coordinator_from[0] ? p->coordinator_from :
		    "rank 0 has no address the others reach");
	return 0;
}

/* The ports a start needs: rank 0's HTTP port, the coordinator's.  0, or -1 with *status. */
static int
check_ports(struct ctrl *c, const struct plan *p, const char *host0, int port, int *status,
    char *err, size_t errlen)
{
	double t = c->job_probe_timeout > 0 && c->job_probe_timeout < 2 ? c->job_probe_timeout : 2;
	char ip[280];
	int cport;

	if (job_port_open(host0, port, t))
		return refuse(status, 409, err, errlen, "rank 0's port %d on %s is in use", port,
		    host0);
	if (p->n_ranks > 1 && p->coordinator[0] && split_addr(p->coordinator, ip, sizeof(ip),
	    &cport) == 0 && job_port_open(ip, cport, t))
		return refuse(status, 409, err, errlen, "the coordinator's port %d on %s is in use",
		    cport, ip);
	return 0;
}

/* The job as it is stored first: state starting, generation 0 (nothing sent yet). */
static void
job_fill(struct job *j, const struct job_request *req, const struct plan *p,
    const struct ro_ssh *ssh, double now)
{
	memset(j, 0, sizeof(*j));
	j->placement = req->placement;
	snprintf(j->model, sizeof(j->model), "%s", p->model);
	snprintf(j->cluster, sizeof(j->cluster), "%s", p->cluster);
	snprintf(j->backend, sizeof(j->backend), "%s", p->n_ranks > 1 ? p->backend : "");
	j->state = JOB_STARTING;
	j->want = JOB_WANT_RUN;
	j->restart_policy = req->restart;
	j->max_restarts = req->max_restarts < 0 ? JOB_DEFAULT_MAX_RESTARTS : req->max_restarts;
	j->replan = req->replan;
	j->port = req->port ? req->port : JOB_DEFAULT_PORT;
	snprintf(j->python, sizeof(j->python), "%s", req->python[0] ? req->python :
	    JOB_DEFAULT_PYTHON);
	snprintf(j->endpoint, sizeof(j->endpoint), "http://%s:%d", ssh[0].host, j->port);
	j->created_at = j->updated_at = now;
	j->started_at = j->probe_ok_at = NAN;
	j->n_ranks = p->n_ranks;
	for (int r = 0; r < p->n_ranks; r++) {
		struct job_rank *k = &j->ranks[r];
		k->rank = r;
		snprintf(k->node, sizeof(k->node), "%s", p->ranks[r].node);
		snprintf(k->host, sizeof(k->host), "%s", ssh[r].host);
		k->alive = -1;
		k->rss_bytes = -1;
		k->started_at = k->cpu_seconds = k->seen_at = k->start_sent_at = NAN;
	}
}

static int
add_fn(struct inv *inv, void *arg)
{
	struct job_arg *a = arg;
	char actor[32], why[640];
	int rc = inv_job_add(inv, a->j);

	if (rc != 0)
		return rc;
	snprintf(actor, sizeof(actor), "job:%" PRId64, a->j->id);
	snprintf(why, sizeof(why), "placement %" PRId64 " (%s), %d rank%s, endpoint %s",
	    a->j->placement, a->j->model, a->j->n_ranks, a->j->n_ranks == 1 ? "" : "s",
	    a->j->endpoint);
	char what[64];
	snprintf(what, sizeof(what), "job %" PRId64 " starting", a->j->id);
	ctrl_event(a->c, a->now, actor, "", what, why);
	return 0;
}

/* The request's own fields: 0, or -1 with *status 400. */
static int
check_request(const struct job_request *req, int *status, char *err, size_t errlen)
{
	if (req->placement <= 0)
		return refuse(status, 400, err, errlen, "placement: a placement id is needed");
	if (req->port < 0 || req->port > 65535)
		return refuse(status, 400, err, errlen, "port: %d is not a TCP port", req->port);
	if (req->restart < 0 || req->restart >= JOB_RESTART_COUNT)
		return refuse(status, 400, err, errlen, "restart: never or on-failure");
	if (req->max_restarts < -1 || req->max_restarts > 1000)
		return refuse(status, 400, err, errlen, "max_restarts: 0 to 1000");
	if (strpbrk(req->python, "\n\r") != NULL)
		return refuse(status, 400, err, errlen, "python: one line");
	return 0;
}

int
job_submit(struct ctrl *c, const struct job_request *req, struct job *out, int *status,
    char *err, size_t errlen)
{
	struct plan *p = malloc(sizeof(*p));
	struct job_env *e = malloc(sizeof(*e));
	struct ro_ssh ssh[JOB_RANKS_MAX];
	struct open_arg oa = { .placement = req->placement };
	struct job_arg a = { .c = c, .j = out, .now = ctrl_now() };
	int rc = -1;

	if (p == NULL || e == NULL) {
		rc = refuse(status, 503, err, errlen, "out of memory");
		goto out;
	}
	if (check_request(req, status, err, errlen) == -1 ||
	    check_plan(c, req->placement, p, status, err, errlen) == -1)
		goto out;
	if (c->ssh_key == NULL) {
		refuse(status, 503, err, errlen, "the controller has no SSH key "
		    "(tbcontrollerd --ssh-key FILE)");
		goto out;
	}
	for (int r = 0; r < p->n_ranks; r++)
		if (node_ssh_get(c, p->ranks[r].node, 1, &ssh[r], err, errlen) == -1) {
			*status = 409;
			goto out;
		}
	if (job_env_make(p, 0, 1, req->port ? req->port : JOB_DEFAULT_PORT, req->python, e,
	    err, errlen) == -1) {
		*status = 409;
		goto out;
	}
	job_env_free(e);
	if (store_with(&c->store, open_fn, &oa) != 0) {
		refuse(status, 503, err, errlen, "the inventory could not be read");
		goto out;
	}
	if (oa.busy != 0) {
		refuse(status, 409, err, errlen, "placement %" PRId64 " already has job %" PRId64
		    " (%s): stop it first (tbctl job stop %" PRId64 ")", req->placement, oa.busy,
		    job_state_str(oa.state), oa.busy);
		goto out;
	}
	if (check_ports(c, p, ssh[0].host, req->port ? req->port : JOB_DEFAULT_PORT, status,
	    err, errlen) == -1)
		goto out;
	job_fill(out, req, p, ssh, a.now);
	if ((rc = store_txn(&c->store, add_fn, &a)) != 0) {
		refuse(status, rc == INV_CONFLICT ? 409 : 503, err, errlen, rc == INV_CONFLICT ?
		    "placement %" PRId64 " already has a job that is not over" :
		    "placement %" PRId64 ": the job could not be stored", req->placement);
		rc = -1;
		goto out;
	}
	*status = 201;
	job_runner_wake(c);
out:
	free(p);
	free(e);
	return rc;
}

/* ---- stop ---- */

static int
stop_fn(struct inv *inv, void *arg)
{
	struct job_arg *a = arg;
	int rc = inv_job_get(inv, a->id, a->j);

	if (rc != 0 || a->j->state == JOB_STOPPED)
		return rc;
	if ((rc = inv_job_set_want(inv, a->id, JOB_WANT_STOP, a->now)) != 0)
		return rc;
	a->j->want = JOB_WANT_STOP;
	/* a failed job is no longer watched: stopping makes the runner check
	 * every rank gone, and say stopped */
	if (a->j->state == JOB_FAILED) {
		a->j->state = JOB_STOPPING;
		a->j->updated_at = a->now;
		rc = inv_job_put(inv, a->j);
	}
	return rc;
}

int
job_stop(struct ctrl *c, int64_t id, struct job *out, int *status, char *err, size_t errlen)
{
	struct job_arg a = { .c = c, .id = id, .j = out, .now = ctrl_now() };
	int rc = store_txn(&c->store, stop_fn, &a);

	if (rc != 0)
		return refuse(status, rc == INV_NOTFOUND ? 404 : 503, err, errlen, rc ==
		    INV_NOTFOUND ? "job %" PRId64 " not found" : "job %" PRId64 ": the inventory "
		    "could not be written", id);
	*status = 202;
	job_runner_wake(c);
	return 0;
}
