/*
 * inventory: the file (schema version, reopen, a file that is not a
 * database, one from a newer version or another application, WAL,
 * checkpoints by a second connection), nodes (enrolment, re-enrolment, name
 * conflicts, every field through a round trip, NULLs included), reports and
 * samples (summary, history, pruning, the store rate in one transaction),
 * transactions (rollback) and durability (a committed report survives
 * SIGKILL of the process that wrote it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inventory.h"
#include "report.h"

#include "inventory_fixture.h"

/* ---- the file ---- */

static void
test_open_creates_schema(void **state)
{
	struct fx *f = *state;
	char wal[160];
	int v = inv_schema_version(f->inv);

	assert_true(v >= 1);
	assert_int_equal(inv_cluster_add(f->inv, "lab", T0), 0);
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_true(file_exists(wal));                   /* write-ahead logging */
	inv_close(f->inv);
	f->inv = NULL;
	assert_false(file_exists(wal));                  /* checkpointed at close */
	assert_int_equal(header_get(f->path, 60), v);    /* PRAGMA user_version */
	assert_int_equal(header_get(f->path, 68), 0x54424d53);   /* application_id */
	reopen(f);
	assert_int_equal(inv_schema_version(f->inv), v);
}

static void
test_reopen_keeps_data(void **state)
{
	struct fx *f = *state;
	struct api_node n;
	struct api_cluster c;
	int64_t id;

	assert_int_equal(inv_cluster_add(f->inv, "lab", T0), 0);
	id = enrol(f, "mac1", UUID_A);
	assert_int_equal(inv_cluster_set_node(f->inv, "lab", "mac1"), 0);
	reopen(f);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.hardware_uuid, UUID_A);
	assert_string_equal(n.cluster, "lab");
	assert_int_equal(inv_cluster_get(f->inv, "lab", &c), 0);
	assert_int_equal(c.n_nodes, 1);
	assert_int_equal(inv_samples_count(f->inv, "mac1"), 1);

	struct inv_node_key *keys = NULL;
	int nk = 0;
	assert_int_equal(inv_node_keys(f->inv, &keys, &nk), 0);
	assert_int_equal(nk, 1);
	assert_int_equal(keys[0].id, id);
	free(keys);
}

static void
test_not_a_database(void **state)
{
	struct fx *f = *state;
	char err[256] = "";
	FILE *fp = fopen(f->path, "w");

	assert_non_null(fp);
	for (int i = 0; i < 200; i++)
		fputs("this is a configuration file, not a database\n", fp);
	fclose(fp);
	assert_null(inv_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "is not a SQLite database"));
	assert_non_null(strstr(err, f->path));
}

static void
test_future_version_refused(void **state)
{
	struct fx *f = *state;
	char err[256] = "";

	inv_close(f->inv);
	f->inv = NULL;
	header_set(f->path, 60, 999);
	assert_null(inv_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "schema version 999, newer than"));
}

static void
test_other_application_refused(void **state)
{
	struct fx *f = *state;
	char err[256] = "";

	inv_close(f->inv);
	f->inv = NULL;
	header_set(f->path, 68, 0x12345678);
	assert_null(inv_open(f->path, err, sizeof(err)));
	assert_non_null(strstr(err, "not a tbmesh inventory"));
}

/* ---- nodes ---- */

