/*
 * The pusher: a latest-only queue between the main loop and a thread that
 * POSTs reports to the controller with libcurl.  One request per turn of
 * push_main(), chosen by whether a node token is held:
 *
 *   no token  read <state-dir>/node-token; if absent, read the bootstrap
 *             token file and POST /v1/enroll with the report:
 *               201            save the node token, send the report with it
 *               401, 403       log the controller's message, back off
 *               other 4xx      log, drop the report, back off
 *   token     POST /v1/report:
 *               2xx            counted as pushed; backoff reset
 *               401            delete the saved token, back off, enrol
 *               403            log, back off, keep the report
 *               other 4xx      log, drop the report, back off
 *   either    network error, timeout, 5xx: keep the report (unless a newer
 *             one replaced it), back off
 *
 * The queue and the backoff are push_queue.c's, the tokens on disk
 * push_token.c's.  Only this file includes curl.h.  Tokens are never logged.
 */
#include "push.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "api_json.h"
#include "log.h"
#include "memtune.h"
#include "push_queue.h"
#include "push_token.h"
#include "version.h"

#define PUSH_CONNECT_TIMEOUT_MS 5000L
#define PUSH_TIMEOUT_MS 15000L
#define PUSH_URL_MAX 2048
/* The thread's stack: a request, TLS included, needs a few tens of KiB. */
#define PUSH_STACK_SIZE (512 * 1024)

#define push_log(lvl, ...) log_msg(lvl, "push", __VA_ARGS__)

enum outcome {
	OUT_SENT,       /* 2xx on /v1/report */
	OUT_ENROLLED,   /* a node token now: send the report with it at once */
	OUT_RETRY,      /* a failed request: keep the report, back off */
	OUT_WAIT,       /* nothing to enrol with yet: keep the report, back off */
	OUT_REAUTH,     /* node token refused and forgotten: back off, then enrol */
	OUT_DROP,       /* the controller refused this report: back off */
	OUT_STOPPED     /* push_stop() during the request */
};

struct response {
	long status;                 /* HTTP status; 0 when none */
	char body[8192];             /* the start of the body, NUL-terminated */
	size_t len;
	char err[CURL_ERROR_SIZE];   /* libcurl's reason when there is no status */
};

struct pusher {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;                    /* under mu */
	atomic_int aborting;         /* set with stop; read by the progress callback */
	struct push_queue q;         /* under mu */
	struct push_stats st;        /* under mu */
	double next_try;             /* monotonic seconds; under mu */
	/* The thread's own (set before it starts): */
	char *controller, *bootstrap_file, *state_dir, *ca_file;
	char token[API_TOKEN_MAX + 1];
	enum push_state state;
	char why[512];               /* why the last attempt failed, for the log */
	enum log_level why_level;
	int announced;               /* success logged since the last failure */
	struct push_backoff bo;
	struct response resp;
	CURL *curl;
};

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *
push_state_str(enum push_state s)
{
	static const char *names[] = { "off", "enrolling", "ok", "unreachable", "refused" };

	return (unsigned)s < 5 ? names[s] : "off";
}

int
push_url(const char *base, const char *route, char *out, size_t outlen)
{
	size_t n = strlen(base);

	while (n > 0 && base[n - 1] == '/')
		n--;
	if (n > INT_MAX)
		return -1;
	int w = snprintf(out, outlen, "%.*s%s", (int)n, base, route);
	return w < 0 || (size_t)w >= outlen ? -1 : 0;
}

/* Why the attempt failed and what that says; push_settle() logs it with the delay. */
static enum outcome __attribute__((format(printf, 5, 6)))
failed(struct pusher *p, enum outcome o, enum log_level lvl, enum push_state st,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	p->why_level = lvl;
	p->state = st;
	return o;
}

/* The controller's {"error": ...}, or "HTTP <status>"; control characters masked. */
static const char *
resp_message(const struct response *r, char *buf, size_t len)
{
	if (api_json_decode_error(r->body, r->len, buf, len) == -1)
		snprintf(buf, len, "HTTP %ld", r->status);
	for (char *s = buf; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	return buf;
}

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct response *r = arg;
	size_t n = size * nmemb, room = sizeof(r->body) - 1 - r->len;
	size_t take = n < room ? n : room;

	memcpy(r->body + r->len, data, take);
	r->len += take;
	r->body[r->len] = '\0';
	return n;
}

/* Called by libcurl about every second, connecting included: aborts on stop. */
static int
on_progress(void *arg, curl_off_t dlt, curl_off_t dln, curl_off_t ult, curl_off_t uln)
{
	struct pusher *p = arg;

	(void)dlt, (void)dln, (void)ult, (void)uln;
	return atomic_load(&p->aborting) ? 1 : 0;
}

