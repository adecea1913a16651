/* dispatch.c - the server's dispatcher (dispatch.h): a complete message
 * in, a reply in the session's reply stream out, no I/O.
 *
 * Every reply is built the same way: the session's reply stream emptied
 * for the message's GIOP version, a Reply (or LocateReply) header, the
 * body, message_size patched (begin_reply() and finish()).
 */
#include "dispatch.h"
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>

/* ---------------------------------------------------------------- requests */

struct iiop_request {
  const char *operation;
  uint32_t request_id;
  uint32_t completed;
  const iiop__session *sess;
  giop_system_exception sysex; /* iiop_request_set_exception(): repo_id non-NULL */
  cdr_arena *fwd_arena;      /* iiop_request_set_forward(): FWD lives in it; NULL: none */
  iiop_ior fwd;
  int fwd_perm;
};

int iiop_request_set_forward(iiop_request *r, const char *ior, int perm)
{
  if (!r || !ior)
    return CDR_E_INVALID;
  cdr_arena *a = cdr_arena_get();
  if (!a)
    return CDR_E_NOMEM;
  iiop_ior v;
  int rc = iiop_ior_from_string(ior, a, &v);
  if (rc != CDR_OK) {
    cdr_arena_put(a);
    return rc;
  }
  if (r->fwd_arena)
    cdr_arena_put(r->fwd_arena);
  r->fwd_arena = a;
  r->fwd = v;
  r->fwd_perm = perm != 0;
  return CDR_OK;
}

void iiop_request_value_opts(const iiop_request *r, cdr_value_opts *o)
{
  if (!o)
    return;
  cdr_value_opts_default(o);
  if (r && r->sess) {
    o->max_values = r->sess->max_values;
    o->max_indirections = r->sess->max_indirections;
  }
}

const char *iiop_request_operation(const iiop_request *r) { return r ? r->operation : NULL; }
uint32_t iiop_request_id(const iiop_request *r) { return r ? r->request_id : 0; }
void iiop_request_set_completed(iiop_request *r, uint32_t completed)
{
  if (r && completed <= GIOP_COMPLETED_MAYBE)
    r->completed = completed;
}
void iiop_request_set_exception(iiop_request *r, const giop_system_exception *e)
{
  if (r && e && e->repo_id && e->completed <= GIOP_COMPLETED_MAYBE)
    r->sysex = *e;
}

/* ---------------------------------------------------------------- sessions */

void iiop__session_init(iiop__session *s, iiop__adapter *ad, size_t max_message,
                        const cdr_allocator *alloc)
{
  memset(s, 0, sizeof *s);
  s->ad = ad;
  s->minor = 2;
  cdr_opts_default(&s->in_opts);
  s->max_values = IIOP_DEFAULT_MAX_VALUES;
  s->max_indirections = IIOP_DEFAULT_MAX_INDIRECTIONS;
  s->in_opts.tcs_c = CDR_CS_ISO8859_1;
  s->in_opts.ncs_c = CDR_CS_ISO8859_1; /* the IOR's native char code set */
  s->in_opts.tcs_w = 0;                /* until a CodeSets context names one */
  s->in_opts.max_size = max_message;
  s->in_opts.alloc = alloc;
}

void iiop__session_limits(iiop__session *s, const iiop_limits *l, uint64_t *hits)
{
  s->in_opts.max_string = l->max_string;
  s->in_opts.max_seq = l->max_sequence;
  s->in_opts.max_depth = l->max_depth;
  s->max_values = l->max_values;
  s->max_indirections = l->max_indirections;
  s->limit_hits = hits;
  s->imp_limit_id = giop_system_exception_id("IMP_LIMIT");
}

void iiop__session_close(iiop__session *s)
{
  if (s->out_ready) {
    cdr_out_close(&s->out);
    s->out_ready = false;
  }
}

/* ---------------------------------------------------------------- exceptions */

void iiop__status_exception(int st, const cdr_in *args, uint32_t completed,
                            giop_system_exception *e)
{
  int why = args && cdr_in_status(args) == st ? cdr_in_error_reason(args) : st;
  const char *name = cdr_status_exception(why);
  uint32_t minor = cdr_status_minor(why);
  const char *id = name ? giop_system_exception_id(name) : NULL;
  e->repo_id = id ? id : giop_system_exception_id("UNKNOWN");
  e->minor = minor ? GIOP_OMGVMCID | minor : 0;
  e->completed = completed;
}

static void named_exception(const char *name, uint32_t minor, giop_system_exception *e)
{
  e->repo_id = giop_system_exception_id(name);
  e->minor = minor ? GIOP_OMGVMCID | minor : 0;
  e->completed = GIOP_COMPLETED_NO;
}

