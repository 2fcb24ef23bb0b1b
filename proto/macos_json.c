/*
 * The JSON of system_profiler and macmon, read with cJSON into report
 * structs.  See macos_json.h for the contracts; the fixtures under
 * tests/fixtures/macos/ and the real captures of other projects under
 * tests/fixtures/captures/ show what the commands print.
 *
 * Reading rules shared by the three parsers: an absent key or a JSON null
 * leaves the field null and is not an error (older macOS releases print
 * fewer keys); a value of the wrong type, or one that does not read as what
 * it should be, leaves the field null and makes the parser return -1 with
 * the first such problem in err.
 */
#include "macos_json.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "decimal.h"

#define PEER_DEPTH_MAX 8	/* hubs nest _items; a host deeper is not looked for */
#define WHERE_MAX 48	/* "SPThunderboltDataType[15]" and the like */

/* Where the first error goes; later ones are dropped. */
struct jctx {
	char *err;
	size_t errlen;
	int failed;
};

static void jfail(struct jctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
jfail(struct jctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = 1;
	if (c->errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

static void
jctx_init(struct jctx *c, char *err, size_t errlen)
{
	c->err = err;
	c->errlen = err == NULL ? 0 : errlen;
	c->failed = 0;
	if (c->errlen > 0)
		err[0] = '\0';
}

/* Parse the first JSON value of the text; NULL (and c failed) when there is none. */
static cJSON *
parse_root(const char *json, size_t len, struct jctx *c)
{
	const char *end = NULL;
	cJSON *root;

	if (json == NULL || len == 0) {
		jfail(c, "empty output");
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
	if (root == NULL) {
		size_t at = (end != NULL && end >= json) ? (size_t)(end - json) : 0;
		jfail(c, "not valid JSON (cut short?) at byte %zu of %zu", at, len);
	}
	return root;
}

/* obj[key], or NULL when obj is not an object or has no such key. */
static const cJSON *
obj_get(const cJSON *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Copy obj[key] into dst (size n) when it is a string. */
static void
get_str(const cJSON *obj, const char *key, char *dst, size_t n, const char *where,
    struct jctx *c)
{
	const cJSON *it = obj_get(obj, key);

	if (it == NULL || cJSON_IsNull(it))
		return;
	if (!cJSON_IsString(it) || it->valuestring == NULL) {
		jfail(c, "%s.%s: not a string", where, key);
		return;
	}
	report_strset(dst, n, it->valuestring);
}

/* Set *dst to obj[key] when it is a number within [min, max]. */
static void
get_num(const cJSON *obj, const char *key, double min, double max, double *dst,
    const char *where, struct jctx *c)
{
	const cJSON *it = obj_get(obj, key);
	double v;

	if (it == NULL || cJSON_IsNull(it))
		return;
	if (!cJSON_IsNumber(it)) {
		jfail(c, "%s%s: not a number", where, key);
		return;
	}
	v = cJSON_GetNumberValue(it);
	if (!isfinite(v) || v < min || v > max) {
		jfail(c, "%s%s: %g is out of range %g..%g", where, key, v, min, max);
		return;
	}
	*dst = v;
}

/* s is exactly word, give or take surrounding blanks. */
static int
is_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	while (*s == ' ')
		s++;
	if (strncmp(s, word, n) != 0)
		return 0;
	for (s += n; *s == ' '; s++)
		;
	return *s == '\0';
}

/*
 * current_speed_key: "80 Gb/s" -> *gbps 80 (a link's rate), "Up to 120 Gb/s"
 * -> *max 120 (what an empty port can do: 120 on Thunderbolt 5, as every
 * empty port of the captures in tests/fixtures/captures reads; 40 on
 * Thunderbolt 4, as a MacBook Pro's empty host port reads in the public
 * system_profiler output test_thunderbolt_speeds_and_hubs quotes).
 * The other one is left alone.  Returns -1 when it reads as neither.
 */
static int
parse_speed(const char *s, double *gbps, double *max)
{
	const char *end;
	double v;
	int upto = strncmp(s, "Up to ", 6) == 0;

	if (proto_parse_decimal(s + (upto ? 6 : 0), &v, &end) == -1 || !is_word(end, "Gb/s"))
		return -1;
	if (v <= 0 || v > REPORT_SPEED_GBPS_MAX)
		return -1;
	*(upto ? max : gbps) = v;
	return 0;
}

/* physical_memory: "512 GB" -> 512 GiB in bytes (Apple's units are binary). */
static int
parse_size(const char *s, int64_t *bytes)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "KB", 1024.0 }, { "MB", 1048576.0 }, { "GB", 1073741824.0 },
		{ "TB", 1099511627776.0 },
	};
	const char *end;
	double v;

	if (proto_parse_decimal(s, &v, &end) == -1)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!is_word(end, units[i].unit))
			continue;
		v *= units[i].mult;
		if (v <= 0 || v > (double)REPORT_BYTES_MAX)
			return -1;
		*bytes = (int64_t)v;
		return 0;
	}
	return -1;
}

