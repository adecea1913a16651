#include "config.h"
/* client.c - the IIOP client half of iiop/orb.h.
 *
 * References.  A reference holds the object key, the GIOP version of its
 * profile (a corbaloc address's version, 1.0 by default) and the code sets
 * negotiated from the profile's TAG_CODE_SETS component (none in a
 * corbaloc reference: ISO-8859-1 for char and no wchar code set), and
 * points at an endpoint of the client: (host, port, TLS, char and wchar
 * transmission code sets).  The code sets are part of the endpoint because
 * a connection's code sets are fixed by its first request: two references
 * to one server that negotiate different code sets must not share it.
 *
 * Multiplexing: leader/follower.  Every thread that waits for a reply on a
 * connection is registered in the connection's pending list under its
 * request ID.  The first waiter that finds no reader becomes the leader and
 * reads from the socket itself; a reply for another caller is handed to it
 * (the message buffer moves, nothing is copied) and that caller is marked
 * on its own wake word and woken after the leader has released the
 * connection's mutex, so that the woken caller does not run into the mutex
 * the leader still holds.  All replies that one read brought are handed
 * out before the next read, and (on Linux, where the callers of a
 * connection sleep on its one futex word, each with its own bit) the
 * callers they are for are woken together in one system call once they
 * are; a caller that has not gone to sleep yet (it says so on its word
 * before it sleeps) finds its word set and needs no wake-up at all.  When
 * the leader's own reply has come (or its deadline passed) it stops reading and wakes one
 * follower whose reply has not come yet, which takes over.  A caller alone on a connection so reads its own reply in its
 * own thread: no thread switch per call, which a reader thread per
 * connection would cost twice (reader wakes caller, caller's next request
 * wakes nobody but the reader must be scheduled again), and no thread to
 * start, stop and account for per connection.  The price is the hand-over
 * logic below.
 *
 * Holding requests.  The leader that hands a reply to a sleeping caller
 * counts that caller in the connection's nwoken (so does promote() for the
 * follower it wakes to lead) until it runs again.  A two-way request sent
 * while nwoken is not 0 is not written at once: it is linked on the
 * connection's park list until the last counted caller has run: the
 * held requests are then due (park_due), and the next request sent on the
 * connection -- typically that caller's own next one, a few microseconds
 * later -- goes last in the one gather write that carries them all
 * (park_flush()).  Those are typically the next requests of the other
 * callers that one read's replies woke, each of which would have been a
 * system call of its own and often a wake-up of the server's connection
 * thread.  Until they are due the wait is no timer: the counted callers
 * are runnable and each comes back to wait_reply() right after its
 * wake-up, before anything of the application's runs.  Once they are due,
 * the next request may never come (the last caller's thread may do
 * anything now), so each held caller waits at most HOLD_BOUND_MS (1 to 2
 * ms, iiop__client_set_hold_bound()) asleep before it writes the held
 * requests itself (park_late()), and the connection's next HOLD_DEFER_OFF
 * batches are then written by their last counted caller at once, as
 * before.  A leader (blocked in a read, no timer) with its own request
 * held is no held caller with a bound: the held requests are only left
 * due while one of them is another caller's, and a leader that finds its
 * own request due writes it before it reads.  Nor are they left due with
 * more than HOLD_PENDING calls pending (the connection's write combining
 * serves those).  Two limits: the sender of the HOLD_MAX-th held request
 * writes them all itself (a larger batch saves few more system calls, and
 * under CPU contention every held request waits for the slowest woken caller: with
 * 16 callers a connection p99 latency went to 4-7 ms), and no request is
 * held on a connection with more than HOLD_PENDING calls pending (their
 * requests keep the server's connection thread awake; holding them let it
 * fall asleep between batches, and on a loaded machine a wake-up may wait
 * for another process's time slice: 32 threads on 2 connections had p99
 * 4-6 ms and fewer calls/s than without holding).  A held caller waits for
 * its reply as any other (it may lead and read meanwhile).  When its
 * deadline passes first, a request never written is taken off the list
 * (completion NO, no CancelRequest); one being written keeps its caller
 * (its iovecs point into the call's streams) until the write is over.
 *
 * The request header is written at iiop_call_begin(), before the connection
 * is known, so that the arguments can follow it in the same buffer; at
 * invoke the request ID is patched in.  Only a connection's first request
 * (which carries the CodeSets service context), a request with service
 * contexts of its reference or its own, and a request re-sent to a
 * forwarded location (another object key) need another header: the body is
 * then copied behind the new header so that it starts at the same position
 * modulo 8 (GIOP 1.2 aligns it on 8; in 1.0/1.1 it follows the header, and
 * the requesting_principal, an opaque octet sequence every ORB ignores,
 * absorbs the difference), so its alignment and indirections stay valid.
 *
 * Steady state allocates nothing: call objects (with their output stream
 * buffers and condition variables) are pooled in the client, arenas come
 * from the per-thread pool, the reassembler recycles message buffers.
 * Everything the client allocates itself comes from its allocator
 * (iiop_client_opts.alloc); the per-thread arenas are libcdr's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/ior.h>
#include <iiop/msg.h>
#include <iiop/naming.h>
#include <iiop/orb.h>
#include "bidir.h"
#include "connection.h"
#include "internal.h"
#include "transport.h"

#define MAX_FORWARDS 8
#define FWD_TARGETS_MAX 8  /* distinct forwarded targets a reference keeps (bounded memory) */
#define REQ_IOV (CDR_OUT_IOV_MAX + 1)  /* a request's gather list: a rebuilt header, the body's pieces */
#define CALL_POOL_MAX 64
#define HOLD_MAX 8       /* requests held on a connection at once ("Holding requests") */
#define HOLD_PENDING 8   /* ... and only while it has no more calls than this pending */
#define HOLD_BOUND_MS 2  /* a held request waits for the next one sent at most this long */
#define HOLD_DEFER_OFF 64 /* after a held request outwaited it: batches written at once */

enum { CS_NONE, CS_SENDING, CS_SENT };           /* CodeSets context on a connection */
enum { P_IDLE, P_WAIT, P_DONE };                 /* a call's pending state */

typedef struct cconn cconn;
typedef struct endpoint endpoint;

struct endpoint {
  endpoint *next;
  char *host;
  uint16_t port;
  uint8_t tls;
  uint32_t tcs_c, tcs_w;
  pthread_mutex_t mu;
  pthread_cond_t cv;         /* a connect finished */
  int connecting;            /* under mu */
  unsigned nconns;           /* under mu: conns[0..nconns) open, one reference each */
  cconn *conns[IIOP_CLIENT_CONNECTIONS_MAX];
  int no_cancel;             /* atomic: the peer is omniORB (see send_cancel()) */
};

struct cconn {
  iiop_conn *conn;
  int refs;                  /* atomic */
  int dead;                  /* atomic: 0, or the status that ended the connection */
  uint32_t next_id;          /* atomic */
  uint32_t id_step;          /* 1; 2 on a bidirectional connection (even IDs from the side
                              * that connected, odd from the side that accepted) */
  int cs_state;              /* CS_*: written under mu, read atomically */
  pthread_mutex_t mu;        /* everything below */
  pthread_cond_t cs_cv;      /* cs_state left CS_SENDING */
  int dead_no;               /* pending calls failed with completion NO (CloseConnection) */
  int leader;                /* a caller is reading */
  int peer_refused;          /* under mu: the server sent MessageError (it refused ours) */
  unsigned fx;               /* atomic: the futex word its callers sleep on (Linux):
                              * one more each time some are woken (cc_wake()) */
  int lheld;                 /* the leader reads with its own request held (parked 1) */
  iiop_call *pend;           /* pending calls, doubly linked */
  unsigned npend;            /* on pend */
  unsigned nwoken;           /* callers woken here (counted) that have not run yet */
  iiop_call *park, *park_tail; /* requests held for the last of them to write, in order */
  unsigned npark;            /* on park (at most HOLD_MAX) */
  uint8_t park_due;          /* the counted callers have run: the next request sent
                              * here writes park with it ("Holding requests") */
  unsigned defer_off;        /* batches still written by the last counted caller at
                              * once (a held request outwaited HOLD_BOUND_MS) */
  iiop_transport *tp;        /* conn's transport (owned by conn): TLS error texts */
  const char *host;          /* the endpoint's (lives as long as the client) */
  uint16_t port;
  /* Bidirectional GIOP (bidir.h); all 0/NULL on other connections. */
  iiop_server *serve;        /* Requests read here are served by its objects */
  iiop__bidir_cs bcs;        /* their code sets */
  const cdr_allocator *balloc; /* a server's record: its allocator (the record is freed
                              * with it, the connection is the server's) */
  int rwait;                 /* under mu: the server's connection thread waits to read */
  pthread_cond_t rcv;        /* ... on this (server records only) */
  pthread_cond_t endcv;      /* refs fell to 1 (server records only) */
  cconn *bnext;              /* the server's bidir set */
  uint32_t npts;             /* under the set's mutex: listen points */
  char *pts_host[GIOP_LISTEN_POINTS_MAX];
  uint16_t pts_port[GIOP_LISTEN_POINTS_MAX];
};

/* Where a reference's requests go: an endpoint and an object key. */
typedef struct target {
  struct target *next;       /* the reference's list of forwarded targets */
  endpoint *ep;
  const uint8_t *key;
  uint32_t key_len;
} target;

/* A reference's service contexts: an immutable block, replaced whole
 * (iiop_ref_set_service_context()); its data follows it. */
typedef struct scblock {
  struct scblock *next;      /* the reference's replaced blocks */
  uint32_t n;
  giop_service_context v[IIOP_SC_ADD_MAX];
} scblock;

/* Forwarding (CORBA 3.x Part 2, 15.4.3 / GIOP Reply status 3 and 4): ORIG
 * is where the reference was resolved to; BASE (atomic pointer) is ORIG or
 * the target a LOCATION_FORWARD_PERM named; FWD (atomic pointer, NULL:
 * none) the target of the last LOCATION_FORWARD, used by every later call
 * until it cannot be reached (then BASE again).  Targets are never freed
 * before the reference, so a pointer read atomically stays valid without
 * a lock; MU guards only the list (the forward path). */
struct iiop_ref {
  iiop_client *cl;
  const cdr_allocator *alloc;/* cl->alloc: iiop_ref_free() may come after iiop_client_free() */
  endpoint *ep;
  const uint8_t *key;
  uint32_t key_len;
  target orig;
  target *base;              /* atomic */
  target *fwd;               /* atomic */
  pthread_mutex_t mu;        /* targets, ntargets */
  target *targets;
  unsigned ntargets;
  int cs_bad;                /* no common char code set: calls fail with CDR_E_CODESET */
  int timeout_ms;            /* atomic: iiop_ref_set_timeout() (IIOP_TIMEOUT_INHERIT: none set) */
  scblock *sc;               /* atomic: the service contexts every call sends, or NULL */
  int sc_users;              /* atomic: calls holding a block they read from sc */
  scblock *sc_old;           /* under mu: replaced blocks not freed yet */
  cdr_opts opts;             /* GIOP version and code sets for arguments and results */
  cdr_arena arena;           /* what the reference points into */
};

struct iiop_call {
  iiop_client *cl;
  iiop_call *next_free;
  iiop_ref *ref;
  cdr_arena *arena;
  cdr_out out;               /* header and arguments */
  cdr_out out2;              /* a rebuilt request (new header, same body) */
  cdr_opts out_opts, out2_opts;
  uint8_t out_live, out2_live, oneway, invoked, has_ex, msg_live;
  uint8_t have_reply;        /* msg is a parsed Reply (its contexts readable) */
  const char *op;
  uint32_t op_len;
  int timeout_ms;            /* iiop_call_set_timeout() (IIOP_TIMEOUT_INHERIT: none set) */
  const uint8_t *hdr_key;    /* the object key the prepared header names */
  size_t hdr_end, body_start, body_len, msg_len;
  /* the reply */
  cconn *cc;                 /* holds a reference while reply is ours */
  uint8_t *reply;
  giop_message msg;
  giop_system_exception ex;
  /* pending state, under cc->mu of the connection it waits on */
  pthread_cond_t cv;         /* call_wait()'s fallback where there is no futex */
  pthread_mutex_t wmu;       /* with cv */
  int wake;                  /* atomic, set to 1 under cc->mu: look at pstate again;
                              * 2: asleep in call_wait() (Linux) */
  uint32_t wbit;             /* its bit in a wake-up's bit set (Linux): set once */
  iiop_call *pprev, *pnext;
  uint32_t req_id;
  int pstate, pstatus, pno, waiting;
  uint8_t *pmsg;
  size_t plen;
  /* held requests ("Holding requests" above), under cc->mu */
  uint8_t counted;           /* counted in cc->nwoken: woken, has not run yet */
  uint8_t parked;            /* 1: on cc->park; 2: taken by the thread that writes it */
  uint8_t park_wait;         /* waits for parked to leave 2 (its iovecs are in use) */
  int64_t pdeadline;         /* the call's deadline: the write's limit */
  int64_t phold;             /* parked 1 until then at most (CLOCK_MONOTONIC ms) */
  iiop_call *park_next;
  int pnv;                   /* the request's gather list pv[0..pnv), pvlen octets */
  size_t pvlen;
  struct iovec pv[REQ_IOV];
  /* service contexts: the reference's block this call holds (NULL: none),
   * and the call's own (data in the arena) */
  scblock *rsc;
  uint32_t nsc;
  giop_service_context sc[IIOP_SC_ADD_MAX];
  /* interceptors (set on the hooked path only, invoke_hooked()): the
   * contexts the caller added (a resend drops the hooks' and runs them
   * again), a hook is running (1 send_request, 2 receive_reply),
   * send_request refused, a hook raised */
  uint32_t nsc_user;
  uint8_t in_hook, hook_refused, hook_raised;
};

/* One initial reference: ID -> URL (both copied, one block). */
struct initref {
  struct initref *next;
  char *url;
  char id[];
};

struct iiop_client {
  iiop_client_opts o;
  const cdr_allocator *alloc;/* o.alloc, or the global one */
  char *ca_file;
  iiop_tls_ctx *tls;
  int has_cert;              /* tls presents a client certificate (tls_cert_file) */
  uint32_t conv_c, conv_w;   /* the one conversion code set offered for each */
  pthread_mutex_t mu;        /* eps, free_calls, nfree, live_calls */
  pthread_cond_t idle_cv;
  endpoint *eps;
  iiop_call *free_calls;
  unsigned nfree;
  unsigned live_calls;
  int closing;               /* atomic */
  pthread_mutex_t err_mu;    /* err */
  char err[IIOP_CLIENT_ERROR_MAX]; /* the last connection failure's reason ("" none) */
  struct initref *irefs;     /* iiop_client_set_initial_reference(), under err_mu */
  uint64_t stats[6];         /* atomic: iiop_client_stats, in its order */
  unsigned nic;              /* atomic: interceptors published (written under mu) */
  iiop_client_interceptor ic[IIOP_INTERCEPTORS_MAX];
  void *ic_ud[IIOP_INTERCEPTORS_MAX];
  /* Bidirectional GIOP: iiop_client_offer_bidir(), iiop_client_use_bidir(). */
  iiop_server *offer;        /* atomic: serves Requests read on this client's connections */
  uint8_t *bd_ctx;           /* the BI_DIR_IIOP context's data (set with offer) */
  size_t bd_len;
  iiop_server *use_srv;      /* atomic: calls go over its bidirectional connections */
  uint64_t bstats[2];        /* atomic: bidir_served, bidir_reused */
  uint64_t held;             /* atomic: requests another caller wrote (iiop__client_held) */
  uint64_t held_expired;     /* atomic: held requests whose call timed out unwritten */
  uint64_t hst[4];           /* atomic: iiop__hold_stats batches, writes, joined, late */
  int hold_bound_ms;         /* HOLD_BOUND_MS (iiop__client_set_hold_bound()) */
  unsigned wbit_next;        /* atomic: the next call object's wbit (its index mod 32) */
};

enum { CST_CONNECTIONS, CST_CONNECT_FAILED, CST_TIMEOUT, CST_LIMIT, CST_PROTOCOL, CST_LATE };

/* Count one event K (CST_*; -1: none). */
static void ccount(iiop_client *cl, int k)
{
  if (k >= 0)
    __atomic_add_fetch(&cl->stats[k], 1, __ATOMIC_RELAXED);
}

int iiop_client_stats_get(iiop_client *c, iiop_client_stats *st)
{
  if (!c || !st)
    return CDR_E_INVALID;
  memset(st, 0, sizeof *st);
  st->connections = __atomic_load_n(&c->stats[CST_CONNECTIONS], __ATOMIC_RELAXED);
  st->connect_failed = __atomic_load_n(&c->stats[CST_CONNECT_FAILED], __ATOMIC_RELAXED);
  st->timeout_call = __atomic_load_n(&c->stats[CST_TIMEOUT], __ATOMIC_RELAXED);
  st->limit_message = __atomic_load_n(&c->stats[CST_LIMIT], __ATOMIC_RELAXED);
  st->limit_protocol = __atomic_load_n(&c->stats[CST_PROTOCOL], __ATOMIC_RELAXED);
  st->late_replies = __atomic_load_n(&c->stats[CST_LATE], __ATOMIC_RELAXED);
  st->bidir_served = __atomic_load_n(&c->bstats[0], __ATOMIC_RELAXED);
  st->bidir_reused = __atomic_load_n(&c->bstats[1], __ATOMIC_RELAXED);
  return CDR_OK;
}

