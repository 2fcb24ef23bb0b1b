/*
 * tbctl cluster create NAME, cluster add NAME NODE..., cluster allow and
 * cluster disallow NAME SERIAL..., clusters.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"
#include "ctl_output.h"

int
ctl_cluster_create(struct ctl_client *cl, const struct ctl_args *a)
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
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK)
		printf("cluster %s created\n", a->pos[0]);
	ctl_reply_free(&r);
	return rc;
}

/* "mac1, mac2 and mac3" on stdout. */
static void
print_names(const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		printf("%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
}

int
ctl_cluster_add(struct ctl_client *cl, const struct ctl_args *a)
{
	const char *const *nodes = a->pos + 1;
	char path[256], what[API_NAME_MAX + 16], *body;
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
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK) {
		print_names(nodes, n);
		printf(" added to cluster %s\n", a->pos[0]);
	}
	ctl_reply_free(&r);
	return rc;
}

/* allow-list, cluster allow, cluster disallow: "NAME SERIAL..." */
static int
allow_change(struct ctl_client *cl, const struct ctl_args *a, const char *cmd,
    const char *action, const char *done)
{
	const char *const *serials = a->pos + 1;
	char path[256], what[API_NAME_MAX + 16], *body;
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
	if (rc == CTL_EXIT_OK && ctl_want_json(cl, a))
		rc = ctl_json_print(r.body, r.len);
	else if (rc == CTL_EXIT_OK) {
		print_names(serials, n);
		printf(" %s cluster %s's allow-list\n", done, a->pos[0]);
	}
	ctl_reply_free(&r);
	return rc;
}

int
ctl_cluster_allow(struct ctl_client *cl, const struct ctl_args *a)
{
	return allow_change(cl, a, "cluster allow", "/allow", "on");
}

int
ctl_cluster_disallow(struct ctl_client *cl, const struct ctl_args *a)
{
	return allow_change(cl, a, "cluster disallow", "/disallow", "off");
}

/* "A B C" into buf, "-" for none. */
static const char *
fmt_allow(const struct api_names *l, char *buf, size_t n)
{
	size_t len = 0;

	snprintf(buf, n, "-");
	for (int i = 0; i < l->n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", l->v[i]);
	return buf;
}

int
ctl_clusters_print(FILE *f, const struct api_cluster *c, int n, double now)
{
	static const char *headers[] = { "NAME", "NODES", "CREATED", "ALLOWED" };
	struct ctl_table *t = ctl_table_new(4, headers);
	char nodes[16], created[CTL_FMT_MAX], allow[API_ALLOW_MAX * (API_NAME_MAX + 1) + 2];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(nodes, sizeof(nodes), "%d", c[i].n_nodes);
		const char *cells[] = { c[i].name, nodes,
			ctl_fmt_age(c[i].created_at, now, created, sizeof(created)),
			fmt_allow(&c[i].allow, allow, sizeof(allow)) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
show_clusters(const char *body, size_t len, char *err, size_t errlen)
{
	struct api_cluster *c = NULL;
	int n, rc = -1;

	if (api_json_decode_clusters(body, len, &c, &n, err, errlen) == 0)
		rc = ctl_clusters_print(stdout, c, n, ctl_now()) == -1 ? CTL_SHOW_OOM : 0;
	free(c);
	return rc;
}

int
ctl_clusters_list(struct ctl_client *cl, const struct ctl_args *a)
{
	return ctl_get_show(cl, a, "/v1/clusters", "the list of clusters", show_clusters);
}
