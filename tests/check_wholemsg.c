/* check_wholemsg.c - the messages a large request and reply go out in, as
 * a raw TCP peer sees them: by default (fragment_size 0) a 64 KiB string
 * request from our client and its reply from our server each go as ONE
 * unfragmented GIOP message (as omniORB sends a string from the caller's
 * memory), in GIOP 1.0, 1.1 and 1.2; a message over GIOP_WHOLE_DEFAULT
 * (2 MiB) goes in 8 KiB fragments; an explicit fragment_size (1024) cuts
 * every larger 1.1/1.2 message into fragments of exactly that size, and
 * never a GIOP 1.0 one, nor a 1.1 LocateRequest or LocateReply (1.1
 * fragments only Request and Reply).  Every message's size is asserted.
 * And the GIOP version of the MessageError our client answers a refused
 * reply header with. */
#include <check.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/frag.h>
#include <iiop/msg.h>
#include <iiop/orb.h>
#include "../libiiop/connection.h"
#include "../libiiop/transport.h"
#include "netutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- a raw peer */

/* The messages of one (possibly fragmented) GIOP message as they came:
 * each one's size (12-octet header included) and type, and the
 * reassembled message. */
typedef struct pattern {
  size_t n;
  size_t size[1024];
  uint8_t type[1024];
  uint8_t *msg;                        /* reassembled, malloc'd */
  size_t len;
} pattern;

/* Read one GIOP message from FD, fragment by fragment, into P. */
static void read_pattern(int fd, pattern *p)
{
  memset(p, 0, sizeof *p);
  for (;;) {
    uint8_t h[12];
    ck_assert(nu_read_full(fd, h, 12));
    giop_header gh;
    ck_assert_int_eq(giop_header_parse(h, 12, &gh), CDR_OK);
    ck_assert_uint_le(gh.size, 8u << 20);
    ck_assert_uint_lt(p->n, 1024);
    p->size[p->n] = 12 + (size_t)gh.size;
    p->type[p->n] = gh.type;
    size_t skip = p->n == 0 ? 0 : gh.minor == 2 ? 4 : 0;   /* a Fragment's request ID */
    ck_assert_uint_ge(gh.size, skip);
    uint8_t *body = malloc((size_t)gh.size + 1);
    ck_assert_ptr_nonnull(body);
    ck_assert(gh.size == 0 || nu_read_full(fd, body, gh.size));
    size_t add = (size_t)gh.size - skip + (p->n == 0 ? 12 : 0);
    p->msg = realloc(p->msg, p->len + add);
    ck_assert_ptr_nonnull(p->msg);
    if (p->n == 0) {
      memcpy(p->msg, h, 12);
      p->len = 12;
    }
    memcpy(p->msg + p->len, body + skip, (size_t)gh.size - skip);
    p->len += (size_t)gh.size - skip;
    free(body);
    p->n++;
    if (!(gh.flags & GIOP_FLAG_MORE_FRAGMENTS))
      break;
  }
  /* The reassembled message as one: flags cleared, message_size the total. */
  p->msg[6] &= (uint8_t)~GIOP_FLAG_MORE_FRAGMENTS;
  uint32_t size = (uint32_t)(p->len - 12);
  int little = p->msg[6] & GIOP_FLAG_LITTLE_ENDIAN;
  for (int k = 0; k < 4; k++)
    p->msg[8 + k] = (uint8_t)(little ? size >> (8 * k) : size >> (8 * (3 - k)));
}

/* P is LEN octets as FRAG allows (0, the default: whole up to
 * GIOP_WHOLE_DEFAULT, then GIOP_FRAG_DEFAULT): one message of LEN octets
 * when FRAG is 0 or LEN <= FRAG, or MINOR is 0; else a first message of
 * FRAG (1.2) or FRAG - 4 (1.1) octets, Fragments of FRAG (1.2, 16 + data)
 * or FRAG - 4 (1.1, 12 + data) octets and a last one with the rest. */
static void expect_pattern(const pattern *p, int minor, size_t frag, size_t len)
{
  if (frag == 0)                       /* the default: whole up to 2 MiB, then 8 KiB */
    frag = len > GIOP_WHOLE_DEFAULT ? GIOP_FRAG_DEFAULT : 0;
  ck_assert_uint_eq(p->len, len);
  if (frag == 0 || len <= frag || minor == 0) {
    ck_assert_uint_eq(p->n, 1);
    ck_assert_uint_eq(p->size[0], len);
    return;
  }
  size_t first = minor == 2 ? frag : frag - 4, hl = minor == 2 ? 16 : 12, cap = frag - 16;
  size_t rest = len - first, nfrag = (rest + cap - 1) / cap;
  ck_assert_uint_eq(p->n, 1 + nfrag);
  ck_assert_uint_eq(p->size[0], first);
  for (size_t k = 1; k < p->n; k++) {
    ck_assert_uint_eq(p->type[k], GIOP_FRAGMENT);
    ck_assert_uint_eq(p->size[k], hl + (k + 1 < p->n ? cap : rest - (nfrag - 1) * cap));
  }
}

