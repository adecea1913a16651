/* tmo-peer.c - our side of the timeout interop test
 * (tests/timeout-interop.test; tests/interop/Tmo.idl; omniORB's side is
 * tests/interop/omni-tmo.cc).
 *
 *   tmo-peer corba-server
 *       The C mapping's servant S in omniINSPOA (object key "S").  Prints
 *       "IOR:...", serves until SIGINT/SIGTERM, then prints "sleeps=A
 *       slept=B pings=C conns=D" (sleep_ms calls begun, finished; pings;
 *       D: how many distinct client connections -- peer address and port
 *       -- the requests came on) and exits 0.
 *
 *   tmo-peer native-client|corba-client --target IOR --sleep MS --timeout T
 *       On one reference with a call timeout of T ms (libiiop:
 *       iiop_ref_set_timeout(); the C mapping:
 *       corbaorb_Object_set_call_timeout()): sleep_ms(MS), which must time
 *       out: "timeout EXCEPTION minor=0xM completed=C ms=E", then ping(41):
 *       "ping=V ms=E"; the native client then prints "connections=N
 *       late=L" (iiop_client_stats: connections opened, late replies
 *       dropped).  Exit 0 when the call timed out with TIMEOUT and ping
 *       gave 42; 1 otherwise; 2 usage.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "Tmo.h"
#include "peerutil.h"

static int n_sleeps, n_slept, n_pings;
static void inc(int *p) { __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
static int load(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int usage(void)
{
  fprintf(stderr, "usage: tmo-peer corba-server\n"
                  "       tmo-peer native-client|corba-client --target IOR --sleep MS "
                  "--timeout T\n");
  return 2;
}

/* ---------------------------------------------------------------- C-mapping server */

/* The client connections seen: "host:port" of each request's peer. */
#define MAX_PEERS 16
static pthread_mutex_t peers_mu = PTHREAD_MUTEX_INITIALIZER;
static char peers[MAX_PEERS][80];
static int npeers;

static void note_peer(void)
{
  iiop_request *r = corbaorb_current_request();
  char host[64], key[80];
  uint16_t port = 0;
  if (!r || iiop_request_peer(r, host, sizeof host, &port) != CDR_OK)
    return;
  snprintf(key, sizeof key, "%s:%u", host, (unsigned)port);
  pthread_mutex_lock(&peers_mu);
  int k = 0;
  while (k < npeers && strcmp(peers[k], key) != 0)
    k++;
  if (k == npeers && npeers < MAX_PEERS)
    strcpy(peers[npeers++], key);
  pthread_mutex_unlock(&peers_mu);
}

static void c_sleep_ms(PortableServer_Servant s, CORBA_long ms, CORBA_Environment *ev)
{
  (void)s;
  (void)ev;
  note_peer();
  inc(&n_sleeps);
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0)
    ;
  inc(&n_slept);
}

static CORBA_long c_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s;
  (void)ev;
  note_peer();
  inc(&n_pings);
  return x + 1;
}

static PortableServer_ServantBase__epv c_base_epv = { NULL, NULL, NULL };
static POA_Tmo_S__epv c_s_epv = { NULL, c_sleep_ms, c_ping };
static POA_Tmo_S__vepv c_vepv = { &c_base_epv, &c_s_epv };
static CORBA_ORB the_orb;

static int failed(CORBA_Environment *ev, const char *what)
{
  return peer_failed("tmo-peer", ev, what);
}

static int corba_server(int argc, char **argv)
{
  sigset_t stop = peer_stop_signals();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  the_orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return 1;
  POA_Tmo_S servant = { NULL, &c_vepv };
  POA_Tmo_S__init(&servant, &ev);
  PortableServer_POA ins;
  PortableServer_ObjectId *oid;
  CORBA_char *ior;
  const char *what;
  Tmo_S self = peer_activate(the_orb, "S", &servant, &ins, &oid, &ior, &what, &ev);
  if (failed(&ev, what))
    return 1;
  printf("%s\n", ior);
  fflush(stdout);
  CORBA_free(ior);
  if (peer_run(the_orb, &stop, &ev) != 0)
    return 1;
  printf("sleeps=%d slept=%d pings=%d conns=%d\n", load(&n_sleeps), load(&n_slept),
         load(&n_pings), npeers);
  fflush(stdout);
  CORBA_Object_release(self, &ev);
  CORBA_free(oid);
  CORBA_ORB_destroy(the_orb, &ev);
  return 0;
}

/* ---------------------------------------------------------------- clients */

