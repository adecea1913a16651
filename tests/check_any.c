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
#include "cdrasm.h"
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

/* The empty any (no TypeCode, no value) is tk_null; half of one is a
 * mistake, refused before anything is written: a value with no TypeCode,
 * a TypeCode with a value and no value. */
START_TEST(test_half_anys)
{
  int32_t x = 7;
  const cdr_any empty = { ._type = NULL, ._value = NULL };
  const cdr_any no_type = { ._type = NULL, ._value = &x };
  const cdr_any no_value = { ._type = cdr_tc_long, ._value = NULL };
  cdr_out o;
  cdr_out_init(&o, NULL);
  ck_assert_int_eq(cdr_put_any(&o, &empty), CDR_OK);
  ck_assert_uint_eq(cdr_out_size(&o), 4);
  ck_assert_mem_eq(cdr_out_data(&o), "\0\0\0\0", 4); /* TCKind tk_null */
  cdr_out_reset(&o);
  ck_assert_int_eq(cdr_put_any(&o, &no_type), CDR_E_INVALID);
  ck_assert_str_eq(cdr_out_error_message(&o), "an any with a value and no TypeCode");
  ck_assert_uint_eq(cdr_out_size(&o), 0);
  cdr_out_reset(&o);
  ck_assert_int_eq(cdr_put_any(&o, &no_value), CDR_E_INVALID);
  ck_assert_uint_eq(cdr_out_size(&o), 0);
  cdr_out_close(&o);
}
END_TEST

/* ---------------------------------------------------------------- every basic kind */

/* A round trip of A through the wire in both byte orders: decoded equal,
 * and written again the same octets. */
static void round_trip(const cdr_any *a)
{
  for (int le = 0; le <= 1; le++) {
    cdr_opts op;
    cdr_opts_default(&op);
    op.byte_order = (uint8_t)le;
    size_t n;
    uint8_t *d = enc(a, &op, &n);
    cdr_any b;
    ck_assert_int_eq(dec(d, n, le, &b, NULL), CDR_OK);
    ck_assert_int_eq(cdr_any_equal(a, &b), 1);
    cdr_any_forget_octets(&b); /* encoded again, not copied */
    size_t n2;
    uint8_t *d2 = enc(&b, &op, &n2);
    TU_CTX("round trip le=%d", le);
    TU_ASSERT_BYTES(d2, n2, d, n);
    free(d);
    free(d2);
  }
}

static void expect(const cdr_any *a, const char *want, size_t wn)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  size_t n;
  uint8_t *d = enc(a, &op, &n);
  TU_ASSERT_BYTES(d, n, want, wn);
  free(d);
  round_trip(a);
}

START_TEST(test_every_basic_kind)
{
  cdr_any a;
  cdr_any_init(&a);
  TU_CTX("short");
  ck_assert_int_eq(cdr_any_insert_short(&a, -2), CDR_OK);
  expect(&a, "\2\0\0\0\xfe\xff", 6);
  int16_t sv;
  ck_assert_int_eq(cdr_any_extract_short(&a, &sv), CDR_OK);
  ck_assert_int_eq(sv, -2);
  TU_CTX("ushort");
  ck_assert_int_eq(cdr_any_insert_ushort(&a, 0xfffe), CDR_OK);
  expect(&a, "\4\0\0\0\xfe\xff", 6);
  TU_CTX("long");
  ck_assert_int_eq(cdr_any_insert_long(&a, 0x01020304), CDR_OK);
  expect(&a, "\3\0\0\0\4\3\2\1", 8);
  TU_CTX("ulong");
  ck_assert_int_eq(cdr_any_insert_ulong(&a, 5), CDR_OK);
  expect(&a, "\5\0\0\0\5\0\0\0", 8);
  TU_CTX("longlong");
  ck_assert_int_eq(cdr_any_insert_longlong(&a, -1), CDR_OK);
  expect(&a, "\x17\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff", 16);
  int64_t lv;
  ck_assert_int_eq(cdr_any_extract_longlong(&a, &lv), CDR_OK);
  ck_assert_int_eq(lv, -1);
  TU_CTX("ulonglong");
  ck_assert_int_eq(cdr_any_insert_ulonglong(&a, 1), CDR_OK);
  expect(&a, "\x18\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0", 16);
  TU_CTX("float");
  ck_assert_int_eq(cdr_any_insert_float(&a, 1.0f), CDR_OK);
  expect(&a, "\6\0\0\0\0\0\x80\x3f", 8);
  TU_CTX("double");
  ck_assert_int_eq(cdr_any_insert_double(&a, -2.0), CDR_OK);
  expect(&a, "\7\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xc0", 16);
  double dv;
  ck_assert_int_eq(cdr_any_extract_double(&a, &dv), CDR_OK);
  ck_assert(dv == -2.0);
  TU_CTX("boolean");
  ck_assert_int_eq(cdr_any_insert_boolean(&a, true), CDR_OK);
  expect(&a, "\x08\0\0\0\1", 5);
  TU_CTX("char");
  ck_assert_int_eq(cdr_any_insert_char(&a, 'A'), CDR_OK);
  expect(&a, "\x09\0\0\0A", 5);
  TU_CTX("octet");
  ck_assert_int_eq(cdr_any_insert_octet(&a, 0xab), CDR_OK);
  expect(&a, "\x0a\0\0\0\xab", 5);
  uint8_t ov;
  ck_assert_int_eq(cdr_any_extract_octet(&a, &ov), CDR_OK);
  ck_assert_int_eq(ov, 0xab);
  char cv;
  ck_assert_int_eq(cdr_any_extract_char(&a, &cv), CDR_E_TYPE);
  TU_CTX("long double");
  ck_assert_int_eq(cdr_any_insert_longdouble(&a, 1.5L), CDR_OK);
  round_trip(&a);
  long double ldv;
  ck_assert_int_eq(cdr_any_extract_longdouble(&a, &ldv), CDR_OK);
  ck_assert(ldv == 1.5L);
  TU_CTX("wchar");
  ck_assert_int_eq(cdr_any_insert_wchar(&a, 0x20ac), CDR_OK);
  round_trip(&a);
  cdr_wchar wv;
  ck_assert_int_eq(cdr_any_extract_wchar(&a, &wv), CDR_OK);
  ck_assert_uint_eq(wv, 0x20ac);
  TU_CTX("wstring");
  static const cdr_wchar ws[] = { 'a', 0x1f600, 0 };
  ck_assert_int_eq(cdr_any_insert_wstring(&a, ws), CDR_OK);
  round_trip(&a);
  const cdr_wchar *wsv;
  ck_assert_int_eq(cdr_any_extract_wstring(&a, &wsv), CDR_OK);
  ck_assert_ptr_ne(wsv, ws);
  ck_assert_uint_eq(wsv[1], 0x1f600);
  ck_assert_uint_eq(wsv[2], 0);
  TU_CTX("string");
  ck_assert_int_eq(cdr_any_insert_string(&a, "ab"), CDR_OK);
  expect(&a, "\x12\0\0\0\0\0\0\0\3\0\0\0ab", 15);
  ck_assert_int_eq(cdr_any_insert_string(&a, NULL), CDR_E_INVALID);
  TU_CTX("fixed");
  cdr_fixed f;
  ck_assert_int_eq(cdr_fixed_from_string("123.45", 6, 5, 2, &f), CDR_OK);
  ck_assert_int_eq(cdr_any_insert_fixed(&a, &f), CDR_OK);
  expect(&a, "\x1c\0\0\0\5\0\2\0\x12\x34\x5c", 11);
  cdr_fixed fv;
  ck_assert_int_eq(cdr_any_extract_fixed(&a, &fv), CDR_OK);
  ck_assert_int_eq(fv.digits, 5);
  ck_assert_int_eq(memcmp(fv.d, f.d, 5), 0);
  TU_CTX("TypeCode");
  ck_assert_int_eq(cdr_any_insert_typecode(&a, cdr_tc_long), CDR_OK);
  expect(&a, "\x0c\0\0\0\3\0\0\0", 8);
  cdr_typecode tv;
  ck_assert_int_eq(cdr_any_extract_typecode(&a, &tv), CDR_OK);
  ck_assert_ptr_eq(tv, cdr_tc_long);
  TU_CTX("any in an any");
  cdr_any in;
  cdr_any_init(&in);
  ck_assert_int_eq(cdr_any_insert_octet(&in, 7), CDR_OK);
  ck_assert_int_eq(cdr_any_insert_any(&a, &in), CDR_OK);
  expect(&a, "\x0b\0\0\0\x0a\0\0\0\7", 9);
  const cdr_any *av;
  ck_assert_int_eq(cdr_any_extract_any(&a, &av), CDR_OK);
  ck_assert_int_eq(cdr_any_equal(av, &in), 1);
  cdr_any_free(&in);
  TU_CTX("empty any in an any");
  ck_assert_int_eq(cdr_any_insert_any(&a, &in), CDR_OK);
  expect(&a, "\x0b\0\0\0\0\0\0\0", 8);
  TU_CTX("nil object reference");
  ck_assert_int_eq(cdr_any_insert_objref(&a, NULL, NULL), CDR_OK);
  asmb w;
  a_init(&w, 1);
  a_head(&w, 14, "IDL:omg.org/CORBA/Object:1.0", "Object");
  a_end(&w);
  a_str(&w, "");
  a_ul(&w, 0);
  expect(&a, (const char *)w.t.b, w.t.n);
  const void *rv = &rv;
  ck_assert_int_eq(cdr_any_extract_objref(&a, &rv), CDR_OK);
  ck_assert_ptr_null(rv);
  cdr_any_free(&a);
  ck_assert_int_eq(cdr_any_extract_long(&a, &(int32_t){ 0 }), CDR_E_TYPE);
}
END_TEST