static char *make_string(size_t n)
{
  char *s = malloc(n + 1);
  ck_assert_ptr_nonnull(s);
  for (size_t k = 0; k < n; k++)
    s[k] = (char)('a' + k * 7 % 26);
  s[n] = 0;
  return s;
}

/* ---------------------------------------------------------------- our server */

static const iiop_operation ops[] = { { "echoString", nu_op_echo_string },
                                      { "echoStringView", nu_op_echo_view } };
static const iiop_interface iface = { "IDL:Bench/Echo:1.0", ops, 2, NULL };

typedef struct strn {
  const char *s;
  size_t n;
} strn;
static void arg_strn(cdr_out *o, const void *ud)
{
  const strn *a = ud;
  cdr_put_string_n(o, a->s, a->n);
}

/* A GIOP 1.MINOR Request OP(S) (N octets), its encoding malloc'd into *OUT. */
static size_t build_request(int minor, uint32_t id, const char *op, const char *s, size_t n,
                            uint8_t **out)
{
  size_t cap = n + 512;
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  strn a = { s, n };
  nu_req r = nu_req_default(id, "Echo", op);
  r.minor = (uint8_t)minor;
  r.args = arg_strn;
  r.ud = &a;
  *out = buf;
  return nu_request(buf, cap, &r);
}

/* The reply octets of a GIOP 1.MINOR echo of N octets: header 12, reply
 * header 12 (1.2: request ID, status, empty context list; 1.0/1.1: the
 * list, ID, status), the string 4 + N + 1 (1.2: the body starts at 24,
 * already on 8). */
static size_t reply_len(size_t n) { return 12 + 12 + 4 + n + 1; }

/* Our server (fragment_size FRAG) answers OP with a string of N octets
 * from a raw client in GIOP 1.MINOR: the reply's messages as FRAG allows. */
static void server_reply(int minor, size_t frag, const char *op, size_t n)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  so.fragment_size = frag;
  iiop_server *srv = nu_serve(&so, "Echo", &iface, NULL);
  int fd = nu_connect(NULL, iiop_server_port(srv), 20, 0);
  char *s = make_string(n);
  uint8_t *req;
  for (uint32_t id = 1; id <= 2; id++) {      /* the second on a warm connection */
    size_t rl = build_request(minor, id, op, s, n, &req);
    ck_assert_int_eq(send(fd, req, rl, MSG_NOSIGNAL), (ssize_t)rl);
    free(req);
    pattern p;
    read_pattern(fd, &p);
    TU_CTX("server reply 1.%d frag %zu %s n %zu", minor, frag, op, n);
    expect_pattern(&p, minor, frag, reply_len(n));
    cdr_arena *a = cdr_arena_get();
    giop_message gm;
    ck_assert_int_eq(giop_parse(&gm, p.msg, p.len, NULL, a), CDR_OK);
    ck_assert_uint_eq(gm.hdr.type, GIOP_REPLY);
    ck_assert_uint_eq(gm.hdr.minor, minor);
    ck_assert_uint_eq(gm.u.reply.request_id, id);
    ck_assert_uint_eq(gm.u.reply.reply_status, GIOP_NO_EXCEPTION);
    uint32_t gl;
    const char *got = cdr_get_string(&gm.body, &gl);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(gl, n);
    ck_assert(memcmp(got, s, n) == 0);
    cdr_in_close(&gm.body);
    cdr_arena_put(a);
    free(p.msg);
  }
  free(s);
  close(fd);
  iiop_server_free(srv);
}

/* 64 KiB, by default: one Reply of 65,565 octets, copied or by reference. */
START_TEST(test_server_64k_whole)
{
  ck_assert_uint_eq(reply_len(65536), 65565);
  server_reply(2, 0, "echoString", 65536);
  server_reply(2, 0, "echoStringView", 65536);
  server_reply(1, 0, "echoStringView", 65536);
  server_reply(0, 0, "echoStringView", 65536);
}
END_TEST

