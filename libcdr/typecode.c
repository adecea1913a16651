/* typecode.c - TypeCodes over type descriptors: the constants, the TCKind of
 * a descriptor, the accessors, equal/equivalent, storage (dup, release,
 * compact copies), and the values of the TypeCode kinds inside cdr_write()/
 * cdr_read().  The wire forms are tc_write.c's and tc_read.c's. */
#include "tc_impl.h"
#include <stdalign.h>

/* ---------------------------------------------------------------- constants */

#define TC_CONST(var, k, sz, al, idl, id) \
  const cdr_type var = { .kind = k, .size = sz, .align = al, .name = idl, .repo_id = id }

TC_CONST(cdr_type_null, CDR_K_NULL, 0, 1, "null", NULL);
TC_CONST(cdr_type_void, CDR_K_VOID, 0, 1, "void", NULL);
TC_CONST(cdr_type_any, CDR_K_ANY, sizeof(cdr_any), alignof(cdr_any), "any", NULL);
TC_CONST(cdr_type_typecode, CDR_K_TYPECODE, sizeof(cdr_typecode), alignof(cdr_typecode),
         "TypeCode", NULL);
TC_CONST(cdr_type_principal, CDR_K_PRINCIPAL, sizeof(cdr_seq), alignof(cdr_seq), "Principal",
         NULL);
TC_CONST(cdr_type_object, CDR_K_OBJREF, sizeof(void *), alignof(void *), "Object",
         "IDL:omg.org/CORBA/Object:1.0");

/* ---------------------------------------------------------------- kinds */

static const int8_t tk_of[] = {
  [CDR_K_OCTET] = CDR_TK_OCTET, [CDR_K_BOOLEAN] = CDR_TK_BOOLEAN, [CDR_K_CHAR] = CDR_TK_CHAR,
  [CDR_K_WCHAR] = CDR_TK_WCHAR, [CDR_K_SHORT] = CDR_TK_SHORT, [CDR_K_USHORT] = CDR_TK_USHORT,
  [CDR_K_LONG] = CDR_TK_LONG, [CDR_K_ULONG] = CDR_TK_ULONG, [CDR_K_LONGLONG] = CDR_TK_LONGLONG,
  [CDR_K_ULONGLONG] = CDR_TK_ULONGLONG, [CDR_K_FLOAT] = CDR_TK_FLOAT,
  [CDR_K_DOUBLE] = CDR_TK_DOUBLE, [CDR_K_LONGDOUBLE] = CDR_TK_LONGDOUBLE,
  [CDR_K_FIXED] = CDR_TK_FIXED, [CDR_K_STRING] = CDR_TK_STRING, [CDR_K_WSTRING] = CDR_TK_WSTRING,
  [CDR_K_ENUM] = CDR_TK_ENUM, [CDR_K_STRUCT] = CDR_TK_STRUCT, [CDR_K_UNION] = CDR_TK_UNION,
  [CDR_K_SEQUENCE] = CDR_TK_SEQUENCE, [CDR_K_ARRAY] = CDR_TK_ARRAY, [CDR_K_VALUE] = CDR_TK_VALUE,
  [CDR_K_CUSTOM] = CDR_TK_NONE, [CDR_K_NULL] = CDR_TK_NULL, [CDR_K_VOID] = CDR_TK_VOID,
  [CDR_K_ANY] = CDR_TK_ANY, [CDR_K_TYPECODE] = CDR_TK_TYPECODE,
  [CDR_K_PRINCIPAL] = CDR_TK_PRINCIPAL, [CDR_K_OBJREF] = CDR_TK_OBJREF,
  [CDR_K_ALIAS] = CDR_TK_ALIAS, [CDR_K_EXCEPT] = CDR_TK_EXCEPT, [CDR_K_NATIVE] = CDR_TK_NATIVE,
  [CDR_K_ABSTRACT_INTERFACE] = CDR_TK_ABSTRACT_INTERFACE,
  [CDR_K_LOCAL_INTERFACE] = CDR_TK_LOCAL_INTERFACE,
};

int cdr__tc_kind_of(const cdr_type *t)
{
  unsigned k = (unsigned)t->kind;
  if (k == 0 || k >= sizeof tk_of)
    return CDR_TK_NONE;
  if (k == CDR_K_VALUE && t->u.val.vt && (t->u.val.vt->flags & CDR_VT_BOX))
    return CDR_TK_VALUE_BOX;
  return tk_of[k];
}

cdr_tckind cdr_tc_kind(cdr_typecode tc)
{
  return (cdr_tckind)cdr__tc_kind_of(tc);
}

