/* check_msg.c - GIOP 1.0-1.2 message headers (iiop/msg.h): every message
 * type in both byte orders and every version that has it, encoded and
 * compared with octets written by hand from the spec's layout (the xb_*
 * helpers below apply CDR alignment relative to the message start; they
 * share no code with the encoder), then parsed back field by field; the
 * docs/hostile-input.md C17 messages; every malformed header a decoder can meet, with its
 * error and offset; every truncation and random mutations of valid
 * messages (run this under AddressSanitizer too). */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include "testutil.h"

/* ---------------------------------------------------------------- expected octets */

static void xb_hdr(tu_buf *t, int minor, int le, int type)
{
  t->n = 0;
  tu_put(t, "GIOP", 4);
  tu_u8(t, 1);
  tu_u8(t, (uint8_t)minor);
  tu_u8(t, (uint8_t)le);
  tu_u8(t, (uint8_t)type);
  tu_num(t, 0, 0, 4, le); /* message_size, patched by xb_size() */
}
/* message_size: the octets after the 12-octet header. */
static void xb_size(tu_buf *t, int le) { tu_store(t->b + 8, t->n - 12, 4, le); }
static void xb_u8(tu_buf *t, uint8_t v) { tu_u8(t, v); }
static void xb_u16(tu_buf *t, int le, uint16_t v) { tu_num(t, 0, v, 2, le); }
static void xb_u32(tu_buf *t, int le, uint32_t v) { tu_num(t, 0, v, 4, le); }
static void xb_oct(tu_buf *t, int le, const void *p, uint32_t n)
{
  xb_u32(t, le, n);
  tu_put(t, p, n);
}
static void xb_str(tu_buf *t, int le, const char *s)
{
  uint32_t n = (uint32_t)strlen(s) + 1;
  xb_u32(t, le, n);
  tu_put(t, s, n);
}
static void xb_pad8(tu_buf *t) { tu_pad(t, 0, 8); }

/* ---------------------------------------------------------------- fixtures */

static const uint8_t KEY[] = { 'E', 'c', 'h', 'o', 0x00, 0xff };
static const uint8_t UNK_DATA[] = { 1, 2, 3, 4, 5, 6, 7 };
#define UNK_ID 0x4f4d0042u
#define CS_CHAR 0x00010001u  /* ISO 8859-1 */
#define CS_WCHAR 0x00010109u /* UTF-16 */

/* Two service contexts: CodeSets (its encapsulation in host order, as
 * giop_codeset_context_encode() writes it) and an unknown one of 7 octets
 * that leaves the stream unaligned. */
typedef struct ctx2 {
  uint8_t cs[12];
  giop_service_context v[2];
  giop_sc_list l;
} ctx2;

static void ctx2_init(ctx2 *c)
{
  giop_codeset_context cs = { CS_CHAR, CS_WCHAR };
  giop_codeset_context_encode(&cs, c->cs);
  c->v[0] = (giop_service_context){ GIOP_SC_CODE_SETS, 12, c->cs };
  c->v[1] = (giop_service_context){ UNK_ID, sizeof UNK_DATA, UNK_DATA };
  c->l = (giop_sc_list){ 2, c->v };
}

/* The same two contexts as expected octets. */
static void xb_ctx2(tu_buf *t, int le)
{
  xb_u32(t, le, 2);
  xb_u32(t, le, GIOP_SC_CODE_SETS);
  xb_u32(t, le, 12);
  xb_u8(t, CDR_HOST_ORDER);
  xb_u8(t, 0); xb_u8(t, 0); xb_u8(t, 0);
  tu_num(t, t->n - 4, CS_CHAR, 4, CDR_HOST_ORDER);
  tu_num(t, t->n - 8, CS_WCHAR, 4, CDR_HOST_ORDER);
  xb_u32(t, le, UNK_ID);
  xb_oct(t, le, UNK_DATA, sizeof UNK_DATA);
}

static void assert_ctx2(const giop_sc_list *l)
{
  ck_assert_uint_eq(l->n, 2);
  const giop_service_context *c = giop_sc_find(l, GIOP_SC_CODE_SETS);
  ck_assert_ptr_nonnull(c);
  ck_assert_uint_eq(c->len, 12);
  giop_codeset_context cs = { 0, 0 };
  ck_assert_int_eq(giop_codeset_context_decode(c, &cs), CDR_OK);
  ck_assert_uint_eq(cs.char_data, CS_CHAR);
  ck_assert_uint_eq(cs.wchar_data, CS_WCHAR);
  c = giop_sc_find(l, UNK_ID);
  ck_assert_ptr_nonnull(c);
  ck_assert_uint_eq(c->len, sizeof UNK_DATA);
  ck_assert_mem_eq(c->data, UNK_DATA, sizeof UNK_DATA);
  ck_assert_ptr_null(giop_sc_find(l, 77));
}

static void enc_init(cdr_out *o, int minor, int le)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)le;
  op.giop_minor = (uint8_t)minor;
  ck_assert_int_eq(cdr_out_init(o, &op), CDR_OK);
}

/* End O, compare with T, close O. */
static void enc_check(cdr_out *o, const tu_buf *t)
{
  ck_assert_int_eq(giop_end(o), CDR_OK);
  TU_ASSERT_BYTES(cdr_out_data(o), cdr_out_size(o), t->b, t->n);
  cdr_out_close(o);
}

/* Parse T (a heap copy of exactly its octets, kept in *COPY for the
 * caller to free) and check the GIOP header fields. */
static int parse_copy(giop_message *m, const tu_buf *t, cdr_arena *a, uint8_t **copy)
{
  *copy = tu_dup(t->b, t->n);
  return giop_parse(m, *copy, t->n, NULL, a);
}

static void assert_hdr(const giop_message *m, int minor, int le, int type, size_t len)
{
  ck_assert_uint_eq(m->hdr.major, 1);
  ck_assert_uint_eq(m->hdr.minor, minor);
  ck_assert_uint_eq(m->hdr.flags, le);
  ck_assert_uint_eq(m->hdr.type, type);
  ck_assert_uint_eq(m->hdr.size, len - 12);
  ck_assert_int_eq(cdr_in_byte_order(&m->body), le);
}

/* A small IOR's octets (type_id, one TaggedProfile) in byte order LE, laid
 * out relative to a 4-aligned start. */
static void xb_ior(tu_buf *t, int le)
{
  t->n = 0;
  xb_str(t, le, "IDL:Echo:1.0");
  xb_u32(t, le, 1);
  xb_u32(t, le, 0); /* TAG_INTERNET_IOP */
  static const uint8_t pd[6] = { 1, 0, 1, 2, 0xaa, 0xbb };
  xb_oct(t, le, pd, sizeof pd);
}

#define ASSERT_MSG_ERR(m, rc, code, off)                                                    \
  do {                                                                                      \
    ck_assert_msg((rc) == (code), "status %d (%s), want %d", (rc),                          \
                  cdr_in_error_message(&(m)->body), (int)(code));                           \
    ck_assert_int_eq(cdr_in_status(&(m)->body), (code));                                    \
    ck_assert_msg(cdr_in_error_offset(&(m)->body) == (size_t)(off),                         \
                  "error offset %zu, want %zu", cdr_in_error_offset(&(m)->body), (size_t)(off)); \
    ck_assert_str_ne(cdr_in_error_message(&(m)->body), "");                                 \
  } while (0)

/* ---------------------------------------------------------------- Request */

/* GIOP 1.0 / 1.1 Request: service contexts, request_id, response_expected,
 * (1.1: reserved[3]), object_key, operation, requesting_principal; the body
 * follows without 8-alignment. */
START_TEST(test_request_10_11)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 1; minor++)
      for (int body = 0; body <= 1; body++) {
        TU_CTX("Request 1.%d le=%d body=%d", minor, le, body);
        ctx2 c;
        ctx2_init(&c);
        tu_buf t;
        xb_hdr(&t, minor, le, GIOP_REQUEST);
        xb_ctx2(&t, le);
        xb_u32(&t, le, 0x01020304);
        xb_u8(&t, 1); /* response_expected */
        if (minor == 1) {
          xb_u8(&t, 0); xb_u8(&t, 0); xb_u8(&t, 0);
        }
        xb_oct(&t, le, KEY, sizeof KEY);
        xb_str(&t, le, "echo");
        xb_oct(&t, le, "pr", 2);
        size_t hdr_end = t.n;
        ck_assert_uint_eq(hdr_end, 90); /* the layout worked out by hand */
        if (body)
          xb_u32(&t, le, 42);
        xb_size(&t, le);

        giop_request_header h = { 0 };
        h.request_id = 0x01020304;
        h.response_flags = GIOP_RESPONSE_EXPECTED;
        h.target.disposition = GIOP_KEY_ADDR;
        h.target.key = KEY;
        h.target.key_len = sizeof KEY;
        h.operation = "echo";
        h.operation_len = 4;
        h.contexts = c.l;
        h.principal = (const uint8_t *)"pr";
        h.principal_len = 2;
        cdr_out o;
        enc_init(&o, minor, le);
        ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
        if (body) {
          giop_begin_body(&o);
          cdr_put_ulong(&o, 42);
        }
        enc_check(&o, &t);

        cdr_arena a;
        cdr_arena_init(&a, NULL);
        giop_message m;
        uint8_t *copy;
        ck_assert_int_eq(parse_copy(&m, &t, &a, &copy), CDR_OK);
        assert_hdr(&m, minor, le, GIOP_REQUEST, t.n);
        const giop_request_header *r = &m.u.request;
        ck_assert_uint_eq(r->request_id, 0x01020304);
        ck_assert_uint_eq(r->response_flags, GIOP_RESPONSE_EXPECTED);
        ck_assert_uint_eq(r->target.disposition, GIOP_KEY_ADDR);
        ck_assert_uint_eq(r->target.key_len, sizeof KEY);
        ck_assert_mem_eq(r->target.key, KEY, sizeof KEY);
        ck_assert_ptr_eq(r->target.key, copy + 64); /* a pointer into the message */
        ck_assert_str_eq(r->operation, "echo");
        ck_assert_uint_eq(r->operation_len, 4);
        ck_assert_uint_eq(r->principal_len, 2);
        ck_assert_mem_eq(r->principal, "pr", 2);
        assert_ctx2(&r->contexts);
        ck_assert_uint_eq(cdr_in_pos(&m.body), hdr_end); /* no 8-alignment before 1.2 */
        if (body)
          ck_assert_uint_eq(cdr_get_ulong(&m.body), 42);
        ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
        ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
        cdr_in_close(&m.body);
        cdr_arena_free(&a);
        free(copy);
      }
}
END_TEST

