/*
 * The API objects of api.h as JSON: the field tables and the encoders.
 * Decoding is in api_json_decode.c, driven by the same tables.
 *
 * The conventions are the report's (report_json.c): a string "" is null, a
 * double NAN (or infinity) is null, an int64 REPORT_NULL_I64 is null, enums
 * are written as their names.  Numbers are formatted here and handed to
 * cJSON as raw text: integers in full, doubles in the shortest of %.15g,
 * %.16g and %.17g that reads back to the same bits, so a decoded struct is
 * bit for bit the one encoded.
 *
 * Encoders never fail on content: an enum value out of range is written as
 * null, a string buffer without a NUL as its whole contents.  They return
 * NULL only when out of memory.  Results come from cJSON's allocator, which
 * is malloc() as long as nobody calls cJSON_InitHooks().
 */
#include "api.h"
#include "api_json.h"
#include "api_json_fields.h"
#include "json_enc.h"
#include "json_table.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enum fields are read and written as int through the tables. */
_Static_assert(sizeof(enum node_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum token_role) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_state) == sizeof(int), "enum size");

/* Event ids are exact in a double up to 2^53. */
#define API_ID_MAX 9007199254740992.0
#define API_COUNT_MAX 1e9

JSON_ENUM_NAMES(state_name, api_node_state_str, enum node_state)
JSON_ENUM_NAMES(role_name, api_role_str, enum token_role)
JSON_ENUM_NAMES(rdma_name, report_rdma_state_str, enum rdma_state)

static const struct json_enum node_state_enum = { NODE_STATE_COUNT, state_name,
    "a node state", -1 };
static const struct json_enum role_enum = { ROLE_COUNT, role_name, "a role", -1 };
static const struct json_enum rdma_enum = { RDMA_STATE_DISABLED + 1, rdma_name,
    "an RDMA state", -1 };

static cJSON *
make_names(const void *src)
{
	const struct api_names *l = src;
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a != NULL && i < l->n && i < API_ALLOW_MAX; i++)
		if (json_enc_attach(a, NULL, json_enc_str(l->v[i], sizeof(l->v[i]))) != 0) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

static const struct json_custom names_codec = { api_json_dec_names, make_names };

/* Required keys, and optional ones (absent or null: the member's null). */
#define REQ JF_VALUE
#define OPT 0
#define F_I64(t, m, hi, req) JSON_I64(t, m, 0, hi, req)
#define F_TIME(t, m) JSON_DBL(t, m, 0, API_TIME_MAX, OPT)

const struct json_field api_node_fields[] = {
	JSON_STR(struct api_node, name, REQ),
	JSON_STR(struct api_node, cluster, OPT),
	JSON_ENUM(struct api_node, state, &node_state_enum, REQ),
	JSON_STR(struct api_node, reason, OPT),
	JSON_BOOL(struct api_node, unexpected_reboot),
	JSON_STR(struct api_node, hardware_uuid, OPT),
	JSON_STR(struct api_node, serial, OPT),
	JSON_STR(struct api_node, model, OPT),
	JSON_STR(struct api_node, chip, OPT),
	JSON_STR(struct api_node, os_version, OPT),
	JSON_STR(struct api_node, os_build, OPT),
	JSON_ENUM(struct api_node, rdma, &rdma_enum, OPT),
	F_I64(struct api_node, memory_total_bytes, REPORT_BYTES_MAX, OPT),
	F_I64(struct api_node, memory_used_bytes, REPORT_BYTES_MAX, OPT),
	JSON_DBL(struct api_node, power_watts, 0, REPORT_WATTS_MAX, OPT),
	F_TIME(struct api_node, last_report_at),
	F_TIME(struct api_node, enrolled_at),
	JSON_END,
};

const struct json_field api_event_fields[] = {
	F_I64(struct api_event, id, API_ID_MAX, REQ),
	F_TIME(struct api_event, time),
	JSON_STR(struct api_event, actor, OPT),
	JSON_STR(struct api_event, node, OPT),
	JSON_STR(struct api_event, what, OPT),
	JSON_STR(struct api_event, reason, OPT),
	JSON_END,
};

const struct json_field api_token_fields[] = {
	JSON_STR(struct api_token, id, REQ),
	JSON_ENUM(struct api_token, role, &role_enum, REQ),
	JSON_STR(struct api_token, cluster, OPT),
	JSON_STR(struct api_token, node, OPT),
	JSON_STR(struct api_token, label, OPT),
	F_TIME(struct api_token, created_at),
	F_TIME(struct api_token, expires_at),
	F_TIME(struct api_token, used_at),
	JSON_BOOL(struct api_token, revoked),
	JSON_BOOL(struct api_token, accept),
	JSON_BOOL(struct api_token, pending),
	JSON_END,
};

const struct json_field api_cluster_fields[] = {
	JSON_STR(struct api_cluster, name, REQ),
	JSON_INT_AT("nodes", struct api_cluster, n_nodes, 0, API_COUNT_MAX),
	F_TIME(struct api_cluster, created_at),
	JSON_CUSTOM(struct api_cluster, allow, &names_codec),
	JSON_END,
};

