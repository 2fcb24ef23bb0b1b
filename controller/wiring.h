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
 * resolved to (node, receptacle)), wiring_verdict.c (a link's problems),
 * wiring_fix.c (evidence and fix texts), wiring_cluster.c (cluster verdict,
 * queries), wiring.c (the whole check), wiring_plan.c (cabling plans),
 * wiring_dot.c (DOT reading and writing), wiring_import.c (a DOT file's
 * labels resolved against a cluster's nodes); the enum words, receptacle names
 * and wiring_result_free() are in proto/wiring_common.c (tbctl uses them).
 *
 * Receptacles are strings in canonical form: reports carry "2" (darwin,
 * sim) or "D-N" (linux: domain and adapter); DOT files write "tb2".
 * wiring_receptacle_norm() turns any of them into the canonical form.
 */
#ifndef TBMESH_WIRING_H
#define TBMESH_WIRING_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "report.h"

#define WIRING_NODES_MAX 64          /* nodes per cluster */
#define WIRING_PORTS_MAX REPORT_PORTS_MAX
#define WIRING_DEVICES_MAX REPORT_DEVICES_MAX
#define WIRING_SPEED_FULL_GBPS 80.0  /* below this a Thunderbolt 5 link is degraded */

typedef char wiring_recept[32];     /* canonical receptacle: "2", "0-1"; "" none */
typedef char wiring_uuid[64];       /* Thunderbolt domain UUID; "" none */
typedef char wiring_ifname[32];     /* "en3"; "" none */
typedef char wiring_text[256];

enum wiring_topology { WIRING_TOPO_MESH = 0, WIRING_TOPO_RING, WIRING_TOPO_PLAN };

/*
 * A link's verdict.  A link can have several problems (a bit per verdict in
 * wiring_link.problems); its verdict is the first of them in this order,
 * the one to fix first.
 */
enum wiring_verdict {
	WIRING_PASS = 0,
	WIRING_UNKNOWN,      /* a report is missing or stale */
	WIRING_MISSING,      /* no cable */
	WIRING_MISWIRED,     /* cable to another node or port than planned */
	WIRING_ONE_SIDED,    /* seen from one end only */
	WIRING_BRIDGE_LOOP,  /* Thunderbolt Bridge active with Thunderbolt members */
	WIRING_RDMA_OFF,     /* RDMA disabled, or the peer does not advertise it */
	WIRING_PORT_DOWN,    /* cable up, RDMA port not active */
	WIRING_NO_IPV4,      /* the interface has no IPv4 address */
	WIRING_DEGRADED,     /* below 80 Gb/s */
	WIRING_OS_SKEW,      /* the two ends run different macOS builds */
	WIRING_VERDICT_COUNT
};

enum wiring_cluster_verdict {
	WIRING_TENSOR_READY = 0,   /* a passing RDMA link between every pair */
	WIRING_RING_ONLY,          /* passing links close a ring through every node */
	WIRING_PIPELINE_ONLY,      /* passing links connect every node */
	WIRING_UNUSABLE
};

enum wiring_freshness { WIRING_REPORT_NONE = 0, WIRING_REPORT_STALE, WIRING_REPORT_FRESH };

/*
 * Where the OS update rollout open on the cluster (running, paused or
 * halted) is with a node (DESIGN.md "Rolling OS updates").  os-skew on a
 * link between a node the rollout has updated (or is updating) and one it
 * has not reached yet is expected: see wiring_link.expected_during_rollout.
 */
enum wiring_rollout_phase {
	WIRING_RO_NONE = 0,   /* no open rollout has this node */
	WIRING_RO_NOT_YET,    /* not reached yet (pending, or before its install): the old build */
	WIRING_RO_UPDATING,   /* installing or restarting: either build */
	WIRING_RO_UPDATED     /* at verify or past it, or skipped at the target */
};

/* ---- input ---------------------------------------------------------- */

struct wiring_port {
	wiring_recept receptacle;
	wiring_uuid domain_uuid;          /* this side's domain */
	enum port_status status;
	double speed_gbps;                /* NAN unknown */
	wiring_ifname interface;
	int n_ipv4;                       /* -1 unknown */
	char ipv4[16];                    /* the first address; "" none */
	int has_peer;                     /* a host (Mac) at the far end */
	wiring_uuid peer_uuid;            /* the far end's domain */
	enum tri peer_rdma_service;       /* the far end advertises RDMA */
};

struct wiring_rdma_device {
	wiring_ifname name;               /* "rdma_en3" */
	wiring_ifname interface;          /* "en3" */
	enum rdma_port_state port_state;
};

struct wiring_node {
	api_name name;
	report_str hostname;              /* as its report gives it ("mac1.local"); "" unknown */
	char ssh_host[256];               /* where the controller reaches it over SSH (the
					     inventory's; not from a report); "" none */
	enum node_state state;
	enum wiring_freshness freshness;
	double report_at;                 /* unix seconds; NAN never */
	report_str os_build;              /* "" unknown */
	enum rdma_state rdma;
	int n_ports;                      /* -1 unknown */
	struct wiring_port ports[WIRING_PORTS_MAX];
	int n_devices;                    /* -1 unknown */
	struct wiring_rdma_device devices[WIRING_DEVICES_MAX];
	enum tri bridge_active;           /* bridge0 active ... */
	int bridge_tb_members;            /* ... with this many Thunderbolt members */
	int64_t rollout_id;               /* the open rollout that has this node; 0 none
					     (not from a report: the caller's) */
	enum wiring_rollout_phase rollout_phase;
};

/* One end of a planned link: a node and its receptacle ("" any). */
struct wiring_end {
	api_name node;
	wiring_recept receptacle;
};

struct wiring_plan_link {
	struct wiring_end a, b;
};

/* The expected topology.  links is used (and owned by the caller) for plans. */
struct wiring_expect {
	enum wiring_topology topology;
	int n_links;
	const struct wiring_plan_link *links;
};

struct wiring_input {
	api_name cluster;
	double now;                       /* becomes the result's checked_at */
	int n_nodes;                      /* the cluster's members, 0..WIRING_NODES_MAX */
	const struct wiring_node *nodes;  /* ring order is this order */
	struct wiring_expect expect;
};

/* ---- output --------------------------------------------------------- */

struct wiring_side {
	api_name node;
	wiring_recept receptacle;         /* "" null */
	wiring_ifname interface;          /* "" null */
	wiring_ifname rdma_device;        /* "" null */
	char ipv4[16];                    /* "" null */
};

struct wiring_link {
	char id[160];                     /* "mac1:2--mac2:5"; "mac1--mac2" without receptacles */
	struct wiring_side a, b;
	enum wiring_verdict verdict;
	unsigned problems;                /* bit (1u << v) for each problem v; 0 when pass */
	int pass;
	int cabled;                       /* a cable joining its two nodes was found */
	double speed_gbps;                /* NAN null */
	wiring_text expected;             /* "mac1 tb2 -- mac2 tb5" */
	wiring_text actual;               /* "mac1 tb2 -- mac2 tb5 at 80 Gb/s"; "nothing" */
	char evidence_a[384];             /* what a reports */
	char evidence_b[384];
	char fix[512];                    /* "" null */
	int64_t expected_during_rollout;  /* os-skew is the link's only problem and
					     rollout N expects it (one end updated or
					     updating, the other not yet): N; else 0.
					     The link still does not pass (RDMA peers
					     need matching builds); the rollout's
					     verify counts it as passing. */
};

struct wiring_result {
	api_name cluster;
	enum wiring_topology topology;
	double checked_at;
	enum wiring_cluster_verdict verdict;
	wiring_text verdict_text;         /* "tensor-parallel ready: full RDMA mesh of 4" */
	int n_reasons;
	wiring_text *reasons;
	int n_nodes;
	api_name *nodes;
	int n_links;
	struct wiring_link *links;        /* expected links, in expectation order */
	int n_unexpected;
	struct wiring_link *unexpected;   /* present, not expected (id, a, b, speed,
					     actual, fix; verdict says whether the
					     link itself is healthy) */
};

/* ---- functions ------------------------------------------------------ */

/* "2", "tb2", "TB2", "Thunderbolt 2", "0-1" -> "2", "2", "2", "2", "0-1".
 * 0, or -1 (empty, too long, or characters other than [0-9A-Za-z_-]). */
int wiring_receptacle_norm(const char *in, char *out, size_t outlen);

/*
 * Fill *n from a node's latest report (r NULL: none).  report_at is the
 * report's arrival time; it is stale when now - report_at > stale_after or
 * the node is unreachable.
 */
void wiring_node_from_report(struct wiring_node *n, const char *name, enum node_state state,
    const struct report *r, double report_at, double now, double stale_after);

/*
 * Validate.  Returns a result the caller frees with wiring_result_free(),
 * or NULL (out of memory, or an input beyond WIRING_NODES_MAX; err says).
 */
struct wiring_result *wiring_check(const struct wiring_input *in, char *err, size_t errlen);
void wiring_result_free(struct wiring_result *r);        /* accepts NULL */

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
 * on, no device for its interface; or a peer with RDMA on sees no RDMA
 * service from it); 1 otherwise. */
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

const char *wiring_verdict_str(enum wiring_verdict v);
int wiring_verdict_parse(const char *s, enum wiring_verdict *out);
const char *wiring_cluster_verdict_str(enum wiring_cluster_verdict v);
int wiring_cluster_verdict_parse(const char *s, enum wiring_cluster_verdict *out);
const char *wiring_topology_str(enum wiring_topology t);
int wiring_topology_parse(const char *s, enum wiring_topology *out);

#endif
