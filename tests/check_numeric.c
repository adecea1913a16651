/* check_numeric.c - long double <-> binary128 / omniORB x87 form, and fixed
 * (cdr/numeric.h).
 *
 * The expected binary128 images were computed independently with exact
 * rational arithmetic (Python fractions).  Where the compiler has
 * __float128 (x86-64 gcc), its conversions (libgcc soft-fp) serve as an
 * oracle for random values.  The file also builds with -mlong-double-64 and
 * -mlong-double-128 to exercise the binary64 and binary128 host paths; it
 * therefore calls no libm long double functions. */
#include <check.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/numeric.h>
#include "testutil.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define REQUIRE(c)                                                                                 \
  do {                                                                                             \
    if (!(c))                                                                                      \
      ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #c);                                           \
  } while (0)

/* The portable path (built with -DCDR_NUMERIC_FORCE_GENERIC to test it on
 * x86) turns every NaN into the default quiet NaN. */
#ifdef CDR_NUMERIC_FORCE_GENERIC
#define NAN_PAYLOADS 0
#else
#define NAN_PAYLOADS 1
#endif

#if LDBL_MANT_DIG == 64
#define LD_BYTES 10 /* x87: the rest of sizeof(long double) is padding */
#else
#define LD_BYTES sizeof(long double)
#endif

static uint64_t rng_state = UINT64_C(0x0123456789ABCDEF);
static uint64_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}

static int ld_same(long double a, long double b)
{
  return memcmp(&a, &b, LD_BYTES) == 0;
}

static cdr_u128 u(uint64_t hi, uint64_t lo)
{
  cdr_u128 r = {hi, lo};
  return r;
}

#define ck_assert_u128(got, h, l)                                                                  \
  do {                                                                                             \
    cdr_u128 g_ = (got);                                                                           \
    ck_assert_msg(g_.hi == (uint64_t)(h) && g_.lo == (uint64_t)(l),                                \
                  "got %016llx %016llx, want %016llx %016llx", (unsigned long long)g_.hi,          \
                  (unsigned long long)g_.lo, (unsigned long long)(h), (unsigned long long)(l));    \
  } while (0)

/* ------------------------------------------------------------ u128 octets */

START_TEST(test_u128_octets)
{
  static const uint8_t be[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
                                 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10};
  uint8_t out[16], le[16];
  for (int i = 0; i < 16; i++)
    le[i] = be[15 - i];
  cdr_u128 v = u(UINT64_C(0x0123456789ABCDEF), UINT64_C(0xFEDCBA9876543210));
  cdr_u128_store(v, 0, out);
  ck_assert_mem_eq(out, be, 16);
  cdr_u128_store(v, 1, out);
  ck_assert_mem_eq(out, le, 16);
  ck_assert_u128(cdr_u128_load(be, 0), v.hi, v.lo);
  ck_assert_u128(cdr_u128_load(le, 1), v.hi, v.lo);
  /* 1.0L on the wire, both orders. */
  static const uint8_t one_be[16] = {0x3F, 0xFF};
  static const uint8_t one_le[16] = {[14] = 0xFF, [15] = 0x3F};
  cdr_u128_store(cdr_ldouble_to_binary128(1.0L), 0, out);
  ck_assert_mem_eq(out, one_be, 16);
  cdr_u128_store(cdr_ldouble_to_binary128(1.0L), 1, out);
  ck_assert_mem_eq(out, one_le, 16);
}
END_TEST

/* -------------------------------------------------------- exact images */

