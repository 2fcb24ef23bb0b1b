/*
 * prov_json: the provisioning API's requests and statuses, both ways, and
 * what a bad request is told.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prov_api.h"

#define FP "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"

static int
decode(const char *json, struct prov_api_request *r, char *err, size_t errlen)
{
	return prov_json_decode_request(json, strlen(json), r, err, errlen);
}

static void
test_request_round_trip(void **state)
{
	(void)state;
	struct prov_api_request r, back;
	char err[256], *json;

	prov_api_request_init(&r);
	strcpy(r.host, "127.0.0.2");
	r.port = 2222;
	strcpy(r.user, "admin");
	strcpy(r.cluster, "studio4");
	strcpy(r.fingerprint, FP);
	r.dry_run = 1;
	json = prov_json_request(&r);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"wired_limit_mb\":null"));
	assert_non_null(strstr(json, "\"key_file\":null"));
	assert_int_equal(decode(json, &back, err, sizeof(err)), 0);
	assert_memory_equal(&r, &back, sizeof(r));
	free(json);
	assert_int_equal(decode("{\"host\":\"mac1.local\"}", &back, err, sizeof(err)), 0);
	assert_int_equal(back.wired_limit_mb, -1);
	assert_int_equal(back.port, 0);
}

static void
test_request_refused(void **state)
{
	(void)state;
	static const struct { const char *json, *says; } bad[] = {
		{ "[1]", "must be a JSON object" },
		{ "{", "invalid JSON near byte" },
		{ "{}", "host:" },
		{ "{\"host\":\"-oProxyCommand=x\"}", "host:" },
		{ "{\"host\":\"a b\"}", "host:" },
		{ "{\"host\":\"h\",\"port\":70000}", "port: must be a whole number from 0 to 65535" },
		{ "{\"host\":\"h\",\"user\":\"a;b\"}", "user:" },
		{ "{\"host\":\"h\",\"key_file\":\"id_ed25519\"}", "key_file: must be an absolute path" },
		{ "{\"host\":\"h\",\"fingerprint\":\"MD5:aa\"}", "fingerprint:" },
		{ "{\"host\":\"h\",\"fingerprint\":\"" FP "\",\"accept_new\":true}", "not both" },
		{ "{\"host\":\"h\",\"cluster\":\"../x\"}", "cluster:" },
		{ "{\"host\":\"h\",\"wired_limit_mb\":1.5}", "wired_limit_mb:" },
		{ "{\"host\":\"h\",\"dry_run\":\"yes\"}", "dry_run: has the wrong type" },
		{ "{\"host\":\"h\",\"frob\":1}", "frob: unknown key" },
		{ "{\"host\":\"h\\nx\"}", "host: must be a string" },
	};
	struct prov_api_request r;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(decode(bad[i].json, &r, err, sizeof(err)), -1);
		if (strstr(err, bad[i].says) == NULL)
			fail_msg("%s: got \"%s\", wanted \"%s\"", bad[i].json, err, bad[i].says);
	}
}

static void
test_deprov(void **state)
{
	(void)state;
	struct prov_api_deprov d = { 1, 0 };
	char err[128], *json = prov_json_deprov(&d);

	assert_string_equal(json, "{\"network\":true,\"dry_run\":false}");
	memset(&d, 0, sizeof(d));
	assert_int_equal(prov_json_decode_deprov(json, strlen(json), &d, err, sizeof(err)), 0);
	assert_true(d.network);
	free(json);
	assert_int_equal(prov_json_decode_deprov("", 0, &d, err, sizeof(err)), 0);
	assert_false(d.network);
	assert_int_equal(prov_json_decode_deprov("{\"network\":1}", 13, &d, err, sizeof(err)), -1);
}

static void
test_status_round_trip(void **state)
{
	(void)state;
	struct prov_api_status *s = calloc(1, sizeof(*s)), *b = calloc(1, sizeof(*b));
	char err[256], *json;

	s->id = 7;
	strcpy(s->kind, "add");
	strcpy(s->host, "127.0.0.2");
	strcpy(s->state, "failed");
	strcpy(s->fingerprint, FP);
	s->n_preflight = 1;
	strcpy(s->preflight[0].what, "macOS");
	strcpy(s->preflight[0].verdict, "fail");
	strcpy(s->preflight[0].text, "macOS 15.5 (24F74): RDMA over Thunderbolt needs 26.2");
	s->n_steps = 2;
	strcpy(s->steps[0].step, "pmset-sleep");
	strcpy(s->steps[0].outcome, "applied");
	strcpy(s->steps[0].command, "pmset -a sleep 0");
	strcpy(s->steps[1].step, "pmset-sleep");
	strcpy(s->steps[1].outcome, "undone");
	strcpy(s->failed_step, "port-ip-3");
	strcpy(s->reason, "exit status 4: ** Error");
	s->started_at = 1763782801.25;
	s->finished_at = NAN;
	json = prov_json_status(s);
	assert_non_null(strstr(json, "\"finished_at\":null"));
	assert_non_null(strstr(json, "\"node\":null"));
	assert_int_equal(prov_json_decode_status(json, strlen(json), b, err, sizeof(err)), 0);
	assert_int_equal(b->id, 7);
	assert_int_equal(b->n_steps, 2);
	assert_string_equal(b->steps[1].outcome, "undone");
	assert_string_equal(b->preflight[0].text, s->preflight[0].text);
	assert_true(isnan(b->finished_at));
	assert_true(b->started_at == 1763782801.25);
	free(json);
	assert_int_equal(prov_json_decode_status("{\"id\":1}", 8, b, err, sizeof(err)), -1);
	free(s);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_request_refused),
		cmocka_unit_test(test_deprov),
		cmocka_unit_test(test_status_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
