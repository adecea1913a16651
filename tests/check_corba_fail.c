/* check_corba_fail.c - the C mapping's view of local failures and of
 * interceptors that raise: a refused port is TRANSIENT with omniORB's
 * TRANSIENT_ConnectFailed (CORBAORB_MINOR_CONNECT_FAILED), a peer that
 * closes after reading the request is COMM_FAILURE_WaitingForReply, one
 * that answers a Reply header of 2 GiB MARSHAL with
 * MARSHAL_MessageSizeExceedLimitOnClient and its reason in
 * corbaorb_ORB_last_error(); an
 * ORB-level client interceptor (corbaorb_orb_add_client_interceptor())
 * raising with iiop_call_set_exception() from send_request or
 * receive_reply gives the caller's CORBA_Environment that exception
 * (repository ID, minor, completion).  The remote calls are
 * CORBA_Object_is_a() against an in-process libiiop server (the builtin
 * _is_a) or a raw TCP peer. */
#include <check.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <corbaorb/corba.h>
#include <iiop/orb.h>
#include "netutil.h"
#include "testutil.h"

static CORBA_ORB new_orb(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t";
  char *argv[] = { a0, NULL };
  int argc = 1;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  return orb;
}

static void free_orb(CORBA_ORB orb)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB_destroy(orb, &ev);
  CORBA_exception_free(&ev);
}

static CORBA_Object object_at(CORBA_ORB orb, uint16_t port)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char url[96];
  snprintf(url, sizeof url, "corbaloc::1.2@127.0.0.1:%u/P", (unsigned)port);
  CORBA_Object o = CORBA_ORB_string_to_object(orb, url, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  return o;
}

/* CORBA_Object_is_a(OBJ) raised ID with MINOR and COMPLETED. */
static void check_is_a_raises(CORBA_Object obj, const char *id, uint32_t minor, int completed)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  (void)CORBA_Object_is_a(obj, "IDL:Test/P:1.0", &ev);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), id);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, minor);
  ck_assert_int_eq(se->completed, completed);
  CORBA_exception_free(&ev);
}

static iiop_server *srv;
static const iiop_interface iface = { "IDL:Test/P:1.0", NULL, 0, NULL };

static uint16_t start_server(void)
{
  iiop_server_opts o;
  iiop_server_opts_default(&o);
  srv = nu_serve(&o, "P", &iface, NULL);
  return iiop_server_port(srv);
}

START_TEST(test_refused_minor)
{
  uint16_t port;
  int fd = nu_listen(-1, &port);
  CORBA_ORB orb = new_orb();
  CORBA_Object obj = object_at(orb, port);
  check_is_a_raises(obj, ex_CORBA_TRANSIENT, CORBAORB_MINOR_CONNECT_FAILED, CORBA_COMPLETED_NO);
  ck_assert_uint_eq(CORBAORB_MINOR_CONNECT_FAILED, 0x41540002u);
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object_release(obj, &ev);
  free_orb(orb);
  close(fd);
}
END_TEST

/* A raw peer: accepts on LFD, reads the request (one small message: its
 * size into GOT), writes ANSWER (LEN octets; none when NULL), closes. */
typedef struct raw_peer {
  int lfd, got;
  const uint8_t *answer;
  size_t len;
} raw_peer;

static void *answer_request(void *arg)
{
  raw_peer *p = arg;
  int fd = accept(p->lfd, NULL, NULL);
  if (fd < 0)
    return NULL;
  char buf[512];
  p->got = (int)read(fd, buf, sizeof buf);
  if (p->answer)
    ck_assert_int_eq(write(fd, p->answer, p->len), (ssize_t)p->len);
  usleep(50 * 1000);
  close(fd);
  return NULL;
}

START_TEST(test_closed_minor)
{
  uint16_t port;
  raw_peer p = { nu_listen(4, &port), 0, NULL, 0 };
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, answer_request, &p), 0);
  CORBA_ORB orb = new_orb();
  CORBA_Object obj = object_at(orb, port);
  check_is_a_raises(obj, ex_CORBA_COMM_FAILURE, CORBAORB_MINOR_WAITING_FOR_REPLY,
                    CORBA_COMPLETED_MAYBE);
  pthread_join(t, NULL);
  ck_assert_int_gt(p.got, 12);      /* a whole request was read */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object_release(obj, &ev);
  free_orb(orb);
  close(p.lfd);
}
END_TEST

START_TEST(test_oversize_reply_minor)
{
  static const uint8_t huge[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, GIOP_REPLY, 0xff, 0xff, 0xff,
                                    0x7f }; /* little-endian, message_size 2^31 - 1 */
  uint16_t port;
  raw_peer p = { nu_listen(4, &port), 0, huge, sizeof huge };
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, answer_request, &p), 0);
  CORBA_ORB orb = new_orb();
  CORBA_Object obj = object_at(orb, port);
  check_is_a_raises(obj, ex_CORBA_MARSHAL, CORBAORB_MINOR_MESSAGE_SIZE, CORBA_COMPLETED_MAYBE);
  ck_assert_uint_eq(CORBAORB_MINOR_MESSAGE_SIZE, 0x4154000bu);
  pthread_join(t, NULL);
  ck_assert_int_gt(p.got, 12);
  char why[CORBAORB_ERROR_MAX], want[CORBAORB_ERROR_MAX];
  corbaorb_ORB_last_error(orb, why, sizeof why);
  snprintf(want, sizeof want, "GIOP from 127.0.0.1:%u: a GIOP message of 2147483659 octets, "
           "over the limit of 67108864 (MessageError sent, connection closed)", (unsigned)port);
  ck_assert_str_eq(why, want);
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object_release(obj, &ev);
  free_orb(orb);
  close(p.lfd);
}
END_TEST

