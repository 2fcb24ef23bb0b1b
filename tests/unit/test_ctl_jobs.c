/*
 * tbctl's jobs: run, jobs, job show, job logs, job stop.  What the printers
 * make of recorded answers of the controller (the list, one job, the logs,
 * what run started), what --json prints, and the command lines refused
 * before anything is sent (with the request and the path of those that
 * are not).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_json.h"
#include "ctl.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "job_api.h"

#define NOW 1763782801.0   /* 2025-11-22T03:40:01Z */

/* Two jobs as GET /v1/jobs answers them: one running on two nodes, one that failed. */
static const char jobs_json[] =
    "{\"jobs\":["
    "{\"id\":3,\"placement\":7,\"model\":\"llama-3.3-70b:4bit\",\"cluster\":\"lab\","
    "\"backend\":\"jaccl\",\"state\":\"running\",\"reason\":null,\"want\":\"run\","
    "\"generation\":1,\"restarts\":0,\"restart_policy\":\"on-failure\",\"max_restarts\":3,"
    "\"port\":8080,\"python\":\"python3\",\"endpoint\":\"http://127.0.0.2:8080\","
    "\"created_at\":1763782780,\"started_at\":1763782789,\"probe_ok_at\":1763782799,"
    "\"updated_at\":1763782799,\"ranks\":["
    "{\"rank\":0,\"node\":\"a1\",\"host\":\"127.0.0.2\",\"pid\":41213,"
    "\"started_at\":1763782787,\"alive\":true,\"cpu_seconds\":0.02,"
    "\"rss_bytes\":56623104,\"seen_at\":1763782799},"
    "{\"rank\":1,\"node\":\"a2\",\"host\":\"127.0.0.3\",\"pid\":41190,"
    "\"started_at\":1763782787,\"alive\":true,\"cpu_seconds\":0.014,"
    "\"rss_bytes\":55574528,\"seen_at\":1763782799}]},"
    "{\"id\":2,\"placement\":5,\"model\":\"qwen3-32b:8bit\",\"cluster\":\"lab\","
    "\"backend\":null,\"state\":\"failed\",\"reason\":\"rank 0 exited (134)\","
    "\"want\":\"run\",\"generation\":4,\"restarts\":3,\"restart_policy\":\"on-failure\","
    "\"max_restarts\":3,\"port\":8081,\"python\":\"python3\",\"endpoint\":null,"
    "\"created_at\":1763779000,\"started_at\":1763779100,\"probe_ok_at\":null,"
    "\"updated_at\":1763782501,\"ranks\":["
    "{\"rank\":0,\"node\":\"b1\",\"host\":\"127.0.0.4\",\"pid\":null,\"started_at\":null,"
    "\"alive\":null,\"cpu_seconds\":null,\"rss_bytes\":null,\"seen_at\":null}]}"
    "]}";

static const char logs_json[] =
    "{\"job\":3,\"ranks\":["
    "{\"rank\":0,\"node\":\"a1\",\"lines\":[\"loading\",\"serving on 0.0.0.0:8080\"]},"
    "{\"rank\":1,\"node\":\"a2\",\"lines\":[]}]}";

/* What was printed into a FILE, as a string (free it). */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void
cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static char *
cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

/* stdout, taken for a while (the output tables print there). */
struct stdout_capture {
	FILE *tmp;
	int saved;
};

static void
out_begin(struct stdout_capture *c)
{
	fflush(stdout);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(STDOUT_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), STDOUT_FILENO) >= 0);
}

static char *
out_end(struct stdout_capture *c)
{
	char *buf = calloc(1, 16384);
	size_t n;

	fflush(stdout);
	assert_true(dup2(c->saved, STDOUT_FILENO) >= 0);
	close(c->saved);
	rewind(c->tmp);
	assert_non_null(buf);
	n = fread(buf, 1, 16383, c->tmp);
	buf[n] = '\0';
	fclose(c->tmp);
	return buf;
}

