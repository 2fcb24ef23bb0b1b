/*
 * SSH access, update credentials and OS update campaigns over the API:
 *   POST /v1/nodes/{name}/ssh      {"host","port","user"}: where to SSH to
 *   GET  /v1/nodes/{name}/ssh      the address and the pinned host key
 *   POST /v1/nodes/{name}/trust    {"fingerprint":"SHA256:..."}: pin it
 *   POST /v1/credentials           {"node"|"cluster","user","password"}
 *   POST /v1/rollouts              start a campaign (or a dry run)
 *   GET  /v1/rollouts, GET /v1/rollouts/{id}
 *   POST /v1/rollouts/{id}/pause|resume|abort, /retry {"node"}
 * The password goes to credentials.c and never comes back out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_server.h"
#include "credentials.h"
#include "ctrl.h"
#include "natcmp.h"
#include "placement_ctrl.h"
#include "rollout.h"
#include "rollout_run.h"
#include "ssh.h"

void
api_node_ssh_set(struct api_req *rq, struct api_resp *rs)
{
	char err[300];
	struct ro_ssh s;
	int rc;

	if (ro_json_decode_ssh_request(rq->body, rq->body_len, &s, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	snprintf(s.node, sizeof(s.node), "%s", rq->param);
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = inv_ssh_set(rq->c->inv, &s);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, s.node, "ssh-address", s.host);
	if (rc == 0)
		rc = inv_ssh_get(rq->c->inv, rq->param, &s);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s: no such node", rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, ro_json_ssh(&s));
}

void
api_node_ssh_get(struct api_req *rq, struct api_resp *rs)
{
	struct ro_ssh s;

	pthread_mutex_lock(&rq->c->inv_mu);
	int rc = inv_ssh_get(rq->c->inv, rq->param, &s);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s has no SSH address", rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, ro_json_ssh(&s));
}

void
api_node_trust(struct api_req *rq, struct api_resp *rs)
{
	char fp[RO_FP_MAX + 1], err[300];
	struct ro_ssh s;
	int rc;

	if (ro_json_decode_fingerprint(rq->body, rq->body_len, fp, sizeof(fp), err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (!ssh_fp_valid(fp)) {
		api_error(rs, 400, "\"%s\" is not a SHA256:<base64> host key fingerprint", fp);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = inv_ssh_trust(rq->c->inv, rq->param, fp, rq->now);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, rq->param, "host-key-trusted", fp);
	if (rc == 0)
		rc = inv_ssh_get(rq->c->inv, rq->param, &s);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s has no SSH address (tbctl node ssh %s --host HOST)",
		    rq->param, rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, ro_json_ssh(&s));
}

void
api_credentials_set(struct api_req *rq, struct api_resp *rs)
{
	struct ro_credentials cr;
	struct api_node n;
	struct api_cluster cl;
	char err[300], scope[128];
	int rc;

	if (ro_json_decode_credentials(rq->body, rq->body_len, &cr, err, sizeof(err)) == -1) {
		cred_wipe(cr.password, sizeof(cr.password));
		api_error(rs, 400, "%s", err);
		return;
	}
	snprintf(scope, sizeof(scope), "%s:%s", cr.node[0] ? "node" : "cluster",
	    cr.node[0] ? cr.node : cr.cluster);
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = cr.node[0] ? inv_node_get(rq->c->inv, cr.node, &n) :
	    inv_cluster_get(rq->c->inv, cr.cluster, &cl);
	if (rc == 0 && cred_store(rq->c->state_dir, scope, cr.password, err, sizeof(err)) == -1)
		rc = -2;
	if (rc == 0)
		rc = inv_cred_set(rq->c->inv, scope, cr.user, rq->now);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, cr.node, "credentials-set", scope);
	pthread_mutex_unlock(&rq->c->inv_mu);
	cred_wipe(cr.password, sizeof(cr.password));
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "%s: no such %s", scope + (cr.node[0] ? 5 : 8),
		    cr.node[0] ? "node" : "cluster");
	else if (rc == -2)
		api_error(rs, 500, "%s", err);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, ro_json_credentials_stored(scope, cr.user));
}

static int
node_name_cmp(const void *a, const void *b)
{
	return proto_natcmp(((const struct ro_node *)a)->node, ((const struct ro_node *)b)->node);
}

/* The cluster's nodes into camp (in natural order of names: mac2 before mac10); 0, INV_NOTFOUND, -1, or -2 (too many). */
static int
campaign_nodes(struct ctrl *c, struct ro_campaign *camp, double now)
{
	struct api_node *nodes = NULL;
	struct api_cluster cl;
	int n = 0, rc;

	if ((rc = inv_cluster_get(c->inv, camp->cluster, &cl)) != 0 ||
	    (rc = inv_node_list(c->inv, &nodes, &n)) != 0)
		return rc;
	camp->n = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		if (strcmp(nodes[i].cluster, camp->cluster) != 0)
			continue;
		if (camp->n == RO_NODES_MAX) {
			rc = -2;
			break;
		}
		struct ro_node *rn = &camp->nodes[camp->n++];
		memset(rn, 0, sizeof(*rn));
		snprintf(rn->node, sizeof(rn->node), "%s", nodes[i].name);
		rn->step = RO_PENDING;
		rn->since = now;
		rn->cordoned_before = -1;
		rn->boot_before = NAN;
		rn->install_at = NAN;
		rn->wired_before = REPORT_NULL_I64;
		rn->links_before = -1;
	}
	free(nodes);
	qsort(camp->nodes, (size_t)camp->n, sizeof(camp->nodes[0]), node_name_cmp);
	return rc;
}

