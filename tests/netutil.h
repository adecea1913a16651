/* netutil.h - raw TCP peers for the tests (tests/netutil.c): loopback
 * sockets on free ports, whole sends and reads, one GIOP message read off
 * a socket, GIOP 1.x headers and Request messages built octet for octet,
 * and what the server and client tests share: a started server and its
 * IOR, ping and echo operations, a gate that holds calls and the hold
 * operation behind it, a client and a corbaloc reference, a timed call,
 * and the wait for a server's stats to settle.
 *
 * The functions whose comment says "asserts" end the running Check test
 * when a step that must not fail does (socket(), connect(), a header that
 * does not parse...); the others return error values and are usable
 * outside a test (tests/dos.c). */
#ifndef NETUTIL_H
#define NETUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cdr/cdr.h>
#include <iiop/msg.h>
#include <iiop/orb.h>

/* ---------------------------------------------------------------- sockets */

/* nu_connect's FLAGS: TCP_NODELAY on the new socket. */
#define NU_NODELAY 1u

/* A TCP connection to HOST (an IPv4 or IPv6 literal; NULL: 127.0.0.1) port
 * PORT: its descriptor (close-on-exec), or -1 when socket(), the address or
 * connect() fails (errno as they left it).  No options are set. */
int nu_try_connect(const char *host, uint16_t port);

/* nu_try_connect(HOST, PORT), asserting that it connects; then, when
 * TIMEOUT_S > 0, a receive timeout (SO_RCVTIMEO) of TIMEOUT_S seconds, and
 * the options in FLAGS (NU_NODELAY).  Returns the descriptor. */
int nu_connect(const char *host, uint16_t port, int timeout_s, unsigned flags);

/* The local port of the connected or bound socket FD (asserts getsockname). */
uint16_t nu_local_port(int fd);

/* A TCP socket bound to 127.0.0.1 on a free port (*PORT), listening with
 * BACKLOG, or only bound when BACKLOG < 0.  Asserts every step; returns
 * the descriptor (close-on-exec). */
int nu_listen(int backlog, uint16_t *port);

/* A connected loopback pair: *A the connecting end, *B the accepted one.
 * SNDBUF (> 0) is set on *A before connect(), RCVBUF (> 0) on the listener
 * before (so that *B inherits it) when RCV_ON_LISTENER, else on *B after
 * accept(); 0 leaves a buffer alone.  Asserts every step. */
void nu_tcp_pair(int *a, int *b, int sndbuf, int rcvbuf, int rcv_on_listener);

/* Read exactly N octets of FD into P: 1, or 0 on EOF, error or timeout
 * (what came before is in P). */
int nu_read_full(int fd, void *p, size_t n);

/* Send all N octets of P on FD (MSG_NOSIGNAL): 1, or 0 once send() fails
 * or writes nothing (the peer has closed). */
int nu_send_all(int fd, const void *p, size_t n);

/* One GIOP message (12-octet header included) read off FD into a malloc'd
 * buffer of *LEN octets, which the caller frees; NULL on EOF, error or
 * timeout before the message is whole.  Asserts that the header parses and
 * that its message_size is at most MAX. */
uint8_t *nu_recv_msg(int fd, size_t max, size_t *len);

/* One GIOP message read off FD into BUF (CAP octets): its length, 0 on EOF
 * (or error, timeout) before its header.  Asserts that the header parses,
 * that the message fits CAP and that its body comes whole. */
size_t nu_recv_msg_into(int fd, uint8_t *buf, size_t cap);

/* ---------------------------------------------------------------- GIOP messages */

/* A GIOP 1.MINOR message header into H (12 octets): "GIOP", 1, MINOR, the
 * flags octet (bit 0 set when LITTLE, | FLAGS), TYPE, and SIZE in that
 * byte order. */
void nu_header(uint8_t *h, uint8_t minor, int little, uint8_t flags, uint8_t type, uint32_t size);

/* The arguments of a Request body: written to O, with UD. */
typedef void (*nu_args_fn)(cdr_out *o, const void *ud);
void nu_arg_long(cdr_out *o, const void *ud);   /* UD: a const int32_t * */
void nu_arg_string(cdr_out *o, const void *ud); /* UD: a NUL-terminated string */

/* What nu_request encodes.  nu_req_default fills one. */
typedef struct nu_req {
  uint8_t minor;              /* GIOP 1.minor (0..2) */
  int order;                  /* CDR_BIG_ENDIAN or CDR_LITTLE_ENDIAN */
  uint32_t id;                /* request_id */
  uint8_t flags;              /* response_flags (GIOP_RESPONSE_EXPECTED, ...) */
  const char *key;            /* object key (KeyAddr), NUL-terminated */
  const char *op;             /* operation */
  const giop_sc_list *sc;     /* service contexts, or NULL: none */
  int no_body;                /* 1: the message ends with the request header
                                 (no body, no alignment for it) */
  nu_args_fn args;            /* NULL: an empty body */
  const void *ud;
} nu_req;

/* GIOP 1.2 in host byte order, response expected, no service contexts, an
 * empty body; request ID ID, key KEY, operation OP. */
nu_req nu_req_default(uint32_t id, const char *key, const char *op);

/* The Request R encoded into BUF (CAP octets, which must hold it): its
 * length in octets.  Asserts that it encodes. */
size_t nu_request(uint8_t *buf, size_t cap, const nu_req *r);

/* The stream options of R: cdr_opts_default's with R's byte order and
 * GIOP minor. */
cdr_opts nu_req_opts(const nu_req *r);

