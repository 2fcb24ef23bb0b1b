/*
 * OS update campaigns over the API:
 *   POST /v1/rollouts              start a campaign (or a dry run)
 *   GET  /v1/rollouts, GET /v1/rollouts/{id}
 *   POST /v1/rollouts/{id}/pause|resume|abort, /retry {"node"}
 * A node's SSH access and the credentials are api_ssh.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_body.h"
#include "api_server.h"
#include "ctrl.h"
#include "natcmp.h"
#include "placement_ctrl.h"
#include "rollout.h"
#include "rollout_run.h"
#include "store.h"

static int
node_name_cmp(const void *a, const void *b)
{
	return proto_natcmp(((const struct ro_node *)a)->node, ((const struct ro_node *)b)->node);
}

/*
 * The cluster's nodes into camp (in natural order of names: mac2 before
 * mac10); 0, INV_NOTFOUND, -1, or -2 (too many).
 */
static int
campaign_nodes(struct inv *inv, struct ro_campaign *camp, double now)
{
	struct api_node *nodes = NULL;
	struct api_cluster cl;
	int n = 0, rc;

	if ((rc = inv_cluster_get(inv, camp->cluster, &cl)) != 0 ||
	    (rc = inv_node_list(inv, &nodes, &n)) != 0)
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

struct campaign_start {
	struct api_req *rq;
	struct ro_campaign *camp;  /* the request; out: its nodes (and a dry run's steps) */
	int64_t open;              /* out: the campaign still open on the cluster */
};

/* store_fn: a dry run over the cluster's nodes; the values of campaign_nodes. */
static int
campaign_dry(struct inv *inv, void *arg)
{
	struct campaign_start *x = arg;
	int rc = campaign_nodes(inv, x->camp, x->rq->now);

	if (rc == 0 && x->camp->n > 0)
		rollout_dry_run(x->rq->c, x->camp);
	return rc;
}

/*
 * store_fn, in a transaction: the cluster's nodes, and the campaign stored
 * (with its event) unless one is open on the cluster or it has no nodes.
 * The values of campaign_nodes, or INV_CONFLICT.
 */
static int
campaign_start(struct inv *inv, void *arg)
{
	struct campaign_start *x = arg;
	struct ro_campaign *camp = x->camp;
	struct api_req *rq = x->rq;
	char what[160];
	int rc = campaign_nodes(inv, camp, rq->now);

	if (rc != 0 || camp->n == 0)
		return rc;
	if ((rc = inv_rollout_open_on(inv, camp->cluster, &x->open)) != 0)
		return rc;
	if (x->open != 0)
		return INV_CONFLICT;
	if (inv_rollout_add(inv, camp) != 0)
		return -1;
	snprintf(what, sizeof(what), "rollout %" PRId64 " of %s to %s (%s)", camp->id,
	    camp->cluster, camp->target, ro_mode_str(camp->mode));
	ctrl_event(rq->c, rq->now, rq->actor, "", "rollout-started", what);
	return 0;
}

void
api_rollouts_start(struct api_req *rq, struct api_resp *rs)
{
	struct ro_campaign *camp = calloc(1, sizeof(*camp));
	struct campaign_start x = { rq, camp, 0 };
	char err[300];
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
	rc = camp->dry_run ? store_with(&rq->c->store, campaign_dry, &x) :
	    store_txn(&rq->c->store, campaign_start, &x);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s: no such cluster", camp->cluster);
	else if (rc == -2)
		api_error(rs, 400, "cluster %s has more than %d nodes", camp->cluster, RO_NODES_MAX);
	else if (rc == INV_CONFLICT)
		api_error(rs, 409, "rollout %" PRId64 " is still open on %s (abort it first)",
		    x.open, camp->cluster);
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

struct campaign_list {
	struct ro_campaign *all;   /* out: malloc'd (NULL: out of memory), the caller frees */
	int n;                     /* out: how many of all were read */
};

/* store_fn: the newest campaigns (100 at most). */
static int
read_campaigns(struct inv *inv, void *arg)
{
	struct campaign_list *l = arg;
	int64_t ids[100];
	int n = 0, rc = inv_rollout_ids(inv, 0, ids, 100, &n);

	l->all = calloc(n > 0 ? (size_t)n : 1, sizeof(*l->all));
	for (int i = 0; rc == 0 && l->all != NULL && i < n; i++)
		if ((rc = inv_rollout_get(inv, ids[i], &l->all[l->n])) == 0)
			l->n++;
	return rc;
}

void
api_rollouts_list(struct api_req *rq, struct api_resp *rs)
{
	struct campaign_list l = { NULL, 0 };
	int rc = store_with(&rq->c->store, read_campaigns, &l);

	if (rc != 0 || l.all == NULL)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, ro_json_campaigns(l.all, l.n));
	free(l.all);
}

enum ro_command { RO_CMD_SHOW, RO_CMD_PAUSE, RO_CMD_RESUME, RO_CMD_ABORT, RO_CMD_RETRY };

/*
 * Campaign {id} read, or an operator's command on it decided and stored,
 * under one hold of the lock.  The callbacks return 0, or the HTTP status
 * they filled rs with.
 */
struct campaign_cmd {
	struct api_req *rq;
	struct api_resp *rs;
	enum ro_command cmd;
	const char *node;          /* retry: the node */
	int64_t id;
	struct ro_campaign *camp;  /* out: the campaign (after the command) */
};

/* Campaign x->id into x->camp: 0, 404 or 503. */
static int
campaign_get(struct inv *inv, struct campaign_cmd *x)
{
	int rc = inv_rollout_get(inv, x->id, x->camp);

	if (rc == 0)
		return 0;
	if (rc == INV_NOTFOUND) {
		api_error(x->rs, 404, "rollout %s: no such rollout", x->rq->param);
		return 404;
	}
	api_error(x->rs, 503, "the inventory is not available");
	return 503;
}

/* The engine's decision on x->cmd: 0, or -1 with why it is refused in err. */
static int
campaign_decide(struct campaign_cmd *x, char *err, size_t errlen)
{
	struct ro_campaign *camp = x->camp;
	double now = x->rq->now;

	switch (x->cmd) {
	case RO_CMD_PAUSE:
		return rollout_pause(camp, now, err, errlen);
	case RO_CMD_RESUME:
		return rollout_resume(camp, now, err, errlen);
	case RO_CMD_ABORT:
		return rollout_abort(camp, now, err, errlen);
	case RO_CMD_RETRY:
		return rollout_retry(camp, x->node, now, err, errlen);
	default:
		return 0;
	}
}

/*
 * store_fn (a transaction for a command): the campaign, and the command's
 * change stored with its event; after an abort, the placements it stopped
 * restored.
 */
static int
campaign_command(struct inv *inv, void *arg)
{
	static const char *const what[] = { "", "rollout-paused", "rollout-resumed",
		"rollout-aborted", "rollout-retry" };
	struct campaign_cmd *x = arg;
	struct api_req *rq = x->rq;
	char err[300], text[96];
	int rc;

	if ((rc = campaign_get(inv, x)) != 0 || x->cmd == RO_CMD_SHOW)
		return rc;
	if (campaign_decide(x, err, sizeof(err)) != 0) {
		api_error(x->rs, 409, "%s", err);
		return 409;
	}
	snprintf(text, sizeof(text), "rollout %" PRId64, x->camp->id);
	rc = inv_rollout_save(inv, x->camp);
	if (rc == 0)
		ctrl_event(rq->c, rq->now, rq->actor, x->node, what[x->cmd], text);
	if (rc == 0 && x->cmd == RO_CMD_ABORT)
		rc = placement_rollout_restore(rq->c, x->camp, rq->now);
	if (rc != 0) {
		api_error(x->rs, 503, "the inventory could not store it");
		return 503;
	}
	return 0;
}

/*
 * Show campaign {id}, or run the command on it, and answer with the
 * campaign; or 404 (no such id), 409 (refused), 503.
 */
static void
campaign_answer(struct api_req *rq, struct api_resp *rs, enum ro_command cmd, const char *node)
{
	struct campaign_cmd x = { rq, rs, cmd, node, rollout_id(rq->param), NULL };
	int rc;

	if ((x.camp = malloc(sizeof(*x.camp))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	if (x.id == 0)
		api_error(rs, 404, "rollout %s: no such rollout", rq->param);
	else if ((rc = cmd == RO_CMD_SHOW ? store_with(&rq->c->store, campaign_command, &x) :
	    store_txn(&rq->c->store, campaign_command, &x)) == -1)
		api_error(rs, 503, "the inventory could not store it");
	else if (rc == 0)
		api_body(rs, 200, ro_json_campaign(x.camp));
	free(x.camp);
}

void
api_rollout_show(struct api_req *rq, struct api_resp *rs)
{
	campaign_answer(rq, rs, RO_CMD_SHOW, "");
}

static void
rollout_command(struct api_req *rq, struct api_resp *rs, enum ro_command cmd)
{
	api_name node = "";
	char err[300];

	if (cmd == RO_CMD_RETRY && ro_json_decode_node_request(rq->body, rq->body_len, node, err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (cmd != RO_CMD_RETRY && api_body_none(rq, rs) == -1)
		return;
	campaign_answer(rq, rs, cmd, node);
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
