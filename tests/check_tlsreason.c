/* check_tlsreason.c - OpenSSL's reason in the text of every TLS error
 * (docs/c-mapping.md, "TLS error texts"; docs/tls.md, "Errors and their
 * texts"): through the C mapping (corbaorb_ORB_last_error(), NULL for a
 * failed CORBA_ORB_init) and the native client (iiop_client_last_error()).
 *
 * - CORBA_ORB_init: a missing or unreadable CA file, a client key file that
 *   is no PEM, holds no key, a key that is not the certificate's, a wrong
 *   password; every INITIALIZE names its option.
 * - The ORB's server (RootPOA): the same for -ORBsslKeyFile, a wrong or no
 *   password, a peer verify mode without a CA file; the client's own later
 *   failure replaces that text.
 * - Handshakes between two ORBs of this process: the wrong CA, a server
 *   certificate for another name (no subjectAltName IP:127.0.0.1), a client
 *   certificate the server refuses, none where one is required, a
 *   plaintext client on a TLS port and a TLS client on a plain port, and
 *   references the ORB's options do not let it reach.
 * - A TLS 1.3 server that refuses the client's certificate and resets the
 *   connection at once (as omniORB's does): the request's write meets the
 *   reset, and the text is still the server's alert (a test server made
 *   with OpenSSL here; a client hook holds the request until the reset has
 *   come, so the order is certain).
 *
 * Certificates: the openssl command in a fresh mkdtemp() directory (gone at
 * the end); without the command every test says so and checks nothing. */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "tlsecho.h"
#include "netutil.h"
#include "testutil.h"
#include "tlsutil.h"

/* ---------------------------------------------------------------- certificates */

static int have_openssl;
static char ca[TLSU_PATH_MAX], other_ca[TLSU_PATH_MAX], srv_all[TLSU_PATH_MAX];
static char srv_crt[TLSU_PATH_MAX], srv_key[TLSU_PATH_MAX], enc_all[TLSU_PATH_MAX];
static char cli_all[TLSU_PATH_MAX], stranger_all[TLSU_PATH_MAX], elsewhere_all[TLSU_PATH_MAX];
static char mismatch[TLSU_PATH_MAX], garbage[TLSU_PATH_MAX], certonly[TLSU_PATH_MAX];
static char missing[TLSU_PATH_MAX];

#define PASSWORD "s3cret"

/* ca.pem signs srv (subjectAltName IP:127.0.0.1), cli and elsewhere (a
 * name that is not this host's); other.pem signs stranger.  *-all.pem:
 * certificate and key in one PEM (-ORBsslKeyFile's form).  enc-all.pem:
 * srv's key encrypted with PASSWORD; made again until "wrong" fails with
 * "bad decrypt" (about one wrong password in 256 decrypts to valid padding
 * and fails later, in the ASN.1 decoding). */
