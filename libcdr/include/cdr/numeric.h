/* cdr/numeric.h - CDR long double and fixed-point conversions.
 *
 * Pure functions: no I/O, no allocation, no global state (the floating-point
 * environment is neither read nor changed: rounding is always to nearest,
 * ties to even); every function is thread-safe.  Section numbers are those
 * of CORBA 3.0.3 chapter 15 (the same text is CORBA 3.3 part 2 section 9.3).
 */
#ifndef CDR_NUMERIC_H
#define CDR_NUMERIC_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>
#include <cdr/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ long double */

/* The 16 octets of a CDR long double as one unsigned 128-bit number, HI the
 * most significant half.  Independent of the host's byte order; the stream
 * writes it in its own order with cdr_u128_store. */
typedef struct cdr_u128 {
  uint64_t hi;
  uint64_t lo;
} cdr_u128;

/* Write V as 16 octets at OUT: most significant octet first when LITTLE is
 * 0 (big-endian), last when it is non-zero (LITTLE has the meaning of the
 * CDR byte-order flag). */
CDR_API void cdr_u128_store(cdr_u128 v, int little, uint8_t out[16]) CDR_NONNULL(3);

/* Read 16 octets at IN written as by cdr_u128_store with the same LITTLE. */
CDR_API cdr_u128 cdr_u128_load(const uint8_t in[16], int little) CDR_NONNULL(1);

/* The CDR long double (section 15.3.1.3): IEEE 754 binary128, i.e. sign
 * (bit 127), 15-bit exponent biased by 16383 (bits 126..112), 112-bit
 * fraction; in cdr_u128 terms HI = sign, exponent and the top 48 fraction
 * bits, LO = the low 64 fraction bits.
 *
 * Host to binary128.  Exact for every host format this file knows: x87
 * 80-bit extended (x86 with LDBL_MANT_DIG 64), binary128 (LDBL_MANT_DIG
 * 113) and binary64 (long double == double); zeros keep their sign,
 * subnormals, infinities and NaNs are preserved (a NaN keeps its sign, quiet
 * bit and payload, left-aligned in the fraction).  x87 encodings that the
 * FPU itself rejects (unnormals, pseudo-infinities, pseudo-NaNs) become the
 * default quiet NaN with their sign.  Other long double formats (none known
 * to this build) go through a portable path that keeps values but turns
 * every NaN into the default quiet NaN. */
CDR_API cdr_u128 cdr_ldouble_to_binary128(long double v);

/* Binary128 to host, rounding to nearest, ties to even.  To x87: values
 * below LDBL_MIN (2^-16382) round to x87 subnormals (quantum 2^-16445),
 * those at most half of 2^-16445 to a zero of their sign (exactly half is
 * a tie and goes to zero); the only overflow is a value that rounds up past
 * LDBL_MAX, which gives infinity (both formats have a 15-bit exponent).
 * Narrower hosts (binary64) overflow to infinity and underflow likewise.
 * NaNs stay NaNs with their sign and quiet bit and the top payload bits the
 * host can hold; a signaling NaN whose payload would vanish keeps the lowest
 * payload bit set so that it stays a NaN. */
CDR_API long double cdr_ldouble_from_binary128(cdr_u128 b);

/* The omniORB form (see docs/wire-notes.md): omniORB 4.2 on x86-64 sends the
 * 16-octet memory image of an x87 long double instead of binary128.  As a
 * cdr_u128: LO = the 64-bit significand with its explicit integer bit,
 * bits 0..15 of HI = sign and 15-bit exponent, bits 16..63 of HI = padding.
 * So little-endian octets are significand (8, LE), sign/exponent (2, LE),
 * padding (6); big-endian is padding (6), sign/exponent (2, BE),
 * significand (8, BE).  Use only when talking to such a peer.
 *
 * Host to the omniORB form; the padding is zero.  Exact on x87 and
 * binary64 hosts (on x87, a pseudo-denormal is written in its normal form
 * and the invalid encodings as the default NaN, as for
 * cdr_ldouble_to_binary128); binary128 hosts round to 64 significant bits
 * as cdr_ldouble_from_binary128 rounds, NaN payloads truncated alike. */
CDR_API cdr_u128 cdr_ldouble_to_x87pad(long double v);

/* The omniORB form to host, stored at *OUT.  The padding bits are ignored
 * (omniORB does not clear them).  Pseudo-denormals (exponent 0, integer bit
 * set) are accepted with their value.  Errors: CDR_E_VALUE for encodings
 * that no x87 FPU produces: an unnormal (exponent 1..0x7FFE with the
 * integer bit clear) or a pseudo-infinity / pseudo-NaN (exponent 0x7FFF
 * with the integer bit clear); *OUT is left untouched then. */
CDR_API cdr_status cdr_ldouble_from_x87pad(cdr_u128 b, long double *out) CDR_WUR CDR_NONNULL(2);

/* ------------------------------------------------------------------ fixed */

