/*
 * tbctl's output behind --json: the controller's reply, indented, on
 * stdout.  The records are printed whole, as the API has them.
 */
#include "ctl_output.h"

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
