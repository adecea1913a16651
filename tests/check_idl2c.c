/* check_idl2c.c - what idl2c generates from tests/idl2c/types.idl (and the
 * base.idl it includes), compiled into this program: the C layouts (exact
 * sizes and offsets on LP64), the descriptors (kinds, names, repository
 * IDs with #pragma prefix/ID/version, members, union labels and default,
 * bounds), every descriptor valid, TypeCode octets assembled here by CDR's
 * rules, the constants' values, values marshalled through the descriptors
 * (exact octets, read back), an any holding a generated struct, and the
 * generated allocators with CORBA_free.
 * tests/idl2c.test compares the TypeCodes with omniORB's. */
#include <check.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include "types.h"
#include "testutil.h"

/* ---------------------------------------------------------------- layouts */

START_TEST(test_layouts)
{
  /* struct Fixed1, each member at the next offset aligned for it */
  ck_assert_uint_eq(offsetof(T_Fixed1, o), 0);
  ck_assert_uint_eq(offsetof(T_Fixed1, d), 8);
  ck_assert_uint_eq(offsetof(T_Fixed1, s), 16);
  ck_assert_uint_eq(offsetof(T_Fixed1, c), 20);
  ck_assert_uint_eq(offsetof(T_Fixed1, arr), 24);
  ck_assert_uint_eq(offsetof(T_Fixed1, b), 36);
  ck_assert_uint_eq(offsetof(T_Fixed1, ch), 37);
  ck_assert_uint_eq(offsetof(T_Fixed1, wc), 40);
  ck_assert_uint_eq(offsetof(T_Fixed1, ll), 48);
  ck_assert_uint_eq(offsetof(T_Fixed1, f), 56);
  ck_assert_uint_eq(sizeof(T_Fixed1), 64);
  ck_assert_uint_eq(TC_T_Fixed1->size, 64);
  ck_assert_uint_eq(TC_T_Fixed1->align, 8);
  /* struct Var1: strings 8, sequences 24, any 32 (cdr_any: _type, _value,
   * _release, the private _cdr_octets), TypeCode and Object 8, fixed 34
   * (alignment 1), string[2] 16, Point 8, Inner 2 */
  ck_assert_uint_eq(sizeof(CORBA_any), 32);
  static const size_t var1_off[] = { 0, 8, 16, 24, 48, 72, 96, 128, 136, 144, 184, 200, 208 };
  ck_assert_uint_eq(TC_T_Var1->u.st.count, 13);
  for (unsigned k = 0; k < 13; k++)
    ck_assert_uint_eq(TC_T_Var1->u.st.members[k].offset, var1_off[k]);
  ck_assert_uint_eq(offsetof(T_Var1, in1), 208);
  ck_assert_uint_eq(sizeof(T_Var1), 216);
  ck_assert_uint_eq(sizeof(CORBA_sequence_Base_Point), 24);
  ck_assert_uint_eq(offsetof(CORBA_sequence_Base_Point, _maximum), 0);
  ck_assert_uint_eq(offsetof(CORBA_sequence_Base_Point, _length), 4);
  ck_assert_uint_eq(offsetof(CORBA_sequence_Base_Point, _buffer), 8);
  ck_assert_uint_eq(offsetof(CORBA_sequence_Base_Point, _release), 16);
  /* a sequence is laid out as libcdr's cdr_seq */
  ck_assert_uint_eq(offsetof(cdr_seq, _buffer), offsetof(T_PointSeq, _buffer));
  ck_assert_uint_eq(offsetof(cdr_seq, _release), offsetof(Base_LongSeq, _release));
  /* unions: _d at 0, every branch at _u's offset */
  ck_assert_uint_eq(offsetof(T_U, _d), 0);
  ck_assert_uint_eq(offsetof(T_U, _u), 8);
  ck_assert_uint_eq(offsetof(T_U, _u.l), 8);
  ck_assert_uint_eq(offsetof(T_U, _u.p), 8);
  ck_assert_uint_eq(sizeof(T_U), 16);
  ck_assert_uint_eq(offsetof(T_UB, _u.t), 2);
  ck_assert_uint_eq(sizeof(T_UB), 4);
  ck_assert_uint_eq(offsetof(T_UC, _u.b), 4);
  ck_assert_uint_eq(sizeof(T_UC), 8);
  ck_assert_uint_eq(offsetof(T_UE, _u.side), 8);
  ck_assert_uint_eq(sizeof(T_UE), 16);
  ck_assert_uint_eq(sizeof(T_Shape), 4);
  /* arrays and slices */
  ck_assert_uint_eq(sizeof(T_Matrix), 24);
  ck_assert_uint_eq(sizeof(T_Matrix_slice), 12);
  ck_assert_uint_eq(sizeof(T_Names), 32);
  ck_assert_uint_eq(sizeof(T_Names_slice), sizeof(CORBA_string));
  ck_assert_uint_eq(sizeof(T_Money), sizeof(cdr_fixed));
  ck_assert_uint_eq(sizeof(T_Empty), 4);
  ck_assert_uint_eq(sizeof(T_Thing), sizeof(void *));
}
END_TEST

