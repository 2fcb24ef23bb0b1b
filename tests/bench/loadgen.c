/*
 * loadgen: many simulated agents at once, for the controller's ingestion
 * benchmark and its crash test.  One thread drives C kept-alive HTTP/1.1
 * connections with libcurl's multi interface; every run is bounded by a
 * count and by time, so it always ends by itself.
 *
 *   loadgen setup URL ADMIN_TOKEN_FILE N TOKENS_OUT [--prefix P] [--concurrency C]
 *     Enrols N simulated nodes P-00001 ... : for each, a bootstrap token
 *     (POST /v1/tokens with the admin token), then POST /v1/enroll with it
 *     and the node's first report.  Once all are enrolled, writes one line
 *     per node to TOKENS_OUT, "name node_token hardware_uuid", and prints
 *     "enrolled=N seconds=S rate=R/s".  Exit 0, or 1 naming the first node
 *     that could not be enrolled (a 503 or a network error is retried).
 *
 *   loadgen run URL TOKENS_FILE --seconds S --concurrency C [--ack-log FILE] [--max N]
 *     POSTs reports to /v1/report, each with its node's token, round-robin
 *     over the nodes of TOKENS_FILE and never two at once for one node (as
 *     one agent sends them), until S seconds have passed or N were sent;
 *     then waits for the answers still due and prints one line:
 *       sent=N ok=N failed=N seconds=S rate=R/s p50_ms=M p99_ms=M cpu_s=C
 *     rate counts the 2xx per second; the latencies are those of the 2xx;
 *     cpu_s is the processor time (user and system) loadgen itself used
 *     over the run, its share of a machine it shares with the server.
 *     With --ack-log, each 2xx appends "name collected_at" to FILE as it
 *     arrives, so FILE holds a line only for a report the server
 *     acknowledged.  SIGTERM and SIGINT end the run early, as the end of S
 *     does.  Exit 0, or 1 when no request got a 2xx.
 *
 * A node's report is built and encoded once (report_init, its fields,
 * report_encode); each send only rewrites its collected_at, a fixed-width
 * slot in the encoded text, with unix time in milliseconds that increases
 * from one send of that node to the next.
 *
 * The simulated cluster (lg_report.c): nodes in groups of four, each group cabled as a
 * full mesh on receptacles 1-3 (80 Gb/s, one IPv4 each, RDMA active),
 * receptacles 4-6 empty; RDMA enabled with a device per port; 512 GiB of
 * memory; power and temperatures from "sim".
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "api_json.h"
#include "report.h"

#include "lg_report.h"

#define LG_RESP_MAX 65536           /* kept of a response body */
#define LG_TRIES 5                  /* per setup request, on 503 or network error */
#define LG_SETUP_TIMEOUT_S 30L
#define LG_RUN_TIMEOUT_S 10L
#define LG_PAUSE_S 0.02             /* a connection's pause after a network error */

struct sim {
	char name[API_NAME_MAX + 1];
	char uuid[REPORT_STR_MAX + 1];
	char token[API_TOKEN_MAX + 1];  /* setup: the bootstrap token, then the node's */
	struct lg_body b;               /* the encoded report */
	struct curl_slist *hdrs;
	int busy, step, tries;          /* step (setup): 0 token, 1 enrol, 2 done */
};

struct conn {
	CURL *easy;
	struct sim *sim;                /* the node of the request under way */
	int busy;                       /* a request is in the multi handle */
	double t0, resume;              /* request start; idle until resume */
	char *req;                      /* a request body the connection owns */
	char *resp;                     /* the start of the response body */
	size_t resp_len;
	char err[CURL_ERROR_SIZE];
};

struct lg;
typedef int (*lg_start_fn)(struct lg *g, struct conn *c);
typedef void (*lg_finish_fn)(struct lg *g, struct conn *c, long status, CURLcode rc);

