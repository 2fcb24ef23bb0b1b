/*
 * Placements during an OS update campaign (placement_ctrl.h).
 *
 * A placement cannot be live-migrated: MLX ranks hold their layers in GPU
 * memory and the job has to be started again elsewhere.  So "drain" stops
 * the placement where it is: its state becomes degraded with the campaign's
 * reason, and the campaign's id is stored beside it (placements.rollout_id)
 * so that its end, after a controller restart too, knows what to restore.
 * The memory it holds stays reserved on its nodes: nothing else is placed
 * into it while the node is updated, and the placement comes back on the
 * same nodes.  `tbctl placement remove` releases it; `tbctl placement
 * replan` proposes another.
 *
 * The jobs of a drained placement (tbctl run) are stopped by the job
 * runner, which sees the placement no longer active: the drain waits until
 * every one of them is waiting with no rank left (job_hold.h), so that the
 * update never restarts a node under a running rank; the restore has the
 * runner start them again at once.
 */
#include "placement_ctrl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "inventory_placement.h"
#include "job_hold.h"
#include "log.h"

/* Append ", N" (or "N" first) to buf. */
static void
list_add(char *buf, size_t size, int64_t id)
{
	size_t l = strlen(buf);

	if (l + 24 < size)
		snprintf(buf + l, size - l, "%s%" PRId64, l ? ", " : "", id);
}

/* Stop the placements camp drains at node, in inv's transaction; their ids into ids. */
static int
stop_all(struct ctrl *c, struct inv *inv, const struct ro_campaign *camp, const char *node,
    double now, char *ids, size_t idsize)
{
	char actor[64], reason[API_REASON_MAX + 1], what[64];
	int lockstep = camp->mode == RO_LOCKSTEP;
	int64_t *stop = NULL;
	int n = 0, rc;

	snprintf(actor, sizeof(actor), "rollout:%" PRId64, camp->id);
	if (lockstep)
		snprintf(reason, sizeof(reason), "stopped by rollout %" PRId64 " (lockstep): the "
		    "nodes of %s update to %s", camp->id, camp->cluster, camp->target);
	else
		snprintf(reason, sizeof(reason), "drained by rollout %" PRId64 ": %s updates to %s",
		    camp->id, node, camp->target);
	rc = inv_placements_to_stop(inv, camp->cluster, lockstep ? NULL : node, camp->id,
	    &stop, &n);
	for (int k = 0; rc == 0 && k < n; k++) {
		rc = inv_placement_stop(inv, stop[k], camp->id, reason);
		snprintf(what, sizeof(what), "placement %" PRId64 " %s", stop[k],
		    lockstep ? "stopped" : "drained");
		if (rc == 0)
			ctrl_event(c, now, actor, lockstep ? "" : node, what, reason);
		list_add(ids, idsize, stop[k]);
	}
	free(stop);
	return rc;
}

/* An abort (which restores what was stopped) may come while a drain waits
 * for the store's lock: then stop nothing more. */
static int
aborted(struct inv *inv, int64_t id)
{
	struct ro_campaign *cur = malloc(sizeof(*cur));
	int rc = cur != NULL && inv_rollout_get(inv, id, cur) == 0 && cur->state == RO_ABORTED;

	free(cur);
	return rc;
}

struct drain {
	struct ctrl *c;
	const struct ro_campaign *camp;
	const char *node;
	double now;
	char ids[200];            /* the placements it stopped */
	char before[200];         /* those this campaign had stopped already */
	int64_t *held;            /* every placement the campaign has stopped now (malloc'd) */
	int n_held;
};

/* store_fn: the drain's transaction; 1 (nothing done) when camp was aborted. */
static int
drain_tx(struct inv *inv, void *arg)
{
	struct drain *d = arg;
	int64_t *had = NULL;
	int n = 0, rc;

	if (aborted(inv, d->camp->id))
		return 1;
	rc = inv_placements_stopped_by(inv, d->camp->id, &had, &n);
	for (int k = 0; rc == 0 && k < n; k++)
		list_add(d->before, sizeof(d->before), had[k]);
	free(had);
	if (rc == 0)
		rc = stop_all(d->c, inv, d->camp, d->node, d->now, d->ids, sizeof(d->ids));
	if (rc == 0)
		rc = inv_placements_stopped_by(inv, d->camp->id, &d->held, &d->n_held);
	return rc;
}

/* store_fn: has campaign *arg been aborted. */
static int
aborted_fn(struct inv *inv, void *arg)
{
	return aborted(inv, *(const int64_t *)arg);
}

/* job_hold's cancel: the campaign was aborted (its abort restored the placements). */
static int
hold_cancelled(struct ctrl *c, void *arg)
{
	return store_with(&c->store, aborted_fn, arg) == 1;
}

