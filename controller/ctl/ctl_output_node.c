/*
 * node show for people: the node as the inventory has it, then its latest
 * report section by section (identity, Thunderbolt ports, bridge, RDMA,
 * the other network interfaces, memory, power, thermal, collection
 * errors).  Unknown values print "-"; a known empty list prints "none".
 */
#include "ctl_output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_format.h"
#include "report.h"

static const char *
tri_str(enum tri t)
{
	return t == TRI_TRUE ? "yes" : t == TRI_FALSE ? "no" : "-";
}

/* "2025-11-22T03:40:01Z (3s ago)", or "never". */
static char *
when(double t, double now, char *buf, size_t size)
{
	char ts[CTL_FMT_MAX], age[CTL_FMT_MAX];

	if (isnan(t))
		snprintf(buf, size, "never");
	else
		snprintf(buf, size, "%s (%s ago)", ctl_fmt_time(t, ts, sizeof(ts)),
		    ctl_fmt_age(t, now, age, sizeof(age)));
	return buf;
}

static char *
celsius(double c, char *buf, size_t size)
{
	if (isnan(c))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f C", c);
	return buf;
}

static void
show_node(FILE *f, const struct api_node *n, double now)
{
	char a[CTL_FMT_MAX], b[CTL_FMT_MAX], t[2 * CTL_FMT_MAX];

	ctl_kv(f, 0, "Name", "%s", n->name);
	ctl_kv(f, 0, "Cluster", "%s", ctl_str(n->cluster));
	ctl_kv(f, 0, "State", "%s", api_node_state_str(n->state));
	ctl_kv(f, 0, "Reason", "%s", ctl_str(n->reason));
	ctl_kv(f, 0, "Unexpected reboot", "%s", n->unexpected_reboot ? "yes" : "no");
	ctl_kv(f, 0, "Model", "%s", ctl_str(n->model));
	ctl_kv(f, 0, "Chip", "%s", ctl_str(n->chip));
	ctl_kv(f, 0, "Serial", "%s", ctl_str(n->serial));
	ctl_kv(f, 0, "Hardware UUID", "%s", ctl_str(n->hardware_uuid));
	ctl_kv(f, 0, "OS", "%s (%s)", ctl_str(n->os_version), ctl_str(n->os_build));
	ctl_kv(f, 0, "RDMA", "%s", n->rdma == RDMA_STATE_UNKNOWN ? "-" :
	    report_rdma_state_str(n->rdma));
	if (n->rdma == RDMA_STATE_DISABLED)
		ctl_kv(f, 0, "Manual step", "%s", API_RDMA_MANUAL_STEP);
	if (n->memory_total_bytes == REPORT_NULL_I64)
		ctl_kv(f, 0, "Memory", "-");
	else
		ctl_kv(f, 0, "Memory", "%s used of %s",
		    ctl_fmt_bytes(n->memory_used_bytes, a, sizeof(a)),
		    ctl_fmt_bytes(n->memory_total_bytes, b, sizeof(b)));
	ctl_kv(f, 0, "Power", "%s", ctl_fmt_watts(n->power_watts, a, sizeof(a)));
	ctl_kv(f, 0, "Last report", "%s", when(n->last_report_at, now, t, sizeof(t)));
	ctl_kv(f, 0, "Enrolled", "%s", when(n->enrolled_at, now, t, sizeof(t)));
}

/*
 * How old each section is, when the agent reads them on their own cadence
 * (a collected_at per section); nothing for a report without them.
 */
static void
show_sections(FILE *f, const struct report *r, double now)
{
	char line[512] = "", age[CTL_FMT_MAX];
	size_t len = 0;

	for (int i = 0; i < REPORT_SECTIONS; i++) {
		double at = report_section_at(r, (enum report_section)i);

		if (isnan(at) || len >= sizeof(line))
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %s ago",
		    len > 0 ? ", " : "", report_section_name((enum report_section)i),
		    ctl_fmt_age(at, now, age, sizeof(age)));
	}
	if (line[0] != '\0')
		ctl_kv(f, 2, "Sections read", "%s", line);
}

static void
show_identity(FILE *f, const struct report *r, double now)
{
	const struct report_node *n = &r->node;
	char t[2 * CTL_FMT_MAX];

	fprintf(f, "\nReport\n");
	ctl_kv(f, 2, "Collected", "%s", when(r->collected_at, now, t, sizeof(t)));
	show_sections(f, r, now);
	ctl_kv(f, 2, "Hostname", "%s", ctl_str(n->hostname));
	if (n->machine_name[0] != '\0')
		ctl_kv(f, 2, "Model", "%s (%s)", ctl_str(n->model), n->machine_name);
	else
		ctl_kv(f, 2, "Model", "%s", ctl_str(n->model));
	ctl_kv(f, 2, "Chip", "%s", ctl_str(n->chip));
	ctl_kv(f, 2, "Serial", "%s", ctl_str(n->serial));
	ctl_kv(f, 2, "Hardware UUID", "%s", ctl_str(n->hardware_uuid));
	ctl_kv(f, 2, "OS", "%s (%s)", ctl_str(n->os_version), ctl_str(n->os_build));
	ctl_kv(f, 2, "Agent", "%s", ctl_str(n->agent_version));
	ctl_kv(f, 2, "Booted", "%s", when(n->boot_time, now, t, sizeof(t)));
}

