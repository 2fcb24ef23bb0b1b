/*
 * tbctl models, models add FILE, place MODEL, placements, placement
 * show|remove|replan ID: the model catalog and placements.
 */
#include "ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "catalog.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "plan.h"

#define FILE_MAX ((size_t)4 << 20)

int
ctl_place_request(const struct ctl_args *a, struct plan_request *req, char *err,
    size_t errlen)
{
	long v;

	memset(req, 0, sizeof(*req));
	if (strlen(a->pos[0]) > PLAN_MODEL_MAX || strchr(a->pos[0], ':') == NULL) {
		snprintf(err, errlen, "place: \"%s\" is not MODEL:QUANT (deepseek-v3.1:4bit; "
		    "tbctl models lists them)", a->pos[0]);
		return -1;
	}
	snprintf(req->model, sizeof(req->model), "%s", a->pos[0]);
	if (a->cluster != NULL && !api_name_valid(a->cluster)) {
		snprintf(err, errlen, "place: --cluster: \"%s\" is not a cluster name", a->cluster);
		return -1;
	}
	if (a->cluster != NULL)
		snprintf(req->cluster, sizeof(req->cluster), "%s", a->cluster);
	if (a->strategy != NULL && plan_strategy_parse(a->strategy, &req->strategy) == -1) {
		snprintf(err, errlen, "place: --strategy: \"%s\" is not auto, tensor, pipeline "
		    "or single", a->strategy);
		return -1;
	}
	if (a->runtime != NULL && plan_runtime_parse(a->runtime, &req->runtime) == -1) {
		snprintf(err, errlen, "place: --runtime: \"%s\" is not mlx-lm or exo", a->runtime);
		return -1;
	}
	if (a->entry != NULL && strcmp(a->entry, "chat") != 0 && strcmp(a->entry, "server") != 0) {
		snprintf(err, errlen, "place: --entry: \"%s\" is not chat or server", a->entry);
		return -1;
	}
	if (a->entry != NULL)
		snprintf(req->entry, sizeof(req->entry), "%s", a->entry);
	req->fast_synch = a->fast_synch;
	if (a->context != NULL) {
		if (ctl_parse_count(a->context, 1, PLAN_CONTEXT_MAX, &v) == -1) {
			snprintf(err, errlen, "place: --context: \"%s\" is not a token count from 1 "
			    "to %d", a->context, PLAN_CONTEXT_MAX);
			return -1;
		}
		req->context = v;
	}
	for (const char *s = a->nodes; s != NULL && *s;) {
		size_t l = strcspn(s, ",");
		if (req->n_nodes == PLAN_RANKS_MAX || l == 0 || l > API_NAME_MAX) {
			snprintf(err, errlen, "place: --nodes: give up to %d node names, a,b,c",
			    PLAN_RANKS_MAX);
			return -1;
		}
		memcpy(req->nodes[req->n_nodes], s, l);
		req->nodes[req->n_nodes][l] = '\0';
		if (!api_name_valid(req->nodes[req->n_nodes])) {
			snprintf(err, errlen, "place: --nodes: \"%s\" is not a node name",
			    req->nodes[req->n_nodes]);
			return -1;
		}
		req->n_nodes++;
		s += l + (s[l] == ',');
	}
	return 0;
}

static void
layers_cell(const struct plan_rank *r, char *buf, size_t n)
{
	if (r->layer_end > r->layer_start)
		snprintf(buf, n, "%d-%d (%d)", r->layer_start, r->layer_end - 1,
		    r->layer_end - r->layer_start);
	else
		snprintf(buf, n, "-");
}

