/* check_forward.c - LOCATION_FORWARD end to end: two in-process native
 * servers, a forwarder A whose servant answers with
 * iiop_request_set_forward() and a target B, and one client.
 *
 * CORBA 3.x Part 2, 15.4.3 (GIOP Reply status LOCATION_FORWARD 3,
 * LOCATION_FORWARD_PERM 4, body an IOR): the client caches a forward per
 * reference and sends later calls (oneways too) to the forwarded target
 * until it cannot be reached, then goes back to the original; a PERM
 * forward replaces the reference's target; a forward loop ends with
 * IMP_LIMIT after a bounded number of forwards.  Counts are exact: each
 * servant counts what reached it. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

#define MAX_FORWARDS 8 /* libiiop/client.c: forwards followed in a row */

typedef struct servant {
  const char *fwd_ior;       /* atomic: forward every request here; NULL: answer */
  int perm;
  int forwards;              /* atomic: requests answered with a forward */
  int calls;                 /* atomic: pings answered */
  int oneways;               /* atomic: oneway "set" requests executed */
  int32_t value;             /* atomic: the last "set" */
  int minor;                 /* atomic: GIOP minor of the last ping answered */
} servant;

static int forwarded(servant *sv, iiop_request *req)
{
  const char *ior = __atomic_load_n(&sv->fwd_ior, __ATOMIC_ACQUIRE);
  if (!ior)
    return 0;
  ck_assert_int_eq(iiop_request_set_forward(req, ior, sv->perm), CDR_OK);
  __atomic_add_fetch(&sv->forwards, 1, __ATOMIC_SEQ_CST);
  return 1;
}

static int op_ping(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  servant *sv = s;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  if (forwarded(sv, req)) {
    cdr_put_long(result, -1); /* dropped: the reply is the forward */
    return CDR_OK;
  }
  uint8_t major = 0, minor = 0;
  ck_assert_int_eq(iiop_request_giop_version(req, &major, &minor), CDR_OK);
  ck_assert_uint_eq(major, 1);
  __atomic_store_n(&sv->minor, minor, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&sv->calls, 1, __ATOMIC_SEQ_CST);
  cdr_put_long(result, x + 1);
  return CDR_OK;
}

static int op_set(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  servant *sv = s;
  (void)result;
  int32_t x = cdr_get_long(args);
  if (cdr_in_status(args) != CDR_OK)
    return cdr_in_status(args);
  if (forwarded(sv, req))
    return CDR_OK;
  __atomic_store_n(&sv->value, x, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&sv->oneways, 1, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

static const iiop_operation f_ops[] = { { "ping", op_ping }, { "set", op_set } };
static const iiop_interface f_iface = { "IDL:Test/F:1.0", f_ops, 2, NULL };

/* ---------------------------------------------------------------- fixture */

static servant sa, sb;
static iiop_server *srv_a, *srv_b;
static char ior_a[1024], ior_b[1024];
static iiop_client *cl;

static iiop_server *start(servant *sv, char *ior, size_t n)
{
  iiop_server *s = nu_serve(NULL, "F", &f_iface, sv);
  nu_server_ior(s, "F", ior, n);
  return s;
}

static void setup(void)
{
  memset(&sa, 0, sizeof sa);
  memset(&sb, 0, sizeof sb);
  srv_a = start(&sa, ior_a, sizeof ior_a);
  srv_b = start(&sb, ior_b, sizeof ior_b);
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 10000;
  cl = iiop_client_new(&o);
  ck_assert_ptr_nonnull(cl);
}

static void teardown(void)
{
  iiop_client_free(cl);
  iiop_server_free(srv_a);
  iiop_server_free(srv_b);
}

static iiop_ref *resolve(const char *ior)
{
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(cl, ior, &r), CDR_OK);
  return r;
}

static int load(int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* Ping X through R: the call's status; *OUT the result on CDR_OK. */
static int ping(iiop_ref *r, int32_t x, int32_t *out, const char **ex_id)
{
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "ping", 0, &call, &args), CDR_OK);
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  int rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    *out = cdr_get_long(res);
    ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  }
  const giop_system_exception *e = iiop_call_exception(call);
  static _Thread_local char id[128]; /* per caller thread: test_threads_share_forward calls from 4 */
  id[0] = 0;
  if (e)
    snprintf(id, sizeof id, "%s", e->repo_id);
  if (ex_id)
    *ex_id = id;
  iiop_call_end(call);
  return rc;
}

