/*
 * The API server: one libmicrohttpd daemon with one polling thread, and
 * suspend/resume, so a report's connection waits for its group commit
 * without holding the thread.  Also serves the dashboard's static files:
 * those compiled in, or those under web_root when it is set.  The
 * connection limits, the request deadline and the polling (epoll on Linux,
 * on http_guard's thread) are http_guard's: the handler tells it when a
 * request has arrived whole, the completion callback when it was answered.
 *
 * One thread: under the ingestion benchmark (tests/bench), on 2 cores,
 * one polling thread spent 42-46 us of processor time per report where two
 * (two daemons sharing the port with SO_REUSEPORT) spent 49-53, with less
 * locking and waking and more connections ready at each poll(); it is busy
 * about 0.63 of a core at 20,000 reports/s.
 */
#include "api_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api_jobs.h"
#include "api_json.h"
#include "ctrl.h"
#include "http_guard.h"
#include "ingest.h"
#include "log.h"
#include "registry.h"
#include "resolve.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

/* Files kept for the rest of the controller (SQLite, SSH, pipes) beside the connections. */
#define API_FILES_RESERVE 256
/*
 * Each connection's memory for a request's headers, its read buffer and
 * the answer's headers.  libmicrohttpd zeroes all of it at every request:
 * 16 KiB instead of its 32 saved 0.8 us of processor time per report in the
 * ingestion benchmark.  Bodies pass through it in pieces (a request keeps
 * its own copy), so only the headers must fit (12 KiB of them still do).
 */
#define API_CONN_MEMORY (16 * 1024)

/* Who may call a route: nobody needs a token, or at least this role. */
enum access { OPEN, AGENT_BOOTSTRAP, AGENT_NODE, VIEWER, ADMIN };

