/*
 * Text parsers for the darwin collector: networksetup, ifconfig, rdma_ctl,
 * ibv_devices, ibv_devinfo, vm_stat, memory_pressure, sysctl, sw_vers,
 * hostname and powermetrics.  See darwin_parse.h for the contracts and
 * tests/fixtures/macos/ for what the commands print; darwin_join.c puts
 * the parsed pieces into the report.
 *
 * Everything reads the text a line at a time into a fixed buffer; a line
 * too long for it is seen as empty, which no parser takes for data.
 */
#include "darwin_parse.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DP_LINE_MAX 1024

static void perr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
perr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Copy the line at *p into buf (without its line end) and move *p past it.
 * Returns 0 at the end of the text.  A last line without its newline was
 * cut short ("en3" of "en31"): it is not returned.
 */
static int
next_line(const char **p, char *buf, size_t n)
{
	const char *s = *p, *nl;
	size_t len;

	if (s == NULL || (nl = strchr(s, '\n')) == NULL)
		return 0;
	len = (size_t)(nl - s);
	*p = nl + 1;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (len >= n)
		len = 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 1;
}

/* Strip blanks at both ends, in place; returns the first non-blank. */
static char *
trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Shared with darwin_join.c, as is darwin_valid_ifname(). */
const char *
darwin_skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* A count of at most 18 digits, nothing else. */
static int
parse_count(const char *s, int64_t *v)
{
	int64_t x = 0;
	size_t n = 0;

	for (; isdigit((unsigned char)s[n]); n++) {
		if (n == 18)
			return -1;
		x = x * 10 + (s[n] - '0');
	}
	if (n == 0 || s[n] != '\0')
		return -1;
	*v = x;
	return 0;
}

/* Leading digits of s (at most 18) into *v; *end past them. */
static int
parse_digits(const char *s, int64_t *v, const char **end)
{
	char buf[20];
	size_t n = 0;

	while (isdigit((unsigned char)s[n]) && n < sizeof(buf) - 1) {
		buf[n] = s[n];
		n++;
	}
	buf[n] = '\0';
	if (n == 0 || isdigit((unsigned char)s[n]) || parse_count(buf, v) == -1)
		return -1;
	*end = s + n;
	return 0;
}

/* A plain decimal ("2048.00"): no sign, exponent or "inf"; *end past it. */
static int
parse_decimal(const char *s, double *v, const char **end)
{
	const char *p = s;
	char buf[32];
	size_t n;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return -1;
	if (*p == '.') {
		const char *frac = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == frac)
			return -1;
	}
	n = (size_t)(p - s);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	*end = p;
	return 0;
}

int
darwin_valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= DARWIN_IFNAME_MAX || !islower((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* An RDMA device or similar identifier: letters, digits, '_', '-', '.'. */
static int
valid_devname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= DARWIN_DEVNAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("_-.", s[i]) == NULL)
			return 0;
	return 1;
}

static int
valid_ipv4(const char *s)
{
	struct in_addr a;

	return strlen(s) < sizeof(report_ipv4) && inet_pton(AF_INET, s, &a) == 1;
}

/*
 * networksetup -listallhardwareports
 */

/* "Thunderbolt 2" -> "2"; NULL for other ports (and "Thunderbolt Bridge"). */
static const char *
tb_receptacle(const char *port)
{
	const char *n = darwin_skip_prefix(port, "Thunderbolt ");
	size_t len;

	if (n == NULL)
		return NULL;
	len = strlen(n);
	if (len == 0 || len > 3 || strspn(n, "0123456789") != len)
		return NULL;
	return n;
}

