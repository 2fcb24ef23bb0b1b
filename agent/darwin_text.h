/*
 * The line reader and number readers shared by the darwin text parsers
 * (darwin_parse_*.c); internal to them.  See darwin_text.c.
 */
#ifndef TBMESH_DARWIN_TEXT_H
#define TBMESH_DARWIN_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "darwin_parse.h"
#include "decimal.h"

#define DP_LINE_MAX 1024

/* Format a one-line reason into err (which may be NULL). */
void dp_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Copy the line at *p into buf (without its line end) and move *p past it.
 * Returns 0 at the end of the text.  A last line without its newline was
 * cut short ("en3" of "en31"): it is not returned.  A line longer than n
 * comes back empty.
 */
int dp_next_line(const char **p, char *buf, size_t n);
/* Strip blanks at both ends, in place; returns the first non-blank. */
char *dp_trim(char *s);
/* A count of at most 18 digits, nothing else. */
int dp_parse_count(const char *s, int64_t *v);
/* Leading digits of s (at most 18) into *v; *end past them. */
int dp_parse_digits(const char *s, int64_t *v, const char **end);

#endif
