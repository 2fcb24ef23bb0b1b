/*
 * addr_change: a Thunderbolt interface's addresses from one report to the
 * next (appeared, gone, replaced; not: a first report, a port gone empty,
 * the same set in another order), the event's words and fix; and the
 * wiring monitor's use of it (wmon_addr.c): each change counted, the
 * events of a flapping interface held to one a WMON_EVENT_GAP, a stored
 * report's addresses compared with the node's previous one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr_change.h"
#include "report.h"
#include "wiring_fixture.h"
#include "wmon.h"
#include "wmon_int.h"

#define T0 1767225600.0

/* Port k of r: receptacle k+1, interface en(k+2), connected, these addresses. */
static void
port_set(struct report *r, int k, enum port_status st, int n, const char *a0, const char *a1)
{
	struct report_port *p = &r->thunderbolt.ports[k];

	snprintf(p->receptacle, sizeof(p->receptacle), "%d", k + 1);
	snprintf(p->interface, sizeof(p->interface), "en%d", k + 2);
	p->status = st;
	p->n_ipv4 = n;
	if (n > 0)
		snprintf(p->ipv4[0], sizeof(p->ipv4[0]), "%s", a0);
	if (n > 1)
		snprintf(p->ipv4[1], sizeof(p->ipv4[1]), "%s", a1);
	if (r->thunderbolt.n_ports < k + 1)
		r->thunderbolt.n_ports = k + 1;
}

/* A report with two connected ports: en2 192.168.0.1, en3 192.168.1.1. */
static struct report *
report_two(void)
{
	struct report *r = report_new();

	assert_non_null(r);
	r->thunderbolt.n_ports = 0;
	port_set(r, 0, PORT_STATUS_CONNECTED, 1, "192.168.0.1", NULL);
	port_set(r, 1, PORT_STATUS_CONNECTED, 1, "192.168.1.1", NULL);
	return r;
}

static int
changes_of(const struct report *before, const struct report *after, struct addr_change *out)
{
	struct addr_ports b, a;

	addr_ports_from_report(&b, before);
	addr_ports_from_report(&a, after);
	return addr_changes(&b, &a, out, ADDR_PORTS_MAX);
}

static void
test_first_report_no_change(void **state)
{
	struct report *r = report_two();
	struct addr_change ch[ADDR_PORTS_MAX];
	struct addr_ports none, a;

	(void)state;
	assert_int_equal(changes_of(NULL, r, ch), 0);
	addr_ports_init(&none);
	assert_int_equal(none.n_ports, -1);
	addr_ports_from_report(&a, r);
	assert_int_equal(a.n_ports, 2);
	assert_int_equal(addr_changes(&none, &a, ch, ADDR_PORTS_MAX), 0);
	assert_int_equal(addr_changes(NULL, &a, ch, ADDR_PORTS_MAX), 0);
	/* the ports unknown (collection failed), then known again: no evidence */
	struct report *u = report_new();
	assert_non_null(u);
	u->thunderbolt.n_ports = -1;
	assert_int_equal(changes_of(u, r, ch), 0);
	assert_int_equal(changes_of(r, u, ch), 0);
	free(u);
	free(r);
}

static void
test_replaced(void **state)
{
	struct report *b = report_two(), *a = report_two();
	struct addr_change ch[ADDR_PORTS_MAX];

	(void)state;
	assert_int_equal(changes_of(b, a, ch), 0);
	/* exo's daemon put en3 back on DHCP: its self-assigned address now */
	port_set(a, 1, PORT_STATUS_CONNECTED, 1, "169.254.7.9", NULL);
	assert_int_equal(changes_of(b, a, ch), 1);
	assert_string_equal(ch[0].interface, "en3");
	assert_string_equal(ch[0].receptacle, "2");
	assert_int_equal(ch[0].kind, ADDR_REPLACED);
	assert_int_equal(ch[0].n_before, 1);
	assert_string_equal(ch[0].before[0], "192.168.1.1");
	assert_int_equal(ch[0].n_after, 1);
	assert_string_equal(ch[0].after[0], "169.254.7.9");
	/* both ports at once: two changes, in port order */
	port_set(a, 0, PORT_STATUS_CONNECTED, 1, "169.254.1.2", NULL);
	assert_int_equal(changes_of(b, a, ch), 2);
	assert_string_equal(ch[0].interface, "en2");
	assert_string_equal(ch[1].interface, "en3");
	/* at most max */
	struct addr_ports pb, pa;
	addr_ports_from_report(&pb, b);
	addr_ports_from_report(&pa, a);
	assert_int_equal(addr_changes(&pb, &pa, ch, 1), 1);
	free(a);
	free(b);
}

