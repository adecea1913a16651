/* tcp-floor.c - a raw TCP ping-pong: the floor under an IIOP call that
 * moves the same octets.  Each call is one write of the request by the
 * client and one write of the reply by the server, read whole on the other
 * side (MSG_WAITALL), on one TCP_NODELAY connection, with a thread per
 * connection on the server as in our ORB's default server.  Nothing is
 * encoded or looked at: what is left is the system calls, the loopback
 * stack, the wake-ups and copying the octets.
 *
 *   tcp-floor server --listen HOST:PORT
 *   tcp-floor client --target HOST:PORT --req N --rep M [--calls K]
 *                    [--warmup W] [--scenario NAME] [--pattern P] [--frag F]
 *
 * The server prints one line, HOST:PORT with the port it got (PORT 0 in
 * --listen: a free port), flushed, then serves until SIGINT or SIGTERM and
 * exits 0.  A connection starts with a 12-octet hello from the client
 * ("TCPF", then N and M as 32-bit big-endian numbers); then each call is N
 * octets in and M octets out.
 *
 * --pattern moves the same N and M octets cut up on the wire as a
 * fragmenting ORB cuts them, so that what the kernel alone charges for a
 * pattern can be set beside the floor (bench/wire-patterns.sh).  A message
 * goes as fragments of at most F octets (--frag, default 1,024), each a
 * 16-octet header (a GIOP 1.2 header and a request id) and F - 16 octets
 * of payload; both sides use the pattern, for requests and replies alike:
 *   floor         (the default) one send() of the message, one read of it;
 *   frag-scatter  one sendmsg() gathering 2 iovecs a fragment (its header,
 *                 its payload in place); a read of the first fragment, then
 *                 one recvmsg() scattering the rest: each header to a table
 *                 of headers, each payload to its place in one buffer (what
 *                 our ORB does with fragments);
 *   frag-whole    the same gather write; the whole message read at once
 *                 into one buffer, headers and all;
 *   frag-flat     the message laid out with its headers in one buffer, sent
 *                 with one send() and read whole at once.
 * Then the hello is 20 octets: "TCPG", N, M, the pattern and F.
 *
 * The client makes W untimed calls, then K timed ones, and its standard
 * output ends with the same line as iiop-bench client's:
 *   scenario=NAME calls=K failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B
 * (NAME defaults to "floor").  Exit status: 0 every call completed, 2 usage
 * error, 3 a call or the connection failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "benchutil.h"

#define EXIT_OK 0
#define EXIT_USAGE 2
#define EXIT_FAILED 3
#define HELLO_SIZE 12
#define HELLO_G_SIZE 20
#define FRAG_HDR 16
#define FRAG_MIN 32
#define FRAG_MAX 65536
#define MAX_MSG (1ul << 30)

static void usage(FILE *f)
{
  fputs("usage: tcp-floor server --listen HOST:PORT\n"
        "       tcp-floor client --target HOST:PORT --req N --rep M [--calls K] [--warmup W]\n"
        "                        [--scenario NAME] [--pattern P] [--frag F]\n"
        "  A TCP ping-pong: per call the client writes N octets in one write, the server\n"
        "  answers M octets in one write.\n"
        "server: prints HOST:PORT (PORT 0 in --listen: a free port), serves until SIGINT\n"
        "  or SIGTERM.\n"
        "client:\n"
        "  --target HOST:PORT  the server\n"
        "  --req N, --rep M    octets per request and per reply (1 .. 2^30)\n"
        "  --calls K           timed calls (default 1000)\n"
        "  --warmup W          untimed calls first (default 0)\n"
        "  --scenario NAME     the label of the last line (default floor)\n"
        "  --pattern P         how the octets are cut up on the wire, both ways: floor\n"
        "                      (default: one write, one read), frag-scatter (fragments of\n"
        "                      F octets gathered from place and scattered into place, as\n"
        "                      our ORB does), frag-whole (the same gather write, read\n"
        "                      whole), frag-flat (fragments laid out in one buffer: one\n"
        "                      write, one read)\n"
        "  --frag F            octets per fragment, 16 of them its header (default 1024,\n"
        "                      32 .. 65536)\n"
        "  --verify            check that every reply arrived in place, octet for octet\n"
        "                      (a test, not for timing)\n"
        "  The last line of standard output is\n"
        "  scenario=NAME calls=K failed=F wall_s=X calls_per_s=Y p50_us=A p99_us=B\n"
        "  Exit status: 0 all calls completed, 2 usage error, 3 a call failed.\n", f);
}

/* Split "HOST:PORT" or "[V6]:PORT" into HOST (brackets removed) and PORT. */
static bool split_hostport(const char *s, char *host, size_t hostsz, char *port, size_t portsz)
{
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s || !colon[1])
    return false;
  const char *h = s;
  size_t hl = (size_t)(colon - s);
  if (s[0] == '[') {
    if (hl < 3 || s[hl - 1] != ']')
      return false;
    h++;
    hl -= 2;
  } else if (memchr(s, ':', hl)) {
    return false;
  }
  unsigned long p;
  if (hl + 1 > hostsz || strlen(colon + 1) + 1 > portsz || !bench_parse_ulong(colon + 1, 0, 65535, &p))
    return false;
  memcpy(host, h, hl);
  host[hl] = 0;
  strcpy(port, colon + 1);
  return true;
}

