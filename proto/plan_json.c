/*
 * JSON of placement plans and plan requests (plan.h).  Decoding names the
 * field at fault; strings that do not fit are refused, never truncated.
 */
#include "plan.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dec.h"

static const char *strategies[] = { "auto", "tensor", "pipeline", "single" };
static const char *states[] = { "proposed", "active", "degraded", "stale" };
static const char *runtimes[] = { "mlx-lm", "exo" };

const char *
plan_runtime_str(enum plan_runtime r)
{
	return (unsigned)r < 2 ? runtimes[r] : "?";
}

int
plan_runtime_parse(const char *s, enum plan_runtime *out)
{
	for (int i = 0; i < 2; i++)
		if (strcmp(s, runtimes[i]) == 0) {
			*out = (enum plan_runtime)i;
			return 0;
		}
	return -1;
}

const char *
plan_strategy_str(enum plan_strategy s)
{
	return (unsigned)s < 4 ? strategies[s] : "?";
}

int
plan_strategy_parse(const char *s, enum plan_strategy *out)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, strategies[i]) == 0) {
			*out = (enum plan_strategy)i;
			return 0;
		}
	return -1;
}

const char *
plan_state_str(enum plan_state s)
{
	return (unsigned)s < 4 ? states[s] : "?";
}

int
plan_state_parse(const char *s, enum plan_state *out)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, states[i]) == 0) {
			*out = (enum plan_state)i;
			return 0;
		}
	return -1;
}

/* ---- encoding ---- */

/* rdma[j]: null, a device, or the list of them (several cables), as MLX's
 * jaccl reads it (ml-explore/mlx jaccl/lib/jaccl/jaccl.cpp:42-53). */
static cJSON *
rdma_entry(const struct plan_host *ph, int j)
{
	cJSON *a;

	if (ph->n_rdma[j] == 0)
		return cJSON_CreateNull();
	if (ph->n_rdma[j] == 1)
		return cJSON_CreateString(ph->rdma[j][0]);
	a = cJSON_CreateArray();
	for (int c = 0; c < ph->n_rdma[j]; c++)
		cJSON_AddItemToArray(a, cJSON_CreateString(ph->rdma[j][c]));
	return a;
}

static cJSON *
hostfile_obj(const struct plan *p)
{
	cJSON *h = cJSON_CreateObject(), *envs, *hosts;

	cJSON_AddStringToObject(h, "backend", p->backend);
	envs = cJSON_AddArrayToObject(h, "envs");
	for (int i = 0; i < p->n_envs; i++)
		cJSON_AddItemToArray(envs, cJSON_CreateString(p->envs[i]));
	hosts = cJSON_AddArrayToObject(h, "hosts");
	for (int i = 0; i < p->n_ranks; i++) {
		const struct plan_host *ph = &p->hosts[i];
		cJSON *o = cJSON_CreateObject(), *ips, *rdma;
		cJSON_AddStringToObject(o, "ssh", ph->ssh);
		ips = cJSON_AddArrayToObject(o, "ips");
		for (int k = 0; k < ph->n_ips; k++)
			cJSON_AddItemToArray(ips, cJSON_CreateString(ph->ips[k]));
		if (strcmp(p->backend, "ring") != 0) {
			rdma = cJSON_AddArrayToObject(o, "rdma");
			for (int j = 0; j < p->n_ranks; j++)
				cJSON_AddItemToArray(rdma, rdma_entry(ph, j));
		}
		cJSON_AddItemToArray(hosts, o);
	}
	return h;
}

static void
add_num_or_null(cJSON *o, const char *k, double v, int null)
{
	if (null)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

static cJSON *
rank_obj(const struct plan_rank *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "rank", r->rank);
	cJSON_AddStringToObject(o, "node", r->node);
	cJSON_AddNumberToObject(o, "layer_start", r->layer_start);
	cJSON_AddNumberToObject(o, "layer_end", r->layer_end);
	cJSON_AddNumberToObject(o, "weights_bytes", (double)r->weights_bytes);
	cJSON_AddNumberToObject(o, "kv_cache_bytes", (double)r->kv_cache_bytes);
	cJSON_AddNumberToObject(o, "total_bytes", (double)r->total_bytes);
	cJSON_AddNumberToObject(o, "usable_bytes", (double)r->usable_bytes);
	cJSON_AddNumberToObject(o, "free_after_bytes", (double)r->free_after_bytes);
	cJSON_AddNumberToObject(o, "bandwidth_gbs", r->bandwidth_gbs);
	return o;
}

