/*
 * The report as JSON, schema "tbmesh.report/1" (DESIGN.md, "The report").
 *
 * Both directions are driven by one table per JSON object (struct field), so
 * the names, the order of the keys on output and the rules applied on input
 * come from one place.  Arrays and nested objects are handled by hand.
 *
 * Numbers are formatted here and handed to cJSON as raw text: integers in
 * full (never with an exponent), doubles in the shortest of %.15g, %.16g and
 * %.17g that reads back to the same bits.  cJSON parses every number into a
 * double, so *_bytes values decode exactly up to 2^53; between 2^53 and
 * REPORT_BYTES_MAX (2^56) a value decodes to the nearest double, which is
 * exact for every multiple of 16, hence for every page-aligned size.
 *
 * Decoding is strict about what it knows and lenient about what it does not.
 * A known key with the wrong type, a value out of range, a string that does
 * not fit its buffer or is empty ("" is not a value: unknown is null), an
 * array longer than its buffer: each is an error naming the field's path.
 * Unknown keys are ignored (keys may be added to the schema), a missing key
 * or section reads as null, a duplicated key takes its first value.  Only
 * "schema" and "collected_at" must be present ("collected_at" may be null).
 */
#include "report.h"
#include "report_json.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* An array member as base, stride, number of elements. */
#define ARRAY(a) (a), sizeof((a)[0]), (int)NELEM(a)

/* Upper bound for unix-seconds fields: year 5138. */
#define REPORT_TIME_MAX 1e11

/* Enum fields are read and written as int through the tables. */
_Static_assert(sizeof(enum port_status) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_state) == sizeof(int), "enum size");
_Static_assert(sizeof(enum rdma_port_state) == sizeof(int), "enum size");
_Static_assert(PORT_STATUS_EMPTY == 2 && RDMA_STATE_DISABLED == 2 &&
    RDMA_PORT_DOWN == 2, "enum values index the *_names arrays");

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
	const char *const *names;	/* K_ENUM: names[value] */
};

#define MSIZE(t, m) sizeof(((t *)0)->m)
#define F_STR(t, m) { #m, K_STR, offsetof(t, m), MSIZE(t, m), 0, 0, NULL }
#define F_I64(t, m) { #m, K_I64, offsetof(t, m), 0, 0, 0, NULL }
#define F_DBL(t, m, lo, hi) { #m, K_DBL, offsetof(t, m), 0, (lo), (hi), NULL }
#define F_TRI(t, m) { #m, K_TRI, offsetof(t, m), 0, 0, 0, NULL }
#define F_ENUM(t, m, n) { #m, K_ENUM, offsetof(t, m), NELEM(n), 0, 0, (n) }
#define F_END { NULL, K_STR, 0, 0, 0, 0, NULL }

/* Indexed by value, spelled as report_*_str() in report.c spells them. */
static const char *const port_status_names[] = { "unknown", "connected",
    "empty" };
static const char *const rdma_state_names[] = { "unknown", "enabled",
    "disabled" };
static const char *const rdma_port_names[] = { "unknown", "active", "down" };

static const struct field top_fields[] = {
	F_DBL(struct report, collected_at, 0, REPORT_TIME_MAX),
	F_END,
};

static const struct field node_fields[] = {
	F_STR(struct report_node, hostname),
	F_STR(struct report_node, hardware_uuid),
	F_STR(struct report_node, serial),
	F_STR(struct report_node, model),
	F_STR(struct report_node, chip),
	F_STR(struct report_node, os_version),
	F_STR(struct report_node, os_build),
	F_STR(struct report_node, agent_version),
	F_DBL(struct report_node, boot_time, 0, REPORT_TIME_MAX),
	F_END,
};

