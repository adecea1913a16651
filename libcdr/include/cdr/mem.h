/* cdr/mem.h - the allocator hook.
 *
 * Every allocation libcdr and libiiop make goes through a cdr_allocator.
 * Objects that take an allocator argument use it for everything they own;
 * NULL there means the process-wide allocator (cdr_mem_global()), which is the
 * C library's malloc unless cdr_mem_set_global() replaced it.  This is how the
 * tests fail each allocation in turn and how the benchmarks count allocations
 * per call.
 */
#ifndef CDR_MEM_H
#define CDR_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdr_allocator {
  /* Like malloc/realloc/free, with UD passed through.  malloc and realloc
   * return NULL on failure; free accepts NULL. */
  void *(*malloc)(size_t size, void *ud);
  void *(*realloc)(void *ptr, size_t size, void *ud);
  void (*free)(void *ptr, void *ud);
  void *ud;
} cdr_allocator;

/* The process-wide allocator (never NULL). */
CDR_API const cdr_allocator *cdr_mem_global(void);

/* Replace the process-wide allocator; NULL restores the C library's.  Call it
 * before any other libcdr function or after every object allocated through
 * the old one has been freed (pools included: see cdr_pool_flush()).  Not
 * thread-safe against concurrent allocation. */
CDR_API void cdr_mem_set_global(const cdr_allocator *a);

/* A counting allocator: wraps BASE (NULL: the C library) and counts calls and
 * bytes with relaxed atomics, so it may be shared by threads.  If fail_at is
 * non-zero, the fail_at-th allocation (malloc or realloc, counted from 1 since
 * the last reset) and only it returns NULL: tests use this to fail each
 * allocation in turn. */
typedef struct cdr_mem_counter {
  cdr_allocator alloc;        /* pass &counter->alloc where an allocator is wanted */
  const cdr_allocator *base;
  uint64_t mallocs;           /* malloc and growing realloc calls that succeeded */
  uint64_t frees;             /* free calls with a non-NULL pointer */
  uint64_t bytes;             /* bytes requested by those mallocs/reallocs */
  uint64_t fail_at;           /* 0: never fail */
  uint64_t attempts;          /* allocation attempts, failed ones included */
  int64_t live;               /* blocks allocated and not freed */
} cdr_mem_counter;

/* Initialise C (zeroing every count) over BASE (NULL: the C library). */
CDR_API void cdr_mem_counter_init(cdr_mem_counter *c, const cdr_allocator *base) CDR_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
