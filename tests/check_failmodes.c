/* check_failmodes.c - how a client call fails when the server cannot be
 * reached or goes away, and which system exception it then reports
 * (iiop_call_exception(): omniORB's minor codes, IIOP_MINOR_* in
 * iiop/orb.h, docs/wire-notes.md "Minor codes of local failures").
 *
 * What is checked, each against a raw TCP peer on a port of its own:
 * a refused port is TRANSIENT_ConnectFailed (completion NO); a peer that
 * reads the request and closes, or resets, or is killed (SIGKILL) is
 * COMM_FAILURE_WaitingForReply (MAYBE); a CloseConnection instead of the
 * reply is TRANSIENT_ConnectionClosed (NO); garbage instead of a reply is
 * COMM_FAILURE_UnMarshalResults.  The connect phase under a call timeout: a
 * listener whose accept queue is full (SYNs dropped: the TCP handshake
 * never completes) and a TCP peer that accepts a TLS connection and never
 * answers its ClientHello both end the call with CDR_E_TIMEOUT, TIMEOUT
 * minor TIMEOUT_CallTimedOutOnClient (completion NO, as omniORB 4.2 has
 * it), within the call's timeout
 * and a slack for a loaded machine; the same client then calls a real
 * server successfully. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"
#include "tlsutil.h"

#define SLACK_MS 2000 /* how much later than its timeout a call may return */

/* ---------------------------------------------------------------- a real server */

static const iiop_operation ops[] = { { "ping", nu_op_ping } };
static const iiop_interface iface = { "IDL:Test/Pinger:1.0", ops, 1, NULL };

static iiop_server *start_server(void)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  return nu_serve(&o, "Pinger", &iface, NULL);
}

static iiop_ref *resolve_port(iiop_client *c, uint16_t port)
{
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Pinger", (unsigned)port);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  return r;
}

typedef nu_outcome outcome;

static outcome call_ping(iiop_ref *r, int32_t x, int call_ms)
{
  return nu_call(r, "ping", &x, 1, call_ms, 0);
}

static void check_ex(const outcome *o, int rc, const char *name, uint32_t minor, uint32_t completed)
{
  ck_assert_int_eq(o->rc, rc);
  ck_assert_ptr_nonnull(o->ex.repo_id);
  ck_assert_str_eq(o->ex.repo_id, name);
  ck_assert_uint_eq(o->ex.minor, minor);
  ck_assert_uint_eq(o->ex.completed, completed);
}

/* After a failure, C still works: a ping to a real server. */
static void check_usable(iiop_client *c)
{
  iiop_server *s = start_server();
  iiop_ref *r = resolve_port(c, iiop_server_port(s));
  outcome o = call_ping(r, 77, 5000);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_int_eq(o.value, 77);
  iiop_ref_free(r);
  iiop_server_free(s);
}

static iiop_client *new_client(const char *ca)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.tls_ca_file = ca;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

/* ---------------------------------------------------------------- raw peers */

enum { PEER_CLOSE, PEER_RESET, PEER_CLOSE_CONNECTION, PEER_GARBAGE, PEER_SILENT };

typedef struct peer {
  int lfd, mode;
  int fd;                           /* the accepted connection (PEER_SILENT keeps it) */
  size_t got;                       /* octets of the request read */
} peer;

