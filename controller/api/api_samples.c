/*
 * GET /v1/nodes/{name}/samples?since=T&step=S&limit=L: a node's history of
 * samples (memory, power, link speeds), as api_samples.h describes; the
 * dashboard's sparklines and `tbctl node history` read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_read.h"
#include "api_samples.h"
#include "api_server.h"
#include "inventory.h"

#define SAMPLES_DEFAULT_SPAN 3600.0   /* since, when not given: the last hour */

void
api_node_samples(struct api_req *rq, struct api_resp *rs)
{
	double since = rq->now - SAMPLES_DEFAULT_SPAN, step = 0, limit = API_SAMPLES_MAX;
	struct api_sample *s = NULL;
	int n = 0;

	if (api_query_number(rq, rs, "since", 0, 1e11, &since) == -1 ||
	    api_query_number(rq, rs, "step", 0, 86400, &step) == -1 ||
	    api_query_number(rq, rs, "limit", 1, API_SAMPLES_MAX, &limit) == -1)
		return;
	if (!api_name_valid(rq->param)) {
		api_error(rs, 400, "\"%s\" is not a node name", rq->param);
		return;
	}
	struct api_read_filter f = { rq->param, since, step, (int)limit };
	int rc = api_read(rq->c, API_READ_SAMPLES, &f, &s, &n);
	if (rc == INV_NOTFOUND)
		api_error(rs, 404, "node %s: no such node", rq->param);
	else if (rc != 0)
		api_error(rs, 503, "the inventory is not available");
	else
		api_body(rs, 200, api_json_samples(rq->param, since, step, s, n));
	free(s);
}
