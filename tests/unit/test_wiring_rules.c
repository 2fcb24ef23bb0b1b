/*
 * The verdict table, walked: every verdict of proto's WIRING_VERDICTS has
 * a word that parses back and a meaning, its line in the help listing, and
 * a row in the engine's wiring_rules[] (pass, unknown, missing and
 * miswired structural, found by matching cables to the expectation and
 * listed first; every other one with a check and a fix, and a scenario on
 * which the engine gives it with a fix).  A verdict added to the list
 * without its engine row, or without its scenario, fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "wiring_fixture.h"
#include "wiring_int.h"

#define BIT(v) (1u << (v))

static int
is_structural(int v)
{
	return v == WIRING_PASS || v == WIRING_UNKNOWN || v == WIRING_MISSING ||
	    v == WIRING_MISWIRED;
}

static void
test_words_parse_back(void **state)
{
	enum wiring_verdict back;

	(void)state;
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++) {
		const char *w = wiring_verdict_str((enum wiring_verdict)v);
		const char *m = wiring_verdict_meaning((enum wiring_verdict)v);

		assert_non_null(w);
		assert_true(w[0] != '\0');
		assert_int_equal(strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789-"), strlen(w));
		assert_int_equal(wiring_verdict_parse(w, &back), 0);
		assert_int_equal(back, v);
		assert_non_null(m);
		assert_true(m[0] != '\0');
		assert_null(strchr(m, '\n'));
	}
	assert_int_equal(wiring_verdict_parse("", &back), -1);
	assert_int_equal(wiring_verdict_parse("Degraded", &back), -1);
	assert_string_equal(wiring_verdict_str(WIRING_VERDICT_COUNT), "unknown");
	assert_string_equal(wiring_verdict_meaning(WIRING_VERDICT_COUNT), "");
	/* the words the API and the stored results have always used */
	assert_string_equal(wiring_verdict_str(WIRING_PASS), "pass");
	assert_string_equal(wiring_verdict_str(WIRING_BRIDGE_LOOP), "bridge-loop");
	assert_string_equal(wiring_verdict_str(WIRING_RDMA_UNAVAILABLE), "rdma-unavailable");
	assert_string_equal(wiring_verdict_str(WIRING_VIA_HUB), "via-hub");
	assert_string_equal(wiring_verdict_str(WIRING_BAD_PORT), "bad-port");
	assert_string_equal(wiring_verdict_str(WIRING_NO_GID), "no-gid");
	assert_string_equal(wiring_verdict_str(WIRING_OS_SKEW), "os-skew");
}

static void
test_every_verdict_has_its_row(void **state)
{
	int last_structural = -1, first_checked = WIRING_VERDICT_COUNT;

	(void)state;
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++) {
		const struct wiring_rule *r = &wiring_rules[v];
		int checks = (r->node != NULL) + (r->end != NULL) + (r->cable != NULL);
		int fixes = (r->fix_end != NULL) + (r->fix_cable != NULL);

		print_message("%s\n", wiring_verdict_str((enum wiring_verdict)v));
		assert_int_equal(r->verdict, v);
		assert_int_equal(r->structural, is_structural(v));
		if (r->structural) {
			assert_int_equal(checks, 0);
			assert_int_equal(fixes, 0);
			assert_int_equal(r->hides, 0);
			last_structural = v;
			continue;
		}
		assert_true(checks >= 1);
		assert_int_equal(fixes, 1);
		/* a problem explains away other checked problems, never itself */
		assert_int_equal(r->hides & BIT(v), 0);
		for (int h = 0; h < WIRING_VERDICT_COUNT; h++)
			if (r->hides & BIT(h))
				assert_false(is_structural(h));
		if (v < first_checked)
			first_checked = v;
	}
	assert_true(last_structural < first_checked);
	assert_int_equal(wiring_rules[WIRING_RDMA_OFF].hides, BIT(WIRING_PORT_DOWN));
	/* an end with no RDMA device at all (ml-explore/mlx issue 3777) is told
	 * before RDMA off: enabling RDMA at the other end would not help; it
	 * explains its peers' ports down as rdma-off does */
	assert_int_equal(WIRING_RDMA_UNAVAILABLE + 1, WIRING_RDMA_OFF);
	assert_int_equal(wiring_rules[WIRING_RDMA_UNAVAILABLE].hides, BIT(WIRING_PORT_DOWN));
	/* a cable through a dock or hub (issue 19: a Mac nested in another
	 * device's _items) never carries RDMA, whatever else is fixed: right
	 * after one-sided, before bridge-loop; the hub explains the link's
	 * speed and its RDMA ports down */
	assert_int_equal(WIRING_ONE_SIDED + 1, WIRING_VIA_HUB);
	assert_int_equal(wiring_rules[WIRING_VIA_HUB].hides,
	    BIT(WIRING_PORT_DOWN) | BIT(WIRING_DEGRADED));
	/* a Mac Studio's port next to Ethernet (exo PR 1551) is where the
	 * cable is plugged, like via-hub: right after it, before bridge-loop;
	 * it explains that port's RDMA device being down */
	assert_int_equal(WIRING_VIA_HUB + 1, WIRING_BAD_PORT);
	assert_int_equal(WIRING_BAD_PORT + 1, WIRING_BRIDGE_LOOP);
	assert_int_equal(wiring_rules[WIRING_BAD_PORT].hides, BIT(WIRING_PORT_DOWN));
	/* no IPv4-mapped GID (MLX PR 4191) right after no IPv4 address: an
	 * interface without one publishes no such GID */
	assert_int_equal(WIRING_NO_IPV4 + 1, WIRING_NO_GID);
	assert_int_equal(WIRING_NO_GID + 1, WIRING_DEGRADED);
}

