/* check_hold.c - held requests (libiiop/client.c, "Holding requests"): a
 * request sent while callers that a read's replies woke have yet to run
 * waits for the last of them, which writes them all in one gather write.
 *
 * Against an in-process server whose servant holds hold() calls at a gate:
 * on one connection (max_connections 1) NT callers each call hold(x), so
 * that the server reads the requests behind the first one together and,
 * with batch_replies, answers them in one write; woken together, each
 * caller then calls ping(x + 1000) at once.  Every result is the exact
 * value; over the rounds some ping requests were held and written by
 * another caller (iiop__client_held() counts them), each batch in one
 * gather write.  With callers counted by hand (iiop__ref_hold_probe()):
 * held requests due once the counted callers have run go out with the next
 * request sent, all of them in one write; with none sent after them, a
 * held caller writes them itself once its bound has passed (counted, the
 * bound far below the calls' timeout), and the connection's next batch is
 * then written at once; a leader's own request held alone is written at
 * once (no timer bounds its read).  Also: NT callers
 * making calls while the server stops and starts again under them: every
 * call ends (each thread is joined: no held request is left unwritten),
 * each with its exact value or an error status, and calls succeed again
 * afterwards. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "internal.h"
#include "netutil.h"
#include "testutil.h"

enum { NT = 8, ROUNDS = 20 };

/* ---------------------------------------------------------------- the servant */

static const iiop_operation ops[] = { { "hold", nu_op_hold }, { "ping", nu_op_ping } };
static const iiop_interface iface = { "IDL:Test/Gate:1.0", ops, 2, NULL };

/* A started server with batch_replies on PORT (0: any). */
static iiop_server *start_server(uint16_t port)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.port = port;
  o.batch_replies = 1;
  return nu_serve(&o, "Gate", &iface, NULL);
}

/* ---------------------------------------------------------------- the client */

/* One call of OP with X: its result, or INT32_MIN + the status (< 0). */
static int64_t call(iiop_ref *r, const char *op, int32_t x)
{
  iiop_call *c;
  cdr_out *args;
  int rc = iiop_call_begin(r, op, 0, &c, &args);
  if (rc != CDR_OK)
    return (int64_t)INT32_MIN - 1 - (rc < 0 ? -rc : rc);
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(c, &res);
  int64_t v = rc == CDR_OK ? cdr_get_long(res) : (int64_t)INT32_MIN - 1 - (rc < 0 ? -rc : rc);
  if (rc == CDR_OK && cdr_in_status(res) != CDR_OK)
    v = (int64_t)INT32_MIN - 1000;
  iiop_call_end(c);
  return v;
}

typedef struct caller {
  iiop_ref *r;
  int32_t x;
  int64_t got_hold, got_ping;
} caller;

static void *caller_main(void *arg)
{
  caller *k = arg;
  k->got_hold = call(k->r, "hold", k->x);
  k->got_ping = call(k->r, "ping", k->x + 1000);
  return NULL;
}

/* ---------------------------------------------------------------- tests */

/* NT callers on one connection, their hold() replies written together by
 * the server: every result exact, and ping requests held and written by
 * another caller (ROUNDS rounds; each round's woken callers send their
 * pings at once). */
