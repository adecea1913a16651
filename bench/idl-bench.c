/* idl-bench.c - the Bench::Echo server of `iiop-bench`, on the skeleton idl2c
 * generates from tests/interop/Bench.idl (bench/gen/, at build time) and
 * libcorbaorb's POA: the `ours_idl` row of `iiop-bench run`, whose server
 * instructions per call are compared with the native `ours` row (the same
 * libiiop server under a hand-written servant, bench/bench_idl.c).
 *
 *   idl-bench server --listen HOST:PORT
 *   idl-bench client --target URL|IOR --scenario ping|graph|string [--calls N]
 *                    [--warmup N] [--nodes N] [--size N] [--threads T] [--check]
 *
 * The server prints two lines, flushed, then serves until SIGINT or SIGTERM:
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
 * The client calls through the generated stubs as `iiop-bench client` does
 * (the same options for these three scenarios, the same last line):
 *   scenario=S calls=N failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B
 * --calls timed calls in all (default 1000), shared by --threads threads on
 * one reference (default 1), each thread making --warmup untimed calls
 * first; graph sends a list of --nodes Nodes (default 50), string
 * --size octets (default 65536, 'a'..'z'); --check compares every reply with
 * what was sent (ids and length of the list, the string's octets).
 *
 * Exit status: server 0 after SIGINT/SIGTERM, 1 when it cannot start;
 * client 0 every call succeeded (and matched, with --check), 1 a reply
 * differed, 3 a call failed (or the target did not resolve); 2 usage error.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <iiop/ior.h>

#include "Bench.h"
#include "benchutil.h"
#include "echo-servant.h"

#define EXIT_OK 0
#define EXIT_SERVER 1
#define EXIT_USAGE 2
#define EXIT_MISMATCH 1
#define EXIT_CALL 3

static void usage(FILE *f)
{
  fputs("usage: idl-bench server --listen HOST:PORT\n"
        "       idl-bench client --target URL|IOR --scenario ping|graph|string [options]\n"
        "  server: Bench::Echo on idl2c's skeleton; prints the corbaloc URL and the IOR,\n"
        "  one line each, then serves until SIGINT or SIGTERM.\n"
        "  client: through idl2c's stubs, as `iiop-bench client`:\n"
        "  --calls N     timed calls in all (default 1000)\n"
        "  --warmup N    untimed (checked) calls per thread first (default 0)\n"
        "  --nodes N     graph: list length (default 50)\n"
        "  --size N      string: octets (default 65536)\n"
        "  --threads T   threads sharing the reference (default 1)\n"
        "  --check       compare every reply with what was sent\n"
        "  Exit status: 0 ok, 1 a reply differed, 2 usage error, 3 a call failed.\n", f);
}

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
  bench_block_stop_signals(&stop);

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


/* ---------------------------------------------------------------- client */

enum { SC_PING, SC_GRAPH, SC_STRING };

typedef struct client_cfg {
  Bench_Echo obj;
  int sc;
  bool check;
  unsigned long warmup;
  Bench_Node *graph;          /* graph: the list sent */
  unsigned long nodes;
  char *str;                  /* string: the string sent */
  unsigned long size;
} client_cfg;

typedef struct worker {
  pthread_t th;
  const client_cfg *cfg;
  unsigned long calls;        /* timed calls to make */
  unsigned long done, failed, mismatched;
  uint64_t *lat;              /* nanoseconds per timed call */
  char why[160];              /* the first failure */
} worker;

