/*
 * The sim backend: both ends of every cable agree (peer domain UUIDs, speed,
 * status) in the shipped scenarios; each fault shows where it should and
 * nowhere else; identity, memory and power; a bad scenario file or an
 * unknown node still gives a report with a "sim" error.  Scenario files are
 * found through TBMESH_TOP (tests/run.sh sets it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "scenario.h"

#define NOW 1767225600.0        /* 2026-01-01 */
#define MAXN SCENARIO_NODES_MAX

struct cluster {
	struct scenario *s;
	int n;
	struct report r[MAXN];
};

static const char *
scenario_path(const char *file, char *buf, size_t len)
{
	const char *top = getenv("TBMESH_TOP");

	snprintf(buf, len, "%s/tests/scenarios/%s", top != NULL ? top : ".", file);
	return buf;
}

/* Collect node's report from file (a path, or a name under tests/scenarios). */
static int
collect(const char *file, const char *node, double now, struct report *r)
{
	char path[4096];
	struct collect_opts o = { .now = now, .node = node };

	o.scenario = file[0] == '/' ? file : scenario_path(file, path, sizeof(path));
	return collector_run(&backend_sim, &o, r);
}

/* Every node's report, checked to be complete and valid JSON both ways. */
static struct cluster *
cluster_collect(const char *file)
{
	struct cluster *c = calloc(1, sizeof(*c));
	char path[4096], err[512];

	assert_non_null(c);
	c->s = scenario_load(scenario_path(file, path, sizeof(path)), err, sizeof(err));
	if (c->s == NULL)
		fail_msg("%s", err);
	c->n = c->s->n_nodes;
	for (int i = 0; i < c->n; i++) {
		struct report back;
		int rc = collect(file, c->s->nodes[i].name, NOW, &c->r[i]);
		assert_int_equal(rc, c->s->nodes[i].unreachable ? -1 : 0);
		if (rc == 0)
			assert_int_equal(c->r[i].n_errors, 0);
		char *json = report_encode(&c->r[i], 0);
		assert_non_null(json);
		if (report_decode(json, strlen(json), &back, err, sizeof(err)) == -1)
			fail_msg("%s: %s", c->s->nodes[i].name, err);
		free(json);
	}
	return c;
}

static void
cluster_free(struct cluster *c)
{
	scenario_free(c->s);
	free(c);
}

static int
node_of(const struct cluster *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->r[i].node.hostname, name) == 0)
			return i;
	fail_msg("no report from %s", name);
	return -1;
}

static const struct report_port *
port_of(const struct report *r, int receptacle)
{
	char want[8];

	snprintf(want, sizeof(want), "%d", receptacle);
	for (int k = 0; k < r->thunderbolt.n_ports; k++)
		if (strcmp(r->thunderbolt.ports[k].receptacle, want) == 0)
			return &r->thunderbolt.ports[k];
	fail_msg("%s has no receptacle %d", r->node.hostname, receptacle);
	return NULL;
}

static const struct report_rdma_device *
device_of(const struct report *r, const char *ifname)
{
	for (int k = 0; k < r->rdma.n_devices; k++)
		if (strcmp(r->rdma.devices[k].interface, ifname) == 0)
			return &r->rdma.devices[k];
	return NULL;
}

/* The (node, port) whose own domain UUID is uuid: exactly one. */
static const struct report_port *
resolve(const struct cluster *c, const char *uuid, int *node)
{
	const struct report_port *found = NULL;

	for (int i = 0; i < c->n; i++)
		for (int k = 0; k < c->r[i].thunderbolt.n_ports; k++)
			if (strcmp(c->r[i].thunderbolt.ports[k].domain_uuid, uuid) == 0) {
				assert_null(found);
				found = &c->r[i].thunderbolt.ports[k];
				*node = i;
			}
	assert_non_null(found);
	return found;
}

