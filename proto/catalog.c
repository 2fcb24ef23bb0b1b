/*
 * The model catalog's JSON (catalog.h): decode with field-named errors,
 * validate, encode.  Numbers are checked to be integers where they count
 * things, positive, and within limits that no real model passes.
 */
#include "catalog.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dec.h"

static const char *src_keys[CSRC_COUNT] = {
	"layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
	"kv_cache_bytes_per_token", "vocab_size", "tie_word_embeddings", "total_params",
	"active_params", "tensor_sharding", "kv_lora_rank", "rope_head_dim",
};

const char *
catalog_src_key(enum catalog_src s)
{
	return (unsigned)s < CSRC_COUNT ? src_keys[s] : "?";
}

int64_t
catalog_kv_bytes_per_token(const struct catalog_model *m)
{
	if (m->attention == CATALOG_ATTN_MLA)
		return (int64_t)m->layers * (m->kv_lora_rank + m->rope_head_dim) * 2;
	return (int64_t)m->layers * 2 * m->kv_heads * m->head_dim * 2;
}

static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t errlen, const char *where, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s%s", where, where[0] ? ": " : "");

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Only the given keys in the object o at where ("models[2].attention", ""
 * the top): a misspelt field is refused, not ignored.
 */
static int
keys_only(const cJSON *o, const char *where, const char *const *keys, char *err, size_t errlen)
{
	char w[160];
	size_t n = strlen(where);
	struct json_dec d;

	/* where may end in the '.' that joins it to its keys */
	snprintf(w, sizeof(w), "%.*s", (int)(n > 0 && where[n - 1] == '.' ? n - 1 : n), where);
	struct json_path p = { NULL, w, 0 };
	json_dec_init(&d, err, errlen);
	return json_dec_known_keys(&d, o, w[0] != '\0' ? &p : NULL, "a model", keys);
}

static const char *const model_keys[] = { "name", "display_name", "architecture", "hf_repo",
	"layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
	"kv_cache_bytes_per_token", "vocab_size", "tie_word_embeddings", "total_params",
	"active_params", "tensor_sharding", "attention", "runtimes", "variants", "sources", NULL };
static const char *const attention_keys[] = { "kind", "kv_lora_rank", "rope_head_dim", NULL };
static const char *const variant_keys[] = { "quant", "bits_per_weight", "bytes", "source",
	"mlx_repo", NULL };
static const char *const runtime_keys[] = { "tensor", "pipeline", "source", NULL };

/* A whole number in [lo, hi] at obj.key. */
static int
get_int(const cJSON *obj, const char *pfx, const char *key, int64_t lo, int64_t hi,
    int64_t *out, char *err, size_t errlen)
{
	char where[160];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	snprintf(where, sizeof(where), "%s%s", pfx, key);
	if (v == NULL || cJSON_IsNull(v))
		return fail(err, errlen, where, "missing");
	if (!cJSON_IsNumber(v))
		return fail(err, errlen, where, "not a number");
	double d = v->valuedouble;
	if (d != floor(d) || d < (double)lo || d > (double)hi)
		return fail(err, errlen, where, "%g is not a whole number in %lld..%lld", d,
		    (long long)lo, (long long)hi);
	*out = (int64_t)d;
	return 0;
}

