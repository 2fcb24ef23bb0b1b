/*
 * via-hub: a cable that goes through a dock or hub.  The rule's source is
 * the real system_profiler SPThunderboltDataType -json captures: a Mac
 * plugged straight into a port is the bus's first-level _items entry with
 * a domain_uuid_key (tests/fixtures/captures/omlx-plus, the M3 Ultra Mac
 * Studio's bus_1 holding the MacBook Pro; osaurus, the two MacBook Pros'
 * receptacle 2), while docks and hubs are entries with no domain_uuid_key
 * (osaurus's Sabrent SB-XTM5 USB4 v2 hub and ACASIS TBU405Pro, omlx-plus's
 * Envoy Ultra) under which a Mac behind them is nested.  The one capture
 * of a Mac behind a dock (a public fixture, "Real outputs from the M3
 * Ultra / M4 Max rig (2026-09-27)", trimmed by its authors; issue 19's
 * research notes, point 2) has the MacBook Pro two levels down under a
 * ThunderBay Flex 8 on the Mac Studio's bus_2 (receptacle 3, 40 Gb/s), the
 * MacBook Pro seeing the Studio straight under its own bus_2, and says
 * "RDMA works only over the 80 Gb/s one" (the direct cable).  So one end
 * tells (the agent's via_hub and hub, proto/macos_json.c) and the other
 * sees a direct peer: the link is via-hub when either end's port of the
 * cable says so, and no RDMA runs over it.
 *
 * On tests/scenarios/via-hub.json (a CalDigit TS4 at mac2's end of the
 * mac1:1 -- mac2:4 cable, as the sim backend reports it), on mesh4-studio's
 * reports edited into the states the scenario cannot give (the hub at the
 * other end, at both, without a name, on a one-sided cable, with a bridge
 * loop), and on the dock capture's shape parsed by the darwin parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_text.h"
#include "macos_json.h"
#include "wiring_fixture.h"

#define BIT(v) (1u << (v))

#define DIRECT ": RDMA needs a direct Thunderbolt 5 cable, not a dock or hub"
#define SCENARIO_FIX "unplug mac2 receptacle 4 from the CalDigit TS4 and cable it " \
	"directly to mac1 receptacle 1" DIRECT

/* Node name's port with receptacle r reports its peer behind hub (NULL:
 * no name). */
static void
behind(struct fx_cluster *c, const char *name, const char *r, const char *hub)
{
	struct report_port *p = fx_port(c, fx_node_of(c, name), r);

	assert_non_null(p);
	p->via_hub = TRI_TRUE;
	snprintf(p->hub, sizeof(p->hub), "%s", hub ? hub : "");
}

/* The scenario as the sim plays it: mac2 sees mac1 behind the CalDigit
 * TS4, mac1 sees mac2 direct; 40 Gb/s and both RDMA ports down, which the
 * hub explains. */
static void
test_scenario(void **state)
{
	struct fx_cluster *c = fx_load("via-hub.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	struct wiring_pair pair;
	struct report_port *p;

	(void)state;
	assert_non_null(c);
	p = fx_port(c, 1, "4");
	assert_int_equal(p->via_hub, TRI_TRUE);
	assert_string_equal(p->hub, "CalDigit TS4");
	p = fx_port(c, 0, "1");
	assert_int_equal(p->via_hub, TRI_FALSE);     /* the far end sees it direct */
	assert_string_equal(p->hub, "");
	assert_int_equal(fx_port(c, 0, "2")->via_hub, TRI_FALSE);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_non_null(l);
	print_message("%s: %s\n", l->id, l->fix);
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_false(l->pass);
	/* not degraded, not port-down: the hub is the cause */
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB));
	assert_true(l->speed_gbps == 40.0);
	assert_string_equal(l->fix, SCENARIO_FIX);
	assert_string_equal(l->a.node, "mac1");
	assert_non_null(strstr(l->evidence_b, "mac2 tb4 (en5): connected at 40 Gb/s, peer "));
	assert_non_null(strstr(l->evidence_b, " with RDMA service behind a dock or hub "
	    "(CalDigit TS4), "));
	assert_null(strstr(l->evidence_a, "behind"));
	assert_non_null(strstr(l->evidence_a, "rdma_en2 down"));
	assert_int_equal(fx_count_verdict(r, WIRING_VIA_HUB), 1);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	/* no RDMA over it: not a working link for placement or the cluster */
	assert_int_equal(wiring_pair_link(r, "mac1", "mac2", &pair), 0);
	assert_int_equal(wiring_pair_links(r, "mac1", "mac2", &pair, 1), 0);
	assert_int_equal(wiring_pair_link(r, "mac1", "mac3", &pair), 1);
	assert_int_equal(wiring_node_links_pass(r, "mac2"), 0);
	assert_int_equal(wiring_all_pass(r), 0);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	assert_int_equal(r->n_reasons, 1);
	assert_string_equal(r->reasons[0], "mac1 -- mac2: via-hub");
	wiring_result_free(r);
	fx_free(c);
}

