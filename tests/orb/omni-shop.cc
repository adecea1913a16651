// omni-shop.cc - omniORB peers of tests/orb/shop.idl for tests/orb.test.
//
//   omni-shop server [-ORB options]      the Shop::Store of shop-server.c in
//                                        C++ (same behaviour), IOR on the
//                                        first line, serves until shutdown()
//   omni-shop client IOR [--shutdown]    the checks of shop-client.c from
//                                        omniORB: "ok N - what" lines, exit 0
//                                        when all passed
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>
#include "shop.hh"
#define PEER_NAME "omni-shop"
#include "../idl/omni-peer.h"

class StoreImpl : public POA_Shop::Store {
public:
  StoreImpl() : count_(0) {
    Shop::Item it;
    it.name = "apple";
    it.qty = 3;
    it.prices.length(2);
    it.prices[0] = 1.5;
    it.prices[1] = 2.25;
    items_.push_back(it);
  }
  CORBA::Long ping(CORBA::Long x) { return x + 1; }
  char *label() { return CORBA::string_dup("shop"); }
  CORBA::Long count() { return count_; }
  void count(CORBA::Long v) { count_ = v; }
  void bump(CORBA::Long &by) { count_ += by; by = count_; }
  Shop::Item *find(const char *name) {
    if (strcmp(name, "apple"))
      throw Shop::NotFound(name, 404);
    return new Shop::Item(items_[0]);
  }
  Shop::ItemSeq *all() {
    Shop::ItemSeq *s = new Shop::ItemSeq;
    s->length(items_.size());
    for (size_t i = 0; i < items_.size(); i++)
      (*s)[i] = items_[i];
    return s;
  }
  void add(const Shop::Item &it, CORBA::Long &total) {
    items_.push_back(it);
    total = items_.size();
  }
  char *rename(const char *from, char *&to, CORBA::String_out old) {
    old = CORBA::string_dup(to);
    std::string n = std::string(from) + "+" + to;
    CORBA::string_free(to);
    to = CORBA::string_dup(n.c_str());
    return CORBA::string_dup(from);
  }
  Shop::Pt move(const Shop::Pt &p, Shop::Pt &q, Shop::Pt &r) {
    r.x = p.x + q.x;
    r.y = p.y + q.y;
    q.x *= 2;
    q.y *= 2;
    Shop::Pt ret;
    ret.x = p.y;
    ret.y = p.x;
    return ret;
  }
  Shop::Names *listNames(Shop::ItemSeq_out items) {
    items = all();
    Shop::Names *n = new Shop::Names;
    n->length(items_.size());
    for (size_t i = 0; i < items_.size(); i++)
      (*n)[i] = CORBA::string_dup(items_[i].name);
    return n;
  }
  Shop::U *pick(const Shop::U &v, Shop::U_out o) {
    Shop::U *u = new Shop::U;
    if (v._d() == 1)
      u->l(v.l() * 2);
    else if (v._d() == 2)
      u->s((std::string(v.s()) + "!").c_str());
    else {
      u->d(v.d() / 2);
      u->_d(v._d());
    }
    o = u;
    Shop::U *r = new Shop::U;
    r->s("picked");
    return r;
  }
  Shop::Mood flip(Shop::Mood m) { return m == Shop::HAPPY ? Shop::SAD : Shop::HAPPY; }
  Shop::Vec_slice *scale(const Shop::Vec v, CORBA::Long k, Shop::Vec w) {
    Shop::Vec_slice *r = Shop::Vec_alloc();
    for (int i = 0; i < 3; i++) {
      w[i] = v[i] * k;
      r[i] = v[i] + k;
    }
    return r;
  }
  CORBA::WChar *shout(const CORBA::WChar *w, CORBA::WChar &first) {
    size_t n = 0;
    while (w[n])
      n++;
    CORBA::WChar *r = CORBA::wstring_alloc(n + 1);
    for (size_t i = 0; i < n; i++)
      r[i] = w[i];
    r[n] = L'!';
    r[n + 1] = 0;
    first = w[0];
    return r;
  }
  void note(const char *msg) { last_ = msg; }
  char *lastNote() { return CORBA::string_dup(last_.c_str()); }
  Shop::Store_ptr self() { return _this(); }
  Shop::Base_ptr echoRef(Shop::Base_ptr b) { return Shop::Base::_duplicate(b); }
  void fail(CORBA::Long how) {
    if (how == 1)
      throw Shop::NotFound("how", 1);
    if (how == 2)
      throw Shop::Empty();
    if (how == 3)
      throw CORBA::NO_PERMISSION(7, CORBA::COMPLETED_YES);
  }
  Shop::Tagged *wrap(const Shop::Tagged &t) {
    Shop::Tagged *r = new Shop::Tagged;
    r->tag = CORBA::string_dup((std::string(t.tag) + "!").c_str());
    r->ref = Shop::Base::_duplicate(t.ref);
    return r;
  }
  Shop::Bases *many(Shop::Base_ptr b, CORBA::Long n) {
    Shop::Bases *s = new Shop::Bases;
    s->length(n > 0 ? n : 0);
    for (CORBA::ULong i = 0; i < s->length(); i++)
      (*s)[i] = Shop::Base::_duplicate(b);
    return s;
  }
  CORBA::Any *echoAny(const CORBA::Any &a) { return new CORBA::Any(a); }
  void shutdown() { orb->shutdown(0); }

private:
  CORBA::Long count_;
  std::vector<Shop::Item> items_;
  std::string last_;
};

