/*
 * What the wiring engine's files share (not for other modules: use
 * wiring.h).  The observed graph is built by wiring_graph.c; wiring.c
 * matches it against the expectation; wiring_verdict.c judges one link;
 * wiring_fix.c writes its evidence and fix; wiring_cluster.c concludes.
 */
#ifndef TBMESH_WIRING_INT_H
#define TBMESH_WIRING_INT_H

#include "wiring.h"

/* An observed cable: (ai, ap) -- (bi, bp), node and port indices.
 * bi < 0: the peer is not a port of the cluster (bp < 0 too). */
struct wiring_edge {
	int ai, ap, bi, bp;
	int both;                  /* each end names the other */
	int used;                  /* matched to an expected link */
	int claimed;               /* named by a miswired link's fix (one link at most) */
};

#define WIRING_EDGES_MAX (WIRING_NODES_MAX * WIRING_PORTS_MAX)

struct wiring_graph {
	const struct wiring_node *nodes;
	int n_nodes;
	int n_edges;
	struct wiring_edge edges[WIRING_EDGES_MAX];
	short port_edge[WIRING_NODES_MAX][WIRING_PORTS_MAX];  /* edge index or -1 */
};

/* Build the observed graph from the nodes' ports. */
void wiring_graph_build(struct wiring_graph *g, const struct wiring_node *nodes, int n);
/* Index of the node called name, or -1. */
int wiring_graph_node(const struct wiring_graph *g, const char *name);
/* Index of node i's port with receptacle r, or -1. */
int wiring_graph_port(const struct wiring_graph *g, int i, const char *r);

/* What a link is checked against: an expected link, already resolved. */
struct wiring_want {
	int ai, bi;                /* node indices; -1: not in the cluster */
	const char *an, *bn;       /* node names */
	const char *ar, *br;       /* receptacles; "" any */
};

/*
 * Judge link l for want w given the edge e (NULL: none found; then
 * other_a/other_b are the edges on the wanted ports going elsewhere, or
 * NULL).  Fills every field of l.
 */
void wiring_judge(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *other_a,
    const struct wiring_edge *other_b, struct wiring_link *l);
/* Health problems of an observed edge (no missing/miswired), as bits. */
unsigned wiring_edge_problems(const struct wiring_graph *g, const struct wiring_edge *e);
/* Fill a side from node i, port p (p < 0: the node only). */
void wiring_side_fill(const struct wiring_graph *g, int i, int p, const char *name,
    struct wiring_side *s);
/* The verdict a set of problem bits gives. */
enum wiring_verdict wiring_first_problem(unsigned problems);

/* Texts (wiring_fix.c). */
void wiring_fix_text(const struct wiring_graph *g, const struct wiring_want *w,
    const struct wiring_edge *e, const struct wiring_edge *other_a,
    const struct wiring_edge *other_b, struct wiring_link *l);
void wiring_evidence(const struct wiring_graph *g, int i, int p, const char *name,
    char *out, size_t n);
void wiring_actual_text(const struct wiring_graph *g, const struct wiring_edge *e,
    char *out, size_t n);
void wiring_end_text(const char *node, const char *r, char *out, size_t n);
void wiring_unexpected_fix(const struct wiring_graph *g, const struct wiring_edge *e,
    struct wiring_link *l);

/* The cluster verdict and reasons (wiring_cluster.c); 0 or -1 (memory).  g
 * tells why a link is unknown (a node outside the cluster, no report, ...). */
int wiring_conclude(struct wiring_result *r, const struct wiring_graph *g);

/* A node statement's label: `a [label="mac1.local"]`. */
struct wiring_dot_label {
	api_name id;
	char label[256];
	int line;
};

/*
 * A DOT file as wiring_dot.c reads it, before its names meet a cluster:
 * the links over the ids as written, each with its line and the
 * interfaces of an "enX/enY" edge label ("" none), and the node labels
 * (one per id: the last).  Arrays malloc'd; wiring_dot_read_free().
 */
struct wiring_dot_read {
	int n_links;
	struct wiring_plan_link *links;
	int *lines;
	wiring_ifname (*ifaces)[2];
	int *iface_lines;
	int n_labels;
	struct wiring_dot_label *labels;
};

/* 0, or -1 with "line 3: ..." in err (and nothing to free). */
int wiring_dot_read(const char *text, size_t len, struct wiring_dot_read *out, char *err,
    size_t errlen);
void wiring_dot_read_free(struct wiring_dot_read *d);    /* accepts NULL */

/*
 * A bounded string builder for the texts of every link (the check's hot
 * path: printf is most of its cost).  Appends never overflow; the buffer
 * is always NUL-terminated.
 */
struct wiring_sb {
	char *p;
	size_t n, len;
};
void wiring_sb_init(struct wiring_sb *b, char *buf, size_t n);
/* Append strings up to a NULL. */
void wiring_sb_cat(struct wiring_sb *b, ...);
/* Append at most max bytes of s. */
void wiring_sb_putn(struct wiring_sb *b, const char *s, size_t max);
/* Append a speed or count: whole numbers without printf. */
void wiring_sb_num(struct wiring_sb *b, double v);
/* Copy src into dst (n bytes), truncating. */
void wiring_scopy(char *dst, size_t n, const char *src);

/* snprintf that appends to a buffer and never overflows. */
void wiring_append(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
