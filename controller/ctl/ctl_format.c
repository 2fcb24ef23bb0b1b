/*
 * Tables, "Key: value" lines and value formats for tbctl's output for
 * people (the formats are described in ctl_format.h).
 * A table keeps its cells until it is printed, so that every column is as
 * wide as its widest cell.
 */
#include "ctl_format.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

#define KV_WIDTH 20         /* "Key:" column of ctl_kv */
#define COL_GAP 2

struct ctl_table {
	int ncols;
	int nrows;           /* not counting the header */
	int cap;             /* rows allocated, header included */
	char **cells;        /* (nrows + 1) * ncols; row 0 is the header */
	int lost;            /* a row could not be added */
};

const char *
ctl_str(const char *s)
{
	return s == NULL || *s == '\0' ? "-" : s;
}

/* A printable copy: NULL/"" -> "-", control characters -> '?'. */
static char *
cell_dup(const char *s)
{
	char *c = strdup(ctl_str(s));

	if (c == NULL)
		return NULL;
	for (unsigned char *p = (unsigned char *)c; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

/* Characters (not bytes) of UTF-8 text: continuation bytes don't count. */
static size_t
text_width(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static int
table_grow(struct ctl_table *t)
{
	int cap = t->cap == 0 ? 16 : t->cap * 2;
	char **c;

	if (t->nrows + 1 < t->cap)
		return 0;
	c = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof(*c));
	if (c == NULL)
		return -1;
	t->cells = c;
	t->cap = cap;
	return 0;
}

/* Copy ncols cells into row (0 is the header). */
static int
table_set_row(struct ctl_table *t, int row, const char *const *cells)
{
	char **dst = t->cells + (size_t)row * (size_t)t->ncols;

	for (int i = 0; i < t->ncols; i++) {
		if ((dst[i] = cell_dup(cells[i])) == NULL) {
			while (i-- > 0)
				free(dst[i]);
			return -1;
		}
	}
	return 0;
}

struct ctl_table *
ctl_table_new(int ncols, const char *const *headers)
{
	struct ctl_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->ncols = ncols;
	t->nrows = -1;
	if (table_grow(t) == -1 || table_set_row(t, 0, headers) == -1) {
		free(t->cells);
		free(t);
		return NULL;
	}
	t->nrows = 0;
	return t;
}

int
ctl_table_add(struct ctl_table *t, const char *const *cells)
{
	if (table_grow(t) == -1 || table_set_row(t, t->nrows + 1, cells) == -1) {
		t->lost = 1;
		return -1;
	}
	t->nrows++;
	return 0;
}

int
ctl_table_rows(const struct ctl_table *t)
{
	return t->nrows;
}

void
ctl_table_print(const struct ctl_table *t, FILE *f, int indent)
{
	size_t *w = calloc((size_t)t->ncols, sizeof(*w));

	if (w == NULL)
		return;
	for (int r = 0; r <= t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t n = text_width(t->cells[r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	for (int r = 0; r <= t->nrows; r++) {
		fprintf(f, "%*s", indent, "");
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			fputs(s, f);
			if (c + 1 < t->ncols)
				fprintf(f, "%*s", (int)(w[c] - text_width(s)) + COL_GAP, "");
		}
		fputc('\n', f);
	}
	free(w);
}

int
ctl_table_end(struct ctl_table *t, FILE *f, int indent)
{
	int lost = t->lost;

	if (!lost)
		ctl_table_print(t, f, indent);
	ctl_table_free(t);
	return lost ? -1 : 0;
}

void
ctl_table_free(struct ctl_table *t)
{
	if (t == NULL)
		return;
	for (int i = 0; i < (t->nrows + 1) * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

void
ctl_kv(FILE *f, int indent, const char *key, const char *fmt, ...)
{
	char value[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (unsigned char *p = (unsigned char *)value; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	n = fprintf(f, "%*s%s:", indent, "", key);
	fprintf(f, "%*s%s\n", n < KV_WIDTH ? KV_WIDTH - n : 1, "", ctl_str(value));
}

char *
ctl_fmt_bytes(int64_t bytes, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	double v, r;
	int k = -1;

	if (bytes == REPORT_NULL_I64 || bytes < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	if (bytes < 1024) {
		snprintf(buf, size, "%lldB", (long long)bytes);
		return buf;
	}
	for (v = (double)bytes; v >= 1024 && k < 5; k++)
		v /= 1024;
	r = round(v * 10) / 10;
	if (r >= 1024 && k < 5) {
		r /= 1024;
		k++;
	}
	snprintf(buf, size, r == floor(r) ? "%.0f%c" : "%.1f%c", r, units[k]);
	return buf;
}

char *
ctl_fmt_duration(double secs, char *buf, size_t size)
{
	if (!isfinite(secs)) {
		snprintf(buf, size, "-");
		return buf;
	}
	if (secs < 0)
		secs = 0;
	if (secs < 60)
		snprintf(buf, size, "%.0fs", floor(secs));
	else if (secs < 3600)
		snprintf(buf, size, "%.0fm", floor(secs / 60));
	else if (secs < 86400)
		snprintf(buf, size, "%.0fh", floor(secs / 3600));
	else
		snprintf(buf, size, "%.0fd", floor(secs / 86400));
	return buf;
}

char *
ctl_fmt_age(double then, double now, char *buf, size_t size)
{
	if (isnan(then)) {
		snprintf(buf, size, "never");
		return buf;
	}
	return ctl_fmt_duration(now - then, buf, size);
}

char *
ctl_fmt_time(double t, char *buf, size_t size)
{
	struct tm tm;
	time_t tt;

	/* Years 0 to 9999 only: ISO 8601 without extensions. */
	if (!isfinite(t) || t < -62167219200.0 || t >= 253402300800.0) {
		snprintf(buf, size, "-");
		return buf;
	}
	tt = (time_t)floor(t);
	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "-");
	return buf;
}

char *
ctl_fmt_watts(double w, char *buf, size_t size)
{
	if (!isfinite(w))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, fabs(w) < 9.95 ? "%.1f W" : "%.0f W", w);
	return buf;
}

char *
ctl_fmt_usage(int64_t used, int64_t total, char *buf, size_t size)
{
	char u[CTL_FMT_MAX], t[CTL_FMT_MAX];

	if (total == REPORT_NULL_I64 || total < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%s/%s", ctl_fmt_bytes(used, u, sizeof(u)),
		    ctl_fmt_bytes(total, t, sizeof(t)));
	return buf;
}
