/*
 * The inventory's tokens, clusters and events (see inventory.h for the
 * contracts).  Each function is one statement, so it is atomic on its own
 * and also joins a transaction the caller has begun.
 */
#include "inventory_db.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *
role_str(enum token_role r)
{
	if ((int)r < 0 || r >= ROLE_COUNT)
		return NULL;
	return api_role_str(r);
}

/* An unknown role in the file grants nothing: it reads as a revoked token. */
static int
role_parse(const char *s, enum token_role *out)
{
	return api_role_parse(s, out);
}

/* ---- tokens ---- */

int
inv_token_add(struct inv *inv, const struct api_token *t, const uint8_t hash[INV_HASH_LEN])
{
	sqlite3_stmt *s = inv->st[ST_TOKEN_ADD];
	int rc = 0;

	if (t->id[0] == '\0' || role_str(t->role) == NULL) {
		log_warnx("token without an id or with an invalid role");
		return -1;
	}
	rc |= sqlite3_bind_text(s, 1, t->id, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(s, 2, role_str(t->role), -1, SQLITE_STATIC);
	rc |= sqlite3_bind_blob(s, 3, hash, INV_HASH_LEN, SQLITE_STATIC);
	rc |= inv_bind_text(s, 4, t->cluster);
	rc |= inv_bind_text(s, 5, t->node);
	rc |= inv_bind_text(s, 6, t->label);
	rc |= sqlite3_bind_double(s, 7, t->created_at);
	rc |= inv_bind_double(s, 8, t->expires_at);
	rc |= inv_bind_double(s, 9, t->used_at);
	rc |= sqlite3_bind_int(s, 10, t->revoked != 0);
	rc |= sqlite3_bind_int(s, 11, t->accept != 0);
	rc |= sqlite3_bind_int(s, 12, t->pending != 0);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_step_done(inv, s, __func__);
}

/* One row of TOKEN_COLS; hash may be NULL. */
static int
read_token(sqlite3_stmt *s, struct api_token *t, uint8_t hash[INV_HASH_LEN])
{
	memset(t, 0, sizeof(*t));
	inv_col_text(s, 0, t->id, sizeof(t->id));
	if (role_parse((const char *)sqlite3_column_text(s, 1), &t->role) == -1) {
		log_warnx("token %s has an unknown role; treated as revoked", t->id);
		t->role = ROLE_VIEWER;
		t->revoked = 1;
	}
	if (hash != NULL) {
		if (sqlite3_column_bytes(s, 2) != INV_HASH_LEN) {
			log_warnx("token %s has a damaged hash", t->id);
			return -1;
		}
		memcpy(hash, sqlite3_column_blob(s, 2), INV_HASH_LEN);
	}
	inv_col_text(s, 3, t->cluster, sizeof(t->cluster));
	inv_col_text(s, 4, t->node, sizeof(t->node));
	inv_col_text(s, 5, t->label, sizeof(t->label));
	t->created_at = inv_col_double(s, 6);
	t->expires_at = inv_col_double(s, 7);
	t->used_at = inv_col_double(s, 8);
	t->revoked |= sqlite3_column_int(s, 9) != 0;
	t->accept = sqlite3_column_int(s, 10) != 0;
	t->pending = sqlite3_column_int(s, 11) != 0;
	return 0;
}

int
inv_token_get(struct inv *inv, const char *id, struct api_token *t,
    uint8_t hash[INV_HASH_LEN])
{
	sqlite3_stmt *s = inv->st[ST_TOKEN_GET];
	int rc;

	if (sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = read_token(s, t, hash);
	else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

static int
row_token(sqlite3_stmt *s, void *t)
{
	return read_token(s, t, NULL);
}

int
inv_token_list(struct inv *inv, struct api_token **out, int *n)
{
	void *arr;

	if (inv_rows(inv, inv->st[ST_TOKEN_LIST], sizeof(**out), row_token, &arr, n) == -1)
		return -1;
	*out = arr;
	return 0;
}

/* Run a one-parameter UPDATE; INV_NOTFOUND when it changed no row. */
static int
update_by_text(struct inv *inv, enum inv_stmt st, const char *v, const char *func)
{
	sqlite3_stmt *s = inv->st[st];
	int rc;

	if (sqlite3_bind_text(s, 1, v, -1, SQLITE_STATIC) != SQLITE_OK)
		return inv_db_fail(inv, func, "bind");
	if ((rc = inv_step_done(inv, s, func)) != 0)
		return rc;
	return sqlite3_changes(inv->db) > 0 ? 0 : INV_NOTFOUND;
}

int
inv_token_revoke(struct inv *inv, const char *id)
{
	return update_by_text(inv, ST_TOKEN_REVOKE, id, __func__);
}

/*
 * One UPDATE that succeeds only for an unused, unrevoked token, so that two
 * enrolments racing with the same bootstrap token cannot both win.  When it
 * changes nothing: INV_NOTFOUND for no such token, INV_CONFLICT otherwise.
 */
int
inv_token_use(struct inv *inv, const char *id, double now)
{
	sqlite3_stmt *s = inv->st[ST_TOKEN_USE];
	int64_t exists;
	int rc;

	if (sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_double(s, 2, now) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if ((rc = inv_step_done(inv, s, __func__)) != 0)
		return rc;
	if (sqlite3_changes(inv->db) > 0)
		return 0;
	s = inv->st[ST_TOKEN_EXISTS];
	if (sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if ((exists = inv_step_int(inv, s, __func__)) == -1)
		return -1;
	return exists > 0 ? INV_CONFLICT : INV_NOTFOUND;
}

/* Succeeds also when the node has no token. */
int
inv_token_revoke_node(struct inv *inv, const char *node)
{
	int rc = update_by_text(inv, ST_TOKEN_REVOKE_NODE, node, __func__);

	return rc == INV_NOTFOUND ? 0 : rc;
}

/* Tokens of that role that are not revoked (expired ones included). */
int
inv_token_count(struct inv *inv, enum token_role role)
{
	sqlite3_stmt *s = inv->st[ST_TOKEN_COUNT];

	if (role_str(role) == NULL) {
		log_warnx("invalid role %d", (int)role);
		return -1;
	}
	if (sqlite3_bind_text(s, 1, role_str(role), -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	return (int)inv_step_int(inv, s, __func__);
}

/* ---- clusters ---- */

int
inv_cluster_id(struct inv *inv, const char *name, int64_t *id)
{
	sqlite3_stmt *s = inv->st[ST_CLUSTER_ID];
	int rc;

	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

int
inv_cluster_add(struct inv *inv, const char *name, double now)
{
	sqlite3_stmt *s = inv->st[ST_CLUSTER_ADD];

	if (name == NULL || name[0] == '\0' || strlen(name) > API_NAME_MAX) {
		log_warnx("invalid cluster name");
		return -1;
	}
	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_double(s, 2, now) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	return inv_step_done(inv, s, __func__);
}

static void
read_cluster(sqlite3_stmt *s, struct api_cluster *c)
{
	memset(c, 0, sizeof(*c));
	inv_col_text(s, 0, c->name, sizeof(c->name));
	c->created_at = inv_col_double(s, 1);
	c->n_nodes = sqlite3_column_int(s, 2);
}

static int
row_cluster(sqlite3_stmt *s, void *c)
{
	read_cluster(s, c);
	return 0;
}

int
inv_cluster_list(struct inv *inv, struct api_cluster **out, int *n)
{
	struct api_cluster *arr;
	void *rows;
	int cnt;

	if (inv_rows(inv, inv->st[ST_CLUSTER_LIST], sizeof(*arr), row_cluster, &rows, &cnt) == -1)
		return -1;
	arr = rows;
	for (int i = 0; i < cnt; i++)
		if (inv_cluster_allow_get(inv, arr[i].name, &arr[i].allow) != 0) {
			free(arr);
			return -1;
		}
	*out = arr;
	*n = cnt;
	return 0;
}

int
inv_cluster_get(struct inv *inv, const char *name, struct api_cluster *out)
{
	sqlite3_stmt *s = inv->st[ST_CLUSTER_GET];
	int rc;

	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		read_cluster(s, out);
		rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	if (rc == 0)
		rc = inv_cluster_allow_get(inv, name, &out->allow);
	return rc;
}

/* cluster "" takes the node out of its cluster. */
int
inv_cluster_set_node(struct inv *inv, const char *cluster, const char *node)
{
	sqlite3_stmt *s = inv->st[ST_NODE_SET_CLUSTER];
	int64_t id = 0;
	int rc;

	if (cluster[0] != '\0' && (rc = inv_cluster_id(inv, cluster, &id)) != 0)
		return rc;
	rc = sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC);
	if (cluster[0] != '\0')
		rc |= sqlite3_bind_int64(s, 2, id);
	else
		rc |= sqlite3_bind_null(s, 2);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	if ((rc = inv_step_done(inv, s, __func__)) != 0)
		return rc;
	return sqlite3_changes(inv->db) > 0 ? 0 : INV_NOTFOUND;
}

/* ---- events ---- */

int
inv_event_add(struct inv *inv, double time, const char *actor, const char *node,
    const char *what, const char *reason)
{
	sqlite3_stmt *s = inv->st[ST_EVENT_ADD];
	int rc = 0;

	rc |= sqlite3_bind_double(s, 1, time);
	rc |= inv_bind_text(s, 2, actor);
	rc |= inv_bind_text(s, 3, node);
	rc |= inv_bind_text(s, 4, what);
	rc |= inv_bind_text(s, 5, reason);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_step_done(inv, s, __func__);
}

static void
read_event(sqlite3_stmt *s, struct api_event *e)
{
	memset(e, 0, sizeof(*e));
	e->id = sqlite3_column_int64(s, 0);
	e->time = inv_col_double(s, 1);
	inv_col_text(s, 2, e->actor, sizeof(e->actor));
	inv_col_text(s, 3, e->node, sizeof(e->node));
	inv_col_text(s, 4, e->what, sizeof(e->what));
	inv_col_text(s, 5, e->reason, sizeof(e->reason));
}

/* The query returns the newest first; the caller gets them oldest first. */
static void
reverse_events(struct api_event *ev, int n)
{
	struct api_event tmp;

	for (int i = 0, j = n - 1; i < j; i++, j--) {
		tmp = ev[i];
		ev[i] = ev[j];
		ev[j] = tmp;
	}
}

static int
bind_event_query(sqlite3_stmt *s, const char *node, double since, int limit)
{
	int rc = 0;

	rc |= sqlite3_bind_double(s, 1, isnan(since) ? -DBL_MAX : since);
	rc |= sqlite3_bind_int(s, 2, limit > 0 ? limit : 1000);
	if (node != NULL && node[0] != '\0')
		rc |= sqlite3_bind_text(s, 3, node, -1, SQLITE_STATIC);
	return rc;
}

static int
row_event(sqlite3_stmt *s, void *e)
{
	read_event(s, e);
	return 0;
}

int
inv_event_list(struct inv *inv, const char *node, double since, int limit,
    struct api_event **out, int *n)
{
	int by_node = node != NULL && node[0] != '\0';
	sqlite3_stmt *s = inv->st[by_node ? ST_EVENT_LIST_NODE : ST_EVENT_LIST_ALL];
	void *rows;

	if (bind_event_query(s, node, since, limit) != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	if (inv_rows(inv, s, sizeof(**out), row_event, &rows, n) == -1)
		return -1;
	*out = rows;
	reverse_events(*out, *n);
	return 0;
}
