/*
 * The wiring engine on cases a review found wrong: a planned link whose
 * port holds a cable to elsewhere is no RDMA link between its two nodes;
 * Linux hosts whose ports share one domain UUID; the healthier of two
 * cables between one pair; a cable to a member that has not reported; a
 * plan with a receptacle on one end only; speeds no integer can hold; DOT
 * written for the longest names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "wiring_fixture.h"

#define BIT(v) (1u << (v))

/* missing-cable (no mac3-mac4 cable; mac3:1 goes to mac1:2), planned with
 * mac3:1 -- mac4:6 and four of the other five pairs, mac1-mac3 left out. */
static void
test_plan_port_cabled_elsewhere(void **state)
{
	static const struct wiring_plan_link plan[] = {
		{{"mac3", "1"}, {"mac4", "6"}}, {{"mac1", ""}, {"mac2", ""}},
		{{"mac1", ""}, {"mac4", ""}}, {{"mac2", ""}, {"mac3", ""}},
		{{"mac2", ""}, {"mac4", ""}},
	};
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;
	struct wiring_pair pr;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_PLAN, plan, 5);
	assert_non_null(r);
	assert_int_equal(r->links[0].problems, BIT(WIRING_MISWIRED));
	assert_int_equal(r->links[0].cabled, 0);
	/* no cable joins mac3 and mac4: placement must not be told one does */
	assert_int_equal(wiring_pair_link(r, "mac3", "mac4", &pr), 0);
	assert_int_equal(wiring_pair_link(r, "mac4", "mac3", NULL), 0);
	/* the mac1-mac3 cable still works (as an unexpected one): a ring, no mesh */
	assert_int_equal(wiring_pair_link(r, "mac1", "mac3", &pr), 1);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	wiring_result_free(r);
	fx_free(c);
}

/* Two planned links whose planned ports hold the two ends of one cable
 * (mac3:1 -- mac1:2): only the first says where to move it. */
static void
test_cable_claimed_once(void **state)
{
	static const struct wiring_plan_link plan[] = {
		{{"mac3", "1"}, {"mac4", "6"}}, {{"mac1", "2"}, {"mac4", "5"}},
	};
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	/* take the mac1:3 -- mac4:2 cable away too: no cable joins mac1 and mac4 */
	for (int k = 0; k < 2; k++) {
		struct report_port *p = k == 0 ? fx_port(c, 0, "3") : fx_port(c, 3, "2");

		p->status = PORT_STATUS_EMPTY;
		p->has_peer = 0;
	}
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_PLAN, plan, 2);
	assert_non_null(r);
	assert_non_null(strstr(r->links[0].fix, "the cable on mac3 receptacle 1 goes to mac1 tb2"));
	assert_null(strstr(r->links[1].fix, "goes to"));
	assert_int_equal(r->links[1].verdict, WIRING_MISSING);
	wiring_result_free(r);
	fx_free(c);
}

/* A plan that names a receptacle on one end only: no dangling words. */
static void
test_plan_one_receptacle(void **state)
{
	static const struct wiring_plan_link plan[] = {{{"mac3", "1"}, {"mac4", ""}}};
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_PLAN, plan, 1);
	assert_non_null(r);
	assert_int_equal(r->links[0].verdict, WIRING_MISWIRED);
	assert_string_equal(r->links[0].fix, "the cable on mac3 receptacle 1 goes to mac1 tb2: "
	    "move its far end to a free receptacle of mac4");
	wiring_result_free(r);
	fx_free(c);
}

/* A Linux host: every port carries the host router's domain UUID. */
static void
linux_node(struct wiring_node *n, const char *name, const char *uuid, const char *peer0,
    const char *peer1)
{
	const char *peers[2] = {peer0, peer1};

	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->state = NODE_READY;
	n->freshness = WIRING_REPORT_FRESH;
	n->report_at = FX_NOW;
	n->rdma = RDMA_STATE_ENABLED;
	n->n_devices = -1;
	n->bridge_active = TRI_FALSE;
	n->bridge_tb_members = 0;
	n->n_ports = 2;
	for (int p = 0; p < 2; p++) {
		struct wiring_port *wp = &n->ports[p];

		snprintf(wp->receptacle, sizeof(wp->receptacle), "0-%d", p + 1);
		snprintf(wp->domain_uuid, sizeof(wp->domain_uuid), "%s", uuid);
		wp->status = PORT_STATUS_CONNECTED;
		wp->speed_gbps = 80;
		snprintf(wp->interface, sizeof(wp->interface), "thunderbolt%d", p);
		wp->n_ipv4 = 1;
		snprintf(wp->ipv4, sizeof(wp->ipv4), "169.254.0.%d", p + 1);
		wp->has_peer = 1;
		snprintf(wp->peer_uuid, sizeof(wp->peer_uuid), "%s", peers[p]);
		wp->peer_rdma_service = TRI_NULL;
	}
}

