/* server.c - the server half of iiop/orb.h (OMG CORBA 3.x, Part 2, GIOP
 * and IIOP chapters): listening sockets, one accept thread, a thread per
 * connection that reads and dispatches in place, and the object adapter
 * (persistent object key -> servant and interface, operations through a
 * hash table built once at activation).
 *
 * Threads and ownership:
 * - The accept thread polls the listening sockets and a wake pipe; it
 *   starts a connection thread per accepted socket and joins the threads
 *   of connections that ended (the "dead" list).
 * - A connection thread runs the TLS handshake (bounded by
 *   handshake_timeout_ms, so a stalled client holds only its own thread for
 *   that long), then loops: read a whole message, dispatch it, send the
 *   reply.  Its state word (IDLE: waiting for a message, BUSY:
 *   dispatching, CLOSING: CloseConnection is being sent) changes by
 *   compare-and-set, so a call touches no lock shared with other
 *   connections.  Shutdown sets `stopping`, then moves every IDLE
 *   connection to CLOSING and sends its CloseConnection; a BUSY one
 *   finishes its request, stores IDLE, reads `stopping` and (if it can
 *   still move itself from IDLE to CLOSING) sends CloseConnection itself.
 *   Both sides store before they load, sequentially consistent, so one of
 *   them always sees the other and exactly one sends.  A message read by
 *   a connection already CLOSING is dropped unprocessed, which is what
 *   CloseConnection promises the client (the request may be reissued).
 * - Connection records are freed only by the thread that joins them (the
 *   accept thread, or the shutdown thread once the accept thread is gone),
 *   so the shutdown thread may use any record it finds in the lists.
 *
 * Object table: readers (connection threads) load the table pointer with
 * one acquire load and no lock; iiop_server_activate() builds a new table
 * under the mutex and publishes it with a release store.  Replaced tables
 * are kept until iiop_server_free() (activation is rare, so that memory is
 * small), which is what lets readers go without reference counts.
 *
 * Steady state per call: no allocation.  The message buffer comes from the
 * connection's reassembler, the arena from the per-thread pool
 * (cdr_arena_get/put), the reply goes into the connection's own output
 * stream (cdr_out_reset keeps its buffer), and everything else lives on
 * the stack.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "connection.h"

#define DEFAULT_MAX_MESSAGE ((size_t)64 << 20)
#define DEFAULT_MAX_CONNECTIONS 1024u
#define DEFAULT_HANDSHAKE_MS 5000
/* After CloseConnection the server reads (and drops) what the client still
 * sends until it closes, for at most this long: closing a socket with
 * unread data makes the kernel send RST, which can destroy the
 * CloseConnection message before the client reads it. */
#define LINGER_MS 2000
/* Shutdown forces connections that have not ended LINGER_MS after it
 * began; one still dispatching gets this long to send its reply. */
#define BUSY_GRACE_MS 30000
/* A reply not written within this long (a client that stopped reading)
 * fails and closes its connection, so no thread waits on it forever. */
#define SEND_TIMEOUT_MS 60000

/* SSLIOP::AssociationOptions bits for TAG_SSL_SEC_TRANS. */
#define SSL_NO_PROTECTION 0x01
#define SSL_INTEGRITY 0x02
#define SSL_CONFIDENTIALITY 0x04
#define SSL_TRUST_IN_TARGET 0x20

static const char OBJECT_REPO_ID[] = "IDL:omg.org/CORBA/Object:1.0";

/* ---------------------------------------------------------------- object adapter */

enum { OP_USER, OP_IS_A, OP_NON_EXISTENT };

typedef struct op_slot {
  const char *name;          /* NULL: empty slot */
  uint32_t len, hash;
  uint32_t kind;             /* OP_* */
  iiop_op_fn fn;
} op_slot;

typedef struct obj {
  const iiop_interface *iface;
  void *servant;
  uint32_t key_len, key_hash;
  uint32_t op_mask;
  op_slot *ops;              /* op_mask + 1 slots, after the key */
  uint8_t key[];
} obj;

typedef struct obj_table {
  struct obj_table *retired; /* older tables, freed with the server */
  uint32_t mask, n;
  obj *slot[];
} obj_table;

/* FNV-1a: operation names and object keys are a few octets long. */
static uint32_t hash_bytes(const void *p, size_t n)
{
  const uint8_t *b = p;
  uint32_t h = 2166136261u;
  for (size_t k = 0; k < n; k++)
    h = (h ^ b[k]) * 16777619u;
  return h;
}

static const op_slot *find_op(const obj *o, const char *name, uint32_t len)
{
  uint32_t h = hash_bytes(name, len);
  for (uint32_t i = h & o->op_mask;; i = (i + 1) & o->op_mask) {
    const op_slot *s = &o->ops[i];
    if (!s->name)
      return NULL;
    if (s->hash == h && s->len == len && memcmp(s->name, name, len) == 0)
      return s;
  }
}

static const obj *table_find(const obj_table *t, const void *key, size_t len)
{
  if (!t)
    return NULL;
  uint32_t h = hash_bytes(key, len);
  for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
    const obj *o = t->slot[i];
    if (!o)
      return NULL;
    if (o->key_hash == h && o->key_len == len && (len == 0 || memcmp(o->key, key, len) == 0))
      return o;
  }
}

static void table_put(obj_table *t, obj *o)
{
  uint32_t i = o->key_hash & t->mask;
  while (t->slot[i])
    i = (i + 1) & t->mask;
  t->slot[i] = o;
  t->n++;
}

static uint32_t pow2_at_least(uint32_t n)
{
  uint32_t c = 4;
  while (c < n)
    c <<= 1;
  return c;
}

/* ---------------------------------------------------------------- server state */

