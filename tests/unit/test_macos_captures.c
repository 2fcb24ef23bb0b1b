/*
 * macos_json on the captures of other projects (tests/fixtures/captures/,
 * its README.md says whose: repository, file, commit): each test names its
 * capture and the facts it checks, and the two ends of each cabled pair
 * agree on each other's domain and on the speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "macos_fixture.h"


/*
 * captures/omlx-plus/sp_thunderbolt_studio.json (jasonpaulso/omlx-plus,
 * tests/test_cluster_topology.py, _STUDIO_PROFILER_JSON, commit 452aac2d):
 * an M3 Ultra Mac Studio, six buses printed bus_5 first (receptacles 6 to
 * 1, receptacle_id_key a string), each bus with its own domain; receptacle
 * 2 cabled at 80 Gb/s (link 0x2) straight to the M5 Max MacBook Pro
 * (Mac17,7), which advertises the RDMA service (protocol 64087); the
 * "Envoy Ultra" drive on receptacle 4 (80 Gb/s) has no domain: no peer;
 * the four empty receptacles read "Up to 120 Gb/s" and 0x100.
 */
static void
test_capture_omlx_studio(void **state)
{
	(void)state;
	static const struct want_port want[] = {
		EMPTY_PORT("6", "thunderboltusb4_bus_5", "1CF1083E-9B3C-4D21-8467-769814784F4D"),
		EMPTY_PORT("5", "thunderboltusb4_bus_4", "54AA5FD1-F8F9-438A-8825-7268E164186C"),
		DEVICE_PORT("4", "thunderboltusb4_bus_3", "5F771049-70BD-4C30-A4AB-4E50482D82E0",
		    "0x2", 80),
		EMPTY_PORT("3", "thunderboltusb4_bus_2", "C9B32174-396A-4D89-9601-E8E83285C21A"),
		{ "2", "thunderboltusb4_bus_1", "28CA4C30-A263-4C55-B302-953416D0B209",
		  PORT_STATUS_CONNECTED, "0x2", 80, "817DCFA4-B481-4100-80FC-91C7AA969F0B",
		  "MacBook Pro", "Mac17,7", TRI_TRUE, TRI_FALSE, NULL },
		EMPTY_PORT("1", "thunderboltusb4_bus_0", "57AE1A4C-B830-48D1-90DD-A3EDB8AC8DFC"),
	};
	struct report_thunderbolt *tb = tb_new();

	parse_capture(OMLX_STUDIO, tb);
	assert_ports(tb, want, 6);
}

/*
 * captures/omlx-plus/sp_thunderbolt_macbook.json (jasonpaulso/omlx-plus,
 * tests/test_cluster_topology.py, _MACBOOK_PROFILER_JSON, commit 452aac2d):
 * the M5 Max MacBook Pro at the other end, three buses printed bus_2 first;
 * its receptacle 1 at 80 Gb/s straight to the Mac Studio (Mac15,14), which
 * does not advertise the RDMA service (only service_ip); receptacles 2 and
 * 3 empty.
 */
static void
test_capture_omlx_macbook(void **state)
{
	(void)state;
	static const struct want_port want[] = {
		EMPTY_PORT("3", "thunderboltusb4_bus_2", "AD089FC0-E653-4FFE-B00A-DFF110B2F9A1"),
		EMPTY_PORT("2", "thunderboltusb4_bus_1", "200E23D3-C921-44E0-95F7-55144AC251CC"),
		{ "1", "thunderboltusb4_bus_0", "817DCFA4-B481-4100-80FC-91C7AA969F0B",
		  PORT_STATUS_CONNECTED, "0x2", 80, "28CA4C30-A263-4C55-B302-953416D0B209",
		  "Mac Studio", "Mac15,14", TRI_FALSE, TRI_FALSE, NULL },
	};
	struct report_thunderbolt *tb = tb_new();

	parse_capture(OMLX_MACBOOK, tb);
	assert_ports(tb, want, 3);
}

/*
 * captures/osaurus/sp_thunderbolt_local.json (osaurus-ai/osaurus,
 * Packages/OsaurusCore/Tests/Distributed/DistributedFixtures.swift,
 * localThunderbolt, commit c8083d96): an M5 Max MacBook Pro with RDMA
 * disabled.  Receptacle 3: a Sabrent SB-XTM5 USB4 v2 hub, connected at 80
 * Gb/s with link status 0x4 (receptacle_status_key says connected), its own
 * downstream receptacles empty: no domain anywhere, so no peer, and the
 * hub's receptacle_N_tag entries are not the bus's port.  Receptacle 2: the
 * other MacBook Pro (Mac17,6) straight on the cable at 80 Gb/s, with the
 * RDMA service (its RDMA is enabled).  Receptacle 1 empty.
 */
