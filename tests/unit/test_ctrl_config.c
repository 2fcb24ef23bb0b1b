/*
 * ctrl_config: tbcontrollerd's defaults, a flag winning over the file
 * wherever it stands, the messages of a bad key or value, and the checks
 * of -n (what is filled in, what must go together, what must be readable).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl_config.h"
#include "file_fixture.h"
#include "log.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void
test_defaults(void **state)
{
	(void)state;
	struct ctrl_config c;
	char err[256];
	char *argv[] = { "tbcontrollerd", NULL };

	assert_int_equal(ctrl_config_load(&c, 1, argv, err, sizeof(err)), 0);
	assert_null(c.db);
	assert_true(c.unreachable_after == 30 && c.retention == 604800 && c.headroom_gib == 8);
	assert_true(c.ssh_timeout == 10 && c.ssh_command_timeout == 60);
	assert_true(c.install_timeout == 7200 && c.boot_timeout == 1800);
	assert_true(c.provision_report_wait == 120);
	assert_int_equal(c.http.max_connections, 16384);
	assert_int_equal(c.http.max_per_client, 64);
	assert_int_equal(c.log_level, LOG_LVL_INFO);
	assert_false(c.check_only || c.use_syslog);
	assert_int_equal(ctrl_config_check(&c, err, sizeof(err)), 0);
	assert_string_equal(c.db, CTRL_DEFAULT_DB);
	assert_string_equal(c.listen, CTRL_DEFAULT_LISTEN);
	assert_string_equal(c.admin_token_file, CTRL_DEFAULT_ADMIN_TOKEN_FILE);
	assert_string_equal(c.state_dir, "/var/lib/tbcontrollerd");   /* the db's directory */
	ctrl_config_free(&c);
}

static void
test_file_and_flags(void **state)
{
	(void)state;
	struct ctrl_config c;
	char err[256];
	char *path = fx_temp_file("# comment\ndb = /srv/inv.db\nretention = 120\n"
	    "headroom = 2.5\nlog-level = debug\nidle-timeout = 7\nssh-timeout = 9\n");
	/* a flag before -f wins as much as one after it */
	char *argv[] = { "tbcontrollerd", "--retention", "300", "-f", path, "-n",
		"--syslog", "--db", "inv.db", NULL };

	assert_int_equal(ctrl_config_load(&c, 9, argv, err, sizeof(err)), 0);
	assert_string_equal(c.db, "inv.db");
	assert_true(c.retention == 300);
	assert_true(c.headroom_gib == 2.5);
	assert_true(c.ssh_timeout == 9);
	assert_int_equal(c.log_level, LOG_LVL_DEBUG);
	assert_int_equal(c.http.idle_timeout, 7);
	assert_true(c.check_only && c.use_syslog);
	assert_int_equal(ctrl_config_check(&c, err, sizeof(err)), 0);
	assert_string_equal(c.state_dir, ".");           /* a db in the working directory */
	ctrl_config_free(&c);
	unlink(path);

	char *root[] = { "tbcontrollerd", "--db", "/inv.db", NULL };
	assert_int_equal(ctrl_config_load(&c, 3, root, err, sizeof(err)), 0);
	assert_int_equal(ctrl_config_check(&c, err, sizeof(err)), 0);
	assert_string_equal(c.state_dir, "/");
	ctrl_config_free(&c);
}

static void
test_bad_values(void **state)
{
	(void)state;
	static const struct {
		const char *opt, *value, *want;
	} bad[] = {
		{ "--unreachable-after", "0", "unreachable-after" },
		{ "--retention", "59", "retention" },
		{ "--ssh-timeout", "3601", "ssh-timeout" },
		{ "--headroom", "-1", "headroom: \"-1\" is not GiB in 0..65536" },
		{ "--headroom", "8x", "headroom: \"8x\" is not GiB" },
		{ "--log-level", "loud", "log-level: \"loud\" is not error, warning, info or debug" },
		{ "--max-connections", "0", "max-connections" },
		{ "--bogus", "1", "--bogus: unknown option" },
	};
	struct ctrl_config c;
	char err[256];

	for (size_t i = 0; i < NELEM(bad); i++) {
		char *argv[] = { "tbcontrollerd", (char *)bad[i].opt, (char *)bad[i].value, NULL };
		assert_int_equal(ctrl_config_load(&c, 3, argv, err, sizeof(err)), -1);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("%s %s: '%s' lacks '%s'", bad[i].opt, bad[i].value, err, bad[i].want);
		ctrl_config_free(&c);
	}
	char *extra[] = { "tbcontrollerd", "serve", NULL };
	assert_int_equal(ctrl_config_load(&c, 2, extra, err, sizeof(err)), -1);
	assert_string_equal(err, "serve: unexpected argument");
	ctrl_config_free(&c);
	char *novalue[] = { "tbcontrollerd", "--db", NULL };
	assert_int_equal(ctrl_config_load(&c, 2, novalue, err, sizeof(err)), -1);
	assert_string_equal(err, "--db: needs a value");
	ctrl_config_free(&c);

	char *path = fx_temp_file("listen = 127.0.0.1:9470\nwhat = 1\n");
	char *file[] = { "tbcontrollerd", "-f", path, NULL };
	assert_int_equal(ctrl_config_load(&c, 3, file, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2: unknown key \"what\""));
	ctrl_config_free(&c);
	unlink(path);
}

/* What the daemon could not use is refused by -n, not found out later. */
static void
test_check(void **state)
{
	(void)state;
	static const struct {
		const char *opt, *value, *want;
	} bad[] = {
		{ "--listen", "nonsense", "listen" },
		{ "--tls-cert", "/dev/null", "--tls-cert and --tls-key go together" },
		{ "--tls-key", "/dev/null", "--tls-cert and --tls-key go together" },
		{ "--ssh-key", "/nonexistent/key", "ssh-key: /nonexistent/key: No such file" },
		{ "--web-root", "/nonexistent", "web-root: /nonexistent: No such file" },
	};
	struct ctrl_config c;
	char err[256];

	for (size_t i = 0; i < NELEM(bad); i++) {
		char *argv[] = { "tbcontrollerd", (char *)bad[i].opt, (char *)bad[i].value, NULL };
		assert_int_equal(ctrl_config_load(&c, 3, argv, err, sizeof(err)), 0);
		assert_int_equal(ctrl_config_check(&c, err, sizeof(err)), -1);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("%s %s: '%s' lacks '%s'", bad[i].opt, bad[i].value, err, bad[i].want);
		ctrl_config_free(&c);
	}
	char *tls[] = { "tbcontrollerd", "--tls-cert", "/dev/null", "--tls-key", "/nonexistent",
		NULL };
	assert_int_equal(ctrl_config_load(&c, 5, tls, err, sizeof(err)), 0);
	assert_int_equal(ctrl_config_check(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent: No such file or directory");
	ctrl_config_free(&c);
}

static void
test_level_names(void **state)
{
	(void)state;
	assert_string_equal(log_level_name(LOG_LVL_ERR), "error");
	assert_string_equal(log_level_name(LOG_LVL_WARN), "warning");
	assert_string_equal(log_level_name(LOG_LVL_INFO), "info");
	assert_string_equal(log_level_name(LOG_LVL_DEBUG), "debug");
	assert_string_equal(log_level_name(-1), "?");
	assert_string_equal(log_level_name(LOG_LVL_DEBUG + 1), "?");
	assert_non_null(strstr(ctrl_config_usage, "--unreachable-after SECONDS"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_file_and_flags),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_level_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
