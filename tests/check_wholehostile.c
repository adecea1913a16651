/* check_wholehostile.c - a default-option server (fragment_size 0: whole
 * messages up to GIOP_WHOLE_DEFAULT, 2 MiB, go and come unfragmented)
 * against a raw TCP peer that sends bad or abusive input around that size:
 *
 * - a header whose message_size passes max_message: MessageError, close,
 *   limit_message counted, nothing charged to the budget;
 * - a header announcing 2 MiB + 1 followed by a short body, then a hang-up
 *   (the connection's record and charges go) or a stall (closed by
 *   message_timeout_ms, within its scan slack);
 * - a complete 2 MiB request sent quickly (answered byte for byte) and the
 *   same request trickled slower than message_timeout_ms (closed);
 * - GIOP 1.2 fragments of two request IDs interleaved (both answered), a
 *   Fragment after a complete message and a Fragment for an ID never
 *   opened (MessageError), a GIOP 1.0 header with the fragment bit set
 *   (MessageError);
 * - many connections each announcing 2 MiB and sending most of it: the
 *   octets charged never pass max_in_flight, every connection ends refused
 *   by the budget or timed out, everything is given back at the end;
 * - a default-option client whose peer answers with a Reply header over
 *   max_message (CDR_E_LIMIT at once), or 2 MiB + 1 announced with a short
 *   body then a hang-up (CDR_E_CLOSED at once) or a stall (the call's
 *   timeout holds).
 * Every server listens on 127.0.0.1 port 0. */
#include <check.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/frag.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

#define HOST_LE (CDR_HOST_ORDER == CDR_LITTLE_ENDIAN)

/* ---------------------------------------------------------------- the servant */

static const iiop_operation ops[] = {
  { "ping", nu_op_ping },
  { "echoString", nu_op_echo_string },
};
static const iiop_interface iface = { "IDL:Test/Echo:1.0", ops, 2, NULL };

static iiop_limits short_limits(int header_ms, int message_ms)
{
  iiop_limits l;
  iiop_limits_default(&l);
  l.header_timeout_ms = header_ms;
  l.message_timeout_ms = message_ms;
  return l;
}

static iiop_server *start_server(const iiop_limits *l)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.host = "127.0.0.1";
  if (l)
    o.limits = *l;
  iiop_server *s = nu_serve(&o, "Echo", &iface, NULL);
  ck_assert_uint_ne(iiop_server_port(s), 0);
  return s;
}

/* ---------------------------------------------------------------- raw sockets */

/* The server's MessageError (GIOP 1.MINOR, its host byte order), then its
 * close within 3 s. */
static void expect_message_error_in_and_close(int fd, uint8_t minor)
{
  uint8_t want[12] = { 'G', 'I', 'O', 'P', 1, minor, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN,
                       GIOP_MESSAGE_ERROR, 0, 0, 0, 0 };
  uint8_t got[12];
  ck_assert(nu_read_full(fd, got, 12));
  ck_assert_mem_eq(got, want, 12);
  uint8_t b;
  ck_assert_int_eq(recv(fd, &b, 1, 0), 0);
}

/* The server's MessageError in GIOP 1.2 (the refused header's version),
 * then its close. */
static void expect_message_error_and_close(int fd)
{
  expect_message_error_in_and_close(fd, 2);
}

/* Milliseconds from T0 until the server closes FD, -1 when it sends
 * something first or stays open for 10 s. */
static int64_t ms_until_closed(int fd, int64_t t0)
{
  uint8_t b;
  ssize_t r = recv(fd, &b, 1, 0);
  return r == 0 ? tu_now_ms() - t0 : -1;
}

/* A GIOP 1.2 Request (host order, key "Echo", response expected) into a
 * malloc'd buffer of *N octets. */
static uint8_t *build_request(uint32_t id, const char *op, nu_args_fn args, const void *ud,
                              size_t cap, size_t *n)
{
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  nu_req r = nu_req_default(id, "Echo", op);
  r.args = args;
  r.ud = ud;
  *n = nu_request(buf, cap, &r);
  return buf;
}

/* Read one Reply on FD: its request ID and reply status, the body (after
 * alignment) parsed into M; the caller frees the returned buffer. */
static uint8_t *recv_reply(int fd, giop_message *m, cdr_arena *a)
{
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 8u << 20, &len);
  ck_assert_ptr_nonnull(msg);
  cdr_opts o;
  cdr_opts_default(&o);
  ck_assert_int_eq(giop_parse(m, msg, len, &o, a), CDR_OK);
  ck_assert_int_eq(m->hdr.type, GIOP_REPLY);
  return msg;
}

