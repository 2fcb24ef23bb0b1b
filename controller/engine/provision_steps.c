/*
 * provision_steps: the ordered steps of provisioning and deprovisioning a
 * Mac, each a read-only check, an apply and, where it can be, an undo; and
 * the judges that read a check's output.
 *
 * The macOS commands used: networksetup -getnetworkserviceenabled /
 * -setnetworkserviceenabled / -listallnetworkservices /
 * -createnetworkservice / -setmanual / -setdhcp / -getinfo /
 * -removenetworkservice, pmset -g / -a sleep 0 / -a autorestart 1,
 * sysctl iogpu.wired_limit_mb=N, launchctl print / bootstrap / bootout /
 * kickstart on the system domain, shasum -a 256.  With a login user that
 * is not root, each command that changes the Mac is "sudo -n COMMAND" (the
 * plan's su()): files are written with sudo -n tee, moved with sudo -n mv,
 * and so on, one sudo per command, as prov_sudoers.h lists them.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

int
prov_shell_quote(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	if (size < 3)
		return -1;
	buf[o++] = '\'';
	for (; *s != '\0'; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t len = piece != NULL ? 4 : 1;

		if (o + len + 2 > size)
			return -1;
		if (piece != NULL)
			memcpy(buf + o, piece, len);
		else
			buf[o] = *s;
		o += len;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return 0;
}

/* printf into a command buffer; -1 when it does not fit. */
static int cmdf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
cmdf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* What goes before a command that needs root: PROV_SUDO, or "" as root. */
static const char *
su(const struct prov_plan *p)
{
	return p->sudo ? PROV_SUDO : "";
}

/* A new step at the end of p, or NULL when p is full. */
static struct prov_step *
step_new(struct prov_plan *p, const char *id, const char *title)
{
	struct prov_step *s;

	if (p->n == PROV_STEPS_MAX)
		return NULL;
	s = &p->steps[p->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->id, sizeof(s->id), "%s", id);
	snprintf(s->title, sizeof(s->title), "%s", title);
	snprintf(s->su, sizeof(s->su), "%s", su(p));
	return s;
}

/* Keep text in the plan (it owns it); NULL when it is NULL or the plan is full. */
static const char *
plan_keep(struct prov_plan *p, char *text)
{
	for (size_t i = 0; i < sizeof(p->texts) / sizeof(p->texts[0]); i++)
		if (p->texts[i] == NULL) {
			p->texts[i] = text;
			return text;
		}
	free(text);
	return NULL;
}

/*
 * Install stdin as file path (quoted qpath, mode) atomically: the apply of
 * a file step.  As root "cat > NEW"; through sudo "sudo -n tee NEW", whose
 * copy to standard output is dropped.
 */
static int
install_cmd(const char *su, char *buf, size_t size, const char *qpath, const char *qdir,
    const char *mode)
{
	if (su[0] == '\0')
		return cmdf(buf, size, "mkdir -p %s && cat > %s.tbmesh-new && chown 0:0 "
		    "%s.tbmesh-new && chmod %s %s.tbmesh-new && mv -f %s.tbmesh-new %s", qdir, qpath,
		    qpath, mode, qpath, qpath, qpath);
	return cmdf(buf, size, "%smkdir -p %s && %stee %s.tbmesh-new >/dev/null && %schown 0:0 "
	    "%s.tbmesh-new && %schmod %s %s.tbmesh-new && %smv -f %s.tbmesh-new %s", su, qdir, su,
	    qpath, su, qpath, su, mode, qpath, su, qpath, qpath);
}

/* A step that makes file root+path hold text (kept by the plan). */
static int
file_step(struct prov_plan *p, const char *root, const char *path, const char *dir,
    const char *id, const char *title, char *text, const char *after)
{
	char full[512], qpath[600], qdir[600];
	struct prov_step *s;
	const char *t = plan_keep(p, text);

	if (t == NULL || (s = step_new(p, id, title)) == NULL)
		return -1;
	snprintf(full, sizeof(full), "%s%s", root, path);
	if (prov_shell_quote(full, qpath, sizeof(qpath)) != 0)
		return -1;
	snprintf(full, sizeof(full), "%s%s", root, dir);
	if (prov_shell_quote(full, qdir, sizeof(qdir)) != 0)
		return -1;
	s->input = t;
	s->input_len = strlen(t);
	s->judge = PROV_J_EQUALS;
	s->undo = PROV_U_FILE;
	snprintf(s->undo_path, sizeof(s->undo_path), "%s%s", root, path);
	if (cmdf(s->check, sizeof(s->check), "cat %s", qpath) != 0 ||
	    install_cmd(su(p), s->apply, sizeof(s->apply), qpath, qdir, "644") != 0)
		return -1;
	if (after != NULL && (strlen(s->apply) + strlen(after) + 5 >= sizeof(s->apply)))
		return -1;
	if (after != NULL)
		strcat(strcat(s->apply, " && "), after);
	return 0;
}