static int
get_int32(const cJSON *obj, const char *pfx, const char *key, int lo, int hi, int *out,
    char *err, size_t errlen)
{
	int64_t v;

	if (get_int(obj, pfx, key, lo, hi, &v, err, errlen) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

/* A non-empty string that fits n (never truncated). */
static int
get_str(const cJSON *obj, const char *pfx, const char *key, char *out, size_t n, char *err,
    size_t errlen)
{
	char where[160];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	snprintf(where, sizeof(where), "%s%s", pfx, key);
	if (v == NULL || cJSON_IsNull(v))
		return fail(err, errlen, where, "missing");
	if (!cJSON_IsString(v))
		return fail(err, errlen, where, "not a string");
	size_t l = strlen(v->valuestring);
	if (l == 0)
		return fail(err, errlen, where, "empty");
	if (l >= n)
		return fail(err, errlen, where, "longer than %zu characters", n - 1);
	memcpy(out, v->valuestring, l + 1);
	return 0;
}

static int
get_bool(const cJSON *obj, const char *pfx, const char *key, int *out, char *err,
    size_t errlen)
{
	char where[160];
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	snprintf(where, sizeof(where), "%s%s", pfx, key);
	if (v == NULL || cJSON_IsNull(v))
		return fail(err, errlen, where, "missing");
	if (!cJSON_IsBool(v))
		return fail(err, errlen, where, "not true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

/* A model or variant name: 1.. of [a-z0-9._-], starting with a letter or digit. */
static int
word_valid(const char *s)
{
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '.' ||
		    *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static int
decode_attention(const cJSON *o, const char *pfx, struct catalog_model *m, char *err,
    size_t errlen)
{
	char p[160], kind[16];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "attention");

	snprintf(p, sizeof(p), "%sattention", pfx);
	if (!cJSON_IsObject(a))
		return fail(err, errlen, p, "missing or not an object");
	snprintf(p, sizeof(p), "%sattention.", pfx);
	if (keys_only(a, p, attention_keys, err, errlen) == -1 ||
	    get_str(a, p, "kind", kind, sizeof(kind), err, errlen) == -1)
		return -1;
	if (strcmp(kind, "gqa") == 0) {
		m->attention = CATALOG_ATTN_GQA;
		return 0;
	}
	if (strcmp(kind, "mla") != 0) {
		snprintf(p, sizeof(p), "%sattention.kind", pfx);
		return fail(err, errlen, p, "\"%s\" is not \"mla\" or \"gqa\"", kind);
	}
	m->attention = CATALOG_ATTN_MLA;
	if (get_int32(a, p, "kv_lora_rank", 1, 65536, &m->kv_lora_rank, err, errlen) == -1 ||
	    get_int32(a, p, "rope_head_dim", 0, 65536, &m->rope_head_dim, err, errlen) == -1)
		return -1;
	return 0;
}

/* A Hugging Face repository: OWNER/NAME of [A-Za-z0-9._-] (it goes into a
 * command line the plan prints). */
static int
repo_valid(const char *s)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL || slash == s || slash[1] == '\0' || strchr(slash + 1, '/') != NULL)
		return 0;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-/", *p))
			return 0;
	return s[0] != '-' && s[0] != '.';
}

static const char *rt_keys[CATALOG_RT_COUNT] = { "mlx-lm", "exo" };

const char *
catalog_runtime_key(enum catalog_rt r)
{
	return (unsigned)r < CATALOG_RT_COUNT ? rt_keys[r] : "?";
}

/* "runtimes": {"mlx-lm": {"tensor", "pipeline", "source"}, "exo": ...}. */
static int
decode_runtimes(const cJSON *o, const char *pfx, struct catalog_model *m, char *err,
    size_t errlen)
{
	const cJSON *rs = cJSON_GetObjectItemCaseSensitive(o, "runtimes"), *r;
	char p[160];

	for (int i = 0; i < CATALOG_RT_COUNT; i++)
		memset(&m->runtimes[i], 0, sizeof(m->runtimes[i]));
	if (rs == NULL || cJSON_IsNull(rs))
		return 0;
	snprintf(p, sizeof(p), "%sruntimes", pfx);
	if (!cJSON_IsObject(rs))
		return fail(err, errlen, p, "not an object");
	cJSON_ArrayForEach(r, rs) {
		int i = 0;
		while (i < CATALOG_RT_COUNT && strcmp(r->string, rt_keys[i]) != 0)
			i++;
		if (i == CATALOG_RT_COUNT)
			return fail(err, errlen, p, "\"%s\" is not mlx-lm or exo", r->string);
		struct catalog_runtime *rt = &m->runtimes[i];
		snprintf(p, sizeof(p), "%sruntimes.%s.", pfx, rt_keys[i]);
		if (!cJSON_IsObject(r))
			return fail(err, errlen, p, "not an object");
		if (keys_only(r, p, runtime_keys, err, errlen) == -1 ||
		    get_bool(r, p, "tensor", &rt->tensor, err, errlen) == -1 ||
		    get_bool(r, p, "pipeline", &rt->pipeline, err, errlen) == -1 ||
		    get_str(r, p, "source", rt->source, sizeof(rt->source), err, errlen) == -1)
			return -1;
		rt->known = 1;
	}
	return 0;
}

static int
decode_variant(const cJSON *v, const char *pfx, struct catalog_variant *out, char *err,
    size_t errlen)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "bits_per_weight");
	char where[224];

	if (!cJSON_IsObject(v))
		return fail(err, errlen, pfx, "not an object");
	if (keys_only(v, pfx, variant_keys, err, errlen) == -1)
		return -1;
	char p[224];
	snprintf(p, sizeof(p), "%s.", pfx);
	if (get_str(v, p, "quant", out->quant, sizeof(out->quant), err, errlen) == -1)
		return -1;
	snprintf(where, sizeof(where), "%s.quant", pfx);
	if (!word_valid(out->quant))
		return fail(err, errlen, where, "\"%s\" is not a word of [a-z0-9._-]", out->quant);
	snprintf(where, sizeof(where), "%s.bits_per_weight", pfx);
	if (!cJSON_IsNumber(b) || !(b->valuedouble > 0 && b->valuedouble <= 64))
		return fail(err, errlen, where, "missing or not a number in (0, 64]");
	out->bits_per_weight = b->valuedouble;
	if (get_int(v, p, "bytes", 1, INT64_C(1) << 50, &out->bytes, err, errlen) == -1)
		return -1;
	if (get_str(v, p, "source", out->source, sizeof(out->source), err, errlen) == -1)
		return -1;
	out->mlx_repo[0] = '\0';
	if (cJSON_GetObjectItemCaseSensitive(v, "mlx_repo") == NULL)
		return 0;
	if (get_str(v, p, "mlx_repo", out->mlx_repo, sizeof(out->mlx_repo), err, errlen) == -1)
		return -1;
	snprintf(where, sizeof(where), "%s.mlx_repo", pfx);
	if (!repo_valid(out->mlx_repo))
		return fail(err, errlen, where, "\"%s\" is not OWNER/NAME", out->mlx_repo);
	return 0;
}

