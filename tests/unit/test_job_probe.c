/*
 * job_probe.c against a small HTTP server on loopback, in this test: an
 * answer in mlx-lm's shape (ml-explore/mlx-lm d78bf58, mlx_lm/server.py
 * generate_response, 1252-1317), a slow one, a silent one, garbage, an
 * error status, an answer without choices, nothing listening.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "job_probe.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0     /* SIGPIPE is ignored (setup) */
#endif

enum mode { ANSWER, SLOW, SILENT, GARBAGE, STATUS_500, NO_CHOICES, NO_LENGTH, SPLIT };

static const char mlx_answer[] = "{\"id\": \"cmpl-1\", \"system_fingerprint\": \"x\", "
    "\"object\": \"text_completion\", \"model\": \"default_model\", \"created\": 1, "
    "\"choices\": [{\"index\": 0, \"finish_reason\": \"length\", \"text\": \"ok\"}], "
    "\"usage\": {\"prompt_tokens\": 1, \"completion_tokens\": 1, \"total_tokens\": 2}}";

static struct server {
	int fd, port;
	enum mode mode;
	pthread_t th;
	char request[4096];       /* the last request, as received */
} srv;

static void
send_str(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Read the request: headers, then Content-Length bytes of body (5 s at most). */
static void
read_request(int c)
{
	size_t len = 0;
	struct timeval tv = { 5, 0 };

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	srv.request[0] = '\0';
	while (len < sizeof(srv.request) - 1) {
		ssize_t n = recv(c, srv.request + len, sizeof(srv.request) - 1 - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		srv.request[len] = '\0';
		char *h = strstr(srv.request, "\r\n\r\n");
		char *cl = strstr(srv.request, "Content-Length: ");
		if (h != NULL && cl != NULL && strlen(h + 4) >= (size_t)atol(cl + 16))
			break;
	}
}

static void
answer(int c, const char *status, const char *body)
{
	char head[256];

	snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\n\r\n", status, strlen(body));
	send_str(c, head);
	send_str(c, body);
}

static void *
serve(void *arg)
{
	(void)arg;
	for (;;) {
		int c = accept(srv.fd, NULL, NULL);
		if (c == -1)
			return NULL;
		read_request(c);
		switch (srv.mode) {
		case ANSWER:
			answer(c, "200 OK", mlx_answer);
			break;
		case SLOW:
			sleep(2);
			answer(c, "200 OK", mlx_answer);
			break;
		case SILENT:
			sleep(2);
			break;
		case GARBAGE:
			send_str(c, "\x01\x02 not http at all\r\n\r\n");
			break;
		case STATUS_500:
			answer(c, "500 Internal Server Error", "{\"error\": \"boom\"}");
			break;
		case NO_CHOICES:
			answer(c, "200 OK", "{\"status\": \"ok\"}");
			break;
		case NO_LENGTH:   /* HTTP/1.0 style: the body ends when the server closes */
			send_str(c, "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n");
			send_str(c, mlx_answer);
			break;
		case SPLIT:       /* the answer in small pieces */
			send_str(c, "HTTP/1.1 200 OK\r\nContent-Len");
			usleep(100000);
			{
				char rest[1024];
				snprintf(rest, sizeof(rest), "gth: %zu\r\n\r\n", strlen(mlx_answer));
				send_str(c, rest);
			}
			usleep(100000);
			send_str(c, mlx_answer);
			break;
		}
		close(c);
	}
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
test_answers(void **state)
{
	char err[256] = "";

	(void)state;
	srv.mode = ANSWER;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), 0);
	/* the request mlx-lm takes: POST /v1/completions with a Content-Length
	 * (server.py:1050-1074) and a prompt (1580) */
	assert_true(strncmp(srv.request, "POST /v1/completions HTTP/1.1\r\n", 31) == 0);
	assert_non_null(strstr(srv.request, "Content-Length: "));
	assert_non_null(strstr(srv.request, "\"prompt\": \"ping\""));
	assert_non_null(strstr(srv.request, "\"max_tokens\": 1"));
	srv.mode = NO_LENGTH;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), 0);
	srv.mode = SPLIT;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), 0);
}

static void
test_slow_and_silent(void **state)
{
	char err[256] = "";
	double t0;

	(void)state;
	srv.mode = SLOW;
	t0 = mono();
	assert_int_equal(job_probe("127.0.0.1", srv.port, 0.5, err, sizeof(err)), -1);
	assert_true(mono() - t0 < 1.5);
	assert_non_null(strstr(err, "no answer"));
	sleep(2);   /* let the server's slow answer go */
	srv.mode = SILENT;
	t0 = mono();
	assert_int_equal(job_probe("127.0.0.1", srv.port, 0.5, err, sizeof(err)), -1);
	assert_true(mono() - t0 < 1.5);
	sleep(2);
	/* slow but within the deadline: answered */
	srv.mode = SLOW;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 4, err, sizeof(err)), 0);
}

static void
test_bad_answers(void **state)
{
	char err[256] = "";

	(void)state;
	srv.mode = GARBAGE;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an HTTP answer"));
	srv.mode = STATUS_500;
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "status 500"));
	srv.mode = NO_CHOICES;   /* what GET /health answers: not a completion */
	assert_int_equal(job_probe("127.0.0.1", srv.port, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no choices"));
}

/* A port nobody listens on: refused at once; job_port_open tells the two apart. */
static void
test_nothing_listening(void **state)
{
	struct sockaddr_in a = { 0 };
	socklen_t al = sizeof(a);
	char err[256] = "";
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	(void)state;
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	close(fd);                     /* bound once, now free */
	assert_int_equal(job_probe("127.0.0.1", port, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "refused"));
	assert_int_equal(job_port_open("127.0.0.1", port, 1), 0);
	assert_int_equal(job_port_open("127.0.0.1", srv.port, 1), 1);
}

static int
setup(void **state)
{
	struct sockaddr_in a = { 0 };
	socklen_t al = sizeof(a);
	int one = 1;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	srv.fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(srv.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv.fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(srv.fd, 8) != 0 ||
	    getsockname(srv.fd, (struct sockaddr *)&a, &al) != 0)
		return -1;
	srv.port = ntohs(a.sin_port);
	return pthread_create(&srv.th, NULL, serve, NULL) == 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	shutdown(srv.fd, SHUT_RDWR);
	close(srv.fd);
	pthread_join(srv.th, NULL);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_slow_and_silent),
		cmocka_unit_test(test_bad_answers),
		cmocka_unit_test(test_nothing_listening),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
