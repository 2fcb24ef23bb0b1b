/*
 * Joins for the darwin collector (backend_darwin.c): put what darwin_parse.h
 * read out of the macOS commands into the report.  The receptacle -> enX
 * mapping from networksetup, IPv4 addresses from ifconfig, the Thunderbolt
 * Bridge, rdma_enX -> enX and the RDMA devices, the other network
 * interfaces (network.interfaces).  Pure: no I/O, no
 * allocation, no globals; the parsed structs are only read.
 */
#ifndef TBMESH_DARWIN_JOIN_H
#define TBMESH_DARWIN_JOIN_H

#include <stddef.h>

#include "darwin_parse.h"
#include "report.h"

/*
 * Set the interface of each port from networksetup: receptacle N is
 * "Thunderbolt N".  Ports without a match keep theirs ("" null).
 */
void darwin_join_interfaces(struct report_thunderbolt *tb, const struct darwin_hwports *hp);

/*
 * Give the port whose interface is ifc->name the addresses of ifc
 * (n_ipv4 0 when it has none).  Returns -1 when no port has that interface.
 */
int darwin_join_ifconfig(struct report_thunderbolt *tb, const struct darwin_ifconfig *ifc);

/* The Thunderbolt Bridge from `ifconfig bridge0`: exists, active, members. */
void darwin_join_bridge(struct report_bridge *b, const struct darwin_ifconfig *ifc);

/*
 * The kind of an interface from its hardware port's name (NULL: it has
 * none) and whether ifconfig shows a wired Ethernet medium on it:
 *   "Wi-Fi" (and the older "AirPort")                        -> wifi
 *   a name with the word "Ethernet" ("Ethernet", "Ethernet 1",
 *   "Thunderbolt Ethernet Slot 1", "Display Ethernet") or "LAN"
 *   ("USB 10/100/1000 LAN"), but not "Ethernet Adapter (enX)" -> ethernet
 *   anything else, "Ethernet Adapter (enX)" and no port at all:
 *   ethernet when the medium is wired ("AX88179A", a USB adapter that
 *   macOS names after its chip), else                         -> other
 * "Ethernet Adapter (enX)" is no Ethernet port: Apple silicon Macs without
 * one list these too (an M5 Max MacBook Pro's, captures/osaurus), backed by
 * their anpiN interfaces with no medium, and a USB adapter plugged in shows
 * up beside them under its own name.
 */
enum netif_kind darwin_netif_kind(const char *port, int wired);

/*
 * nw->interfaces from networksetup (hp) and `ifconfig -a` (l), in the order
 * ifconfig prints them: every interface that is not Thunderbolt and either
 * has a hardware port or an IPv4 address, with its kind, port and
 * addresses.  Thunderbolt: the devices of the "Thunderbolt N" ports and of
 * the Thunderbolt Bridge (bridge0 when networksetup names none), the
 * bridge's members, and the interfaces of tb's ports.  The loopback is
 * left out.  Returns how many interfaces did not fit (0, normally).
 */
int darwin_join_network(struct report_network *nw, const struct darwin_hwports *hp,
    const struct darwin_iflist *l, const struct report_thunderbolt *tb);

/* "rdma_en3" -> "en3".  -1 when dev is not "rdma_" and an interface name. */
int darwin_rdma_interface(const char *dev, char *ifname, size_t n);

/*
 * rd->devices from devs (ibv_devices), each with its interface, and its port
 * state and IPv4 GID from info when info (ibv_devinfo) is not NULL and lists
 * it.  When devs is NULL the devices are the ones info lists.  rd->state is
 * not touched.
 */
void darwin_join_rdma(struct report_rdma *rd, const struct darwin_ibv_devices *devs,
    const struct darwin_ibv_devinfo *info);

#endif
