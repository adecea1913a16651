#include "config.h"
/* tls.c - the TLS transport over OpenSSL 3 (iiop/conn.h).
 *
 * One SSL object serves a reader and a writer thread at once, and OpenSSL
 * does not allow two threads inside one SSL object.  So every SSL_* call on
 * a connection runs under a mutex, the socket is non-blocking, and a thread
 * that must wait (WANT_READ / WANT_WRITE) waits in poll() with the mutex
 * released.  A blocking socket would let a writer stuck on a full send
 * buffer hold the mutex while the peer, itself stuck writing to us, waits
 * for us to read: both sides would hang.
 *
 * The socket is reached through a small BIO of our own that calls
 * send(MSG_NOSIGNAL) and recv(): OpenSSL's socket BIO uses write(), which
 * raises SIGPIPE on a closed connection, and a library must not change the
 * process's signal dispositions.
 *
 * writev: the pieces are copied into one buffer the transport keeps (up to
 * WBUF_MAX octets) and go out in one SSL_write, so a GIOP header and its
 * body share TLS records; a piece too large for the buffer goes out in its
 * own SSL_write, from the caller's memory. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/orb.h>
#include "internal.h"
#include "transport.h"

#define WBUF_MAX ((size_t)65536)

struct iiop_tls_ctx {
  SSL_CTX *ctx;
  const cdr_allocator *alloc; /* the context and its transports */
  int server;
  int verify;
};

typedef struct tls_transport {
  iiop_transport base;       /* fd: the TCP transport's */
  iiop_transport *tcp;
  const cdr_allocator *alloc;
  SSL *ssl;
  pthread_mutex_t mu;        /* every SSL_* call on ssl */
  int shut;                  /* atomic: shutdown() ran */
  int fatal;                 /* under mu: a fatal SSL error happened (no SSL_shutdown then) */
  int wpending;              /* under mu: an SSL_write waits to be retried */
  int established;           /* the handshake completed */
  uint8_t *wbuf;             /* writev's staging buffer (writers are serialised) */
  size_t wcap;
  char err[IIOP_TLS_WHY_MAX];/* under mu: the reason of the first fatal read/write error */
} tls_transport;

/* ---------------------------------------------------------------- the socket BIO */

static BIO_METHOD *bio_method;
static pthread_once_t bio_once = PTHREAD_ONCE_INIT;

static int bio_fd(BIO *b) { return (int)(intptr_t)BIO_get_data(b); }

static int bio_write(BIO *b, const char *buf, int len)
{
  BIO_clear_retry_flags(b);
  for (;;) {
    ssize_t w = send(bio_fd(b), buf, (size_t)len, MSG_NOSIGNAL);
    if (w >= 0)
      return (int)w;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_write(b);
    return -1;
  }
}

static int bio_read(BIO *b, char *buf, int len)
{
  BIO_clear_retry_flags(b);
  for (;;) {
    ssize_t r = recv(bio_fd(b), buf, (size_t)len, 0);
    if (r >= 0)
      return (int)r;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_read(b);
    return -1;
  }
}

static int bio_puts(BIO *b, const char *s) { return bio_write(b, s, (int)strlen(s)); }

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
  switch (cmd) {
  case BIO_CTRL_FLUSH:
    return 1;
  case BIO_C_GET_FD:
    if (ptr)
      *(int *)ptr = bio_fd(b);
    return bio_fd(b);
  default:
    return 0;
  }
}

static int bio_create(BIO *b)
{
  BIO_set_init(b, 1);
  return 1;
}

static int bio_destroy(BIO *b) { return b != NULL; }

static void bio_method_init(void)
{
  BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                               "iiop socket");
  if (!m)
    return;
  if (!BIO_meth_set_write(m, bio_write) || !BIO_meth_set_read(m, bio_read)
      || !BIO_meth_set_puts(m, bio_puts) || !BIO_meth_set_ctrl(m, bio_ctrl)
      || !BIO_meth_set_create(m, bio_create) || !BIO_meth_set_destroy(m, bio_destroy)) {
    BIO_meth_free(m);
    return;
  }
  bio_method = m;
}

static BIO *bio_new(int fd)
{
  pthread_once(&bio_once, bio_method_init);
  if (!bio_method)
    return NULL;
  BIO *b = BIO_new(bio_method);
  if (b)
    BIO_set_data(b, (void *)(intptr_t)fd);
  return b;
}

