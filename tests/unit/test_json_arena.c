/*
 * json_arena, through report_decode and report_encode: decodes whose tree
 * fits the arena and ones that do not (under the sanitizers, a node of the
 * latter left unfreed is a leak), cJSON's allocations outside a decode
 * (report_encode's result is freed with free()), and decodes on several
 * threads at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_arena.h"
#include "report.h"

#define THREADS 4
#define ROUNDS 300

/* A report of host name, with an unknown key holding pad numbers. */
static char *
report_json(const char *name, int pad)
{
	struct report *r = report_new();
	char *json, *out, *p;
	size_t len;

	assert_non_null(r);
	r->collected_at = 1763782801.25;
	REPORT_SET(r->node.hostname, name);
	REPORT_SET(r->node.hardware_uuid, "00008103-0001-4000-8000-00000000000A");
	r->thunderbolt.n_ports = 1;
	report_port_init(&r->thunderbolt.ports[0]);
	REPORT_SET(r->thunderbolt.ports[0].receptacle, "2");
	r->thunderbolt.ports[0].speed_gbps = 80;
	assert_non_null(json = report_encode(r, 0));
	free(r);
	len = strlen(json);
	assert_non_null(out = malloc(len + 16 + (size_t)pad * 2));
	p = out + sprintf(out, "{\"padding\":[");
	for (int i = 0; i < pad; i++)
		p += sprintf(p, "%s0", i > 0 ? "," : "");
	sprintf(p, "],%s", json + 1);
	free(json);
	return out;
}

static void
decode_ok(const char *json, const char *name)
{
	struct report *r = report_new();
	char err[256];

	assert_non_null(r);
	if (report_decode(json, strlen(json), r, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_string_equal(r->node.hostname, name);
	assert_int_equal(r->thunderbolt.n_ports, 1);
	assert_true(r->thunderbolt.ports[0].speed_gbps == 80);
	free(r);
}

static void
test_pair(void **state)
{
	(void)state;
	assert_false(json_arena_holds_all());
	json_arena_begin();
	assert_true(json_arena_holds_all());
	json_arena_end();
	assert_false(json_arena_holds_all());
}

/* A tree of ~20,000 nodes does not fit: the rest is malloc'd, then freed. */
static void
test_larger_than_the_arena(void **state)
{
	char *small = report_json("small", 0), *big = report_json("big", 20000);

	(void)state;
	decode_ok(small, "small");
	decode_ok(big, "big");
	decode_ok(big, "big");          /* the arena grew */
	decode_ok(small, "small");
	free(big);
	free(small);
}

/* Encoding, outside a decode, gives malloc'd text; the decode reads it back. */
static void
test_encode_between_decodes(void **state)
{
	char *a = report_json("one", 10), *b;

	(void)state;
	decode_ok(a, "one");
	b = report_json("two", 10);
	decode_ok(b, "two");
	decode_ok(a, "one");
	free(a);
	free(b);
}

static void *
decoder(void *arg)
{
	char name[32], *json[4];

	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "host-%d-%d", (int)(intptr_t)arg, i);
		json[i] = report_json(name, i == 3 ? 5000 : i);
	}
	for (int k = 0; k < ROUNDS; k++) {
		snprintf(name, sizeof(name), "host-%d-%d", (int)(intptr_t)arg, k % 4);
		decode_ok(json[k % 4], name);
	}
	for (int i = 0; i < 4; i++)
		free(json[i]);
	return NULL;
}

static void
test_threads(void **state)
{
	pthread_t t[THREADS];

	(void)state;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, decoder, (void *)(intptr_t)i), 0);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_larger_than_the_arena),
		cmocka_unit_test(test_encode_between_decodes),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
