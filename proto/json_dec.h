/*
 * What every JSON decoder of proto/ shares: parsing a bounded input into
 * one cJSON value, strictly; where a value sits, and errors that name it
 * ("thunderbolt.ports[2].speed_gbps: must be a number or null").  The
 * table-driven decoder (json_table.h) is built on it.
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

/* The caller's error buffer (err may be NULL), and how keys are checked. */
struct json_dec {
	char *err;
	size_t errlen;
	/*
	 * Set by a decoder that visits every member of every object itself
	 * (the report's, through json_table_decode): json_dec_parse leaves a
	 * key given twice to it, and it counts in unknown the keys it does
	 * not know.
	 */
	int own_key_check;
	int unknown;
};

/* Point d at err[errlen] and empty it; keys checked by json_dec_parse. */
void json_dec_init(struct json_dec *d, char *err, size_t errlen);

/* Writes "path: message" (the message alone for p NULL); returns -1. */
int json_dec_fail(struct json_dec *d, const struct json_path *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For messages: v as people write it, digits when integral ("%g" else). */
const char *json_dec_num(char *buf, size_t size, double v);

/*
 * Copies the JSON string it (the caller has checked that it is one) into
 * dst[size], whole: 0, or -1 with why in d when it does not fit or, unless
 * empty_ok, is "" (an unknown value is null, never "").
 */
int json_dec_str(struct json_dec *d, const cJSON *it, const struct json_path *p, char *dst,
    size_t size, int empty_ok);

/*
 * json_dec_parse of a JSON object into a tree the caller deletes, or NULL
 * with why in err (for the decoders that keep their own error buffers).
 */
cJSON *json_dec_object(const char *json, size_t len, size_t max, char *err, size_t errlen);

/*
 * A body for a request that takes no fields: nothing, or the empty object.
 * 0, or -1 with why in err (a parse error, or "KEY: this request takes no
 * fields ...").
 */
int json_dec_no_fields(const char *json, size_t len, size_t max, char *err, size_t errlen);

/*
 * Every key of the object o is one of keys (NULL-terminated): a misspelt
 * key ("dryrun") is refused, not ignored.  0, or -1 with "KEY: not a field
 * of WHAT (key, key, ...)" in d; p is where o sits (NULL: the top level).
 */
int json_dec_known_keys(struct json_dec *d, const cJSON *o, const struct json_path *p,
    const char *what, const char *const *keys);

/*
 * No key given twice in any object under root: 0, or -1 with where in d.
 * json_dec_parse runs it unless d->own_key_check.
 */
int json_dec_unique_keys(struct json_dec *d, const cJSON *root);

/* A limit for inputs that have none of their own (answers read by tbctl). */
#define JSON_DEC_MAX ((size_t)64 << 20)

/*
 * Parse json[len] (no NUL needed) of at most max bytes, with nothing but
 * white space after the value.  *root gets the tree, for the caller to
 * delete whatever this returns; it is an object when this returns 0 and
 * object is set.  Returns 0, or -1 with why in d.
 *
 * Strict: a byte order mark, a NUL byte, malformed UTF-8, a raw control
 * character, "\u0000" or a lone surrogate escape in a string, and a key
 * given twice in one object are refused, as is anything after the value.
 */
int json_dec_parse(struct json_dec *d, const char *json, size_t len, size_t max,
    int object, cJSON **root);

#endif
