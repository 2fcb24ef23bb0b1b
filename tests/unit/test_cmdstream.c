/*
 * agent/cmdstream.c, the reader of a command that runs on, against real
 * children (sh): records split at their separator whatever the reads cut,
 * a header skipped, a record too long dropped, an exit and its stderr, a
 * command not on PATH, and the whole process group killed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdstream.h"

static struct cmdstream *
start_sh(const char *script, const char *sep, int skip)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	char err[128];
	int notfound;
	struct cmdstream *s = cmdstream_start(argv, sep, skip, err, sizeof(err), &notfound);

	if (s == NULL)
		fail_msg("sh: %s", err);
	return s;
}

/* Wait (10 s at most) until n records are complete or the child is gone. */
static void
wait_records(struct cmdstream *s, unsigned long n)
{
	for (int i = 0; i < 200 && cmdstream_records(s) < n && cmdstream_running(s); i++)
		cmdstream_wait(s, 50);
	cmdstream_poll(s);
}

static void
test_lines(void **state)
{
	struct cmdstream *s = start_sh("printf '{\"a\":1}\\n{\"b\"'; sleep 0.2; "
	    "printf ':2}\\n{\"c\":'; exec sleep 30", "\n", 0);

	(void)state;
	assert_null(cmdstream_record(s));
	wait_records(s, 2);
	assert_int_equal(cmdstream_records(s), 2);
	assert_string_equal(cmdstream_record(s), "{\"b\":2}");	/* cut across two reads */
	assert_true(cmdstream_running(s));
	assert_null(cmdstream_failure(s, (char[8]){ 0 }, 8));
	cmdstream_free(s);
}

static void
test_powermetrics_samples(void **state)
{
	struct cmdstream *s = start_sh("printf 'Machine model: Mac15,14\\n\\n*** Sampled one\\n"
	    "CPU Power: 1 mW\\n*** Sampled two\\nCPU Power: 2 mW\\n'; exec sleep 30",
	    "*** Sampled", 1);

	(void)state;
	wait_records(s, 1);
	assert_int_equal(cmdstream_records(s), 1);	/* the header is none, "two" not done */
	assert_string_equal(cmdstream_record(s), " one\nCPU Power: 1 mW\n");
	cmdstream_free(s);
}

static void
test_too_long_dropped(void **state)
{
	struct cmdstream *s = start_sh("head -c 70000 /dev/zero | tr '\\0' x; echo; echo ok; "
	    "exec sleep 30", "\n", 0);

	(void)state;
	wait_records(s, 1);
	for (int i = 0; i < 20; i++)
		cmdstream_wait(s, 20);
	assert_int_equal(cmdstream_records(s), 1);
	assert_string_equal(cmdstream_record(s), "ok");
	cmdstream_free(s);
}

static void
test_exit_and_stderr(void **state)
{
	struct cmdstream *s = start_sh("echo one; echo 'macmon: no SMC' >&2; exit 3", "\n", 0);
	char buf[128];

	(void)state;
	for (int i = 0; i < 200 && cmdstream_running(s); i++)
		cmdstream_wait(s, 50);
	assert_false(cmdstream_running(s));
	assert_string_equal(cmdstream_record(s), "one");
	assert_string_equal(cmdstream_failure(s, buf, sizeof(buf)), "exited 3: macmon: no SMC");
	cmdstream_free(s);
}

static void
test_not_on_path(void **state)
{
	char *argv[] = { "tbmesh-no-such-command", "pipe", NULL };
	char err[128];
	int notfound = 0;

	(void)state;
	assert_null(cmdstream_start(argv, "\n", 0, err, sizeof(err), &notfound));
	assert_int_equal(notfound, 1);
	assert_string_equal(err, "not found on PATH");
}

/* Its children too: a shell's sleep does not outlive the stream. */
static void
test_free_kills_the_group(void **state)
{
	struct cmdstream *s = start_sh("sleep 30 & echo $!; wait", "\n", 0);
	long pid;
	int gone = 0;

	(void)state;
	wait_records(s, 1);
	assert_non_null(cmdstream_record(s));
	pid = strtol(cmdstream_record(s), NULL, 10);
	assert_true(pid > 1);
	assert_int_equal(kill((pid_t)pid, 0), 0);
	cmdstream_free(s);
	for (int i = 0; i < 100 && !gone; i++) {
		gone = kill((pid_t)pid, 0) == -1 && errno == ESRCH;
		if (!gone)
			poll(NULL, 0, 20);
	}
	assert_true(gone);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_powermetrics_samples),
		cmocka_unit_test(test_too_long_dropped),
		cmocka_unit_test(test_exit_and_stderr),
		cmocka_unit_test(test_not_on_path),
		cmocka_unit_test(test_free_kills_the_group),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
