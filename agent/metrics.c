/*
 * Prometheus text rendering.  A family's HELP and TYPE lines are written
 * before its first sample only, so a family whose values are all null
 * leaves nothing behind.
 */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "version.h"

struct out {
	char *buf;
	size_t len, cap;
	int oom;
	const char *name, *help, *type; /* the family whose header is pending */
	int header_done;
};

static void
out_vprintf(struct out *o, const char *fmt, va_list ap)
{
	va_list cp;

	if (o->oom)
		return;
	va_copy(cp, ap);
	int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		o->oom = 1;
		return;
	}
	if ((size_t)n >= o->cap - o->len) {
		size_t ncap = o->cap * 2;
		while (ncap - o->len <= (size_t)n)
			ncap *= 2;
		char *nb = realloc(o->buf, ncap);
		if (nb == NULL) {
			o->oom = 1;
			return;
		}
		o->buf = nb;
		o->cap = ncap;
		vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	}
	o->len += (size_t)n;
}

static void __attribute__((format(printf, 2, 3)))
out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vprintf(o, fmt, ap);
	va_end(ap);
}

static void
family(struct out *o, const char *name, const char *type, const char *help)
{
	o->name = name;
	o->type = type;
	o->help = help;
	o->header_done = 0;
}

/* Label values escaped as the exposition format wants: \\, \", \n. */
static void
out_label_value(struct out *o, const char *v)
{
	char esc[2 * REPORT_STR_MAX + 3];
	size_t j = 0;

	for (size_t i = 0; v[i] != '\0' && j + 3 < sizeof(esc); i++) {
		if (v[i] == '\\' || v[i] == '"') {
			esc[j++] = '\\';
			esc[j++] = v[i];
		} else if (v[i] == '\n') {
			esc[j++] = '\\';
			esc[j++] = 'n';
		} else {
			esc[j++] = v[i];
		}
	}
	esc[j] = '\0';
	out_printf(o, "\"%s\"", esc);
}

/*
 * One sample of the current family.  labels: NULL-terminated list of
 * name, value pairs (NULL for none).  A NAN value is left out.
 */
static void
sample(struct out *o, const char *const *labels, double value)
{
	if (isnan(value))
		return;
	if (!o->header_done) {
		out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", o->name, o->help, o->name, o->type);
		o->header_done = 1;
	}
	out_printf(o, "%s", o->name);
	if (labels != NULL && labels[0] != NULL) {
		out_printf(o, "{");
		for (int i = 0; labels[i] != NULL; i += 2) {
			out_printf(o, "%s%s=", i ? "," : "", labels[i]);
			out_label_value(o, labels[i + 1]);
		}
		out_printf(o, "}");
	}
	if (isinf(value))
		out_printf(o, " %s\n", value > 0 ? "+Inf" : "-Inf");
	else
		out_printf(o, " %.17g\n", value);
}

static double
i64(int64_t v)
{
	return v == REPORT_NULL_I64 ? NAN : (double)v;
}

static double
tri(enum tri t)
{
	return t == TRI_NULL ? NAN : (double)t;
}

/*
 * When each section's values were read: sources run on their own cadence
 * (DESIGN.md, "What the agent costs the Mac"), so a section can be older
 * than the report; its age is time() minus this.  A section the report
 * does not hold (its values all null) is left out.
 */
static void
render_sections(struct out *o, const struct report *r)
{
	const int held[REPORT_SECTIONS] = {
		[REPORT_SEC_NODE] = r->node.model[0] != '\0' || r->node.hostname[0] != '\0',
		[REPORT_SEC_THUNDERBOLT] = r->thunderbolt.n_ports >= 0,
		[REPORT_SEC_RDMA] = r->rdma.state != RDMA_STATE_UNKNOWN || r->rdma.n_devices >= 0,
		[REPORT_SEC_NETWORK] = r->network.n_interfaces >= 0,
		[REPORT_SEC_MEMORY] = r->memory.total_bytes != REPORT_NULL_I64 ||
		    r->memory.free_bytes != REPORT_NULL_I64,
		[REPORT_SEC_POWER] = r->power.source[0] != '\0',
		[REPORT_SEC_THERMAL] = !isnan(r->thermal.cpu_celsius) ||
		    !isnan(r->thermal.gpu_celsius),
		[REPORT_SEC_JOBS] = r->jobs.n_processes >= 0,
	};

	family(o, "tbmesh_report_section_timestamp_seconds", "gauge",
	    "When each section of the latest report was read, in unix seconds.");
	for (int i = 0; i < REPORT_SECTIONS; i++) {
		const char *l[] = { "section", report_section_name((enum report_section)i), NULL };

		if (held[i])
			sample(o, l, report_section_time(r,
			    report_section_at(r, (enum report_section)i)));
	}
}

