/*
 * The wiring engine's input and result types (controller/engine/wiring.h
 * computes them): what the API sends for a check, what tbctl prints, what
 * the inventory stores.  The enum words, the verdicts' help listing,
 * receptacle names and wiring_result_free() are in wiring_common.c.
 */
#ifndef TBMESH_WIRING_TYPES_H
#define TBMESH_WIRING_TYPES_H

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
 * A link's verdicts, one row each: the enum name, the word (API, JSON,
 * tbctl) and what it means, in a line for help texts.  The enum, the words
 * (wiring_verdict_str/parse) and the help listing (wiring_verdict_help)
 * are made from this list; the engine has a rule for each verdict
 * (controller/engine/wiring_rules.c).
 *
 * A link can have several problems (a bit per verdict in
 * wiring_link.problems, so at most 32 rows); its verdict is the first of
 * them in this order, the one to fix first: a new verdict goes where its
 * fix ranks.  pass, unknown, missing and miswired stay first: the engine
 * finds them by matching what is cabled against what is expected, before
 * it checks any cable.  rdma-unavailable comes before rdma-off: an end
 * that cannot do RDMA at all (rdma_ctl says enabled, ibv_devices lists
 * nothing: a Thunderbolt 4 Mac, ml-explore/mlx issue 3777) is the first
 * thing to know, since turning RDMA on at the other end would not make
 * the link an RDMA link.  via-hub comes right after one-sided, before
 * bridge-loop and the RDMA verdicts: a cable that goes through a dock or
 * hub (the Mac at one end is nested in another device's _items in
 * system_profiler; the other end sees it as direct) can never carry RDMA,
 * so the other fixes (bridge, RDMA, the port, a cable's speed) would not
 * make it an RDMA link; the first thing to do is to cable the two ports
 * directly.  one-sided stays before it: a cable only one end sees is to
 * reseat first, and its far end's view is not known.  bad-port comes
 * right after via-hub: like it and miswired, it is where the cable is
 * plugged (a Mac Studio's Thunderbolt 5 port next to the Ethernet port,
 * en2, "Thunderbolt 1", carries no RDMA: exo-explore/exo PR 1551, README
 * caveat 3), so the bridge, RDMA and address fixes would not make the link
 * an RDMA link until the cable is moved; a cable through a dock is to be
 * cabled directly first, and then the port it lands in matters.  no-gid
 * comes right after no-ipv4: a Thunderbolt port publishes its IPv4-mapped
 * GID only once its interface has an IPv4 address (ml-explore/mlx PR
 * 4191), so an interface without one has no such GID either, and giving
 * it an address is the one fix for both.
 */
#define WIRING_VERDICTS(X) \
	X(WIRING_PASS, "pass", "the link works: nothing to fix") \
	X(WIRING_UNKNOWN, "unknown", "a report is missing or stale") \
	X(WIRING_MISSING, "missing", "no cable") \
	X(WIRING_MISWIRED, "miswired", "a cable to another node or receptacle than planned") \
	X(WIRING_ONE_SIDED, "one-sided", "seen from one end only") \
	X(WIRING_VIA_HUB, "via-hub", "the cable goes through a dock or hub: no RDMA over it") \
	X(WIRING_BAD_PORT, "bad-port", \
	    "a Mac Studio's port next to Ethernet (en2), which carries no RDMA") \
	X(WIRING_BRIDGE_LOOP, "bridge-loop", \
	    "the Thunderbolt Bridge is active with Thunderbolt members") \
	X(WIRING_RDMA_UNAVAILABLE, "rdma-unavailable", \
	    "an end has RDMA enabled but no RDMA device (Thunderbolt 4)") \
	X(WIRING_RDMA_OFF, "rdma-off", \
	    "RDMA disabled at an end, or the far end sees no RDMA service") \
	X(WIRING_PORT_DOWN, "port-down", "cable up, RDMA port down") \
	X(WIRING_NO_IPV4, "no-ipv4", "an end has no IPv4 address") \
	X(WIRING_NO_GID, "no-gid", "an RDMA port has no IPv4-mapped GID (JACCL needs one)") \
	X(WIRING_DEGRADED, "degraded", "below 80 Gb/s") \
	X(WIRING_OS_SKEW, "os-skew", "the ends run different macOS builds")

enum wiring_verdict {
#define WIRING_VERDICT_ENUM(name, word, meaning) name,
	WIRING_VERDICTS(WIRING_VERDICT_ENUM)
#undef WIRING_VERDICT_ENUM
	WIRING_VERDICT_COUNT
};

_Static_assert(WIRING_VERDICT_COUNT <= 32, "a link's problems are the bits of an unsigned");

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
	double max_speed_gbps;            /* an empty port's "Up to N Gb/s": 120
					     Thunderbolt 5, 40 Thunderbolt 4; NAN
					     connected or unknown */
	wiring_ifname interface;
	int n_ipv4;                       /* -1 unknown */
	char ipv4[16];                    /* the first address; "" none */
	int has_peer;                     /* a host (Mac) at the far end */
	wiring_uuid peer_uuid;            /* the far end's domain */
	enum tri peer_rdma_service;       /* the far end advertises RDMA */
	enum tri via_hub;                 /* the peer sits behind a dock or hub plugged
					     into this port (TRI_TRUE), is cabled
					     straight to it (TRI_FALSE), or not known */
	char hub[64];                     /* that dock or hub ("CalDigit TS4"); "" none
					     or no name */
};

struct wiring_rdma_device {
	wiring_ifname name;               /* "rdma_en3" */
	wiring_ifname interface;          /* "en3" */
	enum rdma_port_state port_state;
	enum tri ipv4_gid;                /* an IPv4-mapped GID (::ffff:a.b.c.d) */
};

struct wiring_node {
	api_name name;
	report_str hostname;              /* as its report gives it ("mac1.local"); "" unknown */
	char ssh_host[256];               /* where the controller reaches it over SSH (the
					     inventory's; not from a report); "" none */
	enum node_state state;
	enum wiring_freshness freshness;
	double report_at;                 /* unix seconds; NAN never */
	double facts_age;                 /* how much older than the report (its
					     collected_at) its thunderbolt and rdma
					     sections are, in seconds; 0 read with it */
	int facts_stale;                  /* stale only because of those sections: the
					     report came in time, its Thunderbolt and
					     RDMA facts are older than the limit */
	report_str os_build;              /* "" unknown */
	report_str machine_name;          /* "Mac Studio"; "" unknown */
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
void wiring_result_free(struct wiring_result *r);        /* accepts NULL */

const char *wiring_verdict_str(enum wiring_verdict v);   /* "unknown" out of range */
int wiring_verdict_parse(const char *s, enum wiring_verdict *out);     /* 0 or -1 */
/* The line WIRING_VERDICTS gives v for help texts ("below 80 Gb/s"); "" out
 * of range. */
const char *wiring_verdict_meaning(enum wiring_verdict v);
/*
 * Every verdict, one line each in the order that decides a link's verdict:
 * two spaces, the word padded to the longest, two spaces, its meaning
 * ("  degraded     below 80 Gb/s\n").  As snprintf: writes at most len
 * bytes with the NUL (buf may be NULL when len is 0) and returns the
 * length of the whole text, so a return >= len means it was cut.
 */
size_t wiring_verdict_help(char *buf, size_t len);
const char *wiring_cluster_verdict_str(enum wiring_cluster_verdict v);
int wiring_cluster_verdict_parse(const char *s, enum wiring_cluster_verdict *out);
const char *wiring_topology_str(enum wiring_topology t);
int wiring_topology_parse(const char *s, enum wiring_topology *out);

#endif
