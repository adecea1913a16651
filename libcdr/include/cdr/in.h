/* cdr/in.h - the CDR input stream.
 *
 * Reads the CDR transfer syntax (OMG CORBA 3.x, GIOP chapter, section "CDR
 * Transfer Syntax") from a caller's buffer, which must stay valid and
 * unchanged while the stream and any zero-copy view from it are in use.
 * Alignment is relative to the stream's origin (position 0 unless
 * cdr_in_set_origin() moved it) or to the first octet (the byte-order
 * octet) of the innermost open encapsulation.  The stream swaps only when
 * the data's byte order differs from the host's.
 *
 * Errors are sticky: the first failure is recorded with its code, its
 * offset (octets from the buffer start) and a message; every later read
 * returns zero / NULL and consumes nothing; the caller checks once at the
 * end with cdr_in_status().  No read ever goes past the buffer or past the
 * end of the innermost encapsulation.  Every length read from the wire is
 * checked, in 64-bit arithmetic, against the octets that remain (times the
 * element's minimum size) and against the configured limits before anything
 * is allocated.
 *
 * Memory: functions that copy (strings, wstrings, sequences) allocate from
 * the stream's arena (cdr_in_set_arena()); functions named *_view return
 * pointers into the buffer and allocate nothing.
 */
#ifndef CDR_IN_H
#define CDR_IN_H

#include <stdbool.h>
#include <string.h>
#include <cdr/stream.h>
#include <cdr/arena.h>
#include <cdr/codeset.h>
#include <cdr/numeric.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The fields are private.  The struct is visible so that the primitive
 * readers below are inline and a stream can live on the stack. */
typedef struct cdr_in {
  const uint8_t *buf;
  size_t pos;            /* next octet to read */
  size_t end;            /* end of the innermost encapsulation, or of the buffer;
                          * set to pos after an error so that reads stop */
  size_t len;            /* octets in the buffer */
  size_t origin;         /* alignment origin */
  uint8_t swap;          /* 1 when the data's byte order is not the host's */
  uint8_t order;         /* the data's byte order */
  uint8_t closed;
  uint8_t depth;         /* open encapsulations */
  uint8_t in_chunk;      /* reading a chunked value's state: end is its chunk's end */
  int status;            /* sticky error, CDR_OK while none */
  int reason;            /* while status is set: its precise code */
  size_t chunk_lim;      /* while in_chunk: the end that chunks may not pass */
  size_t err_pos;        /* where the first error happened */
  const char *err_msg;   /* static string describing it */
  cdr_arena *arena;
  cdr_opts opts;
  struct { size_t end, origin; uint8_t order, swap; } encap[CDR_ENCAP_MAX];
  void *ext;             /* value-graph state, created on demand */
} cdr_in;

/* Initialise I to read LEN octets at BUF written in BYTE_ORDER
 * (CDR_BIG_ENDIAN / CDR_LITTLE_ENDIAN), with options OPTS (NULL: defaults;
 * opts.byte_order is ignored).  Errors: CDR_E_INVALID (byte order not 0/1,
 * bad option), also recorded as the stream's status. */
CDR_API int cdr_in_init(cdr_in *i, const void *buf, size_t len, int byte_order,
                        const cdr_opts *opts) CDR_NONNULL(1);

/* Initialise I over a whole encapsulation (its first octet is the byte-order
 * octet, 0 or 1 -- anything else is CDR_E_VALUE): what CDR calls an
 * encapsulated octet sequence after its length, e.g. an IOR profile body. */
CDR_API int cdr_in_init_encap(cdr_in *i, const void *buf, size_t len, const cdr_opts *opts)
  CDR_NONNULL(1);

/* Release the stream's value-graph state to the per-thread pools.
 * Idempotent; later reads fail with CDR_E_STATE.  The arena is the
 * caller's and is left alone. */
CDR_API void cdr_in_close(cdr_in *i) CDR_NONNULL(1);

/* The arena that copying reads allocate from (not owned by the stream). */
/* As cdr_in_init() over the LEN octets at BUF (not NULL) in BYTE_ORDER
 * (CDR_BIG_ENDIAN or CDR_LITTLE_ENDIAN, not checked), with options OPTS
 * that an earlier cdr_in_init() accepted (not checked again), then
 * positioned at POS (<= LEN) with arena A (may be NULL): the fields set
 * inline, no call -- for a server's per-request argument stream, whose
 * options are fixed per connection.  Cannot fail. */
