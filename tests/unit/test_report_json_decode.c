/*
 * report_json, decoding: a hand-written sample, every validation rule (each
 * error must name the field's path), length and array limits, unknown and
 * duplicated keys, decoding into a kept report, and hostile input
 * (truncated, unterminated, oversized, not an object, trailing data).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_json.h"
#include "report_fixture.h"

/* Decodes json, which must fail with an err starting with want. */
static void
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
static char *
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
static char *
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

/* Every array at its limit, every port with its eight addresses; JSON, free() it. */
static char *
widest_json(void)
{
	struct report *r = report_new();
	char *json;

	assert_non_null(r);
	fill_full(r);
	r->thunderbolt.n_ports = REPORT_PORTS_MAX;
	for (int i = 0; i < REPORT_PORTS_MAX; i++) {
		struct report_port *p = &r->thunderbolt.ports[i];
		fill_port(p, "9", "en9", 120, "Mac Pro", TRI_TRUE);
		p->n_ipv4 = REPORT_IPV4_MAX;
		for (int k = 0; k < REPORT_IPV4_MAX; k++)
			snprintf(p->ipv4[k], sizeof(p->ipv4[k]), "10.0.%d.%d", i, k);
	}
	r->thunderbolt.bridge.n_members = REPORT_MEMBERS_MAX;
	for (int i = 0; i < REPORT_MEMBERS_MAX; i++)
		snprintf(r->thunderbolt.bridge.members[i], sizeof(r->thunderbolt.bridge.members[i]),
		    "en%d", 20 + i);
	r->rdma.n_devices = REPORT_DEVICES_MAX;
	for (int i = 0; i < REPORT_DEVICES_MAX; i++) {
		report_rdma_device_init(&r->rdma.devices[i]);
		snprintf(r->rdma.devices[i].name, sizeof(r->rdma.devices[i].name), "rdma_en%d", i);
	}
	r->network.n_interfaces = REPORT_NETIFS_MAX;
	for (int i = 0; i < REPORT_NETIFS_MAX; i++) {
		struct report_netif *n = &r->network.interfaces[i];
		report_netif_init(n);
		snprintf(n->name, sizeof(n->name), "en%d", 40 + i);
		n->kind = NETIF_KIND_ETHERNET;
		REPORT_SET(n->port, "USB 10/100/1000 LAN");
		n->n_ipv4 = REPORT_IPV4_MAX;
		for (int k = 0; k < REPORT_IPV4_MAX; k++)
			snprintf(n->ipv4[k], sizeof(n->ipv4[k]), "192.0.%d.%d", i, k);
	}
	r->n_errors = 0;
	for (int i = 0; i < REPORT_ERRORS_MAX; i++)
		report_add_error(r, "test", "error number %d, long enough to fill some bytes", i);
	assert_non_null(json = report_encode(r, 0));
	free(r);
	return json;
}

/* A copy of json with the last occurrence of what replaced by with (as long); free() it. */
static char *
replace_last(const char *json, const char *what, const char *with)
{
	const char *last = strstr(json, what), *at;
	char *copy;

	assert_non_null(last);
	assert_int_equal(strlen(what), strlen(with));
	while ((at = strstr(last + 1, what)) != NULL)
		last = at;
	assert_non_null(copy = strdup(json));
	memcpy(copy + (last - json), with, strlen(with));
	return copy;
}

/*
 * report_decode_again gives what report_decode gives, byte for byte, on
 * one report kept across calls whose arrays grow, shrink and fail half
 * filled: each call clears only what the last one filled.  bad fails at
 * the end of the ports, bad_net at the end of network.interfaces, each
 * with everything before it filled.
 */
static void
test_decode_again(void **state)
{
	struct report *kept = calloc(1, sizeof(*kept)), *fresh = report_new(), *null = report_new();
	char err[256], *full, *wide = widest_json(), *bad, *bad_net;
	const char *small = HDR "}";

	(void)state;
	assert_non_null(kept);
	fill_full(fresh);
	assert_non_null(full = report_encode(fresh, 0));
	bad = replace_last(wide, "\"speed_gbps\":120", "\"speed_gbps\":-12");
	bad_net = replace_last(wide, "\"kind\":\"ethernet\"", "\"kind\":\"ETHERNET\"");
	const char *seq[] = { wide, small, full, bad, small, wide, bad, full, wide, full,
		bad_net, small, wide, bad_net, full, wide, small };
	int failed = 0;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		int rc = report_decode(seq[i], strlen(seq[i]), fresh, err, sizeof(err));
		assert_int_equal(report_decode_again(seq[i], strlen(seq[i]), kept, NULL, err, sizeof(err)),
		    rc);
		if (rc == 0) {
			assert_memory_equal(kept, fresh, sizeof(*kept));
		} else {
			assert_true(seq[i] == bad || seq[i] == bad_net);
			assert_non_null(strstr(err, seq[i] == bad ? "thunderbolt.ports[15].speed_gbps" :
			    "network.interfaces[15].kind"));
			assert_memory_equal(kept, null, sizeof(*kept));
			failed++;
		}
	}
	assert_int_equal(failed, 4);
	free(full);
	free(wide);
	free(bad);
	free(bad_net);
	free(kept);
	free(fresh);
	free(null);
}

