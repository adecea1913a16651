/* check_pingpath.c - the per-call short cuts of a small request on the
 * server (internal: linked through libcorbaiiop-internal.la), each shown to
 * leave what the long way leaves:
 * - the request memo compares message_size too: octets that repeat the
 *   last request but for a message_size that disagrees with the buffer's
 *   length are parsed, and refused, as the general path refuses them;
 * - cdr_arena_reset() of an arena nothing was used from since the last
 *   reset does nothing, and the arena still hands out its first block's
 *   octets, keeps its maximum and allocates no block;
 * - cdr_out__reset_inline() empties a stream as cdr_out_reset() does, an
 *   open encapsulation's byte order undone;
 * - iiop__conn_recv_next() gives the previous message back before it reads
 *   (the spare it was is the buffer of the next message).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "adapter.h"
#include "connection.h"
#include "dispatch.h"
#include "transport.h"
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- the memo */

static int calls;

static int op_ping(void *sv, iiop_request *req, cdr_in *args, cdr_out *res)
{
  (void)sv;
  (void)req;
  calls++;
  int32_t x = cdr_get_long(args);
  cdr_put_long(res, x + 1);
  return cdr_in_status(args);
}

static const iiop_operation ops[] = { { "ping", op_ping } };
static const iiop_interface iface = { "IDL:Test/P:1.0", ops, 1, NULL };

/* A GIOP 1.2 Request for K1/ping with the long X, into O (big-endian). */
static void build_request(cdr_out *o, uint32_t id, int32_t x)
{
  nu_req r = nu_req_default(id, "K1", "ping");
  r.order = CDR_BIG_ENDIAN;
  cdr_opts op = nu_req_opts(&r);
  ck_assert_int_eq(cdr_out_init(o, &op), CDR_OK);
  nu_request_head(o, &r);
  cdr_put_long(o, x);
  ck_assert_int_eq(giop_end(o), CDR_OK);
}

/* Dispatch the LEN octets at MSG: the dispatcher's answer; *ID and *V the
 * reply's request ID and long when it answered. */
static int dispatch(iiop__adapter *ad, iiop__session *s, const uint8_t *msg, size_t len,
                    uint32_t *id, int32_t *v)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  giop_message m;
  iiop__reply r;
  iiop__reader_enter(ad, &s->reader);
  int act = iiop__dispatch(s, msg, len, &a, &m, &r);
  iiop__reader_exit(&s->reader);
  if (act == IIOP__D_CONTINUE) {
    giop_message rm;
    cdr_arena ra;
    cdr_arena_init(&ra, NULL);
    ck_assert_int_eq(giop_parse(&rm, r.msg, r.len, NULL, &ra), CDR_OK);
    ck_assert_int_eq(rm.hdr.type, GIOP_REPLY);
    ck_assert_uint_eq(rm.u.reply.reply_status, GIOP_NO_EXCEPTION);
    *id = rm.u.reply.request_id;
    *v = cdr_get_long(&rm.body);
    ck_assert_int_eq(cdr_in_status(&rm.body), CDR_OK);
    cdr_in_close(&rm.body);
    cdr_arena_free(&ra);
  }
  cdr_in_close(&m.body);
  cdr_arena_free(&a);
  return act;
}

