/*
 * The inventory: one SQLite file (WAL, foreign keys on, versioned
 * migrations applied at open).  This is the only module that includes
 * sqlite3.h.  It holds nodes, their latest report, a bounded history of
 * samples, clusters, tokens (hashed) and the event log.
 *
 * Threads: one struct inv is one connection and must be used by one thread
 * at a time (the caller serialises; the controller holds a mutex).
 *
 * Transactions: inv_begin/inv_commit group writes; a commit returns only
 * when the data is durable (synchronous=FULL in WAL mode); a commit that
 * fails rolls the transaction back.  Functions marked "in a transaction"
 * expect the caller to have begun one (called outside one, they begin and
 * commit their own); the others are single statements, atomic on their own,
 * that also join the caller's transaction.  When a function fails with -1
 * inside the caller's transaction, the caller rolls it back.
 *
 * Return values: 0 success, -1 error (logged, and described in err when the
 * function takes one), INV_NOTFOUND when the thing named does not exist,
 * INV_CONFLICT when a uniqueness or state rule refuses it.
 */
#ifndef TBMESH_INVENTORY_H
#define TBMESH_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "api_samples.h"
#include "prom.h"
#include "report.h"
#include "rollout_api.h"

#define INV_NOTFOUND 1
#define INV_CONFLICT 2
#define INV_HASH_LEN 32   /* SHA-256 */

struct inv;

/* What the controller keeps in memory about a node to ingest its reports. */
struct inv_node_key {
	int64_t id;
	api_name name;
	report_str hardware_uuid;
	enum node_state state;
	double boot_time;           /* from the latest report; NAN unknown */
	double last_report_at;      /* NAN never */
	int unexpected_reboot;
};

#define INV_SPEEDS_MAX 512   /* room for a summary's link speeds text */

/*
 * What the inventory keeps of a report besides its JSON: the node's summary
 * columns and the figures of a sample.  A few hundred bytes, where the
 * decoded report is tens of kilobytes: ingestion makes it as soon as the
 * report is decoded and carries it, not the report, to the writer.
 * Unknown values are null as in the report ("", REPORT_NULL_I64, NAN).
 */
struct inv_report_summary {
	report_str serial;
	report_str model;
	report_str chip;
	report_str os_version;
	report_str os_build;
	enum rdma_state rdma;
	int64_t memory_total;       /* memory.total_bytes */
	int64_t memory_used;        /* total - free, when both are known */
	double power_watts;         /* power.system_watts */
	double boot_time;           /* node.boot_time */
	double collected_at;        /* collected_at (NAN unknown) */
	/* "2:80,3:40": receptacle and negotiated Gb/s of each port whose speed
	 * is known, in report order; the ports that do not fit are left out */
	char link_speeds[INV_SPEEDS_MAX];
};

/* One report to store (see inv_report_store). */
struct inv_report_in {
	int64_t node_id;
	double received_at;
	const struct inv_report_summary *sum;   /* of the report in json */
	const char *json;           /* the report as received, validated */
	size_t json_len;
	int stale;                  /* LC_REPORT_STALE: the node's last_report_at stays */
};

struct inv *inv_open(const char *path, char *err, size_t errlen);
void inv_close(struct inv *inv);              /* accepts NULL */
int inv_schema_version(struct inv *inv);
/* PRAGMA integrity_check; 0 when "ok", else -1 with the first problem in err. */
int inv_integrity_check(struct inv *inv, char *err, size_t errlen);

int inv_begin(struct inv *inv);
int inv_commit(struct inv *inv);
void inv_rollback(struct inv *inv);

/* ---- checkpoints ----
 * A checkpoint copies the pages the WAL holds back into the database file,
 * so that the WAL can start over.  By default the connection that commits
 * does it, inside the commit that takes the WAL past 1000 pages, and that
 * commit's caller waits for it.  A writer that must not wait calls
 * inv_wal_watch on its connection and has another thread checkpoint through
 * a second connection to the same file.
 */