static inline void cdr_in_init_trusted(cdr_in *i, const void *buf, size_t len, int byte_order,
                                       const cdr_opts *opts, size_t pos, cdr_arena *a)
{
  i->buf = (const uint8_t *)buf;
  i->pos = pos;
  i->len = i->end = len;
  i->origin = 0;
  i->closed = 0;
  i->depth = 0;
  i->in_chunk = 0;
  i->status = CDR_OK;
  i->chunk_lim = 0;
  i->err_pos = 0;
  i->err_msg = NULL;
  i->arena = a;
  i->ext = NULL;
  i->opts = *opts;
  i->order = (uint8_t)byte_order;
  i->opts.byte_order = (uint8_t)byte_order;
  i->swap = byte_order != CDR_HOST_ORDER;
}

static inline void cdr_in_set_arena(cdr_in *i, cdr_arena *a) { i->arena = a; }
static inline cdr_arena *cdr_in_arena(const cdr_in *i) { return i->arena; }

/* The first error (CDR_OK if none). */
static inline int cdr_in_status(const cdr_in *i) { return i->status; }
/* Its offset (octets from the buffer start) and message (static; "" if
 * none). */
static inline size_t cdr_in_error_offset(const cdr_in *i) { return i->err_pos; }
static inline const char *cdr_in_error_message(const cdr_in *i) { return i->err_msg ? i->err_msg : ""; }
/* Its precise code: the row of CDR_STATUS_MAP (cdr/error.h) that says
 * which CORBA exception and minor code it maps to.  A reason row
 * (CDR_E_NO_WCHAR recorded as CDR_E_CODESET, CDR_E_WCHAR_GIOP10 as
 * CDR_E_UNSUPPORTED) where one applies, else the status itself (CDR_OK if
 * none). */
static inline int cdr_in_error_reason(const cdr_in *i) { return i->status != CDR_OK ? i->reason : CDR_OK; }
/* Position (octets from the buffer start) and octets left in the innermost
 * encapsulation. */
static inline size_t cdr_in_pos(const cdr_in *i) { return i->pos; }
static inline size_t cdr_in_remaining(const cdr_in *i) { return i->end - i->pos; }
static inline int cdr_in_byte_order(const cdr_in *i) { return i->order; }
static inline const cdr_opts *cdr_in_opts(const cdr_in *i) { return &i->opts; }

/* Make alignment relative to POS.  CDR_E_STATE inside an encapsulation. */
CDR_API int cdr_in_set_origin(cdr_in *i, size_t pos) CDR_NONNULL(1);
/* Move to POS (<= the end of the innermost encapsulation): CDR_E_LENGTH
 * otherwise.  Does nothing after an error. */
CDR_API int cdr_in_seek(cdr_in *i, size_t pos) CDR_NONNULL(1);

/* Record ERR with message MSG (static; NULL: cdr_strerror(ERR)) at the
 * current position if no error is recorded yet, and stop reading; its
 * reason is ERR.  CDR_OK records nothing.  Returns the stream's status. */
CDR_API int cdr_in_fail(cdr_in *i, int err, const char *msg) CDR_NONNULL(1);
/* Like cdr_in_fail(), with REASON (a row of CDR_STATUS_MAP that refines
 * ERR, e.g. CDR_E_NO_WCHAR for CDR_E_CODESET) as cdr_in_error_reason();
 * MSG NULL: cdr_strerror(REASON). */
CDR_API int cdr_in_fail_reason(cdr_in *i, int err, int reason, const char *msg) CDR_NONNULL(1);

/* Slow path of the readers: inside a chunked value's state it moves to the
 * next chunk when the current one is used up; otherwise it records
 * CDR_E_SHORT (unless an error is already recorded) and returns NULL.  Not
 * for direct use. */
CDR_API const uint8_t *cdr_in__slow(cdr_in *i, size_t n, size_t align);

/* Take N octets aligned on ALIGN; NULL (error recorded) if they are not all
 * there. */
static inline const uint8_t *cdr_in__take(cdr_in *i, size_t n, size_t align)
{
  size_t pad = (i->origin - i->pos) & (align - 1);
  if (__builtin_expect(i->end - i->pos < pad + n, 0))
    return cdr_in__slow(i, n, align);
  const uint8_t *p = i->buf + i->pos + pad;
  i->pos += pad + n;
  return p;
}

#define CDR__IN_PRIM(name, ctype, utype, size, swapfn)                     \
  static inline ctype name(cdr_in *i)                                        \
  {                                                                          \
    const uint8_t *p = cdr_in__take(i, size, size);                          \
    utype u = 0;                                                             \
    ctype v;                                                                 \
    if (__builtin_expect(p != NULL, 1)) {                                    \
      memcpy(&u, p, size);                                                   \
      if (i->swap)                                                           \
        u = swapfn(u);                                                       \
    }                                                                        \
    memcpy(&v, &u, size);                                                    \
    return v;                                                                \
  }

