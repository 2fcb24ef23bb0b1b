/*
 * Reading a node's history of samples (the table is written by
 * inv_report_store in inventory_nodes.c), for GET /v1/nodes/{name}/samples.
 * The statement is prepared per call: it is read by people, a few times a
 * minute per node on screen, never on the ingestion path.
 */
#include "inventory_db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* Node ?1's samples since ?2: those of the table, and those pending in its row. */
#define NODE_SAMPLES \
	"WITH s (t, memory_used, memory_total, power_watts, link_speeds) AS (" \
	" SELECT t, memory_used, memory_total, power_watts, link_speeds FROM samples" \
	"  WHERE node_id = ?1 AND t >= ?2" \
	" UNION ALL SELECT " INV_PENDING_COLS " FROM nodes n, " INV_PENDING_EACH \
	"  WHERE n.id = ?1 AND json_extract(p.value, '$[0]') >= ?2) "
/* Newest first (the caller reverses), so that LIMIT keeps the newest. */
static const char *const sql_raw = NODE_SAMPLES
	"SELECT t, memory_used, memory_total, power_watts, link_speeds FROM s"
	" ORDER BY t DESC LIMIT ?3";
/* Per interval: the latest row's values (SQLite's bare columns beside max()),
 * power averaged. */
static const char *const sql_step = NODE_SAMPLES
	"SELECT max(t), memory_used, memory_total, avg(power_watts), link_speeds FROM s"
	" GROUP BY CAST(t / ?4 AS INTEGER) ORDER BY 1 DESC LIMIT ?3";

static int
node_id(struct inv *inv, const char *name, int64_t *id)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if (sqlite3_prepare_v2(inv->db, "SELECT id FROM nodes WHERE name = ?1", -1, &s,
	    NULL) != SQLITE_OK || sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK) {
		sqlite3_finalize(s);
		return INV_FAIL(inv, "prepare");
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? INV_NOTFOUND : INV_FAIL(inv, "query failed");
	sqlite3_finalize(s);
	return rc;
}

static void
read_sample(sqlite3_stmt *s, struct api_sample *out)
{
	out->t = sqlite3_column_double(s, 0);
	out->memory_used_bytes = inv_col_i64(s, 1);
	out->memory_total_bytes = inv_col_i64(s, 2);
	out->power_watts = inv_col_double(s, 3);
	inv_col_text(s, 4, out->link_speeds, sizeof(out->link_speeds));
}

static void
reverse(struct api_sample *a, int n)
{
	for (int i = 0, j = n - 1; i < j; i++, j--) {
		struct api_sample tmp = a[i];
		a[i] = a[j];
		a[j] = tmp;
	}
}

int
inv_samples_list(struct inv *inv, const char *node, double since, double step, int limit,
    struct api_sample **out, int *n)
{
	sqlite3_stmt *s = NULL;
	struct api_sample *arr = NULL;
	int64_t id = 0;
	int cap = 0, count = 0, rc;

	*out = NULL;
	*n = 0;
	if ((rc = node_id(inv, node, &id)) != 0)
		return rc;
	if (sqlite3_prepare_v2(inv->db, step > 0 ? sql_step : sql_raw, -1, &s, NULL) != SQLITE_OK)
		return INV_FAIL(inv, "prepare");
	rc = sqlite3_bind_int64(s, 1, id) | sqlite3_bind_double(s, 2, since) |
	    sqlite3_bind_int(s, 3, limit);
	if (step > 0)
		rc |= sqlite3_bind_double(s, 4, step);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return INV_FAIL(inv, "bind");
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct api_sample *g = inv_grow(arr, &cap, count, sizeof(*arr));
		if (g == NULL) {
			rc = SQLITE_NOMEM;
			break;
		}
		arr = g;
		read_sample(s, &arr[count++]);
	}
	if (rc != SQLITE_DONE) {
		INV_FAIL(inv, "query failed");
		sqlite3_finalize(s);
		free(arr);
		return -1;
	}
	sqlite3_finalize(s);
	reverse(arr, count);
	*out = arr;
	*n = count;
	return 0;
}
