/*
 * The inventory's jobs (inventory_jobs.c) on a real SQLite file: a job
 * stored with its ranks and read back field by field, nulls included; the
 * list newest first; the open jobs the runner resumes; put (state, ranks,
 * fewer ranks) and set_want (a stop asked meanwhile is not undone by a
 * put); one open job per placement; unknown ids; a rollback; a file of
 * schema version 10 migrated; and what was put survives closing, and
 * SIGKILL of the process that put it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inventory_db.h"
#include "inventory_jobs.h"
#include "inventory_placement.h"
#include "inventory_fixture.h"

/* Scratch: a job is several kilobytes. */
static struct job job_a, job_b;

/* A job of placement p as the runner makes it: starting, n ranks not yet started. */
static void
new_job(struct job *j, int64_t p, int n)
{
	job_init(j);
	j->placement = p;
	snprintf(j->model, sizeof(j->model), "llama-3.3-70b:4bit");
	snprintf(j->cluster, sizeof(j->cluster), "lab");
	snprintf(j->backend, sizeof(j->backend), n > 1 ? "jaccl" : "");
	j->state = JOB_STARTING;
	j->restart_policy = JOB_RESTART_ON_FAILURE;
	j->max_restarts = 3;
	j->port = 8080;
	snprintf(j->python, sizeof(j->python), "python3");
	snprintf(j->endpoint, sizeof(j->endpoint), "http://127.0.0.2:8080");
	j->created_at = j->updated_at = T0 + (double)p;
	j->n_ranks = n;
	for (int i = 0; i < n; i++) {
		j->ranks[i].rank = i;
		snprintf(j->ranks[i].node, sizeof(j->ranks[i].node), "a%d", i + 1);
		snprintf(j->ranks[i].host, sizeof(j->ranks[i].host), "127.0.0.%d", i + 2);
	}
}

#define DBL_EQ(x, y) do { \
	if (isnan(x) || isnan(y)) \
		assert_true(isnan(x) && isnan(y)); \
	else \
		assert_true((x) == (y)); \
} while (0)

static void
assert_job_equal(const struct job *x, const struct job *y)
{
	assert_int_equal(x->id, y->id);
	assert_int_equal(x->placement, y->placement);
	assert_string_equal(x->model, y->model);
	assert_string_equal(x->cluster, y->cluster);
	assert_string_equal(x->backend, y->backend);
	assert_int_equal(x->state, y->state);
	assert_string_equal(x->reason, y->reason);
	assert_int_equal(x->want, y->want);
	assert_int_equal(x->generation, y->generation);
	assert_int_equal(x->restarts, y->restarts);
	assert_int_equal(x->restart_policy, y->restart_policy);
	assert_int_equal(x->max_restarts, y->max_restarts);
	assert_int_equal(x->replan, y->replan);
	assert_int_equal(x->replans, y->replans);
	assert_int_equal(x->port, y->port);
	assert_string_equal(x->python, y->python);
	assert_string_equal(x->endpoint, y->endpoint);
	DBL_EQ(x->created_at, y->created_at);
	DBL_EQ(x->started_at, y->started_at);
	DBL_EQ(x->probe_ok_at, y->probe_ok_at);
	DBL_EQ(x->updated_at, y->updated_at);
	assert_int_equal(x->n_ranks, y->n_ranks);
	for (int i = 0; i < x->n_ranks; i++) {
		const struct job_rank *r = &x->ranks[i], *s = &y->ranks[i];

		assert_int_equal(r->rank, s->rank);
		assert_string_equal(r->node, s->node);
		assert_string_equal(r->host, s->host);
		assert_int_equal(r->pid, s->pid);
		DBL_EQ(r->started_at, s->started_at);
		assert_int_equal(r->alive, s->alive);
		DBL_EQ(r->cpu_seconds, s->cpu_seconds);
		assert_int_equal(r->rss_bytes, s->rss_bytes);
		DBL_EQ(r->seen_at, s->seen_at);
		DBL_EQ(r->start_sent_at, s->start_sent_at);
		assert_string_equal(r->seen_by, s->seen_by);
	}
}

