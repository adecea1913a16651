/* check_orb.c - the IIOP client and server of iiop/orb.h over loopback:
 * calls with exact results (plain, TLS, IPv6), many threads on one
 * connection, user and system exceptions, the object adapter's built-in
 * operations, oneway, shutdown with calls pending, a fake server that hangs
 * up mid-reply, a stalled TLS client, and the server's side of the wire
 * checked octet by octet through raw sockets (LocateRequest, MessageError,
 * CloseConnection, GIOP 1.0 and big-endian requests, reply fragments,
 * docs/hostile-input.md C18 (g)), the epoll worker pool (many connections, shutdown with
 * pooled connections pending, the wire tests again on pooled connections),
 * and generated object keys with deactivation.  Every server listens on
 * port 0, so runs may overlap.
 * This file also runs under ThreadSanitizer: shared test state is atomic
 * or under a mutex. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/frag.h>
#include <iiop/ior.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"
#include "tlsutil.h"

#define OMG(n) (GIOP_OMGVMCID | (n))

/* ---------------------------------------------------------------- the servant */

static int oneway_value;            /* atomic */

/* slow(): blocks until the gate opens. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open, gate_entered; /* gate_entered: slow() calls that arrived */

static void gate_reset(void)
{
  pthread_mutex_lock(&gate_mu);
  gate_open = gate_entered = 0;
  pthread_mutex_unlock(&gate_mu);
}
static void gate_release(void)
{
  pthread_mutex_lock(&gate_mu);
  gate_open = 1;
  pthread_cond_broadcast(&gate_cv);
  pthread_mutex_unlock(&gate_mu);
}
static void gate_wait_entered_n(int n)
{
  pthread_mutex_lock(&gate_mu);
  while (gate_entered < n)
    pthread_cond_wait(&gate_cv, &gate_mu);
  pthread_mutex_unlock(&gate_mu);
}
static void gate_wait_entered(void) { gate_wait_entered_n(1); }

static int pings_served;            /* atomic */

static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  __atomic_add_fetch(&pings_served, 1, __ATOMIC_SEQ_CST);
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a))
    return cdr_in_status(a);
  cdr_put_long(o, x);
  return CDR_OK;
}

static int op_echo_wstring(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  uint32_t n;
  cdr_wchar *w = cdr_get_wstring(a, &n);
  if (!w)
    return cdr_in_status(a);
  cdr_put_wstring(o, w, n);
  return CDR_OK;
}

/* raiseUser(long x) raises Bench::Oops { long code; } with code = x. */
static int op_raise_user(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a))
    return cdr_in_status(a);
  cdr_put_string(o, "IDL:Bench/Oops:1.0");
  cdr_put_long(o, x);
  return IIOP_R_USER_EXCEPTION;
}

/* raiseSystem(long k): 0 NO_MEMORY (completed NO), 1 BAD_PARAM (MAYBE). */
static int op_raise_system(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  int32_t k = cdr_get_long(a);
  cdr_put_long(o, 99); /* discarded with the exception */
  if (k == 1) {
    iiop_request_set_completed(r, GIOP_COMPLETED_MAYBE);
    return CDR_E_INVALID;
  }
  return CDR_E_NOMEM;
}

static int op_set_value(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a))
    return cdr_in_status(a);
  __atomic_store_n(&oneway_value, x, __ATOMIC_SEQ_CST);
  return CDR_OK;
}

static int op_get_value(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  cdr_put_long(o, __atomic_load_n(&oneway_value, __ATOMIC_SEQ_CST));
  return CDR_OK;
}

static int op_slow(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  pthread_mutex_lock(&gate_mu);
  gate_entered++;
  pthread_cond_broadcast(&gate_cv);
  while (!gate_open)
    pthread_cond_wait(&gate_cv, &gate_mu);
  pthread_mutex_unlock(&gate_mu);
  cdr_put_long(o, 7);
  return CDR_OK;
}

static const iiop_operation echo_ops[] = {
  { "ping", op_ping },
  { "echoString", nu_op_echo_string },
  { "echoStringView", nu_op_echo_view },
  { "echoWString", op_echo_wstring },
  { "raiseUser", op_raise_user },
  { "raiseSystem", op_raise_system },
  { "setValue", op_set_value },
  { "getValue", op_get_value },
  { "slow", op_slow },
};
static const char *const echo_bases[] = { "IDL:Bench/Base:1.0", NULL };
static const iiop_interface echo_iface = {
  "IDL:Bench/Echo:1.0", echo_ops, sizeof echo_ops / sizeof echo_ops[0], echo_bases
};

/* ---------------------------------------------------------------- fixtures */

static int have_openssl;
static char ca_file[TLSU_PATH_MAX], other_ca_file[TLSU_PATH_MAX], cert_file[TLSU_PATH_MAX];
static char key_file[TLSU_PATH_MAX];

/* A test CA, a server certificate it signs (subjectAltName IP:127.0.0.1,
 * DNS:localhost), and another CA that signed nothing here. */
static void certs_setup(void)
{
  if (!tlsu_begin("check_orb"))
    return;
  int rc = 0;
  rc |= tlsu_ca("ca", "ca.crt", "/CN=check_orb-CA");
  rc |= tlsu_ca("other", "other.crt", "/CN=other-CA");
  rc |= tlsu_leaf("srv", "srv.crt", "/CN=localhost", "ca", "ca.crt",
                  "subjectAltName=IP:127.0.0.1,DNS:localhost");
  if (rc != 0)
    return;
  tlsu_path(ca_file, "ca.crt");
  tlsu_path(other_ca_file, "other.crt");
  tlsu_path(cert_file, "srv.crt");
  tlsu_path(key_file, "srv.key");
  have_openssl = 1;
}

static void certs_teardown(void) { tlsu_end("check_orb"); }

/* ---------------------------------------------------------------- helpers */

typedef struct srv_opts_x {
  const char *host;
  int tls;
  size_t fragment_size;
  uint32_t max_connections;
  int handshake_ms;
  uint32_t pool_threshold, pool_threads;
  const iiop_limits *limits;
} srv_opts_x;

static iiop_server *start_server_x(const srv_opts_x *x)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  if (x && x->host)
    o.host = x->host;
  if (x && x->tls) {
    o.tls_cert = cert_file;
    o.tls_key = key_file;
  }
  if (x && x->fragment_size)
    o.fragment_size = x->fragment_size;
  if (x && x->max_connections)
    o.max_connections = x->max_connections;
  if (x && x->handshake_ms)
    o.handshake_timeout_ms = x->handshake_ms;
  if (x) {
    o.pool_threshold = x->pool_threshold;
    o.pool_threads = x->pool_threads;
  }
  if (x && x->limits)
    o.limits = *x->limits;
  iiop_server *s = nu_serve(&o, "Echo", &echo_iface, NULL);
  ck_assert_uint_ne(iiop_server_port(s), 0);
  return s;
}

static iiop_server *start_server(void) { return start_server_x(NULL); }

static iiop_client *new_client(const char *ca)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 10000;
  o.tls_ca_file = ca;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

/* A client whose callers all share one connection (max_connections 1):
 * calls queued behind another on the same connection. */
static iiop_client *new_client_one(void)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 10000;
  o.max_connections = 1;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

static iiop_ref *resolve_ior(iiop_client *c, iiop_server *s, const char *key)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, key, strlen(key), &a, &ior), CDR_OK);
  ck_assert_ptr_nonnull(ior);
  ck_assert(strncmp(ior, "IOR:", 4) == 0);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  cdr_arena_free(&a);
  return r;
}

static iiop_ref *resolve_loc(iiop_client *c, const char *host, uint16_t port, const char *key)
{
  char url[160];
  int v6 = strchr(host, ':') != NULL;
  snprintf(url, sizeof url, "corbaloc::1.2@%s%s%s:%u/%s", v6 ? "[" : "", host, v6 ? "]" : "",
           (unsigned)port, key);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  return r;
}

static int call_ping(iiop_ref *r, int32_t x, int32_t *out)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, "ping", 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    *out = cdr_get_long(res);
    if (cdr_in_status(res) != CDR_OK)
      rc = cdr_in_status(res);
  }
  iiop_call_end(call);
  return rc;
}

static void check_ping(iiop_ref *r, int32_t x)
{
  int32_t got = 0;
  ck_assert_int_eq(call_ping(r, x, &got), CDR_OK);
  ck_assert_int_eq(got, x);
}

/* Invoke OP with one long argument; returns invoke's status, the system
 * exception copied into *E when there is one. */
static int call_long(iiop_ref *r, const char *op, int32_t x, giop_system_exception *e,
                     char *uex_id, size_t uex_cap, int32_t *uex_code)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, op, 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_long(args, x);
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == IIOP_R_SYSTEM_EXCEPTION && e) {
    const giop_system_exception *x2 = iiop_call_exception(call);
    ck_assert_ptr_nonnull(x2);
    e->minor = x2->minor;
    e->completed = x2->completed;
    e->repo_id = giop_system_exception_name(x2->repo_id, strlen(x2->repo_id));
  }
  if (rc == IIOP_R_USER_EXCEPTION && uex_id) {
    const char *id;
    uint32_t il;
    ck_assert_int_eq(cdr_get_string_view(res, &id, &il), CDR_OK);
    snprintf(uex_id, uex_cap, "%.*s", (int)il, id);
    *uex_code = cdr_get_long(res);
    ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  }
  iiop_call_end(call);
  return rc;
}

/* ---------------------------------------------------------------- raw sockets */


static void raw_send(int fd, const void *p, size_t n) { ck_assert(nu_send_all(fd, p, n)); }



/* True when the peer closes FD within MS milliseconds (reading and
 * dropping what comes before). */
static int raw_closed_within(int fd, int ms)
{
  int64_t end = tu_now_ms() + ms;
  for (;;) {
    int left = (int)(end - tu_now_ms());
    if (left <= 0)
      return 0;
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, left) <= 0)
      continue;
    uint8_t b[256];
    ssize_t r = recv(fd, b, sizeof b, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
      return 1;
  }
}

/* A Request message into BUF (CAP octets): GIOP 1.MINOR, byte order
 * ORDER, key KEY, operation OP, arguments by ARGS, service contexts SC. */
static size_t build_request(uint8_t *buf, size_t cap, uint8_t minor, int order, uint32_t id,
                            uint8_t flags, const char *key, const char *op, const giop_sc_list *sc,
                            nu_args_fn args, const void *ud)
{
  nu_req r = nu_req_default(id, key, op);
  r.minor = minor;
  r.order = order;
  r.flags = flags;
  r.sc = sc;
  r.args = args;
  r.ud = ud;
  return nu_request(buf, cap, &r);
}

static void arg_wstring_ab(cdr_out *o, const void *ud)
{
  static const cdr_wchar ab[] = { 'A', 'B' };
  cdr_put_wstring(o, ab, 2);
}

/* Parse MSG into *M with wchar code set TCS_W; the caller frees. */
static void parse(giop_message *m, const uint8_t *msg, size_t len, cdr_arena *a, uint32_t tcs_w)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.tcs_w = tcs_w;
  ck_assert_int_eq(giop_parse(m, msg, len, &o, a), CDR_OK);
}

/* Send a request on FD, read the reply, check it is a reply to ID with
 * status STATUS; *M is positioned at its body (MSG freed by the caller). */
static uint8_t *raw_call(int fd, const uint8_t *req, size_t n, uint32_t id, uint32_t status,
                         giop_message *m, cdr_arena *a, uint32_t tcs_w)
{
  raw_send(fd, req, n);
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  parse(m, msg, len, a, tcs_w);
  ck_assert_uint_eq(m->hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(m->u.reply.request_id, id);
  ck_assert_uint_eq(m->u.reply.reply_status, status);
  return msg;
}

/* POOLED 0: the default server (a thread per connection), *HOLDER -1.
 * POOLED 1: a server with pool_threshold 1 and WORKERS workers whose first
 * connection, *HOLDER (a raw socket, answered once), keeps the one thread
 * slot taken: every later connection is served by the pool. */
static iiop_server *start_server_pool(int pooled, uint32_t workers, int *holder)
{
  srv_opts_x x = { .pool_threshold = pooled ? 1 : 0, .pool_threads = workers };
  iiop_server *s = start_server_x(&x);
  *holder = -1;
  if (pooled) {
    *holder = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
    uint8_t req[256];
    int32_t v = 1;
    size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED,
                             "Echo", "ping", NULL, nu_arg_long, &v);
    cdr_arena *a = cdr_arena_get();
    giop_message m;
    uint8_t *msg = raw_call(*holder, req, n, 1, GIOP_NO_EXCEPTION, &m, a, 0);
    cdr_in_close(&m.body);
    free(msg);
    cdr_arena_put(a);
  }
  return s;
}

static iiop_server *start_server_mode(int pooled, int *holder)
{
  return start_server_pool(pooled, 2, holder);
}

/* ---------------------------------------------------------------- tests: calls */

