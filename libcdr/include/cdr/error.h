/* cdr/error.h - status codes shared by libcdr and libiiop.
 *
 * Every fallible function returns a cdr_status (or records one as a stream's
 * sticky error).  CDR_OK is 0; every error is negative so that "rc < 0" tests
 * for failure.  Codes are stable: they are part of the ABI.
 */
#ifndef CDR_ERROR_H
#define CDR_ERROR_H

#include <cdr/export.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cdr_status {
  CDR_OK = 0,
  CDR_E_SHORT = -1,       /* the input ends before the item is complete */
  CDR_E_LENGTH = -2,      /* a length or count cannot fit in what remains, or is negative */
  CDR_E_LIMIT = -3,       /* a configured limit (string/sequence length, depth, size) exceeded */
  CDR_E_VALUE = -4,       /* a value outside its type's domain: boolean, enum, discriminator, digit */
  CDR_E_STRING = -5,      /* string terminator rules broken (missing NUL, NUL inside) */
  CDR_E_CODESET = -6,     /* a character invalid in its code set, or no code set negotiated */
  CDR_E_TAG = -7,         /* bad value tag, chunk length or end tag */
  CDR_E_INDIRECTION = -8, /* indirection forward, to itself, outside the stream, or to a wrong kind */
  CDR_E_TYPE = -9,        /* unknown repository ID or incompatible type */
  CDR_E_NOMEM = -10,      /* the allocator returned NULL */
  CDR_E_STATE = -11,      /* misuse: stream closed, end without begin, wrong nesting */
  CDR_E_INVALID = -12,    /* an argument is invalid (NULL where not allowed, bad option) */
  CDR_E_UNSUPPORTED = -13,/* valid CDR that this build cannot represent (e.g. wchar in GIOP 1.0) */
  CDR_E_IO = -14,         /* a socket or file operation failed (libiiop) */
  CDR_E_PROTOCOL = -15,   /* a GIOP protocol violation (libiiop: MessageError) */
  CDR_E_TIMEOUT = -16,    /* a deadline passed (libiiop) */
  CDR_E_TLS = -17,        /* a TLS handshake or record failed (libiiop) */
  CDR_E_CLOSED = -18      /* the connection was closed (libiiop) */
} cdr_status;

/* A short English description of STATUS ("input too short", ...).  Never
 * NULL; unknown codes give "unknown error".  The string is static. */
CDR_API const char *cdr_strerror(int status);

/* The CORBA system exception a decoding/encoding status maps to at the GIOP
 * boundary, as its bare name ("MARSHAL", "NO_MEMORY", "IMP_LIMIT",
 * "BAD_PARAM", "COMM_FAILURE", "TIMEOUT", "INV_OBJREF", "DATA_CONVERSION",
 * "BAD_INV_ORDER", "NO_IMPLEMENT").  CDR_OK gives NULL. */
CDR_API const char *cdr_status_exception(int status);

#ifdef __cplusplus
}
#endif
#endif
