/* server.c - the server half of iiop/orb.h (OMG CORBA 3.x, Part 2, GIOP
 * and IIOP chapters): listening sockets, one accept thread, a thread per
 * connection that reads and dispatches in place, past pool_threshold an
 * epoll-driven worker pool, and the object adapter (persistent or
 * generated object key -> servant and interface, operations through a hash
 * table built once at activation).
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
 * - Pooled connections (plain TCP, accepted while pool_threshold
 *   connections have their own thread) have no thread: the accept thread
 *   wraps the socket and registers it with the pool's epoll instance
 *   (EPOLLONESHOT).  A worker that gets its event owns the connection until
 *   it re-arms it: it reads what has arrived without blocking
 *   (iiop__conn_recv with timeout 0: CDR_E_TIMEOUT once the socket is
 *   drained and no complete message is left), dispatches every complete
 *   message through the same on_message()/handle() as a connection thread
 *   (same state word, same shutdown protocol), and re-arms.  After a
 *   message it reads again only if the last read filled its buffer
 *   (iiop__conn_recv_buffered): re-arming checks readiness, so a read that
 *   would only say EAGAIN is saved.  Where a
 *   connection thread would linger after CloseConnection, a pooled
 *   connection stays registered and drops what it reads until the client
 *   closes or its linger deadline passes (shutdown forces the silent ones).
 *   A worker ends a connection by deregistering it and moving it to the
 *   dead list; nothing is joined for it.  The workers (started with the
 *   first pooled connection) stop when shutdown has ended every connection:
 *   an eventfd registered level-triggered wakes them all.
 * - Connection records are freed only by the thread that reaps them (the
 *   accept thread, or the shutdown thread once the accept thread is gone),
 *   so the shutdown thread may use any record it finds in the lists.
 *
 * Object table: readers (connection threads, pool workers) load the table
 * pointer with one load and no lock; iiop_server_activate() and
 * iiop_server_deactivate() build a new table under the mutex and publish
 * it.  A replaced table, and a deactivated object, are freed once no
 * reader can still hold them, found by epochs: a reader stores the global
 * epoch in its connection record (`epoch`, 0: not reading) before it loads
 * the table and clears it after the reply; a writer publishes, then
 * increments the epoch and tags what it retired with the new value E; an
 * item is freed once every connection's epoch is 0 or >= E.  The reader's
 * store, the reader's table load, the writer's publishing store and its
 * scan of the epochs are sequentially consistent, so a reader the scan saw
 * idle loads the new table.  Per request that is one load of the epoch
 * (read-mostly) and two stores to the connection's own record.
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
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
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

/* Pool workers at most (pool_threads beyond it is taken as this). */
#define MAX_POOL_THREADS 1024u
/* While pooled connections linger after CloseConnection, shutdown looks for
 * the ones whose linger deadline passed this often. */
#define POOL_FORCE_POLL_MS 100

/* The pool hands a connection from one worker to the next through
 * epoll_ctl(EPOLL_CTL_MOD) and epoll_wait() (EPOLLONESHOT: one owner at a
 * time); ThreadSanitizer is told so explicitly. */
#if defined(__SANITIZE_THREAD__)
#define IIOP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IIOP_TSAN 1
#endif
#endif
#ifdef IIOP_TSAN
#include <sanitizer/tsan_interface.h>
/* ThreadSanitizer's epoll_ctl() reads the descriptor's state after the
 * release (and synchronises nothing for EPOLL_CTL_MOD), so the reaper's
 * close() would look unordered with it: that read is left out. */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define HANDOFF_RELEASE(p) __tsan_release(p)
#define HANDOFF_ACQUIRE(p) __tsan_acquire(p)
#define HANDOFF_SYSCALL_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define HANDOFF_SYSCALL_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define HANDOFF_RELEASE(p) ((void)(p))
#define HANDOFF_ACQUIRE(p) ((void)(p))
#define HANDOFF_SYSCALL_BEGIN() ((void)0)
#define HANDOFF_SYSCALL_END() ((void)0)
#endif

/* Set once in every thread that dispatches requests (connection threads,
 * pool workers, of any server): iiop_server_deactivate() called from an
 * operation must not wait for requests to finish. */
static __thread int tl_dispatching;

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
  struct obj *retired_next;  /* deactivated, waiting to be freed */
  uint64_t retire_epoch;
  uint32_t key_len, key_hash;
  uint32_t op_mask;
  op_slot *ops;              /* op_mask + 1 slots, after the key */
  uint8_t key[];
} obj;

