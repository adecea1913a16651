/* itab.c - indirection tables and the pools of their blocks.
 *
 * Layout.  A table's first CDR_ITAB_INLINE entries sit in the struct and are
 * scanned linearly: for a handful of entries a scan of one or two cache lines
 * beats hashing, and most value graphs are that small.  The 9th distinct
 * pair moves every entry into a block, one allocation holding the parallel
 * entry arrays (key, value, key hash, previous entry with the same key) and
 * the two indexes (entry numbers from 1, 0 = empty, linear probing, slots =
 * 2 * capacity so the load factor stays at most 0.5).  The entry arrays are
 * the truth: an index can always be rebuilt from them, which is what growth
 * and reuse do.  The slot is the top bits of a 32-bit hash (Fibonacci
 * hashing for integers and pointers, the top half of XXH3 for strings).
 *
 * Pools.  A released table's block goes to the releasing thread's pool:
 * its shelf of the per-thread cache (pool_impl.h: thread-local, no lock;
 * cdr_tables_set_pool() or cdr_pool_set_config() bounds it).  Since a block
 * knows its allocator and capacity, it can be released on any thread and
 * reused by any table with the same allocator.  At thread exit the cache
 * calls this module's client, which hands the thread's blocks, largest
 * first, to the shared pool of table blocks (pool.c: the one striped
 * mechanism of every kind); a give that finds it full frees the block.  A
 * table that finds nothing in its thread's pool looks there: for any block
 * when it leaves its inline entries, for one large enough when it grows.
 *
 * Statistics are per-thread counters written only by their thread (relaxed
 * atomic stores, no read-modify-write on the hot path) and summed on demand
 * over a registry of live threads plus the totals of exited ones.
 */
#include "itab.h"
#include "pool_impl.h"
#include <pthread.h>
#include <stdbool.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#define ITAB_MIN_CAP 16u          /* first block: twice the inline entries */
#define ITAB_MAX_CAP (1u << 26)   /* entries; well past any message limit */

typedef struct cdr_itab_block {
  const cdr_allocator *a; /* frees the block; reused only with the same one */
  uint32_t cap;           /* entries: a power of two >= ITAB_MIN_CAP */
  uint32_t unused;
  /* then: uintptr_t keys[cap], vals[cap];
   *       uint32_t hash[cap], kprev[cap], kidx[2 * cap], vidx[2 * cap] */
} cdr_itab_block;

#define ITAB_ENTRY_BYTES (2 * sizeof(uintptr_t) + 6 * sizeof(uint32_t))
_Static_assert((uint64_t)ITAB_MAX_CAP * ITAB_ENTRY_BYTES + sizeof(cdr_itab_block) <= SIZE_MAX,
               "the largest block's size fits in size_t");

/* ------------------------------------------------------------------ hashing */

static inline uint32_t hash_int(uintptr_t x)
{
  return cdr_itab_hash_ptr(x);
}

static inline uint32_t hash_str(uintptr_t s)
{
  const char *p = (const char *)s;
  return (uint32_t)(XXH3_64bits(p, strlen(p)) >> 32);
}

static inline uint32_t key_hash(const cdr_itab *t, uintptr_t k)
{
  return t->kind == CDR_ITAB_STR ? hash_str(k) : hash_int(k);
}

static inline bool str_eq(uintptr_t a, uintptr_t b)
{
  return a == b || strcmp((const char *)a, (const char *)b) == 0;
}

/* ------------------------------------------------------------------ statistics */

enum {
  C_POOL_HITS, C_SHARED_HITS, C_ALLOCS, C_POOLED, C_SHARED_PUTS,
  C_FREED_OVER_CAP, C_FREED_FULL, C_FREES, C_N
};

/* A thread's counts.  Linked in the registry from the thread's first count
 * while its cache is entered (LIVE) to the cache's exit; a thread outside
 * it counts straight into the totals of exited threads.  Linking at the
 * first count, not when the thread enters the cache, keeps the registry's
 * lock and lines away from threads that never count: a task thread whose
 * value state brings its table's block from the shared pool. */