static void
test_decode_design_sample(void **state)
{
	static const char sample[] =
	    "{\n \"schema\": \"tbmesh.report/1\",\n"
	    " \"collected_at\": 1763782801.25,\n"
	    " \"node\": {\"hostname\": \"studio-1\", \"model\": \"Mac15,14\","
	    " \"chip\": \"Apple M3 Ultra\", \"os_version\": \"26.2\","
	    " \"os_build\": \"25C56\", \"boot_time\": 1763000000},\n"
	    " \"thunderbolt\": {\n  \"ports\": [{\"receptacle\": \"2\","
	    " \"bus\": \"thunderboltusb4_bus_1\", \"domain_uuid\": \"D1\","
	    " \"status\": \"connected\", \"link_status\": \"0x2\","
	    " \"speed_gbps\": 80, \"interface\": \"en3\","
	    " \"ipv4\": [\"169.254.205.255\"],\n   \"peer\": {\"domain_uuid\":"
	    " \"D2\", \"name\": \"Mac Studio\", \"model\": \"Mac15,14\","
	    " \"rdma_service\": true}}],\n"
	    "  \"bridge\": {\"exists\": true, \"active\": false,"
	    " \"members\": [\"en2\"]}},\n"
	    " \"rdma\": {\"state\": \"enabled\", \"devices\": [{\"name\":"
	    " \"rdma_en3\", \"interface\": \"en3\", \"port_state\": \"active\","
	    " \"ipv4_gid\": true}]},\n"
	    " \"network\": {\"interfaces\": [{\"name\": \"en0\", \"kind\": \"ethernet\","
	    " \"port\": \"Ethernet\", \"ipv4\": [\"10.0.0.11\"]}]},\n"
	    " \"memory\": {\"total_bytes\": 549755813888, \"free_ratio\": 0.42,"
	    " \"gpu_wired_limit_bytes\": 0},\n"
	    " \"power\": {\"source\": \"powermetrics\", \"system_watts\": 212.5},\n"
	    " \"thermal\": {\"cpu_celsius\": 51.25, \"gpu_celsius\": null},\n"
	    " \"errors\": [{\"source\": \"rdma_ctl\","
	    " \"message\": \"timed out after 5 s\"}]\n}\n";
	struct report *r = report_new();
	const struct report_port *p = &r->thunderbolt.ports[0];

	(void)state;
	expect_ok(sample, r);
	assert_true(r->collected_at == 1763782801.25);
	assert_string_equal(r->node.hostname, "studio-1");
	assert_string_equal(r->node.chip, "Apple M3 Ultra");
	assert_string_equal(r->node.serial, "");
	assert_true(r->node.boot_time == 1763000000.0);
	assert_int_equal(r->thunderbolt.n_ports, 1);
	assert_string_equal(p->receptacle, "2");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_true(p->speed_gbps == 80.0);
	assert_int_equal(p->n_ipv4, 1);
	assert_string_equal(p->ipv4[0], "169.254.205.255");
	assert_int_equal(p->has_peer, 1);
	assert_string_equal(p->peer.name, "Mac Studio");
	assert_int_equal(p->peer.rdma_service, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.n_members, 1);
	assert_string_equal(r->thunderbolt.bridge.members[0], "en2");
	assert_int_equal(r->rdma.state, RDMA_STATE_ENABLED);
	assert_int_equal(r->rdma.n_devices, 1);
	assert_int_equal(r->rdma.devices[0].port_state, RDMA_PORT_ACTIVE);
	assert_int_equal(r->rdma.devices[0].ipv4_gid, TRI_TRUE);
	assert_int_equal(r->network.n_interfaces, 1);
	assert_string_equal(r->network.interfaces[0].name, "en0");
	assert_int_equal(r->network.interfaces[0].kind, NETIF_KIND_ETHERNET);
	assert_string_equal(r->network.interfaces[0].port, "Ethernet");
	assert_int_equal(r->network.interfaces[0].n_ipv4, 1);
	assert_string_equal(r->network.interfaces[0].ipv4[0], "10.0.0.11");
	assert_int_equal(r->memory.total_bytes, INT64_C(549755813888));
	assert_int_equal(r->memory.gpu_wired_limit_bytes, 0);
	assert_true(r->memory.free_bytes == REPORT_NULL_I64);
	assert_true(r->memory.free_ratio == 0.42);
	assert_string_equal(r->power.source, "powermetrics");
	assert_true(r->power.system_watts == 212.5);
	assert_true(isnan(r->power.cpu_watts));
	assert_true(r->thermal.cpu_celsius == 51.25);
	assert_true(isnan(r->thermal.gpu_celsius));
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].source, "rdma_ctl");
	assert_string_equal(r->errors[0].message, "timed out after 5 s");
	free(r);
}

/*
 * How a port's peer is reached: via_hub true with the dock's name in hub,
 * false (a cable), null; absent, as in an older agent's report, is null,
 * as on a port without a peer.  Each round-trips.
 */
static void
test_decode_via_hub(void **state)
{
	struct report *r = report_new();
	const struct report_port *p = r->thunderbolt.ports;

	(void)state;
	expect_ok(HDR ",\"thunderbolt\":{\"ports\":["
	    "{\"receptacle\":\"3\",\"speed_gbps\":40,\"peer\":{\"domain_uuid\":\"D2\"},"
	    "\"via_hub\":true,\"hub\":\"ThunderBay Flex 8\"},"
	    "{\"receptacle\":\"2\",\"peer\":{\"domain_uuid\":\"D3\"},\"via_hub\":false,"
	    "\"hub\":null},"
	    "{\"receptacle\":\"1\",\"peer\":{\"domain_uuid\":\"D4\"}},"
	    "{\"receptacle\":\"4\",\"peer\":null,\"via_hub\":null}]}}", r);
	assert_int_equal(r->thunderbolt.n_ports, 4);
	assert_int_equal(p[0].has_peer, 1);
	assert_string_equal(p[0].peer.domain_uuid, "D2");
	assert_int_equal(p[0].via_hub, TRI_TRUE);
	assert_string_equal(p[0].hub, "ThunderBay Flex 8");
	assert_int_equal(p[1].via_hub, TRI_FALSE);
	assert_string_equal(p[1].hub, "");
	assert_int_equal(p[2].has_peer, 1);
	assert_int_equal(p[2].via_hub, TRI_NULL);
	assert_string_equal(p[2].hub, "");
	assert_int_equal(p[3].has_peer, 0);
	assert_int_equal(p[3].via_hub, TRI_NULL);
	round_trip(r, 0);
	round_trip(r, 1);
	free(r);
}

struct bad {
	const char *json;
	const char *want;
};

