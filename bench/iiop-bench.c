/* iiop-bench.c - Bench::Echo (tests/interop/Bench.idl) over IIOP: a server and a
 * load-generating client, each the counterpart of the omniORB peers in
 * tests/interop (same command-line contracts), for benchmarks and for the
 * interop matrix (tests/interop.test); and BenchAny::AnyEcho (its Any cases,
 * servant and stub are bench/any_cases.c's).
 *
 *   iiop-bench server --listen HOST:PORT [--fragment-size N]
 *                     [--tls-cert F --tls-key F [--tls-port P]]
 *                     [--no-trunc-type] [--pool-threshold N [--pool-threads N]]
 *                     [--count-allocs] [--ldouble-x87] [--any-reencode]
 *   iiop-bench client --target URL|IOR --scenario S [--calls N] [--nodes N]
 *                     [--size N] [--threads T] [--connections N] [--calls-per-connection N]
 *                     [--check] [--cyclic] [--mixed]
 *                     [--expect-trunc] [--no-trunc-type] [--warmup N]
 *                     [--fragment-size N] [--timeout-ms N] [--tls-ca F]
 *                     [--tls-no-verify] [--count-allocs] [--ldouble-x87] [--case NAME]
 *
 * See usage() for the details.  The server prints three lines, flushed, then
 * serves until SIGINT or SIGTERM:
 *   corbaloc:iiop:1.2@HOST:PORT/Echo
 *   IOR:...
 *   AnyEcho IOR:...      (object key "AnyEcho": bench/any_cases.h)
 * The client's standard output ends with one line:
 *   scenario=S calls=N failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B
 * Client exit status: 0 every call succeeded (and matched, with --check); 1
 * a reply differed; 2 usage error; 3 a call failed (or the target did not
 * resolve).  Server: 0 after SIGINT/SIGTERM, 1 when it cannot start, 2
 * usage error.
 *
 * Allocation counting (--count-allocs, or IIOP_BENCH_COUNT_ALLOCS=1 in the
 * environment): every allocation of libcdr and libiiop goes through a
 * cdr_mem_counter installed as the global allocator before anything else
 * runs; the client reports the mallocs of its timed calls per call (after
 * at least two warm-up calls per thread: connection, pools and buffers are
 * set up by then), the server the mallocs per request after its first 100
 * requests (connections accepted later are counted too).  Steady state is
 * 0: the call objects, output buffers, arenas and indirection tables all
 * come from pools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "benchutil.h"
#include "bench_idl.h"
#include "any_cases.h"
#include "run.h"

#define EXIT_OK 0
#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_FAILED 3
#define EXIT_SERVER 1   /* the server could not start (as omni-server) */
#define MAX_REPORTS 5
#define MAX_THREADS 4096
#define SERVER_WARM_CALLS 100

/* ---------------------------------------------------------------- common */

static cdr_mem_counter g_counter;
static bool g_count_allocs;

static uint64_t counter_mallocs(void) { return __atomic_load_n(&g_counter.mallocs, __ATOMIC_RELAXED); }
static uint64_t counter_frees(void) { return __atomic_load_n(&g_counter.frees, __ATOMIC_RELAXED); }
static uint64_t counter_bytes(void) { return __atomic_load_n(&g_counter.bytes, __ATOMIC_RELAXED); }

/* Install the counting allocator: before any other libcdr/libiiop call. */
static void count_allocs_start(void)
{
  cdr_mem_counter_init(&g_counter, NULL);
  cdr_mem_set_global(&g_counter.alloc);
}

static void usage(FILE *f)
{
  fputs("usage: iiop-bench server --listen HOST:PORT [options]\n"
        "       iiop-bench client --target URL|IOR --scenario S [options]\n"
        "       iiop-bench run [--quick] [--json FILE] [--instructions] ...  (run --help)\n"
        "server options:\n"
        "  --listen HOST:PORT  address to listen on (PORT 0: a free port; IPv6 as [ADDR]:PORT)\n"
        "  --fragment-size N   octets per GIOP fragment sent (default: none; whole up to 2 MiB, then 8192)\n"
        "  --tls-cert F --tls-key F  also serve TLS (certificate and key, PEM)\n"
        "  --tls-port P        TLS port (default 0: a free port)\n"
        "  --no-trunc-type     do not register TruncNode: truncate TruncNodes to Nodes\n"
        "  --pool-threshold N  past N connections with a thread each, serve new ones from\n"
        "                      an epoll worker pool (default 0: a thread per connection)\n"
        "  --pool-threads N    workers of that pool (default 0: one per online CPU)\n"
        "  --count-allocs      print mallocs per request on stderr at exit\n"
        "  --ldouble-x87       AnyEcho: long double as omniORB's x87 image\n"
        "  --any-reencode      AnyEcho: encode the echoed any again, not its octets\n"
        "  --contexts          print each service context ID requests carry (the first\n"
        "                      time it is seen) on stderr, and add the context\n"
        "                      0x49420003 (4 octets: GIOP 1.0/1.1 replies also get the\n"
        "                      alignment context 0x49495000) to every reply\n"
        "  Prints the corbaloc URL and the IOR, one line each, then 'AnyEcho IOR:...',\n"
        "  then serves until SIGINT or SIGTERM.\n"
        "client options:\n"
        "  --target URL|IOR    IOR:... or corbaloc:... (wstrings need the IOR)\n"
        "  --scenario S        ping graph string wstring pair subgraph truncgraph any\n"
        "                      (any: echoAny of each Any case; the target is an AnyEcho)\n"
        "  --calls N           timed calls in all (default 1000)\n"
        "  --nodes N           list length for graph/subgraph/truncgraph/pair (default 50)\n"
        "  --size N            string octets / wstring characters (default 65536)\n"
        "  --threads T         threads sharing the reference (default 1)\n"
        "  --connections N     connections to the server at most (max_connections;\n"
        "                      default: the library's, IIOP_CLIENT_CONNECTIONS_DEFAULT)\n"
        "  --calls-per-connection N  calls in flight on each before another is opened\n"
        "                      (calls_per_connection; default: the library's, 1)\n"
        "  --check             compare every reply with what was sent\n"
        "  --cyclic            the last node points back at the first\n"
        "  --mixed             truncgraph: ids 0,3,6.. TruncNode, 1,4,.. Node, 2,5,.. SubNode\n"
        "  --expect-trunc      with --check: TruncNodes must come back as Nodes\n"
        "  --no-trunc-type     do not register TruncNode: truncate TruncNodes in replies\n"
        "  --warmup N          untimed (checked) calls per thread first (default 0;\n"
        "                      at least 2 with --count-allocs)\n"
        "  --fragment-size N   octets per GIOP fragment sent (default: none; whole up to 2 MiB)\n"
        "  --timeout-ms N      per call (default 60000; 0: none)\n"
        "  --tls-ca F          CA certificates: use TLS where the IOR offers it\n"
        "  --tls-no-verify     do not verify the server's certificate (tests only)\n"
        "  --count-allocs      print mallocs per timed call on stderr\n"
        "  --ldouble-x87       any: long double as omniORB's x87 image\n"
        "  --case NAME         any: only the case NAME (default: each case in turn;\n"
        "                      --calls defaults to one call per case)\n"
        "  --contexts          send the service contexts 0x49420001 (5 octets, the\n"
        "                      reference's) and 0x49420002 (3 octets, each call's, from an\n"
        "                      interceptor); print each reply context ID (first time seen)\n"
        "  The last line of standard output is\n"
        "  scenario=S calls=N failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B\n"
        "  Exit status: 0 all calls succeeded and matched, 1 a reply differed,\n"
        "  2 usage error, 3 a call failed.\n", f);
}