/* ---------------------------------------------------------------- replies */

/* The session's reply stream, emptied, for GIOP 1.MINOR. */
static cdr_out *reply_stream(iiop__session *s, uint8_t minor)
{
  if (s->out_ready && s->out_minor == minor) {
    cdr_out_reset(&s->out);
    return &s->out;
  }
  iiop__session_close(s);
  cdr_opts o = s->in_opts; /* max_size: max_message, so a huge result is IMP_LIMIT */
  o.byte_order = CDR_HOST_ORDER;
  o.giop_major = 1;
  o.giop_minor = minor;
  if (cdr_out_init(&s->out, &o) != CDR_OK)
    return NULL;
  /* A servant may answer with octets it was given, by reference
   * (cdr_put_string_view() and the others): sent as a gather list. */
  cdr_out_set_gather(&s->out, true);
  s->out_ready = true;
  s->out_minor = minor;
  return &s->out;
}

/* The reply stream with a Reply header for ID with STATUS, and (BODY) the
 * body begun; NULL when the stream cannot be set up. */
static cdr_out *begin_reply(iiop__session *s, uint8_t minor, uint32_t id, uint32_t status,
                            bool body)
{
  cdr_out *o = reply_stream(s, minor);
  if (!o)
    return NULL;
  giop_reply_header rh = { id, status, { 0, NULL } };
  giop_begin_reply(o, &rh);
  if (body)
    giop_begin_body(o);
  return o;
}

/* Patch O's message_size and hand it out as *R: IIOP__D_CONTINUE, or
 * IIOP__D_CLOSE when O (NULL: it could not be set up) failed -- a reply
 * that cannot be built must not leave the client waiting for it. */
static int finish(cdr_out *o, uint32_t id, iiop__reply *r)
{
  if (!o || giop_end(o) != CDR_OK)
    return IIOP__D_CLOSE;
  r->msg = cdr_out_data(o);
  r->len = cdr_out_total(o);
  r->request_id = id;
  r->out = o;
  return IIOP__D_CONTINUE;
}

static int reply_exception(iiop__session *s, uint8_t minor, uint32_t id,
                           const giop_system_exception *e, iiop__reply *r)
{
  if (s->limit_hits && e->repo_id == s->imp_limit_id)
    __atomic_add_fetch(s->limit_hits, 1, __ATOMIC_RELAXED);
  cdr_out *o = begin_reply(s, minor, id, GIOP_SYSTEM_EXCEPTION, true);
  if (o)
    giop_put_system_exception(o, e);
  return finish(o, id, r);
}

/* ---------------------------------------------------------------- dispatch */

/* Fix the session's code sets from the first Request's contexts.  Returns
 * true when they differ from what the body was parsed with. */
static bool fix_codesets(iiop__session *s, const giop_sc_list *l)
{
  s->cs_fixed = true;
  const giop_service_context *c = giop_sc_find(l, GIOP_SC_CODE_SETS);
  if (!c)
    return false; /* defaults: ISO-8859-1, no wchar code set */
  giop_codeset_context cs;
  if (giop_codeset_context_decode(c, &cs) != CDR_OK) {
    s->cs_error = "MARSHAL";
    return false;
  }
  if ((cs.char_data != CDR_CS_ISO8859_1 && cs.char_data != CDR_CS_UTF8)
      || (cs.wchar_data != 0 && cs.wchar_data != CDR_CS_UTF16 && cs.wchar_data != CDR_CS_UCS2)) {
    s->cs_error = "CODESET_INCOMPATIBLE";
    return false;
  }
  if (cs.char_data == s->in_opts.tcs_c && cs.wchar_data == s->in_opts.tcs_w)
    return false;
  s->in_opts.tcs_c = cs.char_data;
  s->in_opts.tcs_w = cs.wchar_data;
  iiop__session_close(s); /* the reply stream takes the new code sets */
  return true;
}

static bool is_a(const iiop__obj *ob, const char *id, uint32_t len)
{
  const iiop_interface *f = ob->iface;
  if (strlen(f->repo_id) == len && memcmp(f->repo_id, id, len) == 0)
    return true;
  if (sizeof IIOP__OBJECT_REPO_ID - 1 == len && memcmp(IIOP__OBJECT_REPO_ID, id, len) == 0)
    return true;
  if (f->bases)
    for (const char *const *b = f->bases; *b; b++)
      if (strlen(*b) == len && memcmp(*b, id, len) == 0)
        return true;
  return false;
}

/* The request M (acknowledged already unless REPLY: then it is answered).
 * Inlined into both callers: a call of its own costs the request path a
 * few dozen instructions. */
