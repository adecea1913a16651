/* check_orbconns.c - the C mapping's -ORBmaxGIOPConnectionPerServer N
 * (CORBA_ORB_init, libcorbaorb/orb.c: the ORB client's
 * iiop_client_opts.max_connections): the value's bounds (1 to
 * IIOP_CLIENT_CONNECTIONS_MAX, else INITIALIZE with minor
 * CORBAORB_MINOR_BAD_ORB_ARG), the option and its value leave argv, and
 * what it does: callers through the generated stub Shop_Store_ping, each
 * started once the server holds the calls before it, spread over exactly N
 * connections (the libiiop server in this process holds every ping until
 * the test opens a gate; one held call per connection, the others queued
 * behind them; the server's accepted count).  Without the option: the
 * library's default, IIOP_CLIENT_CONNECTIONS_DEFAULT. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <iiop/orb.h>
#include "shop.h"
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- the server */

/* ping(long x) -> x + 1, as tests/orb/shop-server.c's, once the gate is open. */
static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)r;
  return nu_hold_long(a, o, 1);
}

static const iiop_operation ops[] = { { "ping", op_ping } };
static const iiop_interface iface = { "IDL:Shop/Store:1.0", ops, 1, NULL };

static iiop_server *start_server(void)
{
  nu_gate_reset();
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  return nu_serve(&o, "Store", &iface, NULL);
}

/* ---------------------------------------------------------------- the ORB */

/* CORBA_ORB_init with "prog" and the N options O; *LEFT: argc after. */
static CORBA_ORB init_with(const char **o, int n, int *left, CORBA_Environment *ev)
{
  char *argv[8];
  argv[0] = "prog";
  for (int i = 0; i < n; i++)
    argv[i + 1] = (char *)o[i];
  argv[n + 1] = NULL;
  int argc = n + 1;
  CORBA_exception_init(ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", ev);
  if (left)
    *left = argc;
  return orb;
}

typedef struct caller {
  Shop_Store ref;
  CORBA_long x, got;
  int major;
} caller;

static void *caller_main(void *arg)
{
  caller *k = arg;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  k->got = Shop_Store_ping(k->ref, k->x, &ev);
  k->major = ev._major;
  CORBA_exception_free(&ev);
  return NULL;
}

enum { N = 5 };

/* With the ORB options O (N_O of them): N callers, caller i started once
 * min(i, WANT) calls are held; WANT held at the end (100 ms more for any
 * other), WANT connections accepted, every reply right. */
static void check_spread(const char **o, int n_o, int want)
{
  iiop_server *s = start_server();
  CORBA_Environment ev;
  CORBA_ORB orb = init_with(o, n_o, NULL, &ev);
  ck_assert_ptr_nonnull(orb);
  char url[96];
  snprintf(url, sizeof url, "corbaloc:iiop:1.2@127.0.0.1:%u/Store", (unsigned)iiop_server_port(s));
  Shop_Store ref = (Shop_Store)CORBA_ORB_string_to_object(orb, url, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  caller k[N];
  pthread_t t[N];
  for (int i = 0; i < N; i++) {
    k[i] = (caller){ ref, 10 * i, 0, -1 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
    int h = i + 1 < want ? i + 1 : want;
    ck_assert_int_eq(nu_gate_wait_held(h), h);
  }
  tu_sleep_ms(100);                 /* a call queued behind a held one stays queued */
  ck_assert_int_eq(nu_gate_held(), want);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, (uint64_t)want);
  nu_gate_open();
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].major, CORBA_NO_EXCEPTION);
    ck_assert_int_eq(k[i].got, 10 * i + 1);
  }
  CORBA_Object_release((CORBA_Object)ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  iiop_server_free(s);
}

START_TEST(test_max_connections_spread)
{
  const char *three[] = { "-ORBmaxGIOPConnectionPerServer", "3" };
  check_spread(three, 2, 3);
  const char *one[] = { "-ORBmaxGIOPConnectionPerServer", "1" };
  check_spread(one, 2, 1);
  /* read as omniORB reads it: "2x" is 2, "-1" 4294967295 (here 64) */
  const char *two_x[] = { "-ORBmaxGIOPConnectionPerServer", "2x" };
  check_spread(two_x, 2, 2);
  const char *many[] = { "-ORBmaxGIOPConnectionPerServer", "-1" };
  check_spread(many, 2, N);
  check_spread(NULL, 0, IIOP_CLIENT_CONNECTIONS_DEFAULT < N ? IIOP_CLIENT_CONNECTIONS_DEFAULT : N);
}
END_TEST

START_TEST(test_max_connections_argv)
{
  /* (-ORB alone is no option: left, as omniORB leaves it) */
  const char *o[] = { "keep", "-ORBmaxGIOPConnectionPerServer", "64", "-ORB", "1" };
  char *argv[] = { "prog", (char *)o[0], (char *)o[1], (char *)o[2], (char *)o[3], (char *)o[4],
                   NULL };
  int argc = 6;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_ptr_nonnull(orb);
  ck_assert_int_eq(argc, 4);
  ck_assert_str_eq(argv[1], "keep");
  ck_assert_str_eq(argv[2], "-ORB");
  ck_assert_str_eq(argv[3], "1");
  ck_assert_ptr_null(argv[4]);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

START_TEST(test_max_connections_bad)
{
  /* as omniORB: strtoul's number cut to 32 bits, at least 1 ("x" and ""
   * are 0, "4294967296" is 0; "65", "-1" and "3x" are taken) */
  static const char *const bad[] = { "0", "x", "", "4294967296", "18446744073709551616" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *o[] = { "-ORBmaxGIOPConnectionPerServer", bad[i] };
    CORBA_Environment ev;
    CORBA_ORB orb = init_with(o, 2, NULL, &ev);
    ck_assert_msg(orb == NULL, "'%s' accepted", bad[i]);
    ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
    ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INITIALIZE);
    CORBA_SystemException *se = CORBA_exception_value(&ev);
    ck_assert_uint_eq(se->minor, CORBAORB_MINOR_BAD_ORB_ARG);
    char why[256], want[256];
    corbaorb_ORB_last_error(NULL, why, sizeof why);
    snprintf(want, sizeof want,
             "-ORBmaxGIOPConnectionPerServer \"%s\": not a number of connections n >= 1",
             bad[i]);
    ck_assert_str_eq(why, want);
    CORBA_exception_free(&ev);
  }
  /* no value */
  const char *o[] = { "-ORBmaxGIOPConnectionPerServer" };
  CORBA_Environment ev;
  ck_assert_ptr_null(init_with(o, 1, NULL, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INITIALIZE);
  CORBA_exception_free(&ev);
}
END_TEST

static Suite *orbconns_suite(void)
{
  Suite *s = suite_create("orbconns");
  TCase *tc = tcase_create("maxGIOPConnectionPerServer");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_max_connections_spread);
  tcase_add_test(tc, test_max_connections_argv);
  tcase_add_test(tc, test_max_connections_bad);
  suite_add_tcase(s, tc);
  return s;
}

static int orbconns_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = orbconns_suite, .setup = orbconns_setup };
