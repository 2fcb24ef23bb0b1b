/*
 * The inventory's jobs (inventory_jobs.h), in the tables of migrations 11
 * and 12:
 *
 *   jobs       id (AUTOINCREMENT: never reused), placement_id (not a key:
 *              a job outlives its placement), model, cluster, backend (the
 *              plan's, as they were when the job was made), state, reason,
 *              want ("run", "stop"), generation, restarts, restart_policy,
 *              max_restarts, port, python, endpoint, created_at,
 *              started_at, probe_ok_at, updated_at, replan, replans;
 *              indexed on placement_id
 *   job_ranks  (job_id, rank) WITHOUT ROWID, job_id -> jobs (ON DELETE
 *              CASCADE): node, host, pid, started_at, start_sent_at, alive
 *              (0/1), cpu_seconds, rss_bytes, seen_at, seen_by
 *
 * Words as job_api.h spells them; its nulls ("", NAN, pid 0, alive and
 * rss_bytes -1) are SQL NULL.  A job is read with its ranks in one query
 * (jobs LEFT JOIN job_ranks).  Statements are prepared per call: the
 * runner writes a job every few seconds, not hundreds of times a second.
 */
#include "inventory_db.h"
#include "inventory_jobs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* An integer, NULL when it is the null value nv. */
static int
bind_int_or_null(sqlite3_stmt *s, int i, int64_t v, int64_t nv)
{
	return v == nv ? sqlite3_bind_null(s, i) : sqlite3_bind_int64(s, i, v);
}

static int64_t
col_int_or(sqlite3_stmt *s, int i, int64_t nv)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? nv : sqlite3_column_int64(s, i);
}

/* ---- reading ---- */

#define JOB_SELECT "SELECT j.id, j.placement_id, j.model, j.cluster, j.backend, j.state, " \
	"j.reason, j.want, j.generation, j.restarts, j.restart_policy, j.max_restarts, " \
	"j.port, j.python, j.endpoint, j.created_at, j.started_at, j.probe_ok_at, " \
	"j.updated_at, j.replan, j.replans, r.rank, r.node, r.host, r.pid, r.started_at, " \
	"r.start_sent_at, r.alive, r.cpu_seconds, r.rss_bytes, r.seen_at, r.seen_by " \
	"FROM jobs j LEFT JOIN job_ranks r ON r.job_id = j.id "
#define COL_RANK 21

/* A word of the column, v when known; a word nobody knows is logged, dflt. */
static int
col_word(sqlite3_stmt *s, int i, int (*parse)(const char *), int dflt, int64_t id)
{
	const char *w = (const char *)sqlite3_column_text(s, i);
	int v = parse(w);

	if (v >= 0)
		return v;
	log_warnx("job %lld: %s \"%s\" is not known", (long long)id,
	    sqlite3_column_name(s, i), w != NULL ? w : "");
	return dflt;
}

static void
read_job(sqlite3_stmt *s, struct job *j)
{
	job_init(j);
	j->id = sqlite3_column_int64(s, 0);
	j->placement = sqlite3_column_int64(s, 1);
	inv_col_text(s, 2, j->model, sizeof(j->model));
	inv_col_text(s, 3, j->cluster, sizeof(j->cluster));
	inv_col_text(s, 4, j->backend, sizeof(j->backend));
	/* a state, policy or want this code does not know starts nothing */
	j->state = (enum job_state)col_word(s, 5, job_state_parse, JOB_FAILED, j->id);
	inv_col_text(s, 6, j->reason, sizeof(j->reason));
	j->want = (enum job_want)col_word(s, 7, job_want_parse, JOB_WANT_STOP, j->id);
	j->generation = sqlite3_column_int(s, 8);
	j->restarts = sqlite3_column_int(s, 9);
	j->restart_policy = (enum job_restart)col_word(s, 10, job_restart_parse,
	    JOB_RESTART_NEVER, j->id);
	j->max_restarts = sqlite3_column_int(s, 11);
	j->port = sqlite3_column_int(s, 12);
	inv_col_text(s, 13, j->python, sizeof(j->python));
	inv_col_text(s, 14, j->endpoint, sizeof(j->endpoint));
	j->created_at = inv_col_double(s, 15);
	j->started_at = inv_col_double(s, 16);
	j->probe_ok_at = inv_col_double(s, 17);
	j->updated_at = inv_col_double(s, 18);
	j->replan = (enum job_replan)col_word(s, 19, job_replan_parse, JOB_REPLAN_NEVER, j->id);
	j->replans = sqlite3_column_int(s, 20);
}

