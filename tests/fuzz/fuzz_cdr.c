/* tests/fuzz/fuzz_cdr.c - fuzz target: the CDR input stream (cdr/in.h),
 * read through type descriptors (cdr/type.h) and through the primitive
 * readers one by one.
 *
 * Input: a selector octet, an options octet (bit 0 byte order, bits 1-2
 * GIOP minor 0-2, bits 3-4 char code sets, bit 5 lenient empty strings,
 * bit 6 x87 long doubles, bit 7 small limits: strings of 16 octets,
 * sequences of 8 elements, depth 4), then CDR octets.
 *   selector < 0x80: cdr_read() with descriptor (selector % count): a struct
 *     of every primitive, enums, unions (long, enum and boolean
 *     discriminators, explicit and implicit default), bounded and unbounded
 *     strings and sequences, arrays, fixed, nested sequences of structs;
 *   selector >= 0x80: a program of (selector & 0x1f) + 1 operations, one
 *     octet each taken from the data's front, on the primitive readers
 *     (every get_*, encapsulations, alignment, views).
 *
 * Checks: what is read is written back with the same options and read
 * again: the second reading writes the same octets as the first
 * (decode-encode-decode), and the operation program reads the same values
 * both times.
 */
#include <stdbool.h>
#include <math.h>
#include <cdr/cdr.h>
#include "fuzz.h"

/* ---------------------------------------------------------------- descriptors */

typedef struct prims {
  uint8_t o;
  bool b;
  char c;
  cdr_wchar wc;
  int16_t s;
  uint16_t us;
  int32_t l;
  uint32_t ul;
  int64_t ll;
  uint64_t ull;
  float f;
  double d;
  long double ld;
  char *str;
  cdr_wchar *wstr;
} prims;

static const cdr_member prims_m[] = {
  CDR_MEMBER(prims, o, &cdr_type_octet), CDR_MEMBER(prims, b, &cdr_type_boolean),
  CDR_MEMBER(prims, c, &cdr_type_char), CDR_MEMBER(prims, wc, &cdr_type_wchar),
  CDR_MEMBER(prims, s, &cdr_type_short), CDR_MEMBER(prims, us, &cdr_type_ushort),
  CDR_MEMBER(prims, l, &cdr_type_long), CDR_MEMBER(prims, ul, &cdr_type_ulong),
  CDR_MEMBER(prims, ll, &cdr_type_longlong), CDR_MEMBER(prims, ull, &cdr_type_ulonglong),
  CDR_MEMBER(prims, f, &cdr_type_float), CDR_MEMBER(prims, d, &cdr_type_double),
  CDR_MEMBER(prims, ld, &cdr_type_longdouble), CDR_MEMBER(prims, str, &cdr_type_string),
  CDR_MEMBER(prims, wstr, &cdr_type_wstring),
};
static const cdr_type prims_t = CDR_STRUCT_TYPE(prims, "Prims", "IDL:Fuzz/Prims:1.0", prims_m);

static const char *const color_names[] = { "red", "green", "blue" };
static const cdr_type color_t = { .kind = CDR_K_ENUM, .size = sizeof(uint32_t),
                                  .align = _Alignof(uint32_t), .name = "Color",
                                  .u.en = { 3, color_names } };
static const cdr_type fixed_t = { .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed),
                                  .align = _Alignof(cdr_fixed), .u.fx = { 7, 2 } };
static const cdr_type str5_t = { .kind = CDR_K_STRING, .size = sizeof(char *),
                                 .align = _Alignof(char *), .u.str = { 5 } };
static const cdr_type wstr3_t = { .kind = CDR_K_WSTRING, .size = sizeof(cdr_wchar *),
                                  .align = _Alignof(cdr_wchar *), .u.str = { 3 } };

/* union U switch (long) { case 1: long a; case 2: string s; case 3: case 4:
 * double d; default: octet o; } */
