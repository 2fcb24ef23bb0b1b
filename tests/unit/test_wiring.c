/*
 * The wiring engine (wiring.c, wiring_graph.c, wiring_verdict.c,
 * wiring_fix.c, wiring_cluster.c) on the shipped scenarios, collected by the
 * real sim backend: one test per verdict, combinations, rings, seven-node
 * meshes, two cables between one pair, miswired plans, and the questions
 * placement and rollout ask.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "wiring_fixture.h"

#define BIT(v) (1u << (v))

static int
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int
touches(const struct wiring_link *l, const char *node)
{
	return strcmp(l->a.node, node) == 0 || strcmp(l->b.node, node) == 0;
}

static void
test_mesh4_passes(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	struct wiring_pair pr;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_int_equal(r->n_links, 6);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	assert_int_equal(r->n_unexpected, 0);
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	assert_string_equal(r->verdict_text, "tensor-parallel ready: full RDMA mesh of 4");
	assert_int_equal(r->n_reasons, 0);
	assert_true(wiring_all_pass(r));
	/* mac1:2 -- mac3:1; mac3's receptacle 1 is en2 by default numbering (en(r+1)) */
	const struct wiring_link *l = fx_link(r, "mac1", "mac3");
	assert_non_null(l);
	assert_string_equal(l->id, "mac1:2--mac3:1");
	assert_string_equal(l->a.receptacle, "2");
	assert_string_equal(l->a.interface, "en3");
	assert_string_equal(l->a.rdma_device, "rdma_en3");
	assert_string_equal(l->b.interface, "en2");
	assert_true(starts_with(l->a.ipv4, "169.254."));
	assert_true(l->speed_gbps == 80.0);
	assert_string_equal(l->fix, "");
	assert_string_equal(l->expected, "mac1 -- mac3");
	assert_string_equal(l->actual, "mac1 tb2 -- mac3 tb1 at 80 Gb/s");
	assert_non_null(strstr(l->evidence_a, "rdma_en3 active"));
	/* placement's question, oriented by the asker */
	assert_int_equal(wiring_pair_link(r, "mac3", "mac1", &pr), 1);
	assert_string_equal(pr.mine->node, "mac3");
	assert_string_equal(pr.mine->rdma_device, "rdma_en2");
	assert_string_equal(pr.theirs->rdma_device, "rdma_en3");
	assert_int_equal(wiring_pair_link(r, "mac1", "mac9", &pr), 0);
	assert_int_equal(wiring_node_links_pass(r, "mac4"), 1);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_mesh7_passes(void **state)
{
	struct fx_cluster *c = fx_load("mesh7-studio.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_int_equal(r->n_links, 21);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 21);
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	assert_string_equal(r->verdict_text, "tensor-parallel ready: full RDMA mesh of 7");
	wiring_result_free(r);
	fx_free(c);
}

static void
test_missing(void **state)
{
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	l = fx_link(r, "mac3", "mac4");
	assert_non_null(l);
	assert_int_equal(l->verdict, WIRING_MISSING);
	assert_int_equal(l->problems, BIT(WIRING_MISSING));
	assert_false(l->pass);
	assert_true(isnan(l->speed_gbps));
	assert_string_equal(l->actual, "no cable");
	assert_string_equal(l->fix, "connect a Thunderbolt 5 cable between mac3 and mac4 "
	    "(free: mac3 tb2, tb4, tb5, tb6; mac4 tb3, tb4, tb5, tb6)");
	/* still a ring: 1-3-2-4-1 */
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	assert_int_equal(r->n_reasons, 1);
	assert_string_equal(r->reasons[0], "mac3 -- mac4: missing");
	assert_int_equal(wiring_node_links_pass(r, "mac3"), 0);
	assert_int_equal(wiring_node_links_pass(r, "mac1"), 1);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_degraded(void **state)
{
	struct fx_cluster *c = fx_load("degraded-40g.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac2", "mac3");
	assert_int_equal(l->verdict, WIRING_DEGRADED);
	assert_true(l->speed_gbps == 40.0);
	assert_string_equal(l->fix, "replace the cable between mac2 tb2 and mac3 tb3: it runs "
	    "at 40 Gb/s; Thunderbolt 5 needs an active cable or a passive one of at most 0.8 m");
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_bridge_loop(void **state)
{
	struct fx_cluster *c = fx_load("bridge-active.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];

		if (touches(l, "mac2")) {
			assert_int_equal(l->verdict, WIRING_BRIDGE_LOOP);
			assert_non_null(strstr(l->fix, "turn off the Thunderbolt Bridge on mac2"));
			assert_null(strstr(l->fix, "on mac1"));
		} else
			assert_int_equal(l->verdict, WIRING_PASS);
	}
	assert_int_equal(fx_count_verdict(r, WIRING_BRIDGE_LOOP), 3);
	/* mac1, mac3, mac4 still form a mesh among themselves, mac2 is cut off */
	assert_int_equal(r->verdict, WIRING_UNUSABLE);
	assert_string_equal(r->reasons[r->n_reasons - 1], "mac2 has no passing RDMA link");
	wiring_result_free(r);
	fx_free(c);
}

static void
test_rdma_off(void **state)
{
	struct fx_cluster *c = fx_load("rdma-off.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_count_verdict(r, WIRING_RDMA_OFF), 3);
	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];

		if (!touches(l, "mac3"))
			continue;
		assert_int_equal(l->problems, BIT(WIRING_RDMA_OFF));   /* not port-down too */
		assert_string_equal(l->fix, "boot mac3 into Recovery and run rdma_ctl enable");
	}
	wiring_result_free(r);
	fx_free(c);
}

static void
test_port_down(void **state)
{
	struct fx_cluster *c = fx_load("port-down.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac4");
	assert_int_equal(l->verdict, WIRING_PORT_DOWN);
	assert_non_null(strstr(l->fix, "rdma_en4 on mac1 is down"));
	assert_non_null(strstr(l->fix, "rdma_en3 on mac4 is down"));
	assert_non_null(strstr(l->evidence_a, "rdma_en4 down"));
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_no_ipv4(void **state)
{
	struct fx_cluster *c = fx_load("no-ipv4.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac3");
	assert_int_equal(l->verdict, WIRING_NO_IPV4);
	assert_string_equal(l->b.ipv4, "");
	assert_string_equal(l->fix, "give mac3 en2 (receptacle 1) an IPv4 address: JACCL "
	    "cannot start without one");
	assert_non_null(strstr(l->evidence_b, "no IPv4"));
	wiring_result_free(r);
	fx_free(c);
}

static void
test_os_skew(void **state)
{
	struct fx_cluster *c = fx_load("os-skew.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_count_verdict(r, WIRING_OS_SKEW), 3);
	assert_non_null(strstr(fx_link(r, "mac1", "mac4")->fix, "bring mac1 (25C56) and mac4 "
	    "(25D125) to the same macOS build"));
	wiring_result_free(r);
	fx_free(c);
}

static void
test_unknown(void **state)
{
	struct fx_cluster *c = fx_load("unreachable.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	assert_false(c->have[3]);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_count_verdict(r, WIRING_UNKNOWN), 3);
	l = fx_link(r, "mac2", "mac4");
	assert_string_equal(l->evidence_b, "no report from mac4");
	assert_non_null(strstr(l->fix, "get a fresh report from mac4"));
	assert_int_equal(r->verdict, WIRING_UNUSABLE);
	/* the same cluster with a stale report from mac4 */
	fx_free(c);
	c = fx_load("mesh4-studio.json");
	wiring_node_from_report(&c->nodes[3], "mac4", NODE_READY, &c->reports[3], FX_NOW - 600,
	    FX_NOW, FX_STALE);
	r = (wiring_result_free(r), fx_check(c, WIRING_TOPO_MESH, NULL, 0));
	assert_int_equal(fx_count_verdict(r, WIRING_UNKNOWN), 3);
	assert_non_null(strstr(fx_link(r, "mac1", "mac4")->evidence_b, "report stale"));
	wiring_result_free(r);
	fx_free(c);
}

static void
test_one_sided(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	struct report_port *p;

	(void)state;
	assert_non_null(c);
	/* mac2 receptacle 4 (the cable from mac1:1) reports an empty port */
	p = fx_port(c, 1, "4");
	p->status = PORT_STATUS_EMPTY;
	p->has_peer = 0;
	p->speed_gbps = NAN;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->verdict, WIRING_ONE_SIDED);
	assert_non_null(strstr(l->actual, "(seen from mac1 only)"));
	assert_non_null(strstr(l->fix, "only mac1 sees the cable between mac1 tb1 and mac2 tb4"));
	assert_int_equal(r->n_unexpected, 0);
	wiring_result_free(r);
	fx_free(c);
}


/* Set where rollout id is with each of mac1..mac4 (os-skew.json: mac4 on
 * 25D125, the others on 25C56). */
static void
ro_phases(struct fx_cluster *c, int64_t id, const enum wiring_rollout_phase *ph)
{
	for (int i = 0; i < c->n; i++) {
		c->nodes[i].rollout_id = ph[i] != WIRING_RO_NONE ? id : 0;
		c->nodes[i].rollout_phase = ph[i];
	}
}

static void
test_os_skew_during_rollout(void **state)
{
	struct fx_cluster *c = fx_load("os-skew.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	/* rollout 3 has updated mac4; mac1..mac3 not yet */
	const enum wiring_rollout_phase reached[] = { WIRING_RO_NOT_YET, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_UPDATED };
	const enum wiring_rollout_phase updating[] = { WIRING_RO_UPDATING, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_UPDATED };
	struct wiring_pair pr;

	(void)state;
	assert_non_null(c);
	/* no rollout: a fault, as ever */
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac4");
	assert_int_equal(l->verdict, WIRING_OS_SKEW);
	assert_int_equal(l->expected_during_rollout, 0);
	assert_int_equal(wiring_link_ok_during_rollout(l), 0);
	assert_int_equal(wiring_node_links_pass(r, "mac4"), 0);
	wiring_result_free(r);

	/* mac4 updated by rollout 3, the others not yet: expected, and said so */
	ro_phases(c, 3, reached);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	for (int k = 0; k < r->n_links; k++) {
		l = &r->links[k];
		assert_int_equal(l->expected_during_rollout, touches(l, "mac4") ? 3 : 0);
	}
	l = fx_link(r, "mac1", "mac4");
	assert_int_equal(l->verdict, WIRING_OS_SKEW);   /* still os-skew ... */
	assert_int_equal(l->pass, 0);                   /* ... no RDMA across builds ... */
	assert_int_equal(wiring_link_ok_during_rollout(l), 1);  /* ... but verify passes it */
	assert_string_equal(l->fix, "os-skew, expected during rollout 3: mac1 (25C56) not "
	    "updated yet, mac4 (25D125) updated; nothing to fix, the rollout brings both to "
	    "its target");
	assert_int_equal(wiring_node_links_pass(r, "mac4"), 1);
	assert_int_equal(wiring_node_links_pass(r, "mac1"), 1);
	assert_int_equal(wiring_pair_link(r, "mac1", "mac4", &pr), 0);  /* placement refuses it */
	{
		int found = 0;

		for (int k = 0; k < r->n_reasons; k++)
			found += strstr(r->reasons[k], "os-skew, expected during rollout 3") != NULL;
		assert_int_equal(found, 3);
	}
	wiring_result_free(r);

	/* mac1 being updated, mac4 updated: expected too (mac1 may be on either build) */
	ro_phases(c, 3, updating);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_link(r, "mac1", "mac4")->expected_during_rollout, 3);
	assert_int_equal(fx_link(r, "mac2", "mac4")->expected_during_rollout, 3);
	wiring_result_free(r);
	fx_free(c);
}

/* The os-skews a rollout does not expect: they stay faults. */
static void
test_os_skew_rollout_faults(void **state)
{
	struct fx_cluster *c = fx_load("os-skew.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	const enum wiring_rollout_phase reached[] = { WIRING_RO_NOT_YET, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_UPDATED };
	const enum wiring_rollout_phase both_updated[] = { WIRING_RO_UPDATED, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_UPDATED };
	const enum wiring_rollout_phase none_reached[] = { WIRING_RO_NOT_YET, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_NOT_YET };
	const enum wiring_rollout_phase outside[] = { WIRING_RO_NOT_YET, WIRING_RO_NOT_YET,
		WIRING_RO_NOT_YET, WIRING_RO_NONE };
	char r1[32];

	(void)state;
	assert_non_null(c);
	/* mac1 and mac4 both updated yet on different builds: a fault */
	ro_phases(c, 3, both_updated);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac4");
	assert_int_equal(l->expected_during_rollout, 0);
	assert_non_null(strstr(l->fix, "bring mac1 (25C56) and mac4 (25D125) to the same"));
	assert_int_equal(wiring_node_links_pass(r, "mac1"), 0);
	assert_int_equal(fx_link(r, "mac2", "mac4")->expected_during_rollout, 3);
	wiring_result_free(r);

	/* neither reached: the skew was there before the rollout */
	ro_phases(c, 3, none_reached);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_link(r, "mac1", "mac4")->expected_during_rollout, 0);
	assert_int_equal(wiring_node_links_pass(r, "mac4"), 0);
	wiring_result_free(r);

	/* mac4 outside the rollout: a fault */
	ro_phases(c, 3, outside);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_link(r, "mac1", "mac4")->expected_during_rollout, 0);
	wiring_result_free(r);

	/* two rollouts (ids differ): a fault */
	ro_phases(c, 3, reached);
	c->nodes[3].rollout_id = 4;
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_link(r, "mac1", "mac4")->expected_during_rollout, 0);
	wiring_result_free(r);

	/* os-skew and degraded: the rollout does not excuse the other fault */
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac4");
	snprintf(r1, sizeof(r1), "%s", strcmp(l->a.node, "mac1") == 0 ? l->a.receptacle :
	    l->b.receptacle);
	wiring_result_free(r);
	assert_non_null(fx_port(c, 0, r1));
	fx_port(c, 0, r1)->speed_gbps = 40;
	fx_refresh(c);
	ro_phases(c, 3, reached);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac1", "mac4");
	assert_int_equal(l->problems, BIT(WIRING_DEGRADED) | BIT(WIRING_OS_SKEW));
	assert_int_equal(l->expected_during_rollout, 0);
	assert_int_equal(wiring_link_ok_during_rollout(l), 0);
	assert_int_equal(wiring_node_links_pass(r, "mac4"), 0);
	assert_int_equal(fx_link(r, "mac2", "mac4")->expected_during_rollout, 3);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_combination(void **state)
{
	struct fx_cluster *c = fx_load("degraded-40g.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	/* the degraded mac2-mac3 link also loses mac3's address, and mac3 runs another build */
	fx_port(c, 2, "3")->n_ipv4 = 0;
	snprintf(c->reports[2].node.os_build, sizeof(c->reports[2].node.os_build), "25D125");
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac2", "mac3");
	assert_int_equal(l->problems, BIT(WIRING_NO_IPV4) | BIT(WIRING_DEGRADED) |
	    BIT(WIRING_OS_SKEW));
	assert_int_equal(l->verdict, WIRING_NO_IPV4);   /* the first to fix */
	assert_non_null(strstr(l->fix, "give mac3 en4 (receptacle 3) an IPv4 address"));
	assert_non_null(strstr(l->fix, "; replace the cable between mac2 tb2 and mac3 tb3"));
	assert_non_null(strstr(l->fix, "; bring mac2 (25C56) and mac3 (25D125)"));
	assert_int_equal(fx_count_verdict(r, WIRING_OS_SKEW), 2);  /* mac3's other links */
	assert_int_equal(r->verdict, WIRING_UNUSABLE);          /* mac3 is cut off */
	assert_string_equal(r->reasons[r->n_reasons - 1], "mac3 has no passing RDMA link");
	wiring_result_free(r);
	fx_free(c);
}

static void
test_ring5(void **state)
{
	struct fx_cluster *c = fx_load("ring5.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_RING, NULL, 0);
	assert_int_equal(r->n_links, 5);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	assert_string_equal(r->reasons[0], "the expected topology is a ring");
	/* ring5's receptacle 1 is en3: the side says so */
	const struct wiring_link *l = fx_link(r, "mac1", "mac2");
	assert_string_equal(l->a.interface, "en3");
	assert_string_equal(l->b.interface, "en2");
	wiring_result_free(r);
	/* as a mesh: the five ring links pass, the five chords are missing */
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(r->n_links, 10);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	assert_int_equal(fx_count_verdict(r, WIRING_MISSING), 5);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	assert_int_equal(r->n_reasons, 5);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_two_cables(void **state)
{
	struct fx_cluster *c = fx_load("two-cables-one-pair.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	assert_int_equal(r->n_unexpected, 1);
	assert_string_equal(r->unexpected[0].id, "mac1:4--mac2:6");
	assert_true(r->unexpected[0].pass);
	assert_string_equal(r->unexpected[0].actual, "mac1 tb4 -- mac2 tb6 at 80 Gb/s");
	assert_string_equal(r->unexpected[0].fix, "a second cable joins mac1 and mac2 "
	    "(mac1 tb4 -- mac2 tb6): unplug it, or keep it as a spare");
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	wiring_result_free(r);
	fx_free(c);
}

/* mesh4-studio's cabling as a plan. */
static const struct wiring_plan_link mesh4_plan[] = {
	{{"mac1", "1"}, {"mac2", "4"}}, {{"mac1", "2"}, {"mac3", "1"}},
	{{"mac1", "3"}, {"mac4", "2"}}, {{"mac2", "2"}, {"mac3", "3"}},
	{{"mac2", "5"}, {"mac4", "1"}}, {{"mac3", "6"}, {"mac4", "5"}},
};

static void
test_plan_miswired(void **state)
{
	struct fx_cluster *c = fx_load("miswired.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_PLAN, mesh4_plan, 6);
	assert_int_equal(r->n_links, 6);
	assert_int_equal(fx_count_verdict(r, WIRING_MISWIRED), 3);
	l = fx_link(r, "mac1", "mac3");
	assert_string_equal(l->id, "mac1:2--mac3:1");
	assert_string_equal(l->expected, "mac1 tb2 -- mac3 tb1");
	assert_string_equal(l->actual, "mac1 tb2 -- mac3 tb4 at 80 Gb/s");
	assert_string_equal(l->fix, "move the cable on mac3 receptacle 4 to mac3 receptacle 1");
	l = fx_link(r, "mac1", "mac4");
	assert_string_equal(l->fix, "move the cable on mac4 receptacle 1 to mac4 receptacle 2");
	assert_int_equal(r->n_unexpected, 0);
	/* miswired links are still RDMA links: the mesh works, with reasons */
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	assert_int_equal(r->n_reasons, 3);
	assert_string_equal(r->reasons[0], "mac1 tb2 -- mac3 tb1: miswired");
	assert_int_equal(wiring_pair_link(r, "mac1", "mac3", NULL), 1);
	wiring_result_free(r);
	/* the same plan on the cluster cabled as planned: everything passes */
	fx_free(c);
	c = fx_load("mesh4-studio.json");
	r = fx_check(c, WIRING_TOPO_PLAN, mesh4_plan, 6);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	assert_string_equal(r->links[0].expected, "mac1 tb1 -- mac2 tb4");
	wiring_result_free(r);
	fx_free(c);
}

static void
test_plan_far_end_elsewhere(void **state)
{
	/* missing-cable has no mac3-mac4 cable; mac3:1 goes to mac1:2 */
	static const struct wiring_plan_link plan[] = {{{"mac3", "1"}, {"mac4", "6"}},
		{{"mac1", "2"}, {"mac9", "1"}}};
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_PLAN, plan, 2);
	assert_int_equal(r->links[0].verdict, WIRING_MISWIRED);
	assert_string_equal(r->links[0].actual, "mac1 tb2 -- mac3 tb1 at 80 Gb/s");
	assert_string_equal(r->links[0].fix, "the cable on mac3 receptacle 1 goes to mac1 tb2: "
	    "move its far end to mac4 receptacle 6");
	assert_int_equal(r->links[1].verdict, WIRING_UNKNOWN);
	assert_string_equal(r->links[1].evidence_b, "mac9 is not a node of this cluster");
	assert_non_null(strstr(r->links[1].fix, "add mac9 to the cluster"));
	/* no cable matched the plan: all five are unexpected */
	assert_int_equal(r->n_unexpected, 5);
	assert_non_null(strstr(r->unexpected[0].fix, "is not in the expected topology"));
	wiring_result_free(r);
	fx_free(c);
}

static void
test_names_and_norm(void **state)
{
	char out[32];
	enum wiring_verdict v;
	enum wiring_topology t;

	(void)state;
	assert_int_equal(wiring_receptacle_norm("tb2", out, sizeof(out)), 0);
	assert_string_equal(out, "2");
	assert_int_equal(wiring_receptacle_norm("TB12", out, sizeof(out)), 0);
	assert_string_equal(out, "12");
	assert_int_equal(wiring_receptacle_norm("Thunderbolt 3", out, sizeof(out)), 0);
	assert_string_equal(out, "3");
	assert_int_equal(wiring_receptacle_norm("0-1", out, sizeof(out)), 0);
	assert_string_equal(out, "0-1");
	assert_int_equal(wiring_receptacle_norm("tb", out, sizeof(out)), -1);
	assert_int_equal(wiring_receptacle_norm("2 3", out, sizeof(out)), -1);
	assert_int_equal(wiring_verdict_parse("one-sided", &v), 0);
	assert_int_equal(v, WIRING_ONE_SIDED);
	assert_int_equal(wiring_verdict_parse("fine", &v), -1);
	for (int k = 0; k < WIRING_VERDICT_COUNT; k++) {
		assert_int_equal(wiring_verdict_parse(wiring_verdict_str(k), &v), 0);
		assert_int_equal(v, k);
	}
	assert_int_equal(wiring_topology_parse("ring", &t), 0);
	assert_int_equal(t, WIRING_TOPO_RING);
	assert_int_equal(wiring_topology_parse("star", &t), -1);
	assert_string_equal(wiring_cluster_verdict_str(WIRING_PIPELINE_ONLY), "pipeline-only");
}

static void
test_small_and_big(void **state)
{
	struct wiring_input in;
	struct wiring_result *r;
	char err[128];

	(void)state;
	memset(&in, 0, sizeof(in));
	r = wiring_check(&in, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->verdict, WIRING_UNUSABLE);
	assert_int_equal(r->n_links, 0);
	wiring_result_free(r);
	in.n_nodes = WIRING_NODES_MAX + 1;
	assert_null(wiring_check(&in, err, sizeof(err)));
	assert_string_equal(err, "a cluster has at most 64 nodes, not 65");
	wiring_result_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesh4_passes),
		cmocka_unit_test(test_mesh7_passes),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_bridge_loop),
		cmocka_unit_test(test_rdma_off),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_no_ipv4),
		cmocka_unit_test(test_os_skew),
		cmocka_unit_test(test_os_skew_during_rollout),
		cmocka_unit_test(test_os_skew_rollout_faults),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_one_sided),
		cmocka_unit_test(test_combination),
		cmocka_unit_test(test_ring5),
		cmocka_unit_test(test_two_cables),
		cmocka_unit_test(test_plan_miswired),
		cmocka_unit_test(test_plan_far_end_elsewhere),
		cmocka_unit_test(test_names_and_norm),
		cmocka_unit_test(test_small_and_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
