/* malloc-count.h - the live counter page of bench/malloc-count.so (an
 * LD_PRELOAD allocation counter), shared by the preloaded object and by
 * readers such as `iiop-bench run`.
 *
 * With MALLOC_COUNT_SHM=FILE in its environment, a process that preloads
 * malloc-count.so keeps its counters in FILE, mapped shared: another
 * process maps FILE read-only and reads them at any moment, without
 * signalling (so without interrupting) the counted process.  Counts only
 * grow; a window is the difference of two reads.  The reader should create
 * FILE (zero-filled, MALLOC_COUNT_SHM_SIZE octets) before starting the
 * counted process; otherwise the counted process creates it.  A process
 * that execs keeps counting into the same FILE (the counts of every image
 * add up), and so do children it forks.
 *
 * Each field is updated with relaxed atomic adds; read them with relaxed
 * atomic loads.
 */
#ifndef BENCH_MALLOC_COUNT_H
#define BENCH_MALLOC_COUNT_H

#include <stdint.h>

#define MALLOC_COUNT_MAGIC UINT64_C(0x31544e554f43434d) /* "MCCOUNT1", little-endian */
#define MALLOC_COUNT_SHM_SIZE 4096

typedef struct malloc_count_page {
  uint64_t magic;      /* MALLOC_COUNT_MAGIC once a counted process has mapped it */
  uint64_t mallocs;    /* malloc() calls */
  uint64_t callocs;    /* calloc() calls */
  uint64_t reallocs;   /* realloc() and reallocarray() calls */
  uint64_t aligned;    /* posix_memalign, aligned_alloc, memalign, valloc, pvalloc */
  uint64_t frees;      /* free() of a non-null pointer */
  uint64_t bytes;      /* octets asked for by all of the above (realloc: the new size) */
  uint64_t failed;     /* calls that returned no memory */
} malloc_count_page;

/* Allocation calls of every kind. */
static inline uint64_t malloc_count_calls(const malloc_count_page *p)
{
  return p->mallocs + p->callocs + p->reallocs + p->aligned;
}

#endif
