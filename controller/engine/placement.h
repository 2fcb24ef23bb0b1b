/*
 * Model placement (DESIGN.md "Placement"): a pure engine.  Given a model
 * variant from the catalog, a context length and batch, and a cluster's
 * nodes (memory, chip, what running placements hold) and links (from the
 * wiring check, through one adapter: placement_wiring.c), it proposes where
 * the layers go, which MLX backend to use, the mlx.launch hostfile and an
 * estimate of decode tokens per second.  No I/O, no clock.
 *
 * Memory usable on a node (place_usable_bytes):
 *   the GPU wired limit (iogpu.wired_limit_mb) when one is set, else the
 *   macOS default share of RAM: 3/4 above 36 GiB, 2/3 at or below;
 *   minus the headroom (opts.headroom_bytes), minus what active placements
 *   already hold on it (node.reserved_bytes).
 *
 * Strategies (each a candidate; --strategy auto takes the fastest that fits):
 *   single    one node holds all weights and the KV cache;
 *   tensor    N nodes, a passing RDMA link between every pair, N divides the
 *             attention and KV heads, the model supports sharding; each node
 *             holds 1/N of the sharded weights + the replicated embeddings
 *             and output head + its KV cache (1/N of it for GQA; the whole
 *             MLA latent cache, which is not split by head);
 *   pipeline  N nodes in a ring of links (RDMA: jaccl-ring; IP only: ring),
 *             contiguous layer ranges in proportion to usable memory (largest
 *             remainder, at least one layer each, then layers moved off a
 *             node that would overflow onto ones with room), rank 0 holding
 *             the embeddings and the last rank the output head.
 *   Two nodes on different macOS builds (os_build, both known) are not RDMA
 *   peers, whatever their link says: no tensor plan and no jaccl ring across
 *   builds (during a rolling OS update), only a TCP ring (backend "ring").
 *   With opts.exact the nodes given are used, all of them; otherwise the
 *   smallest set of nodes that fits, the fastest of those.
 *
 * Decode estimate, seconds per step of `batch` tokens: a model with named
 * parameters fitted to published measurements (placement_estimate.c has the
 * fit, its data, sources and errors; tbctl(1) the summary):
 *   single    (R + K) / (e B) + L c
 *   tensor    max_i ((R-H)/N + H + K_i) / (e B_i) + L c
 *               + 2 L (a0 + a1 (N-1) + 2 h / (N f S))
 *   pipeline  sum_i ((R-H) L_i/L + K_i) / (e B_i) + H / (e B_last) + L c
 *               + N (a + h / (f S))
 *   R  weight bytes a step reads (variant bytes x active/total at batch 1)
 *   H  the output head, read whole by every tensor rank
 *   K  KV cache bytes at the full context (read once per step)
 *   B  memory bandwidth of the node's chip (place_chip_bandwidth_gbs)
 *   L  layers; h hidden size x 2 bytes x batch; S slowest link's speed
 *   e 0.82 of B achieved; c 156 us a layer; a0 18 us + a1 11 us a peer an
 *   all-reduce; f 0.63 of a link's speed; a: opts.rdma_latency_s (jaccl-ring,
 *   29 us), opts.tcp_latency_s (ring)
 *   The plan shows it as a range, tokens/s x (1 -+ 0.17): the largest error
 *   of the fit on a measurement left out of it.
 */
#ifndef TBMESH_PLACEMENT_H
#define TBMESH_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "catalog.h"
#include "plan.h"

#define PLACE_NODES_MAX PLAN_RANKS_MAX
#define PLACE_LINKS_MAX (PLACE_NODES_MAX * (PLACE_NODES_MAX - 1) / 2)
#define PLACE_HEADROOM_DEFAULT (INT64_C(8) << 30)
#define PLACE_RDMA_LATENCY_S 29e-6     /* a JACCL exchange: placement_estimate.c [J] */
#define PLACE_TCP_LATENCY_S 200e-6