/* Both ends of cable k agree; returns the speed they agree on. */
static double
check_cable(const struct cluster *c, int k)
{
	const struct scenario_cable *cb = &c->s->cables[k];
	const struct report *ra = &c->r[cb->a_node], *rb = &c->r[cb->b_node];
	const struct report_port *a = port_of(ra, cb->a_receptacle);
	const struct report_port *b = port_of(rb, cb->b_receptacle);
	int na, nb;

	assert_int_equal(a->status, PORT_STATUS_CONNECTED);
	assert_int_equal(b->status, PORT_STATUS_CONNECTED);
	assert_true(a->has_peer && b->has_peer);
	assert_string_equal(a->peer.domain_uuid, b->domain_uuid);
	assert_string_equal(b->peer.domain_uuid, a->domain_uuid);
	assert_ptr_equal(resolve(c, a->peer.domain_uuid, &nb), b);
	assert_ptr_equal(resolve(c, b->peer.domain_uuid, &na), a);
	assert_int_equal(na, cb->a_node);
	assert_int_equal(nb, cb->b_node);
	assert_true(a->speed_gbps == b->speed_gbps);
	assert_string_equal(a->link_status, "0x2");
	assert_string_equal(b->link_status, "0x2");
	assert_string_equal(a->peer.name, "Mac Studio");
	assert_string_equal(a->peer.model, rb->node.model);
	assert_string_equal(b->peer.model, ra->node.model);
	return a->speed_gbps;
}

static void
check_full_mesh(const char *file, int nodes, int cables)
{
	struct cluster *c = cluster_collect(file);

	assert_int_equal(c->n, nodes);
	assert_int_equal(c->s->n_cables, cables);
	for (int k = 0; k < c->s->n_cables; k++) {
		const struct scenario_cable *cb = &c->s->cables[k];
		const struct report_port *a = port_of(&c->r[cb->a_node], cb->a_receptacle);
		assert_true(check_cable(c, k) == 80.0);
		assert_int_equal(a->peer.rdma_service, TRI_TRUE);
		assert_int_equal(device_of(&c->r[cb->a_node], a->interface)->port_state,
		    RDMA_PORT_ACTIVE);
		assert_int_equal(a->n_ipv4, 1);
	}
	/* Every node sees every other node exactly once. */
	for (int i = 0; i < c->n; i++) {
		int seen[MAXN] = { 0 };
		for (int k = 0; k < c->r[i].thunderbolt.n_ports; k++) {
			const struct report_port *p = &c->r[i].thunderbolt.ports[k];
			int peer;
			if (!p->has_peer)
				continue;
			resolve(c, p->peer.domain_uuid, &peer);
			seen[peer]++;
		}
		for (int j = 0; j < c->n; j++)
			assert_int_equal(seen[j], i == j ? 0 : 1);
	}
	cluster_free(c);
}

static void
test_mesh4_both_ends_agree(void **state)
{
	(void)state;
	check_full_mesh("mesh4-studio.json", 4, 6);
}

static void
test_mesh7_both_ends_agree(void **state)
{
	(void)state;
	check_full_mesh("mesh7-studio.json", 7, 21);
}