START_TEST(test_binary128_exact)
{
  ck_assert_u128(cdr_ldouble_to_binary128(1.0L), 0x3FFF000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(-2.0L), 0xC000000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(0.0L), 0, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(-0.0L), 0x8000000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(0.5L), 0x3FFE000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(3.0L), 0x4000800000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128((long double)__builtin_inf()), 0x7FFF000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(-(long double)__builtin_inf()), 0xFFFF000000000000, 0);
  /* The default NaN: quiet bit only. */
  ck_assert_u128(cdr_ldouble_to_binary128(__builtin_nanl("")), 0x7FFF800000000000, 0);
#if LDBL_MANT_DIG == 64
  /* 0.1L is 0xCCCCCCCCCCCCCCCD * 2^-67 on x87. */
  ck_assert_u128(cdr_ldouble_to_binary128(0.1L), 0x3FFB999999999999, 0x999A000000000000);
  ck_assert_u128(cdr_ldouble_to_binary128(0x1p-16445L), 0, 0x0002000000000000); /* smallest subnormal */
  ck_assert_u128(cdr_ldouble_to_binary128(-0x1p-16445L), 0x8000000000000000, 0x0002000000000000);
  ck_assert_u128(cdr_ldouble_to_binary128(LDBL_MIN), 0x0001000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(LDBL_MAX), 0x7FFEFFFFFFFFFFFF, 0xFFFE000000000000);
  ck_assert_u128(cdr_ldouble_to_binary128(LDBL_EPSILON), 0x3FC0000000000000, 0);
  /* NaN payloads: x87 fraction bits 62..0 land in binary128 bits 111..49. */
#if NAN_PAYLOADS
  long double nan;
  uint64_t m = UINT64_C(0xC000000000000123);
  uint16_t se = 0xFFFF;
  memset(&nan, 0, sizeof nan);
  memcpy(&nan, &m, 8);
  memcpy((char *)&nan + 8, &se, 2);
  ck_assert_u128(cdr_ldouble_to_binary128(nan), 0xFFFF800000000000, UINT64_C(0x123) << 49);
  m = UINT64_C(0x8000000000000001); /* signaling, lowest payload bit */
  memcpy(&nan, &m, 8);
  ck_assert_u128(cdr_ldouble_to_binary128(nan), 0xFFFF000000000000, UINT64_C(1) << 49);
  /* A host unnormal (never produced by the FPU): the default NaN, signed. */
  m = UINT64_C(0x4000000000000000);
  se = 0xBFFF;
  memcpy(&nan, &m, 8);
  memcpy((char *)&nan + 8, &se, 2);
  ck_assert_u128(cdr_ldouble_to_binary128(nan), 0xFFFF800000000000, 0);
  ck_assert_u128(cdr_ldouble_to_x87pad(nan), 0xFFFF, 0xC000000000000000);
#endif
#elif LDBL_MANT_DIG == 53
  ck_assert_u128(cdr_ldouble_to_binary128(0.1L), 0x3FFB999999999999, 0xA000000000000000);
  ck_assert_u128(cdr_ldouble_to_binary128(0x1p-1074L), 0x3BCD000000000000, 0);
  ck_assert_u128(cdr_ldouble_to_binary128(LDBL_MAX), 0x43FEFFFFFFFFFFFF, 0xF000000000000000);
#elif LDBL_MANT_DIG == 113
  ck_assert_u128(cdr_ldouble_to_binary128(0.1L), 0x3FFB999999999999, 0x999999999999999A);
  ck_assert_u128(cdr_ldouble_to_binary128(0x1p-16494L), 0, 1);
  ck_assert_u128(cdr_ldouble_to_binary128(LDBL_MAX), 0x7FFEFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF);
#endif
}
END_TEST

/* Exact images read back. */
START_TEST(test_binary128_decode_exact)
{
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x3FFF000000000000, 0)), 1.0L));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0xC000000000000000, 0)), -2.0L));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x3FFB999999999999, 0x999999999999999A)), 0.1L));
  long double z = cdr_ldouble_from_binary128(u(0x8000000000000000, 0));
  ck_assert(z == 0 && __builtin_signbit(z));
  ck_assert(cdr_ldouble_from_binary128(u(0x7FFF000000000000, 0)) == (long double)__builtin_inf());
  ck_assert(cdr_ldouble_from_binary128(u(0xFFFF000000000000, 0)) == -(long double)__builtin_inf());
  long double nan = cdr_ldouble_from_binary128(u(0x7FFF800000000000, 0));
  ck_assert(nan != nan);
#if LDBL_MANT_DIG == 64
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x3FFB999999999999, 0x999A000000000000)), 0.1L));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, 0x0002000000000000)), 0x1p-16445L));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x7FFEFFFFFFFFFFFF, 0xFFFE000000000000)), LDBL_MAX));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x0001000000000000, 0)), LDBL_MIN));
#endif
}
END_TEST

#if LDBL_MANT_DIG == 64
static long double x87(uint16_t se, uint64_t m)
{
  long double v;
  memset(&v, 0, sizeof v);
  memcpy(&v, &m, 8);
  memcpy((char *)&v + 8, &se, 2);
  return v;
}

