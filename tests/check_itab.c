/* check_itab.c - indirection tables (libcdr/itab.c) and their pools.
 *
 * White-box: links the library's objects with every symbol visible.  Tests
 * that start threads record results and assert in the main thread (Check's
 * assertions must not run on other threads when CK_FORK=no).  Pool settings
 * and pools are process-wide, so every test sets what it needs, measures
 * deltas of cdr_tables_get_stats(), and flushes what it pooled with a
 * test-local allocator before returning.
 *
 * ITAB_SEED=N in the environment changes the seed of the random tests.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/tables.h>
#include "itab.h"

static uint64_t seed_base(void)
{
  const char *s = getenv("ITAB_SEED");
  return s ? strtoull(s, NULL, 0) : 0x1234567887654321ull;
}

static uint64_t rnd(uint64_t *s)
{
  /* xorshift64* */
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
  return (uint32_t)((rnd(s) >> 32) % n);
}

static cdr_tables_stats snap(void)
{
  cdr_tables_stats st;
  cdr_tables_get_stats(&st);
  return st;
}

#define DELTA(a, b, f) ((b).f - (a).f)

static void pool_defaults(void)
{
  ck_assert_int_eq(cdr_tables_set_pool(1, CDR_TABLES_DEFAULT_MAX_TABLES,
                                       CDR_TABLES_DEFAULT_MAX_ENTRIES), CDR_OK);
}

/* Put N distinct pairs (BASE + 8i -> i + 1); assert each put succeeds. */
static void fill(cdr_itab *t, uint32_t n, uintptr_t base)
{
  for (uint32_t i = 0; i < n; i++)
    ck_assert_int_eq(cdr_itab_put(t, base + 8 * (uintptr_t)i, i + 1), CDR_OK);
}

/* Number of the N pairs of fill() that do not look up right, both ways. */
static unsigned fill_errors(cdr_itab *t, uint32_t n, uintptr_t base)
{
  unsigned bad = 0;
  for (uint32_t i = 0; i < n; i++) {
    uintptr_t v = 0, k = 0;
    if (!cdr_itab_get(t, base + 8 * (uintptr_t)i, &v) || v != i + 1)
      bad++;
    if (!cdr_itab_find_value(t, i + 1, &k) || k != base + 8 * (uintptr_t)i)
      bad++;
  }
  return bad;
}

/* ------------------------------------------------------------------ reference model */

/* Entries in insertion order, scanned backwards: the specification itself. */
typedef struct model {
  uintptr_t *k, *v;
  size_t n, cap;
  int str;
} model;

static int model_keq(const model *m, uintptr_t a, uintptr_t b)
{
  return m->str ? strcmp((const char *)a, (const char *)b) == 0 : a == b;
}

static void model_put(model *m, uintptr_t k, uintptr_t v)
{
  for (size_t i = 0; i < m->n; i++)
    if (m->v[i] == v && model_keq(m, m->k[i], k))
      return;
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->k = realloc(m->k, m->cap * sizeof *m->k);
    m->v = realloc(m->v, m->cap * sizeof *m->v);
    ck_assert_ptr_nonnull(m->k);
    ck_assert_ptr_nonnull(m->v);
  }
  m->k[m->n] = k;
  m->v[m->n] = v;
  m->n++;
}

static int model_get(const model *m, uintptr_t k, uintptr_t *v)
{
  for (size_t i = m->n; i-- > 0;)
    if (model_keq(m, m->k[i], k)) {
      *v = m->v[i];
      return 1;
    }
  return 0;
}

static int model_find(const model *m, uintptr_t v, uintptr_t *k)
{
  for (size_t i = m->n; i-- > 0;)
    if (m->v[i] == v) {
      *k = m->k[i];
      return 1;
    }
  return 0;
}

/* ------------------------------------------------------------------ key universes */

#define UNIVERSE 4096

/* PTR keys: multiples of 8 from 0 (offsets and pointers alike).  STR keys:
 * two copies of each string at different addresses, so that equality by
 * content is what is tested; absent keys are strings of another pattern. */
static char str_a[UNIVERSE][32], str_b[UNIVERSE][32], str_absent[64][32];
static pthread_once_t strings_once = PTHREAD_ONCE_INIT;

