/* check_wlock.c - the connection write lock (libiiop/wlock.h, internal:
 * linked through libcorbaiiop-internal.la):
 * mutual exclusion under contention (threads increment a plain, non-atomic
 * counter and flag overlaps while they hold the lock: no overlap and no lost
 * increment is allowed), hand-over to a waiter at unlock, close waking every
 * waiter, and the promise that a free lock never touches the mutex.
 *
 * The stress test is meant to catch a broken lock: built against
 * libiiop/wlock.c compiled with -DWLOCK_BROKEN (test-then-set instead of
 * compare-and-set) it fails, e.g.
 *   gcc -std=gnu11 -O2 -pthread -DWLOCK_BROKEN -DIIOP_BUILDING -I. \
 *     -Ilibcdr/include -Ilibiiop/include -Ilibiiop libiiop/wlock.c tests/check_wlock.c \
 *     $(pkg-config --cflags --libs check) -o /tmp/wlock-broken && /tmp/wlock-broken
 * CI runs it under ThreadSanitizer, which also checks that the lock orders
 * the plain counter's accesses (a data race report fails the run).
 *
 * Threads other than the main one record results; every ck_assert runs on
 * the main thread (Check's assertions are not thread-safe with CK_FORK=no). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/cdr.h>
#include "wlock.h"
#include "testutil.h"

/* Join T, failing the test if it has not finished within SECONDS (a lost
 * wakeup would otherwise hang the suite until Check's timeout). */
static void join_within(pthread_t t, int seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += seconds;
  int rc = pthread_timedjoin_np(t, NULL, &ts);
  ck_assert_msg(rc == 0, "thread did not finish within %d s (rc %d): lost wakeup?", seconds, rc);
}

static int load_int(const int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* Wait (at most 10 s) until L has N waiters counted. */
static void wait_waiters(iiop__wlock *l, int n)
{
  for (int k = 0; k < 10000 && load_int(&l->waiters) != n; k++) {
    struct timespec d = { 0, 1000000 };
    nanosleep(&d, NULL);
  }
  ck_assert_int_eq(load_int(&l->waiters), n);
}

/* ---------------------------------------------------------------- stress */

/* Threads take the lock as fast as they can for STRESS_MS of wall time
 * (a time budget rather than a count, so that the test keeps its length
 * under ThreadSanitizer).  While holding it they spin briefly (and now and
 * then yield, so that the others find it taken and go through the waiter
 * path); between holds each spins a random while, so that threads arrive at
 * the lock at every phase of another's unlock.  A test-then-set lock shows
 * overlaps within a fraction of a second on two cores. */
#define STRESS_THREADS 4
#define STRESS_MS 1500

typedef struct stress {
  iiop__wlock lock;
  int holder;            /* 1 while some thread holds the lock (atomic accesses) */
  uint64_t counter;      /* plain: only ever touched under the lock */
  int overlaps;          /* atomic */
  int errors;            /* atomic: lock() returned something other than CDR_OK */
  int saw_waiters;       /* atomic: a holder saw a counted waiter (the slow path ran) */
  int go, stop;          /* atomic */
  uint64_t iters[STRESS_THREADS];
} stress;

typedef struct stress_arg {
  stress *s;
  int id;
} stress_arg;

static void spin(unsigned n)
{
  for (volatile unsigned j = 0; j < n; j++)
    ;
}

static void *stress_thread(void *arg)
{
  stress_arg *a = arg;
  stress *s = a->s;
  uint64_t rng = 0x9E3779B97F4A7C15u * (uint64_t)(a->id + 1), k = 0;
  while (!__atomic_load_n(&s->go, __ATOMIC_ACQUIRE))
    sched_yield();
  while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
    if (iiop__wlock_lock(&s->lock) != CDR_OK) {
      __atomic_add_fetch(&s->errors, 1, __ATOMIC_RELAXED);
      break;
    }
    if (__atomic_exchange_n(&s->holder, 1, __ATOMIC_RELAXED) != 0)
      __atomic_add_fetch(&s->overlaps, 1, __ATOMIC_RELAXED);
    /* A read-modify-write spread out, so that an overlapping holder loses
     * increments. */
    uint64_t v = s->counter;
    spin(20);
    s->counter = v + 1;
    if (__atomic_load_n(&s->lock.waiters, __ATOMIC_RELAXED) != 0)
      __atomic_store_n(&s->saw_waiters, 1, __ATOMIC_RELAXED);
    if ((k & 255) == 0)
      sched_yield();
    __atomic_store_n(&s->holder, 0, __ATOMIC_RELAXED);
    iiop__wlock_unlock(&s->lock);
    k++;
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    spin((unsigned)(rng >> 58));      /* 0..63 */
  }
  s->iters[a->id] = k;
  return NULL;
}

START_TEST(test_stress)
{
  stress *s = calloc(1, sizeof *s);
  ck_assert_ptr_nonnull(s);
  iiop__wlock_init(&s->lock);
  pthread_t t[STRESS_THREADS];
  stress_arg args[STRESS_THREADS];
  for (int k = 0; k < STRESS_THREADS; k++) {
    args[k] = (stress_arg){ s, k };
    ck_assert_int_eq(pthread_create(&t[k], NULL, stress_thread, &args[k]), 0);
  }
  __atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
  struct timespec d = { STRESS_MS / 1000, (STRESS_MS % 1000) * 1000000L };
  nanosleep(&d, NULL);
  __atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
  uint64_t total = 0;
  for (int k = 0; k < STRESS_THREADS; k++) {
    join_within(t[k], 60);
    total += s->iters[k];
  }
  ck_assert_int_eq(s->errors, 0);
  ck_assert_msg(s->overlaps == 0, "%d overlapping holds in %llu acquisitions", s->overlaps,
                (unsigned long long)total);
  ck_assert_msg(s->counter == total, "counter %llu after %llu acquisitions: increments lost",
                (unsigned long long)s->counter, (unsigned long long)total);
  ck_assert_msg(total >= 1000, "only %llu acquisitions", (unsigned long long)total);
  ck_assert_msg(s->saw_waiters, "the waiter path never ran");
  ck_assert_int_eq(load_int(&s->lock.waiters), 0);
  ck_assert_int_eq(load_int(&s->lock.locked), 0);
  iiop__wlock_destroy(&s->lock);
  free(s);
}
END_TEST

