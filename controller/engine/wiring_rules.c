/*
 * The verdicts a cable can have, each a check and a fix, and the table
 * (wiring_rules[]) that wiring_verdict.c and wiring_fix.c walk: see struct
 * wiring_rule in wiring_int.h for when each function is called.
 *
 * Adding a verdict: its row in proto's WIRING_VERDICTS (word, meaning,
 * place in the order), then here its check, its fix and its row.  The
 * evidence (wiring_fix.c) states what an end reports whatever its verdict;
 * a verdict that rests on a fact it does not show yet adds it there.
 */
#include "wiring_int.h"

#include <math.h>
#include <string.h>

#define BIT(v) (1u << (v))
#define DEGRADED_FIX "Thunderbolt 5 needs an active cable or a passive one of at most 0.8 m"

/* ---- one-sided ------------------------------------------------------ */

static int
one_sided(const struct wiring_graph *g, const struct wiring_edge *e)
{
	(void)g;
	return !e->both;
}

static void
one_sided_fix(const struct wiring_graph *g, const struct wiring_edge *e, struct wiring_link *l)
{
	char ta[96], tb[96];

	wiring_end_text(l->a.node, l->a.receptacle, ta, sizeof(ta));
	wiring_end_text(l->b.node, l->b.receptacle, tb, sizeof(tb));
	wiring_fix_add(l, "only %s sees the cable between %s and %s: reseat it at both ends, "
	    "and replace it if that does not help", g->nodes[e->ai].name, ta, tb);
}

/* ---- via-hub -------------------------------------------------------- */

/*
 * The cable goes through a dock or hub: the Mac at the far end of one of
 * its ports is nested in another device's _items in system_profiler
 * SPThunderboltDataType (the agent's via_hub).  The far end sees that Mac
 * as direct (issue 19's research, point 2: the M3 Ultra / M4 Max capture
 * through a ThunderBay Flex 8 at 40 Gb/s, "RDMA works only over the 80
 * Gb/s one"), so either end's word is enough; a one-sided cable's far end
 * reports something else on that port and has no say.  No RDMA runs over
 * it: the hub also explains the link's speed and its RDMA ports down, so
 * degraded's fix (a shorter or active cable) and port-down's (reseat,
 * reboot) are not told.
 */
static int
via_hub_port(const struct wiring_graph *g, int i, int p)
{
	return i >= 0 && p >= 0 && g->nodes[i].ports[p].via_hub == TRI_TRUE;
}

static int
via_hub(const struct wiring_graph *g, const struct wiring_edge *e)
{
	return via_hub_port(g, e->ai, e->ap) || (e->both && via_hub_port(g, e->bi, e->bp));
}

/* "the CalDigit TS4", or "the dock or hub" when it has no name. */
static const char *
hub_name(const struct wiring_port *wp, char *out, size_t n)
{
	struct wiring_sb b;

	wiring_sb_init(&b, out, n);
	wiring_sb_cat(&b, "the ", wp->hub[0] ? wp->hub : "dock or hub", (char *)NULL);
	return out;
}