/* A step: check, judge, expect, apply, undo given as strings. */
static int
simple_step(struct prov_plan *p, const char *id, const char *title, const char *check,
    enum prov_judge judge, const char *expect, const char *apply, const char *undo)
{
	struct prov_step *s = step_new(p, id, title);

	if (s == NULL)
		return -1;
	snprintf(s->check, sizeof(s->check), "%s", check);
	s->judge = judge;
	snprintf(s->expect, sizeof(s->expect), "%s", expect != NULL ? expect : "");
	snprintf(s->apply, sizeof(s->apply), "%s", apply);
	s->undo = undo != NULL ? PROV_U_FIXED : PROV_U_NONE;
	snprintf(s->undo_cmd, sizeof(s->undo_cmd), "%s", undo != NULL ? undo : "");
	return 0;
}

/* The Thunderbolt Bridge off: the service on bridge0, found by the survey. */
static int
bridge_step(struct prov_plan *p, const struct prov_facts *f)
{
	char br[160], c1[256], c2[256], c3[256];

	if (f->bridge_service[0] == '\0')
		return 0;   /* no service on the bridge: nothing to turn off */
	if (prov_shell_quote(f->bridge_service, br, sizeof(br)) != 0)
		return -1;
	snprintf(c1, sizeof(c1), "networksetup -getnetworkserviceenabled %s", br);
	snprintf(c2, sizeof(c2), "%snetworksetup -setnetworkserviceenabled %s off", su(p), br);
	snprintf(c3, sizeof(c3), "%snetworksetup -setnetworkserviceenabled %s on", su(p), br);
	return simple_step(p, "bridge-off", "Thunderbolt Bridge off", c1, PROV_J_DISABLED, NULL, c2,
	    c3);
}

static int
settings_steps(struct prov_plan *p, const struct prov_facts *f)
{
	char c2[256];
	struct prov_step *st;

	if (bridge_step(p, f) != 0)
		return -1;
	snprintf(c2, sizeof(c2), "%spmset -a sleep 0", su(p));
	if (simple_step(p, "pmset-sleep", "no system sleep", "pmset -g", PROV_J_PMSET, "0",
	    c2, NULL) != 0)
		return -1;
	st = &p->steps[p->n - 1];
	snprintf(st->key, sizeof(st->key), "sleep");
	st->undo = PROV_U_PMSET;
	snprintf(c2, sizeof(c2), "%spmset -a autorestart 1", su(p));
	if (simple_step(p, "pmset-autorestart", "restart after a power failure", "pmset -g",
	    PROV_J_PMSET, "1", c2, NULL) != 0)
		return -1;
	st = &p->steps[p->n - 1];
	snprintf(st->key, sizeof(st->key), "autorestart");
	st->undo = PROV_U_PMSET;
	return 0;
}

static int
wired_steps(struct prov_plan *p, const struct prov_settings *s, const char *root)
{
	char qplist[600], full[512], apply[700], undo[128], title[128], n[16];
	struct prov_step *st;

	if (s->wired_limit_mb <= 0)
		return 0;
	snprintf(full, sizeof(full), "%s" PROV_WIRED_PLIST, root);
	if (prov_shell_quote(full, qplist, sizeof(qplist)) != 0)
		return -1;
	snprintf(title, sizeof(title), "GPU wired limit %d MB at every boot (LaunchDaemon)",
	    s->wired_limit_mb);
	if (file_step(p, root, PROV_WIRED_PLIST, "/Library/LaunchDaemons", "wired-limit-plist",
	    title, prov_wired_plist(s->wired_limit_mb), NULL) != 0)
		return -1;
	snprintf(apply, sizeof(apply), "%slaunchctl bootstrap system %s", su(p), qplist);
	snprintf(undo, sizeof(undo), "%slaunchctl bootout system/" PROV_WIRED_LABEL, su(p));
	if (simple_step(p, "wired-limit-daemon", "wired-limit LaunchDaemon loaded",
	    "launchctl print system/" PROV_WIRED_LABEL, PROV_J_STATUS_OK, NULL, apply,
	    undo) != 0)
		return -1;
	snprintf(n, sizeof(n), "%d", s->wired_limit_mb);
	snprintf(apply, sizeof(apply), "%ssysctl iogpu.wired_limit_mb=%d", su(p),
	    s->wired_limit_mb);
	snprintf(title, sizeof(title), "GPU wired limit %d MB now", s->wired_limit_mb);
	if (simple_step(p, "wired-limit-now", title, "sysctl -n iogpu.wired_limit_mb",
	    PROV_J_LINE, n, apply, NULL) != 0)
		return -1;
	st = &p->steps[p->n - 1];
	snprintf(st->key, sizeof(st->key), "iogpu.wired_limit_mb");
	st->undo = PROV_U_SYSCTL;
	return 0;
}

