/*
 * Jobs held for an OS update: after a rollout's drain has made their
 * placements degraded, the job runner stops each job of them (state
 * waiting, every rank stopped and checked gone: proto/job_api.h); the
 * update must not go on before.  job_hold_wait waits for it, bounded, and
 * says what was stopped; job_hold_release has the runner start the jobs
 * again as soon as their placements are active again.
 *
 * The decisions (is a job clear of the update, how long to wait, what to
 * say) are pure functions over struct job; the wait reads the jobs from the
 * inventory (store_with) and sleeps between two reads.
 */
#ifndef TBMESH_JOB_HOLD_H
#define TBMESH_JOB_HOLD_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"

struct ctrl;

#define JOB_HOLD_SLACK 30        /* seconds the wait allows besides the ranks' stops */
#define JOB_HOLD_PER_RANK 15     /* seconds per rank to stop: JOB_STOP_GRACE, the
                                    SIGKILL, the check and the SSH session */
#define JOB_HOLD_POLL_MS 250     /* between two reads of the jobs (the runner's loop) */

/*
 * Is j clear of an update of its nodes: waiting, stopped or failed, and
 * every rank seen gone (alive 0), or never started (alive not known, no
 * pid, no start sent).  1; or 0 with why it is not in why ("job 4 is
 * running", "job 4 is failed and its rank 1 (pid 4242 on mac2) is alive",
 * "... was not seen gone": the runner could not check it).
 */
int job_hold_clear(const struct job *j, char *why, size_t whylen);
/* Is j a job of one of the n placements ids. */
int job_hold_held(const struct job *j, const int64_t *ids, int n);
/*
 * Seconds to wait for the n jobs js to be clear: JOB_HOLD_SLACK plus
 * JOB_HOLD_PER_RANK for each rank of a job not clear yet (the runner stops
 * one rank after another, each of them maybe only at SIGKILL).
 */
double job_hold_timeout(const struct job *js, int n);
/*
 * What the hold says of j, clear now, that was not at its start, as the
 * event's what: "job 4 stopped for the update" (waiting), "job 4 stopped"
 * (the operator's stop came first), "job 4 failed".
 */
void job_hold_said(const struct job *j, char *what, size_t whatlen);

/* What a wait is for. */
struct job_hold {
	const int64_t *placements;   /* the placements whose jobs must be clear */
	int n_placements;
	const char *actor;           /* of the events: "rollout:7" */
	const char *node;            /* the events' node ("": none) */
	double timeout;              /* seconds; <= 0: job_hold_timeout of the jobs */
	/* Asked between two reads (NULL: never): 1 stops the wait (the update
	 * no longer needs it: its rollout was aborted). */
	int (*cancelled)(struct ctrl *c, void *arg);
	void *arg;
};

/*
 * Wake the job runner, then read the jobs of h's placements until every
 * one is clear, at most h's timeout.  The store's lock must not be held.
 * 0: clear; each job that was not clear at the start has the event
 * job_hold_said (by h->actor, on h->node, with the job's reason), and
 * what lists them ("job 4 stopped for the update (2 ranks gone)"; ""
 * none).  1: cancelled.  -1: not clear in time, or the inventory could
 * not be read, why in err.
 */
int job_hold_wait(struct ctrl *c, const struct job_hold *h, char *what, size_t whatlen,
    char *err, size_t errlen);

/*
 * Placements came back: have the runner look at their jobs now (a waiting
 * job starts again as soon as its placement is active), without waiting
 * for its next loop.  It logs and records the starts itself.  May be
 * called with the store's lock held: the runner reads the placements once
 * the lock is let go, so it sees them as committed.
 */
void job_hold_release(struct ctrl *c);

#endif