START_TEST(test_memo_message_size)
{
  iiop__adapter ad;
  iiop__session s;
  iiop__adapter_init(&ad, cdr_mem_global());
  ck_assert_int_eq(iiop__adapter_activate(&ad, "K1", 2, &iface, NULL), CDR_OK);
  iiop__session_init(&s, &ad, 1 << 20, NULL);
  iiop__adapter_reader_add(&ad, &s.reader);
  calls = 0;
  cdr_out o;
  build_request(&o, 1, 10);
  size_t len = cdr_out_size(&o);
  uint8_t buf[128];
  ck_assert_uint_le(len, sizeof buf);
  memcpy(buf, cdr_out_data(&o), len);
  cdr_out_close(&o);
  uint32_t id = 0;
  int32_t v = 0;
  ck_assert_int_eq(dispatch(&ad, &s, buf, len, &id, &v), IIOP__D_CONTINUE); /* scanned, memo */
  ck_assert_uint_eq(id, 1);
  ck_assert_int_eq(v, 11);
  tu_store(buf + 12, 2, 4, 0);                                             /* another ID */
  ck_assert_int_eq(dispatch(&ad, &s, buf, len, &id, &v), IIOP__D_CONTINUE); /* the memo */
  ck_assert_uint_eq(id, 2);
  ck_assert_int_eq(v, 11);
  ck_assert_int_eq(calls, 2);
  /* message_size 4 more than the buffer holds: what giop_parse() says of
   * it (MessageError), not the memo's answer. */
  tu_store(buf + 8, len - 12 + 4, 4, 0);
  tu_store(buf + 12, 3, 4, 0);
  ck_assert_int_eq(dispatch(&ad, &s, buf, len, &id, &v), IIOP__D_ERROR);
  ck_assert_int_eq(calls, 2);
  /* Right again: answered (by a new scan, then the memo). */
  tu_store(buf + 8, len - 12, 4, 0);
  for (uint32_t k = 4; k < 6; k++) {
    tu_store(buf + 12, k, 4, 0);
    ck_assert_int_eq(dispatch(&ad, &s, buf, len, &id, &v), IIOP__D_CONTINUE);
    ck_assert_uint_eq(id, k);
  }
  ck_assert_int_eq(calls, 4);
  iiop__session_close(&s);
  iiop__adapter_reader_remove(&ad, &s.reader);
  iiop__adapter_destroy(&ad);
}
END_TEST

/* ---------------------------------------------------------------- arena */

START_TEST(test_arena_reset_unused)
{
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  cdr_arena a;
  cdr_arena_init(&a, &mc.alloc);
  cdr_arena_reset(&a);                 /* no block yet: nothing */
  ck_assert_uint_eq(mc.mallocs, 0);
  ck_assert_uint_eq(cdr_arena_used(&a), 0);
  uint8_t *p1 = cdr_arena_alloc(&a, 100, 8);
  ck_assert_ptr_nonnull(p1);
  ck_assert_uint_eq(mc.mallocs, 1);
  cdr_arena_reset(&a);                 /* used: back to the block's start */
  ck_assert_uint_eq(cdr_arena_used(&a), 0);
  cdr_arena_reset(&a);                 /* unused: nothing to do */
  cdr_arena_reset(&a);
  ck_assert_ptr_eq(cdr_arena_alloc(&a, 100, 8), p1);
  ck_assert_uint_eq(cdr_arena_used(&a), 100);
  cdr_arena_reset(&a);
  /* A zero-octet allocation uses nothing: the reset after it leaves the
   * block as it was. */
  ck_assert_ptr_nonnull(cdr_arena_alloc(&a, 0, 1));
  ck_assert_uint_eq(cdr_arena_used(&a), 0);
  cdr_arena_reset(&a);
  ck_assert_ptr_eq(cdr_arena_alloc(&a, 8, 8), p1);
  /* A maximum set after the reset holds across a reset with nothing used. */
  cdr_arena_reset(&a);
  cdr_arena_set_max(&a, 64);
  cdr_arena_reset(&a);
  ck_assert_ptr_eq(cdr_arena_alloc(&a, 64, 1), p1);
  ck_assert_ptr_null(cdr_arena_alloc(&a, 1, 1));
  cdr_arena_set_max(&a, SIZE_MAX);
  /* Two blocks: the reset keeps the newest (largest), frees the other,
   * and a reset after that with nothing used frees nothing more. */
  cdr_arena_reset(&a);
  uint8_t *big = cdr_arena_alloc(&a, 1 << 20, 8);
  ck_assert_ptr_nonnull(big);
  ck_assert_uint_eq(mc.mallocs, 2);
  ck_assert_int_eq(mc.live, 2);
  cdr_arena_reset(&a);
  ck_assert_int_eq(mc.live, 1);
  ck_assert_uint_eq(mc.frees, 1);
  cdr_arena_reset(&a);
  ck_assert_int_eq(mc.live, 1);
  ck_assert_ptr_eq(cdr_arena_alloc(&a, 8, 8), big);
  ck_assert_uint_eq(mc.mallocs, 2);
  cdr_arena_free(&a);
  ck_assert_int_eq(mc.live, 0);
}
END_TEST

