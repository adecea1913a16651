/* pool.c - the per-thread cache (pool_impl.h), the shared pools of every
 * kind, their settings (cdr/pool.h), and the cache's own shelves: output
 * buffers and decode arenas.
 *
 * One pthread key, made once, whose destructor is the one thread-exit hook
 * of every shelf: it turns the cache OFF, lets each registered client hand
 * on its shelf, then hands on the buffers and arenas.
 */
#include "pool_impl.h"
#include <pthread.h>
#include <stdbool.h>

__thread cdr__tcache cdr__tc;

#define POOL_DEFAULTS                                      \
  {                                                        \
    .buffers = CDR_POOL_DEFAULT_BUFFERS,                   \
    .buffer_max_bytes = CDR_POOL_DEFAULT_BUFFER_MAX_BYTES, \
    .arenas = CDR_POOL_DEFAULT_ARENAS,                     \
    .arena_max_bytes = CDR_POOL_DEFAULT_ARENA_MAX_BYTES,   \
    .value_states = CDR_POOL_DEFAULT_VALUE_STATES,         \
    .tables = 1,                                           \
    .table_blocks = CDR_TABLES_DEFAULT_MAX_TABLES,         \
    .table_max_entries = CDR_TABLES_DEFAULT_MAX_ENTRIES,   \
    .shared = {                                            \
      [CDR_POOL_BUFFERS] = CDR_POOL_DEFAULT_SHARED_BUFFERS,           \
      [CDR_POOL_ARENAS] = CDR_POOL_DEFAULT_SHARED_ARENAS,             \
      [CDR_POOL_VALUE_STATES] = CDR_POOL_DEFAULT_SHARED_VALUE_STATES, \
      [CDR_POOL_TABLE_BLOCKS] = CDR_POOL_DEFAULT_SHARED_TABLE_BLOCKS, \
    },                                                     \
  }

cdr_pool_config cdr__pool_cfg = POOL_DEFAULTS;

/* ------------------------------------------------------------------ the cache */

#define MAX_CLIENTS 4
static const cdr__tcache_client *clients[MAX_CLIENTS];
static unsigned nclients;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;

/* ---- the shared pools */

/* A kind's pool: slots, one per 128-byte line (two lines: the adjacent-line
 * prefetcher pairs them); put is a compare-and-set into an empty slot, take
 * an exchange.  Each slot also tells the size of what it holds, so that a
 * take passes over what is too small without writing to its line (a hint:
 * what the exchange brings is checked, cdr__shared_ops.fits).  hi: slots
 * ever filled, a bound on the scan that only grows (written when a slot is
 * first used: read-mostly). */
typedef struct shared_slot {
  _Alignas(128) void *obj;
  size_t size;
} shared_slot;

static shared_slot shared[CDR_POOL_KINDS][CDR_POOL_MAX_SHARED];
static struct {
  _Alignas(128) unsigned hi[CDR_POOL_KINDS];
} shared_hi;
static const cdr__shared_ops *shared_ops[CDR_POOL_KINDS];

/* Counts of exited threads (and of OFF ones) */
static uint64_t retired[CDR_POOL_KINDS][CDR__SH_N];

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void shared_count(cdr__tcache *tc, cdr_pool_kind kind, int what)
{
  if (CDR_LIKELY(tc->state != CDR__TC_OFF))
    tc->shared_st[kind][what]++;
  else
    __atomic_add_fetch(&retired[kind][what], 1, __ATOMIC_RELAXED);
}

/* The thread's first slot of N: spread by the address of its cache, so
 * that threads exiting together start apart. */
static unsigned shared_home(const cdr__tcache *tc, unsigned n)
{
  uint32_t h = (uint32_t)(((uint64_t)(uintptr_t)tc * UINT64_C(0x9E3779B97F4A7C15)) >> 32);
  return (unsigned)(((uint64_t)h * n) >> 32);
}

