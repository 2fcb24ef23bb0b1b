/*
 * Decoding the API's JSON (api_json.h): the objects by the tables of
 * api_json.c (json_table_decode), the request bodies by hand.
 *
 * As for the report (report_json.c): a known key with the wrong type, a
 * value out of range, a string that does not fit its buffer (never
 * truncated) or an empty one ("" is not a value: unknown is null), an enum
 * name nobody knows: each is an error naming the field's path
 * ("nodes[3].state: \"sleeping\" is not a node state").  In answers,
 * unknown keys are ignored (a node's "report" among them) and a missing
 * optional key reads as null; in request bodies an unknown key is refused
 * (json_dec_known_keys).  A key given twice is refused everywhere
 * (json_dec_parse).
 *
 * Request bodies, which people write, are more forgiving about "" (it reads
 * as "none") and stricter about names: a node or cluster name must pass
 * api_name_valid().  Names in responses are only checked for type and
 * length, so that tbctl can still list a node whose name is odd.
 */
#include "api.h"
#include "api_json.h"
#include "api_json_fields.h"
#include "json_dec.h"
#include "json_table.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_RULE "1 to 63 letters, digits, '.', '_' or '-', " \
	"not starting with '.' or '-'"

/* ---- objects and lists ---- */

/* Decodes the table's fields of obj into base, set to null first. */
static int
dec_fields(struct json_dec *d, const cJSON *obj, const struct json_path *up,
    void *base, size_t size, const struct json_field *f)
{
	json_table_null(base, size, f);
	return json_table_decode(d, obj, up, base, f);
}

/* One response object, the whole of json[len], into base[size]. */
static int
dec_one(const char *json, size_t len, void *base, size_t size,
    const struct json_field *f, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	json_table_null(base, size, f);
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0)
		rc = dec_fields(&d, root, NULL, base, size, f);
	cJSON_Delete(root);
	return rc;
}

/* The array key of root, which must be present; *a gets it. */
static int
dec_array(struct json_dec *d, const cJSON *root, const struct json_path *p,
    const char *what, const cJSON **a)
{
	*a = cJSON_GetObjectItemCaseSensitive(root, p->key);
	if (*a == NULL)
		return json_dec_fail(d, p, "missing");
	if (!cJSON_IsArray(*a))
		return json_dec_fail(d, p, "must be an array of %s", what);
	return 0;
}

/* The objects of array a into a malloc'd *out of elements of size bytes. */
static int
dec_elems(struct json_dec *d, const cJSON *a, const struct json_path *p, size_t size,
    const struct json_field *f, void **out, int *n)
{
	struct json_path ep = { p, NULL, 0 };
	const cJSON *e;
	char *buf;
	int count = cJSON_GetArraySize(a), rc;

	if ((buf = calloc(count > 0 ? (size_t)count : 1, size)) == NULL)
		return json_dec_fail(d, p, "out of memory");
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsObject(e))
			rc = json_dec_fail(d, &ep, "must be an object");
		else
			rc = dec_fields(d, e, &ep, buf + (size_t)ep.idx * size,
			    size, f);
		if (rc == -1) {
			free(buf);
			return -1;
		}
		ep.idx++;
	}
	*out = buf;
	*n = ep.idx;
	return 0;
}

/* {key: [objects]}: *out is malloc'd (never NULL on success). */
static int
dec_list(const char *json, size_t len, const char *key, size_t size,
    const struct json_field *f, void **out, int *n, char *err, size_t errlen)
{
	struct json_path p = { NULL, key, 0 };
	struct json_dec d;
	const cJSON *a;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	*out = NULL;
	*n = 0;
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0 &&
	    dec_array(&d, root, &p, "objects", &a) == 0)
		rc = dec_elems(&d, a, &p, size, f, out, n);
	cJSON_Delete(root);
	return rc;
}

/* ---- responses ---- */

int
api_json_decode_node(const char *json, size_t len, struct api_node *out,
    char *err, size_t errlen)
{
	return dec_one(json, len, out, sizeof(*out), api_node_fields, err,
	    errlen);
}

int
api_json_decode_nodes(const char *json, size_t len, struct api_node **out,
    int *n, char *err, size_t errlen)
{
	return dec_list(json, len, "nodes", sizeof(**out), api_node_fields,
	    (void **)out, n, err, errlen);
}

