/* iiop/limits.h - every limit of the IIOP client and server in one place,
 * with its default, and the counters that say how often each was hit.
 *
 * An iiop_limits is embedded in iiop_server_opts and iiop_client_opts
 * (field `limits`); iiop_limits_default() fills in the defaults below, as
 * the options' own *_default() functions do.  A field left 0 takes its
 * default too.  Sizes are octets, times milliseconds.
 *
 * What hitting each limit does (OMG CORBA 3.x, Part 2, GIOP chapter):
 * - max_message: a GIOP header whose message_size would pass it gets
 *   MessageError and the connection is closed (docs/hostile-input.md C11),
 *   before anything is allocated for it.  A reply larger than it is not
 *   sent: the request gets IMP_LIMIT instead (server), or the call fails
 *   with CDR_E_LIMIT (client, for a reply).
 * - max_fragmented: the running total of a fragmented message (its first
 *   message and every Fragment): MessageError and close, as max_message.
 * - max_string, max_sequence, max_depth: the request's argument stream (the
 *   server) or the reply's result stream (the client), as cdr_opts
 *   max_string, max_seq and max_depth: a string, wstring or sequence
 *   longer, or nesting deeper, fails decoding with CDR_E_LIMIT, which a
 *   server answers with IMP_LIMIT (completed NO).
 * - max_values, max_indirections: values one valuetype graph may hold and
 *   indirections (to values, repository IDs, codebases, ID lists) it may
 *   follow (cdr_value_opts max_values, max_indirections), for operations
 *   that decode values with iiop_request_value_opts(): CDR_E_LIMIT,
 *   answered IMP_LIMIT.
 * - max_connections (server): at the cap a new connection evicts the
 *   connection idle longest -- one with no complete message in progress
 *   and no request being dispatched (an idle one gets CloseConnection,
 *   one stalled inside a message or TLS handshake is just closed); when
 *   every connection is dispatching, the new one is closed at once.
 * - max_in_flight (server): the memory budget for request buffers.  A
 *   message buffer larger than 64 KiB (GIOP_REASM_CHARGE_ABOVE) is charged
 *   to it as it grows, and so is, from its first octet, the buffer of a
 *   fragmented message begun while another one is in progress on the
 *   connection (a refusal of that charge closes the connection); a
 *   request the budget cannot take waits up to message_timeout_ms for
 *   memory to be given back, then is answered NO_RESOURCES (completed NO)
 *   and the rest of it (a fragmented request's later Fragments too) is read
 *   and discarded; the connection goes on.  When no memory can be given
 *   back (every octet charged is held by a waiting request, and no waiter's
 *   next charge fits in what is left), the waiting request holding the
 *   most (of equals, the last to begin waiting) gets that answer at once
 *   instead, one at a time until the rest can go on: refusing it frees the
 *   most, so the fewest are refused.  A request whose charge fits is never
 *   refused.  A charged buffer gives its charge back once its message is
 *   done, so an idle connection holds no charge; it is kept for reuse
 *   uncharged within 8 MiB for the whole process (else freed) and charged
 *   again when it next holds a message.
 *   A request whose own header has not arrived by then closes its
 *   connection.  A header whose message_size is over max_in_flight can
 *   never be afforded: MessageError and close, as max_message.  Waiting
 *   for the budget is not timed by message_timeout_ms; pooled connections
 *   wait on their worker thread.  So the server holds at most
 *   max_in_flight octets of large request buffers, plus 64 KiB per
 *   connection, plus what operations and their replies allocate.
 * - header_timeout_ms (server): from a message's first octet (a
 *   connection's first, or the first after its previous message) to its
 *   complete 12-octet header; a partial header is timed, never idle.
 * - message_timeout_ms (server): from a complete header to its message's
 *   last octet (the last Fragment's, for a fragmented one); a body that
 *   trickles is timed.
 * - idle_timeout_ms (server): between messages, with no octet of a next
 *   message and no request in progress (a new connection that has sent
 *   nothing is idle too).  The connection gets CloseConnection ("the
 *   server may close an idle connection", GIOP "Connection Management")
 *   and is closed once the client closes, or after 2 s.
 *   Past a header or message timeout the connection is closed (no message
 *   can be sent in the middle of the client's).  The server checks the
 *   three timeouts every eighth of the shortest of them (at least 20 ms,
 *   at most 1 s), so a connection goes within its timeout plus that.
 * - handshake_timeout_ms: a TLS handshake (server: from accept; client:
 *   part of the call's timeout) not done within it fails; the server
 *   closes the connection.
 * - call_timeout_ms (client): per call, connect included: CDR_E_TIMEOUT;
 *   the default of calls whose reference or call sets none
 *   (iiop_ref_set_timeout(), iiop_call_set_timeout() in iiop/orb.h).
 *
 * Every limit hit frees what was held for the message or connection and
 * is counted in iiop_server_stats or iiop_client_stats.
 */
