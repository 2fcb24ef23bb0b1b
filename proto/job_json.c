/*
 * Jobs (job_api.h): their words, and their JSON through the field tables of
 * json_table.h.  The job and its list are answers: a known key with the
 * wrong type or out of range is refused, an unknown key is skipped.  The
 * request is what an operator writes: an unknown key is refused with the
 * list of the request's, a value out of range too, and what is left out
 * (or null) takes the default of job_api.h.
 *
 * Nulls: "" for strings, NAN for times and cpu_seconds, pid 0, rss_bytes -1
 * and alive -1 are null in JSON and read back as such.
 */
#include "job_api.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_json_fields.h"
#include "json_dec.h"
#include "json_enc.h"
#include "json_table.h"
#include "report.h"

_Static_assert(sizeof(enum job_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum job_restart) == sizeof(int), "enum size");
_Static_assert(sizeof(enum job_want) == sizeof(int), "enum size");
_Static_assert(sizeof(enum job_replan) == sizeof(int), "enum size");
_Static_assert(sizeof(enum tri) == sizeof(int), "enum size");   /* job_rank.alive */

#define ID_MAX 9007199254740991.0   /* ids are exact in a double up to 2^53 - 1 */
#define PID_MAX 2147483647.0
#define CPU_MAX 1e12                /* seconds of CPU time */

static const char *const state_names[JOB_STATE_COUNT] = { "starting", "running", "hung",
	"failed", "stopping", "stopped", "waiting" };
static const char *const restart_names[JOB_RESTART_COUNT] = { "never", "on-failure" };
static const char *const want_names[JOB_WANT_COUNT] = { "run", "stop" };
static const char *const replan_names[JOB_REPLAN_COUNT] = { "never", "auto" };

static int
word_parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *
job_state_str(enum job_state s)
{
	return (int)s >= 0 && s < JOB_STATE_COUNT ? state_names[s] : "unknown";
}

const char *
job_restart_str(enum job_restart r)
{
	return (int)r >= 0 && r < JOB_RESTART_COUNT ? restart_names[r] : "unknown";
}

const char *
job_want_str(enum job_want w)
{
	return (int)w >= 0 && w < JOB_WANT_COUNT ? want_names[w] : "unknown";
}

const char *
job_replan_str(enum job_replan r)
{
	return (int)r >= 0 && r < JOB_REPLAN_COUNT ? replan_names[r] : "unknown";
}

int
job_state_parse(const char *s)
{
	return word_parse(state_names, JOB_STATE_COUNT, s);
}

int
job_restart_parse(const char *s)
{
	return word_parse(restart_names, JOB_RESTART_COUNT, s);
}

int
job_want_parse(const char *s)
{
	return word_parse(want_names, JOB_WANT_COUNT, s);
}

int
job_replan_parse(const char *s)
{
	return word_parse(replan_names, JOB_REPLAN_COUNT, s);
}

/* ---- the tables ---- */

static const char *
state_name(int v)
{
	return v >= 0 && v < JOB_STATE_COUNT ? state_names[v] : NULL;
}

static const char *
restart_name(int v)
{
	return v >= 0 && v < JOB_RESTART_COUNT ? restart_names[v] : NULL;
}

static const char *
want_name(int v)
{
	return v >= 0 && v < JOB_WANT_COUNT ? want_names[v] : NULL;
}

static const char *
replan_name(int v)
{
	return v >= 0 && v < JOB_REPLAN_COUNT ? replan_names[v] : NULL;
}

/* what NULL: a refusal lists the names. */
static const struct json_enum state_enum = { JOB_STATE_COUNT, state_name, NULL, -1 };
static const struct json_enum restart_enum = { JOB_RESTART_COUNT, restart_name, NULL, -1 };
static const struct json_enum want_enum = { JOB_WANT_COUNT, want_name, NULL, -1 };
static const struct json_enum replan_enum = { JOB_REPLAN_COUNT, replan_name, NULL, -1 };

/* An integer in lo..hi into the int64_t at dst. */
static int
dec_count(struct json_dec *d, const cJSON *it, const struct json_path *p, double lo,
    double hi, void *dst)
{
	char b[3][32];
	double v;

	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number or null");
	v = it->valuedouble;
	if (!(v >= lo && v <= hi) || v != floor(v))
		return json_dec_fail(d, p, "%s is not an integer in %s..%s",
		    json_dec_num(b[0], sizeof(b[0]), v), json_dec_num(b[1], sizeof(b[1]), lo),
		    json_dec_num(b[2], sizeof(b[2]), hi));
	*(int64_t *)dst = (int64_t)v;
	return 0;
}

/* pid: 0 is null. */
static int
dec_pid(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	return dec_count(d, it, p, 1, PID_MAX, dst);
}

