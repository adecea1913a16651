/* check_bidir.c - bidirectional GIOP 1.2 (CORBA 3.x Part 2, 15.8) in
 * libiiop: the BI_DIR_IIOP context's octets; a client that offers BiDir
 * hosts a callback object that a server operation calls back over the
 * client's own connection (no second connection on either side: the
 * servers' and clients' counters exact; request IDs even from the side
 * that connected, odd from the side that accepted); a client that does not
 * offer gets its callback over a new connection, or TRANSIENT when nobody
 * listens at its IOR's address; a server that does not accept ignores the
 * context; malformed contexts get MARSHAL and the connection stays; GIOP
 * 1.0/1.1 never turn a connection bidirectional. */
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- the callback side */

static int hits;               /* atomic: CB::hit calls */
static uint32_t hit_req_id;    /* the request ID hit() came with */

/* CB::hit(in long x) -> long: x + 1. */
static int op_hit(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  int32_t x = cdr_get_long(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  __atomic_add_fetch(&hits, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&hit_req_id, iiop_request_id(r), __ATOMIC_RELAXED);
  cdr_put_long(o, x + 1);
  return CDR_OK;
}

static const iiop_operation cb_ops[] = { { "hit", op_hit } };
static const iiop_interface cb_iface = { "IDL:BiDir/CB:1.0", cb_ops, 1, NULL };

/* ---------------------------------------------------------------- the server side */

static iiop_client *srv_client;      /* the server process's client (callbacks) */
static char cb_error[128];           /* the callback's exception, "" none */
static uint32_t call_req_id;

/* Srv::call_me(in CB cb, in long x) -> long: cb->hit(x) * 10, or -1 when
 * the callback failed (its exception in cb_error). */
static int op_call_me(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv;
  iiop_ior ior;
  int rc = iiop_ior_read(a, &ior);
  int32_t x = cdr_get_long(a);
  if (rc != CDR_OK || cdr_in_status(a) != CDR_OK)
    return rc != CDR_OK ? rc : cdr_in_status(a);
  call_req_id = iiop_request_id(r);
  char *s;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, cdr_in_arena(a), &s), CDR_OK);
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(srv_client, s, &ref), CDR_OK);
  iiop_call *c;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(ref, "hit", 0, &c, &args), CDR_OK);
  cdr_put_long(args, x);
  cdr_in *res;
  int st = iiop_call_invoke(c, &res);
  int32_t v = -1;
  cb_error[0] = 0;
  if (st == CDR_OK)
    v = cdr_get_long(res) * 10;
  else
    snprintf(cb_error, sizeof cb_error, "%s",
             iiop_call_exception(c)->repo_id ? iiop_call_exception(c)->repo_id : "?");
  iiop_call_end(c);
  iiop_ref_free(ref);
  cdr_put_long(o, v);
  return CDR_OK;
}

/* Srv::ping(in long x) -> long: x. */
static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)r;
  int32_t x = cdr_get_long(a);
  cdr_put_long(o, x);
  return cdr_in_status(a);
}

static const iiop_operation srv_ops[] = { { "call_me", op_call_me }, { "ping", op_ping } };
static const iiop_interface srv_iface = { "IDL:BiDir/Srv:1.0", srv_ops, 2, NULL };

/* ---------------------------------------------------------------- fixtures */

typedef struct world {
  iiop_server *srv;    /* the server, listening */
  iiop_server *cbs;    /* the client's callback objects */
  iiop_client *cl;     /* the client */
  char *srv_ior, *cb_ior;
  cdr_arena *a;
} world;

/* ACCEPT: the server accepts BiDir; OFFER: the client offers it; LISTEN:
 * the callback server listens (else bound only: nobody accepts there). */
static void world_up(world *w, int accept, int offer, int listen)
{
  memset(w, 0, sizeof *w);
  __atomic_store_n(&hits, 0, __ATOMIC_RELAXED);
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.accept_bidir = accept;
  w->srv = nu_serve(&so, "Srv", &srv_iface, NULL);
  srv_client = iiop_client_new(NULL);
  ck_assert_ptr_nonnull(srv_client);
  ck_assert_int_eq(iiop_client_use_bidir(srv_client, w->srv), accept ? CDR_OK : CDR_E_STATE);

  iiop_server_opts co;
  iiop_server_opts_default(&co);
  ck_assert_int_eq(iiop_server_new(&co, &w->cbs), CDR_OK);
  ck_assert_int_eq(iiop_server_activate(w->cbs, "CB", 2, &cb_iface, NULL), CDR_OK);
  if (listen)
    ck_assert_int_eq(iiop_server_start(w->cbs), CDR_OK);
  w->cl = iiop_client_new(NULL);
  ck_assert_ptr_nonnull(w->cl);
  if (offer) {
    ck_assert_int_eq(iiop_client_offer_bidir(w->cl, w->cbs), CDR_OK);
    ck_assert_int_eq(iiop_client_offer_bidir(w->cl, w->cbs), CDR_E_STATE);
  }
  w->a = cdr_arena_get();
  ck_assert_int_eq(iiop_server_ior(w->srv, "Srv", 3, w->a, &w->srv_ior), CDR_OK);
  ck_assert_int_eq(iiop_server_ior(w->cbs, "CB", 2, w->a, &w->cb_ior), CDR_OK);
}

