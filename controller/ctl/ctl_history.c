/*
 * tbctl node history NODE [--since T] [--limit N]: a node's samples (GET
 * /v1/nodes/{name}/samples), oldest first, times in UTC: memory used/total,
 * power and the negotiated speed of each Thunderbolt port.
 */
#include "ctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_samples.h"
#include "ctl_http.h"
#include "ctl_output.h"

#define SINCE_MAX 1e11

int
ctl_history_path(const struct ctl_args *a, double now, char *buf, size_t size, char *err,
    size_t errlen)
{
	double since = now - 3600;
	long limit = API_SAMPLES_MAX;
	const char *node = a->pos[0];

	if (!api_name_valid(node)) {
		snprintf(err, errlen, "node history: \"%s\" is not a valid node name", node);
		return -1;
	}
	if (a->since != NULL && (ctl_parse_time(a->since, now, &since) == -1 ||
	    since >= SINCE_MAX)) {
		snprintf(err, errlen, "node history: --since: \"%s\" is not a time (unix seconds, "
		    "2025-11-22T03:40:01Z) or a duration back from now (10m, 2h)", a->since);
		return -1;
	}
	if (a->limit != NULL && ctl_parse_count(a->limit, 1, API_SAMPLES_MAX, &limit) == -1) {
		snprintf(err, errlen, "node history: --limit: \"%s\" is not a number from 1 to %d",
		    a->limit, API_SAMPLES_MAX);
		return -1;
	}
	/* The name is checked above: nothing in it needs escaping. */
	int n = snprintf(buf, size, "/v1/nodes/%s/samples?since=%.0f&limit=%ld", node,
	    since < 0 ? 0 : floor(since), limit);
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errlen, "node history: the request is too long");
		return -1;
	}
	return 0;
}

int
ctl_history_print(FILE *f, const struct api_sample *s, int n)
{
	static const char *headers[] = { "TIME", "MEMORY", "POWER", "LINKS (PORT:GB/S)" };
	struct ctl_table *t = ctl_table_new(4, headers);
	char when[CTL_FMT_MAX], mem[CTL_FMT_MAX], watts[CTL_FMT_MAX];

	if (t == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *cells[] = { ctl_fmt_time(s[i].t, when, sizeof(when)),
			ctl_fmt_usage(s[i].memory_used_bytes, s[i].memory_total_bytes, mem,
			    sizeof(mem)),
			ctl_fmt_watts(s[i].power_watts, watts, sizeof(watts)),
			ctl_str(s[i].link_speeds) };
		ctl_table_add(t, cells);
	}
	return ctl_table_end(t, f, 0);
}

static int
show_history(const char *body, size_t len, char *err, size_t errlen)
{
	struct api_sample *s = NULL;
	char node[API_NAME_MAX + 1];
	int n, rc = -1;

	if (api_json_decode_samples(body, len, node, &s, &n, err, errlen) == 0)
		rc = ctl_history_print(stdout, s, n) == -1 ? CTL_SHOW_OOM : 0;
	free(s);
	return rc;
}

int
ctl_node_history(struct ctl_client *cl, const struct ctl_args *a)
{
	char path[256], err[512];

	if (ctl_history_path(a, ctl_now(), path, sizeof(path), err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	return ctl_get_show(cl, a, path, "the samples", show_history);
}
