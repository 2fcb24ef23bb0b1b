/*
 * The job runner's thread (see job_run.h): start each job's ranks, watch
 * them (every check interval, job_watch.c: each rank as its node's agent
 * reported it or as ps over SSH says, one probe of rank 0), move the job
 * between its states, restart it by its policy, stop it; a job whose
 * placement cannot run waits, or moves to a new one (job_replan.h).
 *
 * States (proto/job_api.h):
 *   starting -> running   the probe answers
 *   starting -> failed    a rank exited, or no answer within the start timeout
 *   running  -> failed    every rank gone, or a rank gone and the probe fails
 *   running  -> hung      the probe fails for hang-after seconds while a rank
 *                         burns >= 0.8 core (MLX issue 4278: survivors spin),
 *                         or for JOB_HANG_IDLE_FACTOR times that whatever the
 *                         CPU (MLX issue 3830: a wedge with an idle CPU)
 *   hung     -> running   the probe answers again
 *   hung, failed -> stopping -> starting   restart (on-failure, restarts left)
 *   hung     -> failed    restarts used up
 *   any      -> stopping -> stopped        the operator's stop, every rank checked gone
 *   starting, running, hung, failed -> stopping -> waiting
 *                         the placement is not active (a node lost, a
 *                         rollout's drain): every rank stopped
 *   waiting  -> starting  the placement is active again, or (replan auto,
 *                         not a rollout) the job moved to a new placement
 *   waiting  -> stopped   the operator's stop
 *
 * Crash safety: the generation, the state and each rank's start_sent_at are
 * stored before the SSH command that acts on them.  At its start the runner
 * stops every rank of a job found starting or stopping (the pid files on the
 * nodes name them even when no pid was stored) and starts it once; running
 * and hung jobs are adopted, their pids checked at once.
 */
#include "job_run.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "inventory.h"
#include "inventory_jobs.h"
#include "job_env.h"
#include "job_int.h"
#include "job_loop_int.h"
#include "job_rank.h"
#include "job_replan.h"
#include "log.h"
#include "node_ssh.h"
#include "ssh.h"

static int
stopping(struct job_runner *r)
{
	int s;

	pthread_mutex_lock(&r->mu);
	s = r->stop;
	pthread_mutex_unlock(&r->mu);
	return s;
}