int
api_json_decode_events(const char *json, size_t len, struct api_event **out,
    int *n, char *err, size_t errlen)
{
	return dec_list(json, len, "events", sizeof(**out), api_event_fields,
	    (void **)out, n, err, errlen);
}

int
api_json_decode_tokens(const char *json, size_t len, struct api_token **out,
    int *n, char *err, size_t errlen)
{
	return dec_list(json, len, "tokens", sizeof(**out), api_token_fields,
	    (void **)out, n, err, errlen);
}

int
api_json_decode_clusters(const char *json, size_t len,
    struct api_cluster **out, int *n, char *err, size_t errlen)
{
	return dec_list(json, len, "clusters", sizeof(**out),
	    api_cluster_fields, (void **)out, n, err, errlen);
}

int
api_json_decode_cluster(const char *json, size_t len, struct api_cluster *out,
    char *err, size_t errlen)
{
	return dec_one(json, len, out, sizeof(*out), api_cluster_fields, err,
	    errlen);
}

int
api_json_decode_enrolled(const char *json, size_t len,
    struct api_enrolled *out, char *err, size_t errlen)
{
	return dec_one(json, len, out, sizeof(*out), api_enrolled_fields, err,
	    errlen);
}

/* The optional "token" of root into secret[size] ("" when absent). */
static int
dec_secret(struct json_dec *d, const cJSON *root, char *secret, size_t size)
{
	static const struct json_path p = { NULL, "token", 0 };
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, p.key);

	if (secret == NULL || size == 0)
		return 0;
	secret[0] = '\0';
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it))
		return json_dec_fail(d, &p, "must be a string or null");
	return json_dec_str(d, it, &p, secret, size, 0);
}

int
api_json_decode_token(const char *json, size_t len, struct api_token *out,
    char *secret, size_t secretlen, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	json_table_null(out, sizeof(*out), api_token_fields);
	if (secret != NULL && secretlen > 0)
		secret[0] = '\0';
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0 &&
	    dec_fields(&d, root, NULL, out, sizeof(*out),
	    api_token_fields) == 0)
		rc = dec_secret(&d, root, secret, secretlen);
	cJSON_Delete(root);
	return rc;
}

/* Copies the message truncated: it is for showing, not for keeping. */
int
api_json_decode_error(const char *json, size_t len, char *msg, size_t msglen)
{
	struct json_dec d;
	const cJSON *it;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, NULL, 0);
	if (msg != NULL && msglen > 0)
		msg[0] = '\0';
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0) {
		it = cJSON_GetObjectItemCaseSensitive(root, "error");
		if (cJSON_IsString(it)) {
			if (msg != NULL && msglen > 0)
				snprintf(msg, msglen, "%s", it->valuestring);
			rc = 0;
		}
	}
	cJSON_Delete(root);
	return rc;
}

int
api_json_extract(const char *json, size_t len, const char *key, char **out)
{
	struct json_dec d;
	const cJSON *it;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, NULL, 0);
	*out = NULL;
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 1, &root) == 0) {
		it = cJSON_GetObjectItemCaseSensitive(root, key);
		if (it == NULL || cJSON_IsNull(it))
			rc = 1;
		else if ((*out = cJSON_PrintUnformatted(it)) != NULL)
			rc = 0;
	}
	cJSON_Delete(root);
	return rc;
}

char *
api_json_pretty(const char *json, size_t len)
{
	struct json_dec d;
	cJSON *root;
	char *s = NULL;

	json_dec_init(&d, NULL, 0);
	if (json_dec_parse(&d, json, len, API_JSON_RESPONSE_MAX, 0, &root) == 0)
		s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

/* ---- requests ---- */

/* A valid name in the string it (checked to be one) into dst. */
static int
dec_name(struct json_dec *d, const cJSON *it, const struct json_path *p, char *dst)
{
	if (json_dec_str(d, it, p, dst, sizeof(api_name), 1) == -1)
		return -1;
	if (!api_name_valid(dst))
		return json_dec_fail(d, p, "\"%s\" is not a valid name (%s)", dst,
		    NAME_RULE);
	return 0;
}

/* The optional key of root into dst[size]: absent, null and "" are "". */
static int
dec_opt_str(struct json_dec *d, const cJSON *root, const char *key, char *dst,
    size_t size, int name)
{
	struct json_path p = { NULL, key, 0 };
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);

	dst[0] = '\0';
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it))
		return json_dec_fail(d, &p, "must be a string or null");
	if (name && it->valuestring[0] != '\0')
		return dec_name(d, it, &p, dst);
	/* free text is logged and shown: one line of printable characters */
	for (const unsigned char *c = (const unsigned char *)it->valuestring; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return json_dec_fail(d, &p, "must not contain control characters");
	return json_dec_str(d, it, &p, dst, size, 1);
}

