// omni-zoo.cc - omniORB peers of tests/idlzoo's IDL for tests/idlzoo.test.
//
//   omni-zoo server [-ORB options]   Zoo::Keeper, Prag::Probe and
//                                    auto::interface as tests/idlzoo/zoo-peer.c
//                                    serves them (its comment says how they
//                                    behave), three IORs one a line, until
//                                    Keeper::shutdown
//   omni-zoo client KEEPER PROBE KW [--shutdown]
//                                    zoo-peer.c's checks from omniORB, most
//                                    of them: "ok N - what" lines, exit 0
//                                    when all passed
//
// ckw.hh is made from a copy of ckw.idl whose members NULL, errno, unix
// and linux are renamed (the test does it): omniidl's C++ keeps those
// names, which the C library and g++ make macros.  The names are not on
// the wire (only in TypeCodes, which these operations do not send), so
// the two sides still interoperate.  ckw.hh comes first: it keeps EOF and
// stdin too, which <cstdio> would make macros.
#include "ckw.hh"
#include "zoo.hh"
#include "pragmas.hh"
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#define PEER_NAME "omni-zoo"
#include "../idl/omni-peer.h"

static PortableServer::POA_var root;

static Zoo::Money money(const char *s) { return Zoo::Money(CORBA::Fixed(s)); }

static void cage(Zoo::Cage &c, const char *label, CORBA::Long d, const char *k0, const char *k1,
                 const char *cost)
{
  c.label = label;
  for (int i = 0; i < 6; i++)
    c.dims[i / 3][i % 3] = d + i;
  c.keepers[0] = k0;
  c.keepers[1] = k1;
  c.inner.length(0);
  c.cost = money(cost);
}

// omniORB 4.2.5's fixed typedefs (_omni_Fixed<9,2>) have no copy
// constructor of their own: a copy-constructed Cage (and a union's member,
// which omniORB's setters copy-construct) loses the fixed's digits and
// scale, and marshalling it then aborts ("Assertion failed ...
// pd_idl_digits").  Assignment keeps them.  So this peer copies by
// assignment, and gives a copy-constructed Cage its limits back.
static void fix(Zoo::Cage &c)
{
  c.cost.PR_setLimits(9, 2);
  for (CORBA::ULong i = 0; i < c.inner.length(); i++)
    fix(c.inner[i]);
}

template <class T> static T *copy(const T &v)
{
  T *r = new T;
  *r = v;
  return r;
}

static Zoo::ByLL *fixed_ll(Zoo::ByLL *u)
{
  if (u->_d() == -5000000000LL)
    fix(u->pen());
  return u;
}

static bool same_cage(const Zoo::Cage &a, const Zoo::Cage &b)
{
  if (std::strcmp(a.label, b.label) || std::strcmp(a.keepers[0], b.keepers[0]) ||
      std::strcmp(a.keepers[1], b.keepers[1]) || a.cost != b.cost || a.inner.length() != b.inner.length())
    return false;
  for (int i = 0; i < 6; i++)
    if (a.dims[i / 3][i % 3] != b.dims[i / 3][i % 3])
      return false;
  for (CORBA::ULong i = 0; i < a.inner.length(); i++)
    if (!same_cage(a.inner[i], b.inner[i]))
      return false;
  return true;
}

// ---------------------------------------------------------------- server

class AnimalImpl : public POA_Zoo::Animal {
public:
  AnimalImpl(const char *n, Zoo::Kind k) : name_(CORBA::string_dup(n))
  {
    info_.sort = k;
    info_.temper = Zoo::Animal::CALM;
    info_.weight = money("1.00");
  }
  char *name() { return CORBA::string_dup(name_); }
  Zoo::Common::Tags *labels() { return new Zoo::Common::Tags(labels_); }
  void labels(const Zoo::Common::Tags &v) { labels_ = v; }
  Zoo::Animal::Info about()
  {
    Zoo::Animal::Info r;
    r = info_;
    return r;
  }
  Zoo::Animal::Mood feeling() { return info_.temper; }
  void feeling(Zoo::Animal::Mood m) { info_.temper = m; }
  Zoo::Animal::Info feed(const Zoo::Money &g)
  {
    if (g > money("1000.00")) {
      Zoo::Animal::Sick e;
      e.temper = Zoo::Animal::ANGRY;
      e.why = "too much";
      throw e;
    }
    info_.weight = Zoo::Money(info_.weight + g);
    return about();
  }
private:
  CORBA::String_var name_;
  Zoo::Common::Tags labels_;
  Zoo::Animal::Info info_;
};