/* ---------------------------------------------------------------- descriptors */

START_TEST(test_descriptors)
{
  ck_assert_str_eq(TC_Base_Point->repo_id, "IDL:example.org/Base/Point:1.0");
  ck_assert_str_eq(TC_Base_Point->name, "Point");
  ck_assert_str_eq(TC_T_Var1_Inner->repo_id, "IDL:example.org/T/Var1/Inner:1.0");
  ck_assert_str_eq(TC_P_Renamed->repo_id, "IDL:other/Renamed:2.0");
  ck_assert_str_eq(TC_P_Versioned->repo_id, "IDL:example.org/P/Versioned:3.1");
  ck_assert_str_eq(TC_T_Thing_InThing->repo_id, "IDL:example.org/T/Thing/InThing:1.0");
  ck_assert_str_eq(ex_T_Failed, "IDL:example.org/T/Failed:1.0");
  ck_assert_str_eq(ex_Base_Oops, "IDL:example.org/Base/Oops:1.0");
  ck_assert_str_eq(ex_T_Thing_ThingError, "IDL:example.org/T/Thing/ThingError:1.0");
  ck_assert_int_eq(TC_T_Failed->kind, CDR_K_EXCEPT);
  ck_assert_int_eq(TC_T_Empty->kind, CDR_K_EXCEPT);
  ck_assert_uint_eq(TC_T_Empty->u.st.count, 0);
  ck_assert_int_eq(TC_T_Thing->kind, CDR_K_OBJREF);
  ck_assert_str_eq(TC_T_Thing->repo_id, "IDL:example.org/T/Thing:1.0");
  ck_assert_int_eq(TC_T_Fwd->kind, CDR_K_OBJREF);
  ck_assert_int_eq(TC_T_ThingAlias->kind, CDR_K_ALIAS);
  ck_assert_ptr_eq(TC_T_ThingAlias->u.alias.type, TC_T_Thing);
  ck_assert_ptr_eq(TC_T_Var1->u.st.members[8].type, TC_CORBA_Object);
  ck_assert_ptr_eq(TC_T_Var1->u.st.members[6].type, TC_CORBA_any);
  ck_assert_ptr_eq(TC_T_Var1->u.st.members[7].type, TC_CORBA_TypeCode);
  ck_assert_ptr_eq(TC_T_Var1->u.st.members[1].type, TC_T_Name);
  ck_assert_ptr_eq(TC_T_Var1->u.st.members[11].type, TC_Base_Point);
  ck_assert_str_eq(TC_T_Var1->u.st.members[12].name, "in1");

  /* typedefs are aliases of their types */
  cdr_typecode t = TC_T_Blob;
  ck_assert_int_eq(t->kind, CDR_K_ALIAS);
  t = t->u.alias.type;
  ck_assert_int_eq(t->kind, CDR_K_SEQUENCE);
  ck_assert_uint_eq(t->u.seq.bound, 16);
  ck_assert_ptr_eq(t->u.seq.elem, TC_CORBA_octet);
  t = TC_T_Name->u.alias.type;
  ck_assert_int_eq(t->kind, CDR_K_STRING);
  ck_assert_uint_eq(t->u.str.bound, 8);
  t = TC_T_WName->u.alias.type;
  ck_assert_int_eq(t->kind, CDR_K_WSTRING);
  ck_assert_uint_eq(t->u.str.bound, 4);
  t = TC_T_Money->u.alias.type;
  ck_assert_int_eq(t->kind, CDR_K_FIXED);
  ck_assert_uint_eq(t->u.fx.digits, 5);
  ck_assert_int_eq(t->u.fx.scale, 2);
  /* long Matrix[2][3]: an array of 2 arrays of 3 longs */
  t = TC_T_Matrix->u.alias.type;
  ck_assert_int_eq(t->kind, CDR_K_ARRAY);
  ck_assert_uint_eq(t->u.arr.count, 2);
  ck_assert_uint_eq(t->size, 24);
  ck_assert_int_eq(t->u.arr.elem->kind, CDR_K_ARRAY);
  ck_assert_uint_eq(t->u.arr.elem->u.arr.count, 3);
  ck_assert_uint_eq(t->u.arr.elem->size, 12);
  ck_assert_ptr_eq(t->u.arr.elem->u.arr.elem, TC_CORBA_long);
  /* sequence<sequence<long> > */
  t = TC_T_LongSeqSeq->u.alias.type;
  ck_assert_int_eq(t->u.seq.elem->kind, CDR_K_SEQUENCE);
  ck_assert_ptr_eq(t->u.seq.elem->u.seq.elem, TC_CORBA_long);
  /* the recursive Node: its kids are NodeSeq, whose elements are Node */
  ck_assert_ptr_eq(TC_T_Node->u.st.members[1].type, TC_T_NodeSeq);
  ck_assert_ptr_eq(TC_T_NodeSeq->u.alias.type->u.seq.elem, TC_T_Node);

  /* union U switch (long): labels 1, 2, 3, 4 and the default, in order */
  t = TC_T_U;
  ck_assert_int_eq(t->kind, CDR_K_UNION);
  ck_assert_ptr_eq(t->u.un.disc, TC_CORBA_long);
  ck_assert_uint_eq(t->u.un.disc_offset, 0);
  ck_assert_uint_eq(t->u.un.ncases, 5);
  ck_assert_int_eq(t->u.un.default_case, 4);
  static const int64_t ul[] = { 1, 2, 3, 4 };
  static const char *const un[] = { "l", "s", "s", "p", "o" };
  for (unsigned k = 0; k < 5; k++) {
    if (k < 4)
      ck_assert_int_eq(t->u.un.cases[k].label, ul[k]);
    ck_assert_str_eq(t->u.un.cases[k].name, un[k]);
    ck_assert_uint_eq(t->u.un.cases[k].offset, 8);
  }
  ck_assert_ptr_eq(t->u.un.cases[1].type, t->u.un.cases[2].type);
  /* union UC switch (char): 'a', then 'b' and the default on one branch */
  t = TC_T_UC;
  ck_assert_uint_eq(t->u.un.ncases, 3);
  ck_assert_int_eq(t->u.un.default_case, 2);
  ck_assert_int_eq(t->u.un.cases[0].label, 'a');
  ck_assert_int_eq(t->u.un.cases[1].label, 'b');
  ck_assert_str_eq(t->u.un.cases[2].name, "b");
  /* enum discriminator labels are ordinals; no default: -1 */
  t = TC_T_UE;
  ck_assert_ptr_eq(t->u.un.disc, TC_T_Shape);
  ck_assert_int_eq(t->u.un.default_case, -1);
  ck_assert_int_eq(t->u.un.cases[1].label, 1);
  ck_assert_int_eq(TC_T_UB->u.un.cases[0].label, 1);
  /* enums */
  ck_assert_uint_eq(TC_T_Shape->u.en.count, 3);
  ck_assert_str_eq(TC_T_Shape->u.en.names[2], "TRIANGLE");
  ck_assert_int_eq(T_CIRCLE, 0);
  ck_assert_int_eq(T_TRIANGLE, 2);
  ck_assert_int_eq(Base_BLUE, 2);

  /* unsigned long long labels: the int64_t label field wraps */
  ck_assert_int_eq(TC_T_Inner_Big->u.un.cases[0].label, -1);
  ck_assert_ptr_eq(TC_T_Inner_Big->u.un.disc, TC_CORBA_unsigned_long_long);
  ck_assert_int_eq(TC_T_Inner_Rec->u.un.cases[0].label, -1);
  ck_assert_ptr_eq(TC_T_Inner_Rec->u.un.cases[1].type, TC_T_Inner_Rec_Kind);
  ck_assert_int_eq(T_Inner_Rec_K2, 1);
  /* a typedef'd discriminator: the resolved type's descriptor */
  ck_assert_ptr_eq(TC_T_Inner_OnAlias->u.un.disc, TC_CORBA_long);
  ck_assert_uint_eq(sizeof(((T_Inner_OnAlias *)0)->_d), 4);
  /* a member named by a C keyword: _restrict in C, "restrict" in the TypeCode */
  ck_assert_str_eq(TC_T_Inner_WithEnum->u.st.members[1].name, "restrict");
  ck_assert_uint_eq(TC_T_Inner_WithEnum->u.st.members[1].offset,
                    offsetof(T_Inner_WithEnum, _restrict));
  ck_assert_int_eq(T_Inner_WithEnum_OFF, 1);
  /* an alias of an array typedef has the array's slice */
  ck_assert_uint_eq(sizeof(T_Inner_Matrix2_slice), 12);
  ck_assert_ptr_eq(TC_T_Inner_Matrix2->u.alias.type, TC_T_Matrix);
  ck_assert_uint_eq(TC_T_Inner_Names2->u.alias.type->u.seq.bound, 2);
  ck_assert_ptr_eq(TC_T_Inner_Names2->u.alias.type->u.seq.elem, TC_T_Name);

  /* every descriptor is valid */
#define X(c, cxx) ck_assert_msg(cdr_type_validate(TC_##c) == CDR_OK, "%s invalid", #c);
#include "tclist.h"
#undef X
  ck_assert_int_eq(cdr_type_validate(TC_T_NodeSeq), CDR_OK);
}
END_TEST

