/* proto/json_dec.c: errors that name where a value sits, bounded parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "json_dec.h"

static void
test_fail_names_the_path(void **state)
{
	(void)state;
	char err[128];
	struct json_dec d;
	struct json_path top = { NULL, "thunderbolt", 0 };
	struct json_path ports = { &top, "ports", 0 };
	struct json_path elem = { &ports, NULL, 2 };
	struct json_path leaf = { &elem, "speed_gbps", 0 };

	json_dec_init(&d, err, sizeof(err));
	assert_string_equal(err, "");
	assert_int_equal(json_dec_fail(&d, &leaf, "must be a %s", "number"), -1);
	assert_string_equal(err, "thunderbolt.ports[2].speed_gbps: must be a number");
	assert_int_equal(json_dec_fail(&d, NULL, "empty input"), -1);
	assert_string_equal(err, "empty input");

	/* a short buffer is cut, still terminated; none at all is fine */
	char small[8];
	json_dec_init(&d, small, sizeof(small));
	assert_int_equal(json_dec_fail(&d, &leaf, "x"), -1);
	assert_string_equal(small, "thunder");
	json_dec_init(&d, NULL, 0);
	assert_int_equal(json_dec_fail(&d, &leaf, "x"), -1);
}

static void
test_num(void **state)
{
	(void)state;
	char b[32];

	assert_string_equal(json_dec_num(b, sizeof(b), 80), "80");
	assert_string_equal(json_dec_num(b, sizeof(b), -3), "-3");
	assert_string_equal(json_dec_num(b, sizeof(b), 0.5), "0.5");
	assert_string_equal(json_dec_num(b, sizeof(b), 1e300), "1e+300");
}

static void
test_parse(void **state)
{
	(void)state;
	char err[128];
	struct json_dec d;
	cJSON *root;
	const char *ok = "{\"a\":1}  \n", *arr = "[1]";

	json_dec_init(&d, err, sizeof(err));
	assert_int_equal(json_dec_parse(&d, ok, strlen(ok), 64, 1, &root), 0);
	assert_true(cJSON_IsObject(root));
	cJSON_Delete(root);

	assert_int_equal(json_dec_parse(&d, ok, 0, 64, 1, &root), -1);
	assert_string_equal(err, "empty input");
	assert_int_equal(json_dec_parse(&d, ok, strlen(ok), 4, 1, &root), -1);
	assert_string_equal(err, "input of 10 bytes is over the limit of 4");
	assert_int_equal(json_dec_parse(&d, "{\"a\":", 5, 64, 1, &root), -1);
	assert_non_null(strstr(err, "invalid JSON near byte"));
	cJSON_Delete(root);
	assert_int_equal(json_dec_parse(&d, "{} x", 4, 64, 1, &root), -1);
	assert_string_equal(err, "unexpected data after the JSON value at byte 2");
	cJSON_Delete(root);
	assert_int_equal(json_dec_parse(&d, arr, strlen(arr), 64, 1, &root), -1);
	assert_string_equal(err, "the top level must be a JSON object");
	cJSON_Delete(root);
	assert_int_equal(json_dec_parse(&d, arr, strlen(arr), 64, 0, &root), 0);
	assert_true(cJSON_IsArray(root));
	cJSON_Delete(root);
	/* no NUL needed: only len bytes are read */
	assert_int_equal(json_dec_parse(&d, "{}garbage", 2, 64, 1, &root), 0);
	cJSON_Delete(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_names_the_path),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
