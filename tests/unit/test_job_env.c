/*
 * job_env.c: each rank's environment, file and command line, as MLX's
 * launcher gives them (ml-explore/mlx 846d176,
 * python/mlx/_distributed_utils/launch.py), for plans the real planner
 * makes on 1- to 4-Mac meshes; then the shell lines run for real by
 * /bin/sh in a temporary directory, with a stand-in interpreter that
 * records what it was started with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "job_env.h"
#include "place_fixture.h"

static struct job_env *env;
static struct catalog_model model;
static struct catalog_variant variant;
static char tmp[256];

static void
plan_on(int n, int rdma, enum plan_strategy st)
{
	struct place_opts o;
	char err[1024];

	pf_mesh(n, rdma);
	place_opts_init(&o);
	o.strategy = st;
	o.exact = 1;
	if (place_plan(&model, &variant, in, &o, plan, err, sizeof(err)) != 0)
		fail_msg("%d nodes, %s: %s", n, plan_strategy_str(st), err);
	assert_int_equal(plan->n_ranks, n);
}

static void
make_env(int64_t id, int gen, int port, const char *python)
{
	char err[512];

	job_env_free(env);
	if (job_env_make(plan, id, gen, port, python, env, err, sizeof(err)) != 0)
		fail_msg("job_env_make: %s", err);
}

/* Rank r's variables as "K=V" joined by spaces, in order (files as "@name"). */
static void
vars_of(int r, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < env->n_vars[r]; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s=%s%s", i ? " " : "", env->vars[r][i].key,
		    env->vars[r][i].is_file ? "@" : "", env->vars[r][i].value);
	}
}

static void
argv_of(char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < env->argc; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", i ? " " : "", env->argv[i]);
	}
}

/* The file's JSON against the plan's own hostfile: hosts[i].rdma, row by row. */
static void
check_devices_match_plan(void)
{
	char *hf = plan_json_hostfile(plan);
	cJSON *h = cJSON_Parse(hf), *m = cJSON_Parse(env->file);
	cJSON *hosts = cJSON_GetObjectItemCaseSensitive(h, "hosts");

	assert_non_null(h);
	assert_non_null(m);
	assert_true(cJSON_IsArray(m));
	assert_int_equal(cJSON_GetArraySize(m), plan->n_ranks);
	for (int i = 0; i < plan->n_ranks; i++) {
		cJSON *row = cJSON_GetArrayItem(m, i);
		cJSON *want = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(hosts, i), "rdma");
		assert_int_equal(cJSON_GetArraySize(row), plan->n_ranks);
		assert_true(cJSON_IsNull(cJSON_GetArrayItem(row, i)));   /* launch.py:380 */
		assert_true(cJSON_Compare(row, want, 1));
	}
	cJSON_Delete(h);
	cJSON_Delete(m);
	free(hf);
}

/*
 * jaccl, 2-4 Macs: MLX_JACCL_COORDINATOR=hosts[0].ips[0]:32323
 * (launch.py:383-386), the device file (389, echo'd: a newline at the
 * end, 145), MLX_RANK last (150); no MLX_HOSTFILE (the C++ side would take
 * the ring backend: distributed.cpp:182-201), no MLX_JACCL_RING.
 */
