/* cdr/value.h - valuetypes: graphs of CORBA values with sharing and cycles.
 *
 * Wire format: OMG CORBA 3.x, Part 2, GIOP chapter, "Value Types" in the
 * CDR transfer syntax: a null value is the long 0; a value is a value tag
 * (a long in 0x7fffff00..0x7fffffff: 0x01 a codebase URL follows, bits 0x06
 * = 0x02 one repository ID / 0x06 a list of them / 0x00 none, 0x08 chunked
 * encoding), the codebase, the repository ID(s), then the state (base type's
 * members first); a value already written in the same stream is written as
 * an indirection (0xffffffff and a negative long offset from the offset
 * field to the earlier value tag), and so are repeated repository IDs,
 * repository-ID lists and codebase URLs (offset to their length/count
 * field).  Chunked values (truncatable and custom ones, and every value
 * nested inside a chunked value) carry their state in chunks (a long length
 * 1..0x7ffffeff then that many octets) closed by an end tag (the negative
 * nesting depth of chunked values); this library writes compacted end tags
 * (one tag closes every level that ends at the same point) and reads both
 * forms.
 *
 * C representation: a value is a C struct whose first member is a
 * cdr_value (the actual type at run time), followed by its state members;
 * a derived value type's struct starts with its base type's struct, so a
 * SubNode* is also a Node*.  A valuetype member or a member of kind
 * CDR_K_VALUE elsewhere holds a pointer to such a struct (NULL: null).
 *
 * Writing and reading use explicit stacks instead of C recursion for values
 * nested directly in values, so a linked list of any length round-trips;
 * nesting through other constructed types (a struct holding a value) uses
 * the C stack and is bounded by opts.max_depth.
 */
#ifndef CDR_VALUE_H
#define CDR_VALUE_H

#include <cdr/type.h>
#include <cdr/repoid.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdr_value_type cdr_value_type;

/* The first member of every value struct. */
typedef struct cdr_value {
  const cdr_value_type *type;   /* the actual (most derived) type */
} cdr_value;

/* Custom marshalling (IDL "custom valuetype"): write/read the whole state
 * with the stream API (cdr_put_*, cdr_write, cdr_put_value ...).  Custom
 * values are always chunked.  Return CDR_OK or an error. */
typedef int (*cdr_value_marshal_fn)(cdr_out *o, const void *value, const cdr_value_type *t);
typedef int (*cdr_value_unmarshal_fn)(cdr_in *i, void *value, const cdr_value_type *t);
/* Factory: a zeroed object of T->size octets from arena A, with its
 * cdr_value header set; NULL on allocation failure.  NULL factory: the
 * library does exactly that. */
typedef void *(*cdr_value_factory_fn)(cdr_arena *a, const cdr_value_type *t);

enum {
  CDR_VT_TRUNCATABLE = 1u << 0,  /* "truncatable" base: receivers may truncate to it */
  CDR_VT_BOX = 1u << 1,          /* a value box: exactly one member, no base */
  CDR_VT_CUSTOM = 1u << 2,       /* custom marshalled (marshal/unmarshal set) */
  CDR_VT_ABSTRACT = 1u << 3,     /* abstract: never instantiated */
  /* No walk plan is built or cached for this type: its values take the
   * general walk.  Set by the library on the value types of TypeCodes it
   * builds (cdr/typecode.h), which may live in a decode arena that is reset
   * without cdr_value_type_clear(). */
  CDR_VT_NOCACHE = 1u << 4
};

/* A value member's visibility in its TypeCode (CORBA's Visibility). */
enum { CDR_PRIVATE_MEMBER = 0, CDR_PUBLIC_MEMBER = 1 };

/* A value type's walk plan: its members flattened for the marshalling
 * loops.  Opaque; built by the library on first use (cdr_value_type_plan). */
typedef struct cdr_value_plan cdr_value_plan;

/* A value type descriptor.  Static data, except two caches the library
 * fills on first use and publishes atomically (the first one built wins;
 * reading one is a single acquire load, no lock): `id`, the repository ID,
 * and `plan`, the walk plan, allocated from the process-wide allocator
 * (cdr_mem_global()) of the time.  Both are read-only once published, so
 * one descriptor serves any number of streams and threads at once.
 *
 * Once used, a descriptor, its members, its base and its member types must
 * not change: the plan is built from them once and never checked again (a
 * descriptor whose members change after first use is not supported).  A
 * descriptor in memory of its own (not static) is torn down with
 * cdr_value_type_clear() once no stream uses it, before its memory is freed
 * or reused; a new descriptor built there (or a copy of a used one) starts
 * with empty caches: zero `id` and `plan` (CDR_REPOID_CACHE_INIT, NULL), as
 * a designated initializer or memset gives.  A static descriptor may keep
 * its caches for the process. */
