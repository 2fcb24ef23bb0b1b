/*
 * tbctl wiring check [CLUSTER], wiring plan CLUSTER [--topology T] [--save],
 * wiring import CLUSTER FILE, wiring export CLUSTER, wiring expect CLUSTER T.
 *
 * check exits 0 when every expected link passes, 1 when any fails, 2 on
 * an error (usage, controller unreachable, no such cluster).
 */
#include "ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"
#include "wiring_types.h"
#include "wiring_json.h"

#define DOT_FILE_MAX (1024 * 1024)

static ctl_handler wiring_check, wiring_plan, wiring_import, wiring_export, wiring_expect;

/* The verdicts, from proto's list (wiring_verdict_help), after the help. */
static void
wiring_verdicts_help(FILE *f)
{
	size_t n = wiring_verdict_help(NULL, 0);
	char *buf = malloc(n + 1);

	if (buf == NULL)
		return;
	wiring_verdict_help(buf, n + 1);
	fprintf(f, "Verdicts (a link with several problems shows the first of them):\n%s", buf);
	free(buf);
}

const struct ctl_cmd ctl_cmd_wiring_check = {
	.name = "wiring check",
	.usage = "[CLUSTER]",
	.help =
	    "Check the Thunderbolt cabling of a cluster, or of every cluster.\n"
	    "One line per expected link: its verdict, what was expected, what is\n"
	    "there, the speed and the fix; then the links nobody expected, and the\n"
	    "cluster's verdict with reasons.\n"
	    "Exit status: 0 every link passes, 1 a link fails, 2 an error.\n",
	.min_pos = 0, .max_pos = 1,
	.handler = wiring_check,
	.help_more = wiring_verdicts_help,
};

const struct ctl_cmd ctl_cmd_wiring_plan = {
	.name = "wiring plan",
	.usage = "CLUSTER [--topology mesh|ring] [--save]",
	.help =
	    "Propose a cabling plan, receptacle by receptacle.\n"
	    "Made from the receptacles the nodes report: none used twice, a\n"
	    "receptacle that does not carry RDMA avoided, cables already in place\n"
	    "kept.  Refused with the reason when it cannot be done (a full mesh of 8\n"
	    "needs 7 receptacles on each node).\n"
	    "  --topology T      mesh (default) or ring (in name order)\n"
	    "  --save            make it the cluster's expected wiring\n",
	.opts = CTL_OPT(TOPOLOGY) | CTL_OPT(SAVE),
	.min_pos = 1, .max_pos = 1,
	.handler = wiring_plan,
};

const struct ctl_cmd ctl_cmd_wiring_import = {
	.name = "wiring import",
	.usage = "CLUSTER FILE",
	.help =
	    "Make a DOT file the cluster's cabling plan.\n"
	    "Links are written \"mac1\":\"tb2\" -- \"mac2\":\"tb5\" (PTM and\n"
	    "mlx.distributed_config --dot style); comments and attributes are\n"
	    "ignored; a link without ports accepts any receptacle.\n",
	.min_pos = 2, .max_pos = 2,
	.handler = wiring_import,
};

const struct ctl_cmd ctl_cmd_wiring_export = {
	.name = "wiring export",
	.usage = "CLUSTER",
	.help =
	    "Print the cluster's cabling plan as DOT.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = wiring_export,
};

const struct ctl_cmd ctl_cmd_wiring_expect = {
	.name = "wiring expect",
	.usage = "CLUSTER mesh|ring",
	.help =
	    "Expect a full mesh or a ring on any receptacles (drops a plan).\n",
	.min_pos = 2, .max_pos = 2,
	.handler = wiring_expect,
};

/* One cluster's check: its reply into *res; CTL_EXIT_OK or an error printed. */
static int
fetch_check(struct ctl_client *cl, const char *cluster, struct ctl_reply *r,
    struct wiring_result **res)
{
	char path[256], what[96], err[256];
	int rc;

	*res = NULL;
	snprintf(what, sizeof(what), "cluster %s", cluster);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", cluster, "/wiring") == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, "GET", path, NULL, what, r)) != CTL_EXIT_OK)
		return rc;
	if (wiring_json_decode_result(r->body, r->len, res, err, sizeof(err)) == -1)
		return ctl_fail("%s: cannot decode the wiring check: %s", what, err);
	return CTL_EXIT_OK;
}

