/* server.c - the server half of iiop/orb.h (OMG CORBA 3.x, Part 2, GIOP
 * and IIOP chapters): listening sockets, one accept thread, a thread per
 * connection that reads and dispatches in place, past pool_threshold an
 * epoll-driven worker pool, and shutdown.  The object adapter (object key
 * -> servant and interface) is adapter.c; turning a message into a reply,
 * with no I/O, is dispatch.c: this file reads, hands messages to the
 * dispatcher, and sends what it returns.
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
 * Every connection record is the object adapter's reader (its epoch is set
 * while a message is handled: see adapter.h) and holds the dispatcher's
 * session (code sets, reply stream).
 *
 * Steady state per call: no allocation.  The message buffer comes from the
 * connection's reassembler, the arena from the per-thread pool
 * (cdr_arena_get/put), the reply goes into the session's own output
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
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/ior.h>
#include <iiop/orb.h>
#include "adapter.h"
#include "bidir.h"
#include "connection.h"
#include "dispatch.h"
#include "internal.h"
#include "transport.h"

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

/* ---------------------------------------------------------------- the memory budget
 * Octets of request buffers over GIOP_REASM_CHARGE_ABOVE, all connections
 * together, counted in BUDGET_STRIPES counters on cache lines of their own:
 * a connection charges and uncharges its own stripe (chosen by its socket),
 * so that releases on many threads do not bounce one cache line.  A charge
 * adds first and then sums the stripes: over the budget, it takes its
 * octets back and is refused (two charges racing may both be refused; none
 * is granted past the budget).  Charges are rare: a few per large message
 * (its buffer doubles as it fills). */

#define BUDGET_STRIPES 16

typedef struct budget_stripe {
  int64_t used;              /* atomic */
  char pad[64 - sizeof(int64_t)];
} budget_stripe;

typedef struct budget_ref budget_ref;

typedef struct budget {
  budget_stripe st[BUDGET_STRIPES];
  int64_t max;
  int64_t peak;              /* atomic: the largest sum a granted charge saw */
  /* The connections waiting for the budget (budget_stuck(); only a wait
   * takes the lock, never a charge): */
  pthread_mutex_t wmu;
  budget_ref *waiters;       /* under wmu: a list */
  int64_t wheld;             /* under wmu: what the waiters held as they began */
  uint64_t wseq;             /* under wmu: waits begun */
  int nvictim;               /* under wmu: waiters told to give way, not yet gone */
} budget;

struct budget_ref {
  budget *b;
  budget_stripe *st;
  int64_t held;              /* atomic: octets this connection holds charged */
  int64_t need;              /* its last refused charge (its reader's only) */
  budget_ref *wnext;         /* under wmu: the next waiter */
  int64_t wheld;             /* under wmu: held when its wait began */
  uint64_t wseq;             /* under wmu: when its wait began (larger: newer) */
  bool waiting, victim;      /* under wmu */
};

static int64_t budget_used(budget *b)
{
  int64_t n = 0;
  for (int k = 0; k < BUDGET_STRIPES; k++)
    n += __atomic_load_n(&b->st[k].used, __ATOMIC_RELAXED);
  return n;
}

static int budget_charge(void *ud, size_t n)
{
  budget_ref *r = ud;
  budget *b = r->b;
  if ((uint64_t)n > (uint64_t)b->max)
    return CDR_E_LIMIT;
  __atomic_add_fetch(&r->st->used, (int64_t)n, __ATOMIC_ACQ_REL);
  int64_t sum = budget_used(b);
  if (sum > b->max) {
    __atomic_sub_fetch(&r->st->used, (int64_t)n, __ATOMIC_ACQ_REL);
    __atomic_store_n(&r->need, (int64_t)n, __ATOMIC_RELAXED);
    return CDR_E_LIMIT;
  }
  __atomic_add_fetch(&r->held, (int64_t)n, __ATOMIC_RELAXED);
  int64_t pk = __atomic_load_n(&b->peak, __ATOMIC_RELAXED);
  while (sum > pk && !__atomic_compare_exchange_n(&b->peak, &pk, sum, true, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED))
    ;
  return CDR_OK;
}

static void budget_uncharge(void *ud, size_t n)
{
  budget_ref *r = ud;
  __atomic_sub_fetch(&r->held, (int64_t)n, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&r->st->used, (int64_t)n, __ATOMIC_ACQ_REL);
}

static void waiter_unlink(budget *b, budget_ref *r)
{
  budget_ref **p = &b->waiters;
  while (*p != r)
    p = &(*p)->wnext;
  *p = r->wnext;
  b->wheld -= r->wheld;
  if (r->victim)
    b->nvictim--;
  r->waiting = r->victim = false;
}

/* The connection of R waits for the budget (WAITING 1: at each retry) or
 * no longer does (0); iiop_conn_opts.stuck.  Nonzero: give way, refuse the
 * message now.
 *
 * No charge can be given back when every octet charged is held by a
 * waiting connection (the others hold none: nothing is being dispatched or
 * still arriving, which would end and uncharge) and no waiter's last
 * refused charge fits in what is left: each waits for another, and all
 * would wait out message_timeout_ms.  Then one waiter is told to give way:
 * the one holding the most (of equals, the newest), as refusing it frees
 * the most, so the fewest are refused before the rest can go on.  One at a
 * time: the next is chosen, if still needed, only after it has gone (and
 * its message's charge with it, iiop__conn_skip()).  A waiter whose charge
 * fits is never told: it is granted at its next retry. */
static int budget_stuck(void *ud, int waiting)
{
  budget_ref *r = ud;
  budget *b = r->b;
  int give_way = 0;
  pthread_mutex_lock(&b->wmu);
  if (!waiting) {
    if (r->waiting)
      waiter_unlink(b, r);
    pthread_mutex_unlock(&b->wmu);
    return 0;
  }
  if (!r->waiting) {
    r->waiting = true;
    r->wheld = __atomic_load_n(&r->held, __ATOMIC_RELAXED);
    r->wseq = ++b->wseq;
    r->wnext = b->waiters;
    b->waiters = r;
    b->wheld += r->wheld;
  }
  int64_t used = budget_used(b);
  if (b->nvictim == 0 && used > 0 && used <= b->wheld) {
    budget_ref *v = NULL;
    bool fits = false;
    for (budget_ref *q = b->waiters; q; q = q->wnext) {
      if (__atomic_load_n(&q->need, __ATOMIC_RELAXED) <= b->max - used)
        fits = true;
      if (!v || q->wheld > v->wheld || (q->wheld == v->wheld && q->wseq > v->wseq))
        v = q;
    }
    if (!fits && v->wheld > 0) {
      v->victim = true;
      b->nvictim++;
    }
  }
  if (r->victim) {
    give_way = 1;
    waiter_unlink(b, r);
  }
  pthread_mutex_unlock(&b->wmu);
  return give_way;
}

/* ---------------------------------------------------------------- server state */

enum { CS_HANDSHAKE, CS_IDLE, CS_BUSY, CS_CLOSING, CS_DONE };

/* The counters of iiop_server_stats, each atomic (relaxed: they count
 * rare events, never a call). */
enum {
  ST_ACCEPTED, ST_REFUSED, ST_EVICTED, ST_T_HEADER, ST_T_MESSAGE, ST_T_IDLE, ST_T_HANDSHAKE,
  ST_L_MESSAGE, ST_L_PROTOCOL, ST_L_BUDGET, ST_L_BUDGET_CLOSED, ST_L_ARGS, ST_N
};

typedef struct srv_conn srv_conn;

