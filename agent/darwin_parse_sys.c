/*
 * Parsers of the system commands' text: sw_vers, kern.boottime, hostname
 * and powermetrics.
 * See darwin_parse.h for the contracts and tests/fixtures/macos/ for what
 * the commands print.
 */
#include "darwin_parse.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "darwin_text.h"

/*
 * sw_vers, kern.boottime, hostname
 */

/* "KEY:<blanks>VALUE" where VALUE is made of chars in ok: VALUE into dst. */
static int
keyed_value(char *l, const char *key, const char *ok, char *dst, size_t n)
{
	size_t klen = strlen(key);
	char *v;

	if (strncmp(l, key, klen) != 0 || l[klen] != ':')
		return 0;
	v = dp_trim(l + klen + 1);
	if (*v == '\0' || strspn(v, ok) != strlen(v) || !isdigit((unsigned char)*v))
		return -1;
	report_strset(dst, n, v);
	return 1;
}

int
darwin_parse_sw_vers(const char *text, struct report_node *node, char *err, size_t errlen)
{
	static const char digits[] = "0123456789.";
	static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char line[DP_LINE_MAX], ver[32] = "", build[32] = "";
	const char *p = text;
	int bad = 0;

	while (dp_next_line(&p, line, sizeof(line))) {
		char *l = dp_trim(line);
		if (keyed_value(l, "ProductVersion", digits, ver, sizeof(ver)) == -1 ||
		    keyed_value(l, "BuildVersion", alnum, build, sizeof(build)) == -1)
			bad = 1;
	}
	if (ver[0] != '\0')
		REPORT_SET(node->os_version, ver);
	if (build[0] != '\0')
		REPORT_SET(node->os_build, build);
	if (bad || ver[0] == '\0' || build[0] == '\0') {
		dp_err(err, errlen, "no readable ProductVersion and BuildVersion");
		return -1;
	}
	return 0;
}

/* Skip blanks, then tok; returns -1 when tok is not next. */
static int
expect(const char **p, const char *tok)
{
	*p += strspn(*p, " \t");
	if (strncmp(*p, tok, strlen(tok)) != 0)
		return -1;
	*p += strlen(tok);
	return 0;
}

/* Skip blanks, then digits into *v. */
static int
expect_count(const char **p, int64_t *v)
{
	*p += strspn(*p, " \t");
	return dp_parse_digits(*p, v, p);
}

int
darwin_parse_boottime(const char *text, double *boot_time, char *err, size_t errlen)
{
	const char *p = text;
	int64_t sec, usec;

	if (expect(&p, "{") == -1 || expect(&p, "sec") == -1 || expect(&p, "=") == -1 ||
	    expect_count(&p, &sec) == -1 || expect(&p, ",") == -1 ||
	    expect(&p, "usec") == -1 || expect(&p, "=") == -1 ||
	    expect_count(&p, &usec) == -1 || expect(&p, "}") == -1 ||
	    sec <= 0 || usec > 999999) {
		dp_err(err, errlen, "not \"{ sec = N, usec = N } ...\"");
		return -1;
	}
	*boot_time = (double)sec + (double)usec / 1e6;
	return 0;
}

int
darwin_parse_hostname(const char *text, char *dst, size_t dstlen, char *err, size_t errlen)
{
	char line[DP_LINE_MAX], *l;
	const char *p = text;
	size_t n;

	if (!dp_next_line(&p, line, sizeof(line))) {
		dp_err(err, errlen, "empty output");
		return -1;
	}
	l = dp_trim(line);
	n = strlen(l);
	for (size_t i = 0; i < n; i++) {
		if (!isgraph((unsigned char)l[i])) {
			n = 0;
			break;
		}
	}
	if (n == 0 || n >= dstlen) {
		dp_err(err, errlen, "not a host name");
		return -1;
	}
	report_strset(dst, dstlen, l);
	return 0;
}

/*
 * powermetrics
 */

/* "3120 mW" -> 3.12 (watts). */
static int
milliwatts(const char *s, double *watts)
{
	const char *end;
	double mw;

	s += strspn(s, " \t");
	if (proto_parse_decimal(s, &mw, &end) == -1 || strcmp(end, " mW") != 0)
		return -1;
	if (mw / 1000.0 > REPORT_WATTS_MAX)
		return -1;
	*watts = mw / 1000.0;
	return 0;
}

int
darwin_parse_powermetrics(const char *text, struct report_power *power, char *err,
    size_t errlen)
{
	static const char *const labels[] = { "CPU Power:", "GPU Power:", "ANE Power:",
		"DRAM Power:" };
	double w[4] = { NAN, NAN, NAN, NAN };
	char line[DP_LINE_MAX], bad[32] = "";
	const char *p = text, *v;
	int samples = 0;

	while (dp_next_line(&p, line, sizeof(line)) && samples < 2) {
		char *l = dp_trim(line);
		if (darwin_skip_prefix(l, "*** Sampled") != NULL) {
			samples++;
			continue;
		}
		for (size_t i = 0; i < 4; i++) {
			if ((v = darwin_skip_prefix(l, labels[i])) == NULL || !isnan(w[i]))
				continue;
			if (milliwatts(v, &w[i]) == -1 && bad[0] == '\0')
				report_strset(bad, sizeof(bad), labels[i]);
		}
	}
	if (isnan(w[0]) && isnan(w[1])) {
		dp_err(err, errlen, "no \"CPU Power: N mW\" or \"GPU Power: N mW\" line");
		return -1;
	}
	REPORT_SET(power->source, "powermetrics");
	power->cpu_watts = w[0];
	power->gpu_watts = w[1];
	power->ane_watts = w[2];
	power->dram_watts = w[3];
	if (bad[0] != '\0') {
		dp_err(err, errlen, "%s not N mW", bad);
		return -1;
	}
	return 0;
}
