/*
 * darwin_join: the parsed outputs of the captured commands put into the
 * report: receptacle -> enX, addresses per port, rdma_enX -> enX and the
 * RDMA devices with their port state and IPv4 GID, the interfaces that are
 * not Thunderbolt with their kind (network.interfaces); and the real
 * captures of one Mac (tests/fixtures/captures/) joined.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_join.h"
#include "darwin_parse.h"
#include "macos_json.h"

/* A fixture of tests/fixtures/macos/. */
static char *
fixture(const char *name)
{
	return fx_fixture("macos", name, NULL);
}

/* A real capture of another project, tests/fixtures/captures/NAME (its README.md says whose). */
static char *
capture(const char *name)
{
	return fx_fixture("captures", name, NULL);
}

static struct report *
report_fresh(void)
{
	static struct report r;

	report_init(&r);
	return &r;
}

static void
test_join(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	struct report_thunderbolt *tb = &r->thunderbolt;
	struct darwin_hwports hp;
	struct darwin_ifconfig ifc;
	char err[128];
	char *ns = fixture("networksetup-listallhardwareports-macbook.txt");
	char *en3 = fixture("ifconfig-en3-linklocal.txt");

	tb->n_ports = 3;
	for (int i = 0; i < 3; i++)
		report_port_init(&tb->ports[i]);
	REPORT_SET(tb->ports[0].receptacle, "3");
	REPORT_SET(tb->ports[1].receptacle, "2");
	/* ports[2]: receptacle unknown, gets no interface */
	assert_int_equal(darwin_parse_hwports(ns, &hp, err, sizeof(err)), 0);
	darwin_join_interfaces(tb, &hp);
	assert_string_equal(tb->ports[0].interface, "en2");
	assert_string_equal(tb->ports[1].interface, "en6");
	assert_string_equal(tb->ports[2].interface, "");

	assert_int_equal(darwin_parse_ifconfig(en3, &ifc, err, sizeof(err)), 0);
	assert_int_equal(darwin_join_ifconfig(tb, &ifc), -1);	/* no port on en3 */
	REPORT_SET(ifc.name, "en6");
	assert_int_equal(darwin_join_ifconfig(tb, &ifc), 0);
	assert_int_equal(tb->ports[1].n_ipv4, 1);
	assert_string_equal(tb->ports[1].ipv4[0], "169.254.205.255");
	assert_int_equal(tb->ports[0].n_ipv4, -1);
	ifc.n_ipv4 = 0;
	REPORT_SET(ifc.name, "en2");
	assert_int_equal(darwin_join_ifconfig(tb, &ifc), 0);
	assert_int_equal(tb->ports[0].n_ipv4, 0);
	free(ns);
	free(en3);
}

