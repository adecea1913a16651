/* pool_impl.h - the per-thread cache (internal).
 *
 * One thread-local struct holds everything a thread keeps for reuse:
 * output buffers and decode arenas (pool.c), value-graph stream states
 * (value_state.c) and indirection-table blocks (itab.c), each on a shelf of its
 * own.  Its owner reads and writes a shelf directly (no call, no lock).
 * pool.c owns the one pthread key and thread-exit hook; a module with a
 * shelf registers a client (cdr__tcache_add_client()) whose functions
 * pool.c calls to flush or hand on that shelf, so that this layer never
 * calls up into the modules above it.
 *
 * A thread's cache starts NEW; the first time something is to be kept (or
 * a table block taken, so that itab.c counts per thread), the thread
 * enters the cache (its exit hook is set) and the cache is LIVE.
 * OFF: the exit hook could not be set, or has run; nothing is kept then
 * (what is given back goes to the shared pool of its kind, or is freed), so
 * nothing is stranded when the thread exits.
 *
 * The shared pools (one per cdr_pool_kind, pool.c): bounded sets of slots,
 * one per cache line, that exiting threads fill and threads with an empty
 * shelf take from.  A thread starts its scan at a slot of its own (striped:
 * threads exiting together do not contend) and no count is shared: a take
 * from a pool that was never filled reads one word.  A module whose shelf
 * is shared gives pool.c its kind's functions (cdr__shared_ops) with its
 * client.  The settings (cdr/pool.h) are one process-wide
 * cdr_pool_config, read with relaxed loads.  (itab.c's statistics are
 * counters, not a pool: they stay in that module, linked into its registry
 * at a thread's first count while LIVE and unlinked by its client's exit.)
 */
#ifndef CDR_POOL_IMPL_H
#define CDR_POOL_IMPL_H

#include "internal.h"
#include <cdr/pool.h>
#include <cdr/arena.h>
#include <stdbool.h>

/* Smallest buffer the buffer pool hands out (a stream's first buffer). */
#define CDR_BUF_MIN 8192

enum { CDR__TC_NEW = 0, CDR__TC_LIVE, CDR__TC_OFF };

struct cdr_itab_block; /* itab.c */

enum { CDR__SH_HITS, CDR__SH_PUTS, CDR__SH_FULL, CDR__SH_N };

typedef struct cdr__tcache {
  uint32_t state;                /* CDR__TC_NEW, _LIVE, _OFF */
  uint32_t nbufs, narenas, nvalue_states, ntable_blocks;
  /* pool.c: buffers (their sizes in caps) and arenas */
  size_t caps[CDR_POOL_MAX_BUFFERS];
  void *bufs[CDR_POOL_MAX_BUFFERS];
  cdr_arena *arenas[CDR_POOL_MAX_ARENAS];
  /* value_state.c: released stream states */
  void *value_states[CDR_POOL_MAX_VALUE_STATES];
  /* itab.c: released table blocks, oldest first */
  struct cdr_itab_block *table_blocks[CDR_TABLES_POOL_MAX];
  /* the shared pools' counts (cdr_pool_stats) while not OFF; an OFF
   * thread counts into the totals of exited threads */
  uint64_t shared_st[CDR_POOL_KINDS][CDR__SH_N];
} cdr__tcache;

/* Objects built for the shared library (libtool defines PIC) reach it
 * through the TLS descriptor; the others can only be linked into an
 * executable, where it lies at a fixed offset from the thread pointer. */
#ifdef PIC
#define CDR__TC_MODEL
#else
#define CDR__TC_MODEL __attribute__((tls_model("local-exec")))
#endif
CDR_HIDDEN extern __thread cdr__tcache cdr__tc CDR__TC_MODEL;

/* What the shared pool of a kind needs to know of its objects. */
typedef struct cdr__shared_ops {
  /* Whether OBJ may serve a request for allocator A and at least MIN (the
   * kind's unit: octets, entries; 0: any). */
  bool (*fits)(const void *obj, const cdr_allocator *a, size_t min);
  /* Free OBJ (a flush, or a misfit that found no slot again). */
  void (*destroy)(void *obj);
} cdr__shared_ops;

