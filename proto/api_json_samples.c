/*
 * A node's samples (api_samples.h) as JSON, and back for tbctl.  Nulls as
 * in the report: NAN, REPORT_NULL_I64 and "" are JSON null.
 */
#include "api_samples.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "json_dec.h"

static cJSON *
num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *
i64_or_null(int64_t v)
{
	return v == REPORT_NULL_I64 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
}

static cJSON *
sample_object(const struct api_sample *s)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return NULL;
	cJSON_AddItemToObject(o, "t", cJSON_CreateNumber(s->t));
	cJSON_AddItemToObject(o, "memory_used_bytes", i64_or_null(s->memory_used_bytes));
	cJSON_AddItemToObject(o, "memory_total_bytes", i64_or_null(s->memory_total_bytes));
	cJSON_AddItemToObject(o, "power_watts", num_or_null(s->power_watts));
	cJSON_AddItemToObject(o, "link_speeds", s->link_speeds[0] ?
	    cJSON_CreateString(s->link_speeds) : cJSON_CreateNull());
	if (cJSON_GetArraySize(o) != 5) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

char *
api_json_samples(const char *node, double since, double step, const struct api_sample *s,
    int n)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	char *out = NULL;

	if (root == NULL || arr == NULL) {
		cJSON_Delete(root);
		cJSON_Delete(arr);
		return NULL;
	}
	cJSON_AddItemToObject(root, "node", cJSON_CreateString(node));
	cJSON_AddItemToObject(root, "since", cJSON_CreateNumber(since));
	cJSON_AddItemToObject(root, "step", cJSON_CreateNumber(step));
	cJSON_AddItemToObject(root, "samples", arr);
	for (int i = 0; i < n; i++) {
		cJSON *o = sample_object(&s[i]);
		if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			goto done;
		}
	}
	if (cJSON_GetArraySize(root) == 4)
		out = cJSON_PrintUnformatted(root);
done:
	cJSON_Delete(root);
	return out;
}

static double
get_num(const cJSON *o, const char *key, double null_value)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : null_value;
}

/*
 * A byte count of a sample into *out: REPORT_NULL_I64 when absent or null,
 * -1 when it is not a whole number in 0..REPORT_BYTES_MAX (a double beyond
 * int64_t's range cannot be converted at all).
 */
static int
get_bytes(const cJSON *o, const char *key, int64_t *out, char *err, size_t errlen)
{
	double v = get_num(o, key, NAN);

	*out = REPORT_NULL_I64;
	if (isnan(v))
		return 0;
	if (v < 0 || v > (double)REPORT_BYTES_MAX || v != floor(v)) {
		snprintf(err, errlen, "a sample's \"%s\" is not a byte count (%g)", key, v);
		return -1;
	}
	*out = (int64_t)v;
	return 0;
}

static int
decode_sample(const cJSON *o, struct api_sample *s, char *err, size_t errlen)
{
	const cJSON *ls = cJSON_GetObjectItemCaseSensitive(o, "link_speeds");

	if (!cJSON_IsObject(o) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "t"))) {
		snprintf(err, errlen, "a sample is not an object with a time \"t\"");
		return -1;
	}
	s->t = get_num(o, "t", NAN);
	if (get_bytes(o, "memory_used_bytes", &s->memory_used_bytes, err, errlen) == -1 ||
	    get_bytes(o, "memory_total_bytes", &s->memory_total_bytes, err, errlen) == -1)
		return -1;
	s->power_watts = get_num(o, "power_watts", NAN);
	s->link_speeds[0] = '\0';
	if (cJSON_IsString(ls))
		snprintf(s->link_speeds, sizeof(s->link_speeds), "%s", ls->valuestring);
	return 0;
}

int
api_json_decode_samples(const char *json, size_t len, char *node, struct api_sample **out,
    int *n, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root = NULL;
	const cJSON *arr, *nm;
	int count, rc = -1;

	*out = NULL;
	*n = 0;
	json_dec_init(&d, err, errlen);
	if (json_dec_parse(&d, json, len, JSON_DEC_MAX, 1, &root) == -1)
		goto done;
	arr = cJSON_GetObjectItemCaseSensitive(root, "samples");
	nm = cJSON_GetObjectItemCaseSensitive(root, "node");
	if (!cJSON_IsArray(arr) || !cJSON_IsString(nm)) {
		snprintf(err, errlen, "not a node's samples: no \"node\" and \"samples\"");
		goto done;
	}
	snprintf(node, API_NAME_MAX + 1, "%s", nm->valuestring);
	count = cJSON_GetArraySize(arr);
	if (count > 0 && (*out = calloc((size_t)count, sizeof(**out))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	for (int i = 0; i < count; i++)
		if (decode_sample(cJSON_GetArrayItem(arr, i), &(*out)[i], err, errlen) == -1)
			goto done;
	*n = count;
	rc = 0;
done:
	if (rc == -1) {
		free(*out);
		*out = NULL;
	}
	cJSON_Delete(root);
	return rc;
}
