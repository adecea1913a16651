/* check_combine.c - combined sends (libiiop/connection.c, "combining"): a
 * thread that finds a connection's write lock taken links its message for
 * the holder, which writes it with its own in one gather write.
 *
 * At the connection (internal: linked through libcorbaiiop-internal.la):
 * 8 threads send GIOP 1.2 Requests of mixed sizes -- small ones, ones just
 * under the fragment size (combined), and ones larger than it (fragmented:
 * these wait for the lock instead) -- some in several pieces, over a TCP
 * connection whose send buffer is small to a peer that reads slowly, so
 * that combined writes stop part-way and go on.  The peer reassembles what
 * arrives (the library's own reader) and checks every message: each whole
 * (no other message's octets inside it), every octet of its body the
 * pattern its sender wrote, each thread's messages in the order it sent
 * them, the exact count; and that messages were combined.
 *
 * Through the client: 16 threads on one reference (2 connections) echo
 * strings of mixed lengths (0 to 20,000 octets: fragmented ones among them)
 * and each gets its own string back, octet for octet.
 *
 * Threads other than the main one record results; every ck_assert runs on
 * the main thread. */
#define _GNU_SOURCE                  /* pthread_timedjoin_np */
#include <check.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "connection.h"
#include "transport.h"
#include "netutil.h"
#include "testutil.h"

#define SENDERS 8
#define PER_SENDER 150

static void sleep_us(long us)
{
  struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep(&ts, NULL);
}

/* The body octet I (from the start of the message) of sender S's message
 * number Q. */
static uint8_t pattern(uint32_t s, uint32_t q, size_t i)
{
  return (uint8_t)(s * 131u + q * 29u + (uint32_t)i * 7u + (uint32_t)(i >> 8));
}

/* Body length of sender S's message Q: mixed, from a fixed sequence. */
static size_t body_len(uint32_t s, uint32_t q)
{
  switch ((s + q) % 6) {
  case 0: return 16 + (q * 37 + s) % 200;             /* small */
  case 1: return 40;
  case 2: return 6000 + (q * 101 + s) % 2100;         /* under 8192 in all: combined */
  case 3: return 24;
  case 4: return 9000 + (q * 997 + s * 13) % 30000;   /* fragmented: waits for the lock */
  default: return 600 + (q * 53) % 900;
  }
}

/* A GIOP 1.2 Request (little-endian) of sender S, number Q: the header,
 * then the request id (S * 100000 + Q), S and Q (as the body's first 12
 * octets), then the pattern.  Malloc'd; *LEN its length. */
static uint8_t *make_msg(uint32_t s, uint32_t q, size_t *len)
{
  size_t n = 12 + body_len(s, q);
  uint8_t *m = malloc(n);
  if (!m)
    return NULL;
  memcpy(m, "GIOP", 4);
  m[4] = 1;
  m[5] = 2;
  m[6] = 1;                          /* little-endian */
  m[7] = GIOP_REQUEST;
  uint32_t sz = (uint32_t)(n - 12), id = s * 100000u + q;
  tu_store(m + 8, sz, 4, 1);
  tu_store(m + 12, id, 4, 1);
  tu_store(m + 16, s, 4, 1);
  tu_store(m + 20, q, 4, 1);
  for (size_t i = 24; i < n; i++)
    m[i] = pattern(s, q, i);
  *len = n;
  return m;
}

typedef struct sender {
  iiop_conn *c;
  uint32_t s;
  int pieces;                        /* 1: each message one iovec; else split in 3 */
  int bad;                           /* send errors */
} sender;

static void *sender_main(void *arg)
{
  sender *x = arg;
  for (uint32_t q = 0; q < PER_SENDER; q++) {
    size_t n;
    uint8_t *m = make_msg(x->s, q, &n);
    if (!m) {
      x->bad++;
      continue;
    }
    struct iovec v[3];
    int nv = 1;
    v[0].iov_base = m;
    v[0].iov_len = n;
    if (x->pieces > 1 && n > 40) {   /* the header and a bit, a middle, the rest */
      size_t cut1 = 12 + (n - 12) / 3, cut2 = 12 + 2 * (n - 12) / 3;
      v[0].iov_len = cut1;
      v[1].iov_base = m + cut1;
      v[1].iov_len = cut2 - cut1;
      v[2].iov_base = m + cut2;
      v[2].iov_len = n - cut2;
      nv = 3;
    }
    if (iiop__conn_sendv_timed(x->c, v, nv, n, x->s * 100000u + q, 20000) != CDR_OK)
      x->bad++;
    /* The octets are the holder's until the send returns: spoil them now,
     * so that a holder still writing them would be caught by the peer. */
    memset(m, 0xEE, n);
    free(m);
  }
  return NULL;
}

