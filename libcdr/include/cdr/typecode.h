/* cdr/typecode.h - TypeCodes: a type descriptor is its TypeCode.
 *
 * One type model.  A TypeCode is a pointer to a cdr_type descriptor
 * (cdr/type.h), the same descriptor that cdr_write() and cdr_read() marshal
 * values with: a program's static descriptors are TypeCodes with no further
 * work, and a TypeCode read from the wire (cdr_get_typecode()) is a graph of
 * descriptors, with the C mapping's sizes, alignments and offsets, that
 * drives cdr_write()/cdr_read() as a static one does.  The TypeCode of a
 * descriptor, by kind (CORBA 3.x, Part 2, CDR chapter, "TypeCode"):
 *
 *   descriptor                         TCKind          parameters from
 *   CDR_K_NULL, CDR_K_VOID             tk_null, tk_void   -
 *   CDR_K_SHORT .. CDR_K_WCHAR         the basic kind     -
 *   CDR_K_ANY, CDR_K_TYPECODE,         tk_any, tk_TypeCode, tk_Principal
 *   CDR_K_PRINCIPAL
 *   CDR_K_STRING, CDR_K_WSTRING        tk_string, tk_wstring   u.str.bound (0: unbounded)
 *   CDR_K_FIXED                        tk_fixed        u.fx.digits, u.fx.scale
 *   CDR_K_OBJREF                       tk_objref       repo_id, name
 *   CDR_K_ABSTRACT_INTERFACE,          tk_abstract_interface, tk_local_interface,
 *   CDR_K_LOCAL_INTERFACE, CDR_K_NATIVE tk_native      repo_id, name
 *   CDR_K_STRUCT, CDR_K_EXCEPT         tk_struct, tk_except   repo_id, name, u.st members
 *                                                      (cdr_member.name, .type)
 *   CDR_K_UNION                        tk_union        repo_id, name, u.un.disc, one member
 *                                                      per cdr_union_case (label, name,
 *                                                      type); default index u.un.default_case
 *   CDR_K_ENUM                         tk_enum         repo_id, name, u.en.names
 *   CDR_K_SEQUENCE                     tk_sequence     u.seq.elem, u.seq.bound
 *   CDR_K_ARRAY                        tk_array        u.arr.elem, u.arr.count (an IDL
 *                                                      array T a[2][3] is an array of 2
 *                                                      arrays of 3 T, as its TypeCode)
 *   CDR_K_ALIAS                        tk_alias        repo_id, name, u.alias.type
 *   CDR_K_VALUE, vt without CDR_VT_BOX tk_value        the cdr_value_type: its ID
 *                                                      (cdr_value_type_id()), name,
 *                                                      modifier (CDR_VT_CUSTOM: VM_CUSTOM,
 *                                                      CDR_VT_ABSTRACT: VM_ABSTRACT,
 *                                                      CDR_VT_TRUNCATABLE: VM_TRUNCATABLE,
 *                                                      else VM_NONE), base (the concrete
 *                                                      base, tk_null if none), own members
 *                                                      with vt->visibility
 *   CDR_K_VALUE, vt with CDR_VT_BOX    tk_value_box    vt's ID, name, members[0].type
 *   CDR_K_CUSTOM                       none: no TypeCode (CDR_E_UNSUPPORTED)
 * A NULL name, repository ID or member name is the empty string.  The name
 * and member names are the simple (unscoped) IDL names.
 *
 * Storage.  A TypeCode is one of three kinds of storage; a program need not
 * know which, only follow two rules: a TypeCode kept beyond the life of
 * where it came from is kept through cdr_tc_dup() and given back with
 * cdr_tc_release(); a TypeCode obtained from an accessor is borrowed from
 * the one asked (valid as long as that one is).
 *   - static: descriptors the program or the library defines (cdr_tc_long
 *     ...).  Live forever; dup returns them, release does nothing.
 *   - arena: cdr_get_typecode() and cdr_read() of a CDR_K_TYPECODE build the
 *     descriptors in the input stream's arena, like every decoded string:
 *     they live until the arena is reset or freed, and need no release
 *     (release does nothing).  cdr_tc_dup() of one copies the whole graph
 *     reachable from it into heap storage.
 *   - heap: what cdr_tc_dup() of an arena TypeCode and cdr_tc_get_compact()
 *     return: one block of descriptors with a reference count (atomic, so
 *     a heap TypeCode may be shared by threads), allocated from the
 *     process-wide allocator (cdr_mem_global()).  cdr_tc_dup() of any
 *     descriptor inside it takes a reference on the whole block;
 *     cdr_tc_release() drops one, and the last frees the block.
 * The C mapping's CORBA_Object_duplicate/CORBA_Object_release of a TypeCode
 * are cdr_tc_dup()/cdr_tc_release().  Descriptors the library builds are
 * immutable; a program never writes into them or copies one by value
 * (cdr_tc_dup() is the copy: the library finds a built descriptor's storage
 * from its address).  The value types inside
 * them have CDR_VT_NOCACHE (no walk plan is cached for them).
 *
 * Layout of the descriptors cdr_get_typecode() builds, by the OMG IDL-to-C
 * mapping: basic kinds are the library's static descriptors (cdr_tc_long
 * ... : sizes and alignments of the host's C types, cdr/type.h); an
 * unbounded string or wstring is cdr_tc_string / cdr_tc_wstring; structs
 * and exceptions are C structs (each member at the next offset aligned for
 * it, the size rounded up to the largest alignment; no members: size 0,
 * alignment 1); a union is struct { disc _d; union { ... } _u; } (_d at 0,
 * every branch at _u's offset, aligned for the most aligned branch); enums
 * are uint32_t; sequences and Principal cdr_seq; arrays the flat C array;
 * an alias its content's layout; fixed cdr_fixed; any cdr_any; TypeCode a
 * cdr_typecode; object references (objref, abstract and local interfaces,
 * natives) an opaque pointer; values and value boxes a pointer to the value
 * struct (cdr/value.h: the cdr_value header, the base type's struct, then
 * the own members in order; a box holds its one member after the header);
 * null and void take 0 octets.
 *
 * Errors are status values (cdr/error.h): the accessors return CDR_OK,
 * CDR_E_BADKIND (the operation is not defined for the TypeCode's kind: the
 * TypeCode interface's BadKind) or CDR_E_BOUNDS (a member index >= the
 * member count: Bounds), and leave their result untouched on error.
 */
