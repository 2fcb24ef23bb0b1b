/*
 * The lifecycle engine.  See lifecycle.h for the rules.
 */
#include "lifecycle.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define BOOT_TIME_SLACK 2.0 /* seconds a boot time may wobble between reports */

static void
result_init(const struct lc_node *n, struct lc_result *out)
{
	memset(out, 0, sizeof(*out));
	out->state = n->state;
	out->unexpected_reboot = n->unexpected_reboot;
	out->accepted = n->accepted;
	memcpy(out->reason, n->reason, sizeof(out->reason));
}

static void
transition(const struct lc_node *n, struct lc_result *out, enum node_state to,
    const char *reason)
{
	if (to != n->state) {
		snprintf(out->what, sizeof(out->what), "state %s -> %s",
		    api_node_state_str(n->state), api_node_state_str(to));
		out->changed = 1;
	}
	out->state = to;
	report_strset(out->reason, sizeof(out->reason), reason);
	report_strset(out->event_reason, sizeof(out->event_reason), reason);
}

int
lc_report_healthy(const struct report *r, char *why, size_t whylen)
{
	if (r->thunderbolt.n_ports < 0) {
		snprintf(why, whylen, "the agent cannot read the Thunderbolt ports");
		return 0;
	}
	if (r->rdma.state == RDMA_STATE_UNKNOWN) {
		snprintf(why, whylen, "the agent cannot read the RDMA state");
		return 0;
	}
	if (r->memory.total_bytes == REPORT_NULL_I64) {
		snprintf(why, whylen, "the agent cannot read the memory");
		return 0;
	}
	return 1;
}

enum lc_report_time
lc_report_time(const struct lc_node *n, double collected_at, double now,
    double unreachable_after)
{
	if (isnan(collected_at))
		return LC_REPORT_CURRENT;
	if (collected_at > now + LC_CLOCK_SKEW_MAX)
		return LC_REPORT_AHEAD;
	if (collected_at < n->last_collected_at)
		return LC_REPORT_OLDER;
	if (now - collected_at > unreachable_after)
		return LC_REPORT_STALE;
	return LC_REPORT_CURRENT;
}

void
lc_on_report(const struct lc_node *n, const struct report *r, double now, struct lc_result *out)
{
	char why[128];

	lc_on_report_seen(n, r->node.boot_time, lc_report_healthy(r, why, sizeof(why)), now, out);
}

/* Starts *out from n, flagging a boot time that moved without a requested reboot. */
static void
seen_boot(const struct lc_node *n, double bt, struct lc_result *out)
{
	result_init(n, out);
	if (!isnan(bt) && !isnan(n->boot_time) && fabs(bt - n->boot_time) > BOOT_TIME_SLACK &&
	    !n->reboot_expected && !n->unexpected_reboot) {
		out->unexpected_reboot = 1;
		out->changed = 1;
		snprintf(out->what, sizeof(out->what), "unexpected reboot");
		snprintf(out->event_reason, sizeof(out->event_reason),
		    "boot time moved from %.0f to %.0f without a requested reboot", n->boot_time, bt);
	}
}

void
lc_on_stale_report(const struct lc_node *n, double boot_time, struct lc_result *out)
{
	seen_boot(n, boot_time, out);
}

void
lc_on_report_seen(const struct lc_node *n, double boot_time, int healthy, double now,
    struct lc_result *out)
{
	(void)now;

	seen_boot(n, boot_time, out);
	if (n->state == NODE_PENDING && n->accepted && healthy) {
		out->accepted = 0;
		transition(n, out, NODE_READY, "accepted, first healthy report");
		return;
	}
	if (n->state == NODE_UNREACHABLE && healthy) {
		if (out->what[0] != '\0') {
			/* the reboot stays the first event, the transition the second */
			struct lc_result first = *out;
			transition(n, out, NODE_READY, "reporting again");
			memcpy(out->what2, out->what, sizeof(out->what2));
			memcpy(out->event_reason2, out->event_reason, sizeof(out->event_reason2));
			memcpy(out->what, first.what, sizeof(out->what));
			memcpy(out->event_reason, first.event_reason, sizeof(out->event_reason));
		} else {
			transition(n, out, NODE_READY, "reporting again");
		}
	}
}

