/*
 * fleet: a fleet of agents, each holding its own kept-alive connection to
 * the controller and reporting at a steady rate, for tests/bench/
 * controller_fleet.sh.  One thread, epoll, plain sockets (libcurl's
 * connection cache looks connections up one by one, which 10,000 of them
 * to one host make the cost of every request).
 *
 *   fleet URL TOKENS_FILE [--agents N] [--seconds S] [--interval I]
 *                         [--source A.B.C.D] [--per-source K]
 *
 * URL is http://IPV4:PORT.  TOKENS_FILE holds "name node_token
 * hardware_uuid" lines (loadgen setup writes it); the first N nodes (all by
 * default) are the agents.  Agent i connects from source address A.B.C.D +
 * i / K (K agents an address: 50 by default, within the controller's
 * per-client limit; loopback's 127.0.0.0/8 has the addresses, and each its
 * own source ports), at most FLEET_CONNECTING at once.  Once all are
 * connected, "connected" goes to stderr and each agent POSTs its report to
 * /v1/report every I seconds (1 by default), the agents spread evenly over
 * the interval: N / I reports a second are offered.  An agent whose answer
 * has not come when its turn does sends as soon as it comes (counted
 * late), never two at once.  A connection the server closes is opened
 * again (counted).  After S seconds (10 by default) the answers still due
 * are waited for, then one line is printed:
 *   agents=N addresses=A connected=N connect_s=C sent=N ok=N failed=N late=N
 *   reconnects=N seconds=S rate=R/s p50_ms=M p99_ms=M cpu_s=C
 * rate counts the 2xx a second; the latencies are those of the 2xx.  Exit 0,
 * 1 when a connection could not be made or no report got a 2xx, 77 where
 * there is no epoll.
 */
#include <stdio.h>

#ifndef __linux__
int
main(void)
{
	fprintf(stderr, "fleet: needs epoll (Linux)\n");
	return 77;
}
#else

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "report.h"

#include "lg_report.h"

#define FLEET_CONNECTING 256        /* connects under way at once */
#define FLEET_IN_MAX 2048           /* of an answer kept: its head and a short body */
#define FLEET_BUCKET_US 10          /* latency histogram: 10 us buckets up to 10 s */
#define FLEET_BUCKETS 1000000
#define FLEET_DRAIN_S 10.0          /* the most the answers due at the end are waited for */

enum agent_state { CLOSED, CONNECTING, IDLE, SENDING, READING };

struct agent {
	char name[API_NAME_MAX + 1];
	int fd;
	enum agent_state state;
	int owed;                       /* its turn came while busy */
	int want_out;                   /* EPOLLOUT armed: a request waits for room */
	struct lg_body b;
	char *head;                     /* the request's header block */
	size_t head_len, sent;          /* sent: of head and body */
	struct in_addr src;
	double t0;                      /* the request's start */
	char in[FLEET_IN_MAX];
	size_t in_len;
};

struct fleet {
	struct sockaddr_in dst;
	char host[64];                  /* "IP:PORT", for Host: */
	struct agent *a;
	int n, ep, connecting, connected, running;
	uint64_t sent, ok, failed, late, reconnects;
	uint32_t *hist;                 /* FLEET_BUCKETS latencies */
};

static volatile sig_atomic_t stopping;

static void
on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
cpu_used(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* --- connections --- */

static void
watch(struct fleet *f, struct agent *a, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = a };

	epoll_ctl(f->ep, op, a->fd, &ev);
}

/* Start connecting a from its source address; -1 when the socket cannot be made. */
static int
agent_connect(struct fleet *f, struct agent *a)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = a->src };
	int one = 1;

	a->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->fd == -1)
		return -1;
	setsockopt(a->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (bind(a->fd, (struct sockaddr *)&src, sizeof(src)) == -1 ||
	    (connect(a->fd, (struct sockaddr *)&f->dst, sizeof(f->dst)) == -1 &&
	    errno != EINPROGRESS)) {
		fprintf(stderr, "fleet: %s from %s: %s\n", a->name, inet_ntoa(a->src),
		    strerror(errno));
		close(a->fd);
		a->fd = -1;
		return -1;
	}
	a->state = CONNECTING;
	f->connecting++;
	watch(f, a, EPOLLOUT, EPOLL_CTL_ADD);
	return 0;
}

/* The server closed a's connection (or it failed): a request under way failed; connect again. */
static void
agent_lost(struct fleet *f, struct agent *a)
{
	if (a->state == SENDING || a->state == READING)
		f->failed++;
	if (a->state == CONNECTING)
		f->connecting--;
	else if (a->state != CLOSED)
		f->connected--;
	close(a->fd);
	a->fd = -1;
	a->state = CLOSED;
	a->in_len = 0;
	a->want_out = 0;
	f->reconnects++;
	if (!stopping)
		agent_connect(f, a);
}

