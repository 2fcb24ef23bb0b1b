/*
 * Connection limits and the request deadline of the HTTP servers (see
 * http_guard.h for what they are and why the sweeper's shutdown(2) is safe).
 *
 * A connection's record holds one word that the server's thread rewrites at
 * each step of a request (phase, request number, when), so the sweeper reads
 * a consistent step without a lock on the request path.  Records are kept
 * in stripes by descriptor; a stripe's lock is taken by the server's thread
 * only when a connection starts or closes.
 */
#include "http_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define STRIPES 64
#define REQ_MASK 0x3fffffu       /* request numbers wrap; only equality is asked */
#define SEEN 0x80000000u         /* start_req, base_req set (request numbers are in REQ_MASK) */
#define RX_SLACK_MS 20           /* data this soon after an answer is the last request's */
#define LOG_WINDOW_MS 10000      /* libmicrohttpd's messages and the deadline's closings */
#define LOG_PER_WINDOW 5

/*
 * Where a connection is.  FRESH: accepted, its first request not started
 * (request 1).  RECEIVING: a request line has come, the rest is arriving.
 * ANSWERING: the request is whole.  KEPT: answered, waiting for the next.
 */
enum phase { FRESH, RECEIVING, ANSWERING, KEPT };

struct conn {
	struct conn *prev, *next;      /* in its stripe */
	int fd;
	int64_t accepted;              /* ms */
	/* (ms << 24) | (request number << 2) | phase; the server's thread writes it */
	_Atomic uint64_t word;
	/* the sweeper's own, under the stripe's lock */
	uint32_t start_req;            /* SEEN | the request start_ms is of; 0: none */
	int64_t start_ms;              /* when that request's first bytes came */
	uint32_t base_req;             /* SEEN | the request rx_base was counted for; 0: none */
	uint64_t rx_base;
	int shut;
};

struct stripe {
	pthread_mutex_t mu;
	struct conn *head;
};

struct http_guard {
	struct http_limits lim;
	char what[16];
	int64_t deadline_ms, period_ms;
	struct stripe stripes[STRIPES];
	pthread_t sweeper;
	struct MHD_Daemon *daemon;     /* served on the loop thread, or NULL */
	pthread_t loop;
	int wake[2];                   /* a byte in wake[1] stops both threads */
	int kick[2];                   /* a byte in kick[1]: the loop has resumed connections */
	atomic_int kicked;             /* a byte is in kick, or about to be */
	/* the sweeper's closings not logged yet */
	unsigned long shut_count;
	char shut_from[64];
	int64_t shut_logged;
	/* libmicrohttpd's messages: LOG_PER_WINDOW a window, the rest counted */
	pthread_mutex_t log_mu;
	int64_t log_window;
	unsigned int log_n;
	unsigned long log_dropped;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t
pack(enum phase ph, uint32_t req, int64_t ms)
{
	return (uint64_t)ms << 24 | (uint64_t)(req & REQ_MASK) << 2 | (uint64_t)ph;
}

static enum phase
word_phase(uint64_t w)
{
	return (enum phase)(w & 3);
}

static uint32_t
word_req(uint64_t w)
{
	return (uint32_t)(w >> 2) & REQ_MASK;
}

static int64_t
word_ms(uint64_t w)
{
	return (int64_t)(w >> 24);
}

static int
have_epoll(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES;
}

unsigned int
http_guard_flags(void)
{
	return have_epoll() ? MHD_USE_EPOLL : MHD_USE_POLL | MHD_USE_INTERNAL_POLLING_THREAD;
}

/* ---- the server's thread: libmicrohttpd's callbacks ---- */

static struct conn *
conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* The connection moves to ph; next: on to the next request. */
static void
conn_move(struct conn *c, enum phase ph, int next)
{
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);

	atomic_store_explicit(&c->word, pack(ph, word_req(w) + (next ? 1 : 0), now_ms()),
	    memory_order_relaxed);
}

static struct stripe *
stripe_of(struct http_guard *g, int fd)
{
	return &g->stripes[(unsigned int)fd % STRIPES];
}

static void
conn_started(struct http_guard *g, struct MHD_Connection *mc, void **ctx)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct conn *c;

	if (ci == NULL || (c = calloc(1, sizeof(*c))) == NULL)
		return;   /* unguarded: the idle timeout still applies */
	c->fd = ci->connect_fd;
	c->accepted = now_ms();
	atomic_init(&c->word, pack(FRESH, 1, c->accepted));
	struct stripe *s = stripe_of(g, c->fd);
	pthread_mutex_lock(&s->mu);
	c->next = s->head;
	if (s->head != NULL)
		s->head->prev = c;
	s->head = c;
	pthread_mutex_unlock(&s->mu);
	*ctx = c;
}