uint64_t iiop__client_held(iiop_client *c)
{
  return __atomic_load_n(&c->held, __ATOMIC_RELAXED);
}

uint64_t iiop__client_held_expired(iiop_client *c)
{
  return __atomic_load_n(&c->held_expired, __ATOMIC_RELAXED);
}

void iiop__client_hold_stats(iiop_client *c, iiop__hold_stats *st)
{
  st->held = __atomic_load_n(&c->held, __ATOMIC_RELAXED);
  st->batches = __atomic_load_n(&c->hst[0], __ATOMIC_RELAXED);
  st->writes = __atomic_load_n(&c->hst[1], __ATOMIC_RELAXED);
  st->joined = __atomic_load_n(&c->hst[2], __ATOMIC_RELAXED);
  st->late = __atomic_load_n(&c->hst[3], __ATOMIC_RELAXED);
  st->expired = __atomic_load_n(&c->held_expired, __ATOMIC_RELAXED);
}

void iiop__client_set_hold_bound(iiop_client *c, int ms)
{
  c->hold_bound_ms = ms > 0 ? ms : 1;
}

/* ---------------------------------------------------------------- memory and waiting */

static void cond_init_mono(pthread_cond_t *cv)
{
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &ca);
  pthread_condattr_destroy(&ca);
}

/* Wait on CV until DEADLINE (-1: forever).  0, or ETIMEDOUT. */
static int cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline)
{
  if (deadline < 0)
    return pthread_cond_wait(cv, mu);
  struct timespec ts = { (time_t)(deadline / 1000), (long)(deadline % 1000) * 1000000L };
  return pthread_cond_timedwait(cv, mu, &ts);
}

/* A follower's wait on CC.  CALL->wake is set to 1 under cc->mu
 * (call_mark()) by whoever has news for it (its reply, a failure,
 * leadership) and the sleeper is woken by call_wake() after cc->mu is
 * released: a stale wake of a call that has moved on is harmless, as the
 * waiter always looks at its state again under cc->mu.  call_wait()
 * returns when the word is set (0) or DEADLINE (CLOCK_MONOTONIC ms, -1:
 * none) passed (ETIMEDOUT); it may also return early (spuriously): the
 * caller loops.  On Linux every caller of a connection sleeps on its one
 * futex word cc->fx with its own bit (wbit, distinct among 32 call
 * objects): a leader wakes all the callers that one read's replies are
 * for in one system call (FUTEX_WAKE_BITSET, cc_wake()), and a word that
 * changed since the sleeper read it (a wake-up for anyone) makes it look
 * again instead of sleeping. */
#ifdef __linux__
static int call_wait(iiop_call *call, cconn *cc, int64_t deadline)
{
  for (;;) {
    unsigned seq = __atomic_load_n(&cc->fx, __ATOMIC_SEQ_CST);
    /* 0 -> 2 says "asleep": only then does call_mark() ask for a wake-up. */
    int v = 0;
    if (!__atomic_compare_exchange_n(&call->wake, &v, 2, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST) && v == 1)
      return 0;
    struct timespec ts = { (time_t)(deadline / 1000), (long)(deadline % 1000) * 1000000L };
    long r = syscall(SYS_futex, &cc->fx, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, seq,
                     deadline < 0 ? NULL : &ts, NULL, call->wbit);
    if (r != 0 && errno == ETIMEDOUT)
      return __atomic_load_n(&call->wake, __ATOMIC_ACQUIRE) == 1 ? 0 : ETIMEDOUT;
  }
}

/* Wake the callers of CC asleep with a bit of MASK (after call_mark()). */
static void cc_wake(cconn *cc, uint32_t mask)
{
  __atomic_add_fetch(&cc->fx, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &cc->fx, FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, INT32_MAX, NULL, NULL,
          mask);
}

static void call_wake(cconn *cc, iiop_call *call)
{
  cc_wake(cc, call->wbit);
}

/* The callers a leader has marked and wakes together once it has handed
 * out what its read brought (wakes_fire()). */
typedef struct wakes {
  uint32_t mask;
} wakes;

static inline void wakes_add(wakes *w, iiop_call *call)
{
  w->mask |= call->wbit;
}

static inline int wakes_full(const wakes *w)
{
  (void)w;
  return 0;
}

static inline void wakes_fire(cconn *cc, wakes *w)
{
  if (w->mask) {
    cc_wake(cc, w->mask);
    w->mask = 0;
  }
}
#else
static int call_wait(iiop_call *call, cconn *cc, int64_t deadline)
{
  (void)cc;
  int w = 0;
  pthread_mutex_lock(&call->wmu);
  while (w == 0 && __atomic_load_n(&call->wake, __ATOMIC_ACQUIRE) == 0)
    w = cond_wait_until(&call->cv, &call->wmu, deadline);
  if (__atomic_load_n(&call->wake, __ATOMIC_ACQUIRE))
    w = 0;
  pthread_mutex_unlock(&call->wmu);
  return w;
}

static void call_wake(cconn *cc, iiop_call *call)
{
  (void)cc;
  pthread_mutex_lock(&call->wmu);
  pthread_cond_signal(&call->cv);
  pthread_mutex_unlock(&call->wmu);
}

#define WAKES_MAX 16
typedef struct wakes {
  unsigned n;
  iiop_call *v[WAKES_MAX];
} wakes;

static inline void wakes_add(wakes *w, iiop_call *call)
{
  w->v[w->n++] = call;
}

static inline int wakes_full(const wakes *w)
{
  return w->n == WAKES_MAX;
}

static inline void wakes_fire(cconn *cc, wakes *w)
{
  for (unsigned k = 0; k < w->n; k++)
    call_wake(cc, w->v[k]);
  w->n = 0;
}
#endif

/* Under cc->mu: CALL has news (see call_wait()); it needs call_wake() once
 * cc->mu is released when it sleeps.  Returns CALL when it does, else NULL
 * (on Linux also when it waits but is not asleep yet: it finds the word
 * set before it would sleep, and no wake-up system call is needed). */
static iiop_call *call_mark(iiop_call *call)
{
#ifdef __linux__
  int was = __atomic_exchange_n(&call->wake, 1, __ATOMIC_SEQ_CST);
  return call->waiting && was == 2 ? call : NULL;
#else
  __atomic_store_n(&call->wake, 1, __ATOMIC_RELEASE);
  return call->waiting ? call : NULL;
#endif
}

/* ---------------------------------------------------------------- options and client */

void iiop_client_opts_default(iiop_client_opts *o)
{
  memset(o, 0, sizeof *o);
  iiop_limits_default(&o->limits);
  o->timeout_ms = o->limits.call_timeout_ms;
  o->fragment_size = 0;              /* whole up to GIOP_WHOLE_DEFAULT */
  o->max_message = o->limits.max_message;
  o->tls_ca_file = NULL;
  o->tls_verify = 1;
  o->tls_policy = IIOP_TLS_ALLOWED;
  o->native_char = CDR_CS_ISO8859_1;
  o->native_wchar = CDR_CS_UTF16;
  o->max_connections = IIOP_CLIENT_CONNECTIONS_DEFAULT;
  o->calls_per_connection = 1;
}

/* Set the caller's why buffer of O (if any) to FMT. */
static void opts_why(const iiop_client_opts *o, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
static void opts_why(const iiop_client_opts *o, const char *fmt, ...)
{
  if (!o->why || !o->why_cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->why, o->why_cap, fmt, ap);
  va_end(ap);
}

iiop_client *iiop_client_new(const iiop_client_opts *opts)
{
  iiop_client *c = NULL;
  return iiop_client_create(opts, &c) == CDR_OK ? c : NULL;
}

int iiop_client_create(const iiop_client_opts *opts, iiop_client **out)
{
  iiop_client_opts o;
  if (opts)
    o = *opts;
  else
    iiop_client_opts_default(&o);
  if (o.why && o.why_cap)
    o.why[0] = 0;
  if (!out)
    return CDR_E_INVALID;
  *out = NULL;
  if (o.native_char != CDR_CS_ISO8859_1 && o.native_char != CDR_CS_UTF8) {
    opts_why(&o, "native_char 0x%08x is not supported", (unsigned)o.native_char);
    return CDR_E_UNSUPPORTED;
  }
  if (o.native_wchar != 0 && o.native_wchar != CDR_CS_UTF16 && o.native_wchar != CDR_CS_UCS2) {
    opts_why(&o, "native_wchar 0x%08x is not supported", (unsigned)o.native_wchar);
    return CDR_E_UNSUPPORTED;
  }
  /* The older names win when they differ from their defaults; the limits
   * then hold what is used (call_timeout_ms 0: none, as timeout_ms). */
  iiop_limits d;
  iiop_limits_default(&d);
  int call_ms = o.timeout_ms != d.call_timeout_ms ? o.timeout_ms
                : o.limits.call_timeout_ms > 0    ? o.limits.call_timeout_ms
                                                  : d.call_timeout_ms;
  if (o.max_message && o.max_message != d.max_message)
    o.limits.max_message = o.max_message;
  iiop__limits_fill(&o.limits, &d);
  o.max_message = o.limits.max_message;
  o.timeout_ms = call_ms < 0 ? 0 : call_ms;
  o.limits.call_timeout_ms = o.timeout_ms;
  if (o.tls_policy != IIOP_TLS_ALLOWED && o.tls_policy != IIOP_TLS_OFF
      && o.tls_policy != IIOP_TLS_REQUIRED) {
    opts_why(&o, "unknown tls_policy %d", o.tls_policy);
    return CDR_E_INVALID;
  }
  if (o.tls_key_file && !o.tls_cert_file) {
    opts_why(&o, "TLS: tls_key_file without tls_cert_file");
    return CDR_E_INVALID;
  }
  if (o.max_connections > IIOP_CLIENT_CONNECTIONS_MAX) {
    opts_why(&o, "max_connections %u is above %u", (unsigned)o.max_connections,
             (unsigned)IIOP_CLIENT_CONNECTIONS_MAX);
    return CDR_E_INVALID;
  }
  if (o.max_connections == 0)
    o.max_connections = IIOP_CLIENT_CONNECTIONS_DEFAULT;
  if (o.calls_per_connection == 0)
    o.calls_per_connection = 1;
  const cdr_allocator *al = iiop__alloc_or_global(o.alloc);
  iiop_client *c = iiop__malloc(al, sizeof *c);
  if (!c)
    return CDR_E_NOMEM;
  memset(c, 0, sizeof *c);
  c->o = o;
  c->o.why = NULL; /* the caller's, not kept */
  c->o.why_cap = 0;
  c->o.tls_key_password = NULL;
  c->alloc = al;
  c->hold_bound_ms = HOLD_BOUND_MS;
  c->conv_c = o.native_char == CDR_CS_ISO8859_1 ? CDR_CS_UTF8 : CDR_CS_ISO8859_1;
  c->conv_w = o.native_wchar == CDR_CS_UTF16 ? CDR_CS_UCS2 : CDR_CS_UTF16;
  /* A TLS context: with a CA file; or unverified (tests only) when TLS is
   * required or a client certificate is to be presented. */
  if (o.tls_ca_file || (!o.tls_verify && (o.tls_policy == IIOP_TLS_REQUIRED || o.tls_cert_file))) {
    if (o.tls_ca_file) {
      c->ca_file = iiop__strndup(al, o.tls_ca_file, strlen(o.tls_ca_file));
      if (!c->ca_file) {
        iiop__free(al, c);
        return CDR_E_NOMEM;
      }
    }
    iiop__tls_conf cf = { .ca_file = c->ca_file, .verify = o.tls_verify,
                          .cert_file = o.tls_cert_file, .key_file = o.tls_key_file,
                          .key_password = o.tls_key_password };
    int rc = iiop__tls_ctx_new(0, &cf, al, &c->tls, o.why, o.why_cap);
    if (rc != CDR_OK) {
      iiop__free(al, c->ca_file);
      iiop__free(al, c);
      return rc;
    }
    c->has_cert = o.tls_cert_file != NULL;
    c->o.tls_ca_file = c->ca_file;
  } else if (o.tls_cert_file) {
    opts_why(&o, "TLS: tls_cert_file needs a TLS context: tls_ca_file (or tls_verify 0)");
    iiop__free(al, c);
    return CDR_E_INVALID;
  }
  c->o.tls_cert_file = c->o.tls_key_file = NULL; /* loaded; the paths are not kept */
  pthread_mutex_init(&c->err_mu, NULL);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->idle_cv, NULL);
  *out = c;
  return CDR_OK;
}

/* ---------------------------------------------------------------- connections */

static void cconn_unref(iiop_client *cl, cconn *cc)
{
  if (!cc)
    return;
  if (cc->balloc) {                     /* a server's record: iiop__bidir_end() frees it */
    pthread_mutex_lock(&cc->mu);
    if (--cc->refs == 1)
      pthread_cond_broadcast(&cc->endcv);
    pthread_mutex_unlock(&cc->mu);
    return;
  }
  if (__atomic_sub_fetch(&cc->refs, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  iiop__conn_free(cc->conn);
  pthread_cond_destroy(&cc->cs_cv);
  pthread_mutex_destroy(&cc->mu);
  iiop__free(cl->alloc, cc);
}

/* Under cc->mu: the connection is over.  Every pending call fails with
 * STATUS (completion NO when NO is set: the server said CloseConnection, so
 * it will not process them), code-set waiters are released, the transport
 * is shut down (a leader blocked in a read wakes). */
static void conn_fail_locked(cconn *cc, int status, int no)
{
  if (!__atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&cc->dead, status, __ATOMIC_RELEASE);
    cc->dead_no = no;
  }
  for (iiop_call *p = cc->pend; p; p = p->pnext) {
    p->pstate = P_DONE;
    p->pstatus = status;
    p->pno = no;
    /* Woken under cc->mu: a rare path, and the list is gone after it. */
    if (call_mark(p))
      call_wake(cc, p);
  }
  cc->pend = NULL;
  cc->npend = 0;
  for (iiop_call *p = cc->park; p; p = p->park_next) {
    p->parked = 0;
    p->pno = 1;                         /* never written */
  }
  cc->park = cc->park_tail = NULL;
  cc->npark = 0;
  cc->park_due = 0;
  pthread_cond_broadcast(&cc->cs_cv);
  iiop__conn_shutdown(cc->conn);
}

static void conn_fail(cconn *cc, int status, int no)
{
  pthread_mutex_lock(&cc->mu);
  conn_fail_locked(cc, status, no);
  pthread_mutex_unlock(&cc->mu);
}

/* Record WHY (printf format) as the reason of the last connection failure. */
static void client_why(iiop_client *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void client_why(iiop_client *cl, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&cl->err_mu);
  vsnprintf(cl->err, sizeof cl->err, fmt, ap);
  pthread_mutex_unlock(&cl->err_mu);
  va_end(ap);
}

size_t iiop_client_last_error(iiop_client *c, char *buf, size_t cap)
{
  if (!c) {
    if (buf && cap)
      buf[0] = 0;
    return 0;
  }
  pthread_mutex_lock(&c->err_mu);
  size_t n = strlen(c->err);
  if (buf && cap)
    snprintf(buf, cap, "%s", c->err);
  pthread_mutex_unlock(&c->err_mu);
  return n;
}

/* A TLS connection CC failed in WHAT ("read", "write") with CDR_E_TLS:
 * "TLS WHAT from/to HOST:PORT: <OpenSSL's reason>" becomes the last error. */
static void conn_tls_why(iiop_client *cl, cconn *cc, const char *what)
{
  char why[IIOP_TLS_WHY_MAX];
  iiop__tls_io_error(cc->tp, why, sizeof why);
  client_why(cl, "TLS %s %s %s:%u: %s", what, what[0] == 'r' ? "from" : "to", cc->host,
             (unsigned)cc->port, why[0] ? why : "failed");
}

/* Send a header-only message (CancelRequest, MessageError), best effort. */
static void send_small(cconn *cc, int type, uint32_t request_id, uint8_t minor)
{
  if (!__atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE))
    (void)iiop__conn_send_bare(cc->conn, type, request_id, minor);
}