/* ---------------------------------------------------------------- a type never described */

typedef struct U {
  int32_t _d;
  union { int16_t s; char *str; } _u;
} U;
typedef struct Unknown {
  uint8_t o;
  U u;
  uint32_t color;
  cdr_seq names;       /* of char * */
  int16_t arr[2][3];
  cdr_any inner;
} Unknown;

/* The any { Unknown } as a foreign ORB would send it, in byte order LE:
 * octet, a union on long (1: short s, 2: string str, default index 2),
 * an enum, a sequence of an alias of string, a short[2][3], an any. */
static void unknown_octets(asmb *a, int le, int32_t disc)
{
  a_init(a, le);
  a_head(a, 15, "IDL:X/Unknown:1.0", "Unknown");
  a_ul(a, 6);
  a_str(a, "o");
  a_kind(a, 10);
  a_str(a, "u");
  a_head(a, 16, "IDL:X/U:1.0", "U");
  a_kind(a, 3);
  a_ul(a, 1);          /* default index 1 */
  a_ul(a, 2);
  a_ul(a, 1);
  a_str(a, "s");
  a_kind(a, 2);
  a_oct(a, 0);         /* the default's label */
  a_str(a, "str");
  a_kind(a, 18);
  a_ul(a, 0);
  a_end(a);
  a_str(a, "color");
  a_head(a, 17, "IDL:X/Color:1.0", "Color");
  a_ul(a, 3);
  a_str(a, "red");
  a_str(a, "green");
  a_str(a, "blue");
  a_end(a);
  a_str(a, "names");
  a_kind(a, 19);
  a_begin(a);
  a_head(a, 21, "IDL:X/Name:1.0", "Name");
  a_kind(a, 18);
  a_ul(a, 0);
  a_end(a);
  a_ul(a, 0);
  a_end(a);
  a_str(a, "arr");
  a_kind(a, 20);
  a_begin(a);
  a_kind(a, 20);
  a_begin(a);
  a_kind(a, 2);
  a_ul(a, 3);
  a_end(a);
  a_ul(a, 2);
  a_end(a);
  a_str(a, "inner");
  a_kind(a, 11);
  a_end(a);
  /* The value. */
  a_oct(a, 9);
  a_ul(a, (uint32_t)disc);
  if (disc == 1) {
    a_num(a, (uint16_t)-7, 2);
  } else {
    a_str(a, "x\"y\n");
  }
  a_ul(a, 2);          /* blue */
  a_ul(a, 2);
  a_str(a, "n1");
  a_str(a, "n2");
  for (int k = 0; k < 6; k++)
    a_num(a, (uint64_t)k, 2);
  a_kind(a, 5);        /* the inner any: a ulong */
  a_ul(a, 77);
}

START_TEST(test_unknown_type)
{
  for (int le = 0; le <= 1; le++) {
    asmb w;
    unknown_octets(&w, le, 1);
    cdr_any a;
    ck_assert_int_eq(dec(w.t.b, w.t.n, le, &a, NULL), CDR_OK);
    ck_assert_uint_eq(a._type->size, sizeof(Unknown));
    ck_assert_uint_eq(a._type->align, alignof(Unknown));
    const Unknown *u = a._value;
    ck_assert_int_eq(u->o, 9);
    ck_assert_int_eq(u->u._d, 1);
    ck_assert_int_eq(u->u._u.s, -7);
    ck_assert_uint_eq(u->color, 2);
    ck_assert_uint_eq(u->names._length, 2);
    ck_assert_str_eq(((char **)u->names._buffer)[1], "n2");
    ck_assert_int_eq(u->arr[1][2], 5);
    uint32_t iv;
    ck_assert_int_eq(cdr_any_extract_ulong(&u->inner, &iv), CDR_OK);
    ck_assert_uint_eq(iv, 77);
    char buf[256];
    size_t n = cdr_any_print(buf, sizeof buf, &a);
    ck_assert_str_eq(buf, "Unknown{o=9, u=U{_d=1, s=-7}, color=blue, names=[\"n1\", \"n2\"], "
                          "arr=[[0, 1, 2], [3, 4, 5]], inner=any(77)}");
    ck_assert_uint_eq(n, strlen(buf));
    /* Sent on unchanged: the original octets. */
    cdr_opts op;
    cdr_opts_default(&op);
    op.byte_order = (uint8_t)le;
    size_t m;
    uint8_t *d = enc(&a, &op, &m);
    TU_CTX("unknown type sent on, le=%d", le);
    TU_ASSERT_BYTES(d, m, w.t.b, w.t.n);
    free(d);
    /* Re-encoded (the octets dropped): the same octets, as they hold no padding garbage. */
    cdr_any_forget_octets(&a);
    d = enc(&a, &op, &m);
    TU_ASSERT_BYTES(d, m, w.t.b, w.t.n);
    free(d);
    /* The default branch, with a string of escapes. */
    unknown_octets(&w, le, 5);
    ck_assert_int_eq(dec(w.t.b, w.t.n, le, &a, NULL), CDR_OK);
    ck_assert_str_eq(((const Unknown *)a._value)->u._u.str, "x\"y\n");
    cdr_any_print(buf, sizeof buf, &a);
    ck_assert_str_eq(buf, "Unknown{o=9, u=U{_d=5, str=\"x\\\"y\\n\"}, color=blue, names=[\"n1\", \"n2\"], "
                          "arr=[[0, 1, 2], [3, 4, 5]], inner=any(77)}");
    /* Truncated: snprintf's contract. */
    n = strlen(buf);
    ck_assert_uint_eq(cdr_any_print(buf, 8, &a), n);
    ck_assert_str_eq(buf, "Unknown");
    ck_assert_uint_eq(cdr_any_print(NULL, 0, &a), n);
    cdr_any c;
    cdr_any_init(&c);
    ck_assert_int_eq(cdr_any_copy(&c, &a), CDR_OK);
    cdr_arena_reset(&arena);
    cdr_any_print(buf, sizeof buf, &c);
    ck_assert_str_eq(buf, "Unknown{o=9, u=U{_d=5, str=\"x\\\"y\\n\"}, color=blue, names=[\"n1\", \"n2\"], "
                          "arr=[[0, 1, 2], [3, 4, 5]], inner=any(77)}");
    cdr_any_free(&c);
  }
}
END_TEST

/* ---------------------------------------------------------------- value graphs */

typedef struct Node {
  cdr_value hdr;
  int32_t id;
  struct Node *next;
} Node;
static cdr_value_type node_vt;
static const cdr_type node_t = { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *),
                                 .name = "Node", .u.val.vt = &node_vt };
static const cdr_member node_m[] = { { "id", &cdr_type_long, offsetof(Node, id) },
                                     { "next", &node_t, offsetof(Node, next) } };
