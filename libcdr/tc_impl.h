/* tc_impl.h - what typecode.c, tc_read.c and tc_write.c share: the
 * descriptors the library builds for TypeCodes (their storage, a header in
 * front of each), a pointer map, and the TCKind of a descriptor.
 * Internal; not installed. */
#ifndef CDR_TC_IMPL_H
#define CDR_TC_IMPL_H

#include "internal.h"
#include "internal_type.h"
#include <stdbool.h>
#include <cdr/typecode.h>

/* In cdr_type.priv: the descriptor is the `t` of a tc_node. */
#define TC_RUNTIME 1u

/* A heap TypeCode's block: every node, string and array of it lives in
 * ARENA (over the process-wide allocator of the time). */
typedef struct tc_owner {
  unsigned long refs;          /* atomic */
  cdr_arena arena;
} tc_owner;

/* A descriptor the library built, with what it needs to know about it. */
typedef struct tc_node {
  tc_owner *owner;             /* NULL: in an input stream's arena */
  bool busy;                   /* being read: its C size is not known yet */
  size_t min_wire;             /* cdr_type_min_wire() of it, once complete */
  cdr_type t;
} tc_node;

/* A value type's node: the descriptor of kind CDR_K_VALUE and its value
 * type (vt.tc is &n.t). */
typedef struct tc_vnode {
  tc_node n;
  cdr_value_type vt;
} tc_vnode;

static inline bool tc_runtime(const cdr_type *t) { return (t->priv & TC_RUNTIME) != 0; }
static inline tc_node *tc_node_of(const cdr_type *t)
{
  return (tc_node *)(void *)((char *)t - offsetof(tc_node, t));
}

/* Nodes zeroed except for the header (OWNER), priv, kind, size and align;
 * NULL when the arena fails. */
CDR_HIDDEN tc_node *cdr__tc_node_new(cdr_arena *a, tc_owner *owner, cdr_kind kind,
                                     size_t size, size_t align);
CDR_HIDDEN tc_vnode *cdr__tc_vnode_new(cdr_arena *a, tc_owner *owner);

/* The TCKind of T (CDR_TK_NONE: custom descriptors and kinds out of range). */
CDR_HIDDEN int cdr__tc_kind_of(const cdr_type *t);
/* Whether TCKind K has its parameters in an encapsulation. */
static inline bool tc_complex(int k)
{
  return k == CDR_TK_OBJREF || k == CDR_TK_STRUCT || k == CDR_TK_UNION || k == CDR_TK_ENUM
         || k == CDR_TK_SEQUENCE || k == CDR_TK_ARRAY || k == CDR_TK_ALIAS
         || k == CDR_TK_EXCEPT || k >= CDR_TK_VALUE;
}
/* The identity of a TypeCode for indirection: its value type for value
 * kinds (several descriptors may name one), else the descriptor. */
static inline uintptr_t tc_key(const cdr_type *t)
{
  return t->kind == CDR_K_VALUE && t->u.val.vt ? (uintptr_t)t->u.val.vt : (uintptr_t)t;
}

/* A value type's CDR_VM_* (its TypeCode's type_modifier). */
CDR_HIDDEN int16_t cdr__tc_vt_modifier(const cdr_value_type *vt);

/* A map from uintptr_t keys to uintptr_t values (open addressing), first
 * in its own small table, then in blocks from ALLOC. */
#define TC_MAP_INLINE 32
typedef struct tc_map {
  uintptr_t *key, *val;        /* key + 1, 0: empty */
  size_t cap, n;
  const cdr_allocator *alloc;
  uintptr_t ikey[TC_MAP_INLINE], ival[TC_MAP_INLINE];
} tc_map;

CDR_HIDDEN void cdr__tc_map_init(tc_map *m, const cdr_allocator *alloc);
CDR_HIDDEN void cdr__tc_map_free(tc_map *m);
/* CDR_OK or CDR_E_NOMEM.  A key put again gets the new value. */
CDR_HIDDEN int cdr__tc_map_put(tc_map *m, uintptr_t key, uintptr_t val);
CDR_HIDDEN bool cdr__tc_map_get(const tc_map *m, uintptr_t key, uintptr_t *val);

#endif
