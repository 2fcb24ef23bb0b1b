/*
 * provision_run: the runner against a small stateful Mac (struct mac) that
 * answers the commands the plan sends the way macOS does (networksetup,
 * pmset, sysctl, launchctl, cat, test, shasum, rm, mv, file installs) and
 * keeps every command it was sent.  A fresh Mac is provisioned, a second run
 * changes nothing, a dry run changes nothing, a failing step stops the run
 * and what came before is undone until the Mac is as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

#define MAC_MAX 32
#define LOG_MAX 256

struct mac_file { char path[256]; char *data; size_t len; int used; };
struct mac_svc { char name[64]; char port[32]; char ip[16]; int enabled; int manual; int used; };

struct mac {
	int bridge, sleep, autorestart, wired;
	int in_location;               /* in the tbmesh location (else Automatic) */
	struct mac_file files[MAC_MAX];
	struct mac_svc svcs[MAC_MAX];
	int loaded_agent, loaded_wired;
	char fail[128];                /* a command starting so fails */
	int drop_at;                   /* the transport fails at this command (1-based), 0 never */
	int ncmds;
	char *log[LOG_MAX];
};

static void
mac_fresh(struct mac *m)
{
	memset(m, 0, sizeof(*m));
	m->bridge = 1;
	m->sleep = 1;
	m->wired = 0;
}

static void
mac_clear_log(struct mac *m)
{
	for (int i = 0; i < m->ncmds && i < LOG_MAX; i++)
		free(m->log[i]);
	m->ncmds = 0;
}

static void
mac_free(struct mac *m)
{
	mac_clear_log(m);
	for (int i = 0; i < MAC_MAX; i++)
		free(m->files[i].data);
}

/* The text between the quotes of the first '...' after marker in cmd. */
static int
quoted_after(const char *cmd, const char *marker, char *buf, size_t size)
{
	const char *p = strstr(cmd, marker), *e;

	if (p == NULL || (p = strchr(p + strlen(marker) - 1, '\'')) == NULL ||
	    (e = strchr(p + 1, '\'')) == NULL || (size_t)(e - p - 1) >= size)
		return -1;
	memcpy(buf, p + 1, (size_t)(e - p - 1));
	buf[e - p - 1] = '\0';
	return 0;
}

static struct mac_file *
file_of(struct mac *m, const char *path, int create)
{
	for (int i = 0; i < MAC_MAX; i++)
		if (m->files[i].used && strcmp(m->files[i].path, path) == 0)
			return &m->files[i];
	for (int i = 0; create && i < MAC_MAX; i++)
		if (!m->files[i].used) {
			m->files[i].used = 1;
			snprintf(m->files[i].path, sizeof(m->files[i].path), "%s", path);
			return &m->files[i];
		}
	return NULL;
}

static void
file_put(struct mac *m, const char *path, const void *data, size_t len)
{
	struct mac_file *f = file_of(m, path, 1);

	free(f->data);
	f->data = malloc(len + 1);
	memcpy(f->data, data, len);
	f->data[len] = '\0';
	f->len = len;
}

static void
file_rm(struct mac *m, const char *path)
{
	struct mac_file *f = file_of(m, path, 0);

	if (f != NULL) {
		free(f->data);
		memset(f, 0, sizeof(*f));
	}
}

/* 1 when a file is under directory dir; with rm, remove them all. */
static int
under(struct mac *m, const char *dir, int rm)
{
	size_t n = strlen(dir);
	int found = 0;

	for (int i = 0; i < MAC_MAX; i++)
		if (m->files[i].used && strncmp(m->files[i].path, dir, n) == 0 &&
		    m->files[i].path[n] == '/') {
			found = 1;
			if (rm)
				file_rm(m, m->files[i].path);
		}
	return found;
}

static struct mac_svc *
svc_of(struct mac *m, const char *name, int create)
{
	for (int i = 0; i < MAC_MAX; i++)
		if (m->svcs[i].used && strcmp(m->svcs[i].name, name) == 0)
			return &m->svcs[i];
	for (int i = 0; create && i < MAC_MAX; i++)
		if (!m->svcs[i].used) {
			m->svcs[i].used = 1;
			m->svcs[i].enabled = 1;   /* "enabled by default" */
			snprintf(m->svcs[i].name, sizeof(m->svcs[i].name), "%s", name);
			return &m->svcs[i];
		}
	return NULL;
}

