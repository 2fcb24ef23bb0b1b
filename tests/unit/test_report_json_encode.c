/*
 * report_json, encoding: the JSON layout of "tbmesh.report/1", exact round
 * trips of a full and of an all-null report, integers and doubles to the
 * last bit, enum names, and structs out of range written as the nearest
 * report that decodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_json.h"
#include "report_fixture.h"

/* Counts leaves of j that are not null; *where gets the last one's key. */
static int
non_null_leaves(const cJSON *j, const char **where)
{
	const cJSON *c;
	int n = 0;

	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		cJSON_ArrayForEach(c, j)
			n += non_null_leaves(c, where);
		return n;
	}
	if (cJSON_IsNull(j))
		return 0;
	*where = j->string;
	return 1;
}

static void
test_round_trip_full(void **state)
{
	struct report *r = report_new();

	(void)state;
	fill_full(r);
	round_trip(r, 0);
	round_trip(r, 1);
	free(r);
}

static void
test_encode_full_layout(void **state)
{
	static const char head[] = "{\"schema\":\"tbmesh.report/1\","
	    "\"collected_at\":1763782801.25,\"node\":{\"hostname\":"
	    "\"studio-1.local\",";
	struct report *r = report_new();
	char *json, *pretty;

	(void)state;
	fill_full(r);
	json = report_encode(r, 0);
	pretty = report_encode(r, 1);
	assert_non_null(json);
	assert_non_null(pretty);
	assert_int_equal(strncmp(json, head, sizeof(head) - 1), 0);
	assert_non_null(strstr(json, "\"status\":\"connected\",\"link_status\":"
	    "\"0x2\",\"speed_gbps\":80,\"max_speed_gbps\":null,\"interface\":\"en3\",\"ipv4\":"
	    "[\"169.254.205.255\",\"169.254.1.2\"],\"peer\":{\"domain_uuid\":"));
	assert_non_null(strstr(json, "\"name\":\"Mac Studio\",\"model\":"
	    "\"Mac15,14\",\"rdma_service\":true}"));
	/* after the peer, how it is reached: straight, or through the named dock */
	assert_non_null(strstr(json, "\"rdma_service\":true},\"via_hub\":false,"
	    "\"hub\":null}"));
	assert_non_null(strstr(json, "\"name\":\"Mac mini\",\"model\":\"Mac15,14\","
	    "\"rdma_service\":false},\"via_hub\":true,\"hub\":\"ThunderBay Flex 8\"}"));
	assert_non_null(strstr(json, "{\"receptacle\":\"4\",\"bus\":null,"
	    "\"domain_uuid\":null,\"status\":\"empty\",\"link_status\":null,"
	    "\"speed_gbps\":null,\"max_speed_gbps\":120,\"interface\":null,\"ipv4\":[],\"peer\":null,"
	    "\"via_hub\":null,\"hub\":null}"));
	assert_non_null(strstr(json, "\"bridge\":{\"exists\":true,"
	    "\"active\":false,\"members\":[\"en2\",\"en4\"]},\"collected_at\":1763782790.75}"));
	assert_non_null(strstr(json, "\"model\":\"Mac15,14\",\"machine_name\":\"Mac Studio\","));
	assert_non_null(strstr(json, "\"boot_time\":1763000000.125,\"collected_at\":1763782000.5}"));
	assert_non_null(strstr(json, "\"rdma\":{\"state\":\"enabled\","
	    "\"devices\":[{\"name\":\"rdma_en3\",\"interface\":\"en3\","
	    "\"port_state\":\"active\",\"ipv4_gid\":true},"));
	assert_non_null(strstr(json, "\"ipv4_gid\":false}],\"collected_at\":1763782790.75},\"network\":{\"interfaces\":["
	    "{\"name\":\"en0\",\"kind\":\"ethernet\",\"port\":\"Ethernet\",\"ipv4\":"
	    "[\"192.0.2.11\",\"169.254.3.4\"]},{\"name\":\"en1\",\"kind\":\"wifi\","
	    "\"port\":\"Wi-Fi\",\"ipv4\":[]},{\"name\":\"utun4\",\"kind\":null,"
	    "\"port\":null,\"ipv4\":[\"198.51.100.7\"]}],\"collected_at\":1763782790.75},"
	    "\"memory\":{"));
	assert_non_null(strstr(json, "\"total_bytes\":549755813888,"));
	assert_non_null(strstr(json, "\"swap_total_bytes\":72057594037927936,"));
	assert_non_null(strstr(json, "\"free_ratio\":0.30000000000000004,"));
	assert_non_null(strstr(json, "\"gpu_wired_limit_bytes\":0,\"collected_at\":1763782801.25}"));
	assert_non_null(strstr(json, "\"power\":{\"source\":\"macmon\","
	    "\"system_watts\":123.456,"));
	assert_non_null(strstr(json, "\"gpu_celsius\":-12.75,\"collected_at\":1763782800},"
	    "\"agent\":{\"listen\":\"10.0.0.11:9469\"},"
	    "\"jobs\":{\"processes\":null,\"collected_at\":null},\"errors\":[{"));
	assert_non_null(strstr(json, "\"errors\":[{\"source\":\"rdma_ctl\","
	    "\"message\":\"timed out after 5 s\"},"));
	assert_null(strchr(json, '\n'));
	assert_null(strchr(json, '\t'));
	assert_non_null(strstr(pretty, "\n\t\"node\":\t{\n\t\t\"hostname\":"));
	free(json);
	free(pretty);
	free(r);
}

