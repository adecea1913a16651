/* cdr/out.h - the CDR output stream.
 *
 * Writes the CDR transfer syntax (OMG CORBA 3.x, GIOP chapter, section "CDR
 * Transfer Syntax": primitive types and their alignment, strings, wide
 * strings, sequences, arrays, encapsulations).  Every primitive is aligned
 * on its own size (long double on 8) relative to the stream's origin
 * (position 0 unless cdr_out_set_origin() moved it, or the first octet of
 * the innermost open encapsulation).  Padding octets are written as zero.
 * The stream writes in the byte order chosen in its options (the host's by
 * default) and never swaps in that case.
 *
 * Errors are sticky: the first failure (out of memory, size limit, invalid
 * argument, code-set error) is recorded with its code, its reason and a
 * message saying what was wrong; later writes do nothing, and the caller
 * checks cdr_out_status() once at the end.
 *
 * Memory: the stream owns its buffer (taken from a per-thread buffer pool,
 * grown on demand up to opts.max_size) unless cdr_out_init_buffer() gave it
 * a caller's fixed buffer.  cdr_out_close() returns it to the pool.
 *
 * Gathering: a stream for which cdr_out_set_gather() was called may take
 * large octet runs by reference instead of copying them (cdr_put_raw_ref(),
 * cdr_put_seq_ref(), cdr_put_string_ref(), cdr_put_string_view()): the
 * stream is then its own buffer with up to CDR_OUT_REFS caller segments
 * interleaved, which cdr_out_iov() lists for a gather write (writev).
 * Positions (alignment, cdr_out_total(), GIOP message_size) count the
 * referenced octets; the buffer (cdr_out_data(), cdr_out_size(),
 * cdr_out_patch_ulong() positions) does not hold them.
 *
 * A stream is not thread-safe; it may be closed on another thread than the
 * one that opened it.
 */
#ifndef CDR_OUT_H
#define CDR_OUT_H

#include <stdbool.h>
#include <string.h>
#include <cdr/stream.h>
#include <cdr/codeset.h>
#include <cdr/numeric.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most by-reference segments one stream holds; later by-reference writes
 * copy. */
#define CDR_OUT_REFS 8
/* Octet runs shorter than this are copied even by the *_ref writers (an
 * iovec costs the kernel more than copying a few hundred octets). */
#define CDR_OUT_REF_MIN 512
/* iovecs cdr_out_iov() may need: the buffer's pieces around the segments. */
#define CDR_OUT_IOV_MAX (2 * CDR_OUT_REFS + 1)

struct iovec;

/* The fields are private.  The struct is visible so that the primitive
 * writers below are inline and a stream can live on the stack. */
typedef struct cdr_out {
  uint8_t *buf;          /* start of the buffer */
  size_t pos;            /* next octet to write */
  size_t lim;            /* octets writable without growing; == pos after an error */
  size_t cap;            /* octets allocated */
  size_t origin;         /* alignment origin */
  uint8_t swap;          /* 1 when opts.byte_order is not the host's */
  uint8_t owned;         /* 1 when buf is ours */
  uint8_t closed;
  uint8_t depth;         /* open encapsulations */
  int status;            /* sticky error, CDR_OK while none */
  int reason;            /* while status is set: its precise code */
  const char *err_msg;   /* while status is set: static string describing it */
  cdr_opts opts;
  struct { size_t len_pos, origin; uint8_t order, swap; } encap[CDR_ENCAP_MAX];
  void *ext;             /* value-graph state (indirection tables), created on demand */
  uint8_t gather;        /* cdr_out_set_gather(): by-reference writes allowed */
  uint8_t nref;          /* segments in ref[] */
  size_t ref_total;      /* octets in them */
  struct { size_t at; const uint8_t *p; size_t n; } ref[CDR_OUT_REFS];
                         /* ref[k]: n octets at p that follow the first `at` of buf */
} cdr_out;

/* Initialise O with options OPTS (NULL: cdr_opts_default()).  Allocates
 * nothing until the first write.  Errors: CDR_E_INVALID (an option out of
 * range: byte order not 0/1, GIOP version not 1.0-1.2, an unsupported code
 * set), also recorded as the stream's status. */
CDR_API int cdr_out_init(cdr_out *o, const cdr_opts *opts) CDR_NONNULL(1);

