/* memory-peak.c - the server's peak memory per request, as a multiple of
 * the request's size.
 *
 *   bench/memory-peak [--quick]
 *
 * For each case -- echoString of 1, 8 and 32 MiB, echoGraph of a Node list
 * of 10k, 100k and 1M nodes (Bench::Echo, bench/bench_idl.h) -- a fresh
 * child process runs an iiop server (defaults of iiop_server_opts, on
 * 127.0.0.1 port 0) and the parent calls it: one small call of the same
 * kind to warm the pools up, then the server's VmHWM (peak resident set,
 * /proc/self/status) is read, then the one large call, then VmHWM again.
 * The growth of the peak is what that one request cost the server at its
 * worst moment (the request read, decoded, the reply built and sent),
 * printed in MiB and divided by the request's GIOP body size.  A fresh
 * process per case, so that one case's peak does not hide the next.
 * --quick: the smallest size of each kind only.
 *
 * Exit status: 0, or 1 when a call or the server fails.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "bench_idl.h"

/* Peak resident set of this process, in KiB (0 when unreadable). */
static uint64_t vm_hwm_kib(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  uint64_t v = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %" SCNu64, &v) == 1)
      break;
  fclose(f);
  return v;
}

/* ---------------------------------------------------------------- the server (child) */

static int srv_ping(Bench_Echo_servant *self, iiop_request *req, int32_t x, int32_t *ret)
{
  (void)self, (void)req;
  *ret = x;
  return CDR_OK;
}
static int srv_echoGraph(Bench_Echo_servant *self, iiop_request *req, Bench_Node *head,
                         Bench_Node **ret)
{
  (void)self, (void)req;
  *ret = head;
  return CDR_OK;
}
static int srv_echoString(Bench_Echo_servant *self, iiop_request *req, const char *s,
                          uint32_t len, const char **ret, size_t *ret_len)
{
  (void)self, (void)req;
  *ret = s;
  *ret_len = len;
  return CDR_OK;
}
static const Bench_Echo_ops srv_ops = { srv_ping, srv_echoGraph, srv_echoString, NULL, NULL };

/* Serve until told to stop: on each 'm' read from CMD, write VmHWM (KiB,
 * a uint64_t) to ANS; on 'q' or end of file, return. */
static int child(int cmd, int ans)
{
  static Bench_Echo_servant servant = { &srv_ops };
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.host = "127.0.0.1";
  iiop_server *s = NULL;
  uint16_t port = 0;
  if (Bench_register(NULL, 0) == CDR_OK && iiop_server_new(&o, &s) == CDR_OK
      && iiop_server_activate(s, "Echo", 4, &Bench_Echo_interface, &servant) == CDR_OK
      && iiop_server_start(s) == CDR_OK)
    port = iiop_server_port(s);
  if (write(ans, &port, sizeof port) != (ssize_t)sizeof port || !port)
    return 1;
  char c;
  while (read(cmd, &c, 1) == 1 && c == 'm') {
    uint64_t v = vm_hwm_kib();
    if (write(ans, &v, sizeof v) != (ssize_t)sizeof v)
      break;
  }
  iiop_server_free(s);
  return 0;
}

/* ---------------------------------------------------------------- the client (parent) */

typedef struct server {
  pid_t pid;
  int cmd, ans;
  uint16_t port;
} server;

static int server_start(server *sv)
{
  int c[2], a[2];
  if (pipe(c) || pipe(a))
    return -1;
  fflush(NULL);
  sv->pid = fork();
  if (sv->pid < 0)
    return -1;
  if (sv->pid == 0) {
    close(c[1]);
    close(a[0]);
    _exit(child(c[0], a[1]));
  }
  close(c[0]);
  close(a[1]);
  sv->cmd = c[1];
  sv->ans = a[0];
  return read(sv->ans, &sv->port, sizeof sv->port) == (ssize_t)sizeof sv->port && sv->port
           ? 0 : -1;
}

static uint64_t server_hwm(server *sv)
{
  uint64_t v = 0;
  if (write(sv->cmd, "m", 1) != 1 || read(sv->ans, &v, sizeof v) != (ssize_t)sizeof v)
    return 0;
  return v;
}

static void server_stop(server *sv)
{
  if (write(sv->cmd, "q", 1) != 1) {
    /* the child sees end of file below */
  }
  close(sv->cmd);
  close(sv->ans);
  int st;
  waitpid(sv->pid, &st, 0);
}

enum { K_STRING, K_GRAPH };

