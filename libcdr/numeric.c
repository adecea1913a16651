/* numeric.c - long double (binary128 and the omniORB x87 form) and fixed.
 *
 * Every floating-point format is read into one unpacked form (class, sign,
 * integer significand and binary exponent) and written from it by one
 * rounding routine, so there is a single place where rounding, subnormals
 * and overflow are decided.  Host long doubles are taken apart bit by bit
 * when their layout is known (x87, binary128, binary64); the floating-point
 * environment is never consulted.  128-bit arithmetic is done on cdr_u128
 * by hand so that 32-bit x86 (x87 long double, no __int128) builds too. */
#include "internal.h"
#include <cdr/numeric.h>
#include <float.h>
#include <math.h>

/* ------------------------------------------------------------- u128 octets */

void cdr_u128_store(cdr_u128 v, int little, uint8_t out[16])
{
  for (int i = 0; i < 8; i++) {
    uint8_t h = (uint8_t)(v.hi >> (56 - 8 * i)), l = (uint8_t)(v.lo >> (56 - 8 * i));
    if (little) {
      out[15 - i] = h;
      out[7 - i] = l;
    } else {
      out[i] = h;
      out[8 + i] = l;
    }
  }
}

cdr_u128 cdr_u128_load(const uint8_t in[16], int little)
{
  cdr_u128 v = {0, 0};
  for (int i = 0; i < 8; i++) {
    v.hi = v.hi << 8 | (little ? in[15 - i] : in[i]);
    v.lo = v.lo << 8 | (little ? in[7 - i] : in[8 + i]);
  }
  return v;
}

/* ----------------------------------------------------------- u128 helpers */

static inline cdr_u128 u128(uint64_t hi, uint64_t lo)
{
  cdr_u128 r = {hi, lo};
  return r;
}
static inline int u128_is_zero(cdr_u128 a) { return (a.hi | a.lo) == 0; }
static inline cdr_u128 u128_or(cdr_u128 a, cdr_u128 b) { return u128(a.hi | b.hi, a.lo | b.lo); }

static inline cdr_u128 u128_shl(cdr_u128 a, int s) /* 0 <= s < 128 */
{
  if (s == 0)
    return a;
  if (s >= 64)
    return u128(a.lo << (s - 64), 0);
  return u128(a.hi << s | a.lo >> (64 - s), a.lo << s);
}

static inline cdr_u128 u128_shr(cdr_u128 a, int s) /* 0 <= s <= 128 */
{
  if (s == 0)
    return a;
  if (s >= 128)
    return u128(0, 0);
  if (s >= 64)
    return u128(0, a.hi >> (s - 64));
  return u128(a.hi >> s, a.lo >> s | a.hi << (64 - s));
}

static inline cdr_u128 u128_bit(int s) { return u128_shl(u128(0, 1), s); }

static inline cdr_u128 u128_low(cdr_u128 a, int s) /* a mod 2^s, 0 <= s <= 128 */
{
  if (s >= 128)
    return a;
  if (s >= 64)
    return u128(s == 64 ? 0 : a.hi & ((UINT64_C(1) << (s - 64)) - 1), a.lo);
  return u128(0, s == 0 ? 0 : a.lo & ((UINT64_C(1) << s) - 1));
}

static inline int u128_test(cdr_u128 a, int s) { return !u128_is_zero(u128_low(u128_shr(a, s), 1)); }

static inline int u128_cmp(cdr_u128 a, cdr_u128 b)
{
  if (a.hi != b.hi)
    return a.hi < b.hi ? -1 : 1;
  return a.lo < b.lo ? -1 : a.lo > b.lo;
}

static inline cdr_u128 u128_inc(cdr_u128 a) { return u128(a.hi + (a.lo == UINT64_MAX), a.lo + 1); }

static inline int u128_clz(cdr_u128 a) /* a != 0 */
{
  return a.hi ? __builtin_clzll(a.hi) : 64 + __builtin_clzll(a.lo);
}

/* -------------------------------------------------------- unpacked floats */

