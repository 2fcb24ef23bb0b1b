/*
 * A cluster's wiring: GET /v1/clusters/{name}/wiring (the check), and its
 * expected topology, GET and PUT /v1/clusters/{name}/wiring/plan, and
 * POST /v1/clusters/{name}/wiring/plan?topology=mesh|ring[&save=1] (a
 * cabling plan proposed from the nodes' reported receptacles; stored when
 * save=1).  A stored plan is DOT text in the inventory, always in tbmesh's
 * form: a file in mlx.distributed_config --dot's form (labels naming the
 * Macs and their interfaces) is resolved against the cluster's nodes when
 * it is put, and stored as the links it resolved to.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_server.h"
#include "ctrl.h"
#include "rollout_api.h"
#include "store.h"
#include "wiring.h"
#include "wiring_json.h"
#include "wmon.h"

void
api_wiring_get(struct api_req *rq, struct api_resp *rs)
{
	struct wiring_result *r;
	char err[300];
	int rc = wmon_check(rq->c->wmon, rq->param, rq->now, &r, err, sizeof(err));

	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s does not exist", rq->param);
	else if (rc == WMON_TOO_BIG)
		api_error(rs, 409, "%s", err);
	else if (rc != 0)
		api_error(rs, 503, "%s", err);
	else
		api_body(rs, 200, wiring_json_result(r));
	wiring_result_free(r);
}

struct wiring_row {
	const char *cluster;
	char topo[16];           /* out */
	char **dot;              /* out: malloc'd or NULL, the caller frees */
	double at;               /* out */
};

static int
read_wiring(struct inv *inv, void *arg)
{
	struct wiring_row *w = arg;

	return inv_wiring_get(inv, w->cluster, w->topo, sizeof(w->topo), w->dot, &w->at);
}

/* The stored expectation as a plan document; 0, INV_NOTFOUND or -1. */
static int
stored_plan(struct ctrl *c, const char *cluster, struct wiring_plan_doc *doc, char *err,
    size_t errlen)
{
	struct wiring_row w = { .cluster = cluster, .dot = &doc->dot };
	int rc;

	memset(doc, 0, sizeof(*doc));
	snprintf(doc->cluster, sizeof(doc->cluster), "%s", cluster);
	if ((rc = store_with(&c->store, read_wiring, &w)) != 0)
		return rc;
	if (wiring_topology_parse(w.topo, &doc->topology) == -1) {
		snprintf(err, errlen, "stored topology \"%s\" is unknown", w.topo);
		return -1;
	}
	if (doc->dot != NULL && wiring_dot_parse(doc->dot, strlen(doc->dot), &doc->links,
	    &doc->n_links, err, errlen) == -1)
		return -1;
	return 0;
}

void
api_wiring_plan_get(struct api_req *rq, struct api_resp *rs)
{
	struct wiring_plan_doc doc;
	char err[300];
	int rc = stored_plan(rq->c, rq->param, &doc, err, sizeof(err));

	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s does not exist", rq->param);
	else if (rc == WMON_TOO_BIG)
		api_error(rs, 409, "%s", err);
	else if (rc != 0)
		api_error(rs, 503, "cluster %s: %s", rq->param, err);
	else
		api_body(rs, 200, wiring_json_plan(&doc));
	wiring_plan_doc_free(&doc);
}

/* The same two nodes, both links without receptacles: one cable said twice. */
static int
same_bare_pair(const struct wiring_plan_link *x, const struct wiring_plan_link *y)
{
	if (x->a.receptacle[0] || x->b.receptacle[0] || y->a.receptacle[0] ||
	    y->b.receptacle[0])
		return 0;
	return (strcmp(x->a.node, y->a.node) == 0 && strcmp(x->b.node, y->b.node) == 0) ||
	    (strcmp(x->a.node, y->b.node) == 0 && strcmp(x->b.node, y->a.node) == 0);
}

/*
 * Links that name the same node twice, a (node, receptacle) twice, or the
 * same two nodes twice without receptacles (three "mac1 -- mac2" lines made
 * the links flip at every check, two events every 10 s): err.
 */
