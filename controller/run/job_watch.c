/*
 * The check of a job (job_loop_int.h): each rank's process as its node's
 * agent reported it, or as ps over SSH says; rank 0's endpoint probed with
 * a one-token completion; from these, whether the job runs, failed (a rank
 * gone) or hangs:
 *   the probe fails for hang-after seconds while a rank burns >= 0.8 core
 *   (MLX issue 4278: the survivors of a lost peer spin), or for
 *   JOB_HANG_IDLE_FACTOR times that whatever the CPU (MLX issue 3830: a
 *   wedge with an idle CPU).
 */
#include "job_loop_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ctrl.h"
#include "job_int.h"
#include "job_probe.h"
#include "job_procs.h"
#include "job_rank.h"
#include "log.h"

/*
 * Each rank's alive, CPU and RSS: its node's agent's (the report's jobs
 * section, job_procs.h) when fresh, else one ps per node over SSH for the
 * ranks left; w's busy from the last read.  A rank read again from the
 * same report as at the last check keeps its busy and runs.
 */
static void
read_ranks(struct job_runner *r, struct job *j, struct watch *w, double now)
{
	char err[256];
	int runnable[JOB_RANKS_MAX] = { 0 }, given[JOB_RANKS_MAX];
	int agent = job_procs_read(r->c, j, now, runnable, given);

	atomic_fetch_add(&r->c->ctr.job_rank_reads_agent, (uint_fast64_t)agent);
	if (agent < j->n_ranks) {
		/* the ranks the agents gave are hidden from the SSH read */
		struct job rest = *j;
		int by_ssh[JOB_RANKS_MAX] = { 0 };
		for (int q = 0; q < j->n_ranks; q++)
			if (given[q])
				rest.ranks[q].pid = 0;
		if (job_rank_ps(r->c, &rest, now, by_ssh, err, sizeof(err)) > 0)
			log_warnx("job %" PRId64 ": %s", j->id, err);
		for (int q = 0; q < j->n_ranks; q++) {
			if (given[q])
				continue;
			j->ranks[q] = rest.ranks[q];
			runnable[q] = by_ssh[q];
			if (j->ranks[q].seen_at == now)
				atomic_fetch_add(&r->c->ctr.job_rank_reads_ssh, 1);
		}
	}
	for (int q = 0; q < j->n_ranks; q++) {
		const struct job_rank *k = &j->ranks[q];
		if ((!given[q] && k->seen_at != now) || k->alive != 1) {
			w->busy[q] = NAN;
			w->runs[q] = 0;
			continue;
		}
		if (!isnan(w->seen[q]) && k->seen_at <= w->seen[q])
			continue;   /* the same facts as at the last check */
		w->runs[q] = runnable[q] ? w->runs[q] + 1 : 0;
		if (!isnan(w->seen[q]))
			w->busy[q] = (k->cpu_seconds - w->cpu[q]) / (k->seen_at - w->seen[q]);
		w->cpu[q] = k->cpu_seconds;
		w->seen[q] = k->seen_at;
	}
}

/* The first rank gone (alive 0), -1 none; *live the ranks known alive. */
static int
first_gone(const struct job *j, int *live)
{
	int gone = -1;

	*live = 0;
	for (int q = 0; q < j->n_ranks; q++) {
		if (j->ranks[q].alive == 0 && gone == -1)
			gone = q;
		*live += j->ranks[q].alive == 1;
	}
	return gone;
}

/*
 * Does rank q burn a CPU: >= BUSY_CORES of one between the last two reads,
 * or runnable at each of them (on a CPU or waiting for one: a spinning rank
 * on a Mac that other work keeps busy gets less than a core, MLX issue
 * 4278's survivors show state R).
 */
static int
burns(const struct watch *w, int q)
{
	return (!isnan(w->busy[q]) && w->busy[q] >= BUSY_CORES) || w->runs[q] >= 2;
}

/* The rank that burns a CPU (the busiest of them), -1 none. */
static int
busiest(const struct job *j, const struct watch *w)
{
	int b = -1;

	for (int q = 0; q < j->n_ranks; q++)
		if (burns(w, q) && (b == -1 || isnan(w->busy[b]) ||
		    (!isnan(w->busy[q]) && w->busy[q] > w->busy[b])))
			b = q;
	return b;
}

