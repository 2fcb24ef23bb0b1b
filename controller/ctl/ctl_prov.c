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
#include "prov_api.h"
#include "prov_sudoers.h"

#define POLL_SECONDS 1
#define POLL_MAX 1800          /* 30 minutes of polling at most */

static ctl_handler node_add, node_deprovision;

const struct ctl_cmd ctl_cmd_node_add = {
	.name = "node add",
	.usage = "HOST [OPTIONS] | --print-sudoers [--user U]",
	.help =
	    "Provision a Mac over SSH and wait until it is ready.\n"
	    "The controller connects to HOST with its SSH key, pins the host key,\n"
	    "runs the preflight (macOS 26.2 or later, Apple silicon, Thunderbolt 5,\n"
	    "free disk, rdma_ctl status, Thunderbolt Bridge), then each step, checked\n"
	    "before and after: Thunderbolt Bridge off, no system sleep, restart after\n"
	    "a power failure, the GPU wired limit at every boot, a static IPv4 per\n"
	    "cabled Thunderbolt port (one /30 per cable), tbagentd with a one-time\n"
	    "enrolment token (pre-approved: no node accept needed) and its\n"
	    "LaunchDaemon; then waits for the first report.  The node's SSH address\n"
	    "and pinned key are kept for OS updates.  The controller needs --ssh-key.\n"
	    "A second run changes nothing; a failed step stops the run and what it\n"
	    "changed is undone where it can be.  With RDMA disabled it ends with the\n"
	    "manual step: boot into Recovery, Terminal, rdma_ctl enable, reboot.\n"
	    "Root SSH login is off on a Mac: log in as an admin (--user) whose\n"
	    "sudo runs, without a password, what tbmesh runs as root; the preflight\n"
	    "checks sudo -n.  --print-sudoers prints that sudoers drop-in (for\n"
	    "/etc/sudoers.d/tbmesh on each Mac) and contacts nobody.\n"
	    "Options:\n"
	    "  --user U          the SSH user (default: the controller's)\n"
	    "  --key FILE        the SSH private key, on the controller's host\n"
	    "  --port N          the SSH port (default 22)\n"
	    "  --cluster C       the cluster the node joins (its cabling plan gives\n"
	    "                    the port addresses)\n"
	    "  --name NODE       the node's name (default: its host name)\n"
	    "  --fingerprint SHA256:...  the host key to expect (ssh-keygen -l)\n"
	    "  --accept-new      pin the host key offered (shown in the output)\n"
	    "  --agent-binary FILE  the macOS tbagentd to install, on the controller's\n"
	    "                    host (default: the controller's configured copy)\n"
	    "  --wired-limit-mb N  GPU wired limit, set at every boot (0: default)\n"
	    "  --ip-base A.B.0.0 the /16 of the cables' /30s: cable k is A.B.k.0/30\n"
	    "                    (default 192.168.0.0); refused when a cable's /24 holds\n"
	    "                    a LAN address the cluster's nodes report\n"
	    "  --dry-run         print every command, change nothing\n"
	    "  --print-sudoers   print the sudoers drop-in for --user (default admin)\n",
	.opts = CTL_OPT(USER) | CTL_OPT(KEY) | CTL_OPT(PORT) | CTL_OPT(CLUSTER) |
	    CTL_OPT(FINGERPRINT) | CTL_OPT(ACCEPT_NEW) | CTL_OPT(PRINT_SUDOERS) |
	    CTL_OPT(AGENT_BINARY) | CTL_OPT(WIRED_LIMIT_MB) | CTL_OPT(NAME) |
	    CTL_OPT(IP_BASE) | CTL_OPT(DRY_RUN),
	.min_pos = 0, .max_pos = 1,
	.handler = node_add,
};

const struct ctl_cmd ctl_cmd_node_deprovision = {
	.name = "node deprovision",
	.usage = "NODE [--network] [--dry-run]",
	.help =
	    "Take tbmesh off a provisioned Mac over SSH.\n"
	    "Stops and removes tbagentd, its LaunchDaemon, config and state, and the\n"
	    "wired-limit LaunchDaemon.  Network settings stay unless --network.\n"
	    "  --network         also remove the Thunderbolt port services (their\n"
	    "                    network location) and turn the Thunderbolt Bridge back on\n"
	    "  --dry-run         print every command, change nothing\n",
	.opts = CTL_OPT(NETWORK) | CTL_OPT(DRY_RUN),
	.min_pos = 1, .max_pos = 1,
	.handler = node_deprovision,
};

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

/* Follow run reply r (a status) until it ends; out shows it as it goes. */
static int
follow(struct ctl_client *cl, const struct ctl_output *out, struct ctl_reply *r)
{
	struct prov_api_status *s = calloc(1, sizeof(*s));
	int lines = 0, steps = 0, rc = CTL_EXIT_FAIL;
	char err[256], path[96];

	if (s == NULL)
		return ctl_fail("out of memory");
	for (int polls = 0; ; polls++) {
		if (prov_json_decode_status(r->body, r->len, s, err, sizeof(err)) != 0) {
			ctl_errx("the controller's reply: %s", err);
			break;
		}
		out->prov(r, s, &lines, &steps);
		fflush(stdout);
		if (ctl_prov_ended(s->state)) {
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

static int
node_add(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
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
		rc = follow(cl, out, &r);
	ctl_reply_free(&r);
	return rc;
}

static int
node_deprovision(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
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
		rc = follow(cl, out, &r);
	ctl_reply_free(&r);
	return rc;
}