static struct job *
decode_list(int *n)
{
	struct job *all = NULL;
	char err[256];

	assert_int_equal(job_list_decode(jobs_json, strlen(jobs_json), &all, n, err,
	    sizeof(err)), 0);
	assert_int_equal(*n, 2);
	return all;
}

static void
test_jobs_table(void **state)
{
	(void)state;
	struct capture c;
	int n;
	struct job *all = decode_list(&n);
	char *out;

	cap_open(&c);
	assert_int_equal(ctl_jobs_print(c.f, all, n, NOW), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "ID  PLACEMENT  MODEL               STATE    RESTARTS  ENDPOINT               SINCE"
	    "  REASON\n"
	    "3   7          llama-3.3-70b:4bit  running  0         http://127.0.0.2:8080  12s  "
	    "  -\n"
	    "2   5          qwen3-32b:8bit      failed   3         -                      5m   "
	    "  rank 0 exited (134)\n");
	free(out);
	free(all);
}

static void
test_job_show(void **state)
{
	(void)state;
	struct capture c;
	int n;
	struct job *all = decode_list(&n);
	char *out;

	cap_open(&c);
	assert_int_equal(ctl_job_print(c.f, &all[0], NOW), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "job 3: running since 12s (generation 1, restarts 0/3, on-failure)\n"
	    "placement 7 (llama-3.3-70b:4bit, jaccl) on cluster lab\n"
	    "endpoint http://127.0.0.2:8080/v1  (rank 0 on a1)\n"
	    "RANK  NODE  PID    STARTED  ALIVE  CPU   RSS\n"
	    "0     a1    41213  14s      yes    0.02  54M\n"
	    "1     a2    41190  14s      yes    0.01  53M\n");
	free(out);

	/* failed: since its last change, the reason, no endpoint, nothing known of the rank */
	all[1].want = JOB_WANT_STOP;
	cap_open(&c);
	assert_int_equal(ctl_job_print(c.f, &all[1], NOW), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "job 2: failed since 5m (generation 4, restarts 3/3, on-failure)\n"
	    "reason: rank 0 exited (134)\n"
	    "asked to stop\n"
	    "placement 5 (qwen3-32b:8bit, one node) on cluster lab\n"
	    "RANK  NODE  PID  STARTED  ALIVE  CPU  RSS\n"
	    "0     b1    -    -        -      -    -\n");
	free(out);
	free(all);
}

static void
test_run_started(void **state)
{
	(void)state;
	struct capture c;
	int n;
	struct job *all = decode_list(&n);
	char *out;

	all[0].state = JOB_STARTING;
	cap_open(&c);
	assert_int_equal(ctl_job_started_print(c.f, &all[0]), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "job 3: placement 7 (llama-3.3-70b:4bit, jaccl) starting on a1, a2\n"
	    "endpoint http://127.0.0.2:8080/v1  (rank 0 on a1)\n");
	free(out);
	free(all);
}

static void
test_logs(void **state)
{
	(void)state;
	struct job_log *l = NULL;
	struct capture c;
	char err[256], *out;
	int n = 0;

	assert_int_equal(job_logs_decode(logs_json, strlen(logs_json), &l, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 2);
	cap_open(&c);
	assert_int_equal(ctl_job_logs_print(c.f, l, n, 1), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "== rank 0 (a1) ==\n"
	    "loading\n"
	    "serving on 0.0.0.0:8080\n"
	    "\n"
	    "== rank 1 (a2) ==\n");
	free(out);
	cap_open(&c);
	assert_int_equal(ctl_job_logs_print(c.f, l, 1, 0), 0);
	out = cap_close(&c);
	assert_string_equal(out, "loading\nserving on 0.0.0.0:8080\n");
	free(out);
	job_logs_free(l, n);

	/* an answer that is not the logs' shape is refused, nothing kept */
	static const char bad[] = "{\"ranks\":[{\"rank\":0,\"lines\":[1]}]}";
	l = NULL;
	assert_int_equal(job_logs_decode(bad, strlen(bad), &l, &n, err, sizeof(err)), -1);
	assert_null(l);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "lines"));
	static const char none[] = "{\"job\":3}";
	assert_int_equal(job_logs_decode(none, strlen(none), &l, &n, err, sizeof(err)), -1);
	job_logs_free(NULL, 0);
}