#ifndef CDR_TYPECODE_H
#define CDR_TYPECODE_H

#include <stdint.h>
#include <cdr/type.h>
#include <cdr/value.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A TypeCode: a type descriptor (see above). */
typedef const cdr_type *cdr_typecode;

/* CORBA's TCKind, with its numbers on the wire. */
typedef enum cdr_tckind {
  CDR_TK_NONE = -1,          /* not a TypeCode kind: CDR_K_CUSTOM descriptors */
  CDR_TK_NULL = 0, CDR_TK_VOID = 1, CDR_TK_SHORT = 2, CDR_TK_LONG = 3,
  CDR_TK_USHORT = 4, CDR_TK_ULONG = 5, CDR_TK_FLOAT = 6, CDR_TK_DOUBLE = 7,
  CDR_TK_BOOLEAN = 8, CDR_TK_CHAR = 9, CDR_TK_OCTET = 10, CDR_TK_ANY = 11,
  CDR_TK_TYPECODE = 12, CDR_TK_PRINCIPAL = 13, CDR_TK_OBJREF = 14,
  CDR_TK_STRUCT = 15, CDR_TK_UNION = 16, CDR_TK_ENUM = 17, CDR_TK_STRING = 18,
  CDR_TK_SEQUENCE = 19, CDR_TK_ARRAY = 20, CDR_TK_ALIAS = 21, CDR_TK_EXCEPT = 22,
  CDR_TK_LONGLONG = 23, CDR_TK_ULONGLONG = 24, CDR_TK_LONGDOUBLE = 25,
  CDR_TK_WCHAR = 26, CDR_TK_WSTRING = 27, CDR_TK_FIXED = 28, CDR_TK_VALUE = 29,
  CDR_TK_VALUE_BOX = 30, CDR_TK_NATIVE = 31, CDR_TK_ABSTRACT_INTERFACE = 32,
  CDR_TK_LOCAL_INTERFACE = 33
} cdr_tckind;

/* CORBA's ValueModifier: a tk_value's type_modifier. */
enum { CDR_VM_NONE = 0, CDR_VM_CUSTOM = 1, CDR_VM_ABSTRACT = 2, CDR_VM_TRUNCATABLE = 3 };