/* A fake digest (what shasum prints is not the point here). */
static void
digest(const void *data, size_t len, char *hex)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ ((const unsigned char *)data)[i]) * 1099511628211ULL;
	snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

static char *
say(int *st, int status, const char *fmt, ...)
{
	char *s = malloc(8192);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, 8192, fmt, ap);
	va_end(ap);
	*st = status;
	return s;
}

static char *
mac_networksetup(struct mac *m, const char *c, int *st)
{
	char name[64], port[32];
	struct mac_svc *s;

	/* the location: made and switched to (the LAN's services are the shell's loop) */
	if (strcmp(c, "networksetup -getcurrentlocation") == 0)
		return say(st, 0, "%s\n", m->in_location ? PROV_LOCATION : "Automatic");
	if (strncmp(c, "networksetup -listlocations |", 29) == 0 ||
	    strncmp(c, "networksetup -listlocations | grep", 34) == 0) {
		m->in_location = 1;
		return say(st, 0, "");
	}
	if (strcmp(c, "networksetup -switchtolocation 'Automatic' && networksetup -deletelocation "
	    PROV_LOCATION) == 0 || strncmp(c, "networksetup -deletelocation", 28) == 0) {
		m->in_location = 0;
		return say(st, 0, "");
	}
	if (strcmp(c, "networksetup -listlocations") == 0)
		return say(st, 0, "Automatic\n%s", m->in_location ? PROV_LOCATION "\n" : "");
	if (strcmp(c, "networksetup -listnetworkserviceorder") == 0)
		return say(st, 0, "An asterisk (*) denotes that a network service is disabled.\n"
		    "(%s) Thunderbolt Bridge\n(Hardware Port: Thunderbolt Bridge, Device: bridge0)\n",
		    m->bridge ? "1" : "*");

	if (strcmp(c, "networksetup -listallnetworkservices") == 0) {
		char *o = say(st, 0, "An asterisk (*) denotes that a network service is disabled.\n"
		    "Wi-Fi\n%sThunderbolt Bridge\n", m->bridge ? "" : "*");
		for (int i = 0; i < MAC_MAX; i++)
			if (m->svcs[i].used)
				sprintf(o + strlen(o), "%s%s\n", m->svcs[i].enabled ? "" : "*",
				    m->svcs[i].name);
		return o;
	}
	if (quoted_after(c, "networksetup -", name, sizeof(name)) != 0)
		return say(st, 1, "");
	int bridge = strcmp(name, "Thunderbolt Bridge") == 0;
	s = svc_of(m, name, strncmp(c, "networksetup -createnetworkservice", 34) == 0);
	if (strncmp(c, "networksetup -createnetworkservice", 34) == 0) {
		quoted_after(c + 37 + strlen(name), "'", port, sizeof(port));
		snprintf(s->port, sizeof(s->port), "%s", port);
		return say(st, 0, "");
	}
	if (!bridge && s == NULL)
		return say(st, 0, "%s is not a recognized network service.\n", name);
	if (strstr(c, "-getnetworkserviceenabled") != NULL)
		return say(st, 0, "%s\n", (bridge ? m->bridge : s->enabled) ? "Enabled" : "Disabled");
	if (strstr(c, "-setnetworkserviceenabled") != NULL) {
		int on = strstr(c, "' on") != NULL;
		if (bridge)
			m->bridge = on;
		else
			s->enabled = on;
		return say(st, 0, "");
	}
	if (strstr(c, "-setmanual") != NULL) {
		sscanf(strrchr(c, '\'') + 2, "%15s", s->ip);
		s->manual = strstr(c, " 255.255.255.252") != NULL;
		return say(st, 0, "");
	}
	if (strstr(c, "-setdhcp") != NULL) {
		s->ip[0] = '\0';
		s->manual = 0;
		return say(st, 0, "");
	}
	if (strstr(c, "-getinfo") != NULL)
		return s->manual ? say(st, 0, "Manual Configuration\nIP address: %s\nSubnet mask: "
		    "255.255.255.252\nRouter: (null)\n", s->ip) : say(st, 0, "DHCP Configuration\n");
	if (strstr(c, "-removenetworkservice") != NULL) {
		memset(s, 0, sizeof(*s));
		return say(st, 0, "");
	}
	return say(st, 127, "");
}