typedef struct itab_stats {
  uint32_t live;                  /* in the registry */
  struct itab_stats *prev, *next; /* registry of live threads, under reg_lock */
  uint64_t st[C_N];               /* written by the owner only, relaxed stores */
} itab_stats;

static __thread itab_stats tls_stats;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static itab_stats *reg_head;
static uint64_t retired[C_N]; /* counts of exited or unregistered threads */

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static bool stats_link(itab_stats *p);

static void count(itab_stats *p, int c)
{
  if (CDR_LIKELY(p->live) || stats_link(p))
    __atomic_store_n(&p->st[c], p->st[c] + 1, __ATOMIC_RELAXED);
  else
    __atomic_add_fetch(&retired[c], 1, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ pools */

/* The thread's pool is its cache's shelf (pool_impl.h): tc->table_blocks,
 * oldest first.  The shared pool is pool.c's, kind CDR_POOL_TABLE_BLOCKS,
 * each block filed under its capacity. */
#define KIND CDR_POOL_TABLE_BLOCKS

static cdr_itab_block *block_alloc(itab_stats *p, const cdr_allocator *a, uint32_t cap)
{
  if (cap > ITAB_MAX_CAP)
    return NULL;
  cdr_itab_block *b = cdr__malloc(a, sizeof *b + (size_t)cap * ITAB_ENTRY_BYTES);
  if (!b)
    return NULL;
  b->a = a;
  b->cap = cap;
  count(p, C_ALLOCS);
  return b;
}

static void block_free(itab_stats *p, cdr_itab_block *b)
{
  const cdr_allocator *a = b->a;
  count(p, C_FREES);
  cdr__free(a, b);
}

/* Hand B to the shared pool, or free it when the pool is full. */
static void shared_give(cdr__tcache *tc, itab_stats *p, cdr_itab_block *b)
{
  if (cdr__shared_put(tc, KIND, b, b->cap)) {
    count(p, C_SHARED_PUTS);
  } else {
    count(p, C_FREED_FULL);
    block_free(p, b);
  }
}

/* A shared block of allocator A with at least MIN_CAP entries, or NULL:
 * for a table leaving its inline entries the largest (it will not have to
 * grow through the smaller ones, each a take), for a growing one any. */
static cdr_itab_block *shared_take(cdr__tcache *tc, itab_stats *p, const cdr_allocator *a,
                                   uint32_t min_cap)
{
  cdr_itab_block *b = cdr__shared_take(tc, KIND, a, min_cap, min_cap == ITAB_MIN_CAP);
  if (b)
    count(p, C_SHARED_HITS);
  return b;
}

static bool block_fits(const void *obj, const cdr_allocator *a, size_t min)
{
  const cdr_itab_block *b = obj;
  return b->a == a && b->cap >= min;
}

static void block_destroy(void *obj)
{
  block_free(&tls_stats, obj);
}

/* A block for a table: for one leaving its inline entries (MIN_CAP ==
 * ITAB_MIN_CAP), the newest of this thread's pool with the same allocator
 * (a thread's messages tend to look alike: the block its last table grew
 * to); for a growing one, the smallest pooled block of at least MIN_CAP
 * entries (it climbs through the pooled sizes before allocating); else one
 * of at least MIN_CAP from the shared pool (none is larger than the entry
 * cap); else a new one of MIN_CAP. */
static cdr_itab_block *block_get(const cdr_allocator *a, uint32_t min_cap)
{
  cdr__tcache *tc = cdr__tcache_self();
  itab_stats *p = &tls_stats;
  cdr_itab_block *b = NULL;
  if (CDR__POOL_CFG(tables)) {
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = tc->ntable_blocks; i-- > 0;) {
      cdr_itab_block *x = tc->table_blocks[i];
      if (x->a != a || x->cap < min_cap)
        continue;
      if (min_cap == ITAB_MIN_CAP) {
        pick = i; /* the newest */
        break;
      }
      if (pick == UINT32_MAX || x->cap < tc->table_blocks[pick]->cap)
        pick = i;
    }
    if (pick != UINT32_MAX) {
      b = tc->table_blocks[pick];
      for (uint32_t j = pick + 1; j < tc->ntable_blocks; j++) /* keep the order: newest last */
        tc->table_blocks[j - 1] = tc->table_blocks[j];
      tc->ntable_blocks--;
      count(p, C_POOL_HITS);
      return b;
    }
    if (min_cap <= CDR__POOL_CFG(table_max_entries)
        && (b = shared_take(tc, p, a, min_cap)) != NULL)
      return b;
  }
  return block_alloc(p, a, min_cap);
}

/* A released table's block.  A thread whose cache is OFF (no exit hook, or
 * after it ran) keeps nothing: the block goes to the shared pool. */
static void block_put(cdr_itab_block *b)
{
  cdr__tcache *tc = cdr__tcache_self();
  itab_stats *p = &tls_stats;
  if (!CDR__POOL_CFG(tables)) {
    block_free(p, b);
    return;
  }
  if (b->cap > CDR__POOL_CFG(table_max_entries)) {
    count(p, C_FREED_OVER_CAP);
    block_free(p, b);
    return;
  }
  if (tc->state != CDR__TC_LIVE) {
    shared_give(tc, p, b);
    return;
  }
  if (tc->ntable_blocks >= CDR__POOL_CFG(table_blocks)) {
    count(p, C_FREED_FULL);
    block_free(p, b);
    return;
  }
  tc->table_blocks[tc->ntable_blocks++] = b;
  count(p, C_POOLED);
}

/* The cache client (pool_impl.h). */

/* The calling thread's counts P (not linked) into the registry, if its
 * cache is LIVE (its exit hook, tables_exit, will unlink them); false
 * otherwise (NEW or OFF: the count goes to the totals). */
static __attribute__((noinline)) bool stats_link(itab_stats *p)
{
  if (cdr__tc.state != CDR__TC_LIVE)
    return false;
  pthread_mutex_lock(&reg_lock);
  p->prev = NULL;
  p->next = reg_head;
  if (reg_head)
    reg_head->prev = p;
  reg_head = p;
  p->live = 1;
  pthread_mutex_unlock(&reg_lock);
  return true;
}

static void tables_flush(cdr__tcache *tc)
{
  itab_stats *p = &tls_stats;
  for (uint32_t i = 0; i < tc->ntable_blocks; i++)
    block_free(p, tc->table_blocks[i]);
  tc->ntable_blocks = 0;
}

/* Thread exit: the thread's blocks go to the shared pool, largest first
 * (when it fills, the small ones are freed: a larger block serves a table
 * as well), its counts to the totals of exited threads.  Later releases on
 * this thread (from other destructors) find the cache OFF and go to the
 * shared pool directly. */
static void tables_exit(cdr__tcache *tc)
{
  itab_stats *p = &tls_stats;
  bool share = CDR__POOL_CFG(tables);
  unsigned max_entries = CDR__POOL_CFG(table_max_entries);
  for (uint32_t i = 1; i < tc->ntable_blocks; i++) /* by capacity, largest first */
    for (uint32_t j = i; j > 0 && tc->table_blocks[j]->cap > tc->table_blocks[j - 1]->cap; j--) {
      cdr_itab_block *x = tc->table_blocks[j];
      tc->table_blocks[j] = tc->table_blocks[j - 1];
      tc->table_blocks[j - 1] = x;
    }
  for (uint32_t i = 0; i < tc->ntable_blocks; i++) {
    cdr_itab_block *b = tc->table_blocks[i];
    if (share && b->cap <= max_entries && cdr__shared_put(tc, KIND, b, b->cap)) {
      count(p, C_SHARED_PUTS);
    } else {
      if (share)
        count(p, b->cap > max_entries ? C_FREED_OVER_CAP : C_FREED_FULL);
      block_free(p, b);
    }
  }
  tc->ntable_blocks = 0;
  if (!p->live) /* never counted while LIVE: not in the registry */
    return;
  pthread_mutex_lock(&reg_lock);
  if (p->prev)
    p->prev->next = p->next;
  else
    reg_head = p->next;
  if (p->next)
    p->next->prev = p->prev;
  for (int c = 0; c < C_N; c++) {
    __atomic_add_fetch(&retired[c], p->st[c], __ATOMIC_RELAXED);
    __atomic_store_n(&p->st[c], 0, __ATOMIC_RELAXED);
  }
  p->live = 0;
  pthread_mutex_unlock(&reg_lock);
}

static const cdr__shared_ops tables_shared = { block_fits, block_destroy };
static const cdr__tcache_client tables_client = { NULL, tables_flush, tables_exit, KIND,
                                                   &tables_shared };

static __attribute__((constructor)) void tables_register(void)
{
  cdr__tcache_add_client(&tables_client);
}

/* ------------------------------------------------------------------ public pool API */

void cdr_tables_get_stats(cdr_tables_stats *out)
{
  uint64_t sum[C_N];
  pthread_mutex_lock(&reg_lock);
  for (int c = 0; c < C_N; c++)
    sum[c] = LOAD(retired[c]);
  for (itab_stats *p = reg_head; p; p = p->next)
    for (int c = 0; c < C_N; c++)
      sum[c] += LOAD(p->st[c]);
  pthread_mutex_unlock(&reg_lock);
  memset(out, 0, sizeof *out);
  out->pool_hits = sum[C_POOL_HITS];
  out->shared_hits = sum[C_SHARED_HITS];
  out->allocs = sum[C_ALLOCS];
  out->pooled = sum[C_POOLED];
  out->shared_puts = sum[C_SHARED_PUTS];
  out->freed_over_cap = sum[C_FREED_OVER_CAP];
  out->freed_full = sum[C_FREED_FULL];
  out->frees = sum[C_FREES];
  out->thread_pooled = cdr__tc.ntable_blocks;
  cdr_pool_stats ps;
  cdr_pool_get_thread_stats(&ps);
  out->shared_pooled = ps.shared_pooled[KIND];
}

void cdr_tables_flush_thread(void)
{
  tables_flush(&cdr__tc);
}

void cdr_tables_flush_shared(void)
{
  cdr__shared_flush(KIND);
}

/* ------------------------------------------------------------------ the table */

static void itab_bind(cdr_itab *t, cdr_itab_block *b)
{
  uint32_t c = b->cap;
  t->block = b;
  t->cap = c;
  t->keys = (uintptr_t *)(b + 1);
  t->vals = t->keys + c;
  t->hash = (uint32_t *)(t->vals + c);
  t->kprev = t->hash + c;
  t->kidx = t->kprev + c;
  t->vidx = t->kidx + 2 * (size_t)c;
}

/* Entry of the newest pair with key K (hash H), or 0; *SLOT: its index
 * slot, or the empty slot where K goes.  The key index must be in sync. */
static inline uint32_t probe_key(const cdr_itab *t, uintptr_t k, uint32_t h, uint32_t *slot)
{
  uint32_t s = h >> t->shift, e;
  if (t->kind == CDR_ITAB_PTR) {
    while ((e = t->kidx[s]) != 0 && t->keys[e - 1] != k)
      s = (s + 1) & t->mask;
  } else {
    while ((e = t->kidx[s]) != 0 && !(t->hash[e - 1] == h && str_eq(t->keys[e - 1], k)))
      s = (s + 1) & t->mask;
  }
  *slot = s;
  return e;
}

static inline uint32_t probe_val(const cdr_itab *t, uintptr_t v, uint32_t *slot)
{
  uint32_t s = hash_int(v) >> t->shift, e;
  while ((e = t->vidx[s]) != 0 && t->vals[e - 1] != v)
    s = (s + 1) & t->mask;
  *slot = s;
  return e;
}

/* Size both indexes for the block's capacity and mark them stale: the next
 * operation that needs one empties it and indexes the entries (key_sync,
 * vidx_sync).  A table that is only appended to and never searched (a
 * decoder's value table without indirections) never builds one. */
static void index_shape(cdr_itab *t)
{
  uint32_t slots = 2 * t->cap;
  t->mask = slots - 1;
  t->shift = (uint32_t)__builtin_clz(slots) + 1;
  t->kn = 0;
  t->vn = 0;
  t->kz = 0;
}

/* Bring the key index up to date: index entries kn+1..n in order, so that
 * the newest entry of a key ends up in its slot and kprev links each entry
 * to the previous one of its key.  kn == 0 means the slots are stale (a
 * reused or moved block) and are emptied first. */
static void key_sync(cdr_itab *t)
{
  if (t->kn == 0 && !t->kz) {
    memset(t->kidx, 0, 2 * (size_t)t->cap * sizeof *t->kidx);
    t->kz = 1;
  }
  if (t->kn == t->n)
    return;
  if (t->kind == CDR_ITAB_PTR) {
    /* probe_key() written out for integer keys, with the table's fields in
     * locals: growth past the entry cap rebuilds the whole index, and the
     * generic loop costs ~6 more instructions a value on 10,000-value lists. */
    uint32_t *kidx = t->kidx, *kprev = t->kprev, mask = t->mask, shift = t->shift;
    const uintptr_t *keys = t->keys;
    for (uint32_t e = t->kn + 1, n = t->n; e <= n; e++) {
      uintptr_t k = keys[e - 1];
      uint32_t s = hash_int(k) >> shift, x;
      while ((x = kidx[s]) != 0 && keys[x - 1] != k)
        s = (s + 1) & mask;
      kprev[e - 1] = x;
      kidx[s] = e;
    }
  } else {
    for (uint32_t e = t->kn + 1; e <= t->n; e++) {
      uint32_t s;
      t->kprev[e - 1] = probe_key(t, t->keys[e - 1], t->hash[e - 1], &s);
      t->kidx[s] = e;
    }
  }
  t->kn = t->n;
}

/* The value index is built lazily: puts leave it alone (encoders and
 * decoders look up by key only), and the first look-up by value indexes
 * the entries added since. */
static void vidx_sync(cdr_itab *t)
{
  if (t->vn == t->n)
    return;
  if (t->vn == 0)
    memset(t->vidx, 0, 2 * (size_t)t->cap * sizeof *t->vidx);
  for (uint32_t e = t->vn + 1; e <= t->n; e++) {
    uint32_t s;
    (void)probe_val(t, t->vals[e - 1], &s);
    t->vidx[s] = e;
  }
  t->vn = t->n;
}

/* Move the inline entries (all CDR_ITAB_INLINE of them) to a block: the one
 * kept by cdr_itab_clear(), else one from block_get().  Its indexes are
 * stale until first needed (a reused block's slots name the previous user's
 * entries). */
static int itab_spill(cdr_itab *t)
{
  if (!t->block) {
    cdr_itab_block *b = block_get(t->a, ITAB_MIN_CAP);
    if (!b)
      return CDR_E_NOMEM;
    itab_bind(t, b);
  }
  _Static_assert(sizeof t->ikeys == CDR_ITAB_INLINE * sizeof *t->keys, "inline keys");
  memcpy(t->keys, t->ikeys, sizeof t->ikeys); /* n == CDR_ITAB_INLINE: fixed-size copies */
  memcpy(t->vals, t->ivals, sizeof t->ivals);
  if (t->kind != CDR_ITAB_PTR)
    for (uint32_t i = 0; i < t->n; i++)
      t->hash[i] = hash_str(t->ikeys[i]);
  index_shape(t);
  return CDR_OK;
}

/* The block is full: move to one twice as large (its indexes stale until
 * first needed).  T is unchanged on failure. */
static int itab_grow(cdr_itab *t)
{
  cdr_itab_block *old = t->block;
  /* Blocks past the pool's entry cap are allocated for each message that
   * needs them: past it, growth quadruples (half the allocations and a
   * third of the rehashing of doubling). */
  uint32_t ncap = 2 * t->cap;
  if (ncap > CDR__POOL_CFG(table_max_entries) && (uint64_t)t->cap * 4 <= ITAB_MAX_CAP)
    ncap = 4 * t->cap;
  cdr_itab_block *b = block_get(t->a, ncap);
  if (!b)
    return CDR_E_NOMEM;
  const uintptr_t *ok = t->keys, *ov = t->vals;
  const uint32_t *oh = t->hash;
  itab_bind(t, b);
  memcpy(t->keys, ok, t->n * sizeof *ok);
  memcpy(t->vals, ov, t->n * sizeof *ov);
  if (t->kind != CDR_ITAB_PTR)
    memcpy(t->hash, oh, t->n * sizeof *oh);
  index_shape(t);
  block_put(old); /* pooled when within the caps: the next large table starts there */
  return CDR_OK;
}

static int itab_put_hashed(cdr_itab *t, uintptr_t k, uintptr_t v)
{
  uint32_t h = key_hash(t, k);
  for (;;) {
    key_sync(t);
    uint32_t sk, sv = UINT32_MAX;
    uint32_t ek = probe_key(t, k, h, &sk);
    if (ek) {
      if (t->vals[ek - 1] == v)
        return CDR_OK;
      /* K is there with another value.  The pair is present only if V is
       * too: as V's newest entry, or further down K's chain. */
      vidx_sync(t);
      uint32_t ev = probe_val(t, v, &sv);
      if (ev) {
        if (t->kind == CDR_ITAB_PTR ? t->keys[ev - 1] == k
                                    : t->hash[ev - 1] == h && str_eq(t->keys[ev - 1], k))
          return CDR_OK;
        for (uint32_t x = t->kprev[ek - 1]; x; x = t->kprev[x - 1])
          if (t->vals[x - 1] == v)
            return CDR_OK;
      }
    }
    if (CDR_UNLIKELY(t->n == t->cap)) {
      int rc = itab_grow(t);
      if (rc != CDR_OK)
        return rc;
      continue; /* slots moved */
    }
    uint32_t e = ++t->n;
    t->keys[e - 1] = k;
    t->vals[e - 1] = v;
    t->hash[e - 1] = h;
    t->kprev[e - 1] = ek;
    t->kidx[sk] = e;
    t->kn = e;
    (void)sv;
    return CDR_OK;
  }
}

/* A table still inline (mask == 0): add K -> V inline if there is room
 * (1), else move to a block (0: the caller adds it there); CDR_E_STATE
 * after release, CDR_E_NOMEM. */
static int inline_add_or_spill(cdr_itab *t, uintptr_t k, uintptr_t v)
{
  if (t->n < t->ilim) {
    t->ikeys[t->n] = k;
    t->ivals[t->n] = v;
    t->n++;
    return 1;
  }
  if (t->ilim == 0)
    return CDR_E_STATE;
  return itab_spill(t);
}

/* Everything but putting a pointer in the inline entries: out of line, so
 * that the fast path needs no stack frame. */
static __attribute__((noinline)) int itab_put_slow(cdr_itab *t, uintptr_t k, uintptr_t v)
{
  if (t->mask != 0)
    return itab_put_hashed(t, k, v);
  if (t->kind == CDR_ITAB_STR) {
    for (uint32_t i = 0; i < t->n; i++)
      if (t->ivals[i] == v && str_eq(t->ikeys[i], k)) /* values first: no strcmp */
        return CDR_OK;
  }
  int rc = inline_add_or_spill(t, k, v);
  return rc == 0 ? itab_put_hashed(t, k, v) : rc < 0 ? rc : CDR_OK;
}

int cdr_itab_put(cdr_itab *t, uintptr_t k, uintptr_t v)
{
  uint32_t n = t->n;
  if (CDR_LIKELY(t->mask == 0 && t->kind == CDR_ITAB_PTR)) {
    for (uint32_t i = 0; i < n; i++)
      if (t->ikeys[i] == k && t->ivals[i] == v)
        return CDR_OK;
    if (CDR_LIKELY(n < t->ilim)) {
      t->ikeys[n] = k;
      t->ivals[n] = v;
      t->n = n + 1;
      return CDR_OK;
    }
  }
  return itab_put_slow(t, k, v);
}

int cdr_itab__append_slow(cdr_itab *t, uintptr_t k, uintptr_t v)
{
  if (t->mask == 0) {
    int rc = inline_add_or_spill(t, k, v);
    if (rc != 0)
      return rc < 0 ? rc : CDR_OK;
  }
  if (t->n == t->cap) {
    int rc = itab_grow(t);
    if (rc != CDR_OK)
      return rc;
  }
  uint32_t e = t->n++;
  t->keys[e] = k;
  t->vals[e] = v;
  if (t->kind != CDR_ITAB_PTR)
    t->hash[e] = hash_str(k);
  return CDR_OK;
}

/* What the inline cdr_itab_get_or_add() leaves: string tables, a full
 * inline table (found there, or moved to a block), growth, a stale key
 * index, and a released table. */
int cdr_itab__get_or_add_slow(cdr_itab *t, uintptr_t k, uintptr_t v, uintptr_t *found)
{
  if (t->mask == 0 && t->kind == CDR_ITAB_PTR && t->n == t->ilim && t->ilim != 0) {
    if (cdr_itab_get(t, k, found))
      return 1; /* a hit does not move the table */
    int rc = itab_spill(t);
    if (rc != CDR_OK)
      return rc;
  }
  if (t->mask == 0) {
    if (cdr_itab_get(t, k, found))
      return 1;
    int rc = itab_put_slow(t, k, v);
    return rc == CDR_OK ? 0 : rc;
  }
  uint32_t h = key_hash(t, k), sk;
  key_sync(t);
  uint32_t ek = probe_key(t, k, h, &sk);
  if (ek) {
    if (found)
      *found = t->vals[ek - 1];
    return 1;
  }
  if (CDR_UNLIKELY(t->n == t->cap)) {
    int rc = itab_grow(t);
    if (rc != CDR_OK)
      return rc;
    key_sync(t);
    (void)probe_key(t, k, h, &sk); /* slots moved */
  }
  uint32_t e = ++t->n;
  t->keys[e - 1] = k;
  t->vals[e - 1] = v;
  t->hash[e - 1] = h;
  t->kprev[e - 1] = 0;
  t->kidx[sk] = e;
  t->kn = e;
  return 0;
}

static inline bool key_eq(const cdr_itab *t, uintptr_t a, uintptr_t b)
{
  return t->kind == CDR_ITAB_PTR ? a == b : str_eq(a, b);
}

/* Hashed look-up, and inline look-up of strings: out of line, so that the
 * inline look-up of pointers needs no stack frame.  Entries past the key
 * index (appended since it was last brought up to date) are scanned, newest
 * first, before it is probed: a const look-up does not build it. */
static __attribute__((noinline)) int itab_get_slow(const cdr_itab *t, uintptr_t k,
                                                   uintptr_t *val)
{
  uint32_t e, s;
  if (t->mask == 0) {
    for (uint32_t i = t->n; i-- > 0;)
      if (str_eq(t->ikeys[i], k)) {
        if (val)
          *val = t->ivals[i];
        return 1;
      }
    return 0;
  }
  for (e = t->n; e > t->kn; e--)
    if (key_eq(t, t->keys[e - 1], k)) {
      if (val)
        *val = t->vals[e - 1];
      return 1;
    }
  if (t->kn == 0)
    return 0;
  e = probe_key(t, k, key_hash(t, k), &s);
  if (!e)
    return 0;
  if (val)
    *val = t->vals[e - 1];
  return 1;
}

int cdr_itab_get(const cdr_itab *t, uintptr_t k, uintptr_t *val)
{
  if (CDR_LIKELY(t->mask == 0 && t->kind == CDR_ITAB_PTR)) {
    for (uint32_t i = t->n; i-- > 0;)
      if (t->ikeys[i] == k) {
        if (val)
          *val = t->ivals[i];
        return 1;
      }
    return 0;
  }
  return itab_get_slow(t, k, val);
}

int cdr_itab_find(cdr_itab *t, uintptr_t k, uintptr_t *val)
{
  if (t->mask != 0 && t->kn != t->n)
    key_sync(t);
  return cdr_itab_get(t, k, val);
}

int cdr_itab_find_value(cdr_itab *t, uintptr_t v, uintptr_t *key)
{
  uint32_t e;
  if (CDR_LIKELY(t->mask == 0)) {
    for (uint32_t i = t->n; i-- > 0;)
      if (t->ivals[i] == v) {
        if (key)
          *key = t->ikeys[i];
        return 1;
      }
    return 0;
  }
  uint32_t s;
  if (t->n == 0)
    return 0; /* a reused table: its value index may be stale */
  vidx_sync(t);
  e = probe_val(t, v, &s);
  if (!e)
    return 0;
  if (key)
    *key = t->keys[e - 1];
  return 1;
}

uint32_t cdr_itab_count(const cdr_itab *t)
{
  return t->n;
}

void cdr_itab_clear(cdr_itab *t)
{
  /* Back to inline entries; the block (if any) waits for the 9th, and its
   * indexes are rebuilt when first needed. */
  t->n = 0;
  t->mask = 0;
  t->kn = 0;
  t->vn = 0;
  t->kz = 0;
}

void cdr_itab_reuse(cdr_itab *t, int search)
{
  if (!t->block || t->ilim == 0) {
    cdr_itab_clear(t);
    return;
  }
  /* Empty the key index where that is short: the slots of a few entries
   * 1..kn (they hold nothing else: see key_sync), each its own unless a
   * newer entry of its key took it over (kprev names it then).  Else all
   * of it for a user that searches, and for one that appends it stays
   * stale until a search (a decoder's table may never have one). */
  uint32_t kn = t->mask != 0 && t->kn < t->cap / 32 ? t->kn : 0, dup = 0;
  uint32_t clean = t->mask != 0 && (t->kn != 0 || t->kz);
  for (uint32_t e = 0; e < kn; e++)
    dup |= t->kprev[e];
  if (dup != 0 || (t->kn != 0 && kn == 0)) {
    clean = 0;
  } else {
    for (uint32_t e = 1; e <= kn; e++) {
      uint32_t h = t->kind == CDR_ITAB_PTR ? hash_int(t->keys[e - 1]) : t->hash[e - 1];
      uint32_t s = h >> t->shift;
      while (t->kidx[s] != e)
        s = (s + 1) & t->mask;
      t->kidx[s] = 0;
    }
  }
  if (search && !clean) {
    memset(t->kidx, 0, 2 * (size_t)t->cap * sizeof *t->kidx);
    clean = 1;
  }
  t->n = 0;
  index_shape(t);
  t->kz = clean;
}

void cdr_itab_drop(cdr_itab *t)
{
  cdr_itab_block *b = t->block;
  t->block = NULL;
  cdr_itab_release(t);
  if (b)
    block_free(&tls_stats, b);
}

void cdr_itab_release(cdr_itab *t)
{
  if (t->ilim == 0)
    return;
  cdr_itab_block *b = t->block;
  t->n = 0;
  t->mask = 0;
  t->kn = 0;
  t->vn = 0;
  t->kz = 0;
  t->ilim = 0;
  t->block = NULL;
  if (b)
    block_put(b);
}
