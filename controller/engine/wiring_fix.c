/*
 * The words of a verdict: what each end reports (evidence), what is there
 * (actual), and what a person in front of the rack should do (fix), one
 * sentence per problem, the most important first.  The fixes of unknown,
 * missing and miswired are here; the others are the rules'
 * (wiring_rules.c), run in verdict order.
 */
#include "wiring_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BIT(v) (1u << (v))

void
wiring_end_text(const char *node, const char *r, char *out, size_t n)
{
	struct wiring_sb b;

	wiring_sb_init(&b, out, n);
	wiring_sb_cat(&b, node, r[0] ? " tb" : "", r, (char *)NULL);
}

/*
 * Who is at the far end of a cable whose peer domain no port of the
 * cluster reports: a member that has sent no report (or none with its
 * ports) when there is one, named; otherwise a host outside the cluster.
 */
static void
unresolved_text(const struct wiring_graph *g, char *out, size_t n)
{
	int k = 0;

	out[0] = '\0';
	for (int i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].freshness == WIRING_REPORT_NONE || g->nodes[i].n_ports < 0)
			k++;
	if (k == 0) {
		wiring_scopy(out, n, "a host outside the cluster");
		return;
	}
	text_append(out, n, "%s", k == 1 ? "" : "one of ");
	for (int i = 0, j = 0; i < g->n_nodes; i++)
		if (g->nodes[i].freshness == WIRING_REPORT_NONE || g->nodes[i].n_ports < 0)
			text_append(out, n, "%s%s", j++ ? (j == k ? " or " : ", ") : "",
			    g->nodes[i].name);
	text_append(out, n, ", %s without a report", k == 1 ? "a member" : "members");
}

void
wiring_fix_add(struct wiring_link *l, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (l->fix[0])
		text_append(l->fix, sizeof(l->fix), "; ");
	len = strnlen(l->fix, sizeof(l->fix));
	if (len + 1 >= sizeof(l->fix))
		return;
	va_start(ap, fmt);
	vsnprintf(l->fix + len, sizeof(l->fix) - len, fmt, ap);
	va_end(ap);
}

/* "1, 4" free receptacles of node i ("" none or unknown). */
static void
free_ports(const struct wiring_node *nd, char *out, size_t n)
{
	out[0] = '\0';
	for (int p = 0; p < nd->n_ports && p < WIRING_PORTS_MAX; p++)
		if (nd->ports[p].status == PORT_STATUS_EMPTY)
			text_append(out, n, "%stb%s", out[0] ? ", " : "", nd->ports[p].receptacle);
}

static const char *
port_state_word(const struct wiring_node *nd, const char *ifname, const char **dev)
{
	*dev = NULL;
	for (int d = 0; d < nd->n_devices && d < WIRING_DEVICES_MAX; d++)
		if (ifname[0] && strcmp(nd->devices[d].interface, ifname) == 0) {
			*dev = nd->devices[d].name;
			return report_rdma_port_state_str(nd->devices[d].port_state);
		}
	return NULL;
}

