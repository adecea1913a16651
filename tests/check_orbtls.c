/* check_orbtls.c - omniORB's SSL options in CORBA_ORB_init (corbaorb/corba.h;
 * docs/c-mapping.md, "TLS"): which are taken from argv, every malformed
 * value's INITIALIZE (minor CORBAORB_MINOR_BAD_ORB_ARG), the files that
 * cannot be used (INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR), the IORs of
 * giop:ssl endpoints, and calls between two ORBs of one process over TLS
 * (tests/interop/TlsEcho.idl through idl2c), -ORBclientTransportRule and
 * -ORBsslVerifyMode none included.  Certificates are made with the openssl
 * CLI into a temporary folder (the TLS tests say so and pass without it;
 * tests/tls-interop.test needs it in CI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "tlsecho.h"
#include "testutil.h"
#include "tlsutil.h"

/* ---------------------------------------------------------------- certificates */

static int have_openssl;
static char ca_file[TLSU_PATH_MAX], other_ca_file[TLSU_PATH_MAX], key_file[TLSU_PATH_MAX];
static char broken_file[TLSU_PATH_MAX], enc_key_file[TLSU_PATH_MAX];

/* A CA, a server certificate it signs for 127.0.0.1 with its key in one
 * PEM (srv-all.pem, omniORB's key file form), another CA, and a PEM that
 * holds a certificate and no key. */
static int certs_setup(void)
{
  if (!tlsu_begin("check_orbtls"))
    return 0;
  int rc = 0;
  rc |= tlsu_ca("ca", "ca.pem", "/CN=orbtls-CA");
  rc |= tlsu_ca("other", "other.pem", "/CN=other-CA");
  rc |= tlsu_leaf("srv", "srv.pem", "/CN=localhost", "ca", "ca.pem",
                  "subjectAltName=IP:127.0.0.1,DNS:localhost");
  rc |= tlsu_sh("cat srv.pem srv.key > srv-all.pem");
  rc |= tlsu_sh("openssl pkey -in srv.key -aes128 -passout pass:s3cret -out srv-enc.key && "
                "cat srv.pem srv-enc.key > srv-enc-all.pem");
  if (rc != 0)
    return 0;
  tlsu_path(ca_file, "ca.pem");
  tlsu_path(other_ca_file, "other.pem");
  tlsu_path(key_file, "srv-all.pem");
  tlsu_path(broken_file, "srv.pem");         /* no key in it */
  tlsu_path(enc_key_file, "srv-enc-all.pem"); /* "s3cret" */
  have_openssl = 1;
  return 0;
}

static void certs_teardown(void) { tlsu_end("check_orbtls"); }

#define NEED_OPENSSL() TLSU_NEED(have_openssl, "check_orbtls")

/* ---------------------------------------------------------------- helpers */

#define INIT(ev, ...)                                                             \
  te_orb_init((const char *const[]){ __VA_ARGS__ },                                 \
            (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)), \
            NULL, (ev))

static void assert_system(CORBA_Environment *ev, const char *id, CORBA_unsigned_long minor)
{
  ck_assert_int_eq(ev->_major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(ev), id);
  CORBA_SystemException *se = CORBA_exception_value(ev);
  ck_assert_uint_eq(se->minor, minor);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  CORBA_exception_free(ev);
}

/* ---------------------------------------------------------------- options */

