/* out.c - the CDR output stream: growth, strings (with their code set
 * conversion), wide strings, bulk arrays, encapsulations.  The primitive writers are inline in cdr/out.h. */
#include "stream_impl.h"
#include "pool_impl.h"
#include "value_impl.h"
#include <sys/uio.h>
#include <cdr/out.h>

static int out_setup(cdr_out *o, const cdr_opts *opts)
{
  o->buf = NULL;
  o->pos = o->lim = o->cap = o->origin = 0;
  o->owned = o->closed = o->depth = 0;
  o->status = CDR_OK;
  o->ext = NULL;
  o->gather = o->nref = 0;
  o->ref_total = 0;
  if (!opts) {
    o->opts = cdr__opts_defaults;
    o->swap = o->opts.byte_order != CDR_HOST_ORDER;
    return CDR_OK;
  }
  o->opts = *opts;
  int rc = cdr__opts_check(&o->opts);
  o->swap = o->opts.byte_order != CDR_HOST_ORDER;
  if (rc != CDR_OK)
    cdr_out_fail(o, rc, "invalid stream options");
  return rc;
}

int cdr_out_init(cdr_out *o, const cdr_opts *opts)
{
  int rc = out_setup(o, opts);
  o->owned = 1;
  return rc;
}

int cdr_out_init_buffer(cdr_out *o, const cdr_opts *opts, void *buf, size_t cap)
{
  int rc = out_setup(o, opts);
  if (rc == CDR_OK && !buf && cap)
    rc = cdr_out_fail(o, CDR_E_INVALID, "NULL buffer of nonzero capacity");
  if (rc == CDR_OK) {
    o->buf = buf;
    o->cap = o->lim = cap;
  }
  return rc;
}

void cdr_out_reset(cdr_out *o)
{
  if (o->closed)
    return;
  if (o->depth)
    o->opts.byte_order = o->encap[0].order; /* the order outside every encapsulation */
  o->pos = 0;
  o->origin = 0;
  o->depth = 0;
  o->nref = 0;
  o->ref_total = 0;
  o->status = CDR_OK;
  o->lim = o->cap < o->opts.max_size ? o->cap : o->opts.max_size;
  o->swap = o->opts.byte_order != CDR_HOST_ORDER;
  if (o->ext)
    ((cdr__ext *)o->ext)->reset(o->ext);
}

static void out_free_buffer(cdr_out *o)
{
  if (o->owned && o->buf) {
    if (o->opts.alloc)
      cdr__free(o->opts.alloc, o->buf);
    else
      cdr__buf_put(o->buf, o->cap);
  }
  o->buf = NULL;
  o->cap = o->lim = 0;
}

void cdr_out_close(cdr_out *o)
{
  if (o->closed)
    return;
  if (o->ext) {
    ((cdr__ext *)o->ext)->release(o->ext);
    o->ext = NULL;
  }
  out_free_buffer(o);
  o->closed = 1;
  o->pos = 0;
  o->nref = 0;
  o->ref_total = 0;
  o->status = o->reason = CDR_E_STATE;
  o->err_msg = "stream closed";
}

int cdr_out_detach(cdr_out *o, uint8_t **data, size_t *len)
{
  if (o->status != CDR_OK)
    return o->status;
  if (o->depth)
    return CDR_E_STATE;
  if (o->nref && cdr_out_flatten(o) != CDR_OK)
    return o->status;
  uint8_t *d = o->buf;
  size_t n = o->pos;
  if (!o->owned) {
    d = cdr__malloc(o->opts.alloc, n ? n : 1);
    if (!d)
      return cdr_out_fail(o, CDR_E_NOMEM, "allocation of the detached copy failed");
    if (n)
      memcpy(d, o->buf, n);
  } else if (!d) {
    d = cdr__malloc(o->opts.alloc, 1);
    if (!d)
      return cdr_out_fail(o, CDR_E_NOMEM, "allocation of the detached buffer failed");
  } else {
    o->buf = NULL; /* ours now; pool buffers come from the global allocator */
  }
  *data = d;
  *len = n;
  cdr_out_close(o);
  return CDR_OK;
}