/* Read one whole GIOP message (header and body) from FD; its size. */
static size_t read_message(int fd)
{
  uint8_t h[12];
  size_t n = 0;
  while (n < sizeof h) {
    ssize_t k = read(fd, h + n, sizeof h - n);
    if (k <= 0)
      return n;
    n += (size_t)k;
  }
  uint32_t len = h[6] & 1 ? (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16
                                | (uint32_t)h[11] << 24
                          : (uint32_t)h[11] | (uint32_t)h[10] << 8 | (uint32_t)h[9] << 16
                                | (uint32_t)h[8] << 24;
  uint8_t buf[4096];
  size_t left = len;
  while (left) {
    ssize_t k = read(fd, buf, left < sizeof buf ? left : sizeof buf);
    if (k <= 0)
      break;
    left -= (size_t)k;
  }
  return 12 + len - left;
}

static void *peer_main(void *arg)
{
  peer *p = arg;
  int fd = accept(p->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  if (p->mode == PEER_SILENT) {
    p->fd = fd;                     /* accepted, never read, never answered */
    return NULL;
  }
  p->got = read_message(fd);
  static const uint8_t close_conn[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, GIOP_CLOSE_CONNECTION,
                                          0, 0, 0, 0 };
  static const uint8_t garbage[12] = { 'G', 'A', 'R', 'B', 'A', 'G', 'E', '!', 0, 0, 0, 0 };
  switch (p->mode) {
  case PEER_RESET: {
    struct linger lg = { 1, 0 };    /* close() sends RST */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    break;
  }
  case PEER_CLOSE_CONNECTION:
    ck_assert_int_eq(write(fd, close_conn, sizeof close_conn), (ssize_t)sizeof close_conn);
    break;
  case PEER_GARBAGE:
    ck_assert_int_eq(write(fd, garbage, sizeof garbage), (ssize_t)sizeof garbage);
    break;
  default:
    break;
  }
  usleep(100 * 1000);               /* the client reads what was written first */
  close(fd);
  return NULL;
}

/* A ping to a raw peer of MODE: what it ended with. */
static outcome ping_peer(int mode)
{
  peer p = { 0, mode, -1, 0 };
  uint16_t port;
  p.lfd = nu_listen(4, &port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, peer_main, &p), 0);
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_port(c, port);
  outcome o = call_ping(r, 5, 10000);
  pthread_join(t, NULL);
  ck_assert_uint_gt(p.got, 12);     /* the whole request was read */
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
  close(p.lfd);
  return o;
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_refused)
{
  uint16_t port;
  int fd = nu_listen(-1, &port);    /* bound, not listening: RST to a SYN */
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_port(c, port);
  outcome o = call_ping(r, 1, 5000);
  check_ex(&o, CDR_E_IO, "TRANSIENT", IIOP_MINOR_CONNECT_FAILED, GIOP_COMPLETED_NO);
  ck_assert_uint_eq(IIOP_MINOR_CONNECT_FAILED, 0x41540002u); /* omniORB's TRANSIENT_ConnectFailed */
  /* again: the same (no connection cached) */
  o = call_ping(r, 1, 5000);
  check_ex(&o, CDR_E_IO, "TRANSIENT", IIOP_MINOR_CONNECT_FAILED, GIOP_COMPLETED_NO);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connect_failed, 2);
  ck_assert_uint_eq(st.connections, 0);
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
  close(fd);
}
END_TEST

START_TEST(test_closed_after_request)
{
  outcome o = ping_peer(PEER_CLOSE);
  check_ex(&o, CDR_E_CLOSED, "COMM_FAILURE", IIOP_MINOR_WAITING_FOR_REPLY, GIOP_COMPLETED_MAYBE);
  ck_assert_uint_eq(IIOP_MINOR_WAITING_FOR_REPLY, 0x41540007u); /* COMM_FAILURE_WaitingForReply */
}
END_TEST

START_TEST(test_reset_after_request)
{
  outcome o = ping_peer(PEER_RESET);
  ck_assert_int_ne(o.rc, CDR_OK);
  ck_assert(o.rc == CDR_E_CLOSED || o.rc == CDR_E_IO);
  check_ex(&o, o.rc, "COMM_FAILURE", IIOP_MINOR_WAITING_FOR_REPLY, GIOP_COMPLETED_MAYBE);
}
END_TEST