static inline __attribute__((always_inline)) int do_request(iiop__session *s, giop_message *m,
                                                            bool reply, iiop__reply *r)
{
  const giop_request_header *h = &m->u.request;
  uint8_t minor = m->hdr.minor;
  uint32_t id = h->request_id;
  giop_system_exception e;

  if (s->cs_error) {
    named_exception(s->cs_error, 0, &e);
    return reply ? reply_exception(s, minor, id, &e, r) : IIOP__D_CONTINUE;
  }
  if (h->target.disposition != GIOP_KEY_ADDR) {
    if (!reply)
      return IIOP__D_CONTINUE;
    cdr_out *o = begin_reply(s, minor, id, GIOP_NEEDS_ADDRESSING_MODE, true);
    if (o)
      cdr_put_short(o, GIOP_KEY_ADDR);
    return finish(o, id, r);
  }
  const iiop__obj *ob =
    iiop__table_find(iiop__adapter_objects(s->ad), h->target.key, h->target.key_len);
  if (!ob) {
    /* OMG minor 1, as omniORB sends for a key that matches no object. */
    named_exception("OBJECT_NOT_EXIST", 1, &e);
    return reply ? reply_exception(s, minor, id, &e, r) : IIOP__D_CONTINUE;
  }
  const iiop__op_slot *op = iiop__find_op(ob, h->operation, h->operation_len);
  if (!op) {
    /* OMG minor 2: operation or attribute not known to the target. */
    named_exception("BAD_OPERATION", 2, &e);
    return reply ? reply_exception(s, minor, id, &e, r) : IIOP__D_CONTINUE;
  }

  cdr_out *o = begin_reply(s, minor, id, GIOP_NO_EXCEPTION, true);
  if (!o)
    return IIOP__D_CLOSE;
  cdr_in *args = &m->body;
  iiop_request req;
  memset(&req, 0, sizeof req);
  req.operation = h->operation;
  req.request_id = id;
  req.completed = GIOP_COMPLETED_NO;
  req.sess = s;
  int rc;
  switch (op->kind) {
  case IIOP__OP_IS_A: {
    const char *rid;
    uint32_t rl;
    rc = cdr_get_string_view(args, &rid, &rl);
    if (rc == CDR_OK)
      cdr_put_boolean(o, is_a(ob, rid, rl));
    break;
  }
  case IIOP__OP_NON_EXISTENT:
    cdr_put_boolean(o, false);
    rc = CDR_OK;
    break;
  default:
    rc = op->fn(ob->servant, &req, args, o);
    break;
  }
  if (req.fwd_arena) {
    /* The servant forwards: whatever it wrote is dropped. */
    int act = IIOP__D_CONTINUE;
    if (reply) {
      uint32_t st = req.fwd_perm && minor >= 2 ? GIOP_LOCATION_FORWARD_PERM : GIOP_LOCATION_FORWARD;
      o = begin_reply(s, minor, id, st, true);
      if (o)
        iiop_ior_write(o, &req.fwd);
      act = finish(o, id, r);
    }
    cdr_arena_put(req.fwd_arena);
    return act;
  }
  if (!reply)
    return IIOP__D_CONTINUE;

  if (rc == CDR_OK || rc == IIOP_R_USER_EXCEPTION) {
    if (rc == CDR_OK && cdr_in_status(args) != CDR_OK) {
      /* The operation ignored a failed argument read. */
      iiop__status_exception(cdr_in_status(args), args, req.completed, &e);
    } else if (cdr_out_status(o) != CDR_OK) {
      iiop__status_exception(cdr_out_status(o), NULL, GIOP_COMPLETED_YES, &e);
    } else {
      int end = rc == IIOP_R_USER_EXCEPTION ? giop_patch_reply_status(o, GIOP_USER_EXCEPTION)
                                            : CDR_OK;
      if (end == CDR_OK)
        return finish(o, id, r);
      iiop__status_exception(end, NULL, GIOP_COMPLETED_YES, &e);
    }
  } else if (rc < 0) {
    iiop__status_exception(rc, args, req.completed, &e);
  } else if (rc == IIOP_R_SYSTEM_EXCEPTION && req.sysex.repo_id) {
    e = req.sysex;
  } else {
    named_exception("UNKNOWN", 0, &e); /* not a status an operation may return */
    e.completed = GIOP_COMPLETED_MAYBE;
  }
  return reply_exception(s, minor, id, &e, r);
}

