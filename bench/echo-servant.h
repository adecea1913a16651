/* echo-servant.h - a Bench::Echo servant (tests/interop/Bench.idl through
 * idl2c's C mapping) that echoes what it is given, for bench/idl-bench.c and
 * tests/check_values.c.  The in values live in the request's arena: a
 * graph or a pair's nodes are returned as they are, not copied, and the
 * ORB does not free them.  Include it after "Bench.h"; e_vepv is the vepv
 * of a POA_Bench_Echo. */
#ifndef BENCH_ECHO_SERVANT_H
#define BENCH_ECHO_SERVANT_H

#include <stdint.h>

/* ping(x) -> x */
static CORBA_long e_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return x;
}

/* echoGraph(h) -> h, the same nodes */
static Bench_Node *e_graph(PortableServer_Servant s, const Bench_Node *h, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return (Bench_Node *)(uintptr_t)h;
}

/* echoString(x) -> a copy of x */
static CORBA_string e_string(PortableServer_Servant s, const CORBA_char *x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(x);
}

/* echoWString(x) -> a copy of x */
static CORBA_wstring e_wstring(PortableServer_Servant s, const CORBA_wchar *x,
                               CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_wstring_dup(x);
}

/* echoPair(p) -> a new pair of p's nodes; NO_MEMORY (completed NO) when it
 * cannot be allocated */
static Bench_Pair *e_pair(PortableServer_Servant s, const Bench_Pair *p, CORBA_Environment *ev)
{
  (void)s;
  Bench_Pair *r = Bench_Pair__alloc();
  if (!r) {
    CORBA_exception_set_system(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  r->a = p->a; /* in the request's arena: CORBA_free of R leaves them */
  r->b = p->b;
  return r;
}

static PortableServer_ServantBase__epv e_base = { NULL, NULL, NULL };
static POA_Bench_Echo__epv e_epv = { NULL, e_ping, e_graph, e_string, e_wstring, e_pair };
static POA_Bench_Echo__vepv e_vepv = { &e_base, &e_epv };

#endif