enum { CS_HANDSHAKE, CS_IDLE, CS_BUSY, CS_CLOSING, CS_DONE };

typedef struct srv_conn srv_conn;

struct iiop_server {
  const cdr_allocator *alloc;
  char *host;                /* listen address, brackets stripped */
  char *ior_host;            /* what IORs carry (the host name for a wildcard) */
  size_t fragment_size, max_message;
  uint32_t max_connections;
  int handshake_ms;
  int lfd, tls_lfd;
  uint16_t port, tls_port;
  iiop_tls_ctx *tls;
  int wake[2];

  pthread_mutex_t mu;
  pthread_cond_t cv;         /* a connection ended; shutdown finished */
  pthread_t accept_thr;
  bool accepting;            /* accept thread running */
  bool started, shutting, shut_done;
  int stopping;              /* atomic: connections must stop dispatching */
  uint32_t nconns;           /* connections in the active list */
  srv_conn *active, *dead;

  obj_table *objs;           /* atomic: acquire load, release store */
};

struct srv_conn {
  srv_conn *prev, *next;
  iiop_server *s;
  pthread_t thr;
  int fd;                    /* the socket (owned by the transport once wrapped) */
  int ctl_fd;                /* a dup of it during a TLS handshake, to abort it */
  bool tls;
  iiop_conn *conn;           /* set under the mutex once established */
  int state;                 /* atomic: CS_*; HANDSHAKE -> IDLE under the mutex */
  srv_conn *close_next;
  uint8_t minor;             /* GIOP minor of the last message read */

  /* Code sets: fixed by the first Request (its CodeSets service context,
   * or the defaults: ISO-8859-1, no wchar code set). */
  bool cs_fixed;
  const char *cs_error;      /* a system exception every request gets, or NULL */
  cdr_opts in_opts;          /* body decoding options */

  cdr_out out;               /* reply stream, reused */
  bool out_ready;
  uint8_t out_minor;
};

struct iiop_request {
  const char *operation;
  uint32_t request_id;
  uint32_t completed;
};

static void *s_alloc(const iiop_server *s, size_t n) { return s->alloc->malloc(n, s->alloc->ud); }
static void s_free(const iiop_server *s, void *p)
{
  if (p)
    s->alloc->free(p, s->alloc->ud);
}

static char *s_strdup(const iiop_server *s, const char *p, size_t n)
{
  char *d = s_alloc(s, n + 1);
  if (d) {
    memcpy(d, p, n);
    d[n] = 0;
  }
  return d;
}

static const obj_table *objs_load(const iiop_server *s)
{
  return __atomic_load_n(&s->objs, __ATOMIC_ACQUIRE);
}

/* ---------------------------------------------------------------- options */

void iiop_server_opts_default(iiop_server_opts *o)
{
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->host = "127.0.0.1";
  o->port = 0;
  o->fragment_size = GIOP_FRAG_DEFAULT;
  o->max_message = DEFAULT_MAX_MESSAGE;
  o->max_connections = DEFAULT_MAX_CONNECTIONS;
  o->tls_cert = o->tls_key = NULL;
  o->tls_port = 0;
  o->handshake_timeout_ms = DEFAULT_HANDSHAKE_MS;
}

/* ---------------------------------------------------------------- sockets */

static int bind_socket(const char *host, uint16_t port, int *fd_out, uint16_t *port_out)
{
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  char ps[8];
  snprintf(ps, sizeof ps, "%u", (unsigned)port);
  if (getaddrinfo(host, ps, &hints, &res) != 0 || !res)
    return CDR_E_IO;
  int fd = -1;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      continue;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
      break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0)
    return CDR_E_IO;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
    close(fd);
    return CDR_E_IO;
  }
  *port_out = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);
  *fd_out = fd;
  return CDR_OK;
}

static bool is_wildcard(const char *h)
{
  return strcmp(h, "0.0.0.0") == 0 || strcmp(h, "::") == 0 || strcmp(h, "0:0:0:0:0:0:0:0") == 0;
}

/* ---------------------------------------------------------------- create / activate */

int iiop_server_new(const iiop_server_opts *opts, iiop_server **out)
{
  if (!out)
    return CDR_E_INVALID;
  iiop_server_opts o;
  if (opts)
    o = *opts;
  else
    iiop_server_opts_default(&o);
  if (!o.host || !*o.host)
    o.host = "127.0.0.1";
  if ((o.tls_cert != NULL) != (o.tls_key != NULL))
    return CDR_E_TLS;

  const cdr_allocator *al = cdr_mem_global();
  iiop_server *s = al->malloc(sizeof *s, al->ud);
  if (!s)
    return CDR_E_NOMEM;
  memset(s, 0, sizeof *s);
  s->alloc = al;
  s->lfd = s->tls_lfd = -1;
  s->wake[0] = s->wake[1] = -1;
  s->fragment_size = o.fragment_size ? o.fragment_size : GIOP_FRAG_DEFAULT;
  s->max_message = o.max_message ? o.max_message : DEFAULT_MAX_MESSAGE;
  s->max_connections = o.max_connections ? o.max_connections : DEFAULT_MAX_CONNECTIONS;
  s->handshake_ms = o.handshake_timeout_ms > 0 ? o.handshake_timeout_ms : DEFAULT_HANDSHAKE_MS;

  /* "[::1]" binds as "::1" and is written bare into IORs. */
  const char *h = o.host;
  size_t hl = strlen(h);
  if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
    h++;
    hl -= 2;
  }
  s->host = s_strdup(s, h, hl);
  if (!s->host) {
    s_free(s, s);
    return CDR_E_NOMEM;
  }
  if (is_wildcard(s->host)) {
    char hn[256];
    if (gethostname(hn, sizeof hn) != 0)
      snprintf(hn, sizeof hn, "localhost");
    hn[sizeof hn - 1] = 0;
    s->ior_host = s_strdup(s, hn, strlen(hn));
  } else {
    s->ior_host = s->host;
  }
  int rc = CDR_OK;
  if (!s->ior_host)
    rc = CDR_E_NOMEM;
  if (rc == CDR_OK)
    rc = bind_socket(s->host, o.port, &s->lfd, &s->port);
  if (rc == CDR_OK && o.tls_cert) {
    rc = iiop_tls_server_ctx(o.tls_cert, o.tls_key, &s->tls);
    if (rc == CDR_OK)
      rc = bind_socket(s->host, o.tls_port, &s->tls_lfd, &s->tls_port);
  }
  if (rc == CDR_OK && pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
    rc = CDR_E_IO;
  if (rc == CDR_OK) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    *out = s;
    return CDR_OK;
  }
  if (s->lfd >= 0)
    close(s->lfd);
  if (s->tls_lfd >= 0)
    close(s->tls_lfd);
  if (s->tls)
    iiop_tls_ctx_free(s->tls);
  if (s->wake[0] >= 0) {
    close(s->wake[0]);
    close(s->wake[1]);
  }
  if (s->ior_host != s->host)
    s_free(s, s->ior_host);
  s_free(s, s->host);
  s_free(s, s);
  return rc;
}

