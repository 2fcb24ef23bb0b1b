/* See json_enc.h. */
#include "json_enc.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

void
json_fmt_double(char *buf, size_t size, double v)
{
	const char *dp = localeconv()->decimal_point;
	char *s;
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (dp[0] != '.' && dp[0] != '\0' && (s = strchr(buf, dp[0])) != NULL)
		*s = '.';
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
