/*
 * The two routes agents call: POST /v1/enroll (bootstrap token, first
 * report -> a node token) and POST /v1/report (node token, a report ->
 * 204 once it is committed).
 */
#include <math.h>
#include <stdint.h>
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

/*
 * The report as it is stored and served: the body itself when every key in
 * it is the schema's (json_dec_parse refused anything else it could hold:
 * a key given twice, bad UTF-8, a NUL), else the decoded report re-encoded,
 * so that a newer agent's fields are dropped rather than stored unchecked.
 */
struct stored_json {
	const char *json;
	size_t len;
	char *owned;               /* the re-encoding (malloc'd), or NULL */
};

/*
 * Decode and check the report in the body into r (new, or the one this
 * thread keeps) and what to store into sj (sj->owned for the caller to
 * free); 0, or -1 with the error already in rs.
 */
static int
decode_report(struct api_req *rq, struct api_resp *rs, struct report *r, struct stored_json *sj)
{
	char err[300];
	int unknown = 0;

	memset(sj, 0, sizeof(*sj));
	if (report_decode_again(rq->body, rq->body_len, r, &unknown, err, sizeof(err)) == -1) {
		api_error(rs, 400, "bad report: %s", err);
		return -1;
	}
	if (r->node.hardware_uuid[0] == '\0') {
		api_error(rs, 400, "bad report: node.hardware_uuid is required");
		return -1;
	}
	sj->json = rq->body;
	sj->len = rq->body_len;
	if (unknown > 0) {
		if ((sj->owned = report_encode(r, 0)) == NULL) {
			api_error(rs, 503, "out of memory");
			return -1;
		}
		sj->json = sj->owned;
		sj->len = strlen(sj->owned);
	}
	return 0;
}

/*
 * Enrolment.  A bootstrap token proves only that its holder may ask to
 * join, and a hardware UUID is no secret, so what an enrolment may do
 * depends on whether it is approved: the token was made pre-approved
 * (tbctl token create --accept) or the Mac's serial is on the cluster's
 * allow-list.
 *   new Mac, approved       ready (down if its first report is not healthy)
 *   new Mac, not approved   pending until an admin accepts it
 *   known Mac, approved     re-enrolled at once: new token, old ones revoked
 *   known Mac, not approved a pending re-enrolment: the node, its state and
 *                           its tokens stay as they are; the new token's
 *                           reports go to the request until it is accepted
 * A known Mac asking for another cluster than its own gets 409.
 */
struct enrolment {
	const struct report *r;
	struct stored_json sj;     /* what of it is stored */
	int known;                 /* a node has this hardware UUID */
	struct reg_node node;      /* that node */
	api_name cluster;          /* its cluster, or the token's for a new node */
	int approved;
	enum node_state st;        /* the node's state after */
	char state_reason[API_REASON_MAX + 1];  /* and its reason */
	char reason[API_REASON_MAX + 1];        /* the event's */
	struct inv_node_key key;
	struct api_token node_tok;
	uint8_t hash[AUTH_HASH_LEN];
	char token[API_TOKEN_MAX + 1];
};

/* The known node with r's hardware UUID, if any. */
static int
find_known(struct ctrl *c, const struct report *r, struct reg_node *out)
{
	struct reg_node *all;
	int n, found = 0;

	if (registry_nodes(c->reg, &all, &n) == -1)
		return 0;
	for (int i = 0; i < n && !found; i++)
		if (strcmp(all[i].hardware_uuid, r->node.hardware_uuid) == 0) {
			*out = all[i];
			found = 1;
		}
	free(all);
	return found;
}

/*
 * The node's state after an enrolment: pending until accepted; a known node
 * that is not pending keeps its state and reason, but an unreachable one is
 * ready again when the report is current and healthy; else ready, or down
 * when the report is not healthy.
 */
static void
enroll_state(struct enrolment *e, int current)
{
	char why[128];

	if (!e->approved) {
		e->st = NODE_PENDING;
		snprintf(e->state_reason, sizeof(e->state_reason),
		    "awaiting acceptance: tbctl node accept %.63s", e->r->node.hostname);
	} else if (e->known && e->node.lc.state == NODE_UNREACHABLE && current &&
	    lc_report_healthy(e->r, why, sizeof(why))) {
		e->st = NODE_READY;   /* back, as a current healthy report brings it */
	} else if (e->known && e->node.lc.state != NODE_PENDING) {
		e->st = e->node.lc.state;
		memcpy(e->state_reason, e->node.lc.reason, sizeof(e->state_reason));
	} else if (!lc_report_healthy(e->r, why, sizeof(why))) {
		e->st = NODE_DOWN;
		snprintf(e->state_reason, sizeof(e->state_reason),
		    "first report not healthy: %s", why);
	} else {
		e->st = NODE_READY;
	}
	if (e->reason[0] == '\0')
		memcpy(e->reason, e->state_reason, sizeof(e->reason));
}

