/* Configuration files and addresses; see conf.h. */
#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int
conf_read_file(const char *path, conf_setter set, void *ctx, char *err, size_t errlen)
{
	char line[4096], msg[512];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		char *hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		char *s = trim(line);
		if (*s == '\0')
			continue;
		char *eq = strchr(s, '=');
		if (eq == NULL) {
			snprintf(err, errlen, "%s:%d: expected \"key = value\"", path, lineno);
			goto fail;
		}
		*eq = '\0';
		if (set(ctx, trim(s), trim(eq + 1), msg, sizeof(msg)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			goto fail;
		}
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	return -1;
}

int
conf_split_hostport(const char *s, char *host, size_t hostlen, int *port, char *err,
    size_t errlen)
{
	const char *colon, *h = s;
	size_t hl;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');
		if (rb == NULL || rb[1] != ':')
			goto bad;
		h = s + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL || memchr(s, ':', (size_t)(colon - s)) != NULL)
			goto bad;
		hl = (size_t)(colon - s);
	}
	char *end;
	long p = strtol(colon + 1, &end, 10);
	if (hl == 0 || hl >= hostlen || colon[1] == '\0' || *end != '\0' || p < 0 || p > 65535)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (int)p;
	return 0;
bad:
	snprintf(err, errlen, "listen: \"%s\" is not HOST:PORT (or [IPV6]:PORT)", s);
	return -1;
}

int
conf_seconds(const char *key, const char *v, double lo, double hi, double *out, char *err,
    size_t errlen)
{
	char *end;

	errno = 0;
	double d = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !isfinite(d) || d < lo || d > hi) {
		snprintf(err, errlen, "%s: \"%s\" is not a number of seconds from %g to %g", key,
		    v, lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}
