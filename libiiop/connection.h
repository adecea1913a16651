/* connection.h - one GIOP connection over a transport (internal to
 * libiiop; the client and the server build on it).
 *
 * Sending: a complete encoded message -- contiguous, or the gather list of
 * a stream holding by-reference segments -- goes out under the
 * connection's compare-and-set write lock in gather writes (headers and
 * body pieces without extra copies): unfragmented up to GIOP_WHOLE_DEFAULT
 * when no fragment_size is set, else fragmented when larger than
 * fragment_size.
 * Receiving: one reader at a time reads from the transport into the
 * reassembler (giop_reasm_buffer/commit: no extra copy) until a whole
 * message is there.
 */
#ifndef IIOP_CONNECTION_H
#define IIOP_CONNECTION_H

#include <iiop/conn.h>
#include <iiop/frag.h>
#include <iiop/msg.h>
#include "internal.h"

typedef struct iiop_conn_opts {
  size_t fragment_size;      /* set: a message over it goes in fragments of this size;
                              * 0: whole up to GIOP_WHOLE_DEFAULT (at most max_message),
                              * larger in GIOP_FRAG_DEFAULT fragments */
  size_t max_message;        /* 0: 64 MiB */
  size_t max_fragmented;     /* a fragmented message in all (0: max_message) */
  int send_timeout_ms;       /* a message not written within this long fails with
                              * CDR_E_TIMEOUT and shuts the connection down (0: none) */
  const cdr_allocator *alloc;/* the connection and its reassembler (NULL: global) */
  /* A memory budget for message buffers (giop_reasm_opts.charge; NULL:
   * none).  A refused charge is retried (every few milliseconds) for up to
   * budget_wait_ms; then iiop__conn_recv() returns IIOP__RECV_REFUSED.
   * stuck (NULL: none) is told of the wait, with charge_ud: WAITING 1 at
   * each retry (the first begins the wait), 0 when the wait ends (granted,
   * refused, or the connection freed); nonzero from a retry refuses at
   * once, as past budget_wait_ms (the budget cannot be given back). */
  int (*charge)(void *ud, size_t n);
  void (*uncharge)(void *ud, size_t n);
  int (*stuck)(void *ud, int waiting);
  void *charge_ud;
  int budget_wait_ms;
} iiop_conn_opts;

/* iiop__conn_recv(): the message being received needs more memory than the
 * budget granted within budget_wait_ms.  *MSG and *LEN are what has arrived
 * of it (its header first), valid until iiop__conn_skip(), which the
 * caller calls next (after answering it). */
#define IIOP__RECV_REFUSED 1

typedef struct iiop_conn iiop_conn;

/* A connection over T (taken over).  Errors: CDR_E_NOMEM (T is freed). */
IIOP_HIDDEN int iiop__conn_new(iiop_transport *t, const iiop_conn_opts *o, iiop_conn **out) IIOP_WUR;
/* Send the complete message MSG (LEN octets, 12-octet header included),
 * fragmenting it when larger than the connection sends whole (its
 * fragment_size, or GIOP_WHOLE_DEFAULT: iiop_conn_opts; REQUEST_ID goes
 * into GIOP 1.2 Fragment headers): the
 * whole message goes out under the write lock, up to 64 fragments (header
 * and data iovecs, 256 iovecs at most) per gather write, one write for a
 * message that is not fragmented, the fragments' data straight from MSG.
 * A GIOP 1.0 message, or one that is not a
 * Request/Reply/LocateRequest/LocateReply, goes whole.  Thread-safe.
 * Errors: CDR_E_CLOSED, CDR_E_IO, CDR_E_TLS, CDR_E_TIMEOUT, CDR_E_INVALID
 * (LEN < 12 or a message_size that does not match); after a write error
 * the connection is shut down (a partial message cannot be taken back). */
IIOP_HIDDEN int iiop__conn_send(iiop_conn *c, const uint8_t *msg, size_t len, uint32_t request_id)
  IIOP_WUR;
/* As iiop__conn_send(), the message given as the NV pieces of V (LEN
 * octets in all, the first piece holding at least the 12-octet header; at
 * most CDR_OUT_IOV_MAX + 1 pieces), fragments cut across the pieces
 * without copying their data.  Errors: as iiop__conn_send(). */
