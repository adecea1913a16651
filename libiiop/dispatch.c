/* dispatch.c - the server's dispatcher (dispatch.h): a complete message
 * in, a reply in the session's reply stream out, no I/O.
 *
 * Every reply is built the same way: the session's reply stream emptied
 * for the message's GIOP version, a Reply (or LocateReply) header, the
 * body, message_size patched (begin_reply() and finish()).
 */
#include "dispatch.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
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
  const giop_message *msg;   /* the request: object key, version, service contexts */
  unsigned nic;              /* the server's interceptors this request runs */
  uint32_t nrsc;             /* reply service contexts added ... */
  giop_service_context *rsc; /* ... (IIOP_SC_ADD_MAX entries in the arena once one is) */
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

const uint8_t *iiop_request_object_key(const iiop_request *r, uint32_t *len)
{
  const uint8_t *k = r && r->msg ? r->msg->u.request.target.key : NULL;
  if (len)
    *len = k ? r->msg->u.request.target.key_len : 0;
  return k;
}

int iiop_request_giop_version(const iiop_request *r, uint8_t *major, uint8_t *minor)
{
  if (!r || !r->msg || !major || !minor)
    return CDR_E_INVALID;
  *major = r->msg->hdr.major;
  *minor = r->msg->hdr.minor;
  return CDR_OK;
}

uint32_t iiop_request_service_contexts(const iiop_request *r, const giop_service_context **v)
{
  if (v)
    *v = NULL;
  if (!r || !r->msg)
    return 0;
  if (v)
    *v = r->msg->u.request.contexts.v;
  return r->msg->u.request.contexts.n;
}

int iiop_request_service_context(const iiop_request *r, uint32_t id, const uint8_t **data,
                                 uint32_t *len)
{
  if (!r || !r->msg || !data || !len)
    return CDR_E_INVALID;
  const giop_service_context *c = giop_sc_find(&r->msg->u.request.contexts, id);
  if (!c)
    return CDR_E_INVALID;
  *data = c->data;
  *len = c->len;
  return CDR_OK;
}

const char *iiop_request_peer_subject(const iiop_request *r)
{
  return r && r->sess ? r->sess->peer_subject : NULL;
}

int iiop_request_peer(const iiop_request *r, char *host, size_t cap, uint16_t *port)
{
  if (!r)
    return CDR_E_INVALID;
  if (!r->sess || r->sess->peer_fd < 0)
    return CDR_E_STATE;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getpeername(r->sess->peer_fd, (struct sockaddr *)&ss, &sl) != 0)
    return CDR_E_IO;
  char buf[IIOP_PEER_HOST_MAX];
  uint16_t p;
  if (ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
    if (!inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf))
      return CDR_E_IO;
    p = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
    const void *ad = &a->sin6_addr;
    int fam = AF_INET6;
    if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
      ad = a->sin6_addr.s6_addr + 12;
      fam = AF_INET;
    }
    if (!inet_ntop(fam, ad, buf, sizeof buf))
      return CDR_E_IO;
    p = ntohs(a->sin6_port);
  } else {
    return CDR_E_IO;
  }
  size_t n = strlen(buf);
  if (host && cap) {
    if (n >= cap)
      return CDR_E_LIMIT;
    memcpy(host, buf, n + 1);
  }
  if (port)
    *port = p;
  return CDR_OK;
}

int iiop_request_add_reply_service_context(iiop_request *r, uint32_t id, const void *data,
                                           size_t len)
{
  if (!r || (!data && len))
    return CDR_E_INVALID;
  if (r->nrsc >= IIOP_SC_ADD_MAX || len > IIOP_SC_DATA_MAX)
    return CDR_E_LIMIT;
  cdr_arena *a = r->msg ? cdr_in_arena(&r->msg->body) : NULL;
  if (!a)
    return CDR_E_NOMEM;
  if (!r->rsc) {
    r->rsc = cdr_arena_alloc(a, IIOP_SC_ADD_MAX * sizeof *r->rsc, _Alignof(giop_service_context));
    if (!r->rsc)
      return CDR_E_NOMEM;
  }
  uint8_t *d = cdr_arena_alloc(a, len ? len : 1, 1);
  if (!d)
    return CDR_E_NOMEM;
  if (len)
    memcpy(d, data, len);
  giop_service_context *c = &r->rsc[r->nrsc++];
  c->id = id;
  c->len = (uint32_t)len;
  c->data = d;
  return CDR_OK;
}

const char *iiop_request_operation(const iiop_request *r) { return r ? r->operation : NULL; }
const iiop__session *iiop__request_session(const iiop_request *r) { return r->sess; }
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