struct place_node {
	api_name name;
	char chip[64];                  /* "Apple M3 Ultra"; "" unknown */
	int64_t memory_bytes;           /* RAM; <= 0 unknown */
	int64_t gpu_wired_limit_bytes;  /* 0: the macOS default */
	int64_t reserved_bytes;         /* held by active placements */
	char os_build[32];              /* macOS build ("25C56"); "" unknown */
	int available;                  /* may take a placement (ready) */
	char unavailable_why[64];       /* "cordoned", "unreachable", ... */
	char lan_ipv4[16];              /* its LAN address (Ethernet, else Wi-Fi); "" unknown */
	char lan_from[48];              /* "en0, ethernet" */
	char ssh_host[256];             /* how it is reached over SSH; "" unknown */
	char ssh_user[64];              /* the SSH user; "" the caller's own */
};

/* A second (third, ...) cable between the two nodes of a place_link. */
struct place_cable {
	char dev_a[PLAN_DEV_MAX + 1];
	char dev_b[PLAN_DEV_MAX + 1];
	char ipv4_a[16];
	char ipv4_b[16];
};

/* What placement needs about one pair of nodes (the adapter fills it). */
struct place_link {
	int a, b;                       /* indexes in place_input.nodes */
	int rdma_pass;                  /* a passing RDMA link */
	int ip_ok;                      /* IPv4 on both ends: TCP over Thunderbolt */
	char dev_a[PLAN_DEV_MAX + 1];   /* RDMA device on a ("rdma_en3"); "" none */
	char dev_b[PLAN_DEV_MAX + 1];
	char ipv4_a[16];                /* "" none */
	char ipv4_b[16];
	double speed_gbps;              /* NAN unknown */
	char problem[96];               /* the link's verdict when it does not pass */
	int n_extra;                    /* more passing cables between a and b */
	struct place_cable extra[PLAN_CABLES_MAX - 1];
};

struct place_input {
	api_name cluster;
	int rollout;                    /* an OS update campaign is under way here */
	int n_nodes;
	struct place_node nodes[PLACE_NODES_MAX];
	int n_links;                    /* a pair without a link has no cable */
	struct place_link links[PLACE_LINKS_MAX];
};

struct place_opts {
	enum plan_strategy strategy;
	int64_t context;
	int batch;
	int64_t headroom_bytes;
	int exact;                      /* use every available node given, no subset */
	double rdma_latency_s;
	double tcp_latency_s;
	enum plan_runtime runtime;      /* whose rules the plan follows (mlx-lm) */
	int fast_synch;                 /* MLX_METAL_FAST_SYNCH=1 in the hostfile's envs */
	char entry[16];                 /* mlx-lm entry point: "chat" (default) or "server" */
};

/* Defaults: auto, PLAN_CONTEXT_DEFAULT, batch 1, 8 GiB headroom. */
void place_opts_init(struct place_opts *o);

/* Memory bandwidth of a chip ("Apple M3 Ultra"), GB/s; 0 when unknown. */
double place_chip_bandwidth_gbs(const char *chip);

/* Bytes a placement may use on n (the rule above); may be negative. */
int64_t place_usable_bytes(const struct place_node *n, int64_t headroom);

/*
 * Plan model:variant on in.  Returns 0 and fills *out (id 0, state
 * proposed, created_at NAN), or -1 with the reason in err ("tensor needs a
 * full RDMA mesh: mac3 to mac4 is missing"; for auto, every strategy's).
 * On both, out->candidates says what each strategy gave.
 */
int place_plan(const struct catalog_model *m, const struct catalog_variant *v,
    const struct place_input *in, const struct place_opts *opts, struct plan *out, char *err,
    size_t errlen);

/*
 * Split layers over k nodes in proportion to cap (largest remainder, then at
 * least one layer each when layers >= k); counts gets k numbers summing to layers.
 */
void place_split_layers(int layers, const int64_t *cap, int k, int *counts);

/*
 * 1 when nodes a and b of in run different known builds; why then says so
 * ("mac2 runs 25C56, mac3 25D5: RDMA peers need matching builds during the
 * rollout").
 */
int place_build_skew(const struct place_input *in, int a, int b, char *why, size_t n);

/*
 * 1 when the hostfiles of was and now differ (backend, ranks, a host's ssh,
 * ips or RDMA devices), with the first difference in why ("mac1's RDMA
 * device toward mac2 rdma_en3 is now rdma_en4"); 0 when they are the same.
 */
int place_hostfile_diff(const struct plan *was, const struct plan *now, char *why, size_t n);

/* "412 GB" (decimal, as people read disk and model sizes). */
void place_fmt_bytes(int64_t b, char *buf, size_t n);

#endif
