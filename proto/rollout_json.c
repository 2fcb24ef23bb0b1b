/*
 * The rollout API objects (rollout_api.h) as JSON, and their words.
 */
#include "rollout_api.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dec.h"
#include "report.h"

static const char *const step_names[RO_STEP_COUNT] = { "pending", "preflight", "cordon",
	"drain", "download", "install", "wait", "verify", "uncordon", "done", "skipped",
	"failed" };
static const char *const state_names[RO_STATE_COUNT] = { "running", "paused", "halted",
	"aborted", "finished" };
static const char *const mode_names[RO_MODE_COUNT] = { "rolling", "lockstep" };

static int
word_parse(const char *const *names, int n, const char *s, int *out)
{
	for (int i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return *out = i, 0;
	return -1;
}

const char *
ro_step_str(enum ro_step s)
{
	return (int)s >= 0 && s < RO_STEP_COUNT ? step_names[s] : "unknown";
}

int
ro_step_parse(const char *s, enum ro_step *out)
{
	int v;

	if (word_parse(step_names, RO_STEP_COUNT, s, &v) == -1)
		return -1;
	*out = (enum ro_step)v;
	return 0;
}

const char *
ro_state_str(enum ro_state s)
{
	return (int)s >= 0 && s < RO_STATE_COUNT ? state_names[s] : "unknown";
}

int
ro_state_parse(const char *s, enum ro_state *out)
{
	int v;

	if (word_parse(state_names, RO_STATE_COUNT, s, &v) == -1)
		return -1;
	*out = (enum ro_state)v;
	return 0;
}

const char *
ro_mode_str(enum ro_mode m)
{
	return (int)m >= 0 && m < RO_MODE_COUNT ? mode_names[m] : "unknown";
}

int
ro_mode_parse(const char *s, enum ro_mode *out)
{
	int v;

	if (word_parse(mode_names, RO_MODE_COUNT, s, &v) == -1)
		return -1;
	*out = (enum ro_mode)v;
	return 0;
}

static int
hhmm(const char *s, int *min)
{
	if (strlen(s) < 5 || s[0] < '0' || s[0] > '2' || s[1] < '0' || s[1] > '9' ||
	    s[2] != ':' || s[3] < '0' || s[3] > '5' || s[4] < '0' || s[4] > '9')
		return -1;
	int h = (s[0] - '0') * 10 + s[1] - '0';
	if (h > 23)
		return -1;
	*min = h * 60 + (s[3] - '0') * 10 + s[4] - '0';
	return 0;
}

int
ro_window_parse(const char *s, int *start, int *end)
{
	if (s == NULL || strlen(s) != 11 || s[5] != '-' || hhmm(s, start) == -1 ||
	    hhmm(s + 6, end) == -1 || *start == *end)
		return -1;
	return 0;
}

void
ro_window_str(int start, int end, char *buf, size_t size)
{
	if (start < 0)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%02d:%02d-%02d:%02d", (start / 60) % 24, start % 60, (end / 60) % 24,
		    end % 60);
}

/* ---- encoding ---- */

static void
add_str(cJSON *o, const char *k, const char *v)
{
	if (v == NULL || v[0] == '\0')
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddStringToObject(o, k, v);
}

static void
add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static char *
finish(cJSON *o)
{
	char *s = o != NULL ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	return s;
}

static cJSON *
node_obj(const struct ro_node *n, int dry)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "node", n->node);
	add_str(o, "step", ro_step_str(n->step));
	cJSON_AddBoolToObject(o, "running", n->running);
	add_num(o, "since", n->since);
	if (n->cordoned_before < 0)
		cJSON_AddNullToObject(o, "cordoned_before");
	else
		cJSON_AddBoolToObject(o, "cordoned_before", n->cordoned_before);
	cJSON_AddBoolToObject(o, "cordoned_by_us", n->cordoned_by_us);
	add_num(o, "install_sent_at", n->install_at);
	add_str(o, "last_line", n->last_line);
	add_str(o, "reason", n->reason);
	add_str(o, "failed_step", n->step == RO_FAILED ? ro_step_str(n->failed_step) : "");
	if (dry) {
		cJSON *a = cJSON_AddArrayToObject(o, "commands");
		for (int i = 0; i < n->ncmds; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(n->cmds[i]));
	}
	return o;
}