START_TEST(test_ping_and_echo_string)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 42);
  check_ping(r, INT32_MIN);
  check_ping(r, INT32_MAX);
  check_ping(r, -1);
  nu_check_echo(r, "echoString", "hello", 5, 0);
  nu_check_echo(r, "echoString", "", 0, 0);
  /* ISO-8859-1 both sides: octets unchanged */
  nu_check_echo(r, "echoString", "caf\xe9 \xff", 6, 0);
  iiop_ref_free(r);

  /* corbaloc reaches the same object. */
  r = resolve_loc(c, "127.0.0.1", iiop_server_port(s), "Echo");
  check_ping(r, 7);
  nu_check_echo(r, "echoString", "via corbaloc", 12, 0);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_large_string_fragmented)
{
  /* Replies (and requests) of 100 000 octets cross many 1 KiB fragments. */
  srv_opts_x x = { .fragment_size = 1024 };
  iiop_server *s = start_server_x(&x);
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.fragment_size = 1024;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  size_t n = 100000;
  char *big = malloc(n);
  ck_assert_ptr_nonnull(big);
  for (size_t k = 0; k < n; k++)
    big[k] = (char)('a' + k % 26);
  nu_check_echo(r, "echoString", big, n, 0);
  check_ping(r, 3);
  free(big);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* Requests and replies written by reference go out as gather lists:
 * whole, cut into 256-octet fragments, and over TLS (which coalesces). */
START_TEST(test_gather_requests_and_replies)
{
  size_t n = 100003;
  char *big = malloc(n);
  ck_assert_ptr_nonnull(big);
  for (size_t k = 0; k < n; k++)
    big[k] = (char)('a' + k % 26);
  for (int mode = 0; mode < 3; mode++) {
    if (mode == 2 && !have_openssl)
      break;
    srv_opts_x x = { .fragment_size = mode == 1 ? 256 : 0, .tls = mode == 2 };
    iiop_server *s = start_server_x(&x);
    iiop_client_opts o;
    iiop_client_opts_default(&o);
    if (mode == 1)
      o.fragment_size = 256;
    if (mode == 2)
      o.tls_ca_file = ca_file;
    iiop_client *c = iiop_client_new(&o);
    ck_assert_ptr_nonnull(c);
    iiop_ref *r = resolve_ior(c, s, "Echo");
    for (int k = 0; k < 3; k++) {      /* the first request carries CodeSets (rebuilt) */
      nu_check_echo(r, "echoStringView", big, n, NU_ECHO_BY_REF | NU_ECHO_ONE_REF);
      nu_check_echo(r, "echoString", big + k, n - k, NU_ECHO_BY_REF | NU_ECHO_ONE_REF);
    }
    check_ping(r, 3);
    iiop_ref_free(r);
    iiop_client_free(c);
    iiop_server_free(s);
  }
  free(big);
}
END_TEST

START_TEST(test_port0_picks_free_ports)
{
  iiop_server *a = start_server(), *b = start_server();
  ck_assert_uint_ne(iiop_server_port(a), 0);
  ck_assert_uint_ne(iiop_server_port(b), 0);
  ck_assert_uint_ne(iiop_server_port(a), iiop_server_port(b));
  ck_assert_uint_eq(iiop_server_tls_port(a), 0);
  iiop_client *c = new_client(NULL);
  iiop_ref *ra = resolve_ior(c, a, "Echo"), *rb = resolve_ior(c, b, "Echo");
  check_ping(ra, 1);
  check_ping(rb, 2);
  iiop_ref_free(ra);
  iiop_ref_free(rb);
  iiop_client_free(c);
  iiop_server_free(a);
  iiop_server_free(b);

  /* Binding a port in use fails cleanly. */
  iiop_server *s = start_server();
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.port = iiop_server_port(s);
  iiop_server *t = NULL;
  ck_assert_int_eq(iiop_server_new(&o, &t), CDR_E_IO);
  ck_assert_ptr_null(t);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_ior_contents)
{
  srv_opts_x x = { .tls = 1 };
  if (!have_openssl)
    x.tls = 0;
  iiop_server *s = start_server_x(&x);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *str;
  ck_assert_int_eq(iiop_server_ior(s, "Echo", 4, &a, &str), CDR_OK);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(str, &a, &ior), CDR_OK);
  ck_assert_str_eq(ior.type_id, "IDL:Bench/Echo:1.0");
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p->major, 1);
  ck_assert_uint_eq(p->minor, 2);
  ck_assert_str_eq(p->host, "127.0.0.1");
  ck_assert_uint_eq(p->port, iiop_server_port(s));
  ck_assert_uint_eq(p->key_len, 4);
  ck_assert(memcmp(p->key, "Echo", 4) == 0);
  const iiop_component *cc = iiop_profile_component(p, IIOP_TAG_CODE_SETS);
  ck_assert_ptr_nonnull(cc);
  iiop_codeset_info ci;
  ck_assert_int_eq(iiop_codeset_info_decode(cc, &a, &ci), CDR_OK);
  ck_assert_uint_eq(ci.for_char.native, CDR_CS_ISO8859_1);
  ck_assert_uint_eq(ci.for_char.nconv, 1);
  ck_assert_uint_eq(ci.for_char.conv[0], CDR_CS_UTF8);
  ck_assert_uint_eq(ci.for_wchar.native, CDR_CS_UTF16);
  const iiop_component *sc = iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS);
  if (x.tls) {
    ck_assert_ptr_nonnull(sc);
    uint16_t sup, req, port;
    ck_assert_int_eq(iiop_ssl_component_decode(sc, &sup, &req, &port), CDR_OK);
    ck_assert_uint_eq(port, iiop_server_tls_port(s));
    ck_assert_uint_ne(port, 0);
    ck_assert(sup & 0x06); /* Integrity | Confidentiality */
  } else {
    ck_assert_ptr_null(sc);
  }
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_tls)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: TLS test skipped\n");
    return;
  }
  srv_opts_x x = { .tls = 1 };
  iiop_server *s = start_server_x(&x);
  ck_assert_uint_ne(iiop_server_tls_port(s), 0);
  ck_assert_uint_ne(iiop_server_tls_port(s), iiop_server_port(s));

  iiop_client *c = new_client(ca_file);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 1234);
  nu_check_echo(r, "echoString", "over TLS", 8, 0);
  char why[IIOP_CLIENT_ERROR_MAX];
  memset(why, 'x', sizeof why);
  ck_assert_uint_eq(iiop_client_last_error(c, why, sizeof why), 0);
  ck_assert_str_eq(why, "");
  iiop_ref_free(r);
  iiop_client_free(c);

  /* A client that does not trust the server's CA refuses it, and says why
   * in OpenSSL's words. */
  c = new_client(other_ca_file);
  r = resolve_ior(c, s, "Echo");
  int32_t got;
  ck_assert_int_eq(call_ping(r, 1, &got), CDR_E_TLS);
  char want[160];
  int wn = snprintf(want, sizeof want,
                    "TLS to 127.0.0.1:%u: certificate verify failed: unable to get local issuer "
                    "certificate", (unsigned)iiop_server_tls_port(s));
  ck_assert_uint_eq(iiop_client_last_error(c, why, sizeof why), (size_t)wn);
  ck_assert_str_eq(why, want);
  /* Cut to the caller's buffer, NUL-terminated, full length returned. */
  char small[8];
  ck_assert_uint_eq(iiop_client_last_error(c, small, sizeof small), (size_t)wn);
  ck_assert_str_eq(small, "TLS to ");
  ck_assert_uint_eq(iiop_client_last_error(c, NULL, 0), (size_t)wn);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* The TLS reason through the transport call itself: a CA that did not sign
 * the server's certificate. */
START_TEST(test_tls_connect_why)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: TLS reason test skipped\n");
    return;
  }
  srv_opts_x x = { .tls = 1 };
  iiop_server *s = start_server_x(&x);
  iiop_tls_ctx *cx = NULL;
  ck_assert_int_eq(iiop_tls_client_ctx(other_ca_file, 1, &cx), CDR_OK);
  iiop_transport *t = NULL, *tt = NULL;
  ck_assert_int_eq(iiop_tcp_connect("127.0.0.1", iiop_server_tls_port(s), 5000, &t), CDR_OK);
  char why[IIOP_TLS_WHY_MAX];
  ck_assert_int_eq(iiop_tls_connect_why(cx, t, "127.0.0.1", 5000, &tt, why, sizeof why),
                   CDR_E_TLS);
  ck_assert_ptr_null(tt);
  ck_assert_str_eq(why, "certificate verify failed: unable to get local issuer certificate");
  iiop_tls_ctx_free(cx);

  /* The right CA: the handshake succeeds and WHY is empty. */
  ck_assert_int_eq(iiop_tls_client_ctx(ca_file, 1, &cx), CDR_OK);
  ck_assert_int_eq(iiop_tcp_connect("127.0.0.1", iiop_server_tls_port(s), 5000, &t), CDR_OK);
  why[0] = 'x';
  ck_assert_int_eq(iiop_tls_connect_why(cx, t, "127.0.0.1", 5000, &tt, why, sizeof why), CDR_OK);
  ck_assert_str_eq(why, "");
  tt->ops->shutdown(tt);
  tt->ops->free(tt);
  iiop_tls_ctx_free(cx);

  /* Contexts: a missing CA file, a key that is not the certificate's. */
  char missing[TLSU_PATH_MAX];
  tlsu_path(missing, "no-such-ca.crt");
  cx = (iiop_tls_ctx *)1;
  ck_assert_int_eq(iiop_tls_client_ctx_why(missing, 1, &cx, why, sizeof why), CDR_E_TLS);
  ck_assert_ptr_nonnull(strstr(why, "No such file or directory"));
  ck_assert_int_eq(iiop_tls_server_ctx_why(other_ca_file, key_file, &cx, why, sizeof why),
                   CDR_E_TLS);
  ck_assert_ptr_nonnull(strstr(why, "key values mismatch"));
  ck_assert_int_eq(iiop_tls_client_ctx_why(ca_file, 1, &cx, why, sizeof why), CDR_OK);
  ck_assert_str_eq(why, "");
  iiop_tls_ctx_free(cx);

  /* A name the certificate does not carry. */
  ck_assert_int_eq(iiop_tls_client_ctx(ca_file, 1, &cx), CDR_OK);
  ck_assert_int_eq(iiop_tcp_connect("127.0.0.1", iiop_server_tls_port(s), 5000, &t), CDR_OK);
  ck_assert_int_eq(iiop_tls_connect_why(cx, t, "wrong.example", 5000, &tt, why, sizeof why),
                   CDR_E_TLS);
  ck_assert_str_eq(why, "certificate verify failed: hostname mismatch");
  iiop_tls_ctx_free(cx);
  iiop_server_free(s);
}
END_TEST

/* A server with IIOP_TLS_REQUIRED listens for TLS only: no plain port, its
 * IORs say port 0 and require integrity and confidentiality; a client with
 * the CA calls it over TLS, one without gets CDR_E_UNSUPPORTED at resolve.
 * Without a certificate, or with an unknown policy, there is no server. */
START_TEST(test_tls_required_server)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: TLS policy test skipped\n");
    return;
  }
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  ck_assert_int_eq(so.tls_policy, IIOP_TLS_ALLOWED);
  iiop_server *s = NULL;
  so.tls_policy = IIOP_TLS_REQUIRED;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_TLS);
  so.tls_cert = cert_file;
  so.tls_key = key_file;
  so.tls_policy = 7;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_INVALID);
  so.tls_policy = IIOP_TLS_REQUIRED;
  s = nu_serve(&so, "Echo", &echo_iface, NULL);
  ck_assert_uint_eq(iiop_server_port(s), 0);
  ck_assert_uint_ne(iiop_server_tls_port(s), 0);

  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, "Echo", 4, &a, &ior), CDR_OK);
  iiop_ior parsed;
  ck_assert_int_eq(iiop_ior_from_string(ior, &a, &parsed), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&parsed);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p->port, 0);
  const iiop_component *ssl = iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS);
  ck_assert_ptr_nonnull(ssl);
  uint16_t sup = 0, req = 0, sp = 0;
  ck_assert_int_eq(iiop_ssl_component_decode(ssl, &sup, &req, &sp), CDR_OK);
  ck_assert_uint_eq(sup, 0x02 | 0x04 | 0x20);  /* Integrity, Confidentiality, EstablishTrustInTarget */
  ck_assert_uint_eq(req, 0x02 | 0x04);
  ck_assert_uint_eq(sp, iiop_server_tls_port(s));

  iiop_client *c = new_client(ca_file);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  check_ping(r, 99);
  iiop_ref_free(r);
  iiop_client_free(c);
  c = new_client(NULL);
  r = NULL;
  /* The reference requires integrity and confidentiality (target_requires):
   * a client without TLS is refused, never sent plaintext. */
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_E_TLS);
  ck_assert_ptr_null(r);
  char err[IIOP_CLIENT_ERROR_MAX];
  iiop_client_last_error(c, err, sizeof err);
  ck_assert_ptr_nonnull(strstr(err, "no TLS context"));
  iiop_client_free(c);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 1);
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

/* IIOP_TLS_REQUIRED: never plain IIOP.  No CA file: resolve fails with
 * CDR_E_TLS and a reason, and the server saw no connection at all (on
 * neither port); with a CA file the calls go over TLS; OFF ignores the
 * TLS port; ALLOWED without a CA file is plain IIOP (unchanged). */