static void
test_join_rdma(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	struct darwin_ibv_devices devs;
	struct darwin_ibv_devinfo info;
	char ifname[DARWIN_IFNAME_MAX], err[128];
	char *list = fixture("ibv_devices-studio-enabled.txt");
	char *active = fixture("ibv_devinfo-v-active.txt");

	assert_int_equal(darwin_rdma_interface("rdma_en3", ifname, sizeof(ifname)), 0);
	assert_string_equal(ifname, "en3");
	assert_int_equal(darwin_rdma_interface("mlx5_0", ifname, sizeof(ifname)), -1);
	assert_int_equal(darwin_rdma_interface("rdma_", ifname, sizeof(ifname)), -1);
	assert_int_equal(darwin_rdma_interface("rdma_EN3", ifname, sizeof(ifname)), -1);
	assert_int_equal(darwin_rdma_interface("rdma_en12", ifname, 4), -1);

	assert_int_equal(darwin_parse_ibv_devices(list, &devs, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_ibv_devinfo(active, &info, err, sizeof(err)), 0);
	darwin_join_rdma(&r->rdma, &devs, &info);
	assert_int_equal(r->rdma.n_devices, 6);
	assert_string_equal(r->rdma.devices[0].name, "rdma_en2");
	assert_string_equal(r->rdma.devices[0].interface, "en2");
	assert_int_equal(r->rdma.devices[0].port_state, RDMA_PORT_ACTIVE);
	assert_int_equal(r->rdma.devices[0].ipv4_gid, TRI_TRUE);
	assert_string_equal(r->rdma.devices[2].interface, "en5");
	assert_int_equal(r->rdma.devices[2].port_state, RDMA_PORT_UNKNOWN);
	assert_int_equal(r->rdma.devices[2].ipv4_gid, TRI_NULL);
	assert_int_equal(r->rdma.state, RDMA_STATE_UNKNOWN);	/* rdma_ctl's */

	r = report_fresh();
	darwin_join_rdma(&r->rdma, NULL, &info);
	assert_int_equal(r->rdma.n_devices, 1);
	assert_string_equal(r->rdma.devices[0].interface, "en2");
	r = report_fresh();
	darwin_join_rdma(&r->rdma, NULL, NULL);
	assert_int_equal(r->rdma.n_devices, -1);
	free(list);
	free(active);
}

/*
 * The captures of one Mac joined, as the collector joins them: osaurus's
 * "peer" MacBook Pro (tests/fixtures/captures/osaurus/, osaurus-ai/osaurus,
 * Packages/OsaurusCore/Tests/Distributed/DistributedFixtures.swift, commit
 * c8083d96: peerThunderbolt, hardwarePorts, peerIBVDevices,
 * peerIBVDevinfo).  Its receptacles 3, 2, 1 are en2, en6, en1
 * (networksetup), so the cable on receptacle 2 is en6 and its RDMA device
 * rdma_en6, which is down: the Mac at the other end has RDMA disabled (its
 * entry shows no RDMA service).  Every device gets its interface; none has
 * a known IPv4 GID (ibv_devinfo without -v prints none).
 */
static void
test_join_capture_osaurus_peer(void **state)
{
	(void)state;
	static const char *const ifs[] = { "en2", "en6", "en1" };	/* receptacles 3, 2, 1 */
	static const char *const devs[] = { "rdma_en1", "rdma_en6", "rdma_en2" };
	struct report *r = report_fresh();
	struct report_thunderbolt *tb = &r->thunderbolt;
	struct darwin_hwports hp;
	struct darwin_ibv_devices list;
	struct darwin_ibv_devinfo info;
	char err[256];
	char *sp = capture("osaurus/sp_thunderbolt_peer.json");
	char *ns = capture("osaurus/networksetup_listallhardwareports.txt");
	char *ibv = capture("osaurus/ibv_devices_peer.txt");
	char *di = capture("osaurus/ibv_devinfo_peer.txt");
	const struct report_port *cable = &tb->ports[1];
	const struct report_rdma_device *d = NULL;

	assert_int_equal(macos_parse_thunderbolt(sp, strlen(sp), tb, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_hwports(ns, &hp, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_ibv_devices(ibv, &list, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_ibv_devinfo(di, &info, err, sizeof(err)), 0);
	darwin_join_interfaces(tb, &hp);
	darwin_join_rdma(&r->rdma, &list, &info);

	assert_int_equal(tb->n_ports, 3);
	for (int i = 0; i < 3; i++)
		assert_string_equal(tb->ports[i].interface, ifs[i]);
	assert_string_equal(cable->receptacle, "2");
	assert_int_equal(cable->has_peer, 1);
	assert_int_equal(cable->peer.rdma_service, TRI_FALSE);
	assert_int_equal(cable->via_hub, TRI_FALSE);
	assert_int_equal(r->rdma.n_devices, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(r->rdma.devices[i].name, devs[i]);
		assert_string_equal(r->rdma.devices[i].interface, devs[i] + 5);
		assert_int_equal(r->rdma.devices[i].port_state, RDMA_PORT_DOWN);
		assert_int_equal(r->rdma.devices[i].ipv4_gid, TRI_NULL);
		if (strcmp(r->rdma.devices[i].interface, cable->interface) == 0)
			d = &r->rdma.devices[i];
	}
	assert_non_null(d);
	assert_string_equal(d->name, "rdma_en6");
	assert_int_equal(d->port_state, RDMA_PORT_DOWN);
	free(sp);
	free(ns);
	free(ibv);
	free(di);
}

/* Hardware port names as macOS prints them (and a few made up to probe the words). */
static void
test_netif_kind(void **state)
{
	(void)state;
	static const struct {
		const char *port;
		int wired;
		enum netif_kind want;
	} cases[] = {
		{ "Wi-Fi", 0, NETIF_KIND_WIFI },
		{ "Wi-Fi", 1, NETIF_KIND_WIFI },
		{ "AirPort", 0, NETIF_KIND_WIFI },
		{ "Ethernet", 0, NETIF_KIND_ETHERNET },
		{ "Ethernet 1", 0, NETIF_KIND_ETHERNET },
		{ "Thunderbolt Ethernet Slot 1", 0, NETIF_KIND_ETHERNET },
		{ "Display Ethernet", 0, NETIF_KIND_ETHERNET },
		{ "USB 10/100/1000 LAN", 0, NETIF_KIND_ETHERNET },
		{ "USB 10/100/1G/2.5G LAN", 0, NETIF_KIND_ETHERNET },
		{ "Ethernet Adapter (en3)", 0, NETIF_KIND_OTHER },
		{ "Ethernet Adapter (en3)", 1, NETIF_KIND_ETHERNET },
		{ "AX88179A", 0, NETIF_KIND_OTHER },
		{ "AX88179A", 1, NETIF_KIND_ETHERNET },
		{ "iPhone USB", 0, NETIF_KIND_OTHER },
		{ "Bluetooth PAN", 0, NETIF_KIND_OTHER },
		{ "MBBEthernet", 0, NETIF_KIND_OTHER },
		{ "WLAN Modem", 0, NETIF_KIND_OTHER },
		{ "Thunderbolt 1", 0, NETIF_KIND_OTHER },
		{ NULL, 0, NETIF_KIND_OTHER },
		{ NULL, 1, NETIF_KIND_ETHERNET },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (darwin_netif_kind(cases[i].port, cases[i].wired) != cases[i].want)
			fail_msg("\"%s\" (wired %d): %d, expected %d", cases[i].port ?
			    cases[i].port : "(none)", cases[i].wired,
			    darwin_netif_kind(cases[i].port, cases[i].wired), cases[i].want);
}

static void
assert_netif(const struct report_netif *n, const char *name, enum netif_kind kind,
    const char *port, const char *ip)
{
	assert_string_equal(n->name, name);
	assert_int_equal(n->kind, kind);
	assert_string_equal(n->port, port);
	assert_int_equal(n->n_ipv4, ip != NULL);
	if (ip != NULL)
		assert_string_equal(n->ipv4[0], ip);
}

/* networksetup and `ifconfig -a` of a fake Mac, joined into r->network. */
static int
join_fixtures(struct report *r, const char *ns, const char *ifc)
{
	struct darwin_hwports hp;
	struct darwin_iflist *l = malloc(sizeof(*l));
	char err[128], *a = fixture(ns), *b = fixture(ifc);
	int dropped;

	assert_non_null(l);
	assert_int_equal(darwin_parse_hwports(a, &hp, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_ifconfig_all(b, l, err, sizeof(err)), 0);
	dropped = darwin_join_network(&r->network, &hp, l, &r->thunderbolt);
	free(l);
	free(a);
	free(b);
	return dropped;
}

static void
test_join_network(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	char ip[16], iface[16];
	const char *kind;

	/* The Studio: Ethernet, Wi-Fi and a VPN; not lo0, en2-en7, bridge0, awdl0 */
	assert_int_equal(join_fixtures(r, "networksetup-listallhardwareports-studio.txt",
	    "ifconfig-a-studio.txt"), 0);
	assert_int_equal(r->network.n_interfaces, 3);
	assert_netif(&r->network.interfaces[0], "en0", NETIF_KIND_ETHERNET, "Ethernet",
	    "192.0.2.11");
	assert_netif(&r->network.interfaces[1], "en1", NETIF_KIND_WIFI, "Wi-Fi", "192.0.2.111");
	assert_netif(&r->network.interfaces[2], "utun4", NETIF_KIND_OTHER, "", "198.51.100.7");
	assert_int_equal(report_lan_ipv4(r, ip, sizeof(ip), iface, sizeof(iface), &kind), 0);
	assert_string_equal(ip, "192.0.2.11");
	assert_string_equal(iface, "en0");
	assert_string_equal(kind, "ethernet");

	/* The MacBook: Wi-Fi only; its anpi-backed en3, en4 have no port and no address */
	r = report_fresh();
	assert_int_equal(join_fixtures(r, "networksetup-listallhardwareports-macbook.txt",
	    "ifconfig-a-macbook.txt"), 0);
	assert_int_equal(r->network.n_interfaces, 1);
	assert_netif(&r->network.interfaces[0], "en0", NETIF_KIND_WIFI, "Wi-Fi", "192.0.2.12");
	assert_int_equal(report_lan_ipv4(r, ip, sizeof(ip), iface, sizeof(iface), &kind), 0);
	assert_string_equal(kind, "wifi");
}

/* The real capture's "Ethernet Adapter (en3)": listed, but other unless wired. */
static void
test_join_network_adapter(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	struct darwin_hwports hp;
	struct darwin_iflist *l = malloc(sizeof(*l));
	char err[128], *ns = fixture("networksetup-listallhardwareports-osaurus.txt");
	const char *ifc =
	    "en3: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n"
	    "\tmedia: none\n\tstatus: inactive\n"
	    "en0: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n"
	    "\tinet 192.0.2.12 netmask 0xffffff00 broadcast 192.0.2.255\n"
	    "\tmedia: autoselect\n\tstatus: active\n"
	    "en1: flags=8863<UP> mtu 1500\n\tinet 169.254.77.12 netmask 0xffff0000\n"
	    "en9: flags=8863<UP> mtu 1500\n\tinet 169.254.9.9 netmask 0xffff0000\n"
	    "en10: flags=8863<UP> mtu 1500\n\tinet 169.254.10.10 netmask 0xffff0000\n"
	    "bridge0: flags=8863<UP> mtu 1500\n\tinet 169.254.50.1 netmask 0xffff0000\n"
	    "\tmember: en9 flags=3<LEARNING,DISCOVER>\n"
	    "en8: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n"
	    "\tinet 198.51.100.40 netmask 0xffffff00 broadcast 198.51.100.255\n"
	    "\tmedia: autoselect (1000baseT <full-duplex>)\n\tstatus: active\n";

	assert_non_null(l);
	assert_int_equal(darwin_parse_hwports(ns, &hp, err, sizeof(err)), 0);
	assert_int_equal(darwin_parse_ifconfig_all(ifc, l, err, sizeof(err)), 0);
	/* en10 is a Thunderbolt port's interface in the report, not in networksetup */
	r->thunderbolt.n_ports = 1;
	report_port_init(&r->thunderbolt.ports[0]);
	REPORT_SET(r->thunderbolt.ports[0].interface, "en10");
	assert_int_equal(darwin_join_network(&r->network, &hp, l, &r->thunderbolt), 0);
	assert_int_equal(r->network.n_interfaces, 3);
	assert_netif(&r->network.interfaces[0], "en3", NETIF_KIND_OTHER,
	    "Ethernet Adapter (en3)", NULL);
	assert_int_equal(r->network.interfaces[0].n_ipv4, 0);
	assert_netif(&r->network.interfaces[1], "en0", NETIF_KIND_WIFI, "Wi-Fi", "192.0.2.12");
	assert_netif(&r->network.interfaces[2], "en8", NETIF_KIND_ETHERNET, "",
	    "198.51.100.40");

	/* Without a Thunderbolt Bridge in networksetup, bridge0 is still one. */
	hp.bridge[0] = '\0';
	assert_int_equal(darwin_join_network(&r->network, &hp, l, &r->thunderbolt), 0);
	assert_int_equal(r->network.n_interfaces, 3);
	free(l);
	free(ns);
}

/* More interfaces than the report holds: the first 16, and the count of the rest. */
static void
test_join_network_full(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	struct darwin_hwports hp;
	struct darwin_iflist *l = calloc(1, sizeof(*l));

	assert_non_null(l);
	memset(&hp, 0, sizeof(hp));
	l->n = 20;
	for (int i = 0; i < l->n; i++) {
		snprintf(l->ifc[i].name, sizeof(l->ifc[i].name), "utun%d", i);
		l->ifc[i].n_ipv4 = 1;
		snprintf(l->ifc[i].ipv4[0], sizeof(report_ipv4), "198.51.100.%d", i % 100);
	}
	assert_int_equal(darwin_join_network(&r->network, &hp, l, &r->thunderbolt), 4);
	assert_int_equal(r->network.n_interfaces, REPORT_NETIFS_MAX);
	assert_netif(&r->network.interfaces[15], "utun15", NETIF_KIND_OTHER, "",
	    "198.51.100.15");
	free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_rdma),
		cmocka_unit_test(test_join_capture_osaurus_peer),
		cmocka_unit_test(test_netif_kind),
		cmocka_unit_test(test_join_network),
		cmocka_unit_test(test_join_network_adapter),
		cmocka_unit_test(test_join_network_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