static Zoo::Animal_ptr new_animal(const char *n, Zoo::Kind k)
{
  AnimalImpl *a = new AnimalImpl(n, k);
  PortableServer::ObjectId_var id = root->activate_object(a);
  a->_remove_ref();
  CORBA::Object_var o = root->id_to_reference(id);
  return Zoo::Animal::_narrow(o);
}

class KeeperImpl : public POA_Zoo::Keeper {
public:
  Zoo::Common::Tags labels_;
  Zoo::Herd animals_;
  Zoo::Cage house_;
  Zoo::Expr formula_;
  CORBA::Any stash_;
  Zoo::Row grid_;
  Zoo::Fee charge_;
  CORBA::String_var badge_;
  Zoo::Animal::Infos infos_;
  CORBA::Long notes_;

  KeeperImpl() : notes_(0)
  {
    labels_.length(2);
    labels_[0] = "a";
    labels_[1] = "b";
    cage(house_, "home", 1, "ann", "bob", "1.50");
    formula_.num(42);
    stash_ <<= (CORBA::Long)7;
    grid_[0][0].length(1);
    grid_[0][0][0] = 1;
    grid_[1][0].length(2);
    grid_[1][0][0] = 2;
    grid_[1][0][1] = 3;
    grid_[1][1].length(1);
    grid_[1][1][0] = 4;
    charge_ = money("9.99");
    badge_ = CORBA::string_dup("chief");
    infos_.length(2);
    infos_[0].sort = Zoo::MAMMAL;
    infos_[0].temper = Zoo::Animal::CALM;
    infos_[0].weight = money("190.00");
    infos_[1].sort = Zoo::BIRD;
    infos_[1].temper = Zoo::Animal::ANGRY;
    infos_[1].weight = money("0.25");
  }
  void make_animals()
  {
    animals_.length(2);
    animals_[0] = new_animal("leo", Zoo::MAMMAL);
    animals_[1] = new_animal("tweety", Zoo::BIRD);
  }

