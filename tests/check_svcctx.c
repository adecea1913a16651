/* check_svcctx.c - service contexts and interceptors of libiiop's client
 * and server (iiop/orb.h): what a client adds per call and per reference
 * arrives at the servant octet for octet in GIOP 1.0, 1.1 and 1.2 (after
 * the CodeSets context where that is sent), with the body's alignment
 * kept; reply contexts arrive at the client (the GIOP 1.0/1.1 alignment
 * context where the list would move the body); interceptors on both sides
 * see operation names, add contexts and refuse requests; the servant reads
 * its object key, GIOP version and the peer's address; a reference's list
 * changes while other threads call through it; hostile context lists are
 * refused with MessageError before any interceptor runs. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- what the servant saw */

#define REC_MAX 40

typedef struct rec_ctx {
  uint32_t id, len;
  uint8_t *data;             /* malloc'd copy */
} rec_ctx;

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  uint32_t n;
  rec_ctx v[REC_MAX];
  uint8_t key[64];
  uint32_t key_len;
  uint8_t major, minor;
  char peer[IIOP_PEER_HOST_MAX];
  uint16_t peer_port;
  int peer_rc;
  int calls;
} rec;

static void rec_clear(void)
{
  pthread_mutex_lock(&rec_mu);
  for (uint32_t k = 0; k < rec.n; k++)
    free(rec.v[k].data);
  memset(&rec, 0, sizeof rec);
  pthread_mutex_unlock(&rec_mu);
}

static void rec_request(iiop_request *r)
{
  pthread_mutex_lock(&rec_mu);
  for (uint32_t k = 0; k < rec.n; k++)
    free(rec.v[k].data);
  const giop_service_context *v;
  uint32_t n = iiop_request_service_contexts(r, &v);
  ck_assert_uint_le(n, REC_MAX);
  ck_assert(n == 0 ? v == NULL : v != NULL);
  rec.n = n;
  for (uint32_t k = 0; k < n; k++) {
    rec.v[k].id = v[k].id;
    rec.v[k].len = v[k].len;
    rec.v[k].data = malloc(v[k].len + 1);
    memcpy(rec.v[k].data, v[k].data, v[k].len);
  }
  uint32_t kl = 0;
  const uint8_t *key = iiop_request_object_key(r, &kl);
  ck_assert_ptr_nonnull(key);
  ck_assert_uint_le(kl, sizeof rec.key);
  memcpy(rec.key, key, kl);
  rec.key_len = kl;
  ck_assert_int_eq(iiop_request_giop_version(r, &rec.major, &rec.minor), CDR_OK);
  rec.peer_rc = iiop_request_peer(r, rec.peer, sizeof rec.peer, &rec.peer_port);
  rec.calls++;
  pthread_mutex_unlock(&rec_mu);
}

/* The reply contexts "rec" and "nothing" add: lengths, 0-terminated. */
static size_t reply_lens[4];

static void add_reply_contexts(iiop_request *r)
{
  for (int k = 0; k < 4 && reply_lens[k]; k++) {
    uint8_t d[64];
    for (size_t i = 0; i < reply_lens[k]; i++)
      d[i] = (uint8_t)(0x30 + 16 * k + i);
    ck_assert_int_eq(iiop_request_add_reply_service_context(r, 0x300u + (uint32_t)k, d, reply_lens[k]),
                     CDR_OK);
  }
}

/* rec(long x, double d) -> (long x, double d): records what it saw. */
static int op_rec(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  int32_t x = cdr_get_long(a);
  double d = cdr_get_double(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  rec_request(r);
  add_reply_contexts(r);
  cdr_put_long(o, x);
  cdr_put_double(o, d);
  return CDR_OK;
}

static int op_nothing(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)a, (void)o;
  add_reply_contexts(r);
  return CDR_OK;
}

static int forbidden_calls; /* atomic */

static int op_forbidden(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)r, (void)a, (void)o;
  __atomic_add_fetch(&forbidden_calls, 1, __ATOMIC_RELAXED);
  return CDR_OK;
}

static int op_raise(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)a, (void)o;
  giop_system_exception e = { "IDL:omg.org/CORBA/NO_MEMORY:1.0", GIOP_OMGVMCID | 3,
                              GIOP_COMPLETED_YES };
  iiop_request_set_exception(r, &e);
  return IIOP_R_SYSTEM_EXCEPTION;
}

