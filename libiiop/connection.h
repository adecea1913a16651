/* connection.h - one GIOP connection over a transport (internal to
 * libiiop; the client and the server build on it).
 *
 * Sending: a complete encoded message goes out under the connection's
 * compare-and-set write lock as one gather write per fragment (header and
 * body without extra copies), fragmented when larger than fragment_size.
 * Receiving: one reader at a time reads from the transport into the
 * reassembler (giop_reasm_buffer/commit: no extra copy) until a whole
 * message is there.
 */
#ifndef IIOP_CONNECTION_H
#define IIOP_CONNECTION_H

#include "config.h"
#include <iiop/conn.h>
#include <iiop/frag.h>
#include <iiop/msg.h>

#define IIOP_HIDDEN __attribute__((visibility("hidden")))

typedef struct iiop_conn_opts {
  size_t fragment_size;      /* 0: GIOP_FRAG_DEFAULT */
  size_t max_message;        /* 0: 64 MiB */
} iiop_conn_opts;

typedef struct iiop_conn iiop_conn;

/* A connection over T (taken over).  Errors: CDR_E_NOMEM (T is freed). */
IIOP_HIDDEN int iiop__conn_new(iiop_transport *t, const iiop_conn_opts *o, iiop_conn **out);
/* Send the complete message MSG (LEN octets, 12-octet header included),
 * fragmenting it (REQUEST_ID goes into GIOP 1.2 Fragment headers).
 * Thread-safe.  Errors: CDR_E_CLOSED, CDR_E_IO, CDR_E_TLS, CDR_E_TIMEOUT. */
IIOP_HIDDEN int iiop__conn_send(iiop_conn *c, const uint8_t *msg, size_t len, uint32_t request_id);
/* Wait up to TIMEOUT_MS (< 0: forever) for the next complete message;
 * *MSG stays valid until iiop__conn_release().  One reader at a time (the
 * caller serialises).  Errors: CDR_E_CLOSED (peer closed or
 * iiop__conn_shutdown), CDR_E_TIMEOUT, CDR_E_IO, CDR_E_TLS, CDR_E_PROTOCOL
 * and CDR_E_LIMIT (from the reassembler: answer MessageError and close). */
IIOP_HIDDEN int iiop__conn_recv(iiop_conn *c, int timeout_ms, uint8_t **msg, size_t *len);
IIOP_HIDDEN void iiop__conn_release(iiop_conn *c, uint8_t *msg);
/* Shut the transport down (a blocked reader wakes with CDR_E_CLOSED; write
 * lock waiters are woken and fail).  Idempotent, thread-safe. */
IIOP_HIDDEN void iiop__conn_shutdown(iiop_conn *c);
IIOP_HIDDEN int iiop__conn_is_closed(const iiop_conn *c);
/* Free (after shutdown, once no thread uses C). */
IIOP_HIDDEN void iiop__conn_free(iiop_conn *c);

#endif