/* Stop the automatic checkpoints of this connection; count the WAL's frames instead. */
void inv_wal_watch(struct inv *inv);
/* Frames in the WAL after inv's last commit (inv_wal_watch on).  Any thread may ask. */
int inv_wal_frames(struct inv *inv);
/*
 * A passive checkpoint: copy what can be copied without waiting for any
 * other connection (what was committed when it began, and no reader still
 * needs in the WAL).  *wal_frames gets the frames in the WAL, *copied those
 * now in the database file; when they are equal, the next write
 * transaction, of any connection, starts the WAL over.  0, or -1.
 */
int inv_checkpoint(struct inv *inv, int *wal_frames, int *copied);

/* ---- tokens ---- */
/* Store a new token (its secret's SHA-256 only).  In a transaction or not. */
int inv_token_add(struct inv *inv, const struct api_token *t, const uint8_t hash[INV_HASH_LEN]);
/* By id; fills *t and hash.  INV_NOTFOUND if none. */
int inv_token_get(struct inv *inv, const char *id, struct api_token *t,
    uint8_t hash[INV_HASH_LEN]);
/* Every token, newest first; *out is malloc'd (free it). */
int inv_token_list(struct inv *inv, struct api_token **out, int *n);
int inv_token_revoke(struct inv *inv, const char *id);
/*
 * Mark a bootstrap token used at now; INV_CONFLICT if it already was (or is
 * revoked), INV_NOTFOUND if there is no such token.  In a transaction.
 */
int inv_token_use(struct inv *inv, const char *id, double now);
/* Revoke every node token of a node.  In a transaction. */
int inv_token_revoke_node(struct inv *inv, const char *node);
/* Tokens of that role that are not revoked; -1 on error. */
int inv_token_count(struct inv *inv, enum token_role role);

/* ---- nodes ---- */
/*
 * Insert or update the node whose hardware UUID is that of r (a re-enrolling
 * Mac keeps its record and name).  name: the name for a new node; INV_CONFLICT
 * if another node (other hardware UUID) has it.  cluster: "" or a cluster
 * that must exist (INV_NOTFOUND); "" leaves an existing node where it is.
 * Sets state to st (an existing node keeps its reason only if its state does
 * not change, and keeps its unexpected-reboot flag and enrolment time),
 * stores r as its latest report received at now, adds a sample.  Fills *key.
 * err says why on every failure.  In a transaction.
 */
int inv_node_upsert(struct inv *inv, const struct report *r, const char *json, size_t json_len,
    const char *name, const char *cluster, enum node_state st, double now,
    struct inv_node_key *key, char *err, size_t errlen);
/* Every node's key, for the in-memory index; *out malloc'd. */
int inv_node_keys(struct inv *inv, struct inv_node_key **out, int *n);
int inv_node_get(struct inv *inv, const char *name, struct api_node *out);
/* The latest report's JSON (malloc'd, NUL-terminated) or NULL in *json. */
int inv_node_report(struct inv *inv, const char *name, char **json);
int inv_node_list(struct inv *inv, struct api_node **out, int *n);
/* Set state, reason ("" none) and the unexpected-reboot flag.  In a transaction or not. */
int inv_node_set_state(struct inv *inv, int64_t node_id, enum node_state st, const char *reason,
    int unexpected_reboot);
int inv_node_remove(struct inv *inv, const char *name);

/*
 * The summary of r.  Pure: no SQL, callable from any thread.  Memory and
 * power read more than INV_SECTION_STALE seconds before the report was put
 * together (an agent whose macmon child died keeps its last sample a
 * while) are summarised as unknown, never as the node's current figures.
 */
#define INV_SECTION_STALE 60.0
void inv_report_summarize(const struct report *r, struct inv_report_summary *out);
/*
 * Store a report: the node's latest report, last-report time, summary,
 * boot time (a report without one keeps the last known) and a sample
 * (memory used/total, power, link speeds) keyed by node and received_at,
 * kept in the node's row until it goes to the samples table with the next
 * few (inventory_db.h; a second report of a node at the same instant
 * replaces the first's sample there).  INV_NOTFOUND if no node has
 * in->node_id.  In a transaction.
 */
