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
#include "api_read.h"
#include "api_server.h"
#include "catalog.h"
#include "ctrl.h"
#include "inventory_placement.h"
#include "placement_ctrl.h"
#include "plan.h"
#include "store.h"

struct model_list {
	struct ctrl *c;
	char *json;              /* out: malloc'd, NULL when out of memory */
};

/* store_fn: the catalog, which the lock guards, as JSON. */
static int
encode_models(struct inv *inv, void *arg)
{
	struct model_list *l = arg;

	(void)inv;
	l->json = catalog_encode(l->c->models, l->c->n_models);
	return 0;
}

void
api_models_list(struct api_req *rq, struct api_resp *rs)
{
	struct model_list l = { rq->c, NULL };

	store_with(&rq->c->store, encode_models, &l);
	api_body(rs, 200, l.json);
}

struct model_add {
	struct api_req *rq;
	const struct catalog_model *m;
	const char *json;        /* m as JSON; NULL when it could not be written */
};

/*
 * store_fn: m into the inventory and the catalog, with its event.  0,
 * INV_CONFLICT (the name is taken), or -1.
 */
static int
model_add(struct inv *inv, void *arg)
{
	struct model_add *a = arg;
	struct ctrl *c = a->rq->c;
	struct catalog_model *np;
	int rc = 0;

	for (int i = 0; i < c->n_models; i++)
		if (strcmp(c->models[i].name, a->m->name) == 0)
			rc = INV_CONFLICT;
	np = rc == 0 ? realloc(c->models, sizeof(*np) * (size_t)(c->n_models + 1)) : NULL;
	if (rc == 0 && (np == NULL || a->json == NULL))
		rc = -1;
	if (np != NULL)
		c->models = np;
	if (rc == 0)
		rc = inv_model_add(inv, a->m->name, a->json, a->rq->now);
	if (rc == 0) {
		c->models[c->n_models++] = *a->m;
		ctrl_event(c, a->rq->now, a->rq->actor, "", "model added", a->m->name);
	}
	return rc;
}

void
api_models_add(struct api_req *rq, struct api_resp *rs)
{
	struct catalog_model m;
	char err[400];

	if (catalog_decode_model(rq->body, rq->body_len, &m, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	char *json = catalog_encode_model(&m);
	struct model_add a = { rq, &m, json };
	int rc = store_with(&rq->c->store, model_add, &a);
	if (rc == INV_CONFLICT)
		api_error(rs, 409, "model %s is already in the catalog", m.name);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 201, json), json = NULL;
	free(json);
}

/* Store p as active, with its event; 0, or -1 (503). */
static int
record_plan(struct inv *inv, struct api_req *rq, struct plan *p)
{
	char what[64], reason[PLAN_MODEL_MAX + 80];

	if (placement_store_active(inv, p, rq->now) != 0)
		return -1;
	snprintf(what, sizeof(what), "placement %lld applied", (long long)p->id);
	snprintf(reason, sizeof(reason), "%s, %s over %d node%s", p->model,
	    plan_strategy_str(p->strategy), p->n_ranks, p->n_ranks == 1 ? "" : "s");
	ctrl_event(rq->c, rq->now, rq->actor, "", what, reason);
	return 0;
}

/*
 * A plan made (and recorded when apply) under one hold of the lock, so
 * that two applies cannot both count the same free memory.
 */
struct plan_call {
	struct api_req *rq;
	const struct plan_request *req;
	int64_t except;          /* the placement replanned (its memory is free), 0 none */
	int apply;
	struct plan *p;          /* out */
	char err[2048];          /* out: why, for a status but 0 and 503 */
};

/* store_fn: 0, or an HTTP status (placement_make's, or 503). */
static int
plan_locked(struct inv *inv, void *arg)
{
	struct plan_call *x = arg;
	int status = placement_make(x->rq->c, x->req, x->except, x->rq->now, x->p, x->err,
	    sizeof(x->err));

	if (status == 0 && x->apply && record_plan(inv, x->rq, x->p) != 0)
		status = 503;
	return status;
}

/* Make x's plan: 0 with x->p filled, or -1 with the error in rs. */
static int
plan_make(struct api_resp *rs, struct plan_call *x)
{
	int status = store_with(&x->rq->c->store, plan_locked, x);

	if (status == 503)
		api_error(rs, 503, "the inventory is not available");
	else if (status != 0)
		api_error(rs, status, "%s", x->err);
	return status == 0 ? 0 : -1;
}

/*
 * Plan the body's request (and record it when apply); 0 with *p filled,
 * or -1 with the error already in rs.
 */
static int
plan_request(struct api_req *rq, struct api_resp *rs, struct plan *p, int apply)
{
	struct plan_request req;
	struct plan_call x = { .rq = rq, .req = &req, .apply = apply, .p = p };

	if (plan_json_decode_request(rq->body, rq->body_len, &req, x.err, sizeof(x.err)) == -1) {
		api_error(rs, 400, "%s", x.err);
		return -1;
	}
	return plan_make(rs, &x);
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

	int rc = api_read(rq->c, API_READ_PLACEMENTS, NULL, &rows, &n);
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

/* Placement id, read or removed. */
struct placement_call {
	struct api_req *rq;
	int64_t id;
	struct inv_placement row;   /* out (read); row.json malloc'd, the caller frees */
};

static int
read_placement(struct inv *inv, void *arg)
{
	struct placement_call *x = arg;

	return inv_placement_get(inv, x->id, &x->row);
}

/* Load placement id into p; 0, or -1 with rs answered. */
static int
load(struct api_req *rq, struct api_resp *rs, int64_t id, struct plan *p)
{
	struct placement_call x = { .rq = rq, .id = id };

	int rc = store_with(&rq->c->store, read_placement, &x);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "placement %lld: no such placement", (long long)id);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	if (rc != 0)
		return -1;
	rc = from_row(&x.row, p);
	free(x.row.json);
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

/* store_fn: remove the placement, with its event.  0 or an INV_ code. */
static int
drop_placement(struct inv *inv, void *arg)
{
	struct placement_call *x = arg;
	char what[64];
	int rc = inv_placement_remove(inv, x->id);

	if (rc == 0) {
		snprintf(what, sizeof(what), "placement %lld removed", (long long)x->id);
		ctrl_event(x->rq->c, x->rq->now, x->rq->actor, "", what, "");
	}
	return rc;
}

void
api_placement_remove(struct api_req *rq, struct api_resp *rs)
{
	struct placement_call x = { .rq = rq, .id = path_id(rq, rs) };

	if (x.id == 0 || api_body_none(rq, rs) == -1)
		return;
	int rc = store_with(&rq->c->store, drop_placement, &x);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "placement %lld: no such placement", (long long)x.id);
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

	if (id == 0 || api_body_none(rq, rs) == -1)
		return;
	old = calloc(1, sizeof(*old));
	p = calloc(1, sizeof(*p));
	if (old == NULL || p == NULL)
		api_error(rs, 503, "out of memory");
	else if (load(rq, rs, id, old) == 0) {
		placement_request_of(old, 0, &req);
		struct plan_call x = { .rq = rq, .req = &req, .except = id, .p = p };
		if (plan_make(rs, &x) == 0)
			api_body(rs, 200, plan_json(p));
	}
	free(old);
	free(p);
}
