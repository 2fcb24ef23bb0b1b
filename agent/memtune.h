/*
 * memtune: what the agent asks of the C library's allocator so that it
 * keeps little memory it does not use.
 *
 *  - memtune_init(): one malloc arena for the whole process (glibc makes
 *    one per thread that allocates, up to 8 per core, and keeps each);
 *    the agent's threads (collection, /metrics, push) allocate little and
 *    seldom at the same time.  Called by the modules that start threads
 *    (httpd.c, push.c) before they start them; once is enough, more is
 *    harmless.
 *  - memtune_release(): free memory handed back to the system
 *    (malloc_trim on glibc, malloc_zone_pressure_relief on macOS); called
 *    by the pusher after each request, that is after each collection
 *    while reporting to a controller.
 * Elsewhere both do nothing.
 */
#ifndef TBMESH_AGENT_MEMTUNE_H
#define TBMESH_AGENT_MEMTUNE_H

void memtune_init(void);
void memtune_release(void);

#endif