static void
test_appeared_and_gone(void **state)
{
	struct report *b = report_two(), *a = report_two();
	struct addr_change ch[ADDR_PORTS_MAX];

	(void)state;
	/* DHCP finds no server on a cable: no address for minutes (mlx #3467) */
	port_set(a, 0, PORT_STATUS_CONNECTED, 0, NULL, NULL);
	assert_int_equal(changes_of(b, a, ch), 1);
	assert_int_equal(ch[0].kind, ADDR_GONE);
	assert_int_equal(ch[0].n_after, 0);
	/* then the self-assigned one lands */
	assert_int_equal(changes_of(a, b, ch), 1);
	assert_int_equal(ch[0].kind, ADDR_APPEARED);
	assert_int_equal(ch[0].n_before, 0);
	assert_string_equal(ch[0].after[0], "192.168.0.1");
	/* an address added beside the one there: replaced (a set that differs) */
	port_set(a, 0, PORT_STATUS_CONNECTED, 2, "192.168.0.1", "169.254.3.3");
	assert_int_equal(changes_of(b, a, ch), 1);
	assert_int_equal(ch[0].kind, ADDR_REPLACED);
	assert_int_equal(ch[0].n_after, 2);
	assert_string_equal(ch[0].after[0], "169.254.3.3");   /* sorted by value */
	assert_string_equal(ch[0].after[1], "192.168.0.1");
	free(a);
	free(b);
}

static void
test_not_changes(void **state)
{
	struct report *b = report_two(), *a = report_two();
	struct addr_change ch[ADDR_PORTS_MAX];

	(void)state;
	/* the same set in another order, or with an address twice */
	port_set(b, 0, PORT_STATUS_CONNECTED, 2, "192.168.0.1", "169.254.3.3");
	port_set(a, 0, PORT_STATUS_CONNECTED, 2, "169.254.3.3", "192.168.0.1");
	assert_int_equal(changes_of(b, a, ch), 0);
	port_set(a, 0, PORT_STATUS_CONNECTED, 3, "169.254.3.3", "192.168.0.1");
	snprintf(a->thunderbolt.ports[0].ipv4[2], sizeof(a->thunderbolt.ports[0].ipv4[2]),
	    "192.168.0.1");
	assert_int_equal(changes_of(b, a, ch), 0);
	/* a port that went empty (its address gone with the cable): the wiring
	 * check's event, not this one; nor when it comes out of empty */
	port_set(a, 0, PORT_STATUS_EMPTY, 0, NULL, NULL);
	assert_int_equal(changes_of(b, a, ch), 0);
	assert_int_equal(changes_of(a, b, ch), 0);
	/* addresses unknown on one side */
	port_set(a, 0, PORT_STATUS_CONNECTED, -1, NULL, NULL);
	assert_int_equal(changes_of(b, a, ch), 0);
	assert_int_equal(changes_of(a, b, ch), 0);
	/* a port new to the list, or gone from it */
	struct report *two = report_two(), *three = report_two();
	port_set(three, 2, PORT_STATUS_CONNECTED, 1, "192.168.2.1", NULL);
	assert_int_equal(changes_of(two, three, ch), 0);
	assert_int_equal(changes_of(three, two, ch), 0);
	/* matched by interface, not position */
	struct report *swapped = report_two();
	swapped->thunderbolt.ports[0] = three->thunderbolt.ports[1];
	swapped->thunderbolt.ports[1] = three->thunderbolt.ports[0];
	assert_int_equal(changes_of(three, swapped, ch), 0);
	free(swapped);
	free(three);
	free(two);
	free(a);
	free(b);
}

