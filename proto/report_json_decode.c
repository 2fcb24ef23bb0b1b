/*
 * Decoding the report's JSON, schema "tbmesh.report/1", driven by the tables
 * of report_json.c (report_fields.h).
 *
 * Decoding is strict about what it knows and lenient about what it does not.
 * A known key with the wrong type, a value out of range, a string that does
 * not fit its buffer or is empty ("" is not a value: unknown is null), an
 * array longer than its buffer: each is an error naming the field's path.
 * Unknown keys are ignored (keys may be added to the schema), a missing key
 * or section reads as null, a duplicated key takes its first value.  Only
 * "schema" and "collected_at" must be present ("collected_at" may be null).
 *
 * cJSON parses the document into a tree (in the thread's json_arena, so
 * that its hundreds of allocations cost little); each object's members are
 * matched to its table in one pass over them, then decoded in table order.
 */
#include "report.h"
#include "report_fields.h"
#include "report_json.h"
#include "json_arena.h"
#include "json_dec.h"
#include "json_enc.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies a non-empty JSON string that fits into dst[size]. */
static int
dec_str(struct json_dec *d, const cJSON *it, const struct json_path *p, void *dst,
    size_t size)
{
	size_t len;

	if (!cJSON_IsString(it) || it->valuestring == NULL)
		return json_dec_fail(d, p, "must be a string");
	len = strnlen(it->valuestring, size);
	if (len == 0)
		return json_dec_fail(d, p, "empty string (an unknown value is null)");
	if (len == size)
		return json_dec_fail(d, p, "longer than %zu bytes", size - 1);
	memcpy(dst, it->valuestring, len + 1);
	return 0;
}

/* For messages: a byte count as people write it, digits when integral. */
static void
fmt_count(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, size, "%.0f", v);
	else
		json_fmt_double(buf, size, v);
}

/* A byte count: an integer in 0..REPORT_BYTES_MAX. */
static int
dec_i64(struct json_dec *d, const cJSON *it, const struct json_path *p, int64_t *dst)
{
	char buf[32];
	double v;

	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number or null");
	v = it->valuedouble;
	if (!(v >= 0 && v <= (double)REPORT_BYTES_MAX)) {
		fmt_count(buf, sizeof(buf), v);
		return json_dec_fail(d, p, "%s is out of range 0..%" PRId64, buf,
		    REPORT_BYTES_MAX);
	}
	if (v != floor(v)) {
		fmt_count(buf, sizeof(buf), v);
		return json_dec_fail(d, p, "%s is not an integer", buf);
	}
	*dst = (int64_t)v;
	return 0;
}

static int
dec_double(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const struct field *f, double *dst)
{
	double v;

	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number or null");
	v = it->valuedouble;
	if (!(v >= f->lo && v <= f->hi))
		return json_dec_fail(d, p, "%g is out of range %g..%g", v, f->lo, f->hi);
	*dst = v;
	return 0;
}

static int
dec_enum(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const struct field *f, char *dst)
{
	char list[128];
	size_t i, n = 0;
	int v;

	if (!cJSON_IsString(it))
		return json_dec_fail(d, p, "must be a string or null");
	for (i = 0; i < f->size; i++) {
		if (f->names[i] != NULL && strcmp(it->valuestring, f->names[i]) == 0) {
			v = (int)i;
			memcpy(dst, &v, sizeof(v));
			return 0;
		}
	}
	list[0] = '\0';
	for (i = 0; i < f->size && n < sizeof(list); i++)
		if (f->names[i] != NULL)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s\"%s\"",
			    n > 0 ? ", " : "", f->names[i]);
	return json_dec_fail(d, p, "\"%.64s\" is not one of %s", it->valuestring, list);
}

/* Decodes a present, non-null value of field f into base. */
static int
dec_field(struct json_dec *d, const cJSON *it, const struct json_path *p,
    char *base, const struct field *f)
{
	char *dst = base + f->off;

	switch (f->kind) {
	case K_STR:
		if (!cJSON_IsString(it))
			return json_dec_fail(d, p, "must be a string or null");
		return dec_str(d, it, p, dst, f->size);
	case K_I64:
		return dec_i64(d, it, p, (int64_t *)(void *)dst);
	case K_DBL:
		return dec_double(d, it, p, f, (double *)(void *)dst);
	case K_TRI:
		if (!cJSON_IsBool(it))
			return json_dec_fail(d, p, "must be true, false or null");
		*(enum tri *)(void *)dst = cJSON_IsTrue(it) ? TRI_TRUE : TRI_FALSE;
		return 0;
	case K_ENUM:
		return dec_enum(d, it, p, f, dst);
	}
	return json_dec_fail(d, p, "internal error: unknown field kind");
}

