/*
 * A node's SSH access and the credentials its updates use:
 *   POST /v1/nodes/{name}/ssh      {"host","port","user"}: where to SSH to
 *   GET  /v1/nodes/{name}/ssh      the address and the pinned host key
 *   POST /v1/nodes/{name}/trust    {"fingerprint":"SHA256:..."}: pin it
 *   POST /v1/credentials           {"node"|"cluster","user","password"}
 * The password goes to credentials.c and never comes back out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_server.h"
#include "credentials.h"
#include "ctrl.h"
#include "rollout_api.h"
#include "ssh.h"
#include "store.h"

/*
 * A change to the SSH access of the node rq->param, and the access as it
 * is after it, read under the same hold of the lock.
 */
struct ssh_change {
	struct api_req *rq;
	int (*change)(struct inv *inv, struct ssh_change *x);  /* 0 or an INV_ code; NULL none */
	const char *fp;          /* trust: the host key's fingerprint */
	struct ro_ssh s;         /* the address to set; out: the node's access after */
};

/* store_fn: x->change, then the node's access into x->s.  0 or an INV_ code. */
static int
ssh_changed(struct inv *inv, void *arg)
{
	struct ssh_change *x = arg;
	int rc = x->change != NULL ? x->change(inv, x) : 0;

	return rc != 0 ? rc : inv_ssh_get(inv, x->rq->param, &x->s);
}

/*
 * Run x, and answer with the node's access; or 404 with notfound, or 503
 * with failed.
 */
static void
ssh_answer(struct api_req *rq, struct api_resp *rs, struct ssh_change *x,
    const char *notfound, const char *failed)
{
	int rc = store_with(&rq->c->store, ssh_changed, x);

	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "%s", notfound);
	else if (rc != 0)
		api_error(rs, 503, "%s", failed);
	else
		api_body(rs, 200, ro_json_ssh(&x->s));
}

/* The address x->s, with its event. */
static int
address_set(struct inv *inv, struct ssh_change *x)
{
	struct api_req *rq = x->rq;
	int rc = inv_ssh_set(inv, &x->s);

	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, x->s.node, "ssh-address", x->s.host);
	return rc;
}

void
api_node_ssh_set(struct api_req *rq, struct api_resp *rs)
{
	struct ssh_change x = { .rq = rq, .change = address_set };
	char err[300], notfound[256];

	if (ro_json_decode_ssh_request(rq->body, rq->body_len, &x.s, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	snprintf(x.s.node, sizeof(x.s.node), "%s", rq->param);
	snprintf(notfound, sizeof(notfound), "node %s: no such node", rq->param);
	ssh_answer(rq, rs, &x, notfound, "the inventory could not store it");
}

void
api_node_ssh_get(struct api_req *rq, struct api_resp *rs)
{
	struct ssh_change x = { .rq = rq };
	char notfound[256];

	snprintf(notfound, sizeof(notfound), "node %s has no SSH address", rq->param);
	ssh_answer(rq, rs, &x, notfound, "the inventory is not available");
}

/* Pin x->fp as the node's host key, with its event. */
static int
key_trust(struct inv *inv, struct ssh_change *x)
{
	struct api_req *rq = x->rq;
	int rc = inv_ssh_trust(inv, rq->param, x->fp, rq->now);

	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, rq->param, "host-key-trusted", x->fp);
	return rc;
}

void
api_node_trust(struct api_req *rq, struct api_resp *rs)
{
	char fp[RO_FP_MAX + 1], err[300], notfound[256];
	struct ssh_change x = { .rq = rq, .change = key_trust, .fp = fp };

	if (ro_json_decode_fingerprint(rq->body, rq->body_len, fp, sizeof(fp), err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (!ssh_fp_valid(fp)) {
		api_error(rs, 400, "\"%s\" is not a SHA256:<base64> host key fingerprint", fp);
		return;
	}
	snprintf(notfound, sizeof(notfound), "node %s has no SSH address (tbctl node ssh %s "
	    "--host HOST)", rq->param, rq->param);
	ssh_answer(rq, rs, &x, notfound, "the inventory could not store it");
}

struct cred_set {
	struct api_req *rq;
	const struct ro_credentials *cr;
	const char *scope;       /* "node:NAME" or "cluster:NAME" */
	char err[300];           /* out: why the password could not be stored (-2) */
};

/*
 * store_fn: the password (credentials.c) and the user of a node or cluster
 * that exists, with its event.  0, an INV_ code, or -2 (the password could
 * not be stored).
 */
static int
cred_set(struct inv *inv, void *arg)
{
	struct cred_set *x = arg;
	const struct ro_credentials *cr = x->cr;
	struct api_req *rq = x->rq;
	struct api_node n;
	struct api_cluster cl;

	int rc = cr->node[0] ? inv_node_get(inv, cr->node, &n) :
	    inv_cluster_get(inv, cr->cluster, &cl);
	if (rc == 0 && cred_store(rq->c->state_dir, x->scope, cr->password, x->err,
	    sizeof(x->err)) == -1)
		rc = -2;
	if (rc == 0)
		rc = inv_cred_set(inv, x->scope, cr->user, rq->now);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, cr->node, "credentials-set", x->scope);
	return rc;
}

void
api_credentials_set(struct api_req *rq, struct api_resp *rs)
{
	struct ro_credentials cr;
	char scope[128];
	struct cred_set x = { .rq = rq, .cr = &cr, .scope = scope };

	if (ro_json_decode_credentials(rq->body, rq->body_len, &cr, x.err, sizeof(x.err)) == -1) {
		cred_wipe(cr.password, sizeof(cr.password));
		api_error(rs, 400, "%s", x.err);
		return;
	}
	snprintf(scope, sizeof(scope), "%s:%s", cr.node[0] ? "node" : "cluster",
	    cr.node[0] ? cr.node : cr.cluster);
	int rc = store_with(&rq->c->store, cred_set, &x);
	cred_wipe(cr.password, sizeof(cr.password));
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "%s: no such %s", scope + (cr.node[0] ? 5 : 8),
		    cr.node[0] ? "node" : "cluster");
	else if (rc == -2)
		api_error(rs, 500, "%s", x.err);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, ro_json_credentials_stored(scope, cr.user));
}
