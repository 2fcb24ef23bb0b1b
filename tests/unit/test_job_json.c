/*
 * Jobs' JSON (proto/job_json.c): the words of states, policies and wants; a
 * job and a list through a round trip, every null included; what an answer
 * may not hold; the request (POST /v1/jobs): its defaults, given or null,
 * and every refusal, each naming the field and why.
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

#include "job_api.h"

#define T0 1763782800.0

/* ---- words ---- */

static void
test_words(void **state)
{
	static const char *const states[] = { "starting", "running", "hung", "failed",
		"stopping", "stopped", "waiting" };

	(void)state;
	for (int i = 0; i < JOB_STATE_COUNT; i++) {
		assert_string_equal(job_state_str((enum job_state)i), states[i]);
		assert_int_equal(job_state_parse(states[i]), i);
	}
	assert_string_equal(job_restart_str(JOB_RESTART_NEVER), "never");
	assert_string_equal(job_restart_str(JOB_RESTART_ON_FAILURE), "on-failure");
	assert_int_equal(job_restart_parse("never"), JOB_RESTART_NEVER);
	assert_int_equal(job_restart_parse("on-failure"), JOB_RESTART_ON_FAILURE);
	assert_string_equal(job_want_str(JOB_WANT_RUN), "run");
	assert_string_equal(job_want_str(JOB_WANT_STOP), "stop");
	assert_int_equal(job_want_parse("run"), JOB_WANT_RUN);
	assert_int_equal(job_want_parse("stop"), JOB_WANT_STOP);
	assert_string_equal(job_replan_str(JOB_REPLAN_NEVER), "never");
	assert_string_equal(job_replan_str(JOB_REPLAN_AUTO), "auto");
	assert_string_equal(job_replan_str(JOB_REPLAN_COUNT), "unknown");
	assert_int_equal(job_replan_parse("auto"), JOB_REPLAN_AUTO);
	assert_int_equal(job_replan_parse("never"), JOB_REPLAN_NEVER);
	assert_int_equal(job_replan_parse("always"), -1);
	assert_int_equal(job_state_parse("Running"), -1);
	assert_int_equal(job_state_parse(""), -1);
	assert_int_equal(job_state_parse(NULL), -1);
	assert_int_equal(job_restart_parse("always"), -1);
	assert_int_equal(job_want_parse("start"), -1);
	assert_string_equal(job_state_str(JOB_STATE_COUNT), "unknown");
	assert_string_equal(job_state_str((enum job_state)-1), "unknown");
	assert_string_equal(job_restart_str(JOB_RESTART_COUNT), "unknown");
	assert_string_equal(job_want_str(JOB_WANT_COUNT), "unknown");
}

/* ---- jobs ---- */

/* A 2-rank jaccl job, running, rank 1 not seen yet (its nulls). */
static void
fill_job(struct job *j, int64_t id)
{
	job_init(j);
	j->id = id;
	j->placement = 7;
	snprintf(j->model, sizeof(j->model), "llama-3.3-70b:4bit");
	snprintf(j->cluster, sizeof(j->cluster), "lab");
	snprintf(j->backend, sizeof(j->backend), "jaccl");
	j->state = JOB_RUNNING;
	snprintf(j->reason, sizeof(j->reason), "rank 1 \"burned\" a core\n");
	j->want = JOB_WANT_STOP;
	j->generation = 3;
	j->restarts = 2;
	j->restart_policy = JOB_RESTART_ON_FAILURE;
	j->max_restarts = 5;
	j->replan = JOB_REPLAN_AUTO;
	j->replans = 1;
	j->port = 8081;
	snprintf(j->python, sizeof(j->python), "/opt/py 3/bin/python3");
	snprintf(j->endpoint, sizeof(j->endpoint), "http://127.0.0.2:8081");
	j->created_at = T0;
	j->started_at = T0 + 1.25;
	j->probe_ok_at = T0 + 2.5;
	j->updated_at = T0 + 3.0625;
	j->n_ranks = 2;
	j->ranks[0].rank = 0;
	snprintf(j->ranks[0].node, sizeof(j->ranks[0].node), "a1");
	snprintf(j->ranks[0].host, sizeof(j->ranks[0].host), "127.0.0.2");
	j->ranks[0].pid = 41213;
	j->ranks[0].started_at = T0 + 1;
	j->ranks[0].alive = 1;
	j->ranks[0].cpu_seconds = 0.02;
	j->ranks[0].rss_bytes = 54 * 1000 * 1000;
	j->ranks[0].seen_at = T0 + 3;
	snprintf(j->ranks[0].seen_by, sizeof(j->ranks[0].seen_by), "agent");
	j->ranks[1].rank = 1;
	snprintf(j->ranks[1].node, sizeof(j->ranks[1].node), "a2");
	snprintf(j->ranks[1].host, sizeof(j->ranks[1].host), "127.0.0.3");
	j->ranks[1].alive = 0;
}

