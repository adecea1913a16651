#include "config.h"
/* transport.c - the TCP transport (iiop/conn.h): connect with a deadline to
 * every address a name resolves to, gather writes that survive short
 * writes and EINTR, reads with a timeout, shutdown that wakes a blocked
 * reader.
 *
 * The descriptor stays blocking.  Writes use sendmsg(MSG_DONTWAIT |
 * MSG_NOSIGNAL): one system call while the socket buffer has room, a poll()
 * for POLLOUT (bounded by the write's deadline) only when it is full, and
 * never SIGPIPE.  Reads poll first when a timeout applies, except right
 * after a read that filled the caller's buffer (more is then probably
 * waiting and recv(MSG_DONTWAIT) saves the poll), and except where the
 * socket's receive timeout stands in for the poll (rcvtimeo_fits()). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include "internal.h"
#include "transport.h"

/* ---------------------------------------------------------------- system calls
 * recv(), recvmsg() and sendmsg() as bare system calls: libc's wrappers make each one
 * a thread cancellation point, switching asynchronous cancellation on and
 * off around the call (some 60 instructions, a fifth of a small call's
 * reading and writing).  libiiop never cancels its threads, and a thread
 * cancelled inside a call would leave its connection's locks held anyway,
 * so nothing relies on that.  On x86-64 Linux the syscall instruction
 * inline, elsewhere on Linux syscall(); other systems, and sanitizer builds
 * (ThreadSanitizer orders threads through its send/recv interceptors), use
 * the wrappers. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define IIOP_WRAPPED_IO 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) \
  || __has_feature(memory_sanitizer)
#define IIOP_WRAPPED_IO 1
#endif
#endif

#if defined(__linux__) && defined(__x86_64__) && !defined(IIOP_WRAPPED_IO)
static inline long sys6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
  long ret;
  register long r10 __asm__("r10") = a4;
  register long r8 __asm__("r8") = a5;
  register long r9 __asm__("r9") = a6;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  if (ret < 0 && ret > -4096) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}
/* Three arguments: r8-r10 stay free for the caller's values. */
static inline long sys3(long n, long a1, long a2, long a3)
{
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a1), "S"(a2), "d"(a3)
                   : "rcx", "r11", "memory");
  if (ret < 0 && ret > -4096) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}
static inline ssize_t sys_sendmsg(int fd, const struct msghdr *m, int flags)
{
  return (ssize_t)sys3(SYS_sendmsg, fd, (long)m, flags);
}
static inline ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
  return (ssize_t)sys6(SYS_recvfrom, fd, (long)buf, (long)len, flags, 0, 0);
}
static inline ssize_t sys_recvmsg(int fd, struct msghdr *m, int flags)
{
  return (ssize_t)sys6(SYS_recvmsg, fd, (long)m, flags, 0, 0, 0);
}
#elif defined(__linux__) && defined(SYS_recvfrom) && defined(SYS_sendmsg) && defined(SYS_recvmsg) \
  && !defined(IIOP_WRAPPED_IO)
static inline ssize_t sys_sendmsg(int fd, const struct msghdr *m, int flags)
{
  return (ssize_t)syscall(SYS_sendmsg, fd, m, flags);
}
static inline ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
  return (ssize_t)syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}
static inline ssize_t sys_recvmsg(int fd, struct msghdr *m, int flags)
{
  return (ssize_t)syscall(SYS_recvmsg, fd, m, flags);
}
#else
#define sys_sendmsg sendmsg
#define sys_recv recv
#define sys_recvmsg recvmsg
#endif

/* ---------------------------------------------------------------- TCP transport */

typedef struct tcp_transport {
  iiop_transport base;
  const cdr_allocator *alloc;
  int shut;                  /* atomic: shutdown() ran */
  int full;                  /* the last read filled its buffer: try before polling */
  int rcvtimeo;              /* the fd's SO_RCVTIMEO in ms (0: none set) */
} tcp_transport;