static void
test_sets(void **state)
{
	report_ipv4 s[4] = { "169.254.1.2", "169.254.200.9", "192.168.0.2", "10.0.0.1" };
	char buf[64];

	(void)state;
	assert_true(addr_is_link_local("169.254.0.1"));
	assert_true(addr_is_link_local("169.254.255.255"));
	assert_false(addr_is_link_local("169.253.0.1"));
	assert_false(addr_is_link_local("192.168.0.1"));
	assert_false(addr_is_link_local("169.254.1"));
	assert_false(addr_is_link_local(""));
	assert_true(addr_set_dynamic(s, 0));          /* none: DHCP with no server */
	assert_true(addr_set_dynamic(s, 2));          /* self-assigned only */
	assert_false(addr_set_dynamic(s, 3));         /* a static one among them */
	addr_set_text(s, 0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	addr_set_text(s, 1, buf, sizeof(buf));
	assert_string_equal(buf, "169.254.1.2");
	addr_set_text(s, 2, buf, sizeof(buf));
	assert_string_equal(buf, "169.254.1.2, 169.254.200.9");
	addr_set_text(s, 4, buf, sizeof(buf));
	assert_string_equal(buf, "169.254.1.2, 169.254.200.9 +2");
	assert_int_equal(addr_set_key(s, 2), addr_set_key(s, 2));
	assert_int_not_equal(addr_set_key(s, 2), addr_set_key(s, 1));
	assert_int_not_equal(addr_set_key(s, 1), addr_set_key(s + 1, 1));
	assert_true(addr_set_key(s, 4) >= 0);
	assert_true(addr_set_equal(s, 2, s, 2));
	assert_false(addr_set_equal(s, 2, s, 1));
	assert_false(addr_set_equal(s, 1, s + 1, 1));
}

static struct addr_change
change(const char *before, const char *after)
{
	struct addr_change ch;

	memset(&ch, 0, sizeof(ch));
	snprintf(ch.interface, sizeof(ch.interface), "en3");
	snprintf(ch.receptacle, sizeof(ch.receptacle), "2");
	if (before != NULL)
		snprintf(ch.before[ch.n_before++], sizeof(ch.before[0]), "%s", before);
	if (after != NULL)
		snprintf(ch.after[ch.n_after++], sizeof(ch.after[0]), "%s", after);
	ch.kind = addr_change_kind_of(ch.n_before, ch.n_after);
	return ch;
}

#define FIX "fix: a static /30 per cable (receptacle 2): tbctl node add HOST --cluster C " \
	"[--ip-base A.B.0.0]"
#define EXO "; exo's io.exo.networksetup resets Thunderbolt services to DHCP every 1786 s " \
	"(sudo launchctl bootout system/io.exo.networksetup)"

static void
test_event_words(void **state)
{
	char what[64], reason[API_REASON_MAX + 1], brief[96];
	struct addr_change ch = change("192.168.1.1", "169.254.7.9");

	(void)state;
	addr_change_event(&ch, 0, 0, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 192.168.1.1 -> 169.254.7.9");
	assert_string_equal(reason, FIX EXO);
	assert_true(strlen(reason) <= API_REASON_MAX);
	addr_change_brief(&ch, brief, sizeof(brief));
	assert_string_equal(brief, "en3 192.168.1.1 -> 169.254.7.9");
	/* gone: DHCP with no server; the exo note too */
	ch = change("192.168.1.1", NULL);
	addr_change_event(&ch, 0, 4, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 192.168.1.1 -> none");
	assert_string_equal(reason, "4 earlier changes not logged; " FIX EXO);
	assert_true(strlen(reason) <= API_REASON_MAX);
	/* back to a static address: the fix, no DHCP note */
	ch = change(NULL, "192.168.1.1");
	addr_change_event(&ch, 0, 1, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 none -> 192.168.1.1");
	assert_string_equal(reason, "1 earlier change not logged; " FIX);
	/* no receptacle known: the fix without it */
	ch.receptacle[0] = '\0';
	addr_change_event(&ch, 0, 0, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(reason, "fix: a static /30 per cable: tbctl node add HOST --cluster C "
	    "[--ip-base A.B.0.0]");
	/* flapping, back at a static address: said, with the daemon as a cause */
	ch = change("192.168.1.1", "192.168.1.1");
	addr_change_event(&ch, 1, 9, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 flapping, back at 192.168.1.1");
	assert_string_equal(reason, "9 more changes not logged; " FIX EXO);
	/* addresses too long for what: what says changed, reason has them */
	memset(&ch, 0, sizeof(ch));
	snprintf(ch.interface, sizeof(ch.interface), "en3");
	ch.n_before = ch.n_after = ADDR_IPV4_MAX;
	for (int k = 0; k < ADDR_IPV4_MAX; k++) {
		snprintf(ch.before[k], sizeof(ch.before[k]), "169.254.255.%d", 200 + k);
		snprintf(ch.after[k], sizeof(ch.after[k]), "169.254.254.%d", 200 + k);
	}
	addr_change_event(&ch, 0, 0, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 changed");
	assert_non_null(strstr(reason, "169.254.255.200, 169.254.255.201 +6 -> 169.254.254.200, "
	    "169.254.254.201 +6; fix: a static /30 per cable: "));
	addr_change_event(&ch, 1, 3, what, sizeof(what), reason, sizeof(reason));
	assert_string_equal(what, "address en3 flapping");
	assert_non_null(strstr(reason, "back at 169.254.254.200, 169.254.254.201 +6; 3 more "
	    "changes not logged; fix: "));
	/* the longest words are cut at the end to fit an event's reason */
	memset(ch.interface, 'e', ADDR_NAME_MAX);
	memset(ch.receptacle, '9', ADDR_NAME_MAX);
	addr_change_event(&ch, 0, 123456, what, sizeof(what), reason, sizeof(reason));
	assert_true(strlen(reason) == API_REASON_MAX);
	assert_true(strlen(what) < sizeof(what));
	assert_non_null(strstr(reason, "123456 earlier changes not logged; fix: a static /30"));
}

/* The events wmon_addr queued: how many, and each one's reason into last. */
static int
take_events(struct wmon *m, char *last, size_t len, int *n_causes)
{
	struct wmon_addr_event *ev;
	struct placement_cause *pc;
	int n, nc;

	wmon_addr_take(m, &ev, &n, &pc, &nc);
	if (n > 0)
		snprintf(last, len, "%s: %s", ev[n - 1].what, ev[n - 1].reason);
	*n_causes = nc;
	free(ev);
	free(pc);
	return n;
}

/* A flapping interface: every change counted, one event a gap. */
static void
test_monitor_gate(void **state)
{
	struct wmon *m = wmon_new(NULL);
	struct report *r[2] = { report_two(), report_two() };
	struct addr_ports p[2];
	char last[512] = "", *metrics;
	int nc;

	(void)state;
	assert_non_null(m);
	port_set(r[1], 1, PORT_STATUS_CONNECTED, 1, "169.254.7.9", NULL);
	addr_ports_from_report(&p[0], r[0]);
	addr_ports_from_report(&p[1], r[1]);
	/* first change: an event at once, and the cause for the placements */
	wmon_addr_seen(m, "mac2", &p[0], &p[1], T0);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 1);
	assert_int_equal(nc, 1);
	assert_non_null(strstr(last, "address en3 192.168.1.1 -> 169.254.7.9: fix: a static /30 "
	    "per cable (receptacle 2): "));
	/* nine more in ten seconds: counted, not logged */
	for (int k = 1; k <= 9; k++)
		wmon_addr_seen(m, "mac2", &p[k % 2], &p[(k + 1) % 2], T0 + k);
	wmon_addr_flush(m, T0 + 10);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 0);
	assert_int_equal(nc, 1);            /* one cause per node: its latest change */
	/* the gap over, the flush says what they left: from what the last
	 * event said (169.254.7.9) to the latest (192.168.1.1), and how many */
	wmon_addr_flush(m, T0 + WMON_EVENT_GAP - 1);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 0);
	wmon_addr_flush(m, T0 + WMON_EVENT_GAP + 1);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 1);
	assert_int_equal(nc, 0);
	assert_non_null(strstr(last, "address en3 169.254.7.9 -> 192.168.1.1: 8 earlier changes "
	    "not logged; fix: "));
	/* then quiet */
	wmon_addr_flush(m, T0 + 3 * WMON_EVENT_GAP);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 0);
	/* away and back within a gap: at once, then "flapping" a gap later */
	wmon_addr_seen(m, "mac2", &p[0], &p[1], T0 + 4 * WMON_EVENT_GAP);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 1);
	wmon_addr_seen(m, "mac2", &p[1], &p[0], T0 + 4 * WMON_EVENT_GAP + 1);
	wmon_addr_seen(m, "mac2", &p[0], &p[1], T0 + 4 * WMON_EVENT_GAP + 2);
	wmon_addr_flush(m, T0 + 5 * WMON_EVENT_GAP + 1);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 1);
	assert_non_null(strstr(last, "address en3 flapping, back at 169.254.7.9: 2 more changes "
	    "not logged; fix: "));
	metrics = wmon_metrics(m);
	assert_non_null(metrics);
	assert_non_null(strstr(metrics, "# TYPE tbmesh_wiring_address_changes_total counter\n"));
	assert_non_null(strstr(metrics,
	    "tbmesh_wiring_address_changes_total{node=\"mac2\",interface=\"en3\"} 13\n"));
	free(metrics);
	/* a removed node's counters go */
	wmon_report(m, "mac2", r[0]);
	wmon_forget(m, "mac2");
	metrics = wmon_metrics(m);
	assert_non_null(metrics);
	assert_null(strstr(metrics, "node=\"mac2\""));
	free(metrics);
	wmon_free(m);
	free(r[0]);
	free(r[1]);
}