static void
agent_connected(struct fleet *f, struct agent *a)
{
	int err = 0;
	socklen_t len = sizeof(err);

	f->connecting--;
	if (getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 || err != 0) {
		a->state = IDLE;    /* counted as connected, then lost */
		f->connected++;
		agent_lost(f, a);
		return;
	}
	a->state = IDLE;
	f->connected++;
	watch(f, a, EPOLLIN, EPOLL_CTL_MOD);
}

/* --- requests --- */

static void
agent_write(struct fleet *f, struct agent *a)
{
	while (a->sent < a->head_len + a->b.len) {
		struct iovec iov[2];
		int n = 0;
		if (a->sent < a->head_len)
			iov[n++] = (struct iovec){ a->head + a->sent, a->head_len - a->sent };
		size_t boff = a->sent > a->head_len ? a->sent - a->head_len : 0;
		iov[n++] = (struct iovec){ a->b.text + boff, a->b.len - boff };
		ssize_t w = writev(a->fd, iov, n);
		if (w == -1 && errno == EAGAIN) {
			if (!a->want_out)
				watch(f, a, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
			a->want_out = 1;
			return;
		}
		if (w <= 0) {
			agent_lost(f, a);
			return;
		}
		a->sent += (size_t)w;
	}
	if (a->want_out)
		watch(f, a, EPOLLIN, EPOLL_CTL_MOD);
	a->want_out = 0;
	a->state = READING;
}

static void
agent_send(struct fleet *f, struct agent *a, double now)
{
	lg_body_stamp(&a->b);
	a->sent = 0;
	a->in_len = 0;
	a->t0 = now;
	a->owed = 0;
	a->state = SENDING;
	f->sent++;
	agent_write(f, a);
}

/* The length of a whole answer at the start of a->in, its status in *status; 0: not yet. */
static size_t
answer_len(const struct agent *a, int *status)
{
	const char *end = NULL, *p;
	size_t body = 0;

	for (size_t i = 0; i + 4 <= a->in_len && end == NULL; i++)
		if (memcmp(a->in + i, "\r\n\r\n", 4) == 0)
			end = a->in + i;
	if (end == NULL)
		return 0;
	*status = a->in_len > 12 ? atoi(a->in + 9) : 0;
	for (p = a->in; p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
		if (strncasecmp(p + 1, "Content-Length:", 15) == 0)
			body = strtoul(p + 16, NULL, 10);
	size_t total = (size_t)(end + 4 - a->in) + body;
	return total <= a->in_len ? total : 0;
}

static void
record(struct fleet *f, double seconds)
{
	uint64_t b = (uint64_t)(seconds * 1e6 / FLEET_BUCKET_US);

	f->hist[b < FLEET_BUCKETS ? b : FLEET_BUCKETS - 1]++;
}

static void
agent_read(struct fleet *f, struct agent *a, double now)
{
	ssize_t r = read(a->fd, a->in + a->in_len, sizeof(a->in) - a->in_len);
	int status = 0;

	if (r <= 0) {
		if (r == -1 && errno == EAGAIN)
			return;
		agent_lost(f, a);
		return;
	}
	a->in_len += (size_t)r;
	size_t len = answer_len(a, &status);
	if (len == 0 && a->in_len == sizeof(a->in)) {
		agent_lost(f, a);   /* an answer too long for a report's */
		return;
	}
	if (len == 0 || a->state != READING)
		return;
	a->state = IDLE;
	a->in_len = 0;
	if (status >= 200 && status < 300) {
		f->ok++;
		record(f, now - a->t0);
	} else {
		f->failed++;
	}
	if (a->owed && f->running)
		agent_send(f, a, now);
}

static void
on_event(struct fleet *f, struct epoll_event *ev, double now)
{
	struct agent *a = ev->data.ptr;

	if (a->state == CONNECTING) {
		agent_connected(f, a);
		return;
	}
	if (ev->events & (EPOLLERR | EPOLLHUP) && !(ev->events & EPOLLIN)) {
		agent_lost(f, a);
		return;
	}
	if ((ev->events & EPOLLOUT) && a->state == SENDING)
		agent_write(f, a);
	if ((ev->events & EPOLLIN) && a->fd >= 0)
		agent_read(f, a, now);
}

static void
poll_once(struct fleet *f, int timeout_ms)
{
	struct epoll_event evs[512];
	int n = epoll_wait(f->ep, evs, 512, timeout_ms);
	double now = mono();

	for (int i = 0; i < n; i++)
		on_event(f, &evs[i], now);
}

/* --- phases --- */

/* Connect every agent, FLEET_CONNECTING at a time; seconds it took, or -1. */
static double
connect_all(struct fleet *f)
{
	double t0 = mono();
	int next = 0;

	while (!stopping && f->connected < f->n) {
		while (next < f->n && f->connecting < FLEET_CONNECTING)
			if (agent_connect(f, &f->a[next++]) == -1)
				return -1;
		if (mono() - t0 > 60) {
			fprintf(stderr, "fleet: %d of %d agents connected after 60 s\n",
			    f->connected, f->n);
			return -1;
		}
		poll_once(f, 100);
	}
	f->reconnects = 0;    /* those while connecting were retried, not lost */
	return mono() - t0;
}

/* Report for seconds at interval: agent i's turns at t0 + (k + i / n) * interval. */
static double
report_for(struct fleet *f, double seconds, double interval)
{
	double t0 = mono(), step = interval / f->n;
	uint64_t turn = 0;

	f->running = 1;
	while (!stopping) {
		double now = mono();
		if (now - t0 >= seconds)
			break;
		for (; t0 + (double)turn * step <= now; turn++) {
			struct agent *a = &f->a[turn % (uint64_t)f->n];
			if (a->state == IDLE)
				agent_send(f, a, now);
			else if (!a->owed) {
				a->owed = 1;
				f->late++;
			}
		}
		double wait_ms = (t0 + (double)turn * step - mono()) * 1e3;
		poll_once(f, wait_ms < 1 ? 1 : (int)wait_ms);
	}
	double took = mono() - t0;
	f->running = 0;
	return took;
}

static int
busy(const struct fleet *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->a[i].state == SENDING || f->a[i].state == READING)
			return 1;
	return 0;
}

static double
percentile(const struct fleet *f, double q)
{
	uint64_t want = (uint64_t)((double)f->ok * q), seen = 0;

	for (uint64_t b = 0; b < FLEET_BUCKETS; b++)
		if ((seen += f->hist[b]) > want)
			return (double)(b * FLEET_BUCKET_US) / 1e3;
	return 0;
}

/* --- setup --- */

/* The request of agent a (its report built once), with node token token, of n nodes. */
static int
agent_prepare(struct fleet *f, struct agent *a, const char *token, const char *uuid,
    int n_total, struct report *r)
{
	char prefix[API_NAME_MAX + 1];
	const char *dash = strrchr(a->name, '-');

	snprintf(prefix, sizeof(prefix), "%.*s", (int)(dash - a->name), a->name);
	lg_build_report(prefix, atoi(dash + 1), n_total, a->name, uuid, r);
	if (lg_body_encode(&a->b, r, a->name) == -1)
		return -1;
	const char *fmt = "POST /v1/report HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n";
	int len = snprintf(NULL, 0, fmt, f->host, token, a->b.len);
	if (len < 0 || (a->head = malloc((size_t)len + 1)) == NULL)
		return -1;
	snprintf(a->head, (size_t)len + 1, fmt, f->host, token, a->b.len);
	a->head_len = (size_t)len;
	a->fd = -1;
	return 0;
}

static int
count_lines(FILE *fp)
{
	int n = 0, c;

	while ((c = getc(fp)) != EOF)
		n += c == '\n';
	rewind(fp);
	return n;
}

/* The first max (0: all) "name token uuid" lines of path, agents from first on, per an address. */
static int
load_agents(struct fleet *f, const char *path, int max, struct in_addr first, int per)
{
	char line[512], (*tokens)[API_TOKEN_MAX + 1] = NULL, (*uuids)[REPORT_STR_MAX + 1] = NULL;
	struct report *r = report_new();
	FILE *fp = fopen(path, "r");
	int n = 0, max_idx = 0, rc = -1;

	if (fp == NULL || r == NULL || (n = count_lines(fp)) == 0) {
		fprintf(stderr, "fleet: %s: %s\n", path, fp == NULL ? strerror(errno) :
		    r == NULL ? "out of memory" : "no nodes");
		goto out;
	}
	n = max > 0 && max < n ? max : n;
	if ((f->a = calloc((size_t)n, sizeof(*f->a))) == NULL ||
	    (tokens = calloc((size_t)n, sizeof(*tokens))) == NULL ||
	    (uuids = calloc((size_t)n, sizeof(*uuids))) == NULL)
		goto out;
	for (; f->n < n && fgets(line, sizeof(line), fp) != NULL; f->n++) {
		struct agent *a = &f->a[f->n];
		const char *dash;
		if (sscanf(line, "%63s %80s %255s", a->name, tokens[f->n], uuids[f->n]) != 3 ||
		    (dash = strrchr(a->name, '-')) == NULL || dash == a->name ||
		    atoi(dash + 1) < 1) {
			fprintf(stderr, "fleet: %s:%d: not \"PREFIX-N token uuid\"\n", path,
			    f->n + 1);
			goto out;
		}
		if (atoi(dash + 1) > max_idx)
			max_idx = atoi(dash + 1);
		a->src.s_addr = htonl(ntohl(first.s_addr) + (uint32_t)(f->n / per));
	}
	for (int i = 0; i < f->n; i++)
		if (agent_prepare(f, &f->a[i], tokens[i], uuids[i], max_idx, r) == -1)
			goto out;
	rc = f->n > 0 ? 0 : -1;
out:
	if (fp != NULL)
		fclose(fp);
	free(tokens);
	free(uuids);
	free(r);
	return rc;
}

/* "http://IPV4:PORT" into f->dst and f->host; -1 when it is not one. */
static int
parse_url(struct fleet *f, const char *url)
{
	char ip[INET_ADDRSTRLEN];
	unsigned int port;

	if (sscanf(url, "http://%15[0-9.]:%u", ip, &port) != 2 || port == 0 || port > 65535 ||
	    inet_pton(AF_INET, ip, &f->dst.sin_addr) != 1) {
		fprintf(stderr, "fleet: %s: not http://IPV4:PORT\n", url);
		return -1;
	}
	f->dst.sin_family = AF_INET;
	f->dst.sin_port = htons((uint16_t)port);
	snprintf(f->host, sizeof(f->host), "%s:%u", ip, port);
	return 0;
}

/* Files for every agent's socket, as far as the hard limit lets. */
static void
raise_files(int n)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)n + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct opts {
	int agents, per;
	double seconds, interval;
	struct in_addr source;
};

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "agents", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "source", required_argument, NULL, 'a' },
		{ "per-source", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n': o->agents = atoi(optarg); break;
		case 's': o->seconds = strtod(optarg, NULL); break;
		case 'i': o->interval = strtod(optarg, NULL); break;
		case 'k': o->per = atoi(optarg); break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &o->source) != 1)
				return -1;
			break;
		default: return -1;
		}
	}
	if (o->agents < 0 || o->per < 1 || !(o->seconds > 0 && o->seconds <= 86400) ||
	    !(o->interval >= 0.001 && o->interval <= 3600) || argc - optind != 2)
		return -1;
	return 0;
}

