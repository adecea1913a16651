/* arena.c - decode arenas: bump allocation from blocks that double in size. */
#include "internal.h"
#include <cdr/arena.h>

struct cdr_arena_block {
  cdr_arena_block *next;
  size_t size;              /* octets after the header */
  max_align_t data[];
};

#define ARENA_FIRST_BLOCK 4096

/* An empty arena points at this, so that a zero-octet allocation from it
 * returns a valid non-NULL pointer. */
static max_align_t arena_empty;
#define ARENA_MAX_BLOCK (1u << 22)

/* Set lim: the block's end, or less where the maximum would be passed. */
static void arena_set_lim(cdr_arena *a)
{
  size_t used = cdr_arena_used(a);
  size_t room = (size_t)(a->end - a->cur);
  size_t budget = used < a->max ? a->max - used : 0;
  a->lim = a->cur + (budget < room ? budget : room);
}

void cdr_arena_init(cdr_arena *a, const cdr_allocator *alloc)
{
  a->cur = a->lim = a->end = a->mark = (uint8_t *)&arena_empty;
  a->base = 0;
  a->blocks = NULL;
  a->block_size = ARENA_FIRST_BLOCK;
  a->max = SIZE_MAX;
  a->alloc = cdr__alloc_or_global(alloc);
}

void cdr_arena_set_max(cdr_arena *a, size_t max)
{
  a->max = max;
  arena_set_lim(a);
}

/* Free the chain of blocks from B on. */
static void free_blocks(cdr_arena *a, cdr_arena_block *b)
{
  while (b) {
    cdr_arena_block *next = b->next;
    cdr__free(a->alloc, b);
    b = next;
  }
}

void cdr_arena_free(cdr_arena *a)
{
  free_blocks(a, a->blocks);
  a->blocks = NULL;
  a->cur = a->lim = a->end = a->mark = (uint8_t *)&arena_empty;
  a->base = 0;
  a->block_size = ARENA_FIRST_BLOCK;
}

/* cdr_arena_reset() of an arena that was used. */
static __attribute__((noinline)) void arena_reset_used(cdr_arena *a)
{
  /* Blocks are newest first and grow, so the head is the largest: keep it. */
  cdr_arena_block *keep = a->blocks;
  if (keep) {
    if (__builtin_expect(keep->next != NULL, 0)) {
      free_blocks(a, keep->next);
      keep->next = NULL;
    }
    a->cur = (uint8_t *)keep->data;
    a->end = a->cur + keep->size;
  }
  a->mark = a->cur;
  a->base = 0;
  /* arena_set_lim() with nothing used: the whole maximum left. */
  size_t room = (size_t)(a->end - a->cur);
  a->lim = a->cur + (a->max < room ? a->max : room);
}

void cdr_arena_reset(cdr_arena *a)
{
  /* Nothing used since the last reset, and one block at most: the state a
   * reset leaves (cur and mark at the only block's start, base 0, the limit
   * computed as arena_reset_used() does by every path that moved it), so
   * nothing to do -- a request that decoded nothing into the arena costs a
   * few loads. */
  if (a->base == 0 && a->cur == a->mark && (!a->blocks || !a->blocks->next))
    return;
  arena_reset_used(a);
}

void *cdr_arena__alloc_slow(cdr_arena *a, size_t size, size_t align)
{
  if (size > SIZE_MAX / 2 - align - sizeof(cdr_arena_block))
    return NULL;
  size_t used = cdr_arena_used(a);
  uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
  size_t pad = (size_t)(p - (uintptr_t)a->cur);
  if (used > a->max || pad + size > a->max - used)
    return NULL; /* the maximum; a new block would hold it without padding,
                  * but the limit is about what is used, not where */
  if (p <= (uintptr_t)a->end && size <= (uintptr_t)a->end - p) {
    /* Only the maximum stopped the inline path, and it allows this. */
    a->cur = (uint8_t *)(p + size);
    arena_set_lim(a);
    return (void *)p;
  }
  /* A new block is needed.  Big requests get a block of their own size. */
  size_t want = size + align;
  size_t bsize = a->block_size;
  while (bsize < want && bsize < ARENA_MAX_BLOCK)
    bsize *= 2;
  if (bsize < want)
    bsize = want;
  if (bsize > SIZE_MAX - sizeof(cdr_arena_block) - CDR__ARENA_SLACK)
    return NULL;
  /* The slack past the block's end lets a decoder zero a small object with
   * a few fixed-size stores that may run past it (cdr/arena.h). */
  cdr_arena_block *b = cdr__malloc(a->alloc, sizeof(cdr_arena_block) + bsize + CDR__ARENA_SLACK);
  if (!b)
    return NULL;
  b->size = bsize;
  b->next = a->blocks;
  a->blocks = b;
  if (a->block_size < ARENA_MAX_BLOCK)
    a->block_size = bsize * 2 < ARENA_MAX_BLOCK ? bsize * 2 : ARENA_MAX_BLOCK;
  a->base = used;
  a->cur = a->mark = (uint8_t *)b->data;
  a->end = a->cur + bsize;
  p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
  a->cur = (uint8_t *)(p + size);
  arena_set_lim(a);
  return (void *)p;
}
