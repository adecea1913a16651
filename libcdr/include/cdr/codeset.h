/* cdr/codeset.h - code set identifiers and character conversions.
 *
 * Pure functions: no I/O, no allocation, no global state; every function is
 * thread-safe.  The CDR streams call them to turn the bytes of a string or
 * wstring in the negotiated transmission code set (TCS-C / TCS-W, see CORBA
 * 3.0 section 13.10 "Code Set Conversion") into the library's host
 * representations and back:
 *
 *   char    host: bytes, UTF-8 or ISO-8859-1 as the application chooses.
 *   wchar   host: cdr_wchar, one Unicode scalar value (code point that is
 *           not a surrogate, <= U+10FFFF) per element.  Applications that
 *           prefer UTF-8 for wstrings use cdr_utf8_decode/cdr_utf8_encode.
 *
 * Conventions shared by every function below:
 * - Lengths are counts of elements of the pointed-to type: octets for
 *   uint8_t buffers, code points for cdr_wchar buffers.  "cap" is the
 *   capacity of DST in those units.
 * - An input pointer may be NULL only when its length is 0 (an empty
 *   string); otherwise NULL gives CDR_E_INVALID.  DST may be NULL when cap
 *   is 0.  Output-count pointers must not be NULL.
 * - Errors are found scanning the input from its start; the first problem
 *   met decides the code.  On any error the output count is left untouched
 *   and DST holds unspecified bytes (a prefix of the output may have been
 *   written); nothing else is modified.
 * - CDR_E_LIMIT always means "DST is too small"; the counting functions give
 *   exact sizes so callers can size DST once and never see it.
 * - "little" selects the byte order of UTF-16 data: 0 big-endian, non-zero
 *   little-endian (the same meaning as the CDR byte-order flag octet).
 */
#ifndef CDR_CODESET_H
#define CDR_CODESET_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>
#include <cdr/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The host representation of one wide character: a Unicode scalar value. */
typedef uint32_t cdr_wchar;

/* OSF Character and Code Set Registry identifiers, as carried in the
 * TAG_CODE_SETS IOR component and the CodeSets service context. */
#define CDR_CS_ISO8859_1 UINT32_C(0x00010001) /* ISO 8859-1:1987, Latin-1 (default TCS-C) */
#define CDR_CS_UCS2      UINT32_C(0x00010100) /* ISO/IEC 10646-1:1993, UCS-2 level 1 */
#define CDR_CS_UCS4      UINT32_C(0x00010106) /* ISO/IEC 10646-1:1993, UCS-4 level 3 */
#define CDR_CS_UTF16     UINT32_C(0x00010109) /* ISO/IEC 10646-1:1993, UTF-16 (default TCS-W in GIOP 1.2) */
#define CDR_CS_UTF8      UINT32_C(0x05010001) /* X/Open UTF-8 */

/* The short name of a registry identifier: "ISO-8859-1", "UCS-2", "UCS-4",
 * "UTF-16" or "UTF-8" for the constants above; NULL for any other value.
 * The string is static. */
CDR_API const char *cdr_codeset_name(uint32_t id);

/* ------------------------------------------------------------------ UTF-8 */

/* Check that the N octets at S are well-formed UTF-8 (Unicode 15, table
 * 3-7).  NUL octets are valid characters here (string terminator rules are
 * the stream's business).  Returns CDR_OK, or CDR_E_CODESET for: a
 * continuation octet where a character should start; an octet C0, C1 or
 * F5..FF; an overlong form; an encoded surrogate U+D800..U+DFFF; a value
 * above U+10FFFF; a sequence cut short by the end of the input or by a
 * non-continuation octet.  CDR_E_INVALID: S is NULL and N > 0.  Runs
 * eight ASCII octets per step. */
CDR_API cdr_status cdr_utf8_validate(const uint8_t *s, size_t n) CDR_WUR;

/* Validate the N octets at S as for cdr_utf8_validate and store in *COUNT
 * the number of code points they hold (at most N).  Errors: as
 * cdr_utf8_validate. */
CDR_API cdr_status cdr_utf8_count(const uint8_t *s, size_t n, size_t *count) CDR_WUR CDR_NONNULL(3);

/* Decode the N octets of UTF-8 at S into code points at DST (capacity CAP
 * code points; N code points always suffice, cdr_utf8_count gives the exact
 * need).  *OUT_LEN receives the number of code points written.  Errors:
 * CDR_E_CODESET as cdr_utf8_validate; CDR_E_LIMIT: DST is too small;
 * CDR_E_INVALID: a NULL pointer with a non-zero length. */
CDR_API cdr_status cdr_utf8_decode(const uint8_t *s, size_t n, cdr_wchar *dst, size_t cap,
                                   size_t *out_len) CDR_WUR CDR_NONNULL(5);

/* Store in *UNITS the number of UTF-8 octets that the N code points at SRC
 * encode to (at most 4 * N).  Errors: CDR_E_CODESET: a surrogate
 * (U+D800..U+DFFF) or a value above U+10FFFF; CDR_E_INVALID: SRC is NULL
 * and N > 0. */
CDR_API cdr_status cdr_utf8_units(const cdr_wchar *src, size_t n, size_t *units) CDR_WUR CDR_NONNULL(3);

/* Encode the N code points at SRC as UTF-8 into DST (capacity CAP octets).
 * No terminator is written.  *OUT_LEN receives the octets written.  Errors:
 * CDR_E_CODESET as cdr_utf8_units; CDR_E_LIMIT: DST is too small;
 * CDR_E_INVALID: a NULL pointer with a non-zero length. */
