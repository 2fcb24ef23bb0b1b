/*
 * Internal to the inventory module (inventory*.c): the connection, its
 * prepared statements and the helpers that map the report's nulls (NAN,
 * REPORT_NULL_I64, "") to SQL NULL and back.  Nothing outside inventory*.c
 * and their unit tests includes this header: it is the only place besides
 * them that names sqlite3.
 */
#ifndef TBMESH_INVENTORY_DB_H
#define TBMESH_INVENTORY_DB_H

#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

/*
 * A node's newest samples wait in its row until INV_SAMPLES_PENDING have
 * come: nodes.samples_pending holds them as JSON arrays [t, memory_used,
 * memory_total, power_watts, link_speeds] joined by commas, oldest first,
 * and samples_pending_n counts them (both NULL when none).  Then they go to
 * the samples table together, in the same transaction as the report that
 * completed them.  A report rewrites its node's row anyway: so it changes
 * one page, not two (the row's, and the last of the node's run in the
 * samples table), and that run's page changes once per INV_SAMPLES_PENDING
 * reports.  Appending is text: no JSON is parsed on the way in.  Whoever
 * reads samples reads both (inventory_samples.c).
 */
#define INV_SAMPLES_PENDING 8
/* json_each of the pending samples of node row n, as p. */
#define INV_PENDING_EACH "json_each('[' || n.samples_pending || ']') p"
/* The columns of samples, from a pending sample p. */
#define INV_PENDING_COLS "json_extract(p.value, '$[0]'), json_extract(p.value, '$[1]'), " \
	"json_extract(p.value, '$[2]'), json_extract(p.value, '$[3]'), " \
	"json_extract(p.value, '$[4]')"

/* The statements prepared at open; their SQL is in inventory.c. */
enum inv_stmt {
	ST_BEGIN,
	ST_COMMIT,
	ST_ROLLBACK,
	ST_TOKEN_ADD,
	ST_TOKEN_GET,
	ST_TOKEN_LIST,
	ST_TOKEN_EXISTS,
	ST_TOKEN_REVOKE,
	ST_TOKEN_USE,
	ST_TOKEN_REVOKE_NODE,
	ST_TOKEN_COUNT,
	ST_NODE_BY_UUID,
	ST_NODE_NAME_OWNER,
	ST_NODE_INSERT,
	ST_NODE_REENROLL,
	ST_NODE_KEYS,
	ST_NODE_GET,
	ST_NODE_LIST,
	ST_NODE_REPORT,
	ST_NODE_SET_STATE,
	ST_NODE_SET_CLUSTER,
	ST_NODE_REMOVE,
	ST_REPORT_UPDATE,
	ST_SAMPLE_INSERT,
	ST_SAMPLES_PENDING_N,
	ST_SAMPLES_FLUSH,
	ST_SAMPLES_CLEAR,
	ST_SAMPLES_PRUNE,
	ST_SAMPLES_PENDING_OLD,
	ST_SAMPLES_PENDING_PRUNE,
	ST_SAMPLES_COUNT_ALL,
	ST_SAMPLES_COUNT_NODE,
	ST_CLUSTER_ADD,
	ST_CLUSTER_ID,
	ST_CLUSTER_GET,
	ST_CLUSTER_LIST,
	ST_EVENT_ADD,
	ST_EVENT_LIST_ALL,
	ST_EVENT_LIST_NODE,
	ST_COUNT
};

struct inv {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	int version;                /* schema version after migrations */
	atomic_int wal_frames;      /* after the last commit, once inv_wal_watch is on */
};

/* inventory_schema.c */
/*
 * Check that the open connection db is a tbmesh inventory this code can use
 * (or an empty file), set the connection's pragmas (WAL, synchronous=FULL,
 * foreign keys, busy timeout) and apply the missing migrations, each in its
 * own transaction.  Returns the schema version, or -1 with the reason in err.
 */
int inv_schema_setup(sqlite3 *db, const char *path, char *err, size_t errlen);
/* The version the code knows: migrations up to this one exist. */
int inv_schema_latest(void);