/* binary128 -> x87 rounding: to nearest, ties to even. */
START_TEST(test_binary128_rounding)
{
  const uint64_t ONE = 0x3FFF000000000000;
  const long double eps = LDBL_EPSILON; /* 2^-63: one x87 ulp at 1.0 */
  /* 1 + 2^-64: a tie between 1 and 1 + 2^-63 -> 1 (even) */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(ONE, UINT64_C(1) << 48)), 1.0L));
  /* 1 + 2^-64 + 2^-112: just above the tie -> up */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(ONE, (UINT64_C(1) << 48) | 1)), 1.0L + eps));
  /* 1 + 2^-64 - 2^-112: just below -> down */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(ONE, (UINT64_C(1) << 48) - 1)), 1.0L));
  /* 1 + 2^-63 + 2^-64: a tie with an odd lower neighbour -> up to 1 + 2^-62 */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(ONE, UINT64_C(3) << 48)), 1.0L + 2 * eps));
  /* Negative values round symmetrically. */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(ONE | 1ULL << 63, UINT64_C(3) << 48)), -1.0L - 2 * eps));
  /* A carry out of the significand bumps the exponent: 2 - 2^-64 -> 2. */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x3FFFFFFFFFFFFFFF, 0xFFFF000000000000)), 2.0L));

  /* Overflow: only by rounding up past LDBL_MAX. */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x7FFEFFFFFFFFFFFF, 0xFFFEFFFFFFFFFFFF)), LDBL_MAX));
  ck_assert(cdr_ldouble_from_binary128(u(0x7FFEFFFFFFFFFFFF, 0xFFFF000000000000)) ==
            (long double)__builtin_inf());
  ck_assert(cdr_ldouble_from_binary128(u(0x7FFEFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF)) ==
            (long double)__builtin_inf());
  ck_assert(cdr_ldouble_from_binary128(u(0xFFFEFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF)) ==
            -(long double)__builtin_inf());

  /* Underflow.  In binary128 the smallest x87 subnormal 2^-16445 is the
   * subnormal fraction 2^49. */
  long double r = cdr_ldouble_from_binary128(u(0, UINT64_C(1) << 48)); /* 2^-16446: tie -> 0 */
  ck_assert(ld_same(r, 0.0L));
  r = cdr_ldouble_from_binary128(u(0x8000000000000000, UINT64_C(1) << 48));
  ck_assert(r == 0 && __builtin_signbit(r));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, (UINT64_C(1) << 48) | 1)), 0x1p-16445L));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, UINT64_C(1) << 47)), 0.0L)); /* 2^-16447 */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, 1)), 0.0L)); /* smallest binary128 */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, UINT64_C(3) << 48)), 0x1p-16444L)); /* 1.5 ulp -> 2 */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, UINT64_C(5) << 48)), 0x1p-16444L)); /* 2.5 ulp -> 2 */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0, UINT64_C(7) << 48)), 0x1p-16443L)); /* 3.5 ulp -> 4 */
  /* The largest value below LDBL_MIN that rounds up to it (a tie). */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x0000FFFFFFFFFFFF, 0xFFFF000000000000)), LDBL_MIN));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x0000FFFFFFFFFFFF, 0xFFFEFFFFFFFFFFFF)),
                    x87(0, UINT64_C(0x7FFFFFFFFFFFFFFF))));
  /* A normal binary128 just above LDBL_MIN keeps 64 bits. */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x0001000000000000, UINT64_C(1) << 49)),
                    x87(1, UINT64_C(0x8000000000000001))));

  /* NaNs: sign, quiet bit and the top 63 payload bits survive. */
  if (!NAN_PAYLOADS)
    return;
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0xFFFF800000000001, 0)),
                    x87(0xFFFF, UINT64_C(0xC000000000008000))));
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x7FFF000000000000, UINT64_C(1) << 49)),
                    x87(0x7FFF, UINT64_C(0x8000000000000001))));
  /* A signaling NaN whose payload is all below what x87 keeps stays a
   * signaling NaN (lowest payload bit), not an infinity. */
  ck_assert(ld_same(cdr_ldouble_from_binary128(u(0x7FFF000000000000, 1)),
                    x87(0x7FFF, UINT64_C(0x8000000000000001))));
}
END_TEST

/* Random x87 encodings (every exponent, NaNs included) round-trip bit for
 * bit through binary128 and through the omniORB form. */
START_TEST(test_x87_round_trip)
{
  for (int i = 0; i < 200000; i++) {
    uint64_t r = rng();
    uint16_t se = (uint16_t)rng();
    uint32_t e = se & 0x7FFF;
    switch (i % 4) { /* favour the edges of the exponent range */
    case 1:
      e = e % 70;
      break;
    case 2:
      e = 0x7FFF - e % 3;
      break;
    }
    se = (uint16_t)((se & 0x8000) | e);
    uint64_t m = e ? (r | UINT64_C(1) << 63) : (r & ~(UINT64_C(1) << 63));
    if (i % 7 == 0)
      m &= ~(rng() | UINT64_C(1) << 63) | (e ? UINT64_C(1) << 63 : 0); /* sparse significands */
    long double v = x87(se, m), back;
    if (!NAN_PAYLOADS && e == 0x7FFF && m != UINT64_C(1) << 63)
      continue;
    cdr_u128 b = cdr_ldouble_to_binary128(v);
    REQUIRE(ld_same(cdr_ldouble_from_binary128(b), v));
    cdr_u128 p = cdr_ldouble_to_x87pad(v);
    REQUIRE(p.hi == se && p.lo == m);
    REQUIRE(cdr_ldouble_from_x87pad(p, &back) == CDR_OK && ld_same(back, v));
#ifdef __SIZEOF_FLOAT128__
    if (v == v) { /* the oracle quiets signaling NaNs: compare numbers only */
      __float128 q = (__float128)v;
      cdr_u128 o;
      memcpy(&o.lo, &q, 8);
      memcpy(&o.hi, (char *)&q + 8, 8);
      REQUIRE(o.hi == b.hi && o.lo == b.lo);
    }
#endif
  }
}
END_TEST

