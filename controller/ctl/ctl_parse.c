/*
 * tbctl's command line: global options, the command's words, its options,
 * and the values they take (durations, times, counts, token ids), plus the
 * bearer token file.  Pure except for ctl_token_read/ctl_token_default,
 * which look at one file.
 */
#include "ctl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "civil.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define TOKEN_FILE_MAX 4096

/*
 * Whether argv[*i] is the option --name, as "--name VALUE" or
 * "--name=VALUE".  Returns 1 with *val set (and *i moved past a separate
 * value), 0 when it is another option, -1 when the value is missing.
 */
static int
opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *s = argv[*i];
	size_t n = strlen(name);

	if (strncmp(s, "--", 2) != 0 || strncmp(s + 2, name, n) != 0)
		return 0;
	if (s[2 + n] == '=') {
		*val = s + 3 + n;
		return 1;
	}
	if (s[2 + n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

static int
url_valid(const char *u)
{
	const char *host;

	if (strncmp(u, "http://", 7) == 0)
		host = u + 7;
	else if (strncmp(u, "https://", 8) == 0)
		host = u + 8;
	else
		return 0;
	if (*host == '\0' || *host == '/')
		return 0;
	for (const char *p = u; *p != '\0'; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return 0;
	return 1;
}

static int
global_flag(struct ctl_global *g, const char *s)
{
	if (strcmp(s, "--json") == 0)
		g->json = 1;
	else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0)
		g->help = 1;
	else if (strcmp(s, "--version") == 0 || strcmp(s, "-V") == 0)
		g->version = 1;
	else
		return 0;
	return 1;
}

static const char *global_names[] = { "url", "token-file", "ca-file" };

/* The values of the global options, checked once they are all read. */
static int
global_values_valid(const struct ctl_global *g, char *err, size_t errlen)
{
	if (!url_valid(g->url)) {
		snprintf(err, errlen, "--url: \"%s\" is not an http:// or https:// URL", g->url);
		return -1;
	}
	if ((g->token_file != NULL && *g->token_file == '\0') ||
	    (g->ca_file != NULL && *g->ca_file == '\0')) {
		snprintf(err, errlen, "an empty file name was given");
		return -1;
	}
	return 0;
}

/* argv[*i] as a global option with a value: 1 taken, 0 not one, -1 no value. */
static int
global_value(struct ctl_global *g, int argc, char **argv, int *i)
{
	const char **dst[] = { &g->url, &g->token_file, &g->ca_file };
	int rc = 0;

	for (size_t k = 0; k < NELEM(global_names) && rc == 0; k++)
		rc = opt_value(argc, argv, i, global_names[k], dst[k]);
	return rc;
}

int
ctl_parse_global(int argc, char **argv, const char *env_url, const char *env_token_file,
    struct ctl_global *g, int *cmd, char *err, size_t errlen)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->url = env_url != NULL && *env_url != '\0' ? env_url : CTL_DEFAULT_URL;
	if (env_token_file != NULL && *env_token_file != '\0')
		g->token_file = env_token_file;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (global_flag(g, argv[i]))
			continue;
		int rc = global_value(g, argc, argv, &i);
		if (rc == -1) {
			snprintf(err, errlen, "%s needs a value", argv[i]);
			return -1;
		}
		if (rc == 0) {
			snprintf(err, errlen, "unknown option %s (see tbctl --help)", argv[i]);
			return -1;
		}
	}
	if (global_values_valid(g, err, errlen) == -1)
		return -1;
	*cmd = i;
	return 0;
}

int
ctl_parse_global_tail(struct ctl_global *g, int *argc, char **argv, char *err, size_t errlen)
{
	int out = 0, i;

	for (i = 0; i < *argc && strcmp(argv[i], "--") != 0; i++) {
		int from = i, rc = global_value(g, *argc, argv, &i);
		if (rc == -1) {
			snprintf(err, errlen, "%s needs a value", argv[from]);
			return -1;
		}
		if (rc == 0)
			argv[out++] = argv[i];
	}
	while (i < *argc)
		argv[out++] = argv[i++];
	*argc = out;
	return global_values_valid(g, err, errlen);
}

