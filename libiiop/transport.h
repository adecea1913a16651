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
IIOP_HIDDEN int iiop__tls_client_ctx(const char *ca_file, int verify, const cdr_allocator *a,
                                     iiop_tls_ctx **out) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_server_ctx(const char *cert_file, const char *key_file,
                                     const cdr_allocator *a, iiop_tls_ctx **out) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_client_ctx_why(const char *ca_file, int verify, const cdr_allocator *a,
                                         iiop_tls_ctx **out, char *why, size_t cap) IIOP_WUR;
IIOP_HIDDEN int iiop__tls_server_ctx_why(const char *cert_file, const char *key_file,
                                         const cdr_allocator *a, iiop_tls_ctx **out, char *why,
                                         size_t cap) IIOP_WUR;

/* Whether T is this library's TCP transport (iiop__tcp_readv() applies). */
IIOP_HIDDEN int iiop__is_tcp(const iiop_transport *t);
/* The TCP transport's read (iiop_transport_ops.read: same results and
 * timeouts) as one recvmsg() scattering into IOV[0..N). */
IIOP_HIDDEN long iiop__tcp_readv(iiop_transport *t, struct iovec *iov, int n, int timeout_ms);

#endif
