/* check_dispatch.c - the server's dispatcher with no socket
 * (libiiop/dispatch.h, internal: linked through libcorbaiiop-internal.la),
 * and the status table of cdr/error.h with libiiop's mapping of statuses
 * to system exceptions.
 *
 * A request is built with the public encoder (iiop/msg.h), handed to
 * iiop__dispatch() as the server's connection would hand it, and the reply
 * it leaves is compared octet by octet with one written out here field by
 * field (CORBA 3.x, Part 2, GIOP "Reply Message", "LocateReply Message"):
 * a good request, OBJECT_NOT_EXIST minor 1 for an unknown key,
 * BAD_OPERATION minor 2 for an unknown operation, a user exception, a
 * oneway (no reply), LocateRequest, NEEDS_ADDRESSING_MODE,
 * SYNC_WITH_SERVER (the acknowledgement before the invocation), the
 * minor codes a failed argument stream maps to, and the NO_RESOURCES reply
 * to a request the memory budget refused (iiop__dispatch_refuse). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "adapter.h"
#include "dispatch.h"
#include "netutil.h"
#include "testutil.h"

static const int LE = CDR_HOST_ORDER == CDR_LITTLE_ENDIAN; /* replies are in host order */

/* ---------------------------------------------------------------- a servant */

static int calls;

static int op_ping(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)servant;
  (void)req;
  calls++;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  cdr_put_long(result, x + 1);
  return CDR_OK;
}

static int op_oops(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)servant;
  (void)req;
  (void)args;
  calls++;
  cdr_put_string(result, "IDL:Test/Oops:1.0");
  cdr_put_long(result, 42);
  return IIOP_R_USER_EXCEPTION;
}

static int op_wstr(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)servant;
  (void)req;
  (void)result;
  calls++;
  uint32_t n;
  (void)cdr_get_wstring(args, &n);
  return cdr_in_status(args);
}

static const iiop_operation test_ops[] = { { "ping", op_ping }, { "oops", op_oops },
                                           { "wstr", op_wstr } };
static const iiop_interface test_iface = { "IDL:Test/T:1.0", test_ops, 3, NULL };

/* ---------------------------------------------------------------- fixture */

typedef struct fixture {
  iiop__adapter ad;
  iiop__session sess;
  cdr_arena arena;
  cdr_out req;               /* the request being built */
  giop_message m;
  int m_live;
} fixture;

static void fx_init(fixture *f)
{
  memset(f, 0, sizeof *f);
  iiop__adapter_init(&f->ad, cdr_mem_global());
  ck_assert_int_eq(iiop__adapter_activate(&f->ad, "T", 1, &test_iface, NULL), CDR_OK);
  iiop__session_init(&f->sess, &f->ad, 1 << 20, NULL);
  iiop__adapter_reader_add(&f->ad, &f->sess.reader);
  cdr_arena_init(&f->arena, NULL);
  calls = 0;
}

static void fx_done_message(fixture *f)
{
  if (f->m_live)
    cdr_in_close(&f->m.body);
  f->m_live = 0;
}

static void fx_free(fixture *f)
{
  fx_done_message(f);
  cdr_out_close(&f->req);
  cdr_arena_free(&f->arena);
  iiop__session_close(&f->sess);
  iiop__adapter_reader_remove(&f->ad, &f->sess.reader);
  iiop__adapter_destroy(&f->ad);
}

/* Begin a request in GIOP 1.MINOR (big-endian) for KEY/OPERATION with
 * response flags FLAGS; the body follows (the caller writes it). */
static cdr_out *begin_request(fixture *f, uint8_t minor, uint32_t id, uint8_t flags,
                              const char *key, const char *operation)
{
  cdr_out_close(&f->req);
  nu_req r = nu_req_default(id, key, operation);
  r.minor = minor;
  r.order = CDR_BIG_ENDIAN;
  r.flags = flags;
  cdr_opts o = nu_req_opts(&r);
  ck_assert_int_eq(cdr_out_init(&f->req, &o), CDR_OK);
  nu_request_head(&f->req, &r);
  return &f->req;
}

/* Dispatch what F->req holds; returns the action, *R the reply. */
static int dispatch(fixture *f, iiop__reply *r)
{
  ck_assert_int_eq(giop_end(&f->req), CDR_OK);
  fx_done_message(f);
  cdr_arena_reset(&f->arena);
  iiop__reader_enter(&f->ad, &f->sess.reader);
  int act = iiop__dispatch(&f->sess, cdr_out_data(&f->req), cdr_out_size(&f->req), &f->arena,
                           &f->m, r);
  iiop__reader_exit(&f->sess.reader);
  f->m_live = 1;
  return act;
}

/* ---------------------------------------------------------------- expected octets */

/* A GIOP 1.MINOR header of TYPE in host order; message_size patched by
 * end_msg(). */
static void put_header(tu_buf *t, uint8_t minor, uint8_t type)
{
  t->n = 0;
  tu_put(t, "GIOP", 4);
  tu_u8(t, 1);
  tu_u8(t, minor);
  tu_u8(t, LE ? 1 : 0);
  tu_u8(t, type);
  tu_num(t, 0, 0, 4, LE);
}

static void end_msg(tu_buf *t) { tu_store(t->b + 8, t->n - 12, 4, LE); }

/* A Reply header (empty service context list) and, in 1.2, the body's
 * alignment when BODY. */
