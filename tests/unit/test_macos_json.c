/*
 * macos_json: the real system_profiler captures of tests/fixtures/macos/
 * parse to exactly what they show (the Mac Studio and the MacBook Pro at
 * the two ends of one cable), a Mac behind a dock or hub is a peer reached
 * through that device (via_hub), SPHardwareDataType, one macmon sample;
 * and truncated, mistyped, empty and oversized inputs fail cleanly.  The
 * captures of other projects: test_macos_captures.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "macos_fixture.h"

#define STUDIO_TB "system_profiler-thunderbolt-studio.json"
#define MACBOOK_TB "system_profiler-thunderbolt-macbook.json"
#define STUDIO_HW "system_profiler-hardware-studio.json"
#define MACMON "macmon-pipe.jsonl"
#define DOCK_STUDIO "system_profiler-thunderbolt-studio-via-dock.json"
#define DOCK_MACBOOK "system_profiler-thunderbolt-macbook-to-dock.json"

static void
assert_empty_port(const struct report_thunderbolt *tb, const char *receptacle)
{
	const struct report_port *p = port_of(tb, receptacle);

	assert_int_equal(p->status, PORT_STATUS_EMPTY);
	assert_string_equal(p->link_status, "0x100");
	assert_nan(p->speed_gbps);
	assert_int_equal(p->has_peer, 0);
	assert_int_equal(p->peer.rdma_service, TRI_NULL);
	assert_string_equal(p->peer.domain_uuid, "");
	assert_int_equal(p->via_hub, TRI_NULL);
	assert_string_equal(p->hub, "");
}

static void
test_studio_thunderbolt(void **state)
{
	(void)state;
	struct report_thunderbolt *tb = tb_new();
	const struct report_port *p;
	char err[256];
	size_t len;
	char *json = fixture(STUDIO_TB, &len);

	assert_int_equal(macos_parse_thunderbolt(json, len, tb, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(tb->n_ports, 6);
	/* In the order printed: bus 5 (receptacle 6) first. */
	assert_string_equal(tb->ports[0].receptacle, "6");
	assert_string_equal(tb->ports[0].bus, "thunderboltusb4_bus_5");
	assert_string_equal(tb->ports[5].receptacle, "1");

	p = port_of(tb, "2");
	assert_string_equal(p->bus, "thunderboltusb4_bus_1");
	assert_string_equal(p->domain_uuid, "28CA4C30-A263-4C55-B302-953416D0B209");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_string_equal(p->link_status, "0x2");
	assert_dbl(p->speed_gbps, 80);
	assert_int_equal(p->has_peer, 1);
	assert_string_equal(p->peer.domain_uuid, "817DCFA4-B481-4100-80FC-91C7AA969F0B");
	assert_string_equal(p->peer.name, "MacBook Pro");
	assert_string_equal(p->peer.model, "Mac17,7");
	assert_int_equal(p->peer.rdma_service, TRI_TRUE);
	assert_int_equal(p->via_hub, TRI_FALSE);	/* straight under the bus: a cable */
	assert_string_equal(p->hub, "");
	/* Filled by other commands: untouched here. */
	assert_string_equal(p->interface, "");
	assert_int_equal(p->n_ipv4, -1);

	p = port_of(tb, "4");	/* the USB4 drive: connected, not a peer */
	assert_string_equal(p->bus, "thunderboltusb4_bus_3");
	assert_string_equal(p->domain_uuid, "5F771049-70BD-4C30-A4AB-4E50482D82E0");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_dbl(p->speed_gbps, 80);
	assert_int_equal(p->has_peer, 0);
	assert_int_equal(p->peer.rdma_service, TRI_NULL);
	assert_int_equal(p->via_hub, TRI_NULL);
	assert_string_equal(p->hub, "");

	assert_empty_port(tb, "1");
	assert_empty_port(tb, "3");
	assert_empty_port(tb, "5");
	assert_empty_port(tb, "6");
	assert_string_equal(port_of(tb, "6")->domain_uuid, "1CF1083E-9B3C-4D21-8467-769814784F4D");
	assert_int_equal(tb->bridge.exists, TRI_NULL);
	free(json);
}

