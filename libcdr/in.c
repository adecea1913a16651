/* in.c - the CDR input stream: errors, strings (with their code set
 * conversion), wide strings, bulk arrays, sequences, encapsulations.  The primitive readers are inline in cdr/in.h. */
#include "stream_impl.h"
#include <cdr/in.h>

/* What a stream over no buffer (NULL, 0) reads from: the readers form
 * buf + pos even for 0 octets, and NULL + 0 is undefined. */
static const uint8_t in_nothing[1];

static int in_setup(cdr_in *i, const void *buf, size_t len, const cdr_opts *opts)
{
  /* Field by field: a memset of the whole header costs more than the rest
   * of a small message's decoding. */
  i->buf = buf ? buf : in_nothing;
  i->pos = 0;
  i->len = i->end = len;
  i->origin = 0;
  i->closed = 0;
  i->depth = 0;
  i->in_chunk = 0;
  i->status = CDR_OK;
  i->chunk_lim = 0;
  i->err_pos = 0;
  i->err_msg = NULL;
  i->arena = NULL;
  i->ext = NULL;
  int rc = CDR_OK;
  if (opts) {
    i->opts = *opts;
    rc = cdr__opts_check(&i->opts);
  } else {
    i->opts = cdr__opts_defaults;
  }
  if (rc == CDR_OK && !buf && len)
    rc = CDR_E_INVALID;
  if (rc != CDR_OK)
    cdr_in_fail(i, rc, "invalid stream options");
  return rc;
}

static void in_set_order(cdr_in *i, int order)
{
  i->order = (uint8_t)order;
  i->opts.byte_order = (uint8_t)order;
  i->swap = order != CDR_HOST_ORDER;
}

int cdr_in_init(cdr_in *i, const void *buf, size_t len, int byte_order, const cdr_opts *opts)
{
  int rc = in_setup(i, buf, len, opts);
  if (byte_order != CDR_BIG_ENDIAN && byte_order != CDR_LITTLE_ENDIAN) {
    in_set_order(i, CDR_HOST_ORDER);
    return cdr_in_fail(i, CDR_E_INVALID, "byte order must be 0 or 1");
  }
  in_set_order(i, byte_order);
  return rc;
}

int cdr_in_init_encap(cdr_in *i, const void *buf, size_t len, const cdr_opts *opts)
{
  int rc = in_setup(i, buf, len, opts);
  in_set_order(i, CDR_HOST_ORDER);
  if (rc != CDR_OK)
    return rc;
  uint8_t bo = cdr_get_octet(i);
  if (i->status != CDR_OK)
    return i->status;
  if (bo > 1) {
    i->pos = 0;
    return cdr_in_fail(i, CDR_E_VALUE, "encapsulation byte-order octet other than 0 or 1");
  }
  in_set_order(i, bo);
  return CDR_OK;
}

void cdr_in_close(cdr_in *i)
{
  if (i->closed)
    return;
  if (i->ext) {
    ((cdr__ext *)i->ext)->release(i->ext);
    i->ext = NULL;
  }
  if (i->status == CDR_OK) {        /* cdr_in_fail(), without its two calls */
    i->status = CDR_E_STATE;
    i->reason = CDR_E_STATE;
    i->err_pos = i->pos;
    i->err_msg = "stream closed";
    i->end = i->pos;
  }
  i->closed = 1;
}

int cdr_in_fail_reason(cdr_in *i, int err, int reason, const char *msg)
{
  if (i->status == CDR_OK && err != CDR_OK) {
    i->status = err;
    i->reason = reason;
    i->err_pos = i->pos;
    i->err_msg = msg ? msg : cdr_strerror(reason);
    i->end = i->pos;
  }
  return i->status;
}

int cdr_in_fail(cdr_in *i, int err, const char *msg)
{
  return cdr_in_fail_reason(i, err, err, msg);
}

