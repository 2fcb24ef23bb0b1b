/*
 * prom: the scrape target of each agent (its listen address, or its SSH
 * host for a wildcard), the HTTP service discovery list in the form
 * Prometheus reads (https://prometheus.io/docs/prometheus/latest/http_sd/;
 * prometheus/prometheus discovery/targetgroup/targetgroup.go: only
 * "targets" and "labels"), nodes left out when they have no target or
 * share one, and the controller's per-node series.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void
test_target(void **state)
{
	static const struct {
		const char *listen, *ssh, *want;   /* want NULL: no target */
	} cases[] = {
		{ "127.0.0.1:9469", "", "127.0.0.1:9469" },
		{ "127.0.0.1:9469", "10.0.0.11", "127.0.0.1:9469" },  /* where it listens */
		{ "10.0.0.11:9469", NULL, "10.0.0.11:9469" },
		{ "[::1]:9469", "", "[::1]:9469" },
		{ "mac1.lan:9469", "", "mac1.lan:9469" },
		{ "0.0.0.0:9469", "10.0.0.11", "10.0.0.11:9469" },
		{ "0.0.0.0:9470", "mac1.lan", "mac1.lan:9470" },
		{ "[::]:9469", "10.0.0.11", "10.0.0.11:9469" },
		{ "[0:0::0]:9469", "fd00::11", "[fd00::11]:9469" },
		{ "0.0.0.0:9469", "", NULL },
		{ "0.0.0.0:9469", NULL, NULL },
		{ "[::]:9469", "", NULL },
		{ "0.0.0.0:9469", "bad host", NULL },
		{ "0.0.0.0:9469", "-x", NULL },
		{ "", "10.0.0.11", NULL },
		{ "10.0.0.11", "", NULL },
		{ "10.0.0.11:0", "", NULL },
		{ "host/x:9469", "", NULL },
	};
	char out[PROM_TARGET_MAX + 1];

	(void)state;
	for (size_t i = 0; i < NELEM(cases); i++) {
		int rc = prom_sd_target(cases[i].listen, cases[i].ssh, out, sizeof(out));
		if (cases[i].want == NULL) {
			if (rc != -1)
				fail_msg("%s with %s: got %s", cases[i].listen,
				    cases[i].ssh ? cases[i].ssh : "NULL", out);
			continue;
		}
		if (rc != 0)
			fail_msg("%s with %s: no target", cases[i].listen,
			    cases[i].ssh ? cases[i].ssh : "NULL");
		assert_string_equal(out, cases[i].want);
	}
	assert_int_equal(prom_sd_target(NULL, "10.0.0.11", out, sizeof(out)), -1);
	/* a buffer too small is no target, never a truncated one */
	assert_int_equal(prom_sd_target("10.0.0.11:9469", "", out, 8), -1);
}

static void
node(struct prom_sd_node *n, const char *name, const char *cluster, enum node_state st,
    const char *model, const char *listen, const char *ssh)
{
	memset(n, 0, sizeof(*n));
	REPORT_SET(n->name, name);
	REPORT_SET(n->cluster, cluster);
	n->state = st;
	REPORT_SET(n->model, model);
	REPORT_SET(n->listen, listen);
	REPORT_SET(n->ssh_host, ssh);
}

static void
test_sd_json(void **state)
{
	struct prom_sd_node nd[7];
	int given = -1;
	char *json;

	(void)state;
	json = prom_sd_json(NULL, 0, &given);
	assert_non_null(json);
	assert_string_equal(json, "[]");
	assert_int_equal(given, 0);
	free(json);

	node(&nd[0], "mac1", "studio4", NODE_READY, "Mac15,14", "127.0.0.1:40001", "");
	node(&nd[1], "mac2", "studio4", NODE_UNREACHABLE, "Mac15,14", "0.0.0.0:9469",
	    "10.0.0.12");
	node(&nd[2], "mac3", "", NODE_PENDING, "", "0.0.0.0:9469", "");     /* no host */
	node(&nd[3], "mac4", "studio4", NODE_READY, "Mac15,14", "", "10.0.0.14"); /* no listen */
	node(&nd[4], "mac5", "lab", NODE_READY, "Mac16,9", "127.0.0.1:9469", "");
	node(&nd[5], "mac6", "lab", NODE_CORDONED, "Mac16,9", "[::1]:40006", "");
	node(&nd[6], "mac7", "lab", NODE_READY, "Mac16,9", "127.0.0.1:9469", "");   /* = mac5 */
	json = prom_sd_json(nd, 7, &given);
	assert_non_null(json);
	assert_string_equal(json, "["
	    "{\"targets\":[\"127.0.0.1:40001\"],\"labels\":{\"cluster\":\"studio4\","
	    "\"node\":\"mac1\",\"model\":\"Mac15,14\",\"state\":\"ready\"}},"
	    "{\"targets\":[\"10.0.0.12:9469\"],\"labels\":{\"cluster\":\"studio4\","
	    "\"node\":\"mac2\",\"model\":\"Mac15,14\",\"state\":\"unreachable\"}},"
	    "{\"targets\":[\"[::1]:40006\"],\"labels\":{\"cluster\":\"lab\","
	    "\"node\":\"mac6\",\"model\":\"Mac16,9\",\"state\":\"cordoned\"}}]");
	assert_int_equal(given, 3);
	free(json);

	/* unknown cluster and model are empty labels, which Prometheus drops */
	node(&nd[0], "mac1", "", NODE_PENDING, "", "10.0.0.11:9469", "");
	json = prom_sd_json(nd, 1, NULL);
	assert_non_null(json);
	assert_string_equal(json, "[{\"targets\":[\"10.0.0.11:9469\"],\"labels\":"
	    "{\"cluster\":\"\",\"node\":\"mac1\",\"model\":\"\",\"state\":\"pending\"}}]");
	free(json);
}