static void put_reply(tu_buf *t, uint8_t minor, uint32_t id, uint32_t status, int body)
{
  put_header(t, minor, GIOP_REPLY);
  if (minor >= 2) {
    tu_num(t, 0, id, 4, LE);
    tu_num(t, 0, status, 4, LE);
    tu_num(t, 0, 0, 4, LE);
    if (body)
      tu_pad(t, 0, 8);
  } else {
    tu_num(t, 0, 0, 4, LE);
    tu_num(t, 0, id, 4, LE);
    tu_num(t, 0, status, 4, LE);
  }
}

static void put_string(tu_buf *t, const char *s)
{
  size_t n = strlen(s) + 1;
  tu_num(t, 0, n, 4, LE);
  tu_put(t, s, n);
}

static void put_sysex(tu_buf *t, uint8_t minor, uint32_t id, const char *name, uint32_t omg_minor,
                      uint32_t completed)
{
  char repo[80];
  snprintf(repo, sizeof repo, "IDL:omg.org/CORBA/%s:1.0", name);
  put_reply(t, minor, id, GIOP_SYSTEM_EXCEPTION, 1);
  put_string(t, repo);
  tu_num(t, 0, omg_minor ? 0x4f4d0000u | omg_minor : 0, 4, LE);
  tu_num(t, 0, completed, 4, LE);
  end_msg(t);
}

/* ---------------------------------------------------------------- requests */

START_TEST(test_good_request)
{
  fixture f;
  fx_init(&f);
  cdr_put_long(begin_request(&f, 2, 5, GIOP_RESPONSE_EXPECTED, "T", "ping"), 41);
  iiop__reply r;
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  tu_buf w;
  put_reply(&w, 2, 5, GIOP_NO_EXCEPTION, 1);
  tu_num(&w, 0, 42, 4, LE);
  end_msg(&w);
  TU_CTX("ping reply");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  ck_assert_uint_eq(r.request_id, 5);
  ck_assert_int_eq(calls, 1);

  /* GIOP 1.0: the list first, and no body alignment. */
  cdr_put_long(begin_request(&f, 0, 6, GIOP_RESPONSE_EXPECTED, "T", "ping"), 1);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_reply(&w, 0, 6, GIOP_NO_EXCEPTION, 1);
  tu_num(&w, 0, 2, 4, LE);
  end_msg(&w);
  TU_CTX("GIOP 1.0 ping reply");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  fx_free(&f);
}
END_TEST

START_TEST(test_unknown_object_and_operation)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  cdr_put_long(begin_request(&f, 2, 7, GIOP_RESPONSE_EXPECTED, "nobody", "ping"), 1);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_sysex(&w, 2, 7, "OBJECT_NOT_EXIST", 1, GIOP_COMPLETED_NO);
  TU_CTX("unknown key");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);

  cdr_put_long(begin_request(&f, 2, 8, GIOP_RESPONSE_EXPECTED, "T", "pong"), 1);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_sysex(&w, 2, 8, "BAD_OPERATION", 2, GIOP_COMPLETED_NO);
  TU_CTX("unknown operation");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  ck_assert_int_eq(calls, 0);

  /* A oneway to nobody: nothing to answer. */
  begin_request(&f, 2, 9, GIOP_RESPONSE_NONE, "nobody", "ping");
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  fx_free(&f);
}
END_TEST

START_TEST(test_user_exception)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  begin_request(&f, 2, 10, GIOP_RESPONSE_EXPECTED, "T", "oops");
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_reply(&w, 2, 10, GIOP_USER_EXCEPTION, 1);
  put_string(&w, "IDL:Test/Oops:1.0");
  tu_num(&w, 0, 42, 4, LE);
  end_msg(&w);
  TU_CTX("user exception (1.2)");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);

  begin_request(&f, 1, 11, GIOP_RESPONSE_EXPECTED, "T", "oops");
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_reply(&w, 1, 11, GIOP_USER_EXCEPTION, 1);
  put_string(&w, "IDL:Test/Oops:1.0");
  tu_num(&w, 0, 42, 4, LE);
  end_msg(&w);
  TU_CTX("user exception (1.1)");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  fx_free(&f);
}
END_TEST

START_TEST(test_oneway)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  cdr_put_long(begin_request(&f, 2, 12, GIOP_RESPONSE_NONE, "T", "ping"), 1);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  ck_assert_ptr_null(r.msg);
  ck_assert_int_eq(calls, 1);
  /* A oneway whose operation fails: still nothing. */
  begin_request(&f, 2, 13, GIOP_RESPONSE_NONE, "T", "ping");
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  ck_assert_int_eq(calls, 2);
  fx_free(&f);
}
END_TEST

