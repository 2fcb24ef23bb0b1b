/*
 * Cluster scenarios: parsing, validation and resolution of the format in
 * scenario.h.  Passes: nodes, cables (plugging both ends), per-port faults,
 * then derived addresses.  The first problem stops the parse.  A node's
 * "lan" is read in scenario_lan.c, a "ports" entry in scenario_port.c.
 */
#include "scenario.h"
#include "scenario_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define BOOT_BASE 1764547200.0          /* 2025-12-01 00:00:00 UTC */
#define BOOT_SPREAD (7 * 86400)
#define BOOT_MAX 4102444800.0           /* 2100-01-01 */
#define MEMORY_GB_MAX 65536.0
#define GIB 1073741824.0


static const char *const top_keys[] = {
	"description", "cluster", "defaults", "nodes", "cables", "ports", NULL
};
static const char *const node_keys[] = {
	"name", "serial", "hardware_uuid", "lan",
	"model", "chip", "memory_gb", "os_version", "os_build", "machine_name",
	"max_speed_gbps", "receptacles", "interfaces", "rdma", "rdma_devices", "bridge_active",
	"unreachable", "gpu_wired_limit_mb", "memory_load", "power_watts", "boot_time", NULL
};
/* What defaults may hold: node_keys without those naming one machine. */
#define DEFAULT_KEYS (node_keys + 4)
static const char *const cable_keys[] = { "a", "b", "speed_gbps", NULL };

