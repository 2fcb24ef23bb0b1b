/*
 * A node's history of samples over the API:
 *
 *   GET /v1/nodes/{name}/samples?since=T&step=S&limit=L   viewer
 *     {"node":"mac1","since":T,"step":S,"samples":[api_sample...]}
 *
 * One sample per stored report (step 0, the default), or one per step
 * seconds (step > 0: the latest report of each step-long interval, with
 * power_watts averaged over it), oldest first, from since (default: an
 * hour before now) on; at most limit (default and most API_SAMPLES_MAX),
 * the newest when there are more.  Unknown values are null.
 */
#ifndef TBMESH_API_SAMPLES_H
#define TBMESH_API_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

#define API_SAMPLES_MAX 10000
#define API_SPEEDS_MAX 512      /* "2:80,3:40": receptacle and Gb/s of each port */

struct api_sample {
	double t;                   /* unix seconds: when the report was received */
	int64_t memory_used_bytes;  /* REPORT_NULL_I64 when unknown */
	int64_t memory_total_bytes;
	double power_watts;         /* NAN when unknown */
	char link_speeds[API_SPEEDS_MAX];  /* "" when none is known */
};

/* The answer's JSON (malloc'd), or NULL when out of memory. */
char *api_json_samples(const char *node, double since, double step,
    const struct api_sample *s, int n);
/* Decode it: *out malloc'd (free it), node filled (API_NAME_MAX + 1). 0 or -1 with err. */
int api_json_decode_samples(const char *json, size_t len, char *node,
    struct api_sample **out, int *n, char *err, size_t errlen);

#endif