static void
render_node(struct out *o, const struct report *r)
{
	const struct report_node *n = &r->node;
	const char *info[] = { "hostname", n->hostname, "model", n->model, "chip", n->chip,
		"os_version", n->os_version, "os_build", n->os_build, NULL };

	family(o, "tbmesh_node_info", "gauge",
	    "The node's identity and OS; the value is always 1.");
	sample(o, info, 1);
	family(o, "tbmesh_node_boot_time_seconds", "gauge",
	    "When the node booted, in unix seconds.");
	sample(o, NULL, n->boot_time);
	family(o, "tbmesh_report_timestamp_seconds", "gauge",
	    "When the latest report was collected, in unix seconds.");
	sample(o, NULL, r->collected_at);
	render_sections(o, r);
}

static void
render_memory(struct out *o, const struct report_memory *m)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "tbmesh_memory_total_bytes", "Physical memory.", offsetof(struct report_memory, total_bytes) },
		{ "tbmesh_memory_free_bytes", "Free memory.", offsetof(struct report_memory, free_bytes) },
		{ "tbmesh_memory_active_bytes", "Active memory.", offsetof(struct report_memory, active_bytes) },
		{ "tbmesh_memory_inactive_bytes", "Inactive memory.", offsetof(struct report_memory, inactive_bytes) },
		{ "tbmesh_memory_wired_bytes", "Wired memory.", offsetof(struct report_memory, wired_bytes) },
		{ "tbmesh_memory_compressed_bytes", "Memory held by the compressor.", offsetof(struct report_memory, compressed_bytes) },
		{ "tbmesh_swap_total_bytes", "Swap space.", offsetof(struct report_memory, swap_total_bytes) },
		{ "tbmesh_swap_used_bytes", "Swap space in use.", offsetof(struct report_memory, swap_used_bytes) },
		{ "tbmesh_gpu_wired_limit_bytes", "GPU wired memory limit; 0 is the system default.", offsetof(struct report_memory, gpu_wired_limit_bytes) },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		family(o, f[i].name, "gauge", f[i].help);
		sample(o, NULL, i64(*(const int64_t *)(const void *)((const char *)m + f[i].off)));
	}
	family(o, "tbmesh_memory_free_ratio", "gauge",
	    "Share of memory free, as the OS reports it (0 to 1).");
	sample(o, NULL, m->free_ratio);
}

static void
render_power(struct out *o, const struct report *r)
{
	const struct report_power *p = &r->power;
	const char *const comps[] = { "system", "cpu", "gpu", "ane", "dram" };
	const double w[] = { p->system_watts, p->cpu_watts, p->gpu_watts, p->ane_watts,
		p->dram_watts };

	family(o, "tbmesh_power_watts", "gauge",
	    "Power drawn, by component, as the power source measured it.");
	for (size_t i = 0; i < 5; i++) {
		const char *l[] = { "component", comps[i], "source", p->source, NULL };
		sample(o, l, w[i]);
	}
	family(o, "tbmesh_temperature_celsius", "gauge", "Temperature by sensor.");
	sample(o, (const char *const[]){ "sensor", "cpu", NULL }, r->thermal.cpu_celsius);
	sample(o, (const char *const[]){ "sensor", "gpu", NULL }, r->thermal.gpu_celsius);
}

static void
render_ports(struct out *o, const struct report_thunderbolt *tb)
{
	family(o, "tbmesh_thunderbolt_port_up", "gauge",
	    "1 when something is connected to the Thunderbolt receptacle.");
	for (int i = 0; i < tb->n_ports; i++) {
		const struct report_port *p = &tb->ports[i];
		const char *l[] = { "receptacle", p->receptacle, "interface", p->interface, NULL };
		sample(o, l, p->status == PORT_STATUS_UNKNOWN ? NAN :
		    p->status == PORT_STATUS_CONNECTED);
	}
	family(o, "tbmesh_thunderbolt_port_speed_bytes_per_second", "gauge",
	    "Negotiated link speed of the receptacle (80 Gb/s is 1e10).");
	for (int i = 0; i < tb->n_ports; i++) {
		const struct report_port *p = &tb->ports[i];
		const char *l[] = { "receptacle", p->receptacle, "interface", p->interface, NULL };
		sample(o, l, p->speed_gbps * 1e9 / 8);
	}
	family(o, "tbmesh_thunderbolt_port_peer_rdma", "gauge",
	    "For a receptacle cabled to another host: 1 if that host advertises RDMA.");
	for (int i = 0; i < tb->n_ports; i++) {
		const struct report_port *p = &tb->ports[i];
		const char *l[] = { "receptacle", p->receptacle, "interface", p->interface, NULL };
		if (p->has_peer)
			sample(o, l, tri(p->peer.rdma_service));
	}
	family(o, "tbmesh_thunderbolt_bridge_active", "gauge",
	    "1 when the Thunderbolt Bridge (bridge0) is active.");
	sample(o, NULL, tri(tb->bridge.active));
}