static bool iface_ok(const iiop_interface *f)
{
  if (!f || !f->repo_id || (!f->ops && f->nops))
    return false;
  for (uint32_t k = 0; k < f->nops; k++) {
    if (!f->ops[k].name || !f->ops[k].name[0] || !f->ops[k].fn)
      return false;
    for (uint32_t j = 0; j < k; j++)
      if (strcmp(f->ops[j].name, f->ops[k].name) == 0)
        return false;
  }
  return true;
}

static void op_put(obj *o, const char *name, uint32_t kind, iiop_op_fn fn)
{
  uint32_t len = (uint32_t)strlen(name);
  uint32_t h = hash_bytes(name, len);
  uint32_t i = h & o->op_mask;
  for (;; i = (i + 1) & o->op_mask) {
    op_slot *s = &o->ops[i];
    if (!s->name)
      break;
    if (s->len == len && memcmp(s->name, name, len) == 0)
      return; /* a user operation overrides a built-in one */
  }
  o->ops[i] = (op_slot){ name, len, h, kind, fn };
}

int iiop_server_activate(iiop_server *s, const void *key, size_t key_len,
                         const iiop_interface *iface, void *servant)
{
  if (!s || (!key && key_len) || key_len > UINT32_MAX || !iface_ok(iface))
    return CDR_E_INVALID;
  static const char *const builtin[] = { "_is_a", "_non_existent", "_not_existent" };
  static const uint32_t builtin_kind[] = { OP_IS_A, OP_NON_EXISTENT, OP_NON_EXISTENT };
  const uint32_t nb = sizeof builtin / sizeof builtin[0];
  uint32_t nslots = pow2_at_least(2 * (iface->nops + nb));
  size_t koff = (key_len + _Alignof(op_slot) - 1) & ~(_Alignof(op_slot) - 1);
  obj *o = s_alloc(s, sizeof *o + koff + (size_t)nslots * sizeof(op_slot));
  if (!o)
    return CDR_E_NOMEM;
  o->iface = iface;
  o->servant = servant;
  o->key_len = (uint32_t)key_len;
  o->key_hash = hash_bytes(key, key_len);
  if (key_len)
    memcpy(o->key, key, key_len);
  o->ops = (op_slot *)(void *)(o->key + koff);
  o->op_mask = nslots - 1;
  memset(o->ops, 0, (size_t)nslots * sizeof(op_slot));
  for (uint32_t k = 0; k < iface->nops; k++)
    op_put(o, iface->ops[k].name, OP_USER, iface->ops[k].fn);
  for (uint32_t k = 0; k < nb; k++)
    op_put(o, builtin[k], builtin_kind[k], NULL);

  pthread_mutex_lock(&s->mu);
  obj_table *old = s->objs;
  if (table_find(old, key, key_len)) {
    pthread_mutex_unlock(&s->mu);
    s_free(s, o);
    return CDR_E_INVALID;
  }
  uint32_t n = (old ? old->n : 0) + 1;
  uint32_t cap = pow2_at_least(2 * n);
  obj_table *t = s_alloc(s, sizeof *t + (size_t)cap * sizeof(obj *));
  if (!t) {
    pthread_mutex_unlock(&s->mu);
    s_free(s, o);
    return CDR_E_NOMEM;
  }
  t->mask = cap - 1;
  t->n = 0;
  t->retired = old;
  memset(t->slot, 0, (size_t)cap * sizeof(obj *));
  if (old)
    for (uint32_t k = 0; k <= old->mask; k++)
      if (old->slot[k])
        table_put(t, old->slot[k]);
  table_put(t, o);
  __atomic_store_n(&s->objs, t, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&s->mu);
  return CDR_OK;
}

uint16_t iiop_server_port(const iiop_server *s) { return s ? s->port : 0; }
uint16_t iiop_server_tls_port(const iiop_server *s) { return s && s->tls ? s->tls_port : 0; }

/* ---------------------------------------------------------------- requests */

const char *iiop_request_operation(const iiop_request *r) { return r ? r->operation : NULL; }
uint32_t iiop_request_id(const iiop_request *r) { return r ? r->request_id : 0; }
void iiop_request_set_completed(iiop_request *r, uint32_t completed)
{
  if (r && completed <= GIOP_COMPLETED_MAYBE)
    r->completed = completed;
}

