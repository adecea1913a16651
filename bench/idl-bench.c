/* idl-bench.c - the Bench::Echo server of `iiop-bench`, on the skeleton idl2c
 * generates from tests/interop/Bench.idl (bench/gen/, at build time) and
 * libcorbaorb's POA: the `ours_idl` row of `iiop-bench run`, whose server
 * instructions per call are compared with the native `ours` row (the same
 * libiiop server under a hand-written servant, bench/bench_idl.c).
 *
 *   idl-bench server --listen HOST:PORT
 *
 * It prints two lines, flushed, then serves until SIGINT or SIGTERM:
 *   corbaloc:iiop:1.2@HOST:PORT/Echo
 *   IOR:...
 * (the servant is in omniINSPOA under the ObjectId "Echo", so the object key
 * is "Echo" as for `iiop-bench server`; no AnyEcho object: `iiop-bench run`
 * reads the first two lines only).  The callers are `iiop-bench client`'s,
 * unchanged, so only the server differs between the two rows.
 *
 * The servant follows the C mapping's rules (docs/c-mapping.md): ping
 * returns its argument; echoGraph returns the graph it was given (the in
 * values live in the request's arena, which the ORB frees after the reply,
 * so the result is not freed twice); echoString and echoWString return a
 * copy (CORBA_string_dup: a returned string is the caller's to free, so the
 * ORB frees it after the reply -- the cost the string scenario shows);
 * echoPair a new Pair whose members are the request's values.
 *
 * Exit status: 0 after SIGINT/SIGTERM, 1 when it cannot start, 2 usage error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <iiop/ior.h>

#include "Bench.h"

#define EXIT_OK 0
#define EXIT_SERVER 1
#define EXIT_USAGE 2

static void usage(FILE *f)
{
  fputs("usage: idl-bench server --listen HOST:PORT\n"
        "  Bench::Echo on idl2c's skeleton; prints the corbaloc URL and the IOR,\n"
        "  one line each, then serves until SIGINT or SIGTERM.\n", f);
}

static CORBA_long e_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return x;
}

static Bench_Node *e_graph(PortableServer_Servant s, const Bench_Node *h, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return (Bench_Node *)(uintptr_t)h;
}

static CORBA_string e_string(PortableServer_Servant s, const CORBA_char *x, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(x);
}

static CORBA_wstring e_wstring(PortableServer_Servant s, const CORBA_wchar *x,
                               CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_wstring_dup(x);
}

static Bench_Pair *e_pair(PortableServer_Servant s, const Bench_Pair *p, CORBA_Environment *ev)
{
  (void)s; (void)ev;
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

static int failed(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  fprintf(stderr, "idl-bench: %s: %s\n", what, CORBA_exception_id(ev));
  CORBA_exception_free(ev);
  return 1;
}

static int server_main(int argc, char **argv)
{
  const char *listen = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return EXIT_OK;
    } else {
      fprintf(stderr, "idl-bench: server: bad argument '%s'\n", argv[i]);
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (!listen || strlen(listen) > 200) {
    fprintf(stderr, "idl-bench: server: --listen HOST:PORT is required\n");
    usage(stderr);
    return EXIT_USAGE;
  }

  /* Block the stop signals before the ORB's threads start (they inherit the
   * mask); this thread waits for them with sigwait(). */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);

  char ep[256];
  snprintf(ep, sizeof ep, "giop:tcp:%s", listen);
  char a0[] = "idl-bench", a1[] = "-ORBendPoint";
  char *oargv[] = { a0, a1, ep, NULL };
  int oargc = 3;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&oargc, oargv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return EXIT_SERVER;
  PortableServer_POA poa =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  if (failed(&ev, "resolve omniINSPOA"))
    return EXIT_SERVER;
  POA_Bench_Echo servant = { NULL, &e_vepv };
  POA_Bench_Echo__init(&servant, &ev);
  if (failed(&ev, "POA_Bench_Echo__init"))
    return EXIT_SERVER;
  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId("Echo", &ev);
  PortableServer_POA_activate_object_with_id(poa, oid, &servant, &ev);
  if (failed(&ev, "activate_object_with_id"))
    return EXIT_SERVER;
  CORBA_Object ref = PortableServer_POA_servant_to_reference(poa, &servant, &ev);
  CORBA_char *ior = CORBA_ORB_object_to_string(orb, ref, &ev);
  if (failed(&ev, "object_to_string"))
    return EXIT_SERVER;
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(poa, &ev), &ev);
  if (failed(&ev, "activate the POAManager"))
    return EXIT_SERVER;

  /* The host and port the IOR carries, for the corbaloc line. */
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior parsed;
  const iiop_profile *prof = NULL;
  if (iiop_ior_from_string(ior, &a, &parsed) == CDR_OK)
    prof = iiop_ior_iiop_profile(&parsed);
  if (!prof) {
    fprintf(stderr, "idl-bench: no IIOP profile in our own IOR\n");
    cdr_arena_free(&a);
    return EXIT_SERVER;
  }
  bool v6 = strchr(prof->host, ':') != NULL && prof->host[0] != '[';
  printf("corbaloc:iiop:1.2@%s%s%s:%u/Echo\n%s\n", v6 ? "[" : "", prof->host, v6 ? "]" : "",
         (unsigned)prof->port, ior);
  fflush(stdout);
  cdr_arena_free(&a);
  CORBA_free(ior);

  int sig = 0;
  while (sigwait(&stop, &sig) != 0)
    ;
  PortableServer_POA_deactivate_object(poa, oid, &ev);
  CORBA_exception_free(&ev);
  CORBA_free(oid);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Bench_Echo__fini(&servant, &ev);
  return EXIT_OK;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "server") == 0)
    return server_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  usage(stderr);
  return EXIT_USAGE;
}