/* ---------------------------------------------------------------- nodes */

tc_node *cdr__tc_node_new(cdr_arena *a, tc_owner *owner, cdr_kind kind, size_t size, size_t align)
{
  tc_node *n = cdr_arena_alloc(a, sizeof *n, alignof(tc_node));
  if (!n)
    return NULL;
  memset(n, 0, sizeof *n);
  n->owner = owner;
  n->t.kind = kind;
  n->t.size = (uint32_t)size;
  n->t.align = (uint32_t)align;
  n->t.priv = TC_RUNTIME;
  return n;
}

tc_vnode *cdr__tc_vnode_new(cdr_arena *a, tc_owner *owner)
{
  tc_vnode *v = cdr_arena_alloc(a, sizeof *v, alignof(tc_vnode));
  if (!v)
    return NULL;
  memset(v, 0, sizeof *v);
  v->n.owner = owner;
  v->n.min_wire = 4;
  v->n.t.kind = CDR_K_VALUE;
  v->n.t.size = sizeof(void *);
  v->n.t.align = alignof(void *);
  v->n.t.priv = TC_RUNTIME;
  v->n.t.u.val.vt = &v->vt;
  v->vt.flags = CDR_VT_NOCACHE;
  v->vt.tc = &v->n.t;
  return v;
}

/* ---------------------------------------------------------------- the map */

void cdr__tc_map_init(tc_map *m, const cdr_allocator *alloc)
{
  m->key = m->ikey;
  m->val = m->ival;
  m->cap = TC_MAP_INLINE;
  m->n = 0;
  m->alloc = alloc;
  memset(m->ikey, 0, sizeof m->ikey);
}

void cdr__tc_map_free(tc_map *m)
{
  if (m->key != m->ikey) {
    cdr__free(m->alloc, m->key);
    cdr__free(m->alloc, m->val);
  }
  cdr__tc_map_init(m, m->alloc);
}

static size_t map_slot(const uintptr_t *keys, size_t cap, uintptr_t k)
{
  size_t h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
  while (keys[h] && keys[h] != k)
    h = (h + 1) & (cap - 1);
  return h;
}

bool cdr__tc_map_get(const tc_map *m, uintptr_t key, uintptr_t *val)
{
  size_t h = map_slot(m->key, m->cap, key + 1);
  if (!m->key[h])
    return false;
  *val = m->val[h];
  return true;
}

int cdr__tc_map_put(tc_map *m, uintptr_t key, uintptr_t val)
{
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap * 2;
    uintptr_t *k = cdr__malloc(m->alloc, cap * sizeof *k);
    uintptr_t *v = cdr__malloc(m->alloc, cap * sizeof *v);
    if (!k || !v || cap > SIZE_MAX / 2 / sizeof *k) {
      cdr__free(m->alloc, k);
      cdr__free(m->alloc, v);
      return CDR_E_NOMEM;
    }
    memset(k, 0, cap * sizeof *k);
    for (size_t j = 0; j < m->cap; j++)
      if (m->key[j]) {
        size_t h = map_slot(k, cap, m->key[j]);
        k[h] = m->key[j];
        v[h] = m->val[j];
      }
    if (m->key != m->ikey) {
      cdr__free(m->alloc, m->key);
      cdr__free(m->alloc, m->val);
    }
    m->key = k;
    m->val = v;
    m->cap = cap;
  }
  size_t h = map_slot(m->key, m->cap, key + 1);
  if (!m->key[h]) {
    m->key[h] = key + 1;
    m->n++;
  }
  m->val[h] = val;
  return CDR_OK;
}

/* ---------------------------------------------------------------- value types */

/* VT's descriptor of kind CDR_K_VALUE: its node's for the library's value
 * types, else built once and published (as cdr_value_type_plan() does). */
static const cdr_type *vt_tc(const cdr_value_type *vt)
{
  const cdr_type *t = __atomic_load_n(&vt->tc, __ATOMIC_ACQUIRE);
  if (t)
    return t;
  const cdr_allocator *a = cdr_mem_global();
  cdr_type *n = cdr__malloc(a, sizeof *n);
  if (!n)
    return NULL;
  *n = (cdr_type){ .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *),
                   .name = vt->name, .u.val.vt = vt };
  cdr_value_type *m = (cdr_value_type *)vt; /* only the atomic cache is written */
  const cdr_type *expected = NULL;
  if (!__atomic_compare_exchange_n(&m->tc, &expected, n, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
    cdr__free(a, n);
    return expected;
  }
  return n;
}