static cdr_value_type node_vt = { .name = "Node", .repo_id = "IDL:T/Node:1.0", .members = node_m,
                                  .nmembers = 2, .size = sizeof(Node), .align = alignof(Node) };

/* Node's TypeCode as the library writes it, in A. */
static void node_tc(asmb *a)
{
  size_t k = a_head(a, 29, "IDL:T/Node:1.0", "Node");
  a_num(a, 0, 2);      /* VM_NONE */
  a_kind(a, 0);        /* no concrete base */
  a_ul(a, 2);
  a_str(a, "id");
  a_kind(a, 3);
  a_num(a, 1, 2);      /* PUBLIC_MEMBER */
  a_str(a, "next");
  a_ul(a, 0xffffffffu);
  a_ul(a, (uint32_t)(int32_t)((int64_t)k - (int64_t)a->t.n));
  a_num(a, 1, 2);
  a_end(a);
}

START_TEST(test_values_share_across_any)
{
  /* n1 -> n2 -> n1 written outside, then an any holding n2: the any's
   * value is an indirection to n2 inside the first graph. */
  Node n1 = { { &node_vt }, 1, NULL }, n2 = { { &node_vt }, 2, &n1 };
  n1.next = &n2;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  cdr_out o;
  cdr_out_init(&o, &op);
  Node *p1 = &n1;
  void *slot = &n2;
  cdr_any a = { &node_t, &slot, 0, NULL };
  ck_assert_int_eq(cdr_write(&o, &node_t, &p1), CDR_OK);
  ck_assert_int_eq(cdr_put_any(&o, &a), CDR_OK);
  asmb w;
  a_init(&w, 1);
  a_ul(&w, 0x7fffff00u);
  a_ul(&w, 1);
  a_ul(&w, 0x7fffff00u); /* n2 at 8 */
  a_ul(&w, 2);
  a_ul(&w, 0xffffffffu);
  a_ul(&w, (uint32_t)-20);
  node_tc(&w);
  a_ul(&w, 0xffffffffu);
  a_ul(&w, (uint32_t)(int32_t)(8 - (int64_t)w.t.n));
  TU_CTX("a value graph, then an any holding one of its values");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.t.b, w.t.n);
  cdr_out_close(&o);
  cdr_in i;
  cdr_in_init(&i, w.t.b, w.t.n, CDR_LITTLE_ENDIAN, NULL);
  cdr_in_set_arena(&i, &arena);
  Node *q1 = NULL;
  cdr_any b;
  ck_assert_int_eq(cdr_read(&i, &node_t, &q1), CDR_OK);
  ck_assert_int_eq(cdr_get_any(&i, &b), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&i), 0);
  cdr_in_close(&i);
  ck_assert_ptr_eq(*(Node **)b._value, q1->next);
  ck_assert_ptr_eq(q1->next->next, q1);
  ck_assert_ptr_null(b._cdr_octets); /* an indirection left it: encoded again */
  char buf[128];
  cdr_any_print(buf, sizeof buf, &b);
  ck_assert_str_eq(buf, "Node#1{id=2, next=Node#2{id=1, next=@1}}");

  /* The other way: first inside the any, then outside (an indirection into
   * the any, to a value of the type its TypeCode built). */
  cdr_out_init(&o, &op);
  slot = &n1;
  p1 = &n2;
  ck_assert_int_eq(cdr_put_any(&o, &a), CDR_OK);
  ck_assert_int_eq(cdr_write(&o, &node_t, &p1), CDR_OK);
  a_init(&w, 1);
  node_tc(&w);
  tu_pad(&w.t, 0, 4);
  size_t t1 = w.t.n;
  a_ul(&w, 0x7fffff00u);
  a_ul(&w, 1);
  a_ul(&w, 0x7fffff00u);
  a_ul(&w, 2);
  a_ul(&w, 0xffffffffu);
  a_ul(&w, (uint32_t)(int32_t)((int64_t)t1 - (int64_t)w.t.n));
  a_ul(&w, 0xffffffffu);
  a_ul(&w, (uint32_t)(int32_t)((int64_t)t1 + 8 - (int64_t)w.t.n));
  TU_CTX("an any holding a graph, then a value of it");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.t.b, w.t.n);
  cdr_out_close(&o);
  cdr_in_init(&i, w.t.b, w.t.n, CDR_LITTLE_ENDIAN, NULL);
  cdr_in_set_arena(&i, &arena);
  ck_assert_int_eq(cdr_get_any(&i, &b), CDR_OK);
  ck_assert_int_eq(cdr_read(&i, &node_t, &q1), CDR_OK);
  cdr_in_close(&i);
  Node *r1 = *(Node **)b._value;
  ck_assert_ptr_eq(r1->next, q1);
  ck_assert_ptr_eq(q1->next, r1);
  ck_assert_int_eq(q1->id, 2);
  /* A heap copy: the cycle kept, the types its own (the arena goes). */
  cdr_any c;
  cdr_any_init(&c);
  ck_assert_int_eq(cdr_any_copy(&c, &b), CDR_OK);
  ck_assert_int_eq(cdr_any_equal(&b, &c), 1);
  cdr_arena_reset(&arena);
  Node *c1 = *(Node **)c._value;
  ck_assert_ptr_eq(c1->next->next, c1);
  cdr_any_print(buf, sizeof buf, &c);
  ck_assert_str_eq(buf, "Node#1{id=1, next=Node#2{id=2, next=@1}}");
  cdr_any_free(&c);
}
END_TEST

typedef struct Two { Node *a, *b; } Two;
static const cdr_member two_m[] = { CDR_MEMBER(Two, a, &node_t), CDR_MEMBER(Two, b, &node_t) };
static const cdr_type two_t = CDR_STRUCT_TYPE(Two, "Two", "IDL:T/Two:1.0", two_m);

START_TEST(test_graph_copy_equal)
{
  /* Sharing (a and b the same node) and a self-cycle. */
  Node x = { { &node_vt }, 5, NULL };
  x.next = &x;
  Two t = { &x, &x };
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_set(&a, &two_t, &t), CDR_OK);
  const Two *h = a._value;
  ck_assert_ptr_ne(h->a, &x);
  ck_assert_ptr_eq(h->a, h->b);
  ck_assert_ptr_eq(h->a->next, h->a);
  char buf[128];
  cdr_any_print(buf, sizeof buf, &a);
  ck_assert_str_eq(buf, "Two{a=Node#1{id=5, next=@1}, b=@1}");
  /* The same values, another shape: not equal. */
  Node y = { { &node_vt }, 5, NULL }, z = { { &node_vt }, 5, &y };
  y.next = &z;
  Two u = { &y, &y };
  cdr_any b = { &two_t, &u, 0, NULL };
  ck_assert_int_eq(cdr_any_equal(&a, &b), 0);
  Two v = { &x, &y };
  b._value = &v;
  ck_assert_int_eq(cdr_any_equal(&a, &b), 0);
  b._value = &t;
  ck_assert_int_eq(cdr_any_equal(&a, &b), 1);
  ((Two *)a._value)->a->id = 6;
  ck_assert_int_eq(cdr_any_equal(&a, &b), 0);
  /* Through the wire. */
  size_t n;
  uint8_t *d = enc(&b, NULL, &n);
  cdr_any r;
  ck_assert_int_eq(dec(d, n, CDR_HOST_ORDER, &r, NULL), CDR_OK);
  ck_assert_int_eq(cdr_any_equal(&r, &b), 1);
  free(d);
  cdr_any_free(&a);
  ck_assert_ptr_null(a._value);

  /* A list of 100,000 nodes: copy, equal, free take no C stack. */
  enum { N = 100000 };
  Node *l = calloc(N, sizeof *l);
  for (int k = 0; k < N; k++)
    l[k] = (Node){ { &node_vt }, k, k + 1 < N ? &l[k + 1] : NULL };
  void *head = l;
  cdr_any big = { &node_t, &head, 0, NULL };
  ck_assert_int_eq(cdr_any_copy(&a, &big), CDR_OK);
  ck_assert_int_eq(cdr_any_equal(&a, &big), 1);
  Node *e = *(Node **)a._value;
  for (int k = 0; k < N - 1; k++)
    e = e->next;
  ck_assert_int_eq(e->id, N - 1);
  e->id = 0;
  ck_assert_int_eq(cdr_any_equal(&a, &big), 0);
  ck_assert_uint_gt(cdr_any_print(NULL, 0, &a), 1000);
  cdr_any_free(&a);
  free(l);
}
END_TEST

