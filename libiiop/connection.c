#include "config.h"
/* connection.c - one GIOP connection over a transport (connection.h).
 *
 * Sending: a whole message goes out under the compare-and-set write lock.
 * A message is a gather list: the encoder's buffer and the segments a
 * servant or stub wrote by reference (cdr_out_iov()).  One that needs no
 * fragmenting is one gather write.  A fragmented one is cut by
 * giop_fragmenter_nextv over the same list; its fragment headers are
 * written into an array on the stack so that many fragments (header
 * iovec plus data iovecs pointing into the pieces) go out in one gather
 * write, up to FRAG_BATCH fragments (FRAG_IOV iovecs) per write.  Holding the lock for the whole message
 * keeps GIOP 1.1 (one fragmented message at a time) correct and costs GIOP
 * 1.2 nothing that matters: a writer is never parked while holding it.
 *
 * Receiving: the reader reads straight into the reassembler's buffer
 * (giop_reasm_buffer/commit): an unfragmented message lands in its final
 * buffer with no copy.  The reassembler is not thread-safe and messages are
 * released by other threads (a reply handed to the caller that waits for
 * it), so its calls run under a lock -- but never the read itself: the
 * reservation giop_reasm_buffer() gave stays valid across a release.  The
 * lock is the compare-and-set one of the write side (wlock.h): a
 * connection whose reader is alone, as a server's is, touches no mutex.
 */
#include <errno.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/frag.h>
#include "connection.h"
#include "transport.h"
#include "wlock.h"

/* Fragments per gather write, in at most FRAG_IOV iovecs: as many as one
 * sendmsg takes (IOV_MAX, 1024 on Linux), so that 64 KiB in 1 KiB
 * Fragments (65 headers and their data: 130 iovecs) is one system call.
 * On the stack: 4 KiB of headers and 16 KiB of iovecs. */
#define FRAG_BATCH 256
#define FRAG_IOV 1024

/* Combined sends (see "Combining" below): the most iovecs one combined
 * write gathers (4 KiB on the holder's stack).  A request never needs more
 * than CDR_OUT_IOV_MAX + 1, so one always fits. */
#define COMB_IOV 256
_Static_assert(CDR_OUT_IOV_MAX + 1 <= COMB_IOV, "a request fits one combined write");
#ifdef __linux__
#define COMBINE 1
#else
#define COMBINE 0                    /* a sender's wait is a futex */
#endif

/* A request left to the write lock's holder: linked on the connection's
 * pending stack by a sender that found the lock taken; it lives on that
 * sender's stack, which waits (DONE) until the holder has written it. */
typedef struct send_node {
  struct send_node *next;
  const struct iovec *v;
  int nv;
  int timeout_ms;                    /* < 0: none; > 0 (0 is never combined) */
  int rc;                            /* the holder's result, before DONE */
  int maybe;                         /* rc != CDR_OK from a write that carried
                                      * other messages: this one may be out whole */
  int done;                          /* futex word: 0 waiting, 2 asleep, 1 written */
} send_node;

struct iiop_conn {
  iiop__conn_head head;              /* first: iiop__conn_more() reads it */
  const cdr_allocator *alloc;
  iiop_transport *t;
  giop_reasm *r;
  iiop__wlock wl;
  iiop__wlock rmu;                   /* r: a compare-and-set lock (no mutex uncontended) */
  int rerr;                          /* under rmu: the reading side's sticky error */
  int last_full;                     /* under rmu: the last read filled its buffer */
  int closed;                        /* atomic */
  size_t frag_size;                  /* octets per fragment of a fragmented message */
  size_t whole_max;                  /* a message up to this size goes unfragmented */
  int send_timeout_ms;               /* < 0: none */
  int (*charge)(void *ud, size_t n); /* the budget (opts.charge, .uncharge) */
  void (*uncharge)(void *ud, size_t n);
  int (*stuck)(void *ud, int waiting);
  void *charge_ud;
  int waiting;                       /* under rmu: stuck() was told of a wait not ended */
  int refused;                       /* under rmu: the budget refused the last charge */
  int held;                          /* under rmu: a refused commit left octets held back */
  int budget_wait_ms;
  int64_t budget_deadline;           /* under rmu: refused charges are retried until then
                                      * (-1: none refused) */
  send_node *pending;                /* atomic: requests left to the write lock's holder
                                      * (a stack, newest first) */
  uint64_t combined;                 /* atomic: requests another thread's write carried */
};