START_TEST(test_close_connection_instead_of_reply)
{
  outcome o = ping_peer(PEER_CLOSE_CONNECTION);
  check_ex(&o, CDR_E_CLOSED, "TRANSIENT", IIOP_MINOR_CONNECTION_CLOSED, GIOP_COMPLETED_NO);
  ck_assert_uint_eq(IIOP_MINOR_CONNECTION_CLOSED, 0x41540011u); /* TRANSIENT_ConnectionClosed */
}
END_TEST

START_TEST(test_garbage_reply)
{
  outcome o = ping_peer(PEER_GARBAGE);
  check_ex(&o, CDR_E_PROTOCOL, "COMM_FAILURE", IIOP_MINOR_UNMARSHAL_RESULTS,
           GIOP_COMPLETED_MAYBE);
  ck_assert_uint_eq(IIOP_MINOR_UNMARSHAL_RESULTS, 0x41540006u); /* COMM_FAILURE_UnMarshalResults */
}
END_TEST

/* A server process killed (SIGKILL) after it read the request. */
START_TEST(test_server_killed)
{
  uint16_t port;
  int lfd = nu_listen(4, &port);
  int sync[2];
  ck_assert_int_eq(pipe(sync), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fd = accept(lfd, NULL, NULL);
    size_t n = fd >= 0 ? read_message(fd) : 0;
    char ok = n > 12 ? 'y' : 'n';
    if (write(sync[1], &ok, 1) != 1)
      _exit(2);
    raise(SIGKILL);
    _exit(3);
  }
  close(lfd);
  close(sync[1]);
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_port(c, port);
  outcome o = call_ping(r, 9, 10000);
  char ok = 0;
  ck_assert_int_eq(read(sync[0], &ok, 1), 1);
  ck_assert_int_eq(ok, 'y');
  close(sync[0]);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  ck_assert(o.rc == CDR_E_CLOSED || o.rc == CDR_E_IO);
  check_ex(&o, o.rc, "COMM_FAILURE", IIOP_MINOR_WAITING_FOR_REPLY, GIOP_COMPLETED_MAYBE);
  /* the port is gone now: the next call is refused */
  o = call_ping(r, 9, 5000);
  check_ex(&o, CDR_E_IO, "TRANSIENT", IIOP_MINOR_CONNECT_FAILED, GIOP_COMPLETED_NO);
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
}
END_TEST

/* Fill the accept queue of LFD (listening with backlog 0 on PORT) with
 * connections nobody accepts until a SYN goes unanswered (the kernel
 * drops it: the queue is full); their sockets into FILL (at most 64),
 * their count into *N.  Returns 0 when the queue is full, -1 if it could
 * not be filled. */
static int fill_queue(uint16_t port, int *fill, int *n)
{
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  *n = 0;
  while (*n < 64) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -1;
    fill[(*n)++] = fd;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
      continue;
    if (errno != EINPROGRESS)
      return -1;
    struct pollfd pf = { fd, POLLOUT, 0 };
    if (poll(&pf, 1, 300) == 0)
      return 0;                     /* this SYN was dropped */
  }
  return -1;
}

static int can_fill_queue, have_openssl; /* found by failmodes_setup() */

/* Connect-phase timeout: a listener (backlog 0) whose accept queue has
 * been filled with connections nobody accepts, so that the kernel drops
 * further SYNs. */
START_TEST(test_connect_timeout)
{
  uint16_t port;
  int lfd = nu_listen(0, &port);
  int fill[64], nfill = 0;
  ck_assert_int_eq(fill_queue(port, fill, &nfill), 0);
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_port(c, port);
  outcome o = call_ping(r, 3, 300);
  check_ex(&o, CDR_E_TIMEOUT, "TIMEOUT", IIOP_MINOR_CALL_TIMED_OUT, GIOP_COMPLETED_NO);
  ck_assert_int_ge(o.ms, 295);
  ck_assert_int_le(o.ms, 300 + SLACK_MS);
  /* a second call on the same reference: the same, its own deadline */
  o = call_ping(r, 3, 200);
  check_ex(&o, CDR_E_TIMEOUT, "TIMEOUT", IIOP_MINOR_CALL_TIMED_OUT, GIOP_COMPLETED_NO);
  ck_assert_int_ge(o.ms, 195);
  ck_assert_int_le(o.ms, 200 + SLACK_MS);
  iiop_client_stats st;
  ck_assert_int_eq(iiop_client_stats_get(c, &st), CDR_OK);
  ck_assert_uint_eq(st.connections, 0);
  ck_assert_uint_eq(st.timeout_call, 2);
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
  for (int k = 0; k < nfill; k++)
    close(fill[k]);
  close(lfd);
}
END_TEST