static int
dec_role(struct json_dec *d, const cJSON *root, enum token_role *role)
{
	static const struct json_path p = { NULL, "role", 0 };
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, p.key);

	if (it == NULL || cJSON_IsNull(it))
		return json_dec_fail(d, &p, "missing (\"admin\", \"viewer\" or "
		    "\"bootstrap\")");
	if (!cJSON_IsString(it))
		return json_dec_fail(d, &p, "must be a string");
	if (api_role_parse(it->valuestring, role) == -1)
		return json_dec_fail(d, &p, "\"%.64s\" is not a role", it->valuestring);
	if (*role == ROLE_NODE)
		return json_dec_fail(d, &p, "node tokens are only issued at enrolment");
	return 0;
}

static int
dec_ttl(struct json_dec *d, const cJSON *root, enum token_role role, double *ttl)
{
	static const struct json_path p = { NULL, "ttl_seconds", 0 };
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, p.key);

	*ttl = NAN;
	if (it == NULL || cJSON_IsNull(it)) {
		if (role == ROLE_BOOTSTRAP)
			return json_dec_fail(d, &p, "a bootstrap token needs a time to "
			    "live");
		return 0;
	}
	if (!cJSON_IsNumber(it) || !(it->valuedouble > 0))
		return json_dec_fail(d, &p, "must be a positive number or null");
	if (it->valuedouble > API_TTL_MAX)
		return json_dec_fail(d, &p, "%g is over the limit of %g (100 years)",
		    it->valuedouble, API_TTL_MAX);
	*ttl = it->valuedouble;
	return 0;
}

/* "accept": an optional boolean, for bootstrap tokens only. */
static int
dec_accept(struct json_dec *d, const cJSON *root, enum token_role role, int *accept)
{
	static const struct json_path p = { NULL, "accept", 0 };
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, p.key);

	*accept = 0;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsBool(it))
		return json_dec_fail(d, &p, "must be true, false or null");
	*accept = cJSON_IsTrue(it) ? 1 : 0;
	if (*accept && role != ROLE_BOOTSTRAP)
		return json_dec_fail(d, &p, "only a bootstrap token can be pre-approved");
	return 0;
}

/*
 * "cluster": the cluster a bootstrap token's node joins.  An admin or
 * viewer token sees every cluster: one named for it would mislead.
 */
static int
dec_token_cluster(struct json_dec *d, enum token_role role, const char *cluster)
{
	static const struct json_path p = { NULL, "cluster", 0 };

	if (cluster[0] != '\0' && role != ROLE_BOOTSTRAP)
		return json_dec_fail(d, &p, "only a bootstrap token names a cluster "
		    "(admin and viewer tokens see every cluster)");
	return 0;
}

/* The keys of the request bodies (json_dec_known_keys). */
static const char *const token_keys[] = { "role", "ttl_seconds", "cluster", "accept", "label",
	NULL };
static const char *const reason_keys[] = { "reason", NULL };
static const char *const name_keys[] = { "name", NULL };
static const char *const serials_keys[] = { "serials", NULL };
static const char *const nodes_keys[] = { "nodes", NULL };