int
darwin_parse_hwports(const char *text, struct darwin_hwports *hp, char *err, size_t errlen)
{
	char line[DP_LINE_MAX], port[DP_LINE_MAX] = "";
	const char *p = text, *v, *rec;
	int seen = 0, extra = 0;

	memset(hp, 0, sizeof(*hp));
	while (next_line(&p, line, sizeof(line))) {
		char *l = trim(line);
		if ((v = darwin_skip_prefix(l, "Hardware Port:")) != NULL) {
			report_strset(port, sizeof(port), v + strspn(v, " "));
			seen++;
			continue;
		}
		if ((v = darwin_skip_prefix(l, "Device:")) == NULL || port[0] == '\0')
			continue;
		v += strspn(v, " ");
		if (!darwin_valid_ifname(v))
			continue;
		if (strcmp(port, "Thunderbolt Bridge") == 0) {
			report_strset(hp->bridge, sizeof(hp->bridge), v);
		} else if ((rec = tb_receptacle(port)) != NULL) {
			if (hp->n == REPORT_PORTS_MAX) {
				extra++;
				continue;
			}
			report_strset(hp->tb[hp->n].receptacle, sizeof(hp->tb[0].receptacle), rec);
			report_strset(hp->tb[hp->n].device, sizeof(hp->tb[0].device), v);
			hp->n++;
		}
		port[0] = '\0';
	}
	if (seen == 0) {
		perr(err, errlen, "no \"Hardware Port:\" entries");
		return -1;
	}
	if (extra > 0) {
		perr(err, errlen, "%d Thunderbolt ports, more than the %d a report holds",
		    hp->n + extra, REPORT_PORTS_MAX);
		return -1;
	}
	return 0;
}

/*
 * ifconfig IF
 */

/* "en3: flags=8863<UP,BROADCAST,...> mtu 1500": the name and whether UP. */
static int
ifconfig_header(char *line, struct darwin_ifconfig *ifc)
{
	char *colon = strchr(line, ':'), *lt, *gt, *flag, *save = NULL;

	if (colon == NULL || darwin_skip_prefix(colon, ": flags=") == NULL)
		return -1;
	*colon = '\0';
	if (!darwin_valid_ifname(line))
		return -1;
	report_strset(ifc->name, sizeof(ifc->name), line);
	lt = strchr(colon + 1, '<');
	gt = lt != NULL ? strchr(lt, '>') : NULL;
	if (gt == NULL)
		return 0;
	*gt = '\0';
	for (flag = strtok_r(lt + 1, ",", &save); flag != NULL; flag = strtok_r(NULL, ",", &save))
		if (strcmp(flag, "UP") == 0)
			ifc->up = 1;
	return 0;
}