START_TEST(test_tls_required)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: TLS policy test skipped\n");
    return;
  }
  srv_opts_x x = { .tls = 1 };
  iiop_server *s = start_server_x(&x);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, "Echo", 4, &a, &ior), CDR_OK);

  iiop_client_opts o;
  iiop_client_opts_default(&o);
  ck_assert_int_eq(o.tls_policy, IIOP_TLS_ALLOWED);
  o.timeout_ms = 10000;
  o.tls_policy = IIOP_TLS_REQUIRED;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_E_TLS);
  ck_assert_ptr_null(r);
  char why[IIOP_CLIENT_ERROR_MAX];
  iiop_client_last_error(c, why, sizeof why);
  ck_assert_str_eq(why, "TLS required but not configured: no tls_ca_file (and tls_verify on)");
  iiop_client_stats cst;
  ck_assert_int_eq(iiop_client_stats_get(c, &cst), CDR_OK);
  ck_assert_uint_eq(cst.connections, 0);
  iiop_client_free(c);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 0);          /* no plaintext octet reached the server */

  /* Required with a CA file: TLS, and a corbaloc (no TLS port) is refused. */
  o.tls_ca_file = ca_file;
  c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  check_ping(r, 77);
  iiop_ref_free(r);
  r = NULL;
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Echo", (unsigned)iiop_server_port(s));
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_E_TLS);
  ck_assert_ptr_null(r);
  iiop_client_last_error(c, why, sizeof why);
  ck_assert_str_eq(why, "TLS required but a corbaloc iiop address has no TLS port");
  iiop_client_free(c);
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 1);          /* the one TLS connection */

  /* OFF with a CA file: plain IIOP to the profile's port. */
  o.tls_policy = IIOP_TLS_OFF;
  c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  check_ping(r, 78);
  iiop_ref_free(r);
  iiop_client_free(c);

  /* An unknown policy value: no client. */
  o.tls_policy = 3;
  ck_assert_ptr_null(iiop_client_new(&o));
  cdr_arena_free(&a);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_tls_stalled_client)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: stalled TLS client test skipped\n");
    return;
  }
  srv_opts_x x = { .tls = 1, .handshake_ms = 400 };
  iiop_server *s = start_server_x(&x);
  int64_t t0 = tu_now_ms();
  int stalled = nu_connect("127.0.0.1", iiop_server_tls_port(s), 5, NU_NODELAY); /* and sends nothing */
  int stalled2 = nu_connect("127.0.0.1", iiop_server_tls_port(s), 5, NU_NODELAY);

  /* Other clients are served meanwhile, over TLS and plain. */
  iiop_client *c = new_client(ca_file);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 5);
  iiop_ref_free(r);
  iiop_client_free(c);
  c = new_client(NULL);
  r = resolve_loc(c, "127.0.0.1", iiop_server_port(s), "Echo");
  check_ping(r, 6);
  iiop_ref_free(r);
  iiop_client_free(c);

  /* The stalled ones are dropped after the handshake timeout. */
  ck_assert(raw_closed_within(stalled, 4000));
  ck_assert(raw_closed_within(stalled2, 1000));
  int64_t dt = tu_now_ms() - t0;
  ck_assert_int_ge(dt, 300);
  close(stalled);
  close(stalled2);
  iiop_server_free(s);
}
END_TEST

typedef struct caller {
  iiop_ref *r;
  int id;
  int errors;
} caller;

static void *caller_main(void *arg)
{
  caller *k = arg;
  for (int i = 0; i < 500; i++) {
    int32_t x = k->id * 100000 + i, got = -1;
    if (call_ping(k->r, x, &got) != CDR_OK || got != x)
      k->errors++;
  }
  return NULL;
}

START_TEST(test_concurrent_callers_one_connection)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 0); /* connect once: every thread shares that connection */
  pthread_t t[8];
  caller k[8];
  for (int i = 0; i < 8; i++) {
    k[i] = (caller){ r, i + 1, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, caller_main, &k[i]), 0);
  }
  for (int i = 0; i < 8; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].errors, 0);
  }
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_exceptions)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  char id[64];
  int32_t code = 0;
  ck_assert_int_eq(call_long(r, "raiseUser", 77, NULL, id, sizeof id, &code), IIOP_R_USER_EXCEPTION);
  ck_assert_str_eq(id, "IDL:Bench/Oops:1.0");
  ck_assert_int_eq(code, 77);

  giop_system_exception e;
  ck_assert_int_eq(call_long(r, "raiseSystem", 0, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "NO_MEMORY");
  ck_assert_uint_eq(e.minor, 0);
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
  ck_assert_int_eq(call_long(r, "raiseSystem", 1, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "BAD_PARAM");
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_MAYBE);

  /* Unknown operations and _interface: BAD_OPERATION, OMG minor 2. */
  ck_assert_int_eq(call_long(r, "noSuchOp", 1, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "BAD_OPERATION");
  ck_assert_uint_eq(e.minor, OMG(2));
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
  ck_assert_int_eq(call_long(r, "_interface", 1, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "BAD_OPERATION");

  /* Missing arguments: MARSHAL, and the connection goes on. */
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "ping", 0, &call, &args), CDR_OK);
  cdr_in *res;
  ck_assert_int_eq(iiop_call_invoke(call, &res), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(iiop_call_exception(call)->repo_id, "IDL:omg.org/CORBA/MARSHAL:1.0");
  iiop_call_end(call);
  check_ping(r, 11);
  iiop_ref_free(r);

  /* A key that names no object: OBJECT_NOT_EXIST. */
  r = resolve_loc(c, "127.0.0.1", iiop_server_port(s), "Nope");
  ck_assert_int_eq(call_long(r, "ping", 1, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "OBJECT_NOT_EXIST");
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

static int call_bool(iiop_ref *r, const char *op, const char *arg, bool *out)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, op, 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  if (arg)
    cdr_put_string(args, arg);
  cdr_in *res;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    *out = cdr_get_boolean(res);
    if (cdr_in_status(res))
      rc = cdr_in_status(res);
  }
  iiop_call_end(call);
  return rc;
}

START_TEST(test_is_a_and_non_existent)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  static const struct { const char *id; bool want; } cases[] = {
    { "IDL:Bench/Echo:1.0", true },
    { "IDL:Bench/Base:1.0", true },
    { "IDL:omg.org/CORBA/Object:1.0", true },
    { "IDL:Bench/Other:1.0", false },
    { "IDL:Bench/Echo:1.1", false },
    { "IDL:Bench/Echo:1.", false },
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    bool b = !cases[k].want;
    ck_assert_int_eq(call_bool(r, "_is_a", cases[k].id, &b), CDR_OK);
    ck_assert_msg(b == cases[k].want, "_is_a(%s)", cases[k].id);
  }
  bool b = true;
  ck_assert_int_eq(call_bool(r, "_non_existent", NULL, &b), CDR_OK);
  ck_assert(!b);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_oneway)
{
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  __atomic_store_n(&oneway_value, 0, __ATOMIC_SEQ_CST);
  for (int32_t v = 1; v <= 3; v++) {
    iiop_call *call;
    cdr_out *args;
    ck_assert_int_eq(iiop_call_begin(r, "setValue", 1, &call, &args), CDR_OK);
    cdr_put_long(args, 1000 + v);
    ck_assert_int_eq(iiop_call_invoke(call, NULL), CDR_OK);
    iiop_call_end(call);
  }
  /* A oneway raising an exception gets no reply either. */
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "raiseSystem", 1, &call, &args), CDR_OK);
  cdr_put_long(args, 0);
  ck_assert_int_eq(iiop_call_invoke(call, NULL), CDR_OK);
  iiop_call_end(call);
  /* Requests on one connection are dispatched in order. */
  ck_assert_int_eq(iiop_call_begin(r, "getValue", 0, &call, &args), CDR_OK);
  cdr_in *res;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  ck_assert_int_eq(cdr_get_long(res), 1003);
  iiop_call_end(call);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_wstring_with_codesets)
{
  /* The client sends the CodeSets context: UTF-16 wstrings work. */
  iiop_server *s = start_server();
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  static const cdr_wchar w[] = { 'h', 0xe9, 0x4e2d, 0x1f0a1, '!' };
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "echoWString", 0, &call, &args), CDR_OK);
  cdr_put_wstring(args, w, 5);
  cdr_in *res;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  uint32_t n;
  cdr_wchar *got = cdr_get_wstring(res, &n);
  ck_assert_ptr_nonnull(got);
  ck_assert_uint_eq(n, 5);
  ck_assert(memcmp(got, w, sizeof w) == 0);
  iiop_call_end(call);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_ipv6)
{
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  struct sockaddr_in6 a;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
  if (fd >= 0)
    close(fd);
  if (!ok) {
    fprintf(stderr, "check_orb: no IPv6 loopback (::1): IPv6 test skipped\n");
    return;
  }
  srv_opts_x x = { .host = "::1" };
  iiop_server *s = start_server_x(&x);
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 66);
  nu_check_echo(r, "echoString", "v6", 2, 0);
  iiop_ref_free(r);
  r = resolve_loc(c, "::1", iiop_server_port(s), "Echo");
  check_ping(r, 67);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- tests: shutdown and failures */

typedef struct pending {
  iiop_ref *r;
  const char *op;
  int rc;
  int32_t value;
  const char *ex;            /* the local system exception's name, if any */
  uint32_t completed;
} pending;

static void *pending_main(void *arg)
{
  pending *p = arg;
  iiop_call *call;
  cdr_out *args;
  p->rc = iiop_call_begin(p->r, p->op, 0, &call, &args);
  if (p->rc != CDR_OK)
    return NULL;
  if (strcmp(p->op, "ping") == 0)
    cdr_put_long(args, 5);
  cdr_in *res;
  p->rc = iiop_call_invoke(call, &res);
  if (p->rc == CDR_OK)
    p->value = cdr_get_long(res);
  const giop_system_exception *e = p->rc < 0 ? iiop_call_exception(call) : NULL;
  if (e) {
    p->ex = giop_system_exception_name(e->repo_id, strlen(e->repo_id));
    p->completed = e->completed;
  }
  iiop_call_end(call);
  return NULL;
}

static void *shutdown_main(void *arg)
{
  iiop_server_shutdown(arg);
  return NULL;
}