/* errno after a failed send or recv, as a status. */
static int io_status(int e)
{
  switch (e) {
  case EPIPE:
  case ECONNRESET:
  case ECONNABORTED:
  case ENOTCONN:
    return CDR_E_CLOSED;
  case ETIMEDOUT:
    return CDR_E_TIMEOUT;
  default:
    return CDR_E_IO;
  }
}

/* The most iovecs one sendmsg takes: IOV_MAX (Linux's UIO_MAXIOV, 1024;
 * POSIX guarantees 16), so that a message cut into many small GIOP
 * Fragments (1 KiB ones: 130 iovecs for 64 KiB) is one system call, not
 * one per 64 iovecs.  The retry loop below copies the list (it must
 * adjust the first entry) and does so in batches of IOV_BATCH. */
#if defined(IOV_MAX) && IOV_MAX > 0
#define IOV_WHOLE IOV_MAX
#elif defined(UIO_MAXIOV)
#define IOV_WHOLE UIO_MAXIOV
#else
#define IOV_WHOLE 16
#endif
#define IOV_BATCH (IOV_WHOLE < 64 ? IOV_WHOLE : 64)

_Thread_local size_t iiop__writev_failed_out = SIZE_MAX;

/* RC, an error of a write of IOV[0..N) (TOTAL octets) that left the
 * entries P[0..K) and IOV[NEXT..N) unwritten: the octets out before it
 * into iiop__writev_failed_out. */
static __attribute__((noinline, cold)) int tcp_write_failed(int rc, const struct iovec *iov, int n,
                                                            int next, const struct iovec *p,
                                                            int k)
{
  size_t total = 0, left = 0;
  for (int j = 0; j < n; j++)
    total += iov[j].iov_len;
  for (int j = 0; j < k; j++)
    left += p[j].iov_len;
  for (int j = next; j < n; j++)
    left += iov[j].iov_len;
  iiop__writev_failed_out = total - left;
  return rc;
}

static __attribute__((noinline)) int tcp_writev_rest(iiop_transport *t, const struct iovec *iov,
                                                     int n, size_t done, int timeout_ms);

/* The common case, a list of at most IOV_WHOLE entries written whole by
 * the first sendmsg, touches neither the clock nor a copy of the list (and
 * has no frame for them: the rest is tcp_writev_rest()); a partial write
 * or EAGAIN goes on there, from where the first try stopped, the deadline
 * counted from then (the try never blocks). */