/* The first word of s into buf (size n); -1 when there is none or it does not fit. */
static int
first_word(const char *s, char *buf, size_t n)
{
	size_t len;

	s += strspn(s, " \t");
	len = strcspn(s, " \t");
	if (len == 0 || len >= n)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/* One indented line of an interface; returns 1 when something did not fit. */
static int
ifconfig_line(const char *l, struct darwin_ifconfig *ifc)
{
	char word[64];
	const char *v;

	if ((v = darwin_skip_prefix(l, "inet ")) != NULL) {
		if (first_word(v, word, sizeof(word)) == -1 || !valid_ipv4(word))
			return 0;
		if (ifc->n_ipv4 == REPORT_IPV4_MAX)
			return 1;
		report_strset(ifc->ipv4[ifc->n_ipv4++], sizeof(report_ipv4), word);
	} else if ((v = darwin_skip_prefix(l, "member:")) != NULL) {
		if (first_word(v, word, sizeof(word)) == -1 || !darwin_valid_ifname(word))
			return 0;
		if (ifc->n_members == REPORT_MEMBERS_MAX)
			return 1;
		report_strset(ifc->members[ifc->n_members++], DARWIN_IFNAME_MAX, word);
	} else if ((v = darwin_skip_prefix(l, "status:")) != NULL) {
		if (first_word(v, word, sizeof(word)) == -1)
			return 0;
		if (strcmp(word, "active") == 0)
			ifc->active = TRI_TRUE;
		else if (strcmp(word, "inactive") == 0)
			ifc->active = TRI_FALSE;
	}
	return 0;
}

int
darwin_parse_ifconfig(const char *text, struct darwin_ifconfig *ifc, char *err, size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text;
	int overflow = 0;

	memset(ifc, 0, sizeof(*ifc));
	ifc->active = TRI_NULL;
	if (!next_line(&p, line, sizeof(line)) || ifconfig_header(line, ifc) == -1) {
		memset(ifc, 0, sizeof(*ifc));
		ifc->active = TRI_NULL;
		perr(err, errlen, "does not start with \"IF: flags=\"");
		return -1;
	}
	while (next_line(&p, line, sizeof(line))) {
		if (line[0] != '\0' && !isspace((unsigned char)line[0]))
			break;	/* the next interface */
		overflow |= ifconfig_line(trim(line), ifc);
	}
	if (overflow) {
		perr(err, errlen, "%s: more addresses or members than the report holds",
		    ifc->name);
		return -1;
	}
	return 0;
}

/*
 * rdma_ctl status
 */

int
darwin_parse_rdma_ctl(const char *text, enum rdma_state *state, char *err, size_t errlen)
{
	char line[DP_LINE_MAX], *l;
	const char *p = text;

	if (!next_line(&p, line, sizeof(line))) {
		perr(err, errlen, "empty output");
		return -1;
	}
	l = trim(line);
	if (strcmp(l, "enabled") == 0)
		*state = RDMA_STATE_ENABLED;
	else if (strcmp(l, "disabled") == 0)
		*state = RDMA_STATE_DISABLED;
	else {
		perr(err, errlen, "\"%.64s\" is neither enabled nor disabled", l);
		return -1;
	}
	return 0;
}

/*
 * ibv_devices
 */

/* "rdma_en3<TAB>8196a9d9edbaac05": exactly a name and a 16-digit GUID. */
static int
ibv_device_line(char *l, char *name, size_t n)
{
	char *save = NULL, *dev, *guid;

	dev = strtok_r(l, " \t", &save);
	guid = strtok_r(NULL, " \t", &save);
	if (dev == NULL || guid == NULL || strtok_r(NULL, " \t", &save) != NULL)
		return -1;
	if (!valid_devname(dev) || strlen(guid) != 16 ||
	    strspn(guid, "0123456789abcdefABCDEF") != 16)
		return -1;
	report_strset(name, n, dev);
	return 0;
}

int
darwin_parse_ibv_devices(const char *text, struct darwin_ibv_devices *d, char *err,
    size_t errlen)
{
	char line[DP_LINE_MAX], *l;
	const char *p = text;
	int state = 0, extra = 0;	/* 0: before header, 1: before rule, 2: devices */

	memset(d, 0, sizeof(*d));
	while (next_line(&p, line, sizeof(line))) {
		if (*(l = trim(line)) == '\0')
			continue;
		if (state == 0 && darwin_skip_prefix(l, "device") != NULL &&
		    strstr(l, "GUID") != NULL) {
			state = 1;
		} else if (state == 1 && darwin_skip_prefix(l, "------") != NULL) {
			state = 2;
		} else if (state == 2 && d->n == REPORT_DEVICES_MAX) {
			extra++;
		} else if (state != 2 || ibv_device_line(l, d->name[d->n], DARWIN_DEVNAME_MAX)) {
			memset(d, 0, sizeof(*d));
			perr(err, errlen, "unexpected line \"%.64s\"", l);
			return -1;
		} else {
			d->n++;
		}
	}
	if (state != 2) {
		perr(err, errlen, "no \"device  node GUID\" header");
		return -1;
	}
	if (extra > 0) {
		perr(err, errlen, "%d devices, more than the %d a report holds", d->n + extra,
		    REPORT_DEVICES_MAX);
		return -1;
	}
	return 0;
}

/*
 * ibv_devinfo -v
 */

static enum rdma_port_state
ibv_port_state(const char *s)
{
	char word[32];

	if (first_word(s, word, sizeof(word)) == -1)
		return RDMA_PORT_UNKNOWN;
	if (strcmp(word, "PORT_ACTIVE") == 0)
		return RDMA_PORT_ACTIVE;
	if (strcmp(word, "PORT_DOWN") == 0 || strcmp(word, "PORT_INIT") == 0 ||
	    strcmp(word, "PORT_ARMED") == 0)
		return RDMA_PORT_DOWN;
	return RDMA_PORT_UNKNOWN;
}

/* "GID[  1]:		::ffff:169.254.205.255" is an IPv4-mapped GID. */
static int
ipv4_gid(const char *l)
{
	const char *v = strstr(l, "]:");
	char word[64];

	if (v == NULL || first_word(v + 2, word, sizeof(word)) == -1)
		return 0;
	v = darwin_skip_prefix(word, "::ffff:");
	return v != NULL && valid_ipv4(v);
}

/* One trimmed line within hca cur; *ports counts its "port:" lines. */
static void
ibv_devinfo_line(const char *l, struct darwin_ibv_port *cur, int *ports)
{
	const char *v;

	if (darwin_skip_prefix(l, "port:") != NULL)
		(*ports)++;
	else if ((v = darwin_skip_prefix(l, "state:")) != NULL && *ports <= 1)
		cur->state = ibv_port_state(v);
	else if (darwin_skip_prefix(l, "GID[") != NULL && cur->ipv4_gid != TRI_TRUE)
		cur->ipv4_gid = ipv4_gid(l) ? TRI_TRUE : TRI_FALSE;
}

int
darwin_parse_ibv_devinfo(const char *text, struct darwin_ibv_devinfo *info, char *err,
    size_t errlen)
{
	char line[DP_LINE_MAX], name[DP_LINE_MAX], *l;
	struct darwin_ibv_port *cur = NULL, skip;
	const char *p = text, *v;
	int ports = 0, extra = 0;

	memset(info, 0, sizeof(*info));
	while (next_line(&p, line, sizeof(line))) {
		l = trim(line);
		if ((v = darwin_skip_prefix(l, "hca_id:")) == NULL) {
			if (cur != NULL)
				ibv_devinfo_line(l, cur, &ports);
			continue;
		}
		report_strset(name, sizeof(name), v);
		if (!valid_devname(trim(name))) {
			memset(info, 0, sizeof(*info));
			perr(err, errlen, "bad hca_id \"%.64s\"", name);
			return -1;
		}
		if (info->n < REPORT_DEVICES_MAX) {
			cur = &info->dev[info->n++];
		} else {
			cur = &skip;	/* read and dropped */
			extra++;
		}
		memset(cur, 0, sizeof(*cur));
		report_strset(cur->name, sizeof(cur->name), trim(name));
		cur->state = RDMA_PORT_UNKNOWN;
		cur->ipv4_gid = TRI_NULL;
		ports = 0;
	}
	if (info->n == 0 && strstr(text, "No IB devices found") == NULL) {
		perr(err, errlen, "no hca_id");
		return -1;
	}
	if (extra > 0) {
		perr(err, errlen, "%d devices, more than the %d a report holds",
		    info->n + extra, REPORT_DEVICES_MAX);
		return -1;
	}
	return 0;
}

/*
 * vm_stat
 */

static const struct {
	const char *label;
	size_t off;
	int required;
} vm_fields[] = {
	{ "Pages free", offsetof(struct darwin_vmstat, free), 1 },
	{ "Pages active", offsetof(struct darwin_vmstat, active), 1 },
	{ "Pages inactive", offsetof(struct darwin_vmstat, inactive), 1 },
	{ "Pages speculative", offsetof(struct darwin_vmstat, speculative), 0 },
	{ "Pages throttled", offsetof(struct darwin_vmstat, throttled), 0 },
	{ "Pages wired down", offsetof(struct darwin_vmstat, wired), 1 },
	{ "Pages purgeable", offsetof(struct darwin_vmstat, purgeable), 0 },
	{ "File-backed pages", offsetof(struct darwin_vmstat, file_backed), 0 },
	{ "Anonymous pages", offsetof(struct darwin_vmstat, anonymous), 0 },
	{ "Pages stored in compressor", offsetof(struct darwin_vmstat, stored_in_compressor), 0 },
	{ "Pages occupied by compressor",
	    offsetof(struct darwin_vmstat, occupied_by_compressor), 0 },
};
#define VM_NFIELDS (sizeof(vm_fields) / sizeof(vm_fields[0]))

static int64_t *
vm_field(struct darwin_vmstat *vm, size_t i)
{
	return (int64_t *)(void *)((char *)vm + vm_fields[i].off);
}

/* "Mach Virtual Memory Statistics: (page size of 16384 bytes)" */
static int
vm_page_size(const char *l, int64_t *size)
{
	const char *v = strstr(l, "page size of ");
	const char *end;

	if (v == NULL || parse_digits(v + 13, size, &end) == -1)
		return -1;
	if (strncmp(end, " bytes)", 7) != 0 || *size < 512 || *size > (1 << 24) ||
	    (*size & (*size - 1)) != 0)
		return -1;
	return 0;
}

/* "Pages free:    1873452." into its field; 1 not a field, 0 done, -1 bad count. */
static int
vm_line(char *l, struct darwin_vmstat *vm)
{
	char *colon = strchr(l, ':'), *v;
	size_t n;

	if (colon == NULL)
		return 1;
	*colon = '\0';
	v = trim(colon + 1);
	n = strlen(v);
	for (size_t i = 0; i < VM_NFIELDS; i++) {
		if (strcmp(trim(l), vm_fields[i].label) != 0)
			continue;
		if (n < 2 || v[n - 1] != '.')	/* every count ends with "." */
			return -1;
		v[n - 1] = '\0';
		return parse_count(v, vm_field(vm, i)) == -1 ? -1 : 0;
	}
	return 1;
}

int
darwin_parse_vm_stat(const char *text, struct darwin_vmstat *vm, char *err, size_t errlen)
{
	static const struct darwin_vmstat none = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
		-1 };
	struct darwin_vmstat t = none;
	char line[DP_LINE_MAX], label[64];
	const char *p = text;

	*vm = none;

	if (!next_line(&p, line, sizeof(line)) || vm_page_size(line, &t.page_size) == -1) {
		perr(err, errlen, "no \"page size of N bytes\" header");
		return -1;
	}
	while (next_line(&p, line, sizeof(line))) {
		report_strset(label, sizeof(label), line);
		if (vm_line(line, &t) == -1) {
			label[strcspn(label, ":")] = '\0';
			perr(err, errlen, "%s: not a page count", trim(label));
			return -1;
		}
	}
	for (size_t i = 0; i < VM_NFIELDS; i++) {
		if (vm_fields[i].required && *vm_field(&t, i) < 0) {
			perr(err, errlen, "no \"%s\" line", vm_fields[i].label);
			return -1;
		}
	}
	*vm = t;
	return 0;
}

