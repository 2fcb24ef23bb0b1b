/*
 * The reports of loadgen's simulated cluster: nodes in groups of LG_MESH,
 * each group cabled as a full mesh on receptacles 1..LG_MESH-1 (80 Gb/s,
 * one IPv4 each, RDMA active), the other receptacles empty; RDMA enabled
 * with a device per port; 512 GiB of memory; power and temperatures.
 */
#ifndef TBMESH_LG_REPORT_H
#define TBMESH_LG_REPORT_H

#include <stddef.h>

#include "report.h"

#define LG_PORTS 6
#define LG_MESH 4                   /* nodes per fully cabled group */

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

#endif