/* The system exception for status ST.  ARGS, when the status is the
 * argument stream's own error, refines it into the standard minor codes:
 * a wstring with no wchar code set negotiated is BAD_PARAM 23 (CORBA 3.x
 * "Code Set Negotiation"; omniORB's BAD_PARAM_WCharTCSNotKnown), wchar
 * data in GIOP 1.0 is MARSHAL 5, an unmappable character DATA_CONVERSION 1.
 * The stream names its failure only by message, hence the prefix tests
 * (on the error path only). */
static void status_sysex(int st, const cdr_in *args, uint32_t completed, giop_system_exception *e)
{
  const char *name = cdr_status_exception(st);
  uint32_t minor = 0;
  const char *msg = args && cdr_in_status(args) == st ? cdr_in_error_message(args) : "";
  if (st == CDR_E_CODESET) {
    if (args && cdr_in_opts(args)->tcs_w == 0 && strncmp(msg, "no wchar", 8) == 0) {
      name = "BAD_PARAM";
      minor = 23;
    } else {
      minor = 1;
    }
  } else if (st == CDR_E_UNSUPPORTED && strstr(msg, "GIOP 1.0")) {
    name = "MARSHAL";
    minor = 5;
  }
  const char *id = name ? giop_system_exception_id(name) : NULL;
  e->repo_id = id ? id : giop_system_exception_id("UNKNOWN");
  e->minor = minor ? GIOP_OMGVMCID | minor : 0;
  e->completed = completed;
}

static void named_sysex(const char *name, uint32_t minor, giop_system_exception *e)
{
  e->repo_id = giop_system_exception_id(name);
  e->minor = minor ? GIOP_OMGVMCID | minor : 0;
  e->completed = GIOP_COMPLETED_NO;
}

/* The connection's reply stream, emptied, for GIOP 1.MINOR. */
static cdr_out *reply_stream(srv_conn *sc, uint8_t minor)
{
  if (sc->out_ready && sc->out_minor == minor) {
    cdr_out_reset(&sc->out);
    return &sc->out;
  }
  if (sc->out_ready)
    cdr_out_close(&sc->out);
  sc->out_ready = false;
  cdr_opts o = sc->in_opts; /* max_size: max_message, so a huge result is IMP_LIMIT */
  o.byte_order = CDR_HOST_ORDER;
  o.giop_major = 1;
  o.giop_minor = minor;
  if (cdr_out_init(&sc->out, &o) != CDR_OK)
    return NULL;
  sc->out_ready = true;
  sc->out_minor = minor;
  return &sc->out;
}

/* Patch message_size and send O; false when that failed (the connection
 * is then closed: a reply that cannot be built must not leave the client
 * waiting for it). */
static bool send_out(srv_conn *sc, cdr_out *o, uint32_t request_id)
{
  if (giop_end(o) != CDR_OK)
    return false;
  return iiop__conn_send(sc->conn, cdr_out_data(o), cdr_out_size(o), request_id) == CDR_OK;
}

/* Header-only messages (CloseConnection, MessageError) from a stack
 * buffer, so that the shutdown thread never touches the reply stream. */
static int send_bare(iiop_conn *c, uint8_t type, uint8_t minor)
{
  uint8_t b[16];
  cdr_opts op;
  cdr_opts_default(&op);
  op.giop_minor = minor;
  cdr_out o;
  cdr_out_init_buffer(&o, &op, b, sizeof b);
  if (type == GIOP_CLOSE_CONNECTION)
    giop_begin_close_connection(&o);
  else
    giop_begin_message_error(&o);
  int rc = giop_end(&o);
  if (rc == CDR_OK)
    rc = iiop__conn_send(c, b, cdr_out_size(&o), 0);
  cdr_out_close(&o);
  return rc;
}

static bool reply_sysex(srv_conn *sc, uint8_t minor, uint32_t request_id,
                        const giop_system_exception *e)
{
  cdr_out *o = reply_stream(sc, minor);
  if (!o)
    return false;
  giop_reply_header rh = { request_id, GIOP_SYSTEM_EXCEPTION, { 0, NULL } };
  giop_begin_reply(o, &rh);
  giop_begin_body(o);
  giop_put_system_exception(o, e);
  return send_out(sc, o, request_id);
}

/* Fix the connection's code sets from the first Request's contexts.
 * Returns true when they differ from what the body was parsed with. */
static bool fix_codesets(srv_conn *sc, const giop_sc_list *l)
{
  sc->cs_fixed = true;
  const giop_service_context *c = giop_sc_find(l, GIOP_SC_CODE_SETS);
  if (!c)
    return false; /* defaults: ISO-8859-1, no wchar code set */
  giop_codeset_context cs;
  if (giop_codeset_context_decode(c, &cs) != CDR_OK) {
    sc->cs_error = "MARSHAL";
    return false;
  }
  if ((cs.char_data != CDR_CS_ISO8859_1 && cs.char_data != CDR_CS_UTF8)
      || (cs.wchar_data != 0 && cs.wchar_data != CDR_CS_UTF16 && cs.wchar_data != CDR_CS_UCS2)) {
    sc->cs_error = "CODESET_INCOMPATIBLE";
    return false;
  }
  if (cs.char_data == sc->in_opts.tcs_c && cs.wchar_data == sc->in_opts.tcs_w)
    return false;
  sc->in_opts.tcs_c = cs.char_data;
  sc->in_opts.tcs_w = cs.wchar_data;
  if (sc->out_ready) {
    cdr_out_close(&sc->out);
    sc->out_ready = false;
  }
  return true;
}

