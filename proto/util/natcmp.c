/* See natcmp.h. */
#include "natcmp.h"

#include <ctype.h>
#include <string.h>

/* Past the leading zeros of a run of digits (its last digit stays). */
static const char *
skip_zeros(const char *s)
{
	while (*s == '0' && isdigit((unsigned char)s[1]))
		s++;
	return s;
}

static const char *
run_end(const char *s)
{
	while (isdigit((unsigned char)*s))
		s++;
	return s;
}

int
proto_natcmp(const char *a, const char *b)
{
	while (*a != '\0' && *b != '\0') {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			a = skip_zeros(a);
			b = skip_zeros(b);
			const char *ea = run_end(a), *eb = run_end(b);
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			int c = strncmp(a, b, (size_t)(ea - a));
			if (c != 0)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a == *b ? 0 : *a == '\0' ? -1 : 1;
}