static char *
mac_launchctl(struct mac *m, const char *c, int *st)
{
	int agent = strstr(c, "tbagentd") != NULL;
	int *loaded = agent ? &m->loaded_agent : &m->loaded_wired;
	char path[256];

	if (strncmp(c, "launchctl print system/", 23) == 0)
		return *loaded ? say(st, 0, "system/%s = {\n}\n", c + 23) :
		    say(st, 113, "Could not find service\n");
	if (strncmp(c, "launchctl bootout system/", 25) == 0) {
		int was = *loaded;
		*loaded = 0;
		return say(st, was ? 0 : 3, "");
	}
	if (quoted_after(c, "launchctl bootstrap system '", path, sizeof(path)) == 0) {
		if (file_of(m, path, 0) == NULL)
			return say(st, 5, "Bootstrap failed: 5: Input/output error\n");
		*loaded = 1;
		if (agent)   /* the agent starts and enrols: it keeps its node token */
			file_put(m, PROV_AGENT_NODE_TOKEN, "tbm_node", 8);
		return say(st, 0, "");
	}
	return say(st, 127, "");
}

/* A file install: "mkdir -p D && cat > 'P'.tbmesh-new && ... mv -f ...". */
static char *
mac_install(struct mac *m, const char *c, const void *in, size_t inlen, int *st)
{
	char path[256], prev[300];
	struct mac_file *old;

	quoted_after(c, "cat > '", path, sizeof(path));
	if (strstr(c, "cp -p") != NULL && (old = file_of(m, path, 0)) != NULL) {
		snprintf(prev, sizeof(prev), "%s.prev", path);
		file_put(m, prev, old->data, old->len);
	}
	file_put(m, path, in != NULL ? in : "", inlen);
	if (strstr(c, "launchctl bootout system/com.tbmesh.tbagentd") != NULL)
		m->loaded_agent = 0;
	return say(st, 0, "");
}

static char *
mac_files(struct mac *m, const char *c, const void *in, size_t inlen, int *st)
{
	char a[256], b[300];
	struct mac_file *f;

	if (strstr(c, "cat > '") != NULL)
		return mac_install(m, c, in, inlen, st);
	if (strncmp(c, "cat '", 5) == 0) {
		quoted_after(c, "cat '", a, sizeof(a));
		f = file_of(m, a, 0);
		return f != NULL ? say(st, 0, "%s", f->data) :
		    say(st, 1, "cat: %s: No such file or directory\n", a);
	}
	if (strncmp(c, "shasum -a 256 '", 15) == 0) {
		quoted_after(c, "shasum -a 256 '", a, sizeof(a));
		if ((f = file_of(m, a, 0)) == NULL)
			return say(st, 1, "shasum: %s: No such file or directory\n", a);
		digest(f->data, f->len, b);
		return say(st, 0, "%s  %s\n", b, a);
	}
	if (strncmp(c, "test -s '", 9) == 0 && strstr(c, "&&") == NULL) {
		quoted_after(c, "test -s '", a, sizeof(a));
		f = file_of(m, a, 0);
		return say(st, f != NULL && f->len > 0 ? 0 : 1, "");
	}
	if (strncmp(c, "test -e '", 9) == 0) {
		quoted_after(c, "test -e '", a, sizeof(a));
		return say(st, file_of(m, a, 0) != NULL || under(m, a, 0) ? 0 : 1, "");
	}
	if (strncmp(c, "rm -", 4) == 0) {
		quoted_after(c, "'", a, sizeof(a));
		file_rm(m, a);
		if (strncmp(c, "rm -rf", 6) == 0)
			under(m, a, 1);
		snprintf(b, sizeof(b), "%s.prev", a);
		file_rm(m, b);
		return say(st, 0, "");
	}
	if (strncmp(c, "mv -f '", 7) == 0 && strstr(c, ".prev") != NULL) {
		quoted_after(c, ".prev '", a, sizeof(a));
		snprintf(b, sizeof(b), "%s.prev", a);
		f = file_of(m, b, 0);
		file_put(m, a, f->data, f->len);
		file_rm(m, b);
		return say(st, 0, "");
	}
	return say(st, 127, "sh: %s: not understood\n", c);
}