/* ---------------------------------------------------------------- contexts */

static int ctx_common(SSL_CTX *ctx)
{
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

static int ctx_new(SSL_CTX *ctx, int server, int verify, const cdr_allocator *a,
                   iiop_tls_ctx **out)
{
  a = iiop__alloc_or_global(a);
  iiop_tls_ctx *c = iiop__malloc(a, sizeof *c);
  if (!c) {
    SSL_CTX_free(ctx);
    return CDR_E_NOMEM;
  }
  c->ctx = ctx;
  c->alloc = a;
  c->server = server;
  c->verify = verify;
  *out = c;
  return CDR_OK;
}

static void tls_why(char *why, size_t cap, SSL *ssl, int e, int en, const char *what);

/* The passphrase callback: the configured password (userdata, NUL-terminated)
 * or none -- never OpenSSL's default, which would prompt on the terminal. */
static int pass_cb(char *buf, int size, int rwflag, void *ud)
{
  (void)rwflag;
  const char *pw = ud;
  if (!pw || size <= 0)
    return 0;
  size_t n = strlen(pw);
  if (n > (size_t)size)
    return 0;
  memcpy(buf, pw, n);
  return (int)n;
}

/* "TLS: cannot load WHAT FILE: <OpenSSL's reason>" into WHY, from the queue. */
static void load_why(char *why, size_t cap, const char *what, const char *file)
{
  char r[IIOP_TLS_WHY_MAX];
  tls_why(r, sizeof r, NULL, SSL_ERROR_SSL, 0, "no reason given");
  if (why && cap)
    snprintf(why, cap, "TLS: cannot load %s %s: %s", what, file, r);
}

int iiop__tls_ctx_new(int server, const iiop__tls_conf *cf, const cdr_allocator *a,
                      iiop_tls_ctx **out, char *why, size_t cap)
{
  if (why && cap)
    why[0] = 0;
  if (!cf || !out || (server && (!cf->cert_file || !cf->key_file))
      || (cf->key_file && !cf->cert_file)) {
    if (why && cap)
      snprintf(why, cap, "TLS: %s", !cf || !out ? "invalid arguments"
                                    : server ? "no certificate or key file"
                                             : "a key file without a certificate file");
    return CDR_E_INVALID;
  }
  if (server && cf->verify != IIOP_TLS_VERIFY_NONE && cf->verify != IIOP_TLS_VERIFY_PEER
      && cf->verify != IIOP_TLS_VERIFY_PEER_FAIL) {
    if (why && cap)
      snprintf(why, cap, "TLS: unknown client verify mode %d", cf->verify);
    return CDR_E_INVALID;
  }
  if (server && cf->verify != IIOP_TLS_VERIFY_NONE && !cf->ca_file) {
    if (why && cap)
      snprintf(why, cap, "TLS: verifying clients needs a CA file (tls_ca_file)");
    return CDR_E_TLS;
  }
  ERR_clear_error();
  SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx) {
    load_why(why, cap, "the", "TLS context");
    return CDR_E_TLS;
  }
  if (!ctx_common(ctx)) {
    load_why(why, cap, "the", "TLS protocol settings");
    goto fail;
  }
  if (cf->ca_file) {
    if (SSL_CTX_load_verify_locations(ctx, cf->ca_file, NULL) != 1) {
      load_why(why, cap, "the CA file", cf->ca_file);
      goto fail;
    }
    if (server) {
      STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(cf->ca_file);
      if (names) /* the CAs a client may choose its certificate by */
        SSL_CTX_set_client_CA_list(ctx, names);
      ERR_clear_error();
    }
  } else if (!server && cf->verify && SSL_CTX_set_default_verify_paths(ctx) != 1) {
    load_why(why, cap, "the", "default CA locations");
    goto fail;
  }
  /* The key may be encrypted: the callback answers with the password, or
   * with none (a clear error instead of a terminal prompt). */
  SSL_CTX_set_default_passwd_cb(ctx, pass_cb);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)cf->key_password);
  if (cf->cert_file) {
    const char *key = cf->key_file ? cf->key_file : cf->cert_file;
    if (SSL_CTX_use_certificate_chain_file(ctx, cf->cert_file) != 1) {
      load_why(why, cap, "the certificate file", cf->cert_file);
      goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
      load_why(why, cap, cf->key_password ? "the key file (with the password given)"
                                          : "the key file", key);
      goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      load_why(why, cap, "a key matching the certificate: key file", key);
      goto fail;
    }
  }
  /* The password is not kept past loading. */
  SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
  int verify;
  if (server) {
    int mode = cf->verify == IIOP_TLS_VERIFY_NONE ? SSL_VERIFY_NONE
               : cf->verify == IIOP_TLS_VERIFY_PEER
                 ? SSL_VERIFY_PEER
                 : SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, NULL);
    SSL_CTX_set_num_tickets(ctx, 0); /* no resumption: spare the client reading tickets */
    verify = cf->verify;
  } else {
    SSL_CTX_set_verify(ctx, cf->verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    verify = cf->verify != 0;
  }
  ERR_clear_error();
  return ctx_new(ctx, server, verify, a, out);

fail:
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return CDR_E_TLS;
}