static cJSON *
campaign_obj(const struct ro_campaign *c, int with_nodes)
{
	cJSON *o = cJSON_CreateObject();
	char win[32];

	if (c->dry_run)
		cJSON_AddNullToObject(o, "id");
	else
		cJSON_AddNumberToObject(o, "id", (double)c->id);
	add_str(o, "cluster", c->cluster);
	add_str(o, "target", c->target);
	add_str(o, "label", c->label);
	add_str(o, "mode", ro_mode_str(c->mode));
	cJSON_AddNumberToObject(o, "max_unavailable", c->max_unavailable);
	ro_window_str(c->window_start, c->window_end, win, sizeof(win));
	add_str(o, "window", win);
	cJSON_AddBoolToObject(o, "dry_run", c->dry_run);
	add_str(o, "state", c->dry_run ? "" : ro_state_str(c->state));
	add_str(o, "reason", c->reason);
	add_num(o, "created_at", c->created_at);
	add_num(o, "updated_at", c->updated_at);
	if (with_nodes) {
		cJSON *a = cJSON_AddArrayToObject(o, "nodes");
		for (int i = 0; i < c->n; i++)
			cJSON_AddItemToArray(a, node_obj(&c->nodes[i], c->dry_run));
	}
	return o;
}

char *
ro_json_campaign(const struct ro_campaign *c)
{
	return finish(campaign_obj(c, 1));
}

char *
ro_json_campaigns(const struct ro_campaign *c, int n)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(o, "rollouts");

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, campaign_obj(&c[i], 1));
	return finish(o);
}

char *
ro_json_ssh(const struct ro_ssh *s)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "node", s->node);
	add_str(o, "host", s->host);
	cJSON_AddNumberToObject(o, "port", s->port);
	add_str(o, "user", s->user);
	add_str(o, "host_key", s->host_key);
	return finish(o);
}

char *
ro_json_ssh_request(const struct ro_ssh *s)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "host", s->host);
	cJSON_AddNumberToObject(o, "port", s->port);
	add_str(o, "user", s->user);
	return finish(o);
}

char *
ro_json_fingerprint(const char *fp)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "fingerprint", fp);
	return finish(o);
}

char *
ro_json_credentials(const struct ro_credentials *cr)
{
	cJSON *o = cJSON_CreateObject();

	if (cr->node[0] != '\0')
		add_str(o, "node", cr->node);
	else
		add_str(o, "cluster", cr->cluster);
	add_str(o, "user", cr->user);
	add_str(o, "password", cr->password);
	return finish(o);
}

char *
ro_json_credentials_stored(const char *scope, const char *user)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "scope", scope);
	add_str(o, "user", user);
	cJSON_AddBoolToObject(o, "stored", 1);
	return finish(o);
}

char *
ro_json_request(const struct ro_campaign *c)
{
	cJSON *o = cJSON_CreateObject();
	char win[32];

	add_str(o, "cluster", c->cluster);
	add_str(o, "target", c->target);
	add_str(o, "label", c->label);
	add_str(o, "mode", ro_mode_str(c->mode));
	cJSON_AddNumberToObject(o, "max_unavailable", c->max_unavailable);
	ro_window_str(c->window_start, c->window_end, win, sizeof(win));
	add_str(o, "window", win);
	cJSON_AddBoolToObject(o, "dry_run", c->dry_run);
	return finish(o);
}

char *
ro_json_node_request(const char *node)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "node", node);
	return finish(o);
}

/* ---- decoding ---- */

static cJSON *
parse(const char *json, size_t len, size_t max, char *err, size_t errlen)
{
	return json_dec_object(json, len, max, err, errlen);
}

