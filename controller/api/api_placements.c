/*
 * /v1/models and /v1/placements: the catalog, plans, applied placements
 * and their replanning (DESIGN.md "Placement").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_json.h"
#include "api_server.h"
#include "catalog.h"
#include "ctrl.h"
#include "inventory_placement.h"
#include "placement_ctrl.h"
#include "plan.h"

void
api_models_list(struct api_req *rq, struct api_resp *rs)
{
	pthread_mutex_lock(&rq->c->inv_mu);
	char *json = catalog_encode(rq->c->models, rq->c->n_models);
	pthread_mutex_unlock(&rq->c->inv_mu);
	api_body(rs, 200, json);
}

void
api_models_add(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl *c = rq->c;
	struct catalog_model m, *np;
	char err[400];
	int rc = 0;

	if (catalog_decode_model(rq->body, rq->body_len, &m, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	char *json = catalog_encode_model(&m);
	pthread_mutex_lock(&c->inv_mu);
	for (int i = 0; i < c->n_models; i++)
		if (strcmp(c->models[i].name, m.name) == 0)
			rc = INV_CONFLICT;
	np = rc == 0 ? realloc(c->models, sizeof(*np) * (size_t)(c->n_models + 1)) : NULL;
	if (rc == 0 && (np == NULL || json == NULL))
		rc = -1;
	if (np != NULL)
		c->models = np;
	if (rc == 0)
		rc = inv_model_add(c->inv, m.name, json, rq->now);
	if (rc == 0) {
		c->models[c->n_models++] = m;
		ctrl_event(c, rq->now, rq->actor, "", "model added", m.name);
	}
	pthread_mutex_unlock(&c->inv_mu);
	if (rc == INV_CONFLICT)
		api_error(rs, 409, "model %s is already in the catalog", m.name);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 201, json), json = NULL;
	free(json);
}

static int store(struct ctrl *c, struct plan *p, double now, const char *actor);

/*
 * Plan the body's request (and record it when apply: under the same hold of
 * inv_mu, so that two applies cannot both count the same free memory); 0
 * with *p filled, or -1 with the error already in rs.
 */
