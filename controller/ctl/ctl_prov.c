/*
 * tbctl node add, tbctl node deprovision: ask the controller to provision a
 * Mac over SSH (or take tbmesh off it), then follow the run: the preflight
 * lines and every step as the controller records them, until the node is
 * ready or the run stopped, and the manual step when RDMA is off.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "prov_api.h"
#include "prov_sudoers.h"

#define POLL_SECONDS 1
#define POLL_MAX 1800          /* 30 minutes of polling at most */

/* dst = path, made absolute with cwd. */
static int
abs_path(const char *opt, const char *path, const char *cwd, char *dst, size_t size, char *err,
    size_t errlen)
{
	int n;

	if (path[0] == '\0') {
		snprintf(err, errlen, "node add: %s: empty file name", opt);
		return -1;
	}
	n = path[0] == '/' ? snprintf(dst, size, "%s", path) :
	    snprintf(dst, size, "%s/%s", cwd, path);
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errlen, "node add: %s: path too long", opt);
		return -1;
	}
	return 0;
}

/* A copy of s into dst[size]; -1 with a message naming opt when too long. */
static int
copy(const char *opt, const char *s, char *dst, size_t size, char *err, size_t errlen)
{
	if (strlen(s) >= size) {
		snprintf(err, errlen, "node add: %s: too long", opt);
		return -1;
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int
prov_numbers(const struct ctl_args *a, struct prov_api_request *req, char *err, size_t errlen)
{
	long v;

	if (a->port != NULL) {
		if (ctl_parse_count(a->port, 1, 65535, &v) != 0) {
			snprintf(err, errlen, "node add: --port: \"%s\" is not a port (1 to 65535)",
			    a->port);
			return -1;
		}
		req->port = (int)v;
	}
	if (a->wired_limit_mb != NULL) {
		if (ctl_parse_count(a->wired_limit_mb, 0, PROV_API_WIRED_MAX, &v) != 0) {
			snprintf(err, errlen, "node add: --wired-limit-mb: \"%s\" is not a number of "
			    "MB (0 to %d; 0 is the system default)", a->wired_limit_mb,
			    PROV_API_WIRED_MAX);
			return -1;
		}
		req->wired_limit_mb = (int)v;
	}
	return 0;
}

int
ctl_prov_request(const struct ctl_args *a, const char *cwd, struct prov_api_request *req,
    char *err, size_t errlen)
{
	char *json;
	int rc;

	prov_api_request_init(req);
	if (copy("HOST", a->pos[0], req->host, sizeof(req->host), err, errlen) != 0 ||
	    (a->user != NULL && copy("--user", a->user, req->user, sizeof(req->user), err,
	    errlen) != 0) ||
	    (a->key != NULL && abs_path("--key", a->key, cwd, req->key_file,
	    sizeof(req->key_file), err, errlen) != 0) ||
	    (a->agent_binary != NULL && abs_path("--agent-binary", a->agent_binary, cwd,
	    req->agent_binary, sizeof(req->agent_binary), err, errlen) != 0) ||
	    (a->cluster != NULL && copy("--cluster", a->cluster, req->cluster,
	    sizeof(req->cluster), err, errlen) != 0) ||
	    (a->name != NULL && copy("--name", a->name, req->node, sizeof(req->node), err,
	    errlen) != 0) ||
	    (a->fingerprint != NULL && copy("--fingerprint", a->fingerprint, req->fingerprint,
	    sizeof(req->fingerprint), err, errlen) != 0) ||
	    (a->ip_base != NULL && copy("--ip-base", a->ip_base, req->ip_base,
	    sizeof(req->ip_base), err, errlen) != 0) ||
	    prov_numbers(a, req, err, errlen) != 0)
		return -1;
	req->accept_new = a->accept_new;
	req->dry_run = a->dry_run;
	/* The controller's own checks, so that a usage error is one here (exit 2). */
	if ((json = prov_json_request(req)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct prov_api_request back;
	char why[200];
	rc = prov_json_decode_request(json, strlen(json), &back, why, sizeof(why));
	free(json);
	if (rc != 0) {
		static const struct { const char *key, *opt; } opts[] = {
			{ "host", "HOST" }, { "user", "--user" }, { "key_file", "--key" },
			{ "agent_binary", "--agent-binary" }, { "cluster", "--cluster" },
			{ "node", "--name" }, { "fingerprint and", "--fingerprint and --accept-new" },
			{ "fingerprint", "--fingerprint" }, { "ip_base", "--ip-base" },
		};
		const char *opt = NULL;
		for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]) && opt == NULL; i++)
			if (strncmp(why, opts[i].key, strlen(opts[i].key)) == 0)
				opt = opts[i].opt;
		const char *colon = strchr(why, ':');
		snprintf(err, errlen, "node add: %s%s", opt != NULL ? opt : "",
		    opt != NULL && colon != NULL ? colon : why);
		return -1;
	}
	return 0;
}

int
ctl_prov_ended(const char *state)
{
	return strcmp(state, "running") != 0 && strcmp(state, "waiting") != 0;
}

static void
print_step(FILE *f, const struct prov_api_step *st)
{
	fprintf(f, "  %-16s %-22s %s\n", st->outcome, st->step, st->title);
	if (st->command[0] != '\0')
		fprintf(f, "  %-16s $ %s\n", "", st->command);
	if (st->detail[0] != '\0')
		fprintf(f, "  %-16s %s\n", "", st->detail);
}

/* The steps with outcome, as "a, b, c", into buf. */
static void
steps_with(const struct prov_api_status *s, const char *outcome, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->n_steps && o < size; i++)
		if (strcmp(s->steps[i].outcome, outcome) == 0)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", o > 0 ? ", " : "",
			    s->steps[i].step);
}