static void set_nodelay(int fd)
{
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* All of BUF in as few send()s as the kernel allows (one, normally). */
static bool send_all(int fd, const uint8_t *buf, size_t n)
{
  while (n) {
    ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    buf += w;
    n -= (size_t)w;
  }
  return true;
}

/* Exactly N octets: 1; the peer closed before the first octet: 0; else -1. */
static int recv_all(int fd, uint8_t *buf, size_t n)
{
  size_t got = 0;
  while (got < n) {
    ssize_t r = recv(fd, buf + got, n - got, MSG_WAITALL);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (r == 0)
      return got == 0 ? 0 : -1;
    got += (size_t)r;
  }
  return 1;
}

static uint32_t get_be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* ---------------------------------------------------------------- patterns */

enum pattern { PAT_FLOOR, PAT_FRAG_SCATTER, PAT_FRAG_WHOLE, PAT_FRAG_FLAT, PAT_N };
static const char *const pattern_names[PAT_N] = { "floor", "frag-scatter", "frag-whole", "frag-flat" };

/* How one message of N payload octets goes out and comes in.  Everything is
 * built once per connection: a call only sends and reads. */
struct wire {
  enum pattern pat;
  size_t n;           /* payload octets */
  size_t frag;        /* octets per fragment, header included */
  size_t nfrag;       /* fragments in a message */
  size_t total;       /* octets on the wire: payload and headers */
  uint8_t *payload;   /* N octets: what the side sends, or where it reads to */
  uint8_t *hdrs;      /* nfrag headers, FRAG_HDR octets each */
  uint8_t *flat;      /* total octets: frag-flat's image, frag-whole's read */
  struct iovec *iov;  /* 2 per fragment: the gather write, the scatter read */
  struct iovec *work; /* a copy of iov that a partial transfer advances */
};

static void wire_free(struct wire *w)
{
  free(w->payload);
  free(w->hdrs);
  free(w->flat);
  free(w->iov);
  free(w->work);
  memset(w, 0, sizeof *w);
}

/* A message of N octets in pattern PAT with fragments of FRAG octets; the
 * payload is filled with letters.  false: out of memory. */
static bool wire_init(struct wire *w, enum pattern pat, size_t n, size_t frag)
{
  memset(w, 0, sizeof *w);
  w->pat = pat;
  w->n = n;
  w->payload = malloc(n);
  if (!w->payload)
    return false;
  for (size_t k = 0; k < n; k++)
    w->payload[k] = (uint8_t)('a' + k % 26);
  if (pat == PAT_FLOOR) {
    w->total = n;
    return true;
  }
  size_t body = frag - FRAG_HDR;
  w->frag = frag;
  w->nfrag = (n + body - 1) / body;
  w->total = n + w->nfrag * FRAG_HDR;
  w->hdrs = malloc(w->nfrag * FRAG_HDR);
  w->flat = malloc(w->total);
  w->iov = malloc(2 * w->nfrag * sizeof *w->iov);
  w->work = malloc(2 * w->nfrag * sizeof *w->work);
  if (!w->hdrs || !w->flat || !w->iov || !w->work) {
    wire_free(w);
    return false;
  }
  uint8_t *f = w->flat;
  for (size_t k = 0; k < w->nfrag; k++) {
    size_t len = k + 1 < w->nfrag ? body : n - k * body;
    uint8_t *h = w->hdrs + k * FRAG_HDR;
    /* GIOP 1.2, big-endian, "more fragments" but on the last, type
     * Request (first) or Fragment (7); the size counts the request id. */
    memcpy(h, "GIOP\1\2", 6);
    h[6] = k + 1 < w->nfrag ? 2 : 0;
    h[7] = k == 0 ? 0 : 7;
    put_be32(h + 8, (uint32_t)(len + 4));
    put_be32(h + 12, 1);
    w->iov[2 * k] = (struct iovec){ h, FRAG_HDR };
    w->iov[2 * k + 1] = (struct iovec){ w->payload + k * body, len };
    memcpy(f, h, FRAG_HDR);
    memcpy(f + FRAG_HDR, w->payload + k * body, len);
    f += FRAG_HDR + len;
  }
  return true;
}

/* All of IOV[0..CNT) with as few sendmsg() or recvmsg() calls as the
 * kernel allows (one, normally), at most IOV_MAX iovecs a call.  IOV is
 * advanced over what was moved.  1: done; 0: the peer closed before the
 * first octet (reads only); -1: an error or a close part way. */
static int xfer_iov(int fd, struct iovec *iov, size_t cnt, bool out)
{
  bool any = false;
  while (cnt) {
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = cnt < 1024 ? cnt : 1024 };
    ssize_t r = out ? sendmsg(fd, &mh, MSG_NOSIGNAL) : recvmsg(fd, &mh, MSG_WAITALL);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (r == 0 && !out)
      return any ? -1 : 0;
    any = true;
    size_t left = (size_t)r;
    while (cnt && left >= iov->iov_len) {
      left -= iov->iov_len;
      iov++;
      cnt--;
    }
    if (cnt) {
      iov->iov_base = (uint8_t *)iov->iov_base + left;
      iov->iov_len -= left;
    }
  }
  return 1;
}

