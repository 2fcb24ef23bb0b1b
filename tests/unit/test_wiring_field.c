/*
 * Faults the field reports (issue 19), each judged on a scenario the sim
 * backend plays and on reports edited into the states a scenario cannot
 * give.  The rules' sources, summarised in issue 19's research notes:
 *
 *   bad-port   a Mac Studio's Thunderbolt 5 port next to the Ethernet port
 *              (en2, "Thunderbolt 1") carries no RDMA: exo-explore/exo PR
 *              1551, dashboard/src/routes/+page.svelte L160-205 (model
 *              name "Mac Studio", edge interface rdma_en2, RDMA enabled),
 *              README L298 caveat 3;
 *   degraded   on a Thunderbolt 4 Mac: an empty port says "Up to 40 Gb/s"
 *              where a Thunderbolt 5 one says "Up to 120 Gb/s" (research
 *              point 3); RDMA needs Thunderbolt 5 at both ends (exo README
 *              L275, exo issue 1915);
 *   no-gid     an RDMA port without an IPv4-mapped GID: JACCL's
 *              Connection::info() (ml-explore/mlx, jaccl/rdma.cpp) needs
 *              one; the error and the ifconfig fix are MLX PR 4191's
 *              (issue 3467);
 *   staleness  Thunderbolt and RDMA sections read long before the report
 *              (report_section_time()) are not fresh facts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "wiring_fixture.h"
#include "wiring_int.h"

#define BIT(v) (1u << (v))

#define BAD_PORT_FIX "move the cable from mac1 receptacle 1 (next to Ethernet) to a free " \
	"Thunderbolt 5 port: 4; on a Mac Studio the port next to Ethernet (en2) carries no RDMA"
#define TB4_FIX "mac5's port is Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends (the " \
	"link runs at 40 Gb/s; its free ports say \"Up to 40 Gb/s\")"
#define NO_GID_FIX "rdma_en3 on mac2 lists no IPv4-mapped GID, which JACCL needs (MLX PR " \
	"4191): give en3 its static per-cable address (tbctl node add mac2 --cluster studio4)"

/* The RDMA device of node i's report for interface ifname. */
static struct report_rdma_device *
device_of(struct fx_cluster *c, int i, const char *ifname)
{
	struct report_rdma *rd = &c->reports[i].rdma;

	for (int d = 0; d < rd->n_devices; d++)
		if (strcmp(rd->devices[d].interface, ifname) == 0)
			return &rd->devices[d];
	fail_msg("no device for %s", ifname);
	return NULL;
}

static struct wiring_result *
mesh(struct fx_cluster *c)
{
	struct wiring_result *r;

	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	return r;
}

/* ---- the scenario keys and the sim ------------------------------------ */

static const char bad_speed[] = "{\"cluster\":\"x\",\"nodes\":[{\"name\":\"a\","
    "\"model\":\"m\",\"chip\":\"c\",\"memory_gb\":1,\"os_version\":\"1\","
    "\"os_build\":\"b\",\"max_speed_gbps\":0}]}";
static const char bad_gid[] = "{\"cluster\":\"x\",\"nodes\":[{\"name\":\"a\","
    "\"model\":\"m\",\"chip\":\"c\",\"memory_gb\":1,\"os_version\":\"1\","
    "\"os_build\":\"b\"}],\"ports\":[{\"port\":\"a:1\",\"ipv4_gid\":\"no\"}]}";

