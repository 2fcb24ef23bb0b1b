/*
 * Collector backends: one interface, one file per platform (like Redis's
 * ae_epoll.c / ae_kqueue.c).
 *
 *   darwin  backend_darwin.c  runs the macOS commands on PATH, each with a timeout
 *   linux   backend_linux.c   reads sysfs and procfs under a root directory
 *   sim     backend_sim.c     one node of a cluster scenario file
 *
 * A backend fills a report that report_init() has set to null.  It never
 * fails as a whole because one source failed: it records the failure with
 * report_add_error(r, source, ...) and leaves those fields null.  It returns
 * -1 only when it cannot produce a report at all.
 */
#ifndef TBMESH_COLLECTOR_H
#define TBMESH_COLLECTOR_H

#include "report.h"

struct collect_opts {
	const char *name;        /* --name: overrides node.hostname; NULL: the host's */
	const char *root;        /* linux: sysfs/procfs root; NULL or "/" for the real one */
	const char *scenario;    /* sim: scenario file */
	const char *node;        /* sim: node name in the scenario */
	int cmd_timeout_ms;      /* darwin: per-command timeout */
	double now;              /* unix seconds at the start of the collection */
	double mono;             /* darwin: monotonic seconds then; 0: read CLOCK_MONOTONIC */
	double interval;         /* seconds between collections (power sampling window) */
	double topology_interval; /* darwin: seconds between topology reads; 0: 60 */
	const char *listen;      /* agent.listen: where /metrics is served; NULL: nowhere */
	const char *jobs_dir;    /* the jobs' pid files (jobprocs.h); NULL: jobs not read */
	/*
	 * What the backend keeps from one collection to the next
	 * (collector_state_new()); NULL: none, every source is read afresh.
	 */
	void *state;
};

struct backend {
	const char *name;
	int (*collect)(const struct collect_opts *o, struct report *r);
};

extern const struct backend backend_darwin;
extern const struct backend backend_linux;
extern const struct backend backend_sim;

/* The backend called name, or NULL. */
const struct backend *backend_find(const char *name);

/* The default backend for the platform the agent was built for. */
const struct backend *backend_default(void);

/*
 * The state b keeps between collections, for collect_opts.state: the
 * darwin backend's (what it read when, its power child); NULL for the
 * others, and when out of memory.  Free it with collector_state_free(),
 * which also stops what it started.
 */
void *collector_state_new(const struct backend *b);
void collector_state_free(const struct backend *b, void *state);

/* The darwin backend's state (backend_darwin.c); collector_state_new() calls these. */
struct darwin_state;
struct darwin_state *darwin_state_new(void);
void darwin_state_free(struct darwin_state *st);

/*
 * Collect one report with backend b: report_init(r), b->collect(), then the
 * common fields (collected_at, agent_version, --name, agent.listen) and the jobs'
 * processes (jobprocs.h), whatever the backend.  Returns b->collect's result.
 */
int collector_run(const struct backend *b, const struct collect_opts *o, struct report *r);

#endif
