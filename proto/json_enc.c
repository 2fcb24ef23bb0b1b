/* See json_enc.h. */
#include "json_enc.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The locale's decimal point in buf, if not '.', made a '.'. */
static void
dot(char *buf)
{
	const char *dp = localeconv()->decimal_point;
	char *s;

	if (dp[0] != '.' && dp[0] != '\0' && (s = strchr(buf, dp[0])) != NULL)
		*s = '.';
}

void
json_fmt_double(char *buf, size_t size, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	dot(buf);
}

size_t
json_fmt_double17(char *buf, size_t size, double v)
{
	int n = snprintf(buf, size, "%.17g", v);

	dot(buf);
	return n > 0 ? (size_t)n : 0;
}

size_t
json_fmt_string(char *buf, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	buf[n++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)c;
		} else if (c < 0x20) {
			memcpy(buf + n, "\\u00", 4);
			buf[n + 4] = hex[c >> 4];
			buf[n + 5] = hex[c & 15];
			n += 6;
		} else
			buf[n++] = (char)c;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return n;
}

int
json_enc_attach(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (item == NULL)
		return -1;
	if (key == NULL)
		ok = cJSON_AddItemToArray(parent, item);
	else
		ok = cJSON_AddItemToObjectCS(parent, key, item);
	if (!ok) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

cJSON *
json_enc_str(const char *s, size_t size)
{
	char *tmp;
	cJSON *it;

	if (s == NULL || size == 0 || s[0] == '\0')
		return cJSON_CreateNull();
	if (memchr(s, '\0', size) != NULL)
		return cJSON_CreateString(s);
	/*
	 * Not terminated: encode what a string of this buffer could hold
	 * (size - 1 bytes, as a decoder accepts back), never past it.
	 */
	if ((tmp = malloc(size)) == NULL)
		return NULL;
	memcpy(tmp, s, size - 1);
	tmp[size - 1] = '\0';
	it = cJSON_CreateString(tmp);
	free(tmp);
	return it;
}

cJSON *
json_enc_i64(int64_t v)
{
	char buf[32];

	if (v == REPORT_NULL_I64)
		return cJSON_CreateNull();
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_CreateRaw(buf);
}

cJSON *
json_enc_double(double v)
{
	char buf[32];

	if (!isfinite(v))
		return cJSON_CreateNull();
	json_fmt_double(buf, sizeof(buf), v);
	return cJSON_CreateRaw(buf);
}