static void
test_scenario_keys(void **state)
{
	struct fx_cluster *c;
	struct scenario *s;
	char err[256];
	struct report_port *p;

	(void)state;
	/* machine_name reaches the report only when the scenario gives it */
	c = fx_load("bad-port.json");
	assert_non_null(c);
	for (int i = 0; i < c->n; i++)
		assert_string_equal(c->reports[i].node.machine_name, "Mac Studio");
	fx_free(c);
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	assert_string_equal(c->reports[0].node.machine_name, "");
	/* an empty port says what it can do; a connected one only its rate */
	p = fx_port(c, 0, "4");
	assert_int_equal(p->status, PORT_STATUS_EMPTY);
	assert_true(p->max_speed_gbps == 120.0);
	assert_true(isnan(fx_port(c, 0, "1")->max_speed_gbps));
	assert_int_equal(device_of(c, 1, "en3")->ipv4_gid, TRI_TRUE);
	fx_free(c);
	c = fx_load("degraded-tb4.json");
	assert_non_null(c);
	assert_string_equal(c->reports[fx_node_of(c, "mac5")].node.machine_name, "Mac mini");
	assert_true(fx_port(c, fx_node_of(c, "mac5"), "3")->max_speed_gbps == 40.0);
	assert_true(fx_port(c, fx_node_of(c, "mac1"), "1")->max_speed_gbps == 120.0);
	fx_free(c);
	c = fx_load("no-gid.json");
	assert_non_null(c);
	assert_int_equal(device_of(c, fx_node_of(c, "mac2"), "en3")->ipv4_gid, TRI_FALSE);
	assert_int_equal(fx_port(c, fx_node_of(c, "mac2"), "2")->n_ipv4, 1);
	assert_int_equal(device_of(c, fx_node_of(c, "mac3"), "en4")->ipv4_gid, TRI_TRUE);
	fx_free(c);

	/* wrong values are refused with the field named */
	s = scenario_parse(bad_speed, strlen(bad_speed), err, sizeof(err));
	assert_null(s);
	assert_non_null(strstr(err, "nodes[0].max_speed_gbps: must be a positive number"));
	s = scenario_parse(bad_gid, strlen(bad_gid), err, sizeof(err));
	assert_null(s);
	assert_string_equal(err, "ports[0].ipv4_gid: must be true or false");
}

/* ---- bad-port --------------------------------------------------------- */

