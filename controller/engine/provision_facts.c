/*
 * provision_facts: the survey's commands, the parsers of what they print
 * into struct prov_facts, and the preflight verdicts over those facts.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macos_json.h"
#include "provision.h"
#include "report.h"

static const struct {
	const char *name;
	const char *cmd;
} survey[PROV_F_COUNT] = {
	[PROV_F_SW_VERS] = { "sw_vers", "sw_vers" },
	[PROV_F_CPU] = { "cpu", "sysctl -n machdep.cpu.brand_string" },
	[PROV_F_THUNDERBOLT] = { "thunderbolt", "system_profiler SPThunderboltDataType -json" },
	[PROV_F_HWPORTS] = { "hardware ports", "networksetup -listallhardwareports" },
	[PROV_F_DF] = { "disk", "df -k /" },
	[PROV_F_RDMA] = { "rdma_ctl", "rdma_ctl status" },
	/* the bridge by its device, not by a name that the Mac's language sets */
	[PROV_F_BRIDGE] = { "bridge", "networksetup -listnetworkserviceorder" },
	[PROV_F_PMSET] = { "pmset", "pmset -g" },
	[PROV_F_WIRED] = { "wired limit", "sysctl -n iogpu.wired_limit_mb" },
	[PROV_F_HOSTNAME] = { "hostname", "hostname" },
	[PROV_F_UID] = { "uid", "id -u" },
	[PROV_F_USER] = { "user", "id -un" },
	/* what sudo says when it will not (a password is required) is the reason */
	[PROV_F_SUDO] = { "sudo", "sudo -n true 2>&1" },
};

const char *
prov_survey_cmd(enum prov_fact f)
{
	return (unsigned)f < PROV_F_COUNT ? survey[f].cmd : NULL;
}

const char *
prov_fact_name(enum prov_fact f)
{
	return (unsigned)f < PROV_F_COUNT ? survey[f].name : "?";
}

void
prov_facts_init(struct prov_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->os_major = f->os_minor = f->os_patch = -1;
	f->n_ports = -1;
	f->n_tb5 = -1;
	f->free_kb = -1;
	f->rdma = -1;
	f->bridge_enabled = -1;
	f->sleep_min = -1;
	f->autorestart = -1;
	f->wired_limit_mb = -1;
	f->uid = -1;
	f->sudo_ok = -1;
}

int
prov_line_value(const char *text, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *l = text; l != NULL && *l != '\0'; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl != NULL ? (size_t)(nl - l) : strlen(l);

		if (len > klen && strncmp(l, key, klen) == 0 && l[klen] == ':') {
			const char *v = l + klen + 1;
			const char *end = l + len;

			while (v < end && isspace((unsigned char)*v))
				v++;
			while (end > v && isspace((unsigned char)end[-1]))
				end--;
			if ((size_t)(end - v) >= size || end == v)
				return -1;
			memcpy(buf, v, (size_t)(end - v));
			buf[end - v] = '\0';
			return 0;
		}
		l = nl != NULL ? nl + 1 : NULL;
	}
	return -1;
}

/* The whole output, trimmed, into buf; -1 when empty or too long. */
static int
trimmed(const char *out, char *buf, size_t size)
{
	const char *end;

	while (isspace((unsigned char)*out))
		out++;
	end = out + strlen(out);
	while (end > out && isspace((unsigned char)end[-1]))
		end--;
	if (end == out || (size_t)(end - out) >= size)
		return -1;
	memcpy(buf, out, (size_t)(end - out));
	buf[end - out] = '\0';
	return 0;
}

static int
parse_sw_vers(struct prov_facts *f, const char *out, char *err, size_t errlen)
{
	char v[32], b[32];
	int maj = -1, min = 0, patch = 0, n = 0;

	if (prov_line_value(out, "ProductVersion", v, sizeof(v)) != 0 ||
	    prov_line_value(out, "BuildVersion", b, sizeof(b)) != 0) {
		snprintf(err, errlen, "no ProductVersion/BuildVersion line");
		return -1;
	}
	if (sscanf(v, "%d%n.%d%n.%d%n", &maj, &n, &min, &n, &patch, &n) < 1 ||
	    v[n] != '\0' || maj < 0) {
		snprintf(err, errlen, "ProductVersion \"%s\" is not a version", v);
		return -1;
	}
	f->os_major = maj;
	f->os_minor = min;
	f->os_patch = patch;
	snprintf(f->os_version, sizeof(f->os_version), "%s", v);
	snprintf(f->os_build, sizeof(f->os_build), "%s", b);
	return 0;
}

