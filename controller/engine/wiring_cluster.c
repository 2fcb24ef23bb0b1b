/*
 * The cluster verdict from the passing links: a passing RDMA link between
 * every pair is a full mesh (tensor parallelism); a cycle through every node
 * is a ring; every node reachable is enough for a pipeline; anything less
 * is not usable.  A link whose verdict is unknown counts against that: the
 * pair it names is not joined (a cable nobody expected does not stand in
 * for it), a plan naming a node outside the cluster is not usable, and the
 * headline then says what is not known ("not known yet: mac3's report is
 * missing"), never "ready".  And the questions other engines ask of a
 * result.
 */
#include "wiring_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASONS_MAX 32
#define RING_SEARCH_STEPS 200000

struct adj {
	int n;
	unsigned char m[WIRING_NODES_MAX][WIRING_NODES_MAX];
};

static int
node_index(const struct wiring_result *r, const char *name)
{
	for (int i = 0; i < r->n_nodes; i++)
		if (strcmp(r->nodes[i], name) == 0)
			return i;
	return -1;
}

/*
 * A cable that carries RDMA between the link's two nodes: one was found
 * joining them, and it passes or is only not where the plan put it.  A
 * planned link whose port holds a cable to elsewhere is miswired too, but
 * joins nothing.
 */
static int
usable(const struct wiring_link *l)
{
	return l->cabled && (l->pass || l->problems == (1u << WIRING_MISWIRED));
}

static void
adj_add(const struct wiring_result *r, const struct wiring_link *l, struct adj *a)
{
	int i = node_index(r, l->a.node), j = node_index(r, l->b.node);

	if (usable(l) && i >= 0 && j >= 0 && i != j)
		a->m[i][j] = a->m[j][i] = 1;
}

/* The passing links as an adjacency; *outside set when an expected link
 * names a node outside the cluster. */
static void
adj_build(const struct wiring_result *r, struct adj *a, int *outside)
{
	memset(a, 0, sizeof(*a));
	a->n = r->n_nodes;
	*outside = 0;
	for (int k = 0; k < r->n_links; k++)
		adj_add(r, &r->links[k], a);
	for (int k = 0; k < r->n_unexpected; k++)
		adj_add(r, &r->unexpected[k], a);
	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];
		int i = node_index(r, l->a.node), j = node_index(r, l->b.node);

		if (i < 0 || j < 0)
			*outside = 1;
		else if (l->verdict == WIRING_UNKNOWN)
			a->m[i][j] = a->m[j][i] = 0;
	}
}

static int
full_mesh(const struct adj *a)
{
	for (int i = 0; i < a->n; i++)
		for (int j = i + 1; j < a->n; j++)
			if (!a->m[i][j])
				return 0;
	return 1;
}

/* Depth-first search for a cycle through every node, with a step budget. */
static int
ring_from(const struct adj *a, int at, int depth, unsigned char *seen, long *steps)
{
	if (depth == a->n)
		return a->m[at][0];
	if (--*steps < 0)
		return 0;
	for (int j = 1; j < a->n; j++)
		if (!seen[j] && a->m[at][j]) {
			seen[j] = 1;
			if (ring_from(a, j, depth + 1, seen, steps))
				return 1;
			seen[j] = 0;
		}
	return 0;
}

static int
has_ring(const struct adj *a)
{
	unsigned char seen[WIRING_NODES_MAX] = {1};
	long steps = RING_SEARCH_STEPS;

	return a->n >= 3 && ring_from(a, 0, 1, seen, &steps);
}

/* Nodes reached from node 0; marks them in seen. */
static int
reach(const struct adj *a, unsigned char *seen)
{
	int stack[WIRING_NODES_MAX], top = 0, n = 1;

	memset(seen, 0, WIRING_NODES_MAX);
	seen[0] = 1;
	stack[top++] = 0;
	while (top > 0) {
		int i = stack[--top];

		for (int j = 0; j < a->n; j++)
			if (a->m[i][j] && !seen[j]) {
				seen[j] = 1;
				stack[top++] = j;
				n++;
			}
	}
	return n;
}

static void
reason(struct wiring_result *r, const char *fmt, const char *a, const char *b)
{
	if (r->n_reasons >= REASONS_MAX)
		return;
	snprintf(r->reasons[r->n_reasons], sizeof(r->reasons[0]), fmt, a, b);
	r->n_reasons++;
}