static const struct bad bad_cases[] = {
	{ "{\"collected_at\":1}", "schema: missing" },
	{ "{\"schema\":\"tbmesh.report/2\",\"collected_at\":1}",
	    "schema: expected \"tbmesh.report/1\"" },
	{ "{\"schema\":1,\"collected_at\":1}",
	    "schema: expected \"tbmesh.report/1\"" },
	{ "{\"schema\":\"tbmesh.report/1\"}", "collected_at: missing" },
	{ "{\"schema\":\"tbmesh.report/1\",\"collected_at\":\"now\"}",
	    "collected_at: must be a number or null" },
	{ "{\"schema\":\"tbmesh.report/1\",\"collected_at\":-1}",
	    "collected_at: -1 is out of range 0..1e+11" },
	{ "{\"schema\":\"tbmesh.report/1\",\"collected_at\":1e12}",
	    "collected_at: 1e+12 is out of range 0..1e+11" },
	{ HDR ",\"node\":[]}", "node: must be an object or null" },
	{ HDR ",\"node\":{\"hostname\":42}}",
	    "node.hostname: must be a string or null" },
	{ HDR ",\"node\":{\"serial\":\"\"}}", "node.serial: empty string" },
	{ HDR ",\"node\":{\"boot_time\":-5}}",
	    "node.boot_time: -5 is out of range 0..1e+11" },
	{ HDR ",\"thunderbolt\":\"x\"}", "thunderbolt: must be an object or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":{}}}",
	    "thunderbolt.ports: must be an array or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[1]}}",
	    "thunderbolt.ports[0]: must be an object" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{},{},{\"speed_gbps\":1e9}]}}",
	    "thunderbolt.ports[2].speed_gbps: 1e+09 is out of range 0..1000" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"speed_gbps\":-1}]}}",
	    "thunderbolt.ports[0].speed_gbps: -1 is out of range 0..1000" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"receptacle\":2}]}}",
	    "thunderbolt.ports[0].receptacle: must be a string or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"status\":\"bogus\"}]}}",
	    "thunderbolt.ports[0].status: \"bogus\" is not one of \"unknown\", "
	    "\"connected\", \"empty\"" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"status\":1}]}}",
	    "thunderbolt.ports[0].status: must be a string or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"status\":true}]}}",
	    "thunderbolt.ports[0].status: must be a string or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{},{\"ipv4\":[\"169.254.1.1\","
	    "\"300.1.1.1\"]}]}}",
	    "thunderbolt.ports[1].ipv4[1]: \"300.1.1.1\" is not a dotted-quad" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":[\"169.254.1.1/16\"]}]}}",
	    "thunderbolt.ports[0].ipv4[0]: \"169.254.1.1/16\" is not a dotted-quad" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":[\"fe80::1\"]}]}}",
	    "thunderbolt.ports[0].ipv4[0]: \"fe80::1\" is not a dotted-quad" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":[null]}]}}",
	    "thunderbolt.ports[0].ipv4[0]: must be a string" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":[\"255.255.255.255.1\"]}]}}",
	    "thunderbolt.ports[0].ipv4[0]: longer than 15 bytes" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":\"169.254.1.1\"}]}}",
	    "thunderbolt.ports[0].ipv4: must be an array or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"peer\":5}]}}",
	    "thunderbolt.ports[0].peer: must be an object or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"peer\":{\"rdma_service\":\"yes\"}}]}}",
	    "thunderbolt.ports[0].peer.rdma_service: must be true, false or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"peer\":{\"name\":7}}]}}",
	    "thunderbolt.ports[0].peer.name: must be a string or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"via_hub\":\"yes\"}]}}",
	    "thunderbolt.ports[0].via_hub: must be true, false or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{},{\"via_hub\":1}]}}",
	    "thunderbolt.ports[1].via_hub: must be true, false or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"hub\":7}]}}",
	    "thunderbolt.ports[0].hub: must be a string or null" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"hub\":\"\"}]}}",
	    "thunderbolt.ports[0].hub: empty string" },
	{ HDR ",\"thunderbolt\":{\"bridge\":[]}}",
	    "thunderbolt.bridge: must be an object or null" },
	{ HDR ",\"thunderbolt\":{\"bridge\":{\"exists\":1}}}",
	    "thunderbolt.bridge.exists: must be true, false or null" },
	{ HDR ",\"thunderbolt\":{\"bridge\":{\"members\":[\"en2\",1]}}}",
	    "thunderbolt.bridge.members[1]: must be a string" },
	{ HDR ",\"thunderbolt\":{\"bridge\":{\"members\":[\"\"]}}}",
	    "thunderbolt.bridge.members[0]: empty string" },
	{ HDR ",\"rdma\":{\"state\":\"on\"}}",
	    "rdma.state: \"on\" is not one of \"unknown\", \"enabled\", "
	    "\"disabled\"" },
	{ HDR ",\"rdma\":{\"devices\":[{\"port_state\":\"PORT_ACTIVE\"}]}}",
	    "rdma.devices[0].port_state: \"PORT_ACTIVE\" is not one of" },
	{ HDR ",\"rdma\":{\"devices\":[{\"ipv4_gid\":0}]}}",
	    "rdma.devices[0].ipv4_gid: must be true, false or null" },
	{ HDR ",\"rdma\":{\"devices\":[[]]}}", "rdma.devices[0]: must be an object" },
	{ HDR ",\"network\":[]}", "network: must be an object or null" },
	{ HDR ",\"network\":{\"interfaces\":{}}}",
	    "network.interfaces: must be an array or null" },
	{ HDR ",\"network\":{\"interfaces\":[\"en0\"]}}",
	    "network.interfaces[0]: must be an object" },
	{ HDR ",\"network\":{\"interfaces\":[{},{\"name\":0}]}}",
	    "network.interfaces[1].name: must be a string or null" },
	{ HDR ",\"network\":{\"interfaces\":[{\"name\":\"\"}]}}",
	    "network.interfaces[0].name: empty string" },
	{ HDR ",\"network\":{\"interfaces\":[{\"kind\":\"wired\"}]}}",
	    "network.interfaces[0].kind: \"wired\" is not one of \"ethernet\", \"wifi\", "
	    "\"other\"" },
	{ HDR ",\"network\":{\"interfaces\":[{\"kind\":\"Wi-Fi\"}]}}",
	    "network.interfaces[0].kind: \"Wi-Fi\" is not one of" },
	{ HDR ",\"network\":{\"interfaces\":[{\"kind\":1}]}}",
	    "network.interfaces[0].kind: must be a string or null" },
	{ HDR ",\"network\":{\"interfaces\":[{\"port\":[]}]}}",
	    "network.interfaces[0].port: must be a string or null" },
	{ HDR ",\"network\":{\"interfaces\":[{\"port\":\"\"}]}}",
	    "network.interfaces[0].port: empty string" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":\"192.0.2.11\"}]}}",
	    "network.interfaces[0].ipv4: must be an array or null" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[\"192.0.2.11\",\"192.0.2\"]}]}}",
	    "network.interfaces[0].ipv4[1]: \"192.0.2\" is not a dotted-quad" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[\"192.0.2.256\"]}]}}",
	    "network.interfaces[0].ipv4[0]: \"192.0.2.256\" is not a dotted-quad" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[\"2001:db8::1\"]}]}}",
	    "network.interfaces[0].ipv4[0]: \"2001:db8::1\" is not a dotted-quad" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[\" 192.0.2.1\"]}]}}",
	    "network.interfaces[0].ipv4[0]: \" 192.0.2.1\" is not a dotted-quad" },
	{ HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[null]}]}}",
	    "network.interfaces[0].ipv4[0]: must be a string" },
	{ HDR ",\"memory\":\"lots\"}", "memory: must be an object or null" },
	{ HDR ",\"memory\":{\"total_bytes\":\"16\"}}",
	    "memory.total_bytes: must be a number or null" },
	{ HDR ",\"memory\":{\"compressed_bytes\":true}}",
	    "memory.compressed_bytes: must be a number or null" },
	{ HDR ",\"memory\":{\"free_bytes\":-1}}",
	    "memory.free_bytes: -1 is out of range 0..72057594037927936" },
	{ HDR ",\"memory\":{\"wired_bytes\":1e17}}",
	    "memory.wired_bytes: 100000000000000000 is out of range "
	    "0..72057594037927936" },
	{ HDR ",\"memory\":{\"inactive_bytes\":1e300}}",
	    "memory.inactive_bytes: 1e+300 is out of range" },
	{ HDR ",\"memory\":{\"swap_used_bytes\":72057594037927952}}",
	    "memory.swap_used_bytes: 72057594037927952 is out of range" },
	{ HDR ",\"memory\":{\"active_bytes\":1.5}}",
	    "memory.active_bytes: 1.5 is not an integer" },
	{ HDR ",\"memory\":{\"free_ratio\":1.5}}",
	    "memory.free_ratio: 1.5 is out of range 0..1" },
	{ HDR ",\"memory\":{\"free_ratio\":-0.1}}",
	    "memory.free_ratio: -0.1 is out of range 0..1" },
	{ HDR ",\"power\":{\"source\":7}}", "power.source: must be a string or null" },
	{ HDR ",\"power\":{\"cpu_watts\":-1}}",
	    "power.cpu_watts: -1 is out of range 0..100000" },
	{ HDR ",\"power\":{\"gpu_watts\":1e6}}",
	    "power.gpu_watts: 1e+06 is out of range 0..100000" },
	{ HDR ",\"thermal\":{\"cpu_celsius\":-273.15}}",
	    "thermal.cpu_celsius: -273.15 is out of range -100..200" },
	{ HDR ",\"thermal\":{\"gpu_celsius\":1e999}}",
	    "thermal.gpu_celsius: inf is out of range -100..200" },
	{ HDR ",\"agent\":[]}", "agent: must be an object or null" },
	{ HDR ",\"agent\":{\"listen\":9469}}", "agent.listen: must be a string or null" },
	{ HDR ",\"agent\":{\"listen\":\"\"}}", "agent.listen: empty string" },
	{ HDR ",\"agent\":{\"listen\":\"10.0.0.11\"}}",
	    "agent.listen: \"10.0.0.11\" is not HOST:PORT or [IPV6]:PORT" },
	{ HDR ",\"agent\":{\"listen\":\"10.0.0.11:0\"}}",
	    "agent.listen: \"10.0.0.11:0\" is not HOST:PORT" },
	{ HDR ",\"agent\":{\"listen\":\"10.0.0.11:65536\"}}",
	    "agent.listen: \"10.0.0.11:65536\" is not HOST:PORT" },
	{ HDR ",\"agent\":{\"listen\":\":9469\"}}", "agent.listen: \":9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"::1:9469\"}}", "agent.listen: \"::1:9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"[mac1]:9469\"}}", "agent.listen: \"[mac1]:9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"[fe80::1%en0]:9469\"}}",
	    "agent.listen: \"[fe80::1%en0]:9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"mac 1:9469\"}}", "agent.listen: \"mac 1:9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"-mac1:9469\"}}", "agent.listen: \"-mac1:9469\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"mac1:9469/metrics\"}}",
	    "agent.listen: \"mac1:9469/metrics\" is not" },
	{ HDR ",\"agent\":{\"listen\":\"mac1:+9469\"}}", "agent.listen: \"mac1:+9469\" is not" },
	{ HDR ",\"thunderbolt\":{\"collected_at\":2}}",
	    "thunderbolt.collected_at: 2.000 is later than the report's collected_at" },
	{ HDR ",\"power\":{\"collected_at\":1.5}}",
	    "power.collected_at: 1.500 is later than the report's collected_at" },
	{ "{\"schema\":\"tbmesh.report/1\",\"collected_at\":null,\"memory\":{\"collected_at\":1}}",
	    "memory.collected_at: 1.000 is later than the report's collected_at" },
	{ HDR ",\"node\":{\"collected_at\":-1}}", "node.collected_at: -1 is out of range" },
	{ HDR ",\"node\":{\"machine_name\":\"\"}}", "node.machine_name: empty string" },
	{ HDR ",\"thunderbolt\":{\"ports\":[{\"max_speed_gbps\":-40}]}}",
	    "thunderbolt.ports[0].max_speed_gbps: -40 is out of range 0..1000" },
	{ HDR ",\"errors\":{}}", "errors: must be an array or null" },
	{ HDR ",\"errors\":[\"x\"]}", "errors[0]: must be an object" },
	{ HDR ",\"errors\":[{\"source\":\"a\",\"message\":\"b\"},"
	    "{\"source\":\"a\",\"message\":5}]}",
	    "errors[1].message: must be a string or null" },
};

