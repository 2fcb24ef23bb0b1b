/*
 * The darwin backend keeping its state between collections
 * (collect_opts.state), against the fake macOS commands of tests/fakemac
 * with their call log (FAKEMAC_LOG): what a second collection runs when
 * nothing changed, what a cable pulled, a bridge member, a new interface, a
 * new boot time or a renamed host makes it read, the errors of a source
 * not read again, the sections' collected_at (also across a step of the
 * wall clock), a failed `ifconfig -a`, and the one power child.  The
 * collections' monotonic times are given (collect_opts.mono), so that the
 * cadence does not hang on how fast this machine runs them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "runcmd.h"
#include "fakemac_fixture.h"

#define T0 1763782801.0
#define MONO0 5000.0	/* the monotonic time of collection 0 */
#define EVERY "sysctl hw.memsize vm.swapusage iogpu.wired_limit_mb " \
	"kern.memorystatus_level kern.boottime kern.hostname"

static char top[PATH_MAX];

struct fake {
	char dir[PATH_MAX];
	char log[PATH_MAX + 16];
	int logged;              /* log lines before the last collection */
	struct report r;
	struct collect_opts o;
	double step;             /* how far the wall clock was set from T0 + 5k */
	void *state;
};

static int
setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (f == NULL || fm_make(f->dir, "/tmp/tbmesh-cadence", top, "studio") == -1)
		return -1;
	snprintf(f->log, sizeof(f->log), "%s/calls.log", f->dir);
	setenv("FAKEMAC_LOG", f->log, 1);
	f->o.cmd_timeout_ms = 5000;
	f->o.interval = 5;
	f->o.topology_interval = 60;
	f->state = collector_state_new(&backend_darwin);
	f->o.state = f->state;
	*state = f;
	return f->state == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	struct fake *f = *state;

	collector_state_free(&backend_darwin, f->state);
	fm_remove(f->dir);
	free(f);
	return 0;
}

static int
log_lines(struct fake *f)
{
	FILE *fp = fopen(f->log, "r");
	int n = 0, c;

	if (fp == NULL)
		return 0;
	while ((c = getc(fp)) != EOF)
		n += c == '\n';
	fclose(fp);
	return n;
}

/*
 * Collection k (k = 0, 1, ...): its report time is T0 + 5k (plus f->step),
 * its monotonic time MONO0 + 5k.
 */
static void
collect(struct fake *f, int k)
{
	f->logged = log_lines(f);
	f->o.now = T0 + 5 * k + f->step;
	f->o.mono = MONO0 + 5 * k;
	assert_int_equal(collector_run(&backend_darwin, &f->o, &f->r), 0);
}

/* How many lines the last collection logged that start with prefix. */
static int
ran(struct fake *f, const char *prefix)
{
	FILE *fp = fopen(f->log, "r");
	char buf[512];
	int line = 0, n = 0;

	if (fp == NULL)
		return 0;
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (line++ >= f->logged && strncmp(buf, prefix, strlen(prefix)) == 0)
			n++;
	fclose(fp);
	return n;
}

/*
 * The power child is started at the end of a collection and logs its call
 * on its own time: wait (2 s at most) until the last collection's lines
 * hold n that start with prefix.
 */
static int
ran_soon(struct fake *f, const char *prefix, int n)
{
	for (int i = 0; i < 40 && ran(f, prefix) < n; i++)
		poll(NULL, 0, 50);
	return ran(f, prefix);
}

static void
assert_no_errors(const struct report *r)
{
	fm_print_errors(r);
	assert_int_equal(r->n_errors, 0);
}

/* Wait (2 s at most) for the power child's first sample, then collect k. */
static void
collect_with_power(struct fake *f, int k)
{
	for (int i = 0; i < 40; i++) {
		collect(f, k);
		if (f->r.power.source[0] != '\0')
			return;
		poll(NULL, 0, 50);
	}
}

static void
test_nothing_changed(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	assert_no_errors(&f->r);
	assert_int_equal(ran(f, "system_profiler SPHardwareDataType"), 1);
	assert_int_equal(ran(f, "networksetup"), 1);
	assert_int_equal(ran_soon(f, "macmon pipe -i 5000", 1), 1);
	assert_int_equal(log_lines(f) - f->logged, 10);
	assert_true(f->r.thunderbolt.collected_at == T0);

	collect_with_power(f, 1);
	assert_no_errors(&f->r);
	assert_int_equal(ran(f, EVERY), 1);
	assert_int_equal(ran(f, "vm_stat"), 1);
	assert_int_equal(ran(f, "ifconfig -a"), 1);
	assert_int_equal(log_lines(f) - f->logged, 3);	/* those three, nothing else */
	/* the values of the first read, with its time; the rest read now */
	assert_int_equal(f->r.thunderbolt.n_ports, 6);
	assert_string_equal(fm_port_of(&f->r, "2")->ipv4[0], "169.254.205.255");
	assert_true(f->r.thunderbolt.collected_at == T0);
	assert_true(f->r.rdma.collected_at == T0);
	assert_int_equal(f->r.rdma.n_devices, 6);
	assert_string_equal(f->r.node.model, "Mac15,14");
	assert_true(f->r.node.collected_at == T0 + 5);	/* same boot: still true now */
	assert_true(f->r.memory.collected_at == T0 + 5);
	assert_true(f->r.network.collected_at == T0 + 5);
	assert_string_equal(f->r.power.source, "macmon");
	assert_true(f->r.power.collected_at == T0 + 5);
	assert_true(report_oldest_section(&f->r) == T0);
}

