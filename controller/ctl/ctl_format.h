/*
 * What tbctl's output for people is made of: tables with computed column
 * widths, aligned "Key: value" lines, and the human forms of sizes,
 * durations and times.  Pure: the functions format what they are given
 * (the current time included) and write only to the FILE passed in.
 *
 * Formats:
 *   bytes     binary units, K M G T P E = 1024^n: the largest unit that
 *             leaves at least 1, rounded to one decimal, ".0" dropped:
 *             "512G", "187.5G", "1.5K"; under 1024 bytes "900B"; unknown "-".
 *   duration  the largest whole unit, rounded down: "45s", "3m", "2h", "5d".
 *   age       the duration since a time; "never" when the time is unknown,
 *             "0s" when it is in the future.
 *   time      UTC, ISO 8601: "2025-11-22T03:40:01Z"; unknown "-".
 *   watts     "182 W", one decimal under 10 W ("3.4 W"); unknown "-".
 * Every formatter writes into buf (size bytes) and returns buf.
 */
#ifndef TBMESH_CTL_FORMAT_H
#define TBMESH_CTL_FORMAT_H

#include <stdint.h>
#include <stdio.h>

#define CTL_FMT_MAX 64      /* big enough for any one formatted value */

struct ctl_table;

/* A table with ncols columns and their headers (copied).  NULL: out of memory. */
struct ctl_table *ctl_table_new(int ncols, const char *const *headers);
/*
 * Add a row of ncols cells (copied; NULL or "" prints "-"; control
 * characters print as '?').  Returns 0, or -1 when out of memory (the
 * table remembers it for ctl_table_end).
 */
int ctl_table_add(struct ctl_table *t, const char *const *cells);
int ctl_table_rows(const struct ctl_table *t);
/*
 * Print the header and the rows, each line starting with indent spaces,
 * columns separated by two spaces, no trailing white space.  Widths count
 * UTF-8 characters.
 */
void ctl_table_print(const struct ctl_table *t, FILE *f, int indent);
void ctl_table_free(struct ctl_table *t);
/*
 * Print the table unless a ctl_table_add failed, then free it.  Returns 0,
 * or -1 when a row was lost for want of memory (nothing printed).
 */
int ctl_table_end(struct ctl_table *t, FILE *f, int indent);

/* "Key:" padded to a column, then the value; indent spaces first. */
void ctl_kv(FILE *f, int indent, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* s, or "-" when s is NULL or "". */
const char *ctl_str(const char *s);

char *ctl_fmt_bytes(int64_t bytes, char *buf, size_t size);
char *ctl_fmt_duration(double secs, char *buf, size_t size);
char *ctl_fmt_age(double then, double now, char *buf, size_t size);
char *ctl_fmt_time(double t, char *buf, size_t size);
char *ctl_fmt_watts(double w, char *buf, size_t size);
/* "used/total" in bytes, e.g. "187.5G/512G"; "-" when the total is unknown. */
char *ctl_fmt_usage(int64_t used, int64_t total, char *buf, size_t size);

#endif