/* Sections read earlier than the report keep their time; null is the report's. */
static void
test_section_times(void **state)
{
	static const char json[] = "{\"schema\":\"tbmesh.report/1\",\"collected_at\":1000,"
	    "\"node\":{\"collected_at\":10,\"machine_name\":\"Mac Studio\"},"
	    "\"thunderbolt\":{\"collected_at\":940,\"ports\":[{\"receptacle\":\"1\","
	    "\"status\":\"empty\",\"max_speed_gbps\":40}]},\"memory\":{\"collected_at\":1000}}";
	struct report *r = report_new();
	char err[256] = "";

	(void)state;
	assert_int_equal(report_decode(json, strlen(json), r, err, sizeof(err)), 0);
	assert_string_equal(r->node.machine_name, "Mac Studio");
	assert_true(r->thunderbolt.ports[0].max_speed_gbps == 40);
	assert_true(report_section_time(r, r->node.collected_at) == 10);
	assert_true(report_section_time(r, r->thunderbolt.collected_at) == 940);
	assert_true(report_section_time(r, r->rdma.collected_at) == 1000);	/* null */
	assert_true(report_oldest_section(r) == 10);
	report_init(r);
	r->collected_at = 5;
	assert_true(report_oldest_section(r) == 5);	/* an older agent: all null */
	/* the table of sections names the report's objects, each time its own field */
	for (int i = 0; i < REPORT_SECTIONS; i++) {
		char js[256], want[128];

		snprintf(js, sizeof(js), "{\"schema\":\"tbmesh.report/1\",\"collected_at\":1,"
		    "\"%s\":{\"collected_at\":%d}}", report_section_name(i), i + 2);
		snprintf(want, sizeof(want), "%s.collected_at: %d.000 is later",
		    report_section_name(i), i + 2);
		expect_error(js, want);
		report_init(r);
		r->collected_at = 100;
		js[0] = '\0';
		snprintf(js, sizeof(js), "{\"schema\":\"tbmesh.report/1\",\"collected_at\":100,"
		    "\"%s\":{\"collected_at\":%d}}", report_section_name(i), 10 + i);
		assert_int_equal(report_decode(js, strlen(js), r, err, sizeof(err)), 0);
		assert_true(report_section_at(r, i) == 10 + i);
		assert_true(report_oldest_section(r) == 10 + i);
	}
	assert_string_equal(report_section_name(REPORT_SECTIONS), "unknown");
	free(r);
}