static void
test_mesh4_node_report(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("mesh4-studio.json");
	const struct report *r = &c->r[node_of(c, "mac1")];

	assert_string_equal(r->node.hostname, "mac1");
	assert_string_equal(r->node.model, "Mac15,14");
	assert_string_equal(r->node.chip, "Apple M3 Ultra");
	assert_string_equal(r->node.os_version, "26.2");
	assert_string_equal(r->node.os_build, "25C56");
	assert_string_equal(r->node.serial, c->s->nodes[0].serial);
	assert_string_equal(r->node.hardware_uuid, c->s->nodes[0].hardware_uuid);
	assert_string_not_equal(r->node.agent_version, "");
	assert_true(r->node.boot_time == c->s->nodes[0].boot_time);
	assert_true(r->collected_at == NOW);
	assert_int_equal(r->thunderbolt.n_ports, 6);
	for (int k = 0; k < 6; k++) {
		const struct report_port *p = &r->thunderbolt.ports[k];
		char want[32];
		snprintf(want, sizeof(want), "%d", k + 1);
		assert_string_equal(p->receptacle, want);
		snprintf(want, sizeof(want), "thunderboltusb4_bus_%d", k);
		assert_string_equal(p->bus, want);
		snprintf(want, sizeof(want), "en%d", k + 2);
		assert_string_equal(p->interface, want);
		snprintf(want, sizeof(want), "rdma_en%d", k + 2);
		assert_string_equal(r->rdma.devices[k].name, want);
	}
	/* mac1 is cabled on 1..3; 4..6 are empty. */
	for (int k = 3; k < 6; k++) {
		const struct report_port *p = &r->thunderbolt.ports[k];
		assert_int_equal(p->status, PORT_STATUS_EMPTY);
		assert_string_equal(p->link_status, "0x100");
		assert_true(isnan(p->speed_gbps));
		assert_false(p->has_peer);
		assert_int_equal(p->n_ipv4, 0);
		assert_int_equal(r->rdma.devices[k].port_state, RDMA_PORT_DOWN);
		assert_int_equal(r->rdma.devices[k].ipv4_gid, TRI_FALSE);
	}
	assert_int_equal(r->rdma.state, RDMA_STATE_ENABLED);
	assert_int_equal(r->rdma.n_devices, 6);
	assert_int_equal(r->rdma.devices[0].ipv4_gid, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.n_members, 0);
	cluster_free(c);
}

/* "lan" -> network.interfaces; without it, null. */
static void
test_network(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("mesh4-studio.json");
	char path[] = "/tmp/tbmesh-sim-XXXXXX", ip[16], iface[16], want[32];
	const char *kind;
	const char *text = "{\"cluster\": \"c\", \"defaults\": {\"model\": \"Mac15,14\", "
	    "\"chip\": \"Apple M3 Ultra\", \"os_version\": \"26.2\", \"os_build\": \"25C56\", "
	    "\"memory_gb\": 512}, \"nodes\": [{\"name\": \"mac1\", \"lan\": ["
	    "{\"interface\": \"utun4\", \"kind\": \"other\", \"ipv4\": \"198.51.100.7\"}, "
	    "{\"interface\": \"en1\", \"kind\": \"wifi\", \"ipv4\": [\"169.254.1.1\", "
	    "\"192.0.2.111\"]}, {\"interface\": \"en0\", \"ipv4\": []}]}, "
	    "{\"name\": \"mac2\", \"lan\": []}, {\"name\": \"mac3\"}]}";
	struct report r;
	int fd;

	for (int i = 0; i < c->n; i++) {
		const struct report_network *nw = &c->r[i].network;
		snprintf(want, sizeof(want), "192.0.2.%d", 11 + i);
		assert_int_equal(nw->n_interfaces, 1);
		assert_string_equal(nw->interfaces[0].name, "en0");
		assert_int_equal(nw->interfaces[0].kind, NETIF_KIND_ETHERNET);
		assert_string_equal(nw->interfaces[0].port, "Ethernet");
		assert_int_equal(nw->interfaces[0].n_ipv4, 1);
		assert_string_equal(nw->interfaces[0].ipv4[0], want);
		assert_int_equal(report_lan_ipv4(&c->r[i], ip, sizeof(ip), iface, sizeof(iface),
		    &kind), 0);
		assert_string_equal(ip, want);
	}
	cluster_free(c);
	assert_int_equal(collect("degraded-40g.json", "mac1", NOW, &r), 0);
	assert_int_equal(r.network.n_interfaces, -1);

	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(collect(path, "mac1", NOW, &r), 0);
	assert_int_equal(r.n_errors, 0);
	assert_int_equal(r.network.n_interfaces, 3);
	assert_string_equal(r.network.interfaces[0].name, "utun4");
	assert_int_equal(r.network.interfaces[0].kind, NETIF_KIND_OTHER);
	assert_string_equal(r.network.interfaces[0].port, "");
	assert_int_equal(r.network.interfaces[1].kind, NETIF_KIND_WIFI);
	assert_string_equal(r.network.interfaces[1].port, "Wi-Fi");
	assert_int_equal(r.network.interfaces[1].n_ipv4, 2);
	assert_int_equal(r.network.interfaces[2].n_ipv4, 0);
	/* Ethernet has no address: Wi-Fi's first one that is not link-local */
	assert_int_equal(report_lan_ipv4(&r, ip, sizeof(ip), iface, sizeof(iface), &kind), 0);
	assert_string_equal(ip, "192.0.2.111");
	assert_string_equal(iface, "en1");
	assert_int_equal(collect(path, "mac2", NOW, &r), 0);
	assert_int_equal(r.network.n_interfaces, 0);
	assert_int_equal(collect(path, "mac3", NOW, &r), 0);
	assert_int_equal(r.network.n_interfaces, -1);
	unlink(path);
}

