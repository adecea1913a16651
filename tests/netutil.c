/* netutil.c - raw TCP peers for the tests (netutil.h). */
#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- sockets */

int nu_try_connect(const char *host, uint16_t port)
{
  if (!host)
    host = "127.0.0.1";
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t sl;
  int v6 = strchr(host, ':') != NULL;
  if (v6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
      return -1;
    sl = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
      return -1;
    sl = sizeof *a;
  }
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int nu_connect(const char *host, uint16_t port, int timeout_s, unsigned flags)
{
  int fd = nu_try_connect(host, port);
  ck_assert_msg(fd >= 0, "connect to %s port %u: %s", host ? host : "127.0.0.1", (unsigned)port,
                strerror(errno));
  if (timeout_s > 0) {
    struct timeval tv = { timeout_s, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  if (flags & NU_NODELAY) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

uint16_t nu_local_port(int fd)
{
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &sl), 0);
  if (ss.ss_family == AF_INET6)
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
  return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* A loopback IPv4 socket bound to a free port, its address in *SA; RCVBUF
 * (> 0) set before bind(). */
static int bound(struct sockaddr_in *sa, int rcvbuf)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(fd, 0);
  if (rcvbuf > 0)
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(fd, (struct sockaddr *)sa, sizeof *sa), 0);
  socklen_t sl = sizeof *sa;
  ck_assert_int_eq(getsockname(fd, (struct sockaddr *)sa, &sl), 0);
  return fd;
}

int nu_listen(int backlog, uint16_t *port)
{
  struct sockaddr_in sa;
  int fd = bound(&sa, 0);
  *port = ntohs(sa.sin_port);
  if (backlog >= 0)
    ck_assert_int_eq(listen(fd, backlog), 0);
  return fd;
}

void nu_tcp_pair(int *a, int *b, int sndbuf, int rcvbuf, int rcv_on_listener)
{
  struct sockaddr_in sa;
  int l = bound(&sa, rcv_on_listener ? rcvbuf : 0);
  ck_assert_int_eq(listen(l, 1), 0);
  *a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ck_assert_int_ge(*a, 0);
  if (sndbuf > 0)
    ck_assert_int_eq(setsockopt(*a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf), 0);
  ck_assert_int_eq(connect(*a, (struct sockaddr *)&sa, sizeof sa), 0);
  *b = accept(l, NULL, NULL);
  ck_assert_int_ge(*b, 0);
  if (rcvbuf > 0 && !rcv_on_listener)
    ck_assert_int_eq(setsockopt(*b, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  close(l);
}

int nu_read_full(int fd, void *p, size_t n)
{
  uint8_t *b = p;
  while (n) {
    ssize_t r = recv(fd, b, n, 0);
    if (r <= 0)
      return 0;
    b += r;
    n -= (size_t)r;
  }
  return 1;
}

int nu_send_all(int fd, const void *p, size_t n)
{
  const uint8_t *b = p;
  while (n) {
    ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
    if (w <= 0)
      return 0;
    b += w;
    n -= (size_t)w;
  }
  return 1;
}

uint8_t *nu_recv_msg(int fd, size_t max, size_t *len)
{
  uint8_t h[12];
  if (!nu_read_full(fd, h, 12))
    return NULL;
  giop_header gh;
  ck_assert_int_eq(giop_header_parse(h, 12, &gh), CDR_OK);
  ck_assert_uint_le(gh.size, max);
  uint8_t *m = malloc(12 + (size_t)gh.size);
  ck_assert_ptr_nonnull(m);
  memcpy(m, h, 12);
  if (gh.size && !nu_read_full(fd, m + 12, gh.size)) {
    free(m);
    return NULL;
  }
  *len = 12 + (size_t)gh.size;
  return m;
}

size_t nu_recv_msg_into(int fd, uint8_t *buf, size_t cap)
{
  ck_assert_uint_ge(cap, 12);
  if (!nu_read_full(fd, buf, 12))
    return 0;
  giop_header h;
  ck_assert_int_eq(giop_header_parse(buf, 12, &h), CDR_OK);
  ck_assert_uint_le(h.size, cap - 12);
  ck_assert(nu_read_full(fd, buf + 12, h.size));
  return 12 + (size_t)h.size;
}

/* ---------------------------------------------------------------- GIOP messages */

void nu_header(uint8_t *h, uint8_t minor, int little, uint8_t flags, uint8_t type, uint32_t size)
{
  memcpy(h, "GIOP", 4);
  h[4] = 1;
  h[5] = minor;
  h[6] = (uint8_t)((little ? 1 : 0) | flags);
  h[7] = type;
  tu_store(h + 8, size, 4, little);
}

void nu_arg_long(cdr_out *o, const void *ud) { cdr_put_long(o, *(const int32_t *)ud); }
void nu_arg_string(cdr_out *o, const void *ud) { cdr_put_string(o, ud); }

nu_req nu_req_default(uint32_t id, const char *key, const char *op)
{
  nu_req r;
  memset(&r, 0, sizeof r);
  r.minor = 2;
  r.order = CDR_HOST_ORDER;
  r.id = id;
  r.flags = GIOP_RESPONSE_EXPECTED;
  r.key = key;
  r.op = op;
  return r;
}

cdr_opts nu_req_opts(const nu_req *r)
{
  cdr_opts o;
  cdr_opts_default(&o);
  o.byte_order = (uint8_t)r->order;
  o.giop_minor = r->minor;
  return o;
}

void nu_request_head(cdr_out *out, const nu_req *r)
{
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.request_id = r->id;
  h.response_flags = r->flags;
  h.target.disposition = GIOP_KEY_ADDR;
  h.target.key = (const uint8_t *)r->key;
  h.target.key_len = (uint32_t)strlen(r->key);
  h.operation = r->op;
  h.operation_len = (uint32_t)strlen(r->op);
  if (r->sc)
    h.contexts = *r->sc;
  ck_assert_int_eq(giop_begin_request(out, &h), CDR_OK);
  if (!r->no_body)
    giop_begin_body(out);
}

size_t nu_request(uint8_t *buf, size_t cap, const nu_req *r)
{
  cdr_opts o = nu_req_opts(r);
  cdr_out out;
  ck_assert_int_eq(cdr_out_init_buffer(&out, &o, buf, cap), CDR_OK);
  nu_request_head(&out, r);
  if (!r->no_body && r->args)
    r->args(&out, r->ud);
  ck_assert_int_eq(giop_end(&out), CDR_OK);
  size_t n = cdr_out_size(&out);
  cdr_out_close(&out);
  return n;
}

/* ---------------------------------------------------------------- servers */

iiop_server *nu_serve(const iiop_server_opts *o, const char *key, const iiop_interface *iface,
                      void *servant)
{
  iiop_server_opts d;
  if (!o) {
    iiop_server_opts_default(&d);
    o = &d;
  }
  iiop_server *s = NULL;
  ck_assert_int_eq(iiop_server_new(o, &s), CDR_OK);
  ck_assert_int_eq(iiop_server_activate(s, key, strlen(key), iface, servant), CDR_OK);
  ck_assert_int_eq(iiop_server_start(s), CDR_OK);
  return s;
}

void nu_server_ior(iiop_server *s, const char *key, char *out, size_t cap)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *str = NULL;
  ck_assert_int_eq(iiop_server_ior(s, key, strlen(key), &a, &str), CDR_OK);
  ck_assert_uint_lt(strlen(str), cap);
  strcpy(out, str);
  cdr_arena_free(&a);
}

int nu_op_ping(void *servant, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)servant;
  (void)r;
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  cdr_put_long(o, x);
  return CDR_OK;
}

void nu_take_exception(nu_outcome *o, iiop_call *call)
{
  const giop_system_exception *e = iiop_call_exception(call);
  ck_assert_ptr_nonnull(e);
  o->ex.repo_id = giop_system_exception_name(e->repo_id, strlen(e->repo_id));
  o->ex.minor = e->minor;
  o->ex.completed = e->completed;
}

int nu_op_echo_string(void *servant, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)servant;
  (void)r;
  uint32_t n;
  const char *s = cdr_get_string(a, &n);
  if (!s)
    return cdr_in_status(a);
  cdr_put_string_n(o, s, n);
  return CDR_OK;
}

