/*
 * The report as JSON, schema "tbmesh.report/1" (DESIGN.md, "The report").
 *
 * Both directions are driven by one table (json_table.h), so the names, the
 * order of the keys on output and the rules applied on input come from one
 * place.
 *
 * Numbers are formatted by json_enc.c and handed to cJSON as raw text:
 * integers in full (never with an exponent), doubles in the shortest of
 * %.15g, %.16g and %.17g that reads back to the same bits.  cJSON parses
 * every number into a double, so *_bytes values decode exactly up to 2^53;
 * between 2^53 and REPORT_BYTES_MAX (2^56) a value decodes to the nearest
 * double, which is exact for every multiple of 16, hence for every
 * page-aligned size.
 *
 * Decoding is in report_json_decode.c; the table is declared in
 * report_fields.h.
 */
#include "report.h"
#include "report_fields.h"
#include "report_json.h"
#include "json_table.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>

/* ---- the enums, as report.c spells them; a value out of range is written as 0 ---- */

JSON_ENUM_NAMES(port_status_name, report_port_status_str, enum port_status)
JSON_ENUM_NAMES(rdma_state_name, report_rdma_state_str, enum rdma_state)
JSON_ENUM_NAMES(rdma_port_name, report_rdma_port_state_str, enum rdma_port_state)
/* NULL for NETIF_KIND_NULL: the kind is null, not a name. */
JSON_ENUM_NAMES(netif_kind_name, report_netif_kind_str, enum netif_kind)

static const struct json_enum port_status_enum = { PORT_STATUS_EMPTY + 1, port_status_name,
    NULL, 0 };
static const struct json_enum rdma_state_enum = { RDMA_STATE_DISABLED + 1, rdma_state_name,
    NULL, 0 };
static const struct json_enum rdma_port_enum = { RDMA_PORT_DOWN + 1, rdma_port_name, NULL, 0 };
static const struct json_enum netif_kind_enum = { NETIF_KIND_OTHER + 1, netif_kind_name,
    NULL, 0 };

/* ---- what decoding checks beyond a value's type and range ---- */

static int
check_ipv4(struct json_dec *d, const struct json_path *p, const void *v)
{
	struct in_addr a;

	if (inet_pton(AF_INET, v, &a) != 1)
		return json_dec_fail(d, p, "\"%s\" is not a dotted-quad IPv4 address",
		    (const char *)v);
	return 0;
}

static int
check_listen(struct json_dec *d, const struct json_path *p, const void *v)
{
	if (!report_listen_valid(v))
		return json_dec_fail(d, p, "\"%.64s\" is not HOST:PORT or [IPV6]:PORT",
		    (const char *)v);
	return 0;
}

/* An array element's nulls, before it is decoded. */
static void
port_init(void *p)
{
	report_port_init(p);
}

static void
device_init(void *dev)
{
	report_rdma_device_init(dev);
}

static void
netif_init(void *n)
{
	report_netif_init(n);
}

static void
job_proc_init(void *p)
{
	report_job_proc_init(p);
}

/* A stat as ps prints it: a state letter, then flags, all printable. */
static int
check_stat(struct json_dec *d, const struct json_path *p, const void *v)
{
	const char *s = v;

	if (!(s[0] >= 'A' && s[0] <= 'Z'))
		return json_dec_fail(d, p, "\"%.16s\" does not start with a state letter", s);
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return json_dec_fail(d, p, "has a character ps does not print");
	return 0;
}

/* ---- the tables, innermost first ---- */

#define STR(t, m) JSON_STR(t, m, 0)
#define BYTES(t, m) JSON_I64(t, m, 0, (double)REPORT_BYTES_MAX, JF_EXACT)
#define DBL(t, m, lo, hi) JSON_DBL(t, m, lo, hi, 0)
#define TIME(t, m) DBL(t, m, 0, REPORT_TIME_MAX)
#define WATTS(m) DBL(struct report_power, m, 0, REPORT_WATTS_MAX)
#define CELSIUS(m) DBL(struct report_thermal, m, REPORT_CELSIUS_MIN, REPORT_CELSIUS_MAX)