static void strings_make(void)
{
  for (unsigned i = 0; i < UNIVERSE; i++) {
    snprintf(str_a[i], sizeof str_a[i], "IDL:mod/Type%u:1.0", i);
    memcpy(str_b[i], str_a[i], sizeof str_a[i]);
  }
  for (unsigned i = 0; i < 64; i++)
    snprintf(str_absent[i], sizeof str_absent[i], "RMI:absent.T%u:0:0", i);
}

static uintptr_t key_of(cdr_itab_kind kind, uint64_t *s, uint32_t universe)
{
  uint32_t i = rnd_below(s, universe);
  if (kind == CDR_ITAB_PTR)
    return 8 * (uintptr_t)i;
  return (uintptr_t)(rnd(s) & 1 ? str_a[i] : str_b[i]);
}

static uintptr_t absent_key(cdr_itab_kind kind, uint64_t *s)
{
  if (kind == CDR_ITAB_PTR)
    return 8 * (uintptr_t)(UNIVERSE + rnd_below(s, 1000)) + 4;
  return (uintptr_t)str_absent[rnd_below(s, 64)];
}

/* ------------------------------------------------------------------ differential test */

#define DIFF_CHECK(cond, fmt, ...)                                                 \
  ck_assert_msg((cond), "seed %llx round %d op %d: " fmt, (unsigned long long)seed, round, \
                op, ##__VA_ARGS__)

/* Random operations on one table and on the model, compared after each.  The
 * table lives across rounds; a round ends with a clear, a release and
 * re-init (so pooled blocks come back), or a double release and re-init. */
static void diff_run(cdr_itab_kind kind, uint64_t seed, int rounds, const cdr_allocator *a)
{
  pthread_once(&strings_once, strings_make);
  uint64_t s = seed;
  model m = { .str = kind == CDR_ITAB_STR };
  cdr_itab t;
  cdr_itab_init(&t, kind, a);
  for (int round = 0; round < rounds; round++) {
    int op = -1;
    uint32_t size_class = rnd_below(&s, 10);
    uint32_t puts = size_class < 4 ? 1 + rnd_below(&s, 12)
                    : size_class < 8 ? 9 + rnd_below(&s, 200)
                    : size_class < 9 ? 200 + rnd_below(&s, 1000)
                                     : 1000 + rnd_below(&s, 1500);
    /* Universes from a fraction of the puts (many duplicates) to several
     * times them (few); they vary by round so old keys meet new ones. */
    uint32_t ku = 1 + rnd_below(&s, 2 * puts + 2);
    uint32_t vu = 1 + rnd_below(&s, 2 * puts + 2);
    if (ku > UNIVERSE)
      ku = UNIVERSE;
    uint32_t done = 0;
    for (op = 0; done < puts; op++) {
      uint32_t what = rnd_below(&s, 100);
      if (what < 50) {
        uintptr_t k = key_of(kind, &s, ku), v = rnd_below(&s, vu);
        DIFF_CHECK(cdr_itab_put(&t, k, v) == CDR_OK, "put failed");
        model_put(&m, k, v);
        done++;
      } else if (what < 72) {
        uintptr_t k = what < 68 ? key_of(kind, &s, ku) : absent_key(kind, &s);
        uintptr_t want = 0, got = 0xdead;
        int mf = model_get(&m, k, &want), tf = cdr_itab_get(&t, k, &got);
        DIFF_CHECK(mf == tf, "get found %d, model %d", tf, mf);
        if (mf)
          DIFF_CHECK(got == want, "get %lu, model %lu", (unsigned long)got, (unsigned long)want);
        else
          DIFF_CHECK(got == 0xdead, "get wrote its output on a miss");
      } else if (what < 94) {
        uintptr_t v = rnd_below(&s, vu + 3);
        uintptr_t want = 0, got = 0xdead;
        int mf = model_find(&m, v, &want), tf = cdr_itab_find_value(&t, v, &got);
        DIFF_CHECK(mf == tf, "find_value found %d, model %d", tf, mf);
        if (mf)
          DIFF_CHECK(got == want, "find_value key differs from the model's");
      } else if (what < 95) {
        cdr_itab_clear(&t);
        m.n = 0;
      }
      DIFF_CHECK(cdr_itab_count(&t) == m.n, "count %u, model %zu", cdr_itab_count(&t), m.n);
    }
    /* Sweep: every stored key and value, both ways. */
    for (size_t i = 0; i < m.n; i++) {
      uintptr_t want, got = 0;
      model_get(&m, m.k[i], &want);
      DIFF_CHECK(cdr_itab_get(&t, m.k[i], &got) == 1 && got == want, "sweep get %zu", i);
      model_find(&m, m.v[i], &want);
      DIFF_CHECK(cdr_itab_find_value(&t, m.v[i], &got) == 1 && got == want,
                 "sweep find_value %zu", i);
    }
    switch (rnd_below(&s, 3)) {
    case 0:
      cdr_itab_clear(&t);
      break;
    case 1:
      cdr_itab_release(&t);
      cdr_itab_init(&t, kind, a);
      break;
    default:
      cdr_itab_release(&t);
      cdr_itab_release(&t);
      cdr_itab_init(&t, kind, a);
      break;
    }
    m.n = 0;
  }
  cdr_itab_release(&t);
  free(m.k);
  free(m.v);
}

START_TEST(test_diff_ptr)
{
  pool_defaults();
  diff_run(CDR_ITAB_PTR, seed_base() ^ 0x11, 120, NULL);
}
END_TEST

START_TEST(test_diff_str)
{
  pool_defaults();
  diff_run(CDR_ITAB_STR, seed_base() ^ 0x22, 80, NULL);
}
END_TEST

/* ------------------------------------------------------------------ fixed cases */

/* The rules of WIRE-NOTES "Indirection tables", inline and hashed. */
static void semantics_ptr(uint32_t filler)
{
  cdr_itab t;
  uintptr_t v, k;
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, filler, 0x100000);
  uint32_t n0 = cdr_itab_count(&t);
  ck_assert_int_eq(cdr_itab_put(&t, 1, 10), CDR_OK);
  ck_assert_int_eq(cdr_itab_put(&t, 1, 20), CDR_OK); /* one key, two values */
  ck_assert_int_eq(cdr_itab_get(&t, 1, &v), 1);
  ck_assert_uint_eq(v, 20);                           /* newest wins */
  ck_assert_int_eq(cdr_itab_put(&t, 2, 20), CDR_OK); /* one value, two keys */
  ck_assert_int_eq(cdr_itab_find_value(&t, 20, &k), 1);
  ck_assert_uint_eq(k, 2);
  ck_assert_int_eq(cdr_itab_find_value(&t, 10, &k), 1);
  ck_assert_uint_eq(k, 1);
  ck_assert_uint_eq(cdr_itab_count(&t), n0 + 3);
  /* Present pairs, newest or not, are no-ops. */
  ck_assert_int_eq(cdr_itab_put(&t, 1, 20), CDR_OK);
  ck_assert_int_eq(cdr_itab_put(&t, 1, 10), CDR_OK);
  ck_assert_int_eq(cdr_itab_put(&t, 2, 20), CDR_OK);
  ck_assert_uint_eq(cdr_itab_count(&t), n0 + 3);
  ck_assert_int_eq(cdr_itab_get(&t, 1, &v), 1);
  ck_assert_uint_eq(v, 20);
  /* Zero is an ordinary key and value. */
  ck_assert_int_eq(cdr_itab_get(&t, 0, &v), 0);
  ck_assert_int_eq(cdr_itab_put(&t, 0, 0), CDR_OK);
  ck_assert_int_eq(cdr_itab_get(&t, 0, &v), 1);
  ck_assert_uint_eq(v, 0);
  ck_assert_int_eq(cdr_itab_find_value(&t, 0, &k), 1);
  ck_assert_uint_eq(k, 0);
  ck_assert_int_eq(cdr_itab_get(&t, 3, NULL), 0);
  ck_assert_int_eq(cdr_itab_get(&t, 1, NULL), 1);
  cdr_itab_release(&t);
}

