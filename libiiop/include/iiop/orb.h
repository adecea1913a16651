/* iiop/orb.h - an IIOP client and a multi-threaded IIOP server (OMG CORBA
 * 3.x, Part 2, GIOP and IIOP chapters).
 *
 * Client: resolve a stringified IOR, a corbaloc or a corbaname URL to a
 * reference, then call operations on it: begin a call (get a CDR stream
 * for the arguments), invoke (send, wait for the reply: get a CDR stream over the
 * result), end (give everything back to the pools).  Connections are shared
 * by every thread calling the same endpoint; replies are matched to callers
 * by request ID.  The first request on a connection carries the CodeSets
 * service context.  LOCATION_FORWARD replies are followed and remembered
 * per reference (iiop_call_invoke()); a servant forwards with
 * iiop_request_set_forward().  Service contexts go with a call or with a
 * reference, a reply's are readable; interceptor hooks see and add them
 * on both sides ("service contexts" below).
 *
 * Server: listen, activate servants under object keys (an object adapter:
 * key -> servant and its interface; persistent keys the application names,
 * or keys the server generates), and serve: by default a thread per
 * connection reads and dispatches in place; past a connection count
 * (pool_threshold), further connections are served by an epoll-driven pool
 * of worker threads.  LocateRequest, _is_a and _non_existent are answered
 * by the library; shutdown sends CloseConnection.
 *
 * Status codes: the cdr_status values (negative), CDR_OK, and two positive
 * results of an invocation that are not errors of the call itself.
 */
#ifndef IIOP_ORB_H
#define IIOP_ORB_H

#include <stdint.h>
#include <cdr/cdr.h>
#include <iiop/export.h>
#include <iiop/limits.h>
#include <iiop/msg.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  IIOP_R_USER_EXCEPTION = 1,    /* the reply is a user exception: the result stream is at
                                 * its body (repository ID string first) */
  IIOP_R_SYSTEM_EXCEPTION = 2   /* the reply is a system exception: see iiop_call_exception() */
};

/* ---------------------------------------------------------------- client */

typedef struct iiop_client iiop_client;
typedef struct iiop_ref iiop_ref;
typedef struct iiop_call iiop_call;
typedef struct iiop_server iiop_server;   /* below: the server */

typedef struct iiop_client_opts {
  int timeout_ms;            /* per call, connect included (default 30000; 0: none), for
                              * calls whose reference and call set none (see
                              * iiop_ref_set_timeout()).  The older name of
                              * limits.call_timeout_ms: a value other than the default wins
                              * over it */
  size_t fragment_size;      /* 0 (the default): a request of up to GIOP_WHOLE_DEFAULT
                              * (2 MiB; no more than max_message) goes as one GIOP
                              * message, a larger one in GIOP_FRAG_DEFAULT (8 KiB)
                              * fragments; set: every GIOP 1.1/1.2 request larger than
                              * this many octets goes in fragments of this size
                              * (rounded down to a multiple of 8, at least
                              * GIOP_FRAG_MIN) */
  size_t max_message;        /* largest reply accepted (default 64 MiB): the older name of
                              * limits.max_message, as timeout_ms */
  const char *tls_ca_file;   /* CA certificates to verify TLS servers (NULL: no TLS, or an
                              * error under IIOP_TLS_REQUIRED) */
  int tls_verify;            /* default 1; 0 turns verification off (tests only) */
  int tls_policy;            /* IIOP_TLS_ALLOWED (the default, 0), IIOP_TLS_OFF or
                              * IIOP_TLS_REQUIRED: see iiop_tls_policy */
  const char *tls_cert_file; /* PEM certificate (chain) the client presents when a TLS
                              * server asks for one (NULL, the default: none).  Needs a
                              * TLS context: tls_ca_file, or tls_verify 0 */
  const char *tls_key_file;  /* PEM private key of tls_cert_file (NULL: the key is in
                              * tls_cert_file, as omniORB's -ORBsslKeyFile holds both) */
  const char *tls_key_password; /* the key's passphrase when it is encrypted (NULL: none;
                              * an encrypted key then fails to load).  Copied */
  char *why;                 /* the caller's buffer (why_cap octets; NULL: none): the
                              * reason iiop_client_create()/iiop_client_new() failed,
                              * "" on success.  Not kept */
  size_t why_cap;
  uint32_t native_char;      /* default CDR_CS_ISO8859_1 */
  uint32_t native_wchar;     /* default CDR_CS_UTF16 */
  const cdr_allocator *alloc;/* for everything the client allocates itself -- the client,
                              * references, calls and their stream buffers, connections,
                              * transports, reassembly buffers (NULL, the default:
                              * cdr_mem_global(), and libcdr's pooled stream buffers).
                              * Not from it: the per-thread arenas calls decode into
                              * (cdr_arena_get()) and OpenSSL's memory.  It must outlive
                              * the client and its references (iiop_ref_free() may
                              * come after iiop_client_free()). */
  iiop_limits limits;        /* iiop/limits.h: max_message, max_fragmented (a reply),
                              * max_string, max_sequence, max_depth (the result stream),
                              * handshake_timeout_ms (within the call's), call_timeout_ms;
                              * the server's limits are ignored here */
  /* Connections per endpoint (a host, port, TLS or not, and code sets), as
   * omniORB's maxGIOPConnectionPerServer: a caller that finds every open
   * connection to the endpoint carrying calls_per_connection calls or more
   * (calls between their send and iiop_call_end()) opens another, up to
   * max_connections; at the limit it shares the least loaded one (GIOP
   * request IDs keep its replies apart).  One connection is opened at a
   * time: a caller that finds another thread connecting shares an open one
   * (or waits for that connect when none is open).  Every connection has a
   * server thread of its own on our server (and omniORB's), so callers on
   * different connections are served side by side, each connection's
   * requests in order (a oneway a thread sends while other threads keep
   * the first connection busy may take another: max_connections 1 keeps
   * a thread's oneways in order).  A request on a connection the server
   * had closed (idle) is sent again, as with one: on a new connection when
   * there is room, else on another open one (which the server may be
   * closing too: up to max_connections + 1 tries, each on a different
   * connection; never again after one the call opened itself). */
  uint32_t max_connections;  /* 1 to IIOP_CLIENT_CONNECTIONS_MAX (default
                              * IIOP_CLIENT_CONNECTIONS_DEFAULT; 0: the default).  1: every
                              * caller shares one connection, as omniORB's
                              * -ORBmaxGIOPConnectionPerServer 1 */
  uint32_t calls_per_connection; /* calls in flight on each open connection before a caller
                              * opens another (default 1, as omniORB's
                              * -ORBoneCallPerConnection 1; 0: the default) */
} iiop_client_opts;

#define IIOP_CLIENT_CONNECTIONS_DEFAULT 2  /* iiop_client_opts.max_connections */
#define IIOP_CLIENT_CONNECTIONS_MAX 64

/* When a client uses TLS (iiop_client_opts.tls_policy):
 * - IIOP_TLS_ALLOWED: to an IOR's TAG_SSL_SEC_TRANS port when the client has
 *   a CA file; plain IIOP otherwise (an iiop corbaloc, no component, no CA
 *   file).  A corbaloc "ssliop:" address: TLS to its port, and without a CA
 *   file (or with IIOP_TLS_OFF) iiop_client_resolve() fails with
 *   CDR_E_UNSUPPORTED, nothing connected.
 * - IIOP_TLS_OFF: never; plain IIOP to the profile's port, even with a CA file.
 * - IIOP_TLS_REQUIRED: always, never plain IIOP.  Without a CA file (and
 *   tls_verify on), or for a reference that offers no TLS port (no
 *   TAG_SSL_SEC_TRANS or its port 0, an iiop corbaloc), iiop_client_resolve()
 *   and a followed LOCATION_FORWARD fail with CDR_E_TLS, nothing is
 *   connected, and iiop_client_last_error() says why.  tls_verify 0 and no
 *   CA file: TLS without verification (tests only).
 * Whatever the policy, an IOR's TAG_SSL_SEC_TRANS target_requires is
 * honoured (CORBA 3.x Security, CSIv2: the target's AssociationOptions):
 * Integrity or Confidentiality required and the client would go plain
 * (IIOP_TLS_OFF, or no TLS context) -> CDR_E_TLS, nothing connected, never
 * plaintext; iiop_client_last_error() says which ("TLS required by the
 * reference to HOST:PORT but ...").  EstablishTrustInClient required and
 * no tls_cert_file is tried anyway (omniORB 4.2 requires it in every SSL
 * IOR, verifying or not): a server that verifies refuses the handshake.
 * Any other value: iiop_client_new() returns NULL. */
