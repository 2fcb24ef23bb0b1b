/*
 * Wiring validation (DESIGN.md "Wiring validation"): a pure engine.
 *
 * Input: what each node of a cluster last reported about its Thunderbolt
 * ports, RDMA and bridge (struct wiring_node, filled from a report by
 * wiring_node_from_report()), and the expected topology (a full mesh, a
 * ring, or an explicit plan of (node, receptacle) pairs).  Output: one
 * verdict per expected link with the evidence from both ends and a fix a
 * person in front of the rack can follow, the links seen but not expected,
 * and a cluster verdict (tensor-parallel ready, ring only, pipeline only,
 * not usable) with its reasons.
 *
 * No I/O and no clock: the caller passes now and the staleness limit.
 * The engine's files: wiring_graph.c (observed graph: peer domain UUIDs
 * resolved to (node, receptacle)), wiring_rules.c (each verdict's check
 * and fix, one row per verdict), wiring_verdict.c (a link's problems: the
 * structural ones, then the rules' checks), wiring_fix.c (evidence, and
 * the fix texts: the structural ones, then the rules'), wiring_cluster.c
 * (cluster verdict, queries), wiring.c (the whole check), wiring_plan.c
 * (cabling plans), wiring_dot.c (DOT reading and writing), wiring_import.c
 * (a DOT file's labels resolved against a cluster's nodes).  The result's
 * types, the verdicts (WIRING_VERDICTS: their order, words and meanings),
 * receptacle names and wiring_result_free() are the wire format's:
 * proto/wiring_types.h and proto/wiring_common.c (tbctl uses them).  A new
 * verdict is a row there and a check, a fix and a row in wiring_rules.c.
 *
 * Receptacles are strings in canonical form: reports carry "2" (darwin,
 * sim) or "D-N" (linux: domain and adapter); DOT files write "tb2".
 * wiring_receptacle_norm() turns any of them into the canonical form.
 */
#ifndef TBMESH_WIRING_H
#define TBMESH_WIRING_H

#include <stddef.h>
#include <stdint.h>

#include "wiring_types.h"

/*
 * How much longer than a report's own limit its Thunderbolt and RDMA facts
 * may be: tbagentd re-reads the topology every 60 s by default (and at once
 * when its per-collection ifconfig check sees a change), so facts up to two
 * of those intervals old are the normal state, not a fault.
 */
#define WIRING_FACTS_GRACE 120.0

/* ---- functions ------------------------------------------------------ */

/*
 * Fill *n from a node's latest report (r NULL: none).  report_at is the
 * report's arrival time; it is stale when now - report_at > stale_after or
 * the node is unreachable, and also when its Thunderbolt or RDMA section
 * is: a section read facts_age seconds before the report was put together
 * (report_section_time()) counts as arrived that much earlier, and is stale
 * past stale_after + WIRING_FACTS_GRACE, so Thunderbolt and RDMA facts an
 * agent last read minutes ago are not judged as fresh (facts_stale says
 * that was the reason).
 */
void wiring_node_from_report(struct wiring_node *n, const char *name, enum node_state state,
    const struct report *r, double report_at, double now, double stale_after);
/*
 * How much older than report r (its collected_at) its thunderbolt and rdma
 * sections are, in seconds (report_section_time(); 0 when read with it):
 * what wiring_node_from_report() puts in facts_age.
 */
double wiring_report_facts_age(const struct report *r);
/*
 * Set n's report_at, freshness and facts_stale again, as
 * wiring_node_from_report() does, from n->state and n->facts_age: for a
 * caller that keeps the wiring nodes and learns of each report's arrival
 * later.  A node without a report stays WIRING_REPORT_NONE.
 */
void wiring_node_freshen(struct wiring_node *n, double report_at, double now,
    double stale_after);

/*
 * Validate.  Returns a result the caller frees with wiring_result_free(),
 * or NULL (out of memory, or an input beyond WIRING_NODES_MAX; err says).
 */
struct wiring_result *wiring_check(const struct wiring_input *in, char *err, size_t errlen);

/* What placement needs about one pair of nodes. */
struct wiring_pair {
	const struct wiring_link *link;   /* the passing link */
	const struct wiring_side *mine;   /* the side on node a */
	const struct wiring_side *theirs; /* the side on node b */
};

/*
 * 1 and fills *out (pointers into r) when a working RDMA link joins nodes a
 * and b (an expected link that passes, or whose only problem is miswired
 * with a cable found between a and b; or an unexpected one that is
 * healthy), 0 when none does.  The cluster
 * verdict counts the same links.
 */
int wiring_pair_link(const struct wiring_result *r, const char *a, const char *b,
    struct wiring_pair *out);

/*
 * Every working RDMA link (as wiring_pair_link) joining nodes a and b, the
 * expected ones first: up to max into out; returns how many.  Two cables
 * between a pair are two links.
 */
int wiring_pair_links(const struct wiring_result *r, const char *a, const char *b,
    struct wiring_pair *out, int max);

