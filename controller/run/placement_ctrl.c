/*
 * Placement in the controller (placement_ctrl.h): I/O at the edge of the
 * pure engine.  Reads the inventory, decodes the latest reports, hands the
 * engine plain structs.
 */
#include "placement_ctrl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "embedded.h"
#include "inventory_placement.h"
#include "log.h"
#include "report.h"

static int
add_model(void *arg, const char *name, const char *json)
{
	struct ctrl *c = arg;
	struct catalog_model m, *np;
	char err[300];

	if (catalog_decode_model(json, strlen(json), &m, err, sizeof(err)) == -1) {
		log_warnx("model %s in the inventory is not valid any more: %s", name, err);
		return 0;
	}
	for (int i = 0; i < c->n_models; i++)
		if (strcmp(c->models[i].name, m.name) == 0) {
			log_warnx("model %s: the inventory's copy is shadowed by the catalog file's",
			    name);
			return 0;
		}
	if ((np = realloc(c->models, sizeof(*np) * (size_t)(c->n_models + 1))) == NULL)
		return -1;
	c->models = np;
	c->models[c->n_models++] = m;
	return 0;
}

int
placement_catalog_load(struct ctrl *c, const char *path, char *err, size_t errlen)
{
	char inner[384];

	c->models = NULL;
	c->n_models = 0;
	if (path != NULL) {
		if (catalog_load_file(path, &c->models, &c->n_models, err, errlen) == -1)
			return -1;
	} else if (catalog_decode((const char *)embedded_catalog[0].data, embedded_catalog[0].len,
	    &c->models, &c->n_models, inner, sizeof(inner)) == -1) {
		snprintf(err, errlen, "the compiled-in catalog: %s", inner);
		return -1;
	}
	if (inv_model_each(c->store.inv, add_model, c) == -1) {
		snprintf(err, errlen, "the inventory's models could not be read");
		return -1;
	}
	log_info("model catalog: %d models", c->n_models);
	return 0;
}

/* The cluster to plan on: the one named, or the only one. */
static int
pick_cluster(struct ctrl *c, const char *want, api_name out, char *err, size_t errlen)
{
	struct api_cluster *cl = NULL, one;
	int n = 0, rc;

	if (want[0]) {
		rc = inv_cluster_get(c->store.inv, want, &one);
		if (rc == INV_NOTFOUND)
			snprintf(err, errlen, "cluster %s: no such cluster", want);
		else if (rc == 0)
			snprintf(out, sizeof(api_name), "%s", want);
		return rc == INV_NOTFOUND ? 404 : rc == 0 ? 0 : 503;
	}
	if (inv_cluster_list(c->store.inv, &cl, &n) != 0)
		return 503;
	if (n == 1)
		snprintf(out, sizeof(api_name), "%s", cl[0].name);
	else
		snprintf(err, errlen, "name the cluster: there are %d (tbctl clusters)", n);
	free(cl);
	return n == 1 ? 0 : 400;
}

static int
listed(const struct plan_request *req, const char *name)
{
	if (req->n_nodes == 0)
		return 1;
	for (int i = 0; i < req->n_nodes; i++)
		if (strcmp(req->nodes[i], name) == 0)
			return 1;
	return 0;
}

/* One node of the input from the inventory and its latest report. */
static void
input_node(struct ctrl *c, const struct api_node *an, const struct report *r, int64_t except,
    struct place_node *pn)
{
	memset(pn, 0, sizeof(*pn));
	snprintf(pn->name, sizeof(pn->name), "%s", an->name);
	snprintf(pn->chip, sizeof(pn->chip), "%.63s", an->chip);
	snprintf(pn->os_build, sizeof(pn->os_build), "%.31s", an->os_build);
	pn->memory_bytes = an->memory_total_bytes == REPORT_NULL_I64 ? 0 : an->memory_total_bytes;
	if (r != NULL && r->memory.gpu_wired_limit_bytes != REPORT_NULL_I64)
		pn->gpu_wired_limit_bytes = r->memory.gpu_wired_limit_bytes;
	int64_t held = inv_placement_reserved(c->store.inv, an->name, except);
	pn->reserved_bytes = held > 0 ? held : 0;
	pn->available = an->state == NODE_READY && r != NULL;
	if (!pn->available)
		snprintf(pn->unavailable_why, sizeof(pn->unavailable_why), "%s",
		    r == NULL ? "no report" : api_node_state_str(an->state));
	struct ro_ssh ssh;
	if (inv_ssh_get(c->store.inv, an->name, &ssh) == 0) {
		snprintf(pn->ssh_host, sizeof(pn->ssh_host), "%s", ssh.host);
		snprintf(pn->ssh_user, sizeof(pn->ssh_user), "%s", ssh.user);
	}
	char iface[32];
	const char *kind = NULL;
	if (r != NULL && report_lan_ipv4(r, pn->lan_ipv4, sizeof(pn->lan_ipv4), iface,
	    sizeof(iface), &kind) == 0)
		snprintf(pn->lan_from, sizeof(pn->lan_from), "%s, %s", iface, kind);
	else
		pn->lan_ipv4[0] = '\0';
}

static struct report *
latest_report(struct ctrl *c, const char *name)
{
	char *json = NULL, err[256];
	struct report *r = NULL;

	if (inv_node_report(c->store.inv, name, &json) != 0 || json == NULL)
		return NULL;
	if ((r = report_new()) != NULL &&
	    report_decode(json, strlen(json), r, err, sizeof(err)) == -1) {
		log_warnx("%s: stored report does not decode: %s", name, err);
		free(r);
		r = NULL;
	}
	free(json);
	return r;
}

