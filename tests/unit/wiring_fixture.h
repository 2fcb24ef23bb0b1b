/*
 * Test helper for the wiring engine's unit tests: every node of a scenario
 * (tests/scenarios, found through TBMESH_TOP) collected by the real sim
 * backend and turned into wiring nodes, so the engine sees the reports an
 * agent would send.  Header-only: each test file includes it once, after
 * <cmocka.h>.
 */
#ifndef TBMESH_WIRING_FIXTURE_H
#define TBMESH_WIRING_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "scenario.h"
#include "wiring.h"

#define FX_NOW 1767225600.0        /* 2026-01-01 */
#define FX_STALE 90.0

struct fx_cluster {
	char cluster[64];
	int n;
	struct wiring_node nodes[SCENARIO_NODES_MAX];
	struct report reports[SCENARIO_NODES_MAX];
	int have[SCENARIO_NODES_MAX];
	struct scenario *s;
};

static inline const char *
fx_path(const char *file, char *buf, size_t len)
{
	const char *top = getenv("TBMESH_TOP");

	snprintf(buf, len, "%s/tests/scenarios/%s", top != NULL ? top : ".", file);
	return buf;
}

/* Re-derive the wiring nodes from the (possibly edited) reports. */
static inline void
fx_refresh(struct fx_cluster *c)
{
	for (int i = 0; i < c->n; i++)
		wiring_node_from_report(&c->nodes[i], c->s->nodes[i].name, NODE_READY,
		    c->have[i] ? &c->reports[i] : NULL, FX_NOW, FX_NOW, FX_STALE);
}

static inline struct fx_cluster *
fx_load(const char *file)
{
	struct fx_cluster *c = calloc(1, sizeof(*c));
	char path[4096], err[512];

	if (c == NULL)
		return NULL;
	c->s = scenario_load(fx_path(file, path, sizeof(path)), err, sizeof(err));
	if (c->s == NULL) {
		fprintf(stderr, "%s: %s\n", file, err);
		free(c);
		return NULL;
	}
	snprintf(c->cluster, sizeof(c->cluster), "%s", c->s->cluster);
	c->n = c->s->n_nodes;
	for (int i = 0; i < c->n; i++) {
		struct collect_opts o = { .now = FX_NOW, .node = c->s->nodes[i].name,
			.scenario = path };

		c->have[i] = collector_run(&backend_sim, &o, &c->reports[i]) == 0;
	}
	fx_refresh(c);
	return c;
}

static inline void
fx_free(struct fx_cluster *c)
{
	if (c == NULL)
		return;
	scenario_free(c->s);
	free(c);
}

static inline struct wiring_result *
fx_check(const struct fx_cluster *c, enum wiring_topology t,
    const struct wiring_plan_link *plan, int n_plan)
{
	struct wiring_input in;
	char err[256];

	memset(&in, 0, sizeof(in));
	snprintf(in.cluster, sizeof(in.cluster), "%s", c->cluster);
	in.now = FX_NOW;
	in.n_nodes = c->n;
	in.nodes = c->nodes;
	in.expect.topology = t;
	in.expect.links = plan;
	in.expect.n_links = n_plan;
	return wiring_check(&in, err, sizeof(err));
}

/* The expected link joining nodes a and b, or NULL. */
__attribute__((noinline, unused)) static const struct wiring_link *
fx_link(const struct wiring_result *r, const char *a, const char *b)
{
	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];

		if ((strcmp(l->a.node, a) == 0 && strcmp(l->b.node, b) == 0) ||
		    (strcmp(l->a.node, b) == 0 && strcmp(l->b.node, a) == 0))
			return l;
	}
	return NULL;
}

/* The index of the scenario's node called name (the test fails without one). */
static inline int
fx_node_of(const struct fx_cluster *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->s->nodes[i].name, name) == 0)
			return i;
	fail_msg("no node %s", name);
	return -1;
}

/* How many of r's expected links have verdict v. */
static inline int
fx_count_verdict(const struct wiring_result *r, enum wiring_verdict v)
{
	int n = 0;

	for (int k = 0; k < r->n_links; k++)
		n += r->links[k].verdict == v;
	return n;
}

/* The port of node i with receptacle r (in its report). */
static inline struct report_port *
fx_port(struct fx_cluster *c, int i, const char *r)
{
	for (int p = 0; p < c->reports[i].thunderbolt.n_ports; p++)
		if (strcmp(c->reports[i].thunderbolt.ports[p].receptacle, r) == 0)
			return &c->reports[i].thunderbolt.ports[p];
	return NULL;
}

#endif