/* The threads test: the 0x100 context must be absent or one of two values. */
static int bad_ctx, ctx_calls; /* atomic */

static int op_check(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)a, (void)o;
  const uint8_t *d;
  uint32_t l;
  if (iiop_request_service_context(r, 0x100, &d, &l) == CDR_OK
      && !(l == 4 && memcmp(d, "AAAA", 4) == 0) && !(l == 8 && memcmp(d, "BBBBBBBB", 8) == 0))
    __atomic_add_fetch(&bad_ctx, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&ctx_calls, 1, __ATOMIC_RELAXED);
  return CDR_OK;
}

static const iiop_operation ops[] = {
  { "rec", op_rec },     { "nothing", op_nothing }, { "forbidden", op_forbidden },
  { "forbidden2", op_forbidden }, { "raise", op_raise }, { "check", op_check },
  { "nope", op_nothing },
};
static const iiop_interface iface = { "IDL:Test/Ctx:1.0", ops, sizeof ops / sizeof ops[0], NULL };

/* ---------------------------------------------------------------- helpers */

static iiop_server *start_server(void)
{
  return nu_serve(NULL, "Echo", &iface, NULL);
}

static iiop_client *new_client(void)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 20000;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

static iiop_ref *resolve(iiop_client *c, iiop_server *s, int minor)
{
  char url[128];
  snprintf(url, sizeof url, "corbaloc::1.%d@127.0.0.1:%u/Echo", minor,
           (unsigned)iiop_server_port(s));
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  return r;
}

/* rec(X, D) on R with the call's own contexts N of (IDS, DATA, LENS);
 * asserts the results came back. */
static void call_rec(iiop_ref *r, int32_t x, double d, int n, const uint32_t *ids,
                     const char *const *data, const size_t *lens)
{
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "rec", 0, &call, &args), CDR_OK);
  cdr_put_long(args, x);
  cdr_put_double(args, d);
  for (int k = 0; k < n; k++)
    ck_assert_int_eq(iiop_call_add_service_context(call, ids[k], data[k], lens[k]), CDR_OK);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  ck_assert_int_eq(cdr_get_long(res), x);
  ck_assert(cdr_get_double(res) == d);
  ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  ck_assert_int_eq(iiop_call_add_service_context(call, 9, "x", 1), CDR_E_STATE);
  iiop_call_end(call);
}

static void expect_ctx(uint32_t k, uint32_t id, const void *data, size_t len)
{
  ck_assert_uint_gt(rec.n, k);
  ck_assert_uint_eq(rec.v[k].id, id);
  TU_ASSERT_BYTES(rec.v[k].data, rec.v[k].len, data, len);
}

/* ---------------------------------------------------------------- requests */