/* The row's rank, if any, as the next of j's. */
static void
read_rank(sqlite3_stmt *s, struct job *j)
{
	struct job_rank *r;

	if (sqlite3_column_type(s, COL_RANK) == SQLITE_NULL)
		return;   /* a job without ranks */
	if (j->n_ranks >= JOB_RANKS_MAX) {
		log_warnx("job %lld: more than %d ranks", (long long)j->id, JOB_RANKS_MAX);
		return;
	}
	r = &j->ranks[j->n_ranks++];
	job_rank_init(r);
	r->rank = sqlite3_column_int(s, COL_RANK);
	inv_col_text(s, COL_RANK + 1, r->node, sizeof(r->node));
	inv_col_text(s, COL_RANK + 2, r->host, sizeof(r->host));
	r->pid = col_int_or(s, COL_RANK + 3, 0);
	r->started_at = inv_col_double(s, COL_RANK + 4);
	r->start_sent_at = inv_col_double(s, COL_RANK + 5);
	r->alive = (int)col_int_or(s, COL_RANK + 6, -1);
	r->cpu_seconds = inv_col_double(s, COL_RANK + 7);
	r->rss_bytes = col_int_or(s, COL_RANK + 8, -1);
	r->seen_at = inv_col_double(s, COL_RANK + 9);
	inv_col_text(s, COL_RANK + 10, r->seen_by, sizeof(r->seen_by));
}

/*
 * Step s (JOB_SELECT ..., bound, ordered by job then rank) to its end and
 * finalize it: *out malloc'd (NULL when no row), *n jobs.  0 or -1.
 */
static int
load(struct inv *inv, sqlite3_stmt *s, struct job **out, int *n)
{
	struct job *arr = NULL, *np;
	int cap = 0, cnt = 0, rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (cnt == 0 || arr[cnt - 1].id != sqlite3_column_int64(s, 0)) {
			if ((np = inv_grow(arr, &cap, cnt, sizeof(*arr))) == NULL) {
				free(arr);
				sqlite3_finalize(s);
				return -1;
			}
			arr = np;
			read_job(s, &arr[cnt++]);
		}
		read_rank(s, &arr[cnt - 1]);
	}
	if (rc != SQLITE_DONE) {
		INV_FAIL(inv, "step");
		sqlite3_finalize(s);
		free(arr);
		return -1;
	}
	sqlite3_finalize(s);
	*out = arr;
	*n = cnt;
	return 0;
}

int
inv_job_get(struct inv *inv, int64_t id, struct job *out)
{
	sqlite3_stmt *s = INV_PREPARE(inv, JOB_SELECT "WHERE j.id = ? ORDER BY r.rank");
	struct job *arr;
	int n;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	if (load(inv, s, &arr, &n) == -1)
		return -1;
	if (n == 0)
		return INV_NOTFOUND;
	*out = arr[0];
	free(arr);
	return 0;
}

int
inv_job_list(struct inv *inv, struct job **out, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, JOB_SELECT "ORDER BY j.id DESC, r.rank");

	*out = NULL;
	*n = 0;
	return s == NULL ? -1 : load(inv, s, out, n);
}

int
inv_job_open(struct inv *inv, struct job **out, int *n)
{
	sqlite3_stmt *s = INV_PREPARE(inv, JOB_SELECT "WHERE j.state != 'stopped' AND "
	    "NOT (j.state = 'failed' AND j.want = 'stop') ORDER BY j.id, r.rank");

	*out = NULL;
	*n = 0;
	return s == NULL ? -1 : load(inv, s, out, n);
}

/* ---- writing ---- */

/* Replace the ranks of job j->id with j's. */
static int
put_ranks(struct inv *inv, const struct job *j)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "DELETE FROM job_ranks WHERE job_id = ?");
	int rc, b;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, j->id);
	if ((rc = inv_run(inv, s, __func__)) != 0)
		return rc;
	s = INV_PREPARE(inv, "INSERT INTO job_ranks (job_id, rank, node, host, pid, started_at, "
	    "start_sent_at, alive, cpu_seconds, rss_bytes, seen_at, seen_by) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (s == NULL)
		return -1;
	for (int i = 0; rc == 0 && i < j->n_ranks && i < JOB_RANKS_MAX; i++) {
		const struct job_rank *r = &j->ranks[i];

		b = sqlite3_bind_int64(s, 1, j->id);
		b |= sqlite3_bind_int(s, 2, r->rank);
		b |= inv_bind_text(s, 3, r->node);
		b |= inv_bind_text(s, 4, r->host);
		b |= bind_int_or_null(s, 5, r->pid > 0 ? r->pid : 0, 0);
		b |= inv_bind_double(s, 6, r->started_at);
		b |= inv_bind_double(s, 7, r->start_sent_at);
		b |= r->alive < 0 ? sqlite3_bind_null(s, 8) :
		    sqlite3_bind_int(s, 8, r->alive != 0);
		b |= inv_bind_double(s, 9, r->cpu_seconds);
		b |= bind_int_or_null(s, 10, r->rss_bytes >= 0 ? r->rss_bytes : -1, -1);
		b |= inv_bind_double(s, 11, r->seen_at);
		b |= inv_bind_text(s, 12, r->seen_by);
		rc = b != SQLITE_OK ? INV_FAIL(inv, "bind") : inv_step_done(inv, s, __func__);
	}
	sqlite3_finalize(s);
	return rc;
}

/*
 * Bind j's own fields from parameter 1 on, in the order of JOB_WRITE_COLS;
 * the caller binds the rest.  0, or SQLite's error.
 */