/* A CA certificate for the client (the handshake never gets to use it). */
static char ca_file[TLSU_PATH_MAX];

static int make_ca(void)
{
  if (!tlsu_begin("check_failmodes") || tlsu_ca("ca", "ca.crt", "/CN=check_failmodes") != 0)
    return -1;
  tlsu_path(ca_file, "ca.crt");
  return 0;
}

/* A TLS reference to a TCP peer that accepts and never answers the
 * ClientHello: the handshake stalls; the call's deadline ends it. */
START_TEST(test_tls_handshake_stall)
{
  ck_assert_int_eq(make_ca(), 0);
  uint16_t port;
  peer p = { 0, PEER_SILENT, -1, 0 };
  p.lfd = nu_listen(4, &port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, peer_main, &p), 0);

  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_component comp;
  ck_assert_int_eq(iiop_ssl_component_encode(0x66, 0x06, port, 0, &a, &comp), CDR_OK);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:Test/Pinger:1.0", 1, 2, "127.0.0.1", 0,
                                 (const uint8_t *)"Pinger", 6, &comp, 1, &ior),
                   CDR_OK);
  char *str = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, 0, &a, &str), CDR_OK);
  iiop_client *c = new_client(ca_file);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, str, &r), CDR_OK);
  cdr_arena_free(&a);

  outcome o = call_ping(r, 4, 400);
  pthread_join(t, NULL);
  ck_assert_int_ge(p.fd, 0);        /* it was accepted: the TCP connect completed */
  check_ex(&o, CDR_E_TIMEOUT, "TIMEOUT", IIOP_MINOR_CALL_TIMED_OUT, GIOP_COMPLETED_NO);
  ck_assert_int_ge(o.ms, 395);
  ck_assert_int_le(o.ms, 400 + SLACK_MS);
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
  close(p.fd);
  close(p.lfd);
  tlsu_end("check_failmodes");
}
END_TEST

static Suite *failmodes_suite(void)
{
  Suite *s = suite_create("failmodes");
  TCase *tc = tcase_create("failmodes");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_closed_after_request);
  tcase_add_test(tc, test_reset_after_request);
  tcase_add_test(tc, test_close_connection_instead_of_reply);
  tcase_add_test(tc, test_garbage_reply);
  tcase_add_test(tc, test_server_killed);
  if (can_fill_queue)
    tcase_add_test(tc, test_connect_timeout);
  else
    fprintf(stderr, "check_failmodes: a listener's accept queue cannot be filled here (SYNs are "
                    "not dropped): the connect timeout test is left out\n");
  if (have_openssl)
    tcase_add_test(tc, test_tls_handshake_stall);
  else
    fprintf(stderr, "check_failmodes: no openssl command: the TLS handshake test is left out\n");
  suite_add_tcase(s, tc);
  return s;
}

static int failmodes_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  have_openssl = system("command -v openssl >/dev/null 2>&1") == 0;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t sl = sizeof sa;
  int fill[64], n = 0;
  if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0
      && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 && listen(fd, 0) == 0)
    can_fill_queue = fill_queue(ntohs(sa.sin_port), fill, &n) == 0;
  for (int k = 0; k < n; k++)
    close(fill[k]);
  if (fd >= 0)
    close(fd);
  return 0;
}

const tu_program tu_prog = { .suite = failmodes_suite, .setup = failmodes_setup };
