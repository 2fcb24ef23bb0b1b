/*
 * The controller's live wiring view (the I/O around the pure engine in
 * wiring.h).  Each report passes through wmon_report() on the HTTP thread:
 * a fingerprint of its wiring-relevant fields (ports, peers, addresses,
 * RDMA, bridge, OS build) is compared with the node's last one, and only
 * a change copies the report's wiring into the cache and wakes the wmon
 * thread, which re-validates the clusters of the changed nodes (and every
 * cluster every WMON_FULL_EVERY seconds, to see reports go stale), records
 * an event for each link whose verdict changed, and keeps the verdicts that
 * /metrics shows.  wmon_check() validates one cluster on demand (the API).
 *
 * Locks: the cache has its own mutex; the inventory is read under the
 * controller's inv_mu, never while holding the cache's.
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

/* A node's report was accepted (any thread; cheap unless its wiring changed). */
void wmon_report(struct wmon *m, const char *node, const struct report *r);

/* A cluster's membership or plan changed: check it (every cluster) soon. */
void wmon_touch(struct wmon *m);

/*
 * Validate cluster now.  0 and *out (free with wiring_result_free), or
 * INV_NOTFOUND (no such cluster), or -1 with err.  Takes inv_mu: the caller
 * must not hold it.
 */
int wmon_check(struct wmon *m, const char *cluster, double now, struct wiring_result **out,
    char *err, size_t errlen);

/*
 * The engine's view of cluster's nodes now (*out malloc'd, *n of them;
 * for cabling plans).  0, INV_NOTFOUND or -1 with err.  Takes inv_mu.
 */
int wmon_nodes(struct wmon *m, const char *cluster, double now, struct wiring_node **out,
    int *n, char *err, size_t errlen);

/* The wiring gauges in Prometheus text (malloc'd; NULL out of memory). */
char *wmon_metrics(struct wmon *m);

/* How many passes the thread has made (tests wait on it). */
uint64_t wmon_passes(struct wmon *m);

#endif