enum iiop_tls_policy { IIOP_TLS_ALLOWED = 0, IIOP_TLS_OFF = 1, IIOP_TLS_REQUIRED = 2 };

/* What a TLS server asks of its clients (iiop_server_opts.tls_verify_clients;
 * the values and meaning of omniORB's -ORBsslVerifyMode):
 * - IIOP_TLS_VERIFY_NONE (default): no client certificate is asked for.
 * - IIOP_TLS_VERIFY_PEER: one is asked for; a client that sends none is
 *   served, one that sends a certificate tls_ca_file does not verify is
 *   refused (the handshake fails).
 * - IIOP_TLS_VERIFY_PEER_FAIL: as VERIFY_PEER, and a client without a
 *   certificate is refused too; IORs then say EstablishTrustInClient
 *   (0x40) in TAG_SSL_SEC_TRANS target_requires.
 * VERIFY_PEER and VERIFY_PEER_FAIL need tls_ca_file (else iiop_server_new()
 * fails with CDR_E_TLS); another value: CDR_E_INVALID.  The verified
 * certificate's subject: iiop_request_peer_subject(). */
enum iiop_tls_verify_mode {
  IIOP_TLS_VERIFY_NONE = 0,
  IIOP_TLS_VERIFY_PEER = 1,
  IIOP_TLS_VERIFY_PEER_FAIL = 2
};

/* SSLIOP / CSIIOP AssociationOptions bits (CORBA 3.x Security, CSIv2
 * "IOR component": TAG_SSL_SEC_TRANS target_supports and target_requires). */
#define IIOP_SEC_NO_PROTECTION 0x0001u
#define IIOP_SEC_INTEGRITY 0x0002u
#define IIOP_SEC_CONFIDENTIALITY 0x0004u
#define IIOP_SEC_DETECT_REPLAY 0x0008u
#define IIOP_SEC_DETECT_MISORDERING 0x0010u
#define IIOP_SEC_TRUST_IN_TARGET 0x0020u
#define IIOP_SEC_TRUST_IN_CLIENT 0x0040u

IIOP_API void iiop_client_opts_default(iiop_client_opts *o);
/* A client (OPTS NULL: defaults); NULL on allocation failure, a native code
 * set the library cannot convert (char: ISO-8859-1 or UTF-8; wchar: UTF-16,
 * UCS-2 or 0 for none), or a CA, certificate or key file OpenSSL cannot
 * load (iiop_client_create() below gives the status, opts.why the reason;
 * the files are read here, once: the key password is not kept).  Thread-safe: any
 * number of threads may use it and its references at once.
 *
 * Connections are shared per endpoint: host, port, TLS, and the negotiated
 * char and wchar code sets (a connection's code sets are fixed by its first
 * request, so references that negotiate different ones get different
 * connections); concurrent callers spread over up to
 * opts.max_connections of them (see there).  Many threads calling through one connection are
 * multiplexed by request ID (leader/follower: the first waiting caller reads
 * the socket and hands other callers their replies).  A call that finds its
 * cached connection closed by the server -- CloseConnection, or the request
 * could not be written -- is sent once more on a new connection (the server
 * processed nothing: completion NO). */
IIOP_API iiop_client *iiop_client_new(const iiop_client_opts *opts) IIOP_WUR;
/* As iiop_client_new(), with the reason as a status into *OUT's return:
 * CDR_OK (*OUT the client), CDR_E_INVALID (OUT NULL, an unknown
 * tls_policy, tls_key_file without tls_cert_file, max_connections above
 * IIOP_CLIENT_CONNECTIONS_MAX), CDR_E_UNSUPPORTED (a
 * native code set), CDR_E_TLS (tls_ca_file, tls_cert_file or tls_key_file
 * that OpenSSL cannot read or parse, a key that does not match the
 * certificate, a wrong tls_key_password; opts.why gets "TLS: cannot load
 * <what> <FILE>: <OpenSSL's reason>", e.g. "... bad decrypt"),
 * CDR_E_NOMEM. */
IIOP_API int iiop_client_create(const iiop_client_opts *opts, iiop_client **out) IIOP_WUR;
/* Close every connection (pending calls fail with CDR_E_CLOSED), wait until
 * every call begun on C has ended (other threads' iiop_call_end()), and
 * free.  The calling thread must have no call of its own in progress;
 * references may be freed before or after. */
IIOP_API void iiop_client_free(iiop_client *c);
/* The reason of C's most recent connection failure, from any thread, as
 * text ("" if none yet): "connect to HOST:PORT: <cdr_strerror()>", "TLS to
 * HOST:PORT: <reason>" where the reason is OpenSSL's (iiop_tls_connect_why()
 * in iiop/conn.h, e.g. "certificate verify failed: unable to get local
 * issuer certificate"), or why IIOP_TLS_REQUIRED could not be met.  A later
 * failure replaces it; a success does not clear it.  Copied into BUF (CAP
 * octets, the caller's; NUL-terminated, cut at CAP - 1; BUF NULL or CAP 0:
 * only the length); IIOP_CLIENT_ERROR_MAX holds any text.  Returns the full
 * text's length (C NULL: 0).  Thread-safe; allocates nothing. */
#define IIOP_CLIENT_ERROR_MAX 640
IIOP_API size_t iiop_client_last_error(iiop_client *c, char *buf, size_t cap);

/* Resolve "IOR:...", "corbaloc:..." or "corbaname:..." to a reference.  An
 * IOR's first IIOP profile is used: its GIOP version, its code sets
 * (TAG_CODE_SETS, negotiated with the client's natives) and, when it has
 * TAG_SSL_SEC_TRANS and the client a CA file, TLS to the component's port.
 * A corbaloc URL's first address is used: GIOP 1.0 unless "1.x@" says
 * otherwise (1.3 and later: 1.2), 1.2 and TLS for "ssliop:", char ISO-8859-1 and no wchar code set (no code-set
 * component).  "corbaloc:rir:[/KEY]" (KEY default "NameService") is the
 * URL iiop_client_set_initial_reference() gave KEY, resolved in turn.
 * "corbaname:ADDRS[/KEY][#NAME]" (CORBA 3.x Part 2, corbaname URL; ADDRS
 * as corbaloc's, or "rir:"; KEY default "NameService"): the naming context
 * corbaloc:ADDRS/KEY, and with a NAME (%XX-escaped, a string name as
 * iiop/naming.h parses it) one NamingContext::resolve call on it,
 * connecting (GIOP 1.0 unless ADDRS says otherwise) and waiting as any
 * call; the reference it returns is then resolved as an IOR.  At most 8
 * rir: / corbaname: indirections are followed (an initial reference may be
 * another rir: or corbaname: URL).  Errors: CDR_E_INVALID (BAD_PARAM:
 * malformed, including a corbaname NAME iiop_name_parse() refuses and
 * InvalidName from the service), MARSHAL-class (bad IOR octets),
 * CDR_E_UNSUPPORTED (no IIOP profile, or a profile port 0 and no TLS
 * port to use), CDR_E_TLS (tls_policy IIOP_TLS_REQUIRED cannot be met: no
 * CA file, or the reference offers no TLS port; or the reference's
 * TAG_SSL_SEC_TRANS target_requires cannot be met: integrity or
 * confidentiality and the client would go plain;
 * iiop_client_last_error() says which),
 * CDR_E_NOTFOUND (no such initial reference; the service raised NotFound
 * or CannotProceed, or a system exception, or the name is bound to nil),
 * CDR_E_LIMIT (more than 8 indirections), iiop_call_invoke()'s errors for
 * the resolve call (CDR_E_IO: the service does not answer, CDR_E_TIMEOUT),
 * CDR_E_NOMEM.  For every rir:/corbaname: failure but CDR_E_NOMEM,
 * iiop_client_last_error() names it, e.g. "corbaname::h:2809#a/b:
 * IDL:omg.org/CosNaming/NamingContext/NotFound:1.0 (missing_node, rest of
 * name a/b)" or "corbaloc:rir:/X: no initial reference \"X\"".  Nothing
 * is connected for an IOR or corbaloc URL; corbaname connects to the
 * naming service (not to the object it names). */