static void
test_upsert_new_and_reenrol(void **state)
{
	struct fx *f = *state;
	struct inv_node_key k1, k2;
	struct api_node n;
	char err[256] = "";

	fill_report(f->r, UUID_A, 0);
	assert_int_equal(upsert(f, "mac1", "", NODE_PENDING, T0, &k1, err, sizeof(err)), 0);
	assert_true(k1.id > 0);
	assert_string_equal(k1.name, "mac1");
	assert_string_equal(k1.hardware_uuid, UUID_A);
	assert_int_equal(k1.state, NODE_PENDING);
	assert_true(k1.boot_time == T0 - 86400);
	assert_true(k1.last_report_at == T0);
	assert_int_equal(k1.unexpected_reboot, 0);

	/* The same Mac again, under another hostname: same record and name. */
	assert_int_equal(inv_node_set_state(f->inv, k1.id, NODE_CORDONED, "bad cable", 1), 0);
	f->r->node.boot_time = NAN;
	assert_int_equal(upsert(f, "renamed", "", NODE_CORDONED, T0 + 60, &k2, err,
	    sizeof(err)), 0);
	assert_int_equal(k2.id, k1.id);
	assert_string_equal(k2.name, "mac1");
	assert_int_equal(k2.unexpected_reboot, 1);
	assert_true(k2.boot_time == T0 - 86400);          /* the last one known */
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.reason, "bad cable");       /* same state: kept */
	assert_true(n.enrolled_at == T0);
	assert_true(n.last_report_at == T0 + 60);
	assert_int_equal(upsert(f, "mac1", "", NODE_READY, T0 + 61, &k2, err, sizeof(err)), 0);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_int_equal(n.state, NODE_READY);
	assert_string_equal(n.reason, "");                /* new state: cleared */
	assert_int_equal(inv_node_get(f->inv, "renamed", &n), INV_NOTFOUND);

	/* Another Mac wanting the name. */
	fill_report(f->r, UUID_B, 0);
	assert_int_equal(upsert(f, "mac1", "", NODE_PENDING, T0, &k2, err, sizeof(err)),
	    INV_CONFLICT);
	assert_non_null(strstr(err, "mac1"));
	assert_non_null(strstr(err, UUID_A));
	/* A cluster that does not exist. */
	assert_int_equal(upsert(f, "mac2", "nolab", NODE_PENDING, T0, &k2, err, sizeof(err)),
	    INV_NOTFOUND);
	assert_non_null(strstr(err, "nolab"));
	/* No hardware UUID. */
	null_report(f->r, "");
	assert_int_equal(upsert(f, "mac3", "", NODE_PENDING, T0, &k2, err, sizeof(err)), -1);
	assert_string_equal(err, "report has no hardware_uuid");

	struct api_node *all = NULL;
	int cnt = 0;
	assert_int_equal(inv_node_list(f->inv, &all, &cnt), 0);
	assert_int_equal(cnt, 1);
	free(all);
}