#endif /* LDBL_MANT_DIG == 64 */

#ifdef __SIZEOF_FLOAT128__
/* Random binary128 values rounded to the host format agree with libgcc's
 * conversion (soft-fp, round to nearest even), concentrating on the host's
 * subnormal range, its overflow edge, and ties in the dropped bits. */
#define DROP_BITS (113 - LDBL_MANT_DIG) /* fraction bits the host cannot keep */
START_TEST(test_binary128_oracle)
{
  /* Biased binary128 exponent of the host's smallest subnormal, less 2; for
   * x87 that is below binary128's own normal range, so clamp at 0. */
  const int32_t e_low = 16383 + LDBL_MIN_EXP - 1 - LDBL_MANT_DIG - 2;
  const uint32_t e_sub = e_low > 0 ? (uint32_t)e_low : 0;
  const uint32_t e_max = 16383 + LDBL_MAX_EXP - 1;
  for (int i = 0; i < 300000; i++) {
    uint64_t hi = rng(), lo = rng();
    uint32_t e = (uint32_t)(hi >> 48) & 0x7FFF;
    switch (i % 5) {
    case 1:
      e = e_sub + e % (LDBL_MANT_DIG + 4);
      break;
    case 2:
      e = e_max - 1 + e % 3;
      break;
    case 3:
      e = 0x3FFF;
      break;
    }
    if (e == 0x7FFF)
      continue; /* NaN/inf: checked elsewhere */
    hi = (hi & 0x8000FFFFFFFFFFFF) | (uint64_t)e << 48;
#if DROP_BITS > 0 && DROP_BITS < 64
    if (i % 3) {
      lo = (lo & ~((UINT64_C(1) << DROP_BITS) - 1)) | UINT64_C(1) << (DROP_BITS - 1); /* a tie... */
      if (i % 3 == 2)
        lo |= rng() & 1; /* ...or just above it */
    }
#endif
    __float128 q;
    memcpy(&q, &lo, 8);
    memcpy((char *)&q + 8, &hi, 8);
    long double want = (long double)q;
    REQUIRE(ld_same(cdr_ldouble_from_binary128(u(hi, lo)), want));
  }
}
END_TEST
#endif

/* The omniORB form: exact octets and invalid x87 encodings. */
START_TEST(test_x87pad)
{
  uint8_t out[16];
  static const uint8_t one_le[16] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0x3F};
  static const uint8_t one_be[16] = {0, 0, 0, 0, 0, 0, 0x3F, 0xFF, 0x80};
  static const uint8_t m2_le[16] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0x00, 0xC0};
  cdr_u128_store(cdr_ldouble_to_x87pad(1.0L), 1, out);
  ck_assert_mem_eq(out, one_le, 16);
  cdr_u128_store(cdr_ldouble_to_x87pad(1.0L), 0, out);
  ck_assert_mem_eq(out, one_be, 16);
  cdr_u128_store(cdr_ldouble_to_x87pad(-2.0L), 1, out);
  ck_assert_mem_eq(out, m2_le, 16);
  ck_assert_u128(cdr_ldouble_to_x87pad(0.1L), 0x3FFB,
                 LDBL_MANT_DIG == 64 ? 0xCCCCCCCCCCCCCCCD
                 : LDBL_MANT_DIG == 53 ? 0xCCCCCCCCCCCCD000 /* the binary64 0.1, exactly */
                                       : 0xCCCCCCCCCCCCCCCD);
  ck_assert_u128(cdr_ldouble_to_x87pad((long double)__builtin_inf()), 0x7FFF, 0x8000000000000000);
  ck_assert_u128(cdr_ldouble_to_x87pad(__builtin_nanl("")), 0x7FFF, 0xC000000000000000);
  ck_assert_u128(cdr_ldouble_to_x87pad(-0.0L), 0x8000, 0);

  /* Padding is ignored on input (omniORB leaves it uninitialised). */
  long double v = 0;
  uint8_t garbage[16];
  memcpy(garbage, one_le, 16);
  memset(garbage + 10, 0xA5, 6);
  ck_assert_int_eq(cdr_ldouble_from_x87pad(cdr_u128_load(garbage, 1), &v), CDR_OK);
  ck_assert(ld_same(v, 1.0L));
  ck_assert_int_eq(cdr_ldouble_from_x87pad(cdr_u128_load(one_be, 0), &v), CDR_OK);
  ck_assert(ld_same(v, 1.0L));
  ck_assert_int_eq(cdr_ldouble_from_x87pad(u(0xA5A5A5A5A5A5FFFF, 0xC000000000000000), &v), CDR_OK);
  ck_assert(v != v && __builtin_signbit(v));
  ck_assert_int_eq(cdr_ldouble_from_x87pad(u(0xA5A5A5A5A5A57FFF, 0x8000000000000000), &v), CDR_OK);
  ck_assert(v == (long double)__builtin_inf());
  ck_assert_int_eq(cdr_ldouble_from_x87pad(u(0xFFFFFFFFFFFF4000, 0xC000000000000000), &v), CDR_OK);
  ck_assert(v == 3.0L);

  /* Pseudo-denormal: exponent 0 with the integer bit set is LDBL_MIN's
   * value on x87 (2^-16382). */
  ck_assert_int_eq(cdr_ldouble_from_x87pad(u(0, 0x8000000000000000), &v), CDR_OK);
