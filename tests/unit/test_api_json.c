/*
 * api_json: exact round trips of every API object (with every field set
 * and with every field null); the embedded report; request bodies, valid
 * and refused (each error must name the field); size limits; malformed and
 * truncated JSON for every decoder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_json.h"
#include "report.h"

#define LEN(s) (s), strlen(s)
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_RULE " is not a valid name (1 to 63 letters, digits, '.', " \
	"'_' or '-', not starting with '.' or '-')"

/* Input that a decoder refuses, and the message it must give. */
struct bad {
	const char *json, *err;
};

/* A string of n copies of c, in a static buffer (one at a time). */
static const char *
repeat(char c, size_t n)
{
	static char buf[320];

	assert_true(n < sizeof(buf));
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

static void
fill_node(struct api_node *n, const char *name, enum node_state st)
{
	memset(n, 0, sizeof(*n));
	strcpy(n->name, name);
	strcpy(n->cluster, "studio");
	n->state = st;
	strcpy(n->reason, "fan \"noise\"\n");
	n->unexpected_reboot = 1;
	strcpy(n->hardware_uuid, "5E3B8A2C-0000-4000-8000-00000000000A");
	strcpy(n->serial, "C02XYZ");
	strcpy(n->model, "Mac15,14");
	strcpy(n->chip, "Apple M3 Ultra");
	strcpy(n->os_version, "26.2");
	strcpy(n->os_build, "25C56");
	n->rdma = RDMA_STATE_ENABLED;
	n->memory_total_bytes = INT64_C(549755813888);
	n->memory_used_bytes = (INT64_C(1) << 53) + 16;
	n->power_watts = 123.456;
	n->last_report_at = 1767225600.125;
	n->enrolled_at = 0.1;
}

static void
null_node(struct api_node *n, const char *name)
{
	memset(n, 0, sizeof(*n));
	strcpy(n->name, name);
	n->state = NODE_PENDING;
	n->rdma = RDMA_STATE_UNKNOWN;
	n->memory_total_bytes = REPORT_NULL_I64;
	n->memory_used_bytes = REPORT_NULL_I64;
	n->power_watts = NAN;
	n->last_report_at = NAN;
	n->enrolled_at = NAN;
}

static void
test_node_layout(void **state)
{
	struct api_node n;
	char *s;

	(void)state;
	fill_node(&n, "mac1", NODE_CORDONED);
	s = api_json_node(&n, NULL);
	assert_non_null(s);
	assert_string_equal(s, "{\"name\":\"mac1\",\"cluster\":\"studio\","
	    "\"state\":\"cordoned\",\"reason\":\"fan \\\"noise\\\"\\n\","
	    "\"unexpected_reboot\":true,"
	    "\"hardware_uuid\":\"5E3B8A2C-0000-4000-8000-00000000000A\","
	    "\"serial\":\"C02XYZ\",\"model\":\"Mac15,14\","
	    "\"chip\":\"Apple M3 Ultra\",\"os_version\":\"26.2\","
	    "\"os_build\":\"25C56\",\"rdma\":\"enabled\","
	    "\"memory_total_bytes\":549755813888,"
	    "\"memory_used_bytes\":9007199254741008,\"power_watts\":123.456,"
	    "\"last_report_at\":1767225600.125,\"enrolled_at\":0.1}");
	free(s);
	null_node(&n, "mac2");
	s = api_json_node(&n, NULL);
	assert_string_equal(s, "{\"name\":\"mac2\",\"cluster\":null,"
	    "\"state\":\"pending\",\"reason\":null,\"unexpected_reboot\":false,"
	    "\"hardware_uuid\":null,\"serial\":null,\"model\":null,"
	    "\"chip\":null,\"os_version\":null,\"os_build\":null,"
	    "\"rdma\":\"unknown\",\"memory_total_bytes\":null,"
	    "\"memory_used_bytes\":null,\"power_watts\":null,"
	    "\"last_report_at\":null,\"enrolled_at\":null}");
	free(s);
}

static void
node_round_trip(const struct api_node *n)
{
	struct api_node got;
	char err[256], *s = api_json_node(n, NULL);

	assert_non_null(s);
	memset(&got, 0x5a, sizeof(got));
	assert_int_equal(api_json_decode_node(LEN(s), &got, err, sizeof(err)),
	    0);
	assert_string_equal(err, "");
	assert_memory_equal(&got, n, sizeof(got));
	free(s);
}

static void
test_node_round_trip(void **state)
{
	struct api_node n;
	enum node_state st;

	(void)state;
	for (st = NODE_PENDING; st < NODE_STATE_COUNT; st++) {
		fill_node(&n, "mac1", st);
		node_round_trip(&n);
	}
	null_node(&n, "mac2");
	node_round_trip(&n);
	fill_node(&n, repeat('z', 63), NODE_READY);
	strcpy(n.reason, repeat('r', 255));
	n.rdma = RDMA_STATE_DISABLED;
	n.memory_total_bytes = 0;
	n.power_watts = 0;
	node_round_trip(&n);
}

static void
test_node_with_report(void **state)
{
	struct report *r = report_new(), *got = report_new();
	struct api_node n, dn;
	char err[256], *rj, *s, *ex = NULL;

	(void)state;
	REPORT_SET(r->node.hostname, "mac1");
	r->collected_at = 1767225600;
	r->memory.total_bytes = INT64_C(1) << 56;
	rj = report_encode(r, 1);
	fill_node(&n, "mac1", NODE_READY);
	s = api_json_node(&n, rj);
	assert_non_null(strstr(s, ",\"enrolled_at\":0.1,\"report\":{"));
	assert_int_equal(api_json_decode_node(LEN(s), &dn, err, sizeof(err)), 0);
	assert_memory_equal(&dn, &n, sizeof(n));
	assert_int_equal(api_json_extract(LEN(s), "report", &ex), 0);
	assert_int_equal(report_decode(LEN(ex), got, err, sizeof(err)), 0);
	assert_memory_equal(got, r, sizeof(*r));
	free(ex);
	assert_int_equal(api_json_extract(LEN(s), "ports", &ex), 1);
	assert_null(ex);
	assert_int_equal(api_json_extract(LEN("{\"report\":null}"), "report",
	    &ex), 1);
	assert_int_equal(api_json_extract(LEN("{\"name\":\"x\"}"), "name", &ex),
	    0);
	assert_string_equal(ex, "\"x\"");
	free(ex);
	assert_int_equal(api_json_extract(LEN("[1]"), "report", &ex), -1);
	assert_int_equal(api_json_extract(LEN("{\"report\":"), "report", &ex),
	    -1);
	free(s);
	s = api_json_node(&n, "");
	assert_null(strstr(s, "\"report\""));
	free(s);
	free(rj);
	free(r);
	free(got);
}

static void
test_nodes_list(void **state)
{
	struct api_node n[3], *got = NULL;
	char err[256], *s;
	int count = -1;

	(void)state;
	fill_node(&n[0], "mac1", NODE_READY);
	null_node(&n[1], "mac2");
	fill_node(&n[2], "mac3", NODE_DOWN);
	memset(n[2].cluster, 0, sizeof(n[2].cluster));
	s = api_json_nodes(n, 3);
	assert_int_equal(strncmp(s, "{\"nodes\":[{\"name\":\"mac1\",",
	    strlen("{\"nodes\":[{\"name\":\"mac1\",")), 0);
	assert_int_equal(api_json_decode_nodes(LEN(s), &got, &count, err,
	    sizeof(err)), 0);
	assert_int_equal(count, 3);
	assert_memory_equal(got, n, sizeof(n));
	free(got);
	free(s);
	s = api_json_nodes(NULL, 0);
	assert_string_equal(s, "{\"nodes\":[]}");
	assert_int_equal(api_json_decode_nodes(LEN(s), &got, &count, err,
	    sizeof(err)), 0);
	assert_int_equal(count, 0);
	assert_non_null(got);
	free(got);
	free(s);
}

static void
test_events(void **state)
{
	struct api_event ev[2], *got;
	char err[256], *s;
	int count;

	(void)state;
	memset(ev, 0, sizeof(ev));
	ev[0].id = INT64_C(1) << 53;
	ev[0].time = 1767225600.5;
	strcpy(ev[0].actor, "admin:0123456789ab");
	strcpy(ev[0].node, "mac1");
	strcpy(ev[0].what, "cordoned");
	strcpy(ev[0].reason, "maintenance");
	ev[1].id = 1;
	ev[1].time = NAN;
	strcpy(ev[1].actor, "controller");
	strcpy(ev[1].what, "state ready -> unreachable");
	s = api_json_events(ev, 2);
	assert_string_equal(s, "{\"events\":[{\"id\":9007199254740992,"
	    "\"time\":1767225600.5,\"actor\":\"admin:0123456789ab\","
	    "\"node\":\"mac1\",\"what\":\"cordoned\",\"reason\":\"maintenance\"},"
	    "{\"id\":1,\"time\":null,\"actor\":\"controller\",\"node\":null,"
	    "\"what\":\"state ready -> unreachable\",\"reason\":null}]}");
	assert_int_equal(api_json_decode_events(LEN(s), &got, &count, err,
	    sizeof(err)), 0);
	assert_int_equal(count, 2);
	assert_memory_equal(got, ev, sizeof(ev));
	free(got);
	free(s);
}

static void
fill_token(struct api_token *t, const char *id, enum token_role role)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->id, id);
	t->role = role;
	t->created_at = 1767225600;
	t->expires_at = NAN;
	t->used_at = NAN;
}

