/* check_timeout.c - client call timeouts (iiop/orb.h: iiop_call_set_timeout(),
 * iiop_ref_set_timeout(), iiop_client_opts.timeout_ms) against an in-process
 * server whose servant sleeps for as long as it is told before answering.
 *
 * What is checked: a timeout fires with CDR_E_TIMEOUT and TIMEOUT (minor
 * IIOP_MINOR_CALL_TIMED_OUT, completion MAYBE), not before its time and not
 * much after it (the machine may be loaded: 2 s of slack); which timeout
 * applies (call > reference > client, 0 none, IIOP_TIMEOUT_INHERIT);
 * the reply that comes later is read and dropped (iiop_client_stats
 * late_replies, exact), fragmented or not, or cut in two around the
 * deadline; the next call on the same connection gets its own reply, and
 * the client opens exactly one connection; several threads on one
 * connection, one timing out as the reader or as a follower, the others
 * getting their right replies.  Every server listens on port 0. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
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
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "internal.h"
#include "netutil.h"
#include "testutil.h"

#define SLACK_MS 2000 /* how much later than its timeout a call may return */

/* ---------------------------------------------------------------- the servant */

static int entered;                 /* atomic: sleep/sleepEcho calls that arrived */
static int answered;                /* atomic: sleep/sleepEcho calls that finished */

/* sleep(long ms, long x) -> x, after MS milliseconds. */
static int op_sleep(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)r;
  int32_t ms = cdr_get_long(a);
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  __atomic_add_fetch(&entered, 1, __ATOMIC_SEQ_CST);
  tu_sleep_ms(ms);
  cdr_put_long(o, x);
  __atomic_add_fetch(&answered, 1, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

/* sleepEcho(long ms, string s) -> s, after MS milliseconds. */
static int op_sleep_echo(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)r;
  int32_t ms = cdr_get_long(a);
  const char *s;
  uint32_t n;
  int rc = cdr_get_string_view(a, &s, &n);
  if (rc != CDR_OK)
    return rc;
  __atomic_add_fetch(&entered, 1, __ATOMIC_SEQ_CST);
  tu_sleep_ms(ms);
  cdr_put_string_view(o, s, n);
  __atomic_add_fetch(&answered, 1, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

static const iiop_operation ops[] = {
  { "ping", nu_op_ping },
  { "sleep", op_sleep },
  { "sleepEcho", op_sleep_echo },
};
static const iiop_interface iface = { "IDL:Test/Sleeper:1.0", ops, 3, NULL };

/* A server with FRAG octets per reply fragment (0: the default). */
static iiop_server *start_server(size_t frag)
{
  __atomic_store_n(&entered, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&answered, 0, __ATOMIC_SEQ_CST);
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  if (frag)
    o.fragment_size = frag;
  return nu_serve(&o, "Sleeper", &iface, NULL);
}

/* A client whose own timeout is CLIENT_MS (0: none).  Its callers share
 * one connection (max_connections 1): what these tests time is calls
 * waiting side by side on one connection. */
static iiop_client *new_client(int client_ms)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = client_ms;
  o.max_connections = 1;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

static iiop_ref *resolve(iiop_client *c, iiop_server *s)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, "Sleeper", 7, &a, &ior), CDR_OK);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  cdr_arena_free(&a);
  return r;
}

static iiop_ref *resolve_port(iiop_client *c, uint16_t port)
{
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Sleeper", (unsigned)port);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  return r;
}

typedef nu_outcome outcome;

/* sleep(SLEEP, X) on R, the call's timeout CALL_MS (IIOP_TIMEOUT_INHERIT:
 * none set). */
static outcome call_sleep(iiop_ref *r, int32_t sleep, int32_t x, int call_ms)
{
  int32_t a[2] = { sleep, x };
  return nu_call(r, "sleep", a, 2, call_ms, NU_CALL_TIMEOUT_FIXED);
}

/* ping(X) on R, the call's timeout CALL_MS. */
static outcome call_ping(iiop_ref *r, int32_t x, int call_ms)
{
  return nu_call(r, "ping", &x, 1, call_ms, 0);
}

/* O is a timeout of a call whose timeout was MS. */
static void check_timed_out(const outcome *o, int ms)
{
  ck_assert_int_eq(o->rc, CDR_E_TIMEOUT);
  ck_assert_int_ge(o->ms, ms - 5);  /* the monotonic clock's milliseconds round */
  ck_assert_int_le(o->ms, ms + SLACK_MS);
  ck_assert_str_eq(o->ex.repo_id, "TIMEOUT");
  ck_assert_uint_eq(o->ex.minor, IIOP_MINOR_CALL_TIMED_OUT);
  ck_assert_uint_eq(o->ex.completed, GIOP_COMPLETED_MAYBE);
}

