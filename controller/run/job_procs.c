/*
 * A job's ranks from the agents' reports (see job_procs.h).
 */
#include "job_procs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "ps_line.h"

double
job_procs_bound(double check_interval)
{
	double b = 2 * check_interval;

	return b > JOB_PROCS_FRESH_MIN ? b : JOB_PROCS_FRESH_MIN;
}

/* r's process of j's rank k, by job, rank, pid and generation; NULL none. */
static const struct report_job_proc *
proc_of(const struct report_jobs *s, const struct job *j, const struct job_rank *k)
{
	for (int i = 0; i < s->n_processes && i < REPORT_JOB_PROCS_MAX; i++) {
		const struct report_job_proc *p = &s->processes[i];
		if (p->job == j->id && p->rank == k->rank && p->pid == k->pid &&
		    (p->generation == REPORT_NULL_I64 || p->generation == j->generation))
			return p;
	}
	return NULL;
}

int
job_procs_apply(const struct report *r, const char *node, struct job *j, double now,
    double bound, int *runnable, int *given)
{
	double at;
	int n = 0;

	if (r == NULL || r->jobs.n_processes < 0)
		return 0;
	at = report_section_time(r, r->jobs.collected_at);
	if (isnan(at) || fabs(now - at) > bound)
		return 0;
	for (int q = 0; q < j->n_ranks; q++) {
		struct job_rank *k = &j->ranks[q];
		const struct report_job_proc *p;

		if (strcmp(k->node, node) != 0 || k->pid <= 0 ||
		    (!isnan(k->started_at) && at < k->started_at) ||
		    (p = proc_of(&r->jobs, j, k)) == NULL)
			continue;
		k->alive = p->alive ? 1 : 0;
		k->cpu_seconds = p->alive ? p->cpu_seconds : NAN;
		k->rss_bytes = p->alive && p->rss_bytes != REPORT_NULL_I64 ? p->rss_bytes : -1;
		k->seen_at = at;
		snprintf(k->seen_by, sizeof(k->seen_by), "agent");
		if (runnable != NULL)
			runnable[q] = p->alive && ps_stat_runnable(p->stat);
		given[q] = 1;
		n++;
	}
	return n;
}

int
job_procs_read(struct ctrl *c, struct job *j, double now, int *runnable, int *given)
{
	double bound = job_procs_bound(c->job_check_interval);
	int n = 0;

	memset(given, 0, JOB_RANKS_MAX * sizeof(*given));
	for (int q = 0; q < j->n_ranks; q++) {
		int first = 1;
		for (int o = 0; o < q; o++)
			if (strcmp(j->ranks[o].node, j->ranks[q].node) == 0)
				first = 0;
		if (!first)
			continue;
		struct report *r = ctrl_latest_report(c, j->ranks[q].node);
		n += job_procs_apply(r, j->ranks[q].node, j, now, bound, runnable, given);
		free(r);
	}
	return n;
}
