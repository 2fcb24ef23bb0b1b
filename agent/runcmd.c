/*
 * runcmd: posix_spawnp in a new process group, a poll loop with a deadline,
 * and SIGKILL to the group when it passes.  See runcmd.h for the contract.
 */
#include "runcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

extern char **environ;

struct capture {
	char *buf;
	size_t len, cap;
	size_t max;
	int truncated;
};

double
runcmd_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append up to what the cap allows; returns -1 only when out of memory. */
static int
capture_add(struct capture *c, const char *data, size_t n)
{
	if (c->len + n > c->max) {
		c->truncated = 1;
		n = c->max - c->len;
	}
	if (c->len + n + 1 > c->cap) {
		size_t ncap = c->cap ? c->cap : 4096;
		while (ncap < c->len + n + 1)
			ncap *= 2;
		char *nb = realloc(c->buf, ncap);
		if (nb == NULL)
			return -1;
		c->buf = nb;
		c->cap = ncap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return 0;
}

/* Read what is there; returns 1 at EOF, 0 otherwise. */
static int
drain_fd(int fd, struct capture *c)
{
	char tmp[16384];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n > 0) {
		if (capture_add(c, tmp, (size_t)n) == -1)
			c->truncated = 1;
		return 0;
	}
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	return 1;
}

