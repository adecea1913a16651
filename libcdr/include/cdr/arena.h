/* cdr/arena.h - decode arenas.
 *
 * Everything a decoder copies out of a message (strings, sequences, value
 * graphs) is allocated from an arena owned by the caller; one reset or free
 * releases all of it, so cyclic value graphs need no reference counting.
 * Arenas hold their memory in blocks from an allocator.  cdr_arena_reset()
 * keeps the first block for the next message, and cdr_arena_get()/put() keep
 * reset arenas in a per-thread pool (cdr/pool.h) so that a steady stream of
 * calls allocates nothing.  An arena is not thread-safe; use one per thread
 * or per call.
 */
#ifndef CDR_ARENA_H
#define CDR_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>
#include <cdr/mem.h>
#include <cdr/pool.h> /* the pool's settings; cdr_pool_flush(), declared here before */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdr_arena_block cdr_arena_block;

/* The fields are private: the struct is visible so that cdr_arena_alloc()
 * is inline and an arena can live on the stack. */
typedef struct cdr_arena {
  uint8_t *cur;                  /* next free octet of the current block */
  uint8_t *lim;                  /* what the inline path may hand out up to: the
                                  * block's end, or less where max would be passed */
  uint8_t *end;                  /* end of the current block */
  uint8_t *mark;                 /* where counting started in the current block */
  size_t base;                   /* octets used before mark (earlier blocks) */
  cdr_arena_block *blocks;       /* newest first */
  size_t block_size;             /* next block's size (doubles, capped) */
  size_t max;                    /* most octets used before allocations fail */
  const cdr_allocator *alloc;
} cdr_arena;

/* Initialise A over allocator ALLOC (NULL: global).  Allocates nothing until
 * the first cdr_arena_alloc(). */
CDR_API void cdr_arena_init(cdr_arena *a, const cdr_allocator *alloc) CDR_NONNULL(1);

/* Free every block of A.  A may be initialised again afterwards. */
CDR_API void cdr_arena_free(cdr_arena *a) CDR_NONNULL(1);

/* Forget everything allocated from A, keeping its largest block for reuse. */
CDR_API void cdr_arena_reset(cdr_arena *a) CDR_NONNULL(1);

/* Octets used since the last reset: what was handed out, with the padding
 * that alignment put before each allocation in its block. */
static inline size_t cdr_arena_used(const cdr_arena *a)
{
  return a->base + (size_t)(a->cur - a->mark);
}

/* Limit the octets used between resets (default: unlimited, i.e.
 * SIZE_MAX); an allocation that would pass it returns NULL. */
CDR_API void cdr_arena_set_max(cdr_arena *a, size_t max) CDR_NONNULL(1);

/* Every block has this many writable octets past its end (never handed
 * out): the library's decoder zeroes objects of up to that size with
 * fixed-size stores that may run into free space or the slack.  Not for
 * direct use. */
#define CDR__ARENA_SLACK 64

/* Slow path of cdr_arena_alloc(); not for direct use. */
CDR_API void *cdr_arena__alloc_slow(cdr_arena *a, size_t size, size_t align);

/* SIZE octets aligned to ALIGN (a power of two <= 16) from A, uninitialised.
 * NULL when the allocator fails or the arena's maximum would be passed. */
/* The bump allocation of cdr_arena_alloc() over a bump pointer *CUR and a
 * bound LIM (the library's decoder holds them in locals in its loop): the
 * aligned pointer, *CUR moved past SIZE octets; NULL when they do not fit.
 * Not for direct use. */
static inline void *cdr_arena__bump(uint8_t **cur, const uint8_t *lim, size_t size, size_t align)
{
  uintptr_t p = ((uintptr_t)*cur + (align - 1)) & ~(uintptr_t)(align - 1);
  /* Signed: p passes lim by less than ALIGN when the block is full. */
  if (__builtin_expect((intptr_t)((uintptr_t)lim - p) >= (intptr_t)size && (intptr_t)size >= 0,
                       1)) {
    *cur = (uint8_t *)(p + size);
    return (void *)p;
  }
  return NULL;
}

static inline void *cdr_arena_alloc(cdr_arena *a, size_t size, size_t align)
{
  void *p = cdr_arena__bump(&a->cur, a->lim, size, align);
  return __builtin_expect(p != NULL, 1) ? p : cdr_arena__alloc_slow(a, size, align);
}

/* A reset arena from the calling thread's pool (or a new one over the global
 * allocator), with no maximum (SIZE_MAX, whatever cdr_arena_set_max() its
 * previous user set); NULL only when allocation fails.  Give it back with
 * cdr_arena_put(), which resets it and keeps it in the calling thread's
 * pool, or frees it past the pool's bounds (cdr/pool.h: by default at most
 * 4 arenas a thread, none whose next block would exceed 1 MiB; an arena
 * over another allocator than the global one is always freed).  An arena
 * may be put on another thread than the one that got it; A NULL is a
 * no-op. */
CDR_API cdr_arena *cdr_arena_get(void);
CDR_API void cdr_arena_put(cdr_arena *a);

#ifdef __cplusplus
}
#endif
#endif
