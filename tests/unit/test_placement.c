/*
 * The placement engine on hand-computed cases: the usable-memory rule, the
 * chip bandwidths, the layer split, and plans on the four-Studio mesh
 * (2 x 512 GB, 2 x 256 GB M3 Ultra) and on a ring: layer sums equal the
 * model's layers, no node over its memory, ranks in link order, hostfile
 * shape, refusals with their reasons.  Models come from data/catalog.json
 * (through TBMESH_TOP, set by tests/run.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "place_fixture.h"

static enum plan_runtime runtime;   /* plan_for's runtime: mlx-lm unless a test says */

/* mesh4-studio; skip lists a pair left uncabled ({-1,-1}: none). */
static void
mesh4(int skip_a, int skip_b)
{
	pf_cluster("studio4");
	pf_add_node("mac1", 512, "Apple M3 Ultra");
	pf_add_node("mac2", 512, "Apple M3 Ultra");
	pf_add_node("mac3", 256, "Apple M3 Ultra");
	pf_add_node("mac4", 256, "Apple M3 Ultra");
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			if (!(a == skip_a && b == skip_b))
				pf_add_link(a, b, 1, 80);
}

static int
plan_for(const char *name, enum plan_strategy st, int exact, char *err, size_t errlen)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	struct place_opts o;

	assert_int_equal(catalog_find(cat, ncat, name, &m, &v, err, errlen), 0);
	place_opts_init(&o);
	o.strategy = st;
	o.exact = exact;
	o.runtime = runtime;
	return place_plan(m, v, in, &o, plan, err, errlen);
}

/* What every plan must satisfy. */
static void
check_plan_shape(const char *model)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	char err[256];
	int64_t weights = 0;

	assert_int_equal(catalog_find(cat, ncat, model, &m, &v, err, sizeof(err)), 0);
	assert_true(plan->n_ranks >= 1);
	assert_true(plan->estimate_tokens_per_second > 0);
	int covered[4096] = { 0 }, sum = 0;
	for (int i = 0; i < plan->n_ranks; i++) {
		const struct plan_rank *r = &plan->ranks[i];
		assert_int_equal(r->rank, i);
		assert_true(r->free_after_bytes >= 0);
		assert_true(r->total_bytes <= r->usable_bytes);
		assert_int_equal(r->total_bytes, r->weights_bytes + r->kv_cache_bytes);
		weights += r->weights_bytes;
		if (plan->strategy == PLAN_PIPELINE) {
			/* every layer on exactly one rank */
			assert_true(r->layer_end > r->layer_start && r->layer_end <= m->layers);
			for (int l = r->layer_start; l < r->layer_end; l++)
				assert_int_equal(covered[l]++, 0);
			sum += r->layer_end - r->layer_start;
		}
	}
	if (plan->strategy == PLAN_PIPELINE)
		assert_int_equal(sum, m->layers);
	if (plan->strategy != PLAN_TENSOR)
		assert_true(weights >= v->bytes);
	/* hostfile: one host per rank, an rdma row of n with a null diagonal */
	for (int i = 0; i < plan->n_ranks; i++) {
		assert_string_equal(plan->hosts[i].ssh, plan->ranks[i].node);
		assert_int_equal(plan->hosts[i].n_rdma[i], 0);
		if (strcmp(plan->backend, "jaccl") == 0)
			for (int j = 0; j < plan->n_ranks; j++)
				if (j != i) {
					assert_int_equal(plan->hosts[i].n_rdma[j], 1);
					assert_true(strncmp(plan->hosts[i].rdma[j][0], "rdma_en", 7) == 0);
				}
	}
}