static int open_conn(iiop_client *cl, endpoint *ep, int64_t deadline, cconn **out)
{
  int left = iiop__remaining(deadline);
  if (left == 0)
    return CDR_E_TIMEOUT;
  iiop_transport *t;
  int rc = iiop__tcp_connect(ep->host, ep->port, left < 0 ? 0 : left, cl->alloc, &t);
  if (rc != CDR_OK) {
    char why[128];
    iiop__tcp_connect_why(why, sizeof why);
    client_why(cl, "connect to %s:%u: %s", ep->host, (unsigned)ep->port,
               why[0] ? why : cdr_strerror(rc));
    ccount(cl, CST_CONNECT_FAILED);
    return rc;
  }
  if (ep->tls) {
    left = iiop__remaining(deadline);
    if (left == 0) {
      t->ops->free(t);
      ccount(cl, CST_CONNECT_FAILED);
      return CDR_E_TIMEOUT;
    }
    int hs = cl->o.limits.handshake_timeout_ms;
    if (left < 0 || left > hs)
      left = hs;
    char why[IIOP_TLS_WHY_MAX];
    rc = iiop_tls_connect_why(cl->tls, t, ep->host, left, &t, why, sizeof why);
    if (rc != CDR_OK) {
      client_why(cl, "TLS to %s:%u: %s", ep->host, (unsigned)ep->port, why);
      ccount(cl, CST_CONNECT_FAILED);
      return rc;
    }
  }
  ccount(cl, CST_CONNECTIONS);
  cconn *cc = iiop__malloc(cl->alloc, sizeof *cc);
  if (!cc) {
    t->ops->free(t);
    return CDR_E_NOMEM;
  }
  memset(cc, 0, sizeof *cc);
  iiop_conn_opts co;
  memset(&co, 0, sizeof co);
  co.fragment_size = cl->o.fragment_size;
  co.max_message = cl->o.limits.max_message;
  co.max_fragmented = cl->o.limits.max_fragmented;
  co.send_timeout_ms = cl->o.timeout_ms;
  co.alloc = cl->alloc;
  rc = iiop__conn_new(t, &co, &cc->conn);
  if (rc != CDR_OK) {
    iiop__free(cl->alloc, cc);
    return rc;
  }
  pthread_mutex_init(&cc->mu, NULL);
  cond_init_mono(&cc->cs_cv);
  cc->tp = t;
  cc->host = ep->host;
  cc->port = ep->port;
  cc->refs = 1;
  cc->next_id = 1;
  cc->id_step = 1;
  iiop_server *offer = __atomic_load_n(&cl->offer, __ATOMIC_ACQUIRE);
  if (offer) {
    /* Offering bidirectional GIOP: this side connected, so its request
     * IDs are even (CORBA 3.x Part 2, 15.8), and Requests may come. */
    cc->next_id = 2;
    cc->id_step = 2;
    cc->serve = offer;
  }
  *out = cc;
  return CDR_OK;
}

/* A live connection to EP (a reference for the caller), opening one if
 * needed.  *FRESH: 1 this call opened it, 2 another thread did while this
 * one waited, 0 it was there. */
static cconn *bidir_find(iiop_client *cl, const endpoint *ep);

/* get_conn(), about to connect to EP (ep->connecting set by this thread):
 * a client's connection that offered EP (bidirectional GIOP) is used
 * instead (15.8.1), not cached in EP (its server owns it).  1 and *OUT
 * (a reference), *FRESH 0, ep->connecting cleared; 0: none. */
static __attribute__((noinline)) int bidir_get(iiop_client *cl, endpoint *ep, cconn **out,
                                               int *fresh)
{
  cconn *cc = bidir_find(cl, ep);
  if (!cc)
    return 0;
  pthread_mutex_lock(&ep->mu);
  ep->connecting = 0;
  pthread_cond_broadcast(&ep->cv);
  pthread_mutex_unlock(&ep->mu);
  *out = cc;
  *fresh = 0;
  return 1;
}

/* Under ep->mu: drop EP's dead connections (their references), keeping
 * the order of the others. */
static void pool_sweep(iiop_client *cl, endpoint *ep)
{
  unsigned n = 0;
  for (unsigned i = 0; i < ep->nconns; i++) {
    cconn *c = ep->conns[i];
    if (__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
      cconn_unref(cl, c);
    else
      ep->conns[n++] = c;
  }
  for (unsigned i = n; i < ep->nconns; i++)
    ep->conns[i] = NULL;
  ep->nconns = n;
}

/* Under ep->mu, get_conn()'s slow path: CUR (EP's first connection, NULL
 * or dead: none) holds a reference the caller took, and has calls_per_connection
 * calls of others in flight or more.  Dead connections are dropped; the least
 * loaded one (calls of others: references but EP's) is returned with a
 * reference for the caller (CUR's moved to it, or dropped), or NULL: open
 * another (there is room, no one else connects, and every open one is
 * busy; RENEW: a retry after a closed connection, which opens one
 * whenever there is room). */
static __attribute__((noinline)) cconn *pool_pick(iiop_client *cl, endpoint *ep, cconn *cur,
                                                  int renew)
{
  if (cur)
    __atomic_sub_fetch(&cur->refs, 1, __ATOMIC_RELAXED); /* EP's reference stays */
  pool_sweep(cl, ep);
  cconn *best = NULL;
  int least = 0;
  for (unsigned i = 0; i < ep->nconns; i++) {
    int load = __atomic_load_n(&ep->conns[i]->refs, __ATOMIC_RELAXED) - 1;
    if (!best || load < least) {
      best = ep->conns[i];
      least = load;
    }
  }
  if (!best)
    return NULL;
  int room = ep->nconns < cl->o.max_connections && !ep->connecting;
  if (room && (renew || (uint32_t)least >= cl->o.calls_per_connection))
    return NULL;
  __atomic_add_fetch(&best->refs, 1, __ATOMIC_RELAXED);
  return best;
}

/* A live connection to EP (a reference for the caller): EP's first when it
 * is not busy, else another of EP's or a new one (pool_pick()).  *FRESH: 1
 * this call opened it, 2 another thread did while this one waited, 0 it
 * was there.  RENEW: the previous try found a connection closed; a new
 * one is opened if EP has room. */
static int get_conn(iiop_client *cl, endpoint *ep, int64_t deadline, int renew, cconn **out,
                    int *fresh)
{
  int waited = 0;
  pthread_mutex_lock(&ep->mu);
  for (;;) {
    if (__atomic_load_n(&cl->closing, __ATOMIC_ACQUIRE)) {
      pthread_mutex_unlock(&ep->mu);
      return CDR_E_CLOSED;
    }
    cconn *cur = ep->conns[0];
    if (cur && !__atomic_load_n(&cur->dead, __ATOMIC_ACQUIRE)) {
      /* References: EP's, this caller's, the others' calls. */
      int others = __atomic_add_fetch(&cur->refs, 1, __ATOMIC_RELAXED) - 2;
      if ((uint32_t)others >= cl->o.calls_per_connection || renew)
        cur = pool_pick(cl, ep, cur, renew);
      if (cur) {
        pthread_mutex_unlock(&ep->mu);
        *out = cur;
        *fresh = waited ? 2 : 0;
        return CDR_OK;
      }
    } else if (cur && (cur = pool_pick(cl, ep, NULL, renew)) != NULL) {
      pthread_mutex_unlock(&ep->mu);
      *out = cur;
      *fresh = waited ? 2 : 0;
      return CDR_OK;
    }
    if (!ep->connecting)
      break;
    /* None open: wait for the connect under way (then use it). */
    waited = 1;
    renew = 0;
    if (cond_wait_until(&ep->cv, &ep->mu, deadline) == ETIMEDOUT && ep->connecting) {
      pthread_mutex_unlock(&ep->mu);
      return CDR_E_TIMEOUT;
    }
  }
  ep->connecting = 1;
  pthread_mutex_unlock(&ep->mu);

  cconn *cc = NULL;
  if (__atomic_load_n(&cl->use_srv, __ATOMIC_RELAXED) && bidir_get(cl, ep, out, fresh))
    return CDR_OK;
  int rc = open_conn(cl, ep, deadline, &cc);

  pthread_mutex_lock(&ep->mu);
  ep->connecting = 0;
  if (rc == CDR_OK) {
    cc->refs = 2;                       /* the endpoint's and the caller's */
    pool_sweep(cl, ep);
    if (ep->nconns < IIOP_CLIENT_CONNECTIONS_MAX)  /* (only this thread adds) */
      ep->conns[ep->nconns++] = cc;
    else
      cc->refs = 1;
  }
  pthread_cond_broadcast(&ep->cv);
  pthread_mutex_unlock(&ep->mu);
  if (rc == CDR_OK) {
    *out = cc;
    *fresh = 1;
  }
  return rc;
}

/* ---------------------------------------------------------------- endpoints */

static endpoint *endpoint_get(iiop_client *cl, const char *host, uint16_t port, int tls,
                              uint32_t tcs_c, uint32_t tcs_w)
{
  pthread_mutex_lock(&cl->mu);
  endpoint *ep;
  for (ep = cl->eps; ep; ep = ep->next)
    if (ep->port == port && ep->tls == tls && ep->tcs_c == tcs_c && ep->tcs_w == tcs_w
        && strcmp(ep->host, host) == 0)
      break;
  if (!ep) {
    ep = iiop__malloc(cl->alloc, sizeof *ep);
    char *h = ep ? iiop__strndup(cl->alloc, host, strlen(host)) : NULL;
    if (!h) {
      iiop__free(cl->alloc, ep);
      ep = NULL;
    } else {
      memset(ep, 0, sizeof *ep);
      ep->host = h;
      ep->port = port;
      ep->tls = (uint8_t)tls;
      ep->tcs_c = tcs_c;
      ep->tcs_w = tcs_w;
      pthread_mutex_init(&ep->mu, NULL);
      cond_init_mono(&ep->cv);
      ep->next = cl->eps;
      cl->eps = ep;
    }
  }
  pthread_mutex_unlock(&cl->mu);
  return ep;
}

/* Note the peer's ORB type from profile P: omniORB's server (4.2) does not
 * end the input message of a CancelRequest (GIOP_S::handleCancelRequest),
 * so when another message follows in the same read it handles the
 * CancelRequest again, forever, at full CPU.  CancelRequest is advisory:
 * such a peer does not get one. */
static void note_orb_type(endpoint *ep, const iiop_profile *p)
{
  const iiop_component *ot = iiop_profile_component(p, IIOP_TAG_ORB_TYPE);
  uint32_t type;
  if (ot && iiop_orb_type_decode(ot, &type) == CDR_OK && type == IIOP_ORB_TYPE_OMNIORB)
    __atomic_store_n(&ep->no_cancel, 1, __ATOMIC_RELAXED);
}

/* The reference's TAG_SSL_SEC_TRANS target_requires REQ (CORBA 3.x Security,
 * CSIv2: SSLIOP::SSL, AssociationOptions) against what the client would do
 * for profile P (TLS: over TLS to the component's port SP).  Integrity or
 * Confidentiality required and plain IIOP: CDR_E_TLS, never plaintext.
 * EstablishTrustInClient required and no client certificate is not refused
 * here: omniORB 4.2 requires it in every SSL IOR whatever its verify mode, so
 * the handshake tells (a server that does verify refuses it, and the call's
 * text carries its alert, "certificate required").  The reason goes to
 * client_why(). */
static int tls_requires_check(iiop_client *cl, const iiop_profile *p, uint16_t req,
                              uint16_t sp, int tls)
{
  const uint16_t prot = IIOP_SEC_INTEGRITY | IIOP_SEC_CONFIDENTIALITY;
  if (!tls && (req & prot)) {
    client_why(cl, "TLS required by the reference to %s:%u (target_requires 0x%04x) but %s",
               p->host, (unsigned)p->port, (unsigned)req,
               cl->o.tls_policy == IIOP_TLS_OFF ? "the client's tls_policy is IIOP_TLS_OFF"
               : !cl->tls                       ? "the client has no TLS context (no tls_ca_file)"
               : sp == 0                        ? "it offers no TLS port"
                                                : "TLS is not used");
    return CDR_E_TLS;
  }
  return CDR_OK;
}

/* Where an IIOP profile says to go: host, port and TLS (TAG_SSL_SEC_TRANS
 * with a CA file configured: the component's port over TLS).  Errors:
 * CDR_E_UNSUPPORTED (TLS only, and no CA file), the component's. */
static int profile_target(iiop_client *cl, const iiop_profile *p, uint16_t *port, int *tls)
{
  *port = p->port;
  *tls = 0;
  const iiop_component *ssl = iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS);
  if (cl->o.tls_policy == IIOP_TLS_REQUIRED) {
    uint16_t sp = 0, req = 0;
    if (!cl->tls) {
      client_why(cl, "TLS required but not configured: no tls_ca_file (and tls_verify on)");
      return CDR_E_TLS;
    }
    if (!ssl || iiop_ssl_component_decode(ssl, NULL, &req, &sp) != CDR_OK || sp == 0) {
      client_why(cl, "TLS required but the reference to %s:%u offers no TLS port", p->host,
                 (unsigned)p->port);
      return CDR_E_TLS;
    }
    *port = sp;
    *tls = 1;
    return tls_requires_check(cl, p, req, sp, 1);
  }
  uint16_t req = 0;
  if (ssl) {
    uint16_t sp = 0;
    int rc = iiop_ssl_component_decode(ssl, NULL, &req, &sp);
    if (rc != CDR_OK)
      return rc;
    if (sp && cl->tls && cl->o.tls_policy != IIOP_TLS_OFF) {
      *port = sp;
      *tls = 1;
    }
    if ((rc = tls_requires_check(cl, p, req, sp, *tls)) != CDR_OK)
      return rc;
  }
  if (*port == 0)
    return CDR_E_UNSUPPORTED;
  return CDR_OK;
}

/* ---------------------------------------------------------------- references */

static int has_prefix(const char *s, const char *p) { return strncasecmp(s, p, strlen(p)) == 0; }

static int resolve_at(iiop_client *c, const char *str, int depth, iiop_ref **out);

int iiop_client_resolve(iiop_client *c, const char *str, iiop_ref **out)
{
  if (!c || !str || !out)
    return CDR_E_INVALID;
  return resolve_at(c, str, 0, out);
}

/* IOR: and corbaloc: URLs other than rir:. */
static int resolve_plain(iiop_client *c, const char *str, iiop_ref **out)
{
  iiop_ref *r = iiop__malloc(c->alloc, sizeof *r);
  if (!r)
    return CDR_E_NOMEM;
  memset(r, 0, sizeof *r);
  r->cl = c;
  r->alloc = c->alloc;
  cdr_arena_init(&r->arena, c->alloc);

  const char *host;
  uint16_t port;
  int tls = 0, rc;
  uint8_t minor;
  const iiop_profile *prof = NULL;
  const iiop_codeset_info *csi = NULL;
  iiop_codeset_info info;
  if (has_prefix(str, "IOR:")) {
    iiop_ior ior;
    rc = iiop_ior_from_string(str, &r->arena, &ior);
    if (rc != CDR_OK)
      goto fail;
    const iiop_profile *p = iiop_ior_iiop_profile(&ior);
    if (!p) {
      rc = CDR_E_UNSUPPORTED;
      goto fail;
    }
    rc = profile_target(c, p, &port, &tls);
    if (rc != CDR_OK)
      goto fail;
    const iiop_component *cs = iiop_profile_component(p, IIOP_TAG_CODE_SETS);
    if (cs) {
      rc = iiop_codeset_info_decode(cs, &r->arena, &info);
      if (rc != CDR_OK)
        goto fail;
      csi = &info;
    }
    prof = p;
    host = p->host;
    minor = p->minor;
    r->key = p->key;
    r->key_len = p->key_len;
  } else if (has_prefix(str, "corbaloc:")) {
    iiop_corbaloc loc;
    rc = iiop_corbaloc_parse(str, &r->arena, &loc);
    if (rc != CDR_OK)
      goto fail;
    if (loc.naddrs == 0) {
      rc = CDR_E_INVALID;
      goto fail;
    }
    if (loc.addrs[0].tls) {
      /* ssliop: TLS only (the IOR omniORB makes of it has port 0) */
      if (c->o.tls_policy == IIOP_TLS_REQUIRED && !c->tls) {
        client_why(c, "TLS required but not configured: no tls_ca_file (and tls_verify on)");
        rc = CDR_E_TLS;
        goto fail;
      }
      if (!c->tls || c->o.tls_policy == IIOP_TLS_OFF) {
        client_why(c, "a corbaloc ssliop address needs TLS, but %s",
                   c->o.tls_policy == IIOP_TLS_OFF ? "the client's tls_policy is IIOP_TLS_OFF"
                                                   : "the client has no TLS context (no tls_ca_file)");
        rc = CDR_E_UNSUPPORTED;
        goto fail;
      }
      tls = 1;
    } else if (c->o.tls_policy == IIOP_TLS_REQUIRED) {
      client_why(c, "TLS required but a corbaloc iiop address has no TLS port");
      rc = CDR_E_TLS;
      goto fail;
    }
    host = loc.addrs[0].host;
    port = loc.addrs[0].port;
    minor = loc.addrs[0].minor;
    r->key = loc.key;
    r->key_len = loc.key_len;
  } else {
    rc = CDR_E_INVALID;
    goto fail;
  }
  if (minor > 2)
    minor = 2;

  uint32_t tcs_c = iiop_codeset_negotiate(c->o.native_char, &c->conv_c, 1,
                                          csi ? &csi->for_char : NULL, 0);
  uint32_t tcs_w = c->o.native_wchar
                     ? iiop_codeset_negotiate(c->o.native_wchar, &c->conv_w, 1,
                                              csi ? &csi->for_wchar : NULL, 1)
                     : 0;
  cdr_opts_default(&r->opts);
  r->opts.alloc = c->o.alloc; /* NULL keeps libcdr's pooled stream buffers */
  r->opts.max_string = c->o.limits.max_string;
  r->opts.max_seq = c->o.limits.max_sequence;
  r->opts.max_depth = c->o.limits.max_depth;
  r->opts.giop_major = 1;
  r->opts.giop_minor = minor;
  r->opts.ncs_c = c->o.native_char;
  if (tcs_c == CDR_CS_ISO8859_1 || tcs_c == CDR_CS_UTF8) {
    r->opts.tcs_c = tcs_c;
  } else {
    r->opts.tcs_c = CDR_CS_ISO8859_1;
    r->cs_bad = 1;
  }
  r->opts.tcs_w = tcs_w == CDR_CS_UTF16 || tcs_w == CDR_CS_UCS2 ? tcs_w : 0;

  r->ep = endpoint_get(c, host, port, tls, r->opts.tcs_c, r->opts.tcs_w);
  if (!r->ep) {
    rc = CDR_E_NOMEM;
    goto fail;
  }
  if (prof)
    note_orb_type(r->ep, prof);
  r->orig.ep = r->ep;
  r->orig.key = r->key;
  r->orig.key_len = r->key_len;
  r->base = &r->orig;
  r->timeout_ms = IIOP_TIMEOUT_INHERIT;
  pthread_mutex_init(&r->mu, NULL);
  *out = r;
  return CDR_OK;

fail:
  cdr_arena_free(&r->arena);
  iiop__free(c->alloc, r);
  return rc;
}