static char *
mac_answer(struct mac *m, const char *c, const void *in, size_t inlen, int *st)
{
	if (m->fail[0] != '\0' && strncmp(c, m->fail, strlen(m->fail)) == 0)
		return say(st, 4, "** Error: The parameters were not valid.\n");
	if (strncmp(c, "{ networksetup -listlocations ", 30) == 0)
		return mac_networksetup(m, c + 2, st);
	/* deprovisioning: back to Automatic (the shell's test), ours deleted */
	if (strncmp(c, "{ [ \"$(networksetup -getcurrentlocation)\"", 41) == 0) {
		m->in_location = 0;
		return say(st, 0, "");
	}
	/* the bridge's service found by its device, turned on */
	if (strncmp(c, "svc=$(networksetup -listnetworkserviceorder", 43) == 0) {
		m->bridge = 1;
		return say(st, 0, "");
	}
	if (strncmp(c, "networksetup ", 13) == 0)
		return mac_networksetup(m, c, st);
	if (strncmp(c, "launchctl ", 10) == 0)
		return mac_launchctl(m, c, st);
	if (strcmp(c, "pmset -g") == 0)
		return say(st, 0, "System-wide power settings:\nCurrently in use:\n"
		    " autorestart          %d\n sleep                %d\n", m->autorestart, m->sleep);
	if (sscanf(c, "pmset -a sleep %d", &m->sleep) == 1 ||
	    sscanf(c, "pmset -a autorestart %d", &m->autorestart) == 1)
		return say(st, 0, "");
	if (strcmp(c, "sysctl -n iogpu.wired_limit_mb") == 0)
		return say(st, 0, "%d\n", m->wired);
	if (sscanf(c, "sysctl iogpu.wired_limit_mb=%d", &m->wired) == 1)
		return say(st, 0, "iogpu.wired_limit_mb: 0 -> %d\n", m->wired);
	return mac_files(m, c, in, inlen, st);
}

/* "sh -s" with a batch on stdin: each "( CMD ) ...; printf RS%d:I RS" line. */
static char *
mac_batch(struct mac *m, const char *script, int *st)
{
	size_t cap = 1 << 16, len = 0;
	char *out = calloc(1, cap);
	const char *l = script;
	int i = 0;

	while (l != NULL && strncmp(l, "( ", 2) == 0) {
		const char *end = strstr(l, " ) </dev/null 2>/dev/null; printf");
		char cmd[PROV_CMD_MAX];
		int cst;

		assert_non_null(end);
		snprintf(cmd, sizeof(cmd), "%.*s", (int)(end - l - 2), l + 2);
		char *o = mac_answer(m, cmd, NULL, 0, &cst);
		if (cst != 0 && strncmp(o, "** Error", 8) == 0)
			o[0] = '\0';   /* that went to stderr */
		len += (size_t)snprintf(out + len, cap - len, "%s\036%d:%d\036", o, cst, i++);
		free(o);
		l = strchr(l, '\n');
		l = l != NULL ? l + 1 : NULL;
	}
	*st = 0;
	return out;
}

static int
mac_run(void *ctx, const char *cmd, const void *in, size_t inlen, int timeout_s,
    struct prov_output *o, char *err, size_t errlen)
{
	struct mac *m = ctx;

	assert_true(timeout_s > 0);
	if (m->ncmds < LOG_MAX)
		m->log[m->ncmds] = strdup(cmd);
	m->ncmds++;
	if (m->drop_at == m->ncmds) {
		snprintf(err, errlen, "connection lost");
		return -1;
	}
	if (strcmp(cmd, "sh -s") == 0 || strcmp(cmd, "sudo -n sh -c 'sh -s'") == 0) {
		char *script = strndup(in, inlen);
		o->out = mac_batch(m, script, &o->status);
		free(script);
		o->err = NULL;
		return 0;
	}
	/* "{ APPLY\n} || exit $?; printf RS RS; CHECK": apply, then (if it worked) check */
	const char *sep = strstr(cmd, "\n} || exit $?; printf '\\036\\036'; ");
	if (strncmp(cmd, "{ ", 2) == 0 && sep != NULL) {
		char *apply = strndup(cmd + 2, (size_t)(sep - cmd - 2));
		int st;
		char *a = mac_answer(m, apply, in, inlen, &st);
		free(apply);
		if (st != 0) {
			o->status = st;
			o->out = strdup("");
			o->err = a;
			return 0;
		}
		char *c = mac_answer(m, strstr(sep, "'; ") + 3, NULL, 0, &o->status);
		o->out = malloc(strlen(a) + strlen(c) + 3);
		sprintf(o->out, "%s\036\036%s", a, c);
		o->err = NULL;
		free(a);
		free(c);
		return 0;
	}
	o->out = mac_answer(m, cmd, in, inlen, &o->status);
	o->err = NULL;
	if (o->status != 0 && o->out[0] != '\0' && strncmp(o->out, "** Error", 8) == 0) {
		o->err = o->out;
		o->out = strdup("");
	}
	return 0;
}