#define KEYS_MAX 16	/* keys looked up in one object, at most */

/*
 * The members of one object that decoding reads: v[i] is the first member
 * named keys[i], or NULL when there is none.  The keys are those of a
 * table, in its order, then those handled by hand.
 */
struct members {
	const cJSON *v[KEYS_MAX];
};

/* Index of key in keys[0..n-1], trying keys[start] first; -1 when absent. */
static int
key_index(const char *const *keys, int n, int start, const char *key)
{
	int i, k;

	for (k = 0; k < n; k++) {
		i = start + k < n ? start + k : start + k - n;
		if (keys[i][0] == key[0] && strcmp(keys[i], key) == 0)
			return i;
	}
	return -1;
}

/*
 * Fills m from obj (NULL: absent) in one pass over its members, for the
 * keys of table f (may be NULL) followed by extra (NULL-terminated, may be
 * NULL); returns the number of f's keys.  Each member's name is compared
 * first with the key after the one last found, which is its own when the
 * members come in table order, as report_encode writes them.  A key of
 * the table or extra given twice is refused (-1, the error in d; obj sits
 * at up); keys of neither are counted in d->unknown (json_dec.h).
 */
static int
index_members(struct json_dec *d, const struct json_path *up, const cJSON *obj,
    const struct field *f, const char *const *extra, struct members *m)
{
	const char *keys[KEYS_MAX];
	const cJSON *c;
	int n = 0, nf, i, next = 0;

	for (; f != NULL && f->key != NULL && n < KEYS_MAX; f++)
		keys[n++] = f->key;
	nf = n;
	for (; extra != NULL && *extra != NULL && n < KEYS_MAX; extra++)
		keys[n++] = *extra;
	memset(m, 0, sizeof(*m));
	for (c = obj != NULL ? obj->child : NULL; c != NULL; c = c->next) {
		if (c->string == NULL || (i = key_index(keys, n, next, c->string)) < 0) {
			d->unknown++;
			continue;
		}
		if (m->v[i] != NULL) {
			struct json_path p = { up, keys[i], 0 };
			return json_dec_fail(d, &p, "given twice");
		}
		m->v[i] = c;
		next = i + 1 < n ? i + 1 : 0;
	}
	return nf;
}

/*
 * Decodes the values m holds for table f (m->v[0] for f[0]...) into base;
 * an absent or null value leaves the field as it was (null).
 */
static int
dec_fields(struct json_dec *d, const struct members *m, const struct json_path *up,
    void *base, const struct field *f)
{
	const cJSON *it;
	int i;

	for (i = 0; f[i].key != NULL && i < KEYS_MAX; i++) {
		struct json_path p = { up, f[i].key, 0 };

		it = m->v[i];
		if (it == NULL || cJSON_IsNull(it))
			continue;
		if (dec_field(d, it, &p, base, &f[i]) == -1)
			return -1;
	}
	return 0;
}

/* The table's fields of obj (an object). */
static int
dec_table(struct json_dec *d, const cJSON *obj, const struct json_path *up, void *base,
    const struct field *f)
{
	struct members m;

	if (index_members(d, up, obj, f, NULL, &m) == -1)
		return -1;
	return dec_fields(d, &m, up, base, f);
}

/*
 * The value it (NULL: absent) at p must be an object or null: *obj is the
 * object, or NULL when it is absent or null.
 */
static int
dec_object(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const cJSON **obj)
{
	*obj = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsObject(it))
		return json_dec_fail(d, p, "must be an object or null");
	*obj = it;
	return 0;
}

/* A top-level object of scalars, the value it of key. */
static int
dec_section(struct json_dec *d, const cJSON *it, const char *key, void *base,
    const struct field *f)
{
	struct json_path p = { NULL, key, 0 };
	const cJSON *o;

	if (dec_object(d, it, &p, &o) == -1)
		return -1;
	return o != NULL ? dec_table(d, o, &p, base, f) : 0;
}

/* Decodes one array element into dst[size]. */
typedef int (*dec_elem_fn)(struct json_dec *, const cJSON *, const struct json_path *,
    void *dst, size_t size);

