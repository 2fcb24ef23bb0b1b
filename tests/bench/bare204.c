/*
 * bare204: the floor under the controller's ingestion benchmarks.  A
 * libmicrohttpd server set up as tbcontrollerd's API is (one daemon, one
 * polling thread, epoll where libmicrohttpd has it, else poll(), the same
 * connection limit, idle timeout and memory per connection, the open-files
 * limit raised to hold them) that reads each request's body and answers
 * 204, doing nothing else: tokens and bodies are ignored, and there is no
 * per-client limit nor request deadline to keep.
 *   bare204 [--listen HOST:PORT]
 * Port 0 picks a free port; "listening on HOST:PORT" goes to stderr.
 * SIGTERM or SIGINT stop it.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

#define BARE_CONN_LIMIT 16384
#define BARE_TIMEOUT_S 30
#define BARE_CONN_MEMORY (16 * 1024)
#define BARE_FILES (BARE_CONN_LIMIT + 64)

static struct MHD_Response *empty;

static MHD_RESULT
answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	static int marker;
	(void)cls;
	(void)url;
	(void)method;
	(void)version;
	(void)upload;

	if (*con_cls == NULL) {
		*con_cls = &marker;
		return MHD_YES;
	}
	if (*upload_size != 0) {
		*upload_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(conn, MHD_HTTP_NO_CONTENT, empty);
}

/* Open files for every connection, as far as the hard limit lets. */
static void
raise_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= BARE_FILES)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > BARE_FILES ? BARE_FILES :
	    rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		perror("bare204: setrlimit");
}

/* The daemon, listening on ss (port 0: any), *port set; NULL when it cannot. */
static struct MHD_Daemon *
start_daemon(const struct sockaddr_storage *ss, int *port)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
	    (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ? MHD_USE_EPOLL :
	    MHD_USE_POLL);
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	d = MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL,
	    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)BARE_CONN_LIMIT,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)BARE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)BARE_CONN_MEMORY,
	    MHD_OPTION_END);
	if (d != NULL && ((info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)) == NULL ||
	    info->port == 0)) {
		MHD_stop_daemon(d);
		return NULL;
	}
	if (d != NULL)
		*port = info->port;
	return d;
}

/* "HOST:PORT" -> a socket address; -1 with a message when it is not one. */
static int
parse_listen(const char *s, struct sockaddr_storage *ss, int *port)
{
	char host[256];
	const char *colon = strrchr(s, ':');
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res;

	if (colon == NULL || colon == s || (size_t)(colon - s) >= sizeof(host)) {
		fprintf(stderr, "bare204: --listen %s: not HOST:PORT\n", s);
		return -1;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &res) != 0) {
		fprintf(stderr, "bare204: --listen %s: not an address of this host\n", s);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	*port = atoi(colon + 1);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *listen = "127.0.0.1:0";
	struct sockaddr_storage ss;
	sigset_t sigs;
	int port, sig;

	if (argc == 3 && strcmp(argv[1], "--listen") == 0)
		listen = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: bare204 [--listen HOST:PORT]\n");
		return 2;
	}
	if (parse_listen(listen, &ss, &port) == -1)
		return 2;
	raise_files();
	/* Blocked here, so the server's threads never take them: sigwait does. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((empty = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT)) == NULL)
		return 1;
	struct MHD_Daemon *d = start_daemon(&ss, &port);
	if (d == NULL) {
		fprintf(stderr, "bare204: cannot serve on %s\n", listen);
		MHD_destroy_response(empty);
		return 1;
	}
	char host[256];
	snprintf(host, sizeof(host), "%.*s", (int)(strrchr(listen, ':') - listen), listen);
	fprintf(stderr, "bare204: listening on %s:%d\n", host, port);
	sigwait(&sigs, &sig);
	MHD_stop_daemon(d);
	MHD_destroy_response(empty);
	return 0;
}