/* fragment_size 1024: a first Reply of 1024 and 65 Fragments (64 of 1024,
 * the last 16 + 29) in GIOP 1.2; 1.1 cut at 1020; 1.0 whole. */
START_TEST(test_server_64k_frag1024)
{
  server_reply(2, 1024, "echoStringView", 65536);
  server_reply(2, 1024, "echoString", 65536);
  server_reply(1, 1024, "echoStringView", 65536);
  server_reply(0, 1024, "echoStringView", 65536);
}
END_TEST

/* Over 2 MiB by default: 8 KiB fragments (3 MiB: a first Reply of 8192
 * and 385 Fragments); 2 MiB less a little still whole. */
START_TEST(test_server_over_whole_limit)
{
  size_t big = 3u << 20, edge = GIOP_WHOLE_DEFAULT - reply_len(0);
  ck_assert_uint_eq(reply_len(edge), GIOP_WHOLE_DEFAULT);
  server_reply(2, 0, "echoStringView", edge);
  server_reply(2, 0, "echoStringView", edge + 1);
  server_reply(2, 0, "echoStringView", big);
}
END_TEST

/* ---------------------------------------------------------------- our client */

typedef struct raw_server {
  int lfd;
  int minor;                           /* GIOP minor of the replies: the request's */
  int calls;                           /* requests to answer */
  pattern req[2];                      /* what came, per call */
  int ok;
} raw_server;

/* Accept one connection; read CALLS requests, each answered with a whole
 * Reply echoing its string. */
static void *raw_server_main(void *arg)
{
  raw_server *rs = arg;
  int fd = accept(rs->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  struct timeval tv = { 20, 0 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (int k = 0; k < rs->calls; k++) {
    pattern *p = &rs->req[k];
    read_pattern(fd, p);
    cdr_arena *a = cdr_arena_get();
    giop_message gm;
    ck_assert_int_eq(giop_parse(&gm, p->msg, p->len, NULL, a), CDR_OK);
    ck_assert_uint_eq(gm.hdr.type, GIOP_REQUEST);
    uint32_t n;
    const char *s = cdr_get_string(&gm.body, &n);
    ck_assert_ptr_nonnull(s);
    size_t cap = (size_t)n + 256;
    uint8_t *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    cdr_opts o;
    cdr_opts_default(&o);
    o.giop_minor = gm.hdr.minor;
    cdr_out w;
    ck_assert_int_eq(cdr_out_init_buffer(&w, &o, buf, cap), CDR_OK);
    giop_reply_header rh;
    memset(&rh, 0, sizeof rh);
    rh.request_id = gm.u.request.request_id;
    rh.reply_status = GIOP_NO_EXCEPTION;
    ck_assert_int_eq(giop_begin_reply(&w, &rh), CDR_OK);
    giop_begin_body(&w);
    cdr_put_string_n(&w, s, n);
    ck_assert_int_eq(giop_end(&w), CDR_OK);
    ck_assert_int_eq(send(fd, buf, cdr_out_size(&w), MSG_NOSIGNAL), (ssize_t)cdr_out_size(&w));
    cdr_out_close(&w);
    free(buf);
    cdr_in_close(&gm.body);
    cdr_arena_put(a);
  }
  rs->ok = 1;
  close(fd);
  return NULL;
}

/* Our client (fragment_size FRAG) calls echoString with a string of N
 * octets (by reference) over GIOP 1.MINOR to a raw server: each request's
 * messages as FRAG allows. */
static void client_request(int minor, size_t frag, size_t n)
{
  raw_server rs;
  memset(&rs, 0, sizeof rs);
  rs.minor = minor;
  rs.calls = 2;
  uint16_t port;
  rs.lfd = nu_listen(4, &port);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, raw_server_main, &rs), 0);

  iiop_client_opts co;
  iiop_client_opts_default(&co);
  co.fragment_size = frag;
  iiop_client *c = iiop_client_new(&co);
  ck_assert_ptr_nonnull(c);
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.%d@127.0.0.1:%u/Echo", minor, (unsigned)port);
  iiop_ref *r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  char *s = make_string(n);
  for (int k = 0; k < 2; k++)
    nu_check_echo(r, "echoString", s, n, NU_ECHO_BY_REF);
  pthread_join(th, NULL);
  ck_assert(rs.ok);
  for (int k = 0; k < 2; k++) {
    pattern *p = &rs.req[k];
    TU_CTX("client request 1.%d frag %zu n %zu call %d", minor, frag, n, k);
    ck_assert_uint_eq(p->type[0], GIOP_REQUEST);
    ck_assert_uint_gt(p->len, n + 16);
    ck_assert_uint_lt(p->len, n + 512);
    expect_pattern(p, minor, frag, p->len);
    free(p->msg);
  }
  free(s);
  iiop_ref_free(r);
  iiop_client_free(c);
  close(rs.lfd);
}