typedef struct obj_table {
  struct obj_table *retired; /* replaced tables waiting to be freed */
  uint64_t retire_epoch;
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
  uint32_t nthreaded;        /* of them, with a thread of their own (under mu) */
  srv_conn *active, *dead;

  /* The worker pool: started under mu by the accept thread, stopped by
   * shutdown once the accept thread is joined. */
  uint32_t pool_threshold, pool_threads;
  int ep, ep_stop;           /* epoll instance, the eventfd that stops the workers */
  pthread_t *workers;
  uint32_t nworkers;
  bool pool_failed;          /* could not start: connections get threads */

  obj_table *objs;           /* atomic, sequentially consistent (see the top) */
  uint64_t epoch;            /* atomic: reclamation epoch, from 1 */
  obj_table *old_tables;     /* under mu: retired tables */
  obj *old_objs;             /* under mu: deactivated objects */
  uint64_t key_counter;      /* atomic: generated keys */
  uint64_t key_seed;         /* if getrandom() fails */
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
  bool pooled;               /* served by the pool: no thread of its own */
  uint64_t epoch;            /* atomic: the epoch while dispatching, else 0 */
  int64_t linger_end;        /* atomic, pooled: drop what arrives until then (0: not yet) */
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

/* A reader's load of the table: between reader_enter() and reader_exit(). */
static const obj_table *objs_load(const iiop_server *s)
{
  return __atomic_load_n(&s->objs, __ATOMIC_SEQ_CST);
}

static void reader_enter(srv_conn *sc)
{
  uint64_t e = __atomic_load_n(&sc->s->epoch, __ATOMIC_ACQUIRE);
  __atomic_store_n(&sc->epoch, e, __ATOMIC_SEQ_CST);
}

static void reader_exit(srv_conn *sc) { __atomic_store_n(&sc->epoch, 0, __ATOMIC_RELEASE); }

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
  o->pool_threshold = 0;
  o->pool_threads = 0;
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
  s->pool_threshold = o.pool_threshold;
  if (o.pool_threads) {
    s->pool_threads = o.pool_threads;
  } else {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    s->pool_threads = nc > 0 ? (uint32_t)nc : 1;
  }
  if (s->pool_threads > MAX_POOL_THREADS)
    s->pool_threads = MAX_POOL_THREADS;
  s->ep = s->ep_stop = -1;
  s->epoch = 1;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  s->key_seed = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec)
                ^ (uint64_t)(uintptr_t)s ^ ((uint64_t)getpid() << 32);

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

/* ---------------------------------------------------------------- reclamation */

/* The smallest epoch of a reader still dispatching (UINT64_MAX: none).
 * Under mu (the active list); every reader is in it. */
static uint64_t min_reader_epoch(const iiop_server *s)
{
  uint64_t m = UINT64_MAX;
  for (const srv_conn *sc = s->active; sc; sc = sc->next) {
    uint64_t e = __atomic_load_n(&sc->epoch, __ATOMIC_SEQ_CST);
    if (e && e < m)
      m = e;
  }
  return m;
}

/* Free the retired tables and objects no reader can still hold.  Under mu. */
static void reclaim(iiop_server *s)
{
  if (!s->old_tables && !s->old_objs)
    return;
  uint64_t m = min_reader_epoch(s);
  for (obj_table **pt = &s->old_tables; *pt;) {
    obj_table *t = *pt;
    if (t->retire_epoch <= m) {
      *pt = t->retired;
      s_free(s, t);
    } else {
      pt = &t->retired;
    }
  }
  for (obj **po = &s->old_objs; *po;) {
    obj *o = *po;
    if (o->retire_epoch <= m) {
      *po = o->retired_next;
      s_free(s, o);
    } else {
      po = &o->retired_next;
    }
  }
}

/* Publish T (replacing the current table), retire the old table and GONE
 * (a deactivated object, or NULL), free what can be.  Under mu.  Returns
 * the epoch the retired items are tagged with. */
