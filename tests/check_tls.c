/* check_tls.c - TLS in libiiop's client and server (iiop/orb.h) over
 * loopback: client certificates and the server's verify modes
 * (IIOP_TLS_VERIFY_NONE / PEER / PEER_FAIL), the subject a servant reads
 * (iiop_request_peer_subject()), TAG_SSL_SEC_TRANS target_supports and
 * target_requires exactly, the client honouring target_requires (never
 * plaintext, no certificate for EstablishTrustInClient; at resolve and on a
 * LOCATION_FORWARD), and OpenSSL's
 * reason in every error text: files that cannot be loaded (opts.why), a
 * wrong password, a wrong CA, a server that refuses a client after the
 * client's handshake ended ("TLS read from ..."), and the server's own
 * count and text of failed handshakes.
 *
 * The CA, server and client certificates are made with the openssl
 * command into a fresh mkdtemp() directory at each run (removed at the
 * end); without the command every test says so and passes without
 * checking anything.  Every server listens on port 0. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"
#include "tlsutil.h"

/* ---------------------------------------------------------------- certificates */

static int have_openssl;
static char ca[TLSU_PATH_MAX], other_ca[TLSU_PATH_MAX], srv_crt[TLSU_PATH_MAX];
static char srv_key[TLSU_PATH_MAX], srv_key_enc[TLSU_PATH_MAX], cli_crt[TLSU_PATH_MAX];
static char cli_key[TLSU_PATH_MAX], cli_pem[TLSU_PATH_MAX], cli_key_enc[TLSU_PATH_MAX];
static char rogue_crt[TLSU_PATH_MAX], rogue_key[TLSU_PATH_MAX], garbage[TLSU_PATH_MAX];
static char missing[TLSU_PATH_MAX];

#define PASSWORD "s3cret-pw"
#define CLIENT_SUBJECT "CN=tls-client,O=check_tls"

/* CA "check_tls-CA" signs the server's certificate (IP:127.0.0.1) and the
 * client's (O=check_tls, CN=tls-client); "other-CA" signs a rogue client
 * certificate.  The client's key also exists merged into its certificate
 * file and encrypted (AES-256, PASSWORD); so does the server's. */
static int certs_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  if (!tlsu_begin("check_tls"))
    return 0;
  int rc = 0;
  rc |= tlsu_ca("ca", "ca.crt", "/CN=check_tls-CA");
  rc |= tlsu_ca("other", "other.crt", "/CN=other-CA");
  rc |= tlsu_leaf("srv", "srv.crt", "/CN=localhost", "ca", "ca.crt",
                  "subjectAltName=IP:127.0.0.1,DNS:localhost");
  rc |= tlsu_leaf("cli", "cli.crt", "/O=check_tls/CN=tls-client", "ca", "ca.crt", NULL);
  rc |= tlsu_sh("cat cli.crt cli.key > cli.pem");
  rc |= tlsu_sh("openssl pkey -in cli.key -aes256 -passout pass:" PASSWORD " -out cli-enc.key");
  rc |= tlsu_sh("openssl pkey -in srv.key -aes256 -passout pass:" PASSWORD " -out srv-enc.key");
  rc |= tlsu_leaf("rogue", "rogue.crt", "/O=check_tls/CN=rogue", "other", "other.crt", NULL);
  rc |= tlsu_sh("printf 'not a certificate\\n' > garbage.pem");
  if (rc != 0)
    return 0;
  tlsu_path(ca, "ca.crt");
  tlsu_path(other_ca, "other.crt");
  tlsu_path(srv_crt, "srv.crt");
  tlsu_path(srv_key, "srv.key");
  tlsu_path(srv_key_enc, "srv-enc.key");
  tlsu_path(cli_crt, "cli.crt");
  tlsu_path(cli_key, "cli.key");
  tlsu_path(cli_pem, "cli.pem");
  tlsu_path(cli_key_enc, "cli-enc.key");
  tlsu_path(rogue_crt, "rogue.crt");
  tlsu_path(rogue_key, "rogue.key");
  tlsu_path(garbage, "garbage.pem");
  tlsu_path(missing, "no-such-file.pem");
  have_openssl = 1;
  return 0;
}

static void certs_teardown(void) { tlsu_end("check_tls"); }

#define NEED_OPENSSL() TLSU_NEED(have_openssl, "check_tls")

