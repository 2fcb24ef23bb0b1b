/*
 * tbctl node ssh, node trust, credentials set, and the rollout commands
 * (start, status, pause, resume, abort, retry).
 */
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "ctl_http.h"
#include "rollout_api.h"

static ctl_handler node_ssh, node_trust, credentials_set, rollout_start, rollout_status,
    rollout_pause, rollout_resume, rollout_abort, rollout_retry;

const struct ctl_cmd ctl_cmd_node_ssh = {
	.name = "node ssh",
	.usage = "NODE --host HOST [--port N] --user USER",
	.help =
	    "Tell the controller how to reach a node over SSH (OS updates).\n"
	    "The controller logs in with its --ssh-key; the node's host key must\n"
	    "also be pinned with node trust.\n"
	    "  --host HOST       address or host name\n"
	    "  --port N          SSH port (default 22)\n"
	    "  --user USER       the account to log in as\n",
	.opts = CTL_OPT(HOST) | CTL_OPT(PORT) | CTL_OPT(USER),
	.min_pos = 1, .max_pos = 1,
	.handler = node_ssh,
};

const struct ctl_cmd ctl_cmd_node_trust = {
	.name = "node trust",
	.usage = "NODE --fingerprint SHA256:...",
	.help =
	    "Pin a node's SSH host key.\n"
	    "The controller refuses a node whose key is unknown or has changed; the\n"
	    "refusal shows both fingerprints.  Check the key on the node\n"
	    "(ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub), then pin it.\n"
	    "  --fingerprint FP  the key's SHA256 fingerprint, as ssh-keygen -l prints it\n",
	.opts = CTL_OPT(FINGERPRINT),
	.min_pos = 1, .max_pos = 1,
	.handler = node_trust,
};

const struct ctl_cmd ctl_cmd_credentials_set = {
	.name = "credentials set",
	.usage = "(NODE | --cluster C) --user U --password-file F",
	.help =
	    "Store the account that OS updates authenticate as.\n"
	    "softwareupdate --user U --stdinpass gets the password on its standard\n"
	    "input.  The controller keeps it outside the inventory, in a file only\n"
	    "its user can read; it is never shown again, logged or put in an event.\n"
	    "A node's own credentials win over its cluster's.\n"
	    "  --cluster C       for every node of cluster C\n"
	    "  --user U          the volume owner's account on the Mac\n"
	    "  --password-file F its password: the first line of F\n",
	.opts = CTL_OPT(CLUSTER) | CTL_OPT(USER) | CTL_OPT(PASSWORD_FILE),
	.min_pos = 0, .max_pos = 1,
	.handler = credentials_set,
};

const struct ctl_cmd ctl_cmd_rollout_start = {
	.name = "rollout start",
	.usage = "--cluster C --target VERSION --mode rolling|lockstep [options]",
	.help =
	    "Update macOS on a cluster's nodes.\n"
	    "Per node: preflight (SSH with the pinned key, the update listed, free\n"
	    "disk, credentials, a healthy node), cordon, drain, download, install\n"
	    "with restart, wait for a report with a new boot time, verify (build,\n"
	    "RDMA, links, GPU wired limit), uncordon (only if the rollout cordoned\n"
	    "it).  Nodes at the target are skipped.  A failed step halts the\n"
	    "rollout and leaves the node cordoned with the reason.\n"
	    "Drain stops the node's placements (lockstep: every placement of the\n"
	    "cluster, before any node installs): degraded, with an event, memory\n"
	    "kept.  The rollout's end (or abort) restores each to active when all\n"
	    "its nodes are ready, or leaves it degraded with the reason.  While\n"
	    "builds differ, tbctl place gives no RDMA across builds.\n"
	    "  --cluster C             the cluster\n"
	    "  --target VERSION        macOS version (26.3) or build (25D125)\n"
	    "  --label L               the softwareupdate label (default: the update\n"
	    "                          to VERSION that softwareupdate --list shows)\n"
	    "  --mode rolling|lockstep rolling: at most --max-unavailable nodes out of\n"
	    "                          service at once; lockstep: all nodes together\n"
	    "  --max-unavailable N     rolling: default 1\n"
	    "  --window HH:MM-HH:MM    start nodes only in this daily window (UTC)\n"
	    "  --dry-run               print every step per node with the commands it\n"
	    "                          would run; change nothing\n",
	.opts = CTL_OPT(CLUSTER) | CTL_OPT(TARGET) | CTL_OPT(LABEL) | CTL_OPT(MODE) |
	    CTL_OPT(MAX_UNAVAILABLE) | CTL_OPT(WINDOW) | CTL_OPT(DRY_RUN),
	.min_pos = 0, .max_pos = 0,
	.handler = rollout_start,
};

