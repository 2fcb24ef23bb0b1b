/*
 * /v1/nodes: the list, one node with its latest report, removal, and the
 * operator's lifecycle commands (cordon, uncordon, down, accept) through
 * the lifecycle engine, and the acceptance of pending re-enrolments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_json.h"
#include "api_read.h"
#include "api_server.h"
#include "ctrl.h"
#include "lifecycle.h"
#include "store.h"
#include "wmon.h"

void
api_nodes_list(struct api_req *rq, struct api_resp *rs)
{
	api_read_answer(rq, rs, API_READ_NODES);
}

struct node_view {
	const char *name;
	int with_report;
	struct api_node n;       /* out */
	char *report;            /* out: malloc'd (with_report), the caller frees */
};

static int
read_node(struct inv *inv, void *arg)
{
	struct node_view *v = arg;
	int rc = inv_node_get(inv, v->name, &v->n);

	if (rc == 0 && v->with_report)
		rc = inv_node_report(inv, v->name, &v->report);
	return rc;
}

/* 200 with the node (and its report when with_report). */
static void
respond_node(struct api_req *rq, struct api_resp *rs, int with_report)
{
	struct node_view v = { .name = rq->param, .with_report = with_report };
	int rc = store_with(&rq->c->store, read_node, &v);

	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s: no such node", rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, api_json_node(&v.n, v.report));
	free(v.report);
}

void
api_node_show(struct api_req *rq, struct api_resp *rs)
{
	respond_node(rq, rs, 1);
}

/* store_fn: the node rq->param, its tokens and its event.  0 or an INV_ code. */
static int
node_drop(struct inv *inv, void *arg)
{
	struct api_req *rq = arg;
	int rc = inv_node_remove(inv, rq->param);

	if (rc == 0)
		rc = inv_token_supersede(inv, rq->param, "");
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, rq->param, "removed", "");
	return rc;
}

void
api_node_remove(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl *c = rq->c;

	if (api_body_none(rq, rs) == -1)
		return;
	int rc = store_txn(&c->store, node_drop, rq);
	if (rc == INV_NOTFOUND) {
		api_error(rs, 404, "node %s: no such node", rq->param);
		return;
	}
	if (rc != 0) {
		api_error(rs, 503, "the inventory could not remove it");
		return;
	}
	registry_remove_node(c->reg, rq->param);
	registry_supersede_node_tokens(c->reg, rq->param, "");
	wmon_forget(c->wmon, rq->param);
	rs->status = 204;
}

/*
 * An operator's command on the node rq->param, decided on the registry's
 * copy and applied with the inventory's lock held.  The callbacks return 0,
 * or the HTTP status they filled rs with.
 */
struct node_cmd {
	struct api_req *rq;
	struct api_resp *rs;
	enum lc_command cmd;
	const char *reason;      /* the operator's, "" none */
	struct report *r;        /* accept: room for the request's report */
	int ran;                 /* out: the callback ran (its transaction was begun) */
	struct reg_node n;       /* out: the node; after an accepted request, as it is now */
	struct lc_result res;    /* out: the command's decision */
	int stored;              /* out: res is stored, the registry not told yet */
	char token[API_TOKEN_ID_LEN + 1];  /* out: an accepted request's token, else "" */
};

/* The registry's copy of the node into x->n: 0, or 404. */
static int
node_locked(struct node_cmd *x)
{
	if (registry_get_node(x->rq->c->reg, x->rq->param, &x->n) == 0)
		return 0;
	api_error(x->rs, 404, "node %s: no such node", x->rq->param);
	return 404;
}

/*
 * Decide x->cmd on x->n and store it: the whole of it (ctrl_apply) outside
 * a transaction; inside one, its inventory half (ctrl_apply_store), and
 * x->stored says the registry is to be told once it is committed.  0, or
 * an HTTP status.
 */
