/*
 * Placement in the controller: the catalog it serves, the planner's input
 * built from the inventory (nodes, their latest reports, what placements
 * hold) and the cluster's links, and placements marked degraded when one of
 * their nodes is lost, active again when it is back.  Functions here that read or write the inventory
 * are called with the store's lock held (from a store_with/store_txn
 * function), but where they say otherwise.
 */
#ifndef TBMESH_PLACEMENT_CTRL_H
#define TBMESH_PLACEMENT_CTRL_H

#include <stddef.h>

#include "ctrl.h"
#include "placement.h"
#include "plan.h"
#include "rollout_api.h"

/*
 * Load the catalog file at path (NULL: the catalog compiled in,
 * embedded.h) and the models added through the API into c->models.
 * At start, before the controller's threads: no lock needed.  0, or -1
 * with the reason in err.
 */
int placement_catalog_load(struct ctrl *c, const char *path, char *err, size_t errlen);

/*
 * Plan req on its cluster at now.  except: a placement whose memory is not
 * counted as held (replanning it), 0 none.  0 and *out filled; otherwise an HTTP
 * status (400 bad request, 404 unknown model/cluster/node, 422 does not fit,
 * 503 inventory) with the reason in err.
 */
int placement_make(struct ctrl *c, const struct plan_request *req, int64_t except,
    double now, struct plan *out, char *err, size_t errlen);

/*
 * Store plan p as an applied placement (state active, created at now, the
 * memory of each rank held on its node), its id into p->id.  In the
 * caller's transaction; the caller says the event.  0, or -1.
 */
int placement_store_active(struct inv *inv, struct plan *p, double now);

/*
 * A node left the states that run a model (now st): mark the active
 * placements with a rank on it degraded, with an event each.
 */
void placement_node_lost(struct ctrl *c, const char *node, enum node_state st, double now);
/*
 * A node is back (now st, NODE_READY): the placements node_lost made
 * degraded on it whose nodes are all ready are active again, with an
 * event each (a job waiting on one starts again).  What a rollout stopped
 * stays for the rollout's end to restore.
 */
void placement_node_back(struct ctrl *c, const char *node, enum node_state st, double now);

/*
 * placement_rollout.c: placements during OS update campaign camp.  A
 * placement cannot be live-migrated, so draining node stops its placements
 * where they are (rolling: those with a rank on node; lockstep: every one of
 * the cluster, at the first node's drain, before any node updates): state
 * degraded with the campaign's reason, an event each, the campaign's id kept
 * beside it, its memory kept reserved.  Its own transaction (store_txn):
 * the caller must not hold the store's lock.  Then it waits, in the
 * calling thread, until the jobs of every placement the campaign stopped
 * have no rank left (job_hold.h: the runner stops them; at most 30 s and
 * 15 s a rank), and fails when they do not.
 * 0 with what was done in what, or -1 with why in err.  Run again, it stops
 * only what this campaign has not stopped yet, and waits again.
 */
struct ro_campaign;
int placement_rollout_drain(struct ctrl *c, const struct ro_campaign *camp, const char *node,
    char *what, size_t whatlen, char *err, size_t errlen);

/*
 * The campaign ended (finished or aborted): each placement it stopped goes
 * back to active when every one of its nodes is ready, else stays degraded
 * with the reason; an event each, and the job runner is woken (their jobs
 * start again).  Inside the caller's transaction (the store's lock held).
 * 0 or -1.
 */
int placement_rollout_restore(struct ctrl *c, const struct ro_campaign *camp, double now);

/* What the controller knows of node i of a place_input, for the links. */
struct report;
struct placement_seen {
	const struct report *report;    /* the latest; NULL none */
	enum node_state state;
	double report_at;               /* when it arrived; NAN never */
};

/*
 * The links between the nodes of in (in->nodes filled; seen[i] for
 * in->nodes[i]), at now, a report older than stale_after seconds being
 * stale: the one adapter from what the cluster reports to struct
 * place_link.
 */
void placement_links_fill(struct place_input *in, const struct placement_seen *seen,
    double now, double stale_after);

/*
 * The request that plans p again: its model, cluster, context, batch,
 * runtime, entry point and MLX_METAL_FAST_SYNCH; with same_nodes, also its
 * strategy and its nodes in rank order (to see whether its hostfile still
 * holds), else none (a replan may move it).
 */
void placement_request_of(const struct plan *p, int same_nodes, struct plan_request *req);

/* What changed on a node since the last check, that may make its placements stale. */
struct placement_cause {
	api_name node;
	char what[112];                 /* "address change en2 192.168.0.2 -> 169.254.7.9" */
};

/*
 * After a wiring check of cluster: each active placement whose hostfile is
 * no longer what its nodes and links give becomes stale, with an event
 * naming the change; a stale one that matches again is active again.
 * causes (n_causes of them; NULL none): what changed on which node since
 * the last check.  A placement with a rank on such a node says so in its
 * reason, and becomes stale too when it cannot be planned again on its
 * own nodes (an address gone from a cable it uses).
 */
void placement_stale_check(struct ctrl *c, const char *cluster, double now,
    const struct placement_cause *causes, int n_causes);

#endif
