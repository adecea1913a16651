/* type.c - C data marshalled by type descriptor: cdr_write(), cdr_read(),
 * cdr_type_min_wire(), cdr_type_validate() and the basic descriptors.
 *
 * The walkers interpret descriptors directly (no plan cache: a cache keyed
 * by descriptor address goes stale when a heap descriptor is freed and its
 * address reused).  Speed comes from struct loops that keep the stream's
 * cursor in locals for primitive members, and from "flat" types: structs
 * and arrays of fixed-size primitives whose C layout equals their CDR
 * layout, so that runs of them (arrays, sequences) go as one bulk copy; see
 * flat_of().
 *
 * Depth: every struct, union, sequence and array counts one level, so even a
 * malformed self-referencing descriptor stops at opts.max_depth. */
#include "internal.h"
#include "internal_type.h"
#include <stdbool.h>
#include <cdr/type.h>
#include <cdr/typecode.h>

/* ---------------------------------------------------------------- basic descriptors */

#define BASIC(var, k, ctype, idl) \
  const cdr_type var = { .kind = k, .size = sizeof(ctype), .align = _Alignof(ctype), .name = idl }

BASIC(cdr_type_octet, CDR_K_OCTET, uint8_t, "octet");
BASIC(cdr_type_boolean, CDR_K_BOOLEAN, bool, "boolean");
BASIC(cdr_type_char, CDR_K_CHAR, char, "char");
BASIC(cdr_type_wchar, CDR_K_WCHAR, cdr_wchar, "wchar");
BASIC(cdr_type_short, CDR_K_SHORT, int16_t, "short");
BASIC(cdr_type_ushort, CDR_K_USHORT, uint16_t, "unsigned short");
BASIC(cdr_type_long, CDR_K_LONG, int32_t, "long");
BASIC(cdr_type_ulong, CDR_K_ULONG, uint32_t, "unsigned long");
BASIC(cdr_type_longlong, CDR_K_LONGLONG, int64_t, "long long");
BASIC(cdr_type_ulonglong, CDR_K_ULONGLONG, uint64_t, "unsigned long long");
BASIC(cdr_type_float, CDR_K_FLOAT, float, "float");
BASIC(cdr_type_double, CDR_K_DOUBLE, double, "double");
BASIC(cdr_type_longdouble, CDR_K_LONGDOUBLE, long double, "long double");
BASIC(cdr_type_string, CDR_K_STRING, char *, "string");
BASIC(cdr_type_wstring, CDR_K_WSTRING, cdr_wchar *, "wstring");

/* ---------------------------------------------------------------- helpers */

CDR_INLINE uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
CDR_INLINE uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
CDR_INLINE uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
CDR_INLINE const void *ldptr(const uint8_t *p) { const void *v; memcpy(&v, p, sizeof v); return v; }
CDR_INLINE void stptr(uint8_t *p, const void *v) { memcpy(p, &v, sizeof v); }

static inline size_t sat_add(size_t a, size_t b) { return a + b < a ? SIZE_MAX : a + b; }
static inline size_t sat_mul(size_t a, size_t b)
{
  return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* Characters of a native string: code points for UTF-8, else octets.  The
 * IDL bound of string<N> counts characters. */
static size_t str_chars(const char *s, size_t len, uint32_t ncs)
{
  if (ncs != CDR_CS_UTF8)
    return len;
  size_t n = 0;
  for (size_t k = 0; k < len; k++)
    n += ((uint8_t)s[k] & 0xC0) != 0x80;
  return n;
}

static size_t wstr_len(const cdr_wchar *s)
{
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}

/* The case selected by discriminator LABEL: a matching label (the default
 * entry's own label is ignored), else the default branch, else NULL (the
 * implicit default: no member). */
static const cdr_union_case *find_case(const cdr_type *t, int64_t label)
{
  const cdr_union_case *c = t->u.un.cases;
  uint32_t n = t->u.un.ncases;
  int32_t def = t->u.un.default_case;
  if (!c)
    return NULL;
  for (uint32_t k = 0; k < n; k++)
    if (c[k].label == label && (int32_t)k != def)
      return &c[k];
  return def >= 0 && (uint32_t)def < n ? &c[def] : NULL;
}

/* ---------------------------------------------------------------- flat types */

/* A flat type is a fixed-size primitive (octet, char, integers, float,
 * double), or a struct or array of flat types, whose C layout equals the CDR
 * layout when it starts at a position aligned on ALIGN.  Booleans, enums
 * and wchars are not flat: their values need checks or conversion. */
#define FLAT_GAPS 6
#define FLAT_MANY_GAPS 0xFF

typedef struct flat {
  uint32_t wire;   /* octets on the wire, no tail padding */
  uint8_t lead;    /* alignment of the first octet (its first primitive) */
  uint8_t align;   /* largest primitive alignment inside */
  uint8_t esize;   /* every primitive has this size and there is no padding:
                    * the value is an array of ESIZE elements; else 0 */
  uint8_t ngaps;   /* padding runs between primitives, listed in GAP, or
                    * FLAT_MANY_GAPS: C padding holds garbage, the wire zeros */
  struct { uint16_t off, len; } gap[FLAT_GAPS];
} flat;

#define FLAT_DEPTH 8
/* Descriptors flat_of() looks at per call, so that a huge or DAG-shaped
 * descriptor costs little per sequence. */
#define FLAT_BUDGET 256

static bool flat_of(const cdr_type *t, flat *f, unsigned depth, unsigned *budget);

/* Record LEN octets of padding at OFF in F's gap list. */
static void flat_gap(flat *f, size_t off, size_t len)
{
  if (f->ngaps == FLAT_MANY_GAPS)
    return;
  if (f->ngaps == FLAT_GAPS || off + len > UINT16_MAX) {
    f->ngaps = FLAT_MANY_GAPS;
    return;
  }
  f->gap[f->ngaps].off = (uint16_t)off;
  f->gap[f->ngaps].len = (uint16_t)len;
  f->ngaps++;
}

static bool flat_struct(const cdr_type *t, flat *f, unsigned depth, unsigned *budget)
{
  const cdr_member *m = t->u.st.members;
  uint32_t n = t->u.st.count;
  size_t cur = 0;
  unsigned lead = 0, align = 1, esize = 0;
  if (n && !m)
    return false;
  f->ngaps = 0;
  for (uint32_t k = 0; k < n; k++) {
    flat mf;
    if (!m[k].type || !flat_of(m[k].type, &mf, depth + 1, budget))
      return false;
    if (mf.wire == 0)
      continue;
    size_t off = (cur + mf.lead - 1) & ~(size_t)(mf.lead - 1);
    if (m[k].offset != off || (off & (mf.align - 1)))
      return false;
    if (off != cur)
      flat_gap(f, cur, off - cur);
    if (mf.ngaps == FLAT_MANY_GAPS)
      f->ngaps = FLAT_MANY_GAPS;
    for (unsigned g = 0; g < mf.ngaps && mf.ngaps != FLAT_MANY_GAPS; g++)
      flat_gap(f, off + mf.gap[g].off, mf.gap[g].len);
    if (!lead) {
      lead = mf.lead;
      esize = mf.esize;
    } else if (esize != mf.esize) {
      esize = 0;
    }
    if (mf.align > align)
      align = mf.align;
    cur = off + mf.wire;
    if (cur > t->size)
      return false;
  }
  f->wire = (uint32_t)cur;
  f->lead = (uint8_t)(lead ? lead : 1);
  f->align = (uint8_t)align;
  f->esize = (uint8_t)(f->ngaps ? 0 : esize);
  return true;
}

static bool flat_of(const cdr_type *t, flat *f, unsigned depth, unsigned *budget)
{
  unsigned sz;
  if (!*budget)
    return false; /* too big to be worth it: element by element */
  --*budget;
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: sz = 1; break;
  case CDR_K_SHORT: case CDR_K_USHORT: sz = 2; break;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: sz = 4; break;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: sz = 8; break;
  case CDR_K_STRUCT:
    return depth < FLAT_DEPTH && flat_struct(t, f, depth, budget);
  case CDR_K_ARRAY: {
    const cdr_type *et = t->u.arr.elem;
    flat ef;
    if (depth >= FLAT_DEPTH || !et || !flat_of(et, &ef, depth + 1, budget))
      return false;
    /* Element k must start where C puts it: no tail padding, and a whole
     * number of alignment units so that each element starts aligned. */
    if (ef.wire != et->size || (ef.wire & (ef.align - 1)))
      return false;
    uint64_t w = (uint64_t)t->u.arr.count * ef.wire;
    if (w != t->size)
      return false;
    *f = ef;
    f->wire = (uint32_t)w;
    if (ef.ngaps && ef.ngaps != FLAT_MANY_GAPS) {
      f->ngaps = 0;
      for (uint32_t k = 0; k < t->u.arr.count && f->ngaps != FLAT_MANY_GAPS; k++)
        for (unsigned g = 0; g < ef.ngaps; g++)
          flat_gap(f, k * ef.wire + ef.gap[g].off, ef.gap[g].len);
    }
    return true;
  }
  default:
    return false;
  }
  if (t->size != sz)
    return false;
  f->wire = sz;
  f->lead = f->align = f->esize = (uint8_t)sz;
  f->ngaps = 0;
  return true;
}