static int
decode_variants(const cJSON *o, const char *pfx, struct catalog_model *m, char *err,
    size_t errlen)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "variants"), *v;
	char p[128];

	snprintf(p, sizeof(p), "%svariants", pfx);
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
		return fail(err, errlen, p, "missing, empty or not an array");
	if (cJSON_GetArraySize(a) > CATALOG_VARIANTS_MAX)
		return fail(err, errlen, p, "more than %d variants", CATALOG_VARIANTS_MAX);
	m->n_variants = 0;
	cJSON_ArrayForEach(v, a) {
		snprintf(p, sizeof(p), "%svariants[%d]", pfx, m->n_variants);
		if (decode_variant(v, p, &m->variants[m->n_variants], err, errlen) == -1)
			return -1;
		for (int i = 0; i < m->n_variants; i++)
			if (strcmp(m->variants[i].quant, m->variants[m->n_variants].quant) == 0)
				return fail(err, errlen, p, "quant \"%s\" is listed twice",
				    m->variants[i].quant);
		m->n_variants++;
	}
	return 0;
}

static int
decode_sources(const cJSON *o, const char *pfx, struct catalog_model *m, char *err,
    size_t errlen)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "sources");
	char p[160];

	snprintf(p, sizeof(p), "%ssources", pfx);
	if (!cJSON_IsObject(s))
		return fail(err, errlen, p, "missing or not an object: every number needs its source");
	snprintf(p, sizeof(p), "%ssources.", pfx);
	for (int i = 0; i < CSRC_COUNT; i++) {
		m->sources[i][0] = '\0';
		int mla_only = i == CSRC_KV_LORA || i == CSRC_ROPE;
		if (mla_only && m->attention != CATALOG_ATTN_MLA)
			continue;
		if (get_str(s, p, src_keys[i], m->sources[i], sizeof(m->sources[i]), err,
		    errlen) == -1)
			return -1;
	}
	return 0;
}

