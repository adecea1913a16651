/* check_poolreg.c - the table statistics' registry of live threads
 * (libcdr/itab.c) as threads enter the per-thread cache, count, and exit.
 *
 * A thread is linked in the registry at its first table count while its
 * cache is LIVE, not when it enters the cache: a thread that enters (keeps
 * an arena, takes from a shared pool) and never counts leaves every table
 * total as it was; a thread that counts shows its counts to
 * cdr_tables_get_stats() while it runs, and they stay in the totals, once,
 * after it exits.
 *
 * White-box: links the library's objects with every symbol visible.  The
 * threads record what they saw; the main thread asserts (Check's
 * assertions must not run on other threads when CK_FORK=no).  Pool
 * settings are process-wide: each test sets the defaults and measures
 * deltas.
 */
#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <cdr/arena.h>
#include <cdr/pool.h>
#include <cdr/tables.h>
#include "itab.h"
#include "testutil.h"

#define DELTA(a, b, f) ((b).f - (a).f)

static cdr_tables_stats snap(void)
{
  cdr_tables_stats st;
  cdr_tables_get_stats(&st);
  return st;
}

static void pool_defaults(void)
{
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_OK);
}

/* A table of 9 pointer keys (one past the inline entries: it takes one
 * block), released (the block to the thread's pool); 0 when every put
 * succeeded. */
static unsigned spill_one(void)
{
  static const char keys[9];
  cdr_itab t;
  unsigned bad = 0;
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  for (uintptr_t i = 0; i < 9; i++)
    bad += cdr_itab_put(&t, (uintptr_t)&keys[i], i + 1) != CDR_OK;
  bad += cdr_itab_block_cap(&t) == 0;
  cdr_itab_release(&t);
  return bad;
}

/* Enter the cache without a table count: an arena taken and kept. */
static void enter_by_arena(void)
{
  cdr_arena *a = cdr_arena_get();
  if (a)
    cdr_arena_put(a);
}

typedef struct stepper {
  pthread_barrier_t step;
  bool count; /* spill a table between the first and second step */
  unsigned bad;
} stepper;

static void *stepped(void *arg)
{
  stepper *s = arg;
  enter_by_arena();
  pthread_barrier_wait(&s->step); /* 1: entered, nothing counted */
  pthread_barrier_wait(&s->step); /* 2: the main thread has read */
  if (s->count)
    s->bad += spill_one();
  pthread_barrier_wait(&s->step); /* 3: counted (or not) */
  pthread_barrier_wait(&s->step); /* 4: the main thread has read; exit */
  return NULL;
}

/* A thread in the cache that never counts leaves the table totals as they
 * were, while it runs and after it exits. */
START_TEST(test_enter_without_count)
{
  pool_defaults();
  stepper s = { .count = false };
  ck_assert_int_eq(pthread_barrier_init(&s.step, NULL, 2), 0);
  cdr_tables_stats s0 = snap();
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, stepped, &s), 0);
  pthread_barrier_wait(&s.step);
  cdr_tables_stats s01 = snap();
  pthread_barrier_wait(&s.step);
  pthread_barrier_wait(&s.step);
  cdr_tables_stats s1 = snap();
  pthread_barrier_wait(&s.step);
  pthread_join(th, NULL);
  cdr_tables_stats s2 = snap();
  pthread_barrier_destroy(&s.step);
  ck_assert_int_eq(memcmp(&s0, &s01, sizeof s0), 0);
  ck_assert_int_eq(memcmp(&s0, &s1, sizeof s0), 0);
  ck_assert_int_eq(memcmp(&s0, &s2, sizeof s0), 0);
}
END_TEST

/* A thread's first count links it: its counts show while it runs (one
 * block taken, one pooled), and at its exit they join the totals once,
 * with the block handed to the shared pool. */