static int
plan_check(const struct wiring_plan_link *v, int n, char *err, size_t errlen)
{
	for (int k = 0; k < n; k++) {
		const struct wiring_end *e[2] = {&v[k].a, &v[k].b};

		if (strcmp(v[k].a.node, v[k].b.node) == 0) {
			snprintf(err, errlen, "links[%d]: a link from %s to itself", k, v[k].a.node);
			return -1;
		}
		for (int m = 0; m < k; m++)
			if (same_bare_pair(&v[k], &v[m])) {
				snprintf(err, errlen, "links[%d]: %s -- %s is listed twice (links[%d]); "
				    "name the receptacles of each cable", k, v[k].a.node, v[k].b.node, m);
				return -1;
			}
		for (int m = 0; m < k; m++)
			for (int s = 0; s < 2; s++)
				if (e[s]->receptacle[0] &&
				    ((strcmp(e[s]->node, v[m].a.node) == 0 &&
				    strcmp(e[s]->receptacle, v[m].a.receptacle) == 0) ||
				    (strcmp(e[s]->node, v[m].b.node) == 0 &&
				    strcmp(e[s]->receptacle, v[m].b.receptacle) == 0))) {
					snprintf(err, errlen, "links[%d]: %s tb%s is used twice", k,
					    e[s]->node, e[s]->receptacle);
					return -1;
				}
	}
	return 0;
}

/*
 * doc's links as DOT in doc->dot, read back to make sure what is stored
 * parses to the same plan (a stored plan that does not parse would fail
 * every check after).  0, or -1 with err set.
 */
