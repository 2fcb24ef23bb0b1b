/* See json_dec.h. */
#include "json_dec.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t
path_fmt(const struct json_path *p, char *buf, size_t size)
{
	size_t n;
	int w;

	if (p == NULL)
		return 0;
	n = path_fmt(p->up, buf, size);
	if (n >= size)
		return n;
	if (p->key != NULL)
		w = snprintf(buf + n, size - n, "%s%s", n > 0 ? "." : "", p->key);
	else
		w = snprintf(buf + n, size - n, "[%d]", p->idx);
	return w < 0 ? n : n + (size_t)w;
}

void
json_dec_init(struct json_dec *d, char *err, size_t errlen)
{
	d->err = err;
	d->errlen = errlen;
	d->own_key_check = 0;
	d->unknown = 0;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
}

int
json_dec_fail(struct json_dec *d, const struct json_path *p, const char *fmt, ...)
{
	char where[256];
	va_list ap;
	int n;

	if (d->err == NULL || d->errlen == 0)
		return -1;
	where[0] = '\0';
	path_fmt(p, where, sizeof(where));
	n = snprintf(d->err, d->errlen, "%s%s", where, where[0] ? ": " : "");
	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *
json_dec_num(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%g", v);
	return buf;
}

int
json_dec_str(struct json_dec *d, const cJSON *it, const struct json_path *p, char *dst,
    size_t size, int empty_ok)
{
	size_t len = strnlen(it->valuestring, size);

	if (len == 0 && !empty_ok)
		return json_dec_fail(d, p, "empty string (an unknown value is null)");
	if (len == size)
		return json_dec_fail(d, p, "longer than %zu bytes", size - 1);
	memcpy(dst, it->valuestring, len + 1);
	return 0;
}

/* True when [p, end) holds only JSON white space up to its end or a NUL. */
static int
only_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
	return 1;
}

/*
 * The length of the UTF-8 sequence at s[0..n) when it is well formed
 * (Unicode 15, table 3-7: no overlong form, no surrogate, nothing past
 * U+10FFFF), else 0.
 */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;

	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* The 4 hex digits at s as a number, or -1. */
static long
hex4(const unsigned char *s, size_t n)
{
	long v = 0;

	if (n < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int c = s[i];
		v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1000000);
	}
	return v < 0 ? -1 : v;
}

/*
 * Nothing in the 8 bytes at s needs a look: no byte below 0x20, none from
 * 0x80, no backslash.  The usual compact report is all such words.
 */
static int
plain_word(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t w, bs;

	memcpy(&w, s, 8);
	bs = w ^ (ones * '\\');
	/* a byte below 0x20, a zero byte of bs (a backslash in w), a high bit */
	return (((w - ones * 0x20) & ~w) | ((bs - ones) & ~bs) | w) & highs ? 0 : 1;
}

/* How many '"' in the 8 bytes at s (exact: no carry crosses a byte). */
static int
quotes(const unsigned char *s)
{
	const uint64_t lows = 0x7F7F7F7F7F7F7F7Full;
	uint64_t w, t;

	memcpy(&w, s, 8);
	t = w ^ (0x0101010101010101ull * '"');
	return __builtin_popcountll(~(((t & lows) + lows) | t) & ~lows);
}

/*
 * What the parser lets through and JSON (RFC 8259) or the API does not: a
 * byte order mark, a NUL byte, malformed UTF-8, a raw control character or
 * "\u0000" in a string, a lone surrogate escape.  0, or -1 with why in d.
 */
