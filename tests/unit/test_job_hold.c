/*
 * Jobs held for an OS update (controller/run/job_hold.c).  The decisions:
 * which job is clear of the update (waiting, stopped or failed, no rank
 * alive), which jobs a drain holds, how long it waits (a slack plus a stop
 * per rank still to stop), what it says.  The wait, on a real SQLite
 * inventory behind the store's lock (no job runner: the test moves the
 * job as the runner would, from another thread): clear at once, cleared
 * meanwhile (its event and text), never clear (a failure naming the job,
 * after the bound and not much later), cancelled (its rollout aborted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctrl.h"
#include "inventory_jobs.h"
#include "job_hold.h"
#include "store.h"

#define T0 1763782800.0

/* Scratch: a job is several kilobytes. */
static struct job job_a, job_b;

/* A job of placement p with n ranks, running: every rank alive. */
static void
running_job(struct job *j, int64_t id, int64_t p, int n)
{
	job_init(j);
	j->id = id;
	j->placement = p;
	snprintf(j->model, sizeof(j->model), "llama-3.3-70b:4bit");
	snprintf(j->cluster, sizeof(j->cluster), "lab");
	j->state = JOB_RUNNING;
	j->restart_policy = JOB_RESTART_ON_FAILURE;
	j->max_restarts = 3;
	j->port = 8080;
	snprintf(j->python, sizeof(j->python), "python3");
	j->generation = 1;
	j->created_at = j->updated_at = T0;
	j->n_ranks = n;
	for (int i = 0; i < n; i++) {
		j->ranks[i].rank = i;
		j->ranks[i].pid = 4240 + i;
		j->ranks[i].alive = 1;
		snprintf(j->ranks[i].node, sizeof(j->ranks[i].node), "a%d", i + 1);
		snprintf(j->ranks[i].host, sizeof(j->ranks[i].host), "127.0.0.%d", i + 2);
	}
}

/* j as the runner leaves it when its placement is drained. */
static void
make_waiting(struct job *j, const char *reason)
{
	j->state = JOB_WAITING;
	snprintf(j->reason, sizeof(j->reason), "%s", reason);
	for (int i = 0; i < j->n_ranks; i++)
		j->ranks[i].alive = 0;
}

/* ---- the decisions ---- */

static void
test_clear_states(void **state)
{
	static const enum job_state busy[] = { JOB_STARTING, JOB_RUNNING, JOB_HUNG,
		JOB_STOPPING };
	static const enum job_state done[] = { JOB_WAITING, JOB_STOPPED, JOB_FAILED };
	char why[300], want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(busy) / sizeof(busy[0]); i++) {
		running_job(&job_a, 4, 7, 2);
		job_a.state = busy[i];
		for (int q = 0; q < 2; q++)
			job_a.ranks[q].alive = 0;   /* whatever the ranks: not settled */
		assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 0);
		snprintf(want, sizeof(want), "job 4 is %s", job_state_str(busy[i]));
		assert_string_equal(why, want);
	}
	for (size_t i = 0; i < sizeof(done) / sizeof(done[0]); i++) {
		running_job(&job_a, 4, 7, 2);
		job_a.state = done[i];
		job_a.ranks[0].alive = 0;
		job_a.ranks[1].alive = -1;      /* not known, and never started */
		job_a.ranks[1].pid = 0;
		snprintf(why, sizeof(why), "stale");
		assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 1);
		assert_string_equal(why, "");
	}
}

static void
test_clear_rank_alive(void **state)
{
	char why[300];

	(void)state;
	/* a failed job whose rank would not die is not clear */
	running_job(&job_a, 4, 7, 2);
	job_a.state = JOB_FAILED;
	job_a.ranks[0].alive = 0;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 0);
	assert_string_equal(why, "job 4 is failed and its rank 1 (pid 4241 on a2) is alive");
	job_a.ranks[1].alive = 0;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 1);
	/* nor a waiting one with a rank alive */
	make_waiting(&job_a, "");
	job_a.ranks[0].alive = 1;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 0);
	assert_string_equal(why, "job 4 is waiting and its rank 0 (pid 4240 on a1) is alive");
	/* or one the runner could not check (its node not reached): a pid, alive not known */
	job_a.ranks[0].alive = -1;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 0);
	assert_string_equal(why,
	    "job 4 is waiting and its rank 0 (pid 4240 on a1) was not seen gone");
	/* no pid, but its start was sent (the controller stopped before the answer) */
	job_a.ranks[0].pid = 0;
	job_a.ranks[0].start_sent_at = T0;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 0);
	/* never started: nothing to wait for */
	job_a.ranks[0].start_sent_at = NAN;
	assert_int_equal(job_hold_clear(&job_a, why, sizeof(why)), 1);
}