static void check_stats(iiop_client *c, uint64_t conns, uint64_t timeouts, uint64_t late)
{
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, conns);
  ck_assert_uint_eq(st.timeout_call, timeouts);
  ck_assert_uint_eq(st.late_replies, late);
  ck_assert_uint_eq(st.connect_failed, 0);
  ck_assert_uint_eq(st.limit_protocol, 0);
}

/* Wait until the servant has finished N calls (at most 10 s). */
static void wait_answered(int n)
{
  for (int k = 0; k < 1000 && __atomic_load_n(&answered, __ATOMIC_SEQ_CST) < n; k++)
    tu_sleep_ms(10);
  ck_assert_int_eq(__atomic_load_n(&answered, __ATOMIC_SEQ_CST), n);
}

/* ---------------------------------------------------------------- tests */

/* A call's own timeout: the call times out, the late reply is dropped,
 * the next call on the same connection gets its own value. */
START_TEST(test_call_timeout)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve(c, s);
  outcome o = call_ping(r, 41, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 41);

  o = call_sleep(r, 1200, 7, 300);
  check_timed_out(&o, 300);
  check_stats(c, 1, 1, 0);
  /* Queued behind the sleep on the server: its reply comes first and is
   * dropped, then this one's. */
  o = call_ping(r, 42, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 42);
  ck_assert_int_eq(__atomic_load_n(&answered, __ATOMIC_SEQ_CST), 1);
  check_stats(c, 1, 1, 1);
  /* A call that answers within its timeout. */
  o = call_sleep(r, 50, 9, 5000);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 9);
  check_stats(c, 1, 1, 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* Which timeout applies: call > reference > client; 0 is none. */
START_TEST(test_precedence)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve(c, s);
  ck_assert_int_eq(iiop_ref_timeout(r), IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(iiop_ref_set_timeout(NULL, 5), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ref_set_timeout(r, -2), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ref_timeout(NULL), IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(iiop_call_set_timeout(NULL, 5), CDR_E_INVALID);

  /* The reference's timeout. */
  ck_assert_int_eq(iiop_ref_set_timeout(r, 300), CDR_OK);
  ck_assert_int_eq(iiop_ref_timeout(r), 300);
  outcome o = call_sleep(r, 1000, 1, IIOP_TIMEOUT_INHERIT);
  check_timed_out(&o, 300);
  o = call_ping(r, 2, 5000); /* behind the sleep's 700 ms left: more than the reference's */
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 2);
  /* The call's wins over the reference's: 0, none. */
  o = call_sleep(r, 600, 3, 0);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 3);
  ck_assert_int_ge(o.ms, 600 - 5);
  /* ... and a positive one. */
  o = call_sleep(r, 100, 4, 5000);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 4);
  iiop_ref_free(r);
  iiop_client_free(c);

  /* The reference's 0 wins over the client's 200 ms. */
  c = new_client(200);
  r = resolve(c, s);
  ck_assert_int_eq(iiop_ref_set_timeout(r, 0), CDR_OK);
  o = call_sleep(r, 600, 5, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 5);
  /* Back to inheriting: the client's 200 ms. */
  ck_assert_int_eq(iiop_ref_set_timeout(r, IIOP_TIMEOUT_INHERIT), CDR_OK);
  o = call_sleep(r, 1000, 6, IIOP_TIMEOUT_INHERIT);
  check_timed_out(&o, 200);
  o = call_ping(r, 7, 5000);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 7);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, 1);
  ck_assert_uint_eq(st.late_replies, 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* A late reply in 64 fragments (server fragment_size 256, an 16 KiB
 * string): read whole and dropped; the connection goes on. */
START_TEST(test_fragmented_late_reply)
{
  iiop_server *s = start_server(256);
  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve(c, s);
  size_t n = 16384;
  char *big = malloc(n + 1);
  ck_assert_ptr_nonnull(big);
  for (size_t k = 0; k < n; k++)
    big[k] = (char)('a' + k % 26);
  big[n] = 0;
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "sleepEcho", 0, &call, &args), CDR_OK);
  ck_assert_int_eq(iiop_call_set_timeout(call, 300), CDR_OK);
  cdr_put_long(args, 1000);
  cdr_put_string(args, big);
  cdr_in *res = NULL;
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_E_TIMEOUT);
  ck_assert_int_le(tu_now_ms() - t0, 300 + SLACK_MS);
  iiop_call_end(call);
  wait_answered(1);
  /* The same string again, answered at once: exactly it comes back. */
  ck_assert_int_eq(iiop_call_begin(r, "sleepEcho", 0, &call, &args), CDR_OK);
  cdr_put_long(args, 0);
  big[0] = 'Z';
  cdr_put_string(args, big);
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  const char *got;
  uint32_t gl;
  ck_assert_int_eq(cdr_get_string_view(res, &got, &gl), CDR_OK);
  ck_assert_uint_eq(gl, n);
  ck_assert(memcmp(got, big, n) == 0);
  iiop_call_end(call);
  check_stats(c, 1, 1, 1);
  free(big);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

