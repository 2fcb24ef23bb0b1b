/*
 * lifecycle: every rule of lifecycle.h, with the time passed in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "lifecycle.h"

static struct report *
healthy_report(double boot)
{
	static struct report r;

	report_init(&r);
	r.thunderbolt.n_ports = 0;
	r.rdma.state = RDMA_STATE_ENABLED;
	r.memory.total_bytes = 1024;
	r.node.boot_time = boot;
	return &r;
}

static struct lc_node
node(enum node_state st, double last)
{
	struct lc_node n = { .state = st, .boot_time = 1000, .last_report_at = last,
		.last_report_healthy = 1 };
	return n;
}

static void
test_healthy(void **state)
{
	(void)state;
	char why[128];
	struct report *r = healthy_report(1000);

	assert_true(lc_report_healthy(r, why, sizeof(why)));
	r->rdma.state = RDMA_STATE_UNKNOWN;
	assert_false(lc_report_healthy(r, why, sizeof(why)));
	assert_non_null(strstr(why, "RDMA"));
	r = healthy_report(1000);
	r->thunderbolt.n_ports = -1;
	assert_false(lc_report_healthy(r, why, sizeof(why)));
	assert_non_null(strstr(why, "Thunderbolt"));
}

static void
test_unreachable_and_back(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_READY, 100);
	struct lc_result res;

	lc_on_tick(&n, 125, 30, &res);
	assert_false(res.changed);
	assert_false(lc_tick_due(&n, 125, 30));
	lc_on_tick(&n, 131, 30, &res);
	assert_true(res.changed);
	assert_true(lc_tick_due(&n, 131, 30));
	assert_int_equal(res.state, NODE_UNREACHABLE);
	assert_string_equal(res.what, "state ready -> unreachable");
	assert_string_equal(res.reason, "no report for 31 s");

	n.state = NODE_UNREACHABLE;
	lc_on_report(&n, healthy_report(1000), 140, &res);
	assert_int_equal(res.state, NODE_READY);
	assert_string_equal(res.what, "state unreachable -> ready");

	struct report *bad = healthy_report(1000);
	bad->memory.total_bytes = REPORT_NULL_I64;
	lc_on_report(&n, bad, 140, &res);
	assert_int_equal(res.state, NODE_UNREACHABLE);
}

static void
test_other_states_do_not_time_out(void **state)
{
	(void)state;
	enum node_state keep[] = { NODE_CORDONED, NODE_DOWN, NODE_UPDATING, NODE_DRAINING,
		NODE_PENDING };
	struct lc_result res;

	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		struct lc_node n = node(keep[i], 0);
		lc_on_tick(&n, 1e6, 30, &res);
		assert_false(res.changed);
		assert_false(lc_tick_due(&n, 1e6, 30));
		assert_int_equal(res.state, keep[i]);
	}
}

static void
test_unexpected_reboot(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_READY, 100);
	struct lc_result res;

	lc_on_report(&n, healthy_report(1001), 110, &res);
	assert_false(res.unexpected_reboot);
	lc_on_report(&n, healthy_report(5000), 110, &res);
	assert_true(res.unexpected_reboot);
	assert_true(res.changed);
	assert_string_equal(res.what, "unexpected reboot");
	assert_int_equal(res.state, NODE_READY);
	n.reboot_expected = 1;
	lc_on_report(&n, healthy_report(5000), 110, &res);
	assert_false(res.unexpected_reboot);
}

static void
test_commands(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_READY, 100);
	struct lc_result res;
	char err[128];

	assert_int_equal(lc_on_command(&n, LC_CORDON, "", 110, 30, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "a reason is required");
	assert_int_equal(lc_on_command(&n, LC_CORDON, "cable", 110, 30, &res, err, sizeof(err)), 0);
	assert_int_equal(res.state, NODE_CORDONED);
	assert_string_equal(res.reason, "cable");
	assert_string_equal(res.what, "state ready -> cordoned");

	n.state = NODE_CORDONED;
	n.unexpected_reboot = 1;
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, NULL, 200, 30, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no report in the last 30 s"));
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, NULL, 120, 30, &res, err, sizeof(err)), 0);
	assert_int_equal(res.state, NODE_READY);
	assert_false(res.unexpected_reboot);
	n.last_report_healthy = 0;
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, NULL, 120, 30, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not healthy"));

	n = node(NODE_READY, 100);
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, NULL, 120, 30, &res, err, sizeof(err)), -1);
	assert_int_equal(lc_on_command(&n, LC_DOWN, "psu", 120, 30, &res, err, sizeof(err)), 0);
	assert_int_equal(res.state, NODE_DOWN);
	n.state = NODE_DOWN;
	assert_int_equal(lc_on_command(&n, LC_CORDON, "x", 120, 30, &res, err, sizeof(err)), -1);
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, NULL, 120, 30, &res, err, sizeof(err)), 0);
	assert_int_equal(res.state, NODE_READY);
}

static void
test_reboot_keeps_reason(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_CORDONED, 100);
	struct lc_result res;

	strcpy(n.reason, "replacing cable");
	lc_on_report(&n, healthy_report(9000), 110, &res);
	assert_true(res.unexpected_reboot);
	assert_int_equal(res.state, NODE_CORDONED);
	assert_string_equal(res.reason, "replacing cable");
	lc_on_tick(&n, 1e6, 30, &res);
	assert_string_equal(res.reason, "replacing cable");
}

static void
test_reboot_and_return_are_two_events(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_UNREACHABLE, 100);
	struct lc_result res;

	strcpy(n.reason, "no report for 40 s");
	lc_on_report(&n, healthy_report(9000), 200, &res);
	assert_int_equal(res.state, NODE_READY);
	assert_true(res.unexpected_reboot);
	assert_string_equal(res.what, "unexpected reboot");
	assert_non_null(strstr(res.event_reason, "boot time moved"));
	assert_string_equal(res.what2, "state unreachable -> ready");
	assert_string_equal(res.event_reason2, "reporting again");
	lc_on_report(&n, healthy_report(1000), 200, &res);
	assert_string_equal(res.what, "state unreachable -> ready");
	assert_string_equal(res.what2, "");
}

/* A pending node is never made ready by its reports until accepted. */
static void
test_pending_stays_pending(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_PENDING, 100);
	struct lc_result res;

	lc_on_report(&n, healthy_report(1000), 110, &res);
	assert_false(res.changed);
	assert_int_equal(res.state, NODE_PENDING);
	lc_on_tick(&n, 1e6, 30, &res);
	assert_int_equal(res.state, NODE_PENDING);
	/* nor by an operator's command but accept: down then uncordon would be ready */
	char err[128];
	assert_int_equal(lc_on_command(&n, LC_DOWN, "x", 110, 30, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "the node is pending: accept it or remove it");
	assert_int_equal(lc_on_command(&n, LC_CORDON, "x", 110, 30, &res, err, sizeof(err)), -1);
	assert_int_equal(lc_on_command(&n, LC_UNCORDON, "", 110, 30, &res, err, sizeof(err)), -1);
}