/* Like cdr_out_init(), writing into the caller's BUF of CAP octets, which
 * the stream never frees or grows: a write past CAP fails with CDR_E_LIMIT. */
CDR_API int cdr_out_init_buffer(cdr_out *o, const cdr_opts *opts, void *buf, size_t cap)
  CDR_NONNULL(1);

/* Empty O for reuse (position and origin 0, no open encapsulation, status
 * cleared, indirection tables emptied), keeping its buffer. */
CDR_API void cdr_out_reset(cdr_out *o) CDR_NONNULL(1);

/* Release O's buffer and tables to the per-thread pools.  Idempotent; after
 * it every write fails with CDR_E_STATE (until cdr_out_init()). */
CDR_API void cdr_out_close(cdr_out *o) CDR_NONNULL(1);

/* Hand the buffer to the caller: *DATA (free it with the stream's allocator,
 * or give it to cdr_out_buffer_free()) and its length; O is closed.  Errors:
 * the stream's status, CDR_E_STATE (closed or encapsulation open). */
CDR_API int cdr_out_detach(cdr_out *o, uint8_t **data, size_t *len) CDR_NONNULL(1, 2, 3);
/* Free a buffer obtained by cdr_out_detach() from a stream with options OPTS
 * (NULL: default allocator). */
CDR_API void cdr_out_buffer_free(const cdr_opts *opts, uint8_t *data);

/* The first error (CDR_OK if none). */
static inline int cdr_out_status(const cdr_out *o) { return o->status; }
/* Its precise code: the row of CDR_STATUS_MAP (cdr/error.h) that says
 * which CORBA exception and minor code it maps to.  A reason row
 * (CDR_E_NO_WCHAR, CDR_E_WCHAR_GIOP10) where one applies, else the status
 * itself (CDR_OK if none). */
static inline int cdr_out_error_reason(const cdr_out *o) { return o->status != CDR_OK ? o->reason : CDR_OK; }
/* What was wrong, e.g. "output larger than opts.max_size" (static; ""
 * if none).  After cdr_out_close(): "stream closed". */
static inline const char *cdr_out_error_message(const cdr_out *o)
{
  return o->status != CDR_OK ? o->err_msg : "";
}
/* The octets written so far into the stream's buffer (valid until the next
 * write, reset or close): the whole stream unless by-reference segments
 * were taken (then cdr_out_iov() or cdr_out_flatten()). */
static inline const uint8_t *cdr_out_data(const cdr_out *o) { return o->buf; }
static inline size_t cdr_out_size(const cdr_out *o) { return o->pos; }
/* The stream's length in octets, by-reference segments included (equal to
 * cdr_out_size() when there are none). */
static inline size_t cdr_out_total(const cdr_out *o) { return o->pos + o->ref_total; }
/* Number of by-reference segments held (0..CDR_OUT_REFS). */
static inline unsigned cdr_out_nrefs(const cdr_out *o) { return o->nref; }

/* Allow (ON true) or stop (false) by-reference writes on O from now on.
 * Segments already taken stay.  A stream starts without; cdr_out_reset()
 * keeps the setting.  Whoever sends the stream must send it with
 * cdr_out_iov() (or flatten it) while the referenced octets are valid. */
CDR_API void cdr_out_set_gather(cdr_out *o, bool on) CDR_NONNULL(1);

/* The whole stream as IOV[0..n): the buffer's pieces and the segments in
 * order, empty pieces left out; returns n (1 for a stream without
 * segments, 0 for an empty one), or -1 when MAX entries are too few
 * (CDR_OUT_IOV_MAX always suffice).  The entries stay valid until the
 * next write, reset or close. */
CDR_API int cdr_out_iov(const cdr_out *o, struct iovec *iov, int max) CDR_NONNULL(1);

/* Copy the segments into the buffer (growing it), so that cdr_out_data()
 * and cdr_out_size() hold the whole stream and the referenced octets are
 * no longer needed.  Errors (also recorded as the status): CDR_E_NOMEM,
 * CDR_E_LIMIT (larger than opts.max_size or the caller's fixed buffer),
 * the stream's status. */
