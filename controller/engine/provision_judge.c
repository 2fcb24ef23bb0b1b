/*
 * provision_judge: whether a step's check output says it is done, what
 * undoes a step given what its check saw, and the per-cable /30 addresses
 * of a node from the cluster's cabling plan.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision.h"

/* 1 when a line of out is word, or "*" word (a disabled network service). */
static int
has_line(const char *out, const char *word)
{
	size_t wlen = strlen(word);

	for (const char *l = out; l != NULL && *l != '\0'; ) {
		const char *nl = strchr(l, '\n');
		size_t len = nl != NULL ? (size_t)(nl - l) : strlen(l);

		if (len > 0 && l[len - 1] == '\r')
			len--;
		if (*l == '*') {
			l++;
			len--;
		}
		if (len == wlen && strncmp(l, word, wlen) == 0)
			return 1;
		l = nl != NULL ? nl + 1 : NULL;
	}
	return 0;
}

/* out, trimmed, is word. */
static int
trimmed_is(const char *out, const char *word)
{
	size_t wlen = strlen(word);

	while (isspace((unsigned char)*out))
		out++;
	if (strncmp(out, word, wlen) != 0)
		return 0;
	for (out += wlen; *out != '\0'; out++)
		if (!isspace((unsigned char)*out))
			return 0;
	return 1;
}

static int
getinfo_done(const char *out, const char *ipv4)
{
	char ip[64], mask[64];

	return prov_line_value(out, "IP address", ip, sizeof(ip)) == 0 && strcmp(ip, ipv4) == 0 &&
	    prov_line_value(out, "Subnet mask", mask, sizeof(mask)) == 0 &&
	    strcmp(mask, PROV_NETMASK) == 0;
}

int
prov_step_done(const struct prov_step *s, const char *out, int status)
{
	int v;

	if (out == NULL)
		out = "";
	switch (s->judge) {
	case PROV_J_STATUS_OK: return status == 0;
	case PROV_J_STATUS_FAIL: return status != 0;
	case PROV_J_EQUALS:
		return status == 0 && s->input != NULL && strlen(out) == s->input_len &&
		    memcmp(out, s->input, s->input_len) == 0;
	case PROV_J_LINE: return status == 0 && trimmed_is(out, s->expect);
	case PROV_J_PMSET:
		return status == 0 && prov_pmset_value(out, s->key, &v) == 0 &&
		    v == atoi(s->expect);
	case PROV_J_GETINFO: return status == 0 && getinfo_done(out, s->expect);
	case PROV_J_SHA256:
		return status == 0 && s->expect[0] != '\0' &&
		    strncmp(out, s->expect, strlen(s->expect)) == 0 &&
		    (out[strlen(s->expect)] == ' ' || out[strlen(s->expect)] == '\n');
	case PROV_J_DISABLED:
		return strstr(out, "not a recognized network service") != NULL ||
		    (status == 0 && trimmed_is(out, "Disabled"));
	case PROV_J_HAS_LINE: return status == 0 && has_line(out, s->expect);
	case PROV_J_NO_LINE: return status == 0 && !has_line(out, s->expect);
	case PROV_J_BRIDGE_ON: {
		char name[64];

		return status == 0 && prov_bridge_service(out, name, sizeof(name), &v) == 0 &&
		    (name[0] == '\0' || v == 1);
	}
	}
	return 0;
}

int
prov_step_not_applicable(const struct prov_step *s, const char *out, int status)
{
	int v;

	/* pmset -g lists only the settings the Mac has: no autorestart on a MacBook */
	return s->judge == PROV_J_PMSET && status == 0 && out != NULL &&
	    prov_pmset_value(out, "sleep", &v) == 0 && prov_pmset_value(out, s->key, &v) != 0;
}

/* root+path quoted into q. */
static int
quoted(const char *path, char *q, size_t size)
{
	return prov_shell_quote(path, q, size);
}