static void
test_capture_osaurus_local(void **state)
{
	(void)state;
	static const struct want_port want[] = {
		DEVICE_PORT("3", "thunderboltusb4_bus_2", "00000009-0000-4000-8000-000000000009",
		    "0x4", 80),
		{ "2", "thunderboltusb4_bus_1", "00000004-0000-4000-8000-000000000004",
		  PORT_STATUS_CONNECTED, "0x2", 80, "00000003-0000-4000-8000-000000000003",
		  "MacBook Pro", "Mac17,6", TRI_TRUE, TRI_FALSE, NULL },
		EMPTY_PORT("1", "thunderboltusb4_bus_0", "00000008-0000-4000-8000-000000000008"),
	};
	struct report_thunderbolt *tb = tb_new();

	parse_capture(OSAURUS_LOCAL, tb);
	assert_ports(tb, want, 3);
}

/*
 * captures/osaurus/sp_thunderbolt_peer.json (osaurus-ai/osaurus,
 * DistributedFixtures.swift, peerThunderbolt, commit c8083d96): the other
 * M5 Max MacBook Pro, RDMA enabled.  Receptacle 3: an ACASIS TBU405Pro
 * (mode thunderbolt_three) at 40 Gb/s, no domain: no peer.  Receptacle 2:
 * the "local" MacBook Pro straight on the cable at 80 Gb/s, without the
 * RDMA service (its RDMA is disabled).  Receptacle 1 empty.
 */
static void
test_capture_osaurus_peer(void **state)
{
	(void)state;
	static const struct want_port want[] = {
		DEVICE_PORT("3", "thunderboltusb4_bus_2", "00000002-0000-4000-8000-000000000002",
		    "0x2", 40),
		{ "2", "thunderboltusb4_bus_1", "00000003-0000-4000-8000-000000000003",
		  PORT_STATUS_CONNECTED, "0x2", 80, "00000004-0000-4000-8000-000000000004",
		  "MacBook Pro", "Mac17,6", TRI_FALSE, TRI_FALSE, NULL },
		EMPTY_PORT("1", "thunderboltusb4_bus_0", "00000005-0000-4000-8000-000000000005"),
	};
	struct report_thunderbolt *tb = tb_new();

	parse_capture(OSAURUS_PEER, tb);
	assert_ports(tb, want, 3);
}

/*
 * Both ends of each captured cable name each other's domain, at the same
 * speed: osaurus "local" receptacle 2 and "peer" receptacle 2
 * (DistributedFixtures.swift, commit c8083d96); omlx-plus Studio receptacle
 * 2 and MacBook receptacle 1 (test_cluster_topology.py, commit 452aac2d).
 */
static void
test_capture_pairs_agree(void **state)
{
	(void)state;
	static const struct { const char *a, *ra, *b, *rb; } pairs[] = {
		{ OSAURUS_LOCAL, "2", OSAURUS_PEER, "2" },
		{ OMLX_STUDIO, "2", OMLX_MACBOOK, "1" },
	};
	static struct report a, b;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const struct report_port *pa, *pb;

		report_init(&a);
		report_init(&b);
		parse_capture(pairs[i].a, &a.thunderbolt);
		parse_capture(pairs[i].b, &b.thunderbolt);
		pa = port_of(&a.thunderbolt, pairs[i].ra);
		pb = port_of(&b.thunderbolt, pairs[i].rb);
		assert_string_equal(pa->peer.domain_uuid, pb->domain_uuid);
		assert_string_equal(pb->peer.domain_uuid, pa->domain_uuid);
		assert_dbl(pa->speed_gbps, pb->speed_gbps);
		assert_int_equal(pa->via_hub, TRI_FALSE);
		assert_int_equal(pb->via_hub, TRI_FALSE);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_omlx_studio),
		cmocka_unit_test(test_capture_omlx_macbook),
		cmocka_unit_test(test_capture_osaurus_local),
		cmocka_unit_test(test_capture_osaurus_peer),
		cmocka_unit_test(test_capture_pairs_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
