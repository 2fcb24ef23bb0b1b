/*
 * Every JSON decoder of the API (proto/api_json*.c, plan_json.c,
 * rollout_json.c, prov_json.c, wiring_json.c, catalog.c, job_json.c,
 * job_logs_json.c) on every input:
 * requests the controller reads from clients and responses tbctl reads.
 * Where the family has an encoder, what a decoder accepts must encode,
 * decode again, and encode to the same text (DESIGN.md: what is stored is
 * what was validated, re-encoded).  The decoders are wrapped into one
 * signature and listed in decoders[].
 */
#include "fuzz.h"
#include "api.h"
#include "api_json.h"
#include "api_samples.h"
#include "catalog.h"
#include "job_api.h"
#include "plan.h"
#include "prov_api.h"
#include "rollout_api.h"
#include "wiring_json.h"

typedef int (*dec_fn)(const char *j, size_t l, void *out, char *err, size_t errlen);
typedef char *(*enc_fn)(const void *in);
/* Frees what a decoder allocated inside *out (not out itself). */
typedef void (*clear_fn)(void *out);

struct decoder {
	const char *name;
	size_t size;      /* of *out */
	dec_fn dec;
	enc_fn enc;       /* NULL: no round trip */
	clear_fn clear;   /* NULL: nothing allocated */
};

/* An array decoder's result: freed by clear_list. */
struct list {
	void *v;
	int n;
};

static void
clear_list(void *out)
{
	struct list *l = out;

	free(l->v);
	l->v = NULL;
}

#define LIST_DEC(fn, T) \
	static int dec_##fn(const char *j, size_t l, void *out, char *err, size_t errlen) \
	{ \
		struct list *li = out; \
		T *v = NULL; \
		int r = fn(j, l, &v, &li->n, err, errlen); \
		li->v = v; \
		return r; \
	}
LIST_DEC(api_json_decode_nodes, struct api_node)
LIST_DEC(api_json_decode_events, struct api_event)
LIST_DEC(api_json_decode_tokens, struct api_token)
LIST_DEC(api_json_decode_clusters, struct api_cluster)
LIST_DEC(plan_json_decode_list, struct plan)
LIST_DEC(ro_json_decode_campaigns, struct ro_campaign)

/* One struct decoder, the cast-free way. */
#define ONE_DEC(fn, T) \
	static int dec_##fn(const char *j, size_t l, void *out, char *err, size_t errlen) \
	{ \
		return fn(j, l, (T *)out, err, errlen); \
	}
#define ONE_ENC(fn, T) \
	static char *enc_##fn(const void *in) { return fn((const T *)in); }
ONE_DEC(api_json_decode_node, struct api_node)
ONE_DEC(api_json_decode_token_request, struct api_token_request)
ONE_ENC(api_json_token_request, struct api_token_request)
ONE_DEC(api_json_decode_cluster, struct api_cluster)
ONE_DEC(api_json_decode_enrolled, struct api_enrolled)
ONE_ENC(api_json_enrolled, struct api_enrolled)
ONE_DEC(plan_json_decode, struct plan)
ONE_DEC(plan_json_decode_request, struct plan_request)
ONE_ENC(plan_json_request, struct plan_request)
ONE_DEC(ro_json_decode_campaign, struct ro_campaign)
ONE_DEC(ro_json_decode_request, struct ro_campaign)
ONE_ENC(ro_json_request, struct ro_campaign)
ONE_DEC(ro_json_decode_ssh_request, struct ro_ssh)
ONE_ENC(ro_json_ssh_request, struct ro_ssh)
ONE_DEC(ro_json_decode_credentials, struct ro_credentials)
ONE_ENC(ro_json_credentials, struct ro_credentials)
ONE_DEC(prov_json_decode_request, struct prov_api_request)
ONE_ENC(prov_json_request, struct prov_api_request)
ONE_DEC(prov_json_decode_deprov, struct prov_api_deprov)
ONE_ENC(prov_json_deprov, struct prov_api_deprov)
ONE_DEC(prov_json_decode_status, struct prov_api_status)
ONE_ENC(prov_json_status, struct prov_api_status)
ONE_DEC(catalog_decode_model, struct catalog_model)
ONE_ENC(catalog_encode_model, struct catalog_model)
ONE_DEC(wiring_json_decode_plan, struct wiring_plan_doc)
ONE_ENC(wiring_json_plan, struct wiring_plan_doc)

