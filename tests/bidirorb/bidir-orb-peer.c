/* bidir-orb-peer.c - tests/interop/BiDir.idl over the C mapping (idl2c's
 * BiDir.h and libcorbaorb) with the ORB's bidirectional GIOP options; the
 * C-mapping side of tests/bidir-orb.test.
 *
 *   bidir-orb-peer server [-ORB options]
 *       a BiDir::Srv in a child POA with BidirectionalPolicy BOTH; prints
 *       its IOR on its first line and serves until killed.  call_me(cb, x)
 *       returns cb->hit(x) * 10, or -1 when the callback raised (its
 *       exception's ID on stderr, "callback: ID").
 *   bidir-orb-peer client SRV-IOR X [-ORB options]
 *       a BiDir::CB servant (hit(x) = x + 1) in a child POA with BOTH,
 *       whose POAManager is never activated: its published port never
 *       listens, so a callback can only come over the client's own
 *       connection.  Calls srv->call_me(cb, X) twice and prints
 *       "result=R hits=H" (R the second result, H the callbacks served).
 *   bidir-orb-peer policy
 *       CORBA_ORB_create_policy's errors: prints "R1 R2 R3 R4" (the
 *       PolicyError reasons of type 38, of 37 with a long, of 37 with
 *       value 2, and 0 for 37 with NORMAL made).
 * Exit 0, or 1 with the failing step on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "BiDir.h"

static int n_hits; /* atomic */

static void check(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return;
  fprintf(stderr, "bidir-orb-peer: %s: %s\n", what, CORBA_exception_id(ev));
  exit(1);
}

static CORBA_long cb_hit(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  __atomic_add_fetch(&n_hits, 1, __ATOMIC_RELAXED);
  return x + 1;
}

static CORBA_long srv_call_me(PortableServer_Servant s, BiDir_CB target, CORBA_long x,
                              CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_Environment cev;
  CORBA_exception_init(&cev);
  CORBA_long r = BiDir_CB_hit(target, x, &cev);
  if (cev._major != CORBA_NO_EXCEPTION) {
    fprintf(stderr, "callback: %s\n", CORBA_exception_id(&cev));
    CORBA_exception_free(&cev);
    return -1;
  }
  return r * 10;
}

static CORBA_long srv_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return x;
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_BiDir_CB__epv cb_epv = { NULL, cb_hit };
static POA_BiDir_CB__vepv cb_vepv = { &base_epv, &cb_epv };
static POA_BiDir_Srv__epv srv_epv = { NULL, srv_call_me, srv_ping };
static POA_BiDir_Srv__vepv srv_vepv = { &base_epv, &srv_epv };

/* A child POA "bidir" of the RootPOA with BidirectionalPolicy BOTH. */
static PortableServer_POA bidir_poa(CORBA_ORB orb, CORBA_Environment *ev)
{
  PortableServer_POA root =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", ev);
  check(ev, "RootPOA");
  CORBA_unsigned_short both = BiDirPolicy_BOTH;
  CORBA_any val = { ._type = TC_CORBA_unsigned_short, ._value = &both };
  CORBA_Policy pol = CORBA_ORB_create_policy(orb, BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE, &val, ev);
  check(ev, "create_policy");
  CORBA_PolicyList pl = { 1, 1, &pol, CORBA_FALSE };
  PortableServer_POA p = PortableServer_POA_create_POA(
    root, "bidir", PortableServer_POA__get_the_POAManager(root, ev), &pl, ev);
  check(ev, "create_POA");
  CORBA_Policy_destroy(pol, ev);
  return p;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  check(&ev, "ORB_init");
  if (argc == 2 && !strcmp(argv[1], "policy")) {
    CORBA_unsigned_short us = 2;
    CORBA_long l = 1;
    CORBA_any v_us = { ._type = TC_CORBA_unsigned_short, ._value = &us };
    CORBA_any v_l = { ._type = TC_CORBA_long, ._value = &l };
    struct { CORBA_PolicyType type; CORBA_any *val; } tries[] = {
      { 38, &v_us }, { BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE, &v_l },
      { BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE, &v_us },
    };
    for (unsigned k = 0; k < 3; k++) {
      CORBA_Policy p = CORBA_ORB_create_policy(orb, tries[k].type, tries[k].val, &ev);
      const CORBA_PolicyError *pe = CORBA_exception_value(&ev);
      if (p || ev._major != CORBA_USER_EXCEPTION || strcmp(CORBA_exception_id(&ev), ex_CORBA_PolicyError))
        check(&ev, "create_policy (no PolicyError)");
      printf("%d ", (int)pe->reason);
      CORBA_exception_free(&ev);
    }
    us = BiDirPolicy_NORMAL;
    CORBA_Policy p = CORBA_ORB_create_policy(orb, BiDirPolicy_BIDIRECTIONAL_POLICY_TYPE, &v_us, &ev);
    check(&ev, "create_policy NORMAL");
    printf("%d\n", p ? 0 : -1);
    CORBA_Policy_destroy(p, &ev);
    CORBA_ORB_destroy(orb, &ev);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "server")) {
    PortableServer_POA poa = bidir_poa(orb, &ev);
    POA_BiDir_Srv srv = { NULL, &srv_vepv };
    POA_BiDir_Srv__init(&srv, &ev);
    check(&ev, "init");
    PortableServer_ObjectId *oid = PortableServer_POA_activate_object(poa, &srv, &ev);
    check(&ev, "activate");
    CORBA_free(oid);
    CORBA_Object ref = PortableServer_POA_servant_to_reference(poa, &srv, &ev);
    check(&ev, "servant_to_reference");
    CORBA_char *ior = CORBA_ORB_object_to_string(orb, ref, &ev);
    check(&ev, "object_to_string");
    printf("%s\n", ior);
    fflush(stdout);
    CORBA_free(ior);
    PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(poa, &ev), &ev);
    check(&ev, "activate POAManager");
    CORBA_ORB_run(orb, &ev); /* until killed */
    check(&ev, "run");
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "client")) {
    PortableServer_POA poa = bidir_poa(orb, &ev);
    POA_BiDir_CB cb = { NULL, &cb_vepv };
    POA_BiDir_CB__init(&cb, &ev);
    check(&ev, "init");
    PortableServer_ObjectId *oid = PortableServer_POA_activate_object(poa, &cb, &ev);
    check(&ev, "activate");
    CORBA_free(oid);
    BiDir_CB cbr = PortableServer_POA_servant_to_reference(poa, &cb, &ev);
    check(&ev, "servant_to_reference");
    BiDir_Srv srv = CORBA_ORB_string_to_object(orb, argv[2], &ev);
    check(&ev, "string_to_object");
    CORBA_long x = atoi(argv[3]);
    CORBA_long r = BiDir_Srv_call_me(srv, cbr, x, &ev);
    check(&ev, "call_me");
    r = BiDir_Srv_call_me(srv, cbr, x, &ev);
    check(&ev, "call_me");
    printf("result=%d hits=%d\n", (int)r, __atomic_load_n(&n_hits, __ATOMIC_RELAXED));
    CORBA_Object_release(srv, &ev);
    CORBA_Object_release(cbr, &ev);
    CORBA_ORB_destroy(orb, &ev);
    POA_BiDir_CB__fini(&cb, &ev);
    return 0;
  }
  fprintf(stderr, "usage: bidir-orb-peer server | client SRV-IOR X  [-ORBxxx value ...]\n");
  return 1;
}
