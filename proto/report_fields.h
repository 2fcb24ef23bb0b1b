/*
 * Internal to the report's JSON codec (report_json.c encodes,
 * report_json_decode.c decodes): the table that drives both directions
 * (json_table.h), from the top-level object down.
 */
#ifndef TBMESH_REPORT_FIELDS_H
#define TBMESH_REPORT_FIELDS_H

#include "json_table.h"
#include "report.h"

/* Upper bound for unix-seconds fields: year 5138. */
#define REPORT_TIME_MAX 1e11

/* Enum fields are read and written as int through the table. */
_Static_assert(sizeof(enum tri) == sizeof(int), "enum size");
_Static_assert(sizeof(enum port_status) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_port_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum netif_kind) == sizeof(int), "enum size");

/*
 * The report's keys, in the order report_encode writes them: "schema"
 * and "collected_at" must be present (collected_at may be null), the rest
 * may be absent.  In report_json.c.
 */
extern const struct json_field report_fields[];

#endif
