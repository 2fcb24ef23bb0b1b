/*
 * tbctl node ssh, node trust, credentials set, and the rollout commands
 * (start, status, pause, resume, abort, retry).
 */
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "rollout_api.h"

/* POST body to path; print the reply as JSON (--json) or done. */
static int
post(struct ctl_client *cl, const struct ctl_args *a, const char *path, char *body,
    const char *what, const char *done)
{
	struct ctl_reply r;
	int rc;

	if (body == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, what, &r);
	memset(body, 0, strlen(body));   /* it may hold a password */
	free(body);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK && done != NULL)
		printf("%s\n", done);
	ctl_reply_free(&r);
	return rc;
}

int
ctl_node_ssh(struct ctl_client *cl, const struct ctl_args *a)
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
	return post(cl, a, path, ro_json_ssh_request(&s), "node ssh", done);
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

int
ctl_node_trust(struct ctl_client *cl, const struct ctl_args *a)
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
	return post(cl, a, path, ro_json_fingerprint(a->fingerprint), "node trust", done);
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

int
ctl_credentials_set(struct ctl_client *cl, const struct ctl_args *a)
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
	rc = post(cl, a, "/v1/credentials", body, "credentials set", done);
	return rc;
}

int
ctl_rollout_start(struct ctl_client *cl, const struct ctl_args *a)
{
	static const char usage[] = "(usage: tbctl rollout start --cluster C --target VERSION "
	    "--mode rolling|lockstep ...)";
	struct ro_campaign *c = calloc(1, sizeof(*c));
	struct ctl_reply r;
	char err[256];
	long mu = 1;
	int rc;

	if (c == NULL)
		return ctl_fail("out of memory");
	rc = CTL_EXIT_USAGE;
	if (a->cluster == NULL || a->target == NULL || a->mode == NULL)
		ctl_errx("rollout start: --cluster, --target and --mode are required %s", usage);
	else if (ctl_name_check("rollout start", "cluster", a->cluster) != CTL_EXIT_OK)
		;
	else if (ro_mode_parse(a->mode, &c->mode) == -1)
		ctl_errx("rollout start: --mode \"%s\" is not rolling or lockstep", a->mode);
	else if (a->max_unavailable != NULL && ctl_parse_count(a->max_unavailable, 1,
	    RO_NODES_MAX, &mu) == -1)
		ctl_errx("rollout start: --max-unavailable \"%s\" is not a number from 1 to %d",
		    a->max_unavailable, RO_NODES_MAX);
	else if (a->window != NULL && ro_window_parse(a->window, &c->window_start,
	    &c->window_end) == -1)
		ctl_errx("rollout start: --window \"%s\" is not HH:MM-HH:MM (UTC)", a->window);
	else if (strlen(a->target) > RO_TARGET_MAX || (a->label != NULL &&
	    strlen(a->label) > RO_LABEL_MAX))
		ctl_errx("rollout start: --target or --label is too long");
	else
		rc = CTL_EXIT_OK;
	if (rc != CTL_EXIT_OK) {
		free(c);
		return rc;
	}
	if (a->window == NULL)
		c->window_start = c->window_end = -1;
	snprintf(c->cluster, sizeof(c->cluster), "%s", a->cluster);
	snprintf(c->target, sizeof(c->target), "%s", a->target);
	snprintf(c->label, sizeof(c->label), "%s", a->label != NULL ? a->label : "");
	c->max_unavailable = (int)mu;
	c->dry_run = a->dry_run;
	char *body = ro_json_request(c);
	rc = body == NULL ? ctl_fail("out of memory") :
	    ctl_call(cl, "POST", "/v1/rollouts", body, "rollout start", &r);
	free(body);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK && ro_json_decode_campaign(r.body, r.len, c, err,
	    sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the rollout: %s", err);
	else if (rc == CTL_EXIT_OK)
		rc = ctl_rollout_print(stdout, c, ctl_now()) == 0 ? CTL_EXIT_OK :
		    ctl_fail("out of memory");
	if (body != NULL)
		ctl_reply_free(&r);
	free(c);
	return rc;
}

/* GET every campaign (newest first). */
static int
get_all(struct ctl_client *cl, struct ro_campaign **out, int *n, struct ctl_reply *r)
{
	char err[256];
	int rc = ctl_call(cl, "GET", "/v1/rollouts", NULL, "rollout status", r);

	*out = NULL;
	*n = 0;
	if (rc == CTL_EXIT_OK && ro_json_decode_campaigns(r->body, r->len, out, n, err,
	    sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the rollouts: %s", err);
	return rc;
}

int
ctl_rollout_status(struct ctl_client *cl, const struct ctl_args *a)
{
	struct ro_campaign *all = NULL, *one = NULL;
	struct ctl_reply r;
	char path[64], err[256];
	long id = 0;
	int n = 0, rc;

	if (a->npos == 1 && ctl_parse_count(a->pos[0], 1, 999999999999L, &id) == -1)
		return ctl_usage("rollout status: \"%s\" is not a rollout id", a->pos[0]);
	if (id == 0) {
		rc = get_all(cl, &all, &n, &r);
		if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
			rc = ctl_json_print(r.body, r.len);
		else if (rc == CTL_EXIT_OK && ctl_rollouts_print(stdout, all, n, ctl_now()) == -1)
			rc = ctl_fail("out of memory");
		free(all);
		ctl_reply_free(&r);
		return rc;
	}
	snprintf(path, sizeof(path), "/v1/rollouts/%ld", id);
	rc = ctl_call(cl, "GET", path, NULL, "rollout status", &r);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK && ((one = malloc(sizeof(*one))) == NULL ||
	    ro_json_decode_campaign(r.body, r.len, one, err, sizeof(err)) == -1))
		rc = ctl_fail("cannot decode the rollout: %s", one ? err : "out of memory");
	else if (rc == CTL_EXIT_OK)
		ctl_rollout_print(stdout, one, ctl_now());
	free(one);
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

static int
command(struct ctl_client *cl, const struct ctl_args *a, const char *cmd, const char *action,
    const char *node, const char *id_arg)
{
	char path[96], done[160];
	long id;
	int rc;

	if ((rc = pick(cl, cmd, id_arg, node, &id)) != CTL_EXIT_OK)
		return rc;
	snprintf(path, sizeof(path), "/v1/rollouts/%ld/%s", id, action);
	snprintf(done, sizeof(done), "rollout %ld: %s%s%s", id, action, node ? " " : "",
	    node ? node : "");
	return post(cl, a, path, node != NULL ? ro_json_node_request(node) : strdup("{}"), cmd,
	    done);
}

int
ctl_rollout_pause(struct ctl_client *cl, const struct ctl_args *a)
{
	return command(cl, a, "rollout pause", "pause", NULL, a->npos ? a->pos[0] : NULL);
}

int
ctl_rollout_resume(struct ctl_client *cl, const struct ctl_args *a)
{
	return command(cl, a, "rollout resume", "resume", NULL, a->npos ? a->pos[0] : NULL);
}

int
ctl_rollout_abort(struct ctl_client *cl, const struct ctl_args *a)
{
	return command(cl, a, "rollout abort", "abort", NULL, a->npos ? a->pos[0] : NULL);
}

int
ctl_rollout_retry(struct ctl_client *cl, const struct ctl_args *a)
{
	int rc = ctl_name_check("rollout retry", "node", a->pos[0]);

	if (rc != CTL_EXIT_OK)
		return rc;
	return command(cl, a, "rollout retry", "retry", a->pos[0], a->npos > 1 ? a->pos[1] : NULL);
}

/* ---- output ---- */

int
ctl_rollout_print(FILE *f, const struct ro_campaign *c, double now)
{
	static const char *const head[] = { "NODE", "STEP", "SINCE", "LAST OUTPUT" };
	static const char *const dhead[] = { "NODE", "STEP", "WOULD RUN" };
	char win[32], age[CTL_FMT_MAX];
	struct ctl_table *t = ctl_table_new(c->dry_run ? 3 : 4, c->dry_run ? dhead : head);

	if (t == NULL)
		return -1;
	ro_window_str(c->window_start, c->window_end, win, sizeof(win));
	if (c->dry_run)
		fprintf(f, "Dry run: nothing is changed.\n");
	else
		ctl_kv(f, 0, "Rollout", "%" PRId64 " (%s)", c->id, ro_state_str(c->state));
	ctl_kv(f, 0, "Cluster", "%s", c->cluster);
	ctl_kv(f, 0, "Target", "%s%s%s", c->target, c->label[0] ? ", label " : "", c->label);
	ctl_kv(f, 0, "Mode", "%s, at most %d out of service%s%s", ro_mode_str(c->mode),
	    c->mode == RO_LOCKSTEP ? c->n : c->max_unavailable, win[0] ? ", window " : "", win);
	if (c->reason[0] != '\0')
		ctl_kv(f, 0, "Reason", "%s", c->reason);
	for (int i = 0; i < c->n; i++) {
		const struct ro_node *n = &c->nodes[i];
		char step[64];
		snprintf(step, sizeof(step), "%s%s%s", ro_step_str(n->step),
		    n->step == RO_FAILED ? " at " : "", n->step == RO_FAILED ?
		    ro_step_str(n->failed_step) : "");
		const char *last = n->reason[0] && n->step == RO_FAILED ? n->reason : n->last_line;
		if (c->dry_run) {
			for (int k = 0; k < (n->ncmds ? n->ncmds : 1); k++) {
				const char *cells[] = { k ? "" : n->node, k ? "" : step,
					n->ncmds ? n->cmds[k] : n->reason };
				ctl_table_add(t, cells);
			}
			continue;
		}
		const char *cells[] = { n->node, step, ctl_fmt_age(n->since, now, age, sizeof(age)),
			last };
		ctl_table_add(t, cells);
	}
	fputc('\n', f);
	return ctl_table_end(t, f, 0);
}

int
ctl_rollouts_print(FILE *f, const struct ro_campaign *c, int n, double now)
{
	static const char *const head[] = { "ID", "CLUSTER", "TARGET", "MODE", "STATE", "NODES",
		"UPDATED", "REASON" };
	struct ctl_table *t = ctl_table_new(8, head);
	char id[32], nodes[32], age[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		int done = 0;
		for (int k = 0; k < c[i].n; k++)
			done += c[i].nodes[k].step == RO_DONE || c[i].nodes[k].step == RO_SKIPPED;
		snprintf(id, sizeof(id), "%" PRId64, c[i].id);
		snprintf(nodes, sizeof(nodes), "%d/%d", done, c[i].n);
		const char *cells[] = { id, c[i].cluster, c[i].target, ro_mode_str(c[i].mode),
			ro_state_str(c[i].state), nodes,
			ctl_fmt_age(c[i].updated_at, now, age, sizeof(age)), c[i].reason };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}