START_TEST(test_counts_while_live_and_after)
{
  pool_defaults();
  cdr_tables_flush_shared();
  stepper s = { .count = true };
  ck_assert_int_eq(pthread_barrier_init(&s.step, NULL, 2), 0);
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, stepped, &s), 0);
  pthread_barrier_wait(&s.step);
  cdr_tables_stats s0 = snap();
  pthread_barrier_wait(&s.step);
  pthread_barrier_wait(&s.step);
  cdr_tables_stats s1 = snap();
  pthread_barrier_wait(&s.step);
  pthread_join(th, NULL);
  cdr_tables_stats s2 = snap();
  pthread_barrier_destroy(&s.step);
  ck_assert_uint_eq(s.bad, 0);
  /* While it runs: the block was new (nothing was shared) and is pooled. */
  ck_assert_uint_eq(DELTA(s0, s1, allocs), 1);
  ck_assert_uint_eq(DELTA(s0, s1, shared_hits) + DELTA(s0, s1, pool_hits), 0);
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 1);
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts), 0);
  /* After its exit: the same counts, once, and its block shared. */
  ck_assert_uint_eq(DELTA(s0, s2, allocs), 1);
  ck_assert_uint_eq(DELTA(s0, s2, pooled), 1);
  ck_assert_uint_eq(DELTA(s0, s2, shared_puts), 1);
  ck_assert_uint_eq(DELTA(s0, s2, frees), 0);
  ck_assert_uint_eq(s2.shared_pooled, 1);
  cdr_tables_flush_shared();
  ck_assert_uint_eq(snap().shared_pooled, 0);
}
END_TEST

#define WORKERS 8
#define ROUNDS 4
#define SPILLS 25

typedef struct worker {
  unsigned bad;
} worker;

static void *spiller(void *arg)
{
  worker *w = arg;
  enter_by_arena(); /* in the cache before the first count: linked at it */
  for (int k = 0; k < SPILLS; k++)
    w->bad += spill_one();
  return NULL;
}

/* Threads that enter, count and exit while the main thread sums the
 * registry: every table's block is counted once, taken (pooled, shared or
 * new) and released. */
START_TEST(test_many_threads_exact_totals)
{
  pool_defaults();
  cdr_tables_flush_shared();
  cdr_tables_stats s0 = snap();
  unsigned bad = 0;
  for (int r = 0; r < ROUNDS; r++) {
    worker w[WORKERS] = { { 0 } };
    pthread_t th[WORKERS];
    for (int i = 0; i < WORKERS; i++)
      ck_assert_int_eq(pthread_create(&th[i], NULL, spiller, &w[i]), 0);
    for (int k = 0; k < 50; k++) /* sums while threads link and unlink */
      (void)snap();
    for (int i = 0; i < WORKERS; i++) {
      pthread_join(th[i], NULL);
      bad += w[i].bad;
    }
  }
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(bad, 0);
  uint64_t n = (uint64_t)WORKERS * ROUNDS * SPILLS;
  ck_assert_uint_eq(DELTA(s0, s1, pool_hits) + DELTA(s0, s1, shared_hits)
                    + DELTA(s0, s1, allocs), n);
  /* A thread keeps its one block from table to table: each thread's first
   * table takes a shared or a new block, the others its pooled one. */
  ck_assert_uint_eq(DELTA(s0, s1, pool_hits), (uint64_t)WORKERS * ROUNDS * (SPILLS - 1));
  ck_assert_uint_eq(DELTA(s0, s1, pooled), n);
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts) + DELTA(s0, s1, freed_full),
                    (uint64_t)WORKERS * ROUNDS);
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts) - DELTA(s0, s1, shared_hits),
                    s1.shared_pooled);
  cdr_tables_flush_shared();
  ck_assert_uint_eq(snap().shared_pooled, 0);
}
END_TEST

static Suite *poolreg_suite(void)
{
  Suite *s = suite_create("poolreg");
  TCase *tc = tcase_create("registry");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_enter_without_count);
  tcase_add_test(tc, test_counts_while_live_and_after);
  tcase_add_test(tc, test_many_threads_exact_totals);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = poolreg_suite };
