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

#define BOOTSTRAP_TTL 3600.0

static ctl_handler token_create, token_list, token_revoke;

const struct ctl_cmd ctl_cmd_token_create = {
	.name = "token create",
	.usage = "[--role ROLE] [--ttl DURATION] [--cluster NAME] [--label TEXT] "
	    "[--accept]",
	.help =
	    "Create a token; print it alone on stdout.\n"
	    "This is the only time the token is shown.\n"
	    "  --role ROLE       admin, viewer or bootstrap (default bootstrap: lets\n"
	    "                    one agent enrol itself, as pending until accepted)\n"
	    "  --ttl DURATION    lifetime: 90 (seconds), 3600s, 30m, 1h, 7d, 2w, 1h30m;\n"
	    "                    default 1h for bootstrap, never expires for the others\n"
	    "  --cluster NAME    bootstrap only: the cluster the enrolled node joins\n"
	    "  --label TEXT      a note shown by token list\n"
	    "  --accept          bootstrap only: pre-approved; the node it enrols (or\n"
	    "                    re-enrols) is accepted at once, not left pending\n",
	.opts = CTL_OPT(ROLE) | CTL_OPT(TTL) | CTL_OPT(CLUSTER) | CTL_OPT(LABEL) |
	    CTL_OPT(ACCEPT),
	.min_pos = 0, .max_pos = 0,
	.handler = token_create,
};

const struct ctl_cmd ctl_cmd_token_list = {
	.name = "token list",
	.usage = "",
	.help =
	    "List the tokens (never their secrets).\n"
	    "CREATED and USED are how long ago; EXPIRES is the time left, \"expired\"\n"
	    "or \"never\".\n",
	.min_pos = 0, .max_pos = 0,
	.handler = token_list,
};

const struct ctl_cmd ctl_cmd_token_revoke = {
	.name = "token revoke",
	.usage = "ID",
	.help =
	    "Revoke a token by its id.\n"
	    "ID is the 12 hex digits shown by token list.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = token_revoke,
};

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

static int
token_create(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
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
	if (rc == CTL_EXIT_OK)
		rc = out->token_created(&r, a);
	ctl_reply_free(&r);
	return rc;
}

static int
token_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/tokens", out->tokens);
}

static int
token_revoke(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
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
	if (rc == CTL_EXIT_OK)
		rc = out->deleted(what, "revoked", id, 1);
	ctl_reply_free(&r);
	return rc;
}