static void
test_usable_rule(void **state)
{
	struct place_node n = { .memory_bytes = 512 * GIB };

	(void)state;
	assert_int_equal(place_usable_bytes(&n, 8 * GIB), 384 * GIB - 8 * GIB);
	n.gpu_wired_limit_bytes = 500 * GIB;
	assert_int_equal(place_usable_bytes(&n, 8 * GIB), 492 * GIB);
	n.gpu_wired_limit_bytes = 0;
	n.memory_bytes = 36 * GIB;
	assert_int_equal(place_usable_bytes(&n, 0), 24 * GIB);
	n.memory_bytes = 256 * GIB;
	n.reserved_bytes = 100 * GIB;
	assert_int_equal(place_usable_bytes(&n, 8 * GIB), 192 * GIB - 108 * GIB);
	assert_true(place_chip_bandwidth_gbs("Apple M3 Ultra") == 819);
	assert_true(place_chip_bandwidth_gbs("Apple M4 Max") == 546);
	assert_true(place_chip_bandwidth_gbs("Apple M3") == 100);
	assert_true(place_chip_bandwidth_gbs("Apple M2 Ultra") == 800);
	assert_true(place_chip_bandwidth_gbs("Intel Xeon") == 0);
}

static void
test_split_layers(void **state)
{
	int64_t cap4[] = { 2, 2, 1, 1 }, cap3[] = { 100, 1, 1 };
	int c[4];

	(void)state;
	/* 61 x 2/6 = 20.33, 20.33, 10.17, 10.17: floors 60, the one left to the first */
	place_split_layers(61, cap4, 4, c);
	assert_int_equal(c[0], 21);
	assert_int_equal(c[1], 20);
	assert_int_equal(c[2], 10);
	assert_int_equal(c[3], 10);
	/* 2.94, 0.03, 0.03 -> 3, 0, 0 -> at least one each */
	place_split_layers(3, cap3, 3, c);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[2], 1);
}

static void
test_deepseek_4bit_auto(void **state)
{
	char err[512];

	(void)state;
	mesh4(-1, -1);
	assert_int_equal(plan_for("deepseek-v3.1:4bit", PLAN_AUTO, 0, err, sizeof(err)), 0);
	check_plan_shape("deepseek-v3.1:4bit");
	/* the fastest that fits is tensor */
	assert_int_equal(plan->strategy, PLAN_TENSOR);
	assert_string_equal(plan->backend, "jaccl");
	/* the published conversion is 405.9 GB (mlx-community/DeepSeek-V3.1-4bit), more
	 * than one 512 GB Studio's 376 GiB usable: a computed 377.4 GB would have fit */
	assert_true(plan->candidates[0].strategy == PLAN_SINGLE && !plan->candidates[0].fits);
	assert_non_null(strstr(plan->candidates[0].reason, "which has 404 GB usable"));
	assert_true(plan->candidates[1].strategy == PLAN_TENSOR && plan->candidates[1].fits);
	/* mlx-lm's even split cannot spread 61 layers over 2, 3 or 4 nodes */
	assert_true(plan->candidates[2].strategy == PLAN_PIPELINE && !plan->candidates[2].fits);
	assert_non_null(strstr(plan->candidates[2].reason, "cannot split 61 layers"));
	assert_non_null(strstr(plan->why, "fastest"));
	int64_t sum = 0;
	for (int i = 0; i < plan->n_ranks; i++)
		sum += plan->ranks[i].weights_bytes;
	assert_true(sum >= INT64_C(405874409472));
	/* MLX's launcher reads hosts[0].ips[0] alone: rank 0's LAN address */
	assert_int_equal(plan->hosts[0].n_ips, 1);
	assert_string_equal(plan->hosts[0].ips[0], "192.0.2.11");
	assert_string_equal(plan->coordinator, "192.0.2.11:32323");
	assert_non_null(strstr(plan->coordinator_from, "mac1's LAN address (en0, ethernet)"));
	for (int i = 1; i < plan->n_ranks; i++)
		assert_int_equal(plan->hosts[i].n_ips, 0);
	assert_non_null(strstr(plan->launch, "mlx.launch --backend jaccl --hostfile hostfile.json "
	    "-- python3 -m mlx_lm chat --model /Users/Shared/tbmesh/models/deepseek-v3.1-4bit "
	    "--max-kv-size 8192"));
	assert_null(strstr(plan->launch, "--pipeline"));
	assert_int_equal(plan->n_envs, 0);   /* no MLX_METAL_FAST_SYNCH unless asked */
	assert_non_null(strstr(plan->prepare, "hf download mlx-community/DeepSeek-V3.1-4bit"));
	assert_non_null(strstr(plan->copy, "rsync -a /Users/Shared/tbmesh/models/deepseek-v3.1-4bit/"));
}