/* ---------------------------------------------------------------- the servant */

static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)r;
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a))
    return cdr_in_status(a);
  cdr_put_long(o, x);
  return CDR_OK;
}

/* whoami(): the verified client certificate's subject, "(none)" for NULL. */
static int op_whoami(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)a;
  const char *s = iiop_request_peer_subject(r);
  cdr_put_string(o, s ? s : "(none)");
  return CDR_OK;
}

static const iiop_operation ops[] = { { "ping", op_ping }, { "whoami", op_whoami } };
static const iiop_interface iface = { "IDL:Test/Tls:1.0", ops, 2, NULL };

/* A forwarder: every ping is answered with LOCATION_FORWARD to fwd_ior. */
static char fwd_ior[2048];

static int op_forward(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)a;
  (void)o;
  return iiop_request_set_forward(r, fwd_ior, 0);
}

static const iiop_operation fwd_ops[] = { { "ping", op_forward } };
static const iiop_interface fwd_iface = { "IDL:Test/Tls:1.0", fwd_ops, 1, NULL };

/* ---------------------------------------------------------------- helpers */

static iiop_server *server(int policy, int verify, const char *key, const char *pw)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.tls_cert = srv_crt;
  o.tls_key = key ? key : srv_key;
  o.tls_key_password = pw;
  o.tls_policy = policy;
  o.tls_verify_clients = verify;
  o.tls_ca_file = verify != IIOP_TLS_VERIFY_NONE ? ca : NULL;
  char why[256] = "unset";
  o.why = why;
  o.why_cap = sizeof why;
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&o, &s), CDR_OK);
  ck_assert_str_eq(why, "");
  ck_assert_int_eq(iiop_server_activate(s, "Tls", 3, &iface, NULL), CDR_OK);
  ck_assert_int_eq(iiop_server_start(s), CDR_OK);
  return s;
}

static iiop_client *client(int policy, const char *cafile, const char *cert, const char *key,
                           const char *pw)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 10000;
  o.tls_policy = policy;
  o.tls_ca_file = cafile;
  o.tls_cert_file = cert;
  o.tls_key_file = key;
  o.tls_key_password = pw;
  char why[256] = "unset";
  o.why = why;
  o.why_cap = sizeof why;
  iiop_client *c = NULL;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_OK);
  ck_assert_ptr_nonnull(c);
  ck_assert_str_eq(why, "");
  return c;
}

/* S's IOR for "Tls", into A. */
static char *ior_of(iiop_server *s, cdr_arena *a)
{
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, "Tls", 3, a, &ior), CDR_OK);
  return ior;
}

/* An IOR for S's "Tls" with a TAG_SSL_SEC_TRANS of our own making:
 * target_supports SUP, target_requires REQ, port SSLPORT; the profile's
 * port PORT. */
static char *ior_made(iiop_server *s, uint16_t port, uint16_t sup, uint16_t req,
                      uint16_t sslport, cdr_arena *a)
{
  iiop_component comp;
  ck_assert_int_eq(iiop_ssl_component_encode(sup, req, sslport, CDR_HOST_ORDER, a, &comp), CDR_OK);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_make(a, "IDL:Test/Tls:1.0", 1, 2, "127.0.0.1", port, (const uint8_t *)"Tls", 3,
                                 &comp, 1, &ior), CDR_OK);
  char *str = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_HOST_ORDER, a, &str), CDR_OK);
  (void)s;
  return str;
}

/* The IOR's TAG_SSL_SEC_TRANS of its IIOP profile. */
static void ior_ssl(const char *str, uint16_t *sup, uint16_t *req, uint16_t *port)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(str, &a, &ior), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_nonnull(p);
  const iiop_component *c = iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(iiop_ssl_component_decode(c, sup, req, port), CDR_OK);
  cdr_arena_free(&a);
}

static int call_ping(iiop_ref *r, int32_t x, int32_t *out)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, "ping", 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    *out = cdr_get_long(res);
    rc = cdr_in_status(res);
  }
  iiop_call_end(call);
  return rc;
}

/* whoami() through R into BUF; the call's status. */
static int call_whoami(iiop_ref *r, char *buf, size_t cap)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, "whoami", 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    uint32_t n;
    const char *s = cdr_get_string(res, &n);
    rc = s ? CDR_OK : cdr_in_status(res);
    if (s)
      snprintf(buf, cap, "%s", s);
  }
  iiop_call_end(call);
  return rc;
}

