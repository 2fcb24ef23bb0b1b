/*
 * Wiring results and plans to and from JSON (shapes in wiring_json.h).
 */
#include "wiring_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_dec.h"
#include "api.h"

static cJSON *
str_or_null(const char *s)
{
	return s[0] ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static void
add_str(cJSON *o, const char *k, const char *s)
{
	cJSON_AddItemToObject(o, k, str_or_null(s));
}

static void
add_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *
side_json(const struct wiring_side *s)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "node", s->node);
	add_str(o, "receptacle", s->receptacle);
	add_str(o, "interface", s->interface);
	add_str(o, "rdma_device", s->rdma_device);
	add_str(o, "ipv4", s->ipv4);
	return o;
}

static cJSON *
problems_json(unsigned bits)
{
	cJSON *a = cJSON_CreateArray();

	for (int v = 1; v < WIRING_VERDICT_COUNT; v++)
		if (bits & (1u << v))
			cJSON_AddItemToArray(a, cJSON_CreateString(wiring_verdict_str(v)));
	return a;
}

static cJSON *
link_json(const struct wiring_link *l, int expected)
{
	cJSON *o = cJSON_CreateObject(), *ev = cJSON_CreateObject();

	add_str(o, "id", l->id);
	cJSON_AddItemToObject(o, "a", side_json(&l->a));
	cJSON_AddItemToObject(o, "b", side_json(&l->b));
	cJSON_AddStringToObject(o, "verdict", wiring_verdict_str(l->verdict));
	cJSON_AddItemToObject(o, "problems", problems_json(l->problems));
	cJSON_AddBoolToObject(o, "pass", l->pass);
	if (l->expected_during_rollout != 0)
		cJSON_AddNumberToObject(o, "expected_during_rollout",
		    (double)l->expected_during_rollout);
	else if (expected)
		cJSON_AddNullToObject(o, "expected_during_rollout");
	add_num(o, "speed_gbps", l->speed_gbps);
	if (expected)
		add_str(o, "expected", l->expected);
	add_str(o, "actual", l->actual);
	add_str(ev, "a", l->evidence_a);
	add_str(ev, "b", l->evidence_b);
	cJSON_AddItemToObject(o, "evidence", ev);
	add_str(o, "fix", l->fix);
	return o;
}

char *
wiring_json_result(const struct wiring_result *r)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char *out;

	if (o == NULL)
		return NULL;
	cJSON_AddStringToObject(o, "cluster", r->cluster);
	cJSON_AddStringToObject(o, "topology", wiring_topology_str(r->topology));
	add_num(o, "checked_at", r->checked_at);
	cJSON_AddStringToObject(o, "verdict", wiring_cluster_verdict_str(r->verdict));
	cJSON_AddStringToObject(o, "verdict_text", r->verdict_text);
	a = cJSON_AddArrayToObject(o, "reasons");
	for (int k = 0; k < r->n_reasons; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->reasons[k]));
	a = cJSON_AddArrayToObject(o, "nodes");
	for (int k = 0; k < r->n_nodes; k++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->nodes[k]));
	a = cJSON_AddArrayToObject(o, "links");
	for (int k = 0; k < r->n_links; k++)
		cJSON_AddItemToArray(a, link_json(&r->links[k], 1));
	a = cJSON_AddArrayToObject(o, "unexpected");
	for (int k = 0; k < r->n_unexpected; k++)
		cJSON_AddItemToArray(a, link_json(&r->unexpected[k], 0));
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return out;
}

/* ---- decoding ---- */

struct dec {
	char *err;
	size_t errlen;
};

static int
dfail(struct dec *d, const char *path, const char *what)
{
	snprintf(d->err, d->errlen, "%s: %s", path, what);
	return -1;
}

/* Only the given keys in the object o at path (json_dec_known_keys). */
static int
keys_only(struct dec *d, const cJSON *o, const char *path, const char *const *keys)
{
	struct json_dec jd;
	struct json_path p = { NULL, path, 0 };

	json_dec_init(&jd, d->err, d->errlen);
	return json_dec_known_keys(&jd, o, &p, "a wiring plan", keys);
}

