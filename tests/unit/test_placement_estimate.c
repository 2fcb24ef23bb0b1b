/*
 * The decode estimate (controller/engine/placement_estimate.c) against the
 * measurements it was fitted to, each within 15% through place_plan on the
 * cluster measured (M3 Ultras, Thunderbolt 5 RDMA full mesh), each test
 * naming its source; then sanity: more memory bandwidth is never slower, a
 * slower link never faster, the range brackets the estimate and the
 * figures, a batch of two is not read as one token.  Models come from
 * data/catalog.json (through TBMESH_TOP, set by tests/run.sh).
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
#include "placement_estimate.h"
#define TOLERANCE 0.15          /* the bar for each calibration figure */
#define CAL_CONTEXT 1024        /* the sources state none: placement_estimate.c */

/*
 * The first n of Geerling's four Studios (two 512 GB, then two 256 GB M3
 * Ultras), every pair cabled with RDMA at gbps, all on chip.
 */
static void
studios(int n, const char *chip, double gbps)
{
	static const int64_t gib[] = { 512, 512, 256, 256 };
	char name[16];

	snprintf(name, sizeof(name), "studio%d", n);
	pf_cluster(name);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "mac%d", i + 1);
		pf_add_node(name, gib[i], chip);
	}
	pf_full_mesh(1, gbps);
}

/* tokens/s of model on every node of in, as strategy st under the runtime
 * that ran the measurement (exo for Qwen3 235B, mlx-lm otherwise); the plan in
 * plan. */
static double
estimate(const char *model, enum plan_strategy st, int64_t context, int batch)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	struct place_opts o;
	char err[1024];

	assert_int_equal(catalog_find(cat, ncat, model, &m, &v, err, sizeof(err)), 0);
	place_opts_init(&o);
	o.strategy = st;
	o.exact = 1;
	o.context = context;
	o.batch = batch;
	o.runtime = strncmp(model, "qwen3-235b", 10) == 0 ? PLAN_RT_EXO : PLAN_RT_MLX_LM;
	if (place_plan(m, v, in, &o, plan, err, sizeof(err)) != 0)
		fail_msg("%s as %s on %d nodes: %s", model, plan_strategy_str(st), in->n_nodes,
		    err);
	assert_int_equal(plan->strategy, st);
	assert_int_equal(plan->n_ranks, in->n_nodes);
	return plan->estimate_tokens_per_second;
}

/* The estimate for a measured figure, within TOLERANCE of it. */
static void
check_figure(const char *source, const char *model, int nodes, double measured)
{
	studios(nodes, "Apple M3 Ultra", 80);
	double got = estimate(model, nodes == 1 ? PLAN_SINGLE : PLAN_TENSOR, CAL_CONTEXT, 1);
	double err = got / measured - 1;

	print_message("%s, %s on %d M3 Ultra%s: measured %.1f, estimate %.2f (%+.1f%%)\n",
	    source, model, nodes, nodes == 1 ? "" : "s", measured, got, err * 100);
	if (fabs(err) > TOLERANCE)
		fail_msg("%s: %s on %d nodes: estimate %.2f tokens/s is %+.1f%% off the "
		    "measured %.1f (more than %.0f%%)", source, model, nodes, got, err * 100,
		    measured, TOLERANCE * 100);
	/* the range shown with it brackets the measurement */
	assert_true(plan->estimate_low <= measured && measured <= plan->estimate_high);
}

/* Jeff Geerling, "1.5 TB of VRAM on Mac Studio - RDMA over Thunderbolt 5"
 * (jeffgeerling.com, 2025-12-18): exo 1.0, RDMA tensor parallelism,
 * Qwen3 235B 8-bit (exo's README names the quantisation). */
static void
test_geerling_qwen3_235b_one_node(void **state)
{
	(void)state;
	check_figure("Geerling, exo 1.0", "qwen3-235b-a22b:8bit", 1, 19.5);
}

static void
test_geerling_qwen3_235b_two_nodes(void **state)
{
	(void)state;
	check_figure("Geerling, exo 1.0", "qwen3-235b-a22b:8bit", 2, 26.2);
}

