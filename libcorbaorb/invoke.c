/* invoke.c - the invocation engine of the generated stubs and skeletons
 * (corbaorb/corba.h, "the generated code's engine"): table-driven
 * marshalling of an operation's parameters with cdr_write()/cdr_read(),
 * object references as IORs, results allocated by the mapping's rules.
 *
 * Steady state.  A call's request and reply streams, its buffers and the
 * arena replies decode into are libiiop's pooled ones: a call whose
 * parameters and result are fixed-length allocates nothing (values are
 * read straight into the caller's storage).  What the mapping makes the
 * caller own -- a variable-length out value or result, a string -- is
 * decoded into the call's arena, then copied once into CORBA_free blocks
 * (a string without a code-set conversion: checked in place and copied
 * once).  On the server, in arguments are decoded into the request's arena
 * and passed to the servant from there (nothing allocated; an in string is
 * a view into the request itself); inout values the servant may replace
 * are copied into CORBA_free blocks first; what the servant returns is
 * freed after the reply is written, or once it is sent for a string sent
 * by reference (iiop_request_hold()).  docs/c-mapping.md, "Strings: views
 * and replies by reference".
 */
#include "orb_impl.h"
#include <stdio.h>
#include <string.h>

CORBA_unsigned_long corbaorb_tc_flags(CORBA_TypeCode tc)
{
  CORBA_TypeCode u = corbaorb_tc_unalias(tc);
  CORBA_unsigned_long f = CORBAORB_F_KNOWN;
  if (corbaorb_tc_variable_depth(tc, 0))
    f |= CORBAORB_F_VAR;
  if (u && u->kind != CDR_K_OBJREF && u->kind != CDR_K_ABSTRACT_INTERFACE &&
      corbaorb_tc_has_refs(tc, 0))
    f |= CORBAORB_F_REFS;
  if (corbaorb_tc_has_values(tc, 0))
    f |= CORBAORB_F_VALUES;
  switch (u ? u->kind : CDR_K_VOID) {
  case CDR_K_OBJREF: case CDR_K_ABSTRACT_INTERFACE:
    f |= CORBAORB_F_OBJREF | CORBAORB_F_PTR;
    break;
  case CDR_K_STRING: case CDR_K_WSTRING: case CDR_K_TYPECODE: case CDR_K_LOCAL_INTERFACE:
  case CDR_K_VALUE:
    f |= CORBAORB_F_PTR;
    break;
  case CDR_K_ARRAY:
    f |= CORBAORB_F_ARRAY;
    break;
  default:
    break;
  }
  return f;
}

static inline CORBA_unsigned_long flags_of(CORBA_TypeCode tc, CORBA_unsigned_long f)
{
  return (f & CORBAORB_F_KNOWN) ? f : corbaorb_tc_flags(tc);
}

/* An out value (or a result, IS_RET) the ORB allocates a block for. */
static inline int out_alloc(CORBA_unsigned_long f, int is_ret)
{
  return ((f & CORBAORB_F_VAR) && !(f & CORBAORB_F_PTR)) || (is_ret && (f & CORBAORB_F_ARRAY));
}

/* The numeric kinds straight through the stream's inline primitives (a
 * descriptor walk costs more than the call it marshals); -1 for others. */
static inline int fast_write(cdr_out *o, CORBA_TypeCode tc, const void *src)
{
  switch (tc->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR:
    cdr_put_octet(o, *(const uint8_t *)src);
    break;
  case CDR_K_SHORT: case CDR_K_USHORT: {
    uint16_t v;
    memcpy(&v, src, 2);
    cdr_put_ushort(o, v);
    break;
  }
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: {
    uint32_t v;
    memcpy(&v, src, 4);
    cdr_put_ulong(o, v);
    break;
  }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: {
    uint64_t v;
    memcpy(&v, src, 8);
    cdr_put_ulonglong(o, v);
    break;
  }
  default:
    return -1;
  }
  return cdr_out_status(o);
}

static inline int fast_read(cdr_in *i, CORBA_TypeCode tc, void *dst)
{
  switch (tc->kind) {
  case CDR_K_OCTET: case CDR_K_CHAR:
    *(uint8_t *)dst = cdr_get_octet(i);
    break;
  case CDR_K_SHORT: case CDR_K_USHORT: {
    uint16_t v = cdr_get_ushort(i);
    memcpy(dst, &v, 2);
    break;
  }
  case CDR_K_LONG: case CDR_K_ULONG: case CDR_K_FLOAT: {
    uint32_t v = cdr_get_ulong(i);
    memcpy(dst, &v, 4);
    break;
  }
  case CDR_K_LONGLONG: case CDR_K_ULONGLONG: case CDR_K_DOUBLE: {
    uint64_t v = cdr_get_ulonglong(i);
    memcpy(dst, &v, 8);
    break;
  }
  default:
    return -1;
  }
  return cdr_in_status(i);
}

static inline int read_value(cdr_in *i, CORBA_TypeCode tc, void *dst)
{
  int rc = fast_read(i, tc, dst);
  return rc != -1 ? rc : cdr_read(i, tc, dst);
}