static void
test_held(void **state)
{
	const int64_t ids[] = { 3, 7, 9 };

	(void)state;
	running_job(&job_a, 4, 7, 2);
	assert_int_equal(job_hold_held(&job_a, ids, 3), 1);
	assert_int_equal(job_hold_held(&job_a, ids, 1), 0);
	assert_int_equal(job_hold_held(&job_a, ids, 0), 0);
	job_a.placement = 8;
	assert_int_equal(job_hold_held(&job_a, ids, 3), 0);
}

static void
test_timeout(void **state)
{
	static struct job js[3];

	(void)state;
	assert_true(job_hold_timeout(js, 0) == JOB_HOLD_SLACK);
	running_job(&js[0], 4, 7, 2);
	running_job(&js[1], 5, 8, 3);
	running_job(&js[2], 6, 9, 0);
	/* each rank still to stop may need the whole grace, one after another */
	assert_true(job_hold_timeout(js, 1) == JOB_HOLD_SLACK + 2 * JOB_HOLD_PER_RANK);
	assert_true(job_hold_timeout(js, 2) == JOB_HOLD_SLACK + 5 * JOB_HOLD_PER_RANK);
	/* a job with no rank known still gets one */
	assert_true(job_hold_timeout(js, 3) == JOB_HOLD_SLACK + 6 * JOB_HOLD_PER_RANK);
	/* a clear job adds nothing */
	make_waiting(&js[1], "");
	assert_true(job_hold_timeout(js, 2) == JOB_HOLD_SLACK + 2 * JOB_HOLD_PER_RANK);
	/* the grace between SIGTERM and SIGKILL fits in a rank's share */
	assert_true(JOB_HOLD_PER_RANK > 10);
}

static void
test_said(void **state)
{
	char what[96];

	(void)state;
	running_job(&job_a, 4, 7, 2);
	make_waiting(&job_a, "");
	job_hold_said(&job_a, what, sizeof(what));
	assert_string_equal(what, "job 4 stopped for the update");
	job_a.state = JOB_STOPPED;
	job_hold_said(&job_a, what, sizeof(what));
	assert_string_equal(what, "job 4 stopped");
	job_a.state = JOB_FAILED;
	job_hold_said(&job_a, what, sizeof(what));
	assert_string_equal(what, "job 4 failed");
}

/* ---- the wait, on a real inventory ---- */

struct wfx {
	char dir[64];
	char path[128];
	struct inv *inv;
	struct ctrl c;
	int64_t id_a, id_b;          /* job_a's (placement 7, waiting), job_b's (8, running) */
};

