/* check_icept.c - client interceptor hooks (iiop/orb.h,
 * iiop_client_interceptor): send_request runs once per request actually
 * sent, so twice for a call that is forwarded once, and the contexts a
 * hook adds go once on each request; a hook raises the system exception
 * of its choice (iiop_call_set_exception()): send_request refusing the
 * first or the forwarded request, receive_reply replacing a good reply.
 *
 * Two in-process servers: A answers every request with LOCATION_FORWARD
 * to B (while told to), B answers ping(x) with x + 1 and records the
 * contexts each request carried.  Counts are exact. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

#define CTX_HOOK 0x4f4f0001u  /* the hook's context */
#define CTX_USER 0x4f4f0002u  /* the caller's own */

typedef struct servant {
  const char *fwd_ior;        /* atomic: forward every request here; NULL: answer */
  int forwards, calls;        /* atomic */
  int hook_ctx, user_ctx;     /* the last request's count of each context */
} servant;

static servant sa, sb;

static int count_ctx(iiop_request *req, uint32_t id)
{
  const giop_service_context *v;
  uint32_t n = iiop_request_service_contexts(req, &v), c = 0;
  for (uint32_t k = 0; k < n; k++)
    c += v[k].id == id;
  return (int)c;
}

static int op_ping(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  servant *sv = s;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  sv->hook_ctx = count_ctx(req, CTX_HOOK);
  sv->user_ctx = count_ctx(req, CTX_USER);
  const char *ior = __atomic_load_n(&sv->fwd_ior, __ATOMIC_ACQUIRE);
  if (ior) {
    ck_assert_int_eq(iiop_request_set_forward(req, ior, 0), CDR_OK);
    __atomic_add_fetch(&sv->forwards, 1, __ATOMIC_SEQ_CST);
    cdr_put_long(result, -1);
    return CDR_OK;
  }
  __atomic_add_fetch(&sv->calls, 1, __ATOMIC_SEQ_CST);
  cdr_put_long(result, x + 1);
  return CDR_OK;
}

static const iiop_operation ops[] = { { "ping", op_ping } };
static const iiop_interface iface = { "IDL:Test/F:1.0", ops, 1, NULL };

static iiop_server *srv_a, *srv_b;
static char ior_a[1024], ior_b[1024];

static iiop_server *start(servant *sv, char *ior, size_t cap)
{
  iiop_server *s = nu_serve(NULL, "F", &iface, sv);
  nu_server_ior(s, "F", ior, cap);
  return s;
}

static void setup(void)
{
  memset(&sa, 0, sizeof sa);
  memset(&sb, 0, sizeof sb);
  srv_a = start(&sa, ior_a, sizeof ior_a);
  srv_b = start(&sb, ior_b, sizeof ior_b);
  __atomic_store_n(&sa.fwd_ior, ior_b, __ATOMIC_RELEASE);
}

static void teardown(void)
{
  iiop_server_free(srv_a);
  iiop_server_free(srv_b);
}

/* ---------------------------------------------------------------- the hooks */

typedef struct hooks {
  char name;
  int sends, recvs;
  int last_status;
  int raise_on_send;           /* raise at this send (1-based; 0: never) */
  int raise_on_recv;           /* replace the outcome */
  int set_only;                /* send_request sets an exception, returns CDR_OK */
  char seen_ex[64];            /* receive_reply: the exception it saw ("" none) */
} hooks;

static hooks h1, h2;
static char order[128];

static int h_send(void *ud, iiop_call *call)
{
  hooks *h = ud;
  h->sends++;
  size_t n = strlen(order);
  snprintf(order + n, sizeof order - n, "%c>%d ", h->name, h->sends);
  ck_assert_int_eq(iiop_call_add_service_context(call, CTX_HOOK, "h", 1), CDR_OK);
  if (h->raise_on_send == h->sends) {
    ck_assert_int_eq(iiop_call_set_exception(call, "IDL:omg.org/CORBA/NO_PERMISSION:1.0",
                                             0x4f4d0007u, GIOP_COMPLETED_NO),
                     CDR_OK);
    return IIOP_R_SYSTEM_EXCEPTION;
  }
  if (h->set_only)                  /* set, not raised: no effect */
    ck_assert_int_eq(iiop_call_set_exception(call, "IDL:omg.org/CORBA/UNKNOWN:1.0", 1,
                                             GIOP_COMPLETED_NO),
                     CDR_OK);
  return CDR_OK;
}

