/* The ticker (see tick.h). */
#include "tick.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl.h"
#include "lifecycle.h"
#include "log.h"

#define TICK_INTERVAL_MS 500
#define TICK_PRUNE_EVERY 60.0    /* seconds */

struct ticker {
	struct ctrl *c;
	pthread_t thread;
	int wake[2];             /* a byte written to wake[1] stops the thread */
};

struct tick_arg {
	double now, unreachable_after;
};

static int
tick_due(const struct lc_node *lc, void *arg)
{
	const struct tick_arg *ta = arg;

	return lc_tick_due(lc, ta->now, ta->unreachable_after);
}

/* One node's tick, run with the inventory's lock held. */
struct tick_node {
	struct ctrl *c;
	const char *name;
	double now;
};

static int
tick_node(struct inv *inv, void *arg)
{
	const struct tick_node *tn = arg;
	struct ctrl *c = tn->c;
	struct lc_result res;
	struct reg_node cur;

	(void)inv;      /* ctrl_apply() writes through c */
	if (registry_get_node(c->reg, tn->name, &cur) != 0)
		return 0;
	lc_on_tick(&cur.lc, tn->now, c->unreachable_after, &res);
	if (res.changed)
		ctrl_apply(c, &cur, &res, tn->now, "controller");
	return 0;
}

/*
 * The nodes time changes are picked under the registry's lock, without
 * copying the others; each is then decided again under the inventory's.
 */
void
tick_once(struct ctrl *c, double now)
{
	struct tick_arg ta = { .now = now, .unreachable_after = c->unreachable_after };
	api_name *names;
	int n;

	if (registry_select(c->reg, tick_due, &ta, &names, &n) == -1)
		return;
	for (int i = 0; i < n; i++) {
		struct tick_node tn = { c, names[i], now };
		store_with(&c->store, tick_node, &tn);
	}
	free(names);
}

struct prune {
	double before;
	int64_t gone;
};

static int
prune_samples(struct inv *inv, void *arg)
{
	struct prune *p = arg;

	p->gone = inv_samples_prune(inv, p->before);
	return 0;
}

static void
tick_prune(struct ctrl *c, double now)
{
	struct prune p = { .before = now - c->retention };

	store_with(&c->store, prune_samples, &p);
	if (p.gone > 0)
		log_info("pruned %lld samples older than %.0f s", (long long)p.gone, c->retention);
}

/* Sleep a tick's interval; 1 when woken to stop. */
static int
tick_sleep(struct ticker *t)
{
	struct pollfd p = { .fd = t->wake[0], .events = POLLIN };

	return poll(&p, 1, TICK_INTERVAL_MS) > 0;
}

static void *
ticker_main(void *arg)
{
	struct ticker *t = arg;
	double last_prune = 0;

	do {
		double now = ctrl_now();
		tick_once(t->c, now);
		if (now - last_prune > TICK_PRUNE_EVERY) {
			tick_prune(t->c, now);
			last_prune = now;
		}
	} while (!tick_sleep(t));
	return NULL;
}

static void
close_wake(struct ticker *t)
{
	close(t->wake[0]);
	close(t->wake[1]);
}

struct ticker *
tick_start(struct ctrl *c)
{
	struct ticker *t = calloc(1, sizeof(*t));

	if (t == NULL || pipe(t->wake) == -1) {
		log_errx("cannot start the ticker: %s", strerror(errno));
		free(t);
		return NULL;
	}
	fcntl(t->wake[0], F_SETFD, FD_CLOEXEC);
	fcntl(t->wake[1], F_SETFD, FD_CLOEXEC);
	t->c = c;
	int rc = pthread_create(&t->thread, NULL, ticker_main, t);
	if (rc != 0) {
		log_errx("cannot start the ticker: %s", strerror(rc));
		close_wake(t);
		free(t);
		return NULL;
	}
	return t;
}

void
tick_stop(struct ticker *t)
{
	if (t == NULL)
		return;
	ssize_t w = write(t->wake[1], "x", 1);
	(void)w;
	pthread_join(t->thread, NULL);
	close_wake(t);
	free(t);
}