/*
 * The jobs section (issue 20): the processes of the jobs' pid files, read
 * back as written; absent (an older agent) it is null; nonsense refused.
 */
#define JOBS_HDR "{\"schema\":\"tbmesh.report/1\",\"collected_at\":100,\"jobs\":"
static void
test_jobs_section(void **state)
{
	struct report *r = report_new(), *back = report_new();
	char err[256] = "", *json;
	int unknown = -1;

	(void)state;
	r->collected_at = 100;
	r->jobs.collected_at = 99.5;
	r->jobs.n_processes = 2;
	report_job_proc_init(&r->jobs.processes[0]);
	report_job_proc_init(&r->jobs.processes[1]);
	r->jobs.processes[0] = (struct report_job_proc){ .job = 7, .rank = 0, .generation = 3,
		.pid = 4242, .alive = 1, .stat = "R+", .cpu_seconds = 723.45,
		.rss_bytes = INT64_C(536870912) * 1024 };
	r->jobs.processes[1].job = 7;
	r->jobs.processes[1].rank = 1;
	r->jobs.processes[1].pid = 4243;
	json = report_encode(r, 0);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"jobs\":{\"processes\":[{\"job\":7,\"rank\":0,"
	    "\"generation\":3,\"pid\":4242,\"alive\":true,\"stat\":\"R+\","
	    "\"cpu_seconds\":723.45,\"rss_bytes\":549755813888},{\"job\":7,\"rank\":1,"
	    "\"generation\":null,\"pid\":4243,\"alive\":false,\"stat\":null,"
	    "\"cpu_seconds\":null,\"rss_bytes\":null}],\"collected_at\":99.5}"));
	assert_int_equal(report_decode(json, strlen(json), back, err, sizeof(err)), 0);
	assert_memory_equal(r, back, sizeof(*r));
	assert_true(report_section_at(back, REPORT_SEC_JOBS) == 99.5);
	assert_string_equal(report_section_name(REPORT_SEC_JOBS), "jobs");
	/* decoding again into the same struct, then a report without it: null again */
	assert_int_equal(report_decode_again(json, strlen(json), back, &unknown, err,
	    sizeof(err)), 0);
	assert_int_equal(unknown, 0);
	free(json);
	json = strdup(HDR "}");
	assert_int_equal(report_decode_again(json, strlen(json), back, &unknown, err,
	    sizeof(err)), 0);
	assert_int_equal(back->jobs.n_processes, -1);
	assert_true(isnan(back->jobs.collected_at));
	report_init(r);
	r->collected_at = 1;
	assert_memory_equal(r, back, sizeof(*r));
	free(json);
	/* a newer agent's key inside a process is skipped, the rest kept */
	expect_ok(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":2,\"pid\":3,\"alive\":false,"
	    "\"footprint_bytes\":5}],\"collected_at\":100}}", back);
	assert_int_equal(back->jobs.n_processes, 1);
	assert_true(back->jobs.processes[0].rank == 2 && back->jobs.processes[0].pid == 3);
	assert_true(back->jobs.processes[0].generation == REPORT_NULL_I64);
	/* refusals */
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":0,\"rank\":0,\"pid\":3,"
	    "\"alive\":true}]}}", "jobs.processes[0].job");
	expect_error(JOBS_HDR "{\"processes\":[{\"rank\":0,\"pid\":3,\"alive\":true}]}}",
	    "jobs.processes[0].job");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":-1,\"pid\":3,"
	    "\"alive\":true}]}}", "jobs.processes[0].rank");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":0,"
	    "\"alive\":true}]}}", "jobs.processes[0].pid");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":1.5,"
	    "\"alive\":true}]}}", "jobs.processes[0].pid");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":null}]}}", "jobs.processes[0].alive");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"stat\":\"r\"}]}}", "jobs.processes[0].stat");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"stat\":\"S\\n\"}]}}", "jobs.processes[0].stat");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"stat\":\"Ss+<NLWX\"}]}}", "jobs.processes[0].stat");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"cpu_seconds\":-1}]}}", "jobs.processes[0].cpu_seconds");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"rss_bytes\":-1}]}}", "jobs.processes[0].rss_bytes");
	expect_error(JOBS_HDR "{\"processes\":[{\"job\":1,\"rank\":0,\"pid\":3,"
	    "\"alive\":true,\"generation\":-2}]}}", "jobs.processes[0].generation");
	expect_error(JOBS_HDR "{\"processes\":{}}}", "jobs.processes");
	expect_error(JOBS_HDR "{\"collected_at\":101}}", "jobs.collected_at: 101.000 is later");
	json = repeat(JOBS_HDR "{\"processes\":[",
	    "{\"job\":1,\"rank\":0,\"pid\":3,\"alive\":true}", REPORT_JOB_PROCS_MAX + 1, "]}}");
	expect_error(json, "jobs.processes");
	free(json);
	json = repeat(JOBS_HDR "{\"processes\":[",
	    "{\"job\":1,\"rank\":0,\"pid\":3,\"alive\":true}", REPORT_JOB_PROCS_MAX, "]}}");
	expect_ok(json, back);
	assert_int_equal(back->jobs.n_processes, REPORT_JOB_PROCS_MAX);
	free(json);
	free(r);
	free(back);
}