/* The runner's steps on j: generation 1, rank 0 started and seen, rank 1 sent. */
static void
started(struct job *j)
{
	j->generation = 1;
	j->started_at = T0 + 10;
	j->updated_at = T0 + 11;
	j->ranks[0].start_sent_at = T0 + 9.5;
	j->ranks[0].pid = 41213;
	j->ranks[0].started_at = T0 + 10;
	j->ranks[0].alive = 1;
	j->ranks[0].cpu_seconds = 0.25;
	j->ranks[0].rss_bytes = INT64_C(54) << 20;
	j->ranks[0].seen_at = T0 + 11;
	snprintf(j->ranks[0].seen_by, sizeof(j->ranks[0].seen_by), "agent");
	j->ranks[1].start_sent_at = T0 + 10.5;
	j->replan = JOB_REPLAN_AUTO;
	j->replans = 2;
}

static void
test_add_get(void **state)
{
	struct fx *f = *state;

	new_job(&job_a, 7, 2);
	job_a.id = 99;   /* the inventory chooses */
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	assert_true(job_a.id > 0 && job_a.id != 99);
	memset(&job_b, 0x5a, sizeof(job_b));
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_job_equal(&job_a, &job_b);
	/* the nulls are the struct's, not zeros */
	assert_int_equal(job_b.ranks[1].pid, 0);
	assert_int_equal(job_b.ranks[1].alive, -1);
	assert_int_equal(job_b.ranks[1].rss_bytes, -1);
	assert_true(isnan(job_b.ranks[1].cpu_seconds));
	assert_true(isnan(job_b.ranks[1].start_sent_at));
	assert_true(isnan(job_b.probe_ok_at));
	assert_string_equal(job_b.reason, "");
	assert_string_equal(job_b.backend, "jaccl");

	/* every field written, then read back */
	started(&job_a);
	job_a.state = JOB_HUNG;
	snprintf(job_a.reason, sizeof(job_a.reason), "rank 1 burned 1.00 core while the probe "
	    "got no answer for 6 s");
	job_a.restarts = 2;
	job_a.probe_ok_at = T0 + 12.125;
	job_a.ranks[1].alive = 0;
	job_a.ranks[1].rss_bytes = 0;
	job_a.ranks[1].cpu_seconds = 0;
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_job_equal(&job_a, &job_b);
	assert_int_equal(job_b.ranks[1].alive, 0);       /* false, not null */
	assert_int_equal(job_b.ranks[1].rss_bytes, 0);
}

static void
test_not_found(void **state)
{
	struct fx *f = *state;

	assert_int_equal(inv_job_get(f->inv, 1, &job_b), INV_NOTFOUND);
	new_job(&job_a, 7, 1);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id + 1, &job_b), INV_NOTFOUND);
	job_a.id += 1;
	assert_int_equal(inv_job_put(f->inv, &job_a), INV_NOTFOUND);
	assert_int_equal(inv_job_set_want(f->inv, job_a.id, JOB_WANT_STOP, T0), INV_NOTFOUND);
	assert_int_equal(inv_job_get(f->inv, job_a.id - 1, &job_b), 0);
	assert_int_equal(job_b.want, JOB_WANT_RUN);
}