static void
test_jaccl_env(void **state)
{
	char got[2048], want[2048];

	(void)state;
	for (int n = 2; n <= 4; n++) {
		plan_on(n, 1, PLAN_TENSOR);
		assert_string_equal(plan->backend, "jaccl");
		make_env(7, 3, 8080, "python3");
		assert_int_equal(env->single, 0);
		assert_string_equal(env->file_name, "g3-devices.json");
		for (int r = 0; r < n; r++) {
			vars_of(r, got, sizeof(got));
			snprintf(want, sizeof(want), "MLX_JACCL_COORDINATOR=%s:32323 "
			    "MLX_IBV_DEVICES=@g3-devices.json MLX_RANK=%d TBMESH_JOB=7.3.%d",
			    plan->hosts[0].ips[0], r, r);
			assert_string_equal(got, want);
		}
		assert_string_equal(plan->coordinator, job_env_get(env, 0, "MLX_JACCL_COORDINATOR"));
		check_devices_match_plan();
		assert_int_equal(env->file[strlen(env->file) - 1], '\n');
	}
	/* 2 Macs, by hand: json.dumps's ", " between items */
	plan_on(2, 1, PLAN_TENSOR);
	make_env(1, 1, 8080, "");
	int a = strcmp(plan->ranks[0].node, "mac1") == 0 ? 0 : 1;   /* rank 0's Mac */
	snprintf(want, sizeof(want), "[[null, \"rdma_en%d\"], [\"rdma_en%d\", null]]\n",
	    2 + (1 - a), 2 + a);
	assert_string_equal(env->file, want);
}

/* jaccl-ring: the same, with MLX_JACCL_RING=1 after the coordinator (launch.py:387-388). */
static void
test_jaccl_ring_env(void **state)
{
	char got[2048], want[2048];

	(void)state;
	for (int n = 2; n <= 4; n++) {
		plan_on(n, 1, PLAN_PIPELINE);
		assert_string_equal(plan->backend, "jaccl-ring");
		make_env(9, 1, 8080, "python3");
		for (int r = 0; r < n; r++) {
			vars_of(r, got, sizeof(got));
			snprintf(want, sizeof(want), "MLX_JACCL_COORDINATOR=%s:32323 MLX_JACCL_RING=1 "
			    "MLX_IBV_DEVICES=@g1-devices.json MLX_RANK=%d TBMESH_JOB=9.1.%d",
			    plan->hosts[0].ips[0], r, r);
			assert_string_equal(got, want);
		}
		check_devices_match_plan();
		argv_of(got, sizeof(got));
		snprintf(want, sizeof(want), "python3 -m mlx_lm server --model %s --pipeline "
		    "--host 0.0.0.0 --port 8080", plan->model_path);
		assert_string_equal(got, want);
	}
}

/*
 * ring: MLX_HOSTFILE, one list of "ip:port" per rank, ports from 32323 up
 * by one per (rank, ip) (launch.py:305-314, 507-513); no jaccl variables.
 */
static void
test_ring_env(void **state)
{
	char got[2048], want[4096];

	(void)state;
	for (int n = 2; n <= 4; n++) {
		plan_on(n, 0, PLAN_PIPELINE);
		assert_string_equal(plan->backend, "ring");
		make_env(5, 2, 8080, "python3");
		assert_string_equal(env->file_name, "g2-hostfile.json");
		int port = 32323;
		snprintf(want, sizeof(want), "[");
		for (int r = 0; r < n; r++) {
			size_t len = strlen(want);
			snprintf(want + len, sizeof(want) - len, "%s[", r ? ", " : "");
			for (int k = 0; k < plan->hosts[r].n_ips; k++) {
				len = strlen(want);
				snprintf(want + len, sizeof(want) - len, "%s\"%s:%d\"", k ? ", " : "",
				    plan->hosts[r].ips[k], port++);
			}
			len = strlen(want);
			snprintf(want + len, sizeof(want) - len, "]");
		}
		strcat(want, "]\n");
		assert_string_equal(env->file, want);
		assert_non_null(strstr(env->file, ":32323\""));
		for (int r = 0; r < n; r++) {
			vars_of(r, got, sizeof(got));
			snprintf(want, sizeof(want), "MLX_HOSTFILE=@g2-hostfile.json MLX_RANK=%d "
			    "TBMESH_JOB=5.2.%d", r, r);
			assert_string_equal(got, want);
		}
	}
}