/* Where a read of W puts what it reads, zeroed (--verify). */
static void wire_clear(struct wire *w)
{
  if (w->pat == PAT_FLOOR || w->pat == PAT_FRAG_SCATTER) {
    memset(w->payload, 0, w->n);
    if (w->hdrs)
      memset(w->hdrs, 0, w->nfrag * FRAG_HDR);
  } else {
    memset(w->flat, 0, w->total);
  }
}

/* Whether what a read of GOT put in place is WANT's message. */
static bool wire_same(const struct wire *got, const struct wire *want)
{
  if (got->pat == PAT_FLOOR || got->pat == PAT_FRAG_SCATTER)
    return memcmp(got->payload, want->payload, got->n) == 0
           && (!got->hdrs || memcmp(got->hdrs, want->hdrs, got->nfrag * FRAG_HDR) == 0);
  return memcmp(got->flat, want->flat, got->total) == 0;
}

static bool wire_send(int fd, struct wire *w)
{
  switch (w->pat) {
  case PAT_FLOOR: return send_all(fd, w->payload, w->n);
  case PAT_FRAG_FLAT: return send_all(fd, w->flat, w->total);
  default:
    memcpy(w->work, w->iov, 2 * w->nfrag * sizeof *w->iov);
    return xfer_iov(fd, w->work, 2 * w->nfrag, true) == 1;
  }
}

