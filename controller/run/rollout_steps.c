/*
 * The steps of an OS update on one node (see rollout_steps.h): preflight,
 * cordon, drain, download and install (rollout_install.c), wait, verify,
 * uncordon.  Each step that
 * changes something checks the node first, so that running it again after a
 * controller crash does no harm.
 */
#include "rollout_steps_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "credentials.h"
#include "ctrl.h"
#include "inventory.h"
#include "lifecycle.h"
#include "log.h"
#include "node_ssh.h"
#include "registry.h"
#include "report.h"
#include "rollout_probe.h"
#include "ssh.h"

void
ro_fail(struct ro_step_result *res, const char *fmt, ...)
{
	char buf[sizeof(res->reason)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);   /* fmt's arguments may be res->reason */
	va_end(ap);
	memcpy(res->reason, buf, sizeof(buf));
	res->outcome = RO_OUT_FAIL;
	snprintf(res->last_line, sizeof(res->last_line), "%s", res->reason);
}

void
ro_out_add(struct ro_step_result *res, const char *s)
{
	size_t n = strlen(s), room = sizeof(res->output) - 1 - res->output_len;

	if (n > room)
		n = room;
	memcpy(res->output + res->output_len, s, n);
	res->output_len += n;
	res->output[res->output_len] = '\0';
}

/* Replace every occurrence of secret in s with "********". */
static void
scrub(char *s, const char *secret)
{
	size_t n = strlen(secret);
	char *p;

	if (n == 0)
		return;
	while ((p = strstr(s, secret)) != NULL)
		memset(p, '*', n);
}

/* t (unix seconds) as "2026-11-26 19:50:01 UTC". */
void
ro_utc_str(double t, char *buf, size_t size)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (isnan(t) || gmtime_r(&s, &tm) == NULL || strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC",
	    &tm) == 0)
		snprintf(buf, size, "an unknown time");
}

/* ---- SSH ---- */

struct ssh_conn *
ro_connect_node(struct ctrl *c, const char *node, struct ro_step_result *res)
{
	char err[512];
	struct ssh_conn *conn = node_ssh_connect(c, node, err, sizeof(err));

	if (conn == NULL)
		ro_fail(res, "%s", err);
	return conn;
}

/*
 * What goes before a command that needs root on node: "" when its SSH user
 * is root (root may log in where an operator allows it), else "sudo -n ".
 * The SSH user's name into user (may be NULL).
 */
const char *
ro_node_su(struct ctrl *c, const char *node, char *user, size_t size)
{
	struct ro_ssh s;
	char err[256];
	int rc = node_ssh_get(c, node, 0, &s, err, sizeof(err));

	if (user != NULL)
		snprintf(user, size, "%s", rc == 0 ? s.user : "");
	return rc == 0 && strcmp(s.user, "root") == 0 ? "" : ROLLOUT_SUDO;
}

/*
 * Run cmd on the node; its output goes to res->output (the password
 * scrubbed).  0 and *status, or -1 when the session failed (res->reason).
 */
int
ro_run(struct ssh_conn *conn, const char *cmd, const char *in, double timeout,
    struct ro_step_result *res, int *status, char **out)
{
	struct ssh_result r;
	char err[512], line[RO_LINE_MAX + 1];
	int rc;

	ro_out_add(res, "$ ");
	ro_out_add(res, cmd);
	ro_out_add(res, "\n");
	rc = ssh_run(conn, cmd, in, in != NULL ? strlen(in) : 0, timeout, &r, err, sizeof(err));
	if (rc == 0 && in != NULL) {
		scrub(r.out, in);
		scrub(r.err, in);
	}
	if (rc == 0) {
		ro_out_add(res, r.out);
		ro_out_add(res, r.err);
		ssh_last_line(r.err[0] != '\0' && r.status != 0 ? r.err : r.out, line, sizeof(line));
		if (line[0] != '\0')
			snprintf(res->last_line, sizeof(res->last_line), "%s", line);
		*status = r.timed_out ? -2 : r.status;
		if (r.timed_out)
			snprintf(res->reason, sizeof(res->reason), "%s: timed out after %.0f s", cmd,
			    timeout);
		else if (r.status != 0)
			snprintf(res->reason, sizeof(res->reason), "%.120s: exit %d: %.120s", cmd, r.status,
			    line[0] ? line : "no output");
		if (out != NULL)
			*out = r.out, r.out = NULL;
	} else {
		snprintf(res->reason, sizeof(res->reason), "%.250s", err);
	}
	ssh_result_free(&r);
	return rc;
}