static const struct prov_port *
facts_port(const struct prov_facts *f, const char *receptacle)
{
	for (int i = 0; i < f->n_ports; i++)
		if (strcmp(f->ports[i].receptacle, receptacle) == 0)
			return &f->ports[i];
	return NULL;
}

/*
 * The network location of the port services, as exo makes its own
 * (exo-explore/exo tmp/set_rdma_network_config.sh lines 18-43 at b5375f8:
 * createlocation, switchtolocation, then a service for each hardware port
 * but the Thunderbolt ones, so that Ethernet and Wi-Fi go on): a port's
 * service is then never its port's only one in every location, and
 * deprovisioning deletes the location with them.
 */
static int
location_step(struct prov_plan *p)
{
	char apply[PROV_CMD_MAX];
	const char *sp = su(p);
	struct prov_step *st;

	if (cmdf(apply, sizeof(apply), "{ networksetup -listlocations | grep -qx " PROV_LOCATION
	    " || %snetworksetup -createlocation " PROV_LOCATION "; } && %snetworksetup "
	    "-switchtolocation " PROV_LOCATION " && networksetup -listallhardwareports | sed -n "
	    "'s/^Hardware Port: //p' | while IFS= read -r hw; do case $hw in 'Thunderbolt Bridge'|"
	    "'Thunderbolt '[0-9]*) ;; *) networksetup -listallnetworkservices | grep -qxF \"$hw\" "
	    "|| %snetworksetup -createnetworkservice \"$hw\" \"$hw\" || exit 1 ;; esac; done",
	    sp, sp, sp) != 0)
		return -1;
	if (simple_step(p, "location", "network location \"" PROV_LOCATION "\" (the LAN's services, "
	    "then the Thunderbolt ports')", "networksetup -getcurrentlocation", PROV_J_LINE,
	    PROV_LOCATION, apply, NULL) != 0)
		return -1;
	st = &p->steps[p->n - 1];
	st->undo = PROV_U_LOCATION;
	return 0;
}

/* The three steps of one port: its service, its address, the service enabled. */
static int
port_steps(struct prov_plan *p, const struct prov_addr *a)
{
	const char *sp = su(p);
	char svc[64], qsvc[96], id[48], title[128], check[256], apply[512], undo[256];

	snprintf(svc, sizeof(svc), PROV_SERVICE_PREFIX "%s", a->receptacle);
	if (prov_shell_quote(svc, qsvc, sizeof(qsvc)) != 0)
		return -1;
	snprintf(id, sizeof(id), "port-service-%s", a->receptacle);
	snprintf(title, sizeof(title), "network service \"%s\" on Thunderbolt %s", svc,
	    a->receptacle);
	snprintf(apply, sizeof(apply), "%snetworksetup -createnetworkservice %s 'Thunderbolt %s'",
	    sp, qsvc, a->receptacle);
	snprintf(undo, sizeof(undo), "%snetworksetup -removenetworkservice %s", sp, qsvc);
	if (simple_step(p, id, title, "networksetup -listallnetworkservices", PROV_J_HAS_LINE, svc,
	    apply, undo) != 0)
		return -1;
	snprintf(id, sizeof(id), "port-ip-%s", a->receptacle);
	snprintf(title, sizeof(title), "Thunderbolt %s: %s/30", a->receptacle, a->ipv4);
	snprintf(check, sizeof(check), "networksetup -getinfo %s", qsvc);
	snprintf(apply, sizeof(apply), "%snetworksetup -setmanual %s %s " PROV_NETMASK, sp, qsvc,
	    a->ipv4);
	snprintf(undo, sizeof(undo), "%snetworksetup -setdhcp %s", sp, qsvc);
	if (simple_step(p, id, title, check, PROV_J_GETINFO, a->ipv4, apply, undo) != 0)
		return -1;
	snprintf(id, sizeof(id), "port-enabled-%s", a->receptacle);
	snprintf(title, sizeof(title), "network service \"%s\" enabled", svc);
	snprintf(check, sizeof(check), "networksetup -getnetworkserviceenabled %s", qsvc);
	snprintf(apply, sizeof(apply), "%snetworksetup -setnetworkserviceenabled %s on", sp, qsvc);
	snprintf(undo, sizeof(undo), "%snetworksetup -setnetworkserviceenabled %s off", sp, qsvc);
	return simple_step(p, id, title, check, PROV_J_LINE, "Enabled", apply, undo);
}