static void
via_hub_fix(const struct wiring_graph *g, const struct wiring_edge *e, struct wiring_link *l)
{
	const struct wiring_node *a = &g->nodes[e->ai];
	const struct wiring_port *pa = &a->ports[e->ap], *pb;
	char ha[96], hb[96];

	if (e->bi < 0)
		return;
	pb = &g->nodes[e->bi].ports[e->bp];
	if (!e->both || !via_hub_port(g, e->bi, e->bp)) {
		/* a's port goes to the hub */
		wiring_fix_add(l, "unplug %s receptacle %s from %s and cable it directly to %s "
		    "receptacle %s: RDMA needs a direct Thunderbolt 5 cable, not a dock or hub",
		    a->name, pa->receptacle, hub_name(pa, ha, sizeof(ha)), g->nodes[e->bi].name,
		    pb->receptacle);
	} else if (!via_hub_port(g, e->ai, e->ap)) {
		wiring_fix_add(l, "unplug %s receptacle %s from %s and cable it directly to %s "
		    "receptacle %s: RDMA needs a direct Thunderbolt 5 cable, not a dock or hub",
		    g->nodes[e->bi].name, pb->receptacle, hub_name(pb, hb, sizeof(hb)), a->name,
		    pa->receptacle);
	} else if (strcmp(pa->hub, pb->hub) == 0) {
		wiring_fix_add(l, "unplug %s receptacle %s and %s receptacle %s from %s and cable "
		    "them directly to each other: RDMA needs a direct Thunderbolt 5 cable, not a "
		    "dock or hub", a->name, pa->receptacle, g->nodes[e->bi].name, pb->receptacle,
		    hub_name(pa, ha, sizeof(ha)));
	} else {
		wiring_fix_add(l, "unplug %s receptacle %s from %s and %s receptacle %s from %s "
		    "and cable them directly to each other: RDMA needs a direct Thunderbolt 5 "
		    "cable, not a dock or hub", a->name, pa->receptacle,
		    hub_name(pa, ha, sizeof(ha)), g->nodes[e->bi].name, pb->receptacle,
		    hub_name(pb, hb, sizeof(hb)));
	}
}

/* ---- bad-port ------------------------------------------------------- */

/*
 * A Mac Studio's Thunderbolt 5 port next to the Ethernet port does not
 * carry RDMA.  The rule is exo's (exo-explore/exo PR 1551, "Mac Studio en2
 * RDMA port warning", dashboard/src/routes/+page.svelte L160-205: a node
 * whose model name is "Mac Studio", an edge whose RDMA interface is
 * rdma_en2, RDMA enabled at that node; README L298, caveat 3: "On a Mac
 * Studio, you cannot use the Thunderbolt 5 port next to the Ethernet
 * port").  exo names the interface from `networksetup
 * -listallhardwareports`, where en2 is "Thunderbolt 1", receptacle 1 on
 * the M3 Ultra and M4 Max Studios captured (issue 19's research, point 1).
 * The port must be both, as on every Studio captured: a Studio that maps
 * its ports otherwise (tests/fixtures/macos's synthetic one has en2 on
 * receptacle 2) gives no evidence which of them is next to Ethernet, and
 * is not judged.  The mapping is read, not computed: the port's receptacle
 * and interface as the agent reports them, the machine's name from
 * SPHardwareDataType.
 */
int
wiring_port_next_to_ethernet(const struct wiring_node *n, const struct wiring_port *p)
{
	return strcmp(n->machine_name, "Mac Studio") == 0 && strcmp(p->interface, "en2") == 0 &&
	    strcmp(p->receptacle, "1") == 0;
}

static int
bad_port(const struct wiring_graph *g, int i, int p)
{
	const struct wiring_node *n = &g->nodes[i];

	return n->rdma == RDMA_STATE_ENABLED && wiring_port_next_to_ethernet(n, &n->ports[p]);
}

/* "2, 3": node i's empty receptacles that carry RDMA ("" none). */
static void
free_rdma_ports(const struct wiring_graph *g, int i, char *out, size_t n)
{
	const struct wiring_node *nd = &g->nodes[i];

	out[0] = '\0';
	for (int p = 0; p < nd->n_ports && p < WIRING_PORTS_MAX; p++)
		if (nd->ports[p].status == PORT_STATUS_EMPTY &&
		    wiring_port_carries_rdma(g->nodes, g->n_nodes, i, &nd->ports[p]))
			text_append(out, n, "%s%s", out[0] ? ", " : "", nd->ports[p].receptacle);
}