struct iiop_server {
  const cdr_allocator *alloc;      /* opts.alloc, or the global one */
  const cdr_allocator *conn_alloc; /* opts.alloc as given: reply streams (NULL: libcdr's
                                    * pooled buffers) */
  char *host;                /* listen address, brackets stripped */
  char *ior_host;            /* what IORs carry (the host name for a wildcard) */
  size_t fragment_size;
  iiop_limits lim;           /* resolved: no field 0 */
  int scan_ms;               /* how often the accept thread looks for timeouts */
  int lfd, tls_lfd;
  uint16_t port, tls_port;
  iiop_tls_ctx *tls;
  int wake[2];
  int reap_fd;               /* eventfd: a connection ended, reap it now */
  budget bud;
  uint64_t stats[ST_N];      /* atomic */

  pthread_mutex_t mu;
  pthread_cond_t cv;         /* a connection ended; shutdown finished */
  pthread_t accept_thr;
  bool accepting;            /* accept thread running */
  bool started, shutting, shut_done;
  int stopping;              /* atomic: connections must stop dispatching */
  uint32_t nconns;           /* connections in the active list */
  uint32_t ndead;            /* under mu: ended connections not yet freed (their
                              * buffers, and budget charges, still held) */
  uint32_t ndoomed;          /* of them, evicted (closing; under mu) */
  uint32_t nthreaded;        /* of them, with a thread of their own (under mu) */
  srv_conn *active, *dead;
  iiop__adapter ad;          /* the objects */

  /* The worker pool: started under mu by the accept thread, stopped by
   * shutdown once the accept thread is joined. */
  uint32_t pool_threshold, pool_threads;
  bool batch_replies;        /* opts.batch_replies */
  int ep, ep_stop;           /* epoll instance, the eventfd that stops the workers */
  pthread_t *workers;
  uint32_t nworkers;
  bool pool_failed;          /* could not start: connections get threads */
  iiop__icpt icpt;           /* interceptors (entries written under mu) */
  int tls_verify;            /* IIOP_TLS_VERIFY_*: what IORs say of client certificates */
  uint64_t tls_hs_failed;    /* atomic: iiop_server_stats.tls_handshake_failures */
  pthread_mutex_t tls_err_mu;/* tls_err */
  char tls_err[IIOP_SERVER_ERROR_MAX]; /* the last failed handshake's reason ("" none) */
  iiop__bidir_set *bidir;    /* accept_bidir: the bidirectional connections (bidir.h) */
  uint64_t bstats[2];        /* atomic: bidir_connections, bidir_refused */

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
  int64_t linger_end;        /* atomic, pooled: drop what arrives until then (0: not yet) */
  srv_conn *close_next;
  uint32_t nmsg;             /* atomic (one writer: the reader): messages read */
  /* The accept thread's own (it times connections and picks victims): */
  uint32_t seen_nmsg;        /* nmsg at the last look */
  int seen_phase;            /* GIOP_REASM_* (or -1) at the last look */
  int64_t since;             /* when that phase began (first seen), ms */
  bool doomed;               /* evicted or timed out: closing (under mu) */
  int act;                   /* what scan() does to it (ACT_*) */
  budget_ref bref;           /* its stripe of the budget */
  char *peer_subject;        /* the verified client certificate's subject, or NULL */
  iiop__session sess;        /* dispatch state; its reader is registered while the
                              * record is in the active list */
  uint8_t *batch;            /* not pooled: replies held back while more requests of one
                              * read wait (BATCH_MAX octets, allocated at first use) */
  size_t nbatch;             /* octets in it */
  bool held_busy;            /* replies are held: the state stays CS_BUSY between them */
  cdr_arena *arena;          /* not pooled: the request arena, kept reset between calls
                              * (the thread's arena cache would hold it anyway), NULL
                              * when none; given back when the connection ends */
  iiop__bidir_conn *bd;      /* bidirectional (its connection thread's own), or NULL */
};

/* Put SC into the active list, its reader into the adapter's.  Under mu. */
static void link_active(iiop_server *s, srv_conn *sc)
{
  iiop__adapter_reader_add(&s->ad, &sc->sess.reader);
  sc->prev = NULL;
  sc->next = s->active;
  if (s->active)
    s->active->prev = sc;
  s->active = sc;
  s->nconns++;
  if (!sc->pooled)
    s->nthreaded++;
}

/* Take SC out of the active list (and its reader out of the adapter's).
 * Under mu. */
static void unlink_active(iiop_server *s, srv_conn *sc)
{
  if (sc->prev)
    sc->prev->next = sc->next;
  else
    s->active = sc->next;
  if (sc->next)
    sc->next->prev = sc->prev;
  sc->prev = sc->next = NULL;
  s->nconns--;
  if (sc->doomed)
    s->ndoomed--;
  if (!sc->pooled)
    s->nthreaded--;
  iiop__adapter_reader_remove(&s->ad, &sc->sess.reader);
}

/* ---------------------------------------------------------------- options */

void iiop_server_opts_default(iiop_server_opts *o)
{
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->host = "127.0.0.1";
  o->port = 0;
  o->fragment_size = 0;              /* whole up to GIOP_WHOLE_DEFAULT */
  iiop_limits_default(&o->limits);
  o->max_message = o->limits.max_message;
  o->max_connections = o->limits.max_connections;
  o->tls_cert = o->tls_key = NULL;
  o->tls_port = 0;
  o->tls_policy = IIOP_TLS_ALLOWED;
  o->tls_key_password = o->tls_ca_file = NULL;
  o->tls_verify_clients = IIOP_TLS_VERIFY_NONE;
  o->why = NULL;
  o->why_cap = 0;
  o->handshake_timeout_ms = o->limits.handshake_timeout_ms;
  o->pool_threshold = 0;
  o->pool_threads = 0;
}

/* The server's limits from O: a field of the older names (max_message,
 * max_connections, handshake_timeout_ms) that differs from its default was
 * set by the caller and wins; 0 anywhere is the default. */
static void resolve_limits(const iiop_server_opts *o, iiop_limits *l)
{
  iiop_limits d;
  iiop_limits_default(&d);
  *l = o->limits;
  if (o->max_message && o->max_message != d.max_message)
    l->max_message = o->max_message;
  if (o->max_connections && o->max_connections != d.max_connections)
    l->max_connections = o->max_connections;
  if (o->handshake_timeout_ms > 0 && o->handshake_timeout_ms != d.handshake_timeout_ms)
    l->handshake_timeout_ms = o->handshake_timeout_ms;
  iiop__limits_fill(l, &d);
  /* A message the budget can never take is refused at its header. */
  if (l->max_message > l->max_in_flight)
    l->max_message = l->max_in_flight < GIOP_REASM_CHARGE_ABOVE ? GIOP_REASM_CHARGE_ABOVE
                                                                : l->max_in_flight;
}

static void count(iiop_server *s, int k) { __atomic_add_fetch(&s->stats[k], 1, __ATOMIC_RELAXED); }

/* The options of SC's connection. */
static void conn_opts(iiop_server *s, srv_conn *sc, iiop_conn_opts *co)
{
  memset(co, 0, sizeof *co);
  co->fragment_size = s->fragment_size;
  co->max_message = s->lim.max_message;
  co->max_fragmented = s->lim.max_fragmented;
  co->send_timeout_ms = SEND_TIMEOUT_MS;
  co->alloc = s->alloc;
  co->charge = budget_charge;
  co->uncharge = budget_uncharge;
  co->stuck = budget_stuck;
  co->charge_ud = &sc->bref;
  co->budget_wait_ms = s->lim.message_timeout_ms;
}

/* ---------------------------------------------------------------- sockets */

/* A socket bound to HOST:PORT (PORT 0: a free one): *FD_OUT, its port
 * *PORT_OUT.  CDR_E_IO when HOST does not resolve or no address of it can
 * be bound; then WHY (WHY_CAP octets; NULL: none) says why, e.g. "bind to
 * 127.0.0.1:2809: Address already in use". */
