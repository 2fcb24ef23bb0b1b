/*
 * rollout_probe: an install under way, as a Mac's process list and install
 * log show it (rollout_probe.h).
 *
 * Where the formats come from:
 * - ps: macOS ps(1), "ps [-AaCcEefhjlMmrSTvwXx] [-O fmt | -o fmt]", the
 *   keywords pid, etime ("[[dd-]hh:]mm:ss") and command (the arguments
 *   joined by spaces); https://www.unix.com/man-page/osx/1/ps/.
 * - install.log: "2023-11-07 19:44:39-05 testdevice softwareupdated[455]:
 *   -[SUOSUManagedServiceDaemon scheduleEnforcedManagedUpdateWithVersion:..."
 *   quoted from /var/log/install.log in
 *   https://www.sudoade.com/ddm-software-update-logs-2/ (date, time, zone as
 *   hours, host, process[pid]:, message).
 * - the install command is the one rollout_steps.c sends
 *   (softwareupdate --install LABEL --restart ...); softwareupdate(8) takes
 *   -i as --install.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "rollout_probe.h"

/* 2023-11-07 19:44:39 at UTC-5 */
#define T_DDM 1699404279.0

static void
test_ps_finds_the_install(void **state)
{
	(void)state;
	struct ro_install_seen s = { 0 };
	const char *ps =
	    "    1 12-03:14:15 /sbin/launchd\n"
	    "  455 12-03:13:59 /System/Library/PrivateFrameworks/SoftwareUpdate.framework/"
	    "Versions/A/Resources/softwareupdated\n"
	    " 8812       00:03 softwareupdate --list\n"
	    " 8901       01:12 grep --install softwareupdate\n"
	    " 9120    01:02:03 /usr/sbin/softwareupdate --install macOS Tahoe 26.3-25D125 "
	    "--restart --agree-to-license --no-scan --user admin --stdinpass\n";

	assert_int_equal(rollout_probe_ps(ps, &s), 0);
	assert_int_equal(s.pid, 9120);
	assert_string_equal(s.etime, "01:02:03");
}

static void
test_ps_other_spellings(void **state)
{
	(void)state;
	struct ro_install_seen s = { 0 };

	/* run by sudo, or by a shell interpreting a script of that name */
	assert_int_equal(rollout_probe_ps("  77 00:10 sudo softwareupdate -i -a -R\n", &s), 0);
	assert_int_equal(s.pid, 77);
	memset(&s, 0, sizeof(s));
	assert_int_equal(rollout_probe_ps("  78 00:11 /bin/sh /opt/x/softwareupdate --install L\n",
	    &s), 0);
	assert_int_equal(s.pid, 78);
	/* none: softwareupdated alone, a download, garbage, nothing */
	memset(&s, 0, sizeof(s));
	assert_int_equal(rollout_probe_ps("  455 3-01:00:00 /usr/libexec/softwareupdated\n"
	    "  12 00:01 softwareupdate --download L\n"
	    "pid etime command\n"
	    "  -3 00:01 softwareupdate --install L\n"
	    "  13\n", &s), -1);
	assert_int_equal(s.pid, 0);
	assert_int_equal(rollout_probe_ps("", &s), -1);
	assert_int_equal(rollout_probe_ps(NULL, &s), -1);
}

static void
test_log_time(void **state)
{
	(void)state;
	assert_true(rollout_probe_log_time("2023-11-07 19:44:39-05 testdevice x[1]: y") == T_DDM);
	assert_true(rollout_probe_log_time("2023-11-08 00:44:39+00 h x[1]: y") == T_DDM);
	assert_true(rollout_probe_log_time("2023-11-08 06:14:39+0530 h x[1]: y") == T_DDM);
	assert_true(rollout_probe_log_time("2023-11-08 06:14:39+05:30 h x[1]: y") == T_DDM);
	assert_true(rollout_probe_log_time("2023-11-07 19:44:39 h x[1]: y") < 0);
	assert_true(rollout_probe_log_time("Nov  7 19:44:39 h x[1]: y") < 0);
	assert_true(rollout_probe_log_time("2023-13-07 19:44:39-05 h x[1]: y") < 0);
	assert_true(rollout_probe_log_time("") < 0);
}

static void
test_log_lines_since(void **state)
{
	(void)state;
	struct ro_install_seen s = { 0 };
	char buf[300];
	const char *log =
	    "2023-11-07 19:40:00-05 testdevice softwareupdated[455]: before the install\n"
	    "2023-11-07 19:44:39-05 testdevice softwareupdated[455]: -[SUOSUManagedServiceDaemon "
	    "scheduleEnforcedManagedUpdateWithVersion:forDate:withOptions:completion:]_block_invoke: "
	    "Posted DDM notification with success: YES\n"
	    "2023-11-07 19:45:00-05 testdevice installd[512]: PackageKit: something else\n"
	    "2023-11-07 19:46:10-05 testdevice softwareupdate[9120]: Installing macOS Tahoe 26.3\n"
	    "\tcontinued on a line of its own\n"
	    "2023-11-07 19:47:00-05 testdevice softwareupdatedx[3]: not the updater\n";

	assert_int_equal(rollout_probe_log(log, T_DDM, &s), 2);
	assert_true(s.log_last == T_DDM + 91);
	assert_string_equal(s.log_text, "Installing macOS Tahoe 26.3");
	rollout_probe_str(&s, buf, sizeof(buf));
	assert_non_null(strstr(buf, "install.log has 2 lines"));
	assert_null(strstr(buf, "running"));

	memset(&s, 0, sizeof(s));
	assert_int_equal(rollout_probe_log(log, T_DDM + 3600, &s), 0);
	rollout_probe_str(&s, buf, sizeof(buf));
	assert_string_equal(buf, "no softwareupdate process or install.log line since");

	s.pid = 9120;
	snprintf(s.etime, sizeof(s.etime), "00:42");
	rollout_probe_str(&s, buf, sizeof(buf));
	assert_string_equal(buf, "softwareupdate --install is running (pid 9120, for 00:42)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ps_finds_the_install),
		cmocka_unit_test(test_ps_other_spellings),
		cmocka_unit_test(test_log_time),
		cmocka_unit_test(test_log_lines_since),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