int iiop_ref_set_timeout(iiop_ref *r, int ms)
{
  if (!r || ms < IIOP_TIMEOUT_INHERIT)
    return CDR_E_INVALID;
  __atomic_store_n(&r->timeout_ms, ms, __ATOMIC_RELAXED);
  return CDR_OK;
}

int iiop_ref_timeout(const iiop_ref *r)
{
  return r ? __atomic_load_n(&r->timeout_ms, __ATOMIC_RELAXED) : IIOP_TIMEOUT_INHERIT;
}

/* ---------------------------------------------------------------- a reference's contexts */

static void sc_free_list(const cdr_allocator *alloc, scblock *b)
{
  while (b) {
    scblock *n = b->next;
    iiop__free(alloc, b);
    b = n;
  }
}

/* For iiop_call_begin(): R's current block, held until iiop_call_end().
 * The increment comes before the load and the writer's store before its
 * check of sc_users (all sequentially consistent): a writer that sees no
 * user frees a block no call can still load. */
static scblock *sc_take(iiop_ref *r)
{
  __atomic_add_fetch(&r->sc_users, 1, __ATOMIC_SEQ_CST);
  scblock *b = __atomic_load_n(&r->sc, __ATOMIC_SEQ_CST);
  if (!b)
    __atomic_sub_fetch(&r->sc_users, 1, __ATOMIC_SEQ_CST);
  return b;
}

/* Under r->mu: publish NB (NULL: no contexts) in place of R's block. */
static void sc_publish(iiop_ref *r, scblock *nb)
{
  scblock *old = __atomic_exchange_n(&r->sc, nb, __ATOMIC_SEQ_CST);
  if (old) {
    old->next = r->sc_old;
    r->sc_old = old;
  }
  if (__atomic_load_n(&r->sc_users, __ATOMIC_SEQ_CST) == 0) {
    sc_free_list(r->alloc, r->sc_old);
    r->sc_old = NULL;
  }
}

/* Under r->mu: a copy of R's contexts with ID set to DATA (LEN octets),
 * or without ID (DEL); NULL and *RC on error, NULL and CDR_OK for an empty
 * list. */
static scblock *sc_edit(iiop_ref *r, uint32_t id, const void *data, size_t len, int del, int *rc)
{
  const scblock *cur = __atomic_load_n(&r->sc, __ATOMIC_SEQ_CST);
  uint32_t n = cur ? cur->n : 0, at = n, out = 0;
  size_t total = 0;
  for (uint32_t k = 0; k < n; k++) {
    if (cur->v[k].id == id && at == n)
      at = k;
    else
      total += cur->v[k].len;
  }
  *rc = CDR_OK;
  if (del && at == n) {
    *rc = CDR_E_INVALID;
    return NULL;
  }
  if (!del && at == n && n >= IIOP_SC_ADD_MAX) {
    *rc = CDR_E_LIMIT;
    return NULL;
  }
  if (!del)
    total += len;
  if (n - (del ? 1 : 0) + (at == n ? 1 : 0) == 0)
    return NULL;
  scblock *b = iiop__malloc(r->alloc, sizeof *b + (total ? total : 1));
  if (!b) {
    *rc = CDR_E_NOMEM;
    return NULL;
  }
  uint8_t *d = (uint8_t *)(b + 1);
  for (uint32_t k = 0; k <= n; k++) {
    const void *src;
    uint32_t l, kid;
    if (k == at) {
      if (del)
        continue;
      src = data;
      l = (uint32_t)len;
      kid = id;
    } else if (k == n) {
      break;
    } else {
      src = cur->v[k].data;
      l = cur->v[k].len;
      kid = cur->v[k].id;
    }
    if (l)
      memcpy(d, src, l);
    b->v[out].id = kid;
    b->v[out].len = l;
    b->v[out].data = d;
    out++;
    d += l;
  }
  b->n = out;
  b->next = NULL;
  return b;
}

int iiop_ref_set_service_context(iiop_ref *r, uint32_t id, const void *data, size_t len)
{
  if (!r || (!data && len))
    return CDR_E_INVALID;
  if (len > IIOP_SC_DATA_MAX)
    return CDR_E_LIMIT;
  pthread_mutex_lock(&r->mu);
  int rc;
  scblock *b = sc_edit(r, id, data, len, 0, &rc);
  if (rc == CDR_OK)
    sc_publish(r, b);
  pthread_mutex_unlock(&r->mu);
  return rc;
}

int iiop_ref_remove_service_context(iiop_ref *r, uint32_t id)
{
  if (!r)
    return CDR_E_INVALID;
  pthread_mutex_lock(&r->mu);
  int rc;
  scblock *b = sc_edit(r, id, NULL, 0, 1, &rc);
  if (rc == CDR_OK)
    sc_publish(r, b);
  pthread_mutex_unlock(&r->mu);
  return rc;
}

void iiop_ref_free(iiop_ref *r)
{
  if (!r)
    return;
  while (r->targets) {
    target *t = r->targets;
    r->targets = t->next;
    iiop__free(r->alloc, t);
  }
  sc_free_list(r->alloc, r->sc_old);
  sc_free_list(r->alloc, r->sc);
  pthread_mutex_destroy(&r->mu);
  cdr_arena_free(&r->arena);
  iiop__free(r->alloc, r);
}

/* ---------------------------------------------------------------- initial references, corbaname */

int iiop_client_set_initial_reference(iiop_client *c, const char *id, const char *url)
{
  if (!c || !id || !*id)
    return CDR_E_INVALID;
  struct initref *n = NULL;
  if (url) {
    size_t il = strlen(id) + 1, ul = strlen(url) + 1;
    n = iiop__malloc(c->alloc, sizeof *n + il + ul);
    if (!n)
      return CDR_E_NOMEM;
    memcpy(n->id, id, il);
    n->url = n->id + il;
    memcpy(n->url, url, ul);
  }
  pthread_mutex_lock(&c->err_mu);
  struct initref **pp = &c->irefs, *old = NULL;
  for (; *pp; pp = &(*pp)->next)
    if (!strcmp((*pp)->id, id)) {
      old = *pp;
      *pp = old->next;
      break;
    }
  if (n) {
    n->next = c->irefs;
    c->irefs = n;
  }
  pthread_mutex_unlock(&c->err_mu);
  iiop__free(c->alloc, old);
  return CDR_OK;
}

/* The URL of initial reference ID, copied into A; NULL if none (or no
 * memory: *NOMEM set). */
static char *initref_get(iiop_client *c, const char *id, cdr_arena *a, int *nomem)
{
  char *u = NULL;
  pthread_mutex_lock(&c->err_mu);
  for (struct initref *ir = c->irefs; ir; ir = ir->next)
    if (!strcmp(ir->id, id)) {
      size_t n = strlen(ir->url) + 1;
      u = cdr_arena_alloc(a, n, 1);
      if (u)
        memcpy(u, ir->url, n);
      else
        *nomem = 1;
      break;
    }
  pthread_mutex_unlock(&c->err_mu);
  return u;
}

/* How many rir: and corbaname: indirections one resolve follows (an
 * initial reference may itself be "corbaloc:rir:/..."), as libcorbaorb. */
#define MAX_RESOLVE_DEPTH 8

#define NS_NOTFOUND "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0"
#define NS_CANNOTPROCEED "IDL:omg.org/CosNaming/NamingContext/CannotProceed:1.0"
#define NS_INVALIDNAME "IDL:omg.org/CosNaming/NamingContext/InvalidName:1.0"

/* Append S to B (CAP octets, *LEN used, kept NUL-terminated; what does
 * not fit is cut), '/', '.' and '\\' escaped by '\\' when ESC. */
static void text_put(char *b, size_t cap, size_t *len, const char *s, int esc)
{
  for (; *s && *len + 1 < cap; s++) {
    if (esc && (*s == '/' || *s == '.' || *s == '\\')) {
      if (*len + 2 >= cap)
        break;
      b[(*len)++] = '\\';
    }
    b[(*len)++] = *s;
  }
  b[*len] = '\0';
}

/* Append to B (CAP octets, *LEN used) the string name (Naming Service 2.4,
 * escaped) of the sequence<NameComponent> at I: "a\\.b.k/c"; the stream's
 * status. */
static int read_name_text(cdr_in *i, char *b, size_t cap, size_t *len)
{
  uint32_t n = cdr_get_ulong(i);
  for (uint32_t k = 0; k < n && cdr_in_status(i) == CDR_OK; k++) {
    const char *id = "", *kind = "";
    uint32_t l;
    if (cdr_get_string_view(i, &id, &l) != CDR_OK || cdr_get_string_view(i, &kind, &l) != CDR_OK)
      break;
    if (k)
      text_put(b, cap, len, "/", 0);
    text_put(b, cap, len, id, 1);
    if (*kind || !*id) {
      text_put(b, cap, len, ".", 0);
      text_put(b, cap, len, kind, 1);
    }
  }
  return cdr_in_status(i);
}

/* NamingContext::resolve(N) on CTX (Naming Service 1.3, 2.2.5: in
 * sequence<NameComponent{string id; string kind}>, returns Object), the
 * reply's reference resolved as an IOR into *OUT. */
