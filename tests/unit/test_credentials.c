/*
 * credentials: passwords stored in 0600 files under a 0700 directory, read
 * back, refused when others may read them, and printed by a command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "credentials.h"

static void
test_store_and_load(void **state)
{
	(void)state;
	char dir[] = "/tmp/tbmesh-cred.XXXXXX", path[256], pw[CRED_PASSWORD_MAX], err[300];
	struct stat st;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(cred_store(dir, "cluster:lab", "s3cret pass", err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/credentials", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/credentials/cluster-lab", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(cred_load(dir, NULL, "cluster:lab", "admin", pw, sizeof(pw), err,
	    sizeof(err)), 0);
	assert_string_equal(pw, "s3cret pass");
	/* replaced atomically */
	assert_int_equal(cred_store(dir, "cluster:lab", "zq-pass", err, sizeof(err)), 0);
	assert_int_equal(cred_load(dir, NULL, "cluster:lab", "admin", pw, sizeof(pw), err,
	    sizeof(err)), 0);
	assert_string_equal(pw, "zq-pass");
	/* none stored */
	assert_int_equal(cred_load(dir, NULL, "node:mac9", "admin", pw, sizeof(pw), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "no password stored for node:mac9"));
	/* readable by others: refused, and the error does not hold it */
	chmod(path, 0644);
	assert_int_equal(cred_load(dir, NULL, "cluster:lab", "admin", pw, sizeof(pw), err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "readable by others"));
	assert_null(strstr(err, "zq-pass"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/credentials", dir);
	rmdir(path);
	rmdir(dir);
}

static void
test_command(void **state)
{
	(void)state;
	char pw[CRED_PASSWORD_MAX], err[300];

	assert_int_equal(cred_load("/nonexistent", "printf '%s-%s-%s\\nsecond line\\n' \"$1\" \"$2\" \"$3\"",
	    "node:mac1", "admin", pw, sizeof(pw), err, sizeof(err)), 0);
	assert_string_equal(pw, "node-mac1-admin");
	assert_int_equal(cred_load("/nonexistent", "exit 3", "node:mac1", "admin", pw, sizeof(pw),
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "non-zero exit"));
	assert_int_equal(cred_load("/nonexistent", "echo", "node:mac1", "admin", pw, sizeof(pw),
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_and_load),
		cmocka_unit_test(test_command),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