static uint64_t publish(iiop_server *s, obj_table *t, obj *gone)
{
  obj_table *old = s->objs;
  __atomic_store_n(&s->objs, t, __ATOMIC_SEQ_CST);
  uint64_t e = __atomic_add_fetch(&s->epoch, 1, __ATOMIC_SEQ_CST);
  if (old) {
    old->retire_epoch = e;
    old->retired = s->old_tables;
    s->old_tables = old;
  }
  if (gone) {
    gone->retire_epoch = e;
    gone->retired_next = s->old_objs;
    s->old_objs = gone;
  }
  reclaim(s);
  return e;
}

/* A new table with room for N objects: OLD's objects but SKIP. */
static obj_table *table_copy(iiop_server *s, const obj_table *old, uint32_t n, const obj *skip)
{
  uint32_t cap = pow2_at_least(2 * n);
  obj_table *t = s_alloc(s, sizeof *t + (size_t)cap * sizeof(obj *));
  if (!t)
    return NULL;
  t->retired = NULL;
  t->retire_epoch = 0;
  t->mask = cap - 1;
  t->n = 0;
  memset(t->slot, 0, (size_t)cap * sizeof(obj *));
  if (old)
    for (uint32_t k = 0; k <= old->mask; k++)
      if (old->slot[k] && old->slot[k] != skip)
        table_put(t, old->slot[k]);
  return t;
}

/* ---------------------------------------------------------------- activation */

static bool key_reserved(const void *key, size_t key_len)
{
  return key_len >= IIOP_GENERATED_KEY_PREFIX_LEN
         && memcmp(key, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN) == 0;
}

static int activate_key(iiop_server *s, const void *key, size_t key_len,
                        const iiop_interface *iface, void *servant)
{
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
  o->retired_next = NULL;
  o->retire_epoch = 0;
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
  obj_table *t = table_copy(s, old, (old ? old->n : 0) + 1, NULL);
  if (!t) {
    pthread_mutex_unlock(&s->mu);
    s_free(s, o);
    return CDR_E_NOMEM;
  }
  table_put(t, o);
  publish(s, t, NULL);
  pthread_mutex_unlock(&s->mu);
  return CDR_OK;
}

int iiop_server_activate(iiop_server *s, const void *key, size_t key_len,
                         const iiop_interface *iface, void *servant)
{
  if (!s || (!key && key_len) || key_len > UINT32_MAX || !iface_ok(iface)
      || key_reserved(key, key_len))
    return CDR_E_INVALID;
  return activate_key(s, key, key_len, iface, servant);
}

/* N octets for a generated key: getrandom(), or if that fails (no entropy
 * yet, no system call) a SplitMix64 sequence from the server's seed and
 * the key's counter value CTR. */
static void random_octets(const iiop_server *s, uint8_t *p, size_t n, uint64_t ctr)
{
  if (getrandom(p, n, GRND_NONBLOCK) == (ssize_t)n)
    return;
  uint64_t x = s->key_seed ^ (ctr * 0x9e3779b97f4a7c15u);
  for (size_t k = 0; k < n; k += 8) {
    x += 0x9e3779b97f4a7c15u;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    for (size_t j = 0; j < 8 && k + j < n; j++)
      p[k + j] = (uint8_t)(z >> (8 * j));
  }
}

int iiop_server_activate_generated(iiop_server *s, const iiop_interface *iface, void *servant,
                                   uint8_t *key_out, size_t *key_len)
{
  if (!s || !key_out || !key_len || !iface_ok(iface))
    return CDR_E_INVALID;
  uint8_t k[IIOP_GENERATED_KEY_LEN];
  memcpy(k, IIOP_GENERATED_KEY_PREFIX, IIOP_GENERATED_KEY_PREFIX_LEN);
  uint64_t n = __atomic_add_fetch(&s->key_counter, 1, __ATOMIC_RELAXED);
  for (int j = 0; j < 8; j++)
    k[IIOP_GENERATED_KEY_PREFIX_LEN + j] = (uint8_t)(n >> (56 - 8 * j));
  random_octets(s, k + IIOP_GENERATED_KEY_PREFIX_LEN + 8,
                IIOP_GENERATED_KEY_LEN - IIOP_GENERATED_KEY_PREFIX_LEN - 8, n);
  int rc = activate_key(s, k, sizeof k, iface, servant);
  if (rc == CDR_OK) {
    memcpy(key_out, k, sizeof k);
    *key_len = sizeof k;
  }
  return rc;
}

