/*
 * store.c: a function run in store_txn is committed when it returns 0 and
 * rolled back otherwise (its value passed through), store_with returns its
 * function's value, and the lock is released either way (another thread
 * gets it), on a real SQLite file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "store.h"

#include "inventory_fixture.h"

struct add {
	const char *a, *b;   /* two clusters to add */
	int then;            /* what the function returns after adding them */
};

static int
add_two(struct inv *inv, void *arg)
{
	struct add *x = arg;

	if (inv_cluster_add(inv, x->a, T0) != 0 || inv_cluster_add(inv, x->b, T0) != 0)
		return -1;
	return x->then;
}

static int
count_clusters(struct inv *inv, void *arg)
{
	struct api_cluster *list = NULL;
	int n = 0;

	(void)arg;
	if (inv_cluster_list(inv, &list, &n) != 0)
		return -1;
	free(list);
	return n;
}

static void
test_txn_commit_and_rollback(void **state)
{
	struct fx *f = *state;
	struct store s;
	struct add ok = { "c1", "c2", 0 }, refused = { "c3", "c4", INV_CONFLICT },
	    failed = { "c5", "c6", -1 }, dup = { "c7", "c1", 0 };

	assert_int_equal(store_init(&s, f->inv), 0);
	assert_int_equal(store_with(&s, count_clusters, NULL), 0);
	assert_int_equal(store_txn(&s, add_two, &ok), 0);
	assert_int_equal(store_with(&s, count_clusters, NULL), 2);
	/* a function's refusal comes back as it is, and nothing of it stays */
	assert_int_equal(store_txn(&s, add_two, &refused), INV_CONFLICT);
	assert_int_equal(store_txn(&s, add_two, &failed), -1);
	assert_int_equal(store_with(&s, count_clusters, NULL), 2);
	/* c7 was added before c1 was refused: rolled back with it */
	assert_int_equal(store_txn(&s, add_two, &dup), -1);
	assert_int_equal(store_with(&s, count_clusters, NULL), 2);
	store_fini(&s);
}

static void *
locker(void *arg)
{
	struct store *s = arg;

	return (void *)(intptr_t)store_with(s, count_clusters, NULL);
}

static void
test_lock_released(void **state)
{
	struct fx *f = *state;
	struct store s;
	struct add refused = { "c1", "c2", INV_NOTFOUND };
	pthread_t t;
	void *ret;

	assert_int_equal(store_init(&s, f->inv), 0);
	assert_int_equal(store_txn(&s, add_two, &refused), INV_NOTFOUND);
	/* the lock was released on the rollback path: another thread takes it */
	assert_int_equal(pthread_create(&t, NULL, locker, &s), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal((int)(intptr_t)ret, 0);
	assert_int_equal(pthread_mutex_trylock(&s.mu), 0);
	pthread_mutex_unlock(&s.mu);
	store_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_txn_commit_and_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_released, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