static void
test_macbook_thunderbolt(void **state)
{
	(void)state;
	struct report_thunderbolt *tb = tb_new();
	const struct report_port *p;
	char err[256];
	size_t len;
	char *json = fixture(MACBOOK_TB, &len);

	assert_int_equal(macos_parse_thunderbolt(json, len, tb, err, sizeof(err)), 0);
	assert_int_equal(tb->n_ports, 3);
	p = port_of(tb, "1");
	assert_string_equal(p->bus, "thunderboltusb4_bus_0");
	assert_string_equal(p->domain_uuid, "817DCFA4-B481-4100-80FC-91C7AA969F0B");
	assert_int_equal(p->status, PORT_STATUS_CONNECTED);
	assert_dbl(p->speed_gbps, 80);
	assert_int_equal(p->has_peer, 1);
	assert_string_equal(p->peer.name, "Mac Studio");
	assert_string_equal(p->peer.model, "Mac15,14");
	assert_string_equal(p->peer.domain_uuid, "28CA4C30-A263-4C55-B302-953416D0B209");
	assert_int_equal(p->peer.rdma_service, TRI_FALSE);
	assert_int_equal(p->via_hub, TRI_FALSE);
	assert_empty_port(tb, "2");
	assert_empty_port(tb, "3");
	free(json);
}

/* Both ends of the cable name each other's domain. */
static void
test_captures_agree(void **state)
{
	(void)state;
	static struct report a, b;
	size_t la, lb;
	char *sj = fixture(STUDIO_TB, &la), *mj = fixture(MACBOOK_TB, &lb);
	const struct report_port *sp, *mp;

	report_init(&a);
	report_init(&b);
	assert_int_equal(macos_parse_thunderbolt(sj, la, &a.thunderbolt, NULL, 0), 0);
	assert_int_equal(macos_parse_thunderbolt(mj, lb, &b.thunderbolt, NULL, 0), 0);
	sp = port_of(&a.thunderbolt, "2");
	mp = port_of(&b.thunderbolt, "1");
	assert_string_equal(sp->peer.domain_uuid, mp->domain_uuid);
	assert_string_equal(mp->peer.domain_uuid, sp->domain_uuid);
	free(sj);
	free(mj);
}

/* Every proper prefix is invalid JSON: -1, nothing touched, no over-read. */
static void
assert_prefixes_fail_in(const char *dir, const char *name, int (*parse)(const char *, size_t))
{
	size_t len, end;
	char *json = fx_fixture(dir, name, &len);

	end = (size_t)(strrchr(json, '}') - json);
	for (size_t n = 0; n <= end; n++) {
		char *cut = malloc(n ? n : 1);	/* exactly n bytes: no NUL to lean on */
		assert_non_null(cut);
		memcpy(cut, json, n);
		if (parse(cut, n) != -1)
			fail_msg("%s cut to %zu bytes parsed", name, n);
		free(cut);
	}
	free(json);
}

static void
assert_prefixes_fail(const char *name, int (*parse)(const char *, size_t))
{
	assert_prefixes_fail_in("macos", name, parse);
}

static int
tb_untouched(const char *text, size_t len)
{
	struct report_thunderbolt *tb = tb_new();
	char err[128];
	int rc = macos_parse_thunderbolt(text, len, tb, err, sizeof(err));

	assert_int_equal(tb->n_ports, -1);
	assert_true(rc == 0 || err[0] != '\0');
	return rc;
}

static int
hw_untouched(const char *text, size_t len)
{
	struct report_node node;
	int64_t mem = 42;
	char err[128];
	int rc;

	memset(&node, 0, sizeof(node));
	rc = macos_parse_hardware(text, len, &node, &mem, err, sizeof(err));
	assert_int_equal(mem, 42);
	assert_string_equal(node.model, "");
	return rc;
}

