/* pool.h - per-thread pools of output buffers and decode arenas (internal). */
#ifndef CDR_POOL_H
#define CDR_POOL_H

#include "internal.h"

/* A buffer of at least MIN octets from the calling thread's pool, or a new
 * one from the global allocator; *CAP gets its size.  NULL when allocation
 * fails. */
CDR_HIDDEN void *cdr__buf_get(size_t min, size_t *cap);
/* Give BUF (CAP octets, from cdr__buf_get or the global allocator) back. */
CDR_HIDDEN void cdr__buf_put(void *buf, size_t cap);

/* Smallest buffer the pool hands out, and the largest it keeps. */
#define CDR_BUF_MIN 8192
#define CDR_BUF_POOL_MAX_CAP (4u << 20)
#define CDR_BUF_POOL_SLOTS 4
#define CDR_ARENA_POOL_SLOTS 4
#define CDR_ARENA_POOL_MAX_BYTES (1u << 20)

#endif
