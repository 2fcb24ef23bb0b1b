/*
 * proto/json_table.c on a table of its own: each type's rules and messages,
 * required and nullable keys, a constant, enums named in the error or by
 * their names, nested objects (one that may be null), arrays of objects and
 * of strings, a custom member, the checks run after a value, keys given
 * twice or unknown, and the encoding of each (nulls, clamped counts, enum
 * values out of range).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_table.h"
#include "report.h"

enum colour { COLOUR_NONE, COLOUR_RED, COLOUR_BLUE, COLOUR_COUNT };

struct inner {
	char name[8];
	enum tri on;
};

struct outer {
	char id[8];
	int64_t bytes;
	int64_t count;
	int small;
	double ratio;
	int flag;
	enum tri tri;
	enum colour colour;
	enum colour shade;
	int has_opt;
	struct inner opt;
	struct inner always;
	int n_items;
	struct inner items[2];
	int n_tags;
	char tags[3][4];
	int twice;
};

static const char *
colour_name(int v)
{
	static const char *const names[] = { NULL, "red", "blue" };

	return v >= 0 && v < COLOUR_COUNT ? names[v] : NULL;
}

static const struct json_enum listed = { COLOUR_COUNT, colour_name, NULL, 0 };
static const struct json_enum named = { COLOUR_COUNT, colour_name, "a colour", -1 };

/* Tags must not start with 'x'. */
static int
check_tag(struct json_dec *d, const struct json_path *p, const void *v)
{
	if (((const char *)v)[0] == 'x')
		return json_dec_fail(d, p, "\"%s\" starts with x", (const char *)v);
	return 0;
}

static void
inner_init(void *v)
{
	struct inner *in = v;

	memset(in, 0, sizeof(*in));
	in->on = TRI_NULL;
}

/* "twice": a number, stored doubled. */
static int
twice_decode(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number to double");
	*(int *)dst = 2 * (int)it->valuedouble;
	return 0;
}

static cJSON *
twice_encode(const void *src)
{
	return cJSON_CreateNumber(*(const int *)src / 2);
}

static const struct json_custom twice_codec = { twice_decode, twice_encode };

static const struct json_field inner_fields[] = {
	JSON_STR(struct inner, name, 0),
	JSON_TRI(struct inner, on),
	JSON_END,
};

static const struct json_field outer_fields[] = {
	JSON_CONST("kind", "test/1"),
	JSON_STR(struct outer, id, JF_VALUE),
	JSON_I64(struct outer, bytes, 0, 1000, JF_EXACT),
	JSON_I64(struct outer, count, 0, 1000, JF_KEY),
	JSON_INT_AT("int", struct outer, small, -5, 5),
	JSON_DBL(struct outer, ratio, 0, 1, 0),
	JSON_BOOL(struct outer, flag),
	JSON_TRI(struct outer, tri),
	JSON_ENUM(struct outer, colour, &listed, 0),
	JSON_ENUM(struct outer, shade, &named, 0),
	JSON_OBJECT_OR_NULL(struct outer, opt, has_opt, inner_fields),
	JSON_OBJECT(struct outer, always, inner_fields),
	JSON_ARRAY(struct outer, items, n_items, inner_fields, inner_init, NULL),
	JSON_ARRAY(struct outer, tags, n_tags, NULL, NULL, check_tag),
	JSON_CUSTOM(struct outer, twice, &twice_codec),
	JSON_END,
};

#define HEAD "{\"kind\":\"test/1\",\"id\":\"a\",\"count\":null"

static void
null_outer(struct outer *o)
{
	json_table_null(o, sizeof(*o), outer_fields);
	o->always.on = TRI_NULL;
	o->n_items = o->n_tags = -1;
}

/* Decodes json into *o (nulled first): 0, or -1 with the message in err. */
static int
decode(const char *json, struct outer *o, char *err, size_t errlen, int *unknown)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	null_outer(o);
	json_dec_init(&d, err, errlen);
	d.own_key_check = 1;
	if (json_dec_parse(&d, json, strlen(json), JSON_DEC_MAX, 1, &root) == 0)
		rc = json_table_decode(&d, root, NULL, o, outer_fields);
	cJSON_Delete(root);
	if (unknown != NULL)
		*unknown = d.unknown;
	return rc;
}

static void
expect_error(const char *json, const char *want)
{
	struct outer o;
	char err[256] = "";

	if (decode(json, &o, err, sizeof(err), NULL) != -1)
		fail_msg("accepted: %s", json);
	if (strcmp(err, want) != 0)
		fail_msg("for %s\n  got:  %s\n  want: %s", json, err, want);
}

static void
test_null_state(void **state)
{
	struct outer o;

	(void)state;
	memset(&o, 0x5a, sizeof(o));
	json_table_null(&o, sizeof(o), outer_fields);
	assert_true(o.bytes == REPORT_NULL_I64);
	assert_true(isnan(o.ratio));
	assert_int_equal(o.tri, TRI_NULL);
	assert_string_equal(o.id, "");
	assert_int_equal(o.small, 0);
	assert_int_equal(o.n_items, 0);
}

