/*
 * The writer thread: take the whole queue, store it in one transaction with
 * the lifecycle decisions each report implies, commit, answer.
 */
#include "ingest.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "lifecycle.h"
#include "log.h"
#include "wmon.h"

struct ingest {
	struct ctrl *c;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ingest_item *head, *tail;
	int n, stopping;
	int lingering;               /* the writer waits for a fuller batch */
	pthread_mutex_t free_mu;
	struct ingest_item *free;    /* items to reuse, at most INGEST_QUEUE_MAX */
	int nfree;
};

struct ingest_item *
ingest_item_new(struct ingest *in)
{
	struct ingest_item *it;

	pthread_mutex_lock(&in->free_mu);
	if ((it = in->free) != NULL) {
		in->free = it->next;
		in->nfree--;
	}
	pthread_mutex_unlock(&in->free_mu);
	if (it == NULL && (it = malloc(sizeof(*it))) == NULL)
		return NULL;
	memset(it, 0, sizeof(*it));
	return it;
}

void
ingest_item_free(struct ingest *in, struct ingest_item *it)
{
	if (it == NULL)
		return;
	wmon_staged_free(it->wiring);
	it->wiring = NULL;
	free(it->json_owned);
	it->json_owned = NULL;
	pthread_mutex_lock(&in->free_mu);
	if (in->nfree < INGEST_QUEUE_MAX) {
		it->next = in->free;
		in->free = it;
		in->nfree++;
		it = NULL;
	}
	pthread_mutex_unlock(&in->free_mu);
	free(it);
}

int
ingest_submit(struct ingest *in, struct ingest_item *it)
{
	pthread_mutex_lock(&in->mu);
	if (in->stopping || in->n >= INGEST_QUEUE_MAX) {
		pthread_mutex_unlock(&in->mu);
		return -1;
	}
	it->next = NULL;
	if (in->tail)
		in->tail->next = it;
	else
		in->head = it;
	in->tail = it;
	in->n++;
	if (!in->lingering || in->n >= INGEST_LINGER_BATCH)
		pthread_cond_signal(&in->cv);
	pthread_mutex_unlock(&in->mu);
	return 0;
}

/* Store one report and what it changes; inv_mu held, transaction open. */
static int
store_one(struct ctrl *c, struct ingest_item *it, struct lc_node *lc_out)
{
	struct reg_node n;
	struct lc_result res;

	if (registry_get_node(c->reg, it->node, &n) == -1) {
		it->status = 404;
		snprintf(it->error, sizeof(it->error), "node %s was removed", it->node);
		return 0;
	}
	enum lc_report_time when = lc_report_time(&n.lc, it->sum.collected_at, it->received_at,
	    c->unreachable_after);
	if (when == LC_REPORT_OLDER) {   /* another report overtook it */
		it->status = 409;
		snprintf(it->error, sizeof(it->error), "the report is older than node %s's "
		    "latest", it->node);
		return 0;
	}
	if (when == LC_REPORT_CURRENT)
		lc_on_report_seen(&n.lc, it->sum.boot_time, it->healthy, it->received_at, &res);
	else   /* stored as the latest known; it changes no state */
		lc_on_stale_report(&n.lc, it->sum.boot_time, &res);
	struct inv_report_in in = { .node_id = n.id, .received_at = it->received_at,
		.sum = &it->sum, .json = it->json, .json_len = it->json_len,
		.stale = when == LC_REPORT_STALE };
	int rc = inv_report_store(c->inv, &in);
	if (rc == INV_NOTFOUND) {
		it->status = 404;
		snprintf(it->error, sizeof(it->error), "node %s was removed", it->node);
		return 0;
	}
	if (rc != 0)
		return -1;
	if (res.changed) {
		if (inv_node_set_state(c->inv, n.id, res.state, res.reason,
		    res.unexpected_reboot) == -1)
			return -1;
		if (res.what[0])
			ctrl_event(c, it->received_at, "controller", n.name, res.what,
			    res.event_reason);
		if (res.what2[0])
			ctrl_event(c, it->received_at, "controller", n.name, res.what2,
			    res.event_reason2);
	}
	*lc_out = n.lc;
	memcpy(lc_out->reason, res.reason, sizeof(lc_out->reason));
	lc_out->state = res.state;
	lc_out->unexpected_reboot = res.unexpected_reboot;
	lc_out->accepted = res.accepted;
	if (!isnan(it->sum.collected_at))
		lc_out->last_collected_at = it->sum.collected_at;
	if (!isnan(it->sum.boot_time))
		lc_out->boot_time = it->sum.boot_time;
	if (when == LC_REPORT_CURRENT) {   /* as the node's row keeps it (inv_report_store) */
		lc_out->last_report_at = it->received_at;
		lc_out->last_report_healthy = it->healthy;
	}
	it->status = 204;
	return 0;
}

