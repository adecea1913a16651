/* tls-peer - the C mapping's side of the TLS interop test
 * (tests/tls-interop.test; tests/interop/TlsEcho.idl through idl2c;
 * omniORB's side is tests/interop/omni-ssl.cc, with the same roles and
 * output).  TLS is configured by omniORB's options, given to
 * CORBA_ORB_init: -ORBendPoint giop:ssl:HOST:PORT, -ORBsslCAFile,
 * -ORBsslKeyFile, -ORBsslKeyPassword, -ORBsslVerifyMode,
 * -ORBclientTransportRule.
 *
 *   tls-peer server [-ORBxxx value ...]
 *       The servant in omniINSPOA (object key "TlsEcho").  Prints
 *       "IOR:...", serves until SIGINT/SIGTERM, then prints "subject=S"
 *       (the client certificate's subject the last echoString saw,
 *       iiop_request_peer_subject(); "-" for none) and "calls=C" (C requests
 *       answered) and exits 0; 1 when the ORB or POA fails (the exception on
 *       stdout).
 *
 *   tls-peer client --target IOR|URL --calls N --string S [-ORBxxx value ...]
 *       N pings ping(i) == i + 1 and echoString(S) == S on one reference;
 *       prints "ok pings=N echo=S" and exits 0; 1 a wrong result; 3 a
 *       failed call or ORB_init ("exception ID minor=0x..." on stdout, and
 *       "why: TEXT" from corbaorb_ORB_last_error() when it has one); 2 usage.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iiop/orb.h>
#include "TlsEcho.h"
#include "peerutil.h"

static int n_calls;
static CORBA_ORB the_orb;

static int usage(void)
{
  fprintf(stderr, "usage: tls-peer server [-ORBopt value ...]\n"
                  "       tls-peer client --target IOR|URL --calls N --string S"
                  " [-ORBopt value ...]\n");
  return 2;
}

/* "exception ID minor=0x..." (stdout) and the ORB's reason; 1 if EV holds one */
static int report(CORBA_Environment *ev)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  CORBA_SystemException *se = ev->_major == CORBA_SYSTEM_EXCEPTION ? CORBA_exception_value(ev) : NULL;
  printf("exception %s minor=0x%lx\n", CORBA_exception_id(ev), se ? (unsigned long)se->minor : 0ul);
  char why[640];
  if (the_orb && corbaorb_ORB_last_error(the_orb, why, sizeof why))
    printf("why: %s\n", why);
  fflush(stdout);
  return 1;
}

static CORBA_long c_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s, (void)ev;
  __atomic_add_fetch(&n_calls, 1, __ATOMIC_SEQ_CST);
  return x + 1;
}

static char last_subject[512] = "-";
static pthread_mutex_t subject_lock = PTHREAD_MUTEX_INITIALIZER;

static CORBA_char *c_echo(PortableServer_Servant s, const CORBA_char *str, CORBA_Environment *ev)
{
  (void)s, (void)ev;
  __atomic_add_fetch(&n_calls, 1, __ATOMIC_SEQ_CST);
  const char *subj = iiop_request_peer_subject(corbaorb_current_request());
  pthread_mutex_lock(&subject_lock);
  snprintf(last_subject, sizeof last_subject, "%s", subj ? subj : "-");
  pthread_mutex_unlock(&subject_lock);
  return CORBA_string_dup(str);
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_TlsEcho_Echo__epv echo_epv = { NULL, c_ping, c_echo };
static POA_TlsEcho_Echo__vepv vepv = { &base_epv, &echo_epv };

static int server(int argc, char **argv)
{
  sigset_t stop = peer_stop_signals();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  the_orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (report(&ev))
    return 1;
  if (argc != 1) {
    CORBA_ORB_destroy(the_orb, &ev);
    return usage();
  }
  POA_TlsEcho_Echo servant = { NULL, &vepv };
  POA_TlsEcho_Echo__init(&servant, &ev);
  PortableServer_POA ins;
  PortableServer_ObjectId *oid;
  CORBA_char *ior;
  TlsEcho_Echo self = peer_activate(the_orb, "TlsEcho", &servant, &ins, &oid, &ior, NULL, &ev);
  if (report(&ev))
    return 1;
  printf("%s\n", ior);
  fflush(stdout);
  CORBA_free(ior);
  if (peer_run(the_orb, &stop, &ev) != 0 || report(&ev))
    return 1;
  PortableServer_POA_deactivate_object(ins, oid, &ev);
  CORBA_free(oid);
  CORBA_Object_release(self, &ev);
  CORBA_ORB_destroy(the_orb, &ev);
  POA_TlsEcho_Echo__fini(&servant, &ev);
  printf("subject=%s\ncalls=%d\n", last_subject, __atomic_load_n(&n_calls, __ATOMIC_SEQ_CST));
  fflush(stdout);
  return 0;
}

static int client(int argc, char **argv)
{
  const char *target = NULL, *str = "";
  long calls = 1;
  /* our options out first: the rest (the program's name and -ORB options) go to ORB_init */
  char **oargv = calloc((size_t)argc + 1, sizeof *oargv);
  int oargc = 0;
  if (!oargv)
    return 1;
  oargv[oargc++] = argv[0];
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--target") && i + 1 < argc)
      target = argv[++i];
    else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
      calls = atol(argv[++i]);
    else if (!strcmp(argv[i], "--string") && i + 1 < argc)
      str = argv[++i];
    else
      oargv[oargc++] = argv[i];
  }
  int rc = 0;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  the_orb = CORBA_ORB_init(&oargc, oargv, "", &ev);
  if (!target || (!report(&ev) && oargc != 1)) {
    rc = usage();
    goto out;
  }
  if (ev._major != CORBA_NO_EXCEPTION) {
    rc = 3;
    goto out;
  }
  TlsEcho_Echo e = CORBA_ORB_string_to_object(the_orb, target, &ev);
  if (report(&ev)) {
    rc = 3;
    goto out;
  }
  for (long i = 0; i < calls && !rc; i++) {
    CORBA_long v = TlsEcho_Echo_ping(e, (CORBA_long)i, &ev);
    if (report(&ev))
      rc = 3;
    else if (v != i + 1) {
      fprintf(stderr, "tls-peer: ping(%ld) = %ld, want %ld\n", i, (long)v, i + 1);
      rc = 1;
    }
  }
  if (!rc) {
    CORBA_char *back = TlsEcho_Echo_echoString(e, str, &ev);
    if (report(&ev))
      rc = 3;
    else if (strcmp(back, str)) {
      fprintf(stderr, "tls-peer: echoString(\"%s\") = \"%s\"\n", str, back);
      rc = 1;
    } else {
      printf("ok pings=%ld echo=%s\n", calls, back);
    }
    if (back)
      CORBA_free(back);
  }
  CORBA_exception_free(&ev);
  CORBA_Object_release(e, &ev);
out:
  CORBA_exception_free(&ev);
  if (the_orb)
    CORBA_ORB_destroy(the_orb, &ev);
  free(oargv);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return usage();
  if (!strcmp(argv[1], "server")) {
    argv[1] = argv[0];
    return server(argc - 1, argv + 1);
  }
  if (!strcmp(argv[1], "client"))
    return client(argc, argv);
  return usage();
}
