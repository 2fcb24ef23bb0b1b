/*
 * The node report, schema "tbmesh.report/1" (DESIGN.md, "The report").
 *
 * A report is a plain struct of fixed size: no pointers, so it can be copied
 * with memcpy and freed with free().  Unknown values are represented so that
 * they encode to JSON null and decode from it:
 *   - strings:  empty string ("") is null; a real value is never empty;
 *   - int64:    REPORT_NULL_I64;
 *   - double:   NAN (check with isnan());
 *   - tri-state booleans: TRI_NULL;
 *   - a network interface's kind: NETIF_KIND_NULL (the other enums have
 *     an "unknown" value, which the schema spells out);
 *   - arrays:   a count of -1 is null, 0 is a known empty array.
 * report_init() sets every field to null.
 */
#ifndef TBMESH_REPORT_H
#define TBMESH_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_SCHEMA "tbmesh.report/1"

#define REPORT_STR_MAX 255        /* longest string value, without the NUL */
#define REPORT_IPV4_MAX 8         /* addresses per port */
#define REPORT_PORTS_MAX 16       /* Thunderbolt receptacles per node */
#define REPORT_MEMBERS_MAX 16     /* bridge0 members */
#define REPORT_DEVICES_MAX 16     /* RDMA devices */
#define REPORT_NETIFS_MAX 16      /* network.interfaces */
#define REPORT_JOB_PROCS_MAX 64   /* jobs.processes: the ranks' processes on a node */
#define REPORT_JOB_ID_MAX (INT64_C(1) << 53)
#define REPORT_JOB_RANK_MAX 1023
#define REPORT_PID_MAX INT64_C(4194304)  /* above Linux's pid_max limit and macOS's 99998 */
#define REPORT_CPU_SECONDS_MAX 1e10     /* some 300 years of one core */
#define REPORT_JOB_STAT_MAX 7
#define REPORT_ERRORS_MAX 32
#define REPORT_ERRSRC_MAX 31
#define REPORT_ERRMSG_MAX 255

/* Largest values validation accepts. */
#define REPORT_SPEED_GBPS_MAX 1000.0
#define REPORT_WATTS_MAX 100000.0
#define REPORT_CELSIUS_MIN -100.0
#define REPORT_CELSIUS_MAX 200.0
#define REPORT_BYTES_MAX (INT64_C(1) << 56) /* 64 PiB */

#define REPORT_NULL_I64 INT64_MIN

typedef char report_str[REPORT_STR_MAX + 1];
typedef char report_ipv4[16]; /* dotted quad */

enum tri { TRI_NULL = -1, TRI_FALSE = 0, TRI_TRUE = 1 };

enum port_status { PORT_STATUS_UNKNOWN = 0, PORT_STATUS_CONNECTED, PORT_STATUS_EMPTY };
enum rdma_state { RDMA_STATE_UNKNOWN = 0, RDMA_STATE_ENABLED, RDMA_STATE_DISABLED };
enum rdma_port_state { RDMA_PORT_UNKNOWN = 0, RDMA_PORT_ACTIVE, RDMA_PORT_DOWN };
/* A network interface's kind; NETIF_KIND_NULL encodes as null. */
enum netif_kind { NETIF_KIND_NULL = 0, NETIF_KIND_ETHERNET, NETIF_KIND_WIFI,
	NETIF_KIND_OTHER };

struct report_node {
	report_str hostname;
	report_str hardware_uuid;
	report_str serial;
	report_str model;         /* "Mac15,14" */
	report_str machine_name;  /* "Mac Studio": SPHardwareDataType's machine_name */
	report_str chip;          /* "Apple M3 Ultra" */
	report_str os_version;    /* "26.2" */
	report_str os_build;      /* "25C56" */
	report_str agent_version;
	double boot_time;         /* unix seconds, NAN unknown */
	double collected_at;      /* see "Sections" above struct report */
};

struct report_peer {
	report_str domain_uuid;
	report_str name;          /* "Mac Studio" */
	report_str model;         /* "Mac15,14" */
	enum tri rdma_service;    /* advertises the RDMA XDomain service */
};

struct report_port {
	report_str receptacle;    /* "2": a string, as system_profiler has it */
	report_str bus;           /* "thunderboltusb4_bus_1" */
	report_str domain_uuid;   /* this side's domain */
	enum port_status status;
	report_str link_status;   /* "0x2" */
	double speed_gbps;        /* negotiated; NAN when empty or unknown */
	/*
	 * What the receptacle can do (an addition: DESIGN.md, "Additions"):
	 * 120 from an empty port's "Up to 120 Gb/s" (Thunderbolt 5), 40 from
	 * "Up to 40 Gb/s" (Thunderbolt 4).  A connected port shows only the
	 * negotiated rate, so this is NAN there and when unknown.
	 */
	double max_speed_gbps;
	report_str interface;     /* "en3" */
	int n_ipv4;               /* -1: unknown */
	report_ipv4 ipv4[REPORT_IPV4_MAX];
	int has_peer;             /* 0: "peer": null */
	struct report_peer peer;
	/*
	 * How the peer is reached (an addition to the schema: DESIGN.md,
	 * "Additions"): TRI_FALSE when it is plugged straight into this port
	 * (a cable), TRI_TRUE when it sits behind another device plugged into
	 * it (a dock or hub: no direct cable, no RDMA over it), TRI_NULL when
	 * there is no peer or it is not known.  hub names that device
	 * ("ThunderBay Flex 8"); "" null: direct, no peer, or no name.
	 */
	enum tri via_hub;
	report_str hub;
};

