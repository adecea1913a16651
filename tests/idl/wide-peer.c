/* wide-peer.c - Wide::Svc of tests/idl/wide.idl through idl2c's skeleton
 * and stubs (tests/idlwide.test).
 *
 *   wide-peer server [-ORB options]   prints the Svc's IOR on its first
 *                                     line, serves until Svc::shutdown
 *   wide-peer client IOR [--shutdown] calls every operation, prints "ok N -
 *                                     what" or "not ok N - what" per check,
 *                                     exits 0 when all passed
 *
 * Every operation T op(in T a, inout T b, out T c) returns a, sets c to the
 * old b and b to a; ll(a, b, c) returns a - 1, sets c to b % 256 and b to
 * 2 b; mk(n) gives the Thing of id 7 for 7, of id 8 otherwise; fail(1)
 * raises Oops { 1, "oops", [{1,-1}] }, fail(2) Empty, others return;
 * pokes() is the sum of the pokes; fa..fd give 1..4; label starts "start",
 * hue is BLUE, current starts { 1: a = 42 }.  tests/idl/omni-wide.cc is
 * the same in C++.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/any.h>
#include "wide.h"
#define PEER_NAME "wide-peer"
#include "peer.h"


/* ---------------------------------------------------------------- server */

typedef struct Server {
  POA_Wide_Svc servant;
  CORBA_char *label;
  Wide_ByLong current;
  CORBA_long pokes;
  Wide_Thing t7, t8;
} Server;
static Server srv;

typedef struct ThingServant {
  POA_Wide_Thing servant;
  CORBA_long id;
} ThingServant;
static ThingServant thing7 = { .id = 7 }, thing8 = { .id = 8 };

static CORBA_long t_get_id(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return ((ThingServant *)s)->id;
}

static CORBA_long s_fa(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return 1; }
static CORBA_long s_fb(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return 2; }
static CORBA_long s_fc(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return 3; }
static CORBA_long s_fd(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return 4; }

static CORBA_string s_get_label(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(srv.label);
}

static void s_set_label(PortableServer_Servant s, const CORBA_char *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_free(srv.label);
  srv.label = CORBA_string_dup(v);
}

static Wide_Color s_get_hue(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return Wide_BLUE;
}

static Wide_ByLong *s_get_current(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return dupv(TC_Wide_ByLong, &srv.current);
}

static void s_set_current(PortableServer_Servant s, const Wide_ByLong *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  corbaorb_free_contents(TC_Wide_ByLong, &srv.current);
  corbaorb_copy(TC_Wide_ByLong, &srv.current, v);
}

static void s_poke(PortableServer_Servant s, CORBA_long n, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  srv.pokes += n;
}

static CORBA_long s_pokes(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return srv.pokes;
}

#define ROT(fn, T)                                                                    \
  static T *fn(PortableServer_Servant s, const T *a, T *b, T **c, CORBA_Environment *ev) \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    return rotate(TC_##T, a, b, (void **)c);                                          \
  }
ROT(s_ulong, Wide_ByLong)
ROT(s_ushort, Wide_ByShort)
ROT(s_uchar, Wide_ByChar)
ROT(s_ubool, Wide_ByBool)
ROT(s_uenum, Wide_ByEnum)
ROT(s_pts, Wide_Points)
ROT(s_lss, Wide_LongSS)
ROT(s_named, Wide_Named)
ROT(s_things, Wide_Things)
ROT(s_tree, Wide_Tree)

static CORBA_any *s_anyop(PortableServer_Servant s, const CORBA_any *a, CORBA_any *b,
                          CORBA_any **c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return rotate(TC_CORBA_any, a, b, (void **)c);
}

/* a fixed-length array: out in the caller's storage, the result a slice */
static Wide_Grid_slice *s_grid(PortableServer_Servant s, const Wide_Grid a, Wide_Grid b,
                               Wide_Grid c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  memcpy(c, b, sizeof(Wide_Grid));
  memcpy(b, a, sizeof(Wide_Grid));
  Wide_Grid_slice *r = Wide_Grid__alloc();
  memcpy(r, a, sizeof(Wide_Grid));
  return r;
}