static void
test_bad_port_scenario(void **state)
{
	struct fx_cluster *c = fx_load("bad-port.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	l = fx_link(r, "mac1", "mac2");
	assert_non_null(l);
	print_message("%s: %s\n", l->id, l->fix);
	assert_int_equal(l->verdict, WIRING_BAD_PORT);
	assert_int_equal(l->problems, BIT(WIRING_BAD_PORT));
	assert_string_equal(l->fix, BAD_PORT_FIX);
	assert_non_null(strstr(l->evidence_a, "mac1 tb1 (en2) next to Ethernet: connected"));
	assert_false(l->pass);
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	wiring_result_free(r);
	fx_free(c);
}

/* exo's three conditions, each needed: the name, en2, RDMA enabled. */
static void
test_bad_port_conditions(void **state)
{
	struct fx_cluster *c;
	struct wiring_result *r;
	int m1;

	(void)state;
	c = fx_load("bad-port.json");
	assert_non_null(c);
	m1 = fx_node_of(c, "mac1");
	snprintf(c->reports[m1].node.machine_name, sizeof(report_str), "Mac mini");
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	/* another interface on receptacle 1 */
	snprintf(c->reports[m1].node.machine_name, sizeof(report_str), "Mac Studio");
	snprintf(fx_port(c, m1, "1")->interface, sizeof(report_str), "en9");
	snprintf(device_of(c, m1, "en2")->interface, sizeof(report_str), "en9");
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	/* en2 on another receptacle (as tests/fixtures/macos's synthetic Studio
	 * maps it): which port is next to Ethernet is not known */
	snprintf(fx_port(c, m1, "1")->interface, sizeof(report_str), "en2");
	snprintf(device_of(c, m1, "en9")->interface, sizeof(report_str), "en2");
	snprintf(fx_port(c, m1, "1")->receptacle, sizeof(report_str), "5");
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	fx_free(c);
	/* RDMA off at the Studio: rdma-off says what to do first */
	c = fx_load("bad-port.json");
	assert_non_null(c);
	m1 = fx_node_of(c, "mac1");
	c->reports[m1].rdma.state = RDMA_STATE_DISABLED;
	c->reports[m1].rdma.n_devices = 0;
	r = mesh(c);
	assert_int_equal(fx_link(r, "mac1", "mac2")->problems & BIT(WIRING_BAD_PORT), 0);
	assert_int_equal(fx_link(r, "mac1", "mac2")->verdict, WIRING_RDMA_OFF);
	wiring_result_free(r);
	fx_free(c);
}

/* Swap ports x and y of node i's report, each keeping its receptacle and
 * interface (what is plugged in moves), and the RDMA devices with them. */
static void
swap_ports(struct fx_cluster *c, int i, int x, int y)
{
	struct report_port *px = &c->reports[i].thunderbolt.ports[x];
	struct report_port *py = &c->reports[i].thunderbolt.ports[y], t = *px;
	struct report_rdma_device *dx = device_of(c, i, px->interface);
	struct report_rdma_device *dy = device_of(c, i, py->interface);
	enum rdma_port_state st = dx->port_state;
	enum tri g;

	*px = *py;
	*py = t;
	snprintf(py->receptacle, sizeof(py->receptacle), "%d", y + 1);
	snprintf(px->receptacle, sizeof(px->receptacle), "%d", x + 1);
	snprintf(py->interface, sizeof(py->interface), "%s", dy->interface);
	snprintf(px->interface, sizeof(px->interface), "%s", dx->interface);
	dx->port_state = dy->port_state;
	dy->port_state = st;
	g = dx->ipv4_gid;
	dx->ipv4_gid = dy->ipv4_gid;
	dy->ipv4_gid = g;
}

/* The free ports the report shows, not a fixed count; and none free. */
static void
test_bad_port_free_ports(void **state)
{
	struct fx_cluster *c = fx_load("bad-port.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	int m2;

	(void)state;
	assert_non_null(c);
	m2 = fx_node_of(c, "mac2");
	/* mac2 (six receptacles) with its cable to mac1 moved to its receptacle
	 * 1, en2: free are 3, 4 and 6 */
	swap_ports(c, m2, 0, 3);
	assert_string_equal(fx_port(c, m2, "1")->interface, "en2");
	assert_int_equal(fx_port(c, m2, "1")->status, PORT_STATUS_CONNECTED);
	assert_int_equal(fx_port(c, m2, "4")->status, PORT_STATUS_EMPTY);
	r = mesh(c);
	l = fx_link(r, "mac1", "mac2");
	print_message("%s: %s\n", l->id, l->fix);
	assert_string_equal(l->id, "mac1:1--mac2:1");
	assert_int_equal(l->verdict, WIRING_BAD_PORT);
	assert_string_equal(l->fix, BAD_PORT_FIX "; move the cable from mac2 receptacle 1 (next "
	    "to Ethernet) to a free Thunderbolt 5 port: 3, 4, 6; on a Mac Studio the port next "
	    "to Ethernet (en2) carries no RDMA");
	wiring_result_free(r);
	fx_free(c);

	/* mac1 with its receptacle 4 in use too */
	c = fx_load("bad-port.json");
	assert_non_null(c);
	fx_port(c, fx_node_of(c, "mac1"), "4")->status = PORT_STATUS_CONNECTED;
	r = mesh(c);
	l = fx_link(r, "mac1", "mac2");
	assert_string_equal(l->fix, "move the cable from mac1 receptacle 1 (next to Ethernet) "
	    "to another Thunderbolt 5 port of mac1 (none is free: unplug a cable it does not "
	    "need); on a Mac Studio the port next to Ethernet (en2) carries no RDMA");
	wiring_result_free(r);
	fx_free(c);
}

/* The port's RDMA device being down is the port's doing: not port-down. */
static void
test_bad_port_hides_port_down(void **state)
{
	struct fx_cluster *c = fx_load("bad-port.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	device_of(c, fx_node_of(c, "mac1"), "en2")->port_state = RDMA_PORT_DOWN;
	device_of(c, fx_node_of(c, "mac2"), "en5")->port_state = RDMA_PORT_DOWN;
	r = mesh(c);
	l = fx_link(r, "mac1", "mac2");
	assert_int_equal(l->problems, BIT(WIRING_BAD_PORT));
	assert_string_equal(l->fix, BAD_PORT_FIX);
	wiring_result_free(r);
	fx_free(c);
}

/* wiring plan never puts an RDMA cable on a Studio's en2. */
static void
test_bad_port_plan(void **state)
{
	struct fx_cluster *c = fx_load("bad-port.json");
	struct wiring_plan_link *pl = NULL;
	int n = 0, m1, used[5] = {0};
	char err[256];

	(void)state;
	assert_non_null(c);
	m1 = fx_node_of(c, "mac1");
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, m1, &c->nodes[m1].ports[0]), 0);
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, m1, &c->nodes[m1].ports[1]), 1);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &pl, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 6);
	for (int k = 0; k < n; k++) {
		const struct wiring_end *e[2] = {&pl[k].a, &pl[k].b};

		for (int s = 0; s < 2; s++)
			if (strcmp(e[s]->node, "mac1") == 0)
				used[atoi(e[s]->receptacle)]++;
			else    /* the other Studios' en2 (receptacle 1) neither */
				assert_string_not_equal(e[s]->receptacle, "1");
	}
	assert_int_equal(used[1], 0);
	assert_int_equal(used[2] + used[3] + used[4], 3);
	free(pl);

	/* not even with RDMA still off there (enabling it is the next step) */
	c->reports[m1].rdma.state = RDMA_STATE_DISABLED;
	c->reports[m1].rdma.n_devices = 0;
	fx_refresh(c);
	assert_int_equal(wiring_port_carries_rdma(c->nodes, c->n, m1, &c->nodes[m1].ports[0]), 0);

	/* a Studio with only en2 and one more port cannot be in a full mesh
	 * of 4, and the error says why */
	c->reports[m1].thunderbolt.n_ports = 2;
	fx_refresh(c);
	assert_int_equal(wiring_plan_make(c->nodes, c->n, WIRING_TOPO_MESH, &pl, &n, err,
	    sizeof(err)), -1);
	print_message("%s\n", err);
	assert_string_equal(err, "a full mesh of 4 needs 3 receptacles carrying RDMA on each "
	    "node; mac1 has 1 (a Mac Studio's port next to Ethernet, en2, carries no RDMA)");
	fx_free(c);
}