struct lg {
	char url[2048];                 /* without a trailing slash */
	struct sim *sims;
	int n, next;                    /* next: round-robin cursor */
	struct conn *conns;
	int nconns;
	CURLM *multi;
	lg_start_fn start;              /* 0: a request was set up; 1: none left */
	lg_finish_fn finish;
	/* run */
	double deadline;
	uint64_t max, sent, ok, failed;
	double *lat;                    /* milliseconds of each 2xx */
	size_t nlat, caplat;
	int ack_fd;
	char first_failure[256];
	/* setup */
	struct curl_slist *admin_hdrs;
	int enrolled, setup_failed;
};

static volatile sig_atomic_t stopping;

/* The processor time this process has used, user and system, in seconds. */
static double
cpu_used(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* "prefix-00042" -> prefix and 42; -1 when the name has no such form. */
static int
split_name(const char *name, char *prefix, size_t n, int *idx)
{
	const char *dash = strrchr(name, '-');
	char *end;

	if (dash == NULL || dash == name || (size_t)(dash - name) >= n)
		return -1;
	long v = strtol(dash + 1, &end, 10);
	if (end == dash + 1 || *end != '\0' || v < 1 || v > 99999999)
		return -1;
	memcpy(prefix, name, (size_t)(dash - name));
	prefix[dash - name] = '\0';
	*idx = (int)v;
	return 0;
}

/* The headers of a request made with token; NULL when out of memory. */
static struct curl_slist *
auth_headers(const char *token)
{
	char auth[API_TOKEN_MAX + 32];
	struct curl_slist *h = NULL, *t;
	const char *lines[] = { auth, "Content-Type: application/json", "Expect:" };

	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if ((t = curl_slist_append(h, lines[i])) == NULL) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = t;
	}
	return h;
}

static size_t
on_body(char *p, size_t sz, size_t n, void *arg)
{
	struct conn *c = arg;
	size_t len = sz * n, room = LG_RESP_MAX - 1 - c->resp_len;

	if (len < room)
		room = len;
	memcpy(c->resp + c->resp_len, p, room);
	c->resp_len += room;
	c->resp[c->resp_len] = '\0';
	return len;
}

/* Start a POST of body (not copied: it must outlive the request) on c. */
static int
post(struct lg *g, struct conn *c, const char *path, struct curl_slist *hdrs,
    const char *body, size_t len)
{
	char url[sizeof(g->url) + 32];

	snprintf(url, sizeof(url), "%s%s", g->url, path);
	c->resp_len = 0;
	c->resp[0] = '\0';
	c->err[0] = '\0';
	curl_easy_setopt(c->easy, CURLOPT_URL, url);
	curl_easy_setopt(c->easy, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c->easy, CURLOPT_POSTFIELDS, body);
	c->t0 = mono();
	if (curl_multi_add_handle(g->multi, c->easy) != CURLM_OK)
		return -1;
	c->busy = 1;
	return 0;
}