/* Followed by "ipv4" and "peer". */
static const struct field port_fields[] = {
	F_STR(struct report_port, receptacle),
	F_STR(struct report_port, bus),
	F_STR(struct report_port, domain_uuid),
	F_ENUM(struct report_port, status, port_status_names),
	F_STR(struct report_port, link_status),
	F_DBL(struct report_port, speed_gbps, 0, REPORT_SPEED_GBPS_MAX),
	F_STR(struct report_port, interface),
	F_END,
};

static const struct field peer_fields[] = {
	F_STR(struct report_peer, domain_uuid),
	F_STR(struct report_peer, name),
	F_STR(struct report_peer, model),
	F_TRI(struct report_peer, rdma_service),
	F_END,
};

/* Followed by "members". */
static const struct field bridge_fields[] = {
	F_TRI(struct report_bridge, exists),
	F_TRI(struct report_bridge, active),
	F_END,
};

/* Followed by "devices". */
static const struct field rdma_fields[] = {
	F_ENUM(struct report_rdma, state, rdma_state_names),
	F_END,
};

static const struct field device_fields[] = {
	F_STR(struct report_rdma_device, name),
	F_STR(struct report_rdma_device, interface),
	F_ENUM(struct report_rdma_device, port_state, rdma_port_names),
	F_TRI(struct report_rdma_device, ipv4_gid),
	F_END,
};

static const struct field memory_fields[] = {
	F_I64(struct report_memory, total_bytes),
	F_I64(struct report_memory, free_bytes),
	F_I64(struct report_memory, active_bytes),
	F_I64(struct report_memory, inactive_bytes),
	F_I64(struct report_memory, wired_bytes),
	F_I64(struct report_memory, compressed_bytes),
	F_I64(struct report_memory, swap_total_bytes),
	F_I64(struct report_memory, swap_used_bytes),
	F_DBL(struct report_memory, free_ratio, 0, 1),
	F_I64(struct report_memory, gpu_wired_limit_bytes),
	F_END,
};

static const struct field power_fields[] = {
	F_STR(struct report_power, source),
	F_DBL(struct report_power, system_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, cpu_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, gpu_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, ane_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, dram_watts, 0, REPORT_WATTS_MAX),
	F_END,
};

static const struct field thermal_fields[] = {
	F_DBL(struct report_thermal, cpu_celsius, REPORT_CELSIUS_MIN,
	    REPORT_CELSIUS_MAX),
	F_DBL(struct report_thermal, gpu_celsius, REPORT_CELSIUS_MIN,
	    REPORT_CELSIUS_MAX),
	F_END,
};

static const struct field error_fields[] = {
	F_STR(struct report_error, source),
	F_STR(struct report_error, message),
	F_END,
};

/*
 * Formats finite v into buf (at least 32 bytes) as JSON: the shortest of
 * %.15g..%.17g that strtod() reads back to v, with a '.' whatever the locale.
 */
static void
fmt_double(char *buf, size_t size, double v)
{
	const char *dp = localeconv()->decimal_point;
	char *s;
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, size, "%.17g", v);
	if (dp[0] != '.' && dp[0] != '\0' && (s = strchr(buf, dp[0])) != NULL)
		*s = '.';
}

/* ---- encoding ---- */

/*
 * Attaches item to parent under key, which must be a string that outlives
 * the tree (it is not copied), or appends it when key is NULL.  Takes
 * ownership of item.  Returns -1 when item is NULL (out of memory) or cannot
 * be attached.
 */