/* Test fixtures: the facts of a Studio with receptacles 1-3, the settings. */
struct fix {
	struct mac mac;
	struct prov_exec ex;
	struct prov_facts facts;
	struct prov_settings set;
	char sha[17];
	struct prov_blob agent;
	struct prov_plan *plan;
	struct prov_result res;
};

static const char AGENT_V1[] = "\177ELF tbagentd 0.1.0";

static int
setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	char err[256];

	mac_fresh(&x->mac);
	x->ex.ctx = &x->mac;
	x->ex.run = mac_run;
	prov_facts_init(&x->facts);
	x->facts.n_ports = 3;
	for (int i = 0; i < 3; i++) {
		snprintf(x->facts.ports[i].receptacle, 8, "%d", i + 1);
		snprintf(x->facts.ports[i].device, 16, "en%d", i + 2);
	}
	x->facts.rdma = 1;
	x->facts.bridge_enabled = 1;
	snprintf(x->facts.bridge_service, sizeof(x->facts.bridge_service), "Thunderbolt Bridge");
	x->agent.data = AGENT_V1;
	x->agent.len = sizeof(AGENT_V1) - 1;
	digest(x->agent.data, x->agent.len, x->sha);
	x->set = (struct prov_settings){ .controller_url = "http://127.0.0.1:9470",
		.agent_sha256 = x->sha, .agent_size = x->agent.len, .wired_limit_mb = 458752,
		.n_addrs = 2, .addrs = { { "2", "192.168.0.1" }, { "3", "192.168.1.2" } } };
	x->plan = prov_plan_build(&x->facts, &x->set, err, sizeof(err));
	assert_non_null(x->plan);
	*state = x;
	return 0;
}

static int
teardown(void **state)
{
	struct fix *x = *state;

	prov_plan_free(x->plan);
	mac_free(&x->mac);
	free(x);
	return 0;
}

static int
count(const struct prov_result *r, enum prov_outcome oc)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->records[i].outcome == oc;
	return n;
}

/* cmd was sent alone, or as the apply of an apply-and-check. */
static int
logged(const struct mac *m, const char *cmd)
{
	size_t n = strlen(cmd);

	for (int i = 0; i < m->ncmds && i < LOG_MAX; i++)
		if (strcmp(m->log[i], cmd) == 0 || (strncmp(m->log[i], "{ ", 2) == 0 &&
		    strncmp(m->log[i] + 2, cmd, n) == 0 && m->log[i][2 + n] == '\n'))
			return 1;
	return 0;
}

static int n_told;

static void
tell(void *ctx, const struct prov_record *rec)
{
	(void)ctx;
	assert_non_null(rec->step[0] != '\0' ? rec : NULL);
	n_told++;
}