static int naming_resolve(iiop_client *c, iiop_ref *ctx, const char *url,
                          const iiop_corbaname *cn, iiop_ref **out)
{
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(ctx, "resolve", 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  cdr_put_ulong(args, (uint32_t)cn->ncomps);
  for (size_t k = 0; k < cn->ncomps; k++) {
    cdr_put_string(args, cn->comps[k].id);
    cdr_put_string(args, cn->comps[k].kind);
  }
  cdr_in *res = NULL;
  rc = iiop_call_invoke(call, &res);
  if (rc == CDR_OK) {
    iiop_ior ior;
    char *s = NULL;
    rc = iiop_ior_read(res, &ior);
    if (rc == CDR_OK && ior.nprofiles == 0) {
      client_why(c, "%s: bound to a nil reference", url);
      rc = CDR_E_NOTFOUND;
    }
    if (rc == CDR_OK)
      rc = iiop_ior_to_string(&ior, CDR_HOST_ORDER, cdr_in_arena(res), &s);
    if (rc == CDR_OK)
      rc = resolve_plain(c, s, out);
  } else if (rc == IIOP_R_USER_EXCEPTION) {
    const char *id = "";
    uint32_t l;
    char text[IIOP_CLIENT_ERROR_MAX / 2];
    size_t tl = 0;
    text[0] = 0;
    rc = cdr_get_string_view(res, &id, &l);
    if (rc == CDR_OK && !strcmp(id, NS_NOTFOUND)) {
      static const char *const why[] = { "missing_node", "not_context", "not_object" };
      uint32_t w = cdr_get_ulong(res);
      text_put(text, sizeof text, &tl, " (", 0);
      text_put(text, sizeof text, &tl, w < 3 ? why[w] : "?", 0);
      text_put(text, sizeof text, &tl, ", rest of name ", 0);
      (void)read_name_text(res, text, sizeof text, &tl);
      text_put(text, sizeof text, &tl, ")", 0);
      rc = CDR_E_NOTFOUND;
    } else if (rc == CDR_OK && !strcmp(id, NS_CANNOTPROCEED)) {
      rc = CDR_E_NOTFOUND;
    } else if (rc == CDR_OK && !strcmp(id, NS_INVALIDNAME)) {
      rc = CDR_E_INVALID;
    } else if (rc == CDR_OK) {
      rc = CDR_E_TYPE; /* resolve raises no other user exception */
    }
    client_why(c, "%s: %s%s", url, id, text);
  } else if (rc == IIOP_R_SYSTEM_EXCEPTION) {
    const giop_system_exception *se = iiop_call_exception(call);
    client_why(c, "%s: resolve raised %s (minor 0x%08x)", url, se->repo_id,
               (unsigned)se->minor);
    rc = CDR_E_NOTFOUND;
  }
  iiop_call_end(call);
  return rc;
}

static int resolve_at(iiop_client *c, const char *str, int depth, iiop_ref **out)
{
  int rir = has_prefix(str, "corbaloc:") && !strncmp(str + 9, "rir:", 4);
  int cname = has_prefix(str, "corbaname:");
  if (!rir && !cname)
    return resolve_plain(c, str, out);
  if (depth >= MAX_RESOLVE_DEPTH) {
    client_why(c, "%s: more than %d rir:/corbaname: indirections", str, MAX_RESOLVE_DEPTH);
    return CDR_E_LIMIT;
  }
  cdr_arena a;
  cdr_arena_init(&a, c->alloc);
  int rc;
  if (rir) {
    char key[256];
    int nomem = 0;
    rc = iiop_rir_key(str + 13, key, sizeof key);
    if (rc == CDR_E_LIMIT)
      rc = CDR_E_INVALID;
    if (rc == CDR_E_INVALID)
      client_why(c, "%s: malformed corbaloc:rir: URL", str);
    const char *url = rc == CDR_OK ? initref_get(c, key, &a, &nomem) : NULL;
    if (rc == CDR_OK && !url) {
      if (!nomem)
        client_why(c, "%s: no initial reference \"%s\"", str, key);
      rc = nomem ? CDR_E_NOMEM : CDR_E_NOTFOUND;
    }
    if (rc == CDR_OK)
      rc = resolve_at(c, url, depth + 1, out);
  } else {
    iiop_corbaname cn;
    iiop_ref *ctx = NULL;
    rc = iiop_corbaname_parse(str, &a, &cn);
    if (rc == CDR_E_INVALID)
      client_why(c, "%s: malformed corbaname URL", str);
    if (rc == CDR_OK)
      rc = resolve_at(c, cn.base, depth + 1, cn.has_name ? &ctx : out);
    if (rc == CDR_OK && cn.has_name) {
      rc = naming_resolve(c, ctx, str, &cn, out);
      iiop_ref_free(ctx);
    }
  }
  cdr_arena_free(&a);
  return rc;
}

/* ---------------------------------------------------------------- calls */

static int opts_equal(const cdr_opts *a, const cdr_opts *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Make O an empty stream with options OPTS, keeping its buffer when the
 * options have not changed. */
static void out_prepare(cdr_out *o, uint8_t *live, cdr_opts *cur, const cdr_opts *opts)
{
  if (*live && opts_equal(cur, opts)) {
    cdr_out_reset(o);
    return;
  }
  if (*live)
    cdr_out_close(o);
  cdr_out_init(o, opts);
  *cur = *opts;
  *live = 1;
}

static iiop_call *call_get(iiop_client *cl)
{
  pthread_mutex_lock(&cl->mu);
  iiop_call *call = cl->free_calls;
  if (call) {
    cl->free_calls = call->next_free;
    cl->nfree--;
  }
  cl->live_calls++;
  pthread_mutex_unlock(&cl->mu);
  if (call)
    return call;
  call = iiop__malloc(cl->alloc, sizeof *call);
  if (call) {
    memset(call, 0, sizeof *call);
    call->cl = cl;
    call->wbit = 1u << (__atomic_fetch_add(&cl->wbit_next, 1, __ATOMIC_RELAXED) & 31);
    cond_init_mono(&call->cv);
    pthread_mutex_init(&call->wmu, NULL);
    /* memset made the opts all-zero: never equal to real ones, so the
     * first out_prepare() initialises the streams. */
  } else {
    pthread_mutex_lock(&cl->mu);
    cl->live_calls--;
    pthread_mutex_unlock(&cl->mu);
  }
  return call;
}

static void call_destroy(iiop_call *call)
{
  if (call->out_live)
    cdr_out_close(&call->out);
  if (call->out2_live)
    cdr_out_close(&call->out2);
  pthread_cond_destroy(&call->cv);
  pthread_mutex_destroy(&call->wmu);
  iiop__free(call->cl->alloc, call);
}

static void call_put(iiop_client *cl, iiop_call *call)
{
  pthread_mutex_lock(&cl->mu);
  if (cl->nfree < CALL_POOL_MAX && !__atomic_load_n(&cl->closing, __ATOMIC_ACQUIRE)) {
    call->next_free = cl->free_calls;
    cl->free_calls = call;
    cl->nfree++;
    call = NULL;
  }
  if (--cl->live_calls == 0)
    pthread_cond_broadcast(&cl->idle_cv);
  pthread_mutex_unlock(&cl->mu);
  if (call)
    call_destroy(call);
}

int iiop_call_begin(iiop_ref *r, const char *operation, int oneway, iiop_call **out,
                    cdr_out **args)
{
  if (!r || !operation || !out || !args)
    return CDR_E_INVALID;
  iiop_client *cl = r->cl;
  iiop_call *call = call_get(cl);
  if (!call)
    return CDR_E_NOMEM;
  call->arena = cdr_arena_get();
  size_t ol = strlen(operation);
  char *op = call->arena && ol < UINT32_MAX ? cdr_arena_alloc(call->arena, ol + 1, 1) : NULL;
  if (!op) {
    if (call->arena)
      cdr_arena_put(call->arena);
    call->arena = NULL;
    call_put(cl, call);
    return CDR_E_NOMEM;
  }
  memcpy(op, operation, ol + 1);
  call->ref = r;
  call->op = op;
  call->op_len = (uint32_t)ol;
  call->oneway = oneway != 0;
  call->timeout_ms = IIOP_TIMEOUT_INHERIT;
  call->invoked = call->has_ex = call->msg_live = 0;
  call->cc = NULL;
  call->reply = NULL;
  call->pstate = P_IDLE;
  call->nsc = 0;
  call->rsc = __atomic_load_n(&r->sc, __ATOMIC_ACQUIRE) ? sc_take(r) : NULL;

  out_prepare(&call->out, &call->out_live, &call->out_opts, &r->opts);
  /* Arguments may be written by reference (cdr_put_string_ref() and the
   * others): the request goes out as a gather list. */
  cdr_out_set_gather(&call->out, true);
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.response_flags = call->oneway ? GIOP_RESPONSE_NONE : GIOP_RESPONSE_EXPECTED;
  h.target.disposition = GIOP_KEY_ADDR;
  const target *t = __atomic_load_n(&r->fwd, __ATOMIC_ACQUIRE);
  if (!t)
    t = __atomic_load_n(&r->base, __ATOMIC_ACQUIRE);
  call->hdr_key = t->key;
  h.target.key = t->key;
  h.target.key_len = t->key_len;
  h.operation = op;
  h.operation_len = call->op_len;
  giop_begin_request(&call->out, &h);
  call->hdr_end = cdr_out_size(&call->out);
  giop_begin_body(&call->out);
  call->body_start = cdr_out_size(&call->out);
  if (r->cs_bad)
    cdr_out_fail(&call->out, CDR_E_CODESET, "no char code set in common with the server");
  *out = call;
  *args = &call->out;
  return CDR_OK;
}

/* ---------------------------------------------------------------- local exceptions */

enum { PH_CONNECT, PH_SEND, PH_WAIT, PH_FORWARD /* told to go elsewhere */ };

/* Record the system exception a local failure RC maps to. */
static void set_local_ex(iiop_call *call, int rc, int phase, int completed_no)
{
  const char *name;
  uint32_t minor = 0;
  uint32_t completed = completed_no ? GIOP_COMPLETED_NO : GIOP_COMPLETED_MAYBE;
  switch (rc) {
  case CDR_E_CLOSED:
  case CDR_E_IO:
  case CDR_E_TLS:
    /* omniORB's minors (docs/wire-notes.md, "Minor codes of local
     * failures"): no connection made; a connection lost before the
     * request was (wholly) sent or processed; lost while waiting. */
    name = phase == PH_CONNECT || completed_no ? "TRANSIENT" : "COMM_FAILURE";
    if (phase == PH_CONNECT) {
      completed = GIOP_COMPLETED_NO;
      minor = IIOP_MINOR_CONNECT_FAILED;
    } else {
      minor = completed_no ? IIOP_MINOR_CONNECTION_CLOSED : IIOP_MINOR_WAITING_FOR_REPLY;
    }
    break;
  case CDR_E_TIMEOUT:
    /* omniORB 4.2 too: TIMEOUT_CallTimedOutOnClient, also while connecting
     * (completion NO then; docs/wire-notes.md). */
    name = "TIMEOUT";
    if (phase == PH_CONNECT)
      completed = GIOP_COMPLETED_NO;
    minor = IIOP_MINOR_CALL_TIMED_OUT;
    break;
  case CDR_E_PROTOCOL:
    name = "COMM_FAILURE";
    minor = IIOP_MINOR_UNMARSHAL_RESULTS;
    break;
  case CDR_E_UNSUPPORTED:
    name = phase == PH_CONNECT ? "INV_OBJREF" : "NO_IMPLEMENT";
    break;
  case CDR_E_LIMIT:
    /* A reply (or a message read with it) over max_message or
     * max_fragmented: omniORB's MARSHAL_MessageSizeExceedLimitOnClient.
     * Elsewhere (too many forwards, the request's own limits) IMP_LIMIT. */
    name = phase == PH_WAIT ? "MARSHAL" : "IMP_LIMIT";
    if (phase == PH_WAIT)
      minor = IIOP_MINOR_MESSAGE_SIZE;
    if (phase == PH_CONNECT)
      completed = GIOP_COMPLETED_NO;
    break;
  default:
    name = cdr_status_exception(rc);
    if (!name)
      name = "UNKNOWN";
    if (phase == PH_CONNECT)
      completed = GIOP_COMPLETED_NO;
    break;
  }
  call->ex.repo_id = giop_system_exception_id(name);
  call->ex.minor = minor;
  call->ex.completed = completed;
  call->has_ex = 1;
}

/* ---------------------------------------------------------------- sending */

static void pend_add(cconn *cc, iiop_call *call)
{
  cc->npend++;
  call->pprev = NULL;
  call->pnext = cc->pend;
  if (cc->pend)
    cc->pend->pprev = call;
  cc->pend = call;
}

static void pend_remove(cconn *cc, iiop_call *call)
{
  cc->npend--;
  if (call->pprev)
    call->pprev->pnext = call->pnext;
  else
    cc->pend = call->pnext;
  if (call->pnext)
    call->pnext->pprev = call->pprev;
  call->pprev = call->pnext = NULL;
}

static iiop_call *pend_find(cconn *cc, uint32_t id)
{
  for (iiop_call *p = cc->pend; p; p = p->pnext)
    if (p->req_id == id)
      return p;
  return NULL;
}

/* Cut the gather list V[0..N) at octet FROM and after LEN octets from
 * there (in place); the entries left. */
static int iov_slice(struct iovec *v, int n, size_t from, size_t len)
{
  int k = 0, out = 0;
  for (; k < n && from >= v[k].iov_len; k++)
    from -= v[k].iov_len;
  for (; k < n && len > 0; k++) {
    size_t take = v[k].iov_len - from;
    if (take > len)
      take = len;
    v[out].iov_base = (uint8_t *)v[k].iov_base + from;
    v[out].iov_len = take;
    out++;
    len -= take;
    from = 0;
  }
  return out;
}

/* The request to send on CC as the gather list V[0..*NV), *LEN octets: the
 * prepared one with its request ID patched, or a new header (CodeSets
 * context, another object key) with the body's pieces behind it (the
 * octets the stub wrote by reference are never copied). */
static int build_request(iiop_call *call, const uint8_t *key, uint32_t key_len, uint32_t id,
                         int with_cs, struct iovec v[REQ_IOV], int *nv, size_t *len)
{
  int minor = call->out_opts.giop_minor;
  if (!with_cs && key == call->hdr_key && !call->nsc && !call->rsc) {
    int rc = giop_patch_request_id(&call->out, id); /* the header has no contexts */
    if (rc != CDR_OK)
      return rc;
    int n = cdr_out_iov(&call->out, v, REQ_IOV);
    if (n < 1)
      return CDR_E_INVALID;
    *nv = iov_slice(v, n, 0, call->msg_len);
    *len = call->msg_len;
    return CDR_OK;
  }
  uint8_t csd[12];
  giop_codeset_context cs = { call->out_opts.tcs_c, call->out_opts.tcs_w };
  giop_codeset_context_encode(&cs, csd);
  /* CodeSets first, then the reference's contexts, then the call's. */
  giop_service_context scl[2 + 2 * IIOP_SC_ADD_MAX];
  uint32_t nsc = 0;
  if (with_cs) {
    scl[nsc].id = GIOP_SC_CODE_SETS;
    scl[nsc].len = sizeof csd;
    scl[nsc++].data = csd;
    /* Offering bidirectional GIOP (1.2 only): the listen point goes with
     * the connection's first request (CORBA 3.x Part 2, 15.8). */
    if (with_cs == 2) {
      scl[nsc].id = GIOP_SC_BI_DIR_IIOP;
      scl[nsc].len = (uint32_t)call->cl->bd_len;
      scl[nsc++].data = call->cl->bd_ctx;
    }
  }
  if (call->rsc) {
    memcpy(scl + nsc, call->rsc->v, call->rsc->n * sizeof *scl);
    nsc += call->rsc->n;
  }
  if (call->nsc) {
    memcpy(scl + nsc, call->sc, call->nsc * sizeof *scl);
    nsc += call->nsc;
  }
  static const uint8_t zeros[8];
  giop_request_header h;
  memset(&h, 0, sizeof h);
  h.request_id = id;
  h.response_flags = call->oneway ? GIOP_RESPONSE_NONE : GIOP_RESPONSE_EXPECTED;
  h.target.disposition = GIOP_KEY_ADDR;
  h.target.key = key;
  h.target.key_len = key_len;
  h.operation = call->op;
  h.operation_len = call->op_len;
  h.contexts.n = nsc;
  h.contexts.v = nsc ? scl : NULL;
  cdr_out *o = &call->out2;
  for (int pass = 0; pass < 2; pass++) {
    out_prepare(o, &call->out2_live, &call->out2_opts, &call->out_opts);
    giop_begin_request(o, &h);
    if (call->body_len == 0)
      break;
    if (minor >= 2) {
      giop_begin_body(o);
      break;
    }
    /* 1.0/1.1: the body must start where it started, modulo 8. */
    uint32_t pad = (uint32_t)((call->body_start - cdr_out_size(o)) & 7);
    if (pad == 0 || pass == 1)
      break;
    h.principal = zeros;
    h.principal_len = pad;
  }
  int rc = giop_end(o);
  if (rc != CDR_OK)
    return rc;
  size_t hl = cdr_out_size(o);
  if (hl - GIOP_HEADER_SIZE + call->body_len > UINT32_MAX)
    return CDR_E_LIMIT;
  rc = cdr_out_patch_ulong(o, 8, (uint32_t)(hl - GIOP_HEADER_SIZE + call->body_len),
                           cdr_out_byte_order(o));
  if (rc != CDR_OK)
    return rc;
  v[0].iov_base = (void *)cdr_out_data(o);
  v[0].iov_len = hl;
  int n = 0;
  if (call->body_len) {
    n = cdr_out_iov(&call->out, v + 1, REQ_IOV - 1);
    if (n < 1)
      return CDR_E_INVALID;
    n = iov_slice(v + 1, n, call->body_start, call->body_len);
  }
  *nv = 1 + n;
  *len = hl + call->body_len;
  return CDR_OK;
}

static void park_flush(iiop_client *cl, cconn *cc, iiop_call *list);
static iiop_call *woken_ran(cconn *cc);

/* Under cc->mu: every held request of CC, taken off cc->park (each parked
 * 2) for park_flush() once cc->mu is released. */
static iiop_call *park_take(cconn *cc)
{
  iiop_call *l = cc->park;
  for (iiop_call *q = l; q; q = q->park_next)
    q->parked = 2;
  cc->park = cc->park_tail = NULL;
  cc->npark = 0;
  cc->park_due = 0;
  return l;
}

/* Send CALL's request to KEY on CC; a two-way call is registered as pending
 * first.  The write is bounded by DEADLINE; FULL_MS (< 0: DEADLINE's time
 * left must be read from the clock) is what is left of it when nothing
 * has waited since it was set: the common case reads no clock here.  *NO:
 * a failure left the request unprocessed (completion NO). */
static int send_request(iiop_call *call, cconn *cc, const uint8_t *key, uint32_t key_len,
                        int64_t deadline, int full_ms, int *no)
{
  *no = 1;
  int minor = call->out_opts.giop_minor;
  int with_cs = 0;
  /* The CodeSets context goes on the connection's first request (GIOP 1.1
   * and later: 1.0 has no code-set negotiation, its code sets are fixed);
   * whoever claims it sends first, the others wait until it is out. */
  if (minor >= 1 && __atomic_load_n(&cc->cs_state, __ATOMIC_ACQUIRE) != CS_SENT) {
    pthread_mutex_lock(&cc->mu);
    while (cc->cs_state == CS_SENDING && !__atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE)) {
      if (cond_wait_until(&cc->cs_cv, &cc->mu, deadline) == ETIMEDOUT
          && cc->cs_state == CS_SENDING) {
        pthread_mutex_unlock(&cc->mu);
        return CDR_E_TIMEOUT;
      }
    }
    if (cc->cs_state == CS_NONE) {
      __atomic_store_n(&cc->cs_state, CS_SENDING, __ATOMIC_RELEASE);
      with_cs = 1;
      if (minor >= 2 && cc->serve && cc->serve == __atomic_load_n(&call->cl->offer, __ATOMIC_ACQUIRE)
          && call->cl->bd_ctx)
        with_cs = 2;                    /* and the BI_DIR_IIOP context */
    }
    pthread_mutex_unlock(&cc->mu);
    full_ms = -1;                       /* may have waited */
  }

  uint32_t id = __atomic_fetch_add(&cc->next_id, cc->id_step, __ATOMIC_RELAXED);
  struct iovec v[REQ_IOV];
  int nv = 0;
  size_t len;
  int rc = build_request(call, key, key_len, id, with_cs, v, &nv, &len);
  if (rc == CDR_OK) {
    call->req_id = id;
    iiop_call *due = NULL;              /* held requests to write before this one */
    pthread_mutex_lock(&cc->mu);
    int dead = __atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE);
    if (dead) {
      rc = dead;
      *no = 1;
    } else {
      if (!call->oneway) {
        call->pstate = P_WAIT;
        call->pmsg = NULL;
        call->pno = 0;
        pend_add(cc, call);
        /* Callers woken here have yet to run: their next requests are
         * likely to follow at once, so this one waits for the last of
         * them to write it with theirs ("Holding requests" above) --
         * unless many calls are pending here: their requests keep the
         * server's thread busy, and a held one would only let it fall
         * asleep.  When they have all run (park_due), this request goes
         * last in the held ones' write.  Not the first request
         * (CodeSets), a oneway (no wait for it to be written) or a
         * fragmented one. */
        int join = cc->park_due;
        if ((join || (cc->nwoken && cc->npend <= HOLD_PENDING)) && !with_cs && nv <= REQ_IOV
            && len <= iiop__conn_whole_max(cc->conn)) {
          memcpy(call->pv, v, (size_t)nv * sizeof *v);
          call->pnv = nv;
          call->pvlen = len;
          call->pdeadline = deadline;
          call->parked = 1;
          call->park_next = NULL;
          if (cc->park_tail)
            cc->park_tail->park_next = call;
          else
            cc->park = call;
          cc->park_tail = call;
          iiop_call *full = ++cc->npark >= HOLD_MAX || join ? park_take(cc) : NULL;
          if (!full)
            call->phold = iiop__now_ms() + call->cl->hold_bound_ms;
          pthread_mutex_unlock(&cc->mu);
          if (full) {
            __atomic_add_fetch(&call->cl->hst[2], 1, __ATOMIC_RELAXED);
            park_flush(call->cl, cc, full);  /* this one's too: it is parked 0 on return */
          }
          return CDR_OK;
        }
      }
      if (cc->park_due)
        due = park_take(cc);
    }
    pthread_mutex_unlock(&cc->mu);
    if (due)
      park_flush(call->cl, cc, due);
  }
  if (rc == CDR_OK) {
    int maybe = 0;
    rc = iiop__conn_sendv_maybe(cc->conn, v, nv, len, id,
                                deadline < 0 ? -1 : full_ms > 0 ? full_ms
                                                   : iiop__remaining(deadline), &maybe);
    if (rc != CDR_OK) {
      /* Not (completely) sent: the server never saw a whole request --
       * unless the failed write carried other callers' requests after this
       * one (MAYBE: COMPLETED_MAYBE, not tried again).  A write error also
       * ends the connection (conn_send shut it down). */
      if (maybe)
        *no = 0;
      pthread_mutex_lock(&cc->mu);
      if (!call->oneway && call->pstate == P_WAIT)
        pend_remove(cc, call);
      call->pstate = P_IDLE;
      /* This call's own deadline (CDR_E_TIMEOUT, returned to it) is not
       * the others': for them the connection is lost (CDR_E_CLOSED). */
      if (rc == CDR_E_TLS)
        conn_tls_why(call->cl, cc, "write");
      if (rc != CDR_E_INVALID && rc != CDR_E_PROTOCOL)
        conn_fail_locked(cc, rc == CDR_E_TLS ? rc : CDR_E_CLOSED, 0);
      pthread_mutex_unlock(&cc->mu);
    }
  }
  if (with_cs) {
    pthread_mutex_lock(&cc->mu);
    __atomic_store_n(&cc->cs_state, rc == CDR_OK ? CS_SENT : CS_NONE, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&cc->cs_cv);
    pthread_mutex_unlock(&cc->mu);
  }
  return rc;
}

