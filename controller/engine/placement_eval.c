/*
 * Placement: one candidate on a given ordered set of nodes (single, tensor,
 * pipeline): the bytes each rank holds, whether they fit, the decode
 * estimate; and the ring order and the layer split they rest on.
 */
#include "placement_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RING_STEPS_MAX 200000

const struct place_link *
place_pair(const struct pctx *c, int a, int b)
{
	int l = c->link[a][b];

	return l < 0 ? NULL : &c->in->links[l];
}

/* Gb/s of the link a-b; unknown speeds count as 40 Gb/s (a slow cable). */
int
place_build_skew(const struct place_input *in, int a, int b, char *why, size_t n)
{
	const char *ba = in->nodes[a].os_build, *bb = in->nodes[b].os_build;

	if (!ba[0] || !bb[0] || strcmp(ba, bb) == 0)
		return 0;
	if (why != NULL)
		snprintf(why, n, "%s runs %s, %s %s: RDMA peers need matching builds%s",
		    in->nodes[a].name, ba, in->nodes[b].name, bb,
		    in->rollout ? " during the rollout" : "");
	return 1;
}

double
place_link_speed(const struct pctx *c, int a, int b)
{
	const struct place_link *l = place_pair(c, a, b);

	if (l == NULL || isnan(l->speed_gbps) || l->speed_gbps <= 0)
		return 40.0;
	return l->speed_gbps;
}

static int
linked(const struct pctx *c, int a, int b, int rdma)
{
	const struct place_link *l = place_pair(c, a, b);

	if (l == NULL)
		return 0;
	if (rdma)
		return l->rdma_pass && !place_build_skew(c->in, a, b, NULL, 0);
	return l->rdma_pass || l->ip_ok;
}

struct ring {
	const struct pctx *c;
	const int *sel;
	int k, rdma, steps;
	int used[PLACE_NODES_MAX];
	int *order;
};

static int
ring_dfs(struct ring *r, int depth)
{
	int last = r->order[depth - 1];

	if (++r->steps > RING_STEPS_MAX)
		return -1;
	if (depth == r->k)
		return r->k <= 2 || linked(r->c, last, r->order[0], r->rdma) ? 0 : -1;
	for (int i = 1; i < r->k; i++) {
		if (r->used[i] || !linked(r->c, last, r->sel[i], r->rdma))
			continue;
		r->used[i] = 1;
		r->order[depth] = r->sel[i];
		if (ring_dfs(r, depth + 1) == 0)
			return 0;
		r->used[i] = 0;
	}
	return -1;
}

int
place_ring_order(const struct pctx *c, const int *sel, int k, int rdma, int *order)
{
	struct ring r = { .c = c, .sel = sel, .k = k, .rdma = rdma, .order = order };

	order[0] = sel[0];
	if (k == 1)
		return 0;
	r.used[0] = 1;
	return ring_dfs(&r, 1);
}

void
place_split_layers(int layers, const int64_t *cap, int k, int *counts)
{
	double total = 0, frac[PLACE_NODES_MAX];
	int given = 0;

	for (int i = 0; i < k; i++)
		total += cap[i] > 0 ? (double)cap[i] : 0;
	for (int i = 0; i < k; i++) {
		double q = total > 0 ? layers * (cap[i] > 0 ? (double)cap[i] : 0) / total :
		    (double)layers / k;
		counts[i] = (int)floor(q);
		frac[i] = q - counts[i];
		given += counts[i];
	}
	while (given < layers) {               /* largest remainder first */
		int best = 0;
		for (int i = 1; i < k; i++)
			if (frac[i] > frac[best])
				best = i;
		counts[best]++;
		frac[best] = -1;
		given++;
	}
	for (int i = 0; i < k; i++) {          /* at least one layer each */
		if (counts[i] > 0)
			continue;
		int most = 0;
		for (int j = 1; j < k; j++)
			if (counts[j] > counts[most])
				most = j;
		if (counts[most] > 1) {
			counts[most]--;
			counts[i]++;
		}
	}
}

