/*
 * tbctl models, models add FILE, place MODEL, placements, placement
 * show|remove|replan ID: the model catalog and placements.
 */
#include "ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "catalog.h"
#include "ctl_http.h"
#include "plan.h"

#define FILE_MAX ((size_t)4 << 20)

static ctl_handler models_list, models_add, place, placements_list, placement_show,
    placement_remove, placement_replan;

const struct ctl_cmd ctl_cmd_models = {
	.name = "models",
	.usage = "",
	.help =
	    "List the model catalog.\n"
	    "PARAMS and ACTIVE are total and active parameters, ATTENTION the kind\n"
	    "(MLA or GQA) with attention/KV heads, KV/TOKEN the KV cache per token,\n"
	    "TENSOR whether tensor sharding is supported, VARIANTS the sizes of the\n"
	    "weights per quantisation.  --json has every number's source.\n",
	.min_pos = 0, .max_pos = 0,
	.handler = models_list,
};

const struct ctl_cmd ctl_cmd_models_add = {
	.name = "models add",
	.usage = "FILE",
	.help =
	    "Add a model to the catalog from a JSON file.\n"
	    "FILE holds one model object, in the shape of one entry of\n"
	    "tbctl models --json; it is checked here and by the controller.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = models_add,
};

const struct ctl_cmd ctl_cmd_place = {
	.name = "place",
	.usage = "MODEL [--cluster C] [--strategy S] [--context N] [--nodes a,b,c] "
	    "[--runtime R] [--entry E] [--fast-synch] [--hostfile FILE] [--apply]",
	.help =
	    "Plan where a model runs; with --apply, record the placement.\n"
	    "MODEL is NAME:QUANT from tbctl models (deepseek-v3.1:4bit).  Prints the\n"
	    "ranks (layers, weights, KV cache, total, usable memory, free after), the\n"
	    "decode estimate of each strategy, and the mlx.launch command.\n"
	    "  --cluster C        the cluster (default: the only one)\n"
	    "  --strategy S       auto (default: the fastest that fits), tensor,\n"
	    "                     pipeline or single\n"
	    "  --context N        tokens of KV cache per sequence (default 8192)\n"
	    "  --nodes a,b,c      use exactly these nodes (default: the smallest set of\n"
	    "                     the cluster's ready nodes that fits)\n"
	    "  --runtime R        mlx-lm (default: mlx.launch and mlx-lm 0.32.0's rules)\n"
	    "                     or exo (its rules; exo starts the model itself)\n"
	    "  --entry E          the mlx-lm entry point the launch line runs: chat\n"
	    "                     (default) or server\n"
	    "  --fast-synch       set MLX_METAL_FAST_SYNCH=1 (off: MLX's docs say it can\n"
	    "                     deadlock and wedge the GPU)\n"
	    "Nodes on different macOS builds (a rolling update half done) are not RDMA\n"
	    "peers: no tensor plan or jaccl ring across them; the why line says so.\n"
	    "  --hostfile FILE    write the mlx.launch hostfile to FILE\n"
	    "  --apply            record it: its memory is held on its nodes\n",
	.opts = CTL_OPT(CLUSTER) | CTL_OPT(STRATEGY) | CTL_OPT(CONTEXT) | CTL_OPT(NODES) |
	    CTL_OPT(HOSTFILE) | CTL_OPT(APPLY) | CTL_OPT(RUNTIME) | CTL_OPT(ENTRY) |
	    CTL_OPT(FAST_SYNCH),
	.min_pos = 1, .max_pos = 1,
	.handler = place,
};

const struct ctl_cmd ctl_cmd_placements = {
	.name = "placements",
	.usage = "",
	.help =
	    "List the placements applied.\n"
	    "STATE is active, or degraded when one of its nodes became unreachable,\n"
	    "down or cordoned, or an OS update rollout stopped it (it restores it at\n"
	    "its end); tbctl placement replan ID proposes another.\n",
	.min_pos = 0, .max_pos = 0,
	.handler = placements_list,
};

const struct ctl_cmd ctl_cmd_placement_show = {
	.name = "placement show",
	.usage = "ID [--hostfile FILE]",
	.help =
	    "Show a placement: its ranks, estimate, hostfile and launch command.\n"
	    "  --hostfile FILE    write its mlx.launch hostfile to FILE\n",
	.opts = CTL_OPT(HOSTFILE),
	.min_pos = 1, .max_pos = 1,
	.handler = placement_show,
};

