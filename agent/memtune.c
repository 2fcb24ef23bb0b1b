/*
 * memtune: the allocator's settings (memtune.h).  glibc: mallopt(3)'s
 * M_ARENA_MAX and malloc_trim(3).  macOS: malloc_zone_pressure_relief()
 * of <malloc/malloc.h> (zone NULL: every zone; goal 0: as much as it can).
 */
#include "memtune.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>
#elif defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif

void
memtune_init(void)
{
#if defined(M_ARENA_MAX)
	mallopt(M_ARENA_MAX, 1);
#endif
}

void
memtune_release(void)
{
#if defined(__APPLE__)
	(void)malloc_zone_pressure_relief(NULL, 0);
#elif defined(M_ARENA_MAX)
	(void)malloc_trim(0);
#endif
}