static int bind_socket(const char *host, uint16_t port, int *fd_out, uint16_t *port_out,
                       char *why, size_t why_cap)
{
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  char ps[8];
  snprintf(ps, sizeof ps, "%u", (unsigned)port);
  int g = getaddrinfo(host, ps, &hints, &res);
  if (g != 0 || !res) {
    if (why)
      snprintf(why, why_cap, "host %s: %s", host ? host : "(any)",
               g == EAI_SYSTEM ? strerror(errno) : g ? gai_strerror(g) : "no address");
    return CDR_E_IO;
  }
  int fd = -1, err = 0;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      err = errno;
      continue;
    }
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
      break;
    err = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd < 0) {
    if (why)
      snprintf(why, why_cap, "bind to %s:%u: %s", host ? host : "(any)", (unsigned)port,
               err ? strerror(err) : "failed");
    return CDR_E_IO;
  }
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

static int bidir_accept_init(iiop_server *s);

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
  char *why = o.why && o.why_cap ? o.why : NULL;
  size_t why_cap = why ? o.why_cap : 0;
  if (why)
    why[0] = 0;
  if ((o.tls_cert != NULL) != (o.tls_key != NULL)) {
    if (why)
      snprintf(why, why_cap, "TLS: tls_cert and tls_key go together (one of them is NULL)");
    return CDR_E_TLS;
  }
  if (o.tls_policy != IIOP_TLS_ALLOWED && o.tls_policy != IIOP_TLS_OFF
      && o.tls_policy != IIOP_TLS_REQUIRED) {
    if (why)
      snprintf(why, why_cap, "unknown tls_policy %d", o.tls_policy);
    return CDR_E_INVALID;
  }
  if (o.tls_verify_clients != IIOP_TLS_VERIFY_NONE && o.tls_verify_clients != IIOP_TLS_VERIFY_PEER
      && o.tls_verify_clients != IIOP_TLS_VERIFY_PEER_FAIL) {
    if (why)
      snprintf(why, why_cap, "unknown tls_verify_clients %d", o.tls_verify_clients);
    return CDR_E_INVALID;
  }
  if (o.tls_policy == IIOP_TLS_REQUIRED && !o.tls_cert) {
    if (why)
      snprintf(why, why_cap, "TLS: IIOP_TLS_REQUIRED without tls_cert and tls_key");
    return CDR_E_TLS;
  }
  if (o.tls_policy == IIOP_TLS_OFF)
    o.tls_cert = o.tls_key = NULL;

  const cdr_allocator *al = iiop__alloc_or_global(o.alloc);
  iiop_server *s = iiop__malloc(al, sizeof *s);
  if (!s)
    return CDR_E_NOMEM;
  memset(s, 0, sizeof *s);
  s->alloc = al;
  s->conn_alloc = o.alloc;
  s->lfd = s->tls_lfd = -1;
  s->wake[0] = s->wake[1] = -1;
  s->reap_fd = -1;
  s->fragment_size = o.fragment_size; /* 0: whole up to GIOP_WHOLE_DEFAULT */
  resolve_limits(&o, &s->lim);
  s->bud.max = (int64_t)s->lim.max_in_flight;
  int least = s->lim.header_timeout_ms;
  if (s->lim.message_timeout_ms < least)
    least = s->lim.message_timeout_ms;
  if (s->lim.idle_timeout_ms < least)
    least = s->lim.idle_timeout_ms;
  s->scan_ms = least / 8 < 20 ? 20 : least / 8 > 1000 ? 1000 : least / 8;
  s->pool_threshold = o.pool_threshold;
  s->batch_replies = o.batch_replies != 0;
  if (o.pool_threads) {
    s->pool_threads = o.pool_threads;
  } else {
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    s->pool_threads = nc > 0 ? (uint32_t)nc : 1;
  }
  if (s->pool_threads > MAX_POOL_THREADS)
    s->pool_threads = MAX_POOL_THREADS;
  s->ep = s->ep_stop = -1;

  /* "[::1]" binds as "::1" and is written bare into IORs. */
  const char *h = o.host;
  size_t hl = strlen(h);
  if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
    h++;
    hl -= 2;
  }
  s->host = iiop__strndup(al, h, hl);
  if (!s->host) {
    iiop__free(al, s);
    return CDR_E_NOMEM;
  }
  if (is_wildcard(s->host)) {
    char hn[256];
    if (gethostname(hn, sizeof hn) != 0)
      snprintf(hn, sizeof hn, "localhost");
    hn[sizeof hn - 1] = 0;
    s->ior_host = iiop__strndup(al, hn, strlen(hn));
  } else {
    s->ior_host = s->host;
  }
  int rc = CDR_OK;
  if (!s->ior_host)
    rc = CDR_E_NOMEM;
  if (rc == CDR_OK && o.tls_policy != IIOP_TLS_REQUIRED)
    rc = bind_socket(s->host, o.port, &s->lfd, &s->port, why, why_cap);
  if (rc == CDR_OK && o.tls_cert) {
    iiop__tls_conf cf = { .ca_file = o.tls_ca_file, .verify = o.tls_verify_clients,
                          .cert_file = o.tls_cert, .key_file = o.tls_key,
                          .key_password = o.tls_key_password };
    rc = iiop__tls_ctx_new(1, &cf, al, &s->tls, why, why_cap);
    s->tls_verify = o.tls_verify_clients;
    if (rc == CDR_OK)
      rc = bind_socket(s->host, o.tls_port, &s->tls_lfd, &s->tls_port, why, why_cap);
  }
  if (rc == CDR_OK && pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
    rc = CDR_E_IO;
  if (rc == CDR_OK && (s->reap_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
    rc = CDR_E_IO;
  if (rc == CDR_OK) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->tls_err_mu, NULL);
    pthread_mutex_init(&s->bud.wmu, NULL);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    iiop__adapter_init(&s->ad, al);
    if (o.accept_bidir && bidir_accept_init(s) != CDR_OK) {
      iiop_server_free(s);
      return CDR_E_NOMEM;
    }
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
  if (s->reap_fd >= 0)
    close(s->reap_fd);
  if (s->ior_host != s->host)
    iiop__free(al, s->ior_host);
  iiop__free(al, s->host);
  iiop__free(al, s);
  if (why && !why[0])
    snprintf(why, why_cap, "%s", cdr_strerror(rc));
  return rc;
}

size_t iiop_server_tls_last_error(iiop_server *s, char *buf, size_t cap)
{
  if (!s) {
    if (buf && cap)
      buf[0] = 0;
    return 0;
  }
  pthread_mutex_lock(&s->tls_err_mu);
  size_t n = strlen(s->tls_err);
  if (buf && cap)
    snprintf(buf, cap, "%s", s->tls_err);
  pthread_mutex_unlock(&s->tls_err_mu);
  return n;
}

/* "HOST:PORT" of socket FD's peer (numeric; "?" when unknown) into BUF. */
static void peer_text(int fd, char *buf, size_t cap)
{
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char h[IIOP_PEER_HOST_MAX];
  snprintf(buf, cap, "?");
  if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
    return;
  if (ss.ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
    if (inet_ntop(AF_INET, &a->sin_addr, h, sizeof h))
      snprintf(buf, cap, "%s:%u", h, (unsigned)ntohs(a->sin_port));
  } else if (ss.ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
    if (inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof h))
      snprintf(buf, cap, "[%s]:%u", h, (unsigned)ntohs(a->sin6_port));
  }
}

/* A TLS handshake from PEER ("HOST:PORT") failed with RC (WHY: the reason). */
static void tls_failed(iiop_server *s, const char *peer, int rc, const char *why)
{
  if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST))
    return;                          /* aborted by shutdown: not the client's failure */
  if (rc != CDR_E_TIMEOUT)
    __atomic_add_fetch(&s->tls_hs_failed, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&s->tls_err_mu);
  snprintf(s->tls_err, sizeof s->tls_err, "TLS handshake from %s: %s", peer,
           why[0] ? why : cdr_strerror(rc));
  pthread_mutex_unlock(&s->tls_err_mu);
}

