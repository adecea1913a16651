/* tc_read.c - cdr_get_typecode(): a TypeCode read from the wire into
 * descriptors in the stream's arena, laid out as the C mapping lays out
 * their types (cdr/typecode.h).
 *
 * Every TypeCode read is recorded by the position of its kind field; an
 * indirection must land on one of those, so it names a descriptor that
 * exists already (complete, or enclosing this one and still being read:
 * recursion) and reading never follows an offset twice: no loop is
 * possible.  A descriptor being read is `busy`: its C size is unknown, so
 * only a sequence (a pointer to its elements) or a value (a pointer) may
 * hold it; anything that would hold it by value is a type that contains
 * itself.  Recursion is C recursion, one level per encapsulation, bounded
 * by the stream's encapsulation limit.
 *
 * Hostile counts.  Every count is checked (cdr_get_seq_count()) against
 * what remains of the encapsulation times the least octets of one entry,
 * and against opts.max_seq, before its array is allocated (a union's
 * members at the least of its discriminator's label: 16 octets a member
 * for long long, 9 for octet; label_min()).  A value whose
 * reading could loop without consuming octets is refused at the TypeCode:
 * members, array elements and value box contents must take at least one
 * octet on the wire; the only element type that takes none is a struct
 * without members in a sequence (its count is bounded by opts.max_seq and
 * its elements cost nothing to read). */
#include "tc_impl.h"
#include <stdalign.h>

typedef struct rd {
  cdr_in *i;
  cdr_arena *a;
  tc_map seen;   /* position of a kind field -> its descriptor */
} rd;

static const cdr_type *r_tc(rd *r);

/* The descriptors of the kinds without parameters, by TCKind. */
static const cdr_type *const empty_kind[] = {
  [CDR_TK_NULL] = &cdr_type_null, [CDR_TK_VOID] = &cdr_type_void,
  [CDR_TK_SHORT] = &cdr_type_short, [CDR_TK_LONG] = &cdr_type_long,
  [CDR_TK_USHORT] = &cdr_type_ushort, [CDR_TK_ULONG] = &cdr_type_ulong,
  [CDR_TK_FLOAT] = &cdr_type_float, [CDR_TK_DOUBLE] = &cdr_type_double,
  [CDR_TK_BOOLEAN] = &cdr_type_boolean, [CDR_TK_CHAR] = &cdr_type_char,
  [CDR_TK_OCTET] = &cdr_type_octet, [CDR_TK_ANY] = &cdr_type_any,
  [CDR_TK_TYPECODE] = &cdr_type_typecode, [CDR_TK_PRINCIPAL] = &cdr_type_principal,
  [CDR_TK_LONGLONG] = &cdr_type_longlong, [CDR_TK_ULONGLONG] = &cdr_type_ulonglong,
  [CDR_TK_LONGDOUBLE] = &cdr_type_longdouble, [CDR_TK_WCHAR] = &cdr_type_wchar,
  [CDR_TK_LOCAL_INTERFACE] = NULL,
};

static const cdr_type *fail(rd *r, int err, const char *msg)
{
  cdr_in_fail(r->i, err, msg);
  return NULL;
}

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }
static size_t sat_add(size_t a, size_t b) { return a + b < a ? SIZE_MAX : a + b; }

static tc_node *node(rd *r, cdr_kind kind, size_t size, size_t align)
{
  tc_node *n = cdr__tc_node_new(r->a, NULL, kind, size, align);
  if (!n)
    cdr_in_fail(r->i, CDR_E_NOMEM, "arena allocation failed");
  return n;
}

static void *alloc(rd *r, size_t n, size_t size, size_t align)
{
  if (!n)
    return NULL;
  void *p = cdr_arena_alloc(r->a, n * size, align);
  if (!p)
    cdr_in_fail(r->i, CDR_E_NOMEM, "arena allocation failed");
  return p;
}

static const char *r_str(rd *r) { return cdr_get_string(r->i, NULL); }

/* Whether T's C size is known: false (failing) for a descriptor still being
 * read, which only sequences and values may hold. */