static void
fill_rank(const struct pctx *c, struct plan_rank *r, int rank, int node, int64_t w, int64_t kv)
{
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	snprintf(r->node, sizeof(r->node), "%s", c->in->nodes[node].name);
	r->weights_bytes = w;
	r->kv_cache_bytes = kv;
	r->total_bytes = w + kv;
	r->usable_bytes = c->usable[node];
	r->free_after_bytes = c->usable[node] - r->total_bytes;
	r->bandwidth_gbs = c->bw[node] / 1e9;
}

/* 0 when every rank fits; else -1 and why names the worst one. */
static int
check_fit(const struct pctx *c, struct pcand *cd, char *why, size_t n)
{
	int worst = -1;
	char need[32], has[32];

	cd->min_free = INT64_MAX;
	for (int i = 0; i < cd->k; i++) {
		if (cd->ranks[i].free_after_bytes < cd->min_free)
			cd->min_free = cd->ranks[i].free_after_bytes;
		if (cd->ranks[i].free_after_bytes < 0 && (worst < 0 ||
		    cd->ranks[i].free_after_bytes < cd->ranks[worst].free_after_bytes))
			worst = i;
	}
	if (worst < 0)
		return 0;
	place_fmt_bytes(cd->ranks[worst].total_bytes, need, sizeof(need));
	place_fmt_bytes(cd->ranks[worst].usable_bytes, has, sizeof(has));
	snprintf(why, n, "needs %s on %s, which has %s usable (short by %lld bytes)", need,
	    cd->ranks[worst].node, has, (long long)-cd->ranks[worst].free_after_bytes);
	(void)c;
	return -1;
}

int
place_try_single(const struct pctx *c, struct pcand *cd, char *why, size_t n)
{
	int node = cd->order[0];
	int64_t kv = llround(c->kv_total);

	cd->k = 1;
	cd->strategy = PLAN_SINGLE;
	snprintf(cd->backend, sizeof(cd->backend), "ring");
	fill_rank(c, &cd->ranks[0], 0, node, c->weights, kv);
	cd->ranks[0].layer_start = 0;
	cd->ranks[0].layer_end = c->m->layers;
	struct place_est e;
	struct place_est_rank r = { c->kv_total, c->bw[node], c->m->layers };
	place_est_init(&e, c->m, c->v, c->o->batch);
	cd->seconds = place_est_single_s(&e, &r);
	return check_fit(c, cd, why, n);
}

int
place_try_tensor(const struct pctx *c, struct pcand *cd, char *why, size_t n)
{
	int k = cd->k;
	int64_t share = c->body / k, kv = llround(c->kv_total);
	int64_t kv_share = c->m->attention == CATALOG_ATTN_MLA ? kv : kv / k;
	double slowest = 1e9;
	struct place_est e;
	struct place_est_rank r[PLACE_NODES_MAX];

	cd->strategy = PLAN_TENSOR;
	snprintf(cd->backend, sizeof(cd->backend), "jaccl");
	for (int i = 0; i < k; i++) {
		int node = cd->order[i];
		int64_t w = share + c->repl + (i == 0 ? c->body - share * k : 0);
		int64_t kvi = kv_share + (i == 0 && kv_share != kv ? kv - kv_share * k : 0);
		fill_rank(c, &cd->ranks[i], i, node, w, kvi);
		cd->ranks[i].layer_start = 0;
		cd->ranks[i].layer_end = c->m->layers;
		r[i] = (struct place_est_rank){ (double)kvi, c->bw[node], c->m->layers };
		for (int j = i + 1; j < k; j++)
			slowest = fmin(slowest, place_link_speed(c, node, cd->order[j]));
	}
	place_est_init(&e, c->m, c->v, c->o->batch);
	cd->seconds = place_est_tensor_s(&e, r, k, slowest);
	return check_fit(c, cd, why, n);
}

/*
 * Bytes rank i of k holds for layers [s, e).  mlx-lm: every rank loads the
 * embeddings and the output head and runs them (mlx_lm/models/deepseek_v3.py
 * :335, 361, 377-378 at d78bf58); exo: the first holds the embeddings, the
 * last the head.
 */
static void
pipeline_bytes(const struct pctx *c, int i, int k, int s, int e, int64_t *w, int64_t *kv)
{
	double L = c->m->layers;

	*w = llround((double)c->body * e / L) - llround((double)c->body * s / L);
	*kv = llround(c->kv_total * e / L) - llround(c->kv_total * s / L);
	if (c->o->runtime == PLAN_RT_MLX_LM) {
		*w += c->repl;
		return;
	}
	if (i == 0)
		*w += c->embed;
	if (i == k - 1)
		*w += c->embed;   /* the output head (a second copy when tied) */
}

