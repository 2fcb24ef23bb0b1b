/*
 * An OS update's download and install on one node (rollout_steps_int.h):
 * softwareupdate --download, then --install --restart, sent once: its time
 * is stored before the command goes out, so that a controller restarted
 * during an install finds it sent and waits for the restart, and a node
 * that already shows the target (or restarted since) is not sent it again.
 */
#include "rollout_steps_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credentials.h"
#include "ctrl.h"
#include "inventory.h"
#include "registry.h"
#include "rollout_probe.h"
#include "ssh.h"

void
ro_step_download(struct ctrl *c, struct ro_campaign *camp, int i, struct ro_step_result *res)
{
	char cmd[RO_CMD_MAX + 1];
	struct ssh_conn *conn;
	int st = -1;

	if (!rollout_shell_word_ok(camp->label)) {
		ro_fail(res, "the label \"%s\" cannot be passed safely", camp->label);
		return;
	}
	if ((conn = ro_connect_node(c, camp->nodes[i].node, res)) == NULL)
		return;
	snprintf(cmd, sizeof(cmd), "%ssoftwareupdate --download '%s'",
	    ro_node_su(c, camp->nodes[i].node, NULL, 0), camp->label);
	if (ro_run(conn, cmd, NULL, c->install_timeout, res, &st, NULL) == -1 || st != 0)
		ro_fail(res, "%s", res->reason);
	else
		res->outcome = RO_OUT_OK;
	ssh_close(conn);
}

/* Has the node already installed the target or restarted since install began? */
static int
install_happened(struct ctrl *c, const struct ro_campaign *camp, const struct ro_node *n,
    const char *ver, const char *build)
{
	struct reg_node rn;

	if (rollout_at_target(camp->target, ver, build))
		return 1;
	return ro_reg_node(c, n->node, &rn) == 0 && !isnan(rn.lc.boot_time) &&
	    !isnan(n->boot_before) && fabs(rn.lc.boot_time - n->boot_before) > 2.0;
}

/*
 * Follow the detached install through its log on the Mac until it ends,
 * the Mac restarts (the session drops) or install_timeout passes.  cmd is
 * what was started, for the reason.
 */
static void
install_watch(struct ctrl *c, struct ro_campaign *camp, int i, struct ssh_conn *conn,
    const char *cmd, struct ro_step_result *res)
{
	double deadline = ctrl_now() + c->install_timeout;
	char last[RO_LINE_MAX + 1] = "", err[256];
	int ended = -1;

	while (ended < 0 && ctrl_now() < deadline) {
		struct ssh_result r;

		nanosleep(&(struct timespec){ 1, 0 }, NULL);
		if (ssh_run(conn, "cat \"" ROLLOUT_INSTALL_LOG "\"", NULL, 0, c->ssh_command_timeout,
		    &r, err, sizeof(err)) != 0 || r.timed_out || r.status == 255) {
			/* a Mac that restarts drops the session: the wait step follows */
			ssh_result_free(&r);
			snprintf(res->last_line, sizeof(res->last_line), "the Mac is restarting (%s)",
			    last[0] != '\0' ? last : "install sent");
			res->outcome = RO_OUT_OK;
			return;
		}
		ended = rollout_install_ended(r.out, last, sizeof(last));
		if (ended >= 0 || ctrl_now() >= deadline) {
			ro_out_add(res, r.out);
			if (last[0] != '\0')
				snprintf(res->last_line, sizeof(res->last_line), "%s", last);
		}
		ssh_result_free(&r);
	}
	if (ended == 0) {
		res->outcome = RO_OUT_OK;
	} else if (ended > 0) {
		/* it ended and said why: a retry may send it again */
		camp->nodes[i].install_at = NAN;
		ro_fail(res, "%.180s: exit %d: %.120s", cmd, ended, last[0] != '\0' ? last : "no output");
	} else {
		ro_fail(res, "the install did not end within %.0f s (%s on the Mac: %.100s)",
		    c->install_timeout, ROLLOUT_INSTALL_LOG, last[0] != '\0' ? last : "empty");
	}
}

struct install_sent {
	struct ctrl *c;
	const struct ro_campaign *camp;
	int i;
	double at;
};

/*
 * store_fn: when node i's install went out (kept before it goes: a
 * controller that dies while the Mac installs finds it on its restart);
 * from then on the node expects its reboot.
 */
static int
install_sent(struct inv *inv, void *arg)
{
	struct install_sent *a = arg;
	struct reg_node rn;
	int rc = inv_rollout_install_at(inv, a->camp->id, a->i, a->at);

	if (rc == 0 && registry_get_node(a->c->reg, a->camp->nodes[a->i].node, &rn) == 0) {
		rn.lc.reboot_expected = 1;
		registry_set_lc(a->c->reg, rn.name, &rn.lc);
	}
	return rc;
}

static void
install_run(struct ctrl *c, struct ro_campaign *camp, int i, struct ssh_conn *conn,
    struct ro_step_result *res)
{
	char user[sizeof(api_name)], pw[CRED_PASSWORD_MAX + 2], cmd[RO_CMD_MAX + 1];
	char start[RO_CMD_MAX * 3];
	const char *su = ro_node_su(c, camp->nodes[i].node, NULL, 0);
	int st = -1, rc;