/* ---------------------------------------------------------------- basics */

START_TEST(test_basic)
{
  iiop__wlock l;
  iiop__wlock_init(&l);
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(iiop__wlock_lock(&l), CDR_OK);
    ck_assert_int_eq(load_int(&l.locked), 1);
    iiop__wlock_unlock(&l);
    ck_assert_int_eq(load_int(&l.locked), 0);
  }
  iiop__wlock_close(&l);
  ck_assert_int_eq(iiop__wlock_lock(&l), CDR_E_CLOSED);
  ck_assert_int_eq(iiop__wlock_lock(&l), CDR_E_CLOSED);
  iiop__wlock_destroy(&l);
}
END_TEST

/* ---------------------------------------------------------------- hand-over */

typedef struct waiter {
  iiop__wlock *l;
  int rc;
  int got;               /* atomic: 1 once lock() returned */
  int unlock_after;      /* unlock when it got the lock */
} waiter;

static void *waiter_thread(void *arg)
{
  waiter *w = arg;
  w->rc = iiop__wlock_lock(w->l);
  __atomic_store_n(&w->got, 1, __ATOMIC_SEQ_CST);
  if (w->rc == CDR_OK && w->unlock_after)
    iiop__wlock_unlock(w->l);
  return NULL;
}

START_TEST(test_handover)
{
  iiop__wlock l;
  iiop__wlock_init(&l);
  ck_assert_int_eq(iiop__wlock_lock(&l), CDR_OK);
  waiter w[3];
  pthread_t t[3];
  for (int k = 0; k < 3; k++) {
    w[k] = (waiter){ &l, -100, 0, 1 };
    ck_assert_int_eq(pthread_create(&t[k], NULL, waiter_thread, &w[k]), 0);
  }
  wait_waiters(&l, 3);
  for (int k = 0; k < 3; k++)
    ck_assert_int_eq(load_int(&w[k].got), 0);   /* all blocked while held */
  iiop__wlock_unlock(&l);                          /* one is signalled, each passes it on */
  for (int k = 0; k < 3; k++) {
    join_within(t[k], 10);
    ck_assert_int_eq(w[k].rc, CDR_OK);
  }
  ck_assert_int_eq(load_int(&l.waiters), 0);
  ck_assert_int_eq(load_int(&l.locked), 0);
  iiop__wlock_destroy(&l);
}
END_TEST

/* ---------------------------------------------------------------- close */

START_TEST(test_close_wakes_waiters)
{
  iiop__wlock l;
  iiop__wlock_init(&l);
  ck_assert_int_eq(iiop__wlock_lock(&l), CDR_OK);
  enum { NW = 4 };
  waiter w[NW];
  pthread_t t[NW];
  for (int k = 0; k < NW; k++) {
    w[k] = (waiter){ &l, -100, 0, 0 };
    ck_assert_int_eq(pthread_create(&t[k], NULL, waiter_thread, &w[k]), 0);
  }
  wait_waiters(&l, NW);
  iiop__wlock_close(&l);
  for (int k = 0; k < NW; k++) {
    join_within(t[k], 10);
    ck_assert_int_eq(w[k].rc, CDR_E_CLOSED);
  }
  ck_assert_int_eq(load_int(&l.waiters), 0);
  /* The holder still unlocks (once); later attempts fail. */
  iiop__wlock_unlock(&l);
  ck_assert_int_eq(iiop__wlock_lock(&l), CDR_E_CLOSED);
  iiop__wlock_destroy(&l);
}
END_TEST

/* ---------------------------------------------------------------- fast path */

typedef struct fast {
  iiop__wlock *l;
  int errors;
} fast;

static void *fast_thread(void *arg)
{
  fast *f = arg;
  for (int k = 0; k < 1000; k++) {
    if (iiop__wlock_lock(f->l) != CDR_OK)
      f->errors++;
    else
      iiop__wlock_unlock(f->l);
  }
  return NULL;
}

/* With the mutex held by the main thread, uncontended lock/unlock on another
 * thread must still complete: the free lock never touches the mutex. */
START_TEST(test_fast_path_no_mutex)
{
  iiop__wlock l;
  iiop__wlock_init(&l);
  pthread_mutex_lock(&l.mu);
  fast f = { &l, 0 };
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, fast_thread, &f), 0);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += 10;
  int rc = pthread_timedjoin_np(t, NULL, &ts);
  pthread_mutex_unlock(&l.mu);
  if (rc != 0)
    pthread_join(t, NULL);
  ck_assert_msg(rc == 0, "uncontended lock/unlock blocked on the mutex");
  ck_assert_int_eq(f.errors, 0);
  iiop__wlock_destroy(&l);
}
END_TEST

static Suite *wlock_suite(void)
{
  Suite *s = suite_create("wlock");
  TCase *tc = tcase_create("wlock");
  tcase_add_test(tc, test_basic);
  tcase_add_test(tc, test_fast_path_no_mutex);
  tcase_add_test(tc, test_handover);
  tcase_add_test(tc, test_close_wakes_waiters);
  tcase_add_test(tc, test_stress);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = wlock_suite };