/* How many of the words of name ("node cordon") match argv; 0 unless all do. */
static int
name_match(const char *name, int argc, char **argv)
{
	int words = 0;
	const char *p = name;

	while (*p != '\0') {
		size_t n = strcspn(p, " ");
		if (words >= argc || strlen(argv[words]) != n || strncmp(argv[words], p, n) != 0)
			return 0;
		words++;
		p += n;
		while (*p == ' ')
			p++;
	}
	return words;
}

const struct ctl_cmd *
ctl_cmd_find(const struct ctl_cmd *const *table, int n, int argc, char **argv, int *used)
{
	const struct ctl_cmd *best = NULL;
	int best_words = 0;

	for (int i = 0; i < n; i++) {
		int w = name_match(table[i]->name, argc, argv);
		if (w > best_words) {
			best = table[i];
			best_words = w;
		}
	}
	*used = best_words;
	return best;
}

int
ctl_cmd_is_group(const struct ctl_cmd *const *table, int n, const char *word)
{
	size_t len = strlen(word);

	for (int i = 0; i < n; i++)
		if (strncmp(table[i]->name, word, len) == 0 && table[i]->name[len] == ' ')
			return 1;
	return 0;
}

enum opt_kind { VALUE, FLAG };

/* CTL_OPTIONS as a table: each option's bit and the field it sets. */
static const struct {
	const char *name;           /* without its "--" */
	ctl_optset bit;
	size_t off;                 /* in struct ctl_args */
	enum opt_kind kind;
} options[] = {
#define OPTION_ROW(id, name, field, kind) \
	{ name, CTL_OPT(id), offsetof(struct ctl_args, field), kind },
	CTL_OPTIONS(OPTION_ROW)
#undef OPTION_ROW
};

/* A VALUE sets a const char *, a FLAG an int: the list says which each field is. */
#define OPTION_TYPE(id, name, field, kind) \
	_Static_assert(_Generic(((struct ctl_args *)0)->field, \
	    const char *: kind == VALUE, int: kind == FLAG, default: 0), \
	    "--" name ": the type of its field does not match its kind");
CTL_OPTIONS(OPTION_TYPE)
#undef OPTION_TYPE

/* One option at argv[*i]: 0, or -1 with a message. */
static int
parse_opt(const struct ctl_cmd *cmd, int argc, char **argv, int *i, struct ctl_args *a,
    char *err, size_t errlen)
{
	const char *s = argv[*i];

	if (strcmp(s, "--json") == 0) {
		a->json = 1;
		return 0;
	}
	if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
		a->help = 1;
		return 0;
	}
	for (size_t k = 0; k < NELEM(options); k++) {
		void *dst = (char *)a + options[k].off;
		int rc;

		if (!(cmd->opts & options[k].bit))
			continue;
		if (options[k].kind == FLAG) {
			if (strncmp(s, "--", 2) == 0 && strcmp(s + 2, options[k].name) == 0) {
				*(int *)dst = 1;
				return 0;
			}
			continue;
		}
		if ((rc = opt_value(argc, argv, i, options[k].name, (const char **)dst)) == 1)
			return 0;
		if (rc == -1) {
			snprintf(err, errlen, "%s: %s needs a value", cmd->name, s);
			return -1;
		}
	}
	snprintf(err, errlen, "%s: unknown option %s (see tbctl %s --help)", cmd->name, s,
	    cmd->name);
	return -1;
}