/* --json: the controller's answer, indented; people's output decodes it or fails. */
static void
test_output_tables(void **state)
{
	(void)state;
	struct ctl_reply r = { 200, (char *)jobs_json, sizeof(jobs_json) - 1 };
	struct ctl_args a;
	struct stdout_capture c;
	char *out, *want;

	memset(&a, 0, sizeof(a));
	out_begin(&c);
	assert_int_equal(ctl_output_json.jobs(&r, &a), CTL_EXIT_OK);
	out = out_end(&c);
	want = api_json_pretty(jobs_json, strlen(jobs_json));
	assert_non_null(want);
	assert_int_equal(strncmp(out, want, strlen(want)), 0);
	assert_non_null(strstr(out, "\"endpoint\""));
	free(out);
	free(want);

	out_begin(&c);
	assert_int_equal(ctl_output_text.jobs(&r, &a), CTL_EXIT_OK);
	out = out_end(&c);
	assert_non_null(strstr(out, "llama-3.3-70b:4bit  running"));
	free(out);

	char bad[] = "{\"jobs\":[{\"id\":3}]}";   /* no state */
	struct ctl_reply rb = { 200, bad, sizeof(bad) - 1 };
	out_begin(&c);
	assert_int_equal(ctl_output_text.jobs(&rb, &a), CTL_EXIT_FAIL);
	assert_int_equal(ctl_output_text.job(&rb, &a), CTL_EXIT_FAIL);
	out = out_end(&c);
	assert_string_equal(out, "");
	free(out);

	char one[] = "{\"id\":9,\"state\":\"stopped\",\"ranks\":[{\"rank\":0},{\"rank\":1}]}";
	struct ctl_reply r1 = { 200, one, sizeof(one) - 1 };
	struct job j;
	char err[256];
	assert_int_equal(job_decode(one, strlen(one), &j, err, sizeof(err)), 0);
	out_begin(&c);
	assert_int_equal(ctl_output_text.job_stopped(&r1, &j), CTL_EXIT_OK);
	assert_int_equal(ctl_output_json.job_stopped(&r1, &j), CTL_EXIT_OK);
	out = out_end(&c);
	want = api_json_pretty(one, strlen(one));
	assert_non_null(want);
	assert_int_equal(strncmp(out, "job 9 stopped: 2 ranks ended, none left\n", 40), 0);
	assert_non_null(strstr(out + 40, want));
	free(out);
	free(want);
}

/* argv of a command line, after the command's words. */
static int
parse(const struct ctl_cmd *cmd, struct ctl_args *a, char *err, size_t errlen, int argc, ...)
{
	char *argv[16];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return ctl_parse_args(cmd, argc, argv, a, err, errlen);
}

static void
test_run_request(void **state)
{
	(void)state;
	struct job_request req, back;
	struct ctl_args a;
	char err[256], *body;

	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 1, "7"), 0);
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.placement, 7);
	/* what is not given is the controller's default */
	body = job_request_encode(&req);
	assert_non_null(body);
	assert_int_equal(job_request_decode(body, strlen(body), &back, err, sizeof(err)), 0);
	free(body);
	assert_int_equal(back.placement, 7);
	assert_int_equal(back.port, JOB_DEFAULT_PORT);
	assert_string_equal(back.python, JOB_DEFAULT_PYTHON);
	assert_int_equal(back.restart, JOB_RESTART_ON_FAILURE);
	assert_int_equal(back.max_restarts, JOB_DEFAULT_MAX_RESTARTS);

	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 9, "12", "--port", "8081",
	    "--python=/opt/homebrew/bin/python3", "--restart", "never", "--max-restarts", "0",
	    "--json"), 0);
	assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), 0);
	body = job_request_encode(&req);
	assert_non_null(body);
	assert_int_equal(job_request_decode(body, strlen(body), &back, err, sizeof(err)), 0);
	free(body);
	assert_int_equal(back.placement, 12);
	assert_int_equal(back.port, 8081);
	assert_string_equal(back.python, "/opt/homebrew/bin/python3");
	assert_int_equal(back.restart, JOB_RESTART_NEVER);
	assert_int_equal(back.max_restarts, 0);
	assert_int_equal(a.json, 1);
}