/* Port 2's cable pulled: ifconfig and system_profiler say so from now on. */
static void
pull_cable(struct fake *f)
{
	char script[PATH_MAX + 512];

	snprintf(script, sizeof(script),
	    "sed -e '/inet 169.254.205.255/d' -e '/^en2:/,/status:/s/status: active/status: inactive/' "
	    "\"$0/ifconfig.out\" >\"$0/t\" && mv \"$0/t\" \"$0/ifconfig.out\" && "
	    "jq '.SPThunderboltDataType |= map(if .receptacle_1_tag.receptacle_id_key == \"2\" "
	    "then del(._items) | .receptacle_1_tag.receptacle_status_key = "
	    "\"receptacle_no_devices_connected\" | .receptacle_1_tag.current_speed_key = "
	    "\"Up to 120 Gb/s\" else . end)' \"$0/system_profiler_SPThunderboltDataType.out\" "
	    ">\"$0/t\" && mv \"$0/t\" \"$0/system_profiler_SPThunderboltDataType.out\"");
	fm_sh(script, f->dir, NULL, NULL);
}

static void
test_cable_pulled(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	pull_cable(f);
	collect(f, 1);
	assert_no_errors(&f->r);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	assert_int_equal(ran(f, "rdma_ctl status"), 1);
	assert_int_equal(ran(f, "networksetup"), 0);
	assert_int_equal(fm_port_of(&f->r, "2")->status, PORT_STATUS_EMPTY);
	assert_int_equal(fm_port_of(&f->r, "2")->has_peer, 0);
	assert_int_equal(fm_port_of(&f->r, "2")->n_ipv4, 0);
	assert_true(f->r.thunderbolt.collected_at == T0 + 5);

	collect(f, 2);	/* and settled again */
	assert_int_equal(log_lines(f) - f->logged, 3);
}

/* A port joining the Thunderbolt Bridge (a loop in the making) is a change too. */
static void
test_bridge_member(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	fm_sh("sed '/^bridge0:/,/status:/s/^\\tmedia:/\\tmember: en3 flags=3<LEARNING,DISCOVER>\\n"
	    "\\tmedia:/' \"$0/ifconfig.out\" >\"$0/t\" && mv \"$0/t\" \"$0/ifconfig.out\"",
	    f->dir, NULL, NULL);
	collect(f, 1);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	assert_int_equal(f->r.thunderbolt.bridge.n_members, 1);
	assert_string_equal(f->r.thunderbolt.bridge.members[0], "en3");
}

/* An interface that was not there (a USB adapter): networksetup again, then the topology. */
static void
test_new_interface(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	fm_sh("printf 'en9: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\\n"
	    "\\tether 02:00:00:00:00:99\\n\\tstatus: active\\n' >>\"$0/ifconfig.out\"", f->dir, NULL, NULL);
	collect(f, 1);
	assert_int_equal(ran(f, "networksetup"), 1);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	assert_int_equal(ran(f, "system_profiler SPHardwareDataType"), 0);
}

static void
test_reboot_and_rename(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	fm_sh("echo mac-studio-9 >\"$0/sysctl_kern.hostname.out\"", f->dir, NULL, NULL);
	collect(f, 1);
	assert_string_equal(f->r.node.hostname, "mac-studio-9");	/* read every collection */
	assert_int_equal(ran(f, "system_profiler SPHardwareDataType"), 0);

	/* the clock synced: kern.boottime 2 s later, the same boot */
	fm_sh("echo '{ sec = 1763712766, usec = 123 } Fri Nov 21 08:12:46 2025' "
	    ">\"$0/sysctl_kern.boottime.out\"", f->dir, NULL, NULL);
	collect(f, 1);
	assert_int_equal(ran(f, "system_profiler SPHardwareDataType"), 0);
	assert_true(fabs(f->r.node.boot_time - 1763712766.000123) < 1e-3);
	assert_true(f->r.node.collected_at == T0 + 5);

	fm_sh("echo '{ sec = 1763999999, usec = 0 } Mon Nov 24 15:59:59 2025' "
	    ">\"$0/sysctl_kern.boottime.out\" && sed 's/25C56/25D5/' \"$0/sw_vers.out\" >\"$0/t\" && "
	    "mv \"$0/t\" \"$0/sw_vers.out\"", f->dir, NULL, NULL);
	collect(f, 2);
	assert_no_errors(&f->r);
	assert_int_equal(ran(f, "system_profiler SPHardwareDataType"), 1);
	assert_int_equal(ran(f, "sw_vers"), 1);
	assert_string_equal(f->r.node.os_build, "25D5");
	assert_true(f->r.node.boot_time == 1763999999.0);
	assert_true(f->r.node.collected_at == T0 + 10);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 0);
}