static void world_down(world *w)
{
  iiop_client_free(w->cl);
  iiop_server_shutdown(w->srv);
  iiop_client_free(srv_client);
  srv_client = NULL;
  iiop_server_free(w->srv);
  iiop_server_shutdown(w->cbs);
  iiop_server_free(w->cbs);
  cdr_arena_put(w->a);
}

/* call_me(cb, X) through REF; its result. */
static int32_t call_me(iiop_ref *ref, const char *cb_ior, int32_t x)
{
  cdr_arena *a = cdr_arena_get();
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(cb_ior, a, &ior), CDR_OK);
  iiop_call *c;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(ref, "call_me", 0, &c, &args), CDR_OK);
  ck_assert_int_eq(iiop_ior_write(args, &ior), CDR_OK);
  cdr_put_long(args, x);
  cdr_in *res;
  ck_assert_int_eq(iiop_call_invoke(c, &res), CDR_OK);
  int32_t v = cdr_get_long(res);
  ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  iiop_call_end(c);
  cdr_arena_put(a);
  return v;
}

/* ---------------------------------------------------------------- the context's octets */

START_TEST(test_context_octets)
{
  giop_listen_point lp[2] = { { "127.0.0.1", 2809 }, { "h", 65535 } };
  uint8_t buf[128];
  size_t len = 0;
  ck_assert_int_eq(giop_bidir_context_encode(lp, 2, buf, sizeof buf, &len), CDR_OK);
  int le = CDR_HOST_ORDER == CDR_LITTLE_ENDIAN;
  uint8_t want[40];
  size_t n = 0;
  want[n++] = (uint8_t)CDR_HOST_ORDER;
  want[n++] = 0, want[n++] = 0, want[n++] = 0;
#define U32(v) do { uint32_t t_ = (v); for (int k_ = 0; k_ < 4; k_++) \
      want[n++] = (uint8_t)(t_ >> (le ? 8 * k_ : 24 - 8 * k_)); } while (0)
#define U16(v) do { uint16_t t_ = (v); want[n++] = (uint8_t)(le ? t_ : t_ >> 8); \
      want[n++] = (uint8_t)(le ? t_ >> 8 : t_); } while (0)
  U32(2);
  U32(10);
  memcpy(want + n, "127.0.0.1", 10);
  n += 10;                         /* 22: the ushort needs no padding */
  U16(2809);                       /* 24 */
  U32(2);                          /* the next string is at 24: aligned */
  want[n++] = 'h', want[n++] = 0;  /* 30 */
  U16(65535);                      /* 32 */
  TU_ASSERT_BYTES(buf, len, want, n);

  giop_service_context c = { GIOP_SC_BI_DIR_IIOP, (uint32_t)len, buf };
  cdr_arena *a = cdr_arena_get();
  giop_listen_point got[4];
  uint32_t cnt = 0;
  ck_assert_int_eq(giop_bidir_context_decode(&c, a, got, 4, &cnt), CDR_OK);
  ck_assert_uint_eq(cnt, 2);
  ck_assert_str_eq(got[0].host, "127.0.0.1");
  ck_assert_uint_eq(got[0].port, 2809);
  ck_assert_str_eq(got[1].host, "h");
  ck_assert_uint_eq(got[1].port, 65535);
  /* the other byte order, written by hand: one point "ab":7 big-endian */
  static const uint8_t be[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 0, 0, 0, 7 };
  giop_service_context cb = { GIOP_SC_BI_DIR_IIOP, sizeof be, be };
  ck_assert_int_eq(giop_bidir_context_decode(&cb, a, got, 4, &cnt), CDR_OK);
  ck_assert_uint_eq(cnt, 1);
  ck_assert_str_eq(got[0].host, "ab");
  ck_assert_uint_eq(got[0].port, 7);
  /* capacity, truncation, limits */
  ck_assert_int_eq(giop_bidir_context_decode(&c, a, got, 1, &cnt), CDR_E_LIMIT);
  giop_service_context cut = { GIOP_SC_BI_DIR_IIOP, (uint32_t)len - 1, buf };
  ck_assert_int_ne(giop_bidir_context_decode(&cut, a, got, 4, &cnt), CDR_OK);
  giop_service_context none = { GIOP_SC_BI_DIR_IIOP, 0, buf };
  ck_assert_int_eq(giop_bidir_context_decode(&none, a, got, 4, &cnt), CDR_E_SHORT);
  ck_assert_int_eq(giop_bidir_context_encode(lp, 2, buf, 20, &len), CDR_E_LIMIT);
  giop_listen_point empty = { "", 1 };
  ck_assert_int_eq(giop_bidir_context_encode(&empty, 1, buf, sizeof buf, &len), CDR_E_INVALID);
  ck_assert_int_eq(giop_bidir_context_encode(lp, GIOP_LISTEN_POINTS_MAX + 1, buf, sizeof buf, &len),
                   CDR_E_INVALID);
  cdr_arena_put(a);
