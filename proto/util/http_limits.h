/*
 * The limits of an HTTP server's connections, as the options of tbcontrollerd
 * and tbagentd name them (--max-connections, --max-connections-per-client,
 * --request-deadline, --idle-timeout), and the open-files limit that must
 * hold them.  What they do: http_guard.h.
 */
#ifndef TBMESH_HTTP_LIMITS_H
#define TBMESH_HTTP_LIMITS_H

#include <stddef.h>

struct http_limits {
	unsigned int max_connections;  /* at once, every client */
	unsigned int max_per_client;   /* at once from one address; 0: no limit */
	double request_deadline;       /* seconds for a request's line, headers and body */
	unsigned int idle_timeout;     /* seconds a connection may stay silent */
};

/*
 * Set one limit from its option name: "max-connections",
 * "max-connections-per-client", "request-deadline" or "idle-timeout".
 * Returns 0, -1 with a message naming the key, or 1 when key is none of them.
 */
int http_limits_set(struct http_limits *lim, const char *key, const char *v, char *err,
    size_t errlen);

/*
 * Room for lim's connections and reserve other files: the soft open-files
 * limit is raised toward the hard one when it is short; when even that is,
 * max_connections is lowered to what fits, and said in a warning.
 * max_per_client is kept within max_connections.  what names the server
 * in the log ("api", "httpd").
 */
void http_limits_fit(struct http_limits *lim, unsigned int reserve, const char *what);

/*
 * The connections that fit in files open files with reserve kept for the
 * rest (at least 1): files - reserve, or half of files when it is smaller
 * than twice reserve.
 */
unsigned int http_limits_room(unsigned long long files, unsigned int reserve);

#endif