/*
 * A rank gone, with its last line.  While others live, a running job is
 * hung (issue 20): a JACCL survivor whose peer died spins in its
 * collectives forever (MLX issue 4278), so the job serves nothing though
 * ranks are alive; said once (a hung job stays hung until the policy acts).
 * Every rank gone, or a start that lost one, is failed.
 */
static void
rank_gone(struct job_runner *r, struct job *j, int q, int live, const char *perr)
{
	char last[160], why[WHY_MAX];

	if (live > 0 && j->state == JOB_HUNG) {   /* said already */
		job_store_put(r->c, j, ctrl_now(), NULL, NULL, NULL);
		return;
	}
	job_last_line(r, j, q, last, sizeof(last));
	if (live == 0)
		snprintf(why, sizeof(why), "every rank exited (rank %d on %s%s%s)", q,
		    j->ranks[q].node, last[0] ? ": " : "", last);
	else
		snprintf(why, sizeof(why), "rank %d on %s exited%s%s while %d other%s live%s; "
		    "the probe: %s", q, j->ranks[q].node, last[0] ? ": " : "", last, live,
		    live == 1 ? "" : "s", live == 1 ? "s" : "", perr);
	if (live > 0 && j->state == JOB_RUNNING)
		job_set_state(r, j, JOB_HUNG, j->ranks[q].node, "hung", why);
	else
		job_fail(r, j, j->ranks[q].node, why);
}

/* A running job whose probe fails: hung, or not yet. */
static void
maybe_hung(struct job_runner *r, struct job *j, struct watch *w, double now, const char *perr)
{
	double failing = now - w->fail_since, after = r->c->job_hang_after;
	int b = busiest(j, w);
	char why[WHY_MAX];

	if (failing >= after && b != -1) {
		char runs[64] = "";
		if (w->runs[b] >= 2)
			snprintf(runs, sizeof(runs), ", runnable at the last %d looks", w->runs[b]);
		snprintf(why, sizeof(why), "rank %d burned %.2f core%s while the probe got no "
		    "answer for %.0f s (%s)", b, isnan(w->busy[b]) ? 0.0 : w->busy[b], runs,
		    failing, perr);
		job_set_state(r, j, JOB_HUNG, j->ranks[b].node, "hung", why);
	} else if (failing >= after * JOB_HANG_IDLE_FACTOR) {
		snprintf(why, sizeof(why), "the probe got no answer for %.0f s, no rank busy (%s)",
		    failing, perr);
		job_set_state(r, j, JOB_HUNG, "", "hung", why);
	} else
		job_store_put(r->c, j, now, NULL, NULL, NULL);
}

/* One check of a starting, running or hung job. */
void
job_check(struct job_runner *r, struct job *j, struct watch *w)
{
	char perr[256], why[WHY_MAX];
	double now = ctrl_now(), sent;
	int live, gone, ok;

	w->next_check = now + r->c->job_check_interval;
	read_ranks(r, j, w, now);
	atomic_fetch_add(&r->c->ctr.job_probes, 1);
	sent = ctrl_now();
	ok = job_probe(j->ranks[0].host, j->port, r->c->job_probe_timeout, perr,
	    sizeof(perr)) == 0;
	now = ctrl_now();
	gone = first_gone(j, &live);
	if (ok) {
		w->fail_since = NAN;
		j->probe_ok_at = now;
		if (j->state != JOB_RUNNING) {
			snprintf(why, sizeof(why), "rank 0 answered %.0f s after the start",
			    now - j->started_at);
			job_set_state(r, j, JOB_RUNNING, "", "running", j->state == JOB_STARTING ? why :
			    "the probe answers again");
		} else
			job_store_put(r->c, j, now, NULL, NULL, NULL);
		return;
	}
	atomic_fetch_add(&r->c->ctr.job_probe_failures, 1);
	if (isnan(w->fail_since))
		w->fail_since = sent;     /* unanswered since it was sent */
	if (gone != -1) {
		rank_gone(r, j, gone, live, perr);
		return;
	}
	if (j->state == JOB_STARTING && now - j->started_at > r->c->job_start_timeout) {
		snprintf(why, sizeof(why), "rank 0 gave no answer within %.0f s of the start (%s)",
		    r->c->job_start_timeout, perr);
		job_fail(r, j, "", why);
	} else if (j->state == JOB_RUNNING)
		maybe_hung(r, j, w, now, perr);
	else
		job_store_put(r->c, j, now, NULL, NULL, NULL);
}
