/* check_small.c - the server's short paths for small requests
 * (libiiop/dispatch.c, msg.c, frag.c; internal: linked through
 * libcorbaiiop-internal.la): the per-connection object and operation
 * cache, the memo of the last request's scan, and the reassembler's
 * one-read-one-message path.  Each is shown to give what the general path
 * gives where a cached answer would be wrong: a request of the same length
 * naming another operation or key, an object deactivated and activated
 * again between two calls, a read holding more or less than one message.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/frag.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "adapter.h"
#include "dispatch.h"
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- servants */

static int last_op;                  /* which operation ran last: 1 ping, 2 pong, 3 ping2 */

static int op_ping(void *sv, iiop_request *req, cdr_in *args, cdr_out *res)
{
  (void)sv;
  (void)req;
  last_op = 1;
  int32_t x = cdr_get_long(args);
  cdr_put_long(res, x + 1);
  return cdr_in_status(args);
}

static int op_pong(void *sv, iiop_request *req, cdr_in *args, cdr_out *res)
{
  (void)sv;
  (void)req;
  last_op = 2;
  int32_t x = cdr_get_long(args);
  cdr_put_long(res, x - 1);
  return cdr_in_status(args);
}

static int op_ping2(void *sv, iiop_request *req, cdr_in *args, cdr_out *res)
{
  (void)sv;
  (void)req;
  last_op = 3;
  int32_t x = cdr_get_long(args);
  cdr_put_long(res, x * 2);
  return cdr_in_status(args);
}

static const iiop_operation ops_a[] = { { "ping", op_ping }, { "pong", op_pong } };
static const iiop_interface iface_a = { "IDL:Test/A:1.0", ops_a, 2, NULL };
static const iiop_operation ops_b[] = { { "ping", op_ping2 } };
static const iiop_interface iface_b = { "IDL:Test/B:1.0", ops_b, 1, NULL };

/* ---------------------------------------------------------------- fixture */

typedef struct fixture {
  iiop__adapter ad;
  iiop__session sess;
  cdr_arena arena;
  cdr_out req;
  giop_message m;
  int m_live;
} fixture;

static void fx_init(fixture *f)
{
  memset(f, 0, sizeof *f);
  iiop__adapter_init(&f->ad, cdr_mem_global());
  ck_assert_int_eq(iiop__adapter_activate(&f->ad, "K1", 2, &iface_a, NULL), CDR_OK);
  ck_assert_int_eq(iiop__adapter_activate(&f->ad, "K2", 2, &iface_b, NULL), CDR_OK);
  iiop__session_init(&f->sess, &f->ad, 1 << 20, NULL);
  iiop__adapter_reader_add(&f->ad, &f->sess.reader);
  cdr_arena_init(&f->arena, NULL);
}

static void fx_free(fixture *f)
{
  if (f->m_live)
    cdr_in_close(&f->m.body);
  cdr_out_close(&f->req);
  cdr_arena_free(&f->arena);
  iiop__session_close(&f->sess);
  iiop__adapter_reader_remove(&f->ad, &f->sess.reader);
  iiop__adapter_destroy(&f->ad);
}

/* Dispatch a GIOP 1.2 request (byte order ORDER) for KEY/OP with the long
 * X as its body; returns the long in the reply, *STATUS its reply status. */