/* One message: 1; the peer closed before it: 0; else -1. */
static int wire_recv(int fd, struct wire *w)
{
  switch (w->pat) {
  case PAT_FLOOR: return recv_all(fd, w->payload, w->n);
  case PAT_FRAG_SCATTER: {
    /* The first fragment (its header tells what follows), then the rest
     * with one scatter read. */
    memcpy(w->work, w->iov, 2 * sizeof *w->iov);
    int r = xfer_iov(fd, w->work, 2, false);
    if (r != 1 || w->nfrag == 1)
      return r;
    memcpy(w->work, w->iov + 2, 2 * (w->nfrag - 1) * sizeof *w->iov);
    return xfer_iov(fd, w->work, 2 * (w->nfrag - 1), false) == 1 ? 1 : -1;
  }
  default: return recv_all(fd, w->flat, w->total);
  }
}

/* ---------------------------------------------------------------- server */

static void *conn_main(void *arg)
{
  int fd = (int)(intptr_t)arg;
  uint8_t hello[HELLO_G_SIZE];
  struct wire req = { 0 }, rep = { 0 };
  if (recv_all(fd, hello, HELLO_SIZE) != 1)
    goto out;
  enum pattern pat = PAT_FLOOR;
  size_t frag = 0;
  if (memcmp(hello, "TCPG", 4) == 0) {
    if (recv_all(fd, hello + HELLO_SIZE, HELLO_G_SIZE - HELLO_SIZE) != 1)
      goto out;
    uint32_t p = get_be32(hello + 12);
    frag = get_be32(hello + 16);
    if (p == PAT_FLOOR || p >= PAT_N || frag < FRAG_MIN || frag > FRAG_MAX)
      goto out;
    pat = (enum pattern)p;
  } else if (memcmp(hello, "TCPF", 4) != 0) {
    goto out;
  }
  size_t nreq = get_be32(hello + 4), nrep = get_be32(hello + 8);
  if (nreq == 0 || nrep == 0 || nreq > MAX_MSG || nrep > MAX_MSG)
    goto out;
  if (!wire_init(&req, pat, nreq, frag) || !wire_init(&rep, pat, nrep, frag))
    goto out;
  while (wire_recv(fd, &req) == 1 && wire_send(fd, &rep))
    ;
out:
  wire_free(&req);
  wire_free(&rep);
  close(fd);
  return NULL;
}

static void *accept_main(void *arg)
{
  int lfd = (int)(intptr_t)arg;
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  for (;;) {
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
        continue;
      perror("tcp-floor: accept");
      return NULL;
    }
    set_nodelay(fd);
    pthread_t th;
    if (pthread_create(&th, &at, conn_main, (void *)(intptr_t)fd) != 0)
      close(fd);
  }
}