static int native_client(const char *target, int sleep, int timeout)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  iiop_client *c = iiop_client_new(&o);
  iiop_ref *r = NULL;
  if (!c || iiop_client_resolve(c, target, &r) != CDR_OK) {
    fprintf(stderr, "tmo-peer: cannot resolve %s\n", target);
    return 1;
  }
  if (iiop_ref_set_timeout(r, timeout) != CDR_OK)
    return 1;
  int ok = 0;
  iiop_call *call;
  cdr_out *args;
  cdr_in *res;
  if (iiop_call_begin(r, "sleep_ms", 0, &call, &args) != CDR_OK)
    return 1;
  cdr_put_long(args, sleep);
  int64_t t0 = now_ms();
  int rc = iiop_call_invoke(call, &res);
  int64_t ms = now_ms() - t0;
  if (rc == CDR_OK) {
    printf("no timeout ms=%lld\n", (long long)ms);
  } else {
    const giop_system_exception *e = iiop_call_exception(call);
    const char *name = e ? giop_system_exception_name(e->repo_id, strlen(e->repo_id)) : "?";
    printf("timeout %s minor=0x%lx completed=%u ms=%lld\n", name ? name : e->repo_id,
           e ? (unsigned long)e->minor : 0ul, e ? (unsigned)e->completed : 9u, (long long)ms);
    ok = rc == CDR_E_TIMEOUT && name && !strcmp(name, "TIMEOUT");
  }
  iiop_call_end(call);
  if (iiop_call_begin(r, "ping", 0, &call, &args) != CDR_OK)
    return 1;
  cdr_put_long(args, 41);
  t0 = now_ms();
  rc = iiop_call_invoke(call, &res);
  ms = now_ms() - t0;
  if (rc == CDR_OK) {
    int32_t v = cdr_get_long(res);
    printf("ping=%d ms=%lld\n", (int)v, (long long)ms);
    ok = ok && v == 42 && cdr_in_status(res) == CDR_OK;
  } else {
    printf("ping failed: %s\n", cdr_strerror(rc));
    ok = 0;
  }
  iiop_call_end(call);
  iiop_client_stats st;
  if (iiop_client_stats_get(c, &st) == CDR_OK)
    printf("connections=%llu late=%llu\n", (unsigned long long)st.connections,
           (unsigned long long)st.late_replies);
  fflush(stdout);
  iiop_ref_free(r);
  iiop_client_free(c);
  return ok ? 0 : 1;
}

static int corba_client(int argc, char **argv, const char *target, int sleep, int timeout)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return 1;
  Tmo_S s = CORBA_ORB_string_to_object(orb, target, &ev);
  if (failed(&ev, "string_to_object"))
    return 1;
  corbaorb_Object_set_call_timeout(s, timeout, &ev);
  if (failed(&ev, "set_call_timeout"))
    return 1;
  int ok = 0;
  int64_t t0 = now_ms();
  Tmo_S_sleep_ms(s, sleep, &ev);
  int64_t ms = now_ms() - t0;
  if (ev._major == CORBA_NO_EXCEPTION) {
    printf("no timeout ms=%lld\n", (long long)ms);
  } else {
    const char *id = CORBA_exception_id(&ev);
    CORBA_SystemException *se =
      ev._major == CORBA_SYSTEM_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    const char *name = giop_system_exception_name(id, strlen(id));
    printf("timeout %s minor=0x%lx completed=%d ms=%lld\n", name ? name : id,
           se ? (unsigned long)se->minor : 0ul, se ? (int)se->completed : 9, (long long)ms);
    ok = name && !strcmp(name, "TIMEOUT");
    CORBA_exception_free(&ev);
  }
  t0 = now_ms();
  CORBA_long v = Tmo_S_ping(s, 41, &ev);
  ms = now_ms() - t0;
  if (ev._major == CORBA_NO_EXCEPTION) {
    printf("ping=%d ms=%lld\n", (int)v, (long long)ms);
    ok = ok && v == 42;
  } else {
    printf("ping failed: %s\n", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
    ok = 0;
  }
  fflush(stdout);
  CORBA_Object_release(s, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2)
    return usage();
  const char *role = argv[1], *target = NULL;
  int sleep = -1, timeout = -1;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--target") && i + 1 < argc)
      target = argv[++i];
    else if (!strcmp(argv[i], "--sleep") && i + 1 < argc)
      sleep = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
      timeout = atoi(argv[++i]);
    else
      return usage();
  }
  char *oargv[] = { argv[0], NULL };
  if (!strcmp(role, "corba-server"))
    return corba_server(1, oargv);
  if (!target || sleep < 0 || timeout < 0)
    return usage();
  if (!strcmp(role, "native-client"))
    return native_client(target, sleep, timeout);
  if (!strcmp(role, "corba-client"))
    return corba_client(1, oargv, target, sleep, timeout);
  return usage();
}
