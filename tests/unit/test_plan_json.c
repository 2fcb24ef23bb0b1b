/*
 * Plans and plan requests as JSON (proto/plan_json.c): a plan made by the
 * engine survives encode/decode; the hostfile has MLX's keys and nulls;
 * bad requests are refused naming the field.  And tbctl's side: the place
 * command's arguments into a request, the plan printed for people.
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

#include "ctl.h"
#include "placement.h"
#include "plan.h"

#define GIB (INT64_C(1) << 30)

/* A plan of model on three Studios (kimi's pipeline under exo: 61 layers). */
static struct plan *
plan_of(const char *model, enum plan_strategy st, enum plan_runtime rt)
{
	struct catalog_model *cat;
	const struct catalog_model *m;
	const struct catalog_variant *v;
	struct place_opts o;
	char path[1024], err[512];
	int n;
	const char *top = getenv("TBMESH_TOP");
	struct place_input *in = calloc(1, sizeof(*in));
	struct plan *p = calloc(1, sizeof(*p));

	snprintf(path, sizeof(path), "%s/data/catalog.json", top ? top : ".");
	assert_int_equal(catalog_load_file(path, &cat, &n, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++) {
		struct place_node *nd = &in->nodes[in->n_nodes++];
		snprintf(nd->name, sizeof(nd->name), "mac%d", i + 1);
		snprintf(nd->chip, sizeof(nd->chip), "Apple M3 Ultra");
		nd->memory_bytes = 256 * GIB;
		nd->available = 1;
		snprintf(nd->lan_ipv4, sizeof(nd->lan_ipv4), "192.0.2.%d", 11 + i);
		snprintf(nd->lan_from, sizeof(nd->lan_from), "en0, ethernet");
	}
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++) {
			struct place_link *l = &in->links[in->n_links++];
			l->a = a, l->b = b, l->rdma_pass = 1, l->ip_ok = 1, l->speed_gbps = 80;
			snprintf(l->dev_a, sizeof(l->dev_a), "rdma_en%d", b + 2);
			snprintf(l->dev_b, sizeof(l->dev_b), "rdma_en%d", a + 2);
			snprintf(l->ipv4_a, sizeof(l->ipv4_a), "169.254.%d.1", a * 3 + b);
			snprintf(l->ipv4_b, sizeof(l->ipv4_b), "169.254.%d.2", a * 3 + b);
		}
	snprintf(in->cluster, sizeof(in->cluster), "lab");
	assert_int_equal(catalog_find(cat, n, model, &m, &v, err, sizeof(err)), 0);
	place_opts_init(&o);
	o.strategy = st;
	o.runtime = rt;
	assert_int_equal(place_plan(m, v, in, &o, p, err, sizeof(err)), 0);
	free(in);
	free(cat);
	return p;
}

static struct plan *
make_plan(void)
{
	/* 61 layers over 3: exo's split (mlx-lm's cannot) */
	return plan_of("kimi-k2-thinking:4bit", PLAN_PIPELINE, PLAN_RT_EXO);
}

static void
test_roundtrip(void **state)
{
	struct plan *p = make_plan(), *q = calloc(1, sizeof(*q));
	char err[256];

	(void)state;
	p->id = 7;
	p->state = PLAN_DEGRADED;
	snprintf(p->reason, sizeof(p->reason), "mac2 is unreachable");
	p->created_at = 1763782801.5;
	char *json = plan_json(p);
	assert_int_equal(plan_json_decode(json, strlen(json), q, err, sizeof(err)), 0);
	assert_int_equal(q->id, 7);
	assert_int_equal(q->state, PLAN_DEGRADED);
	assert_string_equal(q->reason, "mac2 is unreachable");
	assert_int_equal(q->n_ranks, p->n_ranks);
	assert_memory_equal(q->ranks, p->ranks, sizeof(p->ranks[0]) * (size_t)p->n_ranks);
	for (int i = 0; i < p->n_ranks; i++)
		assert_memory_equal(&q->hosts[i], &p->hosts[i], sizeof(p->hosts[i]));
	assert_string_equal(q->launch, p->launch);
	assert_int_equal(q->n_candidates, 3);
	free(json);
	/* the hostfile alone: MLX's keys, null diagonal */
	json = plan_json_hostfile(p);
	assert_non_null(strstr(json, "\"backend\":\t\"jaccl-ring\""));
	assert_non_null(strstr(json, "\"rdma\":\t[null, \"rdma_en3\", \"rdma_en4\"]"));
	free(json);
	free(p);
	free(q);
}

