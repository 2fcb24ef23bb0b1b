/*
 * GET /v1/prometheus/targets (viewer): Prometheus HTTP service discovery
 * (https://prometheus.io/docs/prometheus/latest/http_sd/) of every enrolled
 * node's agent /metrics, labelled with its cluster, node, model and state.
 * The list and which nodes it leaves out are prom.h's; this reads the
 * inventory and answers.  A failure is a 503: Prometheus then keeps the
 * list it had.
 */
#include <stdlib.h>

#include "api_read.h"
#include "api_server.h"
#include "ctrl.h"
#include "log.h"
#include "prom.h"

void
api_prometheus_targets(struct api_req *rq, struct api_resp *rs)
{
	struct prom_sd_node *nodes = NULL;
	int n = 0, given = 0;

	if (api_read(rq->c, API_READ_SD_NODES, NULL, &nodes, &n) != 0) {
		api_error(rs, 503, "the inventory is not available");
		return;
	}
	char *json = prom_sd_json(nodes, n, &given);
	free(nodes);
	if (given < n)
		log_debug("service discovery: %d of %d nodes have a target Prometheus can "
		    "scrape", given, n);
	rs->ctype = "application/json";
	api_body(rs, 200, json);
}
