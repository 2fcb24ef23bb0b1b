/*
 * tbagentd: collect this node's report every interval, serve it over HTTP
 * (httpd.c), and report it to the controller when one is configured.
 *
 * Threads: the main thread collects and renders; libmicrohttpd's thread
 * serves copies of what was last rendered, so a stuck collection never
 * stops /metrics; the pusher's thread (push.c) sends the latest report to
 * the controller, so a controller that is away never stops either.
 * Signals reach the main loop through a self-pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "conf.h"
#include "config.h"
#include "httpd.h"
#include "log.h"
#include "metrics.h"
#include "push.h"
#include "version.h"

/* What the HTTP thread may read: guarded by mu. */
struct snapshot {
	pthread_mutex_t mu;
	char *json;              /* latest report, compact JSON */
	size_t json_len;
	char *metrics;
	size_t metrics_len;
	double collecting_since; /* monotonic seconds; 0 when idle */
	double stuck_after;      /* seconds */
	struct pusher *pusher;   /* NULL: not reporting; replaced only by the main thread */
};

static int sigpipe_fds[2] = { -1, -1 };
static volatile sig_atomic_t got_term, got_hup;

static double
now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP)
		got_hup = 1;
	else
		got_term = 1;
	ssize_t w = write(sigpipe_fds[1], "x", 1);
	(void)w;
	errno = saved;
}

static int
setup_signals(void)
{
	struct sigaction sa;

	if (pipe(sigpipe_fds) == -1)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(sigpipe_fds[i], F_SETFL, O_NONBLOCK);
		fcntl(sigpipe_fds[i], F_SETFD, FD_CLOEXEC);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Sleep until the deadline or a signal; returns early on a signal. */
static void
wait_until(double deadline)
{
	for (;;) {
		double left = deadline - now_mono();
		if (left <= 0 || got_term || got_hup)
			return;
		struct pollfd p = { .fd = sigpipe_fds[0], .events = POLLIN };
		if (poll(&p, 1, (int)(left * 1000) + 1) > 0) {
			char buf[64];
			while (read(sigpipe_fds[0], buf, sizeof(buf)) > 0)
				;
		}
	}
}

static char *
dup_json_error(const char *msg, size_t *len)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "{\"error\":\"%s\"}\n", msg);

	*len = (size_t)n;
	return strdup(buf);
}

/* The agent's own health; the controller's reachability is told, not judged. */
static int
provide_healthz(struct snapshot *s, char **body, size_t *len, int *status)
{
	char buf[256];
	double busy = s->collecting_since > 0 ? now_mono() - s->collecting_since : 0;
	struct push_stats ps;
	int n;

	push_stats(s->pusher, &ps);
	const char *ctl = push_state_str(ps.state);
	if (s->json == NULL) {
		*status = 503;
		n = snprintf(buf, sizeof(buf), "{\"status\":\"starting\",\"controller\":\"%s\"}\n",
		    ctl);
	} else if (busy > s->stuck_after) {
		*status = 503;
		n = snprintf(buf, sizeof(buf), "{\"status\":\"stuck\","
		    "\"collecting_for_seconds\":%.1f,\"controller\":\"%s\"}\n", busy, ctl);
	} else {
		n = snprintf(buf, sizeof(buf), "{\"status\":\"ok\",\"version\":\"%s\","
		    "\"controller\":\"%s\"}\n", TBMESH_VERSION, ctl);
	}
	*len = (size_t)n;
	*body = strdup(buf);
	return *body == NULL ? -1 : 0;
}

/* The HTTP thread's provider: copies under the lock. */
static int
provide(void *arg, enum httpd_doc doc, char **body, size_t *len, int *status)
{
	struct snapshot *s = arg;
	int rc = 0;

	pthread_mutex_lock(&s->mu);
	if (doc == HTTPD_HEALTHZ) {
		rc = provide_healthz(s, body, len, status);
	} else if (doc == HTTPD_REPORT && s->json == NULL) {
		*status = 503;
		*body = dup_json_error("no report collected yet", len);
	} else {
		const char *src = doc == HTTPD_METRICS ? s->metrics : s->json;
		size_t n = doc == HTTPD_METRICS ? s->metrics_len : s->json_len;
		*body = malloc(n + 1);
		if (*body != NULL) {
			memcpy(*body, src, n);
			(*body)[n] = '\0';
		}
		*len = n;
	}
	pthread_mutex_unlock(&s->mu);
	return *body == NULL ? -1 : rc;
}

