/* bidir.h - bidirectional GIOP 1.2 between client.c and server.c (internal
 * to libiiop; CORBA 3.x Part 2, 15.8).
 *
 * A bidirectional connection is a client connection record (client.c's
 * cconn: pending calls, the leader/follower reader) whose reader may also
 * read Requests.  On the client that offers it, that is its own outgoing
 * connection (Requests are served by the callback server given to
 * iiop_client_offer_bidir()); on the server that accepts it, a record is
 * made over the accepted connection once a GIOP 1.2 Request carried a valid
 * BI_DIR_IIOP context, and is listed in the server's bidir set with the
 * listen points received, where clients given to iiop_client_use_bidir()
 * find it.  Whoever reads a Request there (a caller waiting for its reply,
 * or the server's connection thread) first hands reading over to another
 * waiter, then serves it in its own thread (iiop__server_serve_one()), so a
 * callback nested in a call is read by the thread that waits for it.
 */
#ifndef IIOP_BIDIR_H
#define IIOP_BIDIR_H

#include <iiop/msg.h>
#include <iiop/orb.h>
#include "connection.h"
#include "internal.h"

/* The code sets of the Requests a connection serves (fixed by the first). */
typedef struct iiop__bidir_cs {
  int fixed;                 /* atomic */
  uint32_t c, w;             /* atomic (relaxed): stored before fixed is set */
} iiop__bidir_cs;

typedef struct iiop__bidir_set iiop__bidir_set;
typedef struct cconn iiop__bidir_conn;

/* client.c: a server's set of bidirectional connections (NULL on
 * allocation failure), and its end (after every connection left it). */
IIOP_HIDDEN iiop__bidir_set *iiop__bidir_set_new(const cdr_allocator *alloc);
IIOP_HIDDEN void iiop__bidir_set_free(iiop__bidir_set *set);
/* Record the N points of P (copied; points already there are skipped, at
 * most GIOP_LISTEN_POINTS_MAX in all) for the accepted connection CONN of
 * server SRV, making *BD (the connection's record, NULL until the first
 * call) and putting it in SET.  CS: the code sets the connection's
 * requests use.  Errors: CDR_E_NOMEM. */
IIOP_HIDDEN int iiop__bidir_note(iiop__bidir_set *set, iiop__bidir_conn **bd, iiop_conn *conn,
                                 iiop_server *srv, const iiop__bidir_cs *cs,
                                 const giop_listen_point *p, uint32_t n) IIOP_WUR;
/* The server's connection thread reads its next message from BD's
 * connection as a reader among the waiting callers: Replies it reads go to
 * their callers; anything else is returned (as iiop__conn_recv(C, -1)). */
IIOP_HIDDEN int iiop__bidir_recv(iiop__bidir_conn *bd, uint8_t **msg, size_t *len) IIOP_WUR;
/* The accepted connection ended: out of SET, pending calls fail with
 * CDR_E_CLOSED, and once no caller holds it the record is freed (the
 * connection itself stays the server's). */
IIOP_HIDDEN void iiop__bidir_end(iiop__bidir_set *set, iiop__bidir_conn *bd);

/* server.c: serve one message M (LEN octets; released here) read from
 * CONN by a thread that is not SRV's connection thread: Request,
 * LocateRequest or CancelRequest, dispatched to SRV's objects in a session
 * of its own whose code sets come from (and, the first time, go to) *CS;
 * the reply goes out on CONN.  CDR_OK, or CDR_E_PROTOCOL / CDR_E_CLOSED:
 * the connection must end (MessageError was sent for a malformed
 * message). */
IIOP_HIDDEN int iiop__server_serve_one(iiop_server *srv, iiop_conn *conn, iiop__bidir_cs *cs,
                                       uint8_t *m, size_t len) IIOP_WUR;
/* SRV's bidir set (NULL: SRV does not accept bidirectional GIOP). */
IIOP_HIDDEN iiop__bidir_set *iiop__server_bidir_set(iiop_server *srv);
/* The host and port SRV's IORs carry (its listen point). */
IIOP_HIDDEN const char *iiop__server_ior_host(const iiop_server *srv);
/* client.c counts: a server served a Request for it. */

#endif
