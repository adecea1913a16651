/* tc_write.c - cdr_put_typecode(): a descriptor written as a TypeCode
 * (CORBA 3.x, Part 2, CDR chapter, "TypeCode"), with indirection to
 * TypeCodes written earlier in the same outermost one.
 *
 * Recursion is C recursion, one level per encapsulation: the stream's
 * encapsulation limit (CDR_ENCAP_MAX) bounds it. */
#include "tc_impl.h"

typedef struct wr {
  cdr_out *o;
  tc_map seen;   /* tc_key() -> the position of the kind field written for it */
} wr;

static void w_tc(wr *w, const cdr_type *t);

static void w_str(cdr_out *o, const char *s) { cdr_put_string(o, s ? s : ""); }

static void fail(wr *w, int err, const char *msg) { (void)cdr_out_fail(w->o, err, msg); }

/* An indirection if KEY was written already; else the kind field of TCKind
 * K, recorded for KEY when K is complex.  True when the parameters follow. */
static bool w_head(wr *w, uintptr_t key, int k)
{
  cdr_out *o = w->o;
  uintptr_t at;
  if (tc_complex(k) && cdr__tc_map_get(&w->seen, key, &at)) {
    cdr_put_ulong(o, 0xffffffffu);
    /* The offset counts from the offset field itself, 4-aligned already. */
    cdr_put_long(o, (int32_t)((int64_t)at - (int64_t)o->pos));
    return false;
  }
  cdr_out_align(o, 4);
  size_t kpos = o->pos;
  cdr_put_ulong(o, (uint32_t)k);
  if (o->status != CDR_OK)
    return false;
  if (tc_complex(k) && cdr__tc_map_put(&w->seen, key, kpos) != CDR_OK) {
    fail(w, CDR_E_NOMEM, "no memory for the TypeCode offsets");
    return false;
  }
  return true;
}

static void w_members(wr *w, const cdr_member *m, uint32_t n)
{
  if (n && !m) {
    fail(w, CDR_E_INVALID, "members missing");
    return;
  }
  cdr_put_ulong(w->o, n);
  for (uint32_t k = 0; k < n && w->o->status == CDR_OK; k++) {
    w_str(w->o, m[k].name);
    w_tc(w, m[k].type);
  }
}

static void w_label(wr *w, const cdr_type *dt, int64_t label)
{
  cdr_out *o = w->o;
  switch (dt->kind) {
  case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: cdr_put_octet(o, (uint8_t)label); return;
  case CDR_K_SHORT: case CDR_K_USHORT: cdr_put_ushort(o, (uint16_t)label); return;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_ENUM: cdr_put_ulong(o, (uint32_t)label); return;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: cdr_put_ulonglong(o, (uint64_t)label); return;
  case CDR_K_WCHAR: cdr_put_wchar(o, (cdr_wchar)label); return;
  default: fail(w, CDR_E_INVALID, "union discriminator of a kind IDL does not allow"); return;
  }
}

static void w_union(wr *w, const cdr_type *t)
{
  cdr_out *o = w->o;
  const cdr_type *dt = t->u.un.disc;
  const cdr_union_case *c = t->u.un.cases;
  uint32_t n = t->u.un.ncases;
  int32_t def = t->u.un.default_case;
  if (!dt || (n && !c)) {
    fail(w, CDR_E_INVALID, "union descriptor without a discriminator or cases");
    return;
  }
  w_tc(w, dt);
  cdr_put_long(o, def);
  cdr_put_ulong(o, n);
  for (uint32_t k = 0; k < n && o->status == CDR_OK; k++) {
    if ((int32_t)k == def)
      cdr_put_octet(o, 0); /* the default member's label: the zero octet */
    else
      w_label(w, dt, c[k].label);
    w_str(o, c[k].name);
    w_tc(w, c[k].type);
  }
}

