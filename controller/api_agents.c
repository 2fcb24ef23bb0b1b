/*
 * The two routes agents call: POST /v1/enroll (bootstrap token, first
 * report -> a node token) and POST /v1/report (node token, a report ->
 * 204 once it is committed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_server.h"
#include "auth.h"
#include "ctrl.h"
#include "ingest.h"
#include "lifecycle.h"
#include "log.h"
#include "wmon.h"

/* Decode and check the report in the body; 0, or an error already in rs. */
/*
 * The body is stored as received, so it must be strict JSON: no NUL, and no
 * raw control character inside a string (JSON forbids them; the parser
 * lets them through).  Returns the offset of the first offence, or -1.
 */
static long
raw_control_at(const char *s, size_t n)
{
	int in_str = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\0')
			return (long)i;
		if (!in_str) {
			in_str = c == '"';
		} else if (c == '\\') {
			i++;
		} else if (c == '"') {
			in_str = 0;
		} else if (c < 0x20) {
			return (long)i;
		}
	}
	return -1;
}

static int
decode_report(struct api_req *rq, struct api_resp *rs, struct report *r)
{
	char err[300];
	long at = raw_control_at(rq->body, rq->body_len);

	if (at >= 0) {
		api_error(rs, 400, "bad report: a control character at byte %ld (not JSON)", at);
		return -1;
	}

	if (report_decode(rq->body, rq->body_len, r, err, sizeof(err)) == -1) {
		api_error(rs, 400, "bad report: %s", err);
		return -1;
	}
	if (r->node.hardware_uuid[0] == '\0') {
		api_error(rs, 400, "bad report: node.hardware_uuid is required");
		return -1;
	}
	return 0;
}

/* The state an enrolling node takes: what it had, or ready/down for a new one. */
static enum node_state
enroll_state(struct ctrl *c, const struct report *r, char *reason, size_t reasonlen)
{
	struct reg_node *all;
	enum node_state st = NODE_READY;
	char why[128];
	int n;

	reason[0] = '\0';
	if (!lc_report_healthy(r, why, sizeof(why))) {
		st = NODE_DOWN;
		snprintf(reason, reasonlen, "first report not healthy: %s", why);
	}
	if (registry_nodes(c->reg, &all, &n) == -1)
		return st;
	for (int i = 0; i < n; i++)
		if (strcmp(all[i].hardware_uuid, r->node.hardware_uuid) == 0)
			st = all[i].lc.state;
	free(all);
	return st;
}

struct enrolment {
	const struct report *r;
	enum node_state st;
	char reason[API_REASON_MAX + 1];
	struct inv_node_key key;
	struct api_token node_tok;
	uint8_t hash[AUTH_HASH_LEN];
	char token[API_TOKEN_MAX + 1];
};

/* The enrolment's transaction; inv_mu held.  0, or an HTTP status with rs filled. */
static int
enroll_tx(struct api_req *rq, struct api_resp *rs, struct enrolment *e)
{
	struct ctrl *c = rq->c;
	char err[256];
	int rc;

	if (inv_begin(c->inv) == -1)
		return api_error(rs, 503, "the inventory is not available"), 503;
	if ((rc = inv_token_use(c->inv, rq->who.id, rq->now)) != 0) {
		inv_rollback(c->inv);
		if (rc == INV_CONFLICT)
			return api_error(rs, 401, "this bootstrap token was already used"), 401;
		return api_error(rs, 503, "the inventory is not available"), 503;
	}
	rc = inv_node_upsert(c->inv, e->r, rq->body, rq->body_len, e->r->node.hostname,
	    rq->who.cluster, e->st, rq->now, &e->key, err, sizeof(err));
	if (rc != 0) {
		inv_rollback(c->inv);
		int st = rc == INV_CONFLICT ? 409 : rc == INV_NOTFOUND ? 404 : 503;
		return api_error(rs, st, "%s", err), st;
	}
	if (e->reason[0] && inv_node_set_state(c->inv, e->key.id, e->st, e->reason, 0) == -1)
		goto fail;
	if (inv_token_revoke_node(c->inv, e->key.name) == -1 ||
	    auth_token_new(e->node_tok.id, e->token, e->hash) == -1)
		goto fail;
	e->node_tok.role = ROLE_NODE;
	memcpy(e->node_tok.node, e->key.name, sizeof(e->node_tok.node));
	memcpy(e->node_tok.cluster, rq->who.cluster, sizeof(e->node_tok.cluster));
	e->node_tok.created_at = rq->now;
	e->node_tok.expires_at = NAN;
	e->node_tok.used_at = NAN;
	if (inv_token_add(c->inv, &e->node_tok, e->hash) == -1)
		goto fail;
	ctrl_event(c, rq->now, rq->actor, e->key.name, "enrolled", e->reason);
	if (inv_commit(c->inv) == -1)
		goto fail;
	return 0;
fail:
	inv_rollback(c->inv);
	return api_error(rs, 503, "the inventory could not store the enrolment"), 503;
}