void
job_runner_wake(struct ctrl *c)
{
	struct job_runner *r = __atomic_load_n(&c->jobs, __ATOMIC_ACQUIRE);

	if (r == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	r->wake = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void
watch_reset(struct watch *w, int64_t id, int generation, double next)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->generation = generation;
	w->used = 1;
	w->next_check = next;
	w->fail_since = NAN;
	for (int q = 0; q < JOB_RANKS_MAX; q++)
		w->cpu[q] = w->seen[q] = w->busy[q] = NAN;
}

/* j's watch (a new one checks at once); a new generation starts afresh. */
static struct watch *
watch_of(struct job_runner *r, const struct job *j)
{
	struct watch *free_w = NULL;

	for (int i = 0; i < WATCH_MAX; i++) {
		struct watch *w = &r->w[i];
		if (w->used && w->id == j->id) {
			if (w->generation != j->generation)
				watch_reset(w, j->id, j->generation, ctrl_now());
			return w;
		}
		if (!w->used && free_w == NULL)
			free_w = w;
	}
	if (free_w == NULL)
		free_w = &r->w[j->id % WATCH_MAX];   /* more jobs than slots: share */
	watch_reset(free_w, j->id, j->generation, ctrl_now());
	return free_w;
}

static char *
what_of(char *buf, size_t size, const struct job *j, const char *word)
{
	snprintf(buf, size, "job %" PRId64 " %s", j->id, word);
	return buf;
}

/* j's state becomes st for reason, stored with the event "job ID word". */
void
job_set_state(struct job_runner *r, struct job *j, enum job_state st, const char *node,
    const char *word, const char *reason)
{
	char what[64], why[WHY_MAX];

	snprintf(why, sizeof(why), "%s", reason ? reason : "");
	j->state = st;
	size_t n = strlen(why);
	if (n >= sizeof(j->reason))
		n = sizeof(j->reason) - 1;
	memcpy(j->reason, why, n);   /* cut to what is stored */
	j->reason[n] = '\0';
	if (st == JOB_HUNG)
		atomic_fetch_add(&r->c->ctr.jobs_hangs, 1);
	if (st == JOB_FAILED)
		atomic_fetch_add(&r->c->ctr.jobs_failures, 1);
	job_store_put(r->c, j, ctrl_now(), node, word ? what_of(what, sizeof(what), j, word) :
	    NULL, why);
	if (word != NULL)
		log_info("job %" PRId64 " %s%s%s", j->id, word, why[0] ? ": " : "", why);
}

/* Has the operator asked to stop j since it was read?  (j->want updated.) */
static int
want_stop(struct job_runner *r, struct job *j)
{
	struct job *cur = malloc(sizeof(*cur));

	if (cur != NULL && job_store_get(r->c, j->id, cur) == 0)
		j->want = cur->want;
	free(cur);
	return j->want == JOB_WANT_STOP;
}

/*
 * Stop every rank of j and check it gone.  0, or -1 with the first rank
 * left (or node not reached) in err; every rank is tried either way.
 */
static int
stop_all(struct job_runner *r, struct job *j, char *err, size_t errlen)
{
	char why[512];
	int rc = 0;

	for (int q = j->n_ranks - 1; q >= 0; q--) {
		if (job_rank_stop(r->c, j, q, why, sizeof(why)) == -1) {
			if (rc == 0)
				snprintf(err, errlen, "%s", why);
			rc = -1;
			continue;
		}
		j->ranks[q].alive = 0;
	}
	return rc;
}

/* The last line rank q wrote (its log on the node), or "". */
void
job_last_line(struct job_runner *r, const struct job *j, int q, char *buf, size_t size)
{
	char err[256], *text = NULL;

	buf[0] = '\0';
	if (job_rank_tail(r->c, j, q, 5, &text, err, sizeof(err)) == 0)
		ssh_last_line(text, buf, size);
	free(text);
}

static void leave_placement(struct job_runner *r, struct job *j, enum job_route route,
    const char *why, int may_replan);
static int placement_route(struct job_runner *r, const struct job *j, char *why,
    size_t whylen);

/*
 * j failed for reason: its ranks stopped (what is left of them), state
 * failed; or, when its placement can no longer run (a node of it lost: the
 * likely cause), it leaves it as a placement that cannot run makes it.
 */
void
job_fail(struct job_runner *r, struct job *j, const char *node, const char *reason)
{
	char why[WHY_MAX], err[256];
	int route = j->want == JOB_WANT_RUN ? placement_route(r, j, why, sizeof(why)) : -1;

	if (route == JOB_ROUTE_WAIT || route == JOB_ROUTE_REPLAN) {
		log_info("job %" PRId64 ": %s; %s", j->id, reason, why);
		leave_placement(r, j, (enum job_route)route, why, 1);
		return;
	}
	if (j->restart_policy == JOB_RESTART_ON_FAILURE && j->restarts >= j->max_restarts)
		snprintf(why, sizeof(why), "restarts used up (%d of %d): %s", j->restarts,
		    j->max_restarts, reason);
	else
		snprintf(why, sizeof(why), "%s", reason);
	job_set_state(r, j, JOB_FAILED, node, "failed", why);
	if (stop_all(r, j, err, sizeof(err)) == -1)
		log_warnx("job %" PRId64 ": %s", j->id, err);
	job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
}

/* The ranks as the plan places them now, each with its SSH host.  0, or -1 with why. */
static int
ranks_from_plan(struct job_runner *r, struct job *j, const struct plan *p, char *err,
    size_t errlen)
{
	struct ro_ssh s;

	if (p->n_ranks < 1 || p->n_ranks > JOB_RANKS_MAX) {
		snprintf(err, errlen, "the placement has %d ranks", p->n_ranks);
		return -1;
	}
	j->n_ranks = p->n_ranks;
	for (int q = 0; q < p->n_ranks; q++) {
		struct job_rank *k = &j->ranks[q];
		if (node_ssh_get(r->c, p->ranks[q].node, 1, &s, err, errlen) == -1)
			return -1;
		memset(k, 0, sizeof(*k));
		k->rank = q;
		snprintf(k->node, sizeof(k->node), "%s", p->ranks[q].node);
		snprintf(k->host, sizeof(k->host), "%s", s.host);
		k->alive = -1;
		k->rss_bytes = -1;
		k->started_at = k->cpu_seconds = k->seen_at = k->start_sent_at = NAN;
	}
	snprintf(j->endpoint, sizeof(j->endpoint), "http://%s:%d", j->ranks[0].host, j->port);
	return 0;
}

/*
 * The plan of j's placement: 0 when it may run (its plan in p); 1 when it
 * cannot now (what j does in *route, why in err); -1 when it could not be
 * read (why in err).
 */
static int
plan_of(struct job_runner *r, const struct job *j, struct plan *p, enum job_route *route,
    char *err, size_t errlen)
{
	char state[16], reason[API_REASON_MAX + 1];
	int rc = job_plan_get(r->c, j->placement, p, state, sizeof(state), reason,
	    sizeof(reason), err, errlen);

	if (rc != 0 && rc != INV_NOTFOUND)
		return -1;
	*route = job_route_of(rc == 0, state, reason, j->replan);
	if (*route == JOB_ROUTE_RUN)
		return 0;
	job_wait_why(j->placement, rc == 0, state, reason, err, errlen);
	return 1;
}

/*
 * What j does about its placement now, from its state as stored (no plan
 * read): a job_route, with why it cannot run in why; -1 when the inventory
 * could not be read (nothing to do this time).
 */
static int
placement_route(struct job_runner *r, const struct job *j, char *why, size_t whylen)
{
	char state[16], reason[API_REASON_MAX + 1];
	int found;

	if (job_placement_state(r->c, j->placement, &found, state, sizeof(state), reason,
	    sizeof(reason)) == -1)
		return -1;
	job_wait_why(j->placement, found, state, reason, why, whylen);
	return (int)job_route_of(found, state, reason, j->replan);
}

/*
 * Start j's next generation: every rank, rank 0 first (jaccl's rank 0
 * listens on the coordinator and waits with no timeout, the others retry
 * for about 15 s: jaccl rdma.cpp:327-360; ring's ranks retry for about
 * 31 s: ring.cpp:37-38, so any order works if the starts are that quick).
 */
/*
 * As start_job, for reason (NULL: "generation N"); a placement that cannot
 * run makes j wait, or moves it when may_replan.  The event "job N
 * starting" is said on a change of state only: a job still starting
 * (job_submit said it, or resume() its own) says nothing more.
 */
static void
start_gen(struct job_runner *r, struct job *j, const char *reason, int may_replan)
{
	struct plan *p = malloc(sizeof(*p));
	struct job_env *e = malloc(sizeof(*e));
	char err[512], why[WHY_MAX], last[160];
	enum job_route route = JOB_ROUTE_RUN;
	int rc;

	if (e != NULL)
		memset(e, 0, sizeof(*e));
	if (p == NULL || e == NULL) {
		log_warnx("job %" PRId64 ": out of memory", j->id);
		goto out;
	}
	if ((rc = plan_of(r, j, p, &route, why, sizeof(why))) != 0) {
		if (rc == 1)
			leave_placement(r, j, route, why, may_replan);
		else
			job_fail(r, j, "", why);
		goto out;
	}
	if (ranks_from_plan(r, j, p, err, sizeof(err)) == -1 ||
	    job_env_make(p, j->id, j->generation + 1, j->port, j->python, e, err,
	    sizeof(err)) == -1) {
		job_fail(r, j, "", err);
		goto out;
	}
	j->generation++;
	j->started_at = ctrl_now();
	j->probe_ok_at = NAN;
	if (reason == NULL)
		snprintf(why, sizeof(why), "generation %d", j->generation);
	else
		snprintf(why, sizeof(why), "%s", reason);
	job_set_state(r, j, JOB_STARTING, "", j->state != JOB_STARTING ? "starting" : NULL, why);
	atomic_fetch_add(&r->c->ctr.jobs_started, 1);
	for (int q = 0; q < j->n_ranks; q++) {
		struct job_rank *k = &j->ranks[q];
		int64_t pid = 0;
		if (stopping(r) || want_stop(r, j))
			goto out;      /* the stop, or the next start, finds what is there */
		k->start_sent_at = ctrl_now();
		if (job_store_put(r->c, j, k->start_sent_at, NULL, NULL, NULL) == -1)
			goto out;
		if (job_rank_start(r->c, j, e, q, &pid, err, sizeof(err)) == -1) {
			job_last_line(r, j, q, last, sizeof(last));
			snprintf(why, sizeof(why), "rank %d on %s did not start: %s%s%s", q, k->node,
			    err, last[0] ? "; its last line: " : "", last);
			job_fail(r, j, k->node, why);
			goto out;
		}
		k->pid = pid;
		k->started_at = ctrl_now();
		k->alive = 1;
		job_store_put(r->c, j, k->started_at, NULL, NULL, NULL);
	}
	watch_reset(watch_of(r, j), j->id, j->generation, ctrl_now() + r->c->job_check_interval);
out:
	if (e != NULL)
		job_env_free(e);
	free(e);
	free(p);
}

static void
start_job(struct job_runner *r, struct job *j)
{
	start_gen(r, j, NULL, 1);
}

/* The operator's stop: stopping, every rank stopped and checked, stopped. */
static void
stop_job(struct job_runner *r, struct job *j)
{
	char err[512], why[WHY_MAX];

	if (j->state != JOB_STOPPING)
		job_set_state(r, j, JOB_STOPPING, "", "stopping", "asked by the operator");
	if (stop_all(r, j, err, sizeof(err)) == -1) {
		job_set_state(r, j, JOB_FAILED, "", "failed", err);
		return;
	}
	snprintf(why, sizeof(why), "%d rank%s ended, none left", j->n_ranks,
	    j->n_ranks == 1 ? "" : "s");
	job_set_state(r, j, JOB_STOPPED, "", "stopped", why);
}

/* j's reason becomes why, cut to what is stored. */
static void
set_reason(struct job *j, const char *why)
{
	size_t n = strlen(why);

	if (n >= sizeof(j->reason))
		n = sizeof(j->reason) - 1;
	memcpy(j->reason, why, n);
	j->reason[n] = '\0';
}

/*
 * j (its ranks stopped) waits for why: the event once; a waiting job's
 * reason is kept up to date without one.
 */
static void
wait_job(struct job_runner *r, struct job *j, const char *why)
{
	if (j->state != JOB_WAITING) {
		job_set_state(r, j, JOB_WAITING, "", "waiting", why);
		return;
	}
	if (strncmp(j->reason, why, sizeof(j->reason) - 1) == 0)
		return;
	set_reason(j, why);
	job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
}

/* "; rank 1 on a2 not seen gone (why)" for the ranks stop_all left, into buf. */
static void
not_gone(const struct job *j, const char *why, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int q = 0; q < j->n_ranks && n + 1 < size; q++)
		if (j->ranks[q].alive != 0)
			n += (size_t)snprintf(buf + n, size - n, "%s rank %d on %s", n ? "," :
			    ";", q, j->ranks[q].node);
	if (n + 1 < size)
		snprintf(buf + n, size - n, " not seen gone (%s)", why);
}

