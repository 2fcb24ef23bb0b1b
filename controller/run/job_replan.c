/*
 * A job whose placement cannot run: wait, or move (see job_replan.h).
 */
#include "job_replan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "inventory_jobs.h"
#include "inventory_placement.h"
#include "log.h"
#include "placement_ctrl.h"

int64_t
job_rollout_of(const char *reason)
{
	/* the words of placement_rollout.c's stop_all (a rolling drain, a
	 * lockstep stop); "not restored after rollout N" is a node's own
	 * trouble, which the rollout's end found */
	static const char *const lead[] = { "drained by rollout ", "stopped by rollout " };
	char *end;

	for (size_t i = 0; i < sizeof(lead) / sizeof(lead[0]); i++) {
		size_t n = strlen(lead[i]);
		if (strncmp(reason, lead[i], n) != 0 || reason[n] < '1' || reason[n] > '9')
			continue;
		long long id = strtoll(reason + n, &end, 10);
		if (id > 0 && (*end == ':' || *end == ' ' || *end == '\0'))
			return id;
	}
	return 0;
}

enum job_route
job_route_of(int found, const char *state, const char *reason, enum job_replan replan)
{
	if (found && strcmp(state, "active") == 0)
		return JOB_ROUTE_RUN;
	if (!found || job_rollout_of(reason) != 0)
		return JOB_ROUTE_WAIT;
	return replan == JOB_REPLAN_AUTO ? JOB_ROUTE_REPLAN : JOB_ROUTE_WAIT;
}

void
job_wait_why(int64_t id, int found, const char *state, const char *reason, char *buf,
    size_t size)
{
	if (!found)
		snprintf(buf, size, "placement %" PRId64 " was removed", id);
	else
		snprintf(buf, size, "placement %" PRId64 " is %s%s%s", id, state,
		    reason[0] ? ": " : "", reason);
}

void
job_replan_request(const struct plan *old, struct plan_request *req)
{
	placement_request_of(old, 0, req);
	req->strategy = old->strategy;
}

int
job_plan_runnable(const struct plan *p, char *err, size_t errlen)
{
	if (p->runtime == PLAN_RT_EXO) {
		snprintf(err, errlen, "the plan is for exo, which starts its models itself");
		return -1;
	}
	if (p->n_ranks < 1 || p->n_ranks > JOB_RANKS_MAX) {
		snprintf(err, errlen, "the plan has %d ranks: a job runs 1 to %d", p->n_ranks,
		    JOB_RANKS_MAX);
		return -1;
	}
	if (p->n_ranks > 1 && strncmp(p->backend, "jaccl", 5) == 0 && p->coordinator[0] == '\0') {
		snprintf(err, errlen, "the plan has no coordinator for %s: %s", p->backend,
		    p->coordinator_from[0] ? p->coordinator_from :
		    "rank 0 has no address the others reach");
		return -1;
	}
	return 0;
}

struct move {
	struct ctrl *c;
	struct job *j;
	char why[API_REASON_MAX + 1];    /* what is wrong with the old placement */
	double now;
	struct plan *old, *np;
	int64_t old_id;
	char err[1024];
};

/* The old placement, decoded into m->old: 0, 1 active again, -1 (m->err). */
static int
old_of(struct inv *inv, struct move *m)
{
	struct inv_placement row;
	int rc = inv_placement_get(inv, m->old_id, &row);

	if (rc != 0) {
		snprintf(m->err, sizeof(m->err), rc == INV_NOTFOUND ? "placement %" PRId64 " was "
		    "removed" : "placement %" PRId64 " could not be read", m->old_id);
		return -1;
	}
	if (row.reason[0])
		snprintf(m->why, sizeof(m->why), "%s", row.reason);
	else
		snprintf(m->why, sizeof(m->why), "it is %s", row.state);
	if (strcmp(row.state, "active") == 0)
		rc = 1;
	else if (plan_json_decode(row.json, strlen(row.json), m->old, m->err,
	    sizeof(m->err)) == -1) {
		log_warnx("placement %" PRId64 "'s plan does not decode: %s", m->old_id, m->err);
		snprintf(m->err, sizeof(m->err), "placement %" PRId64 "'s plan could not be read",
		    m->old_id);
		rc = -1;
	}
	free(row.json);
	return rc;
}