static void
assert_rank_equal(const struct job_rank *a, const struct job_rank *b)
{
	assert_int_equal(a->rank, b->rank);
	assert_string_equal(a->node, b->node);
	assert_string_equal(a->host, b->host);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->alive, b->alive);
	assert_int_equal(a->rss_bytes, b->rss_bytes);
	assert_true(isnan(a->started_at) ? isnan(b->started_at) : a->started_at == b->started_at);
	assert_true(isnan(a->cpu_seconds) ? isnan(b->cpu_seconds) :
	    a->cpu_seconds == b->cpu_seconds);
	assert_true(isnan(a->seen_at) ? isnan(b->seen_at) : a->seen_at == b->seen_at);
	assert_string_equal(a->seen_by, b->seen_by);
}

#define DBL_EQ(a, b) assert_true(isnan(a) ? isnan(b) : (a) == (b))

static void
assert_job_equal(const struct job *a, const struct job *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->placement, b->placement);
	assert_string_equal(a->model, b->model);
	assert_string_equal(a->cluster, b->cluster);
	assert_string_equal(a->backend, b->backend);
	assert_int_equal(a->state, b->state);
	assert_string_equal(a->reason, b->reason);
	assert_int_equal(a->want, b->want);
	assert_int_equal(a->generation, b->generation);
	assert_int_equal(a->restarts, b->restarts);
	assert_int_equal(a->restart_policy, b->restart_policy);
	assert_int_equal(a->max_restarts, b->max_restarts);
	assert_int_equal(a->replan, b->replan);
	assert_int_equal(a->replans, b->replans);
	assert_int_equal(a->port, b->port);
	assert_string_equal(a->python, b->python);
	assert_string_equal(a->endpoint, b->endpoint);
	DBL_EQ(a->created_at, b->created_at);
	DBL_EQ(a->started_at, b->started_at);
	DBL_EQ(a->probe_ok_at, b->probe_ok_at);
	DBL_EQ(a->updated_at, b->updated_at);
	assert_int_equal(a->n_ranks, b->n_ranks);
	for (int i = 0; i < a->n_ranks; i++)
		assert_rank_equal(&a->ranks[i], &b->ranks[i]);
}

static void
test_job_round_trip(void **state)
{
	struct job *j = calloc(2, sizeof(*j));
	char err[256] = "", *s, *s2;

	(void)state;
	assert_non_null(j);
	fill_job(&j[0], 12);
	assert_non_null(s = job_encode(&j[0]));
	assert_int_equal(job_decode(s, strlen(s), &j[1], err, sizeof(err)), 0);
	assert_job_equal(&j[0], &j[1]);
	/* what job_api.h promises, by name */
	assert_non_null(strstr(s, "\"id\":12,\"placement\":7,\"model\":\"llama-3.3-70b:4bit\""));
	assert_non_null(strstr(s, "\"state\":\"running\""));
	assert_non_null(strstr(s, "\"want\":\"stop\""));
	assert_non_null(strstr(s, "\"restart_policy\":\"on-failure\""));
	assert_non_null(strstr(s, "\"reason\":\"rank 1 \\\"burned\\\" a core\\n\""));
	assert_non_null(strstr(s, "{\"rank\":0,\"node\":\"a1\",\"host\":\"127.0.0.2\","
	    "\"pid\":41213,\"started_at\":1763782801,\"alive\":true,\"cpu_seconds\":0.02,"
	    "\"rss_bytes\":54000000,\"seen_at\":1763782803,\"seen_by\":\"agent\"}"));
	assert_non_null(strstr(s, "\"replan\":\"auto\",\"replans\":1,"));
	/* rank 1's nulls */
	assert_non_null(strstr(s, "{\"rank\":1,\"node\":\"a2\",\"host\":\"127.0.0.3\","
	    "\"pid\":null,\"started_at\":null,\"alive\":false,\"cpu_seconds\":null,"
	    "\"rss_bytes\":null,\"seen_at\":null,\"seen_by\":null}"));
	/* the same text again */
	assert_non_null(s2 = job_encode(&j[1]));
	assert_string_equal(s, s2);
	free(s);
	free(s2);
	free(j);
}