static void
bad_port_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i];
	char fr[128];

	(void)s;
	if (p < 0 || !bad_port(g, i, p))
		return;
	free_rdma_ports(g, i, fr, sizeof(fr));
	if (fr[0])
		wiring_fix_add(l, "move the cable from %s receptacle %s (next to Ethernet) to a "
		    "free Thunderbolt 5 port: %s; on a Mac Studio the port next to Ethernet (%s) "
		    "carries no RDMA", nd->name, nd->ports[p].receptacle, fr,
		    nd->ports[p].interface);
	else
		wiring_fix_add(l, "move the cable from %s receptacle %s (next to Ethernet) to "
		    "another Thunderbolt 5 port of %s (none is free: unplug a cable it does not "
		    "need); on a Mac Studio the port next to Ethernet (%s) carries no RDMA",
		    nd->name, nd->ports[p].receptacle, nd->name, nd->ports[p].interface);
}

/* ---- bridge-loop ---------------------------------------------------- */

static int
bridge_loop(const struct wiring_node *n)
{
	return n->bridge_active == TRI_TRUE && n->bridge_tb_members != 0;
}

static void
bridge_loop_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	(void)p;
	(void)s;
	if (bridge_loop(&g->nodes[i]))
		wiring_fix_add(l, "turn off the Thunderbolt Bridge on %s (networksetup "
		    "-setnetworkserviceenabled \"Thunderbolt Bridge\" off)", g->nodes[i].name);
}

/* ---- rdma-unavailable ----------------------------------------------- */

/*
 * rdma_ctl says enabled, and ibv_devices ran and lists nothing: the Mac
 * cannot do RDMA over Thunderbolt at all.  ml-explore/mlx issue 3777: M4
 * Mac minis (Thunderbolt 4) with `rdma_ctl status` "enabled" (and nvram
 * rdma-enable 1, after rdma_ctl enable twice and a cold boot) and an empty
 * `ibv_devices`, which MLX reports as "does not seem to have RDMA enabled":
 * RDMA over Thunderbolt needs Thunderbolt 5 (exo issue 1915).  exo PR 1813
 * (closed) saw rdma_enX devices on Thunderbolt 4 minis under macOS 26, so
 * a Mac with devices is not judged here: only an empty list is this
 * verdict.  A list not read (n_devices -1) is no evidence either way.
 */
static int
rdma_unavailable(const struct wiring_node *n)
{
	return n->rdma == RDMA_STATE_ENABLED && n->n_devices == 0;
}

/* Node i's side of link l, and the other side's node if it is a member
 * with a fresh report. */
static const struct wiring_node *
other_end(const struct wiring_graph *g, const struct wiring_side *s,
    const struct wiring_link *l)
{
	const struct wiring_side *o = s == &l->a ? &l->b : &l->a;
	int j = wiring_graph_node(g, o->node);

	return j >= 0 && g->nodes[j].freshness == WIRING_REPORT_FRESH ? &g->nodes[j] : NULL;
}

static void
rdma_unavailable_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i], *o = other_end(g, s, l);
	int both = o != NULL && o != nd && rdma_unavailable(o);

	(void)p;
	if (!rdma_unavailable(nd) || (both && s == &l->b))
		return;     /* not this end's problem, or said with a's */
	if (both)
		wiring_fix_add(l, "%s and %s report RDMA enabled but no RDMA device: RDMA over "
		    "Thunderbolt needs Thunderbolt 5 at both ends (MLX issue 3777); use Macs with "
		    "Thunderbolt 5 ports, or, if they have them, restart them and check that "
		    "ibv_devices lists their rdma_en devices", nd->name, o->name);
	else
		wiring_fix_add(l, "%s reports RDMA enabled but no RDMA device: RDMA over "
		    "Thunderbolt needs Thunderbolt 5 at both ends (MLX issue 3777); use a Mac with "
		    "Thunderbolt 5 ports, or, if %s has them, restart it and check that "
		    "ibv_devices lists its rdma_en devices", nd->name, nd->name);
}

/* ---- rdma-off ------------------------------------------------------- */

static int
rdma_off_node(const struct wiring_node *n)
{
	return n->rdma == RDMA_STATE_DISABLED;
}

