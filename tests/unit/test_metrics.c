/*
 * metrics: exact exposition lines for known values, nulls left out (no
 * HELP/TYPE for an empty family), label escaping, error counters by source,
 * the pusher's counters only when there is a controller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static char *
render(const struct report *r, const struct agent_counters *c)
{
	size_t len = 0;
	char *s = metrics_render(r, c, "sim", &len);

	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	return s;
}

static void
assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("missing line: %s\n--- in:\n%s", line, text);
}

static void
test_values(void **state)
{
	(void)state;
	struct report *r = report_new();
	struct agent_counters c = { 0 };

	r->memory.total_bytes = 549755813888;
	r->memory.free_ratio = 0.61;
	r->power.system_watts = 180.5;
	REPORT_SET(r->power.source, "sim");
	r->rdma.state = RDMA_STATE_ENABLED;
	r->rdma.n_devices = 1;
	report_rdma_device_init(&r->rdma.devices[0]);
	REPORT_SET(r->rdma.devices[0].name, "rdma_en2");
	REPORT_SET(r->rdma.devices[0].interface, "en2");
	r->rdma.devices[0].port_state = RDMA_PORT_DOWN;
	r->thunderbolt.n_ports = 2;
	report_port_init(&r->thunderbolt.ports[0]);
	report_port_init(&r->thunderbolt.ports[1]);
	REPORT_SET(r->thunderbolt.ports[0].receptacle, "2");
	REPORT_SET(r->thunderbolt.ports[0].interface, "en2");
	r->thunderbolt.ports[0].status = PORT_STATUS_CONNECTED;
	r->thunderbolt.ports[0].speed_gbps = 40;
	REPORT_SET(r->thunderbolt.ports[1].receptacle, "3");
	r->thunderbolt.ports[1].status = PORT_STATUS_EMPTY;
	metrics_count(&c, r, 0.25);

	char *s = render(r, &c);
	assert_line(s, "# TYPE tbmesh_memory_total_bytes gauge");
	assert_line(s, "tbmesh_memory_total_bytes 549755813888");
	assert_line(s, "tbmesh_memory_free_ratio 0.60999999999999999");
	assert_line(s, "tbmesh_power_watts{component=\"system\",source=\"sim\"} 180.5");
	assert_line(s, "tbmesh_rdma_enabled 1");
	assert_line(s, "tbmesh_rdma_port_active{device=\"rdma_en2\",interface=\"en2\"} 0");
	assert_line(s, "tbmesh_thunderbolt_port_up{receptacle=\"2\",interface=\"en2\"} 1");
	assert_line(s, "tbmesh_thunderbolt_port_up{receptacle=\"3\",interface=\"\"} 0");
	assert_line(s, "tbmesh_thunderbolt_port_speed_bytes_per_second{receptacle=\"2\",interface=\"en2\"} 5000000000");
	assert_line(s, "tbmesh_agent_collections_total 1");
	assert_line(s, "tbmesh_agent_collection_duration_seconds 0.25");
	assert_line(s, "tbmesh_agent_build_info{version=\"0.1.0\",backend=\"sim\"} 1");
	/* null values: no sample, and no header for an all-null family */
	assert_null(strstr(s, "tbmesh_memory_wired_bytes"));
	assert_null(strstr(s, "tbmesh_temperature_celsius"));
	assert_null(strstr(s, "component=\"gpu\""));
	assert_null(strstr(s, "receptacle=\"3\",interface=\"\"} 0\ntbmesh_thunderbolt_port_speed"));
	assert_null(strstr(s, "tbmesh_thunderbolt_port_speed_bytes_per_second{receptacle=\"3\""));
	free(s);
	free(r);
}

static void
test_escaping(void **state)
{
	(void)state;
	struct report *r = report_new();
	struct agent_counters c = { 0 };

	REPORT_SET(r->node.hostname, "a\"b\\c\nd");
	char *s = render(r, &c);
	assert_non_null(strstr(s, "hostname=\"a\\\"b\\\\c\\nd\""));
	free(s);
	free(r);
}

static void
test_error_counters(void **state)
{
	(void)state;
	struct report *r = report_new();
	struct agent_counters c = { 0 };

	report_add_error(r, "rdma_ctl", "timed out after 5 s");
	report_add_error(r, "vm_stat", "garbage");
	metrics_count(&c, r, 1);
	r->n_errors = 0;
	report_add_error(r, "rdma_ctl", "timed out after 5 s");
	metrics_count(&c, r, 1);
	char *s = render(r, &c);
	assert_line(s, "tbmesh_agent_collection_errors_total{source=\"rdma_ctl\"} 2");
	assert_line(s, "tbmesh_agent_collection_errors_total{source=\"vm_stat\"} 1");
	assert_line(s, "tbmesh_agent_collections_total 2");
	free(s);
	free(r);
}

static void
test_before_first_report(void **state)
{
	(void)state;
	struct agent_counters c = { 0 };
	char *s = render(NULL, &c);

	assert_line(s, "tbmesh_agent_collections_total 0");
	assert_null(strstr(s, "tbmesh_agent_collection_duration_seconds"));
	assert_null(strstr(s, "tbmesh_memory"));
	free(s);
}

static void
test_push_counters(void **state)
{
	(void)state;
	struct agent_counters c = { 0 };
	char *s = render(NULL, &c);

	assert_null(strstr(s, "tbmesh_agent_reports_pushed_total"));
	assert_null(strstr(s, "tbmesh_agent_enrolled"));
	free(s);
	c.push_on = 1;
	c.reports_pushed = 12;
	c.push_failures = 3;
	c.reports_dropped = 7;
	c.enrolled = 1;
	c.push_backoff = 4.5;
	s = render(NULL, &c);
	assert_line(s, "# TYPE tbmesh_agent_reports_pushed_total counter");
	assert_line(s, "tbmesh_agent_reports_pushed_total 12");
	assert_line(s, "tbmesh_agent_push_failures_total 3");
	assert_line(s, "tbmesh_agent_reports_dropped_total 7");
	assert_line(s, "# TYPE tbmesh_agent_enrolled gauge");
	assert_line(s, "tbmesh_agent_enrolled 1");
	assert_line(s, "tbmesh_agent_push_backoff_seconds 4.5");
	free(s);
	c.enrolled = 0;
	c.push_backoff = 0;
	s = render(NULL, &c);
	assert_line(s, "tbmesh_agent_enrolled 0");
	assert_line(s, "tbmesh_agent_push_backoff_seconds 0");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_error_counters),
		cmocka_unit_test(test_before_first_report),
		cmocka_unit_test(test_push_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