static void
test_geerling_qwen3_235b_four_nodes(void **state)
{
	(void)state;
	check_figure("Geerling, exo 1.0", "qwen3-235b-a22b:8bit", 4, 31.9);
}

/* ml-explore/mlx-lm pull request 698 "shard glm" (awni, 2025-12-23): "On 4
 * M3 Ultras I'm getting 24.6 tok/sec, up from 16 or so on a single M3
 * Ultra."  mlx-lm with JACCL; GLM-4.x (glm4_moe, catalog glm-4.5), 8-bit
 * assumed: the quantisation is not stated. */
static void
test_mlx_lm_glm_one_node(void **state)
{
	(void)state;
	check_figure("mlx-lm #698", "glm-4.5:8bit", 1, 16.0);
}

static void
test_mlx_lm_glm_four_nodes(void **state)
{
	(void)state;
	check_figure("mlx-lm #698", "glm-4.5:8bit", 4, 24.6);
}

/* The speed-ups: Qwen3 235B measured 1.34x on two and 1.64x on four. */
static void
test_speedups(void **state)
{
	(void)state;
	studios(1, "Apple M3 Ultra", 80);
	double one = estimate("qwen3-235b-a22b:8bit", PLAN_SINGLE, CAL_CONTEXT, 1);
	studios(4, "Apple M3 Ultra", 80);
	double four = estimate("qwen3-235b-a22b:8bit", PLAN_TENSOR, CAL_CONTEXT, 1);
	assert_true(four / one > 1.64 * (1 - TOLERANCE) && four / one < 1.64 * (1 + TOLERANCE));
}

/* A model of one decode step of Qwen3 235B 8-bit, for the pure functions. */
static void
qwen_step(struct place_est *e, struct place_est_rank *r, int k)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	char err[256];

	assert_int_equal(catalog_find(cat, ncat, "qwen3-235b-a22b:8bit", &m, &v, err,
	    sizeof(err)), 0);
	place_est_init(e, m, v, 1);
	for (int i = 0; i < k; i++) {
		r[i].kv_bytes = 2e8;
		r[i].bw = 819e9;
		r[i].layers = m->layers / k + (i < m->layers % k);
	}
}

/* More memory bandwidth on any rank never makes a step slower. */
static void
test_more_bandwidth_never_slower(void **state)
{
	struct place_est e;
	struct place_est_rank r[4];

	(void)state;
	for (int k = 1; k <= 4; k++) {
		for (int who = 0; who < k; who++) {
			qwen_step(&e, r, k);
			double t0 = place_est_single_s(&e, r), t1 = place_est_tensor_s(&e, r, k, 80),
			    t2 = place_est_pipeline_s(&e, r, k, 80, 29e-6);
			for (double bw = 819e9; bw <= 4e12; bw *= 1.5) {
				r[who].bw = bw;
				double u0 = place_est_single_s(&e, r), u1 = place_est_tensor_s(&e, r,
				    k, 80), u2 = place_est_pipeline_s(&e, r, k, 80, 29e-6);
				assert_true(u0 <= t0 && u1 <= t1 && u2 <= t2);
				t0 = u0, t1 = u1, t2 = u2;
			}
		}
	}
	/* through the planner: M3 Ultras (819 GB/s) against M2 Ultras (800) */
	studios(4, "Apple M2 Ultra", 80);
	double slow = estimate("qwen3-235b-a22b:8bit", PLAN_TENSOR, CAL_CONTEXT, 1);
	studios(4, "Apple M3 Ultra", 80);
	assert_true(estimate("qwen3-235b-a22b:8bit", PLAN_TENSOR, CAL_CONTEXT, 1) > slow);
}