static void
test_decode_all(void **state)
{
	static const char json[] = "{\"kind\":\"test/1\",\"id\":\"abc\",\"bytes\":512,"
	    "\"count\":7,\"int\":-5,\"ratio\":0.25,\"flag\":true,\"tri\":false,"
	    "\"colour\":\"blue\",\"shade\":\"red\",\"opt\":{\"name\":\"o\",\"on\":true},"
	    "\"always\":{},\"items\":[{\"name\":\"i0\"},{\"on\":false}],"
	    "\"tags\":[\"t1\",\"t2\"],\"twice\":21,\"later\":{\"k\":[1]}}";
	struct outer o;
	char err[256];
	int unknown;

	(void)state;
	assert_int_equal(decode(json, &o, err, sizeof(err), &unknown), 0);
	assert_int_equal(unknown, 1);
	assert_string_equal(o.id, "abc");
	assert_true(o.bytes == 512);
	assert_true(o.count == 7);
	assert_int_equal(o.small, -5);
	assert_true(o.ratio == 0.25);
	assert_int_equal(o.flag, 1);
	assert_int_equal(o.tri, TRI_FALSE);
	assert_int_equal(o.colour, COLOUR_BLUE);
	assert_int_equal(o.shade, COLOUR_RED);
	assert_int_equal(o.has_opt, 1);
	assert_string_equal(o.opt.name, "o");
	assert_int_equal(o.opt.on, TRI_TRUE);
	assert_string_equal(o.always.name, "");
	assert_int_equal(o.always.on, TRI_NULL);
	assert_int_equal(o.n_items, 2);
	assert_string_equal(o.items[0].name, "i0");
	assert_int_equal(o.items[0].on, TRI_NULL);
	assert_int_equal(o.items[1].on, TRI_FALSE);
	assert_int_equal(o.n_tags, 2);
	assert_string_equal(o.tags[1], "t2");
	assert_int_equal(o.twice, 42);
}

/* Absent and null leave the null state; "opt": null leaves has_opt 0. */
static void
test_absent_and_null(void **state)
{
	struct outer o, want;
	char err[256];

	(void)state;
	null_outer(&want);
	snprintf(want.id, sizeof(want.id), "a");
	assert_int_equal(decode(HEAD "}", &o, err, sizeof(err), NULL), 0);
	assert_memory_equal(&o, &want, sizeof(o));
	assert_int_equal(decode(HEAD ",\"bytes\":null,\"int\":null,\"ratio\":null,"
	    "\"flag\":null,\"tri\":null,\"colour\":null,\"shade\":null,\"opt\":null,"
	    "\"always\":null,\"items\":null,\"tags\":null,\"twice\":null}", &o, err,
	    sizeof(err), NULL), 0);
	assert_memory_equal(&o, &want, sizeof(o));
}

static const struct bad {
	const char *json;
	const char *want;
} bad_cases[] = {
	{ "{\"id\":\"a\",\"count\":1}", "kind: missing" },
	{ "{\"kind\":null,\"id\":\"a\",\"count\":1}", "kind: expected \"test/1\"" },
	{ "{\"kind\":\"test/2\"}", "kind: expected \"test/1\"" },
	{ "{\"kind\":\"test/1\",\"count\":1}", "id: missing" },
	{ "{\"kind\":\"test/1\",\"id\":null}", "id: must not be null" },
	{ "{\"kind\":\"test/1\",\"id\":1}", "id: must be a string" },
	{ "{\"kind\":\"test/1\",\"id\":\"\"}", "id: empty string (an unknown value is null)" },
	{ "{\"kind\":\"test/1\",\"id\":\"12345678\"}", "id: longer than 7 bytes" },
	{ "{\"kind\":\"test/1\",\"id\":\"a\"}", "count: missing" },
	{ HEAD ",\"bytes\":\"1\"}", "bytes: must be a number or null" },
	{ HEAD ",\"bytes\":1.123456789}", "bytes: 1.123456789 is not an integer" },
	{ HEAD ",\"bytes\":-0.1234567}", "bytes: -0.1234567 is out of range 0..1000" },
	{ "{\"kind\":\"test/1\",\"id\":\"a\",\"count\":1.123456789}",
	    "count: 1.12346 is not an integer" },
	{ HEAD ",\"int\":6}", "int: 6 is out of range -5..5" },
	{ HEAD ",\"ratio\":1.5}", "ratio: 1.5 is out of range 0..1" },
	{ HEAD ",\"flag\":1}", "flag: must be true, false or null" },
	{ HEAD ",\"tri\":\"true\"}", "tri: must be true, false or null" },
	{ HEAD ",\"colour\":1}", "colour: must be a string or null" },
	{ HEAD ",\"colour\":\"green\"}", "colour: \"green\" is not one of \"red\", \"blue\"" },
	{ HEAD ",\"shade\":\"green\"}", "shade: \"green\" is not a colour" },
	{ HEAD ",\"opt\":[]}", "opt: must be an object or null" },
	{ HEAD ",\"opt\":{\"on\":0}}", "opt.on: must be true, false or null" },
	{ HEAD ",\"items\":{}}", "items: must be an array or null" },
	{ HEAD ",\"items\":[{},{},{}]}", "items: more than 2 entries" },
	{ HEAD ",\"items\":[{},null]}", "items[1]: must be an object" },
	{ HEAD ",\"items\":[{},{\"name\":\"\"}]}",
	    "items[1].name: empty string (an unknown value is null)" },
	{ HEAD ",\"tags\":[\"t\",null]}", "tags[1]: must be a string" },
	{ HEAD ",\"tags\":[\"long\"]}", "tags[0]: longer than 3 bytes" },
	{ HEAD ",\"tags\":[\"t\",\"xt\"]}", "tags[1]: \"xt\" starts with x" },
	{ HEAD ",\"twice\":\"2\"}", "twice: must be a number to double" },
	{ HEAD ",\"id\":\"b\"}", "id: given twice" },
	{ HEAD ",\"items\":[{\"on\":true,\"on\":false}]}", "items[0].on: given twice" },
};