int
lc_tick_due(const struct lc_node *n, double now, double unreachable_after)
{
	return n->state == NODE_READY && !isnan(n->last_report_at) &&
	    now - n->last_report_at > unreachable_after;
}

void
lc_on_tick(const struct lc_node *n, double now, double unreachable_after, struct lc_result *out)
{
	char reason[96];

	result_init(n, out);
	if (!lc_tick_due(n, now, unreachable_after))
		return;
	double age = now - n->last_report_at;
	snprintf(reason, sizeof(reason), "no report for %.0f s", age);
	transition(n, out, NODE_UNREACHABLE, reason);
}

static int
fresh_healthy(const struct lc_node *n, double now, double unreachable_after, char *err,
    size_t errlen)
{
	if (isnan(n->last_report_at) || now - n->last_report_at > unreachable_after) {
		snprintf(err, errlen, "no report in the last %.0f s: the node must report first",
		    unreachable_after);
		return 0;
	}
	if (!n->last_report_healthy) {
		snprintf(err, errlen, "its latest report is not healthy");
		return 0;
	}
	return 1;
}

/* The reason given, or what the acceptance means. */
static int
command_accept(const struct lc_node *n, const char *reason, double now, double unreachable_after,
    struct lc_result *out, char *err, size_t errlen)
{
	char why[160];

	if (n->state != NODE_PENDING) {
		snprintf(err, errlen, "the node is %s, not pending", api_node_state_str(n->state));
		return -1;
	}
	out->changed = 1;
	if (fresh_healthy(n, now, unreachable_after, why, sizeof(why))) {
		out->accepted = 0;
		transition(n, out, NODE_READY, reason && reason[0] ? reason : "accepted");
		return 0;
	}
	out->accepted = 1;
	snprintf(out->what, sizeof(out->what), "accepted");
	snprintf(out->event_reason, sizeof(out->event_reason), "%s%sready at its next healthy "
	    "report (%s)", reason ? reason : "", reason && reason[0] ? "; " : "", why);
	return 0;
}

int
lc_on_command(const struct lc_node *n, enum lc_command cmd, const char *reason, double now,
    double unreachable_after, struct lc_result *out, char *err, size_t errlen)
{
	result_init(n, out);
	if ((cmd == LC_CORDON || cmd == LC_DOWN) && (reason == NULL || reason[0] == '\0')) {
		snprintf(err, errlen, "a reason is required");
		return -1;
	}
	switch (cmd) {
	case LC_CORDON:
		if (n->state == NODE_DOWN || n->state == NODE_UPDATING || n->state == NODE_PENDING) {
			snprintf(err, errlen, "cannot cordon a node that is %s",
			    api_node_state_str(n->state));
			return -1;
		}
		transition(n, out, NODE_CORDONED, reason);
		out->changed = 1;
		if (out->what[0] == '\0')
			snprintf(out->what, sizeof(out->what), "cordon reason changed");
		return 0;
	case LC_UNCORDON:
		if (n->state != NODE_CORDONED && n->state != NODE_DOWN) {
			snprintf(err, errlen, "the node is %s, not cordoned or down",
			    api_node_state_str(n->state));
			return -1;
		}
		if (!fresh_healthy(n, now, unreachable_after, err, errlen))
			return -1;
		out->unexpected_reboot = 0;
		transition(n, out, NODE_READY, "");
		return 0;
	case LC_DOWN:
		/* down -> uncordon -> ready would skip the acceptance */
		if (n->state == NODE_PENDING) {
			snprintf(err, errlen, "the node is pending: accept it or remove it");
			return -1;
		}
		transition(n, out, NODE_DOWN, reason);
		out->changed = 1;
		if (out->what[0] == '\0')
			snprintf(out->what, sizeof(out->what), "down reason changed");
		return 0;
	case LC_ACCEPT:
		return command_accept(n, reason, now, unreachable_after, out, err, errlen);
	}
	snprintf(err, errlen, "unknown command");
	return -1;
}
