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
  uint8_t major, minor;      /* IIOP version: major 1 is decoded (1.3 and later as 1.1,
                              * whose layout they share); another major is kept
                              * raw, iiop_ok 0 */
  uint8_t iiop_ok;
  const char *host;          /* NUL-terminated, exactly as in the profile: an IPv6
                              * address may come bracketed ("[fe80::1]", as omniORB
                              * writes it when given one) or bare ("::1"); strip
                              * the brackets before resolving it */
  uint16_t port;
  const uint8_t *key;
  uint32_t key_len;
  iiop_component *components;
  uint32_t ncomponents;
} iiop_profile;

typedef struct iiop_ior {
  const char *type_id;       /* the repository ID, UTF-8 whatever the stream's native
                              * code set (cdr_get_string_utf8()); "" for a nil
                              * reference with no profiles */
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
 * components of 1.1+ included; 1.3 and later minors have 1.1's layout and
 * are decoded as 1.1, what follows the components skipped); a major other
 * than 1, and other profiles, are kept raw.  The standard
 * components this header decodes (ORB type, code sets, SSL, alternate
 * address) are checked too, each in its own encapsulation's byte order, so
 * a malformed one fails the read as omniORB's does.  Every count is checked
 * against the octets that remain before anything is allocated.  Errors:
 * the stream's (CDR_E_SHORT/LENGTH/LIMIT/VALUE/STRING), recorded in I with
 * their offsets; CDR_E_NOMEM; CDR_E_STATE (I has no arena); *IOR untouched
 * on error.  Decoded octets point into I's buffer (strings, keys, raw
 * profile and component data) or the arena (arrays; the type_id when it
 * is converted to UTF-8 from a non-ASCII ISO-8859-1 one). */
IIOP_API int iiop_ior_read(cdr_in *i, iiop_ior *ior) IIOP_WUR;
/* Write IOR to O (profiles decoded from iiop fields when iiop_ok and data
 * is NULL, else the raw data, so a decoded IOR re-encodes byte for byte;
 * a profile body encoded from fields uses O's byte order).  The type_id
 * is UTF-8, converted to the transmission code set (cdr_put_string_utf8());
 * a NULL one is written as "".  Errors: the stream's; CDR_E_INVALID (also recorded in
 * O) for a profile that cannot be encoded: no data and not iiop_ok with
 * len > 0, an IIOP major other than 1, components in 1.0, a NULL
 * host, key or component array with a non-zero length. */
IIOP_API int iiop_ior_write(cdr_out *o, const iiop_ior *ior);

/* Why an object string was refused: which step of reading it failed, so
 * that an ORB raises what omniORB's string_to_object raises.  omniORB reads
 * a string left to right and refuses it at the first step that fails: the
 * scheme; each corbaloc address's protocol, version, host and port; the
 * "/" and the key; for an IOR the hex digits, then the CDR decoding of the
 * octets.  Each step, and omniORB's exception and minor code for it:
 *   IIOP_URL_OK       nothing about the string (a NULL argument, CDR_E_NOMEM,
 *                     CDR_E_LIMIT; CODE CDR_E_NOMEM: the step could not be
 *                     found for want of memory, the string refused all the
 *                     same)
 *   IIOP_URL_SCHEME   an unknown or missing scheme ("IOR:", "corbaloc:",
 *                     "corbaname:") or address protocol ("iiop:", ":"; an
 *                     empty address after a ','): BAD_PARAM_BadSchemeName,
 *                     OMG minor 7
 *   IIOP_URL_ADDRESS  an address's value: a port past 65535, an IPv6
 *                     literal without its ']' or with other characters, a
 *                     host character this parser refuses (omniORB takes any
 *                     and fails to connect): BAD_PARAM_BadAddress, 8
 *   IIOP_URL_SYNTAX   the form around them: a malformed version ("1@",
 *                     "1.x@", "1.256@"), no host ("1.2@:2809", "[]"), a '#' in a
 *                     corbaloc key (the URL goes on after the key), a
 *                     corbaname name that is not a string name:
 *                     BAD_PARAM_BadSchemeSpecificPart, 9
 *   IIOP_URL_KEY      the key: no "/" after the addresses (or other text
 *                     after a host or port: "h:12a/x", "[::1]x/x", "h#x/x"),
 *                     a key character RFC 2396 and omniORB do not allow
 *                     unescaped (space, '"', '<', '>', '[', backslash, ']', '^', '`',
 *                     '{', '|', '}', controls, octets past 0x7e), a bad
 *                     %-escape, rir: beside another address:
 *                     BAD_PARAM_BadURIOther, 10
 *   IIOP_URL_VERSION  a version whose major is not 1 ("2.0@"): no IOR can
 *                     carry it: MARSHAL_InvalidIOR
 *   IIOP_URL_HEX      "IOR:" with a character that is not a hex digit in a
 *                     pair of them, or an odd digit (or a stray character)
 *                     after pairs that decode (omniORB ignores it):
 *                     MARSHAL_InvalidIOR
 *   IIOP_URL_DECODE   the octets (every whole pair; "IOR:" alone is none)
 *                     are not an encapsulated IOR; CODE is why, as
 *                     iiop_ior_read says it: CDR_E_SHORT
 *                     (MARSHAL_PassEndOfMessage), CDR_E_LENGTH
 *                     (MARSHAL_SequenceIsTooLong), CDR_E_STRING
 *                     (MARSHAL_StringNotEndWithNull: no NUL, a NUL inside,
 *                     or an empty string, which omniORB accepts), others
 *                     (MARSHAL_InvalidIOR).  A byte-order octet other than
 *                     0/1 is read as omniORB reads it, little-endian, to
 *                     find CODE (CDR_E_VALUE when the octets then decode),
 *                     an empty type ID as "", and a profile count that
 *                     iiop_ior_read refuses at 8 octets a profile is read
 *                     on, profile by profile, as omniORB reads it. */