/* The ingest path: a stored report's addresses against the node's previous report. */
static void
test_monitor_apply(void **state)
{
	struct fx_cluster *c = fx_load("pair-studio.json");
	struct wmon *m = wmon_new(NULL);
	struct report *r;
	char last[512] = "";
	int nc, k;

	(void)state;
	assert_non_null(c);
	assert_non_null(m);
	r = &c->reports[1];
	for (k = 0; k < r->thunderbolt.n_ports; k++)
		if (r->thunderbolt.ports[k].n_ipv4 > 0)
			break;
	assert_true(k < r->thunderbolt.n_ports);       /* the cabled port has an address */
	/* the node's first report: nothing to compare with */
	wmon_apply(m, wmon_stage(m, "mac2", r));
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 0);
	/* the same again: not even staged */
	assert_null(wmon_stage(m, "mac2", r));
	/* the second address of the port changes: the fingerprint sees it */
	r->thunderbolt.ports[k].n_ipv4 = 2;
	snprintf(r->thunderbolt.ports[k].ipv4[1], sizeof(r->thunderbolt.ports[k].ipv4[1]),
	    "10.0.0.9");
	struct wmon_staged *st = wmon_stage(m, "mac2", r);
	assert_non_null(st);
	wmon_apply(m, st);
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 1);
	assert_int_equal(nc, 1);
	assert_non_null(strstr(last, " -> 10.0.0.9, "));
	/* another node's report changes nothing of mac2's */
	wmon_apply(m, wmon_stage(m, "mac1", &c->reports[0]));
	assert_int_equal(take_events(m, last, sizeof(last), &nc), 0);
	wmon_free(m);
	fx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_report_no_change),
		cmocka_unit_test(test_replaced),
		cmocka_unit_test(test_appeared_and_gone),
		cmocka_unit_test(test_not_changes),
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_event_words),
		cmocka_unit_test(test_monitor_gate),
		cmocka_unit_test(test_monitor_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
