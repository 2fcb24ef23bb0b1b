/*
 * The controller's live wiring view (the I/O around the pure engine in
 * wiring.h).  Each report passes through wmon_stage() on the HTTP thread:
 * a fingerprint of its wiring-relevant fields (ports, peers, addresses,
 * RDMA, bridge, OS build) is compared with the node's last one, and only
 * a change stages the report's wiring, which the ingest writer applies to
 * the cache (wmon_apply()) once the report is stored, waking the wmon
 * thread, which re-validates the clusters of the changed nodes (and every
 * cluster every WMON_FULL_EVERY seconds, to see reports go stale), records
 * an event for each link whose verdict changed, and keeps the verdicts that
 * /metrics shows.  wmon_check() validates one cluster on demand (the API).
 * wmon_apply() also compares a node's Thunderbolt addresses with its
 * previous report's: each change is counted, an event (at most one a
 * minute per interface) and the cause the next pass gives the placements
 * it finds stale (wmon_addr.c).
 *
 * Locks: the cache has its own mutex; the inventory is read under the
 * store's lock (store_with), never while holding the cache's.
 */
#ifndef TBMESH_WMON_H
#define TBMESH_WMON_H

#include <stdint.h>

#include "report.h"
#include "wiring.h"

#define WMON_FULL_EVERY 10.0   /* seconds between checks of every cluster */
#define WMON_MIN_GAP 0.25      /* seconds between two passes */

struct ctrl;
struct wmon;

struct wmon *wmon_new(struct ctrl *c);
int wmon_start(struct wmon *m);              /* the thread; 0 or -1 */
void wmon_stop(struct wmon *m);              /* join it; accepts NULL */
void wmon_free(struct wmon *m);              /* accepts NULL */

/* The fingerprint of r's wiring-relevant fields. */
uint64_t wmon_fingerprint(const struct report *r);

/* Store a report's wiring at once (any thread; cheap unless its wiring
 * changed); the report handler stages and applies instead (below). */
void wmon_report(struct wmon *m, const char *node, const struct report *r);

/* A cluster's membership or plan changed: check it (every cluster) soon. */
void wmon_touch(struct wmon *m);

/*
 * A report's wiring staged on the HTTP thread, applied by the ingest writer
 * only once the report is stored (a report refused then changes nothing).
 * wmon_stage: NULL when the wiring is what the cache has (a hash), or out
 * of memory (the next report tries again).  wmon_apply frees st; both it
 * and wmon_staged_free accept NULL.
 */
struct wmon_staged;
struct wmon_staged *wmon_stage(struct wmon *m, const char *node, const struct report *r);
void wmon_apply(struct wmon *m, struct wmon_staged *st);
void wmon_staged_free(struct wmon_staged *st);
/* Drop node's cached wiring (the node was removed); accepts NULL. */
void wmon_forget(struct wmon *m, const char *node);
/* wmon_check's answer for a cluster beyond WIRING_NODES_MAX nodes. */
#define WMON_TOO_BIG (-3)

/*
 * Validate cluster now.  0 and *out (free with wiring_result_free), or
 * INV_NOTFOUND (no such cluster), WMON_TOO_BIG with err (more members than
 * WIRING_NODES_MAX), or -1 with err.  Takes the store's lock: the caller
 * must not hold it.
 */
int wmon_check(struct wmon *m, const char *cluster, double now, struct wiring_result **out,
    char *err, size_t errlen);

/*
 * The engine's view of cluster's nodes now (*out malloc'd, *n of them;
 * for cabling plans).  0, INV_NOTFOUND, WMON_TOO_BIG or -1 with err.  Takes the
 * store's lock.
 */
int wmon_nodes(struct wmon *m, const char *cluster, double now, struct wiring_node **out,
    int *n, char *err, size_t errlen);

/* The wiring gauges in Prometheus text (malloc'd; NULL out of memory). */
char *wmon_metrics(struct wmon *m);

/* How many passes the thread has made (tests wait on it). */
uint64_t wmon_passes(struct wmon *m);

#endif
