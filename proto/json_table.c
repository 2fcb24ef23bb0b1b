/*
 * See json_table.h.  Decoding matches each object's members to its table in
 * one pass over them, then decodes the values in table order: the report's
 * hundreds of members each cost a key comparison or two.
 */
#include "json_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_enc.h"
#include "report.h"

/* ---- decoding ---- */

/* v for a message: digits when integral, else "%g" or, exact, all of them. */
static const char *
num_text(char *buf, size_t size, double v, int exact)
{
	if (exact && !(v == floor(v) && fabs(v) < 1e18)) {
		json_fmt_double(buf, size, v);
		return buf;
	}
	return json_dec_num(buf, size, v);
}

/* " or null" when null is a value f may have. */
static const char *
or_null(const struct json_field *f)
{
	return (f->flags & JF_VALUE) == JF_VALUE ? "" : " or null";
}

/* An integral number in f->lo..f->hi into the int64_t or int at dst. */
static int
dec_integer(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const struct json_field *f, void *dst)
{
	int exact = (f->flags & JF_EXACT) != 0;
	char b[3][32];
	double v;

	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number%s", or_null(f));
	v = it->valuedouble;
	if (!(v >= f->lo && v <= f->hi))
		return json_dec_fail(d, p, "%s is out of range %s..%s",
		    num_text(b[0], sizeof(b[0]), v, exact),
		    json_dec_num(b[1], sizeof(b[1]), f->lo),
		    json_dec_num(b[2], sizeof(b[2]), f->hi));
	if (v != floor(v))
		return json_dec_fail(d, p, "%s is not an integer",
		    num_text(b[0], sizeof(b[0]), v, exact));
	if (f->type == JT_INT)
		*(int *)dst = (int)v;
	else
		*(int64_t *)dst = (int64_t)v;
	return 0;
}

static int
dec_double(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const struct json_field *f, double *dst)
{
	double v;

	if (!cJSON_IsNumber(it))
		return json_dec_fail(d, p, "must be a number%s", or_null(f));
	v = it->valuedouble;
	if (!(v >= f->lo && v <= f->hi))
		return json_dec_fail(d, p, "%g is out of range %g..%g", v, f->lo, f->hi);
	*dst = v;
	return 0;
}

static int
dec_enum(struct json_dec *d, const cJSON *it, const struct json_path *p,
    const struct json_field *f, void *dst)
{
	const struct json_enum *en = f->en;
	const char *name;
	char list[128];
	size_t n = 0;
	int v;

	if (!cJSON_IsString(it))
		return json_dec_fail(d, p, "must be a string%s", or_null(f));
	for (v = 0; v < en->count; v++) {
		if ((name = en->name(v)) != NULL && strcmp(it->valuestring, name) == 0) {
			memcpy(dst, &v, sizeof(v));
			return 0;
		}
	}
	if (en->what != NULL)
		return json_dec_fail(d, p, "\"%.64s\" is not %s", it->valuestring, en->what);
	list[0] = '\0';
	for (v = 0; v < en->count && n < sizeof(list); v++)
		if ((name = en->name(v)) != NULL)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s\"%s\"",
			    n > 0 ? ", " : "", name);
	return json_dec_fail(d, p, "\"%.64s\" is not one of %s", it->valuestring, list);
}

/* One element of the array field f, into elem. */
static int
dec_element(struct json_dec *d, const cJSON *e, const struct json_path *p, char *elem,
    const struct json_field *f)
{
	int rc;

	if (f->sub != NULL) {
		if (!cJSON_IsObject(e))
			return json_dec_fail(d, p, "must be an object");
		if (f->init != NULL)
			f->init(elem);
		rc = json_table_decode(d, e, p, elem, f->sub);
	} else {
		if (!cJSON_IsString(e))
			return json_dec_fail(d, p, "must be a string");
		rc = json_dec_str(d, e, p, elem, f->size, 0);
	}
	if (rc == 0 && f->check != NULL)
		rc = f->check(d, p, elem);
	return rc;
}