/* Zero LEN octets at P: alignment padding, under 8 octets, without a call. */
CDR_INLINE void zero_small(uint8_t *p, size_t len)
{
  static const uint8_t z[8];
  if (len >= 4 && len <= 8) {
    memcpy(p, z, 4);
    memcpy(p + len - 4, z, 4);
  } else if (len >= 2 && len < 4) {
    memcpy(p, z, 2);
    memcpy(p + len - 2, z, 2);
  } else if (len == 1) {
    *p = 0;
  } else if (len) {
    memset(p, 0, len);
  }
}

/* Whether a flat value starting at the next LEAD-aligned position would be
 * aligned on its ALIGN, so that its CDR layout is its C layout. */
CDR_INLINE bool flat_pos_ok(size_t pos, size_t origin, const flat *f)
{
  size_t pad = (origin - pos) & (size_t)(f->lead - 1);
  return ((pos + pad - origin) & (size_t)(f->align - 1)) == 0;
}

/* ---------------------------------------------------------------- min wire */

#define MIN_WIRE_DEPTH 64
/* Descriptors looked at per call: a DAG-shaped descriptor (a struct whose
 * members share a struct type, nested) would otherwise cost exponential
 * time.  Stopping early still gives a lower bound. */
#define MIN_WIRE_BUDGET 4096

CDR_INLINE size_t min_wire_members(const cdr_type *t, unsigned flags, unsigned depth, unsigned *budget);
__attribute__((noinline)) static size_t min_wire_more(const cdr_type *t, unsigned flags, unsigned depth,
                                                      unsigned *budget);

static size_t min_wire(const cdr_type *t, unsigned flags, unsigned depth, unsigned *budget)
{
  if (!*budget)
    return 0;
  --*budget;
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_BOOLEAN: case CDR_K_CHAR: return 1;
  case CDR_K_WCHAR: return 2;            /* GIOP 1.1 ushort; 1.2 takes 3 */
  case CDR_K_SHORT: case CDR_K_USHORT: return 2;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: case CDR_K_ENUM: return 4;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: return 8;
  case CDR_K_LONGDOUBLE: return 16;
  case CDR_K_FIXED: {
    unsigned d = t->u.fx.digits;
    return d >= 1 && d <= CDR_FIXED_MAX_DIGITS ? (d + 2) / 2 : 0;
  }
  case CDR_K_STRING: return flags & CDR_F_LENIENT_EMPTY_STRING ? 4 : 5;
  case CDR_K_WSTRING: return 4;          /* GIOP 1.2 empty wstring */
  case CDR_K_SEQUENCE: return 4;
  case CDR_K_VALUE: return 4;            /* null or an indirection's tag */
  case CDR_K_CUSTOM: return t->u.custom.min_wire;
  case CDR_K_STRUCT: return min_wire_members(t, flags, depth, budget);
  case CDR_K_UNION: {
    if (depth >= MIN_WIRE_DEPTH || !t->u.un.disc)
      return 0;
    size_t d = min_wire(t->u.un.disc, flags, depth + 1, budget);
    /* With an implicit default a discriminator may select no member. */
    if (t->u.un.default_case < 0 || !t->u.un.ncases || !t->u.un.cases)
      return d;
    size_t b = SIZE_MAX;
    for (uint32_t k = 0; k < t->u.un.ncases; k++) {
      const cdr_type *ct = t->u.un.cases[k].type;
      size_t w = ct ? min_wire(ct, flags, depth + 1, budget) : 0;
      if (w < b)
        b = w;
    }
    return sat_add(d, b);
  }
  case CDR_K_ARRAY:
    if (depth >= MIN_WIRE_DEPTH || !t->u.arr.elem)
      return 0;
    return sat_mul(t->u.arr.count, min_wire(t->u.arr.elem, flags, depth + 1, budget));
  default:
    return min_wire_more(t, flags, depth, budget);
  }
}

CDR_INLINE size_t min_wire_members(const cdr_type *t, unsigned flags, unsigned depth, unsigned *budget)
{
  /* Bounded so that a descriptor that contains itself directly (invalid)
   * cannot recurse forever; 0 is always a safe lower bound. */
  if (depth >= MIN_WIRE_DEPTH || !t->u.st.members)
    return 0;
  size_t s = 0;
  for (uint32_t k = 0; k < t->u.st.count; k++)
    if (t->u.st.members[k].type)
      s = sat_add(s, min_wire(t->u.st.members[k].type, flags, depth + 1, budget));
  return s;
}

/* The kinds of cdr/typecode.h, out of the way of the others' switch. */
static size_t min_wire_more(const cdr_type *t, unsigned flags, unsigned depth, unsigned *budget)
{
  switch (t->kind) {
  /* An any's or a TypeCode's kind, a Principal's count, an IOR's type ID
   * length or an abstract interface's boolean and what follows it. */
  case CDR_K_ANY: case CDR_K_TYPECODE: case CDR_K_PRINCIPAL: case CDR_K_OBJREF:
  case CDR_K_ABSTRACT_INTERFACE:
    return 4;
  case CDR_K_ALIAS:
    if (depth >= MIN_WIRE_DEPTH || !t->u.alias.type)
      return 0;
    return min_wire(t->u.alias.type, flags, depth + 1, budget);
  case CDR_K_EXCEPT: /* its members, as a struct's */
    return min_wire_members(t, flags, depth, budget);
  default:
    return 0;
  }
}