#define NODE_STR(key, dflt) \
	{ #key, offsetof(struct scenario_node, key), sizeof(((struct scenario_node *)0)->key), dflt }

static const struct node_str {
	const char *key;
	size_t off, size;
	const char *dflt;         /* NULL: required */
} node_strs[] = {
	NODE_STR(model, NULL),
	NODE_STR(chip, NULL),
	NODE_STR(os_version, NULL),
	NODE_STR(os_build, NULL),
	NODE_STR(machine_name, "Mac Studio"),
};

enum val_kind { VAL_DOUBLE, VAL_INT, VAL_I64, VAL_BOOL };

#define NODE_VAL(key, kind, lo, hi, lo_open, required, dflt, rule) \
	{ #key, offsetof(struct scenario_node, key), kind, lo, hi, lo_open, required, dflt, rule }

static const struct node_val {
	const char *key;
	size_t off;
	enum val_kind kind;
	double lo, hi;            /* inclusive, except lo when lo_open */
	int lo_open, required;
	double dflt;
	const char *rule;
} node_vals[] = {
	NODE_VAL(memory_gb, VAL_DOUBLE, 0, MEMORY_GB_MAX, 1, 1, NAN,
	    "must be a positive number (GiB, at most 65536)"),
	NODE_VAL(max_speed_gbps, VAL_DOUBLE, 0, REPORT_SPEED_GBPS_MAX, 1, 0, 120,
	    "must be a positive number (Gb/s, at most 1000): 120 Thunderbolt 5, 40 "
	    "Thunderbolt 4"),
	NODE_VAL(receptacles, VAL_INT, 1, SCENARIO_RECEPTACLES_MAX, 0, 0,
	    SCENARIO_RECEPTACLES_DEFAULT, "must be an integer from 1 to 16"),
	NODE_VAL(gpu_wired_limit_mb, VAL_I64, 0, MEMORY_GB_MAX * 1024, 0, 0, 0,
	    "must be an integer from 0 (system default) to 67108864"),
	NODE_VAL(memory_load, VAL_DOUBLE, 0, 0.95, 0, 0, SCENARIO_LOAD_DEFAULT,
	    "must be a number from 0 to 0.95"),
	NODE_VAL(power_watts, VAL_DOUBLE, 0, REPORT_WATTS_MAX, 1, 0, SCENARIO_WATTS_DEFAULT,
	    "must be a positive number (watts, at most 100000)"),
	NODE_VAL(boot_time, VAL_DOUBLE, 0, BOOT_MAX, 0, 0, NAN,
	    "must be unix seconds from 0 to 4102444800"),
	NODE_VAL(rdma, VAL_BOOL, 0, 1, 0, 0, 1, "must be true or false"),
	NODE_VAL(rdma_devices, VAL_BOOL, 0, 1, 0, 0, 1, "must be true or false"),
	NODE_VAL(bridge_active, VAL_BOOL, 0, 1, 0, 0, 0, "must be true or false"),
	NODE_VAL(unreachable, VAL_BOOL, 0, 1, 0, 0, 0, "must be true or false"),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t hash_key(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write the message into p->err; returns -1 for the caller to return. */
int
scenario_fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* FNV-1a of the formatted key, then mixed: stable across platforms. */
static uint64_t
hash_key(const char *fmt, ...)
{
	char key[256];
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (const unsigned char *c = (const unsigned char *)key; *c != '\0'; c++) {
		h ^= *c;
		h *= UINT64_C(0x100000001b3);
	}
	return mix64(h);
}

/* A version 4 style UUID, uppercase 8-4-4-4-12, from a hash. */
static void
uuid_from_hash(uint64_t h, char *out, size_t outlen)
{
	uint64_t h2 = mix64(h ^ UINT64_C(0x9e3779b97f4a7c15));

	snprintf(out, outlen, "%08X-%04X-%04X-%04X-%012llX", (unsigned)(h >> 32),
	    (unsigned)((h >> 16) & 0xffff), (unsigned)(0x4000 | (h & 0x0fff)),
	    (unsigned)(0x8000 | ((h2 >> 48) & 0x3fff)),
	    (unsigned long long)(h2 & UINT64_C(0xffffffffffff)));
}

static int
key_listed(const char *const *keys, const char *key)
{
	for (; *keys != NULL; keys++)
		if (strcmp(*keys, key) == 0)
			return 1;
	return 0;
}

/* obj must be an object holding only keys, each once. */
int
scenario_check_keys(struct parse *p, const cJSON *obj, const char *where, const char *const *keys)
{
	const cJSON *it, *prev;

	if (!cJSON_IsObject(obj))
		return scenario_fail(p, "%s: must be an object", where);
	cJSON_ArrayForEach(it, obj) {
		if (!key_listed(keys, it->string))
			return scenario_fail(p, "%s: unknown key \"%s\"", where, it->string);
		for (prev = obj->child; prev != it; prev = prev->next)
			if (strcmp(prev->string, it->string) == 0)
				return scenario_fail(p, "%s: key \"%s\" appears twice", where, it->string);
	}
	return 0;
}

/* Copy a non-empty string without control characters that fits in size. */
int
scenario_get_str(struct parse *p, const cJSON *it, const char *where, char *dst, size_t size)
{
	if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
		return scenario_fail(p, "%s: must be a non-empty string", where);
	size_t len = strlen(it->valuestring);
	if (len >= size)
		return scenario_fail(p, "%s: longer than %zu characters", where, size - 1);
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)it->valuestring[i]))
			return scenario_fail(p, "%s: contains a control character", where);
	memcpy(dst, it->valuestring, len + 1);
	return 0;
}

/* Node and cluster names: letters, digits, '.', '-', '_'. */
static int
get_name(struct parse *p, const cJSON *it, const char *where, char *dst, size_t size)
{
	if (scenario_get_str(p, it, where, dst, size) == -1)
		return -1;
	for (const char *c = dst; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			return scenario_fail(p, "%s: \"%s\" may hold only letters, digits, '.', '-' and '_'",
			    where, dst);
	return 0;
}

static int
node_index(const struct scenario *s, const char *name)
{
	for (int i = 0; i < s->n_nodes; i++)
		if (strcmp(s->nodes[i].name, name) == 0)
			return i;
	return -1;
}

/* The node's own value for key, else the defaults'; where names it. */
static const cJSON *
node_item(struct parse *p, const cJSON *obj, int i, const char *key, char *where, size_t wlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	snprintf(where, wlen, "nodes[%d].%s", i, key);
	if (it == NULL && p->defaults != NULL) {
		it = cJSON_GetObjectItemCaseSensitive(p->defaults, key);
		if (it != NULL)
			snprintf(where, wlen, "defaults.%s", key);
	}
	return it;
}

static int
parse_node_strs(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	char where[64];

	for (size_t k = 0; k < NELEM(node_strs); k++) {
		const struct node_str *f = &node_strs[k];
		char *dst = (char *)n + f->off;
		const cJSON *it = node_item(p, obj, i, f->key, where, sizeof(where));
		if (it == NULL && f->dflt == NULL)
			return scenario_fail(p, "%s: missing (give it in the node or in defaults)", where);
		if (it == NULL)
			report_strset(dst, f->size, f->dflt);
		else if (scenario_get_str(p, it, where, dst, f->size) == -1)
			return -1;
	}
	n->machine_name_given = node_item(p, obj, i, "machine_name", where,
	    sizeof(where)) != NULL;
	return 0;
}

static void
store_val(struct scenario_node *n, const struct node_val *f, double v)
{
	void *dst = (char *)n + f->off;

	switch (f->kind) {
	case VAL_DOUBLE:
		*(double *)dst = v;
		break;
	case VAL_INT:
	case VAL_BOOL:
		*(int *)dst = (int)v;
		break;
	case VAL_I64:
		*(int64_t *)dst = (int64_t)v;
		break;
	}
}

/* Numbers and booleans, checked against node_vals[]. */
static int
parse_node_vals(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	char where[64];

	for (size_t k = 0; k < NELEM(node_vals); k++) {
		const struct node_val *f = &node_vals[k];
		const cJSON *it = node_item(p, obj, i, f->key, where, sizeof(where));
		double v = f->dflt;
		if (it == NULL && f->required)
			return scenario_fail(p, "%s: missing (give it in the node or in defaults)", where);
		if (it != NULL) {
			if (f->kind == VAL_BOOL)
				v = cJSON_IsBool(it) ? cJSON_IsTrue(it) : NAN;
			else
				v = cJSON_IsNumber(it) ? it->valuedouble : NAN;
			if (!isfinite(v) || v < f->lo || v > f->hi || (f->lo_open && v <= f->lo) ||
			    (f->kind != VAL_DOUBLE && v != floor(v)))
				return scenario_fail(p, "%s: %s", where, f->rule);
		}
		store_val(n, f, v);
	}
	return 0;
}

/* "en3": lowercase letters, then digits. */
int
scenario_is_ifname(const char *s)
{
	size_t letters = strspn(s, "abcdefghijklmnopqrstuvwxyz");

	return letters > 0 && s[letters] != '\0' &&
	    strspn(s + letters, "0123456789") == strlen(s + letters);
}

/* interfaces[r - 1] names receptacle r's device; default en(r + 1). */
static int
parse_interfaces(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	char where[64], ew[80];
	const cJSON *it = node_item(p, obj, i, "interfaces", where, sizeof(where)), *e;
	int r = 0;

	if (it == NULL) {
		for (r = 0; r < n->receptacles; r++)
			snprintf(n->ports[r].interface, sizeof(n->ports[r].interface), "en%d", r + 2);
		return 0;
	}
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != n->receptacles)
		return scenario_fail(p, "%s: must be an array of %d interface names, one per receptacle",
		    where, n->receptacles);
	cJSON_ArrayForEach(e, it) {
		char *name = n->ports[r].interface;
		snprintf(ew, sizeof(ew), "%s[%d]", where, r);
		if (scenario_get_str(p, e, ew, name, sizeof(n->ports[r].interface)) == -1)
			return -1;
		if (!scenario_is_ifname(name))
			return scenario_fail(p, "%s: \"%s\" is not an interface name like \"en3\"", ew, name);
		for (int k = 0; k < r; k++)
			if (strcmp(n->ports[k].interface, name) == 0)
				return scenario_fail(p, "%s: \"%s\" is used twice", ew, name);
		r++;
	}
	return 0;
}

/* Uppercase 8-4-4-4-12, as system_profiler prints it. */
static int
is_uuid(const char *s)
{
	for (int i = 0; i < 36; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (s[i] == '\0' || (dash ? s[i] != '-' : strchr("0123456789ABCDEF", s[i]) == NULL))
			return 0;
	}
	return s[36] == '\0';
}

static void
derive_serial(const char *cluster, const char *name, char *out)
{
	static const char digits[] = "0123456789CDFGHJKLMNPQRTVWXY";
	uint64_t h = hash_key("%s/%s/serial", cluster, name);

	for (int k = 0; k < 10; k++) {
		out[k] = digits[h % (sizeof(digits) - 1)];
		h /= sizeof(digits) - 1;
	}
	out[10] = '\0';
}

/*
 * serial and hardware_uuid: given (and checked) or derived.  Duplicates are
 * allowed: a scenario may test how the controller takes a reused serial.
 */
static int
parse_node_ids(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	const char *cl = p->s->cluster;
	const cJSON *it;
	char where[64];

	snprintf(where, sizeof(where), "nodes[%d].serial", i);
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "serial")) == NULL)
		derive_serial(cl, n->name, n->serial);
	else if (get_name(p, it, where, n->serial, sizeof(n->serial)) == -1)
		return -1;
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "hardware_uuid")) == NULL)
		uuid_from_hash(hash_key("%s/%s/hardware_uuid", cl, n->name), n->hardware_uuid,
		    sizeof(n->hardware_uuid));
	else if (!cJSON_IsString(it) || !is_uuid(it->valuestring))
		return scenario_fail(p, "nodes[%d].hardware_uuid: must be an uppercase UUID like "
		    "\"4C1D6A0E-0000-5000-8000-1A2B3C4D5E6F\"", i);
	else
		REPORT_SET(n->hardware_uuid, it->valuestring);
	return 0;
}

