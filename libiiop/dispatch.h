/* dispatch.h - the server's dispatcher (internal to libiiop): one complete
 * GIOP message in, at most one message out, and no I/O.
 *
 * A session is one connection's dispatch state: the GIOP minor version of
 * the last message (for the MessageError or CloseConnection the caller may
 * have to send), the code sets fixed by the connection's first Request
 * (its CodeSets service context, or ISO-8859-1 and no wchar code set), the
 * reply stream (reused: a steady stream of calls allocates nothing), and
 * the connection's reader record in the object adapter.
 *
 * iiop__dispatch() parses the message, checks its target (KeyAddr only:
 * NEEDS_ADDRESSING_MODE otherwise; OBJECT_NOT_EXIST minor 1 for a key that
 * names no object; BAD_OPERATION minor 2 for an unknown operation),
 * answers LocateRequest, _is_a and _non_existent itself, runs a servant's
 * operation, and maps failures to system exceptions: a status through the
 * table of cdr/error.h (the argument stream's reason first, so that a
 * wstring with no wchar code set negotiated is BAD_PARAM 23 and wchar data
 * in GIOP 1.0 MARSHAL 5), an unknown result UNKNOWN (MAYBE).  The reply is
 * left in the session's reply stream, complete (message_size patched) for
 * the caller to send.  The caller holds the adapter's reader epoch across
 * the call (iiop__reader_enter/exit with the session's reader).
 */
#ifndef IIOP_DISPATCH_H
#define IIOP_DISPATCH_H

#include <stdbool.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "adapter.h"
#include "internal.h"

/* A server's interceptors (iiop_server_add_interceptor()): entries below
 * N are written once, before N is published. */
typedef struct iiop__icpt {
  unsigned n;                /* atomic */
  iiop_server_interceptor ic[IIOP_INTERCEPTORS_MAX];
  void *ud[IIOP_INTERCEPTORS_MAX];
} iiop__icpt;

typedef struct iiop__session {
  iiop__adapter *ad;
  iiop__reader reader;       /* the connection's, registered by the caller */
  uint8_t minor;             /* GIOP minor of the last message read (first: 2) */
  bool cs_fixed;             /* the first Request fixed the code sets */
  bool out_ready;
  uint8_t out_minor;
  const char *cs_error;      /* a system exception every request gets, or NULL */
  uint32_t max_values;       /* iiop_request_value_opts(): cdr_value_opts.max_values */
  uint32_t max_indirections; /* ... and max_indirections */
  uint64_t *limit_hits;      /* atomic, or NULL: IMP_LIMIT replies are counted here */
  const char *imp_limit_id;  /* giop_system_exception_id("IMP_LIMIT") */
  cdr_opts in_opts;          /* body decoding options (and the reply stream's) */
  cdr_out out;               /* reply stream, reused */
  const iiop__icpt *icpt;    /* the server's interceptors (never NULL) */
  int peer_fd;               /* the connection's socket (iiop_request_peer()), or -1 */
  const char *peer_subject;  /* the verified TLS client certificate's subject
                              * (iiop_request_peer_subject()), or NULL; the owner's */
  bool out2_ready;
  uint8_t out2_minor;
  cdr_out out2;              /* a reply with service contexts: its header, the body of
                              * OUT behind it by reference */
  /* The object and operation the last request named (dispatch.c's
   * find_obj()/find_op()): used again, without hashing or probing, while the
   * adapter's epoch is still CACHE_EPOCH (no table published since, so the
   * object is neither replaced nor freed).  CACHE_EPOCH 0: none. */
  uint64_t cache_epoch;
  const iiop__obj *cache_ob;
  const iiop__op_slot *cache_op; /* an operation of cache_ob, or NULL */
  iiop__req_memo memo;       /* the last small request's scan (internal.h) */
  void *bidir_owner;         /* the server connection whose requests may make it
                              * bidirectional (server.c), or NULL */
  /* iiop_request_hold(): what the last request's operation asked to have
   * freed once its reply was out; run by iiop__session_release_held(). */
  uint8_t nheld;
  struct { void (*fn)(void *); void *p; } held[IIOP_REQUEST_HOLD_MAX];
} iiop__session;

