/* tests/fuzz/fuzz_codeset.c - fuzz target: code set conversion
 * (cdr/codeset.h) and the string readers of the CDR input stream that use
 * it (cdr/in.h, cdr/out.h).
 *
 * Input: one mode octet, then the data:
 *   mode 0: octets read as UTF-8 and as ISO-8859-1;
 *   mode 1: octets read as UTF-16 (mode bit 2: little-endian), after an
 *           optional byte-order mark;
 *   mode 2: code points (4 octets each, host order) encoded as UTF-8 and
 *           UTF-16;
 *   mode 3: a configuration octet (byte order, GIOP 1.0/1.1/1.2, char code
 *           sets, wchar code set, flags) and an operation octet (string,
 *           wstring or wchar), then CDR octets read by the input stream.
 *
 * Checks: the validating, counting and converting functions agree with
 * each other (same verdict, counts equal to what decoding writes); what
 * decodes re-encodes to the same octets (UTF-8 and UTF-16 have one form
 * once overlong forms and lone surrogates are refused; ISO-8859-1 to UTF-8
 * and back is the identity); a string, wstring or wchar the stream reads,
 * written back with the same options, reads back the same and writes the
 * same octets again.
 */
#include <cdr/cdr.h>
#include "fuzz.h"

static void check_utf8(const uint8_t *s, size_t n)
{
  size_t count = 0, len = 0, units = 0;
  cdr_status v = cdr_utf8_validate(s, n);
  FUZZ_CHECK(v == CDR_OK || v == CDR_E_CODESET);
  FUZZ_CHECK(cdr_utf8_count(s, n, &count) == v);
  cdr_wchar *cp = malloc((n + 1) * sizeof *cp);
  uint8_t *b = malloc(4 * n + 1);
  FUZZ_CHECK(cp && b);
  FUZZ_CHECK(cdr_utf8_decode(s, n, cp, n, &len) == v);
  if (v == CDR_OK) {
    FUZZ_CHECK(len == count && count <= n);
    if (count > 0)
      FUZZ_CHECK(cdr_utf8_decode(s, n, cp, count - 1, &len) == CDR_E_LIMIT);
    FUZZ_CHECK(cdr_utf8_units(cp, count, &units) == CDR_OK && units == n);
    FUZZ_CHECK(cdr_utf8_encode(cp, count, b, 4 * n + 1, &len) == CDR_OK);
    FUZZ_SAME(b, len, s, n);
    /* To ISO-8859-1 where every character fits, and back. */
    int fits = 1;
    for (size_t k = 0; k < count; k++)
      fits &= cp[k] <= 0xFF;
    cdr_status l = cdr_utf8_to_latin1(s, n, b, n, &len);
    FUZZ_CHECK(l == (fits ? CDR_OK : CDR_E_CODESET));
    if (l == CDR_OK) {
      FUZZ_CHECK(len == count);
      uint8_t *u = malloc(2 * len + 1);
      size_t ulen = 0;
      FUZZ_CHECK(u != NULL);
      FUZZ_CHECK(cdr_latin1_utf8_size(b, len) == n);
      FUZZ_CHECK(cdr_latin1_to_utf8(b, len, u, 2 * len + 1, &ulen) == CDR_OK);
      FUZZ_SAME(u, ulen, s, n);
      free(u);
    }
  } else {
    FUZZ_CHECK(cdr_utf8_to_latin1(s, n, b, n, &len) == CDR_E_CODESET);
  }
  /* The octets as ISO-8859-1: to UTF-8 (valid) and back. */
  size_t need = cdr_latin1_utf8_size(s, n);
  FUZZ_CHECK(need >= n && need <= cdr_latin1_to_utf8_max(n));
  uint8_t *u = malloc(need + 1);
  FUZZ_CHECK(u != NULL);
  FUZZ_CHECK(cdr_latin1_to_utf8(s, n, u, need, &len) == CDR_OK && len == need);
  if (need > 0)
    FUZZ_CHECK(cdr_latin1_to_utf8(s, n, u, need - 1, &len) == CDR_E_LIMIT);
  FUZZ_CHECK(cdr_utf8_validate(u, need) == CDR_OK);
  FUZZ_CHECK(cdr_utf8_to_latin1(u, need, b, n, &len) == CDR_OK);
  FUZZ_SAME(b, len, s, n);
  free(u);
  free(cp);
  free(b);
}

