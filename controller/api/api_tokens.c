/*
 * /v1/tokens: create (the secret is shown once, in the answer), list (never
 * secrets), revoke.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_json.h"
#include "api_server.h"
#include "auth.h"
#include "ctrl.h"

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
	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = 0;
	struct api_cluster cl;
	if (t.cluster[0] && inv_cluster_get(rq->c->inv, t.cluster, &cl) != 0)
		rc = INV_NOTFOUND;
	if (rc == 0)
		rc = inv_token_add(rq->c->inv, &t, hash);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", t.accept ?
		    "pre-approved bootstrap token created" : "token created", t.id);
	pthread_mutex_unlock(&rq->c->inv_mu);
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
	struct api_token *t = NULL;
	int n = 0;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_token_list(rq->c->inv, &t, &n);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, api_json_tokens(t, n));
	free(t);
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

void
api_tokens_revoke(struct api_req *rq, struct api_resp *rs)
{
	if (api_body_none(rq, rs) == -1)
		return;
	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = last_admin(rq->c->inv, rq->param);
	if (rc == 0)
		rc = inv_token_revoke(rq->c->inv, rq->param);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, "", "token revoked", rq->param);
	pthread_mutex_unlock(&rq->c->inv_mu);
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
