/*
 * A growing text buffer for what is written a piece at a time (the
 * Prometheus exposition format of the agent-facing and controller
 * /metrics).  Start from struct textbuf t = { 0 }; textbuf_take hands the
 * text over (the caller frees it) or NULL when memory ran out on the way.
 * text_append does the same into a buffer of fixed size (messages, fixes).
 */
#ifndef TBMESH_TEXTBUF_H
#define TBMESH_TEXTBUF_H

#include <stddef.h>

struct textbuf {
	char *buf;
	size_t len, cap;
	int oom;                 /* a realloc failed: everything after is dropped */
};

void textbuf_printf(struct textbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A Prometheus label value: \, " and newline escaped as \\, \" and \n. */
void textbuf_label_value(struct textbuf *t, const char *v);

/* The text (malloc'd; "" when nothing was written), or NULL after an oom. */
char *textbuf_take(struct textbuf *t);

/*
 * A fixed buffer of n bytes holding a string: append what fmt makes,
 * truncated to fit; the buffer stays NUL-terminated.  A full one is left alone.
 */
void text_append(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
