/*
 * Placements whose hostfile no longer matches the cluster: RDMA device
 * names and link-local addresses change when a Mac reboots or a cable
 * moves (MLX issue 3207), and a job started from the old hostfile fails.
 * After each wiring check of a cluster, every active placement there is
 * planned again on its own nodes with its own strategy and runtime; when
 * the hostfile differs it becomes "stale" with an event that says what
 * changed, and tbctl placement replan writes the new one.  A stale one
 * whose hostfile matches again is active again.  Functions here are called
 * with the store's lock held (from a store_with/store_txn function).
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

/* Is row (decoded into was) still what its cluster would be given? */
static void
check_one(struct ctrl *c, const struct inv_placement *row, struct plan *was, struct plan *now,
    double t)
{
	struct plan_request req;
	char err[1024], why[512], what[64];
	int stale = strcmp(row->state, "stale") == 0;

	placement_request_of(was, 1, &req);
	if (placement_make(c, &req, row->id, t, now, err, sizeof(err)) != 0)
		return;          /* its nodes or links are lost: placement_node_lost says */
	int differs = place_hostfile_diff(was, now, why, sizeof(why));
	if (differs == stale)
		return;
	if (differs) {
		char reason[API_REASON_MAX + 1];
		snprintf(reason, sizeof(reason), "its hostfile no longer matches: %.150s "
		    "(tbctl placement replan %lld --hostfile FILE)", why, (long long)row->id);
		if (inv_placement_set_state(c->store.inv, row->id, "stale", reason) != 0)
			return;
		snprintf(what, sizeof(what), "placement %lld stale", (long long)row->id);
		ctrl_event(c, t, "controller", was->ranks[0].node, what, reason);
	} else {
		if (inv_placement_set_state(c->store.inv, row->id, "active", "") != 0)
			return;
		snprintf(what, sizeof(what), "placement %lld active", (long long)row->id);
		ctrl_event(c, t, "controller", was->ranks[0].node, what,
		    "its hostfile matches the cluster again");
	}
}

void
placement_stale_check(struct ctrl *c, const char *cluster, double now)
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
			check_one(c, &rows[i], was, fresh, now);
	}
out:
	inv_placements_free(rows, n);
	free(was);
	free(fresh);
}
