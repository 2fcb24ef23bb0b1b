/*
 * What the controller's modules share: the inventory behind its lock
 * (store.h), the registry, the ingest pipeline, settings and counters; and
 * the one way a node's lifecycle state changes (ctrl_apply).
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
struct job_runner;

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
	/* jobs (job_run.c) */
	atomic_uint_fast64_t jobs_started;        /* generations started (first starts and restarts) */
	atomic_uint_fast64_t jobs_restarts;       /* restarts by a job's policy */
	atomic_uint_fast64_t jobs_hangs;          /* jobs found hung */
	atomic_uint_fast64_t jobs_failures;       /* jobs that became failed */
	atomic_uint_fast64_t job_probes;          /* one-token probes sent */
	atomic_uint_fast64_t job_probe_failures;  /* probes that got no good answer */
	atomic_uint_fast64_t jobs_replans;        /* jobs moved to a new placement (replan auto) */
	atomic_uint_fast64_t job_rank_reads_agent; /* ranks read from an agent's report */
	atomic_uint_fast64_t job_rank_reads_ssh;   /* ranks read by ps over SSH */
};

extern const double ctrl_lat_bounds[CTRL_LAT_BUCKETS]; /* upper bounds, seconds */

struct ctrl {
	struct store store;           /* the inventory and its lock: store_with/store_txn */
	struct registry *reg;
	struct ingest *ingest;
	struct prov_jobs *prov;       /* provisioning runs; NULL when not configured */
	struct wmon *wmon;             /* live wiring checks (wmon.h) */
	double unreachable_after;     /* seconds without a report */
	double retention;             /* seconds of samples kept */
	struct catalog_model *models; /* the model catalog (malloc'd); guarded by the
					 store's lock */
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
	/* jobs (job_run.h) */
	struct job_runner *jobs;      /* the runner; NULL when not started */
	double job_check_interval;    /* seconds between two checks of a job */
	double job_probe_timeout;     /* seconds one probe may take */
	double job_hang_after;        /* seconds of failed probes before hung */
	double job_start_timeout;     /* seconds a start may take to answer */
};

double ctrl_now(void);

/* Record an event and log it; called with the store's lock held (from a
 * store_with/store_txn function). */
void ctrl_event(struct ctrl *c, double now, const char *actor, const char *node,
    const char *what, const char *reason);

struct lc_result;
struct reg_node;
struct report;

/*
 * How a node's lifecycle state changes, whatever decided it (a stored
 * report, an operator's command, a rollout, the passing of time): the
 * decision res about n, made under the store's lock on the registry's n,
 * is stored (ctrl_apply_store), then n's lifecycle view becomes what res
 * says (ctrl_lc_apply) and the registry learns it.
 *
 * ctrl_apply does all three; called with the store's lock held, from a
 * store_with function: outside a transaction each statement commits on its
 * own, so the registry learns only what is stored.  (Inside a store_txn
 * function, use ctrl_apply_store, and registry_set_lc once store_txn has
 * returned 0.)  0, or -1 (the registry unchanged).
 */
int ctrl_apply(struct ctrl *c, struct reg_node *n, const struct lc_result *res, double now,
    const char *actor);
/*
 * Its inventory half, for a caller inside a transaction: n's state, reason
 * and flags, the events of res (by actor), and the placements degraded by
 * a node lost.  n and the registry are left as they are: the caller tells
 * the registry once the transaction is committed.  Called with the store's
 * lock held.  0, or -1.
 */
int ctrl_apply_store(struct ctrl *c, const struct reg_node *n, const struct lc_result *res,
    double now, const char *actor);
/* Its registry half: lc (a node's lifecycle view) as res leaves it. */
void ctrl_lc_apply(struct lc_node *lc, const struct lc_result *res);

/* Node's row (store_with; the store's lock taken here).  0, or INV_NOTFOUND or -1. */
int ctrl_node_get(struct ctrl *c, const char *node, struct api_node *out);
/*
 * Node's latest stored report, decoded (malloc'd: free it), or NULL: none,
 * out of memory, or it does not decode (logged).  The store's lock taken here.
 */
struct report *ctrl_latest_report(struct ctrl *c, const char *node);

/* Count one request that took seconds. */
void ctrl_observe_latency(struct ctrl *c, double seconds);

#endif
