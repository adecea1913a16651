/* bench_idl.c - descriptors, client stubs and server skeleton of
 * tests/interop/Bench.idl (see bench_idl.h). */
#include <stddef.h>
#include <cdr/cdr.h>
#include <iiop/orb.h>
#include "bench_idl.h"

/* ---------------------------------------------------------------- descriptors */

const cdr_type Bench_Node_type = {
  .kind = CDR_K_VALUE, .size = sizeof(Bench_Node *), .align = _Alignof(Bench_Node *),
  .name = "Node", .repo_id = BENCH_NODE_ID, .u.val.vt = &Bench_Node_vt,
};

static const cdr_member Node_members[] = {
  CDR_MEMBER(Bench_Node, id, &cdr_type_long),
  CDR_MEMBER(Bench_Node, next, &Bench_Node_type),
};
cdr_value_type Bench_Node_vt = {
  .name = "Bench::Node", .repo_id = BENCH_NODE_ID,
  .members = Node_members, .nmembers = 2,
  .size = sizeof(Bench_Node), .align = _Alignof(Bench_Node),
};

static const cdr_member SubNode_members[] = {
  CDR_MEMBER(Bench_SubNode, extra, &cdr_type_long),
};
cdr_value_type Bench_SubNode_vt = {
  .name = "Bench::SubNode", .repo_id = BENCH_SUBNODE_ID, .base = &Bench_Node_vt,
  .members = SubNode_members, .nmembers = 1,
  .size = sizeof(Bench_SubNode), .align = _Alignof(Bench_SubNode),
};

static const cdr_member TruncNode_members[] = {
  CDR_MEMBER(Bench_TruncNode, extra, &cdr_type_long),
};
cdr_value_type Bench_TruncNode_vt = {
  .name = "Bench::TruncNode", .repo_id = BENCH_TRUNCNODE_ID, .base = &Bench_Node_vt,
  .flags = CDR_VT_TRUNCATABLE,
  .members = TruncNode_members, .nmembers = 1,
  .size = sizeof(Bench_TruncNode), .align = _Alignof(Bench_TruncNode),
};

static const cdr_member Pair_members[] = {
  CDR_MEMBER(Bench_Pair, a, &Bench_Node_type),
  CDR_MEMBER(Bench_Pair, b, &Bench_Node_type),
};
const cdr_type Bench_Pair_type = CDR_STRUCT_TYPE(Bench_Pair, "Bench::Pair", BENCH_PAIR_ID,
                                                 Pair_members);

int Bench_register(cdr_registry *r, unsigned flags)
{
  if (!r)
    r = cdr_registry_global();
  int rc = cdr_registry_add(r, &Bench_SubNode_vt); /* and its base, Node */
  if (rc == CDR_OK && !(flags & BENCH_REG_NO_TRUNC))
    rc = cdr_registry_add(r, &Bench_TruncNode_vt);
  return rc;
}

/* ---------------------------------------------------------------- client stubs */

/* Begin OP on R; *CALLP gets the call (NULL if it could not begin). */
static int begin(iiop_ref *r, const char *op, iiop_call **callp, cdr_out **args)
{
  *callp = NULL;
  iiop_call *call;
  int rc = iiop_call_begin(r, op, 0, &call, args);
  if (rc == CDR_OK)
    *callp = call;
  return rc;
}

int Bench_Echo_ping(iiop_ref *r, int32_t x, int32_t *ret, iiop_call **callp)
{
  iiop_call *call;
  cdr_out *args;
  int rc = begin(r, "ping", &call, &args);
  if (rc != CDR_OK) {
    if (callp)
      *callp = NULL;
    return rc;
  }
  cdr_put_long(args, x);
  cdr_in *res;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    int32_t y = cdr_get_long(res);
    rc = cdr_in_status(res);
    if (rc == CDR_OK)
      *ret = y;
  }
  if (callp)
    *callp = call;
  else
    iiop_call_end(call);
  return rc;
}