static const char *const plan_keys[] = { "cluster", "topology", "dot", "links", NULL };
static const char *const link_keys[] = { "a", "b", NULL };
static const char *const end_keys[] = { "node", "receptacle", NULL };

/* A string or null member into buf ("" for null/absent when !req). */
static int
get_str(struct dec *d, const cJSON *o, const char *k, char *buf, size_t n, int req,
    const char *path)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	char p[128];

	snprintf(p, sizeof(p), "%s.%s", path, k);
	buf[0] = '\0';
	if (v == NULL || cJSON_IsNull(v))
		return req ? dfail(d, p, "is required") : 0;
	if (!cJSON_IsString(v))
		return dfail(d, p, "is not a string");
	if (strlen(v->valuestring) >= n)
		return dfail(d, p, "is too long");
	memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
	return 0;
}

static double
get_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int
dec_side(struct dec *d, const cJSON *o, struct wiring_side *s, const char *path)
{
	if (!cJSON_IsObject(o))
		return dfail(d, path, "is not an object");
	return get_str(d, o, "node", s->node, sizeof(s->node), 0, path) ||
	    get_str(d, o, "receptacle", s->receptacle, sizeof(s->receptacle), 0, path) ||
	    get_str(d, o, "interface", s->interface, sizeof(s->interface), 0, path) ||
	    get_str(d, o, "rdma_device", s->rdma_device, sizeof(s->rdma_device), 0, path) ||
	    get_str(d, o, "ipv4", s->ipv4, sizeof(s->ipv4), 0, path) ? -1 : 0;
}

static int
dec_link(struct dec *d, const cJSON *o, struct wiring_link *l, const char *path)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "evidence"), *pr;
	char verdict[32], p[96];

	if (!cJSON_IsObject(o))
		return dfail(d, path, "is not an object");
	snprintf(p, sizeof(p), "%s.a", path);
	if (dec_side(d, cJSON_GetObjectItemCaseSensitive(o, "a"), &l->a, p) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s.b", path);
	if (dec_side(d, cJSON_GetObjectItemCaseSensitive(o, "b"), &l->b, p) == -1)
		return -1;
	if (get_str(d, o, "id", l->id, sizeof(l->id), 0, path) ||
	    get_str(d, o, "verdict", verdict, sizeof(verdict), 1, path) ||
	    get_str(d, o, "expected", l->expected, sizeof(l->expected), 0, path) ||
	    get_str(d, o, "actual", l->actual, sizeof(l->actual), 0, path) ||
	    get_str(d, o, "fix", l->fix, sizeof(l->fix), 0, path))
		return -1;
	if (wiring_verdict_parse(verdict, &l->verdict) == -1)
		return dfail(d, path, "verdict is not a link verdict");
	if (cJSON_IsObject(ev) && (get_str(d, ev, "a", l->evidence_a, sizeof(l->evidence_a), 0,
	    path) || get_str(d, ev, "b", l->evidence_b, sizeof(l->evidence_b), 0, path)))
		return -1;
	pr = cJSON_GetObjectItemCaseSensitive(o, "problems");
	for (const cJSON *it = cJSON_IsArray(pr) ? pr->child : NULL; it; it = it->next) {
		enum wiring_verdict v;

		if (cJSON_IsString(it) && wiring_verdict_parse(it->valuestring, &v) == 0)
			l->problems |= 1u << v;
	}
	l->pass = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "pass"));
	pr = cJSON_GetObjectItemCaseSensitive(o, "expected_during_rollout");
	if (cJSON_IsNumber(pr) && pr->valuedouble >= 1 && pr->valuedouble < 9e15)
		l->expected_during_rollout = (int64_t)pr->valuedouble;
	l->speed_gbps = get_num(o, "speed_gbps");
	return 0;
}

static int
dec_links(struct dec *d, const cJSON *o, const char *k, struct wiring_link **out, int *n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
	int cnt = cJSON_GetArraySize(a), i = 0;
	char p[64];

	if (!cJSON_IsArray(a))
		return dfail(d, k, "is not an array");
	if ((*out = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof(**out))) == NULL)
		return dfail(d, k, "out of memory");
	for (const cJSON *it = a->child; it; it = it->next, i++) {
		snprintf(p, sizeof(p), "%s[%d]", k, i);
		if (dec_link(d, it, &(*out)[i], p) == -1)
			return -1;
	}
	*n = cnt;
	return 0;
}