static cJSON *
plan_obj(const struct plan *p)
{
	cJSON *o = cJSON_CreateObject(), *a;

	add_num_or_null(o, "id", (double)p->id, p->id == 0);
	cJSON_AddStringToObject(o, "model", p->model);
	cJSON_AddStringToObject(o, "cluster", p->cluster);
	cJSON_AddStringToObject(o, "strategy", plan_strategy_str(p->strategy));
	cJSON_AddStringToObject(o, "why", p->why);
	cJSON_AddNumberToObject(o, "context", (double)p->context);
	cJSON_AddNumberToObject(o, "batch", p->batch);
	cJSON_AddStringToObject(o, "state", plan_state_str(p->state));
	cJSON_AddStringToObject(o, "reason", p->reason);
	add_num_or_null(o, "created_at", p->created_at, isnan(p->created_at));
	cJSON_AddNumberToObject(o, "estimate_tokens_per_second",
	    round(p->estimate_tokens_per_second * 100) / 100);
	cJSON_AddNumberToObject(o, "estimate_low", round(p->estimate_low * 100) / 100);
	cJSON_AddNumberToObject(o, "estimate_high", round(p->estimate_high * 100) / 100);
	cJSON_AddStringToObject(o, "estimate_fitted_to", p->estimate_fitted_to);
	a = cJSON_AddArrayToObject(o, "ranks");
	for (int i = 0; i < p->n_ranks; i++)
		cJSON_AddItemToArray(a, rank_obj(&p->ranks[i]));
	cJSON_AddStringToObject(o, "runtime", plan_runtime_str(p->runtime));
	cJSON_AddStringToObject(o, "coordinator", p->coordinator);
	cJSON_AddStringToObject(o, "coordinator_from", p->coordinator_from);
	cJSON_AddStringToObject(o, "model_path", p->model_path);
	a = cJSON_AddArrayToObject(o, "notes");
	for (int i = 0; i < p->n_notes; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->notes[i]));
	cJSON_AddItemToObject(o, "hostfile", hostfile_obj(p));
	cJSON_AddStringToObject(o, "launch", p->launch);
	cJSON_AddStringToObject(o, "prepare", p->prepare);
	cJSON_AddStringToObject(o, "copy", p->copy);
	a = cJSON_AddArrayToObject(o, "candidates");
	for (int i = 0; i < p->n_candidates; i++) {
		const struct plan_candidate *c = &p->candidates[i];
		cJSON *co = cJSON_CreateObject();
		cJSON_AddStringToObject(co, "strategy", plan_strategy_str(c->strategy));
		cJSON_AddBoolToObject(co, "fits", c->fits);
		cJSON_AddNumberToObject(co, "nodes", c->n_nodes);
		cJSON_AddNumberToObject(co, "estimate_tokens_per_second",
		    round(c->estimate_tokens_per_second * 100) / 100);
		cJSON_AddStringToObject(co, "reason", c->reason);
		cJSON_AddItemToArray(a, co);
	}
	return o;
}

static char *
print_delete(cJSON *o)
{
	char *s = o != NULL ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	return s;
}

char *
plan_json(const struct plan *p)
{
	return print_delete(plan_obj(p));
}

char *
plan_json_hostfile(const struct plan *p)
{
	cJSON *h = hostfile_obj(p);
	char *s = cJSON_Print(h);

	cJSON_Delete(h);
	return s;
}

char *
plan_json_list(const struct plan *ps, int n)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(root, "placements");

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, plan_obj(&ps[i]));
	return print_delete(root);
}

char *
plan_json_request(const struct plan_request *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "model", r->model);
	if (r->cluster[0])
		cJSON_AddStringToObject(o, "cluster", r->cluster);
	cJSON_AddStringToObject(o, "strategy", plan_strategy_str(r->strategy));
	if (r->context > 0)
		cJSON_AddNumberToObject(o, "context", (double)r->context);
	if (r->batch > 0)
		cJSON_AddNumberToObject(o, "batch", r->batch);
	if (r->n_nodes > 0) {
		cJSON *a = cJSON_AddArrayToObject(o, "nodes");
		for (int i = 0; i < r->n_nodes; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(r->nodes[i]));
	}
	cJSON_AddStringToObject(o, "runtime", plan_runtime_str(r->runtime));
	if (r->fast_synch)
		cJSON_AddBoolToObject(o, "fast_synch", 1);
	if (r->entry[0])
		cJSON_AddStringToObject(o, "entry", r->entry);
	return print_delete(o);
}

