/* check_type.c - descriptor-driven marshalling (cdr_write/cdr_read): exact
 * octets in both byte orders, padding included; unions, enums, arrays,
 * sequences, bounds, depth limits, error hygiene, cases C02 C03 C06 C07 of
 * docs/hostile-input.md, and a random round trip. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <cdr/value.h>
#include "testutil.h"

#define BE CDR_BIG_ENDIAN
#define LE CDR_LITTLE_ENDIAN

/* ================================================================ helpers */

static cdr_arena arena;

static void setup(void) { cdr_arena_init(&arena, NULL); }
static void teardown(void)
{
  cdr_arena_free(&arena);
  cdr_pool_flush();
}

static cdr_opts opts_of(int order)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.byte_order = (uint8_t)order;
  return o;
}

/* Encode V of type T after PRE octets 0xEE; the octets (PRE included) go to
 * OUT (CAP octets), their count to *N.  Returns cdr_write()'s status. */
static int encode_opts(const cdr_type *t, const void *v, const cdr_opts *op, size_t pre,
                       uint8_t *out, size_t cap, size_t *n)
{
  cdr_out o;
  memset(&o, 0, sizeof o);
  ck_assert_int_eq(cdr_out_init(&o, op), CDR_OK);
  for (size_t k = 0; k < pre; k++)
    cdr_put_octet(&o, 0xEE);
  int rc = cdr_write(&o, t, v);
  ck_assert_int_eq(rc, cdr_out_status(&o));
  *n = 0;
  if (rc == CDR_OK) {
    ck_assert_uint_le(cdr_out_size(&o), cap);
    memcpy(out, cdr_out_data(&o), cdr_out_size(&o));
    *n = cdr_out_size(&o);
  }
  cdr_out_close(&o);
  return rc;
}

static int encode(const cdr_type *t, const void *v, int order, size_t pre, uint8_t *out,
                  size_t cap, size_t *n)
{
  cdr_opts op = opts_of(order);
  return encode_opts(t, v, &op, pre, out, cap, n);
}

/* The error offset of the last decode (octets from the buffer start). */
static size_t last_err_off;

/* Decode a T into V from BUF (N octets, ORDER) after skipping PRE octets;
 * *END gets the position after the value.  Returns cdr_read()'s status. */
static int decode_opts(const cdr_type *t, void *v, const cdr_opts *op, int order,
                       const uint8_t *buf, size_t n, size_t pre, size_t *end)
{
  cdr_in i;
  memset(&i, 0, sizeof i);
  ck_assert_int_eq(cdr_in_init(&i, buf, n, order, op), CDR_OK);
  cdr_in_set_arena(&i, &arena);
  for (size_t k = 0; k < pre; k++)
    (void)cdr_get_octet(&i);
  int rc = cdr_read(&i, t, v);
  ck_assert_int_eq(rc, cdr_in_status(&i));
  last_err_off = cdr_in_error_offset(&i);
  if (end)
    *end = cdr_in_pos(&i);
  cdr_in_close(&i);
  return rc;
}

static int decode(const cdr_type *t, void *v, int order, const uint8_t *buf, size_t n,
                  size_t pre, size_t *end)
{
  cdr_opts op = opts_of(order);
  return decode_opts(t, v, &op, order, buf, n, pre, end);
}

#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* Assert that V encodes to exactly EXP (PRE octets 0xEE included) and that
 * decoding EXP into OUT (T->size octets) consumes all of it. */
static void expect_codec(const cdr_type *t, const void *v, void *out, int order, size_t pre,
                         const uint8_t *exp, size_t n)
{
  uint8_t buf[1024];
  size_t len, end;
  ck_assert_int_eq(encode(t, v, order, pre, buf, sizeof buf, &len), CDR_OK);
  ck_assert_uint_eq(len, n);
  ck_assert_mem_eq(buf, exp, n);
  memset(out, 0xCD, t->size);
  ck_assert_int_eq(decode(t, out, order, exp, n, pre, &end), CDR_OK);
  ck_assert_uint_eq(end, n);
}

static uint64_t dbits(double d)
{
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* A reference encoder, independent of the library: aligned integers. */
typedef struct ref {
  uint8_t b[512];
  size_t n;
  int order;
} ref;

static void ref_pad(ref *r, size_t a)
{
  while (r->n % a)
    r->b[r->n++] = 0;
}
static void ref_u(ref *r, uint64_t v, size_t sz)
{
  ref_pad(r, sz);
  for (size_t k = 0; k < sz; k++) {
    size_t sh = r->order == BE ? sz - 1 - k : k;
    r->b[r->n++] = (uint8_t)(v >> (8 * sh));
  }
}
static void ref_str(ref *r, const char *s)
{
  size_t n = strlen(s) + 1;
  ref_u(r, n, 4);
  memcpy(r->b + r->n, s, n);
  r->n += n;
}

/* ================================================================ types */

typedef struct Mixed {
  uint8_t o;
  int16_t s;
  int32_t l;
  int64_t ll;
  double d;
  char *str;
  bool b;
} Mixed;
static const cdr_member mixed_m[] = {
  CDR_MEMBER(Mixed, o, &cdr_type_octet), CDR_MEMBER(Mixed, s, &cdr_type_short),
  CDR_MEMBER(Mixed, l, &cdr_type_long), CDR_MEMBER(Mixed, ll, &cdr_type_longlong),
  CDR_MEMBER(Mixed, d, &cdr_type_double), CDR_MEMBER(Mixed, str, &cdr_type_string),
  CDR_MEMBER(Mixed, b, &cdr_type_boolean),
};
static const cdr_type mixed_t = CDR_STRUCT_TYPE(Mixed, "Mixed", "IDL:Mixed:1.0", mixed_m);

typedef struct Inner {
  int16_t a;
  double d;
} Inner;
static const cdr_member inner_m[] = {
  CDR_MEMBER(Inner, a, &cdr_type_short), CDR_MEMBER(Inner, d, &cdr_type_double),
};
static const cdr_type inner_t = CDR_STRUCT_TYPE(Inner, "Inner", NULL, inner_m);

typedef struct Outer {
  uint8_t x;
  Inner in;
  int32_t y;
} Outer;
static const cdr_member outer_m[] = {
  CDR_MEMBER(Outer, x, &cdr_type_octet), CDR_MEMBER(Outer, in, &inner_t),
  CDR_MEMBER(Outer, y, &cdr_type_long),
};
static const cdr_type outer_t = CDR_STRUCT_TYPE(Outer, "Outer", NULL, outer_m);

/* Flat and homogeneous: one bulk copy in either byte order. */
typedef struct Pt {
  int32_t x, y;
} Pt;
static const cdr_member pt_m[] = {
  CDR_MEMBER(Pt, x, &cdr_type_long), CDR_MEMBER(Pt, y, &cdr_type_long),
};
static const cdr_type pt_t = CDR_STRUCT_TYPE(Pt, "Pt", NULL, pt_m);

/* Flat, mixed sizes, no padding: one copy in the host's order only. */
typedef struct Q {
  int32_t a;
  int16_t b;
  uint16_t c;
} Q;
static const cdr_member q_m[] = {
  CDR_MEMBER(Q, a, &cdr_type_long), CDR_MEMBER(Q, b, &cdr_type_short),
  CDR_MEMBER(Q, c, &cdr_type_ushort),
};
static const cdr_type q_t = CDR_STRUCT_TYPE(Q, "Q", NULL, q_m);

static const char *const color_names[] = { "R", "G", "B" };
static const cdr_type color_t = { .kind = CDR_K_ENUM, .size = 4, .align = 4, .name = "Color",
                                  .u.en = { 3, color_names } };
static const cdr_type rg_t = { .kind = CDR_K_ENUM, .size = 4, .align = 4, .name = "RG",
                               .u.en = { 2, color_names } };

/* union UL switch (long) { case 1: long a; case 2: case 3: string s; default: octet z; } */
typedef struct UL {
  int32_t d;
  union {
    int32_t a;
    char *s;
    uint8_t z;
  } u;
} UL;
static const cdr_union_case ul_cases[] = {
  { 1, "a", &cdr_type_long, offsetof(UL, u.a) },
  { 2, "s", &cdr_type_string, offsetof(UL, u.s) },
  { 3, "s", &cdr_type_string, offsetof(UL, u.s) },
  { 1, "z", &cdr_type_octet, offsetof(UL, u.z) }, /* the default: its label is ignored */
};
static const cdr_type ul_t = { .kind = CDR_K_UNION, .size = sizeof(UL), .align = _Alignof(UL),
                               .name = "UL", .u.un = { &cdr_type_long, offsetof(UL, d), ul_cases, 4, 3 } };
/* The same without the default branch: other discriminators select nothing. */
static const cdr_type ul_implicit_t = { .kind = CDR_K_UNION, .size = sizeof(UL), .align = _Alignof(UL),
                                        .u.un = { &cdr_type_long, offsetof(UL, d), ul_cases, 3, -1 } };

/* union UE switch (Color) { case R: long r; case G: double g; }  (B: no member) */
typedef struct UE {
  uint32_t d;
  union {
    int32_t r;
    double g;
  } u;
} UE;
static const cdr_union_case ue_cases[] = {
  { 0, "r", &cdr_type_long, offsetof(UE, u.r) },
  { 1, "g", &cdr_type_double, offsetof(UE, u.g) },
};
static const cdr_type ue_t = { .kind = CDR_K_UNION, .size = sizeof(UE), .align = _Alignof(UE),
                               .u.un = { &color_t, offsetof(UE, d), ue_cases, 2, -1 } };
/* union switch (RG) { case R: long r; } for C07 (d) */
static const cdr_type urg_t = { .kind = CDR_K_UNION, .size = sizeof(UE), .align = _Alignof(UE),
                                .u.un = { &rg_t, offsetof(UE, d), ue_cases, 1, -1 } };

/* C07: union U switch (boolean) { case TRUE: long v; } */
typedef struct UB {
  bool d;
  int32_t v;
} UB;
static const cdr_union_case ub_cases[] = { { 1, "v", &cdr_type_long, offsetof(UB, v) } };
static const cdr_type ub_t = { .kind = CDR_K_UNION, .size = sizeof(UB), .align = _Alignof(UB),
                               .u.un = { &cdr_type_boolean, offsetof(UB, d), ub_cases, 1, -1 } };

/* union UC switch (char) { case 'a': long x; case 'b': case '\xE9': octet y; default: string s; } */
typedef struct UC {
  char d;
  union {
    int32_t x;
    uint8_t y;
    char *s;
  } u;
} UC;
static const cdr_union_case uc_cases[] = {
  { 'a', "x", &cdr_type_long, offsetof(UC, u.x) },
  { 'b', "y", &cdr_type_octet, offsetof(UC, u.y) },
  { 0xE9, "y", &cdr_type_octet, offsetof(UC, u.y) },
  { 0, "s", &cdr_type_string, offsetof(UC, u.s) },
};
static const cdr_type uc_t = { .kind = CDR_K_UNION, .size = sizeof(UC), .align = _Alignof(UC),
                               .u.un = { &cdr_type_char, offsetof(UC, d), uc_cases, 4, 3 } };

/* union ULL switch (long long) { case -1: octet m; case 0x100000000: long big; } */
typedef struct ULL {
  int64_t d;
  union {
    uint8_t m;
    int32_t big;
  } u;
} ULL;
static const cdr_union_case ull_cases[] = {
  { -1, "m", &cdr_type_octet, offsetof(ULL, u.m) },
  { INT64_C(0x100000000), "big", &cdr_type_long, offsetof(ULL, u.big) },
};
static const cdr_type ull_t = { .kind = CDR_K_UNION, .size = sizeof(ULL), .align = _Alignof(ULL),
                                .u.un = { &cdr_type_longlong, offsetof(ULL, d), ull_cases, 2, -1 } };
static const cdr_type uull_t = { .kind = CDR_K_UNION, .size = sizeof(ULL), .align = _Alignof(ULL),
                                 .u.un = { &cdr_type_ulonglong, offsetof(ULL, d), ull_cases, 2, -1 } };

typedef struct ColorBox {
  uint32_t c;
} ColorBox;
static const cdr_member colorbox_m[] = { CDR_MEMBER(ColorBox, c, &color_t) };
static const cdr_type colorbox_t = CDR_STRUCT_TYPE(ColorBox, "ColorBox", NULL, colorbox_m);

/* Arrays. */
static const cdr_type long3_t = { .kind = CDR_K_ARRAY, .size = 12, .align = 4,
                                  .u.arr = { &cdr_type_long, 3 } };
static const cdr_type long2x3_t = { .kind = CDR_K_ARRAY, .size = 24, .align = 4,
                                    .u.arr = { &long3_t, 2 } };
static const cdr_type short3_t = { .kind = CDR_K_ARRAY, .size = 6, .align = 2,
                                   .u.arr = { &cdr_type_short, 3 } };
static const cdr_type inner2_t = { .kind = CDR_K_ARRAY, .size = sizeof(Inner[2]), .align = _Alignof(Inner),
                                   .u.arr = { &inner_t, 2 } };
static const cdr_type q2_t = { .kind = CDR_K_ARRAY, .size = sizeof(Q[2]), .align = _Alignof(Q),
                               .u.arr = { &q_t, 2 } };
static const cdr_type q2x2_t = { .kind = CDR_K_ARRAY, .size = sizeof(Q[2][2]), .align = _Alignof(Q),
                                 .u.arr = { &q2_t, 2 } };
static const cdr_type str2_t = { .kind = CDR_K_ARRAY, .size = sizeof(char *[2]), .align = _Alignof(char *),
                                 .u.arr = { &cdr_type_string, 2 } };
static const cdr_type bool4_t = { .kind = CDR_K_ARRAY, .size = sizeof(bool[4]), .align = _Alignof(bool),
                                  .u.arr = { &cdr_type_boolean, 4 } };

/* Sequences. */
static const cdr_type ushort_seq_t = CDR_SEQUENCE_TYPE(&cdr_type_ushort, 0);
static const cdr_type long_seq_t = CDR_SEQUENCE_TYPE(&cdr_type_long, 0);
static const cdr_type ulong_seq_t = CDR_SEQUENCE_TYPE(&cdr_type_ulong, 0);
static const cdr_type string_seq_t = CDR_SEQUENCE_TYPE(&cdr_type_string, 0);
static const cdr_type inner_seq_t = CDR_SEQUENCE_TYPE(&inner_t, 0);
static const cdr_type pt_seq_t = CDR_SEQUENCE_TYPE(&pt_t, 0);
static const cdr_type q_seq_t = CDR_SEQUENCE_TYPE(&q_t, 0);
static const cdr_type long_seq_seq_t = CDR_SEQUENCE_TYPE(&long_seq_t, 0);
static const cdr_type bool_seq_t = CDR_SEQUENCE_TYPE(&cdr_type_boolean, 0);
static const cdr_type long_seq2_t = CDR_SEQUENCE_TYPE(&cdr_type_long, 2);

/* Bounded strings. */
static const cdr_type str3_t = { .kind = CDR_K_STRING, .size = sizeof(char *), .align = _Alignof(char *),
                                 .u.str = { 3 } };
static const cdr_type wstr2_t = { .kind = CDR_K_WSTRING, .size = sizeof(cdr_wchar *),
                                  .align = _Alignof(cdr_wchar *), .u.str = { 2 } };

/* struct Node { long v; sequence<Node> kids; }: recursive. */
typedef struct Node {
  int32_t v;
  cdr_seq kids;
} Node;
static const cdr_type node_t;
static const cdr_type node_seq_t = CDR_SEQUENCE_TYPE(&node_t, 0);
static const cdr_member node_m[] = {
  CDR_MEMBER(Node, v, &cdr_type_long), CDR_MEMBER(Node, kids, &node_seq_t),
};
static const cdr_type node_t = CDR_STRUCT_TYPE(Node, "Node", NULL, node_m);

/* An empty struct (C02 b): no members, one octet of C storage. */
static const cdr_type empty_t = { .kind = CDR_K_STRUCT, .size = 1, .align = 1, .name = "Empty",
                                  .u.st = { NULL, 0 } };
static const cdr_type empty_seq_t = CDR_SEQUENCE_TYPE(&empty_t, 0);

/* C03: struct { sequence<ulong> s; ulong after; } */
typedef struct C03 {
  cdr_seq s;
  uint32_t after;
} C03;
static const cdr_member c03_m[] = {
  CDR_MEMBER(C03, s, &ulong_seq_t), CDR_MEMBER(C03, after, &cdr_type_ulong),
};
static const cdr_type c03_t = CDR_STRUCT_TYPE(C03, "C03", NULL, c03_m);

/* C06: struct { boolean b; octet o; } */
typedef struct C06 {
  bool b;
  uint8_t o;
} C06;
static const cdr_member c06_m[] = {
  CDR_MEMBER(C06, b, &cdr_type_boolean), CDR_MEMBER(C06, o, &cdr_type_octet),
};
static const cdr_type c06_t = CDR_STRUCT_TYPE(C06, "C06", NULL, c06_m);

static const cdr_type fixed72_t = { .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed),
                                    .align = _Alignof(cdr_fixed), .u.fx = { 7, 2 } };