/* A 1.2 Request, big-endian, written out octet by octet. */
START_TEST(test_request_12_literal)
{
  static const uint8_t want[] = {
    'G', 'I', 'O', 'P', 1, 2, 0, 0, 0, 0, 0, 0x30,
    0, 0, 0, 7,                                   /* 12 request_id */
    3, 0, 0, 0,                                   /* 16 response_flags, reserved */
    0, 0, 0, 0,                                   /* 20 KeyAddr, padding */
    0, 0, 0, 4, 'E', 'c', 'h', 'o',               /* 24 object key */
    0, 0, 0, 12, 'e', 'c', 'h', 'o', '_', 's', 't', 'r', 'i', 'n', 'g', 0, /* 32 */
    0, 0, 0, 0,                                   /* 48 no service context */
    0, 0, 0, 0,                                   /* 52 body padding */
    0, 0, 0, 42                                   /* 56 body */
  };
  giop_request_header h = { 0 };
  h.request_id = 7;
  h.response_flags = GIOP_RESPONSE_EXPECTED;
  h.target.key = KEY;
  h.target.key_len = 4;
  h.operation = "echo_string";
  h.operation_len = 11;
  cdr_out o;
  enc_init(&o, 2, CDR_BIG_ENDIAN);
  ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
  giop_begin_body(&o);
  cdr_put_ulong(&o, 42);
  ck_assert_int_eq(giop_end(&o), CDR_OK);
  TU_CTX("literal 1.2 Request");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want, sizeof want);
  cdr_out_close(&o);

  /* The fast path: no service contexts, so no arena is needed at all. */
  uint8_t *copy = tu_dup(want, sizeof want);
  giop_message m;
  ck_assert_int_eq(giop_parse(&m, copy, sizeof want, NULL, NULL), CDR_OK);
  ck_assert_uint_eq(m.u.request.request_id, 7);
  ck_assert_uint_eq(m.u.request.contexts.n, 0);
  ck_assert_ptr_null(m.u.request.contexts.v);
  ck_assert_ptr_eq(m.u.request.operation, (const char *)copy + 36);
  ck_assert_uint_eq(cdr_in_pos(&m.body), 56);
  ck_assert_uint_eq(cdr_get_ulong(&m.body), 42);
  free(copy);
}
END_TEST

/* Build the 1.2 Request for target disposition DISP in T and H. */
static void req12(tu_buf *t, giop_request_header *h, ctx2 *c, tu_buf *ior, int le, int disp,
                  int with_ctx, int body)
{
  static const uint8_t prof[10] = { 0, 1, 2, 0, 0, 0, 5, 'h', 'o', 's' };
  ctx2_init(c);
  xb_ior(ior, le);
  memset(h, 0, sizeof *h);
  h->request_id = 0xA1B2C3D4u;
  h->response_flags = GIOP_RESPONSE_SYNC_WITH_SERVER;
  h->target.disposition = (uint16_t)disp;
  h->target.key = KEY;
  h->target.key_len = sizeof KEY;
  h->target.profile_tag = 0;
  h->target.profile = prof;
  h->target.profile_len = sizeof prof;
  h->target.profile_index = 3;
  h->target.ior = ior->b;
  h->target.ior_len = (uint32_t)ior->n;
  h->operation = "op";
  h->operation_len = 2;
  if (with_ctx)
    h->contexts = c->l;

  xb_hdr(t, 2, le, GIOP_REQUEST);
  xb_u32(t, le, 0xA1B2C3D4u);
  xb_u8(t, GIOP_RESPONSE_SYNC_WITH_SERVER);
  xb_u8(t, 0); xb_u8(t, 0); xb_u8(t, 0);
  xb_u16(t, le, (uint16_t)disp);
  if (disp == GIOP_KEY_ADDR) {
    xb_oct(t, le, KEY, sizeof KEY);
  } else if (disp == GIOP_PROFILE_ADDR) {
    xb_u32(t, le, 0);
    xb_oct(t, le, prof, sizeof prof);
  } else {
    xb_u32(t, le, 3);
    tu_put(t, ior->b, ior->n);
  }
  xb_str(t, le, "op");
  if (with_ctx)
    xb_ctx2(t, le);
  else
    xb_u32(t, le, 0);
  if (body) {
    xb_pad8(t);
    tu_num(t, 0, 0x1122334455667788u, 8, le);
  }
  xb_size(t, le);
}

/* GIOP 1.2 Request with each TargetAddress, with and without service
 * contexts, with and without a body (padding only when a body exists). */
START_TEST(test_request_12_targets)
{
  for (int le = 0; le <= 1; le++)
    for (int disp = 0; disp <= 2; disp++)
      for (int with_ctx = 0; with_ctx <= 1; with_ctx++)
        for (int body = 0; body <= 1; body++) {
          TU_CTX("Request 1.2 le=%d disp=%d ctx=%d body=%d", le, disp, with_ctx, body);
          tu_buf t, ior;
          giop_request_header h;
          ctx2 c;
          req12(&t, &h, &c, &ior, le, disp, with_ctx, body);
          cdr_out o;
          enc_init(&o, 2, le);
          ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
          size_t hdr_end = cdr_out_size(&o);
          if (body) {
            giop_begin_body(&o);
            ck_assert_uint_eq(cdr_out_size(&o) % 8, 0);
            cdr_put_ulonglong(&o, 0x1122334455667788u);
          }
          enc_check(&o, &t);

          cdr_arena a;
          cdr_arena_init(&a, NULL);
          giop_message m;
          uint8_t *copy;
          ck_assert_int_eq(parse_copy(&m, &t, &a, &copy), CDR_OK);
          assert_hdr(&m, 2, le, GIOP_REQUEST, t.n);
          const giop_request_header *r = &m.u.request;
          ck_assert_uint_eq(r->request_id, 0xA1B2C3D4u);
          ck_assert_uint_eq(r->response_flags, GIOP_RESPONSE_SYNC_WITH_SERVER);
          ck_assert_uint_eq(r->target.disposition, disp);
          if (disp == GIOP_KEY_ADDR) {
            ck_assert_uint_eq(r->target.key_len, sizeof KEY);
            ck_assert_mem_eq(r->target.key, KEY, sizeof KEY);
          } else if (disp == GIOP_PROFILE_ADDR) {
            ck_assert_uint_eq(r->target.profile_tag, 0);
            ck_assert_uint_eq(r->target.profile_len, 10);
            ck_assert_mem_eq(r->target.profile, h.target.profile, 10);
          } else {
            ck_assert_uint_eq(r->target.profile_index, 3);
            ck_assert_uint_eq(r->target.ior_len, ior.n);
            ck_assert_mem_eq(r->target.ior, ior.b, ior.n);
            ck_assert_ptr_eq(r->target.ior, copy + 28); /* after disposition, pad, index */
          }
          ck_assert_str_eq(r->operation, "op");
          ck_assert_uint_eq(r->operation_len, 2);
          ck_assert_uint_eq(r->principal_len, 0);
          if (with_ctx) {
            assert_ctx2(&r->contexts);
          } else {
            ck_assert_uint_eq(r->contexts.n, 0);
          }
          if (body) {
            ck_assert_uint_eq(cdr_in_pos(&m.body), (hdr_end + 7) & ~(size_t)7);
            ck_assert_uint_eq(cdr_get_ulonglong(&m.body), 0x1122334455667788u);
          } else {
            ck_assert_uint_eq(cdr_in_pos(&m.body), hdr_end);
          }
          ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
          ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
          cdr_arena_free(&a);
          free(copy);
        }
}
END_TEST

/* A 1.2 Request header that ends on 8 needs no padding before its body,
 * and one that does not end on 8 and has no body has no padding either. */
START_TEST(test_request_12_body_alignment)
{
  for (int le = 0; le <= 1; le++) {
    giop_request_header h = { 0 };
    h.target.key = KEY;
    h.target.key_len = 4;
    h.operation = "ab"; /* header: 12+4+4+2+2pad+4+4+4+3 = 39, +1 pad, count 40..43 */
    h.operation_len = 2;
    cdr_out o;
    enc_init(&o, 2, le);
    ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
    ck_assert_uint_eq(cdr_out_size(&o), 44);
    ck_assert_int_eq(giop_end(&o), CDR_OK);
    ck_assert_uint_eq(cdr_out_size(&o), 44); /* no body: no padding */
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, cdr_out_data(&o), 44, NULL, NULL), CDR_OK);
    ck_assert_uint_eq(cdr_in_pos(&m.body), 44);
    cdr_out_close(&o);

    h.operation = "abcd"; /* string 36..44, count 44..47: ends on 48 */
    h.operation_len = 4;
    enc_init(&o, 2, le);
    ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
    giop_begin_body(&o);
    ck_assert_uint_eq(cdr_out_size(&o), 48);
    cdr_put_octet(&o, 9);
    ck_assert_int_eq(giop_end(&o), CDR_OK);
    ck_assert_int_eq(giop_parse(&m, cdr_out_data(&o), cdr_out_size(&o), NULL, NULL), CDR_OK);
    ck_assert_uint_eq(cdr_in_pos(&m.body), 48);
    ck_assert_uint_eq(cdr_get_octet(&m.body), 9);
    cdr_out_close(&o);
  }
}
END_TEST

/* response_flags: 1.2 carries the octet; 1.0/1.1 carry response_expected,
 * bit 0 of the flags (SYNC_WITH_SERVER and SYNC_WITH_TARGET both expect a
 * Reply), read back as GIOP_RESPONSE_EXPECTED or 0. */
START_TEST(test_request_response_flags)
{
  static const uint8_t flags[3] = { GIOP_RESPONSE_NONE, GIOP_RESPONSE_SYNC_WITH_SERVER,
                                    GIOP_RESPONSE_EXPECTED };
  for (int minor = 0; minor <= 2; minor++)
    for (int k = 0; k < 3; k++) {
      giop_request_header h = { 0 };
      h.response_flags = flags[k];
      h.target.key = KEY;
      h.target.key_len = 1;
      h.operation = "x";
      h.operation_len = 1;
      cdr_out o;
      enc_init(&o, minor, CDR_LITTLE_ENDIAN);
      ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
      ck_assert_int_eq(giop_end(&o), CDR_OK);
      const uint8_t *d = cdr_out_data(&o);
      /* 1.0/1.1: the boolean sits right after the empty context list and
       * the request_id; 1.2: the flags octet right after the request_id. */
      uint8_t want = minor == 2 ? flags[k] : flags[k] ? 1 : 0;
      ck_assert_uint_eq(d[minor == 2 ? 16 : 20], want);
      giop_message m;
      ck_assert_int_eq(giop_parse(&m, d, cdr_out_size(&o), NULL, NULL), CDR_OK);
      ck_assert_uint_eq(m.u.request.response_flags,
                        minor == 2 ? flags[k] : flags[k] ? GIOP_RESPONSE_EXPECTED : 0);
      cdr_out_close(&o);
    }
}
END_TEST

/* ---------------------------------------------------------------- Reply */

/* Expected Reply octets with two contexts (1.0/1.1: contexts first; 1.2:
 * request_id, status, contexts, body on 8). */
static size_t xb_reply(tu_buf *t, int minor, int le, uint32_t id, uint32_t status)
{
  xb_hdr(t, minor, le, GIOP_REPLY);
  if (minor < 2) {
    xb_ctx2(t, le);
    xb_u32(t, le, id);
    xb_u32(t, le, status);
    return t->n;
  }
  xb_u32(t, le, id);
  xb_u32(t, le, status);
  xb_ctx2(t, le);
  return t->n;
}

