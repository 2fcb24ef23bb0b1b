/*
 * ingest.c and ctrl.c: a stored report and an operator's command change a
 * node's state through one apply path (ctrl_apply_store).  The writer
 * checks each report against its node once, in arrival order (404 no such
 * node, 403 another Mac, 400 collected ahead of the clock, 409 older than
 * the stored one: nothing of it stored), stores what it changes with its
 * events, and tells the registry once the batch is committed.  On a real
 * inventory file, with the real writer thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>

#include "ctrl.h"
#include "ingest.h"
#include "lifecycle.h"
#include "registry.h"

#include "inventory_fixture.h"

#define AFTER 30.0     /* unreachable_after, seconds */

struct ifx {
	struct fx *f;
	struct ctrl c;
	struct inv *inv;          /* the store's connection (f->inv) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int answered;             /* items done */
};

/* The items a test submits: the report each stored is kept until it is done. */
struct sent {
	struct ingest_item *it;
	char *json;
};

static int
ifx_setup(void **state)
{
	struct ifx *x = calloc(1, sizeof(*x));
	void *fs;

	if (x == NULL || setup(&fs) != 0)
		return -1;
	x->f = fs;
	x->inv = x->f->inv;
	enrol(x->f, "mac1", UUID_A);   /* ready, its report collected and received at T0 */
	if (store_init(&x->c.store, x->inv) != 0 || (x->c.reg = registry_new()) == NULL ||
	    registry_load(x->c.reg, x->inv) != 0)
		return -1;
	x->c.unreachable_after = AFTER;
	if ((x->c.ingest = ingest_start(&x->c)) == NULL)
		return -1;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	*state = x;
	return 0;
}

static int
ifx_teardown(void **state)
{
	struct ifx *x = *state;
	void *fs = x->f;

	ingest_stop(x->c.ingest);
	ingest_free(x->c.ingest);
	registry_free(x->c.reg);
	store_fini(&x->c.store);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
	return teardown(&fs);
}