START_TEST(test_shutdown_with_calls_pending)
{
  gate_reset();
  iiop_server *s = start_server();
  iiop_client *c = new_client_one();
  iiop_ref *r = resolve_ior(c, s, "Echo");
  check_ping(r, 1);

  /* One call in progress (slow), three queued behind it on the same
   * connection (the server dispatches a connection's requests in order). */
  pending slow = { r, "slow", 1, 0, NULL, 0 }, q[3];
  pthread_t ts, tq[3], tsd;
  ck_assert_int_eq(pthread_create(&ts, NULL, pending_main, &slow), 0);
  gate_wait_entered();
  for (int k = 0; k < 3; k++) {
    q[k] = (pending){ r, "ping", 1, 0, NULL, 0 };
    ck_assert_int_eq(pthread_create(&tq[k], NULL, pending_main, &q[k]), 0);
  }
  tu_sleep_ms(100); /* let the queued requests reach the server */
  int served = __atomic_load_n(&pings_served, __ATOMIC_SEQ_CST);
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(pthread_create(&tsd, NULL, shutdown_main, s), 0);
  tu_sleep_ms(100);
  gate_release(); /* the request in progress completes and is answered */
  pthread_join(ts, NULL);
  ck_assert_int_eq(slow.rc, CDR_OK);
  ck_assert_int_eq(slow.value, 7);
  /* The queued calls were never dispatched: CloseConnection told the
   * client so.  They fail with CDR_E_CLOSED -- or, since the client may
   * reissue such a request once on a new connection (CORBA 3.x,
   * "CloseConnection"), with that reconnect's failure, CDR_E_IO (refused:
   * the server no longer listens).  Either way the local exception is
   * TRANSIENT, completed NO, and nobody hangs. */
  for (int k = 0; k < 3; k++) {
    pthread_join(tq[k], NULL);
    ck_assert_msg(q[k].rc == CDR_E_CLOSED || q[k].rc == CDR_E_IO, "queued call: %d", q[k].rc);
    ck_assert_ptr_nonnull(q[k].ex);
    ck_assert_str_eq(q[k].ex, "TRANSIENT");
    ck_assert_uint_eq(q[k].completed, GIOP_COMPLETED_NO);
  }
  ck_assert_int_eq(__atomic_load_n(&pings_served, __ATOMIC_SEQ_CST), served);
  pthread_join(tsd, NULL);
  ck_assert_int_lt(tu_now_ms() - t0, 5000);
  iiop_server_shutdown(s); /* idempotent */
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_shutdown_idle_connection_gets_close)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t req[256];
  int32_t v = 9;
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo",
                           "ping", NULL, nu_arg_long, &v);
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  uint8_t *msg = raw_call(fd, req, n, 1, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(cdr_get_long(&m.body), 9);
  cdr_in_close(&m.body);
  free(msg);
  pthread_t tsd;
  ck_assert_int_eq(pthread_create(&tsd, NULL, shutdown_main, s), 0);
  size_t len;
  msg = nu_recv_msg(fd, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  parse(&m, msg, len, a, 0);
  ck_assert_uint_eq(m.hdr.type, GIOP_CLOSE_CONNECTION);
  ck_assert_uint_eq(m.hdr.minor, 2);
  cdr_in_close(&m.body);
  free(msg);
  close(fd); /* the client's side of the orderly close */
  pthread_join(tsd, NULL);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

/* A fake server: answers LocateRequests, and to the first Request sends a
 * Reply header and part of its body, then hangs up. */

typedef struct fake {
  int lfd;
  uint16_t port;
} fake;

/* The fake server's one connection, reads timed out after 5 s; -1 when
 * accept fails. */
static int fake_accept(fake *f)
{
  int fd = accept(f->lfd, NULL, NULL);
  if (fd >= 0) {
    struct timeval tv = { 5, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  return fd;
}

static void *fake_main(void *arg)
{
  int fd = fake_accept(arg);
  if (fd < 0)
    return NULL;
  cdr_arena *a = cdr_arena_get();
  for (;;) {
    size_t len;
    uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
    if (!msg)
      break;
    giop_message m;
    cdr_opts o;
    cdr_opts_default(&o);
    if (giop_parse(&m, msg, len, &o, a) != CDR_OK) {
      free(msg);
      break;
    }
    uint8_t out[64];
    cdr_out w;
    cdr_opts_default(&o);
    o.giop_minor = m.hdr.minor;
    cdr_out_init_buffer(&w, &o, out, sizeof out);
    if (m.hdr.type == GIOP_LOCATE_REQUEST) {
      giop_locate_reply_header lr = { m.u.locate_request.request_id, GIOP_OBJECT_HERE };
      giop_begin_locate_reply(&w, &lr);
      giop_end(&w);
      raw_send(fd, out, cdr_out_size(&w));
    } else if (m.hdr.type == GIOP_REQUEST) {
      giop_reply_header rh = { m.u.request.request_id, GIOP_NO_EXCEPTION, { 0, NULL } };
      giop_begin_reply(&w, &rh);
      giop_begin_body(&w);
      cdr_put_long(&w, 1);
      cdr_put_long(&w, 2);
      giop_end(&w);
      /* announce 100 octets more than are sent */
      size_t sent = cdr_out_size(&w);
      uint32_t size = (uint32_t)(sent - 12 + 100);
      cdr_out_patch_ulong(&w, 8, size, cdr_out_byte_order(&w));
      raw_send(fd, out, sent);
      cdr_out_close(&w);
      cdr_in_close(&m.body);
      free(msg);
      break;
    }
    cdr_out_close(&w);
    cdr_in_close(&m.body);
    free(msg);
  }
  cdr_arena_put(a);
  tu_sleep_ms(50);
  close(fd);
  return NULL;
}

START_TEST(test_server_closes_mid_reply)
{
  fake f;
  f.lfd = nu_listen(4, &f.port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, fake_main, &f), 0);

  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_loc(c, "127.0.0.1", f.port, "Echo");
  int32_t got;
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(call_ping(r, 1, &got), CDR_E_CLOSED);
  ck_assert_int_lt(tu_now_ms() - t0, 5000);
  pthread_join(t, NULL);
  iiop_ref_free(r);
  iiop_client_free(c);
  close(f.lfd);
}
END_TEST

/* At the cap with every connection dispatching, a new one is closed at
 * once (and counted as refused). */
START_TEST(test_max_connections)
{
  gate_reset();
  srv_opts_x x = { .max_connections = 1 };
  iiop_server *s = start_server_x(&x);
  int a = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t req[256];
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo",
                           "slow", NULL, NULL, NULL);
  raw_send(a, req, n);
  gate_wait_entered();
  int b = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY); /* one too many: closed */
  ck_assert(raw_closed_within(b, 3000));
  close(b);
  gate_release();
  cdr_arena *ar = cdr_arena_get();
  size_t len;
  uint8_t *msg = nu_recv_msg(a, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  giop_message m;
  parse(&m, msg, len, ar, 0);
  ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
  ck_assert_int_eq(cdr_get_long(&m.body), 7);
  cdr_in_close(&m.body);
  free(msg);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 2);
  ck_assert_uint_eq(st.refused, 1);
  ck_assert_uint_eq(st.evicted, 0);
  close(a);
  cdr_arena_put(ar);
  iiop_server_free(s);
}
END_TEST

/* A ping on FD (request ID ID) answered with V. */
static void raw_ping(int fd, uint32_t id, int32_t v)
{
  uint8_t req[256];
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, id, GIOP_RESPONSE_EXPECTED, "Echo",
                           "ping", NULL, nu_arg_long, &v);
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  uint8_t *msg = raw_call(fd, req, n, id, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(cdr_get_long(&m.body), v);
  cdr_in_close(&m.body);
  free(msg);
  cdr_arena_put(a);
}

/* A header-only message (CloseConnection, MessageError) of GIOP 1.2 in
 * host byte order, as the server sends them. */
static void expect_bare(int fd, uint8_t type)
{
  uint8_t want[12] = { 'G', 'I', 'O', 'P', 1, 2, CDR_HOST_ORDER == CDR_LITTLE_ENDIAN, type,
                       0, 0, 0, 0 };
  uint8_t got[12];
  ck_assert(nu_read_full(fd, got, 12));
  ck_assert_mem_eq(got, want, 12);
}

/* At the cap a new connection evicts the one idle longest: a client stalled
 * inside a header loses its connection (closed, nothing sent), the working
 * one keeps its own. */
START_TEST(test_max_connections_evicts_idle_longest)
{
  srv_opts_x x = { .max_connections = 2 };
  iiop_server *s = start_server_x(&x);
  int stalled = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_send(stalled, "GIO", 3);
  usleep(300 * 1000);
  int worker = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_ping(worker, 1, 5);
  int late = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t b;
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(recv(stalled, &b, 1, 0), 0); /* closed, nothing sent */
  ck_assert_int_lt(tu_now_ms() - t0, 1000);
  raw_ping(late, 1, 6);
  raw_ping(worker, 2, 7);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.accepted, 3);
  ck_assert_uint_eq(st.evicted, 1);
  ck_assert_uint_eq(st.refused, 0);
  /* The evicted connection's record goes when its reader has seen the
   * shutdown (prompt, but not synchronous with the client's EOF). */
  for (int64_t t1 = tu_now_ms(); st.open != 2 && tu_now_ms() - t1 < 2000;) {
    usleep(5 * 1000);
    ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  }
  ck_assert_uint_eq(st.open, 2);
  close(stalled);
  close(worker);
  close(late);
  iiop_server_free(s);
}
END_TEST

/* Evicting an idle connection (between messages) sends it CloseConnection
 * first. */
START_TEST(test_max_connections_evicts_idle_with_close)
{
  srv_opts_x x = { .max_connections = 1 };
  iiop_server *s = start_server_x(&x);
  int idle = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_ping(idle, 1, 1);
  usleep(200 * 1000); /* the server's side leaves its request (dispatching is not idle) */
  int late = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  expect_bare(idle, GIOP_CLOSE_CONNECTION);
  ck_assert(raw_closed_within(idle, 3000));
  raw_ping(late, 1, 2);
  close(idle);
  close(late);
  iiop_server_free(s);
}
END_TEST

/* Short timeouts for the tests: header H, message M, idle I ms. */
static iiop_limits short_limits(int h, int m, int i)
{
  iiop_limits l;
  iiop_limits_default(&l);
  l.header_timeout_ms = h;
  l.message_timeout_ms = m;
  l.idle_timeout_ms = i;
  return l;
}

/* Milliseconds until the server closes FD (reading nothing: -1 if it sends
 * something first), at most 5 s. */
static int64_t ms_until_closed(int fd, int64_t t0)
{
  uint8_t b;
  ssize_t r = recv(fd, &b, 1, 0);
  return r == 0 ? tu_now_ms() - t0 : -1;
}

static void check_header_timeout(uint32_t pooled)
{
  iiop_limits l = short_limits(400, 10000, 10000);
  srv_opts_x x = { .limits = &l, .pool_threshold = pooled };
  iiop_server *s = start_server_x(&x);
  int keep = -1;
  if (pooled) {
    keep = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY); /* takes the one thread */
    raw_ping(keep, 1, 1);
  }
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  int64_t t0 = tu_now_ms();
  raw_send(fd, "GIO", 3);
  int64_t t = ms_until_closed(fd, t0);
  ck_assert_int_ge(t, 400);
  ck_assert_int_le(t, 400 + 2 * 50 + 500); /* scans every 50 ms; slack for a loaded machine */
  /* A connection that keeps completing messages is never timed out. */
  if (keep >= 0)
    raw_ping(keep, 2, 2);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.timeout_header, 1);
  ck_assert_uint_eq(st.timeout_message, 0);
  ck_assert_uint_eq(st.timeout_idle, 0);
  close(fd);
  if (keep >= 0)
    close(keep);
  iiop_server_free(s);
}

START_TEST(test_header_timeout) { check_header_timeout(0); }
END_TEST
START_TEST(test_header_timeout_pooled) { check_header_timeout(1); }
END_TEST

/* A body that trickles is timed from its header. */
START_TEST(test_message_timeout)
{
  iiop_limits l = short_limits(10000, 500, 10000);
  srv_opts_x x = { .limits = &l };
  iiop_server *s = start_server_x(&x);
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t req[256];
  int32_t v = 3;
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo",
                           "ping", NULL, nu_arg_long, &v);
  int64_t t0 = tu_now_ms();
  raw_send(fd, req, 12);
  size_t k = 12;
  int closed = 0;
  while (k < n - 1 && !closed) { /* one octet every 100 ms: never complete */
    usleep(100 * 1000);
    if (send(fd, req + k, 1, MSG_NOSIGNAL) != 1)
      closed = 1;
    k++;
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, 0) == 1)
      closed = 1;
  }
  int64_t t = ms_until_closed(fd, t0);
  ck_assert_int_ge(t, 500);
  ck_assert_int_le(t, 500 + 2 * 63 + 600);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.timeout_message, 1);
  ck_assert_uint_eq(st.timeout_header, 0);
  close(fd);
  iiop_server_free(s);
}
END_TEST

/* Between messages: CloseConnection after the idle timeout, then the
 * orderly close. */
START_TEST(test_idle_timeout)
{
  iiop_limits l = short_limits(10000, 10000, 400);
  srv_opts_x x = { .limits = &l };
  iiop_server *s = start_server_x(&x);
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_ping(fd, 1, 4);
  int64_t t0 = tu_now_ms();
  expect_bare(fd, GIOP_CLOSE_CONNECTION);
  int64_t t = tu_now_ms() - t0;
  ck_assert_int_ge(t, 400);
  ck_assert_int_le(t, 400 + 2 * 50 + 500);
  close(fd);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.timeout_idle, 1);
  ck_assert_uint_eq(st.timeout_header, 0);
  iiop_server_free(s);
}
END_TEST

/* Descriptors open in this process. */
static int count_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  while (readdir(d))
    n++;
  closedir(d);
  return n;
}

/* A connection that ended gives its descriptor back at once, not at the
 * next accept. */
START_TEST(test_ended_connection_releases_fd)
{
  iiop_server *s = start_server();
  int n0 = count_fds();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_ping(fd, 1, 8);
  ck_assert_int_eq(count_fds(), n0 + 2);
  close(fd);
  int64_t t0 = tu_now_ms();
  while (count_fds() != n0 && tu_now_ms() - t0 < 2000)
    usleep(5 * 1000);
  ck_assert_int_eq(count_fds(), n0);
  ck_assert_int_lt(tu_now_ms() - t0, 500);
  iiop_server_free(s);
}
END_TEST

/* Four octets that cannot begin a GIOP header get MessageError and a
 * close (and so do fewer that already differ from "GIOP"). */
START_TEST(test_bad_magic_four_octets)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_send(fd, "ABCD", 4);
  expect_bare(fd, GIOP_MESSAGE_ERROR);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  raw_send(fd, "GIX", 3);
  expect_bare(fd, GIOP_MESSAGE_ERROR);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.limit_protocol, 2);
  ck_assert_uint_eq(st.limit_message, 0);
  iiop_server_free(s);
}
END_TEST

/* A request the memory budget cannot take waits message_timeout_ms, then is
 * answered NO_RESOURCES (completed NO); its connection goes on. */
START_TEST(test_budget_no_resources)
{
  gate_reset();
  iiop_limits l = short_limits(10000, 300, 10000);
  l.max_in_flight = 256 << 10;
  srv_opts_x x = { .limits = &l };
  iiop_server *s = start_server_x(&x);
  size_t cap = 300 << 10, sl = 200 << 10;
  uint8_t *req = malloc(cap);
  char *str = malloc(sl + 1);
  ck_assert_ptr_nonnull(req);
  ck_assert_ptr_nonnull(str);
  memset(str, 'x', sl);
  str[sl] = 0;
  /* A: 200 KiB held by a request that is being dispatched (charged: 200 KiB). */
  int a = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  size_t n = build_request(req, cap, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo", "slow",
                           NULL, nu_arg_string, str);
  raw_send(a, req, n);
  gate_wait_entered();
  /* B: another 200 KiB: its buffer may not grow past 64 KiB. */
  int b = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  n = build_request(req, cap, 2, CDR_HOST_ORDER, 9, GIOP_RESPONSE_EXPECTED, "Echo", "echoString",
                    NULL, nu_arg_string, str);
  int64_t t0 = tu_now_ms();
  raw_send(b, req, n);
  size_t len;
  uint8_t *msg = nu_recv_msg(b, 1u << 24, &len);
  int64_t t = tu_now_ms() - t0;
  ck_assert_ptr_nonnull(msg);
  ck_assert_int_ge(t, 300);
  /* The exact reply: GIOP 1.2 Reply, request 9, SYSTEM_EXCEPTION, no
   * service contexts, aligned to 8, NO_RESOURCES minor 0 completed NO. */
  uint8_t want[128];
  cdr_opts o;
  cdr_opts_default(&o);
  cdr_out out;
  ck_assert_int_eq(cdr_out_init_buffer(&out, &o, want, sizeof want), CDR_OK);
  giop_reply_header rh = { 9, GIOP_SYSTEM_EXCEPTION, { 0, NULL } };
  ck_assert_int_eq(giop_begin_reply(&out, &rh), CDR_OK);
  giop_begin_body(&out);
  giop_system_exception e = { "IDL:omg.org/CORBA/NO_RESOURCES:1.0", 0, GIOP_COMPLETED_NO };
  giop_put_system_exception(&out, &e);
  ck_assert_int_eq(giop_end(&out), CDR_OK);
  ck_assert_uint_eq(len, cdr_out_size(&out));
  ck_assert_mem_eq(msg, want, len);
  ck_assert_uint_eq(len, 12 + 12 + 4 + 35 + 1 + 4 + 4);
  cdr_out_close(&out);
  free(msg);
  /* The rest of B's request was skipped: B still works. */
  raw_ping(b, 10, 11);
  gate_release();
  msg = nu_recv_msg(a, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  free(msg);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.limit_budget, 1);
  ck_assert_uint_eq(st.limit_budget_closed, 0);
  ck_assert_uint_eq(st.in_flight_max, 256 << 10);
  ck_assert_uint_le(st.in_flight_peak, 256 << 10);
  ck_assert_uint_ge(st.in_flight_peak, sl);
  close(a);
  close(b);
  /* Everything charged is given back once the connections end: the open
   * count may reach 0 a moment before the worker that sent A's reply gives
   * its request's octets back, so wait for both. */
  int64_t t1 = tu_now_ms();
  while (iiop_server_stats_get(s, &st) == CDR_OK && (st.open || st.in_flight) &&
         tu_now_ms() - t1 < 2000)
    usleep(5 * 1000);
  ck_assert_uint_eq(st.open, 0);
  ck_assert_uint_eq(st.in_flight, 0);
  free(req);
  free(str);
  iiop_server_free(s);
}
END_TEST

