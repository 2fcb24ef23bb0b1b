/*
 * report_json, decoding what it accepts: a hand-written sample, decoding
 * into a kept report, a hub's report, section times, the jobs section,
 * unknown fields skipped, null and missing sections.  What it refuses is
 * in test_report_json_refuse.c.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_again),
		cmocka_unit_test(test_decode_design_sample),
		cmocka_unit_test(test_decode_via_hub),
		cmocka_unit_test(test_unknown_fields_ignored),
		cmocka_unit_test(test_agent_listen),
		cmocka_unit_test(test_missing_and_null_sections),
		cmocka_unit_test(test_section_times),
		cmocka_unit_test(test_jobs_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