/* ---- degraded on a Thunderbolt 4 Mac ---------------------------------- */

static void
test_tb4_scenario(void **state)
{
	struct fx_cluster *c = fx_load("degraded-tb4.json");
	struct wiring_result *r;

	(void)state;
	assert_non_null(c);
	r = mesh(c);
	assert_int_equal(fx_link(r, "mac1", "mac2")->verdict, WIRING_PASS);
	for (int k = 0; k < 2; k++) {
		const struct wiring_link *l = fx_link(r, k == 0 ? "mac1" : "mac2", "mac5");

		print_message("%s: %s\n", l->id, l->fix);
		assert_int_equal(l->verdict, WIRING_DEGRADED);
		assert_int_equal(l->problems, BIT(WIRING_DEGRADED));
		assert_string_equal(l->fix, TB4_FIX);
		assert_non_null(strstr(l->evidence_b, "Thunderbolt 4 (free ports up to 40 Gb/s)"));
		assert_null(strstr(l->evidence_a, "Thunderbolt 4"));
	}
	wiring_result_free(r);
	fx_free(c);

	/* two Thunderbolt 5 ends at 40 Gb/s: the cable, as before */
	c = fx_load("degraded-40g.json");
	assert_non_null(c);
	r = mesh(c);
	assert_string_equal(fx_link(r, "mac2", "mac3")->fix, "replace the cable between mac2 "
	    "tb2 and mac3 tb3: it runs at 40 Gb/s; Thunderbolt 5 needs an active cable or a "
	    "passive one of at most 0.8 m");
	wiring_result_free(r);
	fx_free(c);
}

/* The evidence rule: an empty port at 40 and none at 120, on either end. */
static void
test_tb4_evidence(void **state)
{
	struct fx_cluster *c;
	struct wiring_result *r;
	int m5, m1;

	(void)state;
	/* mac5 with a Thunderbolt 5 port among its free ones: not Thunderbolt 4 */
	c = fx_load("degraded-tb4.json");
	assert_non_null(c);
	m5 = fx_node_of(c, "mac5");
	fx_port(c, m5, "3")->max_speed_gbps = 120;
	r = mesh(c);
	assert_non_null(strstr(fx_link(r, "mac1", "mac5")->fix, "replace the cable between"));
	wiring_result_free(r);
	/* no free port at all, or its max speed not known: no evidence */
	fx_port(c, m5, "3")->status = PORT_STATUS_CONNECTED;
	r = mesh(c);
	assert_non_null(strstr(fx_link(r, "mac1", "mac5")->fix, "replace the cable between"));
	wiring_result_free(r);
	fx_port(c, m5, "3")->status = PORT_STATUS_EMPTY;
	fx_port(c, m5, "3")->max_speed_gbps = NAN;
	r = mesh(c);
	assert_non_null(strstr(fx_link(r, "mac1", "mac5")->fix, "replace the cable between"));
	wiring_result_free(r);
	fx_free(c);

	/* both ends Thunderbolt 4 */
	c = fx_load("degraded-tb4.json");
	assert_non_null(c);
	m1 = fx_node_of(c, "mac1");
	for (int p = 0; p < c->reports[m1].thunderbolt.n_ports; p++)
		if (c->reports[m1].thunderbolt.ports[p].status == PORT_STATUS_EMPTY)
			c->reports[m1].thunderbolt.ports[p].max_speed_gbps = 40;
	r = mesh(c);
	print_message("%s\n", fx_link(r, "mac1", "mac5")->fix);
	assert_string_equal(fx_link(r, "mac1", "mac5")->fix, "mac1's and mac5's ports are "
	    "Thunderbolt 4: RDMA needs Thunderbolt 5 at both ends (the link runs at 40 Gb/s; "
	    "their free ports say \"Up to 40 Gb/s\")");
	assert_string_equal(fx_link(r, "mac2", "mac5")->fix, TB4_FIX);
	/* mac1-mac2 at 80 Gb/s is not degraded, whatever the ports */
	assert_int_equal(fx_link(r, "mac1", "mac2")->verdict, WIRING_PASS);
	wiring_result_free(r);
	fx_free(c);
}