#if LDBL_MANT_DIG == 64
  ck_assert(ld_same(v, LDBL_MIN));
  /* A host pseudo-denormal goes out in its normal form. */
  long double pd = 0;
  uint64_t pm = UINT64_C(0x8000000000000000);
  memcpy(&pd, &pm, 8);
  ck_assert_u128(cdr_ldouble_to_x87pad(pd), 0x0001, 0x8000000000000000);
  ck_assert_u128(cdr_ldouble_to_binary128(pd), 0x0001000000000000, 0);
#endif

  /* Encodings no x87 produces: rejected, *out untouched. */
  static const cdr_u128 bad[] = {
    {0x3FFF, 0x4000000000000000}, /* unnormal */
    {0x0001, 0x0000000000000000}, /* unnormal zero */
    {0x7FFF, 0x0000000000000000}, /* pseudo-infinity */
    {0xFFFF, 0x4000000000000000}, /* pseudo-NaN */
  };
  for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
    v = 42.0L;
    ck_assert_int_eq(cdr_ldouble_from_x87pad(bad[i], &v), CDR_E_VALUE);
    ck_assert(v == 42.0L);
  }
}
END_TEST

#if LDBL_MANT_DIG != 64
/* Non-x87 hosts: host bit patterns round-trip through binary128; through
 * the omniORB form when they fit 64 bits. */
START_TEST(test_host_round_trip)
{
  for (int i = 0; i < 200000; i++) {
    long double v;
    uint64_t w[2] = {rng(), rng()};
    memcpy(&v, w, sizeof v);
    cdr_u128 b = cdr_ldouble_to_binary128(v);
    long double back = cdr_ldouble_from_binary128(b);
    REQUIRE(ld_same(back, v));
#if LDBL_MANT_DIG == 53 /* binary64 fits x87: NaN payloads included */
    REQUIRE(cdr_ldouble_from_x87pad(cdr_ldouble_to_x87pad(v), &back) == CDR_OK);
    REQUIRE(ld_same(back, v));
#endif
  }
  long double one;
  static const uint8_t one_le[16] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0x3F};
  ck_assert_int_eq(cdr_ldouble_from_x87pad(cdr_u128_load(one_le, 1), &one), CDR_OK);
  ck_assert(one == 1.0L);
  ck_assert_int_eq(cdr_ldouble_from_x87pad(u(0x3FFF, 0x4000000000000000), &one), CDR_E_VALUE);
}
END_TEST
#endif

/* ------------------------------------------------------------------ fixed */

static cdr_fixed mkfixed(unsigned digits, int scale, int negative, const char *ds)
{
  cdr_fixed f;
  memset(&f, 0, sizeof f);
  f.digits = (uint8_t)digits;
  f.scale = (int8_t)scale;
  f.negative = (uint8_t)negative;
  for (unsigned i = 0; i < digits; i++)
    f.d[i] = (uint8_t)(ds[i] - '0');
  return f;
}

static void assert_fixed_eq(const cdr_fixed *a, const cdr_fixed *b)
{
  ck_assert_uint_eq(a->digits, b->digits);
  ck_assert_int_eq(a->scale, b->scale);
  ck_assert_uint_eq(a->negative, b->negative);
  ck_assert_mem_eq(a->d, b->d, sizeof a->d);
}

