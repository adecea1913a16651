/* pool.c - the per-thread cache (pool_impl.h), its settings (cdr/pool.h),
 * and its own shelves: output buffers and decode arenas.
 *
 * One pthread key, made once, whose destructor is the one thread-exit hook
 * of every shelf: it turns the cache OFF, lets each registered client free
 * or hand on its shelf, then frees the buffers and arenas.
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
  }

cdr_pool_config cdr__pool_cfg = POOL_DEFAULTS;

/* ------------------------------------------------------------------ the cache */

#define MAX_CLIENTS 4
static const cdr__tcache_client *clients[MAX_CLIENTS];
static unsigned nclients;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;

void cdr__tcache_add_client(const cdr__tcache_client *c)
{
  unsigned n = __atomic_fetch_add(&nclients, 1, __ATOMIC_RELAXED);
  if (n < MAX_CLIENTS)
    __atomic_store_n(&clients[n], c, __ATOMIC_RELEASE);
}

static unsigned clients_n(void)
{
  unsigned n = __atomic_load_n(&nclients, __ATOMIC_ACQUIRE);
  return n < MAX_CLIENTS ? n : MAX_CLIENTS;
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

/* The key's destructor.  TLS is still valid while key destructors run.
 * OFF first: what the clients' exit functions, or destructors of other keys
 * that run later, release is not kept any more. */
static void tcache_exit(void *arg)
{
  cdr__tcache *tc = arg;
  tc->state = CDR__TC_OFF;
  for (unsigned k = 0, n = clients_n(); k < n; k++)
    clients[k]->exit(tc);
  own_flush(tc);
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
  CFG_STORE(buffers, c->buffers);
  CFG_STORE(buffer_max_bytes, c->buffer_max_bytes);
  CFG_STORE(arenas, c->arenas);
  CFG_STORE(arena_max_bytes, c->arena_max_bytes);
  CFG_STORE(value_states, c->value_states);
  tables_store(c->tables, c->table_blocks, c->table_max_entries);
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
  if (cap > CDR__POOL_CFG(buffer_max_bytes) || !cdr__tcache_live(tc)) {
    cdr__free(NULL, buf);
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
  cdr_arena *a = cdr__malloc(NULL, sizeof *a);
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
  if (tc->narenas >= CDR__POOL_CFG(arenas) || a->alloc != cdr_mem_global()
      || a->block_size > CDR__POOL_CFG(arena_max_bytes) || !cdr__tcache_live(tc)) {
    cdr_arena_free(a);
    cdr__free(NULL, a);
    return;
  }
  tc->arenas[tc->narenas++] = a;
}