enum { UF_ZERO, UF_FINITE, UF_INF, UF_NAN };

typedef struct ufloat {
  int cls;
  int sign;
  int32_t exp;  /* UF_FINITE: the value is sig * 2^exp */
  cdr_u128 sig; /* UF_FINITE: non-zero.  UF_NAN: the fraction field
                   left-aligned, so bit 127 is the quiet bit */
} ufloat;

static inline ufloat uf(int cls, int sign, int32_t exp, cdr_u128 sig)
{
  ufloat u = {cls, sign, exp, sig};
  return u;
}

#define QUIET_NAN_SIG u128(UINT64_C(1) << 63, 0)

/* A binary format: PREC significand bits (hidden bit included), normal
 * exponents EMIN..EMAX (the bias is EMAX), EBITS exponent bits. */
typedef struct fmt {
  int prec, ebits;
  int32_t emin, emax;
} fmt;

static const fmt F_BINARY128 = {113, 15, -16382, 16383};
static const fmt F_X87 = {64, 15, -16382, 16383};

/* Round the finite value U to format F, to nearest, ties to even.  Returns
 * UF_INF (overflow), UF_ZERO (underflow to zero) or UF_FINITE with *M and
 * *Q such that the result is M * 2^Q, M < 2^prec; M has bit prec-1 set
 * exactly when the result is normal, and Q is then the exponent of its
 * last significand bit; subnormals have Q = emin - (prec - 1). */
static int round_to(const ufloat *u, const fmt *f, cdr_u128 *m, int32_t *q)
{
  int lz = u128_clz(u->sig);
  cdr_u128 sig = u128_shl(u->sig, lz);
  int32_t e = u->exp - lz; /* bit 127 of SIG weighs 2^(e + 127) */
  int32_t lead = e + 127;
  if (lead > f->emax)
    return UF_INF;
  int32_t qe = lead - (f->prec - 1);
  if (qe < f->emin - (f->prec - 1))
    qe = f->emin - (f->prec - 1);
  int32_t drop = qe - e; /* low bits of SIG below the last kept one: >= 128 - prec */
  if (drop > 128)
    return UF_ZERO; /* below half the smallest subnormal */
  cdr_u128 keep = u128_shr(sig, drop);
  int c = u128_cmp(u128_low(sig, drop), u128_bit(drop - 1));
  if (c > 0 || (c == 0 && (keep.lo & 1))) {
    keep = u128_inc(keep);
    if (u128_test(keep, f->prec)) { /* carried into a new leading bit */
      keep = u128_shr(keep, 1);
      qe++;
      if (qe + (f->prec - 1) > f->emax)
        return UF_INF;
    }
  }
  if (u128_is_zero(keep))
    return UF_ZERO;
  *m = keep;
  *q = qe;
  return UF_FINITE;
}

/* IEEE interchange formats (hidden bit): the 1 + ebits + (prec - 1) bits
 * right-aligned in a cdr_u128. */
static ufloat unpack_ieee(cdr_u128 bits, const fmt *f)
{
  int fbits = f->prec - 1;
  uint32_t emask = (UINT32_C(1) << f->ebits) - 1;
  int sign = u128_test(bits, fbits + f->ebits);
  uint32_t bexp = (uint32_t)u128_shr(bits, fbits).lo & emask;
  cdr_u128 frac = u128_low(bits, fbits);
  if (bexp == emask)
    return u128_is_zero(frac) ? uf(UF_INF, sign, 0, frac)
                              : uf(UF_NAN, sign, 0, u128_shl(frac, 128 - fbits));
  if (bexp == 0)
    return u128_is_zero(frac) ? uf(UF_ZERO, sign, 0, frac) : uf(UF_FINITE, sign, f->emin - fbits, frac);
  return uf(UF_FINITE, sign, (int32_t)bexp - f->emax - fbits, u128_or(frac, u128_bit(fbits)));
}