static void reply_roundtrip(int minor, int le, uint32_t status, const tu_buf *t,
                            void (*body)(cdr_out *), giop_message *m, cdr_arena *a,
                            uint8_t **copy)
{
  ctx2 c;
  ctx2_init(&c);
  giop_reply_header h = { 77, status, c.l };
  cdr_out o;
  enc_init(&o, minor, le);
  ck_assert_int_eq(giop_begin_reply(&o, &h), CDR_OK);
  if (body) {
    giop_begin_body(&o);
    body(&o);
  }
  enc_check(&o, t);
  cdr_arena_init(a, NULL);
  ck_assert_int_eq(parse_copy(m, t, a, copy), CDR_OK);
  assert_hdr(m, minor, le, GIOP_REPLY, t->n);
  ck_assert_uint_eq(m->u.reply.request_id, 77);
  ck_assert_uint_eq(m->u.reply.reply_status, status);
  assert_ctx2(&m->u.reply.contexts);
}

static void body_u64(cdr_out *o) { cdr_put_ulonglong(o, 0x0102030405060708u); }

START_TEST(test_reply_no_exception)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++)
      for (int body = 0; body <= 1; body++) {
        TU_CTX("Reply 1.%d le=%d body=%d", minor, le, body);
        tu_buf t;
        size_t end = xb_reply(&t, minor, le, 77, GIOP_NO_EXCEPTION);
        /* 1.2: 12+4+4 then the contexts end at 59: the body goes to 64;
         * 1.0/1.1: the contexts end at 51, request_id and status at 60. */
        ck_assert_uint_eq(end, minor == 2 ? 59 : 60);
        if (body) {
          if (minor == 2)
            xb_pad8(&t);
          tu_num(&t, 0, 0x0102030405060708u, 8, le); /* 1.0/1.1: aligned on 8 anyway */
        }
        xb_size(&t, le);
        giop_message m;
        cdr_arena a;
        uint8_t *copy;
        reply_roundtrip(minor, le, GIOP_NO_EXCEPTION, &t, body ? body_u64 : NULL, &m, &a, &copy);
        ck_assert_uint_eq(cdr_in_pos(&m.body), minor < 2 ? 60 : body ? 64 : 59);
        if (body)
          ck_assert_uint_eq(cdr_get_ulonglong(&m.body), 0x0102030405060708u);
        ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
        ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
        cdr_arena_free(&a);
        free(copy);
      }
}
END_TEST

static void body_user_ex(cdr_out *o)
{
  cdr_put_string(o, "IDL:Test/Oops:1.0");
  cdr_put_long(o, -5);
}

START_TEST(test_reply_user_exception)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++) {
      TU_CTX("USER_EXCEPTION 1.%d le=%d", minor, le);
      tu_buf t;
      size_t end = xb_reply(&t, minor, le, 77, GIOP_USER_EXCEPTION);
      if (minor == 2)
        xb_pad8(&t);
      size_t body_at = minor == 2 ? 64 : end;
      xb_str(&t, le, "IDL:Test/Oops:1.0");
      xb_u32(&t, le, (uint32_t)-5);
      xb_size(&t, le);
      giop_message m;
      cdr_arena a;
      uint8_t *copy;
      reply_roundtrip(minor, le, GIOP_USER_EXCEPTION, &t, body_user_ex, &m, &a, &copy);
      ck_assert_uint_eq(cdr_in_pos(&m.body), body_at);
      const char *id;
      uint32_t idl;
      ck_assert_int_eq(cdr_get_string_view(&m.body, &id, &idl), CDR_OK);
      ck_assert_str_eq(id, "IDL:Test/Oops:1.0");
      ck_assert_int_eq(cdr_get_long(&m.body), -5);
      ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
      cdr_arena_free(&a);
      free(copy);
    }
}
END_TEST

static void body_sys_ex(cdr_out *o)
{
  giop_system_exception e = { giop_system_exception_id("MARSHAL"), GIOP_OMGVMCID | 4,
                              GIOP_COMPLETED_MAYBE };
  giop_put_system_exception(o, &e);
}

START_TEST(test_reply_system_exception)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++) {
      TU_CTX("SYSTEM_EXCEPTION 1.%d le=%d", minor, le);
      tu_buf t;
      size_t end = xb_reply(&t, minor, le, 77, GIOP_SYSTEM_EXCEPTION);
      if (minor == 2)
        xb_pad8(&t);
      size_t body_at = minor == 2 ? 64 : end;
      xb_str(&t, le, "IDL:omg.org/CORBA/MARSHAL:1.0");
      xb_u32(&t, le, 0x4f4d0004u);
      xb_u32(&t, le, 2); /* COMPLETED_MAYBE */
      xb_size(&t, le);
      giop_message m;
      cdr_arena a;
      uint8_t *copy;
      reply_roundtrip(minor, le, GIOP_SYSTEM_EXCEPTION, &t, body_sys_ex, &m, &a, &copy);
      ck_assert_uint_eq(cdr_in_pos(&m.body), body_at);
      giop_system_exception e = { NULL, 0, 0 };
      ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
      ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/MARSHAL:1.0");
      ck_assert_ptr_eq(e.repo_id, (const char *)copy + body_at + 4);
      ck_assert_uint_eq(e.minor, GIOP_OMGVMCID | 4);
      ck_assert_uint_eq(e.completed, GIOP_COMPLETED_MAYBE);
      ck_assert_str_eq(giop_system_exception_name(e.repo_id, strlen(e.repo_id)), "MARSHAL");
      ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
      cdr_arena_free(&a);
      free(copy);
    }
}
END_TEST

/* LOCATION_FORWARD (every version) and LOCATION_FORWARD_PERM (1.2): the
 * body is an IOR; check where it starts and that it reads. */
static int fwd_le;
static void body_ior(cdr_out *o)
{
  tu_buf ior;
  xb_ior(&ior, fwd_le);
  cdr_put_raw(o, ior.b, ior.n);
}

START_TEST(test_reply_location_forward)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++)
      for (uint32_t st = GIOP_LOCATION_FORWARD; st <= (minor == 2 ? GIOP_LOCATION_FORWARD_PERM
                                                                   : GIOP_LOCATION_FORWARD); st++) {
        TU_CTX("LOCATION_FORWARD%s 1.%d le=%d", st == 4 ? "_PERM" : "", minor, le);
        tu_buf t, ior;
        size_t end = xb_reply(&t, minor, le, 77, st);
        if (minor == 2)
          xb_pad8(&t);
        else
          tu_pad(&t, 0, 4);
        size_t body_at = t.n;
        ck_assert_uint_eq(body_at, minor == 2 ? 64 : 60);
        (void)end;
        xb_ior(&ior, le);
        tu_put(&t, ior.b, ior.n);
        xb_size(&t, le);
        fwd_le = le;
        giop_message m;
        cdr_arena a;
        uint8_t *copy;
        reply_roundtrip(minor, le, st, &t, body_ior, &m, &a, &copy);
        ck_assert_uint_eq(cdr_in_pos(&m.body), minor == 2 ? 64 : 60);
        const char *id;
        uint32_t idl;
        ck_assert_int_eq(cdr_get_string_view(&m.body, &id, &idl), CDR_OK);
        ck_assert_str_eq(id, "IDL:Echo:1.0");
        ck_assert_uint_eq(cdr_get_ulong(&m.body), 1);
        cdr_arena_free(&a);
        free(copy);
      }
}
END_TEST

static void body_short1(cdr_out *o) { cdr_put_short(o, GIOP_PROFILE_ADDR); }

/* NEEDS_ADDRESSING_MODE (1.2): the body is a short AddressingDisposition. */
START_TEST(test_reply_needs_addressing_mode)
{
  for (int le = 0; le <= 1; le++) {
    tu_buf t;
    xb_reply(&t, 2, le, 77, GIOP_NEEDS_ADDRESSING_MODE);
    xb_pad8(&t);
    xb_u16(&t, le, GIOP_PROFILE_ADDR);
    xb_size(&t, le);
    TU_CTX("NEEDS_ADDRESSING_MODE le=%d", le);
    giop_message m;
    cdr_arena a;
    uint8_t *copy;
    reply_roundtrip(2, le, GIOP_NEEDS_ADDRESSING_MODE, &t, body_short1, &m, &a, &copy);
    ck_assert_uint_eq(cdr_in_pos(&m.body), 64);
    ck_assert_int_eq(cdr_get_short(&m.body), GIOP_PROFILE_ADDR);
    ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
    cdr_arena_free(&a);
    free(copy);
  }
}
END_TEST

/* A 1.2 Reply without contexts ends on 24: no padding, body or not. */
START_TEST(test_reply_12_no_contexts)
{
  for (int le = 0; le <= 1; le++) {
    tu_buf t;
    xb_hdr(&t, 2, le, GIOP_REPLY);
    xb_u32(&t, le, 5);
    xb_u32(&t, le, GIOP_NO_EXCEPTION);
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    TU_CTX("empty 1.2 Reply le=%d", le);
    giop_reply_header h = { 5, GIOP_NO_EXCEPTION, { 0, NULL } };
    cdr_out o;
    enc_init(&o, 2, le);
    ck_assert_int_eq(giop_begin_reply(&o, &h), CDR_OK);
    enc_check(&o, &t);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, t.b, t.n, NULL, NULL), CDR_OK);
    ck_assert_uint_eq(m.u.reply.contexts.n, 0);
    ck_assert_uint_eq(cdr_in_pos(&m.body), 24);
  }
}
END_TEST

/* ---------------------------------------------------------------- other messages */

START_TEST(test_cancel_request)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++) {
      tu_buf t;
      xb_hdr(&t, minor, le, GIOP_CANCEL_REQUEST);
      xb_u32(&t, le, 0xDEADBEEFu);
      xb_size(&t, le);
      TU_CTX("CancelRequest 1.%d le=%d", minor, le);
      cdr_out o;
      enc_init(&o, minor, le);
      ck_assert_int_eq(giop_begin_cancel_request(&o, 0xDEADBEEFu), CDR_OK);
      enc_check(&o, &t);
      giop_message m;
      uint8_t *copy;
      ck_assert_int_eq(parse_copy(&m, &t, NULL, &copy), CDR_OK);
      assert_hdr(&m, minor, le, GIOP_CANCEL_REQUEST, 16);
      ck_assert_uint_eq(m.u.cancel_request_id, 0xDEADBEEFu);
      ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
      free(copy);
    }
}
END_TEST