/* pages * page size, or null when unknown or too large. */
static int64_t
vm_bytes(int64_t pages, int64_t page_size)
{
	if (pages < 0 || page_size <= 0 || pages > REPORT_BYTES_MAX / page_size)
		return REPORT_NULL_I64;
	return pages * page_size;
}

void
darwin_vmstat_memory(const struct darwin_vmstat *vm, struct report_memory *m)
{
	int64_t free_pages = vm->free;

	if (free_pages >= 0 && vm->speculative > 0)
		free_pages += vm->speculative;
	m->free_bytes = vm_bytes(free_pages, vm->page_size);
	m->active_bytes = vm_bytes(vm->active, vm->page_size);
	m->inactive_bytes = vm_bytes(vm->inactive, vm->page_size);
	m->wired_bytes = vm_bytes(vm->wired, vm->page_size);
	m->compressed_bytes = vm_bytes(vm->occupied_by_compressor, vm->page_size);
}

/*
 * memory_pressure -Q, sysctl
 */

int
darwin_parse_memory_pressure(const char *text, double *free_ratio, char *err, size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text, *v, *end;
	int64_t pct;

	while (next_line(&p, line, sizeof(line))) {
		if ((v = strstr(trim(line), "free percentage:")) == NULL)
			continue;
		v += 16;
		v += strspn(v, " \t");
		if (parse_digits(v, &pct, &end) == -1 || strcmp(end, "%") != 0 || pct > 100)
			break;
		*free_ratio = (double)pct / 100.0;
		return 0;
	}
	perr(err, errlen, "no \"free percentage: N%%\" line");
	return -1;
}

