/*
 * Jobs: a model run from an applied placement, every rank started by the
 * controller over SSH with the environment MLX's launcher gives it, watched
 * and brought back when it fails or hangs.  The plain structs shared by the
 * controller (the job runner, the inventory, the API) and tbctl, and their
 * JSON (job_json.c).  Strings "" are null, times NAN are null.
 *
 * JSON shapes:
 *   request (POST /v1/jobs):
 *     {"placement": 7, "port": 8080, "python": "python3",
 *      "restart": "never" | "on-failure", "max_restarts": 3,
 *      "replan": "never" | "auto"}
 *     (placement required; the rest optional: port 8080, python "python3",
 *      restart "on-failure", max_restarts 3, replan "never")
 *   job:
 *     {"id","placement","model","cluster","backend","state","reason","want",
 *      "generation","restarts","restart_policy","max_restarts","replan","replans",
 *      "port","python","endpoint","created_at","started_at","probe_ok_at",
 *      "updated_at",
 *      "ranks":[{"rank","node","host","pid","started_at","alive","cpu_seconds",
 *                "rss_bytes","seen_at","seen_by"}]}
 *   list (GET /v1/jobs): {"jobs":[job, ...]}
 *   logs (GET /v1/jobs/ID/logs?rank=R&lines=N&from=R:OFFSET,R:OFFSET):
 *     {"job": ID, "state", "reason", "ended",
 *      "ranks":[{"rank","node","lines":["...", ...],"start","end","size",
 *                "more","reset","partial","error"}]}
 *     Each rank's output is the file rank<R>.log on its node, every
 *     generation appended to it.  "lines" are complete lines only (no
 *     newline), at most N of them (default 50, with from 1000) and at most
 *     JOB_LOG_BYTES_MAX bytes read; "start" is the byte offset of the first
 *     one, "end" the offset just after the last one: the next request's
 *     from.  Without a from for a rank: its last N lines.  With one: the
 *     lines from that offset on, each line once.  "more": the bounds cut
 *     the answer, ask again from "end" at once.  "size": the file's size
 *     when read.  "reset" (null, "shrank", "replaced"): the offset asked
 *     for was not used, the lines are read from 0 (the file is shorter
 *     than the offset, or the byte before it is no longer a newline).
 *     "partial": a last line not ended yet (not counted in "end"; it comes
 *     in "lines" once ended), or null.  "error": the node could not be
 *     read (then no lines; the other ranks are answered; every rank asked
 *     failing is a 502).  A from for a rank the job does not have is
 *     ignored.  "state" and "reason" are the job's when the lines were
 *     read; "ended": it is stopped, or failed with no restart to come
 *     (restart policy never, restarts used up, or a stop asked), so no
 *     more lines will come.
 */
#ifndef TBMESH_JOB_API_H
#define TBMESH_JOB_API_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define JOB_RANKS_MAX 16          /* as PLAN_RANKS_MAX */
#define JOB_PYTHON_MAX 255
#define JOB_HOST_MAX 255          /* as RO_HOST_MAX: an SSH host */
#define JOB_ENDPOINT_MAX 300
#define JOB_MODEL_MAX 127
#define JOB_LOG_LINES_MAX 1000    /* lines one logs request returns per rank */
#define JOB_LOG_LINE_MAX 1023
#define JOB_DEFAULT_PORT 8080
#define JOB_DEFAULT_PYTHON "python3"
#define JOB_DEFAULT_MAX_RESTARTS 3
#define JOB_MAX_RESTARTS_MAX 100  /* the most max_restarts a request may ask */

/*
 * starting: ranks being started, or started and rank 0's endpoint not yet
 *           answering a one-token completion;
 * running:  the probe answers;
 * hung:     the probe gets no answer while a rank burns a core, or a rank is
 *           gone while the others live (MLX issue 4278), or no answer at all
 *           for longer;
 * failed:   every rank gone, a start that failed, or restarts used up;
 * stopping: the ranks are being stopped (operator, or before a restart);
 * stopped:  every rank ended, and checked gone;
 * waiting:  the operator wants it running but its placement cannot run now
 *           (not active: a node or link of it down, or drained by an OS
 *           update's rollout); its ranks stopped and checked gone, the
 *           reason says what it waits for.  It starts again (not counted as
 *           a restart) when the placement is active again, or, with replan
 *           auto and a placement down for a reason other than a rollout, at
 *           once on a new placement of the same model.
 */
enum job_state { JOB_STARTING, JOB_RUNNING, JOB_HUNG, JOB_FAILED, JOB_STOPPING, JOB_STOPPED,
	JOB_WAITING, JOB_STATE_COUNT };
enum job_restart { JOB_RESTART_NEVER, JOB_RESTART_ON_FAILURE, JOB_RESTART_COUNT };
/* What a job whose placement is down does: wait for it, or be replanned. */
enum job_replan { JOB_REPLAN_NEVER, JOB_REPLAN_AUTO, JOB_REPLAN_COUNT };
/* What the operator asked: run (and keep running), or stop.  Survives a crash. */
enum job_want { JOB_WANT_RUN, JOB_WANT_STOP, JOB_WANT_COUNT };

