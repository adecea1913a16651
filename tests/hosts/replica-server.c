/* replica-server.c - one replica of Hosts::Replica (replica.idl) for
 * tests/hosts.test, in C through the OMG C mapping (idl2c, libcorbaorb).
 *
 *   replica-server [-ORB options] NAME NAMING-URL [WORK-US]
 *
 * Serves one Replica (at the -ORBendPoint address, whose host is the one
 * its IOR names), binds it in the naming service NAMING-URL (the root
 * context: "corbaname::HOST:PORT") as replicas/NAME, creating the context
 * "replicas" when it is missing, and prints "ready NAME" once bound.  Each
 * ask() sleeps WORK-US microseconds (default 2000: calls are in flight
 * when a replica dies) and answers { NAME, seq, calls answered so far }.
 * On SIGTERM or SIGINT it unbinds replicas/NAME (a replica that exits
 * cleanly leaves no stale binding; one that crashes does, and clients
 * must live with that), prints "unbound NAME" and exits 0.  Exit status 1
 * when a CORBA call fails (printed), 2 for usage.
 *
 * The naming calls go through the CosNaming stubs that idl2c generates
 * from omniORB's CosNaming.idl (the sources of libcorbaorb/gen/, compiled
 * into this program: the library's own copies are hidden).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "CosNaming.h"
#include "replica.h"

static CORBA_ORB orb;
static char name[64];
static unsigned long work_us = 2000;
static CORBA_unsigned_long served; /* atomic: calls come on several threads */

static Hosts_Answer *ask(PortableServer_Servant s, CORBA_unsigned_long seq, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  struct timespec t = { (time_t)(work_us / 1000000), (long)(work_us % 1000000) * 1000 };
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
  Hosts_Answer *a = Hosts_Answer__alloc();
  a->replica = CORBA_string_dup(name);
  a->seq = seq;
  a->served = __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
  return a; /* the skeleton sends it, then frees it */
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Hosts_Replica__epv replica_epv = { NULL, ask };
static POA_Hosts_Replica__vepv replica_vepv = { &base_epv, &replica_epv };
static POA_Hosts_Replica servant = { NULL, &replica_vepv };

static int failed(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  fprintf(stderr, "replica-server %s: %s: %s\n", name, what, CORBA_exception_id(ev));
  CORBA_exception_free(ev);
  return 1;
}

/* SIGTERM / SIGINT (blocked in every thread) end CORBA_ORB_run. */
static void *signals(void *arg)
{
  sigset_t *set = arg;
  int sig;
  while (sigwait(set, &sig) != 0)
    ;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB_shutdown(orb, CORBA_FALSE, &ev);
  return NULL;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  /* before any thread: libiiop's threads inherit the mask */
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return 1;
  if ((argc != 3 && argc != 4) || strlen(argv[1]) >= sizeof name || !argv[1][0]) {
    fprintf(stderr, "usage: replica-server [-ORB options] NAME NAMING-URL [WORK-US]\n");
    return 2;
  }
  strcpy(name, argv[1]);
  if (argc == 4) {
    char *end;
    work_us = strtoul(argv[3], &end, 10);
    if (*end || work_us > 1000000) {
      fprintf(stderr, "replica-server: WORK-US: 0 to 1000000\n");
      return 2;
    }
  }
  pthread_t sig_thread;
  if (pthread_create(&sig_thread, NULL, signals, &set) != 0) {
    fprintf(stderr, "replica-server %s: no signal thread\n", name);
    return 1;
  }

  PortableServer_POA poa =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  if (failed(&ev, "resolve RootPOA"))
    return 1;
  POA_Hosts_Replica__init(&servant, &ev);
  PortableServer_ObjectId *oid = PortableServer_POA_activate_object(poa, &servant, &ev);
  if (failed(&ev, "activate"))
    return 1;
  CORBA_Object ref = PortableServer_POA_servant_to_reference(poa, &servant, &ev);
  if (failed(&ev, "servant_to_reference"))
    return 1;
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(poa, &ev), &ev);
  if (failed(&ev, "activate the POAManager"))
    return 1;

  /* Serving already: bind. "replicas" first (AlreadyBound: another
   * replica made it), then rebind replicas/NAME (a restarted replica
   * replaces the binding its crashed predecessor left). */
  CosNaming_NamingContext root = CORBA_ORB_string_to_object(orb, argv[2], &ev);
  if (failed(&ev, argv[2]))
    return 1;
  char ctx_id[] = "replicas", empty[] = "";
  CosNaming_NameComponent comps[2] = { { ctx_id, empty }, { name, empty } };
  CosNaming_Name ctx_name = { 1, 1, comps, CORBA_FALSE };
  CosNaming_Name full_name = { 2, 2, comps, CORBA_FALSE };
  CosNaming_NamingContext ctx = CosNaming_NamingContext_bind_new_context(root, &ctx_name, &ev);
  if (ev._major == CORBA_USER_EXCEPTION &&
      !strcmp(CORBA_exception_id(&ev), ex_CosNaming_NamingContext_AlreadyBound))
    CORBA_exception_free(&ev);
  else if (failed(&ev, "bind_new_context replicas"))
    return 1;
  CORBA_Object_release(ctx, &ev);
  CosNaming_NamingContext_rebind(root, &full_name, ref, &ev);
  if (failed(&ev, "rebind"))
    return 1;
  printf("ready %s\n", name);
  fflush(stdout);

  CORBA_ORB_run(orb, &ev); /* until SIGTERM / SIGINT */
  int rc = failed(&ev, "run");
  pthread_join(sig_thread, NULL);
  CosNaming_NamingContext_unbind(root, &full_name, &ev);
  if (failed(&ev, "unbind"))
    rc = 1;
  else
    printf("unbound %s\n", name);
  CORBA_Object_release(root, &ev);
  PortableServer_POA_deactivate_object(poa, oid, &ev);
  CORBA_free(oid);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Hosts_Replica__fini(&servant, &ev);
  return rc;
}