/*
 * Who the enrolling Mac is and whether it is approved (inv: the
 * enrolment's transaction).  0, or an HTTP status with rs filled (nothing
 * changed).
 */
static int
enroll_classify(struct inv *inv, struct api_req *rq, struct api_resp *rs, struct enrolment *e)
{
	struct ctrl *c = rq->c;
	struct api_node cur;

	memcpy(e->cluster, rq->who.cluster, sizeof(e->cluster));
	if ((e->known = find_known(c, e->r, &e->node))) {
		if (inv_node_get(inv, e->node.name, &cur) != 0)
			return api_error(rs, 503, "the inventory is not available"), 503;
		if (rq->who.cluster[0] != '\0' && strcmp(rq->who.cluster, cur.cluster) != 0)
			return api_error(rs, 409, "this Mac is node %s, in %s%s; this bootstrap "
			    "token is for cluster %s: move it with tbctl cluster add", cur.name,
			    cur.cluster[0] ? "cluster " : "no cluster", cur.cluster,
			    rq->who.cluster), 409;
		memcpy(e->cluster, cur.cluster, sizeof(e->cluster));
	}
	int allowed = inv_cluster_allows(inv, e->cluster, e->r->node.serial);
	if (allowed < 0)
		return api_error(rs, 503, "the inventory is not available"), 503;
	e->approved = rq->who.accept || allowed;
	if (e->approved)
		snprintf(e->reason, sizeof(e->reason), rq->who.accept ?
		    "accepted: pre-approved bootstrap token %s" :
		    "accepted: serial %.64s is on cluster %s's allow-list",
		    rq->who.accept ? rq->who.id : e->r->node.serial, e->cluster);
	enroll_state(e, lc_report_time(&e->node.lc, e->r->collected_at, rq->now,
	    c->unreachable_after) == LC_REPORT_CURRENT);
	return 0;
}

/* A new node token for e's node (pending: for a request), stored in inv. */
static int
make_node_token(struct inv *inv, struct api_req *rq, struct enrolment *e, const char *node,
    int pending)
{
	if (auth_token_new(e->node_tok.id, e->token, e->hash) == -1)
		return -1;
	e->node_tok.role = ROLE_NODE;
	memcpy(e->node_tok.node, node, sizeof(e->node_tok.node));
	memcpy(e->node_tok.cluster, e->cluster, sizeof(e->node_tok.cluster));
	e->node_tok.created_at = rq->now;
	e->node_tok.expires_at = NAN;
	e->node_tok.used_at = NAN;
	e->node_tok.pending = pending;
	return inv_token_add(inv, &e->node_tok, e->hash);
}

/* A known Mac, not approved: record the request, change nothing of the node. */
static int
enroll_request(struct inv *inv, struct api_req *rq, struct enrolment *e)
{
	struct ctrl *c = rq->c;
	char why[API_REASON_MAX + 1];

	e->key.id = e->node.id;
	memcpy(e->key.name, e->node.name, sizeof(e->key.name));
	if (make_node_token(inv, rq, e, e->node.name, 1) != 0 ||
	    inv_enrol_request_put(inv, e->node_tok.id, e->node.id, rq->now, e->sj.json,
	    e->sj.len) != 0)
		return -1;
	snprintf(why, sizeof(why), "hardware UUID %.40s, serial %.20s, bootstrap token %s; "
	    "nothing changes until tbctl node accept %s",
	    e->r->node.hardware_uuid, e->r->node.serial[0] ? e->r->node.serial : "unknown",
	    rq->who.id, e->node.name);
	ctrl_event(c, rq->now, rq->actor, e->node.name, "re-enrolment pending", why);
	return 0;
}

