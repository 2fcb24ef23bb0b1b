/*
 * Reading `sysctl NAME...`: see darwin_sysctl.h.
 */
#include "darwin_sysctl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "darwin_text.h"

int
darwin_sysctl_value(const char *text, const char *name, char *dst, size_t dstlen)
{
	size_t n = strlen(name);
	char line[DP_LINE_MAX];
	const char *p = text;

	while (dp_next_line(&p, line, sizeof(line))) {
		if (strncmp(line, name, n) != 0 || line[n] != ':' || line[n + 1] != ' ')
			continue;
		if (strlen(line + n + 2) + 2 > dstlen)
			return -1;
		snprintf(dst, dstlen, "%s\n", line + n + 2);
		return 0;
	}
	return -1;
}

int
darwin_parse_memorystatus_level(const char *text, double *free_ratio, char *err,
    size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text;
	int64_t pct;

	if (!dp_next_line(&p, line, sizeof(line)) || dp_parse_count(dp_trim(line), &pct) == -1 ||
	    pct > 100) {
		dp_err(err, errlen, "not a percentage 0 to 100");
		return -1;
	}
	*free_ratio = (double)pct / 100.0;
	return 0;
}
