/*
 * /v1/provisions and /v1/nodes/{name}/deprovision: start a provisioning
 * run (202 with its first status) and follow it by id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api_server.h"
#include "ctrl.h"
#include "prov_api.h"
#include "provision_job.h"
#include "store.h"

static int
configured(struct api_req *rq, struct api_resp *rs)
{
	if (rq->c->prov != NULL)
		return 1;
	api_error(rs, 503, "provisioning is not configured on this controller (start "
	    "tbcontrollerd with --ssh-key; see tbcontrollerd(8))");
	return 0;
}

static void
answer(struct api_resp *rs, int status, const struct prov_api_status *st)
{
	api_body(rs, status, prov_json_status(st));
}

void
api_provisions_create(struct api_req *rq, struct api_resp *rs)
{
	struct prov_api_request req;
	struct prov_api_status *st;
	char err[300];
	int rc;

	if (prov_json_decode_request(rq->body, rq->body_len, &req, err, sizeof(err)) != 0) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (!configured(rq, rs))
		return;
	if ((st = calloc(1, sizeof(*st))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	rc = prov_jobs_add(rq->c->prov, &req, rq->now, st, err, sizeof(err));
	if (rc != 0)
		api_error(rs, rc, "%s", err);
	else
		answer(rs, 202, st);
	free(st);
}

void
api_node_deprovision(struct api_req *rq, struct api_resp *rs)
{
	struct prov_api_deprov d;
	struct prov_api_status *st;
	char err[300];
	int rc;

	if (!api_name_valid(rq->param)) {
		api_error(rs, 400, "\"%s\" is not a valid node name", rq->param);
		return;
	}
	if (prov_json_decode_deprov(rq->body, rq->body_len, &d, err, sizeof(err)) != 0) {
		api_error(rs, 400, "%s", err);
		return;
	}
	if (!configured(rq, rs))
		return;
	if ((st = calloc(1, sizeof(*st))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	rc = prov_jobs_deprovision(rq->c->prov, rq->param, &d, rq->now, st, err, sizeof(err));
	if (rc != 0)
		api_error(rs, rc, "%s", err);
	else
		answer(rs, 202, st);
	free(st);
}

struct prov_view {
	int64_t id;
	struct prov_api_status *st;   /* out */
};

static int
read_prov(struct inv *inv, void *arg)
{
	struct prov_view *v = arg;

	return inv_prov_get(inv, v->id, v->st);
}

void
api_provision_show(struct api_req *rq, struct api_resp *rs)
{
	struct prov_api_status *st;
	char *end;
	long long id;
	int rc;

	errno = 0;
	id = strtoll(rq->param, &end, 10);
	if (rq->param[0] == '\0' || *end != '\0' || errno != 0 || id <= 0) {
		api_error(rs, 400, "\"%s\" is not a provisioning id", rq->param);
		return;
	}
	if ((st = calloc(1, sizeof(*st))) == NULL) {
		api_error(rs, 503, "out of memory");
		return;
	}
	struct prov_view v = { id, st };
	rc = store_with(&rq->c->store, read_prov, &v);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "provisioning %lld: no such run", id);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		answer(rs, 200, st);
	free(st);
}
