/*
 * The linux collector backend (backend_linux.c, linux_tb.c, linux_power.c):
 * what its files share, and the hooks tests use.
 *
 * Every function reads files under a root that sysfs_root() has normalised
 * ("" is the real root), runs no command, and records what went wrong with
 * report_add_error() instead of failing.
 *
 * The power state (the previous RAPL sample) is static: collections are
 * made from one thread at a time.
 */
#ifndef TBMESH_BACKEND_LINUX_H
#define TBMESH_BACKEND_LINUX_H

#include <stdint.h>

#include "report.h"

/* Thunderbolt/USB4 ports, peers and the bridge (linux_tb.c). */
void linux_collect_thunderbolt(const char *root, struct report *r);

/* RAPL power (linux_power.c). */
void linux_collect_power(const char *root, struct report *r);

/* CPU temperature from thermal zones (linux_power.c). */
void linux_collect_thermal(const char *root, struct report *r);

/*
 * The gap between the two RAPL samples of a collection that has no
 * previous sample to compare with (the first one, or --once).  Default
 * 200 ms; tests shorten it.  ms < 0 is taken as 0.
 */
void linux_set_rapl_gap_ms(int ms);

/* Forget the previous RAPL sample: the next collection takes two. */
void linux_rapl_reset(void);

/*
 * Average watts between two readings of a RAPL energy counter taken
 * seconds apart.  The counter wraps at max_range_uj: when e1 < e0 the
 * energy is (max_range_uj - e0) + e1.  Returns NAN when seconds <= 0, when
 * it wrapped with no range known (0), or when a reading exceeds the range.
 */
double linux_rapl_watts(uint64_t e0_uj, uint64_t e1_uj, uint64_t max_range_uj, double seconds);

#endif
