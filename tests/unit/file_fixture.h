/*
 * Files for the unit tests that read and write them (test_push.c,
 * test_tokenfile.c, test_config.c, test_ctrl_config.c): a temporary
 * directory per test, removed with what it holds, and small files written
 * or counted.  Header-only: each test file includes it once.
 */
#ifndef TBMESH_FILE_FIXTURE_H
#define TBMESH_FILE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Remove dir and everything under it. */
static inline void
fx_rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (unlink(path) == -1)
			fx_rm_tree(path);
	}
	closedir(d);
	rmdir(dir);
}

/* cmocka setup: *state is a new empty directory (malloc'd path). */
static inline int
fx_dir_setup(void **state)
{
	char *dir = strdup("/tmp/tbmesh-unit-XXXXXX");

	assert_non_null(mkdtemp(dir));
	*state = dir;
	return 0;
}

/* cmocka teardown: the directory of fx_dir_setup() removed, its path freed. */
static inline int
fx_dir_teardown(void **state)
{
	fx_rm_tree(*state);
	free(*state);
	return 0;
}

/* path holds text, and nothing else. */
static inline void
fx_write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The entries of dir that do not start with '.'. */
static inline int
fx_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * A new file in /tmp that holds text: its path, valid until the next call;
 * the caller unlinks it.
 */
static inline char *
fx_temp_file(const char *text)
{
	static char path[64];

	strcpy(path, "/tmp/tbmesh-unit-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

#endif
