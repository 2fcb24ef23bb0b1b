/*
 * Cabling plans: which receptacle of which node goes to which, for a full
 * mesh or a ring of the given nodes.  Only receptacles that carry RDMA are
 * used (wiring_port_carries_rdma(): never a Mac Studio's port next to the
 * Ethernet port, bad-port), none twice; a cable that already joins two nodes that need a link
 * keeps its ports, so a plan made from a healthy cluster is its cabling.
 */
#include "wiring_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ports of end e's node fit it: 0, or -1 with why (links[k].SIDE). */
static int
end_fits(const struct wiring_end *e, int k, const char *side, const struct wiring_node *nodes,
    int n_nodes, char *err, size_t errlen)
{
	const struct wiring_node *nd = NULL;
	char have[WIRING_PORTS_MAX * 8] = "";
	size_t w = 0;

	for (int i = 0; i < n_nodes && nd == NULL; i++)
		if (strcmp(nodes[i].name, e->node) == 0)
			nd = &nodes[i];
	if (nd == NULL) {
		snprintf(err, errlen, "links[%d].%s: %s is not in the cluster", k, side, e->node);
		return -1;
	}
	if (e->receptacle[0] == '\0' || nd->n_ports <= 0)
		return 0;
	for (int p = 0; p < nd->n_ports; p++) {
		if (strcmp(nd->ports[p].receptacle, e->receptacle) == 0)
			return 0;
		int m = snprintf(have + w, sizeof(have) - w, "%s%s", p ? ", " : "",
		    nd->ports[p].receptacle);
		w += m > 0 && (size_t)m < sizeof(have) - w ? (size_t)m : 0;
	}
	snprintf(err, errlen, "links[%d].%s: %s has no receptacle %s (it has %s)", k, side,
	    e->node, e->receptacle, have);
	return -1;
}

int
wiring_plan_fits(const struct wiring_plan_link *links, int n, const struct wiring_node *nodes,
    int n_nodes, char *err, size_t errlen)
{
	for (int k = 0; k < n; k++)
		if (end_fits(&links[k].a, k, "a", nodes, n_nodes, err, errlen) == -1 ||
		    end_fits(&links[k].b, k, "b", nodes, n_nodes, err, errlen) == -1)
			return -1;
	return 0;
}

struct plan_state {
	const struct wiring_node *nodes;
	int n;
	unsigned char usable[WIRING_NODES_MAX][WIRING_PORTS_MAX];
	unsigned char taken[WIRING_NODES_MAX][WIRING_PORTS_MAX];
	struct wiring_plan_link *links;
	int n_links;
};

static int
usable_count(const struct plan_state *s, int i)
{
	int k = 0;

	for (int p = 0; p < WIRING_PORTS_MAX; p++)
		k += s->usable[i][p];
	return k;
}

/* Has node nd a port that is a Mac Studio's next to Ethernet (bad-port)? */
static int
next_to_ethernet(const struct wiring_node *nd)
{
	for (int p = 0; p < nd->n_ports && p < WIRING_PORTS_MAX; p++)
		if (wiring_port_next_to_ethernet(nd, &nd->ports[p]))
			return 1;
	return 0;
}

static int
check_nodes(struct plan_state *s, int need, enum wiring_topology topo, char *err,
    size_t errlen)
{
	for (int i = 0; i < s->n; i++) {
		const struct wiring_node *nd = &s->nodes[i];

		if (nd->freshness == WIRING_REPORT_NONE || nd->n_ports < 0) {
			snprintf(err, errlen, "%s has not reported its receptacles yet", nd->name);
			return -1;
		}
		for (int p = 0; p < nd->n_ports && p < WIRING_PORTS_MAX; p++)
			s->usable[i][p] = (unsigned char)wiring_port_carries_rdma(s->nodes, s->n, i,
			    &nd->ports[p]);
		if (usable_count(s, i) < need) {
			snprintf(err, errlen, "a %s of %d needs %d receptacle%s carrying RDMA on "
			    "each node; %s has %d%s", topo == WIRING_TOPO_RING ? "ring" : "full mesh",
			    s->n, need, need == 1 ? "" : "s", nd->name, usable_count(s, i),
			    nd->rdma == RDMA_STATE_ENABLED && nd->n_devices == 0 ?
			    " (RDMA enabled but no RDMA device: it needs Thunderbolt 5)" :
			    next_to_ethernet(nd) ? " (a Mac Studio's port next to Ethernet, en2, "
			    "carries no RDMA)" : "");
			return -1;
		}
	}
	return 0;
}

