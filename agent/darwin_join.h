/*
 * Joins for the darwin collector (backend_darwin.c): put what darwin_parse.h
 * read out of the macOS commands into the report.  The receptacle -> enX
 * mapping from networksetup, IPv4 addresses from ifconfig, the Thunderbolt
 * Bridge, rdma_enX -> enX and the RDMA devices.  Pure: no I/O, no
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
