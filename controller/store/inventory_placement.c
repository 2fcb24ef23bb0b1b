/*
 * Models and placements in the inventory (inventory_placement.h).  These
 * are rare operations (an operator's command), so statements are prepared
 * per call rather than at open.
 */
#include "inventory_db.h"
#include "inventory_placement.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"

/* run, for an UPDATE or DELETE of one row: INV_NOTFOUND when it changed none. */
static int
run_one(struct inv *inv, sqlite3_stmt *s, const char *func)
{
	int rc = inv_run(inv, s, func);

	return rc == 0 && sqlite3_changes(inv->db) == 0 ? INV_NOTFOUND : rc;
}

int
inv_model_add(struct inv *inv, const char *name, const char *json, double now)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "INSERT INTO models (name, json, added_at) VALUES (?, ?, ?)");

	if (s == NULL)
		return -1;
	if (inv_bind_text(s, 1, name) != SQLITE_OK || inv_bind_text(s, 2, json) != SQLITE_OK ||
	    sqlite3_bind_double(s, 3, now) != SQLITE_OK) {
		sqlite3_finalize(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_run(inv, s, __func__);
}

int
inv_model_each(struct inv *inv, int (*fn)(void *arg, const char *name, const char *json),
    void *arg)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT name, json FROM models ORDER BY added_at, name");
	int rc;

	if (s == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (fn(arg, (const char *)sqlite3_column_text(s, 0),
		    (const char *)sqlite3_column_text(s, 1)) != 0)
			break;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : INV_FAIL(inv, "step");
}

static int
add_nodes(struct inv *inv, const struct inv_placement_in *p, int64_t id)
{
	for (int i = 0; i < p->n_nodes; i++) {
		sqlite3_stmt *s = INV_PREPARE(inv, "INSERT INTO placement_nodes (placement_id, node, "
		    "bytes) VALUES (?, ?, ?)");
		if (s == NULL)
			return -1;
		sqlite3_bind_int64(s, 1, id);
		inv_bind_text(s, 2, p->nodes[i]);
		sqlite3_bind_int64(s, 3, p->bytes[i]);
		if (inv_run(inv, s, __func__) != 0)
			return -1;
	}
	return 0;
}

int
inv_placement_add(struct inv *inv, const struct inv_placement_in *p, int64_t *id)
{
	int own, rc = -1;
	sqlite3_stmt *s;

	if (inv_tx_start(inv, &own) != 0)
		return -1;
	s = INV_PREPARE(inv, "INSERT INTO placements (model, cluster, strategy, state, created_at, "
	    "plan_json) VALUES (?, ?, ?, ?, ?, ?)");
	if (s != NULL) {
		inv_bind_text(s, 1, p->model);
		inv_bind_text(s, 2, p->cluster);
		inv_bind_text(s, 3, p->strategy);
		inv_bind_text(s, 4, p->state);
		sqlite3_bind_double(s, 5, p->created_at);
		inv_bind_text(s, 6, p->json);
		rc = inv_run(inv, s, __func__);
	}
	if (rc == 0) {
		*id = sqlite3_last_insert_rowid(inv->db);
		rc = add_nodes(inv, p, *id);
	}
	return inv_tx_end(inv, own, rc);
}

static int
read_row(sqlite3_stmt *s, struct inv_placement *p)
{
	const char *json = (const char *)sqlite3_column_text(s, 4);

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(s, 0);
	inv_col_text(s, 1, p->state, sizeof(p->state));
	inv_col_text(s, 2, p->reason, sizeof(p->reason));
	p->created_at = inv_col_double(s, 3);
	p->json = strdup(json != NULL ? json : "");
	return p->json != NULL ? 0 : -1;
}

#define PLACEMENT_COLS "SELECT id, state, reason, created_at, plan_json FROM placements "

int
inv_placement_list(struct inv *inv, struct inv_placement **out, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, PLACEMENT_COLS "ORDER BY id");
	struct inv_placement *arr = NULL, *np;
	int cap = 0, cnt = 0, rc;

	*out = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((np = inv_grow(arr, &cap, cnt, sizeof(*arr))) == NULL ||
		    read_row(s, &np[cnt]) == -1) {
			inv_placements_free(np ? np : arr, cnt);
			sqlite3_finalize(s);
			return -1;
		}
		arr = np;
		cnt++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		inv_placements_free(arr, cnt);
		return INV_FAIL(inv, "step");
	}
	*out = arr;
	*n = cnt;
	return 0;
}

void
inv_placements_free(struct inv_placement *p, int n)
{
	if (p == NULL)
		return;
	for (int i = 0; i < n; i++)
		free(p[i].json);
	free(p);
}

int
inv_placement_get(struct inv *inv, int64_t id, struct inv_placement *out)
{
	sqlite3_stmt *s = INV_PREPARE(inv, PLACEMENT_COLS "WHERE id = ?");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = read_row(s, out);
	else
		rc = rc == SQLITE_DONE ? INV_NOTFOUND : INV_FAIL(inv, "step");
	sqlite3_finalize(s);
	return rc;
}