typedef struct caller {
  iiop_ref *r;
  int32_t sleep, x;
  int call_ms;
  int ping;                          /* 1: ping(x), else sleep(sleep, x) */
  outcome o;
} caller;

static void *caller_main(void *arg)
{
  caller *k = arg;
  k->o = k->ping ? call_ping(k->r, k->x, k->call_ms) : call_sleep(k->r, k->sleep, k->x, k->call_ms);
  return NULL;
}

/* Several threads on one connection.  First: the caller that reads (the
 * first to wait) times out; reading passes to the others, which get their
 * own values once the server, which answers a connection's requests in
 * order, is past the sleep.  Then: a follower times out while another
 * caller reads. */
START_TEST(test_threads_one_connection)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve(c, s);
  outcome o = call_ping(r, 1, IIOP_TIMEOUT_INHERIT); /* the connection exists */
  ck_assert_int_eq(o.rc, CDR_OK);

  enum { N = 4 };
  caller k[N];
  pthread_t t[N];
  memset(k, 0, sizeof k);
  k[0] = (caller){ r, 1200, 100, 300, 0, { 0 } };
  ck_assert_int_eq(pthread_create(&t[0], NULL, caller_main, &k[0]), 0);
  while (__atomic_load_n(&entered, __ATOMIC_SEQ_CST) < 1)
    tu_sleep_ms(2);
  for (int i = 1; i < N; i++) {
    k[i] = (caller){ r, 0, 100 + i, IIOP_TIMEOUT_INHERIT, 1, { 0 } };
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
  }
  for (int i = 0; i < N; i++)
    pthread_join(t[i], NULL);
  check_timed_out(&k[0].o, 300);
  for (int i = 1; i < N; i++) {
    ck_assert_int_eq(k[i].o.rc, CDR_OK);
    ck_assert_int_eq(k[i].o.value, 100 + i);
  }
  check_stats(c, 1, 1, 1);

  /* A follower times out: a sleep(800) with no timeout reads; a ping with
   * 200 ms waits behind it and gives up; its late reply is dropped by the
   * reader, which then gets its own. */
  caller a = { r, 800, 200, 0, 0, { 0 } };
  pthread_t ta;
  int before = __atomic_load_n(&entered, __ATOMIC_SEQ_CST);
  ck_assert_int_eq(pthread_create(&ta, NULL, caller_main, &a), 0);
  while (__atomic_load_n(&entered, __ATOMIC_SEQ_CST) < before + 1)
    tu_sleep_ms(2);
  o = call_ping(r, 201, 200);
  ck_assert_int_eq(o.rc, CDR_E_TIMEOUT);
  pthread_join(ta, NULL);
  ck_assert_int_eq(a.o.rc, CDR_OK);
  ck_assert_int_eq(a.o.value, 200);
  o = call_ping(r, 202, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 202);
  check_stats(c, 1, 2, 2);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- a reply cut around the deadline */

typedef struct fake {
  int lfd;
  uint16_t port;
  int split_ms;                      /* first request: half its reply, this pause, the rest */
  int cancels;                       /* CancelRequests received */
} fake;

/* A server that answers every Request with NO_EXCEPTION and the request's
 * first long argument: the first one's reply in two parts, SPLIT_MS apart. */
