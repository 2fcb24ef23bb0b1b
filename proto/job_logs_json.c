/*
 * The logs answer of a job (job_api.h): the controller writes it, tbctl
 * reads it.
 *   {"job": ID, "state": "running", "reason": null, "ended": false,
 *    "ranks": [{"rank": R, "node": "a2", "lines": ["...", ...], "start": 0,
 *               "end": 812, "size": 830, "more": false, "reset": null,
 *               "partial": "loading 40%", "error": null}]}
 * An answer: a known key of the wrong type is refused, an unknown key is
 * skipped; the offsets and the job's fields may be absent (an older
 * controller): -1, not said.  And the from query, "R:OFFSET,R:OFFSET".
 */
#include "job_api.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "json_dec.h"

/* The largest offset a log may have: a double holds it exactly. */
#define OFFSET_MAX 9007199254740991.0

void
job_logs_free(struct job_log *l, int n)
{
	for (int i = 0; l != NULL && i < n; i++) {
		for (int k = 0; k < l[i].n_lines; k++)
			free(l[i].lines[k]);
		free(l[i].lines);
		free(l[i].partial);
	}
	free(l);
}

/* ---- decoding ---- */

/* The "lines" array of rank object o into l. */
static int
dec_lines(struct json_dec *d, const cJSON *o, const struct json_path *up, struct job_log *l)
{
	struct json_path p = { up, "lines", 0 }, ep = { &p, NULL, 0 };
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "lines"), *e;

	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return json_dec_fail(d, &p, "must be an array of strings");
	if ((l->lines = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(char *))) == NULL)
		return json_dec_fail(d, &p, "out of memory");
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e))
			return json_dec_fail(d, &ep, "must be a string");
		if ((l->lines[l->n_lines] = strdup(e->valuestring)) == NULL)
			return json_dec_fail(d, &ep, "out of memory");
		l->n_lines++;
		ep.idx++;
	}
	return 0;
}

/* Offset key of o into *v (-1 when absent or null). */
static int
dec_offset(struct json_dec *d, const cJSON *o, const struct json_path *up, const char *key,
    int64_t *v)
{
	struct json_path p = { up, key, 0 };
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	*v = -1;
	if (x == NULL || cJSON_IsNull(x))
		return 0;
	if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > OFFSET_MAX ||
	    x->valuedouble != (double)(int64_t)x->valuedouble)
		return json_dec_fail(d, &p, "must be a byte offset or null");
	*v = (int64_t)x->valuedouble;
	return 0;
}

/* String key of o into dst (size), "" when absent or null. */
static int
dec_text(struct json_dec *d, const cJSON *o, const struct json_path *up, const char *key,
    char *dst, size_t size)
{
	struct json_path p = { up, key, 0 };
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	dst[0] = '\0';
	if (x == NULL || cJSON_IsNull(x))
		return 0;
	if (!cJSON_IsString(x))
		return json_dec_fail(d, &p, "must be a string or null");
	/* cut rather than refuse: a message for people */
	snprintf(dst, size, "%s", x->valuestring);
	return 0;
}

/* Boolean key of o into *v (0 when absent or null). */
static int
dec_bool(struct json_dec *d, const cJSON *o, const struct json_path *up, const char *key, int *v)
{
	struct json_path p = { up, key, 0 };
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	*v = 0;
	if (x == NULL || cJSON_IsNull(x))
		return 0;
	if (!cJSON_IsBool(x))
		return json_dec_fail(d, &p, "must be true or false");
	*v = cJSON_IsTrue(x);
	return 0;
}

/* What the answer says besides the lines: offsets, cut, reset, partial, error. */
static int
dec_cursor(struct json_dec *d, const cJSON *o, const struct json_path *up, struct job_log *l)
{
	struct json_path pp = { up, "partial", 0 }, pr = { up, "reset", 0 };
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "partial");

	if (dec_offset(d, o, up, "start", &l->start) == -1 ||
	    dec_offset(d, o, up, "end", &l->end) == -1 ||
	    dec_offset(d, o, up, "size", &l->size) == -1 ||
	    dec_bool(d, o, up, "more", &l->more) == -1 ||
	    dec_text(d, o, up, "reset", l->reset, sizeof(l->reset)) == -1 ||
	    dec_text(d, o, up, "error", l->error, sizeof(l->error)) == -1)
		return -1;
	if (l->reset[0] && strcmp(l->reset, "shrank") != 0 && strcmp(l->reset, "replaced") != 0)
		return json_dec_fail(d, &pr, "must be \"shrank\", \"replaced\" or null");
	if (x != NULL && !cJSON_IsNull(x) && !cJSON_IsString(x))
		return json_dec_fail(d, &pp, "must be a string or null");
	if (cJSON_IsString(x) && (l->partial = strdup(x->valuestring)) == NULL)
		return json_dec_fail(d, &pp, "out of memory");
	return 0;
}

