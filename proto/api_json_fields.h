/*
 * Private to api_json.c (which encodes and defines the tables) and
 * api_json_decode.c: one table per API object, listing its JSON keys in
 * output order with where each value lives in the struct and what input is
 * accepted for it.
 */
#ifndef TBMESH_API_JSON_FIELDS_H
#define TBMESH_API_JSON_FIELDS_H

#include <stddef.h>

/* Upper bound for unix-seconds fields: year 5138. */
#define API_TIME_MAX 1e11

enum api_kind {
	AK_STR,		/* char[size]; "" is null */
	AK_I64,		/* int64_t, REPORT_NULL_I64 is null; an integer lo..hi */
	AK_DBL,		/* double, NAN is null; lo..hi */
	AK_INT,		/* int, never null; an integer lo..hi */
	AK_BOOL,	/* int 0/1 as false/true; null reads as false */
	AK_ENUM,	/* an int-sized enum, as a string */
	AK_NAMES	/* struct api_names, as an array of strings */
};

/* An enum's values 0..count-1 and their names. */
struct api_enum {
	const char *what;		/* for errors: "a node state" */
	int count;
	const char *(*name)(int v);	/* v in 0..count-1 */
};

struct api_field {
	const char *key;		/* NULL ends a table */
	enum api_kind kind;
	size_t off;
	size_t size;			/* AK_STR: the buffer's size */
	double lo, hi;			/* AK_I64, AK_DBL, AK_INT */
	const struct api_enum *en;	/* AK_ENUM */
	int required;			/* must be present and not null */
};

extern const struct api_field api_node_fields[];
extern const struct api_field api_event_fields[];
extern const struct api_field api_token_fields[];
extern const struct api_field api_cluster_fields[];
extern const struct api_field api_enrolled_fields[];

#endif