struct cdr_value_type {
  const char *name;                  /* IDL or Java name, for messages */
  /* Where the repository ID comes from, first set wins: */
  const char *repo_id;               /* given as is ("IDL:Bench/Node:1.0") */
  const cdr_rmi_class *rmi;          /* RMI hashed form computed from a Java class */
  cdr_repoid_idl_name idl;           /* IDL form computed from the scoped name */
  const cdr_value_type *base;        /* concrete base value type, or NULL */
  unsigned flags;                    /* CDR_VT_* (CDR_VT_TRUNCATABLE: truncatable
                                      * with respect to base) */
  const cdr_member *members;         /* this type's own state members (base's excluded) */
  uint32_t nmembers;
  uint32_t size;                     /* sizeof the C struct (cdr_value header included) */
  uint32_t align;                    /* _Alignof the C struct */
  const char *codebase;              /* codebase URL to send, or NULL */
  cdr_value_marshal_fn marshal;      /* custom values only */
  cdr_value_unmarshal_fn unmarshal;
  cdr_value_factory_fn factory;
  cdr_repoid_cache id;               /* filled by the library: the repository ID */
  const cdr_value_plan *plan;        /* filled by the library: the walk plan */
  /* For the type's TypeCode (cdr/typecode.h): each own member's visibility,
   * CDR_PUBLIC_MEMBER or CDR_PRIVATE_MEMBER, nmembers entries; NULL: all
   * public. */
  const int16_t *visibility;
  /* Filled by the library on first use, published as `plan` is: a
   * descriptor of kind CDR_K_VALUE for this type, which
   * cdr_tc_concrete_base_type() returns for its derived types (allocated
   * from the process-wide allocator; cdr_value_type_clear() frees it). */
  const struct cdr_type *tc;
};

/* T's repository ID, computed on first use (one acquire load afterwards;
 * many threads asking at once get the same string).  NULL with *STATUS set
 * when it cannot be computed (CDR_E_INVALID: no source; CDR_E_NOMEM). */
CDR_API const char *cdr_value_type_id(const cdr_value_type *t, int *status) CDR_NONNULL(1);

/* 1 if T is D or one of D's base types, else 0. */
CDR_API int cdr_value_type_is_base_of(const cdr_value_type *t, const cdr_value_type *d);

/* T's walk plan, built and published on first use (afterwards one acquire
 * load; many threads asking at once all get the one plan that was published
 * first, the others' copies are freed).  A plan is one block from the
 * process-wide allocator, about 100 octets and 24 more a member (base types'
 * included, at most 48).  cdr_put_value() and cdr_get_value() make it for
 * each type their walk loops take (values outside chunked encoding);
 * calling this ahead moves that one-time allocation out of the first
 * message, and nothing else writes the wire differently.  The plan lives until
 * cdr_value_type_clear(T).  NULL with *STATUS (if STATUS is non-NULL) set to
 * CDR_E_NOMEM when it cannot be allocated; the walks then take their general
 * path, which writes and reads the same octets.  Thread-safe. */
CDR_API const cdr_value_plan *cdr_value_type_plan(const cdr_value_type *t, int *status)
  CDR_NONNULL(1);

/* Tear down T's caches: free its walk plan (with the allocator it came
 * from), its TypeCode descriptor (`tc`) and its computed repository ID (with the process-wide allocator, as
 * cdr_repoid_cache_clear(&T->id, NULL)), and empty both, so that T's memory
 * may be freed or a new descriptor built in it.  Only T itself: not its
 * base or member types.  No stream may use T during or after the call
 * (until it is used anew, which fills the caches again); every pointer
 * cdr_value_type_id() or cdr_value_type_plan() returned for T becomes
 * invalid, so a registry holding T must be freed first unless T's ID is
 * given as a string (repo_id, which is not freed).  The plan's allocator
 * must still be alive: the process-wide one at the time the plan was built.
 * Empty caches: nothing happens. */
CDR_API void cdr_value_type_clear(cdr_value_type *t) CDR_NONNULL(1);

/* ---------------------------------------------------------------- registry
 * Maps repository IDs to descriptors on the receive side.  Look-ups take no
 * lock (an open-addressing table of atomically published entries);
 * registration takes a mutex.  The global registry serves every stream whose
 * options do not name another. */
typedef struct cdr_registry cdr_registry;

CDR_API cdr_registry *cdr_registry_global(void);
/* A new, empty registry (NULL on allocation failure); free it with
 * cdr_registry_free() once no stream uses it. */
