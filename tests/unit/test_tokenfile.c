/*
 * tokenfile: a token written whole with mode 0600 whatever the umask,
 * replaced atomically or created only where there is nothing, no temp file
 * left behind; read back trimmed, a malformed one refused without echoing
 * it; removed, absent or not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_fixture.h"
#include "tokenfile.h"

#define TOK1 "tbm_0123456789ab_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#define TOK2 "tbm_ba9876543210_b-b_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void
file_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
}

static void
test_replace(void **state)
{
	const char *dir = *state;
	char path[300], text[128], err[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/node-token", dir);
	mode_t old = umask(0277);     /* 0600 all the same */
	assert_int_equal(tokenfile_write(path, TOK1, TOKENFILE_REPLACE, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	file_text(path, text, sizeof(text));
	assert_string_equal(text, TOK1 "\n");

	/* atomic: an open reader keeps the old file whole; no temp file is left */
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(tokenfile_write(path, TOK2, TOKENFILE_REPLACE, err, sizeof(err)), 0);
	char seen[128] = "";
	assert_true(read(fd, seen, sizeof(seen) - 1) > 0);
	close(fd);
	assert_string_equal(seen, TOK1 "\n");
	file_text(path, text, sizeof(text));
	assert_string_equal(text, TOK2 "\n");
	assert_int_equal(fx_count_entries(dir), 1);
}

static void
test_create(void **state)
{
	const char *dir = *state;
	char path[300], text[128], err[512];

	snprintf(path, sizeof(path), "%s/admin-token", dir);
	assert_int_equal(tokenfile_write(path, TOK1, TOKENFILE_CREATE, err, sizeof(err)), 0);
	assert_int_equal(tokenfile_write(path, TOK2, TOKENFILE_CREATE, err, sizeof(err)), -1);
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(err, path));
	assert_null(strstr(err, TOK2));
	file_text(path, text, sizeof(text));
	assert_string_equal(text, TOK1 "\n");            /* the first one kept */
	assert_int_equal(fx_count_entries(dir), 1);

	snprintf(path, sizeof(path), "%s/absent/admin-token", dir);
	assert_int_equal(tokenfile_write(path, TOK1, TOKENFILE_CREATE, err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, path));
	assert_int_equal(fx_count_entries(dir), 1);
}

static void
test_read(void **state)
{
	const char *dir = *state;
	char path[300], tok[128], err[512];

	snprintf(path, sizeof(path), "%s/bootstrap", dir);
	fx_write_text(path, "\n  " TOK1 " \t\r\n");
	assert_int_equal(tokenfile_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_string_equal(tok, TOK1);
	/* toklen bounds the token: one byte short of it and its NUL is refused */
	assert_int_equal(tokenfile_read(path, tok, strlen(TOK1) + 1, err, sizeof(err)), 0);
	assert_int_equal(tokenfile_read(path, tok, strlen(TOK1), err, sizeof(err)), -1);
	assert_int_equal(errno, EINVAL);
	const char *bad[] = { "", "  \n", "hunter2 words\n", "tbm_a\ntbm_b\n", "tbm_x=\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_write_text(path, bad[i]);
		assert_int_equal(tokenfile_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, path));
		assert_null(strstr(err, "hunter2"));        /* the content is never echoed */
	}
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(tokenfile_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err, path));
}

static void
test_remove(void **state)
{
	const char *dir = *state;
	char path[300], tok[128], err[512];

	snprintf(path, sizeof(path), "%s/node-token", dir);
	assert_int_equal(tokenfile_write(path, TOK1, TOKENFILE_REPLACE, err, sizeof(err)), 0);
	assert_int_equal(tokenfile_read(path, tok, sizeof(tok), err, sizeof(err)), 0);
	assert_int_equal(tokenfile_remove(path, err, sizeof(err)), 0);
	assert_int_equal(tokenfile_read(path, tok, sizeof(tok), err, sizeof(err)), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(tokenfile_remove(path, err, sizeof(err)), 0);   /* gone already */
	assert_int_equal(fx_count_entries(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replace, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test_setup_teardown(test_create, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test_setup_teardown(test_read, fx_dir_setup, fx_dir_teardown),
		cmocka_unit_test_setup_teardown(test_remove, fx_dir_setup, fx_dir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