void cdr__tc_value_clear(cdr_value_type *t)
{
  const cdr_type *tc = __atomic_load_n(&t->tc, __ATOMIC_ACQUIRE);
  if (!tc || tc_runtime(tc))
    return; /* the library's own value types keep their node */
  __atomic_store_n(&t->tc, NULL, __ATOMIC_RELAXED);
  cdr__free(cdr_mem_global(), (void *)tc);
}

/* ---------------------------------------------------------------- accessors */

static bool has_id(int k)
{
  return k == CDR_TK_OBJREF || k == CDR_TK_STRUCT || k == CDR_TK_UNION || k == CDR_TK_ENUM
         || k == CDR_TK_ALIAS || k == CDR_TK_EXCEPT || k >= CDR_TK_VALUE;
}

static const char *nz(const char *s) { return s ? s : ""; }

int cdr_tc_id(cdr_typecode tc, const char **id)
{
  if (!has_id(cdr__tc_kind_of(tc)))
    return CDR_E_BADKIND;
  if (tc->kind == CDR_K_VALUE) {
    int st = CDR_OK;
    const char *s = cdr_value_type_id(tc->u.val.vt, &st);
    if (!s)
      return st;
    *id = s;
    return CDR_OK;
  }
  *id = nz(tc->repo_id);
  return CDR_OK;
}

int cdr_tc_name(cdr_typecode tc, const char **name)
{
  if (!has_id(cdr__tc_kind_of(tc)))
    return CDR_E_BADKIND;
  *name = nz(tc->kind == CDR_K_VALUE ? tc->u.val.vt->name : tc->name);
  return CDR_OK;
}

/* The members' count of TC, or CDR_E_BADKIND. */
static int64_t members_of(cdr_typecode tc)
{
  switch (cdr__tc_kind_of(tc)) {
  case CDR_TK_STRUCT: case CDR_TK_EXCEPT: return tc->u.st.count;
  case CDR_TK_UNION: return tc->u.un.ncases;
  case CDR_TK_ENUM: return tc->u.en.count;
  case CDR_TK_VALUE: return tc->u.val.vt->nmembers;
  default: return CDR_E_BADKIND;
  }
}

int cdr_tc_member_count(cdr_typecode tc, uint32_t *count)
{
  int64_t n = members_of(tc);
  if (n < 0)
    return (int)n;
  *count = (uint32_t)n;
  return CDR_OK;
}

/* CDR_OK when INDEX is a member of TC, whose kind is KIND_OK (a TCKind
 * mask); else BadKind or Bounds. */
static int member_check(cdr_typecode tc, uint32_t index, uint64_t kinds)
{
  int k = cdr__tc_kind_of(tc);
  if (k < 0 || !((kinds >> k) & 1))
    return CDR_E_BADKIND;
  return index < (uint64_t)members_of(tc) ? CDR_OK : CDR_E_BOUNDS;
}

#define TKM(k) (1ull << (k))
#define MEMBER_KINDS (TKM(CDR_TK_STRUCT) | TKM(CDR_TK_EXCEPT) | TKM(CDR_TK_UNION) | TKM(CDR_TK_VALUE))

int cdr_tc_member_name(cdr_typecode tc, uint32_t index, const char **name)
{
  int st = member_check(tc, index, MEMBER_KINDS | TKM(CDR_TK_ENUM));
  if (st != CDR_OK)
    return st;
  switch (tc->kind) {
  case CDR_K_UNION: *name = nz(tc->u.un.cases[index].name); break;
  case CDR_K_ENUM: *name = tc->u.en.names ? nz(tc->u.en.names[index]) : ""; break;
  case CDR_K_VALUE: *name = nz(tc->u.val.vt->members[index].name); break;
  default: *name = nz(tc->u.st.members[index].name); break;
  }
  return CDR_OK;
}

int cdr_tc_member_type(cdr_typecode tc, uint32_t index, cdr_typecode *type)
{
  int st = member_check(tc, index, MEMBER_KINDS);
  if (st != CDR_OK)
    return st;
  switch (tc->kind) {
  case CDR_K_UNION: *type = tc->u.un.cases[index].type; break;
  case CDR_K_VALUE: *type = tc->u.val.vt->members[index].type; break;
  default: *type = tc->u.st.members[index].type; break;
  }
  return CDR_OK;
}