static void
port_evidence(const struct wiring_node *nd, const struct wiring_port *wp, struct wiring_sb *b)
{
	const char *dev, *st = port_state_word(nd, wp->interface, &dev);

	const struct wiring_rdma_device *d = wiring_device_for(nd, wp->interface);

	wiring_sb_cat(b, nd->name, " tb", wp->receptacle, (char *)NULL);
	if (wp->interface[0])
		wiring_sb_cat(b, " (", wp->interface, ")", (char *)NULL);
	if (wiring_port_next_to_ethernet(nd, wp))    /* bad-port */
		wiring_sb_cat(b, " next to Ethernet", (char *)NULL);
	wiring_sb_cat(b, ": ", report_port_status_str(wp->status), (char *)NULL);
	if (!isnan(wp->speed_gbps)) {
		wiring_sb_cat(b, " at ", (char *)NULL);
		wiring_sb_num(b, wp->speed_gbps);
		wiring_sb_cat(b, " Gb/s", (char *)NULL);
	}
	if (wp->has_peer) {
		wiring_sb_cat(b, ", peer ", (char *)NULL);
		wiring_sb_putn(b, wp->peer_uuid, 8);
		wiring_sb_cat(b, wp->peer_rdma_service == TRI_FALSE ? " without RDMA service" :
		    wp->peer_rdma_service == TRI_TRUE ? " with RDMA service" : "", (char *)NULL);
		if (wp->via_hub == TRI_TRUE)    /* via-hub */
			wiring_sb_cat(b, " behind a dock or hub", wp->hub[0] ? " (" : "", wp->hub,
			    wp->hub[0] ? ")" : "", (char *)NULL);
	}
	if (wp->n_ipv4 == 0)
		wiring_sb_cat(b, ", no IPv4", (char *)NULL);
	else if (wp->ipv4[0])
		wiring_sb_cat(b, ", IPv4 ", wp->ipv4, (char *)NULL);
	if (st)
		wiring_sb_cat(b, ", ", dev, " ", st, (char *)NULL);
	if (st && d != NULL && d->ipv4_gid == TRI_FALSE)    /* no-gid */
		wiring_sb_cat(b, " without an IPv4-mapped GID", (char *)NULL);
	else if (!st && nd->rdma == RDMA_STATE_ENABLED)
		wiring_sb_cat(b, ", no RDMA device", (char *)NULL);
}

void
wiring_evidence(const struct wiring_graph *g, int i, int p, const char *name,
    char *out, size_t n)
{
	const struct wiring_node *nd;
	struct wiring_sb b;
	char fp[128];

	wiring_sb_init(&b, out, n);
	if (i < 0) {
		wiring_sb_cat(&b, name, " is not a node of this cluster", (char *)NULL);
		return;
	}
	nd = &g->nodes[i];
	if (nd->freshness == WIRING_REPORT_NONE) {
		wiring_sb_cat(&b, "no report from ", nd->name, (char *)NULL);
		return;
	}
	if (p >= 0)
		port_evidence(nd, &nd->ports[p], &b);
	else {
		free_ports(nd, fp, sizeof(fp));
		wiring_sb_cat(&b, nd->name, ": no cable to this peer; free receptacles: ",
		    fp[0] ? fp : "none", (char *)NULL);
	}
	wiring_sb_cat(&b, "; RDMA ", report_rdma_state_str(nd->rdma), (char *)NULL);
	if (nd->rdma == RDMA_STATE_ENABLED && nd->n_devices == 0)
		wiring_sb_cat(&b, ", ibv_devices lists none", (char *)NULL);
	if (nd->bridge_active == TRI_TRUE)
		wiring_sb_cat(&b, "; Thunderbolt Bridge active", (char *)NULL);
	if (wiring_node_tb4(nd))
		wiring_sb_cat(&b, "; Thunderbolt 4 (free ports up to 40 Gb/s)", (char *)NULL);
	if (nd->os_build[0])
		wiring_sb_cat(&b, "; build ", nd->os_build, (char *)NULL);
	if (nd->facts_stale) {
		wiring_sb_cat(&b, "; Thunderbolt and RDMA facts stale (read ", (char *)NULL);
		wiring_sb_num(&b, floor(nd->facts_age));
		wiring_sb_cat(&b, " s before the report)", (char *)NULL);
	} else if (nd->freshness == WIRING_REPORT_STALE)
		wiring_sb_cat(&b, "; report stale", (char *)NULL);
}