static const cdr_type fixed52_t = { .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed),
                                    .align = _Alignof(cdr_fixed), .u.fx = { 5, 2 } };
static const cdr_type fixed41_t = { .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed),
                                    .align = _Alignof(cdr_fixed), .u.fx = { 4, 1 } };

/* ================================================================ structs */

static void mixed_fill(Mixed *m)
{
  memset(m, 0xCC, sizeof *m); /* C padding holds garbage; the wire must not */
  m->o = 0xA1;
  m->s = -2;
  m->l = 0x12345678;
  m->ll = INT64_C(0x0102030405060708);
  m->d = 1.5;
  m->str = "hi";
  m->b = true;
}

START_TEST(test_struct_mixed_exact)
{
  Mixed m, r;
  mixed_fill(&m);
  expect_codec(&mixed_t, &m, &r, BE, 0, BYTES(
    0xA1, 0x00, 0xFF, 0xFE, 0x12, 0x34, 0x56, 0x78,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    0x3F, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03, 'h', 'i', 0x00, 0x01));
  expect_codec(&mixed_t, &m, &r, LE, 0, BYTES(
    0xA1, 0x00, 0xFE, 0xFF, 0x78, 0x56, 0x34, 0x12,
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F,
    0x03, 0x00, 0x00, 0x00, 'h', 'i', 0x00, 0x01));
  expect_codec(&mixed_t, &m, &r, BE, 3, BYTES(
    0xEE, 0xEE, 0xEE, 0xA1, 0xFF, 0xFE, 0x00, 0x00,
    0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
    0x3F, 0xF8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03, 'h', 'i', 0x00, 0x01));
  expect_codec(&mixed_t, &m, &r, LE, 7, BYTES(
    0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xA1,
    0xFE, 0xFF, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12,
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8, 0x3F,
    0x03, 0x00, 0x00, 0x00, 'h', 'i', 0x00, 0x01));
  ck_assert_uint_eq(r.o, 0xA1);
  ck_assert_int_eq(r.s, -2);
  ck_assert_int_eq(r.l, 0x12345678);
  ck_assert_int_eq(r.ll, INT64_C(0x0102030405060708));
  ck_assert(r.d == 1.5);
  ck_assert_str_eq(r.str, "hi");
  ck_assert(r.b == true);
}
END_TEST

/* Every starting offset 0..7, both orders, against the reference encoder. */
START_TEST(test_struct_mixed_offsets)
{
  Mixed m, r;
  mixed_fill(&m);
  for (int order = 0; order <= 1; order++)
    for (size_t pre = 0; pre < 8; pre++) {
      ref x = { .n = 0, .order = order };
      for (size_t k = 0; k < pre; k++)
        x.b[x.n++] = 0xEE;
      ref_u(&x, 0xA1, 1);
      ref_u(&x, 0xFFFE, 2);
      ref_u(&x, 0x12345678, 4);
      ref_u(&x, UINT64_C(0x0102030405060708), 8);
      ref_u(&x, dbits(1.5), 8);
      ref_str(&x, "hi");
      ref_u(&x, 1, 1);
      expect_codec(&mixed_t, &m, &r, order, pre, x.b, x.n);
      ck_assert_int_eq(r.s, -2);
      ck_assert_int_eq(r.ll, INT64_C(0x0102030405060708));
      ck_assert_str_eq(r.str, "hi");
      ck_assert(r.b);
    }
}
END_TEST

START_TEST(test_struct_nested)
{
  Outer v, r;
  memset(&v, 0xCC, sizeof v);
  v.x = 1;
  v.in.a = 0x0203;
  v.in.d = 2.0;
  v.y = 0x0A0B0C0D;
  expect_codec(&outer_t, &v, &r, BE, 0, BYTES(
    0x01, 0x00, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x0A, 0x0B, 0x0C, 0x0D));
  expect_codec(&outer_t, &v, &r, LE, 0, BYTES(
    0x01, 0x00, 0x03, 0x02, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
    0x0D, 0x0C, 0x0B, 0x0A));
  /* At offset 5 the short lands at 6 and the double at 8. */
  expect_codec(&outer_t, &v, &r, BE, 5, BYTES(
    0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0x01, 0x02, 0x03,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x0A, 0x0B, 0x0C, 0x0D));
  ck_assert_uint_eq(r.x, 1);
  ck_assert_int_eq(r.in.a, 0x0203);
  ck_assert(r.in.d == 2.0);
  ck_assert_int_eq(r.y, 0x0A0B0C0D);
}
END_TEST

START_TEST(test_struct_flat_both_paths)
{
  /* Q is flat with mixed sizes: the host order copies it whole, the other
   * order member by member; both must give the CDR layout. */
  Q v = { 0x01020304, -3, 0xA0B0 }, r;
  expect_codec(&q_t, &v, &r, BE, 0, BYTES(0x01, 0x02, 0x03, 0x04, 0xFF, 0xFD, 0xA0, 0xB0));
  expect_codec(&q_t, &v, &r, LE, 0, BYTES(0x04, 0x03, 0x02, 0x01, 0xFD, 0xFF, 0xB0, 0xA0));
  expect_codec(&q_t, &v, &r, LE, 2, BYTES(0xEE, 0xEE, 0x00, 0x00, 0x04, 0x03, 0x02, 0x01,
                                          0xFD, 0xFF, 0xB0, 0xA0));
  ck_assert_int_eq(r.a, 0x01020304);
  ck_assert_int_eq(r.b, -3);
  ck_assert_uint_eq(r.c, 0xA0B0);
}
END_TEST

