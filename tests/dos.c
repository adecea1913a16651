/* dos.c - the server under cheap denial of service (iiop/limits.h), in one
 * process: an iiop_server with short timeouts (header 1 s, message 2 s,
 * idle 2 s, TLS handshake 1 s, a 1,024-connection cap, a 16 MiB budget;
 * message 4 s: a 4 MiB request on a loaded 2-CPU machine needs that),
 * valid clients calling through it the whole time, and raw sockets that
 * attack it:
 *   1. 500 connections that send 3 octets and stall;
 *   2. 1,100 such connections (over the cap) while valid clients call;
 *   3. a stalled TLS handshake, and a TLS client idle after its handshake;
 *   4. requests beyond the budget: 8 echoString calls of 4 MiB at once,
 *      and 20 connections that announce 6 MiB and send 1 MiB;
 *   5. a soak of valid, malformed and vanishing clients (--long: 90 s).
 * It asserts: no valid call lost (a call over the budget is answered, or
 * answered NO_RESOURCES: never a closed connection), no gap of more than 3 s between a
 * valid client's answers, every stalled connection gone within its timeout
 * plus a scan and 1 s of its own connect (not of the first one's: opening
 * 1,100 takes a while on a loaded machine), the idle TLS client's
 * CloseConnection not before its idle timeout and within it plus 1 s, its
 * close within the server's linger after that plus 1 s, the budget's peak
 * within the budget, descriptors
 * back exactly to the count at the start (/proc/self/fd), and (not under a
 * sanitizer) RSS after the soak within 64 MiB of RSS after warm-up.
 * Usage: dos [--long]; prints one line per phase.  Exit 0: all held. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"
#include "tlsutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DOS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DOS_SANITIZED 1
#endif
#endif

#define HEADER_MS 1000
#define MESSAGE_MS 4000
#define IDLE_MS 2000
#define HANDSHAKE_MS 1000
#define SLACK_MS 1000 /* a scan (125 ms) and a loaded machine */
#define LINGER_MS 2000 /* the server's wait after CloseConnection for the client to close
                          (libiiop/server.c) */
#define RSS_MARGIN ((long)64 << 20)

static int failures;
#define CHECK(c, ...)                                                                        \
  do {                                                                                       \
    if (!(c)) {                                                                              \
      fprintf(stderr, "dos: FAILED %s: ", #c);                                               \
      fprintf(stderr, __VA_ARGS__);                                                          \
      fprintf(stderr, "\n");                                                                 \
      failures++;                                                                            \
    }                                                                                        \
  } while (0)

static int count_fds(void)
{
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return -1;
  int n = 0;
  while (readdir(d))
    n++;
  closedir(d);
  return n;
}

static long rss_bytes(void)
{
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, res = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &res) != 2)
      res = 0;
    fclose(f);
  }
  return res * sysconf(_SC_PAGESIZE);
}

/* ---------------------------------------------------------------- the servant */

static int op_ping(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  cdr_put_long(o, cdr_get_long(a));
  return cdr_in_status(a);
}

static int op_echo_string(void *sv, iiop_request *r, cdr_in *a, cdr_out *o)
{
  const char *p;
  uint32_t n;
  int rc = cdr_get_string_view(a, &p, &n);
  if (rc == CDR_OK)
    cdr_put_string_n(o, p, n);
  return rc;
}

static const iiop_operation ops[] = { { "ping", op_ping }, { "echoString", op_echo_string } };
static const iiop_interface iface = { "IDL:Bench/Echo:1.0", ops, 2, NULL };

/* ---------------------------------------------------------------- raw attackers */

static uint16_t port, tls_port;

/* Open N connections that send LEN octets of P (LEN 0: nothing) and stall;
 * FDS gets them (-1 where connect failed), AT the time each one began to
 * connect (its timeout cannot start before).  Returns how many connected. */