static int
conns_new(struct lg *g, int n, long timeout_s)
{
	if ((g->multi = curl_multi_init()) == NULL ||
	    (g->conns = calloc((size_t)n, sizeof(*g->conns))) == NULL)
		return -1;
	g->nconns = n;
	curl_multi_setopt(g->multi, CURLMOPT_MAXCONNECTS, (long)n);
	for (int i = 0; i < n; i++) {
		struct conn *c = &g->conns[i];
		if ((c->easy = curl_easy_init()) == NULL || (c->resp = malloc(LG_RESP_MAX)) == NULL)
			return -1;
		curl_easy_setopt(c->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
		curl_easy_setopt(c->easy, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c->easy, CURLOPT_TIMEOUT, timeout_s);
		curl_easy_setopt(c->easy, CURLOPT_CONNECTTIMEOUT, 5L);
		curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
		curl_easy_setopt(c->easy, CURLOPT_ERRORBUFFER, c->err);
		curl_easy_setopt(c->easy, CURLOPT_PRIVATE, c);
	}
	return 0;
}

static void
lg_free(struct lg *g)
{
	for (int i = 0; g->conns != NULL && i < g->nconns; i++) {
		if (g->conns[i].busy)
			curl_multi_remove_handle(g->multi, g->conns[i].easy);
		curl_easy_cleanup(g->conns[i].easy);
		free(g->conns[i].req);
		free(g->conns[i].resp);
	}
	free(g->conns);
	if (g->multi != NULL)
		curl_multi_cleanup(g->multi);
	for (int i = 0; g->sims != NULL && i < g->n; i++) {
		free(g->sims[i].b.text);
		curl_slist_free_all(g->sims[i].hdrs);
	}
	free(g->sims);
	curl_slist_free_all(g->admin_hdrs);
	free(g->lat);
	if (g->ack_fd >= 0)
		close(g->ack_fd);
}

/* Give every idle connection its next request; how many are busy or pausing. */
static int
fill(struct lg *g, int *pausing)
{
	double now = mono();
	int active = 0;

	*pausing = 0;
	for (int i = 0; i < g->nconns; i++) {
		struct conn *c = &g->conns[i];
		if (!c->busy && c->resume > now) {
			(*pausing)++;
			continue;
		}
		if (!c->busy && g->start(g, c) != 0)
			continue;
		active++;
	}
	return active;
}

/* Run requests until start() has none left and every answer is in. */
static void
loop(struct lg *g)
{
	int pausing, running;
	CURLMsg *m;

	while (fill(g, &pausing) > 0 || pausing > 0) {
		curl_multi_poll(g->multi, NULL, 0, pausing ? 5 : 100, NULL);
		curl_multi_perform(g->multi, &running);
		while ((m = curl_multi_info_read(g->multi, &running)) != NULL) {
			char *priv = NULL;
			long status = 0;

			if (m->msg != CURLMSG_DONE)
				continue;
			CURLcode rc = m->data.result;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
			struct conn *c = (struct conn *)(void *)priv;
			curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &status);
			curl_multi_remove_handle(g->multi, m->easy_handle);
			c->busy = 0;
			g->finish(g, c, status, rc);
		}
	}
}

static void
describe(const struct conn *c, long status, CURLcode rc, char *out, size_t n)
{
	if (rc != CURLE_OK)
		snprintf(out, n, "%s", c->err[0] ? c->err : curl_easy_strerror(rc));
	else
		snprintf(out, n, "HTTP %ld %.200s", status, c->resp);
}

/* --- run --- */

static int
run_start(struct lg *g, struct conn *c)
{
	struct sim *s = NULL;

	if (stopping || mono() >= g->deadline || (g->max > 0 && g->sent >= g->max))
		return 1;
	for (int k = 0; k < g->n && s == NULL; k++) {
		struct sim *t = &g->sims[g->next];
		g->next = (g->next + 1) % g->n;
		if (!t->busy)
			s = t;
	}
	if (s == NULL)
		return 1;
	lg_body_stamp(&s->b);
	c->sim = s;
	if (post(g, c, "/v1/report", s->hdrs, s->b.text, s->b.len) == -1)
		return 1;
	s->busy = 1;
	g->sent++;
	return 0;
}

static void
ack(struct lg *g, const struct sim *s)
{
	char line[API_NAME_MAX + LG_SLOT_W + 8];
	const char *at = s->b.text + s->b.slot;
	int w = LG_SLOT_W;

	while (w > 0 && *at == ' ')
		at++, w--;
	int n = snprintf(line, sizeof(line), "%s %.*s\n", s->name, w, at);
	if (write(g->ack_fd, line, (size_t)n) != n) {
		fprintf(stderr, "loadgen: ack log: %s\n", strerror(errno));
		close(g->ack_fd);
		g->ack_fd = -1;
	}
}