static int
macmon_untouched(const char *text, size_t len)
{
	static struct report r;
	char err[128];
	int rc;

	report_init(&r);
	rc = macos_parse_macmon(text, len, &r.power, &r.thermal, err, sizeof(err));
	assert_string_equal(r.power.source, "");
	assert_nan(r.power.system_watts);
	assert_nan(r.thermal.cpu_celsius);
	return rc;
}

static void
test_truncated(void **state)
{
	(void)state;
	assert_prefixes_fail(STUDIO_TB, tb_untouched);
	assert_prefixes_fail(MACBOOK_TB, tb_untouched);
	assert_prefixes_fail(STUDIO_HW, hw_untouched);
	assert_prefixes_fail(MACMON, macmon_untouched);
	assert_prefixes_fail_in("captures", OSAURUS_LOCAL, tb_untouched);
	assert_prefixes_fail_in("captures", OSAURUS_PEER, tb_untouched);
	assert_prefixes_fail_in("captures", OMLX_STUDIO, tb_untouched);
	assert_prefixes_fail_in("captures", OMLX_MACBOOK, tb_untouched);
}

static void
test_thunderbolt_not_usable(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "   ", "null", "42", "\"text\"", "[]", "[{\"SPThunderboltDataType\": []}]",
		"{}", "{\"SPThunderboltDataType\": {}}", "{\"SPThunderboltDataType\": null}",
		"{\"SPThunderboltDataType\": \"x\"}", "system_profiler: command not found\n",
		"{\"SPThunderboltDataType\": [ {\"_name\": \"thunderboltusb4_bus_0\"",
	};
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct report_thunderbolt *tb = tb_new();
		if (macos_parse_thunderbolt(bad[i], strlen(bad[i]), tb, err, sizeof(err)) != -1)
			fail_msg("parsed: %s", bad[i]);
		assert_int_equal(tb->n_ports, -1);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(macos_parse_thunderbolt(NULL, 0, tb_new(), NULL, 0), -1);
}

static void
test_thunderbolt_missing_keys(void **state)
{
	(void)state;
	struct report_thunderbolt *tb = tb_new();
	const char *none = "{\"SPThunderboltDataType\": []}";
	const char *bare = "{\"SPThunderboltDataType\": [{}]}";
	char err[128];

	assert_int_equal(macos_parse_thunderbolt(none, strlen(none), tb, err, sizeof(err)), 0);
	assert_int_equal(tb->n_ports, 0);
	tb = tb_new();
	assert_int_equal(macos_parse_thunderbolt(bare, strlen(bare), tb, err, sizeof(err)), 0);
	assert_int_equal(tb->n_ports, 1);
	assert_string_equal(tb->ports[0].receptacle, "");
	assert_int_equal(tb->ports[0].status, PORT_STATUS_UNKNOWN);
	assert_nan(tb->ports[0].speed_gbps);
	assert_int_equal(tb->ports[0].has_peer, 0);
	assert_int_equal(tb->ports[0].via_hub, TRI_NULL);
	assert_string_equal(tb->ports[0].hub, "");
}