/*
 * A plan made from this cluster keeps the two receptacles of the cable
 * through the hub (both carry RDMA: the hub is what is wrong, and the fix
 * joins those two directly), and the check against the plan still says
 * via-hub: the plan does not make it an RDMA link.
 */
static void
test_plan(void **state)
{
	struct fx_cluster *c = fx_load("via-hub.json");
	struct wiring_plan_link *plan = NULL;
	struct wiring_result *r;
	const struct wiring_link *l;
	int n_plan = 0, found = 0;
	char err[256];

	(void)state;
	assert_non_null(c);
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, 1, &c->nodes[1].ports[3]), 1);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &plan, &n_plan, err,
	    sizeof(err)), 0);
	assert_int_equal(n_plan, 6);
	for (int k = 0; k < n_plan; k++)
		found += strcmp(plan[k].a.node, "mac1") == 0 && strcmp(plan[k].a.receptacle, "1") == 0 &&
		    strcmp(plan[k].b.node, "mac2") == 0 && strcmp(plan[k].b.receptacle, "4") == 0;
	assert_int_equal(found, 1);
	r = fx_check(c, WIRING_TOPO_PLAN, plan, n_plan);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_false(l->pass);
	assert_string_equal(l->id, "mac1:1--mac2:4");
	assert_string_equal(l->fix, SCENARIO_FIX);
	wiring_result_free(r);
	free(plan);
	fx_free(c);
}

/* Either end tells: the hub at mac1's end this time, without a name. */
static void
test_either_end(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	behind(c, "mac1", "1", NULL);
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB));
	assert_string_equal(l->fix, "unplug mac1 receptacle 1 from the dock or hub and cable it "
	    "directly to mac2 receptacle 4" DIRECT);
	assert_non_null(strstr(l->evidence_a, " behind a dock or hub, "));
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	wiring_result_free(r);
	fx_free(c);

	/* the same at mac4's end of mac3:6 -- mac4:5, the link's b end */
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	behind(c, "mac4", "5", "TS5 Plus");
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac3", "mac4");
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_string_equal(l->fix, "unplug mac4 receptacle 5 from the TS5 Plus and cable it "
	    "directly to mac3 receptacle 6" DIRECT);
	wiring_result_free(r);
	fx_free(c);
}

/* Both ends report a hub: one sentence naming both. */
static void
test_both_ends(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	behind(c, "mac1", "1", "CalDigit TS4");
	behind(c, "mac2", "4", "CalDigit TS4");
	behind(c, "mac2", "2", "CalDigit TS4");
	behind(c, "mac3", "3", "ThunderBay Flex 8");
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB));
	assert_string_equal(l->fix, "unplug mac1 receptacle 1 and mac2 receptacle 4 from the "
	    "CalDigit TS4 and cable them directly to each other" DIRECT);
	l = fx_link(r, "mac2", "mac3");
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB));
	assert_string_equal(l->fix, "unplug mac2 receptacle 2 from the CalDigit TS4 and mac3 "
	    "receptacle 3 from the ThunderBay Flex 8 and cable them directly to each other" DIRECT);
	assert_int_equal(fx_count_verdict(r, WIRING_VIA_HUB), 2);
	wiring_result_free(r);
	fx_free(c);
}

/* Before bridge-loop: the cable is the first thing to fix, then the bridge;
 * after one-sided, whose far end's view is not known.  A direct cable
 * (via_hub false) or one not known (null) is no via-hub. */
static void
test_order_and_direct(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	struct report_port *p;

	(void)state;
	assert_non_null(c);
	behind(c, "mac2", "4", "CalDigit TS4");
	c->reports[fx_node_of(c, "mac2")].thunderbolt.bridge.active = TRI_TRUE;
	c->reports[fx_node_of(c, "mac2")].thunderbolt.bridge.n_members = 1;
	snprintf(c->reports[fx_node_of(c, "mac2")].thunderbolt.bridge.members[0],
	    sizeof(c->reports[0].thunderbolt.bridge.members[0]), "en3");
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB) | BIT(WIRING_BRIDGE_LOOP));
	assert_memory_equal(l->fix, "unplug mac2 receptacle 4 from the CalDigit TS4",
	    strlen("unplug mac2 receptacle 4 from the CalDigit TS4"));
	assert_non_null(strstr(l->fix, DIRECT "; turn off the Thunderbolt Bridge on mac2"));
	wiring_result_free(r);
	fx_free(c);

	/* one-sided: mac1 sees mac2 through a hub, mac2 reports its port empty */
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	behind(c, "mac1", "1", "CalDigit TS4");
	p = fx_port(c, fx_node_of(c, "mac2"), "4");
	p->status = PORT_STATUS_EMPTY;
	p->has_peer = 0;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->verdict, WIRING_ONE_SIDED);
	assert_true(l->problems & BIT(WIRING_VIA_HUB));
	assert_non_null(strstr(l->fix, "unplug mac1 receptacle 1 from the CalDigit TS4 and "
	    "cable it directly to mac2 receptacle 4" DIRECT));
	wiring_result_free(r);
	fx_free(c);

	/* a hub reported at the far end of a one-sided cable is about another
	 * peer there: no say */
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	p = fx_port(c, fx_node_of(c, "mac2"), "4");
	p->status = PORT_STATUS_EMPTY;
	p->has_peer = 0;
	p->via_hub = TRI_TRUE;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->problems, BIT(WIRING_ONE_SIDED));
	wiring_result_free(r);
	fx_free(c);

	/* direct, and not known: every link passes */
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	fx_port(c, fx_node_of(c, "mac1"), "1")->via_hub = TRI_NULL;
	snprintf(fx_port(c, fx_node_of(c, "mac2"), "4")->hub, sizeof(report_str), "stale name");
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	fx_free(c);
}