int Bench_Echo_echoGraph(iiop_ref *r, const Bench_Node *head, Bench_Node **ret,
                         iiop_call **callp)
{
  cdr_out *args;
  int rc = begin(r, "echoGraph", callp, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_value(args, &Bench_Node_vt, head); /* a failure is sticky: invoke reports it */
  cdr_in *res;
  rc = iiop_call_invoke(*callp, &res);
  if (rc != CDR_OK)
    return rc;
  void *v;
  rc = cdr_get_value(res, &Bench_Node_vt, &v);
  if (rc == CDR_OK)
    *ret = v;
  return rc;
}

/* A string argument as the skeletons and stubs read it: a view into the
 * message when no code-set conversion is needed, else a converted copy in
 * the arena; NULL on error (the stream's status). */
static const char *get_string(cdr_in *in, uint32_t *len)
{
  const cdr_opts *o = cdr_in_opts(in);
  if (o->ncs_c != o->tcs_c)
    return cdr_get_string(in, len);
  const char *v;
  return cdr_get_string_view(in, &v, len) == CDR_OK ? v : NULL;
}

int Bench_Echo_echoString(iiop_ref *r, const char *s, size_t len, const char **ret,
                          uint32_t *ret_len, iiop_call **callp)
{
  cdr_out *args;
  int rc = begin(r, "echoString", callp, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_string_ref(args, s, len);  /* S is the caller's until the call ends */
  cdr_in *res;
  rc = iiop_call_invoke(*callp, &res);
  if (rc != CDR_OK)
    return rc;
  uint32_t n;
  const char *v = get_string(res, &n);
  if (!v)
    return cdr_in_status(res);
  *ret = v;
  if (ret_len)
    *ret_len = n;
  return CDR_OK;
}

int Bench_Echo_echoWString(iiop_ref *r, const cdr_wchar *s, size_t len, cdr_wchar **ret,
                           uint32_t *ret_len, iiop_call **callp)
{
  cdr_out *args;
  int rc = begin(r, "echoWString", callp, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_wstring(args, s, len);
  cdr_in *res;
  rc = iiop_call_invoke(*callp, &res);
  if (rc != CDR_OK)
    return rc;
  uint32_t n;
  cdr_wchar *v = cdr_get_wstring(res, &n);
  if (!v)
    return cdr_in_status(res);
  *ret = v;
  if (ret_len)
    *ret_len = n;
  return CDR_OK;
}

int Bench_Echo_echoPair(iiop_ref *r, const Bench_Pair *p, Bench_Pair *ret, iiop_call **callp)
{
  cdr_out *args;
  int rc = begin(r, "echoPair", callp, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_write(args, &Bench_Pair_type, p);
  cdr_in *res;
  rc = iiop_call_invoke(*callp, &res);
  if (rc != CDR_OK)
    return rc;
  Bench_Pair v = { NULL, NULL };
  rc = cdr_read(res, &Bench_Pair_type, &v);
  if (rc == CDR_OK)
    *ret = v;
  return rc;
}

/* ---------------------------------------------------------------- server skeleton
 * Each skeleton returns the first failure: the argument stream's (MARSHAL
 * and friends, completion NO), the operation's, or the result stream's. */

static int sk_ping(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  Bench_Echo_servant *s = servant;
  int32_t x = cdr_get_long(args);
  int rc = cdr_in_status(args);
  if (rc != CDR_OK)
    return rc;
  if (!s->ops->ping)
    return CDR_E_UNSUPPORTED;
  int32_t y = 0;
  rc = s->ops->ping(s, req, x, &y);
  if (rc != CDR_OK)
    return rc;
  cdr_put_long(result, y);
  return cdr_out_status(result);
}

static int sk_echoGraph(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  Bench_Echo_servant *s = servant;
  void *head = NULL;
  int rc = cdr_get_value(args, &Bench_Node_vt, &head);
  if (rc != CDR_OK)
    return rc;
  if (!s->ops->echoGraph)
    return CDR_E_UNSUPPORTED;
  Bench_Node *ret = NULL;
  rc = s->ops->echoGraph(s, req, head, &ret);
  if (rc != CDR_OK)
    return rc;
  return cdr_put_value(result, &Bench_Node_vt, ret);
}

static int sk_echoString(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  Bench_Echo_servant *s = servant;
  uint32_t len;
  const char *str = get_string(args, &len);
  if (!str)
    return cdr_in_status(args);
  if (!s->ops->echoString)
    return CDR_E_UNSUPPORTED;
  const char *ret = NULL;
  size_t ret_len = 0;
  int rc = s->ops->echoString(s, req, str, len, &ret, &ret_len);
  if (rc != CDR_OK)
    return rc;
  if (!ret)
    return CDR_E_INVALID;
  /* The argument or a piece of it, read as a view (in the transmission
   * code set, checked for NULs): back by reference as it is; anything else
   * is checked and converted as any string result. */
  if (str != NULL && cdr_in_opts(args)->ncs_c == cdr_in_opts(args)->tcs_c && ret >= str
      && ret_len <= len && (size_t)(ret - str) <= len - ret_len)
    cdr_put_string_view(result, ret, ret_len);
  else
    cdr_put_string_ref(result, ret, ret_len);
  return cdr_out_status(result);
}

static int sk_echoWString(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  Bench_Echo_servant *s = servant;
  uint32_t len;
  cdr_wchar *str = cdr_get_wstring(args, &len);
  if (!str)
    return cdr_in_status(args);
  if (!s->ops->echoWString)
    return CDR_E_UNSUPPORTED;
  const cdr_wchar *ret = NULL;
  size_t ret_len = 0;
  int rc = s->ops->echoWString(s, req, str, len, &ret, &ret_len);
  if (rc != CDR_OK)
    return rc;
  if (!ret && ret_len)
    return CDR_E_INVALID;
  static const cdr_wchar empty[1] = { 0 };
  cdr_put_wstring(result, ret ? ret : empty, ret_len);
  return cdr_out_status(result);
}

static int sk_echoPair(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  Bench_Echo_servant *s = servant;
  Bench_Pair p = { NULL, NULL };
  int rc = cdr_read(args, &Bench_Pair_type, &p);
  if (rc != CDR_OK)
    return rc;
  if (!s->ops->echoPair)
    return CDR_E_UNSUPPORTED;
  Bench_Pair ret = { NULL, NULL };
  rc = s->ops->echoPair(s, req, &p, &ret);
  if (rc != CDR_OK)
    return rc;
  return cdr_write(result, &Bench_Pair_type, &ret);
}

static const iiop_operation echo_ops[] = {
  { "ping", sk_ping },
  { "echoGraph", sk_echoGraph },
  { "echoString", sk_echoString },
  { "echoWString", sk_echoWString },
  { "echoPair", sk_echoPair },
};

const iiop_interface Bench_Echo_interface = {
  BENCH_ECHO_ID, echo_ops, sizeof echo_ops / sizeof echo_ops[0], NULL,
};