static void
test_thunderbolt_wrong_types(void **state)
{
	(void)state;
	const char *json = "{\"SPThunderboltDataType\": [ 7, {"
	    "\"_name\": 5, \"domain_uuid_key\": \"D1\","
	    "\"receptacle_1_tag\": {\"receptacle_id_key\": \"1\","
	    "  \"current_speed_key\": \"fast\", \"link_status_key\": [],"
	    "  \"receptacle_status_key\": \"receptacle_connected\"},"
	    "\"_items\": [ {\"_name\": \"Mac\", \"domain_uuid_key\": \"P1\","
	    "  \"services_title\": {\"protocol_id_key\": 64087}} ] },"
	    "{\"receptacle_1_tag\": \"nope\", \"_items\": \"nope\"},"
	    "{\"receptacle_1_tag\": {\"receptacle_id_key\": \"3\","
	    "  \"current_speed_key\": \"2000 Gb/s\", \"link_status_key\": \"0x2\"},"
	    "\"_items\": [ {\"_name\": \"Mac\", \"domain_uuid_key\": 9} ] } ]}";
	struct report_thunderbolt *tb = tb_new();
	char err[256];

	assert_int_equal(macos_parse_thunderbolt(json, strlen(json), tb, err, sizeof(err)), -1);
	assert_string_equal(err, "SPThunderboltDataType[0]: not an object");
	assert_int_equal(tb->n_ports, 3);
	assert_string_equal(tb->ports[0].bus, "");
	assert_string_equal(tb->ports[0].domain_uuid, "D1");
	assert_string_equal(tb->ports[0].receptacle, "1");
	assert_int_equal(tb->ports[0].status, PORT_STATUS_CONNECTED);
	assert_nan(tb->ports[0].speed_gbps);
	assert_string_equal(tb->ports[0].link_status, "");
	assert_int_equal(tb->ports[0].has_peer, 1);
	assert_int_equal(tb->ports[0].peer.rdma_service, TRI_FALSE);
	assert_int_equal(tb->ports[1].status, PORT_STATUS_UNKNOWN);
	assert_int_equal(tb->ports[1].has_peer, 0);
	assert_string_equal(tb->ports[2].receptacle, "3");
	assert_int_equal(tb->ports[2].status, PORT_STATUS_CONNECTED);
	assert_nan(tb->ports[2].speed_gbps);	/* out of range */
	assert_int_equal(tb->ports[2].has_peer, 0);	/* a domain that is not a string */

	/* Alone, the bad speed is the message. */
	const char *speed = "{\"SPThunderboltDataType\": [{\"receptacle_1_tag\": {"
	    "\"current_speed_key\": \"fast\", \"link_status_key\": \"0x2\"}}]}";
	tb = tb_new();
	assert_int_equal(macos_parse_thunderbolt(speed, strlen(speed), tb, err, sizeof(err)), -1);
	assert_string_equal(err, "SPThunderboltDataType[0].receptacle_1_tag.current_speed_key: "
	    "\"fast\" is not a speed");
}

static void
test_thunderbolt_speeds_and_hubs(void **state)
{
	(void)state;
	const char *json = "{\"SPThunderboltDataType\": ["
	    "{\"receptacle_1_tag\": {\"receptacle_id_key\": \"1\", \"current_speed_key\": \"40 Gb/s\","
	    "  \"receptacle_status_key\": \"receptacle_connected\"},"
	    " \"_items\": [ {\"_name\": \"Dock\", \"_items\": [ {\"_name\": \"Drive\"},"
	    "   {\"_name\": \"Mac Studio\", \"device_name_key\": \"Mac16,9\","
	    "    \"domain_uuid_key\": \"AAAA\", \"services_title\": ["
	    "      {\"protocol_id_key\": 1}, {\"protocol_id_key\": 64087} ] } ] } ] },"
	    "{\"receptacle_2_tag\": {\"receptacle_id_key\": \"2\", \"current_speed_key\": \"Up to 80 Gb/s\","
	    "  \"link_status_key\": \"0x2\"}},"
	    "{\"receptacle_1_tag\": {\"receptacle_id_key\": \"3\", \"current_speed_key\": \"20.5 Gb/s\","
	    "  \"link_status_key\": \"0x7\"}},"
	    /*
	     * A Thunderbolt 4 port with nothing plugged in, as a MacBook Pro's
	     * host bus prints it in a public fixture of real system_profiler
	     * output (a Rust test, parses_real_system_profiler_host_routers).
	     */
	    "{\"receptacle_1_tag\": {\"receptacle_id_key\": \"3\", \"current_speed_key\": \"Up to 40 Gb/s\","
	    "  \"link_status_key\": \"0x100\", \"receptacle_status_key\": "
	    "\"receptacle_no_devices_connected\"}} ]}";
	struct report_thunderbolt *tb = tb_new();
	char err[256];

	assert_int_equal(macos_parse_thunderbolt(json, strlen(json), tb, err, sizeof(err)), 0);
	assert_int_equal(tb->n_ports, 4);
	assert_dbl(tb->ports[0].speed_gbps, 40);
	assert_nan(tb->ports[0].max_speed_gbps);	/* a link: its rate only */
	assert_int_equal(tb->ports[0].has_peer, 1);
	assert_string_equal(tb->ports[0].peer.name, "Mac Studio");
	assert_string_equal(tb->ports[0].peer.model, "Mac16,9");
	assert_int_equal(tb->ports[0].peer.rdma_service, TRI_TRUE);
	assert_int_equal(tb->ports[0].via_hub, TRI_TRUE);	/* behind the dock */
	assert_string_equal(tb->ports[0].hub, "Dock");
	assert_int_equal(tb->ports[1].via_hub, TRI_NULL);
	assert_string_equal(tb->ports[1].hub, "");
	assert_string_equal(tb->ports[1].receptacle, "2");
	assert_int_equal(tb->ports[1].status, PORT_STATUS_CONNECTED);
	assert_nan(tb->ports[1].speed_gbps);
	assert_dbl(tb->ports[1].max_speed_gbps, 80);
	assert_int_equal(tb->ports[2].status, PORT_STATUS_UNKNOWN);
	assert_dbl(tb->ports[2].speed_gbps, 20.5);
	assert_int_equal(tb->ports[3].status, PORT_STATUS_EMPTY);
	assert_nan(tb->ports[3].speed_gbps);
	assert_dbl(tb->ports[3].max_speed_gbps, 40);	/* Thunderbolt 4 */
}

