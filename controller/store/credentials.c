/*
 * Update passwords in files only the controller's user can read, or from a
 * command (see credentials.h).
 */
#include "credentials.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define CRED_CMD_TIMEOUT_MS 10000

void
cred_wipe(char *pw, size_t size)
{
	volatile char *p = pw;

	while (size-- > 0)
		*p++ = 0;
}

/* STATE_DIR/credentials, made 0700 (and brought back to 0700). */
static int
cred_dir(const char *state_dir, char *dir, size_t size, char *err, size_t errlen)
{
	if (state_dir == NULL || state_dir[0] == '\0') {
		snprintf(err, errlen, "the controller has no state directory");
		return -1;
	}
	snprintf(dir, size, "%s/credentials", state_dir);
	if (mkdir(state_dir, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", state_dir, strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	if (chmod(dir, 0700) == -1) {
		snprintf(err, errlen, "cannot chmod %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* "node:mac1" -> "DIR/node-mac1" (names are api_name_valid: no slash). */
static void
cred_path(const char *dir, const char *scope, char *path, size_t size)
{
	char name[128];

	snprintf(name, sizeof(name), "%s", scope);
	for (char *p = name; *p != '\0'; p++)
		if (*p == ':' || *p == '/')
			*p = '-';
	snprintf(path, size, "%s/%s", dir, name);
}

int
cred_store(const char *state_dir, const char *scope, const char *password, char *err,
    size_t errlen)
{
	char dir[4096], path[4200], tmp[4300];
	size_t len = strlen(password);
	int fd;

	if (cred_dir(state_dir, dir, sizeof(dir), err, errlen) == -1)
		return -1;
	cred_path(dir, scope, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (write(fd, password, len) != (ssize_t)len || fsync(fd) == -1) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	if (rename(tmp, path) == -1) {
		snprintf(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int
load_file(const char *state_dir, const char *scope, char *pw, size_t size, char *err,
    size_t errlen)
{
	char dir[4096], path[4200];
	struct stat st;
	ssize_t n;
	int fd;

	if (cred_dir(state_dir, dir, sizeof(dir), err, errlen) == -1)
		return -1;
	cred_path(dir, scope, path, sizeof(path));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "no password stored for %s", scope);
		return -1;
	}
	if (fstat(fd, &st) == -1 || (st.st_mode & 077) != 0 || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s is readable by others or not ours: refused", path);
		close(fd);
		return -1;
	}
	n = read(fd, pw, size - 1);
	close(fd);
	if (n <= 0) {
		snprintf(err, errlen, "the password file of %s is empty", scope);
		return -1;
	}
	pw[n] = '\0';
	return 0;
}

/* Read the child's stdout until EOF or the deadline; -1 on timeout. */
static int
read_child(int fd, char *buf, size_t size)
{
	struct timespec t0;
	size_t len = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = CRED_CMD_TIMEOUT_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	buf[len] = '\0';
	return 0;
}

static int
load_command(const char *command, const char *scope, const char *user, char *pw, size_t size,
    char *err, size_t errlen)
{
	char kind[16], name[128];
	const char *colon = strchr(scope, ':');
	int fds[2], status = 0, rc;
	pid_t pid;

	snprintf(kind, sizeof(kind), "%.*s", colon ? (int)(colon - scope) : 0, scope);
	snprintf(name, sizeof(name), "%s", colon ? colon + 1 : scope);
	if (pipe(fds) == -1 || (pid = fork()) == -1) {
		snprintf(err, errlen, "cannot run the password command: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		dup2(devnull, 0);
		dup2(fds[1], 1);
		close(fds[0]);
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", command, "sh", kind, name, user, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	rc = read_child(fds[0], pw, size);
	close(fds[0]);
	if (rc == -1)
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (rc == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cred_wipe(pw, size);
		snprintf(err, errlen, "the password command failed for %s (%s)", scope,
		    rc == -1 ? "timed out" : "non-zero exit");
		return -1;
	}
	return 0;
}

int
cred_load(const char *state_dir, const char *command, const char *scope, const char *user,
    char *pw, size_t size, char *err, size_t errlen)
{
	int rc = command != NULL && command[0] != '\0' ?
	    load_command(command, scope, user, pw, size, err, errlen) :
	    load_file(state_dir, scope, pw, size, err, errlen);

	if (rc == 0) {
		pw[strcspn(pw, "\r\n")] = '\0';
		if (pw[0] == '\0') {
			snprintf(err, errlen, "the password of %s is empty", scope);
			return -1;
		}
	}
	return rc;
}
