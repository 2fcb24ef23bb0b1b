/*
 * The adapter from what a cluster reports to the planner's links
 * (struct place_link): the one place that changes when the wiring engine
 * gives the links instead.
 *
 * Each port that sees a Mac at the far end names the far end's domain UUID;
 * the node reporting a port with that domain is the other end.  A link
 * passes for RDMA when both ends see each other, RDMA is enabled on both
 * nodes, each end's interface has an active RDMA device and an IPv4
 * address; it is usable for TCP (the ring backend) when both ends have an
 * IPv4 address.
 */
#include "placement_ctrl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The port of r whose domain is uuid, or NULL. */
static const struct report_port *
port_by_domain(const struct report *r, const char *uuid)
{
	for (int i = 0; r != NULL && i < r->thunderbolt.n_ports; i++)
		if (r->thunderbolt.ports[i].domain_uuid[0] &&
		    strcmp(r->thunderbolt.ports[i].domain_uuid, uuid) == 0)
			return &r->thunderbolt.ports[i];
	return NULL;
}

/* The active RDMA device of r on interface ifname, or NULL. */
static const struct report_rdma_device *
device_on(const struct report *r, const char *ifname)
{
	if (r->rdma.state != RDMA_STATE_ENABLED)
		return NULL;
	for (int i = 0; i < r->rdma.n_devices; i++)
		if (strcmp(r->rdma.devices[i].interface, ifname) == 0)
			return &r->rdma.devices[i];
	return NULL;
}

/* Describe the link a-b seen from port pa of a and pb of b. */
static void
describe(struct place_link *l, const struct report *ra, const struct report_port *pa,
    const struct report *rb, const struct report_port *pb)
{
	const struct report_rdma_device *da = device_on(ra, pa->interface);
	const struct report_rdma_device *db = device_on(rb, pb->interface);
	int both_see = pb->has_peer && strcmp(pb->peer.domain_uuid, pa->domain_uuid) == 0;

	snprintf(l->ipv4_a, sizeof(l->ipv4_a), "%s", pa->n_ipv4 > 0 ? pa->ipv4[0] : "");
	snprintf(l->ipv4_b, sizeof(l->ipv4_b), "%s", pb->n_ipv4 > 0 ? pb->ipv4[0] : "");
	snprintf(l->dev_a, sizeof(l->dev_a), "%.31s", da ? da->name : "");
	snprintf(l->dev_b, sizeof(l->dev_b), "%.31s", db ? db->name : "");
	l->speed_gbps = !isnan(pa->speed_gbps) ? pa->speed_gbps : pb->speed_gbps;
	l->ip_ok = both_see && l->ipv4_a[0] && l->ipv4_b[0];
	const char *problem = !both_see ? "one-sided" :
	    da == NULL || db == NULL ? "rdma-off" :
	    da->port_state != RDMA_PORT_ACTIVE || db->port_state != RDMA_PORT_ACTIVE ?
	    "port-down" : !l->ip_ok ? "no-ipv4" : "";
	snprintf(l->problem, sizeof(l->problem), "%s", problem);
	l->rdma_pass = problem[0] == '\0';
}

/* The link between nodes a and b (a < b), if either end sees the other. */
static int
pair_link(const struct report *ra, const struct report *rb, struct place_link *l)
{
	for (int i = 0; i < ra->thunderbolt.n_ports; i++) {
		const struct report_port *pa = &ra->thunderbolt.ports[i];
		const struct report_port *pb;
		if (!pa->has_peer || (pb = port_by_domain(rb, pa->peer.domain_uuid)) == NULL)
			continue;
		describe(l, ra, pa, rb, pb);
		if (l->rdma_pass)
			return 1;        /* a second cable may be worse: keep the best */
	}
	for (int i = 0; i < rb->thunderbolt.n_ports; i++) {
		const struct report_port *pb = &rb->thunderbolt.ports[i];
		const struct report_port *pa;
		if (!pb->has_peer || (pa = port_by_domain(ra, pb->peer.domain_uuid)) == NULL)
			continue;
		describe(l, ra, pa, rb, pb);
		return 1;
	}
	return l->problem[0] != '\0';
}

void
placement_links_fill(struct place_input *in, const struct placement_seen *seen, double now,
    double stale_after)
{
	const struct report *reports[PLACE_NODES_MAX];

	for (int i = 0; i < in->n_nodes; i++)
		reports[i] = seen[i].report;
	(void)now;
	(void)stale_after;
	in->n_links = 0;
	for (int a = 0; a < in->n_nodes; a++)
		for (int b = a + 1; b < in->n_nodes; b++) {
			struct place_link *l = &in->links[in->n_links];
			memset(l, 0, sizeof(*l));
			l->a = a;
			l->b = b;
			l->speed_gbps = NAN;
			if (reports[a] == NULL || reports[b] == NULL)
				continue;
			if (pair_link(reports[a], reports[b], l))
				in->n_links++;
		}
}