IIOP_API int iiop_client_resolve(iiop_client *c, const char *str, iiop_ref **out) IIOP_WUR;
IIOP_API void iiop_ref_free(iiop_ref *r);

/* Call timeouts (relative round-trip, in milliseconds).  A call's deadline
 * is taken once at iiop_call_invoke() from the first of these that is set:
 * the call's (iiop_call_set_timeout()), the reference's
 * (iiop_ref_set_timeout()), the client's (iiop_client_opts.timeout_ms /
 * limits.call_timeout_ms).  It covers the whole call: waiting for another
 * thread's connect to the endpoint, connecting (TLS handshake included,
 * within handshake_timeout_ms), writing the request, waiting for the
 * reply, and every LOCATION_FORWARD followed.  Each value is
 * IIOP_TIMEOUT_INHERIT (-1: not set, the next one applies), 0 (no timeout:
 * wait as long as it takes) or a positive number of milliseconds.
 *
 * A call past its deadline returns CDR_E_TIMEOUT (iiop_call_invoke()).
 * While waiting for the reply, that leaves the connection as it was: the
 * request's slot is released and its ID is never reused on the
 * connection, so the reply, should it come later (fragmented or not), is
 * read by whichever caller reads next and dropped at once (it costs at
 * most max_message octets, max_fragmented when fragmented, for as long as
 * it takes to read it: one message at a time per connection); other calls
 * multiplexed on the connection go on (a timed-out caller that was reading
 * for them hands reading to one of them), and later calls use the same
 * connection.  A CancelRequest for the request ID is sent (GIOP 1.x,
 * CORBA 3.x Part 2, 15.4.4), except to omniORB (see iiop_call_invoke()); it
 * is advisory: a server may still process the request (this library's
 * server answers requests of a connection in order and ignores it).  A
 * deadline that passes while the request is being written (the server
 * does not read) ends the connection instead, since a partial message
 * cannot be taken back: calls pending on it fail with CDR_E_CLOSED
 * (COMM_FAILURE, completion MAYBE) and the next call opens another.  The exception
 * (iiop_call_exception()): TIMEOUT, minor IIOP_MINOR_CALL_TIMED_OUT,
 * completion MAYBE (NO when the request was not completely written, and
 * when the deadline passed before a connection was made: the TCP connect
 * or the TLS handshake did not complete in time; omniORB 4.2 raises the
 * same then). */
#define IIOP_TIMEOUT_INHERIT (-1)
/* Minor codes of the system exceptions that local failures map to
 * (iiop_call_exception()): omniORB's values (its VMCID 0x41540000 | n,
 * omniORB4/minorCode.h), so that a caller can tell the cases apart as it
 * would with omniORB; the table is in docs/wire-notes.md.
 * IIOP_MINOR_CALL_TIMED_OUT: TIMEOUT_CallTimedOutOnClient, the same value as
 * TRANSIENT_CallTimedout (TIMEOUT: the call's deadline passed, connect
 * included).
 * IIOP_MINOR_CONNECT_FAILED: TRANSIENT_ConnectFailed, completion NO: the
 * connect (name resolution, TCP connect: refused, unreachable) or the TLS
 * handshake failed.
 * IIOP_MINOR_CONNECTION_CLOSED: TRANSIENT_ConnectionClosed, completion NO:
 * the connection was lost (closed, reset, CloseConnection) before the
 * request was wholly written or processed.
 * IIOP_MINOR_WAITING_FOR_REPLY: COMM_FAILURE_WaitingForReply, completion
 * MAYBE: the connection was lost (closed or reset, the server killed)
 * after the request was sent, before its reply.
 * IIOP_MINOR_UNMARSHAL_RESULTS: COMM_FAILURE_UnMarshalResults: the reply
 * could not be parsed (CDR_E_PROTOCOL).
 * IIOP_MINOR_MESSAGE_SIZE: MARSHAL_MessageSizeExceedLimitOnClient,
 * completion MAYBE: a message read while waiting for the reply was over
 * max_message (or a fragmented one over max_fragmented; CDR_E_LIMIT): the
 * connection is closed after a MessageError. */
#define IIOP_MINOR_CALL_TIMED_OUT 0x41540008u
#define IIOP_MINOR_CONNECT_FAILED 0x41540002u
#define IIOP_MINOR_CONNECTION_CLOSED 0x41540011u
#define IIOP_MINOR_WAITING_FOR_REPLY 0x41540007u
#define IIOP_MINOR_UNMARSHAL_RESULTS 0x41540006u
#define IIOP_MINOR_MESSAGE_SIZE 0x4154000bu
/* Set R's call timeout to MS (see above): for calls invoked from then on,
 * by any thread (a relaxed atomic store; calls read it with one load, no
 * lock).  Errors: CDR_E_INVALID (R NULL, MS < IIOP_TIMEOUT_INHERIT). */
IIOP_API int iiop_ref_set_timeout(iiop_ref *r, int ms);
/* R's call timeout as set (IIOP_TIMEOUT_INHERIT when none is, or R NULL). */
IIOP_API int iiop_ref_timeout(const iiop_ref *r);
/* Make URL (copied; any string iiop_client_resolve() takes) the initial
 * reference ID (copied, e.g. "NameService") of C, for "corbaloc:rir:/ID"
 * and "corbaname:rir:[/ID]#NAME"; replaces an earlier one; URL NULL
 * removes it.  Nothing is resolved or checked until it is used.  Memory
 * from C's allocator, freed with C.  Thread-safe.  Errors: CDR_E_INVALID
 * (C or ID NULL, ID empty), CDR_E_NOMEM. */
IIOP_API int iiop_client_set_initial_reference(iiop_client *c, const char *id,
                                               const char *url) IIOP_WUR;

/* Begin a call of OPERATION on R: *ARGS is the stream to write the
 * arguments into (GIOP 1.2 body alignment done), in R's GIOP version and
 * negotiated code sets.  ONEWAY: no reply expected.  *ARGS gathers
 * (cdr_out_set_gather()): octets written into it by reference
 * (cdr_put_string_ref() and the others) are sent from the caller's memory,
 * which must stay valid until iiop_call_invoke() returns.  Call objects,
 * their buffers and arenas are pooled: a steady stream of calls allocates
 * nothing.  Errors: CDR_E_NOMEM, CDR_E_INVALID (a NULL argument). */
IIOP_API int iiop_call_begin(iiop_ref *r, const char *operation, int oneway, iiop_call **out,
                             cdr_out **args) IIOP_WUR;
