/*
 * Bounded reads of procfs and sysfs files under a root.  See sysfs.h.
 */
#include "sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "natcmp.h"

const char *
sysfs_root(const char *root, char *buf, size_t len)
{
	size_t n;

	if (root == NULL)
		root = "";
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	if (n + 1 > len)
		return NULL;
	memcpy(buf, root, n);
	buf[n] = '\0';
	return buf;
}

int
sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	size_t rl = strlen(root);
	int n;

	if (rl >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, root, rl);
	va_start(ap, fmt);
	n = vsnprintf(buf + rl, len - rl, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - rl) {
		buf[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Open root+path for reading if it is a regular file; -1 with errno otherwise. */
static int
open_regular(const char *root, const char *path)
{
	char full[SYSFS_PATH_MAX];
	struct stat st;
	int fd, saved;

	if (sysfs_path(full, sizeof(full), root, "%s", path) == -1)
		return -1;
	/* O_NONBLOCK: a FIFO planted in a tree must not hang the open. */
	if ((fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		saved = errno;
	else if (S_ISREG(st.st_mode))
		return fd;
	else
		saved = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	close(fd);
	errno = saved;
	return -1;
}


ssize_t
sysfs_read(const char *root, const char *path, char *buf, size_t len, int *truncated)
{
	size_t got = 0;
	ssize_t n;
	char extra;
	int fd, saved;

	if (truncated != NULL)
		*truncated = 0;
	if (len == 0 || (fd = open_regular(root, path)) == -1)
		return -1;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (got == len - 1 && read(fd, &extra, 1) == 1) {
		if (truncated == NULL) {
			errno = EFBIG;
			goto fail;
		}
		*truncated = 1;
	}
	close(fd);
	return (ssize_t)got;
fail:
	saved = errno;
	close(fd);
	buf[0] = '\0';
	errno = saved;
	return -1;
}

ssize_t
sysfs_read_line(const char *root, const char *path, char *buf, size_t len)
{
	char tmp[4096];
	size_t start = 0, end;
	int trunc;

	if (sysfs_read(root, path, tmp, sizeof(tmp), &trunc) == -1)
		return -1;
	end = strcspn(tmp, "\n");
	while (start < end && isspace((unsigned char)tmp[start]))
		start++;
	while (end > start && isspace((unsigned char)tmp[end - 1]))
		end--;
	if (end - start + 1 > len) {
		errno = EFBIG;
		return -1;
	}
	memcpy(buf, tmp + start, end - start);
	buf[end - start] = '\0';
	return (ssize_t)(end - start);
}

/*
 * Read the next line of f into buf without its newline.  Returns its
 * length, -2 for a line longer than buf (consumed and dropped), -1 at EOF.
 */
static ssize_t
next_line(FILE *f, char *buf, size_t len, size_t *seen)
{
	size_t n;
	int c;

	if (fgets(buf, (int)len, f) == NULL)
		return -1;
	n = strlen(buf);
	*seen += n;
	if (n > 0 && buf[n - 1] == '\n') {
		buf[n - 1] = '\0';
		return (ssize_t)(n - 1);
	}
	if (feof(f))
		return (ssize_t)n;
	while ((c = getc(f)) != EOF && c != '\n')
		(*seen)++;
	return -2;
}

ssize_t
sysfs_find_line(const char *root, const char *path, const char *prefix, char *buf,
    size_t len)
{
	size_t plen = strlen(prefix), seen = 0;
	ssize_t n;
	FILE *f;
	int fd;

	if (len < 2 || (fd = open_regular(root, path)) == -1)
		return -1;
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return -1;
	}
	while (seen < SYSFS_SCAN_MAX && (n = next_line(f, buf, len, &seen)) != -1) {
		if (n >= 0 && strncmp(buf, prefix, plen) == 0) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	buf[0] = '\0';
	return -2;
}

int
sysfs_parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return -1;
	*out = (int64_t)v;
	return 0;
}

int
sysfs_read_i64(const char *root, const char *path, int64_t *out)
{
	char buf[64];

	if (sysfs_read_line(root, path, buf, sizeof(buf)) == -1)
		return -1;
	if (sysfs_parse_i64(buf, out) == -1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
sysfs_exists(const char *root, const char *path)
{
	char full[SYSFS_PATH_MAX];
	struct stat st;

	if (sysfs_path(full, sizeof(full), root, "%s", path) == -1)
		return -1;
	if (stat(full, &st) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

int
sysfs_isdir(const char *root, const char *path)
{
	char full[SYSFS_PATH_MAX];
	struct stat st;

	if (sysfs_path(full, sizeof(full), root, "%s", path) == -1)
		return 0;
	return stat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

int
sysfs_link_base(const char *root, const char *path, char *buf, size_t len)
{
	char full[SYSFS_PATH_MAX], target[SYSFS_PATH_MAX];
	const char *base;
	ssize_t n;

	if (sysfs_path(full, sizeof(full), root, "%s", path) == -1)
		return -1;
	if ((n = readlink(full, target, sizeof(target) - 1)) == -1)
		return -1;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base == NULL ? target : base + 1;
	if (strlen(base) + 1 > len || *base == '\0') {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

static int
natcmp_ptr(const void *pa, const void *pb)
{
	return proto_natcmp(*(char *const *)pa, *(char *const *)pb);
}

/* Append a copy of name; -1 when out of memory. */
static int
list_add(struct sysfs_list *l, size_t *cap, const char *name)
{
	char *dup;

	if (l->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		char **nn = realloc(l->names, ncap * sizeof(*nn));
		if (nn == NULL)
			return -1;
		l->names = nn;
		*cap = ncap;
	}
	if ((dup = strdup(name)) == NULL)
		return -1;
	l->names[l->n++] = dup;
	return 0;
}

int
sysfs_list(const char *root, const char *path, const char *prefix, struct sysfs_list *l)
{
	char full[SYSFS_PATH_MAX];
	size_t cap = 0, plen = prefix == NULL ? 0 : strlen(prefix);
	struct dirent *de;
	DIR *d;

	l->n = 0;
	l->names = NULL;
	if (sysfs_path(full, sizeof(full), root, "%s", path) == -1)
		return -1;
	if ((d = opendir(full)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && l->n < SYSFS_LIST_MAX) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (plen > 0 && strncmp(de->d_name, prefix, plen) != 0)
			continue;
		if (list_add(l, &cap, de->d_name) == -1) {
			closedir(d);
			sysfs_list_free(l);
			errno = ENOMEM;
			return -1;
		}
	}
	closedir(d);
	if (l->n > 1)
		qsort(l->names, l->n, sizeof(*l->names), natcmp_ptr);
	return 0;
}

void
sysfs_list_free(struct sysfs_list *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}