/*
 * Decodes a, the value (NULL: absent) of key in the object at up, into at
 * most max elements at base + i * stride and sets *count; absent or null
 * leaves *count alone.
 */
static int
dec_array(struct json_dec *d, const cJSON *a, const struct json_path *up,
    const char *key, void *base, size_t stride, int max, int *count,
    dec_elem_fn fn)
{
	const cJSON *e;
	struct json_path p = { up, key, 0 }, ep = { &p, NULL, 0 };

	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return json_dec_fail(d, &p, "must be an array or null");
	if (cJSON_GetArraySize(a) > max)
		return json_dec_fail(d, &p, "more than %d entries", max);
	cJSON_ArrayForEach(e, a) {
		if (fn(d, e, &ep, (char *)base + (size_t)ep.idx * stride,
		    stride) == -1)
			return -1;
		ep.idx++;
	}
	*count = ep.idx;
	return 0;
}

static int
dec_ipv4_elem(struct json_dec *d, const cJSON *e, const struct json_path *p, void *dst,
    size_t size)
{
	struct in_addr a;

	if (dec_str(d, e, p, dst, size) == -1)
		return -1;
	if (inet_pton(AF_INET, dst, &a) != 1)
		return json_dec_fail(d, p, "\"%s\" is not a dotted-quad IPv4 address",
		    (char *)dst);
	return 0;
}

static int
dec_port_elem(struct json_dec *d, const cJSON *e, const struct json_path *p, void *dst,
    size_t size)
{
	static const char *const extra[] = { "ipv4", "peer", NULL };
	struct report_port *port = dst;
	struct json_path pp = { p, "peer", 0 };
	const cJSON *peer;
	struct members m;
	int nf;

	(void)size;
	if (!cJSON_IsObject(e))
		return json_dec_fail(d, p, "must be an object");
	report_port_init(port);
	if ((nf = index_members(d, p, e, report_fields_port, extra, &m)) == -1 ||
	    dec_fields(d, &m, p, port, report_fields_port) == -1 ||
	    dec_array(d, m.v[nf], p, "ipv4", ARRAY(port->ipv4), &port->n_ipv4,
	    dec_ipv4_elem) == -1 ||
	    dec_object(d, m.v[nf + 1], &pp, &peer) == -1)
		return -1;
	if (peer == NULL)
		return 0;
	port->has_peer = 1;
	return dec_table(d, peer, &pp, &port->peer, report_fields_peer);
}

static int
dec_device_elem(struct json_dec *d, const cJSON *e, const struct json_path *p,
    void *dst, size_t size)
{
	(void)size;
	if (!cJSON_IsObject(e))
		return json_dec_fail(d, p, "must be an object");
	report_rdma_device_init(dst);
	return dec_table(d, e, p, dst, report_fields_device);
}

static int
dec_error_elem(struct json_dec *d, const cJSON *e, const struct json_path *p,
    void *dst, size_t size)
{
	(void)size;
	if (!cJSON_IsObject(e))
		return json_dec_fail(d, p, "must be an object");
	return dec_table(d, e, p, dst, report_fields_error);
}

static int
dec_netif_elem(struct json_dec *d, const cJSON *e, const struct json_path *p, void *dst,
    size_t size)
{
	static const char *const extra[] = { "ipv4", NULL };
	struct report_netif *n = dst;
	struct members m;
	int nf;

	(void)size;
	if (!cJSON_IsObject(e))
		return json_dec_fail(d, p, "must be an object");
	report_netif_init(n);
	if ((nf = index_members(d, p, e, report_fields_netif, extra, &m)) == -1 ||
	    dec_fields(d, &m, p, n, report_fields_netif) == -1)
		return -1;
	return dec_array(d, m.v[nf], p, "ipv4", ARRAY(n->ipv4), &n->n_ipv4, dec_ipv4_elem);
}

/* it: the value of "network" (NULL: absent). */
static int
dec_network(struct json_dec *d, const cJSON *it, struct report_network *nw)
{
	static const char *const keys[] = { "interfaces", NULL };
	struct json_path p = { NULL, "network", 0 };
	const cJSON *o;
	struct members m;

	if (dec_object(d, it, &p, &o) == -1)
		return -1;
	if (index_members(d, &p, o, NULL, keys, &m) == -1)
		return -1;
	return dec_array(d, m.v[0], &p, "interfaces", ARRAY(nw->interfaces),
	    &nw->n_interfaces, dec_netif_elem);
}

