/* any.c - the any on the wire (cdr_put_any(), cdr_get_any(), the
 * original-octets path), object references and their hooks, building,
 * insert and extract, fixed TypeCodes.  Deep copy, free and equality are
 * any_value.c's; printing any_print.c's. */
#include "any_impl.h"
#include "value_impl.h"
#include <stdalign.h>

/* ---------------------------------------------------------------- object references */

static const cdr_member profile_members[] = {
  { "tag", &cdr_type_ulong, offsetof(cdr_tagged_profile, tag) },
  { "profile_data", &(const cdr_type)CDR_SEQUENCE_TYPE(&cdr_type_octet, 0),
    offsetof(cdr_tagged_profile, profile_data) },
};
const cdr_type cdr_type_tagged_profile =
  CDR_STRUCT_TYPE(cdr_tagged_profile, "TaggedProfile", "IDL:omg.org/IOP/TaggedProfile:1.0",
                  profile_members);
static const cdr_member ior_members[] = {
  { "type_id", &cdr_type_string, offsetof(cdr_ior, type_id) },
  { "profiles", &(const cdr_type)CDR_SEQUENCE_TYPE(&cdr_type_tagged_profile, 0),
    offsetof(cdr_ior, profiles) },
};
const cdr_type cdr_type_ior = CDR_STRUCT_TYPE(cdr_ior, "IOR", "IDL:omg.org/IOP/IOR:1.0", ior_members);

static cdr_objref_hooks hooks;
static bool have_hooks;

int cdr_set_objref_hooks(const cdr_objref_hooks *h)
{
  if (!h) {
    have_hooks = false;
    memset(&hooks, 0, sizeof hooks);
    return CDR_OK;
  }
  if (!h->write || !h->read || !h->dup || !h->release)
    return CDR_E_INVALID;
  hooks = *h;
  have_hooks = true;
  return CDR_OK;
}

const cdr_objref_hooks *cdr__objref_hooks(void) { return have_hooks ? &hooks : NULL; }

static int ref_write(cdr_out *o, const void *ref, unsigned depth)
{
  if (!ref) { /* nil: an empty type ID and no profiles */
    cdr_put_string(o, "");
    cdr_put_ulong(o, 0);
    return o->status;
  }
  if (have_hooks)
    return hooks.write(o, ref, hooks.ud);
  return cdr__write_at(o, &cdr_type_ior, ref, depth);
}

static int ref_read(cdr_in *i, void **ref, unsigned depth)
{
  *ref = NULL;
  if (have_hooks) {
    void *r = NULL;
    int rc = hooks.read(i, &r, hooks.ud);
    if (rc == CDR_OK && i->status == CDR_OK)
      *ref = r;
    return i->status != CDR_OK ? i->status : rc;
  }
  cdr_arena *a = cdr_in_arena(i);
  if (!a)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  cdr_ior ior;
  if (cdr__read_at(i, &cdr_type_ior, &ior, depth) != CDR_OK)
    return i->status;
  if (!ior.type_id[0] && !ior.profiles._length)
    return CDR_OK; /* nil */
  cdr_ior *p = cdr_arena_alloc(a, sizeof *p, alignof(cdr_ior));
  if (!p)
    return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
  *p = ior;
  *ref = p;
  return CDR_OK;
}

int cdr__objref_write(cdr_out *o, const cdr_type *t, const void *src, unsigned depth)
{
  const void *ref;
  memcpy(&ref, src, sizeof ref);
  if (t->kind == CDR_K_ABSTRACT_INTERFACE) /* the union's TRUE branch: an object reference */
    cdr_put_boolean(o, true);
  return ref_write(o, ref, depth);
}

int cdr__objref_read(cdr_in *i, const cdr_type *t, void *dst, unsigned depth)
{
  void *ref = NULL;
  memcpy(dst, &ref, sizeof ref);
  if (t->kind == CDR_K_ABSTRACT_INTERFACE) {
    bool is_ref = cdr_get_boolean(i);
    if (i->status != CDR_OK)
      return i->status;
    if (!is_ref)
      return cdr_in_fail(i, CDR_E_UNSUPPORTED,
                         "an abstract interface holding a value (no value type to read it by)");
  }
  if (ref_read(i, &ref, depth) == CDR_OK)
    memcpy(dst, &ref, sizeof ref);
  return i->status;
}

/* ---------------------------------------------------------------- original octets */