/* ---------------------------------------------------------------- TypeCode octets */

static const uint8_t *put_tc(cdr_typecode tc, size_t *n)
{
  static uint8_t out[4096];
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = 1;
  cdr_out o;
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_put_typecode(&o, tc), CDR_OK);
  *n = cdr_out_size(&o);
  ck_assert_uint_le(*n, sizeof out);
  memcpy(out, cdr_out_data(&o), *n);
  cdr_out_close(&o);
  return out;
}

/* Little-endian CDR octets relative to an encapsulation starting at ORG. */
static void ul(tu_buf *b, size_t org, uint32_t v) { tu_num(b, org, v, 4, 1); }
static void str(tu_buf *b, size_t org, const char *s)
{
  ul(b, org, (uint32_t)strlen(s) + 1);
  tu_put(b, s, strlen(s) + 1);
}

START_TEST(test_typecode_octets)
{
  size_t n;
  const uint8_t *got;
  tu_buf w;

  /* typedef long Long_t: tk_alias (21), encapsulation: byte order, ID,
   * name, tk_long (3) */
  memset(&w, 0, sizeof w);
  ul(&w, 0, 21);
  ul(&w, 0, 0);
  size_t org = w.n;
  tu_u8(&w, 1);
  str(&w, org, "IDL:example.org/T/Long_t:1.0");
  str(&w, org, "Long_t");
  ul(&w, org, 3);
  tu_store(w.b + 4, w.n - org, 4, 1);
  got = put_tc(TC_T_Long_t, &n);
  TU_CTX("T::Long_t");
  TU_ASSERT_BYTES(got, n, w.b, w.n);

  /* enum Base::Color: tk_enum (17), ID, name, 3 member names */
  memset(&w, 0, sizeof w);
  ul(&w, 0, 17);
  ul(&w, 0, 0);
  org = w.n;
  tu_u8(&w, 1);
  str(&w, org, "IDL:example.org/Base/Color:1.0");
  str(&w, org, "Color");
  ul(&w, org, 3);
  str(&w, org, "RED");
  str(&w, org, "GREEN");
  str(&w, org, "BLUE");
  tu_store(w.b + 4, w.n - org, 4, 1);
  got = put_tc(TC_Base_Color, &n);
  TU_CTX("Base::Color");
  TU_ASSERT_BYTES(got, n, w.b, w.n);

  /* typedef sequence<octet, 16> Blob: tk_alias around tk_sequence (19) with
   * its own encapsulation: tk_octet (10), bound 16 */
  memset(&w, 0, sizeof w);
  ul(&w, 0, 21);
  ul(&w, 0, 0);
  org = w.n;
  tu_u8(&w, 1);
  str(&w, org, "IDL:example.org/T/Blob:1.0");
  str(&w, org, "Blob");
  ul(&w, org, 19);
  ul(&w, org, 0);
  size_t lenpos = w.n - 4, org2 = w.n;
  tu_u8(&w, 1);
  ul(&w, org2, 10);
  ul(&w, org2, 16);
  tu_store(w.b + lenpos, w.n - org2, 4, 1);
  tu_store(w.b + 4, w.n - org, 4, 1);
  got = put_tc(TC_T_Blob, &n);
  TU_CTX("T::Blob");
  TU_ASSERT_BYTES(got, n, w.b, w.n);

  /* interface Thing: tk_objref (14), ID, name */
  memset(&w, 0, sizeof w);
  ul(&w, 0, 14);
  ul(&w, 0, 0);
  org = w.n;
  tu_u8(&w, 1);
  str(&w, org, "IDL:example.org/T/Thing:1.0");
  str(&w, org, "Thing");
  tu_store(w.b + 4, w.n - org, 4, 1);
  got = put_tc(TC_T_Thing, &n);
  TU_CTX("T::Thing");
  TU_ASSERT_BYTES(got, n, w.b, w.n);
}
END_TEST

