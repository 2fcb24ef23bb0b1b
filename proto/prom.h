/*
 * What the controller gives Prometheus besides its own counters: the HTTP
 * service discovery list of the agents' /metrics, and a few series per node
 * for its /metrics.  Pure: no I/O, no clock.
 *
 * HTTP SD (https://prometheus.io/docs/prometheus/latest/http_sd/; parsed by
 * prometheus/prometheus discovery/http/http.go into
 * discovery/targetgroup/targetgroup.go's Group, which allows the keys
 * "targets" and "labels" only): a JSON array of
 *   {"targets": ["HOST:PORT"], "labels": {"cluster": C, "node": N,
 *    "model": M, "state": S}}
 * one element per node, [] when there is none.  A label Prometheus would
 * read as empty ("" is no label) is given as "".
 */
#ifndef TBMESH_PROM_H
#define TBMESH_PROM_H

#include <stddef.h>

#include "api.h"
#include "report.h"
#include "rollout_api.h"

/* HOST:PORT, at most: a bracketed IPv6 address or a name of RO_HOST_MAX, and a port. */
#define PROM_TARGET_MAX (RO_HOST_MAX + 8)

/* One node as service discovery sees it. */
struct prom_sd_node {
	api_name name;
	api_name cluster;                 /* "" none */
	enum node_state state;
	report_str model;                 /* "" unknown */
	report_str listen;                /* its latest report's agent.listen; "" unknown */
	char ssh_host[RO_HOST_MAX + 1];   /* where the controller reaches it over SSH; "" none */
};

/*
 * The scrape target of an agent that reports listen ("IP:PORT" or
 * "[IPV6]:PORT" as report_decode accepts it) into out[len]: listen itself,
 * or, when it is a wildcard (0.0.0.0, ::), the node's SSH host with the
 * same port.  Returns 0, or -1 when there is none: listen unknown or
 * malformed, or a wildcard without an SSH host.
 */
int prom_sd_target(const char *listen, const char *ssh_host, char *out, size_t len);

/*
 * The HTTP SD list of nodes[0..n-1], in their order, as a malloc'd JSON
 * string (NULL when out of memory).  A node without a target
 * (prom_sd_target) is left out, and so are nodes whose targets are the
 * same (agents on their default 127.0.0.1:9469 on different Macs): none
 * of them can be told apart.  *given (may be NULL) gets the number of
 * nodes in the list.
 */
char *prom_sd_json(const struct prom_sd_node *nodes, int n, int *given);

/*
 * The per-node series of the controller's /metrics, in the text exposition
 * format (0.0.4), as a malloc'd string (NULL when out of memory):
 *   tbmesh_controller_node_state{cluster,node,state} 1
 *   tbmesh_controller_node_info{cluster,node,model,chip,os_version,os_build} 1
 *   tbmesh_controller_node_last_report_timestamp_seconds{cluster,node}
 * The last only for nodes that have reported.  Labels of unknown values are "".
 */
char *prom_node_metrics(const struct api_node *nodes, int n);

#endif