/* Send the request and (two-way) wait for its reply; *RESULT (may be NULL
 * for oneway) is positioned at the reply body, decoding into the call's
 * arena.  LOCATION_FORWARD replies are followed (at most 8 in a row, the
 * 9th is CDR_E_LIMIT: IMP_LIMIT, completion NO; the body goes unchanged, in
 * its GIOP version and code sets; CORBA 3.x Part 2, 15.4.3).  The
 * reference remembers the last forward: later calls on it, oneways
 * included, go straight to the forwarded target until a call there fails
 * to connect or fails before the request was processed (TRANSIENT /
 * COMM_FAILURE, completion NO); that call then goes once to the
 * reference's own target (which may forward again).  LOCATION_FORWARD_PERM
 * replaces the reference's own target for its lifetime.  A reference keeps
 * at most 8 distinct forwarded targets (memory freed with it); a forward
 * to a ninth is followed but not remembered.  Calls with no forward
 * remembered read it with one atomic load: no lock.  Returns CDR_OK
 * (NO_EXCEPTION), IIOP_R_USER_EXCEPTION, IIOP_R_SYSTEM_EXCEPTION, or an
 * error: CDR_E_TIMEOUT (no reply in time, see iiop_ref_set_timeout(): the
 * connection stays usable, the request is cancelled with
 * CancelRequest, except towards omniORB, whose IORs say so: its 4.2 server
 * loops on a CancelRequest followed by another message in one read; a late
 * reply is dropped), CDR_E_CLOSED (the connection closed before the reply:
 * TRANSIENT with completion NO after CloseConnection, else COMM_FAILURE
 * MAYBE), CDR_E_IO / CDR_E_TLS while connecting (TRANSIENT, NO),
 * CDR_E_TIMEOUT while connecting (TIMEOUT, NO), CDR_E_PROTOCOL (the server sent garbage or MessageError: the client
 * answers MessageError and closes the connection), CDR_E_LIMIT (a reply
 * over max_message, or too many forwards), CDR_E_UNSUPPORTED (the server
 * asked for another addressing mode), MARSHAL-class errors of the arguments
 * (the stream's status: nothing is sent; a wchar or wstring argument with no
 * wchar code set negotiated -- every corbaloc reference -- is
 * CDR_E_CODESET), CDR_E_STATE (invoked twice).  Each error is also mapped
 * to a system exception for iiop_call_exception(). */
IIOP_API int iiop_call_invoke(iiop_call *call, cdr_in **result) IIOP_WUR;
/* Set the timeout of CALL to MS (see iiop_ref_set_timeout()), between
 * iiop_call_begin() and iiop_call_invoke(); it wins over the reference's
 * and the client's.  Like the call itself, for the thread that began it
 * (nothing is shared: no atomics).  Errors:
 * CDR_E_INVALID (CALL NULL, MS < IIOP_TIMEOUT_INHERIT), CDR_E_STATE (after
 * iiop_call_invoke()). */
IIOP_API int iiop_call_set_timeout(iiop_call *call, int ms);
/* After IIOP_R_SYSTEM_EXCEPTION (or a local failure mapped to one): the
 * exception (repository ID, minor code, completion status). */
IIOP_API const giop_system_exception *iiop_call_exception(const iiop_call *call);
/* End the call: its streams, buffers and arena go back to the pools. */
IIOP_API void iiop_call_end(iiop_call *call);

/* What a client has counted since it was made. */
typedef struct iiop_client_stats {
  uint64_t connections;      /* connections opened (TLS handshakes done included) */
  uint64_t connect_failed;   /* connects or handshakes that failed or timed out */
  uint64_t timeout_call;     /* calls that ended with CDR_E_TIMEOUT (call_timeout_ms) */
  uint64_t limit_message;    /* replies over max_message / max_fragmented (CDR_E_LIMIT; the
                              * connection got MessageError and was closed) */
  uint64_t limit_protocol;   /* connections closed on a GIOP protocol error (MessageError) */
  uint64_t late_replies;     /* replies read for no pending call (calls that timed out):
                              * dropped */
  uint64_t bidir_served;     /* Requests read on this client's connections and served
                              * (bidirectional GIOP, iiop_client_offer_bidir()) */
  uint64_t bidir_reused;     /* calls sent over a server's accepted bidirectional
                              * connection instead of a connection of their own
                              * (iiop_client_use_bidir()) */
} iiop_client_stats;

/* Copy C's counters into *ST.  Errors: CDR_E_INVALID (a NULL argument). */
IIOP_API int iiop_client_stats_get(iiop_client *c, iiop_client_stats *st);

/* ---------------------------------------------------------------- bidirectional GIOP
 * (CORBA 3.x Part 2, 15.8 "Bi-Directional GIOP"; GIOP 1.2 only.)  A client
 * behind a firewall lets the server call its callback objects over the
 * connection the client opened, instead of a connection of the server's.
 *
 * Offering (the client): iiop_client_offer_bidir(C, CB).  CB is an
 * iiop_server holding the callback objects: its IORs (iiop_server_ior())
 * are what the client passes to the server; it need not be started (it
 * is then bound but not listening: a callback can only arrive over
 * bidirectional connections).  Every connection C opens afterwards sends,
 * with its first request when that request is GIOP 1.2 (the one that also
 * carries CodeSets), the BI_DIR_IIOP service context (ID 5) with one
 * ListenPoint: CB's IOR host and port.  Its request IDs are even (the side
 * that connected; the accepting side's are odd, 15.8).  A Request,
 * LocateRequest or CancelRequest read on such a connection in GIOP 1.2 is
 * served with CB's objects (its interceptors and limits) and answered on
 * that connection; in GIOP 1.0/1.1 it is a protocol error (MessageError,
 * the connection closed), as on any other connection.  The client has no
 * reader thread: Requests are read while a call of C waits for its reply
 * on that connection (the thread that reads one hands reading to another
 * waiter, then runs the servant itself, so a callback made during the
 * call -- the usual case -- and callbacks nested in it are served).  A
 * Request that arrives while no call is waiting is read by the next call
 * on the connection.
 *
 * Accepting (the server): iiop_server_opts.accept_bidir (off by default:
 * the spec's security note, 15.8 -- a client could name any listen point,
 * e.g. another client's, and receive its callbacks).  With it, a GIOP 1.2
 * Request with a BI_DIR_IIOP context on a connection with a thread of its
 * own (not TLS, not pooled) records the context's listen points for that
 * connection; a malformed context gets MARSHAL (completion NO; the
 * connection stays); GIOP 1.0/1.1 and pooled or TLS connections ignore
 * it.  A client of the server's process given to iiop_client_use_bidir()
 * then, where it would open a connection for a reference whose IIOP
 * profile host and port equal a recorded listen point (case-insensitively
 * for the host), sends the call over that client's connection instead
 * (15.8.1: "rather than open a new connection"; a connection of its own to
 * that endpoint, opened earlier, is still used while it lasts), with odd
 * request IDs, and reads the reply from it; calls to other endpoints, or
 * once that connection has closed, connect as usual (to the IOR's
 * address: TRANSIENT when nobody listens there). */
/* Offer bidirectional GIOP on C's connections opened from now on, with
 * CALLBACKS (which must outlive C) serving the Requests that come over
 * them.  Once per client.  Errors: CDR_E_INVALID (a NULL argument, a host
 * name over GIOP_LISTEN_HOST_MAX), CDR_E_STATE (already offering),
 * CDR_E_NOMEM. */
IIOP_API int iiop_client_offer_bidir(iiop_client *c, iiop_server *callbacks) IIOP_WUR;
/* Send C's calls over S's accepted bidirectional connections whose
 * listen points match the call's endpoint (see above); S must outlive C.
 * A call that would connect looks S's set up under its mutex (one relaxed
 * load on that path for clients without this; nothing on calls over a
 * connection already open).  Such a connection is not cached: each call
 * looks it up.  Errors: CDR_E_INVALID (a NULL argument), CDR_E_STATE (S
 * was made without accept_bidir). */
IIOP_API int iiop_client_use_bidir(iiop_client *c, iiop_server *s) IIOP_WUR;

