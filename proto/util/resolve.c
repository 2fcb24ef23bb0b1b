/* Listening addresses (see resolve.h). */
#include "resolve.h"

#include <netdb.h>
#include <stdio.h>
#include <string.h>

int
resolve_listen(const char *host, int port, struct sockaddr_storage *ss, char *err,
    size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE }, *res;
	char portstr[16];

	snprintf(portstr, sizeof(portstr), "%d", port);
	int rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "listen: %s: %s", host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}