typedef struct peer {
  iiop_conn *c;
  int slow;                          /* sleep 1 ms every 8 messages */
  int got;                           /* messages checked */
  uint32_t next[SENDERS];            /* each sender's next number */
  char err[200];                     /* the first fault */
} peer;

static void *peer_main(void *arg)
{
  peer *p = arg;
  while (p->got < SENDERS * PER_SENDER && !p->err[0]) {
    uint8_t *m;
    size_t n;
    int rc = iiop__conn_recv(p->c, 20000, &m, &n);
    if (rc != CDR_OK) {
      snprintf(p->err, sizeof p->err, "recv after %d messages: %s", p->got, cdr_strerror(rc));
      break;
    }
    if (n < 24 || memcmp(m, "GIOP", 4) != 0 || m[7] != GIOP_REQUEST) {
      snprintf(p->err, sizeof p->err, "message %d: %zu octets, not a Request", p->got, n);
    } else {
      uint32_t s = m[16] | m[17] << 8 | m[18] << 16 | (uint32_t)m[19] << 24;
      uint32_t q = m[20] | m[21] << 8 | m[22] << 16 | (uint32_t)m[23] << 24;
      uint32_t id = m[12] | m[13] << 8 | m[14] << 16 | (uint32_t)m[15] << 24;
      if (s >= SENDERS || q != p->next[s] || id != s * 100000u + q) {
        snprintf(p->err, sizeof p->err, "message %d: sender %u number %u id %u, expected %u",
                 p->got, s, q, id, s < SENDERS ? p->next[s] : 0);
      } else if (n != 12 + body_len(s, q)) {
        snprintf(p->err, sizeof p->err, "sender %u number %u: %zu octets, sent %zu", s, q, n,
                 12 + body_len(s, q));
      } else {
        for (size_t i = 24; i < n; i++) {
          if (m[i] != pattern(s, q, i)) {
            snprintf(p->err, sizeof p->err, "sender %u number %u octet %zu: 0x%02x, sent 0x%02x",
                     s, q, i, m[i], pattern(s, q, i));
            break;
          }
        }
        p->next[s]++;
      }
    }
    iiop__conn_release(p->c, m);
    p->got++;
    if (p->slow && p->got % 8 == 0)
      sleep_us(1000);
  }
  return NULL;
}

static void run_senders(int pieces, int slow)
{
  int a, b;
  nu_tcp_pair(&a, &b, 4096, 4096, 1); /* 4 KiB send, 4 KiB receive buffer */
  iiop_transport *ta, *tb;
  ck_assert_int_eq(iiop__tcp_wrap(a, NULL, &ta), CDR_OK);
  ck_assert_int_eq(iiop__tcp_wrap(b, NULL, &tb), CDR_OK);
  iiop_conn *ca, *cb;
  ck_assert_int_eq(iiop__conn_new(ta, NULL, &ca), CDR_OK);
  ck_assert_int_eq(iiop__conn_new(tb, NULL, &cb), CDR_OK);

  peer p;
  memset(&p, 0, sizeof p);
  p.c = cb;
  p.slow = slow;
  pthread_t pt, st[SENDERS];
  sender sd[SENDERS];
  ck_assert_int_eq(pthread_create(&pt, NULL, peer_main, &p), 0);
  for (uint32_t k = 0; k < SENDERS; k++) {
    sd[k] = (sender){ ca, k, pieces, 0 };
    ck_assert_int_eq(pthread_create(&st[k], NULL, sender_main, &sd[k]), 0);
  }
  int bad = 0;
  for (int k = 0; k < SENDERS; k++) {
    pthread_join(st[k], NULL);
    bad += sd[k].bad;
  }
  pthread_join(pt, NULL);
  ck_assert_msg(p.err[0] == 0, "%s", p.err);
  ck_assert_int_eq(bad, 0);
  ck_assert_int_eq(p.got, SENDERS * PER_SENDER);
  for (int k = 0; k < SENDERS; k++)
    ck_assert_uint_eq(p.next[k], PER_SENDER);
  /* The small send buffer and the slow peer keep the lock's holder in its
   * write long enough that others find it taken. */
  uint64_t comb = iiop__conn_combined(ca);
  ck_assert_msg(comb > 0, "no message was combined");
  ck_assert_uint_le(comb, SENDERS * PER_SENDER);
  iiop__conn_free(ca);
  iiop__conn_free(cb);
}