/* ---------------------------------------------------------------- constants */

START_TEST(test_constants)
{
  ck_assert_int_eq(TOP, 42);
  ck_assert_int_eq(T_CS, -3);
  ck_assert_int_eq(T_CL, -2147483647);
  ck_assert_uint_eq(T_CUL, UINT32_MAX);
  ck_assert(T_CLL == -INT64_MAX);
  ck_assert(T_CULL == UINT64_MAX);
  ck_assert_uint_eq(T_CUS, 65535);
  ck_assert(T_CF == 2.5f);
  ck_assert(T_CD == 1.25e10);
  ck_assert_int_eq(T_CB, 1);
  ck_assert_int_eq(T_CC, '\'');
  ck_assert_uint_eq(T_CW, 'w');
  ck_assert_uint_eq(T_CO, 255);
  ck_assert_str_eq(T_CSTR, "tab\there \"q\" ?");
  const CORBA_wchar *ws = T_CWS;
  ck_assert_uint_eq(ws[0], 'w');
  ck_assert_uint_eq(ws[1], 0xE9);
  ck_assert_uint_eq(ws[2], 0);
  ck_assert_int_eq(T_CE, Base_GREEN);
  ck_assert_int_eq(T_CE, 1);
  CORBA_fixed fx = T_CFX;
  ck_assert_uint_eq(fx.digits, 5);
  ck_assert_int_eq(fx.scale, 2);
  ck_assert_uint_eq(fx.negative, 0);
  static const uint8_t d[] = { 1, 2, 3, 4, 5 };
  ck_assert_mem_eq(fx.d, d, 5);
  char s[CDR_FIXED_STRING_MAX + 1];
  size_t sl;
  ck_assert_int_eq(cdr_fixed_to_string(&fx, s, sizeof s, &sl), CDR_OK);
  ck_assert_str_eq(s, "123.45");
  ck_assert_int_eq(T_Thing_IC, 7);
  ck_assert_int_eq(T_Inner_ALIASED, -7);
  ck_assert_str_eq(T_Inner_NAMED, "eight");
}
END_TEST

