/*
 * Jobs held for an OS update (see job_hold.h).  The runner (job_loop.c)
 * does the stopping: a job whose placement is not active goes to waiting,
 * its ranks stopped (SIGTERM, then SIGKILL after JOB_STOP_GRACE: MLX issue
 * 3910, a rank may ignore SIGTERM) and checked gone.  This module only
 * wakes it and watches the inventory until every job of the drained
 * placements is clear, so that the update's install (which restarts the
 * node) never cuts a rank off.
 */
#include "job_hold.h"

#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "inventory_jobs.h"
#include "job_int.h"
#include "log.h"

int
job_hold_clear(const struct job *j, char *why, size_t whylen)
{
	if (j->state != JOB_WAITING && j->state != JOB_STOPPED && j->state != JOB_FAILED) {
		snprintf(why, whylen, "job %" PRId64 " is %s", j->id, job_state_str(j->state));
		return 0;
	}
	for (int q = 0; q < j->n_ranks; q++) {
		const struct job_rank *k = &j->ranks[q];
		/* alive not known: gone only if it was never started (no pid, no start sent) */
		if (k->alive == 0 || (k->alive == -1 && k->pid <= 0 && isnan(k->start_sent_at)))
			continue;
		snprintf(why, whylen, "job %" PRId64 " is %s and its rank %d (pid %" PRId64
		    " on %s) %s", j->id, job_state_str(j->state), k->rank, k->pid, k->node,
		    k->alive == 1 ? "is alive" : "was not seen gone");
		return 0;
	}
	if (whylen > 0)
		why[0] = '\0';
	return 1;
}

int
job_hold_held(const struct job *j, const int64_t *ids, int n)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == j->placement)
			return 1;
	return 0;
}

double
job_hold_timeout(const struct job *js, int n)
{
	char why[API_REASON_MAX + 1];
	double t = JOB_HOLD_SLACK;

	for (int i = 0; i < n; i++)
		if (!job_hold_clear(&js[i], why, sizeof(why)))
			t += (double)JOB_HOLD_PER_RANK * (js[i].n_ranks > 0 ? js[i].n_ranks : 1);
	return t;
}

void
job_hold_said(const struct job *j, char *what, size_t whatlen)
{
	const char *word = j->state == JOB_WAITING ? "stopped for the update" :
	    j->state == JOB_STOPPED ? "stopped" : job_state_str(j->state);

	snprintf(what, whatlen, "job %" PRId64 " %s", j->id, word);
}

/* ---- the wait ---- */

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct held {
	struct ctrl *c;
	const struct job_hold *h;
	struct job *js;              /* the held jobs as read last (malloc'd) */
	int n;
	int64_t *live;               /* the jobs not clear at the start (malloc'd) */
	int n_live;
	double now;
};

/* store_fn: the jobs of h's placements, into a->js (a->n). */
static int
read_held(struct inv *inv, void *arg)
{
	struct held *a = arg;
	struct job *all = NULL;
	int n = 0, k = 0;

	if (inv_job_list(inv, &all, &n) != 0)
		return -1;
	for (int i = 0; i < n; i++) {
		if (!job_hold_held(&all[i], a->h->placements, a->h->n_placements))
			continue;
		if (k != i)
			memcpy(&all[k], &all[i], sizeof(all[k]));
		k++;
	}
	free(a->js);
	a->js = all;
	a->n = k;
	return 0;
}

static int
was_live(const struct held *a, int64_t id)
{
	for (int i = 0; i < a->n_live; i++)
		if (a->live[i] == id)
			return 1;
	return 0;
}

/* store_fn: the event of each job that was not clear at the start. */
static int
said_events(struct inv *inv, void *arg)
{
	struct held *a = arg;
	char what[96];

	(void)inv;
	for (int i = 0; i < a->n; i++) {
		if (!was_live(a, a->js[i].id))
			continue;
		job_hold_said(&a->js[i], what, sizeof(what));
		ctrl_event(a->c, a->now, a->h->actor, a->h->node, what, a->js[i].reason);
	}
	return 0;
}