/* One call; 0, 1 the reply differed, 3 the call failed (W->why says). */
static int one_call(worker *w, unsigned long k)
{
  const client_cfg *c = w->cfg;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  int rc = 0;
  switch (c->sc) {
  case SC_PING: {
    CORBA_long x = (CORBA_long)(k & 0x7fffffff);
    CORBA_long r = Bench_Echo_ping(c->obj, x, &ev);
    if (ev._major == CORBA_NO_EXCEPTION && c->check && r != x)
      rc = 1;
    break;
  }
  case SC_GRAPH: {
    Bench_Node *r = Bench_Echo_echoGraph(c->obj, c->graph, &ev);
    if (ev._major == CORBA_NO_EXCEPTION && c->check) {
      const Bench_Node *x = r;
      unsigned long n = 0;
      for (; x && n <= c->nodes; x = x->next, n++)
        if (x->id != (CORBA_long)n)
          break;
      if (x || n != c->nodes)
        rc = 1;
    }
    CORBA_free(r);
    break;
  }
  default: {
    CORBA_char *r = Bench_Echo_echoString(c->obj, c->str, &ev);
    if (ev._major == CORBA_NO_EXCEPTION && c->check && (!r || strcmp(r, c->str) != 0))
      rc = 1;
    CORBA_free(r);
    break;
  }
  }
  if (ev._major != CORBA_NO_EXCEPTION) {
    if (!w->why[0])
      snprintf(w->why, sizeof w->why, "%s", CORBA_exception_id(&ev));
    CORBA_exception_free(&ev);
    return 3;
  }
  if (rc && !w->why[0])
    snprintf(w->why, sizeof w->why, "reply %lu differs from what was sent", k);
  return rc;
}

static void *worker_main(void *arg)
{
  worker *w = arg;
  for (unsigned long k = 0; k < w->cfg->warmup; k++) {
    int rc = one_call(w, k);
    if (rc == 3)
      w->failed++;
    else if (rc)
      w->mismatched++;
    if (rc)
      return NULL;
  }
  for (unsigned long k = 0; k < w->calls; k++) {
    uint64_t t0 = bench_now_ns();
    int rc = one_call(w, k);
    w->lat[w->done] = bench_now_ns() - t0;
    if (rc == 3) {
      w->failed++;
      return NULL; /* as iiop-bench's client: a failed call ends the thread */
    }
    if (rc)
      w->mismatched++;
    w->done++;
  }
  return NULL;
}

