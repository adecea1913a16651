/* cdr/repoid.h - repository IDs: the OMG IDL form, the RMI hashed form, and a
 * per-type cache that computes a type's ID once and publishes it without a lock.
 *
 * Specs: CORBA 3.0 (formal/02-06-01) 10.7.1 "OMG IDL Format" and 10.7.2 "RMI
 * Hashed Format"; Java Language to IDL Mapping 1.3.5.7 (the hash) and its
 * rules for characters that are illegal in IDL identifiers.
 *
 * Strings: every char * in and out of this module is UTF-8 (the C side's
 * convention); the codeset layer converts an ID to the negotiated char code
 * set when it goes on the wire.  Java strings are sequences of UTF-16 code
 * units, some of which plain UTF-8 cannot say, so the Java names given to the
 * RMI functions (class, field and descriptor strings) may also use Java's
 * modified UTF-8: the bytes C0 80 stand for U+0000, and a surrogate (paired or
 * lone) may be written as its own 3-byte sequence.  Any other malformed UTF-8
 * (overlong forms, stray or missing continuation bytes, > U+10FFFF) is
 * CDR_E_CODESET.
 *
 * Sizes: the functions that write into a caller buffer write the ID and a
 * terminating NUL; *len_out is the ID's length in bytes without the NUL, so
 * BUFSIZE must be at least that plus 1.  BUF == NULL with BUFSIZE == 0 asks
 * for the length only (and still validates everything).  On any error BUF and
 * *len_out are left untouched.
 *
 * Thread safety: every function is reentrant and may run concurrently on the
 * same inputs, except cdr_repoid_cache_clear().
 */
#ifndef CDR_REPOID_H
#define CDR_REPOID_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/export.h>
#include <cdr/mem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ IDL form */

/* Writes the OMG IDL format ID "IDL:<prefix>/<A>/<B>:<major>.<minor>"
 * (CORBA 3.0 10.7.1) into BUF.
 *
 * PREFIX is the #pragma prefix (e.g. "omg.org"), or NULL or "" for none: one
 * or more non-empty segments separated by '/', each of ASCII letters, digits,
 * '_', '-' and '.'.  SCOPED is the scoped name, written either "A::B" (IDL
 * style, an optional leading "::" is dropped) or "A/B" (ID style), one style
 * per name; each component is an identifier, [A-Za-z_][A-Za-z0-9_]* (IDL's
 * escaping underscore must already have been removed by the IDL compiler).
 * VERSION is "<major>.<minor>", two non-empty runs of decimal digits, or NULL
 * for "1.0".
 *
 * Returns CDR_OK; CDR_E_INVALID if SCOPED or LEN_OUT is NULL, or if a name,
 * component, prefix or version is empty or has a character outside the sets
 * above; CDR_E_LIMIT if BUFSIZE is smaller than the ID plus its NUL. */
CDR_API int cdr_repoid_idl(const char *prefix, const char *scoped, const char *version,
                           char *buf, size_t bufsize, size_t *len_out) CDR_WUR;

/* The argument cdr_repoid_idl_compute() takes. */
typedef struct cdr_repoid_idl_name {
  const char *prefix;  /* NULL or "": none */
  const char *scoped;
  const char *version; /* NULL: "1.0" */
} cdr_repoid_idl_name;

/* A cdr_repoid_compute_fn for the IDL form: ARG is a const
 * cdr_repoid_idl_name *.  On success *ID_OUT is a NUL-terminated ID in one
 * block from A (NULL: the global allocator) that the caller owns and frees
 * with A.  Returns CDR_OK, cdr_repoid_idl()'s errors (CDR_E_INVALID also for
 * ARG or ID_OUT NULL), or CDR_E_NOMEM; on error nothing stays allocated and
 * *ID_OUT is untouched. */
CDR_API int cdr_repoid_idl_compute(const void *arg, char **id_out, const cdr_allocator *a) CDR_WUR;

/* ------------------------------------------------------------ RMI hashed form */

/* What the Java class is, for the hash (Java-to-IDL 1.3.5.7). */
typedef enum cdr_rmi_kind {
  CDR_RMI_SERIALIZABLE = 0,     /* implements Serializable, not Externalizable: hash from the class data */
  CDR_RMI_EXTERNALIZABLE = 1,   /* implements Externalizable: hash 0000000000000001 */
  CDR_RMI_NOT_SERIALIZABLE = 2, /* an interface or a non-serializable class: hash 0, no SUID in the ID */
  CDR_RMI_ARRAY = 3             /* an array class: its ID carries its element class's hash and SUID */
} cdr_rmi_kind;

