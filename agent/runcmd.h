/*
 * Run an external command with a timeout and capture what it prints.
 *
 * The command is looked up on PATH (execvp), runs in its own process group
 * with stdin from /dev/null (or the given input), and is killed with its
 * whole group (SIGKILL) when the timeout passes: a hung system_profiler is
 * never waited on.  Output beyond the cap is discarded and flagged.
 */
#ifndef TBMESH_RUNCMD_H
#define TBMESH_RUNCMD_H

#include <stddef.h>
#include <sys/types.h>

#define RUNCMD_OUT_MAX (8u << 20) /* 8 MiB of stdout at most */

enum runcmd_status {
	RUNCMD_OK = 0,        /* ran and exited; see exit_code */
	RUNCMD_NOTFOUND,      /* not on PATH or not executable */
	RUNCMD_TIMEOUT,       /* killed after timeout_ms */
	RUNCMD_SIGNALED,      /* died of a signal */
	RUNCMD_ERROR,         /* could not start (fork, pipe) */
};

struct runcmd_result {
	enum runcmd_status status;
	int exit_code;        /* valid when status == RUNCMD_OK */
	int term_signal;      /* valid when status == RUNCMD_SIGNALED */
	char *out;            /* NUL-terminated stdout; owned, see runcmd_result_free */
	size_t out_len;
	int out_truncated;    /* more than RUNCMD_OUT_MAX was printed */
	char err[512];        /* first bytes of stderr, NUL-terminated */
	double elapsed;       /* seconds */
};

/*
 * Run argv[0] with argv (NULL-terminated).  input, if not NULL, is written to
 * its stdin (len bytes).  Returns 0 when the command was started (whatever
 * its fate: read res->status), -1 when it could not be.  Always fills *res;
 * release it with runcmd_result_free().
 */
int runcmd(char *const argv[], const char *input, size_t input_len, int timeout_ms,
    struct runcmd_result *res);

void runcmd_result_free(struct runcmd_result *res);

/*
 * One line saying what went wrong, for a report's errors[] ("timed out after
 * 5 s", "not found on PATH", "exited 1: <first stderr line>").  Returns NULL
 * when the command ran and exited 0.
 */
const char *runcmd_failure(const struct runcmd_result *res, int timeout_ms, char *buf,
    size_t buflen);

/*
 * For a command that runs on (cmdstream.c): start argv[0] as runcmd()
 * does (PATH, its own process group, stdin from /dev/null) and return at
 * once with its pid in *pid and the read ends of its stdout and stderr in
 * fds[0] and fds[1], non-blocking and close-on-exec; the caller closes
 * them.  Returns 0, or the errno of the failure (ENOENT or EACCES: not on
 * PATH) with nothing to close.
 */
int runcmd_spawn(char *const argv[], pid_t *pid, int fds[2]);

/*
 * Kill pid's process group (SIGKILL) and reap pid, waiting at most 2 s;
 * its exit status in *wstatus unless NULL.  Returns -1 when it would not
 * die: it is left to be reaped by a later call of runcmd().
 */
int runcmd_kill(pid_t pid, int *wstatus);

/*
 * For a child of runcmd_spawn() that may have exited: when pid has
 * exited, kill what is left of its process group (SIGKILL), then reap it,
 * with its exit status in *wstatus: returns 1.  Returns 0 while it runs.
 * The group is killed before the leader is reaped: until then the leader's
 * pid, and so its group's id, cannot be reused (finish_child() in
 * runcmd.c keeps the same rule).
 */
int runcmd_reap_exited(pid_t pid, int *wstatus);

/* How a waitpid() status ended: status RUNCMD_OK with exit_code, or RUNCMD_SIGNALED. */
void runcmd_set_status(struct runcmd_result *res, int wstatus);

/* close(*fd) unless it is -1 already; *fd becomes -1. */
void runcmd_close_fd(int *fd);

/* Monotonic seconds (CLOCK_MONOTONIC): the clock of every deadline here. */
double runcmd_mono(void);

#endif
