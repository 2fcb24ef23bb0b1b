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

static int peer_of(const struct wiring_port *p);

/*
 * How well port (i, p), whose own domain is the uuid sought, fits as the far
 * end of a cable from a port of domain mine: 2 it names mine back and has
 * no edge yet, 1 no edge yet, 0 otherwise.  On a Mac every port is its own
 * domain, so one port has the uuid; on Linux every port of a host shares
 * the host router's domain, and the port that names us back is the one.
 */
static int
far_fit(const struct wiring_graph *g, int i, int p, const char *mine)
{
	const struct wiring_port *wp = &g->nodes[i].ports[p];

	if (g->port_edge[i][p] >= 0)
		return 0;
	return peer_of(wp) && strcmp(wp->peer_uuid, mine) == 0 ? 2 : 1;
}

/* The port whose own domain is uuid (hash h), as (node, port), the best
 * fitting far end for a port of domain mine; -1 none. */
static int
resolve(const struct wiring_graph *g, const struct port_key *keys, int n_keys, uint64_t h,
    const char *uuid, const char *mine, int *port)
{
	int best = -1, best_fit = -1;

	for (int k = 0; k < n_keys && best_fit < 2; k++) {
		const struct wiring_port *p;
		int fit;

		if (keys[k].hash != h)
			continue;
		p = &g->nodes[keys[k].node].ports[keys[k].port];
		if (strcmp(p->domain_uuid, uuid) != 0)
			continue;
		fit = far_fit(g, keys[k].node, keys[k].port, mine);
		if (fit > best_fit) {
			best = k;
			best_fit = fit;
		}
	}
	if (best < 0)
		return -1;
	*port = keys[best].port;
	return keys[best].node;
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
	e->claimed = 0;
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
	bi = resolve(g, keys, n_keys, uuid_hash(wp->peer_uuid), wp->peer_uuid, wp->domain_uuid,
	    &bp);
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

	g->cluster = "";
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