/* An unbounded string's C value (an alias of string included), or NULL:
 * the string paths below, which cdr_read()/cdr_write() would take with a
 * copy or a scan more. */
static inline CORBA_TypeCode plain_string(CORBA_TypeCode tc)
{
  if (tc->kind == CDR_K_ALIAS)
    tc = corbaorb_tc_unalias(tc);
  return tc && tc->kind == CDR_K_STRING && tc->u.str.bound == 0 ? tc : NULL;
}

/* An in string of the server: when no code-set conversion is due, a
 * pointer into the request buffer itself (CDR strings carry their NUL,
 * which cdr_get_string_view() checks, as it checks for one inside), valid
 * as long as the request: the ORB owns in arguments for the upcall (C
 * mapping, 1.21 "Argument Passing Considerations").  Otherwise the arena
 * copy cdr_read() makes. */
static inline int read_in_string(cdr_in *i, CORBA_TypeCode tc, void *dst, uint32_t *len)
{
  if (i->opts.ncs_c != i->opts.tcs_c)
    return cdr_read(i, tc, dst);
  const char *v;
  int rc = cdr_get_string_view(i, &v, len);
  *(const char **)dst = rc == CDR_OK ? v : NULL;
  return rc;
}

/* A string the mapping makes the receiver own (a result, an out or inout
 * value; on the server an inout argument) into *DST as a CORBA_free block:
 * when no code-set conversion is due, checked in place
 * (cdr_get_string_view(): its NUL, none inside) and copied once, its length
 * known; otherwise converted into the arena by cdr_read() and copied from
 * there.  On error *DST is NULL. */
static int read_owned_string(cdr_in *i, CORBA_TypeCode tc, char **dst)
{
  *dst = NULL;
  if (i->opts.ncs_c != i->opts.tcs_c) {
    char *tmp = NULL;
    int rc = cdr_read(i, tc, &tmp);
    if (rc == CDR_OK && !(*dst = CORBA_string_dup(tmp)))
      rc = CDR_E_NOMEM;
    return rc;
  }
  const char *v;
  uint32_t len;
  int rc = cdr_get_string_view(i, &v, &len);
  if (rc == CDR_OK && !(*dst = corbaorb_string_n(v, len)))
    rc = CDR_E_NOMEM;
  return rc;
}

/* CORBA_free as iiop_request_hold() calls it. */
static void free_held(void *p)
{
  CORBA_free(p);
}

/* Write the string *SP that the ORB frees after the reply (what a servant
 * returned as a result, out or inout value; an unbounded string type) into
 * REQ's reply O.  When it is long enough to go by reference
 * (CDR_OUT_REF_MIN), no code-set conversion is due and REQ takes it
 * (iiop_request_hold(): freed once the reply is out), it is sent from the
 * block itself and *SP set NULL (the hold frees it); otherwise copied.
 * strlen() finds the first NUL, so no second scan for one inside. */
static void write_owned_string(iiop_request *req, cdr_out *o, char **sp)
{
  char *s = *sp;
  if (!s) {
    cdr_out_fail(o, CDR_E_INVALID, "NULL string member");
    return;
  }
  if (o->opts.ncs_c != o->opts.tcs_c) {
    cdr_put_string(o, s); /* converted */
    return;
  }
  size_t len = strlen(s);
  if (len < CDR_OUT_REF_MIN) {
    cdr_put_string_view(o, s, len); /* copied: too short for a segment */
    return;
  }
  if (cdr_out_status(o) == CDR_OK && cdr_out_nrefs(o) < CDR_OUT_REFS &&
      iiop_request_hold(req, free_held, s) == CDR_OK) {
    *sp = NULL;
    cdr_put_string_view(o, s, len); /* by reference while the stream gathers */
    return;
  }
  cdr_put_string(o, s); /* copied: the block goes with the others */
}

/* Write the caller's in (or inout) string S of a call into its request O:
 * by reference when it is long enough and no conversion is due (the
 * request stream gathers, and S outlives iiop_call_invoke()). */
static void write_in_string(cdr_out *o, const char *s)
{
  if (o->opts.ncs_c != o->opts.tcs_c) {
    cdr_put_string(o, s);
    return;
  }
  cdr_put_string_view(o, s, strlen(s)); /* strlen() found the first NUL */
}

/* A sequence<octet>'s TypeCode, bounded or not (an alias of one, octet
 * elements through aliases included), unaliased; or NULL. */
static inline CORBA_TypeCode octet_seq(CORBA_TypeCode tc)
{
  if (tc->kind == CDR_K_ALIAS)
    tc = corbaorb_tc_unalias(tc);
  if (!tc || tc->kind != CDR_K_SEQUENCE || !tc->u.seq.elem)
    return NULL;
  CORBA_TypeCode e = corbaorb_tc_unalias(tc->u.seq.elem);
  return e && e->kind == CDR_K_OCTET ? tc : NULL;
}