struct report_bridge {
	enum tri exists;
	enum tri active;
	int n_members;            /* -1: unknown */
	report_str members[REPORT_MEMBERS_MAX];
};

struct report_thunderbolt {
	int n_ports;              /* -1: unknown (collection failed) */
	struct report_port ports[REPORT_PORTS_MAX];
	struct report_bridge bridge;
	double collected_at;
};

struct report_rdma_device {
	report_str name;          /* "rdma_en3" */
	report_str interface;     /* "en3" */
	enum rdma_port_state port_state;
	enum tri ipv4_gid;        /* has an IPv4-mapped GID */
};

struct report_rdma {
	enum rdma_state state;
	int n_devices;            /* -1: unknown */
	struct report_rdma_device devices[REPORT_DEVICES_MAX];
	double collected_at;
};

/*
 * A network interface that is not Thunderbolt (an addition to the schema:
 * DESIGN.md, "Additions"): where the node's LAN address is, the one every
 * rank of a job reaches (MLX_JACCL_COORDINATOR), as opposed to a cable's
 * link-local address.
 */
struct report_netif {
	report_str name;          /* "en0" */
	enum netif_kind kind;     /* ethernet, wifi, other */
	report_str port;          /* the hardware port: "Ethernet", "Wi-Fi"; "" null */
	int n_ipv4;               /* -1: unknown */
	report_ipv4 ipv4[REPORT_IPV4_MAX];
};

struct report_network {
	int n_interfaces;         /* -1: unknown */
	struct report_netif interfaces[REPORT_NETIFS_MAX];
	double collected_at;
};

struct report_memory {
	int64_t total_bytes;
	int64_t free_bytes;
	int64_t active_bytes;
	int64_t inactive_bytes;
	int64_t wired_bytes;
	int64_t compressed_bytes;
	int64_t swap_total_bytes;
	int64_t swap_used_bytes;
	double free_ratio;                /* 0..1 */
	int64_t gpu_wired_limit_bytes;    /* 0: the system default */
	double collected_at;
};

struct report_power {
	report_str source;        /* "macmon" | "powermetrics" | "rapl" | "sim"; "" null */
	double system_watts;
	double cpu_watts;
	double gpu_watts;
	double ane_watts;
	double dram_watts;
	double collected_at;
};

struct report_thermal {
	double cpu_celsius;
	double gpu_celsius;
	double collected_at;
};

/* The agent itself (an addition to the schema: DESIGN.md, "Additions"). */
struct report_agent {
	report_str listen;        /* where its /metrics is: "IP:PORT" or "[IPV6]:PORT", the
				     address it bound ("0.0.0.0" or "::" when every one);
				     "" null: not serving */
};

/*
 * The processes of the jobs the controller started on the node (an
 * addition to the schema: DESIGN.md, "Additions"; issue 20): for each pid
 * file job<ID>/rank<R>.pid under the agent's --jobs-dir, what one
 * `ps -o pid=,stat=,time=,rss= -p LIST` says of that pid (proto/ps_line.h).
 * alive 0: the process is gone, or a zombie; stat, cpu_seconds and
 * rss_bytes are then null (a zombie keeps its stat "Z").
 */
struct report_job_proc {
	int64_t job;              /* the job's id, >= 1 */
	int rank;                 /* 0..REPORT_JOB_RANK_MAX */
	int64_t generation;       /* from rank<R>.gen; REPORT_NULL_I64: no such file */
	int64_t pid;              /* from rank<R>.pid, >= 1 */
	int alive;                /* 1, 0 */
	char stat[REPORT_JOB_STAT_MAX + 1];  /* ps's: "R+", "S", "U"; "" null */
	double cpu_seconds;       /* cumulative, user + system; NAN */
	int64_t rss_bytes;        /* REPORT_NULL_I64 */
};

struct report_jobs {
	int n_processes;          /* -1: not read (an older agent, or it failed) */
	struct report_job_proc processes[REPORT_JOB_PROCS_MAX];
	double collected_at;
};

struct report_error {
	char source[REPORT_ERRSRC_MAX + 1];
	char message[REPORT_ERRMSG_MAX + 1];
};

