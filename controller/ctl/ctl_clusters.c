/*
 * tbctl clusters, cluster create NAME, cluster add NAME NODE..., cluster
 * allow and cluster disallow NAME SERIAL...
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"

/* "a, b and c": up to CTL_POS_MAX names or serials, each checked valid. */
#define NAMES_MAX (CTL_POS_MAX * (API_NAME_MAX + 5) + 1)

static ctl_handler clusters_list, cluster_create, cluster_add, cluster_allow,
    cluster_disallow;

const struct ctl_cmd ctl_cmd_clusters = {
	.name = "clusters",
	.usage = "",
	.help =
	    "List the clusters.\n"
	    "NODES is how many nodes each has, CREATED how long ago it was created,\n"
	    "ALLOWED the serial numbers on its allow-list.\n",
	.min_pos = 0, .max_pos = 0,
	.handler = clusters_list,
};

const struct ctl_cmd ctl_cmd_cluster_create = {
	.name = "cluster create",
	.usage = "NAME",
	.help =
	    "Create an empty cluster.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = cluster_create,
};

const struct ctl_cmd ctl_cmd_cluster_add = {
	.name = "cluster add",
	.usage = "NAME NODE...",
	.help =
	    "Put nodes into a cluster.\n",
	.min_pos = 2, .max_pos = -1,
	.handler = cluster_add,
};

const struct ctl_cmd ctl_cmd_cluster_allow = {
	.name = "cluster allow",
	.usage = "NAME SERIAL...",
	.help =
	    "Put serial numbers on a cluster's allow-list.\n"
	    "A Mac whose serial is on it and that enrols with a bootstrap token for\n"
	    "the cluster is accepted at once, without tbctl node accept.\n",
	.min_pos = 2, .max_pos = -1,
	.handler = cluster_allow,
};

const struct ctl_cmd ctl_cmd_cluster_disallow = {
	.name = "cluster disallow",
	.usage = "NAME SERIAL...",
	.help =
	    "Take serial numbers off a cluster's allow-list.\n"
	    "Nodes already accepted stay as they are.\n",
	.min_pos = 2, .max_pos = -1,
	.handler = cluster_disallow,
};

static int
clusters_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/clusters", out->clusters);
}

static int
cluster_create(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char what[API_NAME_MAX + 16], *body;
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("cluster create", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if ((body = api_json_name(a->pos[0])) == NULL)
		return ctl_fail("out of memory");
	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	rc = ctl_call(cl, "POST", "/v1/clusters", body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = out->done(&r, "cluster %s created", a->pos[0]);
	ctl_reply_free(&r);
	return rc;
}

/* "mac1, mac2 and mac3" into buf (NAMES_MAX bytes). */
static const char *
names_join(const char *const *names, int n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
	return buf;
}

static int
cluster_add(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	const char *const *nodes = a->pos + 1;
	char path[256], what[API_NAME_MAX + 16], names[NAMES_MAX], *body;
	struct ctl_reply r;
	int rc, n = a->npos - 1;

	if ((rc = ctl_name_check("cluster add", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	for (int i = 0; i < n; i++)
		if ((rc = ctl_name_check("cluster add", "node", nodes[i])) != CTL_EXIT_OK)
			return rc;
	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", a->pos[0], "/nodes") == -1)
		return ctl_fail("%s: name too long", what);
	if ((body = api_json_names(nodes, n)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = out->done(&r, "%s added to cluster %s",
		    names_join(nodes, n, names, sizeof(names)), a->pos[0]);
	ctl_reply_free(&r);
	return rc;
}

/* cluster allow, cluster disallow: "NAME SERIAL..." */
static int
allow_change(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out,
    const char *cmd, const char *action, const char *done)
{
	const char *const *serials = a->pos + 1;
	char path[256], what[API_NAME_MAX + 16], names[NAMES_MAX], *body;
	struct ctl_reply r;
	int rc, n = a->npos - 1;

	if ((rc = ctl_name_check(cmd, "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	for (int i = 0; i < n; i++)
		if ((rc = ctl_name_check(cmd, "serial number", serials[i])) != CTL_EXIT_OK)
			return rc;
	if (n > API_ALLOW_MAX)
		return ctl_usage("%s: at most %d serial numbers at once", cmd, API_ALLOW_MAX);
	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", a->pos[0], action) == -1)
		return ctl_fail("%s: name too long", what);
	if ((body = api_json_serials(serials, n)) == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", path, body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = out->done(&r, "%s %s cluster %s's allow-list",
		    names_join(serials, n, names, sizeof(names)), done, a->pos[0]);
	ctl_reply_free(&r);
	return rc;
}

static int
cluster_allow(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return allow_change(cl, a, out, "cluster allow", "/allow", "on");
}

static int
cluster_disallow(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return allow_change(cl, a, out, "cluster disallow", "/disallow", "off");
}