/* The port of f with this receptacle, added when absent; NULL when full. */
static struct prov_port *
port_of(struct prov_facts *f, const char *receptacle)
{
	if (f->n_ports < 0)
		f->n_ports = 0;
	for (int i = 0; i < f->n_ports; i++)
		if (strcmp(f->ports[i].receptacle, receptacle) == 0)
			return &f->ports[i];
	if (f->n_ports == PROV_PORTS_MAX || strlen(receptacle) >= sizeof(f->ports[0].receptacle))
		return NULL;
	struct prov_port *p = &f->ports[f->n_ports++];
	memset(p, 0, sizeof(*p));
	snprintf(p->receptacle, sizeof(p->receptacle), "%s", receptacle);
	return p;
}

/* How many times needle occurs in text. */
static int
count_of(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

static int
parse_thunderbolt(struct prov_facts *f, const char *out, char *err, size_t errlen)
{
	struct report_thunderbolt *t = calloc(1, sizeof(*t));
	int tb5;

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->n_ports = -1;
	if (macos_parse_thunderbolt(out, strlen(out), t, err, errlen) != 0 && t->n_ports < 0) {
		free(t);
		return -1;
	}
	tb5 = count_of(out, "\"Up to 120 Gb/s\"");
	for (int i = 0; i < t->n_ports; i++) {
		if (port_of(f, t->ports[i].receptacle) == NULL)
			break;
		if (!isnan(t->ports[i].speed_gbps) && t->ports[i].speed_gbps >= 80)
			tb5++;
	}
	f->n_tb5 = tb5;
	free(t);
	return 0;
}

static int
parse_hwports(struct prov_facts *f, const char *out, char *err, size_t errlen)
{
	const char *key = "Hardware Port: Thunderbolt ";
	int found = 0;

	for (const char *p = strstr(out, key); p != NULL; p = strstr(p + 1, key)) {
		char rec[8], dev[16];
		const char *d = p + strlen(key);
		size_t n = strspn(d, "0123456789");

		if (n == 0 || n >= sizeof(rec) || d[n] != '\n')
			continue;   /* "Thunderbolt Bridge" */
		memcpy(rec, d, n);
		rec[n] = '\0';
		if (sscanf(d + n + 1, "Device: %15[a-z0-9]", dev) != 1)
			continue;
		struct prov_port *pp = port_of(f, rec);
		if (pp == NULL)
			break;
		snprintf(pp->device, sizeof(pp->device), "%s", dev);
		found++;
	}
	if (found == 0) {
		snprintf(err, errlen, "no \"Hardware Port: Thunderbolt N\" entry");
		return -1;
	}
	return 0;
}

static int
parse_df(struct prov_facts *f, const char *out, char *err, size_t errlen)
{
	const char *l2 = strchr(out, '\n');
	char fs[256];
	long long blocks, used, avail;

	if (l2 == NULL || sscanf(l2 + 1, "%255s %lld %lld %lld", fs, &blocks, &used, &avail) != 4 ||
	    avail < 0) {
		snprintf(err, errlen, "no \"FILESYSTEM BLOCKS USED AVAIL\" line");
		return -1;
	}
	f->free_kb = avail;
	return 0;
}

int
prov_pmset_value(const char *out, const char *key, int *v)
{
	size_t klen = strlen(key);

	for (const char *l = out; l != NULL && *l != '\0'; ) {
		const char *s = l;

		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, key, klen) == 0 && (s[klen] == ' ' || s[klen] == '\t')) {
			char *end;
			long n = strtol(s + klen, &end, 10);

			if (end != s + klen && n >= 0 && n < 100000) {
				*v = (int)n;
				return 0;
			}
		}
		l = strchr(l, '\n');
		if (l != NULL)
			l++;
	}
	return -1;
}

