/*
 * ps_line.c: the lines of `ps -o pid=,stat=,time=,rss= -p LIST` as macOS
 * and Linux print them.
 *
 * macOS: Apple's ps(1) (adv_cmds; the Xcode man page,
 * https://keith.github.io/xcode-man-pages/ps.1.html): "time  accumulated
 * CPU time, user + system (alias cputime)", "rss  the real memory
 * (resident set) size of the process (in 1024 byte units)", state letters
 * I R S T U Z then flags (+ < > A E L N S s V W X); its TIME column is
 * minutes, seconds and hundredths, the minutes unbounded: "0:00.59" as in
 * a terminal's "23137 ttys000 0:00.59 -zsh" (ps's default columns on
 * macOS), "123:45.67" after two hours of CPU.
 * Linux: procps-ng ps(1): "cputime  cumulative CPU time, "[DD-]hh:mm:ss"
 * format", "rss  resident set size ... (in kilobytes)"; and the real ps
 * of this host, run at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ps_line.h"

static double
secs(const char *s)
{
	double t = -1;

	return ps_cpu_time(s, strlen(s), &t) == 0 ? t : -1;
}

/* macOS: M:SS.hh */
static void
test_macos_time(void **state)
{
	(void)state;
	assert_true(secs("0:00.59") > 0.589 && secs("0:00.59") < 0.591);
	assert_true(secs("0:01.23") > 1.229 && secs("0:01.23") < 1.231);
	assert_true(secs("1:02.50") > 62.49 && secs("1:02.50") < 62.51);
	/* minutes go on past 59: 123 min 45.67 s */
	assert_true(secs("123:45.67") > 7425.66 && secs("123:45.67") < 7425.68);
	assert_true(secs("0:00.00") == 0);
}

/* Linux: [[DD-]hh:]mm:ss */
static void
test_linux_time(void **state)
{
	(void)state;
	assert_true(secs("00:00:00") == 0);
	assert_true(secs("00:01:02") == 62);
	assert_true(secs("01:02:03") == 3723);
	assert_true(secs("1-02:03:04") == 86400 + 2 * 3600 + 3 * 60 + 4);
	assert_true(secs("12-00:00:01") == 12 * 86400 + 1);
	assert_true(secs("01:02") == 62);      /* mm:ss */
}

static void
test_bad_time(void **state)
{
	(void)state;
	const char *bad[] = { "", "1", "x:01", "1:60", "1:02:60", "1:2:3:4", "1-02:03",
		"-1:00", "1:00.", "1:00.5x", "1::00", "0:01.23 ", "1e3:00",
		"99999999999999999:00" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double t;
		if (ps_cpu_time(bad[i], strlen(bad[i]), &t) == 0)
			fail_msg("\"%s\" read as %g", bad[i], t);
	}
}

/* A whole output, macOS's and Linux's lines mixed: the pid's line, found. */
static void
test_lines(void **state)
{
	const char *out = "  412 S      0:01.23  20480\n"
	    " 4130 R+   123:45.67 1048576\n"
	    "  414 U      0:00.01     16\n"
	    "  415 Z      0:00.00      0\n"
	    "  416 Ss   1-02:03:04   2048\n"
	    "  PID STAT TIME RSS\n"
	    "garbage\n";
	struct ps_proc p;

	(void)state;
	assert_int_equal(ps_line_find(out, 412, &p), 1);
	assert_string_equal(p.stat, "S");
	assert_true(p.cpu_seconds > 1.22 && p.cpu_seconds < 1.24);
	assert_true(p.rss_bytes == INT64_C(20480) * 1024);
	assert_false(ps_stat_runnable(p.stat));
	assert_int_equal(ps_line_find(out, 4130, &p), 1);
	assert_string_equal(p.stat, "R+");
	assert_true(ps_stat_runnable(p.stat));
	assert_true(p.rss_bytes == INT64_C(1) << 30);
	assert_int_equal(ps_line_find(out, 414, &p), 1);
	assert_string_equal(p.stat, "U");     /* macOS: uninterruptible wait */
	assert_false(ps_stat_zombie(p.stat));
	assert_int_equal(ps_line_find(out, 415, &p), 1);
	assert_true(ps_stat_zombie(p.stat));
	assert_int_equal(ps_line_find(out, 416, &p), 1);
	assert_true(p.cpu_seconds == 86400 + 7384);
	assert_int_equal(ps_line_find(out, 41, &p), 0);     /* a prefix of 412 */
	assert_int_equal(ps_line_find(out, 4, &p), 0);
	assert_int_equal(ps_line_find("", 412, &p), 0);
}

static void
test_bad_lines(void **state)
{
	const char *bad[] = { "", "412", "412 S 0:01.23", "412 S 0:01.23 20 x", "0 S 0:01.23 1",
		"-4 S 0:01.23 1", "412 1 0:01.23 1", "412 SSSSSSSS 0:01.23 1", "412 S 0:01.23 -1",
		"412 S 0:0x.23 1", "4x2 S 0:01.23 1" };
	struct ps_proc p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ps_line_parse(bad[i], strlen(bad[i]), &p) == 0)
			fail_msg("\"%s\" read as a line", bad[i]);
	assert_int_equal(ps_line_parse(" 1 S 0:00.01 1 \r", 16, &p), 0);
}

/* This host's own ps about this process: found, sleeping or running, some RSS. */
static void
test_real_ps(void **state)
{
	char cmd[96], out[4096];
	size_t n;
	struct ps_proc p;
	FILE *f;

	(void)state;
	snprintf(cmd, sizeof(cmd), "timeout 10 ps -o pid=,stat=,time=,rss= -p %d", (int)getpid());
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	assert_int_equal(pclose(f), 0);
	assert_int_equal(ps_line_find(out, getpid(), &p), 1);
	assert_true(p.rss_bytes > 0);
	assert_true(p.cpu_seconds >= 0);
	assert_true(strchr("RS", p.stat[0]) != NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macos_time),
		cmocka_unit_test(test_linux_time),
		cmocka_unit_test(test_bad_time),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_real_ps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