/* ---------------------------------------------------------------- receiving */

/* dispatch(): a Request, LocateRequest or CancelRequest (GIOP 1.2) on a
 * bidirectional connection, left to the caller to serve (M not released). */
#define D_INCOMING 1

/* dispatch() of a Request, LocateRequest or CancelRequest M: D_INCOMING
 * on a bidirectional connection in GIOP 1.2 (15.8), else CDR_E_PROTOCOL (M
 * released).  Out of line: the reply path stays as short as it was. */
static __attribute__((noinline)) int dispatch_request(cconn *cc, uint8_t *m)
{
  if (cc->serve && m[5] >= 2)           /* the header's minor version */
    return D_INCOMING;
  iiop__conn_release(cc->conn, m);
  return CDR_E_PROTOCOL;
}

/* Under cc->mu: route the message M the leader read; a caller to wake
 * once cc->mu is released is added to WS (wakes_fire()).  Returns CDR_OK,
 * D_INCOMING, or CDR_E_PROTOCOL for a message a client must not receive
 * (the caller sends MessageError and fails the connection). */
static int dispatch(iiop_client *cl, cconn *cc, uint8_t *m, size_t len, wakes *ws)
{
  giop_header h;
  if (giop_header_parse(m, len, &h) != CDR_OK) {
    iiop__conn_release(cc->conn, m);
    return CDR_E_PROTOCOL;
  }
  switch (h.type) {
  case GIOP_REPLY:
  case GIOP_LOCATE_REPLY: {
    uint32_t id;
    if (giop_peek_request_id(m, len, &id) != CDR_OK) {
      iiop__conn_release(cc->conn, m);
      return CDR_E_PROTOCOL;
    }
    iiop_call *p = pend_find(cc, id);
    if (!p) {
      iiop__conn_release(cc->conn, m);  /* a reply to a call that timed out */
      ccount(cl, CST_LATE);
      return CDR_OK;
    }
    pend_remove(cc, p);
    p->pmsg = m;
    p->plen = len;
    p->pstatus = CDR_OK;
    p->pstate = P_DONE;
    if (call_mark(p))
      wakes_add(ws, p);
    if (p->waiting && !p->counted) {
      p->counted = 1;
      cc->nwoken++;
    }
    return CDR_OK;
  }
  case GIOP_CLOSE_CONNECTION:
    iiop__conn_release(cc->conn, m);
    conn_fail_locked(cc, CDR_E_CLOSED, 1);
    return CDR_OK;
  case GIOP_MESSAGE_ERROR:
    iiop__conn_release(cc->conn, m);
    cc->peer_refused = 1;
    conn_fail_locked(cc, CDR_E_PROTOCOL, 0);
    return CDR_OK;
  default:                              /* Request, LocateRequest, CancelRequest */
    return dispatch_request(cc, m);
  }
}

/* Under cc->mu with no leader: pick a sleeping follower to take over (one
 * not woken already: pending calls are all still waiting for their
 * replies); the caller call_wake()s it after releasing cc->mu.  NULL: none
 * sleeps (a caller on its way to wait finds no leader and reads); a
 * server's connection thread waiting to read (bidirectional GIOP) is then
 * signalled instead. */
static iiop_call *promote(cconn *cc)
{
  for (iiop_call *p = cc->pend; p; p = p->pnext)
    if (p->waiting && __atomic_load_n(&p->wake, __ATOMIC_RELAXED) != 1) {
      if (!p->counted) {
        p->counted = 1;
        cc->nwoken++;
      }
      return call_mark(p);
    }
  if (cc->rwait)
    pthread_cond_signal(&cc->rcv);
  return NULL;
}

/* Under cc->mu, from the leader CALL that read the Request M (LEN octets)
 * on CC (bidirectional GIOP): it gives up reading, another waiter reads
 * while this thread serves M (its servant may call back over this very
 * connection) without the lock, and the connection ends if that fails.
 * Returns with cc->mu held again: 1 when CALL leads again (no one else
 * took over), 0 when another thread reads now (CALL must wait). */
static __attribute__((noinline)) int serve_incoming(iiop_call *call, cconn *cc, uint8_t *m,
                                                    size_t len)
{
  cc->leader = 0;
  iiop_call *nx = promote(cc);
  pthread_mutex_unlock(&cc->mu);
  if (nx)
    call_wake(cc, nx);
  __atomic_add_fetch(&call->cl->bstats[0], 1, __ATOMIC_RELAXED);
  int rc = iiop__server_serve_one(cc->serve, cc->conn, &cc->bcs, m, len);
  if (rc != CDR_OK)
    conn_fail(cc, rc == CDR_E_PROTOCOL ? CDR_E_PROTOCOL : CDR_E_CLOSED, 0);
  pthread_mutex_lock(&cc->mu);
  if (cc->leader)
    return 0;
  cc->leader = 1;
  return 1;
}

/* Write the held requests LIST (taken off cc->park by uncount(), each
 * parked 2), in their order, in as few gather writes as IIOP__MSGS_IOV_MAX
 * iovecs allow, each within the earliest deadline among its requests;
 * cc->mu not held.  A write that fails ends the connection: each of its
 * requests whose call still waits fails with the write's status, completion
 * NO when not one of its octets went out (else MAYBE, as a combined write's:
 * not tried again), and the requests after it with CDR_E_CLOSED,
 * completion NO.  Then every request is released (parked 0), and a caller
 * that waits for that (park_wait) is woken. */
static __attribute__((noinline)) void park_flush(iiop_client *cl, cconn *cc, iiop_call *list)
{
  struct iovec w[IIOP__MSGS_IOV_MAX];
  iiop_call *p = list;
  int failed = 0;
  __atomic_add_fetch(&cl->hst[0], 1, __ATOMIC_RELAXED);
  while (p) {
    iiop_call *first = p;
    int nw = 0;
    int64_t dl = -1;
    while (p && nw + p->pnv <= IIOP__MSGS_IOV_MAX) {
      memcpy(w + nw, p->pv, (size_t)p->pnv * sizeof *w);
      nw += p->pnv;
      if (p->pdeadline >= 0 && (dl < 0 || p->pdeadline < dl))
        dl = p->pdeadline;
      p = p->park_next;
    }
    size_t out = 0;
    if (!failed)
      __atomic_add_fetch(&cl->hst[1], 1, __ATOMIC_RELAXED);
    int rc = failed ? CDR_E_CLOSED
             : iiop__conn_sendv_msgs(cc->conn, w, nw, iiop__remaining(dl), &out);
    pthread_mutex_lock(&cc->mu);
    size_t at = 0;
    unsigned k = 0;
    for (iiop_call *q = first; q != p; q = q->park_next, k++) {
      if (rc != CDR_OK && q->pstate == P_WAIT) {
        pend_remove(cc, q);
        q->pstate = P_DONE;
        q->pstatus = rc == CDR_E_TLS || rc == CDR_E_TIMEOUT ? rc : CDR_E_CLOSED;
        q->pno = out <= at;
        iiop_call *wk = call_mark(q);
        if (wk)
          call_wake(cc, wk);                /* rare: under cc->mu */
      }
      at += q->pvlen;
    }
    if (rc != CDR_OK && !failed) {
      failed = 1;
      if (rc == CDR_E_TLS)
        conn_tls_why(cl, cc, "write");
      conn_fail_locked(cc, rc == CDR_E_TLS ? rc : CDR_E_CLOSED, 0);
    }
    pthread_mutex_unlock(&cc->mu);
    if (rc == CDR_OK)
      __atomic_add_fetch(&cl->held, k, __ATOMIC_RELAXED);
  }
  pthread_mutex_lock(&cc->mu);
  for (iiop_call *q = list; q; ) {
    iiop_call *nx = q->park_next;
    q->parked = 0;
    if (q->park_wait) {
      q->park_wait = 0;
      if (call_mark(q))
        call_wake(cc, q);
    }
    q = nx;
  }
  pthread_mutex_unlock(&cc->mu);
}

/* Under cc->mu: CALL, counted in cc->nwoken, runs again.  When it was the
 * last one counted, the held requests are due: the next request sent on CC
 * (typically CALL's own next one, sent as soon as it returns) is written
 * with them, or a held caller writes them after HOLD_BOUND_MS (park_late()).
 * After such a bound ran out, the next HOLD_DEFER_OFF batches are written
 * by their last counted caller at once instead: returned (taken off
 * cc->park, each parked 2) for park_flush() once cc->mu is released.
 * NULL: none to write. */
static iiop_call *uncount(cconn *cc, iiop_call *call)
{
  call->counted = 0;
  return woken_ran(cc);
}

/* uncount() for the caller counted last in CC's nwoken (under cc->mu). */
static iiop_call *woken_ran(cconn *cc)
{
  if (--cc->nwoken || !cc->park)
    return NULL;
  if (!cc->defer_off && cc->npark > (cc->lheld ? 1u : 0u) && cc->npend <= HOLD_PENDING) {
    cc->park_due = 1;
    return NULL;
  }
  if (cc->defer_off)
    cc->defer_off--;
  return park_take(cc);
}

/* Under cc->mu: take CALL (parked 1: never written) off cc->park. */
static void park_remove(cconn *cc, iiop_call *call)
{
  iiop_call **pp = &cc->park, *prev = NULL;
  while (*pp && *pp != call) {
    prev = *pp;
    pp = &(*pp)->park_next;
  }
  if (*pp) {
    *pp = call->park_next;
    if (cc->park_tail == call)
      cc->park_tail = prev;
    cc->npark--;
  }
  call->parked = 0;
  if (!cc->park)
    cc->park_due = 0;
}

/* Under cc->mu: how long CALL waits at a time (CLOCK_MONOTONIC ms, -1:
 * no limit): its DEADLINE, or while its request is held (parked 1) its
 * hold's bound, *BOUNDED then set. */
static inline int64_t wait_limit(const iiop_call *call, int64_t deadline, int *bounded)
{
  *bounded = call->parked == 1 && (deadline < 0 || call->phold < deadline);
  return *bounded ? call->phold : deadline;
}

/* Under cc->mu: CALL's request has been held (parked 1) past its bound
 * and no request sent since has written it: CALL writes every held
 * request of CC now (cc->mu released meanwhile), and the next
 * HOLD_DEFER_OFF batches are written at once (uncount()). */
static __attribute__((noinline)) void park_late(iiop_call *call, cconn *cc)
{
  iiop_call *fl = park_take(cc);
  cc->defer_off = HOLD_DEFER_OFF;
  __atomic_add_fetch(&call->cl->hst[3], 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&cc->mu);
  park_flush(call->cl, cc, fl);
  pthread_mutex_lock(&cc->mu);
}

/* Under cc->mu: CALL (P_WAIT) ran out of time.  A request still held
 * (parked 1) was never written: it is dropped, completed NO, and needs no
 * CancelRequest (0); the other held requests, when they are due, are
 * written now (cc->mu released meanwhile: CALL's wait may have been the
 * one bounded by a hold).  Otherwise 1, a timed-out request that went
 * out. */
static int expire(cconn *cc, iiop_call *call)
{
  int sent = 1;
  if (call->parked == 1) {
    park_remove(cc, call);
    call->pno = 1;
    sent = 0;
    __atomic_add_fetch(&call->cl->held_expired, 1, __ATOMIC_RELAXED);
  }
  pend_remove(cc, call);
  call->pstate = P_DONE;
  call->pstatus = CDR_E_TIMEOUT;
  if (!sent && cc->park_due && cc->park) {
    /* the others held are due, and no bound may be left to write them */
    iiop_call *fl = park_take(cc);
    pthread_mutex_unlock(&cc->mu);
    park_flush(call->cl, cc, fl);
    pthread_mutex_lock(&cc->mu);
  }
  return sent;
}

int iiop__ref_hold_probe(iiop_ref *r, int delta, iiop__hold_probe *pr)
{
  if (!r || !pr || delta < -1 || delta > 1)
    return CDR_E_INVALID;
  endpoint *ep = __atomic_load_n(&r->base, __ATOMIC_ACQUIRE)->ep;
  pthread_mutex_lock(&ep->mu);
  cconn *cc = ep->nconns ? ep->conns[0] : NULL;
  if (cc)
    __atomic_add_fetch(&cc->refs, 1, __ATOMIC_ACQ_REL);
  pthread_mutex_unlock(&ep->mu);
  if (!cc)
    return CDR_E_STATE;
  iiop_call *fl = NULL;
  int rc = CDR_OK;
  pthread_mutex_lock(&cc->mu);
  if (delta > 0)
    cc->nwoken++;
  else if (delta < 0 && !cc->nwoken)
    rc = CDR_E_STATE;
  else if (delta < 0)
    fl = woken_ran(cc);
  pr->nwoken = cc->nwoken;
  pr->npark = cc->npark;
  pr->due = cc->park_due;
  pr->leader_held = cc->lheld;
  pr->asleep = 0;
  for (iiop_call *p = cc->pend; p; p = p->pnext)
    pr->asleep += p->waiting && __atomic_load_n(&p->wake, __ATOMIC_RELAXED) != 1;
  pthread_mutex_unlock(&cc->mu);
  if (fl)
    park_flush(r->cl, cc, fl);
  cconn_unref(r->cl, cc);
  return rc;
}

/* Wait for CALL's reply on CC (leader or follower).  On CDR_OK
 * call->pmsg/plen hold the reply.  *NO: failed with completion NO. */
