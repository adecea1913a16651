/* check_sockwhy.c - the system's own reason in the texts of a failed
 * connect (iiop_client_last_error()) and a failed listen
 * (iiop_server_opts.why): "Connection refused" and "Address already in
 * use", not libiiop's generic "I/O error". */
#include <check.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

/* Resolving a corbaloc URL at PORT of 127.0.0.1 and calling ping: the
 * call's status, *WHY the client's last error. */
static int call_at(const char *host, uint16_t port, char *why, size_t cap)
{
  iiop_client *c = iiop_client_new(NULL);
  ck_assert_ptr_nonnull(c);
  char url[128];
  snprintf(url, sizeof url, "corbaloc::%s:%u/Echo", host, (unsigned)port);
  iiop_ref *r = NULL;
  int rc = iiop_client_resolve(c, url, &r);
  if (rc == CDR_OK) {
    iiop_call *call = NULL;
    cdr_out *args = NULL;
    rc = iiop_call_begin(r, "ping", 0, &call, &args);
    ck_assert_int_eq(rc, CDR_OK);
    cdr_in *res = NULL;
    rc = iiop_call_invoke(call, &res);
    iiop_call_end(call);
    iiop_ref_free(r);
  }
  iiop_client_last_error(c, why, cap);
  iiop_client_free(c);
  return rc;
}

START_TEST(test_connect_refused)
{
  uint16_t port;
  int l = nu_listen(1, &port);
  close(l);                          /* nobody listens there now */
  char why[IIOP_CLIENT_ERROR_MAX];
  ck_assert_int_eq(call_at("127.0.0.1", port, why, sizeof why), CDR_E_IO);
  char want[128];
  snprintf(want, sizeof want, "connect to 127.0.0.1:%u: Connection refused", (unsigned)port);
  ck_assert_str_eq(why, want);
}
END_TEST

START_TEST(test_connect_unresolvable)
{
  char why[IIOP_CLIENT_ERROR_MAX];
  ck_assert_int_eq(call_at("no-such-host.invalid", 2809, why, sizeof why), CDR_E_IO);
  /* the resolver's words: "Name or service not known", or "Temporary
   * failure in name resolution" where no resolver answers */
  const char *pre = "connect to no-such-host.invalid:2809: ";
  ck_assert_msg(strncmp(why, pre, strlen(pre)) == 0, "%s", why);
  const char *rest = why + strlen(pre);
  ck_assert_msg(strcmp(rest, "Name or service not known") == 0
                || strcmp(rest, "Temporary failure in name resolution") == 0
                || strcmp(rest, "No address associated with hostname") == 0, "%s", why);
}
END_TEST

START_TEST(test_listen_in_use)
{
  uint16_t port;
  int l = nu_listen(1, &port);
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  char why[256];
  so.host = "127.0.0.1";
  so.port = port;
  so.why = why;
  so.why_cap = sizeof why;
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_IO);
  ck_assert_ptr_null(s);
  char want[128];
  snprintf(want, sizeof want, "bind to 127.0.0.1:%u: Address already in use", (unsigned)port);
  ck_assert_str_eq(why, want);
  close(l);
  /* free again: the same options now make a server */
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_OK);
  ck_assert_str_eq(why, "");
  ck_assert_uint_eq(iiop_server_port(s), port);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_listen_foreign_address)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  char why[256];
  so.host = "192.0.2.1";             /* TEST-NET-1: no interface has it */
  so.port = 0;
  so.why = why;
  so.why_cap = sizeof why;
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_IO);
  ck_assert_str_eq(why, "bind to 192.0.2.1:0: Cannot assign requested address");
}
END_TEST

static Suite *sockwhy_suite(void)
{
  Suite *s = suite_create("sockwhy");
  TCase *tc = tcase_create("sockwhy");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_connect_refused);
  tcase_add_test(tc, test_connect_unresolvable);
  tcase_add_test(tc, test_listen_in_use);
  tcase_add_test(tc, test_listen_foreign_address);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = sockwhy_suite };