/* The estimate's range and what it was fitted to survive encode/decode; a
 * plan stored before them reads as 0-0 and ""; a range upside down is refused. */
static void
test_estimate_roundtrip(void **state)
{
	struct plan *p = make_plan(), *q = calloc(1, sizeof(*q));
	char err[256];

	(void)state;
	assert_true(p->estimate_low > 0);
	assert_true(p->estimate_low < p->estimate_tokens_per_second);
	assert_true(p->estimate_high > p->estimate_tokens_per_second);
	assert_true(p->estimate_fitted_to[0] != '\0');
	char *json = plan_json(p);
	assert_int_equal(plan_json_decode(json, strlen(json), q, err, sizeof(err)), 0);
	assert_true(fabs(q->estimate_tokens_per_second - p->estimate_tokens_per_second) < 0.006);
	assert_true(fabs(q->estimate_low - p->estimate_low) < 0.006);
	assert_true(fabs(q->estimate_high - p->estimate_high) < 0.006);
	assert_string_equal(q->estimate_fitted_to, p->estimate_fitted_to);
	free(json);
	/* without the fields */
	p->estimate_low = p->estimate_high = 0;
	p->estimate_fitted_to[0] = '\0';
	json = plan_json(p);
	char *at = strstr(json, ",\"estimate_low\":0,\"estimate_high\":0,\"estimate_fitted_to\":\"\"");
	assert_non_null(at);
	memmove(at, at + strlen(",\"estimate_low\":0,\"estimate_high\":0,\"estimate_fitted_to\":\"\""),
	    strlen(at) - strlen(",\"estimate_low\":0,\"estimate_high\":0,\"estimate_fitted_to\":\"\"") + 1);
	assert_null(strstr(json, "estimate_low"));
	assert_int_equal(plan_json_decode(json, strlen(json), q, err, sizeof(err)), 0);
	assert_true(q->estimate_low == 0 && q->estimate_high == 0);
	assert_string_equal(q->estimate_fitted_to, "");
	free(json);
	/* low above high */
	p->estimate_low = 30;
	p->estimate_high = 20;
	json = plan_json(p);
	assert_int_equal(plan_json_decode(json, strlen(json), q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "estimate_low"));
	free(json);
	free(p);
	free(q);
}