static const struct json_field node_fields[] = {
	STR(struct report_node, hostname),
	STR(struct report_node, hardware_uuid),
	STR(struct report_node, serial),
	STR(struct report_node, model),
	STR(struct report_node, machine_name),
	STR(struct report_node, chip),
	STR(struct report_node, os_version),
	STR(struct report_node, os_build),
	STR(struct report_node, agent_version),
	TIME(struct report_node, boot_time),
	TIME(struct report_node, collected_at),
	JSON_END,
};

static const struct json_field peer_fields[] = {
	STR(struct report_peer, domain_uuid),
	STR(struct report_peer, name),
	STR(struct report_peer, model),
	JSON_TRI(struct report_peer, rdma_service),
	JSON_END,
};

static const struct json_field port_fields[] = {
	STR(struct report_port, receptacle),
	STR(struct report_port, bus),
	STR(struct report_port, domain_uuid),
	JSON_ENUM(struct report_port, status, &port_status_enum, 0),
	STR(struct report_port, link_status),
	DBL(struct report_port, speed_gbps, 0, REPORT_SPEED_GBPS_MAX),
	DBL(struct report_port, max_speed_gbps, 0, REPORT_SPEED_GBPS_MAX),
	STR(struct report_port, interface),
	JSON_ARRAY(struct report_port, ipv4, n_ipv4, NULL, NULL, check_ipv4),
	JSON_OBJECT_OR_NULL(struct report_port, peer, has_peer, peer_fields),
	JSON_TRI(struct report_port, via_hub),
	STR(struct report_port, hub),
	JSON_END,
};

static const struct json_field bridge_fields[] = {
	JSON_TRI(struct report_bridge, exists),
	JSON_TRI(struct report_bridge, active),
	JSON_ARRAY(struct report_bridge, members, n_members, NULL, NULL, NULL),
	JSON_END,
};

static const struct json_field thunderbolt_fields[] = {
	JSON_ARRAY(struct report_thunderbolt, ports, n_ports, port_fields, port_init, NULL),
	JSON_OBJECT(struct report_thunderbolt, bridge, bridge_fields),
	TIME(struct report_thunderbolt, collected_at),
	JSON_END,
};

static const struct json_field device_fields[] = {
	STR(struct report_rdma_device, name),
	STR(struct report_rdma_device, interface),
	JSON_ENUM(struct report_rdma_device, port_state, &rdma_port_enum, 0),
	JSON_TRI(struct report_rdma_device, ipv4_gid),
	JSON_END,
};

static const struct json_field rdma_fields[] = {
	JSON_ENUM(struct report_rdma, state, &rdma_state_enum, 0),
	JSON_ARRAY(struct report_rdma, devices, n_devices, device_fields, device_init, NULL),
	TIME(struct report_rdma, collected_at),
	JSON_END,
};

static const struct json_field netif_fields[] = {
	STR(struct report_netif, name),
	JSON_ENUM(struct report_netif, kind, &netif_kind_enum, 0),
	STR(struct report_netif, port),
	JSON_ARRAY(struct report_netif, ipv4, n_ipv4, NULL, NULL, check_ipv4),
	JSON_END,
};

static const struct json_field network_fields[] = {
	JSON_ARRAY(struct report_network, interfaces, n_interfaces, netif_fields, netif_init,
	    NULL),
	TIME(struct report_network, collected_at),
	JSON_END,
};

static const struct json_field memory_fields[] = {
	BYTES(struct report_memory, total_bytes),
	BYTES(struct report_memory, free_bytes),
	BYTES(struct report_memory, active_bytes),
	BYTES(struct report_memory, inactive_bytes),
	BYTES(struct report_memory, wired_bytes),
	BYTES(struct report_memory, compressed_bytes),
	BYTES(struct report_memory, swap_total_bytes),
	BYTES(struct report_memory, swap_used_bytes),
	DBL(struct report_memory, free_ratio, 0, 1),
	BYTES(struct report_memory, gpu_wired_limit_bytes),
	TIME(struct report_memory, collected_at),
	JSON_END,
};