/* Every group has exactly "targets" (strings) and "labels" (strings), as Prometheus reads them. */
static void
test_sd_shape(void **state)
{
	struct prom_sd_node nd[3];
	cJSON *root, *g, *m;
	char *json;

	(void)state;
	node(&nd[0], "a", "c", NODE_READY, "Mac15,14", "10.0.0.1:1", "");
	node(&nd[1], "b", "c", NODE_DOWN, "M\"x\\y", "10.0.0.2:2", "");
	node(&nd[2], "c", "c", NODE_DRAINING, "Mac15,14", "10.0.0.3:3", "");
	assert_non_null(json = prom_sd_json(nd, 3, NULL));
	assert_non_null(root = cJSON_Parse(json));
	assert_int_equal(cJSON_GetArraySize(root), 3);
	cJSON_ArrayForEach(g, root) {
		int keys = 0;
		cJSON_ArrayForEach(m, g) {
			keys++;
			assert_true(strcmp(m->string, "targets") == 0 ||
			    strcmp(m->string, "labels") == 0);
		}
		assert_int_equal(keys, 2);
		cJSON *t = cJSON_GetObjectItemCaseSensitive(g, "targets");
		assert_int_equal(cJSON_GetArraySize(t), 1);
		assert_true(cJSON_IsString(cJSON_GetArrayItem(t, 0)));
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(g, "labels"))
			assert_true(cJSON_IsString(m));
	}
	g = cJSON_GetArrayItem(root, 1);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(g, "labels"), "model")->valuestring, "M\"x\\y");
	cJSON_Delete(root);
	free(json);
}

static void
api_node_fill(struct api_node *n, const char *name, const char *cluster, enum node_state st,
    const char *model, const char *build, double last)
{
	memset(n, 0, sizeof(*n));
	REPORT_SET(n->name, name);
	REPORT_SET(n->cluster, cluster);
	n->state = st;
	REPORT_SET(n->model, model);
	REPORT_SET(n->chip, "Apple M3 Ultra");
	REPORT_SET(n->os_version, "26.2");
	REPORT_SET(n->os_build, build);
	n->last_report_at = last;
}

static void
test_node_metrics(void **state)
{
	struct api_node nd[2];
	char *text;

	(void)state;
	api_node_fill(&nd[0], "mac1", "studio4", NODE_READY, "Mac15,14", "25C56", 1763782801.25);
	api_node_fill(&nd[1], "mac2", "", NODE_PENDING, "odd \"model\" \\ \n", "", NAN);
	assert_non_null(text = prom_node_metrics(nd, 2));
	assert_string_equal(text,
	    "# HELP tbmesh_controller_node_state Each node's lifecycle state, as a label; "
	    "the value is always 1.\n"
	    "# TYPE tbmesh_controller_node_state gauge\n"
	    "tbmesh_controller_node_state{cluster=\"studio4\",node=\"mac1\",state=\"ready\"} 1\n"
	    "tbmesh_controller_node_state{cluster=\"\",node=\"mac2\",state=\"pending\"} 1\n"
	    "# HELP tbmesh_controller_node_info Each node as its latest report describes it; "
	    "the value is always 1.\n"
	    "# TYPE tbmesh_controller_node_info gauge\n"
	    "tbmesh_controller_node_info{cluster=\"studio4\",node=\"mac1\",model=\"Mac15,14\","
	    "chip=\"Apple M3 Ultra\",os_version=\"26.2\",os_build=\"25C56\"} 1\n"
	    "tbmesh_controller_node_info{cluster=\"\",node=\"mac2\","
	    "model=\"odd \\\"model\\\" \\\\ \\n\",chip=\"Apple M3 Ultra\",os_version=\"26.2\","
	    "os_build=\"\"} 1\n"
	    "# HELP tbmesh_controller_node_last_report_timestamp_seconds When the node's latest "
	    "current report arrived, in unix seconds.\n"
	    "# TYPE tbmesh_controller_node_last_report_timestamp_seconds gauge\n"
	    "tbmesh_controller_node_last_report_timestamp_seconds{cluster=\"studio4\","
	    "node=\"mac1\"} 1763782801.25\n");
	free(text);
	/* no nodes: the families' headers only */
	assert_non_null(text = prom_node_metrics(NULL, 0));
	assert_non_null(strstr(text, "# TYPE tbmesh_controller_node_state gauge\n"));
	assert_null(strstr(text, "} 1"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_sd_json),
		cmocka_unit_test(test_sd_shape),
		cmocka_unit_test(test_node_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
