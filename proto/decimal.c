/* See decimal.h. */
#include "decimal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int
proto_parse_decimal(const char *s, double *v, const char **end)
{
	const char *p = s;
	char buf[32];
	size_t n;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return -1;
	if (*p == '.') {
		const char *frac = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == frac)
			return -1;
	}
	n = (size_t)(p - s);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	*end = p;
	return 0;
}