/* R's GIOP and request headers (and, unless R->no_body, the start of its
 * body, aligned) written to OUT, a stream opened with nu_req_opts(R); the
 * caller writes the body and ends it with giop_end().  Asserts. */
void nu_request_head(cdr_out *out, const nu_req *r);

/* ---------------------------------------------------------------- servers */

/* A server of options O (NULL: iiop_server_opts_default's) with IFACE
 * and SERVANT activated under the object key KEY (NUL-terminated),
 * started: listening on O's host and port (port 0: a free one, read with
 * iiop_server_port).  Asserts that iiop_server_new, _activate and _start
 * succeed; the caller frees the server. */
iiop_server *nu_serve(const iiop_server_opts *o, const char *key, const iiop_interface *iface,
                      void *servant);

/* S's stringified IOR for the object key KEY ("IOR:..."), copied into OUT
 * (CAP octets).  Asserts that S makes it and that it fits. */
void nu_server_ior(iiop_server *s, const char *key, char *out, size_t cap);

/* The operation "ping(long x) -> x": X read from A and written to O; A's
 * status when X does not decode. */
int nu_op_ping(void *servant, iiop_request *r, cdr_in *a, cdr_out *o);

/* The gate (one per process) that servants hold calls at: closed until
 * nu_gate_open; each nu_gate_pass() counts as held while it waits. */
void nu_gate_reset(void);          /* closed, none held */
void nu_gate_open(void);           /* open: every held call goes on */
void nu_gate_pass(void);           /* a servant: wait until the gate is open */
int nu_gate_held(void);            /* the calls waiting now */
/* Until N calls are held (at most 10 s, polled every 5 ms); the number then. */
int nu_gate_wait_held(int n);

/* A long X read from A, then, once the gate is open (nu_gate_pass, counted
 * as held while it waits), X + ADD (wrapping around) written to O: CDR_OK,
 * or A's status when X does not decode (then nothing waits). */
int nu_hold_long(cdr_in *a, cdr_out *o, int32_t add);

/* The operation "hold(long x) -> x", answered once the gate is open:
 * nu_hold_long(A, O, 0). */
int nu_op_hold(void *servant, iiop_request *r, cdr_in *a, cdr_out *o);

/* ---------------------------------------------------------------- clients */

/* A client of iiop_client_opts_default's options but timeout_ms TIMEOUT_MS,
 * max_connections MAX (connections per endpoint) and calls_per_connection
 * PER (0 for either: the library's default, as iiop_client_create() reads
 * 0).  Asserts that iiop_client_create succeeds; the caller frees it. */
iiop_client *nu_client(uint32_t max, uint32_t per, int timeout_ms);

/* C's reference to the object key KEY (NUL-terminated) of the server on
 * 127.0.0.1 port PORT, from "corbaloc:iiop:1.2@127.0.0.1:PORT/KEY"
 * (nothing is connected yet).  Asserts that the URL fits 96 octets and
 * that it resolves; the caller frees the reference (iiop_ref_free). */
iiop_ref *nu_resolve(iiop_client *c, uint16_t port, const char *key);

/* What one call of nu_call ended with. */
typedef struct nu_outcome {
  int rc;                     /* iiop_call_invoke's status */
  int32_t value;              /* the long result, when rc is CDR_OK */
  int64_t ms;                 /* how long invoke took */
  giop_system_exception ex;   /* otherwise: repo_id the exception's name
                                 ("TIMEOUT"...), minor, completed */
} nu_outcome;

/* The system exception CALL failed with into O->ex (repo_id its name);
 * asserts that there is one. */
void nu_take_exception(nu_outcome *o, iiop_call *call);

/* nu_call's FLAGS: after the invoke, assert that the call's timeout can no
 * longer be set (iiop_call_set_timeout fails with CDR_E_STATE). */
#define NU_CALL_TIMEOUT_FIXED 1u

/* OP(ARGS[0..N-1], longs) on R with the call's timeout CALL_MS
 * (IIOP_TIMEOUT_INHERIT: none set), timed; a long result.  Asserts that the
 * call begins, takes its timeout, and that a result or a system exception
 * comes back whole. */
nu_outcome nu_call(iiop_ref *r, const char *op, const int32_t *args, int n, int call_ms,
                   unsigned flags);

/* nu_check_echo's FLAGS: S is written by reference (cdr_put_string_ref);
 * and, with NU_ECHO_ONE_REF too, asserted to have gone as one reference,
 * not copied (cdr_out_nrefs of the arguments is 1). */
#define NU_ECHO_BY_REF 1u
#define NU_ECHO_ONE_REF 2u

/* OP(S, N octets), an echo operation ("echoString" or the like), on R:
 * asserts that the call begins and returns CDR_OK, and that the result is
 * S octet for octet. */
void nu_check_echo(iiop_ref *r, const char *op, const char *s, size_t n, unsigned flags);

/* The operation "echoString(string s) -> s", S copied into the reply. */
int nu_op_echo_string(void *servant, iiop_request *r, cdr_in *a, cdr_out *o);

/* The same answered by reference: S read as a view into the request and
 * written back with cdr_put_string_view() (a gather reply). */
int nu_op_echo_view(void *servant, iiop_request *r, cdr_in *a, cdr_out *o);

/* S's statistics (asserts iiop_server_stats_get). */
iiop_server_stats nu_stats(iiop_server *s);

/* S's statistics once no connection is open and nothing is charged
 * (open == 0, in_flight == 0), polled every 5 ms for at most MS
 * milliseconds; the last ones read when that does not happen in time. */
iiop_server_stats nu_settled(iiop_server *s, int ms);

#endif
