/* check_batch.c - pipelined requests on one connection (the server holds
 * back the replies of requests that one read brought and writes them
 * together) and many client threads on one reference (the leader hands
 * each reply it reads to its caller): every reply comes, in order, with
 * its own request's result. */
#include <check.h>
#include <pthread.h>
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
#include "netutil.h"
#include "testutil.h"

static int gate_open;                  /* atomic: gate() returns once set */
static int gate_entered;               /* atomic: gate() calls that began */
static int gate_left;                  /* atomic: gate() calls that returned */

/* Waits (up to 3 s) until the test opens the gate. */
static int op_gate(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  (void)r;
  (void)a;
  (void)o;
  __atomic_add_fetch(&gate_entered, 1, __ATOMIC_SEQ_CST);
  for (int k = 0; k < 3000 && !__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST); k++) {
    struct timespec ts = { 0, 1000000 };
    nanosleep(&ts, NULL);
  }
  __atomic_add_fetch(&gate_left, 1, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

static const iiop_operation ops[] = { { "ping", nu_op_ping }, { "echoStringView", nu_op_echo_view },
                                      { "gate", op_gate } };
static const iiop_interface iface = { "IDL:Bench/Echo:1.0", ops, 3, NULL };

static iiop_server *start(size_t frag)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.batch_replies = 1;
  if (frag)
    o.fragment_size = frag;
  return nu_serve(&o, "Echo", &iface, NULL);
}

/* Append a GIOP 1.2 Request (ID, OP; a long X, or the string S when not
 * NULL) to BUF at *AT. */
static void add_request(uint8_t *buf, size_t cap, size_t *at, uint32_t id, int twoway,
                        const char *op, int32_t x, const char *s)
{
  /* TWOWAY: 1 a two-way request (response flags 3), 0 a oneway (0),
   * 2 SYNC_WITH_SERVER (1). */
  nu_req r = nu_req_default(id, "Echo", op);
  r.flags = twoway == 2 ? GIOP_RESPONSE_SYNC_WITH_SERVER : twoway ? 3 : 0;
  r.args = s ? nu_arg_string : nu_arg_long;
  r.ud = s ? (const void *)s : &x;
  *at += nu_request(buf + *at, cap - *at, &r);
}

/* Read the Reply to ID (NO_EXCEPTION); its long result, or with S its
 * string, compared.  A fragmented reply is reassembled. */
static void expect_reply(int fd, uint32_t id, int32_t x, const char *s, int *fragments)
{
  size_t len;
  uint8_t *m = nu_recv_msg(fd, 1u << 22, &len);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(m[7], GIOP_REPLY);
  while (m[6] & 2) {                    /* more fragments follow */
    size_t fl;
    uint8_t *f = nu_recv_msg(fd, 1u << 22, &fl);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f[7], GIOP_FRAGMENT);
    ck_assert_uint_ge(fl, 16);
    m = realloc(m, len + fl - 16);
    ck_assert_ptr_nonnull(m);
    memcpy(m + len, f + 16, fl - 16);
    len += fl - 16;
    m[6] = f[6];
    uint32_t size = (uint32_t)(len - 12);
    if (m[6] & 1)
      memcpy(m + 8, &size, 4);
    else {
      uint8_t be[4] = { (uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8),
                        (uint8_t)size };
      memcpy(m + 8, be, 4);
    }
    free(f);
    (*fragments)++;
  }
  cdr_opts o;
  cdr_opts_default(&o);
  cdr_arena *a = cdr_arena_get();
  giop_message gm;
  ck_assert_int_eq(giop_parse(&gm, m, len, &o, a), CDR_OK);
  ck_assert_uint_eq(gm.hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(gm.u.reply.request_id, id);
  ck_assert_uint_eq(gm.u.reply.reply_status, GIOP_NO_EXCEPTION);
  if (s) {
    uint32_t n;
    const char *got = cdr_get_string(&gm.body, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, strlen(s));
    ck_assert(memcmp(got, s, n) == 0);
  } else {
    ck_assert_int_eq(cdr_get_long(&gm.body), x);
  }
  cdr_in_close(&gm.body);
  cdr_arena_put(a);
  free(m);
}