/* ---- no-gid ------------------------------------------------------------ */

static void
test_no_gid_scenario(void **state)
{
	struct fx_cluster *c = fx_load("no-gid.json");
	struct wiring_result *r;
	const struct wiring_link *l;

	(void)state;
	assert_non_null(c);
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 5);
	l = fx_link(r, "mac2", "mac3");
	print_message("%s: %s\n", l->id, l->fix);
	assert_int_equal(l->verdict, WIRING_NO_GID);
	assert_int_equal(l->problems, BIT(WIRING_NO_GID));
	assert_string_equal(l->fix, NO_GID_FIX);
	assert_non_null(strstr(l->evidence_a, "rdma_en3 active without an IPv4-mapped GID"));
	assert_null(strstr(l->evidence_b, "without an IPv4-mapped GID"));
	assert_int_equal(r->verdict, WIRING_RING_ONLY);
	wiring_result_free(r);
	fx_free(c);
}

static void
test_no_gid_conditions(void **state)
{
	struct fx_cluster *c;
	struct wiring_result *r;
	const struct wiring_link *l;
	int m2;

	(void)state;
	/* without an address it is no-ipv4 alone: one fix for both */
	c = fx_load("no-gid.json");
	assert_non_null(c);
	m2 = fx_node_of(c, "mac2");
	fx_port(c, m2, "2")->n_ipv4 = 0;
	r = mesh(c);
	l = fx_link(r, "mac2", "mac3");
	assert_int_equal(l->problems, BIT(WIRING_NO_IPV4));
	wiring_result_free(r);
	/* addresses not known: no evidence either way */
	fx_port(c, m2, "2")->n_ipv4 = -1;
	r = mesh(c);
	l = fx_link(r, "mac2", "mac3");
	assert_false(l->problems & BIT(WIRING_NO_GID));
	wiring_result_free(r);
	/* GIDs not read: no evidence */
	fx_port(c, m2, "2")->n_ipv4 = 1;
	device_of(c, m2, "en3")->ipv4_gid = TRI_NULL;
	r = mesh(c);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	fx_free(c);

	/* both ends, and the SSH host node add reaches the Mac at */
	c = fx_load("no-gid.json");
	assert_non_null(c);
	device_of(c, fx_node_of(c, "mac3"), "en4")->ipv4_gid = TRI_FALSE;
	fx_refresh(c);
	snprintf(c->nodes[fx_node_of(c, "mac3")].ssh_host, sizeof(c->nodes[0].ssh_host),
	    "studio-3.example");
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	l = fx_link(r, "mac2", "mac3");
	print_message("%s\n", l->fix);
	assert_string_equal(l->fix, NO_GID_FIX "; rdma_en4 on mac3 lists no IPv4-mapped GID, "
	    "which JACCL needs (MLX PR 4191): give en4 its static per-cable address (tbctl node "
	    "add studio-3.example --cluster studio4)");
	wiring_result_free(r);
	fx_free(c);
}

/* ---- staleness per section ---------------------------------------------- */

/* Node mac2's report put together at FX_NOW, its sections read age seconds
 * before (NAN: the field unset). */
static void
sections_old(struct fx_cluster *c, double tb_age, double rdma_age)
{
	struct report *r = &c->reports[fx_node_of(c, "mac2")];

	r->collected_at = FX_NOW;
	r->thunderbolt.collected_at = FX_NOW - tb_age;
	r->rdma.collected_at = FX_NOW - rdma_age;
}