START_TEST(test_held_requests_written_together)
{
  iiop_server *s = start_server(0);
  iiop_client *c = nu_client(1, 1, 20000);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(call(r, "ping", 7), 7);   /* connected, CodeSets sent */
  for (int round = 0; round < ROUNDS; round++) {
    nu_gate_reset();
    caller k[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
      k[i] = (caller){ r, round * 100 + i, 0, 0 };
      ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
    }
    /* The first request at the gate, the others behind it on the wire. */
    ck_assert_int_eq(nu_gate_wait_held(1), 1);
    tu_sleep_ms(20);
    nu_gate_open();
    for (int i = 0; i < NT; i++) {
      pthread_join(t[i], NULL);
      ck_assert_int_eq(k[i].got_hold, round * 100 + i);
      ck_assert_int_eq(k[i].got_ping, round * 100 + i + 1000);
    }
  }
  uint64_t h = iiop__client_held(c);
  fprintf(stderr, "check_hold: %llu of %d ping requests held and written by another caller\n",
          (unsigned long long)h, ROUNDS * NT);
  ck_assert_msg(h > 0, "no request was held");
  ck_assert_uint_le(h, (uint64_t)ROUNDS * NT);
  iiop__hold_stats hs;
  iiop__client_hold_stats(c, &hs);
  fprintf(stderr, "check_hold: %llu batches, %llu writes, %llu joined, %llu late\n",
          (unsigned long long)hs.batches, (unsigned long long)hs.writes,
          (unsigned long long)hs.joined, (unsigned long long)hs.late);
  ck_assert_uint_eq(hs.held, h);
  ck_assert_uint_gt(hs.batches, 0);
  ck_assert_uint_eq(hs.writes, hs.batches);   /* pings: a batch's iovecs fit one write */
  ck_assert_uint_ge(hs.held, hs.batches);
  ck_assert_uint_eq(hs.expired, 0);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- counted by hand */

typedef struct pinger {
  iiop_ref *r;
  int32_t x;
  int64_t got;
} pinger;

static void *pinger_main(void *arg)
{
  pinger *k = arg;
  k->got = call(k->r, "ping", k->x);
  return NULL;
}

/* Probe R's connection (DELTA as iiop__ref_hold_probe()) until it has
 * NPARK requests held, LHELD its leader reading with its own held and
 * ASLEEP callers waiting (10 s at most: a loaded machine may be slow to
 * run the callers). */
static iiop__hold_probe probe_until(iiop_ref *r, unsigned npark, int lheld, unsigned asleep)
{
  iiop__hold_probe pr;
  for (int i = 0; i < 10000; i++) {
    ck_assert_int_eq(iiop__ref_hold_probe(r, 0, &pr), CDR_OK);
    if (pr.npark == npark && pr.leader_held == lheld && pr.asleep == asleep)
      return pr;
    tu_sleep_ms(1);
  }
  ck_abort_msg("held %u (want %u), leader held %d (want %d), asleep %u (want %u)", pr.npark,
               npark, pr.leader_held, lheld, pr.asleep, asleep);
  return pr;
}

/* One counted caller (by hand) while two callers send: both requests are
 * held (the first caller leads, the second sleeps); once the counted
 * caller has run they are due, not written; the next request sent goes
 * last in their write: one batch, one write, three requests, joined. */
START_TEST(test_held_batch_joins_next_request)
{
  iiop_server *s = start_server(0);
  iiop_client *c = nu_client(1, 1, 20000);
  iiop__client_set_hold_bound(c, 60000);  /* no bound runs out in this test */
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(call(r, "ping", 7), 7);   /* connected, CodeSets sent */
  iiop__hold_probe pr;
  ck_assert_int_eq(iiop__ref_hold_probe(r, 1, &pr), CDR_OK);
  ck_assert_uint_eq(pr.nwoken, 1);
  iiop__hold_stats a, b;
  iiop__client_hold_stats(c, &a);
  pinger k[2] = { { r, 101, 0 }, { r, 102, 0 } };
  pthread_t t[2];
  ck_assert_int_eq(pthread_create(&t[0], NULL, pinger_main, &k[0]), 0);
  probe_until(r, 1, 1, 0);                 /* held, and its caller reads */
  ck_assert_int_eq(pthread_create(&t[1], NULL, pinger_main, &k[1]), 0);
  probe_until(r, 2, 1, 1);                 /* held, and its caller sleeps */
  ck_assert_int_eq(iiop__ref_hold_probe(r, -1, &pr), CDR_OK);
  ck_assert_uint_eq(pr.nwoken, 0);
  ck_assert_uint_eq(pr.npark, 2);          /* due, not written */
  ck_assert_int_eq(pr.due, 1);
  iiop__client_hold_stats(c, &b);
  ck_assert_uint_eq(b.batches, a.batches);
  ck_assert_int_eq(call(r, "ping", 103), 103);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].got, 101 + i);
  }
  iiop__client_hold_stats(c, &b);
  ck_assert_uint_eq(b.batches - a.batches, 1);
  ck_assert_uint_eq(b.writes - a.writes, 1);
  ck_assert_uint_eq(b.joined - a.joined, 1);
  ck_assert_uint_eq(b.held - a.held, 3);
  ck_assert_uint_eq(b.late, a.late);
  ck_assert_uint_eq(b.expired, 0);
  ck_assert_int_eq(iiop__ref_hold_probe(r, 0, &pr), CDR_OK);
  ck_assert_uint_eq(pr.npark, 0);
  ck_assert_int_eq(pr.due, 0);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* Held requests no request follows: a leader's own alone is written as
 * soon as the counted caller has run; two (the leader's and a sleeping
 * caller's) wait for the next request, none comes, and the sleeping
 * caller writes both once its bound (1 s) has passed -- long before the
 * calls' 20 s timeout -- and the next batch is written at once. */
START_TEST(test_held_request_bounded)
{
  iiop_server *s = start_server(0);
  iiop_client *c = nu_client(1, 1, 20000);
  /* long enough for this thread to see both held before it could run
   * out, far below the calls' timeout */
  iiop__client_set_hold_bound(c, 1000);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Gate");
  ck_assert_int_eq(call(r, "ping", 7), 7);
  iiop__hold_probe pr;
  iiop__hold_stats a, b;
  pinger k[2];
  pthread_t t[2];

  /* the leader's own alone */
  iiop__client_hold_stats(c, &a);
  ck_assert_int_eq(iiop__ref_hold_probe(r, 1, &pr), CDR_OK);
  k[0] = (pinger){ r, 201, 0 };
  ck_assert_int_eq(pthread_create(&t[0], NULL, pinger_main, &k[0]), 0);
  probe_until(r, 1, 1, 0);
  ck_assert_int_eq(iiop__ref_hold_probe(r, -1, &pr), CDR_OK);
  ck_assert_int_eq(pr.due, 0);             /* written at once */
  pthread_join(t[0], NULL);
  ck_assert_int_eq(k[0].got, 201);
  iiop__client_hold_stats(c, &b);
  ck_assert_uint_eq(b.batches - a.batches, 1);
  ck_assert_uint_eq(b.writes - a.writes, 1);
  ck_assert_uint_eq(b.held - a.held, 1);
  ck_assert_uint_eq(b.joined, a.joined);
  ck_assert_uint_eq(b.late, a.late);

  /* two, and nothing sent after them: late */
  for (int round = 0; round < 2; round++) {
    iiop__client_hold_stats(c, &a);
    ck_assert_int_eq(iiop__ref_hold_probe(r, 1, &pr), CDR_OK);
    for (int i = 0; i < 2; i++) {
      k[i] = (pinger){ r, 300 + 10 * round + i, 0 };
      ck_assert_int_eq(pthread_create(&t[i], NULL, pinger_main, &k[i]), 0);
      probe_until(r, (unsigned)i + 1, 1, (unsigned)i);
    }
    ck_assert_int_eq(iiop__ref_hold_probe(r, -1, &pr), CDR_OK);
    /* round 0: due, left to the bound; round 1 (after a bound ran out):
     * written at once */
    ck_assert_int_eq(pr.due, round == 0);
    for (int i = 0; i < 2; i++) {
      pthread_join(t[i], NULL);
      ck_assert_int_eq(k[i].got, 300 + 10 * round + i);
    }
    iiop__client_hold_stats(c, &b);
    ck_assert_uint_eq(b.batches - a.batches, 1);
    ck_assert_uint_eq(b.writes - a.writes, 1);
    ck_assert_uint_eq(b.held - a.held, 2);
    ck_assert_uint_eq(b.joined, a.joined);
    ck_assert_uint_eq(b.late - a.late, round == 0 ? 1 : 0);
  }
  ck_assert_uint_eq(b.expired, 0);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.timeout_call, 0);
  ck_assert_uint_eq(st.connections, 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

typedef struct looper {
  iiop_ref *r;
  int id;
  volatile int *stop;
  long ok, failed, wrong;
} looper;

static void *looper_main(void *arg)
{
  looper *l = arg;
  for (int32_t n = 0; !__atomic_load_n(l->stop, __ATOMIC_ACQUIRE); n++) {
    int32_t x = l->id * 1000000 + n % 1000000;
    int64_t v = call(l->r, "ping", x);
    if (v == x)
      l->ok++;
    else if (v < INT32_MIN)
      l->failed++;
    else
      l->wrong++;
  }
  return NULL;
}

/* NT callers on 2 connections while the server is stopped and started
 * again on the same port, twice: every thread ends (no held request is
 * left behind), no result is wrong, and calls go through afterwards. */
START_TEST(test_held_requests_server_restart)
{
  nu_gate_open();
  iiop_server *s = start_server(0);
  uint16_t port = iiop_server_port(s);
  iiop_client *c = nu_client(2, 1, 5000);
  iiop_ref *r = nu_resolve(c, port, "Gate");
  ck_assert_int_eq(call(r, "ping", 5), 5);
  volatile int stop = 0;
  looper l[NT];
  pthread_t t[NT];
  for (int i = 0; i < NT; i++) {
    l[i] = (looper){ r, i + 1, &stop, 0, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, looper_main, &l[i]), 0);
  }
  for (int k = 0; k < 2; k++) {
    tu_sleep_ms(150);
    iiop_server_free(s);              /* closes every connection under the callers */
    tu_sleep_ms(20);
    s = start_server(port);
  }
  tu_sleep_ms(150);
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  long ok = 0, failed = 0;
  for (int i = 0; i < NT; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(l[i].wrong, 0);
    ok += l[i].ok;
    failed += l[i].failed;
  }
  fprintf(stderr, "check_hold: restarts: %ld calls answered, %ld failed, %llu held\n", ok,
          failed, (unsigned long long)iiop__client_held(c));
  ck_assert_int_gt(ok, 0);
  for (int i = 0; i < 4; i++)
    ck_assert_int_eq(call(r, "ping", 40 + i), 40 + i);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

static Suite *hold_suite(void)
{
  Suite *su = suite_create("hold");
  TCase *tc = tcase_create("hold");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_held_requests_written_together);
  tcase_add_test(tc, test_held_requests_server_restart);
  tcase_add_test(tc, test_held_batch_joins_next_request);
  tcase_add_test(tc, test_held_request_bounded);
  suite_add_tcase(su, tc);
  return su;
}

const tu_program tu_prog = { .suite = hold_suite };
