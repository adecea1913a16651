/* shop-server.c - the Shop::Store service of shop.idl written against the
 * C mapping (idl2c's shop.h and libcorbaorb): what a user writes.
 *
 *   shop-server [-ORB options]     prints the Store's IOR on its first line,
 *                                  serves until Store::shutdown.
 * The Store is activated in omniINSPOA under the ObjectId "Store", so
 * corbaloc::HOST:PORT/Store reaches it too.  Its behaviour (which
 * shop-client.c and the omniORB peers check) is in each function's
 * comment; tests/orb/omni-shop.cc implements the same in C++.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shop.h"

typedef struct Store {
  POA_Shop_Store servant;
  CORBA_ORB orb;
  CORBA_long count;
  Shop_ItemSeq items;       /* what add() added, after the first "apple" */
  CORBA_char *last_note;
  Shop_Store self;
  int finalized;
} Store;

static Store *impl(PortableServer_Servant s) { return (Store *)s; }

static void item_set(Shop_Item *it, const char *name, CORBA_long qty, const double *p, unsigned n)
{
  it->name = CORBA_string_dup(name);
  it->qty = qty;
  it->prices._buffer = CORBA_sequence_CORBA_double_allocbuf(n);
  it->prices._maximum = it->prices._length = n;
  it->prices._release = CORBA_TRUE;
  memcpy(it->prices._buffer, p, n * sizeof *p);
}

/* ping(x) = x + 1 */
static CORBA_long s_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return x + 1;
}

/* label = "shop" */
static CORBA_string s_get_label(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup("shop");
}

static CORBA_long s_get_count(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return impl(s)->count;
}

static void s_set_count(PortableServer_Servant s, CORBA_long v, CORBA_Environment *ev)
{
  (void)ev;
  impl(s)->count = v;
}

/* bump(inout by): count += by, then by = count */
static void s_bump(PortableServer_Servant s, CORBA_long *by, CORBA_Environment *ev)
{
  (void)ev;
  impl(s)->count += *by;
  *by = impl(s)->count;
}

/* find("apple") = { "apple", 3, [1.5, 2.25] }, anything else raises
 * NotFound { what = name, code = 404 } */
static Shop_Item *s_find(PortableServer_Servant s, const CORBA_char *name, CORBA_Environment *ev)
{
  (void)s;
  if (strcmp(name, "apple")) {
    Shop_NotFound *nf = Shop_NotFound__alloc();
    nf->what = CORBA_string_dup(name);
    nf->code = 404;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Shop_NotFound, nf);
    return NULL;
  }
  static const double p[] = { 1.5, 2.25 };
  Shop_Item *it = Shop_Item__alloc();
  item_set(it, "apple", 3, p, 2);
  return it;
}

/* all() = the items add() added, in order */
static Shop_ItemSeq *s_all(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  Shop_ItemSeq *r = Shop_ItemSeq__alloc();
  corbaorb_copy(TC_Shop_ItemSeq, r, &impl(s)->items);
  return r;
}

/* add(it, out total): append it; total = the number of items */
static void s_add(PortableServer_Servant s, const Shop_Item *it, CORBA_long *total,
                  CORBA_Environment *ev)
{
  (void)ev;
  Shop_ItemSeq *q = &impl(s)->items;
  if (q->_length == q->_maximum) {
    CORBA_unsigned_long m = q->_maximum ? 2 * q->_maximum : 4;
    Shop_Item *b = Shop_ItemSeq_allocbuf(m);
    for (CORBA_unsigned_long i = 0; i < q->_length; i++)
      corbaorb_copy(TC_Shop_Item, &b[i], &q->_buffer[i]);
    CORBA_free(q->_buffer); /* deeply: the old items go */
    q->_buffer = b;
    q->_maximum = m;
    q->_release = CORBA_TRUE;
  }
  corbaorb_copy(TC_Shop_Item, &q->_buffer[q->_length++], it);
  *total = (CORBA_long)q->_length;
}

/* rename(from, inout to, out old) = from; old = to; to = from + "+" + to */
static CORBA_string s_rename(PortableServer_Servant s, const CORBA_char *from, CORBA_string *to,
                             CORBA_string *old, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *old = CORBA_string_dup(*to);
  CORBA_char *n = CORBA_string_alloc((CORBA_unsigned_long)(strlen(from) + 1 + strlen(*to)));
  sprintf(n, "%s+%s", from, *to);
  CORBA_free(*to);
  *to = n;
  return CORBA_string_dup(from);
}