static void
test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		expect_error(bad_cases[i].json, bad_cases[i].want);
}

static void
test_too_many_keys(void **state)
{
	struct json_field big[JSON_TABLE_KEYS + 2];
	struct json_dec d;
	char err[128], base[8];
	cJSON *o = cJSON_Parse("{}");

	(void)state;
	for (int i = 0; i <= JSON_TABLE_KEYS; i++)
		big[i] = (struct json_field)JSON_BOOL(struct outer, flag);
	big[JSON_TABLE_KEYS + 1] = (struct json_field)JSON_END;
	json_dec_init(&d, err, sizeof(err));
	assert_int_equal(json_table_decode(&d, o, NULL, base, big), -1);
	assert_string_equal(err, "internal error: more than 24 keys");
	cJSON_Delete(o);
}

static char *
encode(const struct outer *o)
{
	cJSON *j = json_table_object(o, outer_fields);
	char *s;

	assert_non_null(j);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static void
test_encode(void **state)
{
	struct outer o, back;
	char err[256], *s;

	(void)state;
	null_outer(&o);
	s = encode(&o);
	assert_string_equal(s, "{\"kind\":\"test/1\",\"id\":null,\"bytes\":null,\"count\":null,"
	    "\"int\":0,\"ratio\":null,\"flag\":false,\"tri\":null,\"colour\":null,"
	    "\"shade\":null,\"opt\":null,\"always\":{\"name\":null,\"on\":null},"
	    "\"items\":null,\"tags\":null,\"twice\":0}");
	free(s);

	snprintf(o.id, sizeof(o.id), "abc");
	o.bytes = 999;
	o.small = -3;
	o.ratio = 0.1 + 0.2;
	o.flag = 7;
	o.tri = TRI_TRUE;
	o.colour = (enum colour)9;	/* out of range: 0's name, none: null */
	o.shade = COLOUR_BLUE;
	o.has_opt = 1;
	inner_init(&o.opt);
	o.n_items = 5;			/* more than the array holds: its size */
	inner_init(&o.items[0]);
	inner_init(&o.items[1]);
	snprintf(o.items[1].name, sizeof(o.items[1].name), "i1");
	o.n_tags = 1;
	snprintf(o.tags[0], sizeof(o.tags[0]), "t");
	o.twice = 8;
	s = encode(&o);
	assert_string_equal(s, "{\"kind\":\"test/1\",\"id\":\"abc\",\"bytes\":999,\"count\":null,"
	    "\"int\":-3,\"ratio\":0.30000000000000004,\"flag\":true,\"tri\":true,"
	    "\"colour\":null,\"shade\":\"blue\",\"opt\":{\"name\":null,\"on\":null},"
	    "\"always\":{\"name\":null,\"on\":null},\"items\":[{\"name\":null,\"on\":null},"
	    "{\"name\":\"i1\",\"on\":null}],\"tags\":[\"t\"],\"twice\":4}");
	assert_int_equal(decode(s, &back, err, sizeof(err), NULL), 0);
	assert_int_equal(back.n_items, 2);
	assert_string_equal(back.items[1].name, "i1");
	assert_int_equal(back.twice, 8);
	free(s);

	o.shade = (enum colour)-1;	/* out of range, written as null */
	s = encode(&o);
	assert_non_null(strstr(s, "\"shade\":null"));
	free(s);
}

static void
test_enum_value(void **state)
{
	static const struct json_enum clamped = { COLOUR_COUNT, colour_name, NULL, COLOUR_RED };
	char *s;
	cJSON *j;

	(void)state;
	j = json_table_enum(&clamped, 42);
	assert_non_null(s = cJSON_PrintUnformatted(j));
	assert_string_equal(s, "\"red\"");
	free(s);
	cJSON_Delete(j);
	j = json_table_enum(&named, 42);
	assert_true(cJSON_IsNull(j));
	cJSON_Delete(j);
	j = json_table_enum(&named, COLOUR_NONE);
	assert_true(cJSON_IsNull(j));
	cJSON_Delete(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_state),
		cmocka_unit_test(test_decode_all),
		cmocka_unit_test(test_absent_and_null),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_many_keys),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_enum_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