/* "2048.00M" after key ("total = ") in s, in bytes. */
static int
swap_value(const char *s, const char *key, int64_t *bytes)
{
	const char *v = strstr(s, key), *end;
	double x, mult;

	if (v == NULL || parse_decimal(v + strlen(key), &x, &end) == -1)
		return -1;
	switch (*end) {
	case 'K':
		mult = 1024.0;
		break;
	case 'M':
		mult = 1048576.0;
		break;
	case 'G':
		mult = 1073741824.0;
		break;
	default:
		return -1;
	}
	if (end[1] != '\0' && !isspace((unsigned char)end[1]))
		return -1;
	x *= mult;
	if (x > (double)REPORT_BYTES_MAX)
		return -1;
	*bytes = (int64_t)llround(x);
	return 0;
}

int
darwin_parse_swapusage(const char *text, int64_t *total_bytes, int64_t *used_bytes,
    char *err, size_t errlen)
{
	char line[DP_LINE_MAX];
	const char *p = text;
	int64_t total, used;

	if (!next_line(&p, line, sizeof(line)) || swap_value(line, "total = ", &total) == -1 ||
	    swap_value(line, "used = ", &used) == -1 || used > total) {
		perr(err, errlen, "not \"total = NM  used = NM ...\"");
		return -1;
	}
	*total_bytes = total;
	*used_bytes = used;
	return 0;
}

