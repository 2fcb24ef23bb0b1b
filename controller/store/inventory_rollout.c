/*
 * The inventory's SSH access, credential owners and OS update campaigns
 * (see inventory.h for the contracts).
 *
 *   node_ssh         node (name) PRIMARY KEY, host, port, user, host_key
 *                    ("SHA256:..." pinned; NULL none), trusted_at
 *   ssh_credentials  scope ("node:NAME" or "cluster:NAME") PRIMARY KEY, user,
 *                    set_at; the password itself is a file under the
 *                    controller's state directory, never in this file
 *   rollouts         id, cluster, target, label, mode, max_unavailable,
 *                    window_start/window_end (minutes of the day, UTC;
 *                    NULL none), state, reason, created_at, updated_at
 *   rollout_nodes    (rollout_id, ord) WITHOUT ROWID: node, step, running
 *                    (its start recorded, its end not), since,
 *                    cordoned_before (NULL unknown), cordoned_by_us,
 *                    boot_before, wired_before, links_before (NULL unknown),
 *                    failed_step, last_line, reason, install_at (when the
 *                    install command was sent; NULL not sent)
 *   rollout_log      id (order), rollout_id, node, step, phase ("begin",
 *                    "end"), time, status (the step's outcome: 0 ok, 1
 *                    failed, 2 skipped), output (the step's captured
 *                    output, the password never in it)
 */
#include "inventory_db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static sqlite3_stmt *
prep(struct inv *inv, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(inv->db, sql, -1, &s, NULL) != SQLITE_OK) {
		log_warnx("%s: %s", sql, sqlite3_errmsg(inv->db));
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

/* Step a statement that returns no rows and finalize it: 0 or -1. */
static int
exec_done(struct inv *inv, sqlite3_stmt *s, const char *func)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE)
		log_warnx("%s: %s", func, sqlite3_errmsg(inv->db));
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* ---- SSH access ---- */

static int
node_exists(struct inv *inv, const char *node)
{
	sqlite3_stmt *s = prep(inv, "SELECT 1 FROM nodes WHERE name = ?");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? INV_NOTFOUND : -1;
}

int
inv_ssh_set(struct inv *inv, const struct ro_ssh *in)
{
	sqlite3_stmt *s;
	int rc;

	if ((rc = node_exists(inv, in->node)) != 0)
		return rc;
	s = prep(inv, "INSERT INTO node_ssh (node, host, port, user) VALUES (?, ?, ?, ?) "
	    "ON CONFLICT(node) DO UPDATE SET host = excluded.host, port = excluded.port, "
	    "user = excluded.user");
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, in->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, in->host, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, in->port);
	sqlite3_bind_text(s, 4, in->user, -1, SQLITE_STATIC);
	return exec_done(inv, s, __func__);
}

int
inv_ssh_trust(struct inv *inv, const char *node, const char *fp, double now)
{
	sqlite3_stmt *s = prep(inv, "UPDATE node_ssh SET host_key = ?, trusted_at = ? "
	    "WHERE node = ?");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, fp, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 2, now);
	sqlite3_bind_text(s, 3, node, -1, SQLITE_STATIC);
	if ((rc = exec_done(inv, s, __func__)) != 0)
		return rc;
	return sqlite3_changes(inv->db) == 1 ? 0 : INV_NOTFOUND;
}

int
inv_ssh_get(struct inv *inv, const char *node, struct ro_ssh *out)
{
	sqlite3_stmt *s = prep(inv, "SELECT node, host, port, user, host_key FROM node_ssh "
	    "WHERE node = ?");
	int rc;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		inv_col_text(s, 0, out->node, sizeof(out->node));
		inv_col_text(s, 1, out->host, sizeof(out->host));
		out->port = sqlite3_column_int(s, 2);
		inv_col_text(s, 3, out->user, sizeof(out->user));
		inv_col_text(s, 4, out->host_key, sizeof(out->host_key));
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? INV_NOTFOUND : -1;
}

/* ---- credential owners ---- */

int
inv_cred_set(struct inv *inv, const char *scope, const char *user, double now)
{
	sqlite3_stmt *s = prep(inv, "INSERT OR REPLACE INTO ssh_credentials (scope, user, set_at) "
	    "VALUES (?, ?, ?)");

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, user, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, now);
	return exec_done(inv, s, __func__);
}