IIOP_HIDDEN int iiop__conn_sendv(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                                 uint32_t request_id) IIOP_WUR;
/* As iiop__conn_sendv(), within TIMEOUT_MS (< 0: none; 0: only what can be
 * written without waiting) instead of the connection's send_timeout_ms: a
 * client call's remaining time.  The wait for the write lock is not timed
 * (its holder's write is).  A message that needs no fragmenting, sent
 * with TIMEOUT_MS other than 0 while another thread holds the write lock,
 * is written by that holder together with its own (iiop__conn_combined();
 * the holder's write then has the shortest time limit of the messages it
 * carries, and its error is each one's).  Errors: as iiop__conn_send(). */
IIOP_HIDDEN int iiop__conn_sendv_timed(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                                       uint32_t request_id, int timeout_ms) IIOP_WUR;
/* As iiop__conn_sendv_timed(); on an error *MAYBE is 1 when the failed
 * write carried other threads' messages with this one (combined sends), so
 * that this message may have reached the peer whole before the error (a
 * client reports such a call COMPLETED_MAYBE and does not try it again),
 * and 0 when it cannot have been sent whole (COMPLETED_NO).  *MAYBE is 0
 * on success.  MAYBE must not be NULL. */
IIOP_HIDDEN int iiop__conn_sendv_maybe(iiop_conn *c, const struct iovec *v, int nv, size_t len,
                                       uint32_t request_id, int timeout_ms, int *maybe) IIOP_WUR;
/* Several whole messages (none fragmented): the NV pieces V (at most
 * IIOP__MSGS_IOV_MAX), written in one gather write under the write lock
 * within TIMEOUT_MS (< 0: none).  On an error *OUT is how many octets of V
 * went out (SIZE_MAX: not known) and the connection is shut down.
 * Errors: as iiop__conn_send(). */
#define IIOP__MSGS_IOV_MAX 256
/* giop_reasm_error_minor() of C's reassembler: the GIOP minor version to
 * answer the header iiop__conn_recv() refused (CDR_E_PROTOCOL) in, or -1. */
IIOP_HIDDEN int iiop__conn_error_minor(const iiop_conn *c);
/* What C's reader refused, in words (giop_reasm_error_text: after
 * iiop__conn_recv() failed with CDR_E_PROTOCOL or CDR_E_LIMIT; "" when it
 * refused nothing).  Returns the text's length. */
IIOP_HIDDEN size_t iiop__conn_error_text(const iiop_conn *c, char *buf, size_t cap);
/* The largest message C sends unfragmented. */
IIOP_HIDDEN size_t iiop__conn_whole_max(const iiop_conn *c);
IIOP_HIDDEN int iiop__conn_sendv_msgs(iiop_conn *c, const struct iovec *v, int nv,
                                      int timeout_ms, size_t *out) IIOP_WUR;
/* Send the complete message encoded in O (its buffer and by-reference
 * segments: cdr_out_iov(), cdr_out_total()).  Errors: as iiop__conn_send(). */
IIOP_HIDDEN int iiop__conn_send_out(iiop_conn *c, const cdr_out *o, uint32_t request_id)
  IIOP_WUR;
/* Send BATCH (BLEN octets: complete messages, none larger than the
 * fragment size, as the server batched them) and then the message of the
 * NV pieces V (LEN octets, as iiop__conn_sendv(); NV 0: none) in one
 * gather write when that message needs no fragmenting, else BATCH first
 * and the message fragmented.  Errors: as iiop__conn_send(). */
IIOP_HIDDEN int iiop__conn_send_batch(iiop_conn *c, const uint8_t *batch, size_t blen,
                                      const struct iovec *v, int nv, size_t len,
                                      uint32_t request_id) IIOP_WUR;
/* Messages of other threads that a write-lock holder wrote with its own
 * (or after it) since C was made: a sender that finds the lock taken links
 * a message that needs no fragmenting and has a time limit other than 0
 * for the holder instead of waiting for the lock (Linux; connection.c,
 * "combining").  A count for tests and benchmarks; any thread. */
