/*
 * The inventory: opening and closing, the prepared statements, transactions,
 * the integrity check, and the shared statement helpers.  The schema and its
 * migrations are in inventory_schema.c, nodes and reports in
 * inventory_nodes.c, tokens, clusters and events in inventory_admin.c.
 *
 * Every statement is prepared once at open (SQLITE_PREPARE_PERSISTENT) and
 * reset after each use, so that storing a report costs two steps and no
 * parsing.  Parameters are numbered (?1, ?2...) and their meaning is given
 * beside each statement.
 */
#include "inventory_db.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* Columns of struct api_node, in the order inventory_nodes.c reads them. */
#define NODE_SELECT \
	"SELECT n.name, c.name, n.state, n.reason, n.unexpected_reboot, " \
	"n.hardware_uuid, n.serial, n.model, n.chip, n.os_version, n.os_build, " \
	"n.rdma, n.memory_total, n.memory_used, n.power_watts, n.last_report_at, " \
	"n.enrolled_at FROM nodes n LEFT JOIN clusters c ON c.id = n.cluster_id"

/*
 * The report summary: parameters ?4..?13 of the statements that store one.
 * A report without a boot time keeps the last one known.
 */
#define SUMMARY_SET \
	"serial = ?4, model = ?5, chip = ?6, os_version = ?7, os_build = ?8, " \
	"rdma = ?9, memory_total = ?10, memory_used = ?11, power_watts = ?12, " \
	"boot_time = coalesce(?13, boot_time)"

#define TOKEN_COLS \
	"id, role, hash, cluster, node, label, created_at, expires_at, used_at, revoked, " \
	"accept, pending"

#define CLUSTER_SELECT \
	"SELECT c.name, c.created_at, " \
	"(SELECT count(*) FROM nodes n WHERE n.cluster_id = c.id) FROM clusters c"