int iiop_tls_client_ctx(const char *ca_file, int verify, iiop_tls_ctx **out)
{
  return iiop__tls_client_ctx_why(ca_file, verify, NULL, out, NULL, 0);
}

int iiop_tls_client_ctx_why(const char *ca_file, int verify, iiop_tls_ctx **out, char *why,
                            size_t cap)
{
  return iiop__tls_client_ctx_why(ca_file, verify, NULL, out, why, cap);
}

int iiop__tls_client_ctx(const char *ca_file, int verify, const cdr_allocator *a,
                         iiop_tls_ctx **out)
{
  return iiop__tls_client_ctx_why(ca_file, verify, a, out, NULL, 0);
}

int iiop__tls_client_ctx_why(const char *ca_file, int verify, const cdr_allocator *a,
                             iiop_tls_ctx **out, char *why, size_t cap)
{
  iiop__tls_conf cf = { .ca_file = ca_file, .verify = verify };
  return iiop__tls_ctx_new(0, &cf, a, out, why, cap);
}

int iiop_tls_server_ctx(const char *cert_file, const char *key_file, iiop_tls_ctx **out)
{
  return iiop__tls_server_ctx_why(cert_file, key_file, NULL, out, NULL, 0);
}

int iiop_tls_server_ctx_why(const char *cert_file, const char *key_file, iiop_tls_ctx **out,
                            char *why, size_t cap)
{
  return iiop__tls_server_ctx_why(cert_file, key_file, NULL, out, why, cap);
}

int iiop__tls_server_ctx(const char *cert_file, const char *key_file, const cdr_allocator *a,
                         iiop_tls_ctx **out)
{
  return iiop__tls_server_ctx_why(cert_file, key_file, a, out, NULL, 0);
}

int iiop__tls_server_ctx_why(const char *cert_file, const char *key_file,
                             const cdr_allocator *a, iiop_tls_ctx **out, char *why, size_t cap)
{
  iiop__tls_conf cf = { .cert_file = cert_file, .key_file = key_file };
  return iiop__tls_ctx_new(1, &cf, a, out, why, cap);
}

int iiop__tls_ctx_has_cert(const iiop_tls_ctx *c)
{
  return c && SSL_CTX_get0_certificate(c->ctx) != NULL;
}

void iiop_tls_ctx_free(iiop_tls_ctx *c)
{
  if (!c)
    return;
  SSL_CTX_free(c->ctx);
  iiop__free(c->alloc, c);
}

/* ---------------------------------------------------------------- I/O */

/* Whether the last SSL error is fatal to the connection. */
static int is_fatal(int e) { return e == SSL_ERROR_SSL || e == SSL_ERROR_SYSCALL; }

static int sys_status(int err)
{
  if (err == EPIPE || err == ECONNRESET || err == ECONNABORTED || err == ENOTCONN)
    return CDR_E_CLOSED;
  return CDR_E_IO;
}

/* Under t->mu: a fatal error E (errno EN) in WHAT; the first one's reason
 * is kept (iiop__tls_io_error()). */
static void io_fatal(tls_transport *t, int e, int en, const char *what)
{
  t->fatal = 1;
  if (!t->err[0])
    tls_why(t->err, sizeof t->err, t->ssl, e, en, what);
  else
    ERR_clear_error();
}

