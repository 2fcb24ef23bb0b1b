/*
 * The controller's HTTP API: the objects that cross it, as plain structs
 * shared by tbcontrollerd (which fills them from the inventory) and tbctl
 * (which decodes them to print).  Encoding and decoding are in api_json.c;
 * only proto/ calls cJSON.
 *
 * Routes (all JSON; errors are {"error": "message"} with a 4xx/5xx status):
 *
 *   GET    /healthz                        none    {"status":"ok","version":...}
 *   GET    /metrics                        none    Prometheus text
 *   GET    /v1/prometheus/targets          viewer  Prometheus HTTP service discovery of the
 *                                                  agents: [{"targets":[...],"labels":{...}}]
 *                                                  (prom.h)
 *   POST   /v1/enroll                      bootstrap  body: a report -> 201 api_enrolled
 *   POST   /v1/report                      node    body: a report -> 204
 *   GET    /v1/nodes                       viewer  {"nodes":[api_node...]}
 *   GET    /v1/nodes/{name}                viewer  api_node + "report": {...} + "ports"...
 *   DELETE /v1/nodes/{name}                admin   204
 *   POST   /v1/nodes/{name}/cordon         admin   {"reason":"..."} -> api_node
 *   POST   /v1/nodes/{name}/uncordon       admin   {} -> api_node
 *   POST   /v1/nodes/{name}/down           admin   {"reason":"..."} -> api_node
 *   GET    /v1/nodes/{name}/samples?since=T&step=S&limit=L  viewer  (api_samples.h)
 *   POST   /v1/nodes/{name}/accept         admin   {"reason":"..."} (optional) -> api_node
 *   POST   /v1/tokens                      admin   api_token_request -> 201 api_token (+ "token")
 *   GET    /v1/tokens                      admin   {"tokens":[api_token...]} (never secrets)
 *   DELETE /v1/tokens/{id}                 admin   204
 *   GET    /v1/events?node=N&since=T&limit=L  viewer  {"events":[api_event...]}
 *   GET    /v1/clusters                    viewer  {"clusters":[api_cluster...]}
 *   POST   /v1/clusters                    admin   {"name":"..."} -> 201 api_cluster
 *   POST   /v1/clusters/{name}/nodes       admin   {"nodes":["mac1",...]} -> api_cluster
 *   POST   /v1/clusters/{name}/allow       admin   {"serials":["H9X..",...]} -> api_cluster
 *   POST   /v1/clusters/{name}/disallow    admin   {"serials":["H9X..",...]} -> api_cluster
 *   GET    /v1/clusters/{name}/wiring      viewer  the wiring check (proto/wiring_json.h)
 *   GET    /v1/clusters/{name}/wiring/plan viewer  the expected wiring: {"cluster",
 *                                                  "topology", "links", "dot"}
 *   PUT    /v1/clusters/{name}/wiring/plan admin   {"topology":"mesh"|"ring"} or
 *                                                  {"topology":"plan","dot":"..."} or
 *                                                  {"topology":"plan","links":[...]}
 *                                                  -> the stored plan
 *   POST   /v1/clusters/{name}/wiring/plan?topology=mesh|ring[&save=1]
 *                                          admin   a proposed cabling plan (stored
 *                                                  with save=1); 409 with the reason
 *                                                  when it cannot be done
 *   GET    /v1/models                      viewer  {"models":[catalog model...]} (catalog.h)
 *   POST   /v1/models                      admin   a catalog model -> 201 the model
 *   POST   /v1/placements/plan             viewer  plan_request -> plan (plan.h); 422 no fit
 *   POST   /v1/placements                  admin   plan_request -> 201 plan, recorded
 *   GET    /v1/placements                  viewer  {"placements":[plan...]}
 *   GET    /v1/placements/{id}             viewer  plan (with id, state, reason)
 *   DELETE /v1/placements/{id}             admin   204
 *   POST   /v1/placements/{id}/replan      viewer  {} -> plan proposed on what is left
 *
 * Enrolment: a bootstrap token's enrolment leaves the node pending (a new
 * node, or a pending re-enrolment of a known one, whose node token reports
 * only into the request until an admin accepts it) unless the token was
 * made with "accept": true or the node's serial is on its cluster's
 * allow-list.
 *
 * Authentication: "Authorization: Bearer <token>".  Roles, from most to
 * least: admin > viewer; node and bootstrap tokens only reach the two agent
 * routes.  A token is "tbm_<id>_<secret>": <id> is 12 hex digits and
 * names the token in lists and revocation; <secret> is 43 base64url
 * characters (32 random bytes).  Only SHA-256(secret) is stored.
 */
