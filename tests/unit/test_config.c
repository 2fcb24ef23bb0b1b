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

static char *
write_file(const char *text)
{
	static char path[] = "/tmp/tbmesh-config-XXXXXX";
	strcpy(path, "/tmp/tbmesh-config-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void
test_file_and_flags(void **state)
{
	(void)state;
	struct agent_config c;
	char err[256];
	char *path = write_file("# comment\nbackend = sim\n  scenario = s.json  # trailing\nnode=mac1\ninterval = 2\n");
	char *argv[] = { "tbagentd", "-f", path, "--interval", "7", "--name", "x", NULL };

	assert_int_equal(config_load(&c, 7, argv, err, sizeof(err)), 0);
	assert_string_equal(c.backend, "sim");
	assert_string_equal(c.scenario, "s.json");
	assert_string_equal(c.node, "mac1");
	assert_string_equal(c.name, "x");
	assert_true(c.interval == 7.0);
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
		char *path = write_file(cases[i].text);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostport),
		cmocka_unit_test(test_file_and_flags),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_validate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
