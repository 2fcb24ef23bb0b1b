/*
 * GET /v1/events?node=N&since=T&limit=L: the event log (one node's, or
 * every node's), newest last.
 */
#include <math.h>
#include <stdlib.h>

#include "api_json.h"
#include "api_read.h"
#include "api_server.h"

void
api_events_list(struct api_req *rq, struct api_resp *rs)
{
	const char *node = rq->query(rq->qctx, "node");
	double since = NAN, limit = 1000;
	struct api_event *ev = NULL;
	int n = 0;

	if (api_query_number(rq, rs, "since", 0, 1e11, &since) == -1 ||
	    api_query_number(rq, rs, "limit", 1, 100000, &limit) == -1)
		return;
	if (node != NULL && node[0] && !api_name_valid(node)) {
		api_error(rs, 400, "node: \"%s\" is not a node name", node);
		return;
	}
	struct api_read_filter f = { node ? node : "", since, 0, (int)limit };
	if (api_read(rq->c, API_READ_EVENTS, &f, &ev, &n) != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	api_body(rs, 200, api_json_events(ev, n));
	free(ev);
}