/* Sockets closed on exec: the collectors spawn commands meanwhile. */
static curl_socket_t
open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	int type = a->socktype;

	(void)arg, (void)purpose;
#ifdef SOCK_CLOEXEC
	type |= SOCK_CLOEXEC;
#endif
	int fd = socket(a->family, type, a->protocol);
	if (fd != -1)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd != -1 ? fd : CURL_SOCKET_BAD;
}

static void
set_options(struct pusher *p, const char *url, const char *json, size_t len,
    struct curl_slist *hdrs)
{
	CURL *c = p->curl;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "tbagentd/" TBMESH_VERSION);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, PUSH_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, PUSH_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (p->ca_file != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, p->ca_file);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &p->resp);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, p->resp.err);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, p);
	curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, open_socket);
}

/*
 * POST json to route with "Authorization: Bearer token"; the answer in
 * p->resp.  0: an HTTP status; -1: none (resp.err says why); -2: stopped.
 */
static int
http_post(struct pusher *p, const char *route, const char *token, const char *json,
    size_t len)
{
	char url[PUSH_URL_MAX], auth[API_TOKEN_MAX + 32];
	struct curl_slist *hdrs = NULL, *h = NULL;
	struct response *r = &p->resp;

	r->status = 0;
	r->len = 0;
	r->body[0] = r->err[0] = '\0';
	if (push_url(p->controller, route, url, sizeof(url)) == -1) {
		snprintf(r->err, sizeof(r->err), "URL too long");
		return -1;
	}
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	const char *lines[] = { "Content-Type: application/json", "Expect:", auth };
	for (size_t i = 0; i < 3 && (h = curl_slist_append(hdrs, lines[i])) != NULL; i++)
		hdrs = h;
	memset(auth, 0, sizeof(auth));
	set_options(p, url, json, len, hdrs);
	CURLcode rc = h != NULL ? curl_easy_perform(p->curl) : CURLE_OUT_OF_MEMORY;
	curl_slist_free_all(hdrs);
	if (rc == CURLE_ABORTED_BY_CALLBACK && atomic_load(&p->aborting))
		return -2;
	if (rc != CURLE_OK) {
		if (r->err[0] == '\0')
			snprintf(r->err, sizeof(r->err), "%s", curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &r->status);
	return 0;
}

/* An answer that is neither success nor a node token refused. */
static enum outcome
status_failure(struct pusher *p, const char *route)
{
	const struct response *r = &p->resp;
	char msg[256];

	resp_message(r, msg, sizeof(msg));
	if (r->status >= 500 || r->status < 400)
		return failed(p, OUT_RETRY, LOG_LVL_WARN, PUSH_UNREACHABLE, "%s%s: %ld: %s",
		    p->controller, route, r->status, msg);
	if (strcmp(route, "/v1/enroll") == 0 && (r->status == 401 || r->status == 403))
		return failed(p, OUT_RETRY, LOG_LVL_ERR, PUSH_ENROLLING, "bootstrap token "
		    "refused by %s (%ld: %s); replace %s", p->controller, r->status, msg,
		    p->bootstrap_file);
	if (strcmp(route, "/v1/enroll") == 0)
		return failed(p, OUT_RETRY, LOG_LVL_ERR, PUSH_ENROLLING, "%s refused the "
		    "enrolment (%ld: %s)", p->controller, r->status, msg);
	if (r->status == 403)
		return failed(p, OUT_RETRY, LOG_LVL_WARN, PUSH_REFUSED, "%s%s: 403: %s",
		    p->controller, route, msg);
	return failed(p, OUT_DROP, LOG_LVL_WARN, PUSH_REFUSED, "%s%s refused the report, dropped "
	    "(%ld: %s)", p->controller, route, r->status, msg);
}

static void
load_node_token(struct pusher *p)
{
	char err[PATH_MAX + 128];

	if (push_token_load(p->state_dir, p->token, sizeof(p->token), err, sizeof(err)) == -1) {
		if (errno != ENOENT)
			push_log(LOG_LVL_WARN, "node token: %s; enrolling instead", err);
		p->token[0] = '\0';
	}
}

static enum outcome
enrolled(struct pusher *p)
{
	struct api_enrolled e;
	char err[PATH_MAX + 128] = "not a token";

	memset(&e, 0, sizeof(e));
	if (api_json_decode_enrolled(p->resp.body, p->resp.len, &e, err, sizeof(err)) == -1 ||
	    !push_token_valid(e.token))
		return failed(p, OUT_RETRY, LOG_LVL_WARN, PUSH_ENROLLING, "%s/v1/enroll: the "
		    "answer is not understood: %s", p->controller, err);
	memcpy(p->token, e.token, sizeof(p->token));
	memset(e.token, 0, sizeof(e.token));
	if (push_token_save(p->state_dir, p->token, err, sizeof(err)) == -1)
		push_log(LOG_LVL_ERR, "enrolled as node %s, but the node token could not be "
		    "saved (%s): it is held in memory only, and a restart will need a new "
		    "bootstrap token", e.node, err);
	else
		push_log(LOG_LVL_INFO, "enrolled as node %s; node token saved in %s", e.node,
		    p->state_dir);
	return OUT_ENROLLED;
}

static enum outcome
push_enroll(struct pusher *p, const char *json, size_t len)
{
	char boot[API_TOKEN_MAX + 1], err[PATH_MAX + 128];

	if (p->bootstrap_file == NULL)
		return failed(p, OUT_WAIT, LOG_LVL_ERR, PUSH_ENROLLING, "no node token in %s "
		    "and no bootstrap token file to enrol with", p->state_dir);
	if (push_token_read(p->bootstrap_file, boot, sizeof(boot), err, sizeof(err)) == -1)
		return failed(p, OUT_WAIT, LOG_LVL_ERR, PUSH_ENROLLING, "bootstrap token: %s",
		    err);
	int rc = http_post(p, "/v1/enroll", boot, json, len);
	memset(boot, 0, sizeof(boot));
	if (rc == -2)
		return OUT_STOPPED;
	if (rc == -1)
		return failed(p, OUT_RETRY, LOG_LVL_WARN, PUSH_UNREACHABLE, "%s/v1/enroll: %s",
		    p->controller, p->resp.err);
	if (p->resp.status == 201 || p->resp.status == 200)
		return enrolled(p);
	return status_failure(p, "/v1/enroll");
}

static enum outcome
push_report(struct pusher *p, const char *json, size_t len)
{
	char msg[256], err[PATH_MAX + 128];
	int rc = http_post(p, "/v1/report", p->token, json, len);

	if (rc == -2)
		return OUT_STOPPED;
	if (rc == -1)
		return failed(p, OUT_RETRY, LOG_LVL_WARN, PUSH_UNREACHABLE, "%s/v1/report: %s",
		    p->controller, p->resp.err);
	if (p->resp.status >= 200 && p->resp.status < 300) {
		p->state = PUSH_OK;
		return OUT_SENT;
	}
	if (p->resp.status != 401)
		return status_failure(p, "/v1/report");
	memset(p->token, 0, sizeof(p->token));
	if (push_token_delete(p->state_dir, err, sizeof(err)) == -1)
		push_log(LOG_LVL_ERR, "the refused node token is not deleted: %s", err);
	return failed(p, OUT_REAUTH, LOG_LVL_WARN, PUSH_ENROLLING, "%s refused the node "
	    "token (%s); enrolling again", p->controller, resp_message(&p->resp, msg,
	    sizeof(msg)));
}

/* After an attempt: the log, the backoff, the report kept or freed, counters. */
static void
push_settle(struct pusher *p, char *json, size_t len, enum outcome o)
{
	double delay = 0;

	if (o == OUT_SENT)
		push_backoff_reset(&p->bo);
	else if (o != OUT_ENROLLED && o != OUT_STOPPED)
		delay = push_backoff_next(&p->bo);
	if (delay > 0)
		push_log(p->why_level, "%s; next attempt in %.1f s", p->why, delay);
	if (o == OUT_SENT && !p->announced)
		push_log(LOG_LVL_INFO, "reports reach %s", p->controller);
	if (o != OUT_ENROLLED)
		p->announced = o == OUT_SENT;
	pthread_mutex_lock(&p->mu);
	if (o == OUT_SENT || o == OUT_DROP || o == OUT_STOPPED)
		free(json);
	else
		push_queue_return(&p->q, json, len);
	p->st.pushed += o == OUT_SENT;
	p->st.failures += o == OUT_RETRY || o == OUT_REAUTH || o == OUT_DROP;
	p->st.dropped = p->q.dropped;
	p->st.state = p->state;
	p->st.enrolled = p->token[0] != '\0';
	p->st.backoff = delay;
	p->next_try = now_mono() + delay;
	pthread_mutex_unlock(&p->mu);
	memtune_release();	/* what this collection's report and request freed */
}

/*
 * The next report to send, once the backoff allows; NULL when stopping.
 * The deadline is on the wall clock (what the condition variable takes on
 * every system), but every submit wakes the loop, which measures what is
 * left on the monotonic clock: a clock step delays it one interval at most.
 */
static char *
push_wait(struct pusher *p, size_t *len)
{
	char *json = NULL;
	struct timespec ts;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		double left = p->next_try - now_mono();
		if (p->q.json != NULL && left <= 0) {
			json = push_queue_take(&p->q, len);
			break;
		}
		if (p->q.json == NULL) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		long ns = ts.tv_nsec + (long)((left - (double)(time_t)left) * 1e9);
		ts.tv_sec += (time_t)left + ns / 1000000000L;
		ts.tv_nsec = ns % 1000000000L;
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
	}
	pthread_mutex_unlock(&p->mu);
	return json;
}