/*
 * mlx-lm's own split (mlx_lm/models/pipeline.py:18-31 at d78bf58): L // k
 * layers a rank in reverse rank order, rank 0 the last ones.  When k does
 * not divide L, its arithmetic leaves layers to no rank (61 over 2: rank 0
 * takes 31-60, rank 1 0-29, layer 30 never runs), so such a plan is
 * refused.  counts[i] is rank i's count, starts[i] its first layer.
 */
static int
mlx_lm_split(const struct pctx *c, int k, int *counts, int *starts, char *why, size_t n)
{
	int L = c->m->layers, per = L / k;

	if (L % k != 0) {
		snprintf(why, n, "mlx-lm's pipeline cannot split %d layers over %d nodes (it "
		    "splits evenly and would leave %d layer%s to no node: mlx_lm/models/"
		    "pipeline.py); a node count that divides %d", L, k, L % k, L % k == 1 ?
		    "" : "s", L);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		counts[i] = per;
		starts[i] = (k - i - 1) * per;
	}
	return 0;
}

/* Move layers off ranks that overflow onto ranks with room; bounded. */
static void
pipeline_rebalance(const struct pctx *c, struct pcand *cd, int *counts)
{
	double per_layer = ((double)c->body + c->kv_total) / c->m->layers;

	for (int iter = 0; iter < c->m->layers * cd->k; iter++) {
		int over = -1, room = -1, s = 0;
		double best_room = per_layer;
		for (int i = 0; i < cd->k; i++) {
			int64_t w, kv;
			pipeline_bytes(c, i, cd->k, s, s + counts[i], &w, &kv);
			s += counts[i];
			double free = (double)c->usable[cd->order[i]] - (double)(w + kv);
			if (free < 0 && counts[i] > 1 && over < 0)
				over = i;
			if (free >= best_room) {
				best_room = free;
				room = i;
			}
		}
		if (over < 0 || room < 0)
			return;
		counts[over]--;
		counts[room]++;
	}
}

int
place_try_pipeline(const struct pctx *c, struct pcand *cd, char *why, size_t n)
{
	int k = cd->k, counts[PLACE_NODES_MAX], starts[PLACE_NODES_MAX], s = 0;
	int64_t cap[PLACE_NODES_MAX] = { 0 };
	double slowest = 1e9;
	struct place_est e;
	struct place_est_rank r[PLACE_NODES_MAX];

	cd->strategy = PLAN_PIPELINE;
	if (k > c->m->layers) {
		snprintf(why, n, "%d nodes but only %d layers", k, c->m->layers);
		return -1;
	}
	if (c->o->runtime == PLAN_RT_MLX_LM) {
		if (mlx_lm_split(c, k, counts, starts, why, n) == -1)
			return -1;
	} else {
		for (int i = 0; i < k; i++)
			cap[i] = c->usable[cd->order[i]];
		place_split_layers(c->m->layers, cap, k, counts);
		pipeline_rebalance(c, cd, counts);
		for (int i = 0; i < k; i++) {
			starts[i] = s;
			s += counts[i];
		}
	}
	for (int i = 0; i < k; i++) {
		int64_t w, kv;
		int node = cd->order[i];
		pipeline_bytes(c, i, k, starts[i], starts[i] + counts[i], &w, &kv);
		fill_rank(c, &cd->ranks[i], i, node, w, kv);
		cd->ranks[i].layer_start = starts[i];
		cd->ranks[i].layer_end = starts[i] + counts[i];
		r[i] = (struct place_est_rank){ (double)kv, c->bw[node], counts[i] };
		if (k > 1)
			slowest = fmin(slowest, place_link_speed(c, node, cd->order[(i + 1) % k]));
	}
	double lat = strcmp(cd->backend, "jaccl-ring") == 0 ? c->o->rdma_latency_s :
	    c->o->tcp_latency_s;
	place_est_init(&e, c->m, c->v, c->o->batch);
	cd->seconds = place_est_pipeline_s(&e, r, k, slowest, lat);
	return check_fit(c, cd, why, n);
}