static bool sized(rd *r, const cdr_type *t)
{
  if (t->kind == CDR_K_SEQUENCE || t->kind == CDR_K_VALUE || !tc_runtime(t)
      || !tc_node_of(t)->busy)
    return true;
  cdr_in_fail(r->i, CDR_E_TYPE, "a type that contains itself");
  return false;
}

/* A lower bound of the octets T takes on the wire, 0 exactly when it can
 * take none.  A descriptor still being read encloses a sequence, so it
 * takes some octets. */
static size_t minw(const cdr_type *t)
{
  if (!tc_runtime(t))
    return cdr_type_min_wire(t);
  const tc_node *n = tc_node_of(t);
  return n->busy ? 1 : n->min_wire;
}

/* Refuse member, element and content types that take no octets (see the
 * head of this file). */
static bool takes_octets(rd *r, const cdr_type *t)
{
  if (minw(t) > 0)
    return true;
  cdr_in_fail(r->i, CDR_E_TYPE, "a member or element type that takes no octets");
  return false;
}

static const cdr_type *unalias(const cdr_type *t)
{
  for (unsigned k = 0; k < 64 && t && t->kind == CDR_K_ALIAS; k++)
    t = t->u.alias.type;
  return t;
}

/* Members in C layout from OFF (aligned on *ALIGN so far); the end offset,
 * or SIZE_MAX on error. */
static size_t place(rd *r, const cdr_type *mt, size_t off, size_t *align, size_t *offset)
{
  if (!sized(r, mt) || !takes_octets(r, mt))
    return SIZE_MAX;
  off = align_up(off, mt->align);
  *offset = off;
  if (mt->align > *align)
    *align = mt->align;
  off += mt->size;
  if (off > UINT32_MAX) {
    cdr_in_fail(r->i, CDR_E_TYPE, "a type of more than 4 GiB");
    return SIZE_MAX;
  }
  return off;
}

/* The C size from the end of the last member END and ALIGN; false when
 * it passes 4 GiB. */
static bool finish(rd *r, cdr_type *t, size_t end, size_t align)
{
  size_t size = align_up(end, align);
  if (size > UINT32_MAX) {
    cdr_in_fail(r->i, CDR_E_TYPE, "a type of more than 4 GiB");
    return false;
  }
  t->size = (uint32_t)size;
  t->align = (uint32_t)align;
  return true;
}

static bool r_struct(rd *r, tc_node *n)
{
  cdr_in *i = r->i;
  uint32_t cnt = cdr_get_seq_count(i, 8); /* a name and a kind at least */
  cdr_member *m = alloc(r, cnt, sizeof *m, alignof(cdr_member));
  if (i->status != CDR_OK)
    return false;
  size_t off = 0, al = 1, mw = 0;
  for (uint32_t k = 0; k < cnt; k++) {
    m[k].name = r_str(r);
    if (!(m[k].type = r_tc(r)))
      return false;
    if ((off = place(r, m[k].type, off, &al, &m[k].offset)) == SIZE_MAX)
      return false;
    mw = sat_add(mw, minw(m[k].type));
  }
  n->t.u.st.members = m;
  n->t.u.st.count = cnt;
  n->min_wire = mw;
  return finish(r, &n->t, off, al);
}

/* A union label of discriminator type DT. */
static int64_t r_label(rd *r, const cdr_type *dt)
{
  cdr_in *i = r->i;
  switch (dt->kind) {
  case CDR_K_BOOLEAN: {
    uint8_t v = cdr_get_octet(i);
    if (v > 1) {
      i->pos--;
      cdr_in_fail(i, CDR_E_VALUE, "boolean label other than 0 or 1");
    }
    return v;
  }
  case CDR_K_CHAR: case CDR_K_OCTET: return cdr_get_octet(i);
  case CDR_K_SHORT: return cdr_get_short(i);
  case CDR_K_USHORT: return cdr_get_ushort(i);
  case CDR_K_LONG: return cdr_get_long(i);
  case CDR_K_ULONG: return cdr_get_ulong(i);
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: return (int64_t)cdr_get_ulonglong(i);
  case CDR_K_WCHAR: return cdr_get_wchar(i);
  default: { /* CDR_K_ENUM */
    uint32_t v = cdr_get_ulong(i);
    if (v >= dt->u.en.count && i->status == CDR_OK) {
      i->pos -= 4;
      cdr_in_fail(i, CDR_E_VALUE, "enum label outside its enum");
    }
    return v;
  }
  }
}