void cdr_out_buffer_free(const cdr_opts *opts, uint8_t *data)
{
  cdr__free(opts ? opts->alloc : NULL, data);
}

int cdr_out_set_origin(cdr_out *o, size_t pos)
{
  if (o->depth)
    return cdr_out_fail(o, CDR_E_STATE, "origin moved inside an encapsulation");
  o->origin = pos;
  return CDR_OK;
}

int cdr_out_fail_reason(cdr_out *o, int err, int reason, const char *msg)
{
  if (o->status == CDR_OK && err != CDR_OK) {
    o->status = err;
    o->reason = reason;
    o->err_msg = msg ? msg : cdr_strerror(reason);
    o->lim = o->pos;
  }
  return o->status;
}

int cdr_out_fail(cdr_out *o, int err, const char *msg)
{
  return cdr_out_fail_reason(o, err, err, msg);
}

uint8_t *cdr_out__grow(cdr_out *o, size_t n)
{
  if (o->status != CDR_OK)
    return NULL;
  if (o->closed) {
    cdr_out_fail(o, CDR_E_STATE, "stream closed");
    return NULL;
  }
  /* The by-reference segments count against max_size too. */
  size_t max = o->opts.max_size - o->ref_total;
  if (n > max || o->pos > max - n) {
    cdr_out_fail(o, CDR_E_LIMIT, "output larger than opts.max_size");
    return NULL;
  }
  if (!o->owned) {
    cdr_out_fail(o, CDR_E_LIMIT, "write past the end of the caller's fixed buffer");
    return NULL;
  }
  size_t need = o->pos + n;
  size_t ncap = o->cap ? o->cap : CDR_BUF_MIN;
  while (ncap < need)
    ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
  if (ncap > max)
    ncap = max;
  uint8_t *nb;
  if (o->opts.alloc) {
    nb = cdr__realloc(o->opts.alloc, o->buf, ncap);
  } else if (!o->buf) {
    nb = cdr__buf_get(ncap, &ncap);
  } else {
    nb = cdr__realloc(NULL, o->buf, ncap);
  }
  if (!nb) {
    cdr_out_fail(o, CDR_E_NOMEM, "buffer allocation failed");
    return NULL;
  }
  o->buf = nb;
  o->cap = ncap;
  o->lim = ncap < max ? ncap : max; /* a pool buffer may be larger */
  return nb + o->pos;
}

/* ---------------------------------------------------------------- by-reference segments */

void cdr_out_set_gather(cdr_out *o, bool on) { o->gather = on ? 1 : 0; }

/* Whether O may take a run of N octets by reference now. */
static int ref_ok(const cdr_out *o, size_t n)
{
  if (!o->gather || n < CDR_OUT_REF_MIN || o->depth || o->nref >= CDR_OUT_REFS
      || o->status != CDR_OK)
    return 0;
  /* A value graph records buffer positions for its indirections: no
   * segment may come between a value and one that refers to it. */
  const vstate *vs = o->ext;
  return !vs || (vs->nvalues == 0 && vs->reentry == 0);
}

/* Record the N octets at V (N > 0, ref_ok()) as the next segment. */
static void add_ref(cdr_out *o, const void *v, size_t n)
{
  size_t max = o->opts.max_size;
  if (n > max || o->pos + o->ref_total > max - n) {
    cdr_out_fail(o, CDR_E_LIMIT, "output larger than opts.max_size");
    return;
  }
  const uint8_t *p = v;
  unsigned k = o->nref;
  if (k && o->ref[k - 1].at == o->pos && o->ref[k - 1].p + o->ref[k - 1].n == p) {
    o->ref[k - 1].n += n;            /* continues the last segment */
  } else {
    o->ref[k].at = o->pos;
    o->ref[k].p = p;
    o->ref[k].n = n;
    o->nref = (uint8_t)(k + 1);
  }
  o->ref_total += n;
  /* Alignment is (origin - position) modulo 8 at most: moving the origin
   * back by N modulo 8 makes the buffer position stand for the stream's. */
  size_t d = n & 7;
  o->origin = o->origin >= d ? o->origin - d : o->origin + 8 - d;
  size_t room = max - o->ref_total;
  if (o->lim > room)
    o->lim = room;
}

