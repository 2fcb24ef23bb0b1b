/*
 * Linux Thunderbolt/USB4: ports, peers and the bridge, from
 * /sys/bus/thunderbolt/devices (Documentation/ABI/testing/
 * sysfs-bus-thunderbolt) and /sys/class/net.
 *
 * The bus names its devices "<domain>-<route>", the route in hex: "0-0" is
 * the host router of domain 0, "0-1" whatever is plugged into its adapter
 * 1, "0-301" a device behind "0-1".  Peer hosts (XDomain connections) are
 * named the same way and told apart by DEVTYPE=thunderbolt_xdomain in their
 * uevent (or, where uevent is missing, by having no "authorized"
 * attribute); their services are "<xdomain>.<n>".  Host routers list their
 * USB4 ports as usb4_port<adapter>, with a "link" attribute (usb4, tbt or
 * none) since Linux 5.14.
 *
 * The mapping:
 *   - one port per host-router connection: every usb4_port<N> of a host
 *     router "D-0", and every device or peer one hop from it ("D-N" with
 *     N < 0x100) even on hosts that list no usb4 ports; devices further
 *     down (behind a dock) are not ports;
 *   - receptacle "D-N": the domain and the host router's adapter number in
 *     decimal, the N of usb4_port<N> (unique on the node, stable across
 *     boots and cables; for N < 10 also the bus name of what is plugged in);
 *   - bus "domainD"; domain_uuid the host router's unique_id;
 *   - status connected when something is plugged in, empty when the port's
 *     link reads "none", unknown otherwise; link_status null;
 *   - speed_gbps = rx_speed (per lane, "20.0 Gb/s") x rx_lanes of what is
 *     plugged in;
 *   - peer, for an XDomain connection only: domain_uuid its unique_id,
 *     name its device_name, model null; rdma_service true when one of its
 *     services has a key containing "rdma" (any case), false otherwise.
 *     The kernel documents the keys "network", "targetdm" and "extdisp";
 *     the key of Apple's RDMA service is not documented, so this rule is
 *     the one place to change once it is seen on a wire;
 *   - interface: the network interface the thunderbolt-net driver made
 *     for one of the peer's services (<service>/net/<ifname>, else the
 *     /sys/class/net/<ifname>/device link that points at the service);
 *   - ipv4: the interface's IPv4 addresses (getifaddrs) when collecting
 *     from the real root, unknown under any other root.
 * No /sys/bus/thunderbolt/devices means no Thunderbolt here: zero ports.
 *
 * The bridge: the first bridge (a /sys/class/net/<if>/bridge directory)
 * with a Thunderbolt member (a name starting with "thunderbolt", or a
 * port's interface); active when its operstate is "up"; members every name
 * in its brif directory.  No such bridge: exists and active false, no
 * members.  No /sys/class/net at all: unknown.
 */
#include "backend_linux.h"
#include "sysfs.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define TB_DEVICES "/sys/bus/thunderbolt/devices"

/* Where each report port sits: the domain and host-router adapter. */
struct tb_keys {
	unsigned domain[REPORT_PORTS_MAX];
	unsigned adapter[REPORT_PORTS_MAX];
	int dropped;
};

/*
 * Parse a router or XDomain name "D-R" (R hex).  Returns 0, or -1 for
 * anything else (domainN, services "0-1.0", retimers "0-0:1.1").
 */
static int
parse_name(const char *name, unsigned *domain, unsigned long long *route)
{
	const char *p = name;
	unsigned long long d = 0, rt = 0;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++)
		if ((d = d * 10 + (unsigned)(*p - '0')) > 0xffff)
			return -1;
	if (*p++ != '-' || !isxdigit((unsigned char)*p))
		return -1;
	for (int n = 0; isxdigit((unsigned char)*p); p++, n++) {
		if (n == 16)
			return -1;
		rt = rt * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' :
		    tolower((unsigned char)*p) - 'a' + 10);
	}
	if (*p != '\0')
		return -1;
	*domain = (unsigned)d;
	*route = rt;
	return 0;
}

/* Read attribute attr of bus device dev; see sysfs_read_line(). */
static ssize_t
tb_attr(const char *root, const char *dev, const char *attr, char *buf, size_t len)
{
	char path[SYSFS_PATH_MAX];

	if (sysfs_path(path, sizeof(path), "", TB_DEVICES "/%s/%s", dev, attr) == -1)
		return -1;
	return sysfs_read_line(root, path, buf, len);
}