START_TEST(test_request_contexts_exact)
{
  for (int minor = 0; minor <= 2; minor++) {
    TU_CTX("GIOP 1.%d", minor);
    rec_clear();
    iiop_server *s = start_server();
    iiop_client *c = new_client();
    iiop_ref *r = resolve(c, s, minor);
    ck_assert_int_eq(iiop_ref_set_service_context(r, 0x100, "ref-ctx-1", 9), CDR_OK);
    static const uint32_t ids[] = { 0x200, 0x201 };
    static const char *const data[] = { "\x01\x02\x03", "0123456789abcdef" };
    static const size_t lens[] = { 3, 16 };
    call_rec(r, 7, 2.5, 2, ids, data, lens);

    /* the first request on the connection: CodeSets first (1.1, 1.2) */
    uint8_t cs[12];
    giop_codeset_context csc = { CDR_CS_ISO8859_1, 0 };
    giop_codeset_context_encode(&csc, cs);
    uint32_t k = 0;
    ck_assert_uint_eq(rec.n, minor >= 1 ? 4 : 3);
    if (minor >= 1)
      expect_ctx(k++, GIOP_SC_CODE_SETS, cs, sizeof cs);
    expect_ctx(k++, 0x100, "ref-ctx-1", 9);
    expect_ctx(k++, 0x200, "\x01\x02\x03", 3);
    expect_ctx(k++, 0x201, "0123456789abcdef", 16);
    TU_ASSERT_BYTES(rec.key, rec.key_len, "Echo", 4);
    ck_assert_uint_eq(rec.major, 1);
    ck_assert_uint_eq(rec.minor, minor);
    ck_assert_int_eq(rec.peer_rc, CDR_OK);
    ck_assert_str_eq(rec.peer, "127.0.0.1");
    ck_assert_uint_ne(rec.peer_port, 0);
    ck_assert_uint_ne(rec.peer_port, iiop_server_port(s));

    /* later requests: the reference's contexts only */
    call_rec(r, -8, 1e300, 0, NULL, NULL, NULL);
    ck_assert_uint_eq(rec.n, 1);
    expect_ctx(0, 0x100, "ref-ctx-1", 9);

    /* replaced in place, one more (empty), then removed one by one */
    ck_assert_int_eq(iiop_ref_set_service_context(r, 0x101, NULL, 0), CDR_OK);
    ck_assert_int_eq(iiop_ref_set_service_context(r, 0x100, "v2", 2), CDR_OK);
    call_rec(r, 1, 0.25, 0, NULL, NULL, NULL);
    ck_assert_uint_eq(rec.n, 2);
    expect_ctx(0, 0x100, "v2", 2);
    expect_ctx(1, 0x101, "", 0);
    ck_assert_int_eq(iiop_ref_remove_service_context(r, 0x100), CDR_OK);
    ck_assert_int_eq(iiop_ref_remove_service_context(r, 0x100), CDR_E_INVALID);
    call_rec(r, 2, 0.5, 0, NULL, NULL, NULL);
    ck_assert_uint_eq(rec.n, 1);
    expect_ctx(0, 0x101, "", 0);
    ck_assert_int_eq(iiop_ref_remove_service_context(r, 0x101), CDR_OK);
    call_rec(r, 3, 0.75, 0, NULL, NULL, NULL);
    ck_assert_uint_eq(rec.n, 0);
    ck_assert_int_eq(rec.calls, 5);

    iiop_ref_free(r);
    iiop_client_free(c);
    iiop_server_shutdown(s);
    iiop_server_free(s);
  }
  rec_clear();
}
END_TEST

/* A context of IIOP_SC_DATA_MAX octets arrives whole; the limits. */
START_TEST(test_limits)
{
  rec_clear();
  iiop_server *s = start_server();
  iiop_client *c = new_client();
  iiop_ref *r = resolve(c, s, 2);
  char *big = malloc(IIOP_SC_DATA_MAX + 1);
  for (size_t i = 0; i <= IIOP_SC_DATA_MAX; i++)
    big[i] = (char)(i * 7 + 1);
  ck_assert_int_eq(iiop_ref_set_service_context(r, 1000, big, IIOP_SC_DATA_MAX + 1), CDR_E_LIMIT);
  ck_assert_int_eq(iiop_ref_set_service_context(r, 1000, NULL, 1), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ref_set_service_context(NULL, 1000, big, 1), CDR_E_INVALID);
  for (uint32_t k = 0; k < IIOP_SC_ADD_MAX; k++)
    ck_assert_int_eq(iiop_ref_set_service_context(r, 2000 + k, &k, sizeof k), CDR_OK);
  ck_assert_int_eq(iiop_ref_set_service_context(r, 3000, "x", 1), CDR_E_LIMIT);
  ck_assert_int_eq(iiop_ref_set_service_context(r, 2000, big, IIOP_SC_DATA_MAX), CDR_OK);

  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "rec", 0, &call, &args), CDR_OK);
  cdr_put_long(args, 5);
  cdr_put_double(args, -1.0);
  ck_assert_int_eq(iiop_call_add_service_context(call, 1, big, IIOP_SC_DATA_MAX + 1), CDR_E_LIMIT);
  ck_assert_int_eq(iiop_call_add_service_context(call, 1, NULL, 3), CDR_E_INVALID);
  ck_assert_int_eq(iiop_call_add_service_context(NULL, 1, "x", 1), CDR_E_INVALID);
  for (uint32_t k = 0; k < IIOP_SC_ADD_MAX; k++)
    ck_assert_int_eq(iiop_call_add_service_context(call, 4000 + k, &k, sizeof k), CDR_OK);
  ck_assert_int_eq(iiop_call_add_service_context(call, 5000, "x", 1), CDR_E_LIMIT);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  ck_assert_int_eq(cdr_get_long(res), 5);
  ck_assert(cdr_get_double(res) == -1.0);
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_E_STATE);
  iiop_call_end(call);

  ck_assert_uint_eq(rec.n, 1 + 2 * IIOP_SC_ADD_MAX); /* CodeSets, the reference's, the call's */
  ck_assert_uint_eq(rec.v[0].id, GIOP_SC_CODE_SETS);
  expect_ctx(1, 2000, big, IIOP_SC_DATA_MAX);
  for (uint32_t k = 1; k < IIOP_SC_ADD_MAX; k++)
    expect_ctx(1 + k, 2000 + k, &k, sizeof k);
  for (uint32_t k = 0; k < IIOP_SC_ADD_MAX; k++)
    expect_ctx(1 + IIOP_SC_ADD_MAX + k, 4000 + k, &k, sizeof k);
  free(big);

  static const iiop_client_interceptor ci = { NULL, NULL };
  static const iiop_server_interceptor si = { NULL, NULL };
  for (int k = 0; k < IIOP_INTERCEPTORS_MAX; k++) {
    ck_assert_int_eq(iiop_client_add_interceptor(c, &ci, NULL), CDR_OK);
    ck_assert_int_eq(iiop_server_add_interceptor(s, &si, NULL), CDR_OK);
  }
  ck_assert_int_eq(iiop_client_add_interceptor(c, &ci, NULL), CDR_E_LIMIT);
  ck_assert_int_eq(iiop_server_add_interceptor(s, &si, NULL), CDR_E_LIMIT);
  ck_assert_int_eq(iiop_client_add_interceptor(NULL, &ci, NULL), CDR_E_INVALID);
  ck_assert_int_eq(iiop_server_add_interceptor(s, NULL, NULL), CDR_E_INVALID);
  call_rec(r, 6, 6.0, 0, NULL, NULL, NULL); /* hooks that do nothing */

  ck_assert_ptr_null(iiop_request_object_key(NULL, NULL));
  uint8_t ma, mi;
  ck_assert_int_eq(iiop_request_giop_version(NULL, &ma, &mi), CDR_E_INVALID);
  ck_assert_int_eq(iiop_request_peer(NULL, NULL, 0, NULL), CDR_E_INVALID);
  ck_assert_uint_eq(iiop_request_service_contexts(NULL, NULL), 0);
  ck_assert_int_eq(iiop_request_add_reply_service_context(NULL, 1, "x", 1), CDR_E_INVALID);
  ck_assert_ptr_null(iiop_call_operation(NULL));
  ck_assert_uint_eq(iiop_call_reply_service_contexts(NULL, NULL), 0);

  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_shutdown(s);
  iiop_server_free(s);
  rec_clear();
}
END_TEST