static cdr_u128 pack_ieee(const ufloat *u, const fmt *f)
{
  int fbits = f->prec - 1;
  uint32_t emask = (UINT32_C(1) << f->ebits) - 1;
  uint32_t bexp = 0;
  cdr_u128 frac = u128(0, 0), m;
  int32_t q;
  switch (u->cls) {
  case UF_ZERO:
    break;
  case UF_INF:
    bexp = emask;
    break;
  case UF_NAN:
    bexp = emask;
    frac = u128_shr(u->sig, 128 - fbits);
    if (u128_is_zero(frac))
      frac = u128(0, 1); /* payload lost: keep it a (signaling) NaN */
    break;
  default:
    switch (round_to(u, f, &m, &q)) {
    case UF_INF:
      bexp = emask;
      break;
    case UF_FINITE:
      frac = u128_low(m, fbits);
      if (u128_test(m, fbits))
        bexp = (uint32_t)(q + fbits + f->emax);
      break;
    }
  }
  cdr_u128 r = u128_or(frac, u128_shl(u128(0, bexp), fbits));
  return u->sign ? u128_or(r, u128_bit(fbits + f->ebits)) : r;
}

/* x87 extended: SE = sign and 15-bit exponent, M = 64-bit significand with
 * an explicit integer bit.  *VALID is cleared for encodings the FPU
 * rejects (unnormals, pseudo-infinities and pseudo-NaNs); those unpack as
 * the default quiet NaN. */
static ufloat unpack_x87(uint16_t se, uint64_t m, int *valid)
{
  int sign = se >> 15;
  uint32_t bexp = se & 0x7FFFu;
  uint64_t frac = m & ~(UINT64_C(1) << 63);
  int j = (int)(m >> 63);
  *valid = 1;
  if (bexp == 0) /* zero, subnormal or pseudo-denormal: weight 2^(1 - 16383 - 63) */
    return m == 0 ? uf(UF_ZERO, sign, 0, u128(0, 0)) : uf(UF_FINITE, sign, -16445, u128(0, m));
  if (!j) {
    *valid = 0;
    return uf(UF_NAN, sign, 0, QUIET_NAN_SIG);
  }
  if (bexp == 0x7FFF)
    return frac == 0 ? uf(UF_INF, sign, 0, u128(0, 0)) : uf(UF_NAN, sign, 0, u128(frac << 1, 0));
  return uf(UF_FINITE, sign, (int32_t)bexp - 16383 - 63, u128(0, m));
}

static void pack_x87(const ufloat *u, uint16_t *se, uint64_t *m)
{
  const uint64_t J = UINT64_C(1) << 63;
  uint32_t bexp = 0;
  uint64_t sig = 0;
  cdr_u128 mm;
  int32_t q;
  switch (u->cls) {
  case UF_ZERO:
    break;
  case UF_INF:
    bexp = 0x7FFF;
    sig = J;
    break;
  case UF_NAN:
    bexp = 0x7FFF;
    sig = u->sig.hi >> 1;
    sig = J | (sig ? sig : 1); /* payload lost: keep it a (signaling) NaN */
    break;
  default:
    switch (round_to(u, &F_X87, &mm, &q)) {
    case UF_INF:
      bexp = 0x7FFF;
      sig = J;
      break;
    case UF_FINITE:
      sig = mm.lo;
      if (sig & J)
        bexp = (uint32_t)(q + 63 + 16383);
      break;
    }
  }
  *se = (uint16_t)((u->sign ? 0x8000u : 0) | bexp);
  *m = sig;
}

/* ------------------------------------------------------ host long double */

#if defined(CDR_NUMERIC_FORCE_GENERIC) /* tests the portable path on any host */
#define HOST_GENERIC 1
#elif LDBL_MANT_DIG == 64 && LDBL_MAX_EXP == 16384 && (defined(__x86_64__) || defined(__i386__))
#define HOST_X87 1
#elif LDBL_MANT_DIG == 113 && LDBL_MAX_EXP == 16384 && defined(__BYTE_ORDER__) &&                  \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define HOST_BINARY128 1
#elif LDBL_MANT_DIG == 53 && LDBL_MAX_EXP == 1024 && DBL_MANT_DIG == 53
#define HOST_BINARY64 1
#else
#define HOST_GENERIC 1
#endif

