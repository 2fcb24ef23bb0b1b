/*
 * Cluster scenarios: a JSON file that describes a simulated cluster (its
 * Macs, the Thunderbolt cables between them, and faults).  The sim collector
 * backend (agent/backend_sim.c) reports one node of a scenario; both ends
 * of every cable agree because both are derived from the same file.
 * Examples: the .json files in tests/scenarios.
 *
 * The format.  Every object is checked: an unknown or repeated key is an
 * error, and so is a value of the wrong type or out of range.
 *
 *   {
 *    "description": "...",              optional, at most 1023 characters
 *    "cluster": "studio4",              required; [A-Za-z0-9._-], at most 63
 *    "defaults": {...},                 optional: any node key but name,
 *                                       serial, hardware_uuid and lan
 *    "nodes": [{                        1 to 32 nodes
 *      "name": "mac1",                  required; [A-Za-z0-9._-], unique
 *      "model": "Mac15,14",             required (in the node or defaults)
 *      "chip": "Apple M3 Ultra",        required
 *      "memory_gb": 512,                required; GiB, > 0, at most 65536
 *      "os_version": "26.2",            required
 *      "os_build": "25C56",             required
 *      "machine_name": "Mac Studio",    what its peers call it (default);
 *                                       given (here or in defaults), also
 *                                       the node's own machine_name in its
 *                                       report, which the wiring engine's
 *                                       bad-port rule reads (a Mac
 *                                       Studio's en2 carries no RDMA);
 *                                       absent, that is null, as an older
 *                                       agent's
 *      "max_speed_gbps": 120,           what an empty receptacle says, "Up
 *                                       to N Gb/s": 120 Thunderbolt 5
 *                                       (default), 40 Thunderbolt 4;
 *                                       > 0, <= 1000
 *      "receptacles": 6,                Thunderbolt receptacles, 1..16 (6)
 *      "interfaces": ["en2", ...],      receptacle r's device is
 *                                       interfaces[r-1]; default en(r+1)
 *      "rdma": true,                    rdma_ctl enabled (default true)
 *      "rdma_devices": true,            with "rdma" true, ibv_devices lists
 *                                       a device per receptacle (true);
 *                                       false: none, a Thunderbolt 4 Mac
 *                                       (ml-explore/mlx issue 3777)
 *      "bridge_active": false,          Thunderbolt Bridge up (false)
 *      "unreachable": false,            the sim collection fails (false)
 *      "gpu_wired_limit_mb": 0,         iogpu.wired_limit_mb; 0 = default
 *      "memory_load": 0.2,              share of memory in use, 0..0.95
 *      "power_watts": 120,              mean system power, > 0
 *      "boot_time": 1764547200,         unix seconds (default: derived)
 *      "serial": "H7XQ0000PF",          default: derived
 *      "hardware_uuid": "4C1D...5E6F",  uppercase; default: derived
 *      "lan": {                         its network interfaces besides
 *                                       Thunderbolt (network.interfaces),
 *                                       one object or a list of at most 16;
 *                                       absent: unknown (null); []: none
 *        "interface": "en0",            required; not a Thunderbolt one
 *        "kind": "ethernet",            "ethernet" (default), "wifi", "other"
 *        "port": "Ethernet",            hardware port; default "Ethernet"
 *                                       for ethernet, "Wi-Fi" for wifi,
 *                                       none (null) for other
 *        "ipv4": "192.0.2.11"           one address or a list of at most 8
 *      }                                (default: none)
 *    }],
 *    "cables": [{                       optional
 *      "a": "mac1:2", "b": "mac2:3",    required: "node:receptacle"
 *      "speed_gbps": 80                 negotiated, > 0, <= 1000 (80)
 *    }],
 *    "ports": [{                        optional: per-port faults
 *      "port": "mac3:4",                required
 *      "ipv4": false,                   true: the default; false: none;
 *                                       ["10.0.0.1", ...]: these (<= 8)
 *      "port_down": true,               RDMA port down at this end
 *      "reports_empty": true,           this end reports the port empty
 *                                       though cabled; the far end still
 *                                       sees the cable (a one-sided link)
 *      "ipv4_gid": false,               false: this port's RDMA device lists
 *                                       no IPv4-mapped GID though its
 *                                       interface has an address (MLX PR
 *                                       4191); true (default): one when it
 *                                       has an address
 *      "hub": "CalDigit TS4"            the cable goes through this dock or
 *                                       hub at this end: this end reports
 *                                       its peer behind it (via_hub, hub),
 *                                       the far end as direct, as real
 *                                       captures show; no RDMA over it
 *                                       (both ends' RDMA ports down).  A
 *                                       name of 1 to 63 characters
 *    }]
 *   }
 *
 * Rules: an endpoint is "node:receptacle" ("mac1:tb2" reads too) with the
 * receptacle in 1..receptacles.  A receptacle carries at most one cable; a
 * cable joins two different nodes; two cables between one pair are fine.
 * A port is listed at most once in "ports"; "port_down", "reports_empty"
 * and "hub" need a cable, and each
 * affects only the end it names (list both ends for a link down on both
 * sides); addresses may be given to an empty port (a static address).
 * Duplicate serials or hardware UUIDs are accepted: a test may want them.
 * The "lan" addresses are only reported: nothing connects to them, so the
 * scenarios here take them from the documentation ranges of RFC 5737
 * (192.0.2.0/24), which no real host has.
 *
 * Derived values (the same file always gives the same values):
 *   - the domain UUID of (node, r): a hash of "<cluster>/<node>/<r>",
 *     uppercase 8-4-4-4-12 with version 4 bits.  The cluster name is in
 *     the key: two scenarios with the same cluster name (a cluster and its
 *     faulty variants) share UUIDs, two clusters in one lab do not;
 *   - the IPv4 address of a cabled port without "ipv4": 169.254.x.y, x
 *     and y in 1..254, hashed from the same key and unique in the
 *     scenario; an empty port has none;
 *   - serial (10 characters), hardware UUID and boot time (within the week
 *     from 2025-12-01) from "<cluster>/<node>".
 */
