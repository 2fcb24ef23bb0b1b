/*
 * The DOT reader (controller/engine/wiring_dot.c): wiring_dot_parse() on any
 * input; what it accepts, wiring_dot_write() must write as DOT that parses
 * to the same links, and writes to the same text.  wiring_dot_import()
 * without a cluster (the first pass of a PUT of a DOT file) reads it too.
 */
#include "fuzz.h"
#include "wiring.h"

static void
check_same_links(const struct wiring_plan_link *x, int nx, const struct wiring_plan_link *y,
    int ny, const char *dot)
{
	int i;

	FUZZ_CHECK(nx == ny, "%d links became %d:\n%s", nx, ny, dot);
	for (i = 0; i < nx; i++) {
		FUZZ_CHECK(strcmp(x[i].a.node, y[i].a.node) == 0 &&
		    strcmp(x[i].a.receptacle, y[i].a.receptacle) == 0 &&
		    strcmp(x[i].b.node, y[i].b.node) == 0 &&
		    strcmp(x[i].b.receptacle, y[i].b.receptacle) == 0,
		    "link %d: %s:%s -- %s:%s became %s:%s -- %s:%s:\n%s", i, x[i].a.node,
		    x[i].a.receptacle, x[i].b.node, x[i].b.receptacle, y[i].a.node,
		    y[i].a.receptacle, y[i].b.node, y[i].b.receptacle, dot);
	}
}

static void
check_round_trip(const struct wiring_plan_link *links, int n)
{
	struct wiring_plan_link *again = NULL;
	char err[256] = "";
	char *d1, *d2;
	int n2 = 0;

	d1 = wiring_dot_write("fuzz", links, n);
	FUZZ_CHECK(d1 != NULL, "wiring_dot_write failed");
	FUZZ_CHECK(wiring_dot_parse(d1, strlen(d1), &again, &n2, err, sizeof(err)) == 0,
	    "its own DOT does not parse: %s\n%s", err, d1);
	check_same_links(links, n, again, n2, d1);
	d2 = wiring_dot_write("fuzz", again, n2);
	FUZZ_CHECK(d2 != NULL && strcmp(d1, d2) == 0, "the DOT changed:\n%s\n%s", d1,
	    d2 ? d2 : "(null)");
	free(again);
	free(d1);
	free(d2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wiring_plan_link *links = NULL;
	char err[256];
	char *text;
	int n = 0;

	text = fuzz_copy(data, size);
	if (text == NULL)
		return 0;
	if (wiring_dot_parse(text, size, &links, &n, err, sizeof(err)) == 0) {
		check_round_trip(links, n);
		free(links);
	}
	links = NULL;
	n = 0;
	if (wiring_dot_import(text, size, NULL, &links, &n, err, sizeof(err)) == 0)
		free(links);
	free(text);
	return 0;
}