/* connected / empty from receptacle_status_key, else from link_status_key. */
static enum port_status
port_status(const char *receptacle_status, const char *link_status)
{
	if (strcmp(receptacle_status, "receptacle_connected") == 0)
		return PORT_STATUS_CONNECTED;
	if (strcmp(receptacle_status, "receptacle_no_devices_connected") == 0)
		return PORT_STATUS_EMPTY;
	if (strcmp(link_status, "0x2") == 0)
		return PORT_STATUS_CONNECTED;
	if (strcmp(link_status, "0x100") == 0)
		return PORT_STATUS_EMPTY;
	return PORT_STATUS_UNKNOWN;
}

/* The bus's own receptacle: "receptacle_1_tag", else any "receptacle_*_tag" object. */
static const cJSON *
receptacle_tag(const cJSON *bus)
{
	const cJSON *it = obj_get(bus, "receptacle_1_tag");
	size_t n;

	if (it != NULL)
		return it;
	cJSON_ArrayForEach(it, bus) {
		if (it->string == NULL || !cJSON_IsObject(it))
			continue;
		n = strlen(it->string);
		if (strncmp(it->string, "receptacle_", 11) == 0 && n > 15 &&
		    strcmp(it->string + n - 4, "_tag") == 0)
			return it;
	}
	return NULL;
}

static void
parse_receptacle(const cJSON *tag, struct report_port *p, const char *where,
    struct jctx *c)
{
	char w[2 * WHERE_MAX + 32], rstatus[64] = "", speed[64] = "";

	snprintf(w, sizeof(w), "%.47s.%.64s", where,
	    tag->string != NULL ? tag->string : "receptacle");
	if (!cJSON_IsObject(tag)) {
		jfail(c, "%s: not an object", w);
		return;
	}
	get_str(tag, "receptacle_id_key", p->receptacle, sizeof(p->receptacle), w, c);
	get_str(tag, "link_status_key", p->link_status, sizeof(p->link_status), w, c);
	get_str(tag, "receptacle_status_key", rstatus, sizeof(rstatus), w, c);
	get_str(tag, "current_speed_key", speed, sizeof(speed), w, c);
	p->status = port_status(rstatus, p->link_status);
	if (speed[0] == '\0')
		return;
	if (parse_speed(speed, &p->speed_gbps, &p->max_speed_gbps) == -1) {
		p->speed_gbps = p->max_speed_gbps = NAN;
		jfail(c, "%s.current_speed_key: \"%s\" is not a speed", w, speed);
	}
	if (p->status == PORT_STATUS_EMPTY)	/* an empty port has no rate */
		p->speed_gbps = NAN;
}

/* 1 when it names a Thunderbolt domain: another host (a Mac), not a drive, dock or hub. */
static int
is_host(const cJSON *it)
{
	const cJSON *uuid = obj_get(it, "domain_uuid_key");

	return cJSON_IsString(uuid) && uuid->valuestring != NULL && uuid->valuestring[0] != '\0';
}

/* First entry of items, depth first, that is a host. */
static const cJSON *
find_host(const cJSON *items, int depth)
{
	const cJSON *it, *found;

	if (!cJSON_IsArray(items) || depth > PEER_DEPTH_MAX)
		return NULL;
	cJSON_ArrayForEach(it, items) {
		if (!cJSON_IsObject(it))
			continue;
		if (is_host(it))
			return it;
		found = find_host(obj_get(it, "_items"), depth + 1);
		if (found != NULL)
			return found;
	}
	return NULL;
}

