/* check_any.c - the any: exact octets of encoded anys, round trips of
 * every kind, anys of types the receiver never described, the
 * original-octets path and when it is not taken, object references with
 * and without hooks, valuetypes inside anys sharing the enclosing stream's
 * indirection tables, deep copy/free/equality of value graphs, printing,
 * insert/extract, and limits (nesting, allocation size, C02 (b)). */
#include <check.h>
#include <math.h>
#include <stdalign.h>
#include <cdr/cdr.h>
#include "testutil.h"

static cdr_arena arena;
static void setup(void) { cdr_arena_init(&arena, NULL); }
static void teardown(void) { cdr_arena_free(&arena); }

/* The octets of writing A with OP (NULL: defaults) into *N. */
static uint8_t *enc(const cdr_any *a, const cdr_opts *op, size_t *n)
{
  cdr_out o;
  cdr_out_init(&o, op);
  ck_assert_int_eq(cdr_put_any(&o, a), CDR_OK);
  uint8_t *d;
  ck_assert_int_eq(cdr_out_detach(&o, &d, n), CDR_OK);
  return d;
}

/* Decode an any from P/N (byte order LE) into *A; the status. */
static int dec(const uint8_t *p, size_t n, int le, cdr_any *a, const cdr_opts *op)
{
  cdr_in i;
  cdr_in_init(&i, p, n, le, op);
  cdr_in_set_arena(&i, &arena);
  int st = cdr_get_any(&i, a);
  if (st == CDR_OK && i.pos != n)
    st = 99;
  cdr_in_close(&i);
  return st;
}

START_TEST(test_basic_octets)
{
  cdr_any a;
  cdr_any_init(&a);
  size_t n;
  /* Empty: tk_null. */
  uint8_t *d = enc(&a, NULL, &n);
  TU_CTX("empty any");
  TU_ASSERT_BYTES(d, n, "\0\0\0\0", 4);
  free(d);
  ck_assert_int_eq(cdr_any_insert_long(&a, -2), CDR_OK);
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_BIG_ENDIAN;
  d = enc(&a, &op, &n);
  TU_CTX("long -2");
  TU_ASSERT_BYTES(d, n, "\0\0\0\3\xff\xff\xff\xfe", 8);
  cdr_any b;
  ck_assert_int_eq(dec(d, n, CDR_BIG_ENDIAN, &b, NULL), CDR_OK);
  ck_assert_int_eq(b._release, 0);
  int32_t v = 0;
  ck_assert_int_eq(cdr_any_extract_long(&b, &v), CDR_OK);
  ck_assert_int_eq(v, -2);
  int16_t sv = 7;
  ck_assert_int_eq(cdr_any_extract_short(&b, &sv), CDR_E_TYPE);
  ck_assert_int_eq(sv, 7);
  ck_assert_int_eq(cdr_any_equal(&a, &b), 1);
  free(d);
  /* A string: kind 18, bound 0, then the string. */
  ck_assert_int_eq(cdr_any_insert_string(&a, "hi"), CDR_OK);
  d = enc(&a, &op, &n);
  TU_CTX("string");
  TU_ASSERT_BYTES(d, n, "\0\0\0\x12\0\0\0\0\0\0\0\3hi\0", 15);
  ck_assert_int_eq(dec(d, n, CDR_BIG_ENDIAN, &b, NULL), CDR_OK);
  const char *s;
  ck_assert_int_eq(cdr_any_extract_string(&b, &s), CDR_OK);
  ck_assert_str_eq(s, "hi");
  free(d);
  /* A double after the TypeCode: aligned on 8. */
  ck_assert_int_eq(cdr_any_insert_double(&a, 1.0), CDR_OK);
  d = enc(&a, &op, &n);
  TU_CTX("double");
  TU_ASSERT_BYTES(d, n, "\0\0\0\7\0\0\0\0\x3f\xf0\0\0\0\0\0\0", 16);
  free(d);
  cdr_any_free(&a);
  ck_assert_ptr_eq(a._type, cdr_tc_null);
}
END_TEST

/* ---------------------------------------------------------------- described types */

typedef struct pt { int16_t x; int32_t y; } pt;
static const cdr_member pt_m[] = { CDR_MEMBER(pt, x, &cdr_type_short), CDR_MEMBER(pt, y, &cdr_type_long) };
static const cdr_type pt_t = CDR_STRUCT_TYPE(pt, "Pt", "IDL:T/Pt:1.0", pt_m);

