/*
 * A job's logs: the answer's JSON (proto/job_logs_json.c) through a round
 * trip and what a reader refuses; the from query; and the tail line
 * (controller/run/job_env.c) run by /bin/sh on a real file, read by
 * job_env_tail_read: the last lines, each line once from an offset, a last
 * line not ended held back until it is, the byte and line bounds, a file
 * that shrank or was replaced read again from 0, a line longer than a
 * whole read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job_api.h"
#include "job_env.h"

static char tmp[256];

/* ---- the answer's JSON ---- */

static void
test_codec_round_trip(void **state)
{
	struct job_logs_state st = { .job = 7, .state = JOB_RUNNING, .ended = 0 }, st2;
	struct job_log *l = calloc(2, sizeof(*l)), *got = NULL;
	char err[256], *json;
	int n = 0;

	(void)state;
	assert_non_null(l);
	l[0].rank = 0;
	snprintf(l[0].node, sizeof(l[0].node), "a1");
	l[0].lines = calloc(3, sizeof(char *));
	l[0].lines[0] = strdup("loading \"model\"\t1/2");
	l[0].lines[1] = strdup("bad \xff byte");
	l[0].n_lines = 2;
	l[0].start = 10;
	l[0].end = 52;
	l[0].size = 60;
	l[0].partial = strdup("serving");
	l[1].rank = 1;
	snprintf(l[1].node, sizeof(l[1].node), "a2");
	l[1].start = l[1].end = l[1].size = -1;
	snprintf(l[1].error, sizeof(l[1].error), "a2: no answer within 5 s");
	snprintf(l[1].reset, sizeof(l[1].reset), "shrank");
	l[1].more = 1;
	assert_non_null(json = job_logs_encode(&st, l, 2));
	assert_null(strchr(json, '\n'));   /* one line: what --follow --json prints */
	assert_int_equal(job_logs_decode(json, strlen(json), &got, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(got[0].rank, 0);
	assert_string_equal(got[0].node, "a1");
	assert_int_equal(got[0].n_lines, 2);
	assert_string_equal(got[0].lines[0], "loading \"model\"\t1/2");
	/* not UTF-8 (a strict reader refuses it): '?' */
	assert_string_equal(got[0].lines[1], "bad ? byte");
	assert_int_equal(got[0].start, 10);
	assert_int_equal(got[0].end, 52);
	assert_int_equal(got[0].size, 60);
	assert_int_equal(got[0].more, 0);
	assert_string_equal(got[0].reset, "");
	assert_string_equal(got[0].partial, "serving");
	assert_string_equal(got[0].error, "");
	assert_int_equal(got[1].start, -1);
	assert_int_equal(got[1].end, -1);
	assert_int_equal(got[1].more, 1);
	assert_string_equal(got[1].reset, "shrank");
	assert_null(got[1].partial);
	assert_string_equal(got[1].error, "a2: no answer within 5 s");
	assert_int_equal(job_logs_state_decode(json, strlen(json), &st2, err, sizeof(err)), 0);
	assert_int_equal(st2.job, 7);
	assert_int_equal(st2.state, JOB_RUNNING);
	assert_string_equal(st2.reason, "");
	assert_int_equal(st2.ended, 0);
	assert_non_null(strstr(json, "\"reason\":null"));
	free(json);
	job_logs_free(got, n);

	st.state = JOB_STOPPED;
	st.ended = 1;
	snprintf(st.reason, sizeof(st.reason), "stopped by admin:1");
	assert_non_null(json = job_logs_encode(&st, l, 0));
	assert_int_equal(job_logs_state_decode(json, strlen(json), &st2, err, sizeof(err)), 0);
	assert_int_equal(st2.state, JOB_STOPPED);
	assert_int_equal(st2.ended, 1);
	assert_string_equal(st2.reason, "stopped by admin:1");
	free(json);

	/* an answer read without a job id encodes it as null, and decodes again
	   (found by tests/fuzz/fuzz_api.c: 0 was written, then refused) */
	st.job = 0;
	assert_non_null(json = job_logs_encode(&st, l, 0));
	assert_non_null(strstr(json, "\"job\":null"));
	assert_int_equal(job_logs_state_decode(json, strlen(json), &st2, err, sizeof(err)), 0);
	assert_int_equal(st2.job, 0);
	free(json);
	job_logs_free(l, 2);
}

static void
test_codec_refusals(void **state)
{
	static const char *const bad[] = {
		"{\"ranks\":[{\"rank\":0,\"lines\":[1]}]}",
		"{\"ranks\":[{\"rank\":0,\"end\":-1}]}",
		"{\"ranks\":[{\"rank\":0,\"end\":1.5}]}",
		"{\"ranks\":[{\"rank\":0,\"start\":\"0\"}]}",
		"{\"ranks\":[{\"rank\":0,\"more\":1}]}",
		"{\"ranks\":[{\"rank\":0,\"reset\":\"gone\"}]}",
		"{\"ranks\":[{\"rank\":0,\"partial\":3}]}",
		"{\"ranks\":[{\"rank\":0,\"error\":[]}]}",
		"{\"ranks\":[{\"rank\":16}]}",
		"{\"job\":3}",
	};
	struct job_logs_state st;
	struct job_log *l;
	char err[256];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		l = (struct job_log *)1;
		n = 5;
		assert_int_equal(job_logs_decode(bad[i], strlen(bad[i]), &l, &n, err, sizeof(err)),
		    -1);
		assert_null(l);
		assert_int_equal(n, 0);
		assert_true(err[0] != '\0');
	}
	/* an older controller's answer: no offsets, no job fields */
	static const char old[] = "{\"job\":3,\"ranks\":[{\"rank\":1,\"node\":\"a2\","
	    "\"lines\":[\"x\"]}]}";
	assert_int_equal(job_logs_decode(old, strlen(old), &l, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(l[0].end, -1);
	assert_int_equal(l[0].size, -1);
	job_logs_free(l, n);
	assert_int_equal(job_logs_state_decode(old, strlen(old), &st, err, sizeof(err)), 0);
	assert_int_equal(st.state, -1);
	assert_int_equal(st.ended, 0);
	static const char bad_state[] = "{\"job\":3,\"state\":\"asleep\",\"ranks\":[]}";
	assert_int_equal(job_logs_state_decode(bad_state, strlen(bad_state), &st, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "state"));
	static const char bad_ended[] = "{\"job\":3,\"ended\":\"yes\",\"ranks\":[]}";
	assert_int_equal(job_logs_state_decode(bad_ended, strlen(bad_ended), &st, err,
	    sizeof(err)), -1);
	job_logs_free(NULL, 0);
}

static void
test_from_query(void **state)
{
	int64_t from[JOB_RANKS_MAX];
	char err[256], buf[64];
	static const char *const bad[] = { "", "0", "0:", ":5", "0:5,", "0:5,,1:2", "16:0",
		"0:-1", "0:5;1:2", "0:5,0:6", "a:1", "0:99999999999999999999", "0:5 " };

	(void)state;
	assert_int_equal(job_logs_from_parse("0:812,3:0,15:9007199254740991", from, err,
	    sizeof(err)), 0);
	assert_int_equal(from[0], 812);
	assert_int_equal(from[1], -1);
	assert_int_equal(from[3], 0);
	assert_int_equal(from[15], 9007199254740991LL);
	assert_int_equal(job_logs_from_format(from, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0:812,3:0,15:9007199254740991");
	assert_int_equal(job_logs_from_format(from, buf, 10), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(job_logs_from_parse(bad[i], from, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "from"));
	}
	for (int r = 0; r < JOB_RANKS_MAX; r++)
		from[r] = -1;
	assert_int_equal(job_logs_from_format(from, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

/* ---- the tail line on a real file ---- */

/* tmp/job9/rank0.log := text (n bytes), or appended to. */
static void
put_log(const char *text, size_t n, int append)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/job9/rank0.log", tmp);
	assert_non_null(f = fopen(path, append ? "a" : "w"));
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

/*
 * Run the tail line (from, cap) with /bin/sh and read its output with
 * max lines into a fresh *l (free it with job_logs_free).
 */
static void
read_log(int64_t from, int64_t cap, int max, struct job_log **l)
{
	char path[512], cmd[1024], *line = job_env_tail_line(9, 0, from, cap), err[256];
	char *out = malloc(4 * cap + 4096);
	size_t n = 0;
	FILE *f;

	assert_non_null(line);
	assert_non_null(out);
	snprintf(path, sizeof(path), "%s/line.sh", tmp);
	assert_non_null(f = fopen(path, "w"));
	fputs(line, f);
	fclose(f);
	free(line);
	snprintf(cmd, sizeof(cmd), "TBMESH_JOBS='%s' timeout 30 /bin/sh '%s/line.sh' "
	    "</dev/null >'%s/out' 2>&1", tmp, tmp, tmp);
	int st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(path, sizeof(path), "%s/out", tmp);
	assert_non_null(f = fopen(path, "r"));
	n = fread(out, 1, 4 * cap + 4095, f);
	fclose(f);
	out[n] = '\0';
	assert_non_null(*l = calloc(1, sizeof(**l)));
	assert_int_equal(job_env_tail_read(out, n, from, max, *l, err, sizeof(err)), 0);
	free(out);
}

static void
test_tail_last_lines(void **state)
{
	struct job_log *l;

	(void)state;
	/* no file yet: nothing, at 0 */
	read_log(-1, 4096, 50, &l);
	assert_int_equal(l->n_lines, 0);
	assert_int_equal(l->end, 0);
	assert_int_equal(l->size, 0);
	assert_null(l->partial);
	job_logs_free(l, 1);

	put_log("a\nbb\nccc\npart", 13, 0);
	read_log(-1, 4096, 2, &l);
	assert_int_equal(l->n_lines, 2);
	assert_string_equal(l->lines[0], "bb");
	assert_string_equal(l->lines[1], "ccc");
	assert_int_equal(l->start, 2);
	assert_int_equal(l->end, 9);     /* after "ccc\n": where a follower goes on */
	assert_int_equal(l->size, 13);
	assert_int_equal(l->more, 0);
	assert_string_equal(l->partial, "part");
	assert_string_equal(l->reset, "");
	job_logs_free(l, 1);

	/* the last 6 bytes ("c\npart", the one before them "c"): the line cut in
	 * front is not shown, the first whole one starts after its newline */
	read_log(-1, 6, 50, &l);
	assert_int_equal(l->n_lines, 0);
	assert_int_equal(l->start, 9);
	assert_int_equal(l->end, 9);
	assert_string_equal(l->partial, "part");
	job_logs_free(l, 1);
	read_log(-1, 8, 50, &l);       /* "\nccc\npart": from a line start */
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "ccc");
	assert_int_equal(l->start, 5);
	job_logs_free(l, 1);
}

static void
test_tail_follow(void **state)
{
	struct job_log *l;

	(void)state;
	put_log("one\ntwo\nthr", 11, 0);
	read_log(-1, 4096, 50, &l);
	int64_t at = l->end;
	assert_int_equal(at, 8);
	job_logs_free(l, 1);
	/* nothing new: no line, the partial one held back, the offset unmoved */
	read_log(at, 4096, 1000, &l);
	assert_int_equal(l->n_lines, 0);
	assert_int_equal(l->end, 8);
	assert_string_equal(l->partial, "thr");
	assert_string_equal(l->reset, "");
	job_logs_free(l, 1);
	/* the line ends, two more come: each once, in order */
	put_log("ee\nfour\nfive\n", 13, 1);
	read_log(at, 4096, 1000, &l);
	assert_int_equal(l->n_lines, 3);
	assert_string_equal(l->lines[0], "three");
	assert_string_equal(l->lines[1], "four");
	assert_string_equal(l->lines[2], "five");
	assert_int_equal(l->start, 8);
	assert_int_equal(l->end, 24);
	assert_int_equal(l->size, 24);
	assert_null(l->partial);
	assert_int_equal(l->more, 0);
	at = l->end;
	job_logs_free(l, 1);
	read_log(at, 4096, 1000, &l);
	assert_int_equal(l->n_lines, 0);
	assert_int_equal(l->end, 24);
	job_logs_free(l, 1);

	/* bounded by lines: the rest next time, from end */
	put_log("6\n7\n8\n", 6, 1);
	read_log(at, 4096, 2, &l);
	assert_int_equal(l->n_lines, 2);
	assert_string_equal(l->lines[1], "7");
	assert_int_equal(l->more, 1);
	at = l->end;
	job_logs_free(l, 1);
	read_log(at, 4096, 2, &l);
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "8");
	assert_int_equal(l->more, 0);
	at = l->end;
	job_logs_free(l, 1);
	assert_int_equal(at, 30);

	/* bounded by bytes, cut between lines and inside one */
	put_log("aaaa\nbbbb\ncc\n", 13, 1);
	read_log(at, 7, 1000, &l);       /* "aaaa\nbb" */
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "aaaa");
	assert_int_equal(l->more, 1);
	assert_null(l->partial);         /* cut by the bound, not a line not ended */
	at = l->end;
	job_logs_free(l, 1);
	read_log(at, 5, 1000, &l);       /* "bbbb\n" */
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "bbbb");
	assert_int_equal(l->more, 1);
	at = l->end;
	job_logs_free(l, 1);
	read_log(at, 5, 1000, &l);
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "cc");
	assert_int_equal(l->more, 0);
	job_logs_free(l, 1);
}

static void
test_tail_long_line(void **state)
{
	struct job_log *l;

	(void)state;
	/* a line longer than a whole read comes in pieces, never read again */
	put_log("0123456789abcdefgh\nend\n", 23, 0);
	read_log(0, 8, 1000, &l);
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "01234567");
	assert_int_equal(l->end, 8);
	assert_int_equal(l->more, 1);
	job_logs_free(l, 1);
	read_log(8, 8, 1000, &l);        /* no newline before 8, and none in the 8 bytes before */
	assert_string_equal(l->reset, "");
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "89abcdef");
	job_logs_free(l, 1);
	read_log(16, 8, 1000, &l);
	assert_string_equal(l->reset, "");
	assert_int_equal(l->n_lines, 2);
	assert_string_equal(l->lines[0], "gh");
	assert_string_equal(l->lines[1], "end");
	assert_int_equal(l->end, 23);
	job_logs_free(l, 1);
}

static void
test_tail_shrank_replaced(void **state)
{
	struct job_log *l;

	(void)state;
	put_log("first\nsecond\nthird\n", 19, 0);
	/* truncated under the follower: read from 0, and said */
	put_log("new\n", 4, 0);
	read_log(13, 4096, 1000, &l);
	assert_string_equal(l->reset, "shrank");
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "new");
	assert_int_equal(l->start, 0);
	assert_int_equal(l->end, 4);
	job_logs_free(l, 1);
	/* another file, longer than the offset, no line starting there */
	put_log("another file altogether\nx\n", 26, 0);
	read_log(13, 4096, 1000, &l);
	assert_string_equal(l->reset, "replaced");
	assert_int_equal(l->n_lines, 2);
	assert_string_equal(l->lines[0], "another file altogether");
	assert_int_equal(l->end, 26);
	job_logs_free(l, 1);
	/* a line starts there: taken as the same file, nothing said */
	read_log(24, 4096, 1000, &l);
	assert_string_equal(l->reset, "");
	assert_int_equal(l->n_lines, 1);
	assert_string_equal(l->lines[0], "x");
	job_logs_free(l, 1);
}

static void
test_tail_read_refusals(void **state)
{
	static const char *const bad[] = { "", "hello\n", "log 1 2 0 -\n", "log 5 0 2 -\n",
		"log 5 0 0 gone\n", "log -1 0 0 -\n", "log 5 0 0 -" };
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct job_log *l = calloc(1, sizeof(*l));
		assert_non_null(l);
		assert_int_equal(job_env_tail_read(bad[i], strlen(bad[i]), -1, 10, l, err,
		    sizeof(err)), -1);
		assert_true(err[0] != '\0');
		job_logs_free(l, 1);
	}
}

static int
setup(void **state)
{
	char path[300];

	(void)state;
	snprintf(tmp, sizeof(tmp), "%s/test_job_logs.XXXXXX", getenv("TMPDIR") ?
	    getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmp) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/job9", tmp);
	return mkdir(path, 0700);
}

static int
teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_round_trip),
		cmocka_unit_test(test_codec_refusals),
		cmocka_unit_test(test_from_query),
		cmocka_unit_test(test_tail_last_lines),
		cmocka_unit_test(test_tail_follow),
		cmocka_unit_test(test_tail_long_line),
		cmocka_unit_test(test_tail_shrank_replaced),
		cmocka_unit_test(test_tail_read_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