static void
test_upsert_in_cluster(void **state)
{
	struct fx *f = *state;
	struct inv_node_key k;
	struct api_node n;
	char err[256] = "";

	assert_int_equal(inv_cluster_add(f->inv, "lab", T0), 0);
	assert_int_equal(inv_cluster_add(f->inv, "lab2", T0), 0);
	fill_report(f->r, UUID_A, 0);
	assert_int_equal(upsert(f, "mac1", "lab", NODE_PENDING, T0, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.cluster, "lab");
	/* "" leaves an existing node where it is; a name moves it. */
	assert_int_equal(upsert(f, "mac1", "", NODE_READY, T0, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.cluster, "lab");
	assert_int_equal(upsert(f, "mac1", "lab2", NODE_READY, T0, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.cluster, "lab2");
}

/* mac1 of test_node_round_trip: every field known. */
static void
check_full_node(const struct api_node *a)
{
	assert_string_equal(a->name, "mac1");
	assert_string_equal(a->cluster, "lab");
	assert_int_equal(a->state, NODE_DOWN);
	assert_string_equal(a->reason, "fan failure");
	assert_int_equal(a->unexpected_reboot, 1);
	assert_string_equal(a->hardware_uuid, UUID_A);
	assert_string_equal(a->serial, "H4KX7Q2P9D");
	assert_string_equal(a->model, "Mac15,14");
	assert_string_equal(a->chip, "Apple M3 Ultra");
	assert_string_equal(a->os_version, "26.2");
	assert_string_equal(a->os_build, "25C56");
	assert_int_equal(a->rdma, RDMA_STATE_ENABLED);
	assert_int_equal(a->memory_total_bytes, 512 * GIB);
	assert_int_equal(a->memory_used_bytes, (512 - 103) * GIB);
	assert_true(a->power_watts == 123.5);
	assert_true(a->last_report_at == T0);
	assert_true(a->enrolled_at == T0);
}

/* mac0 of test_node_round_trip: every field of its report null. */
static void
check_null_node(const struct api_node *b)
{
	assert_string_equal(b->name, "mac0");
	assert_string_equal(b->cluster, "");
	assert_int_equal(b->state, NODE_PENDING);
	assert_string_equal(b->reason, "");
	assert_int_equal(b->unexpected_reboot, 0);
	assert_string_equal(b->hardware_uuid, UUID_B);
	assert_string_equal(b->serial, "");
	assert_string_equal(b->model, "");
	assert_string_equal(b->chip, "");
	assert_string_equal(b->os_version, "");
	assert_string_equal(b->os_build, "");
	assert_int_equal(b->rdma, RDMA_STATE_UNKNOWN);
	assert_true(b->memory_total_bytes == REPORT_NULL_I64);
	assert_true(b->memory_used_bytes == REPORT_NULL_I64);
	assert_true(isnan(b->power_watts));
	assert_true(b->last_report_at == T0 + 1);
	assert_true(b->enrolled_at == T0 + 1);
}

static void
test_node_round_trip(void **state)
{
	struct fx *f = *state;
	struct inv_node_key k;
	struct api_node *all = NULL, one;
	char err[256] = "";
	int cnt = 0;

	assert_int_equal(inv_cluster_add(f->inv, "lab", T0), 0);
	fill_report(f->r, UUID_A, 3);
	assert_int_equal(upsert(f, "mac1", "lab", NODE_PENDING, T0, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_node_set_state(f->inv, k.id, NODE_DOWN, "fan failure", 1), 0);
	null_report(f->r, UUID_B);
	assert_int_equal(upsert(f, "mac0", "", NODE_PENDING, T0 + 1, &k, err, sizeof(err)), 0);

	assert_int_equal(inv_node_list(f->inv, &all, &cnt), 0);
	assert_int_equal(cnt, 2);
	check_null_node(&all[0]);                           /* sorted by name */
	check_full_node(&all[1]);
	assert_int_equal(inv_node_get(f->inv, "mac1", &one), 0);
	assert_memory_equal(&one, &all[1], sizeof(one));
	assert_int_equal(inv_node_get(f->inv, "mac0", &one), 0);
	assert_memory_equal(&one, &all[0], sizeof(one));
	free(all);
	assert_int_equal(inv_node_get(f->inv, "nosuch", &one), INV_NOTFOUND);
	assert_int_equal(inv_node_set_state(f->inv, 9999, NODE_READY, "", 0), INV_NOTFOUND);
}

static void
test_node_partial_report(void **state)
{
	struct fx *f = *state;
	struct inv_node_key k;
	struct api_node one;
	char err[256] = "", *json = NULL;

	/* Memory used is unknown when free memory is. */
	fill_report(f->r, UUID_B, 0);
	f->r->memory.free_bytes = REPORT_NULL_I64;
	f->r->rdma.state = RDMA_STATE_DISABLED;
	assert_int_equal(upsert(f, "mac0", "", NODE_READY, T0 + 2, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_node_get(f->inv, "mac0", &one), 0);
	assert_int_equal(one.memory_total_bytes, 512 * GIB);
	assert_true(one.memory_used_bytes == REPORT_NULL_I64);
	assert_int_equal(one.rdma, RDMA_STATE_DISABLED);

	assert_int_equal(inv_node_report(f->inv, "mac0", &json), 0);
	assert_string_equal(json, f->json);
	free(json);
	assert_int_equal(inv_node_report(f->inv, "nosuch", &json), INV_NOTFOUND);
	assert_null(json);
}

/* ---- reports and samples ---- */

static void
test_report_store(void **state)
{
	struct fx *f = *state;
	struct api_node n;
	char *json = NULL;
	int64_t id = enrol(f, "mac1", UUID_A);

	fill_report(f->r, UUID_A, 5);
	REPORT_SET(f->r->node.os_build, "25D100");
	f->r->node.boot_time = T0 + 500;
	free(f->json);
	assert_non_null(f->json = report_encode(f->r, 0));
	struct inv_report_summary sum;
	inv_report_summarize(f->r, &sum);
	struct inv_report_in in = { .node_id = id, .received_at = T0 + 600, .sum = &sum,
		.json = f->json, .json_len = strlen(f->json) };
	assert_int_equal(inv_begin(f->inv), 0);
	assert_int_equal(inv_report_store(f->inv, &in), 0);
	assert_int_equal(inv_commit(f->inv), 0);

	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.os_build, "25D100");
	assert_int_equal(n.memory_used_bytes, (512 - 105) * GIB);
	assert_true(n.power_watts == 125.5);
	assert_true(n.last_report_at == T0 + 600);
	assert_true(n.enrolled_at == T0);
	assert_int_equal(inv_node_report(f->inv, "mac1", &json), 0);
	assert_string_equal(json, f->json);
	free(json);
	assert_int_equal(inv_samples_count(f->inv, "mac1"), 2);
	assert_int_equal(inv_samples_count(f->inv, ""), 2);
	assert_int_equal(inv_samples_count(f->inv, "nosuch"), 0);

	struct inv_node_key *keys = NULL;
	int nk = 0;
	assert_int_equal(inv_node_keys(f->inv, &keys, &nk), 0);
	assert_int_equal(nk, 1);
	assert_true(keys[0].boot_time == T0 + 500);
	assert_true(keys[0].last_report_at == T0 + 600);
	free(keys);

	/* Without a transaction of the caller's, and for an unknown node. */
	in.received_at = T0 + 610;
	assert_int_equal(inv_report_store(f->inv, &in), 0);
	in.node_id = id + 100;
	assert_int_equal(inv_report_store(f->inv, &in), INV_NOTFOUND);
	assert_int_equal(inv_samples_count(f->inv, ""), 3);
}

/* The summary as stored: the link speeds as "%g" writes them, in port order. */
static void
test_report_summary(void **state)
{
	static const double speeds[] = { 0, 1, 40, 80, 120, 1000, 2.5, 0.1, 1e-05, 100.25 };
	struct fx *f = *state;
	struct inv_report_summary sum;
	struct report *r = f->r;
	char want[64];

	fill_report(r, UUID_A, 3);
	r->thunderbolt.ports[1].speed_gbps = 2.5;
	r->thunderbolt.ports[2].speed_gbps = NAN;
	inv_report_summarize(r, &sum);
	assert_string_equal(sum.link_speeds, "1:80,2:2.5,4:40");
	assert_string_equal(sum.serial, "H4KX7Q2P9D");
	assert_string_equal(sum.os_build, "25C56");
	assert_int_equal(sum.rdma, RDMA_STATE_ENABLED);
	assert_int_equal(sum.memory_total, 512 * GIB);
	assert_int_equal(sum.memory_used, (512 - 103) * GIB);
	assert_true(sum.power_watts == 123.5);
	assert_true(sum.boot_time == T0 - 86400);
	/* power and memory read long before the report: unknown, not current */
	r->power.collected_at = r->collected_at - INV_SECTION_STALE;
	r->memory.collected_at = r->collected_at - 5;
	inv_report_summarize(r, &sum);
	assert_true(sum.power_watts == 123.5);
	assert_int_equal(sum.memory_used, (512 - 103) * GIB);
	r->power.collected_at = r->collected_at - INV_SECTION_STALE - 1;
	r->memory.collected_at = r->collected_at - 600;
	inv_report_summarize(r, &sum);
	assert_true(isnan(sum.power_watts));
	assert_int_equal(sum.memory_used, REPORT_NULL_I64);
	assert_int_equal(sum.memory_total, 512 * GIB);	/* the size does not go stale */
	r->power.collected_at = r->memory.collected_at = NAN;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
		r->thunderbolt.n_ports = 1;
		r->thunderbolt.ports[0].speed_gbps = speeds[i];
		inv_report_summarize(r, &sum);
		snprintf(want, sizeof(want), "1:%g", speeds[i]);
		assert_string_equal(sum.link_speeds, want);
	}

	/* Nulls stay null; the first port that does not fit ends the list. */
	null_report(r, UUID_A);
	r->thunderbolt.n_ports = 3;
	for (int i = 0; i < 3; i++) {
		report_port_init(&r->thunderbolt.ports[i]);
		memset(r->thunderbolt.ports[i].receptacle, 'a' + i, 200);
		r->thunderbolt.ports[i].speed_gbps = 80;
	}
	inv_report_summarize(r, &sum);
	assert_int_equal(strlen(sum.link_speeds), 2 * 203 + 1);
	assert_int_equal(sum.link_speeds[203], ',');
	assert_int_equal(sum.memory_used, REPORT_NULL_I64);
	assert_int_equal(sum.memory_total, REPORT_NULL_I64);
	assert_true(isnan(sum.power_watts) && isnan(sum.boot_time));
	assert_string_equal(sum.model, "");
	assert_int_equal(sum.rdma, RDMA_STATE_UNKNOWN);
}

/*
 * With inv_wal_watch on, commits no longer checkpoint: the WAL grows past
 * SQLite's 1000 pages; a second connection's checkpoint copies it all, sees
 * everything the first committed, and the first's next commit starts the WAL
 * over.
 */
static void
test_checkpoint_elsewhere(void **state)
{
	struct fx *f = *state;
	struct inv_report_summary sum;
	struct api_node n;
	struct inv *ck;
	char err[256];
	int frames = 0, copied = 0, last = 0;
	int64_t a = enrol(f, "mac1", UUID_A), b = enrol(f, "mac2", UUID_B);

	inv_wal_watch(f->inv);
	assert_non_null(ck = inv_open(f->path, err, sizeof(err)));
	inv_report_summarize(f->r, &sum);
	for (int i = 0; i < 600; i++) {
		struct inv_report_in in = { .node_id = i % 2 ? a : b, .received_at = T0 + 1 + i,
			.sum = &sum, .json = f->json, .json_len = strlen(f->json) };
		assert_int_equal(inv_report_store(f->inv, &in), 0);
		assert_true(inv_wal_frames(f->inv) > last);
		last = inv_wal_frames(f->inv);
	}
	assert_true(last >= 600);   /* a page or more per report */
	assert_int_equal(inv_checkpoint(ck, &frames, &copied), 0);
	assert_int_equal(frames, last);
	assert_int_equal(copied, frames);
	assert_int_equal(inv_node_get(ck, "mac1", &n), 0);
	assert_true(n.last_report_at == T0 + 600);
	assert_int_equal(inv_samples_count(ck, ""), 602);

	struct inv_report_in in = { .node_id = a, .received_at = T0 + 1000, .sum = &sum,
		.json = f->json, .json_len = strlen(f->json) };
	assert_int_equal(inv_report_store(f->inv, &in), 0);
	assert_true(inv_wal_frames(f->inv) < 10);
	assert_int_equal(inv_node_get(ck, "mac1", &n), 0);
	assert_true(n.last_report_at == T0 + 1000);
	assert_int_equal(inv_integrity_check(ck, err, sizeof(err)), 0);
	inv_close(ck);
	assert_int_equal(inv_integrity_check(f->inv, err, sizeof(err)), 0);
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
test_store_rate(void **state)
{
	struct fx *f = *state;
	enum { NODES = 7, REPORTS = 10000 };
	int64_t ids[NODES];
	char *json[NODES];
	struct report *r[NODES];
	char name[16], uuid[64];

	for (int i = 0; i < NODES; i++) {
		snprintf(name, sizeof(name), "mac%d", i + 1);
		snprintf(uuid, sizeof(uuid), "00008103-0001-4000-8000-0000000000%02d", i);
		ids[i] = enrol(f, name, uuid);
		assert_non_null(r[i] = report_new());
		fill_report(r[i], uuid, i);
		assert_non_null(json[i] = report_encode(r[i], 0));
	}
	struct inv_report_summary sum[NODES];
	for (int i = 0; i < NODES; i++)
		inv_report_summarize(r[i], &sum[i]);
	double t0 = now_mono();
	assert_int_equal(inv_begin(f->inv), 0);
	for (int i = 0; i < REPORTS; i++) {
		struct inv_report_in in = { .node_id = ids[i % NODES],
			.received_at = T0 + 1 + i / NODES, .sum = &sum[i % NODES],
			.json = json[i % NODES], .json_len = strlen(json[i % NODES]) };
		assert_int_equal(inv_report_store(f->inv, &in), 0);
	}
	assert_int_equal(inv_commit(f->inv), 0);
	double dt = now_mono() - t0;
	print_message("inventory: %d reports of %zu bytes in one transaction in %.3f s: "
	    "%.0f reports/s\n", REPORTS, strlen(json[0]), dt, REPORTS / dt);
	assert_int_equal(inv_samples_count(f->inv, ""), REPORTS + NODES);
	for (int i = 0; i < NODES; i++) {
		free(json[i]);
		free(r[i]);
	}
}

static void
test_samples_prune(void **state)
{
	struct fx *f = *state;
	int64_t a = enrol(f, "mac1", UUID_A), b = enrol(f, "mac2", UUID_B);
	struct inv_report_summary sum;

	inv_report_summarize(f->r, &sum);
	for (int i = 0; i < 10; i++) {
		struct inv_report_in in = { .node_id = i % 2 ? a : b,
			.received_at = T0 + 100 + i, .sum = &sum, .json = "{}", .json_len = 2 };
		assert_int_equal(inv_report_store(f->inv, &in), 0);
	}
	assert_int_equal(inv_samples_count(f->inv, ""), 12);   /* + one per enrolment */
	assert_int_equal(inv_samples_prune(f->inv, T0 + 105), 7);
	assert_int_equal(inv_samples_count(f->inv, ""), 5);
	assert_int_equal(inv_samples_count(f->inv, "mac1"), 3);
	assert_int_equal(inv_samples_prune(f->inv, T0 + 105), 0);
	assert_int_equal(inv_samples_prune(f->inv, T0 + 1000), 5);
}

static void
test_node_remove_cascades(void **state)
{
	struct fx *f = *state;
	char err[256];
	int64_t a = enrol(f, "mac1", UUID_A);

	enrol(f, "mac2", UUID_B);
	struct inv_report_summary sum;
	inv_report_summarize(f->r, &sum);
	struct inv_report_in in = { .node_id = a, .received_at = T0 + 1, .sum = &sum,
		.json = f->json, .json_len = strlen(f->json) };
	assert_int_equal(inv_report_store(f->inv, &in), 0);
	assert_int_equal(inv_samples_count(f->inv, ""), 3);
	assert_int_equal(inv_event_add(f->inv, T0, "controller", "mac1", "enrolled", ""), 0);
	assert_int_equal(inv_node_remove(f->inv, "mac1"), 0);
	assert_int_equal(inv_samples_count(f->inv, ""), 1);
	assert_int_equal(inv_node_remove(f->inv, "mac1"), INV_NOTFOUND);
	assert_int_equal(inv_integrity_check(f->inv, err, sizeof(err)), 0);

	struct api_event *ev = NULL;
	int n = 0;
	assert_int_equal(inv_event_list(f->inv, "mac1", NAN, 0, &ev, &n), 0);
	assert_int_equal(n, 1);                             /* events stay */
	free(ev);
	/* The name is free again, for another Mac. */
	null_report(f->r, "00008103-0001-4000-8000-0000000000CC");
	struct inv_node_key k;
	assert_int_equal(upsert(f, "mac1", "", NODE_PENDING, T0, &k, err, sizeof(err)), 0);
	assert_true(k.id != a);
}

/* ---- transactions, integrity, durability ---- */

static void
test_integrity_ok(void **state)
{
	struct fx *f = *state;
	char err[256] = "";

	enrol(f, "mac1", UUID_A);
	assert_int_equal(inv_integrity_check(f->inv, err, sizeof(err)), 0);
}

static void
test_rollback_discards(void **state)
{
	struct fx *f = *state;
	struct inv_node_key k;
	struct api_node n;
	struct api_cluster c;
	char err[256] = "";

	assert_int_equal(inv_begin(f->inv), 0);
	assert_int_equal(inv_begin(f->inv), -1);            /* no nesting */
	assert_int_equal(inv_cluster_add(f->inv, "lab", T0), 0);
	fill_report(f->r, UUID_A, 0);
	assert_int_equal(upsert(f, "mac1", "lab", NODE_READY, T0, &k, err, sizeof(err)), 0);
	assert_int_equal(inv_event_add(f->inv, T0, "controller", "mac1", "enrolled", ""), 0);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);   /* seen inside */
	inv_rollback(f->inv);
	inv_rollback(f->inv);                                 /* harmless */

	assert_int_equal(inv_node_get(f->inv, "mac1", &n), INV_NOTFOUND);
	assert_int_equal(inv_cluster_get(f->inv, "lab", &c), INV_NOTFOUND);
	assert_int_equal(inv_samples_count(f->inv, ""), 0);
	struct api_event *ev = NULL;
	int cnt = -1;
	assert_int_equal(inv_event_list(f->inv, "", NAN, 0, &ev, &cnt), 0);
	assert_int_equal(cnt, 0);
	free(ev);
	/* The connection is usable afterwards. */
	enrol(f, "mac1", UUID_A);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
}

/* The child's side: store a report, commit, say so, and wait to be killed. */
static void
durability_child(const char *path, int fd)
{
	struct report *r = report_new();
	struct inv_node_key k;
	char err[256];
	struct inv *inv = inv_open(path, err, sizeof(err));

	if (inv == NULL || r == NULL)
		_exit(1);
	fill_report(r, UUID_A, 1);
	if (inv_begin(inv) == -1 ||
	    inv_node_upsert(inv, r, "{}", 2, "mac1", "", NODE_READY, T0, &k, err,
	    sizeof(err)) != 0 ||
	    inv_event_add(inv, T0, "controller", "mac1", "enrolled", "") != 0 ||
	    inv_commit(inv) == -1)
		_exit(1);
	if (write(fd, "committed", 9) != 9)
		_exit(1);
	for (;;)
		pause();
}

static void
test_durable_after_sigkill(void **state)
{
	struct fx *f = *state;
	struct api_node n;
	char buf[16] = "";
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		close(fds[0]);
		durability_child(f->path, fds[1]);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], buf, 9), 9);
	close(fds[0]);
	assert_string_equal(buf, "committed");
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	reopen(f);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.hardware_uuid, UUID_A);
	assert_true(n.power_watts == 121.5);
	assert_int_equal(inv_samples_count(f->inv, "mac1"), 1);
	char err[256];
	assert_int_equal(inv_integrity_check(f->inv, err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_creates_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_keeps_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup_dir, teardown),
		cmocka_unit_test_setup_teardown(test_future_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_application_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_upsert_new_and_reenrol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upsert_in_cluster, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_partial_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_node_remove_cascades, setup, teardown),
		cmocka_unit_test_setup_teardown(test_integrity_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback_discards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_durable_after_sigkill, setup_dir,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