/* The fewest octets a union label of discriminator DT takes (r_label()):
 * its size, or a GIOP 1.2 wchar's length octet and 2 octets. */
static size_t label_min(const cdr_in *i, const cdr_type *dt)
{
  switch (dt->kind) {
  case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: return 1;
  case CDR_K_SHORT: case CDR_K_USHORT: return 2;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: return 8;
  case CDR_K_WCHAR: return i->opts.giop_minor >= 2 ? 3 : 2;
  default: return 4; /* long, unsigned long, enum */
  }
}

static bool r_union(rd *r, tc_node *n)
{
  cdr_in *i = r->i;
  const cdr_type *disc = r_tc(r);
  if (!disc)
    return false;
  const cdr_type *dt = unalias(disc);
  switch (dt ? dt->kind : CDR_K_CUSTOM) {
  case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: case CDR_K_WCHAR: case CDR_K_SHORT:
  case CDR_K_USHORT: case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_LONGLONG:
  case CDR_K_ULONGLONG: case CDR_K_ENUM:
    break;
  default:
    fail(r, CDR_E_TYPE, "union discriminator of a kind IDL does not allow");
    return false;
  }
  int32_t def = cdr_get_long(i);
  uint32_t cnt = cdr_get_seq_count(i, 9); /* a label, a name and a kind */
  if (i->status != CDR_OK)
    return false;
  /* Exactly: each member's label as the discriminator's wire form (the
   * default member's the one zero octet), a name (4 octets at least, an
   * empty one under CDR_F_LENIENT_EMPTY_STRING) and a kind. */
  uint64_t need = (uint64_t)cnt * (label_min(i, dt) + 8);
  if (def >= 0 && (uint32_t)def < cnt)
    need -= label_min(i, dt) - 1;
  if (need > (uint64_t)cdr_in_remaining(i)) {
    i->pos -= 4; /* at the count, as cdr_get_seq_count() leaves it */
    fail(r, CDR_E_LENGTH, "union member count exceeds the octets that remain");
    return false;
  }
  if (def < -1 || (int64_t)def >= (int64_t)cnt) {
    fail(r, CDR_E_TYPE, "union default index outside its members");
    return false;
  }
  cdr_union_case *c = alloc(r, cnt, sizeof *c, alignof(cdr_union_case));
  if (i->status != CDR_OK)
    return false;
  size_t ualign = 1, usize = 0, bmin = SIZE_MAX;
  for (uint32_t k = 0; k < cnt; k++) {
    if ((int32_t)k == def) {
      (void)cdr_get_octet(i); /* the default member's label: the zero octet */
      c[k].label = 0;
    } else {
      c[k].label = r_label(r, dt);
    }
    c[k].name = r_str(r);
    if (i->status != CDR_OK || !(c[k].type = r_tc(r)) || !sized(r, c[k].type))
      return false;
    if (c[k].type->align > ualign)
      ualign = c[k].type->align;
    if (c[k].type->size > usize)
      usize = c[k].type->size;
    if (minw(c[k].type) < bmin)
      bmin = minw(c[k].type);
  }
  /* struct { disc _d; union { ... } _u; } */
  size_t uoff = align_up(dt->size, ualign);
  for (uint32_t k = 0; k < cnt; k++)
    c[k].offset = uoff;
  n->t.u.un.disc = dt;
  n->t.u.un.disc_offset = 0;
  n->t.u.un.cases = c;
  n->t.u.un.ncases = cnt;
  n->t.u.un.default_case = def;
  n->min_wire = sat_add(minw(dt), def < 0 || !cnt ? 0 : bmin);
  return finish(r, &n->t, uoff + usize, ualign > dt->align ? ualign : dt->align);
}