/* One Mac: the plan's `ssh HOST python3 -m mlx_lm ...`, no MLX_* at all. */
static void
test_single_env(void **state)
{
	char got[2048], want[2048];

	(void)state;
	plan_on(1, 1, PLAN_SINGLE);
	make_env(3, 1, 9000, "/opt/py/bin/python3");
	assert_int_equal(env->single, 1);
	assert_null(env->file);
	vars_of(0, got, sizeof(got));
	assert_string_equal(got, "TBMESH_JOB=3.1.0");
	argv_of(got, sizeof(got));
	snprintf(want, sizeof(want), "/opt/py/bin/python3 -m mlx_lm server --model %s "
	    "--host 0.0.0.0 --port 9000", plan->model_path);
	assert_string_equal(got, want);
}

/* The hostfile's envs come first (launch.py:554), then the backend's. */
static void
test_hostfile_envs_first(void **state)
{
	struct place_opts o;
	char err[512];

	(void)state;
	pf_mesh(2, 1);
	place_opts_init(&o);
	o.strategy = PLAN_TENSOR;
	o.fast_synch = 1;
	assert_int_equal(place_plan(&model, &variant, in, &o, plan, err, sizeof(err)), 0);
	make_env(1, 1, 8080, "");
	for (int r = 0; r < 2; r++) {
		assert_string_equal(env->vars[r][0].key, "MLX_METAL_FAST_SYNCH");
		assert_string_equal(env->vars[r][0].value, "1");
		assert_string_equal(env->vars[r][1].key, "MLX_JACCL_COORDINATOR");
	}
	assert_string_equal(env->argv[0], "python3");   /* "" is the default */
}

