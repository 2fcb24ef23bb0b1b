/*
 * Prometheus text exposition (format 0.0.4) of a report and of the agent's
 * own counters.  Pure: renders into a growing buffer, no I/O.
 *
 * Conventions: base units (bytes, seconds, watts, celsius, bytes per second
 * for link speeds), counters end in _total, labels only of bounded
 * cardinality (receptacle, interface, RDMA device, error source, component).
 * A null value in the report is left out, never rendered as 0.
 */
#ifndef TBMESH_METRICS_H
#define TBMESH_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define METRICS_SOURCES_MAX 64

/* What the agent counts across collections. */
struct agent_counters {
	uint64_t collections;                 /* collections run */
	double last_duration;                 /* seconds the last collection took */
	int n_sources;
	char source[METRICS_SOURCES_MAX][REPORT_ERRSRC_MAX + 1];
	uint64_t errors[METRICS_SOURCES_MAX]; /* collection errors by source */
	/* Reporting to the controller (a copy of push_stats()); none rendered when !push_on. */
	int push_on;
	uint64_t reports_pushed;
	uint64_t push_failures;
	uint64_t reports_dropped;             /* replaced before they were sent */
	int enrolled;
	double push_backoff;                  /* seconds; 0 when not backing off */
};

/* Count one collection of r that took duration seconds. */
void metrics_count(struct agent_counters *c, const struct report *r, double duration);

/*
 * Render r (may be NULL before the first collection) and the counters.
 * Returns a NUL-terminated string the caller frees with free(), and its
 * length in *len; NULL when out of memory.
 */
char *metrics_render(const struct report *r, const struct agent_counters *c,
    const char *backend, size_t *len);

#endif