static void check_utf16(const uint8_t *s, size_t n, int little)
{
  size_t skip = cdr_utf16_bom(s, n, &little);
  FUZZ_CHECK(skip == 0 || skip == 2);
  s += skip;
  n -= skip;
  size_t count = 0, len = 0, units = 0;
  cdr_status v = cdr_utf16_count(s, n, little, &count);
  FUZZ_CHECK(v == CDR_OK || v == CDR_E_CODESET || v == CDR_E_LENGTH);
  FUZZ_CHECK(v != CDR_E_LENGTH || n % 2);
  cdr_wchar *cp = malloc((n / 2 + 1) * sizeof *cp);
  uint8_t *b = malloc(2 * n + 4);
  FUZZ_CHECK(cp && b);
  FUZZ_CHECK(cdr_utf16_decode(s, n, little, cp, n / 2, &len) == v);
  if (v == CDR_OK) {
    FUZZ_CHECK(len == count && count <= n / 2);
    FUZZ_CHECK(cdr_utf16_units(cp, count, &units) == CDR_OK && 2 * units == n);
    FUZZ_CHECK(cdr_utf16_encode(cp, count, little, b, 2 * n + 4, &len) == CDR_OK);
    FUZZ_SAME(b, len, s, n);
    /* Through UTF-8 and back. */
    FUZZ_CHECK(cdr_utf8_units(cp, count, &units) == CDR_OK);
    uint8_t *u = malloc(units + 1);
    cdr_wchar *cp2 = malloc((units + 1) * sizeof *cp2);
    FUZZ_CHECK(u && cp2);
    FUZZ_CHECK(cdr_utf8_encode(cp, count, u, units, &len) == CDR_OK && len == units);
    FUZZ_CHECK(cdr_utf8_decode(u, units, cp2, units, &len) == CDR_OK);
    FUZZ_SAME(cp2, len * sizeof *cp2, cp, count * sizeof *cp);
    free(u);
    free(cp2);
  }
  free(cp);
  free(b);
}

static void check_code_points(const uint8_t *s, size_t n)
{
  size_t cnt = n / 4, u8 = 0, u16 = 0, len = 0, len2 = 0;
  cdr_wchar *cp = calloc(cnt + 1, sizeof *cp), *back = malloc((4 * cnt + 1) * sizeof *back);
  uint8_t *b = malloc(4 * cnt + 1);
  FUZZ_CHECK(cp && back && b);
  if (cnt)
    memcpy(cp, s, cnt * sizeof *cp);
  int valid = 1;
  for (size_t k = 0; k < cnt; k++)
    valid &= cp[k] <= 0x10FFFF && !(cp[k] >= 0xD800 && cp[k] <= 0xDFFF);
  cdr_status v8 = cdr_utf8_units(cp, cnt, &u8), v16 = cdr_utf16_units(cp, cnt, &u16);
  FUZZ_CHECK(v8 == (valid ? CDR_OK : CDR_E_CODESET) && v16 == v8);
  FUZZ_CHECK(cdr_utf8_encode(cp, cnt, b, 4 * cnt + 1, &len) == v8);
  if (valid) {
    FUZZ_CHECK(len == u8 && u8 <= 4 * cnt);
    FUZZ_CHECK(cdr_utf8_decode(b, len, back, 4 * cnt + 1, &len2) == CDR_OK);
    FUZZ_SAME(back, len2 * sizeof *back, cp, cnt * sizeof *cp);
  }
  for (int little = 0; little < 2; little++) {
    FUZZ_CHECK(cdr_utf16_encode(cp, cnt, little, b, 4 * cnt + 1, &len) == v16);
    if (!valid)
      continue;
    FUZZ_CHECK(len == 2 * u16);
    FUZZ_CHECK(cdr_utf16_decode(b, len, little, back, 4 * cnt + 1, &len2) == CDR_OK);
    FUZZ_SAME(back, len2 * sizeof *back, cp, cnt * sizeof *cp);
  }
  free(cp);
  free(back);
  free(b);
}

typedef struct strval {
  int op;
  char *s;
  cdr_wchar *w;
  cdr_wchar c;
  uint32_t len;
} strval;

static int read_one(cdr_in *i, int op, strval *v)
{
  v->op = op;
  switch (op) {
  case 0: v->s = cdr_get_string(i, &v->len); break;
  case 1: v->w = cdr_get_wstring(i, &v->len); break;
  default: v->c = cdr_get_wchar(i); break;
  }
  return cdr_in_status(i);
}

static void write_one(cdr_out *o, const strval *v)
{
  switch (v->op) {
  case 0: cdr_put_string_n(o, v->s, v->len); break;
  case 1: cdr_put_wstring(o, v->w, v->len); break;
  default: cdr_put_wchar(o, v->c); break;
  }
}

