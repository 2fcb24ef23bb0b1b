/*
 * The table-driven JSON codec of the wire format's objects (the report's in
 * report_json*.c, the API's in api_json*.c).  A table lists an object's keys
 * in the order they are written, each with where its value sits in the
 * struct, its type and what input is accepted; an object or an array of
 * objects inside it has a table of its own.
 *
 * Decoding is strict about what it knows and lenient about what it does
 * not.  A known key with the wrong type, a value out of range, a string that
 * does not fit its buffer (never truncated) or is empty ("" is not a value:
 * unknown is null), an array longer than its buffer, a name that is not one
 * of an enum's: each is an error naming the field's path (json_dec.h).  A
 * key the table does not have is counted in d->unknown and skipped; a key
 * of the table given twice is refused.  An absent or null value leaves its
 * member as it was, so the caller sets the struct to null first (its own
 * init function, or json_table_null).
 *
 * Encoding writes every key of the table, null where the value is: "" for a
 * string, REPORT_NULL_I64 for an int64, NAN or an infinity for a double,
 * TRI_NULL for a tri-state, a count below 0 for an array.
 */
#ifndef TBMESH_JSON_TABLE_H
#define TBMESH_JSON_TABLE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "json_dec.h"

enum json_type {
	JT_STR,		/* char[size] */
	JT_I64,		/* int64_t, an integer in lo..hi */
	JT_INT,		/* int, an integer in lo..hi; never null on output */
	JT_DBL,		/* double in lo..hi */
	JT_BOOL,	/* int, 1 or 0; never null on output */
	JT_TRI,		/* enum tri (report.h) */
	JT_ENUM,	/* an int-sized enum, as one of en's names */
	JT_CONST,	/* no member: the string value, which input must repeat */
	JT_OBJECT,	/* a struct with the table sub */
	JT_ARRAY,	/* int count at n_off; max elements of size bytes: objects
			   with the table sub, or strings in char[size] (sub NULL) */
	JT_CUSTOM	/* by the functions of custom */
};

/* flags */
#define JF_KEY 1	/* the key must be present ("missing") */
#define JF_VALUE 3	/* present and not null: no type message offers null */
#define JF_FLAG 4	/* JT_OBJECT: the int at n_off is 1 when the object is
			   there, and null is written when it is 0 */
#define JF_EXACT 8	/* JT_I64: a refused value shown with all its digits,
			   as json_fmt_double writes them, not as "%g" */

/* An int-sized enum's values 0..count-1 and their names. */
struct json_enum {
	int count;
	const char *(*name)(int v);	/* v in 0..count-1; NULL: v is null */
	const char *what;		/* for errors, "a node state"; NULL: the
					   error lists the names */
	int other;			/* a value out of range is written as this
					   one's name; -1: as null */
};

/*
 * Defines static const char *name(int v), the names of a json_enum, from
 * fn, which names a value of an enum type.
 */
#define JSON_ENUM_NAMES(name, fn, type) \
	static const char *name(int v) \
	{ \
		return fn((type)v); \
	}

/* A member read and written by functions of its own. */
struct json_custom {
	/* it is present and not null; 0, or -1 with why in d */
	int (*decode)(struct json_dec *d, const cJSON *it, const struct json_path *p,
	    void *dst);
	/* NULL when out of memory */
	cJSON *(*encode)(const void *src);
};

struct json_field {
	const char *key;		/* NULL ends a table */
	enum json_type type;
	unsigned flags;			/* JF_* */
	size_t off;			/* where the member is in the struct */
	size_t size;			/* JT_STR: the buffer's; JT_ARRAY: an element's */
	double lo, hi;			/* JT_I64, JT_INT, JT_DBL: what is accepted */
	const struct json_enum *en;	/* JT_ENUM */
	const char *value;		/* JT_CONST */
	const struct json_field *sub;	/* JT_OBJECT, JT_ARRAY */
	size_t n_off;			/* JT_ARRAY; JT_OBJECT with JF_FLAG */
	int max;			/* JT_ARRAY */
	void (*init)(void *elem);	/* JT_ARRAY of objects: an element's nulls */
	/* after a value (each element of a JT_ARRAY) is decoded: 0, or -1 */
	int (*check)(struct json_dec *d, const struct json_path *p, const void *v);
	const struct json_custom *custom;	/* JT_CUSTOM */
};