/* ---------------------------------------------------------------- service contexts
 * (CORBA 3.x Part 2, "Service Context"; the lists of the GIOP Request and
 * Reply headers, IOP::ServiceContextList.)  A context is an ID and its
 * context_data octets, which are sent as given (by convention an
 * encapsulation; nothing here checks that).  A Request carries, in this
 * order: the CodeSets context where the connection's first request sends
 * it (GIOP 1.1 and 1.2), the reference's contexts (in the order they were
 * first set), then the call's own (in the order added, interceptors'
 * included).  The list's place differs by version (GIOP 1.0/1.1: first in
 * the header; 1.2: after the operation name) and the body keeps its
 * alignment either way (docs/wire-notes.md).  A call with no context of
 * its own and none on its reference sends the header prepared at
 * iiop_call_begin(): contexts cost nothing until used. */

#define IIOP_SC_ADD_MAX 16        /* contexts one call, one reply or one reference may add */
#define IIOP_SC_DATA_MAX 65536u   /* octets of one added context's data, at most */
#define IIOP_INTERCEPTORS_MAX 4   /* interceptors per client and per server */

/* Add the context ID with LEN octets of DATA to CALL's request: between
 * iiop_call_begin() and iiop_call_invoke(), or from a send_request
 * interceptor.  DATA is copied (into the call's arena).  A second context
 * with the same ID is sent as a second entry.  Errors: CDR_E_INVALID (CALL
 * NULL, DATA NULL with LEN > 0), CDR_E_STATE (already invoked), CDR_E_LIMIT
 * (IIOP_SC_ADD_MAX contexts already, LEN over IIOP_SC_DATA_MAX),
 * CDR_E_NOMEM. */
IIOP_API int iiop_call_add_service_context(iiop_call *call, uint32_t id, const void *data,
                                           size_t len) IIOP_WUR;
/* Set R's context ID to LEN octets of DATA (copied): every call begun on
 * R afterwards sends it; a context already set under ID is replaced in
 * place.  Thread-safe with calls on R in other threads: the list is an
 * immutable block replaced whole (under R's mutex); a call takes the block
 * current at its iiop_call_begin() with one atomic load and, when there is
 * one, one atomic increment (no lock), and gives it back at
 * iiop_call_end().  A replaced block is freed once no call holds it (at a
 * later change, or with R).  Errors: CDR_E_INVALID (R NULL, DATA NULL with
 * LEN > 0), CDR_E_LIMIT (IIOP_SC_ADD_MAX other contexts set, LEN over
 * IIOP_SC_DATA_MAX), CDR_E_NOMEM; R is unchanged on error. */
IIOP_API int iiop_ref_set_service_context(iiop_ref *r, uint32_t id, const void *data,
                                          size_t len) IIOP_WUR;
/* Remove R's context ID (as iiop_ref_set_service_context() replaces).
 * Returns CDR_OK, CDR_E_INVALID (R NULL, or no context ID set),
 * CDR_E_NOMEM. */
IIOP_API int iiop_ref_remove_service_context(iiop_ref *r, uint32_t id);
/* CALL's operation name (NUL-terminated, valid until iiop_call_end()), or
 * NULL for a NULL CALL. */
IIOP_API const char *iiop_call_operation(const iiop_call *call);
/* After iiop_call_invoke() got a Reply (CDR_OK, IIOP_R_USER_EXCEPTION,
 * IIOP_R_SYSTEM_EXCEPTION; the reply of the last hop when forwarded): its
 * first context with ID, *DATA pointing into the reply (LEN octets; valid
 * until iiop_call_end()).  Returns CDR_OK, or CDR_E_INVALID (a NULL
 * argument, no reply, no such context; *DATA and *LEN untouched). */
IIOP_API int iiop_call_reply_service_context(const iiop_call *call, uint32_t id,
                                             const uint8_t **data, uint32_t *len) IIOP_WUR;
/* The reply's whole list: its count, *V (NULL when 0) pointing at the
 * entries (valid until iiop_call_end()).  0 without a reply. */
IIOP_API uint32_t iiop_call_reply_service_contexts(const iiop_call *call,
                                                   const giop_service_context **v);

/* Client interceptor hooks (a subset of PortableInterceptor's
 * ClientRequestInterceptor, as callbacks).  Either may be NULL.
 * send_request(UD, CALL): in iiop_call_invoke() before each request is
 * sent, once a connection for it is there: once per request that goes out,
 * so again for each LOCATION_FORWARD followed and each resend on a new
 * connection (a call whose connect fails runs none).  It may read
 * iiop_call_operation() and add contexts (iiop_call_add_service_context());
 * before each run the contexts the hooks added for the previous request
 * are dropped (the caller's stay), so a resend carries each hook's
 * contexts once.  Returning non-zero refuses the call: nothing (more) is
 * sent, no receive_reply hook runs and later interceptors' send_request do
 * not run; iiop_call_invoke() returns a negative cdr_status as given, with
 * its system exception (completion NO), or IIOP_R_SYSTEM_EXCEPTION when the
 * hook set the exception with iiop_call_set_exception() (any other positive
 * value: CDR_E_INVALID).  receive_reply(UD, CALL, STATUS): once
 * iiop_call_invoke() knows its result STATUS (what it is about to return:
 * CDR_OK, IIOP_R_USER_EXCEPTION, IIOP_R_SYSTEM_EXCEPTION --
 * iiop_call_exception() -- or an error, a oneway CDR_OK once sent), in the
 * reverse order of registration; it may read the reply's contexts, and
 * replace the outcome with a system exception (iiop_call_set_exception():
 * iiop_call_invoke() then returns IIOP_R_SYSTEM_EXCEPTION, *RESULT NULL;
 * the hooks after it get that STATUS).  A user exception cannot be raised
 * by a hook.  Hooks run in the calling thread and must not begin or invoke
 * calls on the same CALL. */
typedef struct iiop_client_interceptor {
  int (*send_request)(void *ud, iiop_call *call);
  void (*receive_reply)(void *ud, iiop_call *call, int status);
} iiop_client_interceptor;

/* Register IC (copied) with UD on C, any time: calls invoked after it
 * returns run it (the table is published with one atomic store; a call
 * reads its count with one atomic load: none registered, no other cost).
 * There is no removal.  Errors: CDR_E_INVALID (a NULL argument),
 * CDR_E_LIMIT (IIOP_INTERCEPTORS_MAX registered already). */
/* From a send_request or receive_reply hook of CALL only: make the call's
 * outcome the system exception REPO_ID (e.g.
 * "IDL:omg.org/CORBA/NO_PERMISSION:1.0"; copied into the call's arena),
 * MINOR, COMPLETED (GIOP_COMPLETED_YES / NO / MAYBE), as
 * iiop_call_exception() then reports it; see iiop_client_interceptor for
 * what the hook returns.  Nothing goes on the wire.  Errors: CDR_E_INVALID
 * (CALL or REPO_ID NULL, REPO_ID empty, COMPLETED over 2), CDR_E_STATE (not
 * within a hook of CALL), CDR_E_NOMEM. */
IIOP_API int iiop_call_set_exception(iiop_call *call, const char *repo_id, uint32_t minor,
                                     uint32_t completed) IIOP_WUR;

IIOP_API int iiop_client_add_interceptor(iiop_client *c, const iiop_client_interceptor *ic,
                                         void *ud) IIOP_WUR;

/* ---------------------------------------------------------------- server */

typedef struct iiop_request iiop_request;