START_TEST(test_struct_nonprimitive_members)
{
  /* wchar, fixed and long double inside a struct. */
  typedef struct W {
    cdr_wchar c;
    cdr_fixed f;
    long double ld;
  } W;
  const cdr_member wm[] = {
    CDR_MEMBER(W, c, &cdr_type_wchar), CDR_MEMBER(W, f, &fixed52_t),
    CDR_MEMBER(W, ld, &cdr_type_longdouble),
  };
  const cdr_type wt = CDR_STRUCT_TYPE(W, "W", NULL, wm);
  W v, r;
  memset(&v, 0, sizeof v);
  v.c = 'A';
  v.f.digits = 5;
  v.f.scale = 2;
  v.f.negative = 1;
  const uint8_t d[5] = { 1, 2, 3, 4, 5 };
  memcpy(v.f.d, d, 5);
  v.ld = 1.0L;
  /* GIOP 1.2 wchar: octet count 2, UTF-16BE; fixed 123.45 negative: 12 34 5D;
   * long double 1.0 as binary128 on 8. */
  expect_codec(&wt, &v, &r, BE, 0, BYTES(
    0x02, 0x00, 0x41, 0x12, 0x34, 0x5D, 0x00, 0x00,
    0x3F, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00));
  expect_codec(&wt, &v, &r, LE, 0, BYTES(
    0x02, 0x00, 0x41, 0x12, 0x34, 0x5D, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0x3F));
  ck_assert_uint_eq(r.c, 'A');
  ck_assert_uint_eq(r.f.digits, 5);
  ck_assert_int_eq(r.f.scale, 2);
  ck_assert_uint_eq(r.f.negative, 1);
  ck_assert_mem_eq(r.f.d, d, 5);
  ck_assert(r.ld == 1.0L);
}
END_TEST