typedef struct un_long {
  int32_t disc;
  union { int32_t a; char *s; double d; uint8_t o; } u;
} un_long;
static const cdr_union_case un_long_c[] = {
  { 1, "a", &cdr_type_long, offsetof(un_long, u.a) },
  { 2, "s", &cdr_type_string, offsetof(un_long, u.s) },
  { 3, "d", &cdr_type_double, offsetof(un_long, u.d) },
  { 4, "d", &cdr_type_double, offsetof(un_long, u.d) },
  { 0, "o", &cdr_type_octet, offsetof(un_long, u.o) },
};
static const cdr_type un_long_t = {
  .kind = CDR_K_UNION, .size = sizeof(un_long), .align = _Alignof(un_long), .name = "U",
  .u.un = { &cdr_type_long, offsetof(un_long, disc), un_long_c, 5, 4 } };

/* union V switch (Color) { case red: wstring w; case blue: fixed<7,2> f; }
 * (green: the implicit default, no member) */
typedef struct un_enum {
  uint32_t disc;
  union { cdr_wchar *w; cdr_fixed f; } u;
} un_enum;
static const cdr_union_case un_enum_c[] = {
  { 0, "w", &cdr_type_wstring, offsetof(un_enum, u.w) },
  { 2, "f", &fixed_t, offsetof(un_enum, u.f) },
};
static const cdr_type un_enum_t = {
  .kind = CDR_K_UNION, .size = sizeof(un_enum), .align = _Alignof(un_enum), .name = "V",
  .u.un = { &color_t, offsetof(un_enum, disc), un_enum_c, 2, -1 } };

/* union W switch (boolean) { case TRUE: sequence<long> s; case FALSE: char c; } */
typedef struct un_bool {
  bool disc;
  union { cdr_seq s; char c; } u;
} un_bool;
static const cdr_type seq_long_t = CDR_SEQUENCE_TYPE(&cdr_type_long, 0);
static const cdr_union_case un_bool_c[] = {
  { 1, "s", &seq_long_t, offsetof(un_bool, u.s) },
  { 0, "c", &cdr_type_char, offsetof(un_bool, u.c) },
};
static const cdr_type un_bool_t = {
  .kind = CDR_K_UNION, .size = sizeof(un_bool), .align = _Alignof(un_bool), .name = "W",
  .u.un = { &cdr_type_boolean, offsetof(un_bool, disc), un_bool_c, 2, -1 } };

static const cdr_type seq_short_t = CDR_SEQUENCE_TYPE(&cdr_type_short, 0);
static const cdr_type seq_seq_short_t = CDR_SEQUENCE_TYPE(&seq_short_t, 0);
static const cdr_type seq_u_long4_t = CDR_SEQUENCE_TYPE(&un_long_t, 4);
static const cdr_type seq_prims_t = CDR_SEQUENCE_TYPE(&prims_t, 0);
static const cdr_type seq_string_t = CDR_SEQUENCE_TYPE(&cdr_type_string, 0);
static const cdr_type seq_octet_t = CDR_SEQUENCE_TYPE(&cdr_type_octet, 0);
static const cdr_type seq_bool_t = CDR_SEQUENCE_TYPE(&cdr_type_boolean, 0);
static const cdr_type arr_ushort3_t = { .kind = CDR_K_ARRAY, .size = 3 * sizeof(uint16_t),
                                        .align = _Alignof(uint16_t),
                                        .u.arr = { &cdr_type_ushort, 3 } };

typedef struct nested {
  cdr_seq prims;
  uint16_t arr[3];
  cdr_seq shorts;
  char *s5;
  cdr_wchar *w3;
  cdr_fixed fx;
  cdr_seq unions;
  un_enum v;
  un_bool w;
  uint32_t color;
  cdr_seq strings;
  cdr_seq octets;
  cdr_seq bools;
} nested;
static const cdr_member nested_m[] = {
  CDR_MEMBER(nested, prims, &seq_prims_t), CDR_MEMBER(nested, arr, &arr_ushort3_t),
  CDR_MEMBER(nested, shorts, &seq_seq_short_t), CDR_MEMBER(nested, s5, &str5_t),
  CDR_MEMBER(nested, w3, &wstr3_t), CDR_MEMBER(nested, fx, &fixed_t),
  CDR_MEMBER(nested, unions, &seq_u_long4_t), CDR_MEMBER(nested, v, &un_enum_t),
  CDR_MEMBER(nested, w, &un_bool_t), CDR_MEMBER(nested, color, &color_t),
  CDR_MEMBER(nested, strings, &seq_string_t), CDR_MEMBER(nested, octets, &seq_octet_t),
  CDR_MEMBER(nested, bools, &seq_bool_t),
};
static const cdr_type nested_t = CDR_STRUCT_TYPE(nested, "Nested", "IDL:Fuzz/Nested:1.0", nested_m);