int
prov_step_undo(const struct prov_step *s, const char *out, int status, char *cmd,
    size_t cmdlen, const char **input, size_t *input_len)
{
	char q[600];
	int v, n = -1;

	*input = NULL;
	*input_len = 0;
	if (out == NULL)
		out = "";
	switch (s->undo) {
	case PROV_U_NONE:
		return -1;
	case PROV_U_FIXED:
		n = snprintf(cmd, cmdlen, "%s", s->undo_cmd);
		break;
	case PROV_U_FILE:
		if (quoted(s->undo_path, q, sizeof(q)) != 0)
			return -1;
		if (status != 0) {
			n = snprintf(cmd, cmdlen, "%srm -f %s", s->su, q);
			break;
		}
		if (s->su[0] != '\0')
			n = snprintf(cmd, cmdlen, "%stee %s.tbmesh-new >/dev/null && %smv -f "
			    "%s.tbmesh-new %s", s->su, q, s->su, q, q);
		else
			n = snprintf(cmd, cmdlen, "cat > %s.tbmesh-new && mv -f %s.tbmesh-new %s", q, q,
			    q);
		*input = out;
		*input_len = strlen(out);
		break;
	case PROV_U_BINARY:
		if (quoted(s->undo_path, q, sizeof(q)) != 0)
			return -1;
		if (status != 0)
			n = snprintf(cmd, cmdlen, "%srm -f %s", s->su, q);
		else
			n = snprintf(cmd, cmdlen, "%smv -f %s.prev %s", s->su, q, q);
		break;
	case PROV_U_PMSET:
		if (status != 0 || prov_pmset_value(out, s->key, &v) != 0)
			return -1;
		n = snprintf(cmd, cmdlen, "%spmset -a %s %d", s->su, s->key, v);
		break;
	case PROV_U_LOCATION: {
		char loc[128];

		if (status != 0 || sscanf(out, "%127[^\n]", loc) != 1 ||
		    strcmp(loc, PROV_LOCATION) == 0 || quoted(loc, q, sizeof(q)) != 0)
			return -1;
		n = snprintf(cmd, cmdlen, "%snetworksetup -switchtolocation %s && %snetworksetup "
		    "-deletelocation " PROV_LOCATION, s->su, q, s->su);
		break;
	}
	case PROV_U_SYSCTL:
		if (status != 0 || sscanf(out, "%d", &v) != 1 || v < 0)
			return -1;
		n = snprintf(cmd, cmdlen, "%ssysctl %s=%d", s->su, s->key, v);
		break;
	}
	return n < 0 || (size_t)n >= cmdlen ? -1 : 0;
}

int
prov_ip_base_ok(const char *base, int *a, int *b)
{
	int c, d, n = 0;

	if (base == NULL || base[0] == '\0')
		base = PROV_IP_BASE;
	return sscanf(base, "%3d.%3d.%3d.%3d%n", a, b, &c, &d, &n) == 4 &&
	    base[n] == '\0' && *a >= 1 && *a <= 223 && *b >= 0 && *b <= 255 && c == 0 && d == 0;
}

int
prov_lan_check(const char *base, int n_cables, const char *const *lan,
    const char *const *who, int n, char *err, size_t errlen)
{
	int a, b, la, lb, lc, ld;

	if (!prov_ip_base_ok(base, &a, &b)) {
		snprintf(err, errlen, "the cables' base \"%.20s\" is not A.B.0.0", base);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (sscanf(lan[i], "%d.%d.%d.%d", &la, &lb, &lc, &ld) != 4 || la != a || lb != b ||
		    lc >= n_cables || lc < 0)
			continue;
		snprintf(err, errlen, "cable %d's %d.%d.%d.0/30 is in the /24 of %.40s's LAN address "
		    "%.16s: give the cables another base (tbctl node add --ip-base A.B.0.0, such as "
		    "10.254.0.0)", lc, a, b, lc, who[i], lan[i]);
		return -1;
	}
	return 0;
}

static int
addr_add(struct prov_settings *s, const char *receptacle, int k, int end, char *err,
    size_t errlen)
{
	int a, b;

	if (receptacle == NULL || receptacle[0] == '\0')
		return 0;   /* "any port": no address can be given to it */
	for (int i = 0; i < s->n_addrs; i++)
		if (strcmp(s->addrs[i].receptacle, receptacle) == 0) {
			snprintf(err, errlen, "receptacle %s is cabled twice in the plan", receptacle);
			return -1;
		}
	if (s->n_addrs == PROV_PORTS_MAX || strlen(receptacle) >= sizeof(s->addrs[0].receptacle)) {
		snprintf(err, errlen, "too many cables, or a bad receptacle \"%.8s\"", receptacle);
		return -1;
	}
	struct prov_addr *ad = &s->addrs[s->n_addrs++];
	snprintf(ad->receptacle, sizeof(ad->receptacle), "%s", receptacle);
	prov_ip_base_ok(s->ip_base, &a, &b);
	snprintf(ad->ipv4, sizeof(ad->ipv4), "%d.%d.%d.%d", a & 255, b & 255, k & 255, end & 3);
	return 0;
}

int
prov_plan_addresses(const struct prov_cable *cables, int n, const char *node,
    struct prov_settings *s, char *err, size_t errlen)
{
	int a, b;

	s->n_addrs = 0;
	if (!prov_ip_base_ok(s->ip_base, &a, &b)) {
		snprintf(err, errlen, "the cables' base \"%.20s\" is not A.B.0.0", s->ip_base);
		return -1;
	}
	if (n > 256) {
		snprintf(err, errlen, "%d cables: at most 256 /30 subnets in %d.%d.0.0/16", n, a, b);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		if (strcmp(cables[k].a_node, node) == 0 &&
		    addr_add(s, cables[k].a_receptacle, k, 1, err, errlen) != 0)
			return -1;
		if (strcmp(cables[k].b_node, node) == 0 &&
		    addr_add(s, cables[k].b_receptacle, k, 2, err, errlen) != 0)
			return -1;
	}
	return s->n_addrs;
}