static void
run_finish(struct lg *g, struct conn *c, long status, CURLcode rc)
{
	struct sim *s = c->sim;

	s->busy = 0;
	c->sim = NULL;
	if (rc != CURLE_OK || status < 200 || status > 299) {
		if (g->failed++ == 0)
			describe(c, status, rc, g->first_failure, sizeof(g->first_failure));
		if (rc != CURLE_OK)
			c->resume = mono() + LG_PAUSE_S;
		return;
	}
	double ms = (mono() - c->t0) * 1e3;
	g->ok++;
	if (g->ack_fd >= 0)
		ack(g, s);
	if (g->nlat == g->caplat) {
		size_t ncap = g->caplat ? g->caplat * 2 : 65536;
		double *nl = realloc(g->lat, ncap * sizeof(*nl));
		if (nl == NULL)
			return;
		g->lat = nl;
		g->caplat = ncap;
	}
	g->lat[g->nlat++] = ms;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Read "name token uuid" lines and build each node's report. */
static int
load_tokens(struct lg *g, const char *path)
{
	char line[512], prefix[API_NAME_MAX + 1];
	struct report *r = report_new();
	FILE *f = fopen(path, "r");
	int cap = 0, max_idx = 0, idx, rc = -1;

	if (f == NULL || r == NULL) {
		fprintf(stderr, "loadgen: %s: %s\n", path, f ? "out of memory" : strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (g->n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct sim *ns = realloc(g->sims, (size_t)cap * sizeof(*ns));
			if (ns == NULL)
				goto out;
			g->sims = ns;
		}
		struct sim *s = &g->sims[g->n];
		memset(s, 0, sizeof(*s));
		if (sscanf(line, "%63s %80s %255s", s->name, s->token, s->uuid) != 3 ||
		    split_name(s->name, prefix, sizeof(prefix), &idx) == -1) {
			fprintf(stderr, "loadgen: %s:%d: not \"PREFIX-N token uuid\"\n", path, g->n + 1);
			goto out;
		}
		g->n++;
		if (idx > max_idx)
			max_idx = idx;
	}
	for (int i = 0; i < g->n; i++) {
		struct sim *s = &g->sims[i];
		split_name(s->name, prefix, sizeof(prefix), &idx);
		lg_build_report(prefix, idx, max_idx, s->name, s->uuid, r);
		if (lg_body_encode(&s->b, r, s->name) == -1 || (s->hdrs = auth_headers(s->token)) == NULL)
			goto out;
	}
	rc = g->n > 0 ? 0 : -1;
	if (g->n == 0)
		fprintf(stderr, "loadgen: %s: no nodes\n", path);
out:
	if (f != NULL)
		fclose(f);
	free(r);
	return rc;
}

static int
run(struct lg *g, const char *tokens, double seconds, int conc, const char *ack_log)
{
	if (load_tokens(g, tokens) == -1)
		return 1;
	if (conc > g->n) {
		fprintf(stderr, "loadgen: %d nodes: concurrency lowered to %d\n", g->n, g->n);
		conc = g->n;
	}
	if (ack_log != NULL &&
	    (g->ack_fd = open(ack_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) == -1) {
		fprintf(stderr, "loadgen: %s: %s\n", ack_log, strerror(errno));
		return 1;
	}
	if (conns_new(g, conc, LG_RUN_TIMEOUT_S) == -1) {
		fprintf(stderr, "loadgen: out of memory\n");
		return 1;
	}
	g->start = run_start;
	g->finish = run_finish;
	double t0 = mono(), cpu0 = cpu_used();
	g->deadline = t0 + seconds;
	loop(g);
	double took = mono() - t0, cpu = cpu_used() - cpu0;
	double p50 = 0, p99 = 0;
	if (g->nlat > 0) {
		qsort(g->lat, g->nlat, sizeof(double), cmp_double);
		p50 = g->lat[g->nlat / 2];
		p99 = g->lat[g->nlat * 99 / 100];
	}
	if (g->failed > 0)
		fprintf(stderr, "loadgen: first failure: %s\n", g->first_failure);
	printf("sent=%" PRIu64 " ok=%" PRIu64 " failed=%" PRIu64 " seconds=%.2f rate=%.0f/s "
	    "p50_ms=%.2f p99_ms=%.2f cpu_s=%.2f\n", g->sent, g->ok, g->failed, took,
	    took > 0 ? (double)g->ok / took : 0.0, p50, p99, cpu);
	return g->ok > 0 ? 0 : 1;
}

/* --- setup --- */

static int
setup_start(struct lg *g, struct conn *c)
{
	struct sim *s = c->sim;

	if (g->setup_failed || stopping)
		return 1;
	if (s == NULL) {
		if (g->next >= g->n)
			return 1;
		s = c->sim = &g->sims[g->next++];
	}
	curl_slist_free_all(s->hdrs);
	s->hdrs = NULL;
	free(c->req);
	c->req = NULL;
	if (s->step == 0) {
		struct api_token_request tr = { .role = ROLE_BOOTSTRAP, .ttl_seconds = 3600,
		    .accept = 1 };
		snprintf(tr.label, sizeof(tr.label), "loadgen %s", s->name);
		if ((c->req = api_json_token_request(&tr)) == NULL)
			return 1;
		return post(g, c, "/v1/tokens", g->admin_hdrs, c->req, strlen(c->req)) == -1;
	}
	lg_body_stamp(&s->b);
	if ((s->hdrs = auth_headers(s->token)) == NULL)
		return 1;
	return post(g, c, "/v1/enroll", s->hdrs, s->b.text, s->b.len) == -1;
}

/* Keep what a 201 of the current step says; -1 with err set when it does not. */
static int
setup_take(struct sim *s, const struct conn *c, char *err, size_t errlen)
{
	if (s->step == 0) {
		struct api_token t;
		return api_json_decode_token(c->resp, c->resp_len, &t, s->token,
		    sizeof(s->token), err, errlen) == -1 || s->token[0] == '\0' ? -1 : 0;
	}
	struct api_enrolled e;
	if (api_json_decode_enrolled(c->resp, c->resp_len, &e, err, errlen) == -1)
		return -1;
	if (strcmp(e.node, s->name) != 0) {
		snprintf(err, errlen, "enrolled as \"%s\"", e.node);
		return -1;
	}
	memcpy(s->token, e.token, sizeof(s->token));
	return 0;
}

static void
setup_finish(struct lg *g, struct conn *c, long status, CURLcode rc)
{
	struct sim *s = c->sim;
	static const char *what[] = { "POST /v1/tokens", "POST /v1/enroll" };
	char err[300];

	if (rc == CURLE_OK && status == 201) {
		if (setup_take(s, c, err, sizeof(err)) == 0) {
			s->tries = 0;
			if (++s->step == 2) {
				g->enrolled++;
				c->sim = NULL;
			}
			return;
		}
	} else {
		describe(c, status, rc, err, sizeof(err));
		if ((rc != CURLE_OK || status == 503) && ++s->tries < LG_TRIES) {
			c->resume = mono() + LG_PAUSE_S;
			return;
		}
	}
	if (!g->setup_failed)
		fprintf(stderr, "loadgen: %s: %s: %s\n", s->name, what[s->step], err);
	g->setup_failed = 1;
	c->sim = NULL;
}

static int
read_admin_token(const char *path, char *token, size_t n)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (f == NULL) {
		fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fgets(token, (int)n, f) != NULL;
	fclose(f);
	token[strcspn(token, "\r\n")] = '\0';
	if (!ok || token[0] == '\0') {
		fprintf(stderr, "loadgen: %s: no token\n", path);
		return -1;
	}
	return 0;
}

static int
write_tokens(const struct lg *g, const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < g->n; i++)
		fprintf(f, "%s %s %s\n", g->sims[i].name, g->sims[i].token, g->sims[i].uuid);
	if (fclose(f) != 0) {
		fprintf(stderr, "loadgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
make_sims(struct lg *g, const char *prefix, int n)
{
	struct report *r = report_new();
	int rc = 0;

	if (r == NULL || (g->sims = calloc((size_t)n, sizeof(*g->sims))) == NULL) {
		free(r);
		return -1;
	}
	g->n = n;
	for (int i = 0; i < n && rc == 0; i++) {
		struct sim *s = &g->sims[i];
		snprintf(s->name, sizeof(s->name), "%s-%05d", prefix, i + 1);
		lg_sim_uuid(prefix, i + 1, 0, s->uuid, sizeof(s->uuid));
		lg_build_report(prefix, i + 1, n, s->name, s->uuid, r);
		rc = lg_body_encode(&s->b, r, s->name);
	}
	free(r);
	return rc;
}

static int
setup(struct lg *g, const char *admin_file, int n, const char *out, const char *prefix,
    int conc)
{
	char admin[API_TOKEN_MAX + 2];

	if (!api_name_valid(prefix) || strlen(prefix) > API_NAME_MAX - 9) {
		fprintf(stderr, "loadgen: --prefix %s: not a valid start of a node name\n", prefix);
		return 2;
	}
	if (read_admin_token(admin_file, admin, sizeof(admin)) == -1)
		return 1;
	if ((g->admin_hdrs = auth_headers(admin)) == NULL || make_sims(g, prefix, n) == -1 ||
	    conns_new(g, conc < n ? conc : n, LG_SETUP_TIMEOUT_S) == -1) {
		fprintf(stderr, "loadgen: cannot prepare the nodes\n");
		return 1;
	}
	g->start = setup_start;
	g->finish = setup_finish;
	double t0 = mono();
	loop(g);
	double took = mono() - t0;
	if (g->enrolled != n) {
		fprintf(stderr, "loadgen: %d of %d nodes enrolled\n", g->enrolled, n);
		return 1;
	}
	if (write_tokens(g, out) == -1)
		return 1;
	printf("enrolled=%d seconds=%.2f rate=%.0f/s\n", n, took, took > 0 ? n / took : 0.0);
	return 0;
}

static const char usage[] =
"usage: loadgen setup URL ADMIN_TOKEN_FILE N TOKENS_OUT [--prefix P] [--concurrency C]\n"
"       loadgen run URL TOKENS_FILE --seconds S --concurrency C [--ack-log FILE]\n"
"                   [--max N]\n";

struct opts {
	const char *prefix, *ack_log;
	double seconds;
	long conc, max;
};

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "prefix", required_argument, NULL, 'p' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "ack-log", required_argument, NULL, 'a' },
		{ "max", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': o->prefix = optarg; break;
		case 'c': o->conc = strtol(optarg, NULL, 10); break;
		case 's': o->seconds = strtod(optarg, NULL); break;
		case 'a': o->ack_log = optarg; break;
		case 'm': o->max = strtol(optarg, NULL, 10); break;
		default: return -1;
		}
	}
	if (o->conc < 1 || o->conc > 4096 || !(o->seconds > 0 && o->seconds <= 86400) ||
	    o->max < 0) {
		fprintf(stderr, "loadgen: --concurrency is 1..4096, --seconds 0..86400, "
		    "--max >= 0\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { .prefix = "sim", .seconds = 600, .conc = 16 };
	struct lg g = { .ack_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	int rc;

	if (argc < 2 || parse_opts(argc - 1, argv + 1, &o) == -1)
		return fputs(usage, stderr), 2;
	int npos = argc - 1 - optind;   /* positional arguments after the mode */
	char **pos = argv + 1 + optind;
	int setup_mode = strcmp(argv[1], "setup") == 0;
	if ((setup_mode && npos != 4) || (!setup_mode && (strcmp(argv[1], "run") != 0 ||
	    npos != 2)))
		return fputs(usage, stderr), 2;
	snprintf(g.url, sizeof(g.url), "%s", pos[0]);
	g.url[strcspn(g.url, "\n")] = '\0';
	for (size_t l = strlen(g.url); l > 0 && g.url[l - 1] == '/'; l--)
		g.url[l - 1] = '\0';
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return 1;
	if (setup_mode) {
		long n = strtol(pos[2], NULL, 10);
		rc = n >= 1 && n <= 9999999 ? setup(&g, pos[1], (int)n, pos[3], o.prefix,
		    (int)o.conc) : (fputs(usage, stderr), 2);
	} else {
		g.max = (uint64_t)o.max;
		rc = run(&g, pos[1], o.seconds, (int)o.conc, o.ack_log);
	}
	lg_free(&g);
	curl_global_cleanup();
	return rc;
}
