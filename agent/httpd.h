/*
 * The agent's HTTP server (libmicrohttpd, its own thread): GET and HEAD on
 * /metrics, /v1/report and /healthz; 405 with Allow for other methods on
 * those paths; 404 elsewhere; errors as JSON.  Request bodies are refused.
 * Connections are limited, in all and per client address, and a request
 * must arrive within a deadline, as on the controller (proto/util/http_guard.h).
 *
 * Documents come from a provider callback, called on the server's thread:
 * it must be thread-safe and fast (the agent hands out a copy of what the
 * last collection rendered; it never collects on a request).
 */
#ifndef TBMESH_AGENT_HTTPD_H
#define TBMESH_AGENT_HTTPD_H

#include <stddef.h>

#include "http_limits.h"

/*
 * The connection limits' defaults (what they do: proto/util/http_guard.h): a
 * handful of scrapers, none of which may take the others' room.
 */
#define HTTPD_DEFAULT_MAX_CONNECTIONS 64
#define HTTPD_DEFAULT_MAX_PER_CLIENT 8
#define HTTPD_DEFAULT_REQUEST_DEADLINE 10.0
#define HTTPD_DEFAULT_IDLE_TIMEOUT 10

enum httpd_doc { HTTPD_METRICS, HTTPD_REPORT, HTTPD_HEALTHZ };

/*
 * Fill *body (malloc'd; the server frees it), *len and *status for doc.
 * Returns -1 when out of memory (the client gets a 500).
 */
typedef int (*httpd_provider)(void *arg, enum httpd_doc doc, char **body, size_t *len,
    int *status);

struct httpd;

/*
 * Listen on host:port (port 0: any free one), connections within lim.
 * NULL with a message on failure.
 */
struct httpd *httpd_start(const char *host, int port, const struct http_limits *lim,
    httpd_provider fn, void *arg, char *err, size_t errlen);

/* The port actually bound. */
int httpd_port(const struct httpd *h);

/*
 * The address and port actually bound, as a scrape target: "127.0.0.1:9469",
 * "[::1]:9469", "0.0.0.0:9469" for every address; "" when unknown.  Owned by h.
 */
const char *httpd_address(const struct httpd *h);

/* Stop serving and free h; accepts NULL. */
void httpd_stop(struct httpd *h);

#endif