static const struct route {
	const char *method;
	const char *prefix;       /* the path, or its part before "{}" */
	const char *suffix;       /* after "{}", or NULL when the path has no parameter */
	enum access access;
	api_handler fn;
} routes[] = {
	{ "GET", "/healthz", NULL, OPEN, api_healthz },
	{ "GET", "/metrics", NULL, OPEN, api_metrics },
	{ "GET", "/v1/prometheus/targets", NULL, VIEWER, api_prometheus_targets },
	{ "POST", "/v1/enroll", NULL, AGENT_BOOTSTRAP, api_enroll },
	{ "POST", "/v1/report", NULL, AGENT_NODE, api_report },
	{ "GET", "/v1/nodes", NULL, VIEWER, api_nodes_list },
	{ "GET", "/v1/nodes/", "", VIEWER, api_node_show },
	{ "DELETE", "/v1/nodes/", "", ADMIN, api_node_remove },
	{ "POST", "/v1/nodes/", "/cordon", ADMIN, api_node_cordon },
	{ "POST", "/v1/nodes/", "/uncordon", ADMIN, api_node_uncordon },
	{ "POST", "/v1/nodes/", "/down", ADMIN, api_node_down },
	{ "GET", "/v1/nodes/", "/samples", VIEWER, api_node_samples },
	{ "POST", "/v1/nodes/", "/accept", ADMIN, api_node_accept },
	{ "POST", "/v1/tokens", NULL, ADMIN, api_tokens_create },
	{ "GET", "/v1/tokens", NULL, ADMIN, api_tokens_list },
	{ "DELETE", "/v1/tokens/", "", ADMIN, api_tokens_revoke },
	{ "GET", "/v1/events", NULL, VIEWER, api_events_list },
	{ "GET", "/v1/clusters", NULL, VIEWER, api_clusters_list },
	{ "POST", "/v1/clusters", NULL, ADMIN, api_clusters_create },
	{ "POST", "/v1/clusters/", "/nodes", ADMIN, api_clusters_add_nodes },
	{ "POST", "/v1/clusters/", "/allow", ADMIN, api_cluster_allow },
	{ "POST", "/v1/clusters/", "/disallow", ADMIN, api_cluster_disallow },
	{ "GET", "/v1/clusters/", "/wiring", VIEWER, api_wiring_get },
	{ "GET", "/v1/clusters/", "/wiring/plan", VIEWER, api_wiring_plan_get },
	{ "PUT", "/v1/clusters/", "/wiring/plan", ADMIN, api_wiring_plan_put },
	{ "POST", "/v1/clusters/", "/wiring/plan", ADMIN, api_wiring_plan_propose },
	{ "POST", "/v1/provisions", NULL, ADMIN, api_provisions_create },
	{ "GET", "/v1/provisions/", "", ADMIN, api_provision_show },
	{ "POST", "/v1/nodes/", "/deprovision", ADMIN, api_node_deprovision },
	{ "GET", "/v1/models", NULL, VIEWER, api_models_list },
	{ "POST", "/v1/models", NULL, ADMIN, api_models_add },
	{ "POST", "/v1/placements/plan", NULL, VIEWER, api_placements_plan },
	{ "POST", "/v1/placements", NULL, ADMIN, api_placements_create },
	{ "GET", "/v1/placements", NULL, VIEWER, api_placements_list },
	{ "GET", "/v1/placements/", "", VIEWER, api_placement_show },
	{ "DELETE", "/v1/placements/", "", ADMIN, api_placement_remove },
	{ "POST", "/v1/placements/", "/replan", VIEWER, api_placement_replan },
	{ "POST", "/v1/nodes/", "/ssh", ADMIN, api_node_ssh_set },
	{ "GET", "/v1/nodes/", "/ssh", VIEWER, api_node_ssh_get },
	{ "POST", "/v1/nodes/", "/trust", ADMIN, api_node_trust },
	{ "POST", "/v1/credentials", NULL, ADMIN, api_credentials_set },
	{ "POST", "/v1/rollouts", NULL, ADMIN, api_rollouts_start },
	{ "GET", "/v1/rollouts", NULL, VIEWER, api_rollouts_list },
	{ "GET", "/v1/rollouts/", "", VIEWER, api_rollout_show },
	{ "POST", "/v1/rollouts/", "/pause", ADMIN, api_rollout_pause },
	{ "POST", "/v1/rollouts/", "/resume", ADMIN, api_rollout_resume },
	{ "POST", "/v1/rollouts/", "/abort", ADMIN, api_rollout_abort },
	{ "POST", "/v1/rollouts/", "/retry", ADMIN, api_rollout_retry },
	{ "POST", "/v1/jobs", NULL, ADMIN, api_jobs_submit },
	{ "GET", "/v1/jobs", NULL, VIEWER, api_jobs_list },
	{ "GET", "/v1/jobs/", "", VIEWER, api_job_show },
	{ "POST", "/v1/jobs/", "/stop", ADMIN, api_job_stop },
	{ "GET", "/v1/jobs/", "/logs", VIEWER, api_job_logs },
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

struct api_server {
	struct MHD_Daemon *mhd;
	struct http_guard *guard;
	struct ctrl *c;
	int port;
	char *web_root;
	char *tls_cert, *tls_key;
	struct MHD_Response *stored;  /* the 204 of every stored report, made once */
	pthread_mutex_t slow_mu;      /* slow_running */
	pthread_cond_t slow_cv;       /* signalled when a slow answer's thread ends */
	int slow_running;
};

/*
 * Per-request state, from the first callback to the completion notice.  The
 * route and the token are settled on the headers, in the first callback:
 * a request that has no route or no right to it is answered before a byte
 * of its body is read.
 */
struct request {
	char *body;
	size_t len, cap;
	int too_large;
	const struct route *rt;    /* NULL: not an API route (a static file) */
	char param[API_NAME_MAX + 2];
	struct api_token who;      /* the authorised token (routes that need one) */
	char actor[96];
	const char *token;         /* the bearer token presented, or NULL */
	double start;
	struct ingest_item *item;  /* a report waiting for its commit */
	int item_done;             /* the commit, or the slow answer, is there */
	int slow;                  /* a slow answer is being made (struct api_resp) */
	struct api_resp slow_rs;   /* ... and here it is once item_done */
	struct api_server *server;
	void (*slow_fn)(void *, struct api_resp *);
	void *slow_arg;
	struct MHD_Connection *conn;
	struct http_guard *guard;  /* the server's, which resumes conn */
	pthread_mutex_t mu;
};

void
api_body(struct api_resp *rs, int status, char *json)
{
	if (json == NULL) {
		rs->status = 500;
		rs->body = NULL;
		return;
	}
	rs->status = status;
	rs->body = json;
}

void
api_error(struct api_resp *rs, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	api_body(rs, status, api_json_error(msg));
}

int
api_query_number(struct api_req *rq, struct api_resp *rs, const char *key, double lo,
    double hi, double *out)
{
	const char *v = rq->query(rq->qctx, key);
	char *end;

	if (v == NULL)
		return 0;
	double d = strtod(v, &end);
	if (end == v || *end != '\0' || !isfinite(d) || d < lo || d > hi) {
		api_error(rs, 400, "%s: \"%s\" is not a number from %g to %g", key, v, lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static MHD_RESULT
send_resp(struct MHD_Connection *conn, struct api_resp *rs, const char *allow)
{
	size_t len = rs->body ? strlen(rs->body) : 0;
	struct MHD_Response *r = MHD_create_response_from_buffer(len, rs->body ? rs->body : "",
	    rs->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);

	if (r == NULL) {
		free(rs->body);
		return MHD_NO;
	}
	if (rs->status != 204)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
		    rs->ctype ? rs->ctype : "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (allow != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	MHD_RESULT ret = MHD_queue_response(conn, (unsigned int)rs->status, r);
	MHD_destroy_response(r);
	return ret;
}

static MHD_RESULT
send_error(struct MHD_Connection *conn, int status, const char *msg, const char *allow)
{
	struct api_resp rs = { 0 };

	api_error(&rs, status, "%s", msg);
	return send_resp(conn, &rs, allow);
}

/* Match a path against a route; the parameter goes to param (size n). */
static int
route_match(const struct route *rt, const char *url, char *param, size_t n)
{
	size_t pl = strlen(rt->prefix);

	param[0] = '\0';
	if (rt->suffix == NULL)
		return strcmp(url, rt->prefix) == 0;
	if (strncmp(url, rt->prefix, pl) != 0)
		return 0;
	const char *seg = url + pl, *slash = strchr(seg, '/');
	size_t sl = slash ? (size_t)(slash - seg) : strlen(seg);
	if (sl == 0 || sl >= n || strcmp(seg + sl, rt->suffix) != 0)
		return 0;
	memcpy(param, seg, sl);
	param[sl] = '\0';
	return 1;
}

/* allow += ", method" unless it is there. */
static void
allow_add(char *allow, size_t allowlen, const char *method)
{
	if (strstr(allow, method) == NULL)
		snprintf(allow + strlen(allow), allowlen - strlen(allow), "%s%s",
		    allow[0] ? ", " : "", method);
}

/*
 * The route for (method, url); *allow lists the methods of a known path.
 * HEAD is GET without the body (libmicrohttpd leaves it out).
 */
static const struct route *
route_find(const char *method, const char *url, char *param, size_t n, char *allow,
    size_t allowlen)
{
	const char *as = strcmp(method, "HEAD") == 0 ? "GET" : method;
	const struct route *hit = NULL;

	allow[0] = '\0';
	for (size_t i = 0; i < NROUTES; i++) {
		if (!route_match(&routes[i], url, param, n))
			continue;
		if (strcmp(routes[i].method, as) == 0)
			hit = &routes[i];
		allow_add(allow, allowlen, routes[i].method);
		if (strcmp(routes[i].method, "GET") == 0)
			allow_add(allow, allowlen, "HEAD");
	}
	if (hit != NULL)
		route_match(hit, url, param, n);
	return hit;
}

/* Check the bearer token against the route's access; 0, or an HTTP status. */
static int
authorize(struct ctrl *c, const struct route *rt, struct request *rq, const char **msg)
{
	if (rt->access == OPEN)
		return 0;
	if (rq->token == NULL) {
		*msg = "missing \"Authorization: Bearer <token>\"";
		return 401;
	}
	if (registry_check_token(c->reg, rq->token, ctrl_now(), &rq->who) == -1) {
		*msg = "invalid, expired or revoked token";
		return 401;
	}
	snprintf(rq->actor, sizeof(rq->actor), "%s:%s", api_role_str(rq->who.role),
	    rq->who.role == ROLE_NODE ? rq->who.node : rq->who.id);
	int ok;
	switch (rt->access) {
	case AGENT_BOOTSTRAP: ok = rq->who.role == ROLE_BOOTSTRAP; break;
	case AGENT_NODE: ok = rq->who.role == ROLE_NODE; break;
	case VIEWER: ok = rq->who.role == ROLE_ADMIN || rq->who.role == ROLE_VIEWER; break;
	default: ok = rq->who.role == ROLE_ADMIN; break;
	}
	if (!ok) {
		*msg = "this token's role may not do that";
		return 403;
	}
	return 0;
}

static const char *
query_arg(void *ctx, const char *key)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, key);
}

static void
item_done(struct ingest_item *it, void *arg)
{
	struct request *r = arg;

	pthread_mutex_lock(&r->mu);
	r->item_done = 1;
	http_guard_resume(r->guard, r->conn);
	pthread_mutex_unlock(&r->mu);
	(void)it;
}

/* Answer a report whose commit finished. */
static MHD_RESULT
finish_async(struct api_server *s, struct request *r)
{
	struct api_resp rs = { .status = r->item->status };

	ctrl_observe_latency(s->c, mono() - r->start);
	if (rs.status == 204 && s->stored != NULL)
		return MHD_queue_response(r->conn, MHD_HTTP_NO_CONTENT, s->stored);
	if (rs.status != 204) {
		api_error(&rs, rs.status, "%s", r->item->error);
		atomic_fetch_add(&s->c->ctr.reports_rejected, 1);
	}
	return send_resp(r->conn, &rs, NULL);
}

/* A slow answer's thread: make it, hand it over, resume the connection. */
static void *
slow_main(void *arg)
{
	struct request *r = arg;
	struct api_server *s = r->server;
	struct api_resp rs = { 0 };

	r->slow_fn(r->slow_arg, &rs);
	pthread_mutex_lock(&r->mu);
	r->slow_rs = rs;
	r->item_done = 1;
	http_guard_resume(r->guard, r->conn);
	pthread_mutex_unlock(&r->mu);
	pthread_mutex_lock(&s->slow_mu);
	s->slow_running--;
	pthread_cond_broadcast(&s->slow_cv);
	pthread_mutex_unlock(&s->slow_mu);
	return NULL;
}

/* Start rs's slow answer on a thread while the connection waits; -1: too many. */
static int
slow_start(struct api_server *s, struct request *r, struct api_resp *rs)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	pthread_mutex_lock(&s->slow_mu);
	if (s->slow_running >= API_SLOW_MAX) {
		pthread_mutex_unlock(&s->slow_mu);
		return -1;
	}
	s->slow_running++;
	pthread_mutex_unlock(&s->slow_mu);
	r->server = s;
	r->slow = 1;
	r->slow_fn = rs->slow;
	r->slow_arg = rs->slow_arg;
	pthread_mutex_lock(&r->mu);
	MHD_suspend_connection(r->conn);
	rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&t, &attr, slow_main, r);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		http_guard_resume(s->guard, r->conn);
		r->slow = 0;
		pthread_mutex_unlock(&r->mu);
		pthread_mutex_lock(&s->slow_mu);
		s->slow_running--;
		pthread_mutex_unlock(&s->slow_mu);
		return -1;
	}
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Run the handler; a report goes to the ingest queue and the connection waits. */
static MHD_RESULT
dispatch(struct api_server *s, struct request *r, const struct route *rt, struct api_req *rq)
{
	struct api_resp rs = { 0 };

	rt->fn(rq, &rs);
	if (rs.slow != NULL) {
		if (slow_start(s, r, &rs) == 0)
			return MHD_YES;
		rs.slow(rs.slow_arg, NULL);	/* frees its argument only */
		return send_error(r->conn, 503, "the controller is busy; retry", NULL);
	}
	if (rs.async != NULL) {
		r->item = rs.async;
		r->item->done = item_done;
		r->item->arg = r;
		pthread_mutex_lock(&r->mu);
		MHD_suspend_connection(r->conn);
		if (ingest_submit(s->c->ingest, r->item) == -1) {
			http_guard_resume(s->guard, r->conn);
			pthread_mutex_unlock(&r->mu);
			ingest_item_free(s->c->ingest, r->item);
			r->item = NULL;
			return send_error(r->conn, 503, "the controller is busy; retry", NULL);
		}
		pthread_mutex_unlock(&r->mu);
		return MHD_YES;
	}
	if (rs.status >= 400 && (rt->access == AGENT_NODE || rt->access == AGENT_BOOTSTRAP))
		atomic_fetch_add(&s->c->ctr.reports_rejected, 1);
	ctrl_observe_latency(s->c, mono() - r->start);
	return send_resp(r->conn, &rs, NULL);
}