/* Take the reader's lock.  It is never closed (iiop__conn_shutdown()
 * closes the write lock only), so the closed flag is not read: the CAS,
 * and the waiting path only when another thread holds it. */
static inline void rlock(iiop_conn *c)
{
  if (__builtin_expect(!iiop__wlock_try_take(&c->rmu), 0)) {
    int rc = iiop__wlock_lock_slow(&c->rmu);
    (void)rc;
  }
}

/* The reassembler's charge hook: the budget's answer, remembered, so that
 * a refusal is told apart from the reassembler's own errors. */
static int conn_charge(void *ud, size_t n)
{
  iiop_conn *c = ud;
  int rc = c->charge(c->charge_ud, n);
  if (rc != CDR_OK) {
    c->refused = 1;
    return CDR_E_LIMIT;
  }
  return CDR_OK;
}

static void conn_uncharge(void *ud, size_t n)
{
  iiop_conn *c = ud;
  c->uncharge(c->charge_ud, n);
}

int iiop__conn_new(iiop_transport *t, const iiop_conn_opts *o, iiop_conn **out)
{
  const cdr_allocator *a = iiop__alloc_or_global(o ? o->alloc : NULL);
  iiop_conn *c = iiop__malloc(a, sizeof *c);
  giop_reasm_opts ro;
  giop_reasm_opts_default(&ro);
  ro.alloc = a;
  if (o && o->max_message)
    ro.max_message = o->max_message;
  if (o && o->max_fragmented)
    ro.max_fragmented = o->max_fragmented;
  if (c && o && o->charge && o->uncharge) {
    ro.charge = conn_charge;
    ro.uncharge = conn_uncharge;
    ro.charge_ud = c;
  }
  giop_reasm *r = c ? giop_reasm_new(&ro) : NULL;
  if (!r) {
    iiop__free(a, c);
    t->ops->free(t);
    return CDR_E_NOMEM;
  }
  memset(c, 0, sizeof *c);
  c->alloc = a;
  c->t = t;
  c->r = r;
  iiop__wlock_init(&c->wl);
  iiop__wlock_init(&c->rmu);
  /* A fragment size set: every message over it is fragmented at it.  None
   * (0): whole up to GIOP_WHOLE_DEFAULT (no more than the connection takes
   * itself), larger ones in GIOP_FRAG_DEFAULT fragments. */
  size_t fs = o && o->fragment_size ? o->fragment_size : GIOP_FRAG_DEFAULT;
  fs &= ~(size_t)7;                  /* as the fragmenter rounds it */
  c->frag_size = fs < GIOP_FRAG_MIN ? GIOP_FRAG_MIN : fs;
  c->whole_max = c->frag_size;
  if (!o || !o->fragment_size) {
    c->whole_max = GIOP_WHOLE_DEFAULT;
    if (ro.max_message < c->whole_max)
      c->whole_max = ro.max_message < c->frag_size ? c->frag_size : ro.max_message;
  }
  c->send_timeout_ms = o && o->send_timeout_ms > 0 ? o->send_timeout_ms : -1;
  if (o && o->charge && o->uncharge) {
    c->charge = o->charge;
    c->uncharge = o->uncharge;
    c->stuck = o->stuck;
    c->charge_ud = o->charge_ud;
    c->budget_wait_ms = o->budget_wait_ms > 0 ? o->budget_wait_ms : 0;
  }
  c->budget_deadline = -1;
  *out = c;
  return CDR_OK;
}

/* Whether MSG may be fragmented (CORBA 3.x GIOP, "Fragment Message"):
 * GIOP 1.1 Request and Reply; 1.2 also LocateRequest and LocateReply; never
 * 1.0.  The fragmenter (frag.c) takes exactly these: another message is sent
 * whole, whatever its size. */