/* Inside a chunked value the fast path's end is the current chunk's end.
 * When a read finds the chunk used up (the position, after alignment, at or
 * past the chunk's end), the next long must be another chunk's length
 * (1..0x7ffffeff, CORBA 3.x "Value Chunking"); anything else (an end tag, a
 * nested value's tag) means the value's state ends before what the reader
 * expects. */
static int chunk_next(cdr_in *i)
{
  size_t q = i->end + ((i->origin - i->end) & 3);
  if (q > i->chunk_lim || i->chunk_lim - q < 4)
    return cdr_in_fail(i, CDR_E_SHORT, "input ends inside a chunked value");
  uint32_t u;
  memcpy(&u, i->buf + q, 4);
  if (i->swap)
    u = __builtin_bswap32(u);
  if (u == 0 || u >= 0x7fffff00u) {
    i->pos = q;
    return cdr_in_fail(i, CDR_E_TAG, u == 0 ? "chunk length 0"
                                            : "value state ends before the data read");
  }
  if (u > i->chunk_lim - q - 4) {
    i->pos = q;
    return cdr_in_fail(i, CDR_E_LENGTH, "chunk longer than what remains");
  }
  i->pos = q + 4;
  i->end = i->pos + u;
  return CDR_OK;
}

const uint8_t *cdr_in__slow(cdr_in *i, size_t n, size_t align)
{
  if (i->in_chunk && i->status == CDR_OK) {
    size_t pad = (i->origin - i->pos) & (align - 1);
    if (i->pos + pad >= i->end) {
      if (chunk_next(i) != CDR_OK)
        return NULL;
      return cdr_in__take(i, n, align);
    }
    cdr_in_fail(i, CDR_E_TAG, "primitive split across value chunks");
    return NULL;
  }
  cdr_in_fail(i, CDR_E_SHORT, i->depth ? "read past the end of an encapsulation"
                                       : "read past the end of the input");
  return NULL;
}

int cdr_in_set_origin(cdr_in *i, size_t pos)
{
  if (i->depth)
    return cdr_in_fail(i, CDR_E_STATE, "origin moved inside an encapsulation");
  i->origin = pos;
  return i->status;
}

int cdr_in_seek(cdr_in *i, size_t pos)
{
  if (i->status != CDR_OK)
    return i->status;
  if (pos > i->end)
    return cdr_in_fail(i, CDR_E_LENGTH, "seek past the end");
  i->pos = pos;
  return CDR_OK;
}

void cdr_in_align(cdr_in *i, size_t align)
{
  if (align > 1)
    (void)cdr_in__take(i, 0, align);
}

const uint8_t *cdr_get_raw_view(cdr_in *i, size_t n)
{
  return cdr_in__take(i, n, 1);
}

/* ---------------------------------------------------------------- bulk */

/* Octets that may still follow: inside a chunked value, up to the limit of
 * all its chunks (for bounding counts before allocation). */
static size_t n_pad(const cdr_in *i, size_t align)
{
  return (i->origin - i->pos) & (align - 1);
}

static size_t in_left(const cdr_in *i)
{
  return i->in_chunk ? i->chunk_lim - i->pos : i->end - i->pos;
}

/* Before a bulk read: a used-up chunk moves to the next one, so that bulk
 * data may start a chunk (it may not span two). */
static int in_bulk_start(cdr_in *i, size_t align)
{
  if (i->in_chunk && i->status == CDR_OK && n_pad(i, align) + i->pos >= i->end)
    return chunk_next(i);
  return i->status;
}

int cdr_get_array(cdr_in *i, void *dst, size_t n, size_t esize)
{
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8)
    return cdr_in_fail(i, CDR_E_INVALID, "array element size not 1, 2, 4 or 8");
  if (!n || i->status != CDR_OK)
    return i->status; /* no elements: no padding either (as omniORB) */
  if (in_bulk_start(i, esize) != CDR_OK)
    return i->status;
  if (n > (i->end - i->pos) / esize) {
    /* Still align first so the error offset is where the data would be. */
    cdr_in_align(i, esize);
    return cdr_in_fail(i, CDR_E_SHORT, "array longer than the input");
  }
  const uint8_t *p = cdr_in__take(i, n * esize, esize);
  if (!p)
    return i->status;
  if (!n)
    return CDR_OK;
  if (i->swap && esize > 1)
    cdr__swap_copy(dst, p, n, esize);
  else
    memcpy(dst, p, n * esize);
  return CDR_OK;
}

