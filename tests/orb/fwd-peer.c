/* fwd-peer.c - our side of the forwarding interop test (tests/interop.test,
 * "forwarding"; tests/interop/Fwd.idl): servers that answer every request
 * with a forward to a target, or serve it, and clients that make calls
 * through a reference and report what happened.  Two of each: libiiop's
 * native API (iiop_request_set_forward(), iiop_call_*) and the C mapping
 * (a servant raising PortableServer_ForwardRequest or
 * corbaorb_LocationForwardPerm; idl2c's stubs).
 *
 *   fwd-peer native-server|corba-server [--forward-to IOR [--perm]]
 *       Prints "IOR:..." and "port N" (the object key is "F": corbaloc
 *       works), serves until SIGINT/SIGTERM, then prints
 *       "calls=C oneways=O forwards=F value=V" and exits 0.  C counts the
 *       pings the servant answered, O the oneway sets it executed, F the
 *       requests (pings and sets) it answered with a forward, V the last
 *       set's value (0: none).  --forward-to: every request is forwarded
 *       to IOR, as LOCATION_FORWARD, or with --perm LOCATION_FORWARD_PERM
 *       (GIOP 1.2; 1.0/1.1 requests get LOCATION_FORWARD).
 *
 *   fwd-peer native-client|corba-client --target IOR|URL --calls N
 *            [--oneway V] [--wait FILE]
 *       N pings ping(i) = i + 1 on one reference; with --oneway, then
 *       set(V) and one more ping (N + 1 pings).  Prints "phase1 pings=P ok"
 *       (flushed).  With --wait, then waits (at most 60 s) until FILE
 *       exists and pings once more: "after: ok" or "after: EXCEPTION-ID".
 *       Exit 0; 1 when a ping's result is wrong; 3 when a call of the
 *       first phase fails (the exception on stderr); 2 usage.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "Fwd.h"
#include "peerutil.h"

static const char *fwd_to;   /* forward every request here; NULL: serve */
static int fwd_perm;
static int n_calls, n_oneways, n_forwards, last_value;

static void inc(int *p) { __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
static int load(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

static void print_counts(void)
{
  printf("calls=%d oneways=%d forwards=%d value=%d\n", load(&n_calls), load(&n_oneways),
         load(&n_forwards), load(&last_value));
  fflush(stdout);
}

static int usage(void)
{
  fprintf(stderr,
          "usage: fwd-peer native-server|corba-server [--forward-to IOR [--perm]]\n"
          "       fwd-peer native-client|corba-client --target IOR|URL --calls N"
          " [--oneway V] [--wait FILE]\n");
  return 2;
}

/* "IOR:..." and "port N", in one write */
static void print_ref(const char *ior, unsigned port)
{
  printf("%s\nport %u\n", ior, port);
  fflush(stdout);
}

static unsigned ior_port(const char *s)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  unsigned port = 0;
  if (iiop_ior_from_string(s, &a, &ior) == CDR_OK) {
    const iiop_profile *p = iiop_ior_iiop_profile(&ior);
    if (p)
      port = p->port;
  }
  cdr_arena_free(&a);
  return port;
}

/* ---------------------------------------------------------------- native server */

static int n_forward(iiop_request *req)
{
  if (!fwd_to)
    return 0;
  if (iiop_request_set_forward(req, fwd_to, fwd_perm) != CDR_OK) {
    fprintf(stderr, "fwd-peer: iiop_request_set_forward refused %s\n", fwd_to);
    return 0;
  }
  inc(&n_forwards);
  return 1;
}

static int n_ping(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)s;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  if (n_forward(req)) {
    cdr_put_long(result, 0); /* dropped: the reply is the forward */
    return CDR_OK;
  }
  inc(&n_calls);
  cdr_put_long(result, x + 1);
  return CDR_OK;
}

static int n_set(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)s;
  (void)result;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  if (n_forward(req))
    return CDR_OK;
  __atomic_store_n(&last_value, x, __ATOMIC_SEQ_CST);
  inc(&n_oneways);
  return CDR_OK;
}

static const iiop_operation f_ops[] = { { "ping", n_ping }, { "set", n_set } };
static const iiop_interface f_iface = { "IDL:Fwd/F:1.0", f_ops, 2, NULL };