const struct ctl_cmd ctl_cmd_rollout_status = {
	.name = "rollout status",
	.usage = "[ID]",
	.help =
	    "Show the rollouts, or one with its nodes.\n"
	    "Per node: its step, since when, and the last line its commands printed\n"
	    "(or why it failed).\n",
	.min_pos = 0, .max_pos = 1,
	.handler = rollout_status,
};

const struct ctl_cmd ctl_cmd_rollout_pause = {
	.name = "rollout pause",
	.usage = "[ID]",
	.help =
	    "Pause a rollout after the step under way (default: the open one).\n",
	.min_pos = 0, .max_pos = 1,
	.handler = rollout_pause,
};

const struct ctl_cmd ctl_cmd_rollout_resume = {
	.name = "rollout resume",
	.usage = "[ID]",
	.help =
	    "Resume a paused rollout (default: the open one).\n",
	.min_pos = 0, .max_pos = 1,
	.handler = rollout_resume,
};

const struct ctl_cmd ctl_cmd_rollout_abort = {
	.name = "rollout abort",
	.usage = "[ID]",
	.help =
	    "Stop a rollout for good (default: the open one).\n"
	    "Nodes are left as they are: a node it cordoned stays cordoned.\n",
	.min_pos = 0, .max_pos = 1,
	.handler = rollout_abort,
};

const struct ctl_cmd ctl_cmd_rollout_retry = {
	.name = "rollout retry",
	.usage = "NODE [ID]",
	.help =
	    "Run a halted rollout's failed step on NODE again, and go on.\n",
	.min_pos = 1, .max_pos = 2,
	.handler = rollout_retry,
};

/* POST body (freed, wiped) to path; done is the line for people. */
static int
post(struct ctl_client *cl, const struct ctl_output *out, const char *path, char *body,
    const char *what, const char *done)
{
	struct ctl_reply r;
	int rc;

	if (body == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, what, &r);
	memset(body, 0, strlen(body));   /* it may hold a password */
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = out->done(&r, "%s", done);
	ctl_reply_free(&r);
	return rc;
}

static int
node_ssh(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], done[512];
	struct ro_ssh s = { .port = 22 };
	long port = 22;
	int rc;

	if ((rc = ctl_name_check("node ssh", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (a->host == NULL || a->user == NULL)
		return ctl_usage("node ssh: --host and --user are required "
		    "(usage: tbctl node ssh NODE --host HOST [--port N] --user USER)");
	if (a->port != NULL && ctl_parse_count(a->port, 1, 65535, &port) == -1)
		return ctl_usage("node ssh: --port \"%s\" is not a port number", a->port);
	snprintf(s.host, sizeof(s.host), "%s", a->host);
	snprintf(s.user, sizeof(s.user), "%s", a->user);
	s.port = (int)port;
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "/ssh") == -1)
		return ctl_fail("node ssh: name too long");
	snprintf(done, sizeof(done), "%s: SSH to %s@%s port %ld", a->pos[0], a->user, a->host,
	    port);
	return post(cl, out, path, ro_json_ssh_request(&s), "node ssh", done);
}