static int
strict_bytes(struct json_dec *d, const char *json, size_t len)
{
	const unsigned char *s = (const unsigned char *)json;
	size_t i = 0;
	int in_str = 0;

	if (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		return json_dec_fail(d, NULL, "a byte order mark before the JSON value");
	while (i < len) {
		if (i + 8 <= len && plain_word(s + i)) {
			/* quotes only toggle the string state here */
			in_str ^= quotes(s + i) & 1;
			i += 8;
			continue;
		}
		unsigned char c = s[i];
		if (c == 0)
			return json_dec_fail(d, NULL, "a NUL byte at byte %zu", i);
		if (c >= 0x80) {
			size_t n = utf8_len(s + i, len - i);
			if (n == 0)
				return json_dec_fail(d, NULL, "invalid UTF-8 at byte %zu", i);
			i += n;
			continue;
		}
		if (!in_str) {
			in_str = c == '"';
		} else if (c < 0x20) {
			return json_dec_fail(d, NULL, "a raw control character in a string at "
			    "byte %zu", i);
		} else if (c == '"') {
			in_str = 0;
		} else if (c == '\\' && i + 1 < len && s[i + 1] == 'u') {
			long u = hex4(s + i + 2, len - i - 2);
			if (u == 0)
				return json_dec_fail(d, NULL, "\\u0000 in a string at byte %zu", i);
			if (u >= 0xD800 && u <= 0xDBFF) {
				long lo = i + 7 < len && s[i + 6] == '\\' && s[i + 7] == 'u' ?
				    hex4(s + i + 8, len - i - 8) : -1;
				if (lo < 0xDC00 || lo > 0xDFFF)
					return json_dec_fail(d, NULL, "a lone surrogate \\u%04lX at "
					    "byte %zu", u, i);
				i += 12;
				continue;
			}
			if (u >= 0xDC00 && u <= 0xDFFF)
				return json_dec_fail(d, NULL, "a lone surrogate \\u%04lX at byte %zu",
				    u, i);
			i += u < 0 ? 2 : 6;
			continue;
		} else if (c == '\\') {
			i += 2;
			continue;
		}
		i++;
	}
	return 0;
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key said twice in one object, anywhere under v: 0, or -1 with where in d. */
static int
unique_keys(struct json_dec *d, const cJSON *v, const struct json_path *up)
{
	const cJSON *it;
	int n = 0, k = 0;

	for (it = v->child; it != NULL; it = it->next)
		n++;
	if (cJSON_IsObject(v) && n > 1 && n <= 32) {
		/* the usual object: a few keys, compared pairwise */
		for (const cJSON *a = v->child; a != NULL; a = a->next)
			for (const cJSON *b = a->next; b != NULL; b = b->next)
				if (a->string[0] == b->string[0] && strcmp(a->string, b->string) == 0)
					return json_dec_fail(d, up, "the key \"%.64s\" is given twice",
					    a->string);
	} else if (cJSON_IsObject(v) && n > 1) {
		const char **keys = malloc(n * sizeof(*keys));
		if (keys == NULL)
			return json_dec_fail(d, up, "out of memory");
		for (it = v->child; it != NULL; it = it->next)
			keys[k++] = it->string != NULL ? it->string : "";
		qsort(keys, n, sizeof(*keys), key_cmp);
		for (k = 1; k < n && strcmp(keys[k - 1], keys[k]) != 0; k++)
			;
		if (k < n)
			json_dec_fail(d, up, "the key \"%.64s\" is given twice", keys[k]);
		free(keys);
		if (k < n)
			return -1;
	}
	k = 0;
	for (it = v->child; it != NULL; it = it->next, k++) {
		struct json_path p = { up, cJSON_IsObject(v) ? it->string : NULL, k };
		if (it->child != NULL && unique_keys(d, it, &p) == -1)
			return -1;
	}
	return 0;
}

cJSON *
json_dec_object(const char *json, size_t len, size_t max, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root;

	json_dec_init(&d, err, errlen);
	if (json_dec_parse(&d, json, len, max, 1, &root) == -1) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

int
json_dec_no_fields(const char *json, size_t len, size_t max, char *err, size_t errlen)
{
	cJSON *root;
	int rc = 0;

	if (len == 0)
		return 0;
	if ((root = json_dec_object(json, len, max, err, errlen)) == NULL)
		return -1;
	if (root->child != NULL) {
		snprintf(err, errlen, "%.64s: this request takes no fields (send no body, or {})",
		    root->child->string);
		rc = -1;
	}
	cJSON_Delete(root);
	return rc;
}

int
json_dec_unique_keys(struct json_dec *d, const cJSON *root)
{
	return unique_keys(d, root, NULL);
}

int
json_dec_known_keys(struct json_dec *d, const cJSON *o, const struct json_path *p,
    const char *what, const char *const *keys)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, o) {
		size_t k = 0;
		while (keys[k] != NULL && strcmp(it->string, keys[k]) != 0)
			k++;
		if (keys[k] == NULL) {
			char list[256] = "";
			size_t n = 0;
			struct json_path kp = { p, it->string, 0 };
			for (k = 0; keys[k] != NULL && n < sizeof(list); k++) {
				int w = snprintf(list + n, sizeof(list) - n, "%s%s", k ? ", " : "",
				    keys[k]);
				n += w > 0 ? (size_t)w : 0;
			}
			return json_dec_fail(d, &kp, "not a field of %s (%s)", what, list);
		}
	}
	return 0;
}

int
json_dec_parse(struct json_dec *d, const char *json, size_t len, size_t max, int object,
    cJSON **root)
{
	const char *end = NULL;

	*root = NULL;
	if (json == NULL || len == 0)
		return json_dec_fail(d, NULL, "empty input");
	if (len > max)
		return json_dec_fail(d, NULL, "input of %zu bytes is over the limit of %zu",
		    len, max);
	if (strict_bytes(d, json, len) == -1)
		return -1;
	if ((*root = cJSON_ParseWithLengthOpts(json, len, &end, 0)) == NULL)
		return json_dec_fail(d, NULL, "invalid JSON near byte %td of %zu",
		    end != NULL ? end - json : (ptrdiff_t)0, len);
	if (!only_space(end, json + len))
		return json_dec_fail(d, NULL, "unexpected data after the JSON value "
		    "at byte %td", end - json);
	if (object && !cJSON_IsObject(*root))
		return json_dec_fail(d, NULL, "the top level must be a JSON object");
	return d->own_key_check ? 0 : unique_keys(d, *root, NULL);
}
