/*
 * Node lifecycle (DESIGN.md "Node lifecycle"): a pure engine.  Given what is
 * known of a node and something that happened (a report, an operator's
 * command, the passing of time) it says the node's next state and the event
 * to record.  No I/O, no clock: the caller passes now.
 *
 *   report    a boot time that moved flags an unexpected reboot (unless a
 *             reboot was expected); unreachable -> ready on a healthy report
 *             (both can happen at once: two events)
 *   tick      ready -> unreachable when no report for unreachable_after s;
 *             other states keep their meaning and are shown as stale
 *   cordon    ready, unreachable, draining, cordoned -> cordoned (reason required)
 *   uncordon  cordoned or down -> ready, only with a fresh healthy report;
 *             clears the unexpected-reboot flag (the operator has seen it)
 *   down      any but pending -> down (reason required)
 *   accept    pending -> ready at once with a fresh healthy report, else the
 *             node is marked accepted and stays pending until one comes
 *   report    pending and accepted -> ready on a healthy report; a pending
 *             node that is not accepted stays pending whatever it reports
 *
 * A report counts for the lifecycle only when it is current: collected no
 * more than unreachable_after seconds before it arrived.  A stale one is
 * stored (it is the latest known) but changes no state; one older than the
 * stored report, or collected too far ahead of the controller's clock, is
 * refused (lc_report_time).
 */
#ifndef TBMESH_LIFECYCLE_H
#define TBMESH_LIFECYCLE_H

#include "api.h"
#include "report.h"

struct lc_node {
	enum node_state state;
	char reason[API_REASON_MAX + 1];  /* why it is in that state; "" none */
	double boot_time;          /* NAN unknown */
	double last_report_at;     /* NAN never: when the latest current report arrived */
	double last_collected_at;  /* when the latest stored report was collected (0 or NAN never) */
	int last_report_healthy;
	int unexpected_reboot;
	int reboot_expected;       /* a rollout asked for a reboot */
	int accepted;              /* pending, accepted: ready at its next healthy report */
};

struct lc_result {
	int changed;               /* state, reason or flag differ from before */
	enum node_state state;
	int unexpected_reboot;
	int accepted;              /* the accepted flag after */
	char reason[API_REASON_MAX + 1];  /* the node's state reason after (kept when
					     the state does not change) */
	char what[64];             /* the event ("state ready -> unreachable"); "" none */
	char event_reason[API_REASON_MAX + 1];
	char what2[64];            /* a second event of the same happening; "" none */
	char event_reason2[API_REASON_MAX + 1];
};

enum lc_command { LC_CORDON, LC_UNCORDON, LC_DOWN, LC_ACCEPT };

/*
 * A report is healthy when the agent could read the Thunderbolt ports, the
 * RDMA state and the memory.  why gets the first missing piece.
 */
int lc_report_healthy(const struct report *r, char *why, size_t whylen);

/* How far ahead of the controller's clock a report may say it was collected. */
#define LC_CLOCK_SKEW_MAX 300.0

enum lc_report_time {
	LC_REPORT_CURRENT,   /* counts (also: collected_at unknown) */
	LC_REPORT_STALE,     /* collected more than unreachable_after before now: stored only */
	LC_REPORT_OLDER,     /* older than the node's stored report: refused */
	LC_REPORT_AHEAD,     /* more than LC_CLOCK_SKEW_MAX ahead of now: refused */
};

/* What a report collected at collected_at (NAN unknown) arriving at now is to n. */
enum lc_report_time lc_report_time(const struct lc_node *n, double collected_at, double now,
    double unreachable_after);

/*
 * A stale report (LC_REPORT_STALE) with boot time boot_time (NAN unknown):
 * it changes no state, but a reboot it shows is flagged as any report's.
 */
void lc_on_stale_report(const struct lc_node *n, double boot_time, struct lc_result *out);

/* A current report arrived at now.  Fills *out; never fails. */
void lc_on_report(const struct lc_node *n, const struct report *r, double now,
    struct lc_result *out);
/*
 * The same from what the engine needs of the report, for a caller that no
 * longer has it: its boot time (NAN unknown) and whether lc_report_healthy()
 * held for it.
 */
void lc_on_report_seen(const struct lc_node *n, double boot_time, int healthy, double now,
    struct lc_result *out);

/* Time passed. */
void lc_on_tick(const struct lc_node *n, double now, double unreachable_after,
    struct lc_result *out);
/* Would lc_on_tick change n?  (A cheap test to pick the nodes to tick.) */
int lc_tick_due(const struct lc_node *n, double now, double unreachable_after);

/*
 * An operator's command.  Returns 0 and fills *out, or -1 with the reason it
 * is refused in err ("a reason is required", "mac3 has no report in the last
 * 30 s").
 */
int lc_on_command(const struct lc_node *n, enum lc_command cmd, const char *reason, double now,
    double unreachable_after, struct lc_result *out, char *err, size_t errlen);

#endif