static int certs_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  if (!tlsu_begin("check_tlsreason"))
    return 0;
  int rc = 0;
  rc |= tlsu_ca("ca", "ca.pem", "/CN=tlsreason-CA");
  rc |= tlsu_ca("other", "other.pem", "/CN=other-CA");
  static const char *const leaf[][3] = {
    { "srv", "ca", "subjectAltName=IP:127.0.0.1,DNS:localhost" },
    { "cli", "ca", "extendedKeyUsage=clientAuth" },
    { "elsewhere", "ca", "subjectAltName=DNS:elsewhere.example" },
    { "stranger", "other", "extendedKeyUsage=clientAuth" },
  };
  for (size_t k = 0; k < sizeof leaf / sizeof leaf[0]; k++) {
    char crt[64], subj[64], ca_crt[64], cmd[256];
    snprintf(crt, sizeof crt, "%s.pem", leaf[k][0]);
    snprintf(subj, sizeof subj, "/CN=%s", leaf[k][0]);
    snprintf(ca_crt, sizeof ca_crt, "%s.pem", leaf[k][1]);
    rc |= tlsu_leaf(leaf[k][0], crt, subj, leaf[k][1], ca_crt, leaf[k][2]);
    snprintf(cmd, sizeof cmd, "cat %s.pem %s.key > %s-all.pem", leaf[k][0], leaf[k][0], leaf[k][0]);
    rc |= tlsu_sh(cmd);
  }
  int enc_ok = 0;
  for (int k = 0; k < 16 && !enc_ok; k++)
    enc_ok = tlsu_sh("openssl pkey -in srv.key -aes128 -passout pass:" PASSWORD " -out srv-enc.key && "
                     "cat srv.pem srv-enc.key > enc-all.pem && "
                     "! openssl pkey -in srv-enc.key -passin pass:wrong -noout 2>wrong.txt && "
                     "grep -q 'bad decrypt' wrong.txt") == 0;
  rc |= !enc_ok;
  rc |= tlsu_sh("cat srv.pem cli.key > mismatch.pem");
  rc |= tlsu_sh("printf 'not a certificate\\n' > garbage.pem");
  rc |= tlsu_sh("cp srv.pem certonly.pem");
  if (rc != 0)
    return 0;
  tlsu_path(ca, "ca.pem");
  tlsu_path(other_ca, "other.pem");
  tlsu_path(srv_all, "srv-all.pem");
  tlsu_path(srv_crt, "srv.pem");
  tlsu_path(srv_key, "srv.key");
  tlsu_path(enc_all, "enc-all.pem");
  tlsu_path(cli_all, "cli-all.pem");
  tlsu_path(stranger_all, "stranger-all.pem");
  tlsu_path(elsewhere_all, "elsewhere-all.pem");
  tlsu_path(mismatch, "mismatch.pem");
  tlsu_path(garbage, "garbage.pem");
  tlsu_path(certonly, "certonly.pem");
  tlsu_path(missing, "no-such-file.pem");
  have_openssl = 1;
  return 0;
}

static void certs_teardown(void) { tlsu_end("check_tlsreason"); }

#define NEED_OPENSSL() TLSU_NEED(have_openssl, "check_tlsreason")

/* ---------------------------------------------------------------- texts */

/* TEXT must begin with PREFIX and hold SUB (NULL: nothing more). */
#define ASSERT_TEXT(text, prefix, sub)                                                  \
  do {                                                                                  \
    const char *t_ = (text), *p_ = (prefix), *s_ = (sub);                               \
    ck_assert_msg(!strncmp(t_, p_, strlen(p_)), "text '%s'\n  want prefix '%s'", t_, p_); \
    ck_assert_msg(!s_ || strstr(t_ + strlen(p_), s_), "text '%s'\n  want '%s' in it", t_, s_); \
  } while (0)

/* The calling thread's CORBA_ORB_init failure text. */
static const char *init_text(void)
{
  static char t[CORBAORB_ERROR_MAX];
  size_t n = corbaorb_ORB_last_error(NULL, t, sizeof t);
  ck_assert_uint_eq(n, strlen(t));
  return t;
}

static const char *orb_text(CORBA_ORB orb)
{
  static char t[CORBAORB_ERROR_MAX];
  size_t n = corbaorb_ORB_last_error(orb, t, sizeof t);
  ck_assert_uint_eq(n, strlen(t));
  return t;
}

/* ---------------------------------------------------------------- ORBs */

static CORBA_ORB init_with(const char *const *opts, int n, CORBA_Environment *ev)
{
  return te_orb_init(opts, n, NULL, ev);
}

#define NOPTS(...) (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))
#define INIT(ev, ...) init_with((const char *const[]){ __VA_ARGS__ }, NOPTS(__VA_ARGS__), (ev))

static void assert_system(CORBA_Environment *ev, const char *id, CORBA_unsigned_long minor)
{
  ck_assert_int_eq(ev->_major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(ev), id);
  ck_assert_uint_eq(((CORBA_SystemException *)CORBA_exception_value(ev))->minor, minor);
  CORBA_exception_free(ev);
}

/* CORBA_ORB_init of OPTS fails with INITIALIZE (TLS) and the text is
 * PREFIX... SUB. */
#define INIT_FAILS_TLS(prefix, sub, ...)                                        \
  do {                                                                          \
    CORBA_Environment ev_;                                                      \
    CORBA_exception_init(&ev_);                                                 \
    ck_assert_ptr_null(INIT(&ev_, __VA_ARGS__));                                \
    assert_system(&ev_, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);   \
    ASSERT_TEXT(init_text(), (prefix), (sub));                                  \
  } while (0)