int
inv_cred_get(struct inv *inv, const char *scope, char *user, size_t size)
{
	sqlite3_stmt *s = prep(inv, "SELECT user FROM ssh_credentials WHERE scope = ?");
	int rc;

	user[0] = '\0';
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, scope, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		inv_col_text(s, 0, user, size);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? INV_NOTFOUND : -1;
}

/* ---- campaigns ---- */

static int
save_node(struct inv *inv, int64_t id, int ord, const struct ro_node *n)
{
	sqlite3_stmt *s = prep(inv, "INSERT OR REPLACE INTO rollout_nodes (rollout_id, ord, node, "
	    "step, running, since, cordoned_before, cordoned_by_us, boot_before, wired_before, "
	    "failed_step, last_line, reason, links_before, install_at) "
	    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, ord);
	sqlite3_bind_text(s, 3, n->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, ro_step_str(n->step), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 5, n->running);
	inv_bind_double(s, 6, n->since);
	if (n->cordoned_before >= 0)
		sqlite3_bind_int(s, 7, n->cordoned_before);
	sqlite3_bind_int(s, 8, n->cordoned_by_us);
	inv_bind_double(s, 9, n->boot_before);
	inv_bind_i64(s, 10, n->wired_before);
	if (n->step == RO_FAILED)
		sqlite3_bind_text(s, 11, ro_step_str(n->failed_step), -1, SQLITE_STATIC);
	inv_bind_text(s, 12, n->last_line);
	inv_bind_text(s, 13, n->reason);
	if (n->links_before >= 0)
		sqlite3_bind_int(s, 14, n->links_before);
	inv_bind_double(s, 15, n->install_at);
	return exec_done(inv, s, __func__);
}

static int
save_campaign_row(struct inv *inv, const struct ro_campaign *c, int insert)
{
	sqlite3_stmt *s = prep(inv, insert ?
	    "INSERT INTO rollouts (cluster, target, label, mode, max_unavailable, window_start, "
	    "window_end, state, reason, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)" :
	    "UPDATE rollouts SET cluster = ?, target = ?, label = ?, mode = ?, "
	    "max_unavailable = ?, window_start = ?, window_end = ?, state = ?, reason = ?, "
	    "created_at = ?, updated_at = ? WHERE id = ?");

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, c->cluster, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, c->target, -1, SQLITE_STATIC);
	inv_bind_text(s, 3, c->label);
	sqlite3_bind_text(s, 4, ro_mode_str(c->mode), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 5, c->max_unavailable);
	if (c->window_start >= 0) {
		sqlite3_bind_int(s, 6, c->window_start);
		sqlite3_bind_int(s, 7, c->window_end);
	}
	sqlite3_bind_text(s, 8, ro_state_str(c->state), -1, SQLITE_STATIC);
	inv_bind_text(s, 9, c->reason);
	sqlite3_bind_double(s, 10, c->created_at);
	sqlite3_bind_double(s, 11, c->updated_at);
	if (!insert)
		sqlite3_bind_int64(s, 12, c->id);
	return exec_done(inv, s, __func__);
}

int
inv_rollout_add(struct inv *inv, struct ro_campaign *c)
{
	int own, rc;

	if (inv_tx_start(inv, &own) != 0)
		return -1;
	rc = save_campaign_row(inv, c, 1);
	if (rc == 0)
		c->id = sqlite3_last_insert_rowid(inv->db);
	for (int i = 0; rc == 0 && i < c->n; i++)
		rc = save_node(inv, c->id, i, &c->nodes[i]);
	return inv_tx_end(inv, own, rc);
}

int
inv_rollout_save(struct inv *inv, const struct ro_campaign *c)
{
	int own, rc;

	if (inv_tx_start(inv, &own) != 0)
		return -1;
	rc = save_campaign_row(inv, c, 0);
	for (int i = 0; rc == 0 && i < c->n; i++)
		rc = save_node(inv, c->id, i, &c->nodes[i]);
	return inv_tx_end(inv, own, rc);
}

static void
read_node(sqlite3_stmt *s, struct ro_node *n)
{
	char step[32], fstep[32];

	memset(n, 0, sizeof(*n));
	inv_col_text(s, 0, n->node, sizeof(n->node));
	inv_col_text(s, 1, step, sizeof(step));
	if (ro_step_parse(step, &n->step) == -1)
		n->step = RO_FAILED;
	n->running = sqlite3_column_int(s, 2);
	n->since = inv_col_double(s, 3);
	n->cordoned_before = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 4);
	n->cordoned_by_us = sqlite3_column_int(s, 5);
	n->boot_before = inv_col_double(s, 6);
	n->wired_before = inv_col_i64(s, 7);
	inv_col_text(s, 8, fstep, sizeof(fstep));
	if (ro_step_parse(fstep, &n->failed_step) == -1)
		n->failed_step = RO_PREFLIGHT;
	inv_col_text(s, 9, n->last_line, sizeof(n->last_line));
	inv_col_text(s, 10, n->reason, sizeof(n->reason));
	n->links_before = sqlite3_column_type(s, 11) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 11);
	n->install_at = inv_col_double(s, 12);
}

