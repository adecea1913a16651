/* conv.c - strings whose native and transmission code sets differ
 * (ISO-8859-1 <-> UTF-8), kept out of the streams' fast paths. */
#include "ext.h"

void cdr__put_string_convert(cdr_out *o, const char *s, size_t len)
{
  const uint8_t *src = (const uint8_t *)s;
  /* The exact converted size, so that a string that fits is not refused. */
  size_t max;
  if (o->opts.tcs_c == CDR_CS_UTF8) {
    max = cdr_latin1_utf8_size(src, len);
  } else {
    int rc = cdr_utf8_count(src, len, &max);
    if (rc != CDR_OK) {
      cdr_out_fail(o, rc);
      return;
    }
  }
  if (max >= UINT32_MAX) {
    cdr_out_fail(o, CDR_E_LIMIT);
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
    cdr_out_fail(o, rc);
    return;
  }
  uint32_t lf = (uint32_t)n + 1;
  if (o->swap)
    lf = __builtin_bswap32(lf);
  memcpy(p, &lf, 4);
  p[4 + n] = 0;
  o->pos = (size_t)(p - o->buf) + 4 + n + 1;
}

char *cdr__get_string_convert(cdr_in *i, const char *v, uint32_t n, uint32_t *len)
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
