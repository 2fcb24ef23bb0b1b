/*
 * scenario: parsing, defaults, derived values (UUIDs, addresses, serials),
 * every validation error with its message, loading every file under
 * tests/scenarios (found through TBMESH_TOP, set by tests/run.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define DEFAULTS "\"defaults\": {\"model\": \"Mac15,14\", \"chip\": \"Apple M3 Ultra\", " \
	"\"os_version\": \"26.2\", \"os_build\": \"25C56\"}"
#define HEAD "{\"cluster\": \"lab\", " DEFAULTS ", "
#define NODES2 "\"nodes\": [{\"name\": \"mac1\", \"memory_gb\": 512}, " \
	"{\"name\": \"mac2\", \"memory_gb\": 256}]"
#define TWO HEAD NODES2
#define CABLE(a, b) TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:1\"}, " \
	"{\"a\": " a ", \"b\": " b "}]}"
#define PORT(body) TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:3\"}], " \
	"\"ports\": [" body "]}"
#define LAN(v) HEAD "\"nodes\": [{\"name\": \"mac1\", \"memory_gb\": 512, \"lan\": " v "}]}"

static const char *
top_path(const char *rel, char *buf, size_t len)
{
	const char *top = getenv("TBMESH_TOP");

	snprintf(buf, len, "%s/%s", top != NULL ? top : ".", rel);
	return buf;
}

static struct scenario *
parse_ok(const char *json)
{
	char err[512];
	struct scenario *s = scenario_parse(json, strlen(json), err, sizeof(err));

	if (s == NULL)
		fail_msg("parse failed: %s", err);
	return s;
}

static int
is_upper_uuid(const char *u)
{
	if (strlen(u) != 36)
		return 0;
	for (int i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? u[i] != '-' : strchr("0123456789ABCDEF", u[i]) == NULL)
			return 0;
	}
	return 1;
}

static void
test_minimal_defaults(void **state)
{
	(void)state;
	struct scenario *s = parse_ok(TWO "}");
	const struct scenario_node *n = scenario_node_find(s, "mac2");

	assert_string_equal(s->cluster, "lab");
	assert_string_equal(s->description, "");
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->n_cables, 0);
	assert_non_null(n);
	assert_ptr_equal(n, &s->nodes[1]);
	assert_null(scenario_node_find(s, "mac9"));
	assert_null(scenario_node_find(s, NULL));
	assert_null(scenario_node_find(NULL, "mac1"));
	assert_string_equal(n->model, "Mac15,14");
	assert_string_equal(n->chip, "Apple M3 Ultra");
	assert_string_equal(n->os_build, "25C56");
	assert_string_equal(n->machine_name, "Mac Studio");
	assert_true(n->memory_bytes == INT64_C(274877906944));
	assert_int_equal(n->receptacles, SCENARIO_RECEPTACLES_DEFAULT);
	assert_int_equal(n->rdma, 1);
	assert_int_equal(n->bridge_active, 0);
	assert_int_equal(n->unreachable, 0);
	assert_true(n->gpu_wired_limit_mb == 0);
	assert_true(n->power_watts == SCENARIO_WATTS_DEFAULT);
	assert_true(n->memory_load == SCENARIO_LOAD_DEFAULT);
	assert_true(n->boot_time >= 1764547200.0 && n->boot_time < 1764547200.0 + 7 * 86400);
	for (int r = 0; r < n->receptacles; r++) {
		char want[16];
		snprintf(want, sizeof(want), "en%d", r + 2);
		assert_string_equal(n->ports[r].interface, want);
		assert_int_equal(n->ports[r].receptacle, r + 1);
		assert_int_equal(n->ports[r].cable, -1);
		assert_int_equal(n->ports[r].n_ipv4, 0);
		assert_true(isnan(n->ports[r].speed_gbps));
		assert_true(is_upper_uuid(n->ports[r].domain_uuid));
	}
	scenario_free(s);
	scenario_free(NULL);
}

static void
test_node_overrides_defaults(void **state)
{
	(void)state;
	struct scenario *s = parse_ok("{\"cluster\": \"lab\", \"description\": \"d\", "
	    DEFAULTS ", \"nodes\": [{\"name\": \"m\", \"memory_gb\": 96, \"model\": \"Mac16,9\", "
	    "\"chip\": \"Apple M4 Max\", \"machine_name\": \"Mac Studio (2025)\", "
	    "\"receptacles\": 4, \"interfaces\": [\"en1\", \"en6\", \"en2\", \"en10\"], "
	    "\"rdma\": false, \"bridge_active\": true, \"unreachable\": true, "
	    "\"gpu_wired_limit_mb\": 90000, \"memory_load\": 0.5, \"power_watts\": 60.5, "
	    "\"boot_time\": 1700000000, \"serial\": \"H7XQ0000PF\", "
	    "\"hardware_uuid\": \"4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F\"}]}");
	const struct scenario_node *n = &s->nodes[0];

	assert_string_equal(s->description, "d");
	assert_string_equal(n->model, "Mac16,9");
	assert_string_equal(n->chip, "Apple M4 Max");
	assert_string_equal(n->os_version, "26.2");
	assert_string_equal(n->machine_name, "Mac Studio (2025)");
	assert_true(n->memory_bytes == INT64_C(96) * 1073741824);
	assert_int_equal(n->receptacles, 4);
	assert_string_equal(n->ports[1].interface, "en6");
	assert_string_equal(n->ports[3].interface, "en10");
	assert_int_equal(n->rdma, 0);
	assert_int_equal(n->bridge_active, 1);
	assert_int_equal(n->unreachable, 1);
	assert_true(n->gpu_wired_limit_mb == 90000);
	assert_true(n->memory_load == 0.5);
	assert_true(n->power_watts == 60.5);
	assert_true(n->boot_time == 1700000000.0);
	assert_string_equal(n->serial, "H7XQ0000PF");
	assert_string_equal(n->hardware_uuid, "4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F");
	assert_string_equal(n->ports[4].domain_uuid, "");
	scenario_free(s);
}

static void
test_cables_resolve_both_ends(void **state)
{
	(void)state;
	struct scenario *s = parse_ok(TWO ", \"cables\": [{\"a\": \"mac1:2\", \"b\": \"mac2:tb5\", "
	    "\"speed_gbps\": 40}, {\"a\": \"mac2:1\", \"b\": \"mac1:6\"}]}");
	const struct scenario_port *a = &s->nodes[0].ports[1], *b = &s->nodes[1].ports[4];

	assert_int_equal(s->n_cables, 2);
	assert_int_equal(s->cables[0].a_node, 0);
	assert_int_equal(s->cables[0].a_receptacle, 2);
	assert_int_equal(s->cables[0].b_node, 1);
	assert_int_equal(s->cables[0].b_receptacle, 5);
	assert_int_equal(a->cable, 0);
	assert_int_equal(a->peer_node, 1);
	assert_int_equal(a->peer_receptacle, 5);
	assert_int_equal(b->peer_node, 0);
	assert_int_equal(b->peer_receptacle, 2);
	assert_true(a->speed_gbps == 40.0 && b->speed_gbps == 40.0);
	assert_true(s->nodes[1].ports[0].speed_gbps == SCENARIO_SPEED_DEFAULT);
	assert_int_equal(s->nodes[0].ports[5].cable, 1);
	/* Cabled ports get one link-local address; empty ones none. */
	assert_int_equal(a->n_ipv4, 1);
	assert_memory_equal(a->ipv4[0], "169.254.", 8);
	assert_string_not_equal(a->ipv4[0], b->ipv4[0]);
	assert_int_equal(s->nodes[0].ports[0].n_ipv4, 0);
	scenario_free(s);
}

