/* iiop/conn.h - transports and connections: the part of libiiop that talks
 * to sockets (OMG CORBA 3.x, Part 2, "Internet Inter-ORB Protocol" and GIOP
 * "Connection Management").
 *
 * A transport moves octets (TCP, or TLS through OpenSSL).  The client and
 * the server build their connections on transports: a connection (internal
 * to the library) owns one transport, serialises whole messages onto it
 * (one gather write per message where it can), reassembles what it reads
 * (iiop/frag.h), and multiplexes requests by request ID so that many
 * threads share one connection.
 */
#ifndef IIOP_CONN_H
#define IIOP_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <cdr/cdr.h>
#include <iiop/export.h>
#include <iiop/frag.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- transports */

typedef struct iiop_transport iiop_transport;

/* One thread may write while another reads; two writers (or two readers)
 * must be serialised by the caller (a connection's write lock does it).
 * Timeouts are in milliseconds; < 0 waits forever. */
typedef struct iiop_transport_ops {
  /* Write all of IOV[0..N) (retrying short writes and EINTR), within
   * TIMEOUT_MS in all.  CDR_OK, CDR_E_IO, CDR_E_TLS, CDR_E_CLOSED (the peer
   * reset or closed), CDR_E_TIMEOUT.  After an error an unknown prefix may
   * have been written: the stream is unusable. */
  int (*writev)(iiop_transport *t, const struct iovec *iov, int n, int timeout_ms);
  /* Read at most LEN octets into BUF, waiting at most TIMEOUT_MS for the
   * first (0: do not wait): > 0 octets read; 0 the peer closed (or
   * shutdown() ran); < 0 a cdr_status (CDR_E_TIMEOUT: nothing arrived, the
   * stream is intact; CDR_E_IO, CDR_E_TLS, CDR_E_CLOSED: reset). */
  long (*read)(iiop_transport *t, void *buf, size_t len, int timeout_ms);
  /* Shut down both directions (wakes a blocked reader or writer);
   * idempotent; the descriptor stays open until free. */
  void (*shutdown)(iiop_transport *t);
  void (*free)(iiop_transport *t);
} iiop_transport_ops;

struct iiop_transport {
  const iiop_transport_ops *ops;
  int fd;
};

/* TCP: connect to HOST:PORT (IPv4, IPv6 bare or in brackets, with an
 * optional "%zone", or a name: every address getaddrinfo() gives is tried in
 * turn), TCP_NODELAY on, the descriptor close-on-exec and blocking (writes
 * that must wait poll with MSG_DONTWAIT; no SIGPIPE is ever raised).
 * TIMEOUT_MS bounds the whole connect (0: none).  Errors: CDR_E_IO
 * (resolution or connect failed), CDR_E_TIMEOUT, CDR_E_NOMEM,
 * CDR_E_INVALID (a NULL argument). */
IIOP_API int iiop_tcp_connect(const char *host, uint16_t port, int timeout_ms, iiop_transport **out) IIOP_WUR;
/* Wrap an accepted socket FD (the transport owns it, and closes it if this
 * fails with CDR_E_NOMEM); TCP_NODELAY is turned on where it applies. */
IIOP_API int iiop_tcp_wrap(int fd, iiop_transport **out) IIOP_WUR;

/* TLS (OpenSSL).  A client context verifies the server against CA_FILE
 * (verification is off only with VERIFY 0); a server context presents
 * CERT_FILE/KEY_FILE.  Errors: CDR_E_TLS (files unreadable, bad key),
 * CDR_E_NOMEM. */
typedef struct iiop_tls_ctx iiop_tls_ctx;
IIOP_API int iiop_tls_client_ctx(const char *ca_file, int verify, iiop_tls_ctx **out) IIOP_WUR;
IIOP_API int iiop_tls_server_ctx(const char *cert_file, const char *key_file, iiop_tls_ctx **out) IIOP_WUR;
/* As the two above, and on an error the reason into WHY: "TLS: cannot load
 * <what> FILE: " and OpenSSL's queued errors (ERR_error_string_n(), "; "
 * between them, e.g. one ending in "No such file or directory" for a
 * missing file, or "key values mismatch"): CAP octets, the caller's,
 * NUL-terminated, cut at CAP - 1 (IIOP_TLS_WHY_MAX below holds a full
 * reason; NULL or 0: none); "" on success.  Thread-safe (the calling
 * thread's error queue). */
IIOP_API int iiop_tls_client_ctx_why(const char *ca_file, int verify, iiop_tls_ctx **out,
                                     char *why, size_t cap) IIOP_WUR;
IIOP_API int iiop_tls_server_ctx_why(const char *cert_file, const char *key_file,
                                     iiop_tls_ctx **out, char *why, size_t cap) IIOP_WUR;
IIOP_API void iiop_tls_ctx_free(iiop_tls_ctx *c);
/* Run the handshake over the connected transport TCP (taken over: part of
 * the result, and freed on error), within TIMEOUT_MS (0: none); the client
 * checks the server's name HOST (a DNS name, or an IP address checked
 * against the certificate's IP entries; brackets and a zone are stripped)
 * against its certificate unless the context was made with VERIFY 0.  The
 * socket stays non-blocking afterwards: reads and writes wait with poll()
 * outside the lock that serialises the SSL object, so a reader and a
 * writer never block each other.  Errors: CDR_E_TLS, CDR_E_TIMEOUT,
 * CDR_E_IO, CDR_E_NOMEM. */
IIOP_API int iiop_tls_connect(iiop_tls_ctx *c, iiop_transport *tcp, const char *host, int timeout_ms,
                              iiop_transport **out) IIOP_WUR;
IIOP_API int iiop_tls_accept(iiop_tls_ctx *c, iiop_transport *tcp, int timeout_ms,
                             iiop_transport **out) IIOP_WUR;
/* As iiop_tls_connect / iiop_tls_accept, and on an error the reason as
 * text into WHY (CAP octets, the caller's; always NUL-terminated, cut at
 * CAP - 1; IIOP_TLS_WHY_MAX holds any full reason; WHY NULL or CAP 0:
 * none): for a failed certificate verification "certificate verify
 * failed: " and OpenSSL's X509_verify_cert_error_string() (e.g. "unable to
 * get local issuer certificate"), otherwise OpenSSL's queued errors
 * (ERR_error_string_n(), "; " between them), the system error, or
 * "TLS handshake: timed out".  WHY is "" on success.  Thread-safe: the
 * text comes from the calling thread's OpenSSL error queue only. */
#define IIOP_TLS_WHY_MAX 512
IIOP_API int iiop_tls_connect_why(iiop_tls_ctx *c, iiop_transport *tcp, const char *host,
                                  int timeout_ms, iiop_transport **out, char *why,
                                  size_t cap) IIOP_WUR;
IIOP_API int iiop_tls_accept_why(iiop_tls_ctx *c, iiop_transport *tcp, int timeout_ms,
                                 iiop_transport **out, char *why, size_t cap) IIOP_WUR;

#ifdef __cplusplus
}
#endif
#endif