static int
parse_node_name(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "name");
	char where[64];
	int k;

	snprintf(where, sizeof(where), "nodes[%d].name", i);
	if (it == NULL)
		return scenario_fail(p, "%s: missing", where);
	if (get_name(p, it, where, n->name, sizeof(n->name)) == -1)
		return -1;
	if ((k = node_index(p->s, n->name)) >= 0)
		return scenario_fail(p, "%s: \"%s\" is used twice (also nodes[%d])", where, n->name, k);
	return 0;
}

static void
init_ports(const char *cluster, struct scenario_node *n)
{
	for (int r = 0; r < SCENARIO_RECEPTACLES_MAX; r++) {
		struct scenario_port *pt = &n->ports[r];
		memset(pt, 0, sizeof(*pt));
		pt->receptacle = r + 1;
		pt->cable = pt->peer_node = -1;
		pt->speed_gbps = NAN;
		pt->n_ipv4 = -1;
		if (r < n->receptacles)
			uuid_from_hash(hash_key("%s/%s/%d", cluster, n->name, r + 1),
			    pt->domain_uuid, sizeof(pt->domain_uuid));
	}
}

static int
parse_node(struct parse *p, const cJSON *obj, int i)
{
	struct scenario_node *n = &p->s->nodes[i];
	char where[32];

	snprintf(where, sizeof(where), "nodes[%d]", i);
	if (scenario_check_keys(p, obj, where, node_keys) == -1 ||
	    parse_node_name(p, obj, i, n) == -1 ||
	    parse_node_strs(p, obj, i, n) == -1 ||
	    parse_node_vals(p, obj, i, n) == -1)
		return -1;
	init_ports(p->s->cluster, n);
	if (parse_interfaces(p, obj, i, n) == -1 || scenario_parse_lan(p, obj, i, n) == -1 ||
	    parse_node_ids(p, obj, i, n) == -1)
		return -1;
	n->memory_bytes = (int64_t)llround(n->memory_gb * GIB);
	if ((double)n->gpu_wired_limit_mb > n->memory_gb * 1024)
		return scenario_fail(p, "nodes[%d].gpu_wired_limit_mb: %lld MB is more than the node's %g GB",
		    i, (long long)n->gpu_wired_limit_mb, n->memory_gb);
	if (isnan(n->boot_time))
		n->boot_time = BOOT_BASE +
		    (double)(hash_key("%s/%s/boot_time", p->s->cluster, n->name) % BOOT_SPREAD);
	p->s->n_nodes++;
	return 0;
}