static int
dec_strings(struct dec *d, const cJSON *o, const char *k, void **out, size_t elem, int *n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, k);
	int cnt = cJSON_GetArraySize(a), i = 0;

	if (!cJSON_IsArray(a))
		return dfail(d, k, "is not an array");
	if ((*out = calloc((size_t)(cnt > 0 ? cnt : 1), elem)) == NULL)
		return dfail(d, k, "out of memory");
	for (const cJSON *it = a->child; it; it = it->next, i++) {
		if (!cJSON_IsString(it) || strlen(it->valuestring) >= elem)
			return dfail(d, k, "holds something other than a short string");
		memcpy((char *)*out + (size_t)i * elem, it->valuestring,
		    strlen(it->valuestring) + 1);
	}
	*n = cnt;
	return 0;
}

static int
dec_result(struct dec *d, const cJSON *o, struct wiring_result *r)
{
	char topo[16], verdict[32];

	if (!cJSON_IsObject(o))
		return dfail(d, "result", "is not a JSON object");
	if (get_str(d, o, "cluster", r->cluster, sizeof(r->cluster), 1, "result") ||
	    get_str(d, o, "topology", topo, sizeof(topo), 1, "result") ||
	    get_str(d, o, "verdict", verdict, sizeof(verdict), 1, "result") ||
	    get_str(d, o, "verdict_text", r->verdict_text, sizeof(r->verdict_text), 0, "result"))
		return -1;
	if (wiring_topology_parse(topo, &r->topology) == -1)
		return dfail(d, "topology", "is not mesh, ring or plan");
	if (wiring_cluster_verdict_parse(verdict, &r->verdict) == -1)
		return dfail(d, "verdict", "is not a cluster verdict");
	r->checked_at = get_num(o, "checked_at");
	if (dec_strings(d, o, "reasons", (void **)&r->reasons, sizeof(*r->reasons),
	    &r->n_reasons) == -1 || dec_strings(d, o, "nodes", (void **)&r->nodes,
	    sizeof(*r->nodes), &r->n_nodes) == -1)
		return -1;
	return dec_links(d, o, "links", &r->links, &r->n_links) == -1 ||
	    dec_links(d, o, "unexpected", &r->unexpected, &r->n_unexpected) == -1 ? -1 : 0;
}

/* The body as one strict JSON object (json_dec.h), or NULL with why in err. */
static cJSON *
strict_parse(const char *json, size_t len, char *err, size_t errlen)
{
	return json_dec_object(json, len, JSON_DEC_MAX, err, errlen);
}

int
wiring_json_decode_result(const char *json, size_t len, struct wiring_result **out,
    char *err, size_t errlen)
{
	struct dec d = { err, errlen };
	cJSON *o = strict_parse(json, len, err, errlen);
	struct wiring_result *r = o != NULL ? calloc(1, sizeof(*r)) : NULL;
	int rc;

	*out = NULL;
	if (o == NULL || r == NULL) {
		if (o != NULL)
			snprintf(err, errlen, "out of memory");
		cJSON_Delete(o);
		free(r);
		return -1;
	}
	rc = dec_result(&d, o, r);
	cJSON_Delete(o);
	if (rc == -1) {
		wiring_result_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* ---- plans ---- */

static cJSON *
end_json(const struct wiring_end *e)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "node", e->node);
	add_str(o, "receptacle", e->receptacle);
	return o;
}

char *
wiring_json_plan(const struct wiring_plan_doc *p)
{
	cJSON *o = cJSON_CreateObject(), *a;
	char *out;

	if (o == NULL)
		return NULL;
	add_str(o, "cluster", p->cluster);
	cJSON_AddStringToObject(o, "topology", wiring_topology_str(p->topology));
	a = cJSON_AddArrayToObject(o, "links");
	for (int k = 0; k < p->n_links; k++) {
		cJSON *l = cJSON_CreateObject();

		cJSON_AddItemToObject(l, "a", end_json(&p->links[k].a));
		cJSON_AddItemToObject(l, "b", end_json(&p->links[k].b));
		cJSON_AddItemToArray(a, l);
	}
	add_str(o, "dot", p->dot ? p->dot : "");
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return out;
}