int cdr_tc_member_label(cdr_typecode tc, uint32_t index, int64_t *label, cdr_typecode *label_type)
{
  int st = member_check(tc, index, TKM(CDR_TK_UNION));
  if (st != CDR_OK)
    return st;
  bool def = (int64_t)index == tc->u.un.default_case;
  *label = def ? 0 : tc->u.un.cases[index].label;
  if (label_type)
    *label_type = def ? cdr_tc_octet : tc->u.un.disc;
  return CDR_OK;
}

int cdr_tc_discriminator_type(cdr_typecode tc, cdr_typecode *type)
{
  if (tc->kind != CDR_K_UNION)
    return CDR_E_BADKIND;
  *type = tc->u.un.disc;
  return CDR_OK;
}

int cdr_tc_default_index(cdr_typecode tc, int32_t *index)
{
  if (tc->kind != CDR_K_UNION)
    return CDR_E_BADKIND;
  *index = tc->u.un.default_case;
  return CDR_OK;
}

int cdr_tc_length(cdr_typecode tc, uint32_t *length)
{
  switch (tc->kind) {
  case CDR_K_STRING: case CDR_K_WSTRING: *length = tc->u.str.bound; return CDR_OK;
  case CDR_K_SEQUENCE: *length = tc->u.seq.bound; return CDR_OK;
  case CDR_K_ARRAY: *length = tc->u.arr.count; return CDR_OK;
  default: return CDR_E_BADKIND;
  }
}

int cdr_tc_content_type(cdr_typecode tc, cdr_typecode *type)
{
  switch (cdr__tc_kind_of(tc)) {
  case CDR_TK_SEQUENCE: *type = tc->u.seq.elem; return CDR_OK;
  case CDR_TK_ARRAY: *type = tc->u.arr.elem; return CDR_OK;
  case CDR_TK_ALIAS: *type = tc->u.alias.type; return CDR_OK;
  case CDR_TK_VALUE_BOX:
    if (tc->u.val.vt->nmembers < 1)
      return CDR_E_INVALID;
    *type = tc->u.val.vt->members[0].type;
    return CDR_OK;
  default: return CDR_E_BADKIND;
  }
}

int cdr_tc_fixed_digits(cdr_typecode tc, uint16_t *digits)
{
  if (tc->kind != CDR_K_FIXED)
    return CDR_E_BADKIND;
  *digits = tc->u.fx.digits;
  return CDR_OK;
}

int cdr_tc_fixed_scale(cdr_typecode tc, int16_t *scale)
{
  if (tc->kind != CDR_K_FIXED)
    return CDR_E_BADKIND;
  *scale = tc->u.fx.scale;
  return CDR_OK;
}

static int16_t vt_visibility(const cdr_value_type *vt, uint32_t index)
{
  return vt->visibility ? vt->visibility[index] : CDR_PUBLIC_MEMBER;
}

int16_t cdr__tc_vt_modifier(const cdr_value_type *vt)
{
  if (vt->flags & CDR_VT_CUSTOM)
    return CDR_VM_CUSTOM;
  if (vt->flags & CDR_VT_ABSTRACT)
    return CDR_VM_ABSTRACT;
  if (vt->flags & CDR_VT_TRUNCATABLE)
    return CDR_VM_TRUNCATABLE;
  return CDR_VM_NONE;
}

int cdr_tc_member_visibility(cdr_typecode tc, uint32_t index, int16_t *visibility)
{
  int st = member_check(tc, index, TKM(CDR_TK_VALUE));
  if (st != CDR_OK)
    return st;
  *visibility = vt_visibility(tc->u.val.vt, index);
  return CDR_OK;
}

int cdr_tc_type_modifier(cdr_typecode tc, int16_t *modifier)
{
  if (cdr__tc_kind_of(tc) != CDR_TK_VALUE)
    return CDR_E_BADKIND;
  *modifier = cdr__tc_vt_modifier(tc->u.val.vt);
  return CDR_OK;
}

int cdr_tc_concrete_base_type(cdr_typecode tc, cdr_typecode *base)
{
  if (cdr__tc_kind_of(tc) != CDR_TK_VALUE)
    return CDR_E_BADKIND;
  const cdr_value_type *b = tc->u.val.vt->base;
  const cdr_type *t = b ? vt_tc(b) : NULL;
  if (b && !t)
    return CDR_E_NOMEM;
  *base = t;
  return CDR_OK;
}

/* ---------------------------------------------------------------- equal, equivalent */

#define CMP_DEPTH 64
#define CMP_BUDGET (1u << 20)
#define CMP_MEMO 256