/* Each entry of the array root[key] (if there) through one(p, entry, index). */
static int
parse_list(struct parse *p, const cJSON *root, const char *key, int max,
    int (*one)(struct parse *, const cJSON *, int))
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key), *it;
	int i = 0;

	if (arr == NULL)
		return 0;
	if (!cJSON_IsArray(arr))
		return scenario_fail(p, "%s: must be an array", key);
	if (cJSON_GetArraySize(arr) > max)
		return scenario_fail(p, "%s: %d entries, more than the %d a scenario may hold", key,
		    cJSON_GetArraySize(arr), max);
	cJSON_ArrayForEach(it, arr)
		if (one(p, it, i++) == -1)
			return -1;
	return 0;
}

/* "mac1:2" or "mac1:tb2" -> node index and receptacle in range. */
int
scenario_parse_endpoint(struct parse *p, const cJSON *it, const char *where, int *node, int *r)
{
	char name[SCENARIO_NAME_MAX + 1];
	const char *v, *colon, *num;

	if (it == NULL)
		return scenario_fail(p, "%s: missing", where);
	if (!cJSON_IsString(it) || (colon = strrchr(it->valuestring, ':')) == NULL ||
	    colon == it->valuestring || colon - it->valuestring > SCENARIO_NAME_MAX)
		return scenario_fail(p, "%s: must be \"node:receptacle\", like \"mac1:2\"", where);
	v = it->valuestring;
	memcpy(name, v, (size_t)(colon - v));
	name[colon - v] = '\0';
	num = colon + (strncmp(colon + 1, "tb", 2) == 0 ? 3 : 1);
	if (num[0] == '\0' || strlen(num) > 3 || strspn(num, "0123456789") != strlen(num))
		return scenario_fail(p, "%s: \"%s\" is not a receptacle number", where, colon + 1);
	*r = atoi(num);
	if ((*node = node_index(p->s, name)) < 0)
		return scenario_fail(p, "%s: node \"%s\" is not in nodes", where, name);
	if (*r < 1 || *r > p->s->nodes[*node].receptacles)
		return scenario_fail(p, "%s: receptacle %d is out of range 1..%d for %s", where, *r,
		    p->s->nodes[*node].receptacles, name);
	return 0;
}

