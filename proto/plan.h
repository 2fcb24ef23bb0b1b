/*
 * A placement plan (DESIGN.md "Placement"): what the planner proposes, what
 * the controller stores when it is applied, what tbctl prints.  Plain
 * structs shared by tbcontrollerd and tbctl; JSON in plan_json.c.
 *
 * JSON (POST /v1/placements/plan, GET /v1/placements/{id}):
 *   {"id": null|1, "model": "deepseek-v3.1:4bit", "cluster": "studio4",
 *    "strategy": "tensor"|"pipeline"|"single", "why": "one line",
 *    "context": 8192, "batch": 1, "state": "proposed"|"active"|"degraded"|"stale",
 *    "reason": ""|"why degraded", "created_at": 1763782801.2,
 *    "estimate_tokens_per_second": 12.3, "estimate_low": 10.2,
 *    "estimate_high": 14.4, "estimate_fitted_to": "exo 1.0 Qwen3 235B ...",
 *    "ranks": [{"rank", "node", "layer_start", "layer_end" (exclusive),
 *               "weights_bytes", "kv_cache_bytes", "total_bytes",
 *               "usable_bytes", "free_after_bytes", "bandwidth_gbs"}],
 *    "runtime": "mlx-lm"|"exo", "coordinator": "192.0.2.11:32323"|"",
 *    "coordinator_from": "mac1's LAN address (en0, ethernet)"|...|"",
 *    "model_path": "/Users/Shared/tbmesh/models/...", "notes": ["..."],
 *    "hostfile": {"backend": "jaccl"|"jaccl-ring"|"ring", "envs": [...],
 *                 "hosts": [{"ssh": "mac1", "ips": ["192.0.2.11"],
 *                            "rdma": [null, "rdma_en3", ["rdma_en4", "rdma_en5"]]}]},
 *    "launch": "mlx.launch ...", "prepare": "mlx_lm.convert ...",
 *    "copy": "for h in mac2 mac3; do rsync ...; done",
 *    "candidates": [{"strategy", "fits", "estimate_tokens_per_second",
 *                    "nodes", "reason"}]}
 * hostfile is MLX's mlx.launch hostfile (controller/engine/placement_hostfile.c
 * says which of MLX's rules each field follows): rdma[i][j] names the RDMA
 * device on host i whose cable goes to host j, a list of them when several
 * cables join the two, null on the diagonal and where no RDMA link is
 * used; the "ring" backend has no "rdma".
 */
#ifndef TBMESH_PLAN_H
#define TBMESH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define PLAN_RANKS_MAX 32
#define PLAN_MODEL_MAX 95       /* "MODEL:QUANT" */
#define PLAN_TEXT_MAX 511
#define PLAN_LAUNCH_MAX 1023
#define PLAN_DEV_MAX 31         /* "rdma_en3" */
#define PLAN_CABLES_MAX 4       /* RDMA devices toward one peer (MLX's jaccl ring
				   takes at most 4 a direction: jaccl/ring_impl.h) */
#define PLAN_NOTES_MAX 6
#define PLAN_ENVS_MAX 4
#define PLAN_CANDIDATES 3

enum plan_strategy { PLAN_AUTO = 0, PLAN_TENSOR, PLAN_PIPELINE, PLAN_SINGLE };
/* Who runs the plan: mlx-lm started by mlx.launch, or exo (which places it
 * itself: the plan checks that exo supports it). */
enum plan_runtime { PLAN_RT_MLX_LM = 0, PLAN_RT_EXO };
/* stale: its hostfile no longer matches the cabling or the addresses (RDMA
 * device names and link-local addresses change with a reboot or a cable:
 * MLX issue 3207); tbctl placement replan writes the new one. */
enum plan_state { PLAN_PROPOSED = 0, PLAN_ACTIVE, PLAN_DEGRADED, PLAN_STALE };

struct plan_rank {
	int rank;
	api_name node;
	int layer_start;
	int layer_end;               /* exclusive */
	int64_t weights_bytes;
	int64_t kv_cache_bytes;
	int64_t total_bytes;
	int64_t usable_bytes;
	int64_t free_after_bytes;
	double bandwidth_gbs;
};