size_t cdr_type_min_wire(const cdr_type *t)
{
  unsigned budget = MIN_WIRE_BUDGET;
  return min_wire(t, 0, 0, &budget);
}

size_t cdr__type_min_wire_flags(const cdr_type *t, unsigned flags)
{
  unsigned budget = MIN_WIRE_BUDGET;
  return min_wire(t, flags, 0, &budget);
}

/* ================================================================ write */

static void w_any(cdr_out *o, const cdr_type *t, const uint8_t *src, unsigned depth);
static void w_struct(cdr_out *o, const cdr_type *t, const uint8_t *src, unsigned depth);
__attribute__((noinline)) static void w_more(cdr_out *o, const cdr_type *t, const uint8_t *src,
                                             unsigned depth);

CDR_INLINE void w_boolean(cdr_out *o, uint8_t v)
{
  if (CDR_UNLIKELY(v > 1))
    cdr_out_fail(o, CDR_E_VALUE, "boolean other than 0 or 1");
  else
    cdr_put_octet(o, v);
}

CDR_INLINE void w_enum(cdr_out *o, const cdr_type *t, uint32_t v)
{
  if (CDR_UNLIKELY(v >= t->u.en.count))
    cdr_out_fail(o, CDR_E_VALUE, "enum value not below its type's count");
  else
    cdr_put_ulong(o, v);
}

/* A struct member, array or sequence element: the common kinds inline. */
CDR_INLINE void w_member(cdr_out *o, const cdr_type *t, const uint8_t *p, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: cdr_put_octet(o, *p); return;
  case CDR_K_BOOLEAN: w_boolean(o, *p); return;
  case CDR_K_SHORT: case CDR_K_USHORT: cdr_put_ushort(o, ld16(p)); return;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: cdr_put_ulong(o, ld32(p)); return;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: cdr_put_ulonglong(o, ld64(p)); return;
  case CDR_K_ENUM: w_enum(o, t, ld32(p)); return;
  default: w_any(o, t, p, depth); return;
  }
}

static void w_string(cdr_out *o, const cdr_type *t, const char *s)
{
  if (!s) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL string member");
    return;
  }
  size_t len = strlen(s);
  uint32_t bound = t->u.str.bound;
  if (bound && len > bound && str_chars(s, len, o->opts.ncs_c) > bound) {
    cdr_out_fail(o, CDR_E_VALUE, "string longer than its bound");
    return;
  }
  cdr_put_string_n(o, s, len);
}

static void w_wstring(cdr_out *o, const cdr_type *t, const cdr_wchar *s)
{
  if (!s) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL wstring member");
    return;
  }
  size_t len = wstr_len(s);
  if (t->u.str.bound && len > t->u.str.bound) {
    cdr_out_fail(o, CDR_E_VALUE, "wstring longer than its bound");
    return;
  }
  cdr_put_wstring(o, s, len);
}

/* fixed<d,s> takes (d + 2) / 2 octets whatever the value's own digits, so
 * a value of another shape is converted exactly (leading or trailing zeros
 * added or dropped) or refused with CDR_E_VALUE. */
static void w_fixed(cdr_out *o, const cdr_type *t, const cdr_fixed *f)
{
  int td = t->u.fx.digits, ts = t->u.fx.scale;
  if (f->digits == td && f->scale == ts) {
    cdr_put_fixed(o, f);
    return;
  }
  int fd = f->digits, fs = f->scale;
  if (td < 1 || td > CDR_FIXED_MAX_DIGITS || ts < 0 || ts > td
      || fd < 1 || fd > CDR_FIXED_MAX_DIGITS || fs < 0 || fs > fd) {
    cdr_out_fail(o, CDR_E_INVALID, "fixed digits/scale out of range");
    return;
  }
  cdr_fixed g;
  memset(&g, 0, sizeof g);
  g.digits = (uint8_t)td;
  g.scale = (int8_t)ts;
  g.negative = f->negative;
  /* Source digit k has weight 10^(fd - fs - 1 - k); target j has weight
   * 10^(td - ts - 1 - j): j = k + shift. */
  int shift = (td - ts) - (fd - fs);
  for (int k = 0; k < fd; k++) {
    int j = k + shift;
    if (j >= 0 && j < td)
      g.d[j] = f->d[k];
    else if (f->d[k] != 0) {
      cdr_out_fail(o, CDR_E_VALUE, "fixed value does not fit its type's digits and scale");
      return;
    }
  }
  cdr_put_fixed(o, &g);
}

static void w_union(cdr_out *o, const cdr_type *t, const uint8_t *src, unsigned depth)
{
  const cdr_type *dt = t->u.un.disc;
  const uint8_t *dp = src + t->u.un.disc_offset;
  int64_t label;
  if (!dt) {
    cdr_out_fail(o, CDR_E_INVALID, "union type without a discriminator type");
    return;
  }
  switch (dt->kind) {
  case CDR_K_BOOLEAN: label = *dp; w_boolean(o, *dp); break;
  case CDR_K_CHAR: case CDR_K_OCTET: label = *dp; cdr_put_octet(o, *dp); break;
  case CDR_K_SHORT: label = (int16_t)ld16(dp); cdr_put_ushort(o, ld16(dp)); break;
  case CDR_K_USHORT: label = ld16(dp); cdr_put_ushort(o, ld16(dp)); break;
  case CDR_K_LONG: label = (int32_t)ld32(dp); cdr_put_ulong(o, ld32(dp)); break;
  case CDR_K_ULONG: label = ld32(dp); cdr_put_ulong(o, ld32(dp)); break;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG:
    label = (int64_t)ld64(dp);
    cdr_put_ulonglong(o, ld64(dp));
    break;
  case CDR_K_ENUM: label = ld32(dp); w_enum(o, dt, ld32(dp)); break;
  case CDR_K_WCHAR: label = ld32(dp); cdr_put_wchar(o, ld32(dp)); break;
  default:
    cdr_out_fail(o, CDR_E_INVALID, "union discriminator of a kind that cannot be one");
    return;
  }
  const cdr_union_case *c = find_case(t, label);
  if (c) {
    if (!c->type)
      cdr_out_fail(o, CDR_E_INVALID, "union case without a type");
    else
      w_member(o, c->type, src + c->offset, depth);
  }
}