START_TEST(test_semantics)
{
  pool_defaults();
  semantics_ptr(0);  /* inline */
  semantics_ptr(5);  /* crosses the inline/hashed boundary */
  semantics_ptr(40); /* hashed */

  char a[] = "IDL:omg.org/CORBA/WStringValue:1.0", b[sizeof a];
  memcpy(b, a, sizeof a);
  for (uint32_t filler = 0; filler <= 40; filler += 40) {
    cdr_itab t;
    uintptr_t v, k;
    char names[40][16];
    cdr_itab_init(&t, CDR_ITAB_STR, NULL);
    for (uint32_t i = 0; i < filler; i++) {
      snprintf(names[i], sizeof names[i], "IDL:F%u:1.0", i);
      ck_assert_int_eq(cdr_itab_put(&t, (uintptr_t)names[i], 1000 + i), CDR_OK);
    }
    ck_assert_int_eq(cdr_itab_put(&t, (uintptr_t)a, 5), CDR_OK);
    ck_assert_int_eq(cdr_itab_get(&t, (uintptr_t)b, &v), 1); /* by content */
    ck_assert_uint_eq(v, 5);
    ck_assert_int_eq(cdr_itab_put(&t, (uintptr_t)b, 5), CDR_OK); /* same pair */
    ck_assert_uint_eq(cdr_itab_count(&t), filler + 1);
    ck_assert_int_eq(cdr_itab_find_value(&t, 5, &k), 1);
    ck_assert_ptr_eq((void *)k, a);
    ck_assert_int_eq(cdr_itab_put(&t, (uintptr_t)b, 6), CDR_OK);
    ck_assert_int_eq(cdr_itab_get(&t, (uintptr_t)a, &v), 1);
    ck_assert_uint_eq(v, 6);
    ck_assert_int_eq(cdr_itab_get(&t, (uintptr_t) "IDL:omg.org/CORBA/WStringValue:1.1", &v), 0);
    for (uint32_t i = 0; i < filler; i++) {
      ck_assert_int_eq(cdr_itab_get(&t, (uintptr_t)names[i], &v), 1);
      ck_assert_uint_eq(v, 1000 + i);
    }
    cdr_itab_release(&t);
  }
}
END_TEST

