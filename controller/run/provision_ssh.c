/*
 * provision_ssh: provisioning's sessions over the SSH layer (ssh.h), as
 * struct prov_session_ops.  The host key: the one pinned for the run, or
 * with accept_new the one the host offers (read first, then pinned for the
 * connection); nothing pinned and no accept_new is refused, as ssh_open
 * refuses it.  The user is the run's, else the controller's own; the key
 * the run's, else --ssh-key.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "log.h"
#include "rollout_api.h"
#include "provision_job.h"
#include "ssh.h"

struct psess {
	struct ssh_conn *conn;
};

static void *
ps_open(void *ctx, const struct prov_target *t, char *fp, char *err, size_t errlen)
{
	struct ctrl *c = ctx;
	struct passwd *pw = getpwuid(getuid());
	char pinned[SSH_FP_MAX] = "", seen[SSH_FP_MAX] = "";
	struct ssh_target st = { t->host, t->port, t->user, t->key_file, pinned,
		c->ssh_connect_timeout };
	struct psess *ps;

	fp[0] = '\0';
	if (st.user == NULL || st.user[0] == '\0')
		st.user = pw != NULL ? pw->pw_name : "root";
	if (st.key_file == NULL || st.key_file[0] == '\0')
		st.key_file = c->ssh_key;
	if (st.key_file == NULL) {
		snprintf(err, errlen, "no SSH key: give --key or start tbcontrollerd with --ssh-key");
		return NULL;
	}
	if (t->pinned != NULL && t->pinned[0] != '\0')
		snprintf(pinned, sizeof(pinned), "%s", t->pinned);
	else if (t->accept_new && ssh_fingerprint(t->host, t->port, c->ssh_connect_timeout,
	    pinned, err, errlen) != 0)
		return NULL;
	if ((ps = calloc(1, sizeof(*ps))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ps->conn = ssh_open(&st, seen, err, errlen);
	if (ps->conn == NULL && strstr(err, "unknown host key") != NULL) {
		size_t len = strlen(err);

		snprintf(err + len, errlen - len, "; for tbctl node add: --fingerprint %s or "
		    "--accept-new", seen);
	}
	snprintf(fp, PROV_FP_MAX, "%s", seen);
	if (ps->conn == NULL) {
		free(ps);
		return NULL;
	}
	return ps;
}

static int
ps_run(void *sess, const char *cmd, const void *in, size_t inlen, int timeout_s,
    struct prov_output *o, char *err, size_t errlen)
{
	struct psess *ps = sess;
	struct ssh_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = ssh_run(ps->conn, cmd, in, inlen, timeout_s, &res, err, errlen);
	if (rc == 0 && res.timed_out) {
		snprintf(err, errlen, "timed out after %d s", timeout_s);
		rc = -1;
	}
	if (rc == 0) {
		o->status = res.status;
		o->out = res.out;
		o->err = res.err;
		res.out = res.err = NULL;
	}
	ssh_result_free(&res);
	return rc;
}

static void
ps_close(void *sess)
{
	struct psess *ps = sess;

	if (ps == NULL)
		return;
	ssh_close(ps->conn);
	free(ps);
}

struct ssh_keep {
	const struct ro_ssh *s;
	const char *fp;
};

/* store_fn: keep how s->node is reached and its host key. */
static int
ssh_keep(struct inv *inv, void *arg)
{
	const struct ssh_keep *a = arg;

	if (inv_ssh_set(inv, a->s) != 0)
		return -1;
	return inv_ssh_trust(inv, a->s->node, a->fp, ctrl_now());
}

/* The node's SSH address and pinned key, for OS updates (tbctl node ssh/trust). */
static void
ps_provisioned(void *ctx, const char *node, const struct prov_target *t, const char *fp)
{
	struct ctrl *c = ctx;
	struct passwd *pw = getpwuid(getuid());
	struct ro_ssh s;

	memset(&s, 0, sizeof(s));
	snprintf(s.node, sizeof(s.node), "%s", node);
	snprintf(s.host, sizeof(s.host), "%s", t->host);
	s.port = t->port > 0 ? t->port : 22;
	snprintf(s.user, sizeof(s.user), "%s", t->user != NULL && t->user[0] != '\0' ? t->user :
	    pw != NULL ? pw->pw_name : "root");
	struct ssh_keep a = { &s, fp };
	if (store_with(&c->store, ssh_keep, &a) != 0)
		log_warnx("%s: %s: could not keep its SSH address", __func__, node);
}

void
prov_ssh_ops(struct ctrl *c, struct prov_session_ops *ops)
{
	ops->ctx = c;
	ops->open = ps_open;
	ops->run = ps_run;
	ops->close = ps_close;
	ops->provisioned = ps_provisioned;
}