/* ---- decoding ---- */

struct dec {
	char *err;
	size_t errlen;
	const char *pfx;     /* "", "placements[2]." */
};

static int __attribute__((format(printf, 3, 4)))
fail(struct dec *d, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(d->err, d->errlen, "%s%s: ", d->pfx, key);

	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A string into out (size n); missing or null reads as "" when optional. */
static int
dstr(struct dec *d, const cJSON *o, const char *key, char *out, size_t n, int optional)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	out[0] = '\0';
	if (v == NULL || cJSON_IsNull(v))
		return optional ? 0 : fail(d, key, "missing");
	if (!cJSON_IsString(v))
		return fail(d, key, "not a string");
	if (strlen(v->valuestring) >= n)
		return fail(d, key, "longer than %zu characters", n - 1);
	memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
	return 0;
}

static int
dnum(struct dec *d, const cJSON *o, const char *key, double lo, double hi, double *out,
    int optional)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v == NULL || cJSON_IsNull(v)) {
		*out = NAN;
		return optional ? 0 : fail(d, key, "missing");
	}
	if (!cJSON_IsNumber(v))
		return fail(d, key, "not a number");
	if (!(v->valuedouble >= lo && v->valuedouble <= hi))
		return fail(d, key, "%g is out of range %g..%g", v->valuedouble, lo, hi);
	*out = v->valuedouble;
	return 0;
}

static int
dint(struct dec *d, const cJSON *o, const char *key, double lo, double hi, int64_t *out,
    int optional)
{
	double v;

	if (dnum(d, o, key, lo, hi, &v, optional) == -1)
		return -1;
	if (isnan(v)) {
		*out = 0;
		return 0;
	}
	if (v != floor(v))
		return fail(d, key, "%g is not a whole number", v);
	*out = (int64_t)v;
	return 0;
}

#define BYTES_MAX 1e18

/* A boolean: true, false, or missing (false); anything else is refused. */
static int
dbool(struct dec *d, const cJSON *o, const char *key, int *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = 0;
	if (v == NULL)
		return 0;
	if (!cJSON_IsBool(v))
		return fail(d, key, "not true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

static int
decode_rank(struct dec *d, const cJSON *o, struct plan_rank *r)
{
	int64_t v[3];

	if (!cJSON_IsObject(o))
		return fail(d, "ranks", "an element is not an object");
	if (dint(d, o, "rank", 0, PLAN_RANKS_MAX, &v[0], 0) == -1 ||
	    dstr(d, o, "node", r->node, sizeof(r->node), 0) == -1 ||
	    dint(d, o, "layer_start", 0, 1e6, &v[1], 0) == -1 ||
	    dint(d, o, "layer_end", 0, 1e6, &v[2], 0) == -1 ||
	    dint(d, o, "weights_bytes", 0, BYTES_MAX, &r->weights_bytes, 0) == -1 ||
	    dint(d, o, "kv_cache_bytes", 0, BYTES_MAX, &r->kv_cache_bytes, 0) == -1 ||
	    dint(d, o, "total_bytes", 0, BYTES_MAX, &r->total_bytes, 0) == -1 ||
	    dint(d, o, "usable_bytes", -BYTES_MAX, BYTES_MAX, &r->usable_bytes, 1) == -1 ||
	    dint(d, o, "free_after_bytes", -BYTES_MAX, BYTES_MAX, &r->free_after_bytes, 1) == -1 ||
	    dnum(d, o, "bandwidth_gbs", 0, 1e6, &r->bandwidth_gbs, 1) == -1)
		return -1;
	r->rank = (int)v[0];
	r->layer_start = (int)v[1];
	r->layer_end = (int)v[2];
	return 0;
}

/* rdma[j] of h: null, a device name, or a list of 1..PLAN_CABLES_MAX. */
static int
decode_rdma_entry(struct dec *d, const cJSON *v, struct plan_host *h, int j)
{
	const cJSON *e;

	h->n_rdma[j] = 0;
	if (cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v)) {
		if (strlen(v->valuestring) == 0 || strlen(v->valuestring) > PLAN_DEV_MAX)
			return fail(d, "hostfile.hosts.rdma", "not a device name or null");
		strcpy(h->rdma[j][h->n_rdma[j]++], v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 ||
	    cJSON_GetArraySize(v) > PLAN_CABLES_MAX)
		return fail(d, "hostfile.hosts.rdma", "not a device, a list of 1 to %d, or null",
		    PLAN_CABLES_MAX);
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e) || strlen(e->valuestring) == 0 ||
		    strlen(e->valuestring) > PLAN_DEV_MAX)
			return fail(d, "hostfile.hosts.rdma", "not a device name in a list");
		strcpy(h->rdma[j][h->n_rdma[j]++], e->valuestring);
	}
	return 0;
}