typedef struct cmp {
  bool equiv;
  unsigned depth, budget, nmemo;
  uintptr_t stack[CMP_DEPTH][2];  /* pairs being compared (tc_key()s) */
  uintptr_t memo[CMP_MEMO][2];    /* pairs found the same */
} cmp;

static int tc_cmp(cmp *c, const cdr_type *a, const cdr_type *b);

static const cdr_type *unalias(const cdr_type *t)
{
  for (unsigned k = 0; k < CMP_DEPTH && t && t->kind == CDR_K_ALIAS; k++)
    t = t->u.alias.type;
  return t;
}

static bool same_str(const char *a, const char *b) { return strcmp(nz(a), nz(b)) == 0; }

/* Names compare in equal() only. */
static bool names_ok(const cmp *c, const char *a, const char *b)
{
  return c->equiv || same_str(a, b);
}

/* Both lists of N members' types and names; WITH_NAMES: compare names. */
static int cmp_members(cmp *c, const cdr_member *ma, const cdr_member *mb, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++) {
    if (!names_ok(c, ma[k].name, mb[k].name))
      return 0;
    int r = tc_cmp(c, ma[k].type, mb[k].type);
    if (r != 1)
      return r;
  }
  return 1;
}

static int cmp_value(cmp *c, const cdr_value_type *va, const cdr_value_type *vb)
{
  if (cdr__tc_vt_modifier(va) != cdr__tc_vt_modifier(vb) || va->nmembers != vb->nmembers
      || !names_ok(c, va->name, vb->name) || !va->base != !vb->base)
    return 0;
  if ((va->flags & CDR_VT_BOX) != (vb->flags & CDR_VT_BOX))
    return 0;
  for (uint32_t k = 0; k < va->nmembers; k++)
    if (vt_visibility(va, k) != vt_visibility(vb, k))
      return 0;
  if (va->base) {
    const cdr_type *ba = vt_tc(va->base), *bb = vt_tc(vb->base);
    if (!ba || !bb)
      return CDR_E_NOMEM;
    int r = tc_cmp(c, ba, bb);
    if (r != 1)
      return r;
  }
  if (va->flags & CDR_VT_BOX) /* a box's member has no name in its TypeCode */
    return va->nmembers == 1 ? tc_cmp(c, va->members[0].type, vb->members[0].type) : 1;
  return cmp_members(c, va->members, vb->members, va->nmembers);
}

/* The parameters of A and B, of the same TCKind K, after their IDs. */
static int cmp_params(cmp *c, const cdr_type *a, const cdr_type *b, int k)
{
  switch (k) {
  case CDR_TK_STRING: case CDR_TK_WSTRING: return a->u.str.bound == b->u.str.bound;
  case CDR_TK_FIXED:
    return a->u.fx.digits == b->u.fx.digits && a->u.fx.scale == b->u.fx.scale;
  case CDR_TK_SEQUENCE:
    return a->u.seq.bound == b->u.seq.bound ? tc_cmp(c, a->u.seq.elem, b->u.seq.elem) : 0;
  case CDR_TK_ARRAY:
    return a->u.arr.count == b->u.arr.count ? tc_cmp(c, a->u.arr.elem, b->u.arr.elem) : 0;
  case CDR_TK_ALIAS: return tc_cmp(c, a->u.alias.type, b->u.alias.type);
  case CDR_TK_STRUCT: case CDR_TK_EXCEPT:
    if (a->u.st.count != b->u.st.count)
      return 0;
    return cmp_members(c, a->u.st.members, b->u.st.members, a->u.st.count);
  case CDR_TK_ENUM:
    if (a->u.en.count != b->u.en.count)
      return 0;
    for (uint32_t j = 0; !c->equiv && j < a->u.en.count; j++)
      if (!same_str(a->u.en.names ? a->u.en.names[j] : NULL, b->u.en.names ? b->u.en.names[j] : NULL))
        return 0;
    return 1;
  case CDR_TK_UNION: {
    const cdr_union_case *ca = a->u.un.cases, *cb = b->u.un.cases;
    int32_t def = a->u.un.default_case;
    if (a->u.un.ncases != b->u.un.ncases || def != b->u.un.default_case)
      return 0;
    int r = tc_cmp(c, a->u.un.disc, b->u.un.disc);
    for (uint32_t j = 0; r == 1 && j < a->u.un.ncases; j++) {
      if (((int32_t)j != def && ca[j].label != cb[j].label) || !names_ok(c, ca[j].name, cb[j].name))
        return 0;
      r = tc_cmp(c, ca[j].type, cb[j].type);
    }
    return r;
  }
  case CDR_TK_VALUE: case CDR_TK_VALUE_BOX:
    return cmp_value(c, a->u.val.vt, b->u.val.vt);
  default: /* no parameters, or only an ID and a name */
    return 1;
  }
}