static const char usage[] =
"usage: fleet URL TOKENS_FILE [--agents N] [--seconds S] [--interval I]\n"
"                             [--source A.B.C.D] [--per-source K]\n";

int
main(int argc, char **argv)
{
	struct opts o = { .per = 50, .seconds = 10, .interval = 1 };
	struct fleet f = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };

	inet_pton(AF_INET, "127.1.0.1", &o.source);
	if (parse_opts(argc, argv, &o) == -1)
		return fputs(usage, stderr), 2;
	if (parse_url(&f, argv[optind]) == -1)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (load_agents(&f, argv[optind + 1], o.agents, o.source, o.per) == -1 ||
	    (f.hist = calloc(FLEET_BUCKETS, sizeof(*f.hist))) == NULL ||
	    (f.ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		return 1;
	raise_files(f.n);
	double cs = connect_all(&f);
	if (cs < 0)
		return 1;
	fprintf(stderr, "connected\n");
	double cpu0 = cpu_used();
	double took = report_for(&f, o.seconds, o.interval);
	double drain = mono();
	while (busy(&f) && mono() - drain < FLEET_DRAIN_S)
		poll_once(&f, 100);
	double cpu = cpu_used() - cpu0;
	printf("agents=%d addresses=%d connected=%d connect_s=%.2f sent=%" PRIu64 " ok=%" PRIu64
	    " failed=%" PRIu64 " late=%" PRIu64 " reconnects=%" PRIu64 " seconds=%.2f "
	    "rate=%.0f/s p50_ms=%.2f p99_ms=%.2f cpu_s=%.2f\n", f.n, (f.n + o.per - 1) / o.per,
	    f.connected, cs, f.sent, f.ok, f.failed, f.late, f.reconnects, took,
	    took > 0 ? (double)f.ok / took : 0.0, percentile(&f, 0.5), percentile(&f, 0.99), cpu);
	return f.ok > 0 ? 0 : 1;
}

#endif
