/*
 * The inventory's nodes, their latest report and their samples (see
 * inventory.h for the contracts, inventory_schema.c for the tables).
 *
 * A node's summary columns (serial, model, chip, OS, RDMA state, memory,
 * power, boot time) are copied from each report as it is stored, so that
 * listing nodes never parses JSON.  inv_report_store is the hot path: two
 * prepared statements (the node's row rewritten, its sample appended to
 * those the row holds; how many it holds), and in one report of
 * INV_SAMPLES_PENDING two more that move them to the samples table.
 */
#include "inventory_db.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_enc.h"
#include "log.h"

static const char *
rdma_str(enum rdma_state st)
{
	switch (st) {
	case RDMA_STATE_ENABLED:
	case RDMA_STATE_DISABLED:
		return report_rdma_state_str(st);
	default:
		return NULL;
	}
}

static enum rdma_state
rdma_parse(const char *s)
{
	if (s != NULL && strcmp(s, report_rdma_state_str(RDMA_STATE_ENABLED)) == 0)
		return RDMA_STATE_ENABLED;
	if (s != NULL && strcmp(s, report_rdma_state_str(RDMA_STATE_DISABLED)) == 0)
		return RDMA_STATE_DISABLED;
	return RDMA_STATE_UNKNOWN;
}

