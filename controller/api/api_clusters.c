/*
 * /v1/clusters: the list, a new cluster, its members (POST
 * /v1/clusters/{name}/nodes) and its allow-list (POST
 * /v1/clusters/{name}/allow and /disallow: the serial numbers whose Macs a
 * bootstrap token enrols straight into the cluster, without waiting for
 * tbctl node accept).  A cluster's wiring is api_wiring.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_read.h"
#include "api_server.h"
#include "ctrl.h"
#include "store.h"
#include "wmon.h"

void
api_clusters_list(struct api_req *rq, struct api_resp *rs)
{
	api_read_answer(rq, rs, API_READ_CLUSTERS);
}

/*
 * A change to the cluster name, and the cluster as it is after it, read
 * under the same hold of the lock (in the change's transaction when it
 * runs in one).
 */
struct cluster_change {
	struct api_req *rq;
	const char *name;
	int (*change)(struct inv *inv, struct cluster_change *x);  /* 0 or an INV_ code */
	const api_name *list;    /* the nodes, or the serial numbers, of the request */
	int n;
	int allow;               /* the serial numbers are allowed (1) or no more (0) */
	int tried;               /* out: how many of list were tried (the last one failed) */
	struct api_cluster cl;   /* out: the cluster after the change */
};

/* store_fn: x->change, then the cluster into x->cl.  0 or an INV_ code. */
static int
cluster_changed(struct inv *inv, void *arg)
{
	struct cluster_change *x = arg;
	int rc = x->change(inv, x);

	return rc != 0 ? rc : inv_cluster_get(inv, x->name, &x->cl);
}

/* A new cluster, with its event; INV_CONFLICT when the name is taken. */
static int
cluster_add(struct inv *inv, struct cluster_change *x)
{
	int rc = inv_cluster_add(inv, x->name, x->rq->now);

	if (rc == 0)
		ctrl_event(x->rq->c, x->rq->now, x->rq->actor, "", "cluster created", x->name);
	return rc;
}

void
api_clusters_create(struct api_req *rq, struct api_resp *rs)
{
	api_name name;
	char err[300];

	if (api_json_decode_name(rq->body, rq->body_len, name, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	struct cluster_change x = { .rq = rq, .name = name, .change = cluster_add };
	int rc = store_with(&rq->c->store, cluster_changed, &x);
	if (rc == INV_CONFLICT)
		api_error(rs, 409, "cluster %s already exists", name);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 201, api_json_cluster(&x.cl));
}

/*
 * Put node into the cluster x->name, with an event that says where it
 * came from; none when it is there already.  0 or an INV_ code.
 */
static int
node_join(struct inv *inv, struct cluster_change *x, const char *node)
{
	struct api_node before;
	char why[2 * API_NAME_MAX + 16];
	struct api_req *rq = x->rq;
	int rc;

	if ((rc = inv_node_get(inv, node, &before)) != 0)
		return rc;
	if (strcmp(before.cluster, x->name) == 0)
		return 0;
	if ((rc = inv_cluster_set_node(inv, x->name, node)) != 0)
		return rc;
	if (before.cluster[0] == '\0') {
		ctrl_event(rq->c, rq->now, rq->actor, node, "joined cluster", x->name);
	} else {
		snprintf(why, sizeof(why), "from %s to %s", before.cluster, x->name);
		ctrl_event(rq->c, rq->now, rq->actor, node, "moved cluster", why);
	}
	return 0;
}

/* Every node of x->list into the cluster, until one fails (x->tried counts it). */
static int
nodes_join(struct inv *inv, struct cluster_change *x)
{
	int rc = 0;

	for (x->tried = 0; rc == 0 && x->tried < x->n; x->tried++)
		rc = node_join(inv, x, x->list[x->tried]);
	return rc;
}

void
api_clusters_add_nodes(struct api_req *rq, struct api_resp *rs)
{
	api_name names[64];
	char err[300];
	int n = 0;

	if (api_json_decode_names(rq->body, rq->body_len, names, 64, &n, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	struct cluster_change x = { .rq = rq, .name = rq->param, .change = nodes_join,
		.list = names, .n = n };
	int rc = store_txn(&rq->c->store, cluster_changed, &x);
	if (rc == 0)
		wmon_touch(rq->c->wmon);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s or node %s: no such thing", rq->param,
		    x.tried > 0 ? names[x.tried - 1] : "");
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, api_json_cluster(&x.cl));
}

/* The allow-list change, with an event per serial number. */
static int
serials_change(struct inv *inv, struct cluster_change *x)
{
	struct api_req *rq = x->rq;
	int rc = inv_cluster_allow(inv, x->name, x->list, x->n, x->allow);

	for (int i = 0; rc == 0 && i < x->n; i++)
		ctrl_event(rq->c, rq->now, rq->actor, "", x->allow ? "serial allowed" :
		    "serial disallowed", x->list[i]);
	return rc;
}

static void
allow_change(struct api_req *rq, struct api_resp *rs, int allow)
{
	api_name serials[API_ALLOW_MAX];
	char err[300];
	int n = 0;

	if (api_json_decode_serials(rq->body, rq->body_len, serials, API_ALLOW_MAX, &n, err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	struct cluster_change x = { .rq = rq, .name = rq->param, .change = serials_change,
		.list = serials, .n = n, .allow = allow };
	int rc = store_txn(&rq->c->store, cluster_changed, &x);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s: no such cluster", rq->param);
	else if (rc == INV_CONFLICT)
		api_error(rs, 409, "cluster %s: an allow-list holds at most %d serial numbers",
		    rq->param, API_ALLOW_MAX);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, api_json_cluster(&x.cl));
}

void
api_cluster_allow(struct api_req *rq, struct api_resp *rs)
{
	allow_change(rq, rs, 1);
}

void
api_cluster_disallow(struct api_req *rq, struct api_resp *rs)
{
	allow_change(rq, rs, 0);
}
