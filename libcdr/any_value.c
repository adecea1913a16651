/* any_value.c - values driven by their TypeCodes: deep copy, deep free and
 * equality (cdr/any.h, "Heap values").
 *
 * Constructed types recurse on the C stack, at most CDR_ANY_MAX_NEST
 * levels; value objects (valuetypes) go on a work list instead, so a graph
 * of any size and shape costs no C stack: a copy meets an object, makes its
 * block, records source -> copy and queues it; the members of queued
 * objects are copied after the value that reached them.  Free queues each
 * object once (a visited set), equality each pair once (a bijection kept in
 * both directions). */
#include "any_impl.h"
#include <math.h>
#include <stdalign.h>

typedef struct vwork {
  const void *a;
  void *b;
} vwork;

typedef struct vctx {
  int status;
  tc_map objs;       /* copy: source -> copy; free: visited; equal: a -> b */
  tc_map back;       /* equal: b -> a; copy: descriptors visited by the type walk */
  tc_map vts;        /* copy: a value type of the old TypeCode -> its copy's */
  vwork *work;       /* iwork, then a heap block */
  size_t nwork, capwork;
  vwork iwork[32];
  cdr_typecode *tcs; /* free: TypeCodes released at the end */
  size_t ntcs, captcs;
} vctx;

static const cdr_allocator *heap(void) { return cdr_mem_global(); }

static void ctx_init(vctx *c)
{
  memset(c, 0, sizeof *c);
  c->status = CDR_OK;
  c->work = c->iwork;
  c->capwork = sizeof c->iwork / sizeof c->iwork[0];
  cdr__tc_map_init(&c->objs, heap());
  cdr__tc_map_init(&c->back, heap());
  cdr__tc_map_init(&c->vts, heap());
}

static void ctx_free(vctx *c)
{
  cdr__tc_map_free(&c->objs);
  cdr__tc_map_free(&c->back);
  cdr__tc_map_free(&c->vts);
  if (c->work != c->iwork)
    cdr__free(heap(), c->work);
  for (size_t k = 0; k < c->ntcs; k++)
    cdr_tc_release(c->tcs[k]);
  cdr__free(heap(), c->tcs);
}

/* Room for one more element in *P (N used of *CAP, ESIZE octets each);
 * INLINE: the caller's first array, never freed here. */
static bool grow(void **p, size_t *cap, size_t n, size_t esize, const void *inl)
{
  if (n < *cap)
    return true;
  size_t nc = *cap ? *cap * 2 : 16;
  void *q = cdr__malloc(heap(), nc * esize);
  if (!q)
    return false;
  if (*p)
    memcpy(q, *p, *cap * esize);
  if (*p != inl)
    cdr__free(heap(), *p);
  *p = q;
  *cap = nc;
  return true;
}

/* Queue (A, B); false when there is no room (the caller's status is left
 * alone: QUIET) or CDR_E_NOMEM. */
static bool push_q(vctx *c, const void *a, void *b)
{
  if (!grow((void **)&c->work, &c->capwork, c->nwork, sizeof *c->work, c->iwork))
    return false;
  c->work[c->nwork++] = (vwork){ a, b };
  return true;
}

static bool push(vctx *c, const void *a, void *b)
{
  if (!grow((void **)&c->work, &c->capwork, c->nwork, sizeof *c->work, c->iwork)) {
    c->status = CDR_E_NOMEM;
    return false;
  }
  c->work[c->nwork++] = (vwork){ a, b };
  return true;
}

static void put(vctx *c, tc_map *m, const void *k, const void *v)
{
  if (c->status == CDR_OK && cdr__tc_map_put(m, (uintptr_t)k, (uintptr_t)v) != CDR_OK)
    c->status = CDR_E_NOMEM;
}

static bool get(const tc_map *m, const void *k, void **v)
{
  uintptr_t x;
  if (!cdr__tc_map_get(m, (uintptr_t)k, &x))
    return false;
  *v = (void *)x;
  return true;
}

