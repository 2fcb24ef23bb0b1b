/*
 * /healthz, and /metrics: the controller's own, the jobs' (api_jobs.c), a
 * few series per node (prom.h) and the wiring monitor's (wmon.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_jobs.h"
#include "api_json.h"
#include "api_read.h"
#include "api_server.h"
#include "ctrl.h"
#include "prom.h"
#include "textbuf.h"
#include "version.h"
#include "wmon.h"

void
api_healthz(struct api_req *rq, struct api_resp *rs)
{
	char buf[128];
	(void)rq;

	snprintf(buf, sizeof(buf), "{\"status\":\"ok\",\"version\":\"%s\"}", TBMESH_VERSION);
	api_body(rs, 200, strdup(buf));
}

static void
counter(struct textbuf *t, const char *name, const char *help, uint_fast64_t v)
{
	textbuf_printf(t, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name,
	    (unsigned long long)v);
}

/* The per-node series (prom.h), from the inventory; NULL when it cannot be read. */
static char *
node_metrics(struct ctrl *c)
{
	struct api_node *nodes = NULL;
	int n = 0;

	int rc = api_read(c, API_READ_NODES, NULL, &nodes, &n);
	char *s = rc == 0 ? prom_node_metrics(nodes, n) : NULL;
	free(nodes);
	return s;
}

void
api_metrics(struct api_req *rq, struct api_resp *rs)
{
	struct ctrl_counters *k = &rq->c->ctr;
	struct textbuf t = { 0 };
	int states[NODE_STATE_COUNT];
	uint64_t cum = 0;

	counter(&t, "tbmesh_controller_reports_ingested_total",
	    "Reports stored (acknowledged with 2xx).", atomic_load(&k->reports_ingested));
	counter(&t, "tbmesh_controller_reports_rejected_total",
	    "Reports and enrolments refused (4xx/5xx).", atomic_load(&k->reports_rejected));
	counter(&t, "tbmesh_controller_enrollments_total", "Nodes enrolled.",
	    atomic_load(&k->enrollments));
	counter(&t, "tbmesh_controller_commits_total",
	    "Inventory transactions that stored reports.", atomic_load(&k->batches));
	textbuf_printf(&t, "# HELP tbmesh_controller_request_duration_seconds API request latency.\n"
	    "# TYPE tbmesh_controller_request_duration_seconds histogram\n");
	for (int i = 0; i < CTRL_LAT_BUCKETS; i++) {
		cum += atomic_load(&k->lat_bucket[i]);
		textbuf_printf(&t, "tbmesh_controller_request_duration_seconds_bucket{le=\"%g\"} %llu\n",
		    ctrl_lat_bounds[i], (unsigned long long)cum);
	}
	unsigned long long count = atomic_load(&k->lat_count);
	textbuf_printf(&t, "tbmesh_controller_request_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "tbmesh_controller_request_duration_seconds_sum %.6f\n"
	    "tbmesh_controller_request_duration_seconds_count %llu\n", count,
	    (double)atomic_load(&k->lat_sum_us) / 1e6, count);
	registry_count_states(rq->c->reg, states);
	textbuf_printf(&t, "# HELP tbmesh_controller_nodes Nodes by lifecycle state.\n"
	    "# TYPE tbmesh_controller_nodes gauge\n");
	for (int s = 0; s < NODE_STATE_COUNT; s++)
		textbuf_printf(&t, "tbmesh_controller_nodes{state=\"%s\"} %d\n",
		    api_node_state_str((enum node_state)s), states[s]);
	counter(&t, "tbmesh_controller_job_replans_total",
	    "Jobs moved to a new placement of their model (replan auto).",
	    atomic_load(&k->jobs_replans));
	api_jobs_metrics(rq->c, &t);
	textbuf_printf(&t, "# HELP tbmesh_controller_job_rank_reads_total Job ranks read at a "
	    "check, by who read them: the node's agent (its report) or ps over SSH.\n"
	    "# TYPE tbmesh_controller_job_rank_reads_total counter\n"
	    "tbmesh_controller_job_rank_reads_total{by=\"agent\"} %llu\n"
	    "tbmesh_controller_job_rank_reads_total{by=\"ssh\"} %llu\n",
	    (unsigned long long)atomic_load(&k->job_rank_reads_agent),
	    (unsigned long long)atomic_load(&k->job_rank_reads_ssh));
	char *per_node = node_metrics(rq->c);
	if (per_node != NULL)
		textbuf_printf(&t, "%s", per_node);
	free(per_node);
	char *wiring = rq->c->wmon ? wmon_metrics(rq->c->wmon) : NULL;
	if (wiring != NULL)
		textbuf_printf(&t, "%s", wiring);
	free(wiring);
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";
	api_body(rs, 200, textbuf_take(&t));
}
