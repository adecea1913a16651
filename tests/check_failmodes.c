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
 * COMM_FAILURE_UnMarshalResults, a reply header over the client's
 * max_message MARSHAL_MessageSizeExceedLimitOnClient (MAYBE), a peer that
 * reads the request and never answers TIMEOUT_CallTimedOutOnClient (MAYBE);
 * each with its exact reason (iiop_client_last_error(): "not GIOP: the
 * stream begins ...", the refused version or type, the size and the limit,
 * the timeout).  The connect phase under a call timeout: a
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

enum { PEER_CLOSE, PEER_RESET, PEER_CLOSE_CONNECTION, PEER_GARBAGE, PEER_SILENT, PEER_HTTP,
       PEER_HUGE, PEER_V99, PEER_TYPE9, PEER_MUTE };

/* What the last ping_peer() left: the client's last error, the peer's port. */
static char peer_why[IIOP_CLIENT_ERROR_MAX];
static unsigned peer_port;

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
  static const char http[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  /* a Reply (big-endian) whose message_size is 2^31 - 1 */
  static const uint8_t huge[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, GIOP_REPLY, 0x7f, 0xff, 0xff,
                                    0xff };
  static const uint8_t v99[12] = { 'G', 'I', 'O', 'P', 9, 9, 0, GIOP_REPLY, 0, 0, 0, 0 };
  static const uint8_t type9[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, 9, 0, 0, 0, 0 };
  const void *answer = NULL;
  size_t answer_len = 0;
  switch (p->mode) {
  case PEER_HTTP:
    answer = http;
    answer_len = sizeof http - 1;
    break;
  case PEER_HUGE:
    answer = huge;
    answer_len = sizeof huge;
    break;
  case PEER_V99:
    answer = v99;
    answer_len = sizeof v99;
    break;
  case PEER_TYPE9:
    answer = type9;
    answer_len = sizeof type9;
    break;
  default:
    break;
  }
  if (answer)
    ck_assert_int_eq(write(fd, answer, answer_len), (ssize_t)answer_len);
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
  /* the client reads what was written first (PEER_MUTE: its call times out) */
  usleep((p->mode == PEER_MUTE ? 900 : 100) * 1000);
  close(fd);
  return NULL;
}

/* A ping to a raw peer of MODE with a call timeout of CALL_MS: what it ended
 * with (the client's last error in peer_why, the port in peer_port). */
static outcome ping_peer_ms(int mode, int call_ms)
{
  peer p = { 0, mode, -1, 0 };
  uint16_t port;
  p.lfd = nu_listen(4, &port);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, peer_main, &p), 0);
  iiop_client *c = new_client(NULL);
  iiop_ref *r = resolve_port(c, port);
  outcome o = call_ping(r, 5, call_ms);
  iiop_client_last_error(c, peer_why, sizeof peer_why);
  peer_port = port;
  pthread_join(t, NULL);
  ck_assert_uint_gt(p.got, 12);     /* the whole request was read */
  iiop_ref_free(r);
  check_usable(c);
  iiop_client_free(c);
  close(p.lfd);
  return o;
}

static outcome ping_peer(int mode)
{
  return ping_peer_ms(mode, 10000);
}

/* The last ping_peer()'s reason is "GIOP from 127.0.0.1:PORT: " WHAT. */
static void check_why(const char *what)
{
  char want[IIOP_CLIENT_ERROR_MAX];
  snprintf(want, sizeof want, "GIOP from 127.0.0.1:%u: %s", peer_port, what);
  ck_assert_str_eq(peer_why, want);
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
  check_why("not GIOP: the stream begins 47 41 52 42 (\"GARB\") (MessageError sent, "
            "connection closed)");
}
END_TEST

/* A web server's answer: the same, and the reason says what came. */
START_TEST(test_http_reply)
{
  outcome o = ping_peer(PEER_HTTP);
  check_ex(&o, CDR_E_PROTOCOL, "COMM_FAILURE", IIOP_MINOR_UNMARSHAL_RESULTS,
           GIOP_COMPLETED_MAYBE);
  check_why("not GIOP: the stream begins 48 54 54 50 (\"HTTP\") (MessageError sent, "
            "connection closed)");
}
END_TEST

/* A GIOP version the client does not speak, and a message type GIOP 1.2 lacks. */
START_TEST(test_bad_version_and_type)
{
  outcome o = ping_peer(PEER_V99);
  check_ex(&o, CDR_E_PROTOCOL, "COMM_FAILURE", IIOP_MINOR_UNMARSHAL_RESULTS,
           GIOP_COMPLETED_MAYBE);
  check_why("GIOP 9.9, a version this ORB does not speak (MessageError sent, connection closed)");
  o = ping_peer(PEER_TYPE9);
  check_ex(&o, CDR_E_PROTOCOL, "COMM_FAILURE", IIOP_MINOR_UNMARSHAL_RESULTS,
           GIOP_COMPLETED_MAYBE);
  check_why("a malformed GIOP 1.2 message (type 9, flags 0x00) (MessageError sent, connection "
            "closed)");
}
END_TEST

/* A reply header announcing 2 GiB: refused before anything is allocated,
 * MARSHAL_MessageSizeExceedLimitOnClient as omniORB, with size and limit. */
START_TEST(test_oversize_reply)
{
  outcome o = ping_peer(PEER_HUGE);
  check_ex(&o, CDR_E_LIMIT, "MARSHAL", IIOP_MINOR_MESSAGE_SIZE, GIOP_COMPLETED_MAYBE);
  ck_assert_uint_eq(IIOP_MINOR_MESSAGE_SIZE, 0x4154000bu); /* MARSHAL_MessageSizeExceedLimitOnClient */
  check_why("a GIOP message of 2147483659 octets, over the limit of 67108864 (MessageError sent, "
            "connection closed)");
}
END_TEST

/* A peer that reads the request and never answers: the call's timeout. */
START_TEST(test_reply_timeout)
{
  outcome o = ping_peer_ms(PEER_MUTE, 300);
  check_ex(&o, CDR_E_TIMEOUT, "TIMEOUT", IIOP_MINOR_CALL_TIMED_OUT, GIOP_COMPLETED_MAYBE);
  ck_assert_int_ge(o.ms, 295);
  ck_assert_int_le(o.ms, 300 + SLACK_MS);
  check_why("the call's timeout (300 ms) passed before the reply");
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
  tcase_add_test(tc, test_http_reply);
  tcase_add_test(tc, test_bad_version_and_type);
  tcase_add_test(tc, test_oversize_reply);
  tcase_add_test(tc, test_reply_timeout);
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