static void set_oneway(iiop_ref *r, int32_t x)
{
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "set", 1, &call, &args), CDR_OK);
  cdr_put_long(args, x);
  ck_assert_int_eq(iiop_call_invoke(call, NULL), CDR_OK);
  iiop_call_end(call);
}

/* ---------------------------------------------------------------- tests */

/* 10 calls through the forwarder: one forward, ten calls at the target. */
START_TEST(test_forward_cached)
{
  sa.fwd_ior = ior_b;
  iiop_ref *r = resolve(ior_a);
  for (int32_t i = 0; i < 10; i++) {
    int32_t v = 0;
    ck_assert_int_eq(ping(r, 100 + i, &v, NULL), CDR_OK);
    ck_assert_int_eq(v, 101 + i);
  }
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sa.calls), 0);
  ck_assert_int_eq(load(&sb.calls), 10);
  ck_assert_int_eq(load(&sb.forwards), 0);
  /* Another reference to the same object learns the forward for itself. */
  iiop_ref *r2 = resolve(ior_a);
  int32_t v = 0;
  ck_assert_int_eq(ping(r2, 1, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 2);
  ck_assert_int_eq(load(&sa.forwards), 2);
  ck_assert_int_eq(load(&sb.calls), 11);
  iiop_ref_free(r2);
  iiop_ref_free(r);
}
END_TEST

/* GIOP 1.0 (corbaloc): the forward (status 3, 1.0 header with the
 * principal padding the body) is cached the same way. */
START_TEST(test_forward_cached_giop10)
{
  sa.fwd_ior = ior_b;
  char url[128];
  snprintf(url, sizeof url, "corbaloc::1.0@127.0.0.1:%u/F", (unsigned)iiop_server_port(srv_a));
  iiop_ref *r = resolve(url);
  for (int32_t i = 0; i < 3; i++) {
    int32_t v = 0;
    ck_assert_int_eq(ping(r, 7 * i, &v, NULL), CDR_OK);
    ck_assert_int_eq(v, 7 * i + 1);
  }
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 3);
  iiop_ref_free(r);
}
END_TEST

/* IOR, its IIOP profile re-encoded at IIOP 1.MINOR (as a newer ORB
 * publishes it: same layout as 1.1), into OUT. */
static void ior_at_minor(const char *ior, uint8_t minor, char *out, size_t n)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior v;
  ck_assert_int_eq(iiop_ior_from_string(ior, &a, &v), CDR_OK);
  int found = 0;
  for (uint32_t k = 0; k < v.nprofiles; k++)
    if (v.profiles[k].tag == IIOP_TAG_INTERNET_IOP && v.profiles[k].iiop_ok) {
      v.profiles[k].minor = minor;
      v.profiles[k].data = NULL; /* encoded from its fields */
      found = 1;
    }
  ck_assert(found);
  char *s = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&v, CDR_BIG_ENDIAN, &a, &s), CDR_OK);
  ck_assert_uint_lt(strlen(s), n);
  strcpy(out, s);
  cdr_arena_free(&a);
  cdr_arena_init(&a, NULL);
  ck_assert_int_eq(iiop_ior_from_string(out, &a, &v), CDR_OK);
  ck_assert_uint_eq(iiop_ior_iiop_profile(&v)->minor, minor);
  cdr_arena_free(&a);
}

/* A reference whose IIOP profile is 1.3 or later (a newer ORB's) is called
 * in GIOP 1.2, the latest the client speaks; directly and as the target of
 * a forward. */