/* An any as the C mapping lays out CORBA_any: the TypeCode, the value in
 * the C layout of that TypeCode's type (NULL for tk_null and tk_void), and
 * whether freeing the any frees the value; then one private field (the
 * original octets of a decoded any, NULL in every any a program builds).
 * The operations on it (insert, extract, copy, free, marshalling, print)
 * are cdr/any.h's. */
typedef struct cdr_any {
  cdr_typecode _type;
  void *_value;
  uint8_t _release;
  const void *_cdr_octets;  /* private: cdr/any.h, "Original octets" */
} cdr_any;

/* Descriptors of the kinds without parameters that cdr/type.h does not
 * define, and of CORBA::Object (tk_objref "IDL:omg.org/CORBA/Object:1.0",
 * "Object", an opaque pointer). */
CDR_API extern const cdr_type cdr_type_null, cdr_type_void, cdr_type_any, cdr_type_typecode,
  cdr_type_principal, cdr_type_object;

/* The TypeCode constants of the basic types (constant expressions, usable
 * in static initialisers; the C mapping names them TC_CORBA_<type>). */
#define cdr_tc_null ((cdr_typecode)&cdr_type_null)
#define cdr_tc_void ((cdr_typecode)&cdr_type_void)
#define cdr_tc_short ((cdr_typecode)&cdr_type_short)
#define cdr_tc_long ((cdr_typecode)&cdr_type_long)
#define cdr_tc_ushort ((cdr_typecode)&cdr_type_ushort)
#define cdr_tc_ulong ((cdr_typecode)&cdr_type_ulong)
#define cdr_tc_float ((cdr_typecode)&cdr_type_float)
#define cdr_tc_double ((cdr_typecode)&cdr_type_double)
#define cdr_tc_boolean ((cdr_typecode)&cdr_type_boolean)
#define cdr_tc_char ((cdr_typecode)&cdr_type_char)
#define cdr_tc_octet ((cdr_typecode)&cdr_type_octet)
#define cdr_tc_any ((cdr_typecode)&cdr_type_any)
#define cdr_tc_TypeCode ((cdr_typecode)&cdr_type_typecode)
#define cdr_tc_Principal ((cdr_typecode)&cdr_type_principal)
#define cdr_tc_longlong ((cdr_typecode)&cdr_type_longlong)
#define cdr_tc_ulonglong ((cdr_typecode)&cdr_type_ulonglong)
#define cdr_tc_longdouble ((cdr_typecode)&cdr_type_longdouble)
#define cdr_tc_wchar ((cdr_typecode)&cdr_type_wchar)
#define cdr_tc_string ((cdr_typecode)&cdr_type_string)      /* unbounded */
#define cdr_tc_wstring ((cdr_typecode)&cdr_type_wstring)    /* unbounded */
#define cdr_tc_Object ((cdr_typecode)&cdr_type_object)

/* ---------------------------------------------------------------- marshalling */

/* Write TC as a TypeCode: its TCKind as a ulong, then nothing (the empty
 * kinds), the simple parameters inline (string/wstring: ulong bound; fixed:
 * ushort digits, short scale), or the complex ones in an encapsulation
 * (ulong length, byte-order octet, the parameter list; CORBA 3.x, Part 2,
 * "TypeCode", table of TypeCode parameters).  A TypeCode of a complex kind
 * (one with an encapsulation) that this call has already written, an
 * enclosing one (recursion) or an earlier one (a member type used twice,
 * as omniORB does), is written as an indirection: the ulong 0xffffffff,
 * then a long offset from that long's own position back to the earlier
 * TypeCode's kind field.  Descriptors are the same TypeCode when they are
 * the same descriptor, or value descriptors of the same cdr_value_type.
 * Indirections never leave this call's outermost TypeCode.  Returns the
 * stream's status.  Errors: those of the stream; CDR_E_UNSUPPORTED (a
 * CDR_K_CUSTOM descriptor); CDR_E_INVALID (a malformed descriptor: a NULL
 * member type, a value descriptor without a cdr_value_type or repository
 * ID source, a union discriminator of a kind IDL does not allow);
 * CDR_E_LIMIT (TypeCodes nested deeper than CDR_ENCAP_MAX or opts.max_depth
 * encapsulations); CDR_E_NOMEM. */
