/*
 * Reading procfs and sysfs files under a root directory, for the linux
 * backend.  The root lets tests point the backend at a tree they built;
 * NULL, "" or "/" is the real root.
 *
 * Every path is the root followed by a path that starts with '/'; a path
 * that does not fit in SYSFS_PATH_MAX fails with ENAMETOOLONG rather than
 * being truncated.  Reads are bounded by the caller's buffer, and only
 * regular files are read (a FIFO planted in a tree cannot hang a read).
 * Nothing here walks directories recursively, so a symbolic link loop
 * costs one ELOOP, not a hang.
 */
#ifndef TBMESH_SYSFS_H
#define TBMESH_SYSFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SYSFS_PATH_MAX 1024
#define SYSFS_FILE_MAX (64u << 10)  /* buffer for whole-file reads (meminfo, os-release) */
#define SYSFS_LIST_MAX 4096         /* entries sysfs_list keeps */
#define SYSFS_SCAN_MAX (4u << 20)   /* bytes sysfs_find_line looks at */

/*
 * The root as the other functions want it: "" for the real root, else the
 * root without trailing slashes.  Returns NULL when root is too long.
 */
const char *sysfs_root(const char *root, char *buf, size_t len);

/* buf = root + the formatted path.  Returns 0, or -1 (ENAMETOOLONG). */
int sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Read the regular file root+path into buf (at most len - 1 bytes, then a
 * NUL).  Returns the byte count, or -1 with errno set (EISDIR or EINVAL
 * when it is not a regular file).  When the file holds more than fits:
 * with truncated == NULL that is an error (EFBIG); otherwise *truncated is
 * set to 1 and the first len - 1 bytes are kept.
 */
ssize_t sysfs_read(const char *root, const char *path, char *buf, size_t len,
    int *truncated);

/*
 * Read a one-value attribute: its first line, without the newline and
 * without leading or trailing white space.  Returns the length (0 for an
 * empty file), or -1 with errno set.
 */
ssize_t sysfs_read_line(const char *root, const char *path, char *buf, size_t len);

/*
 * The first line of root+path that starts with prefix, without its
 * newline, into buf.  Lines that do not fit in buf with their newline are
 * skipped; at most SYSFS_SCAN_MAX bytes of the file are looked at.
 * Returns the length, -1 with errno set when the file cannot be read, or
 * -2 when no line matches.
 */
ssize_t sysfs_find_line(const char *root, const char *path, const char *prefix,
    char *buf, size_t len);

/* Read an attribute that holds one integer.  -1 with errno EINVAL if it does not. */
int sysfs_read_i64(const char *root, const char *path, int64_t *out);

/*
 * Parse s as a decimal integer, allowing surrounding white space and
 * nothing else.  Returns 0, or -1 when s is not one or overflows.
 */
int sysfs_parse_i64(const char *s, int64_t *out);

/* 1 when root+path exists (following links), 0 when it does not, -1 on other errors. */
int sysfs_exists(const char *root, const char *path);

/* 1 when root+path is a directory (following links), else 0. */
int sysfs_isdir(const char *root, const char *path);

/*
 * The last component of the target of the symbolic link root+path, into
 * buf.  Returns 0, or -1 with errno set (EINVAL: not a link).
 */
int sysfs_link_base(const char *root, const char *path, char *buf, size_t len);

/*
 * The names in directory root+path that start with prefix (NULL or "": all),
 * without "." and "..", sorted so that digit runs compare as numbers
 * ("thermal_zone2" before "thermal_zone10").  At most SYSFS_LIST_MAX are
 * kept.  Returns 0, or -1 with errno set (ENOENT: no such directory).
 * Free with sysfs_list_free(), which accepts a list that failed.
 */
struct sysfs_list {
	size_t n;
	char **names;
};

int sysfs_list(const char *root, const char *path, const char *prefix, struct sysfs_list *l);
void sysfs_list_free(struct sysfs_list *l);

#endif