/* A servant's operation: read the arguments from ARGS, write the results
 * to RESULT.  Return CDR_OK for a normal reply, IIOP_R_USER_EXCEPTION after
 * writing a user exception (repository ID, then members) to RESULT, or a
 * negative cdr_status to reply with the system exception it maps to
 * (cdr_status_exception(); completion status NO unless the operation set
 * another with iiop_request_set_completed()).  Decoded arguments live in
 * the request's arena until the reply is sent.  RESULT gathers
 * (cdr_out_set_gather()): an operation may answer with octets it was given
 * -- a view read from ARGS (cdr_get_string_view(), cdr_get_octets_view()),
 * arena memory -- by reference (cdr_put_string_view(), cdr_put_seq_ref(),
 * cdr_put_raw_ref()); the request and its arena stay valid until the reply
 * has been sent, so nothing of it is copied in user space. */
typedef int (*iiop_op_fn)(void *servant, iiop_request *req, cdr_in *args, cdr_out *result);

typedef struct iiop_operation {
  const char *name;
  iiop_op_fn fn;
} iiop_operation;

/* Not copied: an interface, its operations and strings must stay valid
 * while the server lives (static tables). */
typedef struct iiop_interface {
  const char *repo_id;             /* "IDL:Bench/Echo:1.0" */
  const iiop_operation *ops;
  uint32_t nops;
  const char *const *bases;        /* further repository IDs _is_a accepts (NULL-terminated), or NULL */
} iiop_interface;

typedef struct iiop_server_opts {
  const char *host;          /* address to listen on (default "127.0.0.1"); also put in IORs */
  uint16_t port;             /* 0: a free port (iiop_server_port() tells which) */
  size_t fragment_size;      /* as iiop_client_opts.fragment_size, for replies: 0 (the
                              * default) whole up to GIOP_WHOLE_DEFAULT, else fragments
                              * of this size */
  size_t max_message;        /* largest request accepted (default 64 MiB): the older name of
                              * limits.max_message; a value other than the default wins */
  uint32_t max_connections;  /* default 1024: the older name of limits.max_connections, as
                              * max_message (see iiop/limits.h for what the cap does) */
  const char *tls_cert, *tls_key; /* both set: also listen for TLS on tls_port (PEM; tls_key
                              * may name the same file as tls_cert when it holds both) */
  const char *tls_key_password; /* tls_key's passphrase when it is encrypted (NULL: none) */
  const char *tls_ca_file;   /* PEM CA certificates to verify client certificates with
                              * (NULL: none; needed by tls_verify_clients other than NONE) */
  int tls_verify_clients;    /* IIOP_TLS_VERIFY_NONE (default), _PEER or _PEER_FAIL: see
                              * iiop_tls_verify_mode */
  char *why;                 /* the caller's buffer (why_cap octets; NULL: none): the reason
                              * iiop_server_new() failed ("" on success), e.g. a TLS file
                              * OpenSSL cannot read, named with OpenSSL's reason, or "bind
                              * to 127.0.0.1:2809: Address already in use".  Not kept */
  size_t why_cap;
  uint16_t tls_port;         /* 0: a free port */
  int tls_policy;            /* IIOP_TLS_ALLOWED (the default, 0): plain port, and the TLS
                              * port when tls_cert/tls_key are set.  IIOP_TLS_REQUIRED: the
                              * TLS port only (no plain listener: iiop_server_port() is 0,
                              * IORs carry port 0 and TAG_SSL_SEC_TRANS requiring
                              * integrity and confidentiality); without tls_cert
                              * iiop_server_new() fails with CDR_E_TLS.  IIOP_TLS_OFF: the
                              * plain port only, tls_cert/tls_key ignored.  Another value:
                              * CDR_E_INVALID */
  int handshake_timeout_ms;  /* default 5000 (also for <= 0): a stalled TLS client cannot
                              * hold a thread.  The older name of
                              * limits.handshake_timeout_ms, as max_message */
  uint32_t pool_threshold;   /* 0 (default): every connection gets a thread of its own, which
                              * reads and dispatches in place (the least CPU per call for a
                              * few connections).  N: while N connections have their own
                              * thread, a new plain (not TLS) connection goes to the worker
                              * pool instead: one epoll instance, pool_threads workers that
                              * read what has arrived without blocking, dispatch every
                              * complete message in order, and wait again.  A connection
                              * stays where it started.  TLS connections always get their
                              * own thread (and count among the N): OpenSSL may hold
                              * decrypted data the socket's readiness does not show.  The
                              * pool starts with its first connection; should it fail to
                              * start, connections get threads of their own.  A pooled call
                              * costs two system calls more than one on a thread of its own
                              * (epoll_wait, and re-arming). */
  uint32_t pool_threads;     /* pool workers (0, the default: the number of online CPUs).  A
                              * worker serves one connection at a time: a slow operation, or
                              * a reply to a client that does not read (up to the send
                              * timeout), holds its worker; the requests of one connection
                              * are dispatched in order, as with a thread per connection. */
  int batch_replies;         /* 0 (default): every reply is written when its servant returns.
                              * 1: a connection thread holds a small reply (one that needs
                              * no fragmenting, up to 8 KiB together) back while another
                              * complete request of the same read is waiting, and writes
                              * the held replies with the next one in one gather write
                              * (fewer system calls with many callers pipelining on one
                              * connection).  The price: a held reply also waits for the
                              * servants of the requests behind it in that read, so a fast
                              * call pipelined ahead of a slow one is answered when the
                              * slow one ends.  Pooled connections never hold replies;
                              * SYNC_WITH_SERVER acknowledgements are never held. */
  const cdr_allocator *alloc;/* for everything the server allocates itself -- the server,
                              * the object adapter's tables, connection records, reply
                              * streams, transports, reassembly buffers (NULL, the default:
                              * cdr_mem_global()).  Not from it: the per-thread arenas
                              * requests decode into (cdr_arena_get()) and OpenSSL's
                              * memory.  It must outlive the server. */
  iiop_limits limits;        /* iiop/limits.h: message sizes, stream limits of the arguments,
                              * connections, the memory budget, the header, message, idle and
                              * handshake timeouts (call_timeout_ms is ignored here) */
  int accept_bidir;          /* non-zero: record the BI_DIR_IIOP listen points clients send
                              * (bidirectional GIOP, see iiop_client_use_bidir()); it takes
                              * one of the IIOP_INTERCEPTORS_MAX interceptor slots */
} iiop_server_opts;

/* Code sets: a connection's are fixed by its first Request -- its CodeSets
 * service context, or without one ISO-8859-1 and no wchar code set (a
 * wstring argument then gets BAD_PARAM, OMG minor 23).  Strings reach
 * operations in ISO-8859-1, the native char code set IORs advertise
 * (cdr_get_string() converts from UTF-8 when that was negotiated). */

IIOP_API void iiop_server_opts_default(iiop_server_opts *o);
/* Create and bind (listening starts with iiop_server_start()).  Errors:
 * CDR_E_IO (bind/listen failed), CDR_E_TLS (a certificate, key or CA file
 * OpenSSL cannot read or parse, a key not matching the certificate, a wrong
 * or missing tls_key_password; tls_cert without tls_key or the reverse;
 * IIOP_TLS_REQUIRED without them; a tls_verify_clients mode without
 * tls_ca_file), CDR_E_INVALID (an unknown tls_policy or tls_verify_clients),
 * CDR_E_NOMEM.  opts.why (if given) gets the reason, e.g. "TLS: cannot load
 * the key file (with the password given) FILE: <OpenSSL's reason>"; "" on
 * success. */
IIOP_API int iiop_server_new(const iiop_server_opts *opts, iiop_server **out) IIOP_WUR;
/* Activate SERVANT implementing IFACE under the persistent object KEY
 * (KEY_LEN octets, e.g. "Echo": reachable by corbaloc).  Keys that begin
 * with IIOP_GENERATED_KEY_PREFIX are reserved for generated keys.  Any
 * thread, any time (also while serving, also from an operation): requests
 * read after it returns find the object.  Errors: CDR_E_INVALID (key in
 * use or reserved, bad interface), CDR_E_NOMEM. */
IIOP_API int iiop_server_activate(iiop_server *s, const void *key, size_t key_len,
                                  const iiop_interface *iface, void *servant) IIOP_WUR;

