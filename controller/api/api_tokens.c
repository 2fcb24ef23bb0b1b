/*
 * /v1/tokens: create (the secret is shown once, in the answer), list (never
 * secrets), revoke.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_json.h"
#include "api_read.h"
#include "api_server.h"
#include "auth.h"
#include "ctrl.h"
#include "store.h"

struct token_add {
	struct api_req *rq;
	const struct api_token *t;
	const uint8_t *hash;
};

/*
 * store_fn: the token, when its cluster (if it names one) exists, with its
 * event.  0 or an INV_ code.
 */
static int
token_add(struct inv *inv, void *arg)
{
	struct token_add *a = arg;
	struct api_req *rq = a->rq;
	struct api_cluster cl;
	int rc = 0;

	if (a->t->cluster[0] && inv_cluster_get(inv, a->t->cluster, &cl) != 0)
		rc = INV_NOTFOUND;
	if (rc == 0)
		rc = inv_token_add(inv, a->t, a->hash);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", a->t->accept ?
		    "pre-approved bootstrap token created" : "token created", a->t->id);
	return rc;
}

void
api_tokens_create(struct api_req *rq, struct api_resp *rs)
{
	struct api_token_request req;
	struct api_token t = { 0 };
	char err[300], token[API_TOKEN_MAX + 1];
	uint8_t hash[AUTH_HASH_LEN];

	if (api_json_decode_token_request(rq->body, rq->body_len, &req, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (auth_token_new(t.id, token, hash) == -1) {
		api_error(rs, 503, "could not make a token");
		return;
	}
	t.role = req.role;
	t.accept = req.accept;
	memcpy(t.cluster, req.cluster, sizeof(t.cluster));
	memcpy(t.label, req.label, sizeof(t.label));
	t.created_at = rq->now;
	t.expires_at = isnan(req.ttl_seconds) ? NAN : rq->now + req.ttl_seconds;
	t.used_at = NAN;
	struct token_add a = { rq, &t, hash };
	int rc = store_with(&rq->c->store, token_add, &a);
	if (rc == INV_NOTFOUND) {
		api_error(rs, 404, "cluster %s: no such cluster", t.cluster);
		return;
	}
	if (rc != 0) {
		api_error(rs, 503, "the inventory could not store the token");
		return;
	}
	registry_put_token(rq->c->reg, &t, hash);
	api_body(rs, 201, api_json_token(&t, token));
}

void
api_tokens_list(struct api_req *rq, struct api_resp *rs)
{
	api_read_answer(rq, rs, API_READ_TOKENS);
}

/* INV_CONFLICT when id is the last admin token that works: nobody could get in again. */
static int
last_admin(struct inv *inv, const char *id)
{
	struct api_token t;
	uint8_t hash[AUTH_HASH_LEN];

	if (inv_token_get(inv, id, &t, hash) != 0 || t.role != ROLE_ADMIN || t.revoked)
		return 0;
	return inv_token_count(inv, ROLE_ADMIN) <= 1 ? INV_CONFLICT : 0;
}

/*
 * store_fn: revoke the token rq->param, with its event; INV_CONFLICT when
 * it is the last admin token, INV_NOTFOUND.
 */
static int
token_revoke(struct inv *inv, void *arg)
{
	struct api_req *rq = arg;
	int rc = last_admin(inv, rq->param);

	if (rc == 0)
		rc = inv_token_revoke(inv, rq->param);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", "token revoked", rq->param);
	return rc;
}

void
api_tokens_revoke(struct api_req *rq, struct api_resp *rs)
{
	if (api_body_none(rq, rs) == -1)
		return;
	int rc = store_with(&rq->c->store, token_revoke, rq);
	if (rc == INV_NOTFOUND) {
		api_error(rs, 404, "token %s: no such token", rq->param);
		return;
	}
	if (rc == INV_CONFLICT) {
		api_error(rs, 409, "token %s is the last admin token; create another one first",
		    rq->param);
		return;
	}
	if (rc != 0) {
		api_error(rs, 503, "the inventory could not revoke it");
		return;
	}
	registry_revoke_token(rq->c->reg, rq->param);
	rs->status = 204;
}