/* ---------------------------------------------------------------- activation */

int iiop_server_activate(iiop_server *s, const void *key, size_t key_len,
                         const iiop_interface *iface, void *servant)
{
  return s ? iiop__adapter_activate(&s->ad, key, key_len, iface, servant) : CDR_E_INVALID;
}

int iiop_server_activate_generated(iiop_server *s, const iiop_interface *iface, void *servant,
                                   uint8_t *key_out, size_t *key_len)
{
  return s ? iiop__adapter_activate_generated(&s->ad, iface, servant, key_out, key_len)
           : CDR_E_INVALID;
}

int iiop_server_deactivate(iiop_server *s, const void *key, size_t key_len)
{
  return s ? iiop__adapter_deactivate(&s->ad, key, key_len) : CDR_E_INVALID;
}

int iiop_server_stats_get(iiop_server *s, iiop_server_stats *st)
{
  if (!s || !st)
    return CDR_E_INVALID;
  memset(st, 0, sizeof *st);
  uint64_t v[ST_N];
  for (int k = 0; k < ST_N; k++)
    v[k] = __atomic_load_n(&s->stats[k], __ATOMIC_RELAXED);
  st->accepted = v[ST_ACCEPTED];
  st->refused = v[ST_REFUSED];
  st->evicted = v[ST_EVICTED];
  st->timeout_header = v[ST_T_HEADER];
  st->timeout_message = v[ST_T_MESSAGE];
  st->timeout_idle = v[ST_T_IDLE];
  st->timeout_handshake = v[ST_T_HANDSHAKE];
  st->limit_message = v[ST_L_MESSAGE];
  st->limit_protocol = v[ST_L_PROTOCOL];
  st->limit_budget = v[ST_L_BUDGET];
  st->limit_budget_closed = v[ST_L_BUDGET_CLOSED];
  st->limit_args = v[ST_L_ARGS];
  pthread_mutex_lock(&s->mu);
  st->open = s->nconns + s->ndead;  /* an ended one counts until its buffers are freed */
  pthread_mutex_unlock(&s->mu);
  /* A charge adds its octets before it sums the stripes and takes them
   * back when refused: a sum over the budget is such a charge being tried
   * (the granted ones never pass it), not memory held. */
  int64_t used = budget_used(&s->bud);
  if (used > s->bud.max)
    used = s->bud.max;
  st->in_flight = used > 0 ? (uint64_t)used : 0;
  st->in_flight_peak = (uint64_t)__atomic_load_n(&s->bud.peak, __ATOMIC_RELAXED);
  st->in_flight_max = (uint64_t)s->bud.max;
  st->tls_handshake_failures = __atomic_load_n(&s->tls_hs_failed, __ATOMIC_RELAXED);
  st->bidir_connections = __atomic_load_n(&s->bstats[0], __ATOMIC_RELAXED);
  st->bidir_refused = __atomic_load_n(&s->bstats[1], __ATOMIC_RELAXED);
  return CDR_OK;
}

int iiop_server_add_interceptor(iiop_server *s, const iiop_server_interceptor *ic, void *ud)
{
  if (!s || !ic)
    return CDR_E_INVALID;
  pthread_mutex_lock(&s->mu);
  unsigned n = s->icpt.n;
  int rc = CDR_E_LIMIT;
  if (n < IIOP_INTERCEPTORS_MAX) {
    s->icpt.ic[n] = *ic;
    s->icpt.ud[n] = ud;
    __atomic_store_n(&s->icpt.n, n + 1, __ATOMIC_RELEASE);
    rc = CDR_OK;
  }
  pthread_mutex_unlock(&s->mu);
  return rc;
}

uint16_t iiop_server_port(const iiop_server *s) { return s ? s->port : 0; }
uint16_t iiop_server_tls_port(const iiop_server *s) { return s && s->tls ? s->tls_port : 0; }

/* ---------------------------------------------------------------- messages */

enum { ACT_CONTINUE, ACT_CLOSE };

/* A connection thread keeps its request arena between calls while a call
 * used no more than this of it. */
#define KEEP_ARENA_MAX ((size_t)65536)

/* Header-only messages (CloseConnection, MessageError) from a stack
 * buffer, so that the shutdown thread never touches the reply stream. */
static int send_bare(iiop_conn *c, uint8_t type, uint8_t minor)
{
  return iiop__conn_send_bare(c, type, 0, minor);
}

/* Replies a connection thread holds back, copied, while further complete
 * requests of the same read wait: they go out together in one gather write
 * with the reply of the last request of the batch (one write instead of one
 * per reply).  Only replies that need no fragmenting and fit are held. */
#define BATCH_MAX ((size_t)8192)

/* Write the held replies, then R's reply (NULL: none) in the same gather
 * write; false when that failed (the connection is then closed). */
static __attribute__((noinline)) bool send_held(srv_conn *sc, const iiop__reply *r)
{
  struct iovec v[CDR_OUT_IOV_MAX];
  int n = 0;
  size_t len = 0;
  if (r && r->len) {
    if (r->out && cdr_out_nrefs(r->out)) {
      n = cdr_out_iov(r->out, v, CDR_OUT_IOV_MAX);
      len = cdr_out_total(r->out);
    } else {
      v[0].iov_base = (void *)r->msg;
      v[0].iov_len = r->len;
      n = 1;
      len = r->len;
    }
  }
  size_t nb = sc->nbatch;
  sc->nbatch = 0;
  if (n < 0)
    return false;
  return iiop__conn_send_batch(sc->conn, sc->batch, nb, v, n, len, r ? r->request_id : 0)
         == CDR_OK;
}

/* R's reply held back (copied after the held ones): true, or false when it
 * cannot be (the caller sends it now, with those held). */
static __attribute__((noinline)) bool hold_reply(srv_conn *sc, const iiop__reply *r)
{
  size_t frag = sc->s->fragment_size ? sc->s->fragment_size : GIOP_FRAG_DEFAULT;
  if (r->len > BATCH_MAX - sc->nbatch || r->len > frag)
    return false;
  if (!sc->batch) {
    sc->batch = iiop__malloc(sc->s->alloc, BATCH_MAX);
    if (!sc->batch)
      return false;
  }
  if (r->out && cdr_out_nrefs(r->out)) {
    struct iovec v[CDR_OUT_IOV_MAX];
    int n = cdr_out_iov(r->out, v, CDR_OUT_IOV_MAX);
    if (n < 0 || cdr_out_total(r->out) != r->len)
      return false;
    for (int k = 0; k < n; k++) {
      memcpy(sc->batch + sc->nbatch, v[k].iov_base, v[k].iov_len);
      sc->nbatch += v[k].iov_len;
    }
  } else {
    memcpy(sc->batch + sc->nbatch, r->msg, r->len);
    sc->nbatch += r->len;
  }
  return true;
}

/* Send R (if any) now, after the replies held (send_held()); false when
 * that failed (the connection is then closed: part of a reply may be out). */
static bool send_reply_now(srv_conn *sc, const iiop__reply *r)
{
  if (r->len == 0)
    return true;
  if (__builtin_expect(sc->nbatch != 0, 0))
    return send_held(sc, r);
  if (r->out && cdr_out_nrefs(r->out))
    return iiop__conn_send_out(sc->conn, r->out, r->request_id) == CDR_OK;
  return iiop__conn_send(sc->conn, r->msg, r->len, r->request_id) == CDR_OK;
}

/* As send_reply_now(), but with opts.batch_replies a connection thread
 * holds R back while another complete request is already buffered
 * (hold_reply()). */
