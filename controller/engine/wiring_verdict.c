/*
 * One link's verdict: which of DESIGN.md's problems an observed cable has
 * (unknown here, the others by the checks of wiring_rules.c), and, against
 * what was expected, whether it is missing or miswired.  The verdict is
 * the first problem in enum order.  An os-skew that an open OS update
 * rollout expects (wiring_skew_expected()) keeps its verdict and says so:
 * expected_during_rollout and the fix.
 */
#include "wiring_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BIT(v) (1u << (v))

enum wiring_verdict
wiring_first_problem(unsigned problems)
{
	for (int v = 1; v < WIRING_VERDICT_COUNT; v++)
		if (problems & BIT(v))
			return (enum wiring_verdict)v;
	return WIRING_PASS;
}

const struct wiring_rdma_device *
wiring_device_for(const struct wiring_node *n, const char *ifname)
{
	if (ifname[0] == '\0')
		return NULL;
	for (int d = 0; d < n->n_devices && d < WIRING_DEVICES_MAX; d++)
		if (strcmp(n->devices[d].interface, ifname) == 0)
			return &n->devices[d];
	return NULL;
}

void
wiring_side_fill(const struct wiring_graph *g, int i, int p, const char *name,
    struct wiring_side *s)
{
	const struct wiring_port *wp;
	const struct wiring_rdma_device *d;

	memset(s, 0, sizeof(*s));
	wiring_scopy(s->node, sizeof(s->node), i >= 0 ? g->nodes[i].name : name);
	if (i < 0 || p < 0)
		return;
	wp = &g->nodes[i].ports[p];
	wiring_scopy(s->receptacle, sizeof(s->receptacle), wp->receptacle);
	wiring_scopy(s->interface, sizeof(s->interface), wp->interface);
	wiring_scopy(s->ipv4, sizeof(s->ipv4), wp->ipv4);
	if ((d = wiring_device_for(&g->nodes[i], wp->interface)) != NULL)
		wiring_scopy(s->rdma_device, sizeof(s->rdma_device), d->name);
}

/* A node's problems: unknown without a fresh report or its RDMA state;
 * with a fresh report, the node checks'. */
static unsigned
node_problems(const struct wiring_node *n)
{
	unsigned bits = 0;

	if (n->freshness != WIRING_REPORT_FRESH)
		return BIT(WIRING_UNKNOWN);
	if (n->rdma == RDMA_STATE_UNKNOWN)
		bits |= BIT(WIRING_UNKNOWN);
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if (wiring_rules[v].node && wiring_rules[v].node(n))
			bits |= BIT(v);
	return bits;
}

int
wiring_port_carries_rdma(const struct wiring_node *nodes, int n_nodes, int i,
    const struct wiring_port *p)
{
	const struct wiring_node *n = &nodes[i];

	/* a Mac Studio's port next to Ethernet, whatever RDMA's state (bad-port) */
	if (wiring_port_next_to_ethernet(n, p))
		return 0;
	if (n->rdma == RDMA_STATE_ENABLED && n->n_devices >= 0 && p->interface[0] != '\0' &&
	    wiring_device_for(n, p->interface) == NULL)
		return 0;
	if (p->domain_uuid[0] == '\0')
		return 1;
	for (int j = 0; j < n_nodes; j++) {
		const struct wiring_node *o = &nodes[j];

		/* a peer with no RDMA device (rdma-unavailable) has no say */
		if (j == i || o->rdma != RDMA_STATE_ENABLED || n->rdma != RDMA_STATE_ENABLED ||
		    o->n_devices == 0)
			continue;
		for (int q = 0; q < o->n_ports && q < WIRING_PORTS_MAX; q++)
			if (o->ports[q].has_peer && o->ports[q].peer_rdma_service == TRI_FALSE &&
			    strcmp(o->ports[q].peer_uuid, p->domain_uuid) == 0)
				return 0;
	}
	return 1;
}

/* The end checks' problems at node i's port p, one end of a cable both
 * ends report. */