/* A fake server that answers the first request with 12 octets that are not
 * a GIOP header, then waits for the client to hang up. */
static void *garbage_main(void *arg)
{
  int fd = fake_accept(arg);
  if (fd < 0)
    return NULL;
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
  if (msg) {
    static const uint8_t junk[12] = { 'G', 'I', 'O', 'X', 1, 2, 0, 1, 0, 0, 0, 0 };
    raw_send(fd, junk, sizeof junk);
    free(msg);
    uint8_t b[64];
    while (recv(fd, b, sizeof b, 0) > 0)
      ;
  }
  close(fd);
  return NULL;
}

static void check_client_stats(iiop_client *c, uint64_t conns, uint64_t failed, uint64_t timeouts,
                               uint64_t limit, uint64_t protocol)
{
  iiop_client_stats st;
  memset(&st, 0xa5, sizeof st);
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, conns);
  ck_assert_uint_eq(st.connect_failed, failed);
  ck_assert_uint_eq(st.timeout_call, timeouts);
  ck_assert_uint_eq(st.limit_message, limit);
  ck_assert_uint_eq(st.limit_protocol, protocol);
}

/* iiop_client_stats counts each event exactly once: connections opened,
 * a refused connect, a call past its timeout, a reply over max_message
 * (its connection closed, so the next call opens another) and a server
 * that sends garbage. */
START_TEST(test_client_stats_exact)
{
  gate_reset();
  iiop_server *s = start_server();
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 400;
  o.max_message = 4096;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(NULL, &st), CDR_E_INVALID);
  ck_assert_int_eq(iiop_client_stats_get(c, NULL), CDR_E_INVALID);
  check_client_stats(c, 0, 0, 0, 0, 0);

  /* Three calls on one connection. */
  iiop_ref *r = resolve_ior(c, s, "Echo");
  for (int i = 0; i < 3; i++)
    check_ping(r, i);
  check_client_stats(c, 1, 0, 0, 0, 0);

  /* A reply of about 8 KiB over max_message 4096: CDR_E_LIMIT, the
   * connection closed; the next call opens a second one. */
  char big[8192];
  memset(big, 'y', sizeof big - 1);
  big[sizeof big - 1] = 0;
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, "echoString", 0, &call, &args), CDR_OK);
  cdr_put_string(args, big);
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_E_LIMIT);
  iiop_call_end(call);
  check_client_stats(c, 1, 0, 0, 1, 0);
  check_ping(r, 4);
  check_client_stats(c, 2, 0, 0, 1, 0);

  /* A call the servant holds past timeout_ms: CDR_E_TIMEOUT. */
  int32_t got;
  ck_assert_int_eq(call_long(r, "slow", 0, NULL, NULL, 0, NULL), CDR_E_TIMEOUT);
  gate_release();
  check_client_stats(c, 2, 0, 1, 1, 0);
  iiop_ref_free(r);

  /* A port bound but not listening: the connect is refused. */
  uint16_t port;
  int nl = nu_listen(-1, &port);
  r = resolve_loc(c, "127.0.0.1", port, "Echo");
  ck_assert_int_ne(call_ping(r, 1, &got), CDR_OK);
  iiop_ref_free(r);
  close(nl);
  check_client_stats(c, 2, 1, 1, 1, 0);

  /* A server that answers garbage: CDR_E_PROTOCOL, counted once. */
  fake f;
  f.lfd = nu_listen(4, &f.port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, garbage_main, &f), 0);
  r = resolve_loc(c, "127.0.0.1", f.port, "Echo");
  ck_assert_int_eq(call_ping(r, 1, &got), CDR_E_PROTOCOL);
  iiop_ref_free(r);
  check_client_stats(c, 3, 1, 1, 1, 1);
  iiop_client_free(c);
  pthread_join(t, NULL);
  close(f.lfd);
  iiop_server_free(s);
}
END_TEST

static void check_limits_eq(const iiop_limits *a, const iiop_limits *b)
{
  ck_assert_uint_eq(a->max_message, b->max_message);
  ck_assert_uint_eq(a->max_fragmented, b->max_fragmented);
  ck_assert_uint_eq(a->max_string, b->max_string);
  ck_assert_uint_eq(a->max_sequence, b->max_sequence);
  ck_assert_uint_eq(a->max_depth, b->max_depth);
  ck_assert_uint_eq(a->max_values, b->max_values);
  ck_assert_uint_eq(a->max_connections, b->max_connections);
  ck_assert_uint_eq(a->max_in_flight, b->max_in_flight);
  ck_assert_int_eq(a->header_timeout_ms, b->header_timeout_ms);
  ck_assert_int_eq(a->message_timeout_ms, b->message_timeout_ms);
  ck_assert_int_eq(a->idle_timeout_ms, b->idle_timeout_ms);
  ck_assert_int_eq(a->handshake_timeout_ms, b->handshake_timeout_ms);
  ck_assert_int_eq(a->call_timeout_ms, b->call_timeout_ms);
}

/* The older option names still work, and the limits' defaults are the
 * documented ones. */
START_TEST(test_limits_defaults)
{
  iiop_limits l;
  iiop_limits_default(&l);
  ck_assert_uint_eq(l.max_message, 64u << 20);
  ck_assert_uint_eq(l.max_string, 64u << 20);
  ck_assert_uint_eq(l.max_sequence, 16u << 20);
  ck_assert_uint_eq(l.max_depth, 64);
  ck_assert_uint_eq(l.max_values, 16u << 20);
  ck_assert_uint_eq(l.max_indirections, 16u << 20);
  ck_assert_uint_eq(l.max_fragmented, 64u << 20);
  ck_assert_uint_eq(l.max_connections, 1024);
  ck_assert_uint_eq(l.max_in_flight, 256u << 20);
  ck_assert_int_eq(l.header_timeout_ms, 10000);
  ck_assert_int_eq(l.message_timeout_ms, 60000);
  ck_assert_int_eq(l.idle_timeout_ms, 300000);
  ck_assert_int_eq(l.handshake_timeout_ms, 5000);
  ck_assert_int_eq(l.call_timeout_ms, 30000);
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  check_limits_eq(&so.limits, &l);
  ck_assert_uint_eq(so.max_message, l.max_message);
  ck_assert_uint_eq(so.max_connections, l.max_connections);
  ck_assert_int_eq(so.handshake_timeout_ms, l.handshake_timeout_ms);
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  check_limits_eq(&co.limits, &l);
  ck_assert_int_eq(co.timeout_ms, l.call_timeout_ms);
  /* max_message through the limits: a larger request gets MessageError. */
  iiop_limits small = l;
  small.max_message = 1024;
  srv_opts_x x = { .limits = &small };
  iiop_server *s = start_server_x(&x);
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t h[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, GIOP_REQUEST, 0, 0, 4, 0 }; /* 1024 octets */
  raw_send(fd, h, 12);
  expect_bare(fd, GIOP_MESSAGE_ERROR);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  ck_assert_uint_eq(st.limit_message, 1);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_shutdown_aborts_tls_handshake)
{
  if (!have_openssl) {
    fprintf(stderr, "check_orb: openssl command missing: handshake abort test skipped\n");
    return;
  }
  srv_opts_x x = { .tls = 1, .handshake_ms = 20000 };
  iiop_server *s = start_server_x(&x);
  int fd = nu_connect("127.0.0.1", iiop_server_tls_port(s), 5, NU_NODELAY); /* stalls in the handshake */
  tu_sleep_ms(100);
  int64_t t0 = tu_now_ms();
  iiop_server_free(s); /* must not wait for the 20 s handshake timeout */
  ck_assert_int_lt(tu_now_ms() - t0, 3000);
  ck_assert(raw_closed_within(fd, 1000));
  close(fd);
}
END_TEST

/* ---------------------------------------------------------------- tests: the wire, raw */

START_TEST(test_raw_response_flags_and_cancel)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_arena *a = cdr_arena_get();
  uint8_t req[256], buf[64];
  int32_t v = 31;
  giop_message m;

  /* Oneway (flags 0), even one that raises, and a CancelRequest for a
   * request that is not running: no reply to any of them. */
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_NONE, "Echo",
                           "raiseUser", NULL, nu_arg_long, &v);
  raw_send(fd, req, n);
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 2, GIOP_RESPONSE_NONE, "Nope", "ping",
                    NULL, nu_arg_long, &v);
  raw_send(fd, req, n);
  cdr_opts o;
  cdr_opts_default(&o);
  cdr_out w;
  cdr_out_init_buffer(&w, &o, buf, sizeof buf);
  giop_begin_cancel_request(&w, 999);
  giop_end(&w);
  raw_send(fd, buf, cdr_out_size(&w));
  cdr_out_close(&w);

  /* SYNC_WITH_SERVER: an empty NO_EXCEPTION reply, the results dropped. */
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 3, GIOP_RESPONSE_SYNC_WITH_SERVER, "Echo",
                    "ping", NULL, nu_arg_long, &v);
  uint8_t *msg = raw_call(fd, req, n, 3, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_uint_eq(cdr_in_remaining(&m.body), 0);
  cdr_in_close(&m.body);
  free(msg);

  /* The next reply on the connection answers the next two-way request. */
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 4, GIOP_RESPONSE_EXPECTED, "Echo", "ping",
                    NULL, nu_arg_long, &v);
  msg = raw_call(fd, req, n, 4, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(cdr_get_long(&m.body), 31);
  cdr_in_close(&m.body);
  free(msg);
  close(fd);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_raw_locate_request)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_arena *a = cdr_arena_get();
  static const struct { const char *key; uint8_t minor; uint32_t want; } cases[] = {
    { "Echo", 2, GIOP_OBJECT_HERE }, { "Nope", 2, GIOP_UNKNOWN_OBJECT },
    { "Echo", 0, GIOP_OBJECT_HERE }, { "Nope", 1, GIOP_UNKNOWN_OBJECT },
  };
  for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint8_t buf[64];
    cdr_opts o;
    cdr_opts_default(&o);
    o.giop_minor = cases[k].minor;
    cdr_out w;
    cdr_out_init_buffer(&w, &o, buf, sizeof buf);
    giop_locate_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 100 + k;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = (const uint8_t *)cases[k].key;
    h.target.key_len = 4;
    ck_assert_int_eq(giop_begin_locate_request(&w, &h), CDR_OK);
    ck_assert_int_eq(giop_end(&w), CDR_OK);
    raw_send(fd, buf, cdr_out_size(&w));
    cdr_out_close(&w);
    size_t len;
    uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
    ck_assert_ptr_nonnull(msg);
    giop_message m;
    parse(&m, msg, len, a, 0);
    ck_assert_uint_eq(m.hdr.type, GIOP_LOCATE_REPLY);
    ck_assert_uint_eq(m.hdr.minor, cases[k].minor);
    ck_assert_uint_eq(m.u.locate_reply.request_id, 100 + k);
    ck_assert_uint_eq(m.u.locate_reply.locate_status, cases[k].want);
    cdr_in_close(&m.body);
    free(msg);
  }
  close(fd);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_raw_versions_and_byte_orders)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_arena *a = cdr_arena_get();
  uint32_t id = 1;
  for (uint8_t minor = 0; minor <= 2; minor++) {
    for (int order = 0; order <= 1; order++) {
      uint8_t req[256];
      int32_t v = 0x01020304 + minor * 16 + order;
      size_t n = build_request(req, sizeof req, minor, order, id, GIOP_RESPONSE_EXPECTED, "Echo",
                               "ping", NULL, nu_arg_long, &v);
      giop_message m;
      uint8_t *msg = raw_call(fd, req, n, id, GIOP_NO_EXCEPTION, &m, a, 0);
      /* The reply: the request's GIOP version, the server's byte order. */
      ck_assert_uint_eq(m.hdr.minor, minor);
      ck_assert_uint_eq(m.hdr.flags & GIOP_FLAG_LITTLE_ENDIAN, CDR_HOST_ORDER);
      ck_assert_int_eq(cdr_get_long(&m.body), v);
      ck_assert_int_eq(cdr_in_status(&m.body), CDR_OK);
      cdr_in_close(&m.body);
      free(msg);
      id++;
    }
  }
  /* A user exception in GIOP 1.0 (reply_status sits after the contexts). */
  uint8_t req[256];
  int32_t v = 5;
  size_t n = build_request(req, sizeof req, 0, CDR_BIG_ENDIAN, id, GIOP_RESPONSE_EXPECTED, "Echo",
                           "raiseUser", NULL, nu_arg_long, &v);
  giop_message m;
  uint8_t *msg = raw_call(fd, req, n, id, GIOP_USER_EXCEPTION, &m, a, 0);
  const char *rid;
  uint32_t rl;
  ck_assert_int_eq(cdr_get_string_view(&m.body, &rid, &rl), CDR_OK);
  ck_assert_str_eq(rid, "IDL:Bench/Oops:1.0");
  ck_assert_int_eq(cdr_get_long(&m.body), 5);
  cdr_in_close(&m.body);
  free(msg);
  close(fd);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_raw_reply_fragments)
{
  srv_opts_x x = { .fragment_size = 256 };
  iiop_server *s = start_server_x(&x);
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  char str[2001];
  for (int k = 0; k < 2000; k++)
    str[k] = (char)('A' + k % 26);
  str[2000] = 0;
  uint8_t req[4096];
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 42, GIOP_RESPONSE_EXPECTED, "Echo",
                           "echoString", NULL, nu_arg_string, str);
  raw_send(fd, req, n);
  giop_reasm *ra = giop_reasm_new(NULL);
  ck_assert_ptr_nonnull(ra);
  int frags = 0;
  uint8_t *whole = NULL;
  size_t wl = 0;
  while (!whole) {
    size_t len;
    uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_le(len, 256);
    if (msg[6] & GIOP_FLAG_MORE_FRAGMENTS)
      ck_assert_uint_eq(len % 8, 0);
    frags++;
    ck_assert_int_eq(giop_reasm_feed(ra, msg, len), CDR_OK);
    free(msg);
    giop_reasm_next(ra, &whole, &wl);
  }
  ck_assert_int_gt(frags, 8);
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  parse(&m, whole, wl, a, 0);
  ck_assert_uint_eq(m.hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(m.u.reply.request_id, 42);
  ck_assert_uint_eq(m.u.reply.reply_status, GIOP_NO_EXCEPTION);
  const char *got;
  uint32_t gl;
  ck_assert_int_eq(cdr_get_string_view(&m.body, &got, &gl), CDR_OK);
  ck_assert_uint_eq(gl, 2000);
  ck_assert(memcmp(got, str, 2000) == 0);
  cdr_in_close(&m.body);
  giop_reasm_release(ra, whole);
  giop_reasm_free(ra);
  cdr_arena_put(a);
  close(fd);
  iiop_server_free(s);
}
END_TEST