static void
test_accept(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_PENDING, 100);
	struct lc_result res;
	char err[160];

	/* with a fresh healthy report: ready at once, with the reason given */
	assert_int_equal(lc_on_command(&n, LC_ACCEPT, "racked", 110, 30, &res, err,
	    sizeof(err)), 0);
	assert_int_equal(res.state, NODE_READY);
	assert_false(res.accepted);
	assert_string_equal(res.what, "state pending -> ready");
	assert_string_equal(res.event_reason, "racked");

	/* no fresh report: stays pending, accepted, ready at its next healthy one */
	assert_int_equal(lc_on_command(&n, LC_ACCEPT, "", 200, 30, &res, err, sizeof(err)), 0);
	assert_int_equal(res.state, NODE_PENDING);
	assert_true(res.accepted);
	assert_true(res.changed);
	assert_string_equal(res.what, "accepted");
	assert_non_null(strstr(res.event_reason, "next healthy report"));
	n.accepted = 1;
	struct report *bad = healthy_report(1000);
	bad->rdma.state = RDMA_STATE_UNKNOWN;
	lc_on_report(&n, bad, 210, &res);
	assert_int_equal(res.state, NODE_PENDING);
	lc_on_report(&n, healthy_report(1000), 211, &res);
	assert_int_equal(res.state, NODE_READY);
	assert_false(res.accepted);
	assert_string_equal(res.what, "state pending -> ready");

	/* only a pending node */
	n = node(NODE_READY, 100);
	assert_int_equal(lc_on_command(&n, LC_ACCEPT, "", 110, 30, &res, err, sizeof(err)), -1);
	assert_string_equal(err, "the node is ready, not pending");
}

