/*
 * The address a server listens on, shared by tbagentd's HTTP server and
 * tbcontrollerd's API: HOST (numeric, or a name such as localhost) and
 * PORT resolved to one socket address.
 */
#ifndef TBMESH_RESOLVE_H
#define TBMESH_RESOLVE_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * The first address getaddrinfo(3) gives for host and port to listen on
 * (either family), into ss.  0, or -1 with "listen: HOST: reason" in err.
 */
int resolve_listen(const char *host, int port, struct sockaddr_storage *ss, char *err,
    size_t errlen);

#endif