/* ---------------------------------------------------------------- reply stream */

START_TEST(test_out_reset_inline)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_BIG_ENDIAN;
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  cdr_put_long(&o, 1);
  cdr_out_fail(&o, CDR_E_LIMIT, "test");
  cdr_out__reset_inline(&o);           /* the inline path */
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  ck_assert_uint_eq(cdr_out_size(&o), 0);
  cdr_put_octet(&o, 7);
  cdr_put_long(&o, 0x01020304);        /* aligned from 0 again: 3 octets of padding */
  static const uint8_t want1[] = { 7, 0, 0, 0, 1, 2, 3, 4 };
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want1, sizeof want1);
  /* An encapsulation left open in the other byte order: the call, which
   * restores the outer order. */
  cdr_out__reset_inline(&o);
  cdr_out_begin_encap_order(&o, CDR_LITTLE_ENDIAN);
  cdr_put_long(&o, 5);
  cdr_out__reset_inline(&o);
  ck_assert_int_eq(cdr_out_byte_order(&o), CDR_BIG_ENDIAN);
  cdr_put_long(&o, 0x01020304);
  static const uint8_t want2[] = { 1, 2, 3, 4 };
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want2, sizeof want2);
  /* A closed stream stays closed. */
  cdr_out_close(&o);
  cdr_out__reset_inline(&o);
  cdr_put_long(&o, 1);
  ck_assert_int_eq(cdr_out_status(&o), CDR_E_STATE);
}
END_TEST

/* ---------------------------------------------------------------- connection */

static void put_msg(int fd, uint32_t id)
{
  uint8_t b[32];
  memset(b, 0, sizeof b);
  memcpy(b, "GIOP\1\2\0\0", 8);
  tu_store(b + 8, sizeof b - 12, 4, 0);
  tu_store(b + 12, id, 4, 0);
  ck_assert_int_eq(write(fd, b, sizeof b), (ssize_t)sizeof b);
}

static uint32_t msg_id(const uint8_t *m)
{
  return (uint32_t)m[12] << 24 | (uint32_t)m[13] << 16 | (uint32_t)m[14] << 8 | m[15];
}

START_TEST(test_recv_next)
{
  int sv[2];
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  iiop_transport *t;
  ck_assert_int_eq(iiop__tcp_wrap(sv[0], NULL, &t), CDR_OK);
  iiop_conn *c;
  ck_assert_int_eq(iiop__conn_new(t, NULL, &c), CDR_OK);
  uint8_t *m1, *m2, *m3;
  size_t len;
  put_msg(sv[1], 1);
  ck_assert_int_eq(iiop__conn_recv_next(c, NULL, -1, &m1, &len), CDR_OK);
  ck_assert_uint_eq(len, 32);
  ck_assert_uint_eq(msg_id(m1), 1);
  put_msg(sv[1], 2);
  ck_assert_int_eq(iiop__conn_recv_next(c, m1, -1, &m2, &len), CDR_OK);
  ck_assert_uint_eq(msg_id(m2), 2);
  ck_assert_ptr_eq(m2, m1);            /* M1 went back first: its buffer read M2 */
  /* Without a message given back the next read goes elsewhere. */
  put_msg(sv[1], 3);
  ck_assert_int_eq(iiop__conn_recv(c, -1, &m3, &len), CDR_OK);
  ck_assert_uint_eq(msg_id(m3), 3);
  ck_assert_ptr_ne(m3, m2);
  ck_assert_uint_eq(msg_id(m2), 2);    /* still the caller's */
  iiop__conn_release(c, m2);
  /* The peer closes: the message is given back and the end reported. */
  close(sv[1]);
  uint8_t *m4 = NULL;
  ck_assert_int_eq(iiop__conn_recv_next(c, m3, -1, &m4, &len), CDR_E_CLOSED);
  iiop__conn_free(c);
}
END_TEST

static Suite *pingpath_suite(void)
{
  Suite *s = suite_create("pingpath");
  TCase *tc = tcase_create("short cuts");
  tcase_add_test(tc, test_memo_message_size);
  tcase_add_test(tc, test_arena_reset_unused);
  tcase_add_test(tc, test_out_reset_inline);
  tcase_add_test(tc, test_recv_next);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = pingpath_suite };