/* ---------------------------------------------------------------- object references */

static const cdr_type iface_t = { .kind = CDR_K_OBJREF, .size = sizeof(void *), .align = alignof(void *),
                                  .name = "I", .repo_id = "IDL:T/I:1.0" };

START_TEST(test_objref_ior)
{
  uint8_t data[3] = { 1, 2, 3 };
  cdr_tagged_profile pr = { 0, { 3, 3, data, 0 } };
  cdr_ior ior = { "IDL:T/I:1.0", { 1, 1, &pr, 0 } };
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_insert_objref(&a, &iface_t, &ior), CDR_OK);
  ck_assert_int_eq(cdr_any_insert_objref(&a, &cdr_type_long, &ior), CDR_E_BADKIND);
  ck_assert_int_eq(cdr_any_insert_objref(&a, &iface_t, &ior), CDR_OK);
  const cdr_ior *got;
  ck_assert_int_eq(cdr_any_extract_objref(&a, (const void **)&got), CDR_OK);
  ck_assert_ptr_ne(got, &ior);
  ck_assert_str_eq(got->type_id, "IDL:T/I:1.0");
  asmb w;
  a_init(&w, 1);
  a_head(&w, 14, "IDL:T/I:1.0", "I");
  a_end(&w);
  a_str(&w, "IDL:T/I:1.0");
  a_ul(&w, 1);
  a_ul(&w, 0);
  a_ul(&w, 3);
  tu_put(&w.t, data, 3);
  TU_CTX("an IOR");
  expect(&a, (const char *)w.t.b, w.t.n);
  cdr_any b;
  ck_assert_int_eq(dec(w.t.b, w.t.n, 1, &b, NULL), CDR_OK);
  const cdr_ior *r = *(const cdr_ior **)b._value;
  ck_assert_uint_eq(r->profiles._length, 1);
  ck_assert_int_eq(memcmp(((cdr_tagged_profile *)r->profiles._buffer)->profile_data._buffer, data, 3), 0);
  char buf[64];
  cdr_any_print(buf, sizeof buf, &b);
  ck_assert_str_eq(buf, "objref(\"IDL:T/I:1.0\")");
  cdr_any_free(&a);
}
END_TEST

/* A program's references: an id, its IOR one profile of tag 99 holding it. */
typedef struct tref { uint32_t id; } tref;
static int live_refs, hook_reads;

static int th_write(cdr_out *o, const void *ref, void *ud)
{
  ck_assert_ptr_eq(ud, &live_refs);
  uint8_t d[4];
  memcpy(d, &((const tref *)ref)->id, 4);
  cdr_tagged_profile p = { 99, { 4, 4, d, 0 } };
  cdr_ior ior = { "IDL:T/I:1.0", { 1, 1, &p, 0 } };
  return cdr_write(o, &cdr_type_ior, &ior);
}
static int th_read(cdr_in *i, void **ref, void *ud)
{
  (void)ud;
  cdr_ior ior;
  if (cdr_read(i, &cdr_type_ior, &ior) != CDR_OK)
    return i->status;
  if (!ior.profiles._length)
    return CDR_OK;
  const cdr_tagged_profile *p = ior.profiles._buffer;
  if (p->tag != 99 || p->profile_data._length != 4)
    return cdr_in_fail(i, CDR_E_VALUE, "not a test reference");
  tref *t = cdr_arena_alloc(cdr_in_arena(i), sizeof *t, alignof(tref));
  memcpy(&t->id, p->profile_data._buffer, 4);
  *ref = t;
  hook_reads++;
  return CDR_OK;
}
static void *th_dup(const void *ref, void *ud)
{
  (void)ud;
  tref *t = malloc(sizeof *t);
  *t = *(const tref *)ref;
  live_refs++;
  return t;
}
static void th_release(void *ref, void *ud)
{
  (void)ud;
  free(ref);
  live_refs--;
}
static int th_equal(const void *a, const void *b, void *ud)
{
  (void)ud;
  return ((const tref *)a)->id == ((const tref *)b)->id;
}

START_TEST(test_objref_hooks)
{
  cdr_objref_hooks h = { th_write, th_read, th_dup, th_release, th_equal, &live_refs };
  cdr_objref_hooks bad = h;
  bad.dup = NULL;
  ck_assert_int_eq(cdr_set_objref_hooks(&bad), CDR_E_INVALID);
  ck_assert_int_eq(cdr_set_objref_hooks(&h), CDR_OK);
  tref r = { 0x01020304 };
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_insert_objref(&a, &iface_t, &r), CDR_OK);
  ck_assert_int_eq(live_refs, 1);
  asmb w;
  a_init(&w, 1);
  a_head(&w, 14, "IDL:T/I:1.0", "I");
  a_end(&w);
  a_str(&w, "IDL:T/I:1.0");
  a_ul(&w, 1);
  a_ul(&w, 99);
  a_ul(&w, 4);
  a_ul(&w, 0x01020304);
  TU_CTX("a reference through the hooks");
  expect(&a, (const char *)w.t.b, w.t.n);
  cdr_any b, c;
  cdr_any_init(&c);
  ck_assert_int_eq(dec(w.t.b, w.t.n, 1, &b, NULL), CDR_OK);
  ck_assert_uint_eq((*(tref **)b._value)->id, 0x01020304);
  ck_assert_int_eq(cdr_any_copy(&c, &b), CDR_OK);
  ck_assert_int_eq(live_refs, 2);
  ck_assert_int_eq(cdr_any_equal(&a, &c), 1);
  cdr_any_free(&c);
  cdr_any_free(&a);
  ck_assert_int_eq(live_refs, 0);
  ck_assert_int_gt(hook_reads, 0);
  ck_assert_int_eq(cdr_set_objref_hooks(NULL), CDR_OK);
}
END_TEST

/* ---------------------------------------------------------------- original octets */

/* An any of Pt {short x; long y} in byte order LE at phase PHASE (octets
 * before it), with garbage in every padding octet when GARBAGE. */
static void pt_octets(asmb *w, size_t phase, bool garbage)
{
  a_init(w, 1);
  for (size_t k = 0; k < phase; k++)
    a_oct(w, 0xee);
  size_t p0 = w->t.n;
  a_head(w, 15, "IDL:T/Pt:1.0", "Pt");
  a_ul(w, 2);
  a_str(w, "x");
  a_kind(w, 2);
  a_str(w, "y");
  a_kind(w, 3);
  a_end(w);
  a_num(w, 0xfffe, 2);
  a_ul(w, 7);
  if (!garbage)
    return;
  /* The padding octets: after the encapsulation's byte-order octet, after
   * each string's NUL up to the next kind, and after x. */
  static const size_t pads[] = { 9, 10, 11, 29, 30, 31, 39, 50, 51, 62, 63, 70, 71 };
  for (size_t k = 0; k < sizeof pads / sizeof pads[0]; k++)
    if (p0 + pads[k] < w->t.n)
      w->t.b[p0 + pads[k]] = 0xaa;
}