/* The value after "Key:" on a line of text, into buf. */
static void
field(const char *text, const char *key, char *buf, size_t size)
{
	const char *p = strstr(text, key);
	size_t n;

	buf[0] = '\0';
	if (p == NULL)
		return;
	p += strlen(key);
	p += strspn(p, " \t");
	n = strcspn(p, " \t\r\n");
	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
}

/* The node's version and build over SSH (sw_vers); 0, or -1 (res->reason). */
int
ro_remote_os(struct ctrl *c, struct ssh_conn *conn, struct ro_step_result *res, char *ver,
    char *build, size_t size)
{
	char *out = NULL;
	int st = -1;

	if (ro_run(conn, "sw_vers", NULL, c->ssh_command_timeout, res, &st, &out) == -1 ||
	    st != 0) {
		free(out);
		return -1;
	}
	field(out, "ProductVersion:", ver, size);
	field(out, "BuildVersion:", build, size);
	free(out);
	if (ver[0] == '\0' || build[0] == '\0') {
		snprintf(res->reason, sizeof(res->reason), "sw_vers printed no version and build");
		return -1;
	}
	return 0;
}

/* ---- inventory and registry ---- */

struct reg_get {
	struct ctrl *c;
	const char *node;
	struct reg_node *out;
};

/* store_fn: node as the registry has it, under the store's lock (where it changes). */
static int
reg_get(struct inv *inv, void *arg)
{
	struct reg_get *a = arg;

	(void)inv;
	return registry_get_node(a->c->reg, a->node, a->out);
}

int
ro_reg_node(struct ctrl *c, const char *node, struct reg_node *out)
{
	struct reg_get a = { c, node, out };

	return store_with(&c->store, reg_get, &a);
}

struct cred_user {
	const char *node, *cluster;
	char scope[128];          /* the scope found: node's, else its cluster's */
	char *user;               /* sizeof(api_name) */
};

/* store_fn: the user of node's update credentials, or of its cluster's. */
static int
cred_user(struct inv *inv, void *arg)
{
	struct cred_user *a = arg;
	int rc;

	snprintf(a->scope, sizeof(a->scope), "node:%s", a->node);
	rc = inv_cred_get(inv, a->scope, a->user, sizeof(api_name));
	if (rc == INV_NOTFOUND) {
		snprintf(a->scope, sizeof(a->scope), "cluster:%s", a->cluster);
		rc = inv_cred_get(inv, a->scope, a->user, sizeof(api_name));
	}
	return rc;
}

/* The password and user for node (node's scope, then its cluster's). */
int
ro_credentials(struct ctrl *c, const struct ro_campaign *camp, const char *node, char *user,
    char *pw, size_t pwsize, struct ro_step_result *res)
{
	struct cred_user a = { .node = node, .cluster = camp->cluster, .user = user };
	char err[512];

	if (store_with(&c->store, cred_user, &a) != 0) {
		ro_fail(res, "no update credentials for %s (tbctl credentials set %s --user U "
		    "--password-file F, or --cluster %s)", node, node, camp->cluster);
		return -1;
	}
	if (cred_load(c->state_dir, c->password_command, a.scope, user, pw, pwsize, err,
	    sizeof(err)) == -1) {
		ro_fail(res, "%s", err);
		return -1;
	}
	return 0;
}

/* ---- the steps ---- */

/*
 * Ready or cordoned, with a fresh healthy report: 0.  A node that is
 * unreachable or has no fresh healthy report yet (as after a controller
 * restart) is waited for until the boot timeout: 1 (res NOT_YET).  -1 when
 * it fails (res).
 */