#define NREQ 40

/* 40 requests in one write: pings, oneways (no reply), two strings whose
 * replies do not fit what the server holds back (12,000 octets) or must be
 * fragmented (FRAG); every two-way one is answered, in order. */
static void pipelined(size_t frag)
{
  iiop_server *s = start(frag);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, 0);
  size_t cap = 1 << 16, at = 0;
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  char *big = malloc(12001);
  ck_assert_ptr_nonnull(big);
  for (int k = 0; k < 12000; k++)
    big[k] = (char)('a' + k % 26);
  big[12000] = 0;
  char mid[3000];
  memset(mid, 'm', sizeof mid - 1);
  mid[sizeof mid - 1] = 0;
  for (uint32_t id = 1; id <= NREQ; id++) {
    if (id == 10)
      add_request(buf, cap, &at, id, 1, "echoStringView", 0, big);
    else if (id == 20)
      add_request(buf, cap, &at, id, 1, "echoStringView", 0, mid);
    else
      add_request(buf, cap, &at, id, id % 7 != 0, "ping", (int32_t)(id * 1000 + 7), NULL);
  }
  ck_assert_int_eq(send(fd, buf, at, MSG_NOSIGNAL), (ssize_t)at);
  int fragments = 0;
  for (uint32_t id = 1; id <= NREQ; id++) {
    if (id == 10)
      expect_reply(fd, id, 0, big, &fragments);
    else if (id == 20)
      expect_reply(fd, id, 0, mid, &fragments);
    else if (id % 7 != 0)
      expect_reply(fd, id, (int32_t)(id * 1000 + 7), NULL, &fragments);
  }
  /* FRAG 1024: the 12,000-octet reply in 11 Fragments after its first
   * message, the 3,000-octet one in 2; by default (whole up to
   * GIOP_WHOLE_DEFAULT) none. */
  ck_assert_int_eq(fragments, frag == 1024 ? 11 + 2 : 0);
  /* Still served after the batch. */
  at = 0;
  add_request(buf, cap, &at, 99, 1, "ping", 99, NULL);
  ck_assert_int_eq(send(fd, buf, at, MSG_NOSIGNAL), (ssize_t)at);
  expect_reply(fd, 99, 99, NULL, &fragments);
  close(fd);
  free(big);
  free(buf);
  iiop_server_free(s);
}

START_TEST(test_pipelined_replies_in_order) { pipelined(0); }
END_TEST

START_TEST(test_pipelined_replies_fragmented) { pipelined(1024); }
END_TEST

/* Pipelined pings, then a message that is not GIOP: the replies held back
 * go out before MessageError, then the server closes. */
START_TEST(test_held_replies_before_message_error)
{
  iiop_server *s = start(0);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, 0);
  uint8_t buf[4096];
  size_t at = 0;
  for (uint32_t id = 1; id <= 10; id++)
    add_request(buf, sizeof buf, &at, id, 1, "ping", (int32_t)id, NULL);
  memcpy(buf + at, "GIOX\1\2\1\0\0\0\0\0", 12);
  at += 12;
  ck_assert_int_eq(send(fd, buf, at, MSG_NOSIGNAL), (ssize_t)at);
  int fragments = 0;
  for (uint32_t id = 1; id <= 10; id++)
    expect_reply(fd, id, (int32_t)id, NULL, &fragments);
  size_t len;
  uint8_t *m = nu_recv_msg(fd, 1u << 22, &len);
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(m[7], GIOP_MESSAGE_ERROR);
  free(m);
  close(fd);
  iiop_server_free(s);
}
END_TEST

/* A ping, a SYNC_WITH_SERVER request whose servant waits, a ping, in one
 * write: the ping's reply and the acknowledgement come while the servant
 * still waits (neither is held back behind it), the second ping's after. */
