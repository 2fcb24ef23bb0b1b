/*
 * What Prometheus service discovery needs of every node (inv_sd_nodes in
 * inventory.h): its name, cluster, state and model, where its latest report
 * says its agent serves /metrics (agent.listen, read out of the stored
 * report's JSON), and its SSH host (node_ssh), the address that stands in
 * for a wildcard listen address (prom.h).
 *
 * One statement reads every node's report: json_extract parses each stored
 * report (a few kilobytes), so a list of a thousand nodes costs some
 * milliseconds under the caller's lock; Prometheus asks once per refresh
 * interval (a minute by default).
 */
#include "inventory_db.h"

#include <stdlib.h>

#include "log.h"

static const char sql_sd[] =
    "SELECT n.name, c.name, n.state, n.model, "
    "  json_extract(n.report_json, '$.agent.listen'), s.host "
    "FROM nodes n LEFT JOIN clusters c ON c.id = n.cluster_id "
    "  LEFT JOIN node_ssh s ON s.node = n.name "
    "ORDER BY n.name";

static int
row_sd(sqlite3_stmt *s, void *elem)
{
	struct prom_sd_node *nd = elem;
	char state[32];

	inv_col_text(s, 0, nd->name, sizeof(nd->name));
	inv_col_text(s, 1, nd->cluster, sizeof(nd->cluster));
	inv_col_text(s, 2, state, sizeof(state));
	nd->state = inv_state_parse(state);
	inv_col_text(s, 3, nd->model, sizeof(nd->model));
	if (sqlite3_column_type(s, 4) == SQLITE_TEXT)
		inv_col_text(s, 4, nd->listen, sizeof(nd->listen));
	inv_col_text(s, 5, nd->ssh_host, sizeof(nd->ssh_host));
	return 0;
}

int
inv_sd_nodes(struct inv *inv, struct prom_sd_node **out, int *n)
{
	sqlite3_stmt *s = NULL;
	void *rows = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(inv->db, sql_sd, -1, &s, NULL) != SQLITE_OK) {
		log_warnx("%s: %s", __func__, sqlite3_errmsg(inv->db));
		sqlite3_finalize(s);
		return -1;
	}
	rc = inv_rows(inv, s, sizeof(**out), row_sd, &rows, n);
	sqlite3_finalize(s);
	if (rc == -1)
		return -1;
	*out = rows;
	return 0;
}