static void
test_thunderbolt_too_many_ports(void **state)
{
	(void)state;
	struct report_thunderbolt *tb = tb_new();
	char json[8192], err[256];
	size_t n;

	n = (size_t)snprintf(json, sizeof(json), "{\"SPThunderboltDataType\": [");
	for (int i = 1; i <= 20; i++)
		n += (size_t)snprintf(json + n, sizeof(json) - n,
		    "%s{\"_name\": \"bus_%d\", \"receptacle_1_tag\": {\"receptacle_id_key\": \"%d\","
		    " \"current_speed_key\": \"80 Gb/s\", \"link_status_key\": \"0x2\"}}",
		    i > 1 ? "," : "", i, i);
	n += (size_t)snprintf(json + n, sizeof(json) - n, "]}");
	assert_true(n < sizeof(json));
	assert_int_equal(macos_parse_thunderbolt(json, n, tb, err, sizeof(err)), -1);
	assert_int_equal(tb->n_ports, REPORT_PORTS_MAX);
	assert_string_equal(tb->ports[0].receptacle, "1");
	assert_string_equal(tb->ports[15].receptacle, "16");
	assert_dbl(tb->ports[15].speed_gbps, 80);
	assert_non_null(strstr(err, "20 Thunderbolt buses"));
}


/*
 * A Mac behind a dock: tests/fixtures/macos/DOCK_STUDIO and DOCK_MACBOOK.
 * Their shape is a real capture's, trimmed by its authors to the keys
 * their code reads (a public test fixture, "Real outputs from the M3 Ultra
 * / M4 Max rig (2026-09-27)", found in a public code index without its
 * repository's name): on the Mac Studio, bus_2 (receptacle 3, 40 Gb/s)
 * holds a ThunderBay Flex 8 (mode thunderbolt_three) whose own _items hold
 * the MacBook Pro, two levels down; the MacBook Pro's bus_2 (receptacle 3,
 * 40 Gb/s) holds the Mac Studio straight in its _items.  The trim removed
 * domain_uuid_key and the services' protocol ids: put back there, the
 * domains synthetic, the services as a direct peer's (captures/omlx-plus).
 */