static int stall_open(int *fds, int64_t *at, int n, const void *p, size_t len, uint16_t to)
{
  int ok = 0;
  for (int k = 0; k < n; k++) {
    at[k] = tu_now_ms();
    fds[k] = nu_try_connect(NULL, to);
    if (fds[k] < 0)
      continue;
    ok++;
    if (len && send(fds[k], p, len, MSG_NOSIGNAL) != (ssize_t)len) {
      close(fds[k]);
      fds[k] = -1;
    }
  }
  return ok;
}

/* Wait until the server has closed every descriptor in FDS (reading what it
 * sends first), at most LIMIT_MS from T0; close them.  Returns the longest
 * time a connection stayed open after the time in AT it began to connect
 * (AT NULL: after T0), or -1 if some stayed open; *LAST (unless NULL): the
 * time the last one closed, ms after T0.  Measured per connection, the
 * time it takes to open hundreds of them on a loaded machine does not
 * count against the server's timeout. */
static int64_t stall_wait_closed(int *fds, const int64_t *at, int n, int64_t t0, int limit_ms,
                                 int64_t *last_out)
{
  int left = 0;
  for (int k = 0; k < n; k++)
    left += fds[k] >= 0;
  int64_t last = 0, longest = 0;
  struct pollfd *p = calloc((size_t)n, sizeof *p);
  while (left > 0 && tu_now_ms() - t0 < limit_ms) {
    int m = 0;
    for (int k = 0; k < n; k++)
      if (fds[k] >= 0) {
        p[m].fd = fds[k];
        p[m].events = POLLIN;
        p[m].revents = 0;
        m++;
      }
    if (poll(p, (nfds_t)m, 100) <= 0)
      continue;
    for (int j = 0; j < m; j++) {
      if (!p[j].revents)
        continue;
      uint8_t b[256];
      ssize_t r = recv(p[j].fd, b, sizeof b, MSG_DONTWAIT);
      if (r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR)))
        continue;
      int64_t now = tu_now_ms();
      for (int k = 0; k < n; k++)
        if (fds[k] == p[j].fd) {
          close(fds[k]);
          fds[k] = -1;
          if (now - (at ? at[k] : t0) > longest)
            longest = now - (at ? at[k] : t0);
        }
      left--;
      last = now - t0;
    }
  }
  free(p);
  for (int k = 0; k < n; k++)
    if (fds[k] >= 0) {
      close(fds[k]);
      fds[k] = -1;
    }
  if (last_out)
    *last_out = last;
  return left ? -1 : longest;
}

/* ---------------------------------------------------------------- valid clients */

typedef struct caller {
  pthread_t thr;
  char *ior;
  volatile int stop;
  uint64_t ok, lost;
  int64_t max_gap;          /* longest time between two answers, ms */
  size_t str_len;           /* 0: ping; else echoString of this many octets */
  uint64_t no_resources;    /* echoString answered NO_RESOURCES (allowed over the budget) */
} caller;

static void *caller_main(void *arg)
{
  caller *c = arg;
  iiop_client *cl = iiop_client_new(NULL);
  iiop_ref *r = NULL;
  if (!cl || iiop_client_resolve(cl, c->ior, &r) != CDR_OK) {
    c->lost++;
    iiop_client_free(cl);
    return NULL;
  }
  char *s = NULL;
  if (c->str_len) {
    s = malloc(c->str_len + 1);
    memset(s, 'v', c->str_len);
    s[c->str_len] = 0;
  }
  int64_t last = tu_now_ms();
  int32_t k = 0;
  while (!c->stop) {
    iiop_call *call;
    cdr_out *args;
    cdr_in *res;
    if (iiop_call_begin(r, c->str_len ? "echoString" : "ping", 0, &call, &args) != CDR_OK) {
      c->lost++;
      continue;
    }
    if (c->str_len)
      cdr_put_string(args, s);
    else
      cdr_put_long(args, ++k);
    int64_t tc = tu_now_ms();
    int rc = iiop_call_invoke(call, &res);
    tc = tu_now_ms() - tc;
    int good = 0;
    if (rc == CDR_OK && !c->str_len)
      good = cdr_get_long(res) == k;
    else if (rc == CDR_OK) {
      const char *p;
      uint32_t n;
      good = cdr_get_string_view(res, &p, &n) == CDR_OK && n == c->str_len;
    } else if (rc == IIOP_R_SYSTEM_EXCEPTION && c->str_len
               && strstr(iiop_call_exception(call)->repo_id, "NO_RESOURCES")) {
      c->no_resources++;
      good = 1;
    }
    iiop_call_end(call);
    if (good) {
      c->ok++;
      int64_t t = tu_now_ms();
      if (t - last > c->max_gap)
        c->max_gap = t - last;
      last = t;
    } else {
      static int shown; /* the first few only */
      c->lost++;
      if (__atomic_add_fetch(&shown, 1, __ATOMIC_RELAXED) <= 5)
        fprintf(stderr, "dos: a valid call failed after %lld ms: %d (%s)\n", (long long)tc, rc,
                cdr_strerror(rc));
    }
  }
  free(s);
  iiop_ref_free(r);
  iiop_client_free(cl);
  return NULL;
}

