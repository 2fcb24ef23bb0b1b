/*
 * cJSON's allocations from a per-thread arena while the thread decodes.
 *
 * Parsing a document with cJSON makes an allocation per value and per
 * string (hundreds for a report), and cJSON_Delete frees each again.
 * Between json_arena_begin() and json_arena_end(), the calling thread's
 * cJSON allocations are carved from a block the thread keeps for the next
 * time, and freeing them costs nothing; what does not fit in the block is
 * malloc'd and freed as usual, and the block grows for the next time.
 *
 * cJSON's allocation hooks are global: they are installed once, when the
 * program starts, and outside a begin/end pair (on every other thread, and
 * on this one before and after) they are malloc and free.  So memory cJSON
 * allocates outside a pair is malloc'd, as callers expect (report_encode's
 * result is freed with free()), and memory allocated before a pair may be
 * freed inside it.  The one rule: what is allocated inside a pair must be
 * freed (cJSON_Delete) before json_arena_end(), unless json_arena_holds_all()
 * says the arena holds it, and never escape the pair.
 */
#ifndef TBMESH_JSON_ARENA_H
#define TBMESH_JSON_ARENA_H

/* Start a decode on this thread: cJSON allocations come from its arena.  No nesting. */
void json_arena_begin(void);
/*
 * Whether every allocation since json_arena_begin() came from the arena:
 * then json_arena_end() releases them all, and a tree made meanwhile need
 * not be deleted (its nodes need not be visited one by one).
 */
int json_arena_holds_all(void);
/* End it: the arena is empty again. */
void json_arena_end(void);

#endif