  char *name() { return CORBA::string_dup("keeper"); }
  Zoo::Common::Tags *labels() { return new Zoo::Common::Tags(labels_); }
  void labels(const Zoo::Common::Tags &v) { labels_ = v; }
  CORBA::Long tickets() { return 12; }
  Zoo::Kind speciality() { return Zoo::REPTILE; }
  Zoo::Herd *animals() { return new Zoo::Herd(animals_); }
  Zoo::Cage *house() { return copy(house_); }
  void house(const Zoo::Cage &v) { house_ = v; }
  Zoo::Expr *formula() { return new Zoo::Expr(formula_); }
  void formula(const Zoo::Expr &v) { formula_ = v; }
  Zoo::Blob *stash() { return new CORBA::Any(stash_); }
  void stash(const Zoo::Blob &v) { stash_ = v; }
  Zoo::Row_slice *grid() { return Zoo::Row_dup(grid_); }
  void grid(const Zoo::Row v) { Zoo::Row_copy(grid_, v); }
  Zoo::Fee charge() { return charge_; }
  void charge(const Zoo::Fee &v) { charge_ = v; }
  char *badge() { return CORBA::string_dup(badge_); }
  void badge(const char *v) { badge_ = CORBA::string_dup(v); }
  Zoo::Animal::Infos *infos() { return new Zoo::Animal::Infos(infos_); }
  void note(const Zoo::Cage &c, const Zoo::Common::Tags &t, const CORBA::Any &a)
  {
    notes_ += c.dims[1][2] + (CORBA::Long)t.length();
    CORBA::Long l;
    if (a >>= l)
      notes_ += l;
  }
  CORBA::Long notes() { return notes_; }
#define ROT(T, fn) \
  Zoo::T *fn(const Zoo::T &a, Zoo::T &b, Zoo::T##_out c) { c = copy(b); b = a; return copy(a); }
  ROT(Cage, op_cage)
  ROT(Cages, op_cages)
  ROT(Expr, op_expr)
  Zoo::ByLL *op_ll(const Zoo::ByLL &a, Zoo::ByLL &b, Zoo::ByLL_out c)
  {
    c = fixed_ll(copy(b));
    b = a;
    fixed_ll(&b);
    return fixed_ll(copy(a));
  }
  ROT(ByUL, op_ul)
  ROT(ByUS, op_us)
  ROT(ByKind, op_kind)
  ROT(Digests, op_digests)
  ROT(Bools, op_bools)
  ROT(Chars, op_chars)
  ROT(When, op_when)
  ROT(Herd, op_herd)
#define ROTA(T, fn) \
  Zoo::T##_slice *fn(const Zoo::T a, Zoo::T b, Zoo::T##_out c) \
  { c = Zoo::T##_dup(b); Zoo::T##_copy(b, a); return Zoo::T##_dup(a); }
  ROTA(Row, op_row)
  ROTA(Kinds3, op_kinds3)
  ROTA(Pets, op_pets)
#define ROTF(T, fn) \
  T fn(const T &a, T &b, T &c) { c = b; b = a; return a; }
  ROTF(Zoo::Flag, op_flag)
  ROTF(Zoo::Fee, op_fee)
  Zoo::Animal::Info op_info(const Zoo::Animal::Info &a, Zoo::Animal::Info &b, Zoo::Animal::Info &c)
  {
    c = b;
    b = a;
    Zoo::Animal::Info r;
    r = a;
    return r;
  }
  char *op_tag(const char *a, char *&b, CORBA::String_out c)
  {
    c = b;
    b = CORBA::string_dup(a);
    return CORBA::string_dup(a);
  }
  CORBA::Any *op_any(const CORBA::Any &a, CORBA::Any &b, CORBA::Any_OUT_arg c)
  {
    c = new CORBA::Any(b);
    b = a;
    return new CORBA::Any(a);
  }
  CORBA::TypeCode_ptr op_tc(CORBA::TypeCode_ptr a, CORBA::TypeCode_ptr &b, CORBA::TypeCode_OUT_arg c)
  {
    c = b;
    b = CORBA::TypeCode::_duplicate(a);
    return CORBA::TypeCode::_duplicate(a);
  }
  CORBA::Object_ptr op_obj(CORBA::Object_ptr a, CORBA::Object_ptr &b, CORBA::Object_out c)
  {
    c = b;
    b = CORBA::Object::_duplicate(a);
    return CORBA::Object::_duplicate(a);
  }
  Zoo::Animal_ptr adopt(const char *n, Zoo::Kind k) { return new_animal(n, k); }
  Zoo::Kind kind_of(Zoo::Animal_ptr a) { return a->about().sort; }
  void find(const char *what)
  {
    if (!std::strcmp(what, "nf")) {
      Zoo::Common::NotFound e;
      e.what = "nf";
      e.code = 404;
      e.near.length(2);
      e.near[0] = "x";
      e.near[1] = "y";
      throw e;
    }
    if (!std::strcmp(what, "esc"))
      throw Zoo::Escaped(house_, Zoo::FISH, money("100.25"));
    if (!std::strcmp(what, "closed"))
      throw Zoo::Closed();
    if (!std::strcmp(what, "sick"))
      throw Zoo::Animal::Sick(Zoo::Animal::ANGRY, "flu");
  }
  void shutdown() { orb->shutdown(0); }
};

class ProbeImpl : public POA_Prag::Probe {
public:
  CORBA::Any *give(CORBA::Long which)
  {
    CORBA::Any *a = new CORBA::Any;
    switch (which) {
    case 1: { Prag::Plain p; p.v = 5; *a <<= p; break; }
    case 2: { Prag::Inner::Deep d; d.s = "deep"; *a <<= d; break; }
    case 3: { Prag::Inner::Bare::Naked n; n.l = Prag::Inner::Bare::HIGH; *a <<= n; break; }
    case 4: *a <<= Prag::Inner::Bare::LOW; break;
    default: {
      Zoo::When w;
      w.when = 123456789012ULL;
      w.who = "stamper";
      *a <<= w;
      a->type(Zoo::_tc_When);   // the alias's TypeCode, as the C side sends it
      break;
    }
    }
    return a;
  }
  void raise_it(CORBA::Long which)
  {
    if (which == 1)
      throw Prag::Inner::Bad(1);
    if (which == 2)
      throw Prag::Odd("odd");
    if (which == 3)
      throw Zoo::Common::NotFound("gone", 3, Zoo::Common::Tags());
  }
};

class KwImpl : public POA__cxx_auto::interface {
public:
  CORBA::Long attr_;
  bool bool_ok_;
  KwImpl() : attr_(5), bool_ok_(false) {}
  CORBA::Long attribute() { return attr_; }
  void attribute(CORBA::Long v) { attr_ = v; }
  char *_cxx_sizeof() { return CORBA::string_dup(bool_ok_ ? "bool-ok" : "sz"); }
  _cxx_auto::_cxx_int _cxx_return(_cxx_auto::_cxx_int i, _cxx_auto::_cxx_register &in,
                                  _cxx_auto::_cxx_switch_out out)
  {
    if (i < 0)
      throw _cxx_auto::_cxx_inline(i, "null");
    in._cxx_break += i;
    in.errno_ = "set";
    out = new _cxx_auto::_cxx_switch;
    out->_cxx_else("else");
    return 2 * i;
  }
  _cxx_auto::_cxx_while *_cxx_typedef(const _cxx_auto::_cxx_while &e, _cxx_auto::_cxx_signed &s,
                                      CORBA::LongLong &l)
  {
    s = (_cxx_auto::_cxx_signed)((s + 1) % 3);
    l = e.length();
    return new _cxx_auto::_cxx_while(e);
  }
  void Bool(CORBA::Boolean t, CORBA::Boolean f, CORBA::Char b) { bool_ok_ = t && !f && b == 'b'; }
  void oneway(CORBA::Long n) { attr_ += n; }
  void shutdown() {}
};

// ---------------------------------------------------------------- client

static bool streq(const char *a, const char *b) { return a && b && !std::strcmp(a, b); }

static std::string animal_name(CORBA::Object_ptr o)
{
  if (CORBA::is_nil(o))
    return "(nil)";
  Zoo::Animal_var a = Zoo::Animal::_narrow(o);
  CORBA::String_var n = a->name();
  return std::string(n.in());
}

static void client_keeper(Zoo::Keeper_ptr k)
{
  ok(streq(CORBA::String_var(k->name()), "keeper") && k->tickets() == 12 &&
     k->speciality() == Zoo::REPTILE, "name, tickets, speciality through the diamond");
  ok(k->_is_a("IDL:zoo.example/Zoo/Keeper:1.7") && k->_is_a("IDL:base.zoo/Zoo/Common/Named:1.0") &&
     k->_is_a("IDL:zoo.example/Zoo/People/Worker:1.0") && !k->_is_a("IDL:zoo.example/Zoo/Animal:1.0"),
     "_is_a Keeper:1.7, Named (the included file's prefix), Worker, not Animal");
  Zoo::Common::Tags_var tg = k->labels();
  ok(tg->length() == 2 && streq(tg[0], "a") && streq(tg[1], "b"), "labels [a, b]");
  Zoo::Common::Tags nt;
  nt.length(4);
  nt[0] = "w"; nt[1] = "x"; nt[2] = "y"; nt[3] = "sixteen-chars-ok";
  k->labels(nt);
  tg = k->labels();
  ok(tg->length() == 4 && streq(tg[3], "sixteen-chars-ok"), "labels set to 4 at the bounds");

  Zoo::Herd_var herd = k->animals();
  ok(herd->length() == 2 && animal_name(herd[0]) == "leo" && animal_name(herd[1]) == "tweety",
     "animals: leo and tweety, called");
  Zoo::Cage home, c2;
  cage(home, "home", 1, "ann", "bob", "1.50");
  Zoo::Cage_var h = k->house();
  ok(same_cage(h, home), "house as set by the server");
  cage(c2, "barn", 10, "cy", "", "-0.01");
  c2.inner.length(1);
  cage(c2.inner[0], "stall", 20, "dee", "eve", "1234567.89");
  k->house(c2);
  h = k->house();
  ok(same_cage(h, c2) && h->inner[0].dims[1][2] == 25, "house set to a cage holding a cage");
  try {
    Zoo::Cage c9;
    c9 = c2;
    c9.label = "ninechars";
    k->house(c9);
    ok(false, "a label of 9 (string<8>): MARSHAL");
  } catch (CORBA::MARSHAL &) {
    ok(true, "a label of 9 (string<8>): MARSHAL");
  }

  Zoo::Expr_var f = k->formula();
  ok(f->_d() == 0 && f->num() == 42, "formula {0: num 42}");
  Zoo::Exprs leaves;
  leaves.length(2);
  leaves[0].num(-9000000000LL);
  leaves[1].name("x");
  Zoo::Expr mid;
  mid.args(leaves);
  mid._d(2);
  Zoo::Exprs one;
  one.length(1);
  one[0] = mid;
  Zoo::Expr top;
  top.args(one);
  k->formula(top);
  f = k->formula();
  ok(f->_d() == 1 && f->args().length() == 1 && f->args()[0]._d() == 2 &&
     f->args()[0].args()[0].num() == -9000000000LL && streq(f->args()[0].args()[1].name(), "x"),
     "formula set to {1: [{2: [num -9000000000, name x]}]} (recursive union)");

  CORBA::Any_var st = k->stash();
  CORBA::Long l7 = 0;
  ok((st.in() >>= l7) && l7 == 7, "stash: an any of long 7");
  CORBA::Any sa;
  sa <<= top;
  k->stash(sa);
  st = k->stash();
  const Zoo::Expr *se = 0;
  ok((st.in() >>= se) && se->_d() == 1 && se->args()[0].args()[0].num() == -9000000000LL,
     "stash set to an any of the recursive union");

  Zoo::Row_var g = k->grid();
  ok(g[0][0].length() == 1 && g[0][0][0] == 1 && g[0][1].length() == 0 && g[1][0][1] == 3 &&
     g[1][1][0] == 4, "grid [[[1],[]],[[2,3],[4]]]");
  ok(k->charge() == money("9.99"), "charge 9.99");
  k->charge(money("-9999999.99"));
  ok(k->charge() == money("-9999999.99"), "charge set to -9999999.99");
  ok(streq(CORBA::String_var(k->badge()), "chief"), "badge chief");
  Zoo::Animal::Infos_var inf = k->infos();
  ok(inf->length() == 2 && inf[1].sort == Zoo::BIRD && inf[1].temper == Zoo::Animal::ANGRY &&
     inf[1].weight == money("0.25"), "infos");

  {
    Zoo::Common::Tags t3, t0;
    t3.length(3);
    t3[0] = "x"; t3[1] = "y"; t3[2] = "z";
    CORBA::Any al, as;
    al <<= (CORBA::Long)100;
    as <<= "hi";
    k->note(home, t3, al);
    k->note(home, t0, as);
    CORBA::Long p = 0;
    for (int i = 0; i < 200 && (p = k->notes()) != 115; i++)
      usleep(20000);
    ok(p == 115, "two oneway notes: 115");
  }

  {
    Zoo::Cage b;
    b = home;
    Zoo::Cage_var c;
    Zoo::Cage_var r = k->op_cage(c2, b, c.out());
    ok(same_cage(r, c2) && same_cage(b, c2) && same_cage(c, home), "Cage: result, inout, out");
  }
  {
    Zoo::Expr b;
    b.num(1);
    Zoo::Expr_var c;
    Zoo::Expr_var r = k->op_expr(top, b, c.out());
    ok(r->_d() == 1 && r->args()[0].args()[0].num() == -9000000000LL && b._d() == 1 &&
       c->_d() == 0 && c->num() == 1, "Expr recursive / {0: 1}");
  }
  {
    Zoo::ByLL a, b;
    a.pen(home);
    fix(a.pen());
    b.small("four");
    b._d(99);
    Zoo::ByLL_var c;
    Zoo::ByLL_var r = k->op_ll(a, b, c.out());
    ok(r->_d() == -5000000000LL && same_cage(r->pen(), home) && b._d() == -5000000000LL &&
       c->_d() == 99 && streq(c->small(), "four"), "ByLL {-5000000000: Cage} / {99: default string<4>}");
  }
  {
    Zoo::ByUL a, b;
    a.k(Zoo::FISH);
    a._d(4294967295U);
    CORBA::WChar wv[] = { 'w', 0xFC, 0x20AC, 0 };
    b.w((const CORBA::WChar *)wv);
    Zoo::ByUL_var c;
    Zoo::ByUL_var r = k->op_ul(a, b, c.out());
    ok(r->_d() == 4294967295U && r->k() == Zoo::FISH && c->_d() == 0 && c->w()[2] == 0x20AC &&
       c->w()[3] == 0, "ByUL {4294967295: FISH} / {0: wstring}");
  }
  {
    Zoo::ByUS a, b;
    Zoo::ByUL in;
    CORBA::WChar wv[] = { 'i', 0 };
    in.w((const CORBA::WChar *)wv);
    a.inner(in);
    Zoo::Common::Stamp s;
    s.when = 18446744073709551615ULL;
    s.who = "max";
    b.stamp(s);
    b._d(65535);
    Zoo::ByUS_var c;
    Zoo::ByUS_var r = k->op_us(a, b, c.out());
    ok(r->_d() == 1 && r->inner()._d() == 0 && r->inner().w()[0] == 'i' && c->_d() == 65535 &&
       c->stamp().when == 18446744073709551615ULL && streq(c->stamp().who, "max"),
       "ByUS {1: union} / {65535: default Stamp}");
  }
  {
    Zoo::ByKind a, b;
    Zoo::ByKind::_legs_seq legs;
    legs.length(2);
    legs[0] = legs[1] = 2;
    a.legs(legs);
    a._d(Zoo::BIRD);
    b.who(herd[0]);
    Zoo::ByKind_var c;
    Zoo::ByKind_var r = k->op_kind(a, b, c.out());
    ok(r->_d() == Zoo::BIRD && r->legs().length() == 2 && c->_d() == Zoo::REPTILE &&
       animal_name(c->who()) == "leo", "ByKind {BIRD: legs} / {REPTILE: a reference, called}");
  }
  {
    Zoo::Flag a, b, c;
    a.yes(0.125);
    b._default();
    b._d(0);
    Zoo::Flag r = k->op_flag(a, b, c);
    ok(r._d() == 1 && r.yes() == 0.125 && b._d() == 1 && c._d() == 0, "Flag (no FALSE case)");
  }
  {
    Zoo::Row b;
    Zoo::Row_var c;
    Zoo::Row_slice *r = k->op_row(g.in(), b, c.out());
    ok(r[1][0][1] == 3 && b[1][1][0] == 4 && c[1][1].length() == 0, "Row: result, inout, out");
    Zoo::Row_free(r);
  }
  {
    Zoo::Kinds3 a, b;
    a[0].c('z');
    a[0]._d(Zoo::FISH);
    a[1].who(Zoo::Common::Named::_nil());
    a[2].who(herd[1]);
    for (int i = 0; i < 3; i++) {
      b[i].c((CORBA::Char)('a' + i));
      b[i]._d(Zoo::FISH);
    }
    Zoo::Kinds3_var c;
    Zoo::Kinds3_slice *r = k->op_kinds3(a, b, c.out());
    ok(r[0].c() == 'z' && CORBA::is_nil(r[1].who()) && animal_name(r[2].who()) == "tweety" &&
       b[0].c() == 'z' && c[2].c() == 'c', "Kinds3 (ByKind[3], a nil reference)");
    Zoo::Kinds3_free(r);
  }
  {
    Zoo::Pets a, b;
    a[0] = Zoo::Animal::_duplicate(herd[1]);
    a[1] = Zoo::Animal::_duplicate(herd[0]);
    b[0] = Zoo::Animal::_duplicate(herd[0]);
    Zoo::Pets_var c;
    Zoo::Pets_slice *r = k->op_pets(a, b, c.out());
    ok(animal_name(r[0]) == "tweety" && animal_name(r[1]) == "leo" && animal_name(b[0]) == "tweety" &&
       animal_name(c[0]) == "leo" && animal_name(c[1]) == "(nil)", "Pets (Animal[2])");
    Zoo::Pets_free(r);
  }
  {
    Zoo::Digests a, b;
    a.length(2);
    a[0].length(16);
    for (int i = 0; i < 16; i++)
      a[0][i] = (CORBA::Octet)(i * 17);
    a[1].length(3);
    a[1][1] = 255;
    Zoo::Digests_var c;
    Zoo::Digests_var r = k->op_digests(a, b, c.out());
    ok(r->length() == 2 && r[0][15] == 255 && r[1][1] == 255 && b.length() == 2 && c->length() == 0,
       "Digests (sequence<octet,16> at its bound)");
  }
  {
    Zoo::Chars a, b;
    a.length(3);
    a[0] = 'z'; a[1] = '\0'; a[2] = '\n';
    Zoo::Chars_var c;
    Zoo::Chars_var r = k->op_chars(a, b, c.out());
    ok(r->length() == 3 && r[1] == '\0' && r[2] == '\n' && c->length() == 0, "Chars");
  }
  {
    Zoo::Fee a = money("1234567.89"), b = money("-0.05"), c;
    Zoo::Fee r = k->op_fee(a, b, c);
    ok(r == a && b == a && c == money("-0.05"), "Fee: result, inout, out");
  }
  {
    CORBA::String_var b = CORBA::string_dup("old"), c;
    CORBA::String_var r = k->op_tag("sixteen-chars-ok", b.inout(), c.out());
    ok(streq(r, "sixteen-chars-ok") && streq(b, "sixteen-chars-ok") && streq(c, "old"),
       "Tag (string<16>)");
  }
  {
    Zoo::Kind kind = Zoo::FISH;
    CORBA::Any a, b;
    a <<= herd[0];
    b <<= kind;
    CORBA::Any_var c;
    CORBA::Any_var r = k->op_any(a, b, c.out());
    Zoo::Animal_ptr ra = Zoo::Animal::_nil();
    Zoo::Kind ck = Zoo::MAMMAL;
    ok((r.in() >>= ra) && animal_name(ra) == "leo" && (c.in() >>= ck) && ck == Zoo::FISH,
       "any: an Animal reference (called) / an enum");
    // (no Cage in an any from this side: omniORB 4.2.5's own _tc_Cage, a
    // struct forward-declared and recursive through a sequence typedef'd
    // before its definition, does not marshal: BAD_TYPECODE_Incomplete.
    // zoo-peer.c's client sends one, which this server echoes.)
  }
  {
    // (not _tc_Cage: see the any above)
    CORBA::TypeCode_var b = CORBA::TypeCode::_duplicate(Zoo::_tc_When), c;
    CORBA::TypeCode_var r = k->op_tc(Zoo::_tc_Expr, b.inout(), c.out());
    ok(r->equivalent(Zoo::_tc_Expr) && b->equivalent(Zoo::_tc_Expr) && c->equivalent(Zoo::_tc_When) &&
       streq(c->id(), "IDL:base.zoo/Zoo/When:1.0") && r->kind() == CORBA::tk_union,
       "TypeCode: the recursive union's and When's (an alias)");
  }
  {
    CORBA::Object_var b = CORBA::Object::_duplicate(herd[1]), c;
    CORBA::Object_var r = k->op_obj(k, b.inout(), c.out());
    ok(r->_is_a("IDL:zoo.example/Zoo/Keeper:1.7") && animal_name(c) == "tweety", "Object");
  }
  {
    Zoo::Animal::Info a, b, c;
    a.sort = Zoo::REPTILE; a.temper = Zoo::Animal::ANGRY; a.weight = money("0.01");
    b.sort = Zoo::FISH; b.temper = Zoo::Animal::CALM; b.weight = money("-1.00");
    Zoo::Animal::Info r = k->op_info(a, b, c);
    ok(r.sort == Zoo::REPTILE && b.weight == money("0.01") && c.weight == money("-1.00"), "Animal::Info");
  }

  Zoo::Animal_var nemo = k->adopt("nemo", Zoo::FISH);
  ok(animal_name(nemo) == "nemo" && k->kind_of(nemo) == Zoo::FISH && k->kind_of(herd[1]) == Zoo::BIRD,
     "adopt(nemo, FISH), kind_of nemo and tweety (the server calls them)");
  ok(nemo->feed(money("2.50")).weight == money("3.50"), "feed(2.50): weight 3.50");
  try {
    nemo->feed(money("1000.01"));
    ok(false, "feed(1000.01) raises Sick");
  } catch (Zoo::Animal::Sick &e) {
    ok(e.temper == Zoo::Animal::ANGRY && streq(e.why, "too much"), "feed(1000.01) raises Sick");
  }
  try {
    k->find("nf");
    ok(false, "find(nf)");
  } catch (Zoo::Common::NotFound &e) {
    ok(streq(e.what, "nf") && e.code == 404 && e.near.length() == 2 && streq(e.near[1], "y"),
       "find(nf) raises NotFound { nf, 404, [x, y] }");
  }
  try {
    k->find("esc");
    ok(false, "find(esc)");
  } catch (Zoo::Escaped &e) {
    ok(same_cage(e.from, c2) && e.what == Zoo::FISH && e.bounty == money("100.25"), "find(esc) raises Escaped");
  }
  try {
    k->find("closed");
    ok(false, "find(closed)");
  } catch (Zoo::Closed &) {
    ok(true, "find(closed) raises Closed");
  }
  try {
    k->find("sick");
    ok(false, "find(sick)");
  } catch (Zoo::Animal::Sick &e) {
    ok(e.temper == Zoo::Animal::ANGRY && streq(e.why, "flu"), "find(sick) raises Animal::Sick");
  }
  k->find("ok");
  ok(true, "find(ok) returns");
}

static void client_probe(Prag::Probe_ptr p)
{
  ok(p->_is_a("IDL:probe.example/Probe:3.1"), "_is_a IDL:probe.example/Probe:3.1");
  const char *want[] = { 0, "IDL:outer.example/Prag/Plain:1.0", "LOCAL:deep", "IDL:Naked:4.0",
                         "IDL:Level:1.0", "IDL:base.zoo/Zoo/When:1.0" };
  for (int i = 1; i <= 5; i++) {
    CORBA::Any_var a = p->give(i);
    CORBA::TypeCode_var t = a->type();
    bool good = streq(t->id(), want[i]);
    if (i == 1) { const Prag::Plain *v; good = good && (a.in() >>= v) && v->v == 5; }
    if (i == 2) { const Prag::Inner::Deep *v; good = good && (a.in() >>= v) && streq(v->s, "deep"); }
    if (i == 3) { const Prag::Inner::Bare::Naked *v; good = good && (a.in() >>= v) && v->l == Prag::Inner::Bare::HIGH; }
    if (i == 4) { Prag::Inner::Bare::Level v; good = good && (a.in() >>= v) && v == Prag::Inner::Bare::LOW; }
    if (i == 5) {
      const Zoo::Common::Stamp *v;
      good = good && (a.in() >>= v) && v->when == 123456789012ULL && streq(v->who, "stamper");
    }
    char m[200];
    std::snprintf(m, sizeof m, "give(%d): an any of %s", i, want[i]);
    ok(good, m);
  }
  try { p->raise_it(1); ok(false, "raise_it(1)"); }
  catch (Prag::Inner::Bad &e) { ok(e.why == 1 && streq(e._rep_id(), "IDL:inner.example/Bad:1.0"), "raise_it(1): Bad"); }
  try { p->raise_it(2); ok(false, "raise_it(2)"); }
  catch (Prag::Odd &e) { ok(streq(e.what, "odd") && streq(e._rep_id(), "IDL:outer.example/Prag/Odd:2.5"), "raise_it(2): Odd:2.5"); }
  try { p->raise_it(3); ok(false, "raise_it(3)"); }
  catch (Zoo::Common::NotFound &e) { ok(streq(e.what, "gone") && e.code == 3, "raise_it(3): NotFound"); }
}

static void client_kw(_cxx_auto::interface_ptr w)
{
  ok(w->attribute() == 5, "attribute 5");
  w->attribute(40);
  w->oneway(2);
  CORBA::Long v = 0;
  for (int i = 0; i < 200 && (v = w->attribute()) != 42; i++)
    usleep(20000);
  ok(v == 42, "attribute 40, oneway(2): 42");
  w->Bool(1, 0, 'b');
  ok(streq(CORBA::String_var(w->_cxx_sizeof()), "bool-ok"), "Bool(TRUE, FALSE, 'b'), sizeof \"bool-ok\"");
  _cxx_auto::_cxx_register in;
  in._cxx_break = 1;
  in._cxx_continue = _cxx_auto::_cxx_goto;
  in.errno_ = "orig";
  in.unix_ = 7;
  in.linux_ = 8;
  _cxx_auto::_cxx_switch_var out;
  ok(w->_cxx_return(20, in, out.out()) == 40 && in._cxx_break == 21 && streq(in.errno_, "set") &&
     in.unix_ == 7 && in.linux_ == 8 && out->_d() == 2 && streq(out->_cxx_else(), "else"),
     "return(20, inout register, out switch)");
  try {
    w->_cxx_return(-3, in, out.out());
    ok(false, "return(-3) raises inline");
  } catch (_cxx_auto::_cxx_inline &e) {
    ok(e.restrict == -3 && streq(e.NULL_, "null"), "return(-3) raises inline { -3, null }");
  }
  _cxx_auto::_cxx_while wh;
  wh.length(2);
  wh[0]._cxx_break = 1; wh[0]._cxx_continue = _cxx_auto::_cxx_extern; wh[0].errno_ = "e1";
  wh[0].unix_ = 2; wh[0].linux_ = 3;
  wh[1]._cxx_break = 4; wh[1]._cxx_continue = _cxx_auto::_cxx_volatile; wh[1].errno_ = "e2";
  wh[1].unix_ = 5; wh[1].linux_ = 6;
  _cxx_auto::_cxx_signed sg = _cxx_auto::_cxx_volatile;
  CORBA::LongLong len = 0;
  _cxx_auto::_cxx_while_var rw = w->_cxx_typedef(wh, sg, len);
  ok(rw->length() == 2 && streq(rw[1].errno_, "e2") && rw[1].linux_ == 6 &&
     sg == _cxx_auto::_cxx_extern && len == 2, "typedef(while of 2, inout volatile, out long long)");
}

static int server()
{
  CORBA::Object_var o = orb->resolve_initial_references("RootPOA");
  root = PortableServer::POA::_narrow(o);
  KeeperImpl *k = new KeeperImpl;
  k->make_animals();
  ProbeImpl *p = new ProbeImpl;
  KwImpl *w = new KwImpl;
  PortableServer::ObjectId_var id;
  id = root->activate_object(k);
  id = root->activate_object(p);
  id = root->activate_object(w);
  CORBA::Object_var ko = k->_this(), po = p->_this(), wo = w->_this();
  print_ref(ko);
  print_ref(po);
  print_ref(wo);
  peer_run(root);
  return 0;
}

// the three references KEEPER, PROBE, KW; SHUTDOWN: the keeper's shutdown after
static int client(char **refs, bool shutdown)
{
  Zoo::Keeper_var k = Zoo::Keeper::_narrow(CORBA::Object_var(orb->string_to_object(refs[0])));
  Prag::Probe_var p = Prag::Probe::_narrow(CORBA::Object_var(orb->string_to_object(refs[1])));
  _cxx_auto::interface_var w =
    _cxx_auto::interface::_narrow(CORBA::Object_var(orb->string_to_object(refs[2])));
  ok(!CORBA::is_nil(k) && !CORBA::is_nil(p) && !CORBA::is_nil(w), "narrow Keeper, Probe, interface");
  client_keeper(k);
  client_probe(p);
  client_kw(w);
  if (shutdown)
    k->shutdown();
  return peer_summary();
}

int main(int argc, char **argv)
{
  return peer_main(argc, argv, server, 3, client, "KEEPER PROBE KW");
}