/* A ping on FD answered with V (the connection still works). */
static void raw_ping(int fd, uint32_t id, int32_t v)
{
  size_t n;
  uint8_t *req = build_request(id, "ping", nu_arg_long, &v, 256, &n);
  ck_assert(nu_send_all(fd, req, n));
  free(req);
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  uint8_t *msg = recv_reply(fd, &m, a);
  ck_assert_uint_eq(m.u.reply.request_id, id);
  ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
  ck_assert_int_eq(cdr_get_long(&m.body), v);
  ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
  cdr_in_close(&m.body);
  free(msg);
  cdr_arena_put(a);
}

/* ---------------------------------------------------------------- message size */

/* message_size one past max_message (the default 64 MiB, and a small 1 MiB
 * cap), and C11 (a): 0xFFFFFFF0 over a socket, the peer hanging up at once
 * (k 3) or reading the answer: MessageError and close before anything is
 * allocated or charged. */
START_TEST(test_c11a_size_over_max_message)
{
  iiop_limits l = short_limits(10000, 10000);
  for (int k = 0; k < 4; k++) {
    size_t max = k == 0 ? IIOP_DEFAULT_MAX_MESSAGE : (size_t)1 << 20;
    l.max_message = max;
    iiop_server *s = start_server(&l);
    int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    uint8_t h[12];
    /* max_message counts the 12-octet header; k 2: 0xFFFFFFFF */
    nu_header(h, 2, HOST_LE, 0, GIOP_REQUEST, k >= 2 ? 0xFFFFFFF0u : (uint32_t)(max - 12 + 1));
    ck_assert(nu_send_all(fd, h, 12));
    if (k == 3)
      shutdown(fd, SHUT_WR);                  /* hung up: nothing more comes */
    expect_message_error_and_close(fd);
    close(fd);
    iiop_server_stats st = nu_settled(s, 3000);
    ck_assert_uint_eq(st.limit_message, 1);
    ck_assert_uint_eq(st.limit_protocol, 0);
    ck_assert_uint_eq(st.in_flight_peak, 0);
    ck_assert_uint_eq(st.open, 0);
    iiop_server_free(s);
  }
}
END_TEST

/* A message_size under max_message but over max_in_flight can never be
 * afforded: MessageError and close, counted as limit_message, nothing
 * charged (limits.h). */
START_TEST(test_size_over_max_in_flight)
{
  iiop_limits l = short_limits(10000, 10000);
  l.max_in_flight = (size_t)1 << 20;
  iiop_server *s = start_server(&l);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  uint8_t h[12 + 64];
  memset(h, 0, sizeof h);
  nu_header(h, 2, HOST_LE, 0, GIOP_REQUEST, (uint32_t)(1u << 20) + 1);
  ck_assert(nu_send_all(fd, h, sizeof h));
  expect_message_error_and_close(fd);
  close(fd);
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.limit_message, 1);
  ck_assert_uint_eq(st.in_flight_peak, 0);
  fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  raw_ping(fd, 1, 5);
  close(fd);
  iiop_server_free(s);
}
END_TEST

/* A header announcing 2 MiB + 1, a short body, then a hang-up: the
 * connection goes, what it charged is given back; the server still serves. */
START_TEST(test_whole_plus_one_short_then_close)
{
  iiop_limits l = short_limits(10000, 10000);
  iiop_server *s = start_server(&l);
  size_t body = 300 << 10;                    /* past the 64 KiB charged buffers */
  uint8_t *m = calloc(1, 12 + body);
  ck_assert_ptr_nonnull(m);
  nu_header(m, 2, HOST_LE, 0, GIOP_REQUEST, (uint32_t)(GIOP_WHOLE_DEFAULT + 1));
  for (int i = 0; i < 3; i++) {
    int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    ck_assert(nu_send_all(fd, m, 12 + (i == 0 ? 0 : i == 1 ? 100 : body)));
    tu_sleep_ms(100);
    close(fd);
  }
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.open, 0);
  ck_assert_uint_eq(st.in_flight, 0);
  ck_assert_uint_le(st.in_flight_peak, 2 * (12 + body)); /* buffers grow by doubling */
  ck_assert_uint_eq(st.limit_message, 0);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  raw_ping(fd, 1, 42);
  close(fd);
  free(m);
  iiop_server_free(s);
}
END_TEST

/* The same, the peer stalling instead of closing: message_timeout_ms
 * closes it (the server scans every eighth of the shortest timeout). */