static int
apply_command(struct node_cmd *x, int in_txn)
{
	struct api_req *rq = x->rq;
	struct reg_node *n = &x->n;
	char err[300];

	if (lc_on_command(&n->lc, x->cmd, x->reason, rq->now, rq->c->unreachable_after, &x->res,
	    err, sizeof(err)) == -1) {
		int st = x->cmd == LC_UNCORDON || x->cmd == LC_ACCEPT ||
		    strstr(err, "reason") == NULL ? 409 : 400;
		api_error(x->rs, st, "node %s: %s", n->name, err);
		return st;
	}
	int rc = in_txn ? ctrl_apply_store(rq->c, n, &x->res, rq->now, rq->actor) :
	    ctrl_apply(rq->c, n, &x->res, rq->now, rq->actor);
	if (rc != 0) {
		api_error(x->rs, 503, "the inventory could not store it");
		return 503;
	}
	x->stored = in_txn;
	return 0;
}

/* store_fn: the command x->cmd on the node. */
static int
command_locked(struct inv *inv, void *arg)
{
	struct node_cmd *x = arg;
	int rc = node_locked(x);

	(void)inv;
	return rc != 0 ? rc : apply_command(x, 0);
}

/* The body's reason into reason: 0, or -1 with a 400 in rs. */
static int
command_reason(struct api_req *rq, struct api_resp *rs, char *reason, size_t len)
{
	char err[300];

	if (rq->body_len > 0 && api_json_decode_reason(rq->body, rq->body_len, reason, len, err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return -1;
	}
	return 0;
}

static void
node_command(struct api_req *rq, struct api_resp *rs, enum lc_command cmd)
{
	char reason[API_REASON_MAX + 1] = "";

	if (command_reason(rq, rs, reason, sizeof(reason)) == -1)
		return;
	struct node_cmd x = { .rq = rq, .rs = rs, .cmd = cmd, .reason = reason };
	if (store_with(&rq->c->store, command_locked, &x) == 0)
		respond_node(rq, rs, 0);
}

void
api_node_cordon(struct api_req *rq, struct api_resp *rs)
{
	node_command(rq, rs, LC_CORDON);
}

void
api_node_uncordon(struct api_req *rq, struct api_resp *rs)
{
	node_command(rq, rs, LC_UNCORDON);
}

void
api_node_down(struct api_req *rq, struct api_resp *rs)
{
	node_command(rq, rs, LC_DOWN);
}

/*
 * The accepted request's writes: its report the node's, its token the
 * node's only one, the state st (with its reason) and the acceptance; and
 * their events.  0, or -1.
 */
static int
accept_store(struct inv *inv, struct node_cmd *x, const struct inv_enrol_request *req,
    enum node_state st, const char *state_reason, int accepted)
{
	struct api_req *rq = x->rq;
	struct reg_node *n = &x->n;
	struct inv_node_key key;
	char err[300];

	if (inv_node_upsert(inv, x->r, req->json, req->json_len, n->name, "", st,
	    req->received_at, &key, err, sizeof(err)) != 0 ||
	    inv_node_set_state(inv, n->id, st, state_reason, 0) != 0 ||
	    inv_node_set_accepted(inv, n->id, accepted) != 0 ||
	    inv_token_supersede(inv, n->name, req->token_id) != 0 ||
	    inv_enrol_requests_drop(inv, n->id) != 0)
		return -1;
	snprintf(err, sizeof(err), "%s%stoken %s replaces the node's other tokens",
	    x->reason, x->reason[0] ? "; " : "", req->token_id);
	ctrl_event(rq->c, rq->now, rq->actor, n->name, "re-enrolment accepted", err);
	if (st != n->lc.state) {
		snprintf(err, sizeof(err), "state %s -> %s", api_node_state_str(n->lc.state),
		    api_node_state_str(st));
		ctrl_event(rq->c, rq->now, rq->actor, n->name, err, state_reason);
	}
	return 0;
}

/*
 * Accept a pending re-enrolment (req): the request's report becomes the
 * node's, its token the node's only one, and the node starts over (no
 * unexpected-reboot flag).  x->n and x->token say what the registry is to
 * hold once it is committed.  0, or an HTTP status.
 */
static int
accept_request(struct inv *inv, struct node_cmd *x, const struct inv_enrol_request *req)
{
	struct reg_node *n = &x->n;
	struct report *r = x->r;
	char err[300], why[128];

	if (report_decode(req->json, req->json_len, r, err, sizeof(err)) == -1)
		return api_error(x->rs, 500, "the request's report cannot be read: %s", err), 500;
	int healthy = lc_report_healthy(r, why, sizeof(why));
	int fresh = x->rq->now - req->received_at <= x->rq->c->unreachable_after;
	enum node_state st = n->lc.state;
	int accepted = 0;
	if (st == NODE_READY || st == NODE_UNREACHABLE || st == NODE_PENDING) {
		st = fresh && healthy ? NODE_READY : NODE_PENDING;
		accepted = st == NODE_PENDING;
	}
	const char *state_reason = st == NODE_PENDING ? "accepted; ready at its next healthy "
	    "report" : st == n->lc.state ? n->lc.reason : "";
	if (accept_store(inv, x, req, st, state_reason, accepted) != 0)
		return api_error(x->rs, 503, "the inventory could not store it"), 503;
	snprintf(x->token, sizeof(x->token), "%s", req->token_id);
	n->lc.state = st;
	report_strset(n->lc.reason, sizeof(n->lc.reason), state_reason);
	n->lc.accepted = accepted;
	n->lc.unexpected_reboot = 0;
	n->lc.last_report_at = req->received_at;
	n->lc.last_collected_at = r->collected_at;
	n->lc.last_report_healthy = healthy;
	if (!isnan(r->node.boot_time))
		n->lc.boot_time = r->node.boot_time;
	return 0;
}

/*
 * store_fn, in a transaction: the node's pending re-enrolment if it has
 * one, else the command LC_ACCEPT.
 */
static int
accept_locked(struct inv *inv, void *arg)
{
	struct node_cmd *x = arg;
	struct inv_enrol_request req;
	int rc;

	x->ran = 1;
	if ((rc = node_locked(x)) != 0)
		return rc;
	rc = inv_enrol_request_latest(inv, x->n.id, &req);
	if (rc == 0) {
		rc = accept_request(inv, x, &req);
		free(req.json);
	} else if (rc == INV_NOTFOUND) {
		rc = apply_command(x, 1);
	} else {
		rc = 503;
		api_error(x->rs, 503, "the inventory is not available");
	}
	return rc;
}

/* The registry learns what accept_locked committed. */
static void
accept_learn(struct ctrl *c, struct node_cmd *x)
{
	if (x->token[0]) {
		registry_supersede_node_tokens(c->reg, x->n.name, x->token);
		registry_put_node(c->reg, &x->n);
	} else if (x->stored) {
		ctrl_lc_apply(&x->n.lc, &x->res);
		registry_set_lc(c->reg, x->n.name, &x->n.lc);
	}
}

/*
 * POST /v1/nodes/{name}/accept: a pending re-enrolment if the node has one,
 * else the pending node itself (the lifecycle engine decides), in one
 * transaction; the registry learns it once it is committed.
 */
void
api_node_accept(struct api_req *rq, struct api_resp *rs)
{
	char reason[API_REASON_MAX + 1] = "";
	struct node_cmd x = { .rq = rq, .rs = rs, .cmd = LC_ACCEPT, .reason = reason };
	struct ctrl *c = rq->c;
	int rc;

	if ((x.r = report_new()) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (command_reason(rq, rs, reason, sizeof(reason)) == -1)
		goto out;
	rc = store_txn(&c->store, accept_locked, &x);
	if (rc == -1)
		api_error(rs, 503, "%s", x.ran ? "the inventory could not store it" :
		    "the inventory is not available");
	if (rc == 0) {
		accept_learn(c, &x);
		respond_node(rq, rs, 0);
	}
out:
	free(x.r);
}
