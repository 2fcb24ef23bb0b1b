/*
 * tbctl's output for people: ctl_output_text, the table of functions that
 * decode each kind of reply and print it as tables and lines, and the
 * printers they use (node show's is in ctl_output_node.c, the placements'
 * and models' in ctl_output_place.c).  The printers are pure: they format
 * what they are given, the time now included, into the FILE passed in.
 */
#include "ctl.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "api_samples.h"
#include "catalog.h"
#include "ctl_format.h"
#include "ctl_http.h"
#include "natcmp.h"
#include "plan.h"
#include "prov_api.h"
#include "report.h"
#include "rollout_api.h"
#include "wiring_json.h"
#include "wiring_types.h"

#define SHOW_OOM (-2)       /* a printer ran out of memory */

/*
 * How decoding and printing a reply went: rc 0, -1 when the reply does not
 * decode (why in err), SHOW_OOM; into an exit status, the failure said.
 */
static int
shown(int rc, const char *what, const char *err)
{
	if (rc == -1)
		return ctl_fail("cannot decode %s: %s", what, err);
	if (rc == SHOW_OOM)
		return ctl_fail("out of memory");
	return CTL_EXIT_OK;
}

static void
wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

/* ---- nodes, node show, node accept, node history ---- */

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
text_nodes(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_node *nodes = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (api_json_decode_nodes(r->body, r->len, &nodes, &n, err, sizeof(err)) == 0)
		rc = ctl_nodes_print(stdout, nodes, n, ctl_now()) == -1 ? SHOW_OOM : 0;
	free(nodes);
	return shown(rc, "the list of nodes", err);
}

/* The node and its report out of the reply; *r NULL when it has none. */
static int
decode_show(const struct ctl_reply *reply, const char *what, struct api_node *n,
    struct report **r)
{
	char err[256], *json = NULL;
	int rc;

	*r = NULL;
	if (api_json_decode_node(reply->body, reply->len, n, err, sizeof(err)) == -1)
		return ctl_fail("%s: cannot decode the reply: %s", what, err);
	if ((rc = api_json_extract(reply->body, reply->len, "report", &json)) == 1)
		return CTL_EXIT_OK;
	if (rc == -1 || (*r = report_new()) == NULL) {
		free(json);
		return ctl_fail("%s: cannot decode the reply", what);
	}
	rc = report_decode(json, strlen(json), *r, err, sizeof(err));
	free(json);
	if (rc == -1) {
		free(*r);
		*r = NULL;
		return ctl_fail("%s: cannot decode its report: %s", what, err);
	}
	return CTL_EXIT_OK;
}

static int
text_node(const struct ctl_reply *r, const struct ctl_args *a)
{
	char what[API_NAME_MAX + 16];
	struct api_node n;
	struct report *rep = NULL;
	int rc;

	snprintf(what, sizeof(what), "node %s", a->pos[0]);
	if ((rc = decode_show(r, what, &n, &rep)) == CTL_EXIT_OK &&
	    ctl_show_print(stdout, &n, rep, ctl_now()) == -1)
		rc = ctl_fail("out of memory");
	free(rep);
	return rc;
}