typedef struct any_octets {
  cdr_typecode type;       /* what the decoder set: the record holds while these stay */
  const void *value;
  const uint8_t *oct;      /* from the kind field of the TypeCode to the end of the value */
  size_t len;
  unsigned flags;
  uint16_t tcs_c_lo;       /* unused; keeps the layout obvious */
  uint8_t order, phase, giop_major, giop_minor;
  uint32_t tcs_c, tcs_w;
} any_octets;

static uint64_t value_marks(const cdr_in *i)
{
  const vstate *s = i->ext;
  return s ? (uint64_t)s->nvalues + s->nindirect : 0;
}

static bool octets_fit(const cdr_out *o, const cdr_any *a)
{
  const any_octets *r = a->_cdr_octets;
  if (!r || r->type != a->_type || r->value != a->_value)
    return false;
  const cdr_opts *p = &o->opts;
  size_t at = (o->pos + 3) & ~(size_t)3;
  return r->order == p->byte_order && r->giop_major == p->giop_major
         && r->giop_minor == p->giop_minor && r->tcs_c == p->tcs_c && r->tcs_w == p->tcs_w
         && r->flags == p->flags && ((at - o->origin) & 7) == r->phase;
}

void cdr_any_forget_octets(cdr_any *a) { a->_cdr_octets = NULL; }

/* ---------------------------------------------------------------- marshalling */

static const char nothing[16];

int cdr__any_write(cdr_out *o, const cdr_any *a, unsigned depth)
{
  if (o->status != CDR_OK)
    return o->status;
  if (octets_fit(o, a)) {
    const any_octets *r = a->_cdr_octets;
    cdr_out_align(o, 4);
    cdr_put_raw(o, r->oct, r->len);
    return o->status;
  }
  if (depth >= o->opts.max_depth)
    return cdr_out_fail(o, CDR_E_LIMIT, "anys nested deeper than opts.max_depth");
  if (!a->_type && a->_value) /* a value of no type: a mistake, not an empty any */
    return cdr_out_fail(o, CDR_E_INVALID, "an any with a value and no TypeCode");
  cdr_typecode tc = a->_type ? a->_type : cdr_tc_null;
  const void *v = a->_value;
  if (!v) {
    if (tc->size)
      return cdr_out_fail(o, CDR_E_INVALID, "an any without a value");
    v = nothing;
  }
  if (cdr_put_typecode(o, tc) != CDR_OK)
    return o->status;
  return cdr__write_at(o, tc, v, depth + 1);
}

int cdr_put_any(cdr_out *o, const cdr_any *a) { return cdr__any_write(o, a, 0); }

int cdr__any_read(cdr_in *i, cdr_any *a, unsigned depth)
{
  a->_type = cdr_tc_null;
  a->_value = NULL;
  a->_release = 0;
  a->_cdr_octets = NULL;
  if (i->status != CDR_OK)
    return i->status;
  if (depth >= i->opts.max_depth)
    return cdr_in_fail(i, CDR_E_LIMIT, "anys nested deeper than opts.max_depth");
  cdr_arena *ar = cdr_in_arena(i);
  if (!ar)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  cdr_in_align(i, 4);
  size_t kpos = i->pos;
  bool in_chunk = i->in_chunk;
  uint64_t marks = value_marks(i);
  cdr_typecode tc = NULL;
  if (cdr_get_typecode(i, &tc) != CDR_OK)
    return i->status;
  void *v = NULL;
  if (tc->size) {
    size_t lim = i->in_chunk ? i->chunk_lim : i->end; /* chunks may continue the value */
    size_t left = lim > i->pos ? lim - i->pos : 0;
    size_t mw = cdr__type_min_wire_flags(tc, i->opts.flags);
    if (mw > left || tc->size / 64 > left + 64)
      return cdr_in_fail(i, CDR_E_LENGTH, "an any's value larger than the octets that remain");
    v = cdr_arena_alloc(ar, tc->size, tc->align > 16 ? 16 : tc->align);
    if (!v)
      return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
    memset(v, 0, tc->size);
    if (cdr__read_at(i, tc, v, depth + 1) != CDR_OK)
      return i->status;
  } else if (cdr__read_at(i, tc, (void *)nothing, depth + 1) != CDR_OK) {
    return i->status; /* null, void, a struct without members: nothing is written */
  }
  a->_type = tc;
  a->_value = v;
  if (!in_chunk && !i->in_chunk && value_marks(i) == marks && i->pos > kpos) {
    any_octets *r = cdr_arena_alloc(ar, sizeof *r, alignof(any_octets));
    uint8_t *oct = cdr_arena_alloc(ar, i->pos - kpos, 8);
    if (r && oct) { /* without memory the any is simply encoded again */
      memcpy(oct, i->buf + kpos, i->pos - kpos);
      *r = (any_octets){ .type = tc, .value = v, .oct = oct, .len = i->pos - kpos,
                         .flags = i->opts.flags, .order = i->order,
                         .phase = (uint8_t)((kpos - i->origin) & 7),
                         .giop_major = i->opts.giop_major, .giop_minor = i->opts.giop_minor,
                         .tcs_c = i->opts.tcs_c, .tcs_w = i->opts.tcs_w };
      a->_cdr_octets = r;
    }
  }
  return CDR_OK;
}