int
api_json_decode_token_request(const char *json, size_t len,
    struct api_token_request *out, char *err, size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	memset(out, 0, sizeof(*out));
	out->ttl_seconds = NAN;
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "a token request", token_keys) == 0 &&
	    dec_role(&d, root, &out->role) == 0 &&
	    dec_ttl(&d, root, out->role, &out->ttl_seconds) == 0 &&
	    dec_opt_str(&d, root, "cluster", out->cluster,
	    sizeof(out->cluster), 1) == 0 &&
	    dec_token_cluster(&d, out->role, out->cluster) == 0 &&
	    dec_accept(&d, root, out->role, &out->accept) == 0)
		rc = dec_opt_str(&d, root, "label", out->label,
		    sizeof(out->label), 0);
	cJSON_Delete(root);
	return rc;
}

/* reasonlen bounds the reason as well as API_REASON_MAX does. */
int
api_json_decode_reason(const char *json, size_t len, char *reason,
    size_t reasonlen, char *err, size_t errlen)
{
	size_t size = reasonlen < API_REASON_MAX + 1 ? reasonlen :
	    API_REASON_MAX + 1;
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	if (reasonlen == 0)
		return json_dec_fail(&d, NULL, "no room for the reason");
	reason[0] = '\0';
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "this request", reason_keys) == 0)
		rc = dec_opt_str(&d, root, "reason", reason, size, 0);
	cJSON_Delete(root);
	return rc;
}

int
api_json_decode_name(const char *json, size_t len, api_name name, char *err,
    size_t errlen)
{
	static const struct json_path p = { NULL, "name", 0 };
	const cJSON *it;
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	memset(name, 0, sizeof(api_name));
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "this request", name_keys) == 0) {
		it = cJSON_GetObjectItemCaseSensitive(root, p.key);
		if (it == NULL || cJSON_IsNull(it))
			json_dec_fail(&d, &p, "missing");
		else if (!cJSON_IsString(it))
			json_dec_fail(&d, &p, "must be a string");
		else
			rc = dec_name(&d, it, &p, name);
	}
	cJSON_Delete(root);
	return rc;
}

/* Valid, distinct names from the array a into names[max]. */
static int
dec_name_elems(struct json_dec *d, const cJSON *a, const struct json_path *p,
    api_name *names, int max, int *n)
{
	struct json_path ep = { p, NULL, 0 };
	const cJSON *e;
	int i;

	if (cJSON_GetArraySize(a) > max)
		return json_dec_fail(d, p, "more than %d names", max);
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e))
			return json_dec_fail(d, &ep, "must be a string");
		if (dec_name(d, e, &ep, names[ep.idx]) == -1)
			return -1;
		for (i = 0; i < ep.idx; i++)
			if (strcmp(names[i], names[ep.idx]) == 0)
				return json_dec_fail(d, &ep, "\"%s\" is listed twice",
				    names[i]);
		ep.idx++;
	}
	*n = ep.idx;
	return 0;
}

int
api_json_dec_names(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst)
{
	struct api_names *l = dst;

	if (!cJSON_IsArray(it))
		return json_dec_fail(d, p, "must be an array of names");
	return dec_name_elems(d, it, p, l->v, API_ALLOW_MAX, &l->n);
}

int
api_json_decode_serials(const char *json, size_t len, api_name *serials, int max,
    int *n, char *err, size_t errlen)
{
	struct json_path p = { NULL, "serials", 0 };
	struct json_dec d;
	const cJSON *a;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	*n = 0;
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "this request", serials_keys) == 0 &&
	    dec_array(&d, root, &p, "serial numbers", &a) == 0)
		rc = dec_name_elems(&d, a, &p, serials, max < 0 ? 0 : max, n);
	if (rc == 0 && *n == 0)
		rc = json_dec_fail(&d, &p, "must list at least one serial number");
	cJSON_Delete(root);
	return rc;
}

int
api_json_decode_names(const char *json, size_t len, api_name *names, int max,
    int *n, char *err, size_t errlen)
{
	struct json_path p = { NULL, "nodes", 0 };
	struct json_dec d;
	const cJSON *a;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	*n = 0;
	if (json_dec_parse(&d, json, len, API_BODY_MAX, 1, &root) == 0 &&
	    json_dec_known_keys(&d, root, NULL, "this request", nodes_keys) == 0 &&
	    dec_array(&d, root, &p, "names", &a) == 0)
		rc = dec_name_elems(&d, a, &p, names, max < 0 ? 0 : max, n);
	cJSON_Delete(root);
	return rc;
}