int cdr_get_array_boolean(cdr_in *i, bool *dst, size_t n)
{
  if (!n || i->status != CDR_OK)
    return i->status;
  if (in_bulk_start(i, 1) != CDR_OK)
    return i->status;
  if (n > i->end - i->pos)
    return cdr_in_fail(i, CDR_E_SHORT, "boolean array longer than the input");
  const uint8_t *p = i->buf + i->pos;
  for (size_t k = 0; k < n; k++)
    if (p[k] > 1) {
      i->pos += k;
      return cdr_in_fail(i, CDR_E_VALUE, "boolean octet other than 0 or 1");
    }
  for (size_t k = 0; k < n; k++)
    dst[k] = p[k] != 0;
  i->pos += n;
  return CDR_OK;
}

uint32_t cdr_get_seq_count(cdr_in *i, size_t min_esize)
{
  uint32_t n = cdr_get_ulong(i);
  if (i->status != CDR_OK)
    return 0;
  size_t at = i->pos - 4; /* the length field, after its padding */
  uint64_t need;
  if (__builtin_mul_overflow((uint64_t)n, (uint64_t)min_esize, &need)
      || need > (uint64_t)in_left(i)) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_LENGTH, "sequence count exceeds the octets that remain");
    return 0;
  }
  if (n > i->opts.max_seq) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_LIMIT, "sequence count exceeds the configured maximum");
    return 0;
  }
  return n;
}

static void *in_alloc(cdr_in *i, size_t size, size_t align)
{
  if (!i->arena) {
    cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
    return NULL;
  }
  void *p = cdr_arena_alloc(i->arena, size ? size : 1, align);
  if (!p)
    cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
  return p;
}

void *cdr_get_seq(cdr_in *i, size_t esize, uint32_t *n)
{
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8) {
    cdr_in_fail(i, CDR_E_INVALID, "sequence element size not 1, 2, 4 or 8");
    return NULL;
  }
  uint32_t cnt = cdr_get_seq_count(i, esize);
  if (i->status != CDR_OK)
    return NULL;
  void *d = in_alloc(i, (size_t)cnt * esize, esize < 8 ? esize : 8);
  if (!d || cdr_get_array(i, d, cnt, esize) != CDR_OK)
    return NULL;
  *n = cnt;
  return d;
}

int cdr_get_octets_view(cdr_in *i, const uint8_t **data, uint32_t *n)
{
  uint32_t cnt = cdr_get_seq_count(i, 1);
  if (i->status != CDR_OK)
    return i->status;
  const uint8_t *p = cdr_in__take(i, cnt, 1);
  if (!p)
    return i->status;
  *data = p;
  *n = cnt;
  return CDR_OK;
}

/* ---------------------------------------------------------------- encapsulation */

int cdr_in_begin_encap(cdr_in *i)
{
  if (i->status != CDR_OK)
    return i->status;
  if (i->depth >= CDR_ENCAP_MAX || i->depth >= i->opts.max_depth)
    return cdr_in_fail(i, CDR_E_LIMIT, "encapsulations nested too deeply");
  uint32_t len = cdr_get_ulong(i);
  if (i->status != CDR_OK)
    return i->status;
  size_t at = i->pos - 4; /* the length field, after its padding */
  if (len == 0 || len > i->end - i->pos) {
    i->pos = at;
    return cdr_in_fail(i, CDR_E_LENGTH, len ? "encapsulation longer than what remains"
                                            : "encapsulation of length 0 has no byte-order octet");
  }
  uint8_t bo = i->buf[i->pos];
  if (bo > 1)
    return cdr_in_fail(i, CDR_E_VALUE, "encapsulation byte-order octet other than 0 or 1");
  unsigned d = i->depth++;
  i->encap[d].end = i->end;
  i->encap[d].origin = i->origin;
  i->encap[d].order = i->order;
  i->encap[d].swap = i->swap;
  i->origin = i->pos;
  i->end = i->pos + len;
  i->pos++;
  in_set_order(i, bo);
  return CDR_OK;
}