/* move(p, inout q, out r) = { p.y, p.x }; r = p + q; q = 2 q */
static Shop_Pt s_move(PortableServer_Servant s, const Shop_Pt *p, Shop_Pt *q, Shop_Pt *r,
                      CORBA_Environment *ev)
{
  (void)s; (void)ev;
  r->x = p->x + q->x;
  r->y = p->y + q->y;
  q->x *= 2;
  q->y *= 2;
  Shop_Pt ret = { p->y, p->x };
  return ret;
}

/* listNames(out items) = the items' names; items = all() */
static Shop_Names *s_listNames(PortableServer_Servant s, Shop_ItemSeq **items,
                               CORBA_Environment *ev)
{
  Shop_ItemSeq *q = &impl(s)->items;
  *items = s_all(s, ev);
  Shop_Names *n = Shop_Names__alloc();
  n->_buffer = Shop_Names_allocbuf(q->_length);
  n->_maximum = n->_length = q->_length;
  n->_release = CORBA_TRUE;
  for (CORBA_unsigned_long i = 0; i < q->_length; i++)
    n->_buffer[i] = CORBA_string_dup(q->_buffer[i].name);
  return n;
}

/* pick(v, out o) = { 2: "picked" }; o = v with l doubled (1), s + "!" (2),
 * d halved (default) */
static Shop_U *s_pick(PortableServer_Servant s, const Shop_U *v, Shop_U **o,
                      CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Shop_U *u = Shop_U__alloc();
  u->_d = v->_d;
  if (v->_d == 1)
    u->_u.l = v->_u.l * 2;
  else if (v->_d == 2) {
    u->_u.s = CORBA_string_alloc((CORBA_unsigned_long)strlen(v->_u.s) + 1);
    sprintf(u->_u.s, "%s!", v->_u.s);
  } else
    u->_u.d = v->_u.d / 2;
  *o = u;
  Shop_U *r = Shop_U__alloc();
  r->_d = 2;
  r->_u.s = CORBA_string_dup("picked");
  return r;
}

/* flip(m) = the other mood */
static Shop_Mood s_flip(PortableServer_Servant s, Shop_Mood m, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return m == Shop_HAPPY ? Shop_SAD : Shop_HAPPY;
}

/* scale(v, k, out w) = v + k (each); w = v * k */
static Shop_Vec_slice *s_scale(PortableServer_Servant s, const Shop_Vec v, CORBA_long k,
                               Shop_Vec w, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Shop_Vec_slice *r = Shop_Vec__alloc();
  for (int i = 0; i < 3; i++) {
    w[i] = v[i] * k;
    r[i] = v[i] + k;
  }
  return r;
}

/* shout(w, out first) = w + "!"; first = w[0] (0 for an empty w) */
static CORBA_wstring s_shout(PortableServer_Servant s, const CORBA_wchar *w, CORBA_wchar *first,
                             CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_unsigned_long n = CORBA_wstring_len(w);
  CORBA_wchar *r = CORBA_wstring_alloc(n + 1);
  memcpy(r, w, n * sizeof *w);
  r[n] = '!';
  *first = w[0];
  return r;
}

/* oneway note(msg): lastNote() returns it from now on */
static void s_note(PortableServer_Servant s, const CORBA_char *msg, CORBA_Environment *ev)
{
  (void)ev;
  CORBA_free(impl(s)->last_note);
  impl(s)->last_note = CORBA_string_dup(msg);
}

static CORBA_string s_lastNote(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return CORBA_string_dup(impl(s)->last_note ? impl(s)->last_note : "");
}

/* self() = this Store */
static Shop_Store s_self(PortableServer_Servant s, CORBA_Environment *ev)
{
  return CORBA_Object_duplicate(impl(s)->self, ev);
}

/* echoRef(b) = b */
static Shop_Base s_echoRef(PortableServer_Servant s, Shop_Base b, CORBA_Environment *ev)
{
  (void)s;
  return CORBA_Object_duplicate(b, ev);
}

/* fail(1) raises NotFound { "how", 1 }, fail(2) Empty, fail(3)
 * NO_PERMISSION (minor 7, COMPLETED_YES); others return */
static void s_fail(PortableServer_Servant s, CORBA_long how, CORBA_Environment *ev)
{
  (void)s;
  if (how == 1) {
    Shop_NotFound *nf = Shop_NotFound__alloc();
    nf->what = CORBA_string_dup("how");
    nf->code = 1;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Shop_NotFound, nf);
  } else if (how == 2) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Shop_Empty, NULL);
  } else if (how == 3) {
    CORBA_SystemException se = { 7, CORBA_COMPLETED_YES };
    CORBA_exception_set(ev, CORBA_SYSTEM_EXCEPTION, ex_CORBA_NO_PERMISSION, &se);
  }
}

