/* pool.c - per-thread pools of output buffers and decode arenas.
 *
 * Each thread keeps a few buffers and arenas in thread-local storage, so
 * that taking and returning one needs no lock.  Objects may be returned on
 * another thread than the one that took them: they simply join that
 * thread's pool.  At thread exit a pthread key destructor frees what the
 * thread kept.  Buffers larger than CDR_BUF_POOL_MAX_CAP and arenas holding
 * more than CDR_ARENA_POOL_MAX_BYTES are freed rather than kept, so one
 * huge message does not pin memory.
 */
#include "pool.h"
#include "ext.h"
#include <pthread.h>
#include <cdr/arena.h>
#include <cdr/tables.h>

typedef struct thread_pool {
  void *bufs[CDR_BUF_POOL_SLOTS];
  size_t caps[CDR_BUF_POOL_SLOTS];
  unsigned nbufs;
  cdr_arena *arenas[CDR_ARENA_POOL_SLOTS];
  unsigned narenas;
} thread_pool;

static __thread thread_pool tls_pool;
static __thread int tls_registered;
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_flush(thread_pool *tp)
{
  for (unsigned k = 0; k < tp->nbufs; k++)
    cdr__free(NULL, tp->bufs[k]);
  tp->nbufs = 0;
  for (unsigned k = 0; k < tp->narenas; k++) {
    cdr_arena_free(tp->arenas[k]);
    cdr__free(NULL, tp->arenas[k]);
  }
  tp->narenas = 0;
}

static void pool_thread_exit(void *arg)
{
  pool_flush(arg);
}

static void pool_key_create(void)
{
  (void)pthread_key_create(&pool_key, pool_thread_exit);
}

static thread_pool *pool_self(void)
{
  thread_pool *tp = &tls_pool;
  if (__builtin_expect(!tls_registered, 0)) {
    pthread_once(&pool_once, pool_key_create);
    (void)pthread_setspecific(pool_key, tp);
    tls_registered = 1;
  }
  return tp;
}

void *cdr__buf_get(size_t min, size_t *cap)
{
  thread_pool *tp = pool_self();
  for (unsigned k = tp->nbufs; k-- > 0;) {
    if (tp->caps[k] >= min) {
      void *b = tp->bufs[k];
      *cap = tp->caps[k];
      tp->nbufs--;
      tp->bufs[k] = tp->bufs[tp->nbufs];
      tp->caps[k] = tp->caps[tp->nbufs];
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
  thread_pool *tp = pool_self();
  if (cap > CDR_BUF_POOL_MAX_CAP) {
    cdr__free(NULL, buf);
    return;
  }
  if (tp->nbufs == CDR_BUF_POOL_SLOTS) {
    /* Keep the larger buffers: they save more reallocations. */
    unsigned smallest = 0;
    for (unsigned k = 1; k < tp->nbufs; k++)
      if (tp->caps[k] < tp->caps[smallest])
        smallest = k;
    if (tp->caps[smallest] >= cap) {
      cdr__free(NULL, buf);
      return;
    }
    cdr__free(NULL, tp->bufs[smallest]);
    tp->bufs[smallest] = buf;
    tp->caps[smallest] = cap;
    return;
  }
  tp->bufs[tp->nbufs] = buf;
  tp->caps[tp->nbufs] = cap;
  tp->nbufs++;
}

cdr_arena *cdr_arena_get(void)
{
  thread_pool *tp = pool_self();
  if (tp->narenas)
    return tp->arenas[--tp->narenas];
  cdr_arena *a = cdr__malloc(NULL, sizeof *a);
  if (a)
    cdr_arena_init(a, NULL);
  return a;
}

void cdr_arena_put(cdr_arena *a)
{
  if (!a)
    return;
  thread_pool *tp = pool_self();
  cdr_arena_reset(a);
  if (tp->narenas == CDR_ARENA_POOL_SLOTS || a->alloc != cdr_mem_global()
      || a->block_size > CDR_ARENA_POOL_MAX_BYTES) {
    cdr_arena_free(a);
    cdr__free(NULL, a);
    return;
  }
  tp->arenas[tp->narenas++] = a;
}

void cdr_pool_flush(void)
{
  pool_flush(pool_self());
  cdr__value_pool_flush();
  cdr_tables_flush_thread();
}
