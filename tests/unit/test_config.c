/*
 * config: HOST:PORT parsing, the file format, flags over the file, and
 * validation messages.
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

#include "conf.h"
#include "config.h"
#include "file_fixture.h"

static void
test_hostport(void **state)
{
	(void)state;
	char host[64], err[256];
	int port;

	assert_int_equal(conf_split_hostport("127.0.0.1:9469", host, sizeof(host), &port, err, sizeof(err)), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 9469);
	assert_int_equal(conf_split_hostport("[::1]:0", host, sizeof(host), &port, err, sizeof(err)), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 0);
	const char *bad[] = { "nonsense", ":80", "h:", "h:70000", "h:-1", "::1:80", "[::1]80", "h:8x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(conf_split_hostport(bad[i], host, sizeof(host), &port, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "listen"));
	}
}

static void
test_file_and_flags(void **state)
{
	(void)state;
	struct agent_config c;
	char err[256];
	char *path = fx_temp_file("# comment\nbackend = sim\n  scenario = s.json  # trailing\nnode=mac1\ninterval = 2\n");
	char *argv[] = { "tbagentd", "-f", path, "--interval", "7", "--name", "x", NULL };

	assert_int_equal(config_load(&c, 7, argv, err, sizeof(err)), 0);
	assert_string_equal(c.backend, "sim");
	assert_string_equal(c.scenario, "s.json");
	assert_string_equal(c.node, "mac1");
	assert_string_equal(c.name, "x");
	assert_true(c.interval == 7.0);
	/* the scenario file must be there to read */
	assert_int_equal(config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "scenario: s.json: No such file or directory");
	free(c.scenario);
	c.scenario = strdup(path);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	config_free(&c);
	unlink(path);
}

static void
test_file_errors(void **state)
{
	(void)state;
	struct agent_config c;
	char err[256];
	const struct {
		const char *text, *want;
	} cases[] = {
		{ "bogus = 1\n", ":1: unknown key \"bogus\"" },
		{ "backend = sim\ninterval 5\n", ":2: expected \"key = value\"" },
		{ "interval = 0\n", "interval: \"0\" is not a number of seconds" },
		{ "log-level = loud\n", "log-level" },
		{ "log = file\n", "log: \"file\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = fx_temp_file(cases[i].text);
		char *argv[] = { "tbagentd", "-f", path, NULL };
		assert_int_equal(config_load(&c, 3, argv, err, sizeof(err)), -1);
		if (strstr(err, cases[i].want) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
		config_free(&c);
		unlink(path);
	}
}

static void
test_validate(void **state)
{
	(void)state;
	struct agent_config c;
	char err[256];
	char *a1[] = { "tbagentd", "--backend", "sim", NULL };
	char *a2[] = { "tbagentd", "--controller", "ftp://x", NULL };
	char *a3[] = { "tbagentd", "--backend", "beos", NULL };

	assert_int_equal(config_load(&c, 3, a1, err, sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--scenario"));
	config_free(&c);
	assert_int_equal(config_load(&c, 3, a2, err, sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "controller"));
	config_free(&c);
	assert_int_equal(config_load(&c, 3, a3, err, sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"beos\""));
	config_free(&c);
}

/* What the daemon could not use is refused by -n, not found out later. */
static void
test_validate_paths_and_name(void **state)
{
	(void)state;
	static const struct {
		const char *opt, *value, *err;
	} bad[] = {
		{ "--ca-file", "/nonexistent/ca.pem", "ca-file: /nonexistent/ca.pem: No such file "
		    "or directory" },
		{ "--ca-file", "/tmp", "ca-file: /tmp: is a directory" },
		{ "--scenario", "/nonexistent.json", "scenario: /nonexistent.json: No such file or "
		    "directory" },
		{ "--root", "/nonexistent", "root: /nonexistent: No such file or directory" },
		{ "--root", "/dev/null", "root: /dev/null: not a directory" },
		{ "--name", "my mac", "name: \"my mac\" is not a node name the controller takes (1 "
		    "to 63 letters, digits, '.', '_' or '-', not starting with '.' or '-')" },
		{ "--name", "", "name: \"\" is not a node name" },
		{ "--name", "-x", "name: \"-x\" is not a node name" },
	};
	struct agent_config c;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "tbagentd", (char *)bad[i].opt, (char *)bad[i].value, NULL };

		assert_int_equal(config_load(&c, 3, argv, err, sizeof(err)), 0);
		assert_int_equal(config_validate(&c, err, sizeof(err)), -1);
		assert_memory_equal(err, bad[i].err, strlen(bad[i].err));
		config_free(&c);
	}
	char *good[] = { "tbagentd", "--root", "/", "--ca-file", "/dev/null", "--name", "mac-1.lab",
		NULL };
	assert_int_equal(config_load(&c, 7, good, err, sizeof(err)), 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	config_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostport),
		cmocka_unit_test(test_file_and_flags),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_validate_paths_and_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