int nu_op_echo_view(void *servant, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)servant;
  (void)r;
  const char *s;
  uint32_t n;
  int rc = cdr_get_string_view(a, &s, &n);
  if (rc != CDR_OK)
    return rc;
  cdr_put_string_view(o, s, n);
  return cdr_out_status(o);
}

static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_is_open, gate_held; /* under gate_mu */

void nu_gate_reset(void)
{
  pthread_mutex_lock(&gate_mu);
  gate_is_open = 0;
  gate_held = 0;
  pthread_mutex_unlock(&gate_mu);
}

void nu_gate_open(void)
{
  pthread_mutex_lock(&gate_mu);
  gate_is_open = 1;
  pthread_cond_broadcast(&gate_cv);
  pthread_mutex_unlock(&gate_mu);
}

void nu_gate_pass(void)
{
  pthread_mutex_lock(&gate_mu);
  gate_held++;
  while (!gate_is_open)
    pthread_cond_wait(&gate_cv, &gate_mu);
  gate_held--;
  pthread_mutex_unlock(&gate_mu);
}

int nu_gate_held(void)
{
  pthread_mutex_lock(&gate_mu);
  int n = gate_held;
  pthread_mutex_unlock(&gate_mu);
  return n;
}

int nu_gate_wait_held(int n)
{
  for (int k = 0; k < 2000 && nu_gate_held() < n; k++)
    tu_sleep_ms(5);
  return nu_gate_held();
}