static unsigned
end_problems(const struct wiring_graph *g, int i, int p)
{
	unsigned bits = 0;

	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if (wiring_rules[v].end && wiring_rules[v].end(g, i, p))
			bits |= BIT(v);
	return bits;
}

/* The cable checks' problems of e, a cable between two members. */
static unsigned
cable_problems(const struct wiring_graph *g, const struct wiring_edge *e)
{
	unsigned bits = 0;

	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if (wiring_rules[v].cable && wiring_rules[v].cable(g, e))
			bits |= BIT(v);
	return bits;
}

/* bits less the problems one of them explains away. */
static unsigned
less_hidden(unsigned bits)
{
	unsigned hidden = 0;

	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if (bits & BIT(v))
			hidden |= wiring_rules[v].hides;
	return bits & ~hidden;
}

unsigned
wiring_edge_problems(const struct wiring_graph *g, const struct wiring_edge *e)
{
	unsigned bits;

	if (e->bi < 0)
		return less_hidden(BIT(WIRING_UNKNOWN) | node_problems(&g->nodes[e->ai]));
	bits = node_problems(&g->nodes[e->ai]) | node_problems(&g->nodes[e->bi]);
	if (e->both)
		bits |= end_problems(g, e->ai, e->ap) | end_problems(g, e->bi, e->bp);
	return less_hidden(bits | cable_problems(g, e));
}

static double
edge_speed(const struct wiring_graph *g, const struct wiring_edge *e)
{
	double sa = g->nodes[e->ai].ports[e->ap].speed_gbps, sb = NAN;

	if (e->bi >= 0 && e->both)
		sb = g->nodes[e->bi].ports[e->bp].speed_gbps;
	if (isnan(sa))
		return sb;
	return isnan(sb) || sa < sb ? sa : sb;
}

static int
fits_exactly(const struct wiring_graph *g, int i, int p, const char *want_r)
{
	return want_r[0] == '\0' || strcmp(g->nodes[i].ports[p].receptacle, want_r) == 0;
}

/* Orient e so that its a end is on w's a node; sides and id from it. */
static void
sides_from_edge(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, int *swap, struct wiring_link *l)
{
	*swap = e->ai != w->ai;
	if (!*swap) {
		wiring_side_fill(g, e->ai, e->ap, w->an, &l->a);
		wiring_side_fill(g, e->bi, e->bp, w->bn, &l->b);
	} else {
		wiring_side_fill(g, e->bi, e->bp, w->an, &l->a);
		wiring_side_fill(g, e->ai, e->ap, w->bn, &l->b);
	}
}

static void
link_id(const struct wiring_want *w, const struct wiring_link *l)
{
	const char *ar = w->ar[0] ? w->ar : l->a.receptacle;
	const char *br = w->br[0] ? w->br : l->b.receptacle;
	struct wiring_link *m = (struct wiring_link *)l;

	struct wiring_sb b;

	wiring_sb_init(&b, m->id, sizeof(m->id));
	if (ar[0] && br[0])
		wiring_sb_cat(&b, w->an, ":", ar, "--", w->bn, ":", br, (char *)NULL);
	else
		wiring_sb_cat(&b, w->an, "--", w->bn, (char *)NULL);
}

static unsigned
want_problems(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *oa, const struct wiring_edge *ob,
    int swap)
{
	unsigned bits = 0;

	if (w->ai < 0 || w->bi < 0 || g->nodes[w->ai].freshness != WIRING_REPORT_FRESH ||
	    g->nodes[w->bi].freshness != WIRING_REPORT_FRESH)
		bits |= BIT(WIRING_UNKNOWN);
	if (e == NULL) {
		if (!(bits & BIT(WIRING_UNKNOWN)))
			bits |= (oa || ob) ? BIT(WIRING_MISWIRED) : BIT(WIRING_MISSING);
		return bits;
	}
	bits |= wiring_edge_problems(g, e);
	if (!swap && (!fits_exactly(g, e->ai, e->ap, w->ar) ||
	    (e->bi >= 0 && !fits_exactly(g, e->bi, e->bp, w->br))))
		bits |= BIT(WIRING_MISWIRED);
	if (swap && (!fits_exactly(g, e->ai, e->ap, w->br) ||
	    (e->bi >= 0 && !fits_exactly(g, e->bi, e->bp, w->ar))))
		bits |= BIT(WIRING_MISWIRED);
	return bits;
}