/*
 * Move j, its ranks stopped, to a new placement of its model and start it
 * there (job_replan.h): 1 done (or its placement was active again: started
 * where it is); 0 not, with the planner's reason in err.
 */
static int
replan_job(struct job_runner *r, struct job *j, const char *why, char *err, size_t errlen)
{
	struct plan *np = malloc(sizeof(*np));
	char start[128];
	int64_t old = j->placement;
	int rc;

	if (np == NULL) {
		snprintf(err, errlen, "out of memory");
		return 0;
	}
	rc = job_replan_apply(r->c, j, ctrl_now(), np, err, errlen);
	free(np);
	if (rc == -1)
		return 0;
	if (rc == 0) {
		atomic_fetch_add(&r->c->ctr.jobs_replans, 1);
		log_info("job %" PRId64 " replanned: placement %" PRId64 " -> %" PRId64 ": %s",
		    j->id, old, j->placement, why);
		snprintf(start, sizeof(start), "on placement %" PRId64 ", in place of placement %"
		    PRId64, j->placement, old);
	} else
		snprintf(start, sizeof(start), "placement %" PRId64 " is active again", old);
	start_gen(r, j, start, 0);
	return 1;
}

/*
 * j's placement cannot run (why; route wait or replan): its ranks stopped
 * and checked gone (stored as stopping first: a controller killed meanwhile
 * stops them again when it starts), then, for replan and may_replan, moved
 * to a new placement and started there, else waiting.  A rank that could
 * not be checked gone (its node not reached) is named in the reason; a
 * later start on that node stops it first (job_rank_start).
 */