static int server_main(int argc, char **argv)
{
  enum { O_LISTEN = 256, O_HELP };
  static const struct option lo[] = {
    { "listen", required_argument, NULL, O_LISTEN },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
  };
  const char *listen_at = NULL;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
    switch (c) {
    case O_LISTEN: listen_at = optarg; break;
    case O_HELP: usage(stdout); return EXIT_OK;
    default: return bench_usage_error("tcp-floor", usage, "server: bad option or missing argument: %s", argv[optind - 1]);
    }
  }
  if (optind < argc)
    return bench_usage_error("tcp-floor", usage, "server: unexpected argument '%s'", argv[optind]);
  char host[256], port[8];
  if (!listen_at || !split_hostport(listen_at, host, sizeof host, port, sizeof port))
    return bench_usage_error("tcp-floor", usage, "server: --listen HOST:PORT is required");

  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *ai;
  int e = getaddrinfo(host, port, &hints, &ai);
  if (e) {
    fprintf(stderr, "tcp-floor: %s: %s\n", listen_at, gai_strerror(e));
    return EXIT_FAILED;
  }
  int lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (lfd >= 0)
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (lfd < 0 || bind(lfd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(lfd, 64) != 0) {
    fprintf(stderr, "tcp-floor: listen on %s: %s\n", listen_at, strerror(errno));
    return EXIT_FAILED;
  }
  freeaddrinfo(ai);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  getsockname(lfd, (struct sockaddr *)&ss, &sl);
  unsigned p = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                        : ntohs(((struct sockaddr_in *)&ss)->sin_port);

  /* The stop signals are blocked in every thread and taken by sigwait. */
  sigset_t stop;
  bench_block_stop_signals(&stop);
  pthread_t th;
  if (pthread_create(&th, NULL, accept_main, (void *)(intptr_t)lfd) != 0) {
    fprintf(stderr, "tcp-floor: pthread_create failed\n");
    return EXIT_FAILED;
  }
  bool v6 = strchr(host, ':') != NULL;
  printf("%s%s%s:%u\n", v6 ? "[" : "", host, v6 ? "]" : "", p);
  fflush(stdout);
  int sig;
  while (sigwait(&stop, &sig) != 0)
    ;
  /* exit() without joining: connection threads just end with the process. */
  return EXIT_OK;
}

/* ---------------------------------------------------------------- client */