static void
test_fresh_then_again(void **state)
{
	struct fix *x = *state;
	struct mac_svc *s;

	n_told = 0;
	x->ex.recorded = tell;

	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok-123", &x->res), 0);
	assert_true(x->res.ok);
	assert_int_equal(n_told, x->res.n);   /* every record was told as it was made */
	/*
	 * each check ran right before its step's apply, so it sees what the
	 * steps before did: a new network service is enabled already (macOS
	 * creates it so), every other step applied
	 */
	assert_int_equal(count(&x->res, PROV_APPLIED), x->plan->n - 2);
	assert_int_equal(count(&x->res, PROV_DONE_ALREADY), 2);
	for (int i = 0; i < x->res.n; i++)
		if (x->res.records[i].outcome == PROV_DONE_ALREADY)
			assert_non_null(strstr(x->res.records[i].step, "port-enabled-"));
	assert_string_equal(x->mac.log[0], x->plan->steps[0].check);
	assert_string_equal(x->mac.log[2], x->plan->steps[1].check);
	/* the Mac is provisioned */
	assert_int_equal(x->mac.bridge, 0);
	assert_int_equal(x->mac.sleep, 0);
	assert_int_equal(x->mac.autorestart, 1);
	assert_int_equal(x->mac.wired, 458752);
	assert_true(x->mac.loaded_agent && x->mac.loaded_wired);
	s = svc_of(&x->mac, "tbmesh Thunderbolt 3", 0);
	assert_non_null(s);
	assert_string_equal(s->port, "Thunderbolt 3");
	assert_string_equal(s->ip, "192.168.1.2");
	assert_true(s->enabled && s->manual);
	assert_string_equal(file_of(&x->mac, PROV_AGENT_BOOTSTRAP, 0)->data, "tok-123");
	assert_memory_equal(file_of(&x->mac, PROV_AGENT_BIN, 0)->data, AGENT_V1, x->agent.len);
	assert_true(logged(&x->mac, "pmset -a sleep 0"));
	assert_true(logged(&x->mac, "pmset -a autorestart 1"));
	/* a second run: every check passes, nothing is applied */
	mac_clear_log(&x->mac);
	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok-456", &x->res), 0);
	assert_int_equal(count(&x->res, PROV_DONE_ALREADY), x->plan->n);
	assert_int_equal(x->mac.ncmds, x->plan->n);   /* every check, nothing else */
	for (int i = 0; i < x->plan->n; i++)
		assert_string_equal(x->mac.log[i], x->plan->steps[i].check);
	assert_string_equal(file_of(&x->mac, PROV_AGENT_BOOTSTRAP, 0)->data, "tok-123");
	/* an agent that never enrolled gets a fresh token on the next run */
	file_rm(&x->mac, PROV_AGENT_NODE_TOKEN);
	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok-789", &x->res), 0);
	assert_int_equal(count(&x->res, PROV_APPLIED), 1);
	assert_string_equal(file_of(&x->mac, PROV_AGENT_BOOTSTRAP, 0)->data, "tok-789");
}

static void
test_upgrade_in_place(void **state)
{
	struct fix *x = *state;
	static const char v2[] = "\177ELF tbagentd 0.2.0";
	struct prov_blob agent2 = { v2, sizeof(v2) - 1 };
	char sha2[17], err[128];
	struct prov_plan *p2;

	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok", &x->res), 0);
	digest(v2, agent2.len, sha2);
	x->set.agent_sha256 = sha2;
	p2 = prov_plan_build(&x->facts, &x->set, err, sizeof(err));
	assert_int_equal(prov_run(&x->ex, p2, 0, 30, &agent2, "tok", &x->res), 0);
	assert_int_equal(count(&x->res, PROV_APPLIED), 1);
	for (int i = 0; i < x->res.n; i++)
		if (x->res.records[i].outcome == PROV_APPLIED)
			assert_string_equal(x->res.records[i].step, "agent-binary");
	assert_memory_equal(file_of(&x->mac, PROV_AGENT_BIN, 0)->data, v2, agent2.len);
	assert_true(x->mac.loaded_agent);
	prov_plan_free(p2);
}

static void
test_dry_run(void **state)
{
	struct fix *x = *state;

	assert_int_equal(prov_run(&x->ex, x->plan, 1, 30, &x->agent, NULL, &x->res), 0);
	assert_int_equal(count(&x->res, PROV_WOULD_APPLY), x->plan->n);
	assert_int_equal(x->mac.ncmds, x->plan->n);   /* only the checks ran */
	for (int i = 0; i < x->res.n; i++)
		assert_string_equal(x->res.records[i].command, x->plan->steps[i].apply);
	assert_int_equal(x->mac.bridge, 1);
	assert_int_equal(x->mac.sleep, 1);
	assert_null(file_of(&x->mac, PROV_AGENT_BIN, 0));
}

