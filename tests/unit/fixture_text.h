/*
 * The unit tests' fixture files: tests/fixtures/DIR/NAME read whole, from
 * the top of the tree (or $TBMESH_TOP).  Header-only: each test file
 * includes it once, after cmocka.h.
 */
#ifndef TBMESH_FIXTURE_TEXT_H
#define TBMESH_FIXTURE_TEXT_H

#include <stdio.h>
#include <stdlib.h>

/*
 * tests/fixtures/DIR/NAME, NUL-terminated, its length in *len (len may be
 * NULL); the caller frees it.  A file that cannot be read fails the test.
 */
static inline char *
fx_fixture(const char *dir, const char *name, size_t *len)
{
	const char *top = getenv("TBMESH_TOP");
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s/%s", top ? top : ".", dir, name);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("cannot open %s (run from the top or set TBMESH_TOP)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	assert_true(n >= 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

#endif