static const struct json_field power_fields[] = {
	STR(struct report_power, source),
	WATTS(system_watts),
	WATTS(cpu_watts),
	WATTS(gpu_watts),
	WATTS(ane_watts),
	WATTS(dram_watts),
	TIME(struct report_power, collected_at),
	JSON_END,
};

static const struct json_field thermal_fields[] = {
	CELSIUS(cpu_celsius),
	CELSIUS(gpu_celsius),
	TIME(struct report_thermal, collected_at),
	JSON_END,
};

static const struct json_field agent_fields[] = {
	{ .key = "listen", .type = JT_STR, .off = offsetof(struct report_agent, listen),
	  .size = JSON_MSIZE(struct report_agent, listen), .check = check_listen },
	JSON_END,
};

static const struct json_field job_proc_fields[] = {
	JSON_I64(struct report_job_proc, job, 1, (double)REPORT_JOB_ID_MAX, JF_VALUE),
	{ .key = "rank", .type = JT_INT, .flags = JF_VALUE,
	  .off = offsetof(struct report_job_proc, rank), .lo = 0, .hi = REPORT_JOB_RANK_MAX },
	JSON_I64(struct report_job_proc, generation, 0, (double)REPORT_JOB_ID_MAX, 0),
	JSON_I64(struct report_job_proc, pid, 1, (double)REPORT_PID_MAX, JF_VALUE),
	{ .key = "alive", .type = JT_BOOL, .flags = JF_VALUE,
	  .off = offsetof(struct report_job_proc, alive) },
	{ .key = "stat", .type = JT_STR, .off = offsetof(struct report_job_proc, stat),
	  .size = JSON_MSIZE(struct report_job_proc, stat), .check = check_stat },
	DBL(struct report_job_proc, cpu_seconds, 0, REPORT_CPU_SECONDS_MAX),
	BYTES(struct report_job_proc, rss_bytes),
	JSON_END,
};

static const struct json_field jobs_fields[] = {
	JSON_ARRAY(struct report_jobs, processes, n_processes, job_proc_fields, job_proc_init,
	    NULL),
	TIME(struct report_jobs, collected_at),
	JSON_END,
};

static const struct json_field error_fields[] = {
	STR(struct report_error, source),
	STR(struct report_error, message),
	JSON_END,
};

const struct json_field report_fields[] = {
	JSON_CONST("schema", REPORT_SCHEMA),
	JSON_DBL(struct report, collected_at, 0, REPORT_TIME_MAX, JF_KEY),
	JSON_OBJECT(struct report, node, node_fields),
	JSON_OBJECT(struct report, thunderbolt, thunderbolt_fields),
	JSON_OBJECT(struct report, rdma, rdma_fields),
	JSON_OBJECT(struct report, network, network_fields),
	JSON_OBJECT(struct report, memory, memory_fields),
	JSON_OBJECT(struct report, power, power_fields),
	JSON_OBJECT(struct report, thermal, thermal_fields),
	JSON_OBJECT(struct report, agent, agent_fields),
	JSON_OBJECT(struct report, jobs, jobs_fields),
	JSON_ARRAY(struct report, errors, n_errors, error_fields, NULL, NULL),
	JSON_END,
};

/*
 * Never fails on content: non-finite doubles encode as null, enum values out
 * of range as "unknown" (a kind as null), counts above an array's size as its
 * size, a string buffer without a NUL as its whole contents.  The result
 * comes from cJSON's allocator, which is malloc() as long as nobody calls
 * cJSON_InitHooks().
 */
char *
report_encode(const struct report *r, int pretty)
{
	cJSON *root = json_table_object(r, report_fields);
	char *s;

	if (root == NULL)
		return NULL;
	s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}
