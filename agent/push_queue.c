/* The pusher's queue and backoff (see push_queue.h). */
#include "push_queue.h"

#include <stdlib.h>
#include <string.h>

/* xorshift32: enough for jitter, and reproducible from a seed in the tests. */
static uint32_t
jitter_rand(uint32_t *s)
{
	uint32_t x = *s != 0 ? *s : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

double
push_backoff_next(struct push_backoff *b)
{
	double cap = PUSH_BACKOFF_MIN * (double)(1u << (b->step < 6 ? b->step : 6));
	double r = (double)jitter_rand(&b->seed) / 4294967296.0;

	if (cap > PUSH_BACKOFF_MAX)
		cap = PUSH_BACKOFF_MAX;
	b->delay = cap / 2 + r * cap / 2;
	if (b->delay < PUSH_BACKOFF_MIN)
		b->delay = PUSH_BACKOFF_MIN;
	if (b->step < 30)
		b->step++;
	return b->delay;
}

void
push_backoff_reset(struct push_backoff *b)
{
	b->step = 0;
	b->delay = 0;
}

int
push_queue_put(struct push_queue *q, const char *json, size_t len)
{
	char *copy = malloc(len + 1);

	if (copy == NULL)
		return -1;
	memcpy(copy, json, len);
	copy[len] = '\0';
	if (q->json != NULL) {
		free(q->json);
		q->dropped++;
	}
	q->json = copy;
	q->len = len;
	return 0;
}

char *
push_queue_take(struct push_queue *q, size_t *len)
{
	char *json = q->json;

	*len = q->len;
	q->json = NULL;
	q->len = 0;
	return json;
}

void
push_queue_return(struct push_queue *q, char *json, size_t len)
{
	if (q->json != NULL) {
		free(json);
		q->dropped++;
	} else {
		q->json = json;
		q->len = len;
	}
}

void
push_queue_clear(struct push_queue *q)
{
	free(q->json);
	q->json = NULL;
	q->len = 0;
}