#define EVENT_SELECT "SELECT id, time, actor, node, what, reason FROM events"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",

	/* ?1..?12: the columns of TOKEN_COLS */
	[ST_TOKEN_ADD] = "INSERT INTO tokens (" TOKEN_COLS ") "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[ST_TOKEN_GET] = "SELECT " TOKEN_COLS " FROM tokens WHERE id = ?1",
	[ST_TOKEN_LIST] = "SELECT " TOKEN_COLS " FROM tokens "
	    "ORDER BY created_at DESC, rowid DESC",
	[ST_TOKEN_EXISTS] = "SELECT count(*) FROM tokens WHERE id = ?1",
	[ST_TOKEN_REVOKE] = "UPDATE tokens SET revoked = 1 WHERE id = ?1",
	/* ?1 id, ?2 now */
	[ST_TOKEN_USE] = "UPDATE tokens SET used_at = ?2 "
	    "WHERE id = ?1 AND used_at IS NULL AND revoked = 0",
	/* a pending re-enrolment's token is not the node's until accepted */
	[ST_TOKEN_REVOKE_NODE] = "UPDATE tokens SET revoked = 1 "
	    "WHERE role = 'node' AND node = ?1 AND pending = 0",
	[ST_TOKEN_COUNT] = "SELECT count(*) FROM tokens WHERE role = ?1 AND revoked = 0",

	[ST_NODE_BY_UUID] = "SELECT id, name, state, unexpected_reboot, boot_time FROM nodes "
	    "WHERE hardware_uuid = ?1",
	[ST_NODE_NAME_OWNER] = "SELECT hardware_uuid FROM nodes WHERE name = ?1",
	/* ?1 name, ?2 json, ?3 now, summary, ?14 uuid, ?15 cluster id, ?16 state, ?17 now */
	[ST_NODE_INSERT] = "INSERT INTO nodes (name, report_json, last_report_at, "
	    "serial, model, chip, os_version, os_build, rdma, memory_total, "
	    "memory_used, power_watts, boot_time, hardware_uuid, cluster_id, state, "
	    "enrolled_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
	    "?13, ?14, ?15, ?16, ?17)",
	/* ?1 id, ?2 json, ?3 now, summary, ?14 state, ?15 cluster id or NULL */
	[ST_NODE_REENROLL] = "UPDATE nodes SET report_json = ?2, last_report_at = ?3, "
	    SUMMARY_SET ", reason = CASE WHEN state = ?14 THEN reason END, "
	    "state = ?14, cluster_id = coalesce(?15, cluster_id) WHERE id = ?1",
	[ST_NODE_KEYS] = "SELECT id, name, hardware_uuid, state, boot_time, "
	    "last_report_at, unexpected_reboot FROM nodes ORDER BY id",
	[ST_NODE_GET] = NODE_SELECT " WHERE n.name = ?1",
	[ST_NODE_LIST] = NODE_SELECT " ORDER BY n.name",
	[ST_NODE_REPORT] = "SELECT report_json FROM nodes WHERE name = ?1",
	/* ?1 id, ?2 state, ?3 reason, ?4 unexpected reboot */
	[ST_NODE_SET_STATE] = "UPDATE nodes SET state = ?2, reason = ?3, "
	    "unexpected_reboot = ?4 WHERE id = ?1",
	/* ?1 node name, ?2 cluster id or NULL */
	[ST_NODE_SET_CLUSTER] = "UPDATE nodes SET cluster_id = ?2 WHERE name = ?1",
	[ST_NODE_REMOVE] = "DELETE FROM nodes WHERE name = ?1",

	/*
	 * ?1 id, ?2 json, ?3 received at, summary, ?14 stale (last_report_at
	 * stays), ?15 the report's sample (a JSON array), appended to the row's
	 * pending samples (then ST_SAMPLES_PENDING_N: how many there are).
	 */
	[ST_REPORT_UPDATE] = "UPDATE nodes SET report_json = ?2, "
	    "last_report_at = CASE WHEN ?14 THEN last_report_at ELSE ?3 END, "
	    SUMMARY_SET ", samples_pending = CASE WHEN samples_pending IS NULL THEN ?15 "
	    "ELSE samples_pending || ',' || ?15 END, "
	    "samples_pending_n = coalesce(samples_pending_n, 0) + 1 "
	    "WHERE id = ?1",
	[ST_SAMPLES_PENDING_N] = "SELECT samples_pending_n FROM nodes WHERE id = ?1",
	/* ?1 node id, ?2 t, ?3 memory used, ?4 memory total, ?5 watts, ?6 link speeds */
	[ST_SAMPLE_INSERT] = "INSERT OR REPLACE INTO samples (node_id, t, memory_used, "
	    "memory_total, power_watts, link_speeds) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* ?1 node id: its pending samples into the table, together */
	[ST_SAMPLES_FLUSH] = "INSERT OR REPLACE INTO samples (node_id, t, memory_used, "
	    "memory_total, power_watts, link_speeds) SELECT n.id, " INV_PENDING_COLS
	    " FROM nodes n, " INV_PENDING_EACH " WHERE n.id = ?1",
	[ST_SAMPLES_CLEAR] = "UPDATE nodes SET samples_pending = NULL, samples_pending_n = NULL "
	    "WHERE id = ?1",
	/* One range of the primary key per node: no index on t to keep up. */
	[ST_SAMPLES_PRUNE] = "DELETE FROM samples "
	    "WHERE node_id IN (SELECT id FROM nodes) AND t < ?1",
	/* ?1 before: the pending samples older, counted, then dropped */
	[ST_SAMPLES_PENDING_OLD] = "SELECT count(*) FROM nodes n, " INV_PENDING_EACH
	    " WHERE json_extract(p.value, '$[0]') < ?1",
	[ST_SAMPLES_PENDING_PRUNE] = "UPDATE nodes AS n SET "
	    "samples_pending = (SELECT group_concat(p.value, ',') FROM " INV_PENDING_EACH
	    "  WHERE json_extract(p.value, '$[0]') >= ?1), "
	    "samples_pending_n = (SELECT nullif(count(*), 0) FROM " INV_PENDING_EACH
	    "  WHERE json_extract(p.value, '$[0]') >= ?1) "
	    "WHERE n.samples_pending IS NOT NULL AND "
	    "json_extract('[' || n.samples_pending || ']', '$[0][0]') < ?1",
	[ST_SAMPLES_COUNT_ALL] = "SELECT (SELECT count(*) FROM samples) + "
	    "(SELECT coalesce(sum(samples_pending_n), 0) FROM nodes)",
	[ST_SAMPLES_COUNT_NODE] = "SELECT (SELECT count(*) FROM samples s, nodes n "
	    "WHERE n.name = ?1 AND s.node_id = n.id) + "
	    "(SELECT coalesce(sum(samples_pending_n), 0) FROM nodes WHERE name = ?1)",

	[ST_CLUSTER_ADD] = "INSERT INTO clusters (name, created_at) VALUES (?1, ?2)",
	[ST_CLUSTER_ID] = "SELECT id FROM clusters WHERE name = ?1",
	[ST_CLUSTER_GET] = CLUSTER_SELECT " WHERE c.name = ?1",
	[ST_CLUSTER_LIST] = CLUSTER_SELECT " ORDER BY c.name",

	/* ?1 time, ?2 actor, ?3 node, ?4 what, ?5 reason */
	[ST_EVENT_ADD] = "INSERT INTO events (time, actor, node, what, reason) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	/* ?1 since, ?2 limit, ?3 node: the newest first */
	[ST_EVENT_LIST_ALL] = EVENT_SELECT " WHERE time >= ?1 ORDER BY id DESC LIMIT ?2",
	[ST_EVENT_LIST_NODE] = EVENT_SELECT " WHERE node = ?3 AND time >= ?1 "
	    "ORDER BY id DESC LIMIT ?2",
};

