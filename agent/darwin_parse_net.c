/*
 * Parsers of the network commands' text: networksetup, ifconfig, rdma_ctl,
 * ibv_devices and ibv_devinfo.
 * See darwin_parse.h for the contracts and tests/fixtures/macos/ for what
 * the commands print.
 */
#include "darwin_parse.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "darwin_text.h"


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
	int seen = 0, extra = 0, extra_other = 0;

	memset(hp, 0, sizeof(*hp));
	while (dp_next_line(&p, line, sizeof(line))) {
		char *l = dp_trim(line);
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
		} else if (hp->n_other == DARWIN_HWPORTS_MAX) {
			extra_other++;
		} else {
			report_strset(hp->other[hp->n_other].port, DARWIN_PORTNAME_MAX, port);
			report_strset(hp->other[hp->n_other].device, DARWIN_IFNAME_MAX, v);
			hp->n_other++;
		}
		port[0] = '\0';
	}
	if (seen == 0) {
		dp_err(err, errlen, "no \"Hardware Port:\" entries");
		return -1;
	}
	if (extra > 0) {
		dp_err(err, errlen, "%d Thunderbolt ports, more than the %d a report holds",
		    hp->n + extra, REPORT_PORTS_MAX);
		return -1;
	}
	if (extra_other > 0) {
		dp_err(err, errlen, "%d hardware ports besides Thunderbolt, more than %d",
		    hp->n_other + extra_other, DARWIN_HWPORTS_MAX);
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
	for (flag = strtok_r(lt + 1, ",", &save); flag != NULL;
	    flag = strtok_r(NULL, ",", &save)) {
		if (strcmp(flag, "UP") == 0)
			ifc->up = 1;
		else if (strcmp(flag, "LOOPBACK") == 0)
			ifc->loopback = 1;
	}
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

/*
 * "media: autoselect (1000baseT <full-duplex>)": the medium in use, in
 * parentheses, is a wired Ethernet one, whose names all hold "base"
 * whatever their case ("100baseTX", "2500Base-T", "10Gbase-T").  Wi-Fi
 * prints "autoselect" alone, a Thunderbolt port "autoselect <full-duplex>",
 * an Ethernet port without link "autoselect (none)".
 */
static int
media_wired(const char *v)
{
	const char *open = strchr(v, '(');
	char word[32];
	size_t i;

	if (open == NULL || first_word(open + 1, word, sizeof(word)) == -1)
		return 0;
	for (i = 0; word[i] != '\0'; i++)
		word[i] = (char)tolower((unsigned char)word[i]);
	return strstr(word, "base") != NULL;
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
	} else if ((v = darwin_skip_prefix(l, "media:")) != NULL) {
		ifc->wired = media_wired(v);
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
	if (!dp_next_line(&p, line, sizeof(line)) || ifconfig_header(line, ifc) == -1) {
		memset(ifc, 0, sizeof(*ifc));
		ifc->active = TRI_NULL;
		dp_err(err, errlen, "does not start with \"IF: flags=\"");
		return -1;
	}
	while (dp_next_line(&p, line, sizeof(line))) {
		if (line[0] != '\0' && !isspace((unsigned char)line[0]))
			break;	/* the next interface */
		overflow |= ifconfig_line(dp_trim(line), ifc);
	}
	if (overflow) {
		dp_err(err, errlen, "%s: more addresses or members than the report holds",
		    ifc->name);
		return -1;
	}
	return 0;
}

/*
 * ifconfig -a
 */

static void
ifconfig_init(struct darwin_ifconfig *ifc)
{
	memset(ifc, 0, sizeof(*ifc));
	ifc->active = TRI_NULL;
}

const struct darwin_ifconfig *
darwin_iflist_find(const struct darwin_iflist *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->ifc[i].name, name) == 0)
			return &l->ifc[i];
	return NULL;
}