static void
test_tensor_bytes_by_hand(void **state)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	char err[512];

	(void)state;
	mesh4(-1, -1);
	in->n_nodes = 2;   /* mac1, mac2 and their link */
	in->n_links = 1;
	assert_int_equal(plan_for("llama-3.3-70b:4bit", PLAN_TENSOR, 1, err, sizeof(err)), 0);
	assert_int_equal(catalog_find(cat, ncat, "llama-3.3-70b:4bit", &m, &v, err, sizeof(err)), 0);
	/* embeddings + head: 2 x 128256 x 8192 params at 4.5 bits */
	double bpp = (double)v->bytes / (double)m->total_params;
	int64_t repl = 2 * (int64_t)llround(128256.0 * 8192 * bpp);
	int64_t body = v->bytes - repl;
	assert_int_equal(plan->n_ranks, 2);
	assert_int_equal(plan->ranks[1].weights_bytes, body / 2 + repl);
	assert_int_equal(plan->ranks[0].weights_bytes + plan->ranks[1].weights_bytes, body + 2 * repl);
	/* GQA: each rank holds half the KV cache, 8192 x 327680 bytes in all */
	assert_int_equal(plan->ranks[0].kv_cache_bytes + plan->ranks[1].kv_cache_bytes,
	    (int64_t)8192 * 327680);
	assert_int_equal(plan->ranks[1].kv_cache_bytes, (int64_t)8192 * 327680 / 2);
}

static void
test_kimi_pipeline_and_bf16(void **state)
{
	char err[512];

	(void)state;
	mesh4(-1, -1);
	/* mlx-lm: 61 layers split evenly over 2 or 4 nodes drops layers: refused */
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mlx-lm's pipeline cannot split 61 layers over"));
	/* exo splits by memory: the plan below */
	runtime = PLAN_RT_EXO;
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 0, err, sizeof(err)), 0);
	check_plan_shape("kimi-k2-thinking:4bit");
	assert_string_equal(plan->backend, "jaccl-ring");
	assert_string_equal(plan->launch, "");   /* exo starts it itself */
	assert_int_equal(plan->n_ranks, 2);   /* 562.5 GB: two Studios are enough */
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 1, err, sizeof(err)), 0);
	check_plan_shape("kimi-k2-thinking:4bit");
	assert_int_equal(plan->n_ranks, 4);
	/* the 512 GB nodes get more layers than the 256 GB ones */
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (plan->ranks[i].usable_bytes > plan->ranks[j].usable_bytes)
				assert_true(plan->ranks[i].layer_end - plan->ranks[i].layer_start >
				    plan->ranks[j].layer_end - plan->ranks[j].layer_start);
	/* 2 TB in bf16 cannot fit in 1.2 TB: refused with the shortfall in bytes */
	assert_int_equal(plan_for("kimi-k2-thinking:bf16", PLAN_AUTO, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "pipeline: needs 2000"));
	assert_non_null(strstr(err, "short by "));
	assert_non_null(strstr(err, " bytes ("));
	for (int i = 0; i < plan->n_candidates; i++)
		assert_false(plan->candidates[i].fits);
	runtime = PLAN_RT_MLX_LM;
}