static void
fill_opts(const struct agent_config *c, struct collect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->name = c->name;
	o->root = c->root;
	o->scenario = c->scenario;
	o->node = c->node;
	o->cmd_timeout_ms = (int)(c->cmd_timeout * 1000);
	o->interval = c->interval;
	o->topology_interval = c->topology_interval;
	o->jobs_dir = config_jobs_dir(c);
	o->now = now_wall();
}

static const struct backend *
pick_backend(const struct agent_config *c)
{
	return c->backend != NULL ? backend_find(c->backend) : backend_default();
}

/* The pusher's counters into ctr, for metrics_render(). */
static void
count_push(struct pusher *p, struct agent_counters *ctr)
{
	struct push_stats ps;

	push_stats(p, &ps);
	ctr->push_on = p != NULL;
	ctr->reports_pushed = ps.pushed;
	ctr->push_failures = ps.failures;
	ctr->reports_dropped = ps.dropped;
	ctr->enrolled = ps.enrolled;
	ctr->push_backoff = ps.backoff;
}

/*
 * One collection: collect, render, hand to the pusher, publish.  listen:
 * the address /metrics is served on, for agent.listen (NULL: none); state:
 * the backend's, from collector_state_new().
 */
static void
collect_once(const struct agent_config *c, struct snapshot *s, struct agent_counters *ctr,
    struct report *r, const char *listen, void *state)
{
	const struct backend *b = pick_backend(c);
	struct collect_opts o;
	double t0 = now_mono();

	pthread_mutex_lock(&s->mu);
	s->collecting_since = t0;
	s->stuck_after = 30 + 10 * c->cmd_timeout;
	pthread_mutex_unlock(&s->mu);

	fill_opts(c, &o);
	o.listen = listen;
	o.state = state;
	if (collector_run(b, &o, r) == -1)
		log_warnx("%s backend produced no report", b->name);
	double took = now_mono() - t0;
	metrics_count(ctr, r, took);
	for (int i = 0; i < r->n_errors; i++)
		log_debug("%s: %s", r->errors[i].source, r->errors[i].message);

	size_t mlen = 0;
	char *json = report_encode(r, 0);
	if (json != NULL)
		push_submit(s->pusher, json, strlen(json));
	count_push(s->pusher, ctr);
	char *metrics = metrics_render(r, ctr, b->name, &mlen);
	pthread_mutex_lock(&s->mu);
	if (json != NULL && metrics != NULL) {
		free(s->json);
		free(s->metrics);
		s->json = json;
		s->json_len = strlen(json);
		s->metrics = metrics;
		s->metrics_len = mlen;
		json = metrics = NULL;
	}
	s->collecting_since = 0;
	pthread_mutex_unlock(&s->mu);
	if (json != NULL || metrics != NULL)
		log_warnx("out of memory rendering the report");
	free(json);
	free(metrics);
}

static int
run_once(const struct agent_config *c)
{
	const struct backend *b = pick_backend(c);
	struct report *r = report_new();
	struct collect_opts o;

	if (r == NULL)
		fatalx("out of memory");
	fill_opts(c, &o);
	if (collector_run(b, &o, r) == -1) {
		log_errx("%s backend could not produce a report", b->name);
		free(r);
		return 1;
	}
	char *json = report_encode(r, c->pretty);
	free(r);
	if (json == NULL)
		fatalx("out of memory");
	printf("%s\n", json);
	free(json);
	return fflush(stdout) == 0 ? 0 : 1;
}

static struct httpd *
start_httpd(const struct agent_config *c, struct snapshot *s)
{
	const char *listen = c->listen ? c->listen : AGENT_DEFAULT_LISTEN;
	char host[256], err[512];
	int port;

	if (strcmp(listen, "none") == 0 || listen[0] == '\0')
		return NULL;
	if (conf_split_hostport(listen, host, sizeof(host), &port, err, sizeof(err)) == -1)
		fatalx("%s", err);
	struct httpd *h = httpd_start(host, port, &c->http, provide, s, err, sizeof(err));
	if (h == NULL)
		fatalx("%s", err);
	log_info("listening on %s:%d", host, httpd_port(h));
	return h;
}

static struct pusher *
start_pusher(const struct agent_config *c, const struct push_stats *carry)
{
	struct push_config pc = { c->controller, c->bootstrap_token_file,
		c->state_dir != NULL ? c->state_dir : AGENT_DEFAULT_STATE_DIR, c->ca_file };

	return push_start(&pc, carry);
}