#define CDR__NOSWAP_IN(x) (x)
/* The primitives: aligned on their size, swapped when the orders differ;
 * zero after an error. */
CDR__IN_PRIM(cdr_get_octet, uint8_t, uint8_t, 1, CDR__NOSWAP_IN)
CDR__IN_PRIM(cdr_get_char, char, uint8_t, 1, CDR__NOSWAP_IN)
CDR__IN_PRIM(cdr_get_short, int16_t, uint16_t, 2, __builtin_bswap16)
CDR__IN_PRIM(cdr_get_ushort, uint16_t, uint16_t, 2, __builtin_bswap16)
CDR__IN_PRIM(cdr_get_long, int32_t, uint32_t, 4, __builtin_bswap32)
CDR__IN_PRIM(cdr_get_ulong, uint32_t, uint32_t, 4, __builtin_bswap32)
CDR__IN_PRIM(cdr_get_longlong, int64_t, uint64_t, 8, __builtin_bswap64)
CDR__IN_PRIM(cdr_get_ulonglong, uint64_t, uint64_t, 8, __builtin_bswap64)
CDR__IN_PRIM(cdr_get_float, float, uint32_t, 4, __builtin_bswap32)
CDR__IN_PRIM(cdr_get_double, double, uint64_t, 8, __builtin_bswap64)

/* boolean: one octet; 0 is false, 1 true, anything else CDR_E_VALUE (and
 * false is returned). */
static inline bool cdr_get_boolean(cdr_in *i)
{
  uint8_t v = cdr_get_octet(i);
  if (__builtin_expect(v > 1, 0)) {
    i->pos--; /* report the offending octet's offset */
    cdr_in_fail(i, CDR_E_VALUE, "boolean octet other than 0 or 1");
    return false;
  }
  return v == 1;
}

/* long double: 16 octets aligned on 8, IEEE 754 binary128 rounded to the
 * host's long double (or x87 with CDR_F_LDOUBLE_X87). */
CDR_API long double cdr_get_longdouble(cdr_in *i) CDR_NONNULL(1);

/* wchar, as cdr_put_wchar() writes it; GIOP 1.2 also accepts a leading
 * byte-order mark (octet count 4).  Errors: CDR_E_LENGTH (octet count not 2
 * or 4), CDR_E_VALUE (a surrogate, or 4 octets without a byte-order mark:
 * malformed data, which maps to MARSHAL), CDR_E_CODESET (no wchar code set
 * negotiated), CDR_E_UNSUPPORTED
 * (GIOP 1.0). */
CDR_API cdr_wchar cdr_get_wchar(cdr_in *i) CDR_NONNULL(1);

/* fixed<DIGITS,SCALE> into *F ((digits + 2) / 2 octets).  Errors:
 * CDR_E_VALUE (a nibble that is not a digit or a sign), CDR_E_INVALID (bad
 * digits/scale).  *F is untouched on error. */
CDR_API int cdr_get_fixed(cdr_in *i, unsigned digits, int scale, cdr_fixed *f) CDR_NONNULL(1, 4);

/* string as a zero-copy view: *S points at the string's octets inside the
 * buffer (NUL-terminated there), *LEN is its length without the NUL; the
 * octets are in the transmission code set (no conversion).  Errors:
 * CDR_E_SHORT, CDR_E_LENGTH (length beyond what remains), CDR_E_LIMIT (beyond
 * opts.max_string), CDR_E_STRING (length 0 unless CDR_F_LENIENT_EMPTY_STRING,
 * last octet not NUL, a NUL inside).  *S and *LEN untouched on error. */
CDR_API int cdr_get_string_view(cdr_in *i, const char **s, uint32_t *len) CDR_NONNULL(1, 2);

/* string copied into the arena, NUL-terminated, converted to the native
 * char code set (opts.ncs_c; CDR_E_CODESET if not representable).  *LEN
 * (may be NULL) gets its length in octets.  NULL on error (as the view, plus
 * CDR_E_NOMEM, and CDR_E_STATE when the stream has no arena). */
CDR_API char *cdr_get_string(cdr_in *i, uint32_t *len) CDR_NONNULL(1);