/* ---------------------------------------------------------------- replies */

/* The reply's list: contexts 0x300.. of LENS, then (GIOP 1.0/1.1 when
 * their octets come to 4 modulo 8, and the reply has a body) the
 * alignment context. */
static void check_reply_contexts(iiop_call *call, int minor, const size_t *lens, int body)
{
  const giop_service_context *v;
  uint32_t n = iiop_call_reply_service_contexts(call, &v);
  uint32_t want = 0, shift = 0;
  for (; want < 4 && lens[want]; want++)
    shift += 8 + (uint32_t)((lens[want] + 3) & ~(size_t)3);
  int pad = minor < 2 && body && (shift & 7) != 0;
  ck_assert_uint_eq(n, want + (pad ? 1 : 0));
  for (uint32_t k = 0; k < want; k++) {
    uint8_t d[64];
    for (size_t i = 0; i < lens[k]; i++)
      d[i] = (uint8_t)(0x30 + 16 * k + i);
    ck_assert_uint_eq(v[k].id, 0x300 + k);
    TU_ASSERT_BYTES(v[k].data, v[k].len, d, lens[k]);
    const uint8_t *p;
    uint32_t l;
    ck_assert_int_eq(iiop_call_reply_service_context(call, 0x300 + k, &p, &l), CDR_OK);
    ck_assert_ptr_eq(p, v[k].data);
    ck_assert_uint_eq(l, lens[k]);
  }
  if (pad) {
    ck_assert_uint_eq(v[want].id, IIOP_SC_ALIGN);
    TU_ASSERT_BYTES(v[want].data, v[want].len, "\0\0\0\0", 4);
  }
  const uint8_t *p;
  uint32_t l;
  ck_assert_int_eq(iiop_call_reply_service_context(call, 0x3ff, &p, &l), CDR_E_INVALID);
}