static int wait_reply(iiop_call *call, cconn *cc, int64_t deadline, int cancel, int *no)
{
  int timed_out = 0;
  wakes ws;                             /* callers to wake once cc->mu is released */
  memset(&ws, 0, sizeof ws);
  pthread_mutex_lock(&cc->mu);
  while (call->pstate == P_WAIT) {
    if (!cc->leader) {
      cc->leader = 1;
      while (call->pstate == P_WAIT) {
        /* Its own request held: a park already due is written now (no
         * timer bounds this read), else the last counted caller writes
         * it at once (uncount()). */
        if (call->parked == 1 && cc->park_due) {
          iiop_call *fl = park_take(cc);
          pthread_mutex_unlock(&cc->mu);
          wakes_fire(cc, &ws);
          park_flush(call->cl, cc, fl);
          pthread_mutex_lock(&cc->mu);
          continue;
        }
        cc->lheld = call->parked == 1;
        pthread_mutex_unlock(&cc->mu);
        /* The callers marked so far are woken together when this read
         * has nothing more buffered (the next recv may block). */
        if (!iiop__conn_more(cc->conn) || wakes_full(&ws))
          wakes_fire(cc, &ws);
        uint8_t *m;
        size_t len;
        int rc = iiop__conn_recv(cc->conn, iiop__remaining(deadline), &m, &len);
        int proto = 0;
        if (rc == CDR_E_PROTOCOL || rc == CDR_E_LIMIT) {
          /* in the refused header's version where it has one (as the server) */
          int em = rc == CDR_E_PROTOCOL ? iiop__conn_error_minor(cc->conn) : -1;
          send_small(cc, GIOP_MESSAGE_ERROR, 0, em >= 0 ? (uint8_t)em : call->out_opts.giop_minor);
          proto = 1;
        }
        pthread_mutex_lock(&cc->mu);
        cc->lheld = 0;
        if (rc == CDR_E_TIMEOUT) {
          if (call->pstate == P_WAIT)
            timed_out = expire(cc, call);
          break;
        }
        if (rc != CDR_OK) {
          if (rc == CDR_E_TLS)
            conn_tls_why(call->cl, cc, "read");
          conn_fail_locked(cc, rc == CDR_E_LIMIT ? rc : proto ? CDR_E_PROTOCOL : rc, 0);
          break;
        }
        int d = dispatch(call->cl, cc, m, len, &ws);
        if (d != CDR_OK) {
          wakes_fire(cc, &ws);          /* under cc->mu: a rare path */
          if (d == D_INCOMING) {
            if (serve_incoming(call, cc, m, len))
              continue;                 /* reading again */
            goto next;                  /* another thread reads now */
          }
          pthread_mutex_unlock(&cc->mu);
          send_small(cc, GIOP_MESSAGE_ERROR, 0, call->out_opts.giop_minor);
          pthread_mutex_lock(&cc->mu);
          conn_fail_locked(cc, CDR_E_PROTOCOL, 0);
          break;
        }
      }
      cc->leader = 0;
      break;
    }
    int bounded;
    int64_t wdl = wait_limit(call, deadline, &bounded);
    call->waiting = 1;
    __atomic_store_n(&call->wake, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&cc->mu);
    int w = call_wait(call, cc, wdl);
    pthread_mutex_lock(&cc->mu);
    call->waiting = 0;
    if (call->counted) {
      iiop_call *fl = uncount(cc, call);
      if (fl) {
        pthread_mutex_unlock(&cc->mu);
        park_flush(call->cl, cc, fl);
        pthread_mutex_lock(&cc->mu);
      }
    }
    if (w == ETIMEDOUT && bounded) {
      if (call->parked == 1 && call->pstate == P_WAIT)
        park_late(call, cc);
    } else if (w == ETIMEDOUT && call->pstate == P_WAIT) {
      timed_out = expire(cc, call);
    }
  next:;
  }
  while (call->parked == 2) {          /* another thread writes the request still */
    call->park_wait = 1;
    call->waiting = 1;
    __atomic_store_n(&call->wake, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&cc->mu);
    (void)call_wait(call, cc, -1);
    pthread_mutex_lock(&cc->mu);
    call->waiting = 0;
  }
  if (call->parked == 1) {              /* failed before it was written */
    park_remove(cc, call);
    call->pno = 1;
  }
  iiop_call *next = !cc->leader && (cc->pend || cc->rwait) ? promote(cc) : NULL;
  int rc = call->pstatus;
  *no = call->pno;
  call->pstate = P_IDLE;
  pthread_mutex_unlock(&cc->mu);
  wakes_fire(cc, &ws);
  if (next)
    call_wake(cc, next);
  if (timed_out && cancel)
    send_small(cc, GIOP_CANCEL_REQUEST, call->req_id, call->out_opts.giop_minor);
  return rc;
}

/* ---------------------------------------------------------------- invoke */

/* The cached target of R for endpoint EP and KEY: one already in R's list,
 * or a new one (the key copied) while the list has room; NULL when it is
 * full or on allocation failure (the forward is then followed uncached). */
static target *target_get(iiop_ref *r, endpoint *ep, const uint8_t *key, uint32_t key_len)
{
  if (ep == r->orig.ep && key_len == r->orig.key_len
      && (key_len == 0 || memcmp(key, r->orig.key, key_len) == 0))
    return &r->orig;
  pthread_mutex_lock(&r->mu);
  target *t;
  for (t = r->targets; t; t = t->next)
    if (t->ep == ep && t->key_len == key_len && (key_len == 0 || memcmp(t->key, key, key_len) == 0))
      break;
  if (!t && r->ntargets < FWD_TARGETS_MAX) {
    t = iiop__malloc(r->alloc, sizeof *t + (key_len ? key_len : 1));
    if (t) {
      uint8_t *k = (uint8_t *)(t + 1);
      if (key_len)
        memcpy(k, key, key_len);
      t->ep = ep;
      t->key = k;
      t->key_len = key_len;
      t->next = r->targets;
      r->targets = t;
      r->ntargets++;
    }
  }
  pthread_mutex_unlock(&r->mu);
  return t;
}

/* A LOCATION_FORWARD body: the IOR to go to instead.  Its key is copied
 * into the call's arena (the reply is released before the retry), and the
 * target cached in the reference: PERM replaces its base target, else it
 * becomes the forward later calls use. */
static int take_forward(iiop_call *call, int perm, endpoint **ep, const uint8_t **key,
                        uint32_t *key_len)
{
  iiop_ior ior;
  int rc = iiop_ior_read(&call->msg.body, &ior);
  if (rc != CDR_OK)
    return rc;
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  if (!p)
    return CDR_E_UNSUPPORTED;
  uint16_t port;
  int tls;
  rc = profile_target(call->cl, p, &port, &tls);
  if (rc != CDR_OK)
    return rc;
  uint8_t *k = cdr_arena_alloc(call->arena, p->key_len ? p->key_len : 1, 1);
  endpoint *e = k ? endpoint_get(call->cl, p->host, port, tls, call->out_opts.tcs_c,
                                 call->out_opts.tcs_w)
                  : NULL;
  if (!e)
    return CDR_E_NOMEM;
  if (p->key_len)
    memcpy(k, p->key, p->key_len);
  note_orb_type(e, p);
  *ep = e;
  *key = k;
  *key_len = p->key_len;
  iiop_ref *r = call->ref;
  target *t = target_get(r, e, k, p->key_len);
  if (t) {
    if (perm) {
      __atomic_store_n(&r->base, t, __ATOMIC_RELEASE);
      __atomic_store_n(&r->fwd, NULL, __ATOMIC_RELEASE);
    } else {
      __atomic_store_n(&r->fwd, t == __atomic_load_n(&r->base, __ATOMIC_ACQUIRE) ? NULL : t,
                       __ATOMIC_RELEASE);
    }
  }
  return CDR_OK;
}

static void drop_reply(iiop_call *call)
{
  if (call->msg_live) {
    cdr_in_close(&call->msg.body);
    call->msg_live = 0;
    call->have_reply = 0;
  }
  if (call->reply) {
    iiop__conn_release(call->cc->conn, call->reply);
    call->reply = NULL;
  }
  if (call->cc) {
    cconn_unref(call->cl, call->cc);
    call->cc = NULL;
  }
}

/* Drop R's cached forward *CACHED (unless another thread replaced it
 * already) and clear *CACHED: the reference's own target, returned, is
 * where the call goes on. */