static void
leave_placement(struct job_runner *r, struct job *j, enum job_route route, const char *why,
    int may_replan)
{
	char err[512], note[600] = "", fail[768] = "", full[WHY_MAX];

	if (j->state != JOB_WAITING && j->state != JOB_STOPPING && j->generation > 0) {
		j->state = JOB_STOPPING;
		set_reason(j, why);
		job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
		if (stop_all(r, j, err, sizeof(err)) == -1)
			not_gone(j, err, note, sizeof(note));
	}
	if (route == JOB_ROUTE_REPLAN && may_replan) {
		int was_waiting = j->state == JOB_WAITING;
		if (!was_waiting) {
			/* its ranks stopped: a controller killed during the move finds
			 * it waiting, on the old placement or the new one */
			j->state = JOB_WAITING;
			job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
		}
		if (replan_job(r, j, why, err, sizeof(err)))
			return;
		snprintf(fail, sizeof(fail), "; no new placement: %s", err);
		if (!was_waiting)
			j->state = JOB_STOPPING;   /* so that the waiting event is made */
	}
	snprintf(full, sizeof(full), "%s%s%s", why, fail, note);
	wait_job(r, j, full);
}

/*
 * Each loop, for a job that has (or may have) ranks, or waits: is its
 * placement one it runs on?  0 yes, carry on; 1 it was handled here (the
 * job left its placement, waits, was moved or started again).  A waiting
 * job is replanned at most once a check interval.
 */