static int tcp_writev(iiop_transport *t, const struct iovec *iov, int n, int timeout_ms)
{
  size_t done = 0;                    /* octets of IOV the first try wrote */
  if (__builtin_expect(n > 0 && n <= IOV_WHOLE, 1)) {
    size_t total = iov[0].iov_len;
    for (int k = 1; k < n; k++)
      total += iov[k].iov_len;
    if (total == 0)
      return CDR_OK;
    struct msghdr mh = { 0 };
    mh.msg_iov = (struct iovec *)iov; /* sendmsg does not write it */
    mh.msg_iovlen = (size_t)n;
    ssize_t w = sys_sendmsg(t->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (__builtin_expect(w >= 0 && (size_t)w == total, 1))
      return CDR_OK;
    if (w >= 0)
      done = (size_t)w;
    else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return tcp_write_failed(io_status(errno), iov, n, n, iov, n);  /* none out */
  }
  return tcp_writev_rest(t, iov, n, done, timeout_ms);
}

/* The rest of tcp_writev(): IOV's N entries written in batches of
 * IOV_BATCH, DONE octets of IOV out already (the first try may have
 * written more than one batch holds). */
static int tcp_writev_rest(iiop_transport *t, const struct iovec *iov, int n, size_t done,
                           int timeout_ms)
{
  int64_t deadline = timeout_ms >= 0 ? iiop__now_ms() + timeout_ms : -1;
  struct iovec v[IOV_BATCH];
  int next = 0;                       /* first entry of IOV not yet copied into V */
  while (next < n) {
    /* The entries the first try wrote whole (it may have written more
     * than one batch holds), then the rest in batches. */
    while (next < n && done >= iov[next].iov_len) {
      done -= iov[next].iov_len;
      next++;
    }
    if (next == n)
      break;
    int k = n - next < IOV_BATCH ? n - next : IOV_BATCH;
    memcpy(v, iov + next, (size_t)k * sizeof *v);
    next += k;
    struct iovec *p = v;
    size_t left = done;
    done = 0;
    for (;;) {
      while (k > 0 && left >= p->iov_len) {
        left -= p->iov_len;
        p++;
        k--;
      }
      if (k > 0) {
        p->iov_base = (char *)p->iov_base + left;
        p->iov_len -= left;
      }
      if (k == 0)
        break;
      struct msghdr mh = { 0 };
      mh.msg_iov = p;
      mh.msg_iovlen = (size_t)k;
      ssize_t w = sys_sendmsg(t->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
      left = 0;
      if (w < 0) {
        if (errno == EINTR)
          continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
          return tcp_write_failed(io_status(errno), iov, n, next, p, k);
        if (__atomic_load_n(&((tcp_transport *)t)->shut, __ATOMIC_ACQUIRE))
          return tcp_write_failed(CDR_E_CLOSED, iov, n, next, p, k);
        int rc = iiop__poll(t->fd, POLLOUT, deadline >= 0 ? iiop__remaining(deadline) : -1);
        if (rc != CDR_OK)
          return tcp_write_failed(rc, iov, n, next, p, k);
        continue;
      }
      left = (size_t)w;
    }
  }
  return CDR_OK;
}

static __attribute__((noinline)) long tcp_read_timed(iiop_transport *t, void *buf, size_t len,
                                                     int timeout_ms);

/* No timeout: one blocking recv, the loop (EINTR, timeouts) apart. */
static long tcp_read(iiop_transport *t, void *buf, size_t len, int timeout_ms)
{
  if (timeout_ms < 0) {
    ssize_t r = sys_recv(t->fd, buf, len, 0);
    if (r >= 0) {
      ((tcp_transport *)t)->full = (size_t)r == len;
      return (long)r;
    }
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return io_status(errno);       /* as the loop would */
  }
  return tcp_read_timed(t, buf, len, timeout_ms);  /* EINTR, EAGAIN: retried there */
}

/* The kernel rounds SO_RCVTIMEO up to its clock tick (up to 10 ms): the
 * receive timeout is set this much below the time a read may wait. */
#define RCVTIMEO_EARLY_MS 20

/* Whether a blocking recv() bounded by the socket's SO_RCVTIMEO may wait
 * for TIMEOUT_MS instead of poll() then recv(): one system call per read
 * (a client waiting for its reply) rather than two.  The option's value
 * (a setsockopt(), only when it changes) is below TIMEOUT_MS by
 * RCVTIMEO_EARLY_MS and a sixteenth, so that the reads after it, with a
 * little less time left each (the same call timeout, less the call's time
 * so far), find it still fits: at most TIMEOUT_MS - RCVTIMEO_EARLY_MS, and
 * at least half of TIMEOUT_MS.  It never makes a read late: a recv that
 * times out early returns EAGAIN, and the caller polls what is left.
 * Reads without a timeout on this fd then wake every SO_RCVTIMEO to block
 * again (tcp_read_timed()'s loop).  0 (no shorter than 100 ms, or the
 * option cannot be set): poll. */
static int rcvtimeo_fits(tcp_transport *tt, int timeout_ms)
{
  int cur = tt->rcvtimeo;
  if (cur > 0 && cur <= timeout_ms - RCVTIMEO_EARLY_MS && cur >= timeout_ms / 2)
    return 1;
  if (timeout_ms < 100)
    return 0;
  int want = timeout_ms - timeout_ms / 16 - RCVTIMEO_EARLY_MS;
  struct timeval tv = { .tv_sec = want / 1000, .tv_usec = (want % 1000) * 1000 };
  if (setsockopt(tt->base.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
    return 0;
  tt->rcvtimeo = want;
  return 1;
}

/* The wait-and-read loop of tcp_read_timed() and iiop__tcp_readv(): one
 * recvmsg() into MH's buffers (when MH; LEN their total) or recv() into
 * BUF (LEN octets), without blocking once TIMEOUT_MS >= 0 and then after a
 * poll() for what is left until DEADLINE (-1: none), unless TRY_FIRST
 * (read at once first).  The octets read (0: the peer closed), or
 * CDR_E_TIMEOUT, or the I/O error's status; EINTR retries. */
static long tcp_read_loop(tcp_transport *tt, void *buf, size_t len, struct msghdr *mh,
                          int timeout_ms, int64_t deadline, int try_first)
{
  iiop_transport *t = &tt->base;
  int flags = timeout_ms >= 0 ? MSG_DONTWAIT : 0;
  for (;;) {
    if (timeout_ms >= 0 && !try_first) {
      int rc = iiop__poll(t->fd, POLLIN, deadline >= 0 ? iiop__remaining(deadline) : 0);
      if (rc != CDR_OK)
        return rc;
    }
    try_first = 0;
    ssize_t r = mh ? sys_recvmsg(t->fd, mh, flags) : sys_recv(t->fd, buf, len, flags);
    if (r >= 0) {
      tt->full = (size_t)r == len;
      return (long)r;
    }
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return io_status(errno);
    if (timeout_ms == 0 || (deadline >= 0 && iiop__remaining(deadline) == 0))
      return CDR_E_TIMEOUT;
  }
}

static long tcp_read_timed(iiop_transport *t, void *buf, size_t len, int timeout_ms)
{
  tcp_transport *tt = (tcp_transport *)t;
  int64_t deadline = timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
  int try_first = tt->full || timeout_ms == 0;
  if (!try_first && timeout_ms > 0 && rcvtimeo_fits(tt, timeout_ms)) {
    ssize_t r = sys_recv(t->fd, buf, len, 0);
    if (r >= 0) {
      tt->full = (size_t)r == len;
      return (long)r;
    }
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
      return io_status(errno);
    /* timed out early, or interrupted: the loop polls what is left */
  }
  return tcp_read_loop(tt, buf, len, NULL, timeout_ms, deadline, try_first);
}

static void tcp_shutdown(iiop_transport *t)
{
  tcp_transport *tt = (tcp_transport *)t;
  if (__atomic_exchange_n(&tt->shut, 1, __ATOMIC_ACQ_REL) == 0)
    shutdown(t->fd, SHUT_RDWR);
}

static void tcp_free(iiop_transport *t)
{
  if (!t)
    return;
  if (t->fd >= 0)
    close(t->fd);
  iiop__free(((tcp_transport *)t)->alloc, t);
}

static const iiop_transport_ops tcp_ops = { tcp_writev, tcp_read, tcp_shutdown, tcp_free };

int iiop__is_tcp(const iiop_transport *t)
{
  return t && t->ops == &tcp_ops;
}

long iiop__tcp_readv(iiop_transport *t, struct iovec *iov, int n, int timeout_ms)
{
  tcp_transport *tt = (tcp_transport *)t;
  size_t len = 0;
  for (int k = 0; k < n; k++)
    len += iov[k].iov_len;
  struct msghdr mh = { 0 };
  mh.msg_iov = iov;
  mh.msg_iovlen = (size_t)n;
  int64_t deadline = timeout_ms > 0 ? iiop__now_ms() + timeout_ms : -1;
  int try_first = timeout_ms < 0 || tt->full || timeout_ms == 0;
  return tcp_read_loop(tt, NULL, len, &mh, timeout_ms, deadline, try_first);
}

static int tcp_new(int fd, const cdr_allocator *a, iiop_transport **out)
{
  a = iiop__alloc_or_global(a);
  tcp_transport *t = iiop__malloc(a, sizeof *t);
  if (!t)
    return CDR_E_NOMEM;
  memset(t, 0, sizeof *t);
  t->alloc = a;
  t->base.ops = &tcp_ops;
  t->base.fd = fd;
  *out = &t->base;
  return CDR_OK;
}

int iiop_tcp_wrap(int fd, iiop_transport **out) { return iiop__tcp_wrap(fd, NULL, out); }

int iiop__tcp_wrap(int fd, const cdr_allocator *a, iiop_transport **out)
{
  if (fd < 0 || !out)
    return CDR_E_INVALID;
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* not TCP: ignored */
  int rc = tcp_new(fd, a, out);
  if (rc != CDR_OK)
    close(fd);
  return rc;
}

/* The reason of this thread's last failed connect: an errno (> 0), a
 * getaddrinfo() code (< 0, as EAI_*: negated so that it cannot be taken
 * for an errno), or 0. */
static _Thread_local int connect_errno;
static _Thread_local int connect_gai;

void iiop__tcp_connect_why(char *why, size_t cap)
{
  if (!why || cap == 0)
    return;
  if (connect_gai)
    snprintf(why, cap, "%s", gai_strerror(connect_gai));
  else if (connect_errno)
    snprintf(why, cap, "%s", strerror(connect_errno)); /* glibc's: thread-safe */
  else
    why[0] = 0;
}

/* Connect a non-blocking socket to AI within DEADLINE.  Returns the
 * descriptor, or a status (connect_errno set where errno said why). */
static int connect_one(const struct addrinfo *ai, int64_t deadline)
{
  int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) {
    connect_errno = errno;
    return errno == ENOMEM || errno == ENOBUFS ? CDR_E_NOMEM : CDR_E_IO;
  }
  int rc = CDR_OK;
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS && errno != EINTR) {
      connect_errno = errno;
      rc = CDR_E_IO;
    } else {
      rc = iiop__poll(fd, POLLOUT, iiop__remaining(deadline));
      if (rc == CDR_OK) {
        int err = 0;
        socklen_t el = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
          err = errno;
        if (err != 0) {
          connect_errno = err;
          rc = err == ETIMEDOUT ? CDR_E_TIMEOUT : CDR_E_IO;
        }
      }
    }
  }
  if (rc == CDR_OK) {
    int fl = fcntl(fd, F_GETFL);
    int one = 1;
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0
        || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
      connect_errno = errno;
      rc = CDR_E_IO;
    }
  }
  if (rc != CDR_OK) {
    close(fd);
    return rc;
  }
  return fd;
}

