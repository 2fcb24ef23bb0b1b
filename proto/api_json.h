/*
 * JSON for the API objects of api.h.  Encoders return a malloc'd string
 * (free it) or NULL when out of memory.  Decoders return 0, or -1 with a
 * message naming the field in err; arrays come back malloc'd in *out with
 * their count in *n (free(*out)).
 *
 * JSON shapes (unknown values are null):
 *   node:    {"name","cluster","state","reason","unexpected_reboot","hardware_uuid",
 *             "serial","model","chip","os_version","os_build","rdma",
 *             "memory_total_bytes","memory_used_bytes","power_watts",
 *             "last_report_at","enrolled_at"}
 *   event:   {"id","time","actor","node","what","reason"}
 *   token:   {"id","role","cluster","node","label","created_at","expires_at",
 *             "used_at","revoked"}
 *   cluster: {"name","nodes","created_at"}
 *   error:   {"error": "..."}
 */
#ifndef TBMESH_API_JSON_H
#define TBMESH_API_JSON_H

#include <stddef.h>

#include "api.h"

/*
 * Decoders of request bodies (token request, reason, name, names) refuse
 * input longer than API_BODY_MAX; decoders of responses (what tbctl reads:
 * node, lists, enrolled, error, extract, pretty) refuse input longer than
 * this, which leaves room for a node's embedded report and long lists.
 */
#define API_JSON_RESPONSE_MAX ((size_t)16 << 20)

/* Longest ttl_seconds a token request may ask for: 100 years. */
#define API_TTL_MAX (100.0 * 365 * 86400)

/* {"error": msg}; msg is escaped. */
char *api_json_error(const char *msg);

/* One node; report_json (may be NULL) is embedded verbatim as "report". */
char *api_json_node(const struct api_node *n, const char *report_json);
/* {"nodes": [...]} */
char *api_json_nodes(const struct api_node *nodes, int n);
int api_json_decode_node(const char *json, size_t len, struct api_node *out, char *err,
    size_t errlen);
int api_json_decode_nodes(const char *json, size_t len, struct api_node **out, int *n,
    char *err, size_t errlen);

/* {"events": [...]} */
char *api_json_events(const struct api_event *ev, int n);
int api_json_decode_events(const char *json, size_t len, struct api_event **out, int *n,
    char *err, size_t errlen);

/* One token; secret (may be NULL) is added as "token" (only at creation). */
char *api_json_token(const struct api_token *t, const char *secret);
/* {"tokens": [...]} */
char *api_json_tokens(const struct api_token *t, int n);
/* One token; *secret gets its "token" ("" when absent); secret may be NULL. */
int api_json_decode_token(const char *json, size_t len, struct api_token *out, char *secret,
    size_t secretlen, char *err, size_t errlen);
int api_json_decode_tokens(const char *json, size_t len, struct api_token **out, int *n,
    char *err, size_t errlen);
/* {"role","ttl_seconds","cluster","label","accept"}: encode for tbctl, decode for the controller. */
char *api_json_token_request(const struct api_token_request *req);
int api_json_decode_token_request(const char *json, size_t len, struct api_token_request *out,
    char *err, size_t errlen);

/* One cluster; {"clusters": [...]} */
char *api_json_cluster(const struct api_cluster *c);
char *api_json_clusters(const struct api_cluster *c, int n);
int api_json_decode_cluster(const char *json, size_t len, struct api_cluster *out, char *err,
    size_t errlen);
int api_json_decode_clusters(const char *json, size_t len, struct api_cluster **out, int *n,
    char *err, size_t errlen);

/* {"node","token"} */
char *api_json_enrolled(const struct api_enrolled *e);
int api_json_decode_enrolled(const char *json, size_t len, struct api_enrolled *out, char *err,
    size_t errlen);

/*
 * Small request bodies.  {"reason": "..."}: *reason may be "" when the key is
 * absent.  {"name": "..."}.  {"nodes": ["a", ...]} (at most max names).
 */
char *api_json_reason(const char *reason);
int api_json_decode_reason(const char *json, size_t len, char *reason, size_t reasonlen,
    char *err, size_t errlen);
char *api_json_name(const char *name);
int api_json_decode_name(const char *json, size_t len, api_name name, char *err, size_t errlen);
char *api_json_names(const char *const *names, int n);
int api_json_decode_names(const char *json, size_t len, api_name *names, int max, int *n,
    char *err, size_t errlen);
/* {"serials": ["H9XK2J4F7Q", ...]}: serial numbers, each valid as a name. */
char *api_json_serials(const char *const *serials, int n);
int api_json_decode_serials(const char *json, size_t len, api_name *serials, int max, int *n,
    char *err, size_t errlen);

/* The "error" of an error body, into msg; -1 when the body is not one. */
int api_json_decode_error(const char *json, size_t len, char *msg, size_t msglen);

/* {"status": "ok", "version": version} for /healthz. */
char *api_json_health(const char *version);

/*
 * The value of the top-level key of the object json[len], as compact JSON
 * text in *out (malloc'd: free it).  Returns 0, or 1 with *out NULL when
 * the key is absent or null, or -1 when json is not a JSON object (or out of
 * memory).  tbctl uses it to hand a node's "report" to report_decode().
 * Numbers are re-printed by cJSON: exact for every value a double holds.
 */
int api_json_extract(const char *json, size_t len, const char *key, char **out);

/*
 * Pretty-print any JSON (for tbctl --json and node show): malloc'd, or
 * NULL when json does not parse.
 */
char *api_json_pretty(const char *json, size_t len);

#endif
