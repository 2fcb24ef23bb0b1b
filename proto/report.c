/*
 * The report struct: construction, the null state, error recording, the
 * form of agent.listen, the node's LAN address.
 * JSON encoding and decoding live in report_json.c.
 */
#include "report.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

void
report_strset(char *dst, size_t n, const char *src)
{
	if (n == 0)
		return;
	if (src == NULL) {
		dst[0] = '\0';
		return;
	}
	size_t len = strnlen(src, n - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

int
report_listen_valid(const char *s)
{
	unsigned char a[16];
	char host[REPORT_STR_MAX + 1], err[8];
	const char *colon = strrchr(s, ':');
	int port;

	if (colon == NULL || colon[1 + strspn(colon + 1, "0123456789")] != '\0' ||
	    conf_split_hostport(s, host, sizeof(host), &port, err, sizeof(err)) == -1 ||
	    port < 1)
		return 0;
	if (s[0] == '[')
		return inet_pton(AF_INET6, host, a) == 1;
	if (inet_pton(AF_INET, host, a) == 1)
		return 1;
	if (host[0] == '-' || host[0] == '.')
		return 0;
	return host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-.")] == '\0';
}

void
report_port_init(struct report_port *p)
{
	memset(p, 0, sizeof(*p));
	p->status = PORT_STATUS_UNKNOWN;
	p->speed_gbps = NAN;
	p->n_ipv4 = -1;
	p->has_peer = 0;
	p->peer.rdma_service = TRI_NULL;
	p->via_hub = TRI_NULL;
	p->max_speed_gbps = NAN;
}

void
report_rdma_device_init(struct report_rdma_device *d)
{
	memset(d, 0, sizeof(*d));
	d->port_state = RDMA_PORT_UNKNOWN;
	d->ipv4_gid = TRI_NULL;
}

void
report_netif_init(struct report_netif *n)
{
	memset(n, 0, sizeof(*n));
	n->kind = NETIF_KIND_NULL;
	n->n_ipv4 = -1;
}

void
report_job_proc_init(struct report_job_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->generation = REPORT_NULL_I64;
	p->cpu_seconds = NAN;
	p->rss_bytes = REPORT_NULL_I64;
}

void
report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	report_init_fields(r);
}

void
report_init_fields(struct report *r)
{
	r->collected_at = NAN;
	r->node.boot_time = NAN;
	r->node.collected_at = r->thunderbolt.collected_at = r->rdma.collected_at = NAN;
	r->network.collected_at = r->memory.collected_at = NAN;
	r->power.collected_at = r->thermal.collected_at = NAN;
	r->thunderbolt.n_ports = -1;
	r->thunderbolt.bridge.exists = TRI_NULL;
	r->thunderbolt.bridge.active = TRI_NULL;
	r->thunderbolt.bridge.n_members = -1;
	r->rdma.state = RDMA_STATE_UNKNOWN;
	r->rdma.n_devices = -1;
	r->network.n_interfaces = -1;
	r->jobs.n_processes = -1;
	r->jobs.collected_at = NAN;

	struct report_memory *m = &r->memory;
	m->total_bytes = m->free_bytes = m->active_bytes = REPORT_NULL_I64;
	m->inactive_bytes = m->wired_bytes = m->compressed_bytes = REPORT_NULL_I64;
	m->swap_total_bytes = m->swap_used_bytes = REPORT_NULL_I64;
	m->gpu_wired_limit_bytes = REPORT_NULL_I64;
	m->free_ratio = NAN;

	struct report_power *p = &r->power;
	p->system_watts = p->cpu_watts = p->gpu_watts = NAN;
	p->ane_watts = p->dram_watts = NAN;
	r->thermal.cpu_celsius = r->thermal.gpu_celsius = NAN;
	r->n_errors = 0;
}

struct report *
report_new(void)
{
	struct report *r = malloc(sizeof(*r));

	if (r != NULL)
		report_init(r);
	return r;
}

void
report_add_error(struct report *r, const char *source, const char *fmt, ...)
{
	struct report_error *e;
	va_list ap;

	if (r->n_errors >= REPORT_ERRORS_MAX) {
		e = &r->errors[REPORT_ERRORS_MAX - 1];
		REPORT_SET(e->source, "agent");
		REPORT_SET(e->message, "more errors than the report holds; later ones dropped");
		return;
	}
	e = &r->errors[r->n_errors++];
	REPORT_SET(e->source, source);
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
}

/* 1 for an address a peer on the LAN can reach: not 169.254/16, not 127/8. */
static int
lan_usable(const char *ip)
{
	struct in_addr a;
	uint32_t h;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return 0;
	h = ntohl(a.s_addr);
	return (h >> 16) != 0xa9fe && (h >> 24) != 127;
}

/* The first usable address of the first interface of kind k that has one. */
static const struct report_netif *
lan_find(const struct report_network *nw, enum netif_kind k, int *addr)
{
	for (int i = 0; i < nw->n_interfaces && i < REPORT_NETIFS_MAX; i++) {
		const struct report_netif *n = &nw->interfaces[i];
		if (n->kind != k)
			continue;
		for (int j = 0; j < n->n_ipv4 && j < REPORT_IPV4_MAX; j++) {
			if (lan_usable(n->ipv4[j])) {
				*addr = j;
				return n;
			}
		}
	}
	return NULL;
}

int
report_lan_ipv4(const struct report *r, char *ip, size_t iplen, char *iface,
    size_t ifacelen, const char **kind)
{
	const struct report_netif *n;
	int j = 0;

	report_strset(ip, iplen, "");
	if (iface != NULL)
		report_strset(iface, ifacelen, "");
	if (kind != NULL)
		*kind = NULL;
	if ((n = lan_find(&r->network, NETIF_KIND_ETHERNET, &j)) == NULL &&
	    (n = lan_find(&r->network, NETIF_KIND_WIFI, &j)) == NULL)
		return -1;
	report_strset(ip, iplen, n->ipv4[j]);
	if (iface != NULL)
		report_strset(iface, ifacelen, n->name);
	if (kind != NULL)
		*kind = report_netif_kind_str(n->kind);
	return 0;
}

const char *
report_netif_kind_str(enum netif_kind k)
{
	switch (k) {
	case NETIF_KIND_ETHERNET:
		return "ethernet";
	case NETIF_KIND_WIFI:
		return "wifi";
	case NETIF_KIND_OTHER:
		return "other";
	default:
		return NULL;
	}
}

const char *
report_port_status_str(enum port_status s)
{
	switch (s) {
	case PORT_STATUS_CONNECTED:
		return "connected";
	case PORT_STATUS_EMPTY:
		return "empty";
	default:
		return "unknown";
	}
}

const char *
report_rdma_state_str(enum rdma_state s)
{
	switch (s) {
	case RDMA_STATE_ENABLED:
		return "enabled";
	case RDMA_STATE_DISABLED:
		return "disabled";
	default:
		return "unknown";
	}
}

const char *
report_rdma_port_state_str(enum rdma_port_state s)
{
	switch (s) {
	case RDMA_PORT_ACTIVE:
		return "active";
	case RDMA_PORT_DOWN:
		return "down";
	default:
		return "unknown";
	}
}

double
report_section_time(const struct report *r, double section)
{
	return isnan(section) ? r->collected_at : section;
}

static const char *const section_names[REPORT_SECTIONS] = {
	"node", "thunderbolt", "rdma", "network", "memory", "power", "thermal", "jobs",
};

const char *
report_section_name(enum report_section s)
{
	return s >= 0 && s < REPORT_SECTIONS ? section_names[s] : "unknown";
}

double
report_section_at(const struct report *r, enum report_section s)
{
	switch (s) {
	case REPORT_SEC_NODE: return r->node.collected_at;
	case REPORT_SEC_THUNDERBOLT: return r->thunderbolt.collected_at;
	case REPORT_SEC_RDMA: return r->rdma.collected_at;
	case REPORT_SEC_NETWORK: return r->network.collected_at;
	case REPORT_SEC_MEMORY: return r->memory.collected_at;
	case REPORT_SEC_POWER: return r->power.collected_at;
	case REPORT_SEC_THERMAL: return r->thermal.collected_at;
	case REPORT_SEC_JOBS: return r->jobs.collected_at;
	case REPORT_SECTIONS: break;
	}
	return NAN;
}

double
report_oldest_section(const struct report *r)
{
	double t = r->collected_at, s;

	for (int i = 0; i < REPORT_SECTIONS; i++)
		if (!isnan(s = report_section_at(r, (enum report_section)i)) &&
		    (isnan(t) || s < t))
			t = s;
	return t;
}
