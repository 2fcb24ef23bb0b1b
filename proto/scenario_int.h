/*
 * Scenario parsing's internals, shared by scenario.c (nodes, cables),
 * scenario_port.c (ports) and scenario_lan.c (a node's "lan"); nothing else
 * includes this.
 */
#ifndef TBMESH_SCENARIO_INT_H
#define TBMESH_SCENARIO_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "scenario.h"

struct parse {
	struct scenario *s;
	const cJSON *defaults;
	int port_seen[SCENARIO_NODES_MAX][SCENARIO_RECEPTACLES_MAX];
	char *err;
	size_t errlen;
};

/* Write the message into p->err; returns -1 for the caller to return. */
int scenario_fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* obj must be an object holding only keys (NULL-ended), each once. */
int scenario_check_keys(struct parse *p, const cJSON *obj, const char *where,
    const char *const *keys);

/* Copy a non-empty string without control characters that fits in size. */
int scenario_get_str(struct parse *p, const cJSON *it, const char *where, char *dst,
    size_t size);

/* "en3": lowercase letters, then digits. */
int scenario_is_ifname(const char *s);

/* "mac1:2" or "mac1:tb2" (it, at where) -> node index and receptacle in range. */
int scenario_parse_endpoint(struct parse *p, const cJSON *it, const char *where, int *node,
    int *r);

/* ports[i]: {"port": "mac3:4", "ipv4": ..., "port_down": ...}; after the cables. */
int scenario_parse_port(struct parse *p, const cJSON *obj, int i);

/* nodes[i]'s "lan": one entry or a list; absent leaves n->n_lan -1 (unknown). */
int scenario_parse_lan(struct parse *p, const cJSON *obj, int i, struct scenario_node *n);

#endif
