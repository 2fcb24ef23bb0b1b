/*
 * Parsers of the text that macOS commands print, for the darwin collector
 * (backend_darwin.c).  Pure: no I/O, no allocation, no globals; the text is
 * a NUL-terminated string as runcmd() captures it.
 *
 * Every darwin_parse_* returns 0 when it read what it looks for, or -1 with
 * a one-line reason in err.  Garbage gives -1, never a made-up value: a
 * line that does not read exactly as expected is either skipped (when it is
 * not one the parser needs) or fails the parse.  On -1, report fields and
 * values are left untouched, and a darwin_* struct is left empty, unless
 * the function says what it keeps.
 *
 * Real output ends with a newline; a last line without one was cut short
 * and is ignored, so that a truncated "Device: en12" never reads as "en1".
 *
 * darwin_join.h puts the parsed pieces into the report.
 */
#ifndef TBMESH_DARWIN_PARSE_H
#define TBMESH_DARWIN_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define DARWIN_IFNAME_MAX 16   /* IFNAMSIZ, with the NUL */
#define DARWIN_DEVNAME_MAX 64  /* RDMA device name, with the NUL */
#define DARWIN_PORTNAME_MAX 64 /* hardware port name, with the NUL (longer: cut) */
#define DARWIN_HWPORTS_MAX 32  /* hardware ports besides the Thunderbolt ones */
#define DARWIN_IFLIST_MAX 64   /* interfaces `ifconfig -a` lists */

/* `networksetup -listallhardwareports` */
struct darwin_hwport {
	char receptacle[8];                /* "2" of "Hardware Port: Thunderbolt 2" */
	char device[DARWIN_IFNAME_MAX];    /* "en3" */
};

/* A hardware port that is neither "Thunderbolt N" nor the Thunderbolt Bridge. */
struct darwin_hwport_other {
	char port[DARWIN_PORTNAME_MAX];    /* "Ethernet", "Wi-Fi", "USB 10/100/1000 LAN" */
	char device[DARWIN_IFNAME_MAX];    /* "en0" */
};

struct darwin_hwports {
	int n;                             /* "Thunderbolt N" ports */
	struct darwin_hwport tb[REPORT_PORTS_MAX];
	char bridge[DARWIN_IFNAME_MAX];    /* device of "Thunderbolt Bridge"; "" none */
	int n_other;                       /* the other ports, in the order listed */
	struct darwin_hwport_other other[DARWIN_HWPORTS_MAX];
};

/*
 * Fills *hp.  -1 when there is no "Hardware Port:" entry at all, or when
 * there are more than REPORT_PORTS_MAX Thunderbolt ports or more than
 * DARWIN_HWPORTS_MAX others (the first ones are kept in *hp).  A port
 * whose Device: is not an interface name ("Bluetooth-Modem") is skipped.
 */
int darwin_parse_hwports(const char *text, struct darwin_hwports *hp, char *err,
    size_t errlen);

/* `ifconfig IF`: the first interface printed. */
struct darwin_ifconfig {
	char name[DARWIN_IFNAME_MAX];
	int up;                            /* UP among the flags */
	int loopback;                      /* LOOPBACK among the flags */
	int wired;                         /* its medium is Ethernet over a cable:
					      "media: autoselect (1000baseT <...>)" */
	enum tri active;                   /* "status: active" / "inactive"; TRI_NULL none */
	int n_ipv4;
	report_ipv4 ipv4[REPORT_IPV4_MAX];
	int n_members;                     /* bridges: "member: enX" lines */
	char members[REPORT_MEMBERS_MAX][DARWIN_IFNAME_MAX];
};

/*
 * Fills *ifc.  -1 when the text does not start with "IF: flags=", or when
 * it lists more addresses or members than the report holds (the first ones
 * are kept in *ifc).
 */
int darwin_parse_ifconfig(const char *text, struct darwin_ifconfig *ifc, char *err,
    size_t errlen);

/* `ifconfig -a`: every interface, in the order printed. */
struct darwin_iflist {
	int n;
	struct darwin_ifconfig ifc[DARWIN_IFLIST_MAX];
};

/*
 * Fills *l, each interface as darwin_parse_ifconfig() reads one; an
 * interface whose header line does not read ("IF: flags=") is skipped with
 * its lines.  -1 when no interface reads, or when there are more than
 * DARWIN_IFLIST_MAX interfaces or one lists more addresses or members than
 * the report holds (all that fits is kept in *l).
 */
int darwin_parse_ifconfig_all(const char *text, struct darwin_iflist *l, char *err,
    size_t errlen);
/* The interface of l called name, or NULL. */
const struct darwin_ifconfig *darwin_iflist_find(const struct darwin_iflist *l,
    const char *name);

/* `rdma_ctl status`: exactly "enabled" or "disabled". */
int darwin_parse_rdma_ctl(const char *text, enum rdma_state *state, char *err,
    size_t errlen);

/* `ibv_devices` */
struct darwin_ibv_devices {
	int n;
	char name[REPORT_DEVICES_MAX][DARWIN_DEVNAME_MAX];
};