/* A sequence<octet> (TC, octet_seq()) read as a view into I's buffer into
 * *P and *N, its bound checked (CDR_E_VALUE past it, as cdr_read()). */
static int read_octets_view(cdr_in *i, CORBA_TypeCode tc, const uint8_t **p, uint32_t *n)
{
  int rc = cdr_get_octets_view(i, p, n);
  if (rc == CDR_OK && tc->u.seq.bound && *n > tc->u.seq.bound)
    rc = cdr_in_fail(i, CDR_E_VALUE, "sequence longer than its bound");
  return rc;
}

/* A sequence<octet> (TC, octet_seq()) at SRC written to O: its octets by
 * reference when they are many enough (cdr_put_seq_ref(): the caller keeps
 * them valid until O is sent); the checks of cdr_write(). */
static int write_octets(cdr_out *o, CORBA_TypeCode tc, const void *src)
{
  cdr_seq q;
  memcpy(&q, src, sizeof q);
  if (q._length && !q._buffer)
    return cdr_out_fail(o, CDR_E_INVALID, "NULL sequence buffer of nonzero length");
  if (tc->u.seq.bound && q._length > tc->u.seq.bound)
    return cdr_out_fail(o, CDR_E_VALUE, "sequence longer than its bound");
  cdr_put_seq_ref(o, q._buffer, q._length, 1);
  return cdr_out_status(o);
}

/* The sequence<octet> block *BP (a result or out value the servant
 * returned: a CORBA_free block of TC, octet_seq()) into REQ's reply O: by
 * reference from its buffer when that is long enough, the block owns it
 * (_release) and REQ takes the block (iiop_request_hold(); *BP set NULL),
 * else copied. */
static void write_owned_octets(iiop_request *req, cdr_out *o, CORBA_TypeCode tc, void **bp)
{
  const cdr_seq *q = *bp;
  if (q->_length >= CDR_OUT_REF_MIN && q->_buffer && q->_release && cdr_out_status(o) == CDR_OK &&
      cdr_out_nrefs(o) < CDR_OUT_REFS && iiop_request_hold(req, free_held, *bp) == CDR_OK) {
    void *blk = *bp;
    *bp = NULL;
    write_octets(o, tc, blk);
    return;
  }
  cdr_write(o, tc, q);
}

static int write_value(cdr_out *o, CORBA_TypeCode tc, CORBA_unsigned_long f, const void *src)
{
  if (f & CORBAORB_F_OBJREF)
    return corbaorb_object_write(o, *(CORBA_Object const *)src);
  if ((f & CORBAORB_F_PTR) && plain_string(tc)) {
    /* strlen() finds the first NUL: no second scan for one inside */
    const char *s = *(const char *const *)src;
    if (!s)
      return cdr_out_fail(o, CDR_E_INVALID, "NULL string member");
    cdr_put_string(o, s);
    return cdr_out_status(o);
  }
  int rc = fast_write(o, tc, src);
  return rc != -1 ? rc : cdr_write(o, tc, src);
}

/* Read a value of TC into DST (tc->size octets) as the caller's own: fixed
 * values straight there, variable ones through the arena, then copied
 * into CORBA_free blocks.  Values (CORBAORB_F_VALUES) are decoded into the
 * graph *GP (made on first use; one per message, so that indirections
 * between parameters stay in one graph) and stay there: the copy holds
 * references to it (corba.h, "Values").  GP NULL: values cannot be read
 * (CDR_E_UNSUPPORTED).  On error DST holds nothing to free. */
static int read_owned(CORBA_ORB orb, cdr_in *i, CORBA_TypeCode tc, CORBA_unsigned_long f,
                      void *dst, corbaorb_graph **gp)
{
  if (f & CORBAORB_F_OBJREF)
    return corbaorb_object_read(orb, i, (CORBA_Object *)dst);
  if (!(f & CORBAORB_F_VAR))
    return read_value(i, tc, dst);
  if ((f & CORBAORB_F_PTR) && plain_string(tc))
    return read_owned_string(i, tc, (char **)dst);
  CORBA_TypeCode sq = octet_seq(tc);
  if (sq) {
    /* checked in place, copied once into the buffer the receiver owns */
    cdr_seq q = { 0, 0, NULL, 0 };
    const uint8_t *v;
    uint32_t n;
    int rc = read_octets_view(i, sq, &v, &n);
    if (rc == CDR_OK) { /* a block even for none, as corbaorb_copy() makes */
      if (!(q._buffer = corbaorb_octets_n(n ? v : (const uint8_t *)"", n)))
        rc = CDR_E_NOMEM;
      q._maximum = q._length = n;
      q._release = 1;
    }
    if (rc == CDR_OK)
      memcpy(dst, &q, sizeof q);
    else
      memset(dst, 0, sizeof q);
    return rc;
  }
  cdr_arena *a = cdr_in_arena(i);
  corbaorb_graph *g = NULL;
  if ((f & CORBAORB_F_VALUES) && gp) {
    if (!*gp && !(*gp = corbaorb_graph_new()))
      return CDR_E_NOMEM;
    g = *gp;
    cdr_in_set_arena(i, corbaorb_graph_arena(g)); /* what the read decodes lives there */
  }
  void *tmp = cdr_in_arena(i) ? cdr_arena_alloc(cdr_in_arena(i), tc->size ? tc->size : 1,
                                                tc->align ? tc->align : 1)
                              : NULL;
  if (!tmp) {
    cdr_in_set_arena(i, a);
    return CDR_E_NOMEM;
  }
  memset(tmp, 0, tc->size);
  int rc = cdr_read(i, tc, tmp);
  cdr_in_set_arena(i, a);
  if (rc == CDR_OK)
    rc = corbaorb_copy_graph(tc, dst, tmp, g);
  else
    memset(dst, 0, tc->size);
  if (f & CORBAORB_F_REFS) /* the copy holds references of its own */
    corbaorb_release_refs(tc, tmp);
  if (rc != CDR_OK) {
    corbaorb_free_contents(tc, dst);
    memset(dst, 0, tc->size);
  }
  return rc;
}