int
inv_placement_remove(struct inv *inv, int64_t id)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "DELETE FROM placements WHERE id = ?");

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return run_one(inv, s, __func__);
}

int
inv_placement_set_state(struct inv *inv, int64_t id, const char *state, const char *reason)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "UPDATE placements SET state = ?, reason = ? WHERE id = ?");

	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, state);
	inv_bind_text(s, 2, reason);
	sqlite3_bind_int64(s, 3, id);
	return run_one(inv, s, __func__);
}

int64_t
inv_placement_reserved(struct inv *inv, const char *node, int64_t except)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT coalesce(sum(bytes), 0) FROM placement_nodes "
	    "WHERE node = ? AND placement_id != ?");

	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, node);
	sqlite3_bind_int64(s, 2, except);
	int64_t v = inv_step_int(inv, s, __func__);
	sqlite3_finalize(s);
	return v;
}

/* The int64 first column of every row of s (bound), into *ids; finalizes s. */
static int
read_ids(struct inv *inv, sqlite3_stmt *s, int64_t **ids, int *n)
{
	int64_t *arr = NULL, *np;
	int cap = 0, cnt = 0, rc;

	*ids = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((np = inv_grow(arr, &cap, cnt, sizeof(*arr))) == NULL) {
			free(arr);
			sqlite3_finalize(s);
			return -1;
		}
		arr = np;
		arr[cnt++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(arr);
		return INV_FAIL(inv, "step");
	}
	*ids = arr;
	*n = cnt;
	return 0;
}

int
inv_placements_on_node(struct inv *inv, const char *node, int64_t **ids, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT p.id FROM placements p JOIN placement_nodes pn "
	    "ON pn.placement_id = p.id WHERE pn.node = ? AND p.state = 'active' ORDER BY p.id");

	*ids = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, node);
	return read_ids(inv, s, ids, n);
}

int
inv_placements_back_on_node(struct inv *inv, const char *node, int64_t **ids, int *n)
{
	/* degraded without a rollout: by a lost node (placement_node_lost) */
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT p.id FROM placements p JOIN placement_nodes pn "
	    "ON pn.placement_id = p.id WHERE pn.node = ? AND p.state = 'degraded' AND "
	    "p.rollout_id IS NULL AND NOT EXISTS (SELECT 1 FROM placement_nodes pn2 WHERE "
	    "pn2.placement_id = p.id AND NOT EXISTS (SELECT 1 FROM nodes nd WHERE "
	    "nd.name = pn2.node AND nd.state = 'ready')) ORDER BY p.id");

	*ids = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, node);
	return read_ids(inv, s, ids, n);
}

int
inv_placements_to_stop(struct inv *inv, const char *cluster, const char *node,
    int64_t rollout_id, int64_t **ids, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT p.id FROM placements p WHERE p.cluster = ? AND "
	    "p.rollout_id IS NOT ? AND (?3 IS NULL OR EXISTS (SELECT 1 FROM placement_nodes pn "
	    "WHERE pn.placement_id = p.id AND pn.node = ?3)) ORDER BY p.id");

	*ids = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, cluster);
	sqlite3_bind_int64(s, 2, rollout_id);
	if (node != NULL)
		inv_bind_text(s, 3, node);
	return read_ids(inv, s, ids, n);
}

int
inv_placement_stop(struct inv *inv, int64_t id, int64_t rollout_id, const char *reason)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "UPDATE placements SET state = 'degraded', reason = ?, "
	    "rollout_id = ? WHERE id = ?");

	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, reason);
	sqlite3_bind_int64(s, 2, rollout_id);
	sqlite3_bind_int64(s, 3, id);
	return run_one(inv, s, __func__);
}

int
inv_placements_stopped_by(struct inv *inv, int64_t rollout_id, int64_t **ids, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT id FROM placements WHERE rollout_id = ? ORDER BY id");

	*ids = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, rollout_id);
	return read_ids(inv, s, ids, n);
}

int
inv_placement_release(struct inv *inv, int64_t id, const char *state, const char *reason)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "UPDATE placements SET state = ?, reason = ?, "
	    "rollout_id = NULL WHERE id = ?");

	if (s == NULL)
		return -1;
	inv_bind_text(s, 1, state);
	inv_bind_text(s, 2, reason);
	sqlite3_bind_int64(s, 3, id);
	return run_one(inv, s, __func__);
}

int
inv_placement_nodes(struct inv *inv, int64_t id, api_name **names, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT node FROM placement_nodes WHERE placement_id = ? "
	    "ORDER BY node");
	api_name *arr = NULL, *np;
	int cap = 0, cnt = 0, rc;

	*names = NULL;
	*n = 0;
	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((np = inv_grow(arr, &cap, cnt, sizeof(*arr))) == NULL) {
			free(arr);
			sqlite3_finalize(s);
			return -1;
		}
		arr = np;
		inv_col_text(s, 0, arr[cnt++], sizeof(api_name));
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(arr);
		return INV_FAIL(inv, "step");
	}
	*names = arr;
	*n = cnt;
	return 0;
}