/* -ORBgiopMaxMsgSize 16384, omniORB's option: a reply header over it is
 * refused as soon as it comes (without the option the client would wait
 * for its 20,000 octets), a request over it is not sent at all */
START_TEST(test_giop_max_msg_size)
{
  static const uint8_t big[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, GIOP_REPLY, 0, 0, 0x4e, 0x20 };
  uint16_t port;
  raw_peer p = { nu_listen(4, &port), 0, big, sizeof big }; /* message_size 20,000 */
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, answer_request, &p), 0);
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t", a1[] = "-ORBgiopMaxMsgSize", a2[] = "16384";
  char *argv[] = { a0, a1, a2, NULL };
  int argc = 3;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 1);
  CORBA_Object obj = object_at(orb, port);
  check_is_a_raises(obj, ex_CORBA_MARSHAL, CORBAORB_MINOR_MESSAGE_SIZE, CORBA_COMPLETED_MAYBE);
  pthread_join(t, NULL);
  ck_assert_int_gt(p.got, 12);
  char why[CORBAORB_ERROR_MAX], want[CORBAORB_ERROR_MAX];
  corbaorb_ORB_last_error(orb, why, sizeof why);
  snprintf(want, sizeof want, "GIOP from 127.0.0.1:%u: a GIOP message of 20012 octets, over the "
           "limit of 16384 (MessageError sent, connection closed)", (unsigned)port);
  ck_assert_str_eq(why, want);
  /* a request of more than 16,384 octets (a 20,000-character type ID for
   * _is_a: 12 + 36 of headers + 4 + 20,001 of body = 20,053): refused
   * before it is written, completion NO */
  static char id[20001];
  memset(id, 'x', sizeof id - 1);
  CORBA_Object_is_a(obj, id, &ev);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_MARSHAL);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, CORBAORB_MINOR_MESSAGE_SIZE);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  corbaorb_ORB_last_error(orb, why, sizeof why);
  ck_assert_str_eq(why, "_is_a: a request of 20053 octets, over -ORBgiopMaxMsgSize 16384");
  CORBA_Object_release(obj, &ev);
  free_orb(orb);
  close(p.lfd);
}
END_TEST

static int mode;                    /* 1: send_request raises, 2: receive_reply raises */
static int sends, recvs;

static int ic_send(void *ud, iiop_call *call)
{
  (void)ud;
  sends++;
  if (mode != 1)
    return CDR_OK;
  ck_assert_int_eq(iiop_call_set_exception(call, ex_CORBA_NO_PERMISSION, 0x4f4d0001u,
                                           GIOP_COMPLETED_NO),
                   CDR_OK);
  return IIOP_R_SYSTEM_EXCEPTION;
}

static void ic_recv(void *ud, iiop_call *call, int status)
{
  (void)ud;
  recvs++;
  ck_assert_int_eq(status, CDR_OK);
  if (mode == 2)
    ck_assert_int_eq(iiop_call_set_exception(call, ex_CORBA_TRANSIENT, 0x41540011u,
                                             GIOP_COMPLETED_YES),
                     CDR_OK);
}

START_TEST(test_interceptor_raises)
{
  uint16_t port = start_server();
  CORBA_ORB orb = new_orb();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  static const iiop_client_interceptor ic = { ic_send, ic_recv };
  corbaorb_orb_add_client_interceptor(orb, &ic, NULL, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object obj = object_at(orb, port);

  mode = 0;
  ck_assert(CORBA_Object_is_a(obj, "IDL:Test/P:1.0", &ev));
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(sends, 1);
  ck_assert_int_eq(recvs, 1);

  mode = 1;
  check_is_a_raises(obj, ex_CORBA_NO_PERMISSION, 0x4f4d0001u, CORBA_COMPLETED_NO);
  ck_assert_int_eq(sends, 2);
  ck_assert_int_eq(recvs, 1);       /* refused: no receive_reply */

  mode = 2;
  check_is_a_raises(obj, ex_CORBA_TRANSIENT, 0x41540011u, CORBA_COMPLETED_YES);
  ck_assert_int_eq(sends, 3);
  ck_assert_int_eq(recvs, 2);

  mode = 0;
  ck_assert(CORBA_Object_is_a(obj, "IDL:Test/P:1.0", &ev));
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(obj, &ev);
  free_orb(orb);
  iiop_server_free(srv);
}
END_TEST

static Suite *corba_fail_suite(void)
{
  Suite *s = suite_create("corba_fail");
  TCase *tc = tcase_create("corba_fail");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_refused_minor);
  tcase_add_test(tc, test_closed_minor);
  tcase_add_test(tc, test_oversize_reply_minor);
  tcase_add_test(tc, test_giop_max_msg_size);
  tcase_add_test(tc, test_interceptor_raises);
  suite_add_tcase(s, tc);
  return s;
}

static int corba_fail_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = corba_fail_suite, .setup = corba_fail_setup };