/* "mac1 accepted: ready", or pending with what it waits for. */
static int
text_node_accepted(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_node n;
	char err[256];

	(void)a;
	if (api_json_decode_node(r->body, r->len, &n, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the node: %s", err);
	if (n.reason[0] != '\0')
		printf("%s accepted: %s (%s)\n", n.name, api_node_state_str(n.state), n.reason);
	else
		printf("%s accepted: %s\n", n.name, api_node_state_str(n.state));
	return CTL_EXIT_OK;
}

int
ctl_history_print(FILE *f, const struct api_sample *s, int n)
{
	static const char *headers[] = { "TIME", "MEMORY", "POWER", "LINKS (PORT:GB/S)" };
	struct ctl_table *t = ctl_table_new(4, headers);
	char when[CTL_FMT_MAX], mem[CTL_FMT_MAX], watts[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *cells[] = { ctl_fmt_time(s[i].t, when, sizeof(when)),
			ctl_fmt_usage(s[i].memory_used_bytes, s[i].memory_total_bytes, mem,
			    sizeof(mem)),
			ctl_fmt_watts(s[i].power_watts, watts, sizeof(watts)),
			ctl_str(s[i].link_speeds) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
text_samples(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_sample *s = NULL;
	char node[API_NAME_MAX + 1], err[512];
	int n, rc = -1;

	(void)a;
	if (api_json_decode_samples(r->body, r->len, node, &s, &n, err, sizeof(err)) == 0)
		rc = ctl_history_print(stdout, s, n) == -1 ? SHOW_OOM : 0;
	free(s);
	return shown(rc, "the samples", err);
}

/* ---- tokens, events, clusters ---- */

/* token create: the secret of the reply, alone on stdout. */
static int
text_token_created(const struct ctl_reply *r, const struct ctl_args *a)
{
	char secret[API_TOKEN_MAX + 1], err[256];
	struct api_token t;
	int rc = CTL_EXIT_OK;

	(void)a;
	if (api_json_decode_token(r->body, r->len, &t, secret, sizeof(secret), err,
	    sizeof(err)) == -1)
		rc = ctl_fail("token create: cannot decode the reply: %s", err);
	else if (secret[0] == '\0')
		rc = ctl_fail("token create: the reply holds no token");
	else
		printf("%s\n", secret);
	wipe(secret, sizeof(secret));
	return rc;
}

/* EXPIRES: "never", "expired", or the time left. */
static char *
expires(double at, double now, char *buf, size_t size)
{
	if (isnan(at))
		snprintf(buf, size, "never");
	else if (at <= now)
		snprintf(buf, size, "expired");
	else
		ctl_fmt_duration(at - now, buf, size);
	return buf;
}

static void
token_row(struct ctl_table *t, const struct api_token *tok, double now)
{
	char created[CTL_FMT_MAX], exp[CTL_FMT_MAX], used[CTL_FMT_MAX];
	const char *cells[] = { tok->id, api_role_str(tok->role), tok->cluster, tok->node,
		tok->label, ctl_fmt_age(tok->created_at, now, created, sizeof(created)),
		expires(tok->expires_at, now, exp, sizeof(exp)),
		isnan(tok->used_at) ? "-" : ctl_fmt_age(tok->used_at, now, used, sizeof(used)),
		tok->revoked ? "yes" : "no" };

	ctl_table_add(t, cells);
}

int
ctl_tokens_print(FILE *f, const struct api_token *tok, int n, double now)
{
	static const char *headers[] = { "ID", "ROLE", "CLUSTER", "NODE", "LABEL", "CREATED",
		"EXPIRES", "USED", "REVOKED" };
	struct ctl_table *t = ctl_table_new(9, headers);

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		token_row(t, &tok[i], now);
	return ctl_table_end(t, f, 0);
}

static int
text_tokens(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_token *tok = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (api_json_decode_tokens(r->body, r->len, &tok, &n, err, sizeof(err)) == 0)
		rc = ctl_tokens_print(stdout, tok, n, ctl_now()) == -1 ? SHOW_OOM : 0;
	free(tok);
	return shown(rc, "the list of tokens", err);
}

int
ctl_events_print(FILE *f, const struct api_event *ev, int n)
{
	static const char *headers[] = { "TIME", "ACTOR", "NODE", "WHAT", "REASON" };
	struct ctl_table *t = ctl_table_new(5, headers);
	char when[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *cells[] = { ctl_fmt_time(ev[i].time, when, sizeof(when)),
			ev[i].actor, ev[i].node, ev[i].what, ev[i].reason };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
text_events(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_event *ev = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (api_json_decode_events(r->body, r->len, &ev, &n, err, sizeof(err)) == 0)
		rc = ctl_events_print(stdout, ev, n) == -1 ? SHOW_OOM : 0;
	free(ev);
	return shown(rc, "the events", err);
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
text_clusters(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct api_cluster *c = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (api_json_decode_clusters(r->body, r->len, &c, &n, err, sizeof(err)) == 0)
		rc = ctl_clusters_print(stdout, c, n, ctl_now()) == -1 ? SHOW_OOM : 0;
	free(c);
	return shown(rc, "the list of clusters", err);
}

/* ---- wiring ---- */

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

static int
text_wiring(const struct ctl_reply *r, const struct wiring_result *res)
{
	(void)r;
	return ctl_wiring_print(stdout, res) == -1 ? ctl_fail("out of memory") : CTL_EXIT_OK;
}

static void
text_wiring_head(void)
{
}

/* A blank line between clusters. */
static int
text_wiring_item(const struct ctl_reply *r, const struct wiring_result *res, int first)
{
	if (!first)
		printf("\n");
	return text_wiring(r, res);
}

static void
text_wiring_tail(int n)
{
	if (n == 0)
		printf("no clusters\n");
}

/* wiring plan, import, expect: the cluster's cabling plan. */
static int
text_cabling(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct wiring_plan_doc doc;
	char err[256];
	int rc = CTL_EXIT_OK;

	(void)a;
	if (wiring_json_decode_plan(r->body, r->len, &doc, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the plan: %s", err);
	if (ctl_plan_print(stdout, &doc) == -1)
		rc = ctl_fail("out of memory");
	wiring_plan_doc_free(&doc);
	return rc;
}

/* wiring export: the plan as DOT, or why the cluster has none. */
static int
text_dot(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct wiring_plan_doc doc;
	char what[96], err[256];
	int rc = CTL_EXIT_OK;

	snprintf(what, sizeof(what), "cluster %s", a->pos[0]);
	if (wiring_json_decode_plan(r->body, r->len, &doc, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the plan: %s", err);
	if (doc.topology != WIRING_TOPO_PLAN || doc.dot == NULL)
		rc = ctl_fail("%s expects a %s, not a plan (tbctl wiring plan %s --topology %s "
		    "--save makes one)", what, wiring_topology_str(doc.topology), a->pos[0],
		    wiring_topology_str(doc.topology));
	else
		fputs(doc.dot, stdout);
	wiring_plan_doc_free(&doc);
	return rc;
}

/* ---- models and placements (printers in ctl_output_place.c) ---- */

static int
text_models(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct catalog_model *m = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (catalog_decode(r->body, r->len, &m, &n, err, sizeof(err)) == 0)
		rc = ctl_models_print(stdout, m, n) == -1 ? SHOW_OOM : 0;
	free(m);
	return shown(rc, "the list of models", err);
}

static int
text_placements(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct plan *ps = NULL;
	char err[512];
	int n, rc = -1;

	(void)a;
	if (plan_json_decode_list(r->body, r->len, &ps, &n, err, sizeof(err)) == 0)
		rc = ctl_placements_print(stdout, ps, n, ctl_now()) == -1 ? SHOW_OOM : 0;
	free(ps);
	return shown(rc, "the list of placements", err);
}

static int
text_plan(const struct ctl_reply *r, const struct plan *p, const char *hostfile)
{
	(void)r;
	return ctl_placement_print(stdout, p, hostfile) == -1 ? ctl_fail("out of memory") :
	    CTL_EXIT_OK;
}

/* ---- rollouts ---- */

int
ctl_rollout_print(FILE *f, const struct ro_campaign *c, double now)
{
	static const char *const head[] = { "NODE", "STEP", "SINCE", "LAST OUTPUT" };
	static const char *const dhead[] = { "NODE", "STEP", "WOULD RUN" };
	char win[32], age[CTL_FMT_MAX];
	struct ctl_table *t = ctl_table_new(c->dry_run ? 3 : 4, c->dry_run ? dhead : head);

	if (t == NULL)
		return -1;
	ro_window_str(c->window_start, c->window_end, win, sizeof(win));
	if (c->dry_run)
		fprintf(f, "Dry run: nothing is changed.\n");
	else
		ctl_kv(f, 0, "Rollout", "%" PRId64 " (%s)", c->id, ro_state_str(c->state));
	ctl_kv(f, 0, "Cluster", "%s", c->cluster);
	ctl_kv(f, 0, "Target", "%s%s%s", c->target, c->label[0] ? ", label " : "", c->label);
	ctl_kv(f, 0, "Mode", "%s, at most %d out of service%s%s", ro_mode_str(c->mode),
	    c->mode == RO_LOCKSTEP ? c->n : c->max_unavailable, win[0] ? ", window " : "", win);
	if (c->reason[0] != '\0')
		ctl_kv(f, 0, "Reason", "%s", c->reason);
	for (int i = 0; i < c->n; i++) {
		const struct ro_node *n = &c->nodes[i];
		char step[64];
		snprintf(step, sizeof(step), "%s%s%s", ro_step_str(n->step),
		    n->step == RO_FAILED ? " at " : "", n->step == RO_FAILED ?
		    ro_step_str(n->failed_step) : "");
		const char *last = n->reason[0] && n->step == RO_FAILED ? n->reason : n->last_line;
		if (c->dry_run) {
			for (int k = 0; k < (n->ncmds ? n->ncmds : 1); k++) {
				const char *cells[] = { k ? "" : n->node, k ? "" : step,
					n->ncmds ? n->cmds[k] : n->reason };
				ctl_table_add(t, cells);
			}
			continue;
		}
		const char *cells[] = { n->node, step, ctl_fmt_age(n->since, now, age, sizeof(age)),
			last };
		ctl_table_add(t, cells);
	}
	fputc('\n', f);
	return ctl_table_end(t, f, 0);
}

int
ctl_rollouts_print(FILE *f, const struct ro_campaign *c, int n, double now)
{
	static const char *const head[] = { "ID", "CLUSTER", "TARGET", "MODE", "STATE", "NODES",
		"UPDATED", "REASON" };
	struct ctl_table *t = ctl_table_new(8, head);
	char id[32], nodes[32], age[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		int done = 0;
		for (int k = 0; k < c[i].n; k++)
			done += c[i].nodes[k].step == RO_DONE || c[i].nodes[k].step == RO_SKIPPED;
		snprintf(id, sizeof(id), "%" PRId64, c[i].id);
		snprintf(nodes, sizeof(nodes), "%d/%d", done, c[i].n);
		const char *cells[] = { id, c[i].cluster, c[i].target, ro_mode_str(c[i].mode),
			ro_state_str(c[i].state), nodes,
			ctl_fmt_age(c[i].updated_at, now, age, sizeof(age)), c[i].reason };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
text_rollout(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct ro_campaign *c = calloc(1, sizeof(*c));
	char err[256];
	int rc = CTL_EXIT_OK;

	(void)a;
	if (c == NULL)
		return ctl_fail("cannot decode the rollout: out of memory");
	if (ro_json_decode_campaign(r->body, r->len, c, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the rollout: %s", err);
	else if (ctl_rollout_print(stdout, c, ctl_now()) == -1)
		rc = ctl_fail("out of memory");
	free(c);
	return rc;
}

static int
text_rollouts(const struct ctl_reply *r, const struct ro_campaign *c, int n)
{
	(void)r;
	return ctl_rollouts_print(stdout, c, n, ctl_now()) == -1 ? ctl_fail("out of memory") :
	    CTL_EXIT_OK;
}

/* ---- node add, node deprovision ---- */

static void
print_step(FILE *f, const struct prov_api_step *st)
{
	fprintf(f, "  %-16s %-22s %s\n", st->outcome, st->step, st->title);
	if (st->command[0] != '\0')
		fprintf(f, "  %-16s $ %s\n", "", st->command);
	if (st->detail[0] != '\0')
		fprintf(f, "  %-16s %s\n", "", st->detail);
}

/* The steps with outcome, as "a, b, c", into buf. */
static void
steps_with(const struct prov_api_status *s, const char *outcome, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < s->n_steps && o < size; i++)
		if (strcmp(s->steps[i].outcome, outcome) == 0)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", o > 0 ? ", " : "",
			    s->steps[i].step);
}

static void
print_end(FILE *f, const struct prov_api_status *s)
{
	const char *who = s->node[0] != '\0' ? s->node : s->host;
	char list[1024];

	if (strcmp(s->state, "failed") == 0) {
		if (s->failed_step[0] != '\0')
			fprintf(f, "\nStopped at %s: %s\n", s->failed_step, s->reason);
		else
			fprintf(f, "\nFailed: %s\n", s->reason[0] != '\0' ? s->reason : "failed");
		steps_with(s, "undone", list, sizeof(list));
		if (s->n_steps > 0)
			fprintf(f, "Undone: %s\n", list[0] != '\0' ? list : "nothing");
		steps_with(s, "undo FAILED", list, sizeof(list));
		if (list[0] != '\0')
			fprintf(f, "Undo failed: %s\n", list);
		steps_with(s, "cannot be undone", list, sizeof(list));
		if (list[0] != '\0')
			fprintf(f, "Cannot be undone: %s\n", list);
	} else if (strcmp(s->state, "ready") == 0) {
		fprintf(f, "\n%s is ready.\n", who);
	} else if (s->dry_run) {
		fprintf(f, "\nDry run: nothing was changed on %s.\n", s->host);
	} else {
		fprintf(f, "\n%s: %s.\n", who, strcmp(s->kind, "deprovision") == 0 ?
		    "tbmesh removed" : s->state);
	}
	if (s->manual[0] != '\0')
		fprintf(f, "Manual step for %s: %s\n", who, s->manual);
}

int
ctl_prov_print(FILE *f, const struct prov_api_status *s, int *lines, int *steps)
{
	if (*lines == 0 && *steps == 0 && s->fingerprint[0] != '\0' &&
	    (s->n_preflight > 0 || ctl_prov_ended(s->state)))
		fprintf(f, "Host key: %s\n", s->fingerprint);
	if (*lines == 0 && s->n_preflight > 0)
		fprintf(f, "Preflight\n");
	for (; *lines < s->n_preflight; (*lines)++)
		fprintf(f, "  %-4s %s\n", s->preflight[*lines].verdict, s->preflight[*lines].text);
	if (*steps == 0 && s->n_steps > 0)
		fprintf(f, "Steps\n");
	for (; *steps < s->n_steps; (*steps)++)
		print_step(f, &s->steps[*steps]);
	if (ctl_prov_ended(s->state))
		print_end(f, s);
	return ferror(f) ? -1 : 0;
}

static void
text_prov(const struct ctl_reply *r, const struct prov_api_status *s, int *lines, int *steps)
{
	(void)r;
	ctl_prov_print(stdout, s, lines, steps);
}

/* ---- what every command may print ---- */

static int __attribute__((format(printf, 2, 3)))
text_done(const struct ctl_reply *r, const char *fmt, ...)
{
	va_list ap;

	(void)r;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return CTL_EXIT_OK;
}

static int
text_deleted(const char *name, const char *word, const char *value, int quote)
{
	(void)value;
	(void)quote;
	printf("%s %s\n", name, word);
	return CTL_EXIT_OK;
}

const struct ctl_output ctl_output_text = {
	.nodes = text_nodes,
	.node = text_node,
	.node_accepted = text_node_accepted,
	.samples = text_samples,
	.token_created = text_token_created,
	.tokens = text_tokens,
	.events = text_events,
	.clusters = text_clusters,
	.cabling = text_cabling,
	.dot = text_dot,
	.models = text_models,
	.placements = text_placements,
	.rollout = text_rollout,
	.jobs = ctl_text_jobs,
	.job = ctl_text_job,
	.job_logs = ctl_text_job_logs,
	.job_started = ctl_text_job_started,
	.job_stopped = ctl_text_job_stopped,
	.plan = text_plan,
	.rollouts = text_rollouts,
	.wiring = text_wiring,
	.wiring_head = text_wiring_head,
	.wiring_item = text_wiring_item,
	.wiring_tail = text_wiring_tail,
	.prov = text_prov,
	.done = text_done,
	.deleted = text_deleted,
};