int api_static(struct MHD_Connection *conn, const char *root, const char *url, int *handled);

/*
 * On the headers: the route, the size and the token.  Returns MHD_YES to go
 * on reading the body, or the answer already queued (413, 405, 404, 401,
 * 403) without reading it.
 */
struct length_seen {
	const char *first;        /* the first Content-Length's value */
	int conflict;             /* another one said something else */
};

static MHD_RESULT
length_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct length_seen *ls = cls;
	(void)kind;

	if (key == NULL || strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (ls->first == NULL)
		ls->first = value != NULL ? value : "";
	else if (value == NULL || strcmp(ls->first, value) != 0)
		ls->conflict = 1;
	return MHD_YES;
}

/* "application/json", in any case, with parameters or not ("; charset=utf-8"). */
static int
json_type(const char *ct)
{
	static const char want[] = "application/json";

	if (ct == NULL)
		return 0;
	ct += strspn(ct, " \t");
	if (strncasecmp(ct, want, sizeof(want) - 1) != 0)
		return 0;
	ct += sizeof(want) - 1;
	ct += strspn(ct, " \t");
	return *ct == '\0' || *ct == ';';
}

/*
 * The headers that say what the body is, before any of it is read: two
 * Content-Length headers that disagree are 400 (libmicrohttpd reads by the
 * first; a proxy in front may have read by the other, and a request can
 * hide in the difference), a body that is not JSON is 415.  0 or the status
 * with *msg.
 */