static void
test_all_null(void **state)
{
	struct report *r = report_new();
	const char *where = NULL;
	cJSON *j;
	char *json;

	(void)state;
	json = report_encode(r, 0);
	assert_non_null(json);
	assert_string_equal(json, "{\"schema\":\"tbmesh.report/1\","
	    "\"collected_at\":null,\"node\":{\"hostname\":null,"
	    "\"hardware_uuid\":null,\"serial\":null,\"model\":null,"
	    "\"machine_name\":null,\"chip\":null,\"os_version\":null,\"os_build\":null,"
	    "\"agent_version\":null,\"boot_time\":null,\"collected_at\":null},\"thunderbolt\":"
	    "{\"ports\":null,\"bridge\":{\"exists\":null,\"active\":null,"
	    "\"members\":null},\"collected_at\":null},\"rdma\":{\"state\":\"unknown\","
	    "\"devices\":null,\"collected_at\":null},\"network\":{\"interfaces\":null,"
	    "\"collected_at\":null},"
	    "\"memory\":{\"total_bytes\":null,"
	    "\"free_bytes\":null,\"active_bytes\":null,\"inactive_bytes\":null,"
	    "\"wired_bytes\":null,\"compressed_bytes\":null,"
	    "\"swap_total_bytes\":null,\"swap_used_bytes\":null,"
	    "\"free_ratio\":null,\"gpu_wired_limit_bytes\":null,\"collected_at\":null},"
	    "\"power\":{\"source\":null,\"system_watts\":null,\"cpu_watts\":null,"
	    "\"gpu_watts\":null,\"ane_watts\":null,\"dram_watts\":null,\"collected_at\":null},"
	    "\"thermal\":{\"cpu_celsius\":null,\"gpu_celsius\":null,\"collected_at\":null},"
	    "\"agent\":{\"listen\":null},\"jobs\":{\"processes\":null,\"collected_at\":null},"
	    "\"errors\":[]}");
	/* Only "schema" and the enum "state" ("unknown") are not null. */
	j = cJSON_Parse(json);
	assert_non_null(j);
	assert_int_equal(non_null_leaves(j, &where), 2);
	assert_string_equal(where, "state");
	cJSON_Delete(j);
	free(json);
	round_trip(r, 0);
	round_trip(r, 1);
	free(r);
}

static void
test_int64_exact(void **state)
{
	static const int64_t vals[] = {
		0, 1, INT64_C(549755813888), (INT64_C(1) << 53) - 1,
		INT64_C(1) << 53, REPORT_BYTES_MAX - 16, REPORT_BYTES_MAX,
	};
	struct report *r = report_new(), *out = report_new();
	char want[64], *json;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		report_init(r);
		r->collected_at = 1;
		r->memory.total_bytes = vals[i];
		json = report_encode(r, 0);
		assert_non_null(json);
		snprintf(want, sizeof(want), "\"total_bytes\":%" PRId64 ",",
		    vals[i]);
		assert_non_null(strstr(json, want));
		expect_ok(json, out);
		assert_true(out->memory.total_bytes == vals[i]);
		free(json);
	}
	expect_ok(HDR ",\"memory\":{\"total_bytes\":9007199254740992}}", out);
	assert_true(out->memory.total_bytes == INT64_C(9007199254740992));
	expect_ok(HDR ",\"memory\":{\"total_bytes\":5.49755813888e11}}", out);
	assert_true(out->memory.total_bytes == INT64_C(549755813888));
	free(r);
	free(out);
}

static void
test_doubles_exact(void **state)
{
	static const double vals[] = {
		0.1 + 0.2, 1.0 / 3.0, 5e-324, 2.2250738585072014e-308,
		999.9999999999999, 0.0, 1000.0, 123456.789e-3,
	};
	struct report *r = report_new();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		report_init(r);
		r->collected_at = 1e10 + vals[i];
		r->thunderbolt.n_ports = 1;
		report_port_init(&r->thunderbolt.ports[0]);
		r->thunderbolt.ports[0].speed_gbps = vals[i];
		r->memory.free_ratio = vals[i] / 1000.0;
		r->thermal.cpu_celsius = -vals[i] / 10.0;
		round_trip(r, 0);
	}
	free(r);
}

