/*
 * prov_json: the provisioning API's JSON (prov_api.h), through cJSON.
 * Each object is a table of its keys (string, integer, boolean, time);
 * "" and NAN encode as null and decode from it.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_dec.h"
#include "prov_api.h"

enum pk { PK_STR, PK_INT, PK_BOOL, PK_TIME, PK_I64 };

struct pf {
	const char *key;
	enum pk kind;
	size_t off, size;   /* size: PK_STR's buffer */
	double lo, hi;      /* PK_INT */
};

#define S(st, k) { #k, PK_STR, offsetof(struct st, k), sizeof(((struct st *)0)->k), 0, 0 }
#define I(st, k, l, h) { #k, PK_INT, offsetof(struct st, k), 0, l, h }
#define B(st, k) { #k, PK_BOOL, offsetof(struct st, k), 0, 0, 0 }

static const struct pf request_fields[] = {
	S(prov_api_request, host), I(prov_api_request, port, 0, 65535),
	S(prov_api_request, user), S(prov_api_request, key_file),
	S(prov_api_request, cluster), S(prov_api_request, node),
	S(prov_api_request, fingerprint), B(prov_api_request, accept_new),
	B(prov_api_request, dry_run), S(prov_api_request, agent_binary),
	I(prov_api_request, wired_limit_mb, -1, PROV_API_WIRED_MAX), S(prov_api_request, ip_base),
	{ NULL, 0, 0, 0, 0, 0 },
};

static const struct pf deprov_fields[] = {
	B(prov_api_deprov, network), B(prov_api_deprov, dry_run), { NULL, 0, 0, 0, 0, 0 },
};

static const struct pf line_fields[] = {
	S(prov_api_line, what), S(prov_api_line, verdict), S(prov_api_line, text),
	{ NULL, 0, 0, 0, 0, 0 },
};

static const struct pf step_fields[] = {
	S(prov_api_step, step), S(prov_api_step, title), S(prov_api_step, outcome),
	S(prov_api_step, command), S(prov_api_step, detail), { NULL, 0, 0, 0, 0, 0 },
};

static const struct pf status_fields[] = {
	{ "id", PK_I64, offsetof(struct prov_api_status, id), 0, 0, 0 },
	S(prov_api_status, kind), S(prov_api_status, host), I(prov_api_status, port, 0, 65535),
	S(prov_api_status, user), S(prov_api_status, key_file), S(prov_api_status, node),
	S(prov_api_status, cluster), S(prov_api_status, state), B(prov_api_status, dry_run),
	S(prov_api_status, fingerprint), S(prov_api_status, failed_step),
	S(prov_api_status, reason), S(prov_api_status, manual),
	{ "started_at", PK_TIME, offsetof(struct prov_api_status, started_at), 0, 0, 0 },
	{ "finished_at", PK_TIME, offsetof(struct prov_api_status, finished_at), 0, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0 },
};

/* wired_limit_mb -1 is "not given": null. */
static cJSON *
make_field(const void *base, const struct pf *f)
{
	const char *p = (const char *)base + f->off;
	double d;

	switch (f->kind) {
	case PK_STR:
		return p[0] == '\0' ? cJSON_CreateNull() : cJSON_CreateString(p);
	case PK_INT:
		return *(const int *)p < 0 ? cJSON_CreateNull() : cJSON_CreateNumber(*(const int *)p);
	case PK_I64:
		return cJSON_CreateNumber((double)*(const int64_t *)p);
	case PK_BOOL:
		return cJSON_CreateBool(*(const int *)p);
	case PK_TIME:
		d = *(const double *)p;
		return isnan(d) ? cJSON_CreateNull() : cJSON_CreateNumber(d);
	}
	return NULL;
}