static int
body_headers(struct MHD_Connection *conn, const char **msg)
{
	struct length_seen ls = { NULL, 0 };
	const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_TRANSFER_ENCODING);

	MHD_get_connection_values(conn, MHD_HEADER_KIND, length_header, &ls);
	if (ls.conflict) {
		*msg = "two Content-Length headers that differ";
		return 400;
	}
	if ((ls.first == NULL || strtoull(ls.first, NULL, 10) == 0) && te == NULL)
		return 0;       /* no body */
	if (!json_type(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_TYPE))) {
		*msg = "the body must be JSON, sent with Content-Type: application/json";
		return 415;
	}
	return 0;
}

static MHD_RESULT
admit(struct api_server *s, struct request *r, const char *url, const char *method)
{
	char allow[64];
	const char *msg = NULL;
	int st;

	if (r->too_large)
		return send_error(r->conn, 413, "request body too large", NULL);
	r->rt = route_find(method, url, r->param, sizeof(r->param), allow, sizeof(allow));
	if (r->rt == NULL && allow[0])
		return send_error(r->conn, 405, "method not allowed", allow);
	if (r->rt == NULL && strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_error(r->conn, 404, "no such path", NULL);
	if (r->rt == NULL)
		return MHD_YES;      /* a static file, if there is one */
	r->token = auth_bearer(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION));
	if ((st = authorize(s->c, r->rt, r, &msg)) != 0) {
		atomic_fetch_add(&s->c->ctr.requests, 1);
		if (r->rt->access == AGENT_NODE || r->rt->access == AGENT_BOOTSTRAP)
			atomic_fetch_add(&s->c->ctr.reports_rejected, 1);
		return send_error(r->conn, st, msg, NULL);
	}
	if ((st = body_headers(r->conn, &msg)) != 0) {
		atomic_fetch_add(&s->c->ctr.requests, 1);
		return send_error(r->conn, st, msg, NULL);
	}
	return MHD_YES;
}

