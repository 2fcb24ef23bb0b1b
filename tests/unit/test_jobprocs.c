/*
 * jobprocs.c: the jobs' pid files under a temporary jobs directory, naming
 * real processes of this test (itself, a child it killed and reaped, a
 * zombie child), read by this host's real ps, as the agent does at each
 * collection; the pure half on ps lines of macOS's form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobprocs.h"
#include "report.h"

struct fx {
	char dir[64];
	struct report *r;
};

static void
put(const struct fx *f, const char *rel, const char *content)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
}

static void
sub(const struct fx *f, const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/tbmesh-jobs-XXXXXX");
	if (mkdtemp(f->dir) == NULL || (f->r = report_new()) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f->r);
	free(f);
	return 0;
}

static const struct report_job_proc *
find(const struct report *r, int64_t job, int rank)
{
	for (int i = 0; i < r->jobs.n_processes; i++)
		if (r->jobs.processes[i].job == job && r->jobs.processes[i].rank == rank)
			return &r->jobs.processes[i];
	return NULL;
}

/* A child that exits at once; reaped, its pid names no process. */
static pid_t
dead_child(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

/* This test, a killed child and a zombie: alive, gone, gone; one ps. */
static void
test_collect_real_processes(void **state)
{
	struct fx *f = *state;
	char buf[32];
	pid_t dead = dead_child(), zombie;
	const struct report_job_proc *p;

	zombie = fork();
	assert_true(zombie >= 0);
	if (zombie == 0)
		_exit(0);
	/* wait for it to exit, without reaping it */
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)zombie, &si, WEXITED | WNOWAIT), 0);

	sub(f, "job7");
	sub(f, "job12");
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	put(f, "job7/rank0.pid", buf);
	put(f, "job7/rank0.gen", "3\n");
	snprintf(buf, sizeof(buf), "%d\n", (int)dead);
	put(f, "job7/rank1.pid", buf);
	snprintf(buf, sizeof(buf), "%d", (int)zombie);
	put(f, "job12/rank0.pid", buf);
	put(f, "job12/rank1.pid", "not a pid\n");     /* skipped */
	put(f, "job12/rank2.pid", "");                /* skipped */
	put(f, "job12/rank.pid", "1\n");              /* not a rank's */
	put(f, "job12/notes", "1\n");
	put(f, "jobx", "1\n");                        /* not a job's directory */

	report_init(f->r);
	f->r->collected_at = 1000;
	jobprocs_collect(f->dir, 10000, 1000, f->r);
	assert_int_equal(f->r->n_errors, 0);
	assert_int_equal(f->r->jobs.n_processes, 3);
	assert_true(isnan(f->r->jobs.collected_at));   /* the report's time */
	/* newest job first, then by rank */
	assert_true(f->r->jobs.processes[0].job == 12);
	assert_true(f->r->jobs.processes[1].job == 7 && f->r->jobs.processes[1].rank == 0);
	assert_true(f->r->jobs.processes[2].job == 7 && f->r->jobs.processes[2].rank == 1);

	assert_non_null(p = find(f->r, 7, 0));
	assert_true(p->pid == getpid() && p->generation == 3);
	assert_int_equal(p->alive, 1);
	assert_true(strchr("RS", p->stat[0]) != NULL);
	assert_true(p->cpu_seconds >= 0 && p->rss_bytes > 0);

	assert_non_null(p = find(f->r, 7, 1));
	assert_true(p->pid == dead && p->generation == REPORT_NULL_I64);
	assert_int_equal(p->alive, 0);
	assert_true(isnan(p->cpu_seconds) && p->rss_bytes == REPORT_NULL_I64);

	assert_non_null(p = find(f->r, 12, 0));
	assert_int_equal(p->alive, 0);               /* a zombie is gone */
	assert_string_equal(p->stat, "Z");
	assert_int_equal(waitpid(zombie, NULL, 0), zombie);

	/* the report's JSON carries them and reads back */
	char *json = report_encode(f->r, 0), err[256];
	struct report *back = report_new();
	assert_non_null(json);
	assert_non_null(back);
	assert_int_equal(report_decode(json, strlen(json), back, err, sizeof(err)), 0);
	assert_int_equal(back->jobs.n_processes, 3);
	assert_true(back->jobs.processes[1].pid == getpid() && back->jobs.processes[1].alive == 1);
	free(json);
	free(back);
}