static int
check_count(const struct ctl_cmd *cmd, const struct ctl_args *a, char *err, size_t errlen)
{
	if (a->npos < cmd->min_pos) {
		snprintf(err, errlen, "%s: missing arguments (usage: tbctl %s %s)", cmd->name,
		    cmd->name, cmd->usage);
		return -1;
	}
	if (cmd->max_pos >= 0 && a->npos > cmd->max_pos) {
		snprintf(err, errlen, "%s: unexpected argument \"%s\" (usage: tbctl %s%s%s)",
		    cmd->name, a->pos[cmd->max_pos], cmd->name, *cmd->usage ? " " : "",
		    cmd->usage);
		return -1;
	}
	return 0;
}

int
ctl_parse_args(const struct ctl_cmd *cmd, int argc, char **argv, struct ctl_args *a,
    char *err, size_t errlen)
{
	int dashdash = 0;

	memset(a, 0, sizeof(*a));
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (!dashdash && strcmp(s, "--") == 0) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && s[0] == '-' && s[1] != '\0') {
			if (parse_opt(cmd, argc, argv, &i, a, err, errlen) == -1)
				return -1;
			continue;
		}
		if (a->npos == CTL_POS_MAX) {
			snprintf(err, errlen, "%s: more than %d arguments", cmd->name,
			    CTL_POS_MAX);
			return -1;
		}
		a->pos[a->npos++] = s;
	}
	if (a->help)
		return 0;
	return check_count(cmd, a, err, errlen);
}

/* A decimal number at *p ("12", "1.5", ".5"); moves *p past it.  -1 when none. */
static int
read_number(const char **p, double *v)
{
	const char *s = *p;
	double x = 0, scale = 1;
	int digits = 0;

	for (; isdigit((unsigned char)*s); s++, digits++)
		x = x * 10 + (*s - '0');
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, digits++) {
			scale /= 10;
			x += (*s - '0') * scale;
		}
	}
	if (digits == 0 || digits > 30)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

static double
unit_seconds(char c)
{
	switch (c) {
	case 's': return 1;
	case 'm': return 60;
	case 'h': return 3600;
	case 'd': return 86400;
	case 'w': return 7 * 86400;
	}
	return 0;
}

int
ctl_parse_duration(const char *s, double *secs)
{
	const char *p = s;
	double total = 0, v, unit;

	while (*p != '\0') {
		const char *start = p;
		if (read_number(&p, &v) == -1)
			return -1;
		if (*p == '\0') {
			if (start != s)
				return -1;
			/* A bare number is seconds, and only alone ("90", not "1h30"). */
			total = v;
			break;
		}
		if ((unit = unit_seconds(*p++)) == 0)
			return -1;
		total += v * unit;
	}
	if (!isfinite(total) || total <= 0)
		return -1;
	*secs = total;
	return 0;
}

/* Exactly n digits at *p into *v; moves *p.  -1 when not. */
static int
read_digits(const char **p, int n, int *v)
{
	int x = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		x = x * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*v = x;
	return 0;
}

static int
month_days(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return days[m - 1] + (m == 2 && leap);
}

/* "HH:MM[:SS[.frac]]" at *p into seconds of the day; moves *p. */
static int
read_clock(const char **p, double *secs)
{
	int hh, mm, ss = 0;
	double frac = 0;

	if (read_digits(p, 2, &hh) == -1 || **p != ':')
		return -1;
	(*p)++;
	if (read_digits(p, 2, &mm) == -1)
		return -1;
	if (**p == ':') {
		(*p)++;
		if (read_digits(p, 2, &ss) == -1)
			return -1;
		if (**p == '.' && (read_number(p, &frac) == -1 || frac >= 1))
			return -1;
	}
	if (hh > 23 || mm > 59 || ss > 60)
		return -1;
	*secs = hh * 3600 + mm * 60 + ss + frac;
	return 0;
}

