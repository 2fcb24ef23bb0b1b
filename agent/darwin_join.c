/*
 * Joins for the darwin collector: the parsed networksetup, ifconfig,
 * ibv_devices and ibv_devinfo outputs into the report.  See darwin_join.h
 * for the contracts.
 */
#include "darwin_join.h"

#include <stddef.h>
#include <string.h>

void
darwin_join_interfaces(struct report_thunderbolt *tb, const struct darwin_hwports *hp)
{
	for (int i = 0; i < tb->n_ports; i++) {
		struct report_port *p = &tb->ports[i];
		for (int j = 0; j < hp->n; j++) {
			if (p->receptacle[0] != '\0' &&
			    strcmp(p->receptacle, hp->tb[j].receptacle) == 0) {
				REPORT_SET(p->interface, hp->tb[j].device);
				break;
			}
		}
	}
}

int
darwin_join_ifconfig(struct report_thunderbolt *tb, const struct darwin_ifconfig *ifc)
{
	for (int i = 0; i < tb->n_ports; i++) {
		struct report_port *p = &tb->ports[i];
		if (p->interface[0] == '\0' || strcmp(p->interface, ifc->name) != 0)
			continue;
		p->n_ipv4 = ifc->n_ipv4;
		for (int j = 0; j < ifc->n_ipv4; j++)
			REPORT_SET(p->ipv4[j], ifc->ipv4[j]);
		return 0;
	}
	return -1;
}

void
darwin_join_bridge(struct report_bridge *b, const struct darwin_ifconfig *ifc)
{
	b->exists = TRI_TRUE;
	b->active = ifc->active;
	b->n_members = ifc->n_members;
	for (int i = 0; i < ifc->n_members; i++)
		REPORT_SET(b->members[i], ifc->members[i]);
}

/* 1 when word is in s as a whole word (between blanks, '/' or the ends). */
static int
has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *at = strstr(s, word); at != NULL; at = strstr(at + 1, word)) {
		int before = at == s || strchr(" /", at[-1]) != NULL;
		int after = at[n] == '\0' || strchr(" /", at[n]) != NULL;
		if (before && after)
			return 1;
	}
	return 0;
}

enum netif_kind
darwin_netif_kind(const char *port, int wired)
{
	if (port != NULL && (strcmp(port, "Wi-Fi") == 0 || strcmp(port, "AirPort") == 0))
		return NETIF_KIND_WIFI;
	if (port != NULL && darwin_skip_prefix(port, "Ethernet Adapter (") == NULL &&
	    (has_word(port, "Ethernet") || has_word(port, "LAN")))
		return NETIF_KIND_ETHERNET;
	return wired ? NETIF_KIND_ETHERNET : NETIF_KIND_OTHER;
}

static int
is_member(const struct darwin_ifconfig *bridge, const char *name)
{
	for (int i = 0; bridge != NULL && i < bridge->n_members; i++)
		if (strcmp(bridge->members[i], name) == 0)
			return 1;
	return 0;
}

/* 1 when name is a Thunderbolt interface (darwin_join_network's list). */
static int
is_thunderbolt(const char *name, const struct darwin_hwports *hp,
    const struct darwin_ifconfig *bridge, const struct report_thunderbolt *tb)
{
	if (strcmp(name, hp->bridge[0] != '\0' ? hp->bridge : "bridge0") == 0 ||
	    is_member(bridge, name))
		return 1;
	for (int i = 0; i < hp->n; i++)
		if (strcmp(hp->tb[i].device, name) == 0)
			return 1;
	for (int i = 0; i < tb->n_ports && i < REPORT_PORTS_MAX; i++)
		if (strcmp(tb->ports[i].interface, name) == 0)
			return 1;
	return 0;
}

/* The hardware port of device name, or NULL. */
static const char *
port_of(const struct darwin_hwports *hp, const char *name)
{
	for (int i = 0; i < hp->n_other; i++)
		if (strcmp(hp->other[i].device, name) == 0)
			return hp->other[i].port;
	return NULL;
}

int
darwin_join_network(struct report_network *nw, const struct darwin_hwports *hp,
    const struct darwin_iflist *l, const struct report_thunderbolt *tb)
{
	const struct darwin_ifconfig *bridge =
	    darwin_iflist_find(l, hp->bridge[0] != '\0' ? hp->bridge : "bridge0");
	int dropped = 0;

	nw->n_interfaces = 0;
	for (int i = 0; i < l->n; i++) {
		const struct darwin_ifconfig *ifc = &l->ifc[i];
		const char *port = port_of(hp, ifc->name);
		struct report_netif *n;

		if (ifc->loopback || is_thunderbolt(ifc->name, hp, bridge, tb) ||
		    (port == NULL && ifc->n_ipv4 == 0))
			continue;
		if (nw->n_interfaces == REPORT_NETIFS_MAX) {
			dropped++;
			continue;
		}
		n = &nw->interfaces[nw->n_interfaces++];
		report_netif_init(n);
		REPORT_SET(n->name, ifc->name);
		n->kind = darwin_netif_kind(port, ifc->wired);
		if (port != NULL)
			REPORT_SET(n->port, port);
		n->n_ipv4 = ifc->n_ipv4;
		for (int j = 0; j < ifc->n_ipv4; j++)
			REPORT_SET(n->ipv4[j], ifc->ipv4[j]);
	}
	return dropped;
}

int
darwin_rdma_interface(const char *dev, char *ifname, size_t n)
{
	const char *v = darwin_skip_prefix(dev, "rdma_");

	if (v == NULL || !darwin_valid_ifname(v) || strlen(v) >= n)
		return -1;
	report_strset(ifname, n, v);
	return 0;
}

static const struct darwin_ibv_port *
devinfo_find(const struct darwin_ibv_devinfo *info, const char *name)
{
	for (int i = 0; info != NULL && i < info->n; i++)
		if (strcmp(info->dev[i].name, name) == 0)
			return &info->dev[i];
	return NULL;
}

void
darwin_join_rdma(struct report_rdma *rd, const struct darwin_ibv_devices *devs,
    const struct darwin_ibv_devinfo *info)
{
	const struct darwin_ibv_port *port;
	char ifname[DARWIN_IFNAME_MAX];
	int n;

	if (devs == NULL && info == NULL)
		return;
	n = devs != NULL ? devs->n : info->n;
	rd->n_devices = 0;
	for (int i = 0; i < n && i < REPORT_DEVICES_MAX; i++) {
		const char *name = devs != NULL ? devs->name[i] : info->dev[i].name;
		struct report_rdma_device *d = &rd->devices[rd->n_devices++];

		report_rdma_device_init(d);
		REPORT_SET(d->name, name);
		if (darwin_rdma_interface(name, ifname, sizeof(ifname)) == 0)
			REPORT_SET(d->interface, ifname);
		if ((port = devinfo_find(info, name)) != NULL) {
			d->port_state = port->state;
			d->ipv4_gid = port->ipv4_gid;
		}
	}
}
