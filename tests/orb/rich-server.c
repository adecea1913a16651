/* rich-server.c - the Rich::Derived service of rich.idl (with its
 * Rich::Inner::Holder and Node) written against the C mapping.
 *
 *   rich-server [-ORB options]     prints the Derived's IOR on its first
 *                                  line, serves until Derived::shutdown.
 * Each function's comment gives its behaviour, which rich-client.c checks;
 * tests/orb/omni-rich.cc implements the same in C++.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rich.h"
#include "rich-money.h"

typedef struct Server {
  POA_Rich_Derived servant;
  CORBA_ORB orb;
  CORBA_char *name;
  Rich_Money price;
  Rich_Inner_Holder holder;
  Rich_Inner_Node node;
} Server;
static Server srv;
static POA_Rich_Inner_Holder holder_servant;
static POA_Rich_Inner_Node node_servant;

static CORBA_long *longs(CORBA_sequence_CORBA_long *s, CORBA_unsigned_long n)
{
  s->_buffer = CORBA_sequence_CORBA_long_allocbuf(n);
  s->_maximum = s->_length = n;
  s->_release = CORBA_TRUE;
  return s->_buffer;
}

/* prims(p, inout q, out r) = the old q; q = p; r = p with each member
 * stepped: integers + 1, b negated, float and double doubled */
static Rich_Prim s_prims(PortableServer_Servant s, const Rich_Prim *p, Rich_Prim *q,
                         Rich_Prim *r, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_Prim old = *q;
  *q = *p;
  *r = *p;
  r->ll++; r->ull++; r->us++; r->o++; r->b = !p->b; r->c++;
  r->f *= 2; r->s++; r->ul++; r->d *= 2;
  return old;
}

/* version = Rich::LIMIT */
static Rich_Count s_get_version(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return Rich_LIMIT;
}

/* name: "none" until set */
static Rich_Label s_get_name(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(srv.name ? srv.name : "none");
}

static void s_set_name(PortableServer_Servant s, const CORBA_char *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_free(srv.name);
  srv.name = CORBA_string_dup(v);
}

/* big = -(2^40) - 5 */
static CORBA_long_long s_get_big(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return -(1LL << 40) - 5;
}

/* price: 12.34 until set */
static Rich_Money s_get_price(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return srv.price;
}

static void s_set_price(PortableServer_Servant s, const Rich_Money *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  srv.price = *v;
}

/* addMoney(a, b) = a + b */
static Rich_Money s_addMoney(PortableServer_Servant s, const Rich_Money *a, const Rich_Money *b,
                             CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return money(money_cents(a) + money_cents(b));
}

/* Bad { why, code, data = [code, code + 1], m = 1.50 } */
static void raise_bad(CORBA_Environment *ev, const char *why, CORBA_long code)
{
  Rich_Bad *b = Rich_Bad__alloc();
  b->why = CORBA_string_dup(why);
  b->code = code;
  CORBA_long *d = longs(&b->data, 2);
  d[0] = code;
  d[1] = code + 1;
  b->m = money(150);
  CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Rich_Bad, b);
}

/* clip(s) = s when it has at most 5 characters, else raises
 * Bad { "too long", strlen(s), ... } */
static Rich_Label s_clip(PortableServer_Servant s, const CORBA_char *str, CORBA_Environment *ev)
{
  (void)s;
  if (strlen(str) > 5) {
    raise_bad(ev, "too long", (CORBA_long)strlen(str));
    return NULL;
  }
  return CORBA_string_dup(str);
}

/* firsts(f, out g) = f reversed; g = f times 10 */
static Rich_Four *s_firsts(PortableServer_Servant s, const Rich_Four *f, Rich_Four **g,
                           CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_Four *r = Rich_Four__alloc();
  *g = Rich_Four__alloc();
  CORBA_long *rb = longs(r, f->_length), *gb = longs(*g, f->_length);
  for (CORBA_unsigned_long i = 0; i < f->_length; i++) {
    rb[i] = f->_buffer[f->_length - 1 - i];
    gb[i] = f->_buffer[i] * 10;
  }
  return r;
}