/* The whole output is one count. */
static int
sysctl_count(const char *text, int64_t *v)
{
	char line[DP_LINE_MAX];
	const char *p = text;

	if (!next_line(&p, line, sizeof(line)) || parse_count(trim(line), v) == -1)
		return -1;
	if (p[strspn(p, " \t\r\n")] != '\0')	/* only blank lines may follow */
		return -1;
	return 0;
}

int
darwin_parse_memsize(const char *text, int64_t *bytes, char *err, size_t errlen)
{
	int64_t v;

	if (sysctl_count(text, &v) == -1 || v <= 0 || v > REPORT_BYTES_MAX) {
		perr(err, errlen, "not a memory size in bytes");
		return -1;
	}
	*bytes = v;
	return 0;
}

int
darwin_parse_wired_limit(const char *text, int64_t *bytes, char *err, size_t errlen)
{
	int64_t mb;

	if (sysctl_count(text, &mb) == -1 || mb > REPORT_BYTES_MAX / 1048576) {
		perr(err, errlen, "not a size in MB");
		return -1;
	}
	*bytes = mb * 1048576;
	return 0;
}

/*
 * sw_vers, kern.boottime, hostname
 */

/* "KEY:<blanks>VALUE" where VALUE is made of chars in ok: VALUE into dst. */
static int
keyed_value(char *l, const char *key, const char *ok, char *dst, size_t n)
{
	size_t klen = strlen(key);
	char *v;

	if (strncmp(l, key, klen) != 0 || l[klen] != ':')
		return 0;
	v = trim(l + klen + 1);
	if (*v == '\0' || strspn(v, ok) != strlen(v) || !isdigit((unsigned char)*v))
		return -1;
	report_strset(dst, n, v);
	return 1;
}

int
darwin_parse_sw_vers(const char *text, struct report_node *node, char *err, size_t errlen)
{
	static const char digits[] = "0123456789.";
	static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char line[DP_LINE_MAX], ver[32] = "", build[32] = "";
	const char *p = text;
	int bad = 0;

	while (next_line(&p, line, sizeof(line))) {
		char *l = trim(line);
		if (keyed_value(l, "ProductVersion", digits, ver, sizeof(ver)) == -1 ||
		    keyed_value(l, "BuildVersion", alnum, build, sizeof(build)) == -1)
			bad = 1;
	}
	if (ver[0] != '\0')
		REPORT_SET(node->os_version, ver);
	if (build[0] != '\0')
		REPORT_SET(node->os_build, build);
	if (bad || ver[0] == '\0' || build[0] == '\0') {
		perr(err, errlen, "no readable ProductVersion and BuildVersion");
		return -1;
	}
	return 0;
}

