/*
 * The inventory's side of zero-touch enrolment (see inventory.h): cluster
 * allow-lists of serial numbers, the accepted flag of pending nodes, and
 * pending re-enrolments (enrol_requests: the request's node token and its
 * latest report, kept apart from the node's record until an admin accepts
 * it).  These are rare operations: each statement is prepared when used.
 */
#include "inventory_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* ---- cluster allow-lists ---- */

static int
allow_one(struct inv *inv, int64_t cid, const char *serial, int add)
{
	sqlite3_stmt *s = inv_prepare(inv, add ?
	    "INSERT OR IGNORE INTO cluster_allow (cluster_id, serial) VALUES (?1, ?2)" :
	    "DELETE FROM cluster_allow WHERE cluster_id = ?1 AND serial = ?2", __func__);

	if (s == NULL)
		return -1;
	if (sqlite3_bind_int64(s, 1, cid) != SQLITE_OK ||
	    sqlite3_bind_text(s, 2, serial, -1, SQLITE_STATIC) != SQLITE_OK) {
		sqlite3_finalize(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_run(inv, s, __func__);
}

static int
allow_count(struct inv *inv, int64_t cid)
{
	sqlite3_stmt *s = inv_prepare(inv, "SELECT count(*) FROM cluster_allow WHERE cluster_id = ?1",
	    __func__);
	int64_t n;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, cid);
	n = inv_step_int(inv, s, __func__);
	sqlite3_finalize(s);
	return (int)n;
}

int
inv_cluster_allow(struct inv *inv, const char *cluster, const api_name *serials, int n,
    int add)
{
	int64_t cid;
	int rc, own;

	if ((rc = inv_cluster_id(inv, cluster, &cid)) != 0)
		return rc;
	if (inv_tx_start(inv, &own) == -1)
		return -1;
	for (int i = 0; rc == 0 && i < n; i++)
		rc = allow_one(inv, cid, serials[i], add);
	if (rc == 0 && add) {
		int count = allow_count(inv, cid);
		rc = count < 0 ? -1 : count > API_ALLOW_MAX ? INV_CONFLICT : 0;
	}
	return inv_tx_end(inv, own, rc);
}

int
inv_cluster_allow_get(struct inv *inv, const char *cluster, struct api_names *out)
{
	sqlite3_stmt *s = inv_prepare(inv, "SELECT a.serial FROM cluster_allow a JOIN clusters c "
	    "ON c.id = a.cluster_id WHERE c.name = ?1 ORDER BY a.serial", __func__);
	int rc;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, cluster, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && out->n < API_ALLOW_MAX)
		inv_col_text(s, 0, out->v[out->n++], sizeof(out->v[0]));
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		rc = INV_FAIL(inv, "query failed");
	else
		rc = 0;
	sqlite3_finalize(s);
	return rc;
}

int
inv_cluster_allows(struct inv *inv, const char *cluster, const char *serial)
{
	sqlite3_stmt *s;
	int64_t n;

	if (cluster[0] == '\0' || serial[0] == '\0')
		return 0;
	s = inv_prepare(inv, "SELECT count(*) FROM cluster_allow a JOIN clusters c "
	    "ON c.id = a.cluster_id WHERE c.name = ?1 AND a.serial = ?2", __func__);
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, cluster, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, serial, -1, SQLITE_STATIC);
	n = inv_step_int(inv, s, __func__);
	sqlite3_finalize(s);
	return n < 0 ? -1 : n > 0;
}

/* ---- nodes and tokens ---- */

int
inv_node_set_accepted(struct inv *inv, int64_t node_id, int accepted)
{
	sqlite3_stmt *s = inv_prepare(inv, "UPDATE nodes SET accepted = ?2 WHERE id = ?1", __func__);

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, node_id);
	sqlite3_bind_int(s, 2, accepted != 0);
	return inv_run(inv, s, __func__);
}

int
inv_node_each_state(struct inv *inv, inv_node_state_fn fn, void *ctx)
{
	sqlite3_stmt *s = inv_prepare(inv, "SELECT name, accepted, report_json FROM nodes ORDER BY id",
	    __func__);
	api_name name;
	int rc;

	if (s == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		inv_col_text(s, 0, name, sizeof(name));
		fn(ctx, name, sqlite3_column_int(s, 1) != 0,
		    (const char *)sqlite3_column_text(s, 2), (size_t)sqlite3_column_bytes(s, 2));
	}
	rc = rc == SQLITE_DONE ? 0 : INV_FAIL(inv, "query failed");
	sqlite3_finalize(s);
	return rc;
}

int
inv_token_supersede(struct inv *inv, const char *node, const char *keep_id)
{
	sqlite3_stmt *s = inv_prepare(inv, "UPDATE tokens SET revoked = 1 "
	    "WHERE role = 'node' AND node = ?1 AND id != ?2", __func__);
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, keep_id, -1, SQLITE_STATIC);
	if ((rc = inv_run(inv, s, __func__)) != 0)
		return rc;
	if ((s = inv_prepare(inv, "UPDATE tokens SET pending = 0 WHERE id = ?1", __func__)) == NULL)
		return -1;
	sqlite3_bind_text(s, 1, keep_id, -1, SQLITE_STATIC);
	return inv_run(inv, s, __func__);
}

/* ---- pending re-enrolments ---- */

int
inv_enrol_request_put(struct inv *inv, const char *token_id, int64_t node_id, double at,
    const char *json, size_t len)
{
	sqlite3_stmt *s = inv_prepare(inv, "INSERT INTO enrol_requests (token_id, node_id, "
	    "requested_at, received_at, report_json) VALUES (?1, ?2, ?3, ?3, ?4) "
	    "ON CONFLICT (token_id) DO UPDATE SET received_at = ?3, report_json = ?4",
	    __func__);
	int rc = 0;

	if (s == NULL)
		return -1;
	rc |= sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(s, 2, node_id);
	rc |= sqlite3_bind_double(s, 3, at);
	rc |= sqlite3_bind_text64(s, 4, json, len, SQLITE_STATIC, SQLITE_UTF8);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_run(inv, s, __func__);
}

int
inv_enrol_request_latest(struct inv *inv, int64_t node_id, struct inv_enrol_request *out)
{
	sqlite3_stmt *s = inv_prepare(inv, "SELECT token_id, requested_at, received_at, report_json "
	    "FROM enrol_requests WHERE node_id = ?1 ORDER BY requested_at DESC, rowid DESC "
	    "LIMIT 1", __func__);
	int rc;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, node_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		inv_col_text(s, 0, out->token_id, sizeof(out->token_id));
		out->requested_at = inv_col_double(s, 1);
		out->received_at = inv_col_double(s, 2);
		size_t len = (size_t)sqlite3_column_bytes(s, 3);
		if ((out->json = malloc(len + 1)) == NULL) {
			rc = -1;
		} else {
			memcpy(out->json, sqlite3_column_text(s, 3), len);
			out->json[len] = '\0';
			out->json_len = len;
			rc = 0;
		}
	} else {
		rc = rc == SQLITE_DONE ? INV_NOTFOUND : INV_FAIL(inv, "query failed");
	}
	sqlite3_finalize(s);
	return rc;
}

int
inv_enrol_requests_drop(struct inv *inv, int64_t node_id)
{
	sqlite3_stmt *s = inv_prepare(inv, "DELETE FROM enrol_requests WHERE node_id = ?1", __func__);

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, node_id);
	return inv_run(inv, s, __func__);
}
