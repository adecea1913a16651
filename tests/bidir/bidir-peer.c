/* bidir-peer - libiiop's side of tests/bidir.test (tests/interop/BiDir.idl;
 * the omniORB side is tests/interop/omni-bidir.cc, same roles and output).
 *
 *   bidir-peer server [--no-accept]
 *       Srv (object key "Srv") on 127.0.0.1, a free port, accepting
 *       bidirectional GIOP (iiop_server_opts.accept_bidir) unless
 *       --no-accept.  Prints its IOR, serves until SIGINT/SIGTERM, then
 *       prints "accepted=A bidir=B reused=R connections=C failed=F": the
 *       server's accepted and bidirectional connections, and its callback
 *       client's calls sent over them, connections opened and connects
 *       failed.  call_me(cb, x) = cb->hit(x) * 10, or -1 when the callback
 *       failed ("callback: EXCEPTION-ID" on stderr).
 *   bidir-peer client SRV-IOR X [--no-offer]
 *       CB (hit(x) = x + 1) in a callback server that is bound but never
 *       listens: it can only be reached over a bidirectional connection.
 *       Offers BiDir (unless --no-offer), calls call_me(cb, X) twice and
 *       prints "result=R hits=H connections=C served=S" (R the second
 *       result, H callbacks run, C connections opened, S requests served
 *       over them).  Exit 0, 1 a failed call, 2 usage. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/orb.h>

static iiop_client *cb_client;
static int hits;
static volatile sig_atomic_t stop;

static int op_hit(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)r;
  int32_t x = cdr_get_long(a);
  __atomic_add_fetch(&hits, 1, __ATOMIC_RELAXED);
  cdr_put_long(o, x + 1);
  return cdr_in_status(a);
}

static int op_call_me(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)r;
  iiop_ior ior;
  int rc = iiop_ior_read(a, &ior);
  int32_t x = cdr_get_long(a);
  if (rc != CDR_OK || cdr_in_status(a) != CDR_OK)
    return rc != CDR_OK ? rc : cdr_in_status(a);
  char *s;
  iiop_ref *ref = NULL;
  int32_t v = -1;
  rc = iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, cdr_in_arena(a), &s);
  if (rc == CDR_OK)
    rc = iiop_client_resolve(cb_client, s, &ref);
  if (rc == CDR_OK) {
    iiop_call *c;
    cdr_out *args;
    rc = iiop_call_begin(ref, "hit", 0, &c, &args);
    if (rc == CDR_OK) {
      cdr_put_long(args, x);
      cdr_in *res;
      rc = iiop_call_invoke(c, &res);
      if (rc == CDR_OK)
        v = cdr_get_long(res) * 10;
      else
        fprintf(stderr, "callback: %s\n",
                iiop_call_exception(c)->repo_id ? iiop_call_exception(c)->repo_id : "?");
      iiop_call_end(c);
    }
    iiop_ref_free(ref);
  }
  cdr_put_long(o, v);
  return CDR_OK;
}

static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)r;
  cdr_put_long(o, cdr_get_long(a));
  return cdr_in_status(a);
}

static const iiop_operation cb_ops[] = { { "hit", op_hit } };
static const iiop_interface cb_iface = { "IDL:BiDir/CB:1.0", cb_ops, 1, NULL };
static const iiop_operation srv_ops[] = { { "call_me", op_call_me }, { "ping", op_ping } };
static const iiop_interface srv_iface = { "IDL:BiDir/Srv:1.0", srv_ops, 2, NULL };

static void on_signal(int sig) { (void)sig; stop = 1; }

static int run_server(int accept)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.accept_bidir = accept;
  iiop_server *s;
  if (iiop_server_new(&so, &s) != CDR_OK || iiop_server_activate(s, "Srv", 3, &srv_iface, NULL) != CDR_OK)
    return 1;
  cb_client = iiop_client_new(NULL);
  if (!cb_client || (accept && iiop_client_use_bidir(cb_client, s) != CDR_OK))
    return 1;
  if (iiop_server_start(s) != CDR_OK)
    return 1;
  cdr_arena *a = cdr_arena_get();
  char *ior;
  if (iiop_server_ior(s, "Srv", 3, a, &ior) != CDR_OK)
    return 1;
  printf("%s\n", ior);
  fflush(stdout);
  cdr_arena_put(a);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  while (!stop)
    pause();
  iiop_server_stats ss;
  iiop_client_stats cs;
  if (iiop_server_stats_get(s, &ss) != CDR_OK || iiop_client_stats_get(cb_client, &cs) != CDR_OK)
    return 1;
  printf("accepted=%llu bidir=%llu reused=%llu connections=%llu failed=%llu\n",
         (unsigned long long)ss.accepted, (unsigned long long)ss.bidir_connections,
         (unsigned long long)cs.bidir_reused, (unsigned long long)cs.connections,
         (unsigned long long)cs.connect_failed);
  fflush(stdout);
  iiop_server_shutdown(s);
  iiop_client_free(cb_client);
  iiop_server_free(s);
  return 0;
}

static int run_client(const char *srv_ior, int32_t x, int offer)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  iiop_server *cbs;
  if (iiop_server_new(&so, &cbs) != CDR_OK || iiop_server_activate(cbs, "CB", 2, &cb_iface, NULL) != CDR_OK)
    return 1;
  iiop_client *cl = iiop_client_new(NULL);
  if (!cl || (offer && iiop_client_offer_bidir(cl, cbs) != CDR_OK))
    return 1;
  cdr_arena *a = cdr_arena_get();
  char *cb_ior;
  iiop_ior ior;
  iiop_ref *ref;
  if (iiop_server_ior(cbs, "CB", 2, a, &cb_ior) != CDR_OK
      || iiop_ior_from_string(cb_ior, a, &ior) != CDR_OK
      || iiop_client_resolve(cl, srv_ior, &ref) != CDR_OK) {
    fprintf(stderr, "bidir-peer: bad IOR\n");
    return 1;
  }
  int32_t v = 0;
  for (int k = 0; k < 2; k++) {
    iiop_call *c;
    cdr_out *args;
    cdr_in *res;
    if (iiop_call_begin(ref, "call_me", 0, &c, &args) != CDR_OK)
      return 1;
    (void)iiop_ior_write(args, &ior);
    cdr_put_long(args, x);
    int rc = iiop_call_invoke(c, &res);
    if (rc != CDR_OK) {
      fprintf(stderr, "bidir-peer: call_me: %s\n",
              iiop_call_exception(c)->repo_id ? iiop_call_exception(c)->repo_id : cdr_strerror(rc));
      return 1;
    }
    v = cdr_get_long(res);
    iiop_call_end(c);
  }
  iiop_client_stats cs;
  if (iiop_client_stats_get(cl, &cs) != CDR_OK)
    return 1;
  printf("result=%d hits=%d connections=%llu served=%llu\n", (int)v,
         __atomic_load_n(&hits, __ATOMIC_RELAXED), (unsigned long long)cs.connections,
         (unsigned long long)cs.bidir_served);
  fflush(stdout);
  iiop_ref_free(ref);
  cdr_arena_put(a);
  iiop_client_free(cl);
  iiop_server_free(cbs);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && strcmp(argv[1], "server") == 0)
    return run_server(!(argc >= 3 && strcmp(argv[2], "--no-accept") == 0));
  if (argc >= 4 && strcmp(argv[1], "client") == 0)
    return run_client(argv[2], (int32_t)atoi(argv[3]),
                      !(argc >= 5 && strcmp(argv[4], "--no-offer") == 0));
  fprintf(stderr, "usage: bidir-peer server [--no-accept] | client SRV-IOR X [--no-offer]\n");
  return 2;
}
