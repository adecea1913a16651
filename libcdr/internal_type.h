/* internal_type.h - hooks between type.c (descriptor-driven marshalling) and
 * the modules it calls or that call it.  Internal; not installed. */
#ifndef CDR_INTERNAL_TYPE_H
#define CDR_INTERNAL_TYPE_H

#include "internal.h"
#include <cdr/type.h>

/* CDR_K_VALUE members: write the value pointer at SRC / read one into DST
 * (a pointer slot of T->size octets).  Both record any error as the
 * stream's sticky status and return that status.  value_out.c and
 * value_in.c define them.  The value module tracks its own nesting (in the
 * stream's ext state) and goes back into type.c through
 * cdr__write_at()/cdr__read_at() for state members, passing the depth it
 * has reached. */
CDR_HIDDEN int cdr__value_write(cdr_out *o, const cdr_type *t, const void *src);
CDR_HIDDEN int cdr__value_read(cdr_in *i, const cdr_type *t, void *dst);

/* cdr_write()/cdr_read() for a value that sits DEPTH constructed levels
 * deep (cdr_write(o, t, src) is cdr__write_at(o, t, src, 0)): nesting past
 * opts.max_depth fails with CDR_E_LIMIT.  Same contracts otherwise; in
 * particular cdr__read_at() zeroes DST's T->size octets on error. */
CDR_HIDDEN int cdr__write_at(cdr_out *o, const cdr_type *t, const void *src, unsigned depth);
CDR_HIDDEN int cdr__read_at(cdr_in *i, const cdr_type *t, void *dst, unsigned depth);

/* cdr_type_min_wire() for a stream with option FLAGS: with
 * CDR_F_LENIENT_EMPTY_STRING a string may take 4 octets instead of 5. */
CDR_HIDDEN size_t cdr__type_min_wire_flags(const cdr_type *t, unsigned flags);

/* The TypeCode kinds' leaf values (CDR_K_NULL, VOID, ANY, TYPECODE,
 * PRINCIPAL, OBJREF, NATIVE, ABSTRACT_INTERFACE, LOCAL_INTERFACE): write
 * the value at SRC / read one into DST, as cdr/typecode.h lays them out.
 * Same contracts as cdr__value_write()/read().  typecode.c defines them. */
CDR_HIDDEN int cdr__tc_kind_write(cdr_out *o, const cdr_type *t, const void *src, unsigned depth);
CDR_HIDDEN int cdr__tc_kind_read(cdr_in *i, const cdr_type *t, void *dst, unsigned depth);

/* cdr_put_any()/cdr_get_any() of an any DEPTH constructed levels deep, and
 * the object references (CDR_K_OBJREF, ABSTRACT_INTERFACE).  any.c. */
struct cdr_any;
CDR_HIDDEN int cdr__any_write(cdr_out *o, const struct cdr_any *a, unsigned depth);
CDR_HIDDEN int cdr__any_read(cdr_in *i, struct cdr_any *a, unsigned depth);
CDR_HIDDEN int cdr__objref_write(cdr_out *o, const cdr_type *t, const void *src, unsigned depth);
CDR_HIDDEN int cdr__objref_read(cdr_in *i, const cdr_type *t, void *dst, unsigned depth);

/* cdr_value_type_clear()'s part for the TypeCode cache `tc`. */
struct cdr_value_type;
CDR_HIDDEN void cdr__tc_value_clear(struct cdr_value_type *t);

#endif