START_TEST(test_sync_with_server)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  cdr_put_long(begin_request(&f, 2, 14, GIOP_RESPONSE_SYNC_WITH_SERVER, "T", "ping"), 1);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_ACK);
  ck_assert_int_eq(calls, 0); /* acknowledged before the invocation */
  put_reply(&w, 2, 14, GIOP_NO_EXCEPTION, 0);
  end_msg(&w);
  TU_CTX("SYNC_WITH_SERVER acknowledgement");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  ck_assert_int_eq(iiop__dispatch_resume(&f.sess, &f.m, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  ck_assert_int_eq(calls, 1);
  fx_free(&f);
}
END_TEST

START_TEST(test_locate_request)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  const char *keys[] = { "T", "nobody" };
  const uint32_t want[] = { GIOP_OBJECT_HERE, GIOP_UNKNOWN_OBJECT };
  for (int k = 0; k < 2; k++) {
    cdr_out_close(&f.req);
    cdr_opts o;
    cdr_opts_default(&o);
    o.byte_order = CDR_BIG_ENDIAN;
    ck_assert_int_eq(cdr_out_init(&f.req, &o), CDR_OK);
    giop_locate_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 20 + (uint32_t)k;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = (const uint8_t *)keys[k];
    h.target.key_len = (uint32_t)strlen(keys[k]);
    ck_assert_int_eq(giop_begin_locate_request(&f.req, &h), CDR_OK);
    ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
    put_header(&w, 2, GIOP_LOCATE_REPLY);
    tu_num(&w, 0, 20 + (uint32_t)k, 4, LE);
    tu_num(&w, 0, want[k], 4, LE);
    end_msg(&w);
    TU_CTX("LocateReply for %s", keys[k]);
    TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
    ck_assert_uint_eq(r.request_id, 20 + (uint32_t)k);
  }
  fx_free(&f);
}
END_TEST

START_TEST(test_needs_addressing_mode)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  cdr_out_close(&f.req);
  cdr_opts o;
  cdr_opts_default(&o);
  o.byte_order = CDR_BIG_ENDIAN;
  ck_assert_int_eq(cdr_out_init(&f.req, &o), CDR_OK);
  static const uint8_t profile[8] = { 0, 0, 0, 0, 1, 2, 3, 4 };
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.request_id = 30;
  h.response_flags = GIOP_RESPONSE_EXPECTED;
  h.target.disposition = GIOP_PROFILE_ADDR;
  h.target.profile = profile;
  h.target.profile_len = sizeof profile;
  h.operation = "ping";
  h.operation_len = 4;
  ck_assert_int_eq(giop_begin_request(&f.req, &h), CDR_OK);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_reply(&w, 2, 30, GIOP_NEEDS_ADDRESSING_MODE, 1);
  tu_num(&w, 0, GIOP_KEY_ADDR, 2, LE);
  end_msg(&w);
  TU_CTX("NEEDS_ADDRESSING_MODE");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  fx_free(&f);
}
END_TEST

/* The argument stream's reason decides the minor code. */
START_TEST(test_argument_minor_codes)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  /* GIOP 1.2, no CodeSets context: no wchar code set -> BAD_PARAM 23. */
  cdr_put_ulong(begin_request(&f, 2, 40, GIOP_RESPONSE_EXPECTED, "T", "wstr"), 2);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_sysex(&w, 2, 40, "BAD_PARAM", 23, GIOP_COMPLETED_NO);
  TU_CTX("wstring without a wchar code set");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  fx_free(&f);

  /* GIOP 1.0: no wchar at all -> MARSHAL 5. */
  fx_init(&f);
  cdr_put_ulong(begin_request(&f, 0, 41, GIOP_RESPONSE_EXPECTED, "T", "wstr"), 2);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_sysex(&w, 0, 41, "MARSHAL", 5, GIOP_COMPLETED_NO);
  TU_CTX("wstring in GIOP 1.0");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);

  /* A short argument -> MARSHAL, no minor code. */
  begin_request(&f, 0, 42, GIOP_RESPONSE_EXPECTED, "T", "ping");
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  put_sysex(&w, 0, 42, "MARSHAL", 0, GIOP_COMPLETED_NO);
  TU_CTX("short argument");
  TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
  fx_free(&f);
}
END_TEST