static void
answered(struct ingest_item *it, void *arg)
{
	struct ifx *x = arg;

	(void)it;
	pthread_mutex_lock(&x->mu);
	x->answered++;
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/*
 * Submit a report of uuid's Mac with node's token, collected at collected
 * (fill_report's full healthy report otherwise), received at now.
 */
static void
submit(struct ifx *x, struct sent *s, const char *node, const char *uuid, double collected,
    double now)
{
	struct report *r = report_new();
	char why[128];

	assert_non_null(r);
	fill_report(r, uuid, 0);
	r->collected_at = collected;
	assert_non_null(s->json = report_encode(r, 0));
	assert_non_null(s->it = ingest_item_new(x->c.ingest));
	snprintf(s->it->node, sizeof(s->it->node), "%s", node);
	snprintf(s->it->hardware_uuid, sizeof(s->it->hardware_uuid), "%s", uuid);
	inv_report_summarize(r, &s->it->sum);
	s->it->healthy = lc_report_healthy(r, why, sizeof(why));
	s->it->json = s->json;
	s->it->json_len = strlen(s->json);
	s->it->received_at = now;
	s->it->done = answered;
	s->it->arg = x;
	free(r);
	assert_int_equal(ingest_submit(x->c.ingest, s->it), 0);
}

/* Wait until n items in all were answered. */
static void
wait_answered(struct ifx *x, int n)
{
	pthread_mutex_lock(&x->mu);
	while (x->answered < n)
		pthread_cond_wait(&x->cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
}

static void
sent_free(struct ifx *x, struct sent *s)
{
	ingest_item_free(x->c.ingest, s->it);
	free(s->json);
}

struct command {
	struct ctrl *c;
	enum lc_command cmd;     /* -1: the passing of time (lc_on_tick) */
	const char *reason;
	double now;
};

/* store_fn: an operator's command (or a tick) on mac1, applied as the API applies it. */
static int
command_on_mac1(struct inv *inv, void *arg)
{
	struct command *a = arg;
	struct lc_result res;
	struct reg_node n;
	char err[256];

	(void)inv;
	if (registry_get_node(a->c->reg, "mac1", &n) != 0)
		return -1;
	if ((int)a->cmd == -1)
		lc_on_tick(&n.lc, a->now, a->c->unreachable_after, &res);
	else if (lc_on_command(&n.lc, a->cmd, a->reason, a->now, a->c->unreachable_after, &res,
	    err, sizeof(err)) != 0)
		return -1;
	return ctrl_apply(a->c, &n, &res, a->now, "admin:test");
}

static enum node_state
reg_state(struct ifx *x, struct reg_node *n)
{
	assert_int_equal(registry_get_node(x->c.reg, "mac1", n), 0);
	return n->lc.state;
}

/* How many of mac1's events are what. */
static int
events(struct ifx *x, const char *what)
{
	struct api_event *ev = NULL;
	int n = 0, k = 0;

	assert_int_equal(inv_event_list(x->inv, "mac1", 0, 100, &ev, &n), 0);
	for (int i = 0; i < n; i++)
		k += strcmp(ev[i].what, what) == 0;
	free(ev);
	return k;
}

/* The passing of time makes mac1 unreachable; a current healthy report brings it back. */
static void
test_report_and_tick_one_path(void **state)
{
	struct ifx *x = *state;
	struct command tick = { &x->c, (enum lc_command)-1, "", T0 + 100 };
	struct api_node an;
	struct reg_node n;
	struct sent s;

	assert_int_equal(store_with(&x->c.store, command_on_mac1, &tick), 0);
	assert_int_equal(reg_state(x, &n), NODE_UNREACHABLE);
	assert_int_equal(events(x, "state ready -> unreachable"), 1);

	submit(x, &s, "mac1", UUID_A, T0 + 200, T0 + 200.5);
	wait_answered(x, 1);
	assert_int_equal(s.it->status, 204);
	assert_int_equal(reg_state(x, &n), NODE_READY);
	assert_true(n.lc.last_collected_at == T0 + 200);
	assert_true(n.lc.last_report_at == T0 + 200.5);
	assert_int_equal(inv_node_get(x->inv, "mac1", &an), 0);
	assert_int_equal(an.state, NODE_READY);
	assert_string_equal(an.reason, "reporting again");
	assert_int_equal(events(x, "state unreachable -> ready"), 1);
	sent_free(x, &s);
}

/* Each refusal is the writer's, once, and stores nothing. */
static void
test_refusals_store_nothing(void **state)
{
	struct ifx *x = *state;
	struct sent s[4];
	int64_t samples = inv_samples_count(x->inv, "mac1");
	struct reg_node before, after;

	reg_state(x, &before);
	submit(x, &s[0], "nosuch", UUID_A, T0 + 10, T0 + 10);
	submit(x, &s[1], "mac1", UUID_B, T0 + 10, T0 + 10);
	submit(x, &s[2], "mac1", UUID_A, T0 + 10 + 2 * LC_CLOCK_SKEW_MAX, T0 + 10);
	submit(x, &s[3], "mac1", UUID_A, T0 - 5, T0 + 10);
	wait_answered(x, 4);
	assert_int_equal(s[0].it->status, 404);
	assert_non_null(strstr(s[0].it->error, "node nosuch is not in the inventory"));
	assert_int_equal(s[1].it->status, 403);
	assert_non_null(strstr(s[1].it->error, "another Mac"));
	assert_int_equal(s[2].it->status, 400);
	assert_non_null(strstr(s[2].it->error, "ahead of the controller's clock"));
	assert_int_equal(s[3].it->status, 409);
	assert_non_null(strstr(s[3].it->error, "older than node mac1's latest"));
	assert_int_equal(inv_samples_count(x->inv, "mac1"), samples);
	reg_state(x, &after);
	assert_true(after.lc.last_collected_at == before.lc.last_collected_at);
	for (int i = 0; i < 4; i++)
		sent_free(x, &s[i]);
}

/* Checked against what the batches before stored: a report older than one stored is refused. */
static void
test_order_is_the_writers(void **state)
{
	struct ifx *x = *state;
	struct reg_node n;
	struct sent s[2];

	submit(x, &s[0], "mac1", UUID_A, T0 + 20, T0 + 21);
	wait_answered(x, 1);
	submit(x, &s[1], "mac1", UUID_A, T0 + 15, T0 + 21);
	wait_answered(x, 2);
	assert_int_equal(s[0].it->status, 204);
	assert_int_equal(s[1].it->status, 409);
	reg_state(x, &n);
	assert_true(n.lc.last_collected_at == T0 + 20);
	for (int i = 0; i < 2; i++)
		sent_free(x, &s[i]);
}

/*
 * Two reports of one node in one batch: the second is checked against what
 * the first stored, not against the registry as it was before the batch
 * (an older second report would otherwise be stored over the newer one).
 * The writer lingers INGEST_LINGER_US for more items, so two submitted at
 * once share a batch; every round checks the rule, and at least one round
 * must have shared a batch for the test to have tested it.
 */
static void
test_order_within_a_batch(void **state)
{
	struct ifx *x = *state;
	struct reg_node n;
	struct sent s[2];
	int shared = 0, answered = 0;

	for (int r = 0; r < 20; r++) {
		double t = T0 + 100 + 10 * r;
		uint64_t before = atomic_load(&x->c.ctr.batches);

		submit(x, &s[0], "mac1", UUID_A, t, t + 1);
		submit(x, &s[1], "mac1", UUID_A, t - 5, t + 1);
		wait_answered(x, answered += 2);
		assert_int_equal(s[0].it->status, 204);
		assert_int_equal(s[1].it->status, 409);
		assert_non_null(strstr(s[1].it->error, "is older than node mac1's latest"));
		reg_state(x, &n);
		assert_true(n.lc.last_collected_at == t);
		shared += atomic_load(&x->c.ctr.batches) - before == 1;
		for (int i = 0; i < 2; i++)
			sent_free(x, &s[i]);
	}
	print_message("%d of 20 rounds had both reports in one batch\n", shared);
	assert_true(shared > 0);
}

struct pending_mac2 {
	struct fx *f;
	struct inv_node_key key;
};

/* store_fn: enrol UUID_B's Mac as mac2, pending. */
static int
add_pending_mac2(struct inv *inv, void *arg)
{
	struct pending_mac2 *a = arg;
	char err[256];

	(void)inv;   /* upsert() writes through the fixture's connection: the same one */
	fill_report(a->f->r, UUID_B, 0);
	return upsert(a->f, "mac2", "", NODE_PENDING, T0, &a->key, err, sizeof(err));
}

static void
accepted_of(void *ctx, const char *name, int accepted, const char *json, size_t len)
{
	(void)json;
	(void)len;
	if (strcmp(name, "mac2") == 0)
		*(int *)ctx = accepted;
}

/*
 * A pending node an operator accepts before it reports becomes ready at
 * its next healthy report: the flag goes in the inventory as in the
 * registry (the command and the report write it the same way).
 */
static void
test_accepted_then_reported(void **state)
{
	struct ifx *x = *state;
	struct pending_mac2 p = { .f = x->f };
	struct reg_node n = { 0 };
	struct lc_result res;
	char err[256];
	int accepted = -1;
	struct sent s;

	assert_int_equal(store_txn(&x->c.store, add_pending_mac2, &p), 0);
	n.id = p.key.id;
	snprintf(n.name, sizeof(n.name), "mac2");
	snprintf(n.hardware_uuid, sizeof(n.hardware_uuid), "%s", UUID_B);
	n.lc.state = NODE_PENDING;
	n.lc.last_collected_at = T0;
	n.lc.last_report_at = T0;
	n.lc.boot_time = x->f->r->node.boot_time;
	registry_put_node(x->c.reg, &n);

	/* accepted long after its last report: it stays pending, marked */
	assert_int_equal(lc_on_command(&n.lc, LC_ACCEPT, "", T0 + 100, AFTER, &res, err,
	    sizeof(err)), 0);
	assert_int_equal(res.state, NODE_PENDING);
	assert_int_equal(ctrl_apply(&x->c, &n, &res, T0 + 100, "admin:test"), 0);
	assert_int_equal(inv_node_each_state(x->inv, accepted_of, &accepted), 0);
	assert_int_equal(accepted, 1);

	submit(x, &s, "mac2", UUID_B, T0 + 110, T0 + 110);
	wait_answered(x, 1);
	assert_int_equal(s.it->status, 204);
	assert_int_equal(registry_get_node(x->c.reg, "mac2", &n), 0);
	assert_int_equal(n.lc.state, NODE_READY);
	assert_int_equal(n.lc.accepted, 0);
	assert_int_equal(inv_node_each_state(x->inv, accepted_of, &accepted), 0);
	assert_int_equal(accepted, 0);
	sent_free(x, &s);
}

struct rolled_back {
	struct ctrl *c;
	struct reg_node n;
};

/* store_fn: cordon mac1 in a transaction, then refuse it. */
static int
cordon_then_refuse(struct inv *inv, void *arg)
{
	struct rolled_back *a = arg;
	struct lc_result res;
	char err[256];

	(void)inv;
	if (lc_on_command(&a->n.lc, LC_CORDON, "maintenance", T0 + 1, AFTER, &res, err,
	    sizeof(err)) != 0 || ctrl_apply_store(a->c, &a->n, &res, T0 + 1, "admin:test") != 0)
		return -1;
	return INV_CONFLICT;
}

/* The inventory half inside a transaction: rolled back with it, the registry untouched. */
static void
test_apply_store_in_a_transaction(void **state)
{
	struct ifx *x = *state;
	struct rolled_back a = { .c = &x->c };
	struct api_node an;
	struct reg_node n;

	reg_state(x, &a.n);
	assert_int_equal(store_txn(&x->c.store, cordon_then_refuse, &a), INV_CONFLICT);
	assert_int_equal(reg_state(x, &n), NODE_READY);
	assert_int_equal(inv_node_get(x->inv, "mac1", &an), 0);
	assert_int_equal(an.state, NODE_READY);
	assert_int_equal(events(x, "state ready -> cordoned"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_report_and_tick_one_path, ifx_setup,
		    ifx_teardown),
		cmocka_unit_test_setup_teardown(test_refusals_store_nothing, ifx_setup,
		    ifx_teardown),
		cmocka_unit_test_setup_teardown(test_order_is_the_writers, ifx_setup,
		    ifx_teardown),
		cmocka_unit_test_setup_teardown(test_order_within_a_batch, ifx_setup,
		    ifx_teardown),
		cmocka_unit_test_setup_teardown(test_accepted_then_reported, ifx_setup,
		    ifx_teardown),
		cmocka_unit_test_setup_teardown(test_apply_store_in_a_transaction, ifx_setup,
		    ifx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
