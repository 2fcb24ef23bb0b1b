/*
 * The jobs' processes on this node (see jobprocs.h).
 */
#include "jobprocs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_line.h"
#include "runcmd.h"

/* Directory entries looked at per directory: a bound on a scan's time. */
#define ENTRIES_MAX 4096

/* "PREFIXdigits[SUFFIX]" exactly, the digits as *v (at most 15): 1, else 0. */
static int
named(const char *name, const char *prefix, const char *suffix, int64_t *v)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), n = strlen(name), i;

	if (n <= pl + sl || n - pl - sl > 15 || strncmp(name, prefix, pl) != 0 ||
	    strcmp(name + n - sl, suffix) != 0)
		return 0;
	*v = 0;
	for (i = pl; i < n - sl; i++) {
		if (!isdigit((unsigned char)name[i]))
			return 0;
		*v = *v * 10 + (name[i] - '0');
	}
	return 1;
}

/*
 * The number a small regular file holds (digits, then blanks or a
 * newline), opened under dirfd without following a link: 0, else -1.
 */
static int
read_number(int dirfd, const char *name, int64_t *v)
{
	char buf[32];
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		close(fd);
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	size_t i = 0;
	*v = 0;
	while (isdigit((unsigned char)buf[i]) && i < 15)
		*v = *v * 10 + (buf[i++] - '0');
	if (i == 0 || buf[i + strspn(buf + i, " \t\r\n")] != '\0')
		return -1;
	return 0;
}

/* The pid files of job dir jobfd (job id) into f, up to max; the count added. */
static int
scan_job(int jobfd, int64_t id, struct report_job_proc *f, int n, int max)
{
	DIR *d = fdopendir(jobfd);
	struct dirent *e;
	int seen = 0, found = 0;

	if (d == NULL) {
		close(jobfd);
		return 0;
	}
	while ((e = readdir(d)) != NULL && seen++ < ENTRIES_MAX) {
		int64_t rank, pid, gen;
		char genname[64];

		if (!named(e->d_name, "rank", ".pid", &rank) || rank > REPORT_JOB_RANK_MAX ||
		    read_number(dirfd(d), e->d_name, &pid) == -1 || pid < 1 ||
		    pid > REPORT_PID_MAX)
			continue;
		found++;
		if (n + found > max)
			continue;
		struct report_job_proc *p = &f[n + found - 1];
		report_job_proc_init(p);
		p->job = id;
		p->rank = (int)rank;
		p->pid = pid;
		snprintf(genname, sizeof(genname), "rank%d.gen", p->rank);
		if (read_number(dirfd(d), genname, &gen) == 0 && gen <= REPORT_JOB_ID_MAX)
			p->generation = gen;
	}
	closedir(d);
	return found;
}

/* Newest job first, then by rank. */
static int
by_job_rank(const void *a, const void *b)
{
	const struct report_job_proc *x = a, *y = b;

	if (x->job != y->job)
		return x->job > y->job ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int
jobprocs_scan(const char *dir, struct report_jobs *j, char *err, size_t errlen)
{
	struct report_job_proc *f;
	struct dirent *e;
	DIR *d;
	int n = 0, seen = 0;

	j->n_processes = -1;
	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT) {
			j->n_processes = 0;
			return 0;
		}
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if ((f = calloc(JOBPROCS_SCAN_MAX, sizeof(*f))) == NULL) {
		closedir(d);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while ((e = readdir(d)) != NULL && seen++ < ENTRIES_MAX) {
		int64_t id;
		int fd;

		if (!named(e->d_name, "job", "", &id) || id < 1 || id > REPORT_JOB_ID_MAX)
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd != -1)
			n += scan_job(fd, id, f, n < JOBPROCS_SCAN_MAX ? n : JOBPROCS_SCAN_MAX,
			    JOBPROCS_SCAN_MAX);
	}
	closedir(d);
	int kept = n < JOBPROCS_SCAN_MAX ? n : JOBPROCS_SCAN_MAX;
	qsort(f, (size_t)kept, sizeof(*f), by_job_rank);
	j->n_processes = kept < REPORT_JOB_PROCS_MAX ? kept : REPORT_JOB_PROCS_MAX;
	memcpy(j->processes, f, (size_t)j->n_processes * sizeof(*f));
	free(f);
	return n;
}

void
jobprocs_apply(struct report_jobs *j, const char *out)
{
	for (int i = 0; i < j->n_processes && i < REPORT_JOB_PROCS_MAX; i++) {
		struct report_job_proc *p = &j->processes[i];
		struct ps_proc q;

		p->alive = 0;
		p->stat[0] = '\0';
		p->cpu_seconds = NAN;
		p->rss_bytes = REPORT_NULL_I64;
		if (!ps_line_find(out, p->pid, &q))
			continue;
		REPORT_SET(p->stat, q.stat);
		if (ps_stat_zombie(q.stat))
			continue;
		p->alive = 1;
		p->cpu_seconds = q.cpu_seconds;
		p->rss_bytes = q.rss_bytes;
	}
}

/* "ps -o pid=,stat=,time=,rss= -p LIST" for j's pids: its output, or -1 with why. */
static int
run_ps(const struct report_jobs *j, int timeout_ms, struct runcmd_result *res, char *err,
    size_t errlen)
{
	char list[REPORT_JOB_PROCS_MAX * 21 + 1] = "", why[256];
	size_t len = 0;
	const char *f;

	for (int i = 0; i < j->n_processes; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%" PRId64,
		    i > 0 ? "," : "", j->processes[i].pid);
	char *argv[] = { "ps", "-o", "pid=,stat=,time=,rss=", "-p", list, NULL };
	if (runcmd(argv, NULL, 0, timeout_ms, res) == -1) {
		snprintf(err, errlen, "ps: could not be started");
		return -1;
	}
	/* ps exits 1 when no pid of the list is a process (macOS and procps alike) */
	if (res->status == RUNCMD_OK && res->exit_code == 1 &&
	    strspn(res->out ? res->out : "", " \t\r\n") == res->out_len)
		return 0;
	if ((f = runcmd_failure(res, timeout_ms, why, sizeof(why))) != NULL) {
		snprintf(err, errlen, "ps: %s", f);
		return -1;
	}
	return 0;
}

void
jobprocs_collect(const char *dir, int timeout_ms, double now, struct report *r)
{
	struct runcmd_result res;
	char err[512];
	int n;

	if (dir == NULL)
		return;
	if ((n = jobprocs_scan(dir, &r->jobs, err, sizeof(err))) == -1) {
		report_add_error(r, "jobs", "%s", err);
		return;
	}
	if (n > r->jobs.n_processes)
		report_add_error(r, "jobs", "%d pid files under %s; the %d of the newest jobs "
		    "reported", n, dir, r->jobs.n_processes);
	if (r->jobs.n_processes > 0) {
		if (run_ps(&r->jobs, timeout_ms, &res, err, sizeof(err)) == -1) {
			runcmd_result_free(&res);
			report_add_error(r, "jobs", "%s", err);
			r->jobs.n_processes = -1;
			return;
		}
		jobprocs_apply(&r->jobs, res.out ? res.out : "");
		runcmd_result_free(&res);
	}
	/* read with the report: a report whose time is moved keeps it whole */
	r->jobs.collected_at = now == r->collected_at ? NAN : now;
}