#define JOB_WRITE_COLS "placement_id, model, cluster, backend, state, reason, want, " \
	"generation, restarts, restart_policy, max_restarts, port, python, endpoint, " \
	"created_at, started_at, probe_ok_at, updated_at, replan, replans"
#define JOB_WRITE_N 20

static int
bind_job(sqlite3_stmt *s, const struct job *j)
{
	int b;

	b = sqlite3_bind_int64(s, 1, j->placement);
	b |= inv_bind_text(s, 2, j->model);
	b |= inv_bind_text(s, 3, j->cluster);
	b |= inv_bind_text(s, 4, j->backend);
	b |= sqlite3_bind_text(s, 5, job_state_str(j->state), -1, SQLITE_STATIC);
	b |= inv_bind_text(s, 6, j->reason);
	b |= sqlite3_bind_text(s, 7, job_want_str(j->want), -1, SQLITE_STATIC);
	b |= sqlite3_bind_int(s, 8, j->generation);
	b |= sqlite3_bind_int(s, 9, j->restarts);
	b |= sqlite3_bind_text(s, 10, job_restart_str(j->restart_policy), -1, SQLITE_STATIC);
	b |= sqlite3_bind_int(s, 11, j->max_restarts);
	b |= sqlite3_bind_int(s, 12, j->port);
	b |= inv_bind_text(s, 13, j->python);
	b |= inv_bind_text(s, 14, j->endpoint);
	b |= inv_bind_double(s, 15, j->created_at);
	b |= inv_bind_double(s, 16, j->started_at);
	b |= inv_bind_double(s, 17, j->probe_ok_at);
	b |= inv_bind_double(s, 18, j->updated_at);
	b |= sqlite3_bind_text(s, 19, job_replan_str(j->replan), -1, SQLITE_STATIC);
	b |= sqlite3_bind_int(s, 20, j->replans);
	return b;
}

/* Jobs of the placement that are neither stopped nor failed: -1 on error. */
static int64_t
count_open(struct inv *inv, int64_t placement)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "SELECT count(*) FROM jobs WHERE placement_id = ? AND "
	    "state NOT IN ('stopped', 'failed')");
	int64_t n;

	if (s == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, placement);
	n = inv_step_int(inv, s, __func__);
	sqlite3_finalize(s);
	return n;
}

int
inv_job_add(struct inv *inv, struct job *j)
{
	sqlite3_stmt *s;
	int64_t open;
	int own, rc = -1;

	if (inv_tx_start(inv, &own) != 0)
		return -1;
	if ((open = count_open(inv, j->placement)) != 0) {
		rc = open > 0 ? INV_CONFLICT : -1;
		return inv_tx_end(inv, own, rc);
	}
	s = INV_PREPARE(inv, "INSERT INTO jobs (" JOB_WRITE_COLS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (s != NULL && bind_job(s, j) != SQLITE_OK) {
		sqlite3_finalize(s);
		rc = INV_FAIL(inv, "bind");
	} else if (s != NULL)
		rc = inv_run(inv, s, __func__);
	if (rc == 0) {
		j->id = sqlite3_last_insert_rowid(inv->db);
		rc = put_ranks(inv, j);
	}
	rc = inv_tx_end(inv, own, rc);
	if (rc != 0)
		j->id = 0;
	return rc;
}

int
inv_job_put(struct inv *inv, const struct job *j)
{
	/* want goes from run to stop here, never back: a stop the operator
	 * asked (inv_job_set_want) while the runner held its copy stays */
	sqlite3_stmt *s;
	int own, rc = -1;

	if (inv_tx_start(inv, &own) != 0)
		return -1;
	s = INV_PREPARE(inv, "UPDATE jobs SET (" JOB_WRITE_COLS ") = (?, ?, ?, ?, ?, ?, "
	    "CASE WHEN want = 'stop' THEN 'stop' ELSE ?7 END, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?");
	if (s != NULL) {
		if (bind_job(s, j) != SQLITE_OK ||
		    sqlite3_bind_int64(s, JOB_WRITE_N + 1, j->id) != SQLITE_OK) {
			sqlite3_finalize(s);
			rc = INV_FAIL(inv, "bind");
		} else if ((rc = inv_run(inv, s, __func__)) == 0 && sqlite3_changes(inv->db) == 0)
			rc = INV_NOTFOUND;
	}
	if (rc == 0)
		rc = put_ranks(inv, j);
	return inv_tx_end(inv, own, rc);
}

int
inv_job_set_want(struct inv *inv, int64_t id, enum job_want want, double now)
{
	sqlite3_stmt *s = INV_PREPARE(inv, "UPDATE jobs SET want = ?, updated_at = ? WHERE id = ?");
	int rc;

	if (s == NULL)
		return -1;
	sqlite3_bind_text(s, 1, job_want_str(want), -1, SQLITE_STATIC);
	inv_bind_double(s, 2, now);
	sqlite3_bind_int64(s, 3, id);
	rc = inv_run(inv, s, __func__);
	return rc == 0 && sqlite3_changes(inv->db) == 0 ? INV_NOTFOUND : rc;
}