static int
agent_binary_step(struct prov_plan *p, const struct prov_settings *s, const char *root)
{
	char full[512], qbin[600], qdir[600], title[128];
	struct prov_step *st;

	snprintf(full, sizeof(full), "%s" PROV_AGENT_BIN, root);
	if (prov_shell_quote(full, qbin, sizeof(qbin)) != 0)
		return -1;
	snprintf(full, sizeof(full), "%s/usr/local/sbin", root);
	if (prov_shell_quote(full, qdir, sizeof(qdir)) != 0 ||
	    (st = step_new(p, "agent-binary", "")) == NULL)
		return -1;
	snprintf(title, sizeof(title), "tbagentd installed (%zu bytes, sha256 %.12s...)",
	    s->agent_size, s->agent_sha256);
	snprintf(st->title, sizeof(st->title), "%s", title);
	snprintf(st->check, sizeof(st->check), "shasum -a 256 %s", qbin);
	st->judge = PROV_J_SHA256;
	snprintf(st->expect, sizeof(st->expect), "%s", s->agent_sha256);
	st->input_binary = 1;
	st->undo = PROV_U_BINARY;
	snprintf(st->undo_path, sizeof(st->undo_path), "%s" PROV_AGENT_BIN, root);
	if (!p->sudo)
		return cmdf(st->apply, sizeof(st->apply), "mkdir -p %s && { test ! -e %s || cp -p "
		    "%s %s.prev; } && cat > %s.tbmesh-new && chmod 755 %s.tbmesh-new && mv -f "
		    "%s.tbmesh-new %s && { ! launchctl print system/" PROV_AGENT_LABEL " >/dev/null "
		    "2>&1 || launchctl kickstart -k system/" PROV_AGENT_LABEL "; }", qdir, qbin, qbin,
		    qbin, qbin, qbin, qbin, qbin);
	return cmdf(st->apply, sizeof(st->apply), PROV_SUDO "mkdir -p %s && { test ! -e %s || "
	    PROV_SUDO "cp -p %s %s.prev; } && " PROV_SUDO "tee %s.tbmesh-new >/dev/null && "
	    PROV_SUDO "chmod 755 %s.tbmesh-new && " PROV_SUDO "mv -f %s.tbmesh-new %s && { ! "
	    "launchctl print system/" PROV_AGENT_LABEL " >/dev/null 2>&1 || " PROV_SUDO
	    "launchctl kickstart -k system/" PROV_AGENT_LABEL "; }", qdir, qbin, qbin, qbin, qbin,
	    qbin, qbin, qbin);
}