static int
decode_numbers(const cJSON *o, const char *p, struct catalog_model *m, char *err,
    size_t errlen)
{
	if (get_int32(o, p, "layers", 1, CATALOG_LAYERS_MAX, &m->layers, err, errlen) == -1 ||
	    get_int32(o, p, "hidden_size", 1, 1 << 20, &m->hidden_size, err, errlen) == -1 ||
	    get_int32(o, p, "attention_heads", 1, 1 << 16, &m->attention_heads, err, errlen) == -1 ||
	    get_int32(o, p, "kv_heads", 1, 1 << 16, &m->kv_heads, err, errlen) == -1 ||
	    get_int32(o, p, "head_dim", 1, 1 << 16, &m->head_dim, err, errlen) == -1 ||
	    decode_attention(o, p, m, err, errlen) == -1 ||
	    get_int(o, p, "kv_cache_bytes_per_token", 1, INT64_C(1) << 32,
	    &m->kv_cache_bytes_per_token, err, errlen) == -1 ||
	    get_int(o, p, "vocab_size", 1, INT64_C(1) << 24, &m->vocab_size, err, errlen) == -1 ||
	    get_bool(o, p, "tie_word_embeddings", &m->tie_word_embeddings, err, errlen) == -1 ||
	    get_int(o, p, "total_params", 1, INT64_C(1) << 46, &m->total_params, err, errlen) == -1 ||
	    get_int(o, p, "active_params", 1, INT64_C(1) << 46, &m->active_params, err,
	    errlen) == -1 ||
	    get_bool(o, p, "tensor_sharding", &m->tensor_sharding, err, errlen) == -1)
		return -1;
	return 0;
}

/* One model object; pfx is "" or "models[3]." for errors. */
static int
decode_model_obj(const cJSON *o, const char *pfx, struct catalog_model *m, char *err,
    size_t errlen)
{
	char where[160];

	memset(m, 0, sizeof(*m));
	if (!cJSON_IsObject(o))
		return fail(err, errlen, pfx, "a model is a JSON object");
	if (keys_only(o, pfx, model_keys, err, errlen) == -1 ||
	    get_str(o, pfx, "name", m->name, sizeof(m->name), err, errlen) == -1)
		return -1;
	snprintf(where, sizeof(where), "%sname", pfx);
	if (!word_valid(m->name))
		return fail(err, errlen, where, "\"%s\": use lower-case letters, digits, '.', '_' or '-'",
		    m->name);
	if (cJSON_GetObjectItemCaseSensitive(o, "architecture") != NULL &&
	    (get_str(o, pfx, "architecture", m->architecture, sizeof(m->architecture), err,
	    errlen) == -1 || !word_valid(m->architecture))) {
		snprintf(where, sizeof(where), "%sarchitecture", pfx);
		return fail(err, errlen, where, "not a word of [a-z0-9._-]");
	}
	if (get_str(o, pfx, "display_name", m->display_name, sizeof(m->display_name), err,
	    errlen) == -1 ||
	    get_str(o, pfx, "hf_repo", m->hf_repo, sizeof(m->hf_repo), err, errlen) == -1 ||
	    decode_numbers(o, pfx, m, err, errlen) == -1 ||
	    decode_runtimes(o, pfx, m, err, errlen) == -1 ||
	    decode_variants(o, pfx, m, err, errlen) == -1 ||
	    decode_sources(o, pfx, m, err, errlen) == -1)
		return -1;
	char verr[256];
	if (catalog_validate(m, verr, sizeof(verr)) == -1)
		return fail(err, errlen, "", "%s%s", pfx, verr);
	return 0;
}

int
catalog_validate(const struct catalog_model *m, char *err, size_t errlen)
{
	int64_t kv = catalog_kv_bytes_per_token(m);

	if (m->active_params > m->total_params)
		return fail(err, errlen, "active_params", "%lld is more than total_params %lld",
		    (long long)m->active_params, (long long)m->total_params);
	if (m->kv_heads > m->attention_heads || m->attention_heads % m->kv_heads != 0)
		return fail(err, errlen, "kv_heads", "%d does not divide attention_heads %d",
		    m->kv_heads, m->attention_heads);
	if (m->kv_cache_bytes_per_token != kv)
		return fail(err, errlen, "kv_cache_bytes_per_token",
		    "%lld, but %s attention with these sizes gives %lld",
		    (long long)m->kv_cache_bytes_per_token,
		    m->attention == CATALOG_ATTN_MLA ? "MLA" : "GQA", (long long)kv);
	int64_t embed = m->vocab_size * m->hidden_size * (m->tie_word_embeddings ? 1 : 2);
	if (embed >= m->total_params)
		return fail(err, errlen, "vocab_size",
		    "the embeddings (%lld parameters) are not smaller than total_params",
		    (long long)embed);
	return 0;
}

