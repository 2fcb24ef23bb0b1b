/*
 * tbctl nodes, node cordon, node uncordon, node down, node remove (node
 * show is in ctl_show.c), and the checks every handler shares.
 */
#include "ctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_json.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "natcmp.h"

double
ctl_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		return NAN;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
ctl_name_check(const char *cmd, const char *kind, const char *name)
{
	if (api_name_valid(name))
		return CTL_EXIT_OK;
	return ctl_usage("%s: \"%s\" is not a valid %s name (1 to %d of A-Z a-z 0-9 . _ -, "
	    "not starting with . or -)", cmd, name, kind, API_NAME_MAX);
}

int
ctl_reason_check(const char *cmd, const char *usage, const char *text, const char *opt)
{
	const char *p = text;

	if (text != NULL)
		while (*p == ' ' || *p == '\t')
			p++;
	if (text == NULL || *p == '\0')
		return ctl_usage("%s: %s is required (usage: tbctl %s %s)", cmd, opt, cmd, usage);
	if (strlen(text) > API_REASON_MAX)
		return ctl_usage("%s: %s is longer than %d bytes", cmd, opt, API_REASON_MAX);
	for (p = text; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return ctl_usage("%s: %s holds a control character", cmd, opt);
	return CTL_EXIT_OK;
}

int
ctl_want_json(struct ctl_client *cl, const struct ctl_args *a)
{
	return a->json || ctl_client_json(cl);
}

int
ctl_get_show(struct ctl_client *cl, const struct ctl_args *a, const char *path,
    const char *what, ctl_show_fn show)
{
	struct ctl_reply r;
	char err[512];
	int rc;

	if ((rc = ctl_call(cl, "GET", path, NULL, NULL, &r)) == CTL_EXIT_OK) {
		if (ctl_want_json(cl, a))
			rc = ctl_json_print(r.body, r.len);
		else if ((rc = show(r.body, r.len, err, sizeof(err))) == -1)
			rc = ctl_fail("cannot decode %s: %s", what, err);
		else if (rc == CTL_SHOW_OOM)
			rc = ctl_fail("out of memory");
		else
			rc = CTL_EXIT_OK;
	}
	ctl_reply_free(&r);
	return rc;
}

static int
node_cmp(const void *a, const void *b)
{
	const struct api_node *x = a, *y = b;
	int c = proto_natcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->name, y->name);
}

static void
node_row(struct ctl_table *t, const struct api_node *n, double now)
{
	char state[API_NAME_MAX + 2], mem[CTL_FMT_MAX], watts[CTL_FMT_MAX];
	char age[CTL_FMT_MAX];
	const char *os = n->os_build[0] != '\0' ? n->os_build : n->os_version;
	const char *rdma = n->rdma == RDMA_STATE_UNKNOWN ? NULL : report_rdma_state_str(n->rdma);

	snprintf(state, sizeof(state), "%s%s", api_node_state_str(n->state),
	    n->unexpected_reboot ? "*" : "");
	const char *cells[] = { n->name, n->cluster, state, n->model,
		ctl_fmt_usage(n->memory_used_bytes, n->memory_total_bytes, mem, sizeof(mem)),
		ctl_fmt_watts(n->power_watts, watts, sizeof(watts)), os, rdma,
		ctl_fmt_age(n->last_report_at, now, age, sizeof(age)) };
	ctl_table_add(t, cells);
}

int
ctl_nodes_print(FILE *f, struct api_node *nodes, int n, double now)
{
	static const char *headers[] = { "NAME", "CLUSTER", "STATE", "MODEL", "MEMORY",
		"POWER", "OS", "RDMA", "AGE" };
	struct ctl_table *t = ctl_table_new(9, headers);

	if (t == NULL)
		return -1;
	qsort(nodes, (size_t)n, sizeof(*nodes), node_cmp);
	for (int i = 0; i < n; i++)
		node_row(t, &nodes[i], now);
	return ctl_table_end(t, f, 0);
}

static int
show_nodes(const char *body, size_t len, char *err, size_t errlen)
{
	struct api_node *nodes = NULL;
	int n, rc = -1;

	if (api_json_decode_nodes(body, len, &nodes, &n, err, errlen) == 0)
		rc = ctl_nodes_print(stdout, nodes, n, ctl_now()) == -1 ? CTL_SHOW_OOM : 0;
	free(nodes);
	return rc;
}

