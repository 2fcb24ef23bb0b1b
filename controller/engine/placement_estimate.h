/*
 * The decode estimate (placement_estimate.c): seconds per decode step of a
 * candidate from the bytes each rank reads, a fixed cost per layer, and the
 * all-reduces or hops between ranks, with parameters fitted to published
 * measurements (the fit, its data and its errors are in that file's
 * header).  Pure functions of plain numbers: no I/O, no clock.
 */
#ifndef TBMESH_PLACEMENT_ESTIMATE_H
#define TBMESH_PLACEMENT_ESTIMATE_H

#include "catalog.h"
#include "plan.h"

/* What one decode step of a model variant reads and sends (place_est_init). */
struct place_est {
	int layers;
	double read_bytes;      /* weight bytes one step reads, every rank together */
	double head_bytes;      /* of which the output head: every tensor rank reads it whole */
	double msg_bytes;       /* one activation: hidden size x 2 bytes (bf16) x batch */
};

/* One rank of a candidate. */
struct place_est_rank {
	double kv_bytes;        /* its KV cache at the full context, read once a step */
	double bw;              /* its chip's memory bandwidth, bytes/s (> 0) */
	int layers;             /* pipeline: the layers it runs */
};

/* Fill e for batch (>= 1) steps of m:v. */
void place_est_init(struct place_est *e, const struct catalog_model *m,
    const struct catalog_variant *v, int batch);

/* Seconds per decode step: one node; k tensor ranks over links of
 * link_gbps (the slowest pair); k pipeline ranks in order, hop_s the fixed
 * cost of one hop (jaccl-ring or TCP ring). */
double place_est_single_s(const struct place_est *e, const struct place_est_rank *r);
double place_est_tensor_s(const struct place_est *e, const struct place_est_rank *r, int k,
    double link_gbps);
double place_est_pipeline_s(const struct place_est *e, const struct place_est_rank *r, int k,
    double link_gbps, double hop_s);

/* The range shown with an estimate of tps tokens/s (PLACE_EST_SPREAD). */
void place_est_range(double tps, double *low, double *high);

/* Fill p's estimate_low, estimate_high and estimate_fitted_to from its
 * estimate_tokens_per_second. */
void place_est_fill_plan(struct plan *p);

/* The measurements the parameters were fitted to, one short line. */
extern const char place_est_fitted_to[];

/* The fitted parameters, for the tests (placement_estimate.c says what each is). */
extern const double place_est_bandwidth_efficiency;
extern const double place_est_layer_overhead_s;
extern const double place_est_allreduce_base_s;
extern const double place_est_allreduce_per_peer_s;
extern const double place_est_link_efficiency;
extern const int place_est_allreduces_per_layer;
extern const double place_est_spread;

#endif