/* A pair buried under newer entries of both its key and its value. */
START_TEST(test_buried_pair)
{
  pool_defaults();
  for (uint32_t filler = 0; filler <= 100; filler += 100) {
    cdr_itab t;
    uintptr_t v, k;
    cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
    fill(&t, filler, 0x100000);
    ck_assert_int_eq(cdr_itab_put(&t, 7, 70), CDR_OK);
    ck_assert_int_eq(cdr_itab_put(&t, 7, 71), CDR_OK);
    ck_assert_int_eq(cdr_itab_put(&t, 8, 70), CDR_OK);
    uint32_t n = cdr_itab_count(&t);
    ck_assert_int_eq(cdr_itab_put(&t, 7, 70), CDR_OK);
    ck_assert_uint_eq(cdr_itab_count(&t), n);
    ck_assert_int_eq(cdr_itab_get(&t, 7, &v), 1);
    ck_assert_uint_eq(v, 71);
    ck_assert_int_eq(cdr_itab_find_value(&t, 70, &k), 1);
    ck_assert_uint_eq(k, 8);
    cdr_itab_release(&t);
  }
}
END_TEST

/* ------------------------------------------------------------------ release */

START_TEST(test_release_twice)
{
  pool_defaults();
  cdr_tables_flush_thread();
  cdr_tables_stats s0 = snap();
  cdr_itab t;
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 16, 0x1000);
  cdr_itab_release(&t);
  cdr_itab_release(&t);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 1);
  ck_assert_uint_eq(s1.thread_pooled, 1);

  /* Two tables growing at once (16 entries: one block each, no growth): one
   * gets the pooled block, the other a new one; neither may see the other's
   * entries. */
  cdr_itab a, b;
  cdr_itab_init(&a, CDR_ITAB_PTR, NULL);
  cdr_itab_init(&b, CDR_ITAB_PTR, NULL);
  fill(&a, 16, 0x1000);
  fill(&b, 16, 0x9000);
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(DELTA(s1, s2, pool_hits), 1);
  ck_assert_uint_eq(DELTA(s1, s2, allocs), 1);
  ck_assert_uint_eq(s2.thread_pooled, 0);
  ck_assert_uint_eq(fill_errors(&a, 16, 0x1000), 0);
  ck_assert_uint_eq(fill_errors(&b, 16, 0x9000), 0);
  cdr_itab_release(&a);
  cdr_itab_release(&b);
  cdr_itab_release(&a);
  ck_assert_uint_eq(snap().thread_pooled, 2);
  cdr_tables_flush_thread();
}
END_TEST

START_TEST(test_use_after_release)
{
  pool_defaults();
  for (uint32_t n = 3; n <= 30; n += 27) {
    cdr_itab t;
    uintptr_t v;
    cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
    fill(&t, n, 0x1000);
    cdr_itab_release(&t);
    ck_assert_int_eq(cdr_itab_put(&t, 1, 2), CDR_E_STATE);
    ck_assert_uint_eq(cdr_itab_count(&t), 0);
    ck_assert_int_eq(cdr_itab_get(&t, 0x1000, &v), 0);
    ck_assert_int_eq(cdr_itab_find_value(&t, 1, &v), 0);
    cdr_itab_clear(&t); /* does not revive it */
    ck_assert_int_eq(cdr_itab_put(&t, 1, 2), CDR_E_STATE);
    cdr_itab_release(&t);
    ck_assert_int_eq(cdr_itab_put(&t, 1, 2), CDR_E_STATE);
    cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
    fill(&t, n, 0x1000);
    ck_assert_uint_eq(fill_errors(&t, n, 0x1000), 0);
    cdr_itab_release(&t);
  }
}
END_TEST