/* The member at the far end of node i's port p, or -1. */
static int
far_node(const struct wiring_graph *g, int i, int p)
{
	int k = g->port_edge[i][p];
	const struct wiring_edge *e;

	if (k < 0)
		return -1;
	e = &g->edges[k];
	return e->ai == i && e->ap == p ? e->bi : e->ai;
}

/*
 * The far end sees no RDMA service here, or RDMA is on and the port's
 * interface has no RDMA device.  Not when rdma-unavailable explains it:
 * this end has no RDMA device at all (nor a say on its peers' services),
 * or the far end has none (and may advertise no service).
 */
static int
rdma_off_end(const struct wiring_graph *g, int i, int p)
{
	const struct wiring_node *n = &g->nodes[i];
	const struct wiring_port *wp = &n->ports[p];
	int f;

	if (rdma_unavailable(n))
		return 0;
	if (wp->peer_rdma_service == TRI_FALSE &&
	    !((f = far_node(g, i, p)) >= 0 && rdma_unavailable(&g->nodes[f])))
		return 1;
	return n->rdma == RDMA_STATE_ENABLED && n->n_devices >= 0 && wp->interface[0] &&
	    !wiring_device_for(n, wp->interface);
}

static void
rdma_off_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i];

	(void)s;
	if (rdma_unavailable(nd))
		return;     /* no receptacle of it carries RDMA: rdma-unavailable's fix says why */
	if (nd->rdma == RDMA_STATE_DISABLED)
		wiring_fix_add(l, "boot %s into Recovery and run rdma_ctl enable", nd->name);
	else if (p >= 0 && !wiring_port_carries_rdma(g->nodes, g->n_nodes, i, &nd->ports[p]))
		wiring_fix_add(l, "move the cable off %s receptacle %s: it does not carry RDMA",
		    nd->name, nd->ports[p].receptacle);
}

/* ---- port-down ------------------------------------------------------ */

static int
port_down(const struct wiring_graph *g, int i, int p)
{
	const struct wiring_node *n = &g->nodes[i];
	const struct wiring_rdma_device *d = wiring_device_for(n, n->ports[p].interface);

	return d && d->port_state == RDMA_PORT_DOWN;
}

static void
port_down_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i];
	const struct wiring_rdma_device *d;

	if (!s->rdma_device[0] || p < 0)
		return;
	d = wiring_device_for(nd, nd->ports[p].interface);
	if (d && d->port_state == RDMA_PORT_DOWN)
		wiring_fix_add(l, "%s on %s is down with the cable up: reseat the cable, check "
		    "rdma_ctl status at both ends, then reboot %s if it stays down", d->name,
		    nd->name, nd->name);
}

/* ---- no-ipv4 -------------------------------------------------------- */

static int
no_ipv4(const struct wiring_graph *g, int i, int p)
{
	return g->nodes[i].ports[p].n_ipv4 == 0;
}

static void
no_ipv4_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i];

	(void)s;
	if (p >= 0 && nd->ports[p].n_ipv4 == 0)
		wiring_fix_add(l, "give %s %s (receptacle %s) an IPv4 address: JACCL cannot start "
		    "without one", nd->name, nd->ports[p].interface[0] ? nd->ports[p].interface :
		    "its interface", nd->ports[p].receptacle);
}

/* ---- no-gid --------------------------------------------------------- */

/*
 * The port's RDMA device lists no IPv4-mapped GID (::ffff:a.b.c.d) though
 * its interface has an IPv4 address (without one, no-ipv4 says it).
 * JACCL picks the GID of a Thunderbolt RDMA port by that form and fails
 * without one (ml-explore/mlx mlx/distributed/jaccl/lib/jaccl/rdma.cpp,
 * Connection::info(); the error PR 4191 added: "No IPv4-mapped GID for
 * this device. Thunderbolt RDMA ports only publish one once the interface
 * has an IPv4 address"; before it, issue 3467's "Changing queue pair to
 * RTR failed with errno 22").  A GID list not read (TRI_NULL) is no
 * evidence.
 */