static void
test_stale_sections(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_result *r;
	const struct wiring_link *l;
	int m2;

	(void)state;
	assert_non_null(c);
	m2 = fx_node_of(c, "mac2");
	/* the report arrived now; its Thunderbolt facts are 600 s old */
	sections_old(c, 600, NAN);
	r = mesh(c);
	assert_int_equal(c->nodes[m2].freshness, WIRING_REPORT_STALE);
	assert_true(c->nodes[m2].facts_stale);
	assert_true(c->nodes[m2].facts_age == 600);
	assert_int_equal(fx_count_verdict(r, WIRING_UNKNOWN), 3);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 3);
	l = fx_link(r, "mac1", "mac2");
	print_message("%s\n%s\n", l->fix, l->evidence_b);
	assert_int_equal(l->verdict, WIRING_UNKNOWN);
	assert_string_equal(l->fix, "mac2's last report carries Thunderbolt and RDMA facts "
	    "read 600 s before it: check that tbagentd's Thunderbolt collection runs there "
	    "(see the errors in its report)");
	assert_non_null(strstr(l->evidence_b, "; Thunderbolt and RDMA facts stale (read 600 s "
	    "before the report)"));
	assert_string_equal(r->verdict_text, "not known yet: mac2's Thunderbolt and RDMA facts "
	    "are stale");
	wiring_result_free(r);

	/* the RDMA section alone */
	sections_old(c, NAN, 300);
	r = mesh(c);
	assert_true(c->nodes[m2].facts_stale);
	assert_int_equal(fx_count_verdict(r, WIRING_UNKNOWN), 3);
	wiring_result_free(r);

	/* within the limit (90 s + WIRING_FACTS_GRACE), or read with the report: fresh */
	sections_old(c, 200, 30);
	r = mesh(c);
	assert_int_equal(c->nodes[m2].freshness, WIRING_REPORT_FRESH);
	assert_false(c->nodes[m2].facts_stale);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	sections_old(c, NAN, NAN);
	r = mesh(c);
	assert_true(c->nodes[m2].facts_age == 0);
	assert_int_equal(fx_count_verdict(r, WIRING_PASS), 6);
	wiring_result_free(r);
	fx_free(c);
}

/* The limit counts from the report's arrival less the sections' age. */
static void
test_freshen(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wiring_node *n;

	(void)state;
	assert_non_null(c);
	sections_old(c, 150, 150);
	fx_refresh(c);
	n = &c->nodes[fx_node_of(c, "mac2")];
	assert_true(n->facts_age == 150);
	assert_true(wiring_report_facts_age(&c->reports[fx_node_of(c, "mac2")]) == 150);
	/* a section read after the report (a clock step) counts as read with it */
	c->reports[fx_node_of(c, "mac2")].rdma.collected_at = FX_NOW + 5;
	c->reports[fx_node_of(c, "mac2")].thunderbolt.collected_at = FX_NOW + 5;
	assert_true(wiring_report_facts_age(&c->reports[fx_node_of(c, "mac2")]) == 0);
	/* read 180 s ago: within 90 + WIRING_FACTS_GRACE */
	wiring_node_freshen(n, FX_NOW - 30, FX_NOW, FX_STALE);
	assert_int_equal(n->freshness, WIRING_REPORT_FRESH);
	assert_true(n->report_at == FX_NOW - 30);
	/* read 211 s ago, in a report 61 s old (not late) */
	wiring_node_freshen(n, FX_NOW - 61, FX_NOW, FX_STALE);
	assert_int_equal(n->freshness, WIRING_REPORT_STALE);
	assert_true(n->facts_stale);
	/* a late report is stale for its own sake */
	wiring_node_freshen(n, FX_NOW - 91, FX_NOW, FX_STALE);
	assert_int_equal(n->freshness, WIRING_REPORT_STALE);
	assert_false(n->facts_stale);
	n->state = NODE_UNREACHABLE;
	wiring_node_freshen(n, FX_NOW, FX_NOW, FX_STALE);
	assert_int_equal(n->freshness, WIRING_REPORT_STALE);
	assert_false(n->facts_stale);
	/* no report stays none */
	wiring_node_from_report(n, "mac2", NODE_READY, NULL, NAN, FX_NOW, FX_STALE);
	wiring_node_freshen(n, FX_NOW, FX_NOW, FX_STALE);
	assert_int_equal(n->freshness, WIRING_REPORT_NONE);
	fx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenario_keys),
		cmocka_unit_test(test_bad_port_scenario),
		cmocka_unit_test(test_bad_port_conditions),
		cmocka_unit_test(test_bad_port_free_ports),
		cmocka_unit_test(test_bad_port_hides_port_down),
		cmocka_unit_test(test_bad_port_plan),
		cmocka_unit_test(test_tb4_scenario),
		cmocka_unit_test(test_tb4_evidence),
		cmocka_unit_test(test_no_gid_scenario),
		cmocka_unit_test(test_no_gid_conditions),
		cmocka_unit_test(test_stale_sections),
		cmocka_unit_test(test_freshen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