static bool send_reply(srv_conn *sc, const iiop__reply *r)
{
  if (r->len == 0)
    return true;
  if (__builtin_expect(iiop__conn_more(sc->conn) || sc->nbatch, 0) && !sc->pooled) {
    if (sc->s->batch_replies && iiop__conn_more(sc->conn) && hold_reply(sc, r))
      return true;
    return send_held(sc, r);
  }
  if (r->out && cdr_out_nrefs(r->out))
    return iiop__conn_send_out(sc->conn, r->out, r->request_id) == CDR_OK;
  return iiop__conn_send(sc->conn, r->msg, r->len, r->request_id) == CDR_OK;
}

/* One complete message: dispatch it, send what the dispatcher returns. */
static int handle(srv_conn *sc, const uint8_t *msg, size_t len)
{
  cdr_arena *a = sc->arena;
  sc->arena = NULL;
  if (!a)
    a = cdr_arena_get();
  if (!a)
    return ACT_CLOSE;
  giop_message m;
  iiop__reply r;
  int next = iiop__dispatch(&sc->sess, msg, len, a, &m, &r);
  /* The SYNC_WITH_SERVER acknowledgement goes out before the invocation. */
  if (next == IIOP__D_ACK)
    next = send_reply_now(sc, &r) ? iiop__dispatch_resume(&sc->sess, &m, &r) : IIOP__D_CLOSE;
  if (next == IIOP__D_CONTINUE && !send_reply(sc, &r))
    next = IIOP__D_CLOSE;
  else if (next == IIOP__D_ERROR && (!sc->nbatch || send_held(sc, NULL)))
    (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, sc->sess.minor);
  /* M goes out of scope: only a stream holding an extension (a reference
   * to release) needs closing, the rest of cdr_in_close() is its state. */
  if (__builtin_expect(m.body.ext != NULL, 0))
    cdr_in_close(&m.body);
  if (!sc->pooled && cdr_arena_used(a) <= KEEP_ARENA_MAX) {
    /* A connection thread keeps its arena for the next request (a
     * get and a put a call less); one a request grew large goes back,
     * where the pool trims or frees it. */
    cdr_arena_reset(a);
    sc->arena = a;
  } else {
    cdr_arena_put(a);
  }
  return next == IIOP__D_CONTINUE ? ACT_CONTINUE : ACT_CLOSE;
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
 * MSG stays the caller's to give back (iiop__conn_release(), or a
 * connection thread's next iiop__conn_recv_next()).  Shared by the
 * connection threads and the pool's workers. */
static int on_message(srv_conn *sc, uint8_t *msg, size_t len)
{
  iiop_server *s = sc->s;
  iiop_conn *c = sc->conn;
  /* One writer: a plain increment, seen by the accept thread's timing. */
  __atomic_store_n(&sc->nmsg, sc->nmsg + 1, __ATOMIC_RELAXED);
  if (sc->held_busy)
    sc->held_busy = false;          /* still CS_BUSY from the request before */
  else if (!state_cas(sc, CS_IDLE, CS_BUSY)) {
    /* CLOSING: shutdown sent CloseConnection while this connection was
     * idle, so the message is not processed (the client may reissue it). */
    return NEXT_LINGER;
  }
  iiop__reader_enter(&s->ad, &sc->sess.reader);
  int act = handle(sc, msg, len);
  iiop__reader_exit(&sc->sess.reader);
  if (__builtin_expect(sc->nbatch != 0, 0)) {
    /* Replies held: while the next request is buffered the connection
     * stays busy (shutdown's CloseConnection must not overtake them);
     * else they go out now. */
    if (act == ACT_CONTINUE && iiop__conn_more(c)
        && !__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST)) {
      sc->held_busy = true;
      return NEXT_READ;
    }
    if (!send_held(sc, NULL))
      act = ACT_CLOSE;
  }
  __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
  if (act == ACT_CLOSE)
    return NEXT_END;
  if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST)) {
    /* Shutdown began while this request ran.  Whoever moves the state
     * from IDLE to CLOSING sends CloseConnection. */
    if (!state_cas(sc, CS_IDLE, CS_CLOSING)
        || send_bare(c, GIOP_CLOSE_CONNECTION, sc->sess.minor) == CDR_OK)
      return NEXT_LINGER;
    return NEXT_END;
  }
  return NEXT_READ;
}

/* Reading failed with RC: a malformed stream gets MessageError, in the
 * refused header's version where it has one we speak (a 1.0 header after
 * 1.2 requests: 1.0, as omniORB answers a malformed 1.0 message), 1.2 for
 * a later version, else the last good message's. */
static void on_recv_error(srv_conn *sc, int rc)
{
  if (rc == CDR_E_PROTOCOL || rc == CDR_E_LIMIT) {
    count(sc->s, rc == CDR_E_LIMIT ? ST_L_MESSAGE : ST_L_PROTOCOL);
    int minor = rc == CDR_E_PROTOCOL ? iiop__conn_error_minor(sc->conn) : -1;
    if (!__atomic_load_n(&sc->s->stopping, __ATOMIC_SEQ_CST))
      (void)send_bare(sc->conn, GIOP_MESSAGE_ERROR, minor >= 0 ? minor : sc->sess.minor);
  }
}

/* The budget refused the message being read for message_timeout_ms: MSG
 * (LEN octets) is what has arrived of it.  A request is answered
 * NO_RESOURCES (completed NO) and the rest of it skipped; NEXT_READ, or
 * NEXT_END when it could not be (a request header not all there, not a
 * request, shutdown under way). */
static int on_refused(srv_conn *sc, uint8_t *msg, size_t len)
{
  iiop_server *s = sc->s;
  /* the sweeper may have timed the same message out (it counted that):
   * counted once, by whichever took the connection from CS_IDLE */
  if (!state_cas(sc, CS_IDLE, CS_BUSY))
    return NEXT_END;
  count(s, ST_L_BUDGET);
  int next = NEXT_END;
  cdr_arena *a = cdr_arena_get();
  if (a) {
    iiop__reply r;
    if (iiop__dispatch_refuse(&sc->sess, msg, len, a, "NO_RESOURCES", &r) == IIOP__D_CONTINUE) {
      bool skipped = iiop__conn_skip(sc->conn) == CDR_OK;
      if (send_reply(sc, &r) && skipped)
        next = NEXT_READ;
    }
    cdr_arena_put(a);
  }
  __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
  if (next == NEXT_END)
    count(s, ST_L_BUDGET_CLOSED);
  return next;
}

static void serve(srv_conn *sc)
{
  iiop_conn *c = sc->conn;
  uint8_t *done = NULL;              /* the message handled last, given back by the next read */
  for (;;) {
    uint8_t *msg;
    size_t len;
    int rc;
    if (__builtin_expect(sc->bd == NULL, 1)) {
      rc = iiop__conn_recv_next(c, done, -1, &msg, &len);
    } else {
      iiop__conn_release(c, done);
      rc = iiop__bidir_recv(sc->bd, &msg, &len);
    }
    done = NULL;
    if (rc != CDR_OK) {
      if (rc == IIOP__RECV_REFUSED && on_refused(sc, msg, len) == NEXT_READ)
        continue;
      on_recv_error(sc, rc);
      return;
    }
    int next = on_message(sc, msg, len);
    if (__builtin_expect(next == NEXT_READ, 1)) {
      done = msg;
      continue;
    }
    iiop__conn_release(c, msg);
    if (next == NEXT_LINGER)
      linger(c);
    return;
  }
}

/* The connection ended (its thread or worker is done with it): shut it
 * down and move it to the dead list, to be reaped. */