/* A slower link never makes a step faster. */
static void
test_slower_link_never_faster(void **state)
{
	struct place_est e;
	struct place_est_rank r[4];

	(void)state;
	for (int k = 2; k <= 4; k++) {
		qwen_step(&e, r, k);
		double t1 = 0, t2 = 0;
		for (double gbps = 120; gbps >= 1; gbps /= 2) {
			double u1 = place_est_tensor_s(&e, r, k, gbps);
			double u2 = place_est_pipeline_s(&e, r, k, gbps, 29e-6);
			assert_true(u1 >= t1 && u2 >= t2);
			t1 = u1, t2 = u2;
		}
		/* nor a slower hop */
		assert_true(place_est_pipeline_s(&e, r, k, 80, 200e-6) >
		    place_est_pipeline_s(&e, r, k, 80, 29e-6));
	}
	/* through the planner: the four Studios at 80 Gb/s, then at 40, then 10 */
	studios(4, "Apple M3 Ultra", 80);
	double fast = estimate("glm-4.5:8bit", PLAN_TENSOR, CAL_CONTEXT, 1);
	studios(4, "Apple M3 Ultra", 40);
	double mid = estimate("glm-4.5:8bit", PLAN_TENSOR, CAL_CONTEXT, 1);
	studios(4, "Apple M3 Ultra", 10);
	double slow = estimate("glm-4.5:8bit", PLAN_TENSOR, CAL_CONTEXT, 1);
	assert_true(fast >= mid && mid >= slow && fast > slow);
}

/* The plan carries the range and what the estimate was fitted to. */
static void
test_range_in_plan(void **state)
{
	(void)state;
	studios(4, "Apple M3 Ultra", 80);
	double tps = estimate("qwen3-235b-a22b:8bit", PLAN_TENSOR, PLAN_CONTEXT_DEFAULT, 1);
	assert_true(plan->estimate_low > 0 && plan->estimate_low < tps);
	assert_true(plan->estimate_high > tps);
	assert_true(fabs(plan->estimate_low - tps * (1 - place_est_spread)) < 1e-9);
	assert_true(fabs(plan->estimate_high - tps * (1 + place_est_spread)) < 1e-9);
	assert_non_null(strstr(plan->estimate_fitted_to, "Qwen3 235B"));
	assert_non_null(strstr(plan->estimate_fitted_to, "GLM"));
	/* a longer context reads a bigger KV cache: slower */
	double longer = estimate("qwen3-235b-a22b:8bit", PLAN_TENSOR, 131072, 1);
	assert_true(longer < tps);
}

/* A batch of two reads more experts than one token but yields two tokens a
 * step; a dense model reads the same weights for both. */
static void
test_batch(void **state)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	struct place_est one, two;
	char err[256];

	(void)state;
	assert_int_equal(catalog_find(cat, ncat, "qwen3-235b-a22b:8bit", &m, &v, err,
	    sizeof(err)), 0);
	place_est_init(&one, m, v, 1);
	place_est_init(&two, m, v, 2);
	assert_true(fabs(one.read_bytes - (double)v->bytes * 22.0 / 235.0) < 1e3);
	assert_true(two.read_bytes > one.read_bytes && two.read_bytes < 2 * one.read_bytes);
	assert_int_equal(catalog_find(cat, ncat, "llama-3.3-70b:4bit", &m, &v, err,
	    sizeof(err)), 0);
	place_est_init(&one, m, v, 1);
	place_est_init(&two, m, v, 2);
	assert_true(fabs(one.read_bytes - two.read_bytes) < 1e3);
	studios(1, "Apple M3 Ultra", 80);
	double b1 = estimate("qwen3-235b-a22b:8bit", PLAN_SINGLE, CAL_CONTEXT, 1);
	double b2 = estimate("qwen3-235b-a22b:8bit", PLAN_SINGLE, CAL_CONTEXT, 2);
	assert_true(b2 > b1 && b2 < 2 * b1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geerling_qwen3_235b_one_node),
		cmocka_unit_test(test_geerling_qwen3_235b_two_nodes),
		cmocka_unit_test(test_geerling_qwen3_235b_four_nodes),
		cmocka_unit_test(test_mlx_lm_glm_one_node),
		cmocka_unit_test(test_mlx_lm_glm_four_nodes),
		cmocka_unit_test(test_speedups),
		cmocka_unit_test(test_more_bandwidth_never_slower),
		cmocka_unit_test(test_slower_link_never_faster),
		cmocka_unit_test(test_range_in_plan),
		cmocka_unit_test(test_batch),
	};
	return cmocka_run_group_tests(tests, pf_setup, pf_teardown);
}