static int do_locate(iiop__session *s, giop_message *m, iiop__reply *r)
{
  const giop_locate_request_header *h = &m->u.locate_request;
  cdr_out *o = reply_stream(s, m->hdr.minor);
  if (!o)
    return IIOP__D_CLOSE;
  giop_locate_reply_header rh = { h->request_id, GIOP_UNKNOWN_OBJECT };
  if (h->target.disposition != GIOP_KEY_ADDR)
    rh.locate_status = GIOP_LOC_NEEDS_ADDRESSING_MODE;
  else if (iiop__table_find(iiop__adapter_objects(s->ad), h->target.key, h->target.key_len))
    rh.locate_status = GIOP_OBJECT_HERE;
  giop_begin_locate_reply(o, &rh);
  if (rh.locate_status == GIOP_LOC_NEEDS_ADDRESSING_MODE)
    cdr_put_short(o, GIOP_KEY_ADDR);
  return finish(o, h->request_id, r);
}

int iiop__dispatch(iiop__session *s, const uint8_t *msg, size_t len, cdr_arena *a,
                   giop_message *m, iiop__reply *r)
{
  r->msg = NULL;
  r->out = NULL;
  r->len = 0;
  r->request_id = 0;
  int rc = giop_parse(m, msg, len, &s->in_opts, a);
  if (rc == CDR_E_PROTOCOL)
    return IIOP__D_ERROR; /* in the version of the last good message */
  s->minor = m->hdr.minor;
  if (rc == CDR_E_NOMEM)
    return IIOP__D_CLOSE;
  if (rc != CDR_OK)
    return IIOP__D_ERROR; /* a malformed message header: nothing reliable to reply to */
  switch (m->hdr.type) {
  case GIOP_REQUEST: {
    if (!s->cs_fixed && fix_codesets(s, &m->u.request.contexts)) {
      /* The body must decode with the code sets this very message chose. */
      cdr_in_close(&m->body);
      if (giop_parse(m, msg, len, &s->in_opts, a) != CDR_OK)
        return IIOP__D_CLOSE;
    }
    const giop_request_header *h = &m->u.request;
    if ((h->response_flags & GIOP_RESPONSE_EXPECTED) == GIOP_RESPONSE_SYNC_WITH_SERVER) {
      /* SYNC_WITH_SERVER: acknowledge before invoking, then discard results. */
      int act = finish(begin_reply(s, m->hdr.minor, h->request_id, GIOP_NO_EXCEPTION, false),
                       h->request_id, r);
      return act == IIOP__D_CONTINUE ? IIOP__D_ACK : act;
    }
    return do_request(s, m, (h->response_flags & GIOP_RESPONSE_SYNC_WITH_SERVER) != 0, r);
  }
  case GIOP_LOCATE_REQUEST:
    return do_locate(s, m, r);
  case GIOP_CANCEL_REQUEST:
    /* Requests are dispatched in order on this connection, so the one
     * named is finished (its reply sent) or was never seen: nothing to do. */
    return IIOP__D_CONTINUE;
  case GIOP_CLOSE_CONNECTION:
  case GIOP_MESSAGE_ERROR:
    return IIOP__D_CLOSE;
  default: /* Reply, LocateReply: a client has no business sending them */
    return IIOP__D_ERROR;
  }
}

int iiop__dispatch_resume(iiop__session *s, giop_message *m, iiop__reply *r)
{
  r->msg = NULL;
  r->out = NULL;
  r->len = 0;
  r->request_id = 0;
  return do_request(s, m, false, r);
}

int iiop__dispatch_refuse(iiop__session *s, uint8_t *msg, size_t len, cdr_arena *a,
                          const char *exception, iiop__reply *r)
{
  r->msg = NULL;
  r->out = NULL;
  r->len = 0;
  r->request_id = 0;
  if (len < GIOP_HEADER_SIZE || len - GIOP_HEADER_SIZE > UINT32_MAX)
    return IIOP__D_CLOSE;
  /* What has arrived, parsed as if it were the whole message. */
  msg[6] &= (uint8_t)~GIOP_FLAG_MORE_FRAGMENTS;
  iiop__store32(msg + 8, (uint32_t)(len - GIOP_HEADER_SIZE), msg[6] & GIOP_FLAG_LITTLE_ENDIAN);
  giop_message m;
  int rc = giop_parse(&m, msg, len, &s->in_opts, a);
  int act = IIOP__D_CLOSE;
  if (rc == CDR_OK && m.hdr.type == GIOP_REQUEST) {
    const giop_request_header *h = &m.u.request;
    s->minor = m.hdr.minor;
    act = IIOP__D_CONTINUE;
    if (h->response_flags & GIOP_RESPONSE_SYNC_WITH_SERVER) {
      giop_system_exception e;
      named_exception(exception, 0, &e);
      act = reply_exception(s, m.hdr.minor, h->request_id, &e, r);
    }
  }
  cdr_in_close(&m.body);
  return act;
}