START_TEST(test_reply_contexts)
{
  static const size_t cases[][4] = { { 1 }, { 8 }, { 3, 5 }, { 4, 4, 2 } };
  for (int minor = 0; minor <= 2; minor++) {
    iiop_server *s = start_server();
    iiop_client *c = new_client();
    iiop_ref *r = resolve(c, s, minor);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
      TU_CTX("GIOP 1.%d, case %zu", minor, ci);
      memcpy(reply_lens, cases[ci], sizeof reply_lens);
      for (int op = 0; op < 2; op++) {
        iiop_call *call;
        cdr_out *args;
        ck_assert_int_eq(iiop_call_begin(r, op ? "nothing" : "rec", 0, &call, &args), CDR_OK);
        if (!op) {
          cdr_put_long(args, 0x01020304);
          cdr_put_double(args, 3.125);
        }
        cdr_in *res = NULL;
        ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
        if (!op) {
          /* the body kept its alignment: the double reads back exactly */
          ck_assert_int_eq(cdr_get_long(res), 0x01020304);
          ck_assert(cdr_get_double(res) == 3.125);
          ck_assert_int_eq(cdr_in_status(res), CDR_OK);
        }
        ck_assert_uint_eq(cdr_in_remaining(res), 0);
        check_reply_contexts(call, minor, reply_lens, !op);
        iiop_call_end(call);
      }
    }
    memset(reply_lens, 0, sizeof reply_lens);
    iiop_ref_free(r);
    iiop_client_free(c);
    iiop_server_shutdown(s);
    iiop_server_free(s);
  }
  rec_clear();
}
END_TEST

/* ---------------------------------------------------------------- interceptors */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char ilog[2048];

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&log_mu);
  size_t n = strlen(ilog);
  vsnprintf(ilog + n, sizeof ilog - n, fmt, ap);
  pthread_mutex_unlock(&log_mu);
  va_end(ap);
}

static int cli_send(void *ud, iiop_call *call)
{
  const char *op = iiop_call_operation(call);
  logf_("%s>%s ", (const char *)ud, op);
  if (strcmp(op, "nope") == 0)
    return CDR_E_INVALID;
  char d[64];
  int n = snprintf(d, sizeof d, "%s:%s", (const char *)ud, op);
  return iiop_call_add_service_context(call, 0x400, d, (size_t)n);
}

static void cli_recv(void *ud, iiop_call *call, int status)
{
  const uint8_t *d;
  uint32_t l;
  if (iiop_call_reply_service_context(call, 0x401, &d, &l) == CDR_OK)
    logf_("%s<%d[%.*s] ", (const char *)ud, status, (int)l, (const char *)d);
  else
    logf_("%s<%d ", (const char *)ud, status);
}

static int srv_recv(void *ud, iiop_request *req)
{
  (void)ud;
  const char *op = iiop_request_operation(req);
  const uint8_t *d;
  uint32_t l;
  if (iiop_request_service_context(req, 0x400, &d, &l) == CDR_OK)
    logf_("S>%s[%.*s] ", op, (int)l, (const char *)d);
  else
    logf_("S>%s ", op);
  if (strcmp(op, "forbidden") == 0)
    return 1;
  if (strcmp(op, "forbidden2") == 0) {
    giop_system_exception e = { "IDL:omg.org/CORBA/TRANSIENT:1.0", GIOP_OMGVMCID | 5,
                                GIOP_COMPLETED_NO };
    iiop_request_set_exception(req, &e);
    return 1;
  }
  return 0;
}

static void srv_send(void *ud, iiop_request *req, uint32_t status)
{
  (void)ud;
  const char *op = iiop_request_operation(req);
  logf_("S<%s:%u ", op, status);
  char d[64];
  int n = snprintf(d, sizeof d, "srv:%s", op);
  ck_assert_int_eq(iiop_request_add_reply_service_context(req, 0x401, d, (size_t)n), CDR_OK);
}

/* OP on R (a long argument for rec's sake, and a double); the status. */
static int call_op(iiop_ref *r, const char *op, const giop_system_exception **ex)
{
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, op, 0, &call, &args), CDR_OK);
  cdr_put_long(args, 1);
  cdr_put_double(args, 2.0);
  cdr_in *res = NULL;
  int rc = iiop_call_invoke(call, &res);
  static giop_system_exception e;
  static char id[64];
  const giop_system_exception *x = iiop_call_exception(call);
  if (x) {
    snprintf(id, sizeof id, "%s", x->repo_id);
    e = *x;
    e.repo_id = id;
  }
  *ex = x ? &e : NULL;
  iiop_call_end(call);
  return rc;
}

