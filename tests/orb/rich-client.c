/* rich-client.c - checks a Rich::Derived (rich.idl) through the C mapping:
 * every basic type, fixed, bounded strings and sequences, an anonymous
 * sequence of sequences, TypeCodes, arrays of structs and their slices,
 * constants, typedef chains, nested modules and #pragma prefix IDs, a
 * forward-declared interface, an exception with a sequence member,
 * attributes and inherited operations called by the derived interface's
 * names, _is_a and _non_existent, anys holding a struct and a sequence.
 *
 *   rich-client [-ORB options] [--no-long-double] IOR [--shutdown]
 * --no-long-double leaves long double out: omniORB on x86-64 sends the x87
 * memory image, not binary128 (docs/wire-notes.md, "Numbers").
 * Prints "ok N - what" per check, "not ok N - what: detail" on a mismatch;
 * exit status 0 when every check passed.  The Derived may be rich-server
 * (C) or omni-rich (omniORB): both behave as rich-server.c says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rich.h"
#include "rich-money.h"
#include "checks.h"

static int bad_is(CORBA_Environment *ev, const char *why, CORBA_long code)
{
  if (ev->_major != CORBA_USER_EXCEPTION || strcmp(CORBA_exception_id(ev), ex_Rich_Bad))
    return 0;
  const Rich_Bad *b = CORBA_exception_value(ev);
  return b && !strcmp(b->why, why) && b->code == code && b->data._length == 2 &&
         b->data._buffer[0] == code && b->data._buffer[1] == code + 1 &&
         money_cents(&b->m) == 150 && b->m.digits == 6 && b->m.scale == 2;
}

static void seq(CORBA_sequence_CORBA_long *s, CORBA_long *b, CORBA_unsigned_long n)
{
  s->_maximum = s->_length = n;
  s->_buffer = b;
  s->_release = CORBA_FALSE;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  const char *ior = NULL;
  int do_shutdown = 0, long_double = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--shutdown"))
      do_shutdown = 1;
    else if (!strcmp(argv[i], "--no-long-double"))
      long_double = 0;
    else if (!ior)
      ior = argv[i];
  }
  if (ev._major != CORBA_NO_EXCEPTION || !ior) {
    fprintf(stderr, "usage: rich-client [-ORB options] [--no-long-double] IOR [--shutdown]\n");
    return 2;
  }
  Rich_Derived dv = CORBA_ORB_string_to_object(orb, ior, &ev);
  if (!no_exc(&ev, "string_to_object"))
    return 1;
  char d[512];

  /* every basic type, in, inout, out and result; the inherited operation
   * by the derived interface's name and by the base's */
  {
    Rich_Prim p = { -(1LL << 40), 18446744073709551614ULL, 65534, 254, CORBA_TRUE, 'a',
                    1.5f, -32768, 4294967294U, Rich_HALF };
    Rich_Prim q = { 1, 2, 3, 4, CORBA_FALSE, 'z', -0.25f, 5, 6, -1e300 };
    Rich_Prim r;
    memset(&r, 0, sizeof r);
    Rich_Prim old = Rich_Derived_prims(dv, &p, &q, &r, &ev);
    if (no_exc(&ev, "Derived_prims")) {
      ok(old.ll == 1 && old.ull == 2 && old.us == 3 && old.o == 4 && !old.b && old.c == 'z' &&
           old.f == -0.25f && old.s == 5 && old.ul == 6 && old.d == -1e300,
         "Derived_prims result = the old q", "");
      ok((q.ll == p.ll && q.ull == p.ull && q.us == p.us &&
                                       q.o == p.o && q.b == p.b && q.c == p.c && q.f == p.f &&
                                       q.s == p.s && q.ul == p.ul && q.d == p.d),
         "Derived_prims inout q = p", "");
      snprintf(d, sizeof d, "%lld %llu %u %u %d %c %g %d %u %g", (long long)r.ll,
               (unsigned long long)r.ull, r.us, r.o, r.b, r.c, r.f, r.s, r.ul, r.d);
      ok(r.ll == -(1LL << 40) + 1 && r.ull == 18446744073709551615ULL && r.us == 65535 &&
           r.o == 255 && r.b == CORBA_FALSE && r.c == 'b' && r.f == 3.0f && r.s == -32767 &&
           r.ul == 4294967295U && r.d == 1.0,
         "Derived_prims out r = p stepped", d);
    }
    memset(&r, 0, sizeof r);
    Rich_Base_prims(dv, &p, &q, &r, &ev);
    if (no_exc(&ev, "Base_prims"))
      ok(r.us == 65535 && r.c == 'b', "Base_prims on the Derived", "");
  }

  /* attributes of the base through Derived__get_x/_set_x; the derived
   * interface's own, readonly and not */
  Rich_Count v = Rich_Derived__get_version(dv, &ev);
  if (no_exc(&ev, "Derived__get_version"))
    ok(v == Rich_LIMIT, "Derived__get_version = Rich_LIMIT (3)", "");
  CORBA_char *s = Rich_Derived__get_name(dv, &ev);
  if (no_exc(&ev, "Derived__get_name")) {
    ok(!strcmp(s, "none"), "name = \"none\" at first", s);
    CORBA_free(s);
  }
  Rich_Derived__set_name(dv, Rich_GREETING, &ev);
  no_exc(&ev, "Derived__set_name");
  s = Rich_Base__get_name(dv, &ev);
  if (no_exc(&ev, "Base__get_name")) {
    ok(!strcmp(s, "hi"), "name = Rich_GREETING (\"hi\") after _set_name", s);
    CORBA_free(s);
  }
  Rich_Derived__set_name(dv, "abcde", &ev);
  no_exc(&ev, "_set_name(abcde)");
  s = Rich_Derived__get_name(dv, &ev);
  if (no_exc(&ev, "_get_name")) {
    ok(!strcmp(s, "abcde"), "name = \"abcde\" (string<5> at its bound)", s);
    CORBA_free(s);
  }
  /* past the bound: a system exception, the name unchanged */
  Rich_Derived__set_name(dv, "toolong", &ev);
  snprintf(d, sizeof d, "%s", CORBA_exception_id(&ev) ? CORBA_exception_id(&ev) : "none");
  ok(ev._major == CORBA_SYSTEM_EXCEPTION && !strcmp(d, ex_CORBA_MARSHAL),
     "_set_name(\"toolong\") raises MARSHAL (string<5>)", d);
  CORBA_exception_free(&ev);
  s = Rich_Derived__get_name(dv, &ev);
  if (no_exc(&ev, "_get_name")) {
    ok(!strcmp(s, "abcde"), "name still \"abcde\"", s);
    CORBA_free(s);
  }
  CORBA_long_long big = Rich_Derived__get_big(dv, &ev);
  if (no_exc(&ev, "_get_big"))
    ok(big == -(1LL << 40) - 5, "big = -(2^40) - 5", "");

  /* fixed<6,2>: attribute, in and result */
  Rich_Money m = Rich_Derived__get_price(dv, &ev);
  if (no_exc(&ev, "_get_price")) {
    snprintf(d, sizeof d, "%ld digits %d scale %d", money_cents(&m), m.digits, m.scale);
    ok(money_cents(&m) == 1234 && m.digits == 6 && m.scale == 2, "price = 12.34", d);
  }
  m = money(-9999);
  Rich_Derived__set_price(dv, &m, &ev);
  no_exc(&ev, "_set_price");
  m = Rich_Derived__get_price(dv, &ev);
  if (no_exc(&ev, "_get_price"))
    ok(money_cents(&m) == -9999 && m.negative, "price = -99.99 after _set_price", "");
  {
    Rich_Money a = money(123456), b = money(-6);
    m = Rich_Derived_addMoney(dv, &a, &b, &ev);
    if (no_exc(&ev, "addMoney")) {
      snprintf(d, sizeof d, "%ld", money_cents(&m));
      ok(money_cents(&m) == 123450, "addMoney(1234.56, -0.06) = 1234.50", d);
    }
  }

  /* bounded string result; an exception with a string, a typedef'd long,
   * a sequence and a fixed */
  s = Rich_Derived_clip(dv, "short", &ev);
  if (no_exc(&ev, "clip(short)")) {
    ok(!strcmp(s, "short"), "clip(\"short\") = \"short\"", s);
    CORBA_free(s);
  }
  s = Rich_Derived_clip(dv, "toolong", &ev);
  ok(s == NULL && bad_is(&ev, "too long", 7), "clip(\"toolong\") raises Bad { too long, 7, [7, 8], 1.50 }",
     CORBA_exception_id(&ev));
  CORBA_exception_free(&ev);
  Rich_Derived_fail(dv, -3, &ev);
  ok(bad_is(&ev, "fail", -3), "fail(-3) raises Bad { fail, -3, [-3, -2], 1.50 }",
     CORBA_exception_id(&ev));
  CORBA_exception_free(&ev);

  /* bounded sequence: in, out, result */
  {
    CORBA_long fb[] = { 1, 2, 3, 4 };
    Rich_Four f;
    seq(&f, fb, 4);
    Rich_Four *g = NULL;
    Rich_Four *r = Rich_Derived_firsts(dv, &f, &g, &ev);
    if (no_exc(&ev, "firsts")) {
      ok(r->_length == 4 && r->_buffer[0] == 4 && r->_buffer[1] == 3 && r->_buffer[2] == 2 &&
           r->_buffer[3] == 1, "firsts([1,2,3,4]) = [4,3,2,1]", "");
      ok(g->_length == 4 && g->_buffer[0] == 10 && g->_buffer[3] == 40,
         "firsts out g = [10,20,30,40]", "");
      CORBA_free(r);
      CORBA_free(g);
    }
    CORBA_long fb5[] = { 1, 2, 3, 4, 5 };
    seq(&f, fb5, 5);
    r = Rich_Derived_firsts(dv, &f, &g, &ev);
    ok(r == NULL && ev._major == CORBA_SYSTEM_EXCEPTION &&
         !strcmp(CORBA_exception_id(&ev), ex_CORBA_MARSHAL),
       "firsts([1,2,3,4,5]) raises MARSHAL (sequence<long, 4>)", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
  }

  /* sequence<sequence<long> >, and in anys */
  {
    CORBA_long r0[] = { 1, 2, 3 }, r1[] = { 4, 5, 6 };
    CORBA_sequence_CORBA_long rows[2];
    seq(&rows[0], r0, 3);
    seq(&rows[1], r1, 3);
    Rich_Grid g = { 2, 2, rows, CORBA_FALSE };
    Rich_Grid *t = Rich_Derived_transpose(dv, &g, &ev);
    if (no_exc(&ev, "transpose")) {
      int good = t->_length == 3;
      for (CORBA_unsigned_long c = 0; good && c < 3; c++)
        good = t->_buffer[c]._length == 2 && t->_buffer[c]._buffer[0] == r0[c] &&
               t->_buffer[c]._buffer[1] == r1[c];
      ok(good, "transpose([[1,2,3],[4,5,6]]) = [[1,4],[2,5],[3,6]]", "");
      CORBA_free(t);
    }
    CORBA_any *a = Rich_Derived_wrapGrid(dv, &g, &ev);
    if (no_exc(&ev, "wrapGrid")) {
      const Rich_Grid *h = a->_value;
      ok(a->_type && CORBA_TypeCode_equal(a->_type, TC_Rich_Grid, &ev) && h && h->_length == 2 &&
           h->_buffer[1]._length == 3 && h->_buffer[1]._buffer[2] == 6 &&
           h->_buffer[0]._buffer[0] == 1,
         "wrapGrid = an any holding the Grid", "");
      CORBA_free(a);
    }
  }

  /* anys holding a generated struct, both ways */
  {
    Rich_P p = { 41, "tg" };
    CORBA_any *a = Rich_Derived_wrapP(dv, &p, &ev);
    if (no_exc(&ev, "wrapP")) {
      const Rich_P *q = a->_value;
      CORBA_char *id = a->_type ? CORBA_TypeCode_id(a->_type, &ev) : NULL;
      ok(a->_type && CORBA_TypeCode_equal(a->_type, TC_Rich_P, &ev) && q && q->x == 42 &&
           !strcmp(q->tag, "tg") && id && !strcmp(id, "IDL:rich.test/Rich/P:1.0"),
         "wrapP({41, tg}) = an any holding P {42, tg}, IDL:rich.test/Rich/P:1.0", id);
      CORBA_free(id);
      Rich_P *back = Rich_Derived_unwrapP(dv, a, &ev);
      if (no_exc(&ev, "unwrapP"))
        ok(back->x == 420 && !strcmp(back->tag, "tg"), "unwrapP(that any) = {420, tg}", "");
      CORBA_free(back);
      CORBA_free(a);
    }
    CORBA_any in;
    memset(&in, 0, sizeof in);
    in._type = TC_Rich_P;
    in._value = &p;
    Rich_P *back = Rich_Derived_unwrapP(dv, &in, &ev);
    if (no_exc(&ev, "unwrapP"))
      ok(back->x == 410 && !strcmp(back->tag, "tg"), "unwrapP(any P {41, tg}) = {410, tg}", "");
    CORBA_free(back);
    CORBA_long lv = 5;
    in._type = TC_CORBA_long;
    in._value = &lv;
    back = Rich_Derived_unwrapP(dv, &in, &ev);
    ok(back == NULL && ev._major == CORBA_SYSTEM_EXCEPTION &&
         !strcmp(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM),
       "unwrapP(any long) raises BAD_PARAM", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
  }

  /* TypeCodes as in, out and result */
  {
    CORBA_TypeCode u = NULL;
    CORBA_TypeCode t = Rich_Derived_kindOf(dv, TC_Rich_Grid, &u, &ev);
    if (no_exc(&ev, "kindOf")) {
      CORBA_char *id = CORBA_TypeCode_id(t, &ev);
      ok(CORBA_TypeCode_equal(t, TC_Rich_Grid, &ev) && CORBA_TypeCode_kind(t, &ev) == CORBA_tk_alias &&
           id && !strcmp(id, "IDL:rich.test/Rich/Grid:1.0"),
         "kindOf(TC Grid) = TC Grid (an alias, IDL:rich.test/Rich/Grid:1.0)", id);
      CORBA_free(id);
      ok(u && CORBA_TypeCode_equal(u, TC_Rich_P, &ev) &&
           CORBA_TypeCode_member_count(u, &ev) == 2,
         "kindOf out u = TC P (a struct of 2 members)", "");
      CORBA_Object_release((CORBA_Object)t, &ev);
      CORBA_Object_release((CORBA_Object)u, &ev);
    }
  }

  /* arrays: of structs (variable length, slice results and outs), of a
   * typedef chain (fixed length) */
  {
    Rich_PArr a = { { 1, "one" }, { 2, "two" } };
    Rich_PArr_slice *b = NULL;
    Rich_PArr_slice *r = Rich_Derived_swap(dv, a, &b, &ev);
    if (no_exc(&ev, "swap")) {
      ok(r[0].x == 2 && !strcmp(r[0].tag, "two") && r[1].x == 1 && !strcmp(r[1].tag, "one"),
         "swap([{1,one},{2,two}]) = [{2,two},{1,one}]", "");
      ok(b[0].x == 2 && !strcmp(b[0].tag, "one") && b[1].x == 4 && !strcmp(b[1].tag, "two"),
         "swap out b = [{2,one},{4,two}]", "");
      CORBA_free(r);
      CORBA_free(b);
    }
    Rich_Pair c = { Rich_LIMIT, -7 };
    Rich_Pair_slice *t = Rich_Derived_twice(dv, c, &ev);
    if (no_exc(&ev, "twice")) {
      ok(t[0] == 6 && t[1] == -14, "twice([3, -7]) = [6, -14]", "");
      CORBA_free(t);
    }
  }

  /* long double (binary128 on the wire) */
  if (long_double) {
    CORBA_long_double x = Rich_Derived_ldbl(dv, 1.25L, &ev);
    if (no_exc(&ev, "ldbl")) {
      snprintf(d, sizeof d, "%Lg", (long double)x);
      ok(x == 2.5L, "ldbl(1.25) = 2.5", d);
    }
  }

  /* a nested module's interfaces; one forward-declared and used (in a
   * sequence) before its definition */
  {
    Rich_Inner_Holder h = Rich_Derived_holder(dv, &ev);
    if (no_exc(&ev, "holder")) {
      ok(CORBA_Object_is_a(h, "IDL:rich.test/Rich/Inner/Holder:1.0", &ev) &&
           ev._major == CORBA_NO_EXCEPTION, "holder() _is_a Rich/Inner/Holder", "");
      Rich_Inner_Node n = Rich_Inner_Holder_get(h, &ev);
      if (no_exc(&ev, "Holder_get")) {
        Rich_Num id = Rich_Inner_Node__get_id(n, &ev);
        if (no_exc(&ev, "Node__get_id"))
          ok(id == 7, "Holder_get()'s Node id = 7", "");
        Rich_Inner_Nodes *ns = Rich_Inner_Holder_all(h, n, 2, &ev);
        if (no_exc(&ev, "Holder_all")) {
          int good = ns->_length == 2;
          for (CORBA_unsigned_long i = 0; good && i < 2; i++) {
            good = Rich_Inner_Node__get_id(ns->_buffer[i], &ev) == 7 &&
                   ev._major == CORBA_NO_EXCEPTION;
            CORBA_exception_free(&ev);
          }
          ok(good, "Holder_all(node, 2) = 2 Nodes of id 7", "");
          CORBA_free(ns);
        }
        ok(CORBA_Object_is_a(n, "IDL:rich.test/Rich/Inner/Node:1.0", &ev) &&
             !CORBA_Object_is_a(n, "IDL:rich.test/Rich/Inner/Holder:1.0", &ev) &&
             ev._major == CORBA_NO_EXCEPTION, "the Node _is_a Node, not Holder", "");
        CORBA_Object_release(n, &ev);
      }
      CORBA_Object_release(h, &ev);
    }
  }

  /* _is_a with the base's repository ID (#pragma prefix), _non_existent */
  ok(CORBA_Object_is_a(dv, "IDL:rich.test/Rich/Base:1.0", &ev) && ev._major == CORBA_NO_EXCEPTION,
     "_is_a(IDL:rich.test/Rich/Base:1.0)", "");
  ok(CORBA_Object_is_a(dv, "IDL:rich.test/Rich/Derived:1.0", &ev), "_is_a(Rich/Derived)", "");
  ok(!CORBA_Object_is_a(dv, "IDL:Rich/Base:1.0", &ev) && ev._major == CORBA_NO_EXCEPTION,
     "!_is_a(IDL:Rich/Base:1.0) (no prefix)", "");
  ok(!CORBA_Object_non_existent(dv, &ev) && ev._major == CORBA_NO_EXCEPTION, "!_non_existent", "");

  if (do_shutdown) {
    Rich_Derived_shutdown(dv, &ev);
    no_exc(&ev, "shutdown");
  }
  CORBA_Object_release(dv, &ev);
  CORBA_ORB_destroy(orb, &ev);
  printf("%d checks, %d failed\n", n_checks, n_failed);
  return n_failed ? 1 : 0;
}