/* Rank object o into l. */
static int
dec_rank(struct json_dec *d, const cJSON *o, const struct json_path *up, struct job_log *l)
{
	struct json_path pr = { up, "rank", 0 }, pn = { up, "node", 0 };
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rank");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "node");

	l->start = l->end = l->size = -1;
	if (!cJSON_IsObject(o))
		return json_dec_fail(d, up, "must be an object");
	if (!cJSON_IsNumber(r) || r->valuedouble < 0 || r->valuedouble >= JOB_RANKS_MAX ||
	    r->valuedouble != (int)r->valuedouble)
		return json_dec_fail(d, &pr, "must be a rank from 0 to %d", JOB_RANKS_MAX - 1);
	l->rank = (int)r->valuedouble;
	if (n != NULL && !cJSON_IsNull(n) && !cJSON_IsString(n))
		return json_dec_fail(d, &pn, "must be a string");
	if (cJSON_IsString(n) && json_dec_str(d, n, &pn, l->node, sizeof(l->node), 1) == -1)
		return -1;
	if (dec_cursor(d, o, up, l) == -1)
		return -1;
	return dec_lines(d, o, up, l);
}

int
job_logs_decode(const char *json, size_t len, struct job_log **out, int *n, char *err,
    size_t errlen)
{
	struct json_path p = { NULL, "ranks", 0 }, ep = { &p, NULL, 0 };
	struct json_dec d;
	const cJSON *a, *e;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	*out = NULL;
	*n = 0;
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == -1)
		goto done;
	a = cJSON_GetObjectItemCaseSensitive(root, "ranks");
	if (!cJSON_IsArray(a)) {
		json_dec_fail(&d, &p, a == NULL ? "missing" : "must be an array of ranks");
		goto done;
	}
	if ((*out = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(**out))) == NULL) {
		json_dec_fail(&d, &p, "out of memory");
		goto done;
	}
	rc = 0;
	cJSON_ArrayForEach(e, a) {
		(*n)++;
		if ((rc = dec_rank(&d, e, &ep, &(*out)[ep.idx])) == -1)
			break;
		ep.idx++;
	}
	if (rc == -1) {
		job_logs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
done:
	cJSON_Delete(root);
	return rc;
}

int
job_logs_state_decode(const char *json, size_t len, struct job_logs_state *st, char *err,
    size_t errlen)
{
	struct json_path pj = { NULL, "job", 0 }, ps = { NULL, "state", 0 };
	struct json_dec d;
	const cJSON *j, *s;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	memset(st, 0, sizeof(*st));
	st->state = -1;
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == -1)
		goto done;
	j = cJSON_GetObjectItemCaseSensitive(root, "job");
	s = cJSON_GetObjectItemCaseSensitive(root, "state");
	if (cJSON_IsNull(j))
		j = NULL;
	if (j != NULL && (!cJSON_IsNumber(j) || j->valuedouble < 1 || j->valuedouble > OFFSET_MAX ||
	    j->valuedouble != (double)(int64_t)j->valuedouble)) {
		json_dec_fail(&d, &pj, "must be a job id");
		goto done;
	}
	st->job = j != NULL ? (int64_t)j->valuedouble : 0;
	if (s != NULL && !cJSON_IsNull(s) && (!cJSON_IsString(s) ||
	    (st->state = job_state_parse(s->valuestring)) < 0)) {
		json_dec_fail(&d, &ps, "must be a job state");
		goto done;
	}
	if (dec_text(&d, root, NULL, "reason", st->reason, sizeof(st->reason)) == -1 ||
	    dec_bool(&d, root, NULL, "ended", &st->ended) == -1)
		goto done;
	rc = 0;
done:
	cJSON_Delete(root);
	return rc;
}