/* 64 KiB, by default: one Request, in every GIOP version. */
START_TEST(test_client_64k_whole)
{
  client_request(2, 0, 65536);
  client_request(1, 0, 65536);
  client_request(0, 0, 65536);
}
END_TEST

/* fragment_size 1024: 1 KiB fragments in 1.2 and 1.1, 1.0 whole. */
START_TEST(test_client_64k_frag1024)
{
  client_request(2, 1024, 65536);
  client_request(1, 1024, 65536);
  client_request(0, 1024, 65536);
}
END_TEST

/* Over 2 MiB by default: 8 KiB fragments. */
START_TEST(test_client_over_whole_limit)
{
  client_request(2, 0, 3u << 20);
}
END_TEST

/* ---------------------------------------------------------------- which messages fragment */

/* A GIOP 1.MINOR message of TYPE (Request, Reply, LocateRequest or
 * LocateReply) of about N octets: a key (or a body) of N octets, malloc'd
 * into *OUT; its length. */
static size_t build_typed(int minor, int type, size_t n, uint8_t **out)
{
  size_t cap = n + 256;
  uint8_t *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  uint8_t *key = malloc(n);
  ck_assert_ptr_nonnull(key);
  memset(key, 'k', n);
  cdr_opts o;
  cdr_opts_default(&o);
  o.giop_minor = (uint8_t)minor;
  cdr_out w;
  ck_assert_int_eq(cdr_out_init_buffer(&w, &o, buf, cap), CDR_OK);
  if (type == GIOP_LOCATE_REQUEST) {
    giop_locate_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 7;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = key;
    h.target.key_len = (uint32_t)n;
    ck_assert_int_eq(giop_begin_locate_request(&w, &h), CDR_OK);
  } else if (type == GIOP_LOCATE_REPLY) {
    giop_locate_reply_header h = { 7, GIOP_OBJECT_FORWARD };
    ck_assert_int_eq(giop_begin_locate_reply(&w, &h), CDR_OK);
    cdr_put_seq(&w, key, (uint32_t)n, 1); /* (the forward IOR's place) */
  } else if (type == GIOP_REQUEST) {
    giop_request_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 7;
    h.response_flags = GIOP_RESPONSE_EXPECTED;
    h.target.disposition = GIOP_KEY_ADDR;
    h.target.key = (const uint8_t *)"Echo";
    h.target.key_len = 4;
    h.operation = "op";
    h.operation_len = 2;
    ck_assert_int_eq(giop_begin_request(&w, &h), CDR_OK);
    giop_begin_body(&w);
    cdr_put_seq(&w, key, (uint32_t)n, 1);
  } else {
    giop_reply_header h;
    memset(&h, 0, sizeof h);
    h.request_id = 7;
    h.reply_status = GIOP_NO_EXCEPTION;
    ck_assert_int_eq(giop_begin_reply(&w, &h), CDR_OK);
    giop_begin_body(&w);
    cdr_put_seq(&w, key, (uint32_t)n, 1);
  }
  ck_assert_int_eq(giop_end(&w), CDR_OK);
  size_t len = cdr_out_size(&w);
  cdr_out_close(&w);
  free(key);
  *out = buf;
  return len;
}

/* A connection (fragment_size 1024) sends a 4 KiB message of each type in
 * GIOP 1.0, 1.1 and 1.2: only what the version lets fragment is cut (1.1:
 * Request and Reply; 1.2: LocateRequest and LocateReply too; 1.0: none),
 * the rest goes whole, and each reassembles to the message sent. */