static void
test_memory_and_power(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("mesh4-studio.json");
	const struct report_memory *m1 = &c->r[node_of(c, "mac1")].memory;
	const struct report_memory *m3 = &c->r[node_of(c, "mac3")].memory;

	assert_true(m1->total_bytes == INT64_C(549755813888));
	assert_true(m3->total_bytes == INT64_C(274877906944));
	for (int i = 0; i < c->n; i++) {
		const struct report_memory *m = &c->r[i].memory;
		const struct report_power *p = &c->r[i].power;
		assert_true(m->free_bytes > 0);
		assert_true(m->active_bytes + m->inactive_bytes + m->wired_bytes +
		    m->compressed_bytes + m->free_bytes == m->total_bytes);
		assert_true(m->free_bytes % 16384 == 0);
		assert_true(m->free_ratio > 0.7 && m->free_ratio < 0.9);
		assert_true(fabs(m->free_ratio -
		    (double)(m->free_bytes + m->inactive_bytes) / (double)m->total_bytes) < 1e-9);
		assert_true(m->gpu_wired_limit_bytes == 0);
		assert_true(m->swap_total_bytes == 0 && m->swap_used_bytes == 0);
		assert_string_equal(p->source, "sim");
		assert_true(p->system_watts >= 114.0 && p->system_watts <= 126.0);
		assert_true(p->cpu_watts + p->gpu_watts < p->system_watts);
		assert_true(p->ane_watts == 0.0);
		assert_true(c->r[i].thermal.cpu_celsius > 30.0 && c->r[i].thermal.cpu_celsius < 60.0);
		assert_true(c->r[i].thermal.gpu_celsius > 30.0);
	}
	cluster_free(c);
}

static void
test_same_time_same_report(void **state)
{
	(void)state;
	struct report *a = report_new(), *b = report_new();

	assert_int_equal(collect("mesh4-studio.json", "mac2", NOW, a), 0);
	assert_int_equal(collect("mesh4-studio.json", "mac2", NOW, b), 0);
	assert_memory_equal(a, b, sizeof(*a));
	assert_int_equal(collect("mesh4-studio.json", "mac2", NOW + 15, b), 0);
	assert_true(a->power.system_watts != b->power.system_watts);
	assert_true(a->memory.total_bytes == b->memory.total_bytes);
	assert_string_equal(a->thunderbolt.ports[1].domain_uuid, b->thunderbolt.ports[1].domain_uuid);
	/* No clock given: still a report. */
	assert_int_equal(collect("mesh4-studio.json", "mac2", NAN, b), 0);
	assert_true(isfinite(b->power.system_watts));
	free(a);
	free(b);
}