START_TEST(test_fixed_wire)
{
  static const struct {
    unsigned digits;
    int scale, negative;
    const char *ds;
    size_t n;
    uint8_t wire[16];
  } cases[] = {
    {5, 2, 0, "12345", 3, {0x12, 0x34, 0x5C}},  /* 123.45 */
    {5, 2, 1, "12345", 3, {0x12, 0x34, 0x5D}},  /* -123.45 */
    {4, 0, 1, "0012", 3, {0x00, 0x01, 0x2D}},   /* -12: even digits, zero pad */
    {1, 0, 0, "7", 1, {0x7C}},
    {1, 1, 1, "9", 1, {0x9D}},                  /* -0.9 */
    {2, 1, 0, "15", 2, {0x01, 0x5C}},           /* 1.5 */
    {3, 3, 0, "000", 2, {0x00, 0x0C}},          /* zero */
    {31, 0, 0, "9999999999999999999999999999999", 16,
     {0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9C}},
    {30, 10, 1, "123456789012345678901234567890", 16,
     {0x01, 0x23, 0x45, 0x67, 0x89, 0x01, 0x23, 0x45, 0x67, 0x89, 0x01, 0x23, 0x45, 0x67, 0x89, 0x0D}},
  };
  for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
    cdr_fixed f = mkfixed(cases[i].digits, cases[i].scale, cases[i].negative, cases[i].ds), g;
    uint8_t out[16];
    size_t len = 0;
    ck_assert_uint_eq(cdr_fixed_wire_size(cases[i].digits), cases[i].n);
    ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_OK);
    ck_assert_uint_eq(len, cases[i].n);
    ck_assert_mem_eq(out, cases[i].wire, cases[i].n);
    ck_assert_int_eq(cdr_fixed_decode(cases[i].wire, cases[i].n, cases[i].digits, cases[i].scale, &g),
                     CDR_OK);
    assert_fixed_eq(&g, &f);
  }
  ck_assert_uint_eq(cdr_fixed_wire_size(0), 0);
  ck_assert_uint_eq(cdr_fixed_wire_size(32), 0);
  ck_assert_uint_eq(cdr_fixed_wire_size(30), 16);

  /* Negative zero is written with the positive sign and read as zero. */
  cdr_fixed f = mkfixed(3, 1, 1, "000"), g;
  uint8_t out[4];
  size_t len;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_OK);
  ck_assert_mem_eq(out, "\x00\x0C", 2);
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x00\x0D", 2, 3, 1, &g), CDR_OK);
  ck_assert_uint_eq(g.negative, 0);

  /* Octets after the wire size are not read; short input is CDR_E_SHORT. */
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x12\x34\x5C\xFF", 4, 5, 2, &g), CDR_OK);
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x12\x34", 2, 5, 2, &g), CDR_E_SHORT);
  ck_assert_int_eq(cdr_fixed_decode(NULL, 0, 5, 2, &g), CDR_E_SHORT);
  ck_assert_int_eq(cdr_fixed_decode(NULL, 3, 5, 2, &g), CDR_E_INVALID);
}
END_TEST

START_TEST(test_fixed_decode_rejects)
{
  static const struct {
    unsigned digits;
    int scale;
    uint8_t wire[3];
  } bad[] = {
    {5, 2, {0x12, 0x3A, 0x5C}}, /* digit nibble above 9 */
    {5, 2, {0xF2, 0x34, 0x5C}},
    {5, 2, {0x12, 0x34, 0xAC}},
    {4, 0, {0x10, 0x01, 0x2D}}, /* non-zero pad nibble */
    {4, 0, {0xF0, 0x01, 0x2C}},
    {5, 2, {0x12, 0x34, 0x5F}}, /* sign nibbles other than C and D */
    {5, 2, {0x12, 0x34, 0x5A}},
    {5, 2, {0x12, 0x34, 0x5B}},
    {5, 2, {0x12, 0x34, 0x5E}},
    {5, 2, {0x12, 0x34, 0x50}},
    {5, 2, {0x12, 0x34, 0x59}},
  };
  for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
    cdr_fixed g = mkfixed(1, 0, 0, "7");
    ck_assert_int_eq(cdr_fixed_decode(bad[i].wire, 3, bad[i].digits, bad[i].scale, &g), CDR_E_VALUE);
    ck_assert_uint_eq(g.digits, 1); /* untouched */
    ck_assert_uint_eq(g.d[0], 7);
  }
  cdr_fixed g;
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x1C", 1, 0, 0, &g), CDR_E_INVALID);
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x1C", 1, 32, 0, &g), CDR_E_INVALID);
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x1C", 1, 1, 2, &g), CDR_E_INVALID);
  ck_assert_int_eq(cdr_fixed_decode((const uint8_t *)"\x1C", 1, 1, -1, &g), CDR_E_INVALID);
}
END_TEST