static void
print_end(FILE *f, const struct prov_api_status *s)
{
	const char *who = s->node[0] != '\0' ? s->node : s->host;
	char list[1024];

	if (strcmp(s->state, "failed") == 0) {
		if (s->failed_step[0] != '\0')
			fprintf(f, "\nStopped at %s: %s\n", s->failed_step, s->reason);
		else
			fprintf(f, "\nFailed: %s\n", s->reason[0] != '\0' ? s->reason : "failed");
		steps_with(s, "undone", list, sizeof(list));
		if (s->n_steps > 0)
			fprintf(f, "Undone: %s\n", list[0] != '\0' ? list : "nothing");
		steps_with(s, "undo FAILED", list, sizeof(list));
		if (list[0] != '\0')
			fprintf(f, "Undo failed: %s\n", list);
		steps_with(s, "cannot be undone", list, sizeof(list));
		if (list[0] != '\0')
			fprintf(f, "Cannot be undone: %s\n", list);
	} else if (strcmp(s->state, "ready") == 0) {
		fprintf(f, "\n%s is ready.\n", who);
	} else if (s->dry_run) {
		fprintf(f, "\nDry run: nothing was changed on %s.\n", s->host);
	} else {
		fprintf(f, "\n%s: %s.\n", who, strcmp(s->kind, "deprovision") == 0 ?
		    "tbmesh removed" : s->state);
	}
	if (s->manual[0] != '\0')
		fprintf(f, "Manual step for %s: %s\n", who, s->manual);
}

int
ctl_prov_print(FILE *f, const struct prov_api_status *s, int *lines, int *steps)
{
	if (*lines == 0 && *steps == 0 && s->fingerprint[0] != '\0' &&
	    (s->n_preflight > 0 || ctl_prov_ended(s->state)))
		fprintf(f, "Host key: %s\n", s->fingerprint);
	if (*lines == 0 && s->n_preflight > 0)
		fprintf(f, "Preflight\n");
	for (; *lines < s->n_preflight; (*lines)++)
		fprintf(f, "  %-4s %s\n", s->preflight[*lines].verdict, s->preflight[*lines].text);
	if (*steps == 0 && s->n_steps > 0)
		fprintf(f, "Steps\n");
	for (; *steps < s->n_steps; (*steps)++)
		print_step(f, &s->steps[*steps]);
	if (ctl_prov_ended(s->state))
		print_end(f, s);
	return ferror(f) ? -1 : 0;
}

/* Follow run reply r (a status) until it ends; print as it goes. */
static int
follow(struct ctl_client *cl, const struct ctl_args *a, struct ctl_reply *r)
{
	struct prov_api_status *s = calloc(1, sizeof(*s));
	int lines = 0, steps = 0, json = ctl_want_json(cl, a), rc = CTL_EXIT_FAIL;
	char err[256], path[96];

	if (s == NULL)
		return ctl_fail("out of memory");
	for (int polls = 0; ; polls++) {
		if (prov_json_decode_status(r->body, r->len, s, err, sizeof(err)) != 0) {
			ctl_errx("the controller's reply: %s", err);
			break;
		}
		if (!json)
			ctl_prov_print(stdout, s, &lines, &steps);
		fflush(stdout);
		if (ctl_prov_ended(s->state)) {
			if (json)
				ctl_json_print(r->body, r->len);
			rc = strcmp(s->state, "failed") == 0 ? CTL_EXIT_FAIL : CTL_EXIT_OK;
			break;
		}
		if (polls == POLL_MAX) {
			ctl_errx("provisioning %lld still running after %d s; see GET /v1/provisions/"
			    "%lld", (long long)s->id, POLL_MAX * POLL_SECONDS, (long long)s->id);
			break;
		}
		nanosleep(&(struct timespec){ POLL_SECONDS, 0 }, NULL);
		ctl_reply_free(r);
		snprintf(path, sizeof(path), "/v1/provisions/%lld", (long long)s->id);
		if (ctl_call(cl, "GET", path, NULL, "provisioning", r) != CTL_EXIT_OK)
			break;
	}
	free(s);
	return rc;
}

/* tbctl node add --print-sudoers [--user U]: the drop-in, to standard output. */
static int
print_sudoers(const struct ctl_args *a)
{
	char *text;

	if (a->npos > 0)
		return ctl_usage("node add: --print-sudoers takes no HOST");
	if ((text = prov_sudoers(a->user)) == NULL)
		return ctl_usage("node add: --user: \"%s\" is not an account name", a->user);
	fputs(text, stdout);
	free(text);
	return ferror(stdout) ? CTL_EXIT_FAIL : CTL_EXIT_OK;
}

int
ctl_node_add(struct ctl_client *cl, const struct ctl_args *a)
{
	struct prov_api_request req;
	struct ctl_reply r;
	char err[512], cwd[1024], *body;
	int rc;

	if (a->print_sudoers)
		return print_sudoers(a);
	if (a->npos == 0)
		return ctl_usage("node add: HOST is missing");
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		snprintf(cwd, sizeof(cwd), "/");
	if (ctl_prov_request(a, cwd, &req, err, sizeof(err)) != 0)
		return ctl_usage("%s", err);
	if ((body = prov_json_request(&req)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", "/v1/provisions", body, "node add", &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = follow(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}

int
ctl_node_deprovision(struct ctl_client *cl, const struct ctl_args *a)
{
	struct prov_api_deprov d = { a->network, a->dry_run };
	struct ctl_reply r;
	char path[256], *body;
	int rc;

	if ((rc = ctl_name_check("node deprovision", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "/deprovision") != 0)
		return ctl_fail("node name too long");
	if ((body = prov_json_deprov(&d)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, "node deprovision", &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = follow(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}
