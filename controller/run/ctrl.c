/* Shared helpers of the controller's modules, and the lifecycle's apply path. */
#include "ctrl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lifecycle.h"
#include "log.h"
#include "placement_ctrl.h"

const double ctrl_lat_bounds[CTRL_LAT_BUCKETS] = {
	0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
};

double
ctrl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
ctrl_event(struct ctrl *c, double now, const char *actor, const char *node, const char *what,
    const char *reason)
{
	if (inv_event_add(c->store.inv, now, actor, node, what, reason) == -1)
		log_warnx("could not record event \"%s\" for %s", what, node);
	log_info("%s: %s%s%s (by %s)", node[0] ? node : "-", what, reason[0] ? ": " : "",
	    reason, actor);
}

void
ctrl_observe_latency(struct ctrl *c, double seconds)
{
	for (int i = 0; i < CTRL_LAT_BUCKETS; i++)
		if (seconds <= ctrl_lat_bounds[i]) {
			atomic_fetch_add(&c->ctr.lat_bucket[i], 1);
			break;
		}
	atomic_fetch_add(&c->ctr.lat_count, 1);
	atomic_fetch_add(&c->ctr.lat_sum_us, (uint_fast64_t)(seconds * 1e6));
}

int
ctrl_apply_store(struct ctrl *c, const struct reg_node *n, const struct lc_result *res,
    double now, const char *actor)
{
	struct inv *inv = c->store.inv;

	if (inv_node_set_state(inv, n->id, res->state, res->reason, res->unexpected_reboot) != 0)
		return -1;
	if (res->accepted != n->lc.accepted &&
	    inv_node_set_accepted(inv, n->id, res->accepted) != 0)
		return -1;
	if (res->what[0])
		ctrl_event(c, now, actor, n->name, res->what, res->event_reason);
	if (res->what2[0])
		ctrl_event(c, now, actor, n->name, res->what2, res->event_reason2);
	if (res->state != n->lc.state) {
		placement_node_lost(c, n->name, res->state, now);
		placement_node_back(c, n->name, res->state, now);
	}
	return 0;
}

void
ctrl_lc_apply(struct lc_node *lc, const struct lc_result *res)
{
	lc->state = res->state;
	lc->unexpected_reboot = res->unexpected_reboot;
	lc->accepted = res->accepted;
	memcpy(lc->reason, res->reason, sizeof(lc->reason));
}

int
ctrl_apply(struct ctrl *c, struct reg_node *n, const struct lc_result *res, double now,
    const char *actor)
{
	if (ctrl_apply_store(c, n, res, now, actor) != 0)
		return -1;
	ctrl_lc_apply(&n->lc, res);
	registry_set_lc(c->reg, n->name, &n->lc);
	return 0;
}

struct node_row {
	const char *node;
	struct api_node *out;
};

static int
node_row_get(struct inv *inv, void *arg)
{
	struct node_row *a = arg;

	return inv_node_get(inv, a->node, a->out);
}

int
ctrl_node_get(struct ctrl *c, const char *node, struct api_node *out)
{
	struct node_row a = { node, out };

	return store_with(&c->store, node_row_get, &a);
}

struct node_json {
	const char *node;
	char *json;                /* malloc'd, or NULL */
};

static int
node_json_get(struct inv *inv, void *arg)
{
	struct node_json *a = arg;

	return inv_node_report(inv, a->node, &a->json);
}

struct report *
ctrl_latest_report(struct ctrl *c, const char *node)
{
	struct node_json a = { node, NULL };
	struct report *r = NULL;
	char err[256];

	if (store_with(&c->store, node_json_get, &a) == 0 && a.json != NULL &&
	    (r = report_new()) != NULL &&
	    report_decode(a.json, strlen(a.json), r, err, sizeof(err)) == -1) {
		log_warnx("%s: stored report does not decode: %s", node, err);
		free(r);
		r = NULL;
	}
	free(a.json);
	return r;
}