START_TEST(test_iiop13_profile_spoken_as_12)
{
  static char ior13[1024], ior9[1024];
  ior_at_minor(ior_b, 3, ior13, sizeof ior13);
  ior_at_minor(ior_b, 9, ior9, sizeof ior9);
  iiop_ref *r13 = resolve(ior13), *r9 = resolve(ior9);
  int32_t v = 0;
  ck_assert_int_eq(ping(r13, 41, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 42);
  ck_assert_int_eq(load(&sb.minor), 2);
  __atomic_store_n(&sb.minor, -1, __ATOMIC_SEQ_CST);
  ck_assert_int_eq(ping(r9, 1, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 2);
  ck_assert_int_eq(load(&sb.minor), 2);
  ck_assert_int_eq(load(&sb.calls), 2);
  iiop_ref_free(r13);
  iiop_ref_free(r9);

  sa.fwd_ior = ior13;
  iiop_ref *ra = resolve(ior_a);
  ck_assert_int_eq(ping(ra, 7, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 8);
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 3);
  ck_assert_int_eq(load(&sb.minor), 2);
  iiop_ref_free(ra);
}
END_TEST

/* A oneway after the forward goes to the target, not the forwarder. */
START_TEST(test_oneway_after_forward)
{
  sa.fwd_ior = ior_b;
  iiop_ref *r = resolve(ior_a);
  int32_t v = 0;
  ck_assert_int_eq(ping(r, 1, &v, NULL), CDR_OK);
  set_oneway(r, 77);
  /* Requests on one connection are dispatched in order: once this ping is
   * answered, the oneway before it has run. */
  ck_assert_int_eq(ping(r, 2, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 3);
  ck_assert_int_eq(load(&sb.oneways), 1);
  ck_assert_int_eq(load(&sb.value), 77);
  ck_assert_int_eq(load(&sa.oneways), 0);
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 2);
  iiop_ref_free(r);
}
END_TEST

/* The target stops: the client goes back to the original (which answers
 * now) and stays there. */
START_TEST(test_target_stopped_back_to_original)
{
  sa.fwd_ior = ior_b;
  iiop_ref *r = resolve(ior_a);
  int32_t v = 0;
  ck_assert_int_eq(ping(r, 1, &v, NULL), CDR_OK);
  ck_assert_int_eq(ping(r, 2, &v, NULL), CDR_OK);
  ck_assert_int_eq(load(&sb.calls), 2);
  ck_assert_int_eq(load(&sa.forwards), 1);
  __atomic_store_n(&sa.fwd_ior, NULL, __ATOMIC_SEQ_CST);
  iiop_server_shutdown(srv_b);
  ck_assert_int_eq(ping(r, 10, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 11);
  ck_assert_int_eq(load(&sa.calls), 1);
  ck_assert_int_eq(ping(r, 20, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 21);
  ck_assert_int_eq(load(&sa.calls), 2);
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 2);
  iiop_ref_free(r);
}
END_TEST

/* LOCATION_FORWARD_PERM replaces the reference's target: with the target
 * stopped, the call fails there (TRANSIENT) instead of going back. */
START_TEST(test_perm_remembered)
{
  sa.fwd_ior = ior_b;
  sa.perm = 1;
  iiop_ref *r = resolve(ior_a);
  for (int32_t i = 0; i < 5; i++) {
    int32_t v = 0;
    ck_assert_int_eq(ping(r, i, &v, NULL), CDR_OK);
    ck_assert_int_eq(v, i + 1);
  }
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 5);
  set_oneway(r, 5);
  /* the oneway has run once the ping after it is answered (the shutdown
   * below would otherwise race with its reading) */
  int32_t w = 0;
  ck_assert_int_eq(ping(r, 6, &w, NULL), CDR_OK);
  ck_assert_int_eq(w, 7);
  ck_assert_int_eq(load(&sb.calls), 6);
  ck_assert_int_eq(load(&sb.oneways), 1);
  __atomic_store_n(&sa.fwd_ior, NULL, __ATOMIC_SEQ_CST);
  iiop_server_shutdown(srv_b);
  int32_t v = 0;
  const char *ex = NULL;
  int rc = ping(r, 1, &v, &ex);
  ck_assert_int_lt(rc, 0);
  ck_assert_str_eq(ex, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  ck_assert_int_eq(load(&sa.calls), 0);
  ck_assert_int_eq(load(&sa.forwards), 1);
  iiop_ref_free(r);
}
END_TEST

/* PERM asked for in a GIOP 1.0 request: 1.0 has no LOCATION_FORWARD_PERM,
 * the reply is LOCATION_FORWARD, so a stopped target sends the client back
 * to the original. */
START_TEST(test_perm_in_giop10_is_plain_forward)
{
  sa.fwd_ior = ior_b;
  sa.perm = 1;
  char url[128];
  snprintf(url, sizeof url, "corbaloc::1.0@127.0.0.1:%u/F", (unsigned)iiop_server_port(srv_a));
  iiop_ref *r = resolve(url);
  int32_t v = 0;
  ck_assert_int_eq(ping(r, 1, &v, NULL), CDR_OK);
  ck_assert_int_eq(ping(r, 2, &v, NULL), CDR_OK);
  ck_assert_int_eq(load(&sa.forwards), 1);
  ck_assert_int_eq(load(&sb.calls), 2);
  __atomic_store_n(&sa.fwd_ior, NULL, __ATOMIC_SEQ_CST);
  iiop_server_shutdown(srv_b);
  ck_assert_int_eq(ping(r, 3, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 4);
  ck_assert_int_eq(load(&sa.calls), 1);
  iiop_ref_free(r);
}
END_TEST

/* A forwards to A: each call ends with IMP_LIMIT after exactly
 * MAX_FORWARDS + 1 forwards, and the next call is bounded the same way. */
START_TEST(test_forward_loop_bounded)
{
  sa.fwd_ior = ior_a;
  iiop_ref *r = resolve(ior_a);
  for (int k = 1; k <= 2; k++) {
    int32_t v = 0;
    const char *ex = NULL;
    ck_assert_int_eq(ping(r, 1, &v, &ex), CDR_E_LIMIT);
    ck_assert_str_eq(ex, "IDL:omg.org/CORBA/IMP_LIMIT:1.0");
    ck_assert_int_eq(load(&sa.forwards), k * (MAX_FORWARDS + 1));
  }
  ck_assert_int_eq(load(&sa.calls), 0);
  iiop_ref_free(r);
}
END_TEST

/* A bad IOR is refused by iiop_request_set_forward() and the reply is the
 * operation's own. */
static int op_bad_forward(void *s, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)s;
  (void)args;
  ck_assert_int_eq(iiop_request_set_forward(req, "IOR:0", 0), CDR_E_INVALID);
  ck_assert_int_eq(iiop_request_set_forward(req, "corbaloc::x/F", 0), CDR_E_INVALID);
  ck_assert_int_eq(iiop_request_set_forward(NULL, "IOR:00", 0), CDR_E_INVALID);
  ck_assert_int_eq(iiop_request_set_forward(req, NULL, 0), CDR_E_INVALID);
  cdr_put_long(result, 5);
  return CDR_OK;
}
static const iiop_operation bad_ops[] = { { "ping", op_bad_forward } };
static const iiop_interface bad_iface = { "IDL:Test/F:1.0", bad_ops, 1, NULL };

START_TEST(test_set_forward_errors)
{
  ck_assert_int_eq(iiop_server_activate(srv_a, "B", 1, &bad_iface, NULL), CDR_OK);
  char url[128];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/B", (unsigned)iiop_server_port(srv_a));
  iiop_ref *r = resolve(url);
  int32_t v = 0;
  ck_assert_int_eq(ping(r, 1, &v, NULL), CDR_OK);
  ck_assert_int_eq(v, 5);
  iiop_ref_free(r);
}
END_TEST

/* Threads share one reference: the forward is learnt at most once per
 * thread racing for it, every call reaches the target. */
#define NTHREADS 4
#define NCALLS 50
static iiop_ref *shared_ref;
static void *caller(void *arg)
{
  (void)arg;
  for (int32_t i = 0; i < NCALLS; i++) {
    int32_t v = 0;
    if (ping(shared_ref, i, &v, NULL) != CDR_OK || v != i + 1)
      return (void *)1;
  }
  return NULL;
}

START_TEST(test_threads_share_forward)
{
  sa.fwd_ior = ior_b;
  shared_ref = resolve(ior_a);
  pthread_t t[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller, NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    void *res;
    ck_assert_int_eq(pthread_join(t[i], &res), 0);
    ck_assert_ptr_null(res);
  }
  ck_assert_int_ge(load(&sa.forwards), 1);
  ck_assert_int_le(load(&sa.forwards), NTHREADS);
  ck_assert_int_eq(load(&sb.calls), NTHREADS * NCALLS);
  iiop_ref_free(shared_ref);
}
END_TEST

static Suite *forward_suite(void)
{
  Suite *s = suite_create("forward");
  TCase *tc = tcase_create("forward");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_forward_cached);
  tcase_add_test(tc, test_forward_cached_giop10);
  tcase_add_test(tc, test_iiop13_profile_spoken_as_12);
  tcase_add_test(tc, test_oneway_after_forward);
  tcase_add_test(tc, test_target_stopped_back_to_original);
  tcase_add_test(tc, test_perm_remembered);
  tcase_add_test(tc, test_perm_in_giop10_is_plain_forward);
  tcase_add_test(tc, test_forward_loop_bounded);
  tcase_add_test(tc, test_set_forward_errors);
  tcase_add_test(tc, test_threads_share_forward);
  suite_add_tcase(s, tc);
  return s;
}

static int forward_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = forward_suite, .setup = forward_setup };