void
wiring_actual_text(const struct wiring_graph *g, const struct wiring_edge *e, char *out,
    size_t n)
{
	const struct wiring_node *a = &g->nodes[e->ai];
	double s = a->ports[e->ap].speed_gbps;
	struct wiring_sb b;

	wiring_sb_init(&b, out, n);
	wiring_sb_cat(&b, a->name, " tb", a->ports[e->ap].receptacle, " -- ", (char *)NULL);
	if (e->bi < 0) {
		char who[160];

		unresolved_text(g, who, sizeof(who));
		wiring_sb_cat(&b, who, " (domain ", (char *)NULL);
		wiring_sb_putn(&b, a->ports[e->ap].peer_uuid, 8);
		wiring_sb_cat(&b, ")", (char *)NULL);
	} else
		wiring_sb_cat(&b, g->nodes[e->bi].name, " tb",
		    g->nodes[e->bi].ports[e->bp].receptacle, (char *)NULL);
	if (!e->both && e->bi >= 0)
		wiring_sb_cat(&b, " (seen from ", a->name, " only)", (char *)NULL);
	if (!isnan(s)) {
		wiring_sb_cat(&b, " at ", (char *)NULL);
		wiring_sb_num(&b, s);
		wiring_sb_cat(&b, " Gb/s", (char *)NULL);
	}
}

static void
fix_unknown(const struct wiring_graph *g, const struct wiring_want *w, struct wiring_link *l)
{
	const int idx[2] = {w->ai, w->bi};
	const char *names[2] = {w->an, w->bn};

	for (int k = 0; k < 2; k++) {
		char msg[200] = "";

		if (idx[k] < 0)
			snprintf(msg, sizeof(msg), "add %s to the cluster or take it out of the plan",
			    names[k]);
		else if (g->nodes[idx[k]].facts_stale)
			snprintf(msg, sizeof(msg), "%s's last report carries Thunderbolt and RDMA "
			    "facts read %.0f s before it: check that tbagentd's Thunderbolt "
			    "collection runs there (see the errors in its report)", names[k],
			    floor(g->nodes[idx[k]].facts_age));
		else if (g->nodes[idx[k]].freshness != WIRING_REPORT_FRESH)
			snprintf(msg, sizeof(msg), "get a fresh report from %s: check that tbagentd "
			    "runs there and reaches the controller", names[k]);
		else if (g->nodes[idx[k]].rdma == RDMA_STATE_UNKNOWN)
			snprintf(msg, sizeof(msg), "%s could not read its RDMA state (rdma_ctl "
			    "status): see the errors in its report", names[k]);
		if (msg[0] && (k == 0 || idx[0] != idx[1]))
			wiring_fix_add(l, "%s", msg);
	}
}

static void
fix_missing(const struct wiring_graph *g, const struct wiring_want *w, struct wiring_link *l)
{
	char fa[96], fb[96];

	if (w->ar[0] && w->br[0]) {
		wiring_fix_add(l, "connect a Thunderbolt 5 cable from %s receptacle %s to %s "
		    "receptacle %s", w->an, w->ar, w->bn, w->br);
		return;
	}
	free_ports(&g->nodes[w->ai], fa, sizeof(fa));
	free_ports(&g->nodes[w->bi], fb, sizeof(fb));
	wiring_fix_add(l, "connect a Thunderbolt 5 cable between %s and %s (free: %s %s; %s %s)",
	    w->an, w->bn, w->an, fa[0] ? fa : "none", w->bn, fb[0] ? fb : "none");
}

/* The far end (from node i, port p) of edge e: its text. */
static void
far_text(const struct wiring_graph *g, const struct wiring_edge *e, int i, int p, char *out,
    size_t n)
{
	if (e->ai == i && e->ap == p) {
		if (e->bi < 0)
			unresolved_text(g, out, n);
		else
			wiring_end_text(g->nodes[e->bi].name, g->nodes[e->bi].ports[e->bp].receptacle,
			    out, n);
	} else
		wiring_end_text(g->nodes[e->ai].name, g->nodes[e->ai].ports[e->ap].receptacle, out,
		    n);
}

/* Where to plug: "mac4 receptacle 6", or "a free receptacle of mac4" when
 * the plan leaves that end's receptacle open. */
static void
plug_text(const char *node, const char *r, char *out, size_t n)
{
	if (r[0])
		snprintf(out, n, "%s receptacle %s", node, r);
	else
		snprintf(out, n, "a free receptacle of %s", node);
}

