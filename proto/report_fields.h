/*
 * Internal to the report's JSON codec (report_json.c encodes,
 * report_json_decode.c decodes): the tables that drive both directions, one
 * per JSON object, and the number format both use.
 */
#ifndef TBMESH_REPORT_FIELDS_H
#define TBMESH_REPORT_FIELDS_H

#include <stddef.h>

#include "report.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* An array member as base, stride, number of elements. */
#define ARRAY(a) (a), sizeof((a)[0]), (int)NELEM(a)

/* Upper bound for unix-seconds fields: year 5138. */
#define REPORT_TIME_MAX 1e11

/* Enum fields are read and written as int through the tables. */
_Static_assert(sizeof(enum port_status) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_port_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum netif_kind) == sizeof(int), "enum size");
_Static_assert(PORT_STATUS_EMPTY == 2 && RDMA_STATE_DISABLED == 2 &&
    RDMA_PORT_DOWN == 2 && NETIF_KIND_OTHER == 3,
    "enum values index the *_names arrays");

enum kind { K_STR, K_I64, K_DBL, K_TRI, K_ENUM };

/*
 * One scalar member of a JSON object, stored at off in its struct.  A table
 * lists an object's members in output order and ends with F_END.
 */
struct field {
	const char *key;		/* JSON key, also the member's name */
	enum kind kind;
	size_t off;
	size_t size;			/* K_STR: buffer size; K_ENUM: names */
	double lo, hi;			/* K_DBL: accepted range */
	const char *const *names;	/* K_ENUM: names[value]; a NULL names[0]
					   makes value 0 null, not a name */
};

/* The tables, in report_json.c.  The keys named beside one are handled by hand. */
extern const struct field report_fields_top[];
extern const struct field report_fields_node[];
extern const struct field report_fields_port[];      /* followed by "ipv4", "peer" */
extern const struct field report_fields_peer[];
extern const struct field report_fields_bridge[];    /* followed by "members" */
extern const struct field report_fields_rdma[];      /* followed by "devices" */
extern const struct field report_fields_device[];
extern const struct field report_fields_netif[];     /* followed by "ipv4" */
extern const struct field report_fields_memory[];
extern const struct field report_fields_power[];
extern const struct field report_fields_thermal[];
extern const struct field report_fields_agent[];
extern const struct field report_fields_error[];

#endif