static void
test_tokens(void **state)
{
	struct api_token t[2], one, *got;
	char err[256], secret[API_TOKEN_MAX + 1], *s;
	int count;

	(void)state;
	fill_token(&t[0], "0123456789ab", ROLE_BOOTSTRAP);
	strcpy(t[0].cluster, "studio");
	strcpy(t[0].label, "rack 2");
	t[0].expires_at = 1767229200;
	t[0].used_at = 1767225700.25;
	fill_token(&t[1], "ba9876543210", ROLE_NODE);
	strcpy(t[1].node, "mac1");
	t[1].revoked = 1;
	s = api_json_token(&t[0], "tbm_0123456789ab_secret");
	assert_non_null(strstr(s, ",\"revoked\":false,\"accept\":false,"
	    "\"pending\":false,\"token\":\"tbm_0123456789ab_secret\"}"));
	assert_int_equal(api_json_decode_token(LEN(s), &one, secret,
	    sizeof(secret), err, sizeof(err)), 0);
	assert_memory_equal(&one, &t[0], sizeof(one));
	assert_string_equal(secret, "tbm_0123456789ab_secret");
	free(s);
	s = api_json_token(&t[1], NULL);
	assert_null(strstr(s, "\"token\""));
	assert_int_equal(api_json_decode_token(LEN(s), &one, secret,
	    sizeof(secret), err, sizeof(err)), 0);
	assert_string_equal(secret, "");
	assert_memory_equal(&one, &t[1], sizeof(one));
	free(s);
	s = api_json_tokens(t, 2);
	assert_null(strstr(s, "\"token\""));
	assert_non_null(strstr(s, "\"role\":\"node\""));
	assert_int_equal(api_json_decode_tokens(LEN(s), &got, &count, err,
	    sizeof(err)), 0);
	assert_int_equal(count, 2);
	assert_memory_equal(got, t, sizeof(t));
	free(got);
	free(s);
}

