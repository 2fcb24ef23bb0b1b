/*
 * tbctl wiring check [CLUSTER], wiring plan CLUSTER [--topology T] [--save],
 * wiring import CLUSTER FILE, wiring export CLUSTER, wiring expect CLUSTER T.
 *
 * check exits 0 when every expected link passes, 1 when any fails, 2 on
 * an error (usage, controller unreachable, no such cluster).
 */
#include "ctl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "wiring_types.h"
#include "wiring_json.h"

#define DOT_FILE_MAX (1024 * 1024)

static int
link_row(struct ctl_table *t, const struct wiring_link *l, const char *verdict)
{
	char speed[32] = "";

	if (!isnan(l->speed_gbps))
		snprintf(speed, sizeof(speed), "%g", l->speed_gbps);
	const char *cells[] = { l->id, verdict, l->expected, l->actual, speed, l->fix };
	return ctl_table_add(t, cells);
}

int
ctl_wiring_print(FILE *f, const struct wiring_result *r)
{
	static const char *headers[] = { "LINK", "VERDICT", "EXPECTED", "ACTUAL", "GB/S", "FIX" };
	struct ctl_table *t = ctl_table_new(6, headers);
	int rc = 0;

	if (t == NULL)
		return -1;
	fprintf(f, "cluster %s (%s): %s\n", r->cluster, wiring_topology_str(r->topology),
	    r->verdict_text);
	for (int k = 0; rc == 0 && k < r->n_links; k++)
		rc = link_row(t, &r->links[k], wiring_verdict_str(r->links[k].verdict));
	for (int k = 0; rc == 0 && k < r->n_unexpected; k++)
		rc = link_row(t, &r->unexpected[k], "unexpected");
	if (rc == 0 && ctl_table_rows(t) > 0)
		ctl_table_print(t, f, 0);
	else if (rc == 0)
		fprintf(f, "no links expected and none seen\n");
	for (int k = 0; rc == 0 && k < r->n_reasons; k++)
		fprintf(f, "%s%s\n", k == 0 ? "reasons: " : "         ", r->reasons[k]);
	ctl_table_free(t);
	return rc;
}

int
ctl_plan_print(FILE *f, const struct wiring_plan_doc *p)
{
	static const char *headers[] = { "CABLE", "FROM", "RECEPTACLE", "TO", "RECEPTACLE" };
	struct ctl_table *t;
	char num[16];

	if (p->topology != WIRING_TOPO_PLAN) {
		fprintf(f, "cluster %s expects a full %s on any receptacles (no plan)\n",
		    p->cluster, p->topology == WIRING_TOPO_RING ? "ring" : "mesh");
		return 0;
	}
	if ((t = ctl_table_new(5, headers)) == NULL)
		return -1;
	for (int k = 0; k < p->n_links; k++) {
		const struct wiring_plan_link *l = &p->links[k];

		snprintf(num, sizeof(num), "%d", k + 1);
		const char *cells[] = { num, l->a.node, l->a.receptacle, l->b.node,
			l->b.receptacle };
		ctl_table_add(t, cells);
	}
	fprintf(f, "cluster %s: %d cable%s\n", p->cluster, p->n_links, p->n_links == 1 ? "" : "s");
	return ctl_table_end(t, f, 0);
}

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

/* Check one cluster, print it; *failed set when a link fails.  0 or 2. */
static int
check_one(struct ctl_client *cl, const char *cluster, int json, int first, int *failed)
{
	struct wiring_result *res;
	struct ctl_reply r;
	int rc = fetch_check(cl, cluster, &r, &res);

	if (rc == CTL_EXIT_OK) {
		for (int k = 0; k < res->n_links; k++)
			*failed |= !res->links[k].pass;
		if (json)
			printf("%s%.*s", first ? "" : ",", (int)r.len, r.body);
		else {
			if (!first)
				printf("\n");
			if (ctl_wiring_print(stdout, res) == -1)
				rc = ctl_fail("out of memory");
		}
	}
	wiring_result_free(res);
	ctl_reply_free(&r);
	return rc == CTL_EXIT_OK ? CTL_EXIT_OK : CTL_EXIT_USAGE;
}