START_TEST(test_combined_slow_peer)
{
  run_senders(1, 1);
}
END_TEST

START_TEST(test_combined_pieces_slow_peer)
{
  run_senders(3, 1);
}
END_TEST

START_TEST(test_combined_fast_peer)
{
  run_senders(3, 0);
}
END_TEST

/* After the connection is shut down every sender returns (none is left
 * waiting for a holder) with an error, and a message sent before is whole. */
typedef struct closer {
  iiop_conn *c;
  int ok, failed;
} closer;

static void *closer_main(void *arg)
{
  closer *x = arg;
  uint8_t m[2000];
  memset(m, 0x5A, sizeof m);
  memcpy(m, "GIOP\1\2\1", 7);
  m[7] = GIOP_REQUEST;
  tu_store(m + 8, sizeof m - 12, 4, 1);
  for (int k = 0; k < 400; k++) {
    struct iovec v = { m, sizeof m };
    if (iiop__conn_sendv_timed(x->c, &v, 1, sizeof m, 1, 20000) == CDR_OK)
      x->ok++;
    else
      x->failed++;
  }
  return NULL;
}

START_TEST(test_shutdown_wakes_linked_senders)
{
  int a, b;
  nu_tcp_pair(&a, &b, 4096, 4096, 1);
  iiop_transport *ta;
  ck_assert_int_eq(iiop__tcp_wrap(a, NULL, &ta), CDR_OK);
  iiop_conn *ca;
  ck_assert_int_eq(iiop__conn_new(ta, NULL, &ca), CDR_OK);
  /* B is never read: the senders fill the buffers, the holder waits to
   * write, the others link their messages and sleep. */
  pthread_t t[SENDERS];
  closer x[SENDERS];
  for (int k = 0; k < SENDERS; k++) {
    x[k] = (closer){ ca, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[k], NULL, closer_main, &x[k]), 0);
  }
  sleep_us(200000);
  iiop__conn_shutdown(ca);
  int ok = 0, failed = 0;
  for (int k = 0; k < SENDERS; k++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 20;
    ck_assert_int_eq(pthread_timedjoin_np(t[k], NULL, &ts), 0);
    ok += x[k].ok;
    failed += x[k].failed;
  }
  ck_assert_int_eq(ok + failed, SENDERS * 400);
  ck_assert_int_ge(failed, SENDERS);  /* each thread's every send after the shutdown */
  ck_assert_int_lt(ok, SENDERS * 400);
  iiop__conn_free(ca);
  close(b);
}
END_TEST

/* A combined write that fails part-way may have carried some of its
 * messages whole to the peer: each such sender must be told MAYBE (a
 * client then reports COMPLETED_MAYBE and does not send the request
 * again), never "not sent".  The peer reads slowly, records the id of
 * every message it read whole, and after 60,000 octets resets the
 * connection; every message it read whole was either sent successfully
 * or failed with *maybe 1. */
#define MAYBE_PER 300
#define MAYBE_LEN 1500

/* The little-endian 32-bit value at P. */
static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct mpeer {
  int fd;
  uint8_t *seen;                     /* [SENDERS * MAYBE_PER]: read whole */
  int whole;
} mpeer;