/* The array a into the elements at dst; its count into *n. */
static int
dec_array(struct json_dec *d, const cJSON *a, const struct json_path *p, char *dst, int *n,
    const struct json_field *f)
{
	struct json_path ep = { p, NULL, 0 };
	const cJSON *e;

	if (!cJSON_IsArray(a))
		return json_dec_fail(d, p, "must be an array%s", or_null(f));
	if (cJSON_GetArraySize(a) > f->max)
		return json_dec_fail(d, p, "more than %d entries", f->max);
	cJSON_ArrayForEach(e, a) {
		if (dec_element(d, e, &ep, dst + (size_t)ep.idx * f->size, f) == -1)
			return -1;
		ep.idx++;
	}
	*n = ep.idx;
	return 0;
}

static int
dec_object(struct json_dec *d, const cJSON *it, const struct json_path *p, char *base,
    const struct json_field *f)
{
	if (!cJSON_IsObject(it))
		return json_dec_fail(d, p, "must be an object%s", or_null(f));
	if (f->flags & JF_FLAG)
		*(int *)(void *)(base + f->n_off) = 1;
	return json_table_decode(d, it, p, base + f->off, f->sub);
}

/* A present value of field f (null only for JT_CONST) into base. */
static int
dec_value(struct json_dec *d, const cJSON *it, const struct json_path *p, char *base,
    const struct json_field *f)
{
	char *dst = base + f->off;

	switch (f->type) {
	case JT_STR:
		if (!cJSON_IsString(it))
			return json_dec_fail(d, p, "must be a string%s", or_null(f));
		return json_dec_str(d, it, p, dst, f->size, 0);
	case JT_I64:
	case JT_INT:
		return dec_integer(d, it, p, f, dst);
	case JT_DBL:
		return dec_double(d, it, p, f, (double *)(void *)dst);
	case JT_BOOL:
	case JT_TRI:
		if (!cJSON_IsBool(it))
			return json_dec_fail(d, p, "%s", (f->flags & JF_VALUE) == JF_VALUE ?
			    "must be true or false" : "must be true, false or null");
		if (f->type == JT_BOOL)
			*(int *)(void *)dst = cJSON_IsTrue(it) ? 1 : 0;
		else
			*(enum tri *)(void *)dst = cJSON_IsTrue(it) ? TRI_TRUE : TRI_FALSE;
		return 0;
	case JT_ENUM:
		return dec_enum(d, it, p, f, dst);
	case JT_CONST:
		if (!cJSON_IsString(it) || strcmp(it->valuestring, f->value) != 0)
			return json_dec_fail(d, p, "expected \"%s\"", f->value);
		return 0;
	case JT_OBJECT:
		return dec_object(d, it, p, base, f);
	case JT_ARRAY:
		return dec_array(d, it, p, dst, (int *)(void *)(base + f->n_off), f);
	case JT_CUSTOM:
		return f->custom->decode(d, it, p, dst);
	}
	return json_dec_fail(d, p, "internal error: unknown field type");
}

/* obj's members with t's keys: v[i] is the first named t[i].key, or NULL. */
struct members {
	const cJSON *v[JSON_TABLE_KEYS];
};

/* Index of key in t[0..n-1], trying t[start] first; -1 when absent. */
static int
key_index(const struct json_field *t, int n, int start, const char *key)
{
	int i, k;

	for (k = 0; k < n; k++) {
		i = start + k < n ? start + k : start + k - n;
		if (t[i].key[0] == key[0] && strcmp(t[i].key, key) == 0)
			return i;
	}
	return -1;
}

/*
 * Fills m from obj's members in one pass over them; returns the number of
 * t's keys.  Each member's name is compared first with the key after the
 * one last found, which is its own when the members come in table order,
 * as json_table_object writes them.  A key of t given twice is refused
 * (-1, the error in d; obj sits at up); keys t does not have are counted
 * in d->unknown.
 */
static int
index_members(struct json_dec *d, const struct json_path *up, const cJSON *obj,
    const struct json_field *t, struct members *m)
{
	const cJSON *c;
	int n = 0, i, next = 0;

	while (t[n].key != NULL)
		if (++n > JSON_TABLE_KEYS)
			return json_dec_fail(d, up, "internal error: more than %d keys",
			    JSON_TABLE_KEYS);
	memset(m->v, 0, (size_t)n * sizeof(m->v[0]));
	for (c = obj->child; c != NULL; c = c->next) {
		if (c->string == NULL || (i = key_index(t, n, next, c->string)) < 0) {
			d->unknown++;
			continue;
		}
		if (m->v[i] != NULL) {
			struct json_path p = { up, t[i].key, 0 };
			return json_dec_fail(d, &p, "given twice");
		}
		m->v[i] = c;
		next = i + 1 < n ? i + 1 : 0;
	}
	return n;
}