/* it: the value of "thunderbolt" (NULL: absent). */
static int
dec_thunderbolt(struct json_dec *d, const cJSON *it, struct report_thunderbolt *t)
{
	static const char *const keys[] = { "ports", "bridge", NULL };
	static const char *const extra[] = { "members", NULL };
	struct json_path p = { NULL, "thunderbolt", 0 }, bp = { &p, "bridge", 0 };
	struct report_bridge *b = &t->bridge;
	const cJSON *o, *bo;
	struct members m, bm;
	int nf;

	if (dec_object(d, it, &p, &o) == -1)
		return -1;
	if (index_members(d, &p, o, NULL, keys, &m) == -1 ||
	    dec_array(d, m.v[0], &p, "ports", ARRAY(t->ports), &t->n_ports,
	    dec_port_elem) == -1 ||
	    dec_object(d, m.v[1], &bp, &bo) == -1)
		return -1;
	if ((nf = index_members(d, &bp, bo, report_fields_bridge, extra, &bm)) == -1 ||
	    dec_fields(d, &bm, &bp, b, report_fields_bridge) == -1)
		return -1;
	return dec_array(d, bm.v[nf], &bp, "members", ARRAY(b->members),
	    &b->n_members, dec_str);
}

/* it: the value of "rdma" (NULL: absent). */
static int
dec_rdma(struct json_dec *d, const cJSON *it, struct report_rdma *r)
{
	static const char *const extra[] = { "devices", NULL };
	struct json_path p = { NULL, "rdma", 0 };
	const cJSON *o;
	struct members m;
	int nf;

	if (dec_object(d, it, &p, &o) == -1)
		return -1;
	if ((nf = index_members(d, &p, o, report_fields_rdma, extra, &m)) == -1 ||
	    dec_fields(d, &m, &p, r, report_fields_rdma) == -1)
		return -1;
	return dec_array(d, m.v[nf], &p, "devices", ARRAY(r->devices),
	    &r->n_devices, dec_device_elem);
}

/* The top level's keys besides report_fields_top's, in the order written. */
enum { R_SCHEMA, R_NODE, R_THUNDERBOLT, R_RDMA, R_NETWORK, R_MEMORY, R_POWER,
    R_THERMAL, R_AGENT, R_ERRORS };
static const char *const root_keys[] = { "schema", "node", "thunderbolt", "rdma",
    "network", "memory", "power", "thermal", "agent", "errors", NULL };
_Static_assert(NELEM(root_keys) == R_ERRORS + 2, "root_keys follows the enum");

/* "agent": its table, then agent.listen must be a HOST:PORT. */
static int
dec_agent(struct json_dec *d, const cJSON *it, struct report_agent *a)
{
	static const struct json_path up = { NULL, "agent", 0 };
	static const struct json_path p = { &up, "listen", 0 };

	if (dec_section(d, it, "agent", a, report_fields_agent) == -1)
		return -1;
	if (a->listen[0] != '\0' && !report_listen_valid(a->listen))
		return json_dec_fail(d, &p, "\"%.64s\" is not HOST:PORT or [IPV6]:PORT",
		    a->listen);
	return 0;
}

/* schema and collected_at (the first of report_fields_top) must be there. */
static int
dec_required(struct json_dec *d, const struct members *m, int nf)
{
	static const struct json_path schema = { NULL, "schema", 0 };
	static const struct json_path at = { NULL, "collected_at", 0 };
	const cJSON *it = m->v[nf + R_SCHEMA];

	if (it == NULL)
		return json_dec_fail(d, &schema, "missing");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, REPORT_SCHEMA) != 0)
		return json_dec_fail(d, &schema, "expected \"%s\"", REPORT_SCHEMA);
	if (m->v[0] == NULL)
		return json_dec_fail(d, &at, "missing");
	return 0;
}