static void expect_whoami(iiop_client *c, const char *ior, const char *want)
{
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  char got[256] = "";
  ck_assert_int_eq(call_whoami(r, got, sizeof got), CDR_OK);
  ck_assert_str_eq(got, want);
  int32_t v = 0;
  ck_assert_int_eq(call_ping(r, 42, &v), CDR_OK);
  ck_assert_int_eq(v, 42);
  iiop_ref_free(r);
}

/* Wait (up to 10 s) until S has counted N failed handshakes. */
static void wait_hs_failures(iiop_server *s, uint64_t n)
{
  iiop_server_stats st;
  for (int k = 0; k < 1000; k++) {
    ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
    if (st.tls_handshake_failures >= n)
      break;
    struct timespec ts = { 0, 10 * 1000000L };
    nanosleep(&ts, NULL);
  }
  ck_assert_uint_eq(st.tls_handshake_failures, n);
}

static void client_err(iiop_client *c, char *buf, size_t cap)
{
  ck_assert_uint_lt(iiop_client_last_error(c, buf, cap), cap);
}

/* ---------------------------------------------------------------- tests */

/* Mutual TLS: the servant reads the client's subject; the key in its own
 * file, in the certificate file, or encrypted with the right password. */
START_TEST(test_mutual)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_PEER_FAIL, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_of(s, &a);

  iiop_client *c = client(IIOP_TLS_ALLOWED, ca, cli_crt, cli_key, NULL);
  expect_whoami(c, ior, CLIENT_SUBJECT);
  iiop_client_stats cs;
  ck_assert_int_eq(iiop_client_stats_get(c, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 1);
  ck_assert_uint_eq(cs.connect_failed, 0);
  iiop_client_free(c);

  c = client(IIOP_TLS_REQUIRED, ca, cli_pem, NULL, NULL); /* key_file NULL: in cli.pem */
  expect_whoami(c, ior, CLIENT_SUBJECT);
  iiop_client_free(c);

  c = client(IIOP_TLS_ALLOWED, ca, cli_crt, cli_key_enc, PASSWORD);
  expect_whoami(c, ior, CLIENT_SUBJECT);
  iiop_client_free(c);

  /* Plain IIOP to the same server's plain port: no subject. */
  c = client(IIOP_TLS_OFF, NULL, NULL, NULL, NULL);
  char loc[96];
  snprintf(loc, sizeof loc, "corbaloc::1.2@127.0.0.1:%u/Tls", (unsigned)iiop_server_port(s));
  expect_whoami(c, loc, "(none)");
  iiop_client_free(c);

  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 4);
  ck_assert_uint_eq(st.tls_handshake_failures, 0);
  ck_assert_uint_eq(iiop_server_tls_last_error(s, NULL, 0), 0);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* VERIFY_PEER asks but does not insist: a client without a certificate is
 * served (subject NULL); a certificate of another CA is refused. */
START_TEST(test_verify_peer)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_PEER, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_of(s, &a);
  iiop_client *c = client(IIOP_TLS_REQUIRED, ca, NULL, NULL, NULL);
  expect_whoami(c, ior, "(none)");
  iiop_client_free(c);
  c = client(IIOP_TLS_REQUIRED, ca, cli_crt, cli_key, NULL);
  expect_whoami(c, ior, CLIENT_SUBJECT);
  iiop_client_free(c);
  ck_assert_uint_eq(iiop_server_tls_last_error(s, NULL, 0), 0);

  /* The rogue certificate: the server's verification fails. */
  c = client(IIOP_TLS_REQUIRED, ca, rogue_crt, rogue_key, NULL);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  int32_t v = 0;
  ck_assert_int_eq(call_ping(r, 1, &v), CDR_E_TLS);
  char err[IIOP_CLIENT_ERROR_MAX];
  client_err(c, err, sizeof err);
  char want[96];
  snprintf(want, sizeof want, "TLS read from 127.0.0.1:%u: ", (unsigned)iiop_server_tls_port(s));
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "client text: %s", err);
  ck_assert_msg(strstr(err, "alert unknown ca") != NULL, "client text: %s", err);
  wait_hs_failures(s, 1);
  char serr[IIOP_SERVER_ERROR_MAX];
  ck_assert_uint_lt(iiop_server_tls_last_error(s, serr, sizeof serr), sizeof serr);
  ck_assert_msg(strncmp(serr, "TLS handshake from 127.0.0.1:", 29) == 0, "server text: %s", serr);
  ck_assert_msg(strstr(serr, ": certificate verify failed: unable to get local issuer certificate")
                  != NULL, "server text: %s", serr);
  iiop_ref_free(r);
  iiop_client_free(c);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* No client certificate against VERIFY_PEER_FAIL: refused by the server
 * in the handshake, the server's alert in the call's text. */