static void h_recv(void *ud, iiop_call *call, int status)
{
  hooks *h = ud;
  h->recvs++;
  h->last_status = status;
  size_t n = strlen(order);
  snprintf(order + n, sizeof order - n, "%c<%d ", h->name, status);
  const giop_system_exception *e = status == IIOP_R_SYSTEM_EXCEPTION ? iiop_call_exception(call)
                                                                      : NULL;
  snprintf(h->seen_ex, sizeof h->seen_ex, "%s", e ? e->repo_id : "");
  /* contexts go with requests: none can be added here */
  ck_assert_int_eq(iiop_call_add_service_context(call, CTX_HOOK, "r", 1), CDR_E_STATE);
  if (h->raise_on_recv)
    ck_assert_int_eq(iiop_call_set_exception(call, "IDL:omg.org/CORBA/TRANSIENT:1.0",
                                             0x41540011u, GIOP_COMPLETED_YES),
                     CDR_OK);
}

static const iiop_client_interceptor ic = { h_send, h_recv };

static iiop_client *client_with_hooks(void)
{
  memset(&h1, 0, sizeof h1);
  memset(&h2, 0, sizeof h2);
  h1.name = '1';
  h2.name = '2';
  order[0] = 0;
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(iiop_client_add_interceptor(c, &ic, &h1), CDR_OK);
  ck_assert_int_eq(iiop_client_add_interceptor(c, &ic, &h2), CDR_OK);
  return c;
}

typedef struct outcome {
  int rc;
  int32_t value;
  int result_null;
  giop_system_exception ex;
} outcome;

static outcome ping(iiop_ref *r, int32_t x)
{
  outcome out;
  memset(&out, 0, sizeof out);
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "ping", 0, &call, &args), CDR_OK);
  ck_assert_int_eq(iiop_call_add_service_context(call, CTX_USER, "u", 1), CDR_OK);
  cdr_put_long(args, x);
  cdr_in *res = (cdr_in *)&out;     /* must be overwritten */
  out.rc = iiop_call_invoke(call, &res);
  out.result_null = res == NULL;
  if (out.rc == CDR_OK) {
    out.value = cdr_get_long(res);
    ck_assert_int_eq(cdr_in_status(res), CDR_OK);
    ck_assert_ptr_null(iiop_call_exception(call));
  } else {
    const giop_system_exception *e = iiop_call_exception(call);
    ck_assert_ptr_nonnull(e);
    out.ex = *e;
    static char id[64];
    snprintf(id, sizeof id, "%s", e->repo_id);
    out.ex.repo_id = id;
  }
  /* outside a hook */
  ck_assert_int_eq(iiop_call_set_exception(call, "IDL:omg.org/CORBA/UNKNOWN:1.0", 0, 0),
                   CDR_E_STATE);
  ck_assert_int_eq(iiop_call_add_service_context(call, CTX_USER, "u", 1), CDR_E_STATE);
  iiop_call_end(call);
  return out;
}

static iiop_ref *resolve(iiop_client *c, const char *ior)
{
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  return r;
}

/* ---------------------------------------------------------------- tests */

/* One invoke forwarded once: two requests sent, two runs of each
 * send_request, one of each receive_reply; B got the hooks' contexts
 * once each (not the first request's again) and the caller's once. */
START_TEST(test_send_per_request)
{
  iiop_client *c = client_with_hooks();
  h1.set_only = 1;
  iiop_ref *r = resolve(c, ior_a);
  outcome o = ping(r, 10);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 11);
  ck_assert_int_eq(h1.sends, 2);
  ck_assert_int_eq(h2.sends, 2);
  ck_assert_int_eq(h1.recvs, 1);
  ck_assert_int_eq(h2.recvs, 1);
  ck_assert_str_eq(h1.seen_ex, "");  /* the exception set but not raised is gone */
  ck_assert_str_eq(order, "1>1 2>1 1>2 2>2 2<0 1<0 ");
  ck_assert_int_eq(sa.forwards, 1);
  ck_assert_int_eq(sa.hook_ctx, 2);
  ck_assert_int_eq(sa.user_ctx, 1);
  ck_assert_int_eq(sb.calls, 1);
  ck_assert_int_eq(sb.hook_ctx, 2); /* one per interceptor, not four */
  ck_assert_int_eq(sb.user_ctx, 1);
  /* the forward is remembered: one request, one send each */
  order[0] = 0;
  o = ping(r, 20);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 21);
  ck_assert_int_eq(h1.sends, 3);
  ck_assert_int_eq(h2.sends, 3);
  ck_assert_str_eq(order, "1>3 2>3 2<0 1<0 ");
  ck_assert_int_eq(sa.forwards, 1);
  ck_assert_int_eq(sb.calls, 2);
  ck_assert_int_eq(sb.hook_ctx, 2);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

/* send_request raises NO_PERMISSION on the first request: nothing is
 * sent, later hooks' send_request and every receive_reply do not run. */