int cdr_out_iov(const cdr_out *o, struct iovec *iov, int max)
{
  int n = 0;
  size_t from = 0;
  for (unsigned k = 0; k <= o->nref; k++) {
    size_t at = k < o->nref ? o->ref[k].at : o->pos;
    if (at > from) {
      if (n >= max)
        return -1;
      iov[n].iov_base = o->buf + from;
      iov[n].iov_len = at - from;
      n++;
      from = at;
    }
    if (k < o->nref) {
      if (n >= max)
        return -1;
      iov[n].iov_base = (void *)o->ref[k].p;
      iov[n].iov_len = o->ref[k].n;
      n++;
    }
  }
  return n;
}

int cdr_out_flatten(cdr_out *o)
{
  if (o->status != CDR_OK || !o->nref)
    return o->status;
  const vstate *vs = o->ext;
  if (o->depth || (vs && (vs->nvalues || vs->reentry)))
    return cdr_out_fail(o, CDR_E_STATE, "segments flattened inside an encapsulation or value");
  size_t total = o->ref_total;
  o->ref_total = 0;                  /* grow() counts them as buffer octets now */
  if (o->lim - o->pos < total && !cdr_out__grow(o, total)) {
    o->ref_total = total;
    return o->status;
  }
  size_t end = o->pos, shift = total;
  for (unsigned k = o->nref; k-- > 0;) {
    size_t at = o->ref[k].at;
    memmove(o->buf + at + shift, o->buf + at, end - at);
    shift -= o->ref[k].n;
    memcpy(o->buf + at + shift, o->ref[k].p, o->ref[k].n);
    end = at;
  }
  o->pos += total;
  o->nref = 0;
  size_t d = total & 7;              /* undo add_ref()'s moves of the origin, modulo 8 */
  o->origin = o->origin + d >= 8 ? o->origin + d - 8 : o->origin + d;
  return CDR_OK;
}

void cdr_put_raw_ref(cdr_out *o, const void *v, size_t n)
{
  if (!ref_ok(o, n)) {
    cdr_put_raw(o, v, n);
    return;
  }
  if (!v) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL octets of nonzero length");
    return;
  }
  add_ref(o, v, n);
}

void cdr_put_seq_ref(cdr_out *o, const void *v, uint32_t n, size_t esize)
{
  if ((esize != 1 && esize != 2 && esize != 4 && esize != 8) || (o->swap && esize > 1)
      || !ref_ok(o, (size_t)n * esize)) {
    cdr_put_seq(o, v, n, esize);
    return;
  }
  if (!v) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL sequence of nonzero length");
    return;
  }
  cdr_put_ulong(o, n);
  cdr_out_align(o, esize);
  if (o->status == CDR_OK)
    add_ref(o, v, (size_t)n * esize);
}

void cdr_put_raw(cdr_out *o, const void *v, size_t n)
{
  uint8_t *p = cdr_out__reserve(o, n, 1);
  if (p && n)
    memcpy(p, v, n);
}

void cdr_out_align(cdr_out *o, size_t align)
{
  if (align > 1)
    (void)cdr_out__reserve(o, 0, align);
}

int cdr_out_patch_ulong(cdr_out *o, size_t pos, uint32_t v, int byte_order)
{
  if (o->status != CDR_OK)
    return o->status;
  if (pos > o->pos || o->pos - pos < 4)
    return CDR_E_INVALID;
  if (byte_order != CDR_HOST_ORDER)
    v = __builtin_bswap32(v);
  memcpy(o->buf + pos, &v, 4);
  return CDR_OK;
}

/* ---------------------------------------------------------------- bulk */

void cdr_put_array(cdr_out *o, const void *v, size_t n, size_t esize)
{
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8) {
    cdr_out_fail(o, CDR_E_INVALID, "array element size not 1, 2, 4 or 8");
    return;
  }
  if (n > SIZE_MAX / esize) {
    cdr_out_fail(o, CDR_E_LIMIT, "array size in octets exceeds SIZE_MAX");
    return;
  }
  if (!n)
    return; /* no elements: no padding either (as omniORB) */
  uint8_t *p = cdr_out__reserve(o, n * esize, esize);
  if (!p || !n)
    return;
  if (o->swap && esize > 1)
    cdr__swap_copy(p, v, n, esize);
  else
    memcpy(p, v, n * esize);
}

