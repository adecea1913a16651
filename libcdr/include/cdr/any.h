/* cdr/any.h - the any: a TypeCode and a value in the C layout of its type.
 *
 * C representation (cdr/typecode.h): a cdr_any is { _type, _value,
 * _release } as the OMG IDL-to-C mapping lays out CORBA_any, then one
 * private field of this library (_cdr_octets, below).  _value points to a
 * value of _type's C layout (cdr/typecode.h, "Layout"); NULL for tk_null
 * and tk_void.  An empty any (cdr_any_init(), or all fields zero) has a
 * NULL or tk_null _type and holds nothing.
 *
 * Wire format (CORBA 3.x, Part 2, CDR chapter, "Any"): the TypeCode
 * (cdr_put_typecode()), then the value as cdr_write() writes it for that
 * TypeCode.  An empty any is tk_null: the ulong 0 and nothing else.
 *
 * Ownership.  _release 1: the any owns its value and its TypeCode (a
 * reference from cdr_tc_dup()), and cdr_any_free() gives both back; the
 * value's storage is then the process-wide allocator's (cdr_mem_global()),
 * laid out as cdr_value_copy() makes it.  _release 0: both are borrowed;
 * cdr_any_free() only empties the any.  What cdr_get_any() and cdr_read()
 * decode is in the input stream's arena (TypeCode and value), with
 * _release 0, and lives as long as that arena; cdr_any_copy() makes an
 * owned heap copy of it.
 *
 * Heap values (cdr_value_copy(), cdr_value_free()): strings and wstrings
 * are blocks of their own; sequence buffers are blocks of their own with
 * _release 1 (a buffer with _release 0 is borrowed and left alone by
 * cdr_value_free()); each valuetype object of a graph is a block of its
 * own (its actual type's size), and a copy preserves the graph: a value
 * reached twice is copied once and a cycle stays a cycle.  cdr_value_free()
 * frees each object of a graph once, however often it is reached (its
 * bookkeeping, a set of the objects met and a work list, needs no memory
 * up to 15 objects; past that, an object it has no memory to track is left
 * allocated, never freed twice); both
 * walk values with an explicit work list (a list of a million nodes takes
 * no C stack) and constructed types on the C stack, up to CDR_ANY_MAX_NEST
 * levels (deeper: CDR_E_LIMIT for copies; cdr_value_free() leaves what is
 * deeper than that alone).  Object references are duplicated and released
 * through the hooks (below).  Nested anys are owned copies (_release 1),
 * and share the graph bookkeeping of the copy or free they are part of, so
 * a value reached both inside and outside a nested any is still one object.
 *
 * Object references.  libcdr does not parse IORs.  Without hooks, the C
 * value of an object reference (tk_objref, and the object reference of a
 * tk_abstract_interface) is a pointer to a cdr_ior (below), NULL for a nil
 * reference, which goes as an empty type ID and no profiles (CORBA 3.x,
 * Part 2, "Object References": the IOR is a string type_id, then a
 * sequence of TaggedProfile { ulong tag; sequence<octet> profile_data }).
 * A program (libiiop) that has its own references registers hooks
 * (cdr_set_objref_hooks()); then the C value is whatever its hooks make.
 *
 * Original octets.  An any decoded by cdr_get_any() (or cdr_read()) keeps a
 * copy of its wire octets (TypeCode and value, in the stream's arena) when
 * they can stand for it elsewhere: it was not read inside a chunked value's
 * state, and no valuetype or value indirection was read inside it (so no
 * indirection leaves it, no chunk nesting crosses its boundary and no
 * value written later in the same stream could have been meant to share
 * with one inside it).  cdr_put_any() (and cdr_write() of a CDR_K_ANY
 * member) writes those octets as they are, instead of encoding the value
 * again, exactly when: the any's _type and _value are still the ones the
 * decoder set, the output stream has the same byte order, GIOP version,
 * code sets (tcs_c, tcs_w) and option flags as the input stream had, and
 * the any starts at the same position modulo 8 from the stream's alignment
 * origin.  Otherwise, and always for anys built by a program, it encodes
 * the TypeCode and the value.  A program that changes a decoded value in
 * place (not through cdr_any_set() or the insert functions, which drop the
 * octets) calls cdr_any_forget_octets() first.
 *
 * Limits.  An any inside a value nests one constructed level
 * (opts.max_depth, CDR_E_LIMIT past it, as every constructed type does):
 * an any inside an any inside ... is bounded by the stream's max_depth,
 * and the TypeCode of each by the encapsulation limit (cdr_get_typecode()).
 *
 * Errors are status values (cdr/error.h).
 */
