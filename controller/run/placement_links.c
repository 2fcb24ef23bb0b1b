/*
 * The adapter from the wiring engine (wiring.h) to the planner's links
 * (struct place_link): the one place that knows both.
 *
 * The cluster's nodes are checked as a full mesh, whatever the cluster's
 * expected topology, so that every pair of nodes gets a verdict: a pair
 * joined by a passing RDMA link (wiring_pair_link: an expected link that
 * passes, or an unexpected one that is healthy) passes; any other pair
 * carries its link's verdict ("missing", "rdma-off", "degraded", ...) and
 * is usable over TCP (the ring backend) when both ends have an IPv4
 * address on a cable that is there.  Several cables between a pair are
 * one place_link with its extra cables (their devices and addresses).
 */
#include "placement_ctrl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "wiring.h"

static void
copy_sides(struct place_link *l, const struct wiring_side *a, const struct wiring_side *b)
{
	snprintf(l->dev_a, sizeof(l->dev_a), "%s", a->rdma_device);
	snprintf(l->dev_b, sizeof(l->dev_b), "%s", b->rdma_device);
	snprintf(l->ipv4_a, sizeof(l->ipv4_a), "%s", a->ipv4);
	snprintf(l->ipv4_b, sizeof(l->ipv4_b), "%s", b->ipv4);
}

/* The expected link between nodes a and b in r, sides in (a, b) order. */
static const struct wiring_link *
expected(const struct wiring_result *r, const char *a, const char *b, int *swapped)
{
	for (int i = 0; i < r->n_links; i++) {
		const struct wiring_link *l = &r->links[i];
		if (strcmp(l->a.node, a) == 0 && strcmp(l->b.node, b) == 0) {
			*swapped = 0;
			return l;
		}
		if (strcmp(l->a.node, b) == 0 && strcmp(l->b.node, a) == 0) {
			*swapped = 1;
			return l;
		}
	}
	return NULL;
}

/* Describe the pair (a, b) of in from r; 1 when there is something to say. */
static int
describe(const struct wiring_result *r, const struct place_input *in, int a, int b,
    struct place_link *l)
{
	const char *na = in->nodes[a].name, *nb = in->nodes[b].name;
	int swapped = 0;

	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->speed_gbps = NAN;
	struct wiring_pair all[PLAN_CABLES_MAX];
	int n = wiring_pair_links(r, na, nb, all, PLAN_CABLES_MAX);
	if (n > 0) {
		copy_sides(l, all[0].mine, all[0].theirs);
		l->speed_gbps = all[0].link->speed_gbps;
		l->rdma_pass = l->ip_ok = 1;
		for (int k = 1; k < n; k++) {   /* more cables between the two */
			struct place_cable *x = &l->extra[l->n_extra++];
			snprintf(x->dev_a, sizeof(x->dev_a), "%s", all[k].mine->rdma_device);
			snprintf(x->dev_b, sizeof(x->dev_b), "%s", all[k].theirs->rdma_device);
			snprintf(x->ipv4_a, sizeof(x->ipv4_a), "%s", all[k].mine->ipv4);
			snprintf(x->ipv4_b, sizeof(x->ipv4_b), "%s", all[k].theirs->ipv4);
			if (!isnan(all[k].link->speed_gbps) && (isnan(l->speed_gbps) ||
			    all[k].link->speed_gbps < l->speed_gbps))
				l->speed_gbps = all[k].link->speed_gbps;
		}
		return 1;
	}
	const struct wiring_link *w = expected(r, na, nb, &swapped);
	if (w == NULL || w->verdict == WIRING_MISSING)
		return 0;
	if (swapped)
		copy_sides(l, &w->b, &w->a);
	else
		copy_sides(l, &w->a, &w->b);
	l->speed_gbps = w->speed_gbps;
	snprintf(l->problem, sizeof(l->problem), "%s", wiring_verdict_str(w->verdict));
	l->ip_ok = l->ipv4_a[0] && l->ipv4_b[0] && w->verdict != WIRING_UNKNOWN &&
	    w->verdict != WIRING_ONE_SIDED && w->verdict != WIRING_MISWIRED;
	return 1;
}

void
placement_links_fill(struct place_input *in, const struct placement_seen *seen, double now,
    double stale_after)
{
	struct wiring_node *wn = calloc((size_t)in->n_nodes + 1, sizeof(*wn));
	struct wiring_input wi;
	struct wiring_result *r = NULL;
	char err[256];

	in->n_links = 0;
	if (wn == NULL)
		return;
	for (int i = 0; i < in->n_nodes; i++)
		wiring_node_from_report(&wn[i], in->nodes[i].name, seen[i].state, seen[i].report,
		    seen[i].report_at, now, stale_after);
	memset(&wi, 0, sizeof(wi));
	snprintf(wi.cluster, sizeof(wi.cluster), "%s", in->cluster);
	wi.now = now;
	wi.n_nodes = in->n_nodes;
	wi.nodes = wn;
	wi.expect.topology = WIRING_TOPO_MESH;
	if ((r = wiring_check(&wi, err, sizeof(err))) == NULL)
		log_warnx("placement: the wiring of %s could not be checked: %s", in->cluster, err);
	for (int a = 0; r != NULL && a < in->n_nodes; a++)
		for (int b = a + 1; b < in->n_nodes; b++)
			if (describe(r, in, a, b, &in->links[in->n_links]))
				in->n_links++;
	wiring_result_free(r);
	free(wn);
}