static void
clear_plan_doc(void *out)
{
	wiring_plan_doc_free(out);
	memset(out, 0, sizeof(struct wiring_plan_doc));
}

static int
dec_token(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	char secret[128];

	return api_json_decode_token(j, l, out, secret, sizeof(secret), err, errlen);
}

/* Single strings: the buffer is the out struct. */
struct text {
	char s[RO_PASSWORD_MAX + 1];
};

static int
dec_reason(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return api_json_decode_reason(j, l, ((struct text *)out)->s, API_REASON_MAX + 1, err,
	    errlen);
}

static char *
enc_reason(const void *in)
{
	return api_json_reason(((const struct text *)in)->s);
}

static int
dec_name(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return api_json_decode_name(j, l, ((struct text *)out)->s, err, errlen);
}

static char *
enc_name(const void *in)
{
	return api_json_name(((const struct text *)in)->s);
}

static int
dec_error(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return api_json_decode_error(j, l, ((struct text *)out)->s, API_REASON_MAX + 1);
}

static char *
enc_error(const void *in)
{
	return api_json_error(((const struct text *)in)->s);
}

static int
dec_fingerprint(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return ro_json_decode_fingerprint(j, l, ((struct text *)out)->s, RO_FP_MAX + 1, err,
	    errlen);
}

static char *
enc_fingerprint(const void *in)
{
	return ro_json_fingerprint(((const struct text *)in)->s);
}

static int
dec_node_request(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return ro_json_decode_node_request(j, l, ((struct text *)out)->s, err, errlen);
}

static char *
enc_node_request(const void *in)
{
	return ro_json_node_request(((const struct text *)in)->s);
}

static int
dec_names(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	struct api_names *ns = out;

	return api_json_decode_names(j, l, ns->v, API_ALLOW_MAX, &ns->n, err, errlen);
}

static int
dec_serials(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	struct api_names *ns = out;

	return api_json_decode_serials(j, l, ns->v, API_ALLOW_MAX, &ns->n, err, errlen);
}

static char *
enc_names_with(const void *in, char *(*enc)(const char *const *, int))
{
	const struct api_names *ns = in;
	const char *v[API_ALLOW_MAX];
	int i;

	for (i = 0; i < ns->n; i++)
		v[i] = ns->v[i];
	return enc(v, ns->n);
}

static char *
enc_names(const void *in)
{
	return enc_names_with(in, api_json_names);
}

static char *
enc_serials(const void *in)
{
	return enc_names_with(in, api_json_serials);
}

/* A catalog file: {"models": [...]}. */
static int
dec_catalog(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	struct list *li = out;
	struct catalog_model *v = NULL;
	int r = catalog_decode(j, l, &v, &li->n, err, errlen);

	li->v = v;
	return r;
}

static char *
enc_catalog(const void *in)
{
	const struct list *li = in;

	return catalog_encode(li->v, li->n);
}

struct samples {
	char node[API_NAME_MAX + 1];
	struct list l;
};

static int
dec_samples(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	struct samples *s = out;
	struct api_sample *v = NULL;
	int r = api_json_decode_samples(j, l, s->node, &v, &s->l.n, err, errlen);

	s->l.v = v;
	return r;
}

static void
clear_samples(void *out)
{
	clear_list(&((struct samples *)out)->l);
}

/* wiring_json_decode_result allocates the result itself. */
static int
dec_wiring_result(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return wiring_json_decode_result(j, l, (struct wiring_result **)out, err, errlen);
}

