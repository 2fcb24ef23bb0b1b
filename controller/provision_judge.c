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
	}
	return 0;
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
			n = snprintf(cmd, cmdlen, "rm -f %s", q);
			break;
		}
		n = snprintf(cmd, cmdlen, "cat > %s.tbmesh-new && mv -f %s.tbmesh-new %s", q, q, q);
		*input = out;
		*input_len = strlen(out);
		break;
	case PROV_U_BINARY:
		if (quoted(s->undo_path, q, sizeof(q)) != 0)
			return -1;
		if (status != 0)
			n = snprintf(cmd, cmdlen, "rm -f %s", q);
		else
			n = snprintf(cmd, cmdlen, "mv -f %s.prev %s", q, q);
		break;
	case PROV_U_PMSET:
		if (status != 0 || prov_pmset_value(out, s->key, &v) != 0)
			return -1;
		n = snprintf(cmd, cmdlen, "pmset -a %s %d", s->key, v);
		break;
	case PROV_U_SYSCTL:
		if (status != 0 || sscanf(out, "%d", &v) != 1 || v < 0)
			return -1;
		n = snprintf(cmd, cmdlen, "sysctl %s=%d", s->key, v);
		break;
	}
	return n < 0 || (size_t)n >= cmdlen ? -1 : 0;
}

static int
addr_add(struct prov_settings *s, const char *receptacle, int k, int end, char *err,
    size_t errlen)
{
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
	struct prov_addr *a = &s->addrs[s->n_addrs++];
	snprintf(a->receptacle, sizeof(a->receptacle), "%s", receptacle);
	snprintf(a->ipv4, sizeof(a->ipv4), "192.168.%d.%d", k & 255, end & 3);
	return 0;
}

int
prov_plan_addresses(const struct prov_cable *cables, int n, const char *node,
    struct prov_settings *s, char *err, size_t errlen)
{
	s->n_addrs = 0;
	if (n > 256) {
		snprintf(err, errlen, "%d cables: at most 256 /30 subnets in 192.168.0.0/16", n);
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