/* A write failed because the peer reset or closed the connection: the
 * peer may have sent an alert before it closed -- a TLS 1.3 server that
 * refuses the client's certificate does so after the client's handshake
 * has ended, and omniORB's then resets the connection -- and the socket
 * still holds it after the reset.  Read what is there without waiting (at
 * most 32 KiB; data is dropped: the connection is lost anyway); an
 * error OpenSSL reports (the alert, "tlsv13 alert certificate required")
 * becomes the connection's reason (iiop__tls_io_error()) and 1 is
 * returned; else 0, the reason as it was. */
static int peer_alert(tls_transport *t)
{
  int got = 0;
  pthread_mutex_lock(&t->mu);
  for (int k = 0; t->established && k < 64; k++) {
    uint8_t buf[512];
    size_t n = 0;
    ERR_clear_error();
    if (SSL_read_ex(t->ssl, buf, sizeof buf, &n) == 1)
      continue;
    if (SSL_get_error(t->ssl, 0) == SSL_ERROR_SSL && ERR_peek_error() != 0) {
      tls_why(t->err, sizeof t->err, NULL, SSL_ERROR_SSL, 0, "TLS read");
      got = 1;
    }
    break;
  }
  ERR_clear_error();
  pthread_mutex_unlock(&t->mu);
  return got;
}

/* Write LEN octets at P (one SSL_write, retried as OpenSSL requires). */
static int write_all(tls_transport *t, const uint8_t *p, size_t len, int64_t deadline)
{
  while (len > 0) {
    size_t w = 0;
    pthread_mutex_lock(&t->mu);
    ERR_clear_error();
    int ok = SSL_write_ex(t->ssl, p, len, &w);
    int e = ok ? SSL_ERROR_NONE : SSL_get_error(t->ssl, 0);
    int en = errno;
    t->wpending = e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ;
    if (is_fatal(e))
      io_fatal(t, e, en, "TLS write");
    pthread_mutex_unlock(&t->mu);
    if (ok) {
      p += w;
      len -= w;
      continue;
    }
    if (__atomic_load_n(&t->shut, __ATOMIC_ACQUIRE))
      return CDR_E_CLOSED;
    int rc;
    switch (e) {
    case SSL_ERROR_WANT_WRITE:
      rc = iiop__poll(t->base.fd, POLLOUT, deadline >= 0 ? iiop__remaining(deadline) : -1);
      break;
    case SSL_ERROR_WANT_READ:
      rc = iiop__poll(t->base.fd, POLLIN, deadline >= 0 ? iiop__remaining(deadline) : -1);
      break;
    case SSL_ERROR_ZERO_RETURN:
      return CDR_E_CLOSED;
    case SSL_ERROR_SYSCALL:
      /* reset or closed: the peer's alert, where it sent one, says why */
      rc = sys_status(en);
      return rc == CDR_E_CLOSED && peer_alert(t) ? CDR_E_TLS : rc;
    default:
      return CDR_E_TLS;
    }
    if (rc != CDR_OK)
      return rc;
  }
  return CDR_OK;
}

static int tls_writev(iiop_transport *tp, const struct iovec *iov, int n, int timeout_ms)
{
  tls_transport *t = (tls_transport *)tp;
  int64_t deadline = timeout_ms >= 0 ? iiop__now_ms() + timeout_ms : -1;
  if (n == 1)
    return write_all(t, iov[0].iov_base, iov[0].iov_len, deadline);
  size_t total = 0;
  for (int k = 0; k < n; k++)
    total += iov[k].iov_len;
  size_t want = total < WBUF_MAX ? total : WBUF_MAX;
  if (t->wcap < want) {
    uint8_t *nb = iiop__malloc(t->alloc, want);
    if (nb) {
      iiop__free(t->alloc, t->wbuf);
      t->wbuf = nb;
      t->wcap = want;
    }
  }
  size_t used = 0;
  int rc = CDR_OK;
  for (int k = 0; k < n && rc == CDR_OK; k++) {
    const uint8_t *p = iov[k].iov_base;
    size_t len = iov[k].iov_len;
    if (len <= t->wcap - used) {
      memcpy(t->wbuf + used, p, len);
      used += len;
      continue;
    }
    if (used) {
      rc = write_all(t, t->wbuf, used, deadline);
      used = 0;
    }
    if (rc != CDR_OK)
      break;
    if (len <= t->wcap / 2) {
      memcpy(t->wbuf, p, len);
      used = len;
    } else {
      rc = write_all(t, p, len, deadline);
    }
  }
  if (rc == CDR_OK && used)
    rc = write_all(t, t->wbuf, used, deadline);
  return rc;
}