int
darwin_parse_ifconfig_all(const char *text, struct darwin_iflist *l, char *err,
    size_t errlen)
{
	char line[DP_LINE_MAX], over[DARWIN_IFNAME_MAX] = "";
	struct darwin_ifconfig *cur = NULL, skip;
	const char *p = text;
	int extra = 0;

	memset(l, 0, sizeof(*l));
	while (dp_next_line(&p, line, sizeof(line))) {
		if (line[0] == '\0' || isspace((unsigned char)line[0])) {
			if (cur != NULL && ifconfig_line(dp_trim(line), cur) && over[0] == '\0')
				report_strset(over, sizeof(over), cur->name);
			continue;
		}
		cur = l->n < DARWIN_IFLIST_MAX ? &l->ifc[l->n] : &skip;
		ifconfig_init(cur);
		if (ifconfig_header(line, cur) == -1) {
			ifconfig_init(cur);
			cur = NULL;	/* not an interface: its lines are skipped */
		} else if (cur == &skip) {
			extra++;
		} else {
			l->n++;
		}
	}
	if (l->n == 0) {
		dp_err(err, errlen, "no line \"IF: flags=\"");
		return -1;
	}
	if (extra > 0) {
		dp_err(err, errlen, "%d interfaces, more than %d", l->n + extra,
		    DARWIN_IFLIST_MAX);
		return -1;
	}
	if (over[0] != '\0') {
		dp_err(err, errlen, "%s: more addresses or members than the report holds", over);
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

	if (!dp_next_line(&p, line, sizeof(line))) {
		dp_err(err, errlen, "empty output");
		return -1;
	}
	l = dp_trim(line);
	if (strcmp(l, "enabled") == 0)
		*state = RDMA_STATE_ENABLED;
	else if (strcmp(l, "disabled") == 0)
		*state = RDMA_STATE_DISABLED;
	else {
		dp_err(err, errlen, "\"%.64s\" is neither enabled nor disabled", l);
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
	while (dp_next_line(&p, line, sizeof(line))) {
		if (*(l = dp_trim(line)) == '\0')
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
			dp_err(err, errlen, "unexpected line \"%.64s\"", l);
			return -1;
		} else {
			d->n++;
		}
	}
	if (state != 2) {
		dp_err(err, errlen, "no \"device  node GUID\" header");
		return -1;
	}
	if (extra > 0) {
		dp_err(err, errlen, "%d devices, more than the %d a report holds", d->n + extra,
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

/*
 * The raw form older rdma-core's ibv_devinfo (linux-rdma/rdma-core,
 * libibverbs/examples/devinfo.c) prints a GID in, eight groups of four hex
 * digits, IPv4-mapped: "0000:0000:0000:0000:0000:ffff:a9fe:cdff"
 * (::ffff:169.254.205.255).  Today's prints it through inet_ntop (the
 * "::ffff:" form), a RoCE v2 one with ", RoCE v2" after it.  JACCL accepts
 * exactly the ::ffff:a.b.c.d GIDs (ml-explore/mlx,
 * mlx/distributed/jaccl/lib/jaccl/rdma.cpp, Connection::info()).
 */
static int
raw_mapped_gid(const char *w)
{
	static const char head[] = "0000:0000:0000:0000:0000:ffff:";

	if (strlen(w) != 39 || strncasecmp(w, head, sizeof(head) - 1) != 0)
		return 0;
	for (int k = 30; k < 39; k++)
		if (k == 34 ? w[k] != ':' : !isxdigit((unsigned char)w[k]))
			return 0;
	return 1;
}

/*
 * "GID[  1]:		::ffff:169.254.205.255" is an IPv4-mapped GID, as is its
 * raw form; a RoCE v2 GID's ", RoCE v2" suffix is not part of it.
 */
static int
ipv4_gid(const char *l)
{
	const char *v = strstr(l, "]:");
	char word[64];
	size_t len;

	if (v == NULL || first_word(v + 2, word, sizeof(word)) == -1)
		return 0;
	if ((len = strlen(word)) > 0 && word[len - 1] == ',')
		word[len - 1] = '\0';
	if (raw_mapped_gid(word))
		return 1;
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
	while (dp_next_line(&p, line, sizeof(line))) {
		l = dp_trim(line);
		if ((v = darwin_skip_prefix(l, "hca_id:")) == NULL) {
			if (cur != NULL)
				ibv_devinfo_line(l, cur, &ports);
			continue;
		}
		report_strset(name, sizeof(name), v);
		if (!valid_devname(dp_trim(name))) {
			memset(info, 0, sizeof(*info));
			dp_err(err, errlen, "bad hca_id \"%.64s\"", name);
			return -1;
		}
		if (info->n < REPORT_DEVICES_MAX) {
			cur = &info->dev[info->n++];
		} else {
			cur = &skip;	/* read and dropped */
			extra++;
		}
		memset(cur, 0, sizeof(*cur));
		report_strset(cur->name, sizeof(cur->name), dp_trim(name));
		cur->state = RDMA_PORT_UNKNOWN;
		cur->ipv4_gid = TRI_NULL;
		ports = 0;
	}
	if (info->n == 0 && strstr(text, "No IB devices found") == NULL) {
		dp_err(err, errlen, "no hca_id");
		return -1;
	}
	if (extra > 0) {
		dp_err(err, errlen, "%d devices, more than the %d a report holds",
		    info->n + extra, REPORT_DEVICES_MAX);
		return -1;
	}
	return 0;
}