typedef struct deep {
  int32_t tag;
  nested n[2];
} deep;
static const cdr_type arr_nested2_t = { .kind = CDR_K_ARRAY, .size = 2 * sizeof(nested),
                                        .align = _Alignof(nested), .u.arr = { &nested_t, 2 } };
static const cdr_member deep_m[] = {
  CDR_MEMBER(deep, tag, &cdr_type_long),
  CDR_MEMBER(deep, n, &arr_nested2_t),
};
static const cdr_type deep_t = CDR_STRUCT_TYPE(deep, "Deep", NULL, deep_m);
static const cdr_type seq_seq_prims_t = CDR_SEQUENCE_TYPE(&seq_prims_t, 0);

static const cdr_type *const types[] = {
  &prims_t, &nested_t, &un_long_t, &un_enum_t, &un_bool_t, &seq_seq_short_t, &seq_u_long4_t,
  &deep_t, &seq_seq_prims_t, &fixed_t, &cdr_type_longdouble, &cdr_type_wstring,
};
#define NTYPES (sizeof types / sizeof types[0])

static void opts_for(cdr_opts *o, uint8_t cfg)
{
  cdr_opts_default(o);
  o->byte_order = cfg & 1;
  o->giop_minor = (cfg >> 1) & 3;
  if (o->giop_minor > 2)
    o->giop_minor = 2;
  switch ((cfg >> 3) & 3) {
  case 1: o->ncs_c = CDR_CS_UTF8; break;
  case 2: o->tcs_c = o->ncs_c = CDR_CS_UTF8; break;
  case 3: o->tcs_c = CDR_CS_UTF8; o->ncs_c = CDR_CS_ISO8859_1; break;
  default: break;
  }
  if (cfg & 0x20)
    o->flags |= CDR_F_LENIENT_EMPTY_STRING;
  if (cfg & 0x40)
    o->flags |= CDR_F_LDOUBLE_X87;
  if (cfg & 0x80) {
    o->max_string = 16;
    o->max_seq = 8;
    o->max_depth = 4;
  }
}

/* Re-reading uses no limits: what was written back may be longer than the
 * original (a wstring's byte-order mark). */
static void unlimited(cdr_opts *o)
{
  o->max_string = UINT32_MAX;
  o->max_seq = UINT32_MAX;
}

static void check_type(const cdr_type *t, const cdr_opts *opts, const uint8_t *p, size_t n)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  void *v1 = calloc(1, t->size), *v2 = calloc(1, t->size);
  FUZZ_CHECK(v1 && v2);
  cdr_in i;
  cdr_in_init(&i, p, n, opts->byte_order, opts);
  cdr_in_set_arena(&i, &a);
  if (cdr_read(&i, t, v1) == CDR_OK) {
    cdr_opts back = *opts;
    unlimited(&back);
    cdr_out o1, o2;
    cdr_out_init(&o1, opts);
    int w = cdr_write(&o1, t, v1);
    /* Whatever the reader accepts, the writer writes. */
    FUZZ_CHECK(w == CDR_OK);
    cdr_in j;
    cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), opts->byte_order, &back);
    cdr_in_set_arena(&j, &a);
    FUZZ_CHECK(cdr_read(&j, t, v2) == CDR_OK);
    FUZZ_CHECK(cdr_in_remaining(&j) == 0);
    cdr_out_init(&o2, opts);
    FUZZ_CHECK(cdr_write(&o2, t, v2) == CDR_OK);
    FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
    cdr_in_close(&j);
    cdr_out_close(&o1);
    cdr_out_close(&o2);
  }
  cdr_in_close(&i);
  free(v1);
  free(v2);
  cdr_arena_free(&a);
}