static int
dec_end(struct dec *d, const cJSON *o, struct wiring_end *e, const char *path)
{
	char r[64];

	if (!cJSON_IsObject(o))
		return dfail(d, path, "is not an object");
	if (keys_only(d, o, path, end_keys) ||
	    get_str(d, o, "node", e->node, sizeof(e->node), 1, path) ||
	    get_str(d, o, "receptacle", r, sizeof(r), 0, path))
		return -1;
	if (!api_name_valid(e->node))
		return dfail(d, path, "node is not a node name");
	if (r[0] && wiring_receptacle_norm(r, e->receptacle, sizeof(e->receptacle)) == -1)
		return dfail(d, path, "receptacle is not a receptacle (tb2, 2, 0-1)");
	return 0;
}

static int
dec_plan_links(struct dec *d, const cJSON *a, struct wiring_plan_doc *p)
{
	int cnt = cJSON_GetArraySize(a), i = 0;
	char path[64];

	if (!cJSON_IsArray(a))
		return dfail(d, "links", "is not an array");
	if (cnt > WIRING_JSON_PLAN_MAX)
		return dfail(d, "links", "has too many links");
	if ((p->links = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof(*p->links))) == NULL)
		return dfail(d, "links", "out of memory");
	for (const cJSON *it = a->child; it; it = it->next, i++) {
		if (!cJSON_IsObject(it))
			return dfail(d, "links", "holds something other than objects");
		snprintf(path, sizeof(path), "links[%d]", i);
		if (keys_only(d, it, path, link_keys))
			return -1;
		snprintf(path, sizeof(path), "links[%d].a", i);
		if (dec_end(d, cJSON_GetObjectItemCaseSensitive(it, "a"), &p->links[i].a, path))
			return -1;
		snprintf(path, sizeof(path), "links[%d].b", i);
		if (dec_end(d, cJSON_GetObjectItemCaseSensitive(it, "b"), &p->links[i].b, path))
			return -1;
	}
	p->n_links = cnt;
	return 0;
}

static int
dec_plan(struct dec *d, const cJSON *o, struct wiring_plan_doc *p)
{
	const cJSON *links = cJSON_GetObjectItemCaseSensitive(o, "links");
	const cJSON *dot = cJSON_GetObjectItemCaseSensitive(o, "dot");
	char topo[16];

	if (!cJSON_IsObject(o))
		return dfail(d, "plan", "is not a JSON object");
	if (keys_only(d, o, "plan", plan_keys) ||
	    get_str(d, o, "cluster", p->cluster, sizeof(p->cluster), 0, "plan") ||
	    get_str(d, o, "topology", topo, sizeof(topo), 1, "plan"))
		return -1;
	if (wiring_topology_parse(topo, &p->topology) == -1)
		return dfail(d, "plan.topology", "is not mesh, ring or plan");
	if (dot != NULL && !cJSON_IsNull(dot)) {
		if (!cJSON_IsString(dot))
			return dfail(d, "plan.dot", "is not a string");
		if ((p->dot = strdup(dot->valuestring)) == NULL)
			return dfail(d, "plan.dot", "out of memory");
	}
	if (links != NULL && !cJSON_IsNull(links) && dec_plan_links(d, links, p) == -1)
		return -1;
	return 0;
}

int
wiring_json_decode_plan(const char *json, size_t len, struct wiring_plan_doc *out,
    char *err, size_t errlen)
{
	struct dec d = { err, errlen };
	cJSON *o;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((o = strict_parse(json, len, err, errlen)) == NULL)
		return -1;
	rc = dec_plan(&d, o, out);
	cJSON_Delete(o);
	if (rc == -1)
		wiring_plan_doc_free(out);
	return rc;
}

void
wiring_plan_doc_free(struct wiring_plan_doc *p)
{
	if (p == NULL)
		return;
	free(p->links);
	free(p->dot);
	p->links = NULL;
	p->dot = NULL;
	p->n_links = 0;
}