CDR_API int cdr_put_typecode(cdr_out *o, cdr_typecode tc) CDR_NONNULL(1, 2);

/* Read a TypeCode, as cdr_put_typecode() writes it and as other ORBs do
 * (indirection to any TypeCode earlier in the same outermost TypeCode, of
 * any kind; trailing octets in an encapsulation are skipped), into *TC: a
 * graph of descriptors in the stream's arena (see "Storage"; the basic
 * kinds are the static constants).  A recursive TypeCode is a cyclic graph.
 * Returns the stream's status; *TC is untouched on error.
 * Limits: nesting is bounded by the encapsulation limit (CDR_ENCAP_MAX and
 * opts.max_depth, less the encapsulations already open), so the C stack is
 * bounded; every count is checked against the octets that remain (times
 * the least octets of one entry) and opts.max_seq before anything is
 * allocated.  Errors: those of the stream; CDR_E_VALUE (an unknown TCKind,
 * fixed digits/scale outside 1..31/0..digits, a type modifier or
 * visibility outside its enum, a boolean or enum label outside its type);
 * CDR_E_INDIRECTION (an indirection that is not negative by more than its
 * own four octets, that lands before the outermost TypeCode, or on anything
 * but the kind field of a TypeCode read earlier in it -- so an indirection
 * to an indirection, a loop, is refused); CDR_E_TYPE (an impossible type:
 * a struct, exception, union, array, alias or value box that contains
 * itself other than through a sequence or a value, an array of length 0,
 * an enum without members, a default index outside the members, a union
 * discriminator of a kind IDL does not allow, a concrete base that is not a
 * value type, a C size past 4 GiB); CDR_E_LENGTH and CDR_E_LIMIT (counts,
 * nesting); CDR_E_STATE (no arena); CDR_E_NOMEM.
 * Limit of this build: a union whose discriminator TypeCode is an alias is
 * read with the alias's content as its discriminator type. */
CDR_API int cdr_get_typecode(cdr_in *i, cdr_typecode *tc) CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- storage */

/* A TypeCode for TC that lives until cdr_tc_release(): TC itself when it is
 * static; TC with its heap block's count raised when it is in heap
 * storage; a heap copy of the graph reachable from TC when it is in an
 * arena.  NULL with *STATUS (may be NULL) set on error: CDR_E_NOMEM;
 * CDR_E_LIMIT (a graph nested past 64 levels). */
CDR_API cdr_typecode cdr_tc_dup(cdr_typecode tc, int *status) CDR_NONNULL(1);

/* Give back a TypeCode from cdr_tc_dup() or cdr_tc_get_compact(): heap
 * storage loses a reference (the last frees it); static and arena storage
 * are left alone.  NULL is a no-op. */
CDR_API void cdr_tc_release(cdr_typecode tc);

/* ---------------------------------------------------------------- comparison */

/* TypeCode::equal: 1 when A and B have the same kind and every parameter
 * the same (repository IDs, names and member names as strings, aliases
 * kept; member, content, discriminator and base TypeCodes compared the
 * same way), else 0.  Recursive TypeCodes compare by structure: a pair of
 * TypeCodes met again while comparing them is taken as equal.  A negative
 * status instead when it cannot tell: CDR_E_LIMIT (the comparison would
 * nest past 64 levels or visit more than a million pairs), or the error of
 * a value type's repository ID or base TypeCode that cannot be made
 * (cdr_value_type_id(): CDR_E_INVALID, CDR_E_NOMEM). */
CDR_API int cdr_tc_equal(cdr_typecode a, cdr_typecode b) CDR_NONNULL(1, 2);

/* TypeCode::equivalent: as equal, but aliases are replaced by their
 * content at every level; where both TypeCodes have a kind with a
 * repository ID and both IDs are non-empty, they are equivalent exactly
 * when the IDs are equal; otherwise names and member names are ignored and
 * the other parameters compared.  1, 0 or a negative status, as
 * cdr_tc_equal(). */
CDR_API int cdr_tc_equivalent(cdr_typecode a, cdr_typecode b) CDR_NONNULL(1, 2);