static int
decode_host(struct dec *d, const cJSON *o, struct plan_host *h, int n)
{
	const cJSON *ips = cJSON_GetObjectItemCaseSensitive(o, "ips"), *v;
	const cJSON *rdma = cJSON_GetObjectItemCaseSensitive(o, "rdma");
	int k = 0;

	if (!cJSON_IsObject(o) || dstr(d, o, "ssh", h->ssh, sizeof(h->ssh), 0) == -1)
		return -1;
	if (!cJSON_IsArray(ips) || cJSON_GetArraySize(ips) > PLAN_RANKS_MAX)
		return fail(d, "hostfile.hosts.ips", "missing or not an array of addresses");
	cJSON_ArrayForEach(v, ips) {
		if (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof(h->ips[0]))
			return fail(d, "hostfile.hosts.ips", "not an IPv4 address");
		strcpy(h->ips[k++], v->valuestring);
	}
	h->n_ips = k;
	if (rdma == NULL)
		return 0;
	if (!cJSON_IsArray(rdma) || cJSON_GetArraySize(rdma) != n)
		return fail(d, "hostfile.hosts.rdma", "not an array of %d entries", n);
	k = 0;
	cJSON_ArrayForEach(v, rdma)
		if (decode_rdma_entry(d, v, h, k++) == -1)
			return -1;
	return 0;
}

static int
decode_hostfile(struct dec *d, const cJSON *o, struct plan *p)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hostfile"), *a, *v;
	int k = 0;

	if (!cJSON_IsObject(h))
		return fail(d, "hostfile", "missing or not an object");
	if (dstr(d, h, "backend", p->backend, sizeof(p->backend), 0) == -1)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(h, "envs");
	if (cJSON_IsArray(a))
		cJSON_ArrayForEach(v, a) {
			if (k >= PLAN_ENVS_MAX || !cJSON_IsString(v) ||
			    strlen(v->valuestring) >= sizeof(p->envs[0]))
				return fail(d, "hostfile.envs", "too many or not strings");
			strcpy(p->envs[k++], v->valuestring);
		}
	p->n_envs = k;
	a = cJSON_GetObjectItemCaseSensitive(h, "hosts");
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != p->n_ranks)
		return fail(d, "hostfile.hosts", "not an array of one host per rank");
	k = 0;
	cJSON_ArrayForEach(v, a)
		if (decode_host(d, v, &p->hosts[k++], p->n_ranks) == -1)
			return -1;
	return 0;
}

static int
decode_candidates(struct dec *d, const cJSON *o, struct plan *p)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "candidates"), *v;
	char s[16];
	int64_t nn;

	p->n_candidates = 0;
	if (a == NULL)
		return 0;
	cJSON_ArrayForEach(v, a) {
		struct plan_candidate *c = &p->candidates[p->n_candidates];
		if (p->n_candidates >= PLAN_CANDIDATES)
			return fail(d, "candidates", "more than %d", PLAN_CANDIDATES);
		if (dstr(d, v, "strategy", s, sizeof(s), 0) == -1 ||
		    plan_strategy_parse(s, &c->strategy) == -1 ||
		    dnum(d, v, "estimate_tokens_per_second", 0, 1e9,
		    &c->estimate_tokens_per_second, 0) == -1 ||
		    dint(d, v, "nodes", 0, PLAN_RANKS_MAX, &nn, 1) == -1 ||
		    dstr(d, v, "reason", c->reason, sizeof(c->reason), 1) == -1)
			return fail(d, "candidates", "malformed entry");
		c->fits = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "fits"));
		c->n_nodes = (int)nn;
		p->n_candidates++;
	}
	return 0;
}

static int
decode_notes(struct dec *d, const cJSON *o, struct plan *p)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "notes"), *v;

	p->n_notes = 0;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > PLAN_NOTES_MAX)
		return fail(d, "notes", "not an array of at most %d texts", PLAN_NOTES_MAX);
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v) || strlen(v->valuestring) > PLAN_TEXT_MAX)
			return fail(d, "notes", "not a text of at most %d characters", PLAN_TEXT_MAX);
		strcpy(p->notes[p->n_notes++], v->valuestring);
	}
	return 0;
}