/* ---------------------------------------------------------------- values */

START_TEST(test_marshal)
{
  T_Fixed1 a = { .o = 0xAB, .d = 1.0, .s = -2, .c = Base_BLUE, .arr = { 1, 2, 3 },
                 .b = 1, .ch = 'z', .wc = 'W', .ll = -5, .f = 0.5f };
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = 1;
  cdr_out o;
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_write(&o, TC_T_Fixed1, &a), CDR_OK);
  /* octet, pad to 8, double, short, pad, enum, 3 longs, boolean, char,
   * wchar (GIOP 1.2: length octet then UTF-16), pad, long long, float */
  tu_buf w;
  memset(&w, 0, sizeof w);
  tu_u8(&w, 0xAB);
  double one = 1.0;
  uint64_t dbits;
  memcpy(&dbits, &one, 8);
  tu_num(&w, 0, dbits, 8, 1);
  tu_num(&w, 0, 0xFFFE, 2, 1);
  tu_num(&w, 0, 2, 4, 1);
  tu_num(&w, 0, 1, 4, 1);
  tu_num(&w, 0, 2, 4, 1);
  tu_num(&w, 0, 3, 4, 1);
  tu_u8(&w, 1);
  tu_u8(&w, 'z');
  size_t wire_n = cdr_out_size(&o);
  const uint8_t *got = cdr_out_data(&o);
  TU_CTX("Fixed1 head");
  TU_ASSERT_BYTES(got, w.n, w.b, w.n);
  ck_assert_uint_gt(wire_n, w.n);

  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  uint8_t *copy = tu_dup(got, wire_n);
  cdr_in i;
  cdr_in_init(&i, copy, wire_n, 1, NULL);
  cdr_in_set_arena(&i, &ar);
  T_Fixed1 b;
  memset(&b, 0, sizeof b);
  ck_assert_int_eq(cdr_read(&i, TC_T_Fixed1, &b), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&i), 0);
  ck_assert_uint_eq(b.o, 0xAB);
  ck_assert(b.d == 1.0);
  ck_assert_int_eq(b.s, -2);
  ck_assert_int_eq(b.c, Base_BLUE);
  ck_assert_int_eq(b.arr[2], 3);
  ck_assert_uint_eq(b.wc, 'W');
  ck_assert(b.ll == -5);
  ck_assert(b.f == 0.5f);
  cdr_out_close(&o);
  free(copy);

  /* a recursive Node with two kids, and a union on its string branch */
  T_Node kids[2] = { { .value = 2 }, { .value = 3 } };
  T_Node root = { .value = 1, .kids = { ._maximum = 2, ._length = 2, ._buffer = kids } };
  T_U u = { ._d = 3, ._u.s = "three" };
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_write(&o, TC_T_Node, &root), CDR_OK);
  ck_assert_int_eq(cdr_write(&o, TC_T_U, &u), CDR_OK);
  /* 1, count 2, (2, count 0), (3, count 0), disc 3, "three" */
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 1, 4, 1);
  tu_num(&w, 0, 2, 4, 1);
  tu_num(&w, 0, 2, 4, 1);
  tu_num(&w, 0, 0, 4, 1);
  tu_num(&w, 0, 3, 4, 1);
  tu_num(&w, 0, 0, 4, 1);
  tu_num(&w, 0, 3, 4, 1);
  tu_num(&w, 0, 6, 4, 1);
  tu_put(&w, "three", 6);
  TU_CTX("Node and U");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.b, w.n);
  copy = tu_dup(cdr_out_data(&o), cdr_out_size(&o));
  cdr_in_init(&i, copy, cdr_out_size(&o), 1, NULL);
  cdr_in_set_arena(&i, &ar);
  T_Node r2;
  T_U u2;
  ck_assert_int_eq(cdr_read(&i, TC_T_Node, &r2), CDR_OK);
  ck_assert_int_eq(cdr_read(&i, TC_T_U, &u2), CDR_OK);
  ck_assert_uint_eq(r2.kids._length, 2);
  ck_assert_int_eq(r2.kids._buffer[1].value, 3);
  ck_assert_int_eq(u2._d, 3);
  ck_assert_str_eq(u2._u.s, "three");
  /* a bounded sequence over its bound does not marshal */
  T_Blob big = { ._maximum = 17, ._length = 17, ._buffer = (CORBA_octet *)copy };
  cdr_out_close(&o);
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_write(&o, TC_T_Blob, &big), CDR_E_VALUE);
  cdr_out_close(&o);
  free(copy);
  cdr_arena_free(&ar);
}
END_TEST