static void
test_list_newest_first(void **state)
{
	struct fx *f = *state;
	struct job *l = NULL;
	int64_t id[3];
	int n = -1;

	assert_int_equal(inv_job_list(f->inv, &l, &n), 0);
	assert_int_equal(n, 0);
	free(l);
	for (int i = 0; i < 3; i++) {
		new_job(&job_a, 10 + i, i + 1);   /* 1, 2 and 3 ranks */
		assert_int_equal(inv_job_add(f->inv, &job_a), 0);
		id[i] = job_a.id;
	}
	new_job(&job_a, 20, 0);               /* a job without ranks is listed too */
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	assert_int_equal(inv_job_list(f->inv, &l, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(l[0].id, job_a.id);
	assert_int_equal(l[0].n_ranks, 0);
	for (int i = 0; i < 3; i++) {
		const struct job *j = &l[3 - i];

		assert_int_equal(j->id, id[i]);
		assert_int_equal(j->placement, 10 + i);
		assert_int_equal(j->n_ranks, i + 1);
		for (int r = 0; r < j->n_ranks; r++) {
			char node[16];

			snprintf(node, sizeof(node), "a%d", r + 1);
			assert_int_equal(j->ranks[r].rank, r);
			assert_string_equal(j->ranks[r].node, node);
		}
	}
	assert_true(id[0] < id[1] && id[1] < id[2] && id[2] < l[0].id);
	free(l);
}

static void
test_open(void **state)
{
	static const struct { enum job_state st; enum job_want want; int open; } c[] = {
		{ JOB_STARTING, JOB_WANT_RUN, 1 },
		{ JOB_RUNNING, JOB_WANT_RUN, 1 },
		{ JOB_HUNG, JOB_WANT_RUN, 1 },
		{ JOB_FAILED, JOB_WANT_RUN, 1 },    /* may still be restarted */
		{ JOB_FAILED, JOB_WANT_STOP, 0 },
		{ JOB_STOPPING, JOB_WANT_STOP, 1 },
		{ JOB_STOPPED, JOB_WANT_STOP, 0 },
		{ JOB_STOPPED, JOB_WANT_RUN, 0 },
		{ JOB_RUNNING, JOB_WANT_STOP, 1 },  /* a stop not yet carried out */
	};
	struct fx *f = *state;
	struct job *l = NULL;
	int64_t id[9];
	int n = -1, k = 0;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		new_job(&job_a, 100 + (int64_t)i, 2);
		assert_int_equal(inv_job_add(f->inv, &job_a), 0);
		job_a.state = c[i].st;
		assert_int_equal(inv_job_put(f->inv, &job_a), 0);
		assert_int_equal(inv_job_set_want(f->inv, job_a.id, c[i].want, T0 + 50), 0);
		id[i] = job_a.id;
	}
	assert_int_equal(inv_job_open(f->inv, &l, &n), 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (!c[i].open)
			continue;
		assert_true(k < n);
		assert_int_equal(l[k].id, id[i]);   /* oldest first */
		assert_int_equal(l[k].state, c[i].st);
		assert_int_equal(l[k].want, c[i].want);
		assert_int_equal(l[k].n_ranks, 2);
		assert_string_equal(l[k].ranks[1].node, "a2");
		k++;
	}
	assert_int_equal(n, k);
	assert_int_equal(n, 6);
	free(l);
}

static void
test_put_ranks_and_want(void **state)
{
	struct fx *f = *state;

	new_job(&job_a, 7, 3);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);

	/* the operator's stop, while the runner holds a copy with want run */
	assert_int_equal(inv_job_set_want(f->inv, job_a.id, JOB_WANT_STOP, T0 + 30), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.want, JOB_WANT_STOP);
	assert_true(job_b.updated_at == T0 + 30);
	started(&job_a);
	assert_int_equal(job_a.want, JOB_WANT_RUN);
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.want, JOB_WANT_STOP);       /* kept */
	assert_int_equal(job_b.generation, 1);              /* the rest written */
	assert_int_equal(job_b.ranks[0].pid, 41213);
	job_a.want = JOB_WANT_STOP;
	assert_job_equal(&job_a, &job_b);

	/* set_want sets either way; put writes a stop */
	assert_int_equal(inv_job_set_want(f->inv, job_a.id, JOB_WANT_RUN, T0 + 40), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.want, JOB_WANT_RUN);
	job_a.state = JOB_STOPPING;
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.want, JOB_WANT_STOP);
	assert_int_equal(job_b.state, JOB_STOPPING);

	/* the ranks are j's: fewer ranks leave none behind, a rank's nulls come back */
	job_a.n_ranks = 2;
	job_rank_init(&job_a.ranks[0]);
	job_a.ranks[0].rank = 0;
	snprintf(job_a.ranks[0].node, sizeof(job_a.ranks[0].node), "b1");
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.n_ranks, 2);
	assert_string_equal(job_b.ranks[0].node, "b1");
	assert_string_equal(job_b.ranks[0].host, "");
	assert_int_equal(job_b.ranks[0].pid, 0);
	assert_int_equal(job_b.ranks[0].alive, -1);
	assert_true(isnan(job_b.ranks[0].start_sent_at));
	assert_job_equal(&job_a, &job_b);

	/* a rank given twice is refused, and the job's ranks are as they were */
	job_a.n_ranks = 2;
	job_a.ranks[1].rank = 0;
	job_a.state = JOB_FAILED;
	assert_int_equal(inv_job_put(f->inv, &job_a), INV_CONFLICT);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_int_equal(job_b.state, JOB_STOPPING);
	assert_int_equal(job_b.n_ranks, 2);
	assert_int_equal(job_b.ranks[1].rank, 1);
}