/* A value type's TypeCode (tk_value or tk_value_box), keyed by VT. */
static void w_value(wr *w, const cdr_value_type *vt)
{
  cdr_out *o = w->o;
  bool box = (vt->flags & CDR_VT_BOX) != 0;
  if (!w_head(w, (uintptr_t)vt, box ? CDR_TK_VALUE_BOX : CDR_TK_VALUE))
    return;
  int st = CDR_OK;
  const char *id = cdr_value_type_id(vt, &st);
  if (!id) {
    fail(w, st, "value type without a repository ID");
    return;
  }
  cdr_out_begin_encap(o);
  w_str(o, id);
  w_str(o, vt->name);
  if (box) {
    if (vt->nmembers != 1 || !vt->members)
      fail(w, CDR_E_INVALID, "a value box has one member");
    else
      w_tc(w, vt->members[0].type);
  } else {
    cdr_put_short(o, cdr__tc_vt_modifier(vt));
    if (vt->base)
      w_value(w, vt->base);
    else
      cdr_put_ulong(o, CDR_TK_NULL);
    if (vt->nmembers && !vt->members) {
      fail(w, CDR_E_INVALID, "members missing");
      return;
    }
    cdr_put_ulong(o, vt->nmembers);
    for (uint32_t k = 0; k < vt->nmembers && o->status == CDR_OK; k++) {
      w_str(o, vt->members[k].name);
      w_tc(w, vt->members[k].type);
      cdr_put_short(o, vt->visibility ? vt->visibility[k] : CDR_PUBLIC_MEMBER);
    }
  }
  cdr_out_end_encap(o);
}

static void w_tc(wr *w, const cdr_type *t)
{
  cdr_out *o = w->o;
  if (o->status != CDR_OK)
    return;
  if (!t) {
    fail(w, CDR_E_INVALID, "a NULL member type");
    return;
  }
  int k = cdr__tc_kind_of(t);
  if (k == CDR_TK_NONE) {
    fail(w, t->kind == CDR_K_CUSTOM ? CDR_E_UNSUPPORTED : CDR_E_INVALID,
         "a descriptor without a TypeCode");
    return;
  }
  if (t->kind == CDR_K_VALUE) {
    if (!t->u.val.vt)
      fail(w, CDR_E_INVALID, "value descriptor without a value type");
    else
      w_value(w, t->u.val.vt);
    return;
  }
  if (!w_head(w, tc_key(t), k))
    return;
  switch (k) {
  case CDR_TK_STRING: case CDR_TK_WSTRING: cdr_put_ulong(o, t->u.str.bound); return;
  case CDR_TK_FIXED:
    cdr_put_ushort(o, t->u.fx.digits);
    cdr_put_short(o, t->u.fx.scale);
    return;
  default:
    if (!tc_complex(k))
      return; /* no parameters */
    break;
  }
  cdr_out_begin_encap(o);
  switch (k) {
  case CDR_TK_SEQUENCE:
    w_tc(w, t->u.seq.elem);
    cdr_put_ulong(o, t->u.seq.bound);
    break;
  case CDR_TK_ARRAY:
    w_tc(w, t->u.arr.elem);
    cdr_put_ulong(o, t->u.arr.count);
    break;
  default:
    w_str(o, t->repo_id);
    w_str(o, t->name);
    switch (k) {
    case CDR_TK_STRUCT: case CDR_TK_EXCEPT: w_members(w, t->u.st.members, t->u.st.count); break;
    case CDR_TK_UNION: w_union(w, t); break;
    case CDR_TK_ALIAS: w_tc(w, t->u.alias.type); break;
    case CDR_TK_ENUM:
      cdr_put_ulong(o, t->u.en.count);
      for (uint32_t j = 0; j < t->u.en.count; j++)
        w_str(o, t->u.en.names ? t->u.en.names[j] : NULL);
      break;
    default: break; /* objref, native, abstract and local interfaces: ID and name */
    }
  }
  cdr_out_end_encap(o);
}

int cdr_put_typecode(cdr_out *o, cdr_typecode tc)
{
  wr w;
  w.o = o;
  cdr__tc_map_init(&w.seen, o->opts.alloc);
  w_tc(&w, tc);
  cdr__tc_map_free(&w.seen);
  return o->status;
}