static void conn_finish(srv_conn *sc)
{
  iiop_server *s = sc->s;
  if (sc->batch) {
    if (sc->nbatch && sc->conn)
      (void)send_held(sc, NULL);
    iiop__free(s->alloc, sc->batch);
    sc->batch = NULL;
  }
  if (sc->bd) {
    iiop__bidir_end(s->bidir, sc->bd); /* waits for the callers using it */
    sc->bd = NULL;
  }
  if (sc->arena) {
    cdr_arena_put(sc->arena);
    sc->arena = NULL;
  }
  if (sc->conn)
    iiop__conn_shutdown(sc->conn);
  iiop__session_close(&sc->sess);

  pthread_mutex_lock(&s->mu);
  __atomic_store_n(&sc->state, CS_DONE, __ATOMIC_SEQ_CST);
  unlink_active(s, sc);
  sc->next = s->dead;
  s->dead = sc;
  s->ndead++;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  /* The accept thread reaps it now, not at the next accept: its socket
   * and buffers go at once. */
  uint64_t one = 1;
  ssize_t w = write(s->reap_fd, &one, sizeof one);
  (void)w;
}

static void *conn_main(void *arg)
{
  srv_conn *sc = arg;
  iiop_server *s = sc->s;
  iiop_transport *t = NULL;
  iiop_conn *c = NULL;
  iiop__adapter_thread_dispatches();
  int rc = iiop__tcp_wrap(sc->fd, s->alloc, &t);
  if (rc == CDR_OK && sc->tls) {
    iiop_transport *tt = NULL;
    char why[IIOP_TLS_WHY_MAX];
    char peer[IIOP_PEER_HOST_MAX + 8];
    peer_text(sc->fd, peer, sizeof peer); /* before the handshake: a failed one closes fd */
    rc = iiop_tls_accept_why(s->tls, t, s->lim.handshake_timeout_ms, &tt, why, sizeof why);
    t = rc == CDR_OK ? tt : NULL; /* taken over either way */
    if (rc == CDR_E_TIMEOUT)
      count(s, ST_T_HANDSHAKE);
    if (rc != CDR_OK)
      tls_failed(s, peer, rc, why);
    else if ((sc->peer_subject = iiop__tls_peer_subject(t, s->alloc)) != NULL)
      sc->sess.peer_subject = sc->peer_subject;
  }
  if (rc == CDR_OK) {
    iiop_conn_opts co;
    conn_opts(s, sc, &co);
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
  if (s->bidir && !sc->tls)
    sc->sess.bidir_owner = sc;         /* its requests may make it bidirectional */
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
  iiop__free(s->alloc, sc->peer_subject);
  iiop__free(s->alloc, sc);
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
    pthread_mutex_lock(&s->mu);
    s->ndead--;
    pthread_mutex_unlock(&s->mu);
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
      if (rc == IIOP__RECV_REFUSED && on_refused(sc, msg, len) == NEXT_READ)
        continue;
      on_recv_error(sc, rc);
      break;
    }
    int next = on_message(sc, msg, len);
    iiop__conn_release(c, msg);
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
  iiop__adapter_thread_dispatches();
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
  pthread_t *w = ef >= 0 ? iiop__malloc(s->alloc, (size_t)s->pool_threads * sizeof *w) : NULL;
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
  iiop__free(s->alloc, w);
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
  int rc = iiop__tcp_wrap(sc->fd, s->alloc, &t); /* closes the socket if it fails */
  if (rc == CDR_OK) {
    iiop_conn_opts co;
    conn_opts(s, sc, &co);
    rc = iiop__conn_new(t, &co, &c); /* frees T if it fails */
  }
  if (rc != CDR_OK)
    return rc;
  sc->conn = c;
  sc->pooled = true;
  __atomic_store_n(&sc->state, CS_IDLE, __ATOMIC_SEQ_CST);
  link_active(s, sc);
  if (!pool_arm(sc, EPOLL_CTL_ADD)) {
    /* Nothing else saw it: the mutex is held. */
    unlink_active(s, sc);
    iiop__conn_free(c);
    sc->conn = NULL;
    return CDR_E_IO;
  }
  return CDR_OK;
}

/* ---------------------------------------------------------------- timeouts and eviction
 * The accept thread times every connection (no per-call cost: a
 * connection's reader only counts its messages).  Every scan_ms it looks
 * at each connection's state, its message count and its reader's phase
 * (iiop__conn_phase); a phase, or a message count, it has not seen before
 * starts that connection's clock.  Past its phase's timeout a connection is
 * ended (and counted); at the connection cap the one whose clock started
 * first, of those not dispatching, is evicted.  Records and connections are
 * freed only by this thread (reap()), so it uses them outside the mutex
 * once it has picked them under it. */

enum { ACT_NONE, ACT_IDLE_CLOSE, ACT_CLOSE_NOW, ACT_ABORT_HANDSHAKE };

/* Pick the action for SC whose state is CS_IDLE (under mu): mark it doomed
 * and move it to CLOSING, so that no request starts on it. */
static int doom(iiop_server *s, srv_conn *sc, bool idle)
{
  if (sc->doomed)
    return ACT_NONE;
  int st = __atomic_load_n(&sc->state, __ATOMIC_SEQ_CST);
  if (st == CS_HANDSHAKE) {
    if (sc->ctl_fd < 0)
      return ACT_NONE;
    sc->doomed = true;
    s->ndoomed++;
    return ACT_ABORT_HANDSHAKE;
  }
  if (!sc->conn || !state_cas(sc, CS_IDLE, CS_CLOSING))
    return ACT_NONE;
  sc->doomed = true;
  s->ndoomed++;
  return idle ? ACT_IDLE_CLOSE : ACT_CLOSE_NOW;
}

/* Carry out ACT on SC (not under mu).  An idle connection gets
 * CloseConnection (only if the socket has room: this thread never blocks
 * on a client) and lingers, as at shutdown: the client closes, or the
 * accept thread forces it once linger_end passed. */
static void act_on(srv_conn *sc, int act, bool linger_after)
{
  if (act == ACT_ABORT_HANDSHAKE) {
    shutdown(sc->ctl_fd, SHUT_RDWR);
    return;
  }
  if (act == ACT_IDLE_CLOSE) {
    struct pollfd p = { sc->fd, POLLOUT, 0 };
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT)
        && send_bare(sc->conn, GIOP_CLOSE_CONNECTION, sc->sess.minor) == CDR_OK
        && linger_after) {
      __atomic_store_n(&sc->linger_end, iiop__now_ms() + LINGER_MS, __ATOMIC_RELEASE);
      return;
    }
  }
  iiop__conn_shutdown(sc->conn);
}

/* Look at every connection: start clocks, end those past their timeout,
 * force lingering ones whose time is up. */
static void scan(iiop_server *s)
{
  int64_t now = iiop__now_ms();
  srv_conn *list = NULL;
  pthread_mutex_lock(&s->mu);
  for (srv_conn *sc = s->active; sc; sc = sc->next) {
    int st = __atomic_load_n(&sc->state, __ATOMIC_SEQ_CST);
    if (st == CS_CLOSING) {
      int64_t le = __atomic_load_n(&sc->linger_end, __ATOMIC_ACQUIRE);
      if (le && now >= le && sc->conn)
        iiop__conn_shutdown(sc->conn);
      continue;
    }
    if (st == CS_HANDSHAKE)
      continue; /* timed by handshake_timeout_ms; its clock (for eviction) runs from accept */
    if (st != CS_IDLE || !sc->conn) {
      sc->since = now; /* dispatching */
      sc->seen_phase = -1;
      continue;
    }
    int ph = iiop__conn_phase(sc->conn);
    uint32_t nm = __atomic_load_n(&sc->nmsg, __ATOMIC_RELAXED);
    if (ph < 0 || ph != sc->seen_phase || nm != sc->seen_nmsg) {
      sc->seen_phase = ph;
      sc->seen_nmsg = nm;
      sc->since = now;
      continue;
    }
    int limit = ph == GIOP_REASM_EMPTY    ? s->lim.idle_timeout_ms
                : ph == GIOP_REASM_HEADER ? s->lim.header_timeout_ms
                                          : s->lim.message_timeout_ms;
    if (now - sc->since < limit)
      continue;
    int act = doom(s, sc, ph == GIOP_REASM_EMPTY);
    if (act == ACT_NONE)
      continue;
    count(s, ph == GIOP_REASM_EMPTY ? ST_T_IDLE : ph == GIOP_REASM_HEADER ? ST_T_HEADER
                                                                          : ST_T_MESSAGE);
    sc->act = act;
    sc->close_next = list;
    list = sc;
  }
  pthread_mutex_unlock(&s->mu);
  for (srv_conn *sc = list; sc; sc = sc->close_next)
    act_on(sc, sc->act, true);
}

