/*
 * The inventory's models and placements (inventory_placement.c) on a real
 * SQLite file: models added once, placements stored with the bytes they
 * hold per node, reserved sums (but one placement), active placements of a
 * node, state changes, removal (its nodes go with it), a reopen keeps all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "inventory_placement.h"
#include "inventory_fixture.h"

static int
count_models(void *arg, const char *name, const char *json)
{
	int *n = arg;

	(*n)++;
	assert_string_equal(name, "m1");
	assert_string_equal(json, "{\"name\":\"m1\"}");
	return 0;
}

static int64_t
add(struct inv *inv, const char *state, int n, const char *const *nodes, const int64_t *bytes)
{
	struct inv_placement_in in = { "m1:4bit", "lab", "pipeline", state, 100.0,
		"{\"plan\":1}", n, nodes, bytes };
	int64_t id = 0;

	assert_int_equal(inv_placement_add(inv, &in, &id), 0);
	assert_true(id > 0);
	return id;
}

static void
test_models(void **state)
{
	struct fx *f = *state;
	int n = 0;

	assert_int_equal(inv_model_add(f->inv, "m1", "{\"name\":\"m1\"}", 1.0), 0);
	assert_int_equal(inv_model_add(f->inv, "m1", "{\"name\":\"m1\"}", 2.0), INV_CONFLICT);
	assert_int_equal(inv_model_each(f->inv, count_models, &n), 0);
	assert_int_equal(n, 1);
}

static void
test_placements(void **state)
{
	struct fx *f = *state;
	const char *n1[] = { "mac1", "mac2" }, *n2[] = { "mac2" };
	int64_t b1[] = { 100, 200 }, b2[] = { 50 };
	struct inv_placement *list, one;
	int64_t *ids;
	int n;

	int64_t a = add(f->inv, "active", 2, n1, b1);
	int64_t b = add(f->inv, "active", 1, n2, b2);
	assert_int_equal(inv_placement_reserved(f->inv, "mac2", 0), 250);
	assert_int_equal(inv_placement_reserved(f->inv, "mac2", a), 50);
	assert_int_equal(inv_placement_reserved(f->inv, "mac9", 0), 0);
	assert_int_equal(inv_placements_on_node(f->inv, "mac2", &ids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], a);
	free(ids);
	assert_int_equal(inv_placement_set_state(f->inv, a, "degraded", "mac1 is down"), 0);
	assert_int_equal(inv_placements_on_node(f->inv, "mac2", &ids, &n), 0);
	assert_int_equal(n, 1);   /* only the active ones */
	assert_int_equal(ids[0], b);
	free(ids);
	assert_int_equal(inv_placement_get(f->inv, a, &one), 0);
	assert_string_equal(one.state, "degraded");
	assert_string_equal(one.reason, "mac1 is down");
	assert_string_equal(one.json, "{\"plan\":1}");
	free(one.json);
	assert_int_equal(inv_placement_remove(f->inv, a), 0);
	assert_int_equal(inv_placement_remove(f->inv, a), INV_NOTFOUND);
	assert_int_equal(inv_placement_get(f->inv, a, &one), INV_NOTFOUND);
	assert_int_equal(inv_placement_set_state(f->inv, a, "active", ""), INV_NOTFOUND);
	/* its nodes' bytes went with it */
	assert_int_equal(inv_placement_reserved(f->inv, "mac1", 0), 0);
	assert_int_equal(inv_placement_reserved(f->inv, "mac2", 0), 50);
	/* a reopen keeps what is left; ids are not reused */
	char err[256];
	inv_close(f->inv);
	f->inv = inv_open(f->path, err, sizeof(err));
	assert_non_null(f->inv);
	assert_int_equal(inv_placement_list(f->inv, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].id, b);
	inv_placements_free(list, n);
	assert_true(add(f->inv, "active", 1, n2, b2) > b);
}

/* Placements an OS update campaign stops and gives back. */
static void
test_rollout_stop(void **state)
{
	struct fx *f = *state;
	const char *n1[] = { "mac1", "mac2" }, *n2[] = { "mac3" };
	int64_t b1[] = { 100, 200 }, b2[] = { 50 };
	struct inv_placement one;
	api_name *names;
	int64_t *ids;
	int n;

	int64_t a = add(f->inv, "active", 2, n1, b1);
	int64_t b = add(f->inv, "degraded", 1, n2, b2);
	/* rolling: those on mac2 only; lockstep (NULL): the whole cluster */
	assert_int_equal(inv_placements_to_stop(f->inv, "lab", "mac2", 7, &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], a);
	free(ids);
	assert_int_equal(inv_placements_to_stop(f->inv, "other", NULL, 7, &ids, &n), 0);
	assert_int_equal(n, 0);
	free(ids);
	assert_int_equal(inv_placements_to_stop(f->inv, "lab", NULL, 7, &ids, &n), 0);
	assert_int_equal(n, 2);
	free(ids);
	assert_int_equal(inv_placement_stop(f->inv, a, 7, "drained by rollout 7"), 0);
	assert_int_equal(inv_placement_stop(f->inv, 999, 7, "x"), INV_NOTFOUND);
	/* stopped once: not again by the same campaign (a rerun after a crash) */
	assert_int_equal(inv_placements_to_stop(f->inv, "lab", NULL, 7, &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], b);
	free(ids);
	assert_int_equal(inv_placements_stopped_by(f->inv, 7, &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], a);
	free(ids);
	assert_int_equal(inv_placement_get(f->inv, a, &one), 0);
	assert_string_equal(one.state, "degraded");
	assert_string_equal(one.reason, "drained by rollout 7");
	free(one.json);
	/* its memory stays reserved while it is stopped */
	assert_int_equal(inv_placement_reserved(f->inv, "mac2", 0), 200);
	assert_int_equal(inv_placement_nodes(f->inv, a, &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "mac1");
	assert_string_equal(names[1], "mac2");
	free(names);
	assert_int_equal(inv_placement_release(f->inv, a, "active", ""), 0);
	assert_int_equal(inv_placements_stopped_by(f->inv, 7, &ids, &n), 0);
	assert_int_equal(n, 0);
	free(ids);
	assert_int_equal(inv_placement_get(f->inv, a, &one), 0);
	assert_string_equal(one.state, "active");
	free(one.json);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_models, setup, teardown),
		cmocka_unit_test_setup_teardown(test_placements, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollout_stop, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