/*
 * The Studio's end: the MacBook Pro is still its peer (the link can be
 * resolved and judged), reached through the dock: via_hub, hub the dock's
 * name.  The MacBook's end shows a direct peer: only the end with the
 * nested entry tells, so the two ends are joined by domain UUID.
 */
static void
test_thunderbolt_via_hub(void **state)
{
	(void)state;
	static const struct want_port studio[] = {
		{ "3", "thunderboltusb4_bus_2", "00000021-0000-4000-8000-000000000021",
		  PORT_STATUS_CONNECTED, "0x2", 40, "00000022-0000-4000-8000-000000000022",
		  "MacBook Pro", "Mac16,5", TRI_TRUE, TRI_TRUE, "ThunderBay Flex 8" },
	};
	static const struct want_port macbook[] = {
		{ "3", "thunderboltusb4_bus_2", "00000022-0000-4000-8000-000000000022",
		  PORT_STATUS_CONNECTED, "0x2", 40, "00000021-0000-4000-8000-000000000021",
		  "Mac Studio", "Mac15,14", TRI_FALSE, TRI_FALSE, NULL },
	};
	struct report_thunderbolt *tb = tb_new();
	char err[256], *json;
	size_t len;

	json = fixture(DOCK_STUDIO, &len);
	assert_int_equal(macos_parse_thunderbolt(json, len, tb, err, sizeof(err)), 0);
	free(json);
	assert_ports(tb, studio, 1);
	tb = tb_new();
	json = fixture(DOCK_MACBOOK, &len);
	assert_int_equal(macos_parse_thunderbolt(json, len, tb, err, sizeof(err)), 0);
	free(json);
	assert_ports(tb, macbook, 1);
}

/* {"SPThunderboltDataType": [{"_items": ITEMS}]} parsed into a new tb: its rc. */
static int
parse_items(const char *items, struct report_thunderbolt **tb, char *err, size_t errlen)
{
	char json[4096];
	int n = snprintf(json, sizeof(json), "{\"SPThunderboltDataType\": [{\"_items\": %s}]}",
	    items);

	assert_true(n > 0 && (size_t)n < sizeof(json));
	*tb = tb_new();
	return macos_parse_thunderbolt(json, (size_t)n, *tb, err, errlen);
}

/*
 * Which entry is the peer, and through what: a host plugged straight in
 * wins over one behind a device listed before it; the device in between
 * is named by _name, else device_name_key; a name of the wrong type is an
 * error that keeps the rest; a host nested up to PEER_DEPTH_MAX (8)
 * devices deep is found, as before, one deeper is not.
 */
static void
test_thunderbolt_peer_or_hub(void **state)
{
	(void)state;
	struct report_thunderbolt *tb;
	char err[256], items[4096];
	size_t n;

	assert_int_equal(parse_items("[ {\"_name\": \"Dock\", \"_items\": [ {\"_name\": \"A\","
	    " \"domain_uuid_key\": \"DA\"} ]}, {\"_name\": \"B\", \"domain_uuid_key\": \"DB\"} ]",
	    &tb, err, sizeof(err)), 0);
	assert_int_equal(tb->ports[0].has_peer, 1);
	assert_string_equal(tb->ports[0].peer.domain_uuid, "DB");
	assert_int_equal(tb->ports[0].via_hub, TRI_FALSE);
	assert_string_equal(tb->ports[0].hub, "");

	assert_int_equal(parse_items("[ {\"device_name_key\": \"TS5 Plus\", \"_items\": [ {"
	    "\"_name\": \"Drive\"}, {\"_name\": \"Hub\", \"_items\": [ {\"_name\": \"A\","
	    " \"domain_uuid_key\": \"DA\"} ]} ]} ]", &tb, err, sizeof(err)), 0);
	assert_string_equal(tb->ports[0].peer.domain_uuid, "DA");
	assert_int_equal(tb->ports[0].peer.rdma_service, TRI_FALSE);
	assert_int_equal(tb->ports[0].via_hub, TRI_TRUE);
	assert_string_equal(tb->ports[0].hub, "TS5 Plus");	/* the first level's */

	assert_int_equal(parse_items("[ {\"_name\": 5, \"_items\": [ {\"domain_uuid_key\":"
	    " \"DA\"} ]} ]", &tb, err, sizeof(err)), -1);
	assert_string_equal(err, "SPThunderboltDataType[0] hub._name: not a string");
	assert_string_equal(tb->ports[0].peer.domain_uuid, "DA");
	assert_int_equal(tb->ports[0].via_hub, TRI_TRUE);
	assert_string_equal(tb->ports[0].hub, "");

	for (int depth = 8; depth <= 9; depth++) {
		n = 0;
		for (int i = 0; i < depth; i++)
			n += (size_t)snprintf(items + n, sizeof(items) - n,
			    "[{\"_name\": \"D%d\", \"_items\": ", i + 1);
		n += (size_t)snprintf(items + n, sizeof(items) - n,
		    "[{\"domain_uuid_key\": \"DEEP\"}]");
		for (int i = 0; i < depth; i++)
			n += (size_t)snprintf(items + n, sizeof(items) - n, "}]");
		assert_true(n < sizeof(items));
		assert_int_equal(parse_items(items, &tb, err, sizeof(err)), 0);
		assert_int_equal(tb->ports[0].has_peer, depth == 8);
		assert_int_equal(tb->ports[0].via_hub, depth == 8 ? TRI_TRUE : TRI_NULL);
		assert_string_equal(tb->ports[0].hub, depth == 8 ? "D1" : "");
	}
}