static bool is_a(const obj *ob, const char *id, uint32_t len)
{
  const iiop_interface *f = ob->iface;
  if (strlen(f->repo_id) == len && memcmp(f->repo_id, id, len) == 0)
    return true;
  if (sizeof OBJECT_REPO_ID - 1 == len && memcmp(OBJECT_REPO_ID, id, len) == 0)
    return true;
  if (f->bases)
    for (const char *const *b = f->bases; *b; b++)
      if (strlen(*b) == len && memcmp(*b, id, len) == 0)
        return true;
  return false;
}

enum { ACT_CONTINUE, ACT_CLOSE };

/* Reply positions of reply_status (GIOP 1.2: after request_id; 1.0/1.1:
 * after an empty service context list and request_id). */
static size_t reply_status_pos(uint8_t minor) { return minor >= 2 ? 16 : 20; }

static int do_request(srv_conn *sc, giop_message *m)
{
  iiop_server *s = sc->s;
  const giop_request_header *h = &m->u.request;
  uint8_t minor = m->hdr.minor;
  uint32_t id = h->request_id;
  bool reply = (h->response_flags & GIOP_RESPONSE_SYNC_WITH_SERVER) != 0;
  giop_system_exception e;

  if ((h->response_flags & GIOP_RESPONSE_EXPECTED) == GIOP_RESPONSE_SYNC_WITH_SERVER) {
    /* SYNC_WITH_SERVER: acknowledge before invoking, then discard results. */
    cdr_out *o = reply_stream(sc, minor);
    if (!o)
      return ACT_CLOSE;
    giop_reply_header rh = { id, GIOP_NO_EXCEPTION, { 0, NULL } };
    giop_begin_reply(o, &rh);
    if (!send_out(sc, o, id))
      return ACT_CLOSE;
    reply = false;
  }
  if (sc->cs_error) {
    named_sysex(sc->cs_error, 0, &e);
    return !reply || reply_sysex(sc, minor, id, &e) ? ACT_CONTINUE : ACT_CLOSE;
  }
  if (h->target.disposition != GIOP_KEY_ADDR) {
    if (!reply)
      return ACT_CONTINUE;
    cdr_out *o = reply_stream(sc, minor);
    if (!o)
      return ACT_CLOSE;
    giop_reply_header rh = { id, GIOP_NEEDS_ADDRESSING_MODE, { 0, NULL } };
    giop_begin_reply(o, &rh);
    giop_begin_body(o);
    cdr_put_short(o, GIOP_KEY_ADDR);
    return send_out(sc, o, id) ? ACT_CONTINUE : ACT_CLOSE;
  }
  const obj *ob = table_find(objs_load(s), h->target.key, h->target.key_len);
  if (!ob) {
    /* OMG minor 1, as omniORB sends for a key that matches no object. */
    named_sysex("OBJECT_NOT_EXIST", 1, &e);
    return !reply || reply_sysex(sc, minor, id, &e) ? ACT_CONTINUE : ACT_CLOSE;
  }
  const op_slot *op = find_op(ob, h->operation, h->operation_len);
  if (!op) {
    /* OMG minor 2: operation or attribute not known to the target. */
    named_sysex("BAD_OPERATION", 2, &e);
    return !reply || reply_sysex(sc, minor, id, &e) ? ACT_CONTINUE : ACT_CLOSE;
  }

  cdr_out *o = reply_stream(sc, minor);
  if (!o)
    return ACT_CLOSE;
  giop_reply_header rh = { id, GIOP_NO_EXCEPTION, { 0, NULL } };
  giop_begin_reply(o, &rh);
  giop_begin_body(o);
  cdr_in *args = &m->body;
  iiop_request req = { h->operation, id, GIOP_COMPLETED_NO };
  int rc;
  switch (op->kind) {
  case OP_IS_A: {
    const char *rid;
    uint32_t rl;
    rc = cdr_get_string_view(args, &rid, &rl);
    if (rc == CDR_OK)
      cdr_put_boolean(o, is_a(ob, rid, rl));
    break;
  }
  case OP_NON_EXISTENT:
    cdr_put_boolean(o, false);
    rc = CDR_OK;
    break;
  default:
    rc = op->fn(ob->servant, &req, args, o);
    break;
  }
  if (!reply)
    return ACT_CONTINUE;

  if (rc == CDR_OK || rc == IIOP_R_USER_EXCEPTION) {
    if (rc == CDR_OK && cdr_in_status(args) != CDR_OK) {
      /* The operation ignored a failed argument read. */
      status_sysex(cdr_in_status(args), args, req.completed, &e);
    } else if (cdr_out_status(o) != CDR_OK) {
      status_sysex(cdr_out_status(o), NULL, GIOP_COMPLETED_YES, &e);
    } else {
      if (rc == IIOP_R_USER_EXCEPTION)
        cdr_out_patch_ulong(o, reply_status_pos(minor), GIOP_USER_EXCEPTION, CDR_HOST_ORDER);
      if (giop_end(o) == CDR_OK)
        return iiop__conn_send(sc->conn, cdr_out_data(o), cdr_out_size(o), id) == CDR_OK
                 ? ACT_CONTINUE : ACT_CLOSE;
      status_sysex(cdr_out_status(o), NULL, GIOP_COMPLETED_YES, &e);
    }
  } else if (rc < 0) {
    status_sysex(rc, args, req.completed, &e);
  } else {
    named_sysex("UNKNOWN", 0, &e); /* not a status an operation may return */
    e.completed = GIOP_COMPLETED_MAYBE;
  }
  return reply_sysex(sc, minor, id, &e) ? ACT_CONTINUE : ACT_CLOSE;
}