/* ---------------------------------------------------------------- unions */

const cdr_union_case *cdr__union_case(const cdr_type *t, const void *p, int64_t *label)
{
  const cdr_type *dt = cdr__unalias(t->u.un.disc);
  const uint8_t *dp = (const uint8_t *)p + t->u.un.disc_offset;
  int64_t v = 0;
  switch (dt ? dt->kind : CDR_K_NULL) {
  case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: v = *dp; break;
  case CDR_K_SHORT: { int16_t x; memcpy(&x, dp, 2); v = x; break; }
  case CDR_K_USHORT: { uint16_t x; memcpy(&x, dp, 2); v = x; break; }
  case CDR_K_LONG: { int32_t x; memcpy(&x, dp, 4); v = x; break; }
  case CDR_K_ULONG: case CDR_K_ENUM: case CDR_K_WCHAR: { uint32_t x; memcpy(&x, dp, 4); v = x; break; }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: memcpy(&v, dp, 8); break;
  default: break;
  }
  *label = v;
  const cdr_union_case *c = t->u.un.cases;
  uint32_t n = t->u.un.ncases;
  int32_t def = t->u.un.default_case;
  if (!c)
    return NULL;
  for (uint32_t k = 0; k < n; k++)
    if (c[k].label == v && (int32_t)k != def)
      return &c[k];
  return def >= 0 && (uint32_t)def < n ? &c[def] : NULL;
}

/* The levels of value type VT, root base first, into L; their count. */
static unsigned levels(const cdr_value_type *vt, const cdr_value_type **l)
{
  unsigned n = 0;
  for (const cdr_value_type *x = vt; x && n < 32; x = x->base)
    n++;
  unsigned k = n;
  for (const cdr_value_type *x = vt; x && k > 0; x = x->base)
    l[--k] = x;
  return n;
}

/* ---------------------------------------------------------------- type map (copies) */

static void map_types(vctx *c, const cdr_type *o, const cdr_type *n, unsigned depth);

static void map_vt(vctx *c, const cdr_value_type *o, const cdr_value_type *n, unsigned depth)
{
  void *x;
  if (!o || !n || o == n || get(&c->vts, o, &x))
    return;
  put(c, &c->vts, o, n);
  map_vt(c, o->base, n->base, depth + 1);
  for (uint32_t k = 0; k < o->nmembers && k < n->nmembers; k++)
    map_types(c, o->members[k].type, n->members[k].type, depth + 1);
}

/* Walk O and its copy N side by side, recording their value types' pairs. */
static void map_types(vctx *c, const cdr_type *o, const cdr_type *n, unsigned depth)
{
  void *x;
  if (!o || !n || o == n || o->kind != n->kind || depth > CDR_ANY_MAX_NEST || c->status != CDR_OK
      || get(&c->back, o, &x))
    return;
  put(c, &c->back, o, n);
  switch (o->kind) {
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    for (uint32_t k = 0; k < o->u.st.count && k < n->u.st.count; k++)
      map_types(c, o->u.st.members[k].type, n->u.st.members[k].type, depth + 1);
    break;
  case CDR_K_UNION:
    for (uint32_t k = 0; k < o->u.un.ncases && k < n->u.un.ncases; k++)
      map_types(c, o->u.un.cases[k].type, n->u.un.cases[k].type, depth + 1);
    break;
  case CDR_K_SEQUENCE: map_types(c, o->u.seq.elem, n->u.seq.elem, depth + 1); break;
  case CDR_K_ARRAY: map_types(c, o->u.arr.elem, n->u.arr.elem, depth + 1); break;
  case CDR_K_ALIAS: map_types(c, o->u.alias.type, n->u.alias.type, depth + 1); break;
  case CDR_K_VALUE: map_vt(c, o->u.val.vt, n->u.val.vt, depth + 1); break;
  default: break;
  }
}

/* ---------------------------------------------------------------- copy */

static void copy(vctx *c, const cdr_type *t, void *dst, const void *src, unsigned depth);