int inv_report_store(struct inv *inv, const struct inv_report_in *in);
/* Delete samples older than before (unix seconds). Returns samples deleted, or -1. */
int64_t inv_samples_prune(struct inv *inv, double before);
/* Samples of a node ("" every node's; 0 for an unknown node), or -1. */
int64_t inv_samples_count(struct inv *inv, const char *node);
/*
 * A node's samples from since on, oldest first (inventory_samples.c): each
 * one (step 0) or the latest of each step-second interval with power
 * averaged (step > 0); at most limit, the newest.  *out malloc'd (free it).
 * INV_NOTFOUND for an unknown node.
 */
int inv_samples_list(struct inv *inv, const char *node, double since, double step, int limit,
    struct api_sample **out, int *n);

/* ---- clusters ---- */
int inv_cluster_add(struct inv *inv, const char *name, double now);   /* INV_CONFLICT if exists */
int inv_cluster_list(struct inv *inv, struct api_cluster **out, int *n);
int inv_cluster_get(struct inv *inv, const char *name, struct api_cluster *out);
/* Put a node in a cluster, or out of any with cluster "" (INV_NOTFOUND for either). */
int inv_cluster_set_node(struct inv *inv, const char *cluster, const char *node);

/* ---- zero-touch enrolment (inventory_enrol.c) ---- */
/*
 * Add (add 1) or remove serials on a cluster's allow-list.  INV_NOTFOUND for
 * no such cluster, INV_CONFLICT when the list would pass API_ALLOW_MAX
 * (nothing changed).  Adding a serial already there is not an error.
 */
int inv_cluster_allow(struct inv *inv, const char *cluster, const api_name *serials, int n,
    int add);
/* The cluster's allow-list, sorted. */
int inv_cluster_allow_get(struct inv *inv, const char *cluster, struct api_names *out);
/* 1 when serial is on cluster's allow-list; 0 when not (or either is ""); -1 error. */
int inv_cluster_allows(struct inv *inv, const char *cluster, const char *serial);
/* A pending node that an admin accepted: ready at its next healthy report. */
int inv_node_set_accepted(struct inv *inv, int64_t node_id, int accepted);
/*
 * Calls fn for every node with its accepted flag and its latest report's
 * JSON (NULL when none; valid during the call only).
 */
typedef void (*inv_node_state_fn)(void *ctx, const char *name, int accepted,
    const char *json, size_t len);
int inv_node_each_state(struct inv *inv, inv_node_state_fn fn, void *ctx);
/* Revoke every node token of node but keep_id, which stops being pending. */
int inv_token_supersede(struct inv *inv, const char *node, const char *keep_id);

/* A pending re-enrolment: its node token and its latest report. */
struct inv_enrol_request {
	char token_id[API_TOKEN_ID_LEN + 1];
	double requested_at;
	double received_at;         /* of the report */
	char *json;                 /* malloc'd; the caller frees it */
	size_t json_len;
};
/* Record a request (at: its time) or, for a known token_id, its newer report. */
int inv_enrol_request_put(struct inv *inv, const char *token_id, int64_t node_id, double at,
    const char *json, size_t len);
/* The node's newest request; INV_NOTFOUND when none. */
int inv_enrol_request_latest(struct inv *inv, int64_t node_id, struct inv_enrol_request *out);
int inv_enrol_requests_drop(struct inv *inv, int64_t node_id);
/* ---- wiring (inventory_wiring.c) ---- */
/*
 * A cluster's expected topology ("mesh", "ring" or "plan") into topology
 * and, for a plan, its DOT text in *dot (malloc'd; NULL otherwise) and
 * when it was set (NAN: never, the default mesh).  INV_NOTFOUND if the
 * cluster does not exist.
 */
int inv_wiring_get(struct inv *inv, const char *cluster, char *topology, size_t topolen,
    char **dot, double *updated_at);
/* Store it (dot NULL unless topology is "plan").  INV_NOTFOUND: no cluster. */
int inv_wiring_set(struct inv *inv, const char *cluster, const char *topology,
    const char *dot, double now);

/* ---- events ---- */
/* In a transaction or not. */
int inv_event_add(struct inv *inv, double time, const char *actor, const char *node,
    const char *what, const char *reason);