/* Java's Modifier bits that take a field out of the serial form. */
#define CDR_RMI_FIELD_STATIC 0x0008u
#define CDR_RMI_FIELD_TRANSIENT 0x0080u

/* One field as declared in the class (or one entry of serialPersistentFields,
 * which then replaces the declared fields: give those with modifiers 0). */
typedef struct cdr_rmi_field {
  const char *name;       /* the Java field name; non-empty */
  const char *descriptor; /* the JVM field descriptor: "I", "Ljava/lang/String;", "[[J" (slashes, not dots) */
  unsigned modifiers;     /* Java modifier bits; STATIC or TRANSIENT fields are skipped */
} cdr_rmi_field;

/* A Java class as the RMI hash sees it.  Descriptions are plain data, usually
 * static const, and are only read. */
typedef struct cdr_rmi_class {
  /* Class.getName(): "java.util.ArrayList", "a.Outer$Inner"; for CDR_RMI_ARRAY
   * the array's name, "[I" or "[[Ljava.lang.String;". */
  const char *name;
  cdr_rmi_kind kind;
  /* The direct superclass when it is serializable; NULL when it is not
   * (java.lang.Object, or e.g. AbstractList for ArrayList).  Its hash is
   * computed recursively and goes first into this class's hash; a
   * non-serializable superclass counts as hash 0. */
  const struct cdr_rmi_class *superclass;
  int has_write_object; /* non-zero: the class declares private void writeObject(ObjectOutputStream) */
  const cdr_rmi_field *fields; /* every declared field, in any order; may be NULL when nfields is 0 */
  size_t nfields;
  uint64_t suid;        /* the serialVersionUID (declared or computed by Java) */
  /* CDR_RMI_ARRAY of objects only: the element class, whose name must be the
   * one inside "[...L<name>;".  NULL for arrays of primitives and for every
   * other kind. */
  const struct cdr_rmi_class *element;
} cdr_rmi_class;

/* The deepest superclass chain cdr_rmi_hash() follows (a longer one, or a
 * cycle, is CDR_E_LIMIT). */
#define CDR_RMI_MAX_DEPTH 64

/* Computes the 64-bit RMI hash of CLS (Java-to-IDL 1.3.5.7): 0 for
 * CDR_RMI_NOT_SERIALIZABLE, 1 for CDR_RMI_EXTERNALIZABLE; for
 * CDR_RMI_SERIALIZABLE the first 8 bytes of SHA-1, read little-endian, over
 * what java.io.DataOutputStream writes for writeLong(superclass hash),
 * writeInt(has_write_object ? 2 : 1), then for each field that is neither
 * static nor transient, in String.compareTo order of the names (UTF-16 code
 * unit order), writeUTF(name) and writeUTF(descriptor).  Temporary memory
 * comes from A (NULL: global); OpenSSL allocates its digest state itself.
 *
 * Returns CDR_OK and sets *HASH_OUT; CDR_E_INVALID if CLS or HASH_OUT is NULL,
 * CLS is an array (an array has no hash of its own) or of an unknown kind, a
 * superclass is Externalizable or an array, or a field (of CLS or a
 * superclass) has a NULL or empty name, a NULL or malformed descriptor, or
 * the same name as another;
 * CDR_E_CODESET for malformed UTF-8; CDR_E_LIMIT if a name or descriptor is
 * longer than writeUTF's 65535 bytes, there are more than 65535 fields, or the
 * superclass chain is deeper than CDR_RMI_MAX_DEPTH; CDR_E_NOMEM; and
 * CDR_E_UNSUPPORTED if OpenSSL cannot compute SHA-1. */
CDR_API int cdr_rmi_hash(const cdr_rmi_class *cls, const cdr_allocator *a, uint64_t *hash_out) CDR_WUR;