static int
ranks_table(FILE *f, const struct plan *p)
{
	static const char *headers[] = { "RANK", "NODE", "LAYERS", "WEIGHTS", "KV CACHE",
		"TOTAL", "USABLE", "FREE AFTER" };
	struct ctl_table *t = ctl_table_new(8, headers);
	char rank[16], layers[48], b[5][CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < p->n_ranks; i++) {
		const struct plan_rank *r = &p->ranks[i];
		snprintf(rank, sizeof(rank), "%d", r->rank);
		layers_cell(r, layers, sizeof(layers));
		const char *cells[] = { rank, r->node, layers,
			ctl_fmt_bytes(r->weights_bytes, b[0], sizeof(b[0])),
			ctl_fmt_bytes(r->kv_cache_bytes, b[1], sizeof(b[1])),
			ctl_fmt_bytes(r->total_bytes, b[2], sizeof(b[2])),
			ctl_fmt_bytes(r->usable_bytes, b[3], sizeof(b[3])),
			ctl_fmt_bytes(r->free_after_bytes, b[4], sizeof(b[4])) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

/* "26" or "2.4": whole tokens/s from 10 up, a decimal below. */
static void
tps_cell(double v, double ref, char *buf, size_t n)
{
	snprintf(buf, n, ref >= 10 ? "%.0f" : "%.1f", v);
}

/* "estimate: decode ~26 tokens/s (22-30)" and the measurements behind it. */
static void
estimate_print(FILE *f, const struct plan *p)
{
	double v = p->estimate_tokens_per_second;
	char mid[32], lo[32], hi[32];

	tps_cell(v, v, mid, sizeof(mid));
	if (p->estimate_high > 0) {
		tps_cell(p->estimate_low, v, lo, sizeof(lo));
		tps_cell(p->estimate_high, v, hi, sizeof(hi));
		fprintf(f, "\nestimate: decode ~%s tokens/s (%s-%s)\n", mid, lo, hi);
	} else {
		fprintf(f, "\nestimate: decode ~%s tokens/s\n", mid);
	}
	if (p->estimate_fitted_to[0])
		fprintf(f, "estimate fitted to: %s\n", p->estimate_fitted_to);
}

int
ctl_placement_print(FILE *f, const struct plan *p, const char *hostfile)
{
	fprintf(f, "%s on %s: %s over %d node%s, backend %s, %lld-token context, batch %d",
	    p->model, p->cluster, plan_strategy_str(p->strategy), p->n_ranks,
	    p->n_ranks == 1 ? "" : "s", p->backend, (long long)p->context, p->batch);
	if (p->id > 0)
		fprintf(f, "; placement %lld, %s%s%s", (long long)p->id, plan_state_str(p->state),
		    p->reason[0] ? ": " : "", p->reason);
	fprintf(f, "\nwhy: %s\n\n", p->why);
	if (ranks_table(f, p) == -1)
		return -1;
	estimate_print(f, p);
	for (int i = 0; i < p->n_candidates; i++) {
		const struct plan_candidate *c = &p->candidates[i];
		if (c->fits)
			fprintf(f, "  %-9s %.1f tokens/s, %s\n", plan_strategy_str(c->strategy),
			    c->estimate_tokens_per_second, c->reason);
		else
			fprintf(f, "  %-9s no: %s\n", plan_strategy_str(c->strategy), c->reason);
	}
	fprintf(f, "runtime: %s\n", plan_runtime_str(p->runtime));
	if (p->coordinator[0] || p->coordinator_from[0])
		fprintf(f, "coordinator: %s%s(%s)\n", p->coordinator, p->coordinator[0] ? " " : "",
		    p->coordinator_from);
	for (int i = 0; i < p->n_notes; i++)
		fprintf(f, "note: %s\n", p->notes[i]);
	if (hostfile != NULL)
		fprintf(f, "hostfile: %s\n", hostfile);
	if (p->model_path[0] && p->launch[0])
		fprintf(f, "model path: %s (the same on every Mac)\n", p->model_path);
	if (p->prepare[0])
		fprintf(f, "prepare: %s\n", p->prepare);
	if (p->copy[0])
		fprintf(f, "copy: %s\n", p->copy);
	if (p->launch[0]) {
		const char *at = hostfile ? strstr(p->launch, "hostfile.json") : NULL;
		if (at != NULL)
			fprintf(f, "launch: %.*s%s%s\n", (int)(at - p->launch), p->launch, hostfile,
			    at + strlen("hostfile.json"));
		else
			fprintf(f, "launch: %s\n", p->launch);
	}
	return 0;
}

int
ctl_placements_print(FILE *f, const struct plan *ps, int n, double now)
{
	static const char *headers[] = { "ID", "MODEL", "CLUSTER", "STRATEGY", "NODES",
		"STATE", "TOKENS/S", "CREATED" };
	struct ctl_table *t = ctl_table_new(8, headers);
	char id[24], tps[24], nodes[256], created[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct plan *p = &ps[i];
		snprintf(id, sizeof(id), "%lld", (long long)p->id);
		snprintf(tps, sizeof(tps), "%.1f", p->estimate_tokens_per_second);
		nodes[0] = '\0';
		for (int k = 0; k < p->n_ranks; k++)
			snprintf(nodes + strlen(nodes), sizeof(nodes) - strlen(nodes), "%s%s",
			    k ? "," : "", p->ranks[k].node);
		const char *cells[] = { id, p->model, p->cluster, plan_strategy_str(p->strategy),
			nodes, plan_state_str(p->state), tps,
			ctl_fmt_age(p->created_at, now, created, sizeof(created)) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

int
ctl_models_print(FILE *f, const struct catalog_model *m, int n)
{
	static const char *headers[] = { "NAME", "PARAMS", "ACTIVE", "LAYERS", "ATTENTION",
		"KV/TOKEN", "TENSOR", "VARIANTS" };
	struct ctl_table *t = ctl_table_new(8, headers);
	char params[24], active[24], layers[16], attn[48], kv[CTL_FMT_MAX], vs[256];
	char b[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(params, sizeof(params), "%.1fB", (double)m[i].total_params / 1e9);
		snprintf(active, sizeof(active), "%.1fB", (double)m[i].active_params / 1e9);
		snprintf(layers, sizeof(layers), "%d", m[i].layers);
		snprintf(attn, sizeof(attn), "%s %d/%d", m[i].attention == CATALOG_ATTN_MLA ?
		    "MLA" : "GQA", m[i].attention_heads, m[i].kv_heads);
		ctl_fmt_bytes(m[i].kv_cache_bytes_per_token, kv, sizeof(kv));
		vs[0] = '\0';
		for (int v = 0; v < m[i].n_variants; v++)
			snprintf(vs + strlen(vs), sizeof(vs) - strlen(vs), "%s%s %s", v ? ", " : "",
			    m[i].variants[v].quant, ctl_fmt_bytes(m[i].variants[v].bytes, b,
			    sizeof(b)));
		const char *cells[] = { m[i].name, params, active, layers, attn, kv,
			m[i].tensor_sharding ? "yes" : "no", vs };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
show_models(const char *body, size_t len, char *err, size_t errlen)
{
	struct catalog_model *m = NULL;
	int n, rc = -1;

	if (catalog_decode(body, len, &m, &n, err, errlen) == 0)
		rc = ctl_models_print(stdout, m, n) == -1 ? CTL_SHOW_OOM : 0;
	free(m);
	return rc;
}

int
ctl_models_list(struct ctl_client *cl, const struct ctl_args *a)
{
	return ctl_get_show(cl, a, "/v1/models", "the list of models", show_models);
}

/* The whole file into a malloc'd, NUL-terminated buffer; NULL with err. */
static char *
read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((buf = malloc(FILE_MAX + 1)) == NULL) {
		fclose(fp);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*len = fread(buf, 1, FILE_MAX + 1, fp);
	int bad = ferror(fp) || *len > FILE_MAX;
	fclose(fp);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: unreadable or larger than %zu bytes", path, FILE_MAX);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

int
ctl_models_add(struct ctl_client *cl, const struct ctl_args *a)
{
	struct catalog_model m;
	struct ctl_reply r;
	char err[512], what[CATALOG_NAME_MAX + 16];
	size_t len;
	char *body = read_file(a->pos[0], &len, err, sizeof(err));
	int rc;

	if (body == NULL)
		return ctl_fail("models add: %s", err);
	if (catalog_decode_model(body, len, &m, err, sizeof(err)) == -1) {
		free(body);
		return ctl_fail("models add: %s: %s", a->pos[0], err);
	}
	snprintf(what, sizeof(what), "model %s", m.name);
	rc = ctl_call(cl, "POST", "/v1/models", body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK)
		printf("model %s added (%d variants)\n", m.name, m.n_variants);
	ctl_reply_free(&r);
	return rc;
}

static int
write_hostfile(const char *path, const struct plan *p)
{
	char *json = plan_json_hostfile(p);
	FILE *f;
	int ok;

	if (json == NULL)
		return ctl_fail("out of memory");
	if ((f = fopen(path, "w")) == NULL) {
		free(json);
		return ctl_fail("--hostfile: %s: %s", path, strerror(errno));
	}
	ok = fputs(json, f) >= 0 && fputc('\n', f) != EOF;
	ok = fclose(f) == 0 && ok;
	free(json);
	return ok ? CTL_EXIT_OK : ctl_fail("--hostfile: %s: write failed", path);
}

/* Print a reply holding one plan (and write its hostfile when asked). */
static int
show_plan_reply(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_reply *r)
{
	struct plan *p = calloc(1, sizeof(*p));
	char err[512];
	int rc = CTL_EXIT_OK;

	if (p == NULL)
		return ctl_fail("out of memory");
	if (plan_json_decode(r->body, r->len, p, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the plan: %s", err);
	else if (a->hostfile != NULL)
		rc = write_hostfile(a->hostfile, p);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r->body, r->len);
	else if (rc == CTL_EXIT_OK && ctl_placement_print(stdout, p, a->hostfile) == -1)
		rc = ctl_fail("out of memory");
	free(p);
	return rc;
}

int
ctl_place(struct ctl_client *cl, const struct ctl_args *a)
{
	struct plan_request req;
	struct ctl_reply r;
	char err[512];
	int rc;

	if (ctl_place_request(a, &req, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	char *body = plan_json_request(&req);
	if (body == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", a->apply ? "/v1/placements" : "/v1/placements/plan", body,
	    req.model, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}

static int
show_placements(const char *body, size_t len, char *err, size_t errlen)
{
	struct plan *ps = NULL;
	int n, rc = -1;

	if (plan_json_decode_list(body, len, &ps, &n, err, errlen) == 0)
		rc = ctl_placements_print(stdout, ps, n, ctl_now()) == -1 ? CTL_SHOW_OOM : 0;
	free(ps);
	return rc;
}

int
ctl_placements_list(struct ctl_client *cl, const struct ctl_args *a)
{
	return ctl_get_show(cl, a, "/v1/placements", "the list of placements", show_placements);
}

/* method on /v1/placements/ID[suffix]; the reply in *r. */
static int
placement_call(struct ctl_client *cl, const char *cmd, const char *id, const char *method,
    const char *suffix, struct ctl_reply *r)
{
	char path[128], what[64];
	long v;

	memset(r, 0, sizeof(*r));
	if (ctl_parse_count(id, 1, 2147483647L, &v) == -1)
		return ctl_usage("%s: \"%s\" is not a placement id (tbctl placements)", cmd, id);
	snprintf(path, sizeof(path), "/v1/placements/%ld%s", v, suffix);
	snprintf(what, sizeof(what), "placement %ld", v);
	return ctl_call(cl, method, path, strcmp(method, "POST") == 0 ? "{}" : NULL, what, r);
}

int
ctl_placement_show(struct ctl_client *cl, const struct ctl_args *a)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement show", a->pos[0], "GET", "", &r);

	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}

int
ctl_placement_replan(struct ctl_client *cl, const struct ctl_args *a)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement replan", a->pos[0], "POST", "/replan", &r);

	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}

int
ctl_placement_remove(struct ctl_client *cl, const struct ctl_args *a)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement remove", a->pos[0], "DELETE", "", &r);
	char id[32];

	/* 204; the id as a number, as the API has it ("007" is 7) */
	snprintf(id, sizeof(id), "%ld", strtol(a->pos[0], NULL, 10));
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_done("removed", id, 0);
	else if (rc == CTL_EXIT_OK)
		printf("placement %s removed\n", id);
	ctl_reply_free(&r);
	return rc;
}