static void
test_derived_values_are_deterministic(void **state)
{
	(void)state;
	const char *j1 = TWO ", \"cables\": [{\"a\": \"mac1:2\", \"b\": \"mac2:3\"}]}";
	const char *j2 = "{\"cluster\": \"lab2\", " DEFAULTS ", " NODES2
	    ", \"cables\": [{\"a\": \"mac1:2\", \"b\": \"mac2:3\"}]}";
	struct scenario *a = parse_ok(j1), *b = parse_ok(j1), *c = parse_ok(j2);

	for (int i = 0; i < 2; i++) {
		assert_string_equal(a->nodes[i].serial, b->nodes[i].serial);
		assert_string_equal(a->nodes[i].hardware_uuid, b->nodes[i].hardware_uuid);
		assert_true(a->nodes[i].boot_time == b->nodes[i].boot_time);
		assert_int_equal(strlen(a->nodes[i].serial), 10);
		assert_true(is_upper_uuid(a->nodes[i].hardware_uuid));
		assert_string_not_equal(a->nodes[i].hardware_uuid, c->nodes[i].hardware_uuid);
		for (int r = 0; r < 6; r++) {
			assert_string_equal(a->nodes[i].ports[r].domain_uuid,
			    b->nodes[i].ports[r].domain_uuid);
			/* Another cluster name, other UUIDs. */
			assert_string_not_equal(a->nodes[i].ports[r].domain_uuid,
			    c->nodes[i].ports[r].domain_uuid);
		}
	}
	assert_string_equal(a->nodes[0].ports[1].ipv4[0], b->nodes[0].ports[1].ipv4[0]);
	assert_string_not_equal(a->nodes[0].serial, a->nodes[1].serial);
	assert_string_not_equal(a->nodes[0].ports[0].domain_uuid, a->nodes[0].ports[1].domain_uuid);
	assert_string_not_equal(a->nodes[0].ports[0].domain_uuid, a->nodes[1].ports[0].domain_uuid);
	scenario_free(a);
	scenario_free(b);
	scenario_free(c);
}