static int
dec_report(struct json_dec *d, const cJSON *root, struct report *r)
{
	struct members m;
	const cJSON *const *x;
	int nf = index_members(d, NULL, root, report_fields_top, root_keys, &m);

	if (nf == -1)
		return -1;
	x = m.v + nf;
	if (dec_required(d, &m, nf) == -1 ||
	    dec_fields(d, &m, NULL, r, report_fields_top) == -1 ||
	    dec_section(d, x[R_NODE], "node", &r->node, report_fields_node) == -1 ||
	    dec_thunderbolt(d, x[R_THUNDERBOLT], &r->thunderbolt) == -1 ||
	    dec_rdma(d, x[R_RDMA], &r->rdma) == -1 ||
	    dec_network(d, x[R_NETWORK], &r->network) == -1 ||
	    dec_section(d, x[R_MEMORY], "memory", &r->memory, report_fields_memory) == -1 ||
	    dec_section(d, x[R_POWER], "power", &r->power, report_fields_power) == -1 ||
	    dec_section(d, x[R_THERMAL], "thermal", &r->thermal,
	    report_fields_thermal) == -1 ||
	    dec_agent(d, x[R_AGENT], &r->agent) == -1)
		return -1;
	return dec_array(d, x[R_ERRORS], NULL, "errors", ARRAY(r->errors),
	    &r->n_errors, dec_error_elem);
}

/* n, a count as decoded (-1: unknown), as a number of elements up to max. */
static size_t
used(int n, int max)
{
	return n < 0 ? 0 : (size_t)(n < max ? n : max);
}

/* Zero the bytes of r from offset a to offset b. */
#define ZERO_SPAN(r, a, b) memset((char *)(r) + (a), 0, (size_t)((b) - (a)))
#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/*
 * r as report_init leaves it, provided no array element past its count is
 * set (decoding sets only the elements it counts): the parts outside the
 * arrays, and the elements that were counted, are zeroed.
 */
static void
reinit(struct report *r)
{
	size_t np = used(r->thunderbolt.n_ports, REPORT_PORTS_MAX);
	size_t nm = used(r->thunderbolt.bridge.n_members, REPORT_MEMBERS_MAX);
	size_t nd = used(r->rdma.n_devices, REPORT_DEVICES_MAX);
	size_t ni = used(r->network.n_interfaces, REPORT_NETIFS_MAX);
	size_t ne = used(r->n_errors, REPORT_ERRORS_MAX);

	ZERO_SPAN(r, 0, offsetof(struct report, thunderbolt.ports));
	memset(r->thunderbolt.ports, 0, np * sizeof(r->thunderbolt.ports[0]));
	ZERO_SPAN(r, END_OF(struct report, thunderbolt.ports),
	    offsetof(struct report, thunderbolt.bridge.members));
	memset(r->thunderbolt.bridge.members, 0, nm * sizeof(r->thunderbolt.bridge.members[0]));
	ZERO_SPAN(r, END_OF(struct report, thunderbolt.bridge.members),
	    offsetof(struct report, rdma.devices));
	memset(r->rdma.devices, 0, nd * sizeof(r->rdma.devices[0]));
	ZERO_SPAN(r, END_OF(struct report, rdma.devices),
	    offsetof(struct report, network.interfaces));
	memset(r->network.interfaces, 0, ni * sizeof(r->network.interfaces[0]));
	ZERO_SPAN(r, END_OF(struct report, network.interfaces), offsetof(struct report, errors));
	memset(r->errors, 0, ne * sizeof(r->errors[0]));
	ZERO_SPAN(r, END_OF(struct report, errors), sizeof(*r));
	report_init_fields(r);
}

static int
decode(const char *json, size_t len, struct report *out, int *unknown, char *err,
    size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	d.own_key_check = 1;    /* index_members sees every object's keys */
	json_arena_begin();
	if (json_dec_parse(&d, json, len, REPORT_JSON_MAX, 1, &root) == 0)
		rc = dec_report(&d, root, out);
	/* keys it does not know (a newer agent's) were not looked into */
	if (rc == 0 && d.unknown > 0)
		rc = json_dec_unique_keys(&d, root);
	if (!json_arena_holds_all())
		cJSON_Delete(root);
	json_arena_end();
	if (unknown != NULL)
		*unknown = d.unknown;
	return rc;
}

int
report_decode(const char *json, size_t len, struct report *out, char *err,
    size_t errlen)
{
	report_init(out);
	return decode(json, len, out, NULL, err, errlen);
}

int
report_decode_again(const char *json, size_t len, struct report *r, int *unknown, char *err,
    size_t errlen)
{
	reinit(r);
	if (decode(json, len, r, unknown, err, errlen) == 0)
		return 0;
	report_init(r);   /* a failure may have filled elements it did not count */
	return -1;
}
