/*
 * The processes of the jobs on this node (the report's jobs section): the
 * controller's start line leaves job<ID>/rank<R>.pid (and rank<R>.gen)
 * under a jobs directory (proto/ps_line.h, JOB_DIR_DEFAULT); each
 * collection lists those pid files and, when there is at least one, runs
 * one `ps -o pid=,stat=,time=,rss= -p LIST` (the same on macOS and Linux)
 * through runcmd, with a timeout.  No pid file, no command: an idle node
 * pays nothing.  Works under every backend.
 *
 * jobprocs_scan and jobprocs_apply are the two halves, for tests: the
 * directory (I/O) and ps's output (pure).
 */
#ifndef TBMESH_JOBPROCS_H
#define TBMESH_JOBPROCS_H

#include <stddef.h>

#include "report.h"

/* pid files looked at in one scan; the REPORT_JOB_PROCS_MAX newest jobs' are kept */
#define JOBPROCS_SCAN_MAX 256

/*
 * The pid files under dir into j (processes with job, rank, generation and
 * pid, alive 0, in order of job, newest first, then rank): a file that is
 * not a number, a link or not a regular file is skipped.  A directory that
 * does not exist holds no job (0 processes).  Returns how many pid files
 * were found (more than j holds when some were left out), or -1 with why
 * in err when dir cannot be read (j->n_processes -1).
 */
int jobprocs_scan(const char *dir, struct report_jobs *j, char *err, size_t errlen);

/*
 * Each process of j as ps's output out says (proto/ps_line.h): alive 1
 * with its stat, cpu_seconds and rss_bytes when listed and not a zombie;
 * else alive 0 (a zombie keeps its stat "Z").
 */
void jobprocs_apply(struct report_jobs *j, const char *out);

/*
 * The whole collection into r->jobs, at now: scan dir, then one ps
 * (timeout_ms) when a pid was found.  Its collected_at is now, or null
 * when now is the report's collected_at (read with the report, as the
 * sections of every backend but darwin's are).  A failure is one of r's
 * errors (source "jobs"), the section then null.  dir NULL: nothing (the
 * section stays null).
 */
void jobprocs_collect(const char *dir, int timeout_ms, double now, struct report *r);

#endif
