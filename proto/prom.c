/*
 * Prometheus service discovery of the agents and the controller's per-node
 * series; see prom.h.
 *
 * Targets: an agent reports the address its /metrics is bound to
 * (agent.listen).  A wildcard (0.0.0.0, ::) is no address to scrape: the
 * node's SSH host stands in for it, the address an operator gave
 * (tbctl node ssh) or provisioning reached the Mac at.  The inventory does
 * not record where reports come from, and that address can be a NAT's or a
 * proxy's anyway.
 */
#include "prom.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "json_enc.h"
#include "textbuf.h"

/* host (no brackets) is 0.0.0.0 or :: (in any spelling). */
static int
is_wildcard(const char *host)
{
	static const unsigned char zero[16];
	unsigned char a[16];

	if (inet_pton(AF_INET, host, a) == 1)
		return memcmp(a, zero, 4) == 0;
	if (inet_pton(AF_INET6, host, a) == 1)
		return memcmp(a, zero, 16) == 0;
	return 0;
}

int
prom_sd_target(const char *listen, const char *ssh_host, char *out, size_t len)
{
	char host[REPORT_STR_MAX + 1], err[8];
	int port, n;

	if (listen == NULL || !report_listen_valid(listen) ||
	    conf_split_hostport(listen, host, sizeof(host), &port, err, sizeof(err)) == -1)
		return -1;
	if (!is_wildcard(host))
		n = snprintf(out, len, "%s", listen);
	else if (ssh_host == NULL || ssh_host[0] == '\0')
		return -1;
	else
		n = snprintf(out, len, strchr(ssh_host, ':') ? "[%s]:%d" : "%s:%d", ssh_host,
		    port);
	if (n < 0 || (size_t)n >= len || !report_listen_valid(out))
		return -1;
	return 0;
}

/* ---- service discovery ---- */

struct target {
	char addr[PROM_TARGET_MAX + 1];   /* "" none */
	int given;                        /* has one, that no other node has */
};

static int
cmp_addr(const void *a, const void *b)
{
	const struct target *const *x = a, *const *y = b;

	return strcmp((*x)->addr, (*y)->addr);
}

/* t[i] for nodes[i]; by[] is room for n pointers.  0, or -1 out of memory. */
static int
find_targets(const struct prom_sd_node *nodes, int n, struct target *t)
{
	struct target **by = malloc((size_t)n * sizeof(*by));

	if (by == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		if (prom_sd_target(nodes[i].listen, nodes[i].ssh_host, t[i].addr,
		    sizeof(t[i].addr)) == -1)
			t[i].addr[0] = '\0';
		by[i] = &t[i];
	}
	qsort(by, (size_t)n, sizeof(*by), cmp_addr);
	for (int i = 0; i < n; i++)
		by[i]->given = by[i]->addr[0] != '\0' &&
		    (i == 0 || strcmp(by[i]->addr, by[i - 1]->addr) != 0) &&
		    (i + 1 == n || strcmp(by[i]->addr, by[i + 1]->addr) != 0);
	free(by);
	return 0;
}

/* A group {"targets": [addr], "labels": {...}} appended to a. */
static int
add_group(cJSON *a, const char *addr, const struct prom_sd_node *nd)
{
	cJSON *g = cJSON_CreateObject(), *ts, *l;
	int rc;

	if (json_enc_attach(a, NULL, g) == -1)
		return -1;
	rc = json_enc_attach(g, "targets", ts = cJSON_CreateArray());
	if (rc == 0)
		rc = json_enc_attach(ts, NULL, cJSON_CreateString(addr));
	rc |= json_enc_attach(g, "labels", l = cJSON_CreateObject());
	if (rc != 0)
		return -1;
	rc |= json_enc_attach(l, "cluster", cJSON_CreateString(nd->cluster));
	rc |= json_enc_attach(l, "node", cJSON_CreateString(nd->name));
	rc |= json_enc_attach(l, "model", cJSON_CreateString(nd->model));
	rc |= json_enc_attach(l, "state", cJSON_CreateString(api_node_state_str(nd->state)));
	return rc;
}

char *
prom_sd_json(const struct prom_sd_node *nodes, int n, int *given)
{
	struct target *t = n > 0 ? calloc((size_t)n, sizeof(*t)) : NULL;
	cJSON *a = cJSON_CreateArray();
	char *s = NULL;
	int rc = 0, k = 0;

	if (a == NULL || (n > 0 && (t == NULL || find_targets(nodes, n, t) == -1)))
		goto done;
	for (int i = 0; i < n && rc == 0; i++) {
		if (t[i].given) {
			rc = add_group(a, t[i].addr, &nodes[i]);
			k++;
		}
	}
	if (rc == 0)
		s = cJSON_PrintUnformatted(a);
	if (given != NULL)
		*given = k;
done:
	cJSON_Delete(a);
	free(t);
	return s;
}

/* ---- the controller's per-node series ---- */

/* name="value", the value escaped as the exposition format wants. */
static void
label(struct textbuf *t, const char *sep, const char *name, const char *v)
{
	textbuf_printf(t, "%s%s=\"", sep, name);
	textbuf_label_value(t, v);
	textbuf_printf(t, "\"");
}

static void
family(struct textbuf *t, const char *name, const char *help)
{
	textbuf_printf(t, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* name{cluster="...",node="..." (the rest of the labels follow) */
static void
node_series(struct textbuf *t, const char *name, const struct api_node *nd)
{
	textbuf_printf(t, "%s", name);
	label(t, "{", "cluster", nd->cluster);
	label(t, ",", "node", nd->name);
}

char *
prom_node_metrics(const struct api_node *nodes, int n)
{
	struct textbuf t = { 0 };
	char v[32];

	family(&t, "tbmesh_controller_node_state",
	    "Each node's lifecycle state, as a label; the value is always 1.");
	for (int i = 0; i < n; i++) {
		node_series(&t, "tbmesh_controller_node_state", &nodes[i]);
		label(&t, ",", "state", api_node_state_str(nodes[i].state));
		textbuf_printf(&t, "} 1\n");
	}
	family(&t, "tbmesh_controller_node_info",
	    "Each node as its latest report describes it; the value is always 1.");
	for (int i = 0; i < n; i++) {
		node_series(&t, "tbmesh_controller_node_info", &nodes[i]);
		label(&t, ",", "model", nodes[i].model);
		label(&t, ",", "chip", nodes[i].chip);
		label(&t, ",", "os_version", nodes[i].os_version);
		label(&t, ",", "os_build", nodes[i].os_build);
		textbuf_printf(&t, "} 1\n");
	}
	family(&t, "tbmesh_controller_node_last_report_timestamp_seconds",
	    "When the node's latest current report arrived, in unix seconds.");
	for (int i = 0; i < n; i++) {
		if (!isfinite(nodes[i].last_report_at))
			continue;
		node_series(&t, "tbmesh_controller_node_last_report_timestamp_seconds", &nodes[i]);
		json_fmt_double(v, sizeof(v), nodes[i].last_report_at);
		textbuf_printf(&t, "} %s\n", v);
	}
	return textbuf_take(&t);
}