static void
test_validation_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_error(bad_cases[i].json, bad_cases[i].want);
}

static void
test_length_limits(void **state)
{
	struct report *r = report_new();
	char *s;

	(void)state;
	s = long_string(HDR ",\"node\":{\"hostname\":", REPORT_STR_MAX, "}}");
	expect_ok(s, r);
	assert_int_equal(strlen(r->node.hostname), REPORT_STR_MAX);
	free(s);
	s = long_string(HDR ",\"node\":{\"hostname\":", REPORT_STR_MAX + 1, "}}");
	expect_error(s, "node.hostname: longer than 255 bytes");
	free(s);
	s = long_string(HDR ",\"node\":{\"hostname\":", 500000, "}}");
	expect_error(s, "node.hostname: longer than 255 bytes");
	free(s);
	s = long_string(HDR ",\"network\":{\"interfaces\":[{\"name\":", REPORT_STR_MAX, "}]}}");
	expect_ok(s, r);
	assert_int_equal(strlen(r->network.interfaces[0].name), REPORT_STR_MAX);
	free(s);
	s = long_string(HDR ",\"network\":{\"interfaces\":[{},{\"name\":", REPORT_STR_MAX + 1,
	    "}]}}");
	expect_error(s, "network.interfaces[1].name: longer than 255 bytes");
	free(s);
	s = long_string(HDR ",\"network\":{\"interfaces\":[{\"port\":", REPORT_STR_MAX + 1,
	    "}]}}");
	expect_error(s, "network.interfaces[0].port: longer than 255 bytes");
	free(s);
	s = long_string(HDR ",\"thunderbolt\":{\"ports\":[{\"hub\":", REPORT_STR_MAX, "}]}}");
	expect_ok(s, r);
	assert_int_equal(strlen(r->thunderbolt.ports[0].hub), REPORT_STR_MAX);
	free(s);
	s = long_string(HDR ",\"thunderbolt\":{\"ports\":[{\"hub\":", REPORT_STR_MAX + 1,
	    "}]}}");
	expect_error(s, "thunderbolt.ports[0].hub: longer than 255 bytes");
	free(s);
	s = long_string(HDR ",\"errors\":[{\"source\":", REPORT_ERRSRC_MAX + 1, "}]}");
	expect_error(s, "errors[0].source: longer than 31 bytes");
	free(s);
	s = long_string(HDR ",\"errors\":[{},{\"message\":", REPORT_ERRMSG_MAX + 1,
	    "}]}");
	expect_error(s, "errors[1].message: longer than 255 bytes");
	free(s);
	free(r);
}

static void
test_array_limits(void **state)
{
	struct report *r = report_new();
	char *s;

	(void)state;
	s = repeat(HDR ",\"thunderbolt\":{\"ports\":[", "{}", REPORT_PORTS_MAX, "]}}");
	expect_ok(s, r);
	assert_int_equal(r->thunderbolt.n_ports, REPORT_PORTS_MAX);
	assert_true(isnan(r->thunderbolt.ports[15].speed_gbps));
	free(s);
	s = repeat(HDR ",\"thunderbolt\":{\"ports\":[", "{}", 17, "]}}");
	expect_error(s, "thunderbolt.ports: more than 16 entries");
	free(s);
	s = repeat(HDR ",\"thunderbolt\":{\"ports\":[{\"ipv4\":[", "\"10.0.0.1\"",
	    9, "]}]}}");
	expect_error(s, "thunderbolt.ports[0].ipv4: more than 8 entries");
	free(s);
	s = repeat(HDR ",\"thunderbolt\":{\"bridge\":{\"members\":[", "\"en2\"",
	    17, "]}}}");
	expect_error(s, "thunderbolt.bridge.members: more than 16 entries");
	free(s);
	s = repeat(HDR ",\"rdma\":{\"devices\":[", "{}", 17, "]}}");
	expect_error(s, "rdma.devices: more than 16 entries");
	free(s);
	s = repeat(HDR ",\"network\":{\"interfaces\":[", "{\"ipv4\":[]}", REPORT_NETIFS_MAX,
	    "]}}");
	expect_ok(s, r);
	assert_int_equal(r->network.n_interfaces, REPORT_NETIFS_MAX);
	assert_int_equal(r->network.interfaces[15].n_ipv4, 0);
	assert_int_equal(r->network.interfaces[15].kind, NETIF_KIND_NULL);
	free(s);
	s = repeat(HDR ",\"network\":{\"interfaces\":[", "{}", REPORT_NETIFS_MAX + 1, "]}}");
	expect_error(s, "network.interfaces: more than 16 entries");
	free(s);
	s = repeat(HDR ",\"network\":{\"interfaces\":[{\"ipv4\":[", "\"192.0.2.1\"",
	    REPORT_IPV4_MAX, "]}]}}");
	expect_ok(s, r);
	assert_int_equal(r->network.interfaces[0].n_ipv4, REPORT_IPV4_MAX);
	free(s);
	s = repeat(HDR ",\"network\":{\"interfaces\":[{},{\"ipv4\":[", "\"192.0.2.1\"",
	    REPORT_IPV4_MAX + 1, "]}]}}");
	expect_error(s, "network.interfaces[1].ipv4: more than 8 entries");
	free(s);
	s = repeat(HDR ",\"errors\":[", "{}", 33, "]}");
	expect_error(s, "errors: more than 32 entries");
	free(s);
	free(r);
}