/*
 * The peer of a bus, from its _items: the first entry that is a host,
 * plugged straight into the port (*via NULL); else the first host found
 * depth first under another device, a dock or hub, whose entry at the
 * first level (the device the port's cable goes to) *via gets.  The other
 * end of such a link may well see a direct peer: it is this end that
 * tells.
 */
static const cJSON *
find_peer(const cJSON *items, const cJSON **via)
{
	const cJSON *it, *found;

	*via = NULL;
	if (!cJSON_IsArray(items))
		return NULL;
	cJSON_ArrayForEach(it, items)
		if (cJSON_IsObject(it) && is_host(it))
			return it;
	cJSON_ArrayForEach(it, items) {
		if (!cJSON_IsObject(it))
			continue;
		found = find_host(obj_get(it, "_items"), 1);
		if (found != NULL) {
			*via = it;
			return found;
		}
	}
	return NULL;
}

/* The peer advertises the RDMA service: a services_title entry with its protocol id. */
static int
has_rdma_service(const cJSON *services)
{
	const cJSON *s, *id;

	if (!cJSON_IsArray(services))
		return 0;
	cJSON_ArrayForEach(s, services) {
		id = obj_get(s, "protocol_id_key");
		if (cJSON_IsNumber(id) && cJSON_GetNumberValue(id) == MACOS_RDMA_PROTOCOL_ID)
			return 1;
	}
	return 0;
}

static void
parse_bus(const cJSON *bus, int idx, struct report_port *p, struct jctx *c)
{
	char where[WHERE_MAX], pw[WHERE_MAX + 8];	/* "... peer", "... hub" */
	const cJSON *tag, *peer, *via;

	snprintf(where, sizeof(where), "SPThunderboltDataType[%d]", idx);
	report_port_init(p);
	get_str(bus, "_name", p->bus, sizeof(p->bus), where, c);
	get_str(bus, "domain_uuid_key", p->domain_uuid, sizeof(p->domain_uuid), where, c);
	tag = receptacle_tag(bus);
	if (tag != NULL)
		parse_receptacle(tag, p, where, c);
	peer = find_peer(obj_get(bus, "_items"), &via);
	if (peer == NULL)
		return;
	snprintf(pw, sizeof(pw), "%.47s peer", where);
	p->has_peer = 1;
	p->via_hub = via != NULL ? TRI_TRUE : TRI_FALSE;
	get_str(peer, "domain_uuid_key", p->peer.domain_uuid, sizeof(p->peer.domain_uuid), pw, c);
	get_str(peer, "_name", p->peer.name, sizeof(p->peer.name), pw, c);
	get_str(peer, "device_name_key", p->peer.model, sizeof(p->peer.model), pw, c);
	p->peer.rdma_service =
	    has_rdma_service(obj_get(peer, "services_title")) ? TRI_TRUE : TRI_FALSE;
	if (via == NULL)
		return;
	snprintf(pw, sizeof(pw), "%.47s hub", where);
	get_str(via, "_name", p->hub, sizeof(p->hub), pw, c);
	if (p->hub[0] == '\0')
		get_str(via, "device_name_key", p->hub, sizeof(p->hub), pw, c);
}

