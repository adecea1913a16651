/* orbutil.h - what the tests that run the C mapping's client and server in
 * one process share (check_corba, check_values, check_idlstr): an ORB
 * listening on a free loopback port, and its RootPOA made active.  Static
 * inline: include it (after <check.h>) where libcorbaorb is linked. */
#ifndef ORBUTIL_H
#define ORBUTIL_H

#include <corbaorb/corba.h>

/* CORBA_ORB_init with -ORBendPoint giop:tcp:127.0.0.1:0 (its server on a
 * free port of 127.0.0.1).  Asserts that EV holds no exception after. */
static inline CORBA_ORB ou_orb_local(CORBA_Environment *ev)
{
  char a0[] = "t", a1[] = "-ORBendPoint", a2[] = "giop:tcp:127.0.0.1:0";
  char *argv[] = { a0, a1, a2, NULL };
  int argc = 3;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  return orb;
}

/* ORB's RootPOA, its POAManager activated (requests are served from then
 * on).  Asserts that neither step raises. */
static inline PortableServer_POA ou_root_poa(CORBA_ORB orb, CORBA_Environment *ev)
{
  PortableServer_POA root =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(root, ev), ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  return root;
}

#endif