static int client_main(int argc, char **argv)
{
  enum { O_TARGET = 256, O_REQ, O_REP, O_CALLS, O_WARMUP, O_SCEN, O_PATTERN, O_FRAG, O_VERIFY, O_HELP };
  static const struct option lo[] = {
    { "target", required_argument, NULL, O_TARGET },
    { "req", required_argument, NULL, O_REQ },
    { "rep", required_argument, NULL, O_REP },
    { "calls", required_argument, NULL, O_CALLS },
    { "warmup", required_argument, NULL, O_WARMUP },
    { "scenario", required_argument, NULL, O_SCEN },
    { "pattern", required_argument, NULL, O_PATTERN },
    { "frag", required_argument, NULL, O_FRAG },
    { "verify", no_argument, NULL, O_VERIFY },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
  };
  const char *target = NULL, *scen = "floor";
  unsigned long nreq = 0, nrep = 0, calls = 1000, warmup = 0, frag = 1024;
  enum pattern pat = PAT_FLOOR;
  int c, li = -1;
  bool verify = false;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "", lo, &li)) != -1) {
    bool bad = false;
    switch (c) {
    case O_TARGET: target = optarg; break;
    case O_REQ: bad = !bench_parse_ulong(optarg, 1, MAX_MSG, &nreq); break;
    case O_REP: bad = !bench_parse_ulong(optarg, 1, MAX_MSG, &nrep); break;
    case O_CALLS: bad = !bench_parse_ulong(optarg, 0, 1ul << 40, &calls); break;
    case O_WARMUP: bad = !bench_parse_ulong(optarg, 0, 1ul << 40, &warmup); break;
    case O_SCEN: scen = optarg; bad = !*optarg || strchr(optarg, ' '); break;
    case O_PATTERN:
      bad = true;
      for (int k = 0; k < PAT_N; k++)
        if (strcmp(optarg, pattern_names[k]) == 0) {
          pat = (enum pattern)k;
          bad = false;
        }
      break;
    case O_FRAG: bad = !bench_parse_ulong(optarg, FRAG_MIN, FRAG_MAX, &frag); break;
    case O_VERIFY: verify = true; break;
    case O_HELP: usage(stdout); return EXIT_OK;
    default: return bench_usage_error("tcp-floor", usage, "client: bad option or missing argument: %s", argv[optind - 1]);
    }
    if (bad)
      return bench_usage_error("tcp-floor", usage, "client: bad value for --%s: '%s'", lo[li].name, optarg);
  }
  if (optind < argc)
    return bench_usage_error("tcp-floor", usage, "client: unexpected argument '%s'", argv[optind]);
  char host[256], port[8];
  if (!target || !split_hostport(target, host, sizeof host, port, sizeof port))
    return bench_usage_error("tcp-floor", usage, "client: --target HOST:PORT is required");
  if (!nreq || !nrep)
    return bench_usage_error("tcp-floor", usage, "client: --req and --rep are required");

  uint64_t *lat = malloc((calls ? calls : 1) * sizeof *lat);
  struct wire req, rep, want = { 0 };
  if (!lat || !wire_init(&req, pat, nreq, frag) || !wire_init(&rep, pat, nrep, frag)
      || (verify && !wire_init(&want, pat, nrep, frag))) {
    fprintf(stderr, "tcp-floor: out of memory\n");
    return EXIT_FAILED;
  }

  struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                            .ai_flags = AI_NUMERICSERV }, *ai, *a;
  int e = getaddrinfo(host, port, &hints, &ai);
  if (e) {
    fprintf(stderr, "call failed: %s: %s\n", target, gai_strerror(e));
    printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n", scen);
    return EXIT_FAILED;
  }
  int fd = -1;
  for (a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(ai);
  uint8_t hello[HELLO_G_SIZE] = { 'T', 'C', 'P', pat == PAT_FLOOR ? 'F' : 'G' };
  put_be32(hello + 4, (uint32_t)nreq);
  put_be32(hello + 8, (uint32_t)nrep);
  put_be32(hello + 12, (uint32_t)pat);
  put_be32(hello + 16, (uint32_t)frag);
  size_t hello_len = pat == PAT_FLOOR ? HELLO_SIZE : HELLO_G_SIZE;
  if (fd < 0 || (set_nodelay(fd), !send_all(fd, hello, hello_len))) {
    fprintf(stderr, "call failed: connecting to %s: %s\n", target, strerror(errno));
    printf("scenario=%s calls=0 failed=1 wall_s=0 calls_per_s=0 p50_us=0 p99_us=0\n", scen);
    return EXIT_FAILED;
  }

  unsigned long failed = 0;
  for (unsigned long k = 0; k < warmup && !failed; k++)
    if (!wire_send(fd, &req) || wire_recv(fd, &rep) != 1)
      failed++;
  unsigned long done = 0;
  uint64_t t0 = bench_now_ns();
  for (; done < calls && !failed; done++) {
    uint64_t c0 = bench_now_ns();
    if (verify)
      wire_clear(&rep);
    if (!wire_send(fd, &req) || wire_recv(fd, &rep) != 1)
      failed++;
    else if (verify && !wire_same(&rep, &want)) {
      fprintf(stderr, "call failed: reply %lu is not the octets sent\n", done);
      failed++;
    }
    lat[done] = bench_now_ns() - c0;
  }
  uint64_t t1 = bench_now_ns();
  if (failed) {
    /* The stream is out of step after a failure: the rest fail too. */
    fprintf(stderr, "call failed: %s\n", errno ? strerror(errno) : "connection closed");
    failed += calls - done;
  }
  close(fd);
  qsort(lat, done, sizeof *lat, bench_cmp_u64);
  double wall = (double)(t1 - t0) / 1e9;
  printf("scenario=%s calls=%lu failed=%lu wall_s=%.6f calls_per_s=%.1f p50_us=%.1f "
         "p99_us=%.1f\n", scen, calls, failed, wall, wall > 0 ? (double)calls / wall : 0.0,
         bench_percentile_us(lat, done, 0.50), bench_percentile_us(lat, done, 0.99));
  fflush(stdout);
  free(lat);
  wire_free(&req);
  wire_free(&rep);
  wire_free(&want);
  return failed ? EXIT_FAILED : EXIT_OK;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return bench_usage_error("tcp-floor", usage, "a command is required: server or client");
  if (strcmp(argv[1], "server") == 0)
    return server_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "client") == 0)
    return client_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  return bench_usage_error("tcp-floor", usage, "unknown command '%s' (server or client)", argv[1]);
}