/*
 * Fills *d.  The header alone (RDMA disabled) is zero devices.  -1 without
 * the header, on a line that is not "NAME GUID", or with more than
 * REPORT_DEVICES_MAX devices (the first ones kept in *d).
 */
int darwin_parse_ibv_devices(const char *text, struct darwin_ibv_devices *d, char *err,
    size_t errlen);

/* `ibv_devinfo -v` */
struct darwin_ibv_port {
	char name[DARWIN_DEVNAME_MAX];     /* hca_id */
	enum rdma_port_state state;        /* of its first port */
	enum tri ipv4_gid;                 /* a GID ::ffff:a.b.c.d; TRI_NULL: no GID listed */
};

struct darwin_ibv_devinfo {
	int n;
	struct darwin_ibv_port dev[REPORT_DEVICES_MAX];
};

/*
 * Fills *info.  "No IB devices found" is zero devices.  -1 when no hca_id
 * is found otherwise, or with more than REPORT_DEVICES_MAX devices (the
 * first ones kept).
 */
int darwin_parse_ibv_devinfo(const char *text, struct darwin_ibv_devinfo *info, char *err,
    size_t errlen);

/* `vm_stat`: page counts, -1 for a count that was not printed. */
struct darwin_vmstat {
	int64_t page_size;                 /* bytes, from the header */
	int64_t free;                      /* "Pages free" (without speculative) */
	int64_t active;
	int64_t inactive;
	int64_t speculative;
	int64_t throttled;
	int64_t wired;                     /* "Pages wired down" */
	int64_t purgeable;
	int64_t file_backed;
	int64_t anonymous;
	int64_t stored_in_compressor;      /* logical pages held compressed */
	int64_t occupied_by_compressor;    /* physical pages the compressor uses */
};

/*
 * Fills *vm (all -1 on failure).  -1 without the page size header, without one of the counts
 * free, active, inactive and wired down, or when a count it knows does not
 * read as a number.
 */
int darwin_parse_vm_stat(const char *text, struct darwin_vmstat *vm, char *err,
    size_t errlen);

/*
 * vm_stat in bytes into m: free_bytes (free + speculative: what the kernel
 * counts as free, top's "unused"), active_bytes, inactive_bytes,
 * wired_bytes, compressed_bytes (occupied by compressor).  A count that was
 * not printed, or whose bytes would pass REPORT_BYTES_MAX, stays null.
 */
void darwin_vmstat_memory(const struct darwin_vmstat *vm, struct report_memory *m);

/* `memory_pressure -Q`: "System-wide memory free percentage: 61%" -> 0.61. */
int darwin_parse_memory_pressure(const char *text, double *free_ratio, char *err,
    size_t errlen);

/* `sysctl vm.swapusage` (or with -n): "total = 2048.00M  used = 0.00M ..." in bytes. */
int darwin_parse_swapusage(const char *text, int64_t *total_bytes, int64_t *used_bytes,
    char *err, size_t errlen);

/* `sysctl -n hw.memsize`: bytes, > 0. */
int darwin_parse_memsize(const char *text, int64_t *bytes, char *err, size_t errlen);

/* `sysctl -n iogpu.wired_limit_mb`: MB -> bytes; 0 (the system default) stays 0. */
int darwin_parse_wired_limit(const char *text, int64_t *bytes, char *err, size_t errlen);

/*
 * `sw_vers`: node->os_version (ProductVersion), os_build (BuildVersion).
 * -1 when either is missing or malformed; the other is still set.
 */
int darwin_parse_sw_vers(const char *text, struct report_node *node, char *err,
    size_t errlen);

/* `sysctl -n kern.boottime`: "{ sec = 1763712764, usec = 123 } Sat Nov 21 ..." */
int darwin_parse_boottime(const char *text, double *boot_time, char *err, size_t errlen);

/* `hostname`: the first line, one word of printable characters. */
int darwin_parse_hostname(const char *text, char *dst, size_t dstlen, char *err,
    size_t errlen);

/*
 * `powermetrics --samplers cpu_power,gpu_power`: "CPU Power: 3120 mW" and
 * its GPU, ANE and (where printed) DRAM siblings, in watts, the first
 * sample's; source "powermetrics".  system_watts is not printed and is not
 * touched.  -1 (untouched) when neither CPU nor GPU power is found; -1
 * with the rest filled when a value does not read as milliwatts.
 */
int darwin_parse_powermetrics(const char *text, struct report_power *power, char *err,
    size_t errlen);

/*
 * Helpers the parsers share with darwin_join.c.
 */

/* Past prefix when s starts with it, else NULL. */
const char *darwin_skip_prefix(const char *s, const char *prefix);

/*
 * 1 when s is an interface name as macOS has them ("en3", "bridge0"): a
 * lower-case letter, then lower-case letters and digits, shorter than
 * DARWIN_IFNAME_MAX; else 0.
 */
int darwin_valid_ifname(const char *s);

#endif