/* The estimate and its range; plans stored before the range read it as 0-0. */
static int
decode_estimate(struct dec *d, const cJSON *o, struct plan *p)
{
	if (dnum(d, o, "estimate_tokens_per_second", 0, 1e9, &p->estimate_tokens_per_second,
	    0) == -1 ||
	    dnum(d, o, "estimate_low", 0, 1e9, &p->estimate_low, 1) == -1 ||
	    dnum(d, o, "estimate_high", 0, 1e9, &p->estimate_high, 1) == -1 ||
	    dstr(d, o, "estimate_fitted_to", p->estimate_fitted_to,
	    sizeof(p->estimate_fitted_to), 1) == -1)
		return -1;
	if (isnan(p->estimate_low) || isnan(p->estimate_high))
		p->estimate_low = p->estimate_high = 0;
	if (p->estimate_low > p->estimate_high)
		return fail(d, "estimate_low", "%g is above estimate_high %g", p->estimate_low,
		    p->estimate_high);
	return 0;
}

static int
decode_head(struct dec *d, const cJSON *o, struct plan *p)
{
	char s[16];
	int64_t batch;

	if (dint(d, o, "id", 0, 9e15, &p->id, 1) == -1 ||
	    dstr(d, o, "model", p->model, sizeof(p->model), 0) == -1 ||
	    dstr(d, o, "cluster", p->cluster, sizeof(p->cluster), 0) == -1 ||
	    dstr(d, o, "strategy", s, sizeof(s), 0) == -1)
		return -1;
	if (plan_strategy_parse(s, &p->strategy) == -1)
		return fail(d, "strategy", "\"%s\" is not a strategy", s);
	if (dstr(d, o, "state", s, sizeof(s), 0) == -1)
		return -1;
	if (plan_state_parse(s, &p->state) == -1)
		return fail(d, "state", "\"%s\" is not a placement state", s);
	if (dstr(d, o, "why", p->why, sizeof(p->why), 1) == -1 ||
	    dstr(d, o, "reason", p->reason, sizeof(p->reason), 1) == -1 ||
	    dint(d, o, "context", 1, PLAN_CONTEXT_MAX, &p->context, 0) == -1 ||
	    dint(d, o, "batch", 1, PLAN_BATCH_MAX, &batch, 0) == -1 ||
	    dnum(d, o, "created_at", 0, 1e11, &p->created_at, 1) == -1 ||
	    decode_estimate(d, o, p) == -1 ||
	    dstr(d, o, "launch", p->launch, sizeof(p->launch), 1) == -1 ||
	    dstr(d, o, "prepare", p->prepare, sizeof(p->prepare), 1) == -1 ||
	    dstr(d, o, "copy", p->copy, sizeof(p->copy), 1) == -1 ||
	    dstr(d, o, "coordinator", p->coordinator, sizeof(p->coordinator), 1) == -1 ||
	    dstr(d, o, "coordinator_from", p->coordinator_from, sizeof(p->coordinator_from),
	    1) == -1 ||
	    dstr(d, o, "model_path", p->model_path, sizeof(p->model_path), 1) == -1 ||
	    dstr(d, o, "runtime", s, sizeof(s), 1) == -1)
		return -1;
	if (s[0] && plan_runtime_parse(s, &p->runtime) == -1)
		return fail(d, "runtime", "\"%s\" is not mlx-lm or exo", s);
	p->batch = (int)batch;
	return decode_notes(d, o, p);
}

static int
decode_plan_obj(struct dec *d, const cJSON *o, struct plan *p)
{
	const cJSON *a, *v;

	memset(p, 0, sizeof(*p));
	if (!cJSON_IsObject(o))
		return fail(d, "placement", "not an object");
	if (decode_head(d, o, p) == -1)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(o, "ranks");
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > PLAN_RANKS_MAX)
		return fail(d, "ranks", "missing or more than %d", PLAN_RANKS_MAX);
	cJSON_ArrayForEach(v, a)
		if (decode_rank(d, v, &p->ranks[p->n_ranks++]) == -1)
			return -1;
	if (decode_hostfile(d, o, p) == -1 || decode_candidates(d, o, p) == -1)
		return -1;
	return 0;
}

static cJSON *
parse(struct dec *d, const char *json, size_t len)
{
	return json_dec_object(json, len, JSON_DEC_MAX, d->err, d->errlen);
}

