/*
 * How often a link (or a cluster) may make a verdict event: a flapping
 * cable must not flood the event log.  Pure, the time passed in.
 *
 * Per link, the gate keeps the verdict last logged and when.  A change
 * from it is logged at once when the last event is WMON_EVENT_GAP old or
 * more; sooner, it is only counted.  Once the gap is over, what the counted
 * changes left is logged in one event: the new verdict ("wiring pass ->
 * degraded; 5 changes since the last event not logged"), or, when the link came back to
 * the logged verdict, that it flapped ("wiring flapping ..., now pass").
 * So a link makes at most one event per gap, and its last verdict is
 * always logged within a gap of the change.
 */
#ifndef TBMESH_WMON_GATE_H
#define TBMESH_WMON_GATE_H

#define WMON_EVENT_GAP 60.0     /* seconds between two events of one link */

struct wmon_gate {
	int logged;             /* the verdict last logged (an enum's value) */
	double logged_at;       /* when; -INFINITY: never (a change is logged at once) */
	int current;            /* the verdict of the latest pass */
	int changes;            /* changes since logged_at, not logged yet */
};

enum wmon_gate_event {
	WMON_GATE_QUIET,        /* nothing to log */
	WMON_GATE_CHANGED,      /* log "logged_before -> verdict" */
	WMON_GATE_FLAPPING      /* log that it flapped and is back at verdict */
};

/* A gate for a link first seen with verdict (no event for first sight). */
void wmon_gate_init(struct wmon_gate *g, int verdict);

/*
 * The verdict of this pass at now.  *from gets the verdict logged before
 * (for CHANGED), *unlogged the changes it sums up (0: none were held).
 */
enum wmon_gate_event wmon_gate_pass(struct wmon_gate *g, int verdict, double now, int *from,
    int *unlogged);

#endif
