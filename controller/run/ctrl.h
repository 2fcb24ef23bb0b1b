/*
 * What the controller's modules share: the inventory connection and its
 * lock, the registry, the ingest pipeline, settings and counters.
 */
#ifndef TBMESH_CTRL_H
#define TBMESH_CTRL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "inventory.h"
#include "registry.h"
#include "store.h"

struct ingest;
struct prov_jobs;
struct wmon;
struct catalog_model;

#define CTRL_LAT_BUCKETS 12

struct ctrl_counters {
	atomic_uint_fast64_t reports_ingested;
	atomic_uint_fast64_t reports_rejected;
	atomic_uint_fast64_t enrollments;
	atomic_uint_fast64_t requests;
	atomic_uint_fast64_t batches;
	/* request latency histogram (seconds), cumulative at render time */
	atomic_uint_fast64_t lat_bucket[CTRL_LAT_BUCKETS];
	atomic_uint_fast64_t lat_count;
	atomic_uint_fast64_t lat_sum_us;
};

extern const double ctrl_lat_bounds[CTRL_LAT_BUCKETS]; /* upper bounds, seconds */

struct ctrl {
	struct store store;           /* the inventory and its lock (store.h) */
	struct inv *inv;              /* TRANSITIONAL: store.inv, until every caller goes
					 through store_with/store_txn */
	struct registry *reg;
	struct ingest *ingest;
	struct prov_jobs *prov;       /* provisioning runs; NULL when not configured */
	struct wmon *wmon;             /* live wiring checks (wmon.h) */
	double unreachable_after;     /* seconds without a report */
	double retention;             /* seconds of samples kept */
	struct catalog_model *models; /* the model catalog (malloc'd); guarded by inv_mu */
	int n_models;
	int64_t place_headroom;       /* bytes kept free on every node by placements */
	struct ctrl_counters ctr;
	/* SSH actions (OS updates, provisioning); strings owned by main */
	const char *state_dir;        /* credentials/ lives under it */
	const char *ssh_key;          /* the controller's SSH private key; NULL none */
	const char *password_command; /* prints a password (see credentials.h); NULL none */
	double ssh_connect_timeout;   /* seconds */
	double ssh_command_timeout;   /* seconds, per short command */
	double install_timeout;       /* seconds, per download or install */
	double boot_timeout;          /* seconds a node may take to come back */
};

/* TRANSITIONAL: the lock by hand, until every caller goes through store.h. */
#define inv_mu store.mu

double ctrl_now(void);

/* Record an event and log it; inv_mu must be held. */
void ctrl_event(struct ctrl *c, double now, const char *actor, const char *node,
    const char *what, const char *reason);

struct lc_result;
struct reg_node;

/*
 * Apply a lifecycle decision about n: store the state, reason and flag,
 * record its events (by actor), update the registry.  inv_mu must be held,
 * and the decision must have been made under it.  0, or -1 (nothing changed).
 */
int ctrl_apply(struct ctrl *c, struct reg_node *n, const struct lc_result *res, double now,
    const char *actor);

/* Count one request that took seconds. */
void ctrl_observe_latency(struct ctrl *c, double seconds);

#endif