/* Store a new campaign unless one is open on its cluster; 0, INV_CONFLICT, -1. */
static int
campaign_add(struct api_req *rq, struct ro_campaign *camp, int64_t *open)
{
	char what[160];
	int rc = inv_rollout_open_on(rq->c->inv, camp->cluster, open);

	if (rc == 0 && *open != 0)
		return INV_CONFLICT;
	if (rc == 0 && (rc = inv_begin(rq->c->inv)) == 0) {
		rc = inv_rollout_add(rq->c->inv, camp);
		snprintf(what, sizeof(what), "rollout %" PRId64 " of %s to %s (%s)", camp->id,
		    camp->cluster, camp->target, ro_mode_str(camp->mode));
		if (rc == 0)
			ctrl_event(rq->c, rq->now, rq->actor, "", "rollout-started", what);
		rc = rc == 0 ? inv_commit(rq->c->inv) : (inv_rollback(rq->c->inv), -1);
	}
	return rc;
}

void
api_rollouts_start(struct api_req *rq, struct api_resp *rs)
{
	struct ro_campaign *camp = calloc(1, sizeof(*camp));
	char err[300];
	int64_t open = 0;
	int rc;

	if (camp == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (ro_json_decode_request(rq->body, rq->body_len, camp, err, sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		goto done;
	}
	camp->state = RO_RUNNING;
	camp->created_at = camp->updated_at = rq->now;
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = campaign_nodes(rq->c, camp, rq->now);
	if (rc == 0 && camp->n > 0 && camp->dry_run)
		rollout_dry_run(rq->c, camp);
	else if (rc == 0 && camp->n > 0)
		rc = campaign_add(rq, camp, &open);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s: no such cluster", camp->cluster);
	else if (rc == -2)
		api_error(rs, 400, "cluster %s has more than %d nodes", camp->cluster, RO_NODES_MAX);
	else if (rc == INV_CONFLICT)
		api_error(rs, 409, "rollout %" PRId64 " is still open on %s (abort it first)", open,
		    camp->cluster);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else if (camp->n == 0)
		api_error(rs, 409, "cluster %s has no nodes", camp->cluster);
	else
		api_body(rs, camp->dry_run ? 200 : 201, ro_json_campaign(camp));
done:
	free(camp);
}

/* The {id} of the path; 0 when it is not a positive whole number. */
static int64_t
rollout_id(const char *s)
{
	char *end;
	long long v;

	if (s[0] < '1' || s[0] > '9' || strlen(s) > 15)
		return 0;
	v = strtoll(s, &end, 10);
	return *end == '\0' ? (int64_t)v : 0;
}

void
api_rollouts_list(struct api_req *rq, struct api_resp *rs)
{
	int64_t ids[100];
	struct ro_campaign *all;
	int n = 0, k = 0, rc;

	pthread_mutex_lock(&rq->c->inv_mu);
	rc = inv_rollout_ids(rq->c->inv, 0, ids, 100, &n);
	all = calloc(n > 0 ? (size_t)n : 1, sizeof(*all));
	for (int i = 0; rc == 0 && all != NULL && i < n; i++)
		if ((rc = inv_rollout_get(rq->c->inv, ids[i], &all[k])) == 0)
			k++;
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc != 0 || all == NULL)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, ro_json_campaigns(all, k));
	free(all);
}