void cdr_put_array_boolean(cdr_out *o, const bool *v, size_t n)
{
  const uint8_t *b = (const uint8_t *)v;
  for (size_t k = 0; k < n; k++)
    if (b[k] > 1) {
      cdr_out_fail(o, CDR_E_VALUE, "boolean other than 0 or 1");
      return;
    }
  cdr_put_raw(o, v, n);
}

void cdr_put_seq(cdr_out *o, const void *v, uint32_t n, size_t esize)
{
  cdr_put_ulong(o, n);
  cdr_put_array(o, v, n, esize);
}

/* ---------------------------------------------------------------- encapsulation */

void cdr_out_begin_encap_order(cdr_out *o, int byte_order)
{
  if (o->status != CDR_OK)
    return;
  if (byte_order != CDR_BIG_ENDIAN && byte_order != CDR_LITTLE_ENDIAN) {
    cdr_out_fail(o, CDR_E_INVALID, "encapsulation byte order not 0 or 1");
    return;
  }
  if (o->depth >= CDR_ENCAP_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT, "encapsulation nesting deeper than CDR_ENCAP_MAX");
    return;
  }
  if (o->depth >= o->opts.max_depth) {
    cdr_out_fail(o, CDR_E_LIMIT, "encapsulation nesting deeper than opts.max_depth");
    return;
  }
  cdr_put_ulong(o, 0);
  if (o->status != CDR_OK)
    return;
  unsigned d = o->depth++;
  o->encap[d].len_pos = o->pos - 4;
  o->encap[d].origin = o->origin;
  o->encap[d].order = o->opts.byte_order;
  o->encap[d].swap = o->swap;
  o->origin = o->pos;
  o->opts.byte_order = (uint8_t)byte_order;
  o->swap = byte_order != CDR_HOST_ORDER;
  cdr_put_octet(o, (uint8_t)byte_order);
}

void cdr_out_begin_encap(cdr_out *o)
{
  cdr_out_begin_encap_order(o, o->opts.byte_order);
}

void cdr_out_end_encap(cdr_out *o)
{
  if (o->status != CDR_OK)
    return;
  if (!o->depth) {
    cdr_out_fail(o, CDR_E_STATE, "end of an encapsulation that was not begun");
    return;
  }
  unsigned d = --o->depth;
  size_t len = o->pos - o->origin;
  if (len > UINT32_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT, "encapsulation longer than 2^32-1 octets");
    return;
  }
  o->origin = o->encap[d].origin;
  o->opts.byte_order = o->encap[d].order;
  o->swap = o->encap[d].swap;
  (void)cdr_out_patch_ulong(o, o->encap[d].len_pos, (uint32_t)len, o->opts.byte_order);
}

/* ---------------------------------------------------------------- long double, fixed */

void cdr_put_longdouble(cdr_out *o, long double v)
{
  uint8_t *p = cdr_out__reserve(o, 16, 8);
  if (!p)
    return;
  cdr_u128 b = (o->opts.flags & CDR_F_LDOUBLE_X87) ? cdr_ldouble_to_x87pad(v)
                                                    : cdr_ldouble_to_binary128(v);
  cdr_u128_store(b, o->opts.byte_order == CDR_LITTLE_ENDIAN, p);
}

void cdr_put_fixed(cdr_out *o, const cdr_fixed *f)
{
  uint8_t tmp[CDR_FIXED_WIRE_MAX];
  size_t n;
  int rc = cdr_fixed_encode(f, tmp, sizeof tmp, &n);
  if (rc != CDR_OK) {
    cdr_out_fail(o, rc, "fixed-point value not encodable (digits, scale or a digit out of range)");
    return;
  }
  cdr_put_raw(o, tmp, n);
}

/* ---------------------------------------------------------------- strings */

/* A string of LEN octets known to hold no NUL, whose native and
 * transmission code sets differ (ISO-8859-1 <-> UTF-8): out of line, so
 * that it stays out of the common path of put_string_nonul(). */
