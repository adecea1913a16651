/* cdr/type.h - type descriptors: C data described once, written and read by
 * generic functions.
 *
 * A cdr_type describes an IDL type and the C representation of its values
 * (kind, host size and alignment, and for constructed types their members
 * with their offsets).  cdr_write() and cdr_read() marshal a C value by its
 * descriptor in the CDR transfer syntax (OMG CORBA 3.x, GIOP chapter, "CDR
 * Transfer Syntax": structs as their members in order, unions as the
 * discriminator then the selected member, enums as an unsigned long,
 * sequences as a ulong count then the elements, arrays as the elements).
 *
 * Host representations, by kind:
 *   OCTET uint8_t, BOOLEAN bool, CHAR char, WCHAR cdr_wchar, SHORT int16_t,
 *   USHORT uint16_t, LONG int32_t, ULONG uint32_t, LONGLONG int64_t,
 *   ULONGLONG uint64_t, FLOAT float, DOUBLE double, LONGDOUBLE long double,
 *   FIXED cdr_fixed, STRING char * (NUL-terminated; NULL is CDR_E_INVALID on
 *   write), WSTRING cdr_wchar * (NUL-terminated), ENUM uint32_t, STRUCT the C
 *   struct, UNION the C struct holding the discriminator at u.un.disc_offset
 *   and each branch at its case's offset, SEQUENCE cdr_seq, ARRAY the C array
 *   (u.arr.count elements of u.arr.elem->size octets), EXCEPT the C struct,
 *   ALIAS its type's representation, and the TypeCode kinds' as
 *   cdr/typecode.h and cdr/any.h say (ANY and OBJREF as cdr/any.h says;
 *   ABSTRACT_INTERFACE as an object reference only; LOCAL_INTERFACE and
 *   NATIVE never: CDR_E_UNSUPPORTED).
 * Decoded strings, wstrings and sequence buffers are allocated from the
 * input stream's arena.  Descriptors are immutable after first use, may be
 * shared by threads, and are usually static const data.
 */
#ifndef CDR_TYPE_H
#define CDR_TYPE_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/out.h>
#include <cdr/in.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cdr_kind {
  CDR_K_OCTET = 1, CDR_K_BOOLEAN, CDR_K_CHAR, CDR_K_WCHAR,
  CDR_K_SHORT, CDR_K_USHORT, CDR_K_LONG, CDR_K_ULONG,
  CDR_K_LONGLONG, CDR_K_ULONGLONG, CDR_K_FLOAT, CDR_K_DOUBLE,
  CDR_K_LONGDOUBLE, CDR_K_FIXED, CDR_K_STRING, CDR_K_WSTRING,
  CDR_K_ENUM, CDR_K_STRUCT, CDR_K_UNION, CDR_K_SEQUENCE, CDR_K_ARRAY,
  CDR_K_VALUE,     /* a valuetype pointer (see cdr/value.h) */
  CDR_K_CUSTOM,    /* user callbacks (u.custom) */
  /* The kinds a TypeCode has besides those above (cdr/typecode.h gives
   * their TypeCodes and C representations): */
  CDR_K_NULL, CDR_K_VOID,  /* no value: nothing on the wire, 0 octets in C */
  CDR_K_ANY,               /* cdr_any (cdr/typecode.h) */
  CDR_K_TYPECODE,          /* cdr_typecode: a TypeCode (cdr_put_typecode()) */
  CDR_K_PRINCIPAL,         /* cdr_seq of octets: sequence<octet> */
  CDR_K_OBJREF,            /* an object reference (repo_id, name) */
  CDR_K_ALIAS,             /* an IDL typedef of u.alias.type: marshals as it */
  CDR_K_EXCEPT,            /* an exception: its members (u.st), as a struct's.
                            * The repository ID that precedes an exception in
                            * a Reply is the GIOP layer's; in an Any only the
                            * members go (as omniORB sends them) */
  CDR_K_NATIVE, CDR_K_ABSTRACT_INTERFACE, CDR_K_LOCAL_INTERFACE
} cdr_kind;

/* A sequence's C representation, laid out as the OMG IDL-to-C mapping lays
 * out every CORBA_sequence_<T> (CORBA_unsigned_long _maximum, _length; T
 * *_buffer; CORBA_boolean _release, in this order), so that a generated
 * CORBA_sequence_<T> and this struct are the same octets: _length elements
 * of elem->size octets at _buffer, room for _maximum of them (>= _length;
 * the writer reads only _length), and _release 1 when whoever frees the
 * sequence frees _buffer too.  The decoder fills _maximum = _length and
 * _release = 0: its buffer belongs to the input stream's arena. */
typedef struct cdr_seq {
  uint32_t _maximum;
  uint32_t _length;
  void *_buffer;
  uint8_t _release;
} cdr_seq;

typedef struct cdr_type cdr_type;

typedef struct cdr_member {
  const char *name;
  const cdr_type *type;
  size_t offset;            /* offsetof() the member in the C struct */
} cdr_member;

/* One union label.  A branch with several labels has several cases with the
 * same name, type and offset.  The label is the discriminator's value as a
 * signed 64-bit integer (enums: the ordinal; booleans: 0/1; chars: the
 * octet). */