/* transpose(g) = g transposed (rows as long as g's first) */
static Rich_Grid *s_transpose(PortableServer_Servant s, const Rich_Grid *g, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_unsigned_long rows = g->_length, cols = rows ? g->_buffer[0]._length : 0;
  Rich_Grid *t = Rich_Grid__alloc();
  t->_buffer = Rich_Grid_allocbuf(cols);
  t->_maximum = t->_length = cols;
  t->_release = CORBA_TRUE;
  for (CORBA_unsigned_long c = 0; c < cols; c++) {
    CORBA_long *row = longs(&t->_buffer[c], rows);
    for (CORBA_unsigned_long r = 0; r < rows; r++)
      row[r] = c < g->_buffer[r]._length ? g->_buffer[r]._buffer[c] : 0;
  }
  return t;
}

/* kindOf(t, out u) = t; u = the TypeCode of Rich::P */
static CORBA_TypeCode s_kindOf(PortableServer_Servant s, CORBA_TypeCode t, CORBA_TypeCode *u,
                               CORBA_Environment *ev)
{
  (void)s;
  *u = TC_Rich_P;
  return (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)t, ev);
}

/* swap(a, out b) = { a[1], a[0] }; b = a with x doubled */
static Rich_PArr_slice *s_swap(PortableServer_Servant s, const Rich_PArr a, Rich_PArr_slice **b,
                               CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_PArr_slice *r = Rich_PArr__alloc();
  *b = Rich_PArr__alloc();
  for (int i = 0; i < 2; i++) {
    r[i].x = a[1 - i].x;
    r[i].tag = CORBA_string_dup(a[1 - i].tag);
    (*b)[i].x = a[i].x * 2;
    (*b)[i].tag = CORBA_string_dup(a[i].tag);
  }
  return r;
}

/* twice(c) = c doubled */
static Rich_Pair_slice *s_twice(PortableServer_Servant s, const Rich_Pair c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_Pair_slice *r = Rich_Pair__alloc();
  r[0] = c[0] * 2;
  r[1] = c[1] * 2;
  return r;
}

/* fail(n) raises Bad { "fail", n, [n, n + 1], 1.50 } */
static void s_fail(PortableServer_Servant s, CORBA_long n, CORBA_Environment *ev)
{
  (void)s;
  raise_bad(ev, "fail", n);
}

/* wrapP(v) = an any holding the P { v.x + 1, v.tag } */
static CORBA_any *s_wrapP(PortableServer_Servant s, const Rich_P *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_P *p = Rich_P__alloc();
  p->x = v->x + 1;
  p->tag = CORBA_string_dup(v->tag);
  CORBA_any *a = CORBA_any__alloc();
  a->_type = TC_Rich_P;
  a->_value = p;
  a->_release = CORBA_TRUE;
  return a;
}

/* wrapGrid(g) = an any holding the Grid g */
static CORBA_any *s_wrapGrid(PortableServer_Servant s, const Rich_Grid *g, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  Rich_Grid *c = Rich_Grid__alloc();
  corbaorb_copy(TC_Rich_Grid, c, g);
  CORBA_any *a = CORBA_any__alloc();
  a->_type = TC_Rich_Grid;
  a->_value = c;
  a->_release = CORBA_TRUE;
  return a;
}

/* unwrapP(a) = the P in a with x times 10; BAD_PARAM (minor 1) when a
 * holds no P */
static Rich_P *s_unwrapP(PortableServer_Servant s, const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s;
  if (!a->_type || !CORBA_TypeCode_equivalent(a->_type, TC_Rich_P, ev) || !a->_value) {
    CORBA_exception_free(ev);
    CORBA_SystemException se = { 1, CORBA_COMPLETED_NO };
    CORBA_exception_set(ev, CORBA_SYSTEM_EXCEPTION, ex_CORBA_BAD_PARAM, &se);
    return NULL;
  }
  const Rich_P *in = a->_value;
  Rich_P *p = Rich_P__alloc();
  p->x = in->x * 10;
  p->tag = CORBA_string_dup(in->tag);
  return p;
}

/* holder() = the Holder */
static Rich_Inner_Holder s_holder(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  return CORBA_Object_duplicate(srv.holder, ev);
}

/* ldbl(x) = 2 x */
static CORBA_long_double s_ldbl(PortableServer_Servant s, CORBA_long_double x,
                                CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return 2 * x;
}