static int
plan_dot(const char *cluster, struct wiring_plan_doc *doc, char *err, size_t errlen)
{
	struct wiring_plan_link *back = NULL;
	char perr[256];
	int n = 0, same;

	if ((doc->dot = wiring_dot_write(cluster, doc->links, doc->n_links)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (wiring_dot_parse(doc->dot, strlen(doc->dot), &back, &n, perr, sizeof(perr)) == -1) {
		snprintf(err, errlen, "the plan written as DOT does not read back: %s", perr);
		return -1;
	}
	same = n == doc->n_links;
	for (int k = 0; same && k < n; k++)
		same = strcmp(back[k].a.node, doc->links[k].a.node) == 0 &&
		    strcmp(back[k].a.receptacle, doc->links[k].a.receptacle) == 0 &&
		    strcmp(back[k].b.node, doc->links[k].b.node) == 0 &&
		    strcmp(back[k].b.receptacle, doc->links[k].b.receptacle) == 0;
	free(back);
	if (!same) {
		snprintf(err, errlen, "the plan written as DOT reads back as another plan");
		return -1;
	}
	return 0;
}

struct wiring_set {
	struct api_req *rq;
	const struct wiring_plan_doc *doc;
	const char *what;        /* the event */
};

/* store_fn: the cluster rq->param's expectation, with its event.  0 or an INV_ code. */
static int
wiring_set(struct inv *inv, void *arg)
{
	struct wiring_set *x = arg;
	struct api_req *rq = x->rq;
	int rc = inv_wiring_set(inv, rq->param, wiring_topology_str(x->doc->topology), x->doc->dot,
	    rq->now);

	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", x->what, rq->param);
	return rc;
}

/* Store doc (its links as DOT for a plan); answer with what is stored. */
static void
store_plan(struct api_req *rq, struct api_resp *rs, struct wiring_plan_doc *doc, int status)
{
	char what[64], err[300];
	struct wiring_set x = { rq, doc, what };

	free(doc->dot);
	doc->dot = NULL;
	if (doc->topology == WIRING_TOPO_PLAN && plan_dot(rq->param, doc, err, sizeof(err)) == -1) {
		api_error(rs, 500, "%s", err);
		return;
	}
	snprintf(doc->cluster, sizeof(doc->cluster), "%s", rq->param);
	snprintf(what, sizeof(what), "wiring expected: %s", wiring_topology_str(doc->topology));
	int rc = store_with(&rq->c->store, wiring_set, &x);
	if (rc == INV_NOTFOUND) {
		api_error(rs, 404, "cluster %s does not exist", rq->param);
		return;
	}
	if (rc != 0) {
		api_error(rs, 503, "the inventory could not store it");
		return;
	}
	wmon_touch(rq->c->wmon);
	api_body(rs, status, wiring_json_plan(doc));
}

struct ssh_hosts {
	struct wiring_node *nodes;
	int n;
};

/* store_fn: each node's SSH host (when it has one) into its ssh_host. */
static int
read_ssh_hosts(struct inv *inv, void *arg)
{
	struct ssh_hosts *h = arg;
	struct ro_ssh ssh;

	for (int i = 0; i < h->n; i++)
		if (inv_ssh_get(inv, h->nodes[i].name, &ssh) == 0)
			snprintf(h->nodes[i].ssh_host, sizeof(h->nodes[i].ssh_host), "%s", ssh.host);
	return 0;
}

/*
 * The cluster's nodes as an import reads them against: the engine's view
 * and each node's SSH host from the inventory.  0 with *nodes malloc'd, or
 * an HTTP status with err.
 */
static int
import_nodes(struct api_req *rq, struct wiring_node **nodes, int *n, char *err, size_t errlen)
{
	int rc = wmon_nodes(rq->c->wmon, rq->param, rq->now, nodes, n, err, errlen);

	if (rc == INV_NOTFOUND) {
		snprintf(err, errlen, "cluster %s does not exist", rq->param);
		return 404;
	}
	if (rc != 0)
		return rc == WMON_TOO_BIG ? 409 : 503;
	struct ssh_hosts h = { *nodes, *n };
	return store_with(&rq->c->store, read_ssh_hosts, &h);
}

/*
 * doc->dot read into doc->links: as it is (tbmesh's form), or resolved
 * against the cluster's nodes (labels naming Macs and interfaces).  0, or
 * an HTTP status with err.
 */
static int
import_dot(struct api_req *rq, struct wiring_plan_doc *doc, char *err, size_t errlen)
{
	struct wiring_dot_cluster cl = { rq->param, NULL, 0 };
	struct wiring_node *nodes = NULL;
	char perr[300];
	int rc, status;

	free(doc->links);      /* an empty "links": [] */
	doc->links = NULL;
	doc->n_links = 0;
	rc = wiring_dot_import(doc->dot, strlen(doc->dot), NULL, &doc->links, &doc->n_links, perr,
	    sizeof(perr));
	if (rc == WIRING_DOT_NEEDS_NODES) {
		if ((status = import_nodes(rq, &nodes, &cl.n_nodes, err, errlen)) != 0)
			return status;
		cl.nodes = nodes;
		rc = wiring_dot_import(doc->dot, strlen(doc->dot), &cl, &doc->links, &doc->n_links,
		    perr, sizeof(perr));
		free(nodes);
	}
	if (rc != 0) {
		snprintf(err, errlen, "dot: %s", perr);
		return 400;
	}
	return 0;
}

/* The plan's nodes are the cluster's, its receptacles theirs: 0 or a status. */
static int
plan_fits_cluster(struct api_req *rq, const struct wiring_plan_doc *doc, char *err,
    size_t errlen)
{
	struct wiring_node *nodes = NULL;
	int n = 0, status = import_nodes(rq, &nodes, &n, err, errlen);

	if (status == 0 && wiring_plan_fits(doc->links, doc->n_links, nodes, n, err, errlen) == -1)
		status = 400;
	free(nodes);
	return status;
}

/*
 * PUT {"topology": "mesh"|"ring"} or {"topology": "plan", "dot": "graph {...}"}
 * or {"topology": "plan", "links": [...]}.  Refused, nothing stored: the
 * plan in place stays.
 */
void
api_wiring_plan_put(struct api_req *rq, struct api_resp *rs)
{
	struct wiring_plan_doc doc;
	char err[400];
	int status;

	if (wiring_json_decode_plan(rq->body, rq->body_len, &doc, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (doc.topology != WIRING_TOPO_PLAN && (doc.n_links > 0 || doc.dot != NULL)) {
		api_error(rs, 400, "a %s takes no links or dot (use topology \"plan\")",
		    wiring_topology_str(doc.topology));
		goto out;
	}
	if (doc.topology == WIRING_TOPO_PLAN && doc.dot != NULL) {
		if (doc.n_links > 0) {
			api_error(rs, 400, "give the plan as links or as dot, not both");
			goto out;
		}
		if ((status = import_dot(rq, &doc, err, sizeof(err))) != 0) {
			api_error(rs, status, "%s", err);
			goto out;
		}
	}
	if (doc.topology == WIRING_TOPO_PLAN && doc.n_links == 0) {
		api_error(rs, 400, "a plan needs at least one link");
		goto out;
	}
	if (plan_check(doc.links, doc.n_links, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		goto out;
	}
	if (doc.topology == WIRING_TOPO_PLAN &&
	    (status = plan_fits_cluster(rq, &doc, err, sizeof(err))) != 0) {
		api_error(rs, status, "%s", err);
		goto out;
	}
	store_plan(rq, rs, &doc, 200);
out:
	wiring_plan_doc_free(&doc);
}

/* A plan for the cluster's nodes as their reports describe them. */
static int
plan_from_check(struct api_req *rq, enum wiring_topology topo, struct wiring_plan_doc *doc,
    int *status, char *err, size_t errlen)
{
	struct wiring_node *nodes = NULL;
	int n = 0, rc;

	rc = wmon_nodes(rq->c->wmon, rq->param, rq->now, &nodes, &n, err, errlen);
	if (rc == INV_NOTFOUND) {
		*status = 404;
		snprintf(err, errlen, "cluster %s does not exist", rq->param);
		return -1;
	}
	if (rc != 0) {
		*status = rc == WMON_TOO_BIG ? 409 : 503;
		return -1;
	}
	snprintf(doc->cluster, sizeof(doc->cluster), "%s", rq->param);
	doc->topology = WIRING_TOPO_PLAN;
	rc = wiring_plan_make(nodes, n, topo, &doc->links, &doc->n_links, err, errlen);
	free(nodes);
	if (rc == -1) {
		*status = 409;
		return -1;
	}
	if (plan_dot(rq->param, doc, err, errlen) == -1) {
		*status = 500;
		return -1;
	}
	return 0;
}

void
api_wiring_plan_propose(struct api_req *rq, struct api_resp *rs)
{
	const char *t = rq->query(rq->qctx, "topology"), *save = rq->query(rq->qctx, "save");
	struct wiring_plan_doc doc;
	enum wiring_topology topo = WIRING_TOPO_MESH;
	char err[300];
	int status = 200;

	if (api_body_none(rq, rs) == -1)
		return;
	memset(&doc, 0, sizeof(doc));
	if (t != NULL && (wiring_topology_parse(t, &topo) == -1 || topo == WIRING_TOPO_PLAN)) {
		api_error(rs, 400, "topology: \"%s\" is not mesh or ring", t);
		return;
	}
	if (save != NULL && strcmp(save, "1") != 0 && strcmp(save, "0") != 0 &&
	    strcmp(save, "true") != 0 && strcmp(save, "false") != 0) {
		api_error(rs, 400, "save: \"%s\" is not 1 or 0", save);
		return;
	}
	if (plan_from_check(rq, topo, &doc, &status, err, sizeof(err)) == -1) {
		api_error(rs, status, "%s", err);
		wiring_plan_doc_free(&doc);
		return;
	}
	if (save != NULL && (strcmp(save, "1") == 0 || strcmp(save, "true") == 0))
		store_plan(rq, rs, &doc, 200);
	else
		api_body(rs, 200, wiring_json_plan(&doc));
	wiring_plan_doc_free(&doc);
}
