/*
 * The linux backend's power (RAPL) and temperature (thermal zones) against
 * the fake host of linux_tree.h: power over successive collections and
 * across a counter wrap, the RAPL arithmetic, then files that are
 * unreadable, garbage or missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include "linux_tree.h"

/* ---- power over successive collections ---------------------------------- */

static void
sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* The second collection measures from the first one's sample. */
static void
test_power_interval(void **state)
{
	struct fixture *f = *state;
	struct timespec t0, t1;

	assert_int_equal(collect_at(f->root, &f->r), 0);
	assert_true(f->r.power.cpu_watts == 0.0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	put(f->root, PC "/intel-rapl:0/energy_uj", "3000000\n");   /* +2 J */
	put(f->root, PC "/intel-rapl:1/energy_uj", "7000000\n");   /* +4 J */
	sleep_ms(100);
	linux_set_rapl_gap_ms(5000);    /* a new pair would make the test slow */
	assert_int_equal(collect_at(f->root, &f->r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(dt < 4.0);          /* it did not sleep: it used the kept sample */
	assert_true(f->r.power.cpu_watts > 2.0 / (dt + 0.5));
	assert_true(f->r.power.cpu_watts <= 2.0 / 0.1);
	assert_true(fabs(f->r.power.system_watts - 2.0 * f->r.power.cpu_watts) < 1e-9);
	assert_true(f->r.power.dram_watts == 0.0);
	assert_int_equal(f->r.n_errors, 0);
}

/* The counter wrapped between the collections. */
static void
test_power_wraps(void **state)
{
	struct fixture *f = *state;

	put(f->root, PC "/intel-rapl:0/energy_uj", "262143000000\n");
	assert_int_equal(collect_at(f->root, &f->r), 0);
	put(f->root, PC "/intel-rapl:0/energy_uj", "671150\n");   /* 1 J past the wrap */
	sleep_ms(50);
	assert_int_equal(collect_at(f->root, &f->r), 0);
	assert_int_equal(f->r.n_errors, 0);
	assert_true(f->r.power.cpu_watts > 0.0);
	assert_true(f->r.power.cpu_watts <= 1.0 / 0.05);
}

static void
test_rapl_watts(void **state)
{
	(void)state;
	assert_true(linux_rapl_watts(1000000, 3000000, 0, 2.0) == 1.0);
	assert_true(linux_rapl_watts(0, 0, 100, 0.5) == 0.0);
	/* 262143328850 - 262143000000 + 671150 = 1000000 uJ */
	assert_true(linux_rapl_watts(262143000000, 671150, 262143328850, 0.5) == 2.0);
	assert_true(isnan(linux_rapl_watts(5000, 1000, 0, 1.0)));    /* wrapped, range unknown */
	assert_true(isnan(linux_rapl_watts(1, 2, 100, 0.0)));
	assert_true(isnan(linux_rapl_watts(1, 2, 100, -1.0)));
	assert_true(isnan(linux_rapl_watts(1, 200, 100, 1.0)));      /* above the range */
}

/* ---- one thing wrong at a time ----------------------------------------- */

/* Files that exist but cannot be read. */
static void
test_unreadable_files(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	unreadable(f->root, PC "/intel-rapl:0/energy_uj");
	unreadable(f->root, "/sys/class/dmi/id/product_serial");
	unreadable(f->root, "/sys/class/dmi/id/product_uuid");
	unreadable(f->root, "/sys/class/thermal/thermal_zone10/temp");
	assert_int_equal(collect_at(f->root, r), 0);
	print_errors(r);
	assert_int_equal(r->n_errors, 2);
	assert_int_equal(error_from(r, "rapl"), 0);
	assert_non_null(strstr(r->errors[0].message, "intel-rapl:0/energy_uj: "));
	assert_int_equal(error_from(r, "thermal"), 1);
	assert_string_equal(r->power.source, "");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->power.system_watts));
	assert_string_equal(r->node.serial, "");        /* root-only: null, no error */
	assert_string_equal(r->node.hardware_uuid, "0123456789abcdef0123456789abcdef");
	assert_true(r->thermal.cpu_celsius == 45.0);
}

static void
test_garbage_power_and_thermal(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	put(f->root, PC "/intel-rapl:1/energy_uj", "-5\n");
	put(f->root, "/sys/class/thermal/thermal_zone2/temp", "hot\n");
	put(f->root, "/sys/class/thermal/thermal_zone10/temp", "999999\n");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 3);
	assert_string_equal(r->errors[0].source, "rapl");
	assert_string_equal(r->errors[0].message, "intel-rapl:1/energy_uj: not a number");
	assert_string_equal(r->errors[1].message, "thermal_zone2/temp: not a number");
	assert_string_equal(r->errors[2].message, "thermal_zone10/temp: 999999 is out of range");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->thermal.cpu_celsius));
}

/* No RAPL, no thermal zones: null, and nothing to complain about. */
static void
test_no_power(void **state)
{
	struct fixture *f = *state;
	struct report *r = &f->r;

	rm_at(f->root, PC);
	rm_at(f->root, "/sys/class/thermal");
	assert_int_equal(collect_at(f->root, r), 0);
	assert_int_equal(r->n_errors, 0);
	assert_string_equal(r->power.source, "");
	assert_true(isnan(r->power.cpu_watts));
	assert_true(isnan(r->power.dram_watts));
	assert_true(isnan(r->power.system_watts));
	assert_true(isnan(r->thermal.cpu_celsius));
}

int
main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_power_interval),
		T(test_power_wraps),
		cmocka_unit_test(test_rapl_watts),
		T(test_unreadable_files),
		T(test_garbage_power_and_thermal),
		T(test_no_power),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