static __attribute__((noinline)) void put_string_convert(cdr_out *o, const char *s, size_t len)
{
  const uint8_t *src = (const uint8_t *)s;
  /* The exact converted size, so that a string that fits is not refused. */
  size_t max;
  if (o->opts.tcs_c == CDR_CS_UTF8) {
    max = cdr_latin1_utf8_size(src, len);
  } else {
    int rc = cdr_utf8_count(src, len, &max);
    if (rc != CDR_OK) {
      cdr_out_fail(o, rc, "string not well-formed UTF-8 (the native code set)");
      return;
    }
  }
  if (max >= UINT32_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT, "string longer than 2^32-2 octets");
    return;
  }
  size_t at = o->pos;
  uint8_t *p = cdr_out__reserve(o, 4 + max + 1, 4);
  if (!p)
    return;
  size_t n = 0;
  int rc = o->opts.tcs_c == CDR_CS_UTF8 ? cdr_latin1_to_utf8(src, len, p + 4, max, &n)
                                        : cdr_utf8_to_latin1(src, len, p + 4, max, &n);
  if (rc != CDR_OK) {
    o->pos = at;
    cdr_out_fail(o, rc, "string character not in ISO-8859-1 (the transmission code set)");
    return;
  }
  uint32_t lf = (uint32_t)n + 1;
  if (o->swap)
    lf = __builtin_bswap32(lf);
  memcpy(p, &lf, 4);
  p[4 + n] = 0;
  o->pos = (size_t)(p - o->buf) + 4 + n + 1;
}

/* A string of LEN octets known to hold no NUL, already in the transmission
 * code set: copied into the stream. */
static void put_string_copy(cdr_out *o, const char *s, size_t len)
{
  if (len >= UINT32_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT, "string longer than 2^32-2 octets");
    return;
  }
  uint8_t *p = cdr_out__reserve(o, 4 + len + 1, 4);
  if (!p)
    return;
  uint32_t n = (uint32_t)len + 1;
  if (o->swap)
    n = __builtin_bswap32(n);
  memcpy(p, &n, 4);
  if (len)
    memcpy(p + 4, s, len);
  p[4 + len] = 0;
}

/* A string of LEN octets known to hold no NUL. */
static void put_string_nonul(cdr_out *o, const char *s, size_t len)
{
  if (o->opts.ncs_c != o->opts.tcs_c)
    put_string_convert(o, s, len);
  else
    put_string_copy(o, s, len);
}

void cdr_put_string_n(cdr_out *o, const char *s, size_t len)
{
  if (o->status != CDR_OK)
    return;
  if (!s && len) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL string of nonzero length");
    return;
  }
  if (len && cdr__has_nul(s, len)) {
    cdr_out_fail(o, CDR_E_STRING, "NUL inside a string");
    return;
  }
  put_string_nonul(o, s, len);
}

void cdr_put_string_view(cdr_out *o, const char *s, size_t len)
{
  if (o->status != CDR_OK)
    return;
  if (!s && len) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL string of nonzero length");
    return;
  }
  if (len >= UINT32_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT, "string longer than 2^32-2 octets");
    return;
  }
  if (!ref_ok(o, len)) {
    put_string_copy(o, s, len);
    return;
  }
  cdr_put_ulong(o, (uint32_t)len + 1);
  if (o->status == CDR_OK)
    add_ref(o, s, len);
  cdr_put_octet(o, 0);
}

void cdr_put_string_ref(cdr_out *o, const char *s, size_t len)
{
  if (o->status != CDR_OK)
    return;
  if (!s && len) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL string of nonzero length");
    return;
  }
  if (len && cdr__has_nul(s, len)) {
    cdr_out_fail(o, CDR_E_STRING, "NUL inside a string");
    return;
  }
  if (o->opts.ncs_c != o->opts.tcs_c)
    put_string_convert(o, s, len);
  else
    cdr_put_string_view(o, s, len);
}

void cdr_put_string(cdr_out *o, const char *s)
{
  if (o->status == CDR_OK)
    put_string_nonul(o, s, strlen(s));
}

void cdr_put_string_utf8(cdr_out *o, const char *s)
{
  const uint32_t ncs = o->opts.ncs_c;
  o->opts.ncs_c = CDR_CS_UTF8;
  cdr_put_string(o, s);
  o->opts.ncs_c = ncs;
}