/* An any (typedef any AnyT) holding a generated struct: the generated
 * descriptor is the TypeCode the any carries on the wire, and a decoded
 * any's value extracts as the generated C type. */
START_TEST(test_any)
{
  Base_Point p = { .x = 3, .y = -4 };
  T_AnyT a;
  cdr_any_init(&a);
  ck_assert_int_eq(cdr_any_set(&a, TC_Base_Point, &p), CDR_OK);
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = 1;
  cdr_out o;
  cdr_out_init(&o, &op);
  ck_assert_int_eq(cdr_write(&o, TC_T_AnyT, &a), CDR_OK);
  /* Point's TypeCode, then 3 and -4 */
  size_t tn;
  const uint8_t *tcb = put_tc(TC_Base_Point, &tn);
  tu_buf w;
  memset(&w, 0, sizeof w);
  tu_put(&w, tcb, tn);
  tu_num(&w, 0, 3, 4, 1);
  tu_num(&w, 0, (uint32_t)-4, 4, 1);
  TU_CTX("any of Base::Point");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.b, w.n);

  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  uint8_t *copy = tu_dup(cdr_out_data(&o), cdr_out_size(&o));
  cdr_in i;
  cdr_in_init(&i, copy, cdr_out_size(&o), 1, NULL);
  cdr_in_set_arena(&i, &ar);
  T_AnyT b;
  cdr_any_init(&b);
  ck_assert_int_eq(cdr_read(&i, TC_T_AnyT, &b), CDR_OK);
  ck_assert_int_eq(cdr_tc_equal(b._type, TC_Base_Point), 1);
  const void *v = NULL;
  ck_assert_int_eq(cdr_any_get(&b, TC_Base_Point, &v), CDR_OK);
  ck_assert_int_eq(((const Base_Point *)v)->x, 3);
  ck_assert_int_eq(((const Base_Point *)v)->y, -4);
  ck_assert_int_eq(cdr_any_get(&b, TC_T_Fixed1, &v), CDR_E_TYPE);
  cdr_any_free(&b);
  cdr_any_free(&a);
  cdr_out_close(&o);
  free(copy);
  cdr_arena_free(&ar);
}
END_TEST