static bool r_enum(rd *r, tc_node *n)
{
  cdr_in *i = r->i;
  uint32_t cnt = cdr_get_seq_count(i, 4);
  if (i->status == CDR_OK && cnt == 0)
    cdr_in_fail(i, CDR_E_TYPE, "an enum without members");
  const char **names = alloc(r, cnt, sizeof *names, alignof(char *));
  for (uint32_t k = 0; k < cnt && i->status == CDR_OK; k++)
    names[k] = r_str(r);
  n->t.u.en.names = names;
  n->t.u.en.count = cnt;
  n->min_wire = 4;
  return i->status == CDR_OK;
}

static bool r_sequence(rd *r, tc_node *n)
{
  const cdr_type *et = r_tc(r);
  uint32_t bound = cdr_get_ulong(r->i);
  if (!et || r->i->status != CDR_OK)
    return false;
  const cdr_type *u = unalias(et);
  if (minw(et) == 0 && !(u && u->kind == CDR_K_STRUCT && u->u.st.count == 0) && !takes_octets(r, et))
    return false;
  n->t.u.seq.elem = et;
  n->t.u.seq.bound = bound;
  return true;
}

static bool r_array(rd *r, tc_node *n)
{
  const cdr_type *et = r_tc(r);
  uint32_t len = cdr_get_ulong(r->i);
  if (!et || r->i->status != CDR_OK || !sized(r, et) || !takes_octets(r, et))
    return false;
  if (len == 0) {
    fail(r, CDR_E_TYPE, "an array of length 0");
    return false;
  }
  n->t.u.arr.elem = et;
  n->t.u.arr.count = len;
  size_t mw = minw(et);
  n->min_wire = mw > SIZE_MAX / len ? SIZE_MAX : mw * len;
  if ((uint64_t)et->size * len > UINT32_MAX) {
    fail(r, CDR_E_TYPE, "a type of more than 4 GiB");
    return false;
  }
  n->t.size = et->size * len;
  n->t.align = et->align;
  return true;
}

static bool r_alias(rd *r, tc_node *n)
{
  const cdr_type *ct = r_tc(r);
  if (!ct || !sized(r, ct))
    return false;
  n->t.u.alias.type = ct;
  n->t.size = ct->size;
  n->t.align = ct->align;
  n->min_wire = minw(ct);
  return true;
}

static bool r_value(rd *r, tc_vnode *v, bool box)
{
  cdr_in *i = r->i;
  cdr_value_type *vt = &v->vt;
  vt->name = v->n.t.name;
  vt->repo_id = v->n.t.repo_id;
  size_t off = sizeof(cdr_value), al = alignof(cdr_value);
  if (box) {
    const cdr_type *ct = r_tc(r);
    cdr_member *m = alloc(r, 1, sizeof *m, alignof(cdr_member));
    if (!ct || !m || (off = place(r, ct, off, &al, &m->offset)) == SIZE_MAX)
      return false;
    m->name = NULL;
    m->type = ct;
    vt->flags |= CDR_VT_BOX;
    vt->members = m;
    vt->nmembers = 1;
  } else {
    int16_t mod = cdr_get_short(i);
    if (i->status == CDR_OK && (mod < CDR_VM_NONE || mod > CDR_VM_TRUNCATABLE)) {
      i->pos -= 2;
      fail(r, CDR_E_VALUE, "value type modifier outside ValueModifier");
    }
    const cdr_type *bt = i->status == CDR_OK ? r_tc(r) : NULL;
    if (!bt)
      return false;
    if (bt->kind == CDR_K_VALUE && !(bt->u.val.vt->flags & CDR_VT_BOX)) {
      if (tc_runtime(bt) && tc_node_of(bt)->busy) {
        fail(r, CDR_E_TYPE, "a value type that derives from itself");
        return false;
      }
      vt->base = bt->u.val.vt;
      off = vt->base->size;
      al = vt->base->align;
    } else if (bt->kind != CDR_K_NULL) {
      fail(r, CDR_E_TYPE, "a concrete base that is not a value type");
      return false;
    }
    if (mod == CDR_VM_TRUNCATABLE && !vt->base) {
      fail(r, CDR_E_TYPE, "a truncatable value type without a base");
      return false;
    }
    vt->flags |= mod == CDR_VM_CUSTOM ? CDR_VT_CUSTOM
                 : mod == CDR_VM_ABSTRACT ? CDR_VT_ABSTRACT
                 : mod == CDR_VM_TRUNCATABLE ? CDR_VT_TRUNCATABLE : 0;
    uint32_t cnt = cdr_get_seq_count(i, 10); /* a name, a kind and a visibility */
    cdr_member *m = alloc(r, cnt, sizeof *m, alignof(cdr_member));
    int16_t *vis = alloc(r, cnt, sizeof *vis, alignof(int16_t));
    if (i->status != CDR_OK)
      return false;
    for (uint32_t k = 0; k < cnt; k++) {
      m[k].name = r_str(r);
      if (!(m[k].type = r_tc(r)) || (off = place(r, m[k].type, off, &al, &m[k].offset)) == SIZE_MAX)
        return false;
      vis[k] = cdr_get_short(i);
      if (i->status == CDR_OK && vis[k] != CDR_PRIVATE_MEMBER && vis[k] != CDR_PUBLIC_MEMBER) {
        i->pos -= 2;
        fail(r, CDR_E_VALUE, "member visibility other than PRIVATE_MEMBER or PUBLIC_MEMBER");
      }
      if (i->status != CDR_OK)
        return false;
    }
    vt->members = m;
    vt->nmembers = cnt;
    vt->visibility = vis;
  }
  size_t size = align_up(off, al);
  if (size > UINT32_MAX) {
    fail(r, CDR_E_TYPE, "a type of more than 4 GiB");
    return false;
  }
  vt->size = (uint32_t)size;
  vt->align = (uint32_t)al;
  return true;
}