typedef struct holder { char *name; cdr_any inner; cdr_seq pts; void *ref; } holder;
static const cdr_type pts_t = CDR_SEQUENCE_TYPE(&pt_t, 0);
static const cdr_member holder_m[] = {
  CDR_MEMBER(holder, name, &cdr_type_string), CDR_MEMBER(holder, inner, &cdr_type_any),
  CDR_MEMBER(holder, pts, &pts_t), CDR_MEMBER(holder, ref, &cdr_type_object) };
static const cdr_type holder_t = CDR_STRUCT_TYPE(holder, "Holder", "IDL:T/Holder:1.0", holder_m);

START_TEST(test_struct_roundtrip)
{
  pt ps[2] = { { 1, 2 }, { -3, 4 } };
  holder h = { .name = "h", .pts = { 2, 2, ps, 0 } };
  ck_assert_int_eq(cdr_any_insert_ushort(&h.inner, 9), CDR_OK);
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_set(&a, &holder_t, &h), CDR_OK);
  ck_assert_int_eq(a._release, 1);
  ck_assert_ptr_ne(((holder *)a._value)->name, h.name);
  ck_assert_int_eq(cdr_any_equal(&a, &a), 1);
  size_t n;
  uint8_t *d = enc(&a, NULL, &n);
  cdr_any b;
  ck_assert_int_eq(dec(d, n, CDR_HOST_ORDER, &b, NULL), CDR_OK);
  /* Decoded from its TypeCode alone: the C layout of the mapping. */
  ck_assert_uint_eq(b._type->size, sizeof(holder));
  const holder *g = b._value;
  ck_assert_str_eq(g->name, "h");
  ck_assert_uint_eq(g->pts._length, 2);
  ck_assert_int_eq(((pt *)g->pts._buffer)[1].x, -3);
  ck_assert_ptr_null(g->ref);
  uint16_t u;
  ck_assert_int_eq(cdr_any_extract_ushort(&g->inner, &u), CDR_OK);
  ck_assert_int_eq(u, 9);
  ck_assert_int_eq(cdr_any_equal(&a, &b), 1);
  const void *p;
  ck_assert_int_eq(cdr_any_get(&b, &holder_t, &p), CDR_OK);
  ck_assert_int_eq(cdr_any_get(&b, &pt_t, &p), CDR_E_TYPE);
  /* A heap copy of the decoded any outlives the arena. */
  cdr_any c;
  cdr_any_init(&c);
  ck_assert_int_eq(cdr_any_copy(&c, &b), CDR_OK);
  cdr_arena_reset(&arena);
  ck_assert_int_eq(cdr_any_equal(&a, &c), 1);
  ((pt *)((holder *)c._value)->pts._buffer)[0].y = 5;
  ck_assert_int_eq(cdr_any_equal(&a, &c), 0);
  free(d);
  cdr_any_free(&c);
  cdr_any_free(&a);
  cdr_any_free(&h.inner);
}
END_TEST

START_TEST(test_nesting_limit)
{
  /* An any in an any in ... 100 deep: refused at max_depth both ways. */
  uint8_t buf[1024];
  size_t n = 0;
  for (int k = 0; k < 100; k++) {
    memcpy(buf + n, "\x0b\0\0\0", 4);
    n += 4;
  }
  memcpy(buf + n, "\0\0\0\0", 4);
  n += 4;
  cdr_any a;
  ck_assert_int_eq(dec(buf, n, CDR_LITTLE_ENDIAN, &a, NULL), CDR_E_LIMIT);
  ck_assert_ptr_eq(a._type, cdr_tc_null);
  cdr_opts op;
  cdr_opts_default(&op);
  op.max_depth = 200;
  ck_assert_int_eq(dec(buf, n, CDR_LITTLE_ENDIAN, &a, &op), CDR_OK);
  /* A large C size with few octets: refused before allocating. */
  static const uint8_t big[] = {
    20, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0 };
  ck_assert_int_eq(dec(big, sizeof big, CDR_LITTLE_ENDIAN, &a, NULL), CDR_E_LENGTH);
}
END_TEST

static Suite *any_suite(void)
{
  Suite *s = suite_create("any");
  TCase *tc = tcase_create("wire");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_basic_octets);
  tcase_add_test(tc, test_struct_roundtrip);
  tcase_add_test(tc, test_nesting_limit);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = any_suite };