static void
test_job_nulls(void **state)
{
	struct job *j = calloc(2, sizeof(*j));
	char err[256] = "", *s;

	(void)state;
	assert_non_null(j);
	job_init(&j[0]);
	j[0].id = 1;
	j[0].placement = 2;
	j[0].port = JOB_DEFAULT_PORT;
	j[0].n_ranks = 1;
	assert_non_null(s = job_encode(&j[0]));
	assert_string_equal(s, "{\"id\":1,\"placement\":2,\"model\":null,\"cluster\":null,"
	    "\"backend\":null,\"state\":\"starting\",\"reason\":null,\"want\":\"run\","
	    "\"generation\":0,\"restarts\":0,\"restart_policy\":\"never\",\"max_restarts\":0,"
	    "\"replan\":\"never\",\"replans\":0,\"port\":8080,\"python\":null,\"endpoint\":null,"
	    "\"created_at\":null,"
	    "\"started_at\":null,\"probe_ok_at\":null,\"updated_at\":null,\"ranks\":"
	    "[{\"rank\":0,\"node\":null,\"host\":null,\"pid\":null,\"started_at\":null,"
	    "\"alive\":null,\"cpu_seconds\":null,\"rss_bytes\":null,\"seen_at\":null,"
	    "\"seen_by\":null}]}");
	memset(&j[1], 0x5a, sizeof(j[1]));
	assert_int_equal(job_decode(s, strlen(s), &j[1], err, sizeof(err)), 0);
	assert_job_equal(&j[0], &j[1]);
	assert_int_equal(j[1].ranks[0].pid, 0);
	assert_int_equal(j[1].ranks[0].alive, -1);
	assert_int_equal(j[1].ranks[0].rss_bytes, -1);
	assert_true(isnan(j[1].ranks[0].start_sent_at));
	free(s);

	/* the least an answer holds: absent keys read as null, unknown ones skipped */
	static const char min[] = "{\"id\":5,\"state\":\"hung\",\"later\":{\"x\":1},"
	    "\"ranks\":[{\"rank\":0,\"future\":true}]}";
	assert_int_equal(job_decode(min, strlen(min), &j[1], err, sizeof(err)), 0);
	assert_int_equal(j[1].id, 5);
	assert_int_equal(j[1].state, JOB_HUNG);
	assert_int_equal(j[1].want, JOB_WANT_RUN);
	assert_string_equal(j[1].reason, "");
	assert_true(isnan(j[1].started_at));
	assert_int_equal(j[1].n_ranks, 1);
	assert_int_equal(j[1].ranks[0].pid, 0);
	assert_int_equal(j[1].ranks[0].alive, -1);
	assert_int_equal(j[1].ranks[0].rss_bytes, -1);
	assert_true(isnan(j[1].ranks[0].cpu_seconds));
	/* what was read without a port encodes it as null, and decodes again
	   (found by tests/fuzz/fuzz_api.c: 0 was written, then refused) */
	assert_int_equal(j[1].port, 0);
	s = job_encode(&j[1]);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"port\":null"));
	if (job_decode(s, strlen(s), &j[0], err, sizeof(err)) != 0)
		fail_msg("%s: %s", s, err);
	assert_int_equal(j[0].port, 0);
	free(s);
	free(j);
}

/* json is refused with exactly msg. */
static void
job_refused(const char *json, const char *msg)
{
	struct job *j = malloc(sizeof(*j));
	char err[256] = "";

	assert_non_null(j);
	if (job_decode(json, strlen(json), j, err, sizeof(err)) != -1)
		fail_msg("accepted: %s", json);
	if (strcmp(err, msg) != 0)
		fail_msg("%s: \"%s\", not \"%s\"", json, err, msg);
	free(j);
}

