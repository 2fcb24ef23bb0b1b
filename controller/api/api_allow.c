/*
 * POST /v1/clusters/{name}/allow and /disallow: the serial numbers whose
 * Macs a bootstrap token enrols straight into the cluster, without waiting
 * for tbctl node accept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_server.h"
#include "ctrl.h"

static void
allow_change(struct api_req *rq, struct api_resp *rs, int add)
{
	api_name serials[API_ALLOW_MAX];
	struct api_cluster cl;
	char err[300];
	int n = 0, rc;

	if (api_json_decode_serials(rq->body, rq->body_len, serials, API_ALLOW_MAX, &n, err,
	    sizeof(err)) == -1) {
		api_error(rs, 400, "%s", err);
		return;
	}
	pthread_mutex_lock(&rq->c->inv_mu);
	rc = inv_begin(rq->c->inv);
	if (rc == 0)
		rc = inv_cluster_allow(rq->c->inv, rq->param, serials, n, add);
	for (int i = 0; rc == 0 && i < n; i++)
		ctrl_event(rq->c, rq->now, rq->actor, "", add ? "serial allowed" :
		    "serial disallowed", serials[i]);
	if (rc == 0)
		rc = inv_commit(rq->c->inv);
	else
		inv_rollback(rq->c->inv);
	if (rc == 0)
		rc = inv_cluster_get(rq->c->inv, rq->param, &cl);
	pthread_mutex_unlock(&rq->c->inv_mu);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "cluster %s: no such cluster", rq->param);
	else if (rc == INV_CONFLICT)
		api_error(rs, 409, "cluster %s: an allow-list holds at most %d serial numbers",
		    rq->param, API_ALLOW_MAX);
	else if (rc != 0)
		api_error(rs, 503, "the inventory could not store it");
	else
		api_body(rs, 200, api_json_cluster(&cl));
}

void
api_cluster_allow(struct api_req *rq, struct api_resp *rs)
{
	allow_change(rq, rs, 1);
}

void
api_cluster_disallow(struct api_req *rq, struct api_resp *rs)
{
	allow_change(rq, rs, 0);
}
