/*
 * The linux backend's Thunderbolt ports, peers and bridge against the fake
 * host of linux_tree.h, one broken or missing part at a time.  The healthy
 * host's ports are checked in test_backend_linux.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "linux_tree.h"

/* ---- one thing wrong at a time ----------------------------------------- */

static void
test_garbage_rx_speed(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, TB "/0-1/rx_speed", "fast\n");
	put(f->root, TB "/0-3/rx_lanes", "many\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 2);
	assert_string_equal(r->errors[0].source, "thunderbolt");
	assert_string_equal(r->errors[0].message, "0-1/rx_speed: cannot parse \"fast\"");
	assert_string_equal(r->errors[1].message, "0-3/rx_lanes: cannot parse \"many\"");
	assert_int_equal(r->thunderbolt.n_ports, 4);
	assert_true(isnan(r->thunderbolt.ports[0].speed_gbps));
	assert_true(isnan(r->thunderbolt.ports[1].speed_gbps));
	/* The rest of the port is still known. */
	assert_int_equal(r->thunderbolt.ports[0].status, PORT_STATUS_CONNECTED);
	assert_int_equal(r->thunderbolt.ports[0].has_peer, 1);
	assert_string_equal(r->thunderbolt.ports[0].peer.name, "Mac Studio");
	assert_true(r->thunderbolt.ports[2].speed_gbps == 20.0);
}

static void
test_no_thunderbolt(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, "/sys/bus/thunderbolt");
	rm_at(f->root, "/sys/class/net/br0");
	rm_at(f->root, "/sys/class/net/thunderbolt0");
	rm_at(f->root, "/sys/class/net/thunderbolt1");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->thunderbolt.n_ports, 0);
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
	assert_int_equal(r->thunderbolt.bridge.n_members, 0);
}

/* A Thunderbolt host with no usb4_port entries (older kernel, TB3). */
static void
test_thunderbolt_without_usb4_ports(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	for (int i = 1; i <= 7; i += 2) {
		char rel[128];
		snprintf(rel, sizeof(rel), TB "/0-0/usb4_port%d", i);
		rm_at(f->root, rel);
	}
	put(f->root, "/sys/class/net/br0/operstate", "down\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_int_equal(r->thunderbolt.n_ports, 3);    /* the plugged ones only */
	assert_peer_ports(&r->thunderbolt);
	assert_string_equal(r->thunderbolt.ports[2].receptacle, "0-5");
	assert_int_equal(r->thunderbolt.bridge.exists, TRI_TRUE);
	assert_int_equal(r->thunderbolt.bridge.active, TRI_FALSE);
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_garbage_rx_speed),
		T(test_no_thunderbolt),
		T(test_thunderbolt_without_usb4_ports),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
