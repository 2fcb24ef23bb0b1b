/*
 * darwin_parse: each parser on the captured outputs (exact values; the
 * real captures of other projects in tests/fixtures/captures/ too), on
 * garbage, empty and truncated text (-1 or nothing parsed, never a wrong
 * value).  The bridge0 output is also joined into the report; the other
 * joins are in test_darwin_join.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_join.h"
#include "darwin_parse.h"

#define assert_dbl(got, want) do {						\
	double g_ = (got), w_ = (want);						\
	if (!(g_ == w_ || fabs(g_ - w_) <= 1e-9 * fabs(w_)))			\
		fail_msg("%s is %.17g, expected %.17g", #got, g_, w_);		\
} while (0)
#define assert_nan(got) do {							\
	if (!isnan(got))							\
		fail_msg("%s is %.17g, expected NAN", #got, (double)(got));	\
} while (0)

/* Garbage that every parser must refuse. */
static const char *const garbage[] = {
	"", "\n", "\n\n\n", "x", "garbage\n", "\x01\x02\xff\xfe\n",
	"command not found\n", "{\"json\": true}\n", "-1\n", "::::\n\t\t\n",
};
#define NGARBAGE (sizeof(garbage) / sizeof(garbage[0]))

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

/* The first n bytes of s as a new string; the caller frees it. */
static char *
prefix(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	assert_non_null(p);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static struct report *
report_fresh(void)
{
	static struct report r;

	report_init(&r);
	return &r;
}

static void
test_hwports(void **state)
{
	(void)state;
	struct darwin_hwports hp;
	char err[128];
	char *mb = fixture("networksetup-listallhardwareports-macbook.txt");
	char *st = fixture("networksetup-listallhardwareports-studio.txt");

	assert_int_equal(darwin_parse_hwports(mb, &hp, err, sizeof(err)), 0);
	assert_int_equal(hp.n, 3);
	assert_string_equal(hp.tb[0].receptacle, "1");
	assert_string_equal(hp.tb[0].device, "en1");
	assert_string_equal(hp.tb[1].receptacle, "2");
	assert_string_equal(hp.tb[1].device, "en6");
	assert_string_equal(hp.tb[2].receptacle, "3");
	assert_string_equal(hp.tb[2].device, "en2");
	assert_string_equal(hp.bridge, "bridge0");

	assert_int_equal(hp.n_other, 1);
	assert_string_equal(hp.other[0].port, "Wi-Fi");
	assert_string_equal(hp.other[0].device, "en0");

	assert_int_equal(darwin_parse_hwports(st, &hp, err, sizeof(err)), 0);
	assert_int_equal(hp.n, 6);
	assert_string_equal(hp.tb[1].receptacle, "2");
	assert_string_equal(hp.tb[1].device, "en2");
	assert_string_equal(hp.tb[5].receptacle, "6");
	assert_string_equal(hp.tb[5].device, "en7");
	assert_string_equal(hp.bridge, "bridge0");
	assert_int_equal(hp.n_other, 2);
	assert_string_equal(hp.other[0].port, "Ethernet");
	assert_string_equal(hp.other[0].device, "en0");
	assert_string_equal(hp.other[1].port, "Wi-Fi");
	assert_string_equal(hp.other[1].device, "en1");

	/* the real capture: a MacBook Pro's "Ethernet Adapter (en3)" is listed first */
	free(st);
	st = fixture("networksetup-listallhardwareports-osaurus.txt");
	assert_int_equal(darwin_parse_hwports(st, &hp, err, sizeof(err)), 0);
	assert_int_equal(hp.n, 3);
	assert_string_equal(hp.tb[1].device, "en6");
	assert_string_equal(hp.bridge, "bridge0");
	assert_int_equal(hp.n_other, 2);
	assert_string_equal(hp.other[0].port, "Ethernet Adapter (en3)");
	assert_string_equal(hp.other[0].device, "en3");
	assert_string_equal(hp.other[1].port, "Wi-Fi");
	assert_string_equal(hp.other[1].device, "en0");

	/* Cut anywhere: never a wrong pair. */
	for (size_t n = 0; n < strlen(mb); n++) {
		char *cut = prefix(mb, n);
		if (darwin_parse_hwports(cut, &hp, err, sizeof(err)) == 0)
			for (int i = 0; i < hp.n; i++)
				assert_string_equal(hp.tb[i].device,
				    i == 0 ? "en1" : i == 1 ? "en6" : "en2");
		free(cut);
	}
	free(mb);
	free(st);
}

static void
test_hwports_bad(void **state)
{
	(void)state;
	struct darwin_hwports hp;
	char err[128], big[4096];
	size_t n = 0;
	const char *odd = "Hardware Port: Thunderbolt 1\nDevice: EN!1\n"
	    "Hardware Port: Thunderbolt X\nDevice: en4\n"
	    "Hardware Port: Wi-Fi\nDevice: en0\n"
	    "Device: en9\n"
	    "Hardware Port: Thunderbolt 2\nDevice: en5\n";

	for (size_t i = 0; i < NGARBAGE; i++) {
		if (darwin_parse_hwports(garbage[i], &hp, err, sizeof(err)) != -1)
			fail_msg("parsed garbage %zu", i);
		assert_int_equal(hp.n, 0);
	}
	assert_int_equal(darwin_parse_hwports(odd, &hp, err, sizeof(err)), 0);
	assert_int_equal(hp.n, 1);
	assert_string_equal(hp.tb[0].receptacle, "2");
	assert_string_equal(hp.tb[0].device, "en5");
	assert_string_equal(hp.bridge, "");
	assert_int_equal(hp.n_other, 2);	/* "Thunderbolt X" is no receptacle */
	assert_string_equal(hp.other[0].port, "Thunderbolt X");
	assert_string_equal(hp.other[1].device, "en0");

	n = 0;
	for (int i = 1; i <= 40; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n,
		    "Hardware Port: USB LAN %d\nDevice: en%d\n\n", i, i + 1);
	assert_int_equal(darwin_parse_hwports(big, &hp, err, sizeof(err)), -1);
	assert_string_equal(err, "40 hardware ports besides Thunderbolt, more than 32");
	assert_int_equal(hp.n_other, DARWIN_HWPORTS_MAX);
	assert_string_equal(hp.other[31].device, "en33");
	n = 0;

	for (int i = 1; i <= 20; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n,
		    "Hardware Port: Thunderbolt %d\nDevice: en%d\n\n", i, i + 1);
	assert_int_equal(darwin_parse_hwports(big, &hp, err, sizeof(err)), -1);
	assert_int_equal(hp.n, REPORT_PORTS_MAX);
	assert_string_equal(hp.tb[15].device, "en17");
}

static void
test_ifconfig_port(void **state)
{
	(void)state;
	struct darwin_ifconfig ifc;
	char err[128];
	char *text = fixture("ifconfig-en3-linklocal.txt");

	assert_int_equal(darwin_parse_ifconfig(text, &ifc, err, sizeof(err)), 0);
	assert_string_equal(ifc.name, "en3");
	assert_int_equal(ifc.up, 1);
	assert_int_equal(ifc.active, TRI_TRUE);
	assert_int_equal(ifc.n_ipv4, 1);
	assert_string_equal(ifc.ipv4[0], "169.254.205.255");
	assert_int_equal(ifc.n_members, 0);

	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		if (darwin_parse_ifconfig(cut, &ifc, err, sizeof(err)) == 0) {
			assert_string_equal(ifc.name, "en3");
			assert_true(ifc.n_ipv4 <= 1);
			if (ifc.n_ipv4 == 1)
				assert_string_equal(ifc.ipv4[0], "169.254.205.255");
		}
		free(cut);
	}
	free(text);
}