static cJSON *
parse(const char *json, size_t len, char *err, size_t errlen)
{
	if (len > CATALOG_FILE_MAX) {
		fail(err, errlen, "", "larger than %zu bytes", CATALOG_FILE_MAX);
		return NULL;
	}
	return json_dec_object(json, len, CATALOG_FILE_MAX, err, errlen);
}

int
catalog_decode_model(const char *json, size_t len, struct catalog_model *out, char *err,
    size_t errlen)
{
	cJSON *root = parse(json, len, err, errlen);

	if (root == NULL)
		return -1;
	int rc = decode_model_obj(root, "", out, err, errlen);
	cJSON_Delete(root);
	return rc;
}

static int
decode_models(const cJSON *a, struct catalog_model *ms, int *n, char *err, size_t errlen)
{
	const cJSON *o;
	char pfx[32];

	*n = 0;
	cJSON_ArrayForEach(o, a) {
		snprintf(pfx, sizeof(pfx), "models[%d].", *n);
		if (decode_model_obj(o, pfx, &ms[*n], err, errlen) == -1)
			return -1;
		for (int i = 0; i < *n; i++)
			if (strcmp(ms[i].name, ms[*n].name) == 0) {
				snprintf(pfx, sizeof(pfx), "models[%d].name", *n);
				return fail(err, errlen, pfx, "\"%s\" is already models[%d]",
				    ms[i].name, i);
			}
		(*n)++;
	}
	return 0;
}

int
catalog_decode(const char *json, size_t len, struct catalog_model **out, int *n, char *err,
    size_t errlen)
{
	struct catalog_model *ms = NULL;
	cJSON *root = parse(json, len, err, errlen);
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (root == NULL)
		return -1;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "models");
	int count = cJSON_GetArraySize(a);
	if (!cJSON_IsObject(root) || !cJSON_IsArray(a))
		fail(err, errlen, "models", "missing or not an array");
	else if (count > CATALOG_MODELS_MAX)
		fail(err, errlen, "models", "more than %d models", CATALOG_MODELS_MAX);
	else if ((ms = calloc((size_t)count + 1, sizeof(*ms))) == NULL)
		fail(err, errlen, "", "out of memory");
	else if (decode_models(a, ms, n, err, errlen) == 0)
		rc = 0;
	cJSON_Delete(root);
	if (rc == -1) {
		free(ms);
		*n = 0;
		return -1;
	}
	*out = ms;
	return 0;
}

static cJSON *
model_obj(const struct catalog_model *m)
{
	cJSON *o = cJSON_CreateObject(), *a, *vs, *s;

	cJSON_AddStringToObject(o, "name", m->name);
	cJSON_AddStringToObject(o, "display_name", m->display_name);
	cJSON_AddStringToObject(o, "hf_repo", m->hf_repo);
	cJSON_AddNumberToObject(o, "layers", m->layers);
	cJSON_AddNumberToObject(o, "hidden_size", m->hidden_size);
	cJSON_AddNumberToObject(o, "attention_heads", m->attention_heads);
	cJSON_AddNumberToObject(o, "kv_heads", m->kv_heads);
	cJSON_AddNumberToObject(o, "head_dim", m->head_dim);
	a = cJSON_AddObjectToObject(o, "attention");
	cJSON_AddStringToObject(a, "kind", m->attention == CATALOG_ATTN_MLA ? "mla" : "gqa");
	if (m->attention == CATALOG_ATTN_MLA) {
		cJSON_AddNumberToObject(a, "kv_lora_rank", m->kv_lora_rank);
		cJSON_AddNumberToObject(a, "rope_head_dim", m->rope_head_dim);
	}
	cJSON_AddNumberToObject(o, "kv_cache_bytes_per_token", (double)m->kv_cache_bytes_per_token);
	cJSON_AddNumberToObject(o, "vocab_size", (double)m->vocab_size);
	cJSON_AddBoolToObject(o, "tie_word_embeddings", m->tie_word_embeddings);
	cJSON_AddNumberToObject(o, "total_params", (double)m->total_params);
	cJSON_AddNumberToObject(o, "active_params", (double)m->active_params);
	cJSON_AddBoolToObject(o, "tensor_sharding", m->tensor_sharding);
	if (m->architecture[0])
		cJSON_AddStringToObject(o, "architecture", m->architecture);
	cJSON *rs = NULL;
	for (int i = 0; i < CATALOG_RT_COUNT; i++) {
		const struct catalog_runtime *rt = &m->runtimes[i];
		if (!rt->known)
			continue;
		if (rs == NULL)
			rs = cJSON_AddObjectToObject(o, "runtimes");
		cJSON *r = cJSON_AddObjectToObject(rs, rt_keys[i]);
		cJSON_AddBoolToObject(r, "tensor", rt->tensor);
		cJSON_AddBoolToObject(r, "pipeline", rt->pipeline);
		cJSON_AddStringToObject(r, "source", rt->source);
	}
	vs = cJSON_AddArrayToObject(o, "variants");
	for (int i = 0; i < m->n_variants; i++) {
		cJSON *v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "quant", m->variants[i].quant);
		cJSON_AddNumberToObject(v, "bits_per_weight", m->variants[i].bits_per_weight);
		cJSON_AddNumberToObject(v, "bytes", (double)m->variants[i].bytes);
		cJSON_AddStringToObject(v, "source", m->variants[i].source);
		if (m->variants[i].mlx_repo[0])
			cJSON_AddStringToObject(v, "mlx_repo", m->variants[i].mlx_repo);
		cJSON_AddItemToArray(vs, v);
	}
	s = cJSON_AddObjectToObject(o, "sources");
	for (int i = 0; i < CSRC_COUNT; i++)
		if (m->sources[i][0])
			cJSON_AddStringToObject(s, src_keys[i], m->sources[i]);
	return o;
}

