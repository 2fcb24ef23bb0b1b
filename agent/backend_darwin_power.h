/*
 * Power and temperature for the darwin collector (backend_darwin.c), from one long-lived
 * child that prints a sample per interval: `macmon pipe -i MS` (no root;
 * one JSON object a line, forever when -s is not given: vladkens/macmon,
 * src_app/main.rs L198-220 at 6919d77), else `powermetrics --samplers
 * cpu_power,gpu_power -i MS` (root; a text sample that starts with "***
 * Sampled", complete when the next one starts, so it lags by a sample).
 * MS is the collection interval: each collection gets a sample of the
 * whole interval before it.  exo keeps one such macmon child too, rather
 * than a process a sample (exo-explore/exo,
 * src/exo/utils/info_gatherer/info_gatherer.py L574-644 at b5375f8c).
 *
 * The child is read without blocking at each collection; its last
 * complete sample is what the report shows, with the time it was read as
 * the power and thermal sections' collected_at (kept as monotonic time,
 * made wall-clock time at each report: darwin_section_wall()), as long as
 * it is younger than darwin_stream_silence().  A child that exits, or prints nothing for
 * darwin_stream_silence() seconds (then it is killed), is started again
 * after darwin_stream_backoff(); one that ended without a sample gives its
 * turn to the other command.  Before the first sample the sections are
 * null, without an error; after a failure with no fresh sample, the error
 * says what happened and when the next start is.
 */
#ifndef TBMESH_BACKEND_DARWIN_POWER_H
#define TBMESH_BACKEND_DARWIN_POWER_H

#include "report.h"

struct darwin_power;

/* NULL when out of memory.  Nothing is started until darwin_power_collect(). */
struct darwin_power *darwin_power_new(void);

/* Kill the child (its process group) and reap it; free p.  Accepts NULL. */
void darwin_power_free(struct darwin_power *p);

/*
 * One collection: r->power and r->thermal (or errors).  mono: monotonic
 * seconds now; wall: the report's time; interval: seconds between
 * collections; wait_ms > 0: wait up to that long for a first sample (one
 * collection on its own, tbagentd --once), trying the other command when
 * the first ends without one.
 */
void darwin_power_collect(struct darwin_power *p, struct report *r, double mono, double wall,
    double interval, int wait_ms);

#endif