/* ---------------------------------------------------------------- allocation */

START_TEST(test_alloc)
{
  T_Var1 *v = T_Var1__alloc();
  ck_assert_ptr_nonnull(v);
  ck_assert_ptr_null(v->s);
  ck_assert_uint_eq(v->anon._length, 0);
  v->s = CORBA_string_dup("hello");
  v->strs[1] = CORBA_string_dup("second");
  v->anon._buffer = CORBA_sequence_CORBA_long_allocbuf(3);
  ck_assert_ptr_nonnull(v->anon._buffer);
  v->anon._maximum = v->anon._length = 3;
  v->anon._release = 1;
  v->anon._buffer[2] = 9;
  v->ls._buffer = Base_LongSeq_allocbuf(1);
  v->ls._maximum = v->ls._length = 1;
  v->ls._release = 1;
  v->anonb._buffer = CORBA_sequence_CORBA_string_allocbuf(2);
  v->anonb._maximum = v->anonb._length = 2;
  v->anonb._release = 1;
  v->anonb._buffer[0] = CORBA_string_dup("deep");
  CORBA_free(v); /* deep: under valgrind, nothing leaks */

  T_PointSeq *ps = T_PointSeq__alloc();
  ck_assert_ptr_nonnull(ps);
  ps->_buffer = T_PointSeq_allocbuf(2);
  ps->_maximum = ps->_length = 2;
  ps->_release = 1;
  ps->_buffer[1].y = 4;
  CORBA_free(ps);

  T_Matrix_slice *m = T_Matrix__alloc();
  ck_assert_ptr_nonnull(m);
  m[1][2] = 6;
  CORBA_free(m);
  T_Names_slice *names = T_Names__alloc();
  names[3] = CORBA_string_dup("last");
  CORBA_free(names);

  T_U *u = T_U__alloc();
  ck_assert_ptr_nonnull(u);
  CORBA_free(u);
  T_Failed *e = T_Failed__alloc();
  e->reason = CORBA_string_dup("why");
  CORBA_free(e);
  T_LongSeqSeq *ss = T_LongSeqSeq__alloc();
  ss->_buffer = T_LongSeqSeq_allocbuf(1);
  ss->_maximum = ss->_length = 1;
  ss->_release = 1;
  ss->_buffer[0]._buffer = CORBA_sequence_CORBA_long_allocbuf(2);
  ss->_buffer[0]._maximum = ss->_buffer[0]._length = 2;
  ss->_buffer[0]._release = 1;
  CORBA_free(ss);
}
END_TEST

static Suite *idl2c_suite(void)
{
  Suite *s = suite_create("idl2c");
  TCase *tc = tcase_create("types");
  tcase_add_test(tc, test_layouts);
  tcase_add_test(tc, test_descriptors);
  tcase_add_test(tc, test_typecode_octets);
  tcase_add_test(tc, test_constants);
  tcase_add_test(tc, test_marshal);
  tcase_add_test(tc, test_any);
  tcase_add_test(tc, test_alloc);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = idl2c_suite };