static cJSON *
make_object(const void *base, const struct pf *f)
{
	cJSON *o = cJSON_CreateObject();

	for (; o != NULL && f->key != NULL; f++) {
		cJSON *it = make_field(base, f);

		if (it == NULL || !cJSON_AddItemToObject(o, f->key, it)) {
			cJSON_Delete(it);
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

static char *
print(cJSON *root)
{
	char *s = root != NULL ? cJSON_PrintUnformatted(root) : NULL;

	cJSON_Delete(root);
	return s;
}

/* A string of the API: no control characters. */
static int
str_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int
dec_field(const cJSON *it, void *base, const struct pf *f, const char *where, char *err,
    size_t errlen)
{
	char *p = (char *)base + f->off;

	if (it == NULL || cJSON_IsNull(it))
		return 0;   /* the default set by the caller */
	switch (f->kind) {
	case PK_STR:
		if (!cJSON_IsString(it) || strlen(it->valuestring) >= f->size ||
		    !str_ok(it->valuestring))
			break;
		snprintf(p, f->size, "%s", it->valuestring);
		return 0;
	case PK_BOOL:
		if (!cJSON_IsBool(it))
			break;
		*(int *)p = cJSON_IsTrue(it);
		return 0;
	case PK_INT:
		if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
		    it->valuedouble < f->lo || it->valuedouble > f->hi)
			break;
		*(int *)p = (int)it->valuedouble;
		return 0;
	case PK_I64:
	case PK_TIME:
		if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1e11)
			break;
		if (f->kind == PK_I64)
			*(int64_t *)p = (int64_t)it->valuedouble;
		else
			*(double *)p = it->valuedouble;
		return 0;
	}
	if (f->kind == PK_STR)
		snprintf(err, errlen, "%s%s: must be a string of at most %zu characters, without "
		    "control characters", where, f->key, f->size - 1);
	else if (f->kind == PK_INT)
		snprintf(err, errlen, "%s%s: must be a whole number from %.0f to %.0f", where, f->key,
		    f->lo < 0 ? 0 : f->lo, f->hi);
	else
		snprintf(err, errlen, "%s%s: has the wrong type", where, f->key);
	return -1;
}

/* The keys of obj into base; an unknown key is an error when strict. */
static int
dec_object(const cJSON *obj, void *base, const struct pf *fields, int strict,
    const char *where, char *err, size_t errlen)
{
	const cJSON *it;

	if (!cJSON_IsObject(obj)) {
		snprintf(err, errlen, "%smust be a JSON object", where);
		return -1;
	}
	cJSON_ArrayForEach(it, obj) {
		const struct pf *f = fields;

		while (f->key != NULL && strcmp(f->key, it->string) != 0)
			f++;
		if (f->key == NULL) {
			if (!strict)
				continue;
			snprintf(err, errlen, "%s: unknown key", it->string);
			return -1;
		}
		if (dec_field(it, base, f, where, err, errlen) != 0)
			return -1;
	}
	return 0;
}

static cJSON *
parse(const char *json, size_t len, char *err, size_t errlen)
{
	return json_dec_object(json, len, JSON_DEC_MAX, err, errlen);
}

int
prov_api_fp_valid(const char *s)
{
	if (strncmp(s, "SHA256:", 7) != 0 || strlen(s + 7) != 43)
		return 0;
	for (s += 7; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '+' && *s != '/')
			return 0;
	return 1;
}

void
prov_api_request_init(struct prov_api_request *r)
{
	memset(r, 0, sizeof(*r));
	r->wired_limit_mb = -1;
}

/* A host: a DNS name or an address, [A-Za-z0-9.:-], not starting with '-'. */
static int
host_ok(const char *s)
{
	if (s[0] == '\0' || s[0] == '-')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr(".:-_[]", *s) == NULL)
			return 0;
	return 1;
}

static int
user_ok(const char *s)
{
	if (s[0] == '-')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && strchr("._-", *s) == NULL)
			return 0;
	return 1;
}

/* "A.B.0.0", A 1 to 223. */
static int
ip_base_ok(const char *s)
{
	int a, b, c, d, n = 0;

	return sscanf(s, "%3d.%3d.%3d.%3d%n", &a, &b, &c, &d, &n) == 4 && s[n] == '\0' &&
	    a >= 1 && a <= 223 && b >= 0 && b <= 255 && c == 0 && d == 0;
}

