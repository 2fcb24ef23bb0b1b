/* proto/json_enc.c: the null conventions and the number format of tbmesh JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_enc.h"
#include "report.h"

/* item printed unformatted, then deleted. */
static char *
text(cJSON *item)
{
	assert_non_null(item);
	char *s = cJSON_PrintUnformatted(item);
	cJSON_Delete(item);
	assert_non_null(s);
	return s;
}

static void
expect(cJSON *item, const char *want)
{
	char *s = text(item);
	assert_string_equal(s, want);
	free(s);
}

static void
test_nulls(void **state)
{
	(void)state;
	char unterminated[4] = { 'a', 'b', 'c', 'd' };

	expect(json_enc_str(NULL, 8), "null");
	expect(json_enc_str("", 8), "null");
	expect(json_enc_str("en2", 8), "\"en2\"");
	/* never read past the buffer; give what a decoder takes back */
	expect(json_enc_str(unterminated, sizeof(unterminated)), "\"abc\"");
	expect(json_enc_i64(REPORT_NULL_I64), "null");
	expect(json_enc_i64(0), "0");
	expect(json_enc_i64(549755813888), "549755813888");
	expect(json_enc_double(NAN), "null");
	expect(json_enc_double(INFINITY), "null");
	expect(json_enc_double(-INFINITY), "null");
	expect(json_enc_double(80), "80");
}

static void
test_doubles(void **state)
{
	(void)state;
	char b[32];

	/* the shortest that reads back: 15 digits when they do, up to 17 */
	json_fmt_double(b, sizeof(b), 0.1);
	assert_string_equal(b, "0.1");
	json_fmt_double(b, sizeof(b), 0.1 + 0.2);
	assert_string_equal(b, "0.30000000000000004");
	assert_true(strtod(b, NULL) == 0.1 + 0.2);
	json_fmt_double(b, sizeof(b), 0.5);
	assert_string_equal(b, "0.5");
	json_fmt_double(b, sizeof(b), 1.0 / 3);
	assert_true(strtod(b, NULL) == 1.0 / 3);
	json_fmt_double(b, sizeof(b), 5.876533);
	assert_string_equal(b, "5.876533");
	/* a '.' whatever the locale */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL) {
		json_fmt_double(b, sizeof(b), 2.5);
		assert_string_equal(b, "2.5");
		setlocale(LC_NUMERIC, "C");
	}
}

static void
test_double17_and_string(void **state)
{
	(void)state;
	char b[64];
	double t = 1795348298.6301229;

	/* 17 digits, always: the same double back */
	size_t n = json_fmt_double17(b, sizeof(b), t);
	assert_int_equal(n, strlen(b));
	assert_true(strtod(b, NULL) == t);
	json_fmt_double17(b, sizeof(b), 0.1);
	assert_string_equal(b, "0.10000000000000001");
	assert_true(strtod(b, NULL) == 0.1);
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL) {
		json_fmt_double17(b, sizeof(b), 2.5);
		assert_string_equal(b, "2.5");
		setlocale(LC_NUMERIC, "C");
	}
	/* quotes, backslashes and control characters escaped; the rest as is */
	n = json_fmt_string(b, "2:80,3:40");
	assert_int_equal(n, 11);
	assert_string_equal(b, "\"2:80,3:40\"");
	json_fmt_string(b, "a\"b\\c\x01\n\xc3\xa9");
	assert_string_equal(b, "\"a\\\"b\\\\c\\u0001\\u000a\xc3\xa9\"");
	cJSON *j = cJSON_Parse(b);
	assert_non_null(j);
	assert_string_equal(j->valuestring, "a\"b\\c\x01\n\xc3\xa9");
	cJSON_Delete(j);
	json_fmt_string(b, "");
	assert_string_equal(b, "\"\"");
}

static void
test_attach(void **state)
{
	(void)state;
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();

	assert_int_equal(json_enc_attach(o, "speed_gbps", json_enc_double(80)), 0);
	assert_int_equal(json_enc_attach(a, NULL, json_enc_i64(1)), 0);
	assert_int_equal(json_enc_attach(o, "ids", a), 0);
	assert_int_equal(json_enc_attach(o, "lost", NULL), -1);   /* out of memory */
	expect(o, "{\"speed_gbps\":80,\"ids\":[1]}");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_double17_and_string),
		cmocka_unit_test(test_attach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