START_TEST(test_close_connection_and_message_error)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++)
      for (int type = GIOP_CLOSE_CONNECTION; type <= GIOP_MESSAGE_ERROR; type++) {
        const uint8_t want[12] = { 'G', 'I', 'O', 'P', 1, (uint8_t)minor, (uint8_t)le,
                                   (uint8_t)type, 0, 0, 0, 0 };
        TU_CTX("%s 1.%d le=%d", giop_msg_type_name(type), minor, le);
        cdr_out o;
        enc_init(&o, minor, le);
        ck_assert_int_eq(type == GIOP_CLOSE_CONNECTION ? giop_begin_close_connection(&o)
                                                       : giop_begin_message_error(&o),
                         CDR_OK);
        ck_assert_int_eq(giop_end(&o), CDR_OK);
        TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want, 12);
        cdr_out_close(&o);
        giop_message m;
        uint8_t *copy = tu_dup(want, 12);
        ck_assert_int_eq(giop_parse(&m, copy, 12, NULL, NULL), CDR_OK);
        assert_hdr(&m, minor, le, type, 12);
        ck_assert_uint_eq(cdr_in_pos(&m.body), 12);
        ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
        free(copy);
      }
}
END_TEST

START_TEST(test_locate_request)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++)
      for (int disp = 0; disp <= (minor == 2 ? 2 : 0); disp++) {
        TU_CTX("LocateRequest 1.%d le=%d disp=%d", minor, le, disp);
        tu_buf t, ior;
        xb_ior(&ior, le);
        static const uint8_t prof[3] = { 1, 2, 3 };
        giop_locate_request_header h;
        memset(&h, 0, sizeof h);
        h.request_id = 4;
        h.target.disposition = (uint16_t)disp;
        h.target.key = KEY;
        h.target.key_len = sizeof KEY;
        h.target.profile_tag = 0x10;
        h.target.profile = prof;
        h.target.profile_len = 3;
        h.target.profile_index = 0;
        h.target.ior = ior.b;
        h.target.ior_len = (uint32_t)ior.n;
        xb_hdr(&t, minor, le, GIOP_LOCATE_REQUEST);
        xb_u32(&t, le, 4);
        if (minor < 2) {
          xb_oct(&t, le, KEY, sizeof KEY);
        } else {
          xb_u16(&t, le, (uint16_t)disp);
          if (disp == 0) {
            xb_oct(&t, le, KEY, sizeof KEY);
          } else if (disp == 1) {
            xb_u32(&t, le, 0x10);
            xb_oct(&t, le, prof, 3);
          } else {
            xb_u32(&t, le, 0);
            tu_put(&t, ior.b, ior.n);
          }
        }
        xb_size(&t, le);
        cdr_out o;
        enc_init(&o, minor, le);
        ck_assert_int_eq(giop_begin_locate_request(&o, &h), CDR_OK);
        enc_check(&o, &t);
        giop_message m;
        uint8_t *copy;
        ck_assert_int_eq(parse_copy(&m, &t, NULL, &copy), CDR_OK);
        assert_hdr(&m, minor, le, GIOP_LOCATE_REQUEST, t.n);
        const giop_locate_request_header *r = &m.u.locate_request;
        ck_assert_uint_eq(r->request_id, 4);
        ck_assert_uint_eq(r->target.disposition, disp);
        if (disp == 0) {
          ck_assert_uint_eq(r->target.key_len, sizeof KEY);
          ck_assert_mem_eq(r->target.key, KEY, sizeof KEY);
          ck_assert_ptr_eq(r->target.key, copy + (minor == 2 ? 24 : 20));
        } else if (disp == 1) {
          ck_assert_uint_eq(r->target.profile_tag, 0x10);
          ck_assert_uint_eq(r->target.profile_len, 3);
          ck_assert_mem_eq(r->target.profile, prof, 3);
        } else {
          ck_assert_uint_eq(r->target.profile_index, 0);
          ck_assert_uint_eq(r->target.ior_len, ior.n);
          ck_assert_mem_eq(r->target.ior, ior.b, ior.n);
        }
        ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
        free(copy);
      }
}
END_TEST

/* LocateReply: request_id, locate_status; a body (1.0/1.1 OBJECT_FORWARD: an
 * IOR; 1.2 also LOC_SYSTEM_EXCEPTION, LOC_NEEDS_ADDRESSING_MODE) follows the
 * header immediately, at 20, not on 8: CORBA 3.0 15.4.6.2 "LocateReply
 * bodies are marshaled immediately following the LocateReply header", as
 * TAO, omniORB and the Java ORB do. */
START_TEST(test_locate_reply)
{
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++)
      for (uint32_t st = 0; st <= (minor == 2 ? 5u : 2u); st++) {
        TU_CTX("LocateReply 1.%d le=%d status=%u", minor, le, st);
        tu_buf t, ior;
        xb_ior(&ior, le);
        xb_hdr(&t, minor, le, GIOP_LOCATE_REPLY);
        xb_u32(&t, le, 9);
        xb_u32(&t, le, st);
        ck_assert_uint_eq(t.n, 20);
        cdr_out o;
        enc_init(&o, minor, le);
        giop_locate_reply_header h = { 9, st };
        ck_assert_int_eq(giop_begin_locate_reply(&o, &h), CDR_OK);
        if (st == GIOP_OBJECT_FORWARD || st == GIOP_OBJECT_FORWARD_PERM) {
          tu_put(&t, ior.b, ior.n);
          cdr_put_raw(&o, ior.b, ior.n);
        } else if (st == GIOP_LOC_SYSTEM_EXCEPTION) {
          xb_str(&t, le, "IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0");
          xb_u32(&t, le, GIOP_OMGVMCID | 1);
          xb_u32(&t, le, GIOP_COMPLETED_NO);
          giop_system_exception e = { "IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0",
                                      GIOP_OMGVMCID | 1, GIOP_COMPLETED_NO };
          giop_put_system_exception(&o, &e);
        } else if (st == GIOP_LOC_NEEDS_ADDRESSING_MODE) {
          xb_u16(&t, le, GIOP_REFERENCE_ADDR);
          cdr_put_short(&o, GIOP_REFERENCE_ADDR);
        }
        xb_size(&t, le);
        enc_check(&o, &t);
        giop_message m;
        uint8_t *copy;
        ck_assert_int_eq(parse_copy(&m, &t, NULL, &copy), CDR_OK);
        assert_hdr(&m, minor, le, GIOP_LOCATE_REPLY, t.n);
        ck_assert_uint_eq(m.u.locate_reply.request_id, 9);
        ck_assert_uint_eq(m.u.locate_reply.locate_status, st);
        ck_assert_uint_eq(cdr_in_pos(&m.body), 20);
        if (st == GIOP_OBJECT_FORWARD || st == GIOP_OBJECT_FORWARD_PERM) {
          const char *id;
          uint32_t idl;
          ck_assert_int_eq(cdr_get_string_view(&m.body, &id, &idl), CDR_OK);
          ck_assert_str_eq(id, "IDL:Echo:1.0");
        } else if (st == GIOP_LOC_SYSTEM_EXCEPTION) {
          giop_system_exception e;
          ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
          ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0");
          ck_assert_uint_eq(e.minor, GIOP_OMGVMCID | 1);
          ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
        } else if (st == GIOP_LOC_NEEDS_ADDRESSING_MODE) {
          ck_assert_int_eq(cdr_get_short(&m.body), GIOP_REFERENCE_ADDR);
        } else {
          ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
        }
        free(copy);
      }
}
END_TEST

/* ---------------------------------------------------------------- encoder misuse */

START_TEST(test_encode_rejects)
{
  tu_buf ior;
  xb_ior(&ior, CDR_HOST_ORDER);
  for (int minor = 0; minor <= 1; minor++) {
    /* 1.0/1.1 carry only an object key. */
    for (int disp = 1; disp <= 2; disp++) {
      giop_request_header h = { 0 };
      h.operation = "x";
      h.operation_len = 1;
      h.target.disposition = (uint16_t)disp;
      h.target.ior = ior.b;
      h.target.ior_len = (uint32_t)ior.n;
      cdr_out o;
      enc_init(&o, minor, 0);
      ck_assert_int_eq(giop_begin_request(&o, &h), CDR_E_INVALID);
      ck_assert_uint_eq(cdr_out_size(&o), 0); /* nothing written */
      ck_assert_int_eq(giop_end(&o), CDR_E_INVALID);
      cdr_out_close(&o);
      giop_locate_request_header lh = { 1, h.target };
      enc_init(&o, minor, 0);
      ck_assert_int_eq(giop_begin_locate_request(&o, &lh), CDR_E_INVALID);
      cdr_out_close(&o);
    }
    giop_reply_header rh = { 1, GIOP_LOCATION_FORWARD_PERM, { 0, NULL } };
    cdr_out o;
    enc_init(&o, minor, 0);
    ck_assert_int_eq(giop_begin_reply(&o, &rh), CDR_E_INVALID);
    cdr_out_close(&o);
    giop_locate_reply_header lr = { 1, GIOP_OBJECT_FORWARD_PERM };
    enc_init(&o, minor, 0);
    ck_assert_int_eq(giop_begin_locate_reply(&o, &lr), CDR_E_INVALID);
    cdr_out_close(&o);
  }
  cdr_out o;
  giop_reply_header rh = { 1, 6, { 0, NULL } };
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_reply(&o, &rh), CDR_E_INVALID);
  cdr_out_close(&o);
  giop_locate_reply_header lr = { 1, 6 };
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_locate_reply(&o, &lr), CDR_E_INVALID);
  cdr_out_close(&o);
  /* Unknown disposition, missing operation, an IOR too short to be one, a
   * context list without its array. */
  giop_request_header h = { 0 };
  h.operation = "x";
  h.operation_len = 1;
  h.target.disposition = 3;
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_request(&o, &h), CDR_E_INVALID);
  cdr_out_close(&o);
  h.target.disposition = GIOP_REFERENCE_ADDR;
  h.target.ior = ior.b;
  h.target.ior_len = 4;
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_request(&o, &h), CDR_E_INVALID);
  cdr_out_close(&o);
  h.target.disposition = GIOP_KEY_ADDR;
  h.operation = NULL;
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_request(&o, &h), CDR_E_INVALID);
  cdr_out_close(&o);
  h.operation = "x";
  h.contexts.n = 1;
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_begin_request(&o, &h), CDR_E_INVALID);
  cdr_out_close(&o);
  /* The stream must be empty; giop_end needs a header. */
  enc_init(&o, 2, 0);
  cdr_put_octet(&o, 1);
  ck_assert_int_eq(giop_begin_cancel_request(&o, 1), CDR_E_STATE);
  cdr_out_close(&o);
  enc_init(&o, 2, 0);
  ck_assert_int_eq(giop_end(&o), CDR_E_STATE);
  cdr_out_close(&o);
  /* A system exception needs an ID and a completion status 0..2. */
  giop_system_exception e = { "IDL:omg.org/CORBA/UNKNOWN:1.0", 0, 3 };
  enc_init(&o, 2, 0);
  giop_put_system_exception(&o, &e);
  ck_assert_int_eq(cdr_out_status(&o), CDR_E_INVALID);
  cdr_out_close(&o);
  /* A failed stream stays failed. */
  enc_init(&o, 2, 0);
  cdr_out_fail(&o, CDR_E_NOMEM, "test: out of memory");
  ck_assert_int_eq(giop_begin_message_error(&o), CDR_E_NOMEM);
  ck_assert_int_eq(giop_end(&o), CDR_E_NOMEM);
  cdr_out_close(&o);
}
END_TEST