#ifndef TBMESH_SCENARIO_H
#define TBMESH_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define SCENARIO_NODES_MAX 32
#define SCENARIO_RECEPTACLES_MAX REPORT_PORTS_MAX
#define SCENARIO_CABLES_MAX (SCENARIO_NODES_MAX * SCENARIO_RECEPTACLES_MAX / 2)
#define SCENARIO_NAME_MAX 63          /* node and cluster names */
#define SCENARIO_STR_MAX 63           /* model, chip, OS, serial, ... */
#define SCENARIO_IFNAME_MAX 15
#define SCENARIO_DESC_MAX 1023
#define SCENARIO_FILE_MAX (1 << 20)   /* bytes */
#define SCENARIO_SPEED_DEFAULT 80.0
#define SCENARIO_WATTS_DEFAULT 120.0
#define SCENARIO_LOAD_DEFAULT 0.2
#define SCENARIO_RECEPTACLES_DEFAULT 6

/* Ports past a node's receptacles are zeroed (empty domain_uuid). */
struct scenario_port {
	int receptacle;                   /* 1-based */
	char domain_uuid[37];             /* this side's, derived */
	char interface[SCENARIO_IFNAME_MAX + 1];  /* "en3" */
	int cable;                        /* index in cables[]; -1: nothing plugged in */
	int peer_node;                    /* index in nodes[]; -1 when empty */
	int peer_receptacle;              /* 1-based; 0 when empty */
	double speed_gbps;                /* negotiated; NAN when empty */
	int port_down;                    /* fault: RDMA port down though cabled */
	int reports_empty;                /* fault: this end does not see its cable */
	int no_gid;                       /* fault: its RDMA device has no IPv4-mapped
					     GID ("ipv4_gid": false) */
	char hub[SCENARIO_STR_MAX + 1];   /* fault: the dock or hub the cable goes
					     through at this end; "" direct */
	int n_ipv4;                       /* 0 or more once parsed */
	report_ipv4 ipv4[REPORT_IPV4_MAX];
};

/* One "lan" entry. */
struct scenario_lan {
	char interface[SCENARIO_IFNAME_MAX + 1];  /* "en0" */
	enum netif_kind kind;
	char port[SCENARIO_STR_MAX + 1];  /* "Ethernet"; "" none */
	int n_ipv4;
	report_ipv4 ipv4[REPORT_IPV4_MAX];
};

struct scenario_node {
	char name[SCENARIO_NAME_MAX + 1];
	char model[SCENARIO_STR_MAX + 1];
	char chip[SCENARIO_STR_MAX + 1];
	char machine_name[SCENARIO_STR_MAX + 1];
	int machine_name_given;           /* 0/1: in the node or defaults, not the
					     default: the report's node.machine_name */
	double max_speed_gbps;            /* an empty receptacle's "Up to N Gb/s" */
	char os_version[SCENARIO_STR_MAX + 1];
	char os_build[SCENARIO_STR_MAX + 1];
	char serial[SCENARIO_STR_MAX + 1];
	char hardware_uuid[37];
	double memory_gb;                 /* GiB */
	int64_t memory_bytes;             /* memory_gb GiB */
	int64_t gpu_wired_limit_mb;
	double memory_load;
	double power_watts;
	double boot_time;                 /* unix seconds */
	int rdma;                         /* 0/1 */
	int rdma_devices;                 /* 0/1: RDMA devices when rdma is on */
	int bridge_active;                /* 0/1 */
	int unreachable;                  /* 0/1 */
	int receptacles;
	struct scenario_port ports[SCENARIO_RECEPTACLES_MAX];   /* [r - 1] */
	int n_lan;                        /* -1: no "lan" (network unknown) */
	struct scenario_lan lan[REPORT_NETIFS_MAX];
};

struct scenario_cable {
	int a_node, a_receptacle;         /* index in nodes[], 1-based receptacle */
	int b_node, b_receptacle;
	double speed_gbps;
};

/*
 * A parsed, validated scenario: one allocation, freed with scenario_free().
 * Read-only for its users.  Everything in it is resolved: defaults applied,
 * each port knows its cable, peer, addresses and UUID.
 */
struct scenario {
	char cluster[SCENARIO_NAME_MAX + 1];
	char description[SCENARIO_DESC_MAX + 1];
	int n_nodes;
	struct scenario_node nodes[SCENARIO_NODES_MAX];
	int n_cables;
	struct scenario_cable cables[SCENARIO_CABLES_MAX];
};

/*
 * Parse and validate len bytes of JSON.  Returns a scenario the caller
 * releases with scenario_free(), or NULL with a message in err naming the
 * offending field ("cables[3].b: node \"mac9\" is not in nodes").
 */
struct scenario *scenario_parse(const char *json, size_t len, char *err, size_t errlen);

/* The same from a file; err starts with the path. */
struct scenario *scenario_load(const char *path, char *err, size_t errlen);

/* Accepts NULL. */
void scenario_free(struct scenario *s);

/* The node called name, or NULL.  The pointer lives as long as s. */
const struct scenario_node *scenario_node_find(const struct scenario *s, const char *name);

/*
 * A node's report comes from the sim backend: collector_run(&backend_sim,
 * &opts, r) with opts.scenario = the file and opts.node = the node.
 */

#endif
