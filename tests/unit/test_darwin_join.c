/*
 * darwin_join: the parsed outputs of the captured commands put into the
 * report: receptacle -> enX, addresses per port, rdma_enX -> enX and the
 * RDMA devices with their port state and IPv4 GID.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darwin_join.h"
#include "darwin_parse.h"

static char *
fixture(const char *name)
{
	const char *top = getenv("TBMESH_TOP");
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/macos/%s", top ? top : ".", name);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open %s (run from the top or set TBMESH_TOP)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_join_rdma),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
