/*
 * Cabling plans (wiring_plan.c): a mesh or ring from each node's reported
 * receptacles, none used twice, existing cables kept, the receptacle that
 * does not carry RDMA avoided, and a refusal with the reason when it cannot
 * be done.  A plan made from a healthy cluster validates as all-pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "wiring_fixture.h"

/* No (node, receptacle) twice, every pair at most once, right count. */
static void
assert_plan_sound(const struct wiring_plan_link *v, int n)
{
	for (int k = 0; k < n; k++) {
		assert_string_not_equal(v[k].a.node, v[k].b.node);
		assert_true(v[k].a.receptacle[0] && v[k].b.receptacle[0]);
		for (int m = k + 1; m < n; m++) {
			const struct wiring_end *e[4] = {&v[k].a, &v[k].b, &v[m].a, &v[m].b};

			for (int x = 0; x < 2; x++)
				for (int y = 2; y < 4; y++)
					assert_false(strcmp(e[x]->node, e[y]->node) == 0 &&
					    strcmp(e[x]->receptacle, e[y]->receptacle) == 0);
			assert_false(strcmp(v[k].a.node, v[m].a.node) == 0 &&
			    strcmp(v[k].b.node, v[m].b.node) == 0);
		}
	}
}

static void
test_mesh_from_cabled_cluster(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_plan_link *v;
	struct wiring_result *r;
	char err[256];
	int n;

	(void)state;
	assert_non_null(c);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 6);
	assert_plan_sound(v, n);
	/* the existing cables are kept: mac1:1 -- mac2:4 */
	assert_string_equal(v[0].a.node, "mac1");
	assert_string_equal(v[0].a.receptacle, "1");
	assert_string_equal(v[0].b.receptacle, "4");
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	for (int k = 0; k < r->n_links; k++)
		assert_int_equal(r->links[k].verdict, WIRING_PASS);
	assert_int_equal(r->n_unexpected, 0);
	wiring_result_free(r);
	free(v);
	fx_free(c);
}

static void
test_mesh7_every_port(void **state)
{
	struct fx_cluster *c = fx_load("mesh7-studio.json");
	struct wiring_plan_link *v;
	char err[256];
	int n;

	(void)state;
	assert_non_null(c);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 21);
	assert_plan_sound(v, n);
	free(v);
	/* mac3 loses RDMA on one receptacle: 5 left, 6 needed */
	snprintf(c->reports[2].rdma.devices[4].interface,
	    sizeof(c->reports[2].rdma.devices[4].interface), "en99");
	fx_refresh(c);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &v, &n, err,
	    sizeof(err)), -1);
	assert_null(v);
	assert_string_equal(err, "a full mesh of 7 needs 6 receptacles carrying RDMA on each "
	    "node; mac3 has 5");
	/* a ring needs two */
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_RING, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 7);
	assert_plan_sound(v, n);
	free(v);
	fx_free(c);
}

static void
test_mesh8_refused(void **state)
{
	struct fx_cluster *c = fx_load("mesh7-studio.json");
	struct wiring_node *nodes = calloc(8, sizeof(*nodes));
	struct wiring_plan_link *v;
	char err[256];
	int n;

	(void)state;
	assert_non_null(c);
	memcpy(nodes, c->nodes, 7 * sizeof(*nodes));
	nodes[7] = c->nodes[6];
	snprintf(nodes[7].name, sizeof(nodes[7].name), "mac8");
	assert_int_equal(wiring_plan_make(nodes, 8, WIRING_TOPO_MESH, &v, &n, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "a full mesh of 8 needs 7 receptacles carrying RDMA on each "
	    "node; mac1 has 6");
	assert_int_equal(wiring_plan_make(nodes, 1, WIRING_TOPO_MESH, &v, &n, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "a plan needs 2 to 64 nodes; the cluster has 1");
	assert_int_equal(wiring_plan_make(nodes, 2, WIRING_TOPO_PLAN, &v, &n, err, sizeof(err)),
	    -1);
	nodes[1].freshness = WIRING_REPORT_NONE;
	assert_int_equal(wiring_plan_make(nodes, 2, WIRING_TOPO_RING, &v, &n, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "mac2 has not reported its receptacles yet");
	free(nodes);
	fx_free(c);
}

/* A Studio receptacle whose far end sees no RDMA service is avoided. */
static void
test_avoids_port_without_rdma(void **state)
{
	struct fx_cluster *c = fx_load("pair-studio.json");
	struct wiring_plan_link *v;
	char err[256];
	int n;

	(void)state;
	assert_non_null(c);
	/* mac1:1 -- mac2:1; mac1 sees no RDMA service from mac2's receptacle 1,
	 * though mac2 has RDMA enabled: that receptacle does not carry it */
	assert_non_null(fx_port(c, 0, "1"));
	fx_port(c, 0, "1")->peer.rdma_service = TRI_FALSE;
	fx_refresh(c);
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, 1, &c->nodes[1].ports[0]), 0);
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, 0, &c->nodes[0].ports[0]), 1);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].a.receptacle, "1");     /* mac1 keeps its receptacle 1 */
	assert_string_equal(v[0].b.receptacle, "2");     /* mac2 avoids its receptacle 1 */
	free(v);
	/* and the check says why the current cable fails */
	struct wiring_result *r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_int_equal(r->links[0].verdict, WIRING_RDMA_OFF);
	assert_string_equal(r->links[0].fix, "move the cable off mac2 receptacle 1: it does not "
	    "carry RDMA");
	wiring_result_free(r);
	fx_free(c);
}

