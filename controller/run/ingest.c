/*
 * The writer thread: take the whole queue, store it in one transaction with
 * the lifecycle decisions each report implies, commit, answer.  Each report
 * is checked here, once, against its node as the registry has it when the
 * report's batch is written, or, when an earlier report of the same node
 * was stored in the same batch, as that report left it (so that the older
 * of two reports in one batch is refused as it would be in two).
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

int
ingest_node_check(struct ctrl *c, const char *node, const char *hardware_uuid,
    struct reg_node *n, char *err, size_t errlen)
{
	if (registry_get_node(c->reg, node, n) == -1) {
		snprintf(err, errlen, "node %s is not in the inventory (removed?)", node);
		return 404;
	}
	if (strcmp(n->hardware_uuid, hardware_uuid) != 0) {
		snprintf(err, errlen, "this token is node %s's; the report is from another Mac "
		    "(hardware %s)", n->name, hardware_uuid);
		return 403;
	}
	return 0;
}

int
ingest_report_time(const struct lc_node *lc, const char *node, double collected_at,
    double now, double unreachable_after, enum lc_report_time *when, char *err,
    size_t errlen)
{
	switch ((*when = lc_report_time(lc, collected_at, now, unreachable_after))) {
	case LC_REPORT_AHEAD:
		snprintf(err, errlen, "bad report: collected_at is %.0f s ahead of the "
		    "controller's clock (at most %.0f s allowed): check the Mac's clock",
		    collected_at - now, LC_CLOCK_SKEW_MAX);
		return 400;
	case LC_REPORT_OLDER:   /* another report overtook it */
		snprintf(err, errlen, "the report (collected_at %.3f) is older than node %s's "
		    "latest (%.3f)", collected_at, node, lc->last_collected_at);
		return 409;
	default:
		return 0;
	}
}

/* The node's lifecycle view once it is stored: as res leaves it, and the report's. */
static void
stored_lc(const struct ingest_item *it, enum lc_report_time when, const struct lc_result *res,
    struct lc_node *lc)
{
	ctrl_lc_apply(lc, res);
	if (!isnan(it->sum.collected_at))
		lc->last_collected_at = it->sum.collected_at;
	if (!isnan(it->sum.boot_time))
		lc->boot_time = it->sum.boot_time;
	if (when == LC_REPORT_CURRENT) {   /* as the node's row keeps it (inv_report_store) */
		lc->last_report_at = it->received_at;
		lc->last_report_healthy = it->healthy;
	}
}

/*
 * Store one report and what it changes, in the batch's transaction: 0 with
 * it->status 204 and the node's view after it in *lc_out, or 0 with the
 * refusal in it (nothing of it stored), or -1 when the inventory failed.
 * prior: the node's view after an earlier report of the batch, or NULL.
 */
static int
store_one(struct ctrl *c, struct inv *inv, struct ingest_item *it, const struct lc_node *prior,
    struct lc_node *lc_out)
{
	struct reg_node n;
	struct lc_result res;
	enum lc_report_time when;

	if ((it->status = ingest_node_check(c, it->node, it->hardware_uuid, &n, it->error,
	    sizeof(it->error))) != 0)
		return 0;
	if (prior != NULL)
		n.lc = *prior;   /* an earlier report of this batch was stored */
	if ((it->status = ingest_report_time(&n.lc, it->node, it->sum.collected_at,
	    it->received_at, c->unreachable_after, &when, it->error, sizeof(it->error))) != 0)
		return 0;
	if (when == LC_REPORT_CURRENT)
		lc_on_report_seen(&n.lc, it->sum.boot_time, it->healthy, it->received_at, &res);
	else   /* stored as the latest known; it changes no state */
		lc_on_stale_report(&n.lc, it->sum.boot_time, &res);
	struct inv_report_in in = { .node_id = n.id, .received_at = it->received_at,
		.sum = &it->sum, .json = it->json, .json_len = it->json_len,
		.stale = when == LC_REPORT_STALE };
	int rc = inv_report_store(inv, &in);
	if (rc == INV_NOTFOUND) {
		it->status = 404;
		snprintf(it->error, sizeof(it->error), "node %s was removed", it->node);
		return 0;
	}
	if (rc != 0 ||
	    (res.changed && ctrl_apply_store(c, &n, &res, it->received_at, "controller") != 0))
		return -1;
	*lc_out = n.lc;
	stored_lc(it, when, &res, lc_out);
	it->status = 204;
	return 0;
}

struct batch {
	struct ctrl *c;
	struct ingest_item *items;
	struct lc_node *lcs;         /* each stored item's node view after it */
	struct ingest_item **stored; /* by node: the batch's last stored item (hashed) */
	int *stored_at;              /* its index in lcs */
	size_t slots;                /* a power of two, at least twice n */
};

static size_t
name_hash(const char *s)
{
	size_t h = 2166136261u;      /* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of it's node among the batch's stored items (empty or its own). */
static size_t
stored_slot(const struct batch *b, const struct ingest_item *it)
{
	size_t k = name_hash(it->node) & (b->slots - 1);

	while (b->stored[k] != NULL && strcmp(b->stored[k]->node, it->node) != 0)
		k = (k + 1) & (b->slots - 1);
	return k;
}

/* store_fn: every item of the batch; -1 rolls them all back. */
static int
store_batch(struct inv *inv, void *arg)
{
	struct batch *b = arg;
	int i = 0;

	memset(b->stored, 0, b->slots * sizeof(*b->stored));
	for (struct ingest_item *it = b->items; it != NULL; it = it->next, i++) {
		size_t k = stored_slot(b, it);
		const struct lc_node *prior = b->stored[k] ? &b->lcs[b->stored_at[k]] : NULL;

		if (store_one(b->c, inv, it, prior, &b->lcs[i]) == -1)
			return -1;
		if (it->status == 204) {
			b->stored[k] = it;
			b->stored_at[k] = i;
		}
	}
	return 0;
}

/*
 * One batch: a transaction over the items; on failure every item gets 503.
 * Once it is committed, the registry and the wiring monitor learn what it
 * stored.
 */
static void
write_batch(struct ctrl *c, struct ingest_item *batch, int n)
{
	struct batch b = { c, batch, calloc((size_t)n, sizeof(*b.lcs)), NULL, NULL, 16 };
	int ok, i = 0;

	while (b.slots < 2 * (size_t)n)
		b.slots *= 2;
	b.stored = calloc(b.slots, sizeof(*b.stored));
	b.stored_at = calloc(b.slots, sizeof(*b.stored_at));
	ok = b.lcs != NULL && b.stored != NULL && b.stored_at != NULL &&
	    store_txn(&c->store, store_batch, &b) == 0;

	for (struct ingest_item *it = batch, *next; it != NULL; it = next, i++) {
		next = it->next;
		if (!ok) {
			it->status = 503;
			snprintf(it->error, sizeof(it->error), "the inventory could not store it");
		} else if (it->status == 204) {
			registry_set_lc(c->reg, it->node, &b.lcs[i]);
			wmon_apply(c->wmon, it->wiring);   /* stored: now it counts */
			it->wiring = NULL;
			atomic_fetch_add(&c->ctr.reports_ingested, 1);
		}
		it->done(it, it->arg);
	}
	atomic_fetch_add(&c->ctr.batches, 1);
	free(b.lcs);
	free(b.stored);
	free(b.stored_at);
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