START_TEST(test_send_raises)
{
  iiop_client *c = client_with_hooks();
  h1.raise_on_send = 1;
  iiop_ref *r = resolve(c, ior_a);
  outcome o = ping(r, 1);
  ck_assert_int_eq(o.rc, IIOP_R_SYSTEM_EXCEPTION);
  ck_assert(o.result_null);
  ck_assert_str_eq(o.ex.repo_id, "IDL:omg.org/CORBA/NO_PERMISSION:1.0");
  ck_assert_uint_eq(o.ex.minor, 0x4f4d0007u);
  ck_assert_uint_eq(o.ex.completed, GIOP_COMPLETED_NO);
  ck_assert_str_eq(order, "1>1 ");
  ck_assert_int_eq(sa.forwards, 0);
  ck_assert_int_eq(sb.calls, 0);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

/* The second interceptor refuses the forwarded request: A saw one
 * request, B none. */
START_TEST(test_send_raises_on_forward)
{
  iiop_client *c = client_with_hooks();
  h2.raise_on_send = 2;
  iiop_ref *r = resolve(c, ior_a);
  outcome o = ping(r, 1);
  ck_assert_int_eq(o.rc, IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(o.ex.repo_id, "IDL:omg.org/CORBA/NO_PERMISSION:1.0");
  ck_assert_uint_eq(o.ex.minor, 0x4f4d0007u);
  ck_assert_str_eq(order, "1>1 2>1 1>2 2>2 ");
  ck_assert_int_eq(sa.forwards, 1);
  ck_assert_int_eq(sb.calls, 0);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

/* A negative cdr_status from send_request: that status, its exception. */
static int refuse_send(void *ud, iiop_call *call)
{
  (void)ud;
  (void)call;
  return CDR_E_NOMEM;
}

START_TEST(test_send_refuses_status)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  iiop_client *c = iiop_client_new(&o);
  static const iiop_client_interceptor rf = { refuse_send, NULL };
  ck_assert_int_eq(iiop_client_add_interceptor(c, &rf, NULL), CDR_OK);
  iiop_ref *r = resolve(c, ior_b);
  outcome out = ping(r, 1);
  ck_assert_int_eq(out.rc, CDR_E_NOMEM);
  ck_assert_str_eq(out.ex.repo_id, "IDL:omg.org/CORBA/NO_MEMORY:1.0");
  ck_assert_uint_eq(out.ex.completed, GIOP_COMPLETED_NO);
  ck_assert_int_eq(sb.calls, 0);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

/* receive_reply (the second interceptor, which runs first) replaces a
 * good reply with TRANSIENT; the first interceptor's receive_reply sees
 * that outcome. */
START_TEST(test_recv_raises)
{
  iiop_client *c = client_with_hooks();
  h2.raise_on_recv = 1;
  iiop_ref *r = resolve(c, ior_b);
  outcome o = ping(r, 5);
  ck_assert_int_eq(o.rc, IIOP_R_SYSTEM_EXCEPTION);
  ck_assert(o.result_null);
  ck_assert_str_eq(o.ex.repo_id, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  ck_assert_uint_eq(o.ex.minor, 0x41540011u);
  ck_assert_uint_eq(o.ex.completed, GIOP_COMPLETED_YES);
  ck_assert_int_eq(sb.calls, 1);    /* the call was made */
  ck_assert_int_eq(h2.last_status, CDR_OK);
  ck_assert_str_eq(h2.seen_ex, "");
  ck_assert_int_eq(h1.last_status, IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(h1.seen_ex, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  /* the connection is fine: the next call, without raising, gets 7 */
  h2.raise_on_recv = 0;
  o = ping(r, 6);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 7);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

START_TEST(test_set_exception_args)
{
  ck_assert_int_eq(iiop_call_set_exception(NULL, "IDL:x:1.0", 0, 0), CDR_E_INVALID);
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  iiop_client *c = iiop_client_new(&o);
  iiop_ref *r = resolve(c, ior_b);
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "ping", 0, &call, &args), CDR_OK);
  ck_assert_int_eq(iiop_call_set_exception(call, NULL, 0, 0), CDR_E_INVALID);
  ck_assert_int_eq(iiop_call_set_exception(call, "", 0, 0), CDR_E_INVALID);
  ck_assert_int_eq(iiop_call_set_exception(call, "IDL:x:1.0", 0, 3), CDR_E_INVALID);
  ck_assert_int_eq(iiop_call_set_exception(call, "IDL:x:1.0", 0, 0), CDR_E_STATE);
  iiop_call_end(call);
  iiop_ref_free(r);
  iiop_client_free(c);
}
END_TEST

static Suite *icept_suite(void)
{
  Suite *s = suite_create("icept");
  TCase *tc = tcase_create("icept");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_send_per_request);
  tcase_add_test(tc, test_send_raises);
  tcase_add_test(tc, test_send_raises_on_forward);
  tcase_add_test(tc, test_send_refuses_status);
  tcase_add_test(tc, test_recv_raises);
  tcase_add_test(tc, test_set_exception_args);
  suite_add_tcase(s, tc);
  return s;
}

static int icept_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = icept_suite, .setup = icept_setup };