/* Into a caller's fixed buffer too small for the header: the stream's
 * CDR_E_LIMIT, no overflow. */
START_TEST(test_encode_fixed_buffer_limit)
{
  uint8_t buf[20];
  for (size_t cap = 0; cap <= sizeof buf; cap++) {
    cdr_out o;
    cdr_opts op;
    cdr_opts_default(&op);
    ck_assert_int_eq(cdr_out_init_buffer(&o, &op, buf, cap), CDR_OK);
    int rc = giop_begin_cancel_request(&o, 1);
    if (cap >= 16) {
      ck_assert_int_eq(rc, CDR_OK);
      ck_assert_int_eq(giop_end(&o), CDR_OK);
    } else {
      ck_assert_int_eq(rc, CDR_E_LIMIT);
      ck_assert_int_eq(giop_end(&o), CDR_E_LIMIT);
    }
    cdr_out_close(&o);
  }
}
END_TEST

/* ---------------------------------------------------------------- parse rejects */

/* Header problems are CDR_E_PROTOCOL (a MessageError): the 12 octets,
 * message_size against the length given, fragments not reassembled. */
START_TEST(test_parse_header_rejects)
{
  tu_buf t;
  xb_hdr(&t, 2, 1, GIOP_CANCEL_REQUEST);
  xb_u32(&t, 1, 3);
  xb_size(&t, 1);
  giop_message m;
  ck_assert_int_eq(giop_parse(&m, t.b, t.n, NULL, NULL), CDR_OK);
  /* Every length but the right one. */
  for (size_t n = 0; n <= t.n + 4 && n <= sizeof t.b; n++) {
    if (n == t.n)
      continue;
    int rc = giop_parse(&m, t.b, n, NULL, NULL);
    ck_assert_int_eq(rc, CDR_E_PROTOCOL);
    ck_assert_int_eq(cdr_in_status(&m.body), CDR_E_PROTOCOL);
  }
  struct { size_t at; uint8_t v; } bad[] = {
    { 0, 'g' }, { 3, 'Q' }, { 4, 2 }, { 5, 3 }, { 6, 4 }, { 6, 0x80 }, { 7, 8 }, { 7, 0xff },
    { 6, 3 },            /* more fragments: reassemble first */
    { 7, GIOP_FRAGMENT } /* a Fragment on its own */
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    uint8_t b[16];
    memcpy(b, t.b, 16);
    b[bad[k].at] = bad[k].v;
    ck_assert_msg(giop_parse(&m, b, 16, NULL, NULL) == CDR_E_PROTOCOL, "case %zu", k);
  }
  /* GIOP 1.0 byte_order octet 2; a huge message_size. */
  uint8_t b[16];
  memcpy(b, t.b, 16);
  b[5] = 0;
  b[6] = 2;
  ck_assert_int_eq(giop_parse(&m, b, 16, NULL, NULL), CDR_E_PROTOCOL);
  memcpy(b, t.b, 16);
  b[8] = b[9] = b[10] = b[11] = 0xff;
  ck_assert_int_eq(giop_parse(&m, b, 16, NULL, NULL), CDR_E_PROTOCOL);
  /* Bad options are the caller's: CDR_E_INVALID. */
  cdr_opts op;
  cdr_opts_default(&op);
  op.tcs_c = 12345;
  ck_assert_int_eq(giop_parse(&m, t.b, t.n, &op, NULL), CDR_E_INVALID);
  ck_assert_int_eq(giop_parse(&m, NULL, 16, NULL, NULL), CDR_E_INVALID);
}
END_TEST

/* A valid 1.2 Request head (KeyAddr "Echo") up to the operation; the
 * caller appends the rest. */
static void req12_head(tu_buf *t, int le, uint16_t disp)
{
  xb_hdr(t, 2, le, GIOP_REQUEST);
  xb_u32(t, le, 1);
  xb_u8(t, 3);
  xb_u8(t, 0); xb_u8(t, 0); xb_u8(t, 0);
  xb_u16(t, le, disp);
}

/* Message-header problems: the body stream's MARSHAL-class error, at the
 * offset of the faulty field. */
START_TEST(test_parse_field_rejects)
{
  for (int le = 0; le <= 1; le++) {
    giop_message m;
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    tu_buf t;
    int rc;

    /* Unknown TargetAddress disposition, at 20. */
    req12_head(&t, le, 3);
    xb_oct(&t, le, "Echo", 4);
    xb_str(&t, le, "op");
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_VALUE, 20);
    ck_assert_str_eq(cdr_status_exception(rc), "MARSHAL");

    /* Object key longer than the message, at 24. */
    req12_head(&t, le, 0);
    xb_u32(&t, le, 0x7ffffff0u);
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_LENGTH, 24);

    /* Operation without its NUL; operation of length 0. */
    req12_head(&t, le, 0);
    xb_oct(&t, le, "Echo", 4);
    xb_oct(&t, le, "op", 2);
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_STRING, 32);
    req12_head(&t, le, 0);
    xb_oct(&t, le, "Echo", 4);
    xb_u32(&t, le, 0);
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_STRING, 32);

    /* Service context count far beyond the octets (each context takes 8
     * at least): CDR_E_LENGTH at the count, nothing allocated. */
    for (uint32_t cnt = 2; cnt != 0; cnt = cnt == 2 ? 0x10000000u : cnt == 0x10000000u ? 0xffffffffu : 0) {
      req12_head(&t, le, 0);
      xb_oct(&t, le, "Echo", 4);
      xb_str(&t, le, "op");
      xb_u32(&t, le, cnt); /* at 40 */
      xb_u32(&t, le, 1);
      xb_u32(&t, le, 0);   /* one context of 8 octets: 2 do not fit */
      xb_size(&t, le);
      cdr_arena_reset(&a);
      rc = giop_parse(&m, t.b, t.n, NULL, &a);
      ASSERT_MSG_ERR(&m, rc, CDR_E_LENGTH, 40);
      ck_assert_uint_eq(cdr_arena_used(&a), 0);
    }
    /* ... and against the configured maximum (which bounds the 1-octet
     * key too: the count is at 40 all the same). */
    {
      req12_head(&t, le, 0);
      xb_oct(&t, le, "E", 1);
      xb_str(&t, le, "op");
      xb_u32(&t, le, 2);
      for (int k = 0; k < 2; k++) {
        xb_u32(&t, le, (uint32_t)k);
        xb_u32(&t, le, 0);
      }
      xb_size(&t, le);
      cdr_opts op;
      cdr_opts_default(&op);
      op.max_seq = 1;
      cdr_arena_reset(&a);
      rc = giop_parse(&m, t.b, t.n, &op, &a);
      ASSERT_MSG_ERR(&m, rc, CDR_E_LIMIT, 40);
      ck_assert_uint_eq(cdr_arena_used(&a), 0);
      /* Contexts but no arena: a misuse, reported. */
      rc = giop_parse(&m, t.b, t.n, NULL, NULL);
      ck_assert_int_eq(rc, CDR_E_STATE);
      /* The arena refuses: CDR_E_NOMEM. */
      cdr_arena b;
      cdr_arena_init(&b, NULL);
      cdr_arena_set_max(&b, 8);
      rc = giop_parse(&m, t.b, t.n, NULL, &b);
      ck_assert_int_eq(rc, CDR_E_NOMEM);
      cdr_arena_free(&b);
      rc = giop_parse(&m, t.b, t.n, NULL, &a);
      ck_assert_int_eq(rc, CDR_OK);
      ck_assert_uint_eq(m.u.request.contexts.n, 2);
      ck_assert_uint_eq(m.u.request.contexts.v[1].id, 1);
      ck_assert_uint_eq(m.u.request.contexts.v[1].len, 0);
    }
    /* A context's data longer than what remains. */
    req12_head(&t, le, 0);
    xb_oct(&t, le, "Echo", 4);
    xb_str(&t, le, "op");
    xb_u32(&t, le, 1);
    xb_u32(&t, le, 1);
    xb_u32(&t, le, 5); /* at 48 */
    tu_put(&t, "abcd", 4);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_LENGTH, 48);

    /* ReferenceAddr: an IOR whose profile count cannot fit, at 36. */
    req12_head(&t, le, 2);
    xb_u32(&t, le, 0);
    xb_str(&t, le, "");
    xb_u32(&t, le, 1000);
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_LENGTH, 36);

    /* 1.0 response_expected octet 2 (at 20, after the context count and the
     * request_id). */
    xb_hdr(&t, 0, le, GIOP_REQUEST);
    xb_u32(&t, le, 0);
    xb_u32(&t, le, 1);
    xb_u8(&t, 2);
    xb_oct(&t, le, "k", 1);
    xb_str(&t, le, "op");
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ASSERT_MSG_ERR(&m, rc, CDR_E_VALUE, 20);

    /* Reply status beyond the version's enum: 1.2 at 16, 1.0/1.1 at 20. */
    for (int minor = 0; minor <= 2; minor++) {
      uint32_t bad = minor == 2 ? 6 : 4;
      xb_hdr(&t, minor, le, GIOP_REPLY);
      if (minor < 2)
        xb_u32(&t, le, 0);
      xb_u32(&t, le, 1);
      xb_u32(&t, le, bad);
      if (minor == 2)
        xb_u32(&t, le, 0);
      xb_size(&t, le);
      rc = giop_parse(&m, t.b, t.n, NULL, &a);
      ASSERT_MSG_ERR(&m, rc, CDR_E_VALUE, minor == 2 ? 16 : 20);
      tu_store(t.b + (minor == 2 ? 16 : 20), bad - 1, 4, le);
      ck_assert_int_eq(giop_parse(&m, t.b, t.n, NULL, &a), CDR_OK);
      /* LocateReply likewise: 1.2 above 5, 1.0/1.1 above 2, at 16. */
      bad = minor == 2 ? 6 : 3;
      xb_hdr(&t, minor, le, GIOP_LOCATE_REPLY);
      xb_u32(&t, le, 1);
      xb_u32(&t, le, bad);
      xb_size(&t, le);
      rc = giop_parse(&m, t.b, t.n, NULL, &a);
      ASSERT_MSG_ERR(&m, rc, CDR_E_VALUE, 16);
    }

    /* A 1.2 Reply whose body is shorter than its padding. */
    xb_hdr(&t, 2, le, GIOP_REPLY);
    xb_u32(&t, le, 1);
    xb_u32(&t, le, 0);
    xb_u32(&t, le, 1);
    xb_u32(&t, le, 9);
    xb_oct(&t, le, "z", 1); /* ends at 33: the body would start at 40 */
    xb_u8(&t, 0);
    xb_size(&t, le);
    rc = giop_parse(&m, t.b, t.n, NULL, &a);
    ck_assert_int_eq(rc, CDR_E_SHORT);
    cdr_arena_free(&a);
  }
}
END_TEST

