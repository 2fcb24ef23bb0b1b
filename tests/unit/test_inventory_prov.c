/*
 * inventory_prov: a provisioning run stored, its lines and steps appended,
 * read back whole, and runs cut short by a stopped controller marked
 * failed, in a real SQLite file.
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
#include <unistd.h>

#include "inventory.h"
#include "prov_api.h"

#include "inventory_fixture.h"

static void
test_run_stored(void **state)
{
	struct fx *f = *state;
	struct prov_api_status *s = calloc(1, sizeof(*s)), *g = calloc(1, sizeof(*g));
	struct prov_api_line l = { "macOS", "pass", "macOS 26.2 (25C56): 26.2 or later" };
	struct prov_api_step st = { "pmset-sleep", "no system sleep", "applied",
		"pmset -a sleep 0", "" };

	strcpy(s->kind, "add");
	strcpy(s->host, "127.0.0.2");
	s->port = 2222;
	strcpy(s->user, "admin");
	strcpy(s->state, "running");
	s->started_at = 1000.5;
	s->finished_at = NAN;
	assert_int_equal(inv_prov_add(f->inv, s), 0);
	assert_true(s->id > 0);
	assert_int_equal(inv_prov_line(f->inv, s->id, 0, &l), 0);
	assert_int_equal(inv_prov_step(f->inv, s->id, 0, &st), 0);
	strcpy(st.outcome, "undone");
	assert_int_equal(inv_prov_step(f->inv, s->id, 1, &st), 0);
	assert_int_equal(inv_prov_step(f->inv, s->id, 1, &st), -1);   /* one row per ord */
	strcpy(s->node, "mac1");
	strcpy(s->state, "ready");
	strcpy(s->manual, "boot into Recovery, Terminal, rdma_ctl enable, reboot");
	s->finished_at = 1010;
	assert_int_equal(inv_prov_update(f->inv, s), 0);
	assert_int_equal(inv_prov_get(f->inv, s->id, g), 0);
	assert_string_equal(g->state, "ready");
	assert_string_equal(g->node, "mac1");
	assert_string_equal(g->host, "127.0.0.2");
	assert_int_equal(g->port, 2222);
	assert_string_equal(g->user, "admin");
	assert_string_equal(g->key_file, "");
	assert_int_equal(inv_prov_last_add(f->inv, "mac1"), s->id);
	assert_int_equal(inv_prov_last_add(f->inv, "mac2"), 0);
	char fp[80];
	assert_int_equal(inv_prov_host_key(f->inv, "127.0.0.2", 2222, fp, sizeof(fp)), 0);
	assert_string_equal(fp, "");   /* none was pinned */
	strcpy(s->fingerprint, "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s");
	assert_int_equal(inv_prov_update(f->inv, s), 0);
	assert_int_equal(inv_prov_host_key(f->inv, "127.0.0.2", 2222, fp, sizeof(fp)), 0);
	assert_string_equal(fp, s->fingerprint);
	assert_int_equal(inv_prov_host_key(f->inv, "127.0.0.2", 22, fp, sizeof(fp)), 0);
	assert_string_equal(fp, "");
	assert_true(g->started_at == 1000.5);
	assert_true(g->finished_at == 1010);
	assert_string_equal(g->manual, s->manual);
	assert_int_equal(g->n_preflight, 1);
	assert_string_equal(g->preflight[0].text, l.text);
	assert_int_equal(g->n_steps, 2);
	assert_string_equal(g->steps[0].outcome, "applied");
	assert_string_equal(g->steps[1].outcome, "undone");
	assert_string_equal(g->steps[0].command, "pmset -a sleep 0");
	assert_string_equal(g->steps[0].detail, "");
	assert_string_equal(g->reason, "");
	assert_int_equal(inv_prov_get(f->inv, s->id + 1, g), INV_NOTFOUND);
	free(s);
	free(g);
}

static void
test_interrupted(void **state)
{
	struct fx *f = *state;
	struct prov_api_status *s = calloc(1, sizeof(*s));
	int64_t running, done;

	strcpy(s->kind, "add");
	strcpy(s->host, "h1");
	strcpy(s->state, "waiting");
	s->started_at = 1;
	s->finished_at = NAN;
	assert_int_equal(inv_prov_add(f->inv, s), 0);
	running = s->id;
	strcpy(s->state, "ready");
	assert_int_equal(inv_prov_add(f->inv, s), 0);
	done = s->id;
	assert_int_equal(inv_prov_interrupted(f->inv, 50, "the controller stopped during the run"),
	    1);
	assert_int_equal(inv_prov_get(f->inv, running, s), 0);
	assert_string_equal(s->state, "failed");
	assert_string_equal(s->reason, "the controller stopped during the run");
	assert_true(s->finished_at == 50);
	assert_int_equal(inv_prov_get(f->inv, done, s), 0);
	assert_string_equal(s->state, "ready");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