START_TEST(test_interceptors)
{
  for (int minor = 0; minor <= 2; minor++) {
    TU_CTX("GIOP 1.%d", minor);
    rec_clear();
    iiop_server *s = start_server();
    iiop_client *c = new_client();
    static const iiop_client_interceptor ci = { cli_send, cli_recv };
    static const iiop_server_interceptor si = { srv_recv, srv_send };
    ck_assert_int_eq(iiop_client_add_interceptor(c, &ci, "A"), CDR_OK);
    ck_assert_int_eq(iiop_client_add_interceptor(c, &ci, "B"), CDR_OK);
    ck_assert_int_eq(iiop_server_add_interceptor(s, &si, NULL), CDR_OK);
    iiop_ref *r = resolve(c, s, minor);
    const giop_system_exception *e;
    ilog[0] = 0;

    ck_assert_int_eq(call_op(r, "rec", &e), CDR_OK);
    ck_assert_ptr_null(e);
    /* the servant got both client interceptors' contexts, after CodeSets */
    uint32_t k = minor >= 1 ? 1 : 0;
    ck_assert_uint_eq(rec.n, k + 2);
    expect_ctx(k, 0x400, "A:rec", 5);
    expect_ctx(k + 1, 0x400, "B:rec", 5);
    ck_assert_str_eq(ilog, "A>rec B>rec S>rec[A:rec] S<rec:0 B<0[srv:rec] A<0[srv:rec] ");

    ilog[0] = 0;
    ck_assert_int_eq(call_op(r, "forbidden", &e), IIOP_R_SYSTEM_EXCEPTION);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->repo_id, "IDL:omg.org/CORBA/NO_PERMISSION:1.0");
    ck_assert_uint_eq(e->minor, 0);
    ck_assert_uint_eq(e->completed, GIOP_COMPLETED_NO);
    ck_assert_int_eq(__atomic_load_n(&forbidden_calls, __ATOMIC_RELAXED), 0);
    ck_assert_str_eq(ilog, "A>forbidden B>forbidden S>forbidden[A:forbidden] S<forbidden:2 "
                           "B<2[srv:forbidden] A<2[srv:forbidden] ");

    ck_assert_int_eq(call_op(r, "forbidden2", &e), IIOP_R_SYSTEM_EXCEPTION);
    ck_assert_str_eq(e->repo_id, "IDL:omg.org/CORBA/TRANSIENT:1.0");
    ck_assert_uint_eq(e->minor, GIOP_OMGVMCID | 5);
    ck_assert_uint_eq(e->completed, GIOP_COMPLETED_NO);
    ck_assert_int_eq(__atomic_load_n(&forbidden_calls, __ATOMIC_RELAXED), 0);

    ilog[0] = 0;
    ck_assert_int_eq(call_op(r, "raise", &e), IIOP_R_SYSTEM_EXCEPTION);
    ck_assert_str_eq(e->repo_id, "IDL:omg.org/CORBA/NO_MEMORY:1.0");
    ck_assert_uint_eq(e->completed, GIOP_COMPLETED_YES);
    ck_assert_str_eq(ilog, "A>raise B>raise S>raise[A:raise] S<raise:2 B<2[srv:raise] "
                           "A<2[srv:raise] ");

    /* refused by the client's first interceptor: nothing sent */
    ilog[0] = 0;
    ck_assert_int_eq(call_op(r, "nope", &e), CDR_E_INVALID);
    ck_assert_str_eq(e->repo_id, "IDL:omg.org/CORBA/BAD_PARAM:1.0");
    ck_assert_uint_eq(e->completed, GIOP_COMPLETED_NO);
    ck_assert_str_eq(ilog, "A>nope ");

    /* an unknown operation is refused before the server's hooks */
    ilog[0] = 0;
    ck_assert_int_eq(call_op(r, "unknown", &e), IIOP_R_SYSTEM_EXCEPTION);
    ck_assert_str_eq(e->repo_id, "IDL:omg.org/CORBA/BAD_OPERATION:1.0");
    ck_assert_str_eq(ilog, "A>unknown B>unknown B<2 A<2 ");

    iiop_ref_free(r);
    iiop_client_free(c);
    iiop_server_shutdown(s);
    iiop_server_free(s);
  }
  rec_clear();
}
END_TEST

/* ---------------------------------------------------------------- threads */

typedef struct caller {
  iiop_ref *r;
  int fails;
} caller;