static void
test_port_faults(void **state)
{
	(void)state;
	struct scenario *s = parse_ok(TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:3\"}, "
	    "{\"a\": \"mac1:2\", \"b\": \"mac2:4\"}], \"ports\": ["
	    "{\"port\": \"mac1:1\", \"ipv4\": false, \"port_down\": true}, "
	    "{\"port\": \"mac2:3\", \"ipv4\": [\"10.0.0.2\", \"10.0.1.2\"]}, "
	    "{\"port\": \"mac2:6\", \"ipv4\": [\"192.168.9.9\"]}, "
	    "{\"port\": \"mac1:2\", \"ipv4\": true, \"port_down\": false, \"reports_empty\": true}]}");
	const struct scenario_node *m1 = &s->nodes[0], *m2 = &s->nodes[1];

	assert_int_equal(m1->ports[0].n_ipv4, 0);
	assert_int_equal(m1->ports[0].port_down, 1);
	assert_int_equal(m2->ports[2].port_down, 0);
	assert_int_equal(m2->ports[2].n_ipv4, 2);
	assert_string_equal(m2->ports[2].ipv4[1], "10.0.1.2");
	assert_int_equal(m2->ports[5].n_ipv4, 1);
	assert_int_equal(m2->ports[5].cable, -1);
	assert_string_equal(m2->ports[5].ipv4[0], "192.168.9.9");
	assert_int_equal(m1->ports[1].n_ipv4, 1);
	assert_int_equal(m1->ports[1].port_down, 0);
	assert_int_equal(m1->ports[1].reports_empty, 1);
	assert_int_equal(m1->ports[0].reports_empty, 0);
	assert_string_equal(m1->ports[0].hub, "");
	scenario_free(s);
}

/* "hub": the cable goes through a dock at this end (via-hub); the far
 * end's port has none. */
static void
test_port_hub(void **state)
{
	(void)state;
	struct scenario *s = parse_ok(PORT("{\"port\": \"mac1:1\", \"hub\": \"CalDigit TS4\"}"));

	assert_string_equal(s->nodes[0].ports[0].hub, "CalDigit TS4");
	assert_string_equal(s->nodes[1].ports[2].hub, "");
	assert_int_equal(s->nodes[0].ports[0].port_down, 0);
	scenario_free(s);
}

/* 32 nodes are fine (16 receptacles each, a ring through them); 33 are not. */
static char *
many_nodes(int n)
{
	size_t cap = 200 + (size_t)n * 120;
	char *buf = malloc(cap);
	size_t len;

	assert_non_null(buf);
	len = (size_t)snprintf(buf, cap, "%s\"nodes\": [", HEAD);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"name\": \"n%d\", "
		    "\"memory_gb\": 64, \"receptacles\": 16}", i ? ", " : "", i);
	len += (size_t)snprintf(buf + len, cap - len, "], \"cables\": [");
	for (int i = 0; i < n && n <= SCENARIO_NODES_MAX; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s{\"a\": \"n%d:1\", \"b\": \"n%d:2\"}",
		    i ? ", " : "", i, (i + 1) % n);
	snprintf(buf + len, cap - len, "]}");
	return buf;
}

static void
test_node_limit(void **state)
{
	(void)state;
	char err[256];
	char *json = many_nodes(SCENARIO_NODES_MAX);
	struct scenario *s = parse_ok(json);

	assert_int_equal(s->n_nodes, SCENARIO_NODES_MAX);
	assert_int_equal(s->n_cables, SCENARIO_NODES_MAX);
	/* Every address in the scenario is distinct. */
	for (int i = 0; i < s->n_nodes; i++)
		for (int j = 0; j < s->n_nodes; j++)
			for (int r = 0; r < 2; r++)
				for (int q = 0; q < 2; q++)
					if (i != j || r != q)
						assert_string_not_equal(s->nodes[i].ports[r].ipv4[0],
						    s->nodes[j].ports[q].ipv4[0]);
	scenario_free(s);
	free(json);
	json = many_nodes(SCENARIO_NODES_MAX + 1);
	assert_null(scenario_parse(json, strlen(json), err, sizeof(err)));
	assert_string_equal(err, "nodes: 33 entries, more than the 32 a scenario may hold");
	free(json);
}