/* One batch: a transaction over the items; on failure every item gets 503. */
static void
write_batch(struct ctrl *c, struct ingest_item *batch, int n)
{
	struct lc_node *lcs = calloc((size_t)n, sizeof(*lcs));
	int ok = lcs != NULL;
	int i = 0;

	pthread_mutex_lock(&c->inv_mu);
	if (ok && inv_begin(c->inv) == -1)
		ok = 0;
	for (struct ingest_item *it = batch; ok && it != NULL; it = it->next, i++)
		if (store_one(c, it, &lcs[i]) == -1)
			ok = 0;
	if (ok && inv_commit(c->inv) == -1)
		ok = 0;
	if (!ok)
		inv_rollback(c->inv);
	pthread_mutex_unlock(&c->inv_mu);

	i = 0;
	for (struct ingest_item *it = batch, *next; it != NULL; it = next, i++) {
		next = it->next;
		if (!ok) {
			it->status = 503;
			snprintf(it->error, sizeof(it->error), "the inventory could not store it");
		} else if (it->status == 204) {
			registry_set_lc(c->reg, it->node, &lcs[i]);
			wmon_apply(c->wmon, it->wiring);   /* stored: now it counts */
			it->wiring = NULL;
			atomic_fetch_add(&c->ctr.reports_ingested, 1);
		}
		it->done(it, it->arg);
	}
	atomic_fetch_add(&c->ctr.batches, 1);
	free(lcs);
}

/*
 * A few reports queued: give the others on their way INGEST_LINGER_US to
 * join the batch, since a commit costs much the same for 5 reports as for
 * 50 (its sync above all).  in->mu held.
 */
static void
linger(struct ingest *in)
{
	struct timespec ts;

	if (in->stopping || in->n >= INGEST_LINGER_BATCH)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += INGEST_LINGER_US * 1000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	in->lingering = 1;
	while (!in->stopping && in->n < INGEST_LINGER_BATCH &&
	    pthread_cond_timedwait(&in->cv, &in->mu, &ts) != ETIMEDOUT)
		;
	in->lingering = 0;
}

static void *
writer(void *arg)
{
	struct ingest *in = arg;

	for (;;) {
		pthread_mutex_lock(&in->mu);
		while (in->head == NULL && !in->stopping)
			pthread_cond_wait(&in->cv, &in->mu);
		if (in->head == NULL && in->stopping) {
			pthread_mutex_unlock(&in->mu);
			return NULL;
		}
		linger(in);
		struct ingest_item *batch = in->head, *last = batch;
		int n = 1;
		while (last->next != NULL && n < INGEST_BATCH_MAX) {
			last = last->next;
			n++;
		}
		in->head = last->next;
		if (in->head == NULL)
			in->tail = NULL;
		last->next = NULL;
		in->n -= n;
		pthread_mutex_unlock(&in->mu);
		write_batch(in->c, batch, n);
	}
}

struct ingest *
ingest_start(struct ctrl *c)
{
	struct ingest *in = calloc(1, sizeof(*in));

	if (in == NULL)
		return NULL;
	in->c = c;
	pthread_mutex_init(&in->mu, NULL);
	pthread_mutex_init(&in->free_mu, NULL);
	pthread_cond_init(&in->cv, NULL);
	if (pthread_create(&in->thread, NULL, writer, in) != 0) {
		pthread_mutex_destroy(&in->mu);
		pthread_mutex_destroy(&in->free_mu);
		pthread_cond_destroy(&in->cv);
		free(in);
		return NULL;
	}
	return in;
}

void
ingest_stop(struct ingest *in)
{
	if (in == NULL)
		return;
	pthread_mutex_lock(&in->mu);
	in->stopping = 1;
	pthread_cond_signal(&in->cv);
	pthread_mutex_unlock(&in->mu);
	pthread_join(in->thread, NULL);
}

void
ingest_free(struct ingest *in)
{
	if (in == NULL)
		return;
	while (in->free != NULL) {
		struct ingest_item *it = in->free;
		in->free = it->next;
		free(it);
	}
	pthread_mutex_destroy(&in->mu);
	pthread_mutex_destroy(&in->free_mu);
	pthread_cond_destroy(&in->cv);
	free(in);
}
