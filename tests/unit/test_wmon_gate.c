/*
 * wmon_gate: a link's verdict events, at most one a WMON_EVENT_GAP, and
 * its last verdict always logged within a gap of the change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wmon_gate.h"

enum { PASS, DEGRADED, MISSING };
#define T0 1000.0

static void
test_first_change_at_once_then_held(void **state)
{
	(void)state;
	struct wmon_gate g;
	int from, unlogged;

	wmon_gate_init(&g, PASS);
	assert_int_equal(wmon_gate_pass(&g, PASS, T0, &from, &unlogged), WMON_GATE_QUIET);
	/* the first change is logged at once */
	assert_int_equal(wmon_gate_pass(&g, DEGRADED, T0 + 10, &from, &unlogged),
	    WMON_GATE_CHANGED);
	assert_int_equal(from, PASS);
	assert_int_equal(unlogged, 0);
	/* flapping every 10 s: nothing within the gap */
	int events = 0;
	for (int k = 1; k <= 5; k++)
		events += wmon_gate_pass(&g, k % 2 ? PASS : DEGRADED, T0 + 10 + 10 * k, &from,
		    &unlogged) != WMON_GATE_QUIET;
	assert_int_equal(events, 0);
	/* the gap is over, it ends on pass: one event with the four it held back */
	assert_int_equal(wmon_gate_pass(&g, PASS, T0 + 10 + WMON_EVENT_GAP, &from, &unlogged),
	    WMON_GATE_CHANGED);
	assert_int_equal(from, DEGRADED);
	assert_int_equal(unlogged, 4);
}

static void
test_flapped_back(void **state)
{
	(void)state;
	struct wmon_gate g;
	int from, unlogged;

	wmon_gate_init(&g, PASS);
	assert_int_equal(wmon_gate_pass(&g, MISSING, T0, &from, &unlogged), WMON_GATE_CHANGED);
	assert_int_equal(wmon_gate_pass(&g, PASS, T0 + 1, &from, &unlogged), WMON_GATE_QUIET);
	assert_int_equal(wmon_gate_pass(&g, MISSING, T0 + 2, &from, &unlogged), WMON_GATE_QUIET);
	/* back where the last event left it: said once the gap is over */
	assert_int_equal(wmon_gate_pass(&g, MISSING, T0 + WMON_EVENT_GAP - 1, &from, &unlogged),
	    WMON_GATE_QUIET);
	assert_int_equal(wmon_gate_pass(&g, MISSING, T0 + WMON_EVENT_GAP, &from, &unlogged),
	    WMON_GATE_FLAPPING);
	assert_int_equal(unlogged, 2);
	/* then steady: quiet; a change a gap later is logged at once */
	assert_int_equal(wmon_gate_pass(&g, MISSING, T0 + 2 * WMON_EVENT_GAP, &from, &unlogged),
	    WMON_GATE_QUIET);
	assert_int_equal(wmon_gate_pass(&g, PASS, T0 + 3 * WMON_EVENT_GAP, &from, &unlogged),
	    WMON_GATE_CHANGED);
	assert_int_equal(from, MISSING);
	assert_int_equal(unlogged, 0);
}

/* A link that changes at every 10 s check for an hour: one event a gap. */
static void
test_an_hour_of_flapping(void **state)
{
	(void)state;
	struct wmon_gate g;
	int from, unlogged, events = 0;

	wmon_gate_init(&g, PASS);
	for (int k = 1; k <= 360; k++)
		events += wmon_gate_pass(&g, k % 2 ? DEGRADED : PASS, T0 + 10 * k, &from,
		    &unlogged) != WMON_GATE_QUIET;
	assert_true(events <= (int)(3600 / WMON_EVENT_GAP) + 1);
	assert_true(events >= (int)(3600 / WMON_EVENT_GAP) - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_change_at_once_then_held),
		cmocka_unit_test(test_flapped_back),
		cmocka_unit_test(test_an_hour_of_flapping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