static void
test_degraded_40g(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("degraded-40g.json");
	int slow = 0, slow_cables = 0;

	for (int k = 0; k < c->s->n_cables; k++)
		if (check_cable(c, k) == 40.0)
			slow_cables++;
	for (int i = 0; i < c->n; i++)
		for (int k = 0; k < c->r[i].thunderbolt.n_ports; k++) {
			double sp = c->r[i].thunderbolt.ports[k].speed_gbps;
			if (!isnan(sp) && sp != 80.0) {
				assert_true(sp == 40.0);
				slow++;
			}
		}
	assert_int_equal(slow_cables, 1);
	assert_int_equal(slow, 2);
	assert_true(port_of(&c->r[node_of(c, "mac2")], 2)->speed_gbps == 40.0);
	assert_true(port_of(&c->r[node_of(c, "mac3")], 3)->speed_gbps == 40.0);
	cluster_free(c);
}

static void
test_missing_cable(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("missing-cable.json");
	const struct report *r3 = &c->r[node_of(c, "mac3")], *r4 = &c->r[node_of(c, "mac4")];
	const struct report_port *p3 = port_of(r3, 6), *p4 = port_of(r4, 5);

	assert_int_equal(c->s->n_cables, 5);
	for (int k = 0; k < c->s->n_cables; k++)
		assert_true(check_cable(c, k) == 80.0);
	assert_int_equal(p3->status, PORT_STATUS_EMPTY);
	assert_int_equal(p4->status, PORT_STATUS_EMPTY);
	assert_false(p3->has_peer || p4->has_peer);
	assert_true(isnan(p3->speed_gbps) && isnan(p4->speed_gbps));
	assert_string_equal(p3->link_status, "0x100");
	assert_int_equal(p3->n_ipv4, 0);
	assert_int_equal(device_of(r3, p3->interface)->port_state, RDMA_PORT_DOWN);
	assert_int_equal(device_of(r4, p4->interface)->port_state, RDMA_PORT_DOWN);
	cluster_free(c);
}

static void
test_rdma_off(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("rdma-off.json");
	int off = node_of(c, "mac3"), links = 0;

	assert_int_equal(c->r[off].rdma.state, RDMA_STATE_DISABLED);
	assert_int_equal(c->r[off].rdma.n_devices, 0);
	for (int k = 0; k < c->s->n_cables; k++) {
		const struct scenario_cable *cb = &c->s->cables[k];
		check_cable(c, k);
		for (int e = 0; e < 2; e++) {
			int me = e ? cb->b_node : cb->a_node, peer = e ? cb->a_node : cb->b_node;
			const struct report *r = &c->r[me];
			const struct report_port *p = port_of(r, e ? cb->b_receptacle : cb->a_receptacle);
			if (me == off)
				continue;
			assert_int_equal(p->peer.rdma_service, peer == off ? TRI_FALSE : TRI_TRUE);
			assert_int_equal(device_of(r, p->interface)->port_state,
			    peer == off ? RDMA_PORT_DOWN : RDMA_PORT_ACTIVE);
			links += peer == off;
		}
	}
	assert_int_equal(links, 3);
	/* mac3 still sees its peers' RDMA service. */
	assert_int_equal(port_of(&c->r[off], 1)->peer.rdma_service, TRI_TRUE);
	cluster_free(c);
}

static void
test_bridge_active(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("bridge-active.json");

	for (int i = 0; i < c->n; i++) {
		const struct report_bridge *b = &c->r[i].thunderbolt.bridge;
		int on = strcmp(c->r[i].node.hostname, "mac2") == 0;
		assert_int_equal(b->exists, TRI_TRUE);
		assert_int_equal(b->active, on ? TRI_TRUE : TRI_FALSE);
		assert_int_equal(b->n_members, on ? 6 : 0);
	}
	const struct report_bridge *b = &c->r[node_of(c, "mac2")].thunderbolt.bridge;
	assert_string_equal(b->members[0], "en2");
	assert_string_equal(b->members[5], "en7");
	cluster_free(c);
}