static void
test_help_lists_every_verdict(void **state)
{
	char buf[4096], small[20], line[256], *p = buf;
	size_t n = wiring_verdict_help(buf, sizeof(buf)), col = 0;

	(void)state;
	assert_true(n < sizeof(buf));
	assert_int_equal(n, strlen(buf));
	/* the words padded to the longest, rdma-unavailable */
	assert_non_null(strstr(buf, "  degraded          below 80 Gb/s\n"));
	assert_non_null(strstr(buf, "\n  rdma-unavailable  an end has RDMA enabled but no RDMA "
	    "device (Thunderbolt 4)\n  rdma-off          "));
	assert_non_null(strstr(buf, "\n  one-sided         seen from one end only\n  via-hub        "
	    "   the cable goes through a dock or hub: no RDMA over it\n  bad-port          "
	    "a Mac Studio's port next to Ethernet (en2), which carries no RDMA\n"
	    "  bridge-loop       "));
	assert_non_null(strstr(buf, "\n  no-ipv4           an end has no IPv4 address\n"
	    "  no-gid            an RDMA port has no IPv4-mapped GID (JACCL needs one)\n"
	    "  degraded          "));
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++) {
		const char *w = wiring_verdict_str((enum wiring_verdict)v);
		const char *m = wiring_verdict_meaning((enum wiring_verdict)v);
		char *nl = strchr(p, '\n');
		size_t at;

		assert_non_null(nl);
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		/* "  WORD" then spaces, the meaning in one column for all */
		assert_memory_equal(line, "  ", 2);
		assert_memory_equal(line + 2, w, strlen(w));
		at = strlen(line) - strlen(m);
		assert_string_equal(line + at, m);
		assert_int_equal(strspn(line + 2 + strlen(w), " "), at - 2 - strlen(w));
		assert_true(at >= 2 + strlen(w) + 2);
		if (v == 0)
			col = at;
		assert_int_equal(at, col);
		p = nl + 1;
	}
	assert_int_equal(*p, '\0');
	/* as snprintf: cut and terminated, the whole length returned */
	memset(small, 'x', sizeof(small));
	assert_int_equal(wiring_verdict_help(small, sizeof(small)), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, buf, sizeof(small) - 1);
	assert_int_equal(wiring_verdict_help(NULL, 0), n);
}

/* Where each verdict with a rule shows (tests/scenarios), as a full mesh;
 * test_wiring.c has the structural ones. */
static const char *const scenarios[WIRING_VERDICT_COUNT] = {
	[WIRING_ONE_SIDED] = "one-sided.json",
	[WIRING_VIA_HUB] = "via-hub.json",
	[WIRING_BAD_PORT] = "bad-port.json",
	[WIRING_BRIDGE_LOOP] = "bridge-active.json",
	[WIRING_RDMA_UNAVAILABLE] = "rdma-unavailable.json",
	[WIRING_RDMA_OFF] = "rdma-off.json",
	[WIRING_PORT_DOWN] = "port-down.json",
	[WIRING_NO_IPV4] = "no-ipv4.json",
	[WIRING_NO_GID] = "no-gid.json",
	[WIRING_DEGRADED] = "degraded-40g.json",
	[WIRING_OS_SKEW] = "os-skew.json",
};

/* A link of r (expected or not) whose verdict is v, with a fix. */
static int
shows(const struct wiring_result *r, int v)
{
	for (int k = 0; k < r->n_links + r->n_unexpected; k++) {
		const struct wiring_link *l = k < r->n_links ? &r->links[k] :
		    &r->unexpected[k - r->n_links];

		if (l->verdict == (enum wiring_verdict)v && (l->problems & BIT(v)) && l->fix[0])
			return 1;
	}
	return 0;
}

static void
test_every_verdict_shows_with_a_fix(void **state)
{
	(void)state;
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++) {
		struct fx_cluster *c;
		struct wiring_result *r;

		if (wiring_rules[v].structural)
			continue;
		print_message("%s\n", wiring_verdict_str((enum wiring_verdict)v));
		assert_non_null(scenarios[v]);
		c = fx_load(scenarios[v]);
		assert_non_null(c);
		r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
		assert_non_null(r);
		assert_true(shows(r, v));
		wiring_result_free(r);
		fx_free(c);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_parse_back),
		cmocka_unit_test(test_every_verdict_has_its_row),
		cmocka_unit_test(test_help_lists_every_verdict),
		cmocka_unit_test(test_every_verdict_shows_with_a_fix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