static void *fake_main(void *arg)
{
  fake *f = arg;
  int fd = accept(f->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  for (int nreq = 0;;) {
    uint8_t h[12];
    if (!nu_read_full(fd, h, sizeof h))
      break;
    uint32_t sz = h[6] & 1 ? (uint32_t)h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24
                           : (uint32_t)h[8] << 24 | h[9] << 16 | h[10] << 8 | h[11];
    if (sz > 65536)
      break;
    uint8_t *m = malloc(12 + sz);
    memcpy(m, h, 12);
    if (!nu_read_full(fd, m + 12, sz)) {
      free(m);
      break;
    }
    giop_message msg;
    cdr_opts po;
    cdr_opts_default(&po);
    if (giop_parse(&msg, m, 12 + sz, &po, &a) != CDR_OK) {
      free(m);
      break;
    }
    if (msg.hdr.type == GIOP_CANCEL_REQUEST) {
      __atomic_add_fetch(&f->cancels, 1, __ATOMIC_SEQ_CST);
      free(m);
      continue;
    }
    int32_t x = cdr_get_long(&msg.body);
    cdr_opts ro;
    cdr_opts_default(&ro);
    ro.giop_minor = 2;
    cdr_out o;
    cdr_out_init(&o, &ro);
    giop_reply_header rh;
    memset(&rh, 0, sizeof rh);
    rh.request_id = msg.u.request.request_id;
    rh.reply_status = GIOP_NO_EXCEPTION;
    giop_begin_reply(&o, &rh);
    giop_begin_body(&o);
    cdr_put_long(&o, x);
    cdr_put_string(&o, "padding so that the reply is cut in its body");
    ck_assert_int_eq(giop_end(&o), CDR_OK);
    const uint8_t *d = cdr_out_data(&o);
    size_t len = cdr_out_size(&o);
    if (nreq++ == 0) {
      nu_send_all(fd, d, len / 2);
      tu_sleep_ms(f->split_ms);
      nu_send_all(fd, d + len / 2, len - len / 2);
    } else {
      nu_send_all(fd, d, len);
    }
    cdr_out_close(&o);
    free(m);
  }
  cdr_arena_free(&a);
  close(fd);
  return NULL;
}

/* The first half of the reply arrives before the deadline, the rest after
 * it: the timed-out reader leaves the half it read in the connection's
 * reassembler; the next call's reader completes that reply, drops it, and
 * gets its own.  The client sends a CancelRequest for the request. */
START_TEST(test_reply_cut_around_deadline)
{
  fake f;
  memset(&f, 0, sizeof f);
  f.split_ms = 800;
  f.lfd = nu_listen(4, &f.port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, fake_main, &f), 0);

  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve_port(c, f.port);
  outcome o = call_ping(r, 11, 300);
  check_timed_out(&o, 300);
  o = call_ping(r, 12, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 12);
  o = call_ping(r, 13, 300);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 13);
  check_stats(c, 1, 1, 1);
  ck_assert_int_eq(__atomic_load_n(&f.cancels, __ATOMIC_SEQ_CST), 1);
  iiop_ref_free(r);
  iiop_client_free(c);
  pthread_join(t, NULL);
  close(f.lfd);
}
END_TEST

/* ---------------------------------------------------------------- a request that cannot be written */

typedef struct pinger {
  iiop_ref *r;
  outcome o;
} pinger;

static void *pinger_main(void *arg)
{
  pinger *p = arg;
  p->o = call_ping(p->r, 77, 0);
  return NULL;
}

/* A server that never reads (a listening socket nothing accepts from: the
 * kernel buffers what it can): a 32 MiB request cannot be written within
 * the call's 300 ms although the client's timeout is 30 s.  The call
 * fails with TIMEOUT, completion NO (the request did not all go out); the
 * connection, with part of a message on it, is closed, so a call waiting
 * on it gets COMM_FAILURE (CDR_E_CLOSED), not TIMEOUT; the next call opens
 * another connection. */