static int
node_healthy(struct ctrl *c, const struct ro_node *rn, struct ro_step_result *res)
{
	const char *node = rn->node;
	struct reg_node n;
	double now = ctrl_now();
	int stale;

	if (ro_reg_node(c, node, &n) != 0) {
		ro_fail(res, "%s is not in the inventory", node);
		return -1;
	}
	stale = isnan(n.lc.last_report_at) || now - n.lc.last_report_at > c->unreachable_after ||
	    !n.lc.last_report_healthy;
	if ((n.lc.state == NODE_UNREACHABLE || stale) && now - rn->since <= c->boot_timeout) {
		res->outcome = RO_OUT_NOT_YET;
		return 1;
	}
	if (n.lc.state != NODE_READY && n.lc.state != NODE_CORDONED) {
		ro_fail(res, "%s is %s, not ready", node, api_node_state_str(n.lc.state));
		return -1;
	}
	if (stale) {
		ro_fail(res, "%s has no fresh healthy report", node);
		return -1;
	}
	return 0;
}

/*
 * The SSH user may run softwareupdate as root (sudo -n, unless it is root)
 * and the update's user is a volume owner: 0, or -1 with res failed and
 * what to do.
 */
static int
privileges_ok(struct ctrl *c, const char *node, const char *user, struct ssh_conn *conn,
    struct ro_step_result *res)
{
	char login[sizeof(api_name)], cmd[RO_CMD_MAX + 1], guid[64];
	const char *su = ro_node_su(c, node, login, sizeof(login));
	char *out = NULL;
	int st = -1, owner;

	if (su[0] != '\0' && (ro_run(conn, ROLLOUT_SUDO "true", NULL, c->ssh_command_timeout, res,
	    &st, NULL) == -1 || st != 0)) {
		ro_fail(res, "%.40s cannot run softwareupdate as root: sudo -n true: %.60s; install "
		    "what `tbctl node add --print-sudoers --user %.40s` prints as "
		    "/etc/sudoers.d/tbmesh", login, res->last_line, login);
		return -1;
	}
	if (!rollout_shell_word_ok(user)) {
		ro_fail(res, "the update's user cannot be passed safely");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "dscl . -read /Users/'%s' GeneratedUID", user);
	if (ro_run(conn, cmd, NULL, c->ssh_command_timeout, res, &st, &out) == -1 || st != 0 ||
	    rollout_dscl_guid(out, guid, sizeof(guid)) == -1) {
		free(out);
		ro_fail(res, "the update's user %.40s is not an account on %.60s (dscl: %.80s)", user,
		    node, res->last_line);
		return -1;
	}
	free(out);
	out = NULL;
	if (ro_run(conn, "diskutil apfs listcryptousers /", NULL, c->ssh_command_timeout, res, &st,
	    &out) == -1 || st != 0) {
		free(out);
		ro_fail(res, "cannot list the volume owners: %.150s", res->reason);
		return -1;
	}
	owner = rollout_volume_owner(out, guid);
	free(out);
	if (owner != 1) {
		ro_fail(res, "the update's user %.40s is not a volume owner of / (diskutil apfs "
		    "listcryptousers /): softwareupdate on Apple silicon needs a volume owner's "
		    "password; give one with tbctl credentials set", user);
		return -1;
	}
	return 0;
}

static void
preflight_checks(struct ctrl *c, struct ro_campaign *camp, int i, struct ssh_conn *conn,
    struct ro_step_result *res)
{
	const char *node = camp->nodes[i].node;
	char user[sizeof(api_name)], pw[CRED_PASSWORD_MAX], label[RO_LABEL_MAX + 1];
	char *out = NULL;
	int64_t size = -1, avail = -1;
	int st = -1;