/*
 * Wait until the jobs of the placements camp has stopped are stopped
 * (job_hold_wait); what they were into jobs.  0, 1 (aborted meanwhile), or
 * -1 with why in err.
 */
static int
hold_jobs(struct ctrl *c, const struct drain *d, char *jobs, size_t jobslen, char *err,
    size_t errlen)
{
	char actor[64];
	struct job_hold h = { .placements = d->held, .n_placements = d->n_held, .actor = actor,
		.node = d->camp->mode == RO_LOCKSTEP ? "" : d->node, .cancelled = hold_cancelled,
		.arg = (void *)&d->camp->id };

	snprintf(actor, sizeof(actor), "rollout:%" PRId64, d->camp->id);
	return job_hold_wait(c, &h, jobs, jobslen, err, errlen);
}

int
placement_rollout_drain(struct ctrl *c, const struct ro_campaign *camp, const char *node,
    char *what, size_t whatlen, char *err, size_t errlen)
{
	struct drain d = { .c = c, .camp = camp, .node = node, .now = ctrl_now() };
	char jobs[200], why[300];
	int rc = store_txn(&c->store, drain_tx, &d);

	if (rc == 1) {
		free(d.held);
		snprintf(what, whatlen, "rollout %" PRId64 " was aborted: nothing drained", camp->id);
		return 0;
	}
	if (rc != 0) {
		free(d.held);
		snprintf(err, errlen, "the placements of %s could not be marked in the inventory",
		    camp->cluster);
		return -1;
	}
	rc = hold_jobs(c, &d, jobs, sizeof(jobs), why, sizeof(why));
	free(d.held);
	if (rc == -1) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (rc == 1) {
		snprintf(what, whatlen, "rollout %" PRId64 " was aborted while its jobs stopped",
		    camp->id);
		return 0;
	}
	if (d.ids[0])
		snprintf(what, whatlen, "%s placement %s of %s (memory kept reserved until "
		    "the rollout restores it)", camp->mode == RO_LOCKSTEP ? "stopped" : "drained",
		    d.ids, camp->mode == RO_LOCKSTEP ? camp->cluster : node);
	else if (d.before[0])
		snprintf(what, whatlen, "nothing more to drain on %s: placement %s already stopped "
		    "by this rollout", node, d.before);
	else
		snprintf(what, whatlen, "%s has no placements to drain", camp->mode == RO_LOCKSTEP ?
		    camp->cluster : node);
	if (jobs[0]) {
		size_t l = strlen(what);
		snprintf(what + l, whatlen - l, "; %s", jobs);
	}
	return 0;
}

/* "" when every node of placement id is ready, else the first that is not. */
static int
not_ready(struct ctrl *c, int64_t id, char *why, size_t whylen)
{
	api_name *names = NULL;
	struct api_node an;
	int n = 0;

	why[0] = '\0';
	if (inv_placement_nodes(c->store.inv, id, &names, &n) != 0)
		return -1;
	for (int i = 0; i < n && !why[0]; i++) {
		if (inv_node_get(c->store.inv, names[i], &an) != 0)
			snprintf(why, whylen, "%s is not in the inventory", names[i]);
		else if (an.state != NODE_READY)
			snprintf(why, whylen, "%s is %s", names[i], api_node_state_str(an.state));
	}
	free(names);
	return 0;
}

int
placement_rollout_restore(struct ctrl *c, const struct ro_campaign *camp, double now)
{
	char actor[64], reason[API_REASON_MAX + 1], what[64], why[200];
	int64_t *ids = NULL;
	int n = 0, rc;

	snprintf(actor, sizeof(actor), "rollout:%" PRId64, camp->id);
	rc = inv_placements_stopped_by(c->store.inv, camp->id, &ids, &n);
	for (int k = 0; rc == 0 && k < n; k++) {
		if ((rc = not_ready(c, ids[k], why, sizeof(why))) != 0)
			break;
		if (why[0]) {
			snprintf(reason, sizeof(reason), "not restored after rollout %" PRId64
			    " (%s): %s", camp->id, ro_state_str(camp->state), why);
			rc = inv_placement_release(c->store.inv, ids[k], "degraded", reason);
			snprintf(what, sizeof(what), "placement %" PRId64 " not restored", ids[k]);
		} else {
			snprintf(reason, sizeof(reason), "rollout %" PRId64 " %s: its nodes are ready "
			    "on %s", camp->id, ro_state_str(camp->state), camp->target);
			rc = inv_placement_release(c->store.inv, ids[k], "active", "");
			snprintf(what, sizeof(what), "placement %" PRId64 " restored", ids[k]);
		}
		if (rc == 0)
			ctrl_event(c, now, actor, "", what, reason);
	}
	free(ids);
	if (rc == 0 && n > 0)
		job_hold_release(c);   /* their jobs start now, not at the runner's next loop */
	return rc == 0 ? 0 : -1;
}
