/*
 * Each cluster's expected wiring: its topology and, for an explicit plan,
 * the plan as DOT text (the controller parses it with wiring_dot_parse()).
 * Rarely used, so the statements are prepared per call.
 */
#include "inventory_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
inv_wiring_get(struct inv *inv, const char *cluster, char *topology, size_t topolen,
    char **dot, double *updated_at)
{
	static const char sql[] = "SELECT w.topology, w.plan_dot, w.updated_at "
	    "FROM cluster_wiring w WHERE w.cluster_id = ?1";
	sqlite3_stmt *s = NULL;
	int64_t id;
	int rc;

	*dot = NULL;
	*updated_at = NAN;
	snprintf(topology, topolen, "mesh");
	if ((rc = inv_cluster_id(inv, cluster, &id)) != 0)
		return rc;
	if (sqlite3_prepare_v2(inv->db, sql, -1, &s, NULL) != SQLITE_OK)
		return INV_FAIL(inv, "prepare");
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const unsigned char *d = sqlite3_column_text(s, 1);

		inv_col_text(s, 0, topology, topolen);
		*updated_at = inv_col_double(s, 2);
		if (d != NULL && (*dot = strdup((const char *)d)) == NULL)
			rc = INV_FAIL(inv, "out of memory");
		else
			rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_finalize(s);
	return rc;
}

int
inv_wiring_set(struct inv *inv, const char *cluster, const char *topology, const char *dot,
    double now)
{
	static const char sql[] = "INSERT INTO cluster_wiring (cluster_id, topology, plan_dot, "
	    "updated_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(cluster_id) DO UPDATE SET "
	    "topology = excluded.topology, plan_dot = excluded.plan_dot, "
	    "updated_at = excluded.updated_at";
	sqlite3_stmt *s = NULL;
	int64_t id;
	int rc;

	if ((rc = inv_cluster_id(inv, cluster, &id)) != 0)
		return rc;
	if (sqlite3_prepare_v2(inv->db, sql, -1, &s, NULL) != SQLITE_OK)
		return INV_FAIL(inv, "prepare");
	sqlite3_bind_int64(s, 1, id);
	inv_bind_text(s, 2, topology);
	inv_bind_text(s, 3, dot ? dot : "");
	inv_bind_double(s, 4, now);
	rc = inv_step_done(inv, s, __func__);
	sqlite3_finalize(s);
	return rc;
}