START_TEST(test_other_messages)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  /* A Reply sent to a server: MessageError, in the message's version. */
  cdr_out_close(&f.req);
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = 1;
  ck_assert_int_eq(cdr_out_init(&f.req, &o), CDR_OK);
  giop_reply_header rh = { 1, GIOP_NO_EXCEPTION, { 0, NULL } };
  ck_assert_int_eq(giop_begin_reply(&f.req, &rh), CDR_OK);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_ERROR);
  ck_assert_uint_eq(f.sess.minor, 1);
  ck_assert_uint_eq(r.len, 0);
  /* CloseConnection: close, nothing sent. */
  cdr_out_close(&f.req);
  ck_assert_int_eq(cdr_out_init(&f.req, &o), CDR_OK);
  ck_assert_int_eq(giop_begin_close_connection(&f.req), CDR_OK);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CLOSE);
  /* CancelRequest: nothing to do. */
  cdr_out_close(&f.req);
  ck_assert_int_eq(cdr_out_init(&f.req, &o), CDR_OK);
  ck_assert_int_eq(giop_begin_cancel_request(&f.req, 3), CDR_OK);
  ck_assert_int_eq(dispatch(&f, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  /* Garbage: MessageError in the version of the last good message. */
  fx_done_message(&f);
  static const uint8_t junk[12] = { 'G', 'I', 'O', 'X', 1, 2, 0, 0, 0, 0, 0, 0 };
  ck_assert_int_eq(iiop__dispatch(&f.sess, junk, sizeof junk, &f.arena, &f.m, &r), IIOP__D_ERROR);
  f.m_live = 1;
  ck_assert_uint_eq(f.sess.minor, 1);
  fx_free(&f);
}
END_TEST

/* A request the memory budget refused (iiop__dispatch_refuse): what has
 * arrived of it -- here the header, the request header and part of the
 * body, its more-fragments flag set as a first fragment's would be -- is
 * answered NO_RESOURCES, minor 0, completed NO, in the request's own GIOP
 * version, and the servant is never called.  The octets handed in are
 * rewritten to describe just themselves. */
static int refuse(fixture *f, uint8_t minor, uint32_t id, uint8_t flags, size_t cut,
                  uint8_t *copy, size_t *len, iiop__reply *r)
{
  cdr_out *o = begin_request(f, minor, id, flags, "T", "ping");
  for (int i = 0; i < 16; i++)
    cdr_put_long(o, i);
  ck_assert_int_eq(giop_end(o), CDR_OK);
  *len = cdr_out_size(o) - cut;
  memcpy(copy, cdr_out_data(o), *len);
  if (minor >= 1)
    copy[6] |= GIOP_FLAG_MORE_FRAGMENTS;
  fx_done_message(f);
  cdr_arena_reset(&f->arena);
  return iiop__dispatch_refuse(&f->sess, copy, *len, &f->arena, "NO_RESOURCES", r);
}

START_TEST(test_refuse_no_resources)
{
  fixture f;
  fx_init(&f);
  iiop__reply r;
  tu_buf w;
  uint8_t copy[512];
  size_t len;
  static const uint8_t minors[] = { 2, 1, 0 };
  for (size_t i = 0; i < sizeof minors; i++) {
    uint8_t minor = minors[i];
    uint32_t id = 30 + (uint32_t)i;
    ck_assert_int_eq(refuse(&f, minor, id, GIOP_RESPONSE_EXPECTED, 40, copy, &len, &r),
                     IIOP__D_CONTINUE);
    put_sysex(&w, minor, id, "NO_RESOURCES", 0, GIOP_COMPLETED_NO);
    TU_CTX("NO_RESOURCES reply, GIOP 1.%u", (unsigned)minor);
    TU_ASSERT_BYTES(r.msg, r.len, w.b, w.n);
    ck_assert_uint_eq(r.request_id, id);
    /* The arrived octets now describe themselves: one whole message, big-endian. */
    ck_assert_uint_eq(copy[6] & GIOP_FLAG_MORE_FRAGMENTS, 0);
    ck_assert_uint_eq(((uint32_t)copy[8] << 24 | (uint32_t)copy[9] << 16
                       | (uint32_t)copy[10] << 8 | copy[11]),
                      len - GIOP_HEADER_SIZE);
  }
  /* The exact octets of the 1.2 and 1.0 replies, written out by hand in
   * the host's byte order (replies are in host order). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define O4(a, b, c, d) d, c, b, a
#define HOST_FLAGS 1
#else
#define O4(a, b, c, d) a, b, c, d
#define HOST_FLAGS 0
#endif
#define NO_RESOURCES_BODY                                                                     \
  O4(0, 0, 0, 35), 'I', 'D', 'L', ':', 'o', 'm', 'g', '.', 'o', 'r', 'g', '/', 'C', 'O', 'R',  \
    'B', 'A', '/', 'N', 'O', '_', 'R', 'E', 'S', 'O', 'U', 'R', 'C', 'E', 'S', ':', '1', '.',   \
    '0', 0, /* repository ID, 35 octets with its NUL */                                       \
    0,      /* minor aligned on 4 */                                                          \
    O4(0, 0, 0, 0), /* minor 0 */                                                             \
    O4(0, 0, 0, 1)  /* COMPLETED_NO */
  static const uint8_t want12[] = {
    'G', 'I', 'O', 'P', 1, 2, HOST_FLAGS, GIOP_REPLY, O4(0, 0, 0, 60),
    O4(1, 2, 3, 4),         /* request_id */
    O4(0, 0, 0, 2),         /* SYSTEM_EXCEPTION */
    O4(0, 0, 0, 0),         /* no service contexts; the body at 24, aligned on 8 already */
    NO_RESOURCES_BODY,
  };
  static const uint8_t want10[] = {
    'G', 'I', 'O', 'P', 1, 0, HOST_FLAGS, GIOP_REPLY, O4(0, 0, 0, 60),
    O4(0, 0, 0, 0),         /* no service contexts */
    O4(1, 2, 3, 4),         /* request_id */
    O4(0, 0, 0, 2),         /* SYSTEM_EXCEPTION, the body right after */
    NO_RESOURCES_BODY,
  };
#undef NO_RESOURCES_BODY
#undef HOST_FLAGS
#undef O4
  ck_assert_int_eq(refuse(&f, 2, 0x01020304, GIOP_RESPONSE_EXPECTED, 8, copy, &len, &r),
                   IIOP__D_CONTINUE);
  TU_CTX("GIOP 1.2 NO_RESOURCES octets");
  TU_ASSERT_BYTES(r.msg, r.len, want12, sizeof want12);
  ck_assert_int_eq(refuse(&f, 0, 0x01020304, GIOP_RESPONSE_EXPECTED, 8, copy, &len, &r),
                   IIOP__D_CONTINUE);
  TU_CTX("GIOP 1.0 NO_RESOURCES octets");
  TU_ASSERT_BYTES(r.msg, r.len, want10, sizeof want10);
  ck_assert_int_eq(calls, 0);

  /* A oneway: nothing to answer, the connection goes on. */
  ck_assert_int_eq(refuse(&f, 2, 40, GIOP_RESPONSE_NONE, 40, copy, &len, &r), IIOP__D_CONTINUE);
  ck_assert_uint_eq(r.len, 0);
  ck_assert_ptr_null(r.msg);
  /* A request header not all there, a header alone, less than a header:
   * nothing reliable to answer, the connection closes. */
  begin_request(&f, 2, 41, GIOP_RESPONSE_EXPECTED, "T", "ping");
  ck_assert_int_eq(giop_end(&f.req), CDR_OK);
  size_t whole = cdr_out_size(&f.req);
  memcpy(copy, cdr_out_data(&f.req), whole);
  ck_assert_int_eq(iiop__dispatch_refuse(&f.sess, copy, 20, &f.arena, "NO_RESOURCES", &r),
                   IIOP__D_CLOSE);
  ck_assert_uint_eq(r.len, 0);
  memcpy(copy, cdr_out_data(&f.req), whole);
  ck_assert_int_eq(iiop__dispatch_refuse(&f.sess, copy, 12, &f.arena, "NO_RESOURCES", &r),
                   IIOP__D_CLOSE);
  ck_assert_int_eq(iiop__dispatch_refuse(&f.sess, copy, 11, &f.arena, "NO_RESOURCES", &r),
                   IIOP__D_CLOSE);
  ck_assert_uint_eq(r.len, 0);
  ck_assert_int_eq(calls, 0);
  fx_free(&f);
}
END_TEST

/* ---------------------------------------------------------------- the status table */

START_TEST(test_status_table)
{
  static const struct {
    int st;
    const char *msg, *ex;
    uint32_t minor;
  } want[] = {
    { CDR_OK, "success", NULL, 0 },
    { CDR_E_SHORT, "input ends before the item is complete", "MARSHAL", 0 },
    { CDR_E_LENGTH, "length or count exceeds the bytes that remain", "MARSHAL", 0 },
    { CDR_E_LIMIT, "configured limit exceeded", "IMP_LIMIT", 0 },
    { CDR_E_VALUE, "value outside its type's domain", "MARSHAL", 0 },
    { CDR_E_STRING, "string terminator rules broken", "MARSHAL", 0 },
    { CDR_E_CODESET, "character invalid in its code set", "DATA_CONVERSION", 1 },
    { CDR_E_TAG, "bad value tag, chunk length or end tag", "MARSHAL", 0 },
    { CDR_E_INDIRECTION, "bad indirection", "MARSHAL", 0 },
    { CDR_E_TYPE, "unknown or incompatible type", "MARSHAL", 0 },
    { CDR_E_NOMEM, "out of memory", "NO_MEMORY", 0 },
    { CDR_E_STATE, "operation not allowed in this state", "BAD_INV_ORDER", 0 },
    { CDR_E_INVALID, "invalid argument", "BAD_PARAM", 0 },
    { CDR_E_UNSUPPORTED, "not supported", "NO_IMPLEMENT", 0 },
    { CDR_E_IO, "I/O error", "COMM_FAILURE", 0 },
    { CDR_E_PROTOCOL, "GIOP protocol error", "COMM_FAILURE", 0 },
    { CDR_E_TIMEOUT, "timed out", "TIMEOUT", 0 },
    { CDR_E_TLS, "TLS error", "COMM_FAILURE", 0 },
    { CDR_E_CLOSED, "connection closed", "COMM_FAILURE", 0 },
    { CDR_E_NO_WCHAR, "no wchar transmission code set negotiated", "BAD_PARAM", 23 },
    { CDR_E_WCHAR_GIOP10, "wchar/wstring not allowed in GIOP 1.0", "MARSHAL", 5 },
    { CDR_E_BADKIND, "operation not defined for the TypeCode's kind", "BAD_PARAM", 0 },
    { CDR_E_BOUNDS, "member index out of bounds", "BAD_PARAM", 0 },
    { CDR_E_NOTFOUND, "name not found", "BAD_PARAM", 10 },
  };
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    ck_assert_int_eq(want[k].st, -(int)k); /* the values run from 0 down */
    ck_assert_str_eq(cdr_strerror(want[k].st), want[k].msg);
    if (want[k].ex)
      ck_assert_str_eq(cdr_status_exception(want[k].st), want[k].ex);
    else
      ck_assert_ptr_null(cdr_status_exception(want[k].st));
    ck_assert_uint_eq(cdr_status_minor(want[k].st), want[k].minor);
    /* A stream that recorded the row as the reason of a broader status:
     * that row, with its message. */
    if (want[k].st != CDR_OK) {
      cdr_in i;
      ck_assert_int_eq(cdr_in_init(&i, NULL, 0, CDR_BIG_ENDIAN, NULL), CDR_OK);
      ck_assert_int_eq(cdr_in_fail_reason(&i, CDR_E_CODESET, want[k].st, NULL), CDR_E_CODESET);
      ck_assert_int_eq(cdr_in_error_reason(&i), want[k].st);
      ck_assert_str_eq(cdr_in_error_message(&i), want[k].msg);
      cdr_in_close(&i);
      cdr_out o;
      ck_assert_int_eq(cdr_out_init(&o, NULL), CDR_OK);
      ck_assert_int_eq(cdr_out_fail_reason(&o, CDR_E_CODESET, want[k].st, NULL), CDR_E_CODESET);
      ck_assert_int_eq(cdr_out_error_reason(&o), want[k].st);
      ck_assert_str_eq(cdr_out_error_message(&o), want[k].msg);
      cdr_out_close(&o);
    }
  }
  /* Outside the table. */
  ck_assert_str_eq(cdr_strerror(-24), "unknown error");
  ck_assert_str_eq(cdr_strerror(1), "unknown error");
  ck_assert_str_eq(cdr_status_exception(-24), "MARSHAL");
  ck_assert_str_eq(cdr_status_exception(IIOP_R_USER_EXCEPTION), "MARSHAL");
  ck_assert_uint_eq(cdr_status_minor(-24), 0);
  /* A failure without a reason (whatever its message: a copy of a
   * reason's, none): the status; no failure: CDR_OK. */
  static const struct {
    int st;
    const char *msg;
  } plain[] = { { CDR_E_CODESET, "no wchar transmission code set negotiated" },
                { CDR_E_VALUE, "bad boolean" },
                { CDR_E_VALUE, NULL } };
  for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++) {
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, NULL, 0, CDR_BIG_ENDIAN, NULL), CDR_OK);
    ck_assert_int_eq(cdr_in_error_reason(&i), CDR_OK);
    cdr_in_fail(&i, plain[k].st, plain[k].msg);
    ck_assert_int_eq(cdr_in_error_reason(&i), plain[k].st);
    ck_assert_str_eq(cdr_in_error_message(&i), plain[k].msg ? plain[k].msg : cdr_strerror(plain[k].st));
    cdr_in_close(&i);
    cdr_out o;
    ck_assert_int_eq(cdr_out_init(&o, NULL), CDR_OK);
    ck_assert_int_eq(cdr_out_error_reason(&o), CDR_OK);
    cdr_out_fail(&o, plain[k].st, plain[k].msg);
    ck_assert_int_eq(cdr_out_error_reason(&o), plain[k].st);
    ck_assert_str_eq(cdr_out_error_message(&o), plain[k].msg ? plain[k].msg : cdr_strerror(plain[k].st));
    cdr_out_reset(&o); /* a reset stream has no error */
    ck_assert_int_eq(cdr_out_error_reason(&o), CDR_OK);
    ck_assert_str_eq(cdr_out_error_message(&o), "");
    cdr_out_close(&o);
  }
}
END_TEST