static int tc_cmp(cmp *c, const cdr_type *a, const cdr_type *b)
{
  if (!a || !b)
    return a == b;
  if (c->equiv) {
    a = unalias(a);
    b = unalias(b);
    if (!a || !b || a->kind == CDR_K_ALIAS || b->kind == CDR_K_ALIAS)
      return a == b ? 1 : CDR_E_LIMIT;
  }
  uintptr_t ka = tc_key(a), kb = tc_key(b);
  if (ka == kb)
    return 1;
  int k = cdr__tc_kind_of(a);
  if (k != cdr__tc_kind_of(b) || k == CDR_TK_NONE)
    return 0;
  if (has_id(k)) {
    const char *ia, *ib, *na, *nb;
    int st = cdr_tc_id(a, &ia);
    if (st == CDR_OK)
      st = cdr_tc_id(b, &ib);
    if (st != CDR_OK)
      return st;
    if (c->equiv && *ia && *ib)
      return strcmp(ia, ib) == 0;
    (void)cdr_tc_name(a, &na);
    (void)cdr_tc_name(b, &nb);
    if (!c->equiv && (strcmp(ia, ib) != 0 || strcmp(na, nb) != 0))
      return 0;
  }
  /* A pair met again inside itself: equal unless something else differs. */
  for (unsigned j = 0; j < c->depth; j++)
    if (c->stack[j][0] == ka && c->stack[j][1] == kb)
      return 1;
  for (unsigned j = 0; j < c->nmemo; j++)
    if (c->memo[j][0] == ka && c->memo[j][1] == kb)
      return 1;
  if (c->depth >= CMP_DEPTH || !c->budget)
    return CDR_E_LIMIT;
  c->budget--;
  c->stack[c->depth][0] = ka;
  c->stack[c->depth][1] = kb;
  c->depth++;
  int r = cmp_params(c, a, b, k);
  c->depth--;
  /* Safe to remember even when it leaned on a pair above: if that pair
   * turns out different, so does the whole comparison. */
  if (r == 1 && c->nmemo < CMP_MEMO && tc_complex(k)) {
    c->memo[c->nmemo][0] = ka;
    c->memo[c->nmemo][1] = kb;
    c->nmemo++;
  }
  return r;
}

static int compare(cdr_typecode a, cdr_typecode b, bool equiv)
{
  cmp c;
  c.equiv = equiv;
  c.depth = 0;
  c.nmemo = 0;
  c.budget = CMP_BUDGET;
  return tc_cmp(&c, a, b);
}

int cdr_tc_equal(cdr_typecode a, cdr_typecode b) { return compare(a, b, false); }
int cdr_tc_equivalent(cdr_typecode a, cdr_typecode b) { return compare(a, b, true); }

/* ---------------------------------------------------------------- copies */

#define COPY_DEPTH 64

typedef struct copier {
  cdr_arena *a;
  tc_owner *owner;
  bool strip;        /* compact: names and member names empty */
  int status;
  tc_map done;       /* tc_key() of a source -> its copy's descriptor */
} copier;

static const cdr_type *copy_tc(copier *c, const cdr_type *t, unsigned depth);

static const char *copy_str(copier *c, const char *s, bool name)
{
  if (name && c->strip)
    return "";
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *d = cdr_arena_alloc(c->a, n, 1);
  if (!d) {
    c->status = CDR_E_NOMEM;
    return NULL;
  }
  memcpy(d, s, n);
  return d;
}

static void *copy_array(copier *c, const void *src, size_t n, size_t esize, size_t align)
{
  if (!src || !n)
    return NULL;
  void *d = cdr_arena_alloc(c->a, n * esize, align);
  if (!d)
    c->status = CDR_E_NOMEM;
  else
    memcpy(d, src, n * esize);
  return d;
}

static cdr_member *copy_members(copier *c, const cdr_member *m, uint32_t n, unsigned depth)
{
  cdr_member *d = copy_array(c, m, n, sizeof *m, alignof(cdr_member));
  for (uint32_t k = 0; d && k < n && c->status == CDR_OK; k++) {
    d[k].name = copy_str(c, m[k].name, true);
    d[k].type = copy_tc(c, m[k].type, depth + 1);
  }
  return d;
}

