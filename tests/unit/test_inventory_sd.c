/*
 * inventory_sd: what service discovery reads of every node (name, cluster,
 * state, model, the latest report's agent.listen, the SSH host), in name
 * order, following the reports and the SSH address as they change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inventory_fixture.h"

/* Store a full report of uuid with agent.listen = listen ("" none) as name; its id. */
static int64_t
store(struct fx *f, const char *name, const char *uuid, const char *listen)
{
	struct inv_node_key key;
	char err[256] = "";

	fill_report(f->r, uuid, 0);
	REPORT_SET(f->r->agent.listen, listen);
	assert_int_equal(inv_begin(f->inv), 0);
	if (upsert(f, name, "", NODE_READY, T0, &key, err, sizeof(err)) != 0)
		fail_msg("upsert %s: %s", name, err);
	assert_int_equal(inv_commit(f->inv), 0);
	return key.id;
}

static void
test_sd_nodes(void **state)
{
	struct fx *f = *state;
	struct prom_sd_node *nd = NULL;
	struct ro_ssh ssh = { .port = 22 };
	int n = -1;

	assert_int_equal(inv_sd_nodes(f->inv, &nd, &n), 0);
	assert_int_equal(n, 0);
	free(nd);

	store(f, "mac2", UUID_B, "");
	store(f, "mac1", UUID_A, "0.0.0.0:9469");
	assert_int_equal(inv_cluster_add(f->inv, "studio4", T0), 0);
	assert_int_equal(inv_cluster_set_node(f->inv, "studio4", "mac1"), 0);
	assert_int_equal(inv_sd_nodes(f->inv, &nd, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(nd[0].name, "mac1");
	assert_string_equal(nd[0].cluster, "studio4");
	assert_int_equal(nd[0].state, NODE_READY);
	assert_string_equal(nd[0].model, "Mac15,14");
	assert_string_equal(nd[0].listen, "0.0.0.0:9469");
	assert_string_equal(nd[0].ssh_host, "");
	assert_string_equal(nd[1].name, "mac2");
	assert_string_equal(nd[1].cluster, "");
	assert_string_equal(nd[1].listen, "");
	free(nd);

	/* an SSH address, a new listen address, another state */
	REPORT_SET(ssh.node, "mac1");
	REPORT_SET(ssh.host, "10.0.0.11");
	REPORT_SET(ssh.user, "admin");
	assert_int_equal(inv_ssh_set(f->inv, &ssh), 0);
	int64_t mac2 = store(f, "mac2", UUID_B, "10.0.0.12:9469");
	assert_int_equal(inv_node_set_state(f->inv, mac2, NODE_CORDONED, "cable", 0), 0);
	assert_int_equal(inv_sd_nodes(f->inv, &nd, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(nd[0].ssh_host, "10.0.0.11");
	assert_string_equal(nd[1].listen, "10.0.0.12:9469");
	assert_int_equal(nd[1].state, NODE_CORDONED);
	free(nd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sd_nodes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
