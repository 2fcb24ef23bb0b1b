/*
 * What tbctl prints, behind one table of functions (struct ctl_output):
 * ctl_output_text (ctl_output.c) for people, ctl_output_json
 * (ctl_output_json.c) behind --json.  tbctl.c picks one before the command
 * runs; handlers call through it and never ask which one it is.
 *
 * For people a reply is decoded and shown as tables and lines (the
 * printers below, ctl_format.h's pieces); behind --json it is printed as
 * the controller sent it, indented: every record whole, as the API has it.
 *
 * Every function of the table prints on stdout and returns the exit
 * status: CTL_EXIT_OK, or CTL_EXIT_FAIL after one line on stderr (a reply
 * that does not decode, out of memory).
 */
#ifndef TBMESH_CTL_OUTPUT_H
#define TBMESH_CTL_OUTPUT_H

#include <stdio.h>

struct ctl_reply;
struct ctl_args;
struct api_node;
struct api_token;
struct api_event;
struct api_cluster;
struct api_sample;
struct report;
struct wiring_result;
struct wiring_plan_doc;
struct plan;
struct catalog_model;
struct ro_campaign;
struct prov_api_status;
struct job;
struct job_log;

/*
 * A reply shown by kind.  a is the command's arguments, for what a message
 * names ("node mac1: cannot decode its report").
 */
typedef int ctl_reply_fn(const struct ctl_reply *r, const struct ctl_args *a);

struct ctl_output {
	/* A reply the output decodes (for people) or prints as it came. */
	ctl_reply_fn *nodes;          /* nodes */
	ctl_reply_fn *node;           /* node show: the node and its latest report */
	ctl_reply_fn *node_accepted;  /* node accept: the node's state now */
	ctl_reply_fn *samples;        /* node history */
	ctl_reply_fn *token_created;  /* token create: for people the token alone */
	ctl_reply_fn *tokens;         /* token list */
	ctl_reply_fn *events;         /* events */
	ctl_reply_fn *clusters;       /* clusters */
	ctl_reply_fn *cabling;        /* wiring plan, import, expect: the cabling plan */
	ctl_reply_fn *dot;            /* wiring export: the plan as DOT */
	ctl_reply_fn *models;         /* models */
	ctl_reply_fn *placements;     /* placements */
	ctl_reply_fn *rollout;        /* rollout start, rollout status ID: one rollout */
	ctl_reply_fn *jobs;           /* jobs */
	ctl_reply_fn *job;            /* job show */
	ctl_reply_fn *job_logs;       /* job logs (a->rank given: the lines alone) */

	/* A reply the handler has decoded already, because it needs it too. */
	/* place, placement show and replan; hostfile: where it was written (NULL: not) */
	int (*plan)(const struct ctl_reply *r, const struct plan *p, const char *hostfile);
	/* run: the job as it was stored (starting) */
	int (*job_started)(const struct ctl_reply *r, const struct job *j);
	/* job stop: the job once it has stopped */
	int (*job_stopped)(const struct ctl_reply *r, const struct job *j);
	/* rollout status: every rollout, newest first */
	int (*rollouts)(const struct ctl_reply *r, const struct ro_campaign *c, int n);
	/* wiring check CLUSTER */
	int (*wiring)(const struct ctl_reply *r, const struct wiring_result *res);
	/* wiring check of every cluster: the head, each cluster's check (first:
	 * the first one), the tail after n of them */
	void (*wiring_head)(void);
	int (*wiring_item)(const struct ctl_reply *r, const struct wiring_result *res,
	    int first);
	void (*wiring_tail)(int n);
	/*
	 * A provisioning run's status, each time it is read: for people what
	 * is new since the last call (*lines and *steps, from 0, keep count),
	 * behind --json the status once it has ended.
	 */
	void (*prov)(const struct ctl_reply *r, const struct prov_api_status *s, int *lines,
	    int *steps);

	/* An action done: for people the line fmt makes, behind --json the reply. */
	int (*done)(const struct ctl_reply *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
	/*
	 * A request the controller answered without content (204): for people
	 * "name word" ("mac1 removed"), behind --json {"word": value}, value a
	 * string when quote (a name or id already checked: nothing to escape).
	 */
	int (*deleted)(const char *name, const char *word, const char *value, int quote);
};

extern const struct ctl_output ctl_output_text;   /* ctl_output.c */
extern const struct ctl_output ctl_output_json;   /* ctl_output_json.c */

/*
 * The printers for people, given the decoded reply and the time now (for
 * ages).  Return 0, or -1 when out of memory.  ctl_nodes_print sorts nodes
 * by name (proto_natcmp); r may be NULL (no report yet).
 */
int ctl_nodes_print(FILE *f, struct api_node *nodes, int n, double now);
int ctl_show_print(FILE *f, const struct api_node *n, const struct report *r, double now);
int ctl_history_print(FILE *f, const struct api_sample *s, int n);
int ctl_tokens_print(FILE *f, const struct api_token *t, int n, double now);
int ctl_events_print(FILE *f, const struct api_event *ev, int n);
int ctl_clusters_print(FILE *f, const struct api_cluster *c, int n, double now);
/* A wiring check and a cabling plan. */
int ctl_wiring_print(FILE *f, const struct wiring_result *r);
int ctl_plan_print(FILE *f, const struct wiring_plan_doc *p);
/* A placement's plan; hostfile: the file it was written to (NULL: none). */
int ctl_placement_print(FILE *f, const struct plan *p, const char *hostfile);
int ctl_placements_print(FILE *f, const struct plan *ps, int n, double now);
int ctl_models_print(FILE *f, const struct catalog_model *m, int n);
/* One rollout with its nodes; the list of rollouts, newest first. */
int ctl_rollout_print(FILE *f, const struct ro_campaign *c, double now);
int ctl_rollouts_print(FILE *f, const struct ro_campaign *c, int n, double now);

/*
 * Jobs (ctl_output_job.c): run's two lines (what starts where, the
 * endpoint); the list; one job with its ranks; the logs, each rank's
 * under a "== rank R (NODE) ==" line when headers.
 */
int ctl_job_started_print(FILE *f, const struct job *j);
int ctl_jobs_print(FILE *f, const struct job *j, int n, double now);
int ctl_job_print(FILE *f, const struct job *j, double now);
int ctl_job_logs_print(FILE *f, const struct job_log *l, int n, int headers);
/*
 * job logs --follow, each answer: its lines (with headers, a "== rank R
 * (NODE) ==" line when the rank differs from *last, which it updates); at
 * the end (st->ended) every rank's line not ended too.  json: the answer
 * on one line, when it brings lines, an error, a reset or the end.
 */
struct job_logs_state;
int ctl_job_logs_follow_print(FILE *f, const struct job_logs_state *st, const struct job_log *l,
    int n, int json, int headers, int *last);
/* ctl_output_text's entries for jobs, in ctl_output_job.c. */
ctl_reply_fn ctl_text_jobs, ctl_text_job, ctl_text_job_logs;
int ctl_text_job_started(const struct ctl_reply *r, const struct job *j);
int ctl_text_job_stopped(const struct ctl_reply *r, const struct job *j);

/*
 * Print what is new in provisioning status s since the last call:
 * preflight lines from *lines on, step records from *steps on (both
 * advanced); when s has ended, the outcome ("mac1 is ready", the failed
 * step and what was undone, the manual step).  Returns 0, or -1 when the
 * output failed.
 */
int ctl_prov_print(FILE *f, const struct prov_api_status *s, int *lines, int *steps);

#endif