/* Before libmicrohttpd closes the socket: out of the sweeper's reach. */
static void
conn_closed(struct http_guard *g, void **ctx)
{
	struct conn *c = *ctx;

	if (c == NULL)
		return;
	struct stripe *s = stripe_of(g, c->fd);
	pthread_mutex_lock(&s->mu);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		s->head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&s->mu);
	free(c);
	*ctx = NULL;
}

static void
on_connection(void *cls, struct MHD_Connection *mc, void **ctx,
    enum MHD_ConnectionNotificationCode code)
{
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		conn_started(cls, mc, ctx);
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
		conn_closed(cls, ctx);
}

/* A request line: what it returns is the request's first *con_cls, kept NULL. */
static void *
on_request_line(void *cls, const char *uri, struct MHD_Connection *mc)
{
	struct conn *c = conn_of(mc);
	(void)cls;
	(void)uri;

	if (c != NULL)
		conn_move(c, RECEIVING, 0);
	return NULL;
}

void
http_guard_received(struct MHD_Connection *mc)
{
	struct conn *c = conn_of(mc);

	if (c != NULL)
		conn_move(c, ANSWERING, 0);
}

void
http_guard_completed(struct MHD_Connection *mc, enum MHD_RequestTerminationCode toe)
{
	struct conn *c;

	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK && (c = conn_of(mc)) != NULL)
		conn_move(c, KEPT, 1);
}

/* libmicrohttpd's messages, LOG_PER_WINDOW a window; the count of the others after. */
static void
on_log(void *cls, const char *fmt, va_list ap)
{
	struct http_guard *g = cls;
	int64_t now = now_ms();
	unsigned long dropped = 0;
	char msg[512];

	pthread_mutex_lock(&g->log_mu);
	if (now - g->log_window >= LOG_WINDOW_MS) {
		dropped = g->log_dropped;
		g->log_window = now;
		g->log_n = 0;
		g->log_dropped = 0;
	}
	int show = g->log_n < LOG_PER_WINDOW;
	if (show)
		g->log_n++;
	else
		g->log_dropped++;
	pthread_mutex_unlock(&g->log_mu);
	if (dropped > 0)
		log_msg(LOG_LVL_WARN, g->what, "libmicrohttpd: %lu more messages not logged",
		    dropped);
	if (!show)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\r\n")] = '\0';
	log_msg(LOG_LVL_WARN, g->what, "libmicrohttpd: %s", msg);
}

void
http_guard_options(struct http_guard *g, struct MHD_OptionItem *opt)
{
	size_t n = 0;

	/* the logger first: libmicrohttpd's messages about later options go to it */
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_log, g };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
		(intptr_t)g->lim.max_connections, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(intptr_t)g->lim.max_per_client, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
		(intptr_t)g->lim.idle_timeout, NULL };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
		(intptr_t)on_connection, g };
	opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK,
		(intptr_t)on_request_line, g };
	opt[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
}

/* ---- the sweeper ---- */

/*
 * When data last came on fd, if after ms (RX_SLACK_MS later, so that the
 * last request's own bytes do not count); -1 when none did, or when it
 * cannot be told here.
 */
static int64_t
rx_after(struct conn *c, uint32_t req, int64_t ms, int64_t now)
{
#if defined(__linux__)
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	(void)req;

	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == -1)
		return -1;
	int64_t last = now - (int64_t)ti.tcpi_last_data_recv;
	return last > ms + RX_SLACK_MS ? last : -1;
#elif defined(__APPLE__) && defined(TCP_CONNECTION_INFO)
	struct tcp_connection_info ti;
	socklen_t len = sizeof(ti);
	(void)ms;

	if (getsockopt(c->fd, IPPROTO_TCP, TCP_CONNECTION_INFO, &ti, &len) == -1)
		return -1;
	if (c->base_req != (SEEN | req)) {
		c->base_req = SEEN | req;
		c->rx_base = ti.tcpi_rxbytes;
		return -1;
	}
	return ti.tcpi_rxbytes > c->rx_base ? now : -1;
#else
	(void)c;
	(void)req;
	(void)ms;
	(void)now;
	return -1;
#endif
}

