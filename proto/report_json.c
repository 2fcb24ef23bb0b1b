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
 * Decoding is in report_json_decode.c; the tables and the number format
 * both files use are declared in report_fields.h.
 */
#include "report.h"
#include "report_fields.h"
#include "report_json.h"
#include "json_enc.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* NULL: the kind is null, not a name (report_fields.h). */
static const char *const netif_kind_names[] = { NULL, "ethernet", "wifi", "other" };

const struct field report_fields_top[] = {
	F_DBL(struct report, collected_at, 0, REPORT_TIME_MAX),
	F_END,
};

const struct field report_fields_node[] = {
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
const struct field report_fields_port[] = {
	F_STR(struct report_port, receptacle),
	F_STR(struct report_port, bus),
	F_STR(struct report_port, domain_uuid),
	F_ENUM(struct report_port, status, port_status_names),
	F_STR(struct report_port, link_status),
	F_DBL(struct report_port, speed_gbps, 0, REPORT_SPEED_GBPS_MAX),
	F_STR(struct report_port, interface),
	F_END,
};

const struct field report_fields_peer[] = {
	F_STR(struct report_peer, domain_uuid),
	F_STR(struct report_peer, name),
	F_STR(struct report_peer, model),
	F_TRI(struct report_peer, rdma_service),
	F_END,
};

/* Followed by "members". */
const struct field report_fields_bridge[] = {
	F_TRI(struct report_bridge, exists),
	F_TRI(struct report_bridge, active),
	F_END,
};

/* Followed by "devices". */
const struct field report_fields_rdma[] = {
	F_ENUM(struct report_rdma, state, rdma_state_names),
	F_END,
};

const struct field report_fields_device[] = {
	F_STR(struct report_rdma_device, name),
	F_STR(struct report_rdma_device, interface),
	F_ENUM(struct report_rdma_device, port_state, rdma_port_names),
	F_TRI(struct report_rdma_device, ipv4_gid),
	F_END,
};

/* Followed by "ipv4". */
const struct field report_fields_netif[] = {
	F_STR(struct report_netif, name),
	F_ENUM(struct report_netif, kind, netif_kind_names),
	F_STR(struct report_netif, port),
	F_END,
};

const struct field report_fields_memory[] = {
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

const struct field report_fields_power[] = {
	F_STR(struct report_power, source),
	F_DBL(struct report_power, system_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, cpu_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, gpu_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, ane_watts, 0, REPORT_WATTS_MAX),
	F_DBL(struct report_power, dram_watts, 0, REPORT_WATTS_MAX),
	F_END,
};

const struct field report_fields_thermal[] = {
	F_DBL(struct report_thermal, cpu_celsius, REPORT_CELSIUS_MIN,
	    REPORT_CELSIUS_MAX),
	F_DBL(struct report_thermal, gpu_celsius, REPORT_CELSIUS_MIN,
	    REPORT_CELSIUS_MAX),
	F_END,
};

/* "listen" is checked further on decoding (report_json_decode.c). */
const struct field report_fields_agent[] = {
	F_STR(struct report_agent, listen),
	F_END,
};

const struct field report_fields_error[] = {
	F_STR(struct report_error, source),
	F_STR(struct report_error, message),
	F_END,
};

/* ---- encoding ---- */

static cJSON *
make_field(const char *base, const struct field *f)
{
	const char *p = base + f->off;
	int v;

	switch (f->kind) {
	case K_STR:
		return json_enc_str(p, f->size);
	case K_I64:
		return json_enc_i64(*(const int64_t *)(const void *)p);
	case K_DBL:
		return json_enc_double(*(const double *)(const void *)p);
	case K_TRI:
		v = *(const enum tri *)(const void *)p;
		if (v == TRI_TRUE || v == TRI_FALSE)
			return cJSON_CreateBool(v == TRI_TRUE);
		return cJSON_CreateNull();
	case K_ENUM:
		memcpy(&v, p, sizeof(v));
		if (v < 0 || (size_t)v >= f->size)
			v = 0;	/* out of range: "unknown", or null */
		if (f->names[v] == NULL)
			return cJSON_CreateNull();
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
		rc |= json_enc_attach(obj, f->key, make_field(base, f));
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

	if (json_enc_attach(parent, key, o) == -1)
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
		return json_enc_attach(parent, key, cJSON_CreateNull());
	if (json_enc_attach(parent, key, a = cJSON_CreateArray()) == -1)
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
	return json_enc_attach(a, NULL, json_enc_str(elem, size));
}

static int
enc_port(cJSON *a, const void *elem, size_t size)
{
	const struct report_port *p = elem;
	cJSON *o;
	int rc;

	(void)size;
	if (enc_object(a, NULL, p, report_fields_port, &o) == -1)
		return -1;
	rc = enc_array(o, "ipv4", ARRAY(p->ipv4), p->n_ipv4, enc_str);
	if (p->has_peer)
		return rc | enc_object(o, "peer", &p->peer, report_fields_peer, NULL);
	return rc | json_enc_attach(o, "peer", cJSON_CreateNull());
}

static int
enc_device(cJSON *a, const void *elem, size_t size)
{
	(void)size;
	return enc_object(a, NULL, elem, report_fields_device, NULL);
}

static int
enc_error(cJSON *a, const void *elem, size_t size)
{
	(void)size;
	return enc_object(a, NULL, elem, report_fields_error, NULL);
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
	if (enc_object(o, "bridge", b, report_fields_bridge, &bo) == -1)
		return -1;
	rc |= enc_array(bo, "members", ARRAY(b->members), b->n_members,
	    enc_str);
	return rc;
}

static int
enc_rdma(cJSON *root, const struct report_rdma *r)
{
	cJSON *o;

	if (enc_object(root, "rdma", r, report_fields_rdma, &o) == -1)
		return -1;
	return enc_array(o, "devices", ARRAY(r->devices), r->n_devices,
	    enc_device);
}

static int
enc_netif(cJSON *a, const void *elem, size_t size)
{
	const struct report_netif *n = elem;
	cJSON *o;

	(void)size;
	if (enc_object(a, NULL, n, report_fields_netif, &o) == -1)
		return -1;
	return enc_array(o, "ipv4", ARRAY(n->ipv4), n->n_ipv4, enc_str);
}

static int
enc_network(cJSON *root, const struct report_network *nw)
{
	cJSON *o;

	if (enc_object(root, "network", NULL, NULL, &o) == -1)
		return -1;
	return enc_array(o, "interfaces", ARRAY(nw->interfaces), nw->n_interfaces,
	    enc_netif);
}

/*
 * Never fails on content: non-finite doubles encode as null, enum values out
 * of range as "unknown" (a kind as null), counts above an array's size as its size, a string
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
	rc = json_enc_attach(root, "schema", cJSON_CreateStringReference(REPORT_SCHEMA));
	rc |= enc_fields(root, r, report_fields_top);
	rc |= enc_object(root, "node", &r->node, report_fields_node, NULL);
	rc |= enc_thunderbolt(root, &r->thunderbolt);
	rc |= enc_rdma(root, &r->rdma);
	rc |= enc_network(root, &r->network);
	rc |= enc_object(root, "memory", &r->memory, report_fields_memory, NULL);
	rc |= enc_object(root, "power", &r->power, report_fields_power, NULL);
	rc |= enc_object(root, "thermal", &r->thermal, report_fields_thermal, NULL);
	rc |= enc_object(root, "agent", &r->agent, report_fields_agent, NULL);
	rc |= enc_array(root, "errors", ARRAY(r->errors), r->n_errors,
	    enc_error);
	if (rc == 0)
		s = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}