	if (ro_credentials(c, camp, camp->nodes[i].node, user, pw, sizeof(pw) - 1, res) == -1)
		return;
	if (!rollout_shell_word_ok(camp->label) || !rollout_shell_word_ok(user)) {
		cred_wipe(pw, sizeof(pw));
		ro_fail(res, "the label or user cannot be passed safely");
		return;
	}
	/*
	 * As root through sudo -n, with --user/--stdinpass for the volume owner
	 * on Apple silicon, started so that it survives the SSH session (the
	 * Macjutsu/super way, super lines 7790-7793: `echo PASSWORD | sudo -u
	 * root softwareupdate --install ... --stdinpass >> LOG 2>&1 &`): the
	 * password reaches it on its standard input, its output goes to a log
	 * on the Mac that ends with its exit status.
	 */
	snprintf(cmd, sizeof(cmd), "%ssoftwareupdate --install '%s' --restart --agree-to-license "
	    "--no-scan --user '%s' --stdinpass", su, camp->label, user);
	/*
	 * The session's shell reads the password before it lets the session
	 * end (sshd may drop input the session's command has not read when it
	 * exits), then hands it to the detached install through a pipe
	 * (printf is the shell's own: the password is in no argv).
	 */
	snprintf(start, sizeof(start), "log=\"" ROLLOUT_INSTALL_LOG "\"; mkdir -p "
	    "\"$HOME/Library/Logs\" && : >\"$log\" && IFS= read -r pw && { printf '%%s\\n' "
	    "\"$pw\" | (trap '' HUP; %s; echo \"" ROLLOUT_INSTALL_END "$?\") >>\"$log\" 2>&1 & } "
	    "&& pw= && echo \"install started, its output in $log\"", cmd);
	/* Written before the command goes out (install_pending) */
	struct install_sent sent = { c, camp, i, ctrl_now() };
	if (store_with(&c->store, install_sent, &sent) != 0) {
		cred_wipe(pw, sizeof(pw));
		ro_fail(res, "cannot record the install's start in the inventory");
		return;
	}
	camp->nodes[i].install_at = sent.at;
	strcat(pw, "\n");
	rc = ro_run(conn, start, pw, c->ssh_command_timeout, res, &st, NULL);
	cred_wipe(pw, sizeof(pw));
	if (rc == -1 || st == -1 || st == 255) {
		/* a Mac that restarts at once may drop the session: the wait step follows */
		res->outcome = RO_OUT_OK;
	} else if (st != 0) {
		/* it did not start and said why: a retry may send it again */
		camp->nodes[i].install_at = NAN;
		ro_fail(res, "%s", res->reason);
	} else {
		install_watch(c, camp, i, conn, cmd, res);
	}
}

/*
 * An earlier run sent the install in this boot and did not see it end (the
 * controller was killed or restarted meanwhile).  On a Mac the install goes
 * on without the SSH session that sent it: never send a second one; say
 * what the Mac shows of it and wait for the restart (step_wait).
 */
static void
install_pending(struct ctrl *c, const struct ro_node *n, struct ssh_conn *conn,
    struct ro_step_result *res)
{
	struct ro_install_seen seen = { 0 };
	char what[256], when[32], last[RO_LINE_MAX + 1], tail[128] = "";
	char *out = NULL;
	int st = -1;

	if (ro_run(conn, ROLLOUT_PROBE_PS, NULL, c->ssh_command_timeout, res, &st, &out) == 0 &&
	    st == 0)
		rollout_probe_ps(out, &seen);
	free(out);
	out = NULL;
	/* 60 s of slack for the two clocks */
	if (ro_run(conn, ROLLOUT_PROBE_LOG, NULL, c->ssh_command_timeout, res, &st, &out) == 0 &&
	    st == 0)
		rollout_probe_log(out, n->install_at - 60, &seen);
	free(out);
	out = NULL;
	/* the detached install's own log: what softwareupdate said last */
	if (ro_run(conn, "tail -n 20 \"" ROLLOUT_INSTALL_LOG "\"", NULL, c->ssh_command_timeout, res,
	    &st, &out) == 0 && st == 0) {
		int ended = rollout_install_ended(out, last, sizeof(last));

		if (ended >= 0)
			snprintf(tail, sizeof(tail), "; log: exit %d", ended);
		else if (last[0] != '\0')
			snprintf(tail, sizeof(tail), "; log: \"%.24s\"", last);
	}
	free(out);
	rollout_probe_str(&seen, what, sizeof(what));
	ro_utc_str(n->install_at, when, sizeof(when));
	snprintf(res->last_line, sizeof(res->last_line), "install sent at %s: %.128s%s; waiting "
	    "for the restart, not sending it again", when, what, tail);
	ro_out_add(res, res->last_line);
	ro_out_add(res, "\n");
	res->outcome = RO_OUT_OK;
}

void
ro_step_install(struct ctrl *c, struct ro_campaign *camp, int i, int resumed,
    struct ro_step_result *res)
{
	struct ro_node *n = &camp->nodes[i];
	char ver[64], build[64];
	struct ssh_conn *conn = ro_connect_node(c, n->node, res);

	if (conn == NULL || ro_remote_os(c, conn, res, ver, build, sizeof(ver)) == -1) {
		/* started by an earlier run: the node is restarting */
		if (resumed) {
			res->outcome = RO_OUT_OK;
			snprintf(res->last_line, sizeof(res->last_line),
			    "not answering: restarting after the install");
		} else {
			ro_fail(res, "%s", res->reason);
		}
	} else if (install_happened(c, camp, n, ver, build)) {
		res->outcome = RO_OUT_OK;
		snprintf(res->last_line, sizeof(res->last_line), "already installed (%s %s)", ver,
		    build);
	} else if (!isnan(n->install_at)) {
		install_pending(c, n, conn, res);
	} else {
		install_run(c, camp, i, conn, res);
	}
	ssh_close(conn);
}