int
ctl_nodes_list(struct ctl_client *cl, const struct ctl_args *a)
{
	return ctl_get_show(cl, a, "/v1/nodes", "the list of nodes", show_nodes);
}

/*
 * POST /v1/nodes/NAME/<action> with body, then "NAME <done>[: reason]",
 * or the node that came back with --json.
 */
static int
node_action(struct ctl_client *cl, const struct ctl_args *a, const char *action,
    const char *body, const char *done)
{
	char path[256], what[API_NAME_MAX + 16];
	const char *name = a->pos[0];
	struct ctl_reply r;
	int rc;

	if (body == NULL)
		return ctl_fail("out of memory");
	snprintf(what, sizeof(what), "node %s", name);
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", name, action) == -1)
		return ctl_fail("%s: name too long", what);
	rc = ctl_call(cl, "POST", path, body, what, &r);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK)
		printf("%s %s%s%s\n", name, done, a->reason != NULL ? ": " : "",
		    a->reason != NULL ? a->reason : "");
	ctl_reply_free(&r);
	return rc;
}

/* cordon and down: a node name and a reason. */
static int
node_with_reason(struct ctl_client *cl, const struct ctl_args *a, const char *cmd,
    const char *usage, const char *action, const char *done)
{
	char *body;
	int rc;

	if ((rc = ctl_name_check(cmd, "node", a->pos[0])) != CTL_EXIT_OK ||
	    (rc = ctl_reason_check(cmd, usage, a->reason, "--reason")) != CTL_EXIT_OK)
		return rc;
	body = api_json_reason(a->reason);
	rc = node_action(cl, a, action, body, done);
	free(body);
	return rc;
}

int
ctl_node_cordon(struct ctl_client *cl, const struct ctl_args *a)
{
	return node_with_reason(cl, a, "node cordon", "NODE --reason TEXT", "/cordon",
	    "cordoned");
}

int
ctl_node_down(struct ctl_client *cl, const struct ctl_args *a)
{
	return node_with_reason(cl, a, "node down", "NODE --reason TEXT", "/down",
	    "marked down");
}

int
ctl_node_uncordon(struct ctl_client *cl, const struct ctl_args *a)
{
	int rc;

	if ((rc = ctl_name_check("node uncordon", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	return node_action(cl, a, "/uncordon", "{}", "uncordoned");
}

int
ctl_node_remove(struct ctl_client *cl, const struct ctl_args *a)
{
	char path[256], what[API_NAME_MAX + 16];
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("node remove", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	snprintf(what, sizeof(what), "node %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "") == -1)
		return ctl_fail("%s: name too long", what);
	rc = ctl_call(cl, "DELETE", path, NULL, what, &r);   /* 204 */
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_done("removed", a->pos[0], 1);
	else if (rc == CTL_EXIT_OK)
		printf("%s removed\n", a->pos[0]);
	ctl_reply_free(&r);
	return rc;
}

/* "mac1 accepted: ready", or pending with what it waits for. */
int
ctl_node_accept(struct ctl_client *cl, const struct ctl_args *a)
{
	char path[256], what[API_NAME_MAX + 16], err[256], *body;
	struct api_node n;
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("node accept", "node", a->pos[0])) != CTL_EXIT_OK ||
	    (a->reason != NULL && (rc = ctl_reason_check("node accept", "NODE [--reason TEXT]",
	    a->reason, "--reason")) != CTL_EXIT_OK))
		return rc;
	snprintf(what, sizeof(what), "node %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "/accept") == -1)
		return ctl_fail("%s: name too long", what);
	if ((body = api_json_reason(a->reason)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK && api_json_decode_node(r.body, r.len, &n, err,
	    sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the node: %s", err);
	else if (rc == CTL_EXIT_OK && n.reason[0] != '\0')
		printf("%s accepted: %s (%s)\n", n.name, api_node_state_str(n.state), n.reason);
	else if (rc == CTL_EXIT_OK)
		printf("%s accepted: %s\n", n.name, api_node_state_str(n.state));
	ctl_reply_free(&r);
	return rc;
}