static void
test_run_refused(void **state)
{
	(void)state;
	static const struct { const char *opt, *val, *says; } bad[] = {
		{ "--port", "0", "--port \"0\"" },
		{ "--port", "65536", "--port" },
		{ "--port", "80x", "--port" },
		{ "--restart", "always", "--restart \"always\" is not never or on-failure" },
		{ "--max-restarts", "-1", "--max-restarts" },
		{ "--max-restarts", "101", "from 0 to 100" },
		{ "--python", "", "--python" },
		{ "--python", "py\nthon", "--python" },
	};
	struct job_request req;
	struct ctl_args a;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 3, "7", bad[i].opt,
		    bad[i].val), 0);
		err[0] = '\0';
		assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), -1);
		assert_non_null(strstr(err, bad[i].says));
	}
	for (const char *const *p = (const char *const[]){ "0", "x", "7.5", "9999999999999", NULL }; *p;
	    p++) {
		assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 1, *p), 0);
		assert_int_equal(ctl_run_request(&a, &req, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not a placement id"));
	}
	/* the parser: a placement is needed, one only, and only run's options */
	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 1, "-3"), -1);
	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 0), -1);
	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 2, "7", "8"), -1);
	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 3, "7", "--rank", "1"), -1);
	assert_int_equal(parse(&ctl_cmd_run, &a, err, sizeof(err), 2, "7", "--port"), -1);
	assert_int_equal(parse(&ctl_cmd_jobs, &a, err, sizeof(err), 1, "3"), -1);
	assert_int_equal(parse(&ctl_cmd_job_show, &a, err, sizeof(err), 0), -1);
	assert_int_equal(parse(&ctl_cmd_job_stop, &a, err, sizeof(err), 3, "3", "--lines", "5"),
	    -1);
	/* --help is taken whatever else is wrong */
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 1, "--help"), 0);
	assert_int_equal(a.help, 1);
}

