/*
 * tbctl's output behind --json: ctl_output_json.  The controller's reply,
 * indented, on stdout: the records are printed whole, as the API has them.
 * A reply without content becomes an object that says what was done, and
 * the wiring check of every cluster one object holding each cluster's.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"
#include "ctl_http.h"
#include "prov_api.h"

/* The JSON text (len bytes), indented; CTL_EXIT_FAIL, said, when it is not JSON. */
static int
json_print(const char *json, size_t len)
{
	char *pretty = api_json_pretty(json, len);
	size_t n;

	if (pretty == NULL)
		return ctl_fail("the controller's reply is not JSON");
	n = strlen(pretty);
	fputs(pretty, stdout);
	if (n == 0 || pretty[n - 1] != '\n')
		fputc('\n', stdout);
	free(pretty);
	return CTL_EXIT_OK;
}

/* What every command whose JSON is the controller's answer prints. */
static int
json_reply(const struct ctl_reply *r, const struct ctl_args *a)
{
	(void)a;
	return json_print(r->body, r->len);
}

static int
json_plan(const struct ctl_reply *r, const struct plan *p, const char *hostfile)
{
	(void)p;
	(void)hostfile;
	return json_print(r->body, r->len);
}

/* run, job stop: the job as the controller sent it. */
static int
json_job(const struct ctl_reply *r, const struct job *j)
{
	(void)j;
	return json_print(r->body, r->len);
}

static int
json_rollouts(const struct ctl_reply *r, const struct ro_campaign *c, int n)
{
	(void)c;
	(void)n;
	return json_print(r->body, r->len);
}

static int
json_wiring(const struct ctl_reply *r, const struct wiring_result *res)
{
	(void)res;
	return json_print(r->body, r->len);
}

/* Every cluster's check: {"clusters":[check,...]}, each as the controller sent it. */
static void
json_wiring_head(void)
{
	printf("{\"clusters\":[");
}

static int
json_wiring_item(const struct ctl_reply *r, const struct wiring_result *res, int first)
{
	(void)res;
	printf("%s%.*s", first ? "" : ",", (int)r->len, r->body);
	return CTL_EXIT_OK;
}

static void
json_wiring_tail(int n)
{
	(void)n;
	printf("]}\n");
}

/* A provisioning run: its last status, once it has ended. */
static void
json_prov(const struct ctl_reply *r, const struct prov_api_status *s, int *lines, int *steps)
{
	(void)lines;
	(void)steps;
	if (ctl_prov_ended(s->state))
		json_print(r->body, r->len);
}

static int
json_done(const struct ctl_reply *r, const char *fmt, ...)
{
	(void)fmt;
	return json_print(r->body, r->len);
}

/* A request answered without content (204): {"word": value}, indented like a reply. */
static int
json_deleted(const char *name, const char *word, const char *value, int quote)
{
	char buf[256];
	int n;

	(void)name;
	for (const char *p = value; *p != '\0'; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			return ctl_fail("cannot print \"%s\" as JSON", word);
	n = snprintf(buf, sizeof(buf), quote ? "{\"%s\":\"%s\"}" : "{\"%s\":%s}", word, value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return ctl_fail("cannot print \"%s\" as JSON: too long", word);
	return json_print(buf, (size_t)n);
}

const struct ctl_output ctl_output_json = {
	.nodes = json_reply,
	.node = json_reply,
	.node_accepted = json_reply,
	.samples = json_reply,
	.token_created = json_reply,
	.tokens = json_reply,
	.events = json_reply,
	.clusters = json_reply,
	.cabling = json_reply,
	.dot = json_reply,
	.models = json_reply,
	.placements = json_reply,
	.rollout = json_reply,
	.jobs = json_reply,
	.job = json_reply,
	.job_logs = json_reply,
	.job_started = json_job,
	.job_stopped = json_job,
	.plan = json_plan,
	.rollouts = json_rollouts,
	.wiring = json_wiring,
	.wiring_head = json_wiring_head,
	.wiring_item = json_wiring_item,
	.wiring_tail = json_wiring_tail,
	.prov = json_prov,
	.done = json_done,
	.deleted = json_deleted,
};