START_TEST(test_options_taken)
{
  const char *o[] = { "-ORBsslCAFile", "/x/ca.pem", "keep1", "-ORBsslKeyFile", "/x/k.pem",
                      "-ORBsslKeyPassword", "", "-ORBsslVerifyMode", "peer,fail,once",
                      "-ORBclientTransportRule", "* unix,ssl,tcp", "-ORBsslCAPath", "v",
                      "keep2", "-ORBclientTransportRule", "* tcp" };
  char *argv[20];
  char prog[] = "prog";
  argv[0] = prog;
  for (int i = 0; i < 16; i++)
    argv[i + 1] = (char *)o[i];
  argv[17] = NULL;
  int argc = 17;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  /* the CA file is loaded by CORBA_ORB_init: none at /x, INITIALIZE */
  ck_assert_ptr_null(orb);
  assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);

  /* the same without the CA file: taken (-ORBsslCAPath, which has no
   * equivalent here, with its value), the rest left in order */
  for (int i = 2; i < 16; i++)
    argv[i - 1] = (char *)o[i];
  argv[15] = NULL;
  argc = 15;
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 3);
  ck_assert_str_eq(argv[0], "prog");
  ck_assert_str_eq(argv[1], "keep1");
  ck_assert_str_eq(argv[2], "keep2");
  CORBA_ORB_destroy(orb, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
}
END_TEST

/* every form omniORB documents is accepted */
START_TEST(test_options_good)
{
  static const char *const modes[] = { "none", "peer", "peer,fail", "peer,once", "peer,fail,once",
                                       "peer,once,fail" };
  static const char *const rules[] = { "* ssl", "* unix,ssl,tcp", "* tcp", "* tcp,ssl",
                                       "*\tssl", "  * unix , tcp", "* unix,tcp" };
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
    CORBA_ORB orb = INIT(&ev, "-ORBsslVerifyMode", modes[i]);
    ck_assert_msg(orb && ev._major == CORBA_NO_EXCEPTION, "verify mode '%s'", modes[i]);
    CORBA_ORB_destroy(orb, &ev);
  }
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    CORBA_ORB orb = INIT(&ev, "-ORBclientTransportRule", rules[i]);
    ck_assert_msg(orb && ev._major == CORBA_NO_EXCEPTION, "rule '%s'", rules[i]);
    CORBA_ORB_destroy(orb, &ev);
  }
  /* giop:tcp and giop:ssl on one host; the empty host is 127.0.0.1 for both */
  CORBA_ORB orb = INIT(&ev, "-ORBendPoint", "giop:tcp::0", "-ORBendPoint", "giop:ssl:127.0.0.1:",
                       "-ORBsslKeyFile", "/nonexistent.pem");
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

START_TEST(test_options_bad)
{
  static const char *const bad[][4] = {
    { "-ORBsslVerifyMode", "Peer" }, { "-ORBsslVerifyMode", "" },
    { "-ORBsslVerifyMode", "peer,fail,fail" }, { "-ORBsslVerifyMode", "none,fail" },
    { "-ORBsslVerifyMode", "peer,bogus" }, { "-ORBsslVerifyMode", "peer," },
    { "-ORBsslVerifyMode", "peer fail" }, { "-ORBsslVerifyMode", "fail" },
    { "-ORBclientTransportRule", "ssl" }, { "-ORBclientTransportRule", "*" },
    { "-ORBclientTransportRule", "* " }, { "-ORBclientTransportRule", "*ssl" },
    { "-ORBclientTransportRule", "* sctp,ssl" }, { "-ORBclientTransportRule", "* unix" },
    { "-ORBclientTransportRule", "* none" }, { "-ORBclientTransportRule", "localhost ssl" },
    { "-ORBclientTransportRule", "* ssl,tcpx" }, { "-ORBsslCAFile", "" }, { "-ORBsslKeyFile", "" },
    { "-ORBendPoint", "giop:ssl:127.0.0.1:65536" }, { "-ORBendPoint", "giop:ssl:127.0.0.1:x" },
    { "-ORBendPoint", "giop:ssl:127.0.0.1:+5" }, { "-ORBendPoint", "giop:ssl:noport" },
    { "-ORBendPoint", "giop:ssl:127.0.0.1:0" }, /* no -ORBsslKeyFile */
    { "-ORBendPoint", "giop:tcp:127.0.0.1:0", "-ORBendPoint", "giop:ssl:127.0.0.2:0" },
    { "-ORBendPoint", "giop:ssl:127.0.0.2:0", "-ORBendPoint", "giop:tcp:127.0.0.1:0" },
    { "-ORBsslKeyPassword" }, { "-ORBsslVerifyMode" }, { "-ORBclientTransportRule" },
  };
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int n = 0;
    while (n < 4 && bad[i][n])
      n++;
    const char *o[6];
    memcpy(o, bad[i], sizeof(char *) * (size_t)n);
    /* the two-endpoint cases get a key file, so that only the hosts differ */
    if (n == 4) {
      o[n++] = "-ORBsslKeyFile";
      o[n++] = "/nonexistent.pem";
    }
    CORBA_ORB orb = te_orb_init(o, n, NULL, &ev);
    ck_assert_msg(orb == NULL, "case %zu ('%s' '%s') accepted", i, bad[i][0], n > 1 ? bad[i][1] : "");
    assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_BAD_ORB_ARG);
  }
  /* without the bad one, the same options are fine (they were the cause) */
  CORBA_ORB orb = INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.2:0", "-ORBsslKeyFile", "/x.pem");
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* ---------------------------------------------------------------- servers */