static void *hmalloc(vctx *c, size_t n)
{
  void *p = cdr__malloc(heap(), n ? n : 1);
  if (!p)
    c->status = CDR_E_NOMEM;
  return p;
}

static void copy_members(vctx *c, const cdr_member *m, uint32_t n, uint8_t *d, const uint8_t *s,
                         unsigned depth)
{
  for (uint32_t k = 0; k < n && c->status == CDR_OK; k++)
    copy(c, m[k].type, d + m[k].offset, s + m[k].offset, depth + 1);
}

static void copy_any(vctx *c, cdr_any *d, const cdr_any *s, unsigned depth)
{
  cdr_any_init(d);
  cdr_typecode ot = s->_type ? s->_type : cdr_tc_null;
  int st = CDR_OK;
  cdr_typecode nt = cdr_tc_dup(ot, &st);
  if (!nt) {
    c->status = st;
    return;
  }
  void *v = NULL;
  if (nt->size) {
    if (!s->_value) {
      c->status = CDR_E_INVALID;
    } else if ((v = hmalloc(c, nt->size))) {
      memset(v, 0, nt->size);
      map_types(c, ot, nt, 0);
      copy(c, nt, v, s->_value, depth + 1);
    }
  }
  if (c->status != CDR_OK && !v) {
    cdr_tc_release(nt);
    return;
  }
  /* On failure too: the caller's cdr_value_free() of the whole copy frees
   * what was copied, each object once, even one shared with the outside. */
  d->_type = nt;
  d->_value = v;
  d->_release = 1;
}

static void copy_ref(vctx *c, void *dst, const void *src, unsigned depth)
{
  const void *r;
  memcpy(&r, src, sizeof r);
  void *n = NULL;
  if (r) {
    const cdr_objref_hooks *h = cdr__objref_hooks();
    if (h) {
      if (!(n = h->dup(r, h->ud)))
        c->status = CDR_E_NOMEM;
    } else if ((n = hmalloc(c, sizeof(cdr_ior)))) {
      memset(n, 0, sizeof(cdr_ior));
      copy(c, &cdr_type_ior, n, r, depth + 1);
      if (c->status != CDR_OK) {
        cdr_value_free(&cdr_type_ior, n);
        cdr__free(heap(), n);
        n = NULL;
      }
    }
  }
  memcpy(dst, &n, sizeof n);
}

static void copy_value(vctx *c, void *dst, const void *src)
{
  const void *p;
  memcpy(&p, src, sizeof p);
  void *q = NULL;
  if (p && !get(&c->objs, p, &q)) {
    const cdr_value_type *vt = ((const cdr_value *)p)->type;
    if (!vt || (vt->flags & CDR_VT_CUSTOM)) {
      c->status = CDR_E_TYPE;
    } else if ((q = hmalloc(c, vt->size))) {
      memset(q, 0, vt->size);
      void *nvt;
      ((cdr_value *)q)->type = get(&c->vts, vt, &nvt) ? nvt : vt;
      put(c, &c->objs, p, q);
      if (c->status != CDR_OK || !push(c, p, q)) {
        cdr__free(heap(), q);
        q = NULL;
      }
    }
  }
  memcpy(dst, &q, sizeof q);
}

static void copy_object(vctx *c, const void *p, void *q)
{
  const cdr_value_type *l[32];
  unsigned n = levels(((const cdr_value *)p)->type, l);
  for (unsigned k = 0; k < n && c->status == CDR_OK; k++)
    copy_members(c, l[k]->members, l[k]->nmembers, q, p, 0);
}