/* ------------------------------------------------------------------ pool bounds */

START_TEST(test_pool_max_tables)
{
  ck_assert_int_eq(cdr_tables_set_pool(1, CDR_TABLES_POOL_MAX + 1, 1024), CDR_E_INVALID);
  ck_assert_int_eq(cdr_tables_set_pool(1, 3, 1024), CDR_OK);
  unsigned mt = 0;
  cdr_tables_get_pool(NULL, &mt, NULL);
  ck_assert_uint_eq(mt, 3);
  cdr_tables_flush_thread();
  cdr_itab t[5];
  for (int i = 0; i < 5; i++) {
    cdr_itab_init(&t[i], CDR_ITAB_PTR, NULL);
    fill(&t[i], 20, 0x1000);
  }
  cdr_tables_stats s0 = snap();
  for (int i = 0; i < 5; i++)
    cdr_itab_release(&t[i]);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 3);
  ck_assert_uint_eq(DELTA(s0, s1, freed_full), 2);
  ck_assert_uint_eq(DELTA(s0, s1, frees), 2);
  ck_assert_uint_eq(s1.thread_pooled, 3);
  cdr_tables_flush_thread();
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(s2.thread_pooled, 0);
  ck_assert_uint_eq(DELTA(s1, s2, frees), 3);
  pool_defaults();
}
END_TEST

START_TEST(test_pool_entry_cap)
{
  ck_assert_int_eq(cdr_tables_set_pool(1, 8, 64), CDR_OK);
  cdr_tables_flush_thread();
  cdr_itab t;
  cdr_tables_stats s0 = snap();
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 100, 0x1000); /* capacity 128 > 64 */
  cdr_itab_release(&t);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, freed_over_cap), 1);
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 0);
  ck_assert_uint_eq(s1.thread_pooled, 0);

  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 60, 0x1000); /* capacity 64 */
  cdr_itab_release(&t);
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(DELTA(s1, s2, pooled), 1);
  ck_assert_uint_eq(DELTA(s1, s2, freed_over_cap), 0);

  /* The pooled block comes back as large as it grew: 64 entries, no
   * allocation; the 65th needs one. */
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 64, 0x5000);
  cdr_tables_stats s3 = snap();
  ck_assert_uint_eq(DELTA(s2, s3, pool_hits), 1);
  ck_assert_uint_eq(DELTA(s2, s3, allocs), 0);
  ck_assert_int_eq(cdr_itab_put(&t, 1, 1000), CDR_OK);
  ck_assert_uint_eq(DELTA(s2, snap(), allocs), 1);
  ck_assert_uint_eq(fill_errors(&t, 64, 0x5000), 0);
  cdr_itab_release(&t);
  ck_assert_uint_eq(DELTA(s3, snap(), freed_over_cap), 1);
  cdr_tables_flush_thread();
  pool_defaults();
}
END_TEST

START_TEST(test_pool_disabled)
{
  ck_assert_int_eq(cdr_tables_set_pool(0, 8, 1024), CDR_OK);
  cdr_tables_flush_thread();
  cdr_tables_stats s0 = snap();
  for (int r = 0; r < 10; r++) {
    cdr_itab t;
    cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
    fill(&t, 16, 0x1000); /* one block, no growth */
    ck_assert_uint_eq(fill_errors(&t, 16, 0x1000), 0);
    cdr_itab_release(&t);
  }
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, allocs), 10);
  ck_assert_uint_eq(DELTA(s0, s1, frees), 10);
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 0);
  ck_assert_uint_eq(DELTA(s0, s1, pool_hits), 0);
  ck_assert_uint_eq(s1.thread_pooled, 0);

  pool_defaults();
  for (int r = 0; r < 10; r++) {
    cdr_itab t;
    cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
    fill(&t, 16, 0x1000);
    cdr_itab_release(&t);
  }
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(DELTA(s1, s2, allocs), 1);
  ck_assert_uint_eq(DELTA(s1, s2, pool_hits), 9);
  cdr_tables_flush_thread();
}
END_TEST