static int server(void)
{
  CORBA::Object_var o = orb->resolve_initial_references("omniINSPOA");
  PortableServer::POA_var ins = PortableServer::POA::_narrow(o);
  StoreImpl *st = new StoreImpl;
  PortableServer::ObjectId_var oid = PortableServer::string_to_ObjectId("Store");
  ins->activate_object_with_id(oid, st);
  CORBA::Object_var ref = ins->id_to_reference(oid);
  print_ref(ref);
  peer_run(ins);
  st->_remove_ref();
  return 0;
}

#define CHECK(what, expr)                                              \
  do {                                                                 \
    try {                                                              \
      ok((expr), what);                                                \
    } catch (CORBA::SystemException &e) {                              \
      nchecks++, nfailed++;                                            \
      printf("not ok %d - %s: %s\n", nchecks, what, e._name());        \
    } catch (CORBA::UserException &e) {                                \
      nchecks++, nfailed++;                                            \
      printf("not ok %d - %s: %s\n", nchecks, what, e._name());        \
    }                                                                  \
  } while (0)

static int client(const char *ior, bool do_shutdown)
{
  CORBA::Object_var o = orb->string_to_object(ior);
  Shop::Store_var st = Shop::Store::_narrow(o);
  CHECK("ping(41) = 42", st->ping(41) == 42);
  CHECK("label = shop", !strcmp(CORBA::String_var(st->label()), "shop"));
  CHECK("count = 10 after set", (st->count(10), st->count() == 10));
  CHECK("bump(inout 5) gives 15", ({ CORBA::Long by = 5; st->bump(by); by == 15; }));
  CHECK("find(apple)", ({
    Shop::Item_var it = st->find("apple");
    !strcmp(it->name, "apple") && it->qty == 3 && it->prices.length() == 2 &&
      it->prices[0] == 1.5 && it->prices[1] == 2.25;
  }));
  {
    bool raised = false;
    try {
      Shop::Item_var it = st->find("kiwi");
    } catch (Shop::NotFound &e) {
      raised = !strcmp(e.what, "kiwi") && e.code == 404;
    }
    ok(raised, "find(kiwi) raises NotFound { kiwi, 404 }");
  }
  CHECK("add(pear) total = 2", ({
    Shop::Item pear;
    pear.name = "pear";
    pear.qty = 7;
    pear.prices.length(1);
    pear.prices[0] = 0.5;
    CORBA::Long total = 0;
    st->add(pear, total);
    total == 2;
  }));
  CHECK("all() = [apple, pear]", ({
    Shop::ItemSeq_var a = st->all();
    a->length() == 2 && !strcmp(a[0].name, "apple") && !strcmp(a[1].name, "pear") &&
      a[1].qty == 7 && a[1].prices.length() == 1 && a[1].prices[0] == 0.5;
  }));
  CHECK("rename(a, inout b, out) = a, a+b, b", ({
    CORBA::String_var to = CORBA::string_dup("b");
    CORBA::String_var old;
    CORBA::String_var r = st->rename("a", to.inout(), old.out());
    !strcmp(r, "a") && !strcmp(to, "a+b") && !strcmp(old, "b");
  }));
  CHECK("move({1,2},{10,20}) = {2,1}, q {20,40}, r {11,22}", ({
    Shop::Pt p = { 1, 2 }, q = { 10, 20 }, r = { 0, 0 };
    Shop::Pt m = st->move(p, q, r);
    m.x == 2 && m.y == 1 && q.x == 20 && q.y == 40 && r.x == 11 && r.y == 22;
  }));
  CHECK("listNames = [apple, pear]", ({
    Shop::ItemSeq_var items;
    Shop::Names_var n = st->listNames(items.out());
    n->length() == 2 && !strcmp(n[0], "apple") && !strcmp(n[1], "pear") &&
      items->length() == 2;
  }));
  CHECK("pick({2: hey}) = {2: picked}, o {2: hey!}", ({
    Shop::U u;
    u.s("hey");
    Shop::U_var uo;
    Shop::U_var r = st->pick(u, uo.out());
    r->_d() == 2 && !strcmp(r->s(), "picked") && uo->_d() == 2 && !strcmp(uo->s(), "hey!");
  }));
  CHECK("pick({7: 3.0}) o = {7: 1.5}", ({
    Shop::U u;
    u.d(3.0);
    u._d(7);
    Shop::U_var uo;
    Shop::U_var r = st->pick(u, uo.out());
    uo->_d() == 7 && uo->d() == 1.5;
  }));
  CHECK("flip(HAPPY) = SAD", st->flip(Shop::HAPPY) == Shop::SAD);
  CHECK("scale([1,2,3], 10)", ({
    Shop::Vec v = { 1, 2, 3 }, w = { 0, 0, 0 };
    Shop::Vec_var r = st->scale(v, 10, w);
    r[0] == 11 && r[1] == 12 && r[2] == 13 && w[0] == 10 && w[1] == 20 && w[2] == 30;
  }));
  CHECK("shout(h\\u00e9\\u4e2d) = h\\u00e9\\u4e2d!, first h", ({
    const CORBA::WChar w[] = { L'h', 0xE9, 0x4E2D, 0 };
    CORBA::WChar first = 0;
    CORBA::WString_var r = st->shout(w, first);
    r[0] == L'h' && r[1] == 0xE9 && r[2] == 0x4E2D && r[3] == L'!' && r[4] == 0 && first == L'h';
  }));
  CHECK("lastNote after oneway note", ({
    st->note("hello oneway"); // a oneway is not ordered with later calls: a few tries
    bool seen = false;
    for (int tries = 0; !seen && tries <= 200; tries++) {
      seen = !strcmp(CORBA::String_var(st->lastNote()), "hello oneway");
      if (!seen)
        usleep(10000);
    }
    seen;
  }));
  CHECK("self() pings", ({
    Shop::Store_var me = st->self();
    me->ping(1) == 2 && me->_is_equivalent(st);
  }));
  CHECK("echoRef(self) pings", ({
    Shop::Store_var me = st->self();
    Shop::Base_var b = st->echoRef(me);
    b->ping(99) == 100;
  }));
  CHECK("wrap({t, self}) = {t!, a reference that pings}", ({
    Shop::Tagged t;
    t.tag = CORBA::string_dup("t");
    t.ref = st->self();
    Shop::Tagged_var r = st->wrap(t);
    !strcmp(r->tag, "t!") && r->ref->ping(5) == 6;
  }));
  CHECK("many(self, 3) = 3 references that ping", ({
    Shop::Store_var me = st->self();
    Shop::Bases_var b = st->many(me, 3);
    b->length() == 3 && b[0]->ping(0) == 1 && b[1]->ping(1) == 2 && b[2]->ping(2) == 3;
  }));
  CHECK("echoAny(long 42), (Pt {3, -4}), (string)", ({
    CORBA::Any a1, a2, a3;
    a1 <<= (CORBA::Long)42;
    Shop::Pt pt = { 3, -4 };
    a2 <<= pt;
    a3 <<= "in an any";
    CORBA::Any_var r1 = st->echoAny(a1), r2 = st->echoAny(a2), r3 = st->echoAny(a3);
    CORBA::Long l = 0;
    const Shop::Pt *p = 0;
    const char *s = 0;
    const CORBA::Any &x1 = r1.in(), &x2 = r2.in(), &x3 = r3.in();
    (x1 >>= l) && l == 42 && (x2 >>= p) && p->x == 3 && p->y == -4 && (x3 >>= s) &&
      !strcmp(s, "in an any");
  }));
  CHECK("echoRef(nil) = nil", ({
    Shop::Base_var b = st->echoRef(Shop::Base::_nil());
    CORBA::is_nil(b);
  }));
  CHECK("_is_a(Base, Counter, Store) and not Nope",
        st->_is_a("IDL:Shop/Base:1.0") && st->_is_a("IDL:Shop/Counter:1.0") &&
          st->_is_a("IDL:Shop/Store:1.0") && !st->_is_a("IDL:Shop/Nope:1.0"));
  CHECK("!_non_existent", !st->_non_existent());
  {
    bool raised = false;
    try {
      st->fail(1);
    } catch (Shop::NotFound &e) {
      raised = !strcmp(e.what, "how") && e.code == 1;
    }
    ok(raised, "fail(1) raises NotFound { how, 1 }");
    raised = false;
    try {
      st->fail(2);
    } catch (Shop::Empty &) {
      raised = true;
    }
    ok(raised, "fail(2) raises Empty");
    raised = false;
    try {
      st->fail(3);
    } catch (CORBA::NO_PERMISSION &e) {
      raised = e.minor() == 7 && e.completed() == CORBA::COMPLETED_YES;
    }
    ok(raised, "fail(3) raises NO_PERMISSION minor 7 COMPLETED_YES");
  }
  CHECK("fail(0) returns", (st->fail(0), true));
  if (do_shutdown)
    st->shutdown();
  return peer_summary();
}

static int client_main(char **refs, bool shutdown) { return client(refs[0], shutdown); }

int main(int argc, char **argv)
{
  return peer_main(argc, argv, server, 1, client_main, "IOR");
}