static void callers_start(caller *c, int n, char *ior, size_t str_len)
{
  for (int k = 0; k < n; k++) {
    memset(&c[k], 0, sizeof c[k]);
    c[k].ior = ior;
    c[k].str_len = str_len;
    pthread_create(&c[k].thr, NULL, caller_main, &c[k]);
  }
}

/* Stop them; add up their counts; the longest gap. */

static int64_t callers_stop(caller *c, int n, uint64_t *ok, uint64_t *lost, uint64_t *nores)
{
  int64_t gap = 0;
  for (int k = 0; k < n; k++)
    c[k].stop = 1;
  for (int k = 0; k < n; k++) {
    pthread_join(c[k].thr, NULL);
    *ok += c[k].ok;
    *lost += c[k].lost;
    if (nores)
      *nores += c[k].no_resources;
    if (c[k].max_gap > gap)
      gap = c[k].max_gap;
  }
  return gap;
}

/* ---------------------------------------------------------------- the soak */

typedef struct soaker {
  pthread_t thr;
  volatile int stop;
  unsigned seed;
  uint64_t rounds;
} soaker;

/* Malformed and vanishing clients, at random: garbage, a header and a
 * partial body then a close, a partial header left open for a while, a
 * connection closed at once. */
static void *soak_main(void *arg)
{
  soaker *z = arg;
  uint8_t buf[512];
  while (!z->stop) {
    int fd = nu_try_connect(NULL, port);
    if (fd < 0)
      continue;
    unsigned kind = (unsigned)rand_r(&z->seed) % 4;
    if (kind == 0) {
      for (size_t k = 0; k < sizeof buf; k++)
        buf[k] = (uint8_t)rand_r(&z->seed);
      (void)send(fd, buf, 1 + (size_t)rand_r(&z->seed) % sizeof buf, MSG_NOSIGNAL);
      struct pollfd p = { fd, POLLIN, 0 };
      (void)poll(&p, 1, 200);
    } else if (kind == 1) {
      static const uint8_t h[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, 0, 0, 1, 0, 0 };
      (void)send(fd, h, sizeof h, MSG_NOSIGNAL);
      (void)send(fd, buf, 1 + (size_t)rand_r(&z->seed) % 100, MSG_NOSIGNAL);
    } else if (kind == 2) {
      (void)send(fd, "GI", 2, MSG_NOSIGNAL);
      usleep((useconds_t)(rand_r(&z->seed) % 300) * 1000);
    }
    close(fd);
    z->rounds++;
  }
  return NULL;
}

/* ---------------------------------------------------------------- main */

