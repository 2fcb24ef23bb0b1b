/*
 * place, placement show and replan, placements and models for people: a
 * plan's ranks, estimate, runtime and launch line; the placements applied;
 * the model catalog.
 */
#include "ctl_output.h"

#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "ctl_format.h"
#include "plan.h"

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