/* An optional string (null or absent: ""); -1 when not a string or too long. */
static int
get_str(const cJSON *o, const char *k, char *dst, size_t size, int required, char *err,
    size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	dst[0] = '\0';
	if (v == NULL || cJSON_IsNull(v)) {
		if (!required)
			return 0;
		snprintf(err, errlen, "\"%s\" is required", k);
		return -1;
	}
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= size) {
		snprintf(err, errlen, "\"%s\" must be a string of at most %zu bytes", k, size - 1);
		return -1;
	}
	for (const char *p = v->valuestring; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "\"%s\" holds a control character", k);
			return -1;
		}
	if (required && v->valuestring[0] == '\0') {
		snprintf(err, errlen, "\"%s\" is required", k);
		return -1;
	}
	snprintf(dst, size, "%s", v->valuestring);
	return 0;
}

static int
get_int(const cJSON *o, const char *k, long lo, long hi, long def, long *out, char *err,
    size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	*out = def;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < lo || v->valuedouble > hi) {
		snprintf(err, errlen, "\"%s\" must be a whole number from %ld to %ld", k, lo, hi);
		return -1;
	}
	*out = (long)v->valuedouble;
	return 0;
}

static double
get_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int
name_ok(const char *what, const char *v, char *err, size_t errlen)
{
	if (v[0] == '\0' || api_name_valid(v))
		return 0;
	snprintf(err, errlen, "\"%s\" is not a valid %s name", v, what);
	return -1;
}

/* The request's fields, shared by the campaign decoder. */
static int
decode_request_fields(const cJSON *o, struct ro_campaign *c, char *err, size_t errlen)
{
	char mode[16], win[32];
	long mu;

	if (get_str(o, "cluster", c->cluster, sizeof(c->cluster), 1, err, errlen) == -1 ||
	    name_ok("cluster", c->cluster, err, errlen) == -1 ||
	    get_str(o, "target", c->target, sizeof(c->target), 1, err, errlen) == -1 ||
	    get_str(o, "label", c->label, sizeof(c->label), 0, err, errlen) == -1 ||
	    get_str(o, "mode", mode, sizeof(mode), 0, err, errlen) == -1 ||
	    get_str(o, "window", win, sizeof(win), 0, err, errlen) == -1 ||
	    get_int(o, "max_unavailable", 1, RO_NODES_MAX, 1, &mu, err, errlen) == -1)
		return -1;
	if (strspn(c->target, "0123456789.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
	    != strlen(c->target)) {
		snprintf(err, errlen, "target \"%s\" is not a macOS version or build", c->target);
		return -1;
	}
	c->mode = RO_ROLLING;
	if (mode[0] != '\0' && ro_mode_parse(mode, &c->mode) == -1) {
		snprintf(err, errlen, "mode \"%s\" is not rolling or lockstep", mode);
		return -1;
	}
	c->window_start = c->window_end = -1;
	if (win[0] != '\0' && ro_window_parse(win, &c->window_start, &c->window_end) == -1) {
		snprintf(err, errlen, "window \"%s\" is not HH:MM-HH:MM", win);
		return -1;
	}
	c->max_unavailable = (int)mu;
	/* a dry run is asked for with true alone: "true" or 1 is refused, never
	 * read as "not a dry run" (which would start a real update) */
	const cJSON *dr = cJSON_GetObjectItemCaseSensitive(o, "dry_run");
	if (dr != NULL && !cJSON_IsNull(dr) && !cJSON_IsBool(dr)) {
		snprintf(err, errlen, "dry_run: must be true or false");
		return -1;
	}
	c->dry_run = cJSON_IsTrue(dr);
	return 0;
}

/* The keys of the requests (json_dec_known_keys). */
static const char *const request_keys[] = { "cluster", "target", "label", "mode", "window",
	"max_unavailable", "dry_run", NULL };
static const char *const ssh_keys[] = { "host", "user", "port", NULL };
static const char *const fp_keys[] = { "fingerprint", NULL };
static const char *const cred_keys[] = { "node", "cluster", "user", "password", NULL };
static const char *const node_keys[] = { "node", NULL };

/* The body's object, with only the given keys; NULL with why in err. */
static cJSON *
parse_keys(const char *json, size_t len, const char *what, const char *const *keys, char *err,
    size_t errlen)
{
	cJSON *o = parse(json, len, API_BODY_MAX, err, errlen);
	struct json_dec d;

	if (o == NULL)
		return NULL;
	json_dec_init(&d, err, errlen);
	if (json_dec_known_keys(&d, o, NULL, what, keys) == -1) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int
ro_json_decode_request(const char *json, size_t len, struct ro_campaign *c, char *err,
    size_t errlen)
{
	cJSON *o = parse_keys(json, len, "a rollout", request_keys, err, errlen);
	int rc;

	if (o == NULL)
		return -1;
	memset(c, 0, sizeof(*c));
	rc = decode_request_fields(o, c, err, errlen);
	cJSON_Delete(o);
	return rc;
}

static int
decode_node(const cJSON *o, struct ro_node *n, char *err, size_t errlen)
{
	char step[16], fstep[16];
	const cJSON *cb = cJSON_GetObjectItemCaseSensitive(o, "cordoned_before");

	memset(n, 0, sizeof(*n));
	if (get_str(o, "node", n->node, sizeof(n->node), 1, err, errlen) == -1 ||
	    get_str(o, "step", step, sizeof(step), 1, err, errlen) == -1 ||
	    get_str(o, "failed_step", fstep, sizeof(fstep), 0, err, errlen) == -1 ||
	    get_str(o, "last_line", n->last_line, sizeof(n->last_line), 0, err, errlen) == -1 ||
	    get_str(o, "reason", n->reason, sizeof(n->reason), 0, err, errlen) == -1)
		return -1;
	if (ro_step_parse(step, &n->step) == -1) {
		snprintf(err, errlen, "step \"%s\" is not a rollout step", step);
		return -1;
	}
	if (fstep[0] != '\0')
		ro_step_parse(fstep, &n->failed_step);
	n->running = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "running"));
	n->cordoned_before = cJSON_IsBool(cb) ? cJSON_IsTrue(cb) : -1;
	n->cordoned_by_us = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cordoned_by_us"));
	n->since = get_num(o, "since");
	n->boot_before = NAN;
	n->install_at = get_num(o, "install_sent_at");
	n->wired_before = REPORT_NULL_I64;
	n->links_before = -1;
	const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(o, "commands"), *it;
	cJSON_ArrayForEach(it, cmds) {
		if (n->ncmds < RO_CMDS_MAX && cJSON_IsString(it))
			snprintf(n->cmds[n->ncmds++], RO_CMD_MAX + 1, "%s", it->valuestring);
	}
	return 0;
}

