/*
 * placebench: the placement engine's speed.  Plans every variant of every
 * catalog model (--strategy auto, 8192-token context) on a seven-node
 * cluster (four 512 GB and three 256 GB M3 Ultra, full RDMA mesh, as
 * tests/scenarios/mesh7-studio.json) and on a fleet of 100 seven-node
 * clusters that differ in memory, chips and missing cables.
 *
 * The peer, timed in the same loop on the same plans: encoding each plan as
 * the JSON the API answers with (plan_json, cJSON), the work the controller
 * must do anyway to hand a plan over.  The ratio says how many of those
 * one planning costs.
 *   placebench CATALOG [ROUNDS]
 * Prints "per_model_us=... peer_us=... ratio=..." lines; exit 1 if the
 * seven-node time per model is 1 ms or more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "placement.h"

#define GIB (INT64_C(1) << 30)
#define FLEET 100

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seven nodes; variant v of the fleet changes memory, chips and cables. */
static void
cluster(struct place_input *in, int v)
{
	static const char *chips[] = { "Apple M3 Ultra", "Apple M2 Ultra", "Apple M4 Max" };
	static const int64_t mem[] = { 512, 256, 192, 128, 96 };

	memset(in, 0, sizeof(*in));
	snprintf(in->cluster, sizeof(in->cluster), "studio%d", v);
	for (int i = 0; i < 7; i++) {
		struct place_node *n = &in->nodes[in->n_nodes++];
		snprintf(n->name, sizeof(n->name), "mac%d", i + 1);
		snprintf(n->chip, sizeof(n->chip), "%s", v == 0 ? chips[0] : chips[(v + i) % 3]);
		n->memory_bytes = (v == 0 ? (i < 4 ? 512 : 256) : mem[(v * 7 + i * 3) % 5]) * GIB;
		n->reserved_bytes = v == 0 ? 0 : ((v + i) % 4 == 0 ? 40 * GIB : 0);
		n->available = v == 0 || (v + i) % 11 != 0;
	}
	for (int a = 0; a < 7; a++)
		for (int b = a + 1; b < 7; b++) {
			if (v != 0 && (v + a * 7 + b) % 9 == 0)
				continue;            /* a missing cable */
			struct place_link *l = &in->links[in->n_links++];
			l->a = a;
			l->b = b;
			l->rdma_pass = v == 0 || (v + a + b) % 13 != 0;
			l->ip_ok = 1;
			l->speed_gbps = v != 0 && (a + b + v) % 10 == 0 ? 40 : 80;
			snprintf(l->dev_a, sizeof(l->dev_a), "rdma_en%d", 2 + (b - a + 6) % 7);
			snprintf(l->dev_b, sizeof(l->dev_b), "rdma_en%d", 2 + (a - b + 7) % 7);
			snprintf(l->ipv4_a, sizeof(l->ipv4_a), "169.254.%d.1", a * 10 + b);
			snprintf(l->ipv4_b, sizeof(l->ipv4_b), "169.254.%d.2", a * 10 + b);
			if (!l->rdma_pass)
				snprintf(l->problem, sizeof(l->problem), "rdma-off");
		}
}

struct tally {
	double plan_s, json_s;
	long plans, fits;
};

/* Plan every variant of every model on in, then encode each plan. */
static void
plan_all(const struct catalog_model *cat, int n, const struct place_input *in,
    struct plan *p, struct tally *t)
{
	struct place_opts o;
	char err[1024];

	place_opts_init(&o);
	for (int m = 0; m < n; m++)
		for (int v = 0; v < cat[m].n_variants; v++) {
			double t0 = now_s();
			int rc = place_plan(&cat[m], &cat[m].variants[v], in, &o, p, err,
			    sizeof(err));
			double t1 = now_s();
			char *json = plan_json(p);
			double t2 = now_s();
			if (json == NULL) {
				fprintf(stderr, "out of memory\n");
				exit(1);
			}
			free(json);
			t->plan_s += t1 - t0;
			t->json_s += t2 - t1;
			t->plans++;
			t->fits += rc == 0;
		}
}

static void
report(const char *what, const struct tally *t, long models)
{
	double per = t->plan_s / t->plans * 1e6, peer = t->json_s / t->plans * 1e6;

	printf("%s: %ld plans (%ld fit), per_model_us=%.1f peer_json_us=%.1f ratio=%.2f "
	    "(%.0f plans/s)\n", what, t->plans, t->fits, per, peer, per / peer,
	    t->plans / t->plan_s);
	(void)models;
}

int
main(int argc, char **argv)
{
	struct catalog_model *cat;
	int n, rounds = argc > 2 ? atoi(argv[2]) : 20;
	char err[512];

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: placebench CATALOG [ROUNDS]\n");
		return 2;
	}
	if (catalog_load_file(argv[1], &cat, &n, err, sizeof(err)) == -1) {
		fprintf(stderr, "placebench: %s\n", err);
		return 1;
	}
	struct place_input *in = calloc(1, sizeof(*in));
	struct plan *p = calloc(1, sizeof(*p));
	struct tally seven = { 0 }, fleet = { 0 };
	if (in == NULL || p == NULL)
		return 1;
	cluster(in, 0);
	for (int r = 0; r < rounds; r++)
		plan_all(cat, n, in, p, &seven);
	report("seven nodes", &seven, n);
	double t0 = now_s();
	for (int c = 0; c < FLEET; c++) {
		cluster(in, c + 1);
		plan_all(cat, n, in, p, &fleet);
	}
	double fleet_s = now_s() - t0;
	report("fleet of 100 seven-node clusters", &fleet, n);
	printf("fleet: every variant of %d models on 100 clusters in %.1f ms\n", n,
	    fleet_s * 1e3);
	double per = seven.plan_s / seven.plans;
	printf("goal: under 1000 us per model on seven nodes: %s\n", per < 1e-3 ? "met" : "MISSED");
	free(in);
	free(p);
	free(cat);
	return per < 1e-3 ? 0 : 1;
}