int cdr_get_any(cdr_in *i, cdr_any *a) { return cdr__any_read(i, a, 0); }

/* ---------------------------------------------------------------- building */

void cdr_any_init(cdr_any *a)
{
  a->_type = cdr_tc_null;
  a->_value = NULL;
  a->_release = 0;
  a->_cdr_octets = NULL;
}

void cdr_any_free(cdr_any *a)
{
  if (a->_release) {
    if (a->_type && a->_value) {
      cdr_value_free(a->_type, a->_value);
      cdr__free(cdr_mem_global(), a->_value);
    }
    cdr_tc_release(a->_type);
  }
  cdr_any_init(a);
}

int cdr_any_adopt(cdr_any *a, cdr_typecode tc, void *value, int release)
{
  int st = CDR_OK;
  cdr_typecode t = release ? cdr_tc_dup(tc, &st) : tc;
  cdr_any_free(a);
  if (!t)
    return st;
  a->_type = t;
  a->_value = value;
  a->_release = release ? 1 : 0;
  return CDR_OK;
}

int cdr__value_dup(cdr_typecode old, cdr_typecode tc, const void *value, void **out)
{
  *out = NULL;
  if (!tc->size)
    return CDR_OK;
  if (!value)
    return CDR_E_INVALID;
  void *v = cdr__malloc(cdr_mem_global(), tc->size);
  if (!v)
    return CDR_E_NOMEM;
  int st = cdr__value_copy_from(old, tc, v, value);
  if (st != CDR_OK) {
    cdr__free(cdr_mem_global(), v);
    return st;
  }
  *out = v;
  return CDR_OK;
}

int cdr_any_set(cdr_any *a, cdr_typecode tc, const void *value)
{
  int st = CDR_OK;
  cdr_typecode t = cdr_tc_dup(tc, &st);
  void *v = NULL;
  if (t && (st = cdr__value_dup(tc, t, value, &v)) != CDR_OK) {
    cdr_tc_release(t);
    t = NULL;
  }
  cdr_any_free(a);
  if (!t)
    return st;
  a->_type = t;
  a->_value = v;
  a->_release = 1;
  return CDR_OK;
}

int cdr_any_copy(cdr_any *dst, const cdr_any *src)
{
  if (dst == src)
    return CDR_E_INVALID;
  return cdr_any_set(dst, src->_type ? src->_type : cdr_tc_null, src->_value);
}

int cdr_any_get(const cdr_any *a, cdr_typecode tc, const void **value)
{
  cdr_typecode t = a->_type ? a->_type : cdr_tc_null;
  int r = cdr_tc_equivalent(t, tc);
  if (r < 0)
    return r;
  if (r == 0 || (t != tc && !cdr__tc_same_layout(t, tc)))
    return CDR_E_TYPE;
  *value = a->_value;
  return CDR_OK;
}

/* ---------------------------------------------------------------- fixed TypeCodes */

int cdr_tc_fixed(unsigned digits, int scale, cdr_typecode *out)
{
  if (digits < 1 || digits > CDR_FIXED_MAX_DIGITS || scale < 0 || scale > (int)digits)
    return CDR_E_VALUE;
  const cdr_allocator *al = cdr_mem_global();
  tc_owner *o = cdr__malloc(al, sizeof *o);
  if (!o)
    return CDR_E_NOMEM;
  o->refs = 1;
  cdr_arena_init(&o->arena, al);
  tc_node *n = cdr__tc_node_new(&o->arena, o, CDR_K_FIXED, sizeof(cdr_fixed), alignof(cdr_fixed));
  if (!n) {
    cdr_arena_free(&o->arena);
    cdr__free(al, o);
    return CDR_E_NOMEM;
  }
  n->t.name = "fixed";
  n->t.u.fx.digits = (uint8_t)digits;
  n->t.u.fx.scale = (int8_t)scale;
  n->min_wire = cdr_fixed_wire_size(digits);
  *out = &n->t;
  return CDR_OK;
}

/* ---------------------------------------------------------------- insert, extract */

