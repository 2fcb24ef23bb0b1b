/*
 * A node's samples: inv_samples_list (inventory_samples.c: since, step
 * buckets with power averaged, the newest kept under a limit, an unknown
 * node) on a real SQLite file, the samples that wait in the node's row
 * (inventory_db.h) counted, listed, pruned and removed with the others, and
 * their JSON (api_json_samples.c) through a round trip with nulls and bad
 * input.
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

#include <sqlite3.h>

#include "api_samples.h"
#include "inventory.h"
#include "report.h"

#define UUID "00008103-0001-4000-8000-0000000000C1"
#define GIB (INT64_C(1) << 30)
#define T0 1763782800.0

struct fx {
	char dir[64], path[128];
	struct inv *inv;
	struct report *r;
	int64_t id;
};

/* Store one report of the node at time t, with power w and a 40 Gb/s port. */
static void
store(struct fx *f, double t, double w)
{
	struct inv_report_summary sum;
	struct inv_report_in in = { .node_id = f->id, .received_at = t, .sum = &sum,
		.json = "{}", .json_len = 2 };

	f->r->power.system_watts = w;
	f->r->memory.free_bytes = (int64_t)(100 + t - T0) * GIB;
	inv_report_summarize(f->r, &sum);
	assert_int_equal(inv_report_store(f->inv, &in), 0);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct inv_node_key key;
	char err[256];

	snprintf(f->dir, sizeof(f->dir), "/tmp/tbmesh-smp-XXXXXX");
	if (f == NULL || mkdtemp(f->dir) == NULL || (f->r = report_new()) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/inventory.db", f->dir);
	if ((f->inv = inv_open(f->path, err, sizeof(err))) == NULL)
		return -1;
	report_init(f->r);
	REPORT_SET(f->r->node.hardware_uuid, UUID);
	f->r->memory.total_bytes = 512 * GIB;
	f->r->thunderbolt.n_ports = 1;
	report_port_init(&f->r->thunderbolt.ports[0]);
	REPORT_SET(f->r->thunderbolt.ports[0].receptacle, "2");
	f->r->thunderbolt.ports[0].speed_gbps = 40;
	char *json = report_encode(f->r, 0);
	int rc = inv_node_upsert(f->inv, f->r, json, strlen(json), "mac1", "", NODE_READY, T0 - 1,
	    &key, err, sizeof(err));
	free(json);
	if (rc != 0)
		return -1;
	f->id = key.id;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char p[256];

	inv_close(f->inv);
	for (const char *s = "\0-wal\0-shm\0"; ; s += strlen(s) + 1) {
		snprintf(p, sizeof(p), "%s%s", f->path, s);
		unlink(p);
		if (strcmp(s, "-shm") == 0)
			break;
	}
	rmdir(f->dir);
	free(f->r);
	free(f);
	return 0;
}

static void
test_list_since_and_limit(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;
	int n;

	for (int i = 0; i < 10; i++)
		store(f, T0 + i, 100 + i);
	assert_int_equal(inv_samples_list(f->inv, "mac1", T0 + 5, 0, 100, &s, &n), 0);
	assert_int_equal(n, 5);
	assert_true(s[0].t == T0 + 5 && s[4].t == T0 + 9);   /* oldest first */
	assert_true(s[0].power_watts == 105);
	assert_true(s[0].memory_total_bytes == 512 * GIB);
	assert_true(s[0].memory_used_bytes == 512 * GIB - 105 * GIB);
	assert_string_equal(s[0].link_speeds, "2:40");
	free(s);
	/* a limit keeps the newest */
	assert_int_equal(inv_samples_list(f->inv, "mac1", 0, 0, 3, &s, &n), 0);
	assert_int_equal(n, 3);
	assert_true(s[0].t == T0 + 7 && s[2].t == T0 + 9);
	free(s);
	/* nothing after the last one */
	assert_int_equal(inv_samples_list(f->inv, "mac1", T0 + 100, 0, 3, &s, &n), 0);
	assert_int_equal(n, 0);
	free(s);
}

static void
test_list_step(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;
	int n;

	for (int i = 0; i < 10; i++)
		store(f, T0 + i, 100 + i);   /* T0 is a multiple of 5 s */
	/* since T0: not the enrolment's sample at T0 - 1 */
	assert_int_equal(inv_samples_list(f->inv, "mac1", T0, 5, 100, &s, &n), 0);
	assert_int_equal(n, 2);
	/* each interval: its latest sample's time and memory, its mean power */
	assert_true(s[0].t == T0 + 4 && s[1].t == T0 + 9);
	assert_true(fabs(s[0].power_watts - 102) < 1e-9 && fabs(s[1].power_watts - 107) < 1e-9);
	assert_true(s[1].memory_used_bytes == 512 * GIB - 109 * GIB);
	free(s);
}

/* One number from the inventory file, read by a connection of the test's own. */
static int64_t
file_int(struct fx *f, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int64_t v = -1;

	if (sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

/*
 * Every sample counts and lists the same whether it waits in the node's row
 * or went to the table -- after a reopen too -- and its time comes back
 * exactly; they go to the table eight at a time.
 */
static void
test_pending_samples(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;
	char err[256];
	int n;

	for (int i = 0; i < 20; i++) {
		store(f, T0 + i + 0.123456789, 100.25 + i);
		assert_int_equal(inv_samples_count(f->inv, "mac1"), i + 2);   /* + enrolment's */
	}
	assert_int_equal(inv_samples_count(f->inv, ""), 21);
	assert_int_equal(file_int(f, "SELECT count(*) FROM samples"), 1 + 16);
	assert_int_equal(file_int(f, "SELECT samples_pending_n FROM nodes"), 4);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(inv_samples_list(f->inv, "mac1", 0, 0, 100, &s, &n), 0);
		assert_int_equal(n, 21);
		assert_true(s[0].t == T0 - 1);
		for (int i = 0; i < 20; i++) {
			assert_true(s[i + 1].t == T0 + i + 0.123456789);
			assert_true(s[i + 1].power_watts == 100.25 + i);
			assert_string_equal(s[i + 1].link_speeds, "2:40");
		}
		free(s);
		/* the newest 3: all pending; since a time in the table: both */
		assert_int_equal(inv_samples_list(f->inv, "mac1", 0, 0, 3, &s, &n), 0);
		assert_int_equal(n, 3);
		assert_true(s[0].t == T0 + 17 + 0.123456789);
		free(s);
		assert_int_equal(inv_samples_list(f->inv, "mac1", T0 + 14, 0, 100, &s, &n), 0);
		assert_int_equal(n, 6);
		free(s);
		/* 3 s intervals: [15, 18) holds the table's last and the row's first two */
		assert_int_equal(inv_samples_list(f->inv, "mac1", T0 + 15, 3, 100, &s, &n), 0);
		assert_int_equal(n, 2);
		assert_true(s[0].t == T0 + 17 + 0.123456789);
		assert_true(fabs(s[0].power_watts - 116.25) < 1e-9);   /* 15, 16 and 17 */
		assert_true(s[1].t == T0 + 19 + 0.123456789);
		free(s);
		inv_close(f->inv);
		assert_non_null(f->inv = inv_open(f->path, err, sizeof(err)));
	}
}

/* Ten reports from T0 on, a second apart, with power w: their samples listed. */
static struct api_sample *
store_ten(struct fx *f, double w)
{
	struct api_sample *s;
	int n;

	for (int i = 0; i < 10; i++)
		store(f, T0 + i, w);
	assert_int_equal(inv_samples_list(f->inv, "mac1", T0, 0, 100, &s, &n), 0);
	assert_int_equal(n, 10);
	return s;
}

/* Unknown memory, power and speeds: nulls, pending or not. */
static void
test_pending_nulls(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;

	f->r->memory.total_bytes = REPORT_NULL_I64;
	f->r->thunderbolt.n_ports = 0;
	s = store_ten(f, NAN);
	for (int i = 0; i < 10; i++) {   /* 8 from the table, 2 from the row */
		assert_true(s[i].memory_total_bytes == REPORT_NULL_I64);
		assert_true(s[i].memory_used_bytes == REPORT_NULL_I64);
		assert_true(isnan(s[i].power_watts));
		assert_string_equal(s[i].link_speeds, "");
	}
	free(s);
}

/* A receptacle name with a quote, a backslash and a control character. */
static void
test_pending_odd_speeds(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;

	REPORT_SET(f->r->thunderbolt.ports[0].receptacle, "a\"b\\c\x01");
	s = store_ten(f, 100);
	for (int i = 0; i < 10; i++)   /* 8 from the table, 2 from the row */
		assert_string_equal(s[i].link_speeds, "a\"b\\c\x01:40");
	free(s);
}

/* Pruning takes the old samples that wait in a row too; removing the node, all. */
static void
test_pending_prune_remove(void **state)
{
	struct fx *f = *state;
	struct api_sample *s;
	int n;

	for (int i = 0; i < 3; i++)
		store(f, T0 + i, 100);
	assert_int_equal(inv_samples_prune(f->inv, T0 + 1.5), 3);   /* T0 - 1, T0, T0 + 1 */
	assert_int_equal(inv_samples_count(f->inv, "mac1"), 1);
	assert_int_equal(inv_samples_list(f->inv, "mac1", 0, 0, 100, &s, &n), 0);
	assert_int_equal(n, 1);
	assert_true(s[0].t == T0 + 2);
	free(s);
	assert_int_equal(inv_samples_prune(f->inv, T0 + 1.5), 0);
	assert_int_equal(inv_samples_prune(f->inv, T0 + 100), 1);
	assert_int_equal(file_int(f, "SELECT count(*) FROM nodes WHERE samples_pending IS NULL AND samples_pending_n IS NULL"),
	    1);
	for (int i = 0; i < 3; i++)
		store(f, T0 + 10 + i, 100);
	assert_int_equal(inv_node_remove(f->inv, "mac1"), 0);
	assert_int_equal(inv_samples_count(f->inv, ""), 0);
}

static void
test_list_unknown_node(void **state)
{
	struct fx *f = *state;
	struct api_sample *s = (void *)1;
	int n = 7;

	assert_int_equal(inv_samples_list(f->inv, "nosuch", 0, 0, 10, &s, &n), INV_NOTFOUND);
	assert_null(s);
	assert_int_equal(n, 0);
}

static void
test_json_round_trip(void **state)
{
	struct api_sample in[2] = {
		{ .t = T0, .memory_used_bytes = 3 * GIB, .memory_total_bytes = 512 * GIB,
		  .power_watts = 118.5, .link_speeds = "1:80,2:40" },
		{ .t = T0 + 1, .memory_used_bytes = REPORT_NULL_I64,
		  .memory_total_bytes = REPORT_NULL_I64, .power_watts = NAN, .link_speeds = "" },
	};
	struct api_sample *out;
	char node[API_NAME_MAX + 1], err[256];
	int n;
	(void)state;

	char *json = api_json_samples("mac1", T0 - 3600, 0, in, 2);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"power_watts\":null"));
	assert_non_null(strstr(json, "\"link_speeds\":null"));
	assert_int_equal(api_json_decode_samples(json, strlen(json), node, &out, &n, err,
	    sizeof(err)), 0);
	assert_string_equal(node, "mac1");
	assert_int_equal(n, 2);
	assert_true(out[0].t == T0 && out[0].memory_used_bytes == 3 * GIB);
	assert_true(out[0].power_watts == 118.5);
	assert_string_equal(out[0].link_speeds, "1:80,2:40");
	assert_true(out[1].memory_used_bytes == REPORT_NULL_I64 && isnan(out[1].power_watts));
	assert_string_equal(out[1].link_speeds, "");
	free(out);
	free(json);
}

static void
test_json_bad(void **state)
{
	static const char *bad[] = { "", "[]", "{\"node\":\"mac1\"}", "{\"samples\":[]}",
		"{\"node\":\"mac1\",\"samples\":[{\"power_watts\":1}]}",
		"{\"node\":\"mac1\",\"samples\":[7]}",
		/* Found by tests/fuzz/fuzz_api.c: beyond int64_t, converting it was undefined. */
		"{\"node\":\"mac1\",\"samples\":[{\"t\":1,\"memory_used_bytes\":10737418e24}]}",
		"{\"node\":\"mac1\",\"samples\":[{\"t\":1,\"memory_total_bytes\":-1}]}",
		"{\"node\":\"mac1\",\"samples\":[{\"t\":1,\"memory_used_bytes\":1.5}]}" };
	struct api_sample *out;
	char node[API_NAME_MAX + 1], err[256];
	int n;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(api_json_decode_samples(bad[i], strlen(bad[i]), node, &out, &n,
		    err, sizeof(err)), -1);
		assert_null(out);
		assert_true(err[0] != '\0');
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_since_and_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_unknown_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_nulls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_odd_speeds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_prune_remove, setup, teardown),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