static long tls_read(iiop_transport *tp, void *buf, size_t len, int timeout_ms)
{
  tls_transport *t = (tls_transport *)tp;
  int64_t deadline = timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
  for (;;) {
    size_t got = 0;
    pthread_mutex_lock(&t->mu);
    ERR_clear_error();
    int ok = SSL_read_ex(t->ssl, buf, len, &got);
    int e = ok ? SSL_ERROR_NONE : SSL_get_error(t->ssl, 0);
    int en = errno;
    if (is_fatal(e) && !(e == SSL_ERROR_SYSCALL && en == 0))
      io_fatal(t, e, en, "TLS read");
    else if (is_fatal(e))
      t->fatal = 1;
    pthread_mutex_unlock(&t->mu);
    if (ok)
      return (long)got;
    int rc;
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      if (__atomic_load_n(&t->shut, __ATOMIC_ACQUIRE))
        return 0;
      if (timeout_ms == 0)
        return CDR_E_TIMEOUT;
      rc = iiop__poll(t->base.fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                      deadline >= 0 ? iiop__remaining(deadline) : -1);
      if (rc != CDR_OK)
        return rc;
      break;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    case SSL_ERROR_SYSCALL:
      if (en == 0 || __atomic_load_n(&t->shut, __ATOMIC_ACQUIRE))
        return 0;
      return sys_status(en);
    default:
      if (__atomic_load_n(&t->shut, __ATOMIC_ACQUIRE))
        return 0;
      return CDR_E_TLS;
    }
  }
}

static void tls_shutdown(iiop_transport *tp)
{
  tls_transport *t = (tls_transport *)tp;
  if (__atomic_exchange_n(&t->shut, 1, __ATOMIC_ACQ_REL) != 0)
    return;
  /* close_notify, best effort and without waiting; not in the middle of a
   * record that a writer still has to finish, nor after a fatal error. */
  pthread_mutex_lock(&t->mu);
  if (t->established && !t->fatal && !t->wpending) {
    ERR_clear_error();
    (void)SSL_shutdown(t->ssl);
    ERR_clear_error();
  }
  pthread_mutex_unlock(&t->mu);
  t->tcp->ops->shutdown(t->tcp);
}

static void tls_free(iiop_transport *tp)
{
  tls_transport *t = (tls_transport *)tp;
  if (!t)
    return;
  SSL_free(t->ssl);
  t->tcp->ops->free(t->tcp);
  iiop__free(t->alloc, t->wbuf);
  pthread_mutex_destroy(&t->mu);
  iiop__free(t->alloc, t);
}

static const iiop_transport_ops tls_ops = { tls_writev, tls_read, tls_shutdown, tls_free };

/* ---------------------------------------------------------------- handshake */

/* Append S to WHY (capacity CAP, NUL-terminated), "; " between pieces. */
static void why_add(char *why, size_t cap, const char *s)
{
  size_t n = strlen(why);
  if (n + 1 >= cap)
    return;
  snprintf(why + n, cap - n, "%s%s", n ? "; " : "", s);
}

/* The reason a TLS step failed, into WHY (CAP octets, NULL: none): the
 * peer certificate's verification error (X509_verify_cert_error_string)
 * when verification failed, else OpenSSL's queued errors
 * (ERR_error_string_n, oldest first), else the system error EN of an
 * SSL_ERROR_SYSCALL, else WHAT.  The queue is emptied. */
static void tls_why(char *why, size_t cap, SSL *ssl, int e, int en, const char *what)
{
  if (!why || cap == 0) {
    ERR_clear_error();
    return;
  }
  why[0] = 0;
  long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
  if (v != X509_V_OK) {
    snprintf(why, cap, "certificate verify failed: %s", X509_verify_cert_error_string(v));
    ERR_clear_error();
    return;
  }
  unsigned long err;
  while ((err = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(err, buf, sizeof buf);
    why_add(why, cap, buf);
  }
  if (why[0])
    return;
  if (e == SSL_ERROR_SYSCALL && en != 0)
    snprintf(why, cap, "%s: %s", what, strerror(en));
  else if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN)
    snprintf(why, cap, "%s: the peer closed the connection", what);
  else
    snprintf(why, cap, "%s", what);
}

