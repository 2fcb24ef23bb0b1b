/*
 * Test helper for the darwin backend's unit tests: a fake Mac's state
 * folder made by tests/fakemac/mkstate.sh (found through the project's
 * top folder), shell steps that rewrite it, and lookups in the report.
 * Header-only: each test file includes it once, after <cmocka.h>.
 */
#ifndef TBMESH_FAKEMAC_FIXTURE_H
#define TBMESH_FAKEMAC_FIXTURE_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "runcmd.h"

/*
 * Before the tests run: top (PATH_MAX) gets the project's top folder
 * ($TBMESH_TOP, else "."), the fake commands go first on PATH, and a fake
 * that exits early cannot kill the test with SIGPIPE.  -1 on failure.
 */
static inline int
fm_use_fakes(char *top)
{
	const char *t = getenv("TBMESH_TOP");
	const char *old = getenv("PATH");
	char path[2 * PATH_MAX + 32];

	if (realpath(t != NULL ? t : ".", top) == NULL) {
		perror("TBMESH_TOP");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/tests/fakemac/bin:%s", top,
	    old ? old : "/usr/bin:/bin");
	signal(SIGPIPE, SIG_IGN);
	return setenv("PATH", path, 1);
}

/* Run a helper command (not a fake) with $0..$2; fail the test when it fails. */
static inline void
fm_sh(const char *script, const char *a0, const char *a1, const char *a2)
{
	char *argv[] = { "sh", "-c", (char *)script, (char *)a0, (char *)a1, (char *)a2, NULL };
	struct runcmd_result res;

	assert_int_equal(runcmd(argv, NULL, 0, 20000, &res), 0);
	if (res.status != RUNCMD_OK || res.exit_code != 0)
		fail_msg("%s: %s", script, res.err);
	runcmd_result_free(&res);
}

/*
 * A new fake Mac of kind ("studio", "macbook") in a fresh folder named
 * from prefix ("/tmp/tbmesh-fakemac"), which dir (PATH_MAX) gets, under
 * the project's top folder top; FAKEMAC_DIR points at it.  -1 on failure.
 */
static inline int
fm_make(char *dir, const char *prefix, const char *top, const char *kind)
{
	char mkstate[PATH_MAX + 64];

	snprintf(dir, PATH_MAX, "%s-XXXXXX", prefix);
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(mkstate, sizeof(mkstate), "%s/tests/fakemac/mkstate.sh", top);
	fm_sh("sh \"$0\" \"$1\" \"$2\"", mkstate, dir, kind);
	return setenv("FAKEMAC_DIR", dir, 1);
}

/* Remove the fake Mac's folder and forget it (and its call log). */
static inline void
fm_remove(const char *dir)
{
	fm_sh("rm -rf \"$0\"", dir, NULL, NULL);
	unsetenv("FAKEMAC_DIR");
	unsetenv("FAKEMAC_LOG");
}

static inline void
fm_print_errors(const struct report *r)
{
	for (int i = 0; i < r->n_errors; i++)
		print_message("error %d: %s: %s\n", i, r->errors[i].source, r->errors[i].message);
}

/* r's port with that receptacle (the test fails without one). */
static inline const struct report_port *
fm_port_of(const struct report *r, const char *receptacle)
{
	for (int i = 0; i < r->thunderbolt.n_ports; i++)
		if (strcmp(r->thunderbolt.ports[i].receptacle, receptacle) == 0)
			return &r->thunderbolt.ports[i];
	fail_msg("no port for receptacle %s", receptacle);
	return NULL;
}

#endif
