/*
 * tbctl node history NODE [--since T] [--limit N]: a node's samples (GET
 * /v1/nodes/{name}/samples), oldest first, times in UTC: memory used/total,
 * power and the negotiated speed of each Thunderbolt port.
 */
#include "ctl.h"

#include <math.h>
#include <stdio.h>

#include "api_samples.h"

#define SINCE_MAX 1e11

static ctl_handler node_history;

const struct ctl_cmd ctl_cmd_node_history = {
	.name = "node history",
	.usage = "NODE [--since TIME] [--limit N]",
	.help =
	    "Show a node's samples: memory, power, link speeds.\n"
	    "Oldest first: memory used/total, power and the negotiated speed of each\n"
	    "Thunderbolt port, as stored from its reports.\n"
	    "  --since TIME      from this time (unix seconds, 2025-11-22T03:40:01Z) or\n"
	    "                    this long ago (10m, 2h); default 1h\n"
	    "  --limit N         at most N samples, the newest (default and most 10000)\n",
	.opts = CTL_OPT(SINCE) | CTL_OPT(LIMIT),
	.min_pos = 1, .max_pos = 1,
	.handler = node_history,
};

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

static int
node_history(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], err[512];

	if (ctl_history_path(a, ctl_now(), path, sizeof(path), err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	return ctl_get(cl, a, path, out->samples);
}
