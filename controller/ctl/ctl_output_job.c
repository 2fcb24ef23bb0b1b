/*
 * Jobs for people: what tbctl run started, the list of jobs, one job with
 * its ranks, the ranks' logs, and a stop that ended (ctl_output_text's
 * entries for jobs).  The printers are pure: they format what they are
 * given, the time now included, into the FILE passed in.
 */
#include "ctl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_format.h"
#include "ctl_http.h"
#include "job_api.h"

/* "llama-3.3-70b:4bit, jaccl", or "..., one node" for a plan without a backend. */
static void
what_of(const struct job *j, char *buf, size_t size)
{
	snprintf(buf, size, "%s, %s", ctl_str(j->model), j->backend[0] ? j->backend : "one node");
}

/* Since when the job is in its state: its start while it runs, else its last change. */
static double
since_of(const struct job *j)
{
	int live = j->state == JOB_STARTING || j->state == JOB_RUNNING || j->state == JOB_HUNG;

	return live && !isnan(j->started_at) ? j->started_at : j->updated_at;
}

/* "http://127.0.0.2:8080/v1  (rank 0 on a1)", the OpenAI-style base URL. */
static void
endpoint_line(FILE *f, const struct job *j)
{
	if (j->endpoint[0] == '\0')
		return;
	fprintf(f, "endpoint %s/v1", j->endpoint);
	if (j->n_ranks > 0)
		fprintf(f, "  (rank 0 on %s)", j->ranks[0].node);
	fputc('\n', f);
}

int
ctl_job_started_print(FILE *f, const struct job *j)
{
	char what[JOB_MODEL_MAX + 32];

	what_of(j, what, sizeof(what));
	fprintf(f, "job %" PRId64 ": placement %" PRId64 " (%s) %s on ", j->id, j->placement,
	    what, job_state_str(j->state));
	for (int i = 0; i < j->n_ranks; i++)
		fprintf(f, "%s%s", i ? ", " : "", j->ranks[i].node);
	fprintf(f, "%s\n", j->n_ranks ? "" : "its nodes");
	endpoint_line(f, j);
	return ferror(f) ? -1 : 0;
}