static Wide_Names_slice *s_names(PortableServer_Servant s, const Wide_Names a, Wide_Names b,
                                 Wide_Names_slice **c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return rotate(TC_Wide_Names, a, b, (void **)c);
}

static CORBA_string s_str(PortableServer_Servant s, const CORBA_char *a, CORBA_string *b,
                          CORBA_string *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = *b;                     /* the old inout string becomes the out one */
  *b = CORBA_string_dup(a);
  return CORBA_string_dup(a);
}

static CORBA_wstring s_wstr(PortableServer_Servant s, const CORBA_wchar *a, CORBA_wstring *b,
                            CORBA_wstring *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = *b;
  *b = CORBA_wstring_dup(a);
  return CORBA_wstring_dup(a);
}

static Wide_Point s_point(PortableServer_Servant s, const Wide_Point *a, Wide_Point *b,
                          Wide_Point *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = *b;
  *b = *a;
  return *a;
}

static Wide_Thing s_thing(PortableServer_Servant s, Wide_Thing a, Wide_Thing *b, Wide_Thing *c,
                          CORBA_Environment *ev)
{
  (void)s;
  *c = *b;
  *b = CORBA_Object_duplicate(a, ev);
  return CORBA_Object_duplicate(a, ev);
}

static Wide_Thing s_mk(PortableServer_Servant s, CORBA_long id, CORBA_Environment *ev)
{
  (void)s;
  return CORBA_Object_duplicate(id == 7 ? srv.t7 : srv.t8, ev);
}

static CORBA_long_long s_ll(PortableServer_Servant s, CORBA_long_long a, CORBA_unsigned_long_long *b,
                            CORBA_octet *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = (CORBA_octet)(*b % 256);
  *b *= 2;
  return a - 1;
}

static void s_fail(PortableServer_Servant s, CORBA_long code, CORBA_Environment *ev)
{
  (void)s;
  if (code == 1) {
    Wide_Oops *e = Wide_Oops__alloc();
    e->code = 1;
    e->what = CORBA_string_dup("oops");
    e->where._buffer = Wide_Points_allocbuf(1);
    e->where._maximum = e->where._length = 1;
    e->where._release = CORBA_TRUE;
    e->where._buffer[0].x = 1;
    e->where._buffer[0].y = -1;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Wide_Oops, e);
  } else if (code == 2) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Wide_Empty, NULL);
  }
}