static void
test_no_ipv4_and_port_down(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("no-ipv4.json");
	const struct report *r3 = &c->r[node_of(c, "mac3")], *r1 = &c->r[node_of(c, "mac1")];
	const struct report_port *p = port_of(r3, 1);

	check_cable(c, 1);
	assert_int_equal(p->n_ipv4, 0);
	assert_int_equal(device_of(r3, p->interface)->ipv4_gid, TRI_FALSE);
	assert_int_equal(device_of(r3, p->interface)->port_state, RDMA_PORT_ACTIVE);
	assert_int_equal(port_of(r1, 2)->n_ipv4, 1);
	assert_int_equal(device_of(r1, port_of(r1, 2)->interface)->ipv4_gid, TRI_TRUE);
	cluster_free(c);

	c = cluster_collect("port-down.json");
	r1 = &c->r[node_of(c, "mac1")];
	const struct report *r4 = &c->r[node_of(c, "mac4")];
	assert_true(check_cable(c, 2) == 80.0);
	assert_int_equal(device_of(r1, port_of(r1, 3)->interface)->port_state, RDMA_PORT_DOWN);
	assert_int_equal(device_of(r4, port_of(r4, 2)->interface)->port_state, RDMA_PORT_DOWN);
	assert_int_equal(device_of(r1, port_of(r1, 1)->interface)->port_state, RDMA_PORT_ACTIVE);
	cluster_free(c);
}

static void
test_other_scenarios(void **state)
{
	(void)state;
	struct cluster *c = cluster_collect("os-skew.json");

	assert_string_equal(c->r[node_of(c, "mac4")].node.os_build, "25D125");
	assert_string_equal(c->r[node_of(c, "mac1")].node.os_build, "25C56");
	cluster_free(c);
	c = cluster_collect("ring5.json");
	for (int k = 0; k < c->s->n_cables; k++)
		check_cable(c, k);
	for (int i = 0; i < c->n; i++) {
		int peers = 0;
		for (int k = 0; k < c->r[i].thunderbolt.n_ports; k++)
			peers += c->r[i].thunderbolt.ports[k].has_peer;
		assert_int_equal(peers, 2);
	}
	/* ring5 maps receptacles 1, 2 to en3, en2: devices follow the interface. */
	const struct report *r1 = &c->r[node_of(c, "mac1")];
	assert_string_equal(port_of(r1, 1)->interface, "en3");
	assert_string_equal(port_of(r1, 2)->interface, "en2");
	assert_string_equal(device_of(r1, "en3")->name, "rdma_en3");
	assert_int_equal(device_of(r1, "en3")->port_state, RDMA_PORT_ACTIVE);
	assert_int_equal(device_of(r1, "en4")->port_state, RDMA_PORT_DOWN);
	cluster_free(c);
	c = cluster_collect("two-cables-one-pair.json");
	for (int k = 0; k < c->s->n_cables; k++)
		check_cable(c, k);
	assert_int_equal(c->s->n_cables, 7);
	cluster_free(c);
	c = cluster_collect("miswired.json");
	for (int k = 0; k < c->s->n_cables; k++)
		check_cable(c, k);
	cluster_free(c);
}

static void
test_unreachable_node(void **state)
{
	(void)state;
	struct report r;

	assert_int_equal(collect("unreachable.json", "mac4", NOW, &r), -1);
	assert_int_equal(r.n_errors, 1);
	assert_string_equal(r.errors[0].source, "sim");
	assert_non_null(strstr(r.errors[0].message, "mac4 is unreachable"));
	assert_int_equal(collect("unreachable.json", "mac1", NOW, &r), 0);
	assert_int_equal(r.n_errors, 0);
}