typedef enum iiop_url_stage {
  IIOP_URL_OK = 0,
  IIOP_URL_SCHEME,
  IIOP_URL_ADDRESS,
  IIOP_URL_SYNTAX,
  IIOP_URL_KEY,
  IIOP_URL_VERSION,
  IIOP_URL_HEX,
  IIOP_URL_DECODE
} iiop_url_stage;

typedef struct iiop_url_error {
  iiop_url_stage stage;
  int code;                  /* IIOP_URL_DECODE: the CDR status of the decoding;
                              * otherwise the status the step gave */
} iiop_url_error;

/* Parse a stringified IOR ("IOR:" then an even number of hex digits, case
 * insensitive, prefix included, encoding an encapsulation) into *IOR,
 * allocating from A (the octets, then what iiop_ior_read allocates; the
 * result points into them).  No whitespace is skipped.  Errors:
 * CDR_E_INVALID (a NULL argument, no "IOR:" prefix, no digits, an odd digit
 * count, a non-hex character: BAD_PARAM, checked before anything is
 * allocated), CDR_E_NOMEM, the decoding errors of iiop_ior_read (MARSHAL);
 * a byte-order octet other than 0/1 is CDR_E_VALUE.  *IOR untouched on
 * error. */
IIOP_API int iiop_ior_from_string(const char *s, cdr_arena *a, iiop_ior *ior) IIOP_WUR;
/* As iiop_ior_from_string (the same return codes), and *WHY (may be NULL)
 * says which step refused the string (iiop_url_stage; IIOP_URL_OK with
 * CDR_OK when it is accepted).  To find it, a string that is not all pairs
 * of hex digits has its whole pairs decoded too (from A, at most half the
 * string's length). */
IIOP_API int iiop_ior_from_string_why(const char *s, cdr_arena *a, iiop_ior *ior,
                                      iiop_url_error *why) IIOP_WUR;
/* "IOR:" + lower-case hex of the IOR as an encapsulation in BYTE_ORDER
 * (CDR_BIG_ENDIAN / CDR_LITTLE_ENDIAN), NUL-terminated, allocated from A.
 * Raw profile bodies keep their own byte order.  Errors: CDR_E_INVALID (a
 * NULL argument, byte order not 0/1), those of iiop_ior_write, CDR_E_NOMEM;
 * *OUT untouched on error. */
IIOP_API int iiop_ior_to_string(const iiop_ior *ior, int byte_order, cdr_arena *a, char **out) IIOP_WUR;