static int do_locate(srv_conn *sc, giop_message *m)
{
  const giop_locate_request_header *h = &m->u.locate_request;
  uint8_t minor = m->hdr.minor;
  cdr_out *o = reply_stream(sc, minor);
  if (!o)
    return ACT_CLOSE;
  giop_locate_reply_header rh = { h->request_id, GIOP_UNKNOWN_OBJECT };
  if (h->target.disposition != GIOP_KEY_ADDR)
    rh.locate_status = GIOP_LOC_NEEDS_ADDRESSING_MODE;
  else if (table_find(objs_load(sc->s), h->target.key, h->target.key_len))
    rh.locate_status = GIOP_OBJECT_HERE;
  giop_begin_locate_reply(o, &rh);
  if (rh.locate_status == GIOP_LOC_NEEDS_ADDRESSING_MODE)
    cdr_put_short(o, GIOP_KEY_ADDR);
  return send_out(sc, o, h->request_id) ? ACT_CONTINUE : ACT_CLOSE;
}

/* One complete message: parse, dispatch, reply. */
static int handle(srv_conn *sc, const uint8_t *msg, size_t len)
{
  cdr_arena *a = cdr_arena_get();
  if (!a)
    return ACT_CLOSE;
  giop_message m;
  int rc = giop_parse(&m, msg, len, &sc->in_opts, a);
  int act;
  if (rc == CDR_E_PROTOCOL) {
    (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, sc->minor);
    act = ACT_CLOSE;
    goto out;
  }
  sc->minor = m.hdr.minor;
  if (rc != CDR_OK && rc != CDR_E_NOMEM) {
    /* A malformed message header (MARSHAL): nothing reliable to reply to. */
    (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, sc->minor);
    act = ACT_CLOSE;
    goto out;
  }
  if (rc == CDR_E_NOMEM) {
    act = ACT_CLOSE;
    goto out;
  }
  switch (m.hdr.type) {
  case GIOP_REQUEST:
    if (!sc->cs_fixed && fix_codesets(sc, &m.u.request.contexts)) {
      /* The body must decode with the code sets this very message chose. */
      cdr_in_close(&m.body);
      rc = giop_parse(&m, msg, len, &sc->in_opts, a);
      if (rc != CDR_OK) {
        act = ACT_CLOSE;
        goto out;
      }
    }
    act = do_request(sc, &m);
    break;
  case GIOP_LOCATE_REQUEST:
    act = do_locate(sc, &m);
    break;
  case GIOP_CANCEL_REQUEST:
    /* Requests are dispatched in order on this thread, so the one named is
     * finished (its reply sent) or was never seen: nothing to do. */
    act = ACT_CONTINUE;
    break;
  case GIOP_CLOSE_CONNECTION:
  case GIOP_MESSAGE_ERROR:
    act = ACT_CLOSE;
    break;
  default: /* Reply, LocateReply: a client has no business sending them */
    (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, sc->minor);
    act = ACT_CLOSE;
    break;
  }
out:
  cdr_in_close(&m.body);
  cdr_arena_put(a);
  return act;
}

/* ---------------------------------------------------------------- connection threads */

/* Read and drop until the client closes, an error, or LINGER_MS. */
static void linger(iiop_conn *c)
{
  int64_t end = iiop__now_ms() + LINGER_MS;
  for (;;) {
    int64_t left = end - iiop__now_ms();
    if (left <= 0)
      return;
    uint8_t *msg;
    size_t len;
    if (iiop__conn_recv(c, (int)left, &msg, &len) != CDR_OK)
      return;
    iiop__conn_release(c, msg);
  }
}

static bool state_cas(srv_conn *sc, int from, int to)
{
  return __atomic_compare_exchange_n(&sc->state, &from, to, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST);
}

static void serve(srv_conn *sc)
{
  iiop_server *s = sc->s;
  iiop_conn *c = sc->conn;
  for (;;) {
    uint8_t *msg;
    size_t len;
    int rc = iiop__conn_recv(c, -1, &msg, &len);
    if (rc != CDR_OK) {
      if ((rc == CDR_E_PROTOCOL || rc == CDR_E_LIMIT)
          && !__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST))
        (void)send_bare(c, GIOP_MESSAGE_ERROR, sc->minor);
      return;
    }
    if (!state_cas(sc, CS_IDLE, CS_BUSY)) {
      /* CLOSING: shutdown sent CloseConnection while this connection was
       * idle, so the message is not processed (the client may reissue it). */
      iiop__conn_release(c, msg);
      linger(c);
      return;
    }
    int act = handle(sc, msg, len);
    iiop__conn_release(c, msg);
    __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
    if (act == ACT_CLOSE)
      return;
    if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST)) {
      /* Shutdown began while this request ran.  Whoever moves the state
       * from IDLE to CLOSING sends CloseConnection. */
      if (!state_cas(sc, CS_IDLE, CS_CLOSING)
          || send_bare(c, GIOP_CLOSE_CONNECTION, sc->minor) == CDR_OK)
        linger(c);
      return;
    }
  }
}