START_TEST(test_original_octets)
{
  asmb g, z;
  pt_octets(&g, 0, true);
  pt_octets(&z, 0, false);
  ck_assert_int_ne(memcmp(g.t.b, z.t.b, g.t.n), 0);
  cdr_any a;
  ck_assert_int_eq(dec(g.t.b, g.t.n, 1, &a, NULL), CDR_OK);
  ck_assert_ptr_nonnull(a._cdr_octets);
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  size_t n;
  uint8_t *d = enc(&a, &op, &n);
  TU_CTX("same byte order, code sets, GIOP minor, phase: the original octets");
  TU_ASSERT_BYTES(d, n, g.t.b, g.t.n);
  free(d);
  /* At another phase: encoded again. */
  cdr_out o;
  cdr_out_init(&o, &op);
  cdr_put_octet(&o, 0xee);
  ck_assert_int_eq(cdr_put_any(&o, &a), CDR_OK);
  asmb z1;
  pt_octets(&z1, 1, false);
  TU_CTX("another phase: encoded");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), z1.t.b, z1.t.n);
  cdr_out_close(&o);
  /* Another GIOP minor: encoded. */
  op.giop_minor = 1;
  d = enc(&a, &op, &n);
  TU_CTX("GIOP 1.1: encoded");
  TU_ASSERT_BYTES(d, n, z.t.b, z.t.n);
  free(d);
  /* Another char code set: encoded. */
  op.giop_minor = 2;
  op.tcs_c = CDR_CS_UTF8;
  d = enc(&a, &op, &n);
  TU_CTX("UTF-8: encoded");
  TU_ASSERT_BYTES(d, n, z.t.b, z.t.n);
  free(d);
  op.tcs_c = CDR_CS_ISO8859_1;
  /* Another byte order: encoded, big-endian. */
  op.byte_order = CDR_BIG_ENDIAN;
  d = enc(&a, &op, &n);
  ck_assert_uint_eq(n, z.t.n);
  ck_assert_int_eq(d[3], 15);
  ck_assert_int_eq(memcmp(d + n - 8, "\xff\xfe\0\0\0\0\0\7", 8), 0);
  free(d);
  op.byte_order = CDR_LITTLE_ENDIAN;
  /* A value changed through the API: encoded. */
  cdr_any c = a;
  int32_t y = 8;
  const void *pv;
  ck_assert_int_eq(cdr_any_get(&c, a._type, &pv), CDR_OK);
  uint8_t copy[8];
  memcpy(copy, pv, 8);
  memcpy(copy + 4, &y, 4);
  c._value = copy;
  d = enc(&c, &op, &n);
  ck_assert_int_eq(d[n - 4], 8);
  ck_assert_int_eq(memcmp(d, z.t.b, n - 4), 0);
  free(d);
  /* Forgotten: encoded. */
  cdr_any_forget_octets(&a);
  d = enc(&a, &op, &n);
  TU_CTX("forgotten: encoded");
  TU_ASSERT_BYTES(d, n, z.t.b, z.t.n);
  free(d);
  /* Read at phase 4, written at phase 4: the original octets again. */
  asmb g4;
  pt_octets(&g4, 4, true);
  cdr_in i;
  cdr_in_init(&i, g4.t.b, g4.t.n, 1, NULL);
  cdr_in_set_arena(&i, &arena);
  ck_assert_uint_eq(cdr_get_ulong(&i), 0xeeeeeeee);
  ck_assert_int_eq(cdr_get_any(&i, &a), CDR_OK);
  cdr_in_close(&i);
  cdr_out_init(&o, &op);
  cdr_put_ulong(&o, 0xeeeeeeee);
  ck_assert_int_eq(cdr_put_any(&o, &a), CDR_OK);
  TU_CTX("phase 4 both sides: the original octets");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), g4.t.b, g4.t.n);
  cdr_out_close(&o);
}
END_TEST

/* ---------------------------------------------------------------- hostile input */

START_TEST(test_hostile)
{
  for (int le = 0; le <= 1; le++) {
    /* C02 (b): sequence<struct E {}> of 0xFFFFFFFF elements, no element
     * octets: refused by max_seq, nothing allocated for it. */
    asmb w;
    a_init(&w, le);
    a_kind(&w, 19);
    a_begin(&w);
    a_head(&w, 15, "IDL:T/E:1.0", "E");
    a_ul(&w, 0);
    a_end(&w);
    a_ul(&w, 0);
    a_end(&w);
    a_ul(&w, 0xffffffffu);
    cdr_any a;
    size_t used = cdr_arena_used(&arena);
    ck_assert_int_eq(dec(w.t.b, w.t.n, le, &a, NULL), CDR_E_LIMIT);
    ck_assert_uint_lt(cdr_arena_used(&arena) - used, 4096);
    /* sequence<union switch (long) { case 1: octet big[1000000]; }> of
     * 900 elements in 3600 octets (each selects no branch): refused
     * before the 900 MB its C layout would take are allocated. */
    a_init(&w, le);
    a_kind(&w, 19);
    a_begin(&w);
    a_head(&w, 16, "IDL:T/Big:1.0", "Big");
    a_kind(&w, 3);
    a_ul(&w, (uint32_t)-1);
    a_ul(&w, 1);
    a_ul(&w, 1);
    a_str(&w, "big");
    a_kind(&w, 20);
    a_begin(&w);
    a_kind(&w, 10);
    a_ul(&w, 1000000);
    a_end(&w);
    a_end(&w);
    a_ul(&w, 0);
    a_end(&w);
    a_ul(&w, 900);
    for (int k = 0; k < 900; k++)
      a_ul(&w, 0);
    used = cdr_arena_used(&arena);
    ck_assert_int_eq(dec(w.t.b, w.t.n, le, &a, NULL), CDR_E_LENGTH);
    ck_assert_uint_lt(cdr_arena_used(&arena) - used, 65536);
    /* The same union as the state of a valuetype, 100 values of it in a
     * sequence: their objects are bounded together by the message. */
    a_init(&w, le);
    a_kind(&w, 19);
    a_begin(&w);
    a_head(&w, 29, "IDL:T/V:1.0", "V");
    a_num(&w, 0, 2);
    a_kind(&w, 0);
    a_ul(&w, 1);
    a_str(&w, "u");
    a_head(&w, 16, "IDL:T/Big:1.0", "Big");
    a_kind(&w, 3);
    a_ul(&w, (uint32_t)-1);
    a_ul(&w, 1);
    a_ul(&w, 1);
    a_str(&w, "big");
    a_kind(&w, 20);
    a_begin(&w);
    a_kind(&w, 10);
    a_ul(&w, 1000000);
    a_end(&w);
    a_end(&w);
    a_num(&w, 1, 2);
    a_end(&w);
    a_ul(&w, 0);
    a_end(&w);
    a_ul(&w, 100);
    for (int k = 0; k < 100; k++) {
      a_ul(&w, 0x7fffff00u);
      a_ul(&w, 0);
    }
    used = cdr_arena_used(&arena);
    ck_assert_int_eq(dec(w.t.b, w.t.n, le, &a, NULL), CDR_E_LENGTH);
    ck_assert_uint_lt(cdr_arena_used(&arena) - used, 65536);
    /* C09: struct { sequence<long> a; b } with b an indirection to a's
     * TypeCode: accepted; a loop or a stray offset is not. */
    for (int how = 0; how < 3; how++) {
      a_init(&w, le);
      a_head(&w, 15, "IDL:T/S:1.0", "S");
      a_ul(&w, 2);
      a_str(&w, "a");
      size_t sa = a_kind(&w, 19);
      a_begin(&w);
      a_kind(&w, 3);
      a_ul(&w, 0);
      a_end(&w);
      a_str(&w, "b");
      a_ul(&w, 0xffffffffu);
      int32_t off = how == 0 ? (int32_t)((int64_t)sa - (int64_t)w.t.n) : how == 1 ? -4 : 8;
      a_ul(&w, (uint32_t)off);
      a_end(&w);
      a_ul(&w, 1);
      a_ul(&w, 10);
      a_ul(&w, 2);
      a_ul(&w, 20);
      a_ul(&w, 30);
      int st = dec(w.t.b, w.t.n, le, &a, NULL);
      if (how) {
        ck_assert_int_eq(st, CDR_E_INDIRECTION);
        continue;
      }
      ck_assert_int_eq(st, CDR_OK);
      char buf[64];
      cdr_any_print(buf, sizeof buf, &a);
      ck_assert_str_eq(buf, "S{a=[10], b=[20, 30]}");
    }
    /* Every truncation of a rich any fails cleanly, every byte flip
     * decodes or fails cleanly. */
    unknown_octets(&w, le, 5);
    for (size_t k = 0; k < w.t.n; k++) {
      ck_assert_int_ne(dec(w.t.b, k, le, &a, NULL), CDR_OK);
      ck_assert_ptr_eq(a._type, cdr_tc_null);
    }
    for (size_t k = 0; k < w.t.n; k++) {
      uint8_t *d = tu_dup(w.t.b, w.t.n);
      d[k] ^= 0x81;
      if (dec(d, w.t.n, le, &a, NULL) == CDR_OK) {
        char buf[512];
        cdr_any_print(buf, sizeof buf, &a);
        cdr_any c;
        cdr_any_init(&c);
        ck_assert_int_eq(cdr_any_copy(&c, &a), CDR_OK);
        ck_assert_int_eq(cdr_any_equal(&c, &a), 1);
        cdr_any_free(&c);
      }
      free(d);
      cdr_arena_reset(&arena);
    }
  }
}
END_TEST