/* Where an out value or result goes: fills the caller's slot SLOT. */
static int read_out(CORBA_ORB orb, cdr_in *i, CORBA_TypeCode tc, CORBA_unsigned_long f,
                    void *slot, int is_ret, corbaorb_graph **gp)
{
  if (!out_alloc(f, is_ret))
    return read_owned(orb, i, tc, f, slot, gp);
  void *blk = corbaorb_alloc(tc, 1);
  if (!blk)
    return CDR_E_NOMEM;
  int rc = read_owned(orb, i, tc, f, blk, gp);
  if (rc != CDR_OK) {
    CORBA_free(blk);
    blk = NULL;
  }
  *(void **)slot = blk;
  return rc;
}

/* Give back an out value or result read by read_out (an error after it). */
static void drop_out(CORBA_TypeCode tc, CORBA_unsigned_long f, void *slot, int is_ret)
{
  if (out_alloc(f, is_ret)) {
    CORBA_free(*(void **)slot);
    *(void **)slot = NULL;
  } else {
    corbaorb_free_contents(tc, slot);
  }
}

static void set_user_exception(CORBA_ORB orb, const corbaorb_operation *op, cdr_in *res,
                               CORBA_Environment *ev)
{
  const char *id;
  uint32_t idl;
  if (cdr_get_string_view(res, &id, &idl) != CDR_OK) {
    corbaorb_env_status(ev, cdr_in_status(res), CORBA_COMPLETED_YES);
    return;
  }
  (void)orb;
  for (CORBA_unsigned_long k = 0; k < op->nexcepts; k++) {
    CORBA_TypeCode tc = op->excepts[k];
    if (!tc->repo_id || strlen(tc->repo_id) != idl || memcmp(tc->repo_id, id, idl))
      continue;
    void *v = NULL;
    if (tc->size) {
      v = corbaorb_alloc(tc, 1);
      if (!v) {
        CORBA_exception_set_system(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_YES);
        return;
      }
      corbaorb_graph *g = NULL;
      int rc = read_owned(orb, res, tc, corbaorb_tc_flags(tc), v, &g);
      corbaorb_graph_done(g);
      if (rc != CDR_OK) {
        CORBA_free(v);
        corbaorb_env_status(ev, rc, CORBA_COMPLETED_YES);
        return;
      }
    }
    CORBA_exception_free(ev);
    ev->_major = CORBA_USER_EXCEPTION;
    ev->_id = (char *)tc->repo_id; /* static: not owned */
    ev->_params = v;
    ev->_flags = v ? 2u : 0u;
    return;
  }
  /* not in the raises clause: UNKNOWN, as CORBA says (minor 1: an
   * unlisted user exception) */
  corbaorb_exception_set_system_minor(ev, ex_CORBA_UNKNOWN, 0x4f4d0000u | 1, CORBA_COMPLETED_YES);
}

/* corbaorb_set_thread_call_timeout(): CORBAORB_TIMEOUT_DEFAULT, 0 or ms. */
static __thread CORBA_long thread_timeout = CORBAORB_TIMEOUT_DEFAULT;

CORBA_long corbaorb_set_thread_call_timeout(CORBA_long ms)
{
  CORBA_long old = thread_timeout;
  if (ms >= CORBAORB_TIMEOUT_DEFAULT)
    thread_timeout = ms;
  return old;
}