START_TEST(test_sync_with_server_ack_not_held)
{
  __atomic_store_n(&gate_open, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gate_entered, 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&gate_left, 0, __ATOMIC_SEQ_CST);
  iiop_server *s = start(0);
  int fd = nu_connect(NULL, iiop_server_port(s), 10, 0);
  uint8_t buf[1024];
  size_t at = 0;
  add_request(buf, sizeof buf, &at, 1, 1, "ping", 11, NULL);
  add_request(buf, sizeof buf, &at, 2, 2, "gate", 0, NULL);
  add_request(buf, sizeof buf, &at, 3, 1, "ping", 33, NULL);
  ck_assert_int_eq(send(fd, buf, at, MSG_NOSIGNAL), (ssize_t)at);
  int fragments = 0;
  expect_reply(fd, 1, 11, NULL, &fragments);
  size_t len;
  uint8_t *m = nu_recv_msg(fd, 1u << 22, &len);         /* the acknowledgement: an empty reply */
  ck_assert_ptr_nonnull(m);
  ck_assert_uint_eq(m[7], GIOP_REPLY);
  ck_assert_int_eq(__atomic_load_n(&gate_left, __ATOMIC_SEQ_CST), 0);
  free(m);
  __atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
  expect_reply(fd, 3, 33, NULL, &fragments);
  ck_assert_int_eq(__atomic_load_n(&gate_entered, __ATOMIC_SEQ_CST), 1);
  ck_assert_int_eq(__atomic_load_n(&gate_left, __ATOMIC_SEQ_CST), 1);
  close(fd);
  iiop_server_free(s);
}
END_TEST

/* 16 threads, 500 calls each, through one reference (one connection): each
 * call gets its own result. */
typedef struct caller {
  iiop_ref *ref;
  int32_t base;
  int bad;
} caller;

static void *caller_main(void *arg)
{
  caller *c = arg;
  for (int k = 0; k < 500; k++) {
    int32_t x = c->base + k, got = -1;
    iiop_call *call = NULL;
    cdr_out *args = NULL;
    if (iiop_call_begin(c->ref, "ping", 0, &call, &args) != CDR_OK) {
      c->bad++;
      continue;
    }
    cdr_put_long(args, x);
    cdr_in *res = NULL;
    if (iiop_call_invoke(call, &res) == CDR_OK)
      got = cdr_get_long(res);
    if (got != x)
      c->bad++;
    iiop_call_end(call);
  }
  return NULL;
}

START_TEST(test_threads_one_reference)
{
  iiop_server *s = start(0);
  char url[64];
  snprintf(url, sizeof url, "corbaloc:iiop:1.2@127.0.0.1:%u/Echo", iiop_server_port(s));
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.max_connections = 1;               /* 16 callers multiplexed on one connection */
  iiop_client *cl = iiop_client_new(&co);
  ck_assert_ptr_nonnull(cl);
  iiop_ref *ref = NULL;
  ck_assert_int_eq(iiop_client_resolve(cl, url, &ref), CDR_OK);
  pthread_t t[16];
  caller c[16];
  for (int k = 0; k < 16; k++) {
    c[k] = (caller){ ref, k * 100000, 0 };
    ck_assert_int_eq(pthread_create(&t[k], NULL, caller_main, &c[k]), 0);
  }
  int bad = 0;
  for (int k = 0; k < 16; k++) {
    pthread_join(t[k], NULL);
    bad += c[k].bad;
  }
  ck_assert_int_eq(bad, 0);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(cl, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, 1);
  iiop_ref_free(ref);
  iiop_client_free(cl);
  iiop_server_free(s);
}
END_TEST

static Suite *batch_suite(void)
{
  Suite *s = suite_create("batch");
  TCase *tc = tcase_create("batch");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_pipelined_replies_in_order);
  tcase_add_test(tc, test_pipelined_replies_fragmented);
  tcase_add_test(tc, test_held_replies_before_message_error);
  tcase_add_test(tc, test_sync_with_server_ack_not_held);
  tcase_add_test(tc, test_threads_one_reference);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = batch_suite };