static int
agent_steps(struct prov_plan *p, const struct prov_settings *s, const char *root)
{
	char full[512], q1[600], q2[600], q3[600], check[1024], apply[1024], undo[700];

	if (agent_binary_step(p, s, root) != 0)
		return -1;
	if (file_step(p, root, PROV_AGENT_CONF, "/usr/local/etc/tbmesh", "agent-config",
	    "tbagentd config (controller, bootstrap token file, state dir)",
	    prov_agent_config(root, s->controller_url, s->node_name), NULL) != 0)
		return -1;
	snprintf(full, sizeof(full), "%s" PROV_AGENT_NODE_TOKEN, root);
	prov_shell_quote(full, q1, sizeof(q1));
	snprintf(full, sizeof(full), "%s" PROV_AGENT_BOOTSTRAP, root);
	prov_shell_quote(full, q2, sizeof(q2));
	snprintf(full, sizeof(full), "%s" PROV_AGENT_STATE, root);
	prov_shell_quote(full, q3, sizeof(q3));
	/*
	 * enrolled (a node token) is done; else a fresh token, whatever an
	 * earlier run left.  The state directory is root's alone (0700): even
	 * the check goes through sudo.
	 */
	if (cmdf(check, sizeof(check), "%stest -s %s", su(p), q1) != 0 ||
	    (p->sudo ? cmdf(apply, sizeof(apply), PROV_SUDO "mkdir -p %s && " PROV_SUDO "chmod 700 "
	    "%s && " PROV_SUDO "tee %s.tbmesh-new >/dev/null && " PROV_SUDO "chmod 600 "
	    "%s.tbmesh-new && " PROV_SUDO "mv -f %s.tbmesh-new %s", q3, q3, q2, q2, q2, q2) :
	    cmdf(apply, sizeof(apply), "mkdir -p %s && chmod 700 %s && umask 077 && "
	    "cat > %s.tbmesh-new && mv -f %s.tbmesh-new %s", q3, q3, q2, q2, q2)) != 0 ||
	    cmdf(undo, sizeof(undo), "%srm -f %s", su(p), q2) != 0)
		return -1;
	if (simple_step(p, "agent-token", "one-time bootstrap token for the agent's enrolment",
	    check, PROV_J_STATUS_OK, NULL, apply, undo) != 0)
		return -1;
	p->steps[p->n - 1].input_secret = 1;
	/* the agent enrols only once started: after the write, the token is there */
	if (cmdf(p->steps[p->n - 1].verify, PROV_CMD_MAX, "%stest -s %s", su(p), q2) != 0)
		return -1;
	/* a loaded agent is booted out so that the next step loads the new plist */
	snprintf(undo, sizeof(undo), "{ %slaunchctl bootout system/" PROV_AGENT_LABEL
	    " 2>/dev/null || true; }", su(p));
	if (file_step(p, root, PROV_AGENT_PLIST, "/Library/LaunchDaemons", "agent-plist",
	    "tbagentd LaunchDaemon", prov_agent_plist(root), undo) != 0)
		return -1;
	snprintf(full, sizeof(full), "%s" PROV_AGENT_PLIST, root);
	prov_shell_quote(full, q1, sizeof(q1));
	snprintf(apply, sizeof(apply), "%slaunchctl bootstrap system %s", su(p), q1);
	snprintf(undo, sizeof(undo), "%slaunchctl bootout system/" PROV_AGENT_LABEL, su(p));
	if (simple_step(p, "agent-daemon", "tbagentd started (launchctl bootstrap system)",
	    "launchctl print system/" PROV_AGENT_LABEL, PROV_J_STATUS_OK, NULL, apply, undo) != 0)
		return -1;
	return 0;
}

static struct prov_plan *
plan_new(int sudo)
{
	struct prov_plan *p = calloc(1, sizeof(*p));

	if (p != NULL)
		p->sudo = sudo;
	return p;
}

struct prov_plan *
prov_plan_build(const struct prov_facts *f, const struct prov_settings *s, char *err,
    size_t errlen)
{
	const char *root = s->root != NULL ? s->root : "";
	struct prov_plan *p = plan_new(s->sudo);

	if (p == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < s->n_addrs; i++)
		if (facts_port(f, s->addrs[i].receptacle) == NULL) {
			snprintf(err, errlen, "the cluster's plan cables Thunderbolt %s, which this "
			    "Mac does not have", s->addrs[i].receptacle);
			goto fail;
		}
	if (settings_steps(p, f) != 0 || wired_steps(p, s, root) != 0)
		goto full;
	if (s->n_addrs > 0 && location_step(p) != 0)
		goto full;
	for (int i = 0; i < s->n_addrs; i++)
		if (port_steps(p, &s->addrs[i]) != 0)
			goto full;
	if (agent_steps(p, s, root) != 0)
		goto full;
	p->rdma_manual = f->rdma == 0;
	return p;
full:
	snprintf(err, errlen, "the plan does not fit (out of memory, or a path too long)");
fail:
	prov_plan_free(p);
	return NULL;
}

/* A step that removes path (root prefixed) with rm -f (rm -rf when dir). */
static int
remove_step(struct prov_plan *p, const char *root, const char *path, const char *id,
    const char *title, int dir)
{
	char full[512], q[600], check[700], apply[1400];

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (prov_shell_quote(full, q, sizeof(q)) != 0)
		return -1;
	snprintf(check, sizeof(check), "test -e %s", q);
	if (dir)
		snprintf(apply, sizeof(apply), "%srm -rf %s", su(p), q);
	else
		snprintf(apply, sizeof(apply), "%srm -f %s %s.prev", su(p), q, q);
	return simple_step(p, id, title, check, PROV_J_STATUS_FAIL, NULL, apply, NULL);
}