/* The first decoded IIOP profile of IOR, or NULL. */
IIOP_API const iiop_profile *iiop_ior_iiop_profile(const iiop_ior *ior);
/* The first component with TAG in P, or NULL. */
IIOP_API const iiop_component *iiop_profile_component(const iiop_profile *p, uint32_t tag);
/* Decoders of the standard components.  Each reads C's data as an
 * encapsulation in its own byte order.  Errors: CDR_E_INVALID (a NULL
 * argument where one is required, or C's tag is not the function's),
 * MARSHAL-class (CDR_E_SHORT, CDR_E_LENGTH, CDR_E_VALUE for a byte-order
 * octet other than 0/1, CDR_E_LIMIT), CDR_E_NOMEM; outputs untouched on
 * error. */
/* TAG_CODE_SETS: CONV_FRAME::CodeSetComponentInfo (arrays from A). */
IIOP_API int iiop_codeset_info_decode(const iiop_component *c, cdr_arena *a, iiop_codeset_info *out) IIOP_WUR;
/* TAG_SSL_SEC_TRANS: SSLIOP::SSL { ushort target_supports, target_requires,
 * port }.  As omniORB does, component data that is not 8 octets long is read
 * as VisiBroker's layout (ulong, ulong, ushort; a ulong above 0xFFFF is
 * CDR_E_VALUE).  Any output pointer may be NULL. */
IIOP_API int iiop_ssl_component_decode(const iiop_component *c, uint16_t *target_supports,
                                       uint16_t *target_requires, uint16_t *port) IIOP_WUR;
/* TAG_ORB_TYPE: one ulong (IIOP_ORB_TYPE_OMNIORB for omniORB). */
IIOP_API int iiop_orb_type_decode(const iiop_component *c, uint32_t *orb_type) IIOP_WUR;
/* TAG_ALTERNATE_IIOP_ADDRESS: string host, ushort port.  *HOST points into
 * C's data (NUL-terminated there). */
IIOP_API int iiop_alternate_address_decode(const iiop_component *c, const char **host,
                                           uint16_t *port) IIOP_WUR;

/* Encoders of the standard components for iiop_ior_make(): *OUT gets the
 * tag and an encapsulation in BYTE_ORDER allocated from A.  Errors:
 * CDR_E_INVALID (a NULL argument, byte order not 0/1, conversion code sets
 * NULL with a non-zero count), CDR_E_NOMEM; *OUT untouched on error. */
IIOP_API int iiop_codeset_info_encode(const iiop_codeset_info *cs, int byte_order, cdr_arena *a,
                                      iiop_component *out) IIOP_WUR;
IIOP_API int iiop_orb_type_encode(uint32_t orb_type, int byte_order, cdr_arena *a,
                                  iiop_component *out) IIOP_WUR;
IIOP_API int iiop_ssl_component_encode(uint16_t target_supports, uint16_t target_requires,
                                       uint16_t port, int byte_order, cdr_arena *a,
                                       iiop_component *out) IIOP_WUR;

/* Code set negotiation (CORBA 3.x "Code Set Conversion", "Code Set
 * Negotiation"): the client's native code set NATIVE (with conversion code
 * sets CONV[0..NCONV); CONV may be NULL when NCONV is 0) against the
 * server's component S, in this order:
 *   1. both natives equal: that code set;
 *   2. the server's native is in CONV (the client converts): the server's native;
 *   3. NATIVE is in S's conversion list (the server converts): NATIVE;
 *   4. a conversion code set both list: the first of S's that CONV has;
 *   5. both natives compatible: the fallback, UTF-8 for char and UTF-16
 *      for wchar.  "Compatible" is read as: both are ISO 10646 based or
 *      ISO-8859-1 (UTF-8, UTF-16, UCS-2, UCS-4, ISO-8859-1), so each side
 *      converts its native to and from the fallback;
 *   6. else 0 (no code set: CODESET_INCOMPATIBLE).
 * S NULL, or a component with native 0 and no conversion code sets (absent
 * information), means the defaults: ISO-8859-1 for char and no wchar code
 * set (0).  A NATIVE of 0 gives 0.  Pure; thread-safe. */
IIOP_API uint32_t iiop_codeset_negotiate(uint32_t native, const uint32_t *conv, uint32_t nconv,
                                         const iiop_codeset_component *s, int for_wchar);

/* ---------------------------------------------------------------- corbaloc */

typedef struct iiop_corbaloc_addr {
  uint8_t major, minor;      /* default 1.0 (as the spec says); 1.3 and later
                              * kept as written (a client speaks 1.2) */
  uint8_t tls;               /* 1: an "ssliop:" address (omniORB's): IIOP 1.2
                              * over TLS to PORT; 0: "iiop:" or ":" */
  const char *host;          /* NUL-terminated; IPv6 without the brackets;
                              * "localhost" for an empty address */
  uint16_t port;             /* default 2809 (also for "host:") */
} iiop_corbaloc_addr;