/* A stream records the reasons where it fails for them. */
START_TEST(test_stream_reasons)
{
  static const uint8_t two[8] = { 0, 0, 0, 2, 0, 0x41, 0, 0x42 };
  cdr_opts o;
  cdr_opts_default(&o);
  o.tcs_w = 0;
  cdr_in i;
  ck_assert_int_eq(cdr_in_init(&i, two, sizeof two, CDR_BIG_ENDIAN, &o), CDR_OK);
  uint32_t n;
  (void)cdr_get_wstring(&i, &n);
  ck_assert_int_eq(cdr_in_status(&i), CDR_E_CODESET);
  ck_assert_int_eq(cdr_in_error_reason(&i), CDR_E_NO_WCHAR);
  ck_assert_str_eq(cdr_in_error_message(&i), "wchar/wstring read with no wchar transmission code set");
  cdr_in_close(&i);
  cdr_out w;
  ck_assert_int_eq(cdr_out_init(&w, &o), CDR_OK);
  cdr_put_wstring(&w, (const cdr_wchar[]){ 'A' }, 1);
  ck_assert_int_eq(cdr_out_status(&w), CDR_E_CODESET);
  ck_assert_int_eq(cdr_out_error_reason(&w), CDR_E_NO_WCHAR);
  ck_assert_str_eq(cdr_out_error_message(&w), "wchar/wstring written with no wchar transmission code set");
  cdr_out_close(&w);
  o.tcs_w = CDR_CS_UTF16;
  o.giop_minor = 0;
  ck_assert_int_eq(cdr_in_init(&i, two, sizeof two, CDR_BIG_ENDIAN, &o), CDR_OK);
  (void)cdr_get_wchar(&i);
  ck_assert_int_eq(cdr_in_status(&i), CDR_E_UNSUPPORTED);
  ck_assert_int_eq(cdr_in_error_reason(&i), CDR_E_WCHAR_GIOP10);
  ck_assert_str_eq(cdr_in_error_message(&i), "wchar/wstring read in GIOP 1.0");
  cdr_in_close(&i);
  ck_assert_int_eq(cdr_out_init(&w, &o), CDR_OK);
  cdr_put_wchar(&w, 'A');
  ck_assert_int_eq(cdr_out_status(&w), CDR_E_UNSUPPORTED);
  ck_assert_int_eq(cdr_out_error_reason(&w), CDR_E_WCHAR_GIOP10);
  ck_assert_str_eq(cdr_out_error_message(&w), "wchar/wstring written in GIOP 1.0");
  cdr_out_close(&w);
}
END_TEST

