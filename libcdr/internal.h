/* internal.h - helpers shared by libcdr's modules; not installed. */
#ifndef CDR_INTERNAL_H
#define CDR_INTERNAL_H

#include "config.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cdr/mem.h>
#include <cdr/error.h>

#define CDR_HIDDEN __attribute__((visibility("hidden")))

static inline const cdr_allocator *cdr__alloc_or_global(const cdr_allocator *a)
{
  return a ? a : cdr_mem_global();
}
static inline void *cdr__malloc(const cdr_allocator *a, size_t n)
{
  a = cdr__alloc_or_global(a);
  return a->malloc(n, a->ud);
}
static inline void *cdr__realloc(const cdr_allocator *a, void *p, size_t n)
{
  a = cdr__alloc_or_global(a);
  return a->realloc(p, n, a->ud);
}
static inline void cdr__free(const cdr_allocator *a, void *p)
{
  if (p) {
    a = cdr__alloc_or_global(a);
    a->free(p, a->ud);
  }
}

#endif
