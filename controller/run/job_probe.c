/*
 * The one-token probe (see job_probe.h): non-blocking connect, write,
 * read until the answer is complete, all under one deadline (poll).
 */
#include "job_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROBE_ANSWER_MAX 65536

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0          /* macOS: the controller ignores SIGPIPE */
#endif

/* mlx-lm's minimal completion request (server.py:1112-1122, 1580). */
static const char probe_body[] = "{\"prompt\": \"ping\", \"max_tokens\": 1, \"temperature\": 0}";

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Milliseconds left before deadline (0 when past). */
static int
left_ms(double deadline)
{
	double l = deadline - mono_now();

	return l <= 0 ? 0 : (int)(l * 1000) + 1;
}

/* Wait for events on fd until deadline: 1 ready, 0 timed out, -1 error. */
static int
wait_fd(int fd, short events, double deadline)
{
	struct pollfd pfd = { fd, events, 0 };

	for (;;) {
		int ms = left_ms(deadline), rc;
		if (ms == 0)
			return 0;
		rc = poll(&pfd, 1, ms);
		if (rc > 0)
			return 1;
		if (rc == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* A connected socket to host:port by deadline, or -1 with why in err. */
static int
dial(const char *host, int port, double deadline, char *err, size_t errlen)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char svc[16];
	int fd = -1, rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(svc, sizeof(svc), "%d", port);
	if ((rc = getaddrinfo(host, svc, &hints, &res)) != 0 || res == NULL) {
		snprintf(err, errlen, "%s: %s", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
	if (fd == -1 || fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	if (connect(fd, res->ai_addr, res->ai_addrlen) == -1 && errno != EINPROGRESS) {
		snprintf(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	rc = wait_fd(fd, POLLOUT, deadline);
	if (rc == 0) {
		snprintf(err, errlen, "no connection within the deadline");
		goto fail;
	}
	if (rc == -1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == -1 || soerr != 0) {
		snprintf(err, errlen, "%s", strerror(soerr ? soerr : errno));
		goto fail;
	}
	freeaddrinfo(res);
	return fd;
fail:
	if (fd != -1)
		close(fd);
	freeaddrinfo(res);
	return -1;
}

int
job_port_open(const char *host, int port, double timeout)
{
	char err[256];
	int fd = dial(host, port, mono_now() + timeout, err, sizeof(err));

	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

static int
send_all(int fd, const char *buf, size_t len, double deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (wait_fd(fd, POLLOUT, deadline) != 1)
			return -1;
	}
	return 0;
}

/* The body's length once the headers are in (Content-Length; -1 unknown: read to EOF). */
static long
content_length(const char *ans, const char *hend)
{
	for (const char *p = strstr(ans, "\r\n"); p != NULL && p < hend;
	    p = strstr(p + 2, "\r\n"))
		if (strncasecmp(p + 2, "Content-Length:", 15) == 0)
			return strtol(p + 17, NULL, 10);
	return -1;
}

/*
 * Read the answer into buf until it is complete (Content-Length, or the
 * server closes), the buffer full, or the deadline.  Its length, or -1 with
 * why in err.
 */
static long
read_answer(int fd, char *buf, size_t size, double deadline, char *err, size_t errlen)
{
	size_t len = 0;

	for (;;) {
		ssize_t n = recv(fd, buf + len, size - 1 - len, 0);
		if (n > 0) {
			len += (size_t)n;
			buf[len] = '\0';
			const char *hend = strstr(buf, "\r\n\r\n");
			long cl = hend ? content_length(buf, hend) : -1;
			if (hend != NULL && cl >= 0 && (long)(len - (size_t)(hend + 4 - buf)) >= cl)
				return (long)len;
			if (len == size - 1)
				return (long)len;
			continue;
		}
		if (n == 0)
			return (long)len;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -1;
		}
		int rc = wait_fd(fd, POLLIN, deadline);
		if (rc != 1) {
			snprintf(err, errlen, rc == 0 ? "no answer within the deadline" :
			    "%s", strerror(errno));
			return -1;
		}
	}
}

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/*
 * mlx-lm's answer: {"choices": [{"index": 0, "finish_reason": ..., "text":
 * "..."}], ...} (server.py:1252-1317): a "choices" array whose first
 * object has a "text" string.  A shallow look, enough to tell an answer
 * from an error page.
 */
static int
has_choice_text(const char *body)
{
	const char *p = strstr(body, "\"choices\"");

	if (p == NULL)
		return 0;
	p = skip_ws(p + 9);
	if (*p != ':')
		return 0;
	p = skip_ws(p + 1);
	if (*p != '[')
		return 0;
	p = skip_ws(p + 1);
	if (*p != '{')
		return 0;
	const char *end = strchr(p, '}');
	const char *t = strstr(p, "\"text\"");
	if (t == NULL || (end != NULL && t > end))
		return 0;
	t = skip_ws(t + 6);
	if (*t != ':')
		return 0;
	t = skip_ws(t + 1);
	return *t == '"';
}

int
job_probe(const char *host, int port, double timeout, char *err, size_t errlen)
{
	double deadline = mono_now() + timeout;
	char req[512], why[256];
	char *ans = NULL;
	int fd, status = 0, rc = -1;

	if ((fd = dial(host, port, deadline, why, sizeof(why))) == -1) {
		snprintf(err, errlen, "%s:%d: %s", host, port, why);
		return -1;
	}
	int n = snprintf(req, sizeof(req), "POST /v1/completions HTTP/1.1\r\nHost: %s:%d\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n"
	    "%s", host, port, strlen(probe_body), probe_body);
	if (n < 0 || (size_t)n >= sizeof(req) || send_all(fd, req, (size_t)n, deadline) == -1) {
		snprintf(err, errlen, "%s:%d: the request could not be sent", host, port);
		goto out;
	}
	if ((ans = malloc(PROBE_ANSWER_MAX)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	long len = read_answer(fd, ans, PROBE_ANSWER_MAX, deadline, why, sizeof(why));
	if (len < 0) {
		snprintf(err, errlen, "%s:%d: %s (%g s)", host, port, why, timeout);
		goto out;
	}
	const char *hend = strstr(ans, "\r\n\r\n");
	if (sscanf(ans, "HTTP/1.%*d %d", &status) != 1 || hend == NULL) {
		snprintf(err, errlen, "%s:%d: not an HTTP answer", host, port);
		goto out;
	}
	if (status != 200) {
		snprintf(err, errlen, "%s:%d: status %d", host, port, status);
		goto out;
	}
	if (!has_choice_text(hend + 4)) {
		snprintf(err, errlen, "%s:%d: no choices in the answer", host, port);
		goto out;
	}
	rc = 0;
out:
	free(ans);
	close(fd);
	return rc;
}
