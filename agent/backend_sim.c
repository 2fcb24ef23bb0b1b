/*
 * The sim backend: the report one node of a cluster scenario file would
 * send (proto/scenario.h has the format).  Both ends of every cable are
 * derived from the same file, so they agree: the peer of mac1:2 is the
 * domain UUID mac2 reports for the receptacle at the cable's other end.
 *
 * For node n, as a Mac running macOS 26.2 reports it:
 *   node         hostname = n's name; model, chip, OS, serial, hardware
 *                UUID and boot time from the scenario; machine_name when
 *                the scenario gives it (else null)
 *   ports        receptacles 1..N, bus "thunderboltusb4_bus_<r-1>", the
 *                port's domain UUID, interface from the receptacle map;
 *                cabled: "connected", link 0x2, the cable's speed, the
 *                port's IPv4 addresses, peer {the far port's domain UUID,
 *                the far node's machine_name and model, rdma_service =
 *                far node's RDMA and RDMA devices}; empty: "empty", link
 *                0x100, speed null, max_speed_gbps the node's ("Up to
 *                120 Gb/s"; 40 a Thunderbolt 4 Mac), peer null, no
 *                address unless the scenario gives one;
 *                a cabled port marked reports_empty is reported empty (its
 *                far end still reports the cable: a one-sided link);
 *                via_hub true and hub its name at the end whose port the
 *                scenario gives a "hub", false (direct) at every other
 *                cabled end, the far one included, as real captures show
 *                (tests/fixtures/captures/README.md)
 *   bridge       exists; active as the scenario says; members: every
 *                Thunderbolt interface when active, none otherwise
 *   rdma         enabled: one device rdma_<if> per receptacle, ACTIVE when
 *                cabled, seen, both ends enabled and not port_down, and
 *                no hub at either end (no RDMA through a dock), else
 *                DOWN;
 *                ipv4_gid when the interface has an address and the
 *                port is not marked "ipv4_gid": false.  disabled:
 *                no devices (ibv_devices lists none).  enabled without
 *                rdma_devices (a Thunderbolt 4 Mac, MLX issue 3777): no
 *                devices either, and its peers see no RDMA service from
 *                it, their ports to it DOWN
 *   network      the scenario's "lan" interfaces, in its order, with their
 *                kind, port and addresses; null without "lan"
 *   memory       total = memory_gb GiB; in use = memory_load, drifting by
 *                +-0.02 over 15 minutes; 16 KiB pages; no swap
 *   power        source "sim"; power_watts +-5 % over a minute; CPU 30 %,
 *                GPU 40 %, DRAM 5 %, ANE 0; thermal follows power
 * Drift is a function of the collection time and the node, so a report is
 * reproducible from (scenario, node, now).
 *
 * Failures: no scenario file, one that does not parse, a node not in it:
 * the report holds the hostname (--node, else --name), an error with
 * source "sim" says why, and collect returns 0: the agent still sends it.
 * A node marked "unreachable" is filled in but collect returns -1, so the
 * agent has no report to send, as if the Mac had gone off the network.
 */
#include "collector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define SIM_SOURCE "sim"
#define PAGE_BYTES 16384.0
#define TWO_PI 6.283185307179586

static void
fill_node(const struct scenario_node *n, struct report_node *rn)
{
	REPORT_SET(rn->hostname, n->name);
	REPORT_SET(rn->hardware_uuid, n->hardware_uuid);
	REPORT_SET(rn->serial, n->serial);
	REPORT_SET(rn->model, n->model);
	/* only a name the scenario gives: the Studios of the older scenarios
	 * cable en2 for RDMA, which bad-port would judge */
	if (n->machine_name_given)
		REPORT_SET(rn->machine_name, n->machine_name);
	REPORT_SET(rn->chip, n->chip);
	REPORT_SET(rn->os_version, n->os_version);
	REPORT_SET(rn->os_build, n->os_build);
	rn->boot_time = n->boot_time;
}