/* A source that failed keeps its error in the reports that follow, without running again. */
static void
test_failure_kept(void **state)
{
	struct fake *f = *state;

	fm_sh("rm \"$0/system_profiler_SPThunderboltDataType.out\"", f->dir, NULL, NULL);
	collect(f, 0);
	assert_int_equal(f->r.n_errors, 1);
	assert_string_equal(f->r.errors[0].source, "system_profiler");
	collect(f, 1);
	assert_int_equal(ran(f, "system_profiler"), 0);
	assert_int_equal(f->r.n_errors, 1);
	assert_string_equal(f->r.errors[0].source, "system_profiler");
	assert_int_equal(f->r.thunderbolt.n_ports, -1);
	assert_true(f->r.thunderbolt.collected_at == T0);
}

/*
 * A cable pulled while `ifconfig -a` fails: when it works again, what
 * changed in between is not known, so the topology is read at once rather
 * than a topology interval later.
 */
static void
test_cable_pulled_while_ifconfig_fails(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	fm_sh("mv \"$0/ifconfig.out\" \"$0/ifconfig.saved\"", f->dir, NULL, NULL);
	collect(f, 1);
	assert_int_equal(ran(f, "ifconfig -a"), 1);
	assert_int_equal(ran(f, "system_profiler"), 0);
	assert_int_equal(f->r.n_errors, 1);
	assert_string_equal(f->r.errors[0].source, "ifconfig");
	fm_sh("mv \"$0/ifconfig.saved\" \"$0/ifconfig.out\"", f->dir, NULL, NULL);
	pull_cable(f);
	collect(f, 2);
	assert_no_errors(&f->r);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	assert_int_equal(ran(f, "networksetup"), 0);	/* the same interfaces as before */
	assert_int_equal(fm_port_of(&f->r, "2")->status, PORT_STATUS_EMPTY);
	assert_true(f->r.thunderbolt.collected_at == T0 + 10);

	collect(f, 3);	/* and settled again */
	assert_int_equal(log_lines(f) - f->logged, 3);
}

/*
 * The Mac's clock set back an hour between two collections: the sections
 * kept from earlier reads are as old as they were (by the monotonic clock),
 * never later than the report, and the report still decodes (the
 * controller refuses a section read after its report).
 */
static void
test_clock_stepped_back(void **state)
{
	struct fake *f = *state;
	struct report *back = report_new();
	char err[256], *json;
	double now;

	assert_non_null(back);
	collect(f, 0);
	collect_with_power(f, 1);	/* identity and topology at 0, power at 1 */
	assert_string_equal(f->r.power.source, "macmon");
	f->step = -3600;
	collect(f, 2);
	now = T0 + 10 - 3600;
	assert_true(f->r.collected_at == now);
	assert_int_equal(ran(f, "system_profiler"), 0);	/* nothing read again */
	assert_true(f->r.thunderbolt.collected_at == now - 10);
	assert_true(f->r.rdma.collected_at == now - 10);
	assert_true(f->r.node.collected_at == now);	/* same boot time: true now */
	assert_true(f->r.memory.collected_at == now);
	assert_true(f->r.network.collected_at == now);
	/* the sample of collection 1, or a newer one */
	assert_true(f->r.power.collected_at >= now - 5 && f->r.power.collected_at <= now);
	assert_true(f->r.thermal.collected_at == f->r.power.collected_at);
	assert_true(report_oldest_section(&f->r) == now - 10);
	assert_non_null(json = report_encode(&f->r, 0));
	if (report_decode(json, strlen(json), back, err, sizeof(err)) == -1)
		fail_msg("report refused: %s", err);
	assert_true(back->thunderbolt.collected_at == now - 10);
	free(json);
	free(back);
}

/* The topology is read again every topology interval, by the monotonic clock. */
static void
test_topology_interval(void **state)
{
	struct fake *f = *state;

	f->o.topology_interval = 20;
	collect(f, 0);
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	collect(f, 3);	/* 15 s later */
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 0);
	f->step = -3600;	/* the wall clock has no say */
	collect(f, 4);	/* 20 s later */
	assert_int_equal(ran(f, "system_profiler SPThunderboltDataType"), 1);
	assert_int_equal(ran(f, "ibv_devinfo -v"), 1);
	assert_int_equal(ran(f, "ibv_devices"), 0);
}

/* A new interval starts the power child again, with its -i. */
static void
test_power_interval(void **state)
{
	struct fake *f = *state;

	collect(f, 0);
	assert_int_equal(ran_soon(f, "macmon pipe -i 5000", 1), 1);
	collect(f, 1);
	assert_int_equal(ran(f, "macmon"), 0);
	f->o.interval = 2;
	collect(f, 2);
	assert_int_equal(ran_soon(f, "macmon pipe -i 2000", 1), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nothing_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cable_pulled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bridge_member, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_interface, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reboot_and_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cable_pulled_while_ifconfig_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_clock_stepped_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topology_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power_interval, setup, teardown),
	};
	if (fm_use_fakes(top) == -1)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