static bool slot_fill(cdr_pool_kind kind, unsigned i, void *obj, size_t size)
{
  shared_slot *s = &shared[kind][i];
  void *expect = NULL;
  if (LOAD(s->obj) != NULL)
    return false;
  STORE(s->size, size); /* before: a take that sees OBJ sees its size */
  if (!__atomic_compare_exchange_n(&s->obj, &expect, obj, false, __ATOMIC_RELEASE,
                                   __ATOMIC_RELAXED))
    return false;
  STORE(s->size, size); /* again: a put that lost the slot may have written its own */
  unsigned hi = LOAD(shared_hi.hi[kind]);
  while (hi <= i && !__atomic_compare_exchange_n(&shared_hi.hi[kind], &hi, i + 1, true,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
  return true;
}

/* OBJ into an empty slot of the first N, from the thread's own on; no count. */
static bool shared_fill(const cdr__tcache *tc, cdr_pool_kind kind, unsigned n, void *obj,
                        size_t size)
{
  unsigned h = shared_home(tc, n);
  for (unsigned i = 0; i < n; i++) {
    unsigned k = h + i < n ? h + i : h + i - n;
    if (slot_fill(kind, k, obj, size))
      return true;
  }
  return false;
}

bool cdr__shared_put(cdr__tcache *tc, cdr_pool_kind kind, void *obj, size_t size)
{
  unsigned n = CDR__POOL_CFG(shared[kind]);
  if (n > CDR_POOL_MAX_SHARED)
    n = CDR_POOL_MAX_SHARED;
  if (n && shared_fill(tc, kind, n, obj, size)) {
    shared_count(tc, kind, CDR__SH_PUTS);
    return true;
  }
  shared_count(tc, kind, CDR__SH_FULL);
  return false;
}

/* Take the object in slot K of KIND if it fits; NULL otherwise (a misfit
 * goes back, or is freed when no slot is left).  Inline in both of
 * cdr__shared_take's scans: a task thread's first take of each kind pays
 * no second call. */
static inline __attribute__((always_inline)) void *
slot_take(cdr__tcache *tc, cdr_pool_kind kind, unsigned k, unsigned n, const cdr_allocator *a,
          size_t min)
{
  shared_slot *s = &shared[kind][k];
  size_t size = LOAD(s->size);
  void *obj = __atomic_exchange_n(&s->obj, NULL, __ATOMIC_ACQUIRE);
  if (!obj)
    return NULL;
  const cdr__shared_ops *ops = shared_ops[kind];
  if (ops->fits(obj, a, min)) {
    if (tc->state == CDR__TC_NEW)
      (void)cdr__tcache_enter(tc);
    shared_count(tc, kind, CDR__SH_HITS);
    return obj;
  }
  /* Not ours to use (another allocator, or too small after all): back it
   * goes. */
  if (!slot_fill(kind, k, obj, size) && !shared_fill(tc, kind, n, obj, size))
    ops->destroy(obj);
  return NULL;
}

void *cdr__shared_take(cdr__tcache *tc, cdr_pool_kind kind, const cdr_allocator *a, size_t min,
                       bool largest)
{
  unsigned n = LOAD(shared_hi.hi[kind]), bound = CDR__POOL_CFG(shared[kind]);
  if (bound > CDR_POOL_MAX_SHARED)
    bound = CDR_POOL_MAX_SHARED;
  if (n > bound)
    n = bound;
  if (CDR_LIKELY(n == 0))
    return NULL;
  /* From the slot this thread's puts start at (its home among BOUND, as in
   * cdr__shared_put): a thread that takes what a thread with the same home
   * left (a task thread after its predecessor, whose cache lay at the
   * same address) finds it at the first probe instead of reading the
   * lines of the empty slots before it. */
  unsigned h = shared_home(tc, bound);
  if (h >= n)
    h = shared_home(tc, n);
  void *obj;
  if (largest) { /* read every slot's size first (no write), then take that one */
    unsigned best = n;
    size_t best_size = 0;
    for (unsigned k = 0; k < n; k++) {
      size_t size = LOAD(shared[kind][k].size);
      if (LOAD(shared[kind][k].obj) != NULL && size >= min && (best == n || size > best_size)) {
        best = k;
        best_size = size;
      }
    }
    if (best < n && (obj = slot_take(tc, kind, best, n, a, min)) != NULL)
      return obj;
  }
  for (unsigned i = 0; i < n; i++) {
    unsigned k = h + i < n ? h + i : h + i - n;
    shared_slot *s = &shared[kind][k];
    if (LOAD(s->obj) != NULL && LOAD(s->size) >= min
        && (obj = slot_take(tc, kind, k, n, a, min)) != NULL)
      return obj;
  }
  return NULL;
}

void cdr__shared_flush(cdr_pool_kind kind)
{
  for (unsigned i = 0, n = LOAD(shared_hi.hi[kind]); i < n; i++) {
    void *obj = __atomic_exchange_n(&shared[kind][i].obj, NULL, __ATOMIC_ACQUIRE);
    if (obj)
      shared_ops[kind]->destroy(obj);
  }
}

void cdr_pool_flush_shared(void)
{
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    if (shared_ops[k])
      cdr__shared_flush((cdr_pool_kind)k);
}

static void stats_of(const cdr__tcache *tc, cdr_pool_stats *out)
{
  for (int k = 0; k < CDR_POOL_KINDS; k++) {
    out->shared_hits[k] += tc->shared_st[k][CDR__SH_HITS];
    out->shared_puts[k] += tc->shared_st[k][CDR__SH_PUTS];
    out->shared_full[k] += tc->shared_st[k][CDR__SH_FULL];
    unsigned n = 0;
    for (unsigned i = 0, hi = LOAD(shared_hi.hi[k]); i < hi; i++)
      n += LOAD(shared[k][i].obj) != NULL;
    out->shared_pooled[k] = n;
  }
}

void cdr_pool_get_thread_stats(cdr_pool_stats *out)
{
  memset(out, 0, sizeof *out);
  stats_of(&cdr__tc, out);
}

void cdr_pool_get_stats(cdr_pool_stats *out)
{
  memset(out, 0, sizeof *out);
  for (int k = 0; k < CDR_POOL_KINDS; k++) {
    out->shared_hits[k] = LOAD(retired[k][CDR__SH_HITS]);
    out->shared_puts[k] = LOAD(retired[k][CDR__SH_PUTS]);
    out->shared_full[k] = LOAD(retired[k][CDR__SH_FULL]);
  }
  stats_of(&cdr__tc, out);
}

/* ---- the cache */

void cdr__tcache_add_client(const cdr__tcache_client *c)
{
  unsigned n = __atomic_fetch_add(&nclients, 1, __ATOMIC_RELAXED);
  if (n < MAX_CLIENTS) {
    if (c->shared)
      shared_ops[c->kind] = c->shared;
    __atomic_store_n(&clients[n], c, __ATOMIC_RELEASE);
  }
}

static unsigned clients_n(void)
{
  unsigned n = __atomic_load_n(&nclients, __ATOMIC_ACQUIRE);
  return n < MAX_CLIENTS ? n : MAX_CLIENTS;
}

/* A shared arena: kept only while of the global allocator, which made its
 * struct too. */
static void arena_destroy(void *obj)
{
  cdr_arena *a = obj;
  const cdr_allocator *al = a->alloc;
  cdr_arena_free(a);
  cdr__free(al, a);
}

static void own_flush(cdr__tcache *tc)
{
  for (unsigned k = 0; k < tc->nbufs; k++)
    cdr__free(NULL, tc->bufs[k]);
  tc->nbufs = 0;
  for (unsigned k = 0; k < tc->narenas; k++) {
    cdr_arena_free(tc->arenas[k]);
    cdr__free(NULL, tc->arenas[k]);
  }
  tc->narenas = 0;
}

static void buf_give(cdr__tcache *tc, void *buf, size_t cap);

/* Thread exit: the buffers and arenas to the shared pools. */
static void own_exit(cdr__tcache *tc)
{
  for (unsigned k = 0; k < tc->nbufs; k++)
    buf_give(tc, tc->bufs[k], tc->caps[k]);
  tc->nbufs = 0;
  for (unsigned k = 0; k < tc->narenas; k++)
    if (!cdr__shared_put(tc, CDR_POOL_ARENAS, tc->arenas[k], 0))
      arena_destroy(tc->arenas[k]);
  tc->narenas = 0;
}

/* The key's destructor.  TLS is still valid while key destructors run.
 * OFF first: what the clients' exit functions, or destructors of other keys
 * that run later, release is not kept any more but shared; the thread's
 * counts join the totals of exited threads, and so do those counted from
 * now on. */
static void tcache_exit(void *arg)
{
  cdr__tcache *tc = arg;
  tc->state = CDR__TC_OFF;
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    for (int w = 0; w < CDR__SH_N; w++)
      if (tc->shared_st[k][w]) {
        __atomic_add_fetch(&retired[k][w], tc->shared_st[k][w], __ATOMIC_RELAXED);
        tc->shared_st[k][w] = 0;
      }
  for (unsigned k = 0, n = clients_n(); k < n; k++)
    clients[k]->exit(tc);
  own_exit(tc);
}

static void key_create(void)
{
  key_ok = pthread_key_create(&key, tcache_exit) == 0;
}

__attribute__((noinline)) int cdr__tcache_enter(cdr__tcache *tc)
{
  pthread_once(&key_once, key_create);
  if (!key_ok || pthread_setspecific(key, tc) != 0) {
    tc->state = CDR__TC_OFF;
    return 0;
  }
  tc->state = CDR__TC_LIVE;
  for (unsigned k = 0, n = clients_n(); k < n; k++)
    if (clients[k]->enter)
      clients[k]->enter(tc);
  return 1;
}

void cdr_pool_flush(void)
{
  cdr__tcache *tc = &cdr__tc;
  own_flush(tc);
  for (unsigned k = 0, n = clients_n(); k < n; k++)
    clients[k]->flush(tc);
}

/* ------------------------------------------------------------------ settings */

void cdr_pool_config_default(cdr_pool_config *c)
{
  *c = (cdr_pool_config)POOL_DEFAULTS;
}

#define CFG_STORE(field, v) __atomic_store_n(&cdr__pool_cfg.field, (v), __ATOMIC_RELAXED)

static void tables_store(int enabled, unsigned max_tables, unsigned max_entries)
{
  CFG_STORE(table_blocks, max_tables);
  CFG_STORE(table_max_entries, max_entries);
  CFG_STORE(tables, enabled ? 1 : 0);
}

int cdr_pool_set_config(const cdr_pool_config *c)
{
  if (!c || c->buffers > CDR_POOL_MAX_BUFFERS || c->arenas > CDR_POOL_MAX_ARENAS
      || c->value_states > CDR_POOL_MAX_VALUE_STATES || c->table_blocks > CDR_TABLES_POOL_MAX)
    return CDR_E_INVALID;
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    if (c->shared[k] > CDR_POOL_MAX_SHARED)
      return CDR_E_INVALID;
  CFG_STORE(buffers, c->buffers);
  CFG_STORE(buffer_max_bytes, c->buffer_max_bytes);
  CFG_STORE(arenas, c->arenas);
  CFG_STORE(arena_max_bytes, c->arena_max_bytes);
  CFG_STORE(value_states, c->value_states);
  tables_store(c->tables, c->table_blocks, c->table_max_entries);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    CFG_STORE(shared[k], c->shared[k]);
  return CDR_OK;
}

void cdr_pool_get_config(cdr_pool_config *c)
{
  c->buffers = CDR__POOL_CFG(buffers);
  c->buffer_max_bytes = CDR__POOL_CFG(buffer_max_bytes);
  c->arenas = CDR__POOL_CFG(arenas);
  c->arena_max_bytes = CDR__POOL_CFG(arena_max_bytes);
  c->value_states = CDR__POOL_CFG(value_states);
  cdr_tables_get_pool(&c->tables, &c->table_blocks, &c->table_max_entries);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    c->shared[k] = CDR__POOL_CFG(shared[k]);
}

int cdr_tables_set_pool(int enabled, unsigned max_tables, unsigned max_entries)
{
  if (max_tables > CDR_TABLES_POOL_MAX)
    return CDR_E_INVALID;
  tables_store(enabled, max_tables, max_entries);
  return CDR_OK;
}

void cdr_tables_get_pool(int *enabled, unsigned *max_tables, unsigned *max_entries)
{
  if (enabled)
    *enabled = CDR__POOL_CFG(tables);
  if (max_tables)
    *max_tables = CDR__POOL_CFG(table_blocks);
  if (max_entries)
    *max_entries = CDR__POOL_CFG(table_max_entries);
}

/* ------------------------------------------------------------------ buffers */

/* A buffer in the shared pool says in its first octets how large it is and
 * whose it is (buffers are at least CDR_BUF_MIN octets). */
typedef struct shared_buf {
  size_t cap;
  const cdr_allocator *a;
} shared_buf;
_Static_assert(sizeof(shared_buf) <= CDR_BUF_MIN, "a buffer holds its header");

static bool buf_fits(const void *obj, const cdr_allocator *a, size_t min)
{
  const shared_buf *h = obj;
  return h->a == a && h->cap >= min;
}

static void buf_destroy(void *obj)
{
  cdr__free(((shared_buf *)obj)->a, obj);
}

static bool arena_fits(const void *obj, const cdr_allocator *a, size_t min)
{
  (void)min;
  return ((const cdr_arena *)obj)->alloc == a;
}

static const cdr__shared_ops buf_ops = { buf_fits, buf_destroy };
static const cdr__shared_ops arena_ops = { arena_fits, arena_destroy };

static __attribute__((constructor)) void own_register(void)
{
  shared_ops[CDR_POOL_BUFFERS] = &buf_ops;
  shared_ops[CDR_POOL_ARENAS] = &arena_ops;
}

/* BUF (CAP octets, of the global allocator) to the shared pool, or freed. */
static void buf_give(cdr__tcache *tc, void *buf, size_t cap)
{
  shared_buf *h = buf;
  h->cap = cap;
  h->a = cdr_mem_global();
  if (!cdr__shared_put(tc, CDR_POOL_BUFFERS, buf, cap))
    cdr__free(NULL, buf);
}

void *cdr__buf_get(size_t min, size_t *cap)
{
  cdr__tcache *tc = &cdr__tc; /* a cache never entered has no buffers */
  for (unsigned k = tc->nbufs; k-- > 0;) {
    if (tc->caps[k] >= min) {
      void *b = tc->bufs[k];
      *cap = tc->caps[k];
      tc->nbufs--;
      tc->bufs[k] = tc->bufs[tc->nbufs];
      tc->caps[k] = tc->caps[tc->nbufs];
      return b;
    }
  }
  shared_buf *h = cdr__shared_take(tc, CDR_POOL_BUFFERS, cdr_mem_global(), min, false);
  if (h) {
    *cap = h->cap;
    return h;
  }
  size_t n = min < CDR_BUF_MIN ? CDR_BUF_MIN : min;
  void *b = cdr__malloc(NULL, n);
  if (b)
    *cap = n;
  return b;
}

void cdr__buf_put(void *buf, size_t cap)
{
  if (!buf)
    return;
  cdr__tcache *tc = &cdr__tc;
  if (cap > CDR__POOL_CFG(buffer_max_bytes)) {
    cdr__free(NULL, buf);
    return;
  }
  if (!cdr__tcache_live(tc)) {
    buf_give(tc, buf, cap);
    return;
  }
  if (tc->nbufs >= CDR__POOL_CFG(buffers)) {
    /* Keep the larger buffers: they save more reallocations. */
    unsigned smallest = 0;
    for (unsigned k = 1; k < tc->nbufs; k++)
      if (tc->caps[k] < tc->caps[smallest])
        smallest = k;
    if (!tc->nbufs || tc->caps[smallest] >= cap) {
      cdr__free(NULL, buf);
      return;
    }
    cdr__free(NULL, tc->bufs[smallest]);
    tc->bufs[smallest] = buf;
    tc->caps[smallest] = cap;
    return;
  }
  tc->bufs[tc->nbufs] = buf;
  tc->caps[tc->nbufs] = cap;
  tc->nbufs++;
}

/* ------------------------------------------------------------------ arenas */

cdr_arena *cdr_arena_get(void)
{
  cdr__tcache *tc = &cdr__tc;
  if (tc->narenas)
    return tc->arenas[--tc->narenas];
  cdr_arena *a = cdr__shared_take(tc, CDR_POOL_ARENAS, cdr_mem_global(), 0, false);
  if (a)
    return a;
  a = cdr__malloc(NULL, sizeof *a);
  if (a)
    cdr_arena_init(a, NULL);
  return a;
}

void cdr_arena_put(cdr_arena *a)
{
  if (!a)
    return;
  cdr__tcache *tc = &cdr__tc;
  a->max = SIZE_MAX; /* as cdr_arena_init(): the next user sets its own */
  cdr_arena_reset(a);
  if (a->alloc == cdr_mem_global() && a->block_size <= CDR__POOL_CFG(arena_max_bytes)) {
    if (!cdr__tcache_live(tc)) {
      if (cdr__shared_put(tc, CDR_POOL_ARENAS, a, 0))
        return;
    } else if (tc->narenas < CDR__POOL_CFG(arenas)) {
      tc->arenas[tc->narenas++] = a;
      return;
    }
  }
  cdr_arena_free(a);
  cdr__free(NULL, a);
}