static void
put_link(struct plan_state *s, int i, int p, int j, int q)
{
	struct wiring_plan_link *l = &s->links[s->n_links++];

	s->taken[i][p] = s->taken[j][q] = 1;
	snprintf(l->a.node, sizeof(l->a.node), "%s", s->nodes[i].name);
	snprintf(l->a.receptacle, sizeof(l->a.receptacle), "%s", s->nodes[i].ports[p].receptacle);
	snprintf(l->b.node, sizeof(l->b.node), "%s", s->nodes[j].name);
	snprintf(l->b.receptacle, sizeof(l->b.receptacle), "%s", s->nodes[j].ports[q].receptacle);
}

/* A cable already between i and j on free usable ports: keep it.  A cable
 * through a dock or hub (via-hub) keeps its two receptacles too: they carry
 * RDMA once joined directly, which is its fix; the check against the plan
 * says via-hub until they are. */
static int
keep_cable(struct plan_state *s, const struct wiring_graph *g, int i, int j)
{
	for (int k = 0; k < g->n_edges; k++) {
		const struct wiring_edge *e = &g->edges[k];
		int p = e->ap, q = e->bp;

		if (!e->both || !((e->ai == i && e->bi == j) || (e->ai == j && e->bi == i)))
			continue;
		if (e->ai == j) {
			p = e->bp;
			q = e->ap;
		}
		if (s->usable[i][p] && s->usable[j][q] && !s->taken[i][p] && !s->taken[j][q]) {
			put_link(s, i, p, j, q);
			return 1;
		}
	}
	return 0;
}

static int
first_free(const struct plan_state *s, int i)
{
	for (int p = 0; p < WIRING_PORTS_MAX; p++)
		if (s->usable[i][p] && !s->taken[i][p])
			return p;
	return -1;
}

static int
pair_wanted(enum wiring_topology topo, int n, int i, int j)
{
	if (topo == WIRING_TOPO_MESH)
		return 1;
	return j == i + 1 || (i == 0 && j == n - 1 && n > 2);
}

static int
plan_pairs(struct plan_state *s, const struct wiring_graph *g, enum wiring_topology topo)
{
	unsigned char *done = calloc((size_t)s->n * (size_t)s->n, 1);

	if (done == NULL)
		return -1;
	for (int i = 0; i < s->n; i++)
		for (int j = i + 1; j < s->n; j++)
			if (pair_wanted(topo, s->n, i, j) && keep_cable(s, g, i, j))
				done[i * s->n + j] = 1;
	for (int i = 0; i < s->n; i++)
		for (int j = i + 1; j < s->n; j++) {
			int p, q;

			if (!pair_wanted(topo, s->n, i, j) || done[i * s->n + j])
				continue;
			p = first_free(s, i);
			q = first_free(s, j);
			if (p < 0 || q < 0) {   /* cannot happen: counts were checked */
				free(done);
				return -1;
			}
			put_link(s, i, p, j, q);
		}
	free(done);
	return 0;
}

int
wiring_plan_make(const struct wiring_node *nodes, int n_nodes, enum wiring_topology topo,
    struct wiring_plan_link **out, int *n_out, char *err, size_t errlen)
{
	struct plan_state *s = NULL;
	struct wiring_graph *g = NULL;
	int need, cap;

	*out = NULL;
	*n_out = 0;
	if (topo != WIRING_TOPO_MESH && topo != WIRING_TOPO_RING) {
		snprintf(err, errlen, "a plan is made for a mesh or a ring");
		return -1;
	}
	if (n_nodes < 2 || n_nodes > WIRING_NODES_MAX) {
		snprintf(err, errlen, "a plan needs 2 to %d nodes; the cluster has %d",
		    WIRING_NODES_MAX, n_nodes);
		return -1;
	}
	need = topo == WIRING_TOPO_MESH ? n_nodes - 1 : (n_nodes > 2 ? 2 : 1);
	cap = topo == WIRING_TOPO_MESH ? n_nodes * (n_nodes - 1) / 2 : n_nodes;
	if ((s = calloc(1, sizeof(*s))) == NULL || (g = malloc(sizeof(*g))) == NULL ||
	    (s->links = calloc((size_t)cap, sizeof(*s->links))) == NULL)
		goto oom;
	s->nodes = nodes;
	s->n = n_nodes;
	if (check_nodes(s, need, topo, err, errlen) < 0)
		goto fail;
	wiring_graph_build(g, nodes, n_nodes);
	if (plan_pairs(s, g, topo) < 0)
		goto oom;
	*out = s->links;
	*n_out = s->n_links;
	free(s);
	free(g);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	if (s)
		free(s->links);
	free(s);
	free(g);
	return -1;
}