const struct ctl_cmd ctl_cmd_placement_remove = {
	.name = "placement remove",
	.usage = "ID",
	.help =
	    "Remove a placement; the memory it held is free again.\n",
	.min_pos = 1, .max_pos = 1,
	.handler = placement_remove,
};

const struct ctl_cmd ctl_cmd_placement_replan = {
	.name = "placement replan",
	.usage = "ID [--hostfile FILE]",
	.help =
	    "Propose a new plan for a placement's model on what is left.\n"
	    "Nodes that are not ready are left out and the placement's own memory is\n"
	    "counted as free.  Nothing is recorded: apply the proposal with tbctl\n"
	    "place --apply, then remove the old placement.\n"
	    "  --hostfile FILE    write the proposal's hostfile to FILE\n",
	.opts = CTL_OPT(HOSTFILE),
	.min_pos = 1, .max_pos = 1,
	.handler = placement_replan,
};

int
ctl_place_request(const struct ctl_args *a, struct plan_request *req, char *err,
    size_t errlen)
{
	long v;

	memset(req, 0, sizeof(*req));
	if (strlen(a->pos[0]) > PLAN_MODEL_MAX || strchr(a->pos[0], ':') == NULL) {
		snprintf(err, errlen, "place: \"%s\" is not MODEL:QUANT (deepseek-v3.1:4bit; "
		    "tbctl models lists them)", a->pos[0]);
		return -1;
	}
	snprintf(req->model, sizeof(req->model), "%s", a->pos[0]);
	if (a->cluster != NULL && !api_name_valid(a->cluster)) {
		snprintf(err, errlen, "place: --cluster: \"%s\" is not a cluster name", a->cluster);
		return -1;
	}
	if (a->cluster != NULL)
		snprintf(req->cluster, sizeof(req->cluster), "%s", a->cluster);
	if (a->strategy != NULL && plan_strategy_parse(a->strategy, &req->strategy) == -1) {
		snprintf(err, errlen, "place: --strategy: \"%s\" is not auto, tensor, pipeline "
		    "or single", a->strategy);
		return -1;
	}
	if (a->runtime != NULL && plan_runtime_parse(a->runtime, &req->runtime) == -1) {
		snprintf(err, errlen, "place: --runtime: \"%s\" is not mlx-lm or exo", a->runtime);
		return -1;
	}
	if (a->entry != NULL && strcmp(a->entry, "chat") != 0 && strcmp(a->entry, "server") != 0) {
		snprintf(err, errlen, "place: --entry: \"%s\" is not chat or server", a->entry);
		return -1;
	}
	if (a->entry != NULL)
		snprintf(req->entry, sizeof(req->entry), "%s", a->entry);
	req->fast_synch = a->fast_synch;
	if (a->context != NULL) {
		if (ctl_parse_count(a->context, 1, PLAN_CONTEXT_MAX, &v) == -1) {
			snprintf(err, errlen, "place: --context: \"%s\" is not a token count from 1 "
			    "to %d", a->context, PLAN_CONTEXT_MAX);
			return -1;
		}
		req->context = v;
	}
	for (const char *s = a->nodes; s != NULL && *s;) {
		size_t l = strcspn(s, ",");
		if (req->n_nodes == PLAN_RANKS_MAX || l == 0 || l > API_NAME_MAX) {
			snprintf(err, errlen, "place: --nodes: give up to %d node names, a,b,c",
			    PLAN_RANKS_MAX);
			return -1;
		}
		memcpy(req->nodes[req->n_nodes], s, l);
		req->nodes[req->n_nodes][l] = '\0';
		if (!api_name_valid(req->nodes[req->n_nodes])) {
			snprintf(err, errlen, "place: --nodes: \"%s\" is not a node name",
			    req->nodes[req->n_nodes]);
			return -1;
		}
		req->n_nodes++;
		s += l + (s[l] == ',');
	}
	return 0;
}

static int
models_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/models", out->models);
}