/* The report port for (domain, adapter), made if new; NULL when full. */
static struct report_port *
port_get(const char *root, unsigned domain, unsigned adapter, struct tb_keys *k,
    struct report *r)
{
	struct report_thunderbolt *t = &r->thunderbolt;
	struct report_port *p;
	char buf[64];

	for (int i = 0; i < t->n_ports; i++)
		if (k->domain[i] == domain && k->adapter[i] == adapter)
			return &t->ports[i];
	if (t->n_ports == REPORT_PORTS_MAX) {
		k->dropped++;
		return NULL;
	}
	k->domain[t->n_ports] = domain;
	k->adapter[t->n_ports] = adapter;
	p = &t->ports[t->n_ports++];
	report_port_init(p);
	snprintf(p->receptacle, sizeof(p->receptacle), "%u-%u", domain, adapter);
	snprintf(p->bus, sizeof(p->bus), "domain%u", domain);
	snprintf(buf, sizeof(buf), "%u-0", domain);
	tb_attr(root, buf, "unique_id", p->domain_uuid, sizeof(p->domain_uuid));
	return p;
}

/* The usb4_port<N> entries of host router dev (domain d). */
static void
host_ports(const char *root, const char *dev, unsigned d, struct tb_keys *k,
    struct report *r)
{
	char path[SYSFS_PATH_MAX], attr[64], link[16];
	struct sysfs_list l;
	int64_t n;

	if (sysfs_path(path, sizeof(path), "", TB_DEVICES "/%s", dev) == -1 ||
	    sysfs_list(root, path, "usb4_port", &l) == -1)
		return;
	for (size_t i = 0; i < l.n; i++) {
		if (sysfs_parse_i64(l.names[i] + 9, &n) == -1 || n <= 0 || n > 0xff)
			continue;
		struct report_port *p = port_get(root, d, (unsigned)n, k, r);
		if (p == NULL || p->status == PORT_STATUS_CONNECTED)
			continue;
		snprintf(attr, sizeof(attr), "%s/link", l.names[i]);
		if (tb_attr(root, dev, attr, link, sizeof(link)) == -1)
			p->status = PORT_STATUS_UNKNOWN;
		else if (strcmp(link, "none") == 0)
			p->status = PORT_STATUS_EMPTY;
		else
			p->status = PORT_STATUS_CONNECTED;
	}
	sysfs_list_free(&l);
}

/* 1 when dev is an XDomain (peer host) connection, 0 a router. */
static int
is_xdomain(const char *root, const char *dev)
{
	char path[SYSFS_PATH_MAX], line[128];

	if (sysfs_path(path, sizeof(path), "", TB_DEVICES "/%s/uevent", dev) == 0 &&
	    sysfs_find_line(root, path, "DEVTYPE=", line, sizeof(line)) >= 0)
		return strcmp(line, "DEVTYPE=thunderbolt_xdomain") == 0;
	if (sysfs_path(path, sizeof(path), "", TB_DEVICES "/%s/authorized", dev) == -1)
		return 0;
	return sysfs_exists(root, path) == 0;
}

/* "20.0 Gb/s" -> 20.0; -1 when it is not that. */
static int
parse_gbps(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0.0))
		return -1;
	end += strspn(end, " ");
	if (strcmp(end, "Gb/s") != 0)
		return -1;
	*out = v;
	return 0;
}

/* speed_gbps = rx_speed x rx_lanes of dev; NAN when either is missing. */
static double
link_speed(const char *root, const char *dev, struct report *r)
{
	char speed[64], lanes[32];
	int64_t nl;
	double g;

	if (tb_attr(root, dev, "rx_speed", speed, sizeof(speed)) == -1)
		return NAN;
	if (parse_gbps(speed, &g) == -1) {
		report_add_error(r, "thunderbolt", "%s/rx_speed: cannot parse \"%.40s\"",
		    dev, speed);
		return NAN;
	}
	if (tb_attr(root, dev, "rx_lanes", lanes, sizeof(lanes)) == -1)
		return NAN;
	if (sysfs_parse_i64(lanes, &nl) == -1 || nl < 1 || nl > 4) {
		report_add_error(r, "thunderbolt", "%s/rx_lanes: cannot parse \"%.40s\"",
		    dev, lanes);
		return NAN;
	}
	g *= (double)nl;
	return g > REPORT_SPEED_GBPS_MAX ? NAN : g;
}