int cdr_in_end_encap(cdr_in *i)
{
  if (i->status != CDR_OK)
    return i->status;
  if (!i->depth)
    return cdr_in_fail(i, CDR_E_STATE, "end of an encapsulation that was not begun");
  unsigned d = --i->depth;
  i->pos = i->end;
  i->end = i->encap[d].end;
  i->origin = i->encap[d].origin;
  in_set_order(i, i->encap[d].order);
  return CDR_OK;
}

/* ---------------------------------------------------------------- long double, fixed */

long double cdr_get_longdouble(cdr_in *i)
{
  const uint8_t *p = cdr_in__take(i, 16, 8);
  if (!p)
    return 0;
  cdr_u128 b = cdr_u128_load(p, i->order == CDR_LITTLE_ENDIAN);
  if (!(i->opts.flags & CDR_F_LDOUBLE_X87))
    return cdr_ldouble_from_binary128(b);
  long double v = 0;
  if (cdr_ldouble_from_x87pad(b, &v) != CDR_OK) {
    i->pos -= 16;
    cdr_in_fail(i, CDR_E_VALUE, "x87 long double encoding no FPU produces");
    return 0;
  }
  return v;
}

int cdr_get_fixed(cdr_in *i, unsigned digits, int scale, cdr_fixed *f)
{
  if (digits < 1 || digits > 31 || scale < 0 || scale > (int)digits)
    return cdr_in_fail(i, CDR_E_INVALID, "fixed digits/scale out of range");
  size_t n = (digits + 2) / 2;
  const uint8_t *p = cdr_in__take(i, n, 1);
  if (!p)
    return i->status;
  cdr_fixed tmp;
  int rc = cdr_fixed_decode(p, n, digits, scale, &tmp);
  if (rc != CDR_OK) {
    i->pos -= n;
    return cdr_in_fail(i, rc, "malformed fixed-point packed decimal");
  }
  *f = tmp;
  return CDR_OK;
}

/* ---------------------------------------------------------------- strings */

/* Whether the N octets at P hold a NUL (hostile-input case C05 c: a string
 * must not).  Only a yes or no is needed, not where: on x86-64 with AVX2
 * the minimum of 512 octets at a time is compared with zero, well under
 * half the instructions of memchr(); elsewhere, and for the tail, memchr(). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx2"))) static int has_nul_avx2(const uint8_t *p, size_t n)
{
  const __m256i z = _mm256_setzero_si256();
  const uint8_t *end = p + n;
  for (; end - p >= 512; p += 512) {
    const __m256i *v = (const __m256i *)(const void *)p;
#define CDR__MIN2(a, b) _mm256_min_epu8(_mm256_loadu_si256(v + (a)), _mm256_loadu_si256(v + (b)))
    __m256i m0 = _mm256_min_epu8(CDR__MIN2(0, 1), CDR__MIN2(2, 3));
    __m256i m1 = _mm256_min_epu8(CDR__MIN2(4, 5), CDR__MIN2(6, 7));
    __m256i m2 = _mm256_min_epu8(CDR__MIN2(8, 9), CDR__MIN2(10, 11));
    __m256i m3 = _mm256_min_epu8(CDR__MIN2(12, 13), CDR__MIN2(14, 15));
#undef CDR__MIN2
    __m256i m = _mm256_min_epu8(_mm256_min_epu8(m0, m1), _mm256_min_epu8(m2, m3));
    __m256i e = _mm256_cmpeq_epi8(m, z);
    if (!_mm256_testz_si256(e, e))
      return 1;
  }
  return p < end && memchr(p, 0, (size_t)(end - p)) != NULL;
}

int cdr__has_nul(const char *p, size_t n)
{
  static int avx2 = -1;  /* racy but idempotent: every thread computes the same */
  int a = __atomic_load_n(&avx2, __ATOMIC_RELAXED);
  if (a < 0) {
    __builtin_cpu_init();
    a = __builtin_cpu_supports("avx2") ? 1 : 0;
    __atomic_store_n(&avx2, a, __ATOMIC_RELAXED);
  }
  if (a && n >= 512)
    return has_nul_avx2((const uint8_t *)p, n);
  return memchr(p, 0, n) != NULL;
}
#else
int cdr__has_nul(const char *p, size_t n) { return memchr(p, 0, n) != NULL; }
#endif

