/* The inventory's lock (see store.h). */
#include "store.h"

int
store_init(struct store *s, struct inv *inv)
{
	s->inv = inv;
	return pthread_mutex_init(&s->mu, NULL) == 0 ? 0 : -1;
}

void
store_fini(struct store *s)
{
	pthread_mutex_destroy(&s->mu);
}

int
store_with(struct store *s, store_fn fn, void *arg)
{
	pthread_mutex_lock(&s->mu);
	int rc = fn(s->inv, arg);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int
store_txn(struct store *s, store_fn fn, void *arg)
{
	int rc;

	pthread_mutex_lock(&s->mu);
	if (inv_begin(s->inv) != 0) {
		pthread_mutex_unlock(&s->mu);
		return -1;
	}
	rc = fn(s->inv, arg);
	if (rc == 0 && inv_commit(s->inv) != 0)
		rc = -1;
	else if (rc != 0)
		inv_rollback(s->inv);
	pthread_mutex_unlock(&s->mu);
	return rc;
}