/* v as "%g" writes it, into buf (32 bytes); integral speeds without printf. */
static size_t
fmt_speed(char *buf, double v)
{
	char tmp[16];
	size_t n = 0, len = 0;
	long i = (long)v;

	if (!(v >= 0 && v < 1e6) || (double)i != v || signbit(v))
		return (size_t)snprintf(buf, 32, "%g", v);
	do
		tmp[n++] = (char)('0' + i % 10);
	while ((i /= 10) > 0);
	while (n > 0)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

/*
 * "2:80,3:40": receptacle and Gb/s of each port whose speed is known; the
 * first port that does not fit in n bytes is left out, and those after it.
 */
static void
link_speeds(const struct report *r, char *buf, size_t n)
{
	char num[32];
	size_t len = 0, rl, nl, sep;

	buf[0] = '\0';
	for (int i = 0; i < r->thunderbolt.n_ports && i < REPORT_PORTS_MAX; i++) {
		const struct report_port *p = &r->thunderbolt.ports[i];

		if (isnan(p->speed_gbps) || p->receptacle[0] == '\0')
			continue;
		rl = strlen(p->receptacle);
		nl = fmt_speed(num, p->speed_gbps);
		sep = len > 0;
		if (len + sep + rl + 1 + nl >= n)
			break;
		if (sep)
			buf[len++] = ',';
		memcpy(buf + len, p->receptacle, rl);
		len += rl;
		buf[len++] = ':';
		memcpy(buf + len, num, nl + 1);
		len += nl;
	}
}

/* 1 when a section of r was read more than INV_SECTION_STALE s before r. */
static int
section_stale(const struct report *r, double section)
{
	return r->collected_at - report_section_time(r, section) > INV_SECTION_STALE;
}

void
inv_report_summarize(const struct report *r, struct inv_report_summary *out)
{
	const struct report_memory *m = &r->memory;

	REPORT_SET(out->serial, r->node.serial);
	REPORT_SET(out->model, r->node.model);
	REPORT_SET(out->chip, r->node.chip);
	REPORT_SET(out->os_version, r->node.os_version);
	REPORT_SET(out->os_build, r->node.os_build);
	out->rdma = r->rdma.state;
	out->collected_at = r->collected_at;
	out->memory_total = m->total_bytes;
	out->memory_used = m->total_bytes == REPORT_NULL_I64 || m->free_bytes == REPORT_NULL_I64 ||
	    section_stale(r, m->collected_at) ? REPORT_NULL_I64 : m->total_bytes - m->free_bytes;
	out->power_watts = section_stale(r, r->power.collected_at) ? NAN :
	    r->power.system_watts;
	out->boot_time = r->node.boot_time;
	link_speeds(r, out->link_speeds, sizeof(out->link_speeds));
}

/* Parameters ?4..?13 of the statements that store a report (SUMMARY_SET). */
static int
bind_summary(sqlite3_stmt *s, const struct inv_report_summary *sum)
{
	int rc = 0;

	rc |= inv_bind_text(s, 4, sum->serial);
	rc |= inv_bind_text(s, 5, sum->model);
	rc |= inv_bind_text(s, 6, sum->chip);
	rc |= inv_bind_text(s, 7, sum->os_version);
	rc |= inv_bind_text(s, 8, sum->os_build);
	rc |= inv_bind_text(s, 9, rdma_str(sum->rdma));
	rc |= inv_bind_i64(s, 10, sum->memory_total);
	rc |= inv_bind_i64(s, 11, sum->memory_used);
	rc |= inv_bind_double(s, 12, sum->power_watts);
	rc |= inv_bind_double(s, 13, sum->boot_time);
	return rc;
}

/* ?1 id, ?2 json, ?3 time of the report, ?4..?13 its summary. */
static int
bind_report(sqlite3_stmt *s, sqlite3_int64 id, const char *json, size_t len, double t,
    const struct inv_report_summary *sum)
{
	int rc = 0;

	rc |= sqlite3_bind_int64(s, 1, id);
	if (json != NULL)
		rc |= sqlite3_bind_text64(s, 2, json, len, SQLITE_STATIC, SQLITE_UTF8);
	else
		rc |= sqlite3_bind_null(s, 2);
	rc |= sqlite3_bind_double(s, 3, t);
	rc |= bind_summary(s, sum);
	return rc;
}

static int
insert_sample(struct inv *inv, int64_t node_id, double t, const struct inv_report_summary *sum)
{
	sqlite3_stmt *s = inv->st[ST_SAMPLE_INSERT];
	int rc = 0;

	rc |= sqlite3_bind_int64(s, 1, node_id);
	rc |= sqlite3_bind_double(s, 2, t);
	rc |= inv_bind_i64(s, 3, sum->memory_used);
	rc |= inv_bind_i64(s, 4, sum->memory_total);
	rc |= inv_bind_double(s, 5, sum->power_watts);
	rc |= inv_bind_text(s, 6, sum->link_speeds);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_step_done(inv, s, __func__);
}

/* ---- enrolment ---- */

/* The node with that hardware UUID: fills key's id, name, state, flag, boot time. */
static int
find_by_uuid(struct inv *inv, const char *uuid, struct inv_node_key *key)
{
	sqlite3_stmt *s = inv->st[ST_NODE_BY_UUID];
	int rc;

	if (sqlite3_bind_text(s, 1, uuid, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		key->id = sqlite3_column_int64(s, 0);
		inv_col_text(s, 1, key->name, sizeof(key->name));
		key->state = inv_state_parse((const char *)sqlite3_column_text(s, 2));
		key->unexpected_reboot = sqlite3_column_int(s, 3) != 0;
		key->boot_time = inv_col_double(s, 4);
		rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

/* INV_CONFLICT, naming the other Mac in err, when name is taken. */
static int
name_free(struct inv *inv, const char *name, char *err, size_t errlen)
{
	sqlite3_stmt *s = inv->st[ST_NODE_NAME_OWNER];
	int rc;

	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(err, errlen, "node name \"%s\" is taken by another Mac "
		    "(hardware UUID %s)", name, (const char *)sqlite3_column_text(s, 0));
		rc = INV_CONFLICT;
	} else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

/* A re-enrolling Mac: same id and name; the reason stays if the state does. */
static int
node_reenroll(struct inv *inv, const struct inv_report_summary *sum, const char *json,
    size_t len, enum node_state st, const int64_t *cluster_id, double now,
    struct inv_node_key *key)
{
	sqlite3_stmt *s = inv->st[ST_NODE_REENROLL];
	int rc;

	rc = bind_report(s, key->id, json, len, now, sum);
	rc |= sqlite3_bind_text(s, 14, inv_state_str(st), -1, SQLITE_STATIC);
	if (cluster_id != NULL)
		rc |= sqlite3_bind_int64(s, 15, *cluster_id);
	else
		rc |= sqlite3_bind_null(s, 15);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	return inv_step_done(inv, s, __func__);
}

static int
node_insert(struct inv *inv, const struct report *r, const struct inv_report_summary *sum,
    const char *json, size_t len, const char *name, enum node_state st,
    const int64_t *cluster_id, double now, struct inv_node_key *key, char *err, size_t errlen)
{
	sqlite3_stmt *s = inv->st[ST_NODE_INSERT];
	int rc;

	if (name == NULL || name[0] == '\0' || strlen(name) > API_NAME_MAX) {
		snprintf(err, errlen, "invalid node name");
		return -1;
	}
	if ((rc = name_free(inv, name, err, errlen)) != 0)
		return rc;
	rc = bind_report(s, 0, json, len, now, sum);
	rc |= sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_text(s, 14, r->node.hardware_uuid, -1, SQLITE_STATIC);
	if (cluster_id != NULL)
		rc |= sqlite3_bind_int64(s, 15, *cluster_id);
	else
		rc |= sqlite3_bind_null(s, 15);
	rc |= sqlite3_bind_text(s, 16, inv_state_str(st), -1, SQLITE_STATIC);
	rc |= sqlite3_bind_double(s, 17, now);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	if ((rc = inv_step_done(inv, s, __func__)) == INV_CONFLICT)
		snprintf(err, errlen, "node name \"%s\" is taken", name);
	key->id = sqlite3_last_insert_rowid(inv->db);
	REPORT_SET(key->name, name);
	key->unexpected_reboot = 0;
	key->boot_time = NAN;
	return rc;
}

/* The body of inv_node_upsert, inside its transaction. */
static int
upsert(struct inv *inv, const struct report *r, const char *json, size_t json_len,
    const char *name, const char *cluster, enum node_state st, double now,
    struct inv_node_key *key, char *err, size_t errlen)
{
	struct inv_report_summary sum;
	int64_t cid = 0;
	const int64_t *cluster_id = NULL;
	int rc;

	if (cluster != NULL && cluster[0] != '\0') {
		if ((rc = inv_cluster_id(inv, cluster, &cid)) == INV_NOTFOUND)
			snprintf(err, errlen, "no cluster named \"%s\"", cluster);
		if (rc != 0)
			return rc;
		cluster_id = &cid;
	}
	inv_report_summarize(r, &sum);
	if ((rc = find_by_uuid(inv, r->node.hardware_uuid, key)) == 0)
		rc = node_reenroll(inv, &sum, json, json_len, st, cluster_id, now, key);
	else if (rc == INV_NOTFOUND)
		rc = node_insert(inv, r, &sum, json, json_len, name, st, cluster_id, now, key,
		    err, errlen);
	if (rc != 0)
		return rc;
	REPORT_SET(key->hardware_uuid, r->node.hardware_uuid);
	key->state = st;
	if (!isnan(r->node.boot_time))
		key->boot_time = r->node.boot_time;
	key->last_report_at = now;
	return insert_sample(inv, key->id, now, &sum);
}

/*
 * The existing node keeps its id, name, enrolment time and unexpected-reboot
 * flag; its reason is cleared when its state changes.  The report counts as
 * received at now (last_report_at, a sample).
 */
int
inv_node_upsert(struct inv *inv, const struct report *r, const char *json, size_t json_len,
    const char *name, const char *cluster, enum node_state st, double now,
    struct inv_node_key *key, char *err, size_t errlen)
{
	int rc, own;

	memset(key, 0, sizeof(*key));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (r->node.hardware_uuid[0] == '\0' || inv_state_str(st) == NULL) {
		snprintf(err, errlen, r->node.hardware_uuid[0] == '\0' ?
		    "report has no hardware_uuid" : "invalid node state");
		log_warnx("%s", err);
		return -1;
	}
	if (inv_tx_start(inv, &own) == -1) {
		snprintf(err, errlen, "inventory unavailable");
		return -1;
	}
	rc = upsert(inv, r, json, json_len, name, cluster, st, now, key, err, errlen);
	rc = inv_tx_end(inv, own, rc);
	if (rc == -1 && err != NULL && errlen > 0 && err[0] == '\0')
		snprintf(err, errlen, "inventory write failed");
	return rc;
}

/* ---- reading nodes ---- */

static int
row_key(sqlite3_stmt *s, void *elem)
{
	struct inv_node_key *k = elem;

	k->id = sqlite3_column_int64(s, 0);
	inv_col_text(s, 1, k->name, sizeof(k->name));
	inv_col_text(s, 2, k->hardware_uuid, sizeof(k->hardware_uuid));
	k->state = inv_state_parse((const char *)sqlite3_column_text(s, 3));
	k->boot_time = inv_col_double(s, 4);
	k->last_report_at = inv_col_double(s, 5);
	k->unexpected_reboot = sqlite3_column_int(s, 6) != 0;
	return 0;
}

int
inv_node_keys(struct inv *inv, struct inv_node_key **out, int *n)
{
	void *rows;

	if (inv_rows(inv, inv->st[ST_NODE_KEYS], sizeof(**out), row_key, &rows, n) == -1)
		return -1;
	*out = rows;
	return 0;
}

/* One row of NODE_SELECT. */
static void
read_node(sqlite3_stmt *s, struct api_node *o)
{
	memset(o, 0, sizeof(*o));
	inv_col_text(s, 0, o->name, sizeof(o->name));
	inv_col_text(s, 1, o->cluster, sizeof(o->cluster));
	o->state = inv_state_parse((const char *)sqlite3_column_text(s, 2));
	inv_col_text(s, 3, o->reason, sizeof(o->reason));
	o->unexpected_reboot = sqlite3_column_int(s, 4) != 0;
	inv_col_text(s, 5, o->hardware_uuid, sizeof(o->hardware_uuid));
	inv_col_text(s, 6, o->serial, sizeof(o->serial));
	inv_col_text(s, 7, o->model, sizeof(o->model));
	inv_col_text(s, 8, o->chip, sizeof(o->chip));
	inv_col_text(s, 9, o->os_version, sizeof(o->os_version));
	inv_col_text(s, 10, o->os_build, sizeof(o->os_build));
	o->rdma = rdma_parse((const char *)sqlite3_column_text(s, 11));
	o->memory_total_bytes = inv_col_i64(s, 12);
	o->memory_used_bytes = inv_col_i64(s, 13);
	o->power_watts = inv_col_double(s, 14);
	o->last_report_at = inv_col_double(s, 15);
	o->enrolled_at = inv_col_double(s, 16);
}

int
inv_node_get(struct inv *inv, const char *name, struct api_node *out)
{
	sqlite3_stmt *s = inv->st[ST_NODE_GET];
	int rc;

	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		read_node(s, out);
		rc = 0;
	} else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

/* Copy the report column of the current row, or NULL when there is none. */
static int
copy_json(sqlite3_stmt *s, char **json)
{
	const unsigned char *t = sqlite3_column_text(s, 0);
	int len = sqlite3_column_bytes(s, 0);

	*json = NULL;
	if (t == NULL)
		return 0;
	if ((*json = malloc((size_t)len + 1)) == NULL) {
		log_warnx("out of memory");
		return -1;
	}
	memcpy(*json, t, (size_t)len);
	(*json)[len] = '\0';
	return 0;
}

int
inv_node_report(struct inv *inv, const char *name, char **json)
{
	sqlite3_stmt *s = inv->st[ST_NODE_REPORT];
	int rc;

	*json = NULL;
	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = copy_json(s, json);
	else if (rc == SQLITE_DONE)
		rc = INV_NOTFOUND;
	else
		rc = INV_FAIL(inv, "query failed");
	sqlite3_reset(s);
	return rc;
}

/* Sorted by name. */
static int
row_node(sqlite3_stmt *s, void *o)
{
	read_node(s, o);
	return 0;
}

int
inv_node_list(struct inv *inv, struct api_node **out, int *n)
{
	void *rows;

	if (inv_rows(inv, inv->st[ST_NODE_LIST], sizeof(**out), row_node, &rows, n) == -1)
		return -1;
	*out = rows;
	return 0;
}

/* ---- changing nodes ---- */

int
inv_node_set_state(struct inv *inv, int64_t node_id, enum node_state st, const char *reason,
    int unexpected_reboot)
{
	sqlite3_stmt *s = inv->st[ST_NODE_SET_STATE];
	int rc = 0;

	if (inv_state_str(st) == NULL) {
		log_warnx("invalid node state %d", (int)st);
		return -1;
	}
	rc |= sqlite3_bind_int64(s, 1, node_id);
	rc |= sqlite3_bind_text(s, 2, inv_state_str(st), -1, SQLITE_STATIC);
	rc |= inv_bind_text(s, 3, reason);
	rc |= sqlite3_bind_int(s, 4, unexpected_reboot != 0);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	if ((rc = inv_step_done(inv, s, __func__)) != 0)
		return rc;
	return sqlite3_changes(inv->db) > 0 ? 0 : INV_NOTFOUND;
}

/* Its samples go with it (ON DELETE CASCADE); its tokens and events stay. */
int
inv_node_remove(struct inv *inv, const char *name)
{
	sqlite3_stmt *s = inv->st[ST_NODE_REMOVE];
	int rc;

	if (sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if ((rc = inv_step_done(inv, s, __func__)) != 0)
		return rc;
	return sqlite3_changes(inv->db) > 0 ? 0 : INV_NOTFOUND;
}

/* ---- reports and samples ---- */

/* v as JSON, read back the same, into buf (32 bytes); null when not finite. */
static void
fmt_exact(char *buf, double v)
{
	if (isfinite(v))
		json_fmt_double17(buf, 32, v);
	else
		memcpy(buf, "null", 5);
}

static void
fmt_i64(char *buf, int64_t v)
{
	if (v == REPORT_NULL_I64)
		memcpy(buf, "null", 5);
	else
		snprintf(buf, 32, "%" PRId64, v);
}

#define SAMPLE_JSON_MAX (6 * INV_SPEEDS_MAX + 4 * 32 + 16)

/*
 * The sample a report makes, as a pending one (inventory_db.h), into buf
 * (SAMPLE_JSON_MAX bytes): [t, memory_used, memory_total, power_watts,
 * link_speeds], nulls for what is unknown.
 */
static size_t
sample_json(char *buf, double t, const struct inv_report_summary *sum)
{
	char num[4][32], speeds[6 * INV_SPEEDS_MAX + 3];

	fmt_exact(num[0], t);
	fmt_i64(num[1], sum->memory_used);
	fmt_i64(num[2], sum->memory_total);
	fmt_exact(num[3], sum->power_watts);
	if (sum->link_speeds[0] != '\0')
		json_fmt_string(speeds, sum->link_speeds);
	else
		memcpy(speeds, "null", 5);
	return (size_t)snprintf(buf, SAMPLE_JSON_MAX, "[%s,%s,%s,%s,%s]", num[0], num[1], num[2],
	    num[3], speeds);
}

/*
 * Store the report: its row, and its sample among the row's pending ones;
 * with INV_SAMPLES_PENDING of them, they go to the samples table.  Returns
 * 0, INV_NOTFOUND when no node has in->node_id, or -1 (the caller rolls
 * back).
 */
static int
store(struct inv *inv, const struct inv_report_in *in)
{
	sqlite3_stmt *s = inv->st[ST_REPORT_UPDATE];
	char sample[SAMPLE_JSON_MAX];
	size_t len = sample_json(sample, in->received_at, in->sum);
	int rc, pending = 0;

	if ((bind_report(s, in->node_id, in->json, in->json_len, in->received_at, in->sum) |
	    sqlite3_bind_int(s, 14, in->stale != 0) |
	    sqlite3_bind_text(s, 15, sample, (int)len, SQLITE_STATIC)) != SQLITE_OK) {
		sqlite3_reset(s);
		return INV_FAIL(inv, "bind");
	}
	if ((rc = inv_step_done(inv, s, __func__)) != 0)
		return rc;
	if (sqlite3_changes(inv->db) == 0)
		return INV_NOTFOUND;
	s = inv->st[ST_SAMPLES_PENDING_N];
	if (sqlite3_bind_int64(s, 1, in->node_id) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if ((pending = (int)inv_step_int(inv, s, __func__)) < 0)
		return -1;
	if (pending < INV_SAMPLES_PENDING)
		return 0;
	s = inv->st[ST_SAMPLES_FLUSH];
	if (sqlite3_bind_int64(s, 1, in->node_id) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if (inv_step_done(inv, s, __func__) != 0)
		return -1;
	s = inv->st[ST_SAMPLES_CLEAR];
	if (sqlite3_bind_int64(s, 1, in->node_id) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	return inv_step_done(inv, s, __func__) != 0 ? -1 : 0;
}

int
inv_report_store(struct inv *inv, const struct inv_report_in *in)
{
	int own;

	if (inv_tx_start(inv, &own) == -1)
		return -1;
	return inv_tx_end(inv, own, store(inv, in));
}

/* The samples older than before, in the table and pending: how many, or -1. */
static int64_t
prune(struct inv *inv, double before)
{
	sqlite3_stmt *s = inv->st[ST_SAMPLES_PRUNE];
	int64_t gone, pending;

	if (sqlite3_bind_double(s, 1, before) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if (inv_step_done(inv, s, __func__) != 0)
		return -1;
	gone = (int64_t)sqlite3_changes64(inv->db);
	s = inv->st[ST_SAMPLES_PENDING_OLD];
	if (sqlite3_bind_double(s, 1, before) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if ((pending = inv_step_int(inv, s, __func__)) <= 0)
		return pending < 0 ? -1 : gone;
	s = inv->st[ST_SAMPLES_PENDING_PRUNE];
	if (sqlite3_bind_double(s, 1, before) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	if (inv_step_done(inv, s, __func__) != 0)
		return -1;
	return gone + pending;
}

int64_t
inv_samples_prune(struct inv *inv, double before)
{
	int own;

	if (inv_tx_start(inv, &own) == -1)
		return -1;
	int64_t n = prune(inv, before);
	return inv_tx_end(inv, own, n < 0 ? -1 : 0) == 0 ? n : -1;
}

/* node NULL or "": every node's; an unknown node has none. */
int64_t
inv_samples_count(struct inv *inv, const char *node)
{
	sqlite3_stmt *s;

	if (node == NULL || node[0] == '\0')
		return inv_step_int(inv, inv->st[ST_SAMPLES_COUNT_ALL], __func__);
	s = inv->st[ST_SAMPLES_COUNT_NODE];
	if (sqlite3_bind_text(s, 1, node, -1, SQLITE_STATIC) != SQLITE_OK)
		return INV_FAIL(inv, "bind");
	return inv_step_int(inv, s, __func__);
}
