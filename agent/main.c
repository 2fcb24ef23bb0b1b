/* Temporary entry point: replaced by the daemon. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "collector.h"
int main(int argc, char **argv);
int main(int argc, char **argv)
{
	const struct backend *b = backend_find(argc > 1 ? argv[1] : "linux");
	struct collect_opts o = { .now = (double)time(NULL), .cmd_timeout_ms = 5000 };
	struct report *r = report_new();
	if (!b || !r) return 2;
	int rc = collector_run(b, &o, r);
	printf("rc=%d errors=%d\n", rc, r->n_errors);
	free(r);
	return 0;
}