/*
 * `networksetup -listnetworkserviceorder`: each service as "(N) NAME", or
 * "(*) NAME" when it is disabled, then "(Hardware Port: PORT, Device:
 * DEV)" (the form exo reads to find the bridge's service by its device,
 * exo-explore/exo app/EXO/EXO/Services/NetworkSetupHelper.swift lines
 * 271-274 at b5375f8).  The service on bridge0: its name and whether it is
 * enabled; none is "off".
 */
int
prov_bridge_service(const char *out, char *name, size_t size, int *enabled)
{
	char cur[64] = "";
	int en = 0, services = 0;

	name[0] = '\0';
	*enabled = 0;
	for (const char *l = out; l != NULL && *l != '\0'; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl != NULL ? (size_t)(nl - l) : strlen(l);
		const char *close = memchr(l, ')', len);
		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
		    l);
		if (len > 3 && l[0] == '(' && close != NULL && close + 1 < l + len &&
		    close[1] == ' ' && strncmp(l, "(Hardware Port:", 15) != 0) {
			size_t n = (size_t)(l + len - (close + 2));

			services++;
			en = l[1] != '*';
			snprintf(cur, sizeof(cur), "%.*s", (int)(n < sizeof(cur) ? n : sizeof(cur) - 1),
			    close + 2);
		} else if (strstr(line, "Device: " PROV_BRIDGE_DEVICE ")") != NULL && cur[0] != '\0') {
			snprintf(name, size, "%s", cur);
			*enabled = en;
			return 0;
		}
		l = nl != NULL ? nl + 1 : NULL;
	}
	return services == 0 && strstr(out, "An asterisk") == NULL ? -1 : 0;
}

/*
 * `networksetup -listnetworkserviceorder`: each service as "(N) NAME", or
 * "(*) NAME" when it is disabled, then "(Hardware Port: PORT, Device:
 * DEV)" (the form exo reads to find the bridge's service by its device,
 * exo-explore/exo app/EXO/EXO/Services/NetworkSetupHelper.swift lines
 * 271-274 at b5375f8).  The service on bridge0: its name and whether it is
 * enabled; none is "off".
 */
static int
parse_service_order(struct prov_facts *f, const char *out, char *err, size_t errlen)
{
	if (prov_bridge_service(out, f->bridge_service, sizeof(f->bridge_service),
	    &f->bridge_enabled) != 0) {
		snprintf(err, errlen, "no network service listed");
		f->bridge_enabled = -1;
		return -1;
	}
	return 0;
}

static int
parse_small(struct prov_facts *f, enum prov_fact fact, const char *out, char *err,
    size_t errlen)
{
	char w[64];

	if (trimmed(out, w, sizeof(w)) != 0) {
		snprintf(err, errlen, "empty or too long output");
		return -1;
	}
	switch (fact) {
	case PROV_F_CPU:
		snprintf(f->cpu, sizeof(f->cpu), "%s", w);
		return 0;
	case PROV_F_HOSTNAME:
		snprintf(f->hostname, sizeof(f->hostname), "%s", w);
		return 0;
	case PROV_F_USER:
		snprintf(f->user, sizeof(f->user), "%s", w);
		return 0;
	case PROV_F_RDMA:
		if (strcmp(w, "enabled") == 0 || strcmp(w, "disabled") == 0) {
			f->rdma = w[0] == 'e';
			return 0;
		}
		snprintf(err, errlen, "\"%.40s\" is neither enabled nor disabled", w);
		return -1;
	default: {
		char *end;
		long n = strtol(w, &end, 10);

		if (*end != '\0' || n < 0 || n > INT32_MAX) {
			snprintf(err, errlen, "\"%.40s\" is not a number", w);
			return -1;
		}
		if (fact == PROV_F_UID)
			f->uid = (int)n;
		else
			f->wired_limit_mb = (int)n;
		return 0;
	}
	}
}