static int
spawn_child(char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, def;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigaddset(&def, SIGINT);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr,
	    POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

void
runcmd_close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

void
runcmd_set_status(struct runcmd_result *res, int wstatus)
{
	if (WIFEXITED(wstatus)) {
		res->status = RUNCMD_OK;
		res->exit_code = WEXITSTATUS(wstatus);
	} else {
		res->status = RUNCMD_SIGNALED;
		res->term_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
	}
}

/*
 * The poll loop: feed stdin, read stdout and stderr until both close and
 * the child is reaped, or the deadline passes.  Returns 1 on timeout.
 */
static int
pump(pid_t pid, int fds[3], const char *input, size_t input_len, double deadline,
    struct capture *out, struct capture *err, int *wstatus, int *reapedp)
{
	size_t written = 0;
	int reaped = 0;

	while (fds[1] >= 0 || fds[2] >= 0 || !reaped) {
		struct pollfd p[3];
		int np = 0, idx[3];
		double left = deadline - runcmd_mono();

		if (left <= 0)
			return 1;
		if (!reaped && waitpid(pid, wstatus, WNOHANG) == pid)
			reaped = *reapedp = 1;
		for (int i = 0; i < 3; i++) {
			if (fds[i] < 0)
				continue;
			p[np].fd = fds[i];
			p[np].events = i == 0 ? POLLOUT : POLLIN;
			idx[np++] = i;
		}
		int ms = (int)(left * 1000) + 1;
		if (np == 0 || (reaped && fds[1] < 0 && fds[2] < 0)) {
			if (reaped)
				break;
			poll(NULL, 0, 1); /* outputs closed; the exit is moments away */
			continue;
		}
		if (poll(p, (nfds_t)np, ms < 50 ? ms : 50) < 0 && errno != EINTR)
			return 1;
		for (int k = 0; k < np; k++) {
			int i = idx[k];
			if (p[k].revents == 0)
				continue;
			if (i == 0) {
				ssize_t n = write(fds[0], input + written, input_len - written);
				if (n > 0)
					written += (size_t)n;
				if (n < 0 || written == input_len)
					runcmd_close_fd(&fds[0]);
			} else if (drain_fd(fds[i], i == 1 ? out : err)) {
				runcmd_close_fd(&fds[i]);
			}
		}
	}
	return 0;
}

/*
 * Children that would not die after SIGKILL (stuck in the kernel): never
 * waited on again in a blocking way; each later call tries to reap them.
 * runcmd is called from one thread at a time (the collector).
 */
#define REAP_GRACE_S 2.0
#define ABANDONED_MAX 32
static pid_t abandoned[ABANDONED_MAX];
static int n_abandoned;

static void
reap_abandoned(void)
{
	for (int i = 0; i < n_abandoned;) {
		int st;
		pid_t r = waitpid(abandoned[i], &st, WNOHANG);
		if (r == 0) {
			i++;
			continue;
		}
		abandoned[i] = abandoned[--n_abandoned];
	}
}

/*
 * A command timed out: kill its process group and reap it, waiting at most
 * REAP_GRACE_S.  The group is killed even when the leader was already reaped,
 * because something of the group still holds the output pipes open, so the
 * group (and its id) still exists and cannot have been reused.  Returns -1
 * when the child would not die (it is abandoned, and reaped later).
 */
static int
finish_child(pid_t pid, int reaped, int *wstatus)
{
	kill(-pid, SIGKILL);
	if (reaped)
		return 0;
	kill(pid, SIGKILL);
	double until = runcmd_mono() + REAP_GRACE_S;
	for (;;) {
		pid_t r = waitpid(pid, wstatus, WNOHANG);
		if (r == pid || (r == -1 && errno != EINTR))
			return 0;
		if (runcmd_mono() > until)
			break;
		poll(NULL, 0, 5);
	}
	log_warnx("pid %ld would not die after SIGKILL; left to be reaped later", (long)pid);
	if (n_abandoned < ABANDONED_MAX)
		abandoned[n_abandoned++] = pid;
	return -1;
}

int
runcmd(char *const argv[], const char *input, size_t input_len, int timeout_ms,
    struct runcmd_result *res)
{
	struct capture out = { .max = RUNCMD_OUT_MAX }, err = { .max = sizeof(res->err) - 1 };
	int inpipe[2] = { -1, -1 }, outpipe[2] = { -1, -1 }, errpipe[2] = { -1, -1 };
	int fds[3] = { -1, -1, -1 };
	double start = runcmd_mono();
	pid_t pid;
	int wstatus = 0, rc;

	memset(res, 0, sizeof(*res));
	res->status = RUNCMD_ERROR;
	reap_abandoned();
	if (pipe(inpipe) == -1 || pipe(outpipe) == -1 || pipe(errpipe) == -1) {
		snprintf(res->err, sizeof(res->err), "pipe: %s", strerror(errno));
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(inpipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(outpipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(errpipe[i], F_SETFD, FD_CLOEXEC);
	}
	rc = spawn_child(argv, inpipe[0], outpipe[1], errpipe[1], &pid);
	if (rc != 0) {
		res->status = (rc == ENOENT || rc == EACCES) ? RUNCMD_NOTFOUND : RUNCMD_ERROR;
		snprintf(res->err, sizeof(res->err), "%s: %s", argv[0], strerror(rc));
		goto fail;
	}
	runcmd_close_fd(&inpipe[0]);
	runcmd_close_fd(&outpipe[1]);
	runcmd_close_fd(&errpipe[1]);
	fds[0] = inpipe[1];
	fds[1] = outpipe[0];
	fds[2] = errpipe[0];
	if (input == NULL || input_len == 0)
		runcmd_close_fd(&fds[0]);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);

	int reaped = 0;
	int timed_out = pump(pid, fds, input, input_len, start + timeout_ms / 1000.0, &out,
	    &err, &wstatus, &reaped);
	if (timed_out && finish_child(pid, reaped, &wstatus) == -1)
		snprintf(res->err, sizeof(res->err), "would not die after SIGKILL");
	for (int i = 0; i < 3; i++)
		runcmd_close_fd(&fds[i]);
	res->out = out.buf ? out.buf : strdup("");
	res->out_len = out.len;
	res->out_truncated = out.truncated;
	if (err.buf) {
		memcpy(res->err, err.buf, err.len);
		res->err[err.len] = '\0';
		free(err.buf);
	}
	res->elapsed = runcmd_mono() - start;
	if (timed_out)
		res->status = RUNCMD_TIMEOUT;
	else
		runcmd_set_status(res, wstatus);
	return 0;

fail:
	for (int i = 0; i < 2; i++) {
		runcmd_close_fd(&inpipe[i]);
		runcmd_close_fd(&outpipe[i]);
		runcmd_close_fd(&errpipe[i]);
	}
	free(out.buf);
	free(err.buf);
	res->out = strdup("");
	res->elapsed = runcmd_mono() - start;
	return -1;
}

int
runcmd_spawn(char *const argv[], pid_t *pid, int fds[2])
{
	int outpipe[2] = { -1, -1 }, errpipe[2] = { -1, -1 }, null_fd, rc;

	reap_abandoned();
	if ((null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	if (pipe(outpipe) == -1 || pipe(errpipe) == -1) {
		rc = errno;
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(outpipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(errpipe[i], F_SETFD, FD_CLOEXEC);
	}
	rc = spawn_child(argv, null_fd, outpipe[1], errpipe[1], pid);
	if (rc != 0)
		goto fail;
	close(null_fd);
	runcmd_close_fd(&outpipe[1]);
	runcmd_close_fd(&errpipe[1]);
	fds[0] = outpipe[0];
	fds[1] = errpipe[0];
	for (int i = 0; i < 2; i++)
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	return 0;

fail:
	close(null_fd);
	for (int i = 0; i < 2; i++) {
		runcmd_close_fd(&outpipe[i]);
		runcmd_close_fd(&errpipe[i]);
	}
	return rc;
}

int
runcmd_reap_exited(pid_t pid, int *wstatus)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	/* WNOWAIT: the leader stays a zombie, holding its pid and group id */
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1 ||
	    si.si_pid != pid)
		return 0;
	kill(-pid, SIGKILL);	/* what it left of its group */
	while (waitpid(pid, wstatus, 0) == -1 && errno == EINTR)
		;
	return 1;
}

int
runcmd_kill(pid_t pid, int *wstatus)
{
	int st = 0, rc = finish_child(pid, 0, &st);

	if (wstatus != NULL)
		*wstatus = st;
	return rc;
}

void
runcmd_result_free(struct runcmd_result *res)
{
	if (res == NULL)
		return;
	free(res->out);
	res->out = NULL;
}

const char *
runcmd_failure(const struct runcmd_result *res, int timeout_ms, char *buf, size_t buflen)
{
	char first[200];
	size_t n;

	switch (res->status) {
	case RUNCMD_OK:
		if (res->exit_code == 0)
			return NULL;
		n = strcspn(res->err, "\n");
		if (n >= sizeof(first))
			n = sizeof(first) - 1;
		memcpy(first, res->err, n);
		first[n] = '\0';
		snprintf(buf, buflen, "exited %d%s%s", res->exit_code, n ? ": " : "", first);
		break;
	case RUNCMD_NOTFOUND:
		snprintf(buf, buflen, "not found on PATH");
		break;
	case RUNCMD_TIMEOUT:
		snprintf(buf, buflen, "timed out after %g s", timeout_ms / 1000.0);
		break;
	case RUNCMD_SIGNALED:
		snprintf(buf, buflen, "killed by signal %d", res->term_signal);
		break;
	default:
		snprintf(buf, buflen, "could not run: %s", res->err);
		break;
	}
	return buf;
}