static char *
enc_wiring_result(const void *in)
{
	return wiring_json_result(*(struct wiring_result *const *)in);
}

static void
clear_wiring_result(void *out)
{
	wiring_result_free(*(struct wiring_result **)out);
	*(struct wiring_result **)out = NULL;
}

static int
dec_job(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return job_decode(j, l, out, err, errlen);
}

static char *
enc_job(const void *in)
{
	return job_encode(in);
}

LIST_DEC(job_list_decode, struct job)

static char *
enc_jobs(const void *in)
{
	const struct list *li = in;

	return job_list_encode(li->v, li->n);
}

static int
dec_job_request(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	return job_request_decode(j, l, out, err, errlen);
}

static char *
enc_job_request(const void *in)
{
	return job_request_encode(in);
}

/* The logs answer: its state and its ranks' lines, encoded again as one. */
struct job_logs {
	struct job_logs_state st;
	struct job_log *l;
	int n;
};

static int
dec_job_logs(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	struct job_logs *x = out;

	if (job_logs_state_decode(j, l, &x->st, err, errlen) == -1)
		return -1;
	return job_logs_decode(j, l, &x->l, &x->n, err, errlen);
}

static char *
enc_job_logs(const void *in)
{
	const struct job_logs *x = in;

	return job_logs_encode(&x->st, x->l, x->n);
}

static void
clear_job_logs(void *out)
{
	struct job_logs *x = out;

	job_logs_free(x->l, x->n);
	x->l = NULL;
}

/* The logs' from query: the input as text, formatted again. */
struct logs_from {
	int64_t from[JOB_RANKS_MAX];
};

static int
dec_logs_from(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	char *s = fuzz_cstr((const uint8_t *)j, l);   /* the parser takes a C string */
	int r;

	if (s == NULL)
		return -1;
	r = job_logs_from_parse(s, ((struct logs_from *)out)->from, err, errlen);
	free(s);
	return r;
}

static char *
enc_logs_from(const void *in)
{
	char buf[JOB_RANKS_MAX * 24];

	if (job_logs_from_format(((const struct logs_from *)in)->from, buf, sizeof(buf)) == -1)
		return NULL;
	return strdup(buf);
}

/* api_json_extract and api_json_pretty: any JSON in, text out. */
static int
dec_extract(const char *j, size_t l, void *out, char *err, size_t errlen)
{
	char *v = NULL;

	(void)out, (void)err, (void)errlen;
	api_json_extract(j, l, "report", &v);
	free(v);
	free(api_json_pretty(j, l));
	return -1;   /* nothing to round-trip */
}