/* N elements of type ET at SRC (an array's or a sequence's), no count. */
static void w_elems(cdr_out *o, const cdr_type *et, const uint8_t *src, size_t n, unsigned depth)
{
  flat f;
  unsigned fbudget = FLAT_BUDGET;
  bool bulk = false;
  switch (et->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: cdr_put_array(o, src, n, 1); return;
  case CDR_K_BOOLEAN: cdr_put_array_boolean(o, (const bool *)src, n); return;
  case CDR_K_SHORT: case CDR_K_USHORT: cdr_put_array(o, src, n, 2); return;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: cdr_put_array(o, src, n, 4); return;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: cdr_put_array(o, src, n, 8); return;
  case CDR_K_STRUCT: case CDR_K_ARRAY:
    if (!flat_of(et, &f, 0, &fbudget))
      break;
    if (f.wire == 0) /* empty structs: nothing on the wire */
      return;
    if (f.wire != et->size || f.ngaps == FLAT_MANY_GAPS || (f.wire & (f.align - 1)))
      break;
    if (n > SIZE_MAX / f.wire) {
      cdr_out_fail(o, CDR_E_LIMIT, "array or sequence size in octets exceeds SIZE_MAX");
      return;
    }
    if (f.esize) {
      cdr_put_array(o, src, n * (f.wire / f.esize), f.esize);
      return;
    }
    bulk = !o->swap;
    break;
  default:
    break;
  }
  size_t step = et->size;
  bool st = et->kind == CDR_K_STRUCT;
  if (st && depth >= o->opts.max_depth) { /* every element is one level deeper */
    cdr_out_fail(o, CDR_E_LIMIT, "constructed types nested deeper than opts.max_depth");
    return;
  }
  for (size_t k = 0; k < n && o->status == CDR_OK; k++) {
    /* As in r_elems(): from the first aligned element on, one copy. */
    if (bulk && flat_pos_ok(o->pos, o->origin, &f)) {
      uint8_t *p = cdr_out__reserve(o, (n - k) * f.wire, f.lead);
      if (!p)
        return;
      memcpy(p, src + k * step, (n - k) * f.wire);
      /* C padding holds garbage; the wire's padding is zero. */
      if (f.ngaps)
        for (; k < n; k++, p += f.wire)
          for (unsigned g = 0; g < f.ngaps; g++)
            zero_small(p + f.gap[g].off, f.gap[g].len);
      return;
    }
    if (st)
      w_struct(o, et, src + k * step, depth + 1);
    else
      w_member(o, et, src + k * step, depth);
  }
}

/* Octets of the kinds whose struct members are copied with a local stream
 * cursor (no validation, no conversion); 0 for the others. */
static const uint8_t prim_size[CDR_K_CUSTOM + 1] = {
  [CDR_K_OCTET] = 1, [CDR_K_CHAR] = 1, [CDR_K_SHORT] = 2, [CDR_K_USHORT] = 2,
  [CDR_K_LONG] = 4, [CDR_K_ULONG] = 4, [CDR_K_FLOAT] = 4,
  [CDR_K_LONGLONG] = 8, [CDR_K_ULONGLONG] = 8, [CDR_K_DOUBLE] = 8,
};

CDR_INLINE unsigned prim_size_of(const cdr_type *t)
{
  unsigned k = (unsigned)t->kind;
  return k < sizeof prim_size ? prim_size[k] : 0;
}

/* The stream's position lives in locals across primitive members: stores
 * into the C value (char-typed) would otherwise force the stream's fields
 * to be reloaded for every member. */
__attribute__((noinline)) static void w_struct(cdr_out *o, const cdr_type *t, const uint8_t *src,
                                               unsigned depth)
{
  const cdr_member *m = t->u.st.members;
  uint32_t n = t->u.st.count;
  if (CDR_UNLIKELY(!m)) { /* no members (NULL + 0 is undefined) */
    if (n)
      cdr_out_fail(o, CDR_E_INVALID, "struct type with members but no member array");
    return;
  }
  const cdr_member *e = m + n;
  uint8_t *buf = o->buf;
  size_t pos = o->pos, lim = o->lim, origin = o->origin;
  bool swap = o->swap;
  for (; m < e; m++) {
    const cdr_type *mt = m->type;
    if (CDR_UNLIKELY(!mt)) {
      o->pos = pos;
      cdr_out_fail(o, CDR_E_INVALID, "struct member without a type");
      return;
    }
    const uint8_t *p = src + m->offset;
    unsigned sz = prim_size_of(mt);
    if (CDR_LIKELY(sz)) {
      size_t pad = (origin - pos) & (sz - 1);
      if (CDR_LIKELY(lim - pos >= pad + sz)) {
        uint8_t *q = buf + pos;
        pos += pad + sz;
        switch (sz) {
        case 1: *q = *p; continue;
        case 2: {
          uint16_t v = ld16(p);
          memset(q, 0, 2);
          if (swap)
            v = __builtin_bswap16(v);
          memcpy(q + pad, &v, 2);
          continue;
        }
        case 4: {
          uint32_t v = ld32(p);
          memset(q, 0, 4);
          if (swap)
            v = __builtin_bswap32(v);
          memcpy(q + pad, &v, 4);
          continue;
        }
        default: {
          uint64_t v = ld64(p);
          memset(q, 0, 8);
          if (swap)
            v = __builtin_bswap64(v);
          memcpy(q + pad, &v, 8);
          continue;
        }
        }
      }
    }
    o->pos = pos;
    w_member(o, mt, p, depth);
    buf = o->buf;
    pos = o->pos;
    lim = o->lim;
    origin = o->origin;
    swap = o->swap;
  }
  o->pos = pos;
}

static void w_any(cdr_out *o, const cdr_type *t, const uint8_t *src, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: cdr_put_octet(o, *src); return;
  case CDR_K_BOOLEAN: w_boolean(o, *src); return;
  case CDR_K_SHORT: case CDR_K_USHORT: cdr_put_ushort(o, ld16(src)); return;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: cdr_put_ulong(o, ld32(src)); return;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: cdr_put_ulonglong(o, ld64(src)); return;
  case CDR_K_ENUM: w_enum(o, t, ld32(src)); return;
  case CDR_K_WCHAR: cdr_put_wchar(o, ld32(src)); return;
  case CDR_K_LONGDOUBLE: {
    long double v;
    memcpy(&v, src, sizeof v);
    cdr_put_longdouble(o, v);
    return;
  }
  case CDR_K_FIXED: w_fixed(o, t, (const cdr_fixed *)src); return;
  case CDR_K_STRING: w_string(o, t, ldptr(src)); return;
  case CDR_K_WSTRING: w_wstring(o, t, ldptr(src)); return;
  case CDR_K_VALUE: (void)cdr__value_write(o, t, src); return;
  case CDR_K_CUSTOM: {
    if (!t->u.custom.write) {
      cdr_out_fail(o, CDR_E_INVALID, "custom type without a write function");
      return;
    }
    int rc = t->u.custom.write(o, src, t->u.custom.ud);
    if (rc != CDR_OK)
      cdr_out_fail(o, rc, "custom type's write function failed");
    return;
  }
  case CDR_K_STRUCT: case CDR_K_UNION: case CDR_K_SEQUENCE: case CDR_K_ARRAY:
    break;
  default:
    w_more(o, t, src, depth);
    return;
  }
  if (CDR_UNLIKELY(depth >= o->opts.max_depth)) {
    cdr_out_fail(o, CDR_E_LIMIT, "constructed types nested deeper than opts.max_depth");
    return;
  }
  depth++;
  switch (t->kind) {
  case CDR_K_STRUCT:
    w_struct(o, t, src, depth);
    return;
  case CDR_K_UNION:
    w_union(o, t, src, depth);
    return;
  case CDR_K_SEQUENCE: {
    cdr_seq s;
    memcpy(&s, src, sizeof s);
    const cdr_type *et = t->u.seq.elem;
    if (!et || (s._length && !s._buffer)) {
      cdr_out_fail(o, CDR_E_INVALID, !et ? "sequence type without an element type"
                                         : "NULL sequence buffer of nonzero length");
      return;
    }
    if (t->u.seq.bound && s._length > t->u.seq.bound) {
      cdr_out_fail(o, CDR_E_VALUE, "sequence longer than its bound");
      return;
    }
    cdr_put_ulong(o, s._length);
    if (s._length)
      w_elems(o, et, s._buffer, s._length, depth);
    return;
  }
  default: /* CDR_K_ARRAY */
    if (!t->u.arr.elem) {
      cdr_out_fail(o, CDR_E_INVALID, "array type without an element type");
      return;
    }
    w_elems(o, t->u.arr.elem, src, t->u.arr.count, depth);
    return;
  }
}