/* Every proper prefix fails; each is decoded from an unterminated copy. */
static void
test_truncated(void **state)
{
	struct report *r = report_new(), *out = report_new();
	char err[256], *json, *buf;
	size_t len, n;

	(void)state;
	fill_full(r);
	json = report_encode(r, 0);
	assert_non_null(json);
	len = strlen(json);
	for (n = 0; n < len; n++) {
		buf = malloc(n > 0 ? n : 1);
		assert_non_null(buf);
		memcpy(buf, json, n);
		assert_int_equal(report_decode(buf, n, out, err, sizeof(err)), -1);
		if (strncmp(err, n == 0 ? "empty input" : "invalid JSON near byte",
		    12) != 0)
			fail_msg("prefix %zu: %s", n, err);
		free(buf);
	}
	buf = malloc(len);
	assert_non_null(buf);
	memcpy(buf, json, len);
	assert_int_equal(report_decode(buf, len, out, err, sizeof(err)), 0);
	assert_memory_equal(r, out, sizeof(*r));
	free(buf);
	free(json);
	free(r);
	free(out);
}

static void
test_not_an_object(void **state)
{
	(void)state;
	expect_error("[]", "the top level must be a JSON object");
	expect_error("42", "the top level must be a JSON object");
	expect_error("\"tbmesh.report/1\"", "the top level must be a JSON object");
	expect_error(" null ", "the top level must be a JSON object");
	expect_error("", "empty input");
	expect_error("{\"schema\":", "invalid JSON near byte");
	expect_error("{\"schema\":\"tbmesh.report/1\",\"collected_at\":1,}",
	    "invalid JSON near byte");
}

/* Nesting deeper than cJSON's limit is refused, not a stack overflow. */
static void
test_deep_nesting(void **state)
{
	struct report *r = report_new();
	size_t n = 200000;
	char err[256], *buf = malloc(n);

	(void)state;
	assert_non_null(buf);
	memset(buf, '[', n);
	assert_int_equal(report_decode(buf, n, r, err, sizeof(err)), -1);
	assert_int_equal(strncmp(err, "invalid JSON near byte", 22), 0);
	memset(buf, '{', 1);
	assert_int_equal(report_decode(buf, n, r, err, sizeof(err)), -1);
	free(buf);
	free(r);
}

static void
test_trailing_data(void **state)
{
	static const char ok_nul[] = HDR "}\n";
	struct report *r = report_new();
	char err[256];

	(void)state;
	expect_error(HDR "}x", "unexpected data after the JSON value at byte");
	expect_error(HDR "}{}", "unexpected data after the JSON value at byte");
	expect_ok(HDR "} \r\n\t", r);
	assert_true(r->collected_at == 1.0);
	/* A length that counts the terminating NUL: a NUL byte is no JSON. */
	assert_int_equal(report_decode(ok_nul, sizeof(ok_nul), r, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "a NUL byte at byte"));
	free(r);
}

static void
test_oversized_input(void **state)
{
	static const char head[] = HDR "}";
	struct report *r = report_new();
	char err[256], *buf;

	(void)state;
	buf = malloc(REPORT_JSON_MAX + 1);
	assert_non_null(buf);
	memset(buf, ' ', REPORT_JSON_MAX + 1);
	memcpy(buf, head, sizeof(head) - 1);
	assert_int_equal(report_decode(buf, REPORT_JSON_MAX, r, err, sizeof(err)), 0);
	assert_int_equal(report_decode(buf, REPORT_JSON_MAX + 1, r, err,
	    sizeof(err)), -1);
	assert_string_equal(err,
	    "input of 1048577 bytes is over the limit of 1048576");
	free(buf);
	free(r);
}

static void
test_unknown_fields_ignored(void **state)
{
	struct report *r = report_new();

	(void)state;
	expect_ok("{\"schema\":\"tbmesh.report/1\",\"future\":{\"a\":[1,2,{}]},"
	    "\"collected_at\":2.5,\"node\":{\"hostname\":\"h\",\"new\":1},"
	    "\"thunderbolt\":{\"ports\":[{\"status\":\"empty\",\"lanes\":2,"
	    "\"peer\":{\"name\":\"p\",\"extra\":null}}],\"bridge\":{\"mtu\":9000}},"
	    "\"rdma\":{\"devices\":[{\"name\":\"rdma_en3\",\"gid\":\"x\"}]},"
	    "\"network\":{\"dns\":[1],\"interfaces\":[{\"mtu\":1500,\"name\":\"en0\"}]},"
	    "\"memory\":{\"total_bytes\":4096,\"purgeable_bytes\":1},"
	    "\"errors\":[{\"source\":\"s\",\"message\":\"m\",\"code\":3}],"
	    "\"zzz\":\"\"}", r);
	assert_true(r->collected_at == 2.5);
	assert_string_equal(r->node.hostname, "h");
	assert_int_equal(r->thunderbolt.n_ports, 1);
	assert_int_equal(r->thunderbolt.ports[0].status, PORT_STATUS_EMPTY);
	assert_int_equal(r->thunderbolt.ports[0].has_peer, 1);
	assert_string_equal(r->thunderbolt.ports[0].peer.name, "p");
	assert_int_equal(r->thunderbolt.bridge.n_members, -1);
	assert_string_equal(r->rdma.devices[0].name, "rdma_en3");
	assert_int_equal(r->network.n_interfaces, 1);
	assert_string_equal(r->network.interfaces[0].name, "en0");
	assert_int_equal(r->network.interfaces[0].n_ipv4, -1);
	assert_int_equal(r->memory.total_bytes, 4096);
	assert_int_equal(r->n_errors, 1);
	assert_string_equal(r->errors[0].message, "m");
	free(r);
}

