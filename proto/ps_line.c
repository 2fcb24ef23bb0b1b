/*
 * ps's "PID STAT TIME RSS" lines (see ps_line.h).
 */
#include "ps_line.h"

#include <ctype.h>
#include <string.h>

/* Digits s[*i..] as a number (at most 15 of them): 0, or -1 when none or more. */
static int
digits(const char *s, size_t n, size_t *i, int64_t *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < n && isdigit((unsigned char)s[*i]) && *i - start < 15)
		*v = *v * 10 + (s[(*i)++] - '0');
	return *i > start && (*i == n || !isdigit((unsigned char)s[*i])) ? 0 : -1;
}

int
ps_cpu_time(const char *s, size_t n, double *seconds)
{
	int64_t f[3], days = 0, frac = 0;
	size_t i = 0, fracdigits = 0;
	int nf = 0;

	/* Linux's "DD-" */
	if (digits(s, n, &i, &f[0]) == -1)
		return -1;
	if (i < n && s[i] == '-') {
		days = f[0];
		i++;
		if (digits(s, n, &i, &f[0]) == -1)
			return -1;
	}
	nf = 1;
	while (i < n && s[i] == ':') {
		i++;
		if (nf == 3 || digits(s, n, &i, &f[nf]) == -1 || f[nf] >= 60)
			return -1;
		nf++;
	}
	/* macOS's hundredths (any number of decimals taken) */
	if (i < n && s[i] == '.') {
		size_t start = ++i;
		while (i < n && isdigit((unsigned char)s[i]) && i - start < 6) {
			frac = frac * 10 + (s[i++] - '0');
			fracdigits++;
		}
		if (fracdigits == 0)
			return -1;
	}
	if (i != n || nf < 2 || (days > 0 && nf != 3))
		return -1;
	double t = 0, scale = 1;
	for (int k = 0; k < nf; k++)
		t = t * 60 + (double)f[k];
	for (size_t k = 0; k < fracdigits; k++)
		scale *= 10;
	*seconds = (double)days * 86400 + t + (double)frac / scale;
	return 0;
}

/* The next blank-separated word of line[*i..n): its start and length; -1 none. */
static int
word(const char *line, size_t n, size_t *i, const char **w, size_t *len)
{
	while (*i < n && isblank((unsigned char)line[*i]))
		(*i)++;
	*w = line + *i;
	while (*i < n && !isspace((unsigned char)line[*i]))
		(*i)++;
	*len = (size_t)(line + *i - *w);
	return *len > 0 ? 0 : -1;
}

int
ps_line_parse(const char *line, size_t n, struct ps_proc *out)
{
	const char *w[4];
	size_t len[4], i = 0, k;
	int64_t pid, rss;

	for (int c = 0; c < 4; c++)
		if (word(line, n, &i, &w[c], &len[c]) == -1)
			return -1;
	while (i < n && isspace((unsigned char)line[i]))
		i++;
	if (i != n)
		return -1;
	k = 0;
	if (digits(w[0], len[0], &k, &pid) == -1 || k != len[0] || pid < 1)
		return -1;
	k = 0;
	if (digits(w[3], len[3], &k, &rss) == -1 || k != len[3])
		return -1;
	if (len[1] > PS_STAT_MAX || !isalpha((unsigned char)w[1][0]))
		return -1;
	if (ps_cpu_time(w[2], len[2], &out->cpu_seconds) == -1)
		return -1;
	out->pid = pid;
	memcpy(out->stat, w[1], len[1]);
	out->stat[len[1]] = '\0';
	if (rss > INT64_MAX / 1024)
		return -1;
	out->rss_bytes = rss * 1024;
	return 0;
}

int
ps_line_find(const char *out, int64_t pid, struct ps_proc *p)
{
	const char *line = out;

	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		struct ps_proc q;

		if (ps_line_parse(line, n, &q) == 0 && q.pid == pid) {
			*p = q;
			return 1;
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	return 0;
}

int
ps_stat_zombie(const char *stat)
{
	return stat[0] == 'Z';
}

int
ps_stat_runnable(const char *stat)
{
	return stat[0] == 'R';
}