/* Fill in with the cluster's nodes (those of req->nodes when given) and links. */
static int
build_input(struct ctrl *c, const struct plan_request *req, int64_t except, double now,
    struct place_input *in, char *err, size_t errlen)
{
	struct api_node *nodes = NULL;
	struct report *reports[PLACE_NODES_MAX] = { 0 };
	struct placement_seen seen[PLACE_NODES_MAX];
	int n = 0;
	int64_t open = 0;

	if (inv_rollout_open_on(c->store.inv, in->cluster, &open) == 0)
		in->rollout = open != 0;
	if (inv_node_list(c->store.inv, &nodes, &n) != 0)
		return 503;
	for (int i = 0; i < n && in->n_nodes < PLACE_NODES_MAX; i++) {
		if (strcmp(nodes[i].cluster, in->cluster) != 0 || !listed(req, nodes[i].name))
			continue;
		reports[in->n_nodes] = latest_report(c, nodes[i].name);
		input_node(c, &nodes[i], reports[in->n_nodes], except, &in->nodes[in->n_nodes]);
		seen[in->n_nodes].report = reports[in->n_nodes];
		seen[in->n_nodes].state = nodes[i].state;
		seen[in->n_nodes].report_at = nodes[i].last_report_at;
		in->n_nodes++;
	}
	free(nodes);
	int status = 0;
	for (int i = 0; i < req->n_nodes && status == 0; i++) {
		int found = 0;
		for (int j = 0; j < in->n_nodes; j++)
			found |= strcmp(in->nodes[j].name, req->nodes[i]) == 0;
		if (!found) {
			snprintf(err, errlen, "node %s is not in cluster %s", req->nodes[i],
			    in->cluster);
			status = 404;
		}
	}
	if (status == 0)
		placement_links_fill(in, seen, now, c->unreachable_after);
	for (int i = 0; i < in->n_nodes; i++)
		free(reports[i]);
	return status;
}

int
placement_make(struct ctrl *c, const struct plan_request *req, int64_t except, double now,
    struct plan *out, char *err, size_t errlen)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	struct place_opts o;
	int status;

	if (catalog_find(c->models, c->n_models, req->model, &m, &v, err, errlen) == -1)
		return strchr(req->model, ':') == NULL ? 400 : 404;
	struct place_input *in = calloc(1, sizeof(*in));
	if (in == NULL)
		return 503;
	if ((status = pick_cluster(c, req->cluster, in->cluster, err, errlen)) == 0 &&
	    (status = build_input(c, req, except, now, in, err, errlen)) == 0) {
		place_opts_init(&o);
		o.strategy = req->strategy;
		o.context = req->context > 0 ? req->context : PLAN_CONTEXT_DEFAULT;
		o.batch = req->batch > 0 ? req->batch : 1;
		o.headroom_bytes = c->place_headroom;
		o.exact = req->n_nodes > 0;
		o.runtime = req->runtime;
		o.fast_synch = req->fast_synch;
		snprintf(o.entry, sizeof(o.entry), "%s", req->entry);
		if (place_plan(m, v, in, &o, out, err, errlen) == -1)
			status = 422;
	}
	free(in);
	return status;
}

void
placement_node_lost(struct ctrl *c, const char *node, enum node_state st, double now)
{
	int64_t *ids = NULL;
	int n = 0;
	char reason[API_REASON_MAX + 1], what[64];

	if (st != NODE_UNREACHABLE && st != NODE_DOWN && st != NODE_CORDONED)
		return;
	if (inv_placements_on_node(c->store.inv, node, &ids, &n) != 0)
		return;
	snprintf(reason, sizeof(reason), "%s is %s", node, api_node_state_str(st));
	for (int i = 0; i < n; i++) {
		if (inv_placement_set_state(c->store.inv, ids[i], "degraded", reason) != 0)
			continue;
		snprintf(what, sizeof(what), "placement %lld degraded", (long long)ids[i]);
		ctrl_event(c, now, "controller", node, what, reason);
	}
	free(ids);
}

void
placement_node_back(struct ctrl *c, const char *node, enum node_state st, double now)
{
	int64_t *ids = NULL;
	int n = 0;
	char reason[API_REASON_MAX + 1], what[64];

	if (st != NODE_READY)
		return;
	if (inv_placements_back_on_node(c->store.inv, node, &ids, &n) != 0)
		return;
	snprintf(reason, sizeof(reason), "%s is ready again, and every node of it is ready",
	    node);
	for (int i = 0; i < n; i++) {
		if (inv_placement_set_state(c->store.inv, ids[i], "active", NULL) != 0)
			continue;
		snprintf(what, sizeof(what), "placement %lld active again", (long long)ids[i]);
		ctrl_event(c, now, "controller", node, what, reason);
	}
	free(ids);
}

int
placement_store_active(struct inv *inv, struct plan *p, double now)
{
	const char *nodes[PLAN_RANKS_MAX];
	int64_t bytes[PLAN_RANKS_MAX];
	char *json;
	int rc;

	p->state = PLAN_ACTIVE;
	p->created_at = now;
	if ((json = plan_json(p)) == NULL)
		return -1;
	for (int i = 0; i < p->n_ranks && i < PLAN_RANKS_MAX; i++) {
		nodes[i] = p->ranks[i].node;
		bytes[i] = p->ranks[i].total_bytes;
	}
	struct inv_placement_in in = { p->model, p->cluster, plan_strategy_str(p->strategy),
		"active", now, json, p->n_ranks, nodes, bytes };
	rc = inv_placement_add(inv, &in, &p->id);
	free(json);
	return rc != 0 ? -1 : 0;
}