static int
decode_campaign_obj(const cJSON *o, struct ro_campaign *c, char *err, size_t errlen)
{
	char state[16];
	const cJSON *nodes, *it;

	memset(c, 0, sizeof(*c));
	if (decode_request_fields(o, c, err, errlen) == -1 ||
	    get_str(o, "state", state, sizeof(state), 0, err, errlen) == -1 ||
	    get_str(o, "reason", c->reason, sizeof(c->reason), 0, err, errlen) == -1)
		return -1;
	if (state[0] != '\0' && ro_state_parse(state, &c->state) == -1) {
		snprintf(err, errlen, "state \"%s\" is not a rollout state", state);
		return -1;
	}
	double id = get_num(o, "id");
	c->id = isfinite(id) ? (int64_t)id : 0;
	c->created_at = get_num(o, "created_at");
	c->updated_at = get_num(o, "updated_at");
	nodes = cJSON_GetObjectItemCaseSensitive(o, "nodes");
	cJSON_ArrayForEach(it, nodes) {
		if (c->n >= RO_NODES_MAX)
			break;
		if (decode_node(it, &c->nodes[c->n], err, errlen) == -1)
			return -1;
		c->n++;
	}
	return 0;
}

int
ro_json_decode_campaign(const char *json, size_t len, struct ro_campaign *c, char *err,
    size_t errlen)
{
	cJSON *o = parse(json, len, (size_t)16 << 20, err, errlen);
	int rc;

	if (o == NULL)
		return -1;
	rc = decode_campaign_obj(o, c, err, errlen);
	cJSON_Delete(o);
	return rc;
}

