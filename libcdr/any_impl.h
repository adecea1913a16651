/* any_impl.h - what any.c, any_value.c and any_print.c share.  Internal;
 * not installed. */
#ifndef CDR_ANY_IMPL_H
#define CDR_ANY_IMPL_H

#include "tc_impl.h"
#include <cdr/any.h>

/* The hooks installed (cdr_set_objref_hooks()), or NULL. */
CDR_HIDDEN const cdr_objref_hooks *cdr__objref_hooks(void);

/* A heap copy of VALUE of TC into *OUT (NULL when TC has size 0), the
 * value objects' types taken over into TC where they are the types of
 * OLD (the TypeCode VALUE was made for; TC a copy of it). */
CDR_HIDDEN int cdr__value_dup(cdr_typecode old, cdr_typecode tc, const void *value, void **out);

/* cdr_value_copy() into TC's layout from a value of OLD's (a TypeCode TC
 * was copied from, or TC itself). */
CDR_HIDDEN int cdr__value_copy_from(cdr_typecode old, cdr_typecode tc, void *dst, const void *src);

/* 1 when values of A and B have the same C layout (kinds, sizes, offsets,
 * counts, labels, all the way down), else 0. */
CDR_HIDDEN int cdr__tc_same_layout(cdr_typecode a, cdr_typecode b);
/* The same for two value types and their bases (value_impl.h uses it). */
CDR_HIDDEN int cdr__vt_same_layout(const cdr_value_type *a, const cdr_value_type *b);

/* T without its aliases (at most CDR_ANY_MAX_NEST of them). */
static inline const cdr_type *cdr__unalias(const cdr_type *t)
{
  for (unsigned k = 0; k < CDR_ANY_MAX_NEST && t && t->kind == CDR_K_ALIAS; k++)
    t = t->u.alias.type;
  return t;
}

/* The discriminator of the union value at P (type T) as a label, and the
 * case it selects (NULL: none). */
CDR_HIDDEN const cdr_union_case *cdr__union_case(const cdr_type *t, const void *p, int64_t *label);

#endif