/* ---- encoding ---- */

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 when it is not one. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t k;
	unsigned int c;

	if (s[0] < 0x80)
		return s[0] != 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* no overlong form, no surrogate, nothing past U+10FFFF */
	if ((k == 3 && c < 0x800) || (k == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return k;
}

/* s as a JSON string: what is not UTF-8 becomes '?' (a strict reader refuses it). */
static cJSON *
clean_string(const char *s)
{
	size_t n = strlen(s), i = 0, o = 0;
	char *buf = malloc(n + 1);
	cJSON *x;

	if (buf == NULL)
		return NULL;
	while (i < n) {
		size_t k = utf8_len((const unsigned char *)s + i, n - i);
		if (k == 0) {
			buf[o++] = '?';
			i++;
			continue;
		}
		memcpy(buf + o, s + i, k);
		o += k;
		i += k;
	}
	buf[o] = '\0';
	x = cJSON_CreateString(buf);
	free(buf);
	return x;
}

/* s, or null when it is NULL or "" (an unknown value is null, never ""). */
static cJSON *
text_or_null(const char *s)
{
	return s == NULL || s[0] == '\0' ? cJSON_CreateNull() : clean_string(s);
}

static cJSON *
offset_or_null(int64_t v)
{
	return v < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

/* One rank's object; NULL when out of memory. */
static cJSON *
enc_rank(const struct job_log *l)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_CreateArray();
	int bad = o == NULL || a == NULL;

	if (!bad) {
		cJSON_AddItemToObject(o, "rank", cJSON_CreateNumber(l->rank));
		cJSON_AddItemToObject(o, "node", text_or_null(l->node));
		cJSON_AddItemToObject(o, "lines", a);
		a = NULL;
	}
	for (int k = 0; !bad && k < l->n_lines; k++) {
		cJSON *s = clean_string(l->lines[k] ? l->lines[k] : "");
		bad = s == NULL || !cJSON_AddItemToArray(cJSON_GetObjectItem(o, "lines"), s);
	}
	if (!bad) {
		cJSON_AddItemToObject(o, "start", offset_or_null(l->start));
		cJSON_AddItemToObject(o, "end", offset_or_null(l->end));
		cJSON_AddItemToObject(o, "size", offset_or_null(l->size));
		cJSON_AddItemToObject(o, "more", cJSON_CreateBool(l->more));
		cJSON_AddItemToObject(o, "reset", text_or_null(l->reset));
		cJSON_AddItemToObject(o, "partial", text_or_null(l->partial));
		cJSON_AddItemToObject(o, "error", text_or_null(l->error));
	}
	cJSON_Delete(a);
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

char *
job_logs_encode(const struct job_logs_state *st, const struct job_log *l, int n)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	char *out = NULL;
	int bad = root == NULL || a == NULL;

	if (!bad) {
		cJSON_AddItemToObject(root, "job", st->job > 0 ? cJSON_CreateNumber((double)st->job) :
		    cJSON_CreateNull());
		cJSON_AddItemToObject(root, "state", st->state >= 0 && st->state < JOB_STATE_COUNT ?
		    cJSON_CreateString(job_state_str((enum job_state)st->state)) :
		    cJSON_CreateNull());
		cJSON_AddItemToObject(root, "reason", text_or_null(st->reason));
		cJSON_AddItemToObject(root, "ended", cJSON_CreateBool(st->ended));
		cJSON_AddItemToObject(root, "ranks", a);
		a = NULL;
	}
	for (int i = 0; !bad && i < n; i++) {
		cJSON *o = enc_rank(&l[i]);
		bad = o == NULL || !cJSON_AddItemToArray(cJSON_GetObjectItem(root, "ranks"), o);
	}
	if (!bad)
		out = cJSON_PrintUnformatted(root);
	cJSON_Delete(a);
	cJSON_Delete(root);
	return out;
}

/* ---- the from query ---- */

/* A decimal whole number at *p up to hi, moving *p past it: 0, or -1. */
static int
read_whole(const char **p, int64_t hi, int64_t *v)
{
	const char *s = *p;
	int64_t x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (hi - (*s - '0')) / 10)
			return -1;
		x = x * 10 + (*s - '0');
	}
	*p = s;
	*v = x;
	return 0;
}

int
job_logs_from_parse(const char *s, int64_t *from, char *err, size_t errlen)
{
	const char *p = s;

	for (int r = 0; r < JOB_RANKS_MAX; r++)
		from[r] = -1;
	for (;;) {
		int64_t r, off;
		if (read_whole(&p, JOB_RANKS_MAX - 1, &r) == -1 || *p++ != ':' ||
		    read_whole(&p, (int64_t)OFFSET_MAX, &off) == -1) {
			snprintf(err, errlen, "from: \"%.64s\" is not RANK:OFFSET[,RANK:OFFSET...] "
			    "(ranks 0 to %d, byte offsets)", s, JOB_RANKS_MAX - 1);
			return -1;
		}
		if (from[r] != -1) {
			snprintf(err, errlen, "from: rank %d given twice", (int)r);
			return -1;
		}
		from[r] = off;
		if (*p == '\0')
			return 0;
		if (*p++ != ',') {
			snprintf(err, errlen, "from: \"%.64s\" is not RANK:OFFSET[,RANK:OFFSET...] "
			    "(ranks 0 to %d, byte offsets)", s, JOB_RANKS_MAX - 1);
			return -1;
		}
	}
}

int
job_logs_from_format(const int64_t *from, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return -1;
	buf[0] = '\0';
	for (int r = 0; r < JOB_RANKS_MAX; r++) {
		int n;
		if (from[r] < 0)
			continue;
		n = snprintf(buf + len, size - len, "%s%d:%" PRId64, len ? "," : "", r, from[r]);
		if (n < 0 || (size_t)n >= size - len)
			return -1;
		len += (size_t)n;
	}
	return 0;
}