int cdr_get_string_view(cdr_in *i, const char **s, uint32_t *len)
{
  uint32_t n = cdr_get_ulong(i);
  if (i->status != CDR_OK)
    return i->status;
  size_t at = i->pos - 4; /* the length field, after its padding */
  if (n == 0) {
    if (i->opts.flags & CDR_F_LENIENT_EMPTY_STRING) {
      *s = "";
      if (len)
        *len = 0;
      return CDR_OK;
    }
    i->pos = at;
    return cdr_in_fail(i, CDR_E_STRING, "string length 0 (no terminating NUL)");
  }
  if (n > i->end - i->pos) {
    i->pos = at;
    return cdr_in_fail(i, CDR_E_LENGTH, "string length exceeds the octets that remain");
  }
  if (n > i->opts.max_string) {
    i->pos = at;
    return cdr_in_fail(i, CDR_E_LIMIT, "string length exceeds the configured maximum");
  }
  const char *p = (const char *)i->buf + i->pos;
  if (p[n - 1] != 0) {
    i->pos = at;
    return cdr_in_fail(i, CDR_E_STRING, "string not terminated by NUL");
  }
  if (n > 1 && cdr__has_nul(p, n - 1)) {
    i->pos = at;
    return cdr_in_fail(i, CDR_E_STRING, "NUL inside a string");
  }
  i->pos += n;
  *s = p;
  if (len)
    *len = n - 1;
  return CDR_OK;
}

/* Copy wire string V (N octets, no NUL) converted to the native code set
 * into the arena (ISO-8859-1 <-> UTF-8); NULL with the error recorded.  Out
 * of line, so that it stays out of the common path of cdr_get_string(). */
static __attribute__((noinline)) char *get_string_convert(cdr_in *i, const char *v, uint32_t n,
                                                          uint32_t *len)
{
  const uint8_t *src = (const uint8_t *)v;
  size_t max = i->opts.ncs_c == CDR_CS_UTF8 ? cdr_latin1_utf8_size(src, n) : n;
  if (!i->arena) {
    cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
    return NULL;
  }
  uint8_t *d = cdr_arena_alloc(i->arena, max + 1, 1);
  if (!d) {
    cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
    return NULL;
  }
  size_t out = 0;
  int rc = i->opts.ncs_c == CDR_CS_UTF8 ? cdr_latin1_to_utf8(src, n, d, max, &out)
                                        : cdr_utf8_to_latin1(src, n, d, max, &out);
  if (rc != CDR_OK) {
    cdr_in_fail(i, rc, "string not representable in the native code set");
    return NULL;
  }
  d[out] = 0;
  if (len)
    *len = (uint32_t)out;
  return (char *)d;
}

char *cdr_get_string(cdr_in *i, uint32_t *len)
{
  const char *v;
  uint32_t n;
  if (cdr_get_string_view(i, &v, &n) != CDR_OK)
    return NULL;
  if (i->opts.ncs_c != i->opts.tcs_c)
    return get_string_convert(i, v, n, len);
  char *d = in_alloc(i, (size_t)n + 1, 1);
  if (!d)
    return NULL;
  memcpy(d, v, n);
  d[n] = 0;
  if (len)
    *len = n;
  return d;
}

/* The N octets at S are all ASCII. */
static int is_ascii(const char *s, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    if ((unsigned char)s[k] >= 0x80)
      return 0;
  return 1;
}