/* Every allocation failure of a deep copy ends in CDR_E_NOMEM with nothing
 * leaked and the destination empty. */
START_TEST(test_alloc_failures)
{
  asmb w;
  unknown_octets(&w, 1, 5);
  cdr_any srcs[3];
  ck_assert_int_eq(dec(w.t.b, w.t.n, 1, &srcs[0], NULL), CDR_OK);
  Node x = { { &node_vt }, 5, NULL }, y = { { &node_vt }, 6, &x };
  x.next = &y;
  Two t = { &x, &y };
  cdr_any_init(&srcs[1]);
  ck_assert_int_eq(cdr_any_set(&srcs[1], &two_t, &t), CDR_OK);
  cdr_any_init(&srcs[2]);
  ck_assert_int_eq(cdr_any_insert_any(&srcs[2], &srcs[1]), CDR_OK);
  for (int s = 0; s < 3; s++) {
    int done = 0;
    for (uint64_t k = 1; !done && k < 500; k++) {
      cdr_mem_counter mc;
      cdr_mem_counter_init(&mc, NULL);
      mc.fail_at = k;
      const cdr_allocator *old = cdr_mem_global();
      cdr_mem_set_global(&mc.alloc);
      cdr_any c;
      cdr_any_init(&c);
      int st = cdr_any_copy(&c, &srcs[s]);
      if (st == CDR_OK) {
        /* The comparison allocates too: it may be the one that fails. */
        int r = cdr_any_equal(&c, &srcs[s]);
        ck_assert(r == 1 || (r == CDR_E_NOMEM && mc.attempts >= k));
      } else {
        ck_assert_int_eq(st, CDR_E_NOMEM);
        ck_assert_ptr_eq(c._type, cdr_tc_null);
        ck_assert_ptr_null(c._value);
      }
      mc.fail_at = 0; /* freeing needs memory past 32 objects: not failed here */
      cdr_any_free(&c);
      cdr_mem_set_global(old);
      ck_assert_msg(mc.live == 0, "source %d, allocation %d: %lld blocks leaked", s, (int)k,
                    (long long)mc.live);
      done = mc.attempts < k;
    }
    ck_assert(done);
  }
  cdr_any_free(&srcs[2]);
  cdr_any_free(&srcs[1]);
}
END_TEST

/* An any as the state of a chunked value: read inside a chunk, so its
 * octets are not kept; written again inside a chunk. */
typedef struct AV {
  cdr_value hdr;
  cdr_any a;
  int32_t after;
} AV;
static cdr_value_type av_vt;
static const cdr_type av_t = { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *),
                               .name = "AV", .u.val.vt = &av_vt };
static const cdr_member av_m[] = { { "a", &cdr_type_any, offsetof(AV, a) },
                                   { "after", &cdr_type_long, offsetof(AV, after) } };
static cdr_value_type av_vt = { .name = "AV", .repo_id = "IDL:T/AV:1.0", .members = av_m,
                                .nmembers = 2, .size = sizeof(AV), .align = alignof(AV) };

START_TEST(test_any_in_chunked_value)
{
  AV v = { { &av_vt }, { NULL, NULL, 0, NULL }, 77 };
  ck_assert_int_eq(cdr_any_insert_string(&v.a, "chunked"), CDR_OK);
  cdr_value_opts vo;
  cdr_value_opts_default(&vo);
  vo.chunk_all = 1;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  cdr_out o;
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_out_set_value_opts(&o, &vo), CDR_OK);
  AV *pv = &v;
  ck_assert_int_eq(cdr_write(&o, &av_t, &pv), CDR_OK);
  asmb w;
  a_init(&w, 1);
  a_ul(&w, 0x7fffff08u);   /* chunked, no type information */
  a_ul(&w, 24);            /* the chunk: the any and after */
  a_kind(&w, 18);
  a_ul(&w, 0);
  a_str(&w, "chunked");
  a_ul(&w, 77);
  a_ul(&w, (uint32_t)-1);  /* end tag */
  TU_CTX("an any in a chunked value");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.t.b, w.t.n);
  cdr_out_close(&o);
  cdr_in i;
  cdr_in_init(&i, w.t.b, w.t.n, CDR_LITTLE_ENDIAN, NULL);
  cdr_in_set_arena(&i, &arena);
  AV *r = NULL;
  ck_assert_int_eq(cdr_read(&i, &av_t, &r), CDR_OK);
  cdr_in_close(&i);
  ck_assert_int_eq(r->after, 77);
  ck_assert_ptr_null(r->a._cdr_octets);
  ck_assert_int_eq(cdr_any_equal(&r->a, &v.a), 1);
  cdr_any_free(&v.a);
}
END_TEST

/* The kinds the other tests do not carry: exception, value box, Principal,
 * abstract interface, alias, bounded string, sequence<any>, a recursive
 * TypeCode as a value.  Each round-trips and prints. */
typedef struct Oops { int32_t code; } Oops;
static const cdr_member oops_m[] = { CDR_MEMBER(Oops, code, &cdr_type_long) };
static const cdr_type oops_t = { .kind = CDR_K_EXCEPT, .size = sizeof(Oops), .align = alignof(Oops),
                                 .name = "Oops", .repo_id = "IDL:T/Oops:1.0", .u.st = { oops_m, 1 } };
typedef struct Box { cdr_value hdr; char *s; } Box;
static const cdr_member box_m[] = { { NULL, &cdr_type_string, offsetof(Box, s) } };
static cdr_value_type box_vt = { .name = "Box", .repo_id = "IDL:T/Box:1.0", .flags = CDR_VT_BOX,
                                 .members = box_m, .nmembers = 1, .size = sizeof(Box),
                                 .align = alignof(Box) };
static const cdr_type box_t = { .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *),
                                .name = "Box", .u.val.vt = &box_vt };
static const cdr_type abs_t = { .kind = CDR_K_ABSTRACT_INTERFACE, .size = sizeof(void *),
                                .align = alignof(void *), .name = "A", .repo_id = "IDL:T/A:1.0" };
static const cdr_type lalias_t = { .kind = CDR_K_ALIAS, .size = 4, .align = 4, .name = "L",
                                   .repo_id = "IDL:T/L:1.0", .u.alias.type = &cdr_type_long };
static const cdr_type bstr_t = { .kind = CDR_K_STRING, .size = sizeof(char *), .align = alignof(char *),
                                 .u.str.bound = 4 };
static const cdr_type anyseq_t = CDR_SEQUENCE_TYPE(&cdr_type_any, 0);

static void kind_case(const cdr_type *t, const void *v, const char *text)
{
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_set(&a, t, v), CDR_OK);
  TU_CTX("%s", text);
  round_trip(&a);
  char buf[256];
  cdr_any_print(buf, sizeof buf, &a);
  ck_assert_str_eq(buf, text);
  cdr_any_free(&a);
}

