/*
 * Test helper for the report codec's unit tests (test_report_json_encode.c,
 * test_report_json_decode.c, test_report_json_refuse.c): a report with
 * every field set, decoding that must succeed or give back what was
 * encoded, decoding that must fail with a given error, and long inputs.  Header-only: each test
 * file includes it once, after cmocka.h.
 */
#ifndef TBMESH_REPORT_FIXTURE_H
#define TBMESH_REPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_json.h"

#define HDR "{\"schema\":\"tbmesh.report/1\",\"collected_at\":1"

static inline void
fill_port(struct report_port *p, const char *rec, const char *ifname,
    double gbps, const char *peer_name, enum tri rdma)
{
	report_port_init(p);
	REPORT_SET(p->receptacle, rec);
	REPORT_SET(p->bus, "thunderboltusb4_bus_1");
	REPORT_SET(p->domain_uuid, "5E3B8A2C-0000-4000-8000-00000000000A");
	p->status = PORT_STATUS_CONNECTED;
	REPORT_SET(p->link_status, "0x2");
	p->speed_gbps = gbps;
	REPORT_SET(p->interface, ifname);
	p->has_peer = 1;
	REPORT_SET(p->peer.domain_uuid, "7A1C0F3E-0000-4000-8000-00000000000B");
	REPORT_SET(p->peer.name, peer_name);
	REPORT_SET(p->peer.model, "Mac15,14");
	p->peer.rdma_service = rdma;
	p->via_hub = TRI_FALSE;	/* a cable straight to the peer */
}

/* Ethernet with two addresses, Wi-Fi with none, a VPN without kind or port. */
static inline void
fill_network(struct report_network *nw)
{
	struct report_netif *n = nw->interfaces;

	nw->n_interfaces = 3;
	report_netif_init(&n[0]);
	REPORT_SET(n[0].name, "en0");
	n[0].kind = NETIF_KIND_ETHERNET;
	REPORT_SET(n[0].port, "Ethernet");
	n[0].n_ipv4 = 2;
	REPORT_SET(n[0].ipv4[0], "192.0.2.11");
	REPORT_SET(n[0].ipv4[1], "169.254.3.4");
	report_netif_init(&n[1]);
	REPORT_SET(n[1].name, "en1");
	n[1].kind = NETIF_KIND_WIFI;
	REPORT_SET(n[1].port, "Wi-Fi");
	n[1].n_ipv4 = 0;
	report_netif_init(&n[2]);
	REPORT_SET(n[2].name, "utun4");
	n[2].n_ipv4 = 1;
	REPORT_SET(n[2].ipv4[0], "198.51.100.7");
}

static inline void
fill_rest(struct report *r)
{
	struct report_memory *m = &r->memory;
	struct report_power *pw = &r->power;

	r->thunderbolt.bridge.exists = TRI_TRUE;
	r->thunderbolt.bridge.active = TRI_FALSE;
	r->thunderbolt.bridge.n_members = 2;
	REPORT_SET(r->thunderbolt.bridge.members[0], "en2");
	REPORT_SET(r->thunderbolt.bridge.members[1], "en4");
	r->rdma.state = RDMA_STATE_ENABLED;
	r->rdma.n_devices = 2;
	report_rdma_device_init(&r->rdma.devices[0]);
	REPORT_SET(r->rdma.devices[0].name, "rdma_en3");
	REPORT_SET(r->rdma.devices[0].interface, "en3");
	r->rdma.devices[0].port_state = RDMA_PORT_ACTIVE;
	r->rdma.devices[0].ipv4_gid = TRI_TRUE;
	report_rdma_device_init(&r->rdma.devices[1]);
	REPORT_SET(r->rdma.devices[1].name, "rdma_en5");
	REPORT_SET(r->rdma.devices[1].interface, "en5");
	r->rdma.devices[1].port_state = RDMA_PORT_DOWN;
	r->rdma.devices[1].ipv4_gid = TRI_FALSE;
	m->total_bytes = INT64_C(549755813888);
	m->free_bytes = INT64_C(16384) * 1234567;
	m->active_bytes = INT64_C(9007199254740992);
	m->inactive_bytes = 4096;
	m->wired_bytes = 1;
	m->compressed_bytes = 0;
	m->swap_total_bytes = REPORT_BYTES_MAX;
	m->swap_used_bytes = REPORT_BYTES_MAX - 16;
	m->free_ratio = 0.1 + 0.2;
	m->gpu_wired_limit_bytes = 0;
	REPORT_SET(pw->source, "macmon");
	pw->system_watts = 123.456;
	pw->cpu_watts = 1.0 / 3.0;
	pw->gpu_watts = 0.0;
	pw->ane_watts = 5e-324;
	pw->dram_watts = REPORT_WATTS_MAX;
	r->thermal.cpu_celsius = 45.5;
	r->thermal.gpu_celsius = -12.75;
	fill_network(&r->network);
	REPORT_SET(r->agent.listen, "10.0.0.11:9469");
	report_add_error(r, "rdma_ctl", "timed out after %d s", 5);
	report_add_error(r, "macmon", "exited 1: \"quoted\" \\ and\ttab");
}

