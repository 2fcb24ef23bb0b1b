/* See lg_report.h. */
#include "lg_report.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LG_GIB (INT64_C(1) << 30)

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

/* A UUID of the simulated cluster: part 0 is a node's hardware, 1..6 its ports' domains. */
void
lg_sim_uuid(const char *prefix, int idx, int part, char *out, size_t n)
{
	uint64_t h = fnv1a(prefix);

	snprintf(out, n, "%08" PRIX32 "-%04X-%04X-%04X-%012X", (uint32_t)(h >> 32),
	    (unsigned)(h >> 16) & 0xffff, (unsigned)h & 0xffff, (unsigned)part, (unsigned)idx);
}

/* Receptacle r of node idx (1-based) in its group of LG_MESH; n_total nodes in all. */
static void
fill_port(const char *prefix, int idx, int n_total, int r, struct report_port *p)
{
	int base = (idx - 1) / LG_MESH * LG_MESH + 1, pos = (idx - 1) % LG_MESH;
	int q = r - 1 < pos ? r - 1 : r;   /* the (r-1)th other member of the group */
	unsigned x = (unsigned)idx * LG_PORTS + (unsigned)r;

	report_port_init(p);
	snprintf(p->receptacle, sizeof(p->receptacle), "%d", r);
	snprintf(p->bus, sizeof(p->bus), "thunderboltusb4_bus_%d", r - 1);
	lg_sim_uuid(prefix, idx, r, p->domain_uuid, sizeof(p->domain_uuid));
	snprintf(p->interface, sizeof(p->interface), "en%d", r + 1);
	if (r >= LG_MESH || base + q > n_total) {
		p->status = PORT_STATUS_EMPTY;
		REPORT_SET(p->link_status, "0x100");
		p->n_ipv4 = 0;
		return;
	}
	p->status = PORT_STATUS_CONNECTED;
	REPORT_SET(p->link_status, "0x2");
	p->speed_gbps = 80;
	p->n_ipv4 = 1;
	snprintf(p->ipv4[0], sizeof(p->ipv4[0]), "169.254.%u.%u", (x / 254) % 254 + 1,
	    x % 254 + 1);
	p->has_peer = 1;
	lg_sim_uuid(prefix, base + q, (pos < q ? pos : pos - 1) + 1, p->peer.domain_uuid,
	    sizeof(p->peer.domain_uuid));
	REPORT_SET(p->peer.name, "Mac Studio");
	REPORT_SET(p->peer.model, "Mac15,14");
	p->peer.rdma_service = TRI_TRUE;
}

static void
fill_rdma(const struct report_thunderbolt *tb, struct report_rdma *rd)
{
	rd->state = RDMA_STATE_ENABLED;
	rd->n_devices = tb->n_ports;
	for (int i = 0; i < tb->n_ports; i++) {
		const struct report_port *p = &tb->ports[i];
		struct report_rdma_device *d = &rd->devices[i];
		int up = p->status == PORT_STATUS_CONNECTED;

		report_rdma_device_init(d);
		snprintf(d->name, sizeof(d->name), "rdma_%s", p->interface);
		REPORT_SET(d->interface, p->interface);
		d->port_state = up ? RDMA_PORT_ACTIVE : RDMA_PORT_DOWN;
		d->ipv4_gid = up ? TRI_TRUE : TRI_FALSE;
	}
}

static void
fill_memory_power(int idx, struct report *r)
{
	struct report_memory *m = &r->memory;
	double watts = 150.0 + (double)(idx % 100);

	m->total_bytes = 512 * LG_GIB;
	m->active_bytes = 180 * LG_GIB;
	m->wired_bytes = 140 * LG_GIB;
	m->compressed_bytes = 12 * LG_GIB;
	m->inactive_bytes = 20 * LG_GIB;
	m->free_bytes = m->total_bytes - m->active_bytes - m->wired_bytes -
	    m->compressed_bytes - m->inactive_bytes;
	m->free_ratio = (double)(m->free_bytes + m->inactive_bytes) / (double)m->total_bytes;
	m->swap_total_bytes = 0;
	m->swap_used_bytes = 0;
	m->gpu_wired_limit_bytes = 480 * LG_GIB;
	REPORT_SET(r->power.source, "sim");
	r->power.system_watts = watts;
	r->power.cpu_watts = watts * 0.25;
	r->power.gpu_watts = watts * 0.5;
	r->power.ane_watts = 0;
	r->power.dram_watts = watts * 0.05;
	r->thermal.cpu_celsius = 48.5;
	r->thermal.gpu_celsius = 52.0;
}

/* The report of node prefix-idx, whose hardware UUID is uuid; collected_at 0. */
void
lg_build_report(const char *prefix, int idx, int n_total, const char *name, const char *uuid,
    struct report *r)
{
	report_init(r);
	r->collected_at = 0;
	REPORT_SET(r->node.hostname, name);
	REPORT_SET(r->node.hardware_uuid, uuid);
	snprintf(r->node.serial, sizeof(r->node.serial), "SIM%09d", idx);
	REPORT_SET(r->node.model, "Mac15,14");
	REPORT_SET(r->node.chip, "Apple M3 Ultra");
	REPORT_SET(r->node.os_version, "26.2");
	REPORT_SET(r->node.os_build, "25C56");
	REPORT_SET(r->node.agent_version, TBMESH_VERSION);
	r->node.boot_time = 1763700000.0 + idx;
	r->thunderbolt.n_ports = LG_PORTS;
	for (int k = 0; k < LG_PORTS; k++)
		fill_port(prefix, idx, n_total, k + 1, &r->thunderbolt.ports[k]);
	r->thunderbolt.bridge.exists = TRI_TRUE;
	r->thunderbolt.bridge.active = TRI_FALSE;
	r->thunderbolt.bridge.n_members = 0;
	fill_rdma(&r->thunderbolt, &r->rdma);
	fill_memory_power(idx, r);
	r->n_errors = 0;
}

static int64_t
wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
lg_body_stamp(struct lg_body *b)
{
	char buf[32];
	int64_t ms = wall_ms();

	if (ms <= b->last_ms)
		ms = b->last_ms + 1;
	int n = snprintf(buf, sizeof(buf), "%*" PRId64 ".%03d", LG_SLOT_W - 4, ms / 1000,
	    (int)(ms % 1000));
	if (n != LG_SLOT_W)
		return;   /* after the year 2286 */
	b->last_ms = ms;
	memcpy(b->text + b->slot, buf, LG_SLOT_W);
}

int
lg_body_encode(struct lg_body *b, const struct report *r, const char *name)
{
	static const char key[] = "\"collected_at\":";
	char *json = report_encode(r, 0), *at;

	if (json == NULL || (at = strstr(json, key)) == NULL) {
		fprintf(stderr, "%s: cannot encode the report\n", name);
		free(json);
		return -1;
	}
	size_t head = (size_t)(at - json) + sizeof(key) - 1;
	size_t num = strspn(json + head, " 0123456789.eE+-");
	size_t tail = strlen(json + head + num);
	if ((b->text = malloc(head + LG_SLOT_W + tail + 1)) == NULL) {
		free(json);
		return -1;
	}
	memcpy(b->text, json, head);
	memset(b->text + head, ' ', LG_SLOT_W);
	memcpy(b->text + head + LG_SLOT_W, json + head + num, tail + 1);
	b->slot = head;
	b->len = head + LG_SLOT_W + tail;
	free(json);
	lg_body_stamp(b);
	return 0;
}