static void
fill_port(const struct scenario *s, const struct scenario_node *n,
    const struct scenario_port *sp, struct report_port *rp)
{
	const struct scenario_node *peer;

	report_port_init(rp);
	snprintf(rp->receptacle, sizeof(rp->receptacle), "%d", sp->receptacle);
	snprintf(rp->bus, sizeof(rp->bus), "thunderboltusb4_bus_%d", sp->receptacle - 1);
	REPORT_SET(rp->domain_uuid, sp->domain_uuid);
	REPORT_SET(rp->interface, sp->interface);
	rp->n_ipv4 = sp->n_ipv4;
	for (int k = 0; k < sp->n_ipv4; k++)
		REPORT_SET(rp->ipv4[k], sp->ipv4[k]);
	if (sp->cable < 0 || sp->reports_empty) {
		rp->status = PORT_STATUS_EMPTY;
		REPORT_SET(rp->link_status, "0x100");
		rp->max_speed_gbps = n->max_speed_gbps;    /* "Up to 120 Gb/s" */
		return;
	}
	peer = &s->nodes[sp->peer_node];
	rp->status = PORT_STATUS_CONNECTED;
	REPORT_SET(rp->link_status, "0x2");
	rp->speed_gbps = sp->speed_gbps;
	rp->has_peer = 1;
	REPORT_SET(rp->peer.domain_uuid, peer->ports[sp->peer_receptacle - 1].domain_uuid);
	REPORT_SET(rp->peer.name, peer->machine_name);
	REPORT_SET(rp->peer.model, peer->model);
	rp->peer.rdma_service = peer->rdma && peer->rdma_devices ? TRI_TRUE : TRI_FALSE;
	/* a dock or hub at this end: the peer nested under it (via-hub); the
	 * far end, whose "hub" is not set, sees this one as direct */
	rp->via_hub = sp->hub[0] ? TRI_TRUE : TRI_FALSE;
	REPORT_SET(rp->hub, sp->hub);
}

static void
fill_thunderbolt(const struct scenario *s, const struct scenario_node *n,
    struct report_thunderbolt *tb)
{
	struct report_bridge *br = &tb->bridge;

	tb->n_ports = n->receptacles;
	for (int r = 0; r < n->receptacles; r++)
		fill_port(s, n, &n->ports[r], &tb->ports[r]);
	br->exists = TRI_TRUE;
	br->active = n->bridge_active ? TRI_TRUE : TRI_FALSE;
	br->n_members = n->bridge_active ? n->receptacles : 0;
	for (int k = 0; k < br->n_members; k++)
		REPORT_SET(br->members[k], n->ports[k].interface);
}

static void
fill_rdma(const struct scenario *s, const struct scenario_node *n, struct report_rdma *rd)
{
	if (!n->rdma) {
		rd->state = RDMA_STATE_DISABLED;
		rd->n_devices = 0;
		return;
	}
	rd->state = RDMA_STATE_ENABLED;
	if (!n->rdma_devices) {
		rd->n_devices = 0;
		return;
	}
	rd->n_devices = n->receptacles;
	for (int r = 0; r < n->receptacles; r++) {
		const struct scenario_port *sp = &n->ports[r];
		struct report_rdma_device *d = &rd->devices[r];
		int active = sp->cable >= 0 && !sp->port_down && !sp->reports_empty &&
		    s->nodes[sp->peer_node].rdma && s->nodes[sp->peer_node].rdma_devices &&
		    !sp->hub[0] &&
		    !s->nodes[sp->peer_node].ports[sp->peer_receptacle - 1].hub[0];

		report_rdma_device_init(d);
		snprintf(d->name, sizeof(d->name), "rdma_%s", sp->interface);
		REPORT_SET(d->interface, sp->interface);
		d->port_state = active ? RDMA_PORT_ACTIVE : RDMA_PORT_DOWN;
		d->ipv4_gid = sp->n_ipv4 > 0 && !sp->no_gid ? TRI_TRUE : TRI_FALSE;
	}
}

static void
fill_network(const struct scenario_node *n, struct report_network *nw)
{
	nw->n_interfaces = n->n_lan;
	for (int i = 0; i < n->n_lan; i++) {
		const struct scenario_lan *l = &n->lan[i];
		struct report_netif *ni = &nw->interfaces[i];

		report_netif_init(ni);
		REPORT_SET(ni->name, l->interface);
		ni->kind = l->kind;
		REPORT_SET(ni->port, l->port);
		ni->n_ipv4 = l->n_ipv4;
		for (int k = 0; k < l->n_ipv4; k++)
			REPORT_SET(ni->ipv4[k], l->ipv4[k]);
	}
}

/* Whole 16 KiB pages, in bytes. */
static int64_t
pages(double bytes)
{
	return (int64_t)floor(bytes / PAGE_BYTES) * (int64_t)PAGE_BYTES;
}