CDR_API int cdr_out_flatten(cdr_out *o) CDR_NONNULL(1);
/* The byte order written (CDR_BIG_ENDIAN or CDR_LITTLE_ENDIAN). */
static inline int cdr_out_byte_order(const cdr_out *o) { return o->opts.byte_order; }
static inline const cdr_opts *cdr_out_opts(const cdr_out *o) { return &o->opts; }

/* Make alignment relative to position POS (octets from the buffer start);
 * GIOP sets it to the message start.  CDR_E_STATE inside an encapsulation. */
CDR_API int cdr_out_set_origin(cdr_out *o, size_t pos) CDR_NONNULL(1);

/* Record ERR with message MSG (a static string saying what was wrong;
 * NULL: cdr_strerror(ERR)) as O's status if none is recorded yet (for
 * custom marshallers), and stop writing; its reason is ERR.  CDR_OK
 * records nothing.  Returns the stream's status. */
CDR_API int cdr_out_fail(cdr_out *o, int err, const char *msg) CDR_NONNULL(1);
/* Like cdr_out_fail(), with REASON (a row of CDR_STATUS_MAP that refines
 * ERR, e.g. CDR_E_NO_WCHAR for CDR_E_CODESET) as cdr_out_error_reason();
 * MSG NULL: cdr_strerror(REASON). */
CDR_API int cdr_out_fail_reason(cdr_out *o, int err, int reason, const char *msg) CDR_NONNULL(1);

/* Slow path of the writers: make room for N more octets.  Not for direct use. */
CDR_API uint8_t *cdr_out__grow(cdr_out *o, size_t n);

/* cdr_out_reset() inline for an open stream with no encapsulation open
 * and no value tables (a stream reused for message after message); the
 * call for any other.  Not for direct use. */
static inline void cdr_out__reset_inline(cdr_out *o)
{
  if (__builtin_expect((o->closed | o->depth) != 0 || o->ext != NULL, 0)) {
    cdr_out_reset(o);
    return;
  }
  o->pos = 0;
  o->origin = 0;
  o->nref = 0;
  o->ref_total = 0;
  o->status = CDR_OK;
  o->lim = o->cap < o->opts.max_size ? o->cap : o->opts.max_size;
  o->swap = o->opts.byte_order != CDR_HOST_ORDER;
}

/* Reserve ALIGN-aligned room for N octets (N >= ALIGN is not required),
 * zeroing the padding; NULL once the stream has failed, and NULL (no error)
 * when nothing is to be written to a stream that has no buffer yet. */
static inline uint8_t *cdr_out__reserve(cdr_out *o, size_t n, size_t align)
{
  size_t pad = (o->origin - o->pos) & (align - 1);
  if (__builtin_expect(o->lim - o->pos < pad + n, 0)) {
    if (!cdr_out__grow(o, pad + n))
      return NULL;
  } else if (__builtin_expect(!o->buf, 0)) {
    return NULL; /* pad + n == 0 before the first write: nothing to do (and no NULL + 0) */
  }
  uint8_t *p = o->buf + o->pos;
  for (size_t i = 0; i < pad; i++)
    p[i] = 0;
  o->pos += pad + n;
  return p + pad;
}

#define CDR__OUT_PRIM(name, ctype, utype, size, swapfn)                    \
  static inline void name(cdr_out *o, ctype v)                               \
  {                                                                          \
    size_t pad = (o->origin - o->pos) & (size - 1);                          \
    if (__builtin_expect(o->lim - o->pos < pad + size, 0)) {                 \
      if (!cdr_out__grow(o, pad + size))                                     \
        return;                                                              \
    }                                                                        \
    uint8_t *p = o->buf + o->pos;                                            \
    if (size > 1) /* zero the padding: pad < size <= room */                 \
      memset(p, 0, size);                                                    \
    utype u;                                                                 \
    memcpy(&u, &v, size);                                                    \
    if (o->swap)                                                             \
      u = swapfn(u);                                                         \
    memcpy(p + pad, &u, size);                                               \
    o->pos += pad + size;                                                    \
  }

#define CDR__NOSWAP(x) (x)
/* octet, char (one octet in the char transmission code set: no conversion
 * is done for a single char), and the numeric primitives: aligned on their
 * size, in the stream's byte order. */
