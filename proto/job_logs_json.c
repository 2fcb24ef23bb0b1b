/*
 * The logs answer of a job (job_api.h), as tbctl reads it:
 *   {"job": ID, "ranks": [{"rank": R, "node": "a2", "lines": ["...", ...]}]}
 * An answer: a known key of the wrong type is refused, an unknown key is
 * skipped.
 */
#include "job_api.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "json_dec.h"

void
job_logs_free(struct job_log *l, int n)
{
	for (int i = 0; l != NULL && i < n; i++) {
		for (int k = 0; k < l[i].n_lines; k++)
			free(l[i].lines[k]);
		free(l[i].lines);
	}
	free(l);
}

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

/* Rank object o into l. */
static int
dec_rank(struct json_dec *d, const cJSON *o, const struct json_path *up, struct job_log *l)
{
	struct json_path pr = { up, "rank", 0 }, pn = { up, "node", 0 };
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rank");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "node");

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
