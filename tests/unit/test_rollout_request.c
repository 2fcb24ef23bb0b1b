/*
 * A rollout request is refused, not guessed at: dry_run must be true or
 * false ("true" or 1 used to read as "not a dry run" and start a real
 * update), and a field a rollout does not have ("dryrun") is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rollout_api.h"

static struct ro_campaign *c;

static int
decode(const char *json, char *err, size_t n)
{
	return ro_json_decode_request(json, strlen(json), c, err, n);
}

static void
test_dry_run_is_a_boolean(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(decode("{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":true}", err,
	    sizeof(err)), 0);
	assert_int_equal(c->dry_run, 1);
	assert_int_equal(decode("{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":false}", err,
	    sizeof(err)), 0);
	assert_int_equal(c->dry_run, 0);
	assert_int_equal(decode("{\"cluster\":\"c\",\"target\":\"26.3\"}", err, sizeof(err)), 0);
	assert_int_equal(c->dry_run, 0);
	static const char *const bad[] = {
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":\"true\"}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":1}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":\"false\"}",
		"{\"cluster\":\"c\",\"target\":\"26.3\",\"dry_run\":[]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(decode(bad[i], err, sizeof(err)), -1);
		assert_string_equal(err, "dry_run: must be true or false");
	}
}

static void
test_unknown_fields(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(decode("{\"cluster\":\"c\",\"target\":\"26.3\",\"dryrun\":true}", err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "dryrun: not a field of a rollout"));
	assert_int_equal(decode("{\"cluster\":\"c\",\"target\":\"26.3\",\"mode\":\"rolling\","
	    "\"max_unavailable\":2,\"window\":\"22:00-05:00\",\"label\":\"macOS 26.3\","
	    "\"dry_run\":false}", err, sizeof(err)), 0);
	/* what tbctl sends is what the controller takes */
	c->dry_run = 1;
	char *json = ro_json_request(c);
	assert_non_null(json);
	assert_int_equal(decode(json, err, sizeof(err)), 0);
	assert_int_equal(c->dry_run, 1);
	free(json);
}

static int
setup(void **state)
{
	(void)state;
	c = calloc(1, sizeof(*c));
	return c ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	free(c);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dry_run_is_a_boolean),
		cmocka_unit_test(test_unknown_fields),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