typedef struct cdr_union_case {
  int64_t label;
  const char *name;
  const cdr_type *type;
  size_t offset;            /* offsetof() the branch in the C struct */
} cdr_union_case;

typedef int (*cdr_custom_write_fn)(cdr_out *o, const void *src, const void *ud);
typedef int (*cdr_custom_read_fn)(cdr_in *i, void *dst, const void *ud);

struct cdr_type {
  cdr_kind kind;
  uint32_t size;            /* sizeof the C representation */
  uint32_t align;           /* _Alignof the C representation */
  uint32_t priv;            /* the library's: 0 in every descriptor a program
                             * defines (set in TypeCodes the library builds) */
  const char *name;         /* IDL name, for messages and TypeCodes (may be NULL) */
  const char *repo_id;      /* repository ID of a named type (may be NULL) */
  union {
    struct { const cdr_member *members; uint32_t count; } st;
    struct {
      const cdr_type *disc;          /* an integer, char, boolean or enum type */
      size_t disc_offset;
      const cdr_union_case *cases;
      uint32_t ncases;
      int32_t default_case;          /* index in cases of the default branch, or -1:
                                      * then a discriminator matching no label
                                      * selects no member (the implicit default) */
    } un;
    struct { const cdr_type *elem; uint32_t bound; } seq;   /* bound 0: unbounded */
    struct { const cdr_type *elem; uint32_t count; } arr;
    struct { const cdr_type *type; } alias;                 /* the aliased type */
    struct { uint32_t count; const char *const *names; } en;
    struct { uint8_t digits; int8_t scale; } fx;
    struct { uint32_t bound; } str;                         /* strings, wstrings; 0: unbounded */
    struct { const struct cdr_value_type *vt; } val;
    struct { cdr_custom_write_fn write; cdr_custom_read_fn read; const void *ud;
             uint32_t min_wire; } custom;
  } u;
};

/* Descriptors of the basic types. */
CDR_API extern const cdr_type cdr_type_octet, cdr_type_boolean, cdr_type_char,
  cdr_type_wchar, cdr_type_short, cdr_type_ushort, cdr_type_long, cdr_type_ulong,
  cdr_type_longlong, cdr_type_ulonglong, cdr_type_float, cdr_type_double,
  cdr_type_longdouble, cdr_type_string, cdr_type_wstring;

/* Write the C value at SRC described by T.  Returns the stream's status
 * afterwards (CDR_OK on success).  Errors: those of the primitive writers;
 * CDR_E_INVALID (a NULL string, a malformed descriptor); CDR_E_VALUE (an
 * enum value >= count, a union discriminator outside its enum, a bounded
 * string/sequence longer than its bound, a boolean other than 0/1);
 * CDR_E_LIMIT (nesting deeper than opts.max_depth). */
CDR_API int cdr_write(cdr_out *o, const cdr_type *t, const void *src) CDR_NONNULL(1, 2, 3);

/* Read a value described by T into DST (T->size octets), allocating strings,
 * wstrings and sequence buffers from the stream's arena.  Returns the
 * stream's status.  Errors: those of the primitive readers; CDR_E_VALUE (a
 * boolean other than 0/1, an enum or enum discriminator >= count, a bounded
 * string/sequence over its bound); CDR_E_LENGTH/CDR_E_LIMIT for counts (each
 * checked against the remaining octets times the element's minimum wire size
 * before allocation, and against opts.max_seq; where an element's C size is
 * over 64 times its least wire size, as a TypeCode's union with a large
 * unused branch may make it, the buffer's C size must also be at most 64
 * times the remaining octets plus 4096); CDR_E_LIMIT (nesting);
 * CDR_E_STATE (no arena where one is needed).  On error DST may be partly
 * written, but every pointer in it is NULL or valid. */
CDR_API int cdr_read(cdr_in *i, const cdr_type *t, void *dst) CDR_NONNULL(1, 2, 3);

/* The least octets a value of type T takes on the wire, ignoring alignment
 * padding (0 for a struct with no members): used to bound sequence counts. */
CDR_API size_t cdr_type_min_wire(const cdr_type *t) CDR_NONNULL(1);

/* Check a descriptor: sizes, offsets inside the C struct, union labels
 * unique and valid for the discriminator, nested descriptors (to
 * opts-independent depth 64).  CDR_OK or CDR_E_INVALID. */
CDR_API int cdr_type_validate(const cdr_type *t) CDR_NONNULL(1);

/* Convenience initialisers for static descriptors. */
#define CDR_MEMBER(ctype, field, type) { #field, (type), offsetof(ctype, field) }
#define CDR_STRUCT_TYPE(ctype, idlname, repoid, members)                          \
  { .kind = CDR_K_STRUCT, .size = sizeof(ctype), .align = _Alignof(ctype),       \
    .name = (idlname), .repo_id = (repoid),                                      \
    .u.st = { (members), sizeof(members) / sizeof((members)[0]) } }
#define CDR_SEQUENCE_TYPE(elemtype, bnd)                                          \
  { .kind = CDR_K_SEQUENCE, .size = sizeof(cdr_seq), .align = _Alignof(cdr_seq), \
    .u.seq = { (elemtype), (bnd) } }

#ifdef __cplusplus
}
#endif
#endif