static void same_val(const strval *a, const strval *b)
{
  switch (a->op) {
  case 0: FUZZ_SAME(a->s, a->len, b->s, b->len); FUZZ_CHECK(b->s[b->len] == 0); break;
  case 1:
    FUZZ_SAME(a->w, a->len * sizeof *a->w, b->w, b->len * sizeof *b->w);
    FUZZ_CHECK(b->w[b->len] == 0);
    break;
  default: FUZZ_CHECK(a->c == b->c); break;
  }
}

static void check_stream(fuzz_in *f)
{
  static const uint32_t tcs_w[4] = { CDR_CS_UTF16, CDR_CS_UTF16, 0, CDR_CS_UCS2 };
  uint8_t cfg = fuzz_byte(f), op = fuzz_byte(f) % 3;
  uint8_t more = fuzz_byte(f);
  cdr_opts o;
  cdr_opts_default(&o);
  o.byte_order = cfg & 1;
  o.giop_minor = (cfg >> 1) % 3;
  switch ((cfg >> 3) & 3) {
  case 1: o.ncs_c = CDR_CS_UTF8; break;
  case 2: o.tcs_c = o.ncs_c = CDR_CS_UTF8; break;
  case 3: o.tcs_c = CDR_CS_UTF8; o.ncs_c = CDR_CS_ISO8859_1; break;
  default: break;
  }
  o.tcs_w = tcs_w[(cfg >> 5) & 3];
  o.flags = more & (CDR_F_LENIENT_EMPTY_STRING | CDR_F_WCHAR_NOBOM_STREAM_ORDER
                    | CDR_F_WCHAR_REPLACE_INVALID);
  if (more & 0x80)
    o.max_string = 1u + (more & 0x70);
  /* Read back without the length limit: a GIOP 1.2 wstring written back
   * carries a byte-order mark the original may have lacked. */
  cdr_opts back = o;
  back.max_string = UINT32_MAX;
  /* A wchar is written big-endian without a byte-order mark whatever the
   * options (CDR_F_WCHAR_NOBOM_STREAM_ORDER is a reading switch for peers
   * that write the stream's order): read it back as written. */
  back.flags &= ~(unsigned)CDR_F_WCHAR_NOBOM_STREAM_ORDER;
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in i;
  strval v1, v2, v3;
  if (cdr_in_init(&i, f->p, f->n, o.byte_order, &o) == CDR_OK) {
    cdr_in_set_arena(&i, &a);
    if (read_one(&i, op, &v1) == CDR_OK) {
      cdr_out w1, w2;
      if (cdr_out_init(&w1, &o) == CDR_OK) {
        write_one(&w1, &v1);
        FUZZ_CHECK(cdr_out_status(&w1) == CDR_OK);
        cdr_in j;
        FUZZ_CHECK(cdr_in_init(&j, cdr_out_data(&w1), cdr_out_size(&w1), o.byte_order, &back) == CDR_OK);
        cdr_in_set_arena(&j, &a);
        FUZZ_CHECK(read_one(&j, op, &v2) == CDR_OK);
        FUZZ_CHECK(cdr_in_remaining(&j) == 0);
        same_val(&v1, &v2);
        FUZZ_CHECK(cdr_out_init(&w2, &o) == CDR_OK);
        write_one(&w2, &v2);
        FUZZ_SAME(cdr_out_data(&w1), cdr_out_size(&w1), cdr_out_data(&w2), cdr_out_size(&w2));
        cdr_in k;
        FUZZ_CHECK(cdr_in_init(&k, cdr_out_data(&w2), cdr_out_size(&w2), o.byte_order, &back) == CDR_OK);
        cdr_in_set_arena(&k, &a);
        FUZZ_CHECK(read_one(&k, op, &v3) == CDR_OK);
        same_val(&v2, &v3);
        cdr_in_close(&k);
        cdr_in_close(&j);
        cdr_out_close(&w2);
      }
      cdr_out_close(&w1);
    }
  }
  cdr_in_close(&i);
  cdr_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in f = { data, size };
  unsigned mode = fuzz_byte(&f);
  switch (mode & 3) {
  case 0: check_utf8(f.p, f.n); break;
  case 1: check_utf16(f.p, f.n, (mode >> 2) & 1); break;
  case 2: check_code_points(f.p, f.n); break;
  default: check_stream(&f); break;
  }
  return 0;
}
