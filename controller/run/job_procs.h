/*
 * A job's ranks as the nodes' agents see them: each agent lists the
 * processes of the pid files the start line left on its node (the
 * report's jobs section, proto/report.h), so that watching a job costs no
 * SSH command while the agents report.  job_run's loop takes these facts
 * first and reads over SSH (job_rank_ps) only the ranks left without.
 *
 * A rank takes the agent's facts when its node's latest report has a jobs
 * section that
 *   - lists the job, the rank and the pid stored for it (and, when the
 *     report knows it, the job's generation): a pid file of an older
 *     start, or another job's, is never taken for this one;
 *   - was read after the rank was started (its started_at), so that a
 *     report older than the process cannot call it gone;
 *   - is fresh: read at most job_procs_bound() seconds before now (or
 *     after it, by a clock ahead by as much).  The bound is twice the
 *     controller's --job-check-interval, and never under
 *     JOB_PROCS_FRESH_MIN (twice an agent's default report interval of
 *     5 s): a check then never looks at facts much older than the one
 *     before it, and an agent on its default interval is always fresh.
 *     An agent that stops reporting is passed over within the bound.
 */
#ifndef TBMESH_JOB_PROCS_H
#define TBMESH_JOB_PROCS_H

#include "job_api.h"
#include "report.h"

struct ctrl;

#define JOB_PROCS_FRESH_MIN 10.0   /* seconds */

/* The oldest (and, with a clock ahead, the newest) a section may be, seconds. */
double job_procs_bound(double check_interval);

/*
 * Pure: the ranks of j on node that r's jobs section gives facts for, by
 * the rules above, at now with the bound.  For each: alive, cpu_seconds,
 * rss_bytes, seen_at (the section's time), seen_by "agent", runnable[q]
 * (stat R; may be NULL) and given[q] set to 1.  Returns how many.
 */
int job_procs_apply(const struct report *r, const char *node, struct job *j, double now,
    double bound, int *runnable, int *given);

/*
 * The same for every node of j, from each node's latest report in the
 * inventory (the store's lock taken here, once per node).  given[q] 1 for
 * each rank filled (JOB_RANKS_MAX of them, zeroed here).  Returns how many.
 */
int job_procs_read(struct ctrl *c, struct job *j, double now, int *runnable, int *given);

#endif