static void
request_round_trip(const struct api_token_request *req)
{
	struct api_token_request got;
	char err[256], *s = api_json_token_request(req);

	assert_non_null(s);
	memset(&got, 0x5a, sizeof(got));
	assert_int_equal(api_json_decode_token_request(LEN(s), &got, err,
	    sizeof(err)), 0);
	assert_memory_equal(&got, req, sizeof(got));
	free(s);
}

static void
test_token_request_valid(void **state)
{
	struct api_token_request req, got;
	char err[256], *s;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.role = ROLE_ADMIN;
	req.ttl_seconds = NAN;
	s = api_json_token_request(&req);
	assert_string_equal(s, "{\"role\":\"admin\",\"ttl_seconds\":null,"
	    "\"cluster\":null,\"label\":null}");
	free(s);
	request_round_trip(&req);
	req.role = ROLE_BOOTSTRAP;
	req.ttl_seconds = 3600;
	strcpy(req.cluster, "studio");
	strcpy(req.label, repeat('l', 255));
	request_round_trip(&req);
	req.role = ROLE_VIEWER;
	req.ttl_seconds = 0.5;
	memset(req.cluster, 0, sizeof(req.cluster));
	request_round_trip(&req);
	/* a key it does not know is refused, not ignored */
	assert_int_equal(api_json_decode_token_request(LEN("{\"role\":\"viewer\","
	    "\"cluster\":\"\",\"label\":\"\",\"extra\":[1]}"), &got, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "extra: not a field of a token request (role, ttl_seconds, "
	    "cluster, accept, label)");
	assert_int_equal(api_json_decode_token_request(LEN("{\"role\":\"viewer\","
	    "\"cluster\":\"\",\"label\":\"\"}"), &got, err, sizeof(err)), 0);
	assert_int_equal(got.role, ROLE_VIEWER);
	assert_true(isnan(got.ttl_seconds));
	assert_string_equal(got.cluster, "");
	assert_string_equal(got.label, "");
}

static void
test_token_request_invalid(void **state)
{
	static const struct bad cases[] = {
		{ "{}", "role: missing (\"admin\", \"viewer\" or \"bootstrap\")" },
		{ "{\"role\":null}", "role: missing (\"admin\", \"viewer\" or "
		    "\"bootstrap\")" },
		{ "{\"role\":5}", "role: must be a string" },
		{ "{\"role\":\"root\"}", "role: \"root\" is not a role" },
		{ "{\"role\":\"node\"}", "role: node tokens are only issued at "
		    "enrolment" },
		{ "{\"role\":\"bootstrap\"}", "ttl_seconds: a bootstrap token "
		    "needs a time to live" },
		{ "{\"role\":\"bootstrap\",\"ttl_seconds\":null}", "ttl_seconds: "
		    "a bootstrap token needs a time to live" },
		{ "{\"role\":\"admin\",\"ttl_seconds\":0}", "ttl_seconds: must "
		    "be a positive number or null" },
		{ "{\"role\":\"admin\",\"ttl_seconds\":-60}", "ttl_seconds: must "
		    "be a positive number or null" },
		{ "{\"role\":\"admin\",\"ttl_seconds\":\"3600\"}", "ttl_seconds: "
		    "must be a positive number or null" },
		{ "{\"role\":\"admin\",\"ttl_seconds\":1e12}", "ttl_seconds: "
		    "1e+12 is over the limit of 3.1536e+09 (100 years)" },
		{ "{\"role\":\"bootstrap\",\"ttl_seconds\":60,\"cluster\":"
		    "\"-x\"}", "cluster: \"-x\"" NAME_RULE },
		{ "{\"role\":\"admin\",\"cluster\":7}", "cluster: must be a "
		    "string or null" },
		/* admin and viewer tokens see every cluster: none is named */
		{ "{\"role\":\"admin\",\"cluster\":\"studio4\"}", "cluster: only a "
		    "bootstrap token names a cluster (admin and viewer tokens see "
		    "every cluster)" },
		{ "{\"role\":\"viewer\",\"ttl_seconds\":60,\"cluster\":\"studio4\"}",
		    "cluster: only a bootstrap token names a cluster (admin and viewer "
		    "tokens see every cluster)" },
		{ "{\"role\":\"admin\",\"label\":true}", "label: must be a "
		    "string or null" },
		{ "[]", "the top level must be a JSON object" },
		{ "{\"role\":\"admin\"", "invalid JSON near byte 14 of 15" },
		{ "{\"role\":\"admin\"} x", "unexpected data after the JSON "
		    "value at byte 16" },
	};
	struct api_token_request got;
	char err[256], json[512];
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		assert_int_equal(api_json_decode_token_request(LEN(cases[i].json),
		    &got, err, sizeof(err)), -1);
		assert_string_equal(err, cases[i].err);
	}
	snprintf(json, sizeof(json), "{\"role\":\"admin\",\"cluster\":\"%s\"}",
	    repeat('c', 64));
	assert_int_equal(api_json_decode_token_request(LEN(json), &got, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "cluster: longer than 63 bytes");
	snprintf(json, sizeof(json), "{\"role\":\"admin\",\"label\":\"%s\"}",
	    repeat('l', 256));
	assert_int_equal(api_json_decode_token_request(LEN(json), &got, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "label: longer than 255 bytes");
}

static void
test_clusters(void **state)
{
	struct api_cluster c[2], one, *got;
	char err[256], *s;
	int count;

	(void)state;
	memset(c, 0, sizeof(c));
	strcpy(c[0].name, "studio");
	c[0].n_nodes = 4;
	c[0].created_at = 1767225600;
	c[0].allow.n = 2;
	strcpy(c[0].allow.v[0], "C02XK0ABCDEF");
	strcpy(c[0].allow.v[1], "H9XK2J4F7Q");
	strcpy(c[1].name, "empty");
	c[1].created_at = NAN;
	s = api_json_cluster(&c[0]);
	assert_string_equal(s, "{\"name\":\"studio\",\"nodes\":4,"
	    "\"created_at\":1767225600,\"allow\":[\"C02XK0ABCDEF\",\"H9XK2J4F7Q\"]}");
	assert_int_equal(api_json_decode_cluster(LEN(s), &one, err,
	    sizeof(err)), 0);
	assert_memory_equal(&one, &c[0], sizeof(one));
	free(s);
	s = api_json_clusters(c, 2);
	assert_int_equal(api_json_decode_clusters(LEN(s), &got, &count, err,
	    sizeof(err)), 0);
	assert_int_equal(count, 2);
	assert_memory_equal(got, c, sizeof(c));
	free(got);
	free(s);
	assert_int_equal(api_json_decode_clusters(LEN("{\"clusters\":[{\"name\":"
	    "\"a\",\"nodes\":-1}]}"), &got, &count, err, sizeof(err)), -1);
	assert_string_equal(err, "clusters[0].nodes: -1 is out of range "
	    "0..1000000000");
	assert_null(got);
	assert_int_equal(api_json_decode_cluster(LEN("{\"name\":\"a\","
	    "\"allow\":[\"ok\",\"bad serial\"]}"), &one, err, sizeof(err)), -1);
	assert_string_equal(err, "allow[1]: \"bad serial\" is not a valid name "
	    "(1 to 63 letters, digits, '.', '_' or '-', not starting with '.' or '-')");
	assert_int_equal(count, 0);
	assert_int_equal(api_json_decode_clusters(LEN("{\"clusters\":[{\"name\":"
	    "\"a\",\"nodes\":1.5}]}"), &got, &count, err, sizeof(err)), -1);
	assert_string_equal(err, "clusters[0].nodes: 1.5 is not an integer");
}

static void
test_enrolled(void **state)
{
	struct api_enrolled e, got;
	char err[256], *s;

	(void)state;
	memset(&e, 0, sizeof(e));
	strcpy(e.node, "mac1");
	strcpy(e.token, "tbm_0123456789ab_");
	strcat(e.token, repeat('s', 43));
	s = api_json_enrolled(&e);
	assert_int_equal(api_json_decode_enrolled(LEN(s), &got, err,
	    sizeof(err)), 0);
	assert_memory_equal(&got, &e, sizeof(e));
	free(s);
	assert_int_equal(api_json_decode_enrolled(LEN("{\"node\":\"mac1\"}"),
	    &got, err, sizeof(err)), -1);
	assert_string_equal(err, "token: missing");
	assert_int_equal(api_json_decode_enrolled(LEN("{\"node\":null,"
	    "\"token\":\"t\"}"), &got, err, sizeof(err)), -1);
	assert_string_equal(err, "node: must not be null");
}

static void
test_reason(void **state)
{
	char err[256], reason[API_REASON_MAX + 1], small[8], json[512], *s;

	(void)state;
	s = api_json_reason("fan \"noise\"");
	assert_string_equal(s, "{\"reason\":\"fan \\\"noise\\\"\"}");
	assert_int_equal(api_json_decode_reason(LEN(s), reason, sizeof(reason),
	    err, sizeof(err)), 0);
	assert_string_equal(reason, "fan \"noise\"");
	free(s);
	/* a reason is logged: no forged log lines */
	assert_int_equal(api_json_decode_reason(LEN("{\"reason\":\"ok\\nfake: line\"}"),
	    reason, sizeof(reason), err, sizeof(err)), -1);
	assert_string_equal(err, "reason: must not contain control characters");
	s = api_json_reason(NULL);
	assert_string_equal(s, "{\"reason\":null}");
	assert_int_equal(api_json_decode_reason(LEN(s), reason, sizeof(reason),
	    err, sizeof(err)), 0);
	assert_string_equal(reason, "");
	free(s);
	assert_int_equal(api_json_decode_reason(LEN("{}"), reason,
	    sizeof(reason), err, sizeof(err)), 0);
	assert_string_equal(reason, "");
	snprintf(json, sizeof(json), "{\"reason\":\"%s\"}", repeat('r', 256));
	assert_int_equal(api_json_decode_reason(LEN(json), reason,
	    sizeof(reason), err, sizeof(err)), -1);
	assert_string_equal(err, "reason: longer than 255 bytes");
	assert_int_equal(api_json_decode_reason(LEN("{\"reason\":\"12345678\"}"),
	    small, sizeof(small), err, sizeof(err)), -1);
	assert_string_equal(err, "reason: longer than 7 bytes");
	assert_int_equal(api_json_decode_reason(LEN("{\"reason\":[\"x\"]}"),
	    reason, sizeof(reason), err, sizeof(err)), -1);
	assert_string_equal(err, "reason: must be a string or null");
}

static void
test_name(void **state)
{
	static const struct bad bad[] = {
		{ "{}", "name: missing" },
		{ "{\"name\":null}", "name: missing" },
		{ "{\"name\":1}", "name: must be a string" },
		{ "{\"name\":\"\"}", "name: \"\"" NAME_RULE },
		{ "{\"name\":\"a b\"}", "name: \"a b\"" NAME_RULE },
	};
	api_name name;
	char err[256], json[512], *s;
	size_t i;

	(void)state;
	s = api_json_name("studio");
	assert_string_equal(s, "{\"name\":\"studio\"}");
	assert_int_equal(api_json_decode_name(LEN(s), name, err, sizeof(err)),
	    0);
	assert_string_equal(name, "studio");
	free(s);
	for (i = 0; i < NELEM(bad); i++) {
		assert_int_equal(api_json_decode_name(LEN(bad[i].json), name, err,
		    sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
	}
	snprintf(json, sizeof(json), "{\"name\":\"%s\"}", repeat('n', 64));
	assert_int_equal(api_json_decode_name(LEN(json), name, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "name: longer than 63 bytes");
}

static void
test_names(void **state)
{
	static const char *const in[] = { "mac1", "mac2", "mac3" };
	static const struct bad bad[] = {
		{ "{}", "nodes: missing" },
		{ "{\"nodes\":\"mac1\"}", "nodes: must be an array of names" },
		{ "{\"nodes\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}",
		    "nodes: more than 4 names" },
		{ "{\"nodes\":[\"a\",2]}", "nodes[1]: must be a string" },
		{ "{\"nodes\":[\"a\",\".b\"]}", "nodes[1]: \".b\"" NAME_RULE },
		{ "{\"nodes\":[\"a\",\"b\",\"a\"]}",
		    "nodes[2]: \"a\" is listed twice" },
	};
	api_name names[4];
	char err[256], *s;
	size_t i;
	int n = -1;

	(void)state;
	s = api_json_names(in, 3);
	assert_string_equal(s, "{\"nodes\":[\"mac1\",\"mac2\",\"mac3\"]}");
	assert_int_equal(api_json_decode_names(LEN(s), names, 4, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(names[i], in[i]);
	free(s);
	assert_int_equal(api_json_decode_names(LEN("{\"nodes\":[]}"), names, 4,
	    &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	for (i = 0; i < NELEM(bad); i++) {
		assert_int_equal(api_json_decode_names(LEN(bad[i].json), names, 4,
		    &n, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
	}
}

static void
test_error_body(void **state)
{
	char msg[64], tiny[5], *s;

	(void)state;
	s = api_json_error("node \"mac1\" not found\n");
	assert_string_equal(s, "{\"error\":\"node \\\"mac1\\\" not found\\n\"}");
	assert_int_equal(api_json_decode_error(LEN(s), msg, sizeof(msg)), 0);
	assert_string_equal(msg, "node \"mac1\" not found\n");
	assert_int_equal(api_json_decode_error(LEN(s), tiny, sizeof(tiny)), 0);
	assert_string_equal(tiny, "node");
	free(s);
	assert_int_equal(api_json_decode_error(LEN("{\"error\":3}"), msg,
	    sizeof(msg)), -1);
	assert_int_equal(api_json_decode_error(LEN("{\"nodes\":[]}"), msg,
	    sizeof(msg)), -1);
	assert_int_equal(api_json_decode_error(LEN("<html>"), msg, sizeof(msg)),
	    -1);
	assert_string_equal(msg, "");
	assert_int_equal(api_json_decode_error(NULL, 0, msg, sizeof(msg)), -1);
	s = api_json_health("0.1.0");
	assert_string_equal(s, "{\"status\":\"ok\",\"version\":\"0.1.0\"}");
	free(s);
}

static void
test_pretty(void **state)
{
	char *s;

	(void)state;
	s = api_json_pretty(LEN("{\"a\":[1,2],\"b\":{\"c\":null}}"));
	assert_string_equal(s, "{\n\t\"a\":\t[1, 2],\n\t\"b\":\t{\n"
	    "\t\t\"c\":\tnull\n\t}\n}");
	free(s);
	s = api_json_pretty(LEN("[true]"));
	assert_non_null(s);
	free(s);
	assert_null(api_json_pretty(LEN("{\"a\":")));
	assert_null(api_json_pretty(LEN("{} {}")));
	assert_null(api_json_pretty(NULL, 0));
}

static void
test_response_errors(void **state)
{
	static const struct bad cases[] = {
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\"},{\"name\":\"b\","
		    "\"state\":\"ready\"},{\"name\":\"c\",\"state\":\"ready\"},"
		    "{\"name\":\"d\",\"state\":\"sleeping\"}]}",
		    "nodes[3].state: \"sleeping\" is not a node state" },
		{ "{\"nodes\":[{\"state\":\"ready\"}]}", "nodes[0].name: missing" },
		{ "{\"nodes\":[{\"name\":\"a\"}]}", "nodes[0].state: missing" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\",\"rdma\":\"on\"}]}",
		    "nodes[0].rdma: \"on\" is not an RDMA state" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\",\"model\":\"\"}]}",
		    "nodes[0].model: empty string (an unknown value is null)" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\","
		    "\"memory_used_bytes\":-1}]}", "nodes[0].memory_used_bytes: "
		    "-1 is out of range 0..72057594037927936" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\","
		    "\"power_watts\":\"5\"}]}", "nodes[0].power_watts: must be a "
		    "number or null" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\","
		    "\"unexpected_reboot\":1}]}", "nodes[0].unexpected_reboot: "
		    "must be true, false or null" },
		{ "{\"nodes\":[{\"name\":\"a\",\"state\":\"ready\","
		    "\"enrolled_at\":1e12}]}", "nodes[0].enrolled_at: 1e+12 is "
		    "out of range 0..1e+11" },
		{ "{\"nodes\":[1]}", "nodes[0]: must be an object" },
		{ "{\"nodes\":{}}", "nodes: must be an array of objects" },
		{ "{\"node\":[]}", "nodes: missing" },
	};
	struct api_node *got;
	struct api_token *toks;
	struct api_event *ev;
	char err[256], json[512];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < NELEM(cases); i++) {
		assert_int_equal(api_json_decode_nodes(LEN(cases[i].json), &got,
		    &n, err, sizeof(err)), -1);
		assert_string_equal(err, cases[i].err);
		assert_null(got);
	}
	snprintf(json, sizeof(json), "{\"tokens\":[{\"id\":\"%s\","
	    "\"role\":\"admin\"}]}", repeat('f', 13));
	assert_int_equal(api_json_decode_tokens(LEN(json), &toks, &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "tokens[0].id: longer than 12 bytes");
	assert_int_equal(api_json_decode_events(LEN("{\"events\":[{\"id\":"
	    "9007199254740994}]}"), &ev, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "events[0].id: 9007199254740994 is out of "
	    "range 0..9007199254740992");
}

/* Every decoder on input that is not a whole JSON object. */
static void
decode_all_fail(const char *json, size_t len)
{
	struct api_node node, *nodes = NULL;
	struct api_event *ev = NULL;
	struct api_token tok, *toks = NULL;
	struct api_token_request req;
	struct api_cluster cl, *cls = NULL;
	struct api_enrolled en;
	api_name name, names[4];
	char err[256], msg[64], reason[64], secret[8], *ex;
	int n;

#define FAILS(call) do { \
	err[0] = 'x'; \
	assert_int_equal((call), -1); \
	assert_true(err[0] != '\0' && err[0] != 'x'); \
} while (0)
	FAILS(api_json_decode_node(json, len, &node, err, sizeof(err)));
	FAILS(api_json_decode_nodes(json, len, &nodes, &n, err, sizeof(err)));
	FAILS(api_json_decode_events(json, len, &ev, &n, err, sizeof(err)));
	FAILS(api_json_decode_token(json, len, &tok, secret, sizeof(secret), err,
	    sizeof(err)));
	FAILS(api_json_decode_tokens(json, len, &toks, &n, err, sizeof(err)));
	FAILS(api_json_decode_token_request(json, len, &req, err, sizeof(err)));
	FAILS(api_json_decode_cluster(json, len, &cl, err, sizeof(err)));
	FAILS(api_json_decode_clusters(json, len, &cls, &n, err, sizeof(err)));
	FAILS(api_json_decode_enrolled(json, len, &en, err, sizeof(err)));
	FAILS(api_json_decode_reason(json, len, reason, sizeof(reason), err,
	    sizeof(err)));
	FAILS(api_json_decode_name(json, len, name, err, sizeof(err)));
	FAILS(api_json_decode_names(json, len, names, 4, &n, err, sizeof(err)));
#undef FAILS
	assert_int_equal(api_json_decode_error(json, len, msg, sizeof(msg)), -1);
	assert_int_equal(api_json_extract(json, len, "x", &ex), -1);
	assert_null(nodes);
	assert_null(ev);
	assert_null(toks);
	assert_null(cls);
}

static void
test_malformed(void **state)
{
	static const char *const bad[] = { "", "null", "[]", "1", "\"x\"",
	    "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{'a':1}",
	    "{\"a\":\"\\u00\"}", "{\"a\":tru}", "{} {}", "{}x", "\xff" };
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(bad); i++)
		decode_all_fail(LEN(bad[i]));
	decode_all_fail(NULL, 0);
}

/* Every proper prefix of each kind of document fails cleanly. */
static void
test_truncated(void **state)
{
	struct api_node nodes[2];
	struct api_token t;
	struct api_token_request req;
	const char *const names[] = { "mac1", "mac2" };
	char *docs[5];
	size_t i, len;

	(void)state;
	fill_node(&nodes[0], "mac1", NODE_READY);
	null_node(&nodes[1], "mac2");
	fill_token(&t, "0123456789ab", ROLE_ADMIN);
	memset(&req, 0, sizeof(req));
	req.role = ROLE_BOOTSTRAP;
	req.ttl_seconds = 60;
	docs[0] = api_json_nodes(nodes, 2);
	docs[1] = api_json_token(&t, "secret");
	docs[2] = api_json_token_request(&req);
	docs[3] = api_json_names(names, 2);
	docs[4] = api_json_reason("because");
	for (i = 0; i < 5; i++) {
		for (len = 0; len < strlen(docs[i]); len++) {
			/* Exactly len bytes, no NUL: ASan sees any overread. */
			char *copy = malloc(len > 0 ? len : 1);

			memcpy(copy, docs[i], len);
			decode_all_fail(copy, len);
			free(copy);
		}
		free(docs[i]);
	}
}

static void
test_size_limits(void **state)
{
	struct api_token_request req;
	struct api_node *nodes, *got;
	char err[256], reason[64], *big, *s;
	int i, n;

	(void)state;
	big = malloc(API_JSON_RESPONSE_MAX + 1);
	memset(big, ' ', API_JSON_RESPONSE_MAX + 1);
	memcpy(big, "{}", 2);
	assert_int_equal(api_json_decode_reason(big, API_BODY_MAX + 1, reason,
	    sizeof(reason), err, sizeof(err)), -1);
	assert_string_equal(err, "input of 262145 bytes is over the limit of "
	    "262144");
	assert_int_equal(api_json_decode_reason(big, API_BODY_MAX, reason,
	    sizeof(reason), err, sizeof(err)), 0);
	assert_int_equal(api_json_decode_token_request(big, API_BODY_MAX + 1,
	    &req, err, sizeof(err)), -1);
	assert_int_equal(api_json_decode_nodes(big, API_JSON_RESPONSE_MAX + 1,
	    &got, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "input of 16777217 bytes is over the limit of "
	    "16777216");
	free(big);
	/* A response may be larger than a request body. */
	nodes = calloc(1000, sizeof(*nodes));
	for (i = 0; i < 1000; i++)
		fill_node(&nodes[i], "mac", NODE_READY);
	s = api_json_nodes(nodes, 1000);
	assert_true(strlen(s) > API_BODY_MAX);
	assert_int_equal(api_json_decode_nodes(LEN(s), &got, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 1000);
	assert_memory_equal(got, nodes, 1000 * sizeof(*nodes));
	free(got);
	free(s);
	free(nodes);
}

static void
test_err_buffer(void **state)
{
	struct api_token_request req;
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(api_json_decode_token_request(LEN("{\"role\":\"x\"}"),
	    &req, err, sizeof(err)), -1);
	assert_string_equal(err, "role: \"");
	assert_int_equal(api_json_decode_token_request(LEN("{\"role\":\"x\"}"),
	    &req, NULL, 0), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_layout),
		cmocka_unit_test(test_node_round_trip),
		cmocka_unit_test(test_node_with_report),
		cmocka_unit_test(test_nodes_list),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_token_request_valid),
		cmocka_unit_test(test_token_request_invalid),
		cmocka_unit_test(test_clusters),
		cmocka_unit_test(test_enrolled),
		cmocka_unit_test(test_reason),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_error_body),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_response_errors),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_err_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
