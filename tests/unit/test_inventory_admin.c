/*
 * inventory_admin: tokens (create, list, use, revoke, expiry), clusters
 * (create, membership) and the event log (order, filters by node and time,
 * limits), on a real SQLite file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "report.h"

#include "inventory_fixture.h"

/* ---- tokens ---- */

static void
make_token(struct api_token *t, const char *id, enum token_role role, double created)
{
	memset(t, 0, sizeof(*t));
	REPORT_SET(t->id, id);
	t->role = role;
	t->created_at = created;
	t->expires_at = NAN;
	t->used_at = NAN;
}

static void
test_tokens(void **state)
{
	struct fx *f = *state;
	struct api_token t, got, *list = NULL;
	uint8_t hash[INV_HASH_LEN], h2[INV_HASH_LEN];
	int n = 0;

	for (int i = 0; i < INV_HASH_LEN; i++)
		hash[i] = (uint8_t)(i * 7 + 1);
	make_token(&t, "0123456789ab", ROLE_ADMIN, T0);
	REPORT_SET(t.label, "first admin");
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	assert_int_equal(inv_token_add(f->inv, &t, hash), INV_CONFLICT);
	make_token(&t, "bbbbbbbbbbbb", ROLE_BOOTSTRAP, T0 + 1);
	REPORT_SET(t.cluster, "lab");
	t.expires_at = T0 + 3600;
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	make_token(&t, "cccccccccccc", ROLE_NODE, T0 + 2);
	REPORT_SET(t.node, "mac1");
	REPORT_SET(t.cluster, "lab");
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);

	assert_int_equal(inv_token_get(f->inv, "bbbbbbbbbbbb", &got, h2), 0);
	assert_string_equal(got.id, "bbbbbbbbbbbb");
	assert_int_equal(got.role, ROLE_BOOTSTRAP);
	assert_string_equal(got.cluster, "lab");
	assert_string_equal(got.node, "");
	assert_string_equal(got.label, "");
	assert_true(got.created_at == T0 + 1);
	assert_true(got.expires_at == T0 + 3600);
	assert_true(isnan(got.used_at));
	assert_int_equal(got.revoked, 0);
	assert_memory_equal(h2, hash, INV_HASH_LEN);
	assert_int_equal(inv_token_get(f->inv, "ffffffffffff", &got, h2), INV_NOTFOUND);

	assert_int_equal(inv_token_list(f->inv, &list, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].id, "cccccccccccc");    /* newest first */
	assert_string_equal(list[2].id, "0123456789ab");
	assert_string_equal(list[2].label, "first admin");
	assert_true(isnan(list[2].expires_at));
	free(list);
}

static void
test_token_use_and_revoke(void **state)
{
	struct fx *f = *state;
	struct api_token t, got;
	uint8_t hash[INV_HASH_LEN] = { 1 }, h2[INV_HASH_LEN];

	make_token(&t, "0123456789ab", ROLE_ADMIN, T0);
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	make_token(&t, "bbbbbbbbbbbb", ROLE_BOOTSTRAP, T0 + 1);
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	make_token(&t, "cccccccccccc", ROLE_NODE, T0 + 2);
	REPORT_SET(t.node, "mac1");
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	make_token(&t, "eeeeeeeeeeee", ROLE_NODE, T0 + 2);
	REPORT_SET(t.node, "mac2");
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);

	/* A bootstrap token is used once. */
	assert_int_equal(inv_begin(f->inv), 0);
	assert_int_equal(inv_token_use(f->inv, "bbbbbbbbbbbb", T0 + 10), 0);
	assert_int_equal(inv_token_use(f->inv, "bbbbbbbbbbbb", T0 + 11), INV_CONFLICT);
	assert_int_equal(inv_token_use(f->inv, "ffffffffffff", T0 + 11), INV_NOTFOUND);
	assert_int_equal(inv_commit(f->inv), 0);
	assert_int_equal(inv_token_get(f->inv, "bbbbbbbbbbbb", &got, h2), 0);
	assert_true(got.used_at == T0 + 10);

	assert_int_equal(inv_token_count(f->inv, ROLE_ADMIN), 1);
	assert_int_equal(inv_token_revoke(f->inv, "0123456789ab"), 0);
	assert_int_equal(inv_token_revoke(f->inv, "ffffffffffff"), INV_NOTFOUND);
	assert_int_equal(inv_token_count(f->inv, ROLE_ADMIN), 0);
	assert_int_equal(inv_token_get(f->inv, "0123456789ab", &got, h2), 0);
	assert_int_equal(got.revoked, 1);

	assert_int_equal(inv_token_count(f->inv, ROLE_NODE), 2);
	assert_int_equal(inv_token_revoke_node(f->inv, "mac1"), 0);
	assert_int_equal(inv_token_revoke_node(f->inv, "mac9"), 0);
	assert_int_equal(inv_token_count(f->inv, ROLE_NODE), 1);   /* mac2's stays */
	assert_int_equal(inv_token_get(f->inv, "cccccccccccc", &got, h2), 0);
	assert_int_equal(got.revoked, 1);
	/* A revoked bootstrap token cannot be used either. */
	make_token(&t, "dddddddddddd", ROLE_BOOTSTRAP, T0 + 3);
	assert_int_equal(inv_token_add(f->inv, &t, hash), 0);
	assert_int_equal(inv_token_revoke(f->inv, "dddddddddddd"), 0);
	assert_int_equal(inv_token_use(f->inv, "dddddddddddd", T0 + 12), INV_CONFLICT);
}