START_TEST(test_fixed_shape_conversion)
{
  uint8_t buf[64];
  size_t n;
  cdr_fixed f;
  memset(&f, 0, sizeof f);
  /* 12.3 as fixed<3,1> written as fixed<5,2>: 012.30 -> 01 23 0C */
  f.digits = 3;
  f.scale = 1;
  f.d[0] = 1;
  f.d[1] = 2;
  f.d[2] = 3;
  ck_assert_int_eq(encode(&fixed52_t, &f, BE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_mem_eq(buf, ((const uint8_t[]){ 0x01, 0x23, 0x0C }), 3);
  /* 123.40 (fixed<5,2>) into fixed<4,1>: 123.4 fits exactly: 01 23 4C. */
  cdr_fixed g;
  memset(&g, 0, sizeof g);
  g.digits = 5;
  g.scale = 2;
  const uint8_t gd[5] = { 1, 2, 3, 4, 0 };
  memcpy(g.d, gd, 5);
  ck_assert_int_eq(encode(&fixed41_t, &g, BE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_mem_eq(buf, ((const uint8_t[]){ 0x01, 0x23, 0x4C }), 3);
  /* 123.45 does not fit fixed<4,1>, nor 1234.0 */
  g.d[4] = 5;
  ck_assert_int_eq(encode(&fixed41_t, &g, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  g.d[4] = 0;
  g.digits = 5;
  g.scale = 1;
  ck_assert_int_eq(encode(&fixed41_t, &g, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
}
END_TEST

/* ================================================================ unions */

START_TEST(test_union_explicit_default)
{
  UL v, r;
  memset(&v, 0, sizeof v);
  v.d = 1;
  v.u.a = 0x11223344;
  expect_codec(&ul_t, &v, &r, BE, 0, BYTES(0, 0, 0, 1, 0x11, 0x22, 0x33, 0x44));
  ck_assert_int_eq(r.d, 1);
  ck_assert_int_eq(r.u.a, 0x11223344);
  v.d = 3;
  v.u.s = "ab";
  expect_codec(&ul_t, &v, &r, BE, 0, BYTES(0, 0, 0, 3, 0, 0, 0, 3, 'a', 'b', 0));
  ck_assert_str_eq(r.u.s, "ab");
  v.d = 2;
  expect_codec(&ul_t, &v, &r, LE, 0, BYTES(2, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 0));
  ck_assert_int_eq(r.d, 2);
  ck_assert_str_eq(r.u.s, "ab");
  v.d = 7;
  v.u.z = 0x55;
  expect_codec(&ul_t, &v, &r, BE, 0, BYTES(0, 0, 0, 7, 0x55));
  ck_assert_int_eq(r.d, 7);
  ck_assert_uint_eq(r.u.z, 0x55);
  v.d = -100;
  expect_codec(&ul_t, &v, &r, LE, 1, BYTES(0xEE, 0, 0, 0, 0x9C, 0xFF, 0xFF, 0xFF, 0x55));
  ck_assert_int_eq(r.d, -100);
  ck_assert_uint_eq(r.u.z, 0x55);
}
END_TEST

START_TEST(test_union_implicit_default)
{
  UL v, r;
  memset(&v, 0, sizeof v);
  v.d = 7;
  v.u.z = 0x55;
  /* No branch: the discriminator alone. */
  expect_codec(&ul_implicit_t, &v, &r, BE, 0, BYTES(0, 0, 0, 7));
  ck_assert_int_eq(r.d, 7);
  v.d = 1;
  v.u.a = -1;
  expect_codec(&ul_implicit_t, &v, &r, LE, 0, BYTES(1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF));
  ck_assert_int_eq(r.u.a, -1);
}
END_TEST

START_TEST(test_union_enum)
{
  UE v, r;
  memset(&v, 0, sizeof v);
  v.d = 1;
  v.u.g = 1.0;
  expect_codec(&ue_t, &v, &r, BE, 0, BYTES(0, 0, 0, 1, 0, 0, 0, 0,
                                           0x3F, 0xF0, 0, 0, 0, 0, 0, 0));
  expect_codec(&ue_t, &v, &r, LE, 0, BYTES(1, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 0, 0, 0xF0, 0x3F));
  ck_assert(r.u.g == 1.0);
  v.d = 0;
  v.u.r = 9;
  expect_codec(&ue_t, &v, &r, BE, 0, BYTES(0, 0, 0, 0, 0, 0, 0, 9));
  v.d = 2; /* B: no member */
  expect_codec(&ue_t, &v, &r, BE, 0, BYTES(0, 0, 0, 2));
  ck_assert_uint_eq(r.d, 2);
  /* A discriminator outside the enum cannot be written. */
  uint8_t buf[64];
  size_t n;
  v.d = 3;
  ck_assert_int_eq(encode(&ue_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
}
END_TEST

START_TEST(test_union_boolean)
{
  UB v, r;
  memset(&v, 0, sizeof v);
  v.d = true;
  v.v = 7;
  expect_codec(&ub_t, &v, &r, BE, 0, BYTES(1, 0, 0, 0, 0, 0, 0, 7));
  expect_codec(&ub_t, &v, &r, LE, 0, BYTES(1, 0, 0, 0, 7, 0, 0, 0));
  ck_assert(r.d);
  ck_assert_int_eq(r.v, 7);
  v.d = false;
  expect_codec(&ub_t, &v, &r, LE, 0, BYTES(0));
  ck_assert(!r.d);
  /* A bool object holding 2 is refused, not sent as 02. */
  uint8_t buf[16];
  size_t n;
  memset(&v.d, 2, 1);
  ck_assert_int_eq(encode(&ub_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
}
END_TEST

START_TEST(test_union_char)
{
  UC v, r;
  memset(&v, 0, sizeof v);
  v.d = 'a';
  v.u.x = 0x01020304;
  expect_codec(&uc_t, &v, &r, BE, 0, BYTES('a', 0, 0, 0, 1, 2, 3, 4));
  ck_assert_int_eq(r.u.x, 0x01020304);
  v.d = 'b';
  v.u.y = 9;
  expect_codec(&uc_t, &v, &r, LE, 0, BYTES('b', 9));
  ck_assert_uint_eq(r.u.y, 9);
  v.d = (char)0xE9; /* labels are octets: 0xE9 even where char is signed */
  v.u.y = 7;
  expect_codec(&uc_t, &v, &r, BE, 0, BYTES(0xE9, 7));
  ck_assert_uint_eq((uint8_t)r.d, 0xE9);
  ck_assert_uint_eq(r.u.y, 7);
  v.d = 'z';
  v.u.s = "q";
  expect_codec(&uc_t, &v, &r, BE, 0, BYTES('z', 0, 0, 0, 0, 0, 0, 2, 'q', 0));
  ck_assert_str_eq(r.u.s, "q");
}
END_TEST

START_TEST(test_union_longlong)
{
  ULL v, r;
  memset(&v, 0, sizeof v);
  v.d = -1;
  v.u.m = 5;
  expect_codec(&ull_t, &v, &r, BE, 0, BYTES(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 5));
  ck_assert_uint_eq(r.u.m, 5);
  v.d = INT64_C(0x100000000);
  v.u.big = 0x0A0B0C0D;
  expect_codec(&ull_t, &v, &r, BE, 0, BYTES(0, 0, 0, 1, 0, 0, 0, 0, 0x0A, 0x0B, 0x0C, 0x0D));
  expect_codec(&ull_t, &v, &r, LE, 4, BYTES(0xEE, 0xEE, 0xEE, 0xEE, 0, 0, 0, 0,
                                            0, 0, 0, 0, 1, 0, 0, 0, 0x0D, 0x0C, 0x0B, 0x0A));
  ck_assert_int_eq(r.d, INT64_C(0x100000000));
  ck_assert_int_eq(r.u.big, 0x0A0B0C0D);
  v.d = 7;
  expect_codec(&ull_t, &v, &r, LE, 0, BYTES(7, 0, 0, 0, 0, 0, 0, 0));
  /* unsigned long long: label -1 is 0xFFFFFFFFFFFFFFFF */
  uint64_t all = UINT64_MAX;
  memcpy(&v.d, &all, 8);
  v.u.m = 6;
  expect_codec(&uull_t, &v, &r, LE, 0, BYTES(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 6));
  ck_assert_uint_eq(r.u.m, 6);
}
END_TEST

/* ================================================================ enums */

START_TEST(test_enum)
{
  ColorBox v = { 2 }, r;
  expect_codec(&colorbox_t, &v, &r, BE, 0, BYTES(0, 0, 0, 2));
  expect_codec(&colorbox_t, &v, &r, LE, 1, BYTES(0xEE, 0, 0, 0, 2, 0, 0, 0));
  ck_assert_uint_eq(r.c, 2);
  uint8_t buf[16];
  size_t n;
  v.c = 3;
  ck_assert_int_eq(encode(&colorbox_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_int_eq(encode(&color_t, &v.c, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  const uint8_t three[] = { 0, 0, 0, 3 };
  ck_assert_int_eq(decode(&colorbox_t, &r, BE, three, 4, 0, NULL), CDR_E_VALUE);
}
END_TEST

/* ================================================================ arrays */

START_TEST(test_array_2d)
{
  int32_t m[2][3] = { { 1, 2, 3 }, { 4, 5, -1 } }, r[2][3];
  expect_codec(&long2x3_t, m, r, BE, 1, BYTES(
    0xEE, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
    0, 0, 0, 4, 0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF));
  expect_codec(&long2x3_t, m, r, LE, 0, BYTES(
    1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF));
  ck_assert_mem_eq(r, m, sizeof m);
  int16_t s[3] = { 1, -1, 0x0203 }, rs[3];
  expect_codec(&short3_t, s, rs, BE, 1, BYTES(0xEE, 0, 0, 1, 0xFF, 0xFF, 2, 3));
  expect_codec(&short3_t, s, rs, LE, 0, BYTES(1, 0, 0xFF, 0xFF, 3, 2));
  ck_assert_mem_eq(rs, s, sizeof s);
}
END_TEST

START_TEST(test_array_of_structs)
{
  Inner a[2], r[2];
  memset(a, 0xCC, sizeof a);
  a[0].a = 1;
  a[0].d = 2.0;
  a[1].a = -1;
  a[1].d = -2.0;
  expect_codec(&inner2_t, a, r, BE, 0, BYTES(
    0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0,
    0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0));
  ck_assert_int_eq(r[1].a, -1);
  ck_assert(r[1].d == -2.0);
  /* Q[2][2]: a flat 2-D array of mixed-size structs. */
  Q q[2][2] = { { { 1, 2, 3 }, { 4, 5, 6 } }, { { 7, 8, 9 }, { 10, 11, 12 } } }, rq[2][2];
  ref x = { .n = 0, .order = BE };
  for (int order = 0; order <= 1; order++) {
    x.n = 0;
    x.order = order;
    x.b[x.n++] = 0xEE;
    for (int k = 0; k < 4; k++) {
      ref_u(&x, (uint32_t)q[k / 2][k % 2].a, 4);
      ref_u(&x, (uint16_t)q[k / 2][k % 2].b, 2);
      ref_u(&x, q[k / 2][k % 2].c, 2);
    }
    expect_codec(&q2x2_t, q, rq, order, 1, x.b, x.n);
    ck_assert_mem_eq(rq, q, sizeof q);
  }
  char *names[2] = { "x", "yz" }, *rn[2];
  expect_codec(&str2_t, names, rn, LE, 0, BYTES(2, 0, 0, 0, 'x', 0, 0, 0, 3, 0, 0, 0, 'y', 'z', 0));
  ck_assert_str_eq(rn[0], "x");
  ck_assert_str_eq(rn[1], "yz");
}
END_TEST

START_TEST(test_array_boolean)
{
  bool b[4] = { true, false, true, true }, r[4];
  expect_codec(&bool4_t, b, r, BE, 0, BYTES(1, 0, 1, 1));
  ck_assert_mem_eq(r, b, sizeof b);
  uint8_t buf[16];
  size_t n;
  memset(&b[2], 2, 1);
  ck_assert_int_eq(encode(&bool4_t, b, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  const uint8_t bad[] = { 0, 1, 1, 9 };
  ck_assert_int_eq(decode(&bool4_t, r, BE, bad, 4, 0, NULL), CDR_E_VALUE);
}
END_TEST

/* ================================================================ sequences */

START_TEST(test_seq_primitive)
{
  uint16_t e[2] = { 1, 0x0203 };
  cdr_seq v = { 2, 2, e, 0 }, r;
  expect_codec(&ushort_seq_t, &v, &r, BE, 1, BYTES(0xEE, 0, 0, 0, 0, 0, 0, 2, 0, 1, 2, 3));
  expect_codec(&ushort_seq_t, &v, &r, LE, 0, BYTES(2, 0, 0, 0, 1, 0, 3, 2));
  ck_assert_uint_eq(r._length, 2);
  ck_assert_mem_eq(r._buffer, e, sizeof e);
  cdr_seq empty = { 0, 0, NULL, 0 };
  expect_codec(&ushort_seq_t, &empty, &r, BE, 0, BYTES(0, 0, 0, 0));
  ck_assert_uint_eq(r._length, 0);
  ck_assert_ptr_null(r._buffer);
  /* A non-empty sequence needs a buffer. */
  uint8_t buf[16];
  size_t n;
  cdr_seq bad = { 1, 1, NULL, 0 };
  ck_assert_int_eq(encode(&ushort_seq_t, &bad, BE, 0, buf, sizeof buf, &n), CDR_E_INVALID);
}
END_TEST

START_TEST(test_seq_strings)
{
  char *e[2] = { "a", "" };
  cdr_seq v = { 2, 2, e, 0 }, r;
  expect_codec(&string_seq_t, &v, &r, BE, 0, BYTES(0, 0, 0, 2, 0, 0, 0, 2, 'a', 0, 0, 0,
                                                   0, 0, 0, 1, 0));
  expect_codec(&string_seq_t, &v, &r, LE, 0, BYTES(2, 0, 0, 0, 2, 0, 0, 0, 'a', 0, 0, 0,
                                                   1, 0, 0, 0, 0));
  ck_assert_uint_eq(r._length, 2);
  ck_assert_str_eq(((char **)r._buffer)[0], "a");
  ck_assert_str_eq(((char **)r._buffer)[1], "");
  /* A NULL string cannot be written. */
  uint8_t buf[64];
  size_t n;
  e[1] = NULL;
  ck_assert_int_eq(encode(&string_seq_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_INVALID);
}
END_TEST

START_TEST(test_seq_structs)
{
  /* Inner has padding: element by element. */
  Inner in[2];
  memset(in, 0xCC, sizeof in);
  in[0].a = 1;
  in[0].d = 1.0;
  in[1].a = 2;
  in[1].d = 2.0;
  cdr_seq v = { 2, 2, in, 0 }, r;
  expect_codec(&inner_seq_t, &v, &r, BE, 0, BYTES(
    0, 0, 0, 2, 0, 1, 0, 0, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0,
    0, 2, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0));
  ck_assert_uint_eq(r._length, 2);
  ck_assert_int_eq(((Inner *)r._buffer)[1].a, 2);
  ck_assert(((Inner *)r._buffer)[1].d == 2.0);
  /* Pt is flat and homogeneous: one bulk copy, swapped or not. */
  Pt p[2] = { { 1, 2 }, { 3, -4 } };
  cdr_seq pv = { 2, 2, p, 0 };
  expect_codec(&pt_seq_t, &pv, &r, BE, 0, BYTES(0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2,
                                                0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFC));
  ck_assert_mem_eq(r._buffer, p, sizeof p);
  expect_codec(&pt_seq_t, &pv, &r, LE, 0, BYTES(2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
                                                3, 0, 0, 0, 0xFC, 0xFF, 0xFF, 0xFF));
  ck_assert_mem_eq(r._buffer, p, sizeof p);
  /* Q is flat with mixed sizes. */
  Q q[2] = { { 1, 2, 3 }, { -1, -2, 0xFFFF } };
  cdr_seq qv = { 2, 2, q, 0 };
  expect_codec(&q_seq_t, &qv, &r, BE, 0, BYTES(0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0, 3,
                                               0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF));
  ck_assert_mem_eq(r._buffer, q, sizeof q);
  expect_codec(&q_seq_t, &qv, &r, LE, 0, BYTES(2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 3, 0,
                                               0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF));
  ck_assert_mem_eq(r._buffer, q, sizeof q);
}
END_TEST

/* Structs with padding inside (Inner: short, 6 octets, double) at every
 * offset, both orders: C padding holds 0xCC, the wire must hold zeros
 * whether elements go one by one or as one copy. */
START_TEST(test_seq_structs_padding_offsets)
{
  Inner in[5];
  memset(in, 0xCC, sizeof in);
  for (int k = 0; k < 5; k++) {
    in[k].a = (int16_t)(0x0100 * k - 3);
    in[k].d = k * 0.25 - 1.0;
  }
  cdr_seq v = { 5, 5, in, 0 }, r;
  Inner ra[2];
  for (int order = 0; order <= 1; order++)
    for (size_t pre = 0; pre < 8; pre++) {
      ref x = { .n = 0, .order = order };
      for (size_t k = 0; k < pre; k++)
        x.b[x.n++] = 0xEE;
      ref_u(&x, 5, 4);
      for (int k = 0; k < 5; k++) {
        ref_u(&x, (uint16_t)in[k].a, 2);
        ref_u(&x, dbits(in[k].d), 8);
      }
      expect_codec(&inner_seq_t, &v, &r, order, pre, x.b, x.n);
      ck_assert_uint_eq(r._length, 5);
      for (int k = 0; k < 5; k++) {
        ck_assert_int_eq(((Inner *)r._buffer)[k].a, in[k].a);
        ck_assert(((Inner *)r._buffer)[k].d == in[k].d);
      }
      x.n = pre;
      for (int k = 0; k < 2; k++) {
        ref_u(&x, (uint16_t)in[k].a, 2);
        ref_u(&x, dbits(in[k].d), 8);
      }
      expect_codec(&inner2_t, in, ra, order, pre, x.b, x.n);
      ck_assert_int_eq(ra[1].a, in[1].a);
      ck_assert(ra[1].d == in[1].d);
    }
}
END_TEST

START_TEST(test_seq_nested)
{
  int32_t a[2] = { 1, 2 }, c[1] = { 3 };
  cdr_seq inner[3] = { { 2, 2, a, 0 }, { 0, 0, NULL, 0 }, { 1, 1, c, 0 } };
  cdr_seq v = { 3, 3, inner, 0 }, r;
  expect_codec(&long_seq_seq_t, &v, &r, BE, 0, BYTES(
    0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2,
    0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3));
  expect_codec(&long_seq_seq_t, &v, &r, LE, 0, BYTES(
    3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0));
  cdr_seq *rs = r._buffer;
  ck_assert_uint_eq(r._length, 3);
  ck_assert_uint_eq(rs[0]._length, 2);
  ck_assert_int_eq(((int32_t *)rs[0]._buffer)[1], 2);
  ck_assert_uint_eq(rs[1]._length, 0);
  ck_assert_uint_eq(rs[2]._length, 1);
  ck_assert_int_eq(((int32_t *)rs[2]._buffer)[0], 3);
}
END_TEST

START_TEST(test_seq_no_arena)
{
  const uint8_t w[] = { 0, 0, 0, 1, 0, 0, 0, 5 };
  cdr_in i;
  memset(&i, 0, sizeof i);
  cdr_seq r = { 99, 99, (void *)&r, 0 };
  ck_assert_int_eq(cdr_in_init(&i, w, sizeof w, BE, NULL), CDR_OK);
  ck_assert_int_eq(cdr_read(&i, &long_seq_t, &r), CDR_E_STATE);
  ck_assert_ptr_null(r._buffer);
  cdr_in_close(&i);
  /* An empty sequence needs no arena. */
  memset(&i, 0, sizeof i);
  ck_assert_int_eq(cdr_in_init(&i, w, 4, LE, NULL), CDR_OK);
  ck_assert_int_eq(cdr_read(&i, &long_seq_t, &r), CDR_E_LENGTH); /* 0x01000000 longs */
  cdr_in_close(&i);
  const uint8_t z[] = { 0, 0, 0, 0 };
  memset(&i, 0, sizeof i);
  ck_assert_int_eq(cdr_in_init(&i, z, 4, LE, NULL), CDR_OK);
  ck_assert_int_eq(cdr_read(&i, &long_seq_t, &r), CDR_OK);
  ck_assert_uint_eq(r._length, 0);
  cdr_in_close(&i);
}
END_TEST

START_TEST(test_seq_arena_limit)
{
  int32_t e[16] = { 0 };
  cdr_seq v = { 16, 16, e, 0 }, r;
  uint8_t buf[128];
  size_t n;
  ck_assert_int_eq(encode(&long_seq_t, &v, BE, 0, buf, sizeof buf, &n), CDR_OK);
  cdr_arena_set_max(&arena, 32);
  ck_assert_int_eq(decode(&long_seq_t, &r, BE, buf, n, 0, NULL), CDR_E_NOMEM);
  ck_assert_ptr_null(r._buffer);
}
END_TEST

/* ================================================================ bounds */

START_TEST(test_bounded_string)
{
  uint8_t buf[64];
  size_t n;
  char *s = "abc", *r;
  expect_codec(&str3_t, &s, &r, BE, 0, BYTES(0, 0, 0, 4, 'a', 'b', 'c', 0));
  s = "abcd";
  ck_assert_int_eq(encode(&str3_t, &s, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_int_eq(encode(&cdr_type_string, &s, BE, 0, buf, sizeof buf, &n), CDR_OK);
  r = (char *)buf;
  ck_assert_int_eq(decode(&str3_t, &r, BE, buf, n, 0, NULL), CDR_E_VALUE);
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(last_err_off, 0);
  /* After an octet the error is at the length field (4), not the padding. */
  ck_assert_int_eq(encode(&cdr_type_string, &s, LE, 1, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode(&str3_t, &r, LE, buf, n, 1, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 4);
  /* The bound counts characters: with UTF-8 as native and transmission
   * code set, "\u00e9\u00fc\u00e0" is 6 octets but 3 characters. */
  cdr_opts op = opts_of(BE);
  op.ncs_c = op.tcs_c = CDR_CS_UTF8;
  s = "\xC3\xA9\xC3\xBC\xC3\xA0";
  ck_assert_int_eq(encode_opts(&str3_t, &s, &op, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_uint_eq(n, 11);
  ck_assert_int_eq(decode_opts(&str3_t, &r, &op, BE, buf, n, 0, NULL), CDR_OK);
  ck_assert_str_eq(r, s);
  s = "\xC3\xA9\xC3\xBC\xC3\xA0x";
  ck_assert_int_eq(encode_opts(&str3_t, &s, &op, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_int_eq(encode_opts(&cdr_type_string, &s, &op, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode_opts(&str3_t, &r, &op, BE, buf, n, 0, NULL), CDR_E_VALUE);
}
END_TEST

START_TEST(test_bounded_wstring)
{
  uint8_t buf[64];
  size_t n;
  cdr_wchar ab[] = { 'a', 'b', 0 }, abc[] = { 'a', 'b', 'c', 0 };
  cdr_wchar *s = ab, *r;
  /* GIOP 1.2: octet length, BOM in the stream's order, UTF-16 units. */
  expect_codec(&wstr2_t, &s, &r, BE, 0, BYTES(0, 0, 0, 6, 0xFE, 0xFF, 0, 'a', 0, 'b'));
  ck_assert_uint_eq(r[0], 'a');
  ck_assert_uint_eq(r[2], 0);
  s = abc;
  ck_assert_int_eq(encode(&wstr2_t, &s, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_int_eq(encode(&cdr_type_wstring, &s, LE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode(&wstr2_t, &r, LE, buf, n, 0, NULL), CDR_E_VALUE);
}
END_TEST

START_TEST(test_bounded_sequence)
{
  uint8_t buf[64];
  size_t n;
  int32_t e[3] = { 1, 2, 3 };
  cdr_seq v = { 2, 2, e, 0 }, r;
  expect_codec(&long_seq2_t, &v, &r, BE, 0, BYTES(0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2));
  v._length = 3;
  ck_assert_int_eq(encode(&long_seq2_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_int_eq(encode(&long_seq_t, &v, BE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode(&long_seq2_t, &r, BE, buf, n, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_ptr_null(r._buffer);
  ck_assert_uint_eq(r._length, 0);
}
END_TEST

/* ================================================================ depth */

/* A chain of LEN nodes in NODES (values 0..LEN-1). */
static void make_chain(Node *nodes, int len)
{
  for (int k = 0; k < len; k++) {
    nodes[k].v = k;
    nodes[k].kids._buffer = k + 1 < len ? &nodes[k + 1] : NULL;
    nodes[k].kids._length = k + 1 < len ? 1 : 0;
  }
}

START_TEST(test_recursive_depth_limit)
{
  static Node nodes[40];
  static uint8_t buf[1024];
  size_t n;
  Node r;
  /* Each node is a struct level plus a sequence level: with max_depth 10, a
   * chain of 5 nodes (levels 0..9) fits and 6 do not. */
  cdr_opts op = opts_of(BE);
  op.max_depth = 10;
  make_chain(nodes, 5);
  ck_assert_int_eq(encode_opts(&node_t, nodes, &op, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_uint_eq(n, 5 * 8);
  ck_assert_int_eq(decode_opts(&node_t, &r, &op, BE, buf, n, 0, NULL), CDR_OK);
  const Node *p = &r;
  for (int k = 0; k < 5; k++) {
    ck_assert_int_eq(p->v, k);
    ck_assert_uint_eq(p->kids._length, k < 4 ? 1 : 0);
    p = p->kids._buffer;
  }
  make_chain(nodes, 6);
  ck_assert_int_eq(encode_opts(&node_t, nodes, &op, 0, buf, sizeof buf, &n), CDR_E_LIMIT);
  ck_assert_int_eq(encode(&node_t, nodes, BE, 0, buf, sizeof buf, &n), CDR_OK);
  memset(&r, 0xAB, sizeof r);
  ck_assert_int_eq(decode_opts(&node_t, &r, &op, BE, buf, n, 0, NULL), CDR_E_LIMIT);
  ck_assert_ptr_null(r.kids._buffer);
  /* Default max_depth 64: 32 nodes, not 33. */
  make_chain(nodes, 32);
  ck_assert_int_eq(encode(&node_t, nodes, LE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode(&node_t, &r, LE, buf, n, 0, NULL), CDR_OK);
  make_chain(nodes, 33);
  ck_assert_int_eq(encode(&node_t, nodes, LE, 0, buf, sizeof buf, &n), CDR_E_LIMIT);
}
END_TEST

START_TEST(test_self_sequence_depth)
{
  /* A malformed descriptor: a sequence of itself.  Input of nested counts of
   * 1 must stop at max_depth, not exhaust the stack. */
  static cdr_type selfseq;
  selfseq.kind = CDR_K_SEQUENCE;
  selfseq.size = sizeof(cdr_seq);
  selfseq.align = _Alignof(cdr_seq);
  selfseq.u.seq.elem = &selfseq;
  uint8_t w[4 * 1000];
  for (size_t k = 0; k < sizeof w; k += 4) {
    w[k] = w[k + 1] = w[k + 2] = 0;
    w[k + 3] = 1;
  }
  cdr_seq r;
  ck_assert_int_eq(decode(&selfseq, &r, BE, w, sizeof w, 0, NULL), CDR_E_LIMIT);
  ck_assert_ptr_null(r._buffer);
}
END_TEST

/* ================================================================ errors */

START_TEST(test_read_error_leaves_no_dangling_pointers)
{
  typedef struct E {
    char *s;
    cdr_seq q;
    int32_t x;
    char *t;
    UL u;
  } E;
  const cdr_member em[] = {
    CDR_MEMBER(E, s, &cdr_type_string), CDR_MEMBER(E, q, &string_seq_t),
    CDR_MEMBER(E, x, &cdr_type_long), CDR_MEMBER(E, t, &cdr_type_string),
    CDR_MEMBER(E, u, &ul_t),
  };
  const cdr_type et = CDR_STRUCT_TYPE(E, "E", NULL, em);
  E v, r;
  char *names[2] = { "n1", "n2" };
  memset(&v, 0, sizeof v);
  v.s = "s";
  v.q._buffer = names;
  v.q._length = 2;
  v.x = 5;
  v.t = "t";
  v.u.d = 2;
  v.u.u.s = "u";
  uint8_t buf[128];
  size_t n;
  ck_assert_int_eq(encode(&et, &v, BE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_int_eq(decode(&et, &r, BE, buf, n, 0, NULL), CDR_OK);
  ck_assert_str_eq(r.u.u.s, "u");
  /* Truncate at every length: every pointer is NULL afterwards. */
  for (size_t cut = 0; cut < n; cut++) {
    memset(&r, 0xAB, sizeof r);
    int rc = decode(&et, &r, BE, buf, cut, 0, NULL);
    ck_assert_msg(rc == CDR_E_SHORT || rc == CDR_E_LENGTH, "cut %zu: %d", cut, rc);
    ck_assert_ptr_null(r.s);
    ck_assert_ptr_null(r.q._buffer);
    ck_assert_ptr_null(r.t);
    ck_assert_ptr_null(r.u.u.s);
  }
  /* A stream already failed: DST is cleaned too. */
  cdr_in i;
  memset(&i, 0, sizeof i);
  ck_assert_int_eq(cdr_in_init(&i, buf, 2, BE, NULL), CDR_OK);
  cdr_in_set_arena(&i, &arena);
  (void)cdr_get_ulong(&i);
  memset(&r, 0xAB, sizeof r);
  ck_assert_int_eq(cdr_read(&i, &et, &r), CDR_E_SHORT);
  ck_assert_ptr_null(r.s);
  cdr_in_close(&i);
}
END_TEST

static int custom_write(cdr_out *o, const void *src, const void *ud)
{
  const Pt *p = src;
  (void)ud;
  if (p->x < 0)
    return CDR_E_VALUE;
  cdr_put_long(o, p->y); /* swapped on purpose */
  cdr_put_long(o, p->x);
  return cdr_out_status(o);
}
static int custom_read(cdr_in *i, void *dst, const void *ud)
{
  Pt *p = dst;
  (void)ud;
  p->y = cdr_get_long(i);
  p->x = cdr_get_long(i);
  return cdr_in_status(i);
}

START_TEST(test_custom)
{
  const cdr_type ct = { .kind = CDR_K_CUSTOM, .size = sizeof(Pt), .align = _Alignof(Pt),
                        .u.custom = { custom_write, custom_read, NULL, 8 } };
  Pt v = { 1, 2 }, r;
  expect_codec(&ct, &v, &r, BE, 0, BYTES(0, 0, 0, 2, 0, 0, 0, 1));
  ck_assert_int_eq(r.x, 1);
  ck_assert_int_eq(r.y, 2);
  uint8_t buf[16];
  size_t n;
  v.x = -1;
  ck_assert_int_eq(encode(&ct, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
  ck_assert_uint_eq(cdr_type_min_wire(&ct), 8);
  ck_assert_int_eq(cdr_type_validate(&ct), CDR_OK);
}
END_TEST

/* CDR_K_VALUE members go through the value module's hooks. */
typedef struct BoxV {
  cdr_value hdr;
  int32_t x;
} BoxV;
static const cdr_member boxv_m[] = { CDR_MEMBER(BoxV, x, &cdr_type_long) };
static cdr_value_type boxv_vt = { .name = "BoxV", .repo_id = "IDL:BoxV:1.0", .members = boxv_m,
                                  .nmembers = 1, .size = sizeof(BoxV), .align = _Alignof(BoxV) };
typedef struct Holder {
  int32_t a;
  BoxV *v;
} Holder;

START_TEST(test_value_member)
{
  const cdr_type vt = { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = _Alignof(void *),
                        .u.val = { &boxv_vt } };
  const cdr_member hm[] = { CDR_MEMBER(Holder, a, &cdr_type_long), CDR_MEMBER(Holder, v, &vt) };
  const cdr_type ht = CDR_STRUCT_TYPE(Holder, "Holder", NULL, hm);
  Holder h = { 1, NULL }, r;
  /* null: the long 0 */
  expect_codec(&ht, &h, &r, BE, 0, BYTES(0, 0, 0, 1, 0, 0, 0, 0));
  ck_assert_ptr_null(r.v);
  /* the declared type itself: tag 0x7fffff00, no type information */
  BoxV b = { { &boxv_vt }, 42 };
  h.v = &b;
  expect_codec(&ht, &h, &r, LE, 0, BYTES(1, 0, 0, 0, 0x00, 0xFF, 0xFF, 0x7F, 42, 0, 0, 0));
  ck_assert_ptr_nonnull(r.v);
  ck_assert_int_eq(r.v->x, 42);
  ck_assert_int_eq(cdr_type_min_wire(&ht), 8);
}
END_TEST

/* A chunked value whose sequence<Q> is split between two chunks after its
 * first element: the struct elements must follow the chunks. */
typedef struct BoxQ {
  cdr_value hdr;
  cdr_seq qs;
} BoxQ;
static const cdr_member boxq_m[] = { CDR_MEMBER(BoxQ, qs, &q_seq_t) };
static cdr_value_type boxq_vt = { .name = "BoxQ", .repo_id = "IDL:BoxQ:1.0", .members = boxq_m,
                                  .nmembers = 1, .size = sizeof(BoxQ), .align = _Alignof(BoxQ) };

START_TEST(test_value_chunk_splits_sequence)
{
  const cdr_type vt = { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = _Alignof(void *),
                        .u.val = { &boxq_vt } };
  const uint8_t be[] = {
    0x7F, 0xFF, 0xFF, 0x08,              /* chunked, no type information */
    0, 0, 0, 12,                         /* chunk: count and Q[0] */
    0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0, 3,
    0, 0, 0, 8,                          /* chunk: Q[1] */
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF,              /* end tag -1 */
  };
  const uint8_t le[] = {
    0x08, 0xFF, 0xFF, 0x7F, 12, 0, 0, 0,
    2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 3, 0,
    8, 0, 0, 0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF,
  };
  for (int order = 0; order <= 1; order++) {
    BoxQ *b = NULL;
    size_t end;
    ck_assert_int_eq(decode(&vt, &b, order, order == BE ? be : le, sizeof be, 0, &end), CDR_OK);
    ck_assert_uint_eq(end, sizeof be);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(b->qs._length, 2);
    const Q *q = b->qs._buffer;
    ck_assert_int_eq(q[0].a, 1);
    ck_assert_int_eq(q[0].b, 2);
    ck_assert_uint_eq(q[0].c, 3);
    ck_assert_int_eq(q[1].a, -1);
    ck_assert_int_eq(q[1].b, -2);
    ck_assert_uint_eq(q[1].c, 0xFFFF);
  }
}
END_TEST

/* ================================================================ min wire, validate */

START_TEST(test_min_wire)
{
  ck_assert_uint_eq(cdr_type_min_wire(&mixed_t), 1 + 2 + 4 + 8 + 8 + 5 + 1);
  ck_assert_uint_eq(cdr_type_min_wire(&cdr_type_string), 5);
  ck_assert_uint_eq(cdr_type_min_wire(&cdr_type_longdouble), 16);
  ck_assert_uint_eq(cdr_type_min_wire(&cdr_type_wchar), 2);
  ck_assert_uint_eq(cdr_type_min_wire(&long_seq_t), 4);
  ck_assert_uint_eq(cdr_type_min_wire(&node_t), 8);
  ck_assert_uint_eq(cdr_type_min_wire(&empty_t), 0);
  ck_assert_uint_eq(cdr_type_min_wire(&empty_seq_t), 4);
  ck_assert_uint_eq(cdr_type_min_wire(&long2x3_t), 24);
  ck_assert_uint_eq(cdr_type_min_wire(&color_t), 4);
  ck_assert_uint_eq(cdr_type_min_wire(&fixed72_t), 4);
  ck_assert_uint_eq(cdr_type_min_wire(&ub_t), 1);          /* implicit default */
  ck_assert_uint_eq(cdr_type_min_wire(&ul_t), 4 + 1);      /* default octet */
  ck_assert_uint_eq(cdr_type_min_wire(&outer_t), 1 + 2 + 8 + 4);
}
END_TEST

START_TEST(test_validate)
{
  const cdr_type *good[] = {
    &mixed_t, &inner_t, &outer_t, &pt_t, &q_t, &color_t, &ul_t, &ul_implicit_t, &ue_t, &ub_t,
    &uc_t, &ull_t, &uull_t, &long2x3_t, &q2x2_t, &str2_t, &bool4_t, &string_seq_t,
    &long_seq_seq_t, &node_t, &empty_seq_t, &c03_t, &c06_t, &fixed72_t, &str3_t, &wstr2_t,
    &cdr_type_octet, &cdr_type_boolean, &cdr_type_char, &cdr_type_wchar, &cdr_type_short,
    &cdr_type_ushort, &cdr_type_long, &cdr_type_ulong, &cdr_type_longlong, &cdr_type_ulonglong,
    &cdr_type_float, &cdr_type_double, &cdr_type_longdouble, &cdr_type_string, &cdr_type_wstring,
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
    ck_assert_msg(cdr_type_validate(good[k]) == CDR_OK, "good descriptor %zu rejected", k);

  /* A struct containing itself by value. */
  static cdr_member selfm[1];
  static cdr_type self = { .kind = CDR_K_STRUCT, .size = 8, .align = 4, .u.st = { selfm, 1 } };
  selfm[0].type = &self;
  selfm[0].offset = 0;
  ck_assert_int_eq(cdr_type_validate(&self), CDR_E_INVALID);
  /* X { sequence<Y> s; Y y; }, Y { X x; }: X -> Y -> X by value is an
   * infinite type even though Y is first met behind the sequence. */
  static cdr_type vx, vy, vxs;
  static cdr_member vxm[2], vym[1];
  vxs = (cdr_type){ .kind = CDR_K_SEQUENCE, .size = sizeof(cdr_seq), .align = _Alignof(cdr_seq),
                    .u.seq = { &vy, 0 } };
  vx = (cdr_type){ .kind = CDR_K_STRUCT, .size = sizeof(cdr_seq), .align = _Alignof(cdr_seq),
                   .u.st = { vxm, 2 } };
  vy = (cdr_type){ .kind = CDR_K_STRUCT, .size = sizeof(cdr_seq), .align = _Alignof(cdr_seq),
                   .u.st = { vym, 1 } };
  vxm[0] = (cdr_member){ "s", &vxs, 0 };
  vxm[1] = (cdr_member){ "y", &vy, 0 };
  vym[0] = (cdr_member){ "x", &vx, 0 };
  ck_assert_int_eq(cdr_type_validate(&vx), CDR_E_INVALID);
  ck_assert_int_eq(cdr_type_validate(&vy), CDR_E_INVALID);
  vym[0] = (cdr_member){ "x", &vxs, 0 }; /* Y { sequence<Y> x; }: fine */
  ck_assert_int_eq(cdr_type_validate(&vx), CDR_OK);
  /* A DAG of 24 levels, two members per level (2^24 paths): each
   * descriptor is checked once, and min_wire's work is bounded. */
  static cdr_type dag[25];
  static cdr_member dagm[25][2];
  dag[0] = cdr_type_long;
  for (int k = 1; k <= 24; k++) {
    dagm[k][0] = (cdr_member){ "a", &dag[k - 1], 0 };
    dagm[k][1] = (cdr_member){ "b", &dag[k - 1], 2u << k };
    dag[k] = (cdr_type){ .kind = CDR_K_STRUCT, .size = 4u << k, .align = 4, .u.st = { dagm[k], 2 } };
  }
  ck_assert_int_eq(cdr_type_validate(&dag[24]), CDR_OK);
  size_t mw = cdr_type_min_wire(&dag[24]);
  ck_assert_uint_gt(mw, 0);
  ck_assert_uint_le(mw, 4u << 24); /* a lower bound */
  /* A member past the end, or misaligned. */
  const cdr_member past[] = { { "x", &cdr_type_long, 8 } };
  const cdr_type pastt = { .kind = CDR_K_STRUCT, .size = 8, .align = 4, .u.st = { past, 1 } };
  ck_assert_int_eq(cdr_type_validate(&pastt), CDR_E_INVALID);
  const cdr_member mis[] = { { "x", &cdr_type_long, 2 } };
  const cdr_type mist = { .kind = CDR_K_STRUCT, .size = 8, .align = 4, .u.st = { mis, 1 } };
  ck_assert_int_eq(cdr_type_validate(&mist), CDR_E_INVALID);
  /* A primitive with the wrong host size. */
  const cdr_type badlong = { .kind = CDR_K_LONG, .size = 8, .align = 8 };
  ck_assert_int_eq(cdr_type_validate(&badlong), CDR_E_INVALID);
  /* Duplicate union labels; a label invalid for its discriminator. */
  const cdr_union_case dup[] = {
    { 1, "a", &cdr_type_long, offsetof(UL, u.a) }, { 1, "b", &cdr_type_long, offsetof(UL, u.a) },
  };
  cdr_type u = ul_implicit_t;
  u.u.un.cases = dup;
  u.u.un.ncases = 2;
  ck_assert_int_eq(cdr_type_validate(&u), CDR_E_INVALID);
  const cdr_union_case two[] = { { 2, "v", &cdr_type_long, offsetof(UB, v) } };
  cdr_type b = ub_t;
  b.u.un.cases = two;
  ck_assert_int_eq(cdr_type_validate(&b), CDR_E_INVALID);
  b = ub_t;
  b.u.un.default_case = 1; /* out of range */
  ck_assert_int_eq(cdr_type_validate(&b), CDR_E_INVALID);
  b = ub_t;
  b.u.un.disc = &cdr_type_double;
  ck_assert_int_eq(cdr_type_validate(&b), CDR_E_INVALID);
  const cdr_union_case overlap[] = { { 1, "v", &cdr_type_long, 0 } };
  cdr_type ov = { .kind = CDR_K_UNION, .size = 8, .align = 4,
                  .u.un = { &cdr_type_long, 0, overlap, 1, -1 } };
  ck_assert_int_eq(cdr_type_validate(&ov), CDR_E_INVALID);
  const cdr_union_case outside[] = { { 3, "r", &cdr_type_long, offsetof(UE, u.r) } };
  cdr_type ue = ue_t;
  ue.u.un.cases = outside;
  ue.u.un.ncases = 1;
  ck_assert_int_eq(cdr_type_validate(&ue), CDR_E_INVALID);
  /* Arrays whose size does not match; an empty enum; bad fixed. */
  cdr_type a = long3_t;
  a.size = 16;
  ck_assert_int_eq(cdr_type_validate(&a), CDR_E_INVALID);
  const cdr_type en0 = { .kind = CDR_K_ENUM, .size = 4, .align = 4 };
  ck_assert_int_eq(cdr_type_validate(&en0), CDR_E_INVALID);
  cdr_type fx = fixed72_t;
  fx.u.fx.digits = 32;
  ck_assert_int_eq(cdr_type_validate(&fx), CDR_E_INVALID);
  fx.u.fx.digits = 3;
  fx.u.fx.scale = 4;
  ck_assert_int_eq(cdr_type_validate(&fx), CDR_E_INVALID);
  const cdr_type seqnull = { .kind = CDR_K_SEQUENCE, .size = sizeof(cdr_seq), .align = _Alignof(cdr_seq) };
  ck_assert_int_eq(cdr_type_validate(&seqnull), CDR_E_INVALID);
  const cdr_type nokind = { .kind = (cdr_kind)99, .size = 4, .align = 4 };
  ck_assert_int_eq(cdr_type_validate(&nokind), CDR_E_INVALID);
}
END_TEST

/* ======================================== cases of docs/hostile-input.md */

/* C02 (a): sequence<string> of 0x10000000 with 40 octets left: each string
 * takes at least 5 octets, so the count is refused before any allocation. */
START_TEST(test_c02_sequence_count_exceeds_data)
{
  uint8_t w[44] = { 0x10, 0, 0, 0 };
  cdr_seq r = { 7, 7, (void *)w, 0 };
  ck_assert_int_eq(decode(&string_seq_t, &r, BE, w, sizeof w, 0, NULL), CDR_E_LENGTH);
  ck_assert_ptr_null(r._buffer);
  ck_assert_uint_eq(r._length, 0);
  ck_assert_uint_eq(cdr_arena_used(&arena), 0);
  /* 5 empty strings (length 1, NUL, 3 octets of padding but the last) in 40
   * octets pass: the check is count * 5 <= remaining. */
  uint8_t ok[44] = { 0, 0, 0, 5 };
  for (int k = 0; k < 5; k++)
    ok[4 + 8 * k + 3] = 1;
  ck_assert_int_eq(decode(&string_seq_t, &r, BE, ok, 41, 0, NULL), CDR_OK);
  ck_assert_uint_eq(r._length, 5);
  ck_assert_str_eq(((char **)r._buffer)[4], "");
}
END_TEST

/* C02 (b): zero-size elements, count 0xFFFFFFFF and no element octets: only
 * the configured maximum count can refuse it. */
START_TEST(test_c02_zero_size_elements)
{
  const uint8_t w[4] = { 0xFF, 0xFF, 0xFF, 0xFF };
  cdr_seq r;
  ck_assert_int_eq(decode(&empty_seq_t, &r, BE, w, 4, 0, NULL), CDR_E_LIMIT);
  ck_assert_ptr_null(r._buffer);
  ck_assert_uint_eq(cdr_arena_used(&arena), 0);
  cdr_opts op = opts_of(BE);
  op.max_seq = 1000;
  const uint8_t w1000[4] = { 0, 0, 0x03, 0xE8 }, w1001[4] = { 0, 0, 0x03, 0xE9 };
  ck_assert_int_eq(decode_opts(&empty_seq_t, &r, &op, BE, w1000, 4, 0, NULL), CDR_OK);
  ck_assert_uint_eq(r._length, 1000);
  ck_assert_ptr_nonnull(r._buffer);
  ck_assert_int_eq(decode_opts(&empty_seq_t, &r, &op, BE, w1001, 4, 0, NULL), CDR_E_LIMIT);
  /* Writing zero-size elements writes only the count. */
  uint8_t e[3] = { 0 }, buf[16];
  size_t n;
  cdr_seq v = { 3, 3, e, 0 };
  ck_assert_int_eq(encode(&empty_seq_t, &v, LE, 0, buf, sizeof buf, &n), CDR_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_mem_eq(buf, ((const uint8_t[]){ 3, 0, 0, 0 }), 4);
}
END_TEST

/* C03: a count with the high bit set is an error, never a negative length
 * that leaves an empty sequence and after = 42. */
START_TEST(test_c03_negative_length)
{
  const uint8_t be[8] = { 0x80, 0, 0, 0, 0, 0, 0, 0x2A };
  const uint8_t le[8] = { 0, 0, 0, 0x80, 0x2A, 0, 0, 0 };
  C03 r;
  memset(&r, 0xAB, sizeof r);
  ck_assert_int_eq(decode(&c03_t, &r, BE, be, 8, 0, NULL), CDR_E_LENGTH);
  ck_assert_ptr_null(r.s._buffer);
  ck_assert_uint_eq(r.s._length, 0);
  ck_assert_uint_ne(r.after, 42);
  memset(&r, 0xAB, sizeof r);
  ck_assert_int_eq(decode(&c03_t, &r, LE, le, 8, 0, NULL), CDR_E_LENGTH);
  ck_assert_uint_ne(r.after, 42);
  ck_assert_uint_eq(cdr_arena_used(&arena), 0);
  /* The well-formed neighbour decodes. */
  const uint8_t ok[8] = { 0, 0, 0, 0, 0, 0, 0, 0x2A };
  ck_assert_int_eq(decode(&c03_t, &r, BE, ok, 8, 0, NULL), CDR_OK);
  ck_assert_uint_eq(r.s._length, 0);
  ck_assert_uint_eq(r.after, 42);
}
END_TEST

/* C06: boolean octets other than 0 and 1 are refused, bulk copies included;
 * no raw byte ever lands in a _Bool. */
START_TEST(test_c06_boolean_octets)
{
  C06 r;
  const uint8_t ff[2] = { 0xFF, 0x07 }, two[2] = { 0x02, 0x07 }, one[2] = { 0x01, 0x07 };
  ck_assert_int_eq(decode(&c06_t, &r, BE, ff, 2, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_int_eq(decode(&c06_t, &r, LE, two, 2, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_int_eq(decode(&c06_t, &r, BE, one, 2, 0, NULL), CDR_OK);
  ck_assert(r.b);
  ck_assert_uint_eq(r.o, 7);
  const uint8_t seq[7] = { 0, 0, 0, 3, 0x00, 0x01, 0x05 };
  cdr_seq s;
  ck_assert_int_eq(decode(&bool_seq_t, &s, BE, seq, 7, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 6);
  ck_assert_ptr_null(s._buffer);
  const uint8_t seqok[7] = { 0, 0, 0, 3, 0x00, 0x01, 0x01 };
  ck_assert_int_eq(decode(&bool_seq_t, &s, BE, seqok, 7, 0, NULL), CDR_OK);
  ck_assert_uint_eq(s._length, 3);
  ck_assert(!((bool *)s._buffer)[0] && ((bool *)s._buffer)[1] && ((bool *)s._buffer)[2]);
  /* And the writer refuses a bool object holding another byte. */
  uint8_t buf[16];
  size_t n;
  C06 v = { true, 7 };
  memset(&v.b, 0xFF, 1);
  ck_assert_int_eq(encode(&c06_t, &v, BE, 0, buf, sizeof buf, &n), CDR_E_VALUE);
}
END_TEST

START_TEST(test_c07_union_boolean_false_is_implicit_default)
{
  const uint8_t w[1] = { 0x00 };
  UB r;
  size_t end;
  memset(&r, 0xAB, sizeof r);
  ck_assert_int_eq(decode(&ub_t, &r, BE, w, 1, 0, &end), CDR_OK);
  ck_assert(!r.d);
  ck_assert_uint_eq(end, 1);
}
END_TEST

START_TEST(test_c07_union_boolean_true_after_padding)
{
  const uint8_t w[8] = { 0x01, 0, 0, 0, 0, 0, 0, 0x07 };
  UB r;
  size_t end;
  ck_assert_int_eq(decode(&ub_t, &r, BE, w, 8, 0, &end), CDR_OK);
  ck_assert(r.d);
  ck_assert_int_eq(r.v, 7);
  ck_assert_uint_eq(end, 8);
}
END_TEST

START_TEST(test_c07_union_boolean_discriminator_2)
{
  const uint8_t w[8] = { 0x02, 0, 0, 0, 0, 0, 0, 0x07 };
  UB r;
  ck_assert_int_eq(decode(&ub_t, &r, BE, w, 8, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_int_eq(decode(&ub_t, &r, LE, w, 1, 0, NULL), CDR_E_VALUE);
}
END_TEST

START_TEST(test_c07_union_enum_discriminator_out_of_range)
{
  const uint8_t be[8] = { 0, 0, 0, 5, 0, 0, 0, 1 };
  const uint8_t le[8] = { 5, 0, 0, 0, 1, 0, 0, 0 };
  UE r;
  ck_assert_int_eq(decode(&urg_t, &r, BE, be, 8, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_int_eq(decode(&urg_t, &r, LE, le, 8, 0, NULL), CDR_E_VALUE);
  const uint8_t g[4] = { 0, 0, 0, 1 }; /* G: valid, no member */
  ck_assert_int_eq(decode(&urg_t, &r, BE, g, 4, 0, NULL), CDR_OK);
  ck_assert_uint_eq(r.d, 1);
}
END_TEST

START_TEST(test_c07_enum_out_of_range)
{
  const uint8_t w[4] = { 0xFF, 0xFF, 0xFF, 0xFF };
  ColorBox r;
  uint32_t e;
  ck_assert_int_eq(decode(&colorbox_t, &r, BE, w, 4, 0, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(last_err_off, 0);
  ck_assert_int_eq(decode(&color_t, &e, LE, w, 4, 0, NULL), CDR_E_VALUE);
  ck_assert_int_eq(decode(&rg_t, &e, LE, w, 4, 0, NULL), CDR_E_VALUE);
}
END_TEST

/* ================================================================ random round trip */

typedef struct Rnd {
  uint8_t a;
  int16_t b;
  cdr_seq ins;      /* sequence<Inner> */
  char *name;
  UL u;
  int32_t grid[2][3];
  cdr_seq names;    /* sequence<string> */
  bool flag;
  int64_t ll;
  uint32_t color;
  cdr_seq bools;    /* sequence<boolean> */
  char c;
  uint16_t us;
  float f;
  cdr_seq qs;       /* sequence<Q> */
  cdr_seq nested;   /* sequence<sequence<long>> */
  cdr_wchar wc;
  cdr_wchar *ws;
  cdr_fixed fx;     /* fixed<7,2> */
  long double ld;
  UE ue;
  Inner in;
  Pt pts[2];
} Rnd;
static const cdr_type pt2_t = { .kind = CDR_K_ARRAY, .size = sizeof(Pt[2]), .align = _Alignof(Pt),
                                .u.arr = { &pt_t, 2 } };
static const cdr_member rnd_m[] = {
  CDR_MEMBER(Rnd, a, &cdr_type_octet), CDR_MEMBER(Rnd, b, &cdr_type_short),
  CDR_MEMBER(Rnd, ins, &inner_seq_t), CDR_MEMBER(Rnd, name, &cdr_type_string),
  CDR_MEMBER(Rnd, u, &ul_t), CDR_MEMBER(Rnd, grid, &long2x3_t),
  CDR_MEMBER(Rnd, names, &string_seq_t), CDR_MEMBER(Rnd, flag, &cdr_type_boolean),
  CDR_MEMBER(Rnd, ll, &cdr_type_longlong), CDR_MEMBER(Rnd, color, &color_t),
  CDR_MEMBER(Rnd, bools, &bool_seq_t), CDR_MEMBER(Rnd, c, &cdr_type_char),
  CDR_MEMBER(Rnd, us, &cdr_type_ushort), CDR_MEMBER(Rnd, f, &cdr_type_float),
  CDR_MEMBER(Rnd, qs, &q_seq_t), CDR_MEMBER(Rnd, nested, &long_seq_seq_t),
  CDR_MEMBER(Rnd, wc, &cdr_type_wchar), CDR_MEMBER(Rnd, ws, &cdr_type_wstring),
  CDR_MEMBER(Rnd, fx, &fixed72_t), CDR_MEMBER(Rnd, ld, &cdr_type_longdouble),
  CDR_MEMBER(Rnd, ue, &ue_t), CDR_MEMBER(Rnd, in, &inner_t), CDR_MEMBER(Rnd, pts, &pt2_t),
};
static const cdr_type rnd_t = CDR_STRUCT_TYPE(Rnd, "Rnd", NULL, rnd_m);

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);
static uint64_t rnd64(void)
{
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return rng_state = x;
}
static uint32_t rndn(uint32_t n) { return (uint32_t)(rnd64() % n); }

/* Storage for one random value's strings and sequences. */
static char spool[4096];
static size_t sused;
static void *salloc(size_t n)
{
  sused = (sused + 15) & ~(size_t)15;
  ck_assert_uint_le(sused + n, sizeof spool);
  void *p = spool + sused;
  sused += n;
  return p;
}
static char *rnd_str(void)
{
  size_t n = rndn(9);
  char *s = salloc(n + 1);
  for (size_t k = 0; k < n; k++)
    s[k] = (char)('a' + rndn(26));
  s[n] = 0;
  return s;
}

static void rnd_fill(Rnd *v)
{
  sused = 0;
  memset(v, 0xCC, sizeof *v);
  v->a = (uint8_t)rnd64();
  v->b = (int16_t)rnd64();
  v->ins._length = rndn(4);
  v->ins._buffer = v->ins._length ? salloc(v->ins._length * sizeof(Inner)) : NULL;
  for (uint32_t k = 0; k < v->ins._length; k++) {
    Inner *p = (Inner *)v->ins._buffer + k;
    memset(p, 0xCC, sizeof *p);
    p->a = (int16_t)rnd64();
    p->d = (double)(int32_t)rnd64() / 7.0;
  }
  v->name = rnd_str();
  memset(&v->u, 0, sizeof v->u);
  static const int32_t ds[] = { 1, 2, 3, 7, -5 };
  v->u.d = ds[rndn(5)];
  if (v->u.d == 1)
    v->u.u.a = (int32_t)rnd64();
  else if (v->u.d == 2 || v->u.d == 3)
    v->u.u.s = rnd_str();
  else
    v->u.u.z = (uint8_t)rnd64();
  for (int k = 0; k < 6; k++)
    v->grid[k / 3][k % 3] = (int32_t)rnd64();
  v->names._length = rndn(4);
  v->names._buffer = v->names._length ? salloc(v->names._length * sizeof(char *)) : NULL;
  for (uint32_t k = 0; k < v->names._length; k++)
    ((char **)v->names._buffer)[k] = rnd_str();
  v->flag = rndn(2);
  v->ll = (int64_t)rnd64();
  v->color = rndn(3);
  v->bools._length = rndn(6);
  v->bools._buffer = v->bools._length ? salloc(v->bools._length) : NULL;
  for (uint32_t k = 0; k < v->bools._length; k++)
    ((bool *)v->bools._buffer)[k] = rndn(2);
  v->c = (char)rnd64();
  v->us = (uint16_t)rnd64();
  uint32_t fb = (uint32_t)rnd64();
  memcpy(&v->f, &fb, 4); /* any bits, NaNs included: compared bitwise */
  v->qs._length = rndn(4);
  v->qs._buffer = v->qs._length ? salloc(v->qs._length * sizeof(Q)) : NULL;
  for (uint32_t k = 0; k < v->qs._length; k++) {
    Q *q = (Q *)v->qs._buffer + k;
    q->a = (int32_t)rnd64();
    q->b = (int16_t)rnd64();
    q->c = (uint16_t)rnd64();
  }
  v->nested._length = rndn(3);
  v->nested._buffer = v->nested._length ? salloc(v->nested._length * sizeof(cdr_seq)) : NULL;
  for (uint32_t k = 0; k < v->nested._length; k++) {
    cdr_seq *s = (cdr_seq *)v->nested._buffer + k;
    s->_length = rndn(3);
    s->_buffer = s->_length ? salloc(s->_length * 4) : NULL;
    for (uint32_t j = 0; j < s->_length; j++)
      ((int32_t *)s->_buffer)[j] = (int32_t)rnd64();
  }
  do
    v->wc = 1 + rndn(0xFFFE);
  while (v->wc >= 0xD800 && v->wc <= 0xDFFF);
  size_t wn = rndn(5);
  v->ws = salloc((wn + 1) * sizeof(cdr_wchar));
  for (size_t k = 0; k < wn; k++) {
    cdr_wchar c;
    do
      c = 1 + rndn(0x10FFFF);
    while (c >= 0xD800 && c <= 0xDFFF);
    v->ws[k] = c;
  }
  v->ws[wn] = 0;
  memset(&v->fx, 0, sizeof v->fx);
  v->fx.digits = 7;
  v->fx.scale = 2;
  int nz = 0;
  for (int k = 0; k < 7; k++)
    nz |= v->fx.d[k] = (uint8_t)rndn(10);
  v->fx.negative = nz ? (uint8_t)rndn(2) : 0;
  v->ld = (long double)(int64_t)rnd64() / 3.0L;
  memset(&v->ue, 0, sizeof v->ue);
  v->ue.d = rndn(3);
  if (v->ue.d == 0)
    v->ue.u.r = (int32_t)rnd64();
  else if (v->ue.d == 1)
    v->ue.u.g = (double)(int32_t)rnd64();
  memset(&v->in, 0xCC, sizeof v->in);
  v->in.a = (int16_t)rnd64();
  v->in.d = (double)rndn(1000);
  for (int k = 0; k < 2; k++) {
    v->pts[k].x = (int32_t)rnd64();
    v->pts[k].y = (int32_t)rnd64();
  }
}

static void rnd_compare(const Rnd *x, const Rnd *y)
{
  ck_assert_uint_eq(x->a, y->a);
  ck_assert_int_eq(x->b, y->b);
  ck_assert_uint_eq(x->ins._length, y->ins._length);
  for (uint32_t k = 0; k < x->ins._length; k++) {
    const Inner *p = (const Inner *)x->ins._buffer + k, *q = (const Inner *)y->ins._buffer + k;
    ck_assert_int_eq(p->a, q->a);
    ck_assert(p->d == q->d);
  }
  ck_assert_str_eq(x->name, y->name);
  ck_assert_int_eq(x->u.d, y->u.d);
  if (x->u.d == 1)
    ck_assert_int_eq(x->u.u.a, y->u.u.a);
  else if (x->u.d == 2 || x->u.d == 3)
    ck_assert_str_eq(x->u.u.s, y->u.u.s);
  else
    ck_assert_uint_eq(x->u.u.z, y->u.u.z);
  ck_assert_mem_eq(x->grid, y->grid, sizeof x->grid);
  ck_assert_uint_eq(x->names._length, y->names._length);
  for (uint32_t k = 0; k < x->names._length; k++)
    ck_assert_str_eq(((char **)x->names._buffer)[k], ((char **)y->names._buffer)[k]);
  ck_assert(x->flag == y->flag);
  ck_assert_int_eq(x->ll, y->ll);
  ck_assert_uint_eq(x->color, y->color);
  ck_assert_uint_eq(x->bools._length, y->bools._length);
  if (x->bools._length)
    ck_assert_mem_eq(x->bools._buffer, y->bools._buffer, x->bools._length);
  ck_assert_int_eq(x->c, y->c);
  ck_assert_uint_eq(x->us, y->us);
  ck_assert_mem_eq(&x->f, &y->f, sizeof x->f);
  ck_assert_uint_eq(x->qs._length, y->qs._length);
  if (x->qs._length)
    ck_assert_mem_eq(x->qs._buffer, y->qs._buffer, x->qs._length * sizeof(Q));
  ck_assert_uint_eq(x->nested._length, y->nested._length);
  for (uint32_t k = 0; k < x->nested._length; k++) {
    const cdr_seq *p = (const cdr_seq *)x->nested._buffer + k, *q = (const cdr_seq *)y->nested._buffer + k;
    ck_assert_uint_eq(p->_length, q->_length);
    if (p->_length)
      ck_assert_mem_eq(p->_buffer, q->_buffer, p->_length * 4);
  }
  ck_assert_uint_eq(x->wc, y->wc);
  size_t k = 0;
  do
    ck_assert_uint_eq(x->ws[k], y->ws[k]);
  while (x->ws[k++]);
  ck_assert_uint_eq(x->fx.digits, y->fx.digits);
  ck_assert_int_eq(x->fx.scale, y->fx.scale);
  ck_assert_uint_eq(x->fx.negative, y->fx.negative);
  ck_assert_mem_eq(x->fx.d, y->fx.d, 7);
  ck_assert(x->ld == y->ld);
  ck_assert_uint_eq(x->ue.d, y->ue.d);
  if (x->ue.d == 0)
    ck_assert_int_eq(x->ue.u.r, y->ue.u.r);
  else if (x->ue.d == 1)
    ck_assert(x->ue.u.g == y->ue.u.g);
  ck_assert_int_eq(x->in.a, y->in.a);
  ck_assert(x->in.d == y->in.d);
  ck_assert_mem_eq(x->pts, y->pts, sizeof x->pts);
}

START_TEST(test_roundtrip_random)
{
  static uint8_t buf[4096], buf2[4096];
  ck_assert_int_eq(cdr_type_validate(&rnd_t), CDR_OK);
  for (int iter = 0; iter < 500; iter++) {
    Rnd v, r;
    rnd_fill(&v);
    int order = rndn(2);
    size_t pre = rndn(8), n, n2, end;
    ck_assert_int_eq(encode(&rnd_t, &v, order, pre, buf, sizeof buf, &n), CDR_OK);
    ck_assert_uint_ge(n - pre, cdr_type_min_wire(&rnd_t));
    memset(&r, 0xAB, sizeof r);
    ck_assert_int_eq(decode(&rnd_t, &r, order, buf, n, pre, &end), CDR_OK);
    ck_assert_uint_eq(end, n);
    rnd_compare(&v, &r);
    /* Re-encoding the decoded value gives the same octets. */
    ck_assert_int_eq(encode(&rnd_t, &r, order, pre, buf2, sizeof buf2, &n2), CDR_OK);
    ck_assert_uint_eq(n2, n);
    ck_assert_mem_eq(buf2, buf, n);
    /* Every truncation fails cleanly. */
    size_t cut = pre + rndn((uint32_t)(n - pre));
    ck_assert_int_ne(decode(&rnd_t, &r, order, buf, cut, pre, NULL), CDR_OK);
    ck_assert_ptr_null(r.name);
    cdr_arena_reset(&arena);
  }
}
END_TEST

/* ================================================================ suite */

static Suite *type_suite(void)
{
  Suite *s = suite_create("type");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_struct_mixed_exact);
  tcase_add_test(tc, test_struct_mixed_offsets);
  tcase_add_test(tc, test_struct_nested);
  tcase_add_test(tc, test_struct_flat_both_paths);
  tcase_add_test(tc, test_struct_nonprimitive_members);
  tcase_add_test(tc, test_fixed_shape_conversion);
  tcase_add_test(tc, test_union_explicit_default);
  tcase_add_test(tc, test_union_implicit_default);
  tcase_add_test(tc, test_union_enum);
  tcase_add_test(tc, test_union_boolean);
  tcase_add_test(tc, test_union_char);
  tcase_add_test(tc, test_union_longlong);
  tcase_add_test(tc, test_enum);
  tcase_add_test(tc, test_array_2d);
  tcase_add_test(tc, test_array_of_structs);
  tcase_add_test(tc, test_array_boolean);
  tcase_add_test(tc, test_seq_primitive);
  tcase_add_test(tc, test_seq_strings);
  tcase_add_test(tc, test_seq_structs);
  tcase_add_test(tc, test_seq_structs_padding_offsets);
  tcase_add_test(tc, test_seq_nested);
  tcase_add_test(tc, test_seq_no_arena);
  tcase_add_test(tc, test_seq_arena_limit);
  tcase_add_test(tc, test_bounded_string);
  tcase_add_test(tc, test_bounded_wstring);
  tcase_add_test(tc, test_bounded_sequence);
  tcase_add_test(tc, test_recursive_depth_limit);
  tcase_add_test(tc, test_self_sequence_depth);
  tcase_add_test(tc, test_read_error_leaves_no_dangling_pointers);
  tcase_add_test(tc, test_custom);
  tcase_add_test(tc, test_value_member);
  tcase_add_test(tc, test_value_chunk_splits_sequence);
  tcase_add_test(tc, test_min_wire);
  tcase_add_test(tc, test_validate);
  tcase_add_test(tc, test_roundtrip_random);
  suite_add_tcase(s, tc);

  TCase *cases = tcase_create("cases");
  tcase_add_checked_fixture(cases, setup, teardown);
  tcase_add_test(cases, test_c02_sequence_count_exceeds_data);
  tcase_add_test(cases, test_c02_zero_size_elements);
  tcase_add_test(cases, test_c03_negative_length);
  tcase_add_test(cases, test_c06_boolean_octets);
  tcase_add_test(cases, test_c07_union_boolean_false_is_implicit_default);
  tcase_add_test(cases, test_c07_union_boolean_true_after_padding);
  tcase_add_test(cases, test_c07_union_boolean_discriminator_2);
  tcase_add_test(cases, test_c07_union_enum_discriminator_out_of_range);
  tcase_add_test(cases, test_c07_enum_out_of_range);
  suite_add_tcase(s, cases);
  return s;
}

const tu_program tu_prog = { .suite = type_suite };