/* What the caller does with a dispatched message. */
enum {
  IIOP__D_CONTINUE,          /* send the reply if there is one (len > 0), read on */
  IIOP__D_ACK,               /* send the reply (a SYNC_WITH_SERVER acknowledgement: the
                              * request is not invoked yet), then iiop__dispatch_resume() */
  IIOP__D_ERROR,             /* send MessageError in GIOP 1.(session minor), close */
  IIOP__D_CLOSE              /* close, sending nothing (CloseConnection or MessageError
                              * received, a reply that could not be built: the client
                              * must not wait for it) */
};

/* A reply to send: LEN octets at MSG (in the session's reply stream, valid
 * until the session dispatches again), for REQUEST_ID (fragment headers).
 * LEN 0: none. */
typedef struct iiop__reply {
  const uint8_t *msg;
  size_t len;                /* the whole message, by-reference segments included */
  uint32_t request_id;
  const cdr_out *out;        /* NULL, or the stream MSG is the buffer of: when it holds
                              * by-reference segments the reply is sent as its gather
                              * list (iiop__conn_send_out); they point into the request
                              * or its arena, valid until the request is released */
} iiop__reply;

/* A session over AD for a connection whose messages may be MAX_MESSAGE
 * octets (the reply stream's limit too: a larger result is IMP_LIMIT).
 * ALLOC: the reply stream's allocator (NULL: libcdr's pooled buffers).
 * Allocates nothing. */
IIOP_HIDDEN void iiop__session_init(iiop__session *s, iiop__adapter *ad, size_t max_message,
                                    const cdr_allocator *alloc);
/* Apply L's stream limits (max_string, max_sequence, max_depth to the
 * argument stream, max_values to iiop_request_value_opts()); count every
 * IMP_LIMIT reply in *HITS (NULL: not counted). */
IIOP_HIDDEN void iiop__session_limits(iiop__session *s, const iiop_limits *l, uint64_t *hits);
/* Free the reply stream's buffer and run what the last request held
 * (iiop__session_release_held()); idempotent.  At the connection's end. */
IIOP_HIDDEN void iiop__session_close(iiop__session *s);
/* Run and forget the iiop_request_hold() calls of the last request: its
 * reply has been sent (or will not be).  iiop__dispatch() and
 * iiop__dispatch_refuse() begin with it. */
IIOP_HIDDEN void iiop__session_release_held_slow(iiop__session *s);
static inline void iiop__session_release_held(iiop__session *s)
{
  if (__builtin_expect(s->nheld != 0, 0))
    iiop__session_release_held_slow(s);
}

/* Dispatch the complete message MSG (LEN octets; it must stay valid, as M
 * points into it, until M->body is closed) with A as the request's arena.
 * M is the caller's storage for the parsed message; M->body is always
 * initialised and the caller closes it (cdr_in_close) once done with the
 * message.  Returns an IIOP__D_* action and fills *R. */
IIOP_HIDDEN int iiop__dispatch(iiop__session *s, const uint8_t *msg, size_t len, cdr_arena *a,
                               giop_message *m, iiop__reply *r) IIOP_WUR;
/* After IIOP__D_ACK (its reply sent): invoke the request M, discarding its
 * results.  IIOP__D_CONTINUE (R empty) or IIOP__D_CLOSE. */
IIOP_HIDDEN int iiop__dispatch_resume(iiop__session *s, giop_message *m, iiop__reply *r) IIOP_WUR;

/* A request the server will not process (the memory budget refused it):
 * MSG is what has arrived of it (LEN octets, its 12-octet header first;
 * its message_size and more-fragments flag are rewritten in place to
 * describe just those octets).  A Request whose header has arrived gets a
 * Reply with the system exception EXCEPTION ("NO_RESOURCES"), completed
 * NO, minor 0 (a oneway: nothing); IIOP__D_CONTINUE.  Anything else
 * (a request header not all there, not a Request): IIOP__D_CLOSE. */
IIOP_HIDDEN int iiop__dispatch_refuse(iiop__session *s, uint8_t *msg, size_t len, cdr_arena *a,
                                      const char *exception, iiop__reply *r) IIOP_WUR;

/* The system exception for status ST (completion COMPLETED): its row in
 * the table of cdr/error.h, or, when ST is the failed argument stream
 * ARGS's own status (ARGS may be NULL), the row of the stream's reason. */
/* The session R is dispatched in (bidirectional GIOP's interceptor). */
IIOP_HIDDEN const iiop__session *iiop__request_session(const iiop_request *r);

IIOP_HIDDEN void iiop__status_exception(int st, const cdr_in *args, uint32_t completed,
                                        giop_system_exception *e);

#endif