START_TEST(test_raw_message_error_and_close)
{
  int holder;
  iiop_server *s = start_server_mode(_i, &holder); /* _i 1: on pooled connections */
  cdr_arena *a = cdr_arena_get();

  /* Garbage: MessageError, then the server closes. */
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  static const uint8_t junk[12] = { 'G', 'I', 'O', 'X', 1, 2, 1, 0, 0, 0, 0, 0 };
  raw_send(fd, junk, sizeof junk);
  size_t len;
  uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  giop_message m;
  parse(&m, msg, len, a, 0);
  ck_assert_uint_eq(m.hdr.type, GIOP_MESSAGE_ERROR);
  cdr_in_close(&m.body);
  free(msg);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);

  /* A Reply sent to a server: MessageError too. */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t buf[64];
  cdr_opts o;
  cdr_opts_default(&o);
  cdr_out w;
  cdr_out_init_buffer(&w, &o, buf, sizeof buf);
  giop_reply_header rh = { 1, GIOP_NO_EXCEPTION, { 0, NULL } };
  giop_begin_reply(&w, &rh);
  giop_end(&w);
  raw_send(fd, buf, cdr_out_size(&w));
  cdr_out_close(&w);
  msg = nu_recv_msg(fd, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  ck_assert_uint_eq(msg[7], GIOP_MESSAGE_ERROR);
  free(msg);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);

  /* A malformed Request header (an absurd service context count). */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  int32_t v = 1;
  uint8_t req[256];
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 3, GIOP_RESPONSE_EXPECTED, "Echo",
                           "ping", NULL, nu_arg_long, &v);
  /* 1.2: id(12) flags(16) reserved key-disposition(20) key len(24) "Echo"(28)
   * op len(32) "ping\0"(36) pad, context count at 44 */
  uint32_t bogus = 0x10000000;
  memcpy(req + 44, &bogus, 4);
  raw_send(fd, req, n);
  msg = nu_recv_msg(fd, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  ck_assert_uint_eq(msg[7], GIOP_MESSAGE_ERROR);
  free(msg);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);

  /* After a GIOP 1.2 call, a header the reassembler refuses: MessageError
   * in that header's version where it is one we speak (1.0 Fragment or an
   * unknown 1.0 type: 1.0; a 1.1 LocateRequest flagged more fragments,
   * which 1.1 cannot fragment: 1.1), 1.2 for a later version, and the last
   * good message's (1.2) where the octets give none. */
  static const struct {
    uint8_t h[12];
    uint8_t minor;
  } hdrs[] = {
    { { 'G', 'I', 'O', 'P', 1, 0, 1, GIOP_FRAGMENT, 0, 0, 0, 0 }, 0 },
    { { 'G', 'I', 'O', 'P', 1, 0, 1, 9, 0, 0, 0, 0 }, 0 },
    { { 'G', 'I', 'O', 'P', 1, 0, 2, GIOP_REQUEST, 0, 0, 0, 0 }, 0 },
    { { 'G', 'I', 'O', 'P', 1, 1, 3, GIOP_LOCATE_REQUEST, 8, 0, 0, 0 }, 1 },
    { { 'G', 'I', 'O', 'P', 1, 1, 1, GIOP_FRAGMENT, 0, 0, 0, 0 }, 1 },
    { { 'G', 'I', 'O', 'P', 1, 3, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 2 },
    { { 'G', 'I', 'O', 'P', 2, 0, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 2 },
    { { 'G', 'I', 'O', 'P', 0, 9, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 2 },
    { { 'G', 'I', 'O', 'X', 1, 0, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 2 },
  };
  for (size_t k = 0; k < sizeof hdrs / sizeof hdrs[0]; k++) {
    fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
    v = 5;
    n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 7, GIOP_RESPONSE_EXPECTED, "Echo",
                      "ping", NULL, nu_arg_long, &v);
    raw_send(fd, req, n);
    msg = nu_recv_msg(fd, 1u << 24, &len);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(msg[5], 2);
    ck_assert_uint_eq(msg[7], GIOP_REPLY);
    free(msg);
    raw_send(fd, hdrs[k].h, 12);
    msg = nu_recv_msg(fd, 1u << 24, &len);
    ck_assert_msg(msg != NULL, "header %zu: no answer", k);
    ck_assert_uint_eq(len, 12);
    ck_assert_msg(msg[7] == GIOP_MESSAGE_ERROR && msg[4] == 1 && msg[5] == hdrs[k].minor,
                  "header %zu: type %u, GIOP %u.%u, want MessageError 1.%u", k, msg[7], msg[4],
                  msg[5], hdrs[k].minor);
    free(msg);
    ck_assert(raw_closed_within(fd, 3000));
    close(fd);
  }

  /* CloseConnection from the client: the server closes its side. */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_out_init_buffer(&w, &o, buf, sizeof buf);
  giop_begin_close_connection(&w);
  giop_end(&w);
  raw_send(fd, buf, cdr_out_size(&w));
  cdr_out_close(&w);
  ck_assert(raw_closed_within(fd, 3000));
  close(fd);

  /* The server is still fine. */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  v = 8;
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 4, GIOP_RESPONSE_EXPECTED, "Echo",
                    "ping", NULL, nu_arg_long, &v);
  msg = raw_call(fd, req, n, 4, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(cdr_get_long(&m.body), 8);
  cdr_in_close(&m.body);
  free(msg);
  close(fd);
  if (holder >= 0)
    close(holder);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

/* docs/hostile-input.md C18 (g): two Requests without a CodeSets service context, the
 * second carrying a wstring.  Both decode with the defaults (ISO-8859-1,
 * no wchar code set); the wstring gets BAD_PARAM with OMG minor 23 (wchar
 * transmission code set not known), completed NO, and the connection goes
 * on. */
START_TEST(test_c18g_no_codesets_context)
{
  iiop_server *s = start_server();
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_arena *a = cdr_arena_get();
  uint8_t req[256];
  giop_message m;

  const char *latin = "caf\xe9";
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo",
                           "echoString", NULL, nu_arg_string, latin);
  uint8_t *msg = raw_call(fd, req, n, 1, GIOP_NO_EXCEPTION, &m, a, 0);
  const char *got;
  uint32_t gl;
  ck_assert_int_eq(cdr_get_string_view(&m.body, &got, &gl), CDR_OK);
  ck_assert_str_eq(got, latin); /* ISO-8859-1 octets, unconverted */
  cdr_in_close(&m.body);
  free(msg);

  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 2, GIOP_RESPONSE_EXPECTED, "Echo",
                    "echoWString", NULL, arg_wstring_ab, NULL);
  msg = raw_call(fd, req, n, 2, GIOP_SYSTEM_EXCEPTION, &m, a, 0);
  giop_system_exception e;
  ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
  ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/BAD_PARAM:1.0");
  ck_assert_uint_eq(e.minor, OMG(23));
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
  cdr_in_close(&m.body);
  free(msg);

  /* A later CodeSets context does not change what the first Request fixed. */
  uint8_t csd[12];
  giop_codeset_context cs = { CDR_CS_ISO8859_1, CDR_CS_UTF16 };
  giop_codeset_context_encode(&cs, csd);
  giop_service_context ctx = { GIOP_SC_CODE_SETS, 12, csd };
  giop_sc_list l = { 1, &ctx };
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 3, GIOP_RESPONSE_EXPECTED, "Echo",
                    "echoWString", &l, arg_wstring_ab, NULL);
  msg = raw_call(fd, req, n, 3, GIOP_SYSTEM_EXCEPTION, &m, a, 0);
  cdr_in_close(&m.body);
  free(msg);

  int32_t v = 12;
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 4, GIOP_RESPONSE_EXPECTED, "Echo", "ping",
                    NULL, nu_arg_long, &v);
  msg = raw_call(fd, req, n, 4, GIOP_NO_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(cdr_get_long(&m.body), 12);
  cdr_in_close(&m.body);
  free(msg);
  close(fd);

  /* With the context on the first Request, the same wstring echoes. */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 5, GIOP_RESPONSE_EXPECTED, "Echo",
                    "echoWString", &l, arg_wstring_ab, NULL);
  msg = raw_call(fd, req, n, 5, GIOP_NO_EXCEPTION, &m, a, CDR_CS_UTF16);
  uint32_t wl;
  cdr_wchar *w = cdr_get_wstring(&m.body, &wl);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_eq(wl, 2);
  ck_assert_uint_eq(w[0], 'A');
  ck_assert_uint_eq(w[1], 'B');
  cdr_in_close(&m.body);
  free(msg);
  close(fd);

  /* A code set the server cannot use: CODESET_INCOMPATIBLE. */
  fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  giop_codeset_context bad = { 0x00010020 /* ISO 646 */, CDR_CS_UTF16 };
  giop_codeset_context_encode(&bad, csd);
  n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 6, GIOP_RESPONSE_EXPECTED, "Echo", "ping",
                    &l, nu_arg_long, &v);
  msg = raw_call(fd, req, n, 6, GIOP_SYSTEM_EXCEPTION, &m, a, 0);
  ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
  ck_assert_str_eq(e.repo_id, "IDL:omg.org/CORBA/CODESET_INCOMPATIBLE:1.0");
  cdr_in_close(&m.body);
  free(msg);
  close(fd);
  cdr_arena_put(a);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- tests: allocation */

START_TEST(test_server_steady_state_allocates_nothing)
{
  /* Count every libcdr/libiiop allocation while a raw client (which
   * allocates nothing through the hook) calls ping and echoString. */
  static cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  cdr_mem_set_global(&mc.alloc);
  /* _i 1: a pooled connection, one worker (a worker's per-thread pools
   * warm up on its first calls; with one, the warm-up below covers it). */
  int holder;
  iiop_server *s = start_server_pool(_i, 1, &holder);
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  uint8_t req[256], rep[256];
  uint64_t before = 0;
  for (int i = 0; i < 300; i++) {
    if (i == 100)
      before = __atomic_load_n(&mc.mallocs, __ATOMIC_SEQ_CST);
    int32_t v = i;
    size_t n = (i & 1) ? build_request(req, sizeof req, 2, CDR_HOST_ORDER, (uint32_t)i,
                                       GIOP_RESPONSE_EXPECTED, "Echo", "ping", NULL, nu_arg_long, &v)
                       : build_request(req, sizeof req, 2, CDR_HOST_ORDER, (uint32_t)i,
                                       GIOP_RESPONSE_EXPECTED, "Echo", "echoString", NULL,
                                       nu_arg_string, "steady");
    raw_send(fd, req, n);
    uint8_t h[12];
    ck_assert(nu_read_full(fd, h, 12));
    giop_header gh;
    ck_assert_int_eq(giop_header_parse(h, 12, &gh), CDR_OK);
    ck_assert_uint_le(gh.size, sizeof rep);
    ck_assert(nu_read_full(fd, rep, gh.size));
    ck_assert_uint_eq(gh.type, GIOP_REPLY);
  }
  uint64_t after = __atomic_load_n(&mc.mallocs, __ATOMIC_SEQ_CST);
  ck_assert_uint_gt(before, 0); /* the hook did see the server's allocations */
  close(fd);
  if (holder >= 0)
    close(holder);
  iiop_server_free(s);
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
  ck_assert_msg(after == before, "%llu allocations in 200 steady-state calls",
                (unsigned long long)(after - before));
}
END_TEST

/* The allocators of iiop_client_opts and iiop_server_opts: what the client
 * and the server allocate themselves goes through them (the global
 * allocator serves libcdr's per-thread arenas), and all of it is given back
 * through them. */