/* 1 when every expected link touching node passes or only has an os-skew
 * a running rollout expects (expected_during_rollout), and it has at least
 * one when the cluster has two nodes or more; 0 otherwise. */
int wiring_node_links_pass(const struct wiring_result *r, const char *node);

/* 1 when the link passes, or its only problem is an os-skew a rollout
 * expects (what a rollout's verify accepts). */
int wiring_link_ok_during_rollout(const struct wiring_link *l);

/*
 * The rule: the id of the rollout that expects an os-skew between nodes a
 * and b when problems (a link's bits) is os-skew alone, both nodes are in
 * the same open rollout and it has updated (or is updating) one of them and
 * not yet updated the other; 0 otherwise (os-skew with another problem,
 * between two updated nodes, between two not reached yet, no rollout).
 */
int64_t wiring_skew_expected(const struct wiring_node *a, const struct wiring_node *b,
    unsigned problems);

/* 1 when every expected link passes. */
int wiring_all_pass(const struct wiring_result *r);

/*
 * Propose a cabling plan for nodes (mesh or ring) from the receptacles each
 * node reports, none used twice, receptacles that do not carry RDMA
 * avoided (wiring_port_carries_rdma()).  On success *out is malloc'd (the
 * caller frees it), *n_out set, 0 returned.  -1 with the reason in err when
 * it cannot be done ("a full mesh of 8 needs 7 receptacles on each node;
 * mac3 has 6").
 */
int wiring_plan_make(const struct wiring_node *nodes, int n_nodes, enum wiring_topology topo,
    struct wiring_plan_link **out, int *n_out, char *err, size_t errlen);

/*
 * A plan given by hand against the cluster it is for: every node it names
 * is one of nodes, and every receptacle it names is one the node reports
 * (a node whose ports are not known yet is taken at its word).  0, or -1
 * with "links[3].b: mac9 is not in the cluster" or "links[0].a: mac1 has
 * no receptacle 9 (it has 1, 2, 3, 4, 5, 6)" in err.
 */
int wiring_plan_fits(const struct wiring_plan_link *links, int n,
    const struct wiring_node *nodes, int n_nodes, char *err, size_t errlen);

/* 0 when the receptacle of node nodes[i] is known not to carry RDMA (RDMA
 * on, no device for its interface, which is every receptacle of a Mac
 * with no RDMA device at all; a peer with RDMA on and RDMA devices sees
 * no RDMA service from it; or a Mac Studio's port next to the Ethernet
 * port, en2: bad-port); 1 otherwise. */
int wiring_port_carries_rdma(const struct wiring_node *nodes, int n_nodes, int i,
    const struct wiring_port *p);

/*
 * DOT: `graph "studio4" { "mac1":"tb2" -- "mac2":"tb5"; }`.  Parsing takes
 * comments (//, #, / * * /), attributes ([...], a=b), quoted or bare ids,
 * ; or newlines, graph or digraph (-- or ->), and a port given with or
 * without "tb".  0 and *out malloc'd (caller frees), or -1 with
 * "line 3: ..." in err.  Labels are not read: the links are over the ids
 * as written (what a stored plan, always in this form, needs).
 */
int wiring_dot_parse(const char *text, size_t len, struct wiring_plan_link **out, int *n_out,
    char *err, size_t errlen);
/* The plan as DOT; malloc'd string (caller frees), NULL out of memory. */
char *wiring_dot_write(const char *cluster, const struct wiring_plan_link *links, int n);

/*
 * What a DOT file to import is read against: the cluster's name and its
 * nodes as the engine sees them (name, hostname, ssh_host, freshness, and
 * each port's receptacle and interface are used).
 */
struct wiring_dot_cluster {
	const char *name;
	const struct wiring_node *nodes;
	int n_nodes;
};

#define WIRING_DOT_NEEDS_NODES 1

/*
 * A DOT file to import as the cluster's plan.  As wiring_dot_parse(), and
 * also in the form `mlx.distributed_config --dot` prints (ids a, b, ...):
 * a node statement's label names a Mac of the cluster (its node name; else
 * its reported hostname, with or without ".local"; else its SSH host; a
 * "user@" before it is dropped; a label naming no node on an id that is a
 * node's name is only a caption), and the label "enX/enY" of an edge whose
 * ends name no receptacle gives the interfaces of its first and second end,
 * each turned into the receptacle whose port reports that interface.  The
 * links come out over node names and receptacles, ready to store as DOT in
 * tbmesh's form.
 *
 * c NULL: WIRING_DOT_NEEDS_NODES when the file has such a label (the caller
 * loads the cluster's nodes and calls again), else as wiring_dot_parse().
 * 0 and *out malloc'd (caller frees), or -1 with "line 3: ..." in err: a
 * label that names no node of the cluster, or two, or a node another id
 * already names; an interface on a node outside the cluster, on a node
 * that has not reported yet, or that no port of the node reports.
 */
int wiring_dot_import(const char *text, size_t len, const struct wiring_dot_cluster *c,
    struct wiring_plan_link **out, int *n_out, char *err, size_t errlen);


#endif