typedef te_server server; /* tests/tlsecho.h */

/* ping(41) and echoString through a client ORB of OPTS: 0 (both right),
 * or the exception's ID in EX (and the ORB's reason in WHY) */
static int call_with(const char *target, const char *const *opts, int n, char *ex, size_t excap,
                     char *why, size_t whycap)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = te_orb_init(opts, n, NULL, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  TlsEcho_Echo e = CORBA_ORB_string_to_object(orb, target, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION); /* unreachable or not: a reference */
  int rc = 0;
  CORBA_long v = TlsEcho_Echo_ping(e, 41, &ev);
  if (ev._major == CORBA_NO_EXCEPTION) {
    ck_assert_int_eq(v, 42);
    CORBA_char *back = TlsEcho_Echo_echoString(e, "over TLS \xe9", &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    ck_assert_str_eq(back, "over TLS \xe9");
    CORBA_free(back);
  } else {
    snprintf(ex, excap, "%s", CORBA_exception_id(&ev));
    ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
    /* TRANSIENT: nothing was sent (COMM_FAILURE, a request written to a
     * peer that closed: MAYBE) */
    if (!strcmp(ex, ex_CORBA_TRANSIENT))
      ck_assert_int_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->completed,
                       CORBA_COMPLETED_NO);
    corbaorb_ORB_last_error(orb, why, whycap);
    CORBA_exception_free(&ev);
    rc = -1;
  }
  CORBA_Object_release(e, &ev);
  CORBA_ORB_destroy(orb, &ev);
  return rc;
}

#define CALL(target, ex, why, ...)                                                          \
  call_with((target), (const char *const[]){ "-ORBclientCallTimeOutPeriod", "20000", __VA_ARGS__ }, \
            (int)(sizeof((const char *const[]){ "", "", __VA_ARGS__ }) / sizeof(char *)),   \
            (ex), sizeof(ex), (why), sizeof(why))