void
api_enroll(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl *c = rq->c;
	struct enrolment *e = calloc(1, sizeof(*e));
	struct report *r = report_new();

	if (e == NULL || r == NULL || decode_report(rq, rs, r) == -1)
		goto out;
	e->r = r;
	if (!api_name_valid(r->node.hostname)) {
		api_error(rs, 400, "bad report: node.hostname \"%s\" is not a valid node name "
		    "(start the agent with --name)", r->node.hostname);
		goto out;
	}
	e->st = enroll_state(c, r, e->reason, sizeof(e->reason));
	pthread_mutex_lock(&c->inv_mu);
	int st = enroll_tx(rq, rs, e);
	pthread_mutex_unlock(&c->inv_mu);
	if (st != 0)
		goto out;
	struct api_token boot = rq->who;
	boot.used_at = rq->now;
	uint8_t bh[AUTH_HASH_LEN];
	char bid[API_TOKEN_ID_LEN + 1];
	auth_token_parse(rq->token, bid, bh);
	registry_put_token(c->reg, &boot, bh);
	registry_revoke_node_tokens(c->reg, e->key.name);
	registry_put_token(c->reg, &e->node_tok, e->hash);
	struct reg_node rn = { .id = e->key.id };
	memcpy(rn.name, e->key.name, sizeof(rn.name));
	memcpy(rn.hardware_uuid, r->node.hardware_uuid, sizeof(rn.hardware_uuid));
	rn.lc.state = e->st;
	rn.lc.boot_time = r->node.boot_time;
	rn.lc.last_report_at = rq->now;
	rn.lc.last_report_healthy = e->reason[0] == '\0';
	registry_put_node(c->reg, &rn);
	atomic_fetch_add(&c->ctr.enrollments, 1);
	struct api_enrolled out = { 0 };
	memcpy(out.node, e->key.name, sizeof(out.node));
	memcpy(out.token, e->token, sizeof(out.token));
	api_body(rs, 201, api_json_enrolled(&out));
out:
	free(r);
	free(e);
}

/*
 * Decoded here, in the HTTP thread's own report (a report is tens of
 * kilobytes): the writer gets the item's summary and the body, which stays
 * the connection's until the item is done.
 */
void
api_report(struct api_req *rq, struct api_resp *rs)
{
	static _Thread_local struct report r;
	struct ingest_item *it;
	struct reg_node n;
	char why[128];

	if (decode_report(rq, rs, &r) == -1)
		return;
	if (registry_get_node(rq->c->reg, rq->who.node, &n) == -1) {
		api_error(rs, 404, "node %s is not in the inventory (removed?)", rq->who.node);
		return;
	}
	if (strcmp(n.hardware_uuid, r.node.hardware_uuid) != 0) {
		api_error(rs, 403, "this token is node %s's; the report is from another Mac "
		    "(hardware %s)", n.name, r.node.hardware_uuid);
		return;
	}
	if ((it = ingest_item_new(rq->c->ingest)) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	inv_report_summarize(&r, &it->sum);
	wmon_report(rq->c->wmon, n.name, &r);   /* a hash; more only when wiring changed */
	it->healthy = lc_report_healthy(&r, why, sizeof(why));
	it->json = rq->body;
	it->json_len = rq->body_len;
	memcpy(it->node, n.name, sizeof(n.name));
	it->received_at = rq->now;
	rs->async = it;
}