START_TEST(test_fixed_encode_rejects)
{
  uint8_t out[16], sentinel[16];
  size_t len = 99;
  memset(out, 0x55, sizeof out);
  memcpy(sentinel, out, sizeof out);
  cdr_fixed f = mkfixed(5, 2, 0, "12345");
  f.d[2] = 10;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_VALUE);
  f = mkfixed(5, 2, 2, "12345");
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_VALUE);
  f = mkfixed(5, 2, 0, "12345");
  f.digits = 0;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_INVALID);
  f.digits = 32;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_INVALID);
  f = mkfixed(5, 2, 0, "12345");
  f.scale = 6;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_INVALID);
  f.scale = -1;
  ck_assert_int_eq(cdr_fixed_encode(&f, out, sizeof out, &len), CDR_E_INVALID);
  f = mkfixed(5, 2, 0, "12345");
  f.d[7] = 200; /* beyond digits: ignored */
  ck_assert_int_eq(cdr_fixed_encode(&f, out, 2, &len), CDR_E_LIMIT);
  ck_assert_mem_eq(out, sentinel, sizeof out);
  ck_assert_uint_eq(len, 99);
  ck_assert_int_eq(cdr_fixed_encode(&f, out, 3, &len), CDR_OK);
  ck_assert_mem_eq(out, "\x12\x34\x5C", 3);
}
END_TEST