static int
prepare_all(struct inv *inv, char *err, size_t errlen)
{
	for (int i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(inv->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		    &inv->st[i], NULL) != SQLITE_OK) {
			snprintf(err, errlen, "cannot prepare statement %d: %s", i,
			    sqlite3_errmsg(inv->db));
			return -1;
		}
	}
	return 0;
}

/*
 * Process-wide settings, made before SQLite starts up: no memory statistics
 * (each allocation would take a global mutex to count bytes nothing reads)
 * and the page cache of inventory_pcache.c.  Once SQLite has started (a
 * program that used it before its first inv_open), they are refused and
 * SQLite's defaults stay: slower, as correct.
 */
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static void
sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	inv_pcache_install();
}

struct inv *
inv_open(const char *path, char *err, size_t errlen)
{
	struct inv *inv;
	int rc;

	if ((inv = calloc(1, sizeof(*inv))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/*
	 * It holds token hashes: create it 0600 (SQLite gives its -wal and -shm
	 * the database file's mode).  Only when it does not exist yet: closing
	 * a descriptor of a file this process has open in SQLite (the
	 * checkpointer's connection opens after the writer's) would drop every
	 * POSIX lock the process holds on it, and another process's sqlite3
	 * would then take the WAL for abandoned and delete it.
	 */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd != -1)
		close(fd);
	pthread_once(&sqlite_once, sqlite_setup);   /* before inv_vfs() starts SQLite up */
	rc = sqlite3_open_v2(path, &inv->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, inv_vfs());
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    inv->db != NULL ? sqlite3_errmsg(inv->db) : sqlite3_errstr(rc));
		goto fail;
	}
	if ((inv->version = inv_schema_setup(inv->db, path, err, errlen)) == -1)
		goto fail;
	if (prepare_all(inv, err, errlen) == -1)
		goto fail;
	return inv;
fail:
	log_warnx("%s", err);
	inv_close(inv);
	return NULL;
}

