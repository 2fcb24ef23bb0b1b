/*
 * Placement (placement.h): the usable memory rule, the search over sets of
 * nodes for each strategy, and the choice among the candidates.
 */
#include "placement_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB (INT64_C(1) << 30)

/* Apple's published memory bandwidth per chip, GB/s (binned parts slower). */
static const struct { const char *chip; double gbs; } bandwidths[] = {
	{ "M3 Ultra", 819 }, { "M2 Ultra", 800 }, { "M1 Ultra", 800 },
	{ "M4 Max", 546 }, { "M3 Max", 400 }, { "M2 Max", 400 }, { "M1 Max", 400 },
	{ "M4 Pro", 273 }, { "M3 Pro", 150 }, { "M2 Pro", 200 }, { "M1 Pro", 200 },
	{ "M4", 120 }, { "M3", 100 }, { "M2", 100 }, { "M1", 68.25 },
};
#define BW_UNKNOWN_GBS 100.0   /* assumed for a chip not in the table */

void
place_opts_init(struct place_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strategy = PLAN_AUTO;
	o->context = PLAN_CONTEXT_DEFAULT;
	o->batch = 1;
	o->headroom_bytes = PLACE_HEADROOM_DEFAULT;
	o->rdma_latency_s = PLACE_RDMA_LATENCY_S;
	o->tcp_latency_s = PLACE_TCP_LATENCY_S;
}

double
place_chip_bandwidth_gbs(const char *chip)
{
	size_t cl = strlen(chip);

	/* longest names first in the table, so "M3 Ultra" wins over "M3" */
	for (size_t i = 0; i < sizeof(bandwidths) / sizeof(bandwidths[0]); i++) {
		size_t l = strlen(bandwidths[i].chip);
		if (cl >= l && strcmp(chip + cl - l, bandwidths[i].chip) == 0 &&
		    (cl == l || chip[cl - l - 1] == ' '))
			return bandwidths[i].gbs;
	}
	return 0;
}

int64_t
place_usable_bytes(const struct place_node *n, int64_t headroom)
{
	int64_t base;

	if (n->gpu_wired_limit_bytes > 0)
		base = n->gpu_wired_limit_bytes;
	else if (n->memory_bytes <= 0)
		return 0;
	else if (n->memory_bytes > 36 * GIB)
		base = n->memory_bytes / 4 * 3;
	else
		base = n->memory_bytes / 3 * 2;
	return base - headroom - n->reserved_bytes;
}

void
place_fmt_bytes(int64_t b, char *buf, size_t n)
{
	double v = (double)b;

	if (fabs(v) >= 1e12)
		snprintf(buf, n, "%.2f TB", v / 1e12);
	else if (fabs(v) >= 1e9)
		snprintf(buf, n, "%.0f GB", v / 1e9);
	else
		snprintf(buf, n, "%.0f MB", v / 1e6);
}

static int
ctx_init(struct pctx *c, const struct catalog_model *m, const struct catalog_variant *v,
    const struct place_input *in, const struct place_opts *o, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->v = v;
	c->in = in;
	c->o = o;
	memset(c->link, 0xff, sizeof(c->link));
	for (int i = 0; i < in->n_links; i++) {
		int a = in->links[i].a, b = in->links[i].b;
		if (a < 0 || b < 0 || a >= in->n_nodes || b >= in->n_nodes || a == b)
			continue;
		c->link[a][b] = c->link[b][a] = (short)i;
	}
	for (int i = 0; i < in->n_nodes; i++) {
		const struct place_node *nd = &in->nodes[i];
		if (o->exact && !nd->available) {
			snprintf(err, errlen, "%s was asked for but is %s", nd->name,
			    nd->unavailable_why[0] ? nd->unavailable_why : "not ready");
			return -1;
		}
		double gbs = place_chip_bandwidth_gbs(nd->chip);
		c->usable[i] = place_usable_bytes(nd, o->headroom_bytes);
		c->bw[i] = (gbs > 0 ? gbs : BW_UNKNOWN_GBS) * 1e9;
		if (nd->available && c->usable[i] > 0)
			c->idx[c->n++] = i;
	}
	double bpp = (double)v->bytes / (double)m->total_params;
	c->weights = v->bytes;
	c->embed = llround((double)m->vocab_size * m->hidden_size * bpp);
	c->repl = c->embed * (m->tie_word_embeddings ? 1 : 2);
	c->body = c->weights - c->repl;
	c->kv_total = (double)o->context * o->batch * (double)m->kv_cache_bytes_per_token;
	if (c->n == 0) {
		snprintf(err, errlen, "no node of %s can take a placement (none ready with memory "
		    "to spare)", in->cluster[0] ? in->cluster : "the cluster");
		return -1;
	}
	if (c->kv_total > 1e17) {
		snprintf(err, errlen, "a KV cache of %g bytes is beyond any cluster", c->kv_total);
		return -1;
	}
	return 0;
}