#if defined(HOST_X87)

static ufloat host_unpack(long double v)
{
  unsigned char b[sizeof v];
  uint64_t m;
  uint16_t se;
  int valid;
  memcpy(b, &v, sizeof v);
  memcpy(&m, b, 8); /* x86 is little-endian: significand, then sign/exponent */
  memcpy(&se, b + 8, 2);
  return unpack_x87(se, m, &valid);
}

static long double host_pack(const ufloat *u)
{
  unsigned char b[sizeof(long double)];
  uint64_t m;
  uint16_t se;
  long double v;
  pack_x87(u, &se, &m);
  memset(b, 0, sizeof b);
  memcpy(b, &m, 8);
  memcpy(b + 8, &se, 2);
  memcpy(&v, b, sizeof v);
  return v;
}

#elif defined(HOST_BINARY128)

static ufloat host_unpack(long double v)
{
  uint64_t w[2];
  memcpy(w, &v, 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return unpack_ieee(u128(w[1], w[0]), &F_BINARY128);
#else
  return unpack_ieee(u128(w[0], w[1]), &F_BINARY128);
#endif
}

static long double host_pack(const ufloat *u)
{
  cdr_u128 b = pack_ieee(u, &F_BINARY128);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t w[2] = {b.lo, b.hi};
#else
  uint64_t w[2] = {b.hi, b.lo};
#endif
  long double v;
  memcpy(&v, w, 16);
  return v;
}

#elif defined(HOST_BINARY64)

static const fmt F_BINARY64 = {53, 11, -1022, 1023};

static ufloat host_unpack(long double v)
{
  uint64_t w;
  memcpy(&w, &v, 8);
  return unpack_ieee(u128(0, w), &F_BINARY64);
}

static long double host_pack(const ufloat *u)
{
  uint64_t w = pack_ieee(u, &F_BINARY64).lo;
  long double v;
  memcpy(&v, &w, 8);
  return v;
}

#else /* HOST_GENERIC: arithmetic only, exact for radix-2 formats of up to 113 bits */

_Static_assert(FLT_RADIX == 2 && LDBL_MANT_DIG <= 113, "long double format not supported");

static ufloat host_unpack(long double v)
{
  int sign = signbit(v) != 0;
  if (isnan(v))
    return uf(UF_NAN, sign, 0, QUIET_NAN_SIG);
  if (isinf(v))
    return uf(UF_INF, sign, 0, u128(0, 0));
  if (v == 0)
    return uf(UF_ZERO, sign, 0, u128(0, 0));
  long double x = sign ? -v : v;
  int32_t e = 0;
  /* Scale into [2^63, 2^64) by powers of two: exact while x stays normal,
   * which it does because it moves towards that range. */
  while (x >= 0x1p96L) {
    x *= 0x1p-32L;
    e += 32;
  }
  while (x < 0x1p32L) {
    x *= 0x1p32L;
    e -= 32;
  }
  while (x >= 0x1p64L) {
    x *= 0.5L;
    e++;
  }
  while (x < 0x1p63L) {
    x *= 2.0L;
    e--;
  }
  uint64_t hi = (uint64_t)x;
  x = (x - (long double)hi) * 0x1p64L; /* the bits below 2^0, as an integer */
  return uf(UF_FINITE, sign, e - 64, u128(hi, (uint64_t)x));
}

static long double host_pack(const ufloat *u)
{
  static const fmt host = {LDBL_MANT_DIG, 0, LDBL_MIN_EXP - 1, LDBL_MAX_EXP - 1};
  long double x;
  cdr_u128 m;
  int32_t q;
  int cls = u->cls;
  if (cls == UF_FINITE)
    cls = round_to(u, &host, &m, &q);
  switch (cls) {
  case UF_ZERO:
    x = 0.0L;
    break;
  case UF_INF:
    x = (long double)INFINITY;
    break;
  case UF_NAN:
    x = (long double)NAN;
    break;
  default:
    /* m < 2^prec, so both halves and their sum are exact; each scaling
     * step is exact because every intermediate lies between m and the
     * (representable) result. */
    x = (long double)m.hi * 0x1p64L + (long double)m.lo;
    for (; q >= 32; q -= 32)
      x *= 0x1p32L;
    for (; q <= -32; q += 32)
      x *= 0x1p-32L;
    for (; q > 0; q--)
      x *= 2.0L;
    for (; q < 0; q++)
      x *= 0.5L;
  }
  return u->sign ? -x : x;
}

#endif

cdr_u128 cdr_ldouble_to_binary128(long double v)
{
  ufloat u = host_unpack(v);
  return pack_ieee(&u, &F_BINARY128);
}

long double cdr_ldouble_from_binary128(cdr_u128 b)
{
  ufloat u = unpack_ieee(b, &F_BINARY128);
  return host_pack(&u);
}

cdr_u128 cdr_ldouble_to_x87pad(long double v)
{
  ufloat u = host_unpack(v);
  uint16_t se;
  uint64_t m;
  pack_x87(&u, &se, &m);
  return u128(se, m);
}

cdr_status cdr_ldouble_from_x87pad(cdr_u128 b, long double *out)
{
  int valid;
  ufloat u = unpack_x87((uint16_t)b.hi, b.lo, &valid);
  if (!valid)
    return CDR_E_VALUE;
  *out = host_pack(&u);
  return CDR_OK;
}

/* ------------------------------------------------------------------ fixed */

size_t cdr_fixed_wire_size(unsigned digits)
{
  return digits >= 1 && digits <= CDR_FIXED_MAX_DIGITS ? (digits + 2) / 2 : 0;
}

static int fixed_type_ok(unsigned digits, int scale)
{
  return digits >= 1 && digits <= CDR_FIXED_MAX_DIGITS && scale >= 0 && (unsigned)scale <= digits;
}

static cdr_status fixed_check(const cdr_fixed *f)
{
  if (!fixed_type_ok(f->digits, f->scale))
    return CDR_E_INVALID;
  if (f->negative > 1)
    return CDR_E_VALUE;
  for (unsigned i = 0; i < f->digits; i++)
    if (f->d[i] > 9)
      return CDR_E_VALUE;
  return CDR_OK;
}

static int fixed_is_zero(const cdr_fixed *f)
{
  for (unsigned i = 0; i < f->digits; i++)
    if (f->d[i])
      return 0;
  return 1;
}

/* A fresh value of type fixed<digits,scale>, all digits zero. */
static cdr_fixed fixed_zero(unsigned digits, int scale)
{
  cdr_fixed f;
  memset(&f, 0, sizeof f);
  f.digits = (uint8_t)digits;
  f.scale = (int8_t)scale;
  return f;
}

cdr_status cdr_fixed_encode(const cdr_fixed *f, uint8_t *dst, size_t cap, size_t *out_len)
{
  cdr_status rc = fixed_check(f);
  if (rc)
    return rc;
  size_t size = cdr_fixed_wire_size(f->digits);
  if (cap < size)
    return CDR_E_LIMIT;
  uint8_t buf[CDR_FIXED_WIRE_MAX];
  memset(buf, 0, size);
  /* Half-octet p (0 = high half of octet 0): a pad when digits is even,
   * then the digits, then the sign. */
  unsigned pad = 2 * (unsigned)size - 1 - f->digits;
  for (unsigned i = 0; i < f->digits; i++) {
    unsigned p = pad + i;
    buf[p / 2] |= (uint8_t)(p & 1 ? f->d[i] : f->d[i] << 4);
  }
  buf[size - 1] |= f->negative && !fixed_is_zero(f) ? 0xD : 0xC;
  memcpy(dst, buf, size);
  *out_len = size;
  return CDR_OK;
}

cdr_status cdr_fixed_decode(const uint8_t *src, size_t n, unsigned digits, int scale, cdr_fixed *out)
{
  if (!fixed_type_ok(digits, scale) || (!src && n))
    return CDR_E_INVALID;
  size_t size = cdr_fixed_wire_size(digits);
  if (n < size)
    return CDR_E_SHORT;
  cdr_fixed f = fixed_zero(digits, scale);
  unsigned pad = 2 * (unsigned)size - 1 - digits;
  if (pad && (src[0] >> 4) != 0)
    return CDR_E_VALUE;
  for (unsigned i = 0; i < digits; i++) {
    unsigned p = pad + i;
    uint8_t nib = p & 1 ? src[p / 2] & 0x0F : src[p / 2] >> 4;
    if (nib > 9)
      return CDR_E_VALUE;
    f.d[i] = nib;
  }
  uint8_t sign = src[size - 1] & 0x0F;
  if (sign != 0xC && sign != 0xD)
    return CDR_E_VALUE;
  f.negative = sign == 0xD && !fixed_is_zero(&f);
  *out = f;
  return CDR_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

cdr_status cdr_fixed_from_string(const char *s, size_t n, unsigned digits, int scale, cdr_fixed *out)
{
  if (!fixed_type_ok(digits, scale) || (!s && n))
    return CDR_E_INVALID;
  size_t i = 0, end = n;
  int neg = 0;
  if (i < end && (s[i] == '+' || s[i] == '-'))
    neg = s[i++] == '-';
  if (end > i && (s[end - 1] == 'd' || s[end - 1] == 'D'))
    end--;
  size_t int0 = i;
  while (i < end && is_digit(s[i]))
    i++;
  size_t int1 = i, frac0 = i, frac1 = i;
  if (i < end && s[i] == '.') {
    frac0 = ++i;
    while (i < end && is_digit(s[i]))
      i++;
    frac1 = i;
  }
  if (i != end || (int1 - int0) + (frac1 - frac0) == 0)
    return CDR_E_INVALID;
  /* Only significant digits count against the type's limits. */
  while (int0 < int1 && s[int0] == '0')
    int0++;
  while (frac1 > frac0 && s[frac1 - 1] == '0')
    frac1--;
  size_t nint = int1 - int0, nfrac = frac1 - frac0;
  unsigned intdigits = digits - (unsigned)scale;
  if (nint > intdigits || nfrac > (unsigned)scale)
    return CDR_E_LIMIT;
  cdr_fixed f = fixed_zero(digits, scale);
  for (size_t k = 0; k < nint; k++)
    f.d[intdigits - nint + k] = (uint8_t)(s[int0 + k] - '0');
  for (size_t k = 0; k < nfrac; k++)
    f.d[intdigits + k] = (uint8_t)(s[frac0 + k] - '0');
  f.negative = neg && !fixed_is_zero(&f);
  *out = f;
  return CDR_OK;
}

cdr_status cdr_fixed_to_string(const cdr_fixed *f, char *dst, size_t cap, size_t *out_len)
{
  cdr_status rc = fixed_check(f);
  if (rc)
    return rc;
  char buf[CDR_FIXED_STRING_MAX];
  size_t len = 0;
  unsigned intdigits = f->digits - (unsigned)f->scale, i = 0;
  if (f->negative && !fixed_is_zero(f))
    buf[len++] = '-';
  while (i + 1 < intdigits && f->d[i] == 0) /* leading zeros, keeping the units digit */
    i++;
  if (intdigits == 0)
    buf[len++] = '0';
  for (; i < intdigits; i++)
    buf[len++] = (char)('0' + f->d[i]);
  if (f->scale > 0) {
    buf[len++] = '.';
    for (; i < f->digits; i++)
      buf[len++] = (char)('0' + f->d[i]);
  }
  buf[len] = '\0';
  if (cap < len + 1)
    return CDR_E_LIMIT;
  memcpy(dst, buf, len + 1);
  *out_len = len;
  return CDR_OK;
}