const struct json_field api_enrolled_fields[] = {
	JSON_STR(struct api_enrolled, node, REQ),
	JSON_STR(struct api_enrolled, token, REQ),
	JSON_ENUM(struct api_enrolled, state, &node_state_enum, OPT),
	JSON_END,
};

/* Prints root without indentation and deletes it; root may be NULL. */
static char *
print(cJSON *root, int ok)
{
	char *s = NULL;

	if (root != NULL && ok)
		s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

/* {key: [n objects]}, element i at base + i * stride. */
static char *
make_list(const char *key, const void *base, size_t stride, int n,
    const struct json_field *f)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	int i, rc;

	if (root == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	rc = json_enc_attach(root, key, a);
	for (i = 0; rc == 0 && i < n; i++)
		rc = json_enc_attach(a, NULL, json_table_object((const char *)base +
		    (size_t)i * stride, f));
	return print(root, rc == 0);
}

/* A C string (may be NULL), whole: "" and NULL are null. */
static cJSON *
make_cstr(const char *s)
{
	return json_enc_str(s, s != NULL ? strlen(s) + 1 : 0);
}

/* {key: s}; s may be NULL. */
static char *
make_single(const char *key, const char *s)
{
	cJSON *root = cJSON_CreateObject();

	if (root == NULL)
		return NULL;
	return print(root, json_enc_attach(root, key, make_cstr(s)) == 0);
}

char *
api_json_error(const char *msg)
{
	cJSON *root = cJSON_CreateObject();

	if (root == NULL)
		return NULL;
	return print(root, json_enc_attach(root, "error",
	    cJSON_CreateString(msg != NULL ? msg : "")) == 0);
}

/* report_json must be valid JSON: it is copied into the output unchecked. */
char *
api_json_node(const struct api_node *n, const char *report_json)
{
	cJSON *root = json_table_object(n, api_node_fields);
	int rc = 0;

	if (root != NULL && report_json != NULL && report_json[0] != '\0')
		rc = json_enc_attach(root, "report", cJSON_CreateRaw(report_json));
	return print(root, rc == 0);
}

char *
api_json_nodes(const struct api_node *nodes, int n)
{
	return make_list("nodes", nodes, sizeof(*nodes), n, api_node_fields);
}

char *
api_json_events(const struct api_event *ev, int n)
{
	return make_list("events", ev, sizeof(*ev), n, api_event_fields);
}

char *
api_json_token(const struct api_token *t, const char *secret)
{
	cJSON *root = json_table_object(t, api_token_fields);
	int rc = 0;

	if (root != NULL && secret != NULL && secret[0] != '\0')
		rc = json_enc_attach(root, "token", cJSON_CreateString(secret));
	return print(root, rc == 0);
}

char *
api_json_tokens(const struct api_token *t, int n)
{
	return make_list("tokens", t, sizeof(*t), n, api_token_fields);
}

char *
api_json_token_request(const struct api_token_request *req)
{
	cJSON *root = cJSON_CreateObject();
	int rc;

	if (root == NULL)
		return NULL;
	rc = json_enc_attach(root, "role", json_table_enum(&role_enum, (int)req->role));
	rc |= json_enc_attach(root, "ttl_seconds", json_enc_double(req->ttl_seconds));
	rc |= json_enc_attach(root, "cluster", json_enc_str(req->cluster,
	    sizeof(req->cluster)));
	rc |= json_enc_attach(root, "label", json_enc_str(req->label, sizeof(req->label)));
	if (req->accept)
		rc |= json_enc_attach(root, "accept", cJSON_CreateBool(1));
	return print(root, rc == 0);
}

char *
api_json_cluster(const struct api_cluster *c)
{
	return print(json_table_object(c, api_cluster_fields), 1);
}

char *
api_json_clusters(const struct api_cluster *c, int n)
{
	return make_list("clusters", c, sizeof(*c), n, api_cluster_fields);
}

char *
api_json_enrolled(const struct api_enrolled *e)
{
	return print(json_table_object(e, api_enrolled_fields), 1);
}

char *
api_json_reason(const char *reason)
{
	return make_single("reason", reason);
}

char *
api_json_name(const char *name)
{
	return make_single("name", name);
}

/* A NULL or "" name is written as null (and refused on input). */
char *
api_json_names(const char *const *names, int n)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	int i, rc;

	if (root == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	rc = json_enc_attach(root, "nodes", a);
	for (i = 0; rc == 0 && i < n; i++)
		rc = json_enc_attach(a, NULL, make_cstr(names[i]));
	return print(root, rc == 0);
}

char *
api_json_serials(const char *const *serials, int n)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	int i, rc;

	if (root == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	rc = json_enc_attach(root, "serials", a);
	for (i = 0; rc == 0 && i < n; i++)
		rc = json_enc_attach(a, NULL, make_cstr(serials[i]));
	return print(root, rc == 0);
}

char *
api_json_health(const char *version)
{
	cJSON *root = cJSON_CreateObject();
	int rc;

	if (root == NULL)
		return NULL;
	rc = json_enc_attach(root, "status", cJSON_CreateStringReference("ok"));
	rc |= json_enc_attach(root, "version", make_cstr(version));
	return print(root, rc == 0);
}