#define ANY_IX(name, ctype, tc)                                     \
  int cdr_any_insert_##name(cdr_any *a, ctype v)                    \
  {                                                                 \
    return cdr_any_set(a, tc, &v);                                  \
  }                                                                 \
  int cdr_any_extract_##name(const cdr_any *a, ctype *v)            \
  {                                                                 \
    const void *p;                                                  \
    int st = cdr_any_get(a, tc, &p);                                \
    if (st == CDR_OK)                                               \
      memcpy(v, p, sizeof *v);                                      \
    return st;                                                      \
  }
ANY_IX(short, int16_t, cdr_tc_short)
ANY_IX(ushort, uint16_t, cdr_tc_ushort)
ANY_IX(long, int32_t, cdr_tc_long)
ANY_IX(ulong, uint32_t, cdr_tc_ulong)
ANY_IX(longlong, int64_t, cdr_tc_longlong)
ANY_IX(ulonglong, uint64_t, cdr_tc_ulonglong)
ANY_IX(float, float, cdr_tc_float)
ANY_IX(double, double, cdr_tc_double)
ANY_IX(longdouble, long double, cdr_tc_longdouble)
ANY_IX(boolean, bool, cdr_tc_boolean)
ANY_IX(char, char, cdr_tc_char)
ANY_IX(wchar, cdr_wchar, cdr_tc_wchar)
ANY_IX(octet, uint8_t, cdr_tc_octet)
#undef ANY_IX

int cdr_any_insert_string(cdr_any *a, const char *s)
{
  if (!s)
    return CDR_E_INVALID;
  return cdr_any_set(a, cdr_tc_string, &s);
}

int cdr_any_extract_string(const cdr_any *a, const char **s)
{
  const void *p;
  int st = cdr_any_get(a, cdr_tc_string, &p);
  if (st == CDR_OK)
    memcpy(s, p, sizeof *s);
  return st;
}

int cdr_any_insert_wstring(cdr_any *a, const cdr_wchar *s)
{
  if (!s)
    return CDR_E_INVALID;
  return cdr_any_set(a, cdr_tc_wstring, &s);
}

int cdr_any_extract_wstring(const cdr_any *a, const cdr_wchar **s)
{
  const void *p;
  int st = cdr_any_get(a, cdr_tc_wstring, &p);
  if (st == CDR_OK)
    memcpy(s, p, sizeof *s);
  return st;
}

int cdr_any_insert_fixed(cdr_any *a, const cdr_fixed *v)
{
  cdr_typecode tc;
  int st = cdr_tc_fixed(v->digits, v->scale, &tc);
  if (st != CDR_OK)
    return st;
  st = cdr_any_set(a, tc, v);
  cdr_tc_release(tc);
  return st;
}

int cdr_any_extract_fixed(const cdr_any *a, cdr_fixed *v)
{
  const cdr_type *t = a->_type ? cdr__unalias(a->_type) : NULL;
  if (!t || t->kind != CDR_K_FIXED || !a->_value)
    return CDR_E_TYPE;
  memcpy(v, a->_value, sizeof *v);
  return CDR_OK;
}

int cdr_any_insert_typecode(cdr_any *a, cdr_typecode v)
{
  return cdr_any_set(a, cdr_tc_TypeCode, &v);
}

int cdr_any_extract_typecode(const cdr_any *a, cdr_typecode *v)
{
  const void *p;
  int st = cdr_any_get(a, cdr_tc_TypeCode, &p);
  if (st == CDR_OK)
    memcpy(v, p, sizeof *v);
  return st;
}

int cdr_any_insert_any(cdr_any *a, const cdr_any *v)
{
  if (v == a)
    return CDR_E_INVALID;
  return cdr_any_set(a, cdr_tc_any, v);
}

int cdr_any_extract_any(const cdr_any *a, const cdr_any **v)
{
  const void *p;
  int st = cdr_any_get(a, cdr_tc_any, &p);
  if (st == CDR_OK)
    *v = p;
  return st;
}

int cdr_any_insert_objref(cdr_any *a, cdr_typecode tc, const void *ref)
{
  if (!tc)
    tc = cdr_tc_Object;
  if (tc->kind != CDR_K_OBJREF)
    return CDR_E_BADKIND;
  return cdr_any_set(a, tc, &ref);
}

int cdr_any_extract_objref(const cdr_any *a, const void **ref)
{
  const cdr_type *t = a->_type ? cdr__unalias(a->_type) : NULL;
  if (!t || t->kind != CDR_K_OBJREF || !a->_value)
    return CDR_E_TYPE;
  memcpy(ref, a->_value, sizeof *ref);
  return CDR_OK;
}