static int
wait_setup(void **state)
{
	struct wfx *x = calloc(1, sizeof(*x));
	char err[256];

	if (x == NULL)
		return -1;
	snprintf(x->dir, sizeof(x->dir), "/tmp/tbmesh-jobhold.XXXXXX");
	if (mkdtemp(x->dir) == NULL)
		return -1;
	snprintf(x->path, sizeof(x->path), "%s/inventory.db", x->dir);
	if ((x->inv = inv_open(x->path, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (store_init(&x->c.store, x->inv) != 0)
		return -1;
	running_job(&job_a, 0, 7, 2);
	make_waiting(&job_a, "placement 7 is degraded: a node is down");
	running_job(&job_b, 0, 8, 2);
	if (inv_job_add(x->inv, &job_a) != 0 || inv_job_add(x->inv, &job_b) != 0)
		return -1;
	x->id_a = job_a.id;
	x->id_b = job_b.id;
	*state = x;
	return 0;
}

static int
wait_teardown(void **state)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	struct wfx *x = *state;
	char p[160];

	store_fini(&x->c.store);
	inv_close(x->inv);
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", x->path, sfx[i]);
		unlink(p);
	}
	rmdir(x->dir);
	free(x);
	return 0;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct ev_count {
	const char *what;
	int n;
	struct api_event last;
};

/* store_fn: the events whose what is a->what. */
static int
count_events(struct inv *inv, void *arg)
{
	struct ev_count *a = arg;
	struct api_event *evs = NULL;
	int n = 0;

	if (inv_event_list(inv, "", NAN, 1000, &evs, &n) != 0)
		return -1;
	a->n = 0;
	for (int i = 0; i < n; i++)
		if (a->what == NULL || strcmp(evs[i].what, a->what) == 0) {
			a->n++;
			a->last = evs[i];
		}
	free(evs);
	return 0;
}

static int
events_of(struct wfx *x, const char *what, struct api_event *last)
{
	struct ev_count a = { .what = what };

	assert_int_equal(store_with(&x->c.store, count_events, &a), 0);
	if (last != NULL)
		*last = a.last;
	return a.n;
}

static void
test_wait_nothing_held(void **state)
{
	struct wfx *x = *state;
	const int64_t seven[] = { 7 };
	struct job_hold h = { .placements = seven, .n_placements = 0, .actor = "rollout:3",
		.node = "a1", .timeout = 5 };
	char what[256] = "stale", err[256] = "";
	double t0 = mono();

	assert_int_equal(job_hold_wait(&x->c, &h, what, sizeof(what), err, sizeof(err)), 0);
	assert_string_equal(what, "");
	/* placement 7's job is waiting already: clear at once, nothing to say */
	h.n_placements = 1;
	assert_int_equal(job_hold_wait(&x->c, &h, what, sizeof(what), err, sizeof(err)), 0);
	assert_string_equal(what, "");
	assert_true(mono() - t0 < 1.0);
	assert_int_equal(events_of(x, NULL, NULL), 0);
}

static void
test_wait_times_out(void **state)
{
	struct wfx *x = *state;
	const int64_t ids[] = { 7, 8 };
	struct job_hold h = { .placements = ids, .n_placements = 2, .actor = "rollout:3",
		.node = "a1", .timeout = 0.6 };
	char what[256], err[300] = "", want[200];
	double t0 = mono(), took;

	assert_int_equal(job_hold_wait(&x->c, &h, what, sizeof(what), err, sizeof(err)), -1);
	took = mono() - t0;
	assert_true(took >= 0.6);
	assert_true(took < 0.6 + 1.0);
	snprintf(want, sizeof(want), "job %" PRId64 " is running ", x->id_b);
	assert_non_null(strstr(err, want));
	snprintf(want, sizeof(want), "after its placement 8 was stopped (tbctl job show %" PRId64
	    "): the update would cut its ranks off", x->id_b);
	assert_non_null(strstr(err, want));
	assert_int_equal(events_of(x, NULL, NULL), 0);
}

struct mover {
	struct wfx *x;
	int ms;                      /* after so long, job_b is waiting */
};

/* store_fn: job_b as the runner leaves it after the drain. */
static int
put_waiting(struct inv *inv, void *arg)
{
	struct wfx *x = arg;

	if (inv_job_get(inv, x->id_b, &job_b) != 0)
		return -1;
	make_waiting(&job_b, "placement 8 is degraded: drained by rollout 3: a1 updates to 26.3");
	return inv_job_put(inv, &job_b);
}

static void *
mover_main(void *arg)
{
	struct mover *m = arg;

	poll(NULL, 0, m->ms);
	store_with(&m->x->c.store, put_waiting, m->x);
	return NULL;
}

static void
test_wait_cleared(void **state)
{
	struct wfx *x = *state;
	const int64_t ids[] = { 7, 8 };
	struct job_hold h = { .placements = ids, .n_placements = 2, .actor = "rollout:3",
		.node = "a1" };
	struct mover m = { x, 400 };
	char what[256], err[300] = "", want[200];
	struct api_event ev;
	pthread_t th;
	double t0 = mono(), took;

	assert_int_equal(pthread_create(&th, NULL, mover_main, &m), 0);
	assert_int_equal(job_hold_wait(&x->c, &h, what, sizeof(what), err, sizeof(err)), 0);
	took = mono() - t0;
	pthread_join(th, NULL);
	assert_string_equal(err, "");
	assert_true(took >= 0.4);
	assert_true(took < 0.4 + 1.0);
	/* the job that was running is named, the one already waiting is not */
	snprintf(want, sizeof(want), "job %" PRId64 " stopped for the update (2 ranks gone)",
	    x->id_b);
	assert_string_equal(what, want);
	snprintf(want, sizeof(want), "job %" PRId64 " stopped for the update", x->id_b);
	assert_int_equal(events_of(x, want, &ev), 1);
	assert_string_equal(ev.actor, "rollout:3");
	assert_string_equal(ev.node, "a1");
	assert_string_equal(ev.reason,
	    "placement 8 is degraded: drained by rollout 3: a1 updates to 26.3");
	assert_int_equal(events_of(x, NULL, NULL), 1);
}

static int calls;

static int
abort_on_second(struct ctrl *c, void *arg)
{
	(void)c;
	assert_ptr_equal(arg, &calls);
	return ++calls >= 2;
}

static void
test_wait_cancelled(void **state)
{
	struct wfx *x = *state;
	const int64_t ids[] = { 8 };
	struct job_hold h = { .placements = ids, .n_placements = 1, .actor = "rollout:3",
		.node = "", .timeout = 30, .cancelled = abort_on_second, .arg = &calls };
	char what[256], err[300] = "";
	double t0 = mono();

	calls = 0;
	assert_int_equal(job_hold_wait(&x->c, &h, what, sizeof(what), err, sizeof(err)), 1);
	assert_int_equal(calls, 2);
	assert_true(mono() - t0 < 2.0);
	assert_int_equal(events_of(x, NULL, NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clear_states),
		cmocka_unit_test(test_clear_rank_alive),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_said),
		cmocka_unit_test_setup_teardown(test_wait_nothing_held, wait_setup, wait_teardown),
		cmocka_unit_test_setup_teardown(test_wait_times_out, wait_setup, wait_teardown),
		cmocka_unit_test_setup_teardown(test_wait_cleared, wait_setup, wait_teardown),
		cmocka_unit_test_setup_teardown(test_wait_cancelled, wait_setup, wait_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