/* ---------------------------------------------------------------- service contexts */

/* --contexts: each context ID seen (requests on the server, replies on the
 * client) printed once on stderr. */
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t ctx_seen[64];
static unsigned nctx_seen;

static void ctx_note(const char *what, const giop_service_context *v, uint32_t n, const char *op)
{
  pthread_mutex_lock(&ctx_mu);
  for (uint32_t k = 0; k < n; k++) {
    unsigned j = 0;
    while (j < nctx_seen && ctx_seen[j] != v[k].id)
      j++;
    if (j < nctx_seen || nctx_seen == 64)
      continue;
    ctx_seen[nctx_seen++] = v[k].id;
    fprintf(stderr, "iiop-bench: %s service context 0x%08" PRIx32 " (%" PRIu32 " octets) in %s\n",
            what, v[k].id, v[k].len, op);
  }
  pthread_mutex_unlock(&ctx_mu);
}

static int srv_ctx_receive(void *ud, iiop_request *req)
{
  (void)ud;
  const giop_service_context *v;
  uint32_t n = iiop_request_service_contexts(req, &v);
  ctx_note("request", v, n, iiop_request_operation(req));
  return 0;
}

static void srv_ctx_send(void *ud, iiop_request *req, uint32_t status)
{
  (void)ud, (void)status;
  if (iiop_request_add_reply_service_context(req, 0x49420003u, "rply", 4) != CDR_OK)
    fprintf(stderr, "iiop-bench: --contexts: cannot add the reply context\n");
}

static int cli_ctx_send(void *ud, iiop_call *call)
{
  (void)ud;
  return iiop_call_add_service_context(call, 0x49420002u, "\x07\x08\x09", 3);
}

static void cli_ctx_receive(void *ud, iiop_call *call, int status)
{
  (void)ud, (void)status;
  const giop_service_context *v;
  uint32_t n = iiop_call_reply_service_contexts(call, &v);
  ctx_note("reply", v, n, iiop_call_operation(call));
}

/* ---------------------------------------------------------------- server */

static unsigned long srv_calls;              /* atomic */
static unsigned long srv_warm_calls;         /* written once, at call SERVER_WARM_CALLS */
static uint64_t srv_warm_mallocs;
static unsigned long srv_last_calls;         /* atomic: the latest snapshot */
static uint64_t srv_last_mallocs;            /* atomic */

static void srv_count(void)
{
  unsigned long n = __atomic_add_fetch(&srv_calls, 1, __ATOMIC_RELAXED);
  if (!g_count_allocs)
    return;
  uint64_t m = counter_mallocs();
  if (n == SERVER_WARM_CALLS) {
    __atomic_store_n(&srv_warm_mallocs, m, __ATOMIC_RELAXED);
    __atomic_store_n(&srv_warm_calls, n, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&srv_last_mallocs, m, __ATOMIC_RELAXED);
  __atomic_store_n(&srv_last_calls, n, __ATOMIC_RELAXED);
}

static int srv_ping(Bench_Echo_servant *self, iiop_request *req, int32_t x, int32_t *ret)
{
  srv_count();
  *ret = x;
  return CDR_OK;
}

/* The reply is the graph received, so sharing and cycles go back out as
 * indirections. */
static int srv_echoGraph(Bench_Echo_servant *self, iiop_request *req, Bench_Node *head,
                         Bench_Node **ret)
{
  srv_count();
  *ret = head;
  return CDR_OK;
}

static int srv_echoString(Bench_Echo_servant *self, iiop_request *req, const char *s,
                          uint32_t len, const char **ret, size_t *ret_len)
{
  srv_count();
  *ret = s;
  *ret_len = len;
  return CDR_OK;
}

static int srv_echoWString(Bench_Echo_servant *self, iiop_request *req, cdr_wchar *s,
                           uint32_t len, const cdr_wchar **ret, size_t *ret_len)
{
  srv_count();
  *ret = s;
  *ret_len = len;
  return CDR_OK;
}

static int srv_echoPair(Bench_Echo_servant *self, iiop_request *req, Bench_Pair *p,
                        Bench_Pair *ret)
{
  srv_count();
  *ret = *p; /* a == b stays a == b */
  return CDR_OK;
}

static const Bench_Echo_ops srv_ops = {
  srv_ping, srv_echoGraph, srv_echoString, srv_echoWString, srv_echoPair,
};

/* Split "HOST:PORT" or "[V6]:PORT" (HOST copied into BUF). */
static bool split_hostport(const char *s, char *buf, size_t bufsz, unsigned long *port)
{
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s)
    return false;
  size_t hl = (size_t)(colon - s);
  if (hl + 1 > bufsz)
    return false;
  if (s[0] == '[') {
    if (hl < 3 || s[hl - 1] != ']')
      return false;
  } else if (memchr(s, ':', hl)) {
    return false; /* a bare IPv6 address: its port would be ambiguous */
  }
  memcpy(buf, s, hl);
  buf[hl] = 0;
  return bench_parse_ulong(colon + 1, 0, 65535, port);
}