static int native_server(void)
{
  sigset_t stop = peer_stop_signals();
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  iiop_server *s = NULL;
  int rc = iiop_server_new(&o, &s);
  if (rc == CDR_OK)
    rc = iiop_server_activate(s, "F", 1, &f_iface, NULL);
  if (rc == CDR_OK)
    rc = iiop_server_start(s);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  if (rc == CDR_OK)
    rc = iiop_server_ior(s, "F", 1, &a, &ior);
  if (rc != CDR_OK) {
    fprintf(stderr, "fwd-peer: native server: %s\n", cdr_strerror(rc));
    iiop_server_free(s);
    return 1;
  }
  print_ref(ior, iiop_server_port(s));
  cdr_arena_free(&a);
  int sig;
  sigwait(&stop, &sig);
  iiop_server_shutdown(s);
  print_counts();
  iiop_server_free(s);
  return 0;
}

/* ---------------------------------------------------------------- C-mapping server */

static CORBA_ORB the_orb;
static Fwd_F fwd_ref;        /* the C mapping's forward target */

static int c_forward(CORBA_Environment *ev)
{
  if (!fwd_ref)
    return 0;
  inc(&n_forwards);
  if (fwd_perm) {
    corbaorb_LocationForwardPerm *f = corbaorb_LocationForwardPerm__alloc();
    if (f)
      f->forward_reference = CORBA_Object_duplicate(fwd_ref, ev);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_corbaorb_LocationForwardPerm, f);
  } else {
    PortableServer_ForwardRequest *f = PortableServer_ForwardRequest__alloc();
    if (f)
      f->forward_reference = CORBA_Object_duplicate(fwd_ref, ev);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_ForwardRequest, f);
  }
  return 1;
}

static CORBA_long c_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s;
  if (c_forward(ev))
    return 0;
  inc(&n_calls);
  return x + 1;
}

static void c_set(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  (void)s;
  if (c_forward(ev))
    return;
  __atomic_store_n(&last_value, x, __ATOMIC_SEQ_CST);
  inc(&n_oneways);
}

static PortableServer_ServantBase__epv c_base_epv = { NULL, NULL, NULL };
static POA_Fwd_F__epv c_f_epv = { NULL, c_ping, c_set };
static POA_Fwd_F__vepv c_vepv = { &c_base_epv, &c_f_epv };

static int failed(CORBA_Environment *ev, const char *what)
{
  return peer_failed("fwd-peer", ev, what);
}

static int corba_server(int argc, char **argv)
{
  sigset_t stop = peer_stop_signals();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  the_orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return 1;
  if (fwd_to) {
    fwd_ref = CORBA_ORB_string_to_object(the_orb, fwd_to, &ev);
    if (failed(&ev, "--forward-to"))
      return 1;
  }
  POA_Fwd_F servant = { NULL, &c_vepv };
  POA_Fwd_F__init(&servant, &ev);
  PortableServer_POA ins;
  PortableServer_ObjectId *oid;
  CORBA_char *ior;
  const char *what;
  Fwd_F self = peer_activate(the_orb, "F", &servant, &ins, &oid, &ior, &what, &ev);
  if (failed(&ev, what))
    return 1;
  print_ref(ior, ior_port(ior));
  CORBA_free(ior);
  if (peer_run(the_orb, &stop, &ev) != 0 || failed(&ev, "run"))
    return 1;
  PortableServer_POA_deactivate_object(ins, oid, &ev);
  CORBA_free(oid);
  CORBA_Object_release(self, &ev);
  if (fwd_ref)
    CORBA_Object_release(fwd_ref, &ev);
  CORBA_ORB_destroy(the_orb, &ev);
  POA_Fwd_F__fini(&servant, &ev);
  print_counts(); /* after destroy: every request answered */
  return 0;
}

/* ---------------------------------------------------------------- clients */

typedef struct client {
  int corba;
  iiop_client *cl;           /* native */
  iiop_ref *ref;
  CORBA_ORB orb;             /* C mapping */
  Fwd_F obj;
  char ex[160];              /* the last failed call's exception ID */
} client;

/* ping(x): 0 and *OUT, or -1 with the exception ID in C->ex */
static int do_ping(client *c, int32_t x, int32_t *out)
{
  c->ex[0] = 0;
  if (c->corba) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    *out = Fwd_F_ping(c->obj, x, &ev);
    if (ev._major == CORBA_NO_EXCEPTION)
      return 0;
    snprintf(c->ex, sizeof c->ex, "%s", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
    return -1;
  }
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(c->ref, "ping", 0, &call, &args);
  if (rc != CDR_OK) {
    snprintf(c->ex, sizeof c->ex, "call_begin: %s", cdr_strerror(rc));
    return -1;
  }
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    *out = cdr_get_long(res);
    rc = cdr_in_status(res);
  }
  if (rc != CDR_OK) {
    const giop_system_exception *e = iiop_call_exception(call);
    snprintf(c->ex, sizeof c->ex, "%s", e ? e->repo_id : cdr_strerror(rc));
  }
  iiop_call_end(call);
  return rc == CDR_OK ? 0 : -1;
}

