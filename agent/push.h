/*
 * push: report to the controller from a thread of its own, so that neither
 * collection nor the HTTP server ever waits on it.
 *
 * The main loop hands every new report to push_submit(); the pusher keeps
 * only the latest one not yet sent (one replaced before it went out is
 * dropped and counted), so memory stays bounded however long the controller
 * is away, and the latest report is sent when it comes back.
 *
 * Authentication: the node token in <state-dir>/node-token (mode 0600,
 * replaced atomically; push_token.h).  Without one the pusher enrols: POST
 * /v1/enroll with the bootstrap token (re-read from its file at every
 * attempt) and the report as body, then saves the node token it gets back.  A 401 on
 * /v1/report deletes the saved token and enrols again.  Failures back off
 * exponentially with jitter, from 1 s to 60 s; success resets the backoff
 * (the queue and the backoff: push_queue.h).  This file's part is the
 * thread and the HTTP requests.
 */
#ifndef TBMESH_AGENT_PUSH_H
#define TBMESH_AGENT_PUSH_H

#include <stddef.h>
#include <stdint.h>

enum push_state {
	PUSH_OFF = 0,      /* no controller configured */
	PUSH_ENROLLING,    /* no node token yet */
	PUSH_OK,           /* the last report reached the controller */
	PUSH_UNREACHABLE,  /* connection error, timeout or 5xx */
	PUSH_REFUSED       /* the controller answers but refuses the reports (4xx) */
};

/* What the pusher is given; the strings are copied. */
struct push_config {
	const char *controller;      /* base URL; NULL: push_start() returns NULL */
	const char *bootstrap_file;  /* may be NULL */
	const char *state_dir;
	const char *ca_file;         /* may be NULL: the system's CAs */
};

/* A consistent snapshot of the pusher's counters. */
struct push_stats {
	enum push_state state;
	uint64_t pushed;             /* reports the controller accepted */
	uint64_t failures;           /* requests that failed (network, timeout, status) */
	uint64_t dropped;            /* reports replaced before they were sent */
	int enrolled;                /* 1 when a node token is held */
	double backoff;              /* seconds of the current backoff; 0 when none */
};

struct pusher;

/*
 * Start the thread.  carry (may be NULL) seeds the counters, so that a
 * pusher restarted on SIGHUP continues them.  Returns NULL, logged, when
 * out of resources, or when pc->controller is NULL.
 */
struct pusher *push_start(const struct push_config *pc, const struct push_stats *carry);

/* Hand over the latest report (copied).  p may be NULL: nothing happens. */
void push_submit(struct pusher *p, const char *json, size_t len);

/* Thread-safe snapshot; p NULL gives PUSH_OFF and zeros. */
void push_stats(struct pusher *p, struct push_stats *out);

/*
 * Stop the thread (an in-flight request is aborted within about a second),
 * fill *last (may be NULL) with the final counters, free p.  Accepts NULL.
 */
void push_stop(struct pusher *p, struct push_stats *last);

/* "off", "enrolling", "ok", "unreachable". */
const char *push_state_str(enum push_state s);

/* base URL (trailing '/' ignored) + route ("/v1/report").  -1 when too long. */
int push_url(const char *base, const char *route, char *out, size_t outlen);

#endif