/* inventory.c: statement helpers shared by the inventory files. */
/* Log "what: <sqlite3 message>" in the name of func; returns -1. */
int inv_db_fail(struct inv *inv, const char *func, const char *what);
#define INV_FAIL(inv, what) inv_db_fail((inv), __func__, (what))

/*
 * Step a statement that returns no rows, then reset it.  Returns 0,
 * INV_CONFLICT for a UNIQUE or PRIMARY KEY violation, or -1 (logged in the
 * name of func).
 */
int inv_step_done(struct inv *inv, sqlite3_stmt *s, const char *func);
/*
 * For a statement used once: prepare sql (NULL on failure, logged in the
 * name of func), and step one without rows then finalize it (what
 * inv_step_done returns).
 */
sqlite3_stmt *inv_prepare(struct inv *inv, const char *sql, const char *func);
int inv_run(struct inv *inv, sqlite3_stmt *s, const char *func);
#define INV_PREPARE(inv, sql) inv_prepare((inv), (sql), __func__)
/* Step a one-row, one-integer query ("SELECT count(*)"); -1 on error. */
int64_t inv_step_int(struct inv *inv, sqlite3_stmt *s, const char *func);

/*
 * Begin a transaction when none is open (*own = 1) or join the caller's
 * (*own = 0).  inv_tx_end commits what it began when rc is 0 and rolls it
 * back otherwise; it returns rc, or -1 when the commit failed.
 */
int inv_tx_start(struct inv *inv, int *own);
int inv_tx_end(struct inv *inv, int own, int rc);

/*
 * Binding and reading with the report's nulls: text "" or NULL, int64
 * REPORT_NULL_I64 and double NAN are SQL NULL.  Bound text is not copied
 * (SQLITE_STATIC): it must live until the statement is stepped.
 */
int inv_bind_text(sqlite3_stmt *s, int i, const char *v);
int inv_bind_i64(sqlite3_stmt *s, int i, int64_t v);
int inv_bind_double(sqlite3_stmt *s, int i, double v);
void inv_col_text(sqlite3_stmt *s, int i, char *dst, size_t n);
int64_t inv_col_i64(sqlite3_stmt *s, int i);
double inv_col_double(sqlite3_stmt *s, int i);

/*
 * Make room for element n of arr (elements of size sz, *cap allocated):
 * returns arr or its reallocation, or NULL when out of memory (arr is then
 * still valid and the caller frees it).
 */
void *inv_grow(void *arr, int *cap, int n, size_t sz);

/* Reads the current row of a statement into elem; 0, or -1. */
typedef int (*inv_row_fn)(sqlite3_stmt *s, void *elem);
/*
 * Step s (bound) to its end, each row read by fn into the next element
 * (size bytes, zeroed first) of an array; s is reset either way.  Returns 0
 * with *out (malloc'd, NULL when no row; free it) and *n, or -1.
 */
int inv_rows(struct inv *inv, sqlite3_stmt *s, size_t size, inv_row_fn fn, void **out,
    int *n);

/*
 * inventory_vfs.c: the name of the SQLite VFS inventory connections use
 * (the default VFS, with the writes to the WAL gathered into one write per
 * commit), or NULL for the default VFS when it could not be set up.
 */
const char *inv_vfs(void);

/*
 * inventory_pcache.c: make SQLite's page cache skip the end-of-transaction
 * walk it would do for nothing after B-tree splits.  Once per process,
 * before SQLite is first used; later, it changes nothing.
 */
void inv_pcache_install(void);
/* Since start, over all connections (for tests and profiling). */
struct inv_pcache_stats {
	unsigned long truncates;    /* asked of the caches */
	unsigned long passed;       /* of those, passed on to SQLite's cache */
	unsigned long parks;        /* pages swapped through the spare number */
};
void inv_pcache_stats(struct inv_pcache_stats *st);

/* inventory_admin.c: a cluster's id by name; 0, INV_NOTFOUND or -1. */
int inv_cluster_id(struct inv *inv, const char *name, int64_t *id);

/* Node states as the database spells them (the API's words). */
const char *inv_state_str(enum node_state st);
enum node_state inv_state_parse(const char *s);

#endif
