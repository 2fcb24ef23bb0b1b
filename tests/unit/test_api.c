/*
 * api: the names of node states and token roles both ways, and the rule for
 * names of nodes, clusters and the like.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "api.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A name of n 'm's, in a static buffer (one at a time). */
static const char *
long_name(size_t n)
{
	static char buf[80];

	assert_true(n < sizeof(buf));
	memset(buf, 'm', n);
	buf[n] = '\0';
	return buf;
}

static void
test_state_strings(void **state)
{
	enum node_state s, got;

	(void)state;
	for (s = NODE_PENDING; s < NODE_STATE_COUNT; s++) {
		assert_int_equal(api_node_state_parse(api_node_state_str(s),
		    &got), 0);
		assert_int_equal(got, s);
	}
	assert_string_equal(api_node_state_str(NODE_UNREACHABLE), "unreachable");
	assert_string_equal(api_node_state_str(NODE_STATE_COUNT), "unknown");
	assert_string_equal(api_node_state_str((enum node_state)-1), "unknown");
	assert_int_equal(api_node_state_parse("unknown", &got), -1);
	assert_int_equal(api_node_state_parse("Ready", &got), -1);
	assert_int_equal(api_node_state_parse("", &got), -1);
	assert_int_equal(api_node_state_parse(NULL, &got), -1);
}

static void
test_role_strings(void **state)
{
	static const char *const names[] = { "admin", "viewer", "bootstrap",
	    "node" };
	enum token_role r, got;

	(void)state;
	for (r = ROLE_ADMIN; r < ROLE_COUNT; r++) {
		assert_string_equal(api_role_str(r), names[r]);
		assert_int_equal(api_role_parse(names[r], &got), 0);
		assert_int_equal(got, r);
	}
	assert_string_equal(api_role_str(ROLE_COUNT), "unknown");
	assert_int_equal(api_role_parse("root", &got), -1);
	assert_int_equal(api_role_parse("admin ", &got), -1);
	assert_int_equal(api_role_parse(NULL, &got), -1);
}

static void
test_name_valid(void **state)
{
	static const char *const good[] = { "a", "mac1", "Mac_Studio.2",
	    "0lab", "a-b.c_d", "x." };
	static const char *const bad[] = { "", ".hidden", "-x", "a b", "a/b",
	    "x:y", "caf\xc3\xa9", "tab\t", "a\n" };
	size_t i;

	(void)state;
	for (i = 0; i < NELEM(good); i++)
		assert_true(api_name_valid(good[i]));
	for (i = 0; i < NELEM(bad); i++)
		assert_false(api_name_valid(bad[i]));
	assert_false(api_name_valid(NULL));
	assert_true(api_name_valid(long_name(63)));
	assert_false(api_name_valid(long_name(64)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_strings),
		cmocka_unit_test(test_role_strings),
		cmocka_unit_test(test_name_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