static void stats_line(iiop_server *s, const char *what)
{
  iiop_server_stats st;
  if (iiop_server_stats_get(s, &st) != CDR_OK)
    return;
  printf("dos:   [%s] open %llu accepted %llu evicted %llu refused %llu timeouts "
         "header/message/idle/handshake %llu/%llu/%llu/%llu MessageError size/protocol %llu/%llu "
         "budget refused %llu (closed %llu) in flight peak %llu of %llu\n",
         what, (unsigned long long)st.open, (unsigned long long)st.accepted,
         (unsigned long long)st.evicted, (unsigned long long)st.refused,
         (unsigned long long)st.timeout_header, (unsigned long long)st.timeout_message,
         (unsigned long long)st.timeout_idle, (unsigned long long)st.timeout_handshake,
         (unsigned long long)st.limit_message, (unsigned long long)st.limit_protocol,
         (unsigned long long)st.limit_budget, (unsigned long long)st.limit_budget_closed,
         (unsigned long long)st.in_flight_peak, (unsigned long long)st.in_flight_max);
}

/* A self-signed server certificate (CN=localhost) and its key: 1, or 0
 * without the openssl command (then no TLS phase). */
static int make_certs(char *cert, char *key)
{
  if (!tlsu_begin("dos") || tlsu_ca("srv", "srv.pem", "/CN=localhost") != 0)
    return 0;
  tlsu_path(cert, "srv.pem");
  tlsu_path(key, "srv.key");
  return 1;
}