/* Better: faster, then more memory left on the fullest node. */
static int
better(const struct pcand *a, const struct pcand *b)
{
	if (fabs(a->seconds - b->seconds) > 1e-12)
		return a->seconds < b->seconds;
	return a->min_free > b->min_free;
}

static int
search_single(const struct pctx *c, struct pcand *best, char *why, size_t n)
{
	struct pcand cd;
	int found = 0;
	int64_t largest = -1;
	char r[256];

	for (int i = 0; i < c->n; i++) {
		cd.order[0] = c->idx[i];
		if (place_try_single(c, &cd, r, sizeof(r)) == 0) {
			if (!found || better(&cd, best))
				*best = cd;
			found = 1;
		} else if (c->usable[c->idx[i]] > largest) {
			largest = c->usable[c->idx[i]];
			snprintf(why, n, "%s", r);
		}
	}
	return found ? 0 : -1;
}

/* Append "; what" (or what, first) to why. */
static void
add_reason(char *why, size_t n, const char *what)
{
	size_t l = strlen(why);

	if (l < n)
		snprintf(why + l, n - l, "%s%s", l ? "; " : "", what);
}

/*
 * Every pair of sel without a passing RDMA link, in words ("tensor needs a
 * full RDMA mesh: s1 to s3 is degraded (40 Gb/s); s2 to s4 is missing");
 * 0 when they make a full mesh.
 */
static int
mesh_gap(const struct pctx *c, const int *sel, int k, char *why, size_t n)
{
	char gaps[PLAN_TEXT_MAX + 1] = "", skews[PLAN_TEXT_MAX + 1] = "", one[200];

	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++) {
			const struct place_link *l = place_pair(c, sel[i], sel[j]);
			char skew[160];
			if (place_build_skew(c->in, sel[i], sel[j], skew, sizeof(skew))) {
				add_reason(skews, sizeof(skews), skew);
				continue;
			}
			if (l != NULL && l->rdma_pass)
				continue;
			if (l != NULL && l->problem[0] && !isnan(l->speed_gbps) &&
			    strcmp(l->problem, "degraded") == 0)
				snprintf(one, sizeof(one), "%s to %s is degraded (%.0f Gb/s)",
				    c->in->nodes[sel[i]].name, c->in->nodes[sel[j]].name,
				    l->speed_gbps);
			else
				snprintf(one, sizeof(one), "%s to %s is %s", c->in->nodes[sel[i]].name,
				    c->in->nodes[sel[j]].name, l == NULL || !l->problem[0] ?
				    "missing" : l->problem);
			add_reason(gaps, sizeof(gaps), one);
		}
	if (gaps[0] == '\0' && skews[0] == '\0')
		return 0;
	if (skews[0] == '\0')
		snprintf(why, n, "tensor needs a full RDMA mesh: %s", gaps);
	else if (gaps[0] == '\0')
		snprintf(why, n, "tensor needs RDMA between every pair: %s", skews);
	else
		snprintf(why, n, "tensor needs a full RDMA mesh: %s; and RDMA between every pair: "
		    "%s", gaps, skews);
	return -1;
}

struct search {
	const struct pctx *c;
	enum plan_strategy strategy;
	struct pcand best;
	int found;
	char structural[PLAN_TEXT_MAX + 1];   /* mesh or ring missing */
	char memory[PLAN_TEXT_MAX + 1];       /* the closest set that did not fit */
	double memory_total;           /* its usable bytes */
};