struct job_request {
	int64_t placement;
	int port;                          /* rank 0's HTTP port; 0: JOB_DEFAULT_PORT */
	char python[JOB_PYTHON_MAX + 1];   /* "": JOB_DEFAULT_PYTHON */
	enum job_restart restart;
	int max_restarts;                  /* -1: JOB_DEFAULT_MAX_RESTARTS */
	enum job_replan replan;
};

struct job_rank {
	int rank;
	api_name node;
	char host[JOB_HOST_MAX + 1];       /* the SSH host the rank runs on */
	int64_t pid;                       /* 0: not known */
	double started_at;                 /* NAN */
	int alive;                         /* -1 not known, 0, 1 */
	double cpu_seconds;                /* cumulative, as ps says; NAN */
	int64_t rss_bytes;                 /* -1: not known */
	double seen_at;                    /* when alive/cpu/rss were read; NAN */
	char seen_by[8];                   /* who read them: "agent" (its report's jobs
	                                      section), "ssh" (ps over SSH); "" */
	double start_sent_at;              /* the start line went out (crash safety); NAN */
};

struct job {
	int64_t id;
	int64_t placement;
	char model[JOB_MODEL_MAX + 1];
	api_name cluster;
	char backend[16];                  /* the plan's: "jaccl", "jaccl-ring", "ring", "" single */
	enum job_state state;
	char reason[API_REASON_MAX + 1];
	enum job_want want;
	int generation;                    /* +1 at every start */
	int restarts;
	enum job_restart restart_policy;
	int max_restarts;
	enum job_replan replan;
	int replans;                       /* placements it moved to (replan auto) */
	int port;
	char python[JOB_PYTHON_MAX + 1];
	char endpoint[JOB_ENDPOINT_MAX + 1];   /* "http://HOST:PORT" (rank 0) */
	double created_at, started_at, probe_ok_at, updated_at;
	int n_ranks;
	struct job_rank ranks[JOB_RANKS_MAX];
};

const char *job_state_str(enum job_state s);
const char *job_restart_str(enum job_restart r);
const char *job_want_str(enum job_want w);
const char *job_replan_str(enum job_replan r);
/* -1 when s names none. */
int job_state_parse(const char *s);
int job_restart_parse(const char *s);
int job_want_parse(const char *s);
int job_replan_parse(const char *s);
/* Zero bytes, every null as above (pid 0, alive -1, rss_bytes -1, times NAN). */
void job_init(struct job *j);
void job_rank_init(struct job_rank *r);

/* job_json.c.  Encoders return a malloc'd string (NULL: out of memory). */
char *job_encode(const struct job *j);
char *job_list_encode(const struct job *jobs, int n);
int job_decode(const char *json, size_t len, struct job *out, char *err, size_t errlen);
/* *out malloc'd (free() it), *n entries. */
int job_list_decode(const char *json, size_t len, struct job **out, int *n, char *err,
    size_t errlen);
/* Strict, as every write route: unknown fields refused, defaults filled in. */
int job_request_decode(const char *json, size_t len, struct job_request *out, char *err,
    size_t errlen);
char *job_request_encode(const struct job_request *r);

/*
 * The logs answer (above), as tbctl reads it and the controller writes it
 * (job_logs_json.c).  A struct job_log owns its lines and partial: free an
 * array with job_logs_free, which accepts NULL.
 */
#define JOB_LOG_BYTES_MAX (128 * 1024)   /* bytes of a rank's log read per request */

struct job_log {
	int rank;
	api_name node;
	int n_lines;
	char **lines;                      /* n_lines strings, each malloc'd */
	int64_t start;                     /* offset of the first line; -1 not known */
	int64_t end;                       /* offset after the last line: the next from; -1 */
	int64_t size;                      /* the log's size when read; -1 not known */
	int more;                          /* cut by the bounds: ask again from end */
	char reset[12];                    /* "", "shrank", "replaced" */
	char *partial;                     /* a last line not ended yet, malloc'd; NULL */
	char error[256];                   /* the node could not be read: why; "" */
};

/* The answer's job: its state when the lines were read. */
struct job_logs_state {
	int64_t job;
	int state;                         /* enum job_state; -1: not said */
	char reason[API_REASON_MAX + 1];
	int ended;                         /* no more lines will come */
};

int job_logs_decode(const char *json, size_t len, struct job_log **out, int *n, char *err,
    size_t errlen);
/* The answer's job fields; 0, or -1 with err. */
int job_logs_state_decode(const char *json, size_t len, struct job_logs_state *st, char *err,
    size_t errlen);
void job_logs_free(struct job_log *l, int n);
/* The answer, on one line (malloc'd; NULL: out of memory). */
char *job_logs_encode(const struct job_logs_state *st, const struct job_log *l, int n);
/*
 * The from query ("0:1200,1:0"): from[R] the offset of rank R, -1 for the
 * ranks not named (JOB_RANKS_MAX entries).  0, or -1 with why in err.
 */
int job_logs_from_parse(const char *s, int64_t *from, char *err, size_t errlen);
/* from[] (the ranks >= 0) as the from query into buf: 0, or -1 when it does not fit. */
int job_logs_from_format(const int64_t *from, char *buf, size_t size);

#endif