/* The interface whose device link points at one of xd's services, into dst. */
static void
net_by_link(const char *root, const char *xd, char *dst, size_t n)
{
	char path[SYSFS_PATH_MAX], base[256];
	size_t xl = strlen(xd);
	struct sysfs_list l;

	if (sysfs_list(root, "/sys/class/net", NULL, &l) == -1)
		return;
	for (size_t i = 0; i < l.n && dst[0] == '\0'; i++)
		if (sysfs_path(path, sizeof(path), "", "/sys/class/net/%s/device",
		    l.names[i]) == 0 && sysfs_link_base(root, path, base, sizeof(base)) == 0 &&
		    strncmp(base, xd, xl) == 0 && base[xl] == '.')
			report_strset(dst, n, l.names[i]);
	sysfs_list_free(&l);
}

/* Whether s contains "rdma" in any case. */
static int
names_rdma(const char *s)
{
	for (; *s != '\0'; s++)
		if (strncasecmp(s, "rdma", 4) == 0)
			return 1;
	return 0;
}

/* A service "xd.N" of xd: its key, and the interface it made. */
static void
peer_service(const char *root, const char *svc, struct report_port *p)
{
	char key[64], path[SYSFS_PATH_MAX];
	struct sysfs_list l;

	if (tb_attr(root, svc, "key", key, sizeof(key)) >= 0 && names_rdma(key))
		p->peer.rdma_service = TRI_TRUE;
	if (p->interface[0] != '\0' ||
	    sysfs_path(path, sizeof(path), "", TB_DEVICES "/%s/net", svc) == -1 ||
	    sysfs_list(root, path, NULL, &l) == -1)
		return;
	if (l.n > 0)
		REPORT_SET(p->interface, l.names[0]);
	sysfs_list_free(&l);
}

/* Fill the peer of port p from XDomain xd and its services in the bus list. */
static void
peer_fill(const char *root, const char *xd, const struct sysfs_list *bus,
    struct report_port *p)
{
	size_t xl = strlen(xd);

	p->has_peer = 1;
	p->peer.rdma_service = TRI_FALSE;
	tb_attr(root, xd, "unique_id", p->peer.domain_uuid, sizeof(p->peer.domain_uuid));
	tb_attr(root, xd, "device_name", p->peer.name, sizeof(p->peer.name));
	for (size_t i = 0; i < bus->n; i++) {
		const char *s = bus->names[i];
		if (strncmp(s, xd, xl) == 0 && s[xl] == '.' && isdigit((unsigned char)s[xl + 1]))
			peer_service(root, s, p);
	}
	if (p->interface[0] == '\0')
		net_by_link(root, xd, p->interface, sizeof(p->interface));
}

/* What is plugged into a host-router adapter: router dev or XDomain. */
static void
first_hop(const char *root, const char *dev, unsigned d, unsigned adapter,
    const struct sysfs_list *bus, struct tb_keys *k, struct report *r)
{
	struct report_port *p = port_get(root, d, adapter, k, r);

	if (p == NULL)
		return;
	p->status = PORT_STATUS_CONNECTED;
	p->speed_gbps = link_speed(root, dev, r);
	if (is_xdomain(root, dev))
		peer_fill(root, dev, bus, p);
}

/* Order the ports by domain, then adapter (insertion sort: at most 16). */
static void
sort_ports(struct tb_keys *k, struct report_thunderbolt *t)
{
	struct report_port tmp;

	for (int i = 1; i < t->n_ports; i++) {
		unsigned d = k->domain[i], a = k->adapter[i];
		int j = i;
		tmp = t->ports[i];
		for (; j > 0 && (k->domain[j - 1] > d ||
		    (k->domain[j - 1] == d && k->adapter[j - 1] > a)); j--) {
			t->ports[j] = t->ports[j - 1];
			k->domain[j] = k->domain[j - 1];
			k->adapter[j] = k->adapter[j - 1];
		}
		t->ports[j] = tmp;
		k->domain[j] = d;
		k->adapter[j] = a;
	}
}