static void *conn_main(void *arg)
{
  srv_conn *sc = arg;
  iiop_server *s = sc->s;
  iiop_transport *t = NULL;
  iiop_conn *c = NULL;
  int rc = iiop_tcp_wrap(sc->fd, &t);
  if (rc == CDR_OK && sc->tls) {
    iiop_transport *tt = NULL;
    rc = iiop_tls_accept(s->tls, t, s->handshake_ms, &tt);
    t = rc == CDR_OK ? tt : NULL; /* taken over either way */
  }
  if (rc == CDR_OK) {
    iiop_conn_opts co = { s->fragment_size, s->max_message, SEND_TIMEOUT_MS };
    rc = iiop__conn_new(t, &co, &c);
    if (rc != CDR_OK)
      c = NULL;
  }
  pthread_mutex_lock(&s->mu);
  if (sc->ctl_fd >= 0) {
    close(sc->ctl_fd);
    sc->ctl_fd = -1;
  }
  bool run = c && !__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST);
  sc->conn = c;
  __atomic_store_n(&sc->state, run ? CS_IDLE : CS_CLOSING, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&s->mu);
  if (run)
    serve(sc);
  if (c)
    iiop__conn_shutdown(c);
  if (sc->out_ready) {
    cdr_out_close(&sc->out);
    sc->out_ready = false;
  }

  pthread_mutex_lock(&s->mu);
  __atomic_store_n(&sc->state, CS_DONE, __ATOMIC_SEQ_CST);
  if (sc->prev)
    sc->prev->next = sc->next;
  else
    s->active = sc->next;
  if (sc->next)
    sc->next->prev = sc->prev;
  sc->prev = NULL;
  sc->next = s->dead;
  s->dead = sc;
  s->nconns--;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

static void conn_free(iiop_server *s, srv_conn *sc)
{
  if (sc->conn)
    iiop__conn_free(sc->conn);
  if (sc->ctl_fd >= 0)
    close(sc->ctl_fd);
  s_free(s, sc);
}

/* Join and free the connections that ended. */
static void reap(iiop_server *s)
{
  pthread_mutex_lock(&s->mu);
  srv_conn *d = s->dead;
  s->dead = NULL;
  pthread_mutex_unlock(&s->mu);
  while (d) {
    srv_conn *n = d->next;
    pthread_join(d->thr, NULL);
    conn_free(s, d);
    d = n;
  }
}

static void start_conn(iiop_server *s, int fd, bool tls)
{
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  srv_conn *sc = s_alloc(s, sizeof *sc);
  if (!sc) {
    close(fd);
    return;
  }
  memset(sc, 0, sizeof *sc);
  sc->s = s;
  sc->fd = fd;
  sc->ctl_fd = tls ? dup(fd) : -1;
  sc->tls = tls;
  sc->state = CS_HANDSHAKE;
  sc->minor = 2;
  cdr_opts_default(&sc->in_opts);
  sc->in_opts.tcs_c = CDR_CS_ISO8859_1;
  sc->in_opts.ncs_c = CDR_CS_ISO8859_1; /* the IOR's native char code set */
  sc->in_opts.tcs_w = 0;                /* until a CodeSets context names one */
  sc->in_opts.max_size = s->max_message;

  pthread_mutex_lock(&s->mu);
  if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST) || s->nconns >= s->max_connections) {
    pthread_mutex_unlock(&s->mu);
    if (sc->ctl_fd >= 0)
      close(sc->ctl_fd);
    s_free(s, sc);
    close(fd);
    return;
  }
  sc->next = s->active;
  if (s->active)
    s->active->prev = sc;
  s->active = sc;
  s->nconns++;
  int rc = pthread_create(&sc->thr, NULL, conn_main, sc);
  if (rc != 0) {
    s->active = sc->next;
    if (sc->next)
      sc->next->prev = NULL;
    s->nconns--;
  }
  pthread_mutex_unlock(&s->mu);
  if (rc != 0) {
    if (sc->ctl_fd >= 0)
      close(sc->ctl_fd);
    s_free(s, sc);
    close(fd);
  }
}