int iiop_server_deactivate(iiop_server *s, const void *key, size_t key_len)
{
  if (!s || (!key && key_len) || key_len > UINT32_MAX)
    return CDR_E_INVALID;
  pthread_mutex_lock(&s->mu);
  obj_table *old = s->objs;
  obj *o = (obj *)table_find(old, key, key_len);
  if (!o) {
    pthread_mutex_unlock(&s->mu);
    return CDR_E_INVALID;
  }
  obj_table *t = table_copy(s, old, old->n - 1, o);
  if (!t) {
    pthread_mutex_unlock(&s->mu);
    return CDR_E_NOMEM;
  }
  uint64_t e = publish(s, t, o);
  pthread_mutex_unlock(&s->mu);
  if (tl_dispatching)
    return CDR_OK; /* from an operation: waiting could deadlock */
  /* Wait until every request that may have found the object is done:
   * readers are not woken for this (nothing on the call path signals), so
   * poll; deactivation is rare. */
  for (int spins = 0;; spins++) {
    pthread_mutex_lock(&s->mu);
    bool done = min_reader_epoch(s) >= e;
    if (done)
      reclaim(s);
    pthread_mutex_unlock(&s->mu);
    if (done)
      return CDR_OK;
    if (spins < 16) {
      sched_yield();
    } else {
      struct timespec ts = { 0, 200 * 1000 };
      nanosleep(&ts, NULL);
    }
  }
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
  return iiop__conn_send_bare(c, type, 0, minor);
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

enum { NEXT_READ, NEXT_LINGER, NEXT_END };

/* One complete message MSG (LEN octets) read from SC's connection, given
 * back here: dispatch it unless shutdown already sent CloseConnection; if
 * shutdown began while it ran, send CloseConnection.  NEXT_READ: read the
 * next message; NEXT_LINGER: CloseConnection was sent (by whichever of this
 * thread and the shutdown thread moved the state from IDLE to CLOSING):
 * drop what still arrives until the client closes; NEXT_END: close now.
 * Shared by the connection threads and the pool's workers. */
static int on_message(srv_conn *sc, uint8_t *msg, size_t len)
{
  iiop_server *s = sc->s;
  iiop_conn *c = sc->conn;
  if (!state_cas(sc, CS_IDLE, CS_BUSY)) {
    /* CLOSING: shutdown sent CloseConnection while this connection was
     * idle, so the message is not processed (the client may reissue it). */
    iiop__conn_release(c, msg);
    return NEXT_LINGER;
  }
  reader_enter(sc);
  int act = handle(sc, msg, len);
  reader_exit(sc);
  iiop__conn_release(c, msg);
  __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
  if (act == ACT_CLOSE)
    return NEXT_END;
  if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST)) {
    /* Shutdown began while this request ran.  Whoever moves the state
     * from IDLE to CLOSING sends CloseConnection. */
    if (!state_cas(sc, CS_IDLE, CS_CLOSING)
        || send_bare(c, GIOP_CLOSE_CONNECTION, sc->minor) == CDR_OK)
      return NEXT_LINGER;
    return NEXT_END;
  }
  return NEXT_READ;
}

/* Reading failed with RC: a malformed stream gets MessageError. */
static void on_recv_error(srv_conn *sc, int rc)
{
  if ((rc == CDR_E_PROTOCOL || rc == CDR_E_LIMIT)
      && !__atomic_load_n(&sc->s->stopping, __ATOMIC_SEQ_CST))
    (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, sc->minor);
}

static void serve(srv_conn *sc)
{
  iiop_conn *c = sc->conn;
  for (;;) {
    uint8_t *msg;
    size_t len;
    int rc = iiop__conn_recv(c, -1, &msg, &len);
    if (rc != CDR_OK) {
      on_recv_error(sc, rc);
      return;
    }
    switch (on_message(sc, msg, len)) {
    case NEXT_READ:
      break;
    case NEXT_LINGER:
      linger(c);
      return;
    default:
      return;
    }
  }
}

/* The connection ended (its thread or worker is done with it): shut it
 * down and move it to the dead list, to be reaped. */
static void conn_finish(srv_conn *sc)
{
  iiop_server *s = sc->s;
  if (sc->conn)
    iiop__conn_shutdown(sc->conn);
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
  if (!sc->pooled)
    s->nthreaded--;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void *conn_main(void *arg)
{
  srv_conn *sc = arg;
  iiop_server *s = sc->s;
  iiop_transport *t = NULL;
  iiop_conn *c = NULL;
  tl_dispatching = 1;
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
  conn_finish(sc);
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
    if (!d->pooled)
      pthread_join(d->thr, NULL);
    conn_free(s, d);
    d = n;
  }
}