/* A module's functions for its shelf.  pool.c calls them with the calling
 * thread's cache. */
typedef struct cdr__tcache_client {
  /* The thread entered the cache (NULL: nothing to do). */
  void (*enter)(cdr__tcache *tc);
  /* cdr_pool_flush(): free everything on the shelf. */
  void (*flush)(cdr__tcache *tc);
  /* Thread exit, with TC already OFF: hand the shelf on (cdr__shared_put)
   * or free it. */
  void (*exit)(cdr__tcache *tc);
  /* The kind of the shelf's shared pool, and its functions (NULL: none). */
  cdr_pool_kind kind;
  const cdr__shared_ops *shared;
} cdr__tcache_client;

/* Register C (static storage) for every thread: from a constructor, so
 * that it is there before threads enter the cache (a thread that entered
 * before still gets flush and exit, not enter).  Room for 4 clients (2 are
 * used, neither with an enter); more are ignored. */
CDR_HIDDEN void cdr__tcache_add_client(const cdr__tcache_client *c);

/* Enter TC (the calling thread's cache, NEW): set the thread's exit hook
 * and run the clients' enter.  1 if TC is LIVE after, 0 if it is OFF. */
CDR_HIDDEN int cdr__tcache_enter(cdr__tcache *tc);

/* The calling thread's cache, entered if it was NEW. */
static inline cdr__tcache *cdr__tcache_self(void)
{
  cdr__tcache *tc = &cdr__tc;
  if (CDR_UNLIKELY(tc->state == CDR__TC_NEW))
    (void)cdr__tcache_enter(tc);
  return tc;
}

/* Whether TC may keep what is given back now (entering it if NEW). */
static inline int cdr__tcache_live(cdr__tcache *tc)
{
  if (CDR_LIKELY(tc->state == CDR__TC_LIVE))
    return 1;
  return tc->state == CDR__TC_NEW && cdr__tcache_enter(tc);
}

/* The settings; read a field with CDR__POOL_CFG(field). */
CDR_HIDDEN extern cdr_pool_config cdr__pool_cfg;
#define CDR__POOL_CFG(field) __atomic_load_n(&cdr__pool_cfg.field, __ATOMIC_RELAXED)

/* The shared pools.  TC is the calling thread's cache (its slot of first
 * choice, and where the counts go).
 *
 * cdr__shared_put: OBJ, of SIZE (the kind's unit: what fits compares with
 * MIN; 0 for kinds without one), into an empty slot of KIND's pool; false
 * (counted full: the caller frees OBJ) when every slot within the bound is
 * taken.
 * cdr__shared_take: an object that fits allocator A and MIN (the kind's
 * fits), taken out of its slot, or NULL; slots whose size is below MIN are
 * passed over without a write.  LARGEST: the largest there is (every slot
 * read first), else the first found from the thread's own slot on.  Enters TC if it was NEW (what a thread
 * takes it gives back).  Misfits met on the way go back to a slot, or are
 * freed when none is left.
 * cdr__shared_flush: free every object of KIND's pool. */
CDR_HIDDEN bool cdr__shared_put(cdr__tcache *tc, cdr_pool_kind kind, void *obj, size_t size);
CDR_HIDDEN void *cdr__shared_take(cdr__tcache *tc, cdr_pool_kind kind, const cdr_allocator *a,
                                  size_t min, bool largest);
CDR_HIDDEN void cdr__shared_flush(cdr_pool_kind kind);

/* A buffer of at least MIN octets from the calling thread's pool, or a new
 * one from the global allocator; *CAP gets its size.  NULL when allocation
 * fails. */
CDR_HIDDEN void *cdr__buf_get(size_t min, size_t *cap);
/* Give BUF (CAP octets, from cdr__buf_get or the global allocator) back. */
CDR_HIDDEN void cdr__buf_put(void *buf, size_t cap);

#endif
