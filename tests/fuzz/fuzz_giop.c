/* tests/fuzz/fuzz_giop.c - fuzz target: GIOP messages (iiop/giop.h,
 * iiop/msg.h).
 *
 * Input: one configuration octet, then a complete GIOP message of any type
 * and version (1.0-1.2, either byte order, service contexts, every target
 * address disposition).  Configuration bits 0-1 pick the char code sets
 * given to giop_parse() for the body; bit 2 parses without an arena.
 *
 * Checks: giop_parse() never crashes; when it accepts the message, the
 * message is encoded again from the parsed header (giop_begin_*, the body
 * octets copied), the encoding is parsed and encoded once more: both parses
 * must agree field by field and both encodings must be the same octets
 * (decode-encode-decode).  A Reply carrying a system exception and a
 * CodeSets service context are decoded and re-encoded the same way.
 */
#include <cdr/cdr.h>
#include <iiop/giop.h>
#include <iiop/msg.h>
#include "fuzz.h"

static void opts_for(cdr_opts *o, unsigned cfg)
{
  cdr_opts_default(o);
  switch (cfg & 3) {
  case 1: o->ncs_c = CDR_CS_UTF8; break;                               /* native UTF-8 */
  case 2: o->tcs_c = CDR_CS_UTF8; o->ncs_c = CDR_CS_UTF8; break;       /* UTF-8 on the wire */
  case 3: o->tcs_c = CDR_CS_UTF8; o->ncs_c = CDR_CS_ISO8859_1; break;
  default: break;
  }
}

/* The body octets of a parsed message: from the body's position to its end. */
static const uint8_t *body_octets(const giop_message *m, size_t *n)
{
  *n = cdr_in_remaining(&m->body);
  return m->body.buf + cdr_in_pos(&m->body);
}

/* Encode M again into O (empty, opts from the message).  Returns the
 * status of giop_end() or of the header encoder. */
static int encode(cdr_out *o, const giop_message *m)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = m->hdr.flags & GIOP_FLAG_LITTLE_ENDIAN;
  op.giop_minor = m->hdr.minor;
  if (cdr_out_init(o, &op) != CDR_OK)
    return cdr_out_status(o);
  int rc, body_aligned = 0;
  switch (m->hdr.type) {
  case GIOP_REQUEST: rc = giop_begin_request(o, &m->u.request); body_aligned = 1; break;
  case GIOP_REPLY: rc = giop_begin_reply(o, &m->u.reply); body_aligned = 1; break;
  case GIOP_CANCEL_REQUEST: rc = giop_begin_cancel_request(o, m->u.cancel_request_id); break;
  case GIOP_LOCATE_REQUEST: rc = giop_begin_locate_request(o, &m->u.locate_request); break;
  case GIOP_LOCATE_REPLY: rc = giop_begin_locate_reply(o, &m->u.locate_reply); break;
  case GIOP_CLOSE_CONNECTION: rc = giop_begin_close_connection(o); break;
  case GIOP_MESSAGE_ERROR: rc = giop_begin_message_error(o); break;
  default: FUZZ_CHECK(!"giop_parse accepted a message type it cannot encode"); return -1;
  }
  if (rc != CDR_OK)
    return rc;
  size_t n;
  const uint8_t *b = body_octets(m, &n);
  if (n > 0) {
    if (body_aligned)
      giop_begin_body(o);
    cdr_put_raw(o, b, n);
  }
  return giop_end(o);
}

static void same_octets(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
  FUZZ_SAME(a, alen, b, blen);
}

static void same_contexts(const giop_sc_list *a, const giop_sc_list *b)
{
  FUZZ_CHECK(a->n == b->n);
  for (uint32_t k = 0; k < a->n; k++) {
    FUZZ_CHECK(a->v[k].id == b->v[k].id);
    same_octets(a->v[k].data, a->v[k].len, b->v[k].data, b->v[k].len);
  }
}

static void same_target(const giop_target *a, const giop_target *b)
{
  FUZZ_CHECK(a->disposition == b->disposition);
  switch (a->disposition) {
  case GIOP_KEY_ADDR: same_octets(a->key, a->key_len, b->key, b->key_len); break;
  case GIOP_PROFILE_ADDR:
    FUZZ_CHECK(a->profile_tag == b->profile_tag);
    same_octets(a->profile, a->profile_len, b->profile, b->profile_len);
    break;
  default:
    FUZZ_CHECK(a->profile_index == b->profile_index);
    same_octets(a->ior, a->ior_len, b->ior, b->ior_len);
    break;
  }
}

static void same_message(const giop_message *a, const giop_message *b)
{
  FUZZ_CHECK(a->hdr.major == b->hdr.major && a->hdr.minor == b->hdr.minor);
  FUZZ_CHECK(a->hdr.flags == b->hdr.flags && a->hdr.type == b->hdr.type);
  switch (a->hdr.type) {
  case GIOP_REQUEST: {
    const giop_request_header *x = &a->u.request, *y = &b->u.request;
    FUZZ_CHECK(x->request_id == y->request_id && x->response_flags == y->response_flags);
    same_target(&x->target, &y->target);
    FUZZ_CHECK(x->operation_len == y->operation_len);
    FUZZ_CHECK(memcmp(x->operation, y->operation, x->operation_len + 1) == 0);
    same_contexts(&x->contexts, &y->contexts);
    same_octets(x->principal, x->principal_len, y->principal, y->principal_len);
    break;
  }
  case GIOP_REPLY:
    FUZZ_CHECK(a->u.reply.request_id == b->u.reply.request_id);
    FUZZ_CHECK(a->u.reply.reply_status == b->u.reply.reply_status);
    same_contexts(&a->u.reply.contexts, &b->u.reply.contexts);
    break;
  case GIOP_LOCATE_REQUEST:
    FUZZ_CHECK(a->u.locate_request.request_id == b->u.locate_request.request_id);
    same_target(&a->u.locate_request.target, &b->u.locate_request.target);
    break;
  case GIOP_LOCATE_REPLY:
    FUZZ_CHECK(a->u.locate_reply.request_id == b->u.locate_reply.request_id);
    FUZZ_CHECK(a->u.locate_reply.locate_status == b->u.locate_reply.locate_status);
    break;
  case GIOP_CANCEL_REQUEST:
    FUZZ_CHECK(a->u.cancel_request_id == b->u.cancel_request_id);
    break;
  default:
    break;
  }
  size_t an, bn;
  const uint8_t *ab = body_octets(a, &an), *bb = body_octets(b, &bn);
  FUZZ_SAME(ab, an, bb, bn);
}