static int
plan_request(struct api_req *rq, struct api_resp *rs, struct plan *p, int apply)
{
	struct plan_request req;
	char err[2048];

	if (plan_json_decode_request(rq->body, rq->body_len, &req, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return -1;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	int status = placement_make(rq->c, &req, 0, rq->now, p, err, sizeof(err));
	if (status == 0 && apply && store(rq->c, p, rq->now, rq->actor) != 0)
		status = 503;
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (status == 503)
		api_error(rs, 503, "the inventory is not available");
	else if (status != 0)
		api_error(rs, status, "%s", err);
	return status == 0 ? 0 : -1;
}

void
api_placements_plan(struct api_req *rq, struct api_resp *rs)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (plan_request(rq, rs, p, 0) == 0)
		api_body(rs, 200, plan_json(p));
	free(p);
}

/* Store p as active; 0, or -1 (503). inv_mu held. */
static int
store(struct ctrl *c, struct plan *p, double now, const char *actor)
{
	const char *nodes[PLAN_RANKS_MAX];
	int64_t bytes[PLAN_RANKS_MAX];
	char what[64], reason[PLAN_MODEL_MAX + 80];

	p->state = PLAN_ACTIVE;
	p->created_at = now;
	char *json = plan_json(p);
	if (json == NULL)
		return -1;
	for (int i = 0; i < p->n_ranks; i++) {
		nodes[i] = p->ranks[i].node;
		bytes[i] = p->ranks[i].total_bytes;
	}
	struct inv_placement_in in = { p->model, p->cluster, plan_strategy_str(p->strategy),
		"active", now, json, p->n_ranks, nodes, bytes };
	int rc = inv_placement_add(c->inv, &in, &p->id);
	free(json);
	if (rc != 0)
		return -1;
	snprintf(what, sizeof(what), "placement %lld applied", (long long)p->id);
	snprintf(reason, sizeof(reason), "%s, %s over %d node%s", p->model,
	    plan_strategy_str(p->strategy), p->n_ranks, p->n_ranks == 1 ? "" : "s");
	ctrl_event(c, now, actor, "", what, reason);
	return 0;
}

void
api_placements_create(struct api_req *rq, struct api_resp *rs)
{
	struct plan *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (plan_request(rq, rs, p, 1) == 0)
		api_body(rs, 201, plan_json(p));
	free(p);
}

/* The stored placement as a plan, with its id, state, reason and time. */
static int
from_row(const struct inv_placement *row, struct plan *p)
{
	char err[256];

	if (plan_json_decode(row->json, strlen(row->json), p, err, sizeof(err)) == -1)
		return -1;
	p->id = row->id;
	p->created_at = row->created_at;
	snprintf(p->reason, sizeof(p->reason), "%s", row->reason);
	if (plan_state_parse(row->state, &p->state) == -1)
		p->state = PLAN_DEGRADED;
	return 0;
}

void
api_placements_list(struct api_req *rq, struct api_resp *rs)
{
	struct inv_placement *rows = NULL;
	struct plan *ps = NULL;
	int n = 0, k = 0;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_placement_list(rq->c->inv, &rows, &n);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0 || (ps = calloc((size_t)n + 1, sizeof(*ps))) == NULL) {
		inv_placements_free(rows, n);
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	for (int i = 0; i < n; i++)
		if (from_row(&rows[i], &ps[k]) == 0)
			k++;
	api_body(rs, 200, plan_json_list(ps, k));
	free(ps);
	inv_placements_free(rows, n);
}

/* The {id} of the path; 0 when it is not one (the 404 is sent). */
static int64_t
path_id(struct api_req *rq, struct api_resp *rs)
{
	char *end;
	long long v = strtoll(rq->param, &end, 10);

	if (rq->param[0] < '1' || rq->param[0] > '9' || *end != '\0' || v <= 0) {
		api_error(rs, 404, "placement %s: no such placement", rq->param);
		return 0;
	}
	return v;
}

/* Load placement id into p; 0, or -1 with rs answered. */
static int
load(struct api_req *rq, struct api_resp *rs, int64_t id, struct plan *p)
{
	struct inv_placement row;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_placement_get(rq->c->inv, id, &row);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "placement %lld: no such placement", (long long)id);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	if (rc != 0)
		return -1;
	rc = from_row(&row, p);
	free(row.json);
	if (rc != 0)
		api_error(rs, 500, "placement %lld: stored plan does not decode", (long long)id);
	return rc;
}

void
api_placement_show(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = path_id(rq, rs);
	struct plan *p;

	if (id == 0)
		return;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (load(rq, rs, id, p) == 0)
		api_body(rs, 200, plan_json(p));
	free(p);
}

void
api_placement_remove(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = path_id(rq, rs);
	char what[64];

	if (id == 0 || api_body_none(rq, rs) == -1)
		return;
	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_placement_remove(rq->c->inv, id);
	if (rc == 0) {
		snprintf(what, sizeof(what), "placement %lld removed", (long long)id);
		ctrl_event(rq->c, rq->now, rq->actor, "", what, "");
	}
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "placement %lld: no such placement", (long long)id);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not remove it");
	else
		rs->status = 204;
}

/*
 * A new plan for a placement's model on what is left of its cluster: its
 * own memory is not counted as held, its lost nodes are not ready.  The
 * proposal is not applied (apply it, then remove the old one).
 */
void
api_placement_replan(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = path_id(rq, rs);
	struct plan *old, *p;
	struct plan_request req;
	char err[2048];

	if (id == 0 || api_body_none(rq, rs) == -1)
		return;
	old = calloc(1, sizeof(*old));
	p = calloc(1, sizeof(*p));
	if (old == NULL || p == NULL)
		api_error(rs, 503, "out of memory");
	else if (load(rq, rs, id, old) == 0) {
		placement_request_of(old, 0, &req);
		pthread_mutex_lock(&rq->c->inv_mu);
		int status = placement_make(rq->c, &req, id, rq->now, p, err, sizeof(err));
		pthread_mutex_unlock(&rq->c->inv_mu);
		if (status == 0)
			api_body(rs, 200, plan_json(p));
		else if (status == 503)
			api_error(rs, 503, "the inventory is not available");
		else
			api_error(rs, status, "%s", err);
	}
	free(old);
	free(p);
}