struct bad {
	const char *json;
	const char *err;
};

/* "lan": absent (unknown), one object, a list, an empty list. */
static void
test_lan(void **state)
{
	(void)state;
	struct scenario *s = parse_ok(TWO "}");
	const struct scenario_lan *l;

	assert_int_equal(s->nodes[0].n_lan, -1);
	scenario_free(s);
	s = parse_ok(LAN("{\"interface\": \"en0\", \"ipv4\": \"192.0.2.11\"}"));
	assert_int_equal(s->nodes[0].n_lan, 1);
	l = &s->nodes[0].lan[0];
	assert_string_equal(l->interface, "en0");
	assert_int_equal(l->kind, NETIF_KIND_ETHERNET);
	assert_string_equal(l->port, "Ethernet");
	assert_int_equal(l->n_ipv4, 1);
	assert_string_equal(l->ipv4[0], "192.0.2.11");
	scenario_free(s);
	s = parse_ok(LAN("[{\"interface\": \"en1\", \"kind\": \"wifi\", \"ipv4\": "
	    "[\"192.0.2.111\", \"192.0.2.112\"]}, {\"interface\": \"utun4\", \"kind\": "
	    "\"other\", \"ipv4\": []}, {\"interface\": \"en9\", \"kind\": \"ethernet\", "
	    "\"port\": \"USB 10/100/1000 LAN\"}, {\"interface\": \"en10\", \"kind\": "
	    "\"other\", \"port\": \"iPhone USB\"}]"));
	assert_int_equal(s->nodes[0].n_lan, 4);
	l = s->nodes[0].lan;
	assert_int_equal(l[0].kind, NETIF_KIND_WIFI);
	assert_string_equal(l[0].port, "Wi-Fi");
	assert_int_equal(l[0].n_ipv4, 2);
	assert_string_equal(l[0].ipv4[1], "192.0.2.112");
	assert_int_equal(l[1].kind, NETIF_KIND_OTHER);
	assert_string_equal(l[1].port, "");
	assert_int_equal(l[1].n_ipv4, 0);
	assert_string_equal(l[2].port, "USB 10/100/1000 LAN");
	assert_int_equal(l[2].n_ipv4, 0);
	assert_string_equal(l[3].port, "iPhone USB");
	scenario_free(s);
	s = parse_ok(LAN("[]"));
	assert_int_equal(s->nodes[0].n_lan, 0);
	scenario_free(s);
}