int
json_table_decode(struct json_dec *d, const cJSON *obj, const struct json_path *up,
    void *base, const struct json_field *t)
{
	struct members m;
	const cJSON *it;
	int i, n = index_members(d, up, obj, t, &m);

	for (i = 0; i < n; i++) {
		const struct json_field *f = &t[i];
		struct json_path p = { up, f->key, 0 };

		if ((it = m.v[i]) == NULL) {
			if (f->flags & JF_KEY)
				return json_dec_fail(d, &p, "missing");
			continue;
		}
		if (cJSON_IsNull(it) && f->type != JT_CONST) {
			if ((f->flags & JF_VALUE) == JF_VALUE)
				return json_dec_fail(d, &p, "must not be null");
			continue;
		}
		if (dec_value(d, it, &p, base, f) == -1)
			return -1;
		if (f->check != NULL && f->type != JT_ARRAY &&
		    f->check(d, &p, (char *)base + f->off) == -1)
			return -1;
	}
	return n < 0 ? -1 : 0;
}

void
json_table_null(void *base, size_t size, const struct json_field *t)
{
	char *b = base;

	memset(base, 0, size);
	for (; t->key != NULL; t++) {
		if (t->type == JT_I64)
			*(int64_t *)(void *)(b + t->off) = REPORT_NULL_I64;
		else if (t->type == JT_DBL)
			*(double *)(void *)(b + t->off) = NAN;
		else if (t->type == JT_TRI)
			*(enum tri *)(void *)(b + t->off) = TRI_NULL;
	}
}

/* ---- encoding ---- */

cJSON *
json_table_enum(const struct json_enum *en, int v)
{
	const char *name;

	if (v < 0 || v >= en->count)
		v = en->other;
	if (v < 0 || (name = en->name(v)) == NULL)
		return cJSON_CreateNull();
	return cJSON_CreateStringReference(name);
}

static cJSON *enc_value(const char *base, const struct json_field *f);

cJSON *
json_table_object(const void *base, const struct json_field *t)
{
	cJSON *o = cJSON_CreateObject();

	for (; o != NULL && t->key != NULL; t++)
		if (json_enc_attach(o, t->key, enc_value(base, t)) == -1) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

/* The array field f of base, or null when its count is below 0. */
static cJSON *
enc_array(const char *base, const struct json_field *f)
{
	int i, n = *(const int *)(const void *)(base + f->n_off);
	cJSON *a;

	if (n < 0)
		return cJSON_CreateNull();
	if ((a = cJSON_CreateArray()) == NULL)
		return NULL;
	for (i = 0; i < n && i < f->max; i++) {
		const char *elem = base + f->off + (size_t)i * f->size;
		cJSON *e = f->sub != NULL ? json_table_object(elem, f->sub) :
		    json_enc_str(elem, f->size);

		if (json_enc_attach(a, NULL, e) == -1) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

static cJSON *
enc_value(const char *base, const struct json_field *f)
{
	const char *p = base + f->off;
	int v;

	switch (f->type) {
	case JT_STR:
		return json_enc_str(p, f->size);
	case JT_I64:
		return json_enc_i64(*(const int64_t *)(const void *)p);
	case JT_INT:
		return json_enc_i64(*(const int *)(const void *)p);
	case JT_DBL:
		return json_enc_double(*(const double *)(const void *)p);
	case JT_BOOL:
		return cJSON_CreateBool(*(const int *)(const void *)p != 0);
	case JT_TRI:
		v = *(const enum tri *)(const void *)p;
		if (v == TRI_TRUE || v == TRI_FALSE)
			return cJSON_CreateBool(v == TRI_TRUE);
		return cJSON_CreateNull();
	case JT_ENUM:
		memcpy(&v, p, sizeof(v));
		return json_table_enum(f->en, v);
	case JT_CONST:
		return cJSON_CreateStringReference(f->value);
	case JT_OBJECT:
		if ((f->flags & JF_FLAG) && *(const int *)(const void *)(base + f->n_off) == 0)
			return cJSON_CreateNull();
		return json_table_object(p, f->sub);
	case JT_ARRAY:
		return enc_array(base, f);
	case JT_CUSTOM:
		return f->custom->encode(p);
	}
	return NULL;
}