static void
test_hardware(void **state)
{
	(void)state;
	struct report_node node;
	int64_t mem = 0;
	char err[256];
	size_t len;
	char *json = fixture(STUDIO_HW, &len);

	memset(&node, 0, sizeof(node));
	REPORT_SET(node.hostname, "kept");
	assert_int_equal(macos_parse_hardware(json, len, &node, &mem, err, sizeof(err)), 0);
	assert_string_equal(node.model, "Mac15,14");
	assert_string_equal(node.machine_name, "Mac Studio");
	assert_string_equal(node.chip, "Apple M3 Ultra");
	assert_string_equal(node.serial, "H7XQ0000PF");
	assert_string_equal(node.hardware_uuid, "4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F");
	assert_int_equal(mem, INT64_C(549755813888));
	assert_string_equal(node.hostname, "kept");
	assert_string_equal(node.os_version, "");
	free(json);
}

static void
test_hardware_bad(void **state)
{
	(void)state;
	static const char *const unusable[] = {
		"", "{}", "[]", "{\"SPHardwareDataType\": []}", "{\"SPHardwareDataType\": [3]}",
		"{\"SPHardwareDataType\": {\"machine_model\": \"Mac15,14\"}}",
	};
	const char *mem_bad = "{\"SPHardwareDataType\": [{\"machine_model\": \"Mac15,14\","
	    " \"physical_memory\": \"lots\", \"chip_type\": 3}]}";
	const char *small = "{\"SPHardwareDataType\": [{\"physical_memory\": \"16 GB\"}]}";
	const char *tb = "{\"SPHardwareDataType\": [{\"physical_memory\": \"1.5 TB\"}]}";
	const char *none = "{\"SPHardwareDataType\": [{}]}";
	struct report_node node;
	int64_t mem;
	char err[256];

	for (size_t i = 0; i < sizeof(unusable) / sizeof(unusable[0]); i++)
		assert_int_equal(hw_untouched(unusable[i], strlen(unusable[i])), -1);
	memset(&node, 0, sizeof(node));
	assert_int_equal(macos_parse_hardware(mem_bad, strlen(mem_bad), &node, &mem, err,
	    sizeof(err)), -1);
	assert_string_equal(node.model, "Mac15,14");
	assert_string_equal(node.chip, "");
	assert_int_equal(mem, REPORT_NULL_I64);
	assert_int_equal(macos_parse_hardware(small, strlen(small), &node, &mem, err,
	    sizeof(err)), 0);
	assert_int_equal(mem, INT64_C(17179869184));
	assert_int_equal(macos_parse_hardware(tb, strlen(tb), &node, &mem, err, sizeof(err)), 0);
	assert_int_equal(mem, INT64_C(1649267441664));
	assert_int_equal(macos_parse_hardware(none, strlen(none), &node, &mem, err,
	    sizeof(err)), 0);
	assert_int_equal(mem, REPORT_NULL_I64);
}

