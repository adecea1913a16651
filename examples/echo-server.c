/* echo-server.c - Bench::Echo (tests/interop/Bench.idl) with ping and
 * echoString, under the object key "Echo", until SIGINT or SIGTERM.
 *
 *   echo-server [HOST [PORT]]      (default 127.0.0.1, a free port)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>

/* long ping(in long x) */
static int ping(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  cdr_put_long(result, x);
  return CDR_OK;
}

/* string echoString(in string s): decoded into the request's arena. */
static int echo_string(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  uint32_t len;
  const char *s = cdr_get_string(args, &len);
  if (!s)
    return cdr_in_status(args);
  cdr_put_string_n(result, s, len);
  return CDR_OK;
}

static const iiop_operation echo_ops[] = { { "ping", ping }, { "echoString", echo_string } };
static const iiop_interface echo_iface = { "IDL:Bench/Echo:1.0", echo_ops, 2, NULL };

int main(int argc, char **argv)
{
  /* Block the signals before any thread starts, then wait for them here
   * (reset first: a shell starts background jobs with SIGINT ignored, and
   * an ignored signal never reaches sigwait). */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);

  iiop_server_opts o;
  iiop_server_opts_default(&o);
  if (argc > 1)
    o.host = argv[1];
  if (argc > 2) {
    char *end;
    unsigned long port = strtoul(argv[2], &end, 10);
    if (!*argv[2] || *end || port > 65535) {
      fprintf(stderr, "echo-server: bad port '%s' (0..65535)\n", argv[2]);
      return 2;
    }
    o.port = (uint16_t)port;
  }
  iiop_server *s;
  int rc = iiop_server_new(&o, &s);
  if (rc == CDR_OK)
    rc = iiop_server_activate(s, "Echo", 4, &echo_iface, NULL);
  if (rc == CDR_OK)
    rc = iiop_server_start(s);
  if (rc != CDR_OK) {
    fprintf(stderr, "echo-server: %s\n", cdr_strerror(rc));
    return 1;
  }
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior;
  if (iiop_server_ior(s, "Echo", 4, &a, &ior) == CDR_OK) {
    int v6 = strchr(o.host, ':') && o.host[0] != '[';
    printf("corbaloc::1.2@%s%s%s:%u/Echo\n%s\n", v6 ? "[" : "", o.host, v6 ? "]" : "",
           (unsigned)iiop_server_port(s), ior);
    fflush(stdout);
  }
  cdr_arena_free(&a);

  int sig;
  sigwait(&sigs, &sig);
  iiop_server_free(s); /* CloseConnection to every client, threads joined */
  return 0;
}