static int
placement_gate(struct job_runner *r, struct job *j, struct watch *w)
{
	char why[WHY_MAX];
	int route = placement_route(r, j, why, sizeof(why));
	double now = ctrl_now();

	if (route == -1)
		return j->state == JOB_WAITING;
	if (j->state != JOB_WAITING) {
		if (route == JOB_ROUTE_RUN)
			return 0;
		leave_placement(r, j, (enum job_route)route, why, 1);
		return 1;
	}
	if (route == JOB_ROUTE_RUN) {
		snprintf(why, sizeof(why), "placement %" PRId64 " is active again", j->placement);
		start_gen(r, j, why, 1);
	} else if (route == JOB_ROUTE_REPLAN && now >= w->next_check) {
		w->next_check = now + r->c->job_check_interval;
		leave_placement(r, j, JOB_ROUTE_REPLAN, why, 1);
	} else if (strncmp(j->reason, why, strlen(why)) != 0)
		wait_job(r, j, why);   /* a new reason; a replan's failure is kept after it */
	return 1;
}

/* The operator's stop of a waiting job: what may be left stopped, stopped. */
static void
stop_waiting(struct job_runner *r, struct job *j)
{
	char err[512], why[WHY_MAX], note[600];

	if (stop_all(r, j, err, sizeof(err)) == -1) {
		not_gone(j, err, note, sizeof(note));
		snprintf(why, sizeof(why), "asked by the operator while it waited (%.200s)%s",
		    j->reason, note);
	} else
		snprintf(why, sizeof(why), "asked by the operator while it waited (%.200s); no "
		    "rank left", j->reason);
	job_set_state(r, j, JOB_STOPPED, "", "stopped", why);
}