START_TEST(test_whole_plus_one_short_then_stall)
{
  iiop_limits l = short_limits(10000, 500);
  iiop_server *s = start_server(&l);
  size_t body = 300 << 10;
  uint8_t *m = calloc(1, 12 + body);
  ck_assert_ptr_nonnull(m);
  nu_header(m, 2, HOST_LE, 0, GIOP_REQUEST, (uint32_t)(GIOP_WHOLE_DEFAULT + 1));
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  int64_t t0 = tu_now_ms();
  ck_assert(nu_send_all(fd, m, 12 + body));
  int64_t t = ms_until_closed(fd, t0);
  ck_assert_int_ge(t, 500);
  ck_assert_int_le(t, 500 + 2 * 63 + 1500);   /* slack for a loaded machine */
  close(fd);
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.timeout_message, 1);
  ck_assert_uint_eq(st.timeout_header, 0);
  ck_assert_uint_eq(st.in_flight, 0);
  free(m);
  iiop_server_free(s);
}
END_TEST

/* A request of almost 2 MiB: sent at once it is answered byte for byte
 * (one unfragmented Reply); trickled in 32 KiB pieces every 40 ms (about
 * 2.5 s in all) past a 600 ms message timeout, the connection is closed. */
START_TEST(test_whole_2m_fast_and_slow)
{
  iiop_limits l = short_limits(10000, 600);
  iiop_server *s = start_server(&l);
  size_t sl = GIOP_WHOLE_DEFAULT - 200;
  char *str = malloc(sl + 1);
  ck_assert_ptr_nonnull(str);
  for (size_t i = 0; i < sl; i++)
    str[i] = (char)('a' + i % 26);
  str[sl] = 0;
  size_t n;
  uint8_t *req = build_request(7, "echoString", nu_arg_string, str, sl + 256, &n);
  ck_assert_uint_le(n, GIOP_WHOLE_DEFAULT);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  ck_assert(nu_send_all(fd, req, n));
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 8u << 20, &len);
  ck_assert_ptr_nonnull(msg);
  ck_assert_int_eq(msg[6] & GIOP_FLAG_MORE_FRAGMENTS, 0);  /* one whole Reply */
  cdr_arena *a = cdr_arena_get();
  giop_message gm;
  cdr_opts o;
  cdr_opts_default(&o);
  ck_assert_int_eq(giop_parse(&gm, msg, len, &o, a), CDR_OK);
  ck_assert_uint_eq(gm.u.reply.request_id, 7);
  ck_assert_uint_eq(gm.u.reply.reply_status, GIOP_NO_EXCEPTION);
  uint32_t got;
  const char *back = cdr_get_string(&gm.body, &got);
  ck_assert_ptr_nonnull(back);
  ck_assert_uint_eq(got, sl);
  ck_assert_int_eq(memcmp(back, str, sl), 0);
  cdr_in_close(&gm.body);
  free(msg);
  cdr_arena_put(a);
  close(fd);

  fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  int64_t t0 = tu_now_ms();
  size_t k = 0;
  int closed = 0;
  while (k < n - 1 && !closed) {
    size_t piece = n - 1 - k < (32u << 10) ? n - 1 - k : (32u << 10);
    if (!nu_send_all(fd, req + k, piece))
      closed = 1;
    k += piece;
    tu_sleep_ms(40);
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, 0) == 1)
      closed = 1;
  }
  int64_t t = ms_until_closed(fd, t0);
  ck_assert_int_ge(t, 600);
  ck_assert_int_le(t, 600 + 2 * 75 + 1500);
  ck_assert_uint_lt(k, n - 1);                 /* closed before it was all sent */
  close(fd);
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.timeout_message, 1);
  ck_assert_uint_eq(st.in_flight, 0);
  free(req);
  free(str);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- fragments */

/* REQ (N octets, a GIOP 1.2 Request in host order) cut into a first
 * message with FIRST body octets (FIRST = 4 mod 8) and Fragments of FRAG
 * data octets (a multiple of 8) each, request ID ID; the messages go into
 * OUT[] (each malloc'd, lengths in LENS[]); returns how many. */