/* ---------------------------------------------------------------- operation programs */

enum {
  OP_OCTET, OP_BOOL, OP_CHAR, OP_SHORT, OP_USHORT, OP_LONG, OP_ULONG, OP_LLONG, OP_ULLONG,
  OP_FLOAT, OP_DOUBLE, OP_LDOUBLE, OP_WCHAR, OP_FIXED, OP_STRING, OP_STRING_VIEW, OP_WSTRING,
  OP_OCTETS_VIEW, OP_SEQ_LONG, OP_SEQ_DOUBLE, OP_ARRAY_SHORT, OP_ARRAY_BOOL, OP_RAW,
  OP_BEGIN_ENCAP, OP_END_ENCAP, OP_ALIGN, OP_SEQ_COUNT, NOPS
};

typedef struct rec {
  int op;
  uint64_t u;            /* integers, float/double bits, counts, byte order */
  long double ld;
  const void *p;         /* strings, views, sequences */
  uint32_t n;            /* their lengths (elements) */
  cdr_fixed fx;
  uint8_t arr[8];
} rec;

#define MAX_OPS 32

/* Run the program on I, recording what each operation read.  REPLAY: I
 * holds what write_recs() wrote, where a sequence count is not followed by
 * its elements, so counts are not checked against what remains. */
static int run_ops(cdr_in *i, const uint8_t *ops, int nops, rec *r, int replay)
{
  for (int k = 0; k < nops && cdr_in_status(i) == CDR_OK; k++) {
    rec *x = &r[k];
    memset(x, 0, sizeof *x);
    x->op = ops[k] % NOPS;
    unsigned arg = ops[k] / NOPS; /* 0..9 */
    switch (x->op) {
    case OP_OCTET: x->u = cdr_get_octet(i); break;
    case OP_BOOL: x->u = cdr_get_boolean(i); break;
    case OP_CHAR: x->u = (uint8_t)cdr_get_char(i); break;
    case OP_SHORT: x->u = (uint16_t)cdr_get_short(i); break;
    case OP_USHORT: x->u = cdr_get_ushort(i); break;
    case OP_LONG: x->u = (uint32_t)cdr_get_long(i); break;
    case OP_ULONG: x->u = cdr_get_ulong(i); break;
    case OP_LLONG: x->u = (uint64_t)cdr_get_longlong(i); break;
    case OP_ULLONG: x->u = cdr_get_ulonglong(i); break;
    case OP_FLOAT: { float f = cdr_get_float(i); uint32_t b; memcpy(&b, &f, 4); x->u = b; break; }
    case OP_DOUBLE: { double d = cdr_get_double(i); memcpy(&x->u, &d, 8); break; }
    case OP_LDOUBLE: x->ld = cdr_get_longdouble(i); break;
    case OP_WCHAR: x->u = cdr_get_wchar(i); break;
    case OP_FIXED:
      x->u = 1 + arg * 3; /* digits 1..28 */
      cdr_get_fixed(i, (unsigned)x->u, (int)(arg % 2 ? x->u / 2 : 0), &x->fx);
      break;
    case OP_STRING: x->p = cdr_get_string(i, &x->n); break;
    case OP_STRING_VIEW: {
      const char *s;
      if (cdr_get_string_view(i, &s, &x->n) == CDR_OK)
        x->p = s;
      break;
    }
    case OP_WSTRING: x->p = cdr_get_wstring(i, &x->n); break;
    case OP_OCTETS_VIEW: {
      const uint8_t *d;
      if (cdr_get_octets_view(i, &d, &x->n) == CDR_OK)
        x->p = d;
      break;
    }
    case OP_SEQ_LONG: x->p = cdr_get_seq(i, 4, &x->n); break;
    case OP_SEQ_DOUBLE: x->p = cdr_get_seq(i, 8, &x->n); break;
    case OP_ARRAY_SHORT: cdr_get_array(i, x->arr, 4, 2); break;
    case OP_ARRAY_BOOL: cdr_get_array_boolean(i, (bool *)x->arr, 1 + arg % 8); x->n = 1 + arg % 8; break;
    case OP_RAW: x->n = arg; x->p = cdr_get_raw_view(i, arg); break;
    case OP_BEGIN_ENCAP:
      if (cdr_in_begin_encap(i) == CDR_OK)
        x->u = (uint64_t)cdr_in_byte_order(i);
      break;
    case OP_END_ENCAP:
      /* Without an open encapsulation this is an error, and ends the run. */
      cdr_in_end_encap(i);
      break;
    case OP_ALIGN: x->u = (uint64_t)1 << (arg % 4); cdr_in_align(i, (size_t)x->u); break;
    case OP_SEQ_COUNT: x->u = cdr_get_seq_count(i, replay ? 0 : arg % 9); break;
    }
    if (cdr_in_status(i) != CDR_OK)
      return k;
  }
  return nops;
}