	if (ro_credentials(c, camp, node, user, pw, sizeof(pw), res) == -1)
		return;
	cred_wipe(pw, sizeof(pw));
	if (privileges_ok(c, node, user, conn, res) == -1)
		return;
	if (ro_run(conn, "softwareupdate --list", NULL, c->install_timeout, res, &st, &out) == -1 ||
	    st != 0 || rollout_find_update(out, camp->target, camp->label, label, sizeof(label),
	    &size, res->reason, sizeof(res->reason)) == -1) {
		free(out);
		ro_fail(res, "%s", res->reason);
		return;
	}
	free(out);
	out = NULL;
	if (camp->label[0] == '\0') {
		snprintf(camp->label, sizeof(camp->label), "%s", label);
		res->label_found = 1;
	}
	if (ro_run(conn, "df -k /", NULL, c->ssh_command_timeout, res, &st, &out) == -1 || st != 0 ||
	    rollout_df_avail(out, &avail) == -1) {
		free(out);
		ro_fail(res, "cannot read the free disk space: %s", res->reason);
		return;
	}
	free(out);
	if (size > 0 && avail < size) {
		ro_fail(res, "free disk %.1f GiB is below the update's %.1f GiB", avail / 1048576.0,
		    size / 1048576.0);
		return;
	}
	res->outcome = RO_OUT_OK;
}

static void
step_preflight(struct ctrl *c, const struct rollout_adapters *ad, struct ro_campaign *camp,
    int i, struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	char ver[64], build[64];
	struct ssh_conn *conn;

	if (node_healthy(c, n, res) != 0 || (conn = ro_connect_node(c, n->node, res)) == NULL)
		return;
	if (ro_remote_os(c, conn, res, ver, build, sizeof(ver)) == -1) {
		ro_fail(res, "%s", res->reason);
	} else if (rollout_at_target(camp->target, ver, build)) {
		res->outcome = RO_OUT_AT_TARGET;
		snprintf(res->last_line, sizeof(res->last_line), "already at %s (%s)", ver, build);
	} else {
		preflight_checks(c, camp, i, conn, res);
	}
	ssh_close(conn);
	if (res->outcome == RO_OUT_OK) {
		struct report *r = ctrl_latest_report(c, n->node);
		char why[256];
		n->wired_before = r != NULL ? r->memory.gpu_wired_limit_bytes : REPORT_NULL_I64;
		n->links_before = r != NULL ? ad->links_pass(c, n->node, r, why, sizeof(why)) == 1 : -1;
		free(r);
	}
}

/*
 * Decide a lifecycle command on node as the campaign, and store it (the
 * store's lock held); node's view after it into *n, for the registry once
 * stored.  0 or -1 (err).
 */
static int
lifecycle_store(struct ctrl *c, const struct ro_campaign *camp, const char *node,
    enum lc_command cmd, const char *reason, struct reg_node *n, char *err, size_t errlen)
{
	char actor[64];
	struct lc_result lr;
	double now = ctrl_now();

	snprintf(actor, sizeof(actor), "rollout:%" PRId64, camp->id);
	if (registry_get_node(c->reg, node, n) == -1) {
		snprintf(err, errlen, "%s is not in the inventory", node);
		return -1;
	}
	if (lc_on_command(&n->lc, cmd, reason, now, c->unreachable_after, &lr, err, errlen) != 0)
		return -1;
	if (ctrl_apply_store(c, n, &lr, now, actor) != 0) {
		snprintf(err, errlen, "the inventory could not store it");
		return -1;
	}
	ctrl_lc_apply(&n->lc, &lr);
	return 0;
}

/* A lifecycle command of a step, outside a transaction. */
struct step_command {
	struct ctrl *c;
	const struct ro_campaign *camp;
	const char *node;
	const char *reason;
	char err[256];
};

/* Apply cmd, then tell the registry (each statement is committed already). */
static int
step_lifecycle(struct step_command *a, enum lc_command cmd)
{
	struct reg_node n;

	if (lifecycle_store(a->c, a->camp, a->node, cmd, a->reason, &n, a->err,
	    sizeof(a->err)) != 0)
		return -1;
	registry_set_lc(a->c->reg, n.name, &n.lc);
	return 0;
}

/* store_fn: cordon the node unless it is cordoned already. */
static int
cordon_unless_cordoned(struct inv *inv, void *arg)
{
	struct step_command *a = arg;
	struct reg_node rn;

	(void)inv;
	if (registry_get_node(a->c->reg, a->node, &rn) == -1) {
		snprintf(a->err, sizeof(a->err), "%s is not in the inventory", a->node);
		return -1;
	}
	return rn.lc.state == NODE_CORDONED ? 0 : step_lifecycle(a, LC_CORDON);
}

