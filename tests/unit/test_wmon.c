/*
 * What the live wiring view adds around the engine, without a server:
 * the ingest fingerprint changes with every wiring-relevant field and with
 * none of the others; a cluster's expected wiring is stored in and read
 * back from a real SQLite inventory (inventory_wiring.c); the JSON of
 * results and plans reads back as written (proto/wiring_json.c); tbctl's
 * tables for a check and a plan.
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
#include <unistd.h>

#include "ctl.h"
#include "ctrl.h"
#include "inventory.h"
#include "wiring_fixture.h"
#include "wiring_json.h"
#include "wmon.h"
#include "wmon_int.h"

static void
test_fingerprint(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct report *r;
	uint64_t fp;

	(void)state;
	assert_non_null(c);
	r = &c->reports[0];
	fp = wmon_fingerprint(r);
	assert_int_equal(fp, wmon_fingerprint(r));
	/* not wiring: memory, power, temperatures, collection time */
	r->memory.free_bytes += 4096;
	r->power.system_watts += 10;
	r->thermal.cpu_celsius += 1;
	r->collected_at += 5;
	assert_int_equal(fp, wmon_fingerprint(r));
	/* wiring: each of these changes it */
	r->thunderbolt.ports[1].speed_gbps = 40;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.ports[1].speed_gbps = 80;
	assert_int_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.ports[1].n_ipv4 = 0;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.ports[1].n_ipv4 = 1;
	r->thunderbolt.ports[0].peer.domain_uuid[3] ^= 1;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.ports[0].peer.domain_uuid[3] ^= 1;
	r->thunderbolt.ports[0].peer.rdma_service = TRI_FALSE;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.ports[0].peer.rdma_service = TRI_TRUE;
	r->rdma.devices[2].port_state = RDMA_PORT_DOWN;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->rdma.devices[2].port_state = RDMA_PORT_ACTIVE;
	r->thunderbolt.bridge.active = TRI_TRUE;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->thunderbolt.bridge.active = TRI_FALSE;
	snprintf(r->node.os_build, sizeof(r->node.os_build), "25D125");
	assert_int_not_equal(fp, wmon_fingerprint(r));
	snprintf(r->node.os_build, sizeof(r->node.os_build), "25C56");
	r->rdma.state = RDMA_STATE_DISABLED;
	assert_int_not_equal(fp, wmon_fingerprint(r));
	r->rdma.state = RDMA_STATE_ENABLED;
	assert_int_equal(fp, wmon_fingerprint(r));
	fx_free(c);
}