int iiop_tcp_connect(const char *host, uint16_t port, int timeout_ms, iiop_transport **out)
{
  return iiop__tcp_connect(host, port, timeout_ms, NULL, out);
}

int iiop__tcp_connect(const char *host, uint16_t port, int timeout_ms, const cdr_allocator *a,
                      iiop_transport **out)
{
  connect_errno = 0;
  connect_gai = 0;
  if (!host || !out)
    return CDR_E_INVALID;
  /* "[::1]" as IORs may carry it: the brackets are not part of the address. */
  char name[NI_MAXHOST];
  size_t hl = strlen(host);
  if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
    host++;
    hl -= 2;
  }
  if (hl == 0 || hl >= sizeof name)
    return CDR_E_IO;
  memcpy(name, host, hl);
  name[hl] = 0;
  char serv[8];
  snprintf(serv, sizeof serv, "%u", (unsigned)port);

  int64_t deadline = iiop__deadline(timeout_ms);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_protocol = IPPROTO_TCP;
  hints.ai_flags = AI_NUMERICSERV;
  int g = getaddrinfo(name, serv, &hints, &res);
  if (g != 0) {
    if (g == EAI_SYSTEM)
      connect_errno = errno;
    else
      connect_gai = g;
    return g == EAI_MEMORY ? CDR_E_NOMEM : CDR_E_IO;
  }

  int rc = CDR_E_IO, fd = -1;
  for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
    if (deadline >= 0 && iiop__remaining(deadline) == 0) {
      rc = CDR_E_TIMEOUT;
      break;
    }
    fd = connect_one(ai, deadline);
    if (fd >= 0)
      break;
    rc = fd;
    if (rc == CDR_E_NOMEM)
      break;
  }
  freeaddrinfo(res);
  if (fd < 0)
    return rc;
  rc = tcp_new(fd, a, out);
  if (rc != CDR_OK)
    close(fd);
  return rc;
}
