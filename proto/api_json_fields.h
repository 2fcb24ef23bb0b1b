/*
 * Private to api_json.c (which encodes and defines the tables) and
 * api_json_decode.c: one table per API object (json_table.h), listing its
 * JSON keys in output order with where each value lives in the struct and
 * what input is accepted for it.
 */
#ifndef TBMESH_API_JSON_FIELDS_H
#define TBMESH_API_JSON_FIELDS_H

#include "json_table.h"

/* Upper bound for unix-seconds fields: year 5138. */
#define API_TIME_MAX 1e11

extern const struct json_field api_node_fields[];
extern const struct json_field api_event_fields[];
extern const struct json_field api_token_fields[];
extern const struct json_field api_cluster_fields[];
extern const struct json_field api_enrolled_fields[];

/*
 * A struct api_names from the present, non-null value it at p: an array of
 * at most API_ALLOW_MAX valid, distinct names (api_json_decode.c).
 */
int api_json_dec_names(struct json_dec *d, const cJSON *it, const struct json_path *p,
    void *dst);

#endif