int
plan_json_decode(const char *json, size_t len, struct plan *out, char *err, size_t errlen)
{
	struct dec d = { err, errlen, "" };
	cJSON *root = parse(&d, json, len);

	if (root == NULL)
		return -1;
	int rc = decode_plan_obj(&d, root, out);
	cJSON_Delete(root);
	return rc;
}

int
plan_json_decode_list(const char *json, size_t len, struct plan **out, int *n, char *err,
    size_t errlen)
{
	struct dec d = { err, errlen, "" };
	cJSON *root = parse(&d, json, len);
	const cJSON *a, *v;
	char pfx[32];
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (root == NULL)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(root, "placements");
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(root);
		return fail(&d, "placements", "missing or not an array");
	}
	*out = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(**out));
	if (*out == NULL) {
		cJSON_Delete(root);
		return fail(&d, "placements", "out of memory");
	}
	cJSON_ArrayForEach(v, a) {
		snprintf(pfx, sizeof(pfx), "placements[%d].", *n);
		d.pfx = pfx;
		if ((rc = decode_plan_obj(&d, v, &(*out)[*n])) == -1)
			break;
		(*n)++;
	}
	cJSON_Delete(root);
	if (rc == -1) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int
decode_request_nodes(struct dec *d, const cJSON *o, struct plan_request *r)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "nodes"), *v;

	r->n_nodes = 0;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > PLAN_RANKS_MAX)
		return fail(d, "nodes", "not an array of at most %d names", PLAN_RANKS_MAX);
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v) || !api_name_valid(v->valuestring))
			return fail(d, "nodes", "element %d is not a node name", r->n_nodes);
		for (int i = 0; i < r->n_nodes; i++)
			if (strcmp(r->nodes[i], v->valuestring) == 0)
				return fail(d, "nodes", "%s is listed twice", v->valuestring);
		strcpy(r->nodes[r->n_nodes++], v->valuestring);
	}
	return 0;
}

static const char *const request_keys[] = { "model", "cluster", "strategy", "context", "batch",
	"runtime", "entry", "fast_synch", "nodes", NULL };

int
plan_json_decode_request(const char *json, size_t len, struct plan_request *r, char *err,
    size_t errlen)
{
	struct dec d = { err, errlen, "" };
	cJSON *root;
	char s[16], rt[16];
	int64_t batch;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (len > API_BODY_MAX || (root = parse(&d, json, len)) == NULL)
		return len > API_BODY_MAX ? fail(&d, "body", "too large") : -1;
	struct json_dec jd;
	json_dec_init(&jd, err, errlen);
	if (!cJSON_IsObject(root))
		fail(&d, "body", "not a JSON object");
	else if (json_dec_known_keys(&jd, root, NULL, "a placement request", request_keys) == 0 &&
	    dstr(&d, root, "model", r->model, sizeof(r->model), 0) == 0 &&
	    dstr(&d, root, "cluster", r->cluster, sizeof(r->cluster), 1) == 0 &&
	    dstr(&d, root, "strategy", s, sizeof(s), 1) == 0 &&
	    dint(&d, root, "context", 1, PLAN_CONTEXT_MAX, &r->context, 1) == 0 &&
	    dint(&d, root, "batch", 1, PLAN_BATCH_MAX, &batch, 1) == 0 &&
	    dstr(&d, root, "runtime", rt, sizeof(rt), 1) == 0 &&
	    dstr(&d, root, "entry", r->entry, sizeof(r->entry), 1) == 0 &&
	    dbool(&d, root, "fast_synch", &r->fast_synch) == 0 &&
	    decode_request_nodes(&d, root, r) == 0) {
		r->batch = (int)batch;
		if (r->cluster[0] && !api_name_valid(r->cluster))
			fail(&d, "cluster", "\"%s\" is not a cluster name", r->cluster);
		else if (s[0] && plan_strategy_parse(s, &r->strategy) == -1)
			fail(&d, "strategy", "\"%s\" is not auto, tensor, pipeline or single", s);
		else if (rt[0] && plan_runtime_parse(rt, &r->runtime) == -1)
			fail(&d, "runtime", "\"%s\" is not mlx-lm or exo", rt);
		else if (r->entry[0] && strcmp(r->entry, "server") != 0 &&
		    strcmp(r->entry, "chat") != 0)
			fail(&d, "entry", "\"%s\" is not server or chat", r->entry);
		else if (r->model[0] == '\0')
			fail(&d, "model", "empty");
		else
			rc = 0;
	}
	cJSON_Delete(root);
	return rc;
}