static void
test_missing_file_still_reports(void **state)
{
	(void)state;
	struct report r;

	assert_int_equal(collect("/nonexistent/x.json", "mac1", NOW, &r), 0);
	assert_string_equal(r.node.hostname, "mac1");
	assert_true(r.collected_at == NOW);
	assert_int_equal(r.n_errors, 1);
	assert_string_equal(r.errors[0].source, "sim");
	assert_string_equal(r.errors[0].message, "/nonexistent/x.json: No such file or directory");
	assert_int_equal(r.thunderbolt.n_ports, -1);
	assert_int_equal(r.rdma.state, RDMA_STATE_UNKNOWN);
	assert_int_equal(r.network.n_interfaces, -1);
	assert_true(r.memory.total_bytes == REPORT_NULL_I64);
}

static void
test_bad_file_still_reports(void **state)
{
	(void)state;
	char path[] = "/tmp/tbmesh-sim-XXXXXX";
	const char *text = "{\"cluster\": \"c\", \"nodes\": [{\"name\": \"mac1\"}]}";
	struct report r;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(collect(path, "mac1", NOW, &r), 0);
	unlink(path);
	assert_string_equal(r.node.hostname, "mac1");
	assert_int_equal(r.n_errors, 1);
	assert_string_equal(r.errors[0].source, "sim");
	assert_non_null(strstr(r.errors[0].message,
	    "nodes[0].model: missing (give it in the node or in defaults)"));
	assert_memory_equal(r.errors[0].message, path, strlen(path));
}

static void
test_unknown_node_still_reports(void **state)
{
	(void)state;
	char path[4096], want[4400];
	struct report r;

	assert_int_equal(collect("mesh4-studio.json", "mac9", NOW, &r), 0);
	assert_string_equal(r.node.hostname, "mac9");
	assert_int_equal(r.n_errors, 1);
	assert_string_equal(r.errors[0].source, "sim");
	snprintf(want, sizeof(want), "node \"mac9\" is not in %s (nodes: mac1, mac2, mac3, mac4)",
	    scenario_path("mesh4-studio.json", path, sizeof(path)));
	assert_string_equal(r.errors[0].message, want);
	assert_int_equal(r.thunderbolt.n_ports, -1);
}

static void
test_options_missing(void **state)
{
	(void)state;
	struct report r;
	char path[4096];
	struct collect_opts o = { .now = NOW, .name = "mac2" };

	assert_int_equal(collector_run(&backend_sim, &o, &r), 0);
	assert_string_equal(r.node.hostname, "mac2");
	assert_string_equal(r.errors[0].source, "sim");
	assert_string_equal(r.errors[0].message, "no scenario file given (--scenario)");
	/* Without --node, --name picks the node. */
	o.scenario = scenario_path("mesh4-studio.json", path, sizeof(path));
	assert_int_equal(collector_run(&backend_sim, &o, &r), 0);
	assert_int_equal(r.n_errors, 0);
	assert_true(r.memory.total_bytes == INT64_C(549755813888));
	o.name = NULL;
	assert_int_equal(collector_run(&backend_sim, &o, &r), 0);
	assert_string_equal(r.errors[0].message, "no node name given (--node)");
	assert_ptr_equal(backend_find("sim"), &backend_sim);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesh4_both_ends_agree),
		cmocka_unit_test(test_mesh7_both_ends_agree),
		cmocka_unit_test(test_mesh4_node_report),
		cmocka_unit_test(test_network),
		cmocka_unit_test(test_memory_and_power),
		cmocka_unit_test(test_same_time_same_report),
		cmocka_unit_test(test_degraded_40g),
		cmocka_unit_test(test_missing_cable),
		cmocka_unit_test(test_rdma_off),
		cmocka_unit_test(test_bridge_active),
		cmocka_unit_test(test_no_ipv4_and_port_down),
		cmocka_unit_test(test_other_scenarios),
		cmocka_unit_test(test_unreachable_node),
		cmocka_unit_test(test_missing_file_still_reports),
		cmocka_unit_test(test_bad_file_still_reports),
		cmocka_unit_test(test_unknown_node_still_reports),
		cmocka_unit_test(test_options_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
