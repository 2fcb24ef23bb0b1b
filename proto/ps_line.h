/*
 * What `ps -o pid=,stat=,time=,rss= -p LIST` prints, one line a process,
 * read the same way by the agent (agent/jobprocs.c, the report's jobs
 * section) and the controller (its ps over SSH, controller/run/job_env.c).
 * Pure: no I/O.
 *
 * The columns, on macOS (Apple's ps(1), adv_cmds: "time  accumulated CPU
 * time, user + system (alias cputime)", "rss  the real memory (resident
 * set) size of the process (in 1024 byte units)") and Linux (procps ps(1):
 * "cputime  cumulative CPU time, "[DD-]hh:mm:ss" format", "rss  resident
 * set size ... in kilobytes") alike:
 *   pid   the process id;
 *   stat  its state, first letter: R running or runnable, S sleeping,
 *         I idle (macOS: asleep more than 20 s), U (macOS) or D (Linux)
 *         uninterruptible wait, T stopped, Z zombie (exited, not reaped),
 *         then flags ("+" foreground, "s" session leader, "<" "N" "l" ...);
 *   time  cumulative CPU seconds, user + system: macOS "M:SS.hh" with the
 *         minutes unbounded ("0:01.23", "123:45.67"), Linux
 *         "[[DD-]hh:]mm:ss" ("00:01:02", "1-02:03:04");
 *   rss   resident memory in KiB.
 */
#ifndef TBMESH_PS_LINE_H
#define TBMESH_PS_LINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Where a node keeps its jobs' files: job<ID>/rank<R>.pid and rank<R>.gen,
 * written by the controller's start line (controller/run/job_env.c, which
 * a TBMESH_JOBS in the SSH session's environment overrides) and read by the
 * node's agent (tbagentd --jobs-dir), which runs as root from launchd and
 * so cannot use the login user's home: a fixed place beside the models
 * (/Users/Shared/tbmesh/models, placement_hostfile.c).
 */
#define JOB_DIR_DEFAULT "/Users/Shared/tbmesh/jobs"

#define PS_STAT_MAX 7             /* longest stat kept, without the NUL */

struct ps_proc {
	int64_t pid;
	char stat[PS_STAT_MAX + 1];
	double cpu_seconds;           /* cumulative, user + system */
	int64_t rss_bytes;            /* KiB * 1024 */
};

/*
 * A TIME column, in either form above, as seconds: 0, or -1 when s (n
 * bytes) is neither (empty, a letter, a field of 60 or more after the
 * first, more than three fields).
 */
int ps_cpu_time(const char *s, size_t n, double *seconds);

/*
 * One line "PID STAT TIME RSS" (n bytes, no newline; blanks around the
 * columns): 0 with *out filled, -1 when it is not such a line (a header,
 * garbage, a pid below 1, a stat longer than PS_STAT_MAX).
 */
int ps_line_parse(const char *line, size_t n, struct ps_proc *out);

/* pid's line in out (ps's whole output, NUL-terminated): 1 with *p, 0 none. */
int ps_line_find(const char *out, int64_t pid, struct ps_proc *p);

/* A zombie (stat Z): exited, only waiting to be reaped; gone for tbmesh. */
int ps_stat_zombie(const char *stat);
/* On a CPU or waiting for one (stat R). */
int ps_stat_runnable(const char *stat);

#endif
