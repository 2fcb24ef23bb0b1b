/* What wmon.c and wmon_watch.c share; not for other modules. */
#ifndef TBMESH_WMON_INT_H
#define TBMESH_WMON_INT_H

#include <pthread.h>
#include <stdint.h>

#include "api.h"
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

#endif
