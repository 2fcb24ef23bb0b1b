/*
 * tbctl's one request to the controller, over libcurl: bearer token,
 * TLS verified (against --ca-file when given), connect timeout 5 s, total
 * 30 s, replies up to CTL_REPLY_MAX bytes, no redirects followed.
 */
#ifndef TBMESH_CTL_HTTP_H
#define TBMESH_CTL_HTTP_H

#include <stddef.h>

#include "ctl.h"

#define CTL_REPLY_MAX ((size_t)16 << 20)
#define CTL_CONNECT_TIMEOUT 5L
#define CTL_TIMEOUT 30L

struct ctl_reply {
	long status;
	char *body;         /* NUL-terminated; "" when there was none */
	size_t len;
};

/*
 * A client for the global options g (kept by pointer: it must outlive the
 * client) and the bearer token (copied; NULL: none).  NULL when out of memory.
 */
struct ctl_client *ctl_client_new(const struct ctl_global *g, const char *token);
void ctl_client_free(struct ctl_client *cl);

/*
 * prefix, then part URL-escaped, then suffix, into buf: "/v1/nodes/" "mac1"
 * "/cordon".  Returns 0, or -1 when it does not fit.
 */
int ctl_path(struct ctl_client *cl, char *buf, size_t size, const char *prefix,
    const char *part, const char *suffix);

/*
 * Send method path (body: JSON or NULL) and wait for the reply.  Returns
 * CTL_EXIT_OK with *r filled when the status is 2xx.  Otherwise prints one
 * line and returns CTL_EXIT_FAIL: "cannot reach the controller at URL: ..."
 * when no reply came, or "what: message (status)" with the message of the
 * error body (what may be NULL).  Free *r with ctl_reply_free either way.
 */
int ctl_call(struct ctl_client *cl, const char *method, const char *path, const char *body,
    const char *what, struct ctl_reply *r);
void ctl_reply_free(struct ctl_reply *r);

#endif