/* Only dead pids: ps exits 1 with nothing shown, which is an answer, not an error. */
static void
test_all_gone(void **state)
{
	struct fx *f = *state;
	char buf[32];

	sub(f, "job3");
	snprintf(buf, sizeof(buf), "%d\n", (int)dead_child());
	put(f, "job3/rank0.pid", buf);
	report_init(f->r);
	jobprocs_collect(f->dir, 10000, 5, f->r);
	assert_int_equal(f->r->n_errors, 0);
	assert_int_equal(f->r->jobs.n_processes, 1);
	assert_int_equal(f->r->jobs.processes[0].alive, 0);
}

/* No jobs directory, or no pid file: known empty, and no command run. */
static void
test_nothing_to_read(void **state)
{
	struct fx *f = *state;
	char missing[128];

	snprintf(missing, sizeof(missing), "%s/none", f->dir);
	report_init(f->r);
	jobprocs_collect(missing, 10000, 5, f->r);
	assert_int_equal(f->r->jobs.n_processes, 0);
	assert_int_equal(f->r->n_errors, 0);
	assert_true(f->r->jobs.collected_at == 5);     /* not the report's time (unset) */
	sub(f, "job1");
	report_init(f->r);
	/* a PATH without ps: had it been run, the section would be an error */
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	jobprocs_collect(f->dir, 10000, 5, f->r);
	if (path != NULL)
		setenv("PATH", path, 1);
	free(path);
	assert_int_equal(f->r->jobs.n_processes, 0);
	assert_int_equal(f->r->n_errors, 0);
	/* NULL: not read at all */
	report_init(f->r);
	jobprocs_collect(NULL, 10000, 5, f->r);
	assert_int_equal(f->r->jobs.n_processes, -1);
}

/* ps missing: an error of source "jobs", the section null. */
static void
test_ps_fails(void **state)
{
	struct fx *f = *state;

	sub(f, "job1");
	put(f, "job1/rank0.pid", "1\n");
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	report_init(f->r);
	jobprocs_collect(f->dir, 10000, 5, f->r);
	if (path != NULL)
		setenv("PATH", path, 1);
	free(path);
	assert_int_equal(f->r->jobs.n_processes, -1);
	assert_true(isnan(f->r->jobs.collected_at));
	assert_int_equal(f->r->n_errors, 1);
	assert_string_equal(f->r->errors[0].source, "jobs");
}

/* More pid files than a report holds: the newest jobs' kept, the rest said. */
static void
test_bounded(void **state)
{
	struct fx *f = *state;
	char rel[64];

	for (int j = 1; j <= 40; j++) {
		snprintf(rel, sizeof(rel), "job%d", j);
		sub(f, rel);
		for (int r = 0; r < 2; r++) {
			snprintf(rel, sizeof(rel), "job%d/rank%d.pid", j, r);
			put(f, rel, "999999\n");
		}
	}
	report_init(f->r);
	int n = jobprocs_scan(f->dir, &f->r->jobs, rel, sizeof(rel));
	assert_int_equal(n, 80);
	assert_int_equal(f->r->jobs.n_processes, REPORT_JOB_PROCS_MAX);
	assert_true(f->r->jobs.processes[0].job == 40);
	assert_true(f->r->jobs.processes[REPORT_JOB_PROCS_MAX - 1].job == 9);
}

/* The pure half, on macOS's lines: "M:SS.hh", a U state, a zombie. */
static void
test_apply_macos_lines(void **state)
{
	struct report_jobs *j = &((struct fx *)*state)->r->jobs;
	const char *out = "  501 R+    12:03.45 524288\n  502 U      0:00.02   1024\n"
	    "  503 Z      0:00.00      0\n";

	report_init(((struct fx *)*state)->r);
	j->n_processes = 4;
	for (int i = 0; i < 4; i++) {
		report_job_proc_init(&j->processes[i]);
		j->processes[i].job = 1;
		j->processes[i].rank = i;
		j->processes[i].pid = 501 + i;
	}
	jobprocs_apply(j, out);
	assert_int_equal(j->processes[0].alive, 1);
	assert_string_equal(j->processes[0].stat, "R+");
	assert_true(j->processes[0].cpu_seconds > 723.44 && j->processes[0].cpu_seconds < 723.46);
	assert_true(j->processes[0].rss_bytes == INT64_C(524288) * 1024);
	assert_int_equal(j->processes[1].alive, 1);
	assert_int_equal(j->processes[2].alive, 0);
	assert_int_equal(j->processes[3].alive, 0);
	assert_string_equal(j->processes[3].stat, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_collect_real_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ps_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_macos_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