static int out_wide_ok(cdr_out *o)
{
  if (o->status != CDR_OK)
    return 0;
  if (o->opts.giop_minor == 0) {
    cdr_out_fail_reason(o, CDR_E_UNSUPPORTED, CDR_E_WCHAR_GIOP10, "wchar/wstring written in GIOP 1.0");
    return 0;
  }
  if (o->opts.tcs_w == 0) {
    cdr_out_fail_reason(o, CDR_E_CODESET, CDR_E_NO_WCHAR,
                        "wchar/wstring written with no wchar transmission code set");
    return 0;
  }
  return 1;
}

void cdr_put_wchar(cdr_out *o, cdr_wchar c)
{
  if (!out_wide_ok(o))
    return;
  if (c > 0xFFFF || (c >= 0xD800 && c <= 0xDFFF)) {
    cdr_out_fail(o, CDR_E_CODESET, c > 0xFFFF ? "wchar above U+FFFF (one UTF-16 unit)"
                                              : "wchar is a UTF-16 surrogate");
    return;
  }
  if (o->opts.giop_minor >= 2) {
    uint8_t b[3] = { 2, (uint8_t)(c >> 8), (uint8_t)c };
    cdr_put_raw(o, b, 3);
  } else {
    cdr_put_ushort(o, (uint16_t)c);
  }
}

/* The error for wstring character C, which cdr_put_wstring() refuses. */
static void wstring_char_fail(cdr_out *o, cdr_wchar c)
{
  const char *msg = c == 0 ? "NUL inside a wstring"
                    : c > 0x10FFFF ? "wstring character above U+10FFFF"
                    : c > 0xFFFF ? "wstring character above U+FFFF in UCS-2"
                                 : "wstring character is a UTF-16 surrogate";
  cdr_out_fail(o, c == 0 ? CDR_E_STRING : CDR_E_CODESET, msg);
}

void cdr_put_wstring(cdr_out *o, const cdr_wchar *s, size_t len)
{
  if (!out_wide_ok(o))
    return;
  if (!s && len) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL wstring of nonzero length");
    return;
  }
  size_t units = 0;
  for (size_t k = 0; k < len; k++) {
    cdr_wchar c = s[k];
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || c == 0
        || (c > 0xFFFF && o->opts.tcs_w == CDR_CS_UCS2)) {
      wstring_char_fail(o, c);
      return;
    }
    units += c > 0xFFFF ? 2 : 1;
  }
  if (units > (UINT32_MAX - 2) / 2) {
    cdr_out_fail(o, CDR_E_LIMIT, "wstring longer than 2^31-2 UTF-16 units");
    return;
  }
  int gi12 = o->opts.giop_minor >= 2;
  uint32_t lenfield = gi12 ? (units ? (uint32_t)(2 * units + 2) : 0) : (uint32_t)(units + 1);
  cdr_put_ulong(o, lenfield);
  size_t body = gi12 ? lenfield : 2 * (units + 1);
  uint8_t *p = cdr_out__reserve(o, body, gi12 ? 1 : 2);
  if (!p || !body)
    return;
  int be = o->opts.byte_order == CDR_BIG_ENDIAN;
  size_t q = 0;
#define PUT_UNIT(u)                                 \
  do {                                              \
    uint16_t u_ = (uint16_t)(u);                    \
    p[q++] = be ? (uint8_t)(u_ >> 8) : (uint8_t)u_; \
    p[q++] = be ? (uint8_t)u_ : (uint8_t)(u_ >> 8); \
  } while (0)
  if (gi12)
    PUT_UNIT(0xFEFF); /* byte-order mark in the stream's order */
  for (size_t k = 0; k < len; k++) {
    cdr_wchar c = s[k];
    if (c > 0xFFFF) {
      c -= 0x10000;
      PUT_UNIT(0xD800 | (c >> 10));
      PUT_UNIT(0xDC00 | (c & 0x3FF));
    } else {
      PUT_UNIT(c);
    }
  }
  if (!gi12)
    PUT_UNIT(0);
#undef PUT_UNIT
}
