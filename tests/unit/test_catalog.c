/*
 * The model catalog: the shipped data/catalog.json decodes and is
 * consistent (found through TBMESH_TOP, set by tests/run.sh); bad models
 * are refused with the field named; MODEL:QUANT lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"

static struct catalog_model *cat;
static int ncat;

static int
setup(void **state)
{
	char path[1024], err[512];
	const char *top = getenv("TBMESH_TOP");

	snprintf(path, sizeof(path), "%s/data/catalog.json", top ? top : ".");
	if (catalog_load_file(path, &cat, &ncat, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	(void)state;
	return 0;
}

static int
teardown(void **state)
{
	free(cat);
	(void)state;
	return 0;
}

static const struct catalog_model *
model(const char *name)
{
	for (int i = 0; i < ncat; i++)
		if (strcmp(cat[i].name, name) == 0)
			return &cat[i];
	return NULL;
}

static void
test_shipped_catalog(void **state)
{
	static const char *required[] = {
		"deepseek-v3.1", "kimi-k2-thinking", "qwen3-235b-a22b", "qwen3-coder-480b-a35b",
		"llama-3.1-405b", "llama-3.3-70b", "gpt-oss-120b", "glm-4.5",
	};
	char err[256];

	(void)state;
	assert_true(ncat >= 10);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		assert_non_null(model(required[i]));
	for (int i = 0; i < ncat; i++) {
		assert_int_equal(catalog_validate(&cat[i], err, sizeof(err)), 0);
		assert_true(cat[i].n_variants >= 3);
		for (int s = 0; s < CSRC_COUNT; s++)
			if (cat[i].attention == CATALOG_ATTN_MLA || (s != CSRC_KV_LORA && s != CSRC_ROPE))
				assert_true(cat[i].sources[s][0] != '\0');
	}
	const struct catalog_model *d = model("deepseek-v3.1");
	assert_int_equal(d->layers, 61);
	assert_int_equal(d->attention, CATALOG_ATTN_MLA);
	assert_int_equal(d->kv_cache_bytes_per_token, 61 * (512 + 64) * 2);
	const struct catalog_model *q = model("qwen3-235b-a22b");
	assert_int_equal(q->kv_cache_bytes_per_token, 94 * 2 * 4 * 128 * 2);
}

static void
test_find(void **state)
{
	const struct catalog_model *m;
	const struct catalog_variant *v;
	char err[256];

	(void)state;
	assert_int_equal(catalog_find(cat, ncat, "kimi-k2-thinking:4bit", &m, &v, err,
	    sizeof(err)), 0);
	assert_string_equal(m->name, "kimi-k2-thinking");
	assert_string_equal(v->quant, "4bit");
	assert_int_equal(catalog_find(cat, ncat, "llama-3.3-70b:2bit", &m, &v, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "no variant \"2bit\""));
	assert_int_equal(catalog_find(cat, ncat, "llama-3.3-70b", &m, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MODEL:QUANT") == NULL ? strstr(err, ":QUANT") : err);
	assert_int_equal(catalog_find(cat, ncat, "qwen9:4bit", &m, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no model \"qwen9\""));
}

/* A model's JSON with one field replaced (or removed with to NULL). */
static char *
model_with(const char *key, const char *to)
{
	char *json = catalog_encode_model(model("llama-3.3-70b"));
	char pat[64], *at, *out;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(json, pat);
	assert_non_null(at);
	char *end = at + strlen(pat);
	if (*end == '{' || *end == '[') {
		/* to the bracket that closes it (no brackets in its strings) */
		int depth = 0;
		do {
			depth += (*end == '{' || *end == '[') - (*end == '}' || *end == ']');
			end++;
		} while (depth > 0 && *end != '\0');
	} else {
		end += strcspn(end, ",}");
	}
	out = malloc(strlen(json) + 256);
	if (to == NULL)
		sprintf(out, "%.*s%s", (int)(at - json - 1), json, end);  /* drop ",key:value" */
	else
		sprintf(out, "%.*s%s%s%s", (int)(at - json), json, pat, to, end);
	free(json);
	return out;
}

static void
expect_error(const char *key, const char *to, const char *want)
{
	struct catalog_model m;
	char err[256] = "";
	char *json = model_with(key, to);

	assert_int_equal(catalog_decode_model(json, strlen(json), &m, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("%s=%s: got \"%s\", want \"%s\"", key, to ? to : "(none)", err, want);
	free(json);
}

static void
test_bad_models(void **state)
{
	struct catalog_model m;
	char err[256];
	char *json = model_with("layers", "80");

	(void)state;
	assert_int_equal(catalog_decode_model(json, strlen(json), &m, err, sizeof(err)), 0);
	free(json);
	expect_error("layers", NULL, "layers: missing");
	expect_error("layers", "\"eighty\"", "layers: not a number");
	expect_error("layers", "80.5", "layers: 80.5 is not a whole number");
	expect_error("layers", "81", "kv_cache_bytes_per_token: 327680, but GQA");
	expect_error("kv_heads", "7", "kv_heads: 7 does not divide attention_heads 64");
	expect_error("active_params", "80000000000", "active_params");
	expect_error("attention", "{\"kind\":\"sliding\"}", "attention.kind: \"sliding\"");
	expect_error("variants", "[]", "variants: missing, empty");
	expect_error("sources", "{}", "sources.layers: missing");
	expect_error("name", "\"Llama 70B\"", "name: \"Llama 70B\"");
	expect_error("attention", "{\"kind\":\"gqa\",\"window\":4096}",
	    "attention.window: not a field of a model (kind, kv_lora_rank, rope_head_dim)");
	expect_error("tensor_sharding", "true,\"layer\":80", "layer: not a field of a model");
	assert_int_equal(catalog_decode_model("{", 1, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "invalid JSON"));
	/* what is read is what is validated: garbage after the model is refused */
	json = model_with("name", "\"llama-3.3-70b\"");
	size_t n = strlen(json);
	assert_int_equal(catalog_decode_model(json, n, &m, err, sizeof(err)), 0);
	json = realloc(json, n + 4);
	memcpy(json + n, "{}", 3);
	assert_int_equal(catalog_decode_model(json, n + 2, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unexpected data after the JSON value"));
	free(json);
}

static void
test_roundtrip_and_duplicates(void **state)
{
	struct catalog_model *out;
	int n;
	char err[256];
	char *json = catalog_encode(cat, ncat);

	(void)state;
	assert_int_equal(catalog_decode(json, strlen(json), &out, &n, err, sizeof(err)), 0);
	assert_int_equal(n, ncat);
	assert_memory_equal(out, cat, sizeof(*cat) * (size_t)n);
	free(out);
	free(json);
	json = catalog_encode(cat, 1);
	char *two = malloc(2 * strlen(json) + 8);
	size_t l = strlen(json);
	/* {"models":[X]} -> {"models":[X,X]} */
	sprintf(two, "%.*s,%s", (int)(l - 2), json, json + strlen("{\"models\":["));
	assert_int_equal(catalog_decode(two, strlen(two), &out, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "models[1].name"));
	free(two);
	free(json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_catalog),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_bad_models),
		cmocka_unit_test(test_roundtrip_and_duplicates),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