CDR__OUT_PRIM(cdr_put_octet, uint8_t, uint8_t, 1, CDR__NOSWAP)
CDR__OUT_PRIM(cdr_put_char, char, uint8_t, 1, CDR__NOSWAP)
CDR__OUT_PRIM(cdr_put_short, int16_t, uint16_t, 2, __builtin_bswap16)
CDR__OUT_PRIM(cdr_put_ushort, uint16_t, uint16_t, 2, __builtin_bswap16)
CDR__OUT_PRIM(cdr_put_long, int32_t, uint32_t, 4, __builtin_bswap32)
CDR__OUT_PRIM(cdr_put_ulong, uint32_t, uint32_t, 4, __builtin_bswap32)
CDR__OUT_PRIM(cdr_put_longlong, int64_t, uint64_t, 8, __builtin_bswap64)
CDR__OUT_PRIM(cdr_put_ulonglong, uint64_t, uint64_t, 8, __builtin_bswap64)
CDR__OUT_PRIM(cdr_put_float, float, uint32_t, 4, __builtin_bswap32)
CDR__OUT_PRIM(cdr_put_double, double, uint64_t, 8, __builtin_bswap64)

/* boolean: one octet, 0 or 1. */
static inline void cdr_put_boolean(cdr_out *o, bool v) { cdr_put_octet(o, v ? 1 : 0); }

/* long double: 16 octets aligned on 8, IEEE 754 binary128 (or, with
 * CDR_F_LDOUBLE_X87, the x87 80-bit format padded to 16 octets). */
CDR_API void cdr_put_longdouble(cdr_out *o, long double v) CDR_NONNULL(1);

/* wchar (code point C): GIOP 1.2: an octet count then the UTF-16 code unit
 * big-endian without a byte-order mark (as omniORB sends it); GIOP 1.1: one
 * UTF-16 code unit as an aligned ushort in the stream's order.  C must be in
 * the BMP and not a surrogate (else CDR_E_CODESET).  GIOP 1.0: CDR_E_UNSUPPORTED;
 * no wchar code set: CDR_E_CODESET. */
CDR_API void cdr_put_wchar(cdr_out *o, cdr_wchar c) CDR_NONNULL(1);

/* fixed<digits,scale>: (digits + 2) / 2 octets of packed decimal, no
 * alignment.  CDR_E_VALUE when F is malformed. */
CDR_API void cdr_put_fixed(cdr_out *o, const cdr_fixed *f) CDR_NONNULL(1, 2);

/* string: ulong length (octets including the terminating NUL, always >= 1),
 * the octets, the NUL.  S holds LEN octets in the native char code set
 * (opts.ncs_c), converted to the transmission code set if they differ
 * (CDR_E_CODESET if a character has no equivalent).  A NUL inside S is
 * CDR_E_STRING.  cdr_put_string() takes a NUL-terminated S. */
CDR_API void cdr_put_string_n(cdr_out *o, const char *s, size_t len) CDR_NONNULL(1);
CDR_API void cdr_put_string(cdr_out *o, const char *s) CDR_NONNULL(1, 2);

/* An identifier held as UTF-8 whatever opts.ncs_c (a repository ID, a
 * codebase URL, an IIOP host name): the NUL-terminated S written as
 * cdr_put_string() writes a string, converted from UTF-8 to the
 * transmission code set (CDR_E_CODESET: S is not well-formed UTF-8, or has
 * a character ISO-8859-1 lacks when that is opts.tcs_c).
 * cdr_get_string_utf8() reads it back. */
CDR_API void cdr_put_string_utf8(cdr_out *o, const char *s) CDR_NONNULL(1, 2);

/* wstring of LEN code points: GIOP 1.2: ulong length in octets, then (when
 * LEN > 0) the byte-order mark and the UTF-16 code units in the stream's
 * byte order, no terminator; GIOP 1.1: ulong length in code units including
 * a terminating NUL, then aligned ushort units.  Surrogate code points and
 * values above 0x10FFFF: CDR_E_CODESET; with tcs_w UCS-2 (no surrogates)
 * values above 0xFFFF too, as cdr_get_wstring() refuses surrogates there.
 * A NUL: CDR_E_STRING.  Errors as cdr_put_wchar(). */
CDR_API void cdr_put_wstring(cdr_out *o, const cdr_wchar *s, size_t len) CDR_NONNULL(1);