int64_t
wiring_skew_expected(const struct wiring_node *a, const struct wiring_node *b,
    unsigned problems)
{
	if (problems != BIT(WIRING_OS_SKEW) || a->rollout_id == 0 ||
	    a->rollout_id != b->rollout_id || a->rollout_phase == WIRING_RO_NONE ||
	    b->rollout_phase == WIRING_RO_NONE)
		return 0;
	if (a->rollout_phase == WIRING_RO_UPDATED && b->rollout_phase == WIRING_RO_UPDATED)
		return 0;     /* both updated: they should be on the same build */
	if (a->rollout_phase == WIRING_RO_NOT_YET && b->rollout_phase == WIRING_RO_NOT_YET)
		return 0;     /* neither reached: the skew was there before */
	return a->rollout_id;
}

static const char *
phase_text(enum wiring_rollout_phase p)
{
	return p == WIRING_RO_UPDATED ? "updated" : p == WIRING_RO_UPDATING ? "updating" :
	    "not updated yet";
}

/* "os-skew, expected during rollout 3: mac1 (25D125) updated, mac2 (25C56)
 * not updated yet; nothing to fix, the rollout brings both to its target" */
static void
expected_skew_fix(const struct wiring_node *a, const struct wiring_node *b, int64_t id,
    struct wiring_link *l)
{
	struct wiring_sb sb;
	char num[24];

	snprintf(num, sizeof(num), "%lld", (long long)id);
	wiring_sb_init(&sb, l->fix, sizeof(l->fix));
	wiring_sb_cat(&sb, "os-skew, expected during rollout ", num, ": ", a->name, " (",
	    a->os_build, ") ", phase_text(a->rollout_phase), ", ", b->name, " (", b->os_build,
	    ") ", phase_text(b->rollout_phase), "; nothing to fix, the rollout brings both to "
	    "its target", (char *)NULL);
}

void
wiring_judge(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *oa,
    const struct wiring_edge *ob, struct wiring_link *l)
{
	int swap = 0;

	memset(l, 0, sizeof(*l));
	l->speed_gbps = NAN;
	if (e != NULL) {
		sides_from_edge(g, w, e, &swap, l);
		l->speed_gbps = edge_speed(g, e);
	} else {
		int pa = w->ai >= 0 && w->ar[0] ? wiring_graph_port(g, w->ai, w->ar) : -1;
		int pb = w->bi >= 0 && w->br[0] ? wiring_graph_port(g, w->bi, w->br) : -1;

		wiring_side_fill(g, w->ai, pa, w->an, &l->a);
		wiring_side_fill(g, w->bi, pb, w->bn, &l->b);
		if (pa < 0 && w->ar[0])
			snprintf(l->a.receptacle, sizeof(l->a.receptacle), "%s", w->ar);
		if (pb < 0 && w->br[0])
			snprintf(l->b.receptacle, sizeof(l->b.receptacle), "%s", w->br);
	}
	link_id(w, l);
	l->problems = want_problems(g, w, e, oa, ob, swap);
	l->verdict = wiring_first_problem(l->problems);
	l->pass = l->problems == 0;
	l->cabled = e != NULL && e->bi >= 0;
	wiring_fix_text(g, w, e, oa, ob, l);
	if (w->ai >= 0 && w->bi >= 0) {
		const struct wiring_node *na = &g->nodes[w->ai], *nb = &g->nodes[w->bi];

		l->expected_during_rollout = wiring_skew_expected(na, nb, l->problems);
		if (l->expected_during_rollout != 0)
			expected_skew_fix(na, nb, l->expected_during_rollout, l);
	}
}