START_TEST(test_no_client_cert)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_PEER_FAIL, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_of(s, &a);
  uint16_t tp = iiop_server_tls_port(s);

  iiop_client *c = client(IIOP_TLS_ALLOWED, ca, NULL, NULL, NULL);
  iiop_ref *r = NULL;
  char err[IIOP_CLIENT_ERROR_MAX], want[IIOP_CLIENT_ERROR_MAX];
  iiop_server_stats st;
  /* EstablishTrustInClient required (0x46) and no certificate: the client
   * still tries (omniORB requires it in every SSL IOR, verifying or not);
   * its handshake ends (TLS 1.3), the server refuses the empty certificate,
   * and the call reads the server's alert. */
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  int32_t v = 0;
  int rc = call_ping(r, 7, &v);
  client_err(c, err, sizeof err);
  ck_assert_msg(rc == CDR_E_TLS, "rc %d, text %s", rc, err);
  snprintf(want, sizeof want, "TLS read from 127.0.0.1:%u: ", (unsigned)tp);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "client text: %s", err);
  ck_assert_msg(strstr(err, "certificate required") != NULL, "client text: %s", err);
  iiop_ref_free(r);
  wait_hs_failures(s, 1);
  char serr[IIOP_SERVER_ERROR_MAX];
  size_t n = iiop_server_tls_last_error(s, serr, sizeof serr);
  ck_assert_uint_eq(n, strlen(serr));
  ck_assert_msg(strncmp(serr, "TLS handshake from 127.0.0.1:", 29) == 0, "server text: %s", serr);
  ck_assert_msg(strstr(serr, "peer did not return a certificate") != NULL, "server text: %s", serr);
  /* Cut short: the length of the whole text, BUF NUL-terminated. */
  char small[8];
  ck_assert_uint_eq(iiop_server_tls_last_error(s, small, sizeof small), n);
  ck_assert_str_eq(small, "TLS han");
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 1);
  ck_assert_uint_eq(st.timeout_handshake, 0);
  iiop_client_free(c);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* A CA that did not sign the server's certificate: OpenSSL's reason. */
START_TEST(test_wrong_ca)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_NONE, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_of(s, &a);
  iiop_client *c = client(IIOP_TLS_REQUIRED, other_ca, NULL, NULL, NULL);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  int32_t v = 0;
  ck_assert_int_eq(call_ping(r, 1, &v), CDR_E_TLS);
  char err[IIOP_CLIENT_ERROR_MAX], want[IIOP_CLIENT_ERROR_MAX];
  client_err(c, err, sizeof err);
  snprintf(want, sizeof want,
           "TLS to 127.0.0.1:%u: certificate verify failed: unable to get local issuer certificate",
           (unsigned)iiop_server_tls_port(s));
  ck_assert_str_eq(err, want);
  iiop_client_stats cs;
  ck_assert_int_eq(iiop_client_stats_get(c, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 0);
  ck_assert_uint_ge(cs.connect_failed, 1);
  /* The server saw the client give up: the alert the client sent. */
  wait_hs_failures(s, cs.connect_failed);
  char serr[IIOP_SERVER_ERROR_MAX];
  ck_assert_uint_lt(iiop_server_tls_last_error(s, serr, sizeof serr), sizeof serr);
  ck_assert_msg(strstr(serr, "alert unknown ca") != NULL, "server text: %s", serr);
  iiop_ref_free(r);
  iiop_client_free(c);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* TAG_SSL_SEC_TRANS as each policy and verify mode puts it in IORs. */
START_TEST(test_ior_bits)
{
  NEED_OPENSSL();
  static const struct {
    int policy, verify;
    uint16_t sup, req;
  } k[] = {
    { IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_NONE, 0x27, 0x00 },
    { IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_PEER, 0x67, 0x00 },
    { IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_PEER_FAIL, 0x67, 0x40 },
    { IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_NONE, 0x26, 0x06 },
    { IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_PEER, 0x66, 0x06 },
    { IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_PEER_FAIL, 0x66, 0x46 },
  };
  ck_assert_uint_eq(IIOP_SEC_NO_PROTECTION | IIOP_SEC_INTEGRITY | IIOP_SEC_CONFIDENTIALITY
                      | IIOP_SEC_TRUST_IN_TARGET | IIOP_SEC_TRUST_IN_CLIENT,
                    0x67);
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    iiop_server *s = server(k[i].policy, k[i].verify, NULL, NULL);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    uint16_t sup = 0, req = 0, port = 0;
    ior_ssl(ior_of(s, &a), &sup, &req, &port);
    ck_assert_msg(sup == k[i].sup && req == k[i].req, "case %zu: supports 0x%x requires 0x%x", i,
                  sup, req);
    ck_assert_uint_eq(port, iiop_server_tls_port(s));
    cdr_arena_free(&a);
    iiop_server_free(s);
  }
}
END_TEST

