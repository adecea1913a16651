/* echo-client.c - call ping(long) on a Bench::Echo object
 * (IDL:Bench/Echo:1.0, tests/interop/Bench.idl) and print the result.
 *
 *   echo-client REFERENCE [X [CA_FILE]]
 *
 * REFERENCE is "IOR:..." or "corbaloc::HOST:PORT/Echo" (add "1.2@" before
 * the host for GIOP 1.2); X defaults to 42; CA_FILE enables TLS for IORs
 * that offer it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s IOR:...|corbaloc:... [X [CA_FILE]]\n", argv[0]);
    return 2;
  }
  int32_t x = 42;
  if (argc > 2) {
    char *end;
    errno = 0;
    long v = strtol(argv[2], &end, 0);
    if (!*argv[2] || *end || errno || v < INT32_MIN || v > INT32_MAX) {
      fprintf(stderr, "echo-client: '%s' is not a 32-bit integer\n", argv[2]);
      return 2;
    }
    x = (int32_t)v;
  }
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.tls_ca_file = argc > 3 ? argv[3] : NULL;
  iiop_client *c = iiop_client_new(&o);
  if (!c) {
    fprintf(stderr, "echo-client: cannot create the client\n");
    return 1;
  }
  iiop_ref *r;
  int rc = iiop_client_resolve(c, argv[1], &r);
  if (rc != CDR_OK) {
    fprintf(stderr, "echo-client: %s: %s\n", argv[1], cdr_strerror(rc));
    iiop_client_free(c);
    return 1;
  }

  iiop_call *call;
  cdr_out *args;
  cdr_in *res;
  rc = iiop_call_begin(r, "ping", 0, &call, &args);
  if (rc == CDR_OK) {
    cdr_put_long(args, x);
    rc = iiop_call_invoke(call, &res);
    if (rc == CDR_OK) {
      int32_t y = cdr_get_long(res);
      rc = cdr_in_status(res);
      if (rc == CDR_OK)
        printf("ping(%d) = %d\n", (int)x, (int)y);
    }
    const giop_system_exception *e = iiop_call_exception(call);
    if (rc != CDR_OK)
      fprintf(stderr, "echo-client: ping failed: %s%s%s\n",
              rc > 0 ? "exception" : cdr_strerror(rc), e ? ": " : "", e ? e->repo_id : "");
    iiop_call_end(call);
  }
  iiop_ref_free(r);
  iiop_client_free(c);
  return rc == CDR_OK ? 0 : 1;
}