static int client_main(int argc, char **argv)
{
  const char *target = NULL, *scen = NULL;
  unsigned long calls = 1000, warmup = 0, nodes = 50, size = 65536, threads = 1;
  bool check = false;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    unsigned long *num = NULL, lo = 0, hi = 0;
    if (strcmp(o, "--check") == 0) {
      check = true;
      continue;
    } else if (strcmp(o, "--help") == 0) {
      usage(stdout);
      return EXIT_OK;
    } else if (strcmp(o, "--target") == 0 && v) {
      target = v;
    } else if (strcmp(o, "--scenario") == 0 && v) {
      scen = v;
    } else if (strcmp(o, "--calls") == 0) {
      num = &calls, lo = 1, hi = 100000000;
    } else if (strcmp(o, "--warmup") == 0) {
      num = &warmup, lo = 0, hi = 100000000;
    } else if (strcmp(o, "--nodes") == 0) {
      num = &nodes, lo = 0, hi = 1000000;
    } else if (strcmp(o, "--size") == 0) {
      num = &size, lo = 0, hi = 64UL << 20;
    } else if (strcmp(o, "--threads") == 0) {
      num = &threads, lo = 1, hi = 4096;
    } else {
      return bench_usage_error("idl-bench", usage, "client: bad option or missing argument: %s", o);
    }
    if (num && (!v || !bench_parse_ulong(v, lo, hi, num)))
      return bench_usage_error("idl-bench", usage, "client: %s wants a number from %lu to %lu, "
                               "not '%s'", o, lo, hi, v ? v : "");
    i++;
  }
  if (!target || !scen)
    return bench_usage_error("idl-bench", usage, "client: --target and --scenario are required");
  client_cfg cfg = { .check = check, .warmup = warmup, .nodes = nodes, .size = size };
  if (strcmp(scen, "ping") == 0)
    cfg.sc = SC_PING;
  else if (strcmp(scen, "graph") == 0)
    cfg.sc = SC_GRAPH;
  else if (strcmp(scen, "string") == 0)
    cfg.sc = SC_STRING;
  else
    return bench_usage_error("idl-bench", usage, "client: --scenario: ping, graph or string, "
                             "not '%s'", scen);
  signal(SIGPIPE, SIG_IGN);

  int rc = EXIT_OK;
  char a0[] = "idl-bench";
  char *oargv[] = { a0, NULL };
  int oargc = 1;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&oargc, oargv, "", &ev);
  if (failed(&ev, "ORB_init"))
    return EXIT_CALL;
  cfg.obj = CORBA_ORB_string_to_object(orb, target, &ev);
  if (ev._major != CORBA_NO_EXCEPTION || cfg.obj == CORBA_OBJECT_NIL) {
    fprintf(stderr, "call failed: resolving the target: %s\n",
            ev._major != CORBA_NO_EXCEPTION ? CORBA_exception_id(&ev) : "a nil reference");
    CORBA_exception_free(&ev);
    CORBA_ORB_destroy(orb, &ev);
    return EXIT_CALL;
  }
  /* what is sent: a list 0..nodes-1 in one graph, or 'a'..'z' repeated */
  if (cfg.sc == SC_GRAPH) {
    Bench_Node *last = NULL;
    for (unsigned long k = 0; k < nodes; k++) {
      Bench_Node *x = cfg.graph ? Bench_Node__alloc_in(cfg.graph) : Bench_Node__alloc();
      if (!x) {
        fprintf(stderr, "idl-bench: out of memory\n");
        return EXIT_CALL;
      }
      x->id = (CORBA_long)k;
      if (last)
        last->next = x;
      else
        cfg.graph = x;
      last = x;
    }
  } else if (cfg.sc == SC_STRING) {
    cfg.str = CORBA_string_alloc((CORBA_unsigned_long)size);
    if (!cfg.str) {
      fprintf(stderr, "idl-bench: out of memory\n");
      return EXIT_CALL;
    }
    for (unsigned long k = 0; k < size; k++)
      cfg.str[k] = (char)('a' + k % 26);
    cfg.str[size] = 0;
  }

  worker *w = calloc(threads, sizeof *w);
  uint64_t *lat = calloc(calls, sizeof *lat);
  if (!w || !lat) {
    fprintf(stderr, "idl-bench: out of memory\n");
    return EXIT_CALL;
  }
  unsigned long at = 0;
  for (unsigned long t = 0; t < threads; t++) {
    w[t].cfg = &cfg;
    w[t].calls = calls / threads + (t < calls % threads);
    w[t].lat = lat + at;
    at += w[t].calls;
  }
  uint64_t t0 = bench_now_ns();
  unsigned long started = 0;
  for (; started < threads; started++)
    if (pthread_create(&w[started].th, NULL, worker_main, &w[started]) != 0)
      break;
  for (unsigned long t = 0; t < started; t++)
    pthread_join(w[t].th, NULL);
  double wall = (double)(bench_now_ns() - t0) / 1e9;
  /* the timed latencies, packed, then sorted */
  unsigned long done = 0, nfailed = 0, mism = 0;
  for (unsigned long t = 0; t < started; t++) {
    memmove(lat + done, w[t].lat, w[t].done * sizeof *lat);
    done += w[t].done;
    nfailed += w[t].failed;
    mism += w[t].mismatched;
    if (w[t].why[0])
      fprintf(stderr, "%s: thread %lu: %s\n", w[t].failed ? "call failed" : "mismatch", t,
              w[t].why);
  }
  if (started < threads) {
    fprintf(stderr, "idl-bench: could not start thread %lu\n", started);
    nfailed++;
  }
  qsort(lat, done, sizeof *lat, bench_cmp_u64);
  printf("scenario=%s calls=%lu failed=%lu wall_s=%.6f calls_per_s=%.1f p50_us=%.1f "
         "p99_us=%.1f\n", scen, done, nfailed + mism, wall, wall > 0 ? (double)done / wall : 0.0,
         bench_percentile_us(lat, done, 0.50), bench_percentile_us(lat, done, 0.99));
  fflush(stdout);
  rc = nfailed ? EXIT_CALL : mism ? EXIT_MISMATCH : EXIT_OK;
  free(lat);
  free(w);
  CORBA_free(cfg.graph);
  CORBA_free(cfg.str);
  CORBA_Object_release(cfg.obj, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "server") == 0)
    return server_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "client") == 0)
    return client_main(argc - 1, argv + 1);
  if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  usage(stderr);
  return EXIT_USAGE;
}