static void
render_rdma(struct out *o, const struct report_rdma *rd)
{
	family(o, "tbmesh_rdma_enabled", "gauge", "1 when RDMA over Thunderbolt is enabled.");
	sample(o, NULL, rd->state == RDMA_STATE_UNKNOWN ? NAN : rd->state == RDMA_STATE_ENABLED);
	family(o, "tbmesh_rdma_port_active", "gauge",
	    "1 when the RDMA device's port is PORT_ACTIVE.");
	for (int i = 0; i < rd->n_devices; i++) {
		const struct report_rdma_device *d = &rd->devices[i];
		const char *l[] = { "device", d->name, "interface", d->interface, NULL };
		sample(o, l, d->port_state == RDMA_PORT_UNKNOWN ? NAN :
		    d->port_state == RDMA_PORT_ACTIVE);
	}
}

static void
render_agent(struct out *o, const struct agent_counters *c, const char *backend)
{
	family(o, "tbmesh_agent_build_info", "gauge",
	    "The agent's version and backend; the value is always 1.");
	sample(o, (const char *const[]){ "version", TBMESH_VERSION, "backend", backend, NULL }, 1);
	family(o, "tbmesh_agent_collections_total", "counter", "Collections run.");
	sample(o, NULL, (double)c->collections);
	family(o, "tbmesh_agent_collection_duration_seconds", "gauge",
	    "Seconds the latest collection took.");
	sample(o, NULL, c->collections ? c->last_duration : NAN);
	family(o, "tbmesh_agent_collection_errors_total", "counter",
	    "Failures while collecting, by source (a command or a file).");
	for (int i = 0; i < c->n_sources; i++)
		sample(o, (const char *const[]){ "source", c->source[i], NULL },
		    (double)c->errors[i]);
}

static void
render_push(struct out *o, const struct agent_counters *c)
{
	if (!c->push_on)
		return;
	family(o, "tbmesh_agent_reports_pushed_total", "counter",
	    "Reports the controller accepted.");
	sample(o, NULL, (double)c->reports_pushed);
	family(o, "tbmesh_agent_push_failures_total", "counter",
	    "Requests to the controller that failed: network, timeout or an error status.");
	sample(o, NULL, (double)c->push_failures);
	family(o, "tbmesh_agent_reports_dropped_total", "counter",
	    "Reports replaced by a newer one before they could be sent.");
	sample(o, NULL, (double)c->reports_dropped);
	family(o, "tbmesh_agent_enrolled", "gauge",
	    "1 when the agent holds a node token from the controller.");
	sample(o, NULL, c->enrolled ? 1 : 0);
	family(o, "tbmesh_agent_push_backoff_seconds", "gauge",
	    "Seconds the agent waits before its next attempt; 0 when not backing off.");
	sample(o, NULL, c->push_backoff);
}

char *
metrics_render(const struct report *r, const struct agent_counters *c, const char *backend,
    size_t *len)
{
	struct out o = { .cap = 16384 };

	if ((o.buf = malloc(o.cap)) == NULL)
		return NULL;
	o.buf[0] = '\0';
	render_agent(&o, c, backend);
	render_push(&o, c);
	if (r != NULL) {
		render_node(&o, r);
		render_memory(&o, &r->memory);
		render_power(&o, r);
		render_ports(&o, &r->thunderbolt);
		render_rdma(&o, &r->rdma);
	}
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	*len = o.len;
	return o.buf;
}

void
metrics_count(struct agent_counters *c, const struct report *r, double duration)
{
	c->collections++;
	c->last_duration = duration;
	for (int i = 0; i < r->n_errors; i++) {
		int j;
		for (j = 0; j < c->n_sources; j++)
			if (strcmp(c->source[j], r->errors[i].source) == 0)
				break;
		if (j == c->n_sources) {
			if (c->n_sources == METRICS_SOURCES_MAX)
				continue;
			memcpy(c->source[j], r->errors[i].source, sizeof(c->source[j]));
			c->n_sources++;
		}
		c->errors[j]++;
	}
}