static void
test_ring_of_five(void **state)
{
	struct fx_cluster *c = fx_load("ring5.json");
	struct wiring_plan_link *v;
	struct wiring_result *r;
	char err[256];
	int n;

	(void)state;
	assert_non_null(c);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_RING, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 5);
	assert_plan_sound(v, n);
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	for (int k = 0; k < r->n_links; k++)
		assert_int_equal(r->links[k].verdict, WIRING_PASS);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	wiring_result_free(r);
	free(v);
	/* a mesh of five needs 4 receptacles: there are 6, the plan adds cables */
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 10);
	assert_plan_sound(v, n);
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	int missing = 0;
	for (int k = 0; k < r->n_links; k++)
		missing += r->links[k].verdict == WIRING_MISSING;
	assert_int_equal(missing, 5);
	/* the ring's cables come first (kept), then the chords to add */
	assert_int_equal(r->links[4].verdict, WIRING_PASS);
	assert_string_equal(r->links[5].expected, "mac1 tb3 -- mac3 tb3");
	assert_string_equal(r->links[5].fix, "connect a Thunderbolt 5 cable from mac1 "
	    "receptacle 3 to mac3 receptacle 3");
	wiring_result_free(r);
	free(v);
	fx_free(c);
}

/* A plan given by hand names the cluster's nodes and receptacles they have. */
static void
test_plan_fits_cluster(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	char err[256];

	(void)state;
	assert_non_null(c);
	const struct wiring_plan_link ok[] = {
		{{"mac1", "1"}, {"mac2", "4"}}, {{"mac3", ""}, {"mac4", ""}},
	};
	assert_int_equal(wiring_plan_fits(ok, 2, c->nodes, c->n, err, sizeof(err)), 0);
	const struct wiring_plan_link stranger[] = {
		{{"mac1", "1"}, {"mac2", "4"}}, {{"mac3", ""}, {"mac9", ""}},
	};
	assert_int_equal(wiring_plan_fits(stranger, 2, c->nodes, c->n, err, sizeof(err)), -1);
	assert_string_equal(err, "links[1].b: mac9 is not in the cluster");
	const struct wiring_plan_link far[] = { {{"mac1", "9"}, {"mac2", "4"}} };
	assert_int_equal(wiring_plan_fits(far, 1, c->nodes, c->n, err, sizeof(err)), -1);
	assert_string_equal(err, "links[0].a: mac1 has no receptacle 9 (it has 1, 2, 3, 4, 5, 6)");
	/* a node whose ports are not known yet is taken at its word */
	c->nodes[0].n_ports = -1;
	assert_int_equal(wiring_plan_fits(far, 1, c->nodes, c->n, err, sizeof(err)), 0);
	fx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesh_from_cabled_cluster),
		cmocka_unit_test(test_mesh7_every_port),
		cmocka_unit_test(test_mesh8_refused),
		cmocka_unit_test(test_avoids_port_without_rdma),
		cmocka_unit_test(test_ring_of_five),
		cmocka_unit_test(test_plan_fits_cluster),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
