/*
 * proto/json_dec.c: errors that name where a value sits, bounded and strict
 * parsing (RFC 8259: UTF-8 text, no raw control character in a string;
 * what JSON allows and the API refuses: a byte order mark, a NUL, \u0000,
 * a lone surrogate, a key given twice), strings copied whole, the known-keys
 * rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
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
test_str(void **state)
{
	(void)state;
	struct json_path p = { NULL, "name", 0 };
	struct json_dec d;
	char err[128], buf[4];
	cJSON *s = cJSON_CreateString("abc"), *e = cJSON_CreateString(""),
	    *l = cJSON_CreateString("abcd");

	json_dec_init(&d, err, sizeof(err));
	assert_int_equal(json_dec_str(&d, s, &p, buf, sizeof(buf), 0), 0);
	assert_string_equal(buf, "abc");
	assert_int_equal(json_dec_str(&d, l, &p, buf, sizeof(buf), 1), -1);
	assert_string_equal(err, "name: longer than 3 bytes");
	assert_string_equal(buf, "abc");
	assert_int_equal(json_dec_str(&d, e, &p, buf, sizeof(buf), 0), -1);
	assert_string_equal(err, "name: empty string (an unknown value is null)");
	assert_int_equal(json_dec_str(&d, e, &p, buf, sizeof(buf), 1), 0);
	assert_string_equal(buf, "");
	cJSON_Delete(s);
	cJSON_Delete(e);
	cJSON_Delete(l);
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

/* s[n] refused, with why containing want. */
static void
refused(const char *s, size_t n, const char *want)
{
	char err[160];
	struct json_dec d;
	cJSON *root = NULL;

	json_dec_init(&d, err, sizeof(err));
	if (json_dec_parse(&d, s, n, 4096, 0, &root) != -1)
		fail_msg("accepted: %.*s", (int)n, s);
	cJSON_Delete(root);
	if (strstr(err, want) == NULL)
		fail_msg("%.*s: got \"%s\", want \"%s\"", (int)n, s, err, want);
}

static void
accepted(const char *s)
{
	char err[160];
	struct json_dec d;
	cJSON *root = NULL;

	json_dec_init(&d, err, sizeof(err));
	if (json_dec_parse(&d, s, strlen(s), 4096, 0, &root) != 0)
		fail_msg("refused: %s: %s", s, err);
	cJSON_Delete(root);
}

#define REFUSED(lit, want) refused(lit, sizeof(lit) - 1, want)

static void
test_strict_bytes(void **state)
{
	(void)state;
	REFUSED("\xEF\xBB\xBF{\"a\":1}", "byte order mark");
	REFUSED("\0{\"a\":1}", "a NUL byte at byte 0");
	REFUSED("{\"a\":1}\0", "a NUL byte at byte 7");
	REFUSED("{\"a\":\"x\0y\"}", "a NUL byte at byte 7");
	REFUSED("{\"a\":\"x\xff\xfe\"}", "invalid UTF-8 at byte 7");
	REFUSED("{\"a\":\"\xC0\x80\"}", "invalid UTF-8");          /* overlong NUL */
	REFUSED("{\"a\":\"\xE0\x80\xAF\"}", "invalid UTF-8");      /* overlong '/' */
	REFUSED("{\"a\":\"\xED\xA0\x80\"}", "invalid UTF-8");      /* U+D800 */
	REFUSED("{\"a\":\"\xF4\x90\x80\x80\"}", "invalid UTF-8"); /* past U+10FFFF */
	REFUSED("{\"a\":\"\xE2\x82\"}", "invalid UTF-8");           /* cut short */
	REFUSED("{\"a\":\"x\ty\"}", "raw control character in a string at byte 7");
	REFUSED("{\"a\":\"x\\u0000y\"}", "\\u0000 in a string");
	REFUSED("{\"a\":\"\\uD800\"}", "lone surrogate \\uD800");
	REFUSED("{\"a\":\"\\uDC00x\"}", "lone surrogate \\uDC00");
	REFUSED("{\"a\":\"\\uD800\\u0041\"}", "lone surrogate");
	REFUSED("{\"a\":1} x", "unexpected data after the JSON value");
	/* words of eight plain bytes, then the offence: the fast path hands over */
	REFUSED("{\"aaaaaaaaaaaaaaaa\":\"bbbbbbbbbbbbbbbb\x01\"}", "raw control character");
	accepted("{\"a\":\"\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E\"}");
	accepted("{\"a\":\"\\u00e9 \\uD834\\uDD1E \\\" \\\\ \\n\"}");
	accepted("{\n\t\"a\" :\r\n [1, 2]\n}\n");
	accepted("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":\"bbbbbbbbbbbbbbbbbbbbbbbbbb\"}");
}

static void
test_duplicate_keys(void **state)
{
	(void)state;
	REFUSED("{\"role\":\"viewer\",\"role\":\"admin\"}", "the key \"role\" is given twice");
	REFUSED("{\"a\":{\"b\":1,\"c\":2,\"b\":3}}", "a: the key \"b\" is given twice");
	REFUSED("{\"a\":[{\"x\":1},{\"y\":1,\"y\":2}]}", "a[1]: the key \"y\" is given twice");
	accepted("{\"a\":{\"b\":1},\"b\":{\"a\":1},\"c\":[{\"a\":1},{\"a\":2}]}");

	/* an object of more keys than the pairwise check takes: sorted */
	char big[2048];
	size_t n = 0;
	n += (size_t)snprintf(big + n, sizeof(big) - n, "{");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s\"k%d\":%d", i ? "," : "", i, i);
	accepted(strcat(big, "}"));
	big[n] = '\0';
	strcat(big, ",\"k17\":0}");
	refused(big, strlen(big), "the key \"k17\" is given twice");
}

static void
test_known_keys(void **state)
{
	(void)state;
	static const char *const keys[] = { "cluster", "dry_run", NULL };
	char err[160];
	struct json_dec d;
	cJSON *o = cJSON_Parse("{\"cluster\":\"c\",\"dryrun\":true}");

	json_dec_init(&d, err, sizeof(err));
	assert_int_equal(json_dec_known_keys(&d, o, NULL, "a rollout", keys), -1);
	assert_string_equal(err, "dryrun: not a field of a rollout (cluster, dry_run)");
	cJSON_Delete(o);
	o = cJSON_Parse("{\"cluster\":\"c\",\"dry_run\":true}");
	assert_int_equal(json_dec_known_keys(&d, o, NULL, "a rollout", keys), 0);
	cJSON_Delete(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_names_the_path),
		cmocka_unit_test(test_num),
		cmocka_unit_test(test_str),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_strict_bytes),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_known_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
