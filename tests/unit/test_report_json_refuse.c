/*
 * report_json, decoding what it refuses: every validation rule (each error
 * must name the field's path), length and array limits, duplicated keys,
 * the error buffer, and hostile input (truncated, unterminated, oversized,
 * not an object, nested too deep, trailing data).  What it accepts is in
 * test_report_json_decode.c.
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
		cmocka_unit_test(test_validation_errors),
		cmocka_unit_test(test_length_limits),
		cmocka_unit_test(test_array_limits),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_trailing_data),
		cmocka_unit_test(test_oversized_input),
		cmocka_unit_test(test_duplicate_and_unknown_keys),
		cmocka_unit_test(test_err_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