/* mlx-lm's pipeline (glm-4.5, 92 layers): 23 a rank, rank 0 the last ones. */
static void
test_mlx_lm_pipeline_split(void **state)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	char err[512];

	(void)state;
	mesh4(-1, -1);
	assert_int_equal(plan_for("glm-4.5:8bit", PLAN_PIPELINE, 1, err, sizeof(err)), 0);
	check_plan_shape("glm-4.5:8bit");
	assert_int_equal(catalog_find(cat, ncat, "glm-4.5:8bit", &m, &v, err, sizeof(err)), 0);
	assert_int_equal(plan->n_ranks, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(plan->ranks[i].layer_start, (4 - i - 1) * 23);
		assert_int_equal(plan->ranks[i].layer_end, (4 - i) * 23);
	}
	/* every rank holds the embeddings and the output head (two copies: untied) */
	double bpp = (double)v->bytes / (double)m->total_params;
	int64_t repl = 2 * (int64_t)llround((double)m->vocab_size * m->hidden_size * bpp);
	for (int i = 0; i < 4; i++)
		assert_true(plan->ranks[i].weights_bytes > repl);
	assert_non_null(strstr(plan->launch, " --pipeline"));
	/* a runtime that cannot pipeline the model: llama has no PipelineMixin */
	assert_int_equal(plan_for("llama-3.1-405b:4bit", PLAN_PIPELINE, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mlx-lm cannot run llama-3.1-405b pipeline-parallel: "
	    "ml-explore/mlx-lm@d78bf58 (0.32.0) mlx_lm/models/llama.py"));
}

static void
test_ring_order_and_missing_link(void **state)
{
	char err[512];

	(void)state;
	runtime = PLAN_RT_EXO;   /* kimi's 61 layers: exo's split (mlx-lm's cannot) */
	/* a ring mac1 - mac3 - mac2 - mac4 - mac1, no diagonals */
	memset(in, 0, sizeof(*in));
	pf_add_node("mac1", 256, "Apple M3 Ultra");
	pf_add_node("mac2", 256, "Apple M3 Ultra");
	pf_add_node("mac3", 256, "Apple M3 Ultra");
	pf_add_node("mac4", 256, "Apple M3 Ultra");
	pf_add_link(0, 2, 1, 80);
	pf_add_link(2, 1, 1, 80);
	pf_add_link(1, 3, 1, 80);
	pf_add_link(3, 0, 1, 80);
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_AUTO, 0, err, sizeof(err)), 0);
	check_plan_shape("kimi-k2-thinking:4bit");
	assert_int_equal(plan->strategy, PLAN_PIPELINE);
	assert_int_equal(plan->n_ranks, 4);
	assert_string_equal(plan->ranks[0].node, "mac1");
	assert_string_equal(plan->ranks[1].node, "mac3");
	assert_string_equal(plan->ranks[2].node, "mac2");
	assert_string_equal(plan->ranks[3].node, "mac4");
	/* jaccl-ring: devices only towards the two neighbours */
	assert_int_equal(plan->hosts[0].n_rdma[2], 0);
	assert_true(plan->hosts[0].n_rdma[1] == 1 && plan->hosts[0].n_rdma[3] == 1);
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "tensor needs a full RDMA mesh: mac1 to mac2 is missing"));

	/* mesh4 without mac3-mac4, all four nodes asked for */
	mesh4(2, 3);
	assert_int_equal(plan_for("deepseek-v3.1:4bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "tensor needs a full RDMA mesh: mac3 to mac4 is missing");
	/* a link whose RDMA is off names its verdict; pipeline falls back to TCP */
	mesh4(-1, -1);
	for (int i = 0; i < in->n_links; i++)
		in->links[i].rdma_pass = 0, snprintf(in->links[i].problem, 96, "rdma-off");
	assert_int_equal(plan_for("deepseek-v3.1:4bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mac1 to mac2 is rdma-off"));
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 0, err, sizeof(err)), 0);
	assert_string_equal(plan->backend, "ring");
	runtime = PLAN_RT_MLX_LM;
}