static int server_main(int argc, char **argv)
{
  enum { O_LISTEN = 256, O_FRAG, O_CERT, O_KEY, O_TLSPORT, O_NOTRUNC, O_COUNT, O_POOLTH,
         O_POOLN, O_HELP, O_X87, O_REENC, O_CTX };
  static const struct option lo[] = {
    { "listen", required_argument, NULL, O_LISTEN },
    { "fragment-size", required_argument, NULL, O_FRAG },
    { "tls-cert", required_argument, NULL, O_CERT },
    { "tls-key", required_argument, NULL, O_KEY },
    { "tls-port", required_argument, NULL, O_TLSPORT },
    { "no-trunc-type", no_argument, NULL, O_NOTRUNC },
    { "count-allocs", no_argument, NULL, O_COUNT },
    { "pool-threshold", required_argument, NULL, O_POOLTH },
    { "pool-threads", required_argument, NULL, O_POOLN },
    { "ldouble-x87", no_argument, NULL, O_X87 },
    { "any-reencode", no_argument, NULL, O_REENC },
    { "contexts", no_argument, NULL, O_CTX },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
  };
  static BenchAny_AnyEcho_servant any_servant = { .on_request = srv_count };
  const char *listen = NULL, *cert = NULL, *key = NULL;
  unsigned long frag = 0, tls_port = 0, pool_threshold = 0, pool_threads = 0;
  bool no_trunc = false, contexts = false;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
    case O_LISTEN: listen = optarg; break;
    case O_FRAG:
      if (!bench_parse_ulong(optarg, 64, UINT32_MAX, &frag))
        return bench_usage_error("iiop-bench", usage, "--fragment-size: a number of octets >= 64, not '%s'", optarg);
      break;
    case O_CERT: cert = optarg; break;
    case O_KEY: key = optarg; break;
    case O_TLSPORT:
      if (!bench_parse_ulong(optarg, 0, 65535, &tls_port))
        return bench_usage_error("iiop-bench", usage, "--tls-port: a port number, not '%s'", optarg);
      break;
    case O_NOTRUNC: no_trunc = true; break;
    case O_COUNT: g_count_allocs = true; break;
    case O_POOLTH:
      if (!bench_parse_ulong(optarg, 0, UINT32_MAX, &pool_threshold))
        return bench_usage_error("iiop-bench", usage, "--pool-threshold: a number of connections, not '%s'", optarg);
      break;
    case O_POOLN:
      if (!bench_parse_ulong(optarg, 0, 4096, &pool_threads))
        return bench_usage_error("iiop-bench", usage, "--pool-threads: a number of threads, not '%s'", optarg);
      break;
    case O_X87: any_servant.flags |= ANY_X87; break;
    case O_REENC: any_servant.flags |= ANY_REENCODE; break;
    case O_CTX: contexts = true; break;
    case O_HELP: usage(stdout); return EXIT_OK;
    default:
      return bench_usage_error("iiop-bench", usage, "server: bad option or missing argument: %s", argv[optind - 1]);
    }
  }
  if (optind < argc)
    return bench_usage_error("iiop-bench", usage, "server: unexpected argument '%s'", argv[optind]);
  if (!listen)
    return bench_usage_error("iiop-bench", usage, "server: --listen HOST:PORT is required");
  if ((cert != NULL) != (key != NULL))
    return bench_usage_error("iiop-bench", usage, "server: --tls-cert and --tls-key go together");
  char host[256];
  unsigned long port;
  if (!split_hostport(listen, host, sizeof host, &port))
    return bench_usage_error("iiop-bench", usage, "server: --listen wants HOST:PORT or [IPV6]:PORT, not '%s'", listen);

  if (g_count_allocs)
    count_allocs_start();

  /* Block the stop signals before any thread starts (they inherit the
   * mask); this thread waits for them with sigwait(). */
  sigset_t stop;
  bench_block_stop_signals(&stop);

  int rc = Bench_register(NULL, no_trunc ? BENCH_REG_NO_TRUNC : 0);
  if (rc != CDR_OK) {
    fprintf(stderr, "iiop-bench: registering the value types: %s\n", cdr_strerror(rc));
    return EXIT_SERVER;
  }
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.host = host;
  o.port = (uint16_t)port;
  if (frag)
    o.fragment_size = frag;
  o.tls_cert = cert;
  o.tls_key = key;
  o.tls_port = (uint16_t)tls_port;
  o.pool_threshold = (uint32_t)pool_threshold;
  o.pool_threads = (uint32_t)pool_threads;
  o.batch_replies = 1;  /* the thread rows pipeline on one connection; one caller never holds */
  static Bench_Echo_servant servant = { &srv_ops };
  iiop_server *s = NULL;
  rc = iiop_server_new(&o, &s);
  if (rc == CDR_OK)
    rc = iiop_server_activate(s, "Echo", 4, &Bench_Echo_interface, &servant);
  if (rc == CDR_OK)
    rc = iiop_server_activate(s, "AnyEcho", 7, &BenchAny_AnyEcho_interface, &any_servant);
  static const iiop_server_interceptor srv_ctx = { srv_ctx_receive, srv_ctx_send };
  if (rc == CDR_OK && contexts)
    rc = iiop_server_add_interceptor(s, &srv_ctx, NULL);
  if (rc == CDR_OK)
    rc = iiop_server_start(s);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL, *any_ior = NULL;
  iiop_ior parsed;
  const iiop_profile *prof = NULL;
  if (rc == CDR_OK)
    rc = iiop_server_ior(s, "Echo", 4, &a, &ior);
  if (rc == CDR_OK)
    rc = iiop_server_ior(s, "AnyEcho", 7, &a, &any_ior);
  /* The host the IOR carries (the host name when listening on a wildcard). */
  if (rc == CDR_OK && iiop_ior_from_string(ior, &a, &parsed) == CDR_OK)
    prof = iiop_ior_iiop_profile(&parsed);
  if (rc != CDR_OK || !prof) {
    fprintf(stderr, "iiop-bench: server on %s: %s\n", listen,
            rc != CDR_OK ? cdr_strerror(rc) : "no IIOP profile in our own IOR");
    cdr_arena_free(&a);
    iiop_server_free(s);
    return EXIT_SERVER;
  }
  bool v6 = strchr(prof->host, ':') != NULL && prof->host[0] != '[';
  printf("corbaloc:iiop:1.2@%s%s%s:%u/Echo\n%s\n", v6 ? "[" : "", prof->host, v6 ? "]" : "",
         (unsigned)iiop_server_port(s), ior);
  printf("AnyEcho %s\n", any_ior);
  fflush(stdout);
  cdr_arena_free(&a);

  int sig = 0;
  while (sigwait(&stop, &sig) != 0)
    ;
  /* CloseConnection on every connection, requests in progress answered. */
  iiop_server_shutdown(s);
  iiop_server_free(s);
  if (g_count_allocs) {
    unsigned long wc = __atomic_load_n(&srv_warm_calls, __ATOMIC_ACQUIRE);
    unsigned long lc = __atomic_load_n(&srv_last_calls, __ATOMIC_RELAXED);
    uint64_t wm = __atomic_load_n(&srv_warm_mallocs, __ATOMIC_RELAXED);
    uint64_t lm = __atomic_load_n(&srv_last_mallocs, __ATOMIC_RELAXED);
    if (wc && lc > wc)
      fprintf(stderr, "allocs: server: %.3f mallocs/request (%" PRIu64 " mallocs in requests "
              "%lu..%lu; %lu requests, %" PRIu64 " mallocs in all)\n",
              (double)(lm - wm) / (double)(lc - wc), lm - wm, wc + 1, lc,
              __atomic_load_n(&srv_calls, __ATOMIC_RELAXED), counter_mallocs());
    else
      fprintf(stderr, "allocs: server: %lu requests (fewer than %d: no steady-state figure), "
              "%" PRIu64 " mallocs in all\n", __atomic_load_n(&srv_calls, __ATOMIC_RELAXED),
              SERVER_WARM_CALLS + 1, counter_mallocs());
  }
  return EXIT_OK;
}

