/* transport.h - the transport constructors of iiop/conn.h with an
 * allocator (internal to libiiop: the client and the server pass theirs).
 *
 * Each behaves as its public namesake, which calls it with NULL, and
 * allocates the transport (a TLS context, and the TLS transports made with
 * it) from A (NULL: cdr_mem_global()).  OpenSSL's own memory is not
 * routed: it is process-wide (CRYPTO_set_mem_functions). */
#ifndef IIOP_TRANSPORT_H
#define IIOP_TRANSPORT_H

#include <iiop/conn.h>
#include "internal.h"

IIOP_HIDDEN int iiop__tcp_connect(const char *host, uint16_t port, int timeout_ms,
                                  const cdr_allocator *a, iiop_transport **out) IIOP_WUR;
IIOP_HIDDEN int iiop__tcp_wrap(int fd, const cdr_allocator *a, iiop_transport **out) IIOP_WUR;
/* Why the calling thread's last iiop__tcp_connect() failed, as a short
 * text into WHY (CAP octets, NUL-terminated, truncated to fit): the system's
 * words for the connect's errno ("Connection refused"), getaddrinfo's for
 * a name that does not resolve ("Name or service not known"), "timed out",
 * or "" when the last connect succeeded or gave no reason. */
IIOP_HIDDEN void iiop__tcp_connect_why(char *why, size_t cap);
IIOP_HIDDEN int iiop__tls_client_ctx(const char *ca_file, int verify, const cdr_allocator *a,
                                     iiop_tls_ctx **out) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_server_ctx(const char *cert_file, const char *key_file,
                                     const cdr_allocator *a, iiop_tls_ctx **out) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_client_ctx_why(const char *ca_file, int verify, const cdr_allocator *a,
                                         iiop_tls_ctx **out, char *why, size_t cap) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_server_ctx_why(const char *cert_file, const char *key_file,
                                         const cdr_allocator *a, iiop_tls_ctx **out, char *why,
                                         size_t cap) IIOP_WUR;

/* What a TLS context is made of (iiop__tls_ctx_new()).  Client: CA_FILE to
 * verify the server with (NULL and VERIFY: OpenSSL's default locations),
 * VERIFY 0 or 1, CERT_FILE/KEY_FILE the certificate presented when the
 * server asks (KEY_FILE NULL: the key is in CERT_FILE; both NULL: none).
 * Server: CERT_FILE and KEY_FILE required (they may be one file), VERIFY
 * an IIOP_TLS_VERIFY_* mode (iiop/orb.h), CA_FILE the CAs client
 * certificates are verified against (required unless VERIFY_NONE).
 * KEY_PASSWORD: the key's passphrase (NULL: none; only used while loading). */
typedef struct iiop__tls_conf {
  const char *ca_file;
  int verify;
  const char *cert_file, *key_file, *key_password;
} iiop__tls_conf;

/* Make a client (SERVER 0) or server context from *CF.  Errors, with the
 * reason into WHY (CAP octets; "" on success): CDR_E_INVALID (a NULL
 * argument, a server without certificate or key, a key file without a
 * certificate file, an unknown verify mode), CDR_E_TLS ("TLS: cannot load
 * <what> FILE: <OpenSSL's queued errors>" for a file OpenSSL cannot read or
 * parse, a wrong or missing password, a key not matching its certificate;
 * a verify mode without CA file), CDR_E_NOMEM. */
IIOP_HIDDEN int iiop__tls_ctx_new(int server, const iiop__tls_conf *cf, const cdr_allocator *a,
                                  iiop_tls_ctx **out, char *why, size_t cap) IIOP_WUR;
/* Whether context C presents a certificate of its own. */
IIOP_HIDDEN int iiop__tls_ctx_has_cert(const iiop_tls_ctx *c);
/* Whether T is a TLS transport (made by iiop_tls_connect/accept). */
IIOP_HIDDEN int iiop__is_tls(const iiop_transport *t);
/* The TLS transport T's peer certificate's subject when it was verified
 * (RFC 2253 one line), allocated from A (the caller frees it with A);
 * NULL: T not TLS, no certificate, not verified, or no memory. */
IIOP_HIDDEN char *iiop__tls_peer_subject(iiop_transport *t, const cdr_allocator *a);
/* The reason of the TLS transport T's first fatal read or write error
 * (OpenSSL's queued errors, a verification error, or the alert the peer
 * sent), into BUF (CAP octets; "" if none, or T not TLS). */
IIOP_HIDDEN void iiop__tls_io_error(iiop_transport *t, char *buf, size_t cap);
/* Whether T is this library's TCP transport (iiop__tcp_readv() applies). */
IIOP_HIDDEN int iiop__is_tcp(const iiop_transport *t);
/* The TCP transport's read (iiop_transport_ops.read: same results and
 * timeouts) as one recvmsg() scattering into IOV[0..N). */
IIOP_HIDDEN long iiop__tcp_readv(iiop_transport *t, struct iovec *iov, int n, int timeout_ms);
/* Octets of its list the calling thread's last failed TCP writev had
 * handed to the kernel (some may not have reached the peer; none after
 * them did).  The TCP writev sets it only when it fails; a caller that
 * wants it sets it to SIZE_MAX ("unknown": other transports leave it so)
 * before the write. */
IIOP_HIDDEN extern _Thread_local size_t iiop__writev_failed_out;

#endif