static void s_shutdown(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  CORBA_ORB_shutdown(srv.orb, CORBA_FALSE, ev);
}

/* Holder::get() = the Node; Holder::all(n, k) = k times n */
static Rich_Inner_Node h_get(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  return CORBA_Object_duplicate(srv.node, ev);
}

static Rich_Inner_Nodes *h_all(PortableServer_Servant s, Rich_Inner_Node n, CORBA_long k,
                               CORBA_Environment *ev)
{
  (void)s;
  CORBA_unsigned_long m = k > 0 ? (CORBA_unsigned_long)k : 0;
  Rich_Inner_Nodes *q = Rich_Inner_Nodes__alloc();
  q->_buffer = Rich_Inner_Nodes_allocbuf(m);
  q->_maximum = q->_length = m;
  q->_release = CORBA_TRUE;
  for (CORBA_unsigned_long i = 0; i < m; i++)
    q->_buffer[i] = CORBA_Object_duplicate(n, ev);
  return q;
}

/* Node::id = 7 */
static Rich_Num n_get_id(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return 7;
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Rich_Base__epv rich_base_epv = { NULL, s_prims, s_get_version, s_get_name, s_set_name };
static POA_Rich_Derived__epv derived_epv = {
  NULL, s_get_big, s_get_price, s_set_price, s_addMoney, s_clip, s_firsts, s_transpose,
  s_kindOf, s_swap, s_twice, s_fail, s_wrapP, s_wrapGrid, s_unwrapP, s_holder, s_ldbl, s_shutdown
};
static POA_Rich_Derived__vepv derived_vepv = { &base_epv, &rich_base_epv, &derived_epv };
static POA_Rich_Inner_Holder__epv holder_epv = { NULL, h_get, h_all };
static POA_Rich_Inner_Holder__vepv holder_vepv = { &base_epv, &holder_epv };
static POA_Rich_Inner_Node__epv node_epv = { NULL, n_get_id };
static POA_Rich_Inner_Node__vepv node_vepv = { &base_epv, &node_epv };

static void check(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return;
  fprintf(stderr, "rich-server: %s: %s\n", what, CORBA_exception_id(ev));
  exit(1);
}

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

static void deactivate(PortableServer_POA poa, const char *id, CORBA_Environment *ev)
{
  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId(id, ev);
  PortableServer_POA_deactivate_object(poa, oid, ev);
  check(ev, id);
  CORBA_free(oid);
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  srv.orb = CORBA_ORB_init(&argc, argv, "", &ev);
  check(&ev, "ORB_init");
  PortableServer_POA ins =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(srv.orb, "omniINSPOA", &ev);
  check(&ev, "omniINSPOA");
  srv.price = money(1234);
  srv.servant.vepv = &derived_vepv;
  holder_servant.vepv = &holder_vepv;
  node_servant.vepv = &node_vepv;
  POA_Rich_Derived__init(&srv, &ev);
  POA_Rich_Inner_Holder__init(&holder_servant, &ev);
  POA_Rich_Inner_Node__init(&node_servant, &ev);
  check(&ev, "init");
  CORBA_Object self = activate(ins, "Derived", &srv, &ev);
  srv.holder = activate(ins, "Holder", &holder_servant, &ev);
  srv.node = activate(ins, "Node", &node_servant, &ev);
  CORBA_char *ior = CORBA_ORB_object_to_string(srv.orb, self, &ev);
  printf("%s\n", ior);
  fflush(stdout);
  CORBA_free(ior);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(ins, &ev), &ev);
  check(&ev, "activate POAManager");
  CORBA_ORB_run(srv.orb, &ev);
  check(&ev, "run");

  deactivate(ins, "Derived", &ev);
  deactivate(ins, "Holder", &ev);
  deactivate(ins, "Node", &ev);
  CORBA_Object_release(self, &ev);
  CORBA_Object_release(srv.holder, &ev);
  CORBA_Object_release(srv.node, &ev);
  CORBA_ORB_destroy(srv.orb, &ev);
  POA_Rich_Derived__fini(&srv, &ev);
  POA_Rich_Inner_Holder__fini(&holder_servant, &ev);
  POA_Rich_Inner_Node__fini(&node_servant, &ev);
  CORBA_free(srv.name);
  fprintf(stderr, "rich-server: done\n");
  return 0;
}