static void
test_job_refused(void **state)
{
	char many[2048];
	size_t n;

	(void)state;
	job_refused("{\"state\":\"running\"}", "id: missing");
	job_refused("{\"id\":null,\"state\":\"running\"}", "id: must not be null");
	job_refused("{\"id\":0,\"state\":\"running\"}",
	    "id: 0 is out of range 1..9007199254740991");
	job_refused("{\"id\":\"3\",\"state\":\"running\"}", "id: must be a number");
	job_refused("{\"id\":3}", "state: missing");
	job_refused("{\"id\":3,\"state\":\"sleeping\"}", "state: \"sleeping\" is not one of "
	    "\"starting\", \"running\", \"hung\", \"failed\", \"stopping\", \"stopped\", \"waiting\"");
	job_refused("{\"id\":3,\"state\":\"running\",\"want\":\"maybe\"}",
	    "want: \"maybe\" is not one of \"run\", \"stop\"");
	job_refused("{\"id\":3,\"state\":\"running\",\"restart_policy\":\"always\"}",
	    "restart_policy: \"always\" is not one of \"never\", \"on-failure\"");
	job_refused("{\"id\":3,\"state\":\"running\",\"port\":0}",
	    "port: 0 is not an integer in 1..65535");
	job_refused("{\"id\":3,\"state\":\"running\",\"generation\":-1}",
	    "generation: -1 is out of range 0..2147483647");
	job_refused("{\"id\":3,\"state\":\"running\",\"model\":\"\"}",
	    "model: empty string (an unknown value is null)");
	job_refused("{\"id\":3,\"state\":\"running\",\"created_at\":\"now\"}",
	    "created_at: must be a number or null");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":{}}",
	    "ranks: must be an array or null");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[1]}",
	    "ranks[0]: must be an object");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{},{\"pid\":0}]}",
	    "ranks[1].pid: 0 is not an integer in 1..2147483647");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{\"pid\":\"41\"}]}",
	    "ranks[0].pid: must be a number or null");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{\"rss_bytes\":-1}]}",
	    "ranks[0].rss_bytes: -1 is not an integer in 0..72057594037927936");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{\"alive\":1}]}",
	    "ranks[0].alive: must be true, false or null");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{\"rank\":16}]}",
	    "ranks[0].rank: 16 is out of range 0..15");
	job_refused("{\"id\":3,\"state\":\"running\",\"ranks\":[{\"cpu_seconds\":-0.5}]}",
	    "ranks[0].cpu_seconds: -0.5 is out of range 0..1e+12");
	job_refused("{\"id\":3,\"id\":4,\"state\":\"running\"}", "the key \"id\" is given twice");
	job_refused("[]", "the top level must be a JSON object");
	n = (size_t)snprintf(many, sizeof(many), "{\"id\":3,\"state\":\"running\",\"ranks\":[");
	for (int i = 0; i <= JOB_RANKS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%s{}", i ? "," : "");
	snprintf(many + n, sizeof(many) - n, "]}");
	job_refused(many, "ranks: more than 16 entries");
}