/* "Z", "+HH:MM", "-HH:MM" or nothing (UTC) at p: the offset east of UTC. */
static int
read_zone(const char *p, double *offset)
{
	int hh, mm, sign;

	*offset = 0;
	if (*p == '\0' || ((*p == 'Z' || *p == 'z') && p[1] == '\0'))
		return 0;
	if (*p != '+' && *p != '-')
		return -1;
	sign = *p++ == '-' ? -1 : 1;
	if (read_digits(&p, 2, &hh) == -1 || *p++ != ':' || read_digits(&p, 2, &mm) == -1 ||
	    *p != '\0' || hh > 23 || mm > 59)
		return -1;
	*offset = sign * (hh * 3600 + mm * 60);
	return 0;
}

/* "YYYY-MM-DD[(T| )HH:MM[:SS[.frac]][zone]]" */
static int
parse_date(const char *s, double *out)
{
	const char *p = s;
	int y, m, d;
	double clock = 0, offset = 0;

	if (read_digits(&p, 4, &y) == -1 || *p++ != '-' || read_digits(&p, 2, &m) == -1 ||
	    *p++ != '-' || read_digits(&p, 2, &d) == -1)
		return -1;
	if (m < 1 || m > 12 || d < 1 || d > month_days(y, m))
		return -1;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (read_clock(&p, &clock) == -1 || read_zone(p, &offset) == -1)
			return -1;
	} else if (*p != '\0')
		return -1;
	*out = (double)civil_days(y, m, d) * 86400 + clock - offset;
	return 0;
}

int
ctl_parse_time(const char *s, double now, double *out)
{
	const char *p = s;
	double v;
	size_t n = strlen(s);

	if (n == 0)
		return -1;
	if (n >= 10 && s[4] == '-')
		return parse_date(s, out);
	if (read_number(&p, &v) == 0 && *p == '\0') {
		*out = v;
		return 0;
	}
	/* A duration back from now: its unit is required ("10m"). */
	if (!isalpha((unsigned char)s[n - 1]) || ctl_parse_duration(s, &v) == -1)
		return -1;
	*out = now - v;
	return 0;
}

int
ctl_parse_count(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
ctl_token_id_valid(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n == 12;
}

/* Trim white space in place; 0 when what is left is one printable word. */
static int
token_trim(char *buf, size_t *len)
{
	size_t a = 0, b = *len;

	while (a < b && isspace((unsigned char)buf[a]))
		a++;
	while (b > a && isspace((unsigned char)buf[b - 1]))
		b--;
	for (size_t i = a; i < b; i++)
		if (!isgraph((unsigned char)buf[i]))
			return -1;
	memmove(buf, buf + a, b - a);
	buf[b - a] = '\0';
	*len = b - a;
	return 0;
}

int
ctl_token_read(const char *path, char *buf, size_t size, int *loose, char *err,
    size_t errlen)
{
	char tmp[TOKEN_FILE_MAX + 1];
	struct stat st;
	size_t len;
	FILE *f = fopen(path, "r");

	*loose = 0;
	if (f == NULL) {
		snprintf(err, errlen, "token file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0)
		*loose = (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
	len = fread(tmp, 1, sizeof(tmp), f);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "token file %s: read error", path);
		return -1;
	}
	if (len == sizeof(tmp) || token_trim(tmp, &len) == -1) {
		snprintf(err, errlen, "token file %s: does not hold one token", path);
		goto fail;
	}
	if (len == 0 || len >= size) {
		snprintf(err, errlen, "token file %s: %s", path, len == 0 ? "empty" : "too long");
		goto fail;
	}
	memcpy(buf, tmp, len + 1);
	memset(tmp, 0, sizeof(tmp));
	return 0;
fail:
	memset(tmp, 0, sizeof(tmp));
	return -1;
}

int
ctl_token_default(const char *home, char *buf, size_t size)
{
	int n;

	if (home == NULL || *home == '\0')
		return -1;
	n = snprintf(buf, size, "%s/%s", home, CTL_DEFAULT_TOKEN_FILE);
	if (n < 0 || (size_t)n >= size || access(buf, F_OK) == -1)
		return -1;
	return 0;
}
