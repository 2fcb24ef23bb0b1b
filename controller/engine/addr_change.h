/*
 * A Thunderbolt interface's IPv4 addresses from one report of a node to
 * the next.  Link-local addresses do not hold still: macOS self-assigns a
 * 169.254/16 address (APIPA) to a port whose DHCP finds no server, and
 * after a link renegotiation it often comes back as another one, absent
 * for minutes in between (ml-explore/mlx issue 3467, comment of
 * 2026-07-24); exo's io.exo.networksetup LaunchDaemon switches to its own
 * network location with every Thunderbolt service on DHCP every 1786 s,
 * so static addresses go (exo-explore/exo issue 2067;
 * app/EXO/EXO/Services/NetworkSetupHelper.swift at b5375f8c: L14
 * requiredStartInterval = 1786, L41 networksetup -switchtolocation exo,
 * L55 networksetup -setdhcp).  An MLX
 * hostfile names those addresses, so each change is an event, and the fix
 * is the static per-cable /30 that tbctl node add gives each cabled port.
 *
 * Pure: no I/O, no clock.  The caller keeps each node's struct addr_ports
 * from its previous report and passes both.
 */
#ifndef TBMESH_ADDR_CHANGE_H
#define TBMESH_ADDR_CHANGE_H

#include <stddef.h>

#include "report.h"

#define ADDR_PORTS_MAX REPORT_PORTS_MAX
#define ADDR_IPV4_MAX REPORT_IPV4_MAX
#define ADDR_NAME_MAX 31          /* an interface or receptacle name kept */

/* One Thunderbolt port's addresses as a report gives them. */
struct addr_port {
	char receptacle[ADDR_NAME_MAX + 1];   /* "1"; "" unknown */
	char interface[ADDR_NAME_MAX + 1];    /* "en2"; "" unknown */
	enum port_status status;
	int n_ipv4;                           /* -1 unknown */
	report_ipv4 ipv4[ADDR_IPV4_MAX];      /* sorted, each once */
};

struct addr_ports {
	int n_ports;                          /* -1: no report yet, or the ports unknown */
	struct addr_port ports[ADDR_PORTS_MAX];
};

enum addr_change_kind {
	ADDR_APPEARED,       /* none before, some now */
	ADDR_GONE,           /* some before, none now */
	ADDR_REPLACED        /* some before, others now */
};

struct addr_change {
	char interface[ADDR_NAME_MAX + 1];
	char receptacle[ADDR_NAME_MAX + 1];   /* "" unknown */
	enum addr_change_kind kind;
	int n_before, n_after;
	report_ipv4 before[ADDR_IPV4_MAX];    /* sorted, each once */
	report_ipv4 after[ADDR_IPV4_MAX];
};

/* Empty: what a node has before its first report (n_ports -1). */
void addr_ports_init(struct addr_ports *a);

/* The Thunderbolt ports' addresses of r (NULL: none yet) into *a. */
void addr_ports_from_report(struct addr_ports *a, const struct report *r);

/*
 * What changed from before to after, up to max into out; returns how many.
 * Ports are matched by interface.  Not a change: a first report (before
 * unknown), a port whose addresses either report does not know, a port
 * that is new or gone from the list, a port empty in either report (it
 * went empty or came out of it: a cable pulled or plugged, the wiring
 * check's event), the same addresses in another order or twice.
 */
int addr_changes(const struct addr_ports *before, const struct addr_ports *after,
    struct addr_change *out, int max);

/* The kind of a change from n_before addresses to n_after. */
enum addr_change_kind addr_change_kind_of(int n_before, int n_after);

/* 1 when addr is in 169.254.0.0/16 (self-assigned, RFC 3927). */
int addr_is_link_local(const char *addr);

/*
 * 1 when an interface with these addresses is back on DHCP: none (DHCP
 * finds no server on a cable), or self-assigned ones only.
 */
int addr_set_dynamic(const report_ipv4 *set, int n);

/* The same sets: 1.  Both sorted, each once (as struct addr_port keeps them). */
int addr_set_equal(const report_ipv4 *a, int na, const report_ipv4 *b, int nb);

/*
 * A set in words: "192.168.0.2", "169.254.1.2, 169.254.3.4", "none"; more
 * than two as the first two and "+N".
 */
void addr_set_text(const report_ipv4 *set, int n, char *buf, size_t len);

/* An int that stands for the set (equal sets, equal keys), for wmon_gate. */
int addr_set_key(const report_ipv4 *set, int n);

/*
 * The event of change ch, held changes since the last event not logged
 * (0: none).  what: "address en2 192.168.0.2 -> 169.254.7.9", or, when
 * flapping (back at the addresses the last event gave), "address en2
 * flapping, back at 192.168.0.2"; "address en2 changed" or "address en2
 * flapping" when that does not fit, the addresses then first in reason.
 * reason: the count held back, the fix (the static per-cable /30 of tbctl
 * node add) and, when the interface is back on DHCP or flapping, exo's
 * daemon that puts it there and how to stop it.
 */
void addr_change_event(const struct addr_change *ch, int flapping, int held, char *what,
    size_t whatlen, char *reason, size_t reasonlen);

/* The change in a few words for other messages: "en2 192.168.0.2 -> 169.254.7.9". */
void addr_change_brief(const struct addr_change *ch, char *buf, size_t len);

#endif