/* An indirection: the offset that follows the 0xffffffff just read. */
static const cdr_type *r_indirect(rd *r)
{
  cdr_in *i = r->i;
  size_t at = i->pos;
  int32_t off = cdr_get_long(i);
  if (i->status != CDR_OK)
    return NULL;
  if (off >= -4) {
    i->pos = at;
    return fail(r, CDR_E_INDIRECTION, "TypeCode indirection to itself or forward");
  }
  uintptr_t t;
  int64_t target = (int64_t)at + off;
  if (target < 0 || !cdr__tc_map_get(&r->seen, (uintptr_t)target, &t)) {
    i->pos = at;
    return fail(r, CDR_E_INDIRECTION,
                "TypeCode indirection not to the kind of a TypeCode earlier in the same one");
  }
  return (const cdr_type *)t;
}

static bool record(rd *r, size_t kpos, const cdr_type *t)
{
  if (cdr__tc_map_put(&r->seen, kpos, (uintptr_t)t) == CDR_OK)
    return true;
  cdr_in_fail(r->i, CDR_E_NOMEM, "no memory for the TypeCode offsets");
  return false;
}

static const cdr_type *r_complex(rd *r, int k, size_t kpos)
{
  cdr_in *i = r->i;
  static const cdr_kind kind_of[] = {
    [CDR_TK_OBJREF] = CDR_K_OBJREF, [CDR_TK_STRUCT] = CDR_K_STRUCT,
    [CDR_TK_UNION] = CDR_K_UNION, [CDR_TK_ENUM] = CDR_K_ENUM,
    [CDR_TK_SEQUENCE] = CDR_K_SEQUENCE, [CDR_TK_ARRAY] = CDR_K_ARRAY,
    [CDR_TK_ALIAS] = CDR_K_ALIAS, [CDR_TK_EXCEPT] = CDR_K_EXCEPT,
    [CDR_TK_VALUE] = CDR_K_VALUE, [CDR_TK_VALUE_BOX] = CDR_K_VALUE,
    [CDR_TK_NATIVE] = CDR_K_NATIVE, [CDR_TK_ABSTRACT_INTERFACE] = CDR_K_ABSTRACT_INTERFACE,
    [CDR_TK_LOCAL_INTERFACE] = CDR_K_LOCAL_INTERFACE,
  };
  if (cdr_in_begin_encap(i) != CDR_OK)
    return NULL;
  tc_node *n;
  tc_vnode *v = NULL;
  if (kind_of[k] == CDR_K_VALUE) {
    if (!(v = cdr__tc_vnode_new(r->a, NULL)))
      return fail(r, CDR_E_NOMEM, "arena allocation failed");
    n = &v->n;
  } else if (kind_of[k] == CDR_K_SEQUENCE) {
    n = node(r, CDR_K_SEQUENCE, sizeof(cdr_seq), alignof(cdr_seq));
  } else {
    bool en = k == CDR_TK_ENUM;
    n = node(r, kind_of[k], en ? 4 : sizeof(void *), en ? 4 : alignof(void *));
  }
  if (!n || !record(r, kpos, &n->t))
    return NULL;
  n->busy = true;
  n->min_wire = 4;
  if (k != CDR_TK_SEQUENCE && k != CDR_TK_ARRAY) {
    n->t.repo_id = r_str(r);
    n->t.name = r_str(r);
  }
  bool ok = i->status == CDR_OK;
  switch (k) {
  case CDR_TK_STRUCT: case CDR_TK_EXCEPT: ok = ok && r_struct(r, n); break;
  case CDR_TK_UNION: ok = ok && r_union(r, n); break;
  case CDR_TK_ENUM: ok = ok && r_enum(r, n); break;
  case CDR_TK_SEQUENCE: ok = ok && r_sequence(r, n); break;
  case CDR_TK_ARRAY: ok = ok && r_array(r, n); break;
  case CDR_TK_ALIAS: ok = ok && r_alias(r, n); break;
  case CDR_TK_VALUE: case CDR_TK_VALUE_BOX: ok = ok && r_value(r, v, k == CDR_TK_VALUE_BOX); break;
  default: break; /* objref, native, abstract and local interfaces: ID and name */
  }
  if (!ok || cdr_in_end_encap(i) != CDR_OK)
    return NULL;
  n->busy = false;
  return &n->t;
}