#undef U32
#undef U16
}
END_TEST

/* ---------------------------------------------------------------- calls */

START_TEST(test_callback_over_the_clients_connection)
{
  world w;
  world_up(&w, 1, 1, 0);               /* nobody listens at the callback's address */
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(call_me(ref, w.cb_ior, 4 + k), (5 + k) * 10);
    ck_assert_str_eq(cb_error, "");
    /* 15.8: even IDs from the side that connected, odd from the other */
    ck_assert_uint_eq(call_req_id, 2 + 2 * (uint32_t)k);
    ck_assert_uint_eq(__atomic_load_n(&hit_req_id, __ATOMIC_RELAXED), 1 + 2 * (uint32_t)k);
  }
  ck_assert_int_eq(__atomic_load_n(&hits, __ATOMIC_RELAXED), 3);
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(w.srv, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  ck_assert_uint_eq(ss.bidir_connections, 1);
  ck_assert_uint_eq(ss.bidir_refused, 0);
  ck_assert_int_eq(iiop_server_stats_get(w.cbs, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 0);
  iiop_client_stats cs;
  ck_assert_int_eq(iiop_client_stats_get(w.cl, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 1);
  ck_assert_uint_eq(cs.bidir_served, 3);
  ck_assert_int_eq(iiop_client_stats_get(srv_client, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 0);
  ck_assert_uint_eq(cs.connect_failed, 0);
  ck_assert_uint_eq(cs.bidir_reused, 3);
  iiop_ref_free(ref);
  world_down(&w);
}
END_TEST

START_TEST(test_server_calls_back_after_the_call)
{
  /* A callback from the server outside any call of the client: the
   * client reads it with its next call on that connection. */
  world w;
  world_up(&w, 1, 1, 0);
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 1), 20);
  /* a ping from the client while the server's connection thread reads: the
   * server's reply routing leaves Requests to it */
  iiop_call *c;
  cdr_out *args;
  ck_assert_int_eq(iiop_call_begin(ref, "ping", 0, &c, &args), CDR_OK);
  cdr_put_long(args, 77);
  cdr_in *res;
  ck_assert_int_eq(iiop_call_invoke(c, &res), CDR_OK);
  ck_assert_int_eq(cdr_get_long(res), 77);
  iiop_call_end(c);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 2), 30);
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(w.srv, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  iiop_ref_free(ref);
  world_down(&w);
}
END_TEST

START_TEST(test_not_offered_new_connection_or_transient)
{
  /* The client does not offer: the callback goes to the IOR's address. */
  world w;
  world_up(&w, 1, 0, 1);
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 4), 50);
  ck_assert_uint_eq(call_req_id, 1);   /* an ordinary connection's IDs */
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(w.srv, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  ck_assert_uint_eq(ss.bidir_connections, 0);
  ck_assert_int_eq(iiop_server_stats_get(w.cbs, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);   /* the server's own connection to it */
  iiop_client_stats cs;
  ck_assert_int_eq(iiop_client_stats_get(srv_client, &cs), CDR_OK);
  ck_assert_uint_eq(cs.connections, 1);
  ck_assert_uint_eq(cs.bidir_reused, 0);
  iiop_ref_free(ref);
  world_down(&w);

  /* ... and nobody listens there: TRANSIENT */
  world_up(&w, 1, 0, 0);
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 4), -1);
  ck_assert_str_eq(cb_error, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  ck_assert_int_eq(__atomic_load_n(&hits, __ATOMIC_RELAXED), 0);
  iiop_ref_free(ref);
  world_down(&w);
}
END_TEST