#ifndef CDR_ANY_H
#define CDR_ANY_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cdr/typecode.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Constructed levels (struct, union, sequence, array, alias, exception,
 * value box, nested any) that copy, free, equal and print follow. */
#define CDR_ANY_MAX_NEST 512

/* ---------------------------------------------------------------- object references */

/* A TaggedProfile of an IOR. */
typedef struct cdr_tagged_profile {
  uint32_t tag;
  cdr_seq profile_data;     /* of uint8_t */
} cdr_tagged_profile;

/* An IOR, the C value of an object reference without hooks. */
typedef struct cdr_ior {
  char *type_id;
  cdr_seq profiles;         /* of cdr_tagged_profile */
} cdr_ior;

/* Descriptors of cdr_tagged_profile and cdr_ior (a struct and a struct). */
CDR_API extern const cdr_type cdr_type_tagged_profile, cdr_type_ior;

/* A program's own object references.  Each callback gets UD.
 *   write: write the IOR of REF (never NULL: a nil reference is written by
 *          the library) at O's position; return O's status.
 *   read:  read an IOR from I into *REF (NULL for nil is allowed); the
 *          reference belongs to the decoded value, which lives as long as
 *          I's arena: what the hook allocates elsewhere is the hook's to
 *          track.  Return I's status (cdr_in_fail() on error).
 *   dup:   an owned reference equal to REF (for heap copies), or NULL on
 *          failure (CDR_E_NOMEM).
 *   release: give back a reference from dup (cdr_value_free()).
 *   equal: optional; 1 when A and B denote the same object, else 0 (NULL:
 *          pointer equality).
 * A hook must not be NULL except equal. */
typedef struct cdr_objref_hooks {
  int (*write)(cdr_out *o, const void *ref, void *ud);
  int (*read)(cdr_in *i, void **ref, void *ud);
  void *(*dup)(const void *ref, void *ud);
  void (*release)(void *ref, void *ud);
  int (*equal)(const void *a, const void *b, void *ud);
  void *ud;
} cdr_objref_hooks;

/* Install HOOKS process-wide (copied; NULL: back to cdr_ior values).  Call
 * it before any stream uses object references, not while one does.
 * CDR_OK, or CDR_E_INVALID (a required callback is NULL). */
CDR_API int cdr_set_objref_hooks(const cdr_objref_hooks *hooks);

/* ---------------------------------------------------------------- marshalling */

/* Write A: its TypeCode (cdr_put_typecode(); tk_null for an empty any),
 * then its value by that TypeCode (cdr_write()), or its original octets
 * (see "Original octets").  Returns the stream's status.  Errors: those of
 * cdr_put_typecode() and cdr_write(); CDR_E_INVALID (a NULL _value for a
 * type with a value, or a _value with a NULL _type: only an any with
 * neither is the empty any); CDR_E_LIMIT (nesting, opts.max_depth). */
CDR_API int cdr_put_any(cdr_out *o, const cdr_any *a) CDR_NONNULL(1, 2);

/* Read an any into *A: the TypeCode (cdr_get_typecode()) and the value
 * (cdr_read()), both in I's arena, _release 0.  Before the value's
 * _type->size octets are allocated, the octets that remain must hold the
 * least the type takes on the wire, and that C size must be no more than
 * 64 times the remaining octets plus 4096 (CDR_E_LENGTH otherwise: a
 * small message cannot make a large allocation).  Returns the stream's
 * status; *A is empty on error.  Errors: those of cdr_get_typecode() and
 * cdr_read(); CDR_E_LENGTH (above); CDR_E_LIMIT (nesting). */
CDR_API int cdr_get_any(cdr_in *i, cdr_any *a) CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- building */

/* An empty any: tk_null, no value, nothing owned. */
CDR_API void cdr_any_init(cdr_any *a) CDR_NONNULL(1);

/* Put into A a deep heap copy of VALUE (of TC's C layout; NULL is allowed
 * for types of size 0) with TC (cdr_tc_dup()), _release 1, after freeing
 * what A held (cdr_any_free()).  CDR_OK; CDR_E_NOMEM, CDR_E_LIMIT,
 * CDR_E_INVALID (from cdr_value_copy()): A is then empty. */
CDR_API int cdr_any_set(cdr_any *a, cdr_typecode tc, const void *value) CDR_NONNULL(1, 2);

/* Put TC and VALUE into A as they are (no copy), after freeing what A held.
 * RELEASE 1: A owns VALUE (a heap value as cdr_value_copy() lays it out,
 * freed by cdr_any_free()) and takes a reference on TC (cdr_tc_dup());
 * RELEASE 0: both are borrowed.  CDR_OK; CDR_E_NOMEM (TC could not be
 * duplicated: A empty, VALUE not taken). */