static const iiop__icpt no_icpt; /* a session of no server: no interceptors */

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
  s->peer_fd = -1;
  s->peer_subject = NULL;
  s->icpt = &no_icpt;
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

void iiop__session_release_held_slow(iiop__session *s)
{
  unsigned n = s->nheld;
  s->nheld = 0;
  for (unsigned k = 0; k < n; k++)
    s->held[k].fn(s->held[k].p);
}

int iiop_request_hold(iiop_request *r, void (*fn)(void *p), void *p)
{
  if (!r || !fn)
    return CDR_E_INVALID;
  /* the session is the connection's, which the request only names const
   * so that operations cannot reach it */
  iiop__session *s = (iiop__session *)r->sess;
  if (s->nheld >= IIOP_REQUEST_HOLD_MAX)
    return CDR_E_LIMIT;
  s->held[s->nheld].fn = fn;
  s->held[s->nheld].p = p;
  s->nheld++;
  return CDR_OK;
}

/* The reply streams' buffers freed (idempotent); the holds stay. */
static void close_streams(iiop__session *s)
{
  if (s->out_ready) {
    cdr_out_close(&s->out);
    s->out_ready = false;
  }
  if (s->out2_ready) {
    cdr_out_close(&s->out2);
    s->out2_ready = false;
  }
}