static void
test_refusals(void **state)
{
	char err[512];

	(void)state;
	mesh4(-1, -1);
	in->n_nodes = 3;           /* mac1..mac3: 3 does not divide qwen3's 4 KV heads */
	in->n_links = 3;
	assert_int_equal(plan_for("glm-4.5:8bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "divides the 96 attention and 8 KV heads"));
	runtime = PLAN_RT_EXO;     /* exo: the hidden size and the KV heads */
	assert_int_equal(plan_for("qwen3-235b-a22b:8bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exo's tensor needs a node count that divides the hidden "
	    "size 4096 and the 4 KV heads"));
	runtime = PLAN_RT_MLX_LM;  /* mlx-lm has no shard() for qwen3_moe */
	assert_int_equal(plan_for("qwen3-235b-a22b:8bit", PLAN_TENSOR, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mlx-lm cannot run qwen3-235b-a22b tensor-parallel: "
	    "ml-explore/mlx-lm@d78bf58 (0.32.0) mlx_lm/models/qwen3_moe.py: no shard()"));
	/* a node on its own that cannot hold the model: the shortfall is named */
	in->n_nodes = 1;
	in->n_links = 0;
	assert_int_equal(plan_for("qwen3-coder-480b-a35b:8bit", PLAN_SINGLE, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "on mac1, which has 404 GB usable"));
	/* a node asked for that is not ready is named */
	mesh4(-1, -1);
	in->nodes[3].available = 0;
	snprintf(in->nodes[3].unavailable_why, sizeof(in->nodes[3].unavailable_why), "cordoned");
	assert_int_equal(plan_for("llama-3.3-70b:4bit", PLAN_AUTO, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "mac4 was asked for but is cordoned");
	/* a cordoned node takes nothing */
	mesh4(-1, -1);
	for (int i = 0; i < 4; i++)
		in->nodes[i].available = 0;
	assert_int_equal(plan_for("llama-3.3-70b:4bit", PLAN_AUTO, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no node"));
}

/* Mixed macOS builds (a rolling update half done): no RDMA across builds. */
static void
test_mixed_builds(void **state)
{
	char err[512];

	(void)state;
	mesh4(-1, -1);
	in->rollout = 1;
	snprintf(in->nodes[0].os_build, 32, "25D5");
	snprintf(in->nodes[1].os_build, 32, "25C56");
	snprintf(in->nodes[2].os_build, 32, "25D5");
	snprintf(in->nodes[3].os_build, 32, "25C56");
	/* every link passes; still no tensor plan across the two builds */
	assert_int_equal(plan_for("deepseek-v3.1:4bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	/* every pair on different builds is named, not only the first */
	assert_string_equal(err, "tensor needs RDMA between every pair: mac1 runs 25D5, mac2 25C56: "
	    "RDMA peers need matching builds during the rollout; mac1 runs 25D5, mac4 25C56: "
	    "RDMA peers need matching builds during the rollout; mac2 runs 25C56, mac3 25D5: "
	    "RDMA peers need matching builds during the rollout; mac3 runs 25D5, mac4 25C56: "
	    "RDMA peers need matching builds during the rollout");
	runtime = PLAN_RT_EXO;     /* kimi's pipeline below: exo's split */
	/* pipeline over all four: a TCP ring, not jaccl-ring, no RDMA devices */
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 1, err, sizeof(err)), 0);
	check_plan_shape("kimi-k2-thinking:4bit");
	assert_string_equal(plan->backend, "ring");
	/* auto on two 512 GB nodes of different builds: pipeline, and why says so */
	in->n_nodes = 2;
	in->n_links = 1;
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_AUTO, 1, err, sizeof(err)), 0);
	assert_int_equal(plan->strategy, PLAN_PIPELINE);
	assert_string_equal(plan->backend, "ring");
	assert_non_null(strstr(plan->why, "tensor: tensor needs RDMA between every pair: mac1 "
	    "runs 25D5, mac2 25C56: RDMA peers need matching builds during the rollout"));
	/* the same build on both: RDMA again (jaccl ring or tensor) */
	snprintf(in->nodes[1].os_build, 32, "25D5");
	assert_int_equal(plan_for("kimi-k2-thinking:4bit", PLAN_PIPELINE, 1, err, sizeof(err)), 0);
	assert_string_equal(plan->backend, "jaccl-ring");
	/* an unknown build is not a mismatch; outside a rollout the words drop "during" */
	in->rollout = 0;
	in->nodes[1].os_build[0] = '\0';
	assert_int_equal(place_build_skew(in, 0, 1, err, sizeof(err)), 0);
	snprintf(in->nodes[1].os_build, 32, "25C56");
	assert_int_equal(place_build_skew(in, 0, 1, err, sizeof(err)), 1);
	assert_string_equal(err, "mac1 runs 25D5, mac2 25C56: RDMA peers need matching builds");
	runtime = PLAN_RT_MLX_LM;
}

/* Every gap of the mesh is named, with a degraded link's speed. */
static void
test_every_reason(void **state)
{
	char err[1024];

	(void)state;
	mesh4(1, 3);                                /* mac2 -- mac4 missing */
	in->links[1].rdma_pass = 0;                 /* mac1 -- mac3 */
	in->links[1].speed_gbps = 40;
	snprintf(in->links[1].problem, sizeof(in->links[1].problem), "degraded");
	assert_int_equal(plan_for("deepseek-v3.1:4bit", PLAN_TENSOR, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "tensor needs a full RDMA mesh: mac1 to mac3 is degraded "
	    "(40 Gb/s); mac2 to mac4 is missing");
}

/* Two cables between a pair: both devices in rdma[i][j], as MLX reads a list. */
static void
test_two_cables(void **state)
{
	char err[512];

	(void)state;
	mesh4(-1, -1);
	struct place_link *l = &in->links[0];      /* mac1 -- mac2 */
	l->n_extra = 1;
	snprintf(l->extra[0].dev_a, sizeof(l->extra[0].dev_a), "rdma_en7");
	snprintf(l->extra[0].dev_b, sizeof(l->extra[0].dev_b), "rdma_en8");
	snprintf(l->extra[0].ipv4_a, sizeof(l->extra[0].ipv4_a), "169.254.99.1");
	snprintf(l->extra[0].ipv4_b, sizeof(l->extra[0].ipv4_b), "169.254.99.2");
	in->n_nodes = 2;
	in->n_links = 1;
	assert_int_equal(plan_for("llama-3.3-70b:4bit", PLAN_TENSOR, 1, err, sizeof(err)), 0);
	assert_int_equal(plan->hosts[0].n_rdma[1], 2);
	assert_string_equal(plan->hosts[0].rdma[1][0], "rdma_en3");
	assert_string_equal(plan->hosts[0].rdma[1][1], "rdma_en7");
	assert_int_equal(plan->hosts[1].n_rdma[0], 2);
	assert_string_equal(plan->hosts[1].rdma[0][1], "rdma_en8");
	/* through JSON and back: a list in rdma[0][1] */
	char *json = plan_json(plan);
	struct plan *back = calloc(1, sizeof(*back));
	assert_non_null(json);
	assert_non_null(strstr(json, "[\"rdma_en3\",\"rdma_en7\"]"));
	assert_int_equal(plan_json_decode(json, strlen(json), back, err, sizeof(err)), 0);
	assert_int_equal(back->hosts[0].n_rdma[1], 2);
	assert_string_equal(back->hosts[0].rdma[1][1], "rdma_en7");
	assert_string_equal(back->coordinator, plan->coordinator);
	free(back);
	free(json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usable_rule),
		cmocka_unit_test(test_split_layers),
		cmocka_unit_test(test_deepseek_4bit_auto),
		cmocka_unit_test(test_tensor_bytes_by_hand),
		cmocka_unit_test(test_kimi_pipeline_and_bf16),
		cmocka_unit_test(test_ring_order_and_missing_link),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_mixed_builds),
		cmocka_unit_test(test_mlx_lm_pipeline_split),
		cmocka_unit_test(test_every_reason),
		cmocka_unit_test(test_two_cables),
	};
	return cmocka_run_group_tests(tests, pf_setup, pf_teardown);
}