/* TypeCode::get_compact_typecode: into *OUT a heap TypeCode (release it)
 * equal to TC with every name and member name empty (repository IDs and
 * aliases kept), the C layout unchanged.  Errors: CDR_E_UNSUPPORTED (a
 * CDR_K_CUSTOM descriptor inside), CDR_E_NOMEM, CDR_E_LIMIT (nesting past
 * 64 levels); *OUT untouched. */
CDR_API int cdr_tc_get_compact(cdr_typecode tc, cdr_typecode *out) CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- accessors */

/* TypeCode::kind.  CDR_TK_NONE for a CDR_K_CUSTOM descriptor. */
CDR_API cdr_tckind cdr_tc_kind(cdr_typecode tc) CDR_NONNULL(1);

/* id, name: objref, struct, union, enum, alias, except, value, value_box,
 * native, abstract_interface, local_interface; otherwise CDR_E_BADKIND.
 * Never NULL ("" when absent).  A value type's ID may be computed on first
 * use (cdr_value_type_id()): CDR_E_INVALID or CDR_E_NOMEM then. */
CDR_API int cdr_tc_id(cdr_typecode tc, const char **id) CDR_NONNULL(1, 2);
CDR_API int cdr_tc_name(cdr_typecode tc, const char **name) CDR_NONNULL(1, 2);

/* member_count: struct, union, enum, except, value (own members). */
CDR_API int cdr_tc_member_count(cdr_typecode tc, uint32_t *count) CDR_NONNULL(1, 2);
/* member_name: as member_count, INDEX < count (else CDR_E_BOUNDS). */
CDR_API int cdr_tc_member_name(cdr_typecode tc, uint32_t index, const char **name)
  CDR_NONNULL(1, 3);
/* member_type: struct, union, except, value. */
CDR_API int cdr_tc_member_type(cdr_typecode tc, uint32_t index, cdr_typecode *type)
  CDR_NONNULL(1, 3);
/* member_label: union only.  The label as the discriminator's value widened
 * to 64 bits (enums: the ordinal; booleans 0/1; chars the octet; wchars the
 * code point) and *LABEL_TYPE (may be NULL) the TypeCode an any holding it
 * has: the discriminator type, or cdr_tc_octet with label 0 for the
 * default member (CORBA's zero octet). */
CDR_API int cdr_tc_member_label(cdr_typecode tc, uint32_t index, int64_t *label,
                                cdr_typecode *label_type) CDR_NONNULL(1, 3);
/* discriminator_type, default_index (-1: none): union only. */
CDR_API int cdr_tc_discriminator_type(cdr_typecode tc, cdr_typecode *type) CDR_NONNULL(1, 2);
CDR_API int cdr_tc_default_index(cdr_typecode tc, int32_t *index) CDR_NONNULL(1, 2);
/* length: string, wstring (0: unbounded), sequence (0: unbounded), array. */
CDR_API int cdr_tc_length(cdr_typecode tc, uint32_t *length) CDR_NONNULL(1, 2);
/* content_type: sequence, array (the element), alias, value_box. */
CDR_API int cdr_tc_content_type(cdr_typecode tc, cdr_typecode *type) CDR_NONNULL(1, 2);
/* fixed_digits, fixed_scale: fixed only. */
CDR_API int cdr_tc_fixed_digits(cdr_typecode tc, uint16_t *digits) CDR_NONNULL(1, 2);
CDR_API int cdr_tc_fixed_scale(cdr_typecode tc, int16_t *scale) CDR_NONNULL(1, 2);
/* member_visibility (CDR_PRIVATE_MEMBER/CDR_PUBLIC_MEMBER), type_modifier
 * (CDR_VM_*), concrete_base_type (NULL: none): value only.  For a program's
 * value descriptor the base's TypeCode is built on first use (`tc` in
 * cdr_value_type): CDR_E_NOMEM when that fails. */
CDR_API int cdr_tc_member_visibility(cdr_typecode tc, uint32_t index, int16_t *visibility)
  CDR_NONNULL(1, 3);
CDR_API int cdr_tc_type_modifier(cdr_typecode tc, int16_t *modifier) CDR_NONNULL(1, 2);
CDR_API int cdr_tc_concrete_base_type(cdr_typecode tc, cdr_typecode *base) CDR_NONNULL(1, 2);

#ifdef __cplusplus
}
#endif
#endif
