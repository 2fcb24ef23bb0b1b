/*
 * What the wiring engine's files share (not for other modules: use
 * wiring.h).  The observed graph is built by wiring_graph.c; wiring.c
 * matches it against the expectation; wiring_verdict.c judges one link,
 * running the checks of wiring_rules.c; wiring_fix.c writes its evidence
 * and fix, running the fixes of wiring_rules.c; wiring_cluster.c concludes.
 */
#ifndef TBMESH_WIRING_INT_H
#define TBMESH_WIRING_INT_H

#include "textbuf.h"
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
	const char *cluster;       /* the cluster's name, for fixes; "" none */
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

/*
 * 1 when port p of node n is a Mac Studio's Thunderbolt 5 port next to the
 * Ethernet port, which carries no RDMA (bad-port: wiring_rules.c says
 * where the rule comes from).
 */
int wiring_port_next_to_ethernet(const struct wiring_node *n, const struct wiring_port *p);
/* 1 when node n's ports are Thunderbolt 4: an empty one says "Up to 40
 * Gb/s" and none "Up to 120" (degraded's fix; wiring_rules.c). */
int wiring_node_tb4(const struct wiring_node *n);

/* Node n's RDMA device for interface ifname, or NULL (none, or ifname ""). */
const struct wiring_rdma_device *wiring_device_for(const struct wiring_node *n,
    const char *ifname);

/*
 * A verdict's rule: how the engine finds its problem on a cable, and the
 * fix it writes.  wiring_rules[v] is verdict v's (wiring_rules.c); the
 * verdicts, their words and order are proto's WIRING_VERDICTS.
 *
 * The structural verdicts (pass, unknown, missing, miswired) have a row
 * that says so and nothing else: pass is no problem; unknown is what the
 * engine cannot judge (a node outside the cluster, no or a stale report,
 * an RDMA state not read, a peer no member reports); missing and miswired
 * come from matching cables to the expectation.  wiring_verdict.c finds
 * them and wiring_fix.c writes their fixes, before any rule's.
 *
 * Every other verdict has at least one check and one fix.  The checks
 * (NULL: none at that level) return 1 when the problem is there:
 *   node   a member with a fresh report, alone;
 *   end    node i's port p at one end of a cable both ends report (each
 *          end is checked; a fresh report is not required);
 *   cable  a cable between two members, seen from one end or both.
 * A cable's problems are the union over its nodes, ends and itself, less
 * those a problem found explains away (hides).  The fix, one of:
 *   fix_end    for each end of the link on a member with a fresh report:
 *              node i, the port p its side names (-1: none), that side;
 *              it writes nothing when its problem is not at this end;
 *   fix_cable  once for the link, with the cable e found for it.
 * Each is called only when the link has the problem, and adds its
 * sentences with wiring_fix_add().  A link's fixes come in verdict order;
 * the fix_end fixes of consecutive verdicts go end by end (all of a's,
 * then all of b's).
 */
struct wiring_rule {
	enum wiring_verdict verdict;      /* its own index: a row that is there */
	int structural;
	int (*node)(const struct wiring_node *n);
	int (*end)(const struct wiring_graph *g, int i, int p);
	int (*cable)(const struct wiring_graph *g, const struct wiring_edge *e);
	unsigned hides;                   /* problem bits this one explains away */
	void (*fix_end)(const struct wiring_graph *g, int i, int p, const struct wiring_side *s,
	    struct wiring_link *l);
	void (*fix_cable)(const struct wiring_graph *g, const struct wiring_edge *e,
	    struct wiring_link *l);
};

extern const struct wiring_rule wiring_rules[WIRING_VERDICT_COUNT];

/* Texts (wiring_fix.c). */
/* Append a sentence to l->fix, after "; " when it has one already. */
void wiring_fix_add(struct wiring_link *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
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


#endif