/* ---- clusters ---- */

static void
test_clusters(void **state)
{
	struct fx *f = *state;
	struct api_cluster *cl = NULL, c;
	struct api_node n;
	int cnt = 0;

	assert_int_equal(inv_cluster_add(f->inv, "lab-b", T0), 0);
	assert_int_equal(inv_cluster_add(f->inv, "lab-a", T0 + 1), 0);
	assert_int_equal(inv_cluster_add(f->inv, "lab-a", T0 + 2), INV_CONFLICT);
	enrol(f, "mac1", UUID_A);
	enrol(f, "mac2", UUID_B);
	assert_int_equal(inv_cluster_set_node(f->inv, "lab-a", "mac1"), 0);
	assert_int_equal(inv_cluster_set_node(f->inv, "lab-a", "mac2"), 0);
	assert_int_equal(inv_cluster_set_node(f->inv, "nolab", "mac1"), INV_NOTFOUND);
	assert_int_equal(inv_cluster_set_node(f->inv, "lab-a", "nomac"), INV_NOTFOUND);

	assert_int_equal(inv_cluster_list(f->inv, &cl, &cnt), 0);
	assert_int_equal(cnt, 2);
	assert_string_equal(cl[0].name, "lab-a");
	assert_int_equal(cl[0].n_nodes, 2);
	assert_true(cl[0].created_at == T0 + 1);
	assert_string_equal(cl[1].name, "lab-b");
	assert_int_equal(cl[1].n_nodes, 0);
	free(cl);

	assert_int_equal(inv_cluster_set_node(f->inv, "lab-b", "mac2"), 0);
	assert_int_equal(inv_cluster_set_node(f->inv, "", "mac1"), 0);
	assert_int_equal(inv_cluster_get(f->inv, "lab-a", &c), 0);
	assert_int_equal(c.n_nodes, 0);
	assert_int_equal(inv_cluster_get(f->inv, "lab-b", &c), 0);
	assert_int_equal(c.n_nodes, 1);
	assert_int_equal(inv_cluster_get(f->inv, "nolab", &c), INV_NOTFOUND);
	assert_int_equal(inv_node_get(f->inv, "mac1", &n), 0);
	assert_string_equal(n.cluster, "");
	assert_int_equal(inv_node_get(f->inv, "mac2", &n), 0);
	assert_string_equal(n.cluster, "lab-b");
}

/* ---- events ---- */

static void
test_events(void **state)
{
	struct fx *f = *state;
	struct api_event *ev = NULL;
	int n = 0;

	assert_int_equal(inv_event_add(f->inv, T0, "controller", "mac1", "enrolled", ""), 0);
	assert_int_equal(inv_event_add(f->inv, T0 + 10, "admin:0123456789ab", "mac1",
	    "cordoned", "replacing a cable"), 0);
	assert_int_equal(inv_event_add(f->inv, T0 + 20, "controller", "mac2", "enrolled",
	    ""), 0);
	assert_int_equal(inv_event_add(f->inv, T0 + 30, "admin:0123456789ab", "",
	    "cluster created", ""), 0);

	assert_int_equal(inv_event_list(f->inv, "", NAN, 0, &ev, &n), 0);
	assert_int_equal(n, 4);
	assert_true(ev[0].time == T0);                       /* newest last */
	assert_true(ev[3].time == T0 + 30);
	assert_true(ev[0].id < ev[3].id);
	assert_string_equal(ev[1].actor, "admin:0123456789ab");
	assert_string_equal(ev[1].node, "mac1");
	assert_string_equal(ev[1].what, "cordoned");
	assert_string_equal(ev[1].reason, "replacing a cable");
	assert_string_equal(ev[3].node, "");
	free(ev);

	assert_int_equal(inv_event_list(f->inv, "mac1", NAN, 0, &ev, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].what, "enrolled");
	assert_string_equal(ev[1].what, "cordoned");
	free(ev);

	assert_int_equal(inv_event_list(f->inv, "", T0 + 10, 0, &ev, &n), 0);
	assert_int_equal(n, 3);
	assert_true(ev[0].time == T0 + 10);
	free(ev);

	assert_int_equal(inv_event_list(f->inv, "", NAN, 2, &ev, &n), 0);
	assert_int_equal(n, 2);                              /* the 2 newest */
	assert_true(ev[0].time == T0 + 20);
	assert_true(ev[1].time == T0 + 30);
	free(ev);

	assert_int_equal(inv_event_list(f->inv, "mac1", T0 + 5, 1, &ev, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ev[0].what, "cordoned");
	free(ev);

	ev = NULL;
	assert_int_equal(inv_event_list(f->inv, "mac9", NAN, 0, &ev, &n), 0);
	assert_int_equal(n, 0);
	free(ev);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_use_and_revoke, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clusters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
