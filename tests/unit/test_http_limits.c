/*
 * http_limits: the options that set the HTTP servers' connection limits
 * (the same keys for tbcontrollerd and tbagentd, flags and files), and
 * fitting them to the open-files limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "config.h"
#include "http_limits.h"
#include "httpd.h"
#include "log.h"

static void
test_set(void **state)
{
	(void)state;
	struct http_limits lim = { 0 };
	char err[256];

	assert_int_equal(http_limits_set(&lim, "max-connections", "16384", err, sizeof(err)), 0);
	assert_int_equal(http_limits_set(&lim, "max-connections-per-client", "0", err,
	    sizeof(err)), 0);
	assert_int_equal(http_limits_set(&lim, "request-deadline", "2.5", err, sizeof(err)), 0);
	assert_int_equal(http_limits_set(&lim, "idle-timeout", "30", err, sizeof(err)), 0);
	assert_int_equal(lim.max_connections, 16384);
	assert_int_equal(lim.max_per_client, 0);
	assert_true(lim.request_deadline == 2.5);
	assert_int_equal(lim.idle_timeout, 30);
	assert_int_equal(http_limits_set(&lim, "interval", "5", err, sizeof(err)), 1);
}

static void
test_set_refused(void **state)
{
	(void)state;
	struct http_limits lim = { 7, 7, 7, 7 };
	char err[256];
	const struct {
		const char *key, *v;
	} bad[] = {
		{ "max-connections", "0" }, { "max-connections", "-1" },
		{ "max-connections", "12x" }, { "max-connections", "" },
		{ "max-connections", "99999999999" }, { "max-connections-per-client", "-3" },
		{ "request-deadline", "0" }, { "request-deadline", "nan" },
		{ "request-deadline", "7200" }, { "idle-timeout", "0" }, { "idle-timeout", "1.5" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(http_limits_set(&lim, bad[i].key, bad[i].v, err, sizeof(err)),
		    -1);
		if (strncmp(err, bad[i].key, strlen(bad[i].key)) != 0 ||
		    strstr(err, bad[i].v) == NULL)
			fail_msg("%s = %s: \"%s\" names neither", bad[i].key, bad[i].v, err);
	}
	assert_int_equal(lim.max_connections, 7);
	assert_int_equal(lim.max_per_client, 7);
	assert_true(lim.request_deadline == 7);
	assert_int_equal(lim.idle_timeout, 7);
}

static void
test_room(void **state)
{
	(void)state;
	assert_int_equal(http_limits_room(20000, 256), 19744);
	assert_int_equal(http_limits_room(16640, 256), 16384);
	assert_int_equal(http_limits_room(256, 256), 128);   /* less than twice the reserve */
	assert_int_equal(http_limits_room(1, 256), 1);
	assert_int_equal(http_limits_room(0, 256), 1);
}

/* The agent's flags and file set them with the same keys. */
static void
test_agent_options(void **state)
{
	(void)state;
	struct agent_config c;
	char err[256];
	char *argv[] = { "tbagentd", "--max-connections", "32", "--max-connections-per-client",
		"4", "--request-deadline", "3", "--idle-timeout", "20", NULL };
	char *dflt[] = { "tbagentd", NULL };

	assert_int_equal(config_load(&c, 1, dflt, err, sizeof(err)), 0);
	assert_int_equal(c.http.max_connections, HTTPD_DEFAULT_MAX_CONNECTIONS);
	assert_int_equal(c.http.max_per_client, HTTPD_DEFAULT_MAX_PER_CLIENT);
	assert_true(c.http.request_deadline == HTTPD_DEFAULT_REQUEST_DEADLINE);
	assert_int_equal(c.http.idle_timeout, HTTPD_DEFAULT_IDLE_TIMEOUT);
	config_free(&c);
	assert_int_equal(config_load(&c, 9, argv, err, sizeof(err)), 0);
	assert_int_equal(c.http.max_connections, 32);
	assert_int_equal(c.http.max_per_client, 4);
	assert_true(c.http.request_deadline == 3);
	assert_int_equal(c.http.idle_timeout, 20);
	config_free(&c);
}

/*
 * Within the hard open-files limit, the soft one is raised; past it, the
 * connections are lowered to what fits.  Last: it lowers this process's
 * hard limit for good.
 */
static void
test_fit(void **state)
{
	(void)state;
	struct rlimit rl;
	struct http_limits lim = { 100, 64, 15, 30 };

	log_init("test_http_limits", 0, LOG_LVL_ERR);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 400)
		skip();
	rl.rlim_cur = 200;
	rl.rlim_max = 400;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	http_limits_fit(&lim, 64, "test");
	assert_int_equal(lim.max_connections, 100);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(rl.rlim_cur, 200);   /* enough already: left alone */
	lim.max_connections = 1000;
	http_limits_fit(&lim, 64, "test");
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(rl.rlim_cur, 400);
	assert_int_equal(lim.max_connections, 400 - 64);
	assert_int_equal(lim.max_per_client, 64);
	lim.max_connections = 1000;
	lim.max_per_client = 1000;
	http_limits_fit(&lim, 64, "test");
	assert_int_equal(lim.max_per_client, lim.max_connections);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_set_refused),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_agent_options),
		cmocka_unit_test(test_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
