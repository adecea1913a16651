/* cdr/pool.h - the per-thread pools: what each thread keeps for reuse, the
 * settings of every pool, and flushing them.
 *
 * So that a steady stream of calls allocates nothing, each thread keeps
 * what it releases for its next use, in thread-local storage and without a
 * lock:
 *  - output buffers: a stream over the global allocator (opts.alloc NULL)
 *    takes its first buffer from the pool and cdr_out_close() gives it back
 *    (a detached buffer leaves the pool for good);
 *  - decode arenas: cdr_arena_get() and cdr_arena_put() (cdr/arena.h);
 *  - value-graph stream states (indirection tables and the walk's frames,
 *    cdr/value.h), for streams over the global allocator;
 *  - the blocks of indirection tables past their 8 inline entries
 *    (cdr/tables.h, which also has their statistics).
 * Anything may be given back on another thread than the one that took it:
 * it joins that thread's pool.  Over the bounds below, what is given back is
 * freed instead of kept, so that one huge message does not pin memory.
 *
 * At thread exit everything the thread kept is freed, except table blocks,
 * which go to a small shared pool (cdr/tables.h) where other threads find
 * them.  Something released on a thread after its exit hook ran is freed (a
 * table block: handed to the shared pool) rather than kept.  If the library
 * cannot set up its thread-exit hook (pthread_key_create() or
 * pthread_setspecific() failing), the thread keeps nothing, so that nothing
 * leaks when it exits.
 *
 * Pooled memory comes from the global allocator (cdr/mem.h), table blocks
 * from their table's.  Flush the pools (cdr_pool_flush() in every thread
 * that used them, and cdr_tables_flush_shared()) before an allocator they
 * hold memory of is destroyed or before cdr_mem_set_global().
 */
#ifndef CDR_POOL_H
#define CDR_POOL_H

#include <stddef.h>
#include <cdr/export.h>
#include <cdr/tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most objects of each kind a thread can be set to keep (compile-time:
 * the per-thread storage has room for this many). */
#define CDR_POOL_MAX_BUFFERS 16u
#define CDR_POOL_MAX_ARENAS 16u
#define CDR_POOL_MAX_VALUE_STATES 16u

/* The defaults. */
#define CDR_POOL_DEFAULT_BUFFERS 4u
#define CDR_POOL_DEFAULT_BUFFER_MAX_BYTES ((size_t)4 << 20)
#define CDR_POOL_DEFAULT_ARENAS 4u
#define CDR_POOL_DEFAULT_ARENA_MAX_BYTES ((size_t)1 << 20)
#define CDR_POOL_DEFAULT_VALUE_STATES 4u

/* The settings of every pool.  Counts are per thread. */
typedef struct cdr_pool_config {
  /* Output buffers a thread keeps, 0..CDR_POOL_MAX_BUFFERS (default 4; 0:
   * every cdr_out_close() frees its stream's buffer).  When they are all
   * taken, a buffer given back replaces the smallest one kept if it is
   * larger, and is freed otherwise. */
  unsigned buffers;
  /* Octets: a buffer larger than this is freed rather than kept (default
   * 4 MiB; any value).  Buffers start at 8 KiB and double as a stream
   * grows. */
  size_t buffer_max_bytes;
  /* Decode arenas a thread keeps, 0..CDR_POOL_MAX_ARENAS (default 4; 0:
   * cdr_arena_put() frees every arena).  An arena over another allocator
   * than the global one is never kept. */
  unsigned arenas;
  /* Octets: an arena is kept only while the next block it would allocate
   * is at most this large (default 1 MiB; any value).  Block sizes double
   * from 4 KiB, so the default keeps arenas whose blocks are at most
   * 512 KiB; cdr_arena_put() resets an arena to its largest block. */
  size_t arena_max_bytes;
  /* Value-graph stream states a thread keeps, 0..CDR_POOL_MAX_VALUE_STATES
   * (default 4; 0: every stream that wrote or read a value frees its state
   * at close).  A stream over another allocator than the global one never
   * uses the pool. */
  unsigned value_states;
  /* Indirection-table blocks, as cdr_tables_set_pool() sets them
   * (cdr/tables.h): pooled or not (0: every block is freed when its table
   * is released; default 1), blocks a thread keeps
   * (0..CDR_TABLES_POOL_MAX, default CDR_TABLES_DEFAULT_MAX_TABLES) and
   * the largest block kept, in entries (default
   * CDR_TABLES_DEFAULT_MAX_ENTRIES; any value). */
  int tables;
  unsigned table_blocks;
  unsigned table_max_entries;
} cdr_pool_config;

/* Fill C with the defaults above.  Cannot fail. */
CDR_API void cdr_pool_config_default(cdr_pool_config *c) CDR_NONNULL(1);

/* Set every pool's configuration from C (process-wide: all threads).
 *
 * Takes effect for what is given back after the call returns: objects
 * already kept stay until they are taken or flushed, even past a lowered
 * bound.  Thread-safe: each setting is published separately (relaxed
 * atomics), so an operation running concurrently may see some old and some
 * new settings; one that starts after the call returns sees all the new
 * ones.  Returns CDR_OK, or CDR_E_INVALID (and changes nothing) when C is
 * NULL or a count is over its maximum (buffers over CDR_POOL_MAX_BUFFERS,
 * arenas over CDR_POOL_MAX_ARENAS, value_states over
 * CDR_POOL_MAX_VALUE_STATES, table_blocks over CDR_TABLES_POOL_MAX). */
CDR_API int cdr_pool_set_config(const cdr_pool_config *c);

/* The current configuration into C.  Thread-safe (each setting read with a
 * relaxed atomic load); cannot fail. */
CDR_API void cdr_pool_get_config(cdr_pool_config *c) CDR_NONNULL(1);

/* Free everything the calling thread keeps: output buffers, arenas,
 * value-stream states and indirection-table blocks (tests use it before
 * checking for leaks and before switching the global allocator; a thread
 * that will stay idle a long time may too).  Touches only the calling
 * thread's pools; no lock.  Blocks in the shared table pool stay: see
 * cdr_tables_flush_shared().  Cannot fail. */
CDR_API void cdr_pool_flush(void);

#ifdef __cplusplus
}
#endif
#endif
