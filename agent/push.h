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
 * replaced atomically).  Without one the pusher enrols: POST /v1/enroll with
 * the bootstrap token (re-read from its file at every attempt) and the
 * report as body, then saves the node token it gets back.  A 401 on
 * /v1/report deletes the saved token and enrols again.  Failures back off
 * exponentially with jitter, from 1 s to 60 s; success resets the backoff.
 */
#ifndef TBMESH_AGENT_PUSH_H
#define TBMESH_AGENT_PUSH_H

#include <stddef.h>
#include <stdint.h>

#define PUSH_TOKEN_FILE "node-token"
#define PUSH_BACKOFF_MIN 1.0
#define PUSH_BACKOFF_MAX 60.0

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

/*
 * The parts below have no thread and no network; they are used by the
 * pusher and exported for the tests.
 */

/* Exponential backoff with jitter: step n waits in [2^n / 2, 2^n], within 1..60 s. */
struct push_backoff {
	int step;                    /* failures in a row */
	uint32_t seed;               /* jitter state; any value */
	double delay;                /* the last delay given; 0 after a reset */
};
double push_backoff_next(struct push_backoff *b);
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

/* base URL (trailing '/' ignored) + route ("/v1/report").  -1 when too long. */
int push_url(const char *base, const char *route, char *out, size_t outlen);

/*
 * Read a token from a file: surrounding white space trimmed; it must be
 * 1..API_TOKEN_MAX characters of [A-Za-z0-9_-].  Returns 0, or -1 with a
 * reason in err (which never holds the token); errno ENOENT when absent.
 */
int push_token_read(const char *path, char *tok, size_t toklen, char *err, size_t errlen);
/* 1 when tok is a well-formed token (safe to put in a header). */
int push_token_valid(const char *tok);
/*
 * Save tok as <dir>/node-token: dir created 0700 (parents 0755) if missing,
 * a 0600 temp file beside it, fsync, rename, fsync of dir.
 */
int push_token_save(const char *dir, const char *tok, char *err, size_t errlen);
/* Remove <dir>/node-token; 0 when it is gone (or was not there). */
int push_token_delete(const char *dir, char *err, size_t errlen);

#endif
