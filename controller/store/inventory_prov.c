/*
 * inventory_prov: provisioning runs, their preflight lines and steps
 * (tables provisions, provision_lines, provision_steps).  Statements are
 * prepared per call: a run writes a few dozen rows.
 */
#include "inventory_db.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "prov_api.h"

/* Prepare sql; -1 logged. */
static int
prepare(struct inv *inv, const char *sql, sqlite3_stmt **s, const char *func)
{
	if (sqlite3_prepare_v2(inv->db, sql, -1, s, NULL) != SQLITE_OK)
		return inv_db_fail(inv, func, "prepare");
	return 0;
}

/* Step s to its end and finalize it: 0, or -1 logged. */
static int
run_done(struct inv *inv, sqlite3_stmt *s, int bound, const char *func)
{
	int rc = bound == SQLITE_OK ? sqlite3_step(s) : bound;

	if (rc != SQLITE_DONE) {
		inv_db_fail(inv, func, bound == SQLITE_OK ? "step" : "bind");
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	return 0;
}

int
inv_prov_add(struct inv *inv, struct prov_api_status *s)
{
	sqlite3_stmt *st;
	int b;

	if (prepare(inv, "INSERT INTO provisions (kind, host, node, cluster, state, dry_run, "
	    "fingerprint, started_at, port, user, key_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9, ?10, ?11)", &st, __func__))
		return -1;
	b = sqlite3_bind_text(st, 1, s->kind, -1, SQLITE_STATIC);
	b = b ? b : sqlite3_bind_text(st, 2, s->host, -1, SQLITE_STATIC);
	b = b ? b : inv_bind_text(st, 3, s->node);
	b = b ? b : inv_bind_text(st, 4, s->cluster);
	b = b ? b : sqlite3_bind_text(st, 5, s->state, -1, SQLITE_STATIC);
	b = b ? b : sqlite3_bind_int(st, 6, s->dry_run != 0);
	b = b ? b : inv_bind_text(st, 7, s->fingerprint);
	b = b ? b : sqlite3_bind_double(st, 8, s->started_at);
	b = b ? b : sqlite3_bind_int(st, 9, s->port);
	b = b ? b : inv_bind_text(st, 10, s->user);
	b = b ? b : inv_bind_text(st, 11, s->key_file);
	if (run_done(inv, st, b, __func__) != 0)
		return -1;
	s->id = sqlite3_last_insert_rowid(inv->db);
	return 0;
}

int
inv_prov_update(struct inv *inv, const struct prov_api_status *s)
{
	sqlite3_stmt *st;
	int b;

	if (prepare(inv, "UPDATE provisions SET node = ?2, cluster = ?3, state = ?4, "
	    "fingerprint = ?5, failed_step = ?6, reason = ?7, manual = ?8, finished_at = ?9 "
	    "WHERE id = ?1", &st, __func__))
		return -1;
	b = sqlite3_bind_int64(st, 1, s->id);
	b = b ? b : inv_bind_text(st, 2, s->node);
	b = b ? b : inv_bind_text(st, 3, s->cluster);
	b = b ? b : sqlite3_bind_text(st, 4, s->state, -1, SQLITE_STATIC);
	b = b ? b : inv_bind_text(st, 5, s->fingerprint);
	b = b ? b : inv_bind_text(st, 6, s->failed_step);
	b = b ? b : inv_bind_text(st, 7, s->reason);
	b = b ? b : inv_bind_text(st, 8, s->manual);
	b = b ? b : inv_bind_double(st, 9, s->finished_at);
	if (run_done(inv, st, b, __func__) != 0)
		return -1;
	return sqlite3_changes(inv->db) == 1 ? 0 : INV_NOTFOUND;
}

int
inv_prov_line(struct inv *inv, int64_t id, int ord, const struct prov_api_line *l)
{
	sqlite3_stmt *st;
	int b;

	if (prepare(inv, "INSERT INTO provision_lines (provision_id, ord, what, verdict, text) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)", &st, __func__))
		return -1;
	b = sqlite3_bind_int64(st, 1, id);
	b = b ? b : sqlite3_bind_int(st, 2, ord);
	b = b ? b : sqlite3_bind_text(st, 3, l->what, -1, SQLITE_STATIC);
	b = b ? b : sqlite3_bind_text(st, 4, l->verdict, -1, SQLITE_STATIC);
	b = b ? b : sqlite3_bind_text(st, 5, l->text, -1, SQLITE_STATIC);
	return run_done(inv, st, b, __func__);
}

int
inv_prov_step(struct inv *inv, int64_t id, int ord, const struct prov_api_step *r)
{
	sqlite3_stmt *st;
	int b;

	if (prepare(inv, "INSERT INTO provision_steps (provision_id, ord, step, title, outcome, "
	    "command, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, __func__))
		return -1;
	b = sqlite3_bind_int64(st, 1, id);
	b = b ? b : sqlite3_bind_int(st, 2, ord);
	b = b ? b : sqlite3_bind_text(st, 3, r->step, -1, SQLITE_STATIC);
	b = b ? b : inv_bind_text(st, 4, r->title);
	b = b ? b : sqlite3_bind_text(st, 5, r->outcome, -1, SQLITE_STATIC);
	b = b ? b : inv_bind_text(st, 6, r->command);
	b = b ? b : inv_bind_text(st, 7, r->detail);
	return run_done(inv, st, b, __func__);
}

static int
get_rows(struct inv *inv, struct prov_api_status *o)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(inv, "SELECT what, verdict, text FROM provision_lines WHERE provision_id = ?1 "
	    "ORDER BY ord", &st, __func__) || sqlite3_bind_int64(st, 1, o->id) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && o->n_preflight < PROV_API_LINES_MAX) {
		struct prov_api_line *l = &o->preflight[o->n_preflight++];
		inv_col_text(st, 0, l->what, sizeof(l->what));
		inv_col_text(st, 1, l->verdict, sizeof(l->verdict));
		inv_col_text(st, 2, l->text, sizeof(l->text));
	}
	sqlite3_finalize(st);
	if (prepare(inv, "SELECT step, title, outcome, command, detail FROM provision_steps "
	    "WHERE provision_id = ?1 ORDER BY ord", &st, __func__) ||
	    sqlite3_bind_int64(st, 1, o->id) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && o->n_steps < PROV_API_STEPS_MAX) {
		struct prov_api_step *r = &o->steps[o->n_steps++];
		inv_col_text(st, 0, r->step, sizeof(r->step));
		inv_col_text(st, 1, r->title, sizeof(r->title));
		inv_col_text(st, 2, r->outcome, sizeof(r->outcome));
		inv_col_text(st, 3, r->command, sizeof(r->command));
		inv_col_text(st, 4, r->detail, sizeof(r->detail));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : inv_db_fail(inv, __func__, "step");
}

int
inv_prov_get(struct inv *inv, int64_t id, struct prov_api_status *o)
{
	sqlite3_stmt *st;
	int rc;

	memset(o, 0, sizeof(*o));
	if (prepare(inv, "SELECT kind, host, node, cluster, state, dry_run, fingerprint, "
	    "failed_step, reason, manual, started_at, finished_at, port, user, key_file "
	    "FROM provisions WHERE id = ?1",
	    &st, __func__) || sqlite3_bind_int64(st, 1, id) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? INV_NOTFOUND : inv_db_fail(inv, __func__, "step");
	}
	o->id = id;
	inv_col_text(st, 0, o->kind, sizeof(o->kind));
	inv_col_text(st, 1, o->host, sizeof(o->host));
	inv_col_text(st, 2, o->node, sizeof(o->node));
	inv_col_text(st, 3, o->cluster, sizeof(o->cluster));
	inv_col_text(st, 4, o->state, sizeof(o->state));
	o->dry_run = sqlite3_column_int(st, 5);
	inv_col_text(st, 6, o->fingerprint, sizeof(o->fingerprint));
	inv_col_text(st, 7, o->failed_step, sizeof(o->failed_step));
	inv_col_text(st, 8, o->reason, sizeof(o->reason));
	inv_col_text(st, 9, o->manual, sizeof(o->manual));
	o->started_at = inv_col_double(st, 10);
	o->finished_at = inv_col_double(st, 11);
	o->port = sqlite3_column_int(st, 12);
	inv_col_text(st, 13, o->user, sizeof(o->user));
	inv_col_text(st, 14, o->key_file, sizeof(o->key_file));
	sqlite3_finalize(st);
	return get_rows(inv, o);
}

int
inv_prov_interrupted(struct inv *inv, double now, const char *reason)
{
	sqlite3_stmt *st;
	int b;

	if (prepare(inv, "UPDATE provisions SET state = 'failed', reason = ?1, finished_at = ?2 "
	    "WHERE state IN ('running', 'waiting')", &st, __func__))
		return -1;
	b = sqlite3_bind_text(st, 1, reason, -1, SQLITE_STATIC);
	b = b ? b : sqlite3_bind_double(st, 2, now);
	if (run_done(inv, st, b, __func__) != 0)
		return -1;
	return sqlite3_changes(inv->db);
}

int64_t
inv_prov_last_add(struct inv *inv, const char *node)
{
	sqlite3_stmt *st;
	int64_t id;

	if (prepare(inv, "SELECT id FROM provisions WHERE node = ?1 AND kind = 'add' AND "
	    "dry_run = 0 AND state IN ('ready', 'waiting') ORDER BY id DESC LIMIT 1", &st,
	    __func__) || sqlite3_bind_text(st, 1, node, -1, SQLITE_STATIC) != SQLITE_OK)
		return -1;
	switch (sqlite3_step(st)) {
	case SQLITE_ROW: id = sqlite3_column_int64(st, 0); break;
	case SQLITE_DONE: id = 0; break;
	default: id = inv_db_fail(inv, __func__, "step"); break;
	}
	sqlite3_finalize(st);
	return id;
}

int
inv_prov_host_key(struct inv *inv, const char *host, int port, char *fp, size_t size)
{
	sqlite3_stmt *st;
	int rc;

	fp[0] = '\0';
	if (prepare(inv, "SELECT fingerprint FROM provisions WHERE host = ?1 AND port = ?2 AND "
	    "fingerprint IS NOT NULL AND state IN ('ready', 'waiting', 'done') "
	    "ORDER BY id DESC LIMIT 1", &st, __func__) ||
	    sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int(st, 2, port) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		inv_col_text(st, 0, fp, size);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : inv_db_fail(inv, __func__, "step");
}