static const struct bad bad[] = {
	{ "", "line 1, column 1: not valid JSON" },
	{ "{\"cluster\": \"c\",\n  \"nodes\": [}", "line 2, column 13: not valid JSON" },
	{ "{} x", "line 1, column 4: unexpected text after the JSON value" },
	{ "[]", "the scenario must be a JSON object" },
	{ "{\"cluster\": \"c\", \"node\": []}", "scenario: unknown key \"node\"" },
	{ "{\"cluster\": \"c\", \"cluster\": \"d\"}", "scenario: key \"cluster\" appears twice" },
	{ "{\"description\": 3}", "description: must be a non-empty string" },
	{ "{\"nodes\": []}", "cluster: missing" },
	{ "{\"cluster\": \"my lab\"}",
	  "cluster: \"my lab\" may hold only letters, digits, '.', '-' and '_'" },
	{ HEAD "\"x\": 1}", "scenario: unknown key \"x\"" },
	{ "{\"cluster\": \"c\"}", "nodes: must be a non-empty array" },
	{ HEAD "\"nodes\": []}", "nodes: must be a non-empty array" },
	{ HEAD "\"nodes\": {}}", "nodes: must be a non-empty array" },
	{ HEAD "\"nodes\": [3]}", "nodes[0]: must be an object" },
	{ HEAD "\"nodes\": [{\"memory_gb\": 1}]}", "nodes[0].name: missing" },
	{ HEAD "\"nodes\": [{\"name\": \"\"}]}", "nodes[0].name: must be a non-empty string" },
	{ HEAD "\"nodes\": [{\"name\": \"mac:1\"}]}",
	  "nodes[0].name: \"mac:1\" may hold only letters, digits, '.', '-' and '_'" },
	{ HEAD "\"nodes\": [{\"name\": \"0123456789012345678901234567890123456789"
	  "012345678901234567890123\"}]}", "nodes[0].name: longer than 63 characters" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1}, {\"name\": \"a\"}]}",
	  "nodes[1].name: \"a\" is used twice (also nodes[0])" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"bridge_activ\": true}]}",
	  "nodes[0]: unknown key \"bridge_activ\"" },
	{ "{\"cluster\": \"c\", \"nodes\": [{\"name\": \"a\", \"memory_gb\": 1}]}",
	  "nodes[0].model: missing (give it in the node or in defaults)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"chip\": 3}]}",
	  "nodes[0].chip: must be a non-empty string" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"os_build\": \"a\\tb\"}]}",
	  "nodes[0].os_build: contains a control character" },
	{ HEAD "\"nodes\": [{\"name\": \"a\"}]}",
	  "nodes[0].memory_gb: missing (give it in the node or in defaults)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1}, {\"name\": \"b\", \"memory_gb\": 0}]}",
	  "nodes[1].memory_gb: must be a positive number (GiB, at most 65536)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": \"512\"}]}",
	  "nodes[0].memory_gb: must be a positive number (GiB, at most 65536)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1e9}]}",
	  "nodes[0].memory_gb: must be a positive number (GiB, at most 65536)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"receptacles\": 17}]}",
	  "nodes[0].receptacles: must be an integer from 1 to 16" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"receptacles\": 2.5}]}",
	  "nodes[0].receptacles: must be an integer from 1 to 16" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"rdma\": \"yes\"}]}",
	  "nodes[0].rdma: must be true or false" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"unreachable\": 1}]}",
	  "nodes[0].unreachable: must be true or false" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"memory_load\": 1.5}]}",
	  "nodes[0].memory_load: must be a number from 0 to 0.95" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"power_watts\": 0}]}",
	  "nodes[0].power_watts: must be a positive number (watts, at most 100000)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"boot_time\": -1}]}",
	  "nodes[0].boot_time: must be unix seconds from 0 to 4102444800" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"gpu_wired_limit_mb\": -5}]}",
	  "nodes[0].gpu_wired_limit_mb: must be an integer from 0 (system default) to 67108864" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"gpu_wired_limit_mb\": 2048}]}",
	  "nodes[0].gpu_wired_limit_mb: 2048 MB is more than the node's 1 GB" },
	{ "{\"cluster\": \"c\", \"defaults\": {\"name\": \"x\"}, \"nodes\": [{}]}",
	  "defaults: unknown key \"name\"" },
	{ "{\"cluster\": \"c\", \"defaults\": [], \"nodes\": [{}]}", "defaults: must be an object" },
	{ "{\"cluster\": \"c\", \"defaults\": {\"model\": \"M\", \"chip\": \"C\", "
	  "\"os_version\": \"26.2\", \"os_build\": \"25C56\", \"memory_gb\": -1}, "
	  "\"nodes\": [{\"name\": \"a\"}]}",
	  "defaults.memory_gb: must be a positive number (GiB, at most 65536)" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"receptacles\": 2, "
	  "\"interfaces\": [\"en2\"]}]}",
	  "nodes[0].interfaces: must be an array of 2 interface names, one per receptacle" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"receptacles\": 2, "
	  "\"interfaces\": [\"en2\", \"eth 0\"]}]}",
	  "nodes[0].interfaces[1]: \"eth 0\" is not an interface name like \"en3\"" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"receptacles\": 2, "
	  "\"interfaces\": [\"en2\", \"en2\"]}]}",
	  "nodes[0].interfaces[1]: \"en2\" is used twice" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, \"serial\": \"H7 XQ\"}]}",
	  "nodes[0].serial: \"H7 XQ\" may hold only letters, digits, '.', '-' and '_'" },
	{ HEAD "\"nodes\": [{\"name\": \"a\", \"memory_gb\": 1, "
	  "\"hardware_uuid\": \"4c1d6a0e-0000-5000-8000-1a2b3c4d5e6f\"}]}",
	  "nodes[0].hardware_uuid: must be an uppercase UUID like "
	  "\"4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F\"" },
	{ TWO ", \"cables\": {}}", "cables: must be an array" },
	{ TWO ", \"cables\": [[]]}", "cables[0]: must be an object" },
	{ TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:1\", \"speed\": 80}]}",
	  "cables[0]: unknown key \"speed\"" },
	{ TWO ", \"cables\": [{\"a\": \"mac1:1\"}]}", "cables[0].b: missing" },
	{ CABLE("\"mac1\"", "\"mac2:2\""), "cables[1].a: must be \"node:receptacle\", like \"mac1:2\"" },
	{ CABLE("\":2\"", "\"mac2:2\""), "cables[1].a: must be \"node:receptacle\", like \"mac1:2\"" },
	{ CABLE("2", "\"mac2:2\""), "cables[1].a: must be \"node:receptacle\", like \"mac1:2\"" },
	{ CABLE("\"mac1:x\"", "\"mac2:2\""), "cables[1].a: \"x\" is not a receptacle number" },
	{ CABLE("\"mac1:\"", "\"mac2:2\""), "cables[1].a: \"\" is not a receptacle number" },
	{ CABLE("\"mac1:2\"", "\"mac9:2\""), "cables[1].b: node \"mac9\" is not in nodes" },
	{ CABLE("\"mac1:2\"", "\"mac2:7\""), "cables[1].b: receptacle 7 is out of range 1..6 for mac2" },
	{ CABLE("\"mac1:0\"", "\"mac2:2\""), "cables[1].a: receptacle 0 is out of range 1..6 for mac1" },
	{ CABLE("\"mac1:2\"", "\"mac1:3\""), "cables[1]: connects mac1 to itself" },
	{ CABLE("\"mac1:1\"", "\"mac2:2\""), "cables[1]: mac1 receptacle 1 is used twice (also in cables[0])" },
	{ CABLE("\"mac1:2\"", "\"mac2:tb1\""), "cables[1]: mac2 receptacle 1 is used twice (also in cables[0])" },
	{ TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:1\", \"speed_gbps\": 0}]}",
	  "cables[0].speed_gbps: must be a positive number (Gb/s, at most 1000)" },
	{ TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:1\", \"speed_gbps\": \"80\"}]}",
	  "cables[0].speed_gbps: must be a positive number (Gb/s, at most 1000)" },
	{ TWO ", \"cables\": [{\"a\": \"mac1:1\", \"b\": \"mac2:1\", \"speed_gbps\": 1200}]}",
	  "cables[0].speed_gbps: must be a positive number (Gb/s, at most 1000)" },
	{ TWO ", \"ports\": 1}", "ports: must be an array" },
	{ PORT("{\"port\": \"mac1:1\", \"down\": true}"), "ports[0]: unknown key \"down\"" },
	{ PORT("{\"ipv4\": false}"), "ports[0].port: missing" },
	{ PORT("{\"port\": \"mac3:1\"}"), "ports[0].port: node \"mac3\" is not in nodes" },
	{ PORT("{\"port\": \"mac1:9\"}"), "ports[0].port: receptacle 9 is out of range 1..6 for mac1" },
	{ PORT("{\"port\": \"mac1:1\"}, {\"port\": \"mac1:tb1\"}"),
	  "ports[1]: mac1 receptacle 1 is listed twice in ports" },
	{ PORT("{\"port\": \"mac1:2\", \"port_down\": true}"),
	  "ports[0].port_down: mac1 receptacle 2 has no cable" },
	{ PORT("{\"port\": \"mac1:1\", \"port_down\": 1}"), "ports[0].port_down: must be true or false" },
	{ PORT("{\"port\": \"mac1:2\", \"reports_empty\": true}"),
	  "ports[0].reports_empty: mac1 receptacle 2 has no cable" },
	{ PORT("{\"port\": \"mac1:2\", \"hub\": \"CalDigit TS4\"}"),
	  "ports[0].hub: mac1 receptacle 2 has no cable" },
	{ PORT("{\"port\": \"mac1:1\", \"hub\": true}"),
	  "ports[0].hub: must be a name of 1 to 63 characters" },
	{ PORT("{\"port\": \"mac1:1\", \"hub\": \"\"}"),
	  "ports[0].hub: must be a name of 1 to 63 characters" },
	{ PORT("{\"port\": \"mac1:1\", \"ipv4\": \"10.0.0.1\"}"),
	  "ports[0].ipv4: must be true, false or an array of at most 8 IPv4 addresses" },
	{ PORT("{\"port\": \"mac1:1\", \"ipv4\": [\"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", "
	  "\"8\", \"9\"]}"),
	  "ports[0].ipv4: must be true, false or an array of at most 8 IPv4 addresses" },
	{ PORT("{\"port\": \"mac1:1\", \"ipv4\": [\"10.0.0.1\", \"300.1.1.1\"]}"),
	  "ports[0].ipv4[1]: must be an IPv4 address like \"169.254.10.2\"" },
	{ PORT("{\"port\": \"mac1:1\", \"ipv4\": [\"fe80::1\"]}"),
	  "ports[0].ipv4[0]: must be an IPv4 address like \"169.254.10.2\"" },
	{ "{\"cluster\": \"c\", \"defaults\": {\"lan\": []}}", "defaults: unknown key \"lan\"" },
	{ LAN("\"en0\""), "nodes[0].lan: must be an object or an array of at most 16" },
	{ LAN("[{\"interface\": \"en0\"}, 3]"), "nodes[0].lan[1]: must be an object" },
	{ LAN("{\"kind\": \"wifi\"}"), "nodes[0].lan.interface: missing" },
	{ LAN("{\"interface\": \"en0\", \"mtu\": 1500}"), "nodes[0].lan: unknown key \"mtu\"" },
	{ LAN("{\"interface\": \"EN0\"}"),
	  "nodes[0].lan.interface: \"EN0\" is not an interface name like \"en0\"" },
	{ LAN("{\"interface\": \"\"}"), "nodes[0].lan.interface: must be a non-empty string" },
	{ LAN("{\"interface\": \"en3\"}"),
	  "nodes[0].lan.interface: \"en3\" is receptacle 2's Thunderbolt interface" },
	{ LAN("[{\"interface\": \"en0\"}, {\"interface\": \"en0\", \"kind\": \"wifi\"}]"),
	  "nodes[0].lan[1].interface: \"en0\" is used twice" },
	{ LAN("{\"interface\": \"en0\", \"kind\": \"wired\"}"),
	  "nodes[0].lan.kind: must be \"ethernet\", \"wifi\" or \"other\"" },
	{ LAN("{\"interface\": \"en0\", \"kind\": null}"),
	  "nodes[0].lan.kind: must be \"ethernet\", \"wifi\" or \"other\"" },
	{ LAN("{\"interface\": \"en0\", \"port\": \"\"}"),
	  "nodes[0].lan.port: must be a non-empty string" },
	{ LAN("{\"interface\": \"en0\", \"ipv4\": \"192.0.2.256\"}"),
	  "nodes[0].lan.ipv4: must be an IPv4 address like \"192.0.2.11\"" },
	{ LAN("{\"interface\": \"en0\", \"ipv4\": [\"192.0.2.1\", 7]}"),
	  "nodes[0].lan.ipv4[1]: must be an IPv4 address like \"192.0.2.11\"" },
	{ LAN("{\"interface\": \"en0\", \"ipv4\": {}}"),
	  "nodes[0].lan.ipv4: must be an IPv4 address or an array of at most 8" },
	{ LAN("{\"interface\": \"en0\", \"ipv4\": [\"1.1.1.1\", \"1.1.1.2\", \"1.1.1.3\", "
	  "\"1.1.1.4\", \"1.1.1.5\", \"1.1.1.6\", \"1.1.1.7\", \"1.1.1.8\", \"1.1.1.9\"]}"),
	  "nodes[0].lan.ipv4: must be an IPv4 address or an array of at most 8" },
	{ LAN("[{\"interface\": \"en0\"}, {\"interface\": \"en1\"}, {\"interface\": \"en8\"}, "
	  "{\"interface\": \"en9\"}, {\"interface\": \"en10\"}, {\"interface\": \"en11\"}, "
	  "{\"interface\": \"en12\"}, {\"interface\": \"en13\"}, {\"interface\": \"en14\"}, "
	  "{\"interface\": \"en15\"}, {\"interface\": \"en16\"}, {\"interface\": \"en17\"}, "
	  "{\"interface\": \"en18\"}, {\"interface\": \"en19\"}, {\"interface\": \"en20\"}, "
	  "{\"interface\": \"en21\"}, {\"interface\": \"en22\"}]"),
	  "nodes[0].lan: must be an object or an array of at most 16" },
};