static void
expect_request_error(const char *body, const char *want)
{
	struct plan_request r;
	char err[256] = "";

	assert_int_equal(plan_json_decode_request(body, strlen(body), &r, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("%s: got \"%s\", want \"%s\"", body, err, want);
}

static void
test_requests(void **state)
{
	struct plan_request r, back;
	char err[256];
	const char *ok = "{\"model\":\"llama-3.3-70b:4bit\",\"cluster\":\"lab\","
	    "\"strategy\":\"tensor\",\"context\":32768,\"nodes\":[\"mac1\",\"mac2\"]}";

	(void)state;
	assert_int_equal(plan_json_decode_request(ok, strlen(ok), &r, err, sizeof(err)), 0);
	assert_int_equal(r.strategy, PLAN_TENSOR);
	assert_int_equal(r.context, 32768);
	assert_int_equal(r.n_nodes, 2);
	char *json = plan_json_request(&r);
	assert_int_equal(plan_json_decode_request(json, strlen(json), &back, err, sizeof(err)), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	free(json);
	expect_request_error("{}", "model: missing");
	expect_request_error("{\"model\":5}", "model: not a string");
	expect_request_error("{\"model\":\"x:4bit\",\"strategy\":\"fast\"}", "strategy: \"fast\"");
	expect_request_error("{\"model\":\"x:4bit\",\"context\":0}", "context: 0 is out of range");
	expect_request_error("{\"model\":\"x:4bit\",\"context\":1.5}", "context: 1.5 is not a whole");
	expect_request_error("{\"model\":\"x:4bit\",\"nodes\":[\"a\",\"a\"]}", "a is listed twice");
	expect_request_error("{\"model\":\"x:4bit\",\"nodes\":[\"-x\"]}", "not a node name");
	expect_request_error("{\"model\":\"x:4bit\",\"cluster\":\"a b\"}", "cluster");
	expect_request_error("[", "invalid JSON near byte");
}

static void
test_ctl_place_args(void **state)
{
	struct ctl_args a;
	struct plan_request r;
	char err[256];

	(void)state;
	memset(&a, 0, sizeof(a));
	a.pos[0] = "deepseek-v3.1:4bit";
	a.npos = 1;
	a.nodes = "mac1,mac2,mac3";
	a.context = "4096";
	a.strategy = "pipeline";
	assert_int_equal(ctl_place_request(&a, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n_nodes, 3);
	assert_string_equal(r.nodes[2], "mac3");
	assert_int_equal(r.context, 4096);
	assert_int_equal(r.strategy, PLAN_PIPELINE);
	a.strategy = "fastest";
	assert_int_equal(ctl_place_request(&a, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--strategy"));
	a.strategy = NULL;
	a.nodes = "mac1,,mac2";
	assert_int_equal(ctl_place_request(&a, &r, err, sizeof(err)), -1);
	a.nodes = NULL;
	a.pos[0] = "deepseek-v3.1";
	assert_int_equal(ctl_place_request(&a, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MODEL:QUANT"));
}

static void
test_plan_print(void **state)
{
	struct plan *p = make_plan();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(ctl_placement_print(f, p, "/tmp/h.json"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "kimi-k2-thinking:4bit on lab: pipeline over"));
	assert_non_null(strstr(buf, "\nRANK  NODE  LAYERS"));
	assert_non_null(strstr(buf, "hostfile: /tmp/h.json\n"));
	char want[96];
	snprintf(want, sizeof(want), "\nestimate: decode ~%.0f tokens/s (%.0f-%.0f)\n",
	    p->estimate_tokens_per_second, p->estimate_low, p->estimate_high);
	if (p->estimate_tokens_per_second < 10)
		snprintf(want, sizeof(want), "\nestimate: decode ~%.1f tokens/s (%.1f-%.1f)\n",
		    p->estimate_tokens_per_second, p->estimate_low, p->estimate_high);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "\nestimate fitted to: exo 1.0 Qwen3 235B"));
	assert_non_null(strstr(buf, "runtime: exo\n"));
	assert_null(strstr(buf, "launch:"));     /* exo starts it itself */
	/* each rank's layers as first-last (count), adding up to 61 */
	int total = 0;
	for (int i = 0; i < p->n_ranks; i++) {
		char cell[48];
		snprintf(cell, sizeof(cell), "%d-%d (%d)", p->ranks[i].layer_start,
		    p->ranks[i].layer_end - 1, p->ranks[i].layer_end - p->ranks[i].layer_start);
		assert_non_null(strstr(buf, cell));
		total += p->ranks[i].layer_end - p->ranks[i].layer_start;
	}
	assert_int_equal(total, 61);
	free(buf);
	free(p);

	/* mlx-lm: the launch line with the hostfile's path, the coordinator, the copy */
	p = plan_of("llama-3.3-70b:4bit", PLAN_TENSOR, PLAN_RT_MLX_LM);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(ctl_placement_print(f, p, "/tmp/h.json"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "launch: mlx.launch --backend jaccl --hostfile /tmp/h.json -- "
	    "python3 -m mlx_lm chat --model /Users/Shared/tbmesh/models/llama-3.3-70b-4bit"));
	assert_non_null(strstr(buf, "coordinator: 192.0.2.11:32323 (mac1's LAN address (en0, "
	    "ethernet))\n"));
	assert_non_null(strstr(buf, "prepare: ssh mac1 hf download "
	    "mlx-community/Llama-3.3-70B-Instruct-4bit --local-dir "));
	assert_non_null(strstr(buf, "copy: ssh mac2 mkdir -p "));
	assert_non_null(strstr(buf, "runtime: mlx-lm\n"));
	free(buf);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_estimate_roundtrip),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_ctl_place_args),
		cmocka_unit_test(test_plan_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
