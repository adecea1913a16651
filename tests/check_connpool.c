/* check_connpool.c - the client's connections per endpoint (iiop/orb.h:
 * iiop_client_opts.max_connections, calls_per_connection) against an
 * in-process server whose servant holds every call until the test opens a
 * gate.
 *
 * Callers are started one at a time, each once the previous one has its
 * connection (a client interceptor's send_request runs after the
 * connection is chosen, just before the request is written), so which
 * connection each takes is decided, and the counts are exact: the
 * connections the client opened (iiop_client_stats), the ones the server
 * accepted, and the calls the server holds at once (each connection's
 * requests are dispatched one at a time, in order, so it is the number of
 * connections that carry a call).  Also: max_connections 1 shares one
 * connection; an idle client goes back to the first; a pool the server
 * closed (idle timeout) is replaced one connection at a time, every call
 * answered; the option's bounds. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- the servant */

static const iiop_operation ops[] = { { "hold", nu_op_hold }, { "ping", nu_op_ping } };
static const iiop_interface iface = { "IDL:Test/Gate:1.0", ops, 2, NULL };

/* A started server; IDLE_MS > 0: its idle timeout. */
static iiop_server *start_server(int idle_ms)
{
  nu_gate_reset();
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  if (idle_ms > 0)
    o.limits.idle_timeout_ms = idle_ms;
  return nu_serve(&o, "Gate", &iface, NULL);
}

/* ---------------------------------------------------------------- the client */

static int sent;                    /* atomic: requests about to be written */