/*
 * A key given twice is refused, known or not (a decoder that took one and
 * a reader of the stored body that took the other would disagree); the
 * keys the schema does not have are counted, so that the controller
 * stores the report re-encoded without them.
 */
static void
test_duplicate_and_unknown_keys(void **state)
{
	struct report *r = report_new();
	char err[256];
	int unknown = -1;

	(void)state;
	expect_error(HDR ",\"node\":{\"hostname\":\"a\",\"hostname\":\"b\"}}",
	    "node.hostname: given twice");
	expect_error(HDR ",\"collected_at\":2}", "collected_at: given twice");
	expect_error(HDR ",\"rdma\":{\"devices\":[{\"name\":\"x\",\"name\":\"y\"}]}}",
	    "rdma.devices[0].name: given twice");
	expect_error(HDR ",\"future\":{\"a\":1,\"a\":2}}", "future: the key \"a\" is given twice");
	expect_error(HDR ",\"future\":1,\"future\":2}", "the key \"future\" is given twice");

	assert_int_equal(report_decode_again(HDR "}", strlen(HDR "}"), r, &unknown, err,
	    sizeof(err)), 0);
	assert_int_equal(unknown, 0);
	static const char two[] = HDR ",\"future\":{\"a\":1},\"node\":{\"hostname\":\"h\","
	    "\"new\":1}}";
	assert_int_equal(report_decode_again(two, strlen(two), r, &unknown, err, sizeof(err)), 0);
	assert_int_equal(unknown, 2);
	free(r);
}

/* agent.listen: the addresses an agent may bind, and names, round trip. */
static void
test_agent_listen(void **state)
{
	static const char *const good[] = { "127.0.0.1:9469", "0.0.0.0:9469", "[::]:9469",
	    "[::1]:1", "[fe80::1]:65535", "mac1.local:9469", "studio-1:9469" };
	struct report *r = report_new(), *out = report_new();
	char json[256];

	(void)state;
	r->collected_at = 1;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(json, sizeof(json), HDR ",\"agent\":{\"listen\":\"%s\"}}", good[i]);
		expect_ok(json, out);
		assert_string_equal(out->agent.listen, good[i]);
		memset(r->agent.listen, 0, sizeof(r->agent.listen));
		REPORT_SET(r->agent.listen, good[i]);
		round_trip(r, 0);
	}
	/* null and absent are the same: not serving */
	expect_ok(HDR ",\"agent\":{\"listen\":null}}", out);
	assert_string_equal(out->agent.listen, "");
	expect_ok(HDR ",\"agent\":null}", out);
	assert_string_equal(out->agent.listen, "");
	free(r);
	free(out);
}

/* Absent and explicitly null sections both decode to report_init(). */
static void
test_missing_and_null_sections(void **state)
{
	struct report *want = report_new(), *r = report_new();

	(void)state;
	want->collected_at = 7;
	expect_ok("{\"collected_at\":7,\"schema\":\"tbmesh.report/1\"}", r);
	assert_memory_equal(want, r, sizeof(*r));
	expect_ok("{\"schema\":\"tbmesh.report/1\",\"collected_at\":7,"
	    "\"node\":null,\"thunderbolt\":null,\"rdma\":null,\"network\":null,"
	    "\"memory\":null,\"power\":null,\"thermal\":null,\"agent\":null,"
	    "\"errors\":null}", r);
	assert_memory_equal(want, r, sizeof(*r));
	expect_ok(HDR ",\"network\":{}}", r);
	want->collected_at = 1;
	assert_memory_equal(want, r, sizeof(*r));
	expect_ok(HDR ",\"network\":{\"interfaces\":null}}", r);
	assert_memory_equal(want, r, sizeof(*r));
	want->collected_at = 7;
	expect_ok("{\"schema\":\"tbmesh.report/1\",\"collected_at\":7,"
	    "\"node\":{},\"thunderbolt\":{\"ports\":null,\"bridge\":{}},"
	    "\"rdma\":{\"state\":null,\"devices\":null},\"memory\":{},"
	    "\"errors\":[]}", r);
	assert_memory_equal(want, r, sizeof(*r));
	/* A port or device with no fields equals a freshly initialised one. */
	expect_ok(HDR ",\"thunderbolt\":{\"ports\":[{\"peer\":null}]},"
	    "\"rdma\":{\"devices\":[{}]},\"network\":{\"interfaces\":[{\"kind\":null,"
	    "\"ipv4\":null}]}}", r);
	want->collected_at = 1;
	one_of_each(want);
	assert_memory_equal(want, r, sizeof(*r));
	free(want);
	free(r);
}

static void
test_err_buffer(void **state)
{
	struct report *r = report_new();
	static const char bad[] = HDR ",\"memory\":{\"free_bytes\":-1}}";
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(report_decode(bad, strlen(bad), r, err, sizeof(err)), -1);
	assert_string_equal(err, "memory.");
	assert_int_equal(report_decode(bad, strlen(bad), r, NULL, 0), -1);
	assert_int_equal(report_decode(NULL, 0, r, err, sizeof(err)), -1);
	assert_string_equal(err, "empty i");
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_again),
		cmocka_unit_test(test_decode_design_sample),
		cmocka_unit_test(test_decode_via_hub),
		cmocka_unit_test(test_validation_errors),
		cmocka_unit_test(test_length_limits),
		cmocka_unit_test(test_array_limits),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_trailing_data),
		cmocka_unit_test(test_oversized_input),
		cmocka_unit_test(test_unknown_fields_ignored),
		cmocka_unit_test(test_duplicate_and_unknown_keys),
		cmocka_unit_test(test_agent_listen),
		cmocka_unit_test(test_missing_and_null_sections),
		cmocka_unit_test(test_err_buffer),
		cmocka_unit_test(test_section_times),
		cmocka_unit_test(test_jobs_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