/* One port, one RDMA device and one interface, each as its init leaves it. */
static inline void
one_of_each(struct report *r)
{
	r->thunderbolt.n_ports = 1;
	report_port_init(&r->thunderbolt.ports[0]);
	r->rdma.n_devices = 1;
	report_rdma_device_init(&r->rdma.devices[0]);
	r->network.n_interfaces = 1;
	report_netif_init(&r->network.interfaces[0]);
}

/* Every field set: two connected ports with peers (one behind a dock), one empty port. */
static inline void
fill_full(struct report *r)
{
	struct report_port *p = r->thunderbolt.ports;

	report_init(r);
	r->collected_at = 1763782801.25;
	REPORT_SET(r->node.hostname, "studio-1.local");
	REPORT_SET(r->node.hardware_uuid, "00000000-0000-1000-8000-ABCDEF012345");
	REPORT_SET(r->node.serial, "C02XYZ123ABC");
	REPORT_SET(r->node.model, "Mac15,14");
	REPORT_SET(r->node.machine_name, "Mac Studio");
	REPORT_SET(r->node.chip, "Apple M3 Ultra");
	REPORT_SET(r->node.os_version, "26.2");
	REPORT_SET(r->node.os_build, "25C56");
	REPORT_SET(r->node.agent_version, "0.1.0");
	r->node.boot_time = 1763000000.125;
	r->thunderbolt.n_ports = 3;
	fill_port(&p[0], "2", "en3", 80, "Mac Studio", TRI_TRUE);
	p[0].n_ipv4 = 2;
	REPORT_SET(p[0].ipv4[0], "169.254.205.255");
	REPORT_SET(p[0].ipv4[1], "169.254.1.2");
	fill_port(&p[1], "3", "en5", 40, "Mac mini", TRI_FALSE);
	p[1].n_ipv4 = 1;
	REPORT_SET(p[1].ipv4[0], "10.0.0.1");
	p[1].via_hub = TRI_TRUE;	/* behind a dock */
	REPORT_SET(p[1].hub, "ThunderBay Flex 8");
	report_port_init(&p[2]);
	REPORT_SET(p[2].receptacle, "4");
	p[2].status = PORT_STATUS_EMPTY;
	p[2].max_speed_gbps = 120;	/* "Up to 120 Gb/s" */
	p[2].n_ipv4 = 0;
	fill_rest(r);
	/* each section read at its own time, none after the report */
	r->node.collected_at = 1763782000.5;
	r->thunderbolt.collected_at = 1763782790.75;
	r->rdma.collected_at = 1763782790.75;
	r->network.collected_at = 1763782790.75;
	r->memory.collected_at = 1763782801.25;
	r->power.collected_at = 1763782800;
	r->thermal.collected_at = 1763782800;
}

static inline void
expect_ok(const char *json, struct report *r)
{
	char err[512];

	err[0] = '\0';
	if (report_decode(json, strlen(json), r, err, sizeof(err)) != 0)
		fail_msg("refused (%s): %.200s", err, json);
}

static inline void
round_trip(const struct report *in, int pretty)
{
	struct report *out = report_new();
	char err[256] = "";
	char *json = report_encode(in, pretty);

	assert_non_null(json);
	assert_non_null(out);
	if (report_decode(json, strlen(json), out, err, sizeof(err)) != 0)
		fail_msg("decode: %s\n%s", err, json);
	assert_memory_equal(in, out, sizeof(*in));
	free(json);
	free(out);
}

/* Decodes json, which must fail with an err starting with want. */
static inline void
expect_error(const char *json, const char *want)
{
	struct report *r = report_new();
	char err[512];

	assert_non_null(r);
	err[0] = '\0';
	if (report_decode(json, strlen(json), r, err, sizeof(err)) != -1)
		fail_msg("accepted: %.200s", json);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("for %.200s\n  got:  %s\n  want: %s...", json, err, want);
	free(r);
}

/* head, then item n times separated by commas, then tail; free() it. */
static inline char *
repeat(const char *head, const char *item, int n, const char *tail)
{
	size_t len = strlen(head) + (strlen(item) + 1) * (size_t)n + strlen(tail);
	char *s = malloc(len + 1), *p;
	int i;

	assert_non_null(s);
	p = s + sprintf(s, "%s", head);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i > 0 ? "," : "", item);
	sprintf(p, "%s", tail);
	return s;
}

/* head, a JSON string of n 'a's, tail; free() it. */
static inline char *
long_string(const char *head, size_t n, const char *tail)
{
	char *a = malloc(n + 3), *s;

	assert_non_null(a);
	a[0] = '"';
	memset(a + 1, 'a', n);
	strcpy(a + 1 + n, "\"");
	s = repeat(head, a, 1, tail);
	free(a);
	return s;
}

#endif