static void
fix_miswired(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *oa,
    const struct wiring_edge *ob, struct wiring_link *l)
{
	char far[192], to[96];

	if (e != NULL) {
		if (w->ar[0] && strcmp(l->a.receptacle, w->ar) != 0)
			wiring_fix_add(l, "move the cable on %s receptacle %s to %s receptacle %s",
			    w->an, l->a.receptacle, w->an, w->ar);
		if (w->br[0] && strcmp(l->b.receptacle, w->br) != 0)
			wiring_fix_add(l, "move the cable on %s receptacle %s to %s receptacle %s",
			    w->bn, l->b.receptacle, w->bn, w->br);
		return;
	}
	if (oa) {
		far_text(g, oa, w->ai, wiring_graph_port(g, w->ai, w->ar), far, sizeof(far));
		plug_text(w->bn, w->br, to, sizeof(to));
		wiring_fix_add(l, "the cable on %s receptacle %s goes to %s: move its far end "
		    "to %s", w->an, w->ar, far, to);
	}
	if (ob) {
		far_text(g, ob, w->bi, wiring_graph_port(g, w->bi, w->br), far, sizeof(far));
		plug_text(w->an, w->ar, to, sizeof(to));
		wiring_fix_add(l, "the cable on %s receptacle %s goes to %s: move its far end "
		    "to %s", w->bn, w->br, far, to);
	}
}

/* The fix_end fixes of verdicts from..to-1 that link l has, end by end. */
static void
fix_ends(const struct wiring_graph *g, int from, int to, struct wiring_link *l)
{
	const struct wiring_side *sides[2] = {&l->a, &l->b};

	for (int k = 0; k < 2; k++) {
		int i = wiring_graph_node(g, sides[k]->node), p;

		if (i < 0 || g->nodes[i].freshness != WIRING_REPORT_FRESH)
			continue;
		p = sides[k]->receptacle[0] ? wiring_graph_port(g, i, sides[k]->receptacle) : -1;
		for (int v = from; v < to; v++)
			if (l->problems & BIT(v))
				wiring_rules[v].fix_end(g, i, p, sides[k], l);
	}
}

/* The rules' fixes for the cable e found for link l, in verdict order. */
static void
fix_rules(const struct wiring_graph *g, const struct wiring_edge *e, struct wiring_link *l)
{
	int v = 0;

	while (v < WIRING_VERDICT_COUNT) {
		int to = v;

		while (to < WIRING_VERDICT_COUNT && wiring_rules[to].fix_end)
			to++;
		if (to > v) {
			fix_ends(g, v, to, l);
			v = to;
			continue;
		}
		if (wiring_rules[v].fix_cable && (l->problems & BIT(v)))
			wiring_rules[v].fix_cable(g, e, l);
		v++;
	}
}

static void
link_texts(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *oa,
    const struct wiring_edge *ob, struct wiring_link *l)
{
	char ea[96], eb[96];
	int pa, pb;

	struct wiring_sb b;

	wiring_end_text(w->an, w->ar, ea, sizeof(ea));
	wiring_end_text(w->bn, w->br, eb, sizeof(eb));
	wiring_sb_init(&b, l->expected, sizeof(l->expected));
	wiring_sb_cat(&b, ea, " -- ", eb, (char *)NULL);
	if (e)
		wiring_actual_text(g, e, l->actual, sizeof(l->actual));
	else if (oa || ob)
		wiring_actual_text(g, oa ? oa : ob, l->actual, sizeof(l->actual));
	else
		wiring_scopy(l->actual, sizeof(l->actual), "no cable");
	pa = w->ai >= 0 && l->a.receptacle[0] ? wiring_graph_port(g, w->ai, l->a.receptacle) : -1;
	pb = w->bi >= 0 && l->b.receptacle[0] ? wiring_graph_port(g, w->bi, l->b.receptacle) : -1;
	wiring_evidence(g, w->ai, pa, w->an, l->evidence_a, sizeof(l->evidence_a));
	wiring_evidence(g, w->bi, pb, w->bn, l->evidence_b, sizeof(l->evidence_b));
}

