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