static MHD_RESULT
complete(struct api_server *s, struct request *r, const char *url, const char *method)
{
	if (r->too_large)
		return send_error(r->conn, 413, "request body too large", NULL);
	if (r->rt == NULL) {
		int handled = 0;
		MHD_RESULT ret = (MHD_RESULT)api_static(r->conn, s->web_root, url, &handled);
		return handled ? ret : send_error(r->conn, 404, "no such path", NULL);
	}
	atomic_fetch_add(&s->c->ctr.requests, 1);
	struct api_req rq = { .c = s->c, .method = method, .param = r->param,
		.body = r->body ? r->body : "", .body_len = r->len, .now = ctrl_now(),
		.token = r->token, .who = r->who, .query = query_arg, .qctx = r->conn };
	memcpy(rq.actor, r->actor, sizeof(rq.actor));
	return dispatch(s, r, r->rt, &rq);
}

static int
body_append(struct request *r, const char *data, size_t n)
{
	if (r->len + n > API_BODY_MAX) {
		r->too_large = 1;
		return 0;
	}
	if (r->len + n + 1 > r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 4096;
		while (ncap < r->len + n + 1)
			ncap *= 2;
		char *nb = realloc(r->body, ncap);
		if (nb == NULL)
			return -1;
		r->body = nb;
		r->cap = ncap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return 0;
}

/* The body buffer is sized once from Content-Length when there is one. */
static struct request *
request_new(struct MHD_Connection *conn)
{
	struct request *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->conn = conn;
	r->start = mono();
	pthread_mutex_init(&r->mu, NULL);
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_CONTENT_LENGTH);
	unsigned long long len = cl != NULL ? strtoull(cl, NULL, 10) : 0;
	if (len > API_BODY_MAX)
		r->too_large = 1;
	else if (len > 0 && (r->body = malloc(len + 1)) != NULL)
		r->cap = len + 1;
	return r;
}

