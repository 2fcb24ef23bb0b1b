/*
 * /healthz, /metrics (the controller's own, with a few series per node:
 * prom.h), /v1/events and /v1/clusters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_server.h"
#include "ctrl.h"
#include "prom.h"
#include "textbuf.h"
#include "version.h"
#include "wmon.h"

void
api_healthz(struct api_req *rq, struct api_resp *rs)
{
	char buf[128];
	(void)rq;

	snprintf(buf, sizeof(buf), "{\"status\":\"ok\",\"version\":\"%s\"}", TBMESH_VERSION);
	api_body(rs, 200, strdup(buf));
}

static void
counter(struct textbuf *t, const char *name, const char *help, uint_fast64_t v)
{
	textbuf_printf(t, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
	    (unsigned long long)v);
}

/* The per-node series (prom.h), from the inventory; NULL when it cannot be read. */
static char *
node_metrics(struct ctrl *c)
{
	struct api_node *nodes = NULL;
	int n = 0;

	pthread_mutex_lock(&c->inv_mu);
	int rc = inv_node_list(c->inv, &nodes, &n);
	pthread_mutex_unlock(&c->inv_mu);
	char *s = rc == 0 ? prom_node_metrics(nodes, n) : NULL;
	free(nodes);
	return s;
}

void
api_metrics(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl_counters *k = &rq->c->ctr;
	struct textbuf t = { 0 };
	int states[NODE_STATE_COUNT];
	uint64_t cum = 0;

	counter(&t, "tbmesh_controller_reports_ingested_total",
	    "Reports stored (acknowledged with 2xx).", atomic_load(&k->reports_ingested));
	counter(&t, "tbmesh_controller_reports_rejected_total",
	    "Reports and enrolments refused (4xx/5xx).", atomic_load(&k->reports_rejected));
	counter(&t, "tbmesh_controller_enrollments_total", "Nodes enrolled.",
	    atomic_load(&k->enrollments));
	counter(&t, "tbmesh_controller_commits_total",
	    "Inventory transactions that stored reports.", atomic_load(&k->batches));
	textbuf_printf(&t, "# HELP tbmesh_controller_request_duration_seconds API request latency.\n"
	    "# TYPE tbmesh_controller_request_duration_seconds histogram\n");
	for (int i = 0; i < CTRL_LAT_BUCKETS; i++) {
		cum += atomic_load(&k->lat_bucket[i]);
		textbuf_printf(&t, "tbmesh_controller_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
		    ctrl_lat_bounds[i], (unsigned long long)cum);
	}
	unsigned long long count = atomic_load(&k->lat_count);
	textbuf_printf(&t, "tbmesh_controller_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "tbmesh_controller_request_duration_seconds_sum %.6f\n"
	    "tbmesh_controller_request_duration_seconds_count %llu\n", count,
	    (double)atomic_load(&k->lat_sum_us) / 1e6, count);
	registry_count_states(rq->c->reg, states);
	textbuf_printf(&t, "# HELP tbmesh_controller_nodes Nodes by lifecycle state.\n"
	    "# TYPE tbmesh_controller_nodes gauge\n");
	for (int s = 0; s < NODE_STATE_COUNT; s++)
		textbuf_printf(&t, "tbmesh_controller_nodes{state=\"%s\"} %d\n",
		    api_node_state_str((enum node_state)s), states[s]);
	char *per_node = node_metrics(rq->c);
	if (per_node != NULL)
		textbuf_printf(&t, "%s", per_node);
	free(per_node);
	char *wiring = rq->c->wmon ? wmon_metrics(rq->c->wmon) : NULL;
	if (wiring != NULL)
		textbuf_printf(&t, "%s", wiring);
	free(wiring);
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";
	api_body(rs, 200, textbuf_take(&t));
}

void
api_events_list(struct api_req *rq, struct api_resp *rs)
{
	const char *node = rq->query(rq->qctx, "node");
	double since = NAN, limit = 1000;
	struct api_event *ev = NULL;
	int n = 0;

	if (api_query_number(rq, rs, "since", 0, 1e11, &since) == -1 ||
	    api_query_number(rq, rs, "limit", 1, 100000, &limit) == -1)
		return;
	if (node != NULL && node[0] && !api_name_valid(node)) {
		api_error(rs, 400, "node: \"%s\" is not a node name", node);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_event_list(rq->c->inv, node ? node : "", since, (int)limit, &ev, &n);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, api_json_events(ev, n));
	free(ev);
}

void
api_clusters_list(struct api_req *rq, struct api_resp *rs)
{
	struct api_cluster *cl = NULL;
	int n = 0;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_cluster_list(rq->c->inv, &cl, &n);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, api_json_clusters(cl, n));
	free(cl);
}

void
api_clusters_create(struct api_req *rq, struct api_resp *rs)
{
	api_name name;
	struct api_cluster cl;
	char err[300];

	if (api_json_decode_name(rq->body, rq->body_len, name, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_cluster_add(rq->c->inv, name, rq->now);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", "cluster created", name);
	if (rc == 0)
		rc = inv_cluster_get(rq->c->inv, name, &cl);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_CONFLICT)
		api_error(rs, 409, "cluster %s already exists", name);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 201, api_json_cluster(&cl));
}

/*
 * Put node into the cluster rq->param, with an event that says where it
 * came from; none when it is there already.  0 or an INV_ code.
 */
static int
add_node(struct api_req *rq, const char *node)
{
	struct api_node before;
	char why[2 * API_NAME_MAX + 16];
	int rc;

	if ((rc = inv_node_get(rq->c->inv, node, &before)) != 0)
		return rc;
	if (strcmp(before.cluster, rq->param) == 0)
		return 0;
	if ((rc = inv_cluster_set_node(rq->c->inv, rq->param, node)) != 0)
		return rc;
	if (before.cluster[0] == '\0') {
		ctrl_event(rq->c, rq->now, rq->actor, node, "joined cluster", rq->param);
	} else {
		snprintf(why, sizeof(why), "from %s to %s", before.cluster, rq->param);
		ctrl_event(rq->c, rq->now, rq->actor, node, "moved cluster", why);
	}
	return 0;
}

void
api_clusters_add_nodes(struct api_req *rq, struct api_resp *rs)
{
	api_name names[64];
	struct api_cluster cl;
	char err[300];
	int n = 0, rc, i = 0;

	if (api_json_decode_names(rq->body, rq->body_len, names, 64, &n, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = inv_begin(rq->c->inv);
	for (i = 0; rc == 0 && i < n; i++)
		rc = add_node(rq, names[i]);
	if (rc == 0)
		rc = inv_commit(rq->c->inv);
	else
		inv_rollback(rq->c->inv);
	if (rc == 0)
		rc = inv_cluster_get(rq->c->inv, rq->param, &cl);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == 0)
		wmon_touch(rq->c->wmon);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s or node %s: no such thing", rq->param,
		    i > 0 ? names[i - 1] : "");
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, api_json_cluster(&cl));
}