static void
test_validation_errors(void **state)
{
	(void)state;
	char err[512];
	int failed = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scenario *s;
		memset(err, 'x', sizeof(err));
		s = scenario_parse(bad[i].json, strlen(bad[i].json), err, sizeof(err));
		if (s != NULL) {
			print_error("case %zu parsed, wanted \"%s\"\n", i, bad[i].err);
			scenario_free(s);
			failed++;
		} else if (strcmp(err, bad[i].err) != 0) {
			print_error("case %zu:\n  got  %s\n  want %s\n", i, err, bad[i].err);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

static void
test_error_edges(void **state)
{
	(void)state;
	char err[128], *big;

	assert_null(scenario_parse("[]", 2, err, 8));
	assert_string_equal(err, "the sce");
	assert_null(scenario_parse("[]", 2, NULL, 0));
	/* Too large, before any parsing. */
	big = malloc(SCENARIO_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', SCENARIO_FILE_MAX + 1);
	big[SCENARIO_FILE_MAX + 1] = '\0';
	assert_null(scenario_parse(big, SCENARIO_FILE_MAX + 1, err, sizeof(err)));
	assert_string_equal(err, "larger than 1048576 bytes");
	/* A description longer than SCENARIO_DESC_MAX. */
	int len = snprintf(big, SCENARIO_FILE_MAX, "{\"description\": \"");
	memset(big + len, 'd', SCENARIO_DESC_MAX + 1);
	snprintf(big + len + SCENARIO_DESC_MAX + 1, 64, "\", \"cluster\": \"c\"}");
	assert_null(scenario_parse(big, strlen(big), err, sizeof(err)));
	assert_string_equal(err, "description: longer than 1023 characters");
	free(big);
}

static void
test_load_errors(void **state)
{
	(void)state;
	char err[512];

	assert_null(scenario_load("/nonexistent/s.json", err, sizeof(err)));
	assert_string_equal(err, "/nonexistent/s.json: No such file or directory");
	assert_null(scenario_load("/", err, sizeof(err)));
	assert_memory_equal(err, "/: ", 3);
}

/*
 * The healthy clusters give every node a LAN address; every LAN address
 * shipped is in 192.0.2.0/24 (RFC 5737, documentation only) and unique in
 * its file, so that nobody takes them for real hosts.
 */
static void
assert_lan_documentation(const struct scenario *s, const char *file)
{
	static const char *const healthy[] = { "mesh4-studio.json", "mesh7-studio.json",
		"pair-studio.json", "ring5.json" };
	int need = 0;

	for (size_t i = 0; i < sizeof(healthy) / sizeof(healthy[0]); i++)
		need |= strcmp(file, healthy[i]) == 0;
	for (int i = 0; i < s->n_nodes; i++) {
		const struct scenario_node *n = &s->nodes[i];
		if (need && n->n_lan < 1)
			fail_msg("%s: %s has no \"lan\"", file, n->name);
		for (int k = 0; k < n->n_lan; k++) {
			for (int a = 0; a < n->lan[k].n_ipv4; a++) {
				const char *ip = n->lan[k].ipv4[a];
				if (strncmp(ip, "192.0.2.", 8) != 0)
					fail_msg("%s: %s has %s, not a 192.0.2.0/24 address", file,
					    n->name, ip);
				for (int j = 0; j < i; j++)
					for (int kk = 0; kk < s->nodes[j].n_lan; kk++)
						for (int b = 0; b < s->nodes[j].lan[kk].n_ipv4; b++)
							if (strcmp(ip, s->nodes[j].lan[kk].ipv4[b]) == 0)
								fail_msg("%s: %s twice", file, ip);
			}
		}
	}
}

/* Every shipped scenario loads and describes itself. */
static void
test_load_shipped_scenarios(void **state)
{
	(void)state;
	char dir[4096], path[4200], err[512];
	struct dirent *de;
	int count = 0;
	DIR *d = opendir(top_path("tests/scenarios", dir, sizeof(dir)));

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct scenario *s = scenario_load(path, err, sizeof(err));
		if (s == NULL)
			fail_msg("%s", err);
		assert_true(strlen(s->description) > 20);
		assert_true(s->n_nodes >= 2);
		assert_lan_documentation(s, de->d_name);
		scenario_free(s);
		count++;
	}
	closedir(d);
	assert_true(count >= 12);
}

static void
test_mesh7_uses_every_receptacle(void **state)
{
	(void)state;
	char path[4096], err[512];
	struct scenario *s = scenario_load(top_path("tests/scenarios/mesh7-studio.json", path,
	    sizeof(path)), err, sizeof(err));

	if (s == NULL)
		fail_msg("%s", err);
	assert_int_equal(s->n_nodes, 7);
	assert_int_equal(s->n_cables, 21);
	for (int i = 0; i < 7; i++) {
		int peers = 0;
		for (int r = 0; r < 6; r++) {
			assert_true(s->nodes[i].ports[r].cable >= 0);
			peers |= 1 << s->nodes[i].ports[r].peer_node;
		}
		assert_int_equal(peers, 0x7f & ~(1 << i));
	}
	scenario_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_node_overrides_defaults),
		cmocka_unit_test(test_cables_resolve_both_ends),
		cmocka_unit_test(test_derived_values_are_deterministic),
		cmocka_unit_test(test_port_faults),
		cmocka_unit_test(test_port_hub),
		cmocka_unit_test(test_node_limit),
		cmocka_unit_test(test_lan),
		cmocka_unit_test(test_validation_errors),
		cmocka_unit_test(test_error_edges),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_shipped_scenarios),
		cmocka_unit_test(test_mesh7_uses_every_receptacle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