/* One call of kind K with size N (octets or nodes) on R; 0 or -1. */
static int call(iiop_ref *r, int k, size_t n, const char *str, Bench_Node *nodes)
{
  iiop_call *c = NULL;
  int rc;
  if (k == K_STRING) {
    const char *ret;
    uint32_t len = 0;
    rc = Bench_Echo_echoString(r, str, n, &ret, &len, &c);
    if (rc == CDR_OK && (len != n || memcmp(ret, str, n) != 0))
      rc = CDR_E_PROTOCOL;
  } else {
    for (size_t i = 0; i < n; i++) {
      Bench_Node_init(&nodes[i], (int32_t)i);
      nodes[i].next = i + 1 < n ? &nodes[i + 1] : NULL;
    }
    Bench_Node *ret = NULL;
    rc = Bench_Echo_echoGraph(r, nodes, &ret, &c);
    size_t got = 0;
    for (Bench_Node *p = rc == CDR_OK ? ret : NULL; p && got <= n; p = p->next)
      if (p->id != (int32_t)got++)
        break;
    if (rc == CDR_OK && got != n)
      rc = CDR_E_PROTOCOL;
  }
  if (rc != CDR_OK)
    fprintf(stderr, "memory-peak: call failed: %s\n", cdr_strerror(rc));
  if (c)
    iiop_call_end(c);
  return rc == CDR_OK ? 0 : -1;
}

/* The GIOP body octets of the request of kind K, size N. */
static size_t body_size(int k, size_t n, Bench_Node *nodes)
{
  if (k == K_STRING)
    return 4 + n + 1;
  for (size_t i = 0; i < n; i++) {
    Bench_Node_init(&nodes[i], (int32_t)i);
    nodes[i].next = i + 1 < n ? &nodes[i + 1] : NULL;
  }
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = 2;
  cdr_out out;
  if (cdr_out_init(&out, &o) != CDR_OK)
    return 0;
  cdr_put_value(&out, &Bench_Node_vt, nodes);
  size_t sz = cdr_out_status(&out) == CDR_OK ? cdr_out_size(&out) : 0;
  cdr_out_close(&out);
  return sz;
}

static int measure(int k, size_t n)
{
  server sv;
  if (server_start(&sv) != 0) {
    fprintf(stderr, "memory-peak: the server did not start\n");
    return -1;
  }
  int rc = -1;
  char *str = NULL;
  size_t nn = k == K_GRAPH ? n : 100;
  Bench_Node *nodes = malloc(nn * sizeof *nodes);
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.timeout_ms = 300000;
  iiop_client *cl = iiop_client_new(&co);
  char url[80];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Echo", (unsigned)sv.port);
  iiop_ref *r = NULL;
  if (k == K_STRING) {
    str = malloc(n + 1);
    if (str) {
      memset(str, 'x', n);
      str[n] = 0;
    }
  }
  if (!nodes || (k == K_STRING && !str) || !cl || iiop_client_resolve(cl, url, &r) != CDR_OK)
    goto out;
  size_t req = body_size(k, n, nodes);
  if (call(r, k, k == K_STRING ? 1024 : 100, str, nodes) != 0) /* the pools warmed up */
    goto out;
  uint64_t before = server_hwm(&sv);
  if (call(r, k, n, str, nodes) != 0)
    goto out;
  uint64_t after = server_hwm(&sv);
  if (!before || !after || !req)
    goto out;
  double grow = (double)(after - before) * 1024.0;
  if (k == K_STRING)
    printf("echoString %8zu octets:", n);
  else
    printf("echoGraph  %8zu nodes: ", n);
  printf(" request %7.2f MiB, server peak RSS +%8.2f MiB = %5.1fx the request\n",
         (double)req / (1 << 20), grow / (1 << 20), grow / (double)req);
  rc = 0;
out:
  iiop_ref_free(r);
  if (cl)
    iiop_client_free(cl);
  free(str);
  free(nodes);
  server_stop(&sv);
  return rc;
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (argc > 2 || (argc == 2 && !quick)) {
    fprintf(stderr, "usage: memory-peak [--quick]\n");
    return 2;
  }
  if (Bench_register(NULL, 0) != CDR_OK)
    return 1;
  static const size_t strings[] = { (size_t)1 << 20, (size_t)8 << 20, (size_t)32 << 20 };
  static const size_t graphs[] = { 10000, 100000, 1000000 };
  int fails = 0;
  for (size_t i = 0; i < (quick ? 1 : 3); i++)
    fails += measure(K_STRING, strings[i]) != 0;
  for (size_t i = 0; i < (quick ? 1 : 3); i++)
    fails += measure(K_GRAPH, graphs[i]) != 0;
  return fails ? 1 : 0;
}