int cdr_get_string_utf8(cdr_in *i, const char **s, uint32_t *len)
{
  const char *v;
  uint32_t n;
  int rc = cdr_get_string_view(i, &v, &n);
  if (rc != CDR_OK)
    return rc;
  if (i->opts.tcs_c != CDR_CS_UTF8 && !is_ascii(v, n)) {
    /* ISO-8859-1 octets past ASCII: a UTF-8 copy in the arena, errors
     * recorded at the length field (4 octets before the view). */
    const uint32_t ncs = i->opts.ncs_c;
    size_t after = i->pos;
    i->pos = (size_t)((const uint8_t *)v - i->buf) - 4;
    i->opts.ncs_c = CDR_CS_UTF8;
    v = get_string_convert(i, v, n, &n);
    i->opts.ncs_c = ncs;
    if (!v)
      return i->status;
    i->pos = after;
  }
  *s = v;
  if (len)
    *len = n;
  return CDR_OK;
}

static int in_wide_ok(cdr_in *i)
{
  if (i->status != CDR_OK)
    return 0;
  if (i->opts.giop_minor == 0) {
    cdr_in_fail_reason(i, CDR_E_UNSUPPORTED, CDR_E_WCHAR_GIOP10, "wchar/wstring read in GIOP 1.0");
    return 0;
  }
  if (i->opts.tcs_w == 0) {
    cdr_in_fail_reason(i, CDR_E_CODESET, CDR_E_NO_WCHAR,
                       "wchar/wstring read with no wchar transmission code set");
    return 0;
  }
  return 1;
}

static inline uint16_t unit_at(const uint8_t *p, int be)
{
  return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

/* Decode COUNT UTF-16 units at P into D (room for COUNT code points),
 * combining surrogate pairs (UTF-16).  UCS-2 has no surrogates: a
 * surrogate unit there, paired or not, is CDR_E_CODESET, as
 * cdr_put_wstring() refuses the characters above U+FFFF such a pair
 * stands for.  Returns the number of code points, or -1 (error recorded)
 * on a lone surrogate or a surrogate in UCS-2; with
 * CDR_F_WCHAR_REPLACE_INVALID each such unit becomes U+FFFD instead. */
static long utf16_decode(cdr_in *i, const uint8_t *p, size_t count, int be, cdr_wchar *d)
{
  size_t k = 0, out = 0;
  int replace = (i->opts.flags & CDR_F_WCHAR_REPLACE_INVALID) != 0;
  while (k < count) {
    uint32_t u = unit_at(p + 2 * k, be);
    k++;
    if (u >= 0xD800 && u <= 0xDBFF && k < count && i->opts.tcs_w != CDR_CS_UCS2) {
      uint32_t v = unit_at(p + 2 * k, be);
      if (v >= 0xDC00 && v <= 0xDFFF) {
        k++;
        d[out++] = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00);
        continue;
      }
    }
    if (u >= 0xD800 && u <= 0xDFFF) {
      if (!replace) {
        if (i->opts.tcs_w == CDR_CS_UCS2)
          cdr_in_fail(i, CDR_E_CODESET, "UTF-16 surrogate in a UCS-2 wstring");
        else
          cdr_in_fail(i, CDR_E_VALUE, "lone UTF-16 surrogate");
        return -1;
      }
      u = 0xFFFD;
    }
    d[out++] = u;
  }
  return (long)out;
}