/* Plug one end of cable ci into node's receptacle r. */
static int
plug(struct parse *p, const char *where, int ci, int node, int r, int peer, int peer_r)
{
	struct scenario_node *n = &p->s->nodes[node];
	struct scenario_port *pt = &n->ports[r - 1];

	if (pt->cable >= 0)
		return scenario_fail(p, "%s: %s receptacle %d is used twice (also in cables[%d])", where,
		    n->name, r, pt->cable);
	pt->cable = ci;
	pt->peer_node = peer;
	pt->peer_receptacle = peer_r;
	pt->speed_gbps = p->s->cables[ci].speed_gbps;
	return 0;
}

static int
parse_cable(struct parse *p, const cJSON *obj, int i)
{
	struct scenario_cable *c = &p->s->cables[i];
	char where[32], ew[48];
	const cJSON *it;

	snprintf(where, sizeof(where), "cables[%d]", i);
	if (scenario_check_keys(p, obj, where, cable_keys) == -1)
		return -1;
	snprintf(ew, sizeof(ew), "%s.a", where);
	if (scenario_parse_endpoint(p, cJSON_GetObjectItemCaseSensitive(obj, "a"), ew, &c->a_node,
	    &c->a_receptacle) == -1)
		return -1;
	snprintf(ew, sizeof(ew), "%s.b", where);
	if (scenario_parse_endpoint(p, cJSON_GetObjectItemCaseSensitive(obj, "b"), ew, &c->b_node,
	    &c->b_receptacle) == -1)
		return -1;
	if (c->a_node == c->b_node)
		return scenario_fail(p, "%s: connects %s to itself", where, p->s->nodes[c->a_node].name);
	c->speed_gbps = SCENARIO_SPEED_DEFAULT;
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "speed_gbps")) != NULL) {
		c->speed_gbps = cJSON_IsNumber(it) ? it->valuedouble : NAN;
		if (!(c->speed_gbps > 0 && c->speed_gbps <= REPORT_SPEED_GBPS_MAX))
			return scenario_fail(p, "%s.speed_gbps: must be a positive number (Gb/s, at most "
			    "1000)", where);
	}
	if (plug(p, where, i, c->a_node, c->a_receptacle, c->b_node, c->b_receptacle) == -1 ||
	    plug(p, where, i, c->b_node, c->b_receptacle, c->a_node, c->a_receptacle) == -1)
		return -1;
	p->s->n_cables++;
	return 0;
}

static int
ipv4_taken(const struct scenario *s, const char *addr)
{
	for (int i = 0; i < s->n_nodes; i++)
		for (int r = 0; r < s->nodes[i].receptacles; r++) {
			const struct scenario_port *pt = &s->nodes[i].ports[r];
			for (int k = 0; k < pt->n_ipv4; k++)
				if (strcmp(pt->ipv4[k], addr) == 0)
					return 1;
		}
	return 0;
}

/* A cabled port without explicit addresses gets a unique 169.254.x.y. */
static void
derive_addresses(struct scenario *s)
{
	char addr[sizeof(report_ipv4)];

	for (int i = 0; i < s->n_nodes; i++)
		for (int r = 0; r < s->nodes[i].receptacles; r++) {
			struct scenario_port *pt = &s->nodes[i].ports[r];
			if (pt->n_ipv4 >= 0)
				continue;
			pt->n_ipv4 = 0;
			if (pt->cable < 0)
				continue;
			uint64_t h = hash_key("%s/%s/%d/ipv4", s->cluster, s->nodes[i].name, r + 1);
			do {
				snprintf(addr, sizeof(addr), "169.254.%u.%u",
				    (unsigned)(1 + h % 254), (unsigned)(1 + (h >> 16) % 254));
				h = mix64(h + 1);
			} while (ipv4_taken(s, addr));
			REPORT_SET(pt->ipv4[0], addr);
			pt->n_ipv4 = 1;
		}
}

