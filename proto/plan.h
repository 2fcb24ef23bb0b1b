/*
 * A placement plan (DESIGN.md "Placement"): what the planner proposes, what
 * the controller stores when it is applied, what tbctl prints.  Plain
 * structs shared by tbcontrollerd and tbctl; JSON in plan_json.c.
 *
 * JSON (POST /v1/placements/plan, GET /v1/placements/{id}):
 *   {"id": null|1, "model": "deepseek-v3.1:4bit", "cluster": "studio4",
 *    "strategy": "tensor"|"pipeline"|"single", "why": "one line",
 *    "context": 8192, "batch": 1, "state": "proposed"|"active"|"degraded",
 *    "reason": ""|"why degraded", "created_at": 1763782801.2,
 *    "estimate_tokens_per_second": 12.3,
 *    "ranks": [{"rank", "node", "layer_start", "layer_end" (exclusive),
 *               "weights_bytes", "kv_cache_bytes", "total_bytes",
 *               "usable_bytes", "free_after_bytes", "bandwidth_gbs"}],
 *    "hostfile": {"backend": "jaccl"|"jaccl-ring"|"ring", "envs": [...],
 *                 "hosts": [{"ssh": "mac1", "ips": ["169.254.1.1"],
 *                            "rdma": [null, "rdma_en3", ...]}]},
 *    "launch": "mlx.launch ...", "prepare": "mlx_lm.convert ...",
 *    "candidates": [{"strategy", "fits", "estimate_tokens_per_second",
 *                    "nodes", "reason"}]}
 * hostfile is MLX's mlx.launch hostfile: rdma[i][j] names the RDMA device
 * on host i whose cable goes to host j, null on the diagonal and where no
 * RDMA link is used; the "ring" backend has no "rdma".
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
#define PLAN_ENVS_MAX 4
#define PLAN_CANDIDATES 3

enum plan_strategy { PLAN_AUTO = 0, PLAN_TENSOR, PLAN_PIPELINE, PLAN_SINGLE };
enum plan_state { PLAN_PROPOSED = 0, PLAN_ACTIVE, PLAN_DEGRADED };

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
	api_name ssh;
	int n_ips;
	char ips[PLAN_RANKS_MAX][16];
	char rdma[PLAN_RANKS_MAX][PLAN_DEV_MAX + 1];   /* "" is null */
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
	int n_ranks;
	struct plan_rank ranks[PLAN_RANKS_MAX];
	char backend[16];
	int n_envs;
	char envs[PLAN_ENVS_MAX][64];
	struct plan_host hosts[PLAN_RANKS_MAX];   /* n_ranks of them */
	char launch[PLAN_LAUNCH_MAX + 1];
	char prepare[PLAN_LAUNCH_MAX + 1];
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
};

#define PLAN_CONTEXT_DEFAULT 8192
#define PLAN_CONTEXT_MAX 10000000
#define PLAN_BATCH_MAX 1024

const char *plan_strategy_str(enum plan_strategy s);
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
