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
#include "api_server.h"
#include "ctrl.h"
#include "lifecycle.h"
#include "wmon.h"

void
api_nodes_list(struct api_req *rq, struct api_resp *rs)
{
	struct api_node *nodes = NULL;
	int n = 0;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_node_list(rq->c->inv, &nodes, &n);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, api_json_nodes(nodes, n));
	free(nodes);
}

/* 200 with the node (and its report when with_report). */
static void
respond_node(struct api_req *rq, struct api_resp *rs, int with_report)
{
	struct api_node n;
	char *report = NULL;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_node_get(rq->c->inv, rq->param, &n);
	if (rc == 0 && with_report)
		rc = inv_node_report(rq->c->inv, rq->param, &report);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s: no such node", rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, api_json_node(&n, report));
	free(report);
}

void
api_node_show(struct api_req *rq, struct api_resp *rs)
{
	respond_node(rq, rs, 1);
}

void
api_node_remove(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl *c = rq->c;

	if (api_body_none(rq, rs) == -1)
		return;
	pthread_mutex_lock(&c->inv_mu);
	int rc = inv_begin(c->inv);
	if (rc == 0)
		rc = inv_node_remove(c->inv, rq->param);
	if (rc == 0)
		rc = inv_token_supersede(c->inv, rq->param, "");
	if (rc == 0)
		ctrl_event(c, rq->now, rq->actor, rq->param, "removed", "");
	if (rc == 0)
		rc = inv_commit(c->inv);
	if (rc != 0)
		inv_rollback(c->inv);
	pthread_mutex_unlock(&c->inv_mu);
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
 * Decide and apply an operator's command on n; inv_mu held.  0, or an HTTP
 * status with rs filled.
 */
static int
apply_command(struct api_req *rq, struct api_resp *rs, struct reg_node *n,
    enum lc_command cmd, const char *reason)
{
	struct lc_result res;
	char err[300];

	if (lc_on_command(&n->lc, cmd, reason, rq->now, rq->c->unreachable_after, &res, err,
	    sizeof(err)) == -1) {
		int st = cmd == LC_UNCORDON || cmd == LC_ACCEPT || strstr(err, "reason") == NULL ?
		    409 : 400;
		api_error(rs, st, "node %s: %s", n->name, err);
		return st;
	}
	if (ctrl_apply(rq->c, n, &res, rq->now, rq->actor) != 0) {
		api_error(rs, 503, "the inventory could not store it");
		return 503;
	}
	return 0;
}

static void
node_command(struct api_req *rq, struct api_resp *rs, enum lc_command cmd)
{
	char reason[API_REASON_MAX + 1] = "", err[300];
	struct reg_node n;

	if (rq->body_len > 0 && api_json_decode_reason(rq->body, rq->body_len, reason,
	    sizeof(reason), err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	if (registry_get_node(rq->c->reg, rq->param, &n) == -1) {
		pthread_mutex_unlock(&rq->c->inv_mu);
		api_error(rs, 404, "node %s: no such node", rq->param);
		return;
	}
	int rc = apply_command(rq, rs, &n, cmd, reason);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == 0)
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
 * Accept a pending re-enrolment (req): the request's report becomes the
 * node's, its token the node's only one, and the node starts over (no
 * unexpected-reboot flag).  inv_mu held.  0, or an HTTP status with rs filled.
 */
static int
accept_request(struct api_req *rq, struct api_resp *rs, struct reg_node *n,
    const struct inv_enrol_request *req, const char *reason, struct report *r)
{
	struct ctrl *c = rq->c;
	struct inv_node_key key;
	char err[300], why[128];

	if (report_decode(req->json, req->json_len, r, err, sizeof(err)) == -1)
		return api_error(rs, 500, "the request's report cannot be read: %s", err), 500;
	int healthy = lc_report_healthy(r, why, sizeof(why));
	int fresh = rq->now - req->received_at <= c->unreachable_after;
	enum node_state st = n->lc.state;
	int accepted = 0;
	if (st == NODE_READY || st == NODE_UNREACHABLE || st == NODE_PENDING) {
		st = fresh && healthy ? NODE_READY : NODE_PENDING;
		accepted = st == NODE_PENDING;
	}
	const char *state_reason = st == NODE_PENDING ? "accepted; ready at its next healthy "
	    "report" : st == n->lc.state ? n->lc.reason : "";
	if (inv_begin(c->inv) == -1)
		return api_error(rs, 503, "the inventory is not available"), 503;
	if (inv_node_upsert(c->inv, r, req->json, req->json_len, n->name, "", st,
	    req->received_at, &key, err, sizeof(err)) != 0 ||
	    inv_node_set_state(c->inv, n->id, st, state_reason, 0) != 0 ||
	    inv_node_set_accepted(c->inv, n->id, accepted) != 0 ||
	    inv_token_supersede(c->inv, n->name, req->token_id) != 0 ||
	    inv_enrol_requests_drop(c->inv, n->id) != 0)
		goto fail;
	snprintf(err, sizeof(err), "%s%stoken %s replaces the node's other tokens",
	    reason, reason[0] ? "; " : "", req->token_id);
	ctrl_event(c, rq->now, rq->actor, n->name, "re-enrolment accepted", err);
	if (st != n->lc.state) {
		snprintf(err, sizeof(err), "state %s -> %s", api_node_state_str(n->lc.state),
		    api_node_state_str(st));
		ctrl_event(c, rq->now, rq->actor, n->name, err, state_reason);
	}
	if (inv_commit(c->inv) == -1)
		goto fail;
	registry_supersede_node_tokens(c->reg, n->name, req->token_id);
	n->lc.state = st;
	report_strset(n->lc.reason, sizeof(n->lc.reason), state_reason);
	n->lc.accepted = accepted;
	n->lc.unexpected_reboot = 0;
	n->lc.last_report_at = req->received_at;
	n->lc.last_collected_at = r->collected_at;
	n->lc.last_report_healthy = healthy;
	if (!isnan(r->node.boot_time))
		n->lc.boot_time = r->node.boot_time;
	registry_put_node(c->reg, n);
	return 0;
fail:
	inv_rollback(c->inv);
	return api_error(rs, 503, "the inventory could not store it"), 503;
}

/*
 * POST /v1/nodes/{name}/accept: a pending re-enrolment if the node has one,
 * else the pending node itself (the lifecycle engine decides).
 */
void
api_node_accept(struct api_req *rq, struct api_resp *rs)
{
	char reason[API_REASON_MAX + 1] = "", err[300];
	struct inv_enrol_request req;
	struct report *r = report_new();
	struct reg_node n;
	int rc;

	if (r == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (rq->body_len > 0 && api_json_decode_reason(rq->body, rq->body_len, reason,
	    sizeof(reason), err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		goto out;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	if (registry_get_node(rq->c->reg, rq->param, &n) == -1) {
		pthread_mutex_unlock(&rq->c->inv_mu);
		api_error(rs, 404, "node %s: no such node", rq->param);
		goto out;
	}
	rc = inv_enrol_request_latest(rq->c->inv, n.id, &req);
	if (rc == 0) {
		rc = accept_request(rq, rs, &n, &req, reason, r);
		free(req.json);
	} else if (rc == INV_NOTFOUND) {
		rc = apply_command(rq, rs, &n, LC_ACCEPT, reason);
	} else {
		rc = 503;
		api_error(rs, 503, "the inventory is not available");
	}
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == 0)
		respond_node(rq, rs, 0);
out:
	free(r);
}