/* The names of every cluster (malloc'd). */
static int
all_clusters(struct ctl_client *cl, struct api_cluster **c, int *n)
{
	struct ctl_reply r;
	char err[256];
	int rc;

	*c = NULL;
	*n = 0;
	if ((rc = ctl_call(cl, "GET", "/v1/clusters", NULL, NULL, &r)) == CTL_EXIT_OK &&
	    api_json_decode_clusters(r.body, r.len, c, n, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the list of clusters: %s", err);
	ctl_reply_free(&r);
	return rc;
}

/* *failed set when a link of res fails. */
static void
note_failed(const struct wiring_result *res, int *failed)
{
	for (int k = 0; k < res->n_links; k++)
		*failed |= !res->links[k].pass;
}

/* wiring check CLUSTER: 0, 1 when a link fails, 2 on an error. */
static int
check_cluster(struct ctl_client *cl, const struct ctl_output *out, const char *cluster)
{
	struct wiring_result *res;
	struct ctl_reply r;
	int failed = 0, rc = fetch_check(cl, cluster, &r, &res);

	if (rc == CTL_EXIT_OK) {
		note_failed(res, &failed);
		rc = out->wiring(&r, res);
	}
	wiring_result_free(res);
	ctl_reply_free(&r);
	return rc != CTL_EXIT_OK ? CTL_EXIT_USAGE : failed;
}

/* One cluster of every cluster's check; *failed set when a link fails.  0 or 2. */
static int
check_one(struct ctl_client *cl, const struct ctl_output *out, const char *cluster, int first,
    int *failed)
{
	struct wiring_result *res;
	struct ctl_reply r;
	int rc = fetch_check(cl, cluster, &r, &res);

	if (rc == CTL_EXIT_OK) {
		note_failed(res, failed);
		rc = out->wiring_item(&r, res, first);
	}
	wiring_result_free(res);
	ctl_reply_free(&r);
	return rc == CTL_EXIT_OK ? CTL_EXIT_OK : CTL_EXIT_USAGE;
}

static int
wiring_check(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct api_cluster *c = NULL;
	int failed = 0, rc = CTL_EXIT_OK, n = 0;

	if (a->npos == 1) {
		if (ctl_name_check("wiring check", "cluster", a->pos[0]) != CTL_EXIT_OK)
			return CTL_EXIT_USAGE;
		return check_cluster(cl, out, a->pos[0]);
	}
	if (all_clusters(cl, &c, &n) != CTL_EXIT_OK)
		return CTL_EXIT_USAGE;
	out->wiring_head();
	for (int k = 0; k < n && rc == CTL_EXIT_OK; k++)
		rc = check_one(cl, out, c[k].name, k == 0, &failed);
	out->wiring_tail(n);
	free(c);
	return rc != CTL_EXIT_OK ? rc : failed;
}

/* method on the cluster's plan; out shows the plan that comes back. */
static int
plan_call(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out,
    const char *cluster, const char *method, const char *suffix, const char *body)
{
	char path[256], what[96];
	struct ctl_reply r;
	int rc;

	snprintf(what, sizeof(what), "cluster %s", cluster);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", cluster, suffix) == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, method, path, body, what, &r)) == CTL_EXIT_OK)
		rc = out->cabling(&r, a);
	ctl_reply_free(&r);
	return rc;
}

static int
wiring_plan(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	const char *t = a->topology ? a->topology : "mesh";
	char suffix[96];
	int rc;

	if ((rc = ctl_name_check("wiring plan", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (strcmp(t, "mesh") != 0 && strcmp(t, "ring") != 0)
		return ctl_usage("wiring plan: --topology: \"%s\" is not mesh or ring", t);
	snprintf(suffix, sizeof(suffix), "/wiring/plan?topology=%s%s", t,
	    a->save ? "&save=1" : "");
	return plan_call(cl, a, out, a->pos[0], "POST", suffix, NULL);
}

/* The whole file into a NUL-terminated buffer; NULL with a message printed. */
static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (f == NULL) {
		ctl_errx("wiring import: %s: %s", path, strerror(errno));
		return NULL;
	}
	if ((buf = malloc(DOT_FILE_MAX + 1)) == NULL) {
		fclose(f);
		ctl_errx("out of memory");
		return NULL;
	}
	n = fread(buf, 1, DOT_FILE_MAX + 1, f);
	if (ferror(f) || n > DOT_FILE_MAX) {
		ctl_errx("wiring import: %s: %s", path, ferror(f) ? strerror(errno) :
		    "larger than 1 MiB");
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static int
wiring_import(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct wiring_plan_doc doc;
	char *body;
	int rc;

	if ((rc = ctl_name_check("wiring import", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	memset(&doc, 0, sizeof(doc));
	doc.topology = WIRING_TOPO_PLAN;
	if ((doc.dot = read_file(a->pos[1])) == NULL)
		return CTL_EXIT_FAIL;
	if (strlen(doc.dot) == 0) {
		free(doc.dot);
		return ctl_fail("wiring import: %s is empty", a->pos[1]);
	}
	body = wiring_json_plan(&doc);
	free(doc.dot);
	if (body == NULL)
		return ctl_fail("out of memory");
	rc = plan_call(cl, a, out, a->pos[0], "PUT", "/wiring/plan", body);
	free(body);
	return rc;
}

static int
wiring_expect(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char body[64];
	int rc;

	if ((rc = ctl_name_check("wiring expect", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (strcmp(a->pos[1], "mesh") != 0 && strcmp(a->pos[1], "ring") != 0)
		return ctl_usage("wiring expect: \"%s\" is not mesh or ring (import a plan with "
		    "tbctl wiring import)", a->pos[1]);
	snprintf(body, sizeof(body), "{\"topology\":\"%s\"}", a->pos[1]);
	return plan_call(cl, a, out, a->pos[0], "PUT", "/wiring/plan", body);
}

static int
wiring_export(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], what[96];
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("wiring export", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", a->pos[0], "/wiring/plan") == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, "GET", path, NULL, what, &r)) == CTL_EXIT_OK)
		rc = out->dot(&r, a);
	ctl_reply_free(&r);
	return rc;
}