/* ------------------------------------------------------------------ threads */

typedef struct cross {
  pthread_barrier_t grown, released, checked;
  cdr_itab t;
  uint32_t a_pooled_after; /* thread A's pool after B released A's table */
  uint32_t b_pooled_after_release, b_pooled_after_reuse;
  uint64_t b_hits;
  unsigned errors;
} cross;

static void *cross_a(void *arg)
{
  cross *x = arg;
  cdr_tables_flush_thread();
  cdr_itab_init(&x->t, CDR_ITAB_PTR, NULL);
  for (uint32_t i = 0; i < 50; i++)
    if (cdr_itab_put(&x->t, 0x1000 + 8 * (uintptr_t)i, i + 1) != CDR_OK)
      x->errors++;
  pthread_barrier_wait(&x->grown);
  pthread_barrier_wait(&x->released);
  x->a_pooled_after = snap().thread_pooled;
  pthread_barrier_wait(&x->checked);
  return NULL;
}

static void *cross_b(void *arg)
{
  cross *x = arg;
  cdr_tables_flush_thread();
  pthread_barrier_wait(&x->grown);
  x->errors += fill_errors(&x->t, 50, 0x1000);
  cdr_tables_stats s0 = snap();
  cdr_itab_release(&x->t);
  x->b_pooled_after_release = snap().thread_pooled;
  pthread_barrier_wait(&x->released);
  pthread_barrier_wait(&x->checked);
  /* B reuses the block it was given. */
  cdr_itab t2;
  cdr_itab_init(&t2, CDR_ITAB_PTR, NULL);
  for (uint32_t i = 0; i < 50; i++)
    if (cdr_itab_put(&t2, 0x8000 + 8 * (uintptr_t)i, i + 1) != CDR_OK)
      x->errors++;
  x->errors += fill_errors(&t2, 50, 0x8000);
  x->b_pooled_after_reuse = snap().thread_pooled;
  x->b_hits = DELTA(s0, snap(), pool_hits);
  cdr_itab_release(&t2);
  cdr_tables_flush_thread();
  return NULL;
}

/* A table grown on thread A and released on thread B: the block joins B's
 * pool (A's is untouched) and B reuses it. */