int
prov_facts_parse(struct prov_facts *f, enum prov_fact fact, const char *out, int status)
{
	char *err;
	size_t errlen;
	int rc;

	if ((unsigned)fact >= PROV_F_COUNT)
		return -1;
	err = f->errors[fact];
	errlen = sizeof(f->errors[fact]);
	err[0] = '\0';

	if (fact == PROV_F_SUDO) {
		size_t len = strcspn(out, "\n");

		f->sudo_ok = status == 0;
		snprintf(f->sudo_said, sizeof(f->sudo_said), "%.*s", (int)(len > 200 ? 200 : len),
		    out);
		return 0;
	}
	if (status != 0) {
		snprintf(err, errlen, "%s exited with status %d", survey[fact].cmd, status);
		return -1;
	}
	switch (fact) {
	case PROV_F_SW_VERS: rc = parse_sw_vers(f, out, err, errlen); break;
	case PROV_F_THUNDERBOLT: rc = parse_thunderbolt(f, out, err, errlen); break;
	case PROV_F_HWPORTS: rc = parse_hwports(f, out, err, errlen); break;
	case PROV_F_DF: rc = parse_df(f, out, err, errlen); break;
	case PROV_F_BRIDGE: rc = parse_service_order(f, out, err, errlen); break;
	case PROV_F_PMSET:
		rc = prov_pmset_value(out, "sleep", &f->sleep_min) == 0 &&
		    prov_pmset_value(out, "autorestart", &f->autorestart) == 0 ? 0 : -1;
		if (rc != 0)
			snprintf(err, errlen, "no \"sleep\" and \"autorestart\" settings");
		break;
	default: rc = parse_small(f, fact, out, err, errlen); break;
	}
	return rc;
}

const char *
prov_verdict_name(enum prov_verdict v)
{
	return v == PROV_PASS ? "pass" : v == PROV_WARN ? "warn" : "FAIL";
}