START_TEST(test_get_system_exception_rejects)
{
  for (int le = 0; le <= 1; le++) {
    tu_buf t;
    t.n = 0;
    xb_str(&t, le, "IDL:omg.org/CORBA/TRANSIENT:1.0");
    xb_u32(&t, le, 1);
    xb_u32(&t, le, 3); /* completion status 3, at 40 */
    cdr_in i;
    cdr_in_init(&i, t.b, t.n, le, NULL);
    giop_system_exception e = { "untouched", 7, 1 };
    ck_assert_int_eq(giop_get_system_exception(&i, &e), CDR_E_VALUE);
    ck_assert_uint_eq(cdr_in_error_offset(&i), 40);
    ck_assert_str_eq(e.repo_id, "untouched");
    ck_assert_uint_eq(e.minor, 7);
    for (size_t n = 0; n < t.n; n++) {
      cdr_in_init(&i, t.b, n, le, NULL);
      ck_assert_int_lt(giop_get_system_exception(&i, &e), 0);
      ck_assert_str_eq(e.repo_id, "untouched");
    }
  }
}
END_TEST

/* ---------------------------------------------- C17 (docs/hostile-input.md) */

/* The C17 Reply (little-endian GIOP 1.2, USER_EXCEPTION, one context of 12
 * data octets so that the list ends at 44).  PAD: the 4 octets of padding
 * before the body at 48 (NULL: none, the repository ID at 44). */
static size_t c17_reply(uint8_t *b, const uint8_t *pad, uint32_t idlen_override)
{
  static const uint8_t head[44] = {
    'G', 'I', 'O', 'P', 1, 2, 1, 1, 0, 0, 0, 0,
    5, 0, 0, 0,                         /* 12 request_id */
    1, 0, 0, 0,                         /* 16 USER_EXCEPTION */
    1, 0, 0, 0,                         /* 20 one service context */
    0x78, 0x56, 0x34, 0x12,             /* 24 its id */
    12, 0, 0, 0,                        /* 28 12 octets of data */
    1, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h' /* 32..43 */
  };
  size_t n = 0;
  memcpy(b, head, 44);
  n = 44;
  if (pad) {
    memcpy(b + n, pad, 4);
    n += 4;
  }
  static const char id[] = "IDL:Test/Oops:1.0"; /* 18 octets with its NUL */
  uint32_t l = idlen_override ? idlen_override : sizeof id;
  tu_store(b + n, l, 4, 1);
  memcpy(b + n + 4, id, sizeof id);
  n += 4 + sizeof id;
  while (n % 4)
    b[n++] = 0;
  tu_store(b + n, 7, 4, 1); /* the exception's one member, a ulong */
  n += 4;
  tu_store(b + 8, n - 12, 4, 1);
  return n;
}

START_TEST(test_c17_a_padding_before_user_exception)
{
  /* Padding is whatever the sender left there: zero or not (docs/wire-notes.md). */
  static const uint8_t pads[2][4] = { { 0, 0, 0, 0 }, { 0xde, 0xad, 0xbe, 0xef } };
  for (int k = 0; k < 2; k++) {
    uint8_t b[128];
    size_t n = c17_reply(b, pads[k], 0);
    ck_assert_uint_eq(n, 76);
    uint8_t *copy = tu_dup(b, n);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, copy, n, NULL, &a), CDR_OK);
    ck_assert_uint_eq(m.u.reply.reply_status, GIOP_USER_EXCEPTION);
    ck_assert_uint_eq(m.u.reply.contexts.n, 1);
    ck_assert_uint_eq(m.u.reply.contexts.v[0].id, 0x12345678u);
    ck_assert_uint_eq(m.u.reply.contexts.v[0].len, 12);
    ck_assert_ptr_eq(m.u.reply.contexts.v[0].data, copy + 32);
    ck_assert_uint_eq(cdr_in_pos(&m.body), 48);
    const char *id;
    uint32_t idl;
    ck_assert_int_eq(cdr_get_string_view(&m.body, &id, &idl), CDR_OK);
    ck_assert_str_eq(id, "IDL:Test/Oops:1.0");
    ck_assert_uint_eq(cdr_get_ulong(&m.body), 7);
    ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
    cdr_arena_free(&a);
    free(copy);
  }
}
END_TEST

START_TEST(test_c17_b_no_padding_is_marshal)
{
  uint8_t b[128];
  size_t n = c17_reply(b, NULL, 0);
  ck_assert_uint_eq(n, 72);
  uint8_t *copy = tu_dup(b, n);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  giop_message m;
  ck_assert_int_eq(giop_parse(&m, copy, n, NULL, &a), CDR_OK);
  ck_assert_uint_eq(cdr_in_pos(&m.body), 48); /* aligned: the header cannot tell */
  const char *id = NULL;
  uint32_t idl;
  /* The length read at 48 is "IDL:" (0x3a4c4449): far more than remains. */
  int rc = cdr_get_string_view(&m.body, &id, &idl);
  ck_assert_int_eq(rc, CDR_E_LENGTH);
  ck_assert_str_eq(cdr_status_exception(rc), "MARSHAL");
  ck_assert_uint_eq(cdr_in_error_offset(&m.body), 48);
  ck_assert_ptr_null(id);
  cdr_arena_free(&a);
  free(copy);
}
END_TEST

START_TEST(test_c17_c_repo_id_length_beyond_message)
{
  static const uint8_t pad[4] = { 0, 0, 0, 0 };
  /* What remains after the length field at 48: 76 - 52 = 24 octets. */
  const uint32_t lens[] = { 0x7ffffff0u, 0xffffffffu, 25, 24 };
  for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
    uint8_t b[128];
    size_t n = c17_reply(b, pad, lens[k]);
    uint8_t *copy = tu_dup(b, n);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, copy, n, NULL, &a), CDR_OK);
    const char *id = NULL;
    uint32_t idl;
    int rc = cdr_get_string_view(&m.body, &id, &idl);
    /* 24 fits but its last octet is not a NUL. */
    ck_assert_int_eq(rc, lens[k] == 24 ? CDR_E_STRING : CDR_E_LENGTH);
    ck_assert_uint_eq(cdr_in_error_offset(&m.body), 48);
    ck_assert_uint_eq(cdr_arena_used(&a), sizeof(giop_service_context));
    /* The system-exception reader fails the same way. */
    giop_message m2;
    ck_assert_int_eq(giop_parse(&m2, copy, n, NULL, &a), CDR_OK);
    giop_system_exception e;
    ck_assert_int_eq(giop_get_system_exception(&m2.body, &e), rc);
    cdr_arena_free(&a);
    free(copy);
  }
}
END_TEST

/* Reserved octets 01 02 03 are accepted (and ignored) in 1.1 and 1.2;
 * the encoder writes zeros (the exact-octet tests above). */
START_TEST(test_c17_d_reserved_octets_accepted)
{
  for (int le = 0; le <= 1; le++) {
    tu_buf t;
    req12_head(&t, le, 0);
    t.b[17] = 1; t.b[18] = 2; t.b[19] = 3;
    xb_oct(&t, le, "Echo", 4);
    xb_str(&t, le, "echo");
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    giop_message m;
    ck_assert_int_eq(giop_parse(&m, t.b, t.n, NULL, NULL), CDR_OK);
    ck_assert_uint_eq(m.u.request.request_id, 1);
    ck_assert_uint_eq(m.u.request.response_flags, 3);
    ck_assert_uint_eq(m.u.request.target.key_len, 4);
    ck_assert_str_eq(m.u.request.operation, "echo");

    xb_hdr(&t, 1, le, GIOP_REQUEST);
    xb_u32(&t, le, 0);
    xb_u32(&t, le, 2);
    xb_u8(&t, 0);
    xb_u8(&t, 1); xb_u8(&t, 2); xb_u8(&t, 3);
    xb_oct(&t, le, "Echo", 4);
    xb_str(&t, le, "echo");
    xb_u32(&t, le, 0);
    xb_size(&t, le);
    ck_assert_int_eq(giop_parse(&m, t.b, t.n, NULL, NULL), CDR_OK);
    ck_assert_uint_eq(m.u.request.request_id, 2);
    ck_assert_uint_eq(m.u.request.response_flags, 0);
    ck_assert_str_eq(m.u.request.operation, "echo");
  }
}
END_TEST

/* ---------------------------------------------------------------- corpus */

/* Valid messages of every type, version and byte order (the encoder's
 * output, checked against hand-written octets above). */
typedef struct corpus {
  uint8_t *msg[256];
  size_t len[256];
  size_t n;
} corpus;

static void corpus_add(corpus *c, cdr_out *o)
{
  ck_assert_int_eq(giop_end(o), CDR_OK);
  ck_assert_uint_lt(c->n, 256);
  c->msg[c->n] = tu_dup(cdr_out_data(o), cdr_out_size(o));
  c->len[c->n] = cdr_out_size(o);
  c->n++;
  cdr_out_close(o);
}

static void corpus_build(corpus *c)
{
  c->n = 0;
  for (int le = 0; le <= 1; le++)
    for (int minor = 0; minor <= 2; minor++) {
      cdr_out o;
      tu_buf ior;
      xb_ior(&ior, le);
      for (int disp = 0; disp <= (minor == 2 ? 2 : 0); disp++)
        for (int with_ctx = 0; with_ctx <= 1; with_ctx++) {
          tu_buf t, ior2;
          giop_request_header h;
          ctx2 cx;
          req12(&t, &h, &cx, &ior2, le, disp, with_ctx, 1);
          h.principal = (const uint8_t *)"pr";
          h.principal_len = minor < 2 ? 2 : 0;
          enc_init(&o, minor, le);
          ck_assert_int_eq(giop_begin_request(&o, &h), CDR_OK);
          giop_begin_body(&o);
          cdr_put_ulonglong(&o, 1);
          corpus_add(c, &o);
          giop_locate_request_header lh = { 3, h.target };
          enc_init(&o, minor, le);
          ck_assert_int_eq(giop_begin_locate_request(&o, &lh), CDR_OK);
          corpus_add(c, &o);
        }
      for (uint32_t st = 0; st <= (minor == 2 ? 5u : 3u); st++) {
        ctx2 cx;
        ctx2_init(&cx);
        giop_reply_header rh = { 8, st, st & 1 ? cx.l : (giop_sc_list){ 0, NULL } };
        enc_init(&o, minor, le);
        ck_assert_int_eq(giop_begin_reply(&o, &rh), CDR_OK);
        giop_begin_body(&o);
        if (st == GIOP_SYSTEM_EXCEPTION || st == GIOP_USER_EXCEPTION) {
          giop_system_exception e = { "IDL:omg.org/CORBA/COMM_FAILURE:1.0", 1, 1 };
          giop_put_system_exception(&o, &e);
        } else if (st == GIOP_LOCATION_FORWARD || st == GIOP_LOCATION_FORWARD_PERM) {
          cdr_put_raw(&o, ior.b, ior.n);
        } else if (st == GIOP_NEEDS_ADDRESSING_MODE) {
          cdr_put_short(&o, 0);
        } else {
          cdr_put_double(&o, 1.5);
        }
        corpus_add(c, &o);
      }
      for (uint32_t st = 0; st <= (minor == 2 ? 5u : 2u); st++) {
        giop_locate_reply_header lr = { 8, st };
        enc_init(&o, minor, le);
        ck_assert_int_eq(giop_begin_locate_reply(&o, &lr), CDR_OK);
        if (st == GIOP_OBJECT_FORWARD)
          cdr_put_raw(&o, ior.b, ior.n);
        corpus_add(c, &o);
      }
      enc_init(&o, minor, le);
      giop_begin_cancel_request(&o, 12);
      corpus_add(c, &o);
      enc_init(&o, minor, le);
      giop_begin_close_connection(&o);
      corpus_add(c, &o);
      enc_init(&o, minor, le);
      giop_begin_message_error(&o);
      corpus_add(c, &o);
    }
}

