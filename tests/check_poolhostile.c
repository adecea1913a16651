/* check_poolhostile.c - the client's connection pool (iiop_client_opts.
 * max_connections, calls_per_connection) under hostile conditions:
 *
 * - a server that accepts every connection and reads every request but
 *   never answers, with the pool at its limit (IIOP_CLIENT_CONNECTIONS_MAX
 *   connections, one caller more than that) and a per-call timeout: every
 *   caller ends with CDR_E_TIMEOUT, no more connections are opened than
 *   the limit, each connection gets one CancelRequest per timed-out call,
 *   and iiop_client_free() returns;
 * - callers sharing one connection (max_connections 1) with different
 *   per-call timeouts while the server stays silent: the short one ends
 *   at its own deadline while the long one is the reader;
 * - a server that closes idle connections (CloseConnection after its idle
 *   timeout) while many threads call with pauses around the idle timeout:
 *   every call is answered (a request that crossed the CloseConnection is
 *   sent again, completion NO);
 * - a server that closes every connection after reading one request: every
 *   call ends with CDR_E_CLOSED, the retries bounded. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- a silent server */

enum { SILENT_MAX = 80 };

typedef struct silent {
  int lfd;
  uint16_t port;
  pthread_t thr;
  pthread_t readers[SILENT_MAX];
  int fds[SILENT_MAX];
  int accepted;                     /* atomic */
  int requests;                     /* atomic: GIOP Request messages read */
  int cancels;                      /* atomic: GIOP CancelRequest messages read */
  int stop;                         /* atomic */
  int close_after;                  /* close each connection after reading a Request */
} silent;

typedef struct reader_arg {
  silent *s;
  int fd;
} reader_arg;

/* Read whole GIOP messages from one connection, counting Requests and
 * CancelRequests, answering nothing, until the peer closes. */
static void *silent_reader(void *arg)
{
  reader_arg *ra = arg;
  silent *s = ra->s;
  int fd = ra->fd;
  free(ra);
  for (;;) {
    uint8_t h[12];
    size_t got = 0;
    while (got < sizeof h) {
      ssize_t n = recv(fd, h + got, sizeof h - got, 0);
      if (n <= 0)
        return NULL;
      got += (size_t)n;
    }
    uint32_t size = (h[6] & 1) ? (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16
                                       | (uint32_t)h[11] << 24
                               : (uint32_t)h[11] | (uint32_t)h[10] << 8 | (uint32_t)h[9] << 16
                                       | (uint32_t)h[8] << 24;
    if (h[7] == GIOP_REQUEST)
      __atomic_add_fetch(&s->requests, 1, __ATOMIC_SEQ_CST);
    if (h[7] == GIOP_REQUEST && s->close_after) {
      shutdown(fd, SHUT_RDWR);     /* closed without a reply (the fd is closed at the stop) */
      return NULL;
    }
    else if (h[7] == GIOP_CANCEL_REQUEST)
      __atomic_add_fetch(&s->cancels, 1, __ATOMIC_SEQ_CST);
    uint8_t buf[4096];
    while (size > 0) {
      ssize_t n = recv(fd, buf, size < sizeof buf ? size : sizeof buf, 0);
      if (n <= 0)
        return NULL;
      size -= (uint32_t)n;
    }
  }
}

static void *silent_accept(void *arg)
{
  silent *s = arg;
  for (;;) {
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0 || __atomic_load_n(&s->stop, __ATOMIC_SEQ_CST)) {
      if (fd >= 0)
        close(fd);
      return NULL;
    }
    int k = __atomic_load_n(&s->accepted, __ATOMIC_SEQ_CST);
    if (k >= SILENT_MAX) {
      close(fd);
      continue;
    }
    reader_arg *ra = malloc(sizeof *ra);
    ck_assert_ptr_nonnull(ra);
    *ra = (reader_arg){ s, fd };
    s->fds[k] = fd;
    /* counted before its reader can count a request (requests <= accepted
     * at every instant); readers[k] is read only after this thread is joined */
    __atomic_store_n(&s->accepted, k + 1, __ATOMIC_SEQ_CST);
    ck_assert_int_eq(pthread_create(&s->readers[k], NULL, silent_reader, ra), 0);
  }
}

static void silent_start(silent *s)
{
  int close_after = s->close_after;
  memset(s, 0, sizeof *s);
  s->close_after = close_after;
  s->lfd = nu_listen(128, &s->port);
  ck_assert_int_eq(pthread_create(&s->thr, NULL, silent_accept, s), 0);
}