static void
test_ifconfig_bridge(void **state)
{
	(void)state;
	struct darwin_ifconfig ifc;
	struct report *r = report_fresh();
	char err[128];
	char *text = fixture("ifconfig-bridge0-active.txt");

	assert_int_equal(darwin_parse_ifconfig(text, &ifc, err, sizeof(err)), 0);
	assert_string_equal(ifc.name, "bridge0");
	assert_int_equal(ifc.active, TRI_TRUE);
	assert_int_equal(ifc.n_ipv4, 0);
	assert_int_equal(ifc.n_members, 2);
	assert_string_equal(ifc.members[0], "en2");
	assert_string_equal(ifc.members[1], "en3");
	darwin_join_bridge(&r->thunderbolt.bridge, &ifc);
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.n_members, 2);
	assert_string_equal(r->thunderbolt.bridge.members[1], "en3");
	free(text);
}

static void
test_ifconfig_bad(void **state)
{
	(void)state;
	struct darwin_ifconfig ifc;
	char err[128], big[2048];
	size_t n;
	const char *two = "en5: flags=8822<BROADCAST,SMART,SIMPLEX,MULTICAST> mtu 1500\n"
	    "\tinet 999.1.1.1 netmask 0xffff0000\n"
	    "\tinet 10.0.0.5 netmask 0xff000000 broadcast 10.255.255.255\n"
	    "\tinet 10.0.0.6extra netmask 0xff000000\n"
	    "\tstatus: inactive\n"
	    "en6: flags=8863<UP> mtu 1500\n"
	    "\tinet 10.9.9.9 netmask 0xff000000\n";
	static const char *const bad[] = {
		"ifconfig: interface bridge0 does not exist\n", "EN3: flags=8863<UP> mtu 1500\n",
		"en3 flags=8863<UP> mtu 1500\n", "\tinet 10.0.0.1 netmask 0xff000000\n",
	};

	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_ifconfig(garbage[i], &ifc, err, sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(darwin_parse_ifconfig(bad[i], &ifc, err, sizeof(err)), -1);
		assert_string_equal(ifc.name, "");
	}
	assert_int_equal(darwin_parse_ifconfig(two, &ifc, err, sizeof(err)), 0);
	assert_string_equal(ifc.name, "en5");
	assert_int_equal(ifc.up, 0);
	assert_int_equal(ifc.active, TRI_FALSE);
	assert_int_equal(ifc.n_ipv4, 1);
	assert_string_equal(ifc.ipv4[0], "10.0.0.5");

	n = (size_t)snprintf(big, sizeof(big), "en2: flags=8863<UP> mtu 1500\n");
	for (int i = 1; i <= 10; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "\tinet 10.0.0.%d netmask 0\n", i);
	assert_int_equal(darwin_parse_ifconfig(big, &ifc, err, sizeof(err)), -1);
	assert_int_equal(ifc.n_ipv4, REPORT_IPV4_MAX);
	assert_string_equal(ifc.ipv4[7], "10.0.0.8");
	assert_int_equal(ifc.active, TRI_NULL);
}