/* job logs --follow: headers when the rank changes, the end's line not ended, JSON lines. */
static void
test_logs_follow_print(void **state)
{
	(void)state;
	static const char a1[] = "{\"job\":3,\"state\":\"running\",\"reason\":null,"
	    "\"ended\":false,\"ranks\":[{\"rank\":0,\"node\":\"a1\",\"lines\":[\"x\"],"
	    "\"end\":2,\"partial\":\"p\"},{\"rank\":1,\"node\":\"a2\",\"lines\":[\"y\"],"
	    "\"end\":2}]}";
	static const char a2[] = "{\"job\":3,\"state\":\"running\",\"ended\":false,"
	    "\"ranks\":[{\"rank\":0,\"node\":\"a1\",\"lines\":[]},{\"rank\":1,"
	    "\"node\":\"a2\",\"lines\":[\"z\"]}]}";
	static const char a3[] = "{\"job\":3,\"state\":\"stopped\",\"reason\":\"asked\","
	    "\"ended\":true,\"ranks\":[{\"rank\":0,\"node\":\"a1\",\"lines\":[\"w\"],"
	    "\"partial\":\"last\"},{\"rank\":1,\"node\":\"a2\",\"lines\":[]}]}";
	const char *answers[] = { a1, a2, a3 };
	struct job_logs_state st;
	struct job_log *l;
	struct capture c;
	char err[256], *out;
	int n, last = -1;

	cap_open(&c);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(job_logs_decode(answers[i], strlen(answers[i]), &l, &n, err,
		    sizeof(err)), 0);
		assert_int_equal(job_logs_state_decode(answers[i], strlen(answers[i]), &st, err,
		    sizeof(err)), 0);
		assert_int_equal(ctl_job_logs_follow_print(c.f, &st, l, n, 0, 1, &last), 0);
		job_logs_free(l, n);
	}
	out = cap_close(&c);
	/* rank 1's "z" under the header it had; "p" not shown until the end */
	assert_string_equal(out,
	    "== rank 0 (a1) ==\nx\n\n== rank 1 (a2) ==\ny\nz\n\n== rank 0 (a1) ==\nw\nlast\n");
	free(out);

	/* JSON: one line per answer that brings something; an empty one, nothing */
	static const char quiet[] = "{\"job\":3,\"state\":\"running\",\"ended\":false,"
	    "\"ranks\":[{\"rank\":0,\"node\":\"a1\",\"lines\":[]}]}";
	const char *js[] = { a1, quiet, a3 };
	cap_open(&c);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(job_logs_decode(js[i], strlen(js[i]), &l, &n, err,
		    sizeof(err)), 0);
		assert_int_equal(job_logs_state_decode(js[i], strlen(js[i]), &st, err,
		    sizeof(err)), 0);
		assert_int_equal(ctl_job_logs_follow_print(c.f, &st, l, n, 1, 1, &last), 0);
		job_logs_free(l, n);
	}
	out = cap_close(&c);
	char *nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_non_null(strchr(nl + 1, '\n'));
	assert_null(strchr(strchr(nl + 1, '\n') + 1, '\n'));   /* two lines */
	*nl = '\0';
	assert_int_equal(job_logs_decode(out, strlen(out), &l, &n, err, sizeof(err)), 0);
	assert_string_equal(l[1].lines[0], "y");
	job_logs_free(l, n);
	assert_non_null(strstr(nl + 1, "\"ended\":true"));
	free(out);

	/* without --rank, a partial last line shows after the lines */
	assert_int_equal(job_logs_decode(a1, strlen(a1), &l, &n, err, sizeof(err)), 0);
	cap_open(&c);
	assert_int_equal(ctl_job_logs_print(c.f, l, 1, 0), 0);
	out = cap_close(&c);
	assert_string_equal(out, "x\np\n");
	free(out);
	job_logs_free(l, n);

	/* --follow and --interval are job logs' options */
	struct ctl_args a;
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 4, "3", "--follow",
	    "--interval", "0.5"), 0);
	assert_int_equal(a.follow, 1);
	assert_string_equal(a.interval, "0.5");
	assert_int_equal(parse(&ctl_cmd_job_show, &a, err, sizeof(err), 2, "3", "--follow"), -1);
}

static void
test_logs_path(void **state)
{
	(void)state;
	struct ctl_args a;
	char path[96], err[256];

	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 1, "3"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, "/v1/jobs/3/logs");
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 3, "3", "--rank", "1"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, "/v1/jobs/3/logs?rank=1");
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 2, "3", "--lines=20"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, "/v1/jobs/3/logs?lines=20");
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 5, "42", "--rank", "0",
	    "--lines", "1000"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, "/v1/jobs/42/logs?rank=0&lines=1000");

	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 1, "x"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"x\" is not a job id"));
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 3, "3", "--rank", "16"),
	    0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--rank \"16\""));
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 3, "3", "--lines", "0"),
	    0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--lines \"0\""));
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 3, "3", "--lines",
	    "1001"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, sizeof(path), err, sizeof(err)), -1);
	/* too small a buffer is an error, not a cut path */
	assert_int_equal(parse(&ctl_cmd_job_logs, &a, err, sizeof(err), 5, "42", "--rank", "0",
	    "--lines", "1000"), 0);
	assert_int_equal(ctl_job_logs_path(&a, path, 24, err, sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs_table),
		cmocka_unit_test(test_job_show),
		cmocka_unit_test(test_run_started),
		cmocka_unit_test(test_logs),
		cmocka_unit_test(test_output_tables),
		cmocka_unit_test(test_run_request),
		cmocka_unit_test(test_run_refused),
		cmocka_unit_test(test_logs_path),
		cmocka_unit_test(test_logs_follow_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
