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
 * decoded into the call's arena, then copied once into CORBA_free blocks.
 * On the server, in arguments are decoded into the request's arena and
 * passed to the servant from there (nothing allocated); inout values the
 * servant may replace are copied into CORBA_free blocks first; what the
 * servant returns is freed after the reply is written.
 */
#include "orb_impl.h"
#include <string.h>

static int is_objref(CORBA_TypeCode tc)
{
  tc = corbaorb_tc_unalias(tc);
  return tc && (tc->kind == CDR_K_OBJREF || tc->kind == CDR_K_ABSTRACT_INTERFACE);
}

/* Values whose C form is a pointer the ORB stores in place (T * out). */
static int is_pointer_kind(CORBA_TypeCode tc)
{
  tc = corbaorb_tc_unalias(tc);
  switch (tc->kind) {
  case CDR_K_STRING: case CDR_K_WSTRING: case CDR_K_TYPECODE: case CDR_K_OBJREF:
  case CDR_K_ABSTRACT_INTERFACE: case CDR_K_LOCAL_INTERFACE: case CDR_K_VALUE:
    return 1;
  default:
    return 0;
  }
}

static int is_array(CORBA_TypeCode tc)
{
  tc = corbaorb_tc_unalias(tc);
  return tc->kind == CDR_K_ARRAY;
}

static int write_value(cdr_out *o, CORBA_TypeCode tc, const void *src)
{
  if (is_objref(tc))
    return corbaorb_object_write(o, *(CORBA_Object const *)src);
  return cdr_write(o, tc, src);
}

/* Read a value of TC into DST (tc->size octets) as the caller's own: fixed
 * values straight there, variable ones through the arena, then copied
 * into CORBA_free blocks.  On error DST holds nothing to free. */
static int read_owned(CORBA_ORB orb, cdr_in *i, CORBA_TypeCode tc, void *dst)
{
  if (is_objref(tc))
    return corbaorb_object_read(orb, i, (CORBA_Object *)dst);
  if (!corbaorb_tc_variable_depth(tc, 0))
    return cdr_read(i, tc, dst);
  cdr_arena *a = cdr_in_arena(i);
  void *tmp = a ? cdr_arena_alloc(a, tc->size ? tc->size : 1, tc->align ? tc->align : 1) : NULL;
  if (!tmp)
    return CDR_E_NOMEM;
  memset(tmp, 0, tc->size);
  int rc = cdr_read(i, tc, tmp);
  if (rc != CDR_OK)
    return rc;
  rc = corbaorb_copy(tc, dst, tmp);
  if (rc != CDR_OK) {
    corbaorb_free_contents(tc, dst);
    memset(dst, 0, tc->size);
  }
  return rc;
}

/* Where an out value or result goes: fills the caller's slot SLOT. */
static int read_out(CORBA_ORB orb, cdr_in *i, CORBA_TypeCode tc, void *slot, int is_ret)
{
  int alloc = corbaorb_tc_variable_depth(tc, 0) && !is_pointer_kind(tc);
  if (is_ret && is_array(tc))
    alloc = 1;
  if (!alloc)
    return read_owned(orb, i, tc, slot);
  void *blk = corbaorb_alloc(tc, 1);
  if (!blk)
    return CDR_E_NOMEM;
  int rc = read_owned(orb, i, tc, blk);
  if (rc != CDR_OK) {
    CORBA_free(blk);
    blk = NULL;
  }
  *(void **)slot = blk;
  return rc;
}