START_TEST(test_more_kinds)
{
  kind_case(&oops_t, &(Oops){ 3 }, "Oops{code=3}");
  Box b = { { &box_vt }, "boxed" };
  kind_case(&box_t, &(Box *){ &b }, "Box#1(\"boxed\")");
  kind_case(&box_t, &(Box *){ NULL }, "null");
  uint8_t pd[2] = { 1, 2 };
  kind_case(&cdr_type_principal, &(cdr_seq){ 2, 2, pd, 0 }, "[1, 2]");
  cdr_tagged_profile pr = { 7, { 2, 2, pd, 0 } };
  cdr_ior ior = { "IDL:T/A:1.0", { 1, 1, &pr, 0 } };
  kind_case(&abs_t, &(cdr_ior *){ &ior }, "objref(\"IDL:T/A:1.0\")");
  kind_case(&abs_t, &(cdr_ior *){ NULL }, "objref(nil)");
  kind_case(&lalias_t, &(int32_t){ -9 }, "-9");
  kind_case(&bstr_t, &(char *){ "abcd" }, "\"abcd\"");
  cdr_any e[2];
  cdr_any_init(&e[0]);
  cdr_any_init(&e[1]);
  ck_assert_int_eq(cdr_any_insert_char(&e[0], '\''), CDR_OK);
  ck_assert_int_eq(cdr_any_insert_wchar(&e[1], 0x20ac), CDR_OK);
  kind_case(&anyseq_t, &(cdr_seq){ 2, 2, e, 0 }, "[any('\\''), any(L'\\u20ac')]");
  cdr_any_free(&e[0]);
  cdr_any_free(&e[1]);
  kind_case(&cdr_type_typecode, &(cdr_typecode){ &node_t }, "TypeCode(IDL:T/Node:1.0)");
  kind_case(&cdr_type_typecode, &(cdr_typecode){ cdr_tc_double }, "TypeCode(double)");
  /* A bounded string over its bound does not go. */
  cdr_any a = { &bstr_t, &(char *){ "abcde" }, 0, NULL };
  cdr_out o;
  cdr_out_init(&o, NULL);
  ck_assert_int_eq(cdr_put_any(&o, &a), CDR_E_VALUE);
  cdr_out_close(&o);
  /* A decoded recursive TypeCode value outlives the arena in a copy. */
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_insert_typecode(&a, &node_t), CDR_OK);
  size_t n;
  uint8_t *d = enc(&a, NULL, &n);
  cdr_any r, c;
  cdr_any_init(&c);
  ck_assert_int_eq(dec(d, n, CDR_HOST_ORDER, &r, NULL), CDR_OK);
  ck_assert_int_eq(cdr_any_copy(&c, &r), CDR_OK);
  cdr_arena_reset(&arena);
  cdr_typecode got;
  ck_assert_int_eq(cdr_any_extract_typecode(&c, &got), CDR_OK);
  ck_assert_int_eq(cdr_tc_equal(got, &node_t), 1);
  cdr_any_free(&c);
  cdr_any_free(&a);
  free(d);
}
END_TEST

/* A TypeCode off the wire with a program's repository ID but other
 * members: equivalent, yet its value is not the program's C type, so
 * extraction and comparison refuse it instead of reading it as that. */
START_TEST(test_same_id_other_layout)
{
  asmb w;
  a_init(&w, 1);
  a_head(&w, 15, "IDL:T/Pt:1.0", "Pt");
  a_ul(&w, 1);
  a_str(&w, "s");
  a_kind(&w, 18);
  a_ul(&w, 0);
  a_end(&w);
  a_str(&w, "not a Pt");
  cdr_any b;
  ck_assert_int_eq(dec(w.t.b, w.t.n, 1, &b, NULL), CDR_OK);
  ck_assert_int_eq(cdr_tc_equivalent(b._type, &pt_t), 1);
  const void *p = NULL;
  ck_assert_int_eq(cdr_any_get(&b, &pt_t, &p), CDR_E_TYPE);
  ck_assert_ptr_null(p);
  cdr_any a = { &pt_t, &(pt){ 1, 2 }, 0, NULL };
  ck_assert_int_eq(cdr_any_equal(&a, &b), 0);
  ck_assert_int_eq(cdr_any_equal(&b, &a), 0);
  /* The same for a value type: Node's ID, a string member. */
  a_init(&w, 1);
  a_head(&w, 29, "IDL:T/Node:1.0", "Node");
  a_num(&w, 0, 2);
  a_kind(&w, 0);
  a_ul(&w, 1);
  a_str(&w, "id");
  a_kind(&w, 18);
  a_ul(&w, 0);
  a_num(&w, 1, 2);
  a_end(&w);
  a_ul(&w, 0x7fffff00u);
  a_str(&w, "x");
  ck_assert_int_eq(dec(w.t.b, w.t.n, 1, &b, NULL), CDR_OK);
  Node n = { { &node_vt }, 1, NULL };
  cdr_any c = { &node_t, &(Node *){ &n }, 0, NULL };
  ck_assert_int_eq(cdr_any_equal(&c, &b), 0);
  ck_assert_int_eq(cdr_any_get(&b, &node_t, &p), CDR_E_TYPE);
  /* A program Node, then an any of that other Node type whose value is an
   * indirection to it: refused (the object is no value of the any's type). */
  asmb v;
  a_init(&v, 1);
  a_ul(&v, 0x7fffff00u);
  a_ul(&v, 1);
  a_ul(&v, 0);
  tu_put(&v.t, w.t.b, w.t.n - 4 - 6);  /* the TypeCode alone */
  a_ul(&v, 0xffffffffu);
  a_ul(&v, (uint32_t)-(int32_t)v.t.n);
  cdr_in i;
  cdr_in_init(&i, v.t.b, v.t.n, 1, NULL);
  cdr_in_set_arena(&i, &arena);
  Node *q = NULL;
  ck_assert_int_eq(cdr_read(&i, &node_t, &q), CDR_OK);
  ck_assert_int_eq(cdr_get_any(&i, &b), CDR_E_INDIRECTION);
  cdr_in_close(&i);
}
END_TEST

/* ---------------------------------------------------------------- omniORB's anys */

/* Anys as omniORB 4.2.5 marshals them (CORBA::Any::operator>>=(cdrStream&)
 * into a cdrMemoryStream, x86-64, little-endian), of these types:
 *   module T {
 *     struct Pt { short x; long y; };
 *     union U switch (long) { case 1: short s; default: string str; };
 *     enum Color { red, green, blue };
 *     valuetype Node { public long id; public Node next; };
 *     typedef sequence<Pt> PtSeq;
 *     struct Rec { string name; sequence<Rec> kids; };
 *   };
 * long -2; "hi\"x"; Pt{-2, 7}; U s=5; U default str="d"; blue; PtSeq of two;
 * Rec root with one kid; an any holding short 3; an empty any; wchar U+20AC;
 * wstring "a\u20ac"; the TypeCode of Rec; a nil CORBA::Object; two Nodes in a
 * cycle.  PADS: where omniORB leaves alignment padding uninitialised (the
 * library writes zeros there). */