cdr_wchar cdr_get_wchar(cdr_in *i)
{
  if (!in_wide_ok(i))
    return 0;
  uint32_t u;
  if (i->opts.giop_minor >= 2) {
    size_t at = i->pos;
    uint8_t n = cdr_get_octet(i);
    if (i->status != CDR_OK)
      return 0;
    if (n != 2 && n != 4) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_LENGTH, "wchar octet count not 2 or 4");
      return 0;
    }
    const uint8_t *p = cdr_in__take(i, n, 1);
    if (!p)
      return 0;
    int be = !(i->opts.flags & CDR_F_WCHAR_NOBOM_STREAM_ORDER) || i->order == CDR_BIG_ENDIAN;
    if (n == 4) {
      if (p[0] == 0xFE && p[1] == 0xFF)
        be = 1;
      else if (p[0] == 0xFF && p[1] == 0xFE)
        be = 0;
      else {
        cdr_in_fail(i, CDR_E_VALUE, "wchar of 4 octets without a byte-order mark");
        return 0;
      }
      p += 2;
    }
    u = unit_at(p, be);
  } else {
    u = cdr_get_ushort(i);
  }
  if (u >= 0xD800 && u <= 0xDFFF) {
    if (!(i->opts.flags & CDR_F_WCHAR_REPLACE_INVALID)) {
      cdr_in_fail(i, CDR_E_VALUE, "wchar is a UTF-16 surrogate");
      return 0;
    }
    u = 0xFFFD;
  }
  return u;
}

cdr_wchar *cdr_get_wstring(cdr_in *i, uint32_t *len)
{
  if (!in_wide_ok(i))
    return NULL;
  uint32_t n = cdr_get_ulong(i);
  if (i->status != CDR_OK)
    return NULL;
  size_t at = i->pos - 4; /* the length field, after its padding */
  int gi12 = i->opts.giop_minor >= 2;
  uint64_t octets = gi12 ? n : (uint64_t)n * 2;
  if (!gi12 && n == 0) {
    if (!(i->opts.flags & CDR_F_LENIENT_EMPTY_STRING)) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_STRING, "GIOP 1.1 wstring length 0 (no terminating NUL)");
      return NULL;
    }
    n = 1; /* read as the empty wstring: no units follow */
    octets = 0;
  }
  if (gi12 && (n & 1)) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_LENGTH, "wstring octet length is odd");
    return NULL;
  }
  /* GIOP 1.1 units are aligned on 2 (after the ulong length they are). */
  size_t pad = gi12 || !octets ? 0 : ((i->origin - i->pos) & 1);
  if (octets + pad > i->end - i->pos) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_LENGTH, "wstring length exceeds the octets that remain");
    return NULL;
  }
  if (octets > i->opts.max_string) {
    i->pos = at;
    cdr_in_fail(i, CDR_E_LIMIT, "wstring length exceeds the configured maximum");
    return NULL;
  }
  const uint8_t *p = cdr_in__take(i, (size_t)octets, gi12 ? 1 : 2);
  if (!p)
    return NULL;
  size_t units = (size_t)octets / 2;
  int be;
  if (gi12) {
    be = !(i->opts.flags & CDR_F_WCHAR_NOBOM_STREAM_ORDER) || i->order == CDR_BIG_ENDIAN;
    if (units && p[0] == 0xFE && p[1] == 0xFF) {
      be = 1;
      p += 2;
      units--;
    } else if (units && p[0] == 0xFF && p[1] == 0xFE) {
      be = 0;
      p += 2;
      units--;
    }
  } else if (units) {
    be = i->order == CDR_BIG_ENDIAN;
    if (unit_at(p + 2 * (units - 1), be) != 0) {
      i->pos = at;
      cdr_in_fail(i, CDR_E_STRING, "GIOP 1.1 wstring not terminated by NUL");
      return NULL;
    }
    units--;
  } else {
    be = 1; /* lenient empty GIOP 1.1 wstring: no units */
  }
  cdr_wchar *d = in_alloc(i, (units + 1) * sizeof(cdr_wchar), sizeof(cdr_wchar));
  if (!d)
    return NULL;
  size_t after = i->pos;
  i->pos = at; /* content errors are reported at the wstring's length field */
  long cps = utf16_decode(i, p, units, be, d);
  if (cps < 0)
    return NULL;
  for (long k = 0; k < cps; k++)
    if (d[k] == 0) {
      cdr_in_fail(i, CDR_E_STRING, "NUL inside a wstring");
      return NULL;
    }
  i->pos = after;
  d[cps] = 0;
  if (len)
    *len = (uint32_t)cps;
  return d;
}