START_TEST(test_ssl_only_server)
{
  NEED_OPENSSL();
  server s;
  te_server_start(&s, (const char *const[]){ "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile",
                                          key_file },
               4);
  /* TLS only: port 0, TAG_SSL_SEC_TRANS with its port, Integrity and
   * Confidentiality required */
  ck_assert_uint_eq(s.port, 0);
  ck_assert_uint_ne(s.tls_port, 0);
  ck_assert_uint_eq(s.requires, 6);
  char ex[128] = "", why[640] = "";
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file), 0);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file, "-ORBclientTransportRule", "* ssl"), 0);
  /* verify mode none: another CA's file does */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca_file, "-ORBsslVerifyMode", "none"), 0);
  /* the wrong CA: TRANSIENT, OpenSSL's reason */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca_file), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  char want[96];
  snprintf(want, sizeof want, "TLS to 127.0.0.1:%u: certificate verify failed", s.tls_port);
  ck_assert_msg(!strncmp(why, want, strlen(want)), "why: '%s'", why);
  /* no CA file; "* tcp": the reference is made, its calls raise TRANSIENT */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslVerifyMode", "peer"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file, "-ORBclientTransportRule", "* tcp"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  /* the server's own ORB has no CA file: its reference is unreachable to
   * it, and says so with TRANSIENT rather than failing to exist */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  TlsEcho_Echo_ping(s.ref, 1, &ev);
  assert_system(&ev, ex_CORBA_TRANSIENT, 0);
  ck_assert_int_eq(CORBA_Object_is_a(s.ref, "IDL:TlsEcho/Echo:1.0", &ev), 0);
  assert_system(&ev, ex_CORBA_TRANSIENT, 0);
  corbaorb_Object_set_call_timeout(s.ref, 100, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  corbaorb_Object_set_call_timeout(s.ref, -5, &ev);
  assert_system(&ev, ex_CORBA_BAD_PARAM, 0);
  /* a plain corbaloc to the TLS port is no GIOP peer */
  char loc[80];
  snprintf(loc, sizeof loc, "corbaloc::127.0.0.1:%u/TlsEcho", s.tls_port);
  ck_assert_int_eq(CALL(loc, ex, why, "-ORBclientTransportRule", "* tcp"), -1);
  ck_assert_msg(!strcmp(ex, ex_CORBA_COMM_FAILURE) || !strcmp(ex, ex_CORBA_TRANSIENT), "%s", ex);
  /* "* ssl" and a corbaloc (no TLS component): TRANSIENT, and why */
  snprintf(loc, sizeof loc, "corbaloc::127.0.0.1:%u/TlsEcho", s.tls_port);
  ck_assert_int_eq(CALL(loc, ex, why, "-ORBsslCAFile", ca_file, "-ORBclientTransportRule", "* ssl"), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  ck_assert_msg(why[0] != 0, "no reason for the unmet * ssl");
  te_server_stop(&s);
}
END_TEST

START_TEST(test_tcp_and_ssl_server)
{
  NEED_OPENSSL();
  server s;
  te_server_start(&s, (const char *const[]){ "-ORBendPoint", "giop:tcp:127.0.0.1:0", "-ORBendPoint",
                                          "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", key_file },
               6);
  ck_assert_uint_ne(s.port, 0);
  ck_assert_uint_ne(s.tls_port, 0);
  ck_assert_uint_ne(s.port, s.tls_port);
  ck_assert_uint_eq(s.requires, 0);
  char ex[128] = "", why[640] = "";
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file, "-ORBclientTransportRule", "* ssl"), 0);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBclientTransportRule", "* tcp"), 0);
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBclientTransportRule", "* unix,ssl,tcp"), 0); /* no CA: plain */
  /* with a CA file the default takes TLS: the wrong CA shows it */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca_file), -1);
  ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
  /* ... and "* tcp" keeps to plain IIOP whatever the CA file */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca_file, "-ORBclientTransportRule", "* tcp"), 0);
  /* the first "*" rule wins, as omniORB's */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", other_ca_file, "-ORBclientTransportRule",
                        "* tcp", "-ORBclientTransportRule", "* ssl"),
                   0);
  /* the server's own ORB reaches its reference over plain IIOP */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert_int_eq(TlsEcho_Echo_ping(s.ref, 1, &ev), 2);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  te_server_stop(&s);
}
END_TEST

/* -ORBsslKeyFile that cannot be used: INITIALIZE when the POA makes the server */
START_TEST(test_bad_key_file)
{
  NEED_OPENSSL();
  static const char *const files[] = { "/nonexistent/key.pem", NULL };
  for (int k = 0; k < 2; k++) {
    const char *f = files[k] ? files[k] : broken_file;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_ORB orb = INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", f);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    CORBA_Object poa = CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
    ck_assert_ptr_null(poa);
    assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);
    CORBA_ORB_destroy(orb, &ev);
  }
  /* client verification without a CA file to verify with */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", key_file,
                       "-ORBsslVerifyMode", "peer,fail");
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_null(CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev));
  assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* -ORBsslVerifyMode peer,fail on the server: IORs require
 * EstablishTrustInClient; a client ORB with -ORBsslKeyFile (the server's
 * own certificate here, signed by the same CA) is served, one without is
 * refused by the server's handshake */
