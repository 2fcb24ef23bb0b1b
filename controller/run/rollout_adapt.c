/*
 * The runner's adapters for drain and the links check, as this build has
 * them (see rollout_run.h): drain stops and marks the node's placements
 * and waits until the job runner has stopped their jobs, every rank
 * checked gone (placement_rollout_drain, job_hold.h: a job still running
 * when the wait's bound passes fails the drain step, which halts the
 * campaign and leaves the node cordoned with the reason); links go
 * through wiring validation (wmon_check) for a node in a cluster, and
 * through the node's own report otherwise.  The wiring check knows the
 * rollout open on the cluster: an os-skew it expects (one end updated, the
 * other not yet) counts as passing (wiring_link_ok_during_rollout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "inventory.h"
#include "placement_ctrl.h"
#include "report.h"
#include "rollout_run.h"
#include "wiring.h"
#include "wmon.h"

/* The RDMA device of interface ifname in r, or NULL. */
static const struct report_rdma_device *
rdma_dev(const struct report *r, const char *ifname)
{
	for (int i = 0; i < r->rdma.n_devices; i++)
		if (strcmp(r->rdma.devices[i].interface, ifname) == 0)
			return &r->rdma.devices[i];
	return NULL;
}

static int links_from_report(struct ctrl *c, const char *node, const struct report *r,
    char *why, size_t whylen);

/* The wiring verdicts of the links touching node, in its cluster. */
static int
links_from_wiring(struct ctrl *c, const char *node, const struct report *r, char *why,
    size_t whylen)
{
	struct wiring_result *res = NULL;
	struct api_node n;
	char err[300];
	int rc;

	rc = ctrl_node_get(c, node, &n);
	if (rc != 0 || n.cluster[0] == '\0' || c->wmon == NULL)
		return links_from_report(c, node, r, why, whylen);
	if (wmon_check(c->wmon, n.cluster, ctrl_now(), &res, err, sizeof(err)) != 0) {
		snprintf(why, whylen, "wiring check of %s: %s", n.cluster, err);
		return 0;
	}
	rc = wiring_node_links_pass(res, node);
	snprintf(why, whylen, "%s has no expected link in %s", node, n.cluster);
	for (int i = 0; rc != 1 && i < res->n_links; i++) {
		const struct wiring_link *l = &res->links[i];
		if ((strcmp(l->a.node, node) == 0 || strcmp(l->b.node, node) == 0) &&
		    !wiring_link_ok_during_rollout(l)) {
			snprintf(why, whylen, "%s: %s", l->id, wiring_verdict_str(l->verdict));
			break;
		}
	}
	wiring_result_free(res);
	return rc == 1;
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
	.drain = placement_rollout_drain,
	.links_pass = links_from_wiring,
};