/* "SHA256:" and 43 base64 characters. */
static int
fp_valid(const char *s)
{
	if (strncmp(s, "SHA256:", 7) != 0 || strlen(s + 7) != 43)
		return 0;
	return strspn(s + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
	    == 43;
}

static int
node_trust(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], done[256];
	int rc;

	if ((rc = ctl_name_check("node trust", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (a->fingerprint == NULL)
		return ctl_usage("node trust: --fingerprint is required "
		    "(usage: tbctl node trust NODE --fingerprint SHA256:...)");
	if (!fp_valid(a->fingerprint))
		return ctl_usage("node trust: \"%s\" is not a SHA256:<base64> fingerprint "
		    "(as ssh-keygen -l prints it)", a->fingerprint);
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "/trust") == -1)
		return ctl_fail("node trust: name too long");
	snprintf(done, sizeof(done), "%s: host key %s pinned", a->pos[0], a->fingerprint);
	return post(cl, out, path, ro_json_fingerprint(a->fingerprint), "node trust", done);
}

/* The first line of path into pw; CTL_EXIT_OK or a failure printed. */
static int
read_password(const char *path, char *pw, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd == -1)
		return ctl_fail("credentials set: %s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && (st.st_mode & 077) != 0)
		ctl_errx("warning: password file %s is readable by group or others (chmod 600 %s)",
		    path, path);
	n = read(fd, pw, size - 1);
	close(fd);
	if (n < 0)
		return ctl_fail("credentials set: %s: %s", path, strerror(errno));
	pw[n] = '\0';
	pw[strcspn(pw, "\r\n")] = '\0';
	if (pw[0] == '\0')
		return ctl_fail("credentials set: %s: the password is empty", path);
	if ((size_t)n == size - 1)
		return ctl_fail("credentials set: %s: longer than %zu bytes", path, size - 2);
	return CTL_EXIT_OK;
}

static int
credentials_set(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	static const char usage[] = "(usage: tbctl credentials set (NODE | --cluster C) "
	    "--user U --password-file F)";
	struct ro_credentials cr;
	char done[256];
	int rc;

	if ((a->npos == 1) == (a->cluster != NULL))
		return ctl_usage("credentials set: give a node or --cluster %s", usage);
	if (a->user == NULL || a->password_file == NULL)
		return ctl_usage("credentials set: --user and --password-file are required %s",
		    usage);
	if ((rc = ctl_name_check("credentials set", a->npos ? "node" : "cluster",
	    a->npos ? a->pos[0] : a->cluster)) != CTL_EXIT_OK ||
	    (rc = ctl_name_check("credentials set", "user", a->user)) != CTL_EXIT_OK)
		return rc;
	memset(&cr, 0, sizeof(cr));
	snprintf(a->npos ? cr.node : cr.cluster, sizeof(api_name), "%s",
	    a->npos ? a->pos[0] : a->cluster);
	snprintf(cr.user, sizeof(cr.user), "%s", a->user);
	if ((rc = read_password(a->password_file, cr.password, sizeof(cr.password))) !=
	    CTL_EXIT_OK)
		return rc;
	snprintf(done, sizeof(done), "credentials of %s %s stored (user %s)",
	    a->npos ? "node" : "cluster", a->npos ? a->pos[0] : a->cluster, a->user);
	char *body = ro_json_credentials(&cr);
	memset(cr.password, 0, sizeof(cr.password));
	rc = post(cl, out, "/v1/credentials", body, "credentials set", done);
	return rc;
}

/* rollout start's options into c; CTL_EXIT_OK, or a usage error printed. */
static int
start_request(const struct ctl_args *a, struct ro_campaign *c)
{
	static const char usage[] = "(usage: tbctl rollout start --cluster C --target VERSION "
	    "--mode rolling|lockstep ...)";
	long mu = 1;

	if (a->cluster == NULL || a->target == NULL || a->mode == NULL)
		return ctl_usage("rollout start: --cluster, --target and --mode are required %s",
		    usage);
	if (ctl_name_check("rollout start", "cluster", a->cluster) != CTL_EXIT_OK)
		return CTL_EXIT_USAGE;
	if (ro_mode_parse(a->mode, &c->mode) == -1)
		return ctl_usage("rollout start: --mode \"%s\" is not rolling or lockstep", a->mode);
	if (a->max_unavailable != NULL && ctl_parse_count(a->max_unavailable, 1,
	    RO_NODES_MAX, &mu) == -1)
		return ctl_usage("rollout start: --max-unavailable \"%s\" is not a number from 1 "
		    "to %d", a->max_unavailable, RO_NODES_MAX);
	if (a->window != NULL && ro_window_parse(a->window, &c->window_start,
	    &c->window_end) == -1)
		return ctl_usage("rollout start: --window \"%s\" is not HH:MM-HH:MM (UTC)",
		    a->window);
	if (strlen(a->target) > RO_TARGET_MAX || (a->label != NULL &&
	    strlen(a->label) > RO_LABEL_MAX))
		return ctl_usage("rollout start: --target or --label is too long");
	if (a->window == NULL)
		c->window_start = c->window_end = -1;
	snprintf(c->cluster, sizeof(c->cluster), "%s", a->cluster);
	snprintf(c->target, sizeof(c->target), "%s", a->target);
	snprintf(c->label, sizeof(c->label), "%s", a->label != NULL ? a->label : "");
	c->max_unavailable = (int)mu;
	c->dry_run = a->dry_run;
	return CTL_EXIT_OK;
}

static int
rollout_start(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct ro_campaign *c = calloc(1, sizeof(*c));
	struct ctl_reply r;
	char *body;
	int rc;

	if (c == NULL)
		return ctl_fail("out of memory");
	if ((rc = start_request(a, c)) != CTL_EXIT_OK) {
		free(c);
		return rc;
	}
	body = ro_json_request(c);
	free(c);
	if (body == NULL)
		return ctl_fail("out of memory");
	if ((rc = ctl_call(cl, "POST", "/v1/rollouts", body, "rollout start", &r)) ==
	    CTL_EXIT_OK)
		rc = out->rollout(&r, a);
	free(body);
	ctl_reply_free(&r);
	return rc;
}

/* GET every campaign (newest first). */
static int
get_all(struct ctl_client *cl, struct ro_campaign **all, int *n, struct ctl_reply *r)
{
	char err[256];
	int rc = ctl_call(cl, "GET", "/v1/rollouts", NULL, "rollout status", r);

	*all = NULL;
	*n = 0;
	if (rc == CTL_EXIT_OK && ro_json_decode_campaigns(r->body, r->len, all, n, err,
	    sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the rollouts: %s", err);
	return rc;
}

static int
rollout_status(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct ro_campaign *all = NULL;
	struct ctl_reply r;
	char path[64];
	long id = 0;
	int n = 0, rc;

	if (a->npos == 1 && ctl_parse_count(a->pos[0], 1, 999999999999L, &id) == -1)
		return ctl_usage("rollout status: \"%s\" is not a rollout id", a->pos[0]);
	if (id == 0) {
		if ((rc = get_all(cl, &all, &n, &r)) == CTL_EXIT_OK)
			rc = out->rollouts(&r, all, n);
		free(all);
		ctl_reply_free(&r);
		return rc;
	}
	snprintf(path, sizeof(path), "/v1/rollouts/%ld", id);
	if ((rc = ctl_call(cl, "GET", path, NULL, "rollout status", &r)) == CTL_EXIT_OK)
		rc = out->rollout(&r, a);
	ctl_reply_free(&r);
	return rc;
}

/*
 * The campaign a command is about: ID given, or the newest open one
 * (with node: the one where node failed).
 */
static int
pick(struct ctl_client *cl, const char *cmd, const char *given, const char *node, long *id)
{
	struct ro_campaign *all = NULL;
	struct ctl_reply r;
	int n = 0, rc;

	if (given != NULL) {
		if (ctl_parse_count(given, 1, 999999999999L, id) == -1)
			return ctl_usage("%s: \"%s\" is not a rollout id", cmd, given);
		return CTL_EXIT_OK;
	}
	*id = 0;
	rc = get_all(cl, &all, &n, &r);
	for (int i = 0; rc == CTL_EXIT_OK && i < n && *id == 0; i++) {
		if (all[i].state == RO_ABORTED || all[i].state == RO_FINISHED)
			continue;
		for (int k = 0; node != NULL && k < all[i].n; k++)
			if (strcmp(all[i].nodes[k].node, node) == 0 && all[i].nodes[k].step == RO_FAILED)
				*id = all[i].id;
		if (node == NULL)
			*id = all[i].id;
	}
	free(all);
	ctl_reply_free(&r);
	if (rc == CTL_EXIT_OK && *id == 0)
		rc = node != NULL ? ctl_fail("%s: %s has not failed in any open rollout", cmd, node)
		    : ctl_fail("%s: no open rollout", cmd);
	return rc;
}

/* pause, resume, abort, retry: POST /v1/rollouts/ID/<action>. */
static int
command(struct ctl_client *cl, const struct ctl_output *out, const char *cmd,
    const char *action, const char *node, const char *id_arg)
{
	char path[96], done[160];
	long id;
	int rc;

	if ((rc = pick(cl, cmd, id_arg, node, &id)) != CTL_EXIT_OK)
		return rc;
	snprintf(path, sizeof(path), "/v1/rollouts/%ld/%s", id, action);
	snprintf(done, sizeof(done), "rollout %ld: %s%s%s", id, action, node ? " " : "",
	    node ? node : "");
	return post(cl, out, path, node != NULL ? ro_json_node_request(node) : strdup("{}"), cmd,
	    done);
}

static int
rollout_pause(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return command(cl, out, "rollout pause", "pause", NULL, a->npos ? a->pos[0] : NULL);
}

static int
rollout_resume(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return command(cl, out, "rollout resume", "resume", NULL, a->npos ? a->pos[0] : NULL);
}

static int
rollout_abort(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return command(cl, out, "rollout abort", "abort", NULL, a->npos ? a->pos[0] : NULL);
}

static int
rollout_retry(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	int rc = ctl_name_check("rollout retry", "node", a->pos[0]);

	if (rc != CTL_EXIT_OK)
		return rc;
	return command(cl, out, "rollout retry", "retry", a->pos[0],
	    a->npos > 1 ? a->pos[1] : NULL);
}