static void
add_line(struct prov_preflight *p, const char *what, enum prov_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add_line(struct prov_preflight *p, const char *what, enum prov_verdict v, const char *fmt, ...)
{
	struct prov_check_line *l;
	va_list ap;

	if (p->n == (int)(sizeof(p->lines) / sizeof(p->lines[0])))
		return;
	l = &p->lines[p->n++];
	snprintf(l->what, sizeof(l->what), "%s", what);
	l->verdict = v;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
	if (v == PROV_FAIL)
		p->failed++;
}

static void
check_macos(const struct prov_facts *f, struct prov_preflight *p)
{
	if (f->os_major < 0)
		add_line(p, "macOS", PROV_FAIL, "macOS version unknown: %s", f->errors[PROV_F_SW_VERS]);
	else if (f->os_major > PROV_MIN_MACOS_MAJOR || (f->os_major == PROV_MIN_MACOS_MAJOR &&
	    f->os_minor >= PROV_MIN_MACOS_MINOR))
		add_line(p, "macOS", PROV_PASS, "macOS %s (%s): %d.%d or later", f->os_version,
		    f->os_build, PROV_MIN_MACOS_MAJOR, PROV_MIN_MACOS_MINOR);
	else
		add_line(p, "macOS", PROV_FAIL,
		    "macOS %s (%s): RDMA over Thunderbolt needs %d.%d or later; update macOS first",
		    f->os_version, f->os_build, PROV_MIN_MACOS_MAJOR, PROV_MIN_MACOS_MINOR);
}

static void
check_chip(const struct prov_facts *f, struct prov_preflight *p)
{
	if (f->cpu[0] == '\0')
		add_line(p, "chip", PROV_FAIL, "chip unknown: %s", f->errors[PROV_F_CPU]);
	else if (strncmp(f->cpu, "Apple ", 6) == 0)
		add_line(p, "chip", PROV_PASS, "chip %s: Apple silicon", f->cpu);
	else
		add_line(p, "chip", PROV_FAIL, "chip %s: not Apple silicon", f->cpu);
}

static void
check_tb5(const struct prov_facts *f, struct prov_preflight *p)
{
	if (f->n_ports < 0 || f->n_tb5 < 0)
		add_line(p, "thunderbolt5", PROV_FAIL, "Thunderbolt ports unknown: %s",
		    f->errors[PROV_F_THUNDERBOLT]);
	else if (f->n_tb5 == 0)
		add_line(p, "thunderbolt5", PROV_FAIL,
		    "Thunderbolt 5: none of %d Thunderbolt ports is Thunderbolt 5 (120 Gb/s)",
		    f->n_ports);
	else
		add_line(p, "thunderbolt5", PROV_PASS, "Thunderbolt 5: %d of %d ports", f->n_tb5,
		    f->n_ports);
}

static void
check_disk(const struct prov_facts *f, int64_t min_kb, struct prov_preflight *p)
{
	double gb = (double)f->free_kb / (1024.0 * 1024.0);

	if (f->free_kb < 0)
		add_line(p, "disk", PROV_FAIL, "free disk unknown: %s", f->errors[PROV_F_DF]);
	else if (f->free_kb < min_kb)
		add_line(p, "disk", PROV_FAIL, "free disk: %.1f GiB on /, %.1f GiB needed", gb,
		    (double)min_kb / (1024.0 * 1024.0));
	else
		add_line(p, "disk", PROV_PASS, "free disk: %.1f GiB on /", gb);
}

static void
check_rdma_bridge(const struct prov_facts *f, struct prov_preflight *p)
{
	if (f->rdma < 0)
		add_line(p, "rdma", PROV_FAIL, "rdma_ctl status unknown: %s", f->errors[PROV_F_RDMA]);
	else if (f->rdma == 1)
		add_line(p, "rdma", PROV_PASS, "RDMA: enabled");
	else
		add_line(p, "rdma", PROV_WARN, "RDMA: disabled; manual step at the end: %s",
		    PROV_RDMA_MANUAL);
	p->rdma_manual = f->rdma == 0;
	if (f->bridge_enabled < 0)
		add_line(p, "bridge", PROV_FAIL, "Thunderbolt Bridge state unknown: %s",
		    f->errors[PROV_F_BRIDGE]);
	else if (f->bridge_enabled)
		add_line(p, "bridge", PROV_WARN, "Thunderbolt Bridge (\"%s\" on " PROV_BRIDGE_DEVICE
		    "): enabled (it loops a mesh); provisioning turns it off", f->bridge_service);
	else
		add_line(p, "bridge", PROV_PASS, "Thunderbolt Bridge: off");
}

int
prov_needs_sudo(const struct prov_facts *f)
{
	return f->uid != 0;
}

void
prov_preflight_root(const struct prov_facts *f, struct prov_check_line *l)
{
	const char *u = f->user[0] != '\0' ? f->user : "the login user";

	memset(l, 0, sizeof(*l));
	snprintf(l->what, sizeof(l->what), "root");
	if (f->uid == 0) {
		l->verdict = PROV_PASS;
		snprintf(l->text, sizeof(l->text), "logged in as root: no sudo needed");
	} else if (f->uid > 0 && f->sudo_ok == 1) {
		l->verdict = PROV_PASS;
		snprintf(l->text, sizeof(l->text), "%.60s runs what needs root with sudo -n (no "
		    "password)", u);
	} else if (f->uid < 0) {
		l->verdict = PROV_FAIL;
		snprintf(l->text, sizeof(l->text), "the login user is unknown: %.150s",
		    f->errors[PROV_F_UID]);
	} else {
		l->verdict = PROV_FAIL;
		snprintf(l->text, sizeof(l->text), "%.24s cannot run commands as root without a "
		    "password (sudo -n true: %.30s): install what `tbctl node add --print-sudoers "
		    "--user %.24s` prints as /etc/sudoers.d/tbmesh",
		    u, f->sudo_said[0] != '\0' ? f->sudo_said : "failed", u);
	}
}

static void
check_root(const struct prov_facts *f, struct prov_preflight *p)
{
	struct prov_check_line l;

	prov_preflight_root(f, &l);
	add_line(p, l.what, l.verdict, "%s", l.text);
}

void
prov_preflight(const struct prov_facts *f, int64_t min_free_kb, struct prov_preflight *p)
{
	memset(p, 0, sizeof(*p));
	check_root(f, p);
	check_macos(f, p);
	check_chip(f, p);
	check_tb5(f, p);
	check_disk(f, min_free_kb > 0 ? min_free_kb : PROV_MIN_FREE_KB, p);
	check_rdma_bridge(f, p);
}
