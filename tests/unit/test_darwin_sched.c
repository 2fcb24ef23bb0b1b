/*
 * The darwin collector's cadence (agent/darwin_sched.c): which sources a
 * collection reads given the times they were last read and what the cheap
 * checks saw; the signatures the cheap check compares; the power stream's
 * silence limit and backoff.  Pure: no clock, no command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "darwin_sched.h"

/* A node whose sources were all read at t=0 with no error, boot time 1000. */
static struct darwin_sched_in
settled(double now)
{
	struct darwin_sched_in in = {
		.now = now, .interval = 5, .topology_interval = 60,
		.identity_at = 0, .identity_ok = 1, .boot_before = 1000, .boot = 1000,
		.hwports_at = 0, .hwports_ok = 1, .ifset_changed = 0,
		.topology_at = 0, .link_changed = 0,
	};
	return in;
}

static void
test_first_collection_reads_everything(void **state)
{
	struct darwin_sched_in in = settled(0);

	(void)state;
	in.identity_at = in.hwports_at = in.topology_at = NAN;
	in.boot_before = NAN;
	assert_int_equal(darwin_sched_due(&in),
	    DARWIN_DUE_IDENTITY | DARWIN_DUE_HWPORTS | DARWIN_DUE_TOPOLOGY);
}

/* At 5 s, twelve collections a minute: the topology once, at 60 s, nothing else. */
static void
test_a_minute_at_the_default_interval(void **state)
{
	int topology = 0, other = 0;
	double last = 0;

	(void)state;
	for (int k = 1; k <= 24; k++) {
		struct darwin_sched_in in = settled(k * 5.0);
		unsigned due;

		in.topology_at = last;
		due = darwin_sched_due(&in);
		if (due & DARWIN_DUE_TOPOLOGY) {
			topology++;
			last = in.now;
			assert_true(fmod(in.now, 60) == 0);
		}
		other += (due & ~(unsigned)DARWIN_DUE_TOPOLOGY) != 0;
	}
	assert_int_equal(topology, 2);
	assert_int_equal(other, 0);
}

/* Collections a little early (jitter) still keep the 60 s cadence, not 65. */
static void
test_jitter_keeps_the_cadence(void **state)
{
	struct darwin_sched_in in = settled(59.7);

	(void)state;
	assert_true(darwin_sched_due(&in) & DARWIN_DUE_TOPOLOGY);
	in.now = 58.9;
	assert_false(darwin_sched_due(&in) & DARWIN_DUE_TOPOLOGY);
}

static void
test_cable_change_reads_topology_at_once(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	assert_int_equal(darwin_sched_due(&in), 0);
	in.link_changed = 1;
	assert_int_equal(darwin_sched_due(&in), DARWIN_DUE_TOPOLOGY);
}

static void
test_new_interfaces_read_hwports_and_topology(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	in.ifset_changed = 1;
	assert_int_equal(darwin_sched_due(&in), DARWIN_DUE_HWPORTS | DARWIN_DUE_TOPOLOGY);
}

static void
test_reboot_reads_identity(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	in.boot = 2000;
	assert_int_equal(darwin_sched_due(&in), DARWIN_DUE_IDENTITY);
	in.boot = NAN;	/* unknown now: no reason to read it again */
	assert_int_equal(darwin_sched_due(&in), 0);
}

/* kern.boottime moves a little without a restart (a time sync): not a reboot. */
static void
test_boot_time_jitter_is_no_reboot(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	in.boot = 1001;
	assert_int_equal(darwin_sched_due(&in), 0);
	in.boot = 999.5;
	assert_int_equal(darwin_sched_due(&in), 0);
	in.boot = 1005;
	assert_int_equal(darwin_sched_due(&in), 0);
	in.boot = 1006;	/* past the slack: read again */
	assert_int_equal(darwin_sched_due(&in), DARWIN_DUE_IDENTITY);
	in.boot = 994;
	assert_int_equal(darwin_sched_due(&in), DARWIN_DUE_IDENTITY);
	assert_true(darwin_same_boot(1003, 1000));
	assert_false(darwin_same_boot(1000 + 3600, 1000));
	assert_false(darwin_same_boot(NAN, 1000));
	assert_false(darwin_same_boot(1000, NAN));
}

/*
 * A section's report time comes from its monotonic read time: the wall
 * clock stepping back an hour keeps it before the report, as old as it is.
 */
static void
test_section_wall(void **state)
{
	(void)state;
	assert_true(darwin_section_wall(1000, 50, 40) == 990);
	assert_true(darwin_section_wall(1000 - 3600, 50, 40) == 990 - 3600);
	assert_true(darwin_section_wall(1000, 50, 50) == 1000);
	assert_true(darwin_section_wall(1000, 50, 51) == 1000);	/* never after the report */
	assert_true(isnan(darwin_section_wall(1000, 50, NAN)));
}

