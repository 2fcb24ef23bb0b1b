/*
 * The inventory's SQLite page cache: SQLite's own (pcache1), told less
 * often to drop the pages past the end of the database.
 *
 * At the end of every transaction SQLite asks its page cache to drop the
 * pages numbered past the database's last (xTruncate).  pcache1 skips that
 * only while no page it ever held was numbered past it; otherwise it walks
 * every page it holds.  When a B-tree page splits and its new siblings'
 * numbers are out of order, SQLite swaps two of them through a spare
 * number, the one after the lock page (PENDING_BYTE / page size + 1, page
 * 262,145 at 4 KiB) -- and from then on pcache1 believes a page may sit
 * there.  Samples grow at as many places in their table as there are
 * nodes, so its pages split often, and every commit after a split walked
 * the whole cache: about 16,000 pages for 10,000 nodes, when samples still
 * went to the table one report at a time a tenth of the writer's time.
 *
 * Here each cache keeps its own bound: the highest number fetched, and a
 * count of the pages parked at the spare number (rekeyed there, not yet
 * away).  A truncate that cannot find a page -- nothing parked, nothing
 * fetched at or past the limit -- is not passed on; any other is, as it
 * comes.  A page at the spare number that pcache1 drops unseen (evicted,
 * discarded) leaves the count high, which only passes more truncates on.
 *
 * A cache belongs to one connection, used by one thread at a time
 * (inventory.h), so its bound needs no lock.
 */
#include "inventory_db.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "log.h"

#define LOCK_PAGE_BYTE 0x40000000u   /* SQLite's PENDING_BYTE */

struct wcache {
	sqlite3_pcache *real;
	unsigned spare;    /* the number pages are swapped through */
	unsigned top;      /* no page fetched since the last truncate is past it */
	unsigned parked;   /* pages rekeyed to spare and not yet away */
};

static sqlite3_pcache_methods2 def;   /* pcache1's */
static atomic_ulong truncates, passed, parks;   /* inv_pcache_stats */

static int
pc_init(void *arg)
{
	(void)arg;
	return def.xInit(def.pArg);
}

static void
pc_shutdown(void *arg)
{
	(void)arg;
	def.xShutdown(def.pArg);
}

static sqlite3_pcache *
pc_create(int page_size, int extra, int purgeable)
{
	struct wcache *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	if ((w->real = def.xCreate(page_size, extra, purgeable)) == NULL) {
		free(w);
		return NULL;
	}
	w->spare = page_size > 0 ? LOCK_PAGE_BYTE / (unsigned)page_size + 1 : 0;
	return (sqlite3_pcache *)w;
}

static void
pc_cachesize(sqlite3_pcache *p, int n)
{
	def.xCachesize(((struct wcache *)p)->real, n);
}

static int
pc_pagecount(sqlite3_pcache *p)
{
	return def.xPagecount(((struct wcache *)p)->real);
}

static sqlite3_pcache_page *
pc_fetch(sqlite3_pcache *p, unsigned key, int create)
{
	struct wcache *w = (struct wcache *)p;
	sqlite3_pcache_page *pg = def.xFetch(w->real, key, create);

	if (pg != NULL && key > w->top)
		w->top = key;
	return pg;
}

static void
pc_unpin(sqlite3_pcache *p, sqlite3_pcache_page *pg, int discard)
{
	def.xUnpin(((struct wcache *)p)->real, pg, discard);
}

static void
pc_rekey(sqlite3_pcache *p, sqlite3_pcache_page *pg, unsigned from, unsigned to)
{
	struct wcache *w = (struct wcache *)p;

	def.xRekey(w->real, pg, from, to);
	if (from == w->spare && w->parked > 0)
		w->parked--;
	if (to == w->spare) {
		w->parked++;
		atomic_fetch_add_explicit(&parks, 1, memory_order_relaxed);
	}
	else if (to > w->top)
		w->top = to;
}

static void
pc_truncate(sqlite3_pcache *p, unsigned limit)
{
	struct wcache *w = (struct wcache *)p;

	atomic_fetch_add_explicit(&truncates, 1, memory_order_relaxed);
	if (w->parked == 0 && w->top < limit)
		return;   /* no page at limit or past it: nothing to drop */
	atomic_fetch_add_explicit(&passed, 1, memory_order_relaxed);
	def.xTruncate(w->real, limit);
	if (w->spare >= limit)
		w->parked = 0;
	if (w->top >= limit)
		w->top = limit > 0 ? limit - 1 : 0;
}

static void
pc_destroy(sqlite3_pcache *p)
{
	struct wcache *w = (struct wcache *)p;

	def.xDestroy(w->real);
	free(w);
}

static void
pc_shrink(sqlite3_pcache *p)
{
	def.xShrink(((struct wcache *)p)->real);
}

static const sqlite3_pcache_methods2 methods = {
	.iVersion = 1, .pArg = NULL, .xInit = pc_init, .xShutdown = pc_shutdown,
	.xCreate = pc_create, .xCachesize = pc_cachesize, .xPagecount = pc_pagecount,
	.xFetch = pc_fetch, .xUnpin = pc_unpin, .xRekey = pc_rekey,
	.xTruncate = pc_truncate, .xDestroy = pc_destroy, .xShrink = pc_shrink,
};

static void
install(void)
{
	/* Both calls fail once SQLite is initialized: then its own cache stays. */
	if (sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &def) != SQLITE_OK || def.xCreate == NULL ||
	    sqlite3_config(SQLITE_CONFIG_PCACHE2, &methods) != SQLITE_OK)
		log_debug("SQLite was set up before the inventory: its page cache is used as is");
}

void
inv_pcache_stats(struct inv_pcache_stats *st)
{
	st->truncates = atomic_load_explicit(&truncates, memory_order_relaxed);
	st->passed = atomic_load_explicit(&passed, memory_order_relaxed);
	st->parks = atomic_load_explicit(&parks, memory_order_relaxed);
}

void
inv_pcache_install(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install);
}