static const cdr_type *copy_value(copier *c, const cdr_type *t, unsigned depth)
{
  const cdr_value_type *sv = t->u.val.vt;
  tc_vnode *v = cdr__tc_vnode_new(c->a, c->owner);
  if (!v) {
    c->status = CDR_E_NOMEM;
    return NULL;
  }
  int st = CDR_OK;
  const char *id = cdr_value_type_id(sv, &st);
  if (!id) {
    c->status = st;
    return NULL;
  }
  if (cdr__tc_map_put(&c->done, tc_key(t), (uintptr_t)&v->n.t) != CDR_OK) {
    c->status = CDR_E_NOMEM;
    return NULL;
  }
  cdr_value_type *d = &v->vt;
  d->name = copy_str(c, sv->name, true);
  v->n.t.name = d->name;
  d->repo_id = copy_str(c, id, false);
  d->flags = sv->flags | CDR_VT_NOCACHE;
  d->nmembers = sv->nmembers;
  d->size = sv->size;
  d->align = sv->align;
  d->codebase = copy_str(c, sv->codebase, false);
  d->marshal = sv->marshal;
  d->unmarshal = sv->unmarshal;
  d->factory = sv->factory;
  d->visibility = copy_array(c, sv->visibility, sv->nmembers, sizeof(int16_t), alignof(int16_t));
  if (sv->base) {
    const cdr_type *bt = vt_tc(sv->base);
    if (!bt) {
      c->status = CDR_E_NOMEM;
      return NULL;
    }
    bt = copy_tc(c, bt, depth + 1);
    d->base = bt ? bt->u.val.vt : NULL;
  }
  d->members = copy_members(c, sv->members, sv->nmembers, depth);
  v->n.min_wire = 4;
  return c->status == CDR_OK ? &v->n.t : NULL;
}

static const cdr_type *copy_tc(copier *c, const cdr_type *t, unsigned depth)
{
  if (c->status != CDR_OK || !t)
    return NULL;
  int k = cdr__tc_kind_of(t);
  if (k == CDR_TK_NONE) {
    c->status = CDR_E_UNSUPPORTED;
    return NULL;
  }
  /* The library's static and the program's descriptors are shared, except
   * those whose names a compact copy strips. */
  if (!tc_runtime(t) && !(c->strip && tc_complex(k)))
    return t;
  uintptr_t done;
  if (cdr__tc_map_get(&c->done, tc_key(t), &done))
    return (const cdr_type *)done;
  if (depth >= COPY_DEPTH) {
    c->status = CDR_E_LIMIT;
    return NULL;
  }
  if (t->kind == CDR_K_VALUE)
    return copy_value(c, t, depth);
  tc_node *n = cdr__tc_node_new(c->a, c->owner, t->kind, t->size, t->align);
  if (!n || cdr__tc_map_put(&c->done, tc_key(t), (uintptr_t)&n->t) != CDR_OK) {
    c->status = CDR_E_NOMEM;
    return NULL;
  }
  n->min_wire = tc_runtime(t) ? tc_node_of(t)->min_wire : cdr_type_min_wire(t);
  n->t.u = t->u;
  n->t.name = copy_str(c, t->name, true);
  n->t.repo_id = copy_str(c, t->repo_id, false);
  switch (t->kind) {
  case CDR_K_STRUCT: case CDR_K_EXCEPT:
    n->t.u.st.members = copy_members(c, t->u.st.members, t->u.st.count, depth);
    break;
  case CDR_K_UNION: {
    uint32_t nc = t->u.un.ncases;
    cdr_union_case *d = copy_array(c, t->u.un.cases, nc, sizeof *d, alignof(cdr_union_case));
    n->t.u.un.cases = d;
    n->t.u.un.disc = copy_tc(c, t->u.un.disc, depth + 1);
    for (uint32_t j = 0; d && j < nc && c->status == CDR_OK; j++) {
      d[j].name = copy_str(c, t->u.un.cases[j].name, true);
      d[j].type = copy_tc(c, t->u.un.cases[j].type, depth + 1);
    }
    break;
  }
  case CDR_K_ENUM: {
    uint32_t ne = t->u.en.count;
    const char **d = t->u.en.names ? copy_array(c, t->u.en.names, ne, sizeof *d, alignof(char *)) : NULL;
    for (uint32_t j = 0; d && j < ne; j++)
      d[j] = copy_str(c, t->u.en.names[j], true);
    n->t.u.en.names = d;
    break;
  }
  case CDR_K_SEQUENCE: n->t.u.seq.elem = copy_tc(c, t->u.seq.elem, depth + 1); break;
  case CDR_K_ARRAY: n->t.u.arr.elem = copy_tc(c, t->u.arr.elem, depth + 1); break;
  case CDR_K_ALIAS: n->t.u.alias.type = copy_tc(c, t->u.alias.type, depth + 1); break;
  default: break;
  }
  return c->status == CDR_OK ? &n->t : NULL;
}

