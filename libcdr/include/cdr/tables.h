/* cdr/tables.h - the pools behind indirection tables: configuration and
 * statistics.
 *
 * Every CDR stream keeps indirection tables (values, repository IDs,
 * codebase URLs) so that something already written or read can be referred
 * to by an indirection.  A table holds its first 8 entries inside the stream
 * and allocates nothing for them; past that it takes a block of arrays.  When
 * a stream is closed, the block goes to a pool in the closing thread (no
 * lock), and the next table that grows past 8 entries on that thread takes
 * it back, as large as it had grown.  A table that outgrows its block takes
 * the smallest large enough pooled block, or a new one, and gives the old
 * block to the pool; past max_entries (where blocks are never pooled) blocks
 * grow fourfold instead of twofold, so fewer are allocated per message.  At
 * thread exit a thread's blocks go, largest first, to the shared pool of
 * table blocks (cdr/pool.h: lock-free, one slot per 128-byte cache line),
 * where a table that finds no block in its thread's pool looks next, so
 * that threads that live for one task still recycle.
 *
 * Bounds, so that one huge message does not pin memory: at most max_tables
 * blocks per thread, none of more than max_entries entries; a block over
 * either bound is freed when its table is released.  The shared pool holds
 * cdr_pool_config.shared[CDR_POOL_TABLE_BLOCKS] blocks (cdr/pool.h; default
 * CDR_TABLES_SHARED_SLOTS); a block handed to it when full is freed.
 *
 * A block goes back to the allocator it came from (the allocator the table
 * was initialised with), and is reused only by a table using the same
 * allocator.  Flush the pools (cdr_tables_flush_thread() or
 * cdr_pool_flush() in every thread that released tables, then
 * cdr_tables_flush_shared()) before an allocator they used is destroyed, or
 * before cdr_mem_set_global().  A thread's pool is its share of the
 * per-thread pools of cdr/pool.h.
 */
#ifndef CDR_TABLES_H
#define CDR_TABLES_H

#include <stdint.h>
#include <cdr/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults, and the largest max_tables accepted. */
#define CDR_TABLES_DEFAULT_MAX_TABLES 8u
#define CDR_TABLES_DEFAULT_MAX_ENTRIES 1024u
#define CDR_TABLES_POOL_MAX 32u
/* Blocks the shared pool holds by default (cdr/pool.h sets it). */
#define CDR_TABLES_SHARED_SLOTS 32u

/* Configure the pools.
 *
 * ENABLED: 0 turns pooling off (every block is allocated when a table grows
 * past 8 entries and freed on release: for benchmarks comparing pool on and
 * off); non-zero turns it on (the default).  MAX_TABLES: blocks a thread's
 * pool keeps, 0..CDR_TABLES_POOL_MAX (default 8).  MAX_ENTRIES: a block whose
 * capacity, in entries, exceeds it is never pooled (default 1024; capacities
 * are powers of two from 16, so below 16 nothing is pooled).
 *
 * These are the tables, table_blocks and table_max_entries settings of
 * cdr_pool_config (cdr/pool.h, where every pool is configured); this call
 * leaves the other pools' settings alone.  Blocks already pooled stay until
 * they are taken or flushed.  Thread-safe (relaxed atomics): operations
 * that start after the call returns see the new values; operations running
 * concurrently may see old or new ones.  Returns CDR_OK, or CDR_E_INVALID
 * (and changes nothing) if MAX_TABLES exceeds CDR_TABLES_POOL_MAX. */
CDR_API int cdr_tables_set_pool(int enabled, unsigned max_tables, unsigned max_entries);

/* The current configuration; any pointer may be NULL.  Thread-safe; cannot
 * fail. */
CDR_API void cdr_tables_get_pool(int *enabled, unsigned *max_tables, unsigned *max_entries);

/* Counts of blocks (a block holds one table's arrays past its 8 inline
 * entries).  Counters are process-wide, since the process started: each
 * thread counts its own events without read-modify-write atomics and
 * cdr_tables_get_stats() adds up those of every live thread and of threads that
 * have exited.  Compare two snapshots to measure an interval. */
typedef struct cdr_tables_stats {
  uint64_t pool_hits;      /* blocks a table leaving its inline entries, or growing,
                              took from its thread's pool */
  uint64_t shared_hits;    /* blocks a table leaving its inline entries, or growing,
                              took from the shared pool */
  uint64_t allocs;         /* blocks allocated (first growth past 8 entries with
                              no pooled block, or growth past a block's capacity) */
  uint64_t pooled;         /* blocks kept in a thread's pool when a table was released
                              or outgrew them */
  uint64_t shared_puts;    /* blocks handed to the shared pool at thread exit (or
                              released on a thread after its exit hook ran) */
  uint64_t freed_over_cap; /* blocks freed at release or growth (or thread exit):
                              capacity above max_entries */
  uint64_t freed_full;     /* blocks freed because the thread's pool held max_tables
                              blocks, or the shared pool had no empty slot */
  uint64_t frees;          /* every block freed, for any reason (the two above,
                              growth, pool off, flushes) */
  /* Snapshots, not counters: */
  uint32_t thread_pooled;  /* blocks in the calling thread's pool now */
  uint32_t shared_pooled;  /* blocks in the shared pool now */
} cdr_tables_stats;

/* Fill OUT with the statistics above.  Thread-safe; takes a lock shared only
 * with thread start/exit bookkeeping, never with table operations.  Counts of
 * other threads are read with relaxed atomics, so an operation in progress
 * elsewhere may or may not be counted. */
CDR_API void cdr_tables_get_stats(cdr_tables_stats *out) CDR_NONNULL(1);

/* Free every block in the calling thread's pool.  For leak checks and for
 * threads that will stay idle a long time; thread exit does the equivalent
 * (handing the blocks to the shared pool).  Touches only the calling
 * thread's pool; no lock. */
CDR_API void cdr_tables_flush_thread(void);

/* Free every block in the shared pool.  Thread-safe (each slot is emptied by
 * an atomic exchange). */
CDR_API void cdr_tables_flush_shared(void);

#ifdef __cplusplus
}
#endif
#endif