static void
test_conflict(void **state)
{
	struct fx *f = *state;
	struct job *l = NULL;
	int64_t first;
	int n;

	new_job(&job_a, 7, 2);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	first = job_a.id;
	/* every state but stopped and failed holds the placement */
	for (int st = 0; st < JOB_STATE_COUNT; st++) {
		int held = st != JOB_STOPPED && st != JOB_FAILED;

		job_a.id = first;
		job_a.state = (enum job_state)st;
		assert_int_equal(inv_job_put(f->inv, &job_a), 0);
		new_job(&job_b, 7, 2);
		assert_int_equal(inv_job_add(f->inv, &job_b), held ? INV_CONFLICT : 0);
		if (held) {
			assert_int_equal(job_b.id, 0);
			continue;
		}
		/* the new one holds it now; let it go for the next round */
		assert_true(job_b.id > first);
		job_b.state = JOB_STOPPED;
		assert_int_equal(inv_job_put(f->inv, &job_b), 0);
	}
	/* a refused add stored nothing; another placement is free */
	assert_int_equal(inv_job_list(f->inv, &l, &n), 0);
	assert_int_equal(n, 3);
	free(l);
	job_a.state = JOB_RUNNING;
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	new_job(&job_b, 8, 2);
	assert_int_equal(inv_job_add(f->inv, &job_b), 0);

	/* in the caller's transaction: refused, and the transaction goes on */
	assert_int_equal(inv_begin(f->inv), 0);
	new_job(&job_b, 7, 1);
	assert_int_equal(inv_job_add(f->inv, &job_b), INV_CONFLICT);
	new_job(&job_b, 9, 1);
	assert_int_equal(inv_job_add(f->inv, &job_b), 0);
	assert_int_equal(inv_commit(f->inv), 0);
	assert_int_equal(inv_job_get(f->inv, job_b.id, &job_a), 0);
	assert_int_equal(job_a.placement, 9);
}

