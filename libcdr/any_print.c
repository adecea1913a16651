/* any_print.c - cdr_any_print(): an any as text from its TypeCode alone
 * (the format is cdr/any.h's).  Constructed types and value objects recurse
 * on the C stack, at most CDR_ANY_MAX_NEST levels ("..." below that); a
 * value object is numbered at its first appearance (a map from the object
 * to its number), so shared and cyclic graphs print finitely. */
#include "any_impl.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct pr {
  char *buf;
  size_t size, len;    /* len: the whole text's length so far */
  tc_map objs;         /* value object -> its number */
  uint32_t next;
} pr;

static void out(pr *p, const char *s, size_t n)
{
  if (p->len < p->size) {
    size_t room = p->size - 1 - p->len;
    memcpy(p->buf + p->len, s, n < room ? n : room);
  }
  p->len += n;
}

static void outs(pr *p, const char *s) { out(p, s, strlen(s)); }

static void outf(pr *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(pr *p, const char *fmt, ...)
{
  char tmp[96];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0)
    out(p, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* One character C of a quoted literal whose quote is Q. */
static void out_char(pr *p, uint32_t c, char q, bool wide)
{
  switch (c) {
  case '\\': outs(p, "\\\\"); return;
  case '\n': outs(p, "\\n"); return;
  case '\r': outs(p, "\\r"); return;
  case '\t': outs(p, "\\t"); return;
  default: break;
  }
  if (c == (uint32_t)(unsigned char)q) {
    char e[2] = { '\\', q };
    out(p, e, 2);
  } else if (c >= 0x20 && c <= 0x7e) {
    char e = (char)c;
    out(p, &e, 1);
  } else if (!wide) {
    outf(p, "\\x%02" PRIx32, c & 0xff);
  } else if (c <= 0xffff) {
    outf(p, "\\u%04" PRIx32, c);
  } else {
    outf(p, "\\U%08" PRIx32, c);
  }
}

static const char *name_of(const char *s, const char *dflt) { return s && *s ? s : dflt; }

static void pv(pr *p, const cdr_type *t, const void *v, unsigned depth);

static void p_members(pr *p, const cdr_member *m, uint32_t n, const uint8_t *v, bool *first,
                      unsigned depth)
{
  for (uint32_t k = 0; k < n; k++) {
    if (!*first)
      outs(p, ", ");
    *first = false;
    outs(p, name_of(m[k].name, "?"));
    outs(p, "=");
    pv(p, m[k].type, v + m[k].offset, depth + 1);
  }
}

static void p_disc(pr *p, const cdr_type *dt, int64_t label)
{
  dt = cdr__unalias(dt);
  switch (dt ? dt->kind : CDR_K_NULL) {
  case CDR_K_BOOLEAN: outs(p, label ? "TRUE" : "FALSE"); return;
  case CDR_K_CHAR: outs(p, "'"); out_char(p, (uint32_t)label & 0xff, '\'', false); outs(p, "'"); return;
  case CDR_K_WCHAR: outs(p, "L'"); out_char(p, (uint32_t)label, '\'', true); outs(p, "'"); return;
  case CDR_K_ENUM:
    if (dt->u.en.names && (uint64_t)label < dt->u.en.count && dt->u.en.names[label])
      outs(p, dt->u.en.names[label]);
    else
      outf(p, "#%" PRId64, label);
    return;
  case CDR_K_ULONGLONG: outf(p, "%" PRIu64, (uint64_t)label); return;
  default: outf(p, "%" PRId64, label); return;
  }
}

static void p_value(pr *p, const void *v, unsigned depth)
{
  const void *o;
  memcpy(&o, v, sizeof o);
  if (!o) {
    outs(p, "null");
    return;
  }
  uintptr_t num;
  if (cdr__tc_map_get(&p->objs, (uintptr_t)o, &num)) {
    outf(p, "@%" PRIuPTR, num);
    return;
  }
  const cdr_value_type *vt = ((const cdr_value *)o)->type;
  num = ++p->next;
  (void)cdr__tc_map_put(&p->objs, (uintptr_t)o, num); /* without memory: printed again */
  outf(p, "%s#%" PRIuPTR, name_of(vt ? vt->name : NULL, "value"), num);
  if (!vt || (vt->flags & CDR_VT_CUSTOM)) {
    outs(p, "{?}");
    return;
  }
  if (vt->flags & CDR_VT_BOX) {
    outs(p, "(");
    if (vt->nmembers)
      pv(p, vt->members[0].type, (const uint8_t *)o + vt->members[0].offset, depth + 1);
    outs(p, ")");
    return;
  }
  const cdr_value_type *l[32];
  unsigned n = 0;
  for (const cdr_value_type *x = vt; x && n < 32; x = x->base)
    l[n++] = x;
  outs(p, "{");
  bool first = true;
  while (n--)
    p_members(p, l[n]->members, l[n]->nmembers, o, &first, depth);
  outs(p, "}");
}

static void p_any(pr *p, const cdr_any *a, unsigned depth)
{
  if (!a->_type || (a->_type->size && !a->_value)) {
    outs(p, "null");
    return;
  }
  pv(p, a->_type, a->_value, depth + 1);
}

static void pv(pr *p, const cdr_type *t, const void *v, unsigned depth)
{
  if (!t) {
    outs(p, "?");
    return;
  }
  if (depth > CDR_ANY_MAX_NEST) {
    outs(p, "...");
    return;
  }
  const uint8_t *b = v;
  switch (t->kind) {
  case CDR_K_NULL: outs(p, "null"); return;
  case CDR_K_VOID: outs(p, "void"); return;
  case CDR_K_OCTET: outf(p, "%u", *b); return;
  case CDR_K_BOOLEAN: outs(p, *b ? "TRUE" : "FALSE"); return;
  case CDR_K_CHAR: outs(p, "'"); out_char(p, *b, '\'', false); outs(p, "'"); return;
  case CDR_K_WCHAR: {
    cdr_wchar c;
    memcpy(&c, b, sizeof c);
    outs(p, "L'");
    out_char(p, c, '\'', true);
    outs(p, "'");
    return;
  }
  case CDR_K_SHORT: { int16_t x; memcpy(&x, b, 2); outf(p, "%d", x); return; }
  case CDR_K_USHORT: { uint16_t x; memcpy(&x, b, 2); outf(p, "%u", x); return; }
  case CDR_K_LONG: { int32_t x; memcpy(&x, b, 4); outf(p, "%" PRId32, x); return; }
  case CDR_K_ULONG: { uint32_t x; memcpy(&x, b, 4); outf(p, "%" PRIu32, x); return; }
  case CDR_K_LONGLONG: { int64_t x; memcpy(&x, b, 8); outf(p, "%" PRId64, x); return; }
  case CDR_K_ULONGLONG: { uint64_t x; memcpy(&x, b, 8); outf(p, "%" PRIu64, x); return; }
  case CDR_K_FLOAT: { float x; memcpy(&x, b, 4); outf(p, "%.9g", (double)x); return; }
  case CDR_K_DOUBLE: { double x; memcpy(&x, b, 8); outf(p, "%.17g", x); return; }
  case CDR_K_LONGDOUBLE: { long double x; memcpy(&x, b, sizeof x); outf(p, "%.21Lg", x); return; }
  case CDR_K_FIXED: {
    char s[CDR_FIXED_STRING_MAX];
    size_t n;
    if (cdr_fixed_to_string(v, s, sizeof s, &n) == CDR_OK) {
      out(p, s, n);
      outs(p, "d");
    } else {
      outs(p, "?d");
    }
    return;
  }
  case CDR_K_STRING: {
    const char *s;
    memcpy(&s, b, sizeof s);
    if (!s) {
      outs(p, "NULL");
      return;
    }
    outs(p, "\"");
    for (; *s; s++)
      out_char(p, (unsigned char)*s, '"', false);
    outs(p, "\"");
    return;
  }
  case CDR_K_WSTRING: {
    const cdr_wchar *s;
    memcpy(&s, b, sizeof s);
    if (!s) {
      outs(p, "NULL");
      return;
    }
    outs(p, "L\"");
    for (; *s; s++)
      out_char(p, *s, '"', true);
    outs(p, "\"");
    return;
  }
  case CDR_K_ENUM: {
    uint32_t x;
    memcpy(&x, b, 4);
    p_disc(p, t, x);
    return;
  }
  case CDR_K_STRUCT: case CDR_K_EXCEPT: {
    outs(p, name_of(t->name, "struct"));
    outs(p, "{");
    bool first = true;
    p_members(p, t->u.st.members, t->u.st.count, b, &first, depth);
    outs(p, "}");
    return;
  }
  case CDR_K_UNION: {
    int64_t label;
    const cdr_union_case *c = cdr__union_case(t, b, &label);
    outs(p, name_of(t->name, "union"));
    outs(p, "{_d=");
    p_disc(p, t->u.un.disc, label);
    if (c) {
      outs(p, ", ");
      outs(p, name_of(c->name, "?"));
      outs(p, "=");
      pv(p, c->type, b + c->offset, depth + 1);
    }
    outs(p, "}");
    return;
  }
  case CDR_K_SEQUENCE: case CDR_K_PRINCIPAL: {
    const cdr_type *et = t->kind == CDR_K_SEQUENCE ? t->u.seq.elem : &cdr_type_octet;
    cdr_seq s;
    memcpy(&s, b, sizeof s);
    outs(p, "[");
    for (uint32_t k = 0; et && s._buffer && k < s._length; k++) {
      if (k)
        outs(p, ", ");
      pv(p, et, (const uint8_t *)s._buffer + (size_t)k * et->size, depth + 1);
    }
    outs(p, "]");
    return;
  }
  case CDR_K_ARRAY:
    outs(p, "[");
    for (uint32_t k = 0; t->u.arr.elem && k < t->u.arr.count; k++) {
      if (k)
        outs(p, ", ");
      pv(p, t->u.arr.elem, b + (size_t)k * t->u.arr.elem->size, depth + 1);
    }
    outs(p, "]");
    return;
  case CDR_K_ALIAS: pv(p, t->u.alias.type, v, depth + 1); return;
  case CDR_K_ANY:
    outs(p, "any(");
    p_any(p, v, depth);
    outs(p, ")");
    return;
  case CDR_K_TYPECODE: {
    cdr_typecode x;
    memcpy(&x, b, sizeof x);
    const char *id = "";
    outs(p, "TypeCode(");
    if (!x)
      outs(p, "NULL");
    else if (cdr_tc_id(x, &id) == CDR_OK && *id)
      outs(p, id);
    else
      outs(p, name_of(x->kind == CDR_K_VALUE ? NULL : x->name, "?"));
    outs(p, ")");
    return;
  }
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE: {
    const void *r;
    memcpy(&r, b, sizeof r);
    if (!r)
      outs(p, "objref(nil)");
    else if (cdr__objref_hooks())
      outf(p, "objref(%p)", r);
    else {
      const cdr_ior *ior = r;
      outs(p, "objref(");
      pv(p, &cdr_type_string, &ior->type_id, depth + 1);
      outs(p, ")");
    }
    return;
  }
  case CDR_K_VALUE: p_value(p, v, depth); return;
  default: outs(p, "?"); return;
  }
}

size_t cdr_any_print(char *buf, size_t size, const cdr_any *a)
{
  pr p = { .buf = buf, .size = buf ? size : 0, .len = 0, .next = 0 };
  cdr__tc_map_init(&p.objs, cdr_mem_global());
  p_any(&p, a, 0);
  cdr__tc_map_free(&p.objs);
  if (p.size)
    p.buf[p.len < p.size ? p.len : p.size - 1] = 0;
  return p.len;
}