static const target *forget_forward(iiop_ref *r, target **cached)
{
  target *exp = *cached;
  __atomic_compare_exchange_n(&r->fwd, &exp, NULL, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  *cached = NULL;
  return __atomic_load_n(&r->base, __ATOMIC_ACQUIRE);
}

/* The send_request hooks of CALL's client (the first NIC), before a
 * request is sent on a connection: the contexts they added for an earlier
 * send are dropped first.  CDR_OK, or a hook's refusal (a negative
 * cdr_status, or IIOP_R_SYSTEM_EXCEPTION with the exception it set; a
 * positive value without one is CDR_E_INVALID): call->ex is then set and
 * call->hook_refused. */
static __attribute__((noinline)) int run_send_hooks(iiop_call *call, unsigned nic)
{
  iiop_client *cl = call->cl;
  call->nsc = call->nsc_user;
  for (unsigned k = 0; k < nic; k++) {
    if (!cl->ic[k].send_request)
      continue;
    call->in_hook = 1;
    call->hook_raised = 0;
    int rc = cl->ic[k].send_request(cl->ic_ud[k], call);
    call->in_hook = 0;
    if (rc == CDR_OK) {
      if (call->hook_raised)
        call->has_ex = 0;               /* an exception set but not raised */
      continue;
    }
    call->hook_refused = 1;
    if (rc == IIOP_R_SYSTEM_EXCEPTION && call->hook_raised)
      return rc;                        /* call->ex as the hook set it */
    if (rc > 0)
      rc = CDR_E_INVALID;
    set_local_ex(call, rc, PH_SEND, 1);
    return rc;
  }
  return CDR_OK;
}

/* Send CALL and wait for its reply, following forwards; NIC: interceptors
 * whose send_request runs before each request sent (0 on the path with
 * none: the test folds away in that copy). */
static inline __attribute__((always_inline)) int invoke_n(iiop_call *call, cdr_in **result,
                                                          unsigned nic)
{
  if (result)
    *result = NULL;
  if (!call)
    return CDR_E_INVALID;
  if (call->invoked)
    return CDR_E_STATE;
  call->invoked = 1;
  iiop_ref *r = call->ref;
  iiop_client *cl = call->cl;
  int rc = cdr_out_status(&call->out);
  if (rc != CDR_OK) {
    /* GIOP 1.0 cannot carry wide characters at all, but the reason a
     * reference has no wchar code set (every corbaloc reference) is the one
     * to report. */
    if (rc == CDR_E_UNSUPPORTED && r->opts.tcs_w == 0)
      rc = CDR_E_CODESET;
    set_local_ex(call, rc, PH_SEND, 1);
    return rc;
  }
  size_t size = cdr_out_total(&call->out); /* by-reference arguments included */
  call->body_len = size - call->body_start;
  /* GIOP 1.2 aligns a body on 8 only when there is one. */
  call->msg_len = call->body_len ? size : call->hdr_end;
  if (call->msg_len - GIOP_HEADER_SIZE > UINT32_MAX) {
    set_local_ex(call, CDR_E_LIMIT, PH_SEND, 1);
    return CDR_E_LIMIT;
  }
  cdr_out_patch_ulong(&call->out, 8, (uint32_t)(call->msg_len - GIOP_HEADER_SIZE),
                      cdr_out_byte_order(&call->out));

  /* The call's timeout, else the reference's, else the client's: one
   * relaxed load, no lock.  One deadline for the whole call: connect,
   * write, reply, and any forward followed (relative round-trip). */
  int ms = call->timeout_ms;
  if (ms < 0) {
    ms = __atomic_load_n(&r->timeout_ms, __ATOMIC_RELAXED);
    if (ms < 0)
      ms = cl->o.timeout_ms;
  }
  int64_t deadline = iiop__deadline(ms);
  /* No forward cached: two atomic loads, no lock. */
  target *cached = __atomic_load_n(&r->fwd, __ATOMIC_ACQUIRE);
  const target *t = cached ? cached : __atomic_load_n(&r->base, __ATOMIC_ACQUIRE);
  endpoint *ep = t->ep;
  const uint8_t *key = t->key;
  uint32_t key_len = t->key_len;
  int forwards = 0, retried = 0, renew = 0, full_ms = ms; /* full_ms: as send_request() */
  for (;; full_ms = -1) {
    cconn *cc;
    int fresh, no = 1;
    rc = get_conn(cl, ep, deadline, renew, &cc, &fresh);
    renew = 0;
    if (rc != CDR_OK && cached && rc != CDR_E_NOMEM) {
      /* The cached forward cannot be reached: forget it, go back to the
       * reference's own target (once; 15.4.3). */
      t = forget_forward(r, &cached);
      ep = t->ep;
      key = t->key;
      key_len = t->key_len;
      continue;
    }
    if (rc != CDR_OK) {
      if (rc == CDR_E_TIMEOUT)
        ccount(cl, CST_TIMEOUT);
      set_local_ex(call, rc, PH_CONNECT, 1);
      return rc;
    }
    int phase = PH_SEND;
    if (nic) {
      rc = run_send_hooks(call, nic);   /* once per request sent */
      if (rc != CDR_OK) {
        cconn_unref(cl, cc);
        return rc;
      }
      full_ms = -1;                     /* the hooks took time */
    }
    rc = send_request(call, cc, key, key_len, deadline, fresh ? -1 : full_ms, &no);
    if (rc == CDR_OK && call->oneway) {
      cconn_unref(cl, cc);
      return CDR_OK;
    }
    if (rc == CDR_OK) {
      phase = PH_WAIT;
      rc = wait_reply(call, cc, deadline, !__atomic_load_n(&ep->no_cancel, __ATOMIC_RELAXED),
                      &no);
    }
    if (rc != CDR_OK) {
      char refused[GIOP_REASM_TEXT_MAX]; /* what the reader refused, in words */
      refused[0] = 0;
      if (rc == CDR_E_LIMIT || rc == CDR_E_PROTOCOL)
        iiop__conn_error_text(cc->conn, refused, sizeof refused);
      int peer_refused = rc == CDR_E_PROTOCOL && __atomic_load_n(&cc->peer_refused, __ATOMIC_RELAXED);
      cconn_unref(cl, cc);
      /* A connection taken from the cache that the server had closed (or
       * closes now, saying so) processed nothing: try again on a new one.
       * The retry may get another cached connection (the pool full, or
       * another thread connecting), which an idle server may be closing
       * too: each try takes a different one (a closed connection is
       * dropped), so up to max_connections + 1 tries; one this call opened
       * itself (fresh 1) is not tried again. */
      if (rc == CDR_E_CLOSED && no && fresh != 1
          && (uint32_t)retried <= cl->o.max_connections) {
        retried++;
        renew = 1;
        continue;
      }
      if (cached && no && (rc == CDR_E_CLOSED || rc == CDR_E_IO || rc == CDR_E_TLS)) {
        /* The cached forward failed before it processed the request
         * (TRANSIENT / COMM_FAILURE, completion NO): back to the base. */
        t = forget_forward(r, &cached);
        ep = t->ep;
        key = t->key;
        key_len = t->key_len;
        continue;
      }
      ccount(cl, rc == CDR_E_TIMEOUT ? CST_TIMEOUT : rc == CDR_E_LIMIT ? CST_LIMIT
                 : rc == CDR_E_PROTOCOL ? CST_PROTOCOL : -1);
      /* Lost without a TLS reason (those are recorded where they arose):
       * the peer closed or reset the connection -- a plaintext client at a
       * TLS port is closed so, without a word. */
      if (rc == CDR_E_CLOSED || rc == CDR_E_IO)
        client_why(cl, "GIOP %s %s:%u: %s %s", phase == PH_SEND ? "to" : "from", ep->host,
                   (unsigned)ep->port, cdr_strerror(rc),
                   phase == PH_SEND ? "while the request was written" : "before the reply");
      else if (rc == CDR_E_TIMEOUT)
        client_why(cl, "GIOP %s %s:%u: the call's timeout (%d ms) passed %s",
                   phase == PH_SEND ? "to" : "from", ep->host, (unsigned)ep->port, ms,
                   phase == PH_SEND ? "while the request was written" : "before the reply");
      else if (peer_refused && phase == PH_WAIT)
        client_why(cl, "GIOP from %s:%u: MessageError: the server refused a message of this "
                   "client's (too large for it, or one it cannot read); connection closed",
                   ep->host, (unsigned)ep->port);
      else if ((rc == CDR_E_LIMIT || rc == CDR_E_PROTOCOL) && phase == PH_WAIT)
        client_why(cl, "GIOP from %s:%u: %s (MessageError sent, connection closed)", ep->host,
                   (unsigned)ep->port,
                   refused[0] ? refused
                   : rc == CDR_E_LIMIT ? "a message over the client's limits"
                                       : "a message that is no reply to a request sent");
      set_local_ex(call, rc, phase, no);  /* PH_SEND: 1 but for a combined write */
      return rc;
    }

    /* The reply is ours until iiop_call_end(). */
    call->cc = cc;
    call->reply = call->pmsg;
    rc = giop_parse(&call->msg, call->pmsg, call->plen, &r->opts, call->arena);
    call->msg_live = 1;
    if (rc == CDR_OK && call->msg.hdr.type != GIOP_REPLY)
      rc = CDR_E_PROTOCOL;              /* a LocateReply: we sent no LocateRequest */
    if (rc != CDR_OK) {
      send_small(cc, GIOP_MESSAGE_ERROR, 0,
                 (uint8_t)iiop__answer_minor(call->pmsg, call->plen, call->out_opts.giop_minor));
      conn_fail(cc, CDR_E_PROTOCOL, 0);
      ccount(cl, CST_PROTOCOL);
      client_why(cl, "GIOP from %s:%u: a reply that cannot be parsed (MessageError sent, "
                 "connection closed)", ep->host, (unsigned)ep->port);
      set_local_ex(call, CDR_E_PROTOCOL, PH_WAIT, 0);
      return CDR_E_PROTOCOL;
    }
    call->have_reply = 1;
    cdr_in *body = &call->msg.body;
    switch (call->msg.u.reply.reply_status) {
    case GIOP_NO_EXCEPTION:
      if (result)
        *result = body;
      return CDR_OK;
    case GIOP_USER_EXCEPTION:
      if (result)
        *result = body;
      return IIOP_R_USER_EXCEPTION;
    case GIOP_SYSTEM_EXCEPTION:
      rc = giop_get_system_exception(body, &call->ex);
      if (rc != CDR_OK) {
        set_local_ex(call, rc, PH_WAIT, 0);
        return rc;
      }
      call->has_ex = 1;
      if (result)
        *result = body;
      return IIOP_R_SYSTEM_EXCEPTION;
    case GIOP_LOCATION_FORWARD:
    case GIOP_LOCATION_FORWARD_PERM:
      if (++forwards > MAX_FORWARDS) {
        rc = CDR_E_LIMIT;
      } else {
        rc = take_forward(call, call->msg.u.reply.reply_status == GIOP_LOCATION_FORWARD_PERM,
                          &ep, &key, &key_len);
        cached = NULL; /* a target this call was told to go to: its failure is reported */
      }
      drop_reply(call);
      if (rc != CDR_OK) {
        set_local_ex(call, rc, PH_FORWARD, 1); /* too many forwards: IMP_LIMIT */
        return rc;
      }
      continue;
    default:                            /* NEEDS_ADDRESSING_MODE: we send KeyAddr only */
      drop_reply(call);
      set_local_ex(call, CDR_E_UNSUPPORTED, PH_WAIT, 1);
      return CDR_E_UNSUPPORTED;
    }
  }
}

int iiop_call_set_timeout(iiop_call *call, int ms)
{
  if (!call || ms < IIOP_TIMEOUT_INHERIT)
    return CDR_E_INVALID;
  if (call->invoked)
    return CDR_E_STATE;
  call->timeout_ms = ms;
  return CDR_OK;
}

/* invoke() with CL's NIC interceptors around it: send_request before each
 * request sent (invoke_n()), receive_reply once at the end. */
static __attribute__((noinline)) int invoke_hooked(iiop_call *call, cdr_in **result, unsigned nic)
{
  iiop_client *cl = call->cl;
  if (call->invoked)
    return invoke_n(call, result, 0);   /* CDR_E_STATE */
  call->nsc_user = call->nsc;
  call->hook_refused = 0;
  int rc = invoke_n(call, result, nic);
  if (call->hook_refused) {
    if (result)
      *result = NULL;
    return rc;                          /* no receive_reply */
  }
  for (unsigned k = nic; k-- > 0;) {
    if (!cl->ic[k].receive_reply)
      continue;
    call->in_hook = 2;                  /* may raise, not add contexts */
    call->hook_raised = 0;
    cl->ic[k].receive_reply(cl->ic_ud[k], call, rc);
    call->in_hook = 0;
    if (call->hook_raised) {            /* the outcome is the hook's exception */
      rc = IIOP_R_SYSTEM_EXCEPTION;
      if (result)
        *result = NULL;
    }
  }
  return rc;
}

/* No interceptor registered: one atomic load more than invoke(). */
int iiop_call_invoke(iiop_call *call, cdr_in **result)
{
  unsigned nic = call ? __atomic_load_n(&call->cl->nic, __ATOMIC_ACQUIRE) : 0;
  if (__builtin_expect(nic != 0, 0))
    return invoke_hooked(call, result, nic);
  return invoke_n(call, result, 0);
}

int iiop_call_set_exception(iiop_call *call, const char *repo_id, uint32_t minor,
                            uint32_t completed)
{
  if (!call || !repo_id || !*repo_id || completed > GIOP_COMPLETED_MAYBE)
    return CDR_E_INVALID;
  if (!call->in_hook)
    return CDR_E_STATE;
  size_t n = strlen(repo_id);
  char *id = cdr_arena_alloc(call->arena, n + 1, 1);
  if (!id)
    return CDR_E_NOMEM;
  memcpy(id, repo_id, n + 1);
  call->ex.repo_id = id;
  call->ex.minor = minor;
  call->ex.completed = completed;
  call->has_ex = 1;
  call->hook_raised = 1;
  return CDR_OK;
}

int iiop_client_add_interceptor(iiop_client *c, const iiop_client_interceptor *ic, void *ud)
{
  if (!c || !ic)
    return CDR_E_INVALID;
  pthread_mutex_lock(&c->mu);
  unsigned n = c->nic;
  int rc = CDR_E_LIMIT;
  if (n < IIOP_INTERCEPTORS_MAX) {
    c->ic[n] = *ic;
    c->ic_ud[n] = ud;
    __atomic_store_n(&c->nic, n + 1, __ATOMIC_RELEASE);
    rc = CDR_OK;
  }
  pthread_mutex_unlock(&c->mu);
  return rc;
}

int iiop_call_add_service_context(iiop_call *call, uint32_t id, const void *data, size_t len)
{
  if (!call || (!data && len))
    return CDR_E_INVALID;
  if (call->invoked && call->in_hook != 1)  /* a send_request hook may add */
    return CDR_E_STATE;
  if (call->nsc >= IIOP_SC_ADD_MAX || len > IIOP_SC_DATA_MAX)
    return CDR_E_LIMIT;
  uint8_t *d = cdr_arena_alloc(call->arena, len ? len : 1, 1);
  if (!d)
    return CDR_E_NOMEM;
  if (len)
    memcpy(d, data, len);
  giop_service_context *c = &call->sc[call->nsc++];
  c->id = id;
  c->len = (uint32_t)len;
  c->data = d;
  return CDR_OK;
}

const char *iiop_call_operation(const iiop_call *call) { return call ? call->op : NULL; }

uint32_t iiop_call_reply_service_contexts(const iiop_call *call, const giop_service_context **v)
{
  if (v)
    *v = NULL;
  if (!call || !call->have_reply)
    return 0;
  if (v)
    *v = call->msg.u.reply.contexts.v;
  return call->msg.u.reply.contexts.n;
}

int iiop_call_reply_service_context(const iiop_call *call, uint32_t id, const uint8_t **data,
                                    uint32_t *len)
{
  if (!data || !len)
    return CDR_E_INVALID;
  const giop_service_context *v;
  uint32_t n = iiop_call_reply_service_contexts(call, &v);
  for (uint32_t k = 0; k < n; k++)
    if (v[k].id == id) {
      *data = v[k].data;
      *len = v[k].len;
      return CDR_OK;
    }
  return CDR_E_INVALID;
}

const giop_system_exception *iiop_call_exception(const iiop_call *call)
{
  return call && call->has_ex ? &call->ex : NULL;
}

void iiop_call_end(iiop_call *call)
{
  if (!call)
    return;
  drop_reply(call);
  if (call->rsc) {
    __atomic_sub_fetch(&call->ref->sc_users, 1, __ATOMIC_SEQ_CST);
    call->rsc = NULL;
  }
  if (call->arena)
    cdr_arena_put(call->arena);
  call->arena = NULL;
  call->ref = NULL;
  call->op = NULL;
  call_put(call->cl, call);
}

/* ---------------------------------------------------------------- free */

void iiop_client_free(iiop_client *c)
{
  if (!c)
    return;
  __atomic_store_n(&c->closing, 1, __ATOMIC_RELEASE);
  /* Fail what is pending; wait until every call has ended (the threads in
   * iiop_call_invoke() return CDR_E_CLOSED and end their calls). */
  for (int pass = 0; pass < 2; pass++) {
    pthread_mutex_lock(&c->mu);
    endpoint *eps = c->eps;
    pthread_mutex_unlock(&c->mu);
    for (endpoint *ep = eps; ep; ep = ep->next) {
      pthread_mutex_lock(&ep->mu);
      cconn *ccs[IIOP_CLIENT_CONNECTIONS_MAX];
      unsigned n = ep->nconns;
      memcpy(ccs, ep->conns, n * sizeof ccs[0]);
      memset(ep->conns, 0, sizeof ep->conns);
      ep->nconns = 0;
      pthread_mutex_unlock(&ep->mu);
      for (unsigned i = 0; i < n; i++) {
        conn_fail(ccs[i], CDR_E_CLOSED, 0);
        cconn_unref(c, ccs[i]);
      }
    }
    if (pass == 0) {
      pthread_mutex_lock(&c->mu);
      while (c->live_calls)
        pthread_cond_wait(&c->idle_cv, &c->mu);
      pthread_mutex_unlock(&c->mu);
    }
  }
  while (c->eps) {
    endpoint *ep = c->eps;
    c->eps = ep->next;
    pthread_cond_destroy(&ep->cv);
    pthread_mutex_destroy(&ep->mu);
    iiop__free(c->alloc, ep->host);
    iiop__free(c->alloc, ep);
  }
  while (c->free_calls) {
    iiop_call *call = c->free_calls;
    c->free_calls = call->next_free;
    call_destroy(call);
  }
  while (c->irefs) {
    struct initref *ir = c->irefs;
    c->irefs = ir->next;
    iiop__free(c->alloc, ir);
  }
  iiop_tls_ctx_free(c->tls);
  iiop__free(c->alloc, c->bd_ctx);
  iiop__free(c->alloc, c->ca_file);
  pthread_cond_destroy(&c->idle_cv);
  pthread_mutex_destroy(&c->mu);
  pthread_mutex_destroy(&c->err_mu);
  iiop__free(c->alloc, c);
}

/* ---------------------------------------------------------------- bidirectional GIOP
 * (CORBA 3.x Part 2, 15.8; bidir.h.)  The offering side: connections this
 * client opens carry its listen point on their first GIOP 1.2 request and
 * serve Requests they read with the callback server's objects.  The
 * accepting side: a server's set of accepted connections that offered,
 * which a client given to iiop_client_use_bidir() uses instead of
 * connecting to a listen point they name. */

int iiop_client_offer_bidir(iiop_client *c, iiop_server *callbacks)
{
  if (!c || !callbacks)
    return CDR_E_INVALID;
  giop_listen_point lp = { iiop__server_ior_host(callbacks), iiop_server_port(callbacks) };
  uint8_t buf[8 + GIOP_LISTEN_HOST_MAX + 9];
  size_t len;
  int rc = giop_bidir_context_encode(&lp, 1, buf, sizeof buf, &len);
  if (rc != CDR_OK)
    return rc;
  pthread_mutex_lock(&c->mu);
  if (c->offer) {
    pthread_mutex_unlock(&c->mu);
    return CDR_E_STATE;
  }
  c->bd_ctx = iiop__malloc(c->alloc, len);
  if (!c->bd_ctx) {
    pthread_mutex_unlock(&c->mu);
    return CDR_E_NOMEM;
  }
  memcpy(c->bd_ctx, buf, len);
  c->bd_len = len;
  __atomic_store_n(&c->offer, callbacks, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&c->mu);
  return CDR_OK;
}

int iiop_client_use_bidir(iiop_client *c, iiop_server *s)
{
  if (!c || !s)
    return CDR_E_INVALID;
  if (!iiop__server_bidir_set(s))
    return CDR_E_STATE;
  __atomic_store_n(&c->use_srv, s, __ATOMIC_RELEASE);
  return CDR_OK;
}

struct iiop__bidir_set {
  pthread_mutex_t mu;
  const cdr_allocator *alloc;
  cconn *head;
};

iiop__bidir_set *iiop__bidir_set_new(const cdr_allocator *alloc)
{
  iiop__bidir_set *set = iiop__malloc(alloc, sizeof *set);
  if (!set)
    return NULL;
  memset(set, 0, sizeof *set);
  set->alloc = alloc;
  pthread_mutex_init(&set->mu, NULL);
  return set;
}

void iiop__bidir_set_free(iiop__bidir_set *set)
{
  if (!set)
    return;
  pthread_mutex_destroy(&set->mu);
  iiop__free(set->alloc, set);
}

int iiop__bidir_note(iiop__bidir_set *set, iiop__bidir_conn **bdp, iiop_conn *conn,
                     iiop_server *srv, const iiop__bidir_cs *cs, const giop_listen_point *p,
                     uint32_t n)
{
  cconn *cc = *bdp;
  if (!cc) {
    cc = iiop__malloc(set->alloc, sizeof *cc);
    if (!cc)
      return CDR_E_NOMEM;
    memset(cc, 0, sizeof *cc);
    cc->conn = conn;
    cc->refs = 1;                       /* the server connection's */
    cc->next_id = 1;                    /* this side accepted: odd IDs (15.8) */
    cc->id_step = 2;
    cc->serve = srv;
    cc->bcs.c = cs->c;
    cc->bcs.w = cs->w;
    cc->bcs.fixed = cs->fixed;
    cc->balloc = set->alloc;
    pthread_mutex_init(&cc->mu, NULL);
    cond_init_mono(&cc->cs_cv);
    pthread_cond_init(&cc->rcv, NULL);
    pthread_cond_init(&cc->endcv, NULL);
  }
  int rc = CDR_OK;
  pthread_mutex_lock(&set->mu);
  for (uint32_t k = 0; k < n && cc->npts < GIOP_LISTEN_POINTS_MAX; k++) {
    uint32_t j = 0;
    while (j < cc->npts && !(cc->pts_port[j] == p[k].port
                             && strcasecmp(cc->pts_host[j], p[k].host) == 0))
      j++;
    if (j < cc->npts)
      continue;
    char *h = iiop__strndup(set->alloc, p[k].host, strlen(p[k].host));
    if (!h) {
      rc = CDR_E_NOMEM;
      break;
    }
    cc->pts_host[cc->npts] = h;
    cc->pts_port[cc->npts++] = p[k].port;
  }
  if (!*bdp) {
    cc->bnext = set->head;
    set->head = cc;
    *bdp = cc;
  }
  pthread_mutex_unlock(&set->mu);
  return rc;
}

/* A live bidirectional connection of CL's server whose listen points name
 * EP (plain IIOP only), with a reference for the caller; NULL: none. */
static cconn *bidir_find(iiop_client *cl, const endpoint *ep)
{
  if (ep->tls)
    return NULL;
  iiop__bidir_set *set = iiop__server_bidir_set(__atomic_load_n(&cl->use_srv, __ATOMIC_ACQUIRE));
  if (!set)
    return NULL;
  cconn *found = NULL;
  pthread_mutex_lock(&set->mu);
  for (cconn *cc = set->head; cc && !found; cc = cc->bnext) {
    if (__atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE))
      continue;
    for (uint32_t j = 0; j < cc->npts; j++)
      if (cc->pts_port[j] == ep->port && strcasecmp(cc->pts_host[j], ep->host) == 0) {
        found = cc;
        break;
      }
  }
  if (found) {
    pthread_mutex_lock(&found->mu);
    found->refs++;
    pthread_mutex_unlock(&found->mu);
    __atomic_add_fetch(&cl->bstats[1], 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&set->mu);
  return found;
}

int iiop__bidir_recv(iiop__bidir_conn *cc, uint8_t **msg, size_t *len)
{
  pthread_mutex_lock(&cc->mu);
  for (;;) {
    while (cc->leader && !__atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE)) {
      cc->rwait++;
      pthread_cond_wait(&cc->rcv, &cc->mu);
      cc->rwait--;
    }
    int dead = __atomic_load_n(&cc->dead, __ATOMIC_ACQUIRE);
    if (dead) {
      pthread_mutex_unlock(&cc->mu);
      return CDR_E_CLOSED;
    }
    cc->leader = 1;
    pthread_mutex_unlock(&cc->mu);
    int rc = iiop__conn_recv(cc->conn, -1, msg, len);
    pthread_mutex_lock(&cc->mu);
    cc->leader = 0;
    giop_header h;
    if (rc == CDR_OK && giop_header_parse(*msg, *len, &h) == CDR_OK
        && (h.type == GIOP_REPLY || h.type == GIOP_LOCATE_REPLY)) {
      /* a caller's reply (as dispatch()): hand it over, read on */
      uint32_t id;
      if (giop_peek_request_id(*msg, *len, &id) != CDR_OK) {
        iiop__conn_release(cc->conn, *msg);
        pthread_mutex_unlock(&cc->mu);
        return CDR_E_PROTOCOL;          /* MessageError and the end */
      }
      iiop_call *p = pend_find(cc, id);
      if (!p) {
        iiop__conn_release(cc->conn, *msg); /* a call that timed out */
        continue;
      }
      pend_remove(cc, p);
      p->pmsg = *msg;
      p->plen = *len;
      p->pstatus = CDR_OK;
      p->pstate = P_DONE;
      if (call_mark(p))
        call_wake(cc, p);                   /* under cc->mu: a rare path */
      continue;
    }
    if (rc != CDR_OK && rc != IIOP__RECV_REFUSED)
      conn_fail_locked(cc, CDR_E_CLOSED, 0);
    else if (cc->pend) {
      iiop_call *nx = promote(cc);      /* a caller reads while this thread dispatches */
      if (nx)
        call_wake(cc, nx);                  /* under cc->mu: a rare path */
    }
    pthread_mutex_unlock(&cc->mu);
    return rc;
  }
}

void iiop__bidir_end(iiop__bidir_set *set, iiop__bidir_conn *cc)
{
  if (!cc)
    return;
  pthread_mutex_lock(&set->mu);
  for (cconn **pp = &set->head; *pp; pp = &(*pp)->bnext)
    if (*pp == cc) {
      *pp = cc->bnext;
      break;
    }
  pthread_mutex_unlock(&set->mu);
  pthread_mutex_lock(&cc->mu);
  conn_fail_locked(cc, CDR_E_CLOSED, 0);
  while (cc->refs > 1)
    pthread_cond_wait(&cc->endcv, &cc->mu);
  pthread_mutex_unlock(&cc->mu);
  for (uint32_t j = 0; j < cc->npts; j++)
    iiop__free(set->alloc, cc->pts_host[j]);
  pthread_cond_destroy(&cc->endcv);
  pthread_cond_destroy(&cc->rcv);
  pthread_cond_destroy(&cc->cs_cv);
  pthread_mutex_destroy(&cc->mu);
  iiop__free(set->alloc, cc);
}