static void
try_set(struct search *s, const int *sel, int k)
{
	const struct pctx *c = s->c;
	struct pcand cd;
	char r[256];
	double total = 0;

	memset(&cd, 0, sizeof(cd));
	cd.k = k;
	for (int i = 0; i < k; i++)
		total += (double)c->usable[sel[i]];
	double need = (double)c->weights + c->kv_total;
	if (s->strategy == PLAN_PIPELINE && total < need) {
		if (total >= s->memory_total) {
			char nb[32], hb[32], sb[32];
			place_fmt_bytes((int64_t)need, nb, sizeof(nb));
			place_fmt_bytes((int64_t)total, hb, sizeof(hb));
			place_fmt_bytes((int64_t)(need - total), sb, sizeof(sb));
			s->memory_total = total;
			snprintf(s->memory, sizeof(s->memory), "needs %.0f bytes (%s) with its KV "
			    "cache; %d nodes have %s usable: short by %.0f bytes (%s)", need, nb, k,
			    hb, need - total, sb);
		}
		return;
	}
	if (s->strategy == PLAN_TENSOR) {
		if (mesh_gap(c, sel, k, s->structural, sizeof(s->structural)) == -1)
			return;
		if (place_ring_order(c, sel, k, 1, cd.order) == -1)
			memcpy(cd.order, sel, sizeof(int) * (size_t)k);
	} else if (place_ring_order(c, sel, k, 1, cd.order) == 0) {
		snprintf(cd.backend, sizeof(cd.backend), "jaccl-ring");
	} else if (place_ring_order(c, sel, k, 0, cd.order) == 0) {
		snprintf(cd.backend, sizeof(cd.backend), "ring");
	} else {
		snprintf(s->structural, sizeof(s->structural), "pipeline needs the %d nodes "
		    "linked in a ring; their links do not close one", k);
		return;
	}
	int rc = s->strategy == PLAN_TENSOR ? place_try_tensor(c, &cd, r, sizeof(r)) :
	    place_try_pipeline(c, &cd, r, sizeof(r));
	if (rc == 0) {
		if (!s->found || better(&cd, &s->best))
			s->best = cd;
		s->found = 1;
	} else if (total >= s->memory_total) {
		s->memory_total = total;
		snprintf(s->memory, sizeof(s->memory), "%s", r);
	}
}

/* Every k-subset of the eligible nodes (or the k with most memory when many). */
static void
try_sets_of(struct search *s, int k)
{
	const struct pctx *c = s->c;
	int sel[PLACE_NODES_MAX];

	if (c->n > PLACE_SUBSETS_ALL) {
		int used[PLACE_NODES_MAX] = { 0 };
		for (int j = 0; j < k; j++) {
			int best = -1;
			for (int i = 0; i < c->n; i++)
				if (!used[i] && (best < 0 || c->usable[c->idx[i]] >
				    c->usable[c->idx[best]]))
					best = i;
			used[best] = 1;
		}
		int m = 0;
		for (int i = 0; i < c->n; i++)
			if (used[i])
				sel[m++] = c->idx[i];
		try_set(s, sel, k);
		return;
	}
	for (unsigned mask = (1u << k) - 1; mask < (1u << c->n);) {
		int m = 0;
		for (int i = 0; i < c->n; i++)
			if (mask & (1u << i))
				sel[m++] = c->idx[i];
		try_set(s, sel, k);
		unsigned t = mask | (mask - 1);     /* next mask with k bits (Gosper) */
		mask = (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(mask) + 1));
	}
}

/*
 * Whether k ranks can split the model tensor-parallel.  mlx-lm's shard()
 * divides the heads by k with integer division (mlx_lm/models/llama.py:
 * 248-249 at d78bf58); exo wants the hidden size and the KV heads to divide
 * (exo src/exo/master/placement.py:147-148 at b5375f8).
 */
static int
divides_heads(const struct pctx *c, int k)
{
	const struct catalog_model *m = c->m;

	if (c->o->runtime == PLAN_RT_EXO)
		return m->hidden_size % k == 0 && m->kv_heads % k == 0;
	return m->attention_heads % k == 0 && m->kv_heads % k == 0;
}