/* Skip blanks, then tok; returns -1 when tok is not next. */
static int
expect(const char **p, const char *tok)
{
	*p += strspn(*p, " \t");
	if (strncmp(*p, tok, strlen(tok)) != 0)
		return -1;
	*p += strlen(tok);
	return 0;
}

/* Skip blanks, then digits into *v. */
static int
expect_count(const char **p, int64_t *v)
{
	*p += strspn(*p, " \t");
	return parse_digits(*p, v, p);
}

int
darwin_parse_boottime(const char *text, double *boot_time, char *err, size_t errlen)
{
	const char *p = text;
	int64_t sec, usec;

	if (expect(&p, "{") == -1 || expect(&p, "sec") == -1 || expect(&p, "=") == -1 ||
	    expect_count(&p, &sec) == -1 || expect(&p, ",") == -1 ||
	    expect(&p, "usec") == -1 || expect(&p, "=") == -1 ||
	    expect_count(&p, &usec) == -1 || expect(&p, "}") == -1 ||
	    sec <= 0 || usec > 999999) {
		perr(err, errlen, "not \"{ sec = N, usec = N } ...\"");
		return -1;
	}
	*boot_time = (double)sec + (double)usec / 1e6;
	return 0;
}

int
darwin_parse_hostname(const char *text, char *dst, size_t dstlen, char *err, size_t errlen)
{
	char line[DP_LINE_MAX], *l;
	const char *p = text;
	size_t n;

	if (!next_line(&p, line, sizeof(line))) {
		perr(err, errlen, "empty output");
		return -1;
	}
	l = trim(line);
	n = strlen(l);
	for (size_t i = 0; i < n; i++) {
		if (!isgraph((unsigned char)l[i])) {
			n = 0;
			break;
		}
	}
	if (n == 0 || n >= dstlen) {
		perr(err, errlen, "not a host name");
		return -1;
	}
	report_strset(dst, dstlen, l);
	return 0;
}

/*
 * powermetrics
 */

/* "3120 mW" -> 3.12 (watts). */
static int
milliwatts(const char *s, double *watts)
{
	const char *end;
	double mw;

	s += strspn(s, " \t");
	if (parse_decimal(s, &mw, &end) == -1 || strcmp(end, " mW") != 0)
		return -1;
	if (mw / 1000.0 > REPORT_WATTS_MAX)
		return -1;
	*watts = mw / 1000.0;
	return 0;
}

int
darwin_parse_powermetrics(const char *text, struct report_power *power, char *err,
    size_t errlen)
{
	static const char *const labels[] = { "CPU Power:", "GPU Power:", "ANE Power:",
		"DRAM Power:" };
	double w[4] = { NAN, NAN, NAN, NAN };
	char line[DP_LINE_MAX], bad[32] = "";
	const char *p = text, *v;
	int samples = 0;

	while (next_line(&p, line, sizeof(line)) && samples < 2) {
		char *l = trim(line);
		if (darwin_skip_prefix(l, "*** Sampled") != NULL) {
			samples++;
			continue;
		}
		for (size_t i = 0; i < 4; i++) {
			if ((v = darwin_skip_prefix(l, labels[i])) == NULL || !isnan(w[i]))
				continue;
			if (milliwatts(v, &w[i]) == -1 && bad[0] == '\0')
				report_strset(bad, sizeof(bad), labels[i]);
		}
	}
	if (isnan(w[0]) && isnan(w[1])) {
		perr(err, errlen, "no \"CPU Power: N mW\" or \"GPU Power: N mW\" line");
		return -1;
	}
	REPORT_SET(power->source, "powermetrics");
	power->cpu_watts = w[0];
	power->gpu_watts = w[1];
	power->ane_watts = w[2];
	power->dram_watts = w[3];
	if (bad[0] != '\0') {
		perr(err, errlen, "%s not N mW", bad);
		return -1;
	}
	return 0;
}