static int fragmentable(const uint8_t *msg)
{
  if (msg[5] == 1)
    return msg[7] == GIOP_REQUEST || msg[7] == GIOP_REPLY;
  if (msg[5] == 2)
    return msg[7] == GIOP_REQUEST || msg[7] == GIOP_REPLY || msg[7] == GIOP_LOCATE_REQUEST
           || msg[7] == GIOP_LOCATE_REPLY;
  return 0;
}

/* Write the message of the NV pieces V (LEN octets; the first holds the
 * 12-octet header) as fragments, under the lock. */
static __attribute__((noinline)) int send_fragmented(iiop_conn *c, const struct iovec *v,
                                                     int nv, size_t len, uint32_t request_id,
                                                     int timeout_ms)
{
  iiop_transport *t = c->t;
  giop_fragmenter f;
  int rc = giop_fragmenter_init_iov(&f, v, nv, len, c->frag_size, request_id);
  if (rc != CDR_OK)
    return rc;
  int64_t deadline = timeout_ms >= 0 ? iiop__now_ms() + timeout_ms : -1;
  /* Up to FRAG_BATCH fragments per gather write: each a header (written
   * into HDR by giop_fragmenter_nextv_batch()) and its data as pieces of V
   * -- the fragments' data is never copied. */
  uint8_t hdr[FRAG_BATCH][16];
  struct iovec w[FRAG_IOV];
  for (;;) {
    int nw = 0;
    rc = giop_fragmenter_nextv_batch(&f, hdr, FRAG_BATCH, w, FRAG_IOV, &nw);
    if (rc < 0)
      return rc;
    if (nw > 0) {
      rc = t->ops->writev(t, w, nw, deadline >= 0 ? iiop__remaining(deadline) : -1);
      if (rc != CDR_OK)
        return rc;
    }
    if (f.done)
      return CDR_OK;
  }
}

/* ---------------------------------------------------------------- combining
 *
 * A sender that finds the write lock taken does not wait for the lock when
 * its message is one gather write (not fragmented), its time limit is not 0
 * ("only what can be written without waiting" is not combined) and this is
 * Linux (the futex): it links a node naming its iovecs onto c->pending with
 * a compare-and-set and tries the lock once more; failing that, the holder
 * writes the message, and the sender sleeps on its node's futex word until
 * it has.  Every holder, before it releases the lock, takes the whole
 * stack, puts it back in the order the senders linked it and writes the
 * messages after its own, in as few gather writes as COMB_IOV allows (its
 * own and the first of them in one), each message's octets contiguous and
 * whole; after the release it looks at the stack once more.  Both the
 * sender's link and its second try, and the holder's release and its look,
 * are sequentially consistent: either the second try finds the lock free
 * or the look finds the node, so no message is left behind.  A sender
 * waits for its node before it returns, so one thread's messages go out in
 * the order it sent them.  The combined write's time limit is the shortest
 * of its messages' (-1 when none has one); when it fails, every message of
 * it gets that error (the connection is shut down), flagged "maybe" when
 * the write carried more than one message: which of them the peer received
 * whole cannot be known, so a client reports each such call
 * COMPLETED_MAYBE and does not try it again.*/

#ifdef __linux__
/* Node N written: its result RC, and its sender woken if it sleeps.  N may
 * be gone as soon as DONE reads 1; the wake uses only its address (a wake
 * of a word that has moved on is harmless: every futex waiter loops). */
