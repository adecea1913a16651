/* check_codeset.c - code set names, UTF-8, ISO-8859-1 and UTF-16 conversions
 * (cdr/codeset.h), case C18 of docs/hostile-input.md included. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include "testutil.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define UNTOUCHED ((size_t)0xDEADBEEF)
/* For hot loops: Check's own assertions each write a mark point to a pipe. */
#define REQUIRE(c)                                                                                 \
  do {                                                                                             \
    if (!(c))                                                                                      \
      ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);                                           \
  } while (0)

/* Deterministic PRNG (xorshift64*), so failures reproduce. */
static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);
static uint64_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}

/* A random Unicode scalar value, biased towards each encoding length. */
static cdr_wchar random_scalar(void)
{
  static const uint32_t top[] = {0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
  for (;;) {
    uint32_t c = (uint32_t)(rng() % (top[rng() % 4] + 1));
    if (c < 0xD800 || c > 0xDFFF)
      return c;
  }
}

/* Independent reference: the code point of a well-formed UTF-8 sequence at
 * S (length N exactly), or -1.  Decodes the bit pattern generically and
 * then applies the rules (shortest form, no surrogates, <= U+10FFFF). */
static long ref_utf8_one(const uint8_t *s, size_t n)
{
  static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  size_t len;
  uint32_t c;
  if (s[0] < 0x80)
    len = 1, c = s[0];
  else if ((s[0] & 0xE0) == 0xC0)
    len = 2, c = s[0] & 0x1F;
  else if ((s[0] & 0xF0) == 0xE0)
    len = 3, c = s[0] & 0x0F;
  else if ((s[0] & 0xF8) == 0xF0)
    len = 4, c = s[0] & 0x07;
  else
    return -1;
  if (len != n)
    return -1;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return -1;
    c = c << 6 | (s[i] & 0x3F);
  }
  if (c < min[len] || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
    return -1;
  return c;
}

START_TEST(test_names)
{
  ck_assert_str_eq(cdr_codeset_name(CDR_CS_ISO8859_1), "ISO-8859-1");
  ck_assert_str_eq(cdr_codeset_name(CDR_CS_UTF8), "UTF-8");
  ck_assert_str_eq(cdr_codeset_name(CDR_CS_UTF16), "UTF-16");
  ck_assert_str_eq(cdr_codeset_name(CDR_CS_UCS2), "UCS-2");
  ck_assert_str_eq(cdr_codeset_name(CDR_CS_UCS4), "UCS-4");
  ck_assert_uint_eq(CDR_CS_ISO8859_1, 0x00010001);
  ck_assert_uint_eq(CDR_CS_UTF8, 0x05010001);
  ck_assert_uint_eq(CDR_CS_UTF16, 0x00010109);
  ck_assert_uint_eq(CDR_CS_UCS2, 0x00010100);
  ck_assert_uint_eq(CDR_CS_UCS4, 0x00010106);
  ck_assert_ptr_null(cdr_codeset_name(0));
  ck_assert_ptr_null(cdr_codeset_name(0x00010002));
  ck_assert_ptr_null(cdr_codeset_name(0xFFFFFFFF));
}
END_TEST

/* Each well-formed boundary sequence and the code point it encodes. */
static const struct {
  const char *s;
  uint32_t cp;
} utf8_good[] = {
  {"\x00", 0x0},
  {"\x7F", 0x7F},
  {"\xC2\x80", 0x80},
  {"\xDF\xBF", 0x7FF},
  {"\xE0\xA0\x80", 0x800},
  {"\xED\x9F\xBF", 0xD7FF},
  {"\xEE\x80\x80", 0xE000},
  {"\xEF\xBF\xBF", 0xFFFF},
  {"\xF0\x90\x80\x80", 0x10000},
  {"\xF4\x8F\xBF\xBF", 0x10FFFF},
};

/* One example per rejection class. */
static const char *const utf8_bad[] = {
  "\x80",             /* continuation octet where a character starts */
  "\xBF",
  "\xC0\x80",         /* overlong 2-octet (C0, C1 never valid) */
  "\xC1\xBF",
  "\xE0\x80\x80",     /* overlong 3-octet */
  "\xE0\x9F\xBF",
  "\xF0\x80\x80\x80", /* overlong 4-octet */
  "\xF0\x8F\xBF\xBF",
  "\xED\xA0\x80",     /* surrogates U+D800 .. U+DFFF */
  "\xED\xBF\xBF",
  "\xF4\x90\x80\x80", /* above U+10FFFF */
  "\xF5\x80\x80\x80",
  "\xF7\xBF\xBF\xBF",
  "\xF8\x88\x80\x80\x80", /* 5- and 6-octet forms */
  "\xFC\x84\x80\x80\x80\x80",
  "\xFE",
  "\xFF",
  "\xC2",             /* truncated by the end of the input */
  "\xE0\xA0",
  "\xF0\x90\x80",
  "\xC2\x41",         /* truncated by a non-continuation octet */
  "\xE1\x80\x41",
  "\xF1\x80\x80\x41",
  "\xE1\x41\x80",
};

START_TEST(test_utf8_classes)
{
  for (size_t i = 0; i < ARRAY_LEN(utf8_good); i++) {
    const uint8_t *s = (const uint8_t *)utf8_good[i].s;
    size_t n = utf8_good[i].cp == 0 ? 1 : strlen(utf8_good[i].s), count = UNTOUCHED, len = UNTOUCHED;
    cdr_wchar w = 0;
    uint8_t back[4];
    ck_assert_int_eq(cdr_utf8_validate(s, n), CDR_OK);
    ck_assert_int_eq(cdr_utf8_count(s, n, &count), CDR_OK);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(cdr_utf8_decode(s, n, &w, 1, &len), CDR_OK);
    ck_assert_uint_eq(len, 1);
    ck_assert_uint_eq(w, utf8_good[i].cp);
    ck_assert_int_eq(cdr_utf8_encode(&w, 1, back, sizeof back, &len), CDR_OK);
    ck_assert_uint_eq(len, n);
    ck_assert_mem_eq(back, s, n);
  }
  for (size_t i = 0; i < ARRAY_LEN(utf8_bad); i++) {
    const uint8_t *s = (const uint8_t *)utf8_bad[i];
    size_t n = strlen(utf8_bad[i]), count = UNTOUCHED, len = UNTOUCHED;
    cdr_wchar w[8];
    uint8_t l1[8];
    ck_assert_msg(cdr_utf8_validate(s, n) == CDR_E_CODESET, "case %zu accepted", i);
    ck_assert_int_eq(cdr_utf8_count(s, n, &count), CDR_E_CODESET);
    ck_assert_uint_eq(count, UNTOUCHED);
    ck_assert_int_eq(cdr_utf8_decode(s, n, w, ARRAY_LEN(w), &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf8_to_latin1(s, n, l1, sizeof l1, &len), CDR_E_CODESET);
    ck_assert_uint_eq(len, UNTOUCHED);
  }
  /* Empty input and NULL handling. */
  size_t count = UNTOUCHED;
  ck_assert_int_eq(cdr_utf8_validate(NULL, 0), CDR_OK);
  ck_assert_int_eq(cdr_utf8_count(NULL, 0, &count), CDR_OK);
  ck_assert_uint_eq(count, 0);
  ck_assert_int_eq(cdr_utf8_validate(NULL, 1), CDR_E_INVALID);
}
END_TEST

/* Reference validator for strings: UTF-8 is prefix-free, so at each
 * position at most one length gives a well-formed character. */
static int ref_utf8_valid(const uint8_t *s, size_t n)
{
  size_t i = 0;
  while (i < n) {
    size_t len = 1;
    while (len <= 4 && (i + len > n || ref_utf8_one(s + i, len) < 0))
      len++;
    if (len > 4)
      return 0;
    i += len;
  }
  return 1;
}

/* Every 1-, 2- and 3-octet input, and 4-octet inputs over every lead and
 * second/third octet, against the reference. */
START_TEST(test_utf8_exhaustive)
{
  uint8_t s[4];
  for (uint32_t v = 0; v < (1u << 24); v++) {
    s[0] = (uint8_t)(v >> 16);
    s[1] = (uint8_t)(v >> 8);
    s[2] = (uint8_t)v;
    for (size_t n = 1; n <= 3; n++) {
      if (n < 3 && (v & ((1u << (8 * (3 - n))) - 1)) != 0)
        continue; /* shorter inputs: visit each once */
      /* Plain ifs: a Check assertion per input would cost a pipe write. */
      if ((cdr_utf8_validate(s, n) == CDR_OK) != ref_utf8_valid(s, n))
        ck_abort_msg("validate disagrees on %06x/%zu", v, n);
      long one = ref_utf8_one(s, n);
      if (one >= 0) {
        size_t len = 0;
        cdr_wchar w = 0;
        if (cdr_utf8_decode(s, n, &w, 1, &len) != CDR_OK || len != 1 || w != (uint32_t)one)
          ck_abort_msg("decode of %06x/%zu", v, n);
      }
    }
  }
  static const uint8_t last[] = {0x00, 0x7F, 0x80, 0xBF, 0xC0};
  for (uint32_t lead = 0xF0; lead <= 0xF7; lead++)
    for (uint32_t b1 = 0; b1 < 256; b1++)
      for (uint32_t b2 = 0; b2 < 256; b2++)
        for (size_t k = 0; k < ARRAY_LEN(last); k++) {
          s[0] = (uint8_t)lead, s[1] = (uint8_t)b1, s[2] = (uint8_t)b2, s[3] = last[k];
          if ((cdr_utf8_validate(s, 4) == CDR_OK) != ref_utf8_valid(s, 4))
            ck_abort_msg("validate disagrees on %02x %02x %02x %02x", s[0], s[1], s[2], s[3]);
        }
}
END_TEST

/* The eight-octet ASCII fast path: a bad octet at every position of a long
 * ASCII run is still found, and never read past the end. */
START_TEST(test_utf8_fast_path)
{
  for (size_t n = 1; n <= 40; n++) {
    uint8_t *s = malloc(n); /* exact size, so ASan sees any overread */
    ck_assert_ptr_nonnull(s);
    memset(s, 'a', n);
    size_t count = 0;
    REQUIRE(cdr_utf8_count(s, n, &count) == CDR_OK);
    REQUIRE(count == n);
    for (size_t bad = 0; bad < n; bad++) {
      s[bad] = 0x80;
      REQUIRE(cdr_utf8_validate(s, n) == CDR_E_CODESET);
      s[bad] = 0xC3; /* truncated 2-octet sequence when last, else C3 61 */
      REQUIRE(cdr_utf8_validate(s, n) == CDR_E_CODESET);
      if (bad + 1 < n) {
        s[bad + 1] = 0xA9; /* U+00E9 */
        REQUIRE(cdr_utf8_count(s, n, &count) == CDR_OK);
        REQUIRE(count == n - 1);
        s[bad + 1] = 'a';
      }
      s[bad] = 'a';
    }
    free(s);
  }
}
END_TEST

/* Every scalar value through UTF-8 and back in one string. */
START_TEST(test_utf8_all_scalars)
{
  size_t n = 0x110000 - 0x800;
  cdr_wchar *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *back);
  uint8_t *u = malloc(4 * n);
  ck_assert(w && back && u);
  for (uint32_t c = 0, i = 0; c < 0x110000; c++)
    if (c < 0xD800 || c > 0xDFFF)
      w[i++] = c;
  size_t units = 0, len = 0, count = 0;
  ck_assert_int_eq(cdr_utf8_units(w, n, &units), CDR_OK);
  /* 128 one-octet, 1920 two-octet, 61440 three-octet, 1048576 four-octet */
  ck_assert_uint_eq(units, 128 + 2 * 1920 + 3 * (0x10000 - 0x800 - 0x800) + 4 * 0x100000);
  ck_assert_int_eq(cdr_utf8_encode(w, n, u, units, &len), CDR_OK);
  ck_assert_uint_eq(len, units);
  ck_assert_int_eq(cdr_utf8_validate(u, len), CDR_OK);
  ck_assert_int_eq(cdr_utf8_count(u, len, &count), CDR_OK);
  ck_assert_uint_eq(count, n);
  ck_assert_int_eq(cdr_utf8_decode(u, len, back, n, &count), CDR_OK);
  ck_assert_uint_eq(count, n);
  ck_assert_mem_eq(back, w, n * sizeof *w);
  /* One octet short: CDR_E_LIMIT, and the count is left alone. */
  count = UNTOUCHED;
  ck_assert_int_eq(cdr_utf8_encode(w, n, u, units - 1, &count), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf8_decode(u, len, back, n - 1, &count), CDR_E_LIMIT);
  ck_assert_uint_eq(count, UNTOUCHED);
  free(w);
  free(back);
  free(u);
}
END_TEST

START_TEST(test_utf8_encode_rejects)
{
  static const cdr_wchar bad[] = {0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000, 0xFFFFFFFF};
  uint8_t out[16];
  for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
    cdr_wchar w[3] = {'x', bad[i], 'y'};
    size_t len = UNTOUCHED;
    ck_assert_int_eq(cdr_utf8_units(w, 3, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf8_encode(w, 3, out, sizeof out, &len), CDR_E_CODESET);
    ck_assert_uint_eq(len, UNTOUCHED);
  }
  size_t len = UNTOUCHED;
  ck_assert_int_eq(cdr_utf8_encode(NULL, 0, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(cdr_utf8_encode(NULL, 1, out, sizeof out, &len), CDR_E_INVALID);
  cdr_wchar w = 0x20AC;
  ck_assert_int_eq(cdr_utf8_encode(&w, 1, out, 2, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf8_encode(&w, 1, out, 3, &len), CDR_OK);
  ck_assert_mem_eq(out, "\xE2\x82\xAC", 3);
  cdr_wchar dummy;
  ck_assert_int_eq(cdr_utf8_decode((const uint8_t *)"a", 1, NULL, 0, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf8_decode((const uint8_t *)"a", 1, NULL, 1, &len), CDR_E_INVALID);
  ck_assert_int_eq(cdr_utf8_decode(NULL, 0, &dummy, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
}
END_TEST

/* All 256 ISO-8859-1 octets to UTF-8 (exact octets) and back. */
START_TEST(test_latin1_all)
{
  uint8_t l1[256], u8[512], back[256];
  for (int i = 0; i < 256; i++)
    l1[i] = (uint8_t)i;
  ck_assert_uint_eq(cdr_latin1_utf8_size(l1, 256), 128 + 2 * 128);
  ck_assert_uint_eq(cdr_latin1_to_utf8_max(256), 512);
  ck_assert_uint_eq(cdr_latin1_to_utf8_max(SIZE_MAX), SIZE_MAX);
  ck_assert_uint_eq(cdr_utf8_to_latin1_max(7), 7);
  size_t len = 0;
  ck_assert_int_eq(cdr_latin1_to_utf8(l1, 256, u8, sizeof u8, &len), CDR_OK);
  ck_assert_uint_eq(len, 384);
  for (int i = 0; i < 128; i++)
    ck_assert_uint_eq(u8[i], i);
  for (int i = 128; i < 256; i++) {
    ck_assert_uint_eq(u8[128 + 2 * (i - 128)], 0xC0 | i >> 6);
    ck_assert_uint_eq(u8[128 + 2 * (i - 128) + 1], 0x80 | (i & 0x3F));
  }
  ck_assert_mem_eq(u8 + 128, "\xC2\x80", 2);
  ck_assert_mem_eq(u8 + 382, "\xC3\xBF", 2);
  ck_assert_int_eq(cdr_utf8_validate(u8, len), CDR_OK);
  size_t back_len = 0;
  ck_assert_int_eq(cdr_utf8_to_latin1(u8, len, back, sizeof back, &back_len), CDR_OK);
  ck_assert_uint_eq(back_len, 256);
  ck_assert_mem_eq(back, l1, 256);
  /* Each octet alone too (exercises the non-block path), and unaligned
   * runs for the eight-octet path. */
  for (int i = 0; i < 256; i++) {
    uint8_t one = (uint8_t)i, two[2], b;
    size_t n2, n1;
    ck_assert_int_eq(cdr_latin1_to_utf8(&one, 1, two, 2, &n2), CDR_OK);
    ck_assert_uint_eq(n2, i < 128 ? 1 : 2);
    ck_assert_int_eq(cdr_utf8_to_latin1(two, n2, &b, 1, &n1), CDR_OK);
    ck_assert_uint_eq(n1, 1);
    ck_assert_uint_eq(b, i);
  }
  for (size_t off = 0; off < 16; off++) {
    ck_assert_int_eq(cdr_latin1_to_utf8(l1 + off, 200, u8, sizeof u8, &len), CDR_OK);
    ck_assert_int_eq(cdr_utf8_to_latin1(u8, len, back, sizeof back, &back_len), CDR_OK);
    ck_assert_uint_eq(back_len, 200);
    ck_assert_mem_eq(back, l1 + off, 200);
  }
}
END_TEST

START_TEST(test_latin1_errors)
{
  uint8_t out[8];
  size_t len = UNTOUCHED;
  /* Characters above U+00FF cannot be represented. */
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"a\xC4\x80", 3, out, sizeof out, &len),
                   CDR_E_CODESET);
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"\xE2\x82\xAC", 3, out, sizeof out, &len),
                   CDR_E_CODESET);
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"\xF0\x9F\x82\xA1", 4, out, sizeof out, &len),
                   CDR_E_CODESET);
  ck_assert_uint_eq(len, UNTOUCHED);
  /* Short output. */
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"abc", 3, out, 2, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"abcdefghij", 10, out, 8, &len), CDR_E_LIMIT);
  ck_assert_uint_eq(len, UNTOUCHED);
  /* Latin-1 -> UTF-8 checks the size before writing anything. */
  memset(out, 0x55, sizeof out);
  ck_assert_int_eq(cdr_latin1_to_utf8((const uint8_t *)"ab\xE9", 3, out, 3, &len), CDR_E_LIMIT);
  ck_assert_uint_eq(len, UNTOUCHED);
  for (size_t i = 0; i < sizeof out; i++)
    ck_assert_uint_eq(out[i], 0x55);
  ck_assert_int_eq(cdr_latin1_to_utf8((const uint8_t *)"ab\xE9", 3, out, 4, &len), CDR_OK);
  ck_assert_uint_eq(len, 4);
  ck_assert_mem_eq(out, "ab\xC3\xA9", 4);
  /* Empty and NULL. */
  ck_assert_int_eq(cdr_latin1_to_utf8(NULL, 0, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  len = UNTOUCHED;
  ck_assert_int_eq(cdr_utf8_to_latin1(NULL, 0, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(cdr_latin1_to_utf8(NULL, 1, out, sizeof out, &len), CDR_E_INVALID);
  ck_assert_int_eq(cdr_latin1_to_utf8((const uint8_t *)"a", 1, NULL, 4, &len), CDR_E_INVALID);
  ck_assert_int_eq(cdr_utf8_to_latin1((const uint8_t *)"a", 1, NULL, 0, &len), CDR_E_LIMIT);
  ck_assert_uint_eq(cdr_latin1_utf8_size(NULL, 0), 0);
}
END_TEST

/* Case C18 (docs/hostile-input.md): GIOP 1.2 wstrings in UTF-16 as the stream will hand them
 * over (the octets after the length). */
START_TEST(test_utf16_c18)
{
  cdr_wchar w[8];
  size_t len = UNTOUCHED, skip, count;
  int little = -1;

  /* (a) FE FF D8 3C DC A1 00 41 00 42 = U+1F0A1 'A' 'B' */
  static const uint8_t a[] = {0xFE, 0xFF, 0xD8, 0x3C, 0xDC, 0xA1, 0x00, 0x41, 0x00, 0x42};
  skip = cdr_utf16_bom(a, sizeof a, &little);
  ck_assert_uint_eq(skip, 2);
  ck_assert_int_eq(little, 0);
  ck_assert_int_eq(cdr_utf16_count(a + skip, sizeof a - skip, little, &count), CDR_OK);
  ck_assert_uint_eq(count, 3);
  ck_assert_int_eq(cdr_utf16_decode(a + skip, sizeof a - skip, little, w, ARRAY_LEN(w), &len), CDR_OK);
  ck_assert_uint_eq(len, 3);
  ck_assert_uint_eq(w[0], 0x1F0A1);
  ck_assert_uint_eq(w[1], 'A');
  ck_assert_uint_eq(w[2], 'B');

  /* (b) FF FE 3C D8 A1 DC = U+1F0A1 */
  static const uint8_t b[] = {0xFF, 0xFE, 0x3C, 0xD8, 0xA1, 0xDC};
  little = -1;
  skip = cdr_utf16_bom(b, sizeof b, &little);
  ck_assert_uint_eq(skip, 2);
  ck_assert_int_eq(little, 1);
  ck_assert_int_eq(cdr_utf16_decode(b + skip, sizeof b - skip, little, w, ARRAY_LEN(w), &len), CDR_OK);
  ck_assert_uint_eq(len, 1);
  ck_assert_uint_eq(w[0], 0x1F0A1);

  /* (c) an odd octet length 7: CDR_E_LENGTH in either order, before any
   * other check (the data also ends in a lone surrogate). */
  static const uint8_t c[] = {0x00, 0x41, 0x00, 0x42, 0xD8, 0x3C, 0xDC};
  len = UNTOUCHED;
  ck_assert_int_eq(cdr_utf16_decode(c, 7, 0, w, ARRAY_LEN(w), &len), CDR_E_LENGTH);
  ck_assert_int_eq(cdr_utf16_decode(c, 7, 1, w, ARRAY_LEN(w), &len), CDR_E_LENGTH);
  ck_assert_int_eq(cdr_utf16_count(c, 7, 0, &len), CDR_E_LENGTH);
  ck_assert_int_eq(cdr_utf16_count(c, 1, 0, &len), CDR_E_LENGTH);
  ck_assert_uint_eq(len, UNTOUCHED);

  /* (d) a lone high surrogate D8 3C: CDR_E_CODESET (never U+FFFD) */
  static const uint8_t d[] = {0xD8, 0x3C};
  ck_assert_int_eq(cdr_utf16_decode(d, 2, 0, w, ARRAY_LEN(w), &len), CDR_E_CODESET);
  ck_assert_int_eq(cdr_utf16_count(d, 2, 0, &len), CDR_E_CODESET);
  ck_assert_uint_eq(len, UNTOUCHED);
  little = 7;
  ck_assert_uint_eq(cdr_utf16_bom(d, 2, &little), 0); /* no BOM: caller's order stands */
  ck_assert_int_eq(little, 7);

  /* (e) length 0: the empty wstring */
  ck_assert_uint_eq(cdr_utf16_bom(NULL, 0, &little), 0);
  ck_assert_int_eq(cdr_utf16_decode(NULL, 0, 0, NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  len = UNTOUCHED;
  ck_assert_int_eq(cdr_utf16_count(a, 0, 1, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  /* A BOM alone is an empty string too. */
  skip = cdr_utf16_bom(b, 2, &little);
  ck_assert_uint_eq(skip, 2);
  ck_assert_int_eq(cdr_utf16_decode(b + 2, 0, little, w, ARRAY_LEN(w), &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
}
END_TEST

/* UCS-2 has no surrogates, one rule both ways: the reader refuses a
 * surrogate pair (CDR_E_CODESET, which the server answers with
 * DATA_CONVERSION 1) where UTF-16 joins it into U+1F60E, and the writer
 * refuses U+1F60E (tests/fuzz/corpus/codeset/ucs2-surrogate-pair-wstring). */
START_TEST(test_ucs2_surrogates_refused_both_ways)
{
  static const uint8_t gi11[] = { 0x03, 0, 0, 0, 0x3d, 0xd8, 0x0e, 0xde, 0, 0 };
  static const uint8_t gi12[] = { 0x04, 0, 0, 0, 0xd8, 0x3d, 0xde, 0x0e };
  static const uint8_t gi12_utf16[] = { 0x06, 0, 0, 0, 0xff, 0xfe, 0x3d, 0xd8, 0x0e, 0xde };
  static const cdr_wchar face[] = { 0x1F60E };
  for (int minor = 1; minor <= 2; minor++) {
    const uint8_t *in = minor == 1 ? gi11 : gi12;
    size_t n = minor == 1 ? sizeof gi11 : sizeof gi12;
    cdr_opts o;
    cdr_opts_default(&o);
    o.giop_minor = (uint8_t)minor;
    o.byte_order = CDR_LITTLE_ENDIAN;
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    cdr_in i;
    uint32_t len = 0;
    /* UTF-16: the pair is one character, written back as it came (GIOP
     * 1.2 with a byte-order mark). */
    ck_assert_int_eq(cdr_in_init(&i, in, n, CDR_LITTLE_ENDIAN, &o), CDR_OK);
    cdr_in_set_arena(&i, &a);
    cdr_wchar *w = cdr_get_wstring(&i, &len);
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(len, 1);
    ck_assert_uint_eq(w[0], 0x1F60E);
    cdr_in_close(&i);
    cdr_out out;
    ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
    cdr_put_wstring(&out, face, 1);
    ck_assert_int_eq(cdr_out_status(&out), CDR_OK);
    if (minor == 1)
      TU_ASSERT_BYTES(cdr_out_data(&out), cdr_out_size(&out), gi11, sizeof gi11);
    else
      TU_ASSERT_BYTES(cdr_out_data(&out), cdr_out_size(&out), gi12_utf16, sizeof gi12_utf16);
    cdr_out_close(&out);
    /* UCS-2: read, refused at the wstring's length field. */
    o.tcs_w = CDR_CS_UCS2;
    ck_assert_int_eq(cdr_in_init(&i, in, n, CDR_LITTLE_ENDIAN, &o), CDR_OK);
    cdr_in_set_arena(&i, &a);
    ck_assert_ptr_null(cdr_get_wstring(&i, &len));
    ck_assert_int_eq(cdr_in_status(&i), CDR_E_CODESET);
    ck_assert_int_eq(cdr_in_error_reason(&i), CDR_E_CODESET);
    ck_assert_uint_eq(cdr_in_error_offset(&i), 0);
    ck_assert_str_eq(cdr_in_error_message(&i), "UTF-16 surrogate in a UCS-2 wstring");
    ck_assert_str_eq(cdr_status_exception(cdr_in_error_reason(&i)), "DATA_CONVERSION");
    ck_assert_uint_eq(cdr_status_minor(cdr_in_error_reason(&i)), 1);
    cdr_in_close(&i);
    /* ... or each surrogate unit replaced, when asked. */
    o.flags = CDR_F_WCHAR_REPLACE_INVALID;
    ck_assert_int_eq(cdr_in_init(&i, in, n, CDR_LITTLE_ENDIAN, &o), CDR_OK);
    cdr_in_set_arena(&i, &a);
    w = cdr_get_wstring(&i, &len);
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(len, 2);
    ck_assert_uint_eq(w[0], 0xFFFD);
    ck_assert_uint_eq(w[1], 0xFFFD);
    cdr_in_close(&i);
    o.flags = 0;
    /* UCS-2: written, refused, nothing written. */
    ck_assert_int_eq(cdr_out_init(&out, &o), CDR_OK);
    cdr_put_wstring(&out, face, 1);
    ck_assert_int_eq(cdr_out_status(&out), CDR_E_CODESET);
    ck_assert_str_eq(cdr_out_error_message(&out), "wstring character above U+FFFF in UCS-2");
    ck_assert_uint_eq(cdr_out_size(&out), 0);
    cdr_out_close(&out);
    cdr_arena_free(&a);
  }
}
END_TEST

START_TEST(test_utf16_surrogate_errors)
{
  static const struct {
    uint8_t be[6];
    size_t n;
  } bad[] = {
    {{0xDC, 0xA1}, 2},                         /* lone low surrogate */
    {{0xDC, 0x00, 0xDC, 0x00}, 4},             /* low followed by low */
    {{0xDF, 0xFF, 0xDC, 0x00}, 4},
    {{0x00, 0x41, 0xDC, 0x00}, 4},             /* low after a BMP character */
    {{0xD8, 0x3C, 0x00, 0x41}, 4},             /* high followed by a BMP character */
    {{0xD8, 0x3C, 0xE0, 0x00}, 4},             /* ... just above the low range */
    {{0xD8, 0x3C, 0xD8, 0x3C, 0xDC, 0xA1}, 6}, /* high followed by high */
    {{0xDB, 0xFF}, 2},                         /* high at the end */
    {{0x00, 0x41, 0xDF, 0xFF, 0xD8, 0x00}, 6},
  };
  for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
    uint8_t le[6];
    for (size_t k = 0; k < bad[i].n; k += 2)
      le[k] = bad[i].be[k + 1], le[k + 1] = bad[i].be[k];
    cdr_wchar w[4];
    size_t len = UNTOUCHED;
    ck_assert_int_eq(cdr_utf16_decode(bad[i].be, bad[i].n, 0, w, 4, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf16_decode(le, bad[i].n, 1, w, 4, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf16_count(bad[i].be, bad[i].n, 0, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf16_count(le, bad[i].n, 1, &len), CDR_E_CODESET);
    ck_assert_uint_eq(len, UNTOUCHED);
  }
  /* U+FEFF inside the data is a character; U+FFFF and U+FFFE are too. */
  static const uint8_t s[] = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};
  cdr_wchar w[3];
  size_t len;
  ck_assert_int_eq(cdr_utf16_decode(s, 6, 0, w, 3, &len), CDR_OK);
  ck_assert_uint_eq(len, 3);
  ck_assert_uint_eq(w[0], 0xFEFF);
  ck_assert_uint_eq(w[1], 0xFFFF);
  ck_assert_uint_eq(w[2], 0xFFFE);
  ck_assert_int_eq(cdr_utf16_decode(s, 6, 0, w, 2, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf16_decode(s, 6, 0, NULL, 0, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf16_decode(s, 6, 0, NULL, 1, &len), CDR_E_INVALID);
  ck_assert_int_eq(cdr_utf16_decode(NULL, 2, 0, w, 1, &len), CDR_E_INVALID);
}
END_TEST

START_TEST(test_utf16_encode)
{
  static const cdr_wchar w[] = {0x1F0A1, 'A', 0xE9, 0xFFFF, 0x10000, 0x10FFFF};
  static const uint8_t be[] = {0xD8, 0x3C, 0xDC, 0xA1, 0x00, 0x41, 0x00, 0xE9, 0xFF, 0xFF,
                               0xD8, 0x00, 0xDC, 0x00, 0xDB, 0xFF, 0xDF, 0xFF};
  static const uint8_t le[] = {0x3C, 0xD8, 0xA1, 0xDC, 0x41, 0x00, 0xE9, 0x00, 0xFF, 0xFF,
                               0x00, 0xD8, 0x00, 0xDC, 0xFF, 0xDB, 0xFF, 0xDF};
  uint8_t out[32];
  size_t units = 0, len = 0;
  ck_assert_int_eq(cdr_utf16_units(w, ARRAY_LEN(w), &units), CDR_OK);
  ck_assert_uint_eq(units, 9);
  ck_assert_int_eq(cdr_utf16_encode(w, ARRAY_LEN(w), 0, out, sizeof out, &len), CDR_OK);
  ck_assert_uint_eq(len, sizeof be);
  ck_assert_mem_eq(out, be, sizeof be);
  ck_assert_int_eq(cdr_utf16_encode(w, ARRAY_LEN(w), 1, out, sizeof out, &len), CDR_OK);
  ck_assert_uint_eq(len, sizeof le);
  ck_assert_mem_eq(out, le, sizeof le);
  /* Exactly 2 * units octets is enough; one less is not (a pair never
   * gets split). */
  ck_assert_int_eq(cdr_utf16_encode(w, ARRAY_LEN(w), 0, out, 18, &len), CDR_OK);
  len = UNTOUCHED;
  ck_assert_int_eq(cdr_utf16_encode(w, ARRAY_LEN(w), 0, out, 17, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf16_encode(w, 1, 0, out, 3, &len), CDR_E_LIMIT);
  ck_assert_int_eq(cdr_utf16_encode(w, 1, 0, NULL, 0, &len), CDR_E_LIMIT);
  ck_assert_uint_eq(len, UNTOUCHED);
  static const cdr_wchar bad[] = {0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000, 0x80000000};
  for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
    cdr_wchar s[2] = {'a', bad[i]};
    ck_assert_int_eq(cdr_utf16_units(s, 2, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf16_encode(s, 2, 0, out, sizeof out, &len), CDR_E_CODESET);
    ck_assert_int_eq(cdr_utf16_encode(s, 2, 1, out, sizeof out, &len), CDR_E_CODESET);
    ck_assert_uint_eq(len, UNTOUCHED);
  }
  ck_assert_int_eq(cdr_utf16_units(NULL, 0, &len), CDR_OK);
  ck_assert_uint_eq(len, 0);
  ck_assert_int_eq(cdr_utf16_units(NULL, 1, &len), CDR_E_INVALID);
}
END_TEST

/* Random strings of scalar values through UTF-16 in both byte orders and
 * through UTF-8, with the counting functions sizing every buffer. */
START_TEST(test_random_round_trip)
{
  enum { MAXLEN = 64 };
  cdr_wchar w[MAXLEN], back[MAXLEN];
  uint8_t buf[4 * MAXLEN];
  for (int iter = 0; iter < 20000; iter++) {
    size_t n = (size_t)(rng() % (MAXLEN + 1)), pairs = 0;
    for (size_t i = 0; i < n; i++) {
      w[i] = random_scalar();
      pairs += w[i] > 0xFFFF;
    }
    for (int little = 0; little <= 1; little++) {
      size_t units = 0, len = 0, count = 0;
      REQUIRE(cdr_utf16_units(w, n, &units) == CDR_OK);
      REQUIRE(units == n + pairs);
      REQUIRE(cdr_utf16_encode(w, n, little, buf, 2 * units, &len) == CDR_OK);
      REQUIRE(len == 2 * units);
      REQUIRE(cdr_utf16_count(buf, len, little, &count) == CDR_OK);
      REQUIRE(count == n);
      REQUIRE(cdr_utf16_decode(buf, len, little, back, count, &count) == CDR_OK);
      REQUIRE(count == n);
      REQUIRE(n == 0 || memcmp(back, w, n * sizeof *w) == 0);
      /* The other byte order differs exactly by swapping each unit. */
      uint8_t other[4 * MAXLEN];
      size_t olen;
      REQUIRE(cdr_utf16_encode(w, n, !little, other, sizeof other, &olen) == CDR_OK);
      REQUIRE(olen == len);
      for (size_t k = 0; k < len; k += 2)
        REQUIRE(other[k] == buf[k + 1] && other[k + 1] == buf[k]);
    }
    size_t u8len = 0, count = 0;
    REQUIRE(cdr_utf8_units(w, n, &u8len) == CDR_OK);
    REQUIRE(cdr_utf8_encode(w, n, buf, u8len, &u8len) == CDR_OK);
    REQUIRE(cdr_utf8_decode(buf, u8len, back, n, &count) == CDR_OK);
    REQUIRE(count == n);
    REQUIRE(n == 0 || memcmp(back, w, n * sizeof *w) == 0);
  }
}
END_TEST

static Suite *codeset_suite(void)
{
  Suite *s = suite_create("codeset");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_names);
  tcase_add_test(tc, test_utf8_classes);
  tcase_add_test(tc, test_utf8_exhaustive);
  tcase_add_test(tc, test_utf8_fast_path);
  tcase_add_test(tc, test_utf8_all_scalars);
  tcase_add_test(tc, test_utf8_encode_rejects);
  tcase_add_test(tc, test_latin1_all);
  tcase_add_test(tc, test_latin1_errors);
  tcase_add_test(tc, test_utf16_c18);
  tcase_add_test(tc, test_utf16_surrogate_errors);
  tcase_add_test(tc, test_ucs2_surrogates_refused_both_ways);
  tcase_add_test(tc, test_utf16_encode);
  tcase_add_test(tc, test_random_round_trip);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = codeset_suite };
