/*
 * The wiring engine's results and plans as JSON (the API's shapes; see
 * proto/api.h for the routes):
 *
 *   GET /v1/clusters/{name}/wiring -> a result:
 *   {"cluster", "topology", "checked_at", "verdict", "verdict_text",
 *    "reasons": [...], "nodes": [...],
 *    "links": [{"id", "a": SIDE, "b": SIDE, "verdict", "problems": [...],
 *               "pass", "expected_during_rollout" (the rollout's id when
 *               an os-skew is the link's only problem and that open
 *               rollout expects it; else null), "speed_gbps", "expected",
 *               "actual", "evidence": {"a", "b"}, "fix"}],
 *    "unexpected": [{"id", "a", "b", "verdict", "problems", "pass",
 *                    "speed_gbps", "actual", "evidence", "fix"}]}
 *   SIDE = {"node", "receptacle", "interface", "rdma_device", "ipv4"}
 *
 *   a plan: {"cluster", "topology": "mesh"|"ring"|"plan",
 *            "links": [{"a": {"node", "receptacle"}, "b": {...}}],
 *            "dot": "graph ..." | null}
 *
 * Strings "" are null; NAN is null.  Encoders return malloc'd text or NULL
 * (out of memory); decoders 0, or -1 with a message naming the field.
 */
#ifndef TBMESH_WIRING_JSON_H
#define TBMESH_WIRING_JSON_H

#include <stddef.h>

#include "wiring_types.h"

#define WIRING_JSON_PLAN_MAX 4096   /* links in a plan */

char *wiring_json_result(const struct wiring_result *r);
/* Into a result freed with wiring_result_free(). */
int wiring_json_decode_result(const char *json, size_t len, struct wiring_result **out,
    char *err, size_t errlen);

struct wiring_plan_doc {
	api_name cluster;
	enum wiring_topology topology;
	int n_links;
	struct wiring_plan_link *links;   /* malloc'd */
	char *dot;                        /* malloc'd; NULL none */
};

char *wiring_json_plan(const struct wiring_plan_doc *p);
/*
 * A plan as PUT sends it or the controller returns it.  "cluster" may be
 * absent; "dot" is kept as text (the caller parses it); links' receptacles
 * are normalised ("tb2" -> "2").  Free with wiring_plan_doc_free().
 */
int wiring_json_decode_plan(const char *json, size_t len, struct wiring_plan_doc *out,
    char *err, size_t errlen);
void wiring_plan_doc_free(struct wiring_plan_doc *p);   /* the members; accepts NULL */

#endif