static void corpus_free(corpus *c)
{
  for (size_t k = 0; k < c->n; k++)
    free(c->msg[k]);
  c->n = 0;
}

static int in_buf(const void *p, size_t n, const uint8_t *b, size_t len)
{
  if (n == 0)
    return 1;
  const uint8_t *q = p;
  return q >= b && q <= b + len && n <= (size_t)(b + len - q);
}

/* After a successful parse every pointer lies inside the message, and the
 * body position is inside it too (on 8 in a 1.2 Request/Reply with a body). */
static void assert_parsed_sane(const giop_message *m, const uint8_t *b, size_t len)
{
  size_t pos = cdr_in_pos(&m->body);
  ck_assert_uint_le(pos, len);
  ck_assert_uint_ge(pos, 12);
  const giop_sc_list *l = NULL;
  const giop_target *tg = NULL;
  if (m->hdr.type == GIOP_REQUEST) {
    const giop_request_header *r = &m->u.request;
    ck_assert(in_buf(r->operation, r->operation_len + 1, b, len));
    ck_assert_uint_eq(strlen(r->operation), r->operation_len);
    ck_assert(in_buf(r->principal, r->principal_len, b, len));
    l = &r->contexts;
    tg = &r->target;
  } else if (m->hdr.type == GIOP_REPLY) {
    l = &m->u.reply.contexts;
  } else if (m->hdr.type == GIOP_LOCATE_REQUEST) {
    tg = &m->u.locate_request.target;
  }
  if (l)
    for (uint32_t k = 0; k < l->n; k++)
      ck_assert(in_buf(l->v[k].data, l->v[k].len, b, len));
  if (tg) {
    ck_assert(in_buf(tg->key, tg->key_len, b, len));
    ck_assert(in_buf(tg->profile, tg->profile_len, b, len));
    ck_assert(in_buf(tg->ior, tg->ior_len, b, len));
  }
  if (m->hdr.minor == 2 && (m->hdr.type == GIOP_REQUEST || m->hdr.type == GIOP_REPLY)
      && pos < len)
    ck_assert_uint_eq(pos % 8, 0);
}

/* Every truncation: as is, message_size disagrees (CDR_E_PROTOCOL); with
 * message_size patched to fit, a clean MARSHAL-class error (offset inside
 * what was given) whenever the cut falls inside the message header. */
START_TEST(test_truncation_every_length)
{
  corpus c;
  corpus_build(&c);
  ck_assert_uint_gt(c.n, 60);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  size_t checked = 0;
  for (size_t k = 0; k < c.n; k++) {
    giop_message m;
    cdr_arena_reset(&a);
    ck_assert_int_eq(giop_parse(&m, c.msg[k], c.len[k], NULL, &a), CDR_OK);
    int le = c.msg[k][6] & 1;
    size_t body = cdr_in_pos(&m.body);
    int t = m.hdr.type;
    /* Octets that may be padding before a 1.2 body. */
    size_t slack = m.hdr.minor == 2 && (t == GIOP_REQUEST || t == GIOP_REPLY) ? 7 : 0;
    for (size_t n = 0; n < c.len[k]; n++) {
      uint8_t *p = tu_dup(c.msg[k], n);
      cdr_arena_reset(&a);
      ck_assert_int_eq(giop_parse(&m, p, n, NULL, &a), CDR_E_PROTOCOL);
      if (n >= 12) {
        tu_store(p + 8, n - 12, 4, le);
        cdr_arena_reset(&a);
        int rc = giop_parse(&m, p, n, NULL, &a);
        if (n + slack < body) {
          ck_assert_msg(rc < 0 && rc != CDR_E_PROTOCOL, "message %zu cut at %zu: %d", k, n, rc);
          ck_assert_str_eq(cdr_status_exception(rc), "MARSHAL");
          ck_assert_uint_le(cdr_in_error_offset(&m.body), n);
        } else if (n >= body) {
          ck_assert_int_eq(rc, CDR_OK);
        }
        if (rc == CDR_OK)
          assert_parsed_sane(&m, p, n);
        checked++;
      }
      free(p);
    }
  }
  ck_assert_uint_gt(checked, 3000);
  cdr_arena_free(&a);
  corpus_free(&c);
}
END_TEST

/* Random mutations of valid messages (octet values, message_size kept
 * consistent or not, lengths cut or extended) never crash or read outside
 * the message (ASan), and what parses is sane. */
START_TEST(test_mutation_fuzz)
{
  corpus c;
  corpus_build(&c);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  tu_rng r = { 0x5eed1234u };
  size_t ok = 0, bad = 0;
  for (int iter = 0; iter < 200000; iter++) {
    size_t k = tu_below(&r, c.n);
    size_t len = c.len[k];
    int mode = (int)tu_below(&r, 4);
    if (mode == 3)
      len = 12 + tu_below(&r, len - 11 + 16);
    uint8_t *p = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t q = 0; q < len; q++)
      p[q] = q < c.len[k] ? c.msg[k][q] : (uint8_t)tu_next(&r);
    int flips = 1 + (int)tu_below(&r, 4);
    for (int f = 0; f < flips; f++) {
      size_t at = 12 + tu_below(&r, len > 12 ? len - 12 : 1);
      if (at >= len)
        continue;
      switch (tu_below(&r, 4)) {
      case 0: p[at] = (uint8_t)tu_next(&r); break;
      case 1: p[at] ^= (uint8_t)(1u << tu_below(&r, 8)); break;
      case 2: p[at] = 0xff; break;
      default: p[at] = (uint8_t)tu_below(&r, 3); break;
      }
    }
    if (mode == 1)
      p[4 + tu_below(&r, 8)] = (uint8_t)tu_next(&r); /* the GIOP header too */
    if (mode != 2 && len >= 12)
      tu_store(p + 8, len - 12, 4, p[6] & 1);
    giop_message m;
    cdr_arena_reset(&a);
    int rc = giop_parse(&m, p, len, NULL, &a);
    if (rc == CDR_OK) {
      ok++;
      assert_parsed_sane(&m, p, len);
      if (m.hdr.type == GIOP_REPLY || m.hdr.type == GIOP_LOCATE_REPLY) {
        giop_system_exception e;
        ck_assert_int_le(giop_get_system_exception(&m.body, &e), CDR_OK);
      }
      if (m.hdr.type == GIOP_REQUEST || m.hdr.type == GIOP_REPLY) {
        const giop_sc_list *l = m.hdr.type == GIOP_REQUEST ? &m.u.request.contexts
                                                           : &m.u.reply.contexts;
        const giop_service_context *cs = giop_sc_find(l, GIOP_SC_CODE_SETS);
        giop_codeset_context cc;
        if (cs)
          ck_assert_int_le(giop_codeset_context_decode(cs, &cc), CDR_OK);
      }
    } else {
      bad++;
      ck_assert_int_lt(rc, 0);
      ck_assert_int_ne(rc, CDR_E_INVALID);
      ck_assert_uint_le(cdr_in_error_offset(&m.body), len);
    }
    free(p);
  }
  ck_assert_uint_gt(ok, 1000);
  ck_assert_uint_gt(bad, 1000);
  cdr_arena_free(&a);
  corpus_free(&c);
}
END_TEST

/* Decoding a 1.2 Request header without service contexts allocates nothing
 * (no arena passed, and the process allocator sees no call). */
START_TEST(test_parse_allocates_nothing)
{
  tu_buf t, ior;
  giop_request_header h;
  ctx2 cx;
  req12(&t, &h, &cx, &ior, CDR_HOST_ORDER, GIOP_KEY_ADDR, 0, 1);
  cdr_pool_flush();
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  cdr_mem_set_global(&mc.alloc);
  giop_message m;
  int rc = CDR_OK;
  for (int k = 0; k < 1000 && rc == CDR_OK; k++)
    rc = giop_parse(&m, t.b, t.n, NULL, NULL);
  uint64_t attempts = mc.attempts;
  cdr_mem_set_global(NULL);
  ck_assert_int_eq(rc, CDR_OK);
  ck_assert_uint_eq(attempts, 0);
  ck_assert_ptr_eq(m.u.request.operation, (const char *)t.b + 40);
}
END_TEST

/* ---------------------------------------------------------------- tables, contexts */

/* A system exception's repository ID is UTF-8 on the C side whatever the
 * native code set, as value repository IDs are: written converted to the
 * transmission code set, read back as UTF-8, so a relayed reply keeps its
 * octets (tests/fuzz/corpus/giop/sysexc-repoid-native-vs-transmission). */
