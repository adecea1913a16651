/* check_writev.c - the TCP transport's gather write (iiop/conn.h,
 * iiop_transport_ops.writev) with long lists: one sendmsg takes up to
 * IOV_MAX entries, and a write the socket buffer cuts short goes on from
 * the exact octet it stopped at, even past the first batch of entries the
 * retry loop copies (the case that once resent octets and corrupted the
 * stream).  Over loopback TCP with small socket buffers and a reader that
 * starts late, so the first sendmsg is partial; the reader checks every
 * octet against the pattern. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cdr/cdr.h>
#include <iiop/conn.h>
#include "netutil.h"
#include "testutil.h"

static uint8_t pat(size_t off) { return (uint8_t)(off * 131u + (off >> 9)); }

typedef struct reader {
  int fd;
  size_t want, got, bad;             /* octets expected, read, not as the pattern */
} reader;

static void *reader_main(void *arg)
{
  reader *r = arg;
  usleep(50 * 1000);                 /* let the writer fill the buffers first */
  uint8_t b[1500];
  while (r->got < r->want) {
    ssize_t n = recv(r->fd, b, sizeof b, 0);
    if (n <= 0)
      break;
    for (ssize_t k = 0; k < n; k++)
      if (b[k] != pat(r->got + (size_t)k))
        r->bad++;
    r->got += (size_t)n;
    if ((r->got / sizeof b) % 8 == 0)
      usleep(1000);                  /* slowly: the writer meets a full buffer again */
  }
  return NULL;
}

/* N entries of 1 to MAXLEN octets (every 7th empty when EMPTIES) written
 * with one writev: the reader gets exactly the concatenation. */
static void run(int n, size_t maxlen, int empties)
{
  int wfd, rfd;
  nu_tcp_pair(&wfd, &rfd, 4096, 4096, 0); /* 4 KiB send and receive buffers */
  iiop_transport *t = NULL;
  ck_assert_int_eq(iiop_tcp_wrap(wfd, &t), CDR_OK);
  struct iovec *v = calloc((size_t)n, sizeof *v);
  size_t total = 0;
  uint64_t x = 88172645463325252u;
  for (int k = 0; k < n; k++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    size_t len = empties && k % 7 == 3 ? 0 : 1 + (size_t)(x % maxlen);
    uint8_t *p = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t j = 0; j < len; j++)
      p[j] = pat(total + j);
    v[k].iov_base = p;
    v[k].iov_len = len;
    total += len;
  }
  reader r = { rfd, total, 0, 0 };
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, reader_main, &r), 0);
  int rc = t->ops->writev(t, v, n, 20000);
  pthread_join(th, NULL);
  TU_CTX("%d entries of up to %zu octets, %zu in all", n, maxlen, total);
  ck_assert_int_eq(rc, CDR_OK);
  ck_assert_uint_eq(r.got, total);
  ck_assert_uint_eq(r.bad, 0);
  for (int k = 0; k < n; k++)
    free(v[k].iov_base);
  free(v);
  t->ops->free(t);
  close(rfd);
}

/* Small entries: the first (partial) sendmsg writes far more than 64 of
 * them. */
START_TEST(test_many_small) { run(1000, 1000, 0); }
END_TEST

/* Past IOV_MAX (1024): written in batches from the start. */
START_TEST(test_past_iov_max) { run(3000, 400, 0); }
END_TEST

/* Larger entries, empty ones among them. */
START_TEST(test_mixed_empties) { run(700, 3000, 1); }
END_TEST

static Suite *writev_suite(void)
{
  Suite *s = suite_create("writev");
  TCase *tc = tcase_create("writev");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_many_small);
  tcase_add_test(tc, test_past_iov_max);
  tcase_add_test(tc, test_mixed_empties);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = writev_suite };
