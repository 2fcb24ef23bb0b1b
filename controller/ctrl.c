/* Shared helpers of the controller's modules. */
#include "ctrl.h"

#include <time.h>

#include "log.h"

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
