/*
 * job_procs.c: a job's ranks from its nodes' latest reports, stored in a
 * real inventory (SQLite) and read back under the store's lock as the job
 * runner does: which report's facts a rank takes (its job, rank, pid and
 * generation; read after the rank started; fresh) and which it leaves to
 * ps over SSH.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "ctrl.h"
#include "inventory_fixture.h"
#include "job_procs.h"
#include "store.h"

#define NOW (T0 + 1000)

struct tfx {
	struct fx *f;
	struct ctrl c;
	struct job j;
};

static int
setup_procs(void **state)
{
	struct tfx *t = calloc(1, sizeof(*t));

	if (t == NULL || setup((void **)&t->f) == -1)
		return -1;
	if (store_init(&t->c.store, t->f->inv) == -1)
		return -1;
	t->c.job_check_interval = 1;
	job_init(&t->j);
	t->j.id = 7;
	t->j.generation = 3;
	t->j.n_ranks = 3;
	for (int q = 0; q < 3; q++) {
		struct job_rank *k = &t->j.ranks[q];
		job_rank_init(k);
		k->rank = q;
		snprintf(k->node, sizeof(k->node), "%s", q < 2 ? "n1" : "n2");
		k->pid = 100 + q;
		k->started_at = NOW - 60;
	}
	*state = t;
	return 0;
}

static int
teardown_procs(void **state)
{
	struct tfx *t = *state;

	store_fini(&t->c.store);
	teardown((void **)&t->f);
	free(t);
	return 0;
}

/* node's report at `at`: its jobs section read at `jobs_at`, with n procs of p. */
static void
store_report(struct tfx *t, const char *node, const char *uuid, double at, double jobs_at,
    const struct report_job_proc *p, int n)
{
	struct inv_node_key key;
	char err[256];
	char *json;

	fill_report(t->f->r, uuid, 0);
	t->f->r->collected_at = at;
	t->f->r->jobs.collected_at = jobs_at;
	t->f->r->jobs.n_processes = n;
	for (int i = 0; i < n; i++)
		t->f->r->jobs.processes[i] = p[i];
	json = report_encode(t->f->r, 0);
	assert_non_null(json);
	if (inv_node_upsert(t->f->inv, t->f->r, json, strlen(json), node, "", NODE_READY, at, &key,
	    err, sizeof(err)) != 0)
		fail_msg("inv_node_upsert: %s", err);
	free(json);
}

static struct report_job_proc
proc(int64_t job, int rank, int64_t gen, int64_t pid, int alive, const char *stat, double cpu)
{
	struct report_job_proc p;

	report_job_proc_init(&p);
	p.job = job;
	p.rank = rank;
	p.generation = gen;
	p.pid = pid;
	p.alive = alive;
	if (alive) {
		snprintf(p.stat, sizeof(p.stat), "%s", stat);
		p.cpu_seconds = cpu;
		p.rss_bytes = INT64_C(1) << 30;
	}
	return p;
}

/* Fresh facts for the ranks they name; the rest left to SSH. */
static void
test_fresh_facts(void **state)
{
	struct tfx *t = *state;
	struct report_job_proc p[] = {
		proc(7, 0, 3, 100, 1, "R+", 12.5),
		proc(7, 1, REPORT_NULL_I64, 101, 0, "", 0),  /* gone; no gen file */
	};
	int runnable[JOB_RANKS_MAX] = { 0 }, given[JOB_RANKS_MAX];

	store_report(t, "n1", UUID_A, NOW - 1, NOW - 1, p, 2);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, runnable, given), 2);
	assert_true(given[0] && given[1] && !given[2]);
	assert_int_equal(t->j.ranks[0].alive, 1);
	assert_true(t->j.ranks[0].cpu_seconds == 12.5);
	assert_true(t->j.ranks[0].rss_bytes == INT64_C(1) << 30);
	assert_true(t->j.ranks[0].seen_at == NOW - 1);
	assert_string_equal(t->j.ranks[0].seen_by, "agent");
	assert_int_equal(runnable[0], 1);
	assert_int_equal(t->j.ranks[1].alive, 0);
	assert_int_equal(runnable[1], 0);
	assert_true(isnan(t->j.ranks[1].cpu_seconds) && t->j.ranks[1].rss_bytes == -1);
	/* n2 has no report at all: its rank untouched */
	assert_int_equal(t->j.ranks[2].alive, -1);
	assert_string_equal(t->j.ranks[2].seen_by, "");
}