static void
test_encode_clamps_bad_structs(void **state)
{
	struct report *r = report_new(), *out = report_new();
	char *json;
	int i;

	(void)state;
	r->collected_at = INFINITY;
	r->thunderbolt.n_ports = 40;
	for (i = 0; i < REPORT_PORTS_MAX; i++)
		report_port_init(&r->thunderbolt.ports[i]);
	r->thunderbolt.ports[0].status = (enum port_status)7;
	r->rdma.state = (enum rdma_state)-3;
	r->network.n_interfaces = 1;
	report_netif_init(&r->network.interfaces[0]);
	r->network.interfaces[0].kind = (enum netif_kind)9;
	r->network.interfaces[0].n_ipv4 = 99;
	for (i = 0; i < REPORT_IPV4_MAX; i++)
		snprintf(r->network.interfaces[0].ipv4[i], sizeof(report_ipv4), "192.0.2.%d", i);
	memset(r->node.hostname, 'h', sizeof(r->node.hostname));
	r->power.cpu_watts = -INFINITY;
	for (i = 0; i < 40; i++)
		report_add_error(r, "collector", "error %d", i);
	r->n_errors = 100;
	json = report_encode(r, 0);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"collected_at\":null,"));
	assert_non_null(strstr(json, "\"cpu_watts\":null,"));
	assert_non_null(strstr(json, "\"state\":\"unknown\","));
	assert_non_null(strstr(json, "\"kind\":null,"));
	expect_ok(json, out);
	assert_int_equal(out->network.interfaces[0].kind, NETIF_KIND_NULL);
	assert_int_equal(out->network.interfaces[0].n_ipv4, REPORT_IPV4_MAX);
	assert_int_equal(out->thunderbolt.n_ports, REPORT_PORTS_MAX);
	assert_int_equal(out->thunderbolt.ports[0].status, PORT_STATUS_UNKNOWN);
	assert_int_equal(out->n_errors, REPORT_ERRORS_MAX);
	assert_string_equal(out->errors[31].source, "agent");
	assert_int_equal(strlen(out->node.hostname), REPORT_STR_MAX);
	assert_int_equal(strspn(out->node.hostname, "h"), REPORT_STR_MAX);
	free(json);
	free(r);
	free(out);
}

static void
test_enum_names(void **state)
{
	struct report *r = report_new(), *out = report_new();
	char want[64], *json;
	int v;

	(void)state;
	r->collected_at = 1;
	one_of_each(r);
	for (v = 0; v < 4; v++) {
		const char *kind = report_netif_kind_str((enum netif_kind)v);
		r->network.interfaces[0].kind = (enum netif_kind)v;
		json = report_encode(r, 0);
		assert_non_null(json);
		if (kind != NULL)
			snprintf(want, sizeof(want), "\"kind\":\"%s\"", kind);
		else
			snprintf(want, sizeof(want), "\"kind\":null");
		assert_non_null(strstr(json, want));
		expect_ok(json, out);
		assert_memory_equal(r, out, sizeof(*r));
		free(json);
	}
	assert_null(report_netif_kind_str(NETIF_KIND_NULL));
	assert_string_equal(report_netif_kind_str(NETIF_KIND_OTHER), "other");
	r->network.interfaces[0].kind = NETIF_KIND_NULL;
	for (v = 0; v < 3; v++) {
		r->thunderbolt.ports[0].status = (enum port_status)v;
		r->rdma.state = (enum rdma_state)v;
		r->rdma.devices[0].port_state = (enum rdma_port_state)v;
		json = report_encode(r, 0);
		assert_non_null(json);
		snprintf(want, sizeof(want), "\"status\":\"%s\"",
		    report_port_status_str((enum port_status)v));
		assert_non_null(strstr(json, want));
		snprintf(want, sizeof(want), "\"state\":\"%s\"",
		    report_rdma_state_str((enum rdma_state)v));
		assert_non_null(strstr(json, want));
		snprintf(want, sizeof(want), "\"port_state\":\"%s\"",
		    report_rdma_port_state_str((enum rdma_port_state)v));
		assert_non_null(strstr(json, want));
		expect_ok(json, out);
		assert_memory_equal(r, out, sizeof(*r));
		free(json);
	}
	free(r);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_full),
		cmocka_unit_test(test_encode_full_layout),
		cmocka_unit_test(test_all_null),
		cmocka_unit_test(test_int64_exact),
		cmocka_unit_test(test_doubles_exact),
		cmocka_unit_test(test_encode_clamps_bad_structs),
		cmocka_unit_test(test_enum_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