START_TEST(test_fixed_strings)
{
  static const struct {
    const char *s;
    unsigned digits;
    int scale;
    int rc, negative;
    const char *ds, *canon;
  } cases[] = {
    {"-123.45", 5, 2, CDR_OK, 1, "12345", "-123.45"},
    {"123.4", 5, 2, CDR_OK, 0, "12340", "123.40"},
    {"+123.4", 5, 2, CDR_OK, 0, "12340", "123.40"},
    {"123", 5, 2, CDR_OK, 0, "12300", "123.00"},
    {"123.", 5, 2, CDR_OK, 0, "12300", "123.00"},
    {".5", 3, 2, CDR_OK, 0, "050", "0.50"},
    {"0001.50", 3, 2, CDR_OK, 0, "150", "1.50"},
    {"123.450", 5, 2, CDR_OK, 0, "12345", "123.45"},
    {"1.5d", 3, 1, CDR_OK, 0, "015", "1.5"},
    {"-1.5D", 3, 1, CDR_OK, 1, "015", "-1.5"},
    {"-0.00", 4, 2, CDR_OK, 0, "0000", "0.00"},
    {"0", 1, 0, CDR_OK, 0, "0", "0"},
    {"-12", 4, 0, CDR_OK, 1, "0012", "-12"},
    {"0.123", 3, 3, CDR_OK, 0, "123", "0.123"},
    {"-.123", 3, 3, CDR_OK, 1, "123", "-0.123"},
    {"1234.5", 5, 2, CDR_E_LIMIT, 0, NULL, NULL}, /* too many integer digits */
    {"1.234", 5, 2, CDR_E_LIMIT, 0, NULL, NULL},  /* too many fraction digits: no rounding */
    {"1", 3, 3, CDR_E_LIMIT, 0, NULL, NULL},
    {"", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"-", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {".", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"d", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"1.2.3", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"1e5", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {" 1", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"1 ", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"+-1", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"12a", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"1.5dd", 5, 2, CDR_E_INVALID, 0, NULL, NULL},
    {"12345678.x", 5, 2, CDR_E_INVALID, 0, NULL, NULL}, /* malformed wins over too long */
  };
  for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
    cdr_fixed f = mkfixed(1, 0, 0, "7");
    cdr_status rc = cdr_fixed_from_string(cases[i].s, strlen(cases[i].s), cases[i].digits,
                                          cases[i].scale, &f);
    ck_assert_msg(rc == cases[i].rc, "\"%s\": rc %d", cases[i].s, rc);
    if (rc != CDR_OK) {
      ck_assert_uint_eq(f.digits, 1); /* untouched */
      continue;
    }
    cdr_fixed want = mkfixed(cases[i].digits, cases[i].scale, cases[i].negative, cases[i].ds);
    assert_fixed_eq(&f, &want);
    char buf[CDR_FIXED_STRING_MAX];
    size_t len = 0;
    ck_assert_int_eq(cdr_fixed_to_string(&f, buf, sizeof buf, &len), CDR_OK);
    ck_assert_str_eq(buf, cases[i].canon);
    ck_assert_uint_eq(len, strlen(cases[i].canon));
  }
  cdr_fixed f;
  ck_assert_int_eq(cdr_fixed_from_string("1\0", 2, 3, 0, &f), CDR_E_INVALID); /* NUL inside */
  ck_assert_int_eq(cdr_fixed_from_string("12", 1, 3, 0, &f), CDR_OK);        /* N, not strlen */
  ck_assert_uint_eq(f.d[2], 1);
  ck_assert_int_eq(cdr_fixed_from_string(NULL, 0, 3, 0, &f), CDR_E_INVALID);
  ck_assert_int_eq(cdr_fixed_from_string("1", 1, 0, 0, &f), CDR_E_INVALID);
  ck_assert_int_eq(cdr_fixed_from_string("1", 1, 3, 4, &f), CDR_E_INVALID);

  /* The longest string, and capacity exactly at the limit. */
  f = mkfixed(31, 31, 1, "1234567890123456789012345678901");
  char buf[CDR_FIXED_STRING_MAX + 1];
  size_t len = 0;
  ck_assert_int_eq(cdr_fixed_to_string(&f, buf, CDR_FIXED_STRING_MAX, &len), CDR_OK);
  ck_assert_str_eq(buf, "-0.1234567890123456789012345678901");
  ck_assert_uint_eq(len, CDR_FIXED_STRING_MAX - 1);
  memset(buf, 'x', sizeof buf);
  len = 99;
  ck_assert_int_eq(cdr_fixed_to_string(&f, buf, CDR_FIXED_STRING_MAX - 1, &len), CDR_E_LIMIT);
  ck_assert_uint_eq(len, 99);
  ck_assert_int_eq(buf[0], 'x');
  f = mkfixed(5, 0, 0, "00000");
  ck_assert_int_eq(cdr_fixed_to_string(&f, buf, 2, &len), CDR_OK);
  ck_assert_str_eq(buf, "0");
  f.d[1] = 11;
  ck_assert_int_eq(cdr_fixed_to_string(&f, buf, sizeof buf, &len), CDR_E_VALUE);
}
END_TEST

/* Random fixed values: string and wire round trips. */
START_TEST(test_fixed_random)
{
  for (int i = 0; i < 100000; i++) {
    unsigned digits = 1 + (unsigned)(rng() % 31);
    int scale = (int)(rng() % (digits + 1));
    cdr_fixed f;
    memset(&f, 0, sizeof f);
    f.digits = (uint8_t)digits;
    f.scale = (int8_t)scale;
    int nonzero = 0;
    for (unsigned k = 0; k < digits; k++) {
      f.d[k] = (uint8_t)(rng() % 4 == 0 ? 0 : rng() % 10);
      nonzero |= f.d[k];
    }
    f.negative = (uint8_t)(nonzero && (rng() & 1));
    uint8_t wire[CDR_FIXED_WIRE_MAX];
    char str[CDR_FIXED_STRING_MAX];
    size_t wlen, slen;
    cdr_fixed g, h;
    REQUIRE(cdr_fixed_encode(&f, wire, sizeof wire, &wlen) == CDR_OK);
    REQUIRE(wlen == (digits + 2) / 2);
    REQUIRE(cdr_fixed_decode(wire, wlen, digits, scale, &g) == CDR_OK);
    REQUIRE(memcmp(&f, &g, sizeof f) == 0);
    REQUIRE(cdr_fixed_to_string(&f, str, sizeof str, &slen) == CDR_OK);
    REQUIRE(slen == strlen(str));
    REQUIRE(cdr_fixed_from_string(str, slen, digits, scale, &h) == CDR_OK);
    REQUIRE(memcmp(&f, &h, sizeof f) == 0);
  }
}
END_TEST

static Suite *numeric_suite(void)
{
  Suite *s = suite_create("numeric");
  TCase *tc = tcase_create("long double");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_u128_octets);
  tcase_add_test(tc, test_binary128_exact);
  tcase_add_test(tc, test_binary128_decode_exact);
#if LDBL_MANT_DIG == 64
  tcase_add_test(tc, test_binary128_rounding);
  tcase_add_test(tc, test_x87_round_trip);
#else
  tcase_add_test(tc, test_host_round_trip);
#endif
  tcase_add_test(tc, test_x87pad);
#ifdef __SIZEOF_FLOAT128__
  tcase_add_test(tc, test_binary128_oracle);
#endif
  suite_add_tcase(s, tc);
  tc = tcase_create("fixed");
  tcase_add_test(tc, test_fixed_wire);
  tcase_add_test(tc, test_fixed_decode_rejects);
  tcase_add_test(tc, test_fixed_encode_rejects);
  tcase_add_test(tc, test_fixed_strings);
  tcase_add_test(tc, test_fixed_random);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = numeric_suite };
