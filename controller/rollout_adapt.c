/*
 * The runner's adapters for drain and the links check, as this build has
 * them (see rollout_run.h).
 */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "rollout_run.h"

static int
drain_nothing(struct ctrl *c, const char *node, char *what, size_t whatlen, char *err,
    size_t errlen)
{
	(void)c;
	(void)err;
	(void)errlen;
	snprintf(what, whatlen, "%s has no placements to drain", node);
	return 0;
}

/* The RDMA device of interface ifname in r, or NULL. */
static const struct report_rdma_device *
rdma_dev(const struct report *r, const char *ifname)
{
	for (int i = 0; i < r->rdma.n_devices; i++)
		if (strcmp(r->rdma.devices[i].interface, ifname) == 0)
			return &r->rdma.devices[i];
	return NULL;
}

static int
links_from_report(struct ctrl *c, const char *node, const struct report *r, char *why,
    size_t whylen)
{
	(void)c;
	if (r->rdma.state != RDMA_STATE_ENABLED) {
		snprintf(why, whylen, "%s reports RDMA %s", node,
		    report_rdma_state_str(r->rdma.state));
		return 0;
	}
	for (int i = 0; i < r->thunderbolt.n_ports; i++) {
		const struct report_port *p = &r->thunderbolt.ports[i];
		if (p->status != PORT_STATUS_CONNECTED || !p->has_peer)
			continue;
		const struct report_rdma_device *d = rdma_dev(r, p->interface);
		if (d == NULL || d->port_state != RDMA_PORT_ACTIVE) {
			snprintf(why, whylen, "receptacle %s (%s): RDMA port not active", p->receptacle,
			    p->interface[0] ? p->interface : "no interface");
			return 0;
		}
		if (p->n_ipv4 <= 0) {
			snprintf(why, whylen, "receptacle %s (%s): no IPv4 address", p->receptacle,
			    p->interface);
			return 0;
		}
	}
	return 1;
}

const struct rollout_adapters rollout_adapters_builtin = {
	.drain = drain_nothing,
	.links_pass = links_from_report,
};