/*
 * When the request c is on must have arrived by (ms), or -1 when no
 * deadline runs: it is being answered, or the connection waits between
 * requests with nothing of the next one come.
 */
static int64_t
conn_due(struct http_guard *g, struct conn *c, int64_t now)
{
	uint64_t w = atomic_load_explicit(&c->word, memory_order_relaxed);
	uint32_t req = word_req(w);
	int64_t since = word_ms(w), begin;

	switch (word_phase(w)) {
	case FRESH:
		return c->accepted + g->deadline_ms;
	case RECEIVING:
		begin = req == 1 ? c->accepted : since;
		if (req != 1 && c->start_req == (SEEN | req) && c->start_ms < begin)
			begin = c->start_ms;
		return begin + g->deadline_ms;
	case KEPT:
		if (c->start_req != (SEEN | req)) {
			int64_t t = rx_after(c, req, since, now);
			if (t < 0)
				return -1;
			c->start_req = SEEN | req;
			c->start_ms = t;
		}
		return c->start_ms + g->deadline_ms;
	default:
		return -1;
	}
}

/* Shut c's socket down (libmicrohttpd closes the connection); counted for the log. */
static void
conn_shut(struct http_guard *g, struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	c->shut = 1;
	if (getpeername(c->fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, g->shut_from, sizeof(g->shut_from), NULL,
		    0, NI_NUMERICHOST);
	shutdown(c->fd, SHUT_RDWR);
	g->shut_count++;
}

static void
sweep(struct http_guard *g)
{
	int64_t now = now_ms();

	for (int i = 0; i < STRIPES; i++) {
		struct stripe *s = &g->stripes[i];
		pthread_mutex_lock(&s->mu);
		for (struct conn *c = s->head; c != NULL; c = c->next) {
			if (c->shut)
				continue;
			int64_t due = conn_due(g, c, now);
			if (due >= 0 && now >= due)
				conn_shut(g, c);
		}
		pthread_mutex_unlock(&s->mu);
	}
}

/*
 * What the sweeper closed, and the count of libmicrohttpd's messages not
 * logged: each at most once a window (the first at once).
 */
static void
sweep_log(struct http_guard *g)
{
	int64_t now = now_ms();

	if (g->shut_count > 0 && now - g->shut_logged >= LOG_WINDOW_MS) {
		log_msg(LOG_LVL_WARN, g->what, "closed %lu connection%s whose request had not "
		    "arrived within the %g s deadline (the last from %s)", g->shut_count,
		    g->shut_count == 1 ? "" : "s", g->lim.request_deadline, g->shut_from);
		g->shut_count = 0;
		g->shut_logged = now;
	}
	pthread_mutex_lock(&g->log_mu);
	unsigned long dropped = 0;
	if (g->log_dropped > 0 && now - g->log_window >= LOG_WINDOW_MS) {
		dropped = g->log_dropped;
		g->log_dropped = 0;
	}
	pthread_mutex_unlock(&g->log_mu);
	if (dropped > 0)
		log_msg(LOG_LVL_WARN, g->what, "libmicrohttpd: %lu more messages not logged",
		    dropped);
}

static void *
sweeper(void *arg)
{
	struct http_guard *g = arg;
	struct pollfd p = { .fd = g->wake[0], .events = POLLIN };

	while (poll(&p, 1, (int)g->period_ms) != 1 || !(p.revents & (POLLIN | POLLHUP))) {
		sweep(g);
		sweep_log(g);
	}
	return NULL;
}

/* ---- the epoll daemon's thread ---- */

/* How long the daemon may wait for its sockets: what it says, or for ever. */
static int
loop_wait_ms(struct MHD_Daemon *d)
{
	MHD_UNSIGNED_LONG_LONG t;

	if (MHD_get_timeout(d, &t) != MHD_YES)
		return -1;
	return t > INT_MAX ? INT_MAX : (int)t;
}

/* Empty the kick pipe, then take kicks again (see http_guard_resume). */
static void
loop_unkick(struct http_guard *g)
{
	char buf[64];

	while (read(g->kick[0], buf, sizeof(buf)) > 0)
		;
	atomic_store(&g->kicked, 0);
}

static void *
loop(void *arg)
{
	struct http_guard *g = arg;
	const union MHD_DaemonInfo *di =
	    MHD_get_daemon_info(g->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd p[3] = { { .fd = di->epoll_fd, .events = POLLIN },
		{ .fd = g->kick[0], .events = POLLIN },
		{ .fd = g->wake[0], .events = POLLIN } };
	sigset_t sigs;

	/* as libmicrohttpd's own thread does: a client gone mid-answer is no signal */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	for (;;) {
		if (poll(p, 3, loop_wait_ms(g->daemon)) > 0) {
			if (p[2].revents & (POLLIN | POLLHUP))
				break;
			if (p[1].revents & POLLIN)
				loop_unkick(g);
		}
		MHD_run(g->daemon);
	}
	return NULL;
}

/*
 * A byte in the kick pipe only when none is there yet: a commit resumes
 * tens of connections at once, and one wake serves them all.  The loop
 * empties the pipe before it allows the next byte, and runs the daemon
 * after: a resume that found a byte there is seen by that run.
 */
void
http_guard_resume(struct http_guard *g, struct MHD_Connection *c)
{
	MHD_resume_connection(c);
	if (g->daemon != NULL && atomic_exchange(&g->kicked, 1) == 0) {
		ssize_t w = write(g->kick[1], "k", 1);
		(void)w;
	}
}

int
http_guard_serve(struct http_guard *g, struct MHD_Daemon *d)
{
	if (!have_epoll())
		return 0;   /* libmicrohttpd's own thread serves it */
	if (MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD) == NULL)
		return -1;
	g->daemon = d;
	if (pthread_create(&g->loop, NULL, loop, g) != 0) {
		g->daemon = NULL;
		log_msg(LOG_LVL_ERR, g->what, "cannot start the server's thread");
		return -1;
	}
	return 0;
}

/* Everything of g but its threads, which have ended or never started. */
static void
guard_release(struct http_guard *g)
{
	for (int i = 0; i < 2; i++) {
		close(g->wake[i]);
		close(g->kick[i]);
	}
	for (int i = 0; i < STRIPES; i++) {
		/* none left once the daemon has stopped; freed in case */
		for (struct conn *c = g->stripes[i].head, *next; c != NULL; c = next) {
			next = c->next;
			free(c);
		}
		pthread_mutex_destroy(&g->stripes[i].mu);
	}
	pthread_mutex_destroy(&g->log_mu);
	free(g);
}

/* The wake and kick pipes, closed on exec (not for the commands the agent runs). */
static int
pipes_new(struct http_guard *g)
{
	g->wake[0] = g->wake[1] = g->kick[0] = g->kick[1] = -1;
	if (pipe(g->wake) == -1 || pipe(g->kick) == -1) {
		for (int i = 0; i < 2; i++)
			if (g->wake[i] >= 0)
				close(g->wake[i]);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(g->wake[i], F_SETFD, FD_CLOEXEC);
		fcntl(g->kick[i], F_SETFD, FD_CLOEXEC);
		fcntl(g->kick[i], F_SETFL, O_NONBLOCK);
	}
	atomic_init(&g->kicked, 0);
	return 0;
}

struct http_guard *
http_guard_new(const struct http_limits *lim, const char *what)
{
	struct http_guard *g = calloc(1, sizeof(*g));

	if (g == NULL)
		return NULL;
	g->lim = *lim;
	snprintf(g->what, sizeof(g->what), "%s", what);
	g->deadline_ms = (int64_t)llround(lim->request_deadline * 1000);
	g->period_ms = g->deadline_ms / 10 < 100 ? 100 : g->deadline_ms / 10 > 1000 ? 1000 :
	    g->deadline_ms / 10;
	if (pipes_new(g) == -1) {
		log_msg(LOG_LVL_ERR, what, "pipe: %s", strerror(errno));
		free(g);
		return NULL;
	}
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&g->stripes[i].mu, NULL);
	pthread_mutex_init(&g->log_mu, NULL);
	if (pthread_create(&g->sweeper, NULL, sweeper, g) != 0) {
		log_msg(LOG_LVL_ERR, what, "cannot start the connection sweeper");
		guard_release(g);
		return NULL;
	}
	return g;
}

void
http_guard_stop(struct http_guard *g, struct MHD_Daemon *d)
{
	if (g != NULL) {
		ssize_t w = write(g->wake[1], "x", 1);
		(void)w;
		if (g->daemon != NULL)
			pthread_join(g->loop, NULL);
		pthread_join(g->sweeper, NULL);
	}
	/* its connections' CLOSED callbacks still find g */
	if (d != NULL)
		MHD_stop_daemon(d);
	if (g != NULL)
		guard_release(g);
}
