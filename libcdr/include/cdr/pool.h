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
 * When a thread exits, what it kept goes to the shared pools: one per kind
 * of object, a bounded set of slots (one per cache line, each thread
 * starting its scan at a slot of its own, so that threads exiting together
 * do not contend), where a thread whose own shelf of that kind is empty
 * finds it: threads that live for one task recycle as long-lived ones do.
 * Something released on a thread after its exit hook ran, or on a thread
 * whose exit hook could not be set up (pthread_key_create() or
 * pthread_setspecific() failing: such a thread keeps nothing itself), goes
 * to the shared pool too.  What a full shared pool cannot take is freed.
 * Only the calling thread's own shelves are read without an atomic: the
 * shared pools are reached only when a shelf is empty (a thread's first
 * objects) and at thread exit.
 *
 * Pooled memory comes from the global allocator (cdr/mem.h), table blocks
 * from their table's; an object is handed out again only for the allocator
 * it came from.  Flush the pools (cdr_pool_flush() in every thread that used
 * them, and cdr_pool_flush_shared()) before an allocator they hold memory
 * of is destroyed or before cdr_mem_set_global().
 */
#ifndef CDR_POOL_H
#define CDR_POOL_H

#include <stddef.h>
#include <stdint.h>
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

/* The most objects a shared pool can be set to hold (compile-time: its
 * slots are static storage). */
#define CDR_POOL_MAX_SHARED 64u

/* The kinds of pooled object, each with a shared pool of its own. */
typedef enum cdr_pool_kind {
  CDR_POOL_BUFFERS,      /* output buffers */
  CDR_POOL_ARENAS,       /* decode arenas, each with its largest block */
  CDR_POOL_VALUE_STATES, /* value-graph stream states */
  CDR_POOL_TABLE_BLOCKS, /* indirection-table blocks */
  CDR_POOL_KINDS
} cdr_pool_kind;

/* The defaults. */
#define CDR_POOL_DEFAULT_BUFFERS 4u
#define CDR_POOL_DEFAULT_BUFFER_MAX_BYTES ((size_t)4 << 20)
#define CDR_POOL_DEFAULT_ARENAS 4u
#define CDR_POOL_DEFAULT_ARENA_MAX_BYTES ((size_t)1 << 20)
#define CDR_POOL_DEFAULT_VALUE_STATES 4u
#define CDR_POOL_DEFAULT_SHARED_BUFFERS 16u
#define CDR_POOL_DEFAULT_SHARED_ARENAS 16u
#define CDR_POOL_DEFAULT_SHARED_VALUE_STATES 32u
#define CDR_POOL_DEFAULT_SHARED_TABLE_BLOCKS CDR_TABLES_SHARED_SLOTS

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
  /* Objects each kind's shared pool holds (index: cdr_pool_kind),
   * 0..CDR_POOL_MAX_SHARED; 0: that kind is never shared (what exiting
   * threads kept is freed).  Defaults: 16 buffers, 16 arenas, 32 value
   * states, 32 table blocks.  The bounds above on each object's size apply
   * to the shared pools too, so at most shared[CDR_POOL_BUFFERS] *
   * buffer_max_bytes octets of buffers are kept there (64 MiB by default;
   * 16 MiB of arenas, 32 blocks of at most table_max_entries entries).
   * Lowering a bound leaves objects already shared past it to
   * cdr_pool_flush_shared(). */
  unsigned shared[CDR_POOL_KINDS];
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
 * CDR_POOL_MAX_VALUE_STATES, table_blocks over CDR_TABLES_POOL_MAX, a
 * shared bound over CDR_POOL_MAX_SHARED). */
CDR_API int cdr_pool_set_config(const cdr_pool_config *c);

/* The current configuration into C.  Thread-safe (each setting read with a
 * relaxed atomic load); cannot fail. */
CDR_API void cdr_pool_get_config(cdr_pool_config *c) CDR_NONNULL(1);

/* Free everything the calling thread keeps: output buffers, arenas,
 * value-stream states and indirection-table blocks (tests use it before
 * checking for leaks and before switching the global allocator; a thread
 * that will stay idle a long time may too).  Touches only the calling
 * thread's pools; no lock.  The shared pools stay: see
 * cdr_pool_flush_shared().  Cannot fail. */
CDR_API void cdr_pool_flush(void);

/* Free every object in every shared pool (table blocks included: it does
 * what cdr_tables_flush_shared() does, for every kind).  Thread-safe: each
 * slot is emptied by an atomic exchange.  Cannot fail. */
CDR_API void cdr_pool_flush_shared(void);

/* Counts of the shared pools, per kind (index: cdr_pool_kind). */
typedef struct cdr_pool_stats {
  uint64_t shared_hits[CDR_POOL_KINDS]; /* objects taken from the shared pool */
  uint64_t shared_puts[CDR_POOL_KINDS]; /* objects handed to it (thread exit, or a
                                           release on a thread without its cache) */
  uint64_t shared_full[CDR_POOL_KINDS]; /* objects it had no room for (its bound
                                           reached, or 0), freed instead */
  uint32_t shared_pooled[CDR_POOL_KINDS]; /* a snapshot: objects in it now */
} cdr_pool_stats;

/* The counts of the calling thread and of every thread that has exited
 * (counted without read-modify-write atomics while a thread runs, added to
 * the totals when it exits), into OUT; compare two snapshots to measure an
 * interval.  Thread-safe; no lock.  Cannot fail. */
CDR_API void cdr_pool_get_stats(cdr_pool_stats *out) CDR_NONNULL(1);

/* The same counts of the calling thread alone, since it started (a thread
 * measuring its own work while others exit).  Cannot fail. */
CDR_API void cdr_pool_get_thread_stats(cdr_pool_stats *out) CDR_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