static void
test_failure_undoes(void **state)
{
	struct fix *x = *state;
	static const char *undone[] = { "port-service-3", "port-ip-2",
		"port-service-2", "location", "wired-limit-now", "wired-limit-daemon",
		"wired-limit-plist", "pmset-autorestart", "pmset-sleep", "bridge-off" };
	int first_undo = -1;

	x->mac.sleep = 10;
	snprintf(x->mac.fail, sizeof(x->mac.fail), "networksetup -setmanual 'tbmesh Thunderbolt 3'");
	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok", &x->res), -1);
	assert_false(x->res.ok);
	assert_string_equal(x->res.failed_step, "port-ip-3");
	assert_string_equal(x->res.reason, "exit status 4: ** Error: The parameters were not valid.");
	for (int i = 0; i < x->res.n; i++)
		if (x->res.records[i].outcome == PROV_FAILED)
			first_undo = i + 1;
	assert_int_equal(x->res.n - first_undo, 10);
	for (int i = 0; i < 10; i++) {
		assert_string_equal(x->res.records[first_undo + i].step, undone[i]);
		assert_int_equal(x->res.records[first_undo + i].outcome, PROV_UNDONE);
	}
	assert_true(logged(&x->mac, "pmset -a sleep 10"));
	assert_true(logged(&x->mac, "pmset -a autorestart 0"));
	assert_true(logged(&x->mac, "sysctl iogpu.wired_limit_mb=0"));
	/* the Mac is as it was */
	assert_int_equal(x->mac.bridge, 1);
	assert_int_equal(x->mac.sleep, 10);
	assert_int_equal(x->mac.autorestart, 0);
	assert_int_equal(x->mac.wired, 0);
	assert_false(x->mac.loaded_wired);
	for (int i = 0; i < MAC_MAX; i++) {
		assert_false(x->mac.svcs[i].used);
		assert_false(x->mac.files[i].used);
	}
	/* the agent's steps never ran */
	assert_null(file_of(&x->mac, PROV_AGENT_BIN, 0));
}

static void
test_transport_lost(void **state)
{
	struct fix *x = *state;

	x->mac.drop_at = 3;   /* the checks, bridge-off, then pmset-sleep is lost */
	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok", &x->res), -1);
	assert_string_equal(x->res.failed_step, "pmset-sleep");
	assert_int_equal(x->mac.bridge, 1);   /* bridge-off was undone */
	assert_non_null(strstr(x->res.reason, "connection lost"));
}

static void
test_missing_token(void **state)
{
	struct fix *x = *state;

	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, NULL, &x->res), -1);
	assert_string_equal(x->res.failed_step, "agent-token");
	assert_string_equal(x->res.reason, "no bootstrap token given");
	/* the agent's binary and config were undone: a fresh Mac has neither */
	assert_null(file_of(&x->mac, PROV_AGENT_BIN, 0));
	assert_null(file_of(&x->mac, PROV_AGENT_CONF, 0));
}

/* Deprovisioning after provisioning removes what tbmesh installed. */
static void
test_deprovision(void **state)
{
	struct fix *x = *state;
	struct prov_plan *d;

	assert_int_equal(prov_run(&x->ex, x->plan, 0, 30, &x->agent, "tok", &x->res), 0);
	d = prov_deprov_build(&x->facts, "", 0, 0);
	assert_int_equal(prov_run(&x->ex, d, 0, 30, NULL, NULL, &x->res), 0);
	assert_false(x->mac.loaded_agent);
	assert_false(x->mac.loaded_wired);
	for (int i = 0; i < MAC_MAX; i++)
		assert_false(x->mac.files[i].used);
	assert_non_null(svc_of(&x->mac, "tbmesh Thunderbolt 2", 0));   /* network left */
	assert_int_equal(x->mac.bridge, 0);
	prov_plan_free(d);
	d = prov_deprov_build(&x->facts, "", 0, 1);
	assert_int_equal(prov_run(&x->ex, d, 0, 30, NULL, NULL, &x->res), 0);
	assert_null(svc_of(&x->mac, "tbmesh Thunderbolt 2", 0));
	assert_int_equal(x->mac.bridge, 1);
	/* and again: nothing left to do */
	assert_int_equal(prov_run(&x->ex, d, 0, 30, NULL, NULL, &x->res), 0);
	assert_int_equal(count(&x->res, PROV_DONE_ALREADY), d->n);
	prov_plan_free(d);
}

/*
 * Under sudo: the commands as the plan wrote them, and the Mac they reach
 * (mac_run) after "sudo -n " is taken off and "sudo -n tee F >/dev/null"
 * is read as "cat > F" again.
 */
static char *sent[LOG_MAX];
static int n_sent;

static void
replace_all(char *s, const char *from, const char *to)
{
	char *p;
	size_t lf = strlen(from), lt = strlen(to);

	while ((p = strstr(s, from)) != NULL) {
		memmove(p + lt, p + lf, strlen(p + lf) + 1);
		memcpy(p, to, lt);
	}
}

