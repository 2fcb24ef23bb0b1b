/*
 * What the field-table JSON decoders (report_json_decode.c,
 * api_json_decode.c) share: where a value sits, errors that name it
 * ("thunderbolt.ports[2].speed_gbps: must be a number or null"), and
 * parsing a bounded input into one cJSON value.
 */
#ifndef TBMESH_JSON_DEC_H
#define TBMESH_JSON_DEC_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Where a value sits, as a chain of stack frames up to the top-level key:
 * formatted only when there is an error.
 */
struct json_path {
	const struct json_path *up;	/* NULL: a top-level key */
	const char *key;		/* NULL: an array element */
	int idx;
};

/* The caller's error buffer (err may be NULL). */
struct json_dec {
	char *err;
	size_t errlen;
};

/* Point d at err[errlen] and empty it. */
void json_dec_init(struct json_dec *d, char *err, size_t errlen);

/* Writes "path: message" (the message alone for p NULL); returns -1. */
int json_dec_fail(struct json_dec *d, const struct json_path *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For messages: v as people write it, digits when integral ("%g" else). */
const char *json_dec_num(char *buf, size_t size, double v);

/*
 * Parse json[len] (no NUL needed) of at most max bytes, with nothing but
 * white space after the value.  *root gets the tree, for the caller to
 * delete whatever this returns; it is an object when this returns 0 and
 * object is set.  Returns 0, or -1 with why in d.
 */
int json_dec_parse(struct json_dec *d, const char *json, size_t len, size_t max,
    int object, cJSON **root);

#endif