/* store_fn: uncordon the node if it is cordoned. */
static int
uncordon_if_cordoned(struct inv *inv, void *arg)
{
	struct step_command *a = arg;
	struct reg_node rn;

	(void)inv;
	if (registry_get_node(a->c->reg, a->node, &rn) == 0 && rn.lc.state == NODE_CORDONED)
		return step_lifecycle(a, LC_UNCORDON);
	return 0;
}

static void
step_cordon(struct ctrl *c, struct ro_campaign *camp, int i, struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	char reason[API_REASON_MAX + 1];
	struct step_command a = { c, camp, n->node, reason, "" };

	snprintf(reason, sizeof(reason), "rollout %" PRId64 ": updating to %s", camp->id,
	    camp->target);
	if (store_with(&c->store, cordon_unless_cordoned, &a) != 0) {
		ro_fail(res, "cannot cordon %s: %s", n->node, a.err);
		return;
	}
	n->cordoned_by_us = n->cordoned_before == 0;
	snprintf(res->last_line, sizeof(res->last_line), "%s", n->cordoned_before ?
	    "was cordoned already" : "cordoned");
	res->outcome = RO_OUT_OK;
}

static void
step_drain(struct ctrl *c, const struct rollout_adapters *ad, struct ro_campaign *camp, int i,
    struct ro_step_result *res)
{
	char what[256] = "", err[256] = "";

	if (ad->drain(c, camp, camp->nodes[i].node, what, sizeof(what), err, sizeof(err)) ==
	    -1) {
		ro_fail(res, "drain: %s", err);
		return;
	}
	snprintf(res->last_line, sizeof(res->last_line), "%s", what);
	ro_out_add(res, what);
	res->outcome = RO_OUT_OK;
}

static void
step_wait(struct ctrl *c, struct ro_campaign *camp, int i, struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	struct reg_node rn;
	double now = ctrl_now();

	if (ro_reg_node(c, n->node, &rn) == 0 && !isnan(rn.lc.boot_time) &&
	    !isnan(rn.lc.last_report_at) && rn.lc.last_report_at > n->since &&
	    (isnan(n->boot_before) || fabs(rn.lc.boot_time - n->boot_before) > 2.0)) {
		res->outcome = RO_OUT_OK;
		snprintf(res->last_line, sizeof(res->last_line), "back with boot time %.0f",
		    rn.lc.boot_time);
		return;
	}
	if (now - n->since > c->boot_timeout) {
		char when[32];
		ro_utc_str(n->install_at, when, sizeof(when));
		if (isnan(n->install_at))
			ro_fail(res, "did not come back: no report with a new boot time within %.0f s",
			    c->boot_timeout);
		else
			ro_fail(res, "did not come back: no report with a new boot time within %.0f s "
			    "of the install sent at %s (tbctl rollout retry %s sends it again unless "
			    "the Mac restarted meanwhile)", c->boot_timeout, when, n->node);
		return;
	}
	res->outcome = RO_OUT_NOT_YET;
}

static void
step_verify(struct ctrl *c, const struct rollout_adapters *ad, struct ro_campaign *camp,
    int i, struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	struct report *r = ctrl_latest_report(c, n->node);
	char why[256];

	if (r == NULL || r->rdma.state == RDMA_STATE_UNKNOWN || r->node.os_build[0] == '\0') {
		/* a report that could not read these yet: wait for the next one */
		if (ctrl_now() - n->since <= c->boot_timeout)
			res->outcome = RO_OUT_NOT_YET;
		else
			ro_fail(res, "no report from %s with its build and RDMA state within %.0f s",
			    n->node, c->boot_timeout);
	} else if (!rollout_at_target(camp->target, r->node.os_version, r->node.os_build))
		ro_fail(res, "came back on %s (%s), not %s", r->node.os_version, r->node.os_build,
		    camp->target);
	else if (r->rdma.state != RDMA_STATE_ENABLED)
		ro_fail(res, "RDMA is %s after the update (boot into Recovery, run rdma_ctl enable)",
		    report_rdma_state_str(r->rdma.state));
	else if (n->links_before != 0 && ad->links_pass(c, n->node, r, why, sizeof(why)) != 1)
		ro_fail(res, "links do not pass: %s", why);
	else if (n->wired_before != REPORT_NULL_I64 && n->wired_before > 0 &&
	    r->memory.gpu_wired_limit_bytes != n->wired_before)
		ro_fail(res, "GPU wired limit is %" PRId64 " bytes, was %" PRId64 " before",
		    r->memory.gpu_wired_limit_bytes, n->wired_before);
	else {
		res->outcome = RO_OUT_OK;
		snprintf(res->last_line, sizeof(res->last_line), "on %.60s (%.60s), RDMA enabled, %s",
		    r->node.os_version, r->node.os_build, n->links_before != 0 ? "links pass" :
		    "links as before (they did not pass before the update either)");
	}
	free(r);
}