/* Store m->np as an active placement, with its event (as tbctl place --apply). */
static int
apply_new(struct inv *inv, struct move *m, const char *actor)
{
	struct plan *p = m->np;
	char what[64], reason[PLAN_MODEL_MAX + 160];

	if (placement_store_active(inv, p, m->now) != 0)
		return -1;
	snprintf(what, sizeof(what), "placement %" PRId64 " applied", p->id);
	snprintf(reason, sizeof(reason), "%s, %s over %d node%s, for job %" PRId64 " (in place "
	    "of placement %" PRId64 ")", p->model, plan_strategy_str(p->strategy), p->n_ranks,
	    p->n_ranks == 1 ? "" : "s", m->j->id, m->old_id);
	ctrl_event(m->c, m->now, actor, "", what, reason);
	return 0;
}

/* store_fn: the move, in one transaction.  0, 1 (active again), -1 (m->err). */
static int
move_tx(struct inv *inv, void *arg)
{
	struct move *m = arg;
	struct plan_request req;
	char actor[32], what[64], why[API_REASON_MAX + 128];
	int rc = old_of(inv, m);

	if (rc != 0)
		return rc;
	job_replan_request(m->old, &req);
	if (placement_make(m->c, &req, m->old_id, m->now, m->np, m->err, sizeof(m->err)) != 0 ||
	    job_plan_runnable(m->np, m->err, sizeof(m->err)) == -1)
		return -1;
	snprintf(actor, sizeof(actor), "job:%" PRId64, m->j->id);
	if (apply_new(inv, m, actor) != 0 || inv_placement_remove(inv, m->old_id) != 0)
		goto store;
	snprintf(what, sizeof(what), "placement %" PRId64 " removed", m->old_id);
	snprintf(why, sizeof(why), "job %" PRId64 " moved to placement %" PRId64 ": %s",
	    m->j->id, m->np->id, m->why);
	ctrl_event(m->c, m->now, actor, "", what, why);
	m->j->placement = m->np->id;
	m->j->replans++;
	snprintf(m->j->backend, sizeof(m->j->backend), "%s", m->np->n_ranks > 1 ?
	    m->np->backend : "");
	m->j->updated_at = m->now;
	if (inv_job_put(inv, m->j) != 0)
		goto store;
	snprintf(what, sizeof(what), "job %" PRId64 " replanned", m->j->id);
	snprintf(why, sizeof(why), "placement %" PRId64 " -> %" PRId64 ": %s", m->old_id,
	    m->np->id, m->why);
	ctrl_event(m->c, m->now, actor, "", what, why);
	return 0;
store:
	snprintf(m->err, sizeof(m->err), "the inventory could not store the new placement");
	return -1;
}

int
job_replan_apply(struct ctrl *c, struct job *j, double now, struct plan *np, char *err,
    size_t errlen)
{
	struct job *copy = malloc(sizeof(*copy));
	struct move m = { .c = c, .now = now, .np = np, .old_id = j->placement };
	int rc = -1;

	m.old = malloc(sizeof(*m.old));
	if (copy == NULL || m.old == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	*copy = *j;               /* j stays as it was when the move is rolled back */
	m.j = copy;
	rc = store_txn(&c->store, move_tx, &m);
	if (rc == 0)
		*j = *copy;
	else if (rc == -1)
		snprintf(err, errlen, "%s", m.err[0] ? m.err :
		    "the inventory could not store the new placement");
out:
	free(m.old);
	free(copy);
	return rc == 0 || rc == 1 ? rc : -1;
}