/* A failed read is tried again a topology interval later, not every collection. */
static void
test_failed_reads_retry_on_the_topology_cadence(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	in.identity_ok = 0;
	in.hwports_ok = 0;
	assert_int_equal(darwin_sched_due(&in), 0);
	in.now = 60;
	assert_int_equal(darwin_sched_due(&in),
	    DARWIN_DUE_IDENTITY | DARWIN_DUE_HWPORTS | DARWIN_DUE_TOPOLOGY);
}

static void
test_topology_interval_is_configurable(void **state)
{
	struct darwin_sched_in in = settled(10);

	(void)state;
	in.topology_interval = 10;
	assert_true(darwin_sched_due(&in) & DARWIN_DUE_TOPOLOGY);
	in.topology_interval = 300;
	in.now = 250;
	assert_false(darwin_sched_due(&in) & DARWIN_DUE_TOPOLOGY);
}

static struct darwin_ifconfig *
add_if(struct darwin_iflist *l, const char *name, enum tri active, const char *ip)
{
	struct darwin_ifconfig *ifc = &l->ifc[l->n++];

	memset(ifc, 0, sizeof(*ifc));
	strcpy(ifc->name, name);
	ifc->up = 1;
	ifc->active = active;
	if (ip != NULL)
		strcpy(ifc->ipv4[ifc->n_ipv4++], ip);
	return ifc;
}

static void
studio(struct darwin_iflist *l, struct darwin_hwports *hp)
{
	memset(l, 0, sizeof(*l));
	memset(hp, 0, sizeof(*hp));
	hp->n = 2;
	strcpy(hp->tb[0].receptacle, "1");
	strcpy(hp->tb[0].device, "en3");
	strcpy(hp->tb[1].receptacle, "2");
	strcpy(hp->tb[1].device, "en2");
	strcpy(hp->bridge, "bridge0");
	add_if(l, "en0", TRI_TRUE, "192.0.2.11");
	add_if(l, "en2", TRI_TRUE, "169.254.205.255");
	add_if(l, "en3", TRI_FALSE, NULL);
	add_if(l, "bridge0", TRI_FALSE, NULL);
}

/* What the cheap check sees: Thunderbolt status and addresses, not the LAN's. */
static void
test_link_signature(void **state)
{
	struct darwin_iflist l;
	struct darwin_hwports hp;
	uint64_t base;

	(void)state;
	studio(&l, &hp);
	base = darwin_link_signature(&l, &hp);
	assert_true(base == darwin_link_signature(&l, &hp));
	strcpy(l.ifc[0].ipv4[0], "192.0.2.99");	/* the LAN: not a cable */
	assert_true(base == darwin_link_signature(&l, &hp));
	l.ifc[1].active = TRI_FALSE;			/* the cable on en2 pulled */
	assert_true(base != darwin_link_signature(&l, &hp));
	studio(&l, &hp);
	strcpy(l.ifc[1].ipv4[0], "169.254.7.1");	/* a new link-local address */
	assert_true(base != darwin_link_signature(&l, &hp));
	studio(&l, &hp);
	l.ifc[3].n_members = 1;				/* en3 joins the bridge */
	strcpy(l.ifc[3].members[0], "en3");
	assert_true(base != darwin_link_signature(&l, &hp));
	studio(&l, &hp);
	l.n = 3;					/* bridge0 gone */
	assert_true(base != darwin_link_signature(&l, &hp));
}

static void
test_ifset_signature(void **state)
{
	struct darwin_iflist l;
	struct darwin_hwports hp;
	uint64_t base;

	(void)state;
	studio(&l, &hp);
	base = darwin_ifset_signature(&l);
	l.ifc[1].active = TRI_FALSE;
	assert_true(base == darwin_ifset_signature(&l));
	add_if(&l, "en9", TRI_TRUE, NULL);		/* a USB adapter plugged in */
	assert_true(base != darwin_ifset_signature(&l));
}

static void
test_stream_silence_and_backoff(void **state)
{
	double b = 0;
	const double want[] = { 1, 2, 4, 8, 16, 32, 60, 60 };

	(void)state;
	assert_true(darwin_stream_silence(1) == 30);
	assert_true(darwin_stream_silence(5) == 50);
	assert_true(darwin_stream_silence(0.5) == 30);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		b = darwin_stream_backoff(b);
		assert_true(b == want[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_collection_reads_everything),
		cmocka_unit_test(test_a_minute_at_the_default_interval),
		cmocka_unit_test(test_jitter_keeps_the_cadence),
		cmocka_unit_test(test_cable_change_reads_topology_at_once),
		cmocka_unit_test(test_new_interfaces_read_hwports_and_topology),
		cmocka_unit_test(test_reboot_reads_identity),
		cmocka_unit_test(test_boot_time_jitter_is_no_reboot),
		cmocka_unit_test(test_section_wall),
		cmocka_unit_test(test_failed_reads_retry_on_the_topology_cadence),
		cmocka_unit_test(test_topology_interval_is_configurable),
		cmocka_unit_test(test_link_signature),
		cmocka_unit_test(test_ifset_signature),
		cmocka_unit_test(test_stream_silence_and_backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