char *
catalog_encode_model(const struct catalog_model *m)
{
	cJSON *o = model_obj(m);
	char *s = cJSON_PrintUnformatted(o);

	cJSON_Delete(o);
	return s;
}

char *
catalog_encode(const struct catalog_model *ms, int n)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(root, "models");

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, model_obj(&ms[i]));
	char *s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

static void
list_quants(const struct catalog_model *m, char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < m->n_variants; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? ", " : "",
		    m->variants[i].quant);
}

int
catalog_find(const struct catalog_model *ms, int n, const char *name,
    const struct catalog_model **model, const struct catalog_variant **variant, char *err,
    size_t errlen)
{
	const char *colon = strchr(name, ':');
	size_t ml = colon ? (size_t)(colon - name) : strlen(name);
	char quants[128];

	for (int i = 0; i < n; i++) {
		if (strlen(ms[i].name) != ml || strncmp(ms[i].name, name, ml) != 0)
			continue;
		list_quants(&ms[i], quants, sizeof(quants));
		if (colon == NULL)
			return fail(err, errlen, "", "name the variant: %s:QUANT (%s)", ms[i].name,
			    quants);
		for (int v = 0; v < ms[i].n_variants; v++)
			if (strcmp(ms[i].variants[v].quant, colon + 1) == 0) {
				*model = &ms[i];
				*variant = &ms[i].variants[v];
				return 0;
			}
		return fail(err, errlen, "", "%s has no variant \"%s\" (%s)", ms[i].name,
		    colon + 1, quants);
	}
	return fail(err, errlen, "", "no model \"%.*s\" in the catalog (tbctl models lists them)",
	    (int)ml, name);
}

int
catalog_load_file(const char *path, struct catalog_model **out, int *n, char *err,
    size_t errlen)
{
	char *buf = NULL, inner[384];
	size_t len = 0;
	FILE *f = fopen(path, "rb");

	*out = NULL;
	*n = 0;
	if (f == NULL)
		return fail(err, errlen, path, "%s", strerror(errno));
	if ((buf = malloc(CATALOG_FILE_MAX + 1)) == NULL) {
		fclose(f);
		return fail(err, errlen, path, "out of memory");
	}
	len = fread(buf, 1, CATALOG_FILE_MAX + 1, f);
	int rerr = ferror(f);
	fclose(f);
	if (rerr || len > CATALOG_FILE_MAX) {
		free(buf);
		return fail(err, errlen, path, rerr ? "read error" : "larger than %zu bytes",
		    CATALOG_FILE_MAX);
	}
	int rc = catalog_decode(buf, len, out, n, inner, sizeof(inner));
	free(buf);
	if (rc == -1)
		return fail(err, errlen, path, "%s", inner);
	return 0;
}
