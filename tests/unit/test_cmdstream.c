/*
 * agent/cmdstream.c, the reader of a command that runs on, against real
 * children (sh): records split at their separator whatever the reads cut,
 * a header skipped, a record at the cap kept and one past it dropped
 * (whatever the separator's length), an empty separator refused, an exit
 * and its stderr, a command not on PATH, and the whole process group
 * killed when the child exits and at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/*
 * A pipe whose write end the next child, and so its own children, inherit:
 * its read end sees EOF once every process holding it is gone (a zombie
 * holds no file: kill(pid, 0) would still find it).  The caller closes
 * fds[1] once the child is started.
 */
static void
death_pipe(int fds[2])
{
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[0], F_SETFD, FD_CLOEXEC), 0);
}

/* 1 when EOF comes on fd within ms milliseconds. */
static int
all_gone(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	for (int waited = 0; waited <= ms; waited += 20) {
		if (poll(&p, 1, 20) > 0 && read(fd, &c, 1) == 0)
			return 1;
	}
	return 0;
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

/* The cap counts the record, not its separator: "*** Sampled" is 11 bytes. */
static void
test_record_at_the_cap_kept(void **state)
{
	char script[512];
	struct cmdstream *s;

	(void)state;
	snprintf(script, sizeof(script), "printf 'header*** Sampled'; "
	    "head -c %u /dev/zero | tr '\\0' x; printf '*** Sampled'; "
	    "head -c %u /dev/zero | tr '\\0' y; printf '*** Sampledok*** Sampled'; "
	    "exec sleep 30", CMDSTREAM_RECORD_MAX, CMDSTREAM_RECORD_MAX + 1);
	s = start_sh(script, "*** Sampled", 1);
	wait_records(s, 1);
	assert_int_equal(cmdstream_records(s), 1);
	assert_int_equal(strlen(cmdstream_record(s)), CMDSTREAM_RECORD_MAX);
	assert_true(cmdstream_record(s)[0] == 'x');
	wait_records(s, 2);
	assert_int_equal(cmdstream_records(s), 2);	/* the y's, one past the cap, dropped */
	assert_string_equal(cmdstream_record(s), "ok");
	cmdstream_free(s);
}

static void
test_empty_separator_refused(void **state)
{
	char *argv[] = { "sh", "-c", "echo x", NULL };
	char err[128] = "";
	int notfound = 1;

	(void)state;
	assert_null(cmdstream_start(argv, "", 0, err, sizeof(err), &notfound));
	assert_int_equal(notfound, 0);
	assert_string_equal(err, "empty record separator");
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
	struct cmdstream *s;
	int fds[2];

	(void)state;
	death_pipe(fds);
	s = start_sh("sleep 30 & echo started; wait", "\n", 0);
	close(fds[1]);
	wait_records(s, 1);
	assert_string_equal(cmdstream_record(s), "started");
	assert_false(all_gone(fds[0], 0));
	cmdstream_free(s);
	assert_true(all_gone(fds[0], 5000));
	close(fds[0]);
}

/* A child that exits leaves no process of its group behind either. */
static void
test_exit_kills_the_group(void **state)
{
	struct cmdstream *s;
	char buf[64];
	int fds[2];

	(void)state;
	death_pipe(fds);
	s = start_sh("sleep 30 & echo started; exit 0", "\n", 0);
	close(fds[1]);
	for (int i = 0; i < 200 && cmdstream_running(s); i++)
		cmdstream_wait(s, 50);
	assert_false(cmdstream_running(s));
	assert_string_equal(cmdstream_failure(s, buf, sizeof(buf)), "exited 0");
	assert_true(all_gone(fds[0], 5000));	/* the sleep, killed with the group */
	cmdstream_free(s);
	close(fds[0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_powermetrics_samples),
		cmocka_unit_test(test_too_long_dropped),
		cmocka_unit_test(test_record_at_the_cap_kept),
		cmocka_unit_test(test_empty_separator_refused),
		cmocka_unit_test(test_exit_and_stderr),
		cmocka_unit_test(test_not_on_path),
		cmocka_unit_test(test_free_kills_the_group),
		cmocka_unit_test(test_exit_kills_the_group),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