static void *mpeer_main(void *arg)
{
  mpeer *p = arg;
  static uint8_t buf[70000];
  size_t have = 0, off = 0;
  while (have < 60000) {
    ssize_t r = read(p->fd, buf + have, 1000);
    if (r <= 0)
      break;
    have += (size_t)r;
    while (have - off >= 12) {
      uint32_t sz = le32(buf + off + 8);
      if (have - off < 12 + (size_t)sz)
        break;
      uint32_t s = le32(buf + off + 16);
      uint32_t q = le32(buf + off + 20);
      if (s < SENDERS && q < MAYBE_PER) {
        p->seen[s * MAYBE_PER + q] = 1;
        p->whole++;
      }
      off += 12 + sz;
    }
    sleep_us(300);
  }
  struct linger lg = { 1, 0 };       /* close with a reset: the writers fail */
  (void)setsockopt(p->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(p->fd);
  return NULL;
}

typedef struct msender {
  iiop_conn *c;
  uint32_t s;
  int rc[MAYBE_PER];
  int maybe[MAYBE_PER];
} msender;

static void *msender_main(void *arg)
{
  msender *x = arg;
  uint8_t m[MAYBE_LEN];
  memset(m, 0x33, sizeof m);
  memcpy(m, "GIOP\1\2\1", 7);
  m[7] = GIOP_REQUEST;
  tu_store(m + 8, sizeof m - 12, 4, 1);
  for (uint32_t q = 0; q < MAYBE_PER; q++) {
    tu_store(m + 12, x->s * 100000u + q, 4, 1);
    tu_store(m + 16, x->s, 4, 1);
    tu_store(m + 20, q, 4, 1);
    struct iovec v = { m, sizeof m };
    x->maybe[q] = -1;
    x->rc[q] = iiop__conn_sendv_maybe(x->c, &v, 1, sizeof m, x->s * 100000u + q, 20000,
                                      &x->maybe[q]);
  }
  return NULL;
}

START_TEST(test_failed_combined_write_maybe)
{
  int a, b;
  nu_tcp_pair(&a, &b, 4096, 4096, 1);
  iiop_transport *ta;
  ck_assert_int_eq(iiop__tcp_wrap(a, NULL, &ta), CDR_OK);
  iiop_conn *ca;
  ck_assert_int_eq(iiop__conn_new(ta, NULL, &ca), CDR_OK);
  static uint8_t seen[SENDERS * MAYBE_PER];
  memset(seen, 0, sizeof seen);
  mpeer p = { b, seen, 0 };
  pthread_t pt, t[SENDERS];
  static msender x[SENDERS];
  ck_assert_int_eq(pthread_create(&pt, NULL, mpeer_main, &p), 0);
  for (int k = 0; k < SENDERS; k++) {
    x[k].c = ca;
    x[k].s = (uint32_t)k;
    ck_assert_int_eq(pthread_create(&t[k], NULL, msender_main, &x[k]), 0);
  }
  for (int k = 0; k < SENDERS; k++)
    ck_assert_int_eq(pthread_join(t[k], NULL), 0);
  ck_assert_int_eq(pthread_join(pt, NULL), 0);
  int ok = 0, failed = 0, failed_maybe = 0, wrong = 0, bad_flag = 0;
  for (int k = 0; k < SENDERS; k++)
    for (int q = 0; q < MAYBE_PER; q++) {
      int rc = x[k].rc[q], mb = x[k].maybe[q];
      if (mb != 0 && mb != 1)
        bad_flag++;
      if (rc == CDR_OK) {
        ok++;
        if (mb != 0)
          bad_flag++;
        continue;
      }
      failed++;
      failed_maybe += mb == 1;
      if (seen[k * MAYBE_PER + q] && mb != 1)
        wrong++;                     /* the peer has it whole: "not sent" is wrong */
    }
  fprintf(stderr, "maybe: %d read whole by the peer, %d sent, %d failed (%d MAYBE), "
          "%llu combined\n", p.whole, ok, failed, failed_maybe,
          (unsigned long long)iiop__conn_combined(ca));
  ck_assert_int_eq(bad_flag, 0);
  ck_assert_int_eq(wrong, 0);
  ck_assert_int_gt(p.whole, 0);
  ck_assert_int_gt(failed, 0);       /* the reset came while they sent */
  ck_assert_int_eq(ok + failed, SENDERS * MAYBE_PER);
  iiop__conn_free(ca);
}
END_TEST

/* ---------------------------------------------------------------- through the client */

static const iiop_operation ops[] = { { "echoStringView", nu_op_echo_view } };
static const iiop_interface iface = { "IDL:Bench/Echo:1.0", ops, 1, NULL };

#define CALLERS 16
#define CALLS 150

typedef struct caller {
  iiop_ref *ref;
  uint32_t s;
  int bad;
  char err[160];
} caller;

static size_t str_len(uint32_t s, uint32_t q)
{
  switch ((s * 7 + q) % 5) {
  case 0: return 0;
  case 1: return 3 + q % 50;
  case 2: return 5000 + (q * 61 + s) % 3000;
  case 3: return 9000 + (q * 389 + s * 17) % 11000;  /* fragmented both ways */
  default: return 200;
  }
}

static void *caller_main(void *arg)
{
  caller *c = arg;
  char *str = malloc(20001);
  if (!str) {
    c->bad = CALLS;
    return NULL;
  }
  for (uint32_t q = 0; q < CALLS; q++) {
    size_t n = str_len(c->s, q);
    for (size_t i = 0; i < n; i++)
      str[i] = (char)('!' + (c->s * 31 + q * 7 + i) % 90);
    str[n] = 0;
    iiop_call *call = NULL;
    cdr_out *args = NULL;
    if (iiop_call_begin(c->ref, "echoStringView", 0, &call, &args) != CDR_OK) {
      c->bad++;
      continue;
    }
    cdr_put_string_view(args, str, (uint32_t)n);
    cdr_in *res = NULL;
    const char *got = NULL;
    uint32_t gn = 0;
    int rc = iiop_call_invoke(call, &res);
    if (rc == CDR_OK)
      rc = cdr_get_string_view(res, &got, &gn);
    if (rc != CDR_OK || gn != n || memcmp(got, str, n) != 0) {
      if (!c->err[0])
        snprintf(c->err, sizeof c->err, "caller %u call %u: rc %d, %u octets for %zu", c->s, q,
                 rc, gn, n);
      c->bad++;
    }
    iiop_call_end(call);
  }
  free(str);
  return NULL;
}

START_TEST(test_client_threads_mixed_bodies)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.batch_replies = 1;
  iiop_server *s = nu_serve(&so, "Echo", &iface, NULL);
  char url[64];
  snprintf(url, sizeof url, "corbaloc:iiop:1.2@127.0.0.1:%u/Echo", iiop_server_port(s));
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.max_connections = 2;
  iiop_client *cl = iiop_client_new(&co);
  ck_assert_ptr_nonnull(cl);
  iiop_ref *ref = NULL;
  ck_assert_int_eq(iiop_client_resolve(cl, url, &ref), CDR_OK);
  pthread_t t[CALLERS];
  caller c[CALLERS];
  for (uint32_t k = 0; k < CALLERS; k++) {
    memset(&c[k], 0, sizeof c[k]);
    c[k].ref = ref;
    c[k].s = k;
    ck_assert_int_eq(pthread_create(&t[k], NULL, caller_main, &c[k]), 0);
  }
  int bad = 0;
  const char *first = NULL;
  for (int k = 0; k < CALLERS; k++) {
    pthread_join(t[k], NULL);
    bad += c[k].bad;
    if (c[k].err[0] && !first)
      first = c[k].err;
  }
  ck_assert_msg(bad == 0, "%d calls wrong; %s", bad, first ? first : "");
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(cl, &st), CDR_OK);
  ck_assert_uint_le(st.connections, 2);
  iiop_ref_free(ref);
  iiop_client_free(cl);
  iiop_server_free(s);
}
END_TEST

static Suite *combine_suite(void)
{
  Suite *s = suite_create("combine");
  TCase *tc = tcase_create("combine");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_combined_slow_peer);
  tcase_add_test(tc, test_combined_pieces_slow_peer);
  tcase_add_test(tc, test_combined_fast_peer);
  tcase_add_test(tc, test_shutdown_wakes_linked_senders);
  tcase_add_test(tc, test_failed_combined_write_maybe);
  tcase_add_test(tc, test_client_threads_mixed_bodies);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = combine_suite };