static void node_finish(send_node *n, int rc, int maybe)
{
  n->rc = rc;
  n->maybe = maybe;
  if (__atomic_exchange_n(&n->done, 1, __ATOMIC_ACQ_REL) == 2)
    syscall(SYS_futex, &n->done, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

/* The sender's wait for its node N: the holder's result. */
static __attribute__((noinline)) int node_wait(send_node *n)
{
  for (;;) {
    int d = __atomic_load_n(&n->done, __ATOMIC_ACQUIRE);
    if (d == 1)
      return n->rc;
    if (d == 0) {
      int z = 0;
      if (!__atomic_compare_exchange_n(&n->done, &z, 2, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE))
        continue;
    }
    syscall(SYS_futex, &n->done, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 2, NULL, NULL, 0);
  }
}
#else
static void node_finish(send_node *n, int rc, int maybe)
{
  n->rc = rc;
  n->maybe = maybe;
  __atomic_store_n(&n->done, 1, __ATOMIC_RELEASE);
}
#endif

/* The lock held: write the message OWN (NOWN iovecs; 0: none) with
 * OWN_TIMEOUT, then every message on c->pending, until the stack is empty.
 * OWN goes in the first gather write with as many of the pending ones as
 * fit (when its time limit is not 0).  Returns OWN's result (CDR_OK when
 * none); *OWN_MAYBE (when OWN_MAYBE is not NULL) 1 when that is an error
 * of a write that carried other messages too and had written at least one
 * octet of OWN before it, so that OWN may have gone out whole (a write of
 * one message that fails has not sent all of it: the loop over partial
 * writes ends at the error).  Each linked message is flagged the same way:
 * "maybe" when the failed write had written any octet of it (the TCP
 * transport says how many went, iiop__writev_failed_out; another
 * transport does not, and then every message of that write is "maybe"). */
/* The octets of V[0..N). */
static size_t iov_total(const struct iovec *v, int n)
{
  size_t t = 0;
  for (int k = 0; k < n; k++)
    t += v[k].iov_len;
  return t;
}

static __attribute__((noinline)) int drain_locked(iiop_conn *c, const struct iovec *own,
                                                  int nown, int own_timeout, int *own_maybe)
{
  iiop_transport *t = c->t;
  int own_rc = CDR_OK;
  struct iovec w[COMB_IOV];
  send_node *q = __atomic_exchange_n(&c->pending, NULL, __ATOMIC_SEQ_CST);
  for (;;) {
    /* Q newest first: put it in the order the senders linked it. */
    send_node *fifo = NULL;
    while (q) {
      send_node *nx = q->next;
      q->next = fifo;
      fifo = q;
      q = nx;
    }
    while (fifo || nown) {
      int nw = 0, tmo = -1;
      if (nown) {
        memcpy(w, own, (size_t)nown * sizeof *w);
        nw = nown;
        tmo = own_timeout;
      }
      send_node *first = fifo;
      uint64_t k = 0;
      if (tmo != 0) {
        while (fifo && nw + fifo->nv <= COMB_IOV) {
          memcpy(w + nw, fifo->v, (size_t)fifo->nv * sizeof *w);
          nw += fifo->nv;
          if (tmo < 0 || fifo->timeout_ms < tmo)
            tmo = fifo->timeout_ms;  /* > 0: a 0 is never linked */
          fifo = fifo->next;
          k++;
        }
      }
      /* After an error, the octets of W out (SIZE_MAX: not known, so
       * all may be): a message none of whose octets went is not sent. */
      iiop__writev_failed_out = 0;
      int rc = CDR_E_CLOSED;
      if (!__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE)) {
        iiop__writev_failed_out = SIZE_MAX;
        rc = t->ops->writev(t, w, nw, tmo);
      }
      size_t out = iiop__writev_failed_out;
      if (rc != CDR_OK)
        iiop__conn_shutdown(c);      /* part of a message may be out: the stream is lost */
      int several = rc != CDR_OK && (nown ? 1 : 0) + k > 1;
      size_t at = 0;                 /* octets of W before the message */
      if (nown) {
        own_rc = rc;
        if (own_maybe)
          *own_maybe = several && out > 0;
        at = iov_total(own, nown);
      }
      nown = 0;
      if (k)
        __atomic_add_fetch(&c->combined, k, __ATOMIC_RELAXED);
      while (first != fifo) {
        send_node *nx = first->next; /* before its sender may leave */
        size_t len = several ? iov_total(first->v, first->nv) : 0;
        node_finish(first, rc, several && out > at);
        at += len;
        first = nx;
      }
    }
    if (!__atomic_load_n(&c->pending, __ATOMIC_RELAXED))
      return own_rc;
    q = __atomic_exchange_n(&c->pending, NULL, __ATOMIC_SEQ_CST);
  }
}

/* Release the write lock; a message linked meanwhile is written first (the
 * lock taken again when it is free: else its new holder writes it). */
static inline __attribute__((always_inline)) void unlock_send(iiop_conn *c)
{
  for (;;) {
    if (__builtin_expect(__atomic_load_n(&c->pending, __ATOMIC_RELAXED) != NULL, 0))
      (void)drain_locked(c, NULL, 0, -1, NULL);
    iiop__wlock_unlock(&c->wl);
    if (__builtin_expect(__atomic_load_n(&c->pending, __ATOMIC_SEQ_CST) == NULL, 1))
      return;
    if (!iiop__wlock_try_take(&c->wl))
      return;                        /* its holder writes it */
  }
}

/* The lock was taken: link the message V (NV iovecs) for its holder, or
 * write it when the lock is free by then.  Its result. */
static __attribute__((noinline)) int send_combined(iiop_conn *c, const struct iovec *v, int nv,
                                                   int timeout_ms, int *maybe)
{
  send_node n;
  n.v = v;
  n.nv = nv;
  n.timeout_ms = timeout_ms;
  n.rc = CDR_OK;
  n.maybe = 0;
  n.done = 0;
  n.next = __atomic_load_n(&c->pending, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&c->pending, &n.next, &n, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED))
    ;
#ifdef __linux__
  if (!iiop__wlock_try_take(&c->wl)) {
    int rc = node_wait(&n);
    *maybe = n.maybe;
    return rc;
  }
#endif
  /* The lock is ours: N is on the stack (or already written by the
   * holder that released it meanwhile). */
  (void)drain_locked(c, NULL, 0, -1, NULL);
  unlock_send(c);
  *maybe = n.maybe;
  return n.rc;                       /* set by a holder, maybe this thread */
}