/* Generated object keys: IIOP_GENERATED_KEY_LEN octets, the 4-octet
 * prefix, a 64-bit counter (big-endian, unique within the server) and 8
 * octets from getrandom() (so that a key of an earlier run of the server,
 * or of another server, is not found: such a reference gets
 * OBJECT_NOT_EXIST; and keys cannot be guessed from one another). */
#define IIOP_GENERATED_KEY_LEN 20
#define IIOP_GENERATED_KEY_PREFIX "\0IGK"
#define IIOP_GENERATED_KEY_PREFIX_LEN 4

/* Activate SERVANT implementing IFACE under a new generated key (a
 * transient object: the key is never reused, and no persistent key can
 * equal it).  The key is written to KEY_OUT, which must have room for
 * IIOP_GENERATED_KEY_LEN octets, and its length to *KEY_LEN; pass them to
 * iiop_server_ior() for a reference and to iiop_server_deactivate().
 * Thread-safe, as iiop_server_activate().  Errors: CDR_E_INVALID (a NULL
 * argument, bad interface), CDR_E_NOMEM. */
IIOP_API int iiop_server_activate_generated(iiop_server *s, const iiop_interface *iface,
                                            void *servant, uint8_t *key_out, size_t *key_len) IIOP_WUR;
/* Deactivate the object under KEY (persistent or generated): requests read
 * after this returns get OBJECT_NOT_EXIST (LocateRequest: UNKNOWN_OBJECT),
 * and the key may be activated again.  Called from a thread that is not
 * dispatching requests, it also waits until no request that may have found
 * the object is still running (requests dispatched before the call, on any
 * object: the object table is read without locks, so the server tracks
 * readers, not objects): when it returns, the servant may be freed.  Do not
 * call it holding a lock that such an operation may wait for.  Called from
 * an operation (of any server), it does not wait: the calling operation,
 * and others already running on the servant, may still use it.  The
 * object's memory in the adapter is freed once no request can still see
 * it.  Errors: CDR_E_INVALID (a NULL argument, KEY not active),
 * CDR_E_NOMEM. */
IIOP_API int iiop_server_deactivate(iiop_server *s, const void *key, size_t key_len);
/* Start the accepting thread(s).  Errors: CDR_E_IO, CDR_E_NOMEM,
 * CDR_E_STATE (after shutdown). */
IIOP_API int iiop_server_start(iiop_server *s) IIOP_WUR;
IIOP_API uint16_t iiop_server_port(const iiop_server *s);
IIOP_API uint16_t iiop_server_tls_port(const iiop_server *s);
/* The IOR of the object under KEY ("IOR:...", IIOP 1.2 profile with the
 * code-set component (char ISO-8859-1 with UTF-8 conversion, wchar UTF-16)
 * and, with TLS, the TAG_SSL_SEC_TRANS component), from arena A.  A KEY
 * not active gets the type ID "IDL:omg.org/CORBA/Object:1.0".  Errors:
 * CDR_E_INVALID (a NULL argument), CDR_E_NOMEM. */
IIOP_API int iiop_server_ior(iiop_server *s, const void *key, size_t key_len, cdr_arena *a,
                             char **out) IIOP_WUR;
/* Stop accepting, send CloseConnection on every connection (pooled ones
 * too), wait for the requests in progress, join the threads (the pool's
 * workers too).  Idempotent.  A request in
 * progress is answered before its connection's CloseConnection; requests
 * read after it are dropped unprocessed, as CloseConnection tells the
 * client. */
IIOP_API void iiop_server_shutdown(iiop_server *s);

/* What a server has counted since it was made, and where it stands.  Each
 * limit of iiop/limits.h hit adds one to its counter. */
typedef struct iiop_server_stats {
  uint64_t accepted;         /* connections accepted */
  uint64_t open;             /* connections open now (handshakes included; an ended one
                              * until its buffers and budget charges are given back) */
  uint64_t refused;          /* closed at once: at max_connections with every connection
                              * dispatching */
  uint64_t evicted;          /* ended to make room for a new one at max_connections */
  uint64_t timeout_header;   /* ended by header_timeout_ms */
  uint64_t timeout_message;  /* ended by message_timeout_ms */
  uint64_t timeout_idle;     /* sent CloseConnection after idle_timeout_ms */
  uint64_t timeout_handshake;/* TLS handshakes past handshake_timeout_ms */
  uint64_t limit_message;    /* MessageError for a message over max_message, a fragmented
                              * one over max_fragmented, or one over max_in_flight */
  uint64_t limit_protocol;   /* MessageError for any other malformed stream (bad magic ...) */
  uint64_t limit_budget;     /* requests refused by the budget (max_in_flight) */
  uint64_t limit_budget_closed; /* of them, ones that closed their connection instead of a
                              * NO_RESOURCES reply (fragmented, header not all there) */
  uint64_t limit_args;       /* IMP_LIMIT replies: an argument past max_string, max_sequence,
                              * max_depth or max_values, a result past max_message */
  uint64_t in_flight;        /* octets charged to the budget now (a charge
                              * counts while the budget weighs it; never
                              * over in_flight_max) */
  uint64_t in_flight_peak;   /* the most ever charged at once */
  uint64_t in_flight_max;    /* the budget (limits.max_in_flight) */
  uint64_t tls_handshake_failures; /* TLS handshakes that failed (a client refused for its
                              * certificate, a bad record, a peer that closed; timeouts
                              * are timeout_handshake): iiop_server_tls_last_error() */
  uint64_t bidir_connections;/* connections that became bidirectional (accept_bidir) */
  uint64_t bidir_refused;    /* requests refused for a malformed BI_DIR_IIOP context */
} iiop_server_stats;

/* Copy S's counters into *ST (any thread, any time).  Errors:
 * CDR_E_INVALID (a NULL argument). */
IIOP_API int iiop_server_stats_get(iiop_server *s, iiop_server_stats *st);
/* The reason of S's most recent failed TLS handshake (tls_handshake_failures
 * and timeout_handshake count them), as text ("" if none yet):
 * "TLS handshake from HOST:PORT: <reason>" with OpenSSL's reason (see
 * iiop_tls_accept_why() in iiop/conn.h; e.g. "... peer did not return a
 * certificate").  A later failure replaces it.  Copied into BUF (CAP octets,
 * NUL-terminated, cut at CAP - 1; BUF NULL or CAP 0: only the length);
 * IIOP_SERVER_ERROR_MAX holds any text.  Returns the full text's length (S
 * NULL: 0).  Any thread; allocates nothing. */
#define IIOP_SERVER_ERROR_MAX 640
IIOP_API size_t iiop_server_tls_last_error(iiop_server *s, char *buf, size_t cap);
IIOP_API void iiop_server_free(iiop_server *s);

/* In an operation: the operation name, the request ID, and the completion
 * status reported if the operation returns a system exception. */
IIOP_API const char *iiop_request_operation(const iiop_request *r);
IIOP_API uint32_t iiop_request_id(const iiop_request *r);
IIOP_API void iiop_request_set_completed(iiop_request *r, uint32_t completed);
/* In an operation that then returns IIOP_R_SYSTEM_EXCEPTION: reply with the
 * system exception *E (repository ID, minor code, completion status; copied,
 * but E->repo_id must stay valid until the reply is written, after the
 * operation returns: a static string or one in the arguments' arena).  Without this call, or with a NULL
 * repo_id or a completion status above MAYBE (ignored), that return value
 * is answered with UNKNOWN (completion MAYBE). */
