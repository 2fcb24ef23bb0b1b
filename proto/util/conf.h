/*
 * Configuration files of "key = value" lines ('#' starts a comment), and
 * HOST:PORT addresses: shared by tbagentd and tbcontrollerd.
 */
#ifndef TBMESH_CONF_H
#define TBMESH_CONF_H

#include <stddef.h>

/* Called for each key; returns -1 with a message in err to stop. */
typedef int (*conf_setter)(void *ctx, const char *key, const char *value, char *err,
    size_t errlen);

/* Read path, calling set for each line; errors name the file and line. */
int conf_read_file(const char *path, conf_setter set, void *ctx, char *err, size_t errlen);

/*
 * Split "HOST:PORT" or "[V6]:PORT" into host (size hostlen) and port.
 * Returns -1 with a message ("listen: ...") on a malformed address.
 */
int conf_split_hostport(const char *s, char *host, size_t hostlen, int *port, char *err,
    size_t errlen);

/* A number of seconds from lo to hi ("30", "2.5"), or -1 with a message naming key. */
int conf_seconds(const char *key, const char *v, double lo, double hi, double *out, char *err,
    size_t errlen);

#endif