static int handshake(tls_transport *t, int timeout_ms, char *why, size_t cap)
{
  int64_t deadline = iiop__deadline(timeout_ms);
  for (;;) {
    ERR_clear_error();
    int r = SSL_do_handshake(t->ssl);
    if (r == 1) {
      t->established = 1;
      return CDR_OK;
    }
    int e = SSL_get_error(t->ssl, r);
    int en = errno;
    int rc;
    if (e == SSL_ERROR_WANT_READ)
      rc = iiop__poll(t->base.fd, POLLIN, iiop__remaining(deadline));
    else if (e == SSL_ERROR_WANT_WRITE)
      rc = iiop__poll(t->base.fd, POLLOUT, iiop__remaining(deadline));
    else if (e == SSL_ERROR_SYSCALL && en != 0) {
      tls_why(why, cap, t->ssl, e, en, "TLS handshake");
      return CDR_E_IO;
    } else {
      tls_why(why, cap, t->ssl, e, en, "TLS handshake failed");
      return CDR_E_TLS;                 /* verification failed, peer closed, bad record */
    }
    if (rc != CDR_OK) {
      if (why && cap)
        snprintf(why, cap, "TLS handshake: %s", rc == CDR_E_TIMEOUT ? "timed out" : cdr_strerror(rc));
      return rc;
    }
  }
}

/* HOST without IPv6 brackets or zone, into BUF. */
static const char *bare_host(const char *host, char *buf, size_t cap)
{
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
    host++;
    n -= 2;
  }
  if (n >= cap)
    return NULL;
  memcpy(buf, host, n);
  buf[n] = 0;
  char *z = strchr(buf, '%');
  if (z && strchr(buf, ':'))
    *z = 0;
  return buf;
}

/* After a server-side handshake failure (the alert is sent): stop sending,
 * and read and drop what the client still sends for a moment (at most
 * LINGER_MS, LINGER_MAX octets) before the socket is closed.  Closed with
 * unread data at once, the socket would answer with a reset, and the
 * client -- whose TLS 1.3 handshake had already ended, so it is writing its
 * first request -- would see "connection reset" instead of the alert that
 * says why (e.g. "certificate required"). */