START_TEST(test_write_timeout)
{
  uint16_t port;
  int lfd = nu_listen(4, &port);

  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve_port(c, port);
  /* A call that waits on the connection (no timeout: the write's failure
   * ends it). */
  pinger p = { r, { 0 } };
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, pinger_main, &p), 0);
  for (int k = 0; k < 500; k++) {
    iiop_client_stats st;
    ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
    if (st.connections == 1)
      break;
    tu_sleep_ms(10);
  }
  tu_sleep_ms(100);                 /* its small request is out */

  size_t n = (size_t)32 << 20;
  char *big = malloc(n + 1);
  ck_assert_ptr_nonnull(big);
  memset(big, 'q', n);
  big[n] = 0;
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "sleepEcho", 0, &call, &args), CDR_OK);
  ck_assert_int_eq(iiop_call_set_timeout(call, 300), CDR_OK);
  cdr_put_long(args, 0);
  cdr_put_string_ref(args, big, n);
  cdr_in *res = NULL;
  outcome o;
  memset(&o, 0, sizeof o);
  int64_t t0 = tu_now_ms();
  o.rc = iiop_call_invoke(call, &res);
  o.ms = tu_now_ms() - t0;
  nu_take_exception(&o, call);
  iiop_call_end(call);
  ck_assert_int_eq(o.rc, CDR_E_TIMEOUT);
  ck_assert_int_ge(o.ms, 300 - 5);
  ck_assert_int_le(o.ms, 300 + SLACK_MS);
  ck_assert_str_eq(o.ex.repo_id, "TIMEOUT");
  ck_assert_uint_eq(o.ex.minor, IIOP_MINOR_CALL_TIMED_OUT);
  ck_assert_uint_eq(o.ex.completed, GIOP_COMPLETED_NO);
  pthread_join(t, NULL);
  ck_assert_int_eq(p.o.rc, CDR_E_CLOSED);

  /* The next call: a new connection (nothing answers: it times out). */
  o = call_ping(r, 1, 200);
  check_timed_out(&o, 200);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, 2);
  ck_assert_uint_eq(st.timeout_call, 2);
  free(big);
  iiop_ref_free(r);
  iiop_client_free(c);
  close(lfd);
}
END_TEST

/* ---------------------------------------------------------------- many threads, mixed timeouts */

typedef struct mixer {
  iiop_ref *r;
  int id;
  int bad;                           /* wrong values, or timeouts of calls without one */
  int timeouts;
} mixer;

static void *mixer_main(void *arg)
{
  mixer *m = arg;
  tu_rng g = { (uint64_t)m->id * 7919 + 1 };
  for (int i = 0; i < 40; i++) {
    int32_t x = m->id * 1000 + i;
    int sleep = (int)tu_below(&g, 15);
    int kind = (int)tu_below(&g, 4);
    int ms = kind == 0 ? IIOP_TIMEOUT_INHERIT : kind == 1 ? 0 : 5 + (int)tu_below(&g, 40);
    outcome o = tu_below(&g, 2) ? call_sleep(m->r, sleep, x, ms) : call_ping(m->r, x, ms);
    if (o.rc == CDR_E_TIMEOUT && kind >= 2)
      m->timeouts++;
    else if (o.rc != CDR_OK || o.value != x)
      m->bad++;
  }
  return NULL;
}

/* Four threads, 40 calls each on one connection, a third of them with
 * timeouts short enough to fire now and then: every call gets its own
 * value or (only those with a timeout) CDR_E_TIMEOUT; once a last call has
 * been answered (the server answers in order), every timed-out call's
 * reply has been read and dropped: late_replies == timeout_call, exactly,
 * less the timed-out requests that were held and never written (client.c,
 * "Holding requests": no reply comes for them); one connection
 * throughout. */
START_TEST(test_threads_mixed_timeouts)
{
  iiop_server *s = start_server(0);
  iiop_client *c = new_client(30000);
  iiop_ref *r = resolve(c, s);
  enum { N = 4 };
  mixer m[N];
  pthread_t t[N];
  for (int i = 0; i < N; i++) {
    m[i] = (mixer){ r, i + 1, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, mixer_main, &m[i]), 0);
  }
  int timeouts = 0;
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(m[i].bad, 0);
    timeouts += m[i].timeouts;
  }
  /* A sleep of 6 ms or more under a 5 ms timeout fires whatever the load:
   * some did. */
  ck_assert_int_gt(timeouts, 0);
  outcome o = call_ping(r, 5, IIOP_TIMEOUT_INHERIT);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 5);
  uint64_t unwritten = iiop__client_held_expired(c);
  ck_assert_uint_le(unwritten, (uint64_t)timeouts);
  check_stats(c, 1, (uint64_t)timeouts, (uint64_t)timeouts - unwritten);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

static Suite *timeout_suite(void)
{
  Suite *s = suite_create("timeout");
  TCase *tc = tcase_create("timeout");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_call_timeout);
  tcase_add_test(tc, test_precedence);
  tcase_add_test(tc, test_fragmented_late_reply);
  tcase_add_test(tc, test_threads_one_connection);
  tcase_add_test(tc, test_reply_cut_around_deadline);
  tcase_add_test(tc, test_write_timeout);
  tcase_add_test(tc, test_threads_mixed_timeouts);
  suite_add_tcase(s, tc);
  return s;
}

static int timeout_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = timeout_suite, .setup = timeout_setup };