static const cdr_type *r_tc(rd *r)
{
  cdr_in *i = r->i;
  cdr_in_align(i, 4);
  size_t kpos = i->pos;
  uint32_t k = cdr_get_ulong(i);
  if (i->status != CDR_OK)
    return NULL;
  if (k == 0xffffffffu)
    return r_indirect(r);
  if (k > CDR_TK_LOCAL_INTERFACE) {
    i->pos = kpos;
    return fail(r, CDR_E_VALUE, "unknown TCKind");
  }
  const cdr_type *t = empty_kind[k];
  if (k == CDR_TK_STRING || k == CDR_TK_WSTRING) {
    uint32_t bound = cdr_get_ulong(i);
    t = k == CDR_TK_STRING ? &cdr_type_string : &cdr_type_wstring;
    if (bound && i->status == CDR_OK) {
      tc_node *n = node(r, t->kind, t->size, t->align);
      if (!n)
        return NULL;
      n->t.u.str.bound = bound;
      n->min_wire = 4;
      t = &n->t;
    }
  } else if (k == CDR_TK_FIXED) {
    uint16_t digits = cdr_get_ushort(i);
    int16_t scale = cdr_get_short(i);
    if (i->status == CDR_OK && (digits < 1 || digits > CDR_FIXED_MAX_DIGITS || scale < 0 || scale > digits)) {
      i->pos -= 4;
      return fail(r, CDR_E_VALUE, "fixed digits or scale outside 1..31, 0..digits");
    }
    tc_node *n = i->status == CDR_OK ? node(r, CDR_K_FIXED, sizeof(cdr_fixed), alignof(cdr_fixed)) : NULL;
    if (!n)
      return NULL;
    n->t.u.fx.digits = (uint8_t)digits;
    n->t.u.fx.scale = (int8_t)scale;
    n->min_wire = ((size_t)digits + 2) / 2;
    t = &n->t;
  } else if (tc_complex((int)k)) {
    return r_complex(r, (int)k, kpos);
  }
  if (i->status != CDR_OK || !t || !record(r, kpos, t))
    return NULL;
  return t;
}

int cdr_get_typecode(cdr_in *i, cdr_typecode *tc)
{
  if (i->status != CDR_OK)
    return i->status;
  rd r;
  r.i = i;
  r.a = cdr_in_arena(i);
  if (!r.a)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  cdr__tc_map_init(&r.seen, i->opts.alloc);
  const cdr_type *t = r_tc(&r);
  cdr__tc_map_free(&r.seen);
  if (i->status == CDR_OK && t)
    *tc = t;
  return i->status;
}