/* ---------------------------------------------------------------- worker pool */

/* Register SC for one event (OP: EPOLL_CTL_ADD) or re-arm it
 * (EPOLL_CTL_MOD).  After a successful call another worker may own SC:
 * the caller must not touch it again. */
static bool pool_arm(srv_conn *sc, int op)
{
  struct epoll_event ev;
  memset(&ev, 0, sizeof ev);
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
  ev.data.ptr = sc;
  int ep = sc->s->ep, fd = sc->fd;
  HANDOFF_RELEASE(sc); /* the last access to SC */
  HANDOFF_SYSCALL_BEGIN();
  int rc = epoll_ctl(ep, op, fd, &ev);
  HANDOFF_SYSCALL_END();
  return rc == 0;
}

static bool linger_over(srv_conn *sc)
{
  int64_t end = __atomic_load_n(&sc->linger_end, __ATOMIC_ACQUIRE);
  return end && iiop__now_ms() >= end;
}

/* A worker got SC's event and owns it: read what has arrived (never
 * blocking), dispatch every complete message, re-arm; or end it. */
static void pool_serve(srv_conn *sc)
{
  iiop_conn *c = sc->conn;
  uint8_t *msg;
  size_t len;
  int rc = iiop__conn_recv(c, 0, &msg, &len);
  for (;; rc = iiop__conn_recv_buffered(c, &msg, &len)) {
    if (rc == CDR_E_TIMEOUT) {
      /* No complete message is buffered and the socket had nothing more:
       * what arrives raises the event again (re-arming checks readiness,
       * so octets that came meanwhile are not missed). */
      if (!linger_over(sc) && pool_arm(sc, EPOLL_CTL_MOD))
        return;
      break;
    }
    if (rc != CDR_OK) {
      on_recv_error(sc, rc);
      break;
    }
    int next = on_message(sc, msg, len);
    if (next == NEXT_END)
      break;
    if (next == NEXT_LINGER) {
      /* As linger(): drop what the client still sends, for a while. */
      if (!__atomic_load_n(&sc->linger_end, __ATOMIC_ACQUIRE))
        __atomic_store_n(&sc->linger_end, iiop__now_ms() + LINGER_MS, __ATOMIC_RELEASE);
      else if (linger_over(sc))
        break;
    }
  }
  (void)epoll_ctl(sc->s->ep, EPOLL_CTL_DEL, sc->fd, NULL);
  conn_finish(sc);
}

static void *worker_main(void *arg)
{
  iiop_server *s = arg;
  tl_dispatching = 1;
  for (;;) {
    struct epoll_event ev;
    int n = epoll_wait(s->ep, &ev, 1, -1);
    if (n < 0 && errno != EINTR) {
      struct timespec ts = { 0, 1000000 }; /* cannot happen; do not spin if it does */
      nanosleep(&ts, NULL);
    }
    if (n <= 0)
      continue;
    srv_conn *sc = ev.data.ptr;
    if (!sc) {
      /* Stop.  The eventfd stays readable; one more write makes sure the
       * next sleeping worker is woken too. */
      uint64_t one = 1;
      ssize_t w = write(s->ep_stop, &one, sizeof one);
      (void)w;
      return NULL;
    }
    HANDOFF_ACQUIRE(sc);
    pool_serve(sc);
  }
}

/* Start the pool if it is not running.  Under mu, by the accept thread. */
static bool pool_start(iiop_server *s)
{
  if (s->nworkers)
    return true;
  if (s->pool_failed)
    return false;
  s->pool_failed = true; /* until it works: not retried on every accept */
  int ep = epoll_create1(EPOLL_CLOEXEC);
  int ef = ep >= 0 ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
  pthread_t *w = ef >= 0 ? s_alloc(s, (size_t)s->pool_threads * sizeof *w) : NULL;
  struct epoll_event ev;
  memset(&ev, 0, sizeof ev);
  ev.events = EPOLLIN; /* level-triggered: every worker sees it */
  ev.data.ptr = NULL;
  if (w && epoll_ctl(ep, EPOLL_CTL_ADD, ef, &ev) == 0) {
    s->ep = ep;
    s->ep_stop = ef;
    uint32_t n = 0;
    while (n < s->pool_threads && pthread_create(&w[n], NULL, worker_main, s) == 0)
      n++;
    if (n > 0) {
      s->workers = w;
      s->nworkers = n;
      s->pool_failed = false;
      return true;
    }
    s->ep = s->ep_stop = -1;
  }
  s_free(s, w);
  if (ef >= 0)
    close(ef);
  if (ep >= 0)
    close(ep);
  return false;
}