/* Write what R[0..n) read, in the same order. */
static void write_recs(cdr_out *o, const rec *r, int n)
{
  for (int k = 0; k < n; k++) {
    const rec *x = &r[k];
    switch (x->op) {
    case OP_OCTET: cdr_put_octet(o, (uint8_t)x->u); break;
    case OP_BOOL: cdr_put_boolean(o, x->u != 0); break;
    case OP_CHAR: cdr_put_char(o, (char)x->u); break;
    case OP_SHORT: cdr_put_short(o, (int16_t)x->u); break;
    case OP_USHORT: cdr_put_ushort(o, (uint16_t)x->u); break;
    case OP_LONG: cdr_put_long(o, (int32_t)x->u); break;
    case OP_ULONG: cdr_put_ulong(o, (uint32_t)x->u); break;
    case OP_LLONG: cdr_put_longlong(o, (int64_t)x->u); break;
    case OP_ULLONG: cdr_put_ulonglong(o, x->u); break;
    case OP_FLOAT: { uint32_t b = (uint32_t)x->u; float f; memcpy(&f, &b, 4); cdr_put_float(o, f); break; }
    case OP_DOUBLE: { double d; memcpy(&d, &x->u, 8); cdr_put_double(o, d); break; }
    case OP_LDOUBLE: cdr_put_longdouble(o, x->ld); break;
    case OP_WCHAR: cdr_put_wchar(o, (cdr_wchar)x->u); break;
    case OP_FIXED: cdr_put_fixed(o, &x->fx); break;
    case OP_STRING: cdr_put_string_n(o, x->p, x->n); break;
    case OP_STRING_VIEW: /* transmission code set octets: written as they are */
      cdr_put_ulong(o, x->n + 1);
      cdr_put_raw(o, x->p, x->n);
      cdr_put_octet(o, 0);
      break;
    case OP_WSTRING: cdr_put_wstring(o, x->p, x->n); break;
    case OP_OCTETS_VIEW: cdr_put_seq(o, x->p, x->n, 1); break;
    case OP_SEQ_LONG: cdr_put_seq(o, x->p, x->n, 4); break;
    case OP_SEQ_DOUBLE: cdr_put_seq(o, x->p, x->n, 8); break;
    case OP_ARRAY_SHORT: cdr_put_array(o, x->arr, 4, 2); break;
    case OP_ARRAY_BOOL: cdr_put_array_boolean(o, (const bool *)x->arr, x->n); break;
    case OP_RAW: cdr_put_raw(o, x->p, x->n); break;
    case OP_BEGIN_ENCAP: cdr_out_begin_encap_order(o, (int)x->u); break;
    case OP_END_ENCAP: cdr_out_end_encap(o); break;
    case OP_ALIGN: cdr_out_align(o, (size_t)x->u); break;
    case OP_SEQ_COUNT: cdr_put_ulong(o, (uint32_t)x->u); break;
    }
  }
}