static MHD_RESULT
handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
    const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct api_server *s = cls;
	struct request *r = *con_cls;
	(void)version;

	if (r == NULL) {
		if ((r = request_new(conn)) == NULL)
			return MHD_NO;
		r->guard = s->guard;
		*con_cls = r;
		return admit(s, r, url, method);
	}
	if (r->item != NULL || r->slow) {
		pthread_mutex_lock(&r->mu);
		int done = r->item_done;
		pthread_mutex_unlock(&r->mu);
		if (!done)
			return MHD_YES;
		if (r->item != NULL)
			return finish_async(s, r);
		ctrl_observe_latency(s->c, mono() - r->start);
		return send_resp(r->conn, &r->slow_rs, NULL);
	}
	if (*upload_size != 0) {
		if (!r->too_large && body_append(r, upload, *upload_size) == -1)
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	http_guard_received(conn);
	return complete(s, r, url, method);
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct api_server *s = cls;
	struct request *r = *con_cls;

	http_guard_completed(conn, toe);
	if (r == NULL)
		return;
	ingest_item_free(s->c->ingest, r->item);
	free(r->body);
	pthread_mutex_destroy(&r->mu);
	free(r);
	*con_cls = NULL;
}

static char *
slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > 1 << 20 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "unreadable");
		free(buf);
		if (f)
			fclose(f);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int
load_tls(struct api_server *s, const struct api_tls *tls, char *err, size_t errlen)
{
	if (tls == NULL || tls->cert_file == NULL)
		return 0;
	if (tls->key_file == NULL) {
		snprintf(err, errlen, "--tls-cert needs --tls-key");
		return -1;
	}
	if ((s->tls_cert = slurp(tls->cert_file, err, errlen)) == NULL ||
	    (s->tls_key = slurp(tls->key_file, err, errlen)) == NULL)
		return -1;
	return 0;
}