START_TEST(test_cross_thread)
{
  pool_defaults();
  cross x;
  memset(&x, 0, sizeof x);
  pthread_barrier_init(&x.grown, NULL, 2);
  pthread_barrier_init(&x.released, NULL, 2);
  pthread_barrier_init(&x.checked, NULL, 2);
  pthread_t a, b;
  ck_assert_int_eq(pthread_create(&a, NULL, cross_a, &x), 0);
  ck_assert_int_eq(pthread_create(&b, NULL, cross_b, &x), 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_barrier_destroy(&x.grown);
  pthread_barrier_destroy(&x.released);
  pthread_barrier_destroy(&x.checked);
  ck_assert_uint_eq(x.errors, 0);
  ck_assert_uint_eq(x.a_pooled_after, 0);
  ck_assert_uint_eq(x.b_pooled_after_release, 1);
  ck_assert_uint_eq(x.b_pooled_after_reuse, 0);
  ck_assert_uint_eq(x.b_hits, 1);
  cdr_tables_flush_shared();
}
END_TEST

#define TASKS 200
#define TASKS_AT_ONCE 4

typedef struct task {
  const cdr_allocator *a;
  unsigned errors;
} task;

/* One task per thread, as a thread-per-request server would run it: a
 * stream's three tables (values; repository IDs; codebases), each past its
 * inline entries, then the thread exits. */
static void *task_run(void *arg)
{
  task *tk = arg;
  static const uint32_t sizes[3] = { 40, 12, 10 };
  char ids[3][40][24]; /* keys are not owned by the tables: one array each */
  cdr_itab t[3];
  cdr_itab_init(&t[0], CDR_ITAB_PTR, tk->a);
  cdr_itab_init(&t[1], CDR_ITAB_STR, tk->a);
  cdr_itab_init(&t[2], CDR_ITAB_STR, tk->a);
  for (uint32_t i = 0; i < sizes[0]; i++)
    if (cdr_itab_put(&t[0], (uintptr_t)&ids[0][i], 4 * i) != CDR_OK)
      tk->errors++;
  for (int k = 1; k < 3; k++)
    for (uint32_t i = 0; i < sizes[k]; i++) {
      snprintf(ids[k][i], sizeof ids[k][i], k == 1 ? "IDL:T%u:1.0" : "http://h/%u", i);
      if (cdr_itab_put(&t[k], (uintptr_t)ids[k][i], 100 * i) != CDR_OK)
        tk->errors++;
    }
  for (uint32_t i = 0; i < sizes[0]; i++) {
    uintptr_t v;
    if (!cdr_itab_get(&t[0], (uintptr_t)&ids[0][i], &v) || v != 4 * i)
      tk->errors++;
  }
  for (int k = 1; k < 3; k++)
    for (uint32_t i = 0; i < sizes[k]; i++) {
      uintptr_t v;
      char copy[24];
      memcpy(copy, ids[k][i], sizeof copy);
      if (!cdr_itab_get(&t[k], (uintptr_t)copy, &v) || v != 100 * i)
        tk->errors++;
    }
  for (int k = 0; k < 3; k++)
    cdr_itab_release(&t[k]);
  return NULL;
}

static unsigned run_tasks(int n, const cdr_allocator *a)
{
  task tk[TASKS_AT_ONCE];
  pthread_t th[TASKS_AT_ONCE];
  unsigned errors = 0;
  for (int done = 0; done < n; done += TASKS_AT_ONCE) {
    int m = n - done < TASKS_AT_ONCE ? n - done : TASKS_AT_ONCE;
    for (int i = 0; i < m; i++) {
      tk[i].a = a;
      tk[i].errors = 0;
      ck_assert_int_eq(pthread_create(&th[i], NULL, task_run, &tk[i]), 0);
    }
    for (int i = 0; i < m; i++) {
      pthread_join(th[i], NULL);
      errors += tk[i].errors;
    }
  }
  return errors;
}

/* Threads that live for one task recycle through the shared pool. */
START_TEST(test_short_lived_threads)
{
  pool_defaults();
  cdr_tables_flush_shared();
  cdr_tables_stats s0 = snap();
  ck_assert_uint_eq(s0.shared_pooled, 0);
  ck_assert_uint_eq(run_tasks(TASKS, NULL), 0);
  cdr_tables_stats s1 = snap();
  /* Every table past 8 entries took a block: pooled or new (new ones also
   * when the 40-entry table grows from a 16-entry block). */
  uint64_t hits = DELTA(s0, s1, pool_hits) + DELTA(s0, s1, shared_hits);
  ck_assert_uint_ge(hits + DELTA(s0, s1, allocs), 3 * TASKS);
  /* Only the first batch (TASKS_AT_ONCE threads, 3 blocks each) needs to
   * allocate; leave room for scheduling. */
  ck_assert_uint_le(DELTA(s0, s1, allocs), 3 * TASKS_AT_ONCE * 4);
  ck_assert_uint_ge(DELTA(s0, s1, shared_hits), 3 * TASKS - 3 * TASKS_AT_ONCE * 4);
  ck_assert_uint_ge(DELTA(s0, s1, shared_puts), 3 * TASKS - 3 * TASKS_AT_ONCE * 4);
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts) - DELTA(s0, s1, shared_hits), s1.shared_pooled);
  ck_assert_uint_gt(s1.shared_pooled, 0);
  cdr_tables_flush_shared();
  ck_assert_uint_eq(snap().shared_pooled, 0);
}
END_TEST

/* A table released by another key's destructor after the pool's own exit
 * hook ran (glibc runs destructors in key order): its block must not be
 * stranded in the dead thread's pool. */
static pthread_key_t exit_key;

static void exit_release(void *arg)
{
  cdr_itab_release(arg);
}

static void *exit_task(void *arg)
{
  cdr_itab *t = arg, first;
  cdr_itab_init(&first, CDR_ITAB_PTR, NULL);
  cdr_itab_init(t, CDR_ITAB_PTR, NULL);
  for (uint32_t i = 0; i < 16; i++) { /* no ck_assert off the main thread */
    (void)cdr_itab_put(&first, 8 * (uintptr_t)i, i);
    (void)cdr_itab_put(t, 8 * (uintptr_t)i, i);
  }
  cdr_itab_release(&first); /* pooled; sets this thread's pool exit hook */
  (void)pthread_setspecific(exit_key, t);
  return NULL;
}