int
macos_parse_thunderbolt(const char *json, size_t len, struct report_thunderbolt *tb,
    char *err, size_t errlen)
{
	struct jctx c;
	const cJSON *buses, *bus;
	cJSON *root;
	int idx = 0, n = 0, extra = 0;

	jctx_init(&c, err, errlen);
	if ((root = parse_root(json, len, &c)) == NULL)
		return -1;
	buses = obj_get(root, "SPThunderboltDataType");
	if (!cJSON_IsArray(buses)) {
		jfail(&c, "no SPThunderboltDataType array");
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(bus, buses) {
		if (!cJSON_IsObject(bus))
			jfail(&c, "SPThunderboltDataType[%d]: not an object", idx);
		else if (n == REPORT_PORTS_MAX)
			extra++;
		else
			parse_bus(bus, idx, &tb->ports[n++], &c);
		idx++;
	}
	tb->n_ports = n;
	if (extra > 0)
		jfail(&c, "%d Thunderbolt buses, more than the %d a report holds; the first %d kept",
		    n + extra, REPORT_PORTS_MAX, REPORT_PORTS_MAX);
	cJSON_Delete(root);
	return c.failed ? -1 : 0;
}

int
macos_parse_hardware(const char *json, size_t len, struct report_node *node,
    int64_t *memory_bytes, char *err, size_t errlen)
{
	static const char where[] = "SPHardwareDataType[0]";
	const cJSON *arr, *hw;
	struct jctx c;
	cJSON *root;
	char mem[64] = "";
	int64_t bytes;

	jctx_init(&c, err, errlen);
	if ((root = parse_root(json, len, &c)) == NULL)
		return -1;
	arr = obj_get(root, "SPHardwareDataType");
	hw = cJSON_IsArray(arr) ? cJSON_GetArrayItem(arr, 0) : NULL;
	if (!cJSON_IsObject(hw)) {
		jfail(&c, "no SPHardwareDataType entry");
		cJSON_Delete(root);
		return -1;
	}
	get_str(hw, "machine_model", node->model, sizeof(node->model), where, &c);
	get_str(hw, "machine_name", node->machine_name, sizeof(node->machine_name), where, &c);
	get_str(hw, "chip_type", node->chip, sizeof(node->chip), where, &c);
	get_str(hw, "serial_number", node->serial, sizeof(node->serial), where, &c);
	get_str(hw, "platform_UUID", node->hardware_uuid, sizeof(node->hardware_uuid), where, &c);
	get_str(hw, "physical_memory", mem, sizeof(mem), where, &c);
	*memory_bytes = REPORT_NULL_I64;
	if (mem[0] != '\0') {
		if (parse_size(mem, &bytes) == 0)
			*memory_bytes = bytes;
		else
			jfail(&c, "%s.physical_memory: \"%s\" is not a size", where, mem);
	}
	cJSON_Delete(root);
	return c.failed ? -1 : 0;
}

/* Copy the values that were read (not NAN) over the report's. */
static void
keep_read(double *dst, double v)
{
	if (!isnan(v))
		*dst = v;
}

int
macos_parse_macmon(const char *json, size_t len, struct report_power *power,
    struct report_thermal *thermal, char *err, size_t errlen)
{
	double sys = NAN, cpu = NAN, gpu = NAN, ane = NAN, dram = NAN, tc = NAN, tg = NAN;
	const cJSON *temp;
	struct jctx c;
	cJSON *root;

	jctx_init(&c, err, errlen);
	if ((root = parse_root(json, len, &c)) == NULL)
		return -1;
	if (!cJSON_IsObject(root)) {
		jfail(&c, "not a JSON object");
		cJSON_Delete(root);
		return -1;
	}
	get_num(root, "sys_power", 0, REPORT_WATTS_MAX, &sys, "", &c);
	get_num(root, "cpu_power", 0, REPORT_WATTS_MAX, &cpu, "", &c);
	get_num(root, "gpu_power", 0, REPORT_WATTS_MAX, &gpu, "", &c);
	get_num(root, "ane_power", 0, REPORT_WATTS_MAX, &ane, "", &c);
	get_num(root, "ram_power", 0, REPORT_WATTS_MAX, &dram, "", &c);
	temp = obj_get(root, "temp");
	if (temp != NULL && !cJSON_IsNull(temp) && !cJSON_IsObject(temp))
		jfail(&c, "temp: not an object");
	get_num(temp, "cpu_temp_avg", REPORT_CELSIUS_MIN, REPORT_CELSIUS_MAX, &tc, "temp.", &c);
	get_num(temp, "gpu_temp_avg", REPORT_CELSIUS_MIN, REPORT_CELSIUS_MAX, &tg, "temp.", &c);
	cJSON_Delete(root);
	if (isnan(sys) && isnan(cpu) && isnan(gpu) && isnan(ane) && isnan(dram)) {
		jfail(&c, "no power values (sys_power, cpu_power, gpu_power, ane_power, ram_power)");
		return -1;
	}
	REPORT_SET(power->source, "macmon");
	keep_read(&power->system_watts, sys);
	keep_read(&power->cpu_watts, cpu);
	keep_read(&power->gpu_watts, gpu);
	keep_read(&power->ane_watts, ane);
	keep_read(&power->dram_watts, dram);
	keep_read(&thermal->cpu_celsius, tc);
	keep_read(&thermal->gpu_celsius, tg);
	return c.failed ? -1 : 0;
}