/* Why a link touching node is unknown, from that end: 0 when not from it. */
static int
unknown_cause(const struct wiring_result *r, const struct wiring_graph *g, const char *node,
    char *out, size_t n)
{
	int i = wiring_graph_node(g, node);
	const struct wiring_node *wn = i >= 0 ? &g->nodes[i] : NULL;

	if (wn == NULL)
		snprintf(out, n, "not known yet: %s is not a node of %s", node, r->cluster);
	else if (wn->freshness == WIRING_REPORT_NONE)
		snprintf(out, n, "not known yet: %s's report is missing", node);
	else if (wn->facts_stale)
		snprintf(out, n, "not known yet: %s's Thunderbolt and RDMA facts are stale", node);
	else if (wn->freshness == WIRING_REPORT_STALE)
		snprintf(out, n, "not known yet: %s's report is stale%s", node,
		    wn->state == NODE_UNREACHABLE ? " (it is unreachable)" : "");
	else if (wn->rdma == RDMA_STATE_UNKNOWN)
		snprintf(out, n, "not known yet: %s's RDMA state is unknown (see the errors in "
		    "its report)", node);
	else
		return 0;
	return 1;
}

static void
reason_once(struct wiring_result *r, const char *text)
{
	for (int k = 0; k < r->n_reasons; k++)
		if (strcmp(r->reasons[k], text) == 0)
			return;
	if (r->n_reasons < REASONS_MAX - 1)
		reason(r, "%s%s", text, "");
}

/* An unknown link's reasons: what is not known, once per cause. */
static void
unknown_reasons(struct wiring_result *r, const struct wiring_graph *g,
    const struct wiring_link *l)
{
	const char *ends[2] = {l->a.node, l->b.node};
	wiring_text why;
	int found = 0;

	for (int s = 0; s < 2; s++)
		if (unknown_cause(r, g, ends[s], why, sizeof(why))) {
			reason_once(r, why);
			found = 1;
		}
	if (!found && r->n_reasons < REASONS_MAX - 1)
		reason(r, "%.200s: %s", l->expected, wiring_verdict_str(l->verdict));
}

/* The failing links' reasons; the number of unknown links. */
static int
link_reasons(struct wiring_result *r, const struct wiring_graph *g)
{
	int failing = 0, unknown = 0;

	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];

		if (l->pass)
			continue;
		if (l->verdict == WIRING_UNKNOWN) {
			unknown_reasons(r, g, l);
			unknown++;
		} else if (r->n_reasons < REASONS_MAX - 1 && l->expected_during_rollout != 0) {
			char why[48];

			snprintf(why, sizeof(why), "os-skew, expected during rollout %lld",
			    (long long)l->expected_during_rollout);
			reason(r, "%.200s: %.47s", l->expected, why);
		} else if (r->n_reasons < REASONS_MAX - 1)
			reason(r, "%.200s: %s", l->expected, wiring_verdict_str(l->verdict));
		failing++;
	}
	if (failing > REASONS_MAX - 1)
		reason(r, "%s%s", "and more failing links", "");
	return unknown;
}

/* The headline while links are unknown: the first thing not known. */
static void
unknown_headline(struct wiring_result *r)
{
	for (int k = 0; k < r->n_reasons; k++)
		if (strncmp(r->reasons[k], "not known yet: ", 15) == 0) {
			wiring_scopy(r->verdict_text, sizeof(r->verdict_text), r->reasons[k]);
			return;
		}
	snprintf(r->verdict_text, sizeof(r->verdict_text), "not known yet: a link's verdict is "
	    "unknown");
}

static void
isolated_reasons(struct wiring_result *r, const struct adj *a)
{
	for (int i = 0; i < a->n; i++) {
		int deg = 0;

		for (int j = 0; j < a->n; j++)
			deg += a->m[i][j];
		if (deg == 0)
			reason(r, "%s has no passing RDMA link%s", r->nodes[i], "");
	}
}