int
ro_json_decode_campaigns(const char *json, size_t len, struct ro_campaign **out, int *n,
    char *err, size_t errlen)
{
	cJSON *o = parse(json, len, (size_t)16 << 20, err, errlen), *it;
	const cJSON *a;
	int rc = 0, cnt;

	*out = NULL;
	*n = 0;
	if (o == NULL)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(o, "rollouts");
	cnt = cJSON_GetArraySize(a);
	*out = calloc(cnt > 0 ? (size_t)cnt : 1, sizeof(**out));
	if (*out == NULL) {
		cJSON_Delete(o);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(it, a) {
		if ((rc = decode_campaign_obj(it, &(*out)[*n], err, errlen)) == -1)
			break;
		(*n)++;
	}
	cJSON_Delete(o);
	return rc;
}

int
ro_json_decode_ssh_request(const char *json, size_t len, struct ro_ssh *s, char *err,
    size_t errlen)
{
	cJSON *o = parse_keys(json, len, "an SSH address", ssh_keys, err, errlen);
	long port;
	int rc = -1;

	if (o == NULL)
		return -1;
	memset(s, 0, sizeof(*s));
	if (get_str(o, "host", s->host, sizeof(s->host), 1, err, errlen) == 0 &&
	    get_str(o, "user", s->user, sizeof(s->user), 1, err, errlen) == 0 &&
	    get_int(o, "port", 1, 65535, 22, &port, err, errlen) == 0) {
		s->port = (int)port;
		rc = 0;
		if (strspn(s->host, "0123456789.:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
		    != strlen(s->host) || s->host[0] == '-') {
			snprintf(err, errlen, "host \"%s\" is not an address or host name", s->host);
			rc = -1;
		} else if (name_ok("user", s->user, err, errlen) == -1)
			rc = -1;
	}
	cJSON_Delete(o);
	return rc;
}

int
ro_json_decode_fingerprint(const char *json, size_t len, char *fp, size_t size, char *err,
    size_t errlen)
{
	cJSON *o = parse_keys(json, len, "a host key", fp_keys, err, errlen);
	int rc;

	if (o == NULL)
		return -1;
	rc = get_str(o, "fingerprint", fp, size, 1, err, errlen);
	cJSON_Delete(o);
	return rc;
}

int
ro_json_decode_credentials(const char *json, size_t len, struct ro_credentials *cr,
    char *err, size_t errlen)
{
	cJSON *o = parse_keys(json, len, "credentials", cred_keys, err, errlen);
	int rc = -1;

	if (o == NULL)
		return -1;
	memset(cr, 0, sizeof(*cr));
	if (get_str(o, "node", cr->node, sizeof(cr->node), 0, err, errlen) == 0 &&
	    get_str(o, "cluster", cr->cluster, sizeof(cr->cluster), 0, err, errlen) == 0 &&
	    get_str(o, "user", cr->user, sizeof(cr->user), 1, err, errlen) == 0 &&
	    get_str(o, "password", cr->password, sizeof(cr->password), 1, err, errlen) == 0 &&
	    name_ok("node", cr->node, err, errlen) == 0 &&
	    name_ok("cluster", cr->cluster, err, errlen) == 0 &&
	    name_ok("user", cr->user, err, errlen) == 0) {
		rc = 0;
		if ((cr->node[0] == '\0') == (cr->cluster[0] == '\0')) {
			snprintf(err, errlen, "give one of \"node\" and \"cluster\"");
			rc = -1;
		}
	}
	cJSON_Delete(o);
	return rc;
}

int
ro_json_decode_node_request(const char *json, size_t len, api_name node, char *err,
    size_t errlen)
{
	cJSON *o = parse_keys(json, len, "a retry", node_keys, err, errlen);
	int rc;

	if (o == NULL)
		return -1;
	rc = get_str(o, "node", node, sizeof(api_name), 1, err, errlen);
	if (rc == 0)
		rc = name_ok("node", node, err, errlen);
	cJSON_Delete(o);
	return rc;
}
