/*
 * The controller's HTTP API server (routes in proto/api.h).  api.c owns
 * libmicrohttpd: a route table {method, path, role, handler}, 405 with Allow
 * for a known path and another method, then a body-size check on
 * Content-Length and bearer-token authentication, both on the headers
 * before anything of the body is read; JSON errors.
 * Handlers (api_*.c) see only the plain structs below.
 */
#ifndef TBMESH_API_SERVER_H
#define TBMESH_API_SERVER_H

#include <stddef.h>

#include "api.h"
#include "http_limits.h"

/*
 * The connection limits' defaults (what they do: proto/util/http_guard.h): room
 * for a fleet of agents each holding its connection, and a client
 * address's share small enough that one address cannot take the rest.
 */
#define API_DEFAULT_MAX_CONNECTIONS 16384
#define API_DEFAULT_MAX_PER_CLIENT 64
#define API_DEFAULT_REQUEST_DEADLINE 15.0
#define API_DEFAULT_IDLE_TIMEOUT 30

struct ctrl;
struct ingest_item;

struct api_req {
	struct ctrl *c;
	const char *method;
	const char *param;         /* the {name}/{id} segment of the path, "" if none */
	const char *body;          /* NUL-terminated; the request's until it is answered,
				      so an async item may point into it until done */
	size_t body_len;
	const char *token;         /* the bearer token presented, or NULL */
	struct api_token who;      /* the authenticated token (routes that need one) */
	char actor[96];            /* "admin:<id>", "node:<name>", ... for events */
	double now;
	const char *(*query)(void *ctx, const char *key);
	void *qctx;
};

struct api_resp {
	int status;
	char *body;                /* malloc'd; NULL for no body */
	const char *ctype;         /* default application/json */
	struct ingest_item *async; /* set by a handler that answers after a commit */
	/*
	 * Set by a handler whose answer needs a node (SSH, a connect): slow
	 * runs on a thread of its own while the connection waits, so the
	 * API's one thread goes on serving; it fills rs as a handler does and
	 * frees slow_arg (rs NULL: the server is too busy; it only frees it).
	 * At most API_SLOW_MAX at once (503 beyond).
	 */
	void (*slow)(void *slow_arg, struct api_resp *rs);
	void *slow_arg;
};

#define API_SLOW_MAX 8

typedef void (*api_handler)(struct api_req *rq, struct api_resp *rs);

/* Fill rs with {"error": ...} and status. */
void api_error(struct api_resp *rs, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The query's number key within [lo, hi] into *out (left alone when
 * absent).  Returns 0, or -1 with rs filled (400 naming the key).
 */
int api_query_number(struct api_req *rq, struct api_resp *rs, const char *key, double lo,
    double hi, double *out);
/* Fill rs with a JSON body (taking ownership; NULL means out of memory: 500). */
void api_body(struct api_resp *rs, int status, char *json);

struct api_server;

struct api_tls {
	const char *cert_file;
	const char *key_file;
};

/*
 * Serve on host:port (port 0: any), with TLS when tls->cert_file is set;
 * the dashboard from web_root, or the one compiled in when it is NULL;
 * connections within lim (lowered, with a warning, when the open-files
 * limit cannot hold them).
 */
struct api_server *api_start(struct ctrl *c, const char *host, int port,
    const struct api_tls *tls, const char *web_root, const struct http_limits *lim,
    char *err, size_t errlen);
int api_port(const struct api_server *s);
/* Stop accepting connections; those already open are still served. */
void api_quiesce(struct api_server *s);
/* Stop serving (no connection may be suspended any more) and free s; accepts NULL. */
void api_stop(struct api_server *s);

/* Handlers, one file per resource (the route table is in api_server.c). */
/* api_health.c */
void api_healthz(struct api_req *rq, struct api_resp *rs);
void api_metrics(struct api_req *rq, struct api_resp *rs);
/* api_agents.c */
void api_enroll(struct api_req *rq, struct api_resp *rs);
void api_report(struct api_req *rq, struct api_resp *rs);
/* api_nodes.c */
void api_nodes_list(struct api_req *rq, struct api_resp *rs);
void api_node_show(struct api_req *rq, struct api_resp *rs);
void api_node_remove(struct api_req *rq, struct api_resp *rs);
void api_node_cordon(struct api_req *rq, struct api_resp *rs);
void api_node_uncordon(struct api_req *rq, struct api_resp *rs);
void api_node_down(struct api_req *rq, struct api_resp *rs);
void api_node_accept(struct api_req *rq, struct api_resp *rs);
/* api_samples.c */
void api_node_samples(struct api_req *rq, struct api_resp *rs);
/* api_clusters.c */
void api_cluster_allow(struct api_req *rq, struct api_resp *rs);
void api_cluster_disallow(struct api_req *rq, struct api_resp *rs);
void api_clusters_list(struct api_req *rq, struct api_resp *rs);
void api_clusters_create(struct api_req *rq, struct api_resp *rs);
void api_clusters_add_nodes(struct api_req *rq, struct api_resp *rs);
/* api_tokens.c */
void api_tokens_create(struct api_req *rq, struct api_resp *rs);
void api_tokens_list(struct api_req *rq, struct api_resp *rs);
void api_tokens_revoke(struct api_req *rq, struct api_resp *rs);
/* api_provision.c */
void api_provisions_create(struct api_req *rq, struct api_resp *rs);
void api_provision_show(struct api_req *rq, struct api_resp *rs);
void api_node_deprovision(struct api_req *rq, struct api_resp *rs);
/* api_sd.c */
void api_prometheus_targets(struct api_req *rq, struct api_resp *rs);
/* api_events.c */
void api_events_list(struct api_req *rq, struct api_resp *rs);
/* api_wiring.c */
void api_wiring_get(struct api_req *rq, struct api_resp *rs);
void api_wiring_plan_get(struct api_req *rq, struct api_resp *rs);
void api_wiring_plan_put(struct api_req *rq, struct api_resp *rs);
void api_wiring_plan_propose(struct api_req *rq, struct api_resp *rs);
/* api_placements.c */
void api_models_list(struct api_req *rq, struct api_resp *rs);
void api_models_add(struct api_req *rq, struct api_resp *rs);
void api_placements_plan(struct api_req *rq, struct api_resp *rs);
void api_placements_create(struct api_req *rq, struct api_resp *rs);
void api_placements_list(struct api_req *rq, struct api_resp *rs);
void api_placement_show(struct api_req *rq, struct api_resp *rs);
void api_placement_remove(struct api_req *rq, struct api_resp *rs);
void api_placement_replan(struct api_req *rq, struct api_resp *rs);
/* api_ssh.c */
void api_node_ssh_set(struct api_req *rq, struct api_resp *rs);
void api_node_ssh_get(struct api_req *rq, struct api_resp *rs);
void api_node_trust(struct api_req *rq, struct api_resp *rs);
void api_credentials_set(struct api_req *rq, struct api_resp *rs);
/* api_rollouts.c */
void api_rollouts_start(struct api_req *rq, struct api_resp *rs);
void api_rollouts_list(struct api_req *rq, struct api_resp *rs);
void api_rollout_show(struct api_req *rq, struct api_resp *rs);
void api_rollout_pause(struct api_req *rq, struct api_resp *rs);
void api_rollout_resume(struct api_req *rq, struct api_resp *rs);
void api_rollout_abort(struct api_req *rq, struct api_resp *rs);
void api_rollout_retry(struct api_req *rq, struct api_resp *rs);

#endif