int
wiring_conclude(struct wiring_result *r, const struct wiring_graph *g)
{
	struct adj *a = malloc(sizeof(*a));
	unsigned char seen[WIRING_NODES_MAX];
	int n = r->n_nodes, outside, unknown;

	r->reasons = calloc(REASONS_MAX, sizeof(*r->reasons));
	if (a == NULL || r->reasons == NULL) {
		free(a);
		return -1;
	}
	adj_build(r, a, &outside);
	unknown = link_reasons(r, g);
	if (n < 2) {
		r->verdict = WIRING_UNUSABLE;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "not usable: %d node%s, "
		    "nothing to link", n, n == 1 ? "" : "s");
	} else if (outside) {
		r->verdict = WIRING_UNUSABLE;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "not usable: the expected "
		    "links name a node outside the cluster");
	} else if (full_mesh(a)) {
		r->verdict = WIRING_TENSOR_READY;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "tensor-parallel ready: full "
		    "RDMA mesh of %d", n);
	} else if (has_ring(a)) {
		r->verdict = WIRING_RING_ONLY;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "ring only: an RDMA ring "
		    "through all %d nodes, not a full mesh", n);
		if (r->topology == WIRING_TOPO_RING)
			reason(r, "the expected topology is a ring%s%s", "", "");
	} else if (reach(a, seen) == n) {
		r->verdict = WIRING_PIPELINE_ONLY;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "pipeline only: RDMA reaches "
		    "all %d nodes, but neither a full mesh nor a ring", n);
	} else {
		r->verdict = WIRING_UNUSABLE;
		snprintf(r->verdict_text, sizeof(r->verdict_text), "not usable: RDMA links do "
		    "not reach all %d nodes", n);
		isolated_reasons(r, a);
	}
	if (unknown > 0)
		unknown_headline(r);
	free(a);
	return 0;
}

static int
joins(const struct wiring_link *l, const char *a, const char *b)
{
	return (strcmp(l->a.node, a) == 0 && strcmp(l->b.node, b) == 0) ||
	    (strcmp(l->a.node, b) == 0 && strcmp(l->b.node, a) == 0);
}

static int
pair_in(const struct wiring_link *v, int n, const char *a, const char *b,
    struct wiring_pair *out)
{
	for (int k = 0; k < n; k++)
		if (usable(&v[k]) && joins(&v[k], a, b)) {
			int straight = strcmp(v[k].a.node, a) == 0;

			out->link = &v[k];
			out->mine = straight ? &v[k].a : &v[k].b;
			out->theirs = straight ? &v[k].b : &v[k].a;
			return 1;
		}
	return 0;
}

int
wiring_pair_link(const struct wiring_result *r, const char *a, const char *b,
    struct wiring_pair *out)
{
	struct wiring_pair tmp;

	if (out == NULL)
		out = &tmp;
	memset(out, 0, sizeof(*out));
	return pair_in(r->links, r->n_links, a, b, out) ||
	    pair_in(r->unexpected, r->n_unexpected, a, b, out);
}

int
wiring_pair_links(const struct wiring_result *r, const char *a, const char *b,
    struct wiring_pair *out, int max)
{
	const struct wiring_link *sets[2] = { r->links, r->unexpected };
	int counts[2] = { r->n_links, r->n_unexpected }, n = 0;

	for (int s = 0; s < 2; s++)
		for (int k = 0; k < counts[s] && n < max; k++) {
			const struct wiring_link *l = &sets[s][k];
			if (!usable(l) || !joins(l, a, b))
				continue;
			int straight = strcmp(l->a.node, a) == 0;
			out[n].link = l;
			out[n].mine = straight ? &l->a : &l->b;
			out[n].theirs = straight ? &l->b : &l->a;
			n++;
		}
	return n;
}

int
wiring_node_links_pass(const struct wiring_result *r, const char *node)
{
	int seen = 0;

	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];

		if (strcmp(l->a.node, node) != 0 && strcmp(l->b.node, node) != 0)
			continue;
		if (!wiring_link_ok_during_rollout(l))
			return 0;
		seen++;
	}
	return seen > 0 || r->n_nodes < 2;
}

int
wiring_link_ok_during_rollout(const struct wiring_link *l)
{
	return l->pass || (l->expected_during_rollout != 0 &&
	    l->problems == (1u << WIRING_OS_SKEW));
}

int
wiring_all_pass(const struct wiring_result *r)
{
	for (int k = 0; k < r->n_links; k++)
		if (!r->links[k].pass)
			return 0;
	return 1;
}