/* `ifconfig -a` of the fake Mac Studio: every block, in order. */
static void
test_ifconfig_all(void **state)
{
	(void)state;
	static const char *const names[] = { "lo0", "gif0", "stf0", "anpi0", "anpi1", "en0",
		"en1", "en2", "en3", "en4", "en5", "en6", "en7", "ap1", "awdl0", "llw0", "bridge0",
		"utun0", "utun1", "utun2", "utun3", "utun4" };
	struct darwin_iflist *l = malloc(sizeof(*l)), *c = malloc(sizeof(*c));
	char err[128];
	char *text = fixture("ifconfig-a-studio.txt");

	assert_non_null(l);
	assert_non_null(c);
	assert_int_equal(darwin_parse_ifconfig_all(text, l, err, sizeof(err)), 0);
	assert_int_equal(l->n, (int)(sizeof(names) / sizeof(names[0])));
	for (int i = 0; i < l->n; i++) {
		const struct darwin_ifconfig *ifc = &l->ifc[i];
		const char *ip = ifc->n_ipv4 > 0 ? ifc->ipv4[0] : "";
		assert_string_equal(ifc->name, names[i]);
		assert_int_equal(ifc->loopback, i == 0);
		assert_int_equal(ifc->wired, i == 5);		/* en0: 10Gbase-T */
		assert_int_equal(ifc->n_ipv4, i == 0 || i == 5 || i == 6 || i == 7 || i == 21);
		assert_string_equal(ip, i == 0 ? "127.0.0.1" : i == 5 ? "192.0.2.11" :
		    i == 6 ? "192.0.2.111" : i == 7 ? "169.254.205.255" :
		    i == 21 ? "198.51.100.7" : "");
	}
	assert_int_equal(l->ifc[1].active, TRI_NULL);	/* gif0: a header only */
	assert_int_equal(l->ifc[7].active, TRI_TRUE);
	assert_int_equal(l->ifc[8].active, TRI_FALSE);
	assert_int_equal(l->ifc[16].n_members, 0);

	/* Cut anywhere: what is read is what the whole text says, never less of a line. */
	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		if (darwin_parse_ifconfig_all(cut, c, err, sizeof(err)) == 0) {
			for (int i = 0; i < c->n; i++) {
				assert_string_equal(c->ifc[i].name, l->ifc[i].name);
				assert_true(c->ifc[i].n_ipv4 <= l->ifc[i].n_ipv4);
				if (c->ifc[i].n_ipv4 > 0)
					assert_string_equal(c->ifc[i].ipv4[0], l->ifc[i].ipv4[0]);
				assert_true(c->ifc[i].wired <= l->ifc[i].wired);
			}
		} else {
			assert_int_equal(c->n, 0);
		}
		free(cut);
	}
	free(text);
	free(l);
	free(c);
}

static void
test_ifconfig_all_bad(void **state)
{
	(void)state;
	struct darwin_iflist *l = malloc(sizeof(*l));
	char err[128], *big = malloc(8192);
	size_t n = 0;
	const char *odd = "ifconfig: ioctl (SIOCGIFXMEDIA): Operation not supported\n"
	    "\tinet 10.0.0.1 netmask 0xff000000\n"
	    "EN0: flags=8863<UP> mtu 1500\n"
	    "\tinet 10.0.0.2 netmask 0xff000000\n"
	    "en1: flags=8863<UP,BROADCAST> mtu 1500\n"
	    "\tinet 10.0.0.3 netmask 0xff000000\n"
	    "\tmedia: autoselect (none)\n"
	    "en8: flags=8863<UP> mtu 1500\n"
	    "\tmedia: autoselect (2500Base-T <full-duplex>)\n";

	assert_non_null(l);
	assert_non_null(big);
	for (size_t i = 0; i < NGARBAGE; i++) {
		assert_int_equal(darwin_parse_ifconfig_all(garbage[i], l, err, sizeof(err)), -1);
		assert_int_equal(l->n, 0);
	}
	/* Lines under a header that does not read go nowhere. */
	assert_int_equal(darwin_parse_ifconfig_all(odd, l, err, sizeof(err)), 0);
	assert_int_equal(l->n, 2);
	assert_string_equal(l->ifc[0].name, "en1");
	assert_int_equal(l->ifc[0].n_ipv4, 1);
	assert_string_equal(l->ifc[0].ipv4[0], "10.0.0.3");
	assert_int_equal(l->ifc[0].wired, 0);
	assert_int_equal(l->ifc[1].wired, 1);
	/* More interfaces than a list holds: the first ones kept. */
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(big + n, 8192 - n, "en%d: flags=8863<UP> mtu 1500\n", i);
	assert_int_equal(darwin_parse_ifconfig_all(big, l, err, sizeof(err)), -1);
	assert_string_equal(err, "70 interfaces, more than 64");
	assert_int_equal(l->n, DARWIN_IFLIST_MAX);
	assert_string_equal(l->ifc[63].name, "en63");
	/* Too many addresses on one: it keeps eight, the next interface is read. */
	n = (size_t)snprintf(big, 8192, "en2: flags=8863<UP> mtu 1500\n");
	for (int i = 1; i <= 10; i++)
		n += (size_t)snprintf(big + n, 8192 - n, "\tinet 10.0.0.%d netmask 0\n", i);
	snprintf(big + n, 8192 - n, "en3: flags=8863<UP> mtu 1500\n\tinet 10.0.1.1 netmask 0\n");
	assert_int_equal(darwin_parse_ifconfig_all(big, l, err, sizeof(err)), -1);
	assert_string_equal(err, "en2: more addresses or members than the report holds");
	assert_int_equal(l->n, 2);
	assert_int_equal(l->ifc[0].n_ipv4, REPORT_IPV4_MAX);
	assert_string_equal(l->ifc[1].ipv4[0], "10.0.1.1");
	free(big);
	free(l);
}