struct plan_host {
	char ssh[330];                           /* what mlx.launch runs ssh to: [user@]host */
	int n_ips;
	char ips[PLAN_RANKS_MAX][16];
	int n_rdma[PLAN_RANKS_MAX];              /* devices toward host j; 0 is null */
	char rdma[PLAN_RANKS_MAX][PLAN_CABLES_MAX][PLAN_DEV_MAX + 1];
};

struct plan_candidate {
	enum plan_strategy strategy;
	int fits;
	int n_nodes;
	double estimate_tokens_per_second;   /* 0 when it does not fit */
	char reason[PLAN_TEXT_MAX + 1];      /* why not, or what it would be */
};

struct plan {
	int64_t id;                          /* 0: not stored */
	char model[PLAN_MODEL_MAX + 1];
	api_name cluster;
	enum plan_strategy strategy;
	char why[PLAN_TEXT_MAX + 1];
	int64_t context;
	int batch;
	enum plan_state state;
	char reason[API_REASON_MAX + 1];     /* why degraded; "" none */
	double created_at;                   /* NAN: not stored */
	double estimate_tokens_per_second;
	double estimate_low;                 /* tokens/s, the range shown with the estimate */
	double estimate_high;                /* (0 and 0 in plans from before it) */
	char estimate_fitted_to[PLAN_TEXT_MAX + 1];   /* the measurements behind it; "" none */
	int n_ranks;
	struct plan_rank ranks[PLAN_RANKS_MAX];
	char backend[16];
	int n_envs;
	char envs[PLAN_ENVS_MAX][64];
	struct plan_host hosts[PLAN_RANKS_MAX];   /* n_ranks of them */
	char launch[PLAN_LAUNCH_MAX + 1];
	char prepare[PLAN_LAUNCH_MAX + 1];
	char copy[PLAN_LAUNCH_MAX + 1];          /* the model to the same path everywhere */
	enum plan_runtime runtime;
	char coordinator[280];                   /* "ip:port" every rank dials; "" none */
	char coordinator_from[160];              /* where that address comes from */
	char model_path[256];
	int n_notes;
	char notes[PLAN_NOTES_MAX][PLAN_TEXT_MAX + 1];
	int n_candidates;
	struct plan_candidate candidates[PLAN_CANDIDATES];
};

/* What a client asks for (POST /v1/placements/plan and /v1/placements). */
struct plan_request {
	char model[PLAN_MODEL_MAX + 1];
	api_name cluster;                    /* "": the only cluster, if there is one */
	enum plan_strategy strategy;
	int64_t context;                     /* 0: PLAN_CONTEXT_DEFAULT */
	int batch;                           /* 0: 1 */
	int n_nodes;                         /* 0: every node of the cluster */
	api_name nodes[PLAN_RANKS_MAX];
	enum plan_runtime runtime;           /* default mlx-lm */
	int fast_synch;                      /* set MLX_METAL_FAST_SYNCH=1 (off by default) */
	char entry[16];                      /* mlx-lm entry point: "server" (default), "chat" */
};

#define PLAN_CONTEXT_DEFAULT 8192
#define PLAN_CONTEXT_MAX 10000000
#define PLAN_BATCH_MAX 1024

const char *plan_strategy_str(enum plan_strategy s);
const char *plan_runtime_str(enum plan_runtime r);
int plan_runtime_parse(const char *s, enum plan_runtime *out);
int plan_strategy_parse(const char *s, enum plan_strategy *out);
const char *plan_state_str(enum plan_state s);
int plan_state_parse(const char *s, enum plan_state *out);

/* Encoders: malloc'd JSON, NULL when out of memory. */
char *plan_json(const struct plan *p);
char *plan_json_hostfile(const struct plan *p);    /* the hostfile object alone */
char *plan_json_list(const struct plan *ps, int n); /* {"placements":[...]} */
char *plan_json_request(const struct plan_request *r);

/* Decoders: 0, or -1 with the field named in err.  Lists malloc'd (free). */
int plan_json_decode(const char *json, size_t len, struct plan *out, char *err, size_t errlen);
int plan_json_decode_list(const char *json, size_t len, struct plan **out, int *n, char *err,
    size_t errlen);
int plan_json_decode_request(const char *json, size_t len, struct plan_request *out, char *err,
    size_t errlen);

#endif