/* Wrap SC's socket and hand it to the pool.  Under mu; SC is not linked
 * yet.  On failure the socket is closed and SC is the caller's to free. */
static int start_pooled(iiop_server *s, srv_conn *sc)
{
  iiop_transport *t = NULL;
  iiop_conn *c = NULL;
  int rc = iiop_tcp_wrap(sc->fd, &t); /* closes the socket if it fails */
  if (rc == CDR_OK) {
    iiop_conn_opts co = { s->fragment_size, s->max_message, SEND_TIMEOUT_MS };
    rc = iiop__conn_new(t, &co, &c); /* frees T if it fails */
  }
  if (rc != CDR_OK)
    return rc;
  sc->conn = c;
  sc->pooled = true;
  __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
  sc->next = s->active;
  if (s->active)
    s->active->prev = sc;
  s->active = sc;
  s->nconns++;
  if (!pool_arm(sc, EPOLL_CTL_ADD)) {
    /* Nothing else saw it: the mutex is held. */
    s->active = sc->next;
    if (sc->next)
      sc->next->prev = NULL;
    s->nconns--;
    iiop__conn_free(c);
    sc->conn = NULL;
    return CDR_E_IO;
  }
  return CDR_OK;
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
  if (!tls && s->pool_threshold && s->nthreaded >= s->pool_threshold && pool_start(s)) {
    int prc = start_pooled(s, sc);
    pthread_mutex_unlock(&s->mu);
    if (prc != CDR_OK)
      s_free(s, sc); /* the socket is closed */
    return;
  }
  sc->next = s->active;
  if (s->active)
    s->active->prev = sc;
  s->active = sc;
  s->nconns++;
  s->nthreaded++;
  int rc = pthread_create(&sc->thr, NULL, conn_main, sc);
  if (rc != 0) {
    s->active = sc->next;
    if (sc->next)
      sc->next->prev = NULL;
    s->nconns--;
    s->nthreaded--;
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
    int64_t now = iiop__now_ms(), waited = now - t0;
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
    /* Pooled connections that linger after CloseConnection have no thread
     * of their own to time them out: force those whose time is up. */
    bool pooled = false;
    for (srv_conn *sc = s->active; sc; sc = sc->next)
      if (sc->pooled) {
        pooled = true;
        int64_t le = __atomic_load_n(&sc->linger_end, __ATOMIC_ACQUIRE);
        if (le && now >= le)
          iiop__conn_shutdown(sc->conn);
      }
    int64_t next = forced_busy ? -1 : (forced_idle ? BUSY_GRACE_MS : LINGER_MS + 500) - waited;
    if (pooled && (next < 0 || next > POOL_FORCE_POLL_MS))
      next = POOL_FORCE_POLL_MS;
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

  /* 4. Stop the pool's workers (every connection has ended), join them
   * and the connection threads. */
  if (s->nworkers) {
    uint64_t one = 1;
    while (write(s->ep_stop, &one, sizeof one) < 0 && errno == EINTR)
      ;
    for (uint32_t k = 0; k < s->nworkers; k++)
      pthread_join(s->workers[k], NULL);
  }
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
  s_free(s, t);
  while (s->old_tables) {
    obj_table *r = s->old_tables->retired;
    s_free(s, s->old_tables);
    s->old_tables = r;
  }
  while (s->old_objs) {
    obj *r = s->old_objs->retired_next;
    s_free(s, s->old_objs);
    s->old_objs = r;
  }
  if (s->ep >= 0)
    close(s->ep);
  if (s->ep_stop >= 0)
    close(s->ep_stop);
  s_free(s, s->workers);
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
  /* Not a registered reader: look up under the mutex (the interface is
   * static, so its repository ID outlives the object). */
  pthread_mutex_lock(&s->mu);
  const obj *ob = table_find(s->objs, key, key_len);
  const char *type_id = ob ? ob->iface->repo_id : OBJECT_REPO_ID;
  pthread_mutex_unlock(&s->mu);

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