/* Which reports count: current, stale (stored only), older or ahead (refused). */
static void
test_report_time(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_UNREACHABLE, 100);

	n.last_collected_at = 1000;
	assert_int_equal(lc_report_time(&n, 1990, 2000, 30), LC_REPORT_CURRENT);
	assert_int_equal(lc_report_time(&n, 1970, 2000, 30), LC_REPORT_CURRENT);
	assert_int_equal(lc_report_time(&n, 1969, 2000, 30), LC_REPORT_STALE);
	assert_int_equal(lc_report_time(&n, 1000, 2000, 30), LC_REPORT_STALE);  /* same: not older */
	assert_int_equal(lc_report_time(&n, 999, 2000, 30), LC_REPORT_OLDER);
	assert_int_equal(lc_report_time(&n, 2000 + LC_CLOCK_SKEW_MAX, 2000, 30),
	    LC_REPORT_CURRENT);
	assert_int_equal(lc_report_time(&n, 2001 + LC_CLOCK_SKEW_MAX, 2000, 30), LC_REPORT_AHEAD);
	assert_int_equal(lc_report_time(&n, NAN, 2000, 30), LC_REPORT_CURRENT);
	/* a node with no stored report yet: nothing is older */
	n.last_collected_at = 0;
	assert_int_equal(lc_report_time(&n, 1e9, 2e9, 3e9), LC_REPORT_CURRENT);
	n.last_collected_at = NAN;
	assert_int_equal(lc_report_time(&n, 1, 2, 30), LC_REPORT_CURRENT);
}

/* A stale report brings no node back, but the reboot it shows is flagged. */
static void
test_stale_report(void **state)
{
	(void)state;
	struct lc_node n = node(NODE_UNREACHABLE, 100);
	struct lc_result res;

	lc_on_stale_report(&n, n.boot_time, &res);
	assert_false(res.changed);
	assert_int_equal(res.state, NODE_UNREACHABLE);
	lc_on_stale_report(&n, n.boot_time + 3600, &res);
	assert_true(res.changed);
	assert_true(res.unexpected_reboot);
	assert_int_equal(res.state, NODE_UNREACHABLE);
	assert_string_equal(res.what, "unexpected reboot");
	n = node(NODE_PENDING, 100);
	n.accepted = 1;
	lc_on_stale_report(&n, n.boot_time, &res);
	assert_int_equal(res.state, NODE_PENDING);   /* an accepted node waits for a current one */
	assert_true(res.accepted);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_unreachable_and_back),
		cmocka_unit_test(test_other_states_do_not_time_out),
		cmocka_unit_test(test_unexpected_reboot),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_reboot_keeps_reason),
		cmocka_unit_test(test_reboot_and_return_are_two_events),
		cmocka_unit_test(test_pending_stays_pending),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_report_time),
		cmocka_unit_test(test_stale_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
