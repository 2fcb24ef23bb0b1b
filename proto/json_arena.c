/*
 * The per-thread arena behind cJSON's allocation hooks (see json_arena.h).
 *
 * A thread's arena is one block, allocated at its first decode and freed
 * when the thread exits (a thread-specific key's destructor).  Allocations
 * are bumped from it, 16-byte aligned; json_arena_end() resets it.  A free
 * of a pointer inside the block does nothing, any other is free(): memory
 * from the block never leaves the decode that allocated it, so a pointer
 * in the block is always one of this thread's.
 */
#include "json_arena.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define ARENA_MIN ((size_t)64 << 10)    /* a report's tree takes ~20 KiB */
#define ARENA_MAX ((size_t)4 << 20)     /* larger documents use malloc beyond it */
#define ARENA_ALIGN ((size_t)16)

struct arena {
	char *base;          /* the block, or NULL */
	size_t size, used;
	size_t missed;       /* bytes that did not fit during this decode */
	int active;          /* between begin and end */
};

static _Thread_local struct arena arena;
static pthread_key_t block_key;
static int hooks_ok;

static void *
arena_malloc(size_t n)
{
	struct arena *a = &arena;
	size_t need = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);

	if (a->active) {
		if (need >= n && need <= a->size - a->used) {
			void *p = a->base + a->used;
			a->used += need;
			return p;
		}
		a->missed += need;
	}
	return malloc(n);
}

static void
arena_free(void *p)
{
	const struct arena *a = &arena;
	uintptr_t u = (uintptr_t)p, b = (uintptr_t)a->base;

	if (a->base != NULL && u >= b && u - b < a->size)
		return;
	free(p);
}

/* At thread exit: the block the key holds. */
static void
release_block(void *block)
{
	free(block);
}

/*
 * Before main, while there is one thread: cJSON's hooks are global and
 * cJSON reads them on every allocation, so they are set once, here.
 */
static void __attribute__((constructor))
install_hooks(void)
{
	cJSON_Hooks h = { arena_malloc, arena_free };

	if (pthread_key_create(&block_key, release_block) != 0)
		return;
	cJSON_InitHooks(&h);
	hooks_ok = 1;
}

/* A block of size for this thread, in place of the one it had. */
static void
arena_alloc_block(struct arena *a, size_t size)
{
	free(a->base);
	a->size = 0;
	if ((a->base = malloc(size)) != NULL)
		a->size = size;
	pthread_setspecific(block_key, a->base);
}

void
json_arena_begin(void)
{
	struct arena *a = &arena;

	if (!hooks_ok)
		return;
	if (a->base == NULL)
		arena_alloc_block(a, ARENA_MIN);
	a->used = 0;
	a->missed = 0;
	a->active = a->base != NULL;
}

int
json_arena_holds_all(void)
{
	return arena.active && arena.missed == 0;
}

void
json_arena_end(void)
{
	struct arena *a = &arena;
	size_t want;

	if (!a->active)
		return;
	a->active = 0;
	if (a->missed > 0 && a->size < ARENA_MAX) {
		want = a->size * 2 > a->size + a->missed ? a->size * 2 : a->size + a->missed;
		arena_alloc_block(a, want < ARENA_MAX ? want : ARENA_MAX);
	}
	a->used = 0;
	a->missed = 0;
}
