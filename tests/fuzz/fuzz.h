/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): each defines
 * LLVMFuzzerTestOneInput and is linked with the sanitized parsers
 * (the Makefile's fuzz section).  A target reports a broken property (a
 * round trip that does not give back what it encoded) with FUZZ_CHECK:
 * it prints the reason and aborts, which libFuzzer records as a crash.
 */
#ifndef TBMESH_FUZZ_H
#define TBMESH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

/* The input as a NUL-terminated string (malloc'd: free it); NULL out of memory. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The input as an exactly-sized heap copy, so that ASan catches a read one
 * byte past len (libFuzzer's own buffer is exact too; this is for the
 * parsers that are handed a sub-slice).
 */
static inline char *
fuzz_copy(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);

	if (s != NULL && size > 0)
		memcpy(s, data, size);
	return s;
}

#endif