static void *caller_main(void *arg)
{
  caller *cl = arg;
  for (int k = 0; k < 150; k++) {
    iiop_call *call;
    cdr_out *args;
    if (iiop_call_begin(cl->r, "check", 0, &call, &args) != CDR_OK) {
      cl->fails++;
      continue;
    }
    cdr_in *res = NULL;
    if (iiop_call_invoke(call, &res) != CDR_OK)
      cl->fails++;
    iiop_call_end(call);
  }
  return NULL;
}

START_TEST(test_reference_contexts_change_under_calls)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client();
  iiop_ref *r = resolve(c, s, 2);
  __atomic_store_n(&bad_ctx, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&ctx_calls, 0, __ATOMIC_RELAXED);
  enum { N = 4 };
  caller cl[N];
  pthread_t th[N];
  for (int k = 0; k < N; k++) {
    cl[k].r = r;
    cl[k].fails = 0;
    ck_assert_int_eq(pthread_create(&th[k], NULL, caller_main, &cl[k]), 0);
  }
  for (int k = 0; k < 400; k++) {
    int rc = k % 3 == 2 ? iiop_ref_remove_service_context(r, 0x100)
             : iiop_ref_set_service_context(r, 0x100, k % 3 ? "BBBBBBBB" : "AAAA", k % 3 ? 8 : 4);
    ck_assert_int_eq(rc, CDR_OK);
    ck_assert_int_eq(iiop_ref_set_service_context(r, 0x101 + (uint32_t)(k % 4), "z", 1), CDR_OK);
    if (k % 50 == 0)
      usleep(1000);
  }
  for (int k = 0; k < N; k++) {
    pthread_join(th[k], NULL);
    ck_assert_int_eq(cl[k].fails, 0);
  }
  ck_assert_int_eq(__atomic_load_n(&ctx_calls, __ATOMIC_RELAXED), N * 150);
  ck_assert_int_eq(__atomic_load_n(&bad_ctx, __ATOMIC_RELAXED), 0);
  iiop_ref_free(r); /* replaced blocks still held go with it (valgrind / ASan) */
  iiop_client_free(c);
  iiop_server_shutdown(s);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- raw sockets */

static int raw_connect(uint16_t port, uint16_t *local_port)
{
  int fd = nu_connect(NULL, port, 10, 0);
  if (local_port)
    *local_port = nu_local_port(fd);
  return fd;
}

static void rec_args(cdr_out *o, const void *ud)
{
  (void)ud;
  cdr_put_long(o, 9);
  cdr_put_double(o, 0.5);
}

/* A GIOP 1.MINOR Request "rec"(LONG 9, DOUBLE 0.5) to Echo with contexts L
 * (BODY 0: the request header alone). */
static size_t raw_request(uint8_t *buf, size_t cap, uint8_t minor, uint32_t id,
                          const giop_sc_list *l, int body)
{
  nu_req r = nu_req_default(id, "Echo", "rec");
  r.minor = minor;
  r.sc = l;
  r.no_body = !body;
  r.args = rec_args;
  return nu_request(buf, cap, &r);
}

static int hook_calls; /* atomic */
static int count_recv(void *ud, iiop_request *req)
{
  (void)ud, (void)req;
  __atomic_add_fetch(&hook_calls, 1, __ATOMIC_RELAXED);
  return 0;
}

START_TEST(test_peer_and_key_raw)
{
  rec_clear();
  iiop_server *s = start_server();
  uint16_t lp = 0;
  int fd = raw_connect(iiop_server_port(s), &lp);
  uint8_t req[512], rep[512];
  giop_service_context sc[2] = { { 77, 5, (const uint8_t *)"hello" }, { 78, 0, NULL } };
  giop_sc_list l = { 2, sc };
  for (uint8_t minor = 0; minor <= 2; minor++) {
    size_t n = raw_request(req, sizeof req, minor, 40 + minor, &l, 1);
    ck_assert(send(fd, req, n, MSG_NOSIGNAL) == (ssize_t)n);
    size_t rl = nu_recv_msg_into(fd, rep, sizeof rep);
    ck_assert_uint_gt(rl, 0);
    giop_message m;
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    ck_assert_int_eq(giop_parse(&m, rep, rl, NULL, &a), CDR_OK);
    ck_assert_uint_eq(m.hdr.type, GIOP_REPLY);
    ck_assert_uint_eq(m.u.reply.request_id, 40 + minor);
    ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
    ck_assert_uint_eq(m.u.reply.contexts.n, 0);
    ck_assert_int_eq(cdr_get_long(&m.body), 9);
    ck_assert(cdr_get_double(&m.body) == 0.5);
    cdr_in_close(&m.body);
    cdr_arena_free(&a);
    ck_assert_int_eq(rec.peer_rc, CDR_OK);
    ck_assert_str_eq(rec.peer, "127.0.0.1");
    ck_assert_uint_eq(rec.peer_port, lp);
    TU_ASSERT_BYTES(rec.key, rec.key_len, "Echo", 4);
    ck_assert_uint_eq(rec.minor, minor);
    ck_assert_uint_eq(rec.n, 2);
    expect_ctx(0, 77, "hello", 5);
    expect_ctx(1, 78, "", 0);
  }
  close(fd);
  iiop_server_shutdown(s);
  iiop_server_free(s);
  rec_clear();
}
END_TEST