static int do_set(client *c, int32_t v)
{
  c->ex[0] = 0;
  if (c->corba) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    Fwd_F_set(c->obj, v, &ev);
    if (ev._major == CORBA_NO_EXCEPTION)
      return 0;
    snprintf(c->ex, sizeof c->ex, "%s", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
    return -1;
  }
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(c->ref, "set", 1, &call, &args);
  if (rc == CDR_OK) {
    cdr_put_long(args, v);
    rc = iiop_call_invoke(call, NULL);
    iiop_call_end(call);
  }
  if (rc != CDR_OK)
    snprintf(c->ex, sizeof c->ex, "%s", cdr_strerror(rc));
  return rc == CDR_OK ? 0 : -1;
}

static int wait_for(const char *path)
{
  for (int i = 0; i < 6000; i++) {
    if (access(path, F_OK) == 0)
      return 0;
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  return -1;
}

static int run_client(int corba, int argc, char **argv, const char *target, long calls,
                      int has_oneway, int32_t oneway, const char *wait_file)
{
  client c;
  memset(&c, 0, sizeof c);
  c.corba = corba;
  if (corba) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    c.orb = CORBA_ORB_init(&argc, argv, "", &ev);
    if (failed(&ev, "ORB_init"))
      return 3;
    c.obj = CORBA_ORB_string_to_object(c.orb, target, &ev);
    if (failed(&ev, "string_to_object"))
      return 3;
  } else {
    iiop_client_opts o;
    iiop_client_opts_default(&o);
    o.timeout_ms = 20000;
    c.cl = iiop_client_new(&o);
    if (!c.cl || iiop_client_resolve(c.cl, target, &c.ref) != CDR_OK) {
      fprintf(stderr, "fwd-peer: cannot resolve %s\n", target);
      return 3;
    }
  }
  int status = 0;
  long pings = 0;
  for (long i = 0; i <= calls && status == 0; i++) {
    if (i == calls) {
      if (!has_oneway)
        break;
      if (do_set(&c, oneway) != 0) {
        fprintf(stderr, "fwd-peer: set: %s\n", c.ex);
        status = 3;
        break;
      }
    }
    int32_t v = 0;
    if (do_ping(&c, (int32_t)i, &v) != 0) {
      fprintf(stderr, "fwd-peer: ping(%ld): %s\n", i, c.ex);
      status = 3;
    } else if (v != (int32_t)i + 1) {
      fprintf(stderr, "fwd-peer: ping(%ld) = %d, want %ld\n", i, (int)v, i + 1);
      status = 1;
    }
    pings++;
  }
  if (status == 0) {
    printf("phase1 pings=%ld ok\n", pings);
    fflush(stdout);
  }
  if (status == 0 && wait_file) {
    int32_t v = 0;
    if (wait_for(wait_file) != 0) {
      fprintf(stderr, "fwd-peer: %s did not appear\n", wait_file);
      status = 3;
    } else if (do_ping(&c, 1000, &v) == 0) {
      printf("after: %s\n", v == 1001 ? "ok" : "wrong result");
    } else {
      printf("after: %s\n", c.ex);
    }
    fflush(stdout);
  }
  if (corba) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_Object_release(c.obj, &ev);
    CORBA_ORB_destroy(c.orb, &ev);
  } else {
    iiop_ref_free(c.ref);
    iiop_client_free(c.cl);
  }
  return status;
}

int main(int argc, char **argv)
{
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2)
    return usage();
  const char *role = argv[1];
  const char *target = NULL, *wait_file = NULL;
  long calls = -1;
  int has_oneway = 0;
  int32_t oneway = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--forward-to") && i + 1 < argc)
      fwd_to = argv[++i];
    else if (!strcmp(a, "--perm"))
      fwd_perm = 1;
    else if (!strcmp(a, "--target") && i + 1 < argc)
      target = argv[++i];
    else if (!strcmp(a, "--calls") && i + 1 < argc)
      calls = strtol(argv[++i], NULL, 10);
    else if (!strcmp(a, "--oneway") && i + 1 < argc) {
      has_oneway = 1;
      oneway = (int32_t)strtol(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--wait") && i + 1 < argc)
      wait_file = argv[++i];
    else
      return usage();
  }
  char *oargv[] = { argv[0], NULL };
  if (!strcmp(role, "native-server"))
    return native_server();
  if (!strcmp(role, "corba-server"))
    return corba_server(1, oargv);
  if (!strcmp(role, "native-client") || !strcmp(role, "corba-client")) {
    if (!target || calls < 0)
      return usage();
    return run_client(role[0] == 'c', 1, oargv, target, calls, has_oneway, oneway, wait_file);
  }
  return usage();
}