int main(int argc, char **argv)
{
  int longrun = argc > 1 && strcmp(argv[1], "--long") == 0;
  int soak_s = longrun ? 90 : 2;
  setvbuf(stdout, NULL, _IOLBF, 0);

  /* Descriptors: 1,100 attackers, as many server sockets, valid clients. */
  struct rlimit rl;
  int nstall = 1100;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
    rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
  }
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2400) {
    printf("dos: only %llu descriptors allowed: 1,100-connection phase skipped\n",
           (unsigned long long)rl.rlim_cur);
    nstall = 0;
  }

  char cert[TLSU_PATH_MAX], key[TLSU_PATH_MAX];
  int tls = make_certs(cert, key);
  int fd0 = count_fds();

  iiop_server_opts o;
  iiop_server_opts_default(&o);
  o.limits.header_timeout_ms = HEADER_MS;
  o.limits.message_timeout_ms = MESSAGE_MS;
  o.limits.idle_timeout_ms = IDLE_MS;
  o.limits.handshake_timeout_ms = HANDSHAKE_MS;
  o.limits.max_in_flight = (size_t)16 << 20;
  o.handshake_timeout_ms = HANDSHAKE_MS;
  if (tls) {
    o.tls_cert = cert;
    o.tls_key = key;
  }
  iiop_server *s = NULL;
  if (iiop_server_new(&o, &s) != CDR_OK || iiop_server_activate(s, "Echo", 4, &iface, NULL) != CDR_OK
      || iiop_server_start(s) != CDR_OK) {
    fprintf(stderr, "dos: server did not start\n");
    return 1;
  }
  port = iiop_server_port(s);
  tls_port = iiop_server_tls_port(s);
  cdr_arena *ar = cdr_arena_get();
  char *ior = NULL;
  if (iiop_server_ior(s, "Echo", 4, ar, &ior) != CDR_OK)
    return 1;
  char corbaloc[64];
  snprintf(corbaloc, sizeof corbaloc, "corbaloc:iiop:1.2@127.0.0.1:%u/Echo", (unsigned)port);

  int *fds = calloc(2000, sizeof *fds);
  int64_t *at = calloc(2000, sizeof *at);
  caller cs[4];
  uint64_t ok = 0, lost = 0, nores = 0;
  int64_t gap;

  /* Warm-up: the valid clients' pools and the server's threads. */
  callers_start(cs, 2, corbaloc, 0);
  usleep(300 * 1000);
  gap = callers_stop(cs, 2, &ok, &lost, NULL);
  long rss_warm = rss_bytes();

  /* 1. 500 connections: 3 octets each, then nothing. */
  callers_start(cs, 2, corbaloc, 0);
  int64_t t0 = tu_now_ms(), tl;
  int n = stall_open(fds, at, 500, "GIO", 3, port);
  int64_t t = stall_wait_closed(fds, at, 500, t0, HEADER_MS + SLACK_MS + 2000, &tl);
  uint64_t ok1 = 0, lost1 = 0;
  gap = callers_stop(cs, 2, &ok1, &lost1, NULL);
  printf("dos: 500 stalled (3 octets): %d connected, all closed after %lld ms, each within %lld "
         "ms of its connect (header timeout %d ms); valid calls %llu, lost %llu, longest gap %lld "
         "ms\n",
         n, (long long)tl, (long long)t, HEADER_MS, (unsigned long long)ok1,
         (unsigned long long)lost1, (long long)gap);
  CHECK(n == 500, "%d of 500 connected", n);
  CHECK(t >= 0 && t <= HEADER_MS + SLACK_MS, "closed %lld ms after its connect", (long long)t);
  CHECK(lost1 == 0 && ok1 > 0, "valid calls %llu lost %llu", (unsigned long long)ok1,
        (unsigned long long)lost1);
  CHECK(gap < 3000, "gap %lld ms", (long long)gap);
  ok += ok1;
  lost += lost1;

  /* 2. 1,100 of them: past the cap, while valid clients call. */
  if (nstall) {
    callers_start(cs, 2, corbaloc, 0);
    usleep(100 * 1000);
    t0 = tu_now_ms();
    n = stall_open(fds, at, nstall, "GIO", 3, port);
    uint64_t ok2 = 0, lost2 = 0;
    usleep(500 * 1000);
    /* A client that connects now is served too. */
    caller late;
    callers_start(&late, 1, corbaloc, 0);
    usleep(300 * 1000);
    gap = callers_stop(&late, 1, &ok2, &lost2, NULL);
    int64_t late_gap = gap;
    t = stall_wait_closed(fds, at, nstall, t0, HEADER_MS + SLACK_MS + 3000, &tl);
    gap = callers_stop(cs, 2, &ok2, &lost2, NULL);
    printf("dos: %d stalled over a cap of 1024: %d connected, all closed after %lld ms, each "
           "within %lld ms of its connect; valid calls %llu, lost %llu, longest gap %lld ms (a "
           "client connecting at the cap: first answer within %lld ms)\n",
           nstall, n, (long long)tl, (long long)t, (unsigned long long)ok2,
           (unsigned long long)lost2, (long long)gap, (long long)late_gap);
    stats_line(s, "after 1,100");
    CHECK(t >= 0 && t <= HEADER_MS + SLACK_MS + 500, "closed %lld ms after its connect",
          (long long)t);
    CHECK(lost2 == 0 && ok2 > 0, "valid calls %llu lost %llu", (unsigned long long)ok2,
          (unsigned long long)lost2);
    CHECK(gap < 3000 && late_gap < 3000, "gap %lld / %lld ms", (long long)gap,
          (long long)late_gap);
    ok += ok2;
    lost += lost2;
  }

  /* 3. TLS: a stalled handshake, and a client idle after its handshake. */
  if (tls) {
    t0 = tu_now_ms();
    int hs = nu_try_connect(NULL, tls_port);
    (void)send(hs, "\x16\x03\x01", 3, MSG_NOSIGNAL);
    iiop_tls_ctx *cx = NULL;
    iiop_transport *tt = NULL, *tcp = NULL;
    int idle_ok = iiop_tls_client_ctx(NULL, 0, &cx) == CDR_OK;
    int64_t t_conn0 = tu_now_ms(); /* the idle clock starts after this */
    idle_ok = idle_ok && iiop_tcp_connect("127.0.0.1", tls_port, 2000, &tcp) == CDR_OK
              && iiop_tls_connect(cx, tcp, "localhost", 2000, &tt) == CDR_OK;
    int64_t t_idle0 = tu_now_ms();
    int fh[1] = { hs };
    int64_t th = stall_wait_closed(fh, NULL, 1, t0, HANDSHAKE_MS + SLACK_MS + 2000, NULL);
    /* The idle timeout sends CloseConnection; the server then lingers
     * (LINGER_MS) for this client, which stays silent, to close first. */
    int64_t t_cc = -1, t_end = -1;
    size_t got = 0;
    uint8_t cc[12] = { 0 };
    if (idle_ok) {
      uint8_t b[64];
      for (;;) { /* CloseConnection, then the close */
        long r = tt->ops->read(tt, b, sizeof b, IDLE_MS + SLACK_MS + 2000);
        if (r <= 0)
          break;
        for (long k = 0; k < r && got + (size_t)k < sizeof cc; k++)
          cc[got + (size_t)k] = b[k];
        got += (size_t)r;
        if (t_cc < 0 && got >= sizeof cc)
          t_cc = tu_now_ms();
      }
      t_end = tu_now_ms();
      tt->ops->free(tt);
    }
    iiop_tls_ctx_free(cx);
    int is_cc = memcmp(cc, "GIOP", 4) == 0 && cc[7] == GIOP_CLOSE_CONNECTION;
    int64_t cc_lo = t_cc - t_conn0, cc_hi = t_cc - t_idle0, lingered = t_end - t_cc;
    printf("dos: TLS: stalled handshake closed after %lld ms (handshake timeout %d ms); idle "
           "after its handshake: %zu octets (CloseConnection%s) %lld ms after the handshake "
           "(%lld after the connect; idle timeout %d ms), closed %lld ms after that (linger %d "
           "ms)\n",
           (long long)th, HANDSHAKE_MS, got, is_cc ? "" : ": not one", (long long)cc_hi,
           (long long)cc_lo, IDLE_MS, (long long)lingered, LINGER_MS);
    CHECK(th >= 0 && th <= HANDSHAKE_MS + SLACK_MS, "handshake closed after %lld", (long long)th);
    CHECK(idle_ok && got == 12 && is_cc && t_cc >= 0, "idle TLS: %zu octets", got);
    CHECK(t_cc >= 0 && cc_lo >= IDLE_MS && cc_hi <= IDLE_MS + SLACK_MS,
          "idle TLS: CloseConnection %lld ms after the handshake, %lld after the connect",
          (long long)cc_hi, (long long)cc_lo);
    CHECK(t_cc >= 0 && lingered <= LINGER_MS + SLACK_MS, "idle TLS: closed %lld ms after it",
          (long long)lingered);
  } else {
    printf("dos: openssl missing: TLS phase skipped\n");
  }

  /* 4. Past the budget: 8 x 4 MiB echoString at once, and 20 connections
   * that announce 6 MiB and send 1 MiB. */
  {
    long rss0 = rss_bytes();
    static const uint8_t big[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, 0, 0, 0, 0x60, 0 };
    uint8_t *mb = calloc(1, 1 << 20);
    int nbig = 0;
    for (int k = 0; k < 20; k++) {
      fds[k] = nu_try_connect(NULL, port);
      if (fds[k] >= 0 && send(fds[k], big, 12, MSG_NOSIGNAL) == 12) {
        struct timeval tv = { 0, 200 * 1000 };
        setsockopt(fds[k], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        (void)send(fds[k], mb, 1 << 20, MSG_NOSIGNAL);
        nbig++;
      }
    }
    free(mb);
    /* 8 x 4 MiB and the stalled connections press on the 16 MiB budget;
     * Fragments of a request whose buffer must grow are held back by a
     * refusal (the case that once lost a request: answered, never closed). */
    int nbc = 8;
    caller bc[8];
    callers_start(bc, nbc, ior, (size_t)4 << 20);
    callers_start(cs, 1, corbaloc, 0);
    usleep((useconds_t)(MESSAGE_MS + 500) * 1000);
    uint64_t okb = 0, lostb = 0, okp = 0, lostp = 0;
    callers_stop(bc, nbc, &okb, &lostb, &nores);
    gap = callers_stop(cs, 1, &okp, &lostp, NULL);
    long rss1 = rss_bytes();
    t = stall_wait_closed(fds, NULL, 20, tu_now_ms(), MESSAGE_MS + SLACK_MS + 2000, NULL);
    iiop_server_stats st;
    iiop_server_stats_get(s, &st);
    printf("dos: budget 16 MiB: %d callers of 4 MiB echoString: %llu answered (%llu "
           "NO_RESOURCES), lost %llu; 20 stalled 6 MiB requests (1 MiB sent) closed after %lld ms; "
           "pings %llu, lost %llu; in flight peak %llu; RSS +%ld MiB\n",
           nbc, (unsigned long long)okb, (unsigned long long)nores,
           (unsigned long long)lostb,
           (long long)t, (unsigned long long)okp, (unsigned long long)lostp,
           (unsigned long long)st.in_flight_peak, (rss1 - rss0) >> 20);
    stats_line(s, "after the budget");
    CHECK(nbig == 20, "%d big", nbig);
    CHECK(lostb == 0 && okb > 0, "big calls %llu lost %llu", (unsigned long long)okb,
          (unsigned long long)lostb);
    CHECK(lostp == 0 && okp > 0 && gap < 3000, "pings %llu lost %llu gap %lld",
          (unsigned long long)okp, (unsigned long long)lostp, (long long)gap);
    CHECK(st.in_flight_peak <= st.in_flight_max, "peak %llu", (unsigned long long)st.in_flight_peak);
    CHECK(t >= 0, "stalled big requests still open");
    ok += okb + okp;
    lost += lostb + lostp;
  }

  /* 5. The soak: valid callers, malformed and vanishing clients. */
  {
    soaker z[4];
    for (int k = 0; k < 4; k++) {
      memset(&z[k], 0, sizeof z[k]);
      z[k].seed = 1234u + (unsigned)k;
      pthread_create(&z[k].thr, NULL, soak_main, &z[k]);
    }
    callers_start(cs, 2, corbaloc, 0);
    callers_start(cs + 2, 2, ior, 1000);
    sleep((unsigned)soak_s);
    uint64_t oks = 0, losts = 0, rounds = 0;
    gap = callers_stop(cs, 4, &oks, &losts, NULL);
    for (int k = 0; k < 4; k++) {
      z[k].stop = 1;
      pthread_join(z[k].thr, NULL);
      rounds += z[k].rounds;
    }
    printf("dos: soak %d s: valid calls %llu, lost %llu, longest gap %lld ms; %llu malformed or "
           "vanishing clients\n",
           soak_s, (unsigned long long)oks, (unsigned long long)losts, (long long)gap,
           (unsigned long long)rounds);
    CHECK(losts == 0 && oks > 0 && gap < 3000, "soak calls %llu lost %llu gap %lld",
          (unsigned long long)oks, (unsigned long long)losts, (long long)gap);
    ok += oks;
    lost += losts;
  }

  /* Everything ends: no connection left, descriptors back exactly. */
  int64_t te = tu_now_ms();
  iiop_server_stats st;
  while (iiop_server_stats_get(s, &st) == CDR_OK && st.open && tu_now_ms() - te < 5000)
    usleep(10 * 1000);
  long rss_end = rss_bytes();
  stats_line(s, "end");
  CHECK(st.open == 0, "%llu connections still open", (unsigned long long)st.open);
  CHECK(st.in_flight == 0, "%llu octets still charged", (unsigned long long)st.in_flight);
  cdr_arena_put(ar);
  iiop_server_free(s);
  int fd1 = count_fds();
  printf("dos: descriptors at the start %d, at the end %d; RSS after warm-up %ld MiB, after the "
         "soak %ld MiB; valid calls %llu in all, lost %llu\n",
         fd0, fd1, rss_warm >> 20, rss_end >> 20, (unsigned long long)ok,
         (unsigned long long)lost);
  CHECK(fd1 == fd0, "descriptors %d -> %d", fd0, fd1);
#ifndef DOS_SANITIZED
  CHECK(rss_end - rss_warm <= RSS_MARGIN, "RSS grew by %ld MiB", (rss_end - rss_warm) >> 20);
#endif
  free(fds);
  free(at);
  tlsu_end("dos");
  printf("dos: %s\n", failures ? "FAILED" : "all held");
  return failures ? 1 : 0;
}
