/*
 * report_lan_ipv4: the node's LAN address out of network.interfaces, the
 * one every rank of a job dials (MLX_JACCL_COORDINATOR, MLX's
 * _distributed_utils/launch.py): Ethernet before Wi-Fi, the first usable
 * address of the first interface that has one, never link-local or
 * loopback, never an "other" interface.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Appends an interface of kind k with the addresses in ips (NULL-terminated). */
static void
add_if(struct report *r, const char *name, enum netif_kind k, const char *const *ips)
{
	struct report_netif *n;

	if (r->network.n_interfaces < 0)
		r->network.n_interfaces = 0;
	n = &r->network.interfaces[r->network.n_interfaces++];
	report_netif_init(n);
	REPORT_SET(n->name, name);
	n->kind = k;
	if (ips == NULL)
		return;	/* addresses unknown */
	n->n_ipv4 = 0;
	for (; *ips != NULL; ips++)
		REPORT_SET(n->ipv4[n->n_ipv4++], *ips);
}

/* report_lan_ipv4(r) is want_ip on want_if of want_kind, or -1 when want_ip is NULL. */
static void
expect_lan(const struct report *r, const char *want_ip, const char *want_if,
    const char *want_kind)
{
	char ip[16] = "x", iface[32] = "x";
	const char *kind = "x";
	int rc = report_lan_ipv4(r, ip, sizeof(ip), iface, sizeof(iface), &kind);

	if (want_ip == NULL) {
		assert_int_equal(rc, -1);
		assert_string_equal(ip, "");
		assert_string_equal(iface, "");
		assert_null(kind);
		return;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(ip, want_ip);
	assert_string_equal(iface, want_if);
	assert_non_null(kind);
	assert_string_equal(kind, want_kind);
}

static void
test_unknown_and_empty(void **state)
{
	struct report *r = report_new();

	(void)state;
	expect_lan(r, NULL, NULL, NULL);	/* network null */
	r->network.n_interfaces = 0;
	expect_lan(r, NULL, NULL, NULL);	/* known: none */
	free(r);
}

static void
test_ethernet_before_wifi(void **state)
{
	static const char *const wifi[] = { "192.0.2.111", NULL };
	static const char *const eth[] = { "192.0.2.11", NULL };
	struct report *r = report_new();

	(void)state;
	add_if(r, "en1", NETIF_KIND_WIFI, wifi);
	expect_lan(r, "192.0.2.111", "en1", "wifi");
	add_if(r, "en0", NETIF_KIND_ETHERNET, eth);	/* listed after Wi-Fi, still first */
	expect_lan(r, "192.0.2.11", "en0", "ethernet");
	free(r);
}

/* The first interface of a kind that has a usable address, its first such address. */
static void
test_first_usable(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const ll[] = { "169.254.10.1", "127.0.0.1", NULL };
	static const char *const two[] = { "169.254.1.1", "198.51.100.20", "198.51.100.21",
		NULL };
	static const char *const other[] = { "203.0.113.5", NULL };
	static const char *const wifi[] = { "192.0.2.111", NULL };
	struct report *r = report_new();

	(void)state;
	add_if(r, "utun4", NETIF_KIND_OTHER, other);
	add_if(r, "en9", NETIF_KIND_NULL, other);
	expect_lan(r, NULL, NULL, NULL);		/* neither other nor null is LAN */
	add_if(r, "en0", NETIF_KIND_ETHERNET, NULL);	/* addresses unknown */
	add_if(r, "en5", NETIF_KIND_ETHERNET, none);
	add_if(r, "en6", NETIF_KIND_ETHERNET, ll);	/* self-assigned only */
	add_if(r, "en1", NETIF_KIND_WIFI, wifi);
	expect_lan(r, "192.0.2.111", "en1", "wifi");
	add_if(r, "en7", NETIF_KIND_ETHERNET, two);
	expect_lan(r, "198.51.100.20", "en7", "ethernet");
	free(r);
}

/* 169.254.0.0/16 and 127.0.0.0/8 exactly: their neighbours are usable. */
static void
test_ranges(void **state)
{
	static const char *const skipped[] = { "169.254.0.0", "169.254.255.255", "127.0.0.1",
		"127.255.255.254", NULL };
	static const char *const usable[] = { "169.253.255.255", "169.255.0.1", "126.255.255.255",
		"128.0.0.1", "10.0.0.1", NULL };
	struct report *r = report_new();
	const char *one[2] = { NULL, NULL };

	(void)state;
	for (int i = 0; skipped[i] != NULL; i++) {
		r->network.n_interfaces = -1;
		one[0] = skipped[i];
		add_if(r, "en0", NETIF_KIND_ETHERNET, one);
		expect_lan(r, NULL, NULL, NULL);
	}
	for (int i = 0; usable[i] != NULL; i++) {
		r->network.n_interfaces = -1;
		one[0] = usable[i];
		add_if(r, "en0", NETIF_KIND_WIFI, one);
		expect_lan(r, usable[i], "en0", "wifi");
	}
	free(r);
}

/* iface and kind may be NULL; a count past the array is bounded. */
static void
test_optional_out(void **state)
{
	static const char *const eth[] = { "192.0.2.11", NULL };
	struct report *r = report_new();
	char ip[16];

	(void)state;
	add_if(r, "en0", NETIF_KIND_ETHERNET, eth);
	assert_int_equal(report_lan_ipv4(r, ip, sizeof(ip), NULL, 0, NULL), 0);
	assert_string_equal(ip, "192.0.2.11");
	r->network.n_interfaces = 1000;
	r->network.interfaces[0].n_ipv4 = 1000;
	assert_int_equal(report_lan_ipv4(r, ip, sizeof(ip), NULL, 0, NULL), 0);
	assert_string_equal(ip, "192.0.2.11");
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_and_empty),
		cmocka_unit_test(test_ethernet_before_wifi),
		cmocka_unit_test(test_first_usable),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_optional_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