/* An ORB of OPTS whose RootPOA fails with INITIALIZE: the ORB's text. */
static const char *server_fails(const char *const *opts, int n)
{
  static char t[CORBAORB_ERROR_MAX];
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = init_with(opts, n, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(orb_text(orb), "");
  ck_assert_ptr_null(CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev));
  assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);
  snprintf(t, sizeof t, "%s", orb_text(orb));
  /* the same again: the server is tried again, the same text */
  ck_assert_ptr_null(CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev));
  CORBA_exception_free(&ev);
  ck_assert_str_eq(orb_text(orb), t);
  CORBA_ORB_destroy(orb, &ev);
  return t;
}

#define SERVER_FAILS(...) server_fails((const char *const[]){ __VA_ARGS__ }, NOPTS(__VA_ARGS__))

/* ---------------------------------------------------------------- the server (tests/tlsecho.h) */

typedef te_server server;

#define SERVER_START(s, ...) te_server_start((s), (const char *const[]){ __VA_ARGS__ }, NOPTS(__VA_ARGS__))

/* An IOR for key "TlsEcho" at 127.0.0.1: IIOP port PORT, TAG_SSL_SEC_TRANS
 * (supports 0x66, requires 0x66, as omniORB's) with port SSLPORT. */
static char *ior_made(uint16_t port, uint16_t sslport, cdr_arena *a)
{
  iiop_component comp;
  ck_assert_int_eq(iiop_ssl_component_encode(0x66, 0x66, sslport, CDR_HOST_ORDER, a, &comp), CDR_OK);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_make(a, "IDL:TlsEcho/Echo:1.0", 1, 2, "127.0.0.1", port,
                                 (const uint8_t *)"TlsEcho", 7, &comp, 1, &ior), CDR_OK);
  char *str = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_HOST_ORDER, a, &str), CDR_OK);
  return str;
}

/* A client ORB of OPTS pings TARGET (with hook IC, if any): 0 when the
 * call succeeds, else -1 with the exception's ID in EX and the ORB's text
 * in WHY. */