/* libiiop's mapping: exact repository IDs, minor codes, completion. */
START_TEST(test_status_exception)
{
  static const struct {
    int st;
    const char *id;
    uint32_t minor;
  } want[] = {
    { CDR_E_SHORT, "IDL:omg.org/CORBA/MARSHAL:1.0", 0 },
    { CDR_E_LIMIT, "IDL:omg.org/CORBA/IMP_LIMIT:1.0", 0 },
    { CDR_E_CODESET, "IDL:omg.org/CORBA/DATA_CONVERSION:1.0", 0x4f4d0001u },
    { CDR_E_NOMEM, "IDL:omg.org/CORBA/NO_MEMORY:1.0", 0 },
    { CDR_E_STATE, "IDL:omg.org/CORBA/BAD_INV_ORDER:1.0", 0 },
    { CDR_E_INVALID, "IDL:omg.org/CORBA/BAD_PARAM:1.0", 0 },
    { CDR_E_UNSUPPORTED, "IDL:omg.org/CORBA/NO_IMPLEMENT:1.0", 0 },
    { CDR_E_IO, "IDL:omg.org/CORBA/COMM_FAILURE:1.0", 0 },
    { CDR_E_TIMEOUT, "IDL:omg.org/CORBA/TIMEOUT:1.0", 0 },
    { CDR_E_NO_WCHAR, "IDL:omg.org/CORBA/BAD_PARAM:1.0", 0x4f4d0017u },
    { CDR_E_WCHAR_GIOP10, "IDL:omg.org/CORBA/MARSHAL:1.0", 0x4f4d0005u },
    { -99, "IDL:omg.org/CORBA/MARSHAL:1.0", 0 },
  };
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    giop_system_exception e;
    iiop__status_exception(want[k].st, NULL, GIOP_COMPLETED_MAYBE, &e);
    ck_assert_str_eq(e.repo_id, want[k].id);
    ck_assert_uint_eq(e.minor, want[k].minor);
    ck_assert_uint_eq(e.completed, GIOP_COMPLETED_MAYBE);
  }
  /* The stream's reason counts only when ST is the stream's own status. */
  static const uint8_t two[8] = { 0, 0, 0, 2, 0, 0x41, 0, 0x42 };
  cdr_opts o;
  cdr_opts_default(&o);
  o.tcs_w = 0; /* no wchar code set */
  cdr_in i;
  ck_assert_int_eq(cdr_in_init(&i, two, sizeof two, CDR_BIG_ENDIAN, &o), CDR_OK);
  uint32_t n;
  (void)cdr_get_wstring(&i, &n);
  ck_assert_int_eq(cdr_in_status(&i), CDR_E_CODESET);
  giop_system_exception e;
  iiop__status_exception(CDR_E_CODESET, &i, GIOP_COMPLETED_NO, &e);
  ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/BAD_PARAM:1.0");
  ck_assert_uint_eq(e.minor, 0x4f4d0017u);
  iiop__status_exception(CDR_E_LIMIT, &i, GIOP_COMPLETED_NO, &e);
  ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/IMP_LIMIT:1.0");
  ck_assert_uint_eq(e.minor, 0);
  cdr_in_close(&i);
}
END_TEST