/* A reference that requires integrity/confidentiality and a client that
 * would go plain: CDR_E_TLS at resolve, no connection at all -- also when
 * the profile carries a plain port that works. */
START_TEST(test_off_against_required)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_NONE, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_of(s, &a);
  iiop_client *c = client(IIOP_TLS_OFF, ca, NULL, NULL, NULL);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_E_TLS);
  ck_assert_ptr_null(r);
  char err[IIOP_CLIENT_ERROR_MAX];
  client_err(c, err, sizeof err);
  ck_assert_str_eq(err, "TLS required by the reference to 127.0.0.1:0 (target_requires 0x0006) "
                        "but the client's tls_policy is IIOP_TLS_OFF");
  iiop_client_stats cs;
  ck_assert_int_eq(iiop_client_stats_get(c, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 0);
  ck_assert_uint_eq(cs.connect_failed, 0);
  iiop_client_free(c);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 0);
  iiop_server_free(s);

  /* A server with a plain port, and an IOR naming it that requires
   * confidentiality: the plain port is not used. */
  s = server(IIOP_TLS_ALLOWED, IIOP_TLS_VERIFY_NONE, NULL, NULL);
  char *strict = ior_made(s, iiop_server_port(s), 0x26, 0x04, iiop_server_tls_port(s), &a);
  c = client(IIOP_TLS_OFF, ca, NULL, NULL, NULL);
  r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, strict, &r), CDR_E_TLS);
  client_err(c, err, sizeof err);
  char want[IIOP_CLIENT_ERROR_MAX];
  snprintf(want, sizeof want, "TLS required by the reference to 127.0.0.1:%u (target_requires "
           "0x0004) but the client's tls_policy is IIOP_TLS_OFF", (unsigned)iiop_server_port(s));
  ck_assert_str_eq(err, want);
  iiop_client_free(c);
  /* No CA file (no TLS context) either. */
  c = client(IIOP_TLS_ALLOWED, NULL, NULL, NULL, NULL);
  r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, strict, &r), CDR_E_TLS);
  client_err(c, err, sizeof err);
  ck_assert_ptr_nonnull(strstr(err, "but the client has no TLS context (no tls_ca_file)"));
  iiop_client_free(c);
  /* With TLS the same reference works, over the TLS port. */
  c = client(IIOP_TLS_ALLOWED, ca, NULL, NULL, NULL);
  expect_whoami(c, strict, "(none)");
  iiop_client_free(c);
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 1);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* A LOCATION_FORWARD to a reference that requires TLS is checked as a
 * resolved one: the plain client's call fails with CDR_E_TLS and the TLS
 * server sees no connection. */
