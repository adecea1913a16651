/* iiop/naming.h - CosNaming string names and corbaname URLs (OMG Naming
 * Service 1.3, 2.4 "Stringified Names" and 2.5.3 "corbaname URL"; CORBA
 * 3.x Part 2, "corbaloc" and "corbaname" URL schemes).
 *
 * The parsers libiiop's client (iiop_client_resolve() in iiop/orb.h) and
 * libcorbaorb (corbaname: in CORBA_ORB_string_to_object and the
 * corbaorb_naming_* helpers) share.  Nothing here touches the network.
 */
#ifndef IIOP_NAMING_H
#define IIOP_NAMING_H

#include <stddef.h>
#include <cdr/arena.h>
#include <iiop/export.h>
#include <iiop/ior.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One component of a CosNaming::Name: its id and kind (both NUL-terminated;
 * an absent kind is ""). */
typedef struct iiop_name_component {
  const char *id;
  const char *kind;
} iiop_name_component;

/* The most components the string name S can have: 1 + its '/' count. */
IIOP_API size_t iiop_name_max_components(const char *s);

/* Parse the stringified name in BUF (NUL-terminated), in place, into at
 * most MAX components of OUT, their count into *N.  The rules of Naming
 * Service 2.4: components are separated by '/', a component's id and kind
 * by '.', '\\' takes the next character literally ("a\\.b" is the id
 * "a.b"); "id" alone has the kind "", ".kind" the id "", "." alone an
 * empty id and kind.  The ids and kinds point into BUF, which is rewritten
 * (escapes removed, separators replaced by NULs) and must outlive OUT.
 * Errors: CDR_E_INVALID (a NULL argument, an empty string name, an empty
 * component -- "a//b", "/a", "a/" --, a second '.', a trailing '.' after an
 * id ("a."), a trailing '\\'), CDR_E_LIMIT (more than MAX components; MAX
 * iiop_name_max_components(BUF) never is).  On error BUF is garbage and *N
 * untouched. */
IIOP_API int iiop_name_parse(char *buf, iiop_name_component *out, size_t max, size_t *n);

/* Decode the %XX escapes (RFC 2396, as corbaloc and corbaname URLs write
 * octets outside their character set) of S (N octets, need not be
 * NUL-terminated) into OUT, which holds N + 1 octets; OUT is
 * NUL-terminated.  Errors: CDR_E_INVALID (a '%' not followed by two hex
 * digits, or %00: a NUL cannot be part of a name or key). */
IIOP_API int iiop_url_unescape(const char *s, size_t n, char *out);

/* A corbaname URL split into its parts. */
typedef struct iiop_corbaname {
  char *base;                /* "corbaloc:ADDRS/KEY", the naming context's URL (KEY
                              * "NameService" when the URL has none; "corbaloc:rir:/KEY"
                              * for "corbaname:rir:...") */
  int has_name;              /* the URL has a '#': resolve COMPS in the context */
  iiop_name_component *comps;/* the name, %XX-decoded then parsed (iiop_name_parse()) */
  size_t ncomps;
} iiop_corbaname;

/* Parse "corbaname:ADDRS[/KEY][#NAME]" (the scheme in any case), every
 * part allocated from A.  ADDRS is not checked here (the corbaloc parser
 * does that when BASE is resolved); NAME is %XX-decoded then parsed as a
 * string name.  Errors: CDR_E_INVALID (a NULL argument, not "corbaname:",
 * no address, "#" with an empty name, a bad %-escape in the name, a name
 * iiop_name_parse() refuses), CDR_E_NOMEM; *OUT untouched on error. */
IIOP_API int iiop_corbaname_parse(const char *url, cdr_arena *a, iiop_corbaname *out) IIOP_WUR;
/* As iiop_corbaname_parse (the same return codes), and *WHY (may be NULL)
 * says which step refused URL, as omniORB reads it (iiop_url_stage in
 * iiop/ior.h): no address is IIOP_URL_SCHEME; a name that is refused has
 * the addresses and key checked first (iiop_corbaloc_parse_why() of BASE,
 * from A), whose fault is reported if they have one; then a bad %-escape in
 * the name is IIOP_URL_KEY (omniORB's BAD_PARAM_BadURIOther), an empty
 * name or one iiop_name_parse() refuses IIOP_URL_SYNTAX
 * (BAD_PARAM_BadSchemeSpecificPart).  An accepted URL's ADDRS are not
 * checked (resolving BASE does that). */
IIOP_API int iiop_corbaname_parse_why(const char *url, cdr_arena *a, iiop_corbaname *out,
                                      iiop_url_error *why) IIOP_WUR;

/* The object key of "corbaloc:rir:[/KEY]" (REST is what follows
 * "corbaloc:rir:"), %XX-decoded into BUF (SIZE octets, NUL-terminated); an
 * absent or empty key is "NameService" (CORBA 3.x Part 2, corbaloc rir).
 * Errors: CDR_E_INVALID (a NULL argument, another address after rir: --
 * "rir:,iiop:h/k" --, anything but '/' after "rir:", a bad escape, %00),
 * CDR_E_LIMIT (the key does not fit BUF). */
IIOP_API int iiop_rir_key(const char *rest, char *buf, size_t size) IIOP_WUR;

#ifdef __cplusplus
}
#endif

#endif