CDR_API cdr_registry *cdr_registry_new(void);
CDR_API void cdr_registry_free(cdr_registry *r);
/* Register T (and its base types) under their repository IDs.  Registering
 * the same descriptor again is a no-op; another descriptor with an ID
 * already registered: CDR_E_INVALID.  CDR_E_LIMIT past 4096 types;
 * CDR_E_NOMEM.  Thread-safe. */
CDR_API int cdr_registry_add(cdr_registry *r, const cdr_value_type *t) CDR_NONNULL(1, 2);
/* The descriptor registered under ID (LEN octets), or NULL.  Lock-free. */
CDR_API const cdr_value_type *cdr_registry_find(const cdr_registry *r, const char *id, size_t len)
  CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- options */

typedef enum cdr_value_typeinfo {
  /* As omniORB and the JDK ORB do: no type information when the actual type
   * equals the declared type and the value is not inside a chunked value;
   * one repository ID otherwise; the ID list for truncatable types. */
  CDR_TYPEINFO_MINIMAL = 0,
  /* Always send the repository ID (or list). */
  CDR_TYPEINFO_ALWAYS = 1
} cdr_value_typeinfo;

typedef struct cdr_value_opts {
  cdr_value_typeinfo typeinfo;   /* default CDR_TYPEINFO_MINIMAL */
  int chunk_all;                 /* chunk every value, not only those that need it (default 0) */
  uint32_t max_depth;            /* values nested in values (default 1,000,000) */
  uint32_t max_values;           /* values per stream (default 16 Mi) */
  uint32_t max_indirections;     /* indirections a reading stream follows: to values,
                                  * repository IDs, codebase URLs and ID lists
                                  * (default 16 Mi); past it CDR_E_LIMIT */
  uint32_t max_recursion;        /* values nested through custom marshalling, which
                                  * nests on the C stack (a few hundred octets a level;
                                  * default 4096).  Values nested through constructed
                                  * members (a struct holding a value) count against
                                  * the stream's opts.max_depth instead. */
  const cdr_registry *registry;  /* NULL: cdr_registry_global() */
} cdr_value_opts;

CDR_API void cdr_value_opts_default(cdr_value_opts *v) CDR_NONNULL(1);
/* Set the value options of a stream (before its first value).  Errors:
 * CDR_E_NOMEM (its value state could not be allocated). */
CDR_API int cdr_out_set_value_opts(cdr_out *o, const cdr_value_opts *v) CDR_NONNULL(1, 2);
CDR_API int cdr_in_set_value_opts(cdr_in *i, const cdr_value_opts *v) CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- marshalling */

/* Write VALUE (a pointer to a value struct, or NULL) whose declared type is
 * T: null, an indirection if VALUE was already written in this stream, or
 * a value tag, type information as the options say, and its state, nested
 * values included.  Returns the stream's status.  Errors: those of the
 * stream; CDR_E_TYPE (VALUE's actual type is not T or derived from it, or
 * an abstract type); CDR_E_INVALID (a descriptor without a repository ID
 * source where one must be sent, a custom type without marshal);
 * CDR_E_LIMIT (max_depth, max_values, max_recursion, or chunk lengths past
 * 0x7ffffeff; in a fixed-size buffer also when a chunked value nested in a
 * custom value or a constructed member needs 8 octets more than the result
 * while it is written: an end tag and a chunk length taken back when
 * nothing follows);
 * CDR_E_NOMEM. */
CDR_API int cdr_put_value(cdr_out *o, const cdr_value_type *t, const void *value)
  CDR_NONNULL(1, 2);

/* Read a value whose declared type is T into *VALUE (NULL for null),
 * allocating every object from the stream's arena; shared and cyclic
 * references come back as the same pointer.  Returns the stream's status;
 * *VALUE is untouched on error.  Errors: those of the stream; CDR_E_TAG (a
 * tag outside the value tag range, the reserved ID-list bits 0x04, a bad
 * chunk length, an end tag deeper than the current nesting); CDR_E_INDIRECTION
 * (an offset >= -4, pointing outside the stream, or at no recorded value /
 * repository ID / codebase of the right kind); CDR_E_TYPE (an unknown
 * repository ID without a known truncatable base, a type not compatible with
 * T); CDR_E_LIMIT (max_depth, max_values, max_recursion); CDR_E_LENGTH
 * (objects of value types built from TypeCodes, CDR_VT_NOCACHE, whose C
 * sizes together pass 64 times the stream's octets plus 4096: a TypeCode
 * off the wire may make a type large in C and small on the wire);
 * CDR_E_STATE (no arena); CDR_E_NOMEM. */
CDR_API int cdr_get_value(cdr_in *i, const cdr_value_type *t, void **value) CDR_NONNULL(1, 2, 3);

#ifdef __cplusplus
}
#endif
#endif