/* pid, placement: 0 is null (what a job read without one encodes to). */
static cJSON *
enc_positive(const void *src)
{
	int64_t v = *(const int64_t *)src;

	return v > 0 ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

static int
dec_placement(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	return dec_count(d, it, p, 1, ID_MAX, dst);
}

/* rss_bytes: -1 (any negative) is null. */
static int
dec_rss(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	return dec_count(d, it, p, 0, (double)REPORT_BYTES_MAX, dst);
}

static cJSON *
enc_rss(const void *src)
{
	int64_t v = *(const int64_t *)src;

	return v >= 0 ? cJSON_CreateNumber((double)v) : cJSON_CreateNull();
}

/* port: 0 (a job read without one) is null, so that what is encoded decodes. */
static int
dec_port(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	int64_t v;

	if (dec_count(d, it, p, 1, 65535, &v) == -1)
		return -1;
	*(int *)dst = (int)v;
	return 0;
}

static cJSON *
enc_port(const void *src)
{
	int v = *(const int *)src;

	return v > 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static const struct json_custom pid_codec = { dec_pid, enc_positive };
static const struct json_custom placement_codec = { dec_placement, enc_positive };
static const struct json_custom port_codec = { dec_port, enc_port };
static const struct json_custom rss_codec = { dec_rss, enc_rss };

#define REQ JF_VALUE
#define OPT 0
#define TIME(t, m) JSON_DBL(t, m, 0, API_TIME_MAX, OPT)

static const struct json_field rank_fields[] = {
	JSON_INT_AT("rank", struct job_rank, rank, 0, JOB_RANKS_MAX - 1),
	JSON_STR(struct job_rank, node, OPT),
	JSON_STR(struct job_rank, host, OPT),
	JSON_CUSTOM(struct job_rank, pid, &pid_codec),
	TIME(struct job_rank, started_at),
	JSON_TRI(struct job_rank, alive),
	JSON_DBL(struct job_rank, cpu_seconds, 0, CPU_MAX, OPT),
	JSON_CUSTOM(struct job_rank, rss_bytes, &rss_codec),
	TIME(struct job_rank, seen_at),
	JSON_STR(struct job_rank, seen_by, OPT),
	JSON_END,
};

static void
rank_init_elem(void *elem)
{
	job_rank_init(elem);
}

static const struct json_field job_fields[] = {
	JSON_I64(struct job, id, 1, ID_MAX, REQ | JF_EXACT),
	JSON_CUSTOM(struct job, placement, &placement_codec),
	JSON_STR(struct job, model, OPT),
	JSON_STR(struct job, cluster, OPT),
	JSON_STR(struct job, backend, OPT),
	JSON_ENUM(struct job, state, &state_enum, REQ),
	JSON_STR(struct job, reason, OPT),
	JSON_ENUM(struct job, want, &want_enum, OPT),
	JSON_INT_AT("generation", struct job, generation, 0, 2147483647.0),
	JSON_INT_AT("restarts", struct job, restarts, 0, 2147483647.0),
	JSON_ENUM(struct job, restart_policy, &restart_enum, OPT),
	JSON_INT_AT("max_restarts", struct job, max_restarts, 0, JOB_MAX_RESTARTS_MAX),
	JSON_ENUM(struct job, replan, &replan_enum, OPT),
	JSON_INT_AT("replans", struct job, replans, 0, 2147483647.0),
	JSON_CUSTOM(struct job, port, &port_codec),
	JSON_STR(struct job, python, OPT),
	JSON_STR(struct job, endpoint, OPT),
	TIME(struct job, created_at),
	TIME(struct job, started_at),
	TIME(struct job, probe_ok_at),
	TIME(struct job, updated_at),
	JSON_ARRAY(struct job, ranks, n_ranks, rank_fields, rank_init_elem, NULL),
	JSON_END,
};

/* python: as a person would type it on a command line, less the quoting. */
static int
check_python(struct json_dec *d, const struct json_path *p, const void *v)
{
	const char *s = v;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return json_dec_fail(d, p, "holds a control character");
	if (s[0] == ' ' || s[n - 1] == ' ')
		return json_dec_fail(d, p, "starts or ends with a space");
	return 0;
}

static const struct json_field request_fields[] = {
	JSON_I64(struct job_request, placement, 1, ID_MAX, REQ | JF_EXACT),
	JSON_INT_AT("port", struct job_request, port, 1, 65535),
	{ .key = "python", .type = JT_STR, .off = offsetof(struct job_request, python),
	  .size = JSON_MSIZE(struct job_request, python), .check = check_python },
	JSON_ENUM(struct job_request, restart, &restart_enum, OPT),
	JSON_INT_AT("max_restarts", struct job_request, max_restarts, 0,
	    JOB_MAX_RESTARTS_MAX),
	JSON_ENUM(struct job_request, replan, &replan_enum, OPT),
	JSON_END,
};

static const char *const request_keys[] = { "placement", "port", "python", "restart",
	"max_restarts", "replan", NULL };

void
job_rank_init(struct job_rank *r)
{
	json_table_null(r, sizeof(*r), rank_fields);
	r->pid = 0;
	r->alive = -1;
	r->rss_bytes = -1;
	r->start_sent_at = NAN;
}

void
job_init(struct job *j)
{
	json_table_null(j, sizeof(*j), job_fields);
	j->id = 0;
	j->placement = 0;
	for (int i = 0; i < JOB_RANKS_MAX; i++)
		job_rank_init(&j->ranks[i]);
}

/* ---- encoding ---- */

/* Prints root without indentation and deletes it; root may be NULL. */
static char *
print(cJSON *root, int ok)
{
	char *s = root != NULL && ok ? cJSON_PrintUnformatted(root) : NULL;

	cJSON_Delete(root);
	return s;
}

char *
job_encode(const struct job *j)
{
	return print(json_table_object(j, job_fields), 1);
}

char *
job_list_encode(const struct job *jobs, int n)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	int rc;

	if (root == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	rc = json_enc_attach(root, "jobs", a);
	for (int i = 0; rc == 0 && i < n; i++)
		rc = json_enc_attach(a, NULL, json_table_object(&jobs[i], job_fields));
	return print(root, rc == 0);
}

/* What is not given is null: the decoder's default. */
char *
job_request_encode(const struct job_request *r)
{
	cJSON *root = cJSON_CreateObject();
	int rc;

	if (root == NULL)
		return NULL;
	rc = json_enc_attach(root, "placement", cJSON_CreateNumber((double)r->placement));
	if (rc == 0)
		rc = json_enc_attach(root, "port", r->port > 0 ?
		    cJSON_CreateNumber(r->port) : cJSON_CreateNull());
	if (rc == 0)
		rc = json_enc_attach(root, "python", json_enc_str(r->python, sizeof(r->python)));
	if (rc == 0)
		rc = json_enc_attach(root, "restart", json_table_enum(&restart_enum,
		    (int)r->restart));
	if (rc == 0)
		rc = json_enc_attach(root, "max_restarts", r->max_restarts >= 0 ?
		    cJSON_CreateNumber(r->max_restarts) : cJSON_CreateNull());
	if (rc == 0)
		rc = json_enc_attach(root, "replan", json_table_enum(&replan_enum,
		    (int)r->replan));
	return print(root, rc == 0);
}

/* ---- decoding ---- */

static int
dec_job(struct json_dec *d, const cJSON *obj, const struct json_path *up, struct job *out)
{
	job_init(out);
	return json_table_decode(d, obj, up, out, job_fields);
}

int
job_decode(const char *json, size_t len, struct job *out, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	job_init(out);
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0)
		rc = dec_job(&d, root, NULL, out);
	cJSON_Delete(root);
	return rc;
}

/* The array "jobs" of root into a malloc'd *out. */
static int
dec_jobs(struct json_dec *d, const cJSON *root, struct job **out, int *n)
{
	struct json_path p = { NULL, "jobs", 0 }, ep = { &p, NULL, 0 };
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "jobs"), *e;
	struct job *arr;

	if (a == NULL)
		return json_dec_fail(d, &p, "missing");
	if (!cJSON_IsArray(a))
		return json_dec_fail(d, &p, "must be an array of jobs");
	arr = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*arr));
	if (arr == NULL)
		return json_dec_fail(d, &p, "out of memory");
	cJSON_ArrayForEach(e, a) {
		int rc;

		if (!cJSON_IsObject(e))
			rc = json_dec_fail(d, &ep, "must be an object");
		else
			rc = dec_job(d, e, &ep, &arr[ep.idx]);
		if (rc == -1) {
			free(arr);
			return -1;
		}
		ep.idx++;
	}
	*out = arr;
	*n = ep.idx;
	return 0;
}

int
job_list_decode(const char *json, size_t len, struct job **out, int *n, char *err,
    size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	*out = NULL;
	*n = 0;
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0)
		rc = dec_jobs(&d, root, out, n);
	cJSON_Delete(root);
	return rc;
}

int
job_request_decode(const char *json, size_t len, struct job_request *out, char *err,
    size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	memset(out, 0, sizeof(*out));
	out->port = JOB_DEFAULT_PORT;
	snprintf(out->python, sizeof(out->python), "%s", JOB_DEFAULT_PYTHON);
	out->restart = JOB_RESTART_ON_FAILURE;
	out->max_restarts = JOB_DEFAULT_MAX_RESTARTS;
	out->replan = JOB_REPLAN_NEVER;
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "a job", request_keys) == 0)
		rc = json_table_decode(&d, root, NULL, out, request_fields);
	cJSON_Delete(root);
	return rc;
}