/* node: "" for all; since: NAN for all; limit: at most this many, newest last. */
int inv_event_list(struct inv *inv, const char *node, double since, int limit,
    struct api_event **out, int *n);

/*
 * Provisioning runs (inventory_prov.c); struct prov_api_status is
 * proto/prov_api.h's.  inv_prov_add stores a run's header (kind, host,
 * node, cluster, state, dry_run, fingerprint, started_at) and sets s->id;
 * inv_prov_update its header fields again; inv_prov_line and inv_prov_step
 * append one preflight line or step record; inv_prov_get reads a whole run
 * (INV_NOTFOUND).  inv_prov_interrupted marks the runs still "running" or
 * "waiting" failed with reason (a controller that stopped during a run),
 * and returns how many, or -1.
 */
struct prov_api_status;
struct prov_api_line;
struct prov_api_step;
int inv_prov_add(struct inv *inv, struct prov_api_status *s);
int inv_prov_update(struct inv *inv, const struct prov_api_status *s);
int inv_prov_line(struct inv *inv, int64_t id, int ord, const struct prov_api_line *l);
int inv_prov_step(struct inv *inv, int64_t id, int ord, const struct prov_api_step *st);
int inv_prov_get(struct inv *inv, int64_t id, struct prov_api_status *out);
int inv_prov_interrupted(struct inv *inv, double now, const char *reason);
/* The id of the last run that provisioned node (not a dry run); 0 none, -1 error. */
int64_t inv_prov_last_add(struct inv *inv, const char *node);
/*
 * The host key of host:port as the last run that reached it pinned it
 * ("" none): later runs expect the same key.  0, or -1.
 */
int inv_prov_host_key(struct inv *inv, const char *host, int port, char *fp, size_t size);
/* ---- Prometheus service discovery (inventory_sd.c) ---- */
/*
 * Every node, by name: name, cluster, state, model, its latest report's
 * agent.listen and its SSH host (prom.h).  *out is malloc'd (free it).
 */
int inv_sd_nodes(struct inv *inv, struct prom_sd_node **out, int *n);
/* ---- SSH access, credential owners, OS update campaigns (inventory_rollout.c) ---- */
/* A node's SSH address and user (keeps a pinned key); INV_NOTFOUND for no such node. */
int inv_ssh_set(struct inv *inv, const struct ro_ssh *s);
/* Pin fp as the node's host key; INV_NOTFOUND when it has no SSH address. */
int inv_ssh_trust(struct inv *inv, const char *node, const char *fp, double now);
int inv_ssh_get(struct inv *inv, const char *node, struct ro_ssh *out);
/* The account whose password is stored for scope ("node:N", "cluster:C"). */
int inv_cred_set(struct inv *inv, const char *scope, const char *user, double now);
int inv_cred_get(struct inv *inv, const char *scope, char *user, size_t size);
/* A new campaign and its nodes; sets c->id.  In a transaction or not. */
int inv_rollout_add(struct inv *inv, struct ro_campaign *c);
/* Store the campaign's row and every node's.  In a transaction or not. */
int inv_rollout_save(struct inv *inv, const struct ro_campaign *c);
int inv_rollout_get(struct inv *inv, int64_t id, struct ro_campaign *c);
/* Campaign ids: the running ones (oldest first) or all (newest first), at most max. */
int inv_rollout_ids(struct inv *inv, int only_running, int64_t *ids, int max, int *n);
/* The campaign still open (running, paused, halted) on cluster, or 0 in *id. */
int inv_rollout_open_on(struct inv *inv, const char *cluster, int64_t *id);
/*
 * Node ord of campaign id was sent softwareupdate --install at t (NAN: it
 * ended and said how).  Durable when this returns 0: it is written before
 * the command goes out.
 */
int inv_rollout_install_at(struct inv *inv, int64_t id, int ord, double t);
/* One line of a campaign's log: phase "begin" or "end"; status -1 for none. */
int inv_rollout_log(struct inv *inv, int64_t id, const char *node, enum ro_step step,
    const char *phase, double t, int status, const char *output);

#endif
