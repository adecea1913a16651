/* codeset.c - code set names and UTF-8 / UTF-16 / ISO-8859-1 conversions.
 *
 * Every UTF-8 reader goes through one scan (utf8_scan) and every UTF-16
 * reader through another (utf16_scan), so validation, counting and
 * conversion cannot disagree about what is well formed.  Runs of ASCII are
 * taken eight octets at a time. */
#include "internal.h"
#include <cdr/codeset.h>
#include <stdbool.h>

const char *cdr_codeset_name(uint32_t id)
{
  switch (id) {
  case CDR_CS_ISO8859_1: return "ISO-8859-1";
  case CDR_CS_UCS2: return "UCS-2";
  case CDR_CS_UCS4: return "UCS-4";
  case CDR_CS_UTF16: return "UTF-16";
  case CDR_CS_UTF8: return "UTF-8";
  default: return NULL;
  }
}

/* ------------------------------------------------------------------ helpers */

#define ASCII_MASK UINT64_C(0x8080808080808080)

/* True when the 8 octets at P are all ASCII. */
static inline int ascii8(const uint8_t *p)
{
  uint64_t w;
  memcpy(&w, p, 8);
  return (w & ASCII_MASK) == 0;
}

static inline int is_surrogate(uint32_t c) { return (c & 0xFFFFF800u) == 0xD800u; }
static inline int is_scalar(uint32_t c) { return c <= 0x10FFFFu && !is_surrogate(c); }

/* Decode the character starting at S[*I] (*I < N) into *CP and advance *I.
 * Returns 0, or -1 for ill-formed input (Unicode table 3-7): the second
 * octet's range depends on the lead octet, which is what excludes
 * overlongs (E0, F0), surrogates (ED) and values above U+10FFFF (F4). */
static inline int utf8_step(const uint8_t *s, size_t n, size_t *i, uint32_t *cp)
{
  size_t k = *i;
  uint32_t c = s[k];
  if (c < 0x80) {
    *cp = c;
    *i = k + 1;
    return 0;
  }
  if (c < 0xC2)
    return -1; /* continuation octet, or C0/C1 (overlong 2-octet forms) */
  if (c < 0xE0) {
    if (n - k < 2 || (s[k + 1] & 0xC0) != 0x80)
      return -1;
    *cp = (c & 0x1F) << 6 | (s[k + 1] & 0x3Fu);
    *i = k + 2;
    return 0;
  }
  if (c < 0xF0) {
    if (n - k < 3)
      return -1;
    uint32_t c1 = s[k + 1], c2 = s[k + 2];
    uint32_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    if (c1 < lo || c1 > hi || (c2 & 0xC0) != 0x80)
      return -1;
    *cp = (c & 0x0F) << 12 | (c1 & 0x3F) << 6 | (c2 & 0x3F);
    *i = k + 3;
    return 0;
  }
  if (c < 0xF5) {
    if (n - k < 4)
      return -1;
    uint32_t c1 = s[k + 1], c2 = s[k + 2], c3 = s[k + 3];
    uint32_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (c1 < lo || c1 > hi || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80)
      return -1;
    *cp = (c & 0x07) << 18 | (c1 & 0x3F) << 12 | (c2 & 0x3F) << 6 | (c3 & 0x3F);
    *i = k + 4;
    return 0;
  }
  return -1;
}