#define CDR_FIXED_MAX_DIGITS 31
/* Octets of the longest wire form (31 digits). */
#define CDR_FIXED_WIRE_MAX 16
/* Characters of the longest cdr_fixed_to_string output, NUL included
 * ("-0." and 31 digits). */
#define CDR_FIXED_STRING_MAX 35

/* An IDL fixed<digits,scale> value: (negative ? -1 : 1) times the DIGITS
 * decimal digits d[0] (most significant) .. d[digits-1], divided by
 * 10^scale.  1 <= digits <= 31, 0 <= scale <= digits; d[i] for i >= digits
 * is ignored on input and zero on output.  Zero is never negative in
 * decoded values. */
typedef struct cdr_fixed {
  uint8_t digits;   /* 1..31 */
  int8_t scale;     /* 0..digits */
  uint8_t negative; /* 0 or 1 */
  uint8_t d[31];    /* d[0] most significant, each 0..9 */
} cdr_fixed;

/* Octets of the wire form of fixed<DIGITS,*>: (digits + 2) / 2 (section
 * 15.3.2.8).  0 when DIGITS is outside 1..31. */
CDR_API size_t cdr_fixed_wire_size(unsigned digits);

/* Write *F in the CDR fixed-point form (section 15.3.2.8): packed decimal,
 * two digits an octet, most significant first, no alignment; when digits
 * is even the first half-octet is a zero pad; the last half-octet is the
 * sign, 0xD for negative, 0xC for positive and zero (so -0 is written as
 * 0).  Writes cdr_fixed_wire_size(F->digits) octets at DST (capacity CAP)
 * and stores that count in *OUT_LEN.  Errors: CDR_E_INVALID: digits
 * outside 1..31 or scale outside 0..digits; CDR_E_VALUE: a digit above 9
 * or negative other than 0 and 1; CDR_E_LIMIT: CAP too small.  DST is
 * untouched on error. */
CDR_API cdr_status cdr_fixed_encode(const cdr_fixed *f, uint8_t *dst, size_t cap,
                                    size_t *out_len) CDR_WUR CDR_NONNULL(1, 4);

/* Read a fixed<DIGITS,SCALE> (the type comes from the IDL or TypeCode, not
 * the wire) from the first cdr_fixed_wire_size(DIGITS) of the N octets at
 * SRC into *OUT.  Sign half-octets: 0xC positive, 0xD negative; 0xF (the
 * "unsigned" sign of other packed-decimal formats) is rejected, as no ORB
 * is known to send it.  A negative zero is stored as zero.  Errors:
 * CDR_E_INVALID: DIGITS outside 1..31 or SCALE outside 0..DIGITS, or SRC
 * NULL with N > 0; CDR_E_SHORT: N is less than the wire size;
 * CDR_E_VALUE: a digit half-octet above 9, a non-zero pad half-octet (even
 * DIGITS) or a sign half-octet other than 0xC and 0xD.  *OUT is untouched
 * on error. */
CDR_API cdr_status cdr_fixed_decode(const uint8_t *src, size_t n, unsigned digits, int scale,
                                    cdr_fixed *out) CDR_WUR CDR_NONNULL(5);

/* Parse the N characters at S (no terminator needed; a NUL among them is
 * malformed) as a fixed<DIGITS,SCALE> into *OUT.  Syntax: an optional '+'
 * or '-', decimal digits with at most one '.', at least one digit, then an
 * optional 'd' or 'D' (the IDL fixed literal suffix); no spaces, no
 * exponent.  Leading integer zeros and trailing fraction zeros carry no
 * information and are dropped; fewer fraction digits than SCALE are padded
 * with zeros ("123.4" into fixed<5,2> is 123.40).  Nothing is rounded:
 * Errors: CDR_E_LIMIT: more significant integer digits than
 * DIGITS - SCALE, or more significant fraction digits than SCALE;
 * CDR_E_INVALID: malformed text, S NULL with N > 0, or DIGITS/SCALE out
 * of range.  "-0" gives zero (not negative).  *OUT is untouched on
 * error. */
CDR_API cdr_status cdr_fixed_from_string(const char *s, size_t n, unsigned digits, int scale,
                                         cdr_fixed *out) CDR_WUR CDR_NONNULL(5);

/* Format *F as a NUL-terminated decimal string at DST (capacity CAP
 * characters, NUL included; CDR_FIXED_STRING_MAX always suffices): a '-'
 * for negative non-zero values, the integer digits without leading zeros
 * (at least "0"), then, when scale > 0, '.' and exactly SCALE fraction
 * digits ("123.40" for fixed<5,2> 123.4).  *OUT_LEN receives the length
 * without the NUL.  Errors: CDR_E_INVALID / CDR_E_VALUE as
 * cdr_fixed_encode; CDR_E_LIMIT: CAP too small.  DST is untouched on
 * error. */
CDR_API cdr_status cdr_fixed_to_string(const cdr_fixed *f, char *dst, size_t cap,
                                       size_t *out_len) CDR_WUR CDR_NONNULL(1, 4);

#ifdef __cplusplus
}
#endif
#endif