/* The settings the pusher was started with, to tell whether a reload changed them. */
static void
push_settings(const struct agent_config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s\n%s\n%s\n%s", c->controller ? c->controller : "",
	    c->bootstrap_token_file ? c->bootstrap_token_file : "",
	    c->state_dir ? c->state_dir : "", c->ca_file ? c->ca_file : "");
}

/* Out of the HTTP thread's reach first, then stopped. */
static void
stop_pusher(struct snapshot *s, struct push_stats *last)
{
	pthread_mutex_lock(&s->mu);
	struct pusher *old = s->pusher;
	s->pusher = NULL;
	pthread_mutex_unlock(&s->mu);
	push_stop(old, last);
}

/* Stop the pusher and start one with c's settings; its counters carry on. */
static void
restart_pusher(const struct agent_config *c, struct snapshot *s)
{
	struct push_stats carry;

	stop_pusher(s, &carry);
	struct pusher *p = start_pusher(c, &carry);
	pthread_mutex_lock(&s->mu);
	s->pusher = p;
	pthread_mutex_unlock(&s->mu);
}

static void
reload(struct agent_config *c, struct snapshot *s, int argc, char **argv)
{
	char err[512], before[8192], after[8192];

	got_hup = 0;
	push_settings(c, before, sizeof(before));
	if (config_reload(c, argc, argv, err, sizeof(err)) == -1) {
		log_warnx("configuration not reloaded: %s", err);
		return;
	}
	push_settings(c, after, sizeof(after));
	if (strcmp(before, after) != 0)
		restart_pusher(c, s);
	log_setlevel((enum log_level)c->log_level);
	log_info("configuration reloaded (backend %s, interval %g s)", pick_backend(c)->name,
	    c->interval);
}

static int
run_daemon(struct agent_config *c, int argc, char **argv)
{
	struct snapshot s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct agent_counters ctr = { 0 };
	struct report *r = report_new();

	if (r == NULL || setup_signals() == -1)
		fatalx("cannot start: out of memory or pipes");
	s.pusher = start_pusher(c, NULL);   /* before the HTTP thread reads it */
	if (c->controller != NULL && s.pusher == NULL)
		fatalx("cannot report to %s", c->controller);
	/* Until the first collection ends, /metrics tells that the agent runs. */
	s.metrics = metrics_render(NULL, &ctr, pick_backend(c)->name, &s.metrics_len);
	if (s.metrics == NULL)
		fatalx("cannot start: out of memory");
	struct httpd *h = start_httpd(c, &s);
	const char *listen = h != NULL && httpd_address(h)[0] != '\0' ? httpd_address(h) : NULL;
	log_info("collecting every %g s with the %s backend", c->interval,
	    pick_backend(c)->name);
	/* What the backend keeps between collections; a reload starts it afresh. */
	const struct backend *sb = pick_backend(c);
	void *state = collector_state_new(sb);
	double next = now_mono();
	while (!got_term) {
		collect_once(c, &s, &ctr, r, listen, state);
		next += c->interval;
		if (next < now_mono())
			next = now_mono();
		wait_until(next);
		if (got_hup) {
			collector_state_free(sb, state);
			reload(c, &s, argc, argv);
			sb = pick_backend(c);
			state = collector_state_new(sb);
		}
	}
	log_info("stopping");
	collector_state_free(sb, state);
	stop_pusher(&s, NULL);
	httpd_stop(h);
	free(r);
	free(s.json);
	free(s.metrics);
	return 0;
}

int
main(int argc, char **argv)
{
	struct agent_config c;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(agent_usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
			printf("tbagentd %s\n", TBMESH_VERSION);
			return 0;
		}
	}
	log_init("tbagentd", 0, LOG_LVL_INFO);
	if (config_load(&c, argc, argv, err, sizeof(err)) == -1 ||
	    config_validate(&c, err, sizeof(err)) == -1) {
		fprintf(stderr, "tbagentd: %s\n", err);
		fprintf(stderr, "Try 'tbagentd --help'.\n");
		config_free(&c);
		return 2;
	}
	if (c.check_only) {
		printf("configuration OK\n");
		config_free(&c);
		return 0;
	}
	log_init("tbagentd", c.use_syslog, (enum log_level)c.log_level);
	int rc = c.once ? run_once(&c) : run_daemon(&c, argc, argv);
	config_free(&c);
	return rc;
}