/* The body of both: TIMEOUT_MS < 0 none. */
static inline __attribute__((always_inline)) int sendv_common(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                               uint32_t request_id, int timeout_ms, int *maybe)
{
  *maybe = 0;
  if (!v || nv < 1 || nv > CDR_OUT_IOV_MAX + 1 || v[0].iov_len < GIOP_HEADER_SIZE)
    return CDR_E_INVALID;
  if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE))
    return CDR_E_CLOSED;
  int whole = len <= c->whole_max || !fragmentable(v[0].iov_base);
  int rc;
  if (__builtin_expect(iiop__wlock_try_take(&c->wl), 1))
    rc = CDR_OK;
  else if (COMBINE && whole && timeout_ms != 0)
    return send_combined(c, v, nv, timeout_ms, maybe);
  else if ((rc = iiop__wlock_lock_slow(&c->wl)) != CDR_OK)
    return rc;
  if (__builtin_expect(whole && !__atomic_load_n(&c->pending, __ATOMIC_RELAXED), 1))
    rc = c->t->ops->writev(c->t, v, nv, timeout_ms);
  else if (whole)
    rc = drain_locked(c, v, nv, timeout_ms, maybe);
  else
    rc = send_fragmented(c, v, nv, len, request_id, timeout_ms);
  if (rc != CDR_OK && rc != CDR_E_INVALID && rc != CDR_E_PROTOCOL)
    iiop__conn_shutdown(c);          /* part of a message may be out: the stream is lost */
  unlock_send(c);
  return rc;
}

int iiop__conn_sendv_msgs(iiop_conn *c, const struct iovec *v, int nv, int timeout_ms,
                          size_t *out)
{
  *out = 0;
  if (!v || nv < 1 || nv > IIOP__MSGS_IOV_MAX)
    return CDR_E_INVALID;
  if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE))
    return CDR_E_CLOSED;
  int rc;
  if (!iiop__wlock_try_take(&c->wl) && (rc = iiop__wlock_lock_slow(&c->wl)) != CDR_OK)
    return rc;
  int wrote = 0;
  if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE)) {
    rc = CDR_E_CLOSED;
  } else {
    iiop__writev_failed_out = SIZE_MAX;  /* a transport that does not count: all maybe */
    rc = c->t->ops->writev(c->t, v, nv, timeout_ms);
    wrote = 1;
  }
  if (rc != CDR_OK) {
    *out = wrote ? iiop__writev_failed_out : 0;
    iiop__conn_shutdown(c);
  }
  unlock_send(c);
  return rc;
}

int iiop__conn_error_minor(const iiop_conn *c)
{
  return giop_reasm_error_minor(c->r);
}