CDR_API int cdr_any_adopt(cdr_any *a, cdr_typecode tc, void *value, int release) CDR_NONNULL(1, 2);

/* Extract: *VALUE = A's value, borrowed, when A's TypeCode is equivalent to
 * TC (cdr_tc_equivalent()) and gives its type the same C layout as TC does
 * (a TypeCode from the wire may be equivalent by repository ID and yet
 * describe other members: its value is not TC's C type then).  CDR_OK;
 * CDR_E_TYPE (not equivalent, or another layout; TC not tk_null for an
 * empty any); a negative status of cdr_tc_equivalent().  *VALUE untouched
 * on error. */
CDR_API int cdr_any_get(const cdr_any *a, cdr_typecode tc, const void **value) CDR_NONNULL(1, 2, 3);

/* Deep copy of SRC into DST (heap, _release 1), after freeing what DST
 * held; DST may not be SRC.  Errors: those of cdr_any_set(). */
CDR_API int cdr_any_copy(cdr_any *dst, const cdr_any *src) CDR_NONNULL(1, 2);

/* Free what A owns (when _release: its value by cdr_value_free() and the
 * block, its TypeCode by cdr_tc_release()) and leave A empty. */
CDR_API void cdr_any_free(cdr_any *a) CDR_NONNULL(1);

/* Drop the original octets a decoded any keeps (see "Original octets"). */
CDR_API void cdr_any_forget_octets(cdr_any *a) CDR_NONNULL(1);

/* ---------------------------------------------------------------- values by TypeCode */

/* Deep copy of the value at SRC (TC's C layout) into DST (TC->size octets,
 * the caller's), every string, buffer, object and nested any in new heap
 * blocks (see "Heap values"; a NULL string or wstring stays NULL).  Value
 * objects keep their actual types (the source objects' descriptors, which
 * must outlive the copy); cdr_any_set() and cdr_any_copy() instead take the
 * types that belong to the source's TypeCode over into the any's own copy
 * of it, so that their copy outlives an arena the source came from.
 * CDR_OK; CDR_E_NOMEM; CDR_E_LIMIT (nesting past CDR_ANY_MAX_NEST, a
 * sequence too large for the host); CDR_E_INVALID (a sequence with a
 * _length and no buffer, a CDR_K_CUSTOM, native or local interface type,
 * an any with a type of non-zero size and no value); CDR_E_TYPE (a custom
 * value, whose state only its marshaller knows).  On error DST holds
 * nothing that needs freeing (zeroed). */
CDR_API int cdr_value_copy(cdr_typecode tc, void *dst, const void *src) CDR_NONNULL(1, 2, 3);

/* Free what the value at V (TC's C layout) owns (see "Heap values"); V's
 * own TC->size octets are the caller's. */
CDR_API void cdr_value_free(cdr_typecode tc, void *v) CDR_NONNULL(1, 2);

/* 1 when the values at A and B, both of TC's C layout, are equal: the same
 * numbers (floating point by bits: NaN equals itself, -0.0 differs from
 * 0.0), strings, sequences of equal elements, the same union branch, and
 * value graphs of the same shape (a bijection between their objects:
 * sharing and cycles the same; objects of two descriptors of one
 * repository ID compare when those give the same C layout, else differ),
 * anys equal as cdr_any_equal(); else 0; a negative status when it cannot
 * tell (CDR_E_LIMIT, CDR_E_NOMEM). */
CDR_API int cdr_value_equal(cdr_typecode tc, const void *a, const void *b) CDR_NONNULL(1, 2, 3);

/* 1 when A and B have equivalent TypeCodes (cdr_tc_equivalent(); two empty
 * anys are equal) of the same C layout and equal values (cdr_value_equal()),
 * else 0, or a negative status as cdr_value_equal(). */
CDR_API int cdr_any_equal(const cdr_any *a, const cdr_any *b) CDR_NONNULL(1, 2);

/* ---------------------------------------------------------------- printing */