static int
check_request(const struct prov_api_request *r, char *err, size_t errlen)
{
	const char *bad = NULL;

	if (!host_ok(r->host))
		bad = "host: must be a host name or an address";
	else if (!user_ok(r->user))
		bad = "user: must be a user name ([A-Za-z0-9._-])";
	else if (r->key_file[0] != '\0' && r->key_file[0] != '/')
		bad = "key_file: must be an absolute path";
	else if (r->agent_binary[0] != '\0' && r->agent_binary[0] != '/')
		bad = "agent_binary: must be an absolute path";
	else if (r->cluster[0] != '\0' && !api_name_valid(r->cluster))
		bad = "cluster: not a valid name";
	else if (r->node[0] != '\0' && !api_name_valid(r->node))
		bad = "node: not a valid name";
	else if (r->fingerprint[0] != '\0' && !prov_api_fp_valid(r->fingerprint))
		bad = "fingerprint: must be SHA256: and 43 base64 characters, as ssh-keygen -l prints";
	else if (r->fingerprint[0] != '\0' && r->accept_new)
		bad = "fingerprint and accept_new: give one, not both";
	else if (r->ip_base[0] != '\0' && !ip_base_ok(r->ip_base))
		bad = "ip_base: must be A.B.0.0 (the /16 the cables' /30s come from)";
	if (bad == NULL)
		return 0;
	snprintf(err, errlen, "%s", bad);
	return -1;
}

char *
prov_json_request(const struct prov_api_request *r)
{
	return print(make_object(r, request_fields));
}

int
prov_json_decode_request(const char *json, size_t len, struct prov_api_request *r, char *err,
    size_t errlen)
{
	cJSON *root = parse(json, len, err, errlen);
	int rc = -1;

	prov_api_request_init(r);
	if (root != NULL && dec_object(root, r, request_fields, 1, "", err, errlen) == 0)
		rc = check_request(r, err, errlen);
	cJSON_Delete(root);
	return rc;
}

char *
prov_json_deprov(const struct prov_api_deprov *d)
{
	return print(make_object(d, deprov_fields));
}

int
prov_json_decode_deprov(const char *json, size_t len, struct prov_api_deprov *d, char *err,
    size_t errlen)
{
	cJSON *root;
	int rc;

	memset(d, 0, sizeof(*d));
	if (len == 0)
		return 0;   /* no body: the defaults */
	if ((root = parse(json, len, err, errlen)) == NULL)
		return -1;
	rc = dec_object(root, d, deprov_fields, 1, "", err, errlen);
	cJSON_Delete(root);
	return rc;
}

/* The array key of o from n elements of stride bytes at base. */
static int
add_array(cJSON *o, const char *key, const void *base, size_t stride, int n,
    const struct pf *f)
{
	cJSON *a = cJSON_CreateArray();

	if (a == NULL || !cJSON_AddItemToObject(o, key, a)) {
		cJSON_Delete(a);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		cJSON *e = make_object((const char *)base + (size_t)i * stride, f);

		if (e == NULL || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			return -1;
		}
	}
	return 0;
}

char *
prov_json_status(const struct prov_api_status *s)
{
	cJSON *o = make_object(s, status_fields);

	if (o == NULL || add_array(o, "preflight", s->preflight, sizeof(s->preflight[0]),
	    s->n_preflight, line_fields) != 0 || add_array(o, "steps", s->steps,
	    sizeof(s->steps[0]), s->n_steps, step_fields) != 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return print(o);
}

static int
dec_array(const cJSON *root, const char *key, void *base, size_t stride, int max, int *n,
    const struct pf *f, char *err, size_t errlen)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key), *e;
	char where[48];

	*n = 0;
	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a)) {
		snprintf(err, errlen, "%s: must be an array", key);
		return -1;
	}
	cJSON_ArrayForEach(e, a) {
		if (*n == max) {
			snprintf(err, errlen, "%s: more than %d", key, max);
			return -1;
		}
		snprintf(where, sizeof(where), "%s[%d].", key, *n);
		if (dec_object(e, (char *)base + (size_t)*n * stride, f, 0, where, err, errlen) != 0)
			return -1;
		(*n)++;
	}
	return 0;
}

int
prov_json_decode_status(const char *json, size_t len, struct prov_api_status *s, char *err,
    size_t errlen)
{
	cJSON *root = parse(json, len, err, errlen);
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->started_at = s->finished_at = NAN;
	if (root != NULL && dec_object(root, s, status_fields, 0, "", err, errlen) == 0 &&
	    dec_array(root, "preflight", s->preflight, sizeof(s->preflight[0]),
	    PROV_API_LINES_MAX, &s->n_preflight, line_fields, err, errlen) == 0)
		rc = dec_array(root, "steps", s->steps, sizeof(s->steps[0]), PROV_API_STEPS_MAX,
		    &s->n_steps, step_fields, err, errlen);
	if (rc == 0 && s->state[0] == '\0') {
		snprintf(err, errlen, "state: missing");
		rc = -1;
	}
	cJSON_Delete(root);
	return rc;
}
