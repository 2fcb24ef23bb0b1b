/*
 * What the pusher (push.h) holds between attempts, without a thread or the
 * network: the latest-only queue of reports, and the backoff after failures.
 * The pusher guards both with its lock.
 */
#ifndef TBMESH_AGENT_PUSH_QUEUE_H
#define TBMESH_AGENT_PUSH_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#define PUSH_BACKOFF_MIN 1.0
#define PUSH_BACKOFF_MAX 60.0

/* Exponential backoff with jitter: step n waits in [2^n / 2, 2^n], within 1..60 s. */
struct push_backoff {
	int step;                    /* failures in a row */
	uint32_t seed;               /* jitter state; any value */
	double delay;                /* the last delay given; 0 after a reset */
};
/* The delay before the next attempt, in seconds; one more failure counted. */
double push_backoff_next(struct push_backoff *b);
/* After a success: the next failure waits the least again. */
void push_backoff_reset(struct push_backoff *b);

/* The latest-only queue.  Zero-initialise; push_queue_clear() frees. */
struct push_queue {
	char *json;
	size_t len;
	uint64_t dropped;
};
/* Copy json in, replacing (and counting) one still pending.  -1: out of memory. */
int push_queue_put(struct push_queue *q, const char *json, size_t len);
/* The pending report (the caller frees it), or NULL. */
char *push_queue_take(struct push_queue *q, size_t *len);
/*
 * Give back a report that could not be sent (ownership returns to q); when
 * a newer one arrived meanwhile, json is freed and counted as dropped.
 */
void push_queue_return(struct push_queue *q, char *json, size_t len);
void push_queue_clear(struct push_queue *q);

#endif