/* Another pid, another generation, another job, another rank: not this rank's. */
static void
test_matching(void **state)
{
	struct tfx *t = *state;
	struct report_job_proc p[] = {
		proc(7, 0, 3, 999, 1, "S", 1),        /* another pid (an older start) */
		proc(7, 1, 2, 101, 1, "S", 1),        /* the generation before */
		proc(8, 0, 3, 100, 1, "S", 1),        /* another job */
		proc(7, 2, 3, 102, 1, "S", 1),        /* rank 2 is on n2, not n1 */
	};
	int given[JOB_RANKS_MAX];

	store_report(t, "n1", UUID_A, NOW, NOW, p, 4);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 0);
	assert_true(!given[0] && !given[1] && !given[2]);
	assert_int_equal(t->j.ranks[0].alive, -1);
	/* the right pid and generation: taken */
	p[0].pid = 100;
	store_report(t, "n1", UUID_A, NOW + 1, NOW + 1, p, 4);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW + 1, NULL, given), 1);
	assert_true(given[0] && !given[1]);
}

/* Too old, older than the rank, or no section (an older agent): nothing taken. */
static void
test_freshness(void **state)
{
	struct tfx *t = *state;
	struct report_job_proc p[] = { proc(7, 0, 3, 100, 1, "S", 4) };
	double bound = job_procs_bound(t->c.job_check_interval);
	int given[JOB_RANKS_MAX];

	assert_true(bound == JOB_PROCS_FRESH_MIN);
	assert_true(job_procs_bound(30) == 60);
	/* read just within the bound: taken; just past it: not */
	store_report(t, "n1", UUID_A, NOW - bound + 0.5, NOW - bound + 0.5, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 1);
	store_report(t, "n1", UUID_A, NOW - bound - 0.5, NOW - bound - 0.5, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 0);
	/* a fresh report whose jobs section was read long before it */
	store_report(t, "n1", UUID_A, NOW, NOW - bound - 1, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 0);
	/* read before the rank started (a report older than the process) */
	t->j.ranks[0].started_at = NOW - 2;
	store_report(t, "n1", UUID_A, NOW - 3, NOW - 3, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 0);
	store_report(t, "n1", UUID_A, NOW - 1, NOW - 1, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 1);
	/* a report without the section (an older agent), or with it null */
	store_report(t, "n1", UUID_A, NOW, NAN, p, -1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 0);
	/* the section's time null: the report's */
	store_report(t, "n1", UUID_A, NOW, NAN, p, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, NULL, given), 1);
	assert_true(t->j.ranks[0].seen_at == NOW);
}

/* Each node's own report: ranks on two nodes, each from its node's. */
static void
test_two_nodes(void **state)
{
	struct tfx *t = *state;
	struct report_job_proc p1[] = { proc(7, 0, 3, 100, 1, "S", 1),
		proc(7, 1, 3, 101, 1, "S", 2) };
	struct report_job_proc p2[] = { proc(7, 2, 3, 102, 1, "R", 3) };
	int given[JOB_RANKS_MAX], runnable[JOB_RANKS_MAX] = { 0 };

	store_report(t, "n1", UUID_A, NOW, NOW, p1, 2);
	store_report(t, "n2", UUID_B, NOW, NOW, p2, 1);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, runnable, given), 3);
	assert_true(t->j.ranks[2].cpu_seconds == 3 && runnable[2] == 1 && runnable[1] == 0);
	/* n2's report lists n1's rank: not taken from it (only n1 speaks for n1) */
	struct report_job_proc wrong[] = { proc(7, 0, 3, 100, 1, "R", 50) };
	store_report(t, "n2", UUID_B, NOW, NOW, wrong, 1);
	store_report(t, "n1", UUID_A, NOW, NOW, p1, 0);
	assert_int_equal(job_procs_read(&t->c, &t->j, NOW, runnable, given), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_facts, setup_procs, teardown_procs),
		cmocka_unit_test_setup_teardown(test_matching, setup_procs, teardown_procs),
		cmocka_unit_test_setup_teardown(test_freshness, setup_procs, teardown_procs),
		cmocka_unit_test_setup_teardown(test_two_nodes, setup_procs, teardown_procs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