static int same_ld(long double a, long double b)
{
  return (isnan(a) && isnan(b)) || memcmp(&a, &b, 10) == 0;
}

static void same_recs(const rec *a, const rec *b, int n)
{
  for (int k = 0; k < n; k++) {
    const rec *x = &a[k], *y = &b[k];
    FUZZ_CHECK(x->op == y->op);
    switch (x->op) {
    case OP_LDOUBLE: FUZZ_CHECK(same_ld(x->ld, y->ld)); break;
    case OP_FIXED: FUZZ_CHECK(memcmp(&x->fx, &y->fx, sizeof x->fx) == 0); break;
    case OP_STRING: case OP_STRING_VIEW: case OP_OCTETS_VIEW: case OP_RAW:
      FUZZ_SAME(x->p, x->n, y->p, y->n);
      break;
    case OP_WSTRING: FUZZ_SAME(x->p, 4 * (size_t)x->n, y->p, 4 * (size_t)y->n); break;
    case OP_SEQ_LONG: FUZZ_SAME(x->p, 4 * (size_t)x->n, y->p, 4 * (size_t)y->n); break;
    case OP_SEQ_DOUBLE: FUZZ_SAME(x->p, 8 * (size_t)x->n, y->p, 8 * (size_t)y->n); break;
    case OP_ARRAY_SHORT: case OP_ARRAY_BOOL: FUZZ_CHECK(memcmp(x->arr, y->arr, 8) == 0); break;
    default: FUZZ_CHECK(x->u == y->u && x->n == y->n); break;
    }
  }
}

static void check_ops(const cdr_opts *opts, int nops, fuzz_in *f)
{
  uint8_t ops[MAX_OPS];
  for (int k = 0; k < nops; k++)
    ops[k] = fuzz_byte(f);
  static rec r1[MAX_OPS], r2[MAX_OPS];
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in i;
  cdr_in_init(&i, f->p, f->n, opts->byte_order, opts);
  cdr_in_set_arena(&i, &a);
  /* What succeeded is written back; encapsulations the program left open
   * are closed after it, so that their lengths are patched. */
  int done = run_ops(&i, ops, nops, r1, 0), open = 0;
  for (int k = 0; k < done; k++)
    open += r1[k].op == OP_BEGIN_ENCAP ? 1 : r1[k].op == OP_END_ENCAP ? -1 : 0;
  cdr_out o1, o2;
  cdr_out_init(&o1, opts);
  write_recs(&o1, r1, done);
  for (int k = 0; k < open; k++)
    cdr_out_end_encap(&o1);
  cdr_opts back = *opts;
  unlimited(&back);
  if (cdr_out_status(&o1) == CDR_OK) {
    cdr_in j;
    cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), opts->byte_order, &back);
    cdr_in_set_arena(&j, &a);
    FUZZ_CHECK(run_ops(&j, ops, done, r2, 1) == done);
    same_recs(r1, r2, done);
    cdr_out_init(&o2, opts);
    write_recs(&o2, r2, done);
    for (int k = 0; k < open; k++)
      cdr_out_end_encap(&o2);
    FUZZ_CHECK(cdr_out_status(&o2) == CDR_OK);
    FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
    cdr_out_close(&o2);
    cdr_in_close(&j);
  }
  cdr_out_close(&o1);
  cdr_in_close(&i);
  cdr_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int validated;
  if (!validated) {
    for (size_t k = 0; k < NTYPES; k++)
      FUZZ_CHECK(cdr_type_validate(types[k]) == CDR_OK);
    validated = 1;
  }
  fuzz_in f = { data, size };
  uint8_t sel = fuzz_byte(&f), cfg = fuzz_byte(&f);
  cdr_opts opts;
  opts_for(&opts, cfg);
  if (sel < 0x80)
    check_type(types[sel % NTYPES], &opts, f.p, f.n);
  else
    check_ops(&opts, (sel & 0x1f) + 1, &f);
  return 0;
}