START_TEST(test_option_allocators)
{
  static cdr_mem_counter sa, ca;
  cdr_mem_counter_init(&sa, NULL);
  cdr_mem_counter_init(&ca, NULL);
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.alloc = &sa.alloc;
  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.timeout_ms = 10000;
  co.alloc = &ca.alloc;

  /* Their very first allocation comes from them. */
  sa.fail_at = 1;
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(&so, &s), CDR_E_NOMEM);
  ca.fail_at = 1;
  ck_assert_ptr_null(iiop_client_new(&co));
  cdr_mem_counter_init(&sa, NULL);
  cdr_mem_counter_init(&ca, NULL);

  s = nu_serve(&so, "Echo", &echo_iface, NULL);
  uint64_t server_setup = __atomic_load_n(&sa.mallocs, __ATOMIC_SEQ_CST);
  ck_assert_uint_ge(server_setup, 3); /* the server, its host, the object table */
  iiop_client *c = iiop_client_new(&co);
  ck_assert_ptr_nonnull(c);
  iiop_ref *r = resolve_ior(c, s, "Echo");
  uint64_t client_setup = __atomic_load_n(&ca.mallocs, __ATOMIC_SEQ_CST);
  ck_assert_uint_ge(client_setup, 3); /* the client, the reference, its endpoint */
  for (int i = 0; i < 20; i++) {
    check_ping(r, i);
    nu_check_echo(r, "echoString", "through the option allocators", 29, 0);
  }
  /* The call, its stream buffer, the connection, its transport and
   * reassembler; the server's connection record, transport, reassembler
   * and reply stream. */
  ck_assert_uint_ge(__atomic_load_n(&ca.mallocs, __ATOMIC_SEQ_CST), client_setup + 4);
  ck_assert_uint_ge(__atomic_load_n(&sa.mallocs, __ATOMIC_SEQ_CST), server_setup + 4);
  iiop_ref_free(r);
  iiop_client_free(c);
  iiop_server_free(s);
  ck_assert_int_eq(__atomic_load_n(&ca.live, __ATOMIC_SEQ_CST), 0);
  ck_assert_int_eq(__atomic_load_n(&sa.live, __ATOMIC_SEQ_CST), 0);
}
END_TEST

/* ---------------------------------------------------------------- tests: worker pool */

static int count_threads(void)
{
  DIR *d = opendir("/proc/self/task");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.')
      n++;
  closedir(d);
  return n;
}

/* echoString without assertions (for threads other than the test's). */
static int echo_ok(iiop_ref *r, const char *str)
{
  iiop_call *call;
  cdr_out *args;
  if (iiop_call_begin(r, "echoString", 0, &call, &args) != CDR_OK)
    return 0;
  cdr_put_string(args, str);
  cdr_in *res = NULL;
  int ok = 0;
  if (iiop_call_invoke(call, &res) == CDR_OK) {
    const char *got;
    uint32_t gl;
    ok = cdr_get_string_view(res, &got, &gl) == CDR_OK && gl == strlen(str)
         && memcmp(got, str, gl) == 0;
  }
  iiop_call_end(call);
  return ok;
}

typedef struct pool_caller {
  iiop_ref *r;
  int id, calls;
  int errors;
} pool_caller;

static void *pool_caller_main(void *arg)
{
  pool_caller *k = arg;
  for (int i = 0; i < k->calls; i++) {
    int32_t x = k->id * 100000 + i, got = -1;
    if (call_ping(k->r, x, &got) != CDR_OK || got != x)
      k->errors++;
    if (i % 8 == 0) {
      char str[48];
      snprintf(str, sizeof str, "caller %d call %d", k->id, i);
      if (!echo_ok(k->r, str))
        k->errors++;
    }
  }
  return NULL;
}

/* 20 clients (20 connections) calling at once, with pool_threshold _i:
 * 0, a thread per connection; 1 and 2, the first one or two connections
 * get threads and the rest go to 3 pool workers -- the server's thread
 * count says which. */
START_TEST(test_pool_many_connections)
{
  enum { NC = 20, WORKERS = 3 };
  const uint32_t threshold = (uint32_t)_i;
  int base = count_threads();
  srv_opts_x x = { .pool_threshold = threshold, .pool_threads = WORKERS };
  iiop_server *s = start_server_x(&x);
  iiop_client *c[NC];
  iiop_ref *r[NC];
  for (int k = 0; k < NC; k++) {
    c[k] = new_client(NULL);
    r[k] = resolve_ior(c[k], s, "Echo");
    check_ping(r[k], k); /* connect, in order: the first THRESHOLD get threads */
  }
  int server_threads = count_threads() - base;
  if (threshold == 0)
    ck_assert_int_eq(server_threads, 1 + NC); /* accept + one per connection */
  else
    ck_assert_int_eq(server_threads, 1 + (int)threshold + WORKERS);

  pthread_t t[NC];
  pool_caller k[NC];
  for (int i = 0; i < NC; i++) {
    k[i] = (pool_caller){ r[i], i + 1, 150, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, pool_caller_main, &k[i]), 0);
  }
  for (int i = 0; i < NC; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].errors, 0);
  }
  /* Half the clients go away (their connections end, pooled ones on a
   * worker); the rest still work. */
  for (int i = 0; i < NC; i += 2) {
    iiop_ref_free(r[i]);
    iiop_client_free(c[i]);
  }
  for (int i = 1; i < NC; i += 2)
    check_ping(r[i], -i);
  /* A new connection after connections ended: served. */
  iiop_client *c2 = new_client(NULL);
  iiop_ref *r2 = resolve_ior(c2, s, "Echo");
  check_ping(r2, 77);
  nu_check_echo(r2, "echoString", "late", 4, 0);

  /* The clients go away (pooled connections end on a worker when it reads
   * the end of the stream); shutdown finds little to do, and joins the
   * workers.  (Shutdown with connections whose clients never close:
   * test_pool_shutdown_with_calls_pending.) */
  iiop_ref_free(r2);
  iiop_client_free(c2);
  for (int i = 1; i < NC; i += 2) {
    iiop_ref_free(r[i]);
    iiop_client_free(c[i]);
  }
  int64_t t0 = tu_now_ms();
  iiop_server_free(s);
  ck_assert_int_lt(tu_now_ms() - t0, 1500);
  ck_assert_int_eq(count_threads(), base);
}
END_TEST

/* Send a Request for slow() on FD without reading the reply. */
static void raw_send_slow(int fd, uint32_t id)
{
  uint8_t req[256];
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, id, GIOP_RESPONSE_EXPECTED, "Echo",
                           "slow", NULL, NULL, NULL);
  raw_send(fd, req, n);
}

/* Shutdown while pooled connections are busy, have requests queued, or are
 * idle: every connection gets CloseConnection (after the reply of the
 * request in progress), queued requests are not run, connections whose
 * clients never close are forced after the linger time, the workers are
 * joined, nothing hangs. */