/* Append s to buf ("; " between two). */
static void
say(char *buf, size_t size, const char *s)
{
	size_t l = strlen(buf);

	if (l + 3 < size)
		snprintf(buf + l, size - l, "%s%s", l ? "; " : "", s);
}

/* What the hold did, into what: each job that was not clear at the start. */
static void
said_text(const struct held *a, char *what, size_t whatlen)
{
	char one[128], s[96];

	what[0] = '\0';
	for (int i = 0; i < a->n; i++) {
		if (!was_live(a, a->js[i].id))
			continue;
		job_hold_said(&a->js[i], s, sizeof(s));
		snprintf(one, sizeof(one), "%s (%d rank%s gone)", s, a->js[i].n_ranks,
		    a->js[i].n_ranks == 1 ? "" : "s");
		say(what, whatlen, one);
	}
}

/* The first held job not clear, -1 none; why it is not in why. */
static int
first_held(const struct held *a, char *why, size_t whylen)
{
	for (int i = 0; i < a->n; i++)
		if (!job_hold_clear(&a->js[i], why, whylen))
			return i;
	return -1;
}

/* Remember the jobs not clear now, as those the events will name.  0 or -1. */
static int
note_live(struct held *a)
{
	char why[API_REASON_MAX + 1];

	a->live = calloc(a->n > 0 ? (size_t)a->n : 1, sizeof(*a->live));
	if (a->live == NULL)
		return -1;
	for (int i = 0; i < a->n; i++)
		if (!job_hold_clear(&a->js[i], why, sizeof(why)))
			a->live[a->n_live++] = a->js[i].id;
	return 0;
}

/* Wait until the held jobs are clear: 0, 1 cancelled, -1 with err. */
static int
wait_clear(struct held *a, char *err, size_t errlen)
{
	char why[API_REASON_MAX + 1];
	double t0 = mono(), limit;
	int i;

	limit = a->h->timeout > 0 ? a->h->timeout : job_hold_timeout(a->js, a->n);
	while ((i = first_held(a, why, sizeof(why))) != -1) {
		if (a->h->cancelled != NULL && a->h->cancelled(a->c, a->h->arg))
			return 1;
		if (mono() - t0 >= limit) {
			snprintf(err, errlen, "%s %.0f s after its placement %" PRId64 " was "
			    "stopped (tbctl job show %" PRId64 "): the update would cut its ranks "
			    "off", why, mono() - t0, a->js[i].placement, a->js[i].id);
			return -1;
		}
		job_runner_wake(a->c);
		poll(NULL, 0, JOB_HOLD_POLL_MS);
		if (store_with(&a->c->store, read_held, a) != 0) {
			snprintf(err, errlen, "the jobs could not be read from the inventory");
			return -1;
		}
	}
	return 0;
}

int
job_hold_wait(struct ctrl *c, const struct job_hold *h, char *what, size_t whatlen,
    char *err, size_t errlen)
{
	struct held a = { .c = c, .h = h };
	int rc;

	what[0] = '\0';
	if (h->n_placements <= 0)
		return 0;
	job_runner_wake(c);
	if (store_with(&c->store, read_held, &a) != 0) {
		snprintf(err, errlen, "the jobs could not be read from the inventory");
		free(a.js);
		return -1;
	}
	if (note_live(&a) != 0) {
		snprintf(err, errlen, "out of memory");
		free(a.js);
		return -1;
	}
	if ((rc = wait_clear(&a, err, errlen)) == 0 && a.n_live > 0) {
		a.now = ctrl_now();
		said_text(&a, what, whatlen);
		if (store_with(&c->store, said_events, &a) != 0)
			log_warnx("%s: the events of %s could not be stored", __func__, what);
	}
	free(a.live);
	free(a.js);
	return rc;
}

void
job_hold_release(struct ctrl *c)
{
	job_runner_wake(c);
}