int
ctl_jobs_print(FILE *f, const struct job *j, int n, double now)
{
	static const char *const head[] = { "ID", "PLACEMENT", "MODEL", "STATE", "RESTARTS",
		"ENDPOINT", "SINCE", "REASON" };
	struct ctl_table *t = ctl_table_new(8, head);
	char id[24], pl[24], restarts[24], since[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "%" PRId64, j[i].id);
		snprintf(pl, sizeof(pl), "%" PRId64, j[i].placement);
		snprintf(restarts, sizeof(restarts), "%d", j[i].restarts);
		const char *cells[] = { id, pl, j[i].model, job_state_str(j[i].state), restarts,
			j[i].endpoint, ctl_fmt_duration(now - since_of(&j[i]), since, sizeof(since)),
			j[i].reason };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

/* The last cell, READ BY (who read alive, CPU and RSS), is shown when the table has 8. */
static void
rank_row(struct ctl_table *t, const struct job_rank *r, double now)
{
	char rank[16], pid[24], started[CTL_FMT_MAX], cpu[32], rss[CTL_FMT_MAX];
	const char *alive = r->alive == 1 ? "yes" : r->alive == 0 ? "no" : "-";

	snprintf(rank, sizeof(rank), "%d", r->rank);
	if (r->pid > 0)
		snprintf(pid, sizeof(pid), "%" PRId64, r->pid);
	else
		snprintf(pid, sizeof(pid), "-");
	if (isnan(r->cpu_seconds))
		snprintf(cpu, sizeof(cpu), "-");
	else
		snprintf(cpu, sizeof(cpu), "%.2f", r->cpu_seconds);
	const char *cells[] = { rank, r->node, pid,
		ctl_fmt_duration(now - r->started_at, started, sizeof(started)), alive, cpu,
		ctl_fmt_bytes(r->rss_bytes, rss, sizeof(rss)), r->seen_by[0] ? r->seen_by : "-" };
	ctl_table_add(t, cells);
}

int
ctl_job_print(FILE *f, const struct job *j, double now)
{
	static const char *const head[] = { "RANK", "NODE", "PID", "STARTED", "ALIVE", "CPU",
		"RSS", "READ BY" };
	char since[CTL_FMT_MAX], what[JOB_MODEL_MAX + 32];
	int by = 0;

	/* READ BY only once some rank was read (older controllers do not say) */
	for (int i = 0; i < j->n_ranks; i++)
		by |= j->ranks[i].seen_by[0] != '\0';
	struct ctl_table *t = ctl_table_new(by ? 8 : 7, head);

	if (t == NULL)
		return -1;
	what_of(j, what, sizeof(what));
	fprintf(f, "job %" PRId64 ": %s since %s (generation %d, restarts %d/%d, %s)\n", j->id,
	    job_state_str(j->state), ctl_fmt_duration(now - since_of(j), since, sizeof(since)),
	    j->generation, j->restarts, j->max_restarts, job_restart_str(j->restart_policy));
	if (j->reason[0] != '\0')
		fprintf(f, "reason: %s\n", j->reason);
	if (j->want == JOB_WANT_STOP && j->state != JOB_STOPPED)
		fprintf(f, "asked to stop\n");
	fprintf(f, "placement %" PRId64 " (%s)%s%s\n", j->placement, what,
	    j->cluster[0] ? " on cluster " : "", j->cluster);
	endpoint_line(f, j);
	for (int i = 0; i < j->n_ranks; i++)
		rank_row(t, &j->ranks[i], now);
	return ctl_table_end(t, f, 0);
}

int
ctl_job_logs_print(FILE *f, const struct job_log *l, int n, int headers)
{
	for (int i = 0; i < n; i++) {
		if (headers)
			fprintf(f, "%s== rank %d (%s) ==\n", i ? "\n" : "", l[i].rank, l[i].node);
		for (int k = 0; k < l[i].n_lines; k++)
			fprintf(f, "%s\n", l[i].lines[k]);
		if (l[i].partial != NULL)
			fprintf(f, "%s\n", l[i].partial);   /* not ended yet: shown as it is */
	}
	return ferror(f) ? -1 : 0;
}

/* Whether answer l brings anything a JSON follower wants. */
static int
follow_news(const struct job_logs_state *st, const struct job_log *l, int n)
{
	int news = st->ended;

	for (int i = 0; i < n; i++)
		news |= l[i].n_lines > 0 || l[i].error[0] || l[i].reset[0];
	return news;
}

int
ctl_job_logs_follow_print(FILE *f, const struct job_logs_state *st, const struct job_log *l,
    int n, int json, int headers, int *last)
{
	if (json) {
		char *one;
		if (!follow_news(st, l, n))
			return 0;
		if ((one = job_logs_encode(st, l, n)) == NULL)
			return -1;
		fprintf(f, "%s\n", one);
		free(one);
		return ferror(f) ? -1 : 0;
	}
	for (int i = 0; i < n; i++) {
		int end = st->ended && l[i].partial != NULL;
		if (l[i].n_lines == 0 && !end)
			continue;
		if (headers && l[i].rank != *last)
			fprintf(f, "%s== rank %d (%s) ==\n", *last >= 0 ? "\n" : "", l[i].rank,
			    l[i].node);
		*last = l[i].rank;
		for (int k = 0; k < l[i].n_lines; k++)
			fprintf(f, "%s\n", l[i].lines[k]);
		if (end)
			fprintf(f, "%s\n", l[i].partial);   /* the last, never ended */
	}
	return ferror(f) ? -1 : 0;
}

/* Decode reply r as one job into a malloc'd struct (NULL: failed, said). */
static struct job *
decode_job(const struct ctl_reply *r)
{
	struct job *j = calloc(1, sizeof(*j));
	char err[256];

	if (j == NULL) {
		ctl_errx("cannot decode the job: out of memory");
		return NULL;
	}
	if (job_decode(r->body, r->len, j, err, sizeof(err)) == -1) {
		ctl_errx("cannot decode the job: %s", err);
		free(j);
		return NULL;
	}
	return j;
}

int
ctl_text_jobs(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct job *all = NULL;
	char err[256];
	int n = 0, rc = CTL_EXIT_OK;

	(void)a;
	if (job_list_decode(r->body, r->len, &all, &n, err, sizeof(err)) == -1)
		rc = ctl_fail("cannot decode the list of jobs: %s", err);
	else if (ctl_jobs_print(stdout, all, n, ctl_now()) == -1)
		rc = ctl_fail("out of memory");
	free(all);
	return rc;
}

int
ctl_text_job(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct job *j = decode_job(r);
	int rc;

	(void)a;
	if (j == NULL)
		return CTL_EXIT_FAIL;
	rc = ctl_job_print(stdout, j, ctl_now()) == -1 ? ctl_fail("out of memory") : CTL_EXIT_OK;
	free(j);
	return rc;
}

int
ctl_text_job_logs(const struct ctl_reply *r, const struct ctl_args *a)
{
	struct job_log *l = NULL;
	char err[256];
	int n = 0, rc = CTL_EXIT_OK;

	if (job_logs_decode(r->body, r->len, &l, &n, err, sizeof(err)) == -1)
		return ctl_fail("cannot decode the logs: %s", err);
	if (ctl_job_logs_print(stdout, l, n, a->rank == NULL) == -1)
		rc = ctl_fail("cannot write the logs");
	for (int i = 0; i < n; i++)
		if (l[i].error[0])   /* the others' lines are shown; the exit says it */
			rc = ctl_fail("rank %d (%s): %s", l[i].rank, l[i].node, l[i].error);
	job_logs_free(l, n);
	return rc;
}

int
ctl_text_job_started(const struct ctl_reply *r, const struct job *j)
{
	(void)r;
	return ctl_job_started_print(stdout, j) == -1 ? ctl_fail("cannot write the output") :
	    CTL_EXIT_OK;
}

int
ctl_text_job_stopped(const struct ctl_reply *r, const struct job *j)
{
	(void)r;
	printf("job %" PRId64 " stopped: %d rank%s ended, none left\n", j->id, j->n_ranks,
	    j->n_ranks == 1 ? "" : "s");
	return CTL_EXIT_OK;
}