/* ---------------------------------------------------------------- client */

enum { SC_PING, SC_GRAPH, SC_STRING, SC_WSTRING, SC_PAIR, SC_SUBGRAPH, SC_TRUNCGRAPH, SC_ANY };
static const char *const scenario_names[] = { "ping", "graph", "string", "wstring",
                                              "pair", "subgraph", "truncgraph", "any" };

static struct {
  const char *target;
  int scenario;
  unsigned long calls, nodes, size, threads, warmup, timeout_ms, frag, conns, per_conn;
  bool check, cyclic, mixed, expect_trunc, no_trunc, tls_no_verify, calls_given, contexts;
  const char *tls_ca;
  unsigned any_flags;
} opt = { .calls = 1000, .nodes = 50, .size = 65536, .threads = 1, .timeout_ms = 60000,
          .scenario = -1 };

static iiop_ref *g_ref;

/* The arguments, built once and shared read-only by the threads. */
typedef union anynode {
  Bench_Node n;
  Bench_SubNode s;
  Bench_TruncNode t;
} anynode;
static anynode *g_nodes;
static Bench_Node *g_head;
static Bench_Pair g_pair;
static char *g_string;
static cdr_wchar *g_wstring;

static unsigned long g_reported;            /* atomic */
static int g_any_failed, g_any_mismatch;    /* atomic */
static pthread_mutex_t g_report_mu = PTHREAD_MUTEX_INITIALIZER;