#ifndef TBMESH_API_H
#define TBMESH_API_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* The one step only a person at the Mac can do, shown while a node reports RDMA disabled. */
#define API_RDMA_MANUAL_STEP "boot into Recovery, Terminal, rdma_ctl enable, reboot"

#define API_NAME_MAX 63          /* node and cluster names */
#define API_REASON_MAX 255
#define API_TOKEN_ID_LEN 12
#define API_TOKEN_MAX 80         /* the whole "tbm_<id>_<secret>" */
#define API_BODY_MAX (256 * 1024) /* largest request body the controller reads */

typedef char api_name[API_NAME_MAX + 1];

enum node_state {
	NODE_PENDING = 0,  /* enrolled, not yet accepted */
	NODE_READY,
	NODE_CORDONED,     /* no new placements; reason required */
	NODE_DRAINING,
	NODE_UPDATING,
	NODE_UNREACHABLE,  /* reports stopped */
	NODE_DOWN,         /* operator or failed check; reason required */
	NODE_STATE_COUNT
};

enum token_role { ROLE_ADMIN = 0, ROLE_VIEWER, ROLE_BOOTSTRAP, ROLE_NODE, ROLE_COUNT };

struct api_node {
	api_name name;
	api_name cluster;              /* "" when in none */
	enum node_state state;
	char reason[API_REASON_MAX + 1];
	int unexpected_reboot;         /* boot time moved without a requested reboot */
	report_str hardware_uuid;
	report_str serial;
	report_str model;
	report_str chip;
	report_str os_version;
	report_str os_build;
	enum rdma_state rdma;
	int64_t memory_total_bytes;    /* REPORT_NULL_I64 when unknown */
	int64_t memory_used_bytes;
	double power_watts;            /* NAN when unknown */
	double last_report_at;         /* unix seconds; NAN when never */
	double enrolled_at;
};

struct api_event {
	int64_t id;
	double time;
	api_name actor;                /* "admin:<token id>", "node:<name>", "controller" */
	api_name node;                 /* "" when not about a node */
	char what[64];                 /* "enrolled", "cordoned", "state ready -> unreachable" */
	char reason[API_REASON_MAX + 1];
};

struct api_token {
	char id[API_TOKEN_ID_LEN + 1];
	enum token_role role;
	api_name cluster;              /* bootstrap: the cluster a node joins; "" none */
	api_name node;                 /* node tokens: the node */
	char label[API_REASON_MAX + 1];
	double created_at;
	double expires_at;             /* NAN: never */
	double used_at;                /* bootstrap: when it was used; NAN: not yet */
	int revoked;
	int accept;                    /* bootstrap: its nodes are accepted at enrolment */
	int pending;                   /* node: a re-enrolment awaiting acceptance */
};

struct api_token_request {
	enum token_role role;          /* admin, viewer or bootstrap */
	double ttl_seconds;            /* NAN: never expires (not for bootstrap) */
	api_name cluster;
	char label[API_REASON_MAX + 1];
	int accept;                    /* bootstrap: pre-approved (nodes enrol ready) */
};

#define API_ALLOW_MAX 64         /* serials on one cluster's allow-list */

/* A list of names or serial numbers (each valid as api_name_valid says). */
struct api_names {
	int n;
	api_name v[API_ALLOW_MAX];
};

struct api_cluster {
	api_name name;
	int n_nodes;
	double created_at;
	struct api_names allow;        /* serials accepted at enrolment */
};

struct api_enrolled {
	api_name node;
	char token[API_TOKEN_MAX + 1];
	enum node_state state;         /* pending until accepted (or accepted at once) */
};

const char *api_node_state_str(enum node_state s);
int api_node_state_parse(const char *s, enum node_state *out);
const char *api_role_str(enum token_role r);
int api_role_parse(const char *s, enum token_role *out);

/* A valid node or cluster name: 1..63 of [A-Za-z0-9._-], not starting with '.' or '-'. */
int api_name_valid(const char *s);

#endif