/* Stop accepting, close every accepted connection, join every thread. */
static void silent_stop(silent *s)
{
  __atomic_store_n(&s->stop, 1, __ATOMIC_SEQ_CST);
  shutdown(s->lfd, SHUT_RDWR);
  int c = nu_try_connect(NULL, s->port); /* wakes accept() if need be */
  if (c >= 0)
    close(c);
  pthread_join(s->thr, NULL);
  close(s->lfd);
  int n = __atomic_load_n(&s->accepted, __ATOMIC_SEQ_CST);
  for (int k = 0; k < n; k++)
    shutdown(s->fds[k], SHUT_RDWR);
  for (int k = 0; k < n; k++) {
    pthread_join(s->readers[k], NULL);
    close(s->fds[k]);
  }
}

/* One call of "ping" with a long within MS (a per-call timeout); the status
 * and, in *ELAPSED, the time it took. */
static int timed_call(iiop_ref *r, int ms, int64_t *elapsed)
{
  iiop_call *c;
  cdr_out *args;
  int64_t t0 = tu_now_ms();
  int rc = iiop_call_begin(r, "ping", 0, &c, &args);
  if (rc != CDR_OK)
    return rc;
  ck_assert_int_eq(iiop_call_set_timeout(c, ms), CDR_OK);
  cdr_put_long(args, 7);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(c, &res);
  iiop_call_end(c);
  if (elapsed)
    *elapsed = tu_now_ms() - t0;
  return rc;
}

typedef struct tcaller {
  iiop_ref *r;
  int ms;
  int rc;
  int64_t elapsed;
} tcaller;

static void *tcaller_main(void *arg)
{
  tcaller *k = arg;
  k->rc = timed_call(k->r, k->ms, &k->elapsed);
  return NULL;
}

static uint64_t client_connections(iiop_client *c)
{
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  return st.connections;
}

static int wait_count(int *p, int want, int ms)
{
  for (int w = 0; w < ms / 5 && __atomic_load_n(p, __ATOMIC_SEQ_CST) < want; w++)
    tu_sleep_ms(5);
  return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* ---------------------------------------------------------------- tests */

/* IIOP_CLIENT_CONNECTIONS_MAX + 1 callers at once, calls_per_connection 1,
 * a server that never answers, a 1.5 s timeout each: the pool opens
 * exactly IIOP_CLIENT_CONNECTIONS_MAX connections (the last caller shares
 * one), every caller ends with CDR_E_TIMEOUT, every request is read by the
 * server and each is cancelled once, and the client is freed. */
START_TEST(test_silent_server_pool_at_max)
{
  silent s = { 0 };
  silent_start(&s);
  iiop_client *c = nu_client(IIOP_CLIENT_CONNECTIONS_MAX, 1, 30000);
  iiop_ref *r = nu_resolve(c, s.port, "Silent");
  enum { K = IIOP_CLIENT_CONNECTIONS_MAX + 1 };
  tcaller k[K];
  pthread_t t[K];
  for (int i = 0; i < K; i++) {
    k[i] = (tcaller){ r, 1500, 1, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, tcaller_main, &k[i]), 0);
  }
  for (int i = 0; i < K; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].rc, CDR_E_TIMEOUT);
    ck_assert_int_ge(k[i].elapsed, 1400);
  }
  ck_assert_uint_le(client_connections(c), IIOP_CLIENT_CONNECTIONS_MAX);
  ck_assert_int_eq(wait_count(&s.requests, K, 5000), K);
  ck_assert_int_eq(wait_count(&s.cancels, K, 5000), K);
  ck_assert_int_le(__atomic_load_n(&s.accepted, __ATOMIC_SEQ_CST), IIOP_CLIENT_CONNECTIONS_MAX);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.timeout_call, K);
  iiop_ref_free(r);
  iiop_client_free(c);
  silent_stop(&s);
}
END_TEST

/* max_connections 1, a silent server: a caller with a 5 s timeout reads
 * the connection; one with 300 ms sharing it ends with CDR_E_TIMEOUT at its
 * own deadline (well before the first's), then the first at its own. */
START_TEST(test_silent_server_shared_mixed_timeouts)
{
  silent s = { 0 };
  silent_start(&s);
  iiop_client *c = nu_client(1, 1, 30000);
  iiop_ref *r = nu_resolve(c, s.port, "Silent");
  tcaller lng = { r, 5000, 1, 0 }, shrt = { r, 300, 1, 0 };
  pthread_t tl, ts;
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(pthread_create(&tl, NULL, tcaller_main, &lng), 0);
  ck_assert_int_eq(wait_count(&s.requests, 1, 5000), 1);
  tu_sleep_ms(50);                  /* the long caller is reading */
  ck_assert_int_eq(pthread_create(&ts, NULL, tcaller_main, &shrt), 0);
  pthread_join(ts, NULL);
  int64_t short_done = tu_now_ms() - t0;
  ck_assert_int_eq(shrt.rc, CDR_E_TIMEOUT);
  ck_assert_int_ge(shrt.elapsed, 280);
  ck_assert_int_lt(short_done, 4000);  /* not held until the long caller's deadline */
  pthread_join(tl, NULL);
  ck_assert_int_eq(lng.rc, CDR_E_TIMEOUT);
  ck_assert_int_ge(lng.elapsed, 4900);
  ck_assert_uint_eq(client_connections(c), 1);
  ck_assert_int_eq(__atomic_load_n(&s.requests, __ATOMIC_SEQ_CST), 2);
  ck_assert_int_eq(wait_count(&s.cancels, 2, 5000), 2);
  iiop_ref_free(r);
  iiop_client_free(c);
  silent_stop(&s);
}
END_TEST