/* A heap copy of TC into *OUT. */
static int copy_heap(cdr_typecode tc, bool strip, cdr_typecode *out)
{
  const cdr_allocator *al = cdr_mem_global();
  tc_owner *o = cdr__malloc(al, sizeof *o);
  if (!o)
    return CDR_E_NOMEM;
  o->refs = 1;
  cdr_arena_init(&o->arena, al);
  copier c = { .a = &o->arena, .owner = o, .strip = strip, .status = CDR_OK };
  cdr__tc_map_init(&c.done, al);
  const cdr_type *t = copy_tc(&c, tc, 0);
  cdr__tc_map_free(&c.done);
  if (c.status != CDR_OK || !t) {
    cdr_arena_free(&o->arena);
    cdr__free(al, o);
    return c.status != CDR_OK ? c.status : CDR_E_INVALID;
  }
  if (!tc_runtime(t) || tc_node_of(t)->owner != o) { /* nothing needed copying */
    cdr_arena_free(&o->arena);
    cdr__free(al, o);
  }
  *out = t;
  return CDR_OK;
}

cdr_typecode cdr_tc_dup(cdr_typecode tc, int *status)
{
  int st = CDR_OK;
  cdr_typecode r = tc;
  if (tc_runtime(tc)) {
    tc_owner *o = tc_node_of(tc)->owner;
    if (o)
      __atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
    else if ((st = copy_heap(tc, false, &r)) != CDR_OK)
      r = NULL;
  }
  if (status)
    *status = st;
  return r;
}

void cdr_tc_release(cdr_typecode tc)
{
  if (!tc || !tc_runtime(tc))
    return;
  tc_owner *o = tc_node_of(tc)->owner;
  if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0) {
    const cdr_allocator *al = o->arena.alloc;
    cdr_arena_free(&o->arena);
    cdr__free(al, o);
  }
}

int cdr_tc_get_compact(cdr_typecode tc, cdr_typecode *out)
{
  return copy_heap(tc, true, out);
}

/* ---------------------------------------------------------------- values of the TypeCode kinds */

int cdr__tc_kind_write(cdr_out *o, const cdr_type *t, const void *src, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_NULL: case CDR_K_VOID:
    return o->status;
  case CDR_K_TYPECODE: {
    cdr_typecode tc;
    memcpy(&tc, src, sizeof tc);
    if (!tc)
      return cdr_out_fail(o, CDR_E_INVALID, "a NULL TypeCode");
    return cdr_put_typecode(o, tc);
  }
  case CDR_K_PRINCIPAL: {
    cdr_seq s;
    memcpy(&s, src, sizeof s);
    if (s._length && !s._buffer)
      return cdr_out_fail(o, CDR_E_INVALID, "a Principal without a buffer");
    cdr_put_seq(o, s._buffer, s._length, 1);
    return o->status;
  }
  case CDR_K_ANY:
    return cdr__any_write(o, src, depth);
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE:
    return cdr__objref_write(o, t, src, depth);
  default: /* LOCAL_INTERFACE, NATIVE */
    return cdr_out_fail(o, CDR_E_UNSUPPORTED, "values of this kind do not marshal");
  }
}

int cdr__tc_kind_read(cdr_in *i, const cdr_type *t, void *dst, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_NULL: case CDR_K_VOID:
    return i->status;
  case CDR_K_TYPECODE: {
    cdr_typecode tc = NULL;
    (void)cdr_get_typecode(i, &tc);
    memcpy(dst, &tc, sizeof tc);
    return i->status;
  }
  case CDR_K_PRINCIPAL: {
    cdr_seq s = { 0, 0, NULL, 0 };
    uint32_t n = 0;
    void *b = cdr_get_seq(i, 1, &n);
    if (b) {
      s._buffer = b;
      s._maximum = s._length = n;
    }
    memcpy(dst, &s, sizeof s);
    return i->status;
  }
  case CDR_K_ANY:
    return cdr__any_read(i, dst, depth);
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE:
    return cdr__objref_read(i, t, dst, depth);
  default:
    return cdr_in_fail(i, CDR_E_UNSUPPORTED, "values of this kind do not marshal");
  }
}