static int cut(const uint8_t *req, size_t n, uint32_t id, size_t first, size_t frag,
               uint8_t **out, size_t *lens, int max)
{
  ck_assert_uint_eq((12 + first) % 8, 0);
  ck_assert_uint_eq(frag % 8, 0);
  size_t body = n - 12;
  ck_assert_uint_gt(body, first);
  int k = 0;
  size_t take = first;
  out[k] = malloc(12 + take);
  ck_assert_ptr_nonnull(out[k]);
  nu_header(out[k], 2, HOST_LE, GIOP_FLAG_MORE_FRAGMENTS, GIOP_REQUEST, (uint32_t)take);
  memcpy(out[k] + 12, req + 12, take);
  lens[k++] = 12 + take;
  for (size_t pos = 12 + first; pos < n;) {
    ck_assert_int_lt(k, max);
    take = n - pos < frag ? n - pos : frag;
    int last = pos + take == n;
    out[k] = malloc(16 + take);
    ck_assert_ptr_nonnull(out[k]);
    nu_header(out[k], 2, HOST_LE, last ? 0 : GIOP_FLAG_MORE_FRAGMENTS, GIOP_FRAGMENT, (uint32_t)(4 + take));
    memcpy(out[k] + 12, &id, 4);
    memcpy(out[k] + 16, req + pos, take);
    lens[k++] = 16 + take;
    pos += take;
  }
  return k;
}

/* Two fragmented GIOP 1.2 requests whose fragments alternate (1, 2, 1, 2,
 * ...): each is reassembled from its own fragments and answered. */
START_TEST(test_interleaved_fragments)
{
  iiop_server *s = start_server(NULL);
  char s1[3000], s2[2000];
  memset(s1, 'p', sizeof s1 - 1);
  s1[sizeof s1 - 1] = 0;
  memset(s2, 'q', sizeof s2 - 1);
  s2[sizeof s2 - 1] = 0;
  size_t n1, n2;
  uint8_t *r1 = build_request(1, "echoString", nu_arg_string, s1, 4096, &n1);
  uint8_t *r2 = build_request(2, "echoString", nu_arg_string, s2, 4096, &n2);
  uint8_t *m1[64], *m2[64];
  size_t l1[64], l2[64];
  int k1 = cut(r1, n1, 1, 36, 512, m1, l1, 64);
  int k2 = cut(r2, n2, 2, 28, 256, m2, l2, 64);
  ck_assert_int_gt(k2, 3);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  for (int i = 0; i < k1 || i < k2; i++) {
    if (i < k1)
      ck_assert(nu_send_all(fd, m1[i], l1[i]));
    if (i < k2)
      ck_assert(nu_send_all(fd, m2[i], l2[i]));
  }
  /* request 2 has more, smaller fragments but finishes at the same step or
   * later; take the replies in whatever order they come */
  for (int r = 0; r < 2; r++) {
    cdr_arena *a = cdr_arena_get();
    giop_message m;
    uint8_t *msg = recv_reply(fd, &m, a);
    ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
    const char *want = m.u.reply.request_id == 1 ? s1 : s2;
    ck_assert(m.u.reply.request_id == 1 || m.u.reply.request_id == 2);
    uint32_t n;
    const char *back = cdr_get_string(&m.body, &n);
    ck_assert_ptr_nonnull(back);
    ck_assert_str_eq(back, want);
    cdr_in_close(&m.body);
    free(msg);
    cdr_arena_put(a);
  }
  raw_ping(fd, 3, 9);
  close(fd);
  for (int i = 0; i < k1; i++)
    free(m1[i]);
  for (int i = 0; i < k2; i++)
    free(m2[i]);
  free(r1);
  free(r2);
  iiop_server_free(s);
}
END_TEST

/* A Fragment for the request ID of a complete (unfragmented) message just
 * answered, and one for an ID never opened: MessageError and close. */
START_TEST(test_fragment_after_complete)
{
  iiop_server *s = start_server(NULL);
  for (int k = 0; k < 2; k++) {
    int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    raw_ping(fd, 5, 1);
    uint8_t f[24];
    uint32_t id = k == 0 ? 5 : 77;
    nu_header(f, 2, HOST_LE, 0, GIOP_FRAGMENT, 12);
    memcpy(f + 12, &id, 4);
    memset(f + 16, 0, 8);
    ck_assert(nu_send_all(fd, f, sizeof f));
    expect_message_error_and_close(fd);
    close(fd);
  }
  /* also straight after a complete Request, before its reply is read */
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  int32_t v = 3;
  size_t n;
  uint8_t *req = build_request(6, "ping", nu_arg_long, &v, 256, &n);
  uint8_t f[24];
  uint32_t id = 6;
  nu_header(f, 2, HOST_LE, 0, GIOP_FRAGMENT, 12);
  memcpy(f + 12, &id, 4);
  memset(f + 16, 0, 8);
  uint8_t *both = malloc(n + sizeof f);
  ck_assert_ptr_nonnull(both);
  memcpy(both, req, n);
  memcpy(both + n, f, sizeof f);
  ck_assert(nu_send_all(fd, both, n + sizeof f));
  /* the ping's reply may come before the MessageError */
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 8u << 20, &len);
  ck_assert_ptr_nonnull(msg);
  if (msg[7] == GIOP_REPLY) {
    free(msg);
    msg = nu_recv_msg(fd, 8u << 20, &len);
    ck_assert_ptr_nonnull(msg);
  }
  ck_assert_int_eq(msg[7], GIOP_MESSAGE_ERROR);
  ck_assert_uint_eq(len, 12);
  free(msg);
  uint8_t b;
  ck_assert_int_eq(recv(fd, &b, 1, 0), 0);
  close(fd);
  free(both);
  free(req);
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.limit_protocol, 3);
  iiop_server_free(s);
}
END_TEST