/* The whole file into a malloc'd, NUL-terminated buffer; NULL with err. */
static char *
read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((buf = malloc(FILE_MAX + 1)) == NULL) {
		fclose(fp);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*len = fread(buf, 1, FILE_MAX + 1, fp);
	int bad = ferror(fp) || *len > FILE_MAX;
	fclose(fp);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: unreadable or larger than %zu bytes", path, FILE_MAX);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

static int
models_add(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct catalog_model m;
	struct ctl_reply r;
	char err[512], what[CATALOG_NAME_MAX + 16];
	size_t len;
	char *body = read_file(a->pos[0], &len, err, sizeof(err));
	int rc;

	if (body == NULL)
		return ctl_fail("models add: %s", err);
	if (catalog_decode_model(body, len, &m, err, sizeof(err)) == -1) {
		free(body);
		return ctl_fail("models add: %s: %s", a->pos[0], err);
	}
	snprintf(what, sizeof(what), "model %s", m.name);
	rc = ctl_call(cl, "POST", "/v1/models", body, what, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = out->done(&r, "model %s added (%d variants)", m.name, m.n_variants);
	ctl_reply_free(&r);
	return rc;
}

static int
write_hostfile(const char *path, const struct plan *p)
{
	char *json = plan_json_hostfile(p);
	FILE *f;
	int ok;

	if (json == NULL)
		return ctl_fail("out of memory");
	if ((f = fopen(path, "w")) == NULL) {
		free(json);
		return ctl_fail("--hostfile: %s: %s", path, strerror(errno));
	}
	ok = fputs(json, f) >= 0 && fputc('\n', f) != EOF;
	ok = fclose(f) == 0 && ok;
	free(json);
	return ok ? CTL_EXIT_OK : ctl_fail("--hostfile: %s: write failed", path);
}

/* Show a reply holding one plan (and write its hostfile when asked). */
static int
show_plan_reply(const struct ctl_args *a, const struct ctl_output *out,
    const struct ctl_reply *r)
{
	struct plan *p = calloc(1, sizeof(*p));
	char err[512];
	int rc = CTL_EXIT_OK;

	if (p == NULL)
		return ctl_fail("out of memory");
	if (plan_json_decode(r->body, r->len, p, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the plan: %s", err);
	else if (a->hostfile != NULL)
		rc = write_hostfile(a->hostfile, p);
	if (rc == CTL_EXIT_OK)
		rc = out->plan(r, p, a->hostfile);
	free(p);
	return rc;
}

static int
place(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct plan_request req;
	struct ctl_reply r;
	char err[512];
	int rc;

	if (ctl_place_request(a, &req, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	char *body = plan_json_request(&req);
	if (body == NULL)
		return ctl_fail("out of memory");
	rc = ctl_call(cl, "POST", a->apply ? "/v1/placements" : "/v1/placements/plan", body,
	    req.model, &r);
	free(body);
	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(a, out, &r);
	ctl_reply_free(&r);
	return rc;
}

static int
placements_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	return ctl_get(cl, a, "/v1/placements", out->placements);
}

/* method on /v1/placements/ID[suffix]; the reply in *r. */
static int
placement_call(struct ctl_client *cl, const char *cmd, const char *id, const char *method,
    const char *suffix, struct ctl_reply *r)
{
	char path[128], what[64];
	long v;

	memset(r, 0, sizeof(*r));
	if (ctl_parse_count(id, 1, 2147483647L, &v) == -1)
		return ctl_usage("%s: \"%s\" is not a placement id (tbctl placements)", cmd, id);
	snprintf(path, sizeof(path), "/v1/placements/%ld%s", v, suffix);
	snprintf(what, sizeof(what), "placement %ld", v);
	return ctl_call(cl, method, path, strcmp(method, "POST") == 0 ? "{}" : NULL, what, r);
}

static int
placement_show(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement show", a->pos[0], "GET", "", &r);

	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(a, out, &r);
	ctl_reply_free(&r);
	return rc;
}

static int
placement_replan(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement replan", a->pos[0], "POST", "/replan", &r);

	if (rc == CTL_EXIT_OK)
		rc = show_plan_reply(a, out, &r);
	ctl_reply_free(&r);
	return rc;
}

static int
placement_remove(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	struct ctl_reply r;
	int rc = placement_call(cl, "placement remove", a->pos[0], "DELETE", "", &r);
	char id[32], what[48];

	/* 204; the id as a number, as the API has it ("007" is 7) */
	snprintf(id, sizeof(id), "%ld", strtol(a->pos[0], NULL, 10));
	snprintf(what, sizeof(what), "placement %s", id);
	if (rc == CTL_EXIT_OK)
		rc = out->deleted(what, "removed", id, 0);
	ctl_reply_free(&r);
	return rc;
}
