/* cdr/error.h - status codes shared by libcdr and libiiop, and what each
 * means at the GIOP boundary.
 *
 * Every fallible function returns a cdr_status (or records one as a stream's
 * sticky error).  CDR_OK is 0; every error is negative so that "rc < 0" tests
 * for failure.  Codes are stable: they are part of the ABI.
 *
 * One table, CDR_STATUS_MAP, defines them all (the enum, cdr_strerror(),
 * cdr_status_exception() and cdr_status_minor() are generated from it).
 * Each row: the name (after CDR_), the value, the message, the CORBA system
 * exception the status maps to when a server must answer with one (NULL:
 * none), and the OMG minor code that goes with it (the standard minor codes
 * of CORBA 3.x, Part 1, "Standard Minor Exception Codes": 0x4f4d0000 | n;
 * 0: none).
 *
 *   SHORT        the input ends before the item is complete
 *   LENGTH       a length or count cannot fit in what remains, or is negative
 *   LIMIT        a configured limit (string/sequence length, depth, size) exceeded
 *   VALUE        a value outside its type's domain: boolean, enum, discriminator, digit
 *   STRING       string terminator rules broken (missing NUL, NUL inside)
 *   CODESET      a character invalid in its code set (DATA_CONVERSION 1: it does not
 *                map to the transmission code set), or no code set negotiated
 *   TAG          bad value tag, chunk length or end tag
 *   INDIRECTION  indirection forward, to itself, outside the stream, or to a wrong kind
 *   TYPE         unknown repository ID or incompatible type
 *   NOMEM        the allocator returned NULL
 *   STATE        misuse: stream closed, end without begin, wrong nesting
 *   INVALID      an argument is invalid (NULL where not allowed, bad option)
 *   UNSUPPORTED  valid CDR that this build cannot represent (e.g. wchar in GIOP 1.0)
 *   IO           a socket or file operation failed (libiiop)
 *   PROTOCOL     a GIOP protocol violation (libiiop: MessageError)
 *   TIMEOUT      a deadline passed (libiiop)
 *   TLS          a TLS handshake or record failed (libiiop)
 *   CLOSED       the connection was closed (libiiop)
 *   BADKIND      a TypeCode operation its kind does not have (TypeCode::BadKind)
 *   BOUNDS       a TypeCode member index past its members (TypeCode::Bounds)
 *   NOTFOUND     a name or initial reference is not bound (libiiop's corbaname: and
 *                corbaloc:rir: URLs: the naming service raised NotFound or
 *                CannotProceed, or no such initial reference); BAD_PARAM 10, the
 *                OMG's "string_to_object conversion failed" minor code
 *
 * Reasons.  Two rows (NO_WCHAR, WCHAR_GIOP10) are never returned: they refine a broader status
 * that a stream records.  The stream keeps the reason as a value next to
 * its status (cdr_in_error_reason(), cdr_out_error_reason(); set by
 * cdr_in_fail_reason(), cdr_out_fail_reason()), and with it the exception
 * and minor code the standard asks for:
 *   NO_WCHAR     (recorded as CODESET) wchar data and no wchar transmission
 *                code set negotiated: BAD_PARAM 23 (CORBA 3.x "Code Set
 *                Negotiation"; omniORB's BAD_PARAM_WCharTCSNotKnown)
 *   WCHAR_GIOP10 (recorded as UNSUPPORTED) wchar data in GIOP 1.0: MARSHAL 5
 */
#ifndef CDR_ERROR_H
#define CDR_ERROR_H

#include <stdint.h>
#include <cdr/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message, CORBA system exception, OMG minor code) */
#define CDR_STATUS_MAP(X)                                                                   \
  X(OK, 0, "success", NULL, 0)                                                              \
  X(E_SHORT, -1, "input ends before the item is complete", "MARSHAL", 0)                    \
  X(E_LENGTH, -2, "length or count exceeds the bytes that remain", "MARSHAL", 0)            \
  X(E_LIMIT, -3, "configured limit exceeded", "IMP_LIMIT", 0)                               \
  X(E_VALUE, -4, "value outside its type's domain", "MARSHAL", 0)                           \
  X(E_STRING, -5, "string terminator rules broken", "MARSHAL", 0)                           \
  X(E_CODESET, -6, "character invalid in its code set", "DATA_CONVERSION", 1)               \
  X(E_TAG, -7, "bad value tag, chunk length or end tag", "MARSHAL", 0)                      \
  X(E_INDIRECTION, -8, "bad indirection", "MARSHAL", 0)                                     \
  X(E_TYPE, -9, "unknown or incompatible type", "MARSHAL", 0)                               \
  X(E_NOMEM, -10, "out of memory", "NO_MEMORY", 0)                                          \
  X(E_STATE, -11, "operation not allowed in this state", "BAD_INV_ORDER", 0)                \
  X(E_INVALID, -12, "invalid argument", "BAD_PARAM", 0)                                     \
  X(E_UNSUPPORTED, -13, "not supported", "NO_IMPLEMENT", 0)                                 \
  X(E_IO, -14, "I/O error", "COMM_FAILURE", 0)                                              \
  X(E_PROTOCOL, -15, "GIOP protocol error", "COMM_FAILURE", 0)                              \
  X(E_TIMEOUT, -16, "timed out", "TIMEOUT", 0)                                              \
  X(E_TLS, -17, "TLS error", "COMM_FAILURE", 0)                                             \
  X(E_CLOSED, -18, "connection closed", "COMM_FAILURE", 0)                                  \
  X(E_NO_WCHAR, -19, "no wchar transmission code set negotiated", "BAD_PARAM", 23)          \
  X(E_WCHAR_GIOP10, -20, "wchar/wstring not allowed in GIOP 1.0", "MARSHAL", 5)         \
  X(E_BADKIND, -21, "operation not defined for the TypeCode's kind", "BAD_PARAM", 0)      \
  X(E_BOUNDS, -22, "member index out of bounds", "BAD_PARAM", 0)                          \
  X(E_NOTFOUND, -23, "name not found", "BAD_PARAM", 10)

typedef enum cdr_status {
#define CDR__STATUS_ENUM(name, value, message, exception, minor) CDR_##name = value,
  CDR_STATUS_MAP(CDR__STATUS_ENUM)
#undef CDR__STATUS_ENUM
} cdr_status;

/* The row's message for STATUS ("input ends before the item is complete",
 * ...).  Never NULL; unknown codes give "unknown error".  The string is
 * static, and the same pointer every time. */
CDR_API const char *cdr_strerror(int status);

/* The CORBA system exception STATUS maps to at the GIOP boundary, as its
 * bare name ("MARSHAL", "NO_MEMORY", "IMP_LIMIT", "BAD_PARAM",
 * "COMM_FAILURE", "TIMEOUT", "DATA_CONVERSION", "BAD_INV_ORDER",
 * "NO_IMPLEMENT"); codes not in the table give "MARSHAL".  CDR_OK gives
 * NULL. */
CDR_API const char *cdr_status_exception(int status);

/* The OMG minor code (n of 0x4f4d0000 | n) that goes with
 * cdr_status_exception(STATUS), or 0 when none applies (codes not in the
 * table too). */
CDR_API uint32_t cdr_status_minor(int status);

#ifdef __cplusplus
}
#endif
#endif
