/*
 * The observed graph: every connected port that names a peer domain UUID,
 * resolved to the (node, receptacle) that reports that domain as its own.
 * A cable both ends report is one edge with both set; a cable seen from one
 * end only (the other end reports the port empty, or another peer) is an
 * edge from the seeing end.  A peer that is no port of the cluster gives an
 * edge with bi = -1.
 */
#include "wiring_int.h"

#include <stdint.h>
#include <string.h>

/* A domain UUID hashed, so most comparisons are one integer. */
static uint64_t
uuid_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct port_key {
	uint64_t hash;
	short node, port;
};

int
wiring_graph_node(const struct wiring_graph *g, const char *name)
{
	for (int i = 0; i < g->n_nodes; i++)
		if (strcmp(g->nodes[i].name, name) == 0)
			return i;
	return -1;
}

int
wiring_graph_port(const struct wiring_graph *g, int i, const char *r)
{
	const struct wiring_node *n = &g->nodes[i];

	for (int p = 0; p < n->n_ports && p < WIRING_PORTS_MAX; p++)
		if (strcmp(n->ports[p].receptacle, r) == 0)
			return p;
	return -1;
}

static int
n_ports(const struct wiring_node *n)
{
	if (n->freshness == WIRING_REPORT_NONE || n->n_ports < 0)
		return 0;
	return n->n_ports < WIRING_PORTS_MAX ? n->n_ports : WIRING_PORTS_MAX;
}

/* The port whose own domain is uuid (hash h), as (node, port); -1 none. */
static int
resolve(const struct wiring_graph *g, const struct port_key *keys, int n_keys, uint64_t h,
    const char *uuid, int *port)
{
	for (int k = 0; k < n_keys; k++) {
		const struct wiring_port *p;

		if (keys[k].hash != h)
			continue;
		p = &g->nodes[keys[k].node].ports[keys[k].port];
		if (strcmp(p->domain_uuid, uuid) == 0) {
			*port = keys[k].port;
			return keys[k].node;
		}
	}
	return -1;
}

static int
peer_of(const struct wiring_port *p)
{
	return p->has_peer && p->status != PORT_STATUS_EMPTY && p->peer_uuid[0] != '\0';
}

static void
add_edge(struct wiring_graph *g, int ai, int ap, int bi, int bp, int both)
{
	struct wiring_edge *e;

	if (g->n_edges >= WIRING_EDGES_MAX)
		return;
	e = &g->edges[g->n_edges];
	e->ai = ai;
	e->ap = ap;
	e->bi = bi;
	e->bp = bp;
	e->both = both;
	e->used = 0;
	g->port_edge[ai][ap] = (short)g->n_edges;
	if (both)
		g->port_edge[bi][bp] = (short)g->n_edges;
	g->n_edges++;
}

/* The edge seen from (i, p); the far end, when it names us back, is the same edge. */
static void
add_port(struct wiring_graph *g, const struct port_key *keys, int n_keys, int i, int p)
{
	const struct wiring_port *wp = &g->nodes[i].ports[p];
	int bp = -1, bi, both = 0;

	if (g->port_edge[i][p] >= 0 || !peer_of(wp))
		return;
	bi = resolve(g, keys, n_keys, uuid_hash(wp->peer_uuid), wp->peer_uuid, &bp);
	if (bi >= 0) {
		const struct wiring_port *far = &g->nodes[bi].ports[bp];

		both = peer_of(far) && strcmp(far->peer_uuid, wp->domain_uuid) == 0;
	}
	add_edge(g, i, p, bi, bp, both);
}

void
wiring_graph_build(struct wiring_graph *g, const struct wiring_node *nodes, int n)
{
	struct port_key keys[WIRING_EDGES_MAX];
	int n_keys = 0;

	g->nodes = nodes;
	g->n_nodes = n;
	g->n_edges = 0;
	for (int i = 0; i < n; i++)
		for (int p = 0; p < WIRING_PORTS_MAX; p++)
			g->port_edge[i][p] = -1;
	for (int i = 0; i < n; i++)
		for (int p = 0; p < n_ports(&nodes[i]); p++)
			if (nodes[i].ports[p].domain_uuid[0] != '\0') {
				keys[n_keys].hash = uuid_hash(nodes[i].ports[p].domain_uuid);
				keys[n_keys].node = (short)i;
				keys[n_keys].port = (short)p;
				n_keys++;
			}
	for (int i = 0; i < n; i++)
		for (int p = 0; p < n_ports(&nodes[i]); p++)
			add_port(g, keys, n_keys, i, p);
}