void corbaorb_Object_set_call_timeout(CORBA_Object obj, CORBA_long ms, CORBA_Environment *ev)
{
  if (ev->_major != CORBA_NO_EXCEPTION || ev->_flags)
    CORBA_exception_free(ev);
  if (!obj || obj->kind != OBJ_REMOTE) {
    CORBA_exception_set_system(ev, ex_CORBA_INV_OBJREF, CORBA_COMPLETED_NO);
    return;
  }
  if (!obj->ref) { /* unreachable (TLS, orb.c): its calls raise TRANSIENT whatever the timeout */
    if (ms < CORBAORB_TIMEOUT_DEFAULT)
      CORBA_exception_set_system(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
    return;
  }
  if (iiop_ref_set_timeout(obj->ref, ms < CORBAORB_TIMEOUT_DEFAULT ? -2 : (int)ms) != CDR_OK)
    CORBA_exception_set_system(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
}

CORBA_long corbaorb_Object_call_timeout(CORBA_Object obj)
{
  return obj && obj->kind == OBJ_REMOTE && obj->ref ? iiop_ref_timeout(obj->ref)
                                                    : CORBAORB_TIMEOUT_DEFAULT;
}

void corbaorb_invoke(CORBA_Object obj, const corbaorb_operation *op, void *ret,
                     void *const *args, CORBA_Environment *ev)
{
  if (ev->_major != CORBA_NO_EXCEPTION || ev->_flags)
    CORBA_exception_free(ev);
  if (!obj || obj->kind != OBJ_REMOTE) {
    CORBA_exception_set_system(ev, ex_CORBA_INV_OBJREF, CORBA_COMPLETED_NO);
    return;
  }
  /* A parameter passed by pointer (a struct, union, any, sequence or
   * array in; every inout and out) that the caller gave as NULL: BAD_PARAM
   * before anything is sent, not a crash in the marshaller. */
  for (CORBA_unsigned_long k = 0; k < op->nparams; k++)
    if (!args[k]) {
      CORBA_exception_set_system(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
      return;
    }
  if (!obj->ref) {
    /* the ORB cannot reach it over the transports it may use (TLS: no CA
     * file, or -ORBclientTransportRule; corbaorb_object_new) */
    corbaorb_unreachable_why(obj);
    CORBA_exception_set_system(ev, ex_CORBA_TRANSIENT, CORBA_COMPLETED_NO);
    return;
  }
  iiop_call *call;
  cdr_out *o;
  int rc = iiop_call_begin(obj->ref, op->name, op->oneway, &call, &o);
  if (rc != CDR_OK) {
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
    return;
  }
  /* The thread's timeout, unless the object has one: object > thread > ORB. */
  if (thread_timeout != CORBAORB_TIMEOUT_DEFAULT && iiop_ref_timeout(obj->ref) < 0)
    (void)iiop_call_set_timeout(call, thread_timeout);
  for (CORBA_unsigned_long k = 0; k < op->nparams; k++) {
    const corbaorb_param *p = &op->params[k];
    if (p->mode == CORBAORB_OUT)
      continue;
    CORBA_unsigned_long f = flags_of(p->tc, p->flags);
    if ((f & CORBAORB_F_PTR) && plain_string(p->tc)) {
      const char *s = *(const char *const *)args[k];
      if (!s)
        cdr_out_fail(o, CDR_E_INVALID, "NULL string member");
      else
        write_in_string(o, s);
      if (cdr_out_status(o) != CDR_OK)
        break;
    } else if (octet_seq(p->tc)) {
      if (write_octets(o, octet_seq(p->tc), args[k]) != CDR_OK)
        break; /* by reference: the caller's buffer outlives the invoke */
    } else if (write_value(o, p->tc, f, args[k]) != CDR_OK) {
      break; /* the stream's status fails the invoke: nothing is sent */
    }
  }
  /* -ORBgiopMaxMsgSize: a larger request is not sent, as omniORB refuses
   * it (MARSHAL_MessageSizeExceedLimitOnClient, completion NO) */
  size_t max_msg = obj->orb->max_msg;
  if (max_msg && cdr_out_status(o) == CDR_OK && cdr_out_total(o) > max_msg) {
    char t[CORBAORB_ERROR_MAX];
    snprintf(t, sizeof t, "%s: a request of %zu octets, over -ORBgiopMaxMsgSize %zu", op->name,
             cdr_out_total(o), max_msg);
    corbaorb_set_why(obj->orb, t);
    corbaorb_exception_set_system_minor(ev, ex_CORBA_MARSHAL, CORBAORB_MINOR_MESSAGE_SIZE,
                                        CORBA_COMPLETED_NO);
    iiop_call_end(call);
    return;
  }
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == IIOP_R_SYSTEM_EXCEPTION || rc < 0) {
    const giop_system_exception *e = iiop_call_exception(call);
    const char *id = e ? e->repo_id : NULL;
    /* A call timeout: TIMEOUT, or as omniORB with throwTransientOnTimeOut,
     * TRANSIENT (the same minor: TRANSIENT_CallTimedout). */
    if (rc == CDR_E_TIMEOUT && id && obj->orb->transient_on_timeout
        && !strcmp(id, ex_CORBA_TIMEOUT))
      id = ex_CORBA_TRANSIENT;
    if (id)
      corbaorb_exception_set_system_minor(ev, id, e->minor,
                                          (CORBA_completion_status)e->completed);
    else
      corbaorb_env_status(ev, rc < 0 ? rc : CDR_E_PROTOCOL, CORBA_COMPLETED_MAYBE);
    iiop_call_end(call);
    return;
  }
  if (rc == IIOP_R_USER_EXCEPTION) {
    set_user_exception(obj->orb, op, res, ev);
    iiop_call_end(call);
    return;
  }
  if (op->oneway || !res) {
    iiop_call_end(call);
    return;
  }
  /* NO_EXCEPTION: the result, then inout and out values in order. */
  CORBA_unsigned_long done = 0;
  int have_ret = 0;
  corbaorb_graph *graph = NULL; /* the reply's values, made on first use */
  CORBA_unsigned_long rf = op->ret ? flags_of(op->ret, op->ret_flags) : 0;
  if (ret && op->ret && op->ret->kind != CDR_K_VOID) {
    rc = read_out(obj->orb, res, op->ret, rf, ret, 1, &graph);
    have_ret = rc == CDR_OK;
  }
  for (; rc == CDR_OK && done < op->nparams; done++) {
    const corbaorb_param *p = &op->params[done];
    if (p->mode == CORBAORB_IN)
      continue;
    CORBA_unsigned_long f = flags_of(p->tc, p->flags);
    if (p->mode == CORBAORB_INOUT) {
      /* the caller's old value goes; the reply's replaces it */
      if (f & CORBAORB_F_VAR) {
        corbaorb_free_contents(p->tc, args[done]);
        memset(args[done], 0, p->tc->size);
      }
      rc = read_owned(obj->orb, res, p->tc, f, args[done], &graph);
    } else {
      rc = read_out(obj->orb, res, p->tc, f, args[done], 0, &graph);
    }
  }
  /* freed unless a value was handed out; before the drops below, whose
   * last reference frees the graph itself */
  corbaorb_graph_done(graph);
  if (rc != CDR_OK) {
    /* a reply that does not decode: give back what was read */
    if (have_ret)
      drop_out(op->ret, rf, ret, 1);
    for (CORBA_unsigned_long k = 0; k < done; k++)
      if (op->params[k].mode == CORBAORB_OUT)
        drop_out(op->params[k].tc, flags_of(op->params[k].tc, op->params[k].flags), args[k], 0);
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_YES);
  }
  iiop_call_end(call);
}

/* ---------------------------------------------------------------- server side */

static const cdr_member forward_request_members[] = {
  { "forward_reference", TC_CORBA_Object, offsetof(PortableServer_ForwardRequest, forward_reference) },
};
const cdr_type TC_PortableServer_ForwardRequest_struct = {
  .kind = CDR_K_EXCEPT, .size = sizeof(PortableServer_ForwardRequest),
  .align = _Alignof(PortableServer_ForwardRequest),
  .name = "ForwardRequest", .repo_id = ex_PortableServer_ForwardRequest,
  .u.st = { forward_request_members, 1U } };

PortableServer_ForwardRequest *PortableServer_ForwardRequest__alloc(void)
{
  return corbaorb_alloc(TC_PortableServer_ForwardRequest, 1);
}

static const cdr_member forward_perm_members[] = {
  { "forward_reference", TC_CORBA_Object, offsetof(corbaorb_LocationForwardPerm, forward_reference) },
};
const cdr_type TC_corbaorb_LocationForwardPerm_struct = {
  .kind = CDR_K_EXCEPT, .size = sizeof(corbaorb_LocationForwardPerm),
  .align = _Alignof(corbaorb_LocationForwardPerm),
  .name = "LocationForwardPerm", .repo_id = ex_corbaorb_LocationForwardPerm,
  .u.st = { forward_perm_members, 1U } };

corbaorb_LocationForwardPerm *corbaorb_LocationForwardPerm__alloc(void)
{
  return corbaorb_alloc(TC_corbaorb_LocationForwardPerm, 1);
}

#define MAX_PARAMS 256

iiop_request *corbaorb_current_request(void) { return corbaorb_upcall.req; }

/* A parameter's storage holds a pointer the servant sets (a
 * variable-length out value the servant allocates). */
static inline int out_slot(const corbaorb_param *p, CORBA_unsigned_long f)
{
  return p->mode == CORBAORB_OUT && out_alloc(f, 0);
}

int corbaorb_dispatch(void *servant, iiop_request *req, cdr_in *args, cdr_out *result,
                      const corbaorb_operation *op, corbaorb_skel_fn glue)
{
  PortableServer_ServantBase *sb = servant;
  CORBA_ORB orb = NULL; /* for object references among the arguments */
  cdr_arena *a = cdr_in_arena(args);
  CORBA_unsigned_long np = op->nparams;
  if (!a || np > MAX_PARAMS)
    return CDR_E_NOMEM;
  void *avbuf[8];
  CORBA_unsigned_long fbuf[8];
  void **av = avbuf;
  CORBA_unsigned_long *fl = fbuf;
  if (np > 8) {
    av = cdr_arena_alloc(a, np * sizeof(void *), _Alignof(void *));
    fl = cdr_arena_alloc(a, np * sizeof *fl, _Alignof(CORBA_unsigned_long));
    if (!av || !fl)
      return CDR_E_NOMEM;
  }
  /* each parameter's storage (its C value, or for the variable-length outs
   * the servant allocates, a pointer slot), in the request's arena */
  int rc = CDR_OK;
  CORBA_unsigned_long k;
  corbaorb_graph *graph = NULL; /* inout values the servant may replace */
  const char *view = NULL; /* the last in string read as a view, for CORBA_string_dup() */
  size_t view_len = 0;
  for (k = 0; k < np; k++) {
    const corbaorb_param *p = &op->params[k];
    CORBA_unsigned_long f = fl[k] = flags_of(p->tc, p->flags);
    size_t size = p->tc->size, align = p->tc->align ? p->tc->align : 1;
    if (out_slot(p, f)) {
      size = sizeof(void *);
      align = _Alignof(void *);
    }
    void *st = cdr_arena_alloc(a, size ? size : 1, align);
    if (!st) {
      rc = CDR_E_NOMEM;
      break;
    }
    av[k] = st;
    if (p->mode == CORBAORB_OUT) {
      memset(st, 0, size);
      continue;
    }
    if (f & CORBAORB_F_OBJREF) {
      servant_priv *sp = sb->_private;
      orb = sp && sp->poa ? sp->poa->orb : NULL;
      rc = corbaorb_object_read(orb, args, (CORBA_Object *)st);
    } else if (p->mode == CORBAORB_IN || !(f & CORBAORB_F_VAR)) {
      if (f & CORBAORB_F_REFS)
        memset(st, 0, size); /* so that a partial read's references can be released */
      if (p->mode == CORBAORB_IN && (f & CORBAORB_F_PTR) && plain_string(p->tc)) {
        uint32_t len = 0;
        *(const char **)st = NULL;
        rc = read_in_string(args, p->tc, st, &len); /* in the request buffer itself */
        if (rc == CDR_OK && args->opts.ncs_c == args->opts.tcs_c) {
          view = *(const char **)st;
          view_len = len;
        }
      } else if (p->mode == CORBAORB_IN && octet_seq(p->tc)) {
        /* a view into the request buffer, _release 0 (as an arena copy's) */
        const uint8_t *v = NULL;
        uint32_t n = 0;
        rc = read_octets_view(args, octet_seq(p->tc), &v, &n);
        cdr_seq q = { n, n, n ? (void *)v : NULL, 0 };
        memcpy(st, &q, sizeof q);
      } else
        rc = read_value(args, p->tc, st); /* in the request's arena */
    } else {
      memset(st, 0, size);
      rc = read_owned(orb, args, p->tc, f, st, &graph); /* inout: the servant may replace parts */
    }
    if (rc != CDR_OK) {
      k++; /* its storage may hold references the cleanup below gives back */
      break;
    }
  }
  corbaorb_graph_done(graph); /* the inout values hold references to it, or nothing does */
  if (rc != CDR_OK) {
    for (CORBA_unsigned_long j = 0; j < k; j++) {
      if ((fl[j] & CORBAORB_F_OBJREF) ||
          (op->params[j].mode == CORBAORB_INOUT && (fl[j] & CORBAORB_F_VAR)))
        corbaorb_free_contents(op->params[j].tc, av[j]);
      else if (op->params[j].mode == CORBAORB_IN && (fl[j] & CORBAORB_F_REFS))
        corbaorb_release_refs(op->params[j].tc, av[j]);
    }
    return rc;
  }
  void *ret = NULL;
  int has_ret = op->ret && op->ret->kind != CDR_K_VOID;
  CORBA_unsigned_long rf = has_ret ? flags_of(op->ret, op->ret_flags) : 0;
  int ret_ptr = has_ret && out_alloc(rf, 1);
  if (has_ret) {
    size_t size = ret_ptr ? sizeof(void *) : op->ret->size;
    ret = cdr_arena_alloc(a, size ? size : 1, ret_ptr ? _Alignof(void *) : op->ret->align);
    if (!ret)
      return CDR_E_NOMEM; /* the glue stores the servant's result there, whatever happens */
  }

  CORBA_Environment ev;
  ev._major = CORBA_NO_EXCEPTION;
  ev._id = NULL;
  ev._params = NULL;
  ev._flags = 0;
  corbaorb_upcall_state *up = &corbaorb_upcall; /* this thread's, across the upcall */
  iiop_request *outer = up->req;
  const char *outer_view = up->in_view; /* a callback nested in an upcall of this thread */
  size_t outer_view_len = up->in_view_len;
  up->req = req;
  up->in_view = view;
  up->in_view_len = view_len;
  up->in_dispatch++;
  glue(servant, av, ret, &ev);
  up->in_dispatch--;
  up->req = outer;
  up->in_view = outer_view;
  up->in_view_len = outer_view_len;

  int out = CDR_OK;
  if (ev._major == CORBA_NO_EXCEPTION) {
    if (has_ret) {
      const void *src = ret_ptr ? *(void **)ret : ret;
      if (!src)
        out = CDR_E_INVALID; /* a servant returned NULL where a value is due */
      else if ((rf & CORBAORB_F_PTR) && plain_string(op->ret))
        write_owned_string(req, result, (char **)ret); /* by reference, freed after the reply */
      else if (ret_ptr && octet_seq(op->ret))
        write_owned_octets(req, result, octet_seq(op->ret), (void **)ret); /* as strings */
      else
        write_value(result, op->ret, rf, src);
    }
    for (k = 0; out == CDR_OK && k < np; k++) {
      const corbaorb_param *p = &op->params[k];
      if (p->mode == CORBAORB_IN)
        continue;
      const void *src = out_slot(p, fl[k]) ? *(void **)av[k] : av[k];
      if (!src)
        out = CDR_E_INVALID;
      else if ((fl[k] & CORBAORB_F_PTR) && plain_string(p->tc))
        write_owned_string(req, result, (char **)av[k]); /* as the result */
      else if (out_slot(p, fl[k]) && octet_seq(p->tc))
        write_owned_octets(req, result, octet_seq(p->tc), (void **)av[k]);
      else
        write_value(result, p->tc, fl[k], src);
    }
    if (out == CDR_OK)
      out = cdr_out_status(result);
    if (out != CDR_OK)
      iiop_request_set_completed(req, GIOP_COMPLETED_YES);
  } else if (ev._major == CORBA_USER_EXCEPTION && ev._id &&
             (!strcmp(ev._id, ex_PortableServer_ForwardRequest) ||
              !strcmp(ev._id, ex_corbaorb_LocationForwardPerm))) {
    /* a forward (corbaorb/corba.h): the reference's IOR string, parsed and
     * copied by libiiop, PERM for LocationForwardPerm (libiiop answers a
     * GIOP 1.0/1.1 request with a plain LOCATION_FORWARD); EV (and the
     * reference) go below.  Both exceptions hold only forward_reference. */
    _Static_assert(offsetof(PortableServer_ForwardRequest, forward_reference) ==
                   offsetof(corbaorb_LocationForwardPerm, forward_reference),
                   "one layout for both forwards");
    int perm = !strcmp(ev._id, ex_corbaorb_LocationForwardPerm);
    const PortableServer_ForwardRequest *fr = ev._params;
    CORBA_Object to = fr ? fr->forward_reference : CORBA_OBJECT_NIL;
    if (to && to->kind == OBJ_REMOTE && to->str) {
      out = iiop_request_set_forward(req, to->str, perm);
    } else {
      giop_system_exception e = { ex_CORBA_BAD_PARAM, 0, GIOP_COMPLETED_NO };
      iiop_request_set_exception(req, &e);
      out = IIOP_R_SYSTEM_EXCEPTION;
    }
  } else if (ev._major == CORBA_USER_EXCEPTION) {
    CORBA_TypeCode etc = NULL;
    for (CORBA_unsigned_long j = 0; j < op->nexcepts; j++)
      if (op->excepts[j]->repo_id && ev._id && !strcmp(op->excepts[j]->repo_id, ev._id))
        etc = op->excepts[j];
    if (etc) {
      cdr_put_string(result, ev._id);
      if (etc->size && ev._params)
        cdr_write(result, etc, ev._params);
      out = cdr_out_status(result) == CDR_OK ? IIOP_R_USER_EXCEPTION : cdr_out_status(result);
    } else {
      giop_system_exception e = { ex_CORBA_UNKNOWN, 0x4f4d0000u | 1, GIOP_COMPLETED_MAYBE };
      iiop_request_set_exception(req, &e);
      out = IIOP_R_SYSTEM_EXCEPTION;
    }
  } else {
    /* a system exception: its ID into the request's arena (EV goes now) */
    size_t n = ev._id ? strlen(ev._id) + 1 : 0;
    char *id = n ? cdr_arena_alloc(a, n, 1) : NULL;
    if (id)
      memcpy(id, ev._id, n);
    giop_system_exception e = { id ? id : ex_CORBA_UNKNOWN, ev._sys.minor,
                                (uint32_t)ev._sys.completed };
    iiop_request_set_exception(req, &e);
    out = IIOP_R_SYSTEM_EXCEPTION;
  }

  /* What the servant returned, and the inout and object-reference
   * arguments, are the ORB's to free now that they are written. */
  if (ret_ptr)
    CORBA_free(*(void **)ret);
  else if (rf & CORBAORB_F_VAR)
    corbaorb_free_contents(op->ret, ret);
  for (k = 0; k < np; k++) {
    const corbaorb_param *p = &op->params[k];
    if (out_slot(p, fl[k]))
      CORBA_free(*(void **)av[k]);
    else if ((fl[k] & CORBAORB_F_VAR) && (p->mode != CORBAORB_IN || (fl[k] & CORBAORB_F_OBJREF)))
      corbaorb_free_contents(p->tc, av[k]);
    else if (fl[k] & CORBAORB_F_REFS) /* an in value in the arena: its references */
      corbaorb_release_refs(p->tc, av[k]);
  }
  if (ev._major != CORBA_NO_EXCEPTION)
    CORBA_exception_free(&ev);
  if (!up->in_dispatch && up->pending_finalize)
    corbaorb_run_pending_finalize();
  return out;
}