static const struct omni_any {
  const char *name;
  const char *octets;
  size_t n;
  const char *text;
  size_t pads[8];
  size_t npads;
} omni_anys[] = {
  { "long",
    "\x03\x00\x00\x00\xfe\xff\xff\xff",
    8, "-2", { 0 }, 0 },
  { "string",
    "\x12\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x68\x69\x22\x78\x00",
    17, "\"hi\\\"x\"", { 0 }, 0 },
  { "pt",
    "\x0f\x00\x00\x00\x3c\x00\x00\x00\x01\x00\x00\x00\x0d\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x50\x74"
    "\x3a\x31\x2e\x30\x00\x00\x00\x00\x03\x00\x00\x00\x50\x74\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00"
    "\x78\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x79\x00\x00\x00\x03\x00\x00\x00\xfe\xff\x00\x00"
    "\x07\x00\x00\x00",
    76, "Pt{x=-2, y=7}", { 0 }, 0 },
  { "u1",
    "\x10\x00\x00\x00\x4c\x00\x00\x00\x01\x00\x00\x00\x0c\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x55\x3a"
    "\x31\x2e\x30\x00\x02\x00\x00\x00\x55\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"
    "\x01\x00\x00\x00\x02\x00\x00\x00\x73\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00"
    "\x73\x74\x72\x00\x12\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00",
    90, "U{_d=1, s=5}", { 0 }, 0 },
  { "udef",
    "\x10\x00\x00\x00\x4c\x00\x00\x00\x01\x00\x00\x00\x0c\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x55\x3a"
    "\x31\x2e\x30\x00\x02\x00\x00\x00\x55\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"
    "\x01\x00\x00\x00\x02\x00\x00\x00\x73\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00"
    "\x73\x74\x72\x00\x12\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x02\x00\x00\x00\x64\x00",
    94, "U{_d=-2147483648, str=\"d\"}", { 0 }, 0 },
  { "enum",
    "\x11\x00\x00\x00\x45\x00\x00\x00\x01\x00\x00\x00\x10\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x43\x6f"
    "\x6c\x6f\x72\x3a\x31\x2e\x30\x00\x06\x00\x00\x00\x43\x6f\x6c\x6f\x72\x00\x00\x00\x03\x00\x00\x00"
    "\x04\x00\x00\x00\x72\x65\x64\x00\x06\x00\x00\x00\x67\x72\x65\x65\x6e\x00\x00\x00\x05\x00\x00\x00"
    "\x62\x6c\x75\x65\x00\x00\x00\x00\x02\x00\x00\x00",
    84, "blue", { 0 }, 0 },
  { "ptseq",
    "\x15\x00\x00\x00\x78\x00\x00\x00\x01\x00\x00\x00\x10\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x50\x74"
    "\x53\x65\x71\x3a\x31\x2e\x30\x00\x06\x00\x00\x00\x50\x74\x53\x65\x71\x00\x00\x00\x13\x00\x00\x00"
    "\x4c\x00\x00\x00\x01\x00\x00\x00\x0f\x00\x00\x00\x3c\x00\x00\x00\x01\x77\x2f\x16\x0d\x00\x00\x00"
    "\x49\x44\x4c\x3a\x54\x2f\x50\x74\x3a\x31\x2e\x30\x00\x7f\x00\x00\x03\x00\x00\x00\x50\x74\x00\x00"
    "\x02\x00\x00\x00\x02\x00\x00\x00\x78\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x79\x00\x00\x00"
    "\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"
    "\x04\x00\x00\x00",
    148, "[Pt{x=1, y=2}, Pt{x=3, y=4}]", { 65, 66, 67, 85 }, 4 },
  { "rec",
    "\x0f\x00\x00\x00\x5c\x00\x00\x00\x01\x00\x00\x00\x0e\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x52\x65"
    "\x63\x3a\x31\x2e\x30\x00\x00\x00\x04\x00\x00\x00\x52\x65\x63\x00\x02\x00\x00\x00\x05\x00\x00\x00"
    "\x6e\x61\x6d\x65\x00\x65\x64\x00\x12\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x6b\x69\x64\x73"
    "\x00\x6c\x75\x65\x13\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\xff\xa4\xff\xff\xff"
    "\x00\x00\x00\x00\x05\x00\x00\x00\x72\x6f\x6f\x74\x00\x02\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00"
    "\x6b\x69\x64\x00\x00\x00\x00\x00",
    128, "Rec{name=\"root\", kids=[Rec{name=\"kid\", kids=[]}]}", { 53, 54, 73, 74, 75, 109 }, 6 },
  { "anyany",
    "\x0b\x00\x00\x00\x02\x00\x00\x00\x03\x00",
    10, "any(3)", { 0 }, 0 },
  { "empty",
    "\x00\x00\x00\x00",
    4, "null", { 0 }, 0 },
  { "wchar",
    "\x1a\x00\x00\x00\x02\x20\xac",
    7, "L'\\u20ac'", { 0 }, 0 },
  { "wstring",
    "\x1b\x00\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00\xff\xfe\x61\x00\xac\x20",
    18, "L\"a\\u20ac\"", { 0 }, 0 },
  { "tcrec",
    "\x0c\x00\x00\x00\x0f\x00\x00\x00\x5c\x00\x00\x00\x01\x00\x00\x00\x0e\x00\x00\x00\x49\x44\x4c\x3a"
    "\x54\x2f\x52\x65\x63\x3a\x31\x2e\x30\x00\x00\x00\x04\x00\x00\x00\x52\x65\x63\x00\x02\x00\x00\x00"
    "\x05\x00\x00\x00\x6e\x61\x6d\x65\x00\x65\x64\x00\x12\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00"
    "\x6b\x69\x64\x73\x00\x6c\x75\x65\x13\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x01\xff\xff\xff\xff"
    "\xa4\xff\xff\xff\x00\x00\x00\x00",
    104, "TypeCode(IDL:T/Rec:1.0)", { 57, 58, 77, 78, 79, 91 }, 6 },
  { "nilobj",
    "\x0e\x00\x00\x00\x2d\x00\x00\x00\x01\x00\x00\x00\x1d\x00\x00\x00\x49\x44\x4c\x3a\x6f\x6d\x67\x2e"
    "\x6f\x72\x67\x2f\x43\x4f\x52\x42\x41\x2f\x4f\x62\x6a\x65\x63\x74\x3a\x31\x2e\x30\x00\x00\x00\x00"
    "\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    68, "objref(nil)", { 0 }, 0 },
  { "nodecycle",
    "\x1d\x00\x00\x00\x52\x00\x00\x00\x01\x00\x00\x00\x0f\x00\x00\x00\x49\x44\x4c\x3a\x54\x2f\x4e\x6f"
    "\x64\x65\x3a\x31\x2e\x30\x00\x00\x05\x00\x00\x00\x4e\x6f\x64\x65\x00\x31\x00\x00\x00\x00\x00\x00"
    "\x02\x00\x00\x00\x03\x00\x00\x00\x69\x64\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00"
    "\x6e\x65\x78\x74\x00\x7f\x00\x00\xff\xff\xff\xff\xac\xff\xff\xff\x00\x00\x00\x00\x00\xff\xff\x7f"
    "\x01\x00\x00\x00\x00\xff\xff\x7f\x02\x00\x00\x00\xff\xff\xff\xff\xec\xff\xff\xff",
    116, "Node#1{id=1, next=Node#2{id=2, next=@1}}", { 41, 77 }, 2 },
};

START_TEST(test_omniorb_anys)
{
  for (size_t k = 0; k < sizeof omni_anys / sizeof omni_anys[0]; k++) {
    const struct omni_any *c = &omni_anys[k];
    TU_CTX("omniORB's any %s", c->name);
    cdr_any a;
    ck_assert_msg(dec((const uint8_t *)c->octets, c->n, CDR_LITTLE_ENDIAN, &a, NULL) == CDR_OK, "%s", tu_ctx);
    char buf[256];
    cdr_any_print(buf, sizeof buf, &a);
    ck_assert_str_eq(buf, c->text);
    cdr_opts op;
    cdr_opts_default(&op);
    op.byte_order = CDR_LITTLE_ENDIAN;
    size_t n;
    uint8_t *d;
    if (a._cdr_octets) { /* sent on: omniORB's own octets */
      d = enc(&a, &op, &n);
      TU_ASSERT_BYTES(d, n, c->octets, c->n);
      free(d);
    }
    /* Encoded: omniORB's octets but for its padding. */
    uint8_t *want = tu_dup(c->octets, c->n);
    for (size_t j = 0; j < c->npads; j++)
      want[c->pads[j]] = 0;
    cdr_any e = a;
    cdr_any_forget_octets(&e);
    d = enc(&e, &op, &n);
    TU_ASSERT_BYTES(d, n, want, c->n);
    free(d);
    free(want);
    cdr_any h;
    cdr_any_init(&h);
    ck_assert_int_eq(cdr_any_copy(&h, &a), CDR_OK);
    ck_assert_int_eq(cdr_any_equal(&h, &a), 1);
    cdr_any_free(&h);
  }
  /* omniORB's Node is the program's Node: the decoded graph extracts as it. */
  cdr_any a;
  const struct omni_any *c = &omni_anys[sizeof omni_anys / sizeof omni_anys[0] - 1];
  ck_assert_int_eq(dec((const uint8_t *)c->octets, c->n, CDR_LITTLE_ENDIAN, &a, NULL), CDR_OK);
  const void *p;
  ck_assert_int_eq(cdr_any_get(&a, &node_t, &p), CDR_OK);
  const Node *n1 = *(Node *const *)p;
  ck_assert_int_eq(n1->id, 1);
  ck_assert_int_eq(n1->next->id, 2);
  ck_assert_ptr_eq(n1->next->next, n1);
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
  tcase_add_test(tc, test_half_anys);
  tcase_add_test(tc, test_every_basic_kind);
  tcase_add_test(tc, test_unknown_type);
  tcase_add_test(tc, test_more_kinds);
  tcase_add_test(tc, test_same_id_other_layout);
  tcase_add_test(tc, test_omniorb_anys);
  suite_add_tcase(s, tc);
  tc = tcase_create("values");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_values_share_across_any);
  tcase_add_test(tc, test_graph_copy_equal);
  tcase_add_test(tc, test_objref_ior);
  tcase_add_test(tc, test_objref_hooks);
  tcase_add_test(tc, test_original_octets);
  tcase_add_test(tc, test_alloc_failures);
  tcase_add_test(tc, test_any_in_chunked_value);
  suite_add_tcase(s, tc);
  tc = tcase_create("hostile");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_hostile);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = any_suite };