static int
no_gid(const struct wiring_graph *g, int i, int p)
{
	const struct wiring_node *n = &g->nodes[i];
	const struct wiring_rdma_device *d = wiring_device_for(n, n->ports[p].interface);

	return d && d->ipv4_gid == TRI_FALSE && n->ports[p].n_ipv4 > 0;
}

static void
no_gid_fix(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
    struct wiring_link *l)
{
	const struct wiring_node *nd = &g->nodes[i];
	const char *ifn;

	(void)s;
	if (p < 0 || !no_gid(g, i, p))
		return;
	ifn = nd->ports[p].interface;
	/*
	 * One address per end of each cable, which node add computes: a fixed
	 * address (PR 4191's example, 169.254.0.1) typed on both ends of a
	 * cable, or on two ports of one Mac, would clash.
	 */
	wiring_fix_add(l, "%s on %s lists no IPv4-mapped GID, which JACCL needs (MLX PR 4191): "
	    "give %s its static per-cable address (tbctl node add %s%s%s)",
	    wiring_device_for(nd, ifn)->name, nd->name, ifn, nd->ssh_host[0] ? nd->ssh_host :
	    nd->name, g->cluster[0] ? " --cluster " : "", g->cluster);
}

/* ---- degraded ------------------------------------------------------- */

static int
degraded(const struct wiring_graph *g, int i, int p)
{
	double s = g->nodes[i].ports[p].speed_gbps;

	return !isnan(s) && s < WIRING_SPEED_FULL_GBPS;
}

/*
 * A Thunderbolt 4 Mac: a connected port shows only the negotiated rate
 * ("40 Gb/s"), an empty one what the port can do, "Up to 40 Gb/s" on
 * Thunderbolt 4 and "Up to 120 Gb/s" on Thunderbolt 5 (issue 19's
 * research, point 3: the MacBook Pro host bus capture, the M4 Mac mini
 * sample; all host ports of a Mac share a generation).  So a node is
 * Thunderbolt 4 when an empty port reads 40 and none 120; a Mac with every
 * port in use gives no evidence, and its slow link stays a cable's fault.
 * RDMA over Thunderbolt needs Thunderbolt 5 at both ends (exo README L275,
 * exo issue 1915).
 */
int
wiring_node_tb4(const struct wiring_node *n)
{
	int tb4 = 0;

	for (int p = 0; p < n->n_ports && p < WIRING_PORTS_MAX; p++) {
		double m = n->ports[p].max_speed_gbps;

		if (n->ports[p].status != PORT_STATUS_EMPTY || isnan(m))
			continue;
		if (m > 40)
			return 0;
		tb4 |= m == 40;
	}
	return tb4;
}

static void
degraded_fix(const struct wiring_graph *g, const struct wiring_edge *e, struct wiring_link *l)
{
	const struct wiring_node *a = &g->nodes[e->ai], *b = e->bi >= 0 ? &g->nodes[e->bi] : NULL;
	int ta4 = wiring_node_tb4(a), tb4 = b != NULL && wiring_node_tb4(b);
	char ta[96], tb[96];

	if (ta4 && tb4) {    /* named as the link names its ends */
		wiring_fix_add(l, "%s's and %s's ports are Thunderbolt 4: RDMA needs Thunderbolt 5 "
		    "at both ends (the link runs at %g Gb/s; their free ports say \"Up to 40 "
		    "Gb/s\")", l->a.node, l->b.node, l->speed_gbps);
		return;
	}
	if (ta4 || tb4) {
		wiring_fix_add(l, "%s's port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both "
		    "ends (the link runs at %g Gb/s; its free ports say \"Up to 40 Gb/s\")",
		    ta4 ? a->name : b->name, l->speed_gbps);
		return;
	}
	wiring_end_text(l->a.node, l->a.receptacle, ta, sizeof(ta));
	wiring_end_text(l->b.node, l->b.receptacle, tb, sizeof(tb));
	wiring_fix_add(l, "replace the cable between %s and %s: it runs at %g Gb/s; "
	    DEGRADED_FIX, ta, tb, l->speed_gbps);
}