START_TEST(test_conn_fragmentable_types)
{
  static const int types[] = { GIOP_REQUEST, GIOP_REPLY, GIOP_LOCATE_REQUEST, GIOP_LOCATE_REPLY };
  int a, b;
  nu_tcp_pair(&a, &b, 0, 0, 0);
  iiop_transport *t;
  ck_assert_int_eq(iiop__tcp_wrap(a, NULL, &t), CDR_OK);
  iiop_conn_opts co;
  memset(&co, 0, sizeof co);
  co.fragment_size = 1024;
  iiop_conn *c;
  ck_assert_int_eq(iiop__conn_new(t, &co, &c), CDR_OK);
  for (int minor = 0; minor <= 2; minor++) {
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
      uint8_t *msg;
      size_t len = build_typed(minor, types[k], 4096, &msg);
      ck_assert_uint_gt(len, 4096);
      TU_CTX("GIOP 1.%d type %d, %zu octets", minor, types[k], len);
      ck_assert_int_eq(iiop__conn_send(c, msg, len, 7), CDR_OK);
      pattern p;
      read_pattern(b, &p);
      int frag = minor == 2 || (minor == 1 && types[k] <= GIOP_REPLY);
      ck_assert_uint_eq(p.type[0], types[k]);
      expect_pattern(&p, frag ? minor : 0, 1024, len);
      ck_assert_uint_eq(p.n, frag ? 5u : 1u);
      ck_assert(memcmp(p.msg, msg, len) == 0);
      free(p.msg);
      free(msg);
    }
  }
  iiop__conn_free(c);
  close(b);
}
END_TEST

/* Our client, calling in GIOP 1.2, gets a reply header it refuses: it
 * answers MessageError in that header's version (1.0 for a 1.0 Fragment,
 * 1.1 for a 1.1 LocateReply flagged more fragments, 1.2 for "GIOP" 1.5),
 * and the call fails CDR_E_PROTOCOL. */
typedef struct bad_reply_server {
  int lfd;
  uint8_t h[12];
  uint8_t got[12];
  int ok;
} bad_reply_server;

static void *bad_reply_main(void *arg)
{
  bad_reply_server *bs = arg;
  int fd = accept(bs->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  struct timeval tv = { 20, 0 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  pattern p;
  read_pattern(fd, &p);
  free(p.msg);
  if (nu_send_all(fd, bs->h, 12) && nu_read_full(fd, bs->got, 12))
    bs->ok = 1;
  close(fd);
  return NULL;
}

START_TEST(test_client_message_error_version)
{
  static const struct {
    uint8_t h[12];
    uint8_t minor;
  } c[] = {
    { { 'G', 'I', 'O', 'P', 1, 0, 1, GIOP_FRAGMENT, 0, 0, 0, 0 }, 0 },
    { { 'G', 'I', 'O', 'P', 1, 1, 3, GIOP_LOCATE_REPLY, 8, 0, 0, 0 }, 1 },
    { { 'G', 'I', 'O', 'P', 1, 5, 1, GIOP_REPLY, 0, 0, 0, 0 }, 2 },
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    bad_reply_server bs;
    memset(&bs, 0, sizeof bs);
    memcpy(bs.h, c[k].h, 12);
    uint16_t port;
    bs.lfd = nu_listen(4, &port);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, bad_reply_main, &bs), 0);
    iiop_client *cl = iiop_client_new(NULL);
    ck_assert_ptr_nonnull(cl);
    char url[96];
    snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/Echo", (unsigned)port);
    iiop_ref *r = NULL;
    ck_assert_int_eq(iiop_client_resolve(cl, url, &r), CDR_OK);
    iiop_call *call;
    cdr_out *args;
    ck_assert_int_eq(iiop_call_begin(r, "echoString", 0, &call, &args), CDR_OK);
    cdr_put_string(args, "x");
    cdr_in *res = NULL;
    ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_E_PROTOCOL);
    iiop_call_end(call);
    pthread_join(th, NULL);
    ck_assert_msg(bs.ok, "case %zu: no answer", k);
    ck_assert_msg(!memcmp(bs.got, "GIOP", 4) && bs.got[4] == 1 && bs.got[5] == c[k].minor
                    && bs.got[7] == GIOP_MESSAGE_ERROR,
                  "case %zu: GIOP %u.%u type %u, want MessageError 1.%u", k, bs.got[4],
                  bs.got[5], bs.got[7], c[k].minor);
    iiop_ref_free(r);
    iiop_client_free(cl);
    close(bs.lfd);
  }
}
END_TEST

static Suite *wholemsg_suite(void)
{
  Suite *s = suite_create("wholemsg");
  TCase *tc = tcase_create("wholemsg");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_server_64k_whole);
  tcase_add_test(tc, test_server_64k_frag1024);
  tcase_add_test(tc, test_server_over_whole_limit);
  tcase_add_test(tc, test_client_64k_whole);
  tcase_add_test(tc, test_client_64k_frag1024);
  tcase_add_test(tc, test_client_over_whole_limit);
  tcase_add_test(tc, test_conn_fragmentable_types);
  tcase_add_test(tc, test_client_message_error_version);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = wholemsg_suite };