/*
 * 0 when the plan's runtime can run st on several nodes for this model
 * (the catalog's runtimes, or for mlx-lm its older tensor_sharding); -1
 * with why ("mlx-lm cannot run qwen3-235b-a22b tensor-parallel: ...").
 */
static int
runtime_supports(const struct pctx *c, enum plan_strategy st, char *why, size_t n)
{
	enum catalog_rt r = c->o->runtime == PLAN_RT_EXO ? CATALOG_RT_EXO : CATALOG_RT_MLX_LM;
	const struct catalog_runtime *rt = &c->m->runtimes[r];
	const char *name = catalog_runtime_key(r), *how = plan_strategy_str(st);

	if (!rt->known) {
		if (r == CATALOG_RT_MLX_LM && st == PLAN_TENSOR && c->m->tensor_sharding)
			return 0;
		snprintf(why, n, "the catalog does not say whether %s runs %s %s-parallel (add "
		    "its \"runtimes\")", name, c->m->name, how);
		return -1;
	}
	if (st == PLAN_TENSOR ? rt->tensor : rt->pipeline)
		return 0;
	snprintf(why, n, "%s cannot run %s %s-parallel: %.300s", name, c->m->name, how,
	    rt->source);
	return -1;
}

static int
search_multi(const struct pctx *c, enum plan_strategy st, struct pcand *best, char *why,
    size_t n)
{
	struct search s = { .c = c, .strategy = st, .memory_total = -1 };
	int from = c->o->exact ? c->n : 2, tried = 0;

	if (runtime_supports(c, st, why, n) == -1)
		return -1;
	for (int k = from; k <= c->n && !s.found; k++) {
		if (st == PLAN_TENSOR && !divides_heads(c, k))
			continue;
		tried++;
		try_sets_of(&s, k);
	}
	if (s.found) {
		*best = s.best;
		return 0;
	}
	if (c->n < 2)
		snprintf(why, n, "needs two nodes or more; %d can take it", c->n);
	else if (tried == 0 && c->o->runtime == PLAN_RT_EXO)
		snprintf(why, n, "exo's tensor needs a node count that divides the hidden size "
		    "%d and the %d KV heads; %d nodes do not", c->m->hidden_size, c->m->kv_heads,
		    c->n);
	else if (tried == 0)
		snprintf(why, n, "tensor needs a node count that divides the %d attention and %d "
		    "KV heads; %d nodes do not", c->m->attention_heads, c->m->kv_heads, c->n);
	else
		snprintf(why, n, "%s", s.memory[0] ? s.memory : s.structural);
	return -1;
}

static void
candidate_entry(struct plan_candidate *e, enum plan_strategy st, int rc,
    const struct pcand *cd, const char *why)
{
	memset(e, 0, sizeof(*e));
	e->strategy = st;
	e->fits = rc == 0;
	if (rc == 0) {
		e->n_nodes = cd->k;
		e->estimate_tokens_per_second = 1.0 / cd->seconds;
		if (cd->k == 1)
			snprintf(e->reason, sizeof(e->reason), "on %s", cd->ranks[0].node);
		else
			snprintf(e->reason, sizeof(e->reason), "%d nodes, %s", cd->k, cd->backend);
	} else {
		snprintf(e->reason, sizeof(e->reason), "%.500s", why);
	}
}

static void
fill_plan(const struct pctx *c, const struct pcand *cd, struct plan *p)
{
	p->strategy = cd->strategy;
	p->estimate_tokens_per_second = c->o->batch / cd->seconds;
	place_est_fill_plan(p);
	p->n_ranks = cd->k;
	memcpy(p->ranks, cd->ranks, sizeof(cd->ranks[0]) * (size_t)cd->k);
	place_hostfile(c, cd, p);
}

