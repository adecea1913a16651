/* iiop/ior.h - interoperable object references and corbaloc URLs (OMG
 * CORBA 3.x, Part 2, "Interoperable Object References" and "Object URLs";
 * GIOP chapter, "IIOP IOR Profiles"; "Code Set Conversion").
 *
 * An IOR is a type ID string and a sequence of tagged profiles.  The IIOP
 * profile (TAG_INTERNET_IOP = 0) body is an encapsulation holding the IIOP
 * version, host, port, object key and (1.1 and later) tagged components.
 * Unknown profiles and components are kept as raw octets and written back
 * unchanged.
 *
 * Memory: decoding allocates everything (strings, keys, arrays) from the
 * caller's arena; encoding allocates only what the output grows by.
 */
#ifndef IIOP_IOR_H
#define IIOP_IOR_H

#include <cdr/cdr.h>
#include <iiop/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IIOP_TAG_INTERNET_IOP 0u
#define IIOP_TAG_MULTIPLE_COMPONENTS 1u
#define IIOP_TAG_ORB_TYPE 0u            /* component */
#define IIOP_TAG_CODE_SETS 1u           /* component */
#define IIOP_TAG_ALTERNATE_IIOP_ADDRESS 3u
#define IIOP_TAG_SSL_SEC_TRANS 20u      /* component: SSLIOP::SSL { target_supports, target_requires, port } */
#define IIOP_TAG_TLS_SEC_TRANS 36u      /* CSIv2 */
#define IIOP_ORB_TYPE_OMNIORB 0x41545400u  /* "AT\x00\x00": omniORB's ORB type */

typedef struct iiop_component {
  uint32_t tag;
  uint32_t len;
  const uint8_t *data;       /* component_data (an encapsulation for the standard ones) */
} iiop_component;

typedef struct iiop_profile {
  uint32_t tag;              /* IIOP_TAG_INTERNET_IOP or another (kept raw) */
  uint32_t len;              /* profile_data octets */
  const uint8_t *data;       /* the raw profile_data (encapsulation) */
  /* Decoded when tag == IIOP_TAG_INTERNET_IOP: */
  uint8_t major, minor;      /* IIOP version 1.0..1.2 (others kept raw, iiop_ok 0) */
  uint8_t iiop_ok;
  const char *host;          /* NUL-terminated */
  uint16_t port;
  const uint8_t *key;
  uint32_t key_len;
  iiop_component *components;
  uint32_t ncomponents;
} iiop_profile;

typedef struct iiop_ior {
  const char *type_id;       /* "" for a nil reference with no profiles */
  iiop_profile *profiles;
  uint32_t nprofiles;
} iiop_ior;

/* CONV_FRAME::CodeSetComponentInfo (TAG_CODE_SETS). */
typedef struct iiop_codeset_component {
  uint32_t native;
  uint32_t nconv;
  const uint32_t *conv;
} iiop_codeset_component;

typedef struct iiop_codeset_info {
  iiop_codeset_component for_char;
  iiop_codeset_component for_wchar;
} iiop_codeset_info;

/* Read an IOR (type_id string, then the profile sequence) from I.  An IIOP
 * profile body is decoded (its own encapsulation byte order honoured,
 * components of 1.1+ included); others are kept raw.  Errors: the stream's
 * (CDR_E_SHORT/LENGTH/LIMIT/VALUE/STRING), CDR_E_NOMEM; *IOR untouched on
 * error.  Decoded octets point into I's buffer or the arena (I's arena). */
IIOP_API int iiop_ior_read(cdr_in *i, iiop_ior *ior);
/* Write IOR to O (profiles decoded from iiop fields when iiop_ok and data
 * is NULL, else the raw data).  Errors: the stream's. */
IIOP_API int iiop_ior_write(cdr_out *o, const iiop_ior *ior);

/* Parse a stringified IOR ("IOR:" then an even number of hex digits, case
 * insensitive, encoding an encapsulation) into *IOR, allocating from A.
 * Errors: CDR_E_INVALID (no "IOR:" prefix, odd digit count, a non-hex
 * character: BAD_PARAM), the decoding errors of iiop_ior_read (MARSHAL). */
IIOP_API int iiop_ior_from_string(const char *s, cdr_arena *a, iiop_ior *ior);
/* "IOR:" + hex of the IOR as an encapsulation in BYTE_ORDER, NUL-terminated,
 * allocated from A. */
IIOP_API int iiop_ior_to_string(const iiop_ior *ior, int byte_order, cdr_arena *a, char **out);

/* The first decoded IIOP profile of IOR, or NULL. */
IIOP_API const iiop_profile *iiop_ior_iiop_profile(const iiop_ior *ior);
/* The first component with TAG in P, or NULL. */
IIOP_API const iiop_component *iiop_profile_component(const iiop_profile *p, uint32_t tag);
/* Decode a TAG_CODE_SETS component (arrays from A).  Errors: MARSHAL-class. */
IIOP_API int iiop_codeset_info_decode(const iiop_component *c, cdr_arena *a, iiop_codeset_info *out);
/* Decode a TAG_SSL_SEC_TRANS component's port (and options). */
IIOP_API int iiop_ssl_component_decode(const iiop_component *c, uint16_t *target_supports,
                                       uint16_t *target_requires, uint16_t *port);

/* Code set negotiation (CORBA 3.x "Code Set Negotiation"): the client's
 * native code set NATIVE (with conversion code sets CONV[0..NCONV)) against
 * the server's component S: the server's native if the client can convert
 * to it, else the client's native if the server can convert from it, else
 * the first common conversion code set, else the fallback (UTF-8 for char,
 * UTF-16 for wchar) if both list it, else 0 (no code set: CODESET_INCOMPATIBLE).
 * A server component with native 0 (absent) means ISO-8859-1 for char and
 * no wchar support (returns 0 for wchar). */
IIOP_API uint32_t iiop_codeset_negotiate(uint32_t native, const uint32_t *conv, uint32_t nconv,
                                         const iiop_codeset_component *s, int for_wchar);

/* ---------------------------------------------------------------- corbaloc */

typedef struct iiop_corbaloc_addr {
  uint8_t major, minor;      /* default 1.0 (as the spec says) */
  const char *host;          /* NUL-terminated; IPv6 without the brackets */
  uint16_t port;             /* default 2809 */
} iiop_corbaloc_addr;

typedef struct iiop_corbaloc {
  iiop_corbaloc_addr *addrs;
  uint32_t naddrs;
  const uint8_t *key;        /* percent-decoded object key */
  uint32_t key_len;
} iiop_corbaloc;

/* Parse "corbaloc:" followed by a comma-separated list of "iiop:" or ":"
 * addresses ([version@]host[:port], IPv6 in brackets) then "/" and the
 * percent-escaped object key, allocating from A.  Errors: CDR_E_INVALID
 * (BAD_PARAM: unknown protocol, empty host, a port outside 0..65535 or not
 * decimal, a bad version, a bad %-escape, no key separator). */
IIOP_API int iiop_corbaloc_parse(const char *url, cdr_arena *a, iiop_corbaloc *out);

/* Build an IOR with one IIOP profile (version MAJOR.MINOR, host, port, key)
 * and, for 1.1+, components COMPS[0..NCOMPS), allocating from A. */
IIOP_API int iiop_ior_make(cdr_arena *a, const char *type_id, uint8_t major, uint8_t minor,
                           const char *host, uint16_t port, const uint8_t *key, uint32_t key_len,
                           const iiop_component *comps, uint32_t ncomps, iiop_ior *out);

#ifdef __cplusplus
}
#endif
#endif