/* A server that reads each connection's first Request and closes it
 * without a reply, 8 callers through a pool of 4: every call ends with
 * CDR_E_CLOSED (none hangs, none loops: a request is tried again only on
 * a cached connection, at most max_connections + 1 times, never after one
 * the call opened), and the server reads a bounded number of requests. */
START_TEST(test_closing_server_retries_bounded)
{
  silent s = { .close_after = 1 };
  silent_start(&s);
  iiop_client *c = nu_client(4, 1, 30000);
  iiop_ref *r = nu_resolve(c, s.port, "Silent");
  enum { K = 8 };
  tcaller k[K];
  pthread_t t[K];
  for (int i = 0; i < K; i++) {
    k[i] = (tcaller){ r, 10000, 1, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, tcaller_main, &k[i]), 0);
  }
  for (int i = 0; i < K; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].rc, CDR_E_CLOSED);
  }
  iiop_ref_free(r);
  iiop_client_free(c);
  silent_stop(&s);                  /* every reader joined: the counts are final */
  int n = __atomic_load_n(&s.accepted, __ATOMIC_SEQ_CST);
  ck_assert_int_ge(n, 1);
  ck_assert_int_le(n, K * (4 + 2));
  ck_assert_int_eq(__atomic_load_n(&s.requests, __ATOMIC_SEQ_CST), n);  /* one request each */
}
END_TEST

/* ------------------------------------------- a server closing idle connections */

static const iiop_operation ops[] = { { "ping", nu_op_ping } };
static const iiop_interface iface = { "IDL:Test/Ping:1.0", ops, 1, NULL };

typedef struct looper {
  iiop_ref *r;
  int id;
  int ok, bad, last_bad;
} looper;

enum { LOOPS = 40 };

static void *looper_main(void *arg)
{
  looper *l = arg;
  unsigned seed = (unsigned)l->id * 7919u + 1;
  for (int i = 0; i < LOOPS; i++) {
    iiop_call *c;
    cdr_out *args;
    int rc = iiop_call_begin(l->r, "ping", 0, &c, &args);
    ck_assert_int_eq(rc, CDR_OK);
    int32_t x = l->id * 1000 + i;
    cdr_put_long(args, x);
    cdr_in *res = NULL;
    rc = iiop_call_invoke(c, &res);
    if (rc == CDR_OK && cdr_get_long(res) == x)
      l->ok++;
    else {
      l->bad++;
      l->last_bad = rc;
    }
    iiop_call_end(c);
    seed = seed * 1103515245u + 12345u;
    tu_sleep_ms(10 + (int)((seed >> 16) % 60)); /* around the 30 ms idle timeout */
  }
  return NULL;
}

static void run_idle_close(uint32_t max, int T)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.limits.idle_timeout_ms = 30;
  iiop_server *s = nu_serve(&so, "Ping", &iface, NULL);
  iiop_client *c = nu_client(max, 1, 30000);
  iiop_ref *r = nu_resolve(c, iiop_server_port(s), "Ping");
  looper l[8];
  pthread_t t[8];
  for (int i = 0; i < T; i++) {
    l[i] = (looper){ r, i + 1, 0, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, looper_main, &l[i]), 0);
  }
  int ok = 0;
  for (int i = 0; i < T; i++) {
    pthread_join(t[i], NULL);
    ck_assert_msg(l[i].bad == 0, "caller %d: %d calls failed, the last with %d", i, l[i].bad,
                  l[i].last_bad);
    ok += l[i].ok;
  }
  ck_assert_int_eq(ok, T * LOOPS);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_gt(st.timeout_idle, 0);  /* the server did close idle connections */
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}

START_TEST(test_idle_close_many_callers_one)
{
  run_idle_close(1, 2);
}
END_TEST

START_TEST(test_idle_close_many_callers_pool)
{
  run_idle_close(4, 8);
}
END_TEST

static Suite *poolhostile_suite(void)
{
  Suite *s = suite_create("poolhostile");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_silent_server_pool_at_max);
  tcase_add_test(tc, test_silent_server_shared_mixed_timeouts);
  tcase_add_test(tc, test_closing_server_retries_bounded);
  tcase_add_test(tc, test_idle_close_many_callers_one);
  tcase_add_test(tc, test_idle_close_many_callers_pool);
  suite_add_tcase(s, tc);
  return s;
}

static int poolhostile_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = poolhostile_suite, .setup = poolhostile_setup };
