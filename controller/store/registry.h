/*
 * The controller's in-memory view of tokens and nodes, so that checking a
 * report's token and finding its node never waits on the inventory.  It
 * mirrors what is committed in the inventory: callers update it only after
 * a successful commit.  Thread-safe (one rwlock).
 */
#ifndef TBMESH_REGISTRY_H
#define TBMESH_REGISTRY_H

#include <stdint.h>

#include "api.h"
#include "auth.h"
#include "inventory.h"
#include "lifecycle.h"

struct registry;

/* A node as the controller tracks it between reports. */
struct reg_node {
	int64_t id;
	api_name name;
	report_str hardware_uuid;
	struct lc_node lc;
};

struct registry *registry_new(void);
void registry_free(struct registry *reg);          /* accepts NULL */

/*
 * Load every token and node from the inventory (at start), with whether
 * each node's latest report is healthy, from the report itself.
 */
int registry_load(struct registry *reg, struct inv *inv);

void registry_put_token(struct registry *reg, const struct api_token *t,
    const uint8_t hash[AUTH_HASH_LEN]);
void registry_revoke_token(struct registry *reg, const char *id);
/* Revoke every node token of node but a pending re-enrolment's (re-enrolment). */
void registry_revoke_node_tokens(struct registry *reg, const char *node);
/*
 * Revoke every node token of node but keep_id ("" keeps none: removal),
 * which stops being pending (an accepted re-enrolment).
 */
void registry_supersede_node_tokens(struct registry *reg, const char *node,
    const char *keep_id);

/*
 * Check a presented token.  Returns 0 and fills *t when it exists, is not
 * revoked or expired at now, and its secret matches; -1 otherwise.
 */
int registry_check_token(struct registry *reg, const char *token, double now,
    struct api_token *t);

void registry_put_node(struct registry *reg, const struct reg_node *n);
void registry_remove_node(struct registry *reg, const char *name);
/* Copy of the node called name; -1 if none. */
int registry_get_node(struct registry *reg, const char *name, struct reg_node *out);
/* Update a node's lifecycle view (after a commit). */
void registry_set_lc(struct registry *reg, const char *name, const struct lc_node *lc);

/* Snapshot of all nodes (malloc'd; free it). */
int registry_nodes(struct registry *reg, struct reg_node **out, int *n);
/*
 * The names of the nodes whose lifecycle view pred accepts (malloc'd; free
 * it), without copying the others: pred runs under the registry's lock.
 */
int registry_select(struct registry *reg, int (*pred)(const struct lc_node *, void *),
    void *arg, api_name **out, int *n);
/* How many nodes are in each state. */
void registry_count_states(struct registry *reg, int counts[NODE_STATE_COUNT]);

#endif