#define D(name, T, dec, enc, clear) { name, sizeof(T), dec, enc, clear }
static const struct decoder decoders[] = {
	D("node", struct api_node, dec_api_json_decode_node, NULL, NULL),
	D("nodes", struct list, dec_api_json_decode_nodes, NULL, clear_list),
	D("events", struct list, dec_api_json_decode_events, NULL, clear_list),
	D("token", struct api_token, dec_token, NULL, NULL),
	D("tokens", struct list, dec_api_json_decode_tokens, NULL, clear_list),
	D("token_request", struct api_token_request, dec_api_json_decode_token_request,
	    enc_api_json_token_request, NULL),
	D("cluster", struct api_cluster, dec_api_json_decode_cluster, NULL, NULL),
	D("clusters", struct list, dec_api_json_decode_clusters, NULL, clear_list),
	D("enrolled", struct api_enrolled, dec_api_json_decode_enrolled, enc_api_json_enrolled,
	    NULL),
	D("reason", struct text, dec_reason, enc_reason, NULL),
	D("name", struct text, dec_name, enc_name, NULL),
	D("names", struct api_names, dec_names, enc_names, NULL),
	D("serials", struct api_names, dec_serials, enc_serials, NULL),
	D("error", struct text, dec_error, enc_error, NULL),
	D("extract", struct text, dec_extract, NULL, NULL),
	D("samples", struct samples, dec_samples, NULL, clear_samples),
	D("plan", struct plan, dec_plan_json_decode, NULL, NULL),
	D("plans", struct list, dec_plan_json_decode_list, NULL, clear_list),
	D("plan_request", struct plan_request, dec_plan_json_decode_request,
	    enc_plan_json_request, NULL),
	D("rollout", struct ro_campaign, dec_ro_json_decode_campaign, NULL, NULL),
	D("rollouts", struct list, dec_ro_json_decode_campaigns, NULL, clear_list),
	D("rollout_request", struct ro_campaign, dec_ro_json_decode_request, enc_ro_json_request,
	    NULL),
	D("ssh_request", struct ro_ssh, dec_ro_json_decode_ssh_request, enc_ro_json_ssh_request,
	    NULL),
	D("fingerprint", struct text, dec_fingerprint, enc_fingerprint, NULL),
	D("credentials", struct ro_credentials, dec_ro_json_decode_credentials,
	    enc_ro_json_credentials, NULL),
	D("node_request", struct text, dec_node_request, enc_node_request, NULL),
	D("prov_request", struct prov_api_request, dec_prov_json_decode_request,
	    enc_prov_json_request, NULL),
	D("deprov", struct prov_api_deprov, dec_prov_json_decode_deprov, enc_prov_json_deprov,
	    NULL),
	D("prov_status", struct prov_api_status, dec_prov_json_decode_status,
	    enc_prov_json_status, NULL),
	D("catalog", struct list, dec_catalog, enc_catalog, clear_list),
	D("catalog_model", struct catalog_model, dec_catalog_decode_model,
	    enc_catalog_encode_model, NULL),
	D("wiring_plan", struct wiring_plan_doc, dec_wiring_json_decode_plan,
	    enc_wiring_json_plan, clear_plan_doc),
	D("wiring_result", struct wiring_result *, dec_wiring_result, enc_wiring_result,
	    clear_wiring_result),
	D("job", struct job, dec_job, enc_job, NULL),
	D("jobs", struct list, dec_job_list_decode, enc_jobs, clear_list),
	D("job_request", struct job_request, dec_job_request, enc_job_request, NULL),
	D("job_logs", struct job_logs, dec_job_logs, enc_job_logs, clear_job_logs),
	D("logs_from", struct logs_from, dec_logs_from, enc_logs_from, NULL),
};

/* decode(enc(a)) must succeed and encode to the same text. */
static void
round_trip(const struct decoder *d, const void *a)
{
	char err[256] = "";
	char *e1, *e2;
	void *b;

	e1 = d->enc(a);
	FUZZ_CHECK(e1 != NULL, "%s: encode failed", d->name);
	b = calloc(1, d->size);
	FUZZ_CHECK(b != NULL, "out of memory");
	FUZZ_CHECK(d->dec(e1, strlen(e1), b, err, sizeof(err)) == 0,
	    "%s: its own encoding does not decode: %s\n%s", d->name, err, e1);
	e2 = d->enc(b);
	FUZZ_CHECK(e2 != NULL, "%s: encode failed", d->name);
	FUZZ_CHECK(strcmp(e1, e2) == 0, "%s: the round trip changed it:\n%s\n%s", d->name, e1, e2);
	if (d->clear != NULL)
		d->clear(b);
	free(b);
	free(e1);
	free(e2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	char *json;
	size_t i;
	void *out;

	json = fuzz_copy(data, size);
	if (json == NULL)
		return 0;
	for (i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++) {
		const struct decoder *d = &decoders[i];

		out = calloc(1, d->size);
		if (out == NULL)
			break;
		if (d->dec(json, size, out, err, sizeof(err)) == 0 && d->enc != NULL)
			round_trip(d, out);
		if (d->clear != NULL)
			d->clear(out);
		free(out);
	}
	free(json);
	return 0;
}