static void copy(vctx *c, const cdr_type *t, void *dst, const void *src, unsigned depth)
{
  if (c->status != CDR_OK)
    return;
  if (!t) {
    c->status = CDR_E_INVALID;
    return;
  }
  if (depth > CDR_ANY_MAX_NEST) {
    c->status = CDR_E_LIMIT;
    return;
  }
  uint8_t *d = dst;
  const uint8_t *s = src;
  switch (t->kind) {
  case CDR_K_STRING: {
    const char *x;
    memcpy(&x, s, sizeof x);
    char *y = NULL;
    if (x && (y = hmalloc(c, strlen(x) + 1)))
      memcpy(y, x, strlen(x) + 1);
    memcpy(d, &y, sizeof y);
    return;
  }
  case CDR_K_WSTRING: {
    const cdr_wchar *x;
    memcpy(&x, s, sizeof x);
    cdr_wchar *y = NULL;
    if (x) {
      size_t n = 0;
      while (x[n])
        n++;
      if ((y = hmalloc(c, (n + 1) * sizeof *y)))
        memcpy(y, x, (n + 1) * sizeof *y);
    }
    memcpy(d, &y, sizeof y);
    return;
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    copy_members(c, t->u.st.members, t->u.st.count, d, s, depth);
    return;
  case CDR_K_UNION: {
    int64_t label;
    const cdr_union_case *uc = cdr__union_case(t, s, &label);
    memcpy(d + t->u.un.disc_offset, s + t->u.un.disc_offset, t->u.un.disc->size);
    if (uc)
      copy(c, uc->type, d + uc->offset, s + uc->offset, depth + 1);
    return;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    const cdr_type *et = t->kind == CDR_K_SEQUENCE ? t->u.seq.elem : &cdr_type_octet;
    cdr_seq x, y = { 0, 0, NULL, 0 };
    memcpy(&x, s, sizeof x);
    if (x._length) {
      if (!x._buffer || !et) {
        c->status = CDR_E_INVALID;
      } else if (et->size && x._length > SIZE_MAX / et->size) {
        c->status = CDR_E_LIMIT;
      } else if ((y._buffer = hmalloc(c, (size_t)x._length * et->size))) {
        memset(y._buffer, 0, (size_t)x._length * et->size);
        y._maximum = y._length = x._length;
        y._release = 1;
        for (uint32_t k = 0; k < x._length && c->status == CDR_OK; k++)
          copy(c, et, (uint8_t *)y._buffer + (size_t)k * et->size,
               (const uint8_t *)x._buffer + (size_t)k * et->size, depth + 1);
      }
    }
    memcpy(d, &y, sizeof y);
    return;
  }
  case CDR_K_ARRAY:
    for (uint32_t k = 0; k < t->u.arr.count && c->status == CDR_OK; k++)
      copy(c, t->u.arr.elem, d + (size_t)k * t->u.arr.elem->size,
           s + (size_t)k * t->u.arr.elem->size, depth + 1);
    return;
  case CDR_K_ALIAS:
    copy(c, t->u.alias.type, d, s, depth + 1);
    return;
  case CDR_K_ANY:
    copy_any(c, (cdr_any *)(void *)d, (const cdr_any *)(const void *)s, depth);
    return;
  case CDR_K_TYPECODE: {
    cdr_typecode x, y = NULL;
    memcpy(&x, s, sizeof x);
    int st = CDR_OK;
    if (x && !(y = cdr_tc_dup(x, &st)))
      c->status = st;
    memcpy(d, &y, sizeof y);
    return;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE:
    copy_ref(c, d, s, depth);
    return;
  case CDR_K_VALUE:
    copy_value(c, d, s);
    return;
  case CDR_K_CUSTOM: case CDR_K_NATIVE: case CDR_K_LOCAL_INTERFACE:
    c->status = CDR_E_INVALID;
    return;
  default: /* the primitives, enums, fixed, null, void */
    memcpy(d, s, t->size);
    return;
  }
}

static void drain_copy(vctx *c)
{
  while (c->status == CDR_OK && c->nwork) {
    vwork w = c->work[--c->nwork];
    copy_object(c, w.a, w.b);
  }
}

int cdr__value_copy_from(cdr_typecode old, cdr_typecode tc, void *dst, const void *src)
{
  vctx c;
  ctx_init(&c);
  memset(dst, 0, tc->size);
  map_types(&c, old, tc, 0);
  copy(&c, tc, dst, src, 0);
  drain_copy(&c);
  if (c.status != CDR_OK) {
    /* Objects queued but not filled are zeroed past their header: freeing
     * the partial copy frees every block once. */
    cdr_value_free(tc, dst);
    memset(dst, 0, tc->size);
  }
  int st = c.status;
  ctx_free(&c);
  return st;
}

int cdr_value_copy(cdr_typecode tc, void *dst, const void *src)
{
  return cdr__value_copy_from(tc, tc, dst, src);
}

/* ---------------------------------------------------------------- free */

static void vfree(vctx *c, const cdr_type *t, void *v, unsigned depth);
static void free_object(vctx *c, const cdr_value_type *vt, void *q, unsigned depth);
static void free_drain(vctx *c);

static void free_members(vctx *c, const cdr_member *m, uint32_t n, uint8_t *p, unsigned depth)
{
  for (uint32_t k = 0; k < n; k++)
    vfree(c, m[k].type, p + m[k].offset, depth + 1);
}

static void vfree(vctx *c, const cdr_type *t, void *v, unsigned depth)
{
  if (!t || depth > CDR_ANY_MAX_NEST)
    return;
  uint8_t *p = v;
  switch (t->kind) {
  case CDR_K_STRING: case CDR_K_WSTRING: {
    void *x;
    memcpy(&x, p, sizeof x);
    cdr__free(heap(), x);
    return;
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    free_members(c, t->u.st.members, t->u.st.count, p, depth);
    return;
  case CDR_K_UNION: {
    int64_t label;
    const cdr_union_case *uc = cdr__union_case(t, p, &label);
    if (uc)
      vfree(c, uc->type, p + uc->offset, depth + 1);
    return;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    const cdr_type *et = t->kind == CDR_K_SEQUENCE ? t->u.seq.elem : &cdr_type_octet;
    cdr_seq x;
    memcpy(&x, p, sizeof x);
    if (!x._release || !x._buffer)
      return;
    for (uint32_t k = 0; et && k < x._length; k++)
      vfree(c, et, (uint8_t *)x._buffer + (size_t)k * et->size, depth + 1);
    cdr__free(heap(), x._buffer);
    return;
  }
  case CDR_K_ARRAY:
    for (uint32_t k = 0; t->u.arr.elem && k < t->u.arr.count; k++)
      vfree(c, t->u.arr.elem, p + (size_t)k * t->u.arr.elem->size, depth + 1);
    return;
  case CDR_K_ALIAS:
    vfree(c, t->u.alias.type, p, depth + 1);
    return;
  case CDR_K_ANY: {
    cdr_any *a = (cdr_any *)v;
    if (a->_release) {
      if (a->_type && a->_value) {
        vfree(c, a->_type, a->_value, depth + 1);
        cdr__free(heap(), a->_value);
      }
      /* Released at the end: objects still queued may have their types.
       * Without room for it: those objects first, then the TypeCode. */
      if (a->_type) {
        if (grow((void **)&c->tcs, &c->captcs, c->ntcs, sizeof *c->tcs, NULL)) {
          c->tcs[c->ntcs++] = a->_type;
        } else {
          free_drain(c);
          cdr_tc_release(a->_type);
        }
      }
    }
    cdr_any_init(a);
    return;
  }
  case CDR_K_TYPECODE: {
    cdr_typecode x;
    memcpy(&x, p, sizeof x);
    cdr_tc_release(x);
    return;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: {
    void *r;
    memcpy(&r, p, sizeof r);
    if (!r)
      return;
    const cdr_objref_hooks *h = cdr__objref_hooks();
    if (h) {
      h->release(r, h->ud);
    } else {
      vfree(c, &cdr_type_ior, r, depth + 1);
      cdr__free(heap(), r);
    }
    return;
  }
  case CDR_K_VALUE: {
    /* Each object once: the visited set keeps the addresses of the objects
     * met (freed or queued).  Without memory for it, or for the work list,
     * the object is left alone (leaked, never freed twice). */
    void *q, *x;
    memcpy(&q, p, sizeof q);
    if (!q || get(&c->objs, q, &x))
      return;
    if (cdr__tc_map_put(&c->objs, (uintptr_t)q, (uintptr_t)q) != CDR_OK)
      return;
    (void)push_q(c, ((const cdr_value *)q)->type, q);
    return;
  }
  default:
    return;
  }
}

static void free_object(vctx *c, const cdr_value_type *vt, void *q, unsigned depth)
{
  if (vt && depth <= CDR_ANY_MAX_NEST) {
    const cdr_value_type *l[32];
    unsigned n = levels(vt, l);
    for (unsigned k = 0; k < n; k++)
      free_members(c, l[k]->members, l[k]->nmembers, q, depth);
  }
  cdr__free(heap(), q);
}

static void free_drain(vctx *c)
{
  while (c->nwork) {
    vwork w = c->work[--c->nwork];
    free_object(c, w.a, w.b, 0);
  }
}

void cdr_value_free(cdr_typecode tc, void *v)
{
  vctx c;
  ctx_init(&c);
  vfree(&c, tc, v, 0);
  free_drain(&c);
  ctx_free(&c);
}


/* ---------------------------------------------------------------- layouts */

/* Whether values of A and B have the same C layout, so that a value of
 * one may be read as the other: TypeCodes equivalent by repository ID may
 * still differ in structure when one comes off the wire.  Pairs on the
 * current path are taken as the same (recursion through sequences);
 * deeper than 64 levels: not the same (cannot tell). */
typedef struct lay {
  unsigned depth;
  const cdr_type *path[64][2];
} lay;

static bool lay_same(lay *l, const cdr_type *a, const cdr_type *b);

static bool lay_members(lay *l, const cdr_member *ma, const cdr_member *mb, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    if (ma[k].offset != mb[k].offset || !lay_same(l, ma[k].type, mb[k].type))
      return false;
  return true;
}

static bool lay_vt(lay *l, const cdr_value_type *a, const cdr_value_type *b)
{
  for (unsigned lv = 0; a || b; lv++, a = a->base, b = b->base) {
    if (!a || !b || lv >= 32 || a->nmembers != b->nmembers || a->size != b->size
        || (a->flags & (CDR_VT_BOX | CDR_VT_CUSTOM)) != (b->flags & (CDR_VT_BOX | CDR_VT_CUSTOM)))
      return false;
    if (a != b && !lay_members(l, a->members, b->members, a->nmembers))
      return false;
  }
  return true;
}

static bool lay_same(lay *l, const cdr_type *a, const cdr_type *b)
{
  a = cdr__unalias(a);
  b = cdr__unalias(b);
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->size != b->size || a->kind == CDR_K_ALIAS)
    return false;
  for (unsigned k = 0; k < l->depth; k++)
    if (l->path[k][0] == a && l->path[k][1] == b)
      return true;
  if (l->depth >= 64)
    return false;
  l->path[l->depth][0] = a;
  l->path[l->depth][1] = b;
  l->depth++;
  bool r = true;
  switch (a->kind) {
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    r = a->u.st.count == b->u.st.count && lay_members(l, a->u.st.members, b->u.st.members, a->u.st.count);
    break;
  case CDR_K_UNION:
    r = a->u.un.ncases == b->u.un.ncases && a->u.un.default_case == b->u.un.default_case
        && a->u.un.disc_offset == b->u.un.disc_offset && lay_same(l, a->u.un.disc, b->u.un.disc);
    for (uint32_t k = 0; r && k < a->u.un.ncases; k++) {
      const cdr_union_case *x = &a->u.un.cases[k], *y = &b->u.un.cases[k];
      r = ((int32_t)k == a->u.un.default_case || x->label == y->label) && x->offset == y->offset
          && lay_same(l, x->type, y->type);
    }
    break;
  case CDR_K_ENUM: r = a->u.en.count == b->u.en.count; break;
  case CDR_K_SEQUENCE: r = lay_same(l, a->u.seq.elem, b->u.seq.elem); break;
  case CDR_K_ARRAY:
    r = a->u.arr.count == b->u.arr.count && lay_same(l, a->u.arr.elem, b->u.arr.elem);
    break;
  case CDR_K_FIXED: r = a->u.fx.digits == b->u.fx.digits && a->u.fx.scale == b->u.fx.scale; break;
  case CDR_K_VALUE: r = lay_vt(l, a->u.val.vt, b->u.val.vt); break;
  case CDR_K_CUSTOM: r = false; break;
  default: break; /* the same kind and size: the same layout */
  }
  l->depth--;
  return r;
}

int cdr__vt_same_layout(const cdr_value_type *a, const cdr_value_type *b)
{
  lay l;
  l.depth = 0;
  return lay_vt(&l, a, b);
}

int cdr__tc_same_layout(cdr_typecode a, cdr_typecode b)
{
  lay l;
  l.depth = 0;
  return lay_same(&l, a, b);
}

/* ---------------------------------------------------------------- equal */

static int veq(vctx *c, const cdr_type *t, const void *a, const void *b, unsigned depth);

static int eq_members(vctx *c, const cdr_member *m, uint32_t n, const uint8_t *a, const uint8_t *b,
                      unsigned depth)
{
  for (uint32_t k = 0; k < n; k++) {
    int r = veq(c, m[k].type, a + m[k].offset, b + m[k].offset, depth + 1);
    if (r != 1)
      return r;
  }
  return 1;
}

static int eq_any(vctx *c, const cdr_any *a, const cdr_any *b, unsigned depth)
{
  cdr_typecode ta = a->_type ? a->_type : cdr_tc_null, tb = b->_type ? b->_type : cdr_tc_null;
  int r = cdr_tc_equivalent(ta, tb);
  if (r != 1)
    return r;
  if (ta != tb && !cdr__tc_same_layout(ta, tb))
    return 0; /* equivalent by ID, another structure: values not comparable */
  if (!ta->size)
    return 1;
  if (!a->_value || !b->_value)
    return a->_value == b->_value;
  return veq(c, ta, a->_value, b->_value, depth + 1);
}

static int eq_ref(vctx *c, const void *a, const void *b, unsigned depth)
{
  const void *x, *y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  if (!x || !y)
    return x == y;
  const cdr_objref_hooks *h = cdr__objref_hooks();
  if (h)
    return h->equal ? h->equal(x, y, h->ud) : x == y;
  return veq(c, &cdr_type_ior, x, y, depth + 1);
}

static int eq_value(vctx *c, const void *a, const void *b)
{
  const void *x, *y;
  void *z;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  if (!x || !y)
    return x == y;
  if (get(&c->objs, x, &z))
    return z == y;
  if (get(&c->back, y, &z))
    return 0; /* Y is already the image of another object */
  const cdr_value_type *vx = ((const cdr_value *)x)->type, *vy = ((const cdr_value *)y)->type;
  if (!vx || !vy)
    return vx == vy;
  if (vx != vy) {
    const char *ix = cdr_value_type_id(vx, NULL), *iy = cdr_value_type_id(vy, NULL);
    lay l;
    l.depth = 0;
    if (!ix || !iy || strcmp(ix, iy) != 0 || !lay_vt(&l, vx, vy))
      return 0;
  }
  if (vx->flags & CDR_VT_CUSTOM)
    return CDR_E_UNSUPPORTED;
  put(c, &c->objs, x, y);
  put(c, &c->back, y, x);
  if (c->status != CDR_OK || !push(c, x, (void *)y))
    return c->status;
  return 1;
}

static int veq(vctx *c, const cdr_type *t, const void *av, const void *bv, unsigned depth)
{
  if (!t)
    return CDR_E_INVALID;
  if (depth > CDR_ANY_MAX_NEST)
    return CDR_E_LIMIT;
  const uint8_t *a = av, *b = bv;
  switch (t->kind) {
  case CDR_K_NULL: case CDR_K_VOID: return 1;
  case CDR_K_BOOLEAN: return (*a != 0) == (*b != 0);
  case CDR_K_LONGDOUBLE: {
    long double x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (isnan(x) || isnan(y))
      return isnan(x) && isnan(y);
    return x == y && signbit(x) == signbit(y);
  }
  case CDR_K_FIXED: {
    const cdr_fixed *x = av, *y = bv;
    return x->digits == y->digits && x->scale == y->scale && x->negative == y->negative
           && memcmp(x->d, y->d, x->digits <= 31 ? x->digits : 31) == 0;
  }
  case CDR_K_STRING: {
    const char *x, *y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x && y ? strcmp(x, y) == 0 : x == y;
  }
  case CDR_K_WSTRING: {
    const cdr_wchar *x, *y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (!x || !y)
      return x == y;
    size_t k = 0;
    for (; x[k] && x[k] == y[k]; k++)
      ;
    return x[k] == y[k];
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    return eq_members(c, t->u.st.members, t->u.st.count, a, b, depth);
  case CDR_K_UNION: {
    int64_t la, lb;
    const cdr_union_case *ca = cdr__union_case(t, a, &la), *cb = cdr__union_case(t, b, &lb);
    if (la != lb || ca != cb)
      return 0;
    return ca ? veq(c, ca->type, a + ca->offset, b + ca->offset, depth + 1) : 1;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    const cdr_type *et = t->kind == CDR_K_SEQUENCE ? t->u.seq.elem : &cdr_type_octet;
    cdr_seq x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    if (x._length != y._length)
      return 0;
    if (x._length && (!x._buffer || !y._buffer || !et))
      return CDR_E_INVALID;
    for (uint32_t k = 0; k < x._length; k++) {
      int r = veq(c, et, (const uint8_t *)x._buffer + (size_t)k * et->size,
                  (const uint8_t *)y._buffer + (size_t)k * et->size, depth + 1);
      if (r != 1)
        return r;
    }
    return 1;
  }
  case CDR_K_ARRAY:
    for (uint32_t k = 0; k < t->u.arr.count; k++) {
      int r = veq(c, t->u.arr.elem, a + (size_t)k * t->u.arr.elem->size,
                  b + (size_t)k * t->u.arr.elem->size, depth + 1);
      if (r != 1)
        return r;
    }
    return 1;
  case CDR_K_ALIAS: return veq(c, t->u.alias.type, a, b, depth + 1);
  case CDR_K_ANY: return eq_any(c, av, bv, depth);
  case CDR_K_TYPECODE: {
    cdr_typecode x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x && y ? cdr_tc_equal(x, y) : x == y;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: return eq_ref(c, a, b, depth);
  case CDR_K_VALUE: return eq_value(c, a, b);
  case CDR_K_CUSTOM: case CDR_K_NATIVE: case CDR_K_LOCAL_INTERFACE: return CDR_E_INVALID;
  default: /* integers, chars, octets, enums, float, double: the same bits */
    return memcmp(a, b, t->size) == 0;
  }
}

static int eq_drain(vctx *c, int r)
{
  while (r == 1 && c->nwork) {
    vwork w = c->work[--c->nwork];
    const cdr_value_type *l[32];
    unsigned n = levels(((const cdr_value *)w.a)->type, l);
    for (unsigned k = 0; r == 1 && k < n; k++)
      r = eq_members(c, l[k]->members, l[k]->nmembers, w.a, w.b, 0);
  }
  return r == 1 && c->status != CDR_OK ? c->status : r;
}

int cdr_value_equal(cdr_typecode tc, const void *a, const void *b)
{
  vctx c;
  ctx_init(&c);
  int r = eq_drain(&c, veq(&c, tc, a, b, 0));
  ctx_free(&c);
  return r;
}

int cdr_any_equal(const cdr_any *a, const cdr_any *b)
{
  vctx c;
  ctx_init(&c);
  int r = eq_drain(&c, eq_any(&c, a, b, 0));
  ctx_free(&c);
  return r;
}