static void
test_list(void **state)
{
	struct job *in = calloc(2, sizeof(*in)), *out = NULL;
	char err[256] = "", *s;
	int n = -1;

	(void)state;
	assert_non_null(in);
	assert_non_null(s = job_list_encode(in, 0));
	assert_string_equal(s, "{\"jobs\":[]}");
	assert_int_equal(job_list_decode(s, strlen(s), &out, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	free(out);
	free(s);

	fill_job(&in[0], 9);
	fill_job(&in[1], 8);
	in[1].state = JOB_STOPPED;
	in[1].n_ranks = 1;
	assert_non_null(s = job_list_encode(in, 2));
	assert_int_equal(job_list_decode(s, strlen(s), &out, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_job_equal(&in[0], &out[0]);
	assert_job_equal(&in[1], &out[1]);
	free(out);
	free(s);

	static const struct { const char *json, *msg; } bad[] = {
		{ "{}", "jobs: missing" },
		{ "{\"jobs\":{}}", "jobs: must be an array of jobs" },
		{ "{\"jobs\":[3]}", "jobs[0]: must be an object" },
		{ "{\"jobs\":[{\"id\":1,\"state\":\"running\"},{\"id\":2}]}",
		  "jobs[1].state: missing" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		out = (struct job *)&n;   /* set to NULL on failure */
		assert_int_equal(job_list_decode(bad[i].json, strlen(bad[i].json), &out, &n, err,
		    sizeof(err)), -1);
		assert_null(out);
		assert_int_equal(n, 0);
		assert_string_equal(err, bad[i].msg);
	}
	free(in);
}

/* ---- the request ---- */

static int
req_decode(const char *json, struct job_request *r, char *err, size_t errlen)
{
	return job_request_decode(json, strlen(json), r, err, errlen);
}

static void
test_request_defaults(void **state)
{
	static const char *const minimal[] = {
		"{\"placement\":7}",
		"{\"placement\":7,\"port\":null,\"python\":null,\"restart\":null,"
		"\"max_restarts\":null,\"replan\":null}",
		" {\"max_restarts\":null,\"placement\":7} \n",
	};
	struct job_request r;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(minimal) / sizeof(minimal[0]); i++) {
		memset(&r, 0x5a, sizeof(r));
		err[0] = '\0';
		assert_int_equal(req_decode(minimal[i], &r, err, sizeof(err)), 0);
		assert_string_equal(err, "");
		assert_int_equal(r.placement, 7);
		assert_int_equal(r.port, JOB_DEFAULT_PORT);
		assert_int_equal(r.port, 8080);
		assert_string_equal(r.python, JOB_DEFAULT_PYTHON);
		assert_int_equal(r.restart, JOB_RESTART_ON_FAILURE);
		assert_int_equal(r.max_restarts, JOB_DEFAULT_MAX_RESTARTS);
		assert_int_equal(r.replan, JOB_REPLAN_NEVER);
	}
	assert_int_equal(req_decode("{\"placement\":9007199254740991,\"port\":1,\"python\":"
	    "\"/usr/local/bin/python3.12\",\"restart\":\"never\",\"max_restarts\":0,"
	    "\"replan\":\"auto\"}", &r, err, sizeof(err)), 0);
	assert_int_equal(r.replan, JOB_REPLAN_AUTO);
	assert_int_equal(r.placement, INT64_C(9007199254740991));
	assert_int_equal(r.port, 1);
	assert_string_equal(r.python, "/usr/local/bin/python3.12");
	assert_int_equal(r.restart, JOB_RESTART_NEVER);
	assert_int_equal(r.max_restarts, 0);
	assert_int_equal(req_decode("{\"placement\":3,\"port\":65535,\"python\":\"py thon\","
	    "\"max_restarts\":100}", &r, err, sizeof(err)), 0);
	assert_int_equal(r.port, 65535);
	assert_string_equal(r.python, "py thon");   /* inside spaces are a path's */
	assert_int_equal(r.max_restarts, JOB_MAX_RESTARTS_MAX);
}

static void
test_request_round_trip(void **state)
{
	struct job_request in, out;
	char err[256], *s;

	(void)state;
	/* nothing but the placement given: the defaults are the decoder's */
	memset(&in, 0, sizeof(in));
	in.placement = 4;
	in.restart = JOB_RESTART_COUNT;
	in.max_restarts = -1;
	in.replan = JOB_REPLAN_COUNT;
	assert_non_null(s = job_request_encode(&in));
	assert_string_equal(s, "{\"placement\":4,\"port\":null,\"python\":null,\"restart\":null,"
	    "\"max_restarts\":null,\"replan\":null}");
	assert_int_equal(req_decode(s, &out, err, sizeof(err)), 0);
	assert_int_equal(out.placement, 4);
	assert_int_equal(out.port, 8080);
	assert_string_equal(out.python, "python3");
	assert_int_equal(out.restart, JOB_RESTART_ON_FAILURE);
	assert_int_equal(out.max_restarts, 3);
	free(s);

	in.port = 9000;
	snprintf(in.python, sizeof(in.python), "/opt/homebrew/bin/python3");
	in.restart = JOB_RESTART_NEVER;
	in.max_restarts = 0;
	in.replan = JOB_REPLAN_AUTO;
	assert_non_null(s = job_request_encode(&in));
	assert_string_equal(s, "{\"placement\":4,\"port\":9000,\"python\":"
	    "\"/opt/homebrew/bin/python3\",\"restart\":\"never\",\"max_restarts\":0,"
	    "\"replan\":\"auto\"}");
	memset(&out, 0, sizeof(out));
	assert_int_equal(req_decode(s, &out, err, sizeof(err)), 0);
	assert_int_equal(out.placement, in.placement);
	assert_int_equal(out.port, in.port);
	assert_string_equal(out.python, in.python);
	assert_int_equal(out.restart, in.restart);
	assert_int_equal(out.max_restarts, in.max_restarts);
	assert_int_equal(out.replan, in.replan);
	free(s);
}

static void
req_refused(const char *json, const char *msg)
{
	struct job_request r;
	char err[256] = "";

	if (req_decode(json, &r, err, sizeof(err)) != -1)
		fail_msg("accepted: %s", json);
	if (strcmp(err, msg) != 0)
		fail_msg("%s: \"%s\", not \"%s\"", json, err, msg);
}

static void
test_request_refused(void **state)
{
	char longpy[400];

	(void)state;
	req_refused("{}", "placement: missing");
	req_refused("{\"port\":8080}", "placement: missing");
	req_refused("{\"placement\":null}", "placement: must not be null");
	req_refused("{\"placement\":0}", "placement: 0 is out of range 1..9007199254740991");
	req_refused("{\"placement\":-7}", "placement: -7 is out of range 1..9007199254740991");
	req_refused("{\"placement\":7.5}", "placement: 7.5 is not an integer");
	req_refused("{\"placement\":\"7\"}", "placement: must be a number");
	req_refused("{\"placement\":true}", "placement: must be a number");
	req_refused("{\"placement\":7,\"port\":0}", "port: 0 is out of range 1..65535");
	req_refused("{\"placement\":7,\"port\":65536}", "port: 65536 is out of range 1..65535");
	req_refused("{\"placement\":7,\"port\":-1}", "port: -1 is out of range 1..65535");
	req_refused("{\"placement\":7,\"port\":8080.5}", "port: 8080.5 is not an integer");
	req_refused("{\"placement\":7,\"port\":\"8080\"}", "port: must be a number or null");
	req_refused("{\"placement\":7,\"max_restarts\":-1}",
	    "max_restarts: -1 is out of range 0..100");
	req_refused("{\"placement\":7,\"max_restarts\":101}",
	    "max_restarts: 101 is out of range 0..100");
	req_refused("{\"placement\":7,\"max_restarts\":[3]}",
	    "max_restarts: must be a number or null");
	req_refused("{\"placement\":7,\"restart\":\"always\"}",
	    "restart: \"always\" is not one of \"never\", \"on-failure\"");
	req_refused("{\"placement\":7,\"restart\":\"on_failure\"}",
	    "restart: \"on_failure\" is not one of \"never\", \"on-failure\"");
	req_refused("{\"placement\":7,\"restart\":false}", "restart: must be a string or null");
	req_refused("{\"placement\":7,\"replan\":\"always\"}",
	    "replan: \"always\" is not one of \"never\", \"auto\"");
	req_refused("{\"placement\":7,\"python\":\"\"}",
	    "python: empty string (an unknown value is null)");
	req_refused("{\"placement\":7,\"python\":\" python3\"}",
	    "python: starts or ends with a space");
	req_refused("{\"placement\":7,\"python\":\"python3 \"}",
	    "python: starts or ends with a space");
	req_refused("{\"placement\":7,\"python\":\" \"}", "python: starts or ends with a space");
	req_refused("{\"placement\":7,\"python\":\"python3\\n\"}",
	    "python: holds a control character");
	req_refused("{\"placement\":7,\"python\":\"py\\tthon\"}",
	    "python: holds a control character");
	req_refused("{\"placement\":7,\"python\":\"py\\u007fthon\"}",
	    "python: holds a control character");
	req_refused("{\"placement\":7,\"python\":3}", "python: must be a string or null");
	snprintf(longpy, sizeof(longpy), "{\"placement\":7,\"python\":\"/%0300d\"}", 0);
	req_refused(longpy, "python: longer than 255 bytes");
	/* what a request does not have is refused, not ignored */
	req_refused("{\"placement\":7,\"server\":true}", "server: not a field of a job "
	    "(placement, port, python, restart, max_restarts, replan)");
	req_refused("{\"placement\":7,\"restart_policy\":\"never\"}", "restart_policy: not a "
	    "field of a job (placement, port, python, restart, max_restarts, replan)");
	req_refused("{\"placement\":7,\"Port\":8080}", "Port: not a field of a job "
	    "(placement, port, python, restart, max_restarts, replan)");
	req_refused("{\"placement\":7,\"placement\":8}", "the key \"placement\" is given twice");
	req_refused("[7]", "the top level must be a JSON object");
	req_refused("", "empty input");
	req_refused("{\"placement\":7} x", "unexpected data after the JSON value at byte 15");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_job_round_trip),
		cmocka_unit_test(test_job_nulls),
		cmocka_unit_test(test_job_refused),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_request_defaults),
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_request_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