static int count_send(void *ud, iiop_call *call)
{
  (void)ud;
  (void)call;
  __atomic_add_fetch(&sent, 1, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

static const iiop_client_interceptor counter = { count_send, NULL };

/* A client with MAX connections per endpoint and PER calls per connection
 * (0: the library's defaults, as iiop_client_create() reads 0), counting
 * the requests it sends. */
static iiop_client *new_client(uint32_t max, uint32_t per)
{
  __atomic_store_n(&sent, 0, __ATOMIC_SEQ_CST);
  iiop_client *c = nu_client(max, per, 20000);
  ck_assert_int_eq(iiop_client_add_interceptor(c, &counter, NULL), CDR_OK);
  return c;
}

/* One call of OP with X; its result, or a negative status. */
static int32_t call(iiop_ref *r, const char *op, int32_t x)
{
  iiop_call *c;
  cdr_out *args;
  int rc = iiop_call_begin(r, op, 0, &c, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(c, &res);
  int32_t v = rc == CDR_OK ? cdr_get_long(res) : rc < 0 ? rc : -1000 - rc;
  iiop_call_end(c);
  return v;
}

typedef struct caller {
  iiop_ref *r;
  int32_t x, got;
} caller;

static void *caller_main(void *arg)
{
  caller *k = arg;
  k->got = call(k->r, "hold", k->x);
  return NULL;
}

static uint64_t client_connections(iiop_client *c)
{
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  return st.connections;
}

static uint64_t server_accepted(iiop_server *s)
{
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  return st.accepted;
}

enum { N = 6 };

/* N hold() callers on R, each started once the one before has sent its
 * request; then the calls held at the server at once (waiting up to 10 s
 * for HELD of them, then 100 ms more for any other), the gate opened,
 * every reply checked. */
static int run_callers(iiop_ref *r, int want_held)
{
  caller k[N];
  pthread_t t[N];
  for (int i = 0; i < N; i++) {
    k[i] = (caller){ r, 100 + i, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
    for (int w = 0; w < 2000 && __atomic_load_n(&sent, __ATOMIC_SEQ_CST) < i + 1; w++)
      tu_sleep_ms(5);
    ck_assert_int_eq(__atomic_load_n(&sent, __ATOMIC_SEQ_CST), i + 1);
  }
  nu_gate_wait_held(want_held);
  tu_sleep_ms(100);                 /* a request queued on a busy connection stays queued */
  int h = nu_gate_held();
  nu_gate_open();
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].got, 100 + i);
  }
  return h;
}

/* ---------------------------------------------------------------- tests */

/* calls_per_connection 1: each caller that finds every connection busy
 * opens one, up to max_connections (3); the 4th to 6th share them. */
START_TEST(test_pool_grows_to_max)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(3, 1);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(run_callers(r, 3), 3);
  ck_assert_uint_eq(client_connections(c), 3);
  ck_assert_uint_eq(server_accepted(s), 3);
  /* Idle again: a caller alone uses the first connection, opens none. */
  ck_assert_int_eq(call(r, "ping", 7), 7);
  ck_assert_uint_eq(client_connections(c), 3);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* calls_per_connection 2: a connection takes a second caller before
 * another is opened: callers 1-2 on the first, 3-4 on the second, 5-6 on
 * the third (max_connections 4 is not reached). */
START_TEST(test_pool_calls_per_connection)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(4, 2);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(run_callers(r, 3), 3);
  ck_assert_uint_eq(client_connections(c), 3);
  ck_assert_uint_eq(server_accepted(s), 3);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* max_connections 1: every caller shares one connection, its requests
 * dispatched one at a time (one held). */
START_TEST(test_pool_one_connection)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(1, 0);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(run_callers(r, 1), 1);
  ck_assert_uint_eq(client_connections(c), 1);
  ck_assert_uint_eq(server_accepted(s), 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* The defaults: IIOP_CLIENT_CONNECTIONS_DEFAULT connections, one call
 * each; 0 in either option means its default. */
START_TEST(test_pool_defaults)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  ck_assert_uint_eq(o.max_connections, IIOP_CLIENT_CONNECTIONS_DEFAULT);
  ck_assert_uint_eq(o.calls_per_connection, 1);
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(0, 0);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  int want = IIOP_CLIENT_CONNECTIONS_DEFAULT < N ? IIOP_CLIENT_CONNECTIONS_DEFAULT : N;
  ck_assert_int_eq(run_callers(r, want), want);
  ck_assert_uint_eq(client_connections(c), (uint64_t)want);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* The server closes the idle pool (CloseConnection after its idle
 * timeout): a call that finds its connection closed is sent again on a new
 * one (the server processed nothing), one connection per call, and every
 * call is answered. */
START_TEST(test_pool_closed_by_server)
{
  iiop_server *s = start_server(300);
  iiop_client *c = new_client(2, 1);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  caller k[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    k[i] = (caller){ r, 10 + i, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
    for (int w = 0; w < 2000 && __atomic_load_n(&sent, __ATOMIC_SEQ_CST) < i + 1; w++)
      tu_sleep_ms(5);
  }
  ck_assert_int_eq(nu_gate_wait_held(2), 2);
  nu_gate_open();
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].got, 10 + i);
  }
  ck_assert_uint_eq(client_connections(c), 2);
  iiop_server_stats st;
  for (int w = 0; w < 400; w++) {       /* both idle past 300 ms: closed */
    ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
    if (st.timeout_idle == 2)
      break;
    tu_sleep_ms(10);
  }
  ck_assert_uint_eq(st.timeout_idle, 2);
  ck_assert_int_eq(call(r, "ping", 1), 1);   /* the first closed: a new one */
  ck_assert_uint_eq(client_connections(c), 3);
  ck_assert_int_eq(call(r, "ping", 2), 2);   /* the second closed: another */
  ck_assert_uint_eq(client_connections(c), 4);
  ck_assert_int_eq(call(r, "ping", 3), 3);   /* both open now */
  ck_assert_uint_eq(client_connections(c), 4);
  ck_assert_uint_eq(server_accepted(s), 4);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* max_connections above IIOP_CLIENT_CONNECTIONS_MAX: CDR_E_INVALID and the
 * reason; IIOP_CLIENT_CONNECTIONS_MAX itself is accepted. */
START_TEST(test_pool_option_bounds)
{
  char why[128];
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.max_connections = IIOP_CLIENT_CONNECTIONS_MAX + 1;
  o.why = why;
  o.why_cap = sizeof why;
  iiop_client *c = (iiop_client *)&o;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_E_INVALID);
  ck_assert_ptr_null(c);
  char want[128];
  snprintf(want, sizeof want, "max_connections %u is above %u", IIOP_CLIENT_CONNECTIONS_MAX + 1,
           IIOP_CLIENT_CONNECTIONS_MAX);
  ck_assert_str_eq(why, want);
  o.max_connections = IIOP_CLIENT_CONNECTIONS_MAX;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_OK);
  ck_assert_str_eq(why, "");
  iiop_client_free(c);
}
END_TEST

static Suite *connpool_suite(void)
{
  Suite *s = suite_create("connpool");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_pool_grows_to_max);
  tcase_add_test(tc, test_pool_calls_per_connection);
  tcase_add_test(tc, test_pool_one_connection);
  tcase_add_test(tc, test_pool_defaults);
  tcase_add_test(tc, test_pool_closed_by_server);
  tcase_add_test(tc, test_pool_option_bounds);
  suite_add_tcase(s, tc);
  return s;
}

static int connpool_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = connpool_suite, .setup = connpool_setup };