static void
test_rdma_ctl(void **state)
{
	(void)state;
	enum rdma_state st = RDMA_STATE_UNKNOWN;
	char err[128];
	char *on = fixture("rdma_ctl-status-enabled.txt");
	char *off = fixture("rdma_ctl-status-disabled.txt");
	char *recovery = fixture("rdma_ctl-enable-outside-recovery.txt");
	static const char *const bad[] = { "Enabled\n", "enabled yes\n", "enabledx\n",
		"enabled", "disabl\n" };

	assert_int_equal(darwin_parse_rdma_ctl(on, &st, err, sizeof(err)), 0);
	assert_int_equal(st, RDMA_STATE_ENABLED);
	assert_int_equal(darwin_parse_rdma_ctl(off, &st, err, sizeof(err)), 0);
	assert_int_equal(st, RDMA_STATE_DISABLED);
	st = RDMA_STATE_UNKNOWN;
	assert_int_equal(darwin_parse_rdma_ctl(recovery, &st, err, sizeof(err)), -1);
	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_rdma_ctl(garbage[i], &st, err, sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(darwin_parse_rdma_ctl(bad[i], &st, err, sizeof(err)), -1);
	assert_int_equal(st, RDMA_STATE_UNKNOWN);
	free(on);
	free(off);
	free(recovery);
}

static void
test_ibv_devices(void **state)
{
	(void)state;
	static const char *const names[] = { "rdma_en2", "rdma_en3", "rdma_en5", "rdma_en4",
		"rdma_en6", "rdma_en7" };
	struct darwin_ibv_devices d;
	char err[128];
	char *on = fixture("ibv_devices-studio-enabled.txt");
	char *off = fixture("ibv_devices-disabled.txt");

	assert_int_equal(darwin_parse_ibv_devices(on, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(d.name[i], names[i]);
	assert_int_equal(darwin_parse_ibv_devices(off, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);

	for (size_t n = 0; n < strlen(on); n++) {
		char *cut = prefix(on, n);
		if (darwin_parse_ibv_devices(cut, &d, err, sizeof(err)) == 0)
			for (int i = 0; i < d.n; i++)
				assert_string_equal(d.name[i], names[i]);
		free(cut);
	}
	free(on);
	free(off);
}

static void
test_ibv_devices_bad(void **state)
{
	(void)state;
	struct darwin_ibv_devices d;
	char err[128], big[4096];
	size_t n;
	static const char *const bad[] = {
		"device\t node GUID\n------\t-----\nrdma_en2\tnothex0000000000\n",
		"device\t node GUID\n------\t-----\nrdma_en2\n",
		"device\t node GUID\n------\t-----\nrdma_en2\t8096a9d9edbaac05 extra\n",
		"device\t node GUID\n------\t-----\nrdma en2!\t8096a9d9edbaac05\n",
		"rdma_en2\t8096a9d9edbaac05\n",
		"device\t node GUID\nrdma_en2\t8096a9d9edbaac05\n",
	};

	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_ibv_devices(garbage[i], &d, err, sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (darwin_parse_ibv_devices(bad[i], &d, err, sizeof(err)) != -1)
			fail_msg("parsed %s", bad[i]);
		assert_int_equal(d.n, 0);
	}
	n = (size_t)snprintf(big, sizeof(big), "device\t node GUID\n------\t------\n");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "rdma_en%d\t%016x\n", i, i);
	assert_int_equal(darwin_parse_ibv_devices(big, &d, err, sizeof(err)), -1);
	assert_int_equal(d.n, REPORT_DEVICES_MAX);
	assert_string_equal(d.name[15], "rdma_en15");
}

static void
test_ibv_devinfo(void **state)
{
	(void)state;
	struct darwin_ibv_devinfo info;
	char err[128];
	char *active = fixture("ibv_devinfo-v-active.txt");
	char *down = fixture("ibv_devinfo-one-port-down.txt");
	char *both = malloc(strlen(active) + strlen(down) + 1);

	assert_int_equal(darwin_parse_ibv_devinfo(active, &info, err, sizeof(err)), 0);
	assert_int_equal(info.n, 1);
	assert_string_equal(info.dev[0].name, "rdma_en2");
	assert_int_equal(info.dev[0].state, RDMA_PORT_ACTIVE);
	assert_int_equal(info.dev[0].ipv4_gid, TRI_TRUE);

	assert_int_equal(darwin_parse_ibv_devinfo(down, &info, err, sizeof(err)), 0);
	assert_int_equal(info.n, 1);
	assert_string_equal(info.dev[0].name, "rdma_en1");
	assert_int_equal(info.dev[0].state, RDMA_PORT_DOWN);
	assert_int_equal(info.dev[0].ipv4_gid, TRI_NULL);	/* no GID listed */

	assert_non_null(both);
	strcpy(both, down);
	strcat(both, active);
	assert_int_equal(darwin_parse_ibv_devinfo(both, &info, err, sizeof(err)), 0);
	assert_int_equal(info.n, 2);
	assert_int_equal(info.dev[0].state, RDMA_PORT_DOWN);
	assert_string_equal(info.dev[1].name, "rdma_en2");
	assert_int_equal(info.dev[1].state, RDMA_PORT_ACTIVE);
	assert_int_equal(info.dev[1].ipv4_gid, TRI_TRUE);

	assert_int_equal(darwin_parse_ibv_devinfo("No IB devices found\n", &info, err,
	    sizeof(err)), 0);
	assert_int_equal(info.n, 0);
	free(active);
	free(down);
	free(both);
}

static void
test_ibv_devinfo_bad(void **state)
{
	(void)state;
	struct darwin_ibv_devinfo info;
	char err[128];
	const char *odd = "hca_id:\trdma_en9\n\t\tport:\t1\n\t\t\tstate:\t\tPORT_WEIRD (9)\n"
	    "\t\t\tGID[  0]:\t\tfe80::1\n\t\t\tGID[  1]:\t\t::ffff:300.1.1.1\n"
	    "\t\tport:\t2\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n";
	const char *badname = "hca_id:\trdma en9;rm\n";

	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_ibv_devinfo(garbage[i], &info, err, sizeof(err)), -1);
	assert_int_equal(darwin_parse_ibv_devinfo(badname, &info, err, sizeof(err)), -1);
	assert_int_equal(info.n, 0);
	assert_int_equal(darwin_parse_ibv_devinfo(odd, &info, err, sizeof(err)), 0);
	assert_int_equal(info.n, 1);
	assert_int_equal(info.dev[0].state, RDMA_PORT_UNKNOWN);	/* port 2 is not port 1 */
	assert_int_equal(info.dev[0].ipv4_gid, TRI_FALSE);
}

/*
 * A GID in the raw form older rdma-core prints, eight groups of four hex
 * digits (issue 19's research, point 5), and one with the ", RoCE v2"
 * suffix newer rdma-core adds: IPv4-mapped or not, as the "::ffff:" form.
 * A device whose GIDs are all link-local IPv6 has none: JACCL's
 * Connection::info() (ml-explore/mlx, jaccl/rdma.cpp; MLX PR 4191) fails
 * on such a port.
 */
static void
test_ibv_devinfo_gid_forms(void **state)
{
	(void)state;
	struct darwin_ibv_devinfo info;
	char err[128], text[512];
	static const struct {
		const char *gid;
		enum tri mapped;
	} cases[] = {
		{ "0000:0000:0000:0000:0000:ffff:a9fe:cdff", TRI_TRUE },
		{ "0000:0000:0000:0000:0000:FFFF:A9FE:CDFF", TRI_TRUE },
		{ "::ffff:169.254.205.255, RoCE v2", TRI_TRUE },
		{ "fe80:0000:0000:0000:344d:04ff:feea:4e40", TRI_FALSE },
		{ "0000:0000:0000:0000:0000:fffe:a9fe:cdff", TRI_FALSE },
		{ "0000:0000:0000:0000:0000:ffff:a9fe:cdf", TRI_FALSE },
		{ "0000:0000:0000:0000:0000:ffff:a9fe:cdffa", TRI_FALSE },
		{ "0000:0000:0000:0000:0000:ffff:a9fe-cdff", TRI_FALSE },
		{ "0000:0000:0000:0000:0000:ffff:a9fg:cdff", TRI_FALSE },
		{ "fe80::344d:4ff:feea:4e40", TRI_FALSE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "hca_id:\trdma_en3\n\t\tport:\t1\n"
		    "\t\t\tstate:\t\tPORT_ACTIVE (4)\n\t\t\tlink_layer:\t\tThunderbolt\n"
		    "\t\t\tGID[  0]:\t\tfe80::344d:4ff:feea:4e40\n\t\t\tGID[  1]:\t\t%s\n",
		    cases[i].gid);
		print_message("%s\n", cases[i].gid);
		assert_int_equal(darwin_parse_ibv_devinfo(text, &info, err, sizeof(err)), 0);
		assert_int_equal(info.n, 1);
		assert_int_equal(info.dev[0].ipv4_gid, cases[i].mapped);
	}
}

/*
 * The real captures of tests/fixtures/captures/ (its README.md: repository,
 * file, commit): each test names its capture and the facts it checks, and
 * cuts it at every byte: a cut output never reads as a wrong value.
 */

/*
 * captures/osaurus/networksetup_listallhardwareports.txt (osaurus-ai/osaurus,
 * Packages/OsaurusCore/Tests/Distributed/DistributedFixtures.swift,
 * hardwarePorts, commit c8083d96), an M5 Max MacBook Pro: Thunderbolt 1 is
 * en1, 2 is en6 and 3 is en2 (not en(N+1): the mapping is read, never
 * computed); the Thunderbolt Bridge is bridge0; "Ethernet Adapter (en3)"
 * (en3) and Wi-Fi (en0) are the other ports, in the order listed; the
 * "VLAN Configurations" trailer adds nothing.
 */
static void
test_capture_hwports_osaurus(void **state)
{
	(void)state;
	static const char *const want[][2] = { { "1", "en1" }, { "2", "en6" }, { "3", "en2" } };
	struct darwin_hwports hp;
	char err[128];
	char *ns = capture("osaurus/networksetup_listallhardwareports.txt");

	assert_int_equal(darwin_parse_hwports(ns, &hp, err, sizeof(err)), 0);
	assert_int_equal(hp.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(hp.tb[i].receptacle, want[i][0]);
		assert_string_equal(hp.tb[i].device, want[i][1]);
	}
	assert_string_equal(hp.bridge, "bridge0");
	assert_int_equal(hp.n_other, 2);
	assert_string_equal(hp.other[0].port, "Ethernet Adapter (en3)");
	assert_string_equal(hp.other[0].device, "en3");
	assert_string_equal(hp.other[1].port, "Wi-Fi");
	assert_string_equal(hp.other[1].device, "en0");
	for (size_t n = 0; n < strlen(ns); n++) {
		char *cut = prefix(ns, n);
		if (darwin_parse_hwports(cut, &hp, err, sizeof(err)) == 0)
			for (int i = 0; i < hp.n; i++) {
				assert_string_equal(hp.tb[i].receptacle, want[i][0]);
				assert_string_equal(hp.tb[i].device, want[i][1]);
			}
		free(cut);
	}
	free(ns);
}

/* text lists exactly the devices names[0..n-1], and every cut of it a prefix of them. */
static void
assert_ibv_devices(const char *text, const char *const *names, int n)
{
	struct darwin_ibv_devices d;
	char err[128];

	if (darwin_parse_ibv_devices(text, &d, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(d.n, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(d.name[i], names[i]);
	for (size_t len = 0; len < strlen(text); len++) {
		char *cut = prefix(text, len);
		if (darwin_parse_ibv_devices(cut, &d, err, sizeof(err)) == 0) {
			assert_true(d.n <= n);
			for (int i = 0; i < d.n; i++)
				assert_string_equal(d.name[i], names[i]);
		}
		free(cut);
	}
}

/*
 * captures/osaurus/ibv_devices_peer.txt (osaurus-ai/osaurus,
 * DistributedFixtures.swift, peerIBVDevices, commit c8083d96): the MacBook
 * Pro with RDMA enabled lists rdma_en1, rdma_en6, rdma_en2, one per
 * Thunderbolt port, in that order; every line, the header's too, is
 * indented four spaces, a tab before the GUID.
 * captures/osaurus/ibv_devices_rdma_disabled.txt (emptyIBVDevices, the
 * same file): with RDMA disabled, the two header lines only: zero devices,
 * not an error.
 * captures/mlx/ibv_devices_m3_ultra.txt (ml-explore/mlx,
 * docs/src/usage/distributed.rst lines 230-237, commit f1c5bcd9): an M3
 * Ultra Mac Studio's six devices, rdma_en2, en3, en5, en4, en6, en7, in the
 * order printed (not sorted), the lines not indented.
 */
static void
test_capture_ibv_devices(void **state)
{
	(void)state;
	static const char *const osaurus[] = { "rdma_en1", "rdma_en6", "rdma_en2" };
	static const char *const mlx[] = { "rdma_en2", "rdma_en3", "rdma_en5", "rdma_en4",
		"rdma_en6", "rdma_en7" };
	char *peer = capture("osaurus/ibv_devices_peer.txt");
	char *off = capture("osaurus/ibv_devices_rdma_disabled.txt");
	char *m3 = capture("mlx/ibv_devices_m3_ultra.txt");

	assert_ibv_devices(peer, osaurus, 3);
	assert_ibv_devices(off, NULL, 0);
	assert_ibv_devices(m3, mlx, 6);
	free(peer);
	free(off);
	free(m3);
}

/*
 * captures/osaurus/ibv_devinfo_peer.txt (osaurus-ai/osaurus,
 * DistributedFixtures.swift, peerIBVDevinfo, commit c8083d96): three
 * hca_ids, rdma_en1, rdma_en6, rdma_en2, each with one port whose state is
 * "PORT_DOWN (1)" (the Mac at the other end of the cable has RDMA disabled:
 * a port is active only when both ends have it), transport "Thunderbolt
 * (100)" and link_layer Thunderbolt; plain ibv_devinfo, without -v, prints
 * no GID: the IPv4 GID is unknown (null), not false.
 */
static void
test_capture_ibv_devinfo(void **state)
{
	(void)state;
	static const char *const names[] = { "rdma_en1", "rdma_en6", "rdma_en2" };
	struct darwin_ibv_devinfo info;
	char err[128];
	char *text = capture("osaurus/ibv_devinfo_peer.txt");

	assert_int_equal(darwin_parse_ibv_devinfo(text, &info, err, sizeof(err)), 0);
	assert_int_equal(info.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(info.dev[i].name, names[i]);
		assert_int_equal(info.dev[i].state, RDMA_PORT_DOWN);
		assert_int_equal(info.dev[i].ipv4_gid, TRI_NULL);
	}
	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		if (darwin_parse_ibv_devinfo(cut, &info, err, sizeof(err)) == 0) {
			assert_true(info.n <= 3);
			for (int i = 0; i < info.n; i++) {
				assert_string_equal(info.dev[i].name, names[i]);
				assert_true(info.dev[i].state != RDMA_PORT_ACTIVE);
				assert_int_equal(info.dev[i].ipv4_gid, TRI_NULL);
			}
		}
		free(cut);
	}
	free(text);
}

static void
assert_vm_fixture(const struct darwin_vmstat *vm)
{
	assert_int_equal(vm->page_size, 16384);
	assert_int_equal(vm->free, 1873452);
	assert_int_equal(vm->active, 11024133);
	assert_int_equal(vm->inactive, 9876501);
	assert_int_equal(vm->speculative, 52311);
	assert_int_equal(vm->throttled, 0);
	assert_int_equal(vm->wired, 6203371);
	assert_int_equal(vm->purgeable, 21420);
	assert_int_equal(vm->file_backed, 7740213);
	assert_int_equal(vm->anonymous, 13212732);
	assert_int_equal(vm->stored_in_compressor, 1204511);
	assert_int_equal(vm->occupied_by_compressor, 301922);
}

static void
test_vm_stat(void **state)
{
	(void)state;
	struct darwin_vmstat vm;
	struct report *r = report_fresh();
	char err[128];
	char *text = fixture("vm_stat.txt");

	assert_int_equal(darwin_parse_vm_stat(text, &vm, err, sizeof(err)), 0);
	assert_vm_fixture(&vm);
	darwin_vmstat_memory(&vm, &r->memory);
	assert_int_equal(r->memory.free_bytes, INT64_C(31551700992));	/* free + speculative */
	assert_int_equal(r->memory.active_bytes, INT64_C(180619395072));
	assert_int_equal(r->memory.inactive_bytes, INT64_C(161816592384));
	assert_int_equal(r->memory.wired_bytes, INT64_C(101636030464));
	assert_int_equal(r->memory.compressed_bytes, INT64_C(4946690048));
	assert_int_equal(r->memory.total_bytes, REPORT_NULL_I64);	/* not vm_stat's */

	/* Cut anywhere: -1, or the counts read so far are the right ones. */
	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		struct darwin_vmstat c;
		if (darwin_parse_vm_stat(cut, &c, err, sizeof(err)) == 0) {
			assert_int_equal(c.free, vm.free);
			assert_int_equal(c.wired, vm.wired);
			assert_true(c.occupied_by_compressor == -1 ||
			    c.occupied_by_compressor == vm.occupied_by_compressor);
			assert_true(c.anonymous == -1 || c.anonymous == vm.anonymous);
		}
		free(cut);
	}
	free(text);
}

static void
test_vm_stat_bad(void **state)
{
	(void)state;
	struct darwin_vmstat vm;
	struct report *r = report_fresh();
	char err[128];
	static const char *const bad[] = {
		"Pages free: 5.\nPages active: 5.\nPages inactive: 5.\nPages wired down: 5.\n",
		"Mach Virtual Memory Statistics: (page size of 16384 bytes)\n",
		"Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages free: abc.\n",
		"Mach Virtual Memory Statistics: (page size of 3 bytes)\nPages free: 5.\n",
		"Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
		    "Pages free: 99999999999999999999.\n",
		"Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
		    "Pages free: -5.\nPages active: 5.\nPages inactive: 5.\nPages wired down: 5.\n",
		"Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
		    "Pages free: 5\nPages active: 5.\nPages inactive: 5.\nPages wired down: 5.\n",
	};
	const char *huge = "Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
	    "Pages free: 100000000000000000.\nPages active: 5.\nPages inactive: 5.\n"
	    "Pages wired down: 5.\n";

	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_vm_stat(garbage[i], &vm, err, sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (darwin_parse_vm_stat(bad[i], &vm, err, sizeof(err)) != -1)
			fail_msg("parsed %s", bad[i]);
	assert_int_equal(darwin_parse_vm_stat(bad[2], &vm, err, sizeof(err)), -1);
	assert_string_equal(err, "Pages free: not a page count");
	assert_int_equal(darwin_parse_vm_stat(huge, &vm, err, sizeof(err)), 0);
	darwin_vmstat_memory(&vm, &r->memory);
	assert_int_equal(r->memory.free_bytes, REPORT_NULL_I64);	/* past REPORT_BYTES_MAX */
	assert_int_equal(r->memory.active_bytes, 5 * 16384);
	assert_int_equal(r->memory.compressed_bytes, REPORT_NULL_I64);	/* not printed */
}

static void
test_memory_pressure(void **state)
{
	(void)state;
	double ratio = -1;
	char err[128];
	char *text = fixture("memory_pressure-Q.txt");
	static const char *const bad[] = {
		"System-wide memory free percentage: 161%\n",
		"System-wide memory free percentage: -5%\n",
		"System-wide memory free percentage: 61\n",
		"System-wide memory free percentage: 61%%\n",
		"System-wide memory free percentage: 6",
		"System-wide memory free percentage: %\n",
	};

	assert_int_equal(darwin_parse_memory_pressure(text, &ratio, err, sizeof(err)), 0);
	assert_dbl(ratio, 0.61);
	ratio = -1;
	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_memory_pressure(garbage[i], &ratio, err,
		    sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(darwin_parse_memory_pressure(bad[i], &ratio, err, sizeof(err)),
		    -1);
	assert_dbl(ratio, -1);
	assert_int_equal(darwin_parse_memory_pressure("free percentage: 0%\n", &ratio, err,
	    sizeof(err)), 0);
	assert_dbl(ratio, 0);
	free(text);
}

static void
test_swapusage(void **state)
{
	(void)state;
	int64_t total = -1, used = -1;
	char err[128];
	char *text = fixture("sysctl-vm.swapusage.txt");
	const char *plain = "total = 1024.50M  used = 512.25M  free = 512.25M  (encrypted)\n";
	static const char *const bad[] = {
		"vm.swapusage: total = abcM  used = 0.00M\n",
		"vm.swapusage: total = 2048.00X  used = 0.00M\n",
		"vm.swapusage: total = 2048.00M\n",
		"vm.swapusage: total = 1.00M  used = 2.00M  free = 0.00M\n",
		"vm.swapusage: total = 2048.00M  used = 0.0",
		"vm.swapusage: total = 2048.00Mb  used = 0.00M\n",
	};

	assert_int_equal(darwin_parse_swapusage(text, &total, &used, err, sizeof(err)), 0);
	assert_int_equal(total, INT64_C(2147483648));
	assert_int_equal(used, 0);
	assert_int_equal(darwin_parse_swapusage(plain, &total, &used, err, sizeof(err)), 0);
	assert_int_equal(total, INT64_C(1074266112));
	assert_int_equal(used, INT64_C(537133056));
	total = used = -1;
	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_swapusage(garbage[i], &total, &used, err,
		    sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(darwin_parse_swapusage(bad[i], &total, &used, err, sizeof(err)),
		    -1);
	assert_int_equal(total, -1);
	assert_int_equal(used, -1);
	free(text);
}

static void
test_sysctl_sizes(void **state)
{
	(void)state;
	int64_t v = -1;
	char err[128];
	static const char *const bad[] = { "0\n", "-5\n", "12abc\n", "hw.memsize: 5\n",
		"99999999999999999999\n", "5497", "1 2\n", "5\ngarbage\n" };

	assert_int_equal(darwin_parse_memsize("549755813888\n", &v, err, sizeof(err)), 0);
	assert_int_equal(v, INT64_C(549755813888));
	v = -1;
	for (size_t i = 0; i < NGARBAGE; i++) {
		assert_int_equal(darwin_parse_memsize(garbage[i], &v, err, sizeof(err)), -1);
		assert_int_equal(darwin_parse_wired_limit(garbage[i], &v, err, sizeof(err)), -1);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (darwin_parse_memsize(bad[i], &v, err, sizeof(err)) != -1)
			fail_msg("memsize parsed %s", bad[i]);
	assert_int_equal(v, -1);
	assert_int_equal(darwin_parse_wired_limit("0\n", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 0);
	assert_int_equal(darwin_parse_wired_limit("491520\n\n", &v, err, sizeof(err)), 0);
	assert_int_equal(v, INT64_C(515396075520));
	assert_int_equal(darwin_parse_wired_limit("999999999999999\n", &v, err, sizeof(err)),
	    -1);
	assert_int_equal(darwin_parse_wired_limit("-1\n", &v, err, sizeof(err)), -1);
}

static void
test_sw_vers(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	char err[128];
	char *text = fixture("sw_vers.txt");
	const char *half = "ProductName:\tmacOS\nProductVersion:\t26.3\n";
	const char *evil = "ProductVersion:\t26.2; rm -rf /\nBuildVersion:\t25C56\n";
	const char *extra = "ProductVersion:\t26.2\nProductVersionExtra:\t(a)\n"
	    "BuildVersion:\t25C56a\n";

	assert_int_equal(darwin_parse_sw_vers(text, &r->node, err, sizeof(err)), 0);
	assert_string_equal(r->node.os_version, "26.2");
	assert_string_equal(r->node.os_build, "25C56");
	for (size_t i = 0; i < NGARBAGE; i++) {
		r = report_fresh();
		assert_int_equal(darwin_parse_sw_vers(garbage[i], &r->node, err, sizeof(err)), -1);
		assert_string_equal(r->node.os_version, "");
	}
	r = report_fresh();
	assert_int_equal(darwin_parse_sw_vers(half, &r->node, err, sizeof(err)), -1);
	assert_string_equal(r->node.os_version, "26.3");
	assert_string_equal(r->node.os_build, "");
	r = report_fresh();
	assert_int_equal(darwin_parse_sw_vers(evil, &r->node, err, sizeof(err)), -1);
	assert_string_equal(r->node.os_version, "");
	assert_int_equal(darwin_parse_sw_vers(extra, &r->node, err, sizeof(err)), 0);
	assert_string_equal(r->node.os_build, "25C56a");
	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		r = report_fresh();
		darwin_parse_sw_vers(cut, &r->node, err, sizeof(err));
		assert_true(r->node.os_version[0] == '\0' ||
		    strcmp(r->node.os_version, "26.2") == 0);
		assert_true(r->node.os_build[0] == '\0' || strcmp(r->node.os_build, "25C56") == 0);
		free(cut);
	}
	free(text);
}

static void
test_boottime(void **state)
{
	(void)state;
	double t = -1;
	char err[128];
	static const char *const bad[] = {
		"{ sec = abc, usec = 0 }\n", "{ sec = 0, usec = 0 } Thu Jan  1 00:00:00 1970\n",
		"{ sec = 5, usec = 1000000 }\n", "{ sec = 1763712764, usec = 12",
		"sec = 1763712764, usec = 123 }\n", "{ sec = -5, usec = 0 }\n",
		"{ sec = 1763712764 usec = 123 }\n",
	};

	assert_int_equal(darwin_parse_boottime("{ sec = 1763712764, usec = 123 } "
	    "Fri Nov 21 08:12:44 2025\n", &t, err, sizeof(err)), 0);
	assert_dbl(t, 1763712764.000123);
	t = -1;
	for (size_t i = 0; i < NGARBAGE; i++)
		assert_int_equal(darwin_parse_boottime(garbage[i], &t, err, sizeof(err)), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(darwin_parse_boottime(bad[i], &t, err, sizeof(err)), -1);
	assert_dbl(t, -1);
}

static void
test_hostname(void **state)
{
	(void)state;
	char name[16] = "";
	char err[128];

	assert_int_equal(darwin_parse_hostname("mac-studio-1\n", name, sizeof(name), err,
	    sizeof(err)), 0);
	assert_string_equal(name, "mac-studio-1");
	assert_int_equal(darwin_parse_hostname("two words\n", name, sizeof(name), err,
	    sizeof(err)), -1);
	assert_int_equal(darwin_parse_hostname("mac-stu", name, sizeof(name), err,
	    sizeof(err)), -1);
	assert_int_equal(darwin_parse_hostname("a-name-far-too-long-for-it\n", name,
	    sizeof(name), err, sizeof(err)), -1);
	assert_int_equal(darwin_parse_hostname("", name, sizeof(name), err, sizeof(err)), -1);
	assert_int_equal(darwin_parse_hostname("\n", name, sizeof(name), err, sizeof(err)), -1);
	assert_int_equal(darwin_parse_hostname("\x01\x02\n", name, sizeof(name), err,
	    sizeof(err)), -1);
	assert_string_equal(name, "mac-studio-1");
}

static void
test_powermetrics(void **state)
{
	(void)state;
	struct report *r = report_fresh();
	char err[128];
	char *text = fixture("powermetrics-cpu_power-gpu_power.txt");
	const char *halfbad = "CPU Power: 100 mW\nGPU Power: x mW\n";
	const char *two = "*** Sampled system activity\nCPU Power: 1000 mW\n"
	    "*** Sampled system activity\nCPU Power: 2000 mW\n";

	assert_int_equal(darwin_parse_powermetrics(text, &r->power, err, sizeof(err)), 0);
	assert_string_equal(r->power.source, "powermetrics");
	assert_dbl(r->power.cpu_watts, 3.12);
	assert_dbl(r->power.gpu_watts, 41.25);
	assert_dbl(r->power.ane_watts, 0);
	assert_nan(r->power.dram_watts);
	assert_nan(r->power.system_watts);

	for (size_t n = 0; n < strlen(text); n++) {
		char *cut = prefix(text, n);
		r = report_fresh();
		darwin_parse_powermetrics(cut, &r->power, err, sizeof(err));
		assert_true(isnan(r->power.cpu_watts) || r->power.cpu_watts == 3.12);
		assert_true(isnan(r->power.gpu_watts) || r->power.gpu_watts == 41.25);
		free(cut);
	}
	for (size_t i = 0; i < NGARBAGE; i++) {
		r = report_fresh();
		assert_int_equal(darwin_parse_powermetrics(garbage[i], &r->power, err,
		    sizeof(err)), -1);
		assert_string_equal(r->power.source, "");
	}
	r = report_fresh();
	assert_int_equal(darwin_parse_powermetrics("CPU Power: lots mW\n", &r->power, err,
	    sizeof(err)), -1);
	assert_string_equal(r->power.source, "");
	assert_int_equal(darwin_parse_powermetrics(halfbad, &r->power, err, sizeof(err)), -1);
	assert_dbl(r->power.cpu_watts, 0.1);
	assert_nan(r->power.gpu_watts);
	assert_int_equal(darwin_parse_powermetrics(two, &r->power, err, sizeof(err)), 0);
	assert_dbl(r->power.cpu_watts, 1);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hwports),
		cmocka_unit_test(test_hwports_bad),
		cmocka_unit_test(test_ifconfig_port),
		cmocka_unit_test(test_ifconfig_bridge),
		cmocka_unit_test(test_ifconfig_bad),
		cmocka_unit_test(test_ifconfig_all),
		cmocka_unit_test(test_ifconfig_all_bad),
		cmocka_unit_test(test_rdma_ctl),
		cmocka_unit_test(test_ibv_devices),
		cmocka_unit_test(test_ibv_devices_bad),
		cmocka_unit_test(test_ibv_devinfo),
		cmocka_unit_test(test_ibv_devinfo_bad),
		cmocka_unit_test(test_ibv_devinfo_gid_forms),
		cmocka_unit_test(test_capture_hwports_osaurus),
		cmocka_unit_test(test_capture_ibv_devices),
		cmocka_unit_test(test_capture_ibv_devinfo),
		cmocka_unit_test(test_vm_stat),
		cmocka_unit_test(test_vm_stat_bad),
		cmocka_unit_test(test_memory_pressure),
		cmocka_unit_test(test_swapusage),
		cmocka_unit_test(test_sysctl_sizes),
		cmocka_unit_test(test_sw_vers),
		cmocka_unit_test(test_boottime),
		cmocka_unit_test(test_hostname),
		cmocka_unit_test(test_powermetrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