static void report(const char *fmt, ...)
{
  if (__atomic_fetch_add(&g_reported, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
    return;
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&g_report_mu);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  pthread_mutex_unlock(&g_report_mu);
  va_end(ap);
}

static bool is_graph_scenario(int s)
{
  return s == SC_GRAPH || s == SC_SUBGRAPH || s == SC_TRUNCGRAPH || s == SC_PAIR;
}

/* The type node K was sent with. */
static const cdr_value_type *sent_type(unsigned long k)
{
  switch (opt.scenario) {
  case SC_SUBGRAPH: return &Bench_SubNode_vt;
  case SC_TRUNCGRAPH:
    if (opt.mixed)
      return k % 3 == 0 ? &Bench_TruncNode_vt : k % 3 == 1 ? &Bench_Node_vt : &Bench_SubNode_vt;
    return &Bench_TruncNode_vt;
  default: return &Bench_Node_vt;
  }
}

static int32_t extra_of(const cdr_value_type *t, unsigned long k)
{
  return (int32_t)(k * 7 + (t == &Bench_SubNode_vt ? 1 : 3));
}

static int build_args(void)
{
  if (is_graph_scenario(opt.scenario)) {
    unsigned long n = opt.nodes;
    if (n) {
      g_nodes = calloc(n, sizeof *g_nodes);
      if (!g_nodes)
        return -1;
    }
    for (unsigned long k = 0; k < n; k++) {
      const cdr_value_type *t = sent_type(k);
      anynode *a = &g_nodes[k];
      if (t == &Bench_SubNode_vt)
        Bench_SubNode_init(&a->s, (int32_t)k, extra_of(t, k));
      else if (t == &Bench_TruncNode_vt)
        Bench_TruncNode_init(&a->t, (int32_t)k, extra_of(t, k));
      else
        Bench_Node_init(&a->n, (int32_t)k);
      if (k)
        g_nodes[k - 1].n.next = &a->n;
    }
    g_head = n ? &g_nodes[0].n : NULL;
    if (opt.cyclic && n)
      g_nodes[n - 1].n.next = g_head;
    g_pair.a = g_pair.b = g_head;
  } else if (opt.scenario == SC_STRING) {
    g_string = malloc(opt.size + 1);
    if (!g_string)
      return -1;
    for (unsigned long k = 0; k < opt.size; k++)
      g_string[k] = (char)('a' + k % 26);
    g_string[opt.size] = 0;
  } else if (opt.scenario == SC_WSTRING) {
    /* ASCII, Latin-1, BMP CJK and characters outside the BMP, as omni-client. */
    static const cdr_wchar pat[] = { 'a', 0xE9, 0x4E2D, 0x1F600, 'z', 0x10FFFD, 0x20AC, 0x1D11E };
    g_wstring = malloc((opt.size + 1) * sizeof *g_wstring);
    if (!g_wstring)
      return -1;
    for (unsigned long k = 0; k < opt.size; k++)
      g_wstring[k] = pat[k % (sizeof pat / sizeof pat[0])];
    g_wstring[opt.size] = 0;
  }
  return 0;
}

/* Compare a reply list with the one sent, by shape: ids 0..N-1 in order,
 * actual types (with --expect-trunc a TruncNode must have become a Node),
 * extra, and where the last node points: NULL, or (--cyclic) back at the
 * reply's own head, not at a copy.  Sent ids are distinct, so a reply that
 * shared nodes where the sent list did not would show a wrong id.  Returns
 * true when they match; WHY says how they differ. */
static bool same_graph(const Bench_Node *reply, char *why, size_t whysz)
{
  unsigned long n = opt.nodes;
  const Bench_Node *r = reply;
  for (unsigned long k = 0; k < n; k++) {
    if (!r) {
      snprintf(why, whysz, "reply list ends after %lu nodes, sent %lu", k, n);
      return false;
    }
    if (r->id != (int32_t)k) {
      snprintf(why, whysz, "node %lu: id %" PRId32 ", expected %lu", k, r->id, k);
      return false;
    }
    const cdr_value_type *st = sent_type(k);
    const cdr_value_type *want = st == &Bench_TruncNode_vt && opt.expect_trunc ? &Bench_Node_vt : st;
    const cdr_value_type *got = r->hdr.type;
    if (got != want) {
      snprintf(why, whysz, "node %lu (id %lu): type %s, expected %s", k, k,
               got ? got->name : "(none)", want->name);
      return false;
    }
    if (want != &Bench_Node_vt) {
      int32_t e = ((const Bench_SubNode *)r)->extra; /* SubNode and TruncNode share the layout */
      if (e != extra_of(want, k)) {
        snprintf(why, whysz, "node %lu (id %lu): extra %" PRId32 ", expected %" PRId32, k, k, e,
                 extra_of(want, k));
        return false;
      }
    }
    r = r->next;
  }
  if (opt.cyclic && n) {
    if (r != reply) {
      if (r)
        snprintf(why, whysz, "cycle lost: node %lu points at a value with id %" PRId32
                 ", not back at the head", n - 1, r->id);
      else
        snprintf(why, whysz, "cycle lost: node %lu's next is null", n - 1);
      return false;
    }
  } else if (r) {
    snprintf(why, whysz, "reply list longer than the %lu nodes sent", n);
    return false;
  }
  return true;
}

static void report_failure(int rc, iiop_call *call)
{
  const giop_system_exception *e = call ? iiop_call_exception(call) : NULL;
  static const char *const completion[] = { "YES", "NO", "MAYBE" };
  if (e) {
    const char *name = giop_system_exception_name(e->repo_id, strlen(e->repo_id));
    report("call failed: system exception CORBA::%s minor=0x%08" PRIx32 " completed=%s%s%s%s",
           name ? name : e->repo_id, e->minor, e->completed <= 2 ? completion[e->completed] : "?",
           rc < 0 ? " (local: " : "", rc < 0 ? cdr_strerror(rc) : "", rc < 0 ? ")" : "");
  } else if (rc == IIOP_R_USER_EXCEPTION) {
    report("call failed: user exception (Bench::Echo declares none)");
  } else {
    const char *name = cdr_status_exception(rc);
    report("call failed: %s%s%s (%s)", name ? "CORBA::" : "", name ? name : "error",
           rc == CDR_E_IO || rc == CDR_E_CLOSED || rc == CDR_E_TLS ? " I/O error" : "",
           cdr_strerror(rc));
  }
}

/* One call with argument index I: 0 matched (or not checked), EXIT_MISMATCH,
 * EXIT_FAILED. */
static int one_call(unsigned long i)
{
  iiop_call *call = NULL;
  int rc;
  bool ok = true;
  char why[256];
  switch (opt.scenario) {
  case SC_ANY: {  /* any_case_call() prints its own failures, one line per case */
    int res = any_case_call(g_ref, i, opt.check, opt.any_flags);
    if (res)
      __atomic_store_n(res == EXIT_MISMATCH ? &g_any_mismatch : &g_any_failed, 1, __ATOMIC_RELAXED);
    return res;
  }
  case SC_PING: {
    int32_t x = (int32_t)i, y = 0;
    rc = Bench_Echo_ping(g_ref, x, &y, &call);
    if (rc == CDR_OK && opt.check && y != x) {
      snprintf(why, sizeof why, "ping returned %" PRId32 ", sent %" PRId32, y, x);
      ok = false;
    }
    break;
  }
  case SC_GRAPH:
  case SC_SUBGRAPH:
  case SC_TRUNCGRAPH: {
    Bench_Node *r = NULL;
    rc = Bench_Echo_echoGraph(g_ref, g_head, &r, &call);
    if (rc == CDR_OK && opt.check)
      ok = same_graph(r, why, sizeof why);
    break;
  }
  case SC_PAIR: {
    Bench_Pair r = { NULL, NULL };
    rc = Bench_Echo_echoPair(g_ref, &g_pair, &r, &call);
    if (rc == CDR_OK && opt.check) {
      if (r.a != r.b) {
        snprintf(why, sizeof why, "pair: reply a and b are different values (sharing lost)");
        ok = false;
      } else if (!same_graph(r.a, why + 8, sizeof why - 8)) {
        memcpy(why, "pair.a: ", 8);
        ok = false;
      }
    }
    break;
  }
  case SC_STRING: {
    const char *r = NULL;
    uint32_t n = 0;
    rc = Bench_Echo_echoString(g_ref, g_string, opt.size, &r, &n, &call);
    if (rc == CDR_OK && opt.check && (n != opt.size || memcmp(r, g_string, n) != 0)) {
      size_t j = 0;
      while (j < n && j < opt.size && r[j] == g_string[j])
        j++;
      snprintf(why, sizeof why, "string: reply length %" PRIu32 ", sent %lu, first difference "
               "at %zu", n, opt.size, j);
      ok = false;
    }
    break;
  }
  case SC_WSTRING:
  default: {
    cdr_wchar *r = NULL;
    uint32_t n = 0;
    rc = Bench_Echo_echoWString(g_ref, g_wstring, opt.size, &r, &n, &call);
    if (rc == CDR_OK && opt.check
        && (n != opt.size || memcmp(r, g_wstring, (size_t)n * sizeof *r) != 0)) {
      size_t j = 0;
      while (j < n && j < opt.size && r[j] == g_wstring[j])
        j++;
      snprintf(why, sizeof why, "wstring: reply has %" PRIu32 " characters, sent %lu, first "
               "difference at %zu (got U+%04" PRIX32 ", sent U+%04" PRIX32 ")", n, opt.size, j,
               j < n ? r[j] : 0, j < opt.size ? g_wstring[j] : 0);
      ok = false;
    }
    break;
  }
  }
  int res = 0;
  if (rc != CDR_OK) {
    report_failure(rc, call);
    __atomic_store_n(&g_any_failed, 1, __ATOMIC_RELAXED);
    res = EXIT_FAILED;
  } else if (!ok) {
    report("reply differs: %s", why);
    __atomic_store_n(&g_any_mismatch, 1, __ATOMIC_RELAXED);
    res = EXIT_MISMATCH;
  }
  if (call)
    iiop_call_end(call);
  return res;
}

typedef struct worker {
  pthread_t th;
  unsigned long first, count, failed;
  uint64_t *lat;              /* ns per timed call, preallocated */
} worker;

static pthread_barrier_t g_warm_done, g_go;

static void *worker_main(void *arg)
{
  worker *w = arg;
  /* Warm-up calls are checked (a failure still sets the exit status) but
   * not counted among the timed calls. */
  for (unsigned long k = 0; k < opt.warmup; k++)
    (void)one_call(w->first + k);
  pthread_barrier_wait(&g_warm_done);
  pthread_barrier_wait(&g_go);
  for (unsigned long k = 0; k < w->count; k++) {
    uint64_t t0 = bench_now_ns();
    if (one_call(w->first + k) != 0)
      w->failed++;
    w->lat[k] = bench_now_ns() - t0;
  }
  return NULL;
}

static int client_main(int argc, char **argv)
{
  enum { O_TARGET = 256, O_SCEN, O_CALLS, O_NODES, O_SIZE, O_THREADS, O_CHECK, O_CYCLIC,
         O_MIXED, O_EXPECT, O_NOTRUNC, O_WARMUP, O_FRAG, O_TIMEOUT, O_CA, O_NOVERIFY, O_COUNT,
         O_HELP, O_X87, O_CASE, O_CTX, O_CONNS, O_PERCONN };
  static const struct option lo[] = {
    { "target", required_argument, NULL, O_TARGET },
    { "scenario", required_argument, NULL, O_SCEN },
    { "calls", required_argument, NULL, O_CALLS },
    { "nodes", required_argument, NULL, O_NODES },
    { "size", required_argument, NULL, O_SIZE },
    { "threads", required_argument, NULL, O_THREADS },
    { "connections", required_argument, NULL, O_CONNS },
    { "calls-per-connection", required_argument, NULL, O_PERCONN },
    { "check", no_argument, NULL, O_CHECK },
    { "cyclic", no_argument, NULL, O_CYCLIC },
    { "mixed", no_argument, NULL, O_MIXED },
    { "expect-trunc", no_argument, NULL, O_EXPECT },
    { "no-trunc-type", no_argument, NULL, O_NOTRUNC },
    { "warmup", required_argument, NULL, O_WARMUP },
    { "fragment-size", required_argument, NULL, O_FRAG },
    { "timeout-ms", required_argument, NULL, O_TIMEOUT },
    { "tls-ca", required_argument, NULL, O_CA },
    { "tls-no-verify", no_argument, NULL, O_NOVERIFY },
    { "count-allocs", no_argument, NULL, O_COUNT },
    { "ldouble-x87", no_argument, NULL, O_X87 },
    { "case", required_argument, NULL, O_CASE },
    { "contexts", no_argument, NULL, O_CTX },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
  };
  int c, li = -1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "", lo, &li)) != -1) {
    bool bad = false;
    switch (c) {
    case O_TARGET: opt.target = optarg; break;
    case O_SCEN:
      opt.scenario = -1;
      for (int k = 0; k < (int)(sizeof scenario_names / sizeof scenario_names[0]); k++)
        if (strcmp(optarg, scenario_names[k]) == 0)
          opt.scenario = k;
      bad = opt.scenario < 0;
      break;
    /* Ids are longs and the string lengths ulongs on the wire. */
    case O_CALLS: bad = !bench_parse_ulong(optarg, 0, 1ul << 40, &opt.calls); opt.calls_given = true; break;
    case O_NODES: bad = !bench_parse_ulong(optarg, 0, INT32_MAX, &opt.nodes); break;
    case O_SIZE: bad = !bench_parse_ulong(optarg, 0, 1ul << 28, &opt.size); break;
    case O_THREADS: bad = !bench_parse_ulong(optarg, 1, MAX_THREADS, &opt.threads); break;
    case O_CONNS: bad = !bench_parse_ulong(optarg, 1, IIOP_CLIENT_CONNECTIONS_MAX, &opt.conns); break;
    case O_PERCONN: bad = !bench_parse_ulong(optarg, 1, UINT32_MAX, &opt.per_conn); break;
    case O_WARMUP: bad = !bench_parse_ulong(optarg, 0, 1ul << 40, &opt.warmup); break;
    case O_FRAG: bad = !bench_parse_ulong(optarg, 64, UINT32_MAX, &opt.frag); break;
    case O_TIMEOUT: bad = !bench_parse_ulong(optarg, 0, INT32_MAX, &opt.timeout_ms); break;
    case O_CHECK: opt.check = true; break;
    case O_CYCLIC: opt.cyclic = true; break;
    case O_MIXED: opt.mixed = true; break;
    case O_EXPECT: opt.expect_trunc = true; break;
    case O_NOTRUNC: opt.no_trunc = true; break;
    case O_CA: opt.tls_ca = optarg; break;
    case O_NOVERIFY: opt.tls_no_verify = true; break;
    case O_COUNT: g_count_allocs = true; break;
    case O_X87: opt.any_flags |= ANY_X87; break;
    case O_CASE: bad = !any_cases_only(optarg); break;
    case O_CTX: opt.contexts = true; break;
    case O_HELP: usage(stdout); return EXIT_OK;
    default:
      return bench_usage_error("iiop-bench", usage, "client: bad option or missing argument: %s", argv[optind - 1]);
    }
    if (bad)
      return bench_usage_error("iiop-bench", usage, "client: bad value for --%s: '%s'", lo[li].name, optarg);
  }
  if (optind < argc)
    return bench_usage_error("iiop-bench", usage, "client: unexpected argument '%s'", argv[optind]);
  if (!opt.target || opt.scenario < 0)
    return bench_usage_error("iiop-bench", usage, "client: --target and --scenario are required");
  if (opt.cyclic && (!is_graph_scenario(opt.scenario) || opt.nodes == 0))
    return bench_usage_error("iiop-bench", usage, "client: --cyclic needs a graph or pair scenario and --nodes >= 1");
  if (opt.mixed && opt.scenario != SC_TRUNCGRAPH)
    return bench_usage_error("iiop-bench", usage, "client: --mixed goes with --scenario truncgraph");
  if (g_count_allocs && opt.warmup < 2)
    opt.warmup = 2;
  if (opt.scenario == SC_ANY && !opt.calls_given)
    opt.calls = any_cases_round();

  if (g_count_allocs)
    count_allocs_start();
  /* The objref case sends the target's own reference. */
  int orc;
  if (opt.scenario == SC_ANY && strncmp(opt.target, "IOR:", 4) == 0
      && (orc = any_cases_set_objref(opt.target)) != CDR_OK)
    return bench_usage_error("iiop-bench", usage, "client: the target IOR does not decode: %s", cdr_strerror(orc));
  signal(SIGPIPE, SIG_IGN);
  int rc = Bench_register(NULL, opt.no_trunc ? BENCH_REG_NO_TRUNC : 0);
  if (rc != CDR_OK) {
    fprintf(stderr, "iiop-bench: registering the value types: %s\n", cdr_strerror(rc));
    return EXIT_FAILED;
  }
  const char *sname = scenario_names[opt.scenario];
  if (build_args() != 0) {
    fprintf(stderr, "iiop-bench: out of memory building the arguments\n");
    return EXIT_FAILED;
  }

  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.timeout_ms = (int)opt.timeout_ms;
  if (opt.frag)
    co.fragment_size = opt.frag;
  co.tls_ca_file = opt.tls_ca;
  co.tls_verify = !opt.tls_no_verify;
  if (opt.conns)
    co.max_connections = (uint32_t)opt.conns;
  if (opt.per_conn)
    co.calls_per_connection = (uint32_t)opt.per_conn;
  iiop_client *cl = iiop_client_new(&co);
  if (!cl) {
    fprintf(stderr, "call failed: cannot create the client%s%s\n",
            opt.tls_ca ? " (CA file unreadable?) " : "", opt.tls_ca ? opt.tls_ca : "");
    printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n", sname);
    return EXIT_FAILED;
  }
  rc = iiop_client_resolve(cl, opt.target, &g_ref);
  if (rc != CDR_OK) {
    const char *ex = cdr_status_exception(rc);
    fprintf(stderr, "call failed: resolving the target: CORBA::%s (%s)\n",
            ex ? ex : "BAD_PARAM", cdr_strerror(rc));
    printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n", sname);
    iiop_client_free(cl);
    return EXIT_FAILED;
  }
  static const iiop_client_interceptor cli_ctx = { cli_ctx_send, cli_ctx_receive };
  if (opt.contexts
      && (iiop_ref_set_service_context(g_ref, 0x49420001u, "\x01\x02\x03\x04\x05", 5) != CDR_OK
          || iiop_client_add_interceptor(cl, &cli_ctx, NULL) != CDR_OK)) {
    fprintf(stderr, "iiop-bench: --contexts: cannot set the service contexts\n");
    iiop_ref_free(g_ref);
    iiop_client_free(cl);
    return EXIT_FAILED;
  }

  unsigned long nt = opt.threads;
  worker *w = calloc(nt, sizeof *w);
  uint64_t *lat = malloc((opt.calls ? opt.calls : 1) * sizeof *lat);
  if (!w || !lat) {
    fprintf(stderr, "iiop-bench: out of memory\n");
    return EXIT_FAILED;
  }
  pthread_barrier_init(&g_warm_done, NULL, (unsigned)nt + 1);
  pthread_barrier_init(&g_go, NULL, (unsigned)nt + 1);
  unsigned long next = 0;
  for (unsigned long t = 0; t < nt; t++) {
    w[t].count = opt.calls / nt + (t < opt.calls % nt ? 1 : 0);
    w[t].first = next;
    w[t].lat = lat + next;
    next += w[t].count;
  }
  unsigned long started = 0;
  for (; started < nt; started++) {
    int e = pthread_create(&w[started].th, NULL, worker_main, &w[started]);
    if (e) {
      /* The barriers count every thread: nothing sensible can follow. */
      fprintf(stderr, "iiop-bench: pthread_create: %s\n", strerror(e));
      exit(EXIT_FAILED);
    }
  }
  pthread_barrier_wait(&g_warm_done);
  uint64_t m0 = counter_mallocs(), f0 = counter_frees(), b0 = counter_bytes();
  uint64_t t0 = bench_now_ns();
  pthread_barrier_wait(&g_go);
  unsigned long failed = 0;
  for (unsigned long t = 0; t < nt; t++) {
    pthread_join(w[t].th, NULL);
    failed += w[t].failed;
  }
  uint64_t t1 = bench_now_ns();
  uint64_t m1 = counter_mallocs(), f1 = counter_frees(), b1 = counter_bytes();

  qsort(lat, opt.calls, sizeof *lat, bench_cmp_u64);
  double wall = (double)(t1 - t0) / 1e9;
  printf("scenario=%s calls=%lu failed=%lu wall_s=%.6f calls_per_s=%.1f p50_us=%.1f "
         "p99_us=%.1f\n", sname, opt.calls, failed, wall,
         wall > 0 ? (double)opt.calls / wall : 0.0, bench_percentile_us(lat, opt.calls, 0.50),
         bench_percentile_us(lat, opt.calls, 0.99));
  fflush(stdout);
  if (g_count_allocs)
    fprintf(stderr, "allocs: client: %.3f mallocs/call (%" PRIu64 " mallocs of %" PRIu64
            " octets, %" PRIu64 " frees in %lu timed calls on %lu threads, after %lu warm-up "
            "calls each)\n", opt.calls ? (double)(m1 - m0) / (double)opt.calls : 0.0, m1 - m0,
            b1 - b0, f1 - f0, opt.calls, nt, opt.warmup);

  pthread_barrier_destroy(&g_warm_done);
  pthread_barrier_destroy(&g_go);
  iiop_ref_free(g_ref);
  iiop_client_free(cl);
  cdr_pool_flush();
  free(lat);
  free(w);
  free(g_nodes);
  free(g_string);
  free(g_wstring);
  any_cases_cleanup();
  if (g_count_allocs) {
    cdr_tables_flush_shared();
    /* The global registry (one block) lives until exit. */
    int64_t live = __atomic_load_n(&g_counter.live, __ATOMIC_RELAXED) - 1;
    if (live != 0)
      fprintf(stderr, "allocs: client: %" PRId64 " blocks still allocated after cleanup\n", live);
  }
  if (__atomic_load_n(&g_any_failed, __ATOMIC_RELAXED))
    return EXIT_FAILED;
  if (__atomic_load_n(&g_any_mismatch, __ATOMIC_RELAXED))
    return EXIT_MISMATCH;
  return EXIT_OK;
}

int main(int argc, char **argv)
{
  if (getenv("IIOP_BENCH_COUNT_ALLOCS") && strcmp(getenv("IIOP_BENCH_COUNT_ALLOCS"), "0") != 0)
    g_count_allocs = true;
  if (argc < 2)
    return bench_usage_error("iiop-bench", usage, "a command is required: server, client or run");
  if (strcmp(argv[1], "server") == 0)
    return server_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "client") == 0)
    return client_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "run") == 0)
    return iiop_bench_run_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  return bench_usage_error("iiop-bench", usage, "unknown command '%s' (server, client or run)", argv[1]);
}
