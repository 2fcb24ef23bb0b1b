/* See json_dec.h. */
#include "json_dec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static size_t
path_fmt(const struct json_path *p, char *buf, size_t size)
{
	size_t n;
	int w;

	if (p == NULL)
		return 0;
	n = path_fmt(p->up, buf, size);
	if (n >= size)
		return n;
	if (p->key != NULL)
		w = snprintf(buf + n, size - n, "%s%s", n > 0 ? "." : "", p->key);
	else
		w = snprintf(buf + n, size - n, "[%d]", p->idx);
	return w < 0 ? n : n + (size_t)w;
}

void
json_dec_init(struct json_dec *d, char *err, size_t errlen)
{
	d->err = err;
	d->errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
}

int
json_dec_fail(struct json_dec *d, const struct json_path *p, const char *fmt, ...)
{
	char where[256];
	va_list ap;
	int n;

	if (d->err == NULL || d->errlen == 0)
		return -1;
	where[0] = '\0';
	path_fmt(p, where, sizeof(where));
	n = snprintf(d->err, d->errlen, "%s%s", where, where[0] ? ": " : "");
	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *
json_dec_num(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%g", v);
	return buf;
}

/* True when [p, end) holds only JSON white space up to its end or a NUL. */
static int
only_space(const char *p, const char *end)
{
	for (; p < end && *p != '\0'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
	return 1;
}

int
json_dec_parse(struct json_dec *d, const char *json, size_t len, size_t max, int object,
    cJSON **root)
{
	const char *end = NULL;

	*root = NULL;
	if (json == NULL || len == 0)
		return json_dec_fail(d, NULL, "empty input");
	if (len > max)
		return json_dec_fail(d, NULL, "input of %zu bytes is over the limit of %zu",
		    len, max);
	if ((*root = cJSON_ParseWithLengthOpts(json, len, &end, 0)) == NULL)
		return json_dec_fail(d, NULL, "invalid JSON near byte %td of %zu",
		    end != NULL ? end - json : (ptrdiff_t)0, len);
	if (!only_space(end, json + len))
		return json_dec_fail(d, NULL, "unexpected data after the JSON value "
		    "at byte %td", end - json);
	if (object && !cJSON_IsObject(*root))
		return json_dec_fail(d, NULL, "the top level must be a JSON object");
	return 0;
}