size_t iiop__conn_error_text(const iiop_conn *c, char *buf, size_t cap)
{
  return giop_reasm_error_text(c->r, buf, cap);
}

size_t iiop__conn_whole_max(const iiop_conn *c)
{
  return c->whole_max;
}

uint64_t iiop__conn_combined(const iiop_conn *c)
{
  return __atomic_load_n(&c->combined, __ATOMIC_RELAXED);
}

int iiop__conn_sendv(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                     uint32_t request_id)
{
  int maybe;
  return sendv_common(c, v, nv, len, request_id, c->send_timeout_ms, &maybe);
}

int iiop__conn_sendv_timed(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                           uint32_t request_id, int timeout_ms)
{
  int maybe;
  return sendv_common(c, v, nv, len, request_id, timeout_ms, &maybe);
}

int iiop__conn_sendv_maybe(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                           uint32_t request_id, int timeout_ms, int *maybe)
{
  return sendv_common(c, v, nv, len, request_id, timeout_ms, maybe);
}

int iiop__conn_send(iiop_conn *c, const uint8_t *msg, size_t len, uint32_t request_id)
{
  if (!msg || len < GIOP_HEADER_SIZE)
    return CDR_E_INVALID;
  struct iovec v = { (void *)msg, len };
  int maybe;
  return sendv_common(c, &v, 1, len, request_id, c->send_timeout_ms, &maybe);
}

int iiop__conn_send_out(iiop_conn *c, const cdr_out *o, uint32_t request_id)
{
  struct iovec v[CDR_OUT_IOV_MAX];
  int n = cdr_out_iov(o, v, CDR_OUT_IOV_MAX);
  if (n < 1)
    return CDR_E_INVALID;
  return iiop__conn_sendv(c, v, n, cdr_out_total(o), request_id);
}

/* The wait for the budget is over (rmu held, or the connection being
 * freed): stuck() is told. */
static void wait_end(iiop_conn *c)
{
  if (c->waiting) {
    c->waiting = 0;
    (void)c->stuck(c->charge_ud, 0);
  }
}

/* The budget refused to let the message being received grow (rmu held):
 * wait a little (rmu released) and let the caller retry, CDR_OK; or, once
 * budget_wait_ms have passed since the first refusal or stuck() says no
 * octet can be given back, IIOP__RECV_REFUSED with what has arrived of the
 * message. */
static int budget_wait(iiop_conn *c, uint8_t **msg, size_t *len)
{
  c->refused = 0;
  int64_t now = iiop__now_ms();
  if (c->budget_deadline < 0)
    c->budget_deadline = now + c->budget_wait_ms;
  int give_way = 0;
  if (c->stuck) {
    c->waiting = 1;
    give_way = c->stuck(c->charge_ud, 1);
  }
  if (give_way || now >= c->budget_deadline) {
    wait_end(c);
    c->budget_deadline = -1;
    const uint8_t *p = NULL;
    size_t n = 0;
    (void)giop_reasm_current(c->r, &p, &n);
    *msg = (uint8_t *)p;
    *len = n;
    return IIOP__RECV_REFUSED;
  }
  int64_t left = c->budget_deadline - now;
  struct timespec ts = { 0, (long)(left < 5 ? left : 5) * 1000000 };
  iiop__wlock_unlock(&c->rmu);
  nanosleep(&ts, NULL);
  rlock(c);
  return CDR_OK;
}

int iiop__conn_skip(iiop_conn *c)
{
  rlock(c);
  int rc = giop_reasm_skip_current(c->r);
  if (rc != CDR_OK && rc != CDR_E_STATE)
    c->rerr = rc;
  iiop__wlock_unlock(&c->rmu);
  return rc == CDR_E_STATE ? CDR_OK : rc;
}

static int phase_locked(iiop_conn *c);

int iiop__conn_phase(iiop_conn *c)
{
  if (!iiop__wlock_trylock(&c->rmu))
    return -1;
  return phase_locked(c);
}

int iiop__conn_phase_wait(iiop_conn *c)
{
  rlock(c);
  return phase_locked(c);
}

/* The phase (rmu held; released here). */
static int phase_locked(iiop_conn *c)
{
  /* Waiting for the budget is the server's doing, not the client's: not
   * timed (the wait has its own bound). */
  int ph = c->budget_deadline >= 0 ? -1 : giop_reasm_phase(c->r);
  iiop__wlock_unlock(&c->rmu);
  return ph;
}