static void *
push_main(void *arg)
{
	struct pusher *p = arg;
	enum outcome o = OUT_WAIT;
	char *json;
	size_t len;

	while (o != OUT_STOPPED && (json = push_wait(p, &len)) != NULL) {
		if (p->token[0] == '\0')
			load_node_token(p);
		o = p->token[0] == '\0' ? push_enroll(p, json, len) : push_report(p, json, len);
		push_settle(p, json, len, o);
	}
	return NULL;
}

static void
push_free(struct pusher *p)
{
	if (p->curl != NULL) {
		curl_easy_cleanup(p->curl);
		curl_global_cleanup();
	}
	push_queue_clear(&p->q);
	free(p->controller);
	free(p->bootstrap_file);
	free(p->state_dir);
	free(p->ca_file);
	memset(p->token, 0, sizeof(p->token));
	free(p);
}

/* Copies of the settings, the curl handle, the state directory, the saved token. */
static int
push_setup(struct pusher *p, const struct push_config *pc)
{
	const char *src[] = { pc->controller, pc->bootstrap_file, pc->state_dir, pc->ca_file };
	char **dst[] = { &p->controller, &p->bootstrap_file, &p->state_dir, &p->ca_file };

	for (int i = 0; i < 4; i++)
		if (src[i] != NULL && (*dst[i] = strdup(src[i])) == NULL)
			return -1;
	if (p->state_dir == NULL || curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		return -1;
	if ((p->curl = curl_easy_init()) == NULL) {
		curl_global_cleanup();
		return -1;
	}
	for (size_t n = strlen(p->controller); n > 0 && p->controller[n - 1] == '/'; n--)
		p->controller[n - 1] = '\0';
	if (push_token_mkdir(p->state_dir) == -1)
		push_log(LOG_LVL_ERR, "state directory %s: %s", p->state_dir, strerror(errno));
	load_node_token(p);
	p->state = p->token[0] != '\0' ? PUSH_OK : PUSH_ENROLLING;
	p->bo.seed = (uint32_t)getpid() ^ (uint32_t)(now_mono() * 1e6);
	return 0;
}

struct pusher *
push_start(const struct push_config *pc, const struct push_stats *carry)
{
	struct pusher *p;

	if (pc->controller == NULL)
		return NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL || push_setup(p, pc) == -1)
		goto fail;
	if (pthread_mutex_init(&p->mu, NULL) != 0 || pthread_cond_init(&p->cv, NULL) != 0)
		goto fail;
	atomic_init(&p->aborting, 0);
	if (carry != NULL)
		p->st = *carry;
	p->q.dropped = p->st.dropped;
	p->st.state = p->state;
	p->st.enrolled = p->token[0] != '\0';
	p->st.backoff = 0;
	memtune_init();	/* before the thread allocates */
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setstacksize(&attr, PUSH_STACK_SIZE);
		rc = pthread_create(&p->thread, &attr, push_main, p);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0)
		goto fail;
	push_log(LOG_LVL_INFO, "reporting to %s (%s %s)", p->controller,
	    p->st.enrolled ? "node token in" : "enrolling; state in", p->state_dir);
	return p;
fail:
	push_log(LOG_LVL_ERR, "cannot report to %s: out of resources", pc->controller);
	if (p != NULL)
		push_free(p);
	return NULL;
}

void
push_submit(struct pusher *p, const char *json, size_t len)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	if (push_queue_put(&p->q, json, len) == -1)
		push_log(LOG_LVL_WARN, "out of memory: report not queued for the controller");
	p->st.dropped = p->q.dropped;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void
push_stats(struct pusher *p, struct push_stats *out)
{
	if (p == NULL) {
		memset(out, 0, sizeof(*out));
		out->state = PUSH_OFF;
		return;
	}
	pthread_mutex_lock(&p->mu);
	*out = p->st;
	pthread_mutex_unlock(&p->mu);
}

void
push_stop(struct pusher *p, struct push_stats *last)
{
	if (p == NULL) {
		if (last != NULL)
			push_stats(NULL, last);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	atomic_store(&p->aborting, 1);
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	if (last != NULL)
		*last = p->st;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	push_free(p);
}