/* An identifier as UTF-8, whatever opts.ncs_c: a repository ID (values,
 * system exceptions, an IOR's type_id), a codebase URL, an IIOP host name.
 * The wire form is a string (as cdr_get_string_view() reads it) in the
 * transmission code set; *S points at its octets inside the buffer
 * (NUL-terminated there) when they are ASCII or opts.tcs_c is UTF-8, else
 * at a copy converted from ISO-8859-1 to UTF-8 in the stream's arena.  *LEN
 * (may be NULL) gets its length in octets.  cdr_put_string_utf8() writes
 * it.  Errors: those of cdr_get_string_view(); for a converted copy
 * CDR_E_STATE (no arena) and CDR_E_NOMEM, recorded at the string's length
 * field.  *S and *LEN untouched on error. */
CDR_API int cdr_get_string_utf8(cdr_in *i, const char **s, uint32_t *len) CDR_NONNULL(1, 2);

/* wstring copied into the arena as code points, NUL-terminated; *LEN (may
 * be NULL) gets the number of code points.  GIOP 1.2: ulong octet count
 * (even), an optional byte-order mark, UTF-16 (without a mark: big-endian,
 * or the stream's order with CDR_F_WCHAR_NOBOM_STREAM_ORDER); surrogate pairs
 * are combined, a lone surrogate is CDR_E_VALUE (MARSHAL; or U+FFFD with
 * CDR_F_WCHAR_REPLACE_INVALID).  With tcs_w UCS-2, which has no
 * surrogates, any surrogate unit, paired or not, is CDR_E_CODESET
 * (DATA_CONVERSION; U+FFFD with CDR_F_WCHAR_REPLACE_INVALID): the same
 * rule as cdr_put_wstring(), which refuses characters above U+FFFF in
 * UCS-2.  GIOP 1.1: ulong count of code units
 * including the terminating NUL, aligned ushort units in the stream's order
 * (a missing NUL or a NUL inside is CDR_E_STRING).  Other errors as for
 * strings and cdr_get_wchar(). */
CDR_API cdr_wchar *cdr_get_wstring(cdr_in *i, uint32_t *len) CDR_NONNULL(1);

/* N elements of ESIZE octets (1, 2, 4, 8) into DST, aligned on ESIZE: an
 * IDL array of a primitive type (no count).  One memcpy when the orders
 * match, a swap loop otherwise.  DST untouched on error. */
CDR_API int cdr_get_array(cdr_in *i, void *dst, size_t n, size_t esize) CDR_NONNULL(1);
/* Booleans: every octet must be 0 or 1 (checked before DST is written). */
CDR_API int cdr_get_array_boolean(cdr_in *i, bool *dst, size_t n) CDR_NONNULL(1);

/* A sequence's ulong count, checked before anything is allocated: count *
 * MIN_ESIZE (the least octets one element can take on the wire; 0 for
 * elements that may be empty) must not exceed what remains (CDR_E_LENGTH),
 * and count must not exceed opts.max_seq (CDR_E_LIMIT).  0 on error. */
CDR_API uint32_t cdr_get_seq_count(cdr_in *i, size_t min_esize) CDR_NONNULL(1);

/* A sequence of a primitive type copied into the arena: count, then
 * elements as cdr_get_array().  *N gets the count.  Returns the elements
 * (a non-NULL pointer even for 0 elements) or NULL on error. */
CDR_API void *cdr_get_seq(cdr_in *i, size_t esize, uint32_t *n) CDR_NONNULL(1, 3);

/* A sequence<octet> as a zero-copy view into the buffer. */
CDR_API int cdr_get_octets_view(cdr_in *i, const uint8_t **data, uint32_t *n) CDR_NONNULL(1, 2, 3);
/* N raw octets with no alignment, as a view; NULL on error. */
CDR_API const uint8_t *cdr_get_raw_view(cdr_in *i, size_t n) CDR_NONNULL(1);

/* Encapsulation: reads the ulong length (checked against what remains),
 * then the byte-order octet (0 or 1, else CDR_E_VALUE); until
 * cdr_in_end_encap() reads are bounded by the encapsulation, use its byte
 * order, and align relative to its first octet.  cdr_in_end_encap() moves
 * to the octet after the encapsulation (skipping what was not read).
 * Errors: CDR_E_LENGTH (length 0 or beyond what remains), CDR_E_LIMIT
 * (nesting past CDR_ENCAP_MAX or opts.max_depth), CDR_E_STATE (end without
 * begin). */
CDR_API int cdr_in_begin_encap(cdr_in *i) CDR_NONNULL(1);
CDR_API int cdr_in_end_encap(cdr_in *i) CDR_NONNULL(1);

/* Skip padding so that the position is aligned on ALIGN. */
CDR_API void cdr_in_align(cdr_in *i, size_t align) CDR_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