/* A context count or length past the message: MessageError and the
 * connection closed, as before contexts were readable; no hook runs. */
START_TEST(test_hostile_context_lists)
{
  iiop_server *s = start_server();
  static const iiop_server_interceptor si = { count_recv, NULL };
  ck_assert_int_eq(iiop_server_add_interceptor(s, &si, NULL), CDR_OK);
  __atomic_store_n(&hook_calls, 0, __ATOMIC_RELAXED);
  giop_service_context sc = { 77, 4, (const uint8_t *)"abcd" };
  giop_sc_list l = { 1, &sc };
  int le = CDR_HOST_ORDER == CDR_LITTLE_ENDIAN;
  for (int variant = 0; variant < 6; variant++) {
    uint8_t minor = (uint8_t)(variant % 3);
    int huge_count = variant < 3;
    TU_CTX("GIOP 1.%u, %s", minor, huge_count ? "count" : "length");
    uint8_t req[512], rep[512];
    size_t n = raw_request(req, sizeof req, minor, 1, &l, 0);
    /* where the list is: 1.0/1.1 at 12; 1.2 after the operation name,
     * here the message's last 16 octets (count, id, length, data) */
    size_t at = minor < 2 ? 12 : n - 16;
    uint32_t v = huge_count ? 0x7fffffffu : 0x10000u;
    size_t pos = huge_count ? at : at + 8;
    for (int b = 0; b < 4; b++)
      req[pos + (size_t)b] = (uint8_t)(le ? v >> (8 * b) : v >> (24 - 8 * b));
    int fd = raw_connect(iiop_server_port(s), NULL);
    ck_assert(send(fd, req, n, MSG_NOSIGNAL) == (ssize_t)n);
    size_t rl = nu_recv_msg_into(fd, rep, sizeof rep);
    ck_assert_uint_eq(rl, 12);
    ck_assert_uint_eq(rep[7], GIOP_MESSAGE_ERROR);
    ck_assert_uint_eq(nu_recv_msg_into(fd, rep, sizeof rep), 0); /* closed */
    close(fd);
  }
  ck_assert_int_eq(__atomic_load_n(&hook_calls, __ATOMIC_RELAXED), 0);
  /* a well-formed one runs the hook */
  uint8_t req[512], rep[512];
  size_t n = raw_request(req, sizeof req, 2, 1, &l, 1);
  int fd = raw_connect(iiop_server_port(s), NULL);
  ck_assert(send(fd, req, n, MSG_NOSIGNAL) == (ssize_t)n);
  ck_assert_uint_gt(nu_recv_msg_into(fd, rep, sizeof rep), 12);
  ck_assert_uint_eq(rep[7], GIOP_REPLY);
  close(fd);
  ck_assert_int_eq(__atomic_load_n(&hook_calls, __ATOMIC_RELAXED), 1);
  iiop_server_shutdown(s);
  iiop_server_free(s);
  rec_clear();
}
END_TEST

static Suite *svcctx_suite(void)
{
  Suite *s = suite_create("svcctx");
  TCase *tc = tcase_create("service contexts");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_request_contexts_exact);
  tcase_add_test(tc, test_limits);
  tcase_add_test(tc, test_reply_contexts);
  tcase_add_test(tc, test_interceptors);
  tcase_add_test(tc, test_reference_contexts_change_under_calls);
  tcase_add_test(tc, test_peer_and_key_raw);
  tcase_add_test(tc, test_hostile_context_lists);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = svcctx_suite };