static int
parse_root(struct parse *p, const cJSON *root)
{
	const cJSON *it;

	if (!cJSON_IsObject(root))
		return scenario_fail(p, "the scenario must be a JSON object");
	if (scenario_check_keys(p, root, "scenario", top_keys) == -1)
		return -1;
	it = cJSON_GetObjectItemCaseSensitive(root, "description");
	if (it != NULL && scenario_get_str(p, it, "description", p->s->description,
	    sizeof(p->s->description)) == -1)
		return -1;
	if ((it = cJSON_GetObjectItemCaseSensitive(root, "cluster")) == NULL)
		return scenario_fail(p, "cluster: missing");
	if (get_name(p, it, "cluster", p->s->cluster, sizeof(p->s->cluster)) == -1)
		return -1;
	it = cJSON_GetObjectItemCaseSensitive(root, "defaults");
	if (it != NULL && scenario_check_keys(p, it, "defaults", DEFAULT_KEYS) == -1)
		return -1;
	p->defaults = it;
	it = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0)
		return scenario_fail(p, "nodes: must be a non-empty array");
	if (parse_list(p, root, "nodes", SCENARIO_NODES_MAX, parse_node) == -1 ||
	    parse_list(p, root, "cables", SCENARIO_CABLES_MAX, parse_cable) == -1 ||
	    parse_list(p, root, "ports", SCENARIO_NODES_MAX * SCENARIO_RECEPTACLES_MAX,
	    scenario_parse_port) == -1)
		return -1;
	derive_addresses(p->s);
	return 0;
}

/* "line L, column C: what", pointing at offset off of json. */
static void
json_error(struct parse *p, const char *json, size_t off, const char *what)
{
	int line = 1, col = 1;

	for (size_t i = 0; i < off; i++) {
		if (json[i] == '\n') {
			line++;
			col = 1;
		} else
			col++;
	}
	scenario_fail(p, "line %d, column %d: %s", line, col, what);
}

struct scenario *
scenario_parse(const char *json, size_t len, char *err, size_t errlen)
{
	struct parse p = { .err = err, .errlen = errlen };
	const char *end = NULL;
	cJSON *root;

	if (errlen > 0)
		err[0] = '\0';
	if (len > SCENARIO_FILE_MAX) {
		scenario_fail(&p, "larger than %d bytes", SCENARIO_FILE_MAX);
		return NULL;
	}
	if ((root = cJSON_ParseWithLengthOpts(json, len, &end, 0)) == NULL) {
		size_t off = end != NULL && end >= json && end <= json + len ? (size_t)(end - json) : 0;
		json_error(&p, json, off, "not valid JSON");
		return NULL;
	}
	while (end < json + len && (isspace((unsigned char)*end) || *end == '\0'))
		end++;
	if (end < json + len) {
		json_error(&p, json, (size_t)(end - json), "unexpected text after the JSON value");
		goto fail;
	}
	if ((p.s = calloc(1, sizeof(*p.s))) == NULL) {
		scenario_fail(&p, "out of memory");
		goto fail;
	}
	if (parse_root(&p, root) == -1)
		goto fail;
	cJSON_Delete(root);
	return p.s;
fail:
	cJSON_Delete(root);
	free(p.s);
	return NULL;
}

struct scenario *
scenario_load(const char *path, char *err, size_t errlen)
{
	struct scenario *s = NULL;
	char *buf = NULL, msg[512];
	size_t len = 0;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((buf = malloc(SCENARIO_FILE_MAX + 1)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto done;
	}
	len = fread(buf, 1, SCENARIO_FILE_MAX + 1, f);
	if (ferror(f))
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (len > SCENARIO_FILE_MAX)
		snprintf(err, errlen, "%s: larger than %d bytes", path, SCENARIO_FILE_MAX);
	else if ((s = scenario_parse(buf, len, msg, sizeof(msg))) == NULL)
		snprintf(err, errlen, "%s: %s", path, msg);
done:
	free(buf);
	fclose(f);
	return s;
}

void
scenario_free(struct scenario *s)
{
	free(s);
}

const struct scenario_node *
scenario_node_find(const struct scenario *s, const char *name)
{
	int i;

	if (s == NULL || name == NULL || (i = node_index(s, name)) < 0)
		return NULL;
	return &s->nodes[i];
}