static void s_shutdown(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  CORBA_ORB_shutdown(orb, CORBA_FALSE, ev);
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Wide_A__epv a_epv = { NULL, s_fa };
static POA_Wide_B__epv b_epv = { NULL, s_fb };
static POA_Wide_C__epv c_epv = { NULL, s_fc };
static POA_Wide_D__epv d_epv = { NULL, s_fd };
static POA_Wide_Svc__epv svc_epv = {
  ._private = NULL,
  ._get_label = s_get_label, ._set_label = s_set_label, ._get_hue = s_get_hue,
  ._get_current = s_get_current, ._set_current = s_set_current,
  .poke = s_poke, .pokes = s_pokes, .ulong = s_ulong, .ushort = s_ushort, .uchar = s_uchar,
  .ubool = s_ubool, .uenum = s_uenum, .op_grid = s_grid, .op_names = s_names, .pts = s_pts,
  .lss = s_lss, .str = s_str, .wstr = s_wstr, .op_point = s_point, .op_named = s_named,
  .anyop = s_anyop, .op_thing = s_thing, .op_things = s_things, .op_tree = s_tree,
  .mk = s_mk, .ll = s_ll, .fail = s_fail, .shutdown = s_shutdown,
};
static POA_Wide_Svc__vepv svc_vepv = { &base_epv, &a_epv, &b_epv, &c_epv, &d_epv, &svc_epv };
static POA_Wide_Thing__epv thing_epv = { NULL, t_get_id };
static POA_Wide_Thing__vepv thing_vepv = { &base_epv, &thing_epv };

static CORBA_Object activate(PortableServer_POA poa, const char *id, PortableServer_Servant s,
                             CORBA_Environment *ev)
{
  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId(id, ev);
  PortableServer_POA_activate_object_with_id(poa, oid, s, ev);
  check(ev, id);
  CORBA_free(oid);
  CORBA_Object o = PortableServer_POA_servant_to_reference(poa, s, ev);
  check(ev, "servant_to_reference");
  return o;
}

static int server(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  PortableServer_POA ins =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  check(&ev, "omniINSPOA");
  srv.label = CORBA_string_dup("start");
  srv.current._d = 1;
  srv.current._u.a = 42;
  srv.servant.vepv = &svc_vepv;
  thing7.servant.vepv = &thing_vepv;
  thing8.servant.vepv = &thing_vepv;
  POA_Wide_Svc__init(&srv, &ev);
  POA_Wide_Thing__init(&thing7, &ev);
  POA_Wide_Thing__init(&thing8, &ev);
  check(&ev, "init");
  CORBA_Object self = activate(ins, "Svc", &srv, &ev);
  srv.t7 = activate(ins, "T7", &thing7, &ev);
  srv.t8 = activate(ins, "T8", &thing8, &ev);
  print_ref(self, &ev);
  peer_run(ins, &ev);
  CORBA_Object_release(self, &ev);
  CORBA_Object_release(srv.t7, &ev);
  CORBA_Object_release(srv.t8, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Wide_Svc__fini(&srv, &ev);
  POA_Wide_Thing__fini(&thing7, &ev);
  POA_Wide_Thing__fini(&thing8, &ev);
  CORBA_free(srv.label);
  corbaorb_free_contents(TC_Wide_ByLong, &srv.current);
  return 0;
}

/* ---------------------------------------------------------------- client */

#define ROTCALL(fn, T, A, B, what)                                   \
  do {                                                               \
    T b_ = *(B), *old_ = dupv(TC_##T, (B)), *c_ = NULL;              \
    T b2_;                                                           \
    corbaorb_copy(TC_##T, &b2_, &b_);                                \
    T *r_ = fn(svc, (A), &b2_, &c_, &ev);                            \
    if (no_ex(&ev, what))                                            \
      rot_check(TC_##T, what, (A), &b2_, old_, r_, c_);              \
    CORBA_free(old_);                                                \
  } while (0)

static void seq_points(Wide_Points *s, CORBA_unsigned_long n, CORBA_long base)
{
  s->_buffer = Wide_Points_allocbuf(n);
  s->_maximum = s->_length = n;
  s->_release = CORBA_TRUE;
  for (CORBA_unsigned_long i = 0; i < n; i++) {
    s->_buffer[i].x = base + (CORBA_long)i;
    s->_buffer[i].y = -(CORBA_short)i;
  }
}

static CORBA_long thing_id(Wide_Thing t, CORBA_Environment *ev)
{
  if (CORBA_Object_is_nil(t, ev))
    return -1;
  CORBA_long id = Wide_Thing__get_id(t, ev);
  if (ev->_major != CORBA_NO_EXCEPTION) {
    CORBA_exception_free(ev);
    return -2;
  }
  return id;
}

static int client(char **refs, int shutdown)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  Wide_Svc svc = CORBA_ORB_string_to_object(orb, refs[0], &ev);
  check(&ev, "string_to_object");

  /* diamond: every base's operation through the derived and the base names */
  ok(Wide_Svc_fa(svc, &ev) == 1 && Wide_A_fa(svc, &ev) == 1 && Wide_B_fa(svc, &ev) == 1 &&
     Wide_C_fa(svc, &ev) == 1 && Wide_D_fa(svc, &ev) == 1, "fa through Svc, A, B, C, D");
  ok(Wide_Svc_fb(svc, &ev) == 2 && Wide_Svc_fc(svc, &ev) == 3 && Wide_Svc_fd(svc, &ev) == 4 &&
     no_ex(&ev, "fb fc fd"), "fb fc fd");
  static const char *const ids[] = { "IDL:wide.test/Wide/A:1.0", "IDL:wide.test/Wide/B:1.0",
                                     "IDL:wide.test/Wide/C:1.0", "IDL:wide.test/Wide/D:1.0",
                                     "IDL:wide.test/Wide/Svc:2.3" };
  int isa = 1;
  for (int i = 0; i < 5; i++)
    isa &= CORBA_Object_is_a(svc, ids[i], &ev) == CORBA_TRUE;
  ok(isa && !CORBA_Object_is_a(svc, "IDL:wide.test/Wide/Thing:1.0", &ev) &&
     no_ex(&ev, "is_a"), "_is_a of A, B, C, D, Svc:2.3 (#pragma version), not Thing");

  /* attributes */
  CORBA_string l = Wide_Svc__get_label(svc, &ev);
  ok(no_ex(&ev, "label") && l && strcmp(l, "start") == 0, "label is \"start\"");
  CORBA_free(l);
  Wide_Svc__set_label(svc, "renamed", &ev);
  l = Wide_Svc__get_label(svc, &ev);
  ok(no_ex(&ev, "label") && l && strcmp(l, "renamed") == 0, "label set to \"renamed\"");
  CORBA_free(l);
  ok(Wide_Svc__get_hue(svc, &ev) == Wide_BLUE && no_ex(&ev, "hue"), "hue is BLUE");
  Wide_ByLong *cur = Wide_Svc__get_current(svc, &ev);
  ok(no_ex(&ev, "current") && cur && cur->_d == 1 && cur->_u.a == 42, "current is {1: a 42}");
  CORBA_free(cur);
  Wide_ByLong nc = { ._d = 3 };
  nc._u.s = "three";
  Wide_Svc__set_current(svc, &nc, &ev);
  cur = Wide_Svc__get_current(svc, &ev);
  ok(no_ex(&ev, "current") && cur && cur->_d == 3 && strcmp(cur->_u.s, "three") == 0,
     "current set to {3: s \"three\"} (a case of two labels)");
  CORBA_free(cur);

  /* oneway */
  Wide_Svc_poke(svc, 3, &ev);
  Wide_Svc_poke(svc, 4, &ev);
  no_ex(&ev, "poke");
  CORBA_long p = 0;
  for (int i = 0; i < 100 && (p = Wide_Svc_pokes(svc, &ev)) != 7; i++) {
    struct timespec ts = { 0, 20000000 };
    nanosleep(&ts, NULL);
  }
  ok(p == 7 && no_ex(&ev, "pokes"), "two oneway pokes (3, 4) arrive: 7");

  /* unions on every discriminator kind */
  {
    Wide_ByLong a = { ._d = 2 }, b = { ._d = 7 };
    a._u.s = "two";
    b._u.p.x = 5;
    b._u.p.y = 6;
    ROTCALL(Wide_Svc_ulong, Wide_ByLong, &a, &b, "ByLong {2: s} / {7: default p}");
  }
  {
    Wide_ByShort a = { ._d = 5 }, b = { ._d = 0 };
    a._u.n.name = "nn";
    a._u.n.at.x = 1;
    a._u.n.at.y = 2;
    ROTCALL(Wide_Svc_ushort, Wide_ByShort, &a, &b, "ByShort {5: n} / {0: implicit default}");
    Wide_ByShort a2 = { ._d = -1 };
    a2._u.d = 2.5;
    ROTCALL(Wide_Svc_ushort, Wide_ByShort, &a2, &a, "ByShort {-1: d 2.5} / {5: n}");
  }
  {
    static CORBA_wchar w[] = { 'w', 0xE9, 0x4E2D, 0 };
    Wide_ByChar a = { ._d = 'b' }, b = { ._d = 'z' };
    a._u.w = w;
    b._u.f = CORBA_TRUE;
    ROTCALL(Wide_Svc_uchar, Wide_ByChar, &a, &b, "ByChar {'b': wstring} / {'z': default f}");
    Wide_ByChar a2 = { ._d = 'a' };
    a2._u.o = 200;
    ROTCALL(Wide_Svc_uchar, Wide_ByChar, &a2, &a, "ByChar {'a': octet 200}");
  }
  {
    Wide_ByBool a = { ._d = CORBA_FALSE }, b = { ._d = CORBA_TRUE };
    a._u.f = "no";
    b._u.t = -5;
    ROTCALL(Wide_Svc_ubool, Wide_ByBool, &a, &b, "ByBool {FALSE: f} / {TRUE: t -5}");
  }
  {
    Wide_ByEnum a = { ._d = Wide_GREEN }, b = { ._d = Wide_BLUE };
    seq_points(&a._u.g, 2, 10);
    ROTCALL(Wide_Svc_uenum, Wide_ByEnum, &a, &b, "ByEnum {GREEN: Points} / {BLUE: implicit default}");
    Wide_ByEnum a2 = { ._d = Wide_RED };
    a2._u.r = 77;
    ROTCALL(Wide_Svc_uenum, Wide_ByEnum, &a2, &a, "ByEnum {RED: r 77}");
    corbaorb_free_contents(TC_Wide_ByEnum, &a);
  }

  /* arrays */
  {
    Wide_Grid a, b, c;
    memset(c, 0, sizeof c);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++) {
        a[i][j].x = i * 10 + j;
        a[i][j].y = (CORBA_short)-(i + j);
        b[i][j].x = 100 + i * 10 + j;
        b[i][j].y = (CORBA_short)(i * j);
      }
    Wide_Grid ob;
    memcpy(ob, b, sizeof b);
    Wide_Grid_slice *r = Wide_Svc_op_grid(svc, a, b, c, &ev);
    /* by members: a Point's padding is not compared */
    ok(no_ex(&ev, "grid") && r && eq(TC_Wide_Grid, r, a) && eq(TC_Wide_Grid, b, a) &&
       eq(TC_Wide_Grid, c, ob), "Grid (Point[2][3]): result slice, inout and out");
    CORBA_free(r);
  }
  {
    Wide_Names a = { { "a00", "a01" }, { "a10", "a11" } };
    Wide_Names ob = { { "b00", "b01" }, { "b10", "b11" } };
    Wide_Names b;
    corbaorb_copy(TC_Wide_Names, b, ob);
    Wide_Names_slice *c = NULL;
    Wide_Names_slice *r = Wide_Svc_op_names(svc, a, b, &c, &ev);
    if (no_ex(&ev, "names"))
      rot_check(TC_Wide_Names, "Names (string[2][2])", a, b, ob, r, c);
  }

  /* sequences */
  {
    Wide_Points a, b = { 0, 0, NULL, CORBA_FALSE };
    seq_points(&a, 3, 1);
    ROTCALL(Wide_Svc_pts, Wide_Points, &a, &b, "Points (3) / (empty)");
    corbaorb_free_contents(TC_Wide_Points, &a);
  }
  {
    CORBA_long l0[] = { 1, 2, 3 }, l2[] = { 4 }, l9[] = { 9 };
    CORBA_sequence_CORBA_long in[3] = { { 3, 3, l0, CORBA_FALSE }, { 0, 0, NULL, CORBA_FALSE },
                                        { 1, 1, l2, CORBA_FALSE } };
    CORBA_sequence_CORBA_long bi[1] = { { 1, 1, l9, CORBA_FALSE } };
    Wide_LongSS a = { 3, 3, in, CORBA_FALSE }, b = { 1, 1, bi, CORBA_FALSE };
    ROTCALL(Wide_Svc_lss, Wide_LongSS, &a, &b, "LongSS [[1,2,3],[],[4]] / [[9]]");
  }

  /* strings */
  {
    CORBA_string b = CORBA_string_dup("inout-old"), c = NULL;
    CORBA_string r = Wide_Svc_str(svc, "hello", &b, &c, &ev);
    ok(no_ex(&ev, "str") && r && b && c && strcmp(r, "hello") == 0 && strcmp(b, "hello") == 0 &&
       strcmp(c, "inout-old") == 0, "string: result, inout (freed and replaced), out");
    CORBA_free(r);
    CORBA_free(b);
    CORBA_free(c);
  }
  {
    static const CORBA_wchar wa[] = { 'w', 0xE9, 0x10348 & 0xFFFF, 0 }, wb[] = { 'x', 0 };
    CORBA_wstring b = CORBA_wstring_dup(wb), c = NULL;
    CORBA_wstring r = Wide_Svc_wstr(svc, wa, &b, &c, &ev);
    ok(no_ex(&ev, "wstr") && r && b && c && eq(TC_CORBA_wstring, &r, &(const CORBA_wchar *){ wa }) &&
       eq(TC_CORBA_wstring, &b, &(const CORBA_wchar *){ wa }) &&
       eq(TC_CORBA_wstring, &c, &(const CORBA_wchar *){ wb }), "wstring: result, inout, out");
    CORBA_free(r);
    CORBA_free(b);
    CORBA_free(c);
  }

  /* structs */
  {
    Wide_Point a = { 1, 2 }, b = { 3, 4 }, c = { 0, 0 };
    Wide_Point r = Wide_Svc_op_point(svc, &a, &b, &c, &ev);
    ok(no_ex(&ev, "point") && r.x == 1 && r.y == 2 && b.x == 1 && b.y == 2 && c.x == 3 && c.y == 4,
       "Point (fixed): result by value, inout, out in the caller's storage");
  }
  {
    Wide_Named a = { "alpha", { 1, 2 } }, b = { "beta", { 3, 4 } };
    ROTCALL(Wide_Svc_op_named, Wide_Named, &a, &b, "Named (variable)");
  }
  {
    Wide_Tree k2[1] = { { 4, { 0, 0, NULL, CORBA_FALSE } } };
    Wide_Tree k[2] = { { 2, { 0, 0, NULL, CORBA_FALSE } }, { 3, { 1, 1, k2, CORBA_FALSE } } };
    Wide_Tree a = { 1, { 2, 2, k, CORBA_FALSE } }, b = { 9, { 0, 0, NULL, CORBA_FALSE } };
    ROTCALL(Wide_Svc_op_tree, Wide_Tree, &a, &b, "Tree (recursive through a sequence)");
  }

  /* any */
  {
    Wide_Named nv = { "in-any", { 5, -5 } };
    CORBA_long five = 5;
    CORBA_any a = { ._type = TC_Wide_Named, ._value = &nv, ._release = CORBA_FALSE };
    CORBA_any b0 = { ._type = TC_CORBA_long, ._value = &five, ._release = CORBA_FALSE };
    CORBA_any b, *c = NULL;
    CORBA_any__copy(&b, &b0);
    CORBA_any *r = Wide_Svc_anyop(svc, &a, &b, &c, &ev);
    if (no_ex(&ev, "anyop")) {
      ok(r && c && r->_type && cdr_tc_equal(r->_type, TC_Wide_Named) &&
         eq(TC_Wide_Named, r->_value, &nv) && eq(TC_CORBA_any, &b, &a) &&
         c->_type && cdr_tc_equal(c->_type, TC_CORBA_long) && *(CORBA_long *)c->_value == 5,
         "any: a Named and a long, result, inout and out");
      CORBA_free(r);
      CORBA_free(c);
    }
    corbaorb_free_contents(TC_CORBA_any, &b);
  }

  /* object references */
  {
    Wide_Thing t7 = Wide_Svc_mk(svc, 7, &ev), t8 = Wide_Svc_mk(svc, 8, &ev);
    ok(no_ex(&ev, "mk") && thing_id(t7, &ev) == 7 && thing_id(t8, &ev) == 8, "mk(7), mk(8)");
    Wide_Thing b = CORBA_Object_duplicate(t8, &ev), c = CORBA_OBJECT_NIL;
    Wide_Thing r = Wide_Svc_op_thing(svc, t7, &b, &c, &ev);
    ok(no_ex(&ev, "thing") && thing_id(r, &ev) == 7 && thing_id(b, &ev) == 7 &&
       thing_id(c, &ev) == 8, "Thing: result, inout, out references");
    CORBA_Object_release(r, &ev);
    CORBA_Object_release(b, &ev);
    CORBA_Object_release(c, &ev);
    Wide_Thing ab[3] = { t7, t8, CORBA_OBJECT_NIL }, bb[1] = { t8 };
    Wide_Things a = { 3, 3, ab, CORBA_FALSE }, bs = { 1, 1, NULL, CORBA_TRUE }, *cs = NULL;
    bs._buffer = Wide_Things_allocbuf(1);
    bs._buffer[0] = CORBA_Object_duplicate(bb[0], &ev);
    Wide_Things *rs = Wide_Svc_op_things(svc, &a, &bs, &cs, &ev);
    if (no_ex(&ev, "things")) {
      ok(rs && cs && rs->_length == 3 && bs._length == 3 && cs->_length == 1 &&
         thing_id(rs->_buffer[0], &ev) == 7 && thing_id(rs->_buffer[1], &ev) == 8 &&
         thing_id(rs->_buffer[2], &ev) == -1 && thing_id(bs._buffer[0], &ev) == 7 &&
         thing_id(bs._buffer[2], &ev) == -1 && thing_id(cs->_buffer[0], &ev) == 8,
         "Things (sequence of references, a nil one): result, inout, out");
      CORBA_free(rs);
      CORBA_free(cs);
    }
    corbaorb_free_contents(TC_Wide_Things, &bs);
    CORBA_Object_release(t7, &ev);
    CORBA_Object_release(t8, &ev);
  }

  /* long long, unsigned long long, octet */
  {
    CORBA_unsigned_long_long b = 300;
    CORBA_octet c = 0;
    CORBA_long_long r = Wide_Svc_ll(svc, -5000000000LL, &b, &c, &ev);
    ok(no_ex(&ev, "ll") && r == -5000000001LL && b == 600 && c == 44,
       "ll: -5000000000 - 1, inout 300 doubled, out 300 % 256");
  }

  /* exceptions */
  Wide_Svc_fail(svc, 1, &ev);
  {
    Wide_Oops *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && strcmp(CORBA_exception_id(&ev), ex_Wide_Oops) == 0 && e->code == 1 &&
       e->what && strcmp(e->what, "oops") == 0 && e->where._length == 1 &&
       e->where._buffer[0].x == 1 && e->where._buffer[0].y == -1,
       "fail(1) raises Oops { 1, \"oops\", [{1,-1}] }");
    CORBA_exception_free(&ev);
  }
  Wide_Svc_fail(svc, 2, &ev);
  ok(ev._major == CORBA_USER_EXCEPTION && strcmp(CORBA_exception_id(&ev), ex_Wide_Empty) == 0,
     "fail(2) raises Empty");
  CORBA_exception_free(&ev);
  Wide_Svc_fail(svc, 0, &ev);
  ok(no_ex(&ev, "fail(0)"), "fail(0) returns");

  if (shutdown) {
    Wide_Svc_shutdown(svc, &ev);
    no_ex(&ev, "shutdown");
  }
  CORBA_Object_release(svc, &ev);
  return peer_summary();
}

int main(int argc, char **argv)
{
  return peer_main(argc, argv, server, 1, client, "IOR");
}
