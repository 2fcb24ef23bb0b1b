/*
 * runcmd: output capture, exit codes, a missing command, a hung command
 * killed at its timeout (with its children), stdin input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>

#include "runcmd.h"

static void
test_captures_stdout(void **state)
{
	(void)state;
	char *argv[] = { "printf", "hello\\nworld\\n", NULL };
	struct runcmd_result r;

	assert_int_equal(runcmd(argv, NULL, 0, 5000, &r), 0);
	assert_int_equal(r.status, RUNCMD_OK);
	assert_int_equal(r.exit_code, 0);
	assert_string_equal(r.out, "hello\nworld\n");
	assert_int_equal(r.out_len, 12);
	assert_null(runcmd_failure(&r, 5000, (char[64]){0}, 64));
	runcmd_result_free(&r);
}

static void
test_nonzero_exit_keeps_stderr(void **state)
{
	(void)state;
	char *argv[] = { "sh", "-c", "echo broken >&2; exit 3", NULL };
	struct runcmd_result r;
	char buf[128];

	assert_int_equal(runcmd(argv, NULL, 0, 5000, &r), 0);
	assert_int_equal(r.status, RUNCMD_OK);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.err, "broken\n");
	assert_string_equal(runcmd_failure(&r, 5000, buf, sizeof(buf)), "exited 3: broken");
	runcmd_result_free(&r);
}

static void
test_missing_command(void **state)
{
	(void)state;
	char *argv[] = { "tbmesh-no-such-command", NULL };
	struct runcmd_result r;
	char buf[128];

	runcmd(argv, NULL, 0, 5000, &r);
	assert_int_equal(r.status, RUNCMD_NOTFOUND);
	assert_string_equal(runcmd_failure(&r, 5000, buf, sizeof(buf)), "not found on PATH");
	runcmd_result_free(&r);
}

static void
test_hung_command_is_killed(void **state)
{
	(void)state;
	/* The child forks a grandchild that holds stdout open: both must die. */
	char *argv[] = { "sh", "-c", "echo partial; sleep 30 & sleep 30", NULL };
	struct runcmd_result r;
	char buf[128];

	assert_int_equal(runcmd(argv, NULL, 0, 300, &r), 0);
	assert_int_equal(r.status, RUNCMD_TIMEOUT);
	assert_true(r.elapsed < 3.0);
	assert_true(r.elapsed >= 0.29);
	assert_string_equal(r.out, "partial\n");
	assert_string_equal(runcmd_failure(&r, 300, buf, sizeof(buf)), "timed out after 0.3 s");
	runcmd_result_free(&r);
}

static void
test_stdin_input(void **state)
{
	(void)state;
	char *argv[] = { "cat", NULL };
	struct runcmd_result r;

	assert_int_equal(runcmd(argv, "secret\n", 7, 5000, &r), 0);
	assert_int_equal(r.status, RUNCMD_OK);
	assert_string_equal(r.out, "secret\n");
	runcmd_result_free(&r);
}

static void
test_signal_death(void **state)
{
	(void)state;
	char *argv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct runcmd_result r;

	assert_int_equal(runcmd(argv, NULL, 0, 5000, &r), 0);
	assert_int_equal(r.status, RUNCMD_SIGNALED);
	assert_int_equal(r.term_signal, SIGSEGV);
	runcmd_result_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures_stdout),
		cmocka_unit_test(test_nonzero_exit_keeps_stderr),
		cmocka_unit_test(test_missing_command),
		cmocka_unit_test(test_hung_command_is_killed),
		cmocka_unit_test(test_stdin_input),
		cmocka_unit_test(test_signal_death),
	};
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