/* The kinds of cdr/typecode.h, out of the way of the others' switch. */
static void w_more(cdr_out *o, const cdr_type *t, const uint8_t *src, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_NULL: case CDR_K_VOID: case CDR_K_ANY: case CDR_K_TYPECODE: case CDR_K_PRINCIPAL:
  case CDR_K_OBJREF: case CDR_K_NATIVE: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE:
    (void)cdr__tc_kind_write(o, t, src, depth);
    return;
  case CDR_K_ALIAS: case CDR_K_EXCEPT:
    if (CDR_UNLIKELY(depth >= o->opts.max_depth)) { /* so that an alias of itself stops */
      cdr_out_fail(o, CDR_E_LIMIT, "types nested deeper than opts.max_depth");
    } else if (t->kind == CDR_K_EXCEPT) {
      w_struct(o, t, src, depth + 1);
    } else if (!t->u.alias.type) {
      cdr_out_fail(o, CDR_E_INVALID, "alias type without the type it names");
    } else {
      w_any(o, t->u.alias.type, src, depth + 1);
    }
    return;
  default:
    cdr_out_fail(o, CDR_E_INVALID, "type of an unknown kind");
    return;
  }
}

int cdr__write_at(cdr_out *o, const cdr_type *t, const void *src, unsigned depth)
{
  w_any(o, t, src, depth);
  return o->status;
}

int cdr_write(cdr_out *o, const cdr_type *t, const void *src)
{
  if (CDR_LIKELY(t->kind == CDR_K_STRUCT && o->opts.max_depth > 0))
    w_struct(o, t, src, 1);
  else
    w_any(o, t, src, 0);
  return o->status;
}

/* ================================================================ read */

static void r_any(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth);
static void r_struct(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth);
__attribute__((noinline)) static void r_more(cdr_in *i, const cdr_type *t, uint8_t *dst,
                                             unsigned depth);

static void *r_alloc(cdr_in *i, size_t size, size_t align)
{
  cdr_arena *a = cdr_in_arena(i);
  if (!a) {
    cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
    return NULL;
  }
  if (align < 1 || align > 16 || (align & (align - 1)))
    align = 16;
  void *p = cdr_arena_alloc(a, size ? size : 1, align);
  if (!p)
    cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
  return p;
}

/* A boolean octet other than 0/1 fails with the octet's own offset; only
 * 0 or 1 is ever stored in the bool. */
CDR_INLINE bool r_bool(cdr_in *i)
{
  uint8_t v = cdr_get_octet(i);
  if (CDR_UNLIKELY(v > 1)) {
    if (i->status == CDR_OK)
      i->pos--;
    cdr_in_fail(i, CDR_E_VALUE, "boolean octet other than 0 or 1");
    return false;
  }
  return v == 1;
}

CDR_INLINE void r_boolean(cdr_in *i, uint8_t *p)
{
  bool b = r_bool(i);
  memcpy(p, &b, sizeof b);
}

/* The offset of the aligned ulong that starts at or after POS: where a
 * bound error is reported (the length field, not the padding before it). */
static size_t ulong_at(const cdr_in *i, size_t pos)
{
  return pos + ((i->origin - pos) & 3);
}

CDR_INLINE uint32_t r_enum(cdr_in *i, const cdr_type *t)
{
  uint32_t v = cdr_get_ulong(i);
  if (CDR_UNLIKELY(v >= t->u.en.count)) {
    if (i->status == CDR_OK)
      i->pos -= 4; /* report the enum's own offset */
    cdr_in_fail(i, CDR_E_VALUE, "enum value out of range");
    return 0;
  }
  return v;
}

CDR_INLINE void r_member(cdr_in *i, const cdr_type *t, uint8_t *p, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: *p = cdr_get_octet(i); return;
  case CDR_K_BOOLEAN: r_boolean(i, p); return;
  case CDR_K_SHORT: case CDR_K_USHORT: {
    uint16_t v = cdr_get_ushort(i);
    memcpy(p, &v, 2);
    return;
  }
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: {
    uint32_t v = cdr_get_ulong(i);
    memcpy(p, &v, 4);
    return;
  }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: {
    uint64_t v = cdr_get_ulonglong(i);
    memcpy(p, &v, 8);
    return;
  }
  case CDR_K_ENUM: {
    uint32_t v = r_enum(i, t);
    memcpy(p, &v, 4);
    return;
  }
  default:
    r_any(i, t, p, depth);
    return;
  }
}

static void r_string(cdr_in *i, const cdr_type *t, uint8_t *dst)
{
  uint32_t len = 0;
  size_t at = i->pos;
  char *s = cdr_get_string(i, &len);
  uint32_t bound = t->u.str.bound;
  if (s && bound && len > bound && str_chars(s, len, i->opts.ncs_c) > bound) {
    i->pos = ulong_at(i, at);
    cdr_in_fail(i, CDR_E_VALUE, "string longer than its bound");
    s = NULL;
  }
  stptr(dst, s);
}

static void r_wstring(cdr_in *i, const cdr_type *t, uint8_t *dst)
{
  uint32_t len = 0;
  size_t at = i->pos;
  cdr_wchar *s = cdr_get_wstring(i, &len);
  if (s && t->u.str.bound && len > t->u.str.bound) {
    i->pos = ulong_at(i, at);
    cdr_in_fail(i, CDR_E_VALUE, "wstring longer than its bound");
    s = NULL;
  }
  stptr(dst, s);
}