static int call_with(const char *target, const iiop_client_interceptor *ic, void *ud,
                     const char *const *opts, int n, char *ex, size_t excap, char *why,
                     size_t whycap)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = init_with(opts, n, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  if (ic)
    corbaorb_orb_add_client_interceptor(orb, ic, ud, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  TlsEcho_Echo e = CORBA_ORB_string_to_object(orb, target, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  int rc = 0;
  CORBA_long v = TlsEcho_Echo_ping(e, 41, &ev);
  ex[0] = why[0] = 0;
  if (ev._major == CORBA_NO_EXCEPTION) {
    ck_assert_int_eq(v, 42);
  } else {
    ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
    snprintf(ex, excap, "%s", CORBA_exception_id(&ev));
    corbaorb_ORB_last_error(orb, why, whycap);
    CORBA_exception_free(&ev);
    rc = -1;
  }
  CORBA_Object_release(e, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return rc;
}

#define CALL(target, ex, why, ...)                                                         \
  call_with((target), NULL, NULL,                                                          \
            (const char *const[]){ "-ORBclientCallTimeOutPeriod", "20000", __VA_ARGS__ },  \
            NOPTS("", "", __VA_ARGS__), (ex), sizeof(ex), (why), sizeof(why))

/* ---------------------------------------------------------------- CORBA_ORB_init */

START_TEST(test_init_files)
{
  NEED_OPENSSL();
  char want[512];
  /* the CA file: missing, no PEM, a directory */
  snprintf(want, sizeof want, "-ORBsslCAFile %s: error:80000002:system library::No such file or directory",
           missing);
  INIT_FAILS_TLS(want, NULL, "-ORBsslCAFile", missing);
  snprintf(want, sizeof want, "-ORBsslCAFile %s: ", garbage);
  INIT_FAILS_TLS(want, "no certificate or crl found", "-ORBsslCAFile", garbage);
  /* the client's key file (loaded with a CA file): no PEM, no key in it,
   * another key, a wrong password */
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its certificate: ", garbage);
  INIT_FAILS_TLS(want, "no start line", "-ORBsslCAFile", ca, "-ORBsslKeyFile", garbage);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its certificate: error:80000002:system library::No such file or directory", missing);
  INIT_FAILS_TLS(want, NULL, "-ORBsslCAFile", ca, "-ORBsslKeyFile", missing);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key: ", certonly);
  INIT_FAILS_TLS(want, "DECODER routines::unsupported", "-ORBsslCAFile", ca, "-ORBsslKeyFile", certonly);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: the private key is not the certificate's: ", mismatch);
  INIT_FAILS_TLS(want, "key values mismatch", "-ORBsslCAFile", ca, "-ORBsslKeyFile", mismatch);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key (with -ORBsslKeyPassword): ", enc_all);
  INIT_FAILS_TLS(want, "bad decrypt", "-ORBsslCAFile", ca, "-ORBsslKeyFile", enc_all,
                 "-ORBsslKeyPassword", "wrong");
  ck_assert_ptr_null(strstr(init_text(), "wrong")); /* the password is never in a text */
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key: ", enc_all);
  INIT_FAILS_TLS(want, "bad decrypt", "-ORBsslCAFile", ca, "-ORBsslKeyFile", enc_all);
  /* a success empties the thread's text */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = INIT(&ev, "-ORBsslCAFile", ca, "-ORBsslKeyFile", enc_all, "-ORBsslKeyPassword", PASSWORD);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(init_text(), "");
  ck_assert_str_eq(orb_text(orb), "");
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* Another thread's CORBA_ORB_init failure is not this thread's text. */
static void *init_missing_ca(void *arg)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = INIT(&ev, "-ORBsslCAFile", missing);
  CORBA_exception_free(&ev);
  *(int *)arg = orb == NULL && !strncmp(init_text(), "-ORBsslCAFile ", 14);
  return NULL;
}

START_TEST(test_init_per_thread)
{
  NEED_OPENSSL();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert_ptr_null(INIT(&ev, "-ORBsslVerifyMode", "sometimes"));
  CORBA_exception_free(&ev);
  ck_assert_str_eq(init_text(), "-ORBsslVerifyMode \"sometimes\": not none, peer, peer,fail, "
                                "peer,once or peer,fail,once");
  pthread_t th;
  int ok = 0;
  ck_assert_int_eq(pthread_create(&th, NULL, init_missing_ca, &ok), 0);
  pthread_join(th, NULL);
  ck_assert_int_eq(ok, 1);
  ck_assert_str_eq(init_text(), "-ORBsslVerifyMode \"sometimes\": not none, peer, peer,fail, "
                                "peer,once or peer,fail,once");
  /* cut at CAP - 1, the full length returned */
  char small[8];
  ck_assert_uint_eq(corbaorb_ORB_last_error(NULL, small, sizeof small), strlen(init_text()));
  ck_assert_str_eq(small, "-ORBssl");
}
END_TEST

START_TEST(test_init_bad_param)
{
  static const struct {
    const char *opt, *val, *text;
  } bad[] = {
    { "-ORBsslVerifyMode", "peer,bogus",
      "-ORBsslVerifyMode \"peer,bogus\": not none, peer, peer,fail, peer,once or peer,fail,once" },
    { "-ORBclientTransportRule", "* sctp",
      "-ORBclientTransportRule \"* sctp\": not \"* ACTIONS\" (mask *; actions unix, tcp, ssl, "
      "bidir; tcp or ssl among them)" },
    { "-ORBserverTransportRule", "host ssl",
      "-ORBserverTransportRule \"host ssl\": not \"* ACTIONS\" (mask *; actions unix, tcp, ssl, "
      "bidir; tcp or ssl among them)" },
    { "-ORBsslCAFile", "", "-ORBsslCAFile \"\": an empty file name" },
    { "-ORBsslKeyFile", "", "-ORBsslKeyFile \"\": an empty file name" },
    { "-ORBendPoint", "giop:ssl:127.0.0.1:65536",
      "-ORBendPoint \"giop:ssl:127.0.0.1:65536\": not giop:tcp:HOST:PORT or giop:ssl:HOST:PORT "
      "(PORT empty or 0 to 65535; giop:tcp and giop:ssl on one host)" },
    { "-ORBendPoint", "giop:ssl:127.0.0.1:0",
      "-ORBendPoint giop:ssl: needs -ORBsslKeyFile (the server's certificate and key)" },
    { "-ORBclientCallTimeOutPeriod", "18446744073709551616",
      "-ORBclientCallTimeOutPeriod \"18446744073709551616\": not a number of milliseconds n >= 0" },
    { "-ORBofferBiDirectionalGIOP", "2", "-ORBofferBiDirectionalGIOP \"2\": not 0 or 1" },
    { "-ORBInitRef", "NameService", "-ORBInitRef \"NameService\": not NAME=URL" },
    { "-ORBsslKeyPassword", NULL, "-ORBsslKeyPassword: no value" },
    { "-ORBsslVerifyMode", NULL, "-ORBsslVerifyMode: no value" },
  };
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *o[2] = { bad[i].opt, bad[i].val };
    ck_assert_ptr_null(init_with(o, bad[i].val ? 2 : 1, &ev));
    assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_BAD_ORB_ARG);
    ck_assert_str_eq(init_text(), bad[i].text);
  }
}
END_TEST

/* ---------------------------------------------------------------- the ORB's server */

START_TEST(test_server_files)
{
  NEED_OPENSSL();
  char want[512];
  const char *t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", missing);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its certificate: error:80000002:system library::No such file or directory", missing);
  ASSERT_TEXT(t, want, NULL);
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", garbage);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its certificate: ", garbage);
  ASSERT_TEXT(t, want, "no start line");
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", certonly);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key: ", certonly);
  ASSERT_TEXT(t, want, "DECODER routines::unsupported");
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", mismatch);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: the private key is not the certificate's: ", mismatch);
  ASSERT_TEXT(t, want, "key values mismatch");
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", enc_all,
                   "-ORBsslKeyPassword", "wrong");
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key (with -ORBsslKeyPassword): ", enc_all);
  ASSERT_TEXT(t, want, "bad decrypt");
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", enc_all);
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its private key: ", enc_all);
  ASSERT_TEXT(t, want, "bad decrypt");
  t = SERVER_FAILS("-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", srv_all,
                   "-ORBsslVerifyMode", "peer,fail");
  ck_assert_str_eq(t, "-ORBsslVerifyMode peer needs -ORBsslCAFile (the CAs client certificates "
                      "are verified against)");
  /* the server's CA file (loaded by CORBA_ORB_init for the client first) */
  snprintf(want, sizeof want, "-ORBsslCAFile %s: ", garbage);
  INIT_FAILS_TLS(want, "no certificate or crl found", "-ORBendPoint", "giop:ssl:127.0.0.1:0",
                 "-ORBsslKeyFile", srv_all, "-ORBsslCAFile", garbage, "-ORBsslVerifyMode", "peer");
}
END_TEST