static void
test_rollback(void **state)
{
	struct fx *f = *state;
	struct job *l = NULL;
	int n = -1;

	new_job(&job_a, 7, 2);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	assert_int_equal(inv_begin(f->inv), 0);
	started(&job_a);
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	new_job(&job_b, 8, 1);
	assert_int_equal(inv_job_add(f->inv, &job_b), 0);
	inv_rollback(f->inv);
	assert_int_equal(inv_job_list(f->inv, &l, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(l[0].generation, 0);
	assert_int_equal(l[0].ranks[0].pid, 0);
	assert_true(isnan(l[0].ranks[0].start_sent_at));
	free(l);
}

static void
test_reopen(void **state)
{
	struct fx *f = *state;
	int64_t id;

	new_job(&job_a, 7, 2);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	id = job_a.id;
	started(&job_a);
	assert_int_equal(inv_job_put(f->inv, &job_a), 0);
	assert_int_equal(inv_job_set_want(f->inv, id, JOB_WANT_STOP, T0 + 20), 0);
	job_a.want = JOB_WANT_STOP;
	job_a.updated_at = T0 + 20;
	reopen(f);
	assert_int_equal(inv_job_get(f->inv, id, &job_b), 0);
	assert_job_equal(&job_a, &job_b);
	/* the ids go on from the last one after a reopen */
	new_job(&job_b, 8, 1);
	assert_int_equal(inv_job_add(f->inv, &job_b), 0);
	assert_true(job_b.id > id);
}

/* Puts a job's start_sent_at, says so on fd, and waits to be killed. */
static void
crash_child(const char *path, int fd)
{
	struct job *j = calloc(1, sizeof(*j));
	char err[256];
	struct inv *inv = inv_open(path, err, sizeof(err));

	if (inv == NULL || j == NULL)
		_exit(1);
	new_job(j, 7, 2);
	if (inv_job_add(inv, j) != 0)
		_exit(1);
	j->generation = 1;
	j->ranks[0].start_sent_at = T0 + 9.5;
	if (inv_job_put(inv, j) != 0 || inv_job_set_want(inv, j->id, JOB_WANT_STOP, T0 + 9) != 0)
		_exit(1);
	if (write(fd, "put", 3) != 3)
		_exit(1);
	for (;;)
		pause();
}

static void
test_put_survives_sigkill(void **state)
{
	struct fx *f = *state;
	struct job *l = NULL;
	char buf[8] = "";
	int fds[2], status, n = -1;
	pid_t pid;

	inv_close(f->inv);
	f->inv = NULL;
	assert_int_equal(pipe(fds), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		close(fds[0]);
		crash_child(f->path, fds[1]);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], buf, 3), 3);
	close(fds[0]);
	assert_string_equal(buf, "put");
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	reopen(f);
	assert_int_equal(inv_job_open(f->inv, &l, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(l[0].state, JOB_STARTING);
	assert_int_equal(l[0].want, JOB_WANT_STOP);
	assert_int_equal(l[0].generation, 1);
	assert_int_equal(l[0].n_ranks, 2);
	assert_true(l[0].ranks[0].start_sent_at == T0 + 9.5);
	assert_true(isnan(l[0].ranks[1].start_sent_at));
	free(l);
	char err[256];
	assert_int_equal(inv_integrity_check(f->inv, err, sizeof(err)), 0);
}

/* A file made before jobs (version 10) gets them at open; what it held stays. */
static void
test_migration_from_10(void **state)
{
	struct fx *f = *state;
	struct inv_placement pl;
	const char *const nodes[] = { "a1" };
	const int64_t bytes[] = { 1 };
	struct inv_placement_in in = { "m1:4bit", "lab", "pipeline", "active", T0, "{}", 1,
		nodes, bytes };
	int64_t pid = 0;
	sqlite3 *db;

	assert_true(inv_schema_version(f->inv) >= 11);
	assert_int_equal(inv_schema_version(f->inv), inv_schema_latest());
	assert_int_equal(inv_placement_add(f->inv, &in, &pid), 0);
	inv_close(f->inv);
	f->inv = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE job_ranks; DROP TABLE jobs; "
	    "PRAGMA user_version = 10", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	reopen(f);
	assert_int_equal(inv_schema_version(f->inv), inv_schema_latest());
	assert_int_equal(inv_placement_get(f->inv, pid, &pl), 0);
	free(pl.json);
	new_job(&job_a, pid, 1);
	assert_int_equal(inv_job_add(f->inv, &job_a), 0);
	assert_int_equal(inv_job_get(f->inv, job_a.id, &job_b), 0);
	assert_job_equal(&job_a, &job_b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_get, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_ranks_and_want, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_survives_sigkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migration_from_10, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