static void r_union(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth)
{
  const cdr_type *dt = t->u.un.disc;
  uint8_t *dp = dst + t->u.un.disc_offset;
  int64_t label;
  if (!dt) {
    cdr_in_fail(i, CDR_E_INVALID, "union descriptor without a discriminator type");
    return;
  }
  switch (dt->kind) {
  case CDR_K_BOOLEAN: {
    bool b = r_bool(i);
    memcpy(dp, &b, sizeof b);
    label = b;
    break;
  }
  case CDR_K_CHAR: case CDR_K_OCTET: label = *dp = cdr_get_octet(i); break;
  case CDR_K_SHORT: case CDR_K_USHORT: {
    uint16_t v = cdr_get_ushort(i);
    memcpy(dp, &v, 2);
    label = dt->kind == CDR_K_SHORT ? (int64_t)(int16_t)v : (int64_t)v;
    break;
  }
  case CDR_K_LONG: case CDR_K_ULONG: {
    uint32_t v = cdr_get_ulong(i);
    memcpy(dp, &v, 4);
    label = dt->kind == CDR_K_LONG ? (int64_t)(int32_t)v : (int64_t)v;
    break;
  }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: {
    uint64_t v = cdr_get_ulonglong(i);
    memcpy(dp, &v, 8);
    label = (int64_t)v;
    break;
  }
  case CDR_K_ENUM: {
    uint32_t v = cdr_get_ulong(i);
    if (v >= dt->u.en.count) {
      if (i->status == CDR_OK)
        i->pos -= 4;
      cdr_in_fail(i, CDR_E_VALUE, "union discriminator outside its enum");
      return;
    }
    memcpy(dp, &v, 4);
    label = v;
    break;
  }
  case CDR_K_WCHAR: {
    cdr_wchar v = cdr_get_wchar(i);
    memcpy(dp, &v, sizeof v);
    label = v;
    break;
  }
  default:
    cdr_in_fail(i, CDR_E_INVALID, "union discriminator of a kind IDL does not allow");
    return;
  }
  if (i->status != CDR_OK)
    return;
  const cdr_union_case *c = find_case(t, label);
  if (c) {
    if (!c->type)
      cdr_in_fail(i, CDR_E_INVALID, "union case without a type");
    else
      r_member(i, c->type, dst + c->offset, depth);
  }
}

/* N elements of type ET into DST (an array's or a sequence's buffer). */
static void r_elems(cdr_in *i, const cdr_type *et, uint8_t *dst, size_t n, unsigned depth)
{
  flat f;
  unsigned fbudget = FLAT_BUDGET;
  bool bulk = false;
  switch (et->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: cdr_get_array(i, dst, n, 1); return;
  case CDR_K_BOOLEAN: cdr_get_array_boolean(i, (bool *)dst, n); return;
  case CDR_K_SHORT: case CDR_K_USHORT: cdr_get_array(i, dst, n, 2); return;
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: cdr_get_array(i, dst, n, 4); return;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: cdr_get_array(i, dst, n, 8); return;
  case CDR_K_STRUCT: case CDR_K_ARRAY:
    if (!flat_of(et, &f, 0, &fbudget))
      break;
    if (f.wire == 0) {
      memset(dst, 0, n * et->size);
      return;
    }
    /* Inside a chunked value a chunk may end between two elements: those
     * go one primitive at a time, which follows the chunks. */
    if (f.wire != et->size || (f.wire & (f.align - 1)) || i->in_chunk)
      break;
    if (n > SIZE_MAX / f.wire) {
      cdr_in_fail(i, CDR_E_LIMIT, "array too large for this host");
      return;
    }
    if (f.esize) {
      cdr_get_array(i, dst, n * (f.wire / f.esize), f.esize);
      return;
    }
    /* Padding between members is fine here: the wire's padding octets land
     * in the C struct's padding. */
    bulk = !i->swap;
    break;
  default:
    break;
  }
  size_t step = et->size;
  bool st = et->kind == CDR_K_STRUCT;
  if (st && depth >= i->opts.max_depth) { /* every element is one level deeper */
    cdr_in_fail(i, CDR_E_LIMIT, "types nested too deeply");
    return;
  }
  for (size_t k = 0; k < n && i->status == CDR_OK; k++) {
    /* Once an element starts aligned on the type's alignment, the rest are
     * the image of the C array (a sequence count can misalign the first). */
    if (bulk && flat_pos_ok(i->pos, i->origin, &f)) {
      const uint8_t *p = cdr_in__take(i, (n - k) * f.wire, f.lead);
      if (p)
        memcpy(dst + k * step, p, (n - k) * f.wire);
      return;
    }
    if (st)
      r_struct(i, et, dst + k * step, depth + 1);
    else
      r_member(i, et, dst + k * step, depth);
  }
}

static void r_seq(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth)
{
  cdr_seq s = { 0, 0, NULL, 0 }; /* arena-owned: _release stays 0 */
  const cdr_type *et = t->u.seq.elem;
  if (!et) {
    cdr_in_fail(i, CDR_E_INVALID, "sequence descriptor without an element type");
    goto out;
  }
  /* Capped so that count * minimum cannot overflow 64 bits in the check. */
  size_t mw = cdr__type_min_wire_flags(et, i->opts.flags);
  uint32_t n = cdr_get_seq_count(i, mw < UINT32_MAX ? mw : UINT32_MAX);
  if (i->status != CDR_OK || n == 0)
    goto out;
  if (t->u.seq.bound && n > t->u.seq.bound) {
    i->pos -= 4;
    cdr_in_fail(i, CDR_E_VALUE, "sequence longer than its bound");
    goto out;
  }
  if (et->size && n > SIZE_MAX / et->size) {
    cdr_in_fail(i, CDR_E_LIMIT, "sequence too large for this host");
    goto out;
  }
  /* An element whose C size dwarfs its least wire size (a union whose
   * unused branch is a large array, from a TypeCode off the wire) must not
   * turn a few octets into a large allocation: the whole buffer is bounded
   * by 64 times the octets that remain, plus 4096. */
  if (CDR_UNLIKELY(et->size > 64 * (uint64_t)mw)) {
    size_t lim = i->in_chunk ? i->chunk_lim : i->end;
    uint64_t left = lim > i->pos ? lim - i->pos : 0;
    if ((uint64_t)n * et->size > left * 64 + 4096) {
      i->pos -= 4;
      cdr_in_fail(i, CDR_E_LENGTH, "sequence's C size too large for the octets that remain");
      goto out;
    }
  }
  uint8_t *buf = r_alloc(i, (size_t)n * et->size, et->align);
  if (!buf)
    goto out;
  r_elems(i, et, buf, n, depth);
  if (i->status == CDR_OK) {
    s._buffer = buf;
    s._maximum = s._length = n;
  }
out:
  memcpy(dst, &s, sizeof s);
}

/* As w_struct(): primitive members with the stream's cursor in locals. */
__attribute__((noinline)) static void r_struct(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth)
{
  const cdr_member *m = t->u.st.members;
  uint32_t n = t->u.st.count;
  if (CDR_UNLIKELY(!m)) { /* no members (NULL + 0 is undefined) */
    if (n)
      cdr_in_fail(i, CDR_E_INVALID, "struct descriptor without members");
    return;
  }
  const cdr_member *e = m + n;
  const uint8_t *buf = i->buf;
  size_t pos = i->pos, end = i->end, origin = i->origin;
  bool swap = i->swap;
  for (; m < e; m++) {
    const cdr_type *mt = m->type;
    if (CDR_UNLIKELY(!mt)) {
      i->pos = pos;
      cdr_in_fail(i, CDR_E_INVALID, "struct member without a type");
      return;
    }
    uint8_t *p = dst + m->offset;
    unsigned sz = prim_size_of(mt);
    if (CDR_LIKELY(sz)) {
      size_t pad = (origin - pos) & (sz - 1);
      if (CDR_LIKELY(end - pos >= pad + sz)) {
        const uint8_t *q = buf + pos + pad;
        pos += pad + sz;
        switch (sz) {
        case 1: *p = *q; continue;
        case 2: {
          uint16_t v = ld16(q);
          if (swap)
            v = __builtin_bswap16(v);
          memcpy(p, &v, 2);
          continue;
        }
        case 4: {
          uint32_t v = ld32(q);
          if (swap)
            v = __builtin_bswap32(v);
          memcpy(p, &v, 4);
          continue;
        }
        default: {
          uint64_t v = ld64(q);
          if (swap)
            v = __builtin_bswap64(v);
          memcpy(p, &v, 8);
          continue;
        }
        }
      }
    }
    /* Other kinds, and the short-input error path. */
    i->pos = pos;
    r_member(i, mt, p, depth);
    pos = i->pos;
    end = i->end;
    origin = i->origin;
    swap = i->swap;
  }
  i->pos = pos;
}