/*
 * In use (load) splits into active 50 %, wired 40 %, compressed 10 %; a
 * tenth of the rest is inactive, the remainder free.  free_ratio counts
 * free and inactive, as memory_pressure does.
 */
static void
fill_memory(const struct scenario_node *n, double t, double phase, struct report_memory *m)
{
	double total = (double)n->memory_bytes;
	double load = n->memory_load + 0.02 * sin(TWO_PI * t / 900.0 + phase);

	load = fmin(fmax(load, 0.0), 0.97);
	m->total_bytes = n->memory_bytes;
	m->active_bytes = pages(total * load * 0.5);
	m->wired_bytes = pages(total * load * 0.4);
	m->compressed_bytes = pages(total * load * 0.1);
	m->inactive_bytes = pages(total * (1.0 - load) * 0.1);
	m->free_bytes = m->total_bytes - m->active_bytes - m->wired_bytes -
	    m->compressed_bytes - m->inactive_bytes;
	m->free_ratio = (double)(m->free_bytes + m->inactive_bytes) / total;
	m->swap_total_bytes = 0;
	m->swap_used_bytes = 0;
	m->gpu_wired_limit_bytes = n->gpu_wired_limit_mb * 1048576;
}

static double
round2(double x)
{
	return round(x * 100.0) / 100.0;
}

static void
fill_power(const struct scenario_node *n, double t, double phase, struct report *r)
{
	double sys = n->power_watts * (1.0 + 0.05 * sin(TWO_PI * t / 60.0 + phase));

	REPORT_SET(r->power.source, SIM_SOURCE);
	r->power.system_watts = round2(sys);
	r->power.cpu_watts = round2(sys * 0.30);
	r->power.gpu_watts = round2(sys * 0.40);
	r->power.ane_watts = 0.0;
	r->power.dram_watts = round2(sys * 0.05);
	r->thermal.cpu_celsius = round2(fmin(32.0 + sys * 0.1, 105.0));
	r->thermal.gpu_celsius = round2(fmin(30.0 + sys * 0.08, 105.0));
}

/* The node's place in the drift cycles, from its hardware UUID. */
static double
node_phase(const struct scenario_node *n)
{
	unsigned long head = strtoul(n->hardware_uuid, NULL, 16);

	return (double)(head % 6283) / 1000.0;
}

static void
fill_report(const struct scenario *s, const struct scenario_node *n, double now,
    struct report *r)
{
	double t = isfinite(now) ? now : 0.0;
	double phase = node_phase(n);

	fill_node(n, &r->node);
	fill_thunderbolt(s, n, &r->thunderbolt);
	fill_rdma(s, n, &r->rdma);
	fill_network(n, &r->network);
	fill_memory(n, t, phase, &r->memory);
	fill_power(n, t, phase, r);
}

/* "mac1, mac2, ..." into buf, truncated to fit. */
static void
node_list(const struct scenario *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->n_nodes && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "",
		    s->nodes[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int
collect(const struct collect_opts *o, struct report *r)
{
	const char *node = o->node != NULL && o->node[0] != '\0' ? o->node : o->name;
	const struct scenario_node *n;
	struct scenario *s;
	char err[512], names[200];
	int rc = 0;

	if (node != NULL)
		REPORT_SET(r->node.hostname, node);
	if (o->scenario == NULL || o->scenario[0] == '\0') {
		report_add_error(r, SIM_SOURCE, "no scenario file given (--scenario)");
		return 0;
	}
	if (node == NULL || node[0] == '\0') {
		report_add_error(r, SIM_SOURCE, "no node name given (--node)");
		return 0;
	}
	if ((s = scenario_load(o->scenario, err, sizeof(err))) == NULL) {
		report_add_error(r, SIM_SOURCE, "%s", err);
		return 0;
	}
	if ((n = scenario_node_find(s, node)) == NULL) {
		node_list(s, names, sizeof(names));
		report_add_error(r, SIM_SOURCE, "node \"%s\" is not in %s (nodes: %s)", node,
		    o->scenario, names);
	} else {
		fill_report(s, n, o->now, r);
		if (n->unreachable) {
			report_add_error(r, SIM_SOURCE, "%s is unreachable in %s", node, o->scenario);
			rc = -1;
		}
	}
	scenario_free(s);
	return rc;
}

const struct backend backend_sim = { "sim", collect };