static void
test_linux_shared_domain(void **state)
{
	static const char *ua = "aaaaaaaa-0000-0000-0000-000000000001",
	    *ub = "bbbbbbbb-0000-0000-0000-000000000002",
	    *uc = "cccccccc-0000-0000-0000-000000000003";
	struct wiring_node nodes[3];
	struct wiring_input in;
	struct wiring_result *r;
	char err[128];

	(void)state;
	/* lnx1 0-1 -> lnx2 0-2, lnx1 0-2 -> lnx3 0-1, lnx2 0-1 -> lnx3 0-2 */
	linux_node(&nodes[0], "lnx1", ua, ub, uc);
	linux_node(&nodes[1], "lnx2", ub, uc, ua);
	linux_node(&nodes[2], "lnx3", uc, ua, ub);
	memset(&in, 0, sizeof(in));
	snprintf(in.cluster, sizeof(in.cluster), "linux3");
	in.now = FX_NOW;
	in.n_nodes = 3;
	in.nodes = nodes;
	in.expect.topology = WIRING_TOPO_MESH;
	r = wiring_check(&in, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(r->n_links, 3);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(r->links[k].verdict, WIRING_PASS);
		assert_null(strstr(r->links[k].actual, "only"));
	}
	assert_string_equal(r->links[0].actual, "lnx1 tb0-1 -- lnx2 tb0-2 at 80 Gb/s");
	assert_string_equal(r->links[2].actual, "lnx2 tb0-1 -- lnx3 tb0-2 at 80 Gb/s");
	assert_int_equal(r->n_unexpected, 0);
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	wiring_result_free(r);
}

/* Two cables between mac1 and mac2, one seen from one end only, the other
 * at 40 Gb/s: the degraded one is the healthier (one-sided is worse). */
static void
test_two_cables_severity(void **state)
{
	struct fx_cluster *c = fx_load("two-cables-one-pair.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	struct report_port *p;

	(void)state;
	assert_non_null(c);
	p = fx_port(c, 1, "4");            /* mac2's end of mac1:1 -- mac2:4 */
	p->status = PORT_STATUS_EMPTY;
	p->has_peer = 0;
	p->speed_gbps = NAN;
	fx_port(c, 0, "4")->speed_gbps = 40;  /* mac1:4 -- mac2:6 */
	fx_port(c, 1, "6")->speed_gbps = 40;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_non_null(l);
	assert_int_equal(l->verdict, WIRING_DEGRADED);
	assert_int_equal(r->n_unexpected, 1);
	assert_int_equal(r->unexpected[0].verdict, WIRING_ONE_SIDED);
	wiring_result_free(r);
	fx_free(c);
}

/* mac4 has never reported: the cable to it is to a member without a report. */
static void
test_cable_to_unreported_member(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *u = NULL;

	(void)state;
	assert_non_null(c);
	c->have[3] = 0;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	for (int k = 0; k < r->n_unexpected; k++)
		if (strcmp(r->unexpected[k].a.node, "mac1") == 0)
			u = &r->unexpected[k];
	assert_non_null(u);
	assert_null(strstr(u->fix, "outside the cluster"));
	assert_non_null(strstr(u->fix, "mac4, a member without a report"));
	assert_non_null(strstr(u->actual, "mac4, a member without a report"));
	wiring_result_free(r);
	/* every member reporting: then it is a host outside the cluster */
	c->have[3] = 1;
	fx_refresh(c);
	snprintf(c->nodes[0].ports[0].peer_uuid, sizeof(c->nodes[0].ports[0].peer_uuid),
	    "ffffffff-dead-beef-0000-000000000000");
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_true(r->n_unexpected >= 1);
	assert_non_null(strstr(r->unexpected[0].fix, "outside the cluster"));
	wiring_result_free(r);
	fx_free(c);
}

/* A speed beyond any integer: printed, not converted (UBSan would say). */
static void
test_huge_speed(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	c->nodes[0].ports[0].speed_gbps = 1e300;
	c->nodes[1].ports[3].speed_gbps = 1e300;
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	l = fx_link(r, "mac1", "mac2");
	assert_non_null(l);
	assert_non_null(strstr(l->actual, "at 1e+300 Gb/s"));
	wiring_result_free(r);
	fx_free(c);
}

/* The longest names and receptacles: the DOT is whole and reads back. */
static void
test_dot_write_longest(void **state)
{
	enum { N = 26 };
	struct wiring_plan_link *links = calloc(N, sizeof(*links)), *back = NULL;
	char cluster[API_NAME_MAX + 1], err[256], *dot;
	int n = 0;

	(void)state;
	assert_non_null(links);
	memset(cluster, 'c', API_NAME_MAX);
	cluster[API_NAME_MAX] = '\0';
	for (int k = 0; k < N; k++) {
		struct wiring_end *e[2] = {&links[k].a, &links[k].b};

		for (int s = 0; s < 2; s++) {
			memset(e[s]->node, 'a' + s, API_NAME_MAX);
			e[s]->node[API_NAME_MAX] = '\0';
			e[s]->node[0] = (char)('a' + k % 26);
			memset(e[s]->receptacle, '9', sizeof(e[s]->receptacle) - 1);
			e[s]->receptacle[sizeof(e[s]->receptacle) - 1] = '\0';
		}
	}
	dot = wiring_dot_write(cluster, links, N);
	assert_non_null(dot);
	assert_int_equal(dot[strlen(dot) - 2], '}');
	assert_int_equal(wiring_dot_parse(dot, strlen(dot), &back, &n, err, sizeof(err)), 0);
	assert_int_equal(n, N);
	assert_string_equal(back[N - 1].b.node, links[N - 1].b.node);
	assert_string_equal(back[N - 1].b.receptacle, links[N - 1].b.receptacle);
	free(back);
	free(dot);
	free(links);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_port_cabled_elsewhere),
		cmocka_unit_test(test_cable_claimed_once),
		cmocka_unit_test(test_plan_one_receptacle),
		cmocka_unit_test(test_linux_shared_domain),
		cmocka_unit_test(test_two_cables_severity),
		cmocka_unit_test(test_cable_to_unreported_member),
		cmocka_unit_test(test_huge_speed),
		cmocka_unit_test(test_dot_write_longest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