/* The most keys a table may have. */
#define JSON_TABLE_KEYS 24

#define JSON_MSIZE(t, m) sizeof(((t *)0)->m)
#define JSON_NELEM(t, m) (sizeof(((t *)0)->m) / sizeof(((t *)0)->m[0]))

/* Fields named as the members they are read into. */
#define JSON_STR(t, m, fl) \
	{ .key = #m, .type = JT_STR, .flags = (fl), .off = offsetof(t, m), \
	  .size = JSON_MSIZE(t, m) }
#define JSON_I64(t, m, lo_, hi_, fl) \
	{ .key = #m, .type = JT_I64, .flags = (fl), .off = offsetof(t, m), .lo = (lo_), \
	  .hi = (hi_) }
#define JSON_DBL(t, m, lo_, hi_, fl) \
	{ .key = #m, .type = JT_DBL, .flags = (fl), .off = offsetof(t, m), .lo = (lo_), \
	  .hi = (hi_) }
#define JSON_BOOL(t, m) { .key = #m, .type = JT_BOOL, .off = offsetof(t, m) }
#define JSON_TRI(t, m) { .key = #m, .type = JT_TRI, .off = offsetof(t, m) }
#define JSON_ENUM(t, m, en_, fl) \
	{ .key = #m, .type = JT_ENUM, .flags = (fl), .off = offsetof(t, m), .en = (en_) }
#define JSON_OBJECT(t, m, sub_) \
	{ .key = #m, .type = JT_OBJECT, .off = offsetof(t, m), .sub = (sub_) }
/* An object that may be null: the int member has says whether it is there. */
#define JSON_OBJECT_OR_NULL(t, m, has, sub_) \
	{ .key = #m, .type = JT_OBJECT, .flags = JF_FLAG, .off = offsetof(t, m), \
	  .sub = (sub_), .n_off = offsetof(t, has) }
/* The array member m, its count in the int member n. */
#define JSON_ARRAY(t, m, n, sub_, init_, check_) \
	{ .key = #m, .type = JT_ARRAY, .off = offsetof(t, m), \
	  .size = JSON_MSIZE(t, m[0]), .max = (int)JSON_NELEM(t, m), \
	  .n_off = offsetof(t, n), .sub = (sub_), .init = (init_), .check = (check_) }
#define JSON_CUSTOM(t, m, custom_) \
	{ .key = #m, .type = JT_CUSTOM, .off = offsetof(t, m), .custom = (custom_) }
/* Fields with a key of their own. */
#define JSON_INT_AT(k, t, m, lo_, hi_) \
	{ .key = (k), .type = JT_INT, .off = offsetof(t, m), .lo = (lo_), .hi = (hi_) }
#define JSON_CONST(k, v) { .key = (k), .type = JT_CONST, .flags = JF_KEY, .value = (v) }
#define JSON_END { .key = NULL }

/*
 * Decodes the object obj into base by the table t; up is where obj sits
 * (NULL: the top level).  0, or -1 with why in d.  Every key of every
 * object under obj is looked at once: a key of obj given twice is refused
 * here, a key of no table is counted in d->unknown (whose objects were not
 * looked into: json_dec_unique_keys).
 */
int json_table_decode(struct json_dec *d, const cJSON *obj, const struct json_path *up,
    void *base, const struct json_field *t);

/* Sets the struct at base (size bytes) to zero bytes, and t's members to null. */
void json_table_null(void *base, size_t size, const struct json_field *t);

/*
 * {t's keys with base's values}, a tree the caller deletes, or NULL when
 * out of memory.
 */
cJSON *json_table_object(const void *base, const struct json_field *t);

/* The enum value v as a JSON string, or null; NULL when out of memory. */
cJSON *json_table_enum(const struct json_enum *en, int v);

#endif