IIOP_API void iiop_request_set_exception(iiop_request *r, const giop_system_exception *e);
/* In an operation: answer with a forward instead of a result (CORBA 3.x
 * Part 2, 15.4.3: GIOP Reply status LOCATION_FORWARD (3), or with PERM
 * non-zero LOCATION_FORWARD_PERM (4; GIOP 1.2 only: a 1.0/1.1 request gets
 * LOCATION_FORWARD), the body the IOR, re-encoded from IOR, a stringified
 * IOR ("IOR:..."), parsed and copied here: the caller keeps IOR).  Whatever
 * the operation then returns or wrote to its result stream is dropped; a
 * oneway request gets no reply at all.  A second call replaces the first.
 * Clients (this one included) send the request again to the IOR's target
 * and, until it fails, later requests too.  Errors: CDR_E_INVALID (a NULL
 * argument, IOR not a stringified IOR: BAD_PARAM), the decoding errors of
 * iiop_ior_from_string() (MARSHAL), CDR_E_NOMEM; on error the reply is as
 * if it had not been called. */
IIOP_API int iiop_request_set_forward(iiop_request *r, const char *ior, int perm) IIOP_WUR;
/* In an operation: have FN(P) called once the request's reply has been
 * sent, so that an operation can answer by reference (cdr_put_string_view(),
 * cdr_put_raw_ref() and the others) with memory of its own that must be
 * freed afterwards -- a returned string the ORB frees, say -- instead of
 * copying it.  FN runs on the thread that serves the connection's next
 * message, before anything of that message is parsed, or that closes the
 * connection, whichever comes first; also when the reply was never sent
 * (a oneway, a forward, an exception replacing the result, a failed
 * write).  It must not call into the server.  At most
 * IIOP_REQUEST_HOLD_MAX holds a request.  Errors: CDR_E_INVALID (R or FN
 * NULL), CDR_E_LIMIT (that many held already); on error FN is not
 * recorded, and P must not be referenced by the reply (copy it instead). */
#define IIOP_REQUEST_HOLD_MAX 4
IIOP_API int iiop_request_hold(iiop_request *r, void (*fn)(void *p), void *p) IIOP_WUR;
/* Value options for decoding the request's arguments: cdr_value_opts_default()
 * with max_values from the server's limits (iiop/limits.h).  R NULL:
 * the defaults. */
IIOP_API void iiop_request_value_opts(const iiop_request *r, cdr_value_opts *o);

/* In an operation (or a server interceptor): the request's object key
 * (the KeyAddr octets, *LEN of them; pointing into the request, valid
 * until its reply is sent), or NULL (R NULL; *LEN 0). */
IIOP_API const uint8_t *iiop_request_object_key(const iiop_request *r, uint32_t *len);
/* The request's GIOP version: *MAJOR (1) and *MINOR (0, 1 or 2).  Errors:
 * CDR_E_INVALID (a NULL argument). */
IIOP_API int iiop_request_giop_version(const iiop_request *r, uint8_t *major, uint8_t *minor);
/* The request's first service context with ID (CodeSets included, as the
 * client sent it): *DATA points into the request (LEN octets, valid until
 * the reply is sent).  Returns CDR_OK, or CDR_E_INVALID (a NULL argument,
 * no such context). */
IIOP_API int iiop_request_service_context(const iiop_request *r, uint32_t id,
                                          const uint8_t **data, uint32_t *len) IIOP_WUR;
/* The request's whole list, in the order received: its count, and *V
 * (NULL when 0) at the entries.  The parser bounded it: a count or a length
 * past the message is MessageError before any operation runs. */
IIOP_API uint32_t iiop_request_service_contexts(const iiop_request *r,
                                                const giop_service_context **v);
/* The address of the client's end of the connection (getpeername()): the
 * numeric host ("127.0.0.1", "::1"; IPv4-mapped IPv6 addresses as IPv4)
 * NUL-terminated into HOST (CAP octets; IIOP_PEER_HOST_MAX always
 * suffice) and the port into *PORT (either may be NULL/0 to skip).
 * Errors: CDR_E_INVALID (R NULL), CDR_E_STATE (no socket: a request not
 * read from a connection), CDR_E_IO (the socket has no peer), CDR_E_LIMIT
 * (CAP too small: HOST untouched). */
#define IIOP_PEER_HOST_MAX 64
IIOP_API int iiop_request_peer(const iiop_request *r, char *host, size_t cap, uint16_t *port)
  IIOP_WUR;
/* The subject of the client certificate the request's TLS connection
 * verified (the server's tls_verify_clients VERIFY_PEER or VERIFY_PEER_FAIL
 * against tls_ca_file), one line in RFC 2253 form, e.g.
 * "CN=client,O=Test" (X509_NAME_print_ex, XN_FLAG_RFC2253).  NULL: R NULL,
 * a plain connection, a TLS client that sent no certificate, or a request
 * not read from a connection.  Owned by the connection; valid until the
 * request's reply is sent. */
IIOP_API const char *iiop_request_peer_subject(const iiop_request *r);
/* Add the context ID with LEN octets of DATA (copied into the request's
 * arena) to the reply's service context list: from an operation or a
 * server interceptor (also for a system exception or forward reply).  A
 * reply with contexts gets a new header and its body behind it (by
 * reference, not copied); in GIOP 1.0/1.1, where the body follows the
 * header unpadded, a list whose octets would move the body by 4 modulo 8
 * is followed by the context IIOP_SC_ALIGN with 4 zero octets, so that the
 * body keeps its alignment (receivers ignore contexts they do not know;
 * CORBA 3.x Part 2, "Service Context").  A oneway request's contexts go
 * nowhere.  Errors: CDR_E_INVALID (R NULL, DATA NULL with LEN > 0),
 * CDR_E_LIMIT (IIOP_SC_ADD_MAX added already, LEN over IIOP_SC_DATA_MAX),
 * CDR_E_NOMEM. */
#define IIOP_SC_ALIGN 0x49495000u /* padding context (4 zero octets), GIOP 1.0/1.1 replies */
IIOP_API int iiop_request_add_reply_service_context(iiop_request *r, uint32_t id,
                                                    const void *data, size_t len) IIOP_WUR;

/* Server interceptor hooks (a subset of PortableInterceptor's
 * ServerRequestInterceptor, as callbacks).  Either may be NULL.  They run
 * in the dispatching thread, with the iiop_request the operation gets (every
 * iiop_request_* call above works).
 * receive_request(UD, REQ): for each Request whose object and operation
 * were found (_is_a and _non_existent included, oneways too), before the
 * operation runs; a request the server refuses earlier (no such object or
 * operation, code-set failure, NEEDS_ADDRESSING_MODE) runs no hook.
 * Returning 0 goes on; non-zero refuses the request: the operation does
 * not run, later interceptors' receive_request do not run, and the reply
 * is the system exception the hook set with iiop_request_set_exception()
 * or, without one, NO_PERMISSION (minor 0, completion NO); a oneway is
 * dropped.
 * send_reply(UD, REQ, STATUS): before each reply to such a request is
 * sent (refused ones included), in the reverse order of registration;
 * STATUS is the Reply's giop_reply_status (NO_EXCEPTION, USER_EXCEPTION,
 * SYSTEM_EXCEPTION, LOCATION_FORWARD, LOCATION_FORWARD_PERM); it may add
 * reply contexts (iiop_request_add_reply_service_context()).  Not for
 * oneways, nor for the reply a SYNC_WITH_SERVER request gets before it
 * runs. */
typedef struct iiop_server_interceptor {
  int (*receive_request)(void *ud, iiop_request *req);
  void (*send_reply)(void *ud, iiop_request *req, uint32_t reply_status);
} iiop_server_interceptor;

/* Register IC (copied) with UD on S, any time (also while serving):
 * requests read after it returns run it; one atomic load per request when
 * none is registered.  No removal.  Errors: CDR_E_INVALID (a NULL
 * argument), CDR_E_LIMIT (IIOP_INTERCEPTORS_MAX registered already). */
IIOP_API int iiop_server_add_interceptor(iiop_server *s, const iiop_server_interceptor *ic,
                                         void *ud) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
