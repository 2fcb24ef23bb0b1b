/*
 * The job runner's own (job_loop.c, the thread and the job's states;
 * job_watch.c, the check of a running job): what it keeps in memory about
 * each job between two checks, and the calls the check makes back into
 * the runner.  Only the runner's thread uses them.
 */
#ifndef TBMESH_JOB_LOOP_INT_H
#define TBMESH_JOB_LOOP_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "job_api.h"

struct ctrl;

#define WATCH_MAX 128
#define LOOP_MS 250
#define BUSY_CORES 0.8
#define WHY_MAX 1024            /* a reason being made; stored cut to API_REASON_MAX */

/* What the runner keeps in memory about a job between two checks. */
struct watch {
	int64_t id;
	int generation;
	int used;
	double next_check;
	double fail_since;                  /* NAN: the last probe answered */
	double cpu[JOB_RANKS_MAX];          /* the last read of each rank; NAN none */
	double seen[JOB_RANKS_MAX];
	double busy[JOB_RANKS_MAX];         /* cores between the last two reads; NAN */
	int runs[JOB_RANKS_MAX];            /* reads in a row that found it runnable */
};

struct job_runner {
	struct ctrl *c;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, wake;
	struct watch w[WATCH_MAX];
};

/* j's state becomes st for reason, stored with the event "job ID word" (NULL: none). */
void job_set_state(struct job_runner *r, struct job *j, enum job_state st, const char *node,
    const char *word, const char *reason);
/*
 * j failed for reason: its ranks stopped, state failed; or, when its
 * placement can no longer run, it leaves it (waits, or moves).
 */
void job_fail(struct job_runner *r, struct job *j, const char *node, const char *reason);
/* The last line rank q wrote (its log on the node), or "". */
void job_last_line(struct job_runner *r, const struct job *j, int q, char *buf, size_t size);

/*
 * job_watch.c: one check of a starting, running or hung job: each rank
 * read (its agent's report, else ps over SSH), rank 0 probed, the job
 * moved to running, hung or failed as they say; w's next check set.
 */
void job_check(struct job_runner *r, struct job *j, struct watch *w);

#endif