START_TEST(test_forward_required)
{
  NEED_OPENSSL();
  iiop_server *t = server(IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_NONE, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  snprintf(fwd_ior, sizeof fwd_ior, "%s", ior_of(t, &a));
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.tls_policy = IIOP_TLS_OFF;
  iiop_server *f = nu_serve(&so, "Fwd", &fwd_iface, NULL);

  iiop_client *c = client(IIOP_TLS_OFF, ca, NULL, NULL, NULL);
  char loc[96];
  snprintf(loc, sizeof loc, "corbaloc::1.2@127.0.0.1:%u/Fwd", (unsigned)iiop_server_port(f));
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, loc, &r), CDR_OK);
  int32_t v = 0;
  int rc = call_ping(r, 5, &v);
  char err[IIOP_CLIENT_ERROR_MAX];
  client_err(c, err, sizeof err);
  ck_assert_msg(rc == CDR_E_TLS, "rc %d, text %s", rc, err);
  ck_assert_str_eq(err, "TLS required by the reference to 127.0.0.1:0 (target_requires 0x0006) "
                        "but the client's tls_policy is IIOP_TLS_OFF");
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(t, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 0);
  ck_assert_int_eq(iiop_server_stats_get(f, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 1);

  /* With TLS the forward is followed. */
  c = client(IIOP_TLS_ALLOWED, ca, NULL, NULL, NULL);
  ck_assert_int_eq(iiop_client_resolve(c, loc, &r), CDR_OK);
  ck_assert_int_eq(call_ping(r, 6, &v), CDR_OK);
  ck_assert_int_eq(v, 6);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(f);
  iiop_server_free(t);
  cdr_arena_free(&a);
}
END_TEST

/* corbaloc:ssliop:HOST:PORT/KEY (omniORB's form): TLS to PORT, whatever
 * version it names; a client without a CA file, or IIOP_TLS_OFF, cannot use
 * it (CDR_E_UNSUPPORTED, nothing connected), and IIOP_TLS_REQUIRED takes it
 * where it refuses a plain corbaloc address. */
START_TEST(test_corbaloc_ssliop)
{
  NEED_OPENSSL();
  iiop_server *s = server(IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_NONE, NULL, NULL);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  uint16_t sup, req, port;
  ior_ssl(ior_of(s, &a), &sup, &req, &port);
  ck_assert_uint_ne(port, 0);
  char loc[96];
  snprintf(loc, sizeof loc, "corbaloc:ssliop:2.0@127.0.0.1:%u/Tls", (unsigned)port);
  for (int policy = IIOP_TLS_ALLOWED; policy <= IIOP_TLS_REQUIRED; policy++) {
    if (policy == IIOP_TLS_OFF)
      continue;
    iiop_client *c = client(policy, ca, NULL, NULL, NULL);
    iiop_ref *r = NULL;
    ck_assert_int_eq(iiop_client_resolve(c, loc, &r), CDR_OK);
    int32_t v = 0;
    ck_assert_int_eq(call_ping(r, 7, &v), CDR_OK);
    ck_assert_int_eq(v, 7);
    iiop_ref_free(r);
    iiop_client_free(c);
  }
  char err[IIOP_CLIENT_ERROR_MAX];
  iiop_client *c = client(IIOP_TLS_OFF, ca, NULL, NULL, NULL);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, loc, &r), CDR_E_UNSUPPORTED);
  client_err(c, err, sizeof err);
  ck_assert_str_eq(err, "a corbaloc ssliop address needs TLS, but the client's tls_policy is "
                        "IIOP_TLS_OFF");
  iiop_client_free(c);
  c = client(IIOP_TLS_ALLOWED, NULL, NULL, NULL, NULL);
  ck_assert_int_eq(iiop_client_resolve(c, loc, &r), CDR_E_UNSUPPORTED);
  client_err(c, err, sizeof err);
  ck_assert_str_eq(err, "a corbaloc ssliop address needs TLS, but the client has no TLS "
                        "context (no tls_ca_file)");
  iiop_client_free(c);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 2);
  iiop_server_free(s);
  cdr_arena_free(&a);
}
END_TEST

/* Files OpenSSL cannot read or parse: CDR_E_TLS at creation, the file and
 * OpenSSL's reason in opts.why. */