/* A new Mac, or a known one that is approved: store the node and its token. */
static int
enroll_node(struct inv *inv, struct api_req *rq, struct api_resp *rs, struct enrolment *e)
{
	struct ctrl *c = rq->c;
	char err[256];
	int rc;

	rc = inv_node_upsert(inv, e->r, e->sj.json, e->sj.len, e->r->node.hostname,
	    e->cluster, e->st, rq->now, &e->key, err, sizeof(err));
	if (rc != 0) {
		int st = rc == INV_CONFLICT ? 409 : rc == INV_NOTFOUND ? 404 : 503;
		return api_error(rs, st, "%s", err), st;
	}
	/* a re-enrolment starts the node's boot-time history over: no flag */
	if (inv_node_set_state(inv, e->key.id, e->st, e->state_reason, 0) != 0 ||
	    inv_enrol_requests_drop(inv, e->key.id) != 0 ||
	    make_node_token(inv, rq, e, e->key.name, 0) != 0 ||
	    inv_token_supersede(inv, e->key.name, e->node_tok.id) != 0)
		return api_error(rs, 503, "the inventory could not store the enrolment"), 503;
	ctrl_event(c, rq->now, rq->actor, e->key.name, e->known ? "re-enrolled" : "enrolled",
	    e->reason);
	if (e->known && e->st != e->node.lc.state) {
		char what[64];
		snprintf(what, sizeof(what), "state %s -> %s", api_node_state_str(e->node.lc.state),
		    api_node_state_str(e->st));
		ctrl_event(c, rq->now, rq->actor, e->key.name, what, "re-enrolled with a current "
		    "healthy report");
	}
	if (!e->known && e->cluster[0] != '\0')   /* a known node's cannot change here */
		ctrl_event(c, rq->now, rq->actor, e->key.name, "joined cluster", e->cluster);
	return 0;
}

struct enrol_tx {
	struct api_req *rq;
	struct api_resp *rs;
	struct enrolment *e;
};

/*
 * store_fn: the enrolment's transaction.  0, or an HTTP status with rs
 * filled (rolled back).
 */
static int
enroll_tx(struct inv *inv, void *arg)
{
	struct enrol_tx *x = arg;
	struct api_req *rq = x->rq;
	struct api_resp *rs = x->rs;
	struct enrolment *e = x->e;
	int rc;

	if ((rc = enroll_classify(inv, rq, rs, e)) != 0)
		return rc;
	if ((rc = inv_token_use(inv, rq->who.id, rq->now)) != 0) {
		if (rc == INV_CONFLICT)
			return api_error(rs, 401, "this bootstrap token was already used"), 401;
		return api_error(rs, 503, "the inventory is not available"), 503;
	}
	if (!e->known || e->approved)
		return enroll_node(inv, rq, rs, e);
	if (enroll_request(inv, rq, e) != 0)
		return api_error(rs, 503, "the inventory could not store the enrolment"), 503;
	return 0;
}

/* After the commit: the registry learns what was stored. */
static void
enroll_register(struct api_req *rq, struct enrolment *e)
{
	struct ctrl *c = rq->c;
	struct api_token boot = rq->who;
	uint8_t bh[AUTH_HASH_LEN];
	char bid[API_TOKEN_ID_LEN + 1];

	boot.used_at = rq->now;
	if (auth_token_parse(rq->token, bid, bh) == 0)
		registry_put_token(c->reg, &boot, bh);
	if (e->known && !e->approved) {
		registry_put_token(c->reg, &e->node_tok, e->hash);
		return;
	}
	registry_put_token(c->reg, &e->node_tok, e->hash);
	registry_supersede_node_tokens(c->reg, e->key.name, e->node_tok.id);
	struct reg_node rn = { .id = e->key.id };
	memcpy(rn.name, e->key.name, sizeof(rn.name));
	memcpy(rn.hardware_uuid, e->r->node.hardware_uuid, sizeof(rn.hardware_uuid));
	rn.lc.state = e->st;
	memcpy(rn.lc.reason, e->state_reason, sizeof(rn.lc.reason));
	rn.lc.boot_time = e->r->node.boot_time;
	rn.lc.last_report_at = rq->now;
	rn.lc.last_collected_at = e->r->collected_at;
	char why[128];
	rn.lc.last_report_healthy = lc_report_healthy(e->r, why, sizeof(why));
	registry_put_node(c->reg, &rn);
}

