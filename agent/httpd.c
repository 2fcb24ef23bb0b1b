/*
 * The agent's HTTP server: a three-entry route table over libmicrohttpd,
 * polled by a thread of its own; its connections are kept by http_guard.
 */
#include "httpd.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http_guard.h"
#include "log.h"
#include "memtune.h"
#include "resolve.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

/* Files kept for the rest of the agent (its commands' pipes, macmon) beside the connections. */
#define HTTPD_FILES_RESERVE 64

struct httpd {
	struct MHD_Daemon *mhd;
	struct http_guard *guard;
	httpd_provider fn;
	void *arg;
	int port;
	char address[INET6_ADDRSTRLEN + 16];  /* "IP:PORT" or "[IPV6]:PORT"; "" unknown */
};

static const struct route {
	const char *path;
	enum httpd_doc doc;
	const char *content_type;
} routes[] = {
	{ "/metrics", HTTPD_METRICS, "text/plain; version=0.0.4; charset=utf-8" },
	{ "/v1/report", HTTPD_REPORT, "application/json" },
	{ "/healthz", HTTPD_HEALTHZ, "application/json" },
};

static MHD_RESULT
respond(struct MHD_Connection *conn, int status, const char *ctype, char *body, size_t len,
    const char *allow)
{
	struct MHD_Response *resp =
	    MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);

	if (resp == NULL) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (allow != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	MHD_RESULT ret = MHD_queue_response(conn, (unsigned int)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static MHD_RESULT
respond_error(struct MHD_Connection *conn, int status, const char *msg, const char *allow)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "{\"error\":\"%s\"}\n", msg);
	char *body = strdup(buf);

	if (body == NULL)
		return MHD_NO;
	return respond(conn, status, "application/json", body, (size_t)n, allow);
}

static MHD_RESULT
handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct httpd *h = cls;
	static int first_call_marker;
	(void)version;
	(void)upload_data;

	if (*con_cls == NULL) {
		*con_cls = &first_call_marker; /* headers seen; wait for the body, if any */
		return MHD_YES;
	}
	if (*upload_size != 0)
		return respond_error(conn, 413, "this server takes no request bodies", NULL);
	http_guard_received(conn);
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (strcmp(url, routes[i].path) != 0)
			continue;
		if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
			return respond_error(conn, 405, "method not allowed", "GET, HEAD");
		char *body = NULL;
		size_t len = 0;
		int status = 200;
		if (h->fn(h->arg, routes[i].doc, &body, &len, &status) == -1)
			return respond_error(conn, 500, "out of memory", NULL);
		return respond(conn, status, routes[i].content_type, body, len, NULL);
	}
	return respond_error(conn, 404, "no such path", NULL);
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)con_cls;
	http_guard_completed(conn, toe);
}

/*
 * The bound address ss with the bound port as a scrape target: numeric,
 * IPv6 in brackets and without a zone ("%en0"), which a target cannot carry.
 * "" when it cannot be told.
 */
static void
format_address(const struct sockaddr_storage *ss, int port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	socklen_t sl = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	    sizeof(struct sockaddr_in);

	buf[0] = '\0';
	if (getnameinfo((const struct sockaddr *)ss, sl, ip, sizeof(ip), NULL, 0,
	    NI_NUMERICHOST) != 0)
		return;
	ip[strcspn(ip, "%")] = '\0';
	if (ss->ss_family == AF_INET6)
		snprintf(buf, len, "[%s]:%d", ip, port);
	else
		snprintf(buf, len, "%s:%d", ip, port);
}

/* The daemon on ss for h, its guard started; 0, or -1. */
static int
start_daemon(struct httpd *h, const struct sockaddr_storage *ss, int port,
    const struct http_limits *lim)
{
	unsigned int flags = MHD_USE_ERROR_LOG | http_guard_flags();
	struct http_limits fit = *lim;
	struct MHD_OptionItem guard[HTTP_GUARD_NOPTS];

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	http_limits_fit(&fit, HTTPD_FILES_RESERVE, "httpd");
	if ((h->guard = http_guard_new(&fit, "httpd")) == NULL)
		return -1;
	http_guard_options(h->guard, guard);
	h->mhd = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handle, h,
	    MHD_OPTION_ARRAY, guard,
	    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_END);
	if (h->mhd == NULL || http_guard_serve(h->guard, h->mhd) == -1) {
		http_guard_stop(h->guard, h->mhd);
		return -1;
	}
	return 0;
}

struct httpd *
httpd_start(const char *host, int port, const struct http_limits *lim, httpd_provider fn,
    void *arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct httpd *h;

	if (resolve_listen(host, port, &ss, err, errlen) == -1)
		return NULL;
	memtune_init();   /* before the server's threads allocate */
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->fn = fn;
	h->arg = arg;
	if (start_daemon(h, &ss, port, lim) == -1) {
		snprintf(err, errlen, "listen: cannot serve on %s:%d (in use, or not an address "
		    "of this host)", host, port);
		free(h);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info != NULL ? info->port : port;
	format_address(&ss, h->port, h->address, sizeof(h->address));
	return h;
}

const char *
httpd_address(const struct httpd *h)
{
	return h->address;
}

int
httpd_port(const struct httpd *h)
{
	return h->port;
}

void
httpd_stop(struct httpd *h)
{
	if (h == NULL)
		return;
	http_guard_stop(h->guard, h->mhd);
	free(h);
}