static int
attach(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (item == NULL)
		return -1;
	if (key == NULL)
		ok = cJSON_AddItemToArray(parent, item);
	else
		ok = cJSON_AddItemToObjectCS(parent, key, item);
	if (!ok) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

/* The string in buf[size] (size <= REPORT_STR_MAX + 1); "" is null. */
static cJSON *
make_str(const void *buf, size_t size)
{
	char tmp[REPORT_STR_MAX + 1];
	const char *s = buf;
	size_t len;

	if (s[0] == '\0')
		return cJSON_CreateNull();
	if (memchr(s, '\0', size) == NULL) {
		/* Not terminated: encode what the buffer holds, never past it. */
		len = size <= sizeof(tmp) ? size - 1 : sizeof(tmp) - 1;
		memcpy(tmp, s, len);
		tmp[len] = '\0';
		s = tmp;
	}
	return cJSON_CreateString(s);
}

static cJSON *
make_i64(int64_t v)
{
	char buf[32];

	if (v == REPORT_NULL_I64)
		return cJSON_CreateNull();
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_CreateRaw(buf);
}

/* NAN and the infinities, which JSON cannot hold, are null. */
static cJSON *
make_double(double v)
{
	char buf[32];

	if (!isfinite(v))
		return cJSON_CreateNull();
	fmt_double(buf, sizeof(buf), v);
	return cJSON_CreateRaw(buf);
}

static cJSON *
make_field(const char *base, const struct field *f)
{
	const char *p = base + f->off;
	int v;

	switch (f->kind) {
	case K_STR:
		return make_str(p, f->size);
	case K_I64:
		return make_i64(*(const int64_t *)(const void *)p);
	case K_DBL:
		return make_double(*(const double *)(const void *)p);
	case K_TRI:
		v = *(const enum tri *)(const void *)p;
		if (v == TRI_TRUE || v == TRI_FALSE)
			return cJSON_CreateBool(v == TRI_TRUE);
		return cJSON_CreateNull();
	case K_ENUM:
		memcpy(&v, p, sizeof(v));
		if (v < 0 || (size_t)v >= f->size)
			v = 0;	/* out of range: "unknown" */
		return cJSON_CreateStringReference(f->names[v]);
	}
	return NULL;
}

/* f may be NULL: no fields. */
static int
enc_fields(cJSON *obj, const void *base, const struct field *f)
{
	int rc = 0;

	for (; f != NULL && f->key != NULL; f++)
		rc |= attach(obj, f->key, make_field(base, f));
	return rc;
}

/*
 * Adds key: {fields of base} to parent (appends it for key NULL); *obj (if
 * not NULL) gets the object, owned by parent.
 */
static int
enc_object(cJSON *parent, const char *key, const void *base,
    const struct field *f, cJSON **obj)
{
	cJSON *o = cJSON_CreateObject();

	if (attach(parent, key, o) == -1)
		return -1;
	if (obj != NULL)
		*obj = o;
	return enc_fields(o, base, f);
}

/* Appends the element at elem (size bytes) to array. */
typedef int (*enc_elem_fn)(cJSON *array, const void *elem, size_t size);

/*
 * Adds key: [n elements] to parent, element i at base + i * stride, or
 * key: null when n < 0.  n is clamped to max.
 */
static int
enc_array(cJSON *parent, const char *key, const void *base, size_t stride,
    int max, int n, enc_elem_fn fn)
{
	cJSON *a;
	int i, rc = 0;

	if (n < 0)
		return attach(parent, key, cJSON_CreateNull());
	if (attach(parent, key, a = cJSON_CreateArray()) == -1)
		return -1;
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		rc |= fn(a, (const char *)base + (size_t)i * stride, stride);
	return rc;
}

static int
enc_str(cJSON *a, const void *elem, size_t size)
{
	return attach(a, NULL, make_str(elem, size));
}

static int
enc_port(cJSON *a, const void *elem, size_t size)
{
	const struct report_port *p = elem;
	cJSON *o;
	int rc;

	(void)size;
	if (enc_object(a, NULL, p, port_fields, &o) == -1)
		return -1;
	rc = enc_array(o, "ipv4", ARRAY(p->ipv4), p->n_ipv4, enc_str);
	if (p->has_peer)
		return rc | enc_object(o, "peer", &p->peer, peer_fields, NULL);
	return rc | attach(o, "peer", cJSON_CreateNull());
}

static int
enc_device(cJSON *a, const void *elem, size_t size)
{
	(void)size;
	return enc_object(a, NULL, elem, device_fields, NULL);
}

static int
enc_error(cJSON *a, const void *elem, size_t size)
{
	(void)size;
	return enc_object(a, NULL, elem, error_fields, NULL);
}

static int
enc_thunderbolt(cJSON *root, const struct report_thunderbolt *t)
{
	const struct report_bridge *b = &t->bridge;
	cJSON *o, *bo;
	int rc;

	if (enc_object(root, "thunderbolt", NULL, NULL, &o) == -1)
		return -1;
	rc = enc_array(o, "ports", ARRAY(t->ports), t->n_ports, enc_port);
	if (enc_object(o, "bridge", b, bridge_fields, &bo) == -1)
		return -1;
	rc |= enc_array(bo, "members", ARRAY(b->members), b->n_members,
	    enc_str);
	return rc;
}

static int
enc_rdma(cJSON *root, const struct report_rdma *r)
{
	cJSON *o;

	if (enc_object(root, "rdma", r, rdma_fields, &o) == -1)
		return -1;
	return enc_array(o, "devices", ARRAY(r->devices), r->n_devices,
	    enc_device);
}

/*
 * Never fails on content: non-finite doubles encode as null, enum values out
 * of range as "unknown", counts above an array's size as its size, a string
 * buffer without a NUL as its whole contents.  The result comes from cJSON's
 * allocator, which is malloc() as long as nobody calls cJSON_InitHooks().
 */
char *
report_encode(const struct report *r, int pretty)
{
	cJSON *root;
	char *s = NULL;
	int rc;

	if ((root = cJSON_CreateObject()) == NULL)
		return NULL;
	rc = attach(root, "schema", cJSON_CreateStringReference(REPORT_SCHEMA));
	rc |= enc_fields(root, r, top_fields);
	rc |= enc_object(root, "node", &r->node, node_fields, NULL);
	rc |= enc_thunderbolt(root, &r->thunderbolt);
	rc |= enc_rdma(root, &r->rdma);
	rc |= enc_object(root, "memory", &r->memory, memory_fields, NULL);
	rc |= enc_object(root, "power", &r->power, power_fields, NULL);
	rc |= enc_object(root, "thermal", &r->thermal, thermal_fields, NULL);
	rc |= enc_array(root, "errors", ARRAY(r->errors), r->n_errors,
	    enc_error);
	if (rc == 0)
		s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

/* ---- decoding ---- */

/*
 * Where a value sits, as a chain of stack frames up to the top-level key:
 * formatted ("thunderbolt.ports[2].speed_gbps") only when there is an error.
 */
struct path {
	const struct path *up;	/* NULL: a top-level key */
	const char *key;	/* NULL: an array element */
	int idx;
};

struct dec {
	char *err;
	size_t errlen;
};

static size_t
path_fmt(const struct path *p, char *buf, size_t size)
{
	size_t n;
	int w;

	if (p == NULL)
		return 0;
	n = path_fmt(p->up, buf, size);
	if (n >= size)
		return n;
	if (p->key != NULL)
		w = snprintf(buf + n, size - n, "%s%s", n > 0 ? "." : "", p->key);
	else
		w = snprintf(buf + n, size - n, "[%d]", p->idx);
	return w < 0 ? n : n + (size_t)w;
}

/* Writes "path: message" (or the message alone for p NULL); returns -1. */
static int __attribute__((format(printf, 3, 4)))
fail(struct dec *d, const struct path *p, const char *fmt, ...)
{
	char where[256];
	va_list ap;
	int n;

	where[0] = '\0';
	path_fmt(p, where, sizeof(where));
	if (d->err == NULL || d->errlen == 0)
		return -1;
	n = snprintf(d->err, d->errlen, "%s%s", where, where[0] ? ": " : "");
	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Copies a non-empty JSON string that fits into dst[size]. */
static int
dec_str(struct dec *d, const cJSON *it, const struct path *p, void *dst,
    size_t size)
{
	size_t len;

	if (!cJSON_IsString(it) || it->valuestring == NULL)
		return fail(d, p, "must be a string");
	len = strnlen(it->valuestring, size);
	if (len == 0)
		return fail(d, p, "empty string (an unknown value is null)");
	if (len == size)
		return fail(d, p, "longer than %zu bytes", size - 1);
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
		fmt_double(buf, size, v);
}

/* A byte count: an integer in 0..REPORT_BYTES_MAX. */
static int
dec_i64(struct dec *d, const cJSON *it, const struct path *p, int64_t *dst)
{
	char buf[32];
	double v;

	if (!cJSON_IsNumber(it))
		return fail(d, p, "must be a number or null");
	v = it->valuedouble;
	if (!(v >= 0 && v <= (double)REPORT_BYTES_MAX)) {
		fmt_count(buf, sizeof(buf), v);
		return fail(d, p, "%s is out of range 0..%" PRId64, buf,
		    REPORT_BYTES_MAX);
	}
	if (v != floor(v)) {
		fmt_count(buf, sizeof(buf), v);
		return fail(d, p, "%s is not an integer", buf);
	}
	*dst = (int64_t)v;
	return 0;
}

static int
dec_double(struct dec *d, const cJSON *it, const struct path *p,
    const struct field *f, double *dst)
{
	double v;

	if (!cJSON_IsNumber(it))
		return fail(d, p, "must be a number or null");
	v = it->valuedouble;
	if (!(v >= f->lo && v <= f->hi))
		return fail(d, p, "%g is out of range %g..%g", v, f->lo, f->hi);
	*dst = v;
	return 0;
}

static int
dec_enum(struct dec *d, const cJSON *it, const struct path *p,
    const struct field *f, char *dst)
{
	char list[128];
	size_t i, n = 0;
	int v;

	if (!cJSON_IsString(it))
		return fail(d, p, "must be a string or null");
	for (i = 0; i < f->size; i++) {
		if (strcmp(it->valuestring, f->names[i]) == 0) {
			v = (int)i;
			memcpy(dst, &v, sizeof(v));
			return 0;
		}
	}
	list[0] = '\0';
	for (i = 0; i < f->size && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s\"%s\"",
		    i > 0 ? ", " : "", f->names[i]);
	return fail(d, p, "\"%.64s\" is not one of %s", it->valuestring, list);
}

/* Decodes a present, non-null value of field f into base. */
static int
dec_field(struct dec *d, const cJSON *it, const struct path *p,
    char *base, const struct field *f)
{
	char *dst = base + f->off;

	switch (f->kind) {
	case K_STR:
		if (!cJSON_IsString(it))
			return fail(d, p, "must be a string or null");
		return dec_str(d, it, p, dst, f->size);
	case K_I64:
		return dec_i64(d, it, p, (int64_t *)(void *)dst);
	case K_DBL:
		return dec_double(d, it, p, f, (double *)(void *)dst);
	case K_TRI:
		if (!cJSON_IsBool(it))
			return fail(d, p, "must be true, false or null");
		*(enum tri *)(void *)dst = cJSON_IsTrue(it) ? TRI_TRUE : TRI_FALSE;
		return 0;
	case K_ENUM:
		return dec_enum(d, it, p, f, dst);
	}
	return fail(d, p, "internal error: unknown field kind");
}

/*
 * Decodes a table's fields of obj (NULL: an absent or null object) into
 * base; an absent or null value leaves the field as it was (null).
 */
static int
dec_fields(struct dec *d, const cJSON *obj, const struct path *up,
    void *base, const struct field *f)
{
	const cJSON *it;

	if (obj == NULL)
		return 0;
	for (; f->key != NULL; f++) {
		struct path p = { up, f->key, 0 };

		it = cJSON_GetObjectItemCaseSensitive(obj, f->key);
		if (it == NULL || cJSON_IsNull(it))
			continue;
		if (dec_field(d, it, &p, base, f) == -1)
			return -1;
	}
	return 0;
}

/*
 * Looks up the object p->key of parent (which may be NULL): *obj is the
 * object, or NULL when it is absent or null.
 */
static int
dec_object(struct dec *d, const cJSON *parent, const struct path *p,
    const cJSON **obj)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(parent, p->key);

	*obj = NULL;
	if (it == NULL || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsObject(it))
		return fail(d, p, "must be an object or null");
	*obj = it;
	return 0;
}

static int
dec_section(struct dec *d, const cJSON *root, const char *key, void *base,
    const struct field *f)
{
	struct path p = { NULL, key, 0 };
	const cJSON *o;

	if (dec_object(d, root, &p, &o) == -1)
		return -1;
	return dec_fields(d, o, &p, base, f);
}

/* Decodes one array element into dst[size]. */
typedef int (*dec_elem_fn)(struct dec *, const cJSON *, const struct path *,
    void *dst, size_t size);

/*
 * Decodes the array key of obj (which may be NULL) into at most max elements
 * at base + i * stride and sets *count; absent or null leaves *count alone.
 */
static int
dec_array(struct dec *d, const cJSON *obj, const struct path *up,
    const char *key, void *base, size_t stride, int max, int *count,
    dec_elem_fn fn)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key), *e;
	struct path p = { up, key, 0 }, ep = { &p, NULL, 0 };

	if (a == NULL || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return fail(d, &p, "must be an array or null");
	if (cJSON_GetArraySize(a) > max)
		return fail(d, &p, "more than %d entries", max);
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
dec_ipv4_elem(struct dec *d, const cJSON *e, const struct path *p, void *dst,
    size_t size)
{
	struct in_addr a;

	if (dec_str(d, e, p, dst, size) == -1)
		return -1;
	if (inet_pton(AF_INET, dst, &a) != 1)
		return fail(d, p, "\"%s\" is not a dotted-quad IPv4 address",
		    (char *)dst);
	return 0;
}

static int
dec_port_elem(struct dec *d, const cJSON *e, const struct path *p, void *dst,
    size_t size)
{
	struct report_port *port = dst;
	struct path pp = { p, "peer", 0 };
	const cJSON *peer;

	(void)size;
	if (!cJSON_IsObject(e))
		return fail(d, p, "must be an object");
	report_port_init(port);
	if (dec_fields(d, e, p, port, port_fields) == -1 ||
	    dec_array(d, e, p, "ipv4", ARRAY(port->ipv4), &port->n_ipv4,
	    dec_ipv4_elem) == -1 ||
	    dec_object(d, e, &pp, &peer) == -1)
		return -1;
	if (peer == NULL)
		return 0;
	port->has_peer = 1;
	return dec_fields(d, peer, &pp, &port->peer, peer_fields);
}

static int
dec_device_elem(struct dec *d, const cJSON *e, const struct path *p,
    void *dst, size_t size)
{
	(void)size;
	if (!cJSON_IsObject(e))
		return fail(d, p, "must be an object");
	report_rdma_device_init(dst);
	return dec_fields(d, e, p, dst, device_fields);
}

static int
dec_error_elem(struct dec *d, const cJSON *e, const struct path *p,
    void *dst, size_t size)
{
	(void)size;
	if (!cJSON_IsObject(e))
		return fail(d, p, "must be an object");
	return dec_fields(d, e, p, dst, error_fields);
}

static int
dec_thunderbolt(struct dec *d, const cJSON *root, struct report_thunderbolt *t)
{
	struct path p = { NULL, "thunderbolt", 0 }, bp = { &p, "bridge", 0 };
	struct report_bridge *b = &t->bridge;
	const cJSON *o, *bo;

	if (dec_object(d, root, &p, &o) == -1 ||
	    dec_array(d, o, &p, "ports", ARRAY(t->ports), &t->n_ports,
	    dec_port_elem) == -1 ||
	    dec_object(d, o, &bp, &bo) == -1 ||
	    dec_fields(d, bo, &bp, b, bridge_fields) == -1)
		return -1;
	return dec_array(d, bo, &bp, "members", ARRAY(b->members),
	    &b->n_members, dec_str);
}

static int
dec_rdma(struct dec *d, const cJSON *root, struct report_rdma *r)
{
	struct path p = { NULL, "rdma", 0 };
	const cJSON *o;

	if (dec_object(d, root, &p, &o) == -1 ||
	    dec_fields(d, o, &p, r, rdma_fields) == -1)
		return -1;
	return dec_array(d, o, &p, "devices", ARRAY(r->devices),
	    &r->n_devices, dec_device_elem);
}

static int
dec_required(struct dec *d, const cJSON *root)
{
	static const struct path schema = { NULL, "schema", 0 };
	static const struct path at = { NULL, "collected_at", 0 };
	const cJSON *it;

	it = cJSON_GetObjectItemCaseSensitive(root, schema.key);
	if (it == NULL)
		return fail(d, &schema, "missing");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, REPORT_SCHEMA) != 0)
		return fail(d, &schema, "expected \"%s\"", REPORT_SCHEMA);
	if (cJSON_GetObjectItemCaseSensitive(root, at.key) == NULL)
		return fail(d, &at, "missing");
	return 0;
}