/* Stop what may be left, then start the next generation (restarts counted by the caller). */
static void
restart_job(struct job_runner *r, struct job *j)
{
	char err[512], why[WHY_MAX];

	j->state = JOB_STOPPING;
	job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
	if (stop_all(r, j, err, sizeof(err)) == -1) {
		snprintf(why, sizeof(why), "could not stop it to start it again: %s", err);
		job_fail(r, j, "", why);
		return;
	}
	if (want_stop(r, j)) {
		stop_job(r, j);
		return;
	}
	start_job(r, j);
}

/* Restart j by its policy, if restarts are left: 1 done, 0 not. */
static int
policy_restart(struct job_runner *r, struct job *j)
{
	char what[64], why[WHY_MAX];
	int route;

	if (j->restart_policy != JOB_RESTART_ON_FAILURE || j->restarts >= j->max_restarts)
		return 0;
	/* a placement that cannot run: no restart (none counted), it waits or moves */
	route = placement_route(r, j, why, sizeof(why));
	if (route == JOB_ROUTE_WAIT || route == JOB_ROUTE_REPLAN) {
		log_info("job %" PRId64 " not restarted where it was: %s", j->id, why);
		leave_placement(r, j, (enum job_route)route, why, 1);
		return 1;
	}
	j->restarts++;
	atomic_fetch_add(&r->c->ctr.jobs_restarts, 1);
	job_store_put(r->c, j, ctrl_now(), "", what_of(what, sizeof(what), j, "restarted"),
	    j->reason);
	log_info("job %" PRId64 " restarted (%d of %d): %s", j->id, j->restarts, j->max_restarts,
	    j->reason);
	restart_job(r, j);
	return 1;
}

/* What j needs now. */
static void
step(struct job_runner *r, struct job *j)
{
	struct watch *w = watch_of(r, j);

	if (j->want == JOB_WANT_STOP) {
		if (j->state == JOB_WAITING)
			stop_waiting(r, j);
		else if (j->state != JOB_STOPPED)
			stop_job(r, j);
		return;
	}
	/* every loop, not every check: a drained placement's job stops at once */
	if ((j->state == JOB_RUNNING || j->state == JOB_HUNG || j->state == JOB_WAITING ||
	    (j->state == JOB_STARTING && j->generation > 0)) && placement_gate(r, j, w))
		return;
	switch (j->state) {
	case JOB_STARTING:
		if (j->generation == 0)
			start_job(r, j);
		else if (ctrl_now() >= w->next_check)
			job_check(r, j, w);
		break;
	case JOB_HUNG:
		if (policy_restart(r, j))
			break;
		if (j->restart_policy == JOB_RESTART_ON_FAILURE) {
			job_fail(r, j, "", j->reason);
			break;
		}
		/* never: hung stays, and is watched */
		/* FALLTHROUGH */
	case JOB_RUNNING:
		if (ctrl_now() >= w->next_check)
			job_check(r, j, w);
		break;
	case JOB_FAILED:
		policy_restart(r, j);
		break;
	case JOB_STOPPING:
		restart_job(r, j);   /* a restart cut short */
		break;
	default:
		break;
	}
}