static void r_any(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR: case CDR_K_BOOLEAN: case CDR_K_SHORT:
  case CDR_K_USHORT: case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT:
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: case CDR_K_ENUM:
    r_member(i, t, dst, depth);
    return;
  case CDR_K_WCHAR: {
    cdr_wchar v = cdr_get_wchar(i);
    memcpy(dst, &v, sizeof v);
    return;
  }
  case CDR_K_LONGDOUBLE: {
    long double v = cdr_get_longdouble(i);
    memcpy(dst, &v, sizeof v);
    return;
  }
  case CDR_K_FIXED:
    (void)cdr_get_fixed(i, t->u.fx.digits, t->u.fx.scale, (cdr_fixed *)dst);
    return;
  case CDR_K_STRING: r_string(i, t, dst); return;
  case CDR_K_WSTRING: r_wstring(i, t, dst); return;
  case CDR_K_VALUE: (void)cdr__value_read(i, t, dst); return;
  case CDR_K_CUSTOM: {
    if (!t->u.custom.read) {
      cdr_in_fail(i, CDR_E_INVALID, "custom type without a reader");
      return;
    }
    int rc = t->u.custom.read(i, dst, t->u.custom.ud);
    if (rc != CDR_OK)
      cdr_in_fail(i, rc, "custom reader failed");
    return;
  }
  case CDR_K_STRUCT: case CDR_K_UNION: case CDR_K_SEQUENCE: case CDR_K_ARRAY:
    break;
  default:
    r_more(i, t, dst, depth);
    return;
  }
  if (CDR_UNLIKELY(depth >= i->opts.max_depth)) {
    cdr_in_fail(i, CDR_E_LIMIT, "types nested too deeply");
    return;
  }
  depth++;
  switch (t->kind) {
  case CDR_K_STRUCT: r_struct(i, t, dst, depth); return;
  case CDR_K_UNION: r_union(i, t, dst, depth); return;
  case CDR_K_SEQUENCE: r_seq(i, t, dst, depth); return;
  default: /* CDR_K_ARRAY */
    if (!t->u.arr.elem) {
      cdr_in_fail(i, CDR_E_INVALID, "array descriptor without an element type");
      return;
    }
    r_elems(i, t->u.arr.elem, dst, t->u.arr.count, depth);
    return;
  }
}

/* The kinds of cdr/typecode.h, out of the way of the others' switch. */
static void r_more(cdr_in *i, const cdr_type *t, uint8_t *dst, unsigned depth)
{
  switch (t->kind) {
  case CDR_K_NULL: case CDR_K_VOID: case CDR_K_ANY: case CDR_K_TYPECODE: case CDR_K_PRINCIPAL:
  case CDR_K_OBJREF: case CDR_K_NATIVE: case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE:
    (void)cdr__tc_kind_read(i, t, dst, depth);
    return;
  case CDR_K_ALIAS: case CDR_K_EXCEPT:
    if (CDR_UNLIKELY(depth >= i->opts.max_depth)) /* so that an alias of itself stops */
      cdr_in_fail(i, CDR_E_LIMIT, "types nested too deeply");
    else if (t->kind == CDR_K_EXCEPT)
      r_struct(i, t, dst, depth + 1);
    else if (!t->u.alias.type)
      cdr_in_fail(i, CDR_E_INVALID, "alias descriptor without a type");
    else
      r_any(i, t->u.alias.type, dst, depth + 1);
    return;
  default:
    cdr_in_fail(i, CDR_E_INVALID, "unknown type descriptor kind");
    return;
  }
}

int cdr__read_at(cdr_in *i, const cdr_type *t, void *dst, unsigned depth)
{
  if (CDR_LIKELY(t->kind == CDR_K_STRUCT && depth < i->opts.max_depth))
    r_struct(i, t, dst, depth + 1);
  else
    r_any(i, t, dst, depth);
  int st = i->status;
  /* Members not reached yet may hold the caller's garbage: no pointer in
   * DST may dangle after an error. */
  if (CDR_UNLIKELY(st != CDR_OK))
    memset(dst, 0, t->size);
  return st;
}

int cdr_read(cdr_in *i, const cdr_type *t, void *dst)
{
  return cdr__read_at(i, t, dst, 0);
}

/* ================================================================ validate */

#define VALIDATE_DEPTH 64

#define VALIDATE_MEMO 256
#define VALIDATE_BUDGET (1u << 20)

typedef struct vstate {
  const cdr_type *path[VALIDATE_DEPTH]; /* descriptors being checked, outermost first */
  /* Constructed descriptors already found valid: a descriptor shared by
   * many members (a DAG) is checked once, not once per path. */
  const cdr_type *done[VALIDATE_MEMO];
  unsigned ndone;
  unsigned low;                         /* lowest path index that legal recursion
                                         * went back to in the current subtree */
  unsigned budget;                      /* visits left; 0: give up (invalid) */
} vstate;

static bool pow2(uint32_t a) { return a && !(a & (a - 1)); }

/* Whether REGION [off, off + t->size) fits in a C object of SIZE octets and
 * is aligned for T. */
static bool fits(size_t off, const cdr_type *t, uint32_t size)
{
  return off <= size && t->size <= size - off && pow2(t->align) && off % t->align == 0;
}

static bool label_ok(const cdr_type *dt, int64_t l)
{
  switch (dt->kind) {
  case CDR_K_BOOLEAN: return l == 0 || l == 1;
  case CDR_K_CHAR: case CDR_K_OCTET: return l >= 0 && l <= 0xFF;
  case CDR_K_SHORT: return l >= INT16_MIN && l <= INT16_MAX;
  case CDR_K_USHORT: return l >= 0 && l <= UINT16_MAX;
  case CDR_K_LONG: return l >= INT32_MIN && l <= INT32_MAX;
  case CDR_K_ULONG: return l >= 0 && l <= (int64_t)UINT32_MAX;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: return true;
  case CDR_K_ENUM: return l >= 0 && l < (int64_t)dt->u.en.count;
  case CDR_K_WCHAR: return l >= 0 && l <= 0x10FFFF;
  default: return false;
  }
}