IIOP_HIDDEN uint64_t iiop__conn_combined(const iiop_conn *c);
/* The head of every iiop_conn (its first member), read inline. */
typedef struct iiop__conn_head {
  int more;                  /* the reader's: the last recv left a complete message */
} iiop__conn_head;

/* Whether the last iiop__conn_recv() left another complete message
 * buffered (the next one returns at once).  Only for the reading thread. */
static inline int iiop__conn_more(const iiop_conn *c)
{
  return ((const iiop__conn_head *)(const void *)c)->more;
}
/* Send a message that has no body (CancelRequest for REQUEST_ID,
 * CloseConnection or MessageError) in GIOP 1.MINOR, built in a stack
 * buffer.  Errors: as iiop__conn_send; CDR_E_INVALID for another TYPE. */
IIOP_HIDDEN int iiop__conn_send_bare(iiop_conn *c, int type, uint32_t request_id, uint8_t minor);
/* Wait up to TIMEOUT_MS (< 0: forever) for the next complete message;
 * *MSG stays valid until iiop__conn_release().  TIMEOUT_MS 0 never blocks
 * (the server's worker pool): it reads what has arrived until a message is
 * complete or the transport has nothing more (CDR_E_TIMEOUT: then no
 * complete message is left buffered, so readiness of the socket is the
 * signal for more).  One reader at a time (the caller serialises).  Errors: CDR_E_CLOSED (peer closed or
 * iiop__conn_shutdown), CDR_E_TIMEOUT, CDR_E_IO, CDR_E_TLS, CDR_E_PROTOCOL
 * and CDR_E_LIMIT (from the reassembler: answer MessageError and close). */
IIOP_HIDDEN int iiop__conn_recv(iiop_conn *c, int timeout_ms, uint8_t **msg, size_t *len) IIOP_WUR;
/* iiop__conn_release(C, DONE) (DONE NULL: nothing to give back), then
 * iiop__conn_recv(C, TIMEOUT_MS, MSG, LEN), taking the reader's lock once
 * for both: a reader that gives back each message just before it reads the
 * next (a server's connection thread) saves a round of the lock. */
IIOP_HIDDEN int iiop__conn_recv_next(iiop_conn *c, uint8_t *done, int timeout_ms, uint8_t **msg,
                                     size_t *len) IIOP_WUR;
/* After IIOP__RECV_REFUSED: drop that message (the rest of it is read and
 * discarded).  CDR_OK, or CDR_E_LIMIT for a fragmented message (it cannot
 * be skipped: the connection must close). */
IIOP_HIDDEN int iiop__conn_skip(iiop_conn *c);
/* The reader's phase (GIOP_REASM_EMPTY, _HEADER, _BODY), or -1 when the
 * reader holds the reassembler just now (it is making progress) or waits
 * for the budget.  Never blocks; any thread. */
IIOP_HIDDEN int iiop__conn_phase(iiop_conn *c);
/* As iiop__conn_phase(), but waiting for the reassembler (held only
 * briefly) instead of answering -1 for it. */
IIOP_HIDDEN int iiop__conn_phase_wait(iiop_conn *c);
/* As iiop__conn_recv(C, 0, ...), but without reading when the last read
 * did not fill its buffer (the socket had no more then; what arrives since
 * makes it readable again): a complete message already buffered, else the
 * sticky error, else CDR_E_TIMEOUT.  Saves the read that would only say
 * EAGAIN after a request has been answered (the server's worker pool). */
IIOP_HIDDEN int iiop__conn_recv_buffered(iiop_conn *c, uint8_t **msg, size_t *len) IIOP_WUR;
/* Give back a message from iiop__conn_recv(); any thread, any time before
 * iiop__conn_free() (also while another thread is in iiop__conn_recv()). */
IIOP_HIDDEN void iiop__conn_release(iiop_conn *c, uint8_t *msg);
/* Shut the transport down (a blocked reader wakes with CDR_E_CLOSED; write
 * lock waiters are woken and fail).  Idempotent, thread-safe. */
IIOP_HIDDEN void iiop__conn_shutdown(iiop_conn *c);
IIOP_HIDDEN int iiop__conn_is_closed(const iiop_conn *c);
/* Free (after shutdown, once no thread uses C). */
IIOP_HIDDEN void iiop__conn_free(iiop_conn *c);

#endif