/*
 * At the runner's start: a job starting or stopping may have left ranks
 * (or be about to have them, a start line sent just before the controller
 * stopped): stop every rank, then start it once.
 */
static void
resume(struct job_runner *r, struct job *j)
{
	char err[512], why[WHY_MAX];

	if (j->want == JOB_WANT_STOP || j->generation == 0 ||
	    (j->state != JOB_STARTING && j->state != JOB_STOPPING))
		return;
	char what[64];

	snprintf(why, sizeof(why), "it was %s when the controller stopped: what it may have left "
	    "is stopped, then it starts again", job_state_str(j->state));
	job_store_put(r->c, j, ctrl_now(), "", what_of(what, sizeof(what), j, "resumed"), why);
	log_info("job %" PRId64 " resumed: %s", j->id, why);
	if (stop_all(r, j, err, sizeof(err)) == -1) {
		snprintf(why, sizeof(why), "could not stop what the last run left: %s", err);
		job_fail(r, j, "", why);
		return;
	}
	start_job(r, j);
}

struct open_list {
	struct job *js;
	int n;
};

static int
open_fn(struct inv *inv, void *arg)
{
	struct open_list *a = arg;

	return inv_job_open(inv, &a->js, &a->n);
}

/* The jobs still open (free ->js), or n 0. */
static void
open_jobs(struct job_runner *r, struct open_list *l)
{
	l->js = NULL;
	l->n = 0;
	if (store_with(&r->c->store, open_fn, l) != 0) {
		free(l->js);
		l->js = NULL;
		l->n = 0;
	}
}

/* Forget the watches of jobs no longer open. */
static void
watch_gc(struct job_runner *r, const struct open_list *l)
{
	for (int i = 0; i < WATCH_MAX; i++) {
		int keep = 0;
		for (int k = 0; k < l->n && !keep; k++)
			keep = r->w[i].id == l->js[k].id && l->js[k].state != JOB_STOPPED;
		if (!keep)
			r->w[i].used = 0;
	}
}

static void
wait_a_little(struct job_runner *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += LOOP_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->mu);
	if (!r->stop && !r->wake)
		pthread_cond_timedwait(&r->cv, &r->mu, &ts);
	r->wake = 0;
	pthread_mutex_unlock(&r->mu);
}

static void *
runner_main(void *arg)
{
	struct job_runner *r = arg;
	struct open_list l;

	open_jobs(r, &l);
	for (int i = 0; i < l.n && !stopping(r); i++)
		resume(r, &l.js[i]);
	free(l.js);
	while (!stopping(r)) {
		open_jobs(r, &l);
		for (int i = 0; i < l.n && !stopping(r); i++)
			step(r, &l.js[i]);
		watch_gc(r, &l);
		free(l.js);
		wait_a_little(r);
	}
	return NULL;
}

struct job_runner *
job_runner_start(struct ctrl *c)
{
	struct job_runner *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->c = c;
	if (c->job_check_interval <= 0)
		c->job_check_interval = 5;
	if (c->job_probe_timeout <= 0)
		c->job_probe_timeout = 10;
	if (c->job_hang_after <= 0)
		c->job_hang_after = 30;
	if (c->job_start_timeout <= 0)
		c->job_start_timeout = 600;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&r->th, NULL, runner_main, r) != 0) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		free(r);
		return NULL;
	}
	__atomic_store_n(&c->jobs, r, __ATOMIC_RELEASE);
	return r;
}

void
job_runner_stop(struct job_runner *r)
{
	if (r == NULL)
		return;
	__atomic_store_n(&r->c->jobs, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->th, NULL);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