void iiop__session_close(iiop__session *s)
{
  iiop__session_release_held(s);
  close_streams(s);
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

/* The session's second reply stream (a reply with service contexts),
 * emptied, for GIOP 1.MINOR. */
static cdr_out *reply_stream2(iiop__session *s, uint8_t minor)
{
  if (s->out2_ready && s->out2_minor == minor) {
    cdr_out_reset(&s->out2);
    return &s->out2;
  }
  if (s->out2_ready)
    cdr_out_close(&s->out2);
  s->out2_ready = false;
  cdr_opts o = s->in_opts;
  o.byte_order = CDR_HOST_ORDER;
  o.giop_major = 1;
  o.giop_minor = minor;
  if (cdr_out_init(&s->out2, &o) != CDR_OK)
    return NULL;
  cdr_out_set_gather(&s->out2, true);
  s->out2_ready = true;
  s->out2_minor = minor;
  return &s->out2;
}

/* The session's reply stream, emptied, for GIOP 1.MINOR. */
static cdr_out *reply_stream(iiop__session *s, uint8_t minor)
{
  if (s->out_ready && s->out_minor == minor) {
    cdr_out_reset(&s->out);
    return &s->out;
  }
  close_streams(s);
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

/* begin_reply() for everything but its common case: the stream set up or
 * emptied for GIOP 1.MINOR, the header written by giop_begin_reply(). */
static __attribute__((noinline)) cdr_out *begin_reply_general(iiop__session *s, uint8_t minor,
                                                              uint32_t id, uint32_t status,
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

/* The reply stream with a Reply header for ID with STATUS, and (BODY) the
 * body begun; NULL when the stream cannot be set up.  Inline up to the
 * common case. */
static inline __attribute__((always_inline)) cdr_out *
begin_reply(iiop__session *s, uint8_t minor, uint32_t id, uint32_t status, bool body)
{
  if (__builtin_expect(minor == 2 && s->out_ready && s->out_minor == 2 && !iiop__msg_general, 1)) {
    /* The common GIOP 1.2 Reply without contexts, in the stream already set
     * up: the 24 octets giop_begin_reply() writes (host byte order, the
     * message_size 0 until finish()), stored directly; the body starts
     * there, on 8. */
    cdr_out *o = &s->out;
    cdr_out__reset_inline(o);
    uint8_t *p = cdr_out__reserve(o, 24, 1);
    if (p) {
      static const uint8_t head[8] = { 'G', 'I', 'O', 'P', 1, 2,
                                       CDR_HOST_ORDER == CDR_LITTLE_ENDIAN ? GIOP_FLAG_LITTLE_ENDIAN
                                                                           : 0,
                                       GIOP_REPLY };
      uint32_t w[4] = { 0, id, status, 0 };
      memcpy(p, head, 8);
      memcpy(p + 8, w, 12);
      return o;
    }
    return o; /* failed: finish() sees its status */
  }
  return begin_reply_general(s, minor, id, status, body);
}

/* Patch O's message_size and hand it out as *R: IIOP__D_CONTINUE, or
 * IIOP__D_CLOSE when O (NULL: it could not be set up) failed -- a reply
 * that cannot be built must not leave the client waiting for it. */
static inline __attribute__((always_inline)) int finish(cdr_out *o, uint32_t id, iiop__reply *r)
{
  if (!o)
    return IIOP__D_CLOSE;
  if (__builtin_expect(cdr_out_status(o) == CDR_OK && o->nref == 0 && o->pos >= GIOP_HEADER_SIZE
                         && o->pos - GIOP_HEADER_SIZE <= UINT32_MAX, 1)) {
    /* giop_end() for a contiguous reply (every reply stream is in host
     * byte order, its header written by begin_reply() or reply_stream()'s
     * callers): message_size stored in place. */
    uint32_t n = (uint32_t)(o->pos - GIOP_HEADER_SIZE);
    memcpy(o->buf + 8, &n, 4);
  } else if (giop_end(o) != CDR_OK) {
    return IIOP__D_CLOSE;
  }
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

/* ---------------------------------------------------------------- interceptors */

/* The octets of a Reply header with no service contexts (every version):
 * where begin_reply() leaves a body. */
#define REPLY_HDR 24

/* REQ's receive_request hooks; false when one refused the request. */
static __attribute__((noinline)) bool run_receive_request(iiop__session *s, iiop_request *req)
{
  const iiop__icpt *ic = s->icpt;
  for (unsigned k = 0; k < req->nic; k++)
    if (ic->ic[k].receive_request && ic->ic[k].receive_request(ic->ud[k], req) != 0)
      return false;
  return true;
}

/* The reply O (a Reply header with no contexts, STATUS, the body) of a
 * request with interceptors or reply contexts: the send_reply hooks, then,
 * with contexts, the reply again in the second stream -- a header with
 * them (and in GIOP 1.0/1.1 the IIOP_SC_ALIGN context where the body
 * would move by 4 modulo 8), O's body behind it by reference. */
static __attribute__((noinline)) int finish_hooked(iiop__session *s, iiop_request *req,
                                                   cdr_out *o, uint32_t status, iiop__reply *r)
{
  const iiop__icpt *ic = s->icpt;
  for (unsigned k = req->nic; k-- > 0;)
    if (ic->ic[k].send_reply)
      ic->ic[k].send_reply(ic->ud[k], req, status);
  uint32_t id = req->request_id;
  if (!req->nrsc || !o || cdr_out_status(o) != CDR_OK)
    return finish(o, id, r);
  uint8_t minor = req->msg->hdr.minor;
  size_t total = cdr_out_total(o);
  giop_service_context v[IIOP_SC_ADD_MAX + 1];
  memcpy(v, req->rsc, req->nrsc * sizeof *v);
  giop_reply_header rh = { id, status, { req->nrsc, v } };
  static const uint8_t zeros[4];
  cdr_out *o2 = NULL;
  for (int pass = 0; pass < 2; pass++) {
    o2 = reply_stream2(s, minor);
    if (!o2)
      return IIOP__D_CLOSE;
    giop_begin_reply(o2, &rh);
    if (minor >= 2 || total == REPLY_HDR || ((cdr_out_size(o2) - REPLY_HDR) & 7) == 0)
      break;
    v[rh.contexts.n].id = IIOP_SC_ALIGN;
    v[rh.contexts.n].len = sizeof zeros;
    v[rh.contexts.n++].data = zeros;
  }
  if (total > REPLY_HDR) {
    giop_begin_body(o2);
    struct iovec iov[CDR_OUT_IOV_MAX];
    int n = cdr_out_iov(o, iov, CDR_OUT_IOV_MAX);
    size_t skip = REPLY_HDR;
    for (int k = 0; k < n; k++) {
      const uint8_t *b = iov[k].iov_base;
      size_t l = iov[k].iov_len;
      if (skip >= l) {
        skip -= l;
        continue;
      }
      cdr_put_raw_ref(o2, b + skip, l - skip);
      skip = 0;
    }
  }
  return finish(o2, id, r);
}

/* The reply O to REQ with STATUS, complete. */
static inline int finish_req(iiop__session *s, iiop_request *req, cdr_out *o, uint32_t status,
                             iiop__reply *r)
{
  if (__builtin_expect((req->nic | req->nrsc) == 0, 1))
    return finish(o, req->request_id, r);
  return finish_hooked(s, req, o, status, r);
}

/* The system exception E in reply to REQ. */
static int reply_exception_req(iiop__session *s, iiop_request *req,
                               const giop_system_exception *e, iiop__reply *r)
{
  uint8_t minor = req->msg->hdr.minor;
  if ((req->nic | req->nrsc) == 0)
    return reply_exception(s, minor, req->request_id, e, r);
  if (s->limit_hits && e->repo_id == s->imp_limit_id)
    __atomic_add_fetch(s->limit_hits, 1, __ATOMIC_RELAXED);
  cdr_out *o = begin_reply(s, minor, req->request_id, GIOP_SYSTEM_EXCEPTION, true);
  if (o)
    giop_put_system_exception(o, e);
  return finish_hooked(s, req, o, GIOP_SYSTEM_EXCEPTION, r);
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
  close_streams(s); /* the reply stream takes the new code sets */
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

/* The object under KEY (KL octets), or NULL: the session's cached one when
 * the adapter's epoch has not moved since it was found.  The reader (the
 * caller's iiop__reader_enter()) stored its epoch before the sequentially
 * consistent load here, so an epoch still equal to the cached one means the
 * publish that could retire the object has not happened yet, and its scan
 * will see this reader (adapter.h): the object stays until the reader
 * exits.  Outside a reader (epoch 0) nothing is cached. */
static inline __attribute__((always_inline)) const iiop__obj *find_obj(iiop__session *s, const uint8_t *key, uint32_t kl)
{
  uint64_t e = __atomic_load_n(&s->ad->epoch, __ATOMIC_SEQ_CST);
  const iiop__obj *ob = s->cache_ob;
  if (ob && s->cache_epoch == e && ob->key_len == kl && iiop__same_bytes(ob->key, key, kl))
    return ob;
  ob = iiop__table_find(iiop__adapter_objects(s->ad), key, kl);
  if (ob && __atomic_load_n(&s->reader.epoch, __ATOMIC_RELAXED) != 0) {
    if (ob != s->cache_ob)
      s->cache_op = NULL;
    s->cache_ob = ob;
    s->cache_epoch = e; /* a retirement of OB would move the epoch past E */
  }
  return ob;
}

/* The operation NAME (LEN octets) of OB (just returned by find_obj()), the
 * session's cached one when it is the same. */
static inline __attribute__((always_inline)) const iiop__op_slot *
find_op(iiop__session *s, const iiop__obj *ob,
                                           const char *name, uint32_t len)
{
  const iiop__op_slot *op = s->cache_op;
  if (op && ob == s->cache_ob && op->len == len && iiop__same_bytes(op->name, name, len))
    return op;
  op = iiop__find_op(ob, name, len);
  if (op && ob == s->cache_ob)
    s->cache_op = op;
  return op;
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
  const iiop__obj *ob = find_obj(s, h->target.key, h->target.key_len);
  if (!ob) {
    /* OMG minor 1, as omniORB sends for a key that matches no object. */
    named_exception("OBJECT_NOT_EXIST", 1, &e);
    return reply ? reply_exception(s, minor, id, &e, r) : IIOP__D_CONTINUE;
  }
  const iiop__op_slot *op = find_op(s, ob, h->operation, h->operation_len);
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
  req.msg = m;
  req.nic = __atomic_load_n(&s->icpt->n, __ATOMIC_ACQUIRE);
  if (__builtin_expect(req.nic != 0, 0) && !run_receive_request(s, &req)) {
    /* refused: the reply begun above is replaced */
    if (req.sysex.repo_id)
      e = req.sysex;
    else
      named_exception("NO_PERMISSION", 0, &e);
    return reply ? reply_exception_req(s, &req, &e, r) : IIOP__D_CONTINUE;
  }
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
      act = finish_req(s, &req, o, st, r);
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
        return finish_req(s, &req, o,
                          rc == IIOP_R_USER_EXCEPTION ? GIOP_USER_EXCEPTION : GIOP_NO_EXCEPTION, r);
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
  return reply_exception_req(s, &req, &e, r);
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
  iiop__session_release_held(s); /* the last reply is out */
  r->msg = NULL;
  r->out = NULL;
  r->len = 0;
  r->request_id = 0;
  int rc = CDR_OK;
  if (!iiop__parse_request_memo(m, msg, len, &s->in_opts, a, &s->memo)
      && !iiop__parse_request_12(m, msg, len, &s->in_opts, a, &s->memo))
    rc = giop_parse(m, msg, len, &s->in_opts, a);
  if (rc == CDR_E_PROTOCOL) {
    /* in the header's version where it has one we speak, else the last
     * good message's (iiop__answer_minor) */
    s->minor = (uint8_t)iiop__answer_minor(msg, len, s->minor);
    return IIOP__D_ERROR;
  }
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
  iiop__session_release_held(s);
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