static int32_t call(fixture *f, int order, uint32_t id, const char *key, const char *op,
                    int32_t x, uint32_t *status)
{
  cdr_out_close(&f->req);
  nu_req q = nu_req_default(id, key, op);
  q.order = order;
  cdr_opts o = nu_req_opts(&q);
  ck_assert_int_eq(cdr_out_init(&f->req, &o), CDR_OK);
  nu_request_head(&f->req, &q);
  cdr_put_long(&f->req, x);
  ck_assert_int_eq(giop_end(&f->req), CDR_OK);
  if (f->m_live)
    cdr_in_close(&f->m.body);
  cdr_arena_reset(&f->arena);
  iiop__reply r;
  iiop__reader_enter(&f->ad, &f->sess.reader);
  int act = iiop__dispatch(&f->sess, cdr_out_data(&f->req), cdr_out_size(&f->req), &f->arena,
                           &f->m, &r);
  iiop__reader_exit(&f->sess.reader);
  f->m_live = 1;
  ck_assert_int_eq(act, IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.request_id, id);
  giop_message rm;
  cdr_arena ra;
  cdr_arena_init(&ra, NULL);
  ck_assert_int_eq(giop_parse(&rm, r.msg, r.len, NULL, &ra), CDR_OK);
  ck_assert_int_eq(rm.hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(rm.u.reply.request_id, id);
  *status = rm.u.reply.reply_status;
  int32_t v = -1;
  if (*status == GIOP_NO_EXCEPTION)
    v = cdr_get_long(&rm.body);
  else
    ck_assert_int_eq(*status, GIOP_SYSTEM_EXCEPTION);
  ck_assert_int_eq(cdr_in_status(&rm.body), CDR_OK);
  cdr_in_close(&rm.body);
  cdr_arena_free(&ra);
  return v;
}

/* ---------------------------------------------------------------- tests */

/* Requests of one length in a row: the memo must not answer for another
 * operation, key or body; either byte order. */
START_TEST(test_memo_same_length)
{
  fixture f;
  fx_init(&f);
  uint32_t st;
  for (int order = 0; order <= 1; order++) {
    ck_assert_int_eq(call(&f, order, 1, "K1", "ping", 10, &st), 11);
    ck_assert_int_eq(last_op, 1);
    ck_assert_int_eq(call(&f, order, 2, "K1", "ping", 20, &st), 21);  /* memo: body differs */
    ck_assert_int_eq(call(&f, order, 3, "K1", "pong", 20, &st), 19);  /* same length, other op */
    ck_assert_int_eq(last_op, 2);
    ck_assert_int_eq(call(&f, order, 4, "K2", "ping", 20, &st), 40);  /* other key */
    ck_assert_int_eq(last_op, 3);
    ck_assert_int_eq(call(&f, order, 5, "K3", "ping", 20, &st), -1);  /* no such key */
    ck_assert_uint_eq(st, GIOP_SYSTEM_EXCEPTION);
    ck_assert_int_eq(call(&f, order, 6, "K1", "pinG", 20, &st), -1);  /* no such op */
    ck_assert_uint_eq(st, GIOP_SYSTEM_EXCEPTION);
    ck_assert_int_eq(call(&f, order, 7, "K1", "ping", 5, &st), 6);
    ck_assert_int_eq(last_op, 1);
  }
  fx_free(&f);
}
END_TEST

/* The object cache across deactivation and activation under the same key. */
START_TEST(test_cache_epoch)
{
  fixture f;
  fx_init(&f);
  uint32_t st;
  ck_assert_int_eq(call(&f, 0, 1, "K1", "ping", 1, &st), 2);
  ck_assert_int_eq(call(&f, 0, 2, "K1", "ping", 1, &st), 2);
  ck_assert_int_eq(iiop__adapter_deactivate(&f.ad, "K1", 2), CDR_OK);
  ck_assert_int_eq(call(&f, 0, 3, "K1", "ping", 1, &st), -1);
  ck_assert_uint_eq(st, GIOP_SYSTEM_EXCEPTION);
  ck_assert_int_eq(iiop__adapter_activate(&f.ad, "K1", 2, &iface_b, NULL), CDR_OK);
  ck_assert_int_eq(call(&f, 0, 4, "K1", "ping", 7, &st), 14);  /* the new object's op */
  ck_assert_int_eq(last_op, 3);
  ck_assert_int_eq(call(&f, 0, 5, "K1", "pong", 7, &st), -1);  /* B has no pong */
  ck_assert_uint_eq(st, GIOP_SYSTEM_EXCEPTION);
  fx_free(&f);
}
END_TEST

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A 1.2 Request of N octets in all (N >= 32, a multiple of 4). */
static void make_msg(uint8_t *b, size_t n, uint32_t id)
{
  memset(b, 0, n);
  memcpy(b, "GIOP\1\2\0\0", 8);
  tu_store(b + 8, n - 12, 4, 0);
  tu_store(b + 12, id, 4, 0);
}

/* The reassembler's short path: exactly one message is taken as it is;
 * two messages, or part of one, go through giop_reasm_commit(). */
START_TEST(test_reasm_take)
{
  giop_reasm *r = giop_reasm_new(NULL);
  ck_assert_ptr_nonnull(r);
  uint8_t *buf, *msg;
  size_t room, len;
  /* No spare yet: the general reservation first. */
  ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room), 0);
  ck_assert_int_eq(giop_reasm_buffer(r, &buf, &room), CDR_OK);
  make_msg(buf, 40, 1);
  ck_assert_int_eq(giop_reasm_commit(r, 40), CDR_OK);
  ck_assert_int_eq(giop_reasm_next(r, &msg, &len), 1);
  ck_assert_uint_eq(len, 40);
  giop_reasm_release(r, msg);
  for (uint32_t id = 2; id < 6; id++) {
    ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room), 1);
    ck_assert_uint_ge(room, 80);
    make_msg(buf, 48, id);
    ck_assert_int_eq(iiop__reasm_take(r, 48, &msg, &len), 1);
    ck_assert_ptr_eq(msg, buf);
    ck_assert_uint_eq(len, 48);
    ck_assert_int_eq(giop_reasm_next(r, &msg, &len), 0);     /* nothing else queued */
    giop_reasm_release(r, buf);
  }
  /* Two messages in one read. */
  ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room), 1);
  make_msg(buf, 32, 7);
  make_msg(buf + 32, 36, 8);
  ck_assert_int_eq(iiop__reasm_take(r, 68, &msg, &len), 0);
  ck_assert_int_eq(giop_reasm_commit(r, 68), CDR_OK);
  ck_assert_int_eq(giop_reasm_next(r, &msg, &len), 1);
  ck_assert_uint_eq(len, 32);
  uint8_t *m2;
  size_t l2;
  ck_assert_int_eq(giop_reasm_next(r, &m2, &l2), 1);
  ck_assert_uint_eq(l2, 36);
  ck_assert_uint_eq(be32(m2 + 12), 8);
  giop_reasm_release(r, msg);
  giop_reasm_release(r, m2);
  /* Part of one: the rest completes it through the general path. */
  ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room), 1);
  make_msg(buf, 64, 9);
  ck_assert_int_eq(iiop__reasm_take(r, 20, &msg, &len), 0);
  ck_assert_int_eq(giop_reasm_commit(r, 20), CDR_OK);
  ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room), 0);  /* mid-message */
  uint8_t rest[64];
  make_msg(rest, 64, 9);
  ck_assert_int_eq(giop_reasm_feed(r, rest + 20, 44), CDR_OK);
  ck_assert_int_eq(giop_reasm_next(r, &msg, &len), 1);
  ck_assert_uint_eq(len, 64);
  ck_assert_uint_eq(be32(msg + 12), 9);
  giop_reasm_release(r, msg);
  /* Not GIOP: refused as the general path refuses it. */
  ck_assert_int_eq(iiop__reasm_direct(r, &buf, &room) || giop_reasm_buffer(r, &buf, &room) == CDR_OK, 1);
  memcpy(buf, "GIOQ\1\2\0\0\0\0\0\0", 12);
  ck_assert_int_eq(iiop__reasm_take(r, 12, &msg, &len), 0);
  ck_assert_int_eq(giop_reasm_commit(r, 12), CDR_E_PROTOCOL);
  giop_reasm_free(r);
}
END_TEST

static Suite *small_suite(void)
{
  Suite *s = suite_create("small");
  TCase *tc = tcase_create("short paths");
  tcase_add_test(tc, test_memo_same_length);
  tcase_add_test(tc, test_cache_epoch);
  tcase_add_test(tc, test_reasm_take);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = small_suite };