/* Octets of the UTF-8 form of scalar value C. */
static inline size_t utf8_len(uint32_t c)
{
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/* Write the UTF-8 form of scalar value C at D; returns its length. */
static inline size_t utf8_put(uint8_t *d, uint32_t c)
{
  if (c < 0x80) {
    d[0] = (uint8_t)c;
    return 1;
  }
  if (c < 0x800) {
    d[0] = (uint8_t)(0xC0 | c >> 6);
    d[1] = (uint8_t)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    d[0] = (uint8_t)(0xE0 | c >> 12);
    d[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
    d[2] = (uint8_t)(0x80 | (c & 0x3F));
    return 3;
  }
  d[0] = (uint8_t)(0xF0 | c >> 18);
  d[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
  d[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
  d[3] = (uint8_t)(0x80 | (c & 0x3F));
  return 4;
}

/* ------------------------------------------------------------------ UTF-8 */

/* What a scan does with the characters it validates. */
enum scan_mode { SCAN_COUNT, SCAN_WCHAR, SCAN_LATIN1 };

/* One pass over UTF-8: validates and counts code points; SCAN_WCHAR stores
 * them as cdr_wchar at DST, SCAN_LATIN1 as octets (rejecting those above
 * U+00FF).  CAP is DST's capacity in elements. */
static inline cdr_status utf8_scan(const uint8_t *s, size_t n, enum scan_mode mode, void *dst,
                                   size_t cap, size_t *out_count)
{
  size_t i = 0, o = 0;
  cdr_wchar *dw = dst;
  uint8_t *d8 = dst;
  if (!s && n)
    return CDR_E_INVALID;
  while (i < n) {
    if (n - i >= 8 && ascii8(s + i)) {
      if (mode != SCAN_COUNT) {
        if (cap - o < 8)
          return CDR_E_LIMIT;
        if (mode == SCAN_LATIN1)
          memcpy(d8 + o, s + i, 8);
        else
          for (int j = 0; j < 8; j++)
            dw[o + j] = s[i + j];
      }
      i += 8;
      o += 8;
      continue;
    }
    uint32_t cp;
    if (utf8_step(s, n, &i, &cp) < 0)
      return CDR_E_CODESET;
    if (mode != SCAN_COUNT) {
      if (mode == SCAN_LATIN1 && cp > 0xFF)
        return CDR_E_CODESET;
      if (o == cap)
        return CDR_E_LIMIT;
      if (mode == SCAN_LATIN1)
        d8[o] = (uint8_t)cp;
      else
        dw[o] = cp;
    }
    o++;
  }
  *out_count = o;
  return CDR_OK;
}

cdr_status cdr_utf8_validate(const uint8_t *s, size_t n)
{
  size_t count;
  return utf8_scan(s, n, SCAN_COUNT, NULL, 0, &count);
}

cdr_status cdr_utf8_count(const uint8_t *s, size_t n, size_t *count)
{
  return utf8_scan(s, n, SCAN_COUNT, NULL, 0, count);
}

cdr_status cdr_utf8_decode(const uint8_t *s, size_t n, cdr_wchar *dst, size_t cap, size_t *out_len)
{
  if (!dst && cap)
    return CDR_E_INVALID;
  return utf8_scan(s, n, SCAN_WCHAR, dst, cap, out_len);
}

/* Code units (UTF-8 octets, or UTF-16 16-bit units) that the N scalar
 * values at SRC take; CDR_E_CODESET at a surrogate or a value past
 * U+10FFFF. */
static cdr_status count_units(const cdr_wchar *src, size_t n, size_t *units, bool utf8)
{
  size_t total = 0;
  if (!src && n)
    return CDR_E_INVALID;
  for (size_t i = 0; i < n; i++) {
    if (!is_scalar(src[i]))
      return CDR_E_CODESET;
    total += utf8 ? utf8_len(src[i]) : 1u + (src[i] > 0xFFFF);
  }
  *units = total;
  return CDR_OK;
}

cdr_status cdr_utf8_units(const cdr_wchar *src, size_t n, size_t *units)
{
  return count_units(src, n, units, true);
}

cdr_status cdr_utf8_encode(const cdr_wchar *src, size_t n, uint8_t *dst, size_t cap, size_t *out_len)
{
  size_t o = 0;
  if ((!src && n) || (!dst && cap))
    return CDR_E_INVALID;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = src[i];
    if (!is_scalar(c))
      return CDR_E_CODESET;
    size_t len = utf8_len(c);
    if (cap - o < len)
      return CDR_E_LIMIT;
    o += utf8_put(dst + o, c);
  }
  *out_len = o;
  return CDR_OK;
}

/* ------------------------------------------------------------ ISO-8859-1 */

size_t cdr_latin1_utf8_size(const uint8_t *src, size_t n)
{
  size_t i = 0, total = 0;
  if (!src)
    return 0;
  for (; n - i >= 8; i += 8) {
    uint64_t w;
    memcpy(&w, src + i, 8);
    w &= ASCII_MASK;
    total += 8 + (size_t)__builtin_popcountll(w);
  }
  for (; i < n; i++)
    total += 1 + (src[i] >> 7);
  return total;
}

cdr_status cdr_latin1_to_utf8(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_len)
{
  size_t i = 0, o = 0;
  if ((!src && n) || (!dst && cap))
    return CDR_E_INVALID;
  /* Check the size first so that a short DST is reported before any write;
   * with 2n octets no check is needed. */
  if (cap < cdr_latin1_to_utf8_max(n) && cdr_latin1_utf8_size(src, n) > cap)
    return CDR_E_LIMIT;
  while (i < n) {
    if (n - i >= 8 && ascii8(src + i)) {
      memcpy(dst + o, src + i, 8);
      i += 8;
      o += 8;
      continue;
    }
    uint8_t c = src[i++];
    if (c < 0x80) {
      dst[o++] = c;
    } else {
      dst[o++] = (uint8_t)(0xC0 | c >> 6);
      dst[o++] = (uint8_t)(0x80 | (c & 0x3F));
    }
  }
  *out_len = o;
  return CDR_OK;
}

cdr_status cdr_utf8_to_latin1(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_len)
{
  if (!dst && cap)
    return CDR_E_INVALID;
  return utf8_scan(src, n, SCAN_LATIN1, dst, cap, out_len);
}

/* ----------------------------------------------------------------- UTF-16 */

size_t cdr_utf16_bom(const uint8_t *s, size_t n, int *little)
{
  if (!s || n < 2)
    return 0;
  if (s[0] == 0xFE && s[1] == 0xFF) {
    *little = 0;
    return 2;
  }
  if (s[0] == 0xFF && s[1] == 0xFE) {
    *little = 1;
    return 2;
  }
  return 0;
}

static inline uint32_t unit16(const uint8_t *p, int little)
{
  return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | p[1];
}

/* One pass over UTF-16 (see utf8_scan).  LITTLE is a constant at each call
 * site below, so the byte-order test leaves the loop. */
static inline cdr_status utf16_scan(const uint8_t *s, size_t nbytes, int little, int store,
                                    cdr_wchar *dst, size_t cap, size_t *out_count)
{
  size_t i = 0, o = 0;
  if (nbytes & 1)
    return CDR_E_LENGTH;
  if (!s && nbytes)
    return CDR_E_INVALID;
  while (i < nbytes) {
    uint32_t u = unit16(s + i, little);
    i += 2;
    if (is_surrogate(u)) {
      if (u >= 0xDC00 || nbytes - i < 2)
        return CDR_E_CODESET; /* lone low surrogate, or high at the end */
      uint32_t u2 = unit16(s + i, little);
      if (u2 < 0xDC00 || u2 > 0xDFFF)
        return CDR_E_CODESET; /* high surrogate not followed by a low one */
      i += 2;
      u = 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00);
    }
    if (store) {
      if (o == cap)
        return CDR_E_LIMIT;
      dst[o] = u;
    }
    o++;
  }
  *out_count = o;
  return CDR_OK;
}

cdr_status cdr_utf16_count(const uint8_t *s, size_t nbytes, int little, size_t *count)
{
  return little ? utf16_scan(s, nbytes, 1, 0, NULL, 0, count)
                : utf16_scan(s, nbytes, 0, 0, NULL, 0, count);
}

cdr_status cdr_utf16_decode(const uint8_t *s, size_t nbytes, int little, cdr_wchar *dst, size_t cap,
                            size_t *out_len)
{
  if (!dst && cap)
    return CDR_E_INVALID;
  return little ? utf16_scan(s, nbytes, 1, 1, dst, cap, out_len)
                : utf16_scan(s, nbytes, 0, 1, dst, cap, out_len);
}

cdr_status cdr_utf16_units(const cdr_wchar *src, size_t n, size_t *units)
{
  return count_units(src, n, units, false);
}

static inline void put16(uint8_t *d, uint32_t u, int little)
{
  d[little ? 1 : 0] = (uint8_t)(u >> 8);
  d[little ? 0 : 1] = (uint8_t)u;
}

static inline cdr_status utf16_put_all(const cdr_wchar *src, size_t n, int little, uint8_t *dst,
                                       size_t cap, size_t *out_len)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = src[i];
    if (!is_scalar(c))
      return CDR_E_CODESET;
    if (c < 0x10000) {
      if (cap - o < 2)
        return CDR_E_LIMIT;
      put16(dst + o, c, little);
      o += 2;
    } else {
      if (cap - o < 4)
        return CDR_E_LIMIT;
      c -= 0x10000;
      put16(dst + o, 0xD800 | c >> 10, little);
      put16(dst + o + 2, 0xDC00 | (c & 0x3FF), little);
      o += 4;
    }
  }
  *out_len = o;
  return CDR_OK;
}

cdr_status cdr_utf16_encode(const cdr_wchar *src, size_t n, int little, uint8_t *dst, size_t cap,
                            size_t *out_len)
{
  if ((!src && n) || (!dst && cap))
    return CDR_E_INVALID;
  return little ? utf16_put_all(src, n, 1, dst, cap, out_len)
                : utf16_put_all(src, n, 0, dst, cap, out_len);
}
