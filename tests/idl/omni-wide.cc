// omni-wide.cc - omniORB peers of tests/idl/wide.idl for tests/idlwide.test.
//
//   omni-wide server [-ORB options]     Wide::Svc as tests/idl/wide-peer.c
//                                       serves it (same behaviour), IOR on
//                                       the first line, until shutdown()
//   omni-wide client IOR [--shutdown]   a representative subset of
//                                       wide-peer.c's checks from omniORB:
//                                       unions, arrays, a sequence of
//                                       structs, inout/out strings, an
//                                       exception with members, attributes,
//                                       an any; "ok N - what" lines, exit 0
//                                       when all passed
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include "wide.hh"
#define PEER_NAME "omni-wide"
#include "omni-peer.h"

class ThingImpl : public POA_Wide::Thing {
public:
  explicit ThingImpl(CORBA::Long i) : id_(i) {}
  CORBA::Long id() { return id_; }
private:
  CORBA::Long id_;
};

class SvcImpl : public POA_Wide::Svc {
public:
  Wide::Thing_var t7, t8;
  CORBA::String_var label_;
  Wide::ByLong current_;
  CORBA::Long pokes_;
  SvcImpl() : label_(CORBA::string_dup("start")), pokes_(0) { current_.a(42); }

  CORBA::Long fa() { return 1; }
  CORBA::Long fb() { return 2; }
  CORBA::Long fc() { return 3; }
  CORBA::Long fd() { return 4; }
  char *label() { return CORBA::string_dup(label_); }
  void label(const char *v) { label_ = CORBA::string_dup(v); }
  Wide::Color hue() { return Wide::BLUE; }
  Wide::ByLong *current() { return new Wide::ByLong(current_); }
  void current(const Wide::ByLong &v) { current_ = v; }
  void poke(CORBA::Long n) { pokes_ += n; }
  CORBA::Long pokes() { return pokes_; }
#define ROT(T, fn) \
  Wide::T *fn(const Wide::T &a, Wide::T &b, Wide::T##_out c) { c = new Wide::T(b); b = a; return new Wide::T(a); }
  ROT(ByLong, ulong)
  ROT(ByShort, ushort)
  ROT(ByChar, uchar)
  ROT(ByBool, ubool)
  ROT(ByEnum, uenum)
  ROT(Points, pts)
  ROT(LongSS, lss)
  ROT(Named, op_named)
  ROT(Things, op_things)
  ROT(Tree, op_tree)
  Wide::Grid_slice *op_grid(const Wide::Grid a, Wide::Grid b, Wide::Grid c)
  {
    Wide::Grid_copy(c, b);
    Wide::Grid_copy(b, a);
    return Wide::Grid_dup(a);
  }
  Wide::Names_slice *op_names(const Wide::Names a, Wide::Names b, Wide::Names_out c)
  {
    c = Wide::Names_dup(b);
    Wide::Names_copy(b, a);
    return Wide::Names_dup(a);
  }
  char *str(const char *a, char *&b, CORBA::String_out c)
  {
    c = b;
    b = CORBA::string_dup(a);
    return CORBA::string_dup(a);
  }
  CORBA::WChar *wstr(const CORBA::WChar *a, CORBA::WChar *&b, CORBA::WString_out c)
  {
    c = b;
    b = CORBA::wstring_dup(a);
    return CORBA::wstring_dup(a);
  }
  Wide::Point op_point(const Wide::Point &a, Wide::Point &b, Wide::Point &c)
  {
    c = b;
    b = a;
    return a;
  }
  CORBA::Any *anyop(const CORBA::Any &a, CORBA::Any &b, CORBA::Any_OUT_arg c)
  {
    c = new CORBA::Any(b);
    b = a;
    return new CORBA::Any(a);
  }
  Wide::Thing_ptr op_thing(Wide::Thing_ptr a, Wide::Thing_ptr &b, Wide::Thing_out c)
  {
    c = b;
    b = Wide::Thing::_duplicate(a);
    return Wide::Thing::_duplicate(a);
  }
  Wide::Thing_ptr mk(CORBA::Long id) { return Wide::Thing::_duplicate(id == 7 ? t7 : t8); }
  CORBA::LongLong ll(CORBA::LongLong a, CORBA::ULongLong &b, CORBA::Octet &c)
  {
    c = (CORBA::Octet)(b % 256);
    b *= 2;
    return a - 1;
  }
  void fail(CORBA::Long code)
  {
    if (code == 1) {
      Wide::Oops e;
      e.code = 1;
      e.what = "oops";
      e.where.length(1);
      e.where[0].x = 1;
      e.where[0].y = -1;
      throw e;
    }
    if (code == 2)
      throw Wide::Empty();
  }
  void shutdown() { orb->shutdown(0); }
};

static int client(char **refs, bool shutdown)
{
  Wide::Svc_var s = Wide::Svc::_narrow(orb->string_to_object(refs[0]));
  ok(!CORBA::is_nil(s), "narrow to Wide::Svc (IDL:wide.test/Wide/Svc:2.3)");
  ok(s->fa() == 1 && s->fb() == 2 && s->fc() == 3 && s->fd() == 4, "diamond: fa fb fc fd");
  ok(s->_is_a("IDL:wide.test/Wide/A:1.0") && s->_is_a("IDL:wide.test/Wide/C:1.0"),
     "_is_a A and C");

  // attributes
  CORBA::String_var l = s->label();
  ok(std::strcmp(l, "start") == 0, "label is \"start\"");
  s->label("renamed");
  l = s->label();
  ok(std::strcmp(l, "renamed") == 0, "label set to \"renamed\"");
  ok(s->hue() == Wide::BLUE, "hue is BLUE");
  Wide::ByLong_var cur = s->current();
  ok(cur->_d() == 1 && cur->a() == 42, "current is {1: a 42}");
  Wide::ByLong nc;
  nc.s("three");
  nc._d(3);
  s->current(nc);
  cur = s->current();
  ok(cur->_d() == 3 && std::strcmp(cur->s(), "three") == 0, "current set to {3: s \"three\"}");

  // unions
  {
    Wide::ByLong a, b;
    a.s("two");
    a._d(2);
    Wide::Point p = { 5, 6 };
    b.p(p);
    b._d(7);
    Wide::ByLong_var c;
    Wide::ByLong_var r = s->ulong(a, b, c.out());
    ok(r->_d() == 2 && std::strcmp(r->s(), "two") == 0 && b._d() == 2 &&
       std::strcmp(b.s(), "two") == 0 && c->_d() == 7 && c->p().x == 5 && c->p().y == 6,
       "ByLong {2: s} / {7: default p}");
  }
  {
    Wide::ByEnum a, b;
    Wide::Points g;
    g.length(2);
    g[0].x = 10; g[0].y = 0; g[1].x = 11; g[1].y = -1;
    a.g(g);
    b._default();   // BLUE: the implicit default, no member
    b._d(Wide::BLUE);
    Wide::ByEnum_var c;
    Wide::ByEnum_var r = s->uenum(a, b, c.out());
    ok(r->_d() == Wide::GREEN && r->g().length() == 2 && r->g()[1].x == 11 &&
       r->g()[1].y == -1 && b._d() == Wide::GREEN && c->_d() == Wide::BLUE,
       "ByEnum {GREEN: Points} / {BLUE: implicit default}");
  }
  {
    Wide::ByChar a, b;
    CORBA::WChar w[] = { 'w', 0xE9, 0x4E2D, 0 };
    a.w((const CORBA::WChar *)w);  // copied (a WChar * would be adopted)
    a._d('b');
    b.f(1);
    b._d('z');
    Wide::ByChar_var c;
    Wide::ByChar_var r = s->uchar(a, b, c.out());
    ok(r->_d() == 'b' && r->w()[1] == 0xE9 && r->w()[2] == 0x4E2D && r->w()[3] == 0 &&
       c->_d() == 'z' && c->f() == 1, "ByChar {'b': wstring} / {'z': default f}");
  }
  {
    Wide::ByShort a, b;
    Wide::Named n;
    n.name = "nn";
    n.at.x = 1;
    n.at.y = 2;
    a.n(n);
    b._default();
    b._d(0);
    Wide::ByShort_var c;
    Wide::ByShort_var r = s->ushort(a, b, c.out());
    ok(r->_d() == 5 && std::strcmp(r->n().name, "nn") == 0 && r->n().at.y == 2 &&
       c->_d() == 0, "ByShort {5: n} / {0: implicit default}");
  }

  // arrays
  {
    Wide::Grid a, b, c, ob;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++) {
        a[i][j].x = i * 10 + j; a[i][j].y = -(i + j);
        b[i][j].x = 100 + i * 10 + j; b[i][j].y = i * j;
        ob[i][j] = b[i][j];
      }
    Wide::Grid_slice *r = s->op_grid(a, b, c);
    bool good = true;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        good = good && r[i][j].x == a[i][j].x && r[i][j].y == a[i][j].y &&
               b[i][j].x == a[i][j].x && c[i][j].x == ob[i][j].x && c[i][j].y == ob[i][j].y;
    ok(good, "Grid (Point[2][3]): result, inout, out");
    Wide::Grid_free(r);
  }
  {
    Wide::Names a, b;
    const char *an[2][2] = { { "a00", "a01" }, { "a10", "a11" } };
    const char *bn[2][2] = { { "b00", "b01" }, { "b10", "b11" } };
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        a[i][j] = an[i][j];
        b[i][j] = bn[i][j];
      }
    Wide::Names_var c;
    Wide::Names_var r = s->op_names(a, b, c.out());
    bool good = true;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        good = good && std::strcmp(r[i][j], an[i][j]) == 0 &&
               std::strcmp(b[i][j], an[i][j]) == 0 && std::strcmp(c[i][j], bn[i][j]) == 0;
    ok(good, "Names (string[2][2]): result, inout, out");
  }

  // a sequence of structs
  {
    Wide::Points a, b;
    a.length(3);
    for (CORBA::ULong i = 0; i < 3; i++) {
      a[i].x = 1 + i;
      a[i].y = -(CORBA::Short)i;
    }
    Wide::Points_var c;
    Wide::Points_var r = s->pts(a, b, c.out());
    ok(r->length() == 3 && r[2].x == 3 && r[2].y == -2 && b.length() == 3 && b[1].x == 2 &&
       c->length() == 0, "Points (3) / (empty)");
  }

  // strings
  {
    CORBA::String_var b = CORBA::string_dup("inout-old"), c;
    CORBA::String_var r = s->str("hello", b.inout(), c.out());
    ok(std::strcmp(r, "hello") == 0 && std::strcmp(b, "hello") == 0 &&
       std::strcmp(c, "inout-old") == 0, "string: result, inout, out");
  }
  {
    Wide::Named a, b;
    a.name = "alpha"; a.at.x = 1; a.at.y = 2;
    b.name = "beta"; b.at.x = 3; b.at.y = 4;
    Wide::Named_var c;
    Wide::Named_var r = s->op_named(a, b, c.out());
    ok(std::strcmp(r->name, "alpha") == 0 && std::strcmp(b.name, "alpha") == 0 &&
       std::strcmp(c->name, "beta") == 0 && c->at.y == 4, "Named: result, inout, out");
  }

  // any
  {
    Wide::Named nv;
    nv.name = "in-any"; nv.at.x = 5; nv.at.y = -5;
    CORBA::Any a, b;
    a <<= nv;
    b <<= (CORBA::Long)5;
    CORBA::Any_var c;
    CORBA::Any_var r = s->anyop(a, b, c.out());
    const Wide::Named *rn = 0, *bnp = 0;
    CORBA::Long cl = 0;
    ok((r.in() >>= rn) && std::strcmp(rn->name, "in-any") == 0 && rn->at.y == -5 &&
       (b >>= bnp) && std::strcmp(bnp->name, "in-any") == 0 && (c.in() >>= cl) && cl == 5,
       "any: a Named and a long, result, inout, out");
  }

  // exceptions
  try {
    s->fail(1);
    ok(false, "fail(1) raises Oops");
  } catch (Wide::Oops &e) {
    ok(e.code == 1 && std::strcmp(e.what, "oops") == 0 && e.where.length() == 1 &&
       e.where[0].x == 1 && e.where[0].y == -1, "fail(1) raises Oops { 1, \"oops\", [{1,-1}] }");
  }
  try {
    s->fail(2);
    ok(false, "fail(2) raises Empty");
  } catch (Wide::Empty &) {
    ok(true, "fail(2) raises Empty");
  }
  {
    CORBA::ULongLong b = 300;
    CORBA::Octet c = 0;
    ok(s->ll(-5000000000LL, b, c) == -5000000001LL && b == 600 && c == 44, "ll");
  }
  {
    Wide::Thing_var t7 = s->mk(7), t8 = s->mk(8);
    Wide::Things a;
    a.length(2);
    a[0] = Wide::Thing::_duplicate(t7);
    a[1] = Wide::Thing::_duplicate(t8);
    Wide::Things b;
    Wide::Things_var c;
    Wide::Things_var r = s->op_things(a, b, c.out());
    ok(r->length() == 2 && r[0]->id() == 7 && r[1]->id() == 8 && b.length() == 2 &&
       c->length() == 0, "Things: references of the C server, result, inout, out");
  }
  if (shutdown)
    s->shutdown();
  return peer_summary();
}

static int server()
{
  CORBA::Object_var o = orb->resolve_initial_references("omniINSPOA");
  PortableServer::POA_var poa = PortableServer::POA::_narrow(o);
  SvcImpl *svc = new SvcImpl;
  ThingImpl *t7 = new ThingImpl(7), *t8 = new ThingImpl(8);
  PortableServer::ObjectId_var id = PortableServer::string_to_ObjectId("Svc");
  poa->activate_object_with_id(id, svc);
  id = PortableServer::string_to_ObjectId("T7");
  poa->activate_object_with_id(id, t7);
  id = PortableServer::string_to_ObjectId("T8");
  poa->activate_object_with_id(id, t8);
  svc->t7 = t7->_this();
  svc->t8 = t8->_this();
  CORBA::Object_var self = svc->_this();
  print_ref(self);
  peer_run(poa);
  return 0;
}

int main(int argc, char **argv)
{
  return peer_main(argc, argv, server, 1, client, "IOR");
}