/* Load campaign {id} under inv_mu (held on success); 0 or an HTTP status sent. */
static struct ro_campaign *
load_locked(struct api_req *rq, struct api_resp *rs)
{
	int64_t id = rollout_id(rq->param);
	struct ro_campaign *camp = malloc(sizeof(*camp));
	int rc;

	if (camp == NULL) {
		api_error(rs, 503, "out of memory");
		return NULL;
	}
	if (id == 0) {
		api_error(rs, 404, "rollout %s: no such rollout", rq->param);
		free(camp);
		return NULL;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	if ((rc = inv_rollout_get(rq->c->inv, id, camp)) != 0) {
		pthread_mutex_unlock(&rq->c->inv_mu);
		if (rc == INV_NOTFOUND)
			api_error(rs, 404, "rollout %s: no such rollout", rq->param);
		else
			api_error(rs, 503, "the inventory is not available");
		free(camp);
		return NULL;
	}
	return camp;
}

void
api_rollout_show(struct api_req *rq, struct api_resp *rs)
{
	struct ro_campaign *camp = load_locked(rq, rs);

	if (camp == NULL)
		return;
	pthread_mutex_unlock(&rq->c->inv_mu);
	api_body(rs, 200, ro_json_campaign(camp));
	free(camp);
}

enum ro_command { RO_CMD_PAUSE, RO_CMD_RESUME, RO_CMD_ABORT, RO_CMD_RETRY };

static void
rollout_command(struct api_req *rq, struct api_resp *rs, enum ro_command cmd)
{
	static const char *const what[] = { "rollout-paused", "rollout-resumed",
		"rollout-aborted", "rollout-retry" };
	struct ro_campaign *camp;
	api_name node = "";
	char err[300];
	int rc;

	if (cmd == RO_CMD_RETRY && ro_json_decode_node_request(rq->body, rq->body_len, node, err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (cmd != RO_CMD_RETRY && api_body_none(rq, rs) == -1)
		return;
	if ((camp = load_locked(rq, rs)) == NULL)
		return;
	rc = cmd == RO_CMD_PAUSE ? rollout_pause(camp, rq->now, err, sizeof(err)) :
	    cmd == RO_CMD_RESUME ? rollout_resume(camp, rq->now, err, sizeof(err)) :
	    cmd == RO_CMD_ABORT ? rollout_abort(camp, rq->now, err, sizeof(err)) :
	    rollout_retry(camp, node, rq->now, err, sizeof(err));
	if (rc == 0 && (rc = inv_begin(rq->c->inv)) == 0) {
		char text[96];
		snprintf(text, sizeof(text), "rollout %" PRId64, camp->id);
		rc = inv_rollout_save(rq->c->inv, camp);
		if (rc == 0)
			ctrl_event(rq->c, rq->now, rq->actor, node, what[cmd], text);
		if (rc == 0 && cmd == RO_CMD_ABORT)
			rc = placement_rollout_restore(rq->c, camp, rq->now);
		rc = rc == 0 ? inv_commit(rq->c->inv) : (inv_rollback(rq->c->inv), -1);
		if (rc != 0)
			snprintf(err, sizeof(err), "the inventory could not store it");
		rc = rc != 0 ? -2 : 0;
	}
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == -1)
		api_error(rs, 409, "%s", err);
	else if (rc != 0)
		api_error(rs, 503, "%s", err);
	else
		api_body(rs, 200, ro_json_campaign(camp));
	free(camp);
}

void
api_rollout_pause(struct api_req *rq, struct api_resp *rs)
{
	rollout_command(rq, rs, RO_CMD_PAUSE);
}

void
api_rollout_resume(struct api_req *rq, struct api_resp *rs)
{
	rollout_command(rq, rs, RO_CMD_RESUME);
}

void
api_rollout_abort(struct api_req *rq, struct api_resp *rs)
{
	rollout_command(rq, rs, RO_CMD_ABORT);
}

void
api_rollout_retry(struct api_req *rq, struct api_resp *rs)
{
	rollout_command(rq, rs, RO_CMD_RETRY);
}