/* The system exception of a Reply body: decode, encode, decode. */
static void check_system_exception(const giop_message *m)
{
  /* The repository ID is UTF-8 on the C side whatever the native code
   * set, read and written through the transmission code set: the round
   * trip holds in every pairing. */
  cdr_in body = m->body;
  giop_system_exception e;
  if (giop_get_system_exception(&body, &e) != CDR_OK)
    return;
  FUZZ_CHECK(e.completed <= GIOP_COMPLETED_MAYBE);
  (void)giop_system_exception_name(e.repo_id, strlen(e.repo_id));
  cdr_opts op = *cdr_in_opts(&m->body);
  op.byte_order = cdr_in_byte_order(&m->body);
  cdr_out o;
  if (cdr_out_init(&o, &op) != CDR_OK)
    return;
  giop_put_system_exception(&o, &e);
  if (cdr_out_status(&o) == CDR_OK) {
    cdr_in i;
    cdr_in_init(&i, cdr_out_data(&o), cdr_out_size(&o), op.byte_order, &op);
    /* The first read's arena: a repository ID that is not ASCII, sent in
     * ISO-8859-1, is converted to UTF-8 into it (without one: CDR_E_STATE). */
    cdr_in_set_arena(&i, m->body.arena);
    giop_system_exception f;
    FUZZ_CHECK(giop_get_system_exception(&i, &f) == CDR_OK);
    FUZZ_CHECK(strcmp(e.repo_id, f.repo_id) == 0);
    FUZZ_CHECK(e.minor == f.minor && e.completed == f.completed);
    cdr_in_close(&i);
  }
  cdr_out_close(&o);
}

static void check_codesets(const giop_sc_list *l)
{
  const giop_service_context *c = giop_sc_find(l, GIOP_SC_CODE_SETS);
  giop_codeset_context cs, back;
  if (!c || giop_codeset_context_decode(c, &cs) != CDR_OK)
    return;
  uint8_t enc[12];
  giop_codeset_context_encode(&cs, enc);
  giop_service_context again = { GIOP_SC_CODE_SETS, sizeof enc, enc };
  FUZZ_CHECK(giop_codeset_context_decode(&again, &back) == CDR_OK);
  FUZZ_CHECK(back.char_data == cs.char_data && back.wchar_data == cs.wchar_data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in f = { data, size };
  unsigned cfg = fuzz_byte(&f);
  cdr_opts opts;
  opts_for(&opts, cfg);

  giop_header h;
  if (giop_header_parse(f.p, f.n, &h) == CDR_OK) {
    uint8_t hb[GIOP_HEADER_SIZE];
    FUZZ_CHECK(giop_header_write(&h, hb) == CDR_OK);
    giop_header h2;
    FUZZ_CHECK(giop_header_parse(hb, sizeof hb, &h2) == CDR_OK);
    FUZZ_CHECK(memcmp(&h, &h2, sizeof h) == 0);
    (void)giop_msg_type_name(h.type);
  }

  cdr_arena arena;
  cdr_arena_init(&arena, NULL);
  giop_message m;
  int rc = giop_parse(&m, f.p, f.n, &opts, (cfg & 4) ? NULL : &arena);
  FUZZ_CHECK(rc == cdr_in_status(&m.body));
  if (rc == CDR_OK) {
    if (m.hdr.type == GIOP_REPLY && m.u.reply.reply_status == GIOP_SYSTEM_EXCEPTION)
      check_system_exception(&m);
    if (m.hdr.type == GIOP_REQUEST)
      check_codesets(&m.u.request.contexts);
    if (m.hdr.type == GIOP_REPLY)
      check_codesets(&m.u.reply.contexts);

    cdr_out o1, o2;
    int e1 = encode(&o1, &m);
    /* A header the parser accepts and this version cannot carry is the
     * only reason the encoder may refuse. */
    FUZZ_CHECK(e1 == CDR_OK || e1 == CDR_E_INVALID);
    if (e1 == CDR_OK) {
      giop_message m2, m3;
      cdr_arena a2;
      cdr_arena_init(&a2, NULL);
      FUZZ_CHECK(giop_parse(&m2, cdr_out_data(&o1), cdr_out_size(&o1), &opts, &a2) == CDR_OK);
      same_message(&m, &m2);
      FUZZ_CHECK(encode(&o2, &m2) == CDR_OK);
      FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
      FUZZ_CHECK(giop_parse(&m3, cdr_out_data(&o2), cdr_out_size(&o2), &opts, &a2) == CDR_OK);
      same_message(&m2, &m3);
      cdr_in_close(&m3.body);
      cdr_in_close(&m2.body);
      cdr_out_close(&o2);
      cdr_arena_free(&a2);
    }
    cdr_out_close(&o1);
  }
  cdr_in_close(&m.body);
  cdr_arena_free(&arena);
  return 0;
}