void
inv_close(struct inv *inv)
{
	if (inv == NULL)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(inv->st[i]);
	if (inv->db != NULL && sqlite3_close(inv->db) != SQLITE_OK)
		log_warnx("sqlite3_close: %s", sqlite3_errmsg(inv->db));
	free(inv);
}

int
inv_schema_version(struct inv *inv)
{
	return inv->version;
}

/* The first line of PRAGMA integrity_check, which is "ok" when all is. */
static int
check_pages(struct inv *inv, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(inv->db, "PRAGMA integrity_check", -1, &s, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "integrity_check: %s", sqlite3_errmsg(inv->db));
		return -1;
	}
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(s, 0);
		if (v != NULL && strcmp(v, "ok") == 0)
			rc = 0;
		else
			snprintf(err, errlen, "%s", v != NULL ? v : "no answer");
	} else
		snprintf(err, errlen, "integrity_check: %s", sqlite3_errmsg(inv->db));
	sqlite3_finalize(s);
	return rc;
}

/* PRAGMA foreign_key_check: no rows when every reference holds. */
static int
check_references(struct inv *inv, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1, step;

	if (sqlite3_prepare_v2(inv->db, "PRAGMA foreign_key_check", -1, &s, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "foreign_key_check: %s", sqlite3_errmsg(inv->db));
		return -1;
	}
	step = sqlite3_step(s);
	if (step == SQLITE_DONE)
		rc = 0;
	else if (step == SQLITE_ROW)
		snprintf(err, errlen, "%s row %lld refers to a missing %s",
		    (const char *)sqlite3_column_text(s, 0),
		    (long long)sqlite3_column_int64(s, 1),
		    (const char *)sqlite3_column_text(s, 2));
	else
		snprintf(err, errlen, "foreign_key_check: %s", sqlite3_errmsg(inv->db));
	sqlite3_finalize(s);
	return rc;
}

int
inv_integrity_check(struct inv *inv, char *err, size_t errlen)
{
	if (check_pages(inv, err, errlen) == -1 || check_references(inv, err, errlen) == -1) {
		log_warnx("inventory damaged: %s", err);
		return -1;
	}
	return 0;
}

/* ---- transactions ---- */

int
inv_begin(struct inv *inv)
{
	return inv_step_done(inv, inv->st[ST_BEGIN], __func__) == 0 ? 0 : -1;
}

/* A commit that fails leaves nothing half done: the transaction is rolled back. */
int
inv_commit(struct inv *inv)
{
	if (inv_step_done(inv, inv->st[ST_COMMIT], __func__) == 0)
		return 0;
	inv_rollback(inv);
	return -1;
}

void
inv_rollback(struct inv *inv)
{
	if (sqlite3_get_autocommit(inv->db))
		return;
	inv_step_done(inv, inv->st[ST_ROLLBACK], __func__);
}

int
inv_tx_start(struct inv *inv, int *own)
{
	*own = sqlite3_get_autocommit(inv->db) != 0;
	return *own ? inv_begin(inv) : 0;
}

int
inv_tx_end(struct inv *inv, int own, int rc)
{
	if (!own)
		return rc;
	if (rc != 0) {
		inv_rollback(inv);
		return rc;
	}
	return inv_commit(inv);
}

/* ---- checkpoints ---- */

/* The WAL hook: called after each commit with the frames in the WAL. */
static int
wal_counted(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct inv *inv = arg;
	(void)db;
	(void)name;

	atomic_store(&inv->wal_frames, frames);
	return SQLITE_OK;
}

/* SQLite's automatic checkpoint is a WAL hook too: this one replaces it. */
void
inv_wal_watch(struct inv *inv)
{
	sqlite3_wal_hook(inv->db, wal_counted, inv);
}

int
inv_wal_frames(struct inv *inv)
{
	return atomic_load(&inv->wal_frames);
}

