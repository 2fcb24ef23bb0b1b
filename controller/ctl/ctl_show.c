/*
 * tbctl node show NODE: the node as the inventory has it and its latest
 * report (ctl_output_node.c shows them to people).
 */
#include "ctl.h"

#include <stdio.h>

#include "api.h"
#include "ctl_http.h"

static ctl_handler node_show;

const struct ctl_cmd ctl_cmd_node_show = {
	.name = "node show",
	.usage = "NODE",
	.help =
	    "Show a node and its latest report.\n"
	    "Its state and reason, then what it last reported: identity,\n"
	    "Thunderbolt ports and peers, bridge, RDMA, memory, power, temperatures\n"
	    "and collection errors.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = node_show,
};

static int
node_show(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], what[API_NAME_MAX + 16];
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("node show", "node", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	snprintf(what, sizeof(what), "node %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/nodes/", a->pos[0], "") == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, "GET", path, NULL, what, &r)) == CTL_EXIT_OK)
		rc = out->node(&r, a);
	ctl_reply_free(&r);
	return rc;
}
