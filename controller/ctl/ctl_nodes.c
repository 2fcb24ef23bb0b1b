/*
 * tbctl nodes, node cordon, node uncordon, node down, node remove, node
 * accept: the nodes as the inventory has them, and what an operator changes
 * about one (node show is in ctl_show.c, node history in ctl_history.c).
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"

static ctl_handler nodes_list, node_cordon, node_uncordon, node_down, node_remove,
    node_accept;

const struct ctl_cmd ctl_cmd_nodes = {
	.name = "nodes",
	.usage = "",
	.help =
	    "List the nodes.\n"
	    "Sorted by name.  STATE ends in '*' when the node rebooted without a\n"
	    "requested reboot.  MEMORY is used/total, OS the macOS build, AGE the\n"
	    "time since the node's last report.\n",
	.min_pos = 0, .max_pos = 0,
	.handler = nodes_list,
};

const struct ctl_cmd ctl_cmd_node_cordon = {
	.name = "node cordon",
	.usage = "NODE --reason TEXT",
	.help =
	    "Stop new placements on a node.\n"
	    "  --reason TEXT     why (required; kept in the event log)\n",
	.opts = CTL_OPT(REASON),
	.min_pos = 1, .max_pos = 1,
	.handler = node_cordon,
};

const struct ctl_cmd ctl_cmd_node_uncordon = {
	.name = "node uncordon",
	.usage = "NODE",
	.help =
	    "Allow placements on a cordoned node again.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = node_uncordon,
};

const struct ctl_cmd ctl_cmd_node_down = {
	.name = "node down",
	.usage = "NODE --reason TEXT",
	.help =
	    "Mark a node down.\n"
	    "  --reason TEXT     why (required; kept in the event log)\n",
	.opts = CTL_OPT(REASON),
	.min_pos = 1, .max_pos = 1,
	.handler = node_down,
};

const struct ctl_cmd ctl_cmd_node_remove = {
	.name = "node remove",
	.usage = "NODE",
	.help =
	    "Remove a node from the inventory.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = node_remove,
};

const struct ctl_cmd ctl_cmd_node_accept = {
	.name = "node accept",
	.usage = "NODE [--reason TEXT]",
	.help =
	    "Accept a pending node, or a pending re-enrolment of a known one.\n"
	    "A node enrolled with a bootstrap token waits as pending unless the token\n"
	    "was made with --accept or its serial is on its cluster's allow-list.\n"
	    "Accepted, it is ready at once if its latest report is fresh and healthy,\n"
	    "else at its next healthy report.  Accepting a re-enrolment makes its\n"
	    "token the node's only one (the others are revoked) and its report the\n"
	    "node's latest.\n"
	    "  --reason TEXT     why (optional; kept in the event log)\n",
	.opts = CTL_OPT(REASON),
	.min_pos = 1, .max_pos = 1,
	.handler = node_accept,
};

static int
nodes_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/nodes", out->nodes);
}

/*
 * POST /v1/nodes/NAME/<action> with body, then "NAME <done>[: reason]" for
 * people.
 */
static int
node_action(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out,
    const char *action, const char *body, const char *done)
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
	if ((rc = ctl_call(cl, "POST", path, body, what, &r)) == CTL_EXIT_OK)
		rc = out->done(&r, "%s %s%s%s", name, done, a->reason != NULL ? ": " : "",
		    a->reason != NULL ? a->reason : "");
	ctl_reply_free(&r);
	return rc;
}

/* cordon and down: a node name and a reason. */
static int
node_with_reason(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out,
    const struct ctl_cmd *cmd, const char *action, const char *done)
{
	char *body;
	int rc;

	if ((rc = ctl_name_check(cmd->name, "node", a->pos[0])) != CTL_EXIT_OK ||
	    (rc = ctl_reason_check(cmd->name, cmd->usage, a->reason, "--reason")) != CTL_EXIT_OK)
		return rc;
	body = api_json_reason(a->reason);
	rc = node_action(cl, a, out, action, body, done);
	free(body);
	return rc;
}

static int
node_cordon(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return node_with_reason(cl, a, out, &ctl_cmd_node_cordon, "/cordon", "cordoned");
}

static int
node_down(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return node_with_reason(cl, a, out, &ctl_cmd_node_down, "/down", "marked down");
}

static int
node_uncordon(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	int rc;

	if ((rc = ctl_name_check("node uncordon", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	return node_action(cl, a, out, "/uncordon", "{}", "uncordoned");
}

static int
node_remove(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
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
	if (rc == CTL_EXIT_OK)
		rc = out->deleted(a->pos[0], "removed", a->pos[0], 1);
	ctl_reply_free(&r);
	return rc;
}

/* "mac1 accepted: ready", or pending with what it waits for. */
static int
node_accept(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], what[API_NAME_MAX + 16], *body;
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
	if (rc == CTL_EXIT_OK)
		rc = out->node_accepted(&r, a);
	ctl_reply_free(&r);
	return rc;
}