/*
 * Sections (an addition: DESIGN.md, "Additions"): an agent reads each
 * source on its own cadence, so node, thunderbolt, rdma, network, memory,
 * power, thermal and jobs each carry the unix time their values were read,
 * collected_at, which is never later than the report's.  NAN (null): read
 * with the report, at its collected_at (every older agent).  Use
 * report_section_time() rather than the field.
 */
struct report {
	double collected_at;      /* unix seconds: when the report was put together */
	struct report_node node;
	struct report_thunderbolt thunderbolt;
	struct report_rdma rdma;
	struct report_network network;
	struct report_memory memory;
	struct report_power power;
	struct report_thermal thermal;
	struct report_agent agent;
	struct report_jobs jobs;
	int n_errors;
	struct report_error errors[REPORT_ERRORS_MAX];
};

/* Allocate a report with every field null; free it with free(). */
struct report *report_new(void);
/* Set every field of r to null. */
void report_init(struct report *r);
/* The nulls that are not zero bytes, as report_init sets them after zeroing. */
void report_init_fields(struct report *r);
void report_port_init(struct report_port *p);
void report_rdma_device_init(struct report_rdma_device *d);
void report_netif_init(struct report_netif *n);
void report_job_proc_init(struct report_job_proc *p);

/*
 * Record a collection failure.  Both strings are truncated to fit; when the
 * list is full the last entry says how many more were dropped.
 */
void report_add_error(struct report *r, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Copy src into a report_str (or any buffer of size n), truncating. */
void report_strset(char *dst, size_t n, const char *src);
#define REPORT_SET(dst, src) report_strset((dst), sizeof(dst), (src))

/*
 * Encode r as JSON.  Returns a string the caller frees with free(), or NULL
 * when out of memory.  pretty != 0 indents it.
 */
char *report_encode(const struct report *r, int pretty);

/*
 * Decode and validate a report.  On success fills *out and returns 0.  On
 * failure returns -1, leaves a message naming the offending field in err
 * ("thunderbolt.ports[2].speed_gbps: 1e+09 is out of range 0..1000"), and
 * *out is unspecified.
 */
int report_decode(const char *json, size_t len, struct report *out, char *err, size_t errlen);
/*
 * report_decode into a report kept from one call to the next (a thread's
 * own, say), with the same result: r must come from report_new,
 * report_init, zeroed memory or the last report_decode_again.  Where
 * report_decode clears all of *out (some 70 KB, most of it arrays), this
 * clears only the array elements the last call filled; after a failure, it
 * clears everything.  *unknown (unless NULL) gets the number of keys the
 * report's schema does not have, which decoding skipped: a newer agent's
 * fields.  A key given twice, known or not, is refused.
 */
int report_decode_again(const char *json, size_t len, struct report *r, int *unknown,
    char *err, size_t errlen);

/*
 * 1 when s is a HOST:PORT agent.listen may hold: PORT digits only, 1 to
 * 65535; HOST a dotted quad, a bracketed IPv6 address (no zone), or a DNS
 * name of letters, digits, '-' and '.' that starts with neither of those two.
 */
int report_listen_valid(const char *s);

/*
 * The node's LAN address: the first IPv4 address of the first "ethernet"
 * interface in network.interfaces that has one, else of the first "wifi"
 * one, skipping link-local (169.254.0.0/16) and loopback (127.0.0.0/8)
 * addresses.  Returns 0 with the address in ip, the interface's name in
 * iface and *kind "ethernet" or "wifi" (a static string); -1 when there is
 * none (network unknown, or no such address), with ip and iface "" and
 * *kind NULL.  iface and kind may be NULL.
 */
int report_lan_ipv4(const struct report *r, char *ip, size_t iplen, char *iface,
    size_t ifacelen, const char **kind);

/* The sections that carry a collected_at, in the report's order. */
enum report_section { REPORT_SEC_NODE, REPORT_SEC_THUNDERBOLT, REPORT_SEC_RDMA,
	REPORT_SEC_NETWORK, REPORT_SEC_MEMORY, REPORT_SEC_POWER, REPORT_SEC_THERMAL,
	REPORT_SEC_JOBS, REPORT_SECTIONS };
/* "node", "thunderbolt" ... as the schema names the section's object. */
const char *report_section_name(enum report_section s);
/* The section's own collected_at (NAN: null, read with the report). */
double report_section_at(const struct report *r, enum report_section s);
/*
 * When a section's values were read: its collected_at, else (null) the
 * report's.  section is one of the report's section timestamps
 * (&r->thunderbolt.collected_at, report_section_at() ...).
 */
double report_section_time(const struct report *r, double section);
/* The oldest of the report's section times (the report's time when none is set). */
double report_oldest_section(const struct report *r);

/* Enum <-> string, as the schema spells them. */
const char *report_port_status_str(enum port_status s);
const char *report_rdma_state_str(enum rdma_state s);
const char *report_rdma_port_state_str(enum rdma_port_state s);
/* "ethernet", "wifi", "other"; NULL for NETIF_KIND_NULL (and out of range). */
const char *report_netif_kind_str(enum netif_kind k);

#endif