static void
test_macmon(void **state)
{
	(void)state;
	static struct report r;
	char err[256];
	size_t len;
	char *line = fixture(MACMON, &len);

	report_init(&r);
	assert_int_equal(macos_parse_macmon(line, len, &r.power, &r.thermal, err, sizeof(err)), 0);
	assert_string_equal(r.power.source, "macmon");
	assert_dbl(r.power.system_watts, 5.876533);
	assert_dbl(r.power.cpu_watts, 0.20486385);
	assert_dbl(r.power.gpu_watts, 0.017451683);
	assert_dbl(r.power.ane_watts, 0.0);
	assert_dbl(r.power.dram_watts, 0.11635789);
	assert_dbl(r.thermal.cpu_celsius, 43.73614);
	assert_dbl(r.thermal.gpu_celsius, 36.95167);
	free(line);
}

static void
test_macmon_bad(void **state)
{
	(void)state;
	static const char *const unusable[] = {
		"", "\n", "{}", "[1, 2]", "{\"sys_power\": \"5\"}", "{\"temp\": {\"cpu_temp_avg\": 40}}",
		"macmon: command not found", "{\"sys_power\": null}",
	};
	static struct report r;
	const char *two = "{\"sys_power\": 1.5}\n{\"sys_power\": 2.5}\n";
	const char *badtemp = "{\"sys_power\": 7, \"cpu_power\": -1, \"temp\": 3}";
	const char *hot = "{\"gpu_power\": 7, \"temp\": {\"cpu_temp_avg\": 900, "
	    "\"gpu_temp_avg\": 50}}";
	char err[256];

	for (size_t i = 0; i < sizeof(unusable) / sizeof(unusable[0]); i++)
		if (macmon_untouched(unusable[i], strlen(unusable[i])) != -1)
			fail_msg("parsed: %s", unusable[i]);
	report_init(&r);
	assert_int_equal(macos_parse_macmon(two, strlen(two), &r.power, &r.thermal, err,
	    sizeof(err)), 0);
	assert_dbl(r.power.system_watts, 1.5);
	report_init(&r);
	assert_int_equal(macos_parse_macmon(badtemp, strlen(badtemp), &r.power, &r.thermal, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "cpu_power: -1 is out of range 0..100000");
	assert_dbl(r.power.system_watts, 7);
	assert_nan(r.power.cpu_watts);
	assert_string_equal(r.power.source, "macmon");
	report_init(&r);
	assert_int_equal(macos_parse_macmon(hot, strlen(hot), &r.power, &r.thermal, err,
	    sizeof(err)), -1);
	assert_nan(r.thermal.cpu_celsius);
	assert_dbl(r.thermal.gpu_celsius, 50);
	assert_dbl(r.power.gpu_watts, 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_studio_thunderbolt),
		cmocka_unit_test(test_macbook_thunderbolt),
		cmocka_unit_test(test_captures_agree),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_thunderbolt_not_usable),
		cmocka_unit_test(test_thunderbolt_missing_keys),
		cmocka_unit_test(test_thunderbolt_wrong_types),
		cmocka_unit_test(test_thunderbolt_speeds_and_hubs),
		cmocka_unit_test(test_thunderbolt_too_many_ports),
		cmocka_unit_test(test_thunderbolt_via_hub),
		cmocka_unit_test(test_thunderbolt_peer_or_hub),
		cmocka_unit_test(test_hardware),
		cmocka_unit_test(test_hardware_bad),
		cmocka_unit_test(test_macmon),
		cmocka_unit_test(test_macmon_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