void
wiring_fix_text(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *oa,
    const struct wiring_edge *ob, struct wiring_link *l)
{
	link_texts(g, w, e, oa, ob, l);
	l->fix[0] = '\0';
	if (l->problems & BIT(WIRING_UNKNOWN))
		fix_unknown(g, w, l);
	if (l->problems & BIT(WIRING_MISSING))
		fix_missing(g, w, l);
	if (l->problems & BIT(WIRING_MISWIRED))
		fix_miswired(g, w, e, oa, ob, l);
	if (e != NULL)
		fix_rules(g, e, l);
}

/* Does another, matched edge join the same two nodes as e? */
static int
duplicate_pair(const struct wiring_graph *g, const struct wiring_edge *e)
{
	for (int k = 0; k < g->n_edges; k++) {
		const struct wiring_edge *o = &g->edges[k];

		if (o != e && o->used && ((o->ai == e->ai && o->bi == e->bi) ||
		    (o->ai == e->bi && o->bi == e->ai)))
			return 1;
	}
	return 0;
}

void
wiring_unexpected_fix(const struct wiring_graph *g, const struct wiring_edge *e,
    struct wiring_link *l)
{
	struct wiring_want w;
	char ta[96], tb[96];

	memset(l, 0, sizeof(*l));
	wiring_side_fill(g, e->ai, e->ap, "", &l->a);
	wiring_side_fill(g, e->bi, e->bp, "", &l->b);
	w.ai = e->ai;
	w.bi = e->bi;
	w.an = l->a.node;
	w.bn = l->b.node;
	w.ar = l->a.receptacle;
	w.br = l->b.receptacle;
	snprintf(l->id, sizeof(l->id), "%s:%s--%s:%s", w.an, w.ar, e->bi >= 0 ? w.bn : "?",
	    e->bi >= 0 ? w.br : "?");
	l->speed_gbps = g->nodes[e->ai].ports[e->ap].speed_gbps;
	l->problems = wiring_edge_problems(g, e);
	l->verdict = wiring_first_problem(l->problems);
	l->pass = l->problems == 0;
	l->cabled = e->bi >= 0;
	wiring_actual_text(g, e, l->actual, sizeof(l->actual));
	snprintf(l->expected, sizeof(l->expected), "nothing");
	wiring_evidence(g, e->ai, e->ap, w.an, l->evidence_a, sizeof(l->evidence_a));
	if (e->bi < 0) {
		char who[160];

		unresolved_text(g, who, sizeof(who));
		if (strcmp(who, "a host outside the cluster") == 0)
			snprintf(l->fix, sizeof(l->fix), "%s receptacle %s is cabled to a host "
			    "outside the cluster: add that Mac to the cluster or unplug the cable",
			    w.an, w.ar);
		else
			snprintf(l->fix, sizeof(l->fix), "%s receptacle %s is cabled to a host that "
			    "does not report, probably %s: get its tbagentd reporting (accept it "
			    "if it is pending)", w.an, w.ar, who);
		return;
	}
	wiring_evidence(g, e->bi, e->both ? e->bp : -1, w.bn, l->evidence_b,
	    sizeof(l->evidence_b));
	wiring_end_text(w.an, w.ar, ta, sizeof(ta));
	wiring_end_text(w.bn, w.br, tb, sizeof(tb));
	if (duplicate_pair(g, e))
		snprintf(l->fix, sizeof(l->fix), "a second cable joins %s and %s (%s -- %s): "
		    "unplug it, or keep it as a spare", w.an, w.bn, ta, tb);
	else
		snprintf(l->fix, sizeof(l->fix), "the cable %s -- %s is not in the expected "
		    "topology: unplug it, or add it to the plan", ta, tb);
}