/* ---- os-skew -------------------------------------------------------- */

static int
os_skew(const struct wiring_graph *g, const struct wiring_edge *e)
{
	const struct wiring_node *a = &g->nodes[e->ai], *b = &g->nodes[e->bi];

	return a->os_build[0] && b->os_build[0] && strcmp(a->os_build, b->os_build) != 0;
}

static void
os_skew_fix(const struct wiring_graph *g, const struct wiring_edge *e, struct wiring_link *l)
{
	const struct wiring_node *a = &g->nodes[e->ai];

	if (e->bi >= 0)
		wiring_fix_add(l, "bring %s (%s) and %s (%s) to the same macOS build", a->name,
		    a->os_build, g->nodes[e->bi].name, g->nodes[e->bi].os_build);
}

/* ---- the table ------------------------------------------------------ */

const struct wiring_rule wiring_rules[WIRING_VERDICT_COUNT] = {
	[WIRING_PASS] = {.verdict = WIRING_PASS, .structural = 1},
	[WIRING_UNKNOWN] = {.verdict = WIRING_UNKNOWN, .structural = 1},
	[WIRING_MISSING] = {.verdict = WIRING_MISSING, .structural = 1},
	[WIRING_MISWIRED] = {.verdict = WIRING_MISWIRED, .structural = 1},
	[WIRING_ONE_SIDED] = {.verdict = WIRING_ONE_SIDED, .cable = one_sided,
	    .fix_cable = one_sided_fix},
	/* the hub is why the link is slow and its RDMA ports down: the cause only */
	[WIRING_VIA_HUB] = {.verdict = WIRING_VIA_HUB, .cable = via_hub,
	    .hides = BIT(WIRING_PORT_DOWN) | BIT(WIRING_DEGRADED), .fix_cable = via_hub_fix},
	/* that port's RDMA device is down because the port carries none: the
	 * cause only */
	[WIRING_BAD_PORT] = {.verdict = WIRING_BAD_PORT, .end = bad_port,
	    .hides = BIT(WIRING_PORT_DOWN), .fix_end = bad_port_fix},
	[WIRING_BRIDGE_LOOP] = {.verdict = WIRING_BRIDGE_LOOP, .node = bridge_loop,
	    .fix_end = bridge_loop_fix},
	/* the far end's port is down because this end has no RDMA device: the
	 * cause only */
	[WIRING_RDMA_UNAVAILABLE] = {.verdict = WIRING_RDMA_UNAVAILABLE,
	    .node = rdma_unavailable, .hides = BIT(WIRING_PORT_DOWN),
	    .fix_end = rdma_unavailable_fix},
	/* a port is down because RDMA is off: say the cause only */
	[WIRING_RDMA_OFF] = {.verdict = WIRING_RDMA_OFF, .node = rdma_off_node,
	    .end = rdma_off_end, .hides = BIT(WIRING_PORT_DOWN), .fix_end = rdma_off_fix},
	[WIRING_PORT_DOWN] = {.verdict = WIRING_PORT_DOWN, .end = port_down,
	    .fix_end = port_down_fix},
	[WIRING_NO_IPV4] = {.verdict = WIRING_NO_IPV4, .end = no_ipv4, .fix_end = no_ipv4_fix},
	[WIRING_NO_GID] = {.verdict = WIRING_NO_GID, .end = no_gid, .fix_end = no_gid_fix},
	[WIRING_DEGRADED] = {.verdict = WIRING_DEGRADED, .end = degraded,
	    .fix_cable = degraded_fix},
	[WIRING_OS_SKEW] = {.verdict = WIRING_OS_SKEW, .cable = os_skew,
	    .fix_cable = os_skew_fix},
};
