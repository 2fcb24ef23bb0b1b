/*
 * The inventory's models and placements (inventory.h's rules on threads,
 * transactions and return values apply): models added through the API, as
 * their validated JSON; placements applied, as their plan's JSON, with a
 * state and the bytes each holds on each node.
 */
#ifndef TBMESH_INVENTORY_PLACEMENT_H
#define TBMESH_INVENTORY_PLACEMENT_H

#include <stdint.h>

#include "inventory.h"

/* Add a model; INV_CONFLICT if one has that name. */
int inv_model_add(struct inv *inv, const char *name, const char *json, double now);
/* Call fn for every added model, oldest first; stops at fn's non-zero return. */
int inv_model_each(struct inv *inv, int (*fn)(void *arg, const char *name, const char *json),
    void *arg);

struct inv_placement_in {
	const char *model, *cluster, *strategy, *state;
	double created_at;
	const char *json;            /* the plan */
	int n_nodes;
	const char *const *nodes;
	const int64_t *bytes;        /* held on each node */
};

struct inv_placement {
	int64_t id;
	char state[16];              /* "active", "degraded" */
	char reason[API_REASON_MAX + 1];
	double created_at;
	char *json;                  /* malloc'd */
};

/* Store a placement and its nodes; *id gets its id.  In a transaction or not. */
int inv_placement_add(struct inv *inv, const struct inv_placement_in *p, int64_t *id);
/* Every placement, oldest first; free with inv_placements_free. */
int inv_placement_list(struct inv *inv, struct inv_placement **out, int *n);
void inv_placements_free(struct inv_placement *p, int n);   /* accepts NULL */
/* One placement (out->json malloc'd); INV_NOTFOUND. */
int inv_placement_get(struct inv *inv, int64_t id, struct inv_placement *out);
/* INV_NOTFOUND when there is no such placement. */
int inv_placement_remove(struct inv *inv, int64_t id);
int inv_placement_set_state(struct inv *inv, int64_t id, const char *state,
    const char *reason);
/* Bytes placements hold on node, but placement `except` (0: none); -1 on error. */
int64_t inv_placement_reserved(struct inv *inv, const char *node, int64_t except);
/* Ids of the active placements with a rank on node; *ids malloc'd. */
int inv_placements_on_node(struct inv *inv, const char *node, int64_t **ids, int *n);
/*
 * Ids of the placements with a rank on node that a lost node made degraded
 * (no rollout stopped them) and whose nodes are all ready now; *ids
 * malloc'd.
 */
int inv_placements_back_on_node(struct inv *inv, const char *node, int64_t **ids, int *n);

/*
 * Placements an OS update campaign must stop: those of cluster with a rank
 * on node (NULL: every node of the cluster) that campaign rollout_id has not
 * stopped yet, active or degraded.  *ids malloc'd.
 */
int inv_placements_to_stop(struct inv *inv, const char *cluster, const char *node,
    int64_t rollout_id, int64_t **ids, int *n);
/* Mark placement id degraded with reason, stopped by campaign rollout_id. */
int inv_placement_stop(struct inv *inv, int64_t id, int64_t rollout_id, const char *reason);
/* Ids of the placements campaign rollout_id stopped; *ids malloc'd. */
int inv_placements_stopped_by(struct inv *inv, int64_t rollout_id, int64_t **ids, int *n);
/* Give placement id state and reason back, no longer stopped by a campaign. */
int inv_placement_release(struct inv *inv, int64_t id, const char *state, const char *reason);
/* The nodes placement id holds memory on, by name; *names malloc'd. */
int inv_placement_nodes(struct inv *inv, int64_t id, api_name **names, int *n);

#endif