int
inv_checkpoint(struct inv *inv, int *wal_frames, int *copied)
{
	int rc = sqlite3_wal_checkpoint_v2(inv->db, NULL, SQLITE_CHECKPOINT_PASSIVE, wal_frames,
	    copied);

	if (rc != SQLITE_OK)
		return INV_FAIL(inv, "checkpoint");
	return 0;
}

/* ---- helpers ---- */

int
inv_db_fail(struct inv *inv, const char *func, const char *what)
{
	log_msg(LOG_LVL_WARN, func, "%s: %s", what, sqlite3_errmsg(inv->db));
	return -1;
}

sqlite3_stmt *
inv_prepare(struct inv *inv, const char *sql, const char *func)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(inv->db, sql, -1, &s, NULL) != SQLITE_OK) {
		inv_db_fail(inv, func, "prepare");
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

int
inv_run(struct inv *inv, sqlite3_stmt *s, const char *func)
{
	int rc = inv_step_done(inv, s, func);

	sqlite3_finalize(s);
	return rc;
}

int
inv_step_done(struct inv *inv, sqlite3_stmt *s, const char *func)
{
	int rc = sqlite3_step(s), ret = 0;

	if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		ret = INV_CONFLICT;
	else if (rc != SQLITE_DONE)
		ret = inv_db_fail(inv, func, "write failed");
	sqlite3_reset(s);
	return ret;
}

int64_t
inv_step_int(struct inv *inv, sqlite3_stmt *s, const char *func)
{
	int64_t v = -1;

	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	else
		inv_db_fail(inv, func, "query failed");
	sqlite3_reset(s);
	return v;
}

int
inv_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v == NULL || v[0] == '\0')
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

int
inv_bind_i64(sqlite3_stmt *s, int i, int64_t v)
{
	if (v == REPORT_NULL_I64)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_int64(s, i, v);
}

int
inv_bind_double(sqlite3_stmt *s, int i, double v)
{
	if (isnan(v))
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_double(s, i, v);
}

void
inv_col_text(sqlite3_stmt *s, int i, char *dst, size_t n)
{
	report_strset(dst, n, (const char *)sqlite3_column_text(s, i));
}

int64_t
inv_col_i64(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return REPORT_NULL_I64;
	return sqlite3_column_int64(s, i);
}

double
inv_col_double(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(s, i);
}

void *
inv_grow(void *arr, int *cap, int n, size_t sz)
{
	int ncap;
	void *np;

	if (n < *cap)
		return arr;
	ncap = *cap > 0 ? *cap * 2 : 16;
	if ((np = realloc(arr, (size_t)ncap * sz)) == NULL) {
		log_warnx("out of memory");
		return NULL;
	}
	*cap = ncap;
	return np;
}

int
inv_rows(struct inv *inv, sqlite3_stmt *s, size_t size, inv_row_fn fn, void **out, int *n)
{
	char *arr = NULL, *np;
	int cap = 0, cnt = 0, rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((np = inv_grow(arr, &cap, cnt, size)) == NULL)
			goto fail;
		arr = np;
		memset(arr + (size_t)cnt * size, 0, size);
		if (fn(s, arr + (size_t)cnt * size) == -1)
			goto fail;
		cnt++;
	}
	if (rc != SQLITE_DONE) {
		INV_FAIL(inv, "query failed");
		goto fail;
	}
	sqlite3_reset(s);
	*out = arr;
	*n = cnt;
	return 0;
fail:
	sqlite3_reset(s);
	free(arr);
	return -1;
}

const char *
inv_state_str(enum node_state st)
{
	if ((int)st < 0 || st >= NODE_STATE_COUNT)
		return NULL;
	return api_node_state_str(st);
}

enum node_state
inv_state_parse(const char *s)
{
	enum node_state st;

	if (api_node_state_parse(s, &st) == 0)
		return st;
	log_warnx("unknown node state \"%s\" in the inventory; read as down",
	    s != NULL ? s : "");
	return NODE_DOWN;
}