/* At the cap (under mu): doom the connection idle longest that is not
 * dispatching; NULL when every one is. */
static srv_conn *pick_victim(iiop_server *s, int *act)
{
  srv_conn *best = NULL;
  int64_t now = iiop__now_ms(), best_since = 0;
  for (srv_conn *sc = s->active; sc; sc = sc->next) {
    if (sc->doomed)
      continue;
    int st = __atomic_load_n(&sc->state, __ATOMIC_SEQ_CST);
    if (st != CS_IDLE && !(st == CS_HANDSHAKE && sc->ctl_fd >= 0))
      continue;
    /* A connection that read a message since the last scan is active now. */
    int64_t since = st == CS_IDLE && __atomic_load_n(&sc->nmsg, __ATOMIC_RELAXED) != sc->seen_nmsg
                      ? now
                      : sc->since;
    if (!best || since < best_since) {
      best = sc;
      best_since = since;
    }
  }
  if (!best)
    return NULL;
  int ph = best->conn ? iiop__conn_phase_wait(best->conn) : -1;
  *act = doom(s, best, ph == GIOP_REASM_EMPTY);
  return *act == ACT_NONE ? NULL : best;
}

/* A new connection on the accepted socket FD (TCP_NODELAY is set when it
 * is wrapped). */
static void start_conn(iiop_server *s, int fd, bool tls)
{
  srv_conn *sc = iiop__malloc(s->alloc, sizeof *sc);
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
  sc->since = iiop__now_ms();
  sc->seen_phase = -1;
  sc->bref.b = &s->bud;
  sc->bref.st = &s->bud.st[(unsigned)fd % BUDGET_STRIPES];
  iiop__session_init(&sc->sess, &s->ad, s->lim.max_message, s->conn_alloc);
  iiop__session_limits(&sc->sess, &s->lim, &s->stats[ST_L_ARGS]);
  sc->sess.icpt = &s->icpt;
  sc->sess.peer_fd = fd;
  count(s, ST_ACCEPTED);

  pthread_mutex_lock(&s->mu);
  srv_conn *victim = NULL;
  int vact = ACT_NONE;
  bool full = s->nconns - s->ndoomed >= s->lim.max_connections;
  if (full && !__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST)) {
    victim = pick_victim(s, &vact);
    if (victim) {
      full = false;
      count(s, ST_EVICTED);
    }
  }
  if (__atomic_load_n(&s->stopping, __ATOMIC_SEQ_CST) || full) {
    if (full)
      count(s, ST_REFUSED);
    pthread_mutex_unlock(&s->mu);
    if (sc->ctl_fd >= 0)
      close(sc->ctl_fd);
    iiop__free(s->alloc, sc);
    close(fd);
    return;
  }
  if (!tls && s->pool_threshold && s->nthreaded >= s->pool_threshold && pool_start(s)) {
    int prc = start_pooled(s, sc);
    pthread_mutex_unlock(&s->mu);
    if (victim)
      act_on(victim, vact, false);
    if (prc != CDR_OK)
      iiop__free(s->alloc, sc); /* the socket is closed */
    return;
  }
  link_active(s, sc);
  int rc = pthread_create(&sc->thr, NULL, conn_main, sc);
  if (rc != 0)
    unlink_active(s, sc);
  pthread_mutex_unlock(&s->mu);
  if (victim)
    act_on(victim, vact, false);
  if (rc != 0) {
    if (sc->ctl_fd >= 0)
      close(sc->ctl_fd);
    iiop__free(s->alloc, sc);
    close(fd);
  }
}