static void
explain(struct plan *p, const struct pcand *cd, enum plan_strategy asked)
{
	char others[PLAN_TEXT_MAX + 1] = "", nodes[64];
	const char *sep = "";

	if (cd->k == 1)
		snprintf(nodes, sizeof(nodes), "on %s", cd->ranks[0].node);
	else
		snprintf(nodes, sizeof(nodes), "over %d nodes", cd->k);
	for (int i = 0; i < p->n_candidates; i++) {
		const struct plan_candidate *e = &p->candidates[i];
		if (e->strategy == cd->strategy)
			continue;
		size_t l = strlen(others);
		if (e->fits)
			snprintf(others + l, sizeof(others) - l, "%s%s %.1f", sep,
			    plan_strategy_str(e->strategy), e->estimate_tokens_per_second);
		else if (strstr(e->reason, "matching builds") != NULL)
			snprintf(others + l, sizeof(others) - l, "%s%s: %s", sep,
			    plan_strategy_str(e->strategy), e->reason);
		else
			snprintf(others + l, sizeof(others) - l, "%s%s does not fit", sep,
			    plan_strategy_str(e->strategy));
		sep = ", ";
	}
	if (asked == PLAN_AUTO)
		snprintf(p->why, sizeof(p->why), "%s %s: the fastest that fits, %.1f tokens/s "
		    "(%s)", plan_strategy_str(cd->strategy), nodes, 1.0 / cd->seconds, others);
	else
		snprintf(p->why, sizeof(p->why), "%s %s, as asked: %.1f tokens/s (%s)",
		    plan_strategy_str(cd->strategy), nodes, 1.0 / cd->seconds, others);
}

static int
refuse(const struct plan *p, enum plan_strategy asked, char why[][PLAN_TEXT_MAX + 1],
    char *err, size_t errlen)
{
	static const char *names[PLAN_CANDIDATES] = { "single", "tensor", "pipeline" };

	if (asked == PLAN_SINGLE || asked == PLAN_TENSOR || asked == PLAN_PIPELINE) {
		int i = asked == PLAN_SINGLE ? 0 : asked == PLAN_TENSOR ? 1 : 2;
		int named = strncmp(why[i], names[i], strlen(names[i])) == 0;
		snprintf(err, errlen, "%s%s%s", named ? "" : names[i], named ? "" : ": ", why[i]);
	} else {
		snprintf(err, errlen, "%s does not fit on %s: single: %s; tensor: %s; pipeline: %s",
		    p->model, p->cluster[0] ? p->cluster : "these nodes", why[0], why[1], why[2]);
	}
	return -1;
}

int
place_plan(const struct catalog_model *m, const struct catalog_variant *v,
    const struct place_input *in, const struct place_opts *o, struct plan *p, char *err,
    size_t errlen)
{
	static const enum plan_strategy order[PLAN_CANDIDATES] = {
		PLAN_SINGLE, PLAN_TENSOR, PLAN_PIPELINE,
	};
	struct pctx c;
	struct pcand cd[PLAN_CANDIDATES];
	char why[PLAN_CANDIDATES][PLAN_TEXT_MAX + 1];
	int rc[PLAN_CANDIDATES], pick = -1;

	memset(p, 0, sizeof(*p));
	p->created_at = NAN;
	snprintf(p->model, sizeof(p->model), "%s:%s", m->name, v->quant);
	snprintf(p->cluster, sizeof(p->cluster), "%s", in->cluster);
	p->context = o->context;
	p->batch = o->batch;
	if (ctx_init(&c, m, v, in, o, err, errlen) == -1)
		return -1;
	for (int i = 0; i < PLAN_CANDIDATES; i++) {
		why[i][0] = '\0';
		int skip = o->exact && order[i] == PLAN_SINGLE && c.n > 1;
		if (skip)
			snprintf(why[i], sizeof(why[i]), "%d nodes were asked for", c.n);
		rc[i] = skip ? -1 : order[i] == PLAN_SINGLE ?
		    search_single(&c, &cd[i], why[i], sizeof(why[i])) :
		    search_multi(&c, order[i], &cd[i], why[i], sizeof(why[i]));
		candidate_entry(&p->candidates[i], order[i], rc[i], &cd[i], why[i]);
		if (rc[i] == 0 && (o->strategy == PLAN_AUTO || o->strategy == order[i]) &&
		    (pick < 0 || better(&cd[i], &cd[pick])))
			pick = i;
	}
	p->n_candidates = PLAN_CANDIDATES;
	if (pick < 0)
		return refuse(p, o->strategy, why, err, errlen);
	fill_plan(&c, &cd[pick], p);
	explain(p, &cd[pick], o->strategy);
	return 0;
}