static int
sudo_run(void *ctx, const char *cmd, const void *in, size_t inlen, int timeout_s,
    struct prov_output *o, char *err, size_t errlen)
{
	char plain[PROV_CMD_MAX * 3];

	if (n_sent < LOG_MAX)
		sent[n_sent++] = strdup(cmd);
	snprintf(plain, sizeof(plain), "%s", cmd);
	replace_all(plain, "sudo -n tee ", "cat > ");
	replace_all(plain, ".tbmesh-new >/dev/null", ".tbmesh-new");
	replace_all(plain, "sudo -n ", "");
	return mac_run(ctx, plain, in, inlen, timeout_s, o, err, errlen);
}

/* Every word of cmd that changes a Mac comes right after "sudo -n ". */
static int
all_under_sudo(const char *cmd)
{
	static const char *const changing[] = { "networksetup -set", "networksetup -create",
		"networksetup -remove", "pmset -a", "sysctl iogpu", "launchctl bootstrap",
		"launchctl bootout", "launchctl kickstart", "mkdir ", "tee ", "chown ", "chmod ",
		"mv ", "rm ", "cp ", "cat >" };

	for (size_t k = 0; k < sizeof(changing) / sizeof(changing[0]); k++)
		for (const char *p = strstr(cmd, changing[k]); p != NULL;
		    p = strstr(p + 1, changing[k]))
			if (p - cmd < 8 || strncmp(p - 8, "sudo -n ", 8) != 0)
				return 0;
	return 1;
}

static void
test_sudo(void **state)
{
	struct fix *x = *state;
	struct prov_exec ex = { &x->mac, sudo_run, NULL };
	struct prov_plan *p, *d;
	char err[128];

	x->set.sudo = 1;
	p = prov_plan_build(&x->facts, &x->set, err, sizeof(err));
	assert_non_null(p);
	n_sent = 0;
	assert_int_equal(prov_run(&ex, p, 0, 30, &x->agent, "tok", &x->res), 0);
	assert_int_equal(count(&x->res, PROV_APPLIED), p->n - 2);
	assert_int_equal(x->mac.bridge, 0);
	assert_int_equal(x->mac.wired, 458752);
	assert_true(x->mac.loaded_agent && x->mac.loaded_wired);
	assert_string_equal(file_of(&x->mac, PROV_AGENT_BOOTSTRAP, 0)->data, "tok");
	for (int i = 0; i < n_sent; i++) {
		if (!all_under_sudo(sent[i]))
			fail_msg("not under sudo: %s", sent[i]);
		/* the checks read as the login user, but the agent's 0700 state */
		if (strncmp(sent[i], "{ ", 2) != 0 && strstr(sent[i], "tbagentd/") == NULL)
			assert_null(strstr(sent[i], "sudo"));
	}
	assert_string_equal(sent[0], "networksetup -getnetworkserviceenabled 'Thunderbolt Bridge'");
	/* a failure's undo goes through sudo too; then deprovisioning */
	d = prov_deprov_build(&x->facts, "", 1, 1);
	assert_int_equal(prov_run(&ex, d, 0, 30, NULL, NULL, &x->res), 0);
	assert_false(x->mac.loaded_agent);
	assert_int_equal(x->mac.bridge, 1);
	for (int i = 0; i < n_sent; i++) {
		if (!all_under_sudo(sent[i]))
			fail_msg("not under sudo: %s", sent[i]);
		free(sent[i]);
	}
	prov_plan_free(d);
	prov_plan_free(p);
}

/* A MacBook's pmset -g has no autorestart: that step is not applicable. */
static void
test_not_applicable(void **state)
{
	struct fix *x = *state;
	const struct prov_step *st = NULL;

	for (int i = 0; i < x->plan->n; i++)
		if (strcmp(x->plan->steps[i].id, "pmset-autorestart") == 0)
			st = &x->plan->steps[i];
	assert_non_null(st);
	assert_true(prov_step_not_applicable(st, " sleep                1\n displaysleep 10\n", 0));
	assert_false(prov_step_not_applicable(st, " sleep 1\n autorestart          0\n", 0));
	assert_false(prov_step_not_applicable(st, "", 1));
	assert_false(prov_step_not_applicable(&x->plan->steps[0], "Enabled\n", 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_then_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_undoes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transport_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deprovision, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sudo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_applicable, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
