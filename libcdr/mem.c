/* mem.c - the allocator hook and the counting allocator. */
#include "internal.h"
#include <stdlib.h>

static void *libc_malloc(size_t n, void *ud) { (void)ud; return malloc(n); }
static void *libc_realloc(void *p, size_t n, void *ud) { (void)ud; return realloc(p, n); }
static void libc_free(void *p, void *ud) { (void)ud; free(p); }

static const cdr_allocator libc_allocator = { libc_malloc, libc_realloc, libc_free, NULL };
static const cdr_allocator *global_allocator = &libc_allocator;

const cdr_allocator *cdr_mem_global(void) { return global_allocator; }

void cdr_mem_set_global(const cdr_allocator *a)
{
  global_allocator = a ? a : &libc_allocator;
}

static int counter_should_fail(cdr_mem_counter *c)
{
  uint64_t n = __atomic_add_fetch(&c->attempts, 1, __ATOMIC_RELAXED);
  return c->fail_at != 0 && n == c->fail_at;
}

static void *counter_malloc(size_t n, void *ud)
{
  cdr_mem_counter *c = ud;
  if (counter_should_fail(c))
    return NULL;
  void *p = c->base->malloc(n, c->base->ud);
  if (p) {
    __atomic_add_fetch(&c->mallocs, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->bytes, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->live, 1, __ATOMIC_RELAXED);
  }
  return p;
}

static void *counter_realloc(void *p, size_t n, void *ud)
{
  cdr_mem_counter *c = ud;
  if (counter_should_fail(c))
    return NULL;
  void *q = c->base->realloc(p, n, c->base->ud);
  if (q) {
    __atomic_add_fetch(&c->mallocs, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->bytes, n, __ATOMIC_RELAXED);
    if (!p)
      __atomic_add_fetch(&c->live, 1, __ATOMIC_RELAXED);
  }
  return q;
}

static void counter_free(void *p, void *ud)
{
  cdr_mem_counter *c = ud;
  if (!p)
    return;
  __atomic_add_fetch(&c->frees, 1, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&c->live, 1, __ATOMIC_RELAXED);
  c->base->free(p, c->base->ud);
}

void cdr_mem_counter_init(cdr_mem_counter *c, const cdr_allocator *base)
{
  memset(c, 0, sizeof *c);
  c->base = base ? base : &libc_allocator;
  c->alloc.malloc = counter_malloc;
  c->alloc.realloc = counter_realloc;
  c->alloc.free = counter_free;
  c->alloc.ud = c;
}