/* Print A as text from its TypeCode alone into BUF (SIZE octets,
 * NUL-terminated when SIZE > 0, truncated as snprintf() truncates); returns
 * the length the whole text has (so a result >= SIZE means truncated).
 * Format, by kind:
 *   null, void        null, void
 *   integers, octet   decimal (octet too)
 *   float, double     %.9g, %.17g; long double %.21Lg
 *   boolean           TRUE, FALSE
 *   char              'c' with C escapes (\' \\ \n \r \t, else \xNN
 *                     outside 0x20..0x7e)
 *   wchar             L'c', non-ASCII as \uXXXX or \UXXXXXXXX
 *   string, wstring   "..." / L"..." with those escapes (\" for ")
 *   fixed             the digits with a point where the scale says, then d
 *   enum              the member's name (or #N without names)
 *   struct, except    Name{member=value, ...} (Name: the TypeCode's name)
 *   union             Name{_d=disc, member=value} (Name{_d=disc}: no branch)
 *   sequence, array   [value, ...]
 *   alias             its content's text
 *   any               any(value) with the nested any's text
 *   TypeCode          TypeCode(repository ID, or the kind's name)
 *   objref            objref("type ID") of a cdr_ior, objref(nil), objref(ptr)
 *                     with hooks
 *   value, box        null; Name#N{member=value, ...} at the first time
 *                     object N (1, 2 ... in order of first appearance) is
 *                     printed, @N every later time (sharing, cycles); a box
 *                     prints Name#N(value)
 * Values more than CDR_ANY_MAX_NEST levels deep print as "...".  An empty
 * any prints "null". */
CDR_API size_t cdr_any_print(char *buf, size_t size, const cdr_any *a) CDR_NONNULL(3);

/* ---------------------------------------------------------------- fixed TypeCodes */

/* A heap TypeCode fixed<DIGITS,SCALE> into *OUT (release it with
 * cdr_tc_release()).  CDR_OK; CDR_E_VALUE (DIGITS outside 1..31 or SCALE
 * outside 0..DIGITS); CDR_E_NOMEM. */
CDR_API int cdr_tc_fixed(unsigned digits, int scale, cdr_typecode *out) CDR_NONNULL(3);

/* ---------------------------------------------------------------- insert, extract */

/* cdr_any_insert_<t>(A, V): cdr_any_set() of V with the basic TypeCode of
 * <t> (a copy: strings and wstrings are copied, a TypeCode is duplicated,
 * an any deep-copied, an object reference duplicated through the hooks).
 * cdr_any_extract_<t>(A, &V): when A's TypeCode is equivalent to <t>'s
 * (cdr_any_get()), V = the value (borrowed for strings, wstrings,
 * TypeCodes, anys and object references: valid as long as A holds it);
 * else CDR_E_TYPE with V untouched.  fixed: the TypeCode is
 * fixed<V->digits, V->scale> (cdr_tc_fixed()), and extraction accepts any
 * fixed TypeCode.  objref: TC is the reference's objref TypeCode (NULL:
 * CORBA::Object), extraction accepts any tk_objref.  Errors of insert:
 * those of cdr_any_set(); CDR_E_INVALID (a NULL string or wstring). */
#define CDR__ANY_IX(name, ctype)                                                     \
  CDR_API int cdr_any_insert_##name(cdr_any *a, ctype v) CDR_NONNULL(1);           \
  CDR_API int cdr_any_extract_##name(const cdr_any *a, ctype *v) CDR_NONNULL(1, 2);
CDR__ANY_IX(short, int16_t)
CDR__ANY_IX(ushort, uint16_t)
CDR__ANY_IX(long, int32_t)
CDR__ANY_IX(ulong, uint32_t)
CDR__ANY_IX(longlong, int64_t)
CDR__ANY_IX(ulonglong, uint64_t)
CDR__ANY_IX(float, float)
CDR__ANY_IX(double, double)
CDR__ANY_IX(longdouble, long double)
CDR__ANY_IX(boolean, bool)
CDR__ANY_IX(char, char)
CDR__ANY_IX(wchar, cdr_wchar)
CDR__ANY_IX(octet, uint8_t)
#undef CDR__ANY_IX
CDR_API int cdr_any_insert_string(cdr_any *a, const char *s) CDR_NONNULL(1);
CDR_API int cdr_any_extract_string(const cdr_any *a, const char **s) CDR_NONNULL(1, 2);
CDR_API int cdr_any_insert_wstring(cdr_any *a, const cdr_wchar *s) CDR_NONNULL(1);
CDR_API int cdr_any_extract_wstring(const cdr_any *a, const cdr_wchar **s) CDR_NONNULL(1, 2);
CDR_API int cdr_any_insert_fixed(cdr_any *a, const cdr_fixed *v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_extract_fixed(const cdr_any *a, cdr_fixed *v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_insert_typecode(cdr_any *a, cdr_typecode v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_extract_typecode(const cdr_any *a, cdr_typecode *v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_insert_any(cdr_any *a, const cdr_any *v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_extract_any(const cdr_any *a, const cdr_any **v) CDR_NONNULL(1, 2);
CDR_API int cdr_any_insert_objref(cdr_any *a, cdr_typecode tc, const void *ref) CDR_NONNULL(1);
CDR_API int cdr_any_extract_objref(const cdr_any *a, const void **ref) CDR_NONNULL(1, 2);

#ifdef __cplusplus
}
#endif
#endif