static int
dec_report(struct dec *d, const cJSON *root, struct report *r)
{
	if (dec_required(d, root) == -1 ||
	    dec_fields(d, root, NULL, r, top_fields) == -1 ||
	    dec_section(d, root, "node", &r->node, node_fields) == -1 ||
	    dec_thunderbolt(d, root, &r->thunderbolt) == -1 ||
	    dec_rdma(d, root, &r->rdma) == -1 ||
	    dec_section(d, root, "memory", &r->memory, memory_fields) == -1 ||
	    dec_section(d, root, "power", &r->power, power_fields) == -1 ||
	    dec_section(d, root, "thermal", &r->thermal, thermal_fields) == -1)
		return -1;
	return dec_array(d, root, NULL, "errors", ARRAY(r->errors),
	    &r->n_errors, dec_error_elem);
}

/* True when [p, end) holds only JSON whitespace up to its end or a NUL. */
static int
only_space(const char *p, const char *end)
{
	for (; p < end && *p != '\0'; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
	return 1;
}

/*
 * Parses json[len] (no NUL needed).  *root gets the tree, for the caller to
 * delete whatever this returns; it is an object when this returns 0.
 */
static int
parse(struct dec *d, const char *json, size_t len, cJSON **root)
{
	const char *end = NULL;

	*root = NULL;
	if (json == NULL || len == 0)
		return fail(d, NULL, "empty input");
	if (len > REPORT_JSON_MAX)
		return fail(d, NULL, "input of %zu bytes is over the limit of %zu",
		    len, REPORT_JSON_MAX);
	if ((*root = cJSON_ParseWithLengthOpts(json, len, &end, 0)) == NULL)
		return fail(d, NULL, "invalid JSON near byte %td of %zu",
		    end != NULL ? end - json : (ptrdiff_t)0, len);
	if (!only_space(end, json + len))
		return fail(d, NULL, "unexpected data after the JSON value "
		    "at byte %td", end - json);
	if (!cJSON_IsObject(*root))
		return fail(d, NULL, "the top level must be a JSON object");
	return 0;
}

int
report_decode(const char *json, size_t len, struct report *out, char *err,
    size_t errlen)
{
	struct dec d = { err, errlen };
	cJSON *root;
	int rc = -1;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	report_init(out);
	if (parse(&d, json, len, &root) == 0)
		rc = dec_report(&d, root, out);
	cJSON_Delete(root);
	return rc;
}