#define LINGER_MS 250
#define LINGER_MAX 65536
static void linger_drain(int fd)
{
  (void)shutdown(fd, SHUT_WR);
  int64_t deadline = iiop__now_ms() + LINGER_MS;
  size_t total = 0;
  char buf[4096];
  while (total < LINGER_MAX) {
    int left = (int)(deadline - iiop__now_ms());
    if (left <= 0)
      break;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n = poll(&p, 1, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    ssize_t r = recv(fd, buf, sizeof buf, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (r <= 0)
      break;
    total += (size_t)r;
  }
}

static int tls_start(iiop_tls_ctx *c, iiop_transport *tcp, const char *host, int timeout_ms,
                     int server, iiop_transport **out, char *why, size_t cap)
{
  if (why && cap)
    why[0] = 0;
  if (!c || !tcp || !out || c->server != server) {
    if (why && cap)
      snprintf(why, cap, "%s", !c ? "no TLS context" : "invalid TLS arguments");
    if (tcp)
      tcp->ops->free(tcp);
    return CDR_E_INVALID;
  }
  tls_transport *t = iiop__malloc(c->alloc, sizeof *t);
  if (!t) {
    tcp->ops->free(tcp);
    return CDR_E_NOMEM;
  }
  memset(t, 0, sizeof *t);
  t->alloc = c->alloc;
  t->base.ops = &tls_ops;
  t->base.fd = tcp->fd;
  t->tcp = tcp;
  pthread_mutex_init(&t->mu, NULL);

  int rc = CDR_E_NOMEM;
  int fl = fcntl(tcp->fd, F_GETFL);
  if (fl < 0 || fcntl(tcp->fd, F_SETFL, fl | O_NONBLOCK) != 0) {
    rc = CDR_E_IO;
    goto fail;
  }
  t->ssl = SSL_new(c->ctx);
  BIO *b = t->ssl ? bio_new(tcp->fd) : NULL;
  if (!b)
    goto fail;
  SSL_set_bio(t->ssl, b, b);
  if (server) {
    SSL_set_accept_state(t->ssl);
  } else {
    SSL_set_connect_state(t->ssl);
    char name[256];
    const char *h = host ? bare_host(host, name, sizeof name) : NULL;
    if (host && !h) {
      rc = CDR_E_INVALID;
      goto fail;
    }
    unsigned char ip[16];
    int is_ip = h && (inet_pton(AF_INET, h, ip) == 1 || inet_pton(AF_INET6, h, ip) == 1);
    if (h && !is_ip && !SSL_set_tlsext_host_name(t->ssl, h))
      goto tls_fail;
    if (c->verify && h) {
      SSL_set_hostflags(t->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), h)
                     : SSL_set1_host(t->ssl, h);
      if (!ok)
        goto tls_fail;
    }
  }
  rc = handshake(t, timeout_ms, why, cap);
  if (rc != CDR_OK) {
    if (server && rc == CDR_E_TLS)
      linger_drain(tcp->fd);
    goto fail;
  }
  *out = &t->base;
  return CDR_OK;

tls_fail:
  rc = CDR_E_TLS;
  tls_why(why, cap, NULL, SSL_ERROR_SSL, 0, "TLS setup failed");
fail:
  if (why && cap && !why[0])
    snprintf(why, cap, "TLS setup: %s", cdr_strerror(rc));
  ERR_clear_error();
  tls_free(&t->base);
  return rc;
}

int iiop_tls_connect(iiop_tls_ctx *c, iiop_transport *tcp, const char *host, int timeout_ms,
                     iiop_transport **out)
{
  return tls_start(c, tcp, host, timeout_ms, 0, out, NULL, 0);
}

int iiop_tls_connect_why(iiop_tls_ctx *c, iiop_transport *tcp, const char *host, int timeout_ms,
                         iiop_transport **out, char *why, size_t cap)
{
  return tls_start(c, tcp, host, timeout_ms, 0, out, why, cap);
}

int iiop_tls_accept(iiop_tls_ctx *c, iiop_transport *tcp, int timeout_ms, iiop_transport **out)
{
  return tls_start(c, tcp, NULL, timeout_ms, 1, out, NULL, 0);
}

int iiop_tls_accept_why(iiop_tls_ctx *c, iiop_transport *tcp, int timeout_ms, iiop_transport **out,
                        char *why, size_t cap)
{
  return tls_start(c, tcp, NULL, timeout_ms, 1, out, why, cap);
}

int iiop__is_tls(const iiop_transport *t) { return t && t->ops == &tls_ops; }

char *iiop__tls_peer_subject(iiop_transport *tp, const cdr_allocator *a)
{
  if (!iiop__is_tls(tp))
    return NULL;
  tls_transport *t = (tls_transport *)tp;
  char *out = NULL;
  pthread_mutex_lock(&t->mu);
  X509 *x = SSL_get0_peer_certificate(t->ssl);
  if (x && SSL_get_verify_result(t->ssl) == X509_V_OK) {
    BIO *m = BIO_new(BIO_s_mem());
    if (m && X509_NAME_print_ex(m, X509_get_subject_name(x), 0, XN_FLAG_RFC2253) >= 0) {
      char *p;
      long n = BIO_get_mem_data(m, &p);
      if (n >= 0 && (out = iiop__malloc(iiop__alloc_or_global(a), (size_t)n + 1)) != NULL) {
        memcpy(out, p, (size_t)n);
        out[n] = 0;
      }
    }
    BIO_free(m);
  }
  ERR_clear_error();
  pthread_mutex_unlock(&t->mu);
  return out;
}

void iiop__tls_io_error(iiop_transport *tp, char *buf, size_t cap)
{
  if (!buf || !cap)
    return;
  buf[0] = 0;
  if (!iiop__is_tls(tp))
    return;
  tls_transport *t = (tls_transport *)tp;
  pthread_mutex_lock(&t->mu);
  snprintf(buf, cap, "%s", t->err);
  pthread_mutex_unlock(&t->mu);
}
