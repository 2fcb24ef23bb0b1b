/*
 * Placements whose hostfile no longer matches the cluster: RDMA device
 * names and link-local addresses change when a Mac reboots or a cable
 * moves (MLX issue 3207), and a job started from the old hostfile fails.
 * After each wiring check of a cluster, every active placement there is
 * planned again on its own nodes with its own strategy and runtime; when
 * the hostfile differs it becomes "stale" with an event that says what
 * changed, and tbctl placement replan writes the new one.  A stale one
 * whose hostfile matches again is active again.  When the wiring check
 * follows an address change on one of its nodes (a link-local address
 * renumbered, or put back on DHCP: wmon_addr.c), the reason starts with
 * it.  Functions here are called with the store's lock held (from a
 * store_with/store_txn function).
 */
#include "placement_ctrl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory_placement.h"
#include "log.h"

void
placement_request_of(const struct plan *p, int same_nodes, struct plan_request *req)
{
	memset(req, 0, sizeof(*req));
	snprintf(req->model, sizeof(req->model), "%s", p->model);
	snprintf(req->cluster, sizeof(req->cluster), "%s", p->cluster);
	req->context = p->context;
	req->batch = p->batch;
	req->runtime = p->runtime;
	if (strstr(p->launch, "-m mlx_lm server") != NULL)
		snprintf(req->entry, sizeof(req->entry), "server");
	for (int i = 0; i < p->n_envs; i++)
		if (strcmp(p->envs[i], "MLX_METAL_FAST_SYNCH=1") == 0)
			req->fast_synch = 1;
	if (!same_nodes)
		return;
	req->strategy = p->strategy;
	req->n_nodes = p->n_ranks;
	for (int i = 0; i < p->n_ranks; i++)
		snprintf(req->nodes[i], sizeof(req->nodes[i]), "%s", p->ranks[i].node);
}

/* The cause on one of was's nodes (the last given), or NULL. */
static const struct placement_cause *
cause_of(const struct plan *was, const struct placement_cause *causes, int n_causes)
{
	for (int k = n_causes - 1; k >= 0; k--)
		for (int i = 0; i < was->n_ranks; i++)
			if (strcmp(causes[k].node, was->ranks[i].node) == 0)
				return &causes[k];
	return NULL;
}

/* Append at most max bytes of src to dst (size bytes, NUL-terminated). */
static void
cat(char *dst, size_t size, const char *src, size_t max)
{
	size_t used = strlen(dst), n = strlen(src);

	if (n > max)
		n = max;
	if (used + n >= size)
		n = size - used - 1;
	memcpy(dst + used, src, n);
	dst[used + n] = '\0';
}

/*
 * Row becomes stale: the reason is what changed on its node (cause; NULL
 * when not known), what no longer holds (why), and the command that
 * writes the new hostfile, cut to fit API_REASON_MAX with the command
 * kept.  An event says it.
 */
static void
mark_stale(struct ctrl *c, const struct inv_placement *row, const struct plan *was,
    const struct placement_cause *cause, const char *why, double t)
{
	char reason[API_REASON_MAX + 1] = "", post[80], what[64];

	if (cause != NULL) {
		cat(reason, sizeof(reason), cause->node, sizeof(cause->node));
		cat(reason, sizeof(reason), "'s ", 3);
		cat(reason, sizeof(reason), cause->what, sizeof(cause->what));
		cat(reason, sizeof(reason), ": ", 2);
	}
	snprintf(post, sizeof(post), " (tbctl placement replan %lld --hostfile FILE)",
	    (long long)row->id);
	cat(reason, sizeof(reason), why, sizeof(reason) - 1 - strlen(reason) - strlen(post));
	cat(reason, sizeof(reason), post, sizeof(post));
	if (inv_placement_set_state(c->store.inv, row->id, "stale", reason) != 0)
		return;
	snprintf(what, sizeof(what), "placement %lld stale", (long long)row->id);
	ctrl_event(c, t, "controller", was->ranks[0].node, what, reason);
}

/* Is row (decoded into was) still what its cluster would be given? */
static void
check_one(struct ctrl *c, const struct inv_placement *row, struct plan *was, struct plan *now,
    double t, const struct placement_cause *cause)
{
	struct plan_request req;
	char err[1024], diff[400], why[512], what[64];
	int stale = strcmp(row->state, "stale") == 0;

	placement_request_of(was, 1, &req);
	if (placement_make(c, &req, row->id, t, now, err, sizeof(err)) != 0) {
		/* its nodes lost: placement_node_lost says; an address gone from a
		 * cable it uses (the ring backend's ips) is this check's */
		if (cause != NULL && !stale) {
			snprintf(why, sizeof(why), "it cannot be planned again on its nodes: %.400s",
			    err);
			mark_stale(c, row, was, cause, why, t);
		}
		return;
	}
	int differs = place_hostfile_diff(was, now, diff, sizeof(diff));
	if (differs == stale)
		return;
	if (differs) {
		snprintf(why, sizeof(why), "its hostfile no longer matches: %s", diff);
		mark_stale(c, row, was, cause, why, t);
	} else {
		if (inv_placement_set_state(c->store.inv, row->id, "active", "") != 0)
			return;
		snprintf(what, sizeof(what), "placement %lld active", (long long)row->id);
		ctrl_event(c, t, "controller", was->ranks[0].node, what,
		    "its hostfile matches the cluster again");
	}
}

void
placement_stale_check(struct ctrl *c, const char *cluster, double now,
    const struct placement_cause *causes, int n_causes)
{
	struct inv_placement *rows = NULL;
	struct plan *was = calloc(1, sizeof(*was)), *fresh = calloc(1, sizeof(*fresh));
	char err[256];
	int n = 0;

	if (was == NULL || fresh == NULL || inv_placement_list(c->store.inv, &rows, &n) != 0)
		goto out;
	for (int i = 0; i < n; i++) {
		if (strcmp(rows[i].state, "active") != 0 && strcmp(rows[i].state, "stale") != 0)
			continue;
		if (plan_json_decode(rows[i].json, strlen(rows[i].json), was, err,
		    sizeof(err)) == -1) {
			log_warnx("placement %lld does not decode: %s", (long long)rows[i].id, err);
			continue;
		}
		if (strcmp(was->cluster, cluster) == 0 && was->n_ranks > 1)
			check_one(c, &rows[i], was, fresh, now,
			    cause_of(was, causes, n_causes));
	}
out:
	inv_placements_free(rows, n);
	free(was);
	free(fresh);
}