static int
read_nodes(struct inv *inv, struct ro_campaign *c)
{
	sqlite3_stmt *s = prep(inv, "SELECT node, step, running, since, cordoned_before, "
	    "cordoned_by_us, boot_before, wired_before, failed_step, last_line, reason, "
	    "links_before, install_at FROM rollout_nodes WHERE rollout_id = ? ORDER BY ord");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, c->id);
	c->n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && c->n < RO_NODES_MAX)
		read_node(s, &c->nodes[c->n++]);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

#define CAMPAIGN_COLS "id, cluster, target, label, mode, max_unavailable, window_start, " \
	"window_end, state, reason, created_at, updated_at"

static void
read_campaign(sqlite3_stmt *s, struct ro_campaign *c)
{
	char mode[32], state[32];

	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(s, 0);
	inv_col_text(s, 1, c->cluster, sizeof(c->cluster));
	inv_col_text(s, 2, c->target, sizeof(c->target));
	inv_col_text(s, 3, c->label, sizeof(c->label));
	inv_col_text(s, 4, mode, sizeof(mode));
	ro_mode_parse(mode, &c->mode);
	c->max_unavailable = sqlite3_column_int(s, 5);
	c->window_start = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
	c->window_end = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 7);
	inv_col_text(s, 8, state, sizeof(state));
	if (ro_state_parse(state, &c->state) == -1)
		c->state = RO_HALTED;
	inv_col_text(s, 9, c->reason, sizeof(c->reason));
	c->created_at = inv_col_double(s, 10);
	c->updated_at = inv_col_double(s, 11);
}

int
inv_rollout_get(struct inv *inv, int64_t id, struct ro_campaign *c)
{
	sqlite3_stmt *s = prep(inv, "SELECT " CAMPAIGN_COLS " FROM rollouts WHERE id = ?");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		read_campaign(s, c);
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return INV_NOTFOUND;
	if (rc != SQLITE_ROW)
		return -1;
	return read_nodes(inv, c);
}

int
inv_rollout_ids(struct inv *inv, int only_running, int64_t *ids, int max, int *n)
{
	sqlite3_stmt *s = prep(inv, only_running ?
	    "SELECT id FROM rollouts WHERE state = 'running' ORDER BY id" :
	    "SELECT id FROM rollouts ORDER BY id DESC");
	int rc;

	*n = 0;
	if (s == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && *n < max)
		ids[(*n)++] = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int
inv_rollout_open_on(struct inv *inv, const char *cluster, int64_t *id)
{
	sqlite3_stmt *s = prep(inv, "SELECT id FROM rollouts WHERE cluster = ? AND state IN "
	    "('running', 'paused', 'halted') ORDER BY id LIMIT 1");
	int rc;

	*id = 0;
	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, cluster, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int
inv_rollout_install_at(struct inv *inv, int64_t id, int ord, double t)
{
	sqlite3_stmt *s = prep(inv, "UPDATE rollout_nodes SET install_at = ? "
	    "WHERE rollout_id = ? AND ord = ?");

	if (s == NULL)
		return -1;
	inv_bind_double(s, 1, t);
	sqlite3_bind_int64(s, 2, id);
	sqlite3_bind_int(s, 3, ord);
	if (exec_done(inv, s, __func__) != 0)
		return -1;
	return sqlite3_changes(inv->db) == 1 ? 0 : -1;
}

int
inv_rollout_log(struct inv *inv, int64_t id, const char *node, enum ro_step step,
    const char *phase, double t, int status, const char *output)
{
	sqlite3_stmt *s = prep(inv, "INSERT INTO rollout_log (rollout_id, node, step, phase, "
	    "time, status, output) VALUES (?,?,?,?,?,?,?)");

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, node, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, ro_step_str(step), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, phase, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 5, t);
	if (status >= 0)
		sqlite3_bind_int(s, 6, status);
	inv_bind_text(s, 7, output);
	return exec_done(inv, s, __func__);
}