START_TEST(test_release_at_thread_exit)
{
  pool_defaults();
  cdr_itab t;
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 16, 0x1000);
  cdr_itab_release(&t); /* the pool's key exists before exit_key */
  cdr_tables_flush_thread();
  ck_assert_int_eq(pthread_key_create(&exit_key, exit_release), 0);
  cdr_tables_flush_shared();
  cdr_tables_stats s0 = snap();
  pthread_t th;
  cdr_itab late;
  ck_assert_int_eq(pthread_create(&th, NULL, exit_task, &late), 0);
  pthread_join(th, NULL);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts), 2); /* the pooled block, then the late one */
  ck_assert_uint_eq(s1.shared_pooled, 2);
  ck_assert_uint_eq(DELTA(s0, s1, frees), 0);
  pthread_key_delete(exit_key);
  cdr_tables_flush_shared();
}
END_TEST

/* ------------------------------------------------------------------ memory */

START_TEST(test_no_leak)
{
  pool_defaults();
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  diff_run(CDR_ITAB_PTR, seed_base() ^ 0x33, 40, &c.alloc);
  diff_run(CDR_ITAB_STR, seed_base() ^ 0x44, 20, &c.alloc);
  ck_assert_uint_eq(run_tasks(12, &c.alloc), 0);
  /* Blocks of the other allocator in the pools must not be taken. */
  ck_assert_uint_eq(run_tasks(4, NULL), 0);
  ck_assert_uint_gt(c.mallocs, 0);
  cdr_tables_flush_thread();
  cdr_tables_flush_shared();
  ck_assert_int_eq(c.live, 0);
  ck_assert_uint_eq(c.mallocs, c.frees);
}
END_TEST

/* Each allocation failing in turn: CDR_E_NOMEM, and the table unchanged. */
START_TEST(test_nomem)
{
  pool_defaults();
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_itab t;
  cdr_itab_init(&t, CDR_ITAB_PTR, &c.alloc);
  fill(&t, 8, 0x1000);
  ck_assert_uint_eq(c.attempts, 0); /* inline entries allocate nothing */

  /* The 9th entry moves the table to a block. */
  c.fail_at = c.attempts + 1;
  ck_assert_int_eq(cdr_itab_put(&t, 0x1000 + 8 * 8, 9), CDR_E_NOMEM);
  ck_assert_uint_eq(cdr_itab_count(&t), 8);
  ck_assert_uint_eq(fill_errors(&t, 8, 0x1000), 0);
  c.fail_at = 0;
  fill(&t, 16, 0x1000); /* the first 8 are no-ops; the block is now full */
  ck_assert_uint_eq(cdr_itab_count(&t), 16);

  /* Growth past the block. */
  c.fail_at = c.attempts + 1;
  ck_assert_int_eq(cdr_itab_put(&t, 0x1000, 1), CDR_OK); /* present: no allocation */
  ck_assert_int_eq(cdr_itab_put(&t, 1, 1), CDR_E_NOMEM);
  ck_assert_uint_eq(cdr_itab_count(&t), 16);
  ck_assert_uint_eq(fill_errors(&t, 16, 0x1000), 0);
  c.fail_at = 0;
  fill(&t, 100, 0x1000);
  ck_assert_uint_eq(cdr_itab_count(&t), 100);
  ck_assert_uint_eq(fill_errors(&t, 100, 0x1000), 0);

  cdr_itab_release(&t);
  cdr_tables_flush_thread();
  ck_assert_int_eq(c.live, 0);
}
END_TEST

static Suite *itab_suite(void)
{
  Suite *s = suite_create("itab");
  TCase *tc = tcase_create("table");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_semantics);
  tcase_add_test(tc, test_buried_pair);
  tcase_add_test(tc, test_diff_ptr);
  tcase_add_test(tc, test_diff_str);
  tcase_add_test(tc, test_release_twice);
  tcase_add_test(tc, test_use_after_release);
  tcase_add_test(tc, test_nomem);
  suite_add_tcase(s, tc);

  TCase *tp = tcase_create("pool");
  tcase_set_timeout(tp, 120);
  tcase_add_test(tp, test_pool_max_tables);
  tcase_add_test(tp, test_pool_entry_cap);
  tcase_add_test(tp, test_pool_disabled);
  tcase_add_test(tp, test_cross_thread);
  tcase_add_test(tp, test_short_lived_threads);
  tcase_add_test(tp, test_release_at_thread_exit);
  tcase_add_test(tp, test_no_leak);
  suite_add_tcase(s, tp);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(itab_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
