/*
 * What a job's ranks are started with, from its plan: each rank's
 * environment, the file it names (jaccl's RDMA device matrix, ring's
 * hostfile), the command line, and the shell lines the controller sends
 * over SSH to start, stop, watch and read a rank.  Pure: no I/O, no clock.
 *
 * The environment is the one MLX's launcher gives every rank
 * (ml-explore/mlx 846d176, python/mlx/_distributed_utils/launch.py;
 * job_env.c names the line of each rule), so that a rank started by
 * tbmesh cannot tell it from one started by mlx.launch.
 */
#ifndef TBMESH_JOB_ENV_H
#define TBMESH_JOB_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "job_api.h"
#include "plan.h"

#define JOB_ENV_VARS 12
#define JOB_ENV_KEY_MAX 32
#define JOB_ENV_VALUE_MAX 300
#define JOB_ARGV_MAX 16
#define JOB_ARG_MAX 300
#define JOB_STARTING_PORT 32323   /* launch.py:507-513, --starting-port's default */
#define JOB_STOP_GRACE 10         /* seconds between SIGTERM and SIGKILL */

struct job_var {
	char key[JOB_ENV_KEY_MAX];
	char value[JOB_ENV_VALUE_MAX];
	int is_file;                  /* value is a file name in the job's directory */
};

struct job_env {
	int n_ranks;
	int single;                   /* one rank: no MLX_* at all */
	char file_name[48];           /* "g3-devices.json", "g3-hostfile.json"; "" none */
	char *file;                   /* its content, malloc'd; NULL none */
	int n_vars[JOB_RANKS_MAX];
	struct job_var vars[JOB_RANKS_MAX][JOB_ENV_VARS];   /* in launch.py's order */
	int argc;
	char argv[JOB_ARGV_MAX][JOB_ARG_MAX];   /* the same on every rank */
};

/*
 * Build e for job id's generation from plan p: rank 0's HTTP port, the
 * python to run ("" : JOB_DEFAULT_PYTHON).  0, or -1 with why in err
 * (a plan MLX's launcher would refuse: no ips, a malformed device matrix,
 * too many ranks).  Free with job_env_free.
 */
int job_env_make(const struct plan *p, int64_t id, int generation, int port,
    const char *python, struct job_env *e, char *err, size_t errlen);
void job_env_free(struct job_env *e);

/* Rank r's value of key (a file's name for a file), or NULL: for tests and logs. */
const char *job_env_get(const struct job_env *e, int rank, const char *key);

/*
 * The shell lines (malloc'd, NULL when out of memory), run by the SSH
 * user's shell on the node, in the job's directory
 * ${TBMESH_JOBS:-/Users/Shared/tbmesh/jobs}/job<id> (JOB_DIR_DEFAULT, where
 * the node's agent looks for the pid files: tbagentd --jobs-dir):
 *
 * start: reads e->file from standard input, then starts rank r in the
 *   background with every descriptor redirected (so the SSH command
 *   returns), its pid in rank<r>.pid, its generation in rank<r>.gen,
 *   output appended to rank<r>.log.  Prints "started PID" (status 0), or
 *   "running PID GEN" (status 3) when a rank r is alive already.
 * stop: SIGTERM, JOB_STOP_GRACE seconds, SIGKILL, then checks: status 0
 *   "gone PID" or "none", status 4 "alive PID".
 * ps: "PID STAT TIME RSS" lines for the pids (ps -o pid=,stat=,time=,rss=).
 * tail: rank r's output, rank<r>.log: from byte offset from (-1: its last
 *   cap bytes), at most cap bytes, after a line "log SIZE START LEAD WHY":
 *   the file's size, the offset the bytes start at, LEAD 1 when the byte
 *   before START comes first, WHY "-", or "shrank" / "replaced" when from
 *   was not used (the file is shorter than from, or the byte before from
 *   is no newline) and the bytes start at 0.  No file: "log 0 0 0 -".
 */
char *job_env_start_line(const struct job_env *e, int64_t id, int generation, int rank);
char *job_env_stop_line(int64_t id, int rank, int grace);
char *job_env_ps_line(const int64_t *pids, int n);
char *job_env_tail_line(int64_t id, int rank, int64_t from, int64_t cap);
/*
 * The tail line's output (len bytes) into l (its rank and node left
 * alone): complete lines only, at most max_lines (from < 0: the last
 * max_lines; else the first, more set when some are left), start, end,
 * size, more, reset, and a last line not ended in partial.  0, or -1
 * with why in err (not that output; out of memory).  l's lines are
 * malloc'd even then: job_logs_free them.
 */
int job_env_tail_read(const char *out, size_t len, int64_t from, int max_lines,
    struct job_log *l, char *err, size_t errlen);

/*
 * One pid's line of ps's output (job_env_ps_line): 1 found, with its
 * cumulative CPU seconds ("[[dd-]hh:]mm:ss[.cc]") and RSS (KiB -> bytes),
 * 2 when it is runnable (stat R: on a CPU or waiting for one), else 1;
 * 0 not there, or a zombie.
 */
int job_env_ps_find(const char *out, int64_t pid, double *cpu_seconds, int64_t *rss_bytes);

/* s as a JSON string, quotes included, appended to buf (size); 0 or -1 too long. */
int job_env_json_str(char *buf, size_t size, const char *s);

#endif