START_TEST(test_system_exception_id_in_every_code_set_pairing)
{
  static const char id[] = "IDL:a/\xc3\x9c:1.0"; /* U+00DC, as UTF-8 */
  static const uint8_t wire_l1[] = { 0, 0, 0, 12, 'I', 'D', 'L', ':', 'a', '/', 0xdc, ':', '1', '.', '0', 0,
                                     0, 0, 0, 7, 0, 0, 0, 1 };
  static const uint8_t wire_u8[] = { 0, 0, 0, 13, 'I', 'D', 'L', ':', 'a', '/', 0xc3, 0x9c, ':', '1', '.', '0',
                                     0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1 };
  for (int pairing = 0; pairing < 4; pairing++) {
    cdr_opts op = tu_opts_pairing(pairing, CDR_BIG_ENDIAN);
    const uint8_t *want = op.tcs_c == CDR_CS_UTF8 ? wire_u8 : wire_l1;
    size_t wn = op.tcs_c == CDR_CS_UTF8 ? sizeof wire_u8 : sizeof wire_l1;
    cdr_out o;
    ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
    giop_system_exception e = { id, 7, GIOP_COMPLETED_NO };
    giop_put_system_exception(&o, &e);
    ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
    TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want, wn);
    cdr_out_close(&o);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, want, wn, CDR_BIG_ENDIAN, &op), CDR_OK);
    cdr_in_set_arena(&i, &a);
    giop_system_exception f;
    ck_assert_int_eq(giop_get_system_exception(&i, &f), CDR_OK);
    ck_assert_str_eq(f.repo_id, id);
    ck_assert_uint_eq(f.minor, 7);
    ck_assert_uint_eq(f.completed, GIOP_COMPLETED_NO);
    ck_assert_uint_eq(cdr_in_remaining(&i), 0);
    cdr_in_close(&i);
    /* An ISO-8859-1 wire needs the arena for the UTF-8 copy. */
    ck_assert_int_eq(cdr_in_init(&i, want, wn, CDR_BIG_ENDIAN, &op), CDR_OK);
    int rc = giop_get_system_exception(&i, &f);
    if (op.tcs_c == CDR_CS_UTF8) {
      ck_assert_int_eq(rc, CDR_OK);
      ck_assert_ptr_eq(f.repo_id, (const char *)want + 4); /* a view into the message */
    } else {
      ck_assert_int_eq(rc, CDR_E_STATE);
      ck_assert_uint_eq(cdr_in_error_offset(&i), 0);
      ck_assert_str_eq(cdr_in_error_message(&i), "no arena to decode into");
    }
    cdr_in_close(&i);
    cdr_arena_free(&a);
  }
  /* The fuzzer's case: native ISO-8859-1, transmission UTF-8, an octet ae
   * that is not UTF-8 on the wire: it comes back unchanged, not as c2 ae. */
  static const uint8_t odd[] = { 0, 0, 0, 2, 0xae, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
  cdr_opts op;
  cdr_opts_default(&op);
  op.tcs_c = CDR_CS_UTF8;
  cdr_in i;
  ck_assert_int_eq(cdr_in_init(&i, odd, sizeof odd, CDR_BIG_ENDIAN, &op), CDR_OK);
  giop_system_exception f;
  ck_assert_int_eq(giop_get_system_exception(&i, &f), CDR_OK);
  op.byte_order = CDR_BIG_ENDIAN;
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  giop_put_system_exception(&o, &f);
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), odd, sizeof odd);
  cdr_out_close(&o);
  cdr_in_close(&i);
}
END_TEST

START_TEST(test_system_exception_table)
{
  static const char *const names[] = {
    "UNKNOWN", "BAD_PARAM", "NO_MEMORY", "IMP_LIMIT", "COMM_FAILURE", "INV_OBJREF",
    "NO_PERMISSION", "INTERNAL", "MARSHAL", "INITIALIZE", "NO_IMPLEMENT", "BAD_TYPECODE",
    "BAD_OPERATION", "NO_RESOURCES", "NO_RESPONSE", "PERSIST_STORE", "BAD_INV_ORDER",
    "TRANSIENT", "FREE_MEM", "INV_IDENT", "INV_FLAG", "INTF_REPOS", "BAD_CONTEXT",
    "OBJ_ADAPTER", "DATA_CONVERSION", "OBJECT_NOT_EXIST", "TRANSACTION_REQUIRED",
    "TRANSACTION_ROLLEDBACK", "INVALID_TRANSACTION", "INV_POLICY", "CODESET_INCOMPATIBLE",
    "REBIND", "TIMEOUT", "TRANSACTION_UNAVAILABLE", "TRANSACTION_MODE", "BAD_QOS",
    "INVALID_ACTIVITY", "ACTIVITY_COMPLETED", "ACTIVITY_REQUIRED"
  };
  ck_assert_uint_eq(sizeof names / sizeof names[0], 39);
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    char want[80];
    snprintf(want, sizeof want, "IDL:omg.org/CORBA/%s:1.0", names[k]);
    const char *id = giop_system_exception_id(names[k]);
    ck_assert_ptr_nonnull(id);
    ck_assert_str_eq(id, want);
    ck_assert_ptr_eq(giop_system_exception_id(names[k]), id); /* static */
    const char *n = giop_system_exception_name(want, strlen(want));
    ck_assert_ptr_nonnull(n);
    ck_assert_str_eq(n, names[k]);
    /* A prefix of the ID (the length counts) is not one. */
    ck_assert_ptr_null(giop_system_exception_name(want, strlen(want) - 1));
  }
  /* Every status libcdr maps to a system exception is in the table. */
  for (int st = -1; st >= -18; st--)
    ck_assert_ptr_nonnull(giop_system_exception_id(cdr_status_exception(st)));
  ck_assert_ptr_null(giop_system_exception_id("marshal"));
  ck_assert_ptr_null(giop_system_exception_id("FOO"));
  ck_assert_ptr_null(giop_system_exception_id(""));
  ck_assert_ptr_null(giop_system_exception_id(NULL));
  static const char *const bad[] = {
    "IDL:omg.org/CORBA/FOO:1.0", "IDL:omg.org/CORBA/MARSHAL:1.1", "IDL:omg.org/CORBA/:1.0",
    "IDL:omg.org/CORBA/MARSHAL", "IDL:omg.org/CORBA/MARSHALX:1.0", "IDL:omg.org/CORBA:1.0",
    "IDL:Test/MARSHAL:1.0", "MARSHAL", "", "IDL:omg.org/CORBA/marshal:1.0"
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    ck_assert_ptr_null(giop_system_exception_name(bad[k], strlen(bad[k])));
  ck_assert_ptr_null(giop_system_exception_name(NULL, 5));
  /* The length bounds the look-up: no NUL needed. */
  const char buf[] = "IDL:omg.org/CORBA/TIMEOUT:1.0xyz";
  ck_assert_str_eq(giop_system_exception_name(buf, sizeof buf - 4), "TIMEOUT");
}
END_TEST

START_TEST(test_codeset_context)
{
  giop_codeset_context in = { 0x05010001u, 0x00010109u }, out = { 0, 0 };
  uint8_t d[12];
  giop_codeset_context_encode(&in, d);
  ck_assert_uint_eq(d[0], CDR_HOST_ORDER);
  ck_assert_uint_eq(d[1] | d[2] | d[3], 0);
  giop_service_context c = { GIOP_SC_CODE_SETS, 12, d };
  ck_assert_int_eq(giop_codeset_context_decode(&c, &out), CDR_OK);
  ck_assert_uint_eq(out.char_data, in.char_data);
  ck_assert_uint_eq(out.wchar_data, in.wchar_data);
  /* Both byte orders, whatever the message's order; octets after the
   * context (a longer encapsulation) are ignored. */
  static const uint8_t be[14] = { 0, 9, 9, 9, 0x05, 0x01, 0x00, 0x01, 0, 1, 1, 9, 7, 7 };
  static const uint8_t le[12] = { 1, 0, 0, 0, 0x01, 0x00, 0x01, 0x05, 9, 1, 1, 0 };
  c.data = be;
  c.len = 14;
  ck_assert_int_eq(giop_codeset_context_decode(&c, &out), CDR_OK);
  ck_assert_uint_eq(out.char_data, 0x05010001u);
  ck_assert_uint_eq(out.wchar_data, 0x00010109u);
  c.data = le;
  c.len = 12;
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(giop_codeset_context_decode(&c, &out), CDR_OK);
  ck_assert_uint_eq(out.char_data, 0x05010001u);
  ck_assert_uint_eq(out.wchar_data, 0x00010109u);
  /* Errors leave *out alone. */
  giop_codeset_context keep = { 1, 2 };
  for (uint32_t n = 0; n < 12; n++) {
    c.len = n;
    out = keep;
    ck_assert_int_eq(giop_codeset_context_decode(&c, &out), CDR_E_SHORT);
    ck_assert_uint_eq(out.char_data, 1);
  }
  uint8_t b2[12];
  memcpy(b2, le, 12);
  b2[0] = 2;
  c.data = b2;
  c.len = 12;
  ck_assert_int_eq(giop_codeset_context_decode(&c, &out), CDR_E_VALUE);
  ck_assert_uint_eq(out.char_data, 1);
  ck_assert_int_eq(giop_codeset_context_decode(NULL, &out), CDR_E_INVALID);
}
END_TEST

START_TEST(test_sc_find)
{
  giop_service_context v[3] = { { 5, 0, NULL }, { 1, 1, (const uint8_t *)"a" },
                                { 1, 1, (const uint8_t *)"b" } };
  giop_sc_list l = { 3, v };
  ck_assert_ptr_eq(giop_sc_find(&l, 1), &v[1]); /* the first one */
  ck_assert_ptr_eq(giop_sc_find(&l, 5), &v[0]);
  ck_assert_ptr_null(giop_sc_find(&l, 6));
  giop_sc_list e = { 0, NULL };
  ck_assert_ptr_null(giop_sc_find(&e, 1));
  ck_assert_ptr_null(giop_sc_find(NULL, 1));
}
END_TEST

static Suite *msg_suite(void)
{
  Suite *s = suite_create("msg");
  TCase *tc = tcase_create("request");
  tcase_add_test(tc, test_request_10_11);
  tcase_add_test(tc, test_request_12_literal);
  tcase_add_test(tc, test_request_12_targets);
  tcase_add_test(tc, test_request_12_body_alignment);
  tcase_add_test(tc, test_request_response_flags);
  suite_add_tcase(s, tc);
  tc = tcase_create("reply");
  tcase_add_test(tc, test_reply_no_exception);
  tcase_add_test(tc, test_reply_user_exception);
  tcase_add_test(tc, test_reply_system_exception);
  tcase_add_test(tc, test_reply_location_forward);
  tcase_add_test(tc, test_reply_needs_addressing_mode);
  tcase_add_test(tc, test_reply_12_no_contexts);
  suite_add_tcase(s, tc);
  tc = tcase_create("other");
  tcase_add_test(tc, test_cancel_request);
  tcase_add_test(tc, test_close_connection_and_message_error);
  tcase_add_test(tc, test_locate_request);
  tcase_add_test(tc, test_locate_reply);
  suite_add_tcase(s, tc);
  tc = tcase_create("rejects");
  tcase_add_test(tc, test_encode_rejects);
  tcase_add_test(tc, test_encode_fixed_buffer_limit);
  tcase_add_test(tc, test_parse_header_rejects);
  tcase_add_test(tc, test_parse_field_rejects);
  tcase_add_test(tc, test_get_system_exception_rejects);
  suite_add_tcase(s, tc);
  tc = tcase_create("C17");
  tcase_add_test(tc, test_c17_a_padding_before_user_exception);
  tcase_add_test(tc, test_c17_b_no_padding_is_marshal);
  tcase_add_test(tc, test_c17_c_repo_id_length_beyond_message);
  tcase_add_test(tc, test_c17_d_reserved_octets_accepted);
  suite_add_tcase(s, tc);
  tc = tcase_create("robustness");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_truncation_every_length);
  tcase_add_test(tc, test_mutation_fuzz);
  tcase_add_test(tc, test_parse_allocates_nothing);
  suite_add_tcase(s, tc);
  tc = tcase_create("tables");
  tcase_add_test(tc, test_system_exception_table);
  tcase_add_test(tc, test_system_exception_id_in_every_code_set_pairing);
  tcase_add_test(tc, test_codeset_context);
  tcase_add_test(tc, test_sc_find);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = msg_suite };