/* Writes CLS's RMI hashed format ID (CORBA 3.0 10.7.2) into BUF:
 *   serializable       RMI:<name>:<hash>:<suid>
 *   externalizable     RMI:<name>:0000000000000001:<suid>
 *   not serializable   RMI:<name>:0000000000000000
 *   array of objects   RMI:[...L<element name>;<the element's hash part as above>
 *   array of primitive RMI:[...<letter>:0000000000000000
 * with the hash and SUID as 16 upper-case hex digits.  The SUID is always
 * written for a serializable class, as the JDK and GlassFish ORBs do (the
 * spec's older text wrote it only where it differs from the hash).  In a
 * class name every UTF-16 unit that is above U+00FF, or is not legal in an IDL
 * identifier (letters, digits, '_', the Latin-1 letters) other than '.', is
 * written as \UXXXX with 4 upper-case hex digits: so '$' is \U0024 and a
 * supplementary character is two escaped surrogates.  Latin-1 letters stay
 * as they are (in UTF-8).  Java maps some classes to other IDs (String to
 * IDL:omg.org/CORBA/WStringValue:1.0, IDLEntity types to their IDL ID): that
 * choice is the caller's.  A (NULL: global) is used as in cdr_rmi_hash().
 *
 * Returns CDR_OK; cdr_rmi_hash()'s errors for CLS or its element class;
 * CDR_E_INVALID also if LEN_OUT is NULL, a class name is empty, holds '/',
 * ';' or '[' (outside an array name's own syntax) or an empty '.' segment, an
 * array name is malformed or names another class than ELEMENT, or ELEMENT is
 * given where it is not used; CDR_E_LIMIT if BUFSIZE is smaller than the ID
 * plus its NUL. */
CDR_API int cdr_repoid_rmi(const cdr_rmi_class *cls, const cdr_allocator *a,
                           char *buf, size_t bufsize, size_t *len_out) CDR_WUR;

/* A cdr_repoid_compute_fn for the RMI form: ARG is a const cdr_rmi_class *.
 * On success *ID_OUT is a NUL-terminated ID in one block from A (NULL:
 * global), owned by the caller.  Returns CDR_OK, cdr_repoid_rmi()'s errors
 * (CDR_E_INVALID also for ARG or ID_OUT NULL) or CDR_E_NOMEM; on error nothing
 * stays allocated and *ID_OUT is untouched. */
CDR_API int cdr_repoid_rmi_compute(const void *arg, char **id_out, const cdr_allocator *a) CDR_WUR;

/* ------------------------------------------------------------ per-type cache */

/* Computes a repository ID: on success returns CDR_OK and stores in *ID_OUT a
 * NUL-terminated string in one block allocated from A, which passes to the
 * caller; on failure returns a negative cdr_status, leaves *ID_OUT untouched
 * and keeps nothing allocated.  It may run in several threads at once. */
typedef int (*cdr_repoid_compute_fn)(const void *arg, char **id_out, const cdr_allocator *a);

/* A type descriptor's repository ID, computed on first use.  Zero-initialised
 * (or CDR_REPOID_CACHE_INIT) is empty.  ID is read and written only with
 * atomic operations. */
typedef struct cdr_repoid_cache {
  const char *id;
} cdr_repoid_cache;
#define CDR_REPOID_CACHE_INIT { NULL }

/* Returns C's ID, computing it with COMPUTE(ARG, &id, A) on first use.  Once
 * the ID is there a call is one acquire load: no lock, no read-modify-write.
 * While it is not, every caller computes its own copy and offers it with one
 * compare-and-set (release on success, acquire on failure); the one that wins
 * is published, every loser frees its copy with A and returns the winner's.
 * The returned string is owned by C and lives until cdr_repoid_cache_clear();
 * every caller of one cache must pass the same allocator A (NULL: global).
 * On success *STATUS_OUT (if STATUS_OUT is non-NULL) is CDR_OK.  On failure
 * returns NULL, leaves C empty and sets *STATUS_OUT to COMPUTE's error, or to
 * CDR_E_INVALID if C or COMPUTE is NULL, or if COMPUTE returned CDR_OK (or a
 * positive value) without an ID.  Thread-safe. */
CDR_API const char *cdr_repoid_cache_get(cdr_repoid_cache *c, const cdr_allocator *a,
                                         cdr_repoid_compute_fn compute, const void *arg,
                                         int *status_out) CDR_WUR;

/* Frees C's ID with A (the allocator its gets used) and empties C.  For
 * teardown and tests: no other thread may use C during or after the call,
 * and every pointer cdr_repoid_cache_get() returned from C becomes invalid.
 * C NULL or empty: nothing happens. */
CDR_API void cdr_repoid_cache_clear(cdr_repoid_cache *c, const cdr_allocator *a);

#ifdef __cplusplus
}
#endif
#endif