START_TEST(test_server_not_accepting_ignores_the_context)
{
  world w;
  world_up(&w, 0, 1, 0);
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 4), -1);
  ck_assert_str_eq(cb_error, "IDL:omg.org/CORBA/TRANSIENT:1.0");
  ck_assert_int_eq(call_me(ref, w.cb_ior, 5), -1); /* the connection is fine */
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(w.srv, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  ck_assert_uint_eq(ss.bidir_connections, 0);
  ck_assert_uint_eq(ss.limit_protocol, 0);
  ck_assert_int_eq(__atomic_load_n(&hits, __ATOMIC_RELAXED), 0);
  iiop_ref_free(ref);
  world_down(&w);

  /* listening: the callback comes over a connection of the server's */
  world_up(&w, 0, 1, 1);
  ck_assert_int_eq(iiop_client_resolve(w.cl, w.srv_ior, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 4), 50);
  ck_assert_int_eq(iiop_server_stats_get(w.cbs, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  iiop_ref_free(ref);
  world_down(&w);
}
END_TEST

START_TEST(test_giop_11_never_bidir)
{
  /* An offering client calling through a GIOP 1.1 reference sends no
   * BI_DIR_IIOP context: the callback needs a connection of its own. */
  world w;
  world_up(&w, 1, 1, 1);
  char url[64];
  snprintf(url, sizeof url, "corbaloc::1.1@127.0.0.1:%u/Srv", (unsigned)iiop_server_port(w.srv));
  iiop_ref *ref;
  ck_assert_int_eq(iiop_client_resolve(w.cl, url, &ref), CDR_OK);
  ck_assert_int_eq(call_me(ref, w.cb_ior, 4), 50);
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(w.srv, &ss), CDR_OK);
  ck_assert_uint_eq(ss.bidir_connections, 0);
  ck_assert_int_eq(iiop_server_stats_get(w.cbs, &ss), CDR_OK);
  ck_assert_uint_eq(ss.accepted, 1);
  iiop_ref_free(ref);
  world_down(&w);
}
END_TEST

/* ---------------------------------------------------------------- raw requests */

/* A GIOP 1.MINOR ping(X) request with ID and the context (DATA, LEN) as
 * BI_DIR_IIOP (none when DATA is NULL). */
static size_t raw_ping(uint8_t *buf, size_t cap, uint8_t minor, uint32_t id, const uint8_t *data,
                       uint32_t len, int32_t x)
{
  giop_service_context sc = { GIOP_SC_BI_DIR_IIOP, len, data };
  giop_sc_list l = { 1, &sc };
  nu_req r = nu_req_default(id, "Srv", "ping");
  r.minor = minor;
  r.sc = data ? &l : NULL;
  r.args = nu_arg_long;
  r.ud = &x;
  return nu_request(buf, cap, &r);
}

/* Send REQ on FD; the reply's status (GIOP_NO_EXCEPTION ...), its
 * exception's repository ID into EX. */
static uint32_t raw_call(int fd, const uint8_t *req, size_t n, char *ex, size_t excap)
{
  ck_assert(send(fd, req, n, MSG_NOSIGNAL) == (ssize_t)n);
  uint8_t rep[1024];
  size_t rl = nu_recv_msg_into(fd, rep, sizeof rep);
  ck_assert_uint_gt(rl, 0);
  ck_assert_uint_eq(rep[7], GIOP_REPLY);
  cdr_arena *a = cdr_arena_get();
  giop_message m;
  ck_assert_int_eq(giop_parse(&m, rep, rl, NULL, a), CDR_OK);
  uint32_t st = m.u.reply.reply_status;
  ex[0] = 0;
  if (st == GIOP_SYSTEM_EXCEPTION) {
    giop_system_exception e;
    ck_assert_int_eq(giop_get_system_exception(&m.body, &e), CDR_OK);
    snprintf(ex, excap, "%s", e.repo_id);
  }
  cdr_in_close(&m.body);
  cdr_arena_put(a);
  return st;
}

START_TEST(test_hostile_contexts)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.accept_bidir = 1;
  iiop_server *s;
  s = nu_serve(&so, "Srv", &srv_iface, NULL);
  int fd = nu_connect(NULL, iiop_server_port(s), 0, 0);
  static const uint8_t bad_order[] = { 7, 0, 0, 0, 0, 0, 0, 0 };
  static const uint8_t huge_count[] = { 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff };
  static const uint8_t too_many[] = { 0, 0, 0, 0, 0, 0, 0, GIOP_LISTEN_POINTS_MAX + 1 };
  static const uint8_t long_str[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0x10, 0, 0, 0, 'a' };
  static const uint8_t empty_str[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7 };
  static const uint8_t no_nul[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 'a', 'b', 0, 7 };
  static const uint8_t no_port[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 'a', 0 };
  static const uint8_t empty[1] = { 0 };
  struct { const uint8_t *d; uint32_t n; } bad[] = {
    { bad_order, sizeof bad_order }, { huge_count, sizeof huge_count },
    { too_many, sizeof too_many }, { long_str, sizeof long_str },
    { empty_str, sizeof empty_str }, { no_nul, sizeof no_nul },
    { no_port, sizeof no_port }, { empty, 0 }, { NULL, 0 },
  };
  uint8_t big_host[8 + 4 + 300 + 2];   /* a 299-octet host: over GIOP_LISTEN_HOST_MAX */
  memcpy(big_host, "\0\0\0\0\0\0\0\1\0\0\1\x2c", 12);
  memset(big_host + 12, 'a', 299);
  big_host[12 + 299] = 0;
  big_host[312] = 0, big_host[313] = 7;
  bad[sizeof bad / sizeof bad[0] - 1].d = big_host;
  bad[sizeof bad / sizeof bad[0] - 1].n = sizeof big_host;
  uint8_t req[1024];
  char ex[128];
  uint32_t id = 2;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++, id += 2) {
    size_t n = raw_ping(req, sizeof req, 2, id, bad[k].d, bad[k].n, 5);
    ck_assert_uint_eq(raw_call(fd, req, n, ex, sizeof ex), GIOP_SYSTEM_EXCEPTION);
    ck_assert_str_eq(ex, "IDL:omg.org/CORBA/MARSHAL:1.0");
  }
  /* the connection stays; a good context is taken */
  uint8_t good[64];
  size_t gl;
  giop_listen_point lp = { "127.0.0.1", 1 };
  ck_assert_int_eq(giop_bidir_context_encode(&lp, 1, good, sizeof good, &gl), CDR_OK);
  size_t n = raw_ping(req, sizeof req, 2, id, good, (uint32_t)gl, 5);
  ck_assert_uint_eq(raw_call(fd, req, n, ex, sizeof ex), GIOP_NO_EXCEPTION);
  iiop_server_stats ss;
  ck_assert_int_eq(iiop_server_stats_get(s, &ss), CDR_OK);
  ck_assert_uint_eq(ss.bidir_refused, sizeof bad / sizeof bad[0]);
  ck_assert_uint_eq(ss.bidir_connections, 1);
  ck_assert_uint_eq(ss.limit_protocol, 0);
  close(fd);

  /* GIOP 1.0 and 1.1: the context is ignored, even a malformed one */
  for (uint8_t minor = 0; minor < 2; minor++) {
    fd = nu_connect(NULL, iiop_server_port(s), 0, 0);
    n = raw_ping(req, sizeof req, minor, 1, good, (uint32_t)gl, 5);
    ck_assert_uint_eq(raw_call(fd, req, n, ex, sizeof ex), GIOP_NO_EXCEPTION);
    n = raw_ping(req, sizeof req, minor, 2, bad_order, sizeof bad_order, 5);
    ck_assert_uint_eq(raw_call(fd, req, n, ex, sizeof ex), GIOP_NO_EXCEPTION);
    close(fd);
  }
  ck_assert_int_eq(iiop_server_stats_get(s, &ss), CDR_OK);
  ck_assert_uint_eq(ss.bidir_connections, 1);
  ck_assert_uint_eq(ss.bidir_refused, sizeof bad / sizeof bad[0]);
  iiop_server_shutdown(s);
  iiop_server_free(s);
}
END_TEST

static Suite *bidir_suite(void)
{
  Suite *s = suite_create("bidir");
  TCase *tc = tcase_create("bidirectional GIOP");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_context_octets);
  tcase_add_test(tc, test_callback_over_the_clients_connection);
  tcase_add_test(tc, test_server_calls_back_after_the_call);
  tcase_add_test(tc, test_not_offered_new_connection_or_transient);
  tcase_add_test(tc, test_server_not_accepting_ignores_the_context);
  tcase_add_test(tc, test_giop_11_never_bidir);
  tcase_add_test(tc, test_hostile_contexts);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = bidir_suite };