static void
step_uncordon(struct ctrl *c, struct ro_campaign *camp, int i, struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	struct step_command a = { c, camp, n->node, "", "" };

	res->outcome = RO_OUT_OK;
	if (!n->cordoned_by_us) {
		snprintf(res->last_line, sizeof(res->last_line), "left cordoned: it was before");
		return;
	}
	if (store_with(&c->store, uncordon_if_cordoned, &a) != 0)
		ro_fail(res, "cannot uncordon %s: %s", n->node, a.err);
	else
		snprintf(res->last_line, sizeof(res->last_line), "uncordoned");
}

void
ro_step_prepare(struct ctrl *c, struct ro_campaign *camp, int i)
{
	struct ro_node *n = &camp->nodes[i];
	struct reg_node rn;

	if (registry_get_node(c->reg, n->node, &rn) == -1)
		return;
	if (n->step == RO_CORDON && n->cordoned_before < 0)
		n->cordoned_before = rn.lc.state == NODE_CORDONED;
	if (n->step == RO_INSTALL && isnan(n->boot_before))
		n->boot_before = rn.lc.boot_time;
}

void
ro_step_run(struct ctrl *c, const struct rollout_adapters *ad, struct ro_campaign *camp,
    int i, int resumed, struct ro_step_result *res)
{
	memset(res, 0, sizeof(*res));
	res->outcome = RO_OUT_FAIL;
	switch (camp->nodes[i].step) {
	case RO_PREFLIGHT: step_preflight(c, ad, camp, i, res); break;
	case RO_CORDON: step_cordon(c, camp, i, res); break;
	case RO_DRAIN: step_drain(c, ad, camp, i, res); break;
	case RO_DOWNLOAD: ro_step_download(c, camp, i, res); break;
	case RO_INSTALL: ro_step_install(c, camp, i, resumed, res); break;
	case RO_WAIT: step_wait(c, camp, i, res); break;
	case RO_VERIFY: step_verify(c, ad, camp, i, res); break;
	case RO_UNCORDON: step_uncordon(c, camp, i, res); break;
	default: ro_fail(res, "no step to run"); break;
	}
}

int
ro_step_fail_cordon(struct ctrl *c, const struct ro_campaign *camp, int i, double now,
    struct reg_node *rn)
{
	const struct ro_node *n = &camp->nodes[i];
	char reason[API_REASON_MAX + 1], err[256], actor[64];

	snprintf(actor, sizeof(actor), "rollout:%" PRId64, camp->id);
	snprintf(reason, sizeof(reason), "rollout %" PRId64 " failed at %s: %s", camp->id,
	    ro_step_str(n->failed_step), n->reason);
	ctrl_event(c, now, actor, n->node, "rollout-failed", reason);
	if (n->failed_step == RO_PREFLIGHT || registry_get_node(c->reg, n->node, rn) == -1)
		return 0;
	if (!n->cordoned_by_us && rn->lc.state != NODE_CORDONED && rn->lc.state != NODE_READY)
		return 0;
	if (lifecycle_store(c, camp, n->node, LC_CORDON, reason, rn, err, sizeof(err)) == -1) {
		log_warnx("%s: cannot keep it cordoned: %s", n->node, err);
		return 0;
	}
	return 1;
}
