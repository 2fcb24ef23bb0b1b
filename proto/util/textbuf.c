/* A growing text buffer (textbuf.h). */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
textbuf_printf(struct textbuf *t, const char *fmt, ...)
{
	va_list ap;

	while (!t->oom) {
		va_start(ap, fmt);
		int n = t->buf ? vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap) : -1;
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t need = n >= 0 ? t->len + (size_t)n + 1 : 0;
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap < need)
			cap *= 2;
		char *nb = realloc(t->buf, cap);
		if (nb == NULL) {
			t->oom = 1;
			return;
		}
		t->buf = nb;
		t->cap = cap;
	}
}

void
textbuf_label_value(struct textbuf *t, const char *v)
{
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			textbuf_printf(t, "\\%c", *v);
		else if (*v == '\n')
			textbuf_printf(t, "\\n");
		else
			textbuf_printf(t, "%c", *v);
	}
}

char *
textbuf_take(struct textbuf *t)
{
	char *s = t->buf;

	if (t->oom) {
		free(t->buf);
		s = NULL;
	} else if (s == NULL) {
		s = strdup("");
	}
	memset(t, 0, sizeof(*t));
	return s;
}

void
text_append(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strnlen(buf, n);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}
