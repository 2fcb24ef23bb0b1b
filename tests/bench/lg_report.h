/*
 * The reports of loadgen's simulated cluster: nodes in groups of LG_MESH,
 * each group cabled as a full mesh on receptacles 1..LG_MESH-1 (80 Gb/s,
 * one IPv4 each, RDMA active), the other receptacles empty; RDMA enabled
 * with a device per port; 512 GiB of memory; power and temperatures.
 */
#ifndef TBMESH_LG_REPORT_H
#define TBMESH_LG_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define LG_PORTS 6
#define LG_MESH 4                   /* nodes per fully cabled group */
#define LG_SLOT_W 14                /* collected_at's width: "1763782801.250" */

/*
 * A node's report as sent: encoded once, its collected_at in a slot of
 * LG_SLOT_W bytes that each send rewrites, so the text never changes
 * length.  text is malloc'd; the owner frees it.
 */
struct lg_body {
	char *text;
	size_t len;
	size_t slot;                /* offset of collected_at's LG_SLOT_W bytes */
	int64_t last_ms;            /* the collected_at of the last stamp */
};

/*
 * A UUID of the simulated cluster into out (size n): part 0 is node
 * prefix-idx's hardware, 1..LG_PORTS its ports' domains.
 */
void lg_sim_uuid(const char *prefix, int idx, int part, char *out, size_t n);

/*
 * Fill r with the report of node prefix-idx (idx from 1, of n_total), named
 * name, whose hardware UUID is uuid; collected_at 0.
 */
void lg_build_report(const char *prefix, int idx, int n_total, const char *name,
    const char *uuid, struct report *r);

/*
 * Encode r into b with a LG_SLOT_W-wide collected_at, then stamp it; 0, or
 * -1 with a message naming name.
 */
int lg_body_encode(struct lg_body *b, const struct report *r, const char *name);

/* Write the next collected_at into b's slot: unix ms, increasing from one stamp to the next. */
void lg_body_stamp(struct lg_body *b);

#endif