static void *accept_main(void *arg)
{
  iiop_server *s = arg;
  struct pollfd p[4];
  int n = 0, it = -1;
  p[n].fd = s->wake[0];
  p[n++].events = POLLIN;
  p[n].fd = s->reap_fd;
  p[n++].events = POLLIN;
  p[n].fd = s->lfd;
  p[n++].events = POLLIN;
  if (s->tls_lfd >= 0) {
    it = n;
    p[n].fd = s->tls_lfd;
    p[n++].events = POLLIN;
  }
  int64_t next_scan = iiop__now_ms() + s->scan_ms;
  for (;;) {
    for (int k = 0; k < n; k++)
      p[k].revents = 0;
    int64_t wait = next_scan - iiop__now_ms();
    if (poll(p, (nfds_t)n, wait < 0 ? 0 : (int)wait) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (p[0].revents)
      break;
    if (p[1].revents) {
      uint64_t v;
      ssize_t r = read(s->reap_fd, &v, sizeof v);
      (void)r;
    }
    if (iiop__now_ms() >= next_scan) {
      scan(s);
      next_scan = iiop__now_ms() + s->scan_ms;
    }
    for (int k = 2; k < n; k++) {
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
  if ((s->lfd >= 0 && listen(s->lfd, SOMAXCONN) != 0) || (s->tls_lfd >= 0 && listen(s->tls_lfd, SOMAXCONN) != 0))
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
        || send_bare(sc->conn, GIOP_CLOSE_CONNECTION, sc->sess.minor) != CDR_OK)
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
  iiop__adapter_destroy(&s->ad);
  if (s->ep >= 0)
    close(s->ep);
  if (s->ep_stop >= 0)
    close(s->ep_stop);
  iiop__free(s->alloc, s->workers);
  iiop__bidir_set_free(s->bidir);
  if (s->tls)
    iiop_tls_ctx_free(s->tls);
  close(s->wake[0]);
  close(s->wake[1]);
  close(s->reap_fd);
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->bud.wmu);
  if (s->ior_host != s->host)
    iiop__free(s->alloc, s->ior_host);
  iiop__free(s->alloc, s->host);
  iiop__free(s->alloc, s);
}

/* ---------------------------------------------------------------- IOR */

int iiop_server_ior(iiop_server *s, const void *key, size_t key_len, cdr_arena *a, char **out)
{
  if (!s || !a || !out || (!key && key_len) || key_len > UINT32_MAX)
    return CDR_E_INVALID;
  /* A key not (yet) active gets the generic type ID: the reference is
   * still well formed, and calls on it get OBJECT_NOT_EXIST until then. */
  /* Not a registered reader: looked up under the adapter's mutex (the
   * interface is static, so its repository ID outlives the object). */
  const char *type_id = iiop__adapter_type_id(&s->ad, key, key_len);

  /* omniORB's choice: char ISO-8859-1 (conversion UTF-8), wchar UTF-16
   * (conversion UTF-16). */
  static const uint32_t cconv[] = { CDR_CS_UTF8 }, wconv[] = { CDR_CS_UTF16 };
  iiop_codeset_info ci = { { CDR_CS_ISO8859_1, 1, cconv }, { CDR_CS_UTF16, 1, wconv } };
  iiop_component comps[2];
  uint32_t n = 0;
  int rc = iiop_codeset_info_encode(&ci, CDR_HOST_ORDER, a, &comps[n++]);
  if (rc == CDR_OK && s->tls) {
    /* TAG_SSL_SEC_TRANS (CORBA 3.x Security, SSLIOP::SSL; AssociationOptions
     * of CSIIOP).  Supported: integrity, confidentiality and trust in the
     * target (the server's certificate); NoProtection when the plain port is
     * served too; EstablishTrustInClient when client certificates are asked
     * for (VERIFY_PEER, VERIFY_PEER_FAIL).  Required: integrity and
     * confidentiality when TLS is the only way in (IIOP_TLS_REQUIRED: the
     * profile's port is 0); EstablishTrustInClient under VERIFY_PEER_FAIL. */
    uint16_t sup = IIOP_SEC_INTEGRITY | IIOP_SEC_CONFIDENTIALITY | IIOP_SEC_TRUST_IN_TARGET;
    uint16_t req = 0;
    if (s->lfd >= 0)
      sup |= IIOP_SEC_NO_PROTECTION;
    else
      req |= IIOP_SEC_INTEGRITY | IIOP_SEC_CONFIDENTIALITY;
    if (s->tls_verify != IIOP_TLS_VERIFY_NONE)
      sup |= IIOP_SEC_TRUST_IN_CLIENT;
    if (s->tls_verify == IIOP_TLS_VERIFY_PEER_FAIL)
      req |= IIOP_SEC_TRUST_IN_CLIENT;
    rc = iiop_ssl_component_encode(sup, req, s->tls_port, CDR_HOST_ORDER, a, &comps[n++]);
  }
  if (rc != CDR_OK)
    return rc;
  iiop_ior ior;
  rc = iiop_ior_make(a, type_id, 1, 2, s->ior_host, s->port, key, (uint32_t)key_len, comps, n, &ior);
  if (rc != CDR_OK)
    return rc;
  return iiop_ior_to_string(&ior, CDR_HOST_ORDER, a, out);
}

/* ---------------------------------------------------------------- bidirectional GIOP
 * (CORBA 3.x Part 2, 15.8; bidir.h.)  accept_bidir registers the
 * interceptor below: a GIOP 1.2 Request on a connection with a thread of
 * its own that carries BI_DIR_IIOP makes that connection bidirectional (its
 * listen points recorded in the server's set); from then on its thread
 * reads through iiop__bidir_recv(), so that Replies to the server process's
 * callbacks reach their callers. */

static int bidir_receive(void *ud, iiop_request *req)
{
  iiop_server *s = ud;
  const iiop__session *ss = iiop__request_session(req);
  srv_conn *sc = ss ? ss->bidir_owner : NULL;
  uint8_t major, minor;
  if (!sc || iiop_request_giop_version(req, &major, &minor) != CDR_OK || minor < 2)
    return 0;                           /* 1.0/1.1: never bidirectional */
  const uint8_t *data;
  uint32_t len;
  if (iiop_request_service_context(req, GIOP_SC_BI_DIR_IIOP, &data, &len) != CDR_OK)
    return 0;
  giop_service_context c = { GIOP_SC_BI_DIR_IIOP, len, data };
  giop_listen_point pts[GIOP_LISTEN_POINTS_MAX];
  uint32_t n = 0;
  cdr_arena *a = cdr_arena_get();
  if (!a)
    return 0;
  int rc = giop_bidir_context_decode(&c, a, pts, GIOP_LISTEN_POINTS_MAX, &n);
  if (rc == CDR_OK) {
    bool first = sc->bd == NULL;
    iiop__bidir_cs cs = { 1, ss->in_opts.tcs_c, ss->in_opts.tcs_w };
    rc = iiop__bidir_note(s->bidir, &sc->bd, sc->conn, s, &cs, pts, n);
    if (first && sc->bd)
      __atomic_add_fetch(&s->bstats[0], 1, __ATOMIC_RELAXED);
  }
  cdr_arena_put(a);
  if (rc == CDR_OK || rc == CDR_E_NOMEM)
    return 0;                           /* no memory: served, just not bidirectional */
  __atomic_add_fetch(&s->bstats[1], 1, __ATOMIC_RELAXED);
  giop_system_exception e = { "IDL:omg.org/CORBA/MARSHAL:1.0", 0, GIOP_COMPLETED_NO };
  iiop_request_set_exception(req, &e);
  return 1;
}

static int bidir_accept_init(iiop_server *s)
{
  s->bidir = iiop__bidir_set_new(s->alloc);
  if (!s->bidir)
    return CDR_E_NOMEM;
  static const iiop_server_interceptor ic = { bidir_receive, NULL };
  return iiop_server_add_interceptor(s, &ic, s);
}

iiop__bidir_set *iiop__server_bidir_set(iiop_server *srv) { return srv ? srv->bidir : NULL; }

const char *iiop__server_ior_host(const iiop_server *srv) { return srv->ior_host; }

int iiop__server_serve_one(iiop_server *s, iiop_conn *conn, iiop__bidir_cs *cs, uint8_t *m,
                           size_t len)
{
  iiop__session ss;
  iiop__session_init(&ss, &s->ad, s->lim.max_message, s->conn_alloc);
  iiop__session_limits(&ss, &s->lim, &s->stats[ST_L_ARGS]);
  ss.icpt = &s->icpt;
  if (__atomic_load_n(&cs->fixed, __ATOMIC_ACQUIRE)) {
    ss.cs_fixed = true;
    ss.in_opts.tcs_c = __atomic_load_n(&cs->c, __ATOMIC_RELAXED);
    ss.in_opts.tcs_w = __atomic_load_n(&cs->w, __ATOMIC_RELAXED);
  }
  cdr_arena *a = cdr_arena_get();
  if (!a) {
    iiop__conn_release(conn, m);
    return CDR_E_CLOSED;
  }
  iiop__adapter_reader_add(&s->ad, &ss.reader);
  iiop__reader_enter(&s->ad, &ss.reader);
  giop_message msg;
  iiop__reply r;
  int next = iiop__dispatch(&ss, m, len, a, &msg, &r);
  bool ok = true;
  if (next == IIOP__D_ACK) {
    ok = r.len == 0 || iiop__conn_send(conn, r.msg, r.len, r.request_id) == CDR_OK;
    next = ok ? iiop__dispatch_resume(&ss, &msg, &r) : IIOP__D_CLOSE;
  }
  if (next == IIOP__D_CONTINUE && r.len) {
    if (r.out && cdr_out_nrefs(r.out))
      ok = iiop__conn_send_out(conn, r.out, r.request_id) == CDR_OK;
    else
      ok = iiop__conn_send(conn, r.msg, r.len, r.request_id) == CDR_OK;
  } else if (next == IIOP__D_ERROR) {
    (void)send_bare(conn, GIOP_MESSAGE_ERROR, ss.minor);
  }
  cdr_in_close(&msg.body);
  iiop__reader_exit(&ss.reader);
  iiop__adapter_reader_remove(&s->ad, &ss.reader);
  if (ss.cs_fixed && !ss.cs_error && !__atomic_load_n(&cs->fixed, __ATOMIC_ACQUIRE)) {
    /* the first served request fixed them (two such requests at once
     * store the same values) */
    __atomic_store_n(&cs->c, ss.in_opts.tcs_c, __ATOMIC_RELAXED);
    __atomic_store_n(&cs->w, ss.in_opts.tcs_w, __ATOMIC_RELAXED);
    __atomic_store_n(&cs->fixed, 1, __ATOMIC_RELEASE);
  }
  iiop__session_close(&ss);
  cdr_arena_put(a);
  iiop__conn_release(conn, m);
  if (next == IIOP__D_ERROR)
    return CDR_E_PROTOCOL;
  return ok && next == IIOP__D_CONTINUE ? CDR_OK : CDR_E_CLOSED;
}