int
ctl_wiring_check(struct ctl_client *cl, const struct ctl_args *a)
{
	struct api_cluster *c = NULL;
	int failed = 0, rc, n = 0, json = ctl_want_json(cl, a);

	if (a->npos == 1) {
		if (ctl_name_check("wiring check", "cluster", a->pos[0]) != CTL_EXIT_OK)
			return CTL_EXIT_USAGE;
		if (json) {
			struct wiring_result *res;
			struct ctl_reply r;

			if ((rc = fetch_check(cl, a->pos[0], &r, &res)) == CTL_EXIT_OK) {
				for (int k = 0; k < res->n_links; k++)
					failed |= !res->links[k].pass;
				rc = ctl_json_print(r.body, r.len);
			}
			wiring_result_free(res);
			ctl_reply_free(&r);
			return rc != CTL_EXIT_OK ? CTL_EXIT_USAGE : failed;
		}
		rc = check_one(cl, a->pos[0], 0, 1, &failed);
		return rc != CTL_EXIT_OK ? rc : failed;
	}
	if (all_clusters(cl, &c, &n) != CTL_EXIT_OK)
		return CTL_EXIT_USAGE;
	if (json)
		printf("{\"clusters\":[");
	rc = CTL_EXIT_OK;
	for (int k = 0; k < n && rc == CTL_EXIT_OK; k++)
		rc = check_one(cl, c[k].name, json, k == 0, &failed);
	if (json)
		printf("]}\n");
	else if (n == 0)
		printf("no clusters\n");
	free(c);
	return rc != CTL_EXIT_OK ? rc : failed;
}

/* Print a plan reply (JSON or a table). */
static int
print_plan_reply(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_reply *r)
{
	struct wiring_plan_doc doc;
	char err[256];
	int rc = CTL_EXIT_OK;

	if (ctl_want_json(cl, a))
		return ctl_json_print(r->body, r->len);
	if (wiring_json_decode_plan(r->body, r->len, &doc, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the plan: %s", err);
	if (ctl_plan_print(stdout, &doc) == -1)
		rc = ctl_fail("out of memory");
	wiring_plan_doc_free(&doc);
	return rc;
}

static int
plan_call(struct ctl_client *cl, const struct ctl_args *a, const char *cluster,
    const char *method, const char *suffix, const char *body)
{
	char path[256], what[96];
	struct ctl_reply r;
	int rc;

	snprintf(what, sizeof(what), "cluster %s", cluster);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", cluster, suffix) == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, method, path, body, what, &r)) == CTL_EXIT_OK)
		rc = print_plan_reply(cl, a, &r);
	ctl_reply_free(&r);
	return rc;
}

int
ctl_wiring_plan(struct ctl_client *cl, const struct ctl_args *a)
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
	return plan_call(cl, a, a->pos[0], "POST", suffix, NULL);
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

int
ctl_wiring_import(struct ctl_client *cl, const struct ctl_args *a)
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
	rc = plan_call(cl, a, a->pos[0], "PUT", "/wiring/plan", body);
	free(body);
	return rc;
}

int
ctl_wiring_expect(struct ctl_client *cl, const struct ctl_args *a)
{
	char body[64];
	int rc;

	if ((rc = ctl_name_check("wiring expect", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	if (strcmp(a->pos[1], "mesh") != 0 && strcmp(a->pos[1], "ring") != 0)
		return ctl_usage("wiring expect: \"%s\" is not mesh or ring (import a plan with "
		    "tbctl wiring import)", a->pos[1]);
	snprintf(body, sizeof(body), "{\"topology\":\"%s\"}", a->pos[1]);
	return plan_call(cl, a, a->pos[0], "PUT", "/wiring/plan", body);
}

int
ctl_wiring_export(struct ctl_client *cl, const struct ctl_args *a)
{
	char path[256], what[96], err[256];
	struct wiring_plan_doc doc;
	struct ctl_reply r;
	int rc;

	if ((rc = ctl_name_check("wiring export", "cluster", a->pos[0])) != CTL_EXIT_OK)
		return rc;
	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	if (ctl_path(cl, path, sizeof(path), "/v1/clusters/", a->pos[0], "/wiring/plan") == -1)
		return ctl_fail("%s: name too long", what);
	if ((rc = ctl_call(cl, "GET", path, NULL, what, &r)) != CTL_EXIT_OK)
		goto out;
	if (ctl_want_json(cl, a)) {
		rc = ctl_json_print(r.body, r.len);
		goto out;
	}
	if (wiring_json_decode_plan(r.body, r.len, &doc, err, sizeof(err)) == -1) {
		rc = ctl_fail("cannot decode the plan: %s", err);
		goto out;
	}
	if (doc.topology != WIRING_TOPO_PLAN || doc.dot == NULL)
		rc = ctl_fail("%s expects a %s, not a plan (tbctl wiring plan %s --topology %s "
		    "--save makes one)", what, wiring_topology_str(doc.topology), a->pos[0],
		    wiring_topology_str(doc.topology));
	else
		fputs(doc.dot, stdout);
	wiring_plan_doc_free(&doc);
out:
	ctl_reply_free(&r);
	return rc;
}
