/* What wmon.c and wmon_watch.c share; not for other modules. */
#ifndef TBMESH_WMON_INT_H
#define TBMESH_WMON_INT_H

#include <pthread.h>
#include <stdint.h>

#include "addr_change.h"
#include "api.h"
#include "placement_ctrl.h"
#include "wiring.h"
#include "wmon.h"
#include "wmon_gate.h"

/* A cached node: allocated once, the table and the dirty list point to it. */
struct wmon_node {
	api_name name;
	uint64_t fp;                   /* 0: no report yet */
	int dirty;                     /* changed since the last pass: on the list */
	struct wmon_node *next_dirty;
	struct wiring_node wn;
	struct addr_ports addrs;       /* its Thunderbolt addresses (addr_change.h) */
};

/* A slot of the cache's table: the name's hash spares reading other nodes. */
struct wmon_slot {
	uint64_t h;
	struct wmon_node *e;
};

/* What the last pass concluded about a cluster (for events and metrics). */
struct wmon_link_state {
	wiring_text expected;          /* stable across checks: the key */
	api_name a, b;
	enum wiring_verdict verdict;
	int pass;
	struct wmon_gate gate;         /* its events (wmon_gate.h) */
};

struct wmon_state {
	api_name cluster;
	enum wiring_cluster_verdict verdict;
	struct wmon_gate gate;         /* the cluster verdict's events */
	int n_links;
	struct wmon_link_state *links;
	int seen;                      /* found in the latest pass */
};

/* One Thunderbolt interface's address changes (wmon_addr.c). */
struct wmon_addr {
	api_name node;
	struct addr_change last;       /* interface, receptacle; before: the addresses
					  the last event gave; after: the latest */
	struct wmon_gate gate;         /* its events, keyed by addr_set_key() */
	uint64_t changes;              /* every change seen, logged or not (/metrics) */
};

/* An address event the gate let out, for the next pass to record. */
struct wmon_addr_event {
	api_name node;
	char what[64];
	char reason[API_REASON_MAX + 1];
	double at;
};

#define WMON_ADDR_EVENTS_MAX 1024      /* queued between two passes, at most */

struct wmon {
	struct ctrl *c;
	pthread_mutex_t mu;            /* everything below */
	pthread_cond_t cv;
	struct wmon_slot *slots;       /* open addressing on the name; e NULL: empty */
	size_t cap, used;
	struct wmon_node *dirty_head;  /* the nodes whose wiring changed */
	int dirty;                     /* some node's wiring changed */
	int touched;                   /* check every cluster */
	int stopping, running;
	pthread_t thread;
	uint64_t passes;
	int n_states;
	struct wmon_state *states;
	struct wmon_addr *addrs;       /* per (node, interface) */
	int n_addrs, cap_addrs;
	struct wmon_addr_event *addr_ev;   /* for the next pass to record */
	int n_addr_ev, cap_addr_ev;
	struct placement_cause *causes;    /* a node's latest address change since the
					      last pass: why its placements may be stale */
	int n_causes, cap_causes;
};

/* One cluster as the inventory has it (wmon_cluster_load, the store's lock held). */
struct wmon_cluster_in {
	api_name name;
	char topology[16];
	char *dot;
	double updated_at;
	int n_members;
	struct api_node *members;      /* sorted by name: the ring's order */
	char **json;                   /* stored reports of members not cached */
	int64_t rollout_id;            /* the rollout open on the cluster; 0 none */
	enum wiring_rollout_phase *ro_phase;  /* per member: where that rollout is with it */
};

struct wmon_node *wmon_node_get(struct wmon *m, const char *name, int create);
void wmon_node_mark(struct wmon *m, struct wmon_node *e);
int wmon_cluster_load(struct wmon *m, const char *cluster, const struct api_node *all,
    int n_all, struct wmon_cluster_in *ci);
struct wiring_result *wmon_cluster_check(struct wmon *m, struct wmon_cluster_in *ci,
    double now, char *err, size_t errlen);
void wmon_cluster_free(struct wmon_cluster_in *ci);

/*
 * wmon_addr.c, all with mu held.  wmon_addr_seen: node's report went from
 * before to after at now: each address change is counted, queued as the
 * cause of its placements' staleness, and as an event when its interface's
 * gate lets one out.  wmon_addr_flush: the events the gates held, once
 * their gap is over.  wmon_addr_take: what is queued, handed to the caller
 * (free both arrays).  wmon_addr_forget: node was removed.
 * wmon_addr_metrics: the counters.  wmon_addr_free: everything.
 */
void wmon_addr_seen(struct wmon *m, const char *node, const struct addr_ports *before,
    const struct addr_ports *after, double now);
void wmon_addr_flush(struct wmon *m, double now);
void wmon_addr_take(struct wmon *m, struct wmon_addr_event **ev, int *n_ev,
    struct placement_cause **causes, int *n_causes);
void wmon_addr_forget(struct wmon *m, const char *node);
struct textbuf;
void wmon_addr_metrics(struct wmon *m, struct textbuf *b);
void wmon_addr_free(struct wmon *m);

#endif
