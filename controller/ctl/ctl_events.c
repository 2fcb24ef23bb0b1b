/*
 * tbctl events [--node N] [--since T] [--limit N]: the event log, oldest
 * first as the controller returns it, times in UTC.
 */
#include "ctl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_json.h"

#define LIMIT_MAX 100000
#define SINCE_MAX 1e11

static ctl_handler events_list;

const struct ctl_cmd ctl_cmd_events = {
	.name = "events",
	.usage = "[--node NODE] [--since TIME] [--limit N]",
	.help =
	    "Show the event log.\n"
	    "Times are in UTC.\n"
	    "  --node NODE       only the events about this node\n"
	    "  --since TIME      unix seconds, 2025-11-22T03:40:01Z, \"2025-11-22 03:40:01\"\n"
	    "                    (UTC), 2025-11-22, or a duration back from now: 10m, 2h, 7d\n"
	    "  --limit N         at most N events (1 to 100000; the controller's default\n"
	    "                    is 1000)\n",
	.opts = CTL_OPT(NODE) | CTL_OPT(SINCE) | CTL_OPT(LIMIT),
	.min_pos = 0, .max_pos = 0,
	.handler = events_list,
};

/* Append "&key=value" (or "?key=value" first) to buf. */
static int
query_add(char *buf, size_t size, const char *key, const char *value)
{
	size_t len = strlen(buf);
	int n = snprintf(buf + len, size - len, "%c%s=%s", strchr(buf, '?') ? '&' : '?', key,
	    value);

	return n < 0 || (size_t)n >= size - len ? -1 : 0;
}

int
ctl_events_path(const struct ctl_args *a, double now, char *buf, size_t size, char *err,
    size_t errlen)
{
	char num[32];
	double since = 0;
	long limit = 0;

	snprintf(buf, size, "/v1/events");
	if (a->node != NULL && !api_name_valid(a->node)) {
		snprintf(err, errlen, "events: --node: \"%s\" is not a valid node name", a->node);
		return -1;
	}
	if (a->since != NULL && (ctl_parse_time(a->since, now, &since) == -1 ||
	    since >= SINCE_MAX)) {
		snprintf(err, errlen, "events: --since: \"%s\" is not a time (unix seconds, "
		    "2025-11-22T03:40:01Z, \"2025-11-22 03:40:01\") or a duration back from "
		    "now (10m, 2h)", a->since);
		return -1;
	}
	if (a->limit != NULL && ctl_parse_count(a->limit, 1, LIMIT_MAX, &limit) == -1) {
		snprintf(err, errlen, "events: --limit: \"%s\" is not a number from 1 to %d",
		    a->limit, LIMIT_MAX);
		return -1;
	}
	/* Names are checked above: nothing in them needs escaping in a query. */
	if (a->node != NULL && query_add(buf, size, "node", a->node) == -1)
		goto toolong;
	snprintf(num, sizeof(num), "%.0f", since < 0 ? 0 : floor(since));
	if (a->since != NULL && query_add(buf, size, "since", num) == -1)
		goto toolong;
	snprintf(num, sizeof(num), "%ld", limit);
	if (a->limit != NULL && query_add(buf, size, "limit", num) == -1)
		goto toolong;
	return 0;
toolong:
	snprintf(err, errlen, "events: the request is too long");
	return -1;
}

static int
events_list(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	char path[256], err[512];

	if (ctl_events_path(a, ctl_now(), path, sizeof(path), err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	return ctl_get(cl, a, path, out->events);
}