/* Give back an out value or result read by read_out (an error after it). */
static void drop_out(CORBA_TypeCode tc, void *slot, int is_ret)
{
  int alloc = corbaorb_tc_variable_depth(tc, 0) && !is_pointer_kind(tc);
  if (is_ret && is_array(tc))
    alloc = 1;
  if (alloc) {
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
      int rc = read_owned(orb, res, tc, v);
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

void corbaorb_invoke(CORBA_Object obj, const corbaorb_operation *op, void *ret,
                     void *const *args, CORBA_Environment *ev)
{
  if (ev->_major != CORBA_NO_EXCEPTION || ev->_flags)
    CORBA_exception_free(ev);
  if (!obj || obj->kind != OBJ_REMOTE) {
    CORBA_exception_set_system(ev, ex_CORBA_INV_OBJREF, CORBA_COMPLETED_NO);
    return;
  }
  iiop_call *call;
  cdr_out *o;
  int rc = iiop_call_begin(obj->ref, op->name, op->oneway, &call, &o);
  if (rc != CDR_OK) {
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
    return;
  }
  for (CORBA_unsigned_long k = 0; k < op->nparams; k++)
    if (op->params[k].mode != CORBAORB_OUT &&
        write_value(o, op->params[k].tc, args[k]) != CDR_OK)
      break; /* the stream's status fails the invoke: nothing is sent */
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == IIOP_R_SYSTEM_EXCEPTION || rc < 0) {
    const giop_system_exception *e = iiop_call_exception(call);
    if (e && e->repo_id)
      corbaorb_exception_set_system_minor(ev, e->repo_id, e->minor,
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
  if (ret && op->ret && corbaorb_tc_unalias(op->ret)->kind != CDR_K_VOID) {
    rc = read_out(obj->orb, res, op->ret, ret, 1);
    have_ret = rc == CDR_OK;
  }
  for (; rc == CDR_OK && done < op->nparams; done++) {
    const corbaorb_param *p = &op->params[done];
    if (p->mode == CORBAORB_IN)
      continue;
    if (p->mode == CORBAORB_INOUT) {
      /* the caller's old value goes; the reply's replaces it */
      if (corbaorb_tc_variable_depth(p->tc, 0)) {
        corbaorb_free_contents(p->tc, args[done]);
        memset(args[done], 0, p->tc->size);
      }
      rc = read_owned(obj->orb, res, p->tc, args[done]);
    } else {
      rc = read_out(obj->orb, res, p->tc, args[done], 0);
    }
  }
  if (rc != CDR_OK) {
    /* a reply that does not decode: give back what was read */
    if (have_ret)
      drop_out(op->ret, ret, 1);
    for (CORBA_unsigned_long k = 0; k < done; k++)
      if (op->params[k].mode == CORBAORB_OUT)
        drop_out(op->params[k].tc, args[k], 0);
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_YES);
  }
  iiop_call_end(call);
}

/* ---------------------------------------------------------------- server side */

#define MAX_PARAMS 256

int corbaorb_dispatch(void *servant, iiop_request *req, cdr_in *args, cdr_out *result,
                      const corbaorb_operation *op, corbaorb_skel_fn glue)
{
  PortableServer_ServantBase *sb = servant;
  servant_priv *sp = sb->_private;
  CORBA_ORB orb = sp && sp->poa ? sp->poa->orb : NULL;
  cdr_arena *a = cdr_in_arena(args);
  if (!a || op->nparams > MAX_PARAMS)
    return CDR_E_NOMEM;
  void **av = op->nparams ? cdr_arena_alloc(a, op->nparams * sizeof(void *), _Alignof(void *))
                          : NULL;
  if (op->nparams && !av)
    return CDR_E_NOMEM;
  /* slots: the storage of each parameter (its C value), and for the
   * variable-length outs allocated by the servant, a pointer slot */
  int rc = CDR_OK;
  CORBA_unsigned_long k;
  for (k = 0; k < op->nparams; k++) {
    const corbaorb_param *p = &op->params[k];
    size_t size = p->tc->size, align = p->tc->align ? p->tc->align : 1;
    int ptr_slot = p->mode == CORBAORB_OUT && corbaorb_tc_variable_depth(p->tc, 0) &&
                   !is_pointer_kind(p->tc);
    if (ptr_slot) {
      size = sizeof(void *);
      align = _Alignof(void *);
    }
    void *st = cdr_arena_alloc(a, size ? size : 1, align);
    if (!st) {
      rc = CDR_E_NOMEM;
      break;
    }
    memset(st, 0, size);
    av[k] = st;
    if (p->mode == CORBAORB_OUT)
      continue;
    if (is_objref(p->tc))
      rc = corbaorb_object_read(orb, args, (CORBA_Object *)st);
    else if (p->mode == CORBAORB_IN || !corbaorb_tc_variable_depth(p->tc, 0))
      rc = cdr_read(args, p->tc, st); /* in the request's arena */
    else
      rc = read_owned(orb, args, p->tc, st); /* inout: the servant may replace parts */
    if (rc != CDR_OK)
      break;
  }
  if (rc != CDR_OK) {
    for (CORBA_unsigned_long j = 0; j < k; j++)
      if (is_objref(op->params[j].tc) ||
          (op->params[j].mode == CORBAORB_INOUT && corbaorb_tc_variable_depth(op->params[j].tc, 0)))
        corbaorb_free_contents(op->params[j].tc, av[j]);
    return rc;
  }
  void *ret = NULL;
  int has_ret = op->ret && corbaorb_tc_unalias(op->ret)->kind != CDR_K_VOID;
  int ret_ptr = 0;
  if (has_ret) {
    ret_ptr = is_array(op->ret) ||
              (corbaorb_tc_variable_depth(op->ret, 0) && !is_pointer_kind(op->ret));
    size_t size = ret_ptr ? sizeof(void *) : op->ret->size;
    ret = cdr_arena_alloc(a, size ? size : 1, ret_ptr ? _Alignof(void *) : op->ret->align);
    if (!ret)
      return CDR_E_NOMEM;
    memset(ret, 0, size);
  }

  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  corbaorb_in_dispatch++;
  glue(servant, av, ret, &ev);
  corbaorb_in_dispatch--;

  int out = CDR_OK;
  if (ev._major == CORBA_NO_EXCEPTION) {
    if (has_ret) {
      const void *src = ret_ptr ? *(void **)ret : ret;
      if (!src)
        out = CDR_E_INVALID; /* a servant returned NULL where a value is due */
      else
        write_value(result, op->ret, src);
    }
    for (k = 0; out == CDR_OK && k < op->nparams; k++) {
      const corbaorb_param *p = &op->params[k];
      if (p->mode == CORBAORB_IN)
        continue;
      int ptr_slot = p->mode == CORBAORB_OUT && corbaorb_tc_variable_depth(p->tc, 0) &&
                     !is_pointer_kind(p->tc);
      const void *src = ptr_slot ? *(void **)av[k] : av[k];
      if (!src)
        out = CDR_E_INVALID;
      else
        write_value(result, p->tc, src);
    }
    if (out == CDR_OK)
      out = cdr_out_status(result);
    if (out != CDR_OK)
      iiop_request_set_completed(req, GIOP_COMPLETED_YES);
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
  if (has_ret) {
    if (ret_ptr)
      CORBA_free(*(void **)ret);
    else
      corbaorb_free_contents(op->ret, ret);
  }
  for (k = 0; k < op->nparams; k++) {
    const corbaorb_param *p = &op->params[k];
    int ptr_slot = p->mode == CORBAORB_OUT && corbaorb_tc_variable_depth(p->tc, 0) &&
                   !is_pointer_kind(p->tc);
    if (ptr_slot)
      CORBA_free(*(void **)av[k]);
    else if (p->mode != CORBAORB_IN || is_objref(p->tc))
      corbaorb_free_contents(p->tc, av[k]);
  }
  CORBA_exception_free(&ev);
  if (!corbaorb_in_dispatch)
    corbaorb_run_pending_finalize();
  return out;
}