/* The server's text stays the ORB's until the client fails on its own. */
START_TEST(test_server_then_client)
{
  NEED_OPENSSL();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", garbage,
                       "-ORBclientCallTimeOutPeriod", "5000");
  ck_assert_ptr_null(CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev));
  CORBA_exception_free(&ev);
  char want[256];
  snprintf(want, sizeof want, "-ORBsslKeyFile %s: its certificate: ", garbage);
  ASSERT_TEXT(orb_text(orb), want, "no start line");
  /* a plain call to a port nothing listens on (the one just freed) */
  uint16_t port;
  close(nu_listen(-1, &port));
  char loc[80];
  snprintf(loc, sizeof loc, "corbaloc::127.0.0.1:%u/TlsEcho", (unsigned)port);
  TlsEcho_Echo e = CORBA_ORB_string_to_object(orb, loc, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  TlsEcho_Echo_ping(e, 1, &ev);
  assert_system(&ev, ex_CORBA_TRANSIENT, CORBAORB_MINOR_CONNECT_FAILED);
  snprintf(want, sizeof want, "connect to 127.0.0.1:%u: ", (unsigned)port);
  ASSERT_TEXT(orb_text(orb), want, NULL);
  CORBA_Object_release(e, &ev);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* ---------------------------------------------------------------- handshakes */

START_TEST(test_server_verified)
{
  NEED_OPENSSL();
  server s;
  SERVER_START(&s, "-ORBendPoint", "giop:tcp:127.0.0.1:0", "-ORBendPoint", "giop:ssl:127.0.0.1:0",
               "-ORBsslKeyFile", srv_all);
  char ex[128], why[CORBAORB_ERROR_MAX], want[256];
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBclientTransportRule", "* ssl"), 0);
  /* the wrong CA */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  snprintf(want, sizeof want, "TLS to 127.0.0.1:%u: certificate verify failed: unable to get "
           "local issuer certificate", s.tls_port);
  ck_assert_str_eq(why, want);
  te_server_stop(&s);

  /* a certificate of the right CA for another name: no IP:127.0.0.1 */
  SERVER_START(&s, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", elsewhere_all);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  snprintf(want, sizeof want, "TLS to 127.0.0.1:%u: certificate verify failed: IP address mismatch",
           s.tls_port);
  ck_assert_str_eq(why, want);
  /* verify mode none: not checked */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBsslVerifyMode", "none"), 0);
  te_server_stop(&s);
}
END_TEST

/* References the ORB cannot reach over the transports it may use: their
 * calls raise TRANSIENT, and the text says which option is why. */
START_TEST(test_unreachable)
{
  NEED_OPENSSL();
  server s;
  SERVER_START(&s, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", srv_all);
  char ex[128], why[CORBAORB_ERROR_MAX], want[256], loc[80];
  /* the server's own ORB: no CA file */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  TlsEcho_Echo_ping(s.ref, 1, &ev);
  assert_system(&ev, ex_CORBA_TRANSIENT, 0);
  ck_assert_str_eq(orb_text(s.orb), "TLS required by the reference to 127.0.0.1:0 (target_requires "
                                    "0x0006) but the ORB has no -ORBsslCAFile");
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBclientTransportRule", "* tcp"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  ck_assert_str_eq(why, "TLS required by the reference to 127.0.0.1:0 (target_requires 0x0006) "
                        "but the ORB's -ORBclientTransportRule is \"* tcp\"");
  snprintf(loc, sizeof loc, "corbaloc::127.0.0.1:%u/TlsEcho", s.tls_port);
  ck_assert_int_eq(CALL(loc, ex, why, "-ORBsslCAFile", ca, "-ORBclientTransportRule", "* ssl"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  snprintf(want, sizeof want, "-ORBclientTransportRule \"* ssl\" but the reference to 127.0.0.1:%u "
           "offers no TLS port", s.tls_port);
  ck_assert_str_eq(why, want);
  ck_assert_int_eq(CALL(loc, ex, why, "-ORBclientTransportRule", "* ssl"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  ck_assert_str_eq(why, "-ORBclientTransportRule \"* ssl\" but no -ORBsslCAFile");
  te_server_stop(&s);
}
END_TEST

/* "TLS read from" or "TLS write to" 127.0.0.1:PORT, then REASON: which of
 * the two depends on when the server's refusal comes (docs/tls.md). */
static void assert_refused(const char *ex, const char *why, uint16_t port, const char *reason)
{
  ck_assert_msg(!strcmp(ex, ex_CORBA_TRANSIENT) || !strcmp(ex, ex_CORBA_COMM_FAILURE), "ex %s", ex);
  char r[256], w[256];
  snprintf(r, sizeof r, "TLS read from 127.0.0.1:%u: %s", port, reason);
  snprintf(w, sizeof w, "TLS write to 127.0.0.1:%u: %s", port, reason);
  ck_assert_msg(!strcmp(why, r) || !strcmp(why, w), "why '%s'\n  want '%s'", why, r);
}

START_TEST(test_client_refused)
{
  NEED_OPENSSL();
  server s;
  SERVER_START(&s, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", srv_all,
               "-ORBsslCAFile", ca, "-ORBsslVerifyMode", "peer,fail");
  char ex[128], why[CORBAORB_ERROR_MAX];
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBsslKeyFile", cli_all), 0);
  /* none where one is required */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca), -1);
  assert_refused(ex, why, s.tls_port, "error:0A00045C:SSL routines::tlsv13 alert certificate required");
  /* one of another CA */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBsslKeyFile", stranger_all), -1);
  assert_refused(ex, why, s.tls_port, "error:0A000418:SSL routines::tlsv1 alert unknown ca");
  te_server_stop(&s);
  /* peer (no fail): none is served, a stranger's still refused */
  SERVER_START(&s, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", srv_all,
               "-ORBsslCAFile", ca, "-ORBsslVerifyMode", "peer");
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca), 0);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca, "-ORBsslKeyFile", stranger_all), -1);
  assert_refused(ex, why, s.tls_port, "error:0A000418:SSL routines::tlsv1 alert unknown ca");
  te_server_stop(&s);
}
END_TEST