/* ---------------------------------------------------------------- short paths */

/* One message through giop_parse() and iiop__dispatch() with msg.c's GIOP
 * 1.2 short paths on (F) and off (G, iiop__msg_general): the parse's
 * status, error offset and message, header fields and body position, the
 * dispatcher's action and the reply's octets must all be the same. */
static void same_both_ways(fixture *f, fixture *g, const uint8_t *msg, size_t len)
{
  giop_message a, b;
  cdr_arena_reset(&f->arena);
  cdr_arena_reset(&g->arena);
  iiop__msg_general = 0;
  int ra = giop_parse(&a, msg, len, &f->sess.in_opts, &f->arena);
  iiop__msg_general = 1;
  int rb = giop_parse(&b, msg, len, &g->sess.in_opts, &g->arena);
  iiop__msg_general = 0;
  ck_assert_int_eq(ra, rb);
  ck_assert_int_eq(cdr_in_status(&a.body), cdr_in_status(&b.body));
  ck_assert_uint_eq(cdr_in_error_offset(&a.body), cdr_in_error_offset(&b.body));
  ck_assert_str_eq(cdr_in_error_message(&a.body), cdr_in_error_message(&b.body));
  ck_assert_uint_eq(cdr_in_pos(&a.body), cdr_in_pos(&b.body));
  ck_assert_uint_eq(cdr_in_remaining(&a.body), cdr_in_remaining(&b.body));
  if (ra == CDR_OK && a.hdr.type == GIOP_REQUEST) {
    const giop_request_header *x = &a.u.request, *y = &b.u.request;
    ck_assert_uint_eq(x->request_id, y->request_id);
    ck_assert_uint_eq(x->response_flags, y->response_flags);
    ck_assert_uint_eq(x->target.disposition, y->target.disposition);
    ck_assert_ptr_eq(x->target.key, y->target.key);
    ck_assert_uint_eq(x->target.key_len, y->target.key_len);
    ck_assert_ptr_eq(x->target.profile, y->target.profile);
    ck_assert_ptr_eq(x->target.ior, y->target.ior);
    ck_assert_ptr_eq(x->operation, y->operation);
    ck_assert_uint_eq(x->operation_len, y->operation_len);
    ck_assert_uint_eq(x->contexts.n, y->contexts.n);
    ck_assert_ptr_eq(x->principal, y->principal);
    ck_assert_uint_eq(x->principal_len, y->principal_len);
  }
  cdr_in_close(&a.body);
  cdr_in_close(&b.body);

  iiop__reply r, q;
  int ca = calls;
  iiop__reader_enter(&f->ad, &f->sess.reader);
  int da = iiop__dispatch(&f->sess, msg, len, &f->arena, &f->m, &r);
  iiop__reader_exit(&f->sess.reader);
  int na = calls - ca;
  uint8_t copy[512];
  ck_assert_uint_le(r.len, sizeof copy);
  if (r.len)
    memcpy(copy, r.msg, r.len);
  iiop__msg_general = 1;
  ca = calls;
  iiop__reader_enter(&g->ad, &g->sess.reader);
  int db = iiop__dispatch(&g->sess, msg, len, &g->arena, &g->m, &q);
  iiop__reader_exit(&g->sess.reader);
  iiop__msg_general = 0;
  ck_assert_int_eq(da, db);
  ck_assert_int_eq(na, calls - ca);
  ck_assert_uint_eq(r.request_id, q.request_id);
  TU_ASSERT_BYTES(copy, r.len, q.msg, q.len);
  cdr_in_close(&f->m.body);
  cdr_in_close(&g->m.body);
}