/* wrap(t) = { t.tag + "!", t.ref } */
static Shop_Tagged *s_wrap(PortableServer_Servant s, const Shop_Tagged *t, CORBA_Environment *ev)
{
  (void)s;
  Shop_Tagged *r = Shop_Tagged__alloc();
  r->tag = CORBA_string_alloc((CORBA_unsigned_long)strlen(t->tag) + 1);
  sprintf(r->tag, "%s!", t->tag);
  r->ref = CORBA_Object_duplicate(t->ref, ev);
  return r;
}

/* many(b, n) = n times b */
static Shop_Bases *s_many(PortableServer_Servant s, Shop_Base b, CORBA_long n,
                          CORBA_Environment *ev)
{
  (void)s;
  Shop_Bases *q = Shop_Bases__alloc();
  CORBA_unsigned_long m = n > 0 ? (CORBA_unsigned_long)n : 0;
  q->_buffer = Shop_Bases_allocbuf(m);
  q->_maximum = q->_length = m;
  q->_release = CORBA_TRUE;
  for (CORBA_unsigned_long i = 0; i < m; i++)
    q->_buffer[i] = CORBA_Object_duplicate(b, ev);
  return q;
}

/* echoAny(a) = a */
static CORBA_any *s_echoAny(PortableServer_Servant s, const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_any *r = CORBA_any__alloc();
  CORBA_any__copy(r, a);
  return r;
}

static void s_shutdown(PortableServer_Servant s, CORBA_Environment *ev)
{
  CORBA_ORB_shutdown(impl(s)->orb, CORBA_FALSE, ev);
}

static void s_finalize(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  impl(s)->finalized = 1;
}

static PortableServer_ServantBase__epv base_epv = { NULL, s_finalize, NULL };
static POA_Shop_Base__epv shop_base_epv = { NULL, s_ping, s_get_label };
static POA_Shop_Counter__epv counter_epv = { NULL, s_get_count, s_set_count, s_bump };
static POA_Shop_Store__epv store_epv = {
  NULL, s_find, s_all, s_add, s_rename, s_move, s_listNames, s_pick, s_flip, s_scale,
  s_shout, s_note, s_lastNote, s_self, s_echoRef, s_fail, s_wrap, s_many, s_echoAny, s_shutdown
};
static POA_Shop_Store__vepv store_vepv = { &base_epv, &shop_base_epv, &counter_epv, &store_epv };

static int check(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  fprintf(stderr, "shop-server: %s: %s\n", what, CORBA_exception_id(ev));
  exit(1);
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  check(&ev, "ORB_init");
  PortableServer_POA ins =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  check(&ev, "omniINSPOA");

  Store st;
  memset(&st, 0, sizeof st);
  st.servant.vepv = &store_vepv;
  st.orb = orb;
  POA_Shop_Store__init(&st, &ev);
  check(&ev, "init");
  static const double p[] = { 1.5, 2.25 };
  st.items._buffer = Shop_ItemSeq_allocbuf(4);
  st.items._maximum = 4;
  st.items._release = CORBA_TRUE;
  item_set(&st.items._buffer[st.items._length++], "apple", 3, p, 2);

  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId("Store", &ev);
  PortableServer_POA_activate_object_with_id(ins, oid, &st, &ev);
  check(&ev, "activate");
  st.self = PortableServer_POA_servant_to_reference(ins, &st, &ev);
  check(&ev, "servant_to_reference");
  CORBA_char *ior = CORBA_ORB_object_to_string(orb, st.self, &ev);
  printf("%s\n", ior);
  fflush(stdout);
  CORBA_free(ior);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(ins, &ev), &ev);
  check(&ev, "activate POAManager");
  CORBA_ORB_run(orb, &ev);
  check(&ev, "run");

  PortableServer_POA_deactivate_object(ins, oid, &ev);
  check(&ev, "deactivate");
  CORBA_free(oid);
  CORBA_Object_release(st.self, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&st, &ev);
  corbaorb_free_contents(TC_Shop_ItemSeq, &st.items);
  CORBA_free(st.last_note);
  fprintf(stderr, "shop-server: done (finalized %d)\n", st.finalized);
  return st.finalized ? 0 : 1;
}
