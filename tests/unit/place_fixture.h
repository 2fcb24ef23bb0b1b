/*
 * What the placement engine's unit tests share (test_placement.c,
 * test_placement_estimate.c, test_mlx_launch.c, test_job_env.c): the
 * catalog of data/catalog.json (through TBMESH_TOP, set by tests/run.sh),
 * the planner's input and plan, and a cluster of M3 Ultras built node by
 * node and cable by cable.  Header-only: each test file includes it once,
 * after <cmocka.h>, and passes pf_setup / pf_teardown to its group.
 */
#ifndef TBMESH_PLACE_FIXTURE_H
#define TBMESH_PLACE_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"

#define GIB (INT64_C(1) << 30)

static struct catalog_model *cat;
static int ncat;
static struct place_input *in;
static struct plan *plan;

static inline int
pf_setup(void **state)
{
	char path[1024], err[512];
	const char *top = getenv("TBMESH_TOP");

	(void)state;
	snprintf(path, sizeof(path), "%s/data/catalog.json", top ? top : ".");
	if (catalog_load_file(path, &cat, &ncat, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	in = calloc(1, sizeof(*in));
	plan = calloc(1, sizeof(*plan));
	return in && plan ? 0 : -1;
}

static inline int
pf_teardown(void **state)
{
	(void)state;
	free(cat);
	free(in);
	free(plan);
	return 0;
}

/* An empty cluster named name. */
static inline void
pf_cluster(const char *name)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->cluster, sizeof(in->cluster), "%s", name);
}

/*
 * The next node: gib GB of memory, on chip, available, its LAN address
 * 192.0.2.(10 + its number) on en0 (Ethernet).
 */
static inline void
pf_add_node(const char *name, int64_t gib, const char *chip)
{
	struct place_node *n = &in->nodes[in->n_nodes++];

	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->chip, sizeof(n->chip), "%s", chip);
	n->memory_bytes = gib * GIB;
	n->available = 1;
	snprintf(n->lan_ipv4, sizeof(n->lan_ipv4), "192.0.2.%d", (10 + in->n_nodes) & 0xff);
	snprintf(n->lan_from, sizeof(n->lan_from), "en0, ethernet");
}

/*
 * A cable between nodes a < b at gbps: RDMA passing or not ("rdma-off"),
 * a's port toward b rdma_en(2 + b) and b's rdma_en(2 + a), addresses
 * 169.254.(10a + b).1 and .2 (a /30 per cable).
 */
static inline void
pf_add_link(int a, int b, int rdma, double gbps)
{
	struct place_link *l = &in->links[in->n_links++];

	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->rdma_pass = rdma;
	l->ip_ok = 1;
	l->speed_gbps = gbps;
	snprintf(l->dev_a, sizeof(l->dev_a), "rdma_en%d", 2 + b);
	snprintf(l->dev_b, sizeof(l->dev_b), "rdma_en%d", 2 + a);
	snprintf(l->ipv4_a, sizeof(l->ipv4_a), "169.254.%d.1", (a * 10 + b) & 0xff);
	snprintf(l->ipv4_b, sizeof(l->ipv4_b), "169.254.%d.2", (a * 10 + b) & 0xff);
	if (!rdma)
		snprintf(l->problem, sizeof(l->problem), "rdma-off");
}

/* Every pair of the nodes so far cabled at gbps. */
static inline void
pf_full_mesh(int rdma, double gbps)
{
	for (int a = 0; a < in->n_nodes; a++)
		for (int b = a + 1; b < in->n_nodes; b++)
			pf_add_link(a, b, rdma, gbps);
}

/* n M3 Ultras of 512 GB named mac1.., cluster "cN", in a full mesh at 80 Gb/s. */
static inline void
pf_mesh(int n, int rdma)
{
	char name[16];

	snprintf(name, sizeof(name), "c%d", n);
	pf_cluster(name);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "mac%d", i + 1);
		pf_add_node(name, 512, "Apple M3 Ultra");
	}
	pf_full_mesh(rdma, 80);
}

/*
 * A model every size 1 to 5 can split, in tensor and pipeline: 60 layers,
 * 120 heads and 60 KV heads, 400 B parameters, one 4-bit variant.
 */
static inline void
pf_test_model(struct catalog_model *m, struct catalog_variant *v)
{
	memset(m, 0, sizeof(*m));
	memset(v, 0, sizeof(*v));
	snprintf(m->name, sizeof(m->name), "test-60");
	snprintf(m->hf_repo, sizeof(m->hf_repo), "example/test-60");
	m->layers = 60;
	m->hidden_size = 7680;
	m->attention_heads = 120;
	m->kv_heads = 60;
	m->head_dim = 64;
	m->kv_cache_bytes_per_token = 60 * 2 * 60 * 64 * 2;
	m->vocab_size = 32000;
	m->total_params = INT64_C(400000000000);
	m->active_params = m->total_params;
	m->tensor_sharding = 1;
	m->runtimes[CATALOG_RT_MLX_LM].known = 1;
	m->runtimes[CATALOG_RT_MLX_LM].tensor = 1;
	m->runtimes[CATALOG_RT_MLX_LM].pipeline = 1;
	snprintf(v->quant, sizeof(v->quant), "4bit");
	v->bits_per_weight = 4.5;
	v->bytes = INT64_C(225000000000);
}

/* The node (input index) rank r of plan runs on. */
static inline int
pf_node_of(int r)
{
	for (int i = 0; i < in->n_nodes; i++)
		if (strcmp(in->nodes[i].name, plan->ranks[r].node) == 0)
			return i;
	fail_msg("rank %d's node %s is not in the cluster", r, plan->ranks[r].node);
	return -1;
}

#endif