START_TEST(test_pool_shutdown_with_calls_pending)
{
  gate_reset();
  int base = count_threads();
  srv_opts_x x = { .pool_threshold = 1, .pool_threads = 2 };
  iiop_server *s = start_server_x(&x);
  uint16_t port = iiop_server_port(s);
  iiop_client *ca = new_client(NULL), *cb = new_client_one();
  iiop_ref *ra = resolve_ior(ca, s, "Echo"), *rb = resolve_ior(cb, s, "Echo");
  check_ping(ra, 1); /* the one connection with a thread */
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  uint8_t req[256];
  int32_t v = 3;
  size_t n = build_request(req, sizeof req, 2, CDR_HOST_ORDER, 1, GIOP_RESPONSE_EXPECTED, "Echo",
                           "ping", NULL, nu_arg_long, &v);
  int idle = nu_connect("127.0.0.1", port, 5, NU_NODELAY); /* pooled, idle, never closes */
  uint8_t *msg = raw_call(idle, req, n, 1, GIOP_NO_EXCEPTION, &m, a, 0);
  cdr_in_close(&m.body);
  free(msg);
  int busy = nu_connect("127.0.0.1", port, 5, NU_NODELAY); /* pooled, slow() in progress, never closes */
  msg = raw_call(busy, req, n, 1, GIOP_NO_EXCEPTION, &m, a, 0);
  cdr_in_close(&m.body);
  free(msg);
  check_ping(rb, 2); /* pooled: slow() in progress and three calls queued */
  iiop_ref_free(ra);
  iiop_client_free(ca); /* the thread slot is free again; the others stay pooled */

  raw_send_slow(busy, 2);
  pending slow = { rb, "slow", 1, 0, NULL, 0 }, q[3];
  pthread_t ts, tq[3], tsd;
  ck_assert_int_eq(pthread_create(&ts, NULL, pending_main, &slow), 0);
  gate_wait_entered_n(2); /* both workers are in slow() */
  for (int k = 0; k < 3; k++) {
    q[k] = (pending){ rb, "ping", 1, 0, NULL, 0 };
    ck_assert_int_eq(pthread_create(&tq[k], NULL, pending_main, &q[k]), 0);
  }
  tu_sleep_ms(100); /* let the queued requests reach the server */
  int served = __atomic_load_n(&pings_served, __ATOMIC_SEQ_CST);
  int64_t t0 = tu_now_ms();
  ck_assert_int_eq(pthread_create(&tsd, NULL, shutdown_main, s), 0);

  /* The idle pooled connection gets CloseConnection at once, from the
   * shutdown thread (both workers are busy). */
  size_t len;
  msg = nu_recv_msg(idle, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  ck_assert_uint_eq(msg[7], GIOP_CLOSE_CONNECTION);
  free(msg);
  ck_assert_int_lt(tu_now_ms() - t0, 1000);

  gate_release();
  /* The busy raw connection: the reply of slow(), then CloseConnection. */
  msg = nu_recv_msg(busy, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  parse(&m, msg, len, a, 0);
  ck_assert_uint_eq(m.hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(m.u.reply.request_id, 2);
  ck_assert_int_eq(cdr_get_long(&m.body), 7);
  cdr_in_close(&m.body);
  free(msg);
  msg = nu_recv_msg(busy, 1u << 24, &len);
  ck_assert_ptr_nonnull(msg);
  ck_assert_uint_eq(msg[7], GIOP_CLOSE_CONNECTION);
  free(msg);

  pthread_join(ts, NULL);
  ck_assert_int_eq(slow.rc, CDR_OK);
  ck_assert_int_eq(slow.value, 7);
  for (int k = 0; k < 3; k++) {
    pthread_join(tq[k], NULL);
    ck_assert_msg(q[k].rc == CDR_E_CLOSED || q[k].rc == CDR_E_IO, "queued call: %d", q[k].rc);
    ck_assert_ptr_nonnull(q[k].ex);
    ck_assert_str_eq(q[k].ex, "TRANSIENT");
    ck_assert_uint_eq(q[k].completed, GIOP_COMPLETED_NO);
  }
  ck_assert_int_eq(__atomic_load_n(&pings_served, __ATOMIC_SEQ_CST), served);
  /* The raw clients never close: shutdown forces them after lingering. */
  pthread_join(tsd, NULL);
  ck_assert_int_lt(tu_now_ms() - t0, 5000);
  ck_assert(raw_closed_within(idle, 1000));
  ck_assert(raw_closed_within(busy, 1000));
  ck_assert_int_eq(count_threads(), base); /* workers joined */
  close(idle);
  close(busy);
  cdr_arena_put(a);
  iiop_ref_free(rb);
  iiop_client_free(cb);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- tests: generated keys */

/* A transient object that can deactivate itself. */
typedef struct session {
  iiop_server *s;
  uint8_t key[IIOP_GENERATED_KEY_LEN];
  size_t len;
} session;

static int op_session_destroy(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  session *se = sv;
  cdr_put_long(o, iiop_server_deactivate(se->s, se->key, se->len)); /* does not wait */
  return CDR_OK;
}

static const iiop_operation session_ops[] = {
  { "ping", op_ping },
  { "slow", op_slow },
  { "destroy", op_session_destroy },
};
static const iiop_interface session_iface = { "IDL:Test/Session:1.0", session_ops, 3, NULL };

static iiop_ref *resolve_key(iiop_client *c, iiop_server *s, const uint8_t *key, size_t len)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior = NULL;
  ck_assert_int_eq(iiop_server_ior(s, key, len, &a, &ior), CDR_OK);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, ior, &r), CDR_OK);
  cdr_arena_free(&a);
  return r;
}

static void check_not_exist(iiop_ref *r)
{
  giop_system_exception e;
  ck_assert_int_eq(call_long(r, "ping", 1, &e, NULL, 0, NULL), IIOP_R_SYSTEM_EXCEPTION);
  ck_assert_str_eq(e.repo_id, "OBJECT_NOT_EXIST");
  ck_assert_uint_eq(e.minor, OMG(1));
  ck_assert_uint_eq(e.completed, GIOP_COMPLETED_NO);
}

typedef struct deact {
  iiop_server *s;
  const uint8_t *key;
  size_t len;
  int rc;
  int done; /* atomic */
} deact;

static void *deact_main(void *arg)
{
  deact *d = arg;
  d->rc = iiop_server_deactivate(d->s, d->key, d->len);
  __atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

/* _i 0: a thread per connection; 1: pooled connections. */
START_TEST(test_generated_keys)
{
  gate_reset();
  int holder;
  iiop_server *s = start_server_mode(_i, &holder);
  iiop_client *c = new_client(NULL);

  session se[3];
  for (int k = 0; k < 3; k++) {
    se[k].s = s;
    ck_assert_int_eq(iiop_server_activate_generated(s, &session_iface, &se[k], se[k].key,
                                                    &se[k].len), CDR_OK);
    ck_assert_uint_eq(se[k].len, IIOP_GENERATED_KEY_LEN);
    ck_assert(memcmp(se[k].key, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN) == 0);
    for (int j = 0; j < k; j++)
      ck_assert(memcmp(se[k].key, se[j].key, se[k].len) != 0);
  }
  /* Reserved for generated keys: no persistent key can start so. */
  ck_assert_int_eq(iiop_server_activate(s, se[0].key, se[0].len, &echo_iface, NULL),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_server_activate(s, IIOP_GENERATED_KEY_PREFIX "x", 5, &echo_iface, NULL),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_server_activate_generated(s, &session_iface, NULL, NULL, NULL),
                   CDR_E_INVALID);

  iiop_ref *r[3];
  for (int k = 0; k < 3; k++) {
    r[k] = resolve_key(c, s, se[k].key, se[k].len);
    check_ping(r[k], 10 + k);
  }
  bool yes = false;
  ck_assert_int_eq(call_bool(r[0], "_is_a", "IDL:Test/Session:1.0", &yes), CDR_OK);
  ck_assert(yes);

  /* Deactivated from outside: OBJECT_NOT_EXIST; the others live on. */
  ck_assert_int_eq(iiop_server_deactivate(s, se[0].key, se[0].len), CDR_OK);
  check_not_exist(r[0]);
  ck_assert_int_eq(iiop_server_deactivate(s, se[0].key, se[0].len), CDR_E_INVALID);
  check_ping(r[1], 11);

  /* Deactivated from its own operation (no waiting for itself). */
  giop_system_exception e;
  ck_assert_int_eq(call_long(r[1], "destroy", 0, &e, NULL, 0, NULL), CDR_OK);
  check_not_exist(r[1]);

  /* Deactivation waits for a request in progress on the object. */
  pending slow = { r[2], "slow", 1, 0, NULL, 0 };
  pthread_t ts, td;
  ck_assert_int_eq(pthread_create(&ts, NULL, pending_main, &slow), 0);
  gate_wait_entered();
  deact d = { s, se[2].key, se[2].len, -1, 0 };
  ck_assert_int_eq(pthread_create(&td, NULL, deact_main, &d), 0);
  tu_sleep_ms(150);
  ck_assert_int_eq(__atomic_load_n(&d.done, __ATOMIC_SEQ_CST), 0);
  iiop_client *c2 = new_client(NULL); /* another connection: c's waits behind slow() */
  iiop_ref *r2 = resolve_key(c2, s, se[2].key, se[2].len);
  check_not_exist(r2); /* already gone for new requests */
  iiop_ref_free(r2);
  iiop_client_free(c2);
  gate_release();
  pthread_join(ts, NULL);
  pthread_join(td, NULL);
  ck_assert_int_eq(slow.rc, CDR_OK);
  ck_assert_int_eq(slow.value, 7);
  ck_assert_int_eq(d.rc, CDR_OK);

  /* A persistent key can be deactivated and activated again. */
  iiop_ref *echo = resolve_ior(c, s, "Echo");
  check_ping(echo, 5);
  ck_assert_int_eq(iiop_server_deactivate(s, "Echo", 4), CDR_OK);
  check_not_exist(echo);
  ck_assert_int_eq(iiop_server_activate(s, "Echo", 4, &echo_iface, NULL), CDR_OK);
  check_ping(echo, 6);

  /* LocateRequest agrees. */
  int fd = nu_connect("127.0.0.1", iiop_server_port(s), 5, NU_NODELAY);
  cdr_arena *a = cdr_arena_get();
  for (int k = 0; k < 2; k++) {
    uint8_t buf[96];
    cdr_opts o;
    cdr_opts_default(&o);
    cdr_out w;
    cdr_out_init_buffer(&w, &o, buf, sizeof buf);
    giop_locate_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 50 + (uint32_t)k;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = k == 0 ? se[0].key : (const uint8_t *)"Echo";
    h.target.key_len = k == 0 ? (uint32_t)se[0].len : 4;
    ck_assert_int_eq(giop_begin_locate_request(&w, &h), CDR_OK);
    ck_assert_int_eq(giop_end(&w), CDR_OK);
    raw_send(fd, buf, cdr_out_size(&w));
    cdr_out_close(&w);
    size_t len;
    uint8_t *msg = nu_recv_msg(fd, 1u << 24, &len);
    ck_assert_ptr_nonnull(msg);
    giop_message m;
    parse(&m, msg, len, a, 0);
    ck_assert_uint_eq(m.hdr.type, GIOP_LOCATE_REPLY);
    ck_assert_uint_eq(m.u.locate_reply.locate_status,
                      k == 0 ? GIOP_UNKNOWN_OBJECT : GIOP_OBJECT_HERE);
    cdr_in_close(&m.body);
    free(msg);
  }
  close(fd);
  cdr_arena_put(a);

  for (int k = 0; k < 3; k++)
    iiop_ref_free(r[k]);
  iiop_ref_free(echo);
  iiop_client_free(c);
  if (holder >= 0)
    close(holder);
  iiop_server_free(s);
}
END_TEST

typedef struct churn_caller {
  iiop_server *s;
  int id, stop; /* stop: atomic */
  int calls, errors;
} churn_caller;

static void *churn_caller_main(void *arg)
{
  churn_caller *k = arg;
  iiop_client *c = iiop_client_new(NULL);
  if (!c) {
    k->errors++;
    return NULL;
  }
  iiop_ref *r = NULL;
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Echo", (unsigned)iiop_server_port(k->s));
  if (iiop_client_resolve(c, url, &r) != CDR_OK) {
    k->errors++;
    iiop_client_free(c);
    return NULL;
  }
  for (int i = 0; !__atomic_load_n(&k->stop, __ATOMIC_SEQ_CST) || i < 20; i++) {
    int32_t x = k->id * 100000 + i, got = -1;
    if (call_ping(r, x, &got) != CDR_OK || got != x)
      k->errors++;
    k->calls++;
  }
  iiop_ref_free(r);
  iiop_client_free(c);
  return NULL;
}

/* Objects activated and deactivated in a loop while other connections
 * call all the time: the lock-free object table is replaced under the
 * readers' feet and the replaced tables and objects are freed while they
 * run (AddressSanitizer and ThreadSanitizer watch).  _i: pooled or not. */
START_TEST(test_generated_keys_churn)
{
  int holder;
  iiop_server *s = start_server_mode(_i, &holder);
  enum { NT = 3 };
  churn_caller k[NT];
  pthread_t t[NT];
  for (int i = 0; i < NT; i++) {
    k[i] = (churn_caller){ s, i + 1, 0, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[i], NULL, churn_caller_main, &k[i]), 0);
  }
  iiop_client *c = new_client(NULL);
  static session se[8];
  for (int round = 0; round < 40; round++) {
    for (int j = 0; j < 8; j++) {
      se[j].s = s;
      ck_assert_int_eq(iiop_server_activate_generated(s, &session_iface, &se[j], se[j].key,
                                                      &se[j].len), CDR_OK);
    }
    iiop_ref *r = resolve_key(c, s, se[round % 8].key, se[round % 8].len);
    check_ping(r, round);
    for (int j = 0; j < 8; j++)
      ck_assert_int_eq(iiop_server_deactivate(s, se[j].key, se[j].len), CDR_OK);
    check_not_exist(r);
    iiop_ref_free(r);
  }
  for (int i = 0; i < NT; i++)
    __atomic_store_n(&k[i].stop, 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < NT; i++) {
    pthread_join(t[i], NULL);
    ck_assert_int_eq(k[i].errors, 0);
    ck_assert_int_gt(k[i].calls, 0);
  }
  iiop_client_free(c);
  if (holder >= 0)
    close(holder);
  iiop_server_free(s);
}
END_TEST

/* ---------------------------------------------------------------- suite */

/* ---------------------------------------------------------------- transport writes */

typedef struct slow_reader {
  int fd;
  uint8_t *got;
  size_t want, n;
} slow_reader;

static void *slow_read_main(void *arg)
{
  slow_reader *r = arg;
  while (r->n < r->want) {
    struct timespec ts = { 0, 200000 };
    nanosleep(&ts, NULL);              /* the writer's socket fills meanwhile */
    ssize_t k = read(r->fd, r->got + r->n, r->want - r->n < 4096 ? r->want - r->n : 4096);
    if (k <= 0)
      break;
    r->n += (size_t)k;
  }
  return NULL;
}

/* A gather write far larger than the socket takes at once (a small send
 * buffer, a reader that sleeps between small reads): the first sendmsg
 * writes part, the rest goes out after EAGAIN from where it stopped, empty
 * entries anywhere included, every octet once and in order.  Both sizes of
 * list: within one batch (the single-call try first) and over several. */
START_TEST(test_tcp_writev_partial)
{
  for (int many = 0; many < 2; many++) {
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 4096;
    ck_assert_int_eq(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
    ck_assert_int_eq(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    iiop_transport *t = NULL;
    ck_assert_int_eq(iiop_tcp_wrap(sv[0], &t), CDR_OK);
    enum { N = 300000 };
    uint8_t *src = malloc(N);
    ck_assert_ptr_nonnull(src);
    for (size_t k = 0; k < N; k++)
      src[k] = (uint8_t)(k * 131 + (k >> 9));
    int nv = many ? 200 : 5;
    struct iovec v[200];
    size_t off = 0;
    for (int k = 0; k < nv; k++) {
      size_t len = k == nv - 1 ? N - off : k % 3 == 1 ? 0 : (N / (size_t)nv) + (size_t)k;
      if (off + len > N)
        len = N - off;
      v[k].iov_base = src + off;
      v[k].iov_len = len;
      off += len;
    }
    ck_assert_uint_eq(off, N);
    slow_reader r = { sv[1], malloc(N), N, 0 };
    ck_assert_ptr_nonnull(r.got);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, slow_read_main, &r), 0);
    ck_assert_int_eq(t->ops->writev(t, v, nv, 20000), CDR_OK);
    pthread_join(th, NULL);
    ck_assert_uint_eq(r.n, N);
    ck_assert_int_eq(memcmp(r.got, src, N), 0);
    free(r.got);
    free(src);
    t->ops->free(t);
    close(sv[1]);
  }
}
END_TEST

static Suite *orb_suite(void)
{
  Suite *s = suite_create("orb");
  TCase *tc = tcase_create("calls");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_ping_and_echo_string);
  tcase_add_test(tc, test_tcp_writev_partial);
  tcase_add_test(tc, test_large_string_fragmented);
  tcase_add_test(tc, test_gather_requests_and_replies);
  tcase_add_test(tc, test_port0_picks_free_ports);
  tcase_add_test(tc, test_ior_contents);
  tcase_add_test(tc, test_tls);
  tcase_add_test(tc, test_tls_connect_why);
  tcase_add_test(tc, test_tls_required);
  tcase_add_test(tc, test_tls_required_server);
  tcase_add_test(tc, test_tls_stalled_client);
  tcase_add_test(tc, test_concurrent_callers_one_connection);
  tcase_add_test(tc, test_exceptions);
  tcase_add_test(tc, test_is_a_and_non_existent);
  tcase_add_test(tc, test_oneway);
  tcase_add_test(tc, test_wstring_with_codesets);
  tcase_add_test(tc, test_ipv6);
  suite_add_tcase(s, tc);

  tc = tcase_create("shutdown");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_shutdown_with_calls_pending);
  tcase_add_test(tc, test_shutdown_idle_connection_gets_close);
  tcase_add_test(tc, test_server_closes_mid_reply);
  tcase_add_test(tc, test_max_connections);
  tcase_add_test(tc, test_max_connections_evicts_idle_longest);
  tcase_add_test(tc, test_max_connections_evicts_idle_with_close);
  tcase_add_test(tc, test_header_timeout);
  tcase_add_test(tc, test_header_timeout_pooled);
  tcase_add_test(tc, test_message_timeout);
  tcase_add_test(tc, test_idle_timeout);
  tcase_add_test(tc, test_ended_connection_releases_fd);
  tcase_add_test(tc, test_bad_magic_four_octets);
  tcase_add_test(tc, test_budget_no_resources);
  tcase_add_test(tc, test_client_stats_exact);
  tcase_add_test(tc, test_limits_defaults);
  tcase_add_test(tc, test_shutdown_aborts_tls_handshake);
  suite_add_tcase(s, tc);

  tc = tcase_create("pool");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_pool_many_connections, 0, 3);
  tcase_add_test(tc, test_pool_shutdown_with_calls_pending);
  suite_add_tcase(s, tc);

  tc = tcase_create("keys");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_generated_keys, 0, 2);
  tcase_add_loop_test(tc, test_generated_keys_churn, 0, 2);
  suite_add_tcase(s, tc);

  tc = tcase_create("wire");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_raw_locate_request);
  tcase_add_test(tc, test_raw_response_flags_and_cancel);
  tcase_add_test(tc, test_raw_versions_and_byte_orders);
  tcase_add_test(tc, test_raw_reply_fragments);
  tcase_add_loop_test(tc, test_raw_message_error_and_close, 0, 2);
  tcase_add_test(tc, test_c18g_no_codesets_context);
  tcase_add_loop_test(tc, test_server_steady_state_allocates_nothing, 0, 2);
  tcase_add_test(tc, test_option_allocators);
  suite_add_tcase(s, tc);
  return s;
}

static int orb_setup(void)
{
  signal(SIGPIPE, SIG_IGN); /* peers that hang up must not kill the run */
  certs_setup();            /* once, before Check forks the tests */
  return 0;
}

const tu_program tu_prog = { .suite = orb_suite, .setup = orb_setup, .teardown = certs_teardown };
