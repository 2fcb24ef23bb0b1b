/*
 * tbctl's output behind --json: the controller's reply, indented, on
 * stdout.  The records are printed whole, as the API has them; a reply
 * without content becomes an object that says what was done.
 */
#include "ctl_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl.h"

int
ctl_json_print(const char *json, size_t len)
{
	char *pretty = api_json_pretty(json, len);
	size_t n;

	if (pretty == NULL)
		return ctl_fail("the controller's reply is not JSON");
	n = strlen(pretty);
	fputs(pretty, stdout);
	if (n == 0 || pretty[n - 1] != '\n')
		fputc('\n', stdout);
	free(pretty);
	return CTL_EXIT_OK;
}

int
ctl_json_done(const char *key, const char *value, int quote)
{
	char buf[256];
	int n;

	for (const char *p = value; *p != '\0'; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			return ctl_fail("cannot print \"%s\" as JSON", key);
	n = snprintf(buf, sizeof(buf), quote ? "{\"%s\":\"%s\"}" : "{\"%s\":%s}", key, value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return ctl_fail("cannot print \"%s\" as JSON: too long", key);
	return ctl_json_print(buf, (size_t)n);
}