int iiop__conn_recv(iiop_conn *c, int timeout_ms, uint8_t **msg, size_t *len)
{
  return iiop__conn_recv_next(c, NULL, timeout_ms, msg, len);
}

int iiop__conn_recv_next(iiop_conn *c, uint8_t *done, int timeout_ms, uint8_t **msg,
                         size_t *len)
{
  int64_t deadline = timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
  int rc;
  rlock(c);
  /* The previous message goes back first: a spare it was becomes the
   * buffer of the direct read below. */
  if (done)
    giop_reasm_release(c->r, done);
  for (;;) {
    /* Complete messages first, even after an error or a close. */
    if (giop_reasm_next(c->r, msg, len)) {
      c->head.more = giop_reasm_ready(c->r);
      rc = CDR_OK;
      break;
    }
    if (c->rerr) {
      rc = c->rerr;
      break;
    }
    if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE)) {
      rc = CDR_E_CLOSED;
      break;
    }
    struct iovec iov[GIOP_REASM_IOV_MAX];
    int niov = 1;
    uint8_t *buf;
    size_t room0;
    /* At a message boundary with nothing buffered: the whole spare, and a
     * read that is exactly one message is handed out as it is.  Else a
     * scatter list where the transport reads one (predicted Fragments'
     * data lands in place: giop_reasm_bufferv()), or one buffer. */
    int direct = !c->held && iiop__reasm_direct(c->r, &buf, &room0);
    if (direct) {
      iov[0].iov_base = buf;
      iov[0].iov_len = room0;
      rc = CDR_OK;
    } else {
      rc = giop_reasm_bufferv(c->r, iov, iiop__is_tcp(c->t) ? GIOP_REASM_IOV_MAX : 1, &niov);
    }
    if (rc != CDR_OK) {
      if (c->refused) {
        rc = budget_wait(c, msg, len);
        if (rc == CDR_OK)
          continue;
        break;
      }
      c->rerr = rc;
      break;
    }
    c->budget_deadline = -1;        /* granted (a wait, if there was one, is over) */
    if (__builtin_expect(c->waiting, 0))
      wait_end(c);
    if (c->held) {
      /* giop_reasm_buffer() processed the octets a refusal held back: they
       * may have completed a message, which is handed out before reading
       * (the peer may send nothing more until it is answered). */
      c->held = 0;
      if (giop_reasm_next(c->r, msg, len)) {
        c->head.more = giop_reasm_ready(c->r);
        (void)giop_reasm_commit(c->r, 0);  /* end the reservation */
        rc = CDR_OK;
        break;
      }
    }
    iiop__wlock_unlock(&c->rmu);
    int wait = timeout_ms < 0 ? -1 : timeout_ms == 0 ? 0 : iiop__remaining(deadline);
    size_t room = iov[0].iov_len;
    long n;
    if (niov == 1) {
      n = c->t->ops->read(c->t, iov[0].iov_base, room, wait);
    } else {
      for (int k = 1; k < niov; k++)
        room += iov[k].iov_len;
      n = iiop__tcp_readv(c->t, iov, niov, wait);
    }
    rlock(c);
    c->last_full = n > 0 && (size_t)n == room;
    if (n > 0) {
      if (direct && iiop__reasm_take(c->r, (size_t)n, msg, len)) {
        rc = CDR_OK;
        break;
      }
      rc = giop_reasm_commit(c->r, (size_t)n);
      if (rc != CDR_OK && c->refused) {
        c->refused = 0;             /* the octets wait: the next giop_reasm_buffer() retries */
        c->held = 1;
      }
      else if (rc != CDR_OK)
        c->rerr = rc;               /* complete messages are still handed out first */
      continue;
    }
    giop_reasm_commit(c->r, 0);     /* end the reservation */
    if (n == CDR_E_TIMEOUT) {
      rc = CDR_E_TIMEOUT;
      break;
    }
    c->rerr = n == 0 ? CDR_E_CLOSED : (int)n;
  }
  iiop__wlock_unlock(&c->rmu);
  return rc;
}