CDR_API cdr_status cdr_utf8_encode(const cdr_wchar *src, size_t n, uint8_t *dst, size_t cap,
                                   size_t *out_len) CDR_WUR CDR_NONNULL(5);

/* ------------------------------------------------------------ ISO-8859-1 */

/* Worst-case output sizes, in octets, of the two conversions below (an
 * ISO-8859-1 octet becomes one or two UTF-8 octets; a UTF-8 sequence becomes
 * at most one ISO-8859-1 octet).  Saturates at SIZE_MAX. */
CDR_INLINE size_t cdr_latin1_to_utf8_max(size_t n) { return n > SIZE_MAX / 2 ? SIZE_MAX : 2 * n; }
CDR_INLINE size_t cdr_utf8_to_latin1_max(size_t n) { return n; }

/* The exact number of UTF-8 octets that the N ISO-8859-1 octets at SRC
 * convert to: N plus the number of octets >= 0x80.  Every octet is a valid
 * ISO-8859-1 character, so this cannot fail; SRC may be NULL when N is 0
 * (a NULL SRC with N > 0 gives 0). */
CDR_API size_t cdr_latin1_utf8_size(const uint8_t *src, size_t n);

/* Convert N ISO-8859-1 octets at SRC to UTF-8 at DST (capacity CAP octets;
 * cdr_latin1_utf8_size gives the exact need).  *OUT_LEN receives the octets
 * written.  Errors: CDR_E_LIMIT: DST too small (nothing is written then);
 * CDR_E_INVALID: a NULL pointer with a non-zero length. */
CDR_API cdr_status cdr_latin1_to_utf8(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                      size_t *out_len) CDR_WUR CDR_NONNULL(5);

/* Convert N octets of UTF-8 at SRC to ISO-8859-1 at DST (capacity CAP
 * octets; N always suffice).  *OUT_LEN receives the octets written.
 * Errors: CDR_E_CODESET: ill-formed UTF-8 (as cdr_utf8_validate) or a
 * character above U+00FF, which ISO-8859-1 cannot represent; CDR_E_LIMIT:
 * DST too small; CDR_E_INVALID: a NULL pointer with a non-zero length. */
CDR_API cdr_status cdr_utf8_to_latin1(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                      size_t *out_len) CDR_WUR CDR_NONNULL(5);

/* ----------------------------------------------------------------- UTF-16 */

/* Look for a byte-order mark at the start of N octets of UTF-16 (as GIOP
 * 1.2 wstrings may carry, CORBA 3.0 section 15.3.1.6): FE FF sets *LITTLE
 * to 0 (big-endian) and returns 2; FF FE sets *LITTLE to 1 and returns 2;
 * otherwise (no BOM, N < 2, or S NULL) returns 0 and leaves *LITTLE alone,
 * so the caller's default byte order stands.  The return value is the
 * number of octets to skip before decoding. */
CDR_API size_t cdr_utf16_bom(const uint8_t *s, size_t n, int *little) CDR_NONNULL(3);

/* Validate NBYTES octets of UTF-16 at S in the byte order LITTLE (no BOM
 * processing: skip it first with cdr_utf16_bom) and store in *COUNT the
 * number of code points they hold (at most NBYTES / 2).  Errors:
 * CDR_E_LENGTH: NBYTES is odd (checked before anything else);
 * CDR_E_CODESET: a high surrogate (D800..DBFF) not followed by a low
 * surrogate (DC00..DFFF), at the end of the data included, or a low
 * surrogate not preceded by a high one.  Lone surrogates are rejected,
 * never replaced by U+FFFD.  CDR_E_INVALID: S NULL with NBYTES > 0. */
CDR_API cdr_status cdr_utf16_count(const uint8_t *s, size_t nbytes, int little,
                                   size_t *count) CDR_WUR CDR_NONNULL(4);

/* Decode NBYTES octets of UTF-16 at S in byte order LITTLE into code points
 * at DST (capacity CAP code points; NBYTES / 2 always suffice,
 * cdr_utf16_count gives the exact need).  A U+FEFF inside the data is an
 * ordinary character.  *OUT_LEN receives the code points written.  Errors:
 * as cdr_utf16_count, plus CDR_E_LIMIT: DST too small. */
CDR_API cdr_status cdr_utf16_decode(const uint8_t *s, size_t nbytes, int little, cdr_wchar *dst,
                                    size_t cap, size_t *out_len) CDR_WUR CDR_NONNULL(6);

/* Store in *UNITS the number of 16-bit UTF-16 code units the N code points
 * at SRC need (one below U+10000, two above; the octet count is twice
 * that).  Errors: CDR_E_CODESET: a surrogate code point or a value above
 * U+10FFFF; CDR_E_INVALID: SRC NULL with N > 0. */
CDR_API cdr_status cdr_utf16_units(const cdr_wchar *src, size_t n, size_t *units) CDR_WUR CDR_NONNULL(3);

/* Encode the N code points at SRC as UTF-16 in byte order LITTLE into DST
 * (capacity CAP octets; 2 * cdr_utf16_units octets are needed, 4 * N
 * always suffice).  No BOM and no terminator are written.  *OUT_LEN
 * receives the octets written.  Errors: as cdr_utf16_units, plus
 * CDR_E_LIMIT: DST too small. */
CDR_API cdr_status cdr_utf16_encode(const cdr_wchar *src, size_t n, int little, uint8_t *dst,
                                    size_t cap, size_t *out_len) CDR_WUR CDR_NONNULL(6);

#ifdef __cplusplus
}
#endif
#endif