static void *accept_main(void *arg)
{
  iiop_server *s = arg;
  struct pollfd p[3];
  int n = 0, it = -1;
  p[n].fd = s->wake[0];
  p[n++].events = POLLIN;
  p[n].fd = s->lfd;
  p[n++].events = POLLIN;
  if (s->tls_lfd >= 0) {
    it = n;
    p[n].fd = s->tls_lfd;
    p[n++].events = POLLIN;
  }
  for (;;) {
    for (int k = 0; k < n; k++)
      p[k].revents = 0;
    if (poll(p, (nfds_t)n, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (p[0].revents)
      break;
    for (int k = 1; k < n; k++) {
      if (!(p[k].revents & (POLLIN | POLLERR | POLLHUP)))
        continue;
      int fd = accept4(p[k].fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd >= 0) {
        start_conn(s, fd, k == it);
      } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        struct timespec ts = { 0, 20 * 1000000 }; /* out of descriptors: back off */
        nanosleep(&ts, NULL);
      }
    }
    reap(s);
  }
  return NULL;
}

int iiop_server_start(iiop_server *s)
{
  if (!s)
    return CDR_E_INVALID;
  pthread_mutex_lock(&s->mu);
  if (s->started || s->shutting) {
    int rc = s->started && !s->shutting ? CDR_OK : CDR_E_STATE;
    pthread_mutex_unlock(&s->mu);
    return rc;
  }
  int rc = CDR_OK;
  if (listen(s->lfd, SOMAXCONN) != 0 || (s->tls_lfd >= 0 && listen(s->tls_lfd, SOMAXCONN) != 0))
    rc = CDR_E_IO;
  else if (pthread_create(&s->accept_thr, NULL, accept_main, s) != 0)
    rc = CDR_E_NOMEM;
  else
    s->accepting = s->started = true;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

/* ---------------------------------------------------------------- shutdown */

void iiop_server_shutdown(iiop_server *s)
{
  if (!s)
    return;
  pthread_mutex_lock(&s->mu);
  if (s->shutting) {
    while (!s->shut_done)
      pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return;
  }
  s->shutting = true;
  bool accepting = s->accepting;
  pthread_mutex_unlock(&s->mu);

  /* 1. Stop accepting. */
  if (accepting) {
    char b = 1;
    while (write(s->wake[1], &b, 1) < 0 && errno == EINTR)
      ;
    pthread_join(s->accept_thr, NULL);
  }
  if (s->lfd >= 0)
    close(s->lfd);
  if (s->tls_lfd >= 0)
    close(s->tls_lfd);
  s->lfd = s->tls_lfd = -1;

  /* 2. Stop dispatching: idle connections get CloseConnection from here,
   * busy ones send it after their reply; handshakes are aborted. */
  pthread_mutex_lock(&s->mu);
  __atomic_store_n(&s->stopping, 1, __ATOMIC_SEQ_CST);
  srv_conn *idle = NULL;
  for (srv_conn *sc = s->active; sc; sc = sc->next) {
    if (__atomic_load_n(&sc->state, __ATOMIC_SEQ_CST) == CS_HANDSHAKE) {
      if (sc->ctl_fd >= 0)
        shutdown(sc->ctl_fd, SHUT_RDWR);
    } else if (sc->conn && state_cas(sc, CS_IDLE, CS_CLOSING)) {
      sc->close_next = idle;
      idle = sc;
    }
  }
  pthread_mutex_unlock(&s->mu);
  for (srv_conn *sc = idle; sc; sc = sc->close_next) {
    /* Never block shutdown on a client that does not read: send only if
     * the socket has room, else just close. */
    struct pollfd p = { sc->fd, POLLOUT, 0 };
    if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)
        || send_bare(sc->conn, GIOP_CLOSE_CONNECTION, sc->minor) != CDR_OK)
      iiop__conn_shutdown(sc->conn);
  }

  /* 3. Wait for the connection threads: clients close after
   * CloseConnection; force the ones that do not. */
  int64_t t0 = iiop__now_ms();
  bool forced_idle = false, forced_busy = false;
  pthread_mutex_lock(&s->mu);
  while (s->nconns > 0) {
    int64_t waited = iiop__now_ms() - t0;
    if (!forced_idle && waited >= LINGER_MS + 500) {
      forced_idle = true;
      for (srv_conn *sc = s->active; sc; sc = sc->next)
        if (sc->conn && __atomic_load_n(&sc->state, __ATOMIC_SEQ_CST) != CS_BUSY)
          iiop__conn_shutdown(sc->conn);
    }
    if (!forced_busy && waited >= BUSY_GRACE_MS) {
      forced_busy = true;
      for (srv_conn *sc = s->active; sc; sc = sc->next)
        if (sc->conn)
          iiop__conn_shutdown(sc->conn);
    }
    int64_t next = forced_busy ? -1 : (forced_idle ? BUSY_GRACE_MS : LINGER_MS + 500) - waited;
    if (next < 0) {
      pthread_cond_wait(&s->cv, &s->mu);
    } else {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      int64_t ns = ts.tv_nsec + (next % 1000) * 1000000;
      ts.tv_sec += (time_t)(next / 1000 + ns / 1000000000);
      ts.tv_nsec = (long)(ns % 1000000000);
      pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
  }
  pthread_mutex_unlock(&s->mu);

  /* 4. Join them. */
  reap(s);
  pthread_mutex_lock(&s->mu);
  s->shut_done = true;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

void iiop_server_free(iiop_server *s)
{
  if (!s)
    return;
  iiop_server_shutdown(s);
  obj_table *t = s->objs;
  if (t)
    for (uint32_t k = 0; k <= t->mask; k++)
      s_free(s, t->slot[k]);
  while (t) {
    obj_table *r = t->retired;
    s_free(s, t);
    t = r;
  }
  if (s->tls)
    iiop_tls_ctx_free(s->tls);
  close(s->wake[0]);
  close(s->wake[1]);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  if (s->ior_host != s->host)
    s_free(s, s->ior_host);
  s_free(s, s->host);
  s_free(s, s);
}

/* ---------------------------------------------------------------- IOR */

int iiop_server_ior(iiop_server *s, const void *key, size_t key_len, cdr_arena *a, char **out)
{
  if (!s || !a || !out || (!key && key_len) || key_len > UINT32_MAX)
    return CDR_E_INVALID;
  /* A key not (yet) active gets the generic type ID: the reference is
   * still well formed, and calls on it get OBJECT_NOT_EXIST until then. */
  const obj *ob = table_find(objs_load(s), key, key_len);
  const char *type_id = ob ? ob->iface->repo_id : OBJECT_REPO_ID;

  /* omniORB's choice: char ISO-8859-1 (conversion UTF-8), wchar UTF-16
   * (conversion UTF-16). */
  static const uint32_t cconv[] = { CDR_CS_UTF8 }, wconv[] = { CDR_CS_UTF16 };
  iiop_codeset_info ci = { { CDR_CS_ISO8859_1, 1, cconv }, { CDR_CS_UTF16, 1, wconv } };
  iiop_component comps[2];
  uint32_t n = 0;
  int rc = iiop_codeset_info_encode(&ci, CDR_HOST_ORDER, a, &comps[n++]);
  if (rc == CDR_OK && s->tls)
    /* The plain port is served too: NoProtection is supported, nothing
     * is required; no client certificates are asked for. */
    rc = iiop_ssl_component_encode(SSL_NO_PROTECTION | SSL_INTEGRITY | SSL_CONFIDENTIALITY
                                     | SSL_TRUST_IN_TARGET,
                                   0, s->tls_port, CDR_HOST_ORDER, a, &comps[n++]);
  if (rc != CDR_OK)
    return rc;
  iiop_ior ior;
  rc = iiop_ior_make(a, type_id, 1, 2, s->ior_host, s->port, key, (uint32_t)key_len, comps, n, &ior);
  if (rc != CDR_OK)
    return rc;
  return iiop_ior_to_string(&ior, CDR_HOST_ORDER, a, out);
}