static int
deprov_network(struct prov_plan *p, const struct prov_facts *f)
{
	char svc[64], qsvc[96], id[48], title[128], apply[512];

	/* back to the Mac's own location (as exo's uninstaller), ours deleted */
	snprintf(apply, sizeof(apply), "{ [ \"$(networksetup -getcurrentlocation)\" != "
	    PROV_LOCATION " ] || %snetworksetup -switchtolocation " PROV_LOCATION_BACK "; } && "
	    "%snetworksetup -deletelocation " PROV_LOCATION, su(p), su(p));
	if (simple_step(p, "location-removed", "network location \"" PROV_LOCATION "\" removed "
	    "(back to \"" PROV_LOCATION_BACK "\")", "networksetup -listlocations", PROV_J_NO_LINE,
	    PROV_LOCATION, apply, NULL) != 0)
		return -1;

	for (int i = 0; i < f->n_ports; i++) {
		snprintf(svc, sizeof(svc), PROV_SERVICE_PREFIX "%s", f->ports[i].receptacle);
		prov_shell_quote(svc, qsvc, sizeof(qsvc));
		snprintf(id, sizeof(id), "port-service-removed-%s", f->ports[i].receptacle);
		snprintf(title, sizeof(title), "network service \"%s\" removed", svc);
		snprintf(apply, sizeof(apply), "%snetworksetup -removenetworkservice %s", su(p),
		    qsvc);
		if (simple_step(p, id, title, "networksetup -listallnetworkservices",
		    PROV_J_NO_LINE, svc, apply, NULL) != 0)
			return -1;
	}
	/*
	 * the bridge's service as the location now in use has it, found by its
	 * device when the step runs (exo's uninstaller does the same,
	 * NetworkSetupHelper.swift lines 271-277)
	 */
	snprintf(apply, sizeof(apply), "svc=$(networksetup -listnetworkserviceorder | awk "
	    "'/^[(][0-9*]+[)] / { sub(/^[(][0-9*]+[)] /, \"\"); s = $0 } /Device: "
	    PROV_BRIDGE_DEVICE "[)]/ { print s; exit }') && [ -n \"$svc\" ] && %snetworksetup "
	    "-setnetworkserviceenabled \"$svc\" on", su(p));
	return simple_step(p, "bridge-on", "Thunderbolt Bridge back on",
	    "networksetup -listnetworkserviceorder", PROV_J_BRIDGE_ON, NULL, apply, NULL);
}

struct prov_plan *
prov_deprov_build(const struct prov_facts *f, const char *root, int sudo, int network)
{
	struct prov_plan *p = plan_new(sudo);

	if (root == NULL)
		root = "";
	if (p == NULL)
		return NULL;
	char out1[128], out2[128];

	snprintf(out1, sizeof(out1), "%slaunchctl bootout system/" PROV_AGENT_LABEL, su(p));
	snprintf(out2, sizeof(out2), "%slaunchctl bootout system/" PROV_WIRED_LABEL, su(p));
	if (simple_step(p, "agent-stopped", "tbagentd stopped (launchctl bootout)",
	    "launchctl print system/" PROV_AGENT_LABEL, PROV_J_STATUS_FAIL, NULL, out1, NULL) != 0 ||
	    remove_step(p, root, PROV_AGENT_PLIST, "agent-plist-removed",
	    "tbagentd LaunchDaemon removed", 0) != 0 ||
	    remove_step(p, root, PROV_AGENT_BIN, "agent-binary-removed", "tbagentd removed", 0) ||
	    remove_step(p, root, PROV_AGENT_CONF, "agent-config-removed",
	    "tbagentd config removed", 0) != 0 ||
	    remove_step(p, root, PROV_AGENT_STATE, "agent-state-removed",
	    "tbagentd state and tokens removed", 1) != 0 ||
	    simple_step(p, "wired-limit-stopped", "wired-limit LaunchDaemon unloaded",
	    "launchctl print system/" PROV_WIRED_LABEL, PROV_J_STATUS_FAIL, NULL, out2, NULL) != 0 ||
	    remove_step(p, root, PROV_WIRED_PLIST, "wired-limit-plist-removed",
	    "wired-limit LaunchDaemon removed", 0) != 0 ||
	    (network && deprov_network(p, f) != 0)) {
		prov_plan_free(p);
		return NULL;
	}
	return p;
}

void
prov_plan_free(struct prov_plan *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < sizeof(p->texts) / sizeof(p->texts[0]); i++)
		free(p->texts[i]);
	free(p);
}