/* DEPTH descriptors enclose T; those from DIRECT on contain it by value (no
 * sequence or value in between), so meeting one of them again would be an
 * infinitely large type, while meeting an earlier one is legal recursion. */
static int v_check(const cdr_type *t, vstate *vs, unsigned depth, unsigned direct);

static int v_type(const cdr_type *t, vstate *vs, unsigned depth, unsigned direct)
{
  for (unsigned k = 0; k < depth; k++)
    if (vs->path[k] == t) {
      if (k >= direct)
        return CDR_E_INVALID;
      if (k < vs->low)
        vs->low = k;
      return CDR_OK;
    }
  for (unsigned k = 0; k < vs->ndone; k++)
    if (vs->done[k] == t)
      return CDR_OK;
  if (depth >= VALIDATE_DEPTH || !vs->budget)
    return CDR_E_INVALID;
  vs->budget--;
  unsigned outer_low = vs->low;
  vs->low = UINT32_MAX;
  int rc = v_check(t, vs, depth, direct);
  /* A subtree that went back above T was judged with this path's
   * containment: elsewhere the same back edge may be an infinite type, so
   * only self-contained results are remembered. */
  if (rc == CDR_OK && vs->low >= depth && t->kind >= CDR_K_STRUCT && t->kind <= CDR_K_ARRAY
      && vs->ndone < VALIDATE_MEMO)
    vs->done[vs->ndone++] = t;
  if (outer_low < vs->low)
    vs->low = outer_low;
  return rc;
}

/* The checks of v_type() for T itself, and recursion into its parts. */
static int v_check(const cdr_type *t, vstate *vs, unsigned depth, unsigned direct)
{
  vs->path[depth] = t;
  if (!pow2(t->align) || t->align > 16 || t->size % t->align)
    return CDR_E_INVALID;

#define HOST(ctype) (t->size == sizeof(ctype) && t->align == _Alignof(ctype))
  switch (t->kind) {
  case CDR_K_OCTET: return HOST(uint8_t) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_BOOLEAN: return HOST(bool) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_CHAR: return HOST(char) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_WCHAR: return HOST(cdr_wchar) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_SHORT: case CDR_K_USHORT: return HOST(int16_t) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_LONG: case CDR_K_ULONG: return HOST(int32_t) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: return HOST(int64_t) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_FLOAT: return HOST(float) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_DOUBLE: return HOST(double) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_LONGDOUBLE: return HOST(long double) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_FIXED:
    return HOST(cdr_fixed) && t->u.fx.digits >= 1 && t->u.fx.digits <= CDR_FIXED_MAX_DIGITS
               && t->u.fx.scale >= 0 && t->u.fx.scale <= t->u.fx.digits
           ? CDR_OK : CDR_E_INVALID;
  case CDR_K_STRING: return HOST(char *) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_WSTRING: return HOST(cdr_wchar *) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_ENUM: return HOST(uint32_t) && t->u.en.count > 0 ? CDR_OK : CDR_E_INVALID;
  case CDR_K_VALUE: return HOST(void *) && t->u.val.vt ? CDR_OK : CDR_E_INVALID;
  case CDR_K_CUSTOM:
    return t->u.custom.write && t->u.custom.read ? CDR_OK : CDR_E_INVALID;
  case CDR_K_NULL: case CDR_K_VOID: return t->size == 0 ? CDR_OK : CDR_E_INVALID;
  case CDR_K_ANY: return HOST(cdr_any) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_PRINCIPAL: return HOST(cdr_seq) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_TYPECODE: case CDR_K_OBJREF: case CDR_K_NATIVE: case CDR_K_ABSTRACT_INTERFACE:
  case CDR_K_LOCAL_INTERFACE:
    return HOST(void *) ? CDR_OK : CDR_E_INVALID;
  case CDR_K_ALIAS: {
    const cdr_type *at = t->u.alias.type;
    if (!at || at->size != t->size || at->align != t->align)
      return CDR_E_INVALID;
    return v_type(at, vs, depth + 1, direct);
  }
  case CDR_K_SEQUENCE:
    if (!HOST(cdr_seq) || !t->u.seq.elem)
      return CDR_E_INVALID;
    /* Elements live behind a pointer: recursion through here is legal. */
    return v_type(t->u.seq.elem, vs, depth + 1, depth + 1);
  case CDR_K_ARRAY: {
    const cdr_type *et = t->u.arr.elem;
    if (!et || t->u.arr.count == 0 || t->align != et->align
        || (uint64_t)t->u.arr.count * et->size != t->size)
      return CDR_E_INVALID;
    return v_type(et, vs, depth + 1, direct);
  }
  case CDR_K_EXCEPT:
  case CDR_K_STRUCT: {
    const cdr_member *m = t->u.st.members;
    if (t->u.st.count && !m)
      return CDR_E_INVALID;
    for (uint32_t k = 0; k < t->u.st.count; k++) {
      if (!m[k].type || !fits(m[k].offset, m[k].type, t->size))
        return CDR_E_INVALID;
      int rc = v_type(m[k].type, vs, depth + 1, direct);
      if (rc != CDR_OK)
        return rc;
    }
    return CDR_OK;
  }
  case CDR_K_UNION: {
    const cdr_type *dt = t->u.un.disc;
    const cdr_union_case *c = t->u.un.cases;
    uint32_t n = t->u.un.ncases;
    int32_t def = t->u.un.default_case;
    if (!dt || !fits(t->u.un.disc_offset, dt, t->size) || (n && !c)
        || def < -1 || (def >= 0 && (uint32_t)def >= n))
      return CDR_E_INVALID;
    switch (dt->kind) {
    case CDR_K_BOOLEAN: case CDR_K_CHAR: case CDR_K_OCTET: case CDR_K_WCHAR:
    case CDR_K_SHORT: case CDR_K_USHORT: case CDR_K_LONG: case CDR_K_ULONG:
    case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_ENUM:
      break;
    default:
      return CDR_E_INVALID;
    }
    int rc = v_type(dt, vs, depth + 1, direct);
    if (rc != CDR_OK)
      return rc;
    size_t d0 = t->u.un.disc_offset, d1 = d0 + dt->size;
    for (uint32_t k = 0; k < n; k++) {
      if (!c[k].type || !fits(c[k].offset, c[k].type, t->size))
        return CDR_E_INVALID;
      /* A branch must not overlap the discriminator. */
      if (c[k].type->size && c[k].offset < d1 && d0 < c[k].offset + c[k].type->size)
        return CDR_E_INVALID;
      if ((int32_t)k != def) {
        if (!label_ok(dt, c[k].label))
          return CDR_E_INVALID;
        for (uint32_t j = 0; j < k; j++)
          if ((int32_t)j != def && c[j].label == c[k].label)
            return CDR_E_INVALID;
      }
      rc = v_type(c[k].type, vs, depth + 1, direct);
      if (rc != CDR_OK)
        return rc;
    }
    return CDR_OK;
  }
  default:
    return CDR_E_INVALID;
  }
#undef HOST
}

int cdr_type_validate(const cdr_type *t)
{
  vstate vs;
  vs.ndone = 0;
  vs.low = UINT32_MAX;
  vs.budget = VALIDATE_BUDGET;
  return v_type(t, &vs, 0, 0);
}