typedef struct iiop_corbaloc {
  iiop_corbaloc_addr *addrs;
  uint32_t naddrs;
  const uint8_t *key;        /* percent-decoded object key */
  uint32_t key_len;
} iiop_corbaloc;

/* Parse "corbaloc:" followed by a comma-separated list of "iiop:", ":" or
 * "ssliop:" addresses ([version@]host[:port], IPv6 in brackets) then "/" and
 * the percent-escaped object key, allocating from A.  "corbaloc:" is matched
 * without regard to case (a URI scheme, RFC 2396 section 3.1); the protocol
 * tokens "iiop:", "ssliop:" and "rir:" only in lower case, as the spec
 * writes them and omniORB reads them.  As the spec and omniORB: an empty
 * address is "localhost" port 2809 version 1.0, an empty port ("host:") is
 * 2809.  A version is "major.minor" with minor 0..255; major 1 for iiop (any
 * minor: 1.3 and later are kept, a client speaks 1.2), any major for ssliop,
 * whose version omniORB ignores: an ssliop address is always 1.2 with TLS
 * set.  A host name is a DNS name or dotted IPv4
 * address (letters, digits, '-', '.', '_'; at most 255 octets) and is never
 * read as a number, so "1234567890123.1.1.1" is just a name; a bracketed
 * IPv6 address holds hex digits, ':' and '.' and may end in a zone
 * ("%25eth0" as RFC 6874 writes it, or "%eth0"), stored as "fe80::1%eth0".
 * The key may be empty; its octets other than %-escapes must be those RFC
 * 2396 (and omniORB) allow unescaped: letters, digits and
 * ;/?:@&=+$,-_.!~*()'  The URL is read left to right as omniORB reads it
 * (iiop_url_stage), so an unknown protocol is reported before a missing
 * "/".  Errors: CDR_E_INVALID (BAD_PARAM: a NULL argument, unknown
 * protocol, no host before a port or after a version, a port outside
 * 0..65535 or not decimal, a bad version, a bad host character, a bad
 * %-escape, a key character not allowed or '#', no key separator),
 * CDR_E_UNSUPPORTED ("rir:", which names the local ORB's initial
 * references, not an address), CDR_E_LIMIT (more than 2^32 - 1 addresses or
 * key octets), CDR_E_NOMEM; *OUT untouched on error. */
IIOP_API int iiop_corbaloc_parse(const char *url, cdr_arena *a, iiop_corbaloc *out) IIOP_WUR;
/* As iiop_corbaloc_parse (the same return codes), and *WHY (may be NULL)
 * says which step refused URL: IIOP_URL_OK with CDR_OK when it is
 * accepted, and with CDR_E_UNSUPPORTED for a lone "rir:" address;
 * IIOP_URL_KEY with CDR_E_UNSUPPORTED for rir: beside other addresses. */
IIOP_API int iiop_corbaloc_parse_why(const char *url, cdr_arena *a, iiop_corbaloc *out,
                                     iiop_url_error *why) IIOP_WUR;

/* Build an IOR with one IIOP profile (version MAJOR.MINOR, host, port, key)
 * and, for 1.1+, components COMPS[0..NCOMPS), allocating from A: every
 * string, key and component is copied, so the arguments need not outlive
 * the result.  The profile is left undecoded (data NULL), so
 * iiop_ior_write() encodes it in the output stream's byte order.  A server
 * advertising omniORB's code sets passes a component from
 * iiop_codeset_info_encode() with char ISO-8859-1 (conversion UTF-8) and
 * wchar UTF-16 (conversion UTF-16).  Errors: CDR_E_INVALID (a NULL a,
 * type_id, host or out, an empty host, key NULL with key_len > 0, comps NULL
 * with ncomps > 0, version not 1.0-1.2, components with 1.0), CDR_E_NOMEM;
 * *OUT untouched on error. */
IIOP_API int iiop_ior_make(cdr_arena *a, const char *type_id, uint8_t major, uint8_t minor,
                           const char *host, uint16_t port, const uint8_t *key, uint32_t key_len,
                           const iiop_component *comps, uint32_t ncomps, iiop_ior *out) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
