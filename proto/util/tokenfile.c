/* Token files (see tokenfile.h). */
#include "tokenfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "path: reason" into err, errno kept; -1. */
static int
failed(const char *path, char *err, size_t errlen)
{
	int saved = errno;

	snprintf(err, errlen, "%s: %s", path, strerror(saved));
	errno = saved;
	return -1;
}

/* The directory that holds path: "." for a bare name.  0, or -1 (too long). */
static int
parent_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash == NULL || slash == path ? 1 : (size_t)(slash - path);

	if (n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, slash == NULL ? "." : path, n);
	dir[n] = '\0';
	return 0;
}

/* Make path's directory entry durable.  0, or TOKENFILE_UNSYNCED with errno and err. */
static int
sync_parent(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int fd = -1;

	if (parent_dir(path, dir, sizeof(dir)) == -1) {
		failed(path, err, errlen);
		return TOKENFILE_UNSYNCED;
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1 && fsync(fd) == 0)
		return close(fd);
	int saved = errno;
	if (fd != -1)
		close(fd);
	snprintf(err, errlen, "%s: fsync: %s", dir, strerror(saved));
	errno = saved;
	return TOKENFILE_UNSYNCED;
}

/* All of buf to fd.  0, or -1 with errno. */
static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* secret and "\n" into a new file tmp, mode 0600, synced.  0, or -1 with errno (tmp gone). */
static int
write_new(const char *tmp, const char *secret)
{
	int fd, saved;

	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == -1)
		return -1;
	if (fchmod(fd, 0600) == 0 && write_all(fd, secret, strlen(secret)) == 0 &&
	    write_all(fd, "\n", 1) == 0 && fsync(fd) == 0)
		return close(fd);
	saved = errno;
	close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

int
tokenfile_write(const char *path, const char *secret, enum tokenfile_how how, char *err,
    size_t errlen)
{
	char tmp[PATH_MAX];
	int rc, saved;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return failed(path, err, errlen);
	}
	if (write_new(tmp, secret) == -1)
		return failed(path, err, errlen);
	/* link(2), unlike open(2) with O_EXCL, puts a file already whole in place */
	rc = how == TOKENFILE_REPLACE ? rename(tmp, path) : link(tmp, path);
	saved = errno;
	if (rc == -1 || how == TOKENFILE_CREATE)
		unlink(tmp);
	errno = saved;
	if (rc == -1)
		return failed(path, err, errlen);
	return sync_parent(path, err, errlen);
}

/* 1 when s is only characters a token may hold: [A-Za-z0-9_-]. */
static int
token_chars(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

int
tokenfile_read(const char *path, char *tok, size_t toklen, char *err, size_t errlen)
{
	char buf[512], *s = buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return failed(path, err, errlen);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	int ok = len > 0 && len < toklen && token_chars(s);
	if (ok)
		memcpy(tok, s, len + 1);
	else
		snprintf(err, errlen, "%s: does not hold a token (tbm_<id>_<secret>)", path);
	memset(buf, 0, sizeof(buf));
	errno = ok ? 0 : EINVAL;
	return ok ? 0 : -1;
}

int
tokenfile_remove(const char *path, char *err, size_t errlen)
{
	if (unlink(path) == -1 && errno != ENOENT)
		return failed(path, err, errlen);
	return sync_parent(path, err, errlen);
}