int nu_hold_long(cdr_in *a, cdr_out *o, int32_t add)
{
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  nu_gate_pass();
  cdr_put_long(o, (int32_t)((uint32_t)x + (uint32_t)add));
  return CDR_OK;
}

int nu_op_hold(void *servant, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)servant;
  (void)r;
  return nu_hold_long(a, o, 0);
}

/* ---------------------------------------------------------------- clients */

iiop_client *nu_client(uint32_t max, uint32_t per, int timeout_ms)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = timeout_ms;
  o.max_connections = max;
  o.calls_per_connection = per;
  iiop_client *c = NULL;
  ck_assert_int_eq(iiop_client_create(&o, &c), CDR_OK);
  return c;
}

iiop_ref *nu_resolve(iiop_client *c, uint16_t port, const char *key)
{
  char url[96];
  int n = snprintf(url, sizeof url, "corbaloc:iiop:1.2@127.0.0.1:%u/%s", (unsigned)port, key);
  ck_assert(n > 0 && (size_t)n < sizeof url);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  return r;
}

nu_outcome nu_call(iiop_ref *r, const char *op, const int32_t *args, int n, int call_ms,
                   unsigned flags)
{
  nu_outcome out;
  memset(&out, 0, sizeof out);
  iiop_call *call;
  cdr_out *o;
  ck_assert_int_eq(iiop_call_begin(r, op, 0, &call, &o), CDR_OK);
  ck_assert_int_eq(iiop_call_set_timeout(call, call_ms), CDR_OK);
  for (int k = 0; k < n; k++)
    cdr_put_long(o, args[k]);
  cdr_in *res = NULL;
  int64_t t0 = tu_now_ms();
  out.rc = iiop_call_invoke(call, &res);
  out.ms = tu_now_ms() - t0;
  if (out.rc == CDR_OK) {
    out.value = cdr_get_long(res);
    ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  } else {
    nu_take_exception(&out, call);
  }
  if (flags & NU_CALL_TIMEOUT_FIXED)
    ck_assert_int_eq(iiop_call_set_timeout(call, 5), CDR_E_STATE);
  iiop_call_end(call);
  return out;
}

void nu_check_echo(iiop_ref *r, const char *op, const char *s, size_t n, unsigned flags)
{
  iiop_call *call;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(r, op, 0, &call, &args), CDR_OK);
  if (flags & NU_ECHO_BY_REF)
    cdr_put_string_ref(args, s, n);
  else
    cdr_put_string_n(args, s, n);
  if ((flags & NU_ECHO_BY_REF) && (flags & NU_ECHO_ONE_REF))
    ck_assert_uint_eq(cdr_out_nrefs(args), 1); /* not copied */
  cdr_in *res = NULL;
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  const char *got;
  uint32_t gl;
  ck_assert_int_eq(cdr_get_string_view(res, &got, &gl), CDR_OK);
  ck_assert_uint_eq(gl, n);
  ck_assert(memcmp(got, s, n) == 0);
  iiop_call_end(call);
}

iiop_server_stats nu_stats(iiop_server *s)
{
  iiop_server_stats st;
  ck_assert_int_eq(iiop_server_stats_get(s, &st), CDR_OK);
  return st;
}

iiop_server_stats nu_settled(iiop_server *s, int ms)
{
  iiop_server_stats st = nu_stats(s);
  for (int64_t t0 = tu_now_ms(); (st.open || st.in_flight) && tu_now_ms() - t0 < ms;) {
    tu_sleep_ms(5);
    st = nu_stats(s);
  }
  return st;
}