/* n IPv4 addresses, comma-separated; "-" unknown, "none". */
static char *
ipv4_list(int count, const report_ipv4 *ipv4, char *buf, size_t size)
{
	size_t off = 0;

	if (count < 0)
		snprintf(buf, size, "-");
	else if (count == 0)
		snprintf(buf, size, "none");
	else
		buf[0] = '\0';
	for (int i = 0; i < count && i < REPORT_IPV4_MAX && off < size; i++) {
		int n = snprintf(buf + off, size - off, "%s%s", i ? "," : "", ipv4[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

static char *
port_ipv4(const struct report_port *p, char *buf, size_t size)
{
	return ipv4_list(p->n_ipv4, p->ipv4, buf, size);
}

static char *
speed(double gbps, char *buf, size_t size)
{
	if (isnan(gbps))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, gbps == floor(gbps) ? "%.0f Gb/s" : "%.1f Gb/s", gbps);
	return buf;
}

static void
port_row(struct ctl_table *t, const struct report_port *p)
{
	char sp[CTL_FMT_MAX], ip[REPORT_IPV4_MAX * 17 + 8];
	const struct report_peer *peer = p->has_peer ? &p->peer : NULL;
	const char *cells[] = { p->receptacle, report_port_status_str(p->status),
		speed(p->speed_gbps, sp, sizeof(sp)), p->interface,
		port_ipv4(p, ip, sizeof(ip)), peer ? peer->name : NULL,
		peer ? peer->model : NULL, peer ? tri_str(peer->rdma_service) : NULL };

	ctl_table_add(t, cells);
}

static int
show_ports(FILE *f, const struct report_thunderbolt *tb)
{
	static const char *headers[] = { "RECEPTACLE", "STATUS", "SPEED", "INTERFACE", "IPV4",
		"PEER", "PEER MODEL", "PEER RDMA" };
	struct ctl_table *t;

	fprintf(f, "\nThunderbolt ports%s\n", tb->n_ports < 0 ? ": -" :
	    tb->n_ports == 0 ? ": none" : "");
	if (tb->n_ports <= 0)
		return 0;
	if ((t = ctl_table_new(8, headers)) == NULL)
		return -1;
	for (int i = 0; i < tb->n_ports && i < REPORT_PORTS_MAX; i++)
		port_row(t, &tb->ports[i]);
	return ctl_table_end(t, f, 2);
}

static void
show_bridge(FILE *f, const struct report_bridge *b)
{
	char members[REPORT_MEMBERS_MAX * 16 + 8] = "";
	size_t off = 0;

	if (b->n_members < 0)
		snprintf(members, sizeof(members), "-");
	else if (b->n_members == 0)
		snprintf(members, sizeof(members), "none");
	for (int i = 0; i < b->n_members && i < REPORT_MEMBERS_MAX && off < sizeof(members);
	    i++) {
		int n = snprintf(members + off, sizeof(members) - off, "%s%s", i ? "," : "",
		    b->members[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	fprintf(f, "\nThunderbolt Bridge\n");
	ctl_kv(f, 2, "Exists", "%s", tri_str(b->exists));
	ctl_kv(f, 2, "Active", "%s", tri_str(b->active));
	ctl_kv(f, 2, "Members", "%s", members);
}

static int
show_rdma(FILE *f, const struct report_rdma *r)
{
	static const char *headers[] = { "DEVICE", "INTERFACE", "PORT", "IPV4 GID" };
	struct ctl_table *t;

	fprintf(f, "\nRDMA\n");
	ctl_kv(f, 2, "State", "%s", r->state == RDMA_STATE_UNKNOWN ? "-" :
	    report_rdma_state_str(r->state));
	if (r->n_devices <= 0) {
		ctl_kv(f, 2, "Devices", "%s", r->n_devices < 0 ? "-" : "none");
		return 0;
	}
	if ((t = ctl_table_new(4, headers)) == NULL)
		return -1;
	for (int i = 0; i < r->n_devices && i < REPORT_DEVICES_MAX; i++) {
		const struct report_rdma_device *d = &r->devices[i];
		const char *cells[] = { d->name, d->interface,
			report_rdma_port_state_str(d->port_state), tri_str(d->ipv4_gid) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 2);
}

/* One line per interface besides Thunderbolt: "LAN: en0 (ethernet) 192.0.2.11". */
static void
show_network(FILE *f, const struct report_network *nw)
{
	char ip[REPORT_IPV4_MAX * 17 + 8];

	fprintf(f, "\nNetwork%s\n", nw->n_interfaces < 0 ? ": -" :
	    nw->n_interfaces == 0 ? ": none" : "");
	for (int i = 0; i < nw->n_interfaces && i < REPORT_NETIFS_MAX; i++) {
		const struct report_netif *n = &nw->interfaces[i];
		const char *kind = report_netif_kind_str(n->kind);

		ctl_kv(f, 2, "LAN", "%s (%s) %s", ctl_str(n->name), kind != NULL ? kind : "-",
		    ipv4_list(n->n_ipv4, n->ipv4, ip, sizeof(ip)));
	}
}

static void
show_memory(FILE *f, const struct report_memory *m)
{
	char a[CTL_FMT_MAX], b[CTL_FMT_MAX];

	fprintf(f, "\nMemory\n");
	ctl_kv(f, 2, "Total", "%s", ctl_fmt_bytes(m->total_bytes, a, sizeof(a)));
	if (isnan(m->free_ratio))
		ctl_kv(f, 2, "Free", "%s", ctl_fmt_bytes(m->free_bytes, a, sizeof(a)));
	else
		ctl_kv(f, 2, "Free", "%s (free ratio %.0f%%)",
		    ctl_fmt_bytes(m->free_bytes, a, sizeof(a)), m->free_ratio * 100);
	ctl_kv(f, 2, "Active", "%s", ctl_fmt_bytes(m->active_bytes, a, sizeof(a)));
	ctl_kv(f, 2, "Inactive", "%s", ctl_fmt_bytes(m->inactive_bytes, a, sizeof(a)));
	ctl_kv(f, 2, "Wired", "%s", ctl_fmt_bytes(m->wired_bytes, a, sizeof(a)));
	ctl_kv(f, 2, "Compressed", "%s", ctl_fmt_bytes(m->compressed_bytes, a, sizeof(a)));
	ctl_kv(f, 2, "Swap", "%s used of %s", ctl_fmt_bytes(m->swap_used_bytes, a, sizeof(a)),
	    ctl_fmt_bytes(m->swap_total_bytes, b, sizeof(b)));
	ctl_kv(f, 2, "GPU wired limit", "%s", m->gpu_wired_limit_bytes == 0 ?
	    "system default" : ctl_fmt_bytes(m->gpu_wired_limit_bytes, a, sizeof(a)));
}

static void
show_power(FILE *f, const struct report_power *p, const struct report_thermal *th)
{
	char a[CTL_FMT_MAX];

	fprintf(f, "\nPower\n");
	ctl_kv(f, 2, "Source", "%s", ctl_str(p->source));
	ctl_kv(f, 2, "System", "%s", ctl_fmt_watts(p->system_watts, a, sizeof(a)));
	ctl_kv(f, 2, "CPU", "%s", ctl_fmt_watts(p->cpu_watts, a, sizeof(a)));
	ctl_kv(f, 2, "GPU", "%s", ctl_fmt_watts(p->gpu_watts, a, sizeof(a)));
	ctl_kv(f, 2, "ANE", "%s", ctl_fmt_watts(p->ane_watts, a, sizeof(a)));
	ctl_kv(f, 2, "DRAM", "%s", ctl_fmt_watts(p->dram_watts, a, sizeof(a)));
	fprintf(f, "\nThermal\n");
	ctl_kv(f, 2, "CPU", "%s", celsius(th->cpu_celsius, a, sizeof(a)));
	ctl_kv(f, 2, "GPU", "%s", celsius(th->gpu_celsius, a, sizeof(a)));
}

static int
show_errors(FILE *f, const struct report *r)
{
	static const char *headers[] = { "SOURCE", "MESSAGE" };
	struct ctl_table *t;

	fprintf(f, "\nReport errors%s\n", r->n_errors <= 0 ? ": none" : "");
	if (r->n_errors <= 0)
		return 0;
	if ((t = ctl_table_new(2, headers)) == NULL)
		return -1;
	for (int i = 0; i < r->n_errors && i < REPORT_ERRORS_MAX; i++) {
		const char *cells[] = { r->errors[i].source, r->errors[i].message };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 2);
}

int
ctl_show_print(FILE *f, const struct api_node *n, const struct report *r, double now)
{
	show_node(f, n, now);
	if (r == NULL) {
		fprintf(f, "\nReport: none yet\n");
		return 0;
	}
	show_identity(f, r, now);
	if (show_ports(f, &r->thunderbolt) == -1)
		return -1;
	show_bridge(f, &r->thunderbolt.bridge);
	if (show_rdma(f, &r->rdma) == -1)
		return -1;
	show_network(f, &r->network);
	show_memory(f, &r->memory);
	show_power(f, &r->power, &r->thermal);
	return show_errors(f, r);
}
