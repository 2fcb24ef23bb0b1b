/*
 * The wiring check as a whole: turn a report into the engine's input, match
 * the expected links against the observed graph, judge each, collect the
 * cables nobody expected, and conclude.  Pure: no I/O, no clock.
 */
#include "wiring_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
wiring_scopy(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

void
wiring_sb_init(struct wiring_sb *b, char *buf, size_t n)
{
	b->p = buf;
	b->n = n;
	b->len = 0;
	buf[0] = '\0';
}

void
wiring_sb_putn(struct wiring_sb *b, const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	if (b->len + 1 >= b->n)
		return;
	if (len > b->n - 1 - b->len)
		len = b->n - 1 - b->len;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void
wiring_sb_cat(struct wiring_sb *b, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, b);
	while ((s = va_arg(ap, const char *)) != NULL)
		wiring_sb_putn(b, s, (size_t)-1);
	va_end(ap);
}

void
wiring_sb_num(struct wiring_sb *b, double v)
{
	char tmp[32], *q = tmp + sizeof(tmp) - 1;
	long long i;

	/* range first: converting a NaN or a huge double to an integer is undefined */
	if (!(v >= 0 && v <= 1e9) || (double)(i = (long long)v) != v) {
		snprintf(tmp, sizeof(tmp), "%g", v);
		wiring_sb_putn(b, tmp, sizeof(tmp));
		return;
	}
	*q = '\0';
	do
		*--q = (char)('0' + i % 10);
	while ((i /= 10) > 0);
	wiring_sb_putn(b, q, sizeof(tmp));
}

static void
port_from_report(struct wiring_port *wp, const struct report_port *rp)
{
	if (wiring_receptacle_norm(rp->receptacle, wp->receptacle, sizeof(wp->receptacle)) < 0)
		wiring_scopy(wp->receptacle, sizeof(wp->receptacle), rp->receptacle);
	wiring_scopy(wp->domain_uuid, sizeof(wp->domain_uuid), rp->domain_uuid);
	wp->status = rp->status;
	wp->speed_gbps = rp->speed_gbps;
	wp->max_speed_gbps = rp->max_speed_gbps;
	wiring_scopy(wp->interface, sizeof(wp->interface), rp->interface);
	wp->n_ipv4 = rp->n_ipv4;
	wp->ipv4[0] = '\0';
	if (rp->n_ipv4 > 0)
		wiring_scopy(wp->ipv4, sizeof(wp->ipv4), rp->ipv4[0]);
	wp->has_peer = rp->has_peer && rp->peer.domain_uuid[0] != '\0';
	wp->peer_uuid[0] = '\0';
	wp->peer_rdma_service = TRI_NULL;
	wp->via_hub = TRI_NULL;
	wp->hub[0] = '\0';
	if (wp->has_peer) {
		wiring_scopy(wp->peer_uuid, sizeof(wp->peer_uuid), rp->peer.domain_uuid);
		wp->peer_rdma_service = rp->peer.rdma_service;
		/* a Mac behind a dock or hub on this port (via-hub) */
		wp->via_hub = rp->via_hub;
		if (rp->via_hub == TRI_TRUE)
			wiring_scopy(wp->hub, sizeof(wp->hub), rp->hub);
	}
}

/* How many bridge members are Thunderbolt interfaces (-1 unknown). */
static int
bridge_tb_members(const struct report *r)
{
	const struct report_bridge *br = &r->thunderbolt.bridge;
	int k = 0;

	if (br->n_members < 0)
		return -1;
	for (int m = 0; m < br->n_members; m++)
		for (int p = 0; p < r->thunderbolt.n_ports; p++)
			if (r->thunderbolt.ports[p].interface[0] &&
			    strcmp(br->members[m], r->thunderbolt.ports[p].interface) == 0) {
				k++;
				break;
			}
	return k;
}

/*
 * How much older than the report its Thunderbolt and RDMA facts are: an
 * agent reads each source on its own cadence, and each section says when
 * (report_section_time()).  Both times are the agent's clock, so the
 * difference holds whatever the controller's clock says.
 */
double
wiring_report_facts_age(const struct report *r)
{
	double tb = report_section_time(r, r->thunderbolt.collected_at);
	double rd = report_section_time(r, r->rdma.collected_at);
	double oldest = isnan(tb) || (!isnan(rd) && rd < tb) ? rd : tb;
	double age = r->collected_at - oldest;

	return isnan(age) || age < 0 ? 0 : age;
}

void
wiring_node_freshen(struct wiring_node *n, double report_at, double now, double stale_after)
{
	int late;

	n->report_at = report_at;
	n->facts_stale = 0;
	if (n->freshness == WIRING_REPORT_NONE)
		return;
	late = n->state == NODE_UNREACHABLE || isnan(report_at) ||
	    now - report_at > stale_after;
	n->facts_stale = !late &&
	    now - (report_at - n->facts_age) > stale_after + WIRING_FACTS_GRACE;
	n->freshness = late || n->facts_stale ? WIRING_REPORT_STALE : WIRING_REPORT_FRESH;
}

void
wiring_node_from_report(struct wiring_node *n, const char *name, enum node_state state,
    const struct report *r, double report_at, double now, double stale_after)
{
	memset(n, 0, sizeof(*n));
	wiring_scopy(n->name, sizeof(n->name), name);
	n->state = state;
	n->report_at = r ? report_at : NAN;
	n->rdma = RDMA_STATE_UNKNOWN;
	n->n_ports = -1;
	n->n_devices = -1;
	n->bridge_active = TRI_NULL;
	n->bridge_tb_members = -1;
	if (r == NULL) {
		n->freshness = WIRING_REPORT_NONE;
		return;
	}
	n->freshness = WIRING_REPORT_STALE;
	n->facts_age = wiring_report_facts_age(r);
	wiring_node_freshen(n, report_at, now, stale_after);
	wiring_scopy(n->hostname, sizeof(n->hostname), r->node.hostname);
	wiring_scopy(n->os_build, sizeof(n->os_build), r->node.os_build);
	wiring_scopy(n->machine_name, sizeof(n->machine_name), r->node.machine_name);
	n->rdma = r->rdma.state;
	n->n_ports = r->thunderbolt.n_ports;
	for (int p = 0; p < r->thunderbolt.n_ports && p < WIRING_PORTS_MAX; p++)
		port_from_report(&n->ports[p], &r->thunderbolt.ports[p]);
	n->n_devices = r->rdma.n_devices;
	for (int d = 0; d < r->rdma.n_devices && d < WIRING_DEVICES_MAX; d++) {
		const struct report_rdma_device *rd = &r->rdma.devices[d];

		wiring_scopy(n->devices[d].name, sizeof(n->devices[d].name), rd->name);
		wiring_scopy(n->devices[d].interface, sizeof(n->devices[d].interface), rd->interface);
		n->devices[d].port_state = rd->port_state;
		n->devices[d].ipv4_gid = rd->ipv4_gid;
	}
	n->bridge_active = r->thunderbolt.bridge.active;
	n->bridge_tb_members = bridge_tb_members(r);
}

/* Does port (i, p) fit the wanted end (node i, receptacle want; "" any)? */
static int
end_fits(const struct wiring_graph *g, int i, int p, int wi, const char *want)
{
	return i == wi && (want[0] == '\0' || strcmp(g->nodes[i].ports[p].receptacle, want) == 0);
}

static int
edge_fits(const struct wiring_graph *g, const struct wiring_edge *e, const struct wiring_want *w)
{
	if (e->bi < 0)
		return 0;
	return (end_fits(g, e->ai, e->ap, w->ai, w->ar) && end_fits(g, e->bi, e->bp, w->bi, w->br)) ||
	    (end_fits(g, e->ai, e->ap, w->bi, w->br) && end_fits(g, e->bi, e->bp, w->ai, w->ar));
}

/*
 * Is a cable with problems a healthier than one with problems b?  Problems
 * are ordered by how serious they are (the lowest verdict first), so the
 * bitmasks cannot be compared as numbers: a one-sided cable (a low bit) is
 * worse than a degraded one (a high bit).  None beats any; then the one
 * whose most serious problem is the least serious; then fewer problems.
 */
static int
healthier(unsigned a, unsigned b)
{
	enum wiring_verdict fa = wiring_first_problem(a), fb = wiring_first_problem(b);

	if (a == 0 || b == 0)
		return a == 0 && b != 0;
	if (fa != fb)
		return fa > fb;
	return __builtin_popcount(a) < __builtin_popcount(b);
}

/* An unused edge fitting w exactly, the healthiest of them. */
static struct wiring_edge *
find_exact(struct wiring_graph *g, const struct wiring_want *w)
{
	struct wiring_edge *best = NULL;
	unsigned best_bits = 0;

	if (w->ai < 0 || w->bi < 0)
		return NULL;
	for (int k = 0; k < g->n_edges; k++) {
		struct wiring_edge *e = &g->edges[k];
		unsigned bits;

		if (e->used || !edge_fits(g, e, w))
			continue;
		bits = wiring_edge_problems(g, e);
		if (best == NULL || healthier(bits, best_bits)) {
			best = e;
			best_bits = bits;
		}
	}
	return best;
}

/* An unused edge between the wanted nodes, on any ports. */
static struct wiring_edge *
find_between(struct wiring_graph *g, const struct wiring_want *w)
{
	struct wiring_want any = *w;

	any.ar = "";
	any.br = "";
	return find_exact(g, &any);
}

/* The edge on node i's receptacle r ("" or absent: none), if unused. */
static struct wiring_edge *
edge_on(struct wiring_graph *g, int i, const char *r)
{
	int p, k;

	if (i < 0 || r[0] == '\0' || (p = wiring_graph_port(g, i, r)) < 0)
		return NULL;
	k = g->port_edge[i][p];
	return k >= 0 && !g->edges[k].used ? &g->edges[k] : NULL;
}

static void
want_init(const struct wiring_graph *g, const struct wiring_plan_link *pl,
    struct wiring_want *w)
{
	w->an = pl->a.node;
	w->bn = pl->b.node;
	w->ar = pl->a.receptacle;
	w->br = pl->b.receptacle;
	w->ai = wiring_graph_node(g, w->an);
	w->bi = wiring_graph_node(g, w->bn);
}

/* The expected links as plan links (mesh and ring have no receptacles). */
static struct wiring_plan_link *
expected_links(const struct wiring_input *in, int *n)
{
	int nn = in->n_nodes, cap, k = 0;
	struct wiring_plan_link *v;

	if (in->expect.topology == WIRING_TOPO_PLAN) {
		cap = in->expect.n_links;
		v = calloc(cap > 0 ? (size_t)cap : 1, sizeof(*v));
		if (v && cap > 0)
			memcpy(v, in->expect.links, (size_t)cap * sizeof(*v));
		*n = cap;
		return v;
	}
	cap = nn * (nn - 1) / 2 + 1;
	if ((v = calloc((size_t)cap, sizeof(*v))) == NULL)
		return NULL;
	for (int i = 0; i < nn; i++)
		for (int j = i + 1; j < nn; j++) {
			int ring_pair = j == i + 1 || (i == 0 && j == nn - 1 && nn > 2);

			if (in->expect.topology == WIRING_TOPO_RING && !ring_pair)
				continue;
			wiring_scopy(v[k].a.node, sizeof(v[k].a.node), in->nodes[i].name);
			wiring_scopy(v[k].b.node, sizeof(v[k].b.node), in->nodes[j].name);
			k++;
		}
	*n = k;
	return v;
}

/*
 * The edge on node i's receptacle r, claimed for one link only.  It stays
 * unmatched: it is listed as unexpected, and what it joins still counts.
 */
static struct wiring_edge *
claim_on(struct wiring_graph *g, int i, const char *r)
{
	struct wiring_edge *e = edge_on(g, i, r);

	if (e == NULL || e->claimed)
		return NULL;
	e->claimed = 1;
	return e;
}

/*
 * First pass: exact matches; second: a cable between the two nodes on
 * other ports; third: the cables on the planned ports that go elsewhere.
 * Each cable is claimed by one link at most, so no two links give
 * contradictory fixes for it.
 */
static void
judge_all(struct wiring_graph *g, const struct wiring_plan_link *pl, int n,
    struct wiring_link *links)
{
	struct wiring_edge **found = calloc((size_t)(n > 0 ? n : 1), sizeof(*found));
	struct wiring_want w;

	for (int k = 0; found && k < n; k++) {
		want_init(g, &pl[k], &w);
		if ((found[k] = find_exact(g, &w)) != NULL)
			found[k]->used = 1;
	}
	for (int k = 0; found && k < n; k++) {
		want_init(g, &pl[k], &w);
		if (found[k] == NULL && (found[k] = find_between(g, &w)) != NULL)
			found[k]->used = 1;
	}
	for (int k = 0; found && k < n; k++) {
		struct wiring_edge *oa = NULL, *ob = NULL;

		want_init(g, &pl[k], &w);
		if (found[k] == NULL) {
			oa = claim_on(g, w.ai, w.ar);
			ob = claim_on(g, w.bi, w.br);
		}
		wiring_judge(g, &w, found[k], oa, ob, &links[k]);
	}
	free(found);
}

static int
collect_unexpected(struct wiring_graph *g, struct wiring_result *r)
{
	int n = 0;

	for (int k = 0; k < g->n_edges; k++)
		n += !g->edges[k].used;
	r->unexpected = calloc((size_t)(n > 0 ? n : 1), sizeof(*r->unexpected));
	if (r->unexpected == NULL)
		return -1;
	for (int k = 0; k < g->n_edges; k++) {
		struct wiring_edge *e = &g->edges[k];
		struct wiring_link *l;

		if (e->used)
			continue;
		l = &r->unexpected[r->n_unexpected++];
		wiring_unexpected_fix(g, e, l);
	}
	return 0;
}

static struct wiring_result *
result_new(const struct wiring_input *in, int n_links)
{
	struct wiring_result *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	wiring_scopy(r->cluster, sizeof(r->cluster), in->cluster);
	r->topology = in->expect.topology;
	r->checked_at = in->now;
	r->nodes = calloc((size_t)(in->n_nodes > 0 ? in->n_nodes : 1), sizeof(*r->nodes));
	r->links = calloc((size_t)(n_links > 0 ? n_links : 1), sizeof(*r->links));
	if (r->nodes == NULL || r->links == NULL) {
		wiring_result_free(r);
		return NULL;
	}
	r->n_nodes = in->n_nodes;
	for (int i = 0; i < in->n_nodes; i++)
		wiring_scopy(r->nodes[i], sizeof(r->nodes[i]), in->nodes[i].name);
	r->n_links = n_links;
	return r;
}

struct wiring_result *
wiring_check(const struct wiring_input *in, char *err, size_t errlen)
{
	struct wiring_graph *g = NULL;
	struct wiring_plan_link *pl = NULL;
	struct wiring_result *r = NULL;
	int n_links = 0;

	if (in->n_nodes < 0 || in->n_nodes > WIRING_NODES_MAX) {
		snprintf(err, errlen, "a cluster has at most %d nodes, not %d", WIRING_NODES_MAX,
		    in->n_nodes);
		return NULL;
	}
	if ((g = malloc(sizeof(*g))) == NULL || (pl = expected_links(in, &n_links)) == NULL ||
	    (r = result_new(in, n_links)) == NULL)
		goto fail;
	wiring_graph_build(g, in->nodes, in->n_nodes);
	g->cluster = in->cluster;
	judge_all(g, pl, n_links, r->links);
	if (collect_unexpected(g, r) < 0 || wiring_conclude(r, g) < 0)
		goto fail;
	free(pl);
	free(g);
	return r;
fail:
	snprintf(err, errlen, "out of memory");
	wiring_result_free(r);
	free(pl);
	free(g);
	return NULL;
}