/* GIOP 1.0 has no fragments: a 1.0 Request whose flags octet carries the
 * more-fragments bit (0x02, or 0x03 with little-endian) is malformed. */
START_TEST(test_giop10_fragment_bit)
{
  iiop_server *s = start_server(NULL);
  for (int k = 0; k < 3; k++) {
    int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    uint8_t m[12 + 64];
    memset(m, 0, sizeof m);
    nu_header(m, 0, HOST_LE, GIOP_FLAG_MORE_FRAGMENTS, k == 2 ? GIOP_FRAGMENT : GIOP_REQUEST, 64);
    if (k == 1)
      m[6] = 0x02;                              /* big-endian + the bit */
    ck_assert(nu_send_all(fd, m, sizeof m));
    expect_message_error_in_and_close(fd, 0); /* answered in the header's 1.0 */
    close(fd);
  }
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.limit_protocol, 3);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  raw_ping(fd, 1, 2);
  close(fd);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- the budget */

enum { MANY = 12 };

/* MANY connections each announce a 2 MiB request and send 1.5 MiB of it,
 * with a 4 MiB budget: the octets charged never pass it, every connection
 * past the budget is answered NO_RESOURCES or closed (message timeout),
 * and at the end nothing is charged. */
START_TEST(test_many_announce_2m)
{
  iiop_limits l = short_limits(10000, 1500);
  l.max_in_flight = (size_t)4 << 20;
  iiop_server *s = start_server(&l);
  size_t part = (size_t)3 << 19;               /* 1.5 MiB */
  uint8_t *m = calloc(1, 12 + part);
  ck_assert_ptr_nonnull(m);
  nu_header(m, 2, HOST_LE, 0, GIOP_REQUEST, (uint32_t)(GIOP_WHOLE_DEFAULT - 12));
  int fds[MANY];
  for (int i = 0; i < MANY; i++) {
    fds[i] = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    struct timeval tv = { 0, 200 * 1000 };
    setsockopt(fds[i], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    /* the server may stop reading a refused one: a timed-out send is fine */
    size_t k = 0;
    while (k < 12 + part) {
      ssize_t w = send(fds[i], m + k, 12 + part - k, MSG_NOSIGNAL);
      if (w <= 0)
        break;
      k += (size_t)w;
    }
  }
  int64_t t0 = tu_now_ms();
  iiop_server_stats st = nu_stats(s);
  /* each connection ends refused by the budget (closed rather than
   * answered: its zero-filled request header does not parse) or timed out,
   * one after another as the budget frees up */
  while (tu_now_ms() - t0 < 30000 && st.limit_budget + st.timeout_message < MANY) {
    /* what granted charges held at most (in_flight, a sum that includes a
     * charge being weighed, is shown at most the budget) */
    ck_assert_uint_le(st.in_flight_peak, l.max_in_flight);
    tu_sleep_ms(20);
    st = nu_stats(s);
  }
  for (int i = 0; i < MANY; i++)
    close(fds[i]);
  st = nu_settled(s, 3000);
  /* every count in the message: a failure on a loaded machine says which */
  char what[256];
  snprintf(what, sizeof what,
           "accepted %llu open %llu budget %llu (closed %llu) timeouts header %llu message %llu "
           "in flight %llu peak %llu",
           (unsigned long long)st.accepted, (unsigned long long)st.open,
           (unsigned long long)st.limit_budget, (unsigned long long)st.limit_budget_closed,
           (unsigned long long)st.timeout_header, (unsigned long long)st.timeout_message,
           (unsigned long long)st.in_flight, (unsigned long long)st.in_flight_peak);
  ck_assert_uint_eq(st.in_flight_max, l.max_in_flight);
  ck_assert_msg(st.in_flight_peak <= l.max_in_flight, "%s", what);
  ck_assert_msg(st.in_flight_peak >= part, "%s", what); /* at least one was really buffered */
  ck_assert_msg(st.in_flight == 0 && st.open == 0, "%s", what);
  ck_assert_msg(st.limit_budget + st.timeout_message == MANY, "%s", what);
  ck_assert_msg(st.accepted == MANY, "%s", what);
  ck_assert_msg(st.limit_budget >= 1, "%s", what); /* 12 x 1.5 MiB never fit in 4 MiB */
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  raw_ping(fd, 1, 3);
  close(fd);
  free(m);
  iiop_server_free(s);
}
END_TEST


/* 64 (max_pending) fragmented GIOP 1.2 requests left open on one
 * connection, each first message just under the 64 KiB charge threshold:
 * all but the first are charged to the budget from their first octet
 * (limits.h, max_in_flight), 63 buffers of at least 65,520 octets, at most
 * 64 KiB each (their capacity).  Where the process's malloc is glibc's own
 * (not a sanitizer's), the heap growth they cause is also compared with
 * what is charged: at most the charge, one uncharged message and slack. */
START_TEST(test_pending_fragments_charged)
{
  iiop_limits l = short_limits(10000, 10000);
  iiop_server *s = start_server(&l);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  raw_ping(fd, 1000, 1);
  size_t first = 65520 - 12;                   /* 65520 in all: a multiple of 8 */
  uint8_t *m = calloc(1, 12 + first);
  ck_assert_ptr_nonnull(m);
  struct mallinfo2 before = mallinfo2();
  for (uint32_t id = 1; id <= 64; id++) {
    nu_header(m, 2, HOST_LE, GIOP_FLAG_MORE_FRAGMENTS, GIOP_REQUEST, (uint32_t)first);
    memcpy(m + 12, &id, 4);
    ck_assert(nu_send_all(fd, m, 12 + first));
  }
  raw_ping(fd, 2000, 2);                       /* everything before it was read */
  struct mallinfo2 after = mallinfo2();
  iiop_server_stats st = nu_stats(s);
  ck_assert_msg(st.in_flight >= (uint64_t)63 * 65520 && st.in_flight <= (uint64_t)63 * 65536,
                "charged %llu", (unsigned long long)st.in_flight);
  size_t held = after.uordblks > before.uordblks ? after.uordblks - before.uordblks : 0;
  if (held >= (size_t)60 * 65520)              /* glibc's malloc: the measure sees them */
    ck_assert_msg(held <= st.in_flight + (size_t)(64 << 10) + (256 << 10),
                  "held %zu octets, charged %llu", held, (unsigned long long)st.in_flight);
  close(fd);
  st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.in_flight, 0);
  free(m);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- the client side */

/* A fake server for one connection: reads one Request, then answers with a
 * Reply header announcing SIZE octets, BODY octets of it, then hangs up
 * (HANG 1) or stalls until the client goes (HANG 0). */
typedef struct fake {
  int lfd;
  uint16_t port;
  pthread_t thr;
  uint32_t size;
  size_t body;
  int hang;
} fake;

static void *fake_main(void *arg)
{
  fake *f = arg;
  int fd = accept(f->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  size_t len;
  uint8_t *req = nu_recv_msg(fd, 8u << 20, &len);
  if (req) {
    uint8_t *m = calloc(1, 12 + f->body);
    nu_header(m, 2, HOST_LE, 0, GIOP_REPLY, f->size);
    if (f->body >= 8)
      memcpy(m + 12, req + 12, 4);             /* the request ID */
    nu_send_all(fd, m, 12 + f->body);
    free(m);
    free(req);
    if (!f->hang) {
      uint8_t b[256];
      while (recv(fd, b, sizeof b, 0) > 0)
        ;
    }
  }
  close(fd);
  return NULL;
}

static void fake_start(fake *f)
{
  f->lfd = nu_listen(4, &f->port);
  ck_assert_int_eq(pthread_create(&f->thr, NULL, fake_main, f), 0);
}

/* One ping through a default-option client (call timeout 800 ms) against
 * the fake F: the status and how long it took. */
static int client_ping(fake *f, int64_t *ms)
{
  fake_start(f);
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 800;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Echo", (unsigned)f->port);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "ping", 0, &call, &args), CDR_OK);
  cdr_put_long(args, 1);
  cdr_in *res = NULL;
  int64_t t0 = tu_now_ms();
  int rc = iiop_call_invoke(call, &res);
  *ms = tu_now_ms() - t0;
  iiop_call_end(call);
  iiop_ref_free(r);
  iiop_client_free(c);
  pthread_join(f->thr, NULL);
  close(f->lfd);
  return rc;
}

/* A Reply header past the client's max_message (0xFFFFFFF0): refused at
 * once (not waited for); 2 MiB + 1 announced, 300 KiB sent, then a
 * hang-up: CDR_E_CLOSED at once; the same with a stall: the call's
 * timeout holds. */
START_TEST(test_client_bad_reply_sizes)
{
  int64_t ms;
  fake f = { .size = 0xFFFFFFF0u, .body = 0, .hang = 0 };
  int rc = client_ping(&f, &ms);
  ck_assert_int_eq(rc, CDR_E_LIMIT);
  ck_assert_int_lt(ms, 700);
  fake g = { .size = (uint32_t)GIOP_WHOLE_DEFAULT + 1, .body = 300 << 10, .hang = 1 };
  rc = client_ping(&g, &ms);
  ck_assert_int_eq(rc, CDR_E_CLOSED);
  ck_assert_int_lt(ms, 700);
  fake h = { .size = (uint32_t)GIOP_WHOLE_DEFAULT + 1, .body = 300 << 10, .hang = 0 };
  rc = client_ping(&h, &ms);
  ck_assert_int_eq(rc, CDR_E_TIMEOUT);
  ck_assert_int_ge(ms, 800);
  ck_assert_int_le(ms, 800 + 2000);
}
END_TEST

/* ---------------------------------------------------------------- budget deadlock */

/* One client's fragmented echoString request: its messages, sent from
 * FROM on by a thread of its own (the server may not read them until the
 * budget allows). */
typedef struct frag_client {
  int fd;
  uint8_t *m[128];
  size_t l[128];
  int k, from, to;
  pthread_t th;
} frag_client;

static void *frag_send(void *arg)
{
  frag_client *f = arg;
  for (int i = f->from; i < f->to; i++)
    if (!nu_send_all(f->fd, f->m[i], f->l[i]))
      break;                     /* the server may close a refused one: fine */
  return NULL;
}

/* The in_flight the stats show, once it has stopped changing (5 s at most). */
static uint64_t settled_in_flight(iiop_server *s)
{
  uint64_t last = nu_stats(s).in_flight;
  for (int i = 0; i < 250; i++) {
    tu_sleep_ms(20);
    uint64_t now = nu_stats(s).in_flight;
    if (now == last && i >= 5)
      break;
    last = now;
  }
  return last;
}

/* Partial messages that wait on one another for the budget (the trial's
 * 8 x 60 MiB against 256 MiB, scaled to 4.5 MiB): A has 1.5 MiB of a 3 MiB
 * request buffered (its buffer, 2 MiB, charged), B and C 700 KiB of
 * 1.5 MiB ones (1 MiB each): 4 MiB charged.  Then all three send the rest:
 * each buffer's next doubling (A +2 MiB, B and C +1 MiB) passes the
 * 0.5 MiB left, all three wait, and nothing else holds a charge that could
 * be given back.  The waiter holding the most, A, is answered NO_RESOURCES
 * at once (not after message_timeout_ms, 60 s); B and C then fit and are
 * served, and so is a small request from a fourth client sent meanwhile. */
START_TEST(test_budget_deadlock_refuses_largest)
{
  iiop_limits l;
  iiop_limits_default(&l);                  /* message_timeout_ms 60 s */
  l.max_in_flight = (size_t)9 << 19;        /* 4.5 MiB */
  iiop_server *s = start_server(&l);
  const size_t len[3] = { (size_t)3 << 20, (size_t)3 << 19, (size_t)3 << 19 };
  const size_t prefix[3] = { (size_t)3 << 19, (size_t)700 << 10, (size_t)700 << 10 };
  const uint64_t charged[3] = { (uint64_t)2 << 20, (uint64_t)3 << 20, (uint64_t)4 << 20 };
  char *str[3];
  uint8_t *req[3];
  frag_client fc[3];
  int64_t t0 = 0;
  for (int c = 0; c < 3; c++) {
    str[c] = malloc(len[c] + 1);
    ck_assert_ptr_nonnull(str[c]);
    memset(str[c], 'a' + c, len[c]);
    str[c][len[c]] = 0;
    size_t n;
    req[c] = build_request(10 + (uint32_t)c, "echoString", nu_arg_string, str[c], len[c] + 256,
                           &n);
    frag_client *f = &fc[c];
    f->k = cut(req[c], n, 10 + (uint32_t)c, 65532, 65536, f->m, f->l, 128);
    f->fd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
    /* the first messages up to PREFIX octets, then what they charged */
    size_t sent = 0;
    f->from = 0;
    while (sent < prefix[c]) {
      ck_assert(nu_send_all(f->fd, f->m[f->from], f->l[f->from]));
      sent += f->l[f->from++];
    }
    f->to = f->k;
    ck_assert_uint_eq(settled_in_flight(s), charged[c]);
  }
  t0 = tu_now_ms();
  for (int c = 0; c < 3; c++)
    ck_assert_int_eq(pthread_create(&fc[c].th, NULL, frag_send, &fc[c]), 0);
  /* a small request (200 KiB, whole) from another client meanwhile */
  char *small = malloc(200 << 10);
  ck_assert_ptr_nonnull(small);
  memset(small, 'd', (200 << 10) - 1);
  small[(200 << 10) - 1] = 0;
  size_t sn;
  uint8_t *sreq = build_request(20, "echoString", nu_arg_string, small, (200 << 10) + 256, &sn);
  int dfd = nu_connect(NULL, iiop_server_port(s), 10, NU_NODELAY);
  ck_assert(nu_send_all(dfd, sreq, sn));
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  uint8_t *msg = recv_reply(dfd, &m, a);
  ck_assert_uint_eq(m.u.reply.request_id, 20);
  ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
  uint32_t bn;
  const char *back = cdr_get_string(&m.body, &bn);
  ck_assert_ptr_nonnull(back);
  ck_assert_str_eq(back, small);
  cdr_in_close(&m.body);
  free(msg);
  for (int c = 0; c < 3; c++) {
    msg = recv_reply(fc[c].fd, &m, a);
    ck_assert_uint_eq(m.u.reply.request_id, 10 + (uint32_t)c);
    if (c == 0) {
      ck_assert_uint_eq(m.u.reply.reply_status, GIOP_SYSTEM_EXCEPTION);
      back = cdr_get_string(&m.body, &bn);
      ck_assert_ptr_nonnull(back);
      ck_assert_str_eq(back, "IDL:omg.org/CORBA/NO_RESOURCES:1.0");
      ck_assert_uint_eq(cdr_get_ulong(&m.body), 0);                  /* minor */
      ck_assert_uint_eq(cdr_get_ulong(&m.body), GIOP_COMPLETED_NO);
    } else {
      ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
      back = cdr_get_string(&m.body, &bn);
      ck_assert_ptr_nonnull(back);
      ck_assert_uint_eq(bn, len[c]);
      ck_assert(memcmp(back, str[c], len[c]) == 0);
    }
    ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
    cdr_in_close(&m.body);
    free(msg);
  }
  cdr_arena_put(a);
  int64_t ms = tu_now_ms() - t0;
  /* well under message_timeout_ms (60 s), however loaded the machine */
  ck_assert_msg(ms < 30000, "answered after %lld ms", (long long)ms);
  for (int c = 0; c < 3; c++) {
    pthread_join(fc[c].th, NULL);
    raw_ping(fc[c].fd, 30 + (uint32_t)c, 5 + c);   /* every connection goes on */
    close(fc[c].fd);
    for (int i = 0; i < fc[c].k; i++)
      free(fc[c].m[i]);
    free(req[c]);
    free(str[c]);
  }
  close(dfd);
  free(sreq);
  free(small);
  iiop_server_stats st = nu_settled(s, 3000);
  ck_assert_uint_eq(st.limit_budget, 1);
  ck_assert_uint_eq(st.limit_budget_closed, 0);
  ck_assert_uint_eq(st.timeout_message, 0);
  ck_assert_uint_eq(st.in_flight, 0);
  ck_assert_uint_le(st.in_flight_peak, l.max_in_flight);
  iiop_server_free(s);
}
END_TEST

static Suite *wholehostile_suite(void)
{
  Suite *su = suite_create("wholehostile");
  TCase *tc = tcase_create("whole");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_c11a_size_over_max_message);
  tcase_add_test(tc, test_size_over_max_in_flight);
  tcase_add_test(tc, test_whole_plus_one_short_then_close);
  tcase_add_test(tc, test_whole_plus_one_short_then_stall);
  tcase_add_test(tc, test_whole_2m_fast_and_slow);
  tcase_add_test(tc, test_interleaved_fragments);
  tcase_add_test(tc, test_fragment_after_complete);
  tcase_add_test(tc, test_giop10_fragment_bit);
  tcase_add_test(tc, test_many_announce_2m);
  tcase_add_test(tc, test_client_bad_reply_sizes);
  tcase_add_test(tc, test_pending_fragments_charged);
  tcase_add_test(tc, test_budget_deadlock_refuses_largest);
  suite_add_tcase(su, tc);
  return su;
}


const tu_program tu_prog = { .suite = wholehostile_suite };