int iiop__conn_send_batch(iiop_conn *c, const uint8_t *batch, size_t blen,
                          const struct iovec *v, int nv, size_t len, uint32_t request_id)
{
  if (nv < 0 || nv > CDR_OUT_IOV_MAX + 1 || (nv > 0 && v[0].iov_len < GIOP_HEADER_SIZE))
    return CDR_E_INVALID;
  if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE))
    return CDR_E_CLOSED;
  int rc = iiop__wlock_lock(&c->wl);
  if (rc != CDR_OK)
    return rc;
  iiop_transport *t = c->t;
  if (nv == 0 || len <= c->whole_max || !fragmentable(v[0].iov_base)) {
    struct iovec all[CDR_OUT_IOV_MAX + 2];
    all[0].iov_base = (void *)batch;
    all[0].iov_len = blen;
    if (nv > 0)
      memcpy(all + 1, v, (size_t)nv * sizeof *v);
    rc = t->ops->writev(t, all, nv + 1, c->send_timeout_ms);
  } else {
    struct iovec b = { (void *)batch, blen };
    rc = t->ops->writev(t, &b, 1, c->send_timeout_ms);
    if (rc == CDR_OK)
      rc = send_fragmented(c, v, nv, len, request_id, c->send_timeout_ms);
  }
  if (rc != CDR_OK && rc != CDR_E_INVALID && rc != CDR_E_PROTOCOL)
    iiop__conn_shutdown(c);
  unlock_send(c);
  return rc;
}

int iiop__conn_recv_buffered(iiop_conn *c, uint8_t **msg, size_t *len)
{
  int rc = 1;                        /* 1: read */
  rlock(c);
  if (giop_reasm_next(c->r, msg, len)) {
    c->head.more = giop_reasm_ready(c->r);
    rc = CDR_OK;
  }
  else if (c->rerr)
    rc = c->rerr;
  else if (__atomic_load_n(&c->closed, __ATOMIC_ACQUIRE))
    rc = CDR_E_CLOSED;
  else if (!c->last_full)
    rc = CDR_E_TIMEOUT;
  iiop__wlock_unlock(&c->rmu);
  return rc == 1 ? iiop__conn_recv(c, 0, msg, len) : rc;
}

void iiop__conn_release(iiop_conn *c, uint8_t *msg)
{
  if (!msg)
    return;
  rlock(c);
  giop_reasm_release(c->r, msg);
  iiop__wlock_unlock(&c->rmu);
}

void iiop__conn_shutdown(iiop_conn *c)
{
  if (__atomic_exchange_n(&c->closed, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  c->t->ops->shutdown(c->t);
  iiop__wlock_close(&c->wl);
}

int iiop__conn_is_closed(const iiop_conn *c)
{
  return __atomic_load_n(&c->closed, __ATOMIC_ACQUIRE);
}

void iiop__conn_free(iiop_conn *c)
{
  if (!c)
    return;
  iiop__conn_shutdown(c);
  wait_end(c);
  giop_reasm_free(c->r);
  c->t->ops->free(c->t);
  iiop__wlock_destroy(&c->wl);
  iiop__wlock_destroy(&c->rmu);
  iiop__free(c->alloc, c);
}

int iiop__conn_send_bare(iiop_conn *c, int type, uint32_t request_id, uint8_t minor)
{
  uint8_t b[16];
  cdr_opts op;
  cdr_opts_default(&op);
  op.giop_minor = minor;
  cdr_out o;
  cdr_out_init_buffer(&o, &op, b, sizeof b);
  int rc;
  if (type == GIOP_CANCEL_REQUEST)
    rc = giop_begin_cancel_request(&o, request_id);
  else if (type == GIOP_CLOSE_CONNECTION)
    rc = giop_begin_close_connection(&o);
  else if (type == GIOP_MESSAGE_ERROR)
    rc = giop_begin_message_error(&o);
  else
    rc = CDR_E_INVALID;
  if (rc == CDR_OK)
    rc = giop_end(&o);
  if (rc == CDR_OK)
    rc = iiop__conn_send(c, b, cdr_out_size(&o), request_id);
  cdr_out_close(&o);
  return rc;
}