/* What MLX's launcher refuses, refused before anything starts. */
static void
test_refusals(void **state)
{
	char err[512];

	(void)state;
	job_env_free(env);	/* job_env_make starts from nothing: the last test's goes */
	plan_on(3, 1, PLAN_TENSOR);
	plan->hosts[0].n_ips = 0;                /* launch.py:374-375 */
	assert_int_equal(job_env_make(plan, 1, 1, 8080, "", env, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 0"));
	plan_on(3, 1, PLAN_TENSOR);
	plan->hosts[1].n_rdma[1] = 1;            /* launch.py:378-381: null diagonal */
	snprintf(plan->hosts[1].rdma[1][0], sizeof(plan->hosts[1].rdma[1][0]), "rdma_en9");
	assert_int_equal(job_env_make(plan, 1, 1, 8080, "", env, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "malformed"));
	plan_on(3, 0, PLAN_PIPELINE);
	plan->hosts[2].n_ips = 0;                /* launch.py:300-303 */
	assert_int_equal(job_env_make(plan, 1, 1, 8080, "", env, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rank 2"));
	plan_on(2, 1, PLAN_TENSOR);
	plan->n_ranks = JOB_RANKS_MAX + 1;
	assert_int_equal(job_env_make(plan, 1, 1, 8080, "", env, err, sizeof(err)), -1);
	plan_on(2, 1, PLAN_TENSOR);
	snprintf(plan->backend, sizeof(plan->backend), "mpi");
	assert_int_equal(job_env_make(plan, 1, 1, 8080, "", env, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mpi"));
}

/* ps's lines: Linux's and macOS's TIME, a zombie, another pid. */
static void
test_ps_parse(void **state)
{
	const char *out = "  41 S    00:01:02  2048\n  42 R+ 1-02:03:04 10\n"
	    "  43 S   1:02.50 4\n  44 Z 0:00.00 0\n";
	double cpu;
	int64_t rss;

	(void)state;
	assert_int_equal(job_env_ps_find(out, 41, &cpu, &rss), 1);
	assert_true(cpu == 62.0 && rss == 2048 * 1024);
	assert_int_equal(job_env_ps_find(out, 42, &cpu, &rss), 2);   /* R+: runnable */
	assert_true(cpu == 86400.0 + 2 * 3600 + 3 * 60 + 4);
	assert_int_equal(job_env_ps_find(out, 43, &cpu, &rss), 1);
	assert_true(cpu > 62.49 && cpu < 62.51);
	assert_int_equal(job_env_ps_find(out, 44, &cpu, &rss), 0);
	assert_int_equal(job_env_ps_find(out, 4, &cpu, &rss), 0);
	assert_int_equal(job_env_ps_find("", 41, &cpu, &rss), 0);
}

/* ---- the shell lines, run ---- */

/* Run line with /bin/sh, stdin from in (NULL: empty); its status, output into out. */
static int
sh_run(const char *line, const char *input, char *out, size_t outlen)
{
	char path[512], cmd[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/line.sh", tmp);
	assert_non_null(f = fopen(path, "w"));
	fputs(line, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/in", tmp);
	assert_non_null(f = fopen(path, "w"));
	if (input != NULL)
		fputs(input, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "timeout 30 /bin/sh %s/line.sh <%s/in >%s/out 2>&1", tmp, tmp,
	    tmp);
	int st = system(cmd);
	snprintf(path, sizeof(path), "%s/out", tmp);
	out[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		size_t n = fread(out, 1, outlen - 1, f);
		out[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The file at tmp/rel, or "" (into buf). */
static void
slurp(const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	buf[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return;
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Wait (at most 5 s) for tmp/rel to be there and not empty. */
static void
wait_file(const char *rel)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (int i = 0; i < 100; i++) {
		if (stat(path, &sb) == 0 && sb.st_size > 0)
			return;
		usleep(50000);
	}
	fail_msg("%s never appeared", path);
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A stand-in interpreter (its name with a space and a quote, to test the
 * quoting) that writes down its environment and argv, then waits.
 */
static void
write_python(char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/py th'on", tmp);
	assert_non_null(f = fopen(path, "w"));
	fputs("#!/bin/sh\n"
	    "env | grep -E '^(MLX_|TBMESH_JOB=)' | sort >\"env.$TBMESH_JOB\"\n"
	    "printf '%s\\n' \"$@\" >\"args.$TBMESH_JOB\"\n"
	    "[ -n \"$JOB_ENV_TEST_IGNORE_TERM\" ] && trap '' TERM\n"
	    "echo ready\n"
	    "exec sleep 60\n", f);
	fclose(f);
	chmod(path, 0755);
}

static void
test_start_stop_lines(void **state)
{
	char python[512], out[4096], got[4096], want[4096], err[256], *line;
	long long pid, pid2;
	int gen;
	double cpu;
	int64_t rss;

	(void)state;
	write_python(python, sizeof(python));
	setenv("TBMESH_JOBS", tmp, 1);
	unsetenv("JOB_ENV_TEST_IGNORE_TERM");
	plan_on(2, 1, PLAN_TENSOR);
	make_env(7, 1, 8080, python);

	/* start rank 1: "started PID", its files, its environment, its argv */
	assert_non_null(line = job_env_start_line(env, 7, 1, 1));
	assert_int_equal(sh_run(line, env->file, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "started %lld", &pid), 1);
	wait_file("job7/args.7.1.1");
	slurp("job7/rank1.pid", got, sizeof(got));
	assert_int_equal(atoll(got), pid);
	slurp("job7/g1-devices.json", got, sizeof(got));
	assert_string_equal(got, env->file);
	slurp("job7/env.7.1.1", got, sizeof(got));
	snprintf(want, sizeof(want), "MLX_IBV_DEVICES=%s/job7/g1-devices.json\n"
	    "MLX_JACCL_COORDINATOR=%s:32323\nMLX_RANK=1\nTBMESH_JOB=7.1.1\n", tmp,
	    plan->hosts[0].ips[0]);
	assert_string_equal(got, want);
	slurp("job7/args.7.1.1", got, sizeof(got));
	snprintf(want, sizeof(want), "-m\nmlx_lm\nserver\n--model\n%s\n--host\n0.0.0.0\n"
	    "--port\n8080\n", plan->model_path);
	assert_string_equal(got, want);
	slurp("job7/rank1.log", got, sizeof(got));
	assert_non_null(strstr(got, "== job 7 generation 1 rank 1\nready\n"));

	/* a second start finds it: no second copy */
	assert_int_equal(sh_run(line, env->file, out, sizeof(out)), 3);
	assert_int_equal(sscanf(out, "running %lld %d", &pid2, &gen), 2);
	assert_int_equal(pid2, pid);
	assert_int_equal(gen, 1);
	free(line);

	/* ps sees it */
	int64_t p64 = pid;
	assert_non_null(line = job_env_ps_line(&p64, 1));
	assert_int_equal(sh_run(line, NULL, out, sizeof(out)), 0);
	assert_int_equal(job_env_ps_find(out, pid, &cpu, &rss), 1);   /* sleeping */
	assert_true(cpu >= 0 && rss > 0);

	/* stop: SIGTERM is enough; gone, and ps no longer sees it (a zombie is gone) */
	char *stop = job_env_stop_line(7, 1, 2);
	assert_non_null(stop);
	assert_int_equal(sh_run(stop, NULL, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "gone %lld\n", pid);
	assert_string_equal(out, want);
	assert_int_equal(sh_run(line, NULL, out, sizeof(out)), 0);
	assert_int_equal(job_env_ps_find(out, pid, &cpu, &rss), 0);
	assert_int_equal(sh_run(stop, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "none\n");
	free(stop);
	free(line);

	/* a rank that ignores SIGTERM (MLX issue 3910): SIGKILL after the grace */
	setenv("JOB_ENV_TEST_IGNORE_TERM", "1", 1);
	make_env(7, 2, 8080, python);
	assert_non_null(line = job_env_start_line(env, 7, 2, 0));
	assert_int_equal(sh_run(line, env->file, out, sizeof(out)), 0);
	assert_int_equal(sscanf(out, "started %lld", &pid), 1);
	wait_file("job7/args.7.2.0");
	slurp("job7/rank0.gen", got, sizeof(got));
	assert_string_equal(got, "2\n");
	free(line);
	assert_non_null(stop = job_env_stop_line(7, 0, 1));
	double t0 = mono();
	assert_int_equal(sh_run(stop, NULL, out, sizeof(out)), 0);
	assert_true(mono() - t0 >= 1.0);
	snprintf(want, sizeof(want), "gone %lld\n", pid);
	assert_string_equal(out, want);
	free(stop);
	unsetenv("JOB_ENV_TEST_IGNORE_TERM");

	/* tail: the last lines of the output (test_job_logs.c has the rest) */
	struct job_log *tl = calloc(1, sizeof(*tl));
	assert_non_null(tl);
	assert_non_null(line = job_env_tail_line(7, 0, -1, JOB_LOG_BYTES_MAX));
	assert_int_equal(sh_run(line, NULL, out, sizeof(out)), 0);
	assert_int_equal(job_env_tail_read(out, strlen(out), -1, 1, tl, err, sizeof(err)), 0);
	assert_int_equal(tl->n_lines, 1);
	assert_string_equal(tl->lines[0], "ready");
	assert_int_equal(tl->end, tl->size);
	job_logs_free(tl, 1);
	free(line);
}

static int
setup(void **state)
{
	pf_test_model(&model, &variant);
	if (pf_setup(state) != 0)
		return -1;
	env = calloc(1, sizeof(*env));
	snprintf(tmp, sizeof(tmp), "%s/test_job_env.XXXXXX", getenv("TMPDIR") ?
	    getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmp) == NULL)
		return -1;
	return env ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[1200];

	(void)state;
	/* whatever a failed test left running */
	snprintf(cmd, sizeof(cmd), "for f in %s/job*/rank*.pid; do [ -f \"$f\" ] && "
	    "kill -9 \"$(cat \"$f\")\" 2>/dev/null; done; rm -rf %s", tmp, tmp);
	if (system(cmd) == -1)
		return -1;
	job_env_free(env);
	free(env);
	return pf_teardown(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jaccl_env),
		cmocka_unit_test(test_jaccl_ring_env),
		cmocka_unit_test(test_ring_env),
		cmocka_unit_test(test_single_env),
		cmocka_unit_test(test_hostfile_envs_first),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_ps_parse),
		cmocka_unit_test(test_start_stop_lines),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
