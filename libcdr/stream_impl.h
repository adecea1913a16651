/* stream_impl.h - what the output and input streams share (stream.c), and
 * the hook by which an upper module hangs per-stream state on a stream.
 * Internal. */
#ifndef CDR_STREAM_IMPL_H
#define CDR_STREAM_IMPL_H

#include "internal.h"
#include <cdr/stream.h>
#include <cdr/codeset.h>

/* Per-stream state hung on cdr_out.ext / cdr_in.ext by the module that
 * creates it (value graphs).  The stream calls reset when it is reset
 * (empty the state, keep its memory) and release when it is closed (give
 * the memory back); the stream knows nothing else about it. */
typedef struct cdr__ext {
  void (*reset)(void *self);
  void (*release)(void *self);
} cdr__ext;

/* Whether the N octets at P hold a NUL (in.c: AVX2 where the CPU has it,
 * else memchr()); both streams' string checks use it. */
CDR_HIDDEN int cdr__has_nul(const char *p, size_t n);

/* CDR_OK if O's byte order, GIOP version and code sets are ones the streams
 * support, else CDR_E_INVALID. */
CDR_HIDDEN int cdr__opts_check(const cdr_opts *o);
/* The default options (cdr_opts_default()).  Here, not in stream.c, so
 * that the compiler knows the values where a stream copies them. */
static const cdr_opts cdr__opts_defaults = {
  .byte_order = CDR_HOST_ORDER,
  .giop_major = 1,
  .giop_minor = 2,
  .tcs_c = CDR_CS_ISO8859_1,
  .ncs_c = CDR_CS_ISO8859_1,
  .tcs_w = CDR_CS_UTF16,
  .max_string = 64u << 20,
  .max_seq = 16u << 20,
  .max_depth = 64,
  .max_size = (size_t)1 << 30,
  .flags = 0,
  .alloc = NULL,
};
/* Copy N elements of ESIZE octets from SRC to DST, each byte-swapped when
 * ESIZE is 2, 4 or 8; any other ESIZE copies N * ESIZE octets unchanged.
 * Inline: the output stream's bulk writer copies with it in place. */
static inline void cdr__swap_copy(uint8_t *dst, const uint8_t *src, size_t n, size_t esize)
{
#define CDR__SWAP_EACH(bits)                        \
  for (size_t k = 0; k < n; k++) {                  \
    uint##bits##_t u;                               \
    memcpy(&u, src + (bits / 8) * k, bits / 8);     \
    u = __builtin_bswap##bits(u);                   \
    memcpy(dst + (bits / 8) * k, &u, bits / 8);     \
  }
  switch (esize) {
  case 2:
    CDR__SWAP_EACH(16)
    break;
  case 4:
    CDR__SWAP_EACH(32)
    break;
  case 8:
    CDR__SWAP_EACH(64)
    break;
  default:
    memcpy(dst, src, n * esize);
  }
#undef CDR__SWAP_EACH
}

#endif
