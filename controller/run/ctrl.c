/* Shared helpers of the controller's modules. */
#include "ctrl.h"

#include <time.h>

#include "lifecycle.h"
#include "log.h"
#include "placement_ctrl.h"

#include <string.h>

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
	if (inv_event_add(c->inv, now, actor, node, what, reason) == -1)
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
ctrl_apply(struct ctrl *c, struct reg_node *n, const struct lc_result *res, double now,
    const char *actor)
{
	if (inv_node_set_state(c->inv, n->id, res->state, res->reason,
	    res->unexpected_reboot) != 0)
		return -1;
	if (res->accepted != n->lc.accepted &&
	    inv_node_set_accepted(c->inv, n->id, res->accepted) != 0)
		return -1;
	if (res->what[0])
		ctrl_event(c, now, actor, n->name, res->what, res->event_reason);
	if (res->what2[0])
		ctrl_event(c, now, actor, n->name, res->what2, res->event_reason2);
	if (res->state != n->lc.state)
		placement_node_lost(c, n->name, res->state, now);
	n->lc.state = res->state;
	n->lc.unexpected_reboot = res->unexpected_reboot;
	n->lc.accepted = res->accepted;
	memcpy(n->lc.reason, res->reason, sizeof(n->lc.reason));
	registry_set_lc(c->reg, n->name, &n->lc);
	return 0;
}