#ifndef IIOP_LIMITS_H
#define IIOP_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include <iiop/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IIOP_DEFAULT_MAX_MESSAGE ((size_t)64 << 20)       /* 64 MiB */
#define IIOP_DEFAULT_MAX_STRING ((uint32_t)64 << 20)      /* 64 MiB, as cdr_opts */
#define IIOP_DEFAULT_MAX_SEQUENCE ((uint32_t)16 << 20)    /* 16 Mi elements, as cdr_opts */
#define IIOP_DEFAULT_MAX_DEPTH 64u                        /* as cdr_opts */
#define IIOP_DEFAULT_MAX_VALUES ((uint32_t)16 << 20)      /* as cdr_value_opts */
#define IIOP_DEFAULT_MAX_INDIRECTIONS ((uint32_t)16 << 20) /* as cdr_value_opts */
#define IIOP_DEFAULT_MAX_CONNECTIONS 1024u
#define IIOP_DEFAULT_MAX_IN_FLIGHT ((size_t)256 << 20)    /* 256 MiB */
#define IIOP_DEFAULT_HEADER_TIMEOUT_MS 10000
#define IIOP_DEFAULT_MESSAGE_TIMEOUT_MS 60000
#define IIOP_DEFAULT_IDLE_TIMEOUT_MS 300000
#define IIOP_DEFAULT_HANDSHAKE_TIMEOUT_MS 5000
#define IIOP_DEFAULT_CALL_TIMEOUT_MS 30000

typedef struct iiop_limits {
  size_t max_message;        /* one message, 12-octet header included (default 64 MiB) */
  size_t max_fragmented;     /* a fragmented message in all (default: max_message; never
                              * more than it) */
  uint32_t max_string;       /* octets of a string or wstring (default 64 MiB) */
  uint32_t max_sequence;     /* elements of a sequence (default 16 Mi) */
  uint32_t max_depth;        /* nesting of constructed types and encapsulations (default 64) */
  uint32_t max_values;       /* values in one valuetype graph (default 16 Mi) */
  uint32_t max_indirections; /* indirections one valuetype graph may follow (default 16 Mi) */
  uint32_t max_connections;  /* server: connections at once (default 1024) */
  size_t max_in_flight;      /* server: octets of request buffers over 64 KiB, all
                              * connections together (default 256 MiB) */
  int header_timeout_ms;     /* server (default 10000) */
  int message_timeout_ms;    /* server (default 60000); also how long a request over the
                              * budget waits */
  int idle_timeout_ms;       /* server (default 300000) */
  int handshake_timeout_ms;  /* TLS handshake (default 5000) */
  int call_timeout_ms;       /* client: per call (default 30000) */
} iiop_limits;

/* Fill L with the defaults above. */
IIOP_API void iiop_limits_default(iiop_limits *l);

#ifdef __cplusplus
}
#endif
#endif