START_TEST(test_client_certificates)
{
  NEED_OPENSSL();
  server s;
  te_server_start(&s, (const char *const[]){ "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile",
                                          key_file, "-ORBsslCAFile", ca_file, "-ORBsslVerifyMode",
                                          "peer,fail" },
               8);
  ck_assert_uint_eq(s.requires, 0x46);
  char ex[128] = "", why[640] = "";
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file, "-ORBsslKeyFile", key_file), 0);
  /* Without a certificate the client tries (omniORB requires
   * EstablishTrustInClient in every SSL IOR, verifying or not) and the
   * server refuses the handshake: with TLS 1.3 the client reads the alert
   * on the reply's read (COMM_FAILURE) or, its write meeting the closed
   * connection, reads it there (TRANSIENT), as the timing falls. Either
   * way the text is OpenSSL's reason (docs/c-mapping.md, "TLS error
   * texts"). */
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file), -1);
  char rd[160], wr[160];
  snprintf(rd, sizeof rd, "TLS read from 127.0.0.1:%u: error:0A00045C:SSL routines::tlsv13 alert "
           "certificate required", s.tls_port);
  snprintf(wr, sizeof wr, "TLS write to 127.0.0.1:%u: error:0A00045C:SSL routines::tlsv13 alert "
           "certificate required", s.tls_port);
  if (!strcmp(ex, ex_CORBA_COMM_FAILURE))
    ck_assert_str_eq(why, rd);
  else {
    ck_assert_str_eq(ex, ex_CORBA_TRANSIENT);
    ck_assert_str_eq(why, wr);
  }
  te_server_stop(&s);
}
END_TEST

/* an encrypted key: -ORBsslKeyPassword opens it; a wrong or no password
 * is INITIALIZE when the server is made (no prompt on a terminal) */
START_TEST(test_key_password)
{
  NEED_OPENSSL();
  server s;
  te_server_start(&s, (const char *const[]){ "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile",
                                          enc_key_file, "-ORBsslKeyPassword", "s3cret" },
               6);
  char ex[128] = "", why[640] = "";
  ck_assert_int_eq(CALL(s.ior, ex, why, "-ORBsslCAFile", ca_file), 0);
  te_server_stop(&s);
  for (int k = 0; k < 2; k++) {
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_ORB orb = k ? INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", enc_key_file,
                             "-ORBsslKeyPassword", "wrong")
                      : INIT(&ev, "-ORBendPoint", "giop:ssl:127.0.0.1:0", "-ORBsslKeyFile", enc_key_file);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    ck_assert_ptr_null(CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev));
    assert_system(&ev, ex_CORBA_INITIALIZE, CORBAORB_MINOR_TRANSPORT_ERROR);
    CORBA_ORB_destroy(orb, &ev);
  }
}
END_TEST

static Suite *orbtls_suite(void)
{
  Suite *s = suite_create("orbtls");
  TCase *tc = tcase_create("options");
  tcase_add_test(tc, test_options_taken);
  tcase_add_test(tc, test_options_good);
  tcase_add_test(tc, test_options_bad);
  suite_add_tcase(s, tc);
  tc = tcase_create("tls");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ssl_only_server);
  tcase_add_test(tc, test_tcp_and_ssl_server);
  tcase_add_test(tc, test_bad_key_file);
  tcase_add_test(tc, test_client_certificates);
  tcase_add_test(tc, test_key_password);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = orbtls_suite, .setup = certs_setup, .teardown = certs_teardown };