/*
 * The dock capture's shape through the darwin parser: the fixtures
 * tests/fixtures/macos/system_profiler-thunderbolt-studio-via-dock.json
 * and ...-macbook-to-dock.json (tests/unit/test_macos_json.c's
 * test_thunderbolt_via_hub says where they come from).  The Studio's
 * receptacle 3 holds the ThunderBay Flex 8 with the MacBook Pro nested
 * under it, the MacBook Pro's receptacle 3 holds the Studio directly.
 * Here the Studio advertises the RDMA service too (rdma_peer), as a direct
 * peer does in captures/omlx-plus, so that the hub is the only fault.  The
 * engine joins the two ends and says via-hub.
 */

static void
darwin_node(const char *fixture, int rdma_peer, const char *name, const char *iface,
    struct report *r, struct wiring_node *n)
{
	char err[256];
	size_t len;
	char *json = fx_fixture("macos", fixture, &len);

	report_init(r);
	assert_int_equal(macos_parse_thunderbolt(json, len, &r->thunderbolt, err,
	    sizeof(err)), 0);
	free(json);
	if (rdma_peer)
		r->thunderbolt.ports[0].peer.rdma_service = TRI_TRUE;
	snprintf(r->thunderbolt.ports[0].interface, sizeof(r->thunderbolt.ports[0].interface),
	    "%s", iface);
	r->rdma.state = RDMA_STATE_ENABLED;
	r->rdma.n_devices = 1;
	report_rdma_device_init(&r->rdma.devices[0]);    /* GIDs not read */
	snprintf(r->rdma.devices[0].name, sizeof(r->rdma.devices[0].name), "rdma_%s", iface);
	snprintf(r->rdma.devices[0].interface, sizeof(r->rdma.devices[0].interface), "%s", iface);
	r->rdma.devices[0].port_state = RDMA_PORT_DOWN;
	r->thunderbolt.bridge.active = TRI_FALSE;
	wiring_node_from_report(n, name, NODE_READY, r, FX_NOW, FX_NOW, FX_STALE);
}

static void
test_darwin_capture(void **state)
{
	struct report *rs = calloc(2, sizeof(*rs));
	struct wiring_node *nodes = calloc(2, sizeof(*nodes));
	struct wiring_input in;
	struct wiring_result *r;
	const struct wiring_link *l;
	char err[256];

	(void)state;
	assert_non_null(rs);
	assert_non_null(nodes);
	darwin_node("system_profiler-thunderbolt-studio-via-dock.json", 0, "studio", "en4",
	    &rs[0], &nodes[0]);
	darwin_node("system_profiler-thunderbolt-macbook-to-dock.json", 1, "macbook", "en4",
	    &rs[1], &nodes[1]);
	assert_int_equal(nodes[0].ports[0].peer_rdma_service, TRI_TRUE);
	assert_int_equal(nodes[0].ports[0].via_hub, TRI_TRUE);
	assert_string_equal(nodes[0].ports[0].hub, "ThunderBay Flex 8");
	assert_int_equal(nodes[1].ports[0].via_hub, TRI_FALSE);
	memset(&in, 0, sizeof(in));
	snprintf(in.cluster, sizeof(in.cluster), "rig");
	in.now = FX_NOW;
	in.n_nodes = 2;
	in.nodes = nodes;
	in.expect.topology = WIRING_TOPO_MESH;
	r = wiring_check(&in, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->n_links, 1);
	l = &r->links[0];
	print_message("%s: %s\n", l->id, l->fix);
	assert_int_equal(l->verdict, WIRING_VIA_HUB);
	assert_true(l->cabled);
	assert_true(l->speed_gbps == 40.0);
	/* the ports down and the 40 Gb/s are the dock's doing */
	assert_int_equal(l->problems, BIT(WIRING_VIA_HUB));
	assert_string_equal(l->fix, "unplug studio receptacle 3 from the ThunderBay Flex 8 and "
	    "cable it directly to macbook receptacle 3" DIRECT);
	assert_int_equal(r->verdict, WIRING_UNUSABLE);
	wiring_result_free(r);
	free(nodes);
	free(rs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_either_end),
		cmocka_unit_test(test_both_ends),
		cmocka_unit_test(test_order_and_direct),
		cmocka_unit_test(test_darwin_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
