/*
 * /v1/nodes: the list, one node with its latest report, removal, and the
 * operator's lifecycle commands (cordon, uncordon, down) through the
 * lifecycle engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_server.h"
#include "ctrl.h"
#include "lifecycle.h"

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

	pthread_mutex_lock(&c->inv_mu);
	int rc = inv_begin(c->inv);
	if (rc == 0)
		rc = inv_node_remove(c->inv, rq->param);
	if (rc == 0)
		rc = inv_token_revoke_node(c->inv, rq->param);
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
	registry_revoke_node_tokens(c->reg, rq->param);
	rs->status = 204;
}

static void
node_command(struct api_req *rq, struct api_resp *rs, enum lc_command cmd)
{
	char reason[API_REASON_MAX + 1] = "", err[300];
	struct lc_result res;
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
	if (lc_on_command(&n.lc, cmd, reason, rq->now, rq->c->unreachable_after, &res, err,
	    sizeof(err)) == -1) {
		pthread_mutex_unlock(&rq->c->inv_mu);
		api_error(rs, cmd == LC_UNCORDON || strstr(err, "reason") == NULL ? 409 : 400,
		    "node %s: %s", n.name, err);
		return;
	}
	int rc = ctrl_apply(rq->c, &n, &res, rq->now, rq->actor);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0) {
		api_error(rs, 503, "the inventory could not store it");
		return;
	}
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