void
api_enroll(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl *c = rq->c;
	struct enrolment *e = calloc(1, sizeof(*e));
	struct report *r = report_new();

	if (e == NULL || r == NULL || decode_report(rq, rs, r, &e->sj) == -1)
		goto out;
	e->r = r;
	struct lc_node fresh = { .last_collected_at = NAN };
	enum lc_report_time when;
	char err[300];
	int st = ingest_report_time(&fresh, rq->who.node, r->collected_at, rq->now,
	    c->unreachable_after, &when, err, sizeof(err));
	if (st != 0) {
		api_error(rs, st, "%s", err);
		goto out;
	}
	if (!api_name_valid(r->node.hostname)) {
		api_error(rs, 400, "bad report: node.hostname \"%s\" is not a valid node name "
		    "(start the agent with --name)", r->node.hostname);
		goto out;
	}
	struct enrol_tx x = { rq, rs, e };
	if ((st = store_txn(&c->store, enroll_tx, &x)) == -1)   /* not begun or committed */
		api_error(rs, 503, "the inventory could not store the enrolment");
	if (st != 0)
		goto out;
	enroll_register(rq, e);
	atomic_fetch_add(&c->ctr.enrollments, 1);
	struct api_enrolled out = { .state = e->known && !e->approved ? NODE_PENDING : e->st };
	memcpy(out.node, e->key.name, sizeof(out.node));
	memcpy(out.token, e->token, sizeof(out.token));
	api_body(rs, 201, api_json_enrolled(&out));
out:
	if (e != NULL)
		free(e->sj.owned);
	free(r);
	free(e);
}

struct request_put {
	const char *token_id;
	int64_t node_id;
	double now;
	const struct stored_json *sj;
};

/* store_fn: keep the report with the pending re-enrolment's request. */
static int
request_put(struct inv *inv, void *arg)
{
	const struct request_put *a = arg;

	return inv_enrol_request_put(inv, a->token_id, a->node_id, a->now, a->sj->json,
	    a->sj->len);
}

/*
 * A report with the token of a pending re-enrolment: it is kept with the
 * request (the latest only) and changes nothing of the node.  202.
 */
static void
report_to_request(struct api_req *rq, struct api_resp *rs, const struct report *r,
    const struct stored_json *sj)
{
	struct ctrl *c = rq->c;
	struct reg_node n;
	char err[384];
	int st;

	if ((st = ingest_node_check(c, rq->who.node, r->node.hardware_uuid, &n, err,
	    sizeof(err))) != 0) {
		api_error(rs, st, "%s", err);
		return;
	}
	struct request_put a = { rq->who.id, n.id, rq->now, sj };
	if (store_with(&c->store, request_put, &a) != 0) {
		api_error(rs, 503, "the inventory could not store it");
		return;
	}
	api_body(rs, 202, api_json_reason("re-enrolment pending: reports are kept with the "
	    "request until an admin accepts it (tbctl node accept)"));
}

/*
 * To the ingest writer, which checks the report against its node and
 * stores it: the item carries its summary and the body, which stays the
 * connection's until the item is done.
 */
static void
report_submit(struct api_req *rq, struct api_resp *rs, const struct report *r,
    struct stored_json *sj)
{
	struct ingest_item *it;
	char why[128];

	if ((it = ingest_item_new(rq->c->ingest)) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	inv_report_summarize(r, &it->sum);
	/* a hash; more only when wiring changed; applied once stored */
	it->wiring = wmon_stage(rq->c->wmon, rq->who.node, r);
	it->healthy = lc_report_healthy(r, why, sizeof(why));
	it->json = sj->json;
	it->json_len = sj->len;
	it->json_owned = sj->owned;
	sj->owned = NULL;
	memcpy(it->node, rq->who.node, sizeof(it->node));
	memcpy(it->hardware_uuid, r->node.hardware_uuid, sizeof(it->hardware_uuid));
	it->received_at = rq->now;
	rs->async = it;
}

/*
 * Decoded here, in the HTTP thread's own report (a report is tens of
 * kilobytes, and report_decode_again clears only what the last one used).
 */
void
api_report(struct api_req *rq, struct api_resp *rs)
{
	static _Thread_local struct report r;
	struct stored_json sj;

	if (decode_report(rq, rs, &r, &sj) == -1)
		return;
	if (!api_name_valid(r.node.hostname))
		/* as enrolment checks it: "../../etc" is no node name */
		api_error(rs, 400, "bad report: node.hostname \"%.64s\" is not a valid node name",
		    r.node.hostname);
	else if (rq->who.pending)
		report_to_request(rq, rs, &r, &sj);
	else
		report_submit(rq, rs, &r, &sj);
	free(sj.owned);
}
