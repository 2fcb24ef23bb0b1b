/*
 * The model catalog (DESIGN.md "Placement"): what the planner needs to know
 * of a model, read from data, not code.  The file (data/catalog.json,
 * installed as $(DATADIR)/catalog.json) is {"schema": "tbmesh.catalog/1",
 * "models": [model...]}; "tbctl models add FILE" sends one model object.
 *
 * A model:
 *   {"name": "deepseek-v3.1", "display_name", "hf_repo",
 *    "layers", "hidden_size", "attention_heads", "kv_heads", "head_dim",
 *    "attention": {"kind": "mla", "kv_lora_rank": 512, "rope_head_dim": 64}
 *              | {"kind": "gqa"},
 *    "kv_cache_bytes_per_token", "vocab_size", "tie_word_embeddings",
 *    "total_params", "active_params", "tensor_sharding",
 *    "architecture": "deepseek_v3" (mlx-lm's model_type; optional),
 *    "runtimes": {"mlx-lm": {"tensor": true, "pipeline": true, "source"},
 *                 "exo": {...}} (optional: which strategies each runtime
 *                 can run, and where that is said; a runtime not listed is
 *                 unknown, and its plans are refused),
 *    "variants": [{"quant": "bf16"|"8bit"|"4bit"|..., "bits_per_weight",
 *                  "bytes", "source", "mlx_repo" (optional: the published
 *                  MLX conversion whose real size "bytes" is)}],
 *    "sources": {"layers": "...", ...: where each number comes from}}
 *
 * Every number must have its source ("sources" names one per numeric
 * field), and kv_cache_bytes_per_token must equal what the attention kind
 * gives: layers x (kv_lora_rank + rope_head_dim) x 2 bytes for MLA (the
 * bf16 latent cache), layers x 2 x kv_heads x head_dim x 2 bytes for GQA.
 * A variant is named "MODEL:QUANT" ("deepseek-v3.1:4bit").
 */
#ifndef TBMESH_CATALOG_H
#define TBMESH_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#define CATALOG_NAME_MAX 63
#define CATALOG_QUANT_MAX 15
#define CATALOG_TEXT_MAX 255
#define CATALOG_VARIANTS_MAX 8
#define CATALOG_MODELS_MAX 512
#define CATALOG_LAYERS_MAX 4096
#define CATALOG_FILE_MAX ((size_t)4 << 20)

enum catalog_attn { CATALOG_ATTN_GQA = 0, CATALOG_ATTN_MLA };

/* The fields that carry a source, in "sources". */
enum catalog_src {
	CSRC_LAYERS, CSRC_HIDDEN, CSRC_HEADS, CSRC_KV_HEADS, CSRC_HEAD_DIM, CSRC_KV_BYTES,
	CSRC_VOCAB, CSRC_TIE, CSRC_TOTAL, CSRC_ACTIVE, CSRC_SHARDING, CSRC_KV_LORA,
	CSRC_ROPE, CSRC_COUNT
};

struct catalog_variant {
	char quant[CATALOG_QUANT_MAX + 1];   /* "4bit" */
	double bits_per_weight;              /* 4.5 */
	int64_t bytes;                       /* the weights' size */
	char source[CATALOG_TEXT_MAX + 1];
	char mlx_repo[CATALOG_TEXT_MAX + 1]; /* "mlx-community/DeepSeek-V3.1-4bit"; "" none */
};

/* The runtimes a model's support is recorded for (catalog_runtime_key). */
enum catalog_rt { CATALOG_RT_MLX_LM = 0, CATALOG_RT_EXO, CATALOG_RT_COUNT };

struct catalog_runtime {
	int known;                           /* the catalog says; else unknown */
	int tensor, pipeline;
	char source[CATALOG_TEXT_MAX * 2 + 2];
};

struct catalog_model {
	char name[CATALOG_NAME_MAX + 1];
	char display_name[CATALOG_TEXT_MAX + 1];
	char hf_repo[CATALOG_TEXT_MAX + 1];
	int layers;
	int hidden_size;
	int attention_heads;
	int kv_heads;
	int head_dim;
	enum catalog_attn attention;
	int kv_lora_rank;                    /* MLA only; 0 for GQA */
	int rope_head_dim;                   /* MLA only */
	int64_t kv_cache_bytes_per_token;
	int64_t vocab_size;
	int tie_word_embeddings;
	int64_t total_params;
	int64_t active_params;
	int tensor_sharding;
	char architecture[CATALOG_NAME_MAX + 1];   /* "deepseek_v3"; "" unknown */
	struct catalog_runtime runtimes[CATALOG_RT_COUNT];
	int n_variants;
	struct catalog_variant variants[CATALOG_VARIANTS_MAX];
	char sources[CSRC_COUNT][CATALOG_TEXT_MAX + 1];   /* "" where not applicable */
};

/* The key of a source in "sources". */
const char *catalog_src_key(enum catalog_src s);

/* "mlx-lm", "exo". */
const char *catalog_runtime_key(enum catalog_rt r);

/* What the attention kind gives as KV cache bytes per token (see above). */
int64_t catalog_kv_bytes_per_token(const struct catalog_model *m);

/*
 * Decode a catalog file ({"models": [...]}) into a malloc'd array (*out,
 * *n; free(*out)).  0, or -1 with the field in err ("models[3].layers:
 * missing").  Two models with one name are an error.
 */
int catalog_decode(const char *json, size_t len, struct catalog_model **out, int *n,
    char *err, size_t errlen);
/* Decode one model object (what "tbctl models add" sends).  0 or -1 with err. */
int catalog_decode_model(const char *json, size_t len, struct catalog_model *out, char *err,
    size_t errlen);
/* Check a model's fields and consistency; 0 or -1 with err naming the field. */
int catalog_validate(const struct catalog_model *m, char *err, size_t errlen);

/* Encoders (malloc'd; NULL when out of memory). */
char *catalog_encode_model(const struct catalog_model *m);
char *catalog_encode(const struct catalog_model *ms, int n);      /* {"models":[...]} */

/*
 * Find "MODEL:QUANT" among ms.  0 with *model and *variant set, or -1 with
 * err ("no model qwen9 in the catalog", "llama-3.3-70b has no variant 2bit
 * (bf16, 8bit, 4bit)", "name the variant: MODEL:QUANT").
 */
int catalog_find(const struct catalog_model *ms, int n, const char *name,
    const struct catalog_model **model, const struct catalog_variant **variant, char *err,
    size_t errlen);

/* Load a catalog file; 0 or -1 with err (the path and the problem). */
int catalog_load_file(const char *path, struct catalog_model **out, int *n, char *err,
    size_t errlen);

#endif