START_TEST(test_plaintext_peer)
{
  NEED_OPENSSL();
  server s;
  SERVER_START(&s, "-ORBendPoint", "giop:tcp:127.0.0.1:0", "-ORBendPoint", "giop:ssl:127.0.0.1:0",
               "-ORBsslKeyFile", srv_all);
  char ex[128], why[CORBAORB_ERROR_MAX], want[256], loc[80];
  /* plain GIOP to the TLS port: OpenSSL closes without an alert (no TLS
   * record came) */
  snprintf(loc, sizeof loc, "corbaloc::127.0.0.1:%u/TlsEcho", s.tls_port);
  ck_assert_int_eq(CALL(loc, ex, why, "-ORBclientTransportRule", "* tcp"), -1);
  ck_assert_str_eq(ex, ex_CORBA_COMM_FAILURE);
  snprintf(want, sizeof want, "GIOP from 127.0.0.1:%u: connection closed before the reply",
           s.tls_port);
  ck_assert_str_eq(why, want);
  /* TLS to the plain port (an IOR that says so) */
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = ior_made(0, s.port, &a);
  ck_assert_int_eq(CALL(ior, ex, why, "-ORBsslCAFile", ca), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  /* (the server's MessageError, "GIOP...", read as a TLS record) */
  snprintf(want, sizeof want, "TLS to 127.0.0.1:%u: error:0A00010B:SSL routines::wrong version number",
           s.port);
  ck_assert_str_eq(why, want);
  cdr_arena_free(&a);
  te_server_stop(&s);
}
END_TEST

/* ---------------------------------------------------------------- a server that resets */

/* One TLS 1.3 handshake with a client certificate required (CA ca.pem):
 * when it fails, OpenSSL has sent the alert; the socket is then closed
 * with SO_LINGER 0 (a reset, as omniORB 4.2 does) and `closed` set. */
typedef struct rst_server {
  int lfd;
  uint16_t port;
  pthread_t th;
  int closed;                /* atomic */
  char why[256];             /* the server's OpenSSL error */
} rst_server;

static void *rst_main(void *arg)
{
  rst_server *r = arg;
  int fd = accept(r->lfd, NULL, NULL);
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  SSL *ssl = NULL;
  if (fd >= 0 && ctx && SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION)
      && SSL_CTX_use_certificate_chain_file(ctx, srv_crt) == 1
      && SSL_CTX_use_PrivateKey_file(ctx, srv_key, SSL_FILETYPE_PEM) == 1
      && SSL_CTX_load_verify_locations(ctx, ca, NULL) == 1) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    SSL_CTX_set_num_tickets(ctx, 0);
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1)
      snprintf(r->why, sizeof r->why, "accepted");
    else
      ERR_error_string_n(ERR_get_error(), r->why, sizeof r->why);
  }
  ERR_clear_error();
  struct linger lg = { 1, 0 };
  if (fd >= 0) {
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  __atomic_store_n(&r->closed, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void rst_start(rst_server *r)
{
  memset(r, 0, sizeof *r);
  r->lfd = nu_listen(4, &r->port);
  ck_assert_int_eq(pthread_create(&r->th, NULL, rst_main, r), 0);
}

static void rst_stop(rst_server *r)
{
  pthread_join(r->th, NULL);
  close(r->lfd);
}

/* The client's send_request hook: the handshake is done; hold the request
 * until the server has reset the connection (at most 10 s), and 50 ms for
 * the reset to arrive. */
static int hold_until_reset(void *ud, iiop_call *call)
{
  (void)call;
  rst_server *r = ud;
  for (int k = 0; k < 1000 && !__atomic_load_n(&r->closed, __ATOMIC_ACQUIRE); k++)
    nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
  nanosleep(&(struct timespec){ 0, 50 * 1000000L }, NULL);
  return 0;
}

static const iiop_client_interceptor hold_ic = { hold_until_reset, NULL };

START_TEST(test_reset_after_alert)
{
  NEED_OPENSSL();
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char ex[128], why[CORBAORB_ERROR_MAX], want[256];
  /* C mapping: no certificate, then one of another CA */
  for (int k = 0; k < 2; k++) {
    rst_server r;
    rst_start(&r);
    char *ior = ior_made(0, r.port, &a);
    const char *o[] = { "-ORBsslCAFile", ca, "-ORBsslKeyFile", stranger_all };
    ck_assert_int_eq(call_with(ior, &hold_ic, &r, o, k ? 4 : 2, ex, sizeof ex, why, sizeof why), -1);
    rst_stop(&r);
    ck_assert_str_eq(r.why, k ? "error:0A000086:SSL routines::certificate verify failed"
                              : "error:0A0000C7:SSL routines::peer did not return a certificate");
    /* the request was not written: TRANSIENT, ConnectionClosed */
    ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
    snprintf(want, sizeof want, "TLS write to 127.0.0.1:%u: %s", r.port,
             k ? "error:0A000418:SSL routines::tlsv1 alert unknown ca"
               : "error:0A00045C:SSL routines::tlsv13 alert certificate required");
    ck_assert_str_eq(why, want);
  }
  /* the native client: CDR_E_TLS, the same text */
  rst_server r;
  rst_start(&r);
  char *ior = ior_made(0, r.port, &a);
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.tls_ca_file = ca;
  co.timeout_ms = 20000;
  iiop_client *c = NULL;
  ck_assert_int_eq(iiop_client_create(&co, &c), CDR_OK);
  ck_assert_int_eq(iiop_client_add_interceptor(c, &hold_ic, &r), CDR_OK);
  iiop_ref *ref = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &ref), CDR_OK);
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(ref, "ping", 0, &call, &args), CDR_OK);
  cdr_put_long(args, 1);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_E_TLS);
  const giop_system_exception *se = iiop_call_exception(call);
  ck_assert_ptr_nonnull(se);
  ck_assert_str_eq(se->repo_id, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  ck_assert_uint_eq(se->minor, IIOP_MINOR_CONNECTION_CLOSED);
  iiop_call_end(call);
  rst_stop(&r);
  char err[IIOP_CLIENT_ERROR_MAX];
  ck_assert_uint_lt(iiop_client_last_error(c, err, sizeof err), sizeof err);
  snprintf(want, sizeof want, "TLS write to 127.0.0.1:%u: error:0A00045C:SSL routines::tlsv13 "
           "alert certificate required", r.port);
  ck_assert_str_eq(err, want);
  iiop_ref_free(ref);
  iiop_client_free(c);
  cdr_arena_free(&a);
}
END_TEST

static Suite *tlsreason_suite(void)
{
  Suite *s = suite_create("tlsreason");
  TCase *tc = tcase_create("init");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_init_files);
  tcase_add_test(tc, test_init_per_thread);
  tcase_add_test(tc, test_init_bad_param);
  tcase_add_test(tc, test_server_files);
  tcase_add_test(tc, test_server_then_client);
  suite_add_tcase(s, tc);
  tc = tcase_create("handshake");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_server_verified);
  tcase_add_test(tc, test_unreachable);
  tcase_add_test(tc, test_client_refused);
  tcase_add_test(tc, test_plaintext_peer);
  tcase_add_test(tc, test_reset_after_alert);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = tlsreason_suite, .setup = certs_setup,
                             .teardown = certs_teardown };