/* The IPv4 addresses of each port's interface, from the running kernel. */
static void
ports_ipv4(struct report_thunderbolt *t)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) == -1)
		return;
	for (int n = 0; n < t->n_ports; n++) {
		struct report_port *p = &t->ports[n];
		if (p->interface[0] == '\0')
			continue;
		p->n_ipv4 = 0;
		for (i = ifa; i != NULL && p->n_ipv4 < REPORT_IPV4_MAX; i = i->ifa_next) {
			if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
			    strcmp(i->ifa_name, p->interface) != 0)
				continue;
			const struct sockaddr_in *sin = (const struct sockaddr_in *)
			    (const void *)i->ifa_addr;
			if (inet_ntop(AF_INET, &sin->sin_addr, p->ipv4[p->n_ipv4],
			    sizeof(p->ipv4[0])) != NULL)
				p->n_ipv4++;
		}
	}
	freeifaddrs(ifa);
}

/* Whether ifname is a Thunderbolt interface: by name, or a port's. */
static int
tb_ifname(const char *ifname, const struct report_thunderbolt *t)
{
	if (strncmp(ifname, "thunderbolt", 11) == 0)
		return 1;
	for (int i = 0; i < t->n_ports; i++)
		if (strcmp(t->ports[i].interface, ifname) == 0)
			return 1;
	return 0;
}

/* If br is a bridge with a Thunderbolt member, describe it in b; returns 1. */
static int
bridge_fill(const char *root, const char *br, struct report_thunderbolt *t)
{
	char path[SYSFS_PATH_MAX], state[32];
	struct report_bridge *b = &t->bridge;
	struct sysfs_list l;
	int tb = 0;

	if (sysfs_path(path, sizeof(path), "", "/sys/class/net/%s/brif", br) == -1 ||
	    sysfs_list(root, path, NULL, &l) == -1)
		return 0;
	for (size_t i = 0; i < l.n; i++)
		tb |= tb_ifname(l.names[i], t);
	if (tb) {
		b->exists = TRI_TRUE;
		b->active = sysfs_path(path, sizeof(path), "", "/sys/class/net/%s/operstate",
		    br) == 0 && sysfs_read_line(root, path, state, sizeof(state)) >= 0 &&
		    strcmp(state, "up") == 0 ? TRI_TRUE : TRI_FALSE;
		b->n_members = 0;
		for (size_t i = 0; i < l.n && b->n_members < REPORT_MEMBERS_MAX; i++)
			REPORT_SET(b->members[b->n_members++], l.names[i]);
	}
	sysfs_list_free(&l);
	return tb;
}

static void
collect_bridge(const char *root, struct report_thunderbolt *t)
{
	struct sysfs_list l;
	char path[SYSFS_PATH_MAX];

	if (sysfs_list(root, "/sys/class/net", NULL, &l) == -1)
		return;
	t->bridge.exists = t->bridge.active = TRI_FALSE;
	t->bridge.n_members = 0;
	for (size_t i = 0; i < l.n; i++)
		if (sysfs_path(path, sizeof(path), "", "/sys/class/net/%s/bridge",
		    l.names[i]) == 0 && sysfs_isdir(root, path) &&
		    bridge_fill(root, l.names[i], t))
			break;
	sysfs_list_free(&l);
}

void
linux_collect_thunderbolt(const char *root, struct report *r)
{
	struct report_thunderbolt *t = &r->thunderbolt;
	struct tb_keys k = { .dropped = 0 };
	unsigned long long route;
	struct sysfs_list bus;
	unsigned d;

	if (sysfs_list(root, TB_DEVICES, NULL, &bus) == -1) {
		if (errno == ENOENT)
			t->n_ports = 0;
		else
			report_add_error(r, "thunderbolt", TB_DEVICES ": %s", strerror(errno));
		collect_bridge(root, t);
		return;
	}
	t->n_ports = 0;
	for (size_t i = 0; i < bus.n; i++)
		if (parse_name(bus.names[i], &d, &route) == 0 && route == 0)
			host_ports(root, bus.names[i], d, &k, r);
	for (size_t i = 0; i < bus.n; i++)
		if (parse_name(bus.names[i], &d, &route) == 0 && route != 0 && route < 0x100)
			first_hop(root, bus.names[i], d, (unsigned)route, &bus, &k, r);
	sysfs_list_free(&bus);
	if (k.dropped > 0)
		report_add_error(r, "thunderbolt", "%d ports beyond the %d reported",
		    k.dropped, REPORT_PORTS_MAX);
	sort_ports(&k, t);
	if (root[0] == '\0')
		ports_ipv4(t);
	collect_bridge(root, t);
}