START_TEST(test_bad_files)
{
  NEED_OPENSSL();
  char why[IIOP_TLS_WHY_MAX + 128], want[256];
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.why = why;
  o.why_cap = sizeof why;
  iiop_client *c = (iiop_client *)1;

  o.tls_ca_file = missing;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  ck_assert_ptr_null(c);
  snprintf(want, sizeof want, "TLS: cannot load the CA file %s: ", missing);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  ck_assert_msg(strstr(why, "No such file or directory") != NULL, "text: %s", why);
  ck_assert_ptr_null(iiop_client_new(&o));

  o.tls_ca_file = garbage;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the CA file %s: error:", garbage);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);

  o.tls_ca_file = ca;
  o.tls_cert_file = missing;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the certificate file %s: ", missing);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  ck_assert_msg(strstr(why, "No such file or directory") != NULL, "text: %s", why);

  o.tls_cert_file = cli_crt; /* key_file NULL: looked for in cli.crt, which has none */
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the key file %s: error:", cli_crt);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);

  o.tls_key_file = rogue_key; /* not the certificate's key */
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  ck_assert_msg(strstr(why, "key values mismatch") != NULL, "text: %s", why);

  o.tls_cert_file = NULL; /* a key without a certificate */
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_INVALID);
  ck_assert_str_eq(why, "TLS: tls_key_file without tls_cert_file");

  /* The server: its CA file, its certificate, a verify mode without CAs,
   * an unknown mode. */
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.why = why;
  so.why_cap = sizeof why;
  so.tls_cert = srv_crt;
  so.tls_key = srv_key;
  so.tls_verify_clients = IIOP_TLS_VERIFY_PEER_FAIL;
  so.tls_ca_file = missing;
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the CA file %s: ", missing);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  ck_assert_msg(strstr(why, "No such file or directory") != NULL, "text: %s", why);
  so.tls_ca_file = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_TLS);
  ck_assert_str_eq(why, "TLS: verifying clients needs a CA file (tls_ca_file)");
  so.tls_verify_clients = 7;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_INVALID);
  ck_assert_str_eq(why, "unknown tls_verify_clients 7");
  so.tls_verify_clients = IIOP_TLS_VERIFY_NONE;
  so.tls_cert = garbage;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the certificate file %s: error:", garbage);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  ck_assert_ptr_null(s);
}
END_TEST

/* Encrypted keys: the right password loads (and works), a wrong one or
 * none fails with the key file named and OpenSSL's reason -- never a
 * prompt on the terminal. */
START_TEST(test_key_password)
{
  NEED_OPENSSL();
  char why[IIOP_TLS_WHY_MAX + 128], want[256];
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.why = why;
  o.why_cap = sizeof why;
  o.tls_ca_file = ca;
  o.tls_cert_file = cli_crt;
  o.tls_key_file = cli_key_enc;
  iiop_client *c = (iiop_client *)1;
  o.tls_key_password = "wrong";
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the key file (with the password given) %s: ",
           cli_key_enc);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  /* Mostly "bad decrypt"; about one wrong password in 256 decrypts to valid
   * padding, and then the reason is the garbage's ASN.1 decoding. */
  ck_assert_msg(strstr(why, "bad decrypt") != NULL || strstr(why, "asn1") != NULL, "text: %s", why);
  o.tls_key_password = NULL;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the key file %s: error:", cli_key_enc);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);

  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.why = why;
  so.why_cap = sizeof why;
  so.tls_cert = srv_crt;
  so.tls_key = srv_key_enc;
  so.tls_key_password = "wrong";
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_TLS);
  snprintf(want, sizeof want, "TLS: cannot load the key file (with the password given) %s: ",
           srv_key_enc);
  ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "text: %s", why);
  /* Mostly "bad decrypt"; about one wrong password in 256 decrypts to valid
   * padding, and then the reason is the garbage's ASN.1 decoding. */
  ck_assert_msg(strstr(why, "bad decrypt") != NULL || strstr(why, "asn1") != NULL, "text: %s", why);

  /* Right passwords on both sides: mutual TLS works. */
  s = server(IIOP_TLS_REQUIRED, IIOP_TLS_VERIFY_PEER_FAIL, srv_key_enc, PASSWORD);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  c = client(IIOP_TLS_REQUIRED, ca, cli_crt, cli_key_enc, PASSWORD);
  expect_whoami(c, ior_of(s, &a), CLIENT_SUBJECT);
  iiop_client_free(c);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

static Suite *tls_suite(void)
{
  Suite *s = suite_create("tls");
  TCase *tc = tcase_create("tls");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_mutual);
  tcase_add_test(tc, test_verify_peer);
  tcase_add_test(tc, test_no_client_cert);
  tcase_add_test(tc, test_wrong_ca);
  tcase_add_test(tc, test_ior_bits);
  tcase_add_test(tc, test_off_against_required);
  tcase_add_test(tc, test_forward_required);
  tcase_add_test(tc, test_corbaloc_ssliop);
  tcase_add_test(tc, test_bad_files);
  tcase_add_test(tc, test_key_password);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = tls_suite, .setup = certs_setup, .teardown = certs_teardown };
