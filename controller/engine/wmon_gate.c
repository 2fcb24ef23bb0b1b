/* See wmon_gate.h. */
#include "wmon_gate.h"

#include <math.h>

void
wmon_gate_init(struct wmon_gate *g, int verdict)
{
	g->logged = g->current = verdict;
	g->logged_at = -INFINITY;
	g->changes = 0;
}

enum wmon_gate_event
wmon_gate_pass(struct wmon_gate *g, int verdict, double now, int *from, int *unlogged)
{
	enum wmon_gate_event ev = WMON_GATE_QUIET;

	*from = g->logged;
	*unlogged = 0;
	if (verdict != g->current) {
		g->changes++;
		g->current = verdict;
	}
	if (g->changes == 0 || now - g->logged_at < WMON_EVENT_GAP)
		return ev;
	/* the gap is over and something changed: one event says it all */
	*unlogged = g->changes > 1 ? g->changes - 1 : 0;
	ev = verdict != g->logged ? WMON_GATE_CHANGED : WMON_GATE_FLAPPING;
	if (ev == WMON_GATE_FLAPPING)
		*unlogged = g->changes;
	g->logged = verdict;
	g->logged_at = now;
	g->changes = 0;
	return ev;
}