/*
 * The answer to a stored report, as send_resp would make it, made once and
 * queued on every such connection (libmicrohttpd counts its users); NULL
 * when out of memory, and send_resp makes each.
 */
static struct MHD_Response *
stored_response(void)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(0, "", MHD_RESPMEM_PERSISTENT);

	if (r != NULL && MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
	    "no-store") != MHD_YES) {
		MHD_destroy_response(r);
		r = NULL;
	}
	return r;
}

/* Serve on ss (address and port; port 0: any), s->port set; 0, or -1. */
static int
start_daemon(struct api_server *s, const struct sockaddr_storage *ss)
{
	unsigned int flags = MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME | http_guard_flags();
	const union MHD_DaemonInfo *info;
	struct MHD_OptionItem opt[3], guard[HTTP_GUARD_NOPTS];
	size_t n = 0;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (s->tls_cert) {
		flags |= MHD_USE_TLS;
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->tls_cert };
		opt[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->tls_key };
	}
	opt[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	http_guard_options(s->guard, guard);
	s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
	    MHD_OPTION_ARRAY, guard,
	    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)API_CONN_MEMORY,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, s,
	    MHD_OPTION_ARRAY, opt,
	    MHD_OPTION_END);
	if (s->mhd == NULL ||
	    (info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT)) == NULL ||
	    info->port == 0 || http_guard_serve(s->guard, s->mhd) == -1)
		return -1;
	s->port = info->port;
	return 0;
}

struct api_server *
api_start(struct ctrl *c, const char *host, int port, const struct api_tls *tls,
    const char *web_root, const struct http_limits *lim, char *err, size_t errlen)
{
	struct api_server *s = calloc(1, sizeof(*s));
	struct http_limits fit = *lim;
	struct sockaddr_storage ss;

	if (s == NULL || resolve_listen(host, port, &ss, err, errlen) == -1 ||
	    load_tls(s, tls, err, errlen) == -1)
		goto fail;
	http_limits_fit(&fit, API_FILES_RESERVE, "api");
	if ((s->guard = http_guard_new(&fit, "api")) == NULL) {
		snprintf(err, errlen, "cannot start the API server: out of memory or threads");
		goto fail;
	}
	s->c = c;
	pthread_mutex_init(&s->slow_mu, NULL);
	pthread_cond_init(&s->slow_cv, NULL);
	s->web_root = web_root ? strdup(web_root) : NULL;
	s->stored = stored_response();
	if (start_daemon(s, &ss) == -1) {
		snprintf(err, errlen, "cannot serve on %s:%d (in use, not an address of this "
		    "host, or a bad certificate)", host, port);
		goto fail;
	}
	return s;
fail:
	if (s) {
		http_guard_stop(s->guard, s->mhd);
		if (s->stored)
			MHD_destroy_response(s->stored);
		free(s->tls_cert);
		free(s->tls_key);
		free(s->web_root);
	}
	free(s);
	return NULL;
}

int
api_port(const struct api_server *s)
{
	return s->port;
}

void
api_quiesce(struct api_server *s)
{
	if (s == NULL || s->mhd == NULL)
		return;
	MHD_socket fd = MHD_quiesce_daemon(s->mhd);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
}

void
api_stop(struct api_server *s)
{
	if (s == NULL)
		return;
	/* a slow answer resumes its connection: wait for it (SSH's timeouts bound it) */
	pthread_mutex_lock(&s->slow_mu);
	while (s->slow_running > 0)
		pthread_cond_wait(&s->slow_cv, &s->slow_mu);
	pthread_mutex_unlock(&s->slow_mu);
	http_guard_stop(s->guard, s->mhd);
	if (s->stored)
		MHD_destroy_response(s->stored);
	free(s->tls_cert);
	free(s->tls_key);
	free(s->web_root);
	free(s);
}