/* N elements of ESIZE octets (1, 2, 4 or 8) from host memory V, aligned on
 * ESIZE, without a count: an IDL array of a primitive type.  One memcpy when
 * the byte orders match, a swap loop otherwise.  For boolean arrays each
 * element must be 0 or 1 (CDR_E_VALUE otherwise; nothing is written). */
CDR_API void cdr_put_array(cdr_out *o, const void *v, size_t n, size_t esize) CDR_NONNULL(1);
CDR_API void cdr_put_array_boolean(cdr_out *o, const bool *v, size_t n) CDR_NONNULL(1);
/* A sequence: ulong count N, then the elements as cdr_put_array(). */
CDR_API void cdr_put_seq(cdr_out *o, const void *v, uint32_t n, size_t esize) CDR_NONNULL(1);
/* Raw octets with no alignment and no count. */
CDR_API void cdr_put_raw(cdr_out *o, const void *v, size_t n) CDR_NONNULL(1);

/* By-reference writers: the wire form of their copying namesakes, but the
 * octets of V (S) are not copied when the stream gathers
 * (cdr_out_set_gather()), the run is at least CDR_OUT_REF_MIN octets, no
 * encapsulation is open, no value graph is being written (its indirection
 * offsets are buffer positions), the byte orders match (multi-octet
 * elements) and fewer than CDR_OUT_REFS segments are held: the stream
 * records a segment instead.  Otherwise they copy, as cdr_put_raw() and
 * the others.  Ownership: a referenced V stays the caller's and must stay
 * valid and unchanged until the stream is sent (cdr_out_iov()),
 * flattened, reset or closed.  Errors: those of the copying namesakes;
 * CDR_E_LIMIT when the stream would pass opts.max_size. */
CDR_API void cdr_put_raw_ref(cdr_out *o, const void *v, size_t n) CDR_NONNULL(1);
/* A sequence (ulong count N, elements of ESIZE octets aligned on ESIZE), as
 * cdr_put_seq(), by reference. */
CDR_API void cdr_put_seq_ref(cdr_out *o, const void *v, uint32_t n, size_t esize) CDR_NONNULL(1);
/* A string as cdr_put_string_n() writes it (NUL inside: CDR_E_STRING;
 * code-set conversion when opts.ncs_c and tcs_c differ, which copies), the
 * LEN octets of S by reference. */
CDR_API void cdr_put_string_ref(cdr_out *o, const char *s, size_t len) CDR_NONNULL(1);
/* A string whose LEN octets at S are already in the transmission code set
 * and hold no NUL -- a view cdr_get_string_view() returned, whose checks
 * those were -- written as is: ulong LEN + 1, the octets (by reference),
 * the NUL.  Neither scanned nor converted again; S need not be
 * NUL-terminated.  Errors: CDR_E_INVALID (S NULL with LEN > 0),
 * CDR_E_LIMIT (LEN >= 2^32 - 1). */
CDR_API void cdr_put_string_view(cdr_out *o, const char *s, size_t len) CDR_NONNULL(1);

/* Encapsulation (CDR chapter, "Encapsulation"): writes a ulong length
 * placeholder, then the byte-order octet; alignment inside restarts at that
 * octet.  cdr_out_begin_encap_order() writes the inside in BYTE_ORDER.
 * cdr_out_end_encap() patches the length (octets after the length field,
 * byte-order octet included).  Errors: CDR_E_LIMIT past CDR_ENCAP_MAX or
 * opts.max_depth open encapsulations, CDR_E_STATE for an end without begin. */
CDR_API void cdr_out_begin_encap(cdr_out *o) CDR_NONNULL(1);
CDR_API void cdr_out_begin_encap_order(cdr_out *o, int byte_order) CDR_NONNULL(1);
CDR_API void cdr_out_end_encap(cdr_out *o) CDR_NONNULL(1);

/* Write padding (zero octets) so that the position is aligned on ALIGN
 * (1, 2, 4, 8). */
CDR_API void cdr_out_align(cdr_out *o, size_t align) CDR_NONNULL(1);

/* Overwrite a ulong already written at position POS (aligned, in the
 * stream's byte order at that point).  CDR_E_INVALID if POS + 4 > size. */
CDR_API int cdr_out_patch_ulong(cdr_out *o, size_t pos, uint32_t v, int byte_order) CDR_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
