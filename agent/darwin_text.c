/*
 * What the darwin text parsers share: a line reader over captured command
 * output, and strict readers of counts and decimals.
 *
 * Everything reads the text a line at a time into a fixed buffer; a line
 * too long for it is seen as empty, which no parser takes for data.
 */
#include "darwin_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dp_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Copy the line at *p into buf (without its line end) and move *p past it.
 * Returns 0 at the end of the text.  A last line without its newline was
 * cut short ("en3" of "en31"): it is not returned.
 */
int
dp_next_line(const char **p, char *buf, size_t n)
{
	const char *s = *p, *nl;
	size_t len;

	if (s == NULL || (nl = strchr(s, '\n')) == NULL)
		return 0;
	len = (size_t)(nl - s);
	*p = nl + 1;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (len >= n)
		len = 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 1;
}

/* Strip blanks at both ends, in place; returns the first non-blank. */
char *
dp_trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Shared with darwin_join.c, as is darwin_valid_ifname(). */
const char *
darwin_skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* A count of at most 18 digits, nothing else. */
int
dp_parse_count(const char *s, int64_t *v)
{
	int64_t x = 0;
	size_t n = 0;

	for (; isdigit((unsigned char)s[n]); n++) {
		if (n == 18)
			return -1;
		x = x * 10 + (s[n] - '0');
	}
	if (n == 0 || s[n] != '\0')
		return -1;
	*v = x;
	return 0;
}

/* Leading digits of s (at most 18) into *v; *end past them. */
int
dp_parse_digits(const char *s, int64_t *v, const char **end)
{
	char buf[20];
	size_t n = 0;

	while (isdigit((unsigned char)s[n]) && n < sizeof(buf) - 1) {
		buf[n] = s[n];
		n++;
	}
	buf[n] = '\0';
	if (n == 0 || isdigit((unsigned char)s[n]) || dp_parse_count(buf, v) == -1)
		return -1;
	*end = s + n;
	return 0;
}