static void
test_inventory_wiring(void **state)
{
	char dir[] = "/tmp/tbmesh-wiring-XXXXXX", path[128], err[256], topo[16], *dot;
	struct inv *inv;
	double at;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/inv.db", dir);
	inv = inv_open(path, err, sizeof(err));
	assert_non_null(inv);
	assert_int_equal(inv_wiring_get(inv, "studio4", topo, sizeof(topo), &dot, &at),
	    INV_NOTFOUND);
	assert_int_equal(inv_cluster_add(inv, "studio4", 100), 0);
	assert_int_equal(inv_wiring_get(inv, "studio4", topo, sizeof(topo), &dot, &at), 0);
	assert_string_equal(topo, "mesh");           /* the default, never set */
	assert_null(dot);
	assert_true(isnan(at));
	assert_int_equal(inv_wiring_set(inv, "studio4", "plan", "graph { a:1 -- b:2 }", 200), 0);
	assert_int_equal(inv_wiring_set(inv, "nope", "ring", NULL, 200), INV_NOTFOUND);
	inv_close(inv);
	inv = inv_open(path, err, sizeof(err));     /* it is on disk */
	assert_non_null(inv);
	assert_int_equal(inv_wiring_get(inv, "studio4", topo, sizeof(topo), &dot, &at), 0);
	assert_string_equal(topo, "plan");
	assert_string_equal(dot, "graph { a:1 -- b:2 }");
	assert_true(at == 200);
	free(dot);
	assert_int_equal(inv_wiring_set(inv, "studio4", "ring", NULL, 300), 0);
	assert_int_equal(inv_wiring_get(inv, "studio4", topo, sizeof(topo), &dot, &at), 0);
	assert_string_equal(topo, "ring");
	assert_null(dot);
	inv_close(inv);
	unlink(path);
	snprintf(path, sizeof(path), "%s/inv.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/inv.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

static void
test_json_round_trip(void **state)
{
	struct fx_cluster *c = fx_load("degraded-40g.json");
	struct wiring_result *r, *back;
	struct wiring_plan_doc doc, doc2;
	char err[256], *json, *json2;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	json = wiring_json_result(r);
	assert_non_null(json);
	assert_int_equal(wiring_json_decode_result(json, strlen(json), &back, err, sizeof(err)), 0);
	json2 = wiring_json_result(back);
	assert_string_equal(json, json2);            /* every field read back */
	assert_int_equal(back->links[3].problems, 1u << WIRING_DEGRADED);
	assert_non_null(strstr(json, "\"fix\":null"));
	assert_non_null(strstr(json, "\"verdict\":\"degraded\""));
	free(json);
	free(json2);
	wiring_result_free(back);
	wiring_result_free(r);
	/* plans, with receptacles normalised */
	const char *in = "{\"topology\":\"plan\",\"links\":[{\"a\":{\"node\":\"mac1\",\"receptacle\":"
	    "\"tb2\"},\"b\":{\"node\":\"mac2\",\"receptacle\":\"5\"}}]}";
	assert_int_equal(wiring_json_decode_plan(in, strlen(in), &doc, err, sizeof(err)), 0);
	assert_int_equal(doc.n_links, 1);
	assert_string_equal(doc.links[0].a.receptacle, "2");
	json = wiring_json_plan(&doc);
	assert_int_equal(wiring_json_decode_plan(json, strlen(json), &doc2, err, sizeof(err)), 0);
	assert_memory_equal(doc.links, doc2.links, sizeof(doc.links[0]));
	free(json);
	wiring_plan_doc_free(&doc);
	wiring_plan_doc_free(&doc2);
	const char *bad = "{\"topology\":\"plan\",\"links\":[{\"a\":{\"node\":\"mac 1\"},\"b\":"
	    "{\"node\":\"mac2\"}}]}";
	assert_int_equal(wiring_json_decode_plan(bad, strlen(bad), &doc, err, sizeof(err)), -1);
	assert_string_equal(err, "links[0].a: node is not a node name");
	assert_int_equal(wiring_json_decode_plan("{\"topology\":\"star\"}", 19, &doc, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "plan.topology: is not mesh, ring or plan");
	assert_int_equal(wiring_json_decode_plan("[", 1, &doc, err, sizeof(err)), -1);
	fx_free(c);
}

static void
test_tables(void **state)
{
	struct fx_cluster *c = fx_load("missing-cable.json");
	struct wiring_result *r;
	struct wiring_plan_doc doc = { .cluster = "studio4", .topology = WIRING_TOPO_PLAN };
	struct wiring_plan_link pl[1] = {{{"mac1", "2"}, {"mac2", "5"}}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(ctl_wiring_print(f, r), 0);
	fclose(f);
	assert_non_null(strstr(buf, "cluster studio4 (mesh): ring only: an RDMA ring through all 4 "
	    "nodes, not a full mesh\nLINK "));
	assert_non_null(strstr(buf, "\nmac3--mac4      missing  mac3 -- mac4  no cable"));
	assert_non_null(strstr(buf, "\nreasons: mac3 -- mac4: missing\n"));
	free(buf);
	doc.n_links = 1;
	doc.links = pl;
	f = open_memstream(&buf, &len);
	assert_int_equal(ctl_plan_print(f, &doc), 0);
	fclose(f);
	assert_string_equal(buf, "cluster studio4: 1 cable\n"
	    "CABLE  FROM  RECEPTACLE  TO    RECEPTACLE\n"
	    "1      mac1  2           mac2  5\n");
	free(buf);
	wiring_result_free(r);
	fx_free(c);
}

/* Removing a node drops its cached wiring; the rest of the table stays found. */
static void
test_forget(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wmon *m = wmon_new(NULL);
	char name[32];

	(void)state;
	assert_non_null(c);
	assert_non_null(m);
	for (int k = 0; k < 200; k++) {      /* enough to grow the table twice */
		snprintf(name, sizeof(name), "n%d", k);
		wmon_report(m, name, &c->reports[k % 4]);
	}
	assert_int_equal(m->used, 200);
	for (int k = 0; k < 200; k += 3) {
		snprintf(name, sizeof(name), "n%d", k);
		wmon_forget(m, name);
	}
	wmon_forget(m, "nosuch");
	wmon_forget(NULL, "n1");
	assert_int_equal(m->used, 200 - 67);
	for (int k = 0; k < 200; k++) {
		snprintf(name, sizeof(name), "n%d", k);
		if (k % 3 == 0)
			assert_null(wmon_node_get(m, name, 0));
		else
			assert_non_null(wmon_node_get(m, name, 0));
	}
	wmon_free(m);
	fx_free(c);
}

/* How many nodes are on the dirty list (each once). */
static int
dirty_count(const struct wmon *m)
{
	int n = 0;

	for (const struct wmon_node *e = m->dirty_head; e != NULL; e = e->next_dirty) {
		assert_true(e->dirty);
		n++;
	}
	return n;
}

/* A changed wiring puts its node on the dirty list once; the same wiring
 * again does not; a forgotten node leaves the list. */
static void
test_dirty_list(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wmon *m = wmon_new(NULL);

	(void)state;
	assert_non_null(c);
	assert_non_null(m);
	assert_int_equal(dirty_count(m), 0);
	for (int k = 0; k < 4; k++)
		wmon_report(m, c->nodes[k].name, &c->reports[k]);
	assert_int_equal(dirty_count(m), 4);
	wmon_report(m, c->nodes[1].name, &c->reports[1]);          /* same fingerprint */
	assert_int_equal(dirty_count(m), 4);
	c->reports[1].thunderbolt.ports[0].speed_gbps = 40;   /* changed, still once */
	wmon_report(m, c->nodes[1].name, &c->reports[1]);
	assert_int_equal(dirty_count(m), 4);
	wmon_forget(m, c->nodes[2].name);
	assert_int_equal(dirty_count(m), 3);
	for (const struct wmon_node *e = m->dirty_head; e != NULL; e = e->next_dirty)
		assert_string_not_equal(e->name, c->nodes[2].name);
	wmon_free(m);
	fx_free(c);
}

/* A Prometheus label value escapes a newline as backslash n. */
static void
test_metrics_label_escape(void **state)
{
	struct wmon *m = wmon_new(NULL);
	char *text;

	(void)state;
	assert_non_null(m);
	m->states = calloc(1, sizeof(*m->states));
	assert_non_null(m->states);
	m->n_states = 1;
	snprintf(m->states[0].cluster, sizeof(m->states[0].cluster), "studio4");
	m->states[0].links = calloc(1, sizeof(*m->states[0].links));
	assert_non_null(m->states[0].links);
	m->states[0].n_links = 1;
	snprintf(m->states[0].links[0].expected, sizeof(m->states[0].links[0].expected),
	    "a\nb\"c\\d");
	text = wmon_metrics(m);
	assert_non_null(text);
	assert_non_null(strstr(text, "link=\"a\\nb\\\"c\\\\d\""));
	free(text);
	wmon_free(m);
}

/* A cluster beyond WIRING_NODES_MAX: every member loaded, the check refused
 * with the reason (it used to check the first 64 only). */
static void
test_big_cluster_refused(void **state)
{
	enum { N = WIRING_NODES_MAX + 6 };
	char dir[] = "/tmp/tbmesh-wmon-XXXXXX", path[128], err[256];
	struct api_node *all = calloc(N, sizeof(*all));
	struct wmon_cluster_in ci;
	struct ctrl c;
	struct inv *inv;
	struct wmon *m;

	(void)state;
	assert_non_null(all);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/inv.db", dir);
	memset(&c, 0, sizeof(c));
	inv = inv_open(path, err, sizeof(err));
	assert_non_null(inv);
	assert_int_equal(store_init(&c.store, inv), 0);
	assert_int_equal(inv_cluster_add(inv, "big", 100), 0);
	m = wmon_new(&c);
	assert_non_null(m);
	for (int k = 0; k < N; k++) {
		snprintf(all[k].name, sizeof(all[k].name), "n%02d", k);
		snprintf(all[k].cluster, sizeof(all[k].cluster), "big");
		all[k].state = NODE_READY;
		all[k].last_report_at = NAN;
	}
	assert_int_equal(wmon_cluster_load(m, "big", all, N, &ci), 0);
	assert_int_equal(ci.n_members, N);
	assert_null(wmon_cluster_check(m, &ci, 1000, err, sizeof(err)));
	assert_non_null(strstr(err, "at most 64 nodes, not 70"));
	wmon_cluster_free(&ci);
	wmon_free(m);
	store_fini(&c.store);
	inv_close(inv);
	free(all);
	unlink(path);
	snprintf(path, sizeof(path), "%s/inv.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/inv.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

/* A staged wiring changes the cache only when applied (the report stored). */
static void
test_stage_apply(void **state)
{
	struct fx_cluster *c = fx_load("mesh4-studio.json");
	struct wmon *m = wmon_new(NULL);
	struct wmon_staged *st;
	struct wmon_node *e;

	(void)state;
	assert_non_null(c);
	assert_non_null(m);
	st = wmon_stage(m, "mac1", &c->reports[0]);
	assert_non_null(st);
	assert_null(wmon_node_get(m, "mac1", 0));      /* not stored yet: not cached */
	wmon_staged_free(st);                          /* refused: nothing changes */
	assert_null(wmon_node_get(m, "mac1", 0));
	st = wmon_stage(m, "mac1", &c->reports[0]);
	wmon_apply(m, st);
	e = wmon_node_get(m, "mac1", 0);
	assert_non_null(e);
	assert_int_equal(e->fp, wmon_fingerprint(&c->reports[0]));
	assert_int_equal(e->wn.n_ports, c->reports[0].thunderbolt.n_ports);
	assert_null(wmon_stage(m, "mac1", &c->reports[0]));   /* the same wiring: a hash */
	c->reports[0].thunderbolt.ports[0].speed_gbps = 40;
	st = wmon_stage(m, "mac1", &c->reports[0]);
	assert_non_null(st);
	assert_true(wmon_node_get(m, "mac1", 0)->wn.ports[0].speed_gbps == 80);
	wmon_apply(m, st);
	assert_true(wmon_node_get(m, "mac1", 0)->wn.ports[0].speed_gbps == 40);
	wmon_apply(m, NULL);
	wmon_free(m);
	fx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_inventory_wiring),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_dirty_list),
		cmocka_unit_test(test_stage_apply),
		cmocka_unit_test(test_metrics_label_escape),
		cmocka_unit_test(test_big_cluster_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