/* The message in F->req (ended), its message_size rewritten to fit LEN. */
static void fit(uint8_t *b, size_t len)
{
  tu_store(b + 8, len - 12, 4, b[6] & 1);
}

START_TEST(test_short_paths_match_general)
{
  static const char *const keys[] = { "T", "", "TT", "T\0", "TTTTTTTTT" };
  static const size_t key_lens[] = { 1, 0, 2, 2, 9 };
  static const char *const ops[] = { "ping", "oops", "wstr", "_non_existent", "_is_a", "nosuch",
                                     "p" };
  fixture f, g;
  fx_init(&f);
  fx_init(&g);
  size_t checked = 0;
  for (int le = 0; le < 2; le++)
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
      for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (int body = 0; body < 3; body++) {
          cdr_out_close(&f.req);
          cdr_opts op;
          cdr_opts_default(&op);
          op.byte_order = le ? CDR_LITTLE_ENDIAN : CDR_BIG_ENDIAN;
          op.giop_minor = 2;
          ck_assert_int_eq(cdr_out_init(&f.req, &op), CDR_OK);
          giop_request_header h;
          memset(&h, 0, sizeof h);
          h.request_id = 0x01020304u + (uint32_t)o;
          h.response_flags = body == 2 ? 0 : GIOP_RESPONSE_EXPECTED;
          h.target.disposition = GIOP_KEY_ADDR;
          h.target.key = (const uint8_t *)keys[k];
          h.target.key_len = (uint32_t)key_lens[k];
          h.operation = ops[o];
          h.operation_len = (uint32_t)strlen(ops[o]);
          ck_assert_int_eq(giop_begin_request(&f.req, &h), CDR_OK);
          giop_begin_body(&f.req);
          if (body)
            cdr_put_long(&f.req, 41);
          if (o == 4)
            cdr_put_string(&f.req, "IDL:Test/T:1.0");
          ck_assert_int_eq(giop_end(&f.req), CDR_OK);
          uint8_t base[256], v[256];
          size_t n = cdr_out_size(&f.req);
          ck_assert_uint_le(n, sizeof base);
          memcpy(base, cdr_out_data(&f.req), n);
          same_both_ways(&f, &g, base, n);
          checked++;
          /* Every truncation (message_size telling the truth)... */
          for (size_t cut = 12; cut < n; cut++) {
            memcpy(v, base, cut);
            fit(v, cut);
            same_both_ways(&f, &g, v, cut);
            checked++;
          }
          /* ... and every octet after the GIOP header changed. */
          static const uint8_t vals[] = { 0x00, 0x01, 0x02, 0x07, 0x7f, 0x80, 0xff };
          for (size_t at = 12; at < n; at++)
            for (size_t x = 0; x < sizeof vals; x++) {
              memcpy(v, base, n);
              if (v[at] == vals[x])
                continue;
              v[at] = vals[x];
              same_both_ways(&f, &g, v, n);
              checked++;
            }
        }
  ck_assert_uint_gt(checked, 10000);
  fx_free(&f);
  fx_free(&g);
}
END_TEST

/* The adapter's byte comparison (keys, operation names): every length up
 * to 40, equal, and different at each octet in turn. */
START_TEST(test_same_bytes)
{
  uint8_t a[48], b[48];
  for (size_t n = 0; n <= 40; n++) {
    for (size_t k = 0; k < sizeof a; k++)
      a[k] = b[k] = (uint8_t)(k * 37 + n);
    ck_assert(iiop__same_bytes(a, b, n));
    for (size_t at = 0; at < n; at++) {
      b[at] ^= 0x20;
      ck_assert_msg(!iiop__same_bytes(a, b, n), "n %zu, octet %zu", n, at);
      b[at] ^= 0x20;
    }
    b[n] ^= 0xff;                      /* past the end: not compared */
    ck_assert(iiop__same_bytes(a, b, n));
  }
}
END_TEST

static Suite *dispatch_suite(void)
{
  Suite *s = suite_create("dispatch");
  TCase *tc = tcase_create("dispatcher");
  tcase_add_test(tc, test_good_request);
  tcase_add_test(tc, test_unknown_object_and_operation);
  tcase_add_test(tc, test_user_exception);
  tcase_add_test(tc, test_oneway);
  tcase_add_test(tc, test_sync_with_server);
  tcase_add_test(tc, test_locate_request);
  tcase_add_test(tc, test_needs_addressing_mode);
  tcase_add_test(tc, test_argument_minor_codes);
  tcase_add_test(tc, test_other_messages);
  tcase_add_test(tc, test_refuse_no_resources);
  tcase_add_test(tc, test_short_paths_match_general);
  tcase_add_test(tc, test_same_bytes);
  suite_add_tcase(s, tc);
  tc = tcase_create("status table");
  tcase_add_test(tc, test_status_table);
  tcase_add_test(tc, test_stream_reasons);
  tcase_add_test(tc, test_status_exception);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = dispatch_suite };
