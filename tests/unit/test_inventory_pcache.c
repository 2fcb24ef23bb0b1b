/*
 * controller/store/inventory_pcache.c: the page cache passes on only the
 * truncates that can drop a page, and drops what it must.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory_db.h"

#define PAGE 4096u
#define SPARE (0x40000000u / PAGE + 1)   /* the number B-tree splits swap through */

static sqlite3_pcache_methods2 m;        /* as installed */

static struct inv_pcache_stats
stats(void)
{
	struct inv_pcache_stats st;

	inv_pcache_stats(&st);
	return st;
}

/* Fetch key, creating it; pinned. */
static sqlite3_pcache_page *
make(sqlite3_pcache *c, unsigned key)
{
	sqlite3_pcache_page *pg = m.xFetch(c, key, 2);

	assert_non_null(pg);
	return pg;
}

/* Whether the cache holds key (left unpinned). */
static int
holds(sqlite3_pcache *c, unsigned key)
{
	sqlite3_pcache_page *pg = m.xFetch(c, key, 0);

	if (pg != NULL)
		m.xUnpin(c, pg, 0);
	return pg != NULL;
}

/* One truncate to limit: 1 when it was passed on. */
static int
truncate_to(sqlite3_pcache *c, unsigned limit)
{
	struct inv_pcache_stats before = stats(), after;

	m.xTruncate(c, limit);
	after = stats();
	assert_int_equal(after.truncates, before.truncates + 1);
	return (int)(after.passed - before.passed);
}

static void
test_truncates(void **state)
{
	(void)state;
	sqlite3_pcache *c = m.xCreate((int)PAGE, 64, 1);
	assert_non_null(c);
	m.xCachesize(c, 100);
	for (unsigned k = 1; k <= 5; k++)
		m.xUnpin(c, make(c, k), 0);
	assert_int_equal(truncate_to(c, 6), 0);      /* nothing at 6 or past it */
	assert_true(holds(c, 5));

	/* a split swapping pages 2 and 3 through the spare number */
	sqlite3_pcache_page *a = make(c, 2), *b = make(c, 3);
	m.xRekey(c, a, 2, SPARE);
	m.xRekey(c, b, 3, 2);
	m.xRekey(c, a, SPARE, 3);
	m.xUnpin(c, a, 0);
	m.xUnpin(c, b, 0);
	assert_int_equal(truncate_to(c, 6), 0);      /* SQLite's own cache would walk */
	assert_true(holds(c, 2) && holds(c, 3) && !holds(c, SPARE));

	/* a page past the limit is dropped, those before it stay */
	m.xUnpin(c, make(c, 7), 0);
	assert_int_equal(truncate_to(c, 6), 1);
	assert_false(holds(c, 7));
	assert_true(holds(c, 5));

	/* a page left at the spare number too */
	a = make(c, 4);
	m.xRekey(c, a, 4, SPARE);
	m.xUnpin(c, a, 0);
	assert_int_equal(truncate_to(c, 6), 1);
	assert_false(holds(c, SPARE));

	/* and past both, nothing more is passed on */
	assert_int_equal(truncate_to(c, 6), 0);
	assert_int_equal(truncate_to(c, 100), 0);
	/* a limit below what was fetched: 3, 4, 5 go */
	assert_int_equal(truncate_to(c, 3), 1);
	assert_false(holds(c, 3) || holds(c, 4) || holds(c, 5));
	assert_true(holds(c, 1) && holds(c, 2));
	m.xDestroy(c);
}

static int
exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		print_error("%s: %s\n", sql, msg ? msg : sqlite3_errstr(rc));
	sqlite3_free(msg);
	return rc;
}

static int64_t
query(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/*
 * Samples of 400 nodes, keyed (node, t) as the inventory keys them: pages
 * split all over the table, in commits of 50 rows, one in five rolled back.
 * Everything committed is there, nothing rolled back is, the file is
 * sound -- and SQLite's cache is asked to walk its pages only after a
 * rollback.
 */
static void
test_split_workload(void **state)
{
	(void)state;
	char dir[] = "/tmp/tbmesh-pcache-XXXXXX", path[64], sql[128];
	sqlite3 *db = NULL;
	sqlite3_stmt *ins = NULL;
	int64_t kept = 0, sum = 0;
	int rollbacks = 0;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(exec(db, "PRAGMA journal_mode = WAL; PRAGMA cache_size = -65536;"
	    "CREATE TABLE s (node INTEGER, t INTEGER, v BLOB, PRIMARY KEY (node, t))"
	    " WITHOUT ROWID"), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO s VALUES (?1, ?2, zeroblob(60))", -1,
	    &ins, NULL), SQLITE_OK);
	struct inv_pcache_stats before = stats();
	unsigned seed = 7;
	int tx = 0;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 400; i++) {
			if (i % 50 == 0)
				assert_int_equal(exec(db, "BEGIN"), SQLITE_OK);
			seed = seed * 1103515245u + 12345u;
			int node = (int)((seed >> 8) % 400);
			sqlite3_bind_int(ins, 1, node);
			sqlite3_bind_int(ins, 2, round * 400 + i);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
			if (i % 50 == 49) {
				int undo = ++tx % 5 == 0;
				assert_int_equal(exec(db, undo ? "ROLLBACK" : "COMMIT"), SQLITE_OK);
				rollbacks += undo;
				if (!undo)
					for (int j = i - 49; j <= i; j++) {
						kept++;
						sum += round * 400 + j;
					}
			}
		}
	}
	struct inv_pcache_stats after = stats();
	assert_int_equal(query(db, "SELECT count(*) FROM s"), kept);
	assert_int_equal(query(db, "SELECT sum(t) FROM s"), sum);
	sqlite3_stmt *ck = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &ck, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(ck), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(ck, 0), "ok");
	sqlite3_finalize(ck);
	sqlite3_finalize(ins);
	sqlite3_close(db);
	print_message("# %lu truncates, %lu passed on, %lu pages parked, %d rollbacks\n",
	    after.truncates - before.truncates, after.passed - before.passed,
	    after.parks - before.parks, rollbacks);
	assert_true(after.parks - before.parks >= 10);             /* splits swapped pages */
	assert_true(after.truncates - before.truncates >= (unsigned long)tx);
	assert_true(after.passed - before.passed <= (unsigned long)rollbacks);
	for (const char *sfx = ""; sfx != NULL; sfx = *sfx ? NULL : "-wal") {
		snprintf(sql, sizeof(sql), "%s%s", path, sfx);
		unlink(sql);
	}
	snprintf(sql, sizeof(sql), "%s-shm", path);
	unlink(sql);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncates),
		cmocka_unit_test(test_split_workload),
	};

	inv_pcache_install();   /* before SQLite starts up */
	if (sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &m) != SQLITE_OK ||
	    sqlite3_initialize() != SQLITE_OK) {
		fprintf(stderr, "cannot read the page cache's methods\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
