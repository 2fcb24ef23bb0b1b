/*
 * tbctl token create, token list, token revoke.  token create is the one
 * command that prints a secret: the new token, alone on stdout (or under
 * "token" with --json), so that it can be piped into a file.
 */
#include "ctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"
#include "ctl_output.h"

#define BOOTSTRAP_TTL 3600.0

static void
wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

static int
parse_role(const char *s, enum token_role *role)
{
	if (s == NULL || strcmp(s, "bootstrap") == 0)
		*role = ROLE_BOOTSTRAP;
	else if (strcmp(s, "admin") == 0)
		*role = ROLE_ADMIN;
	else if (strcmp(s, "viewer") == 0)
		*role = ROLE_VIEWER;
	else
		return -1;
	return 0;
}

int
ctl_token_request_parse(const struct ctl_args *a, struct api_token_request *req, char *err,
    size_t errlen)
{
	memset(req, 0, sizeof(*req));
	if (parse_role(a->role, &req->role) == -1) {
		snprintf(err, errlen, "token create: --role: \"%s\" is not admin, viewer or "
		    "bootstrap", a->role);
		return -1;
	}
	req->ttl_seconds = req->role == ROLE_BOOTSTRAP ? BOOTSTRAP_TTL : NAN;
	if (a->ttl != NULL && (ctl_parse_duration(a->ttl, &req->ttl_seconds) == -1 ||
	    req->ttl_seconds > API_TTL_MAX)) {
		snprintf(err, errlen, "token create: --ttl: \"%s\" is not a duration (90, 3600s, "
		    "30m, 1h, 7d; at most 100 years)", a->ttl);
		return -1;
	}
	if (a->cluster != NULL && !api_name_valid(a->cluster)) {
		snprintf(err, errlen, "token create: --cluster: \"%s\" is not a valid cluster "
		    "name", a->cluster);
		return -1;
	}
	/* an admin or viewer token sees every cluster: naming one would mislead */
	if (a->cluster != NULL && req->role != ROLE_BOOTSTRAP) {
		snprintf(err, errlen, "token create: --cluster is for bootstrap tokens only");
		return -1;
	}
	REPORT_SET(req->cluster, a->cluster);
	if (a->accept && req->role != ROLE_BOOTSTRAP) {
		snprintf(err, errlen, "token create: --accept is for bootstrap tokens only");
		return -1;
	}
	req->accept = a->accept;
	if (a->label != NULL && strlen(a->label) > API_REASON_MAX) {
		snprintf(err, errlen, "token create: --label is longer than %d bytes",
		    API_REASON_MAX);
		return -1;
	}
	for (const char *p = a->label; p != NULL && *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "token create: --label holds a control character");
			return -1;
		}
	REPORT_SET(req->label, a->label);
	return 0;
}

/* The secret of the reply, alone on stdout. */
static int
print_secret(const struct ctl_reply *r)
{
	char secret[API_TOKEN_MAX + 1], err[256];
	struct api_token t;
	int rc = CTL_EXIT_OK;

	if (api_json_decode_token(r->body, r->len, &t, secret, sizeof(secret), err,
	    sizeof(err)) == -1)
		rc = ctl_fail("token create: cannot decode the reply: %s", err);
	else if (secret[0] == '\0')
		rc = ctl_fail("token create: the reply holds no token");
	else
		printf("%s\n", secret);
	wipe(secret, sizeof(secret));
	return rc;
}

int
ctl_token_create(struct ctl_client *cl, const struct ctl_args *a)
{
	struct api_token_request req;
	struct ctl_reply r;
	char err[256], *body;
	int rc;

	if (ctl_token_request_parse(a, &req, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	if ((body = api_json_token_request(&req)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", "/v1/tokens", body, "token create", &r);
	free(body);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK)
		rc = print_secret(&r);
	ctl_reply_free(&r);
	return rc;
}

/* EXPIRES: "never", "expired", or the time left. */
static char *
expires(double at, double now, char *buf, size_t size)
{
	if (isnan(at))
		snprintf(buf, size, "never");
	else if (at <= now)
		snprintf(buf, size, "expired");
	else
		ctl_fmt_duration(at - now, buf, size);
	return buf;
}

static void
token_row(struct ctl_table *t, const struct api_token *tok, double now)
{
	char created[CTL_FMT_MAX], exp[CTL_FMT_MAX], used[CTL_FMT_MAX];
	const char *cells[] = { tok->id, api_role_str(tok->role), tok->cluster, tok->node,
		tok->label, ctl_fmt_age(tok->created_at, now, created, sizeof(created)),
		expires(tok->expires_at, now, exp, sizeof(exp)),
		isnan(tok->used_at) ? "-" : ctl_fmt_age(tok->used_at, now, used, sizeof(used)),
		tok->revoked ? "yes" : "no" };

	ctl_table_add(t, cells);
}

int
ctl_tokens_print(FILE *f, const struct api_token *tok, int n, double now)
{
	static const char *headers[] = { "ID", "ROLE", "CLUSTER", "NODE", "LABEL", "CREATED",
		"EXPIRES", "USED", "REVOKED" };
	struct ctl_table *t = ctl_table_new(9, headers);

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		token_row(t, &tok[i], now);
	return ctl_table_end(t, f, 0);
}

static int
show_token(const char *body, size_t len, char *err, size_t errlen)
{
	struct api_token *tok = NULL;
	int n, rc = -1;

	if (api_json_decode_tokens(body, len, &tok, &n, err, errlen) == 0)
		rc = ctl_tokens_print(stdout, tok, n, ctl_now()) == -1 ? CTL_SHOW_OOM : 0;
	free(tok);
	return rc;
}

int
ctl_token_list(struct ctl_client *cl, const struct ctl_args *a)
{
	return ctl_get_show(cl, a, "/v1/tokens", "the list of tokens", show_token);
}

int
ctl_token_revoke(struct ctl_client *cl, const struct ctl_args *a)
{
	const char *id = a->pos[0];
	char path[64], what[64];
	struct ctl_reply r;
	int rc;

	/* Never echo what may be a whole token. */
	if (strncmp(id, "tbm_", 4) == 0)
		return ctl_usage("token revoke: give the token's id (the 12 hex digits after "
		    "\"tbm_\"), not the token");
	if (!ctl_token_id_valid(id))
		return ctl_usage("token revoke: \"%s\" is not a token id (12 hex digits; see "
		    "tbctl token list)", id);
	snprintf(what, sizeof(what), "token %s", id);
	if (ctl_path(cl, path, sizeof(path), "/v1/tokens/", id, "") == -1)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "DELETE", path, NULL, what, &r);   /* 204 */
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_done("revoked", id, 1);
	else if (rc == CTL_EXIT_OK)
		printf("token %s revoked\n", id);
	ctl_reply_free(&r);
	return rc;
}
