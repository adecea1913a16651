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
#include <cdr/pool.h>
#include <cdr/tables.h>
#include "itab.h"
#include "testutil.h"

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

static int model_has(const model *m, uintptr_t k, uintptr_t v)
{
  for (size_t i = 0; i < m->n; i++)
    if (m->v[i] == v && model_keq(m, m->k[i], k))
      return 1;
  return 0;
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
/* Fresh keys for appends in ascending order (a decoder's stream positions):
 * outside the universe; again two copies of each string. */
static char fresh_a[UNIVERSE][32], fresh_b[UNIVERSE][32];
static pthread_once_t strings_once = PTHREAD_ONCE_INIT;

static void strings_make(void)
{
  for (unsigned i = 0; i < UNIVERSE; i++) {
    snprintf(str_a[i], sizeof str_a[i], "IDL:mod/Type%u:1.0", i);
    memcpy(str_b[i], str_a[i], sizeof str_a[i]);
    snprintf(fresh_a[i], sizeof fresh_a[i], "IDL:fresh/F%u:1.0", i);
    memcpy(fresh_b[i], fresh_a[i], sizeof fresh_a[i]);
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

/* The I-th fresh key (I < UNIVERSE); COPY picks the other string. */
static uintptr_t fresh_key(cdr_itab_kind kind, uint32_t i, int copy)
{
  if (kind == CDR_ITAB_PTR)
    return 8 * (uintptr_t)(UNIVERSE + i);
  return (uintptr_t)(copy ? fresh_b[i] : fresh_a[i]);
}

/* ------------------------------------------------------------------ differential test */

#define DIFF_CHECK(cond, fmt, ...)                                                 \
  ck_assert_msg((cond), "seed %llx round %d op %d: " fmt, (unsigned long long)seed, round, \
                op, ##__VA_ARGS__)

/* A key to look up: one of the universe's, a fresh one (appended or not
 * yet: FRESH have been handed out), or one never stored. */
static uintptr_t lookup_key(cdr_itab_kind kind, uint64_t *s, uint32_t ku, uint32_t fresh)
{
  uint32_t w = rnd_below(s, 10);
  if (w < 6)
    return key_of(kind, s, ku);
  if (w < 9)
    return fresh_key(kind, rnd_below(s, fresh + 2) % UNIVERSE, (int)(rnd(s) & 1));
  return absent_key(kind, s);
}

/* Operations of the differential test, and their weights (out of 100) in
 * each kind of round: put-heavy (the original mix), decoder-like (appends
 * of ascending positions, finds), encoder-like (get-or-add), even. */
enum { OP_PUT, OP_GET_OR_ADD, OP_APPEND, OP_GET, OP_FIND, OP_FIND_VALUE, OP_CLEAR, OP_N };
static const uint8_t op_weights[4][OP_N] = {
  { 45, 5, 5, 20, 5, 19, 1 },
  { 5, 5, 45, 15, 15, 14, 1 },
  { 10, 45, 5, 15, 10, 14, 1 },
  { 20, 20, 20, 13, 12, 14, 1 },
};

/* Values that no round draws (rounds draw below 2 * 2500 + 2 + 3). */
#define VAL_FRESH ((uintptr_t)1 << 30)

/* Random operations on one table and on the model, compared after each.  The
 * table lives across rounds; a round ends with a clear, a release and
 * re-init (so pooled blocks come back), or a double release and re-init.
 * Appends (only of pairs the model says are absent) of fresh keys in
 * ascending order and of universe keys in random order leave the key index
 * behind; puts, get-or-adds and finds catch it up; gets scan what it lacks. */
static void diff_run(cdr_itab_kind kind, uint64_t seed, int rounds, const cdr_allocator *a)
{
  pthread_once(&strings_once, strings_make);
  uint64_t s = seed;
  model m = { .str = kind == CDR_ITAB_STR };
  cdr_itab t;
  uint32_t fresh = 0;     /* fresh keys handed out since the last clear */
  uintptr_t fresh_v = 0;  /* values from VAL_FRESH handed out */
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
    const uint8_t *w = op_weights[rnd_below(&s, 4)];
    uint32_t done = 0; /* puts, get-or-adds and appends */
    for (op = 0; done < puts; op++) {
      uint32_t what = rnd_below(&s, 100), kindop = 0;
      while (what >= w[kindop]) /* the weights add up to 100 */
        what -= w[kindop++];
      switch (kindop) {
      case OP_PUT: {
        uintptr_t k = key_of(kind, &s, ku), v = rnd_below(&s, vu);
        DIFF_CHECK(cdr_itab_put(&t, k, v) == CDR_OK, "put failed");
        model_put(&m, k, v);
        done++;
        break;
      }
      case OP_GET_OR_ADD: {
        /* An old or new key of the universe, an appended fresh key, or
         * the next fresh one (added). */
        uint32_t pick = rnd_below(&s, 10);
        uintptr_t k = pick < 6   ? key_of(kind, &s, ku)
                      : pick < 8 ? fresh_key(kind, rnd_below(&s, fresh + 1) % UNIVERSE,
                                             (int)(rnd(&s) & 1))
                                 : fresh_key(kind, fresh++ % UNIVERSE, (int)(rnd(&s) & 1));
        uintptr_t v = rnd_below(&s, vu), want = 0, got = 0xdead;
        int null_out = rnd_below(&s, 8) == 0;
        int mf = model_get(&m, k, &want);
        int tf = cdr_itab_get_or_add(&t, k, v, null_out ? NULL : &got);
        DIFF_CHECK(tf == mf, "get_or_add returned %d, model found %d", tf, mf);
        if (mf && !null_out)
          DIFF_CHECK(got == want, "get_or_add found %lu, model %lu", (unsigned long)got,
                     (unsigned long)want);
        if (!mf)
          model_put(&m, k, v);
        done++;
        break;
      }
      case OP_APPEND: {
        /* Ascending fresh keys (a decoder's positions), or random keys of
         * the universe, which often have entries with other values. */
        int ascending = rnd_below(&s, 2);
        uintptr_t k = ascending ? fresh_key(kind, fresh++ % UNIVERSE, (int)(rnd(&s) & 1))
                                : key_of(kind, &s, ku);
        uintptr_t v = rnd_below(&s, vu), old;
        if (!ascending && model_get(&m, k, &old) && rnd_below(&s, 2)) {
          /* K present: another value than its newest (possibly an older
           * one's, which is then present as a pair and replaced below). */
          v = old + 1 + rnd_below(&s, 3);
        }
        while (model_has(&m, k, v)) /* old + 1 may be a value from VAL_FRESH */
          v = VAL_FRESH + fresh_v++;
        DIFF_CHECK(cdr_itab_append(&t, k, v) == CDR_OK, "append failed");
        model_put(&m, k, v);
        done++;
        break;
      }
      case OP_GET:
      case OP_FIND: {
        uintptr_t k = lookup_key(kind, &s, ku, fresh);
        uintptr_t want = 0, got = 0xdead;
        int mf = model_get(&m, k, &want);
        int tf = kindop == OP_GET ? cdr_itab_get(&t, k, &got) : cdr_itab_find(&t, k, &got);
        const char *name = kindop == OP_GET ? "get" : "find";
        DIFF_CHECK(mf == tf, "%s found %d, model %d", name, tf, mf);
        if (mf)
          DIFF_CHECK(got == want, "%s %lu, model %lu", name, (unsigned long)got,
                     (unsigned long)want);
        else
          DIFF_CHECK(got == 0xdead, "%s wrote its output on a miss", name);
        break;
      }
      case OP_FIND_VALUE: {
        uintptr_t v = rnd_below(&s, 8) == 0 && fresh_v ? VAL_FRESH + rnd_below(&s, (uint32_t)fresh_v + 1)
                                                       : rnd_below(&s, vu + 3);
        uintptr_t want = 0, got = 0xdead;
        int mf = model_find(&m, v, &want), tf = cdr_itab_find_value(&t, v, &got);
        DIFF_CHECK(mf == tf, "find_value found %d, model %d", tf, mf);
        if (mf)
          DIFF_CHECK(got == want, "find_value key differs from the model's");
        else
          DIFF_CHECK(got == 0xdead, "find_value wrote its output on a miss");
        break;
      }
      default:
        cdr_itab_clear(&t);
        m.n = 0;
        fresh = 0;
        break;
      }
      DIFF_CHECK(cdr_itab_count(&t) == m.n, "count %u, model %zu", cdr_itab_count(&t), m.n);
    }
    /* Sweep: every stored key and value, both ways; get first (the key
     * index may lack the latest appends), then find, then get-or-add of a
     * present key (no change). */
    for (size_t i = 0; i < m.n; i++) {
      uintptr_t want, got = 0;
      model_get(&m, m.k[i], &want);
      DIFF_CHECK(cdr_itab_get(&t, m.k[i], &got) == 1 && got == want, "sweep get %zu", i);
    }
    for (size_t i = 0; i < m.n; i++) {
      uintptr_t want, got = 0;
      model_get(&m, m.k[i], &want);
      DIFF_CHECK(cdr_itab_find(&t, m.k[i], &got) == 1 && got == want, "sweep find %zu", i);
      got = 0;
      DIFF_CHECK(cdr_itab_get_or_add(&t, m.k[i], VAL_FRESH - 1, &got) == 1 && got == want,
                 "sweep get_or_add %zu", i);
      model_find(&m, m.v[i], &want);
      DIFF_CHECK(cdr_itab_find_value(&t, m.v[i], &got) == 1 && got == want,
                 "sweep find_value %zu", i);
    }
    DIFF_CHECK(cdr_itab_count(&t) == m.n, "count %u after the sweep, model %zu",
               cdr_itab_count(&t), m.n);
    /* The next round's table: this one cleared (its block kept), or a new
     * one that takes a pooled block, or (pool emptied) a new block of the
     * smallest size that grows again through every size. */
    switch (rnd_below(&s, 4)) {
    case 0:
      cdr_itab_clear(&t);
      break;
    case 1:
      cdr_itab_release(&t);
      cdr_itab_init(&t, kind, a);
      break;
    case 2:
      cdr_itab_release(&t);
      cdr_tables_flush_thread();
      cdr_itab_init(&t, kind, a);
      break;
    default:
      cdr_itab_release(&t);
      cdr_itab_release(&t);
      cdr_itab_init(&t, kind, a);
      break;
    }
    m.n = 0;
    fresh = 0;
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

/* The rules of docs/wire-notes.md, "Indirection tables", inline and hashed. */
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

/* ------------------------------------------------------------------ appends */

/* Keys for the append tests: KEYS[i] as stored, LOOK[i] the same key as
 * looked up (another copy of the string for string tables). */
typedef struct keyset {
  cdr_itab_kind kind;
  uint32_t n;
  uintptr_t *keys, *look;
  char *text; /* 2 * n strings of 32 octets */
} keyset;

static void keyset_make(keyset *ks, cdr_itab_kind kind, uint32_t n, uintptr_t base)
{
  ks->kind = kind;
  ks->n = n;
  ks->keys = malloc(n * sizeof *ks->keys);
  ks->look = malloc(n * sizeof *ks->look);
  ck_assert_ptr_nonnull(ks->keys);
  ck_assert_ptr_nonnull(ks->look);
  ks->text = NULL;
  if (kind == CDR_ITAB_STR) {
    ks->text = malloc(2 * (size_t)n * 32);
    ck_assert_ptr_nonnull(ks->text);
  }
  for (uint32_t i = 0; i < n; i++) {
    if (kind == CDR_ITAB_PTR) {
      ks->keys[i] = ks->look[i] = base + 8 * (uintptr_t)i;
    } else {
      char *a = ks->text + 64 * (size_t)i, *b = a + 32;
      snprintf(a, 32, "IDL:k%lx/T%u:1.0", (unsigned long)base, i);
      memcpy(b, a, 32);
      ks->keys[i] = (uintptr_t)a;
      ks->look[i] = (uintptr_t)b;
    }
  }
}

static void keyset_free(keyset *ks)
{
  free(ks->keys);
  free(ks->look);
  free(ks->text);
}

/* How many of KS's keys look up wrong in T (value VBASE + i expected when
 * PRESENT, a miss otherwise); FIND: cdr_itab_find() instead of the const
 * cdr_itab_get(). */
static unsigned key_errors(cdr_itab *t, const keyset *ks, uintptr_t vbase, int present, int find)
{
  unsigned bad = 0;
  for (uint32_t i = 0; i < ks->n; i++) {
    uintptr_t v = 0xdead;
    int f = find ? cdr_itab_find(t, ks->look[i], &v) : cdr_itab_get(t, ks->look[i], &v);
    if (present ? f != 1 || v != vbase + i : f != 0 || v != 0xdead)
      bad++;
  }
  return bad;
}

/* A decoder's value table: N ascending positions appended, never searched
 * until the end (across the move to a block and every growth, the key index
 * is never built); then the lazy index, a newer entry for a key, and a clear
 * that keeps the block, whose old index slots must not be seen again. */
static void append_lazy(cdr_itab_kind kind, uint32_t n)
{
  keyset ks, other;
  cdr_itab t;
  uintptr_t v, k;
  const uintptr_t vbase = 1000000;
  keyset_make(&ks, kind, n, 0);
  keyset_make(&other, kind, n / 2, 8 * (uintptr_t)n + 0x10000);
  cdr_itab_init(&t, kind, NULL);
  for (uint32_t i = 0; i < n; i++) {
    ck_assert_int_eq(cdr_itab_append(&t, ks.keys[i], vbase + i), CDR_OK);
    ck_assert_uint_eq(cdr_itab_count(&t), i + 1);
    if (i % 997 == 0 || (i >= 6 && i <= 18) || (i & (i + 1)) == 0) {
      /* Around the move to a block and each growth: the newest, the
       * oldest, one in between, and one not yet appended. */
      uint32_t mid = i / 2;
      ck_assert_int_eq(cdr_itab_get(&t, ks.look[i], &v), 1);
      ck_assert_uint_eq(v, vbase + i);
      ck_assert_int_eq(cdr_itab_get(&t, ks.look[0], &v), 1);
      ck_assert_uint_eq(v, vbase);
      ck_assert_int_eq(cdr_itab_get(&t, ks.look[mid], &v), 1);
      ck_assert_uint_eq(v, vbase + mid);
      if (i + 1 < n)
        ck_assert_int_eq(cdr_itab_get(&t, ks.look[i + 1], NULL), 0);
    }
  }
  /* The const look-up scans what the key index lacks (all of it here). */
  ck_assert_uint_eq(key_errors(&t, &ks, vbase, 1, 0), 0);
  ck_assert_uint_eq(key_errors(&t, &other, 0, 0, 0), 0);
  /* find indexes the entries once, then probes. */
  ck_assert_uint_eq(key_errors(&t, &other, 0, 0, 1), 0);
  ck_assert_uint_eq(key_errors(&t, &ks, vbase, 1, 1), 0);
  ck_assert_uint_eq(key_errors(&t, &ks, vbase, 1, 0), 0);
  for (uint32_t i = 0; i < n; i += 7) {
    ck_assert_int_eq(cdr_itab_find_value(&t, vbase + i, &k), 1);
    ck_assert_uint_eq(k, ks.keys[i]);
  }
  ck_assert_int_eq(cdr_itab_find_value(&t, vbase + n, &k), 0);
  ck_assert_int_eq(cdr_itab_find_value(&t, vbase - 1, &k), 0);

  /* A newer entry for a key: it wins every look-up by key, and the older
   * pair stays (count, look-up by its value). */
  uint32_t d = n / 2;
  ck_assert_int_eq(cdr_itab_append(&t, ks.keys[d], 7), CDR_OK);
  ck_assert_uint_eq(cdr_itab_count(&t), n + 1);
  ck_assert_int_eq(cdr_itab_get(&t, ks.look[d], &v), 1); /* scanned */
  ck_assert_uint_eq(v, 7);
  ck_assert_int_eq(cdr_itab_find(&t, ks.look[d], &v), 1); /* indexed */
  ck_assert_uint_eq(v, 7);
  ck_assert_int_eq(cdr_itab_get(&t, ks.look[d], &v), 1); /* probed */
  ck_assert_uint_eq(v, 7);
  ck_assert_int_eq(cdr_itab_get_or_add(&t, ks.look[d], 8, &v), 1);
  ck_assert_uint_eq(v, 7);
  ck_assert_int_eq(cdr_itab_find_value(&t, 7, &k), 1);
  ck_assert_uint_eq(k, ks.keys[d]);
  ck_assert_int_eq(cdr_itab_find_value(&t, vbase + d, &k), 1);
  ck_assert_uint_eq(k, ks.keys[d]);
  /* Again, with get-or-add first: it indexes the appended entry itself. */
  ck_assert_int_eq(cdr_itab_append(&t, ks.keys[d], 9), CDR_OK);
  ck_assert_int_eq(cdr_itab_get_or_add(&t, ks.look[d], 10, &v), 1);
  ck_assert_uint_eq(v, 9);
  ck_assert_int_eq(cdr_itab_get(&t, ks.look[d], &v), 1);
  ck_assert_uint_eq(v, 9);
  ck_assert_int_eq(cdr_itab_find(&t, ks.look[d], &v), 1);
  ck_assert_uint_eq(v, 9);
  ck_assert_uint_eq(cdr_itab_count(&t), n + 2);
  /* Absent keys are added by get-or-add (after an append, unindexed). */
  ck_assert_int_eq(cdr_itab_append(&t, other.keys[0], 11), CDR_OK);
  ck_assert_int_eq(cdr_itab_get_or_add(&t, other.look[1], 12, &v), 0);
  ck_assert_int_eq(cdr_itab_get_or_add(&t, other.look[1], 13, &v), 1);
  ck_assert_uint_eq(v, 12);
  ck_assert_int_eq(cdr_itab_get(&t, other.look[0], &v), 1);
  ck_assert_uint_eq(v, 11);
  ck_assert_uint_eq(cdr_itab_count(&t), n + 4);
  ck_assert_uint_eq(key_errors(&t, &ks, vbase, 1, 1) , 1); /* d now maps to 9 */

  /* Clear keeps the block; the same table is filled again with other keys,
   * fewer than before, so the block's entries past the new ones still hold
   * the old keys: the old index slots must not lead to them. */
  cdr_tables_stats s0 = snap();
  for (int how = 0; how < 3; how++) {
    cdr_itab_clear(&t);
    ck_assert_uint_eq(cdr_itab_count(&t), 0);
    ck_assert_int_eq(cdr_itab_get(&t, ks.look[0], &v), 0);
    uint32_t m = 20 + 100 * (uint32_t)how; /* past the inline entries */
    for (uint32_t i = 0; i < m; i++) {
      int rc = how == 0   ? cdr_itab_append(&t, other.keys[i], 2 * i)
               : how == 1 ? cdr_itab_put(&t, other.keys[i], 2 * i)
                          : cdr_itab_get_or_add(&t, other.keys[i], 2 * i, NULL);
      ck_assert_int_eq(rc, CDR_OK);
    }
    ck_assert_uint_eq(cdr_itab_count(&t), m);
    for (int find = 0; find < 2; find++) {
      ck_assert_uint_eq(key_errors(&t, &ks, 0, 0, find), 0);
      for (uint32_t i = 0; i < m; i++) {
        uintptr_t got = 0xdead;
        int f = find ? cdr_itab_find(&t, other.look[i], &got)
                     : cdr_itab_get(&t, other.look[i], &got);
        ck_assert_int_eq(f, 1);
        ck_assert_uint_eq(got, 2 * i);
      }
    }
    for (uint32_t i = 0; i < n; i += 13)
      ck_assert_int_eq(cdr_itab_find_value(&t, vbase + i, &k), 0);
    for (uint32_t i = 0; i < m; i++) {
      ck_assert_int_eq(cdr_itab_find_value(&t, 2 * i, &k), 1);
      ck_assert_uint_eq(k, other.keys[i]);
    }
    /* An old key is absent to get-or-add too: it is added. */
    ck_assert_int_eq(cdr_itab_get_or_add(&t, ks.look[n - 1], 3, &v), 0);
    ck_assert_int_eq(cdr_itab_get(&t, ks.look[n - 1], &v), 1);
    ck_assert_uint_eq(v, 3);
    ck_assert_uint_eq(cdr_itab_count(&t), m + 1);
  }
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, allocs), 0); /* the block was kept */
  ck_assert_uint_eq(DELTA(s0, s1, pool_hits), 0);
  cdr_itab_release(&t);
  keyset_free(&ks);
  keyset_free(&other);
}

START_TEST(test_append_lazy_index)
{
  pool_defaults();
  append_lazy(CDR_ITAB_PTR, 10000);
  append_lazy(CDR_ITAB_STR, 3000);
}
END_TEST

/* Every way of adding (put, get-or-add, append, and the three in turn)
 * from the move to a block through each growth, starting from the smallest
 * block: after each add the new key and, at each size boundary, every key
 * is looked up.  At each boundary (the block full) a get-or-add of a present
 * key must not grow or add. */
static void growth_paths(cdr_itab_kind kind, int how)
{
  keyset ks;
  cdr_itab t;
  uintptr_t v, k;
  const uint32_t n = 600;
  keyset_make(&ks, kind, n, 0x2000);
  cdr_tables_flush_thread();
  cdr_tables_flush_shared();
  cdr_tables_stats s0 = snap();
  cdr_itab_init(&t, kind, NULL);
  for (uint32_t i = 0; i < n; i++) {
    int way = how < 3 ? how : (int)(i % 3);
    if ((i & (i - 1)) == 0 && i >= 8) { /* i entries: inline full, or block full */
      uint32_t j = (i * 7) % i;
      v = 0;
      ck_assert_int_eq(cdr_itab_get_or_add(&t, ks.look[j], 1, &v), 1);
      ck_assert_uint_eq(v, 100 + j);
      ck_assert_uint_eq(cdr_itab_count(&t), i);
    }
    int rc = way == 0   ? cdr_itab_put(&t, ks.keys[i], 100 + i)
             : way == 1 ? cdr_itab_get_or_add(&t, ks.keys[i], 100 + i, &v)
                        : cdr_itab_append(&t, ks.keys[i], 100 + i);
    ck_assert_int_eq(rc, CDR_OK);
    ck_assert_uint_eq(cdr_itab_count(&t), i + 1);
    v = 0;
    ck_assert_int_eq(cdr_itab_get(&t, ks.look[i], &v), 1);
    ck_assert_uint_eq(v, 100 + i);
    uint32_t next = i + 2; /* i + 1 entries now; check when i + 1 is a power of two */
    if ((next & (next - 1)) == 0 || (((i + 1) & i) == 0 && i >= 7)) {
      keyset part = ks;
      part.n = i + 1;
      ck_assert_uint_eq(key_errors(&t, &part, 100, 1, 0), 0);
      if (i % 2)
        ck_assert_uint_eq(key_errors(&t, &part, 100, 1, 1), 0);
    }
  }
  ck_assert_uint_eq(key_errors(&t, &ks, 100, 1, 0), 0);
  ck_assert_uint_eq(key_errors(&t, &ks, 100, 1, 1), 0);
  for (uint32_t i = 0; i < n; i++) {
    ck_assert_int_eq(cdr_itab_find_value(&t, 100 + i, &k), 1);
    ck_assert_uint_eq(k, ks.keys[i]);
  }
  /* A block for the move to one and for each growth (16, 32, ..., 1024
   * entries), all new: the pools were empty and only this table grew. */
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, allocs), 7);
  ck_assert_uint_eq(DELTA(s0, s1, pool_hits) + DELTA(s0, s1, shared_hits), 0);
  cdr_itab_release(&t);
  cdr_tables_flush_thread();
  keyset_free(&ks);
}

START_TEST(test_growth_paths)
{
  pool_defaults();
  for (int how = 0; how < 4; how++) {
    growth_paths(CDR_ITAB_PTR, how);
    growth_paths(CDR_ITAB_STR, how);
  }
}
END_TEST

/* A block from the pool still holds its previous table's entries and index
 * slots.  Another table on the same thread takes it and fills it past the
 * inline entries with other keys (put, append, get-or-add), fewer than the
 * old ones: no old key may be found, every new one must be. */
START_TEST(test_reused_block_index)
{
  pool_defaults();
  cdr_tables_flush_thread();
  for (int kind = 0; kind < 2; kind++) {
    keyset oldk, newk;
    keyset_make(&oldk, (cdr_itab_kind)kind, 200, 0x1000);
    keyset_make(&newk, (cdr_itab_kind)kind, 40, 0x90000);
    for (int how = 0; how < 3; how++) {
      cdr_itab old, t;
      uintptr_t v;
      cdr_itab_init(&old, (cdr_itab_kind)kind, NULL);
      for (uint32_t i = 0; i < oldk.n; i++) /* grows to 256 entries */
        ck_assert_int_eq(cdr_itab_put(&old, oldk.keys[i], 5000 + i), CDR_OK);
      ck_assert_uint_eq(key_errors(&old, &oldk, 5000, 1, 1), 0);
      ck_assert_int_eq(cdr_itab_find_value(&old, 5000, &v), 1); /* value index too */
      cdr_itab_release(&old);
      ck_assert_uint_ge(snap().thread_pooled, 1);

      cdr_tables_stats s0 = snap();
      cdr_itab_init(&t, (cdr_itab_kind)kind, NULL);
      for (uint32_t i = 0; i < newk.n; i++) {
        int rc = how == 0   ? cdr_itab_put(&t, newk.keys[i], 7000 + i)
                 : how == 1 ? cdr_itab_append(&t, newk.keys[i], 7000 + i)
                            : cdr_itab_get_or_add(&t, newk.keys[i], 7000 + i, &v);
        ck_assert_int_eq(rc, CDR_OK);
      }
      /* Every block T used came from the pool: the old table's (and, when
       * growth pools the blocks it leaves, those too: they also hold old
       * entries and index slots). */
      cdr_tables_stats s1 = snap();
      ck_assert_uint_ge(DELTA(s0, s1, pool_hits), 1);
      ck_assert_uint_eq(DELTA(s0, s1, allocs), 0);
      ck_assert_uint_eq(cdr_itab_count(&t), newk.n);
      for (int find = 0; find < 2; find++) {
        ck_assert_uint_eq(key_errors(&t, &oldk, 0, 0, find), 0);
        ck_assert_uint_eq(key_errors(&t, &newk, 7000, 1, find), 0);
      }
      for (uint32_t i = 0; i < oldk.n; i++)
        ck_assert_int_eq(cdr_itab_find_value(&t, 5000 + i, &v), 0);
      /* Old keys are absent to get-or-add and put as well. */
      ck_assert_int_eq(cdr_itab_get_or_add(&t, oldk.look[150], 1, &v), 0);
      ck_assert_int_eq(cdr_itab_put(&t, oldk.keys[151], 2), CDR_OK);
      ck_assert_uint_eq(cdr_itab_count(&t), newk.n + 2);
      ck_assert_int_eq(cdr_itab_get(&t, oldk.look[150], &v), 1);
      ck_assert_uint_eq(v, 1);
      ck_assert_int_eq(cdr_itab_get(&t, oldk.look[151], &v), 1);
      ck_assert_uint_eq(v, 2);
      ck_assert_uint_eq(key_errors(&t, &newk, 7000, 1, 1), 0);
      cdr_itab_release(&t);
      cdr_tables_flush_thread();
    }
    keyset_free(&oldk);
    keyset_free(&newk);
  }
}
END_TEST

/* One table reused message after message (cdr_itab_reuse(), a pooled
 * stream's value table): it keeps its block and starts hashed, with the
 * previous message's entries and index slots still in the block.  Each
 * round fills it in one way (put, append, get-or-add; some rounds with a
 * second value for some keys, so that the index is cleaned with duplicate
 * keys) with a number of keys that takes each way of emptying the key
 * index (a few entries of a large block one by one, many all at once, a
 * stale index left to the first search) and reuses it with and without
 * SEARCH: no key of an earlier round may be found, every key of this one
 * must be, both ways; no block is taken or made after the first round. */
START_TEST(test_reuse)
{
  static const uint32_t sizes[] = { 600, 10, 3, 40, 20, 1, 300, 9, 0, 17 };
  const uint32_t nr = sizeof sizes / sizeof sizes[0];
  pool_defaults();
  cdr_tables_flush_thread();
  for (int kind = 0; kind < 2; kind++) {
    keyset ks[sizeof sizes / sizeof sizes[0]];
    for (uint32_t r = 0; r < nr; r++)
      keyset_make(&ks[r], (cdr_itab_kind)kind, sizes[r], 0x10000 * (r + 1));
    cdr_itab t;
    cdr_tables_stats s0 = snap();
    cdr_itab_init(&t, (cdr_itab_kind)kind, NULL);
    for (uint32_t r = 0; r < nr; r++) {
      int how = (int)(r % 3), dup = r % 4 == 1;
      uintptr_t v, k;
      if (r == 1)
        s0 = snap();
      for (uint32_t i = 0; i < ks[r].n; i++) {
        /* An older entry for the key: the newer one takes its index slot. */
        int older = dup && i % 2;
        if (older)
          ck_assert_int_eq(cdr_itab_put(&t, ks[r].keys[i], 900 + i), CDR_OK);
        int rc = how == 0 || (how == 2 && older) ? cdr_itab_put(&t, ks[r].keys[i], 100 + i)
                 : how == 1 ? cdr_itab_append(&t, ks[r].keys[i], 100 + i)
                            : cdr_itab_get_or_add(&t, ks[r].keys[i], 100 + i, &v);
        ck_assert_int_eq(rc, how == 2 && !older ? 0 : CDR_OK);
      }
      for (int find = 0; find < 2; find++) {
        ck_assert_uint_eq(key_errors(&t, &ks[r], 100, 1, find), 0);
        for (uint32_t q = 0; q < r; q++)
          ck_assert_uint_eq(key_errors(&t, &ks[q], 0, 0, find), 0);
      }
      for (uint32_t i = 0; i < ks[r].n; i++) {
        ck_assert_int_eq(cdr_itab_find_value(&t, 100 + i, &k), 1);
        ck_assert_uint_eq(k, ks[r].keys[i]);
      }
      ck_assert_int_eq(cdr_itab_find_value(&t, 100 + ks[r].n, &k), 0);
      if (dup && ks[r].n > 1)
        ck_assert_int_eq(cdr_itab_find_value(&t, 901, &k), 1); /* the older entry */
      cdr_itab_reuse(&t, (int)(r % 2));
      ck_assert_uint_eq(cdr_itab_count(&t), 0);
      ck_assert_int_eq(cdr_itab_find_value(&t, 100, &k), 0);
      ck_assert_uint_eq(key_errors(&t, &ks[r], 0, 0, r % 3 == 0), 0);
    }
    cdr_tables_stats s1 = snap();
    ck_assert_uint_eq(DELTA(s0, s1, allocs) + DELTA(s0, s1, pool_hits)
                        + DELTA(s0, s1, shared_hits), 0);
    cdr_itab_release(&t);
    cdr_tables_flush_thread();
    for (uint32_t r = 0; r < nr; r++)
      keyset_free(&ks[r]);
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
  cdr_tables_flush_thread(); /* blocks the tables grew out of, if growth pooled them */
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
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 100, 0x1000); /* capacity past 64 */
  cdr_tables_flush_thread(); /* blocks it grew out of, if growth pooled them */
  cdr_tables_stats s0 = snap();
  cdr_itab_release(&t);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, freed_over_cap), 1);
  ck_assert_uint_eq(DELTA(s0, s1, pooled), 0);
  ck_assert_uint_eq(s1.thread_pooled, 0);

  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  fill(&t, 60, 0x1000); /* capacity 64 */
  cdr_tables_flush_thread();
  cdr_tables_stats s1f = snap();
  cdr_itab_release(&t);
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(DELTA(s1f, s2, pooled), 1);
  ck_assert_uint_eq(DELTA(s1f, s2, freed_over_cap), 0);

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
  cdr_tables_flush_thread(); /* blocks the table grew out of, if growth pooled them */
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

/* The shared pool's bound, largest first: a thread exits with blocks of
 * 16, 32 and 64 entries (a table grown to 40 entries, released) into a
 * shared pool of 2, which keeps the 64 and the 32 and frees the 16; the
 * next thread's 40-entry table then allocates nothing (it leaves its inline
 * entries with whichever shared block it finds, and grows, if it must, into
 * the other). */
typedef struct grow_task {
  unsigned errors;
  cdr_tables_stats before, after; /* the thread's own view */
} grow_task;

static void *grow40(void *arg)
{
  grow_task *g = arg;
  cdr_itab t;
  cdr_itab_init(&t, CDR_ITAB_PTR, NULL);
  for (uint32_t i = 0; i < 40; i++)
    g->errors += cdr_itab_put(&t, 0x1000 + 8 * (uintptr_t)i, i + 1) != CDR_OK;
  for (uint32_t i = 0; i < 40; i++) {
    uintptr_t v = 0;
    g->errors += !cdr_itab_get(&t, 0x1000 + 8 * (uintptr_t)i, &v) || v != i + 1;
  }
  cdr_itab_release(&t);
  return NULL;
}

static void run_grow40(grow_task *g)
{
  pthread_t th;
  memset(g, 0, sizeof *g);
  ck_assert_int_eq(pthread_create(&th, NULL, grow40, g), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_uint_eq(g->errors, 0);
}

START_TEST(test_shared_bound_largest_first)
{
  pool_defaults();
  cdr_pool_config saved, c;
  cdr_pool_get_config(&saved);
  c = saved;
  c.shared[CDR_POOL_TABLE_BLOCKS] = 2;
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_OK);
  cdr_tables_flush_shared();
  cdr_tables_stats s0 = snap();
  grow_task g;
  run_grow40(&g);
  cdr_tables_stats s1 = snap();
  ck_assert_uint_eq(DELTA(s0, s1, allocs), 3);
  ck_assert_uint_eq(DELTA(s0, s1, shared_puts), 2);
  ck_assert_uint_eq(DELTA(s0, s1, freed_full), 1);
  ck_assert_uint_eq(DELTA(s0, s1, frees), 1);
  ck_assert_uint_eq(s1.shared_pooled, 2);
  run_grow40(&g);
  cdr_tables_stats s2 = snap();
  ck_assert_uint_eq(DELTA(s1, s2, allocs), 0);
  ck_assert_uint_ge(DELTA(s1, s2, shared_hits), 1);
  ck_assert_uint_le(DELTA(s1, s2, shared_hits), 2);
  ck_assert_uint_eq(DELTA(s1, s2, frees), 0);
  ck_assert_uint_eq(s2.shared_pooled, 2);
  /* A pool of 0 takes nothing: a thread's blocks are freed at its exit. */
  c.shared[CDR_POOL_TABLE_BLOCKS] = 0;
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_OK);
  cdr_tables_flush_shared();
  cdr_tables_stats s3 = snap();
  run_grow40(&g);
  cdr_tables_stats s4 = snap();
  ck_assert_uint_eq(DELTA(s3, s4, allocs), 3);
  ck_assert_uint_eq(DELTA(s3, s4, shared_puts), 0);
  ck_assert_uint_eq(DELTA(s3, s4, freed_full), 3);
  ck_assert_uint_eq(DELTA(s3, s4, frees), 3);
  ck_assert_uint_eq(s4.shared_pooled, 0);
  ck_assert_int_eq(cdr_pool_set_config(&saved), CDR_OK);
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
  tcase_add_test(tc, test_append_lazy_index);
  tcase_add_test(tc, test_reused_block_index);
  tcase_add_test(tc, test_reuse);
  tcase_add_test(tc, test_growth_paths);
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
  tcase_add_test(tp, test_shared_bound_largest_first);
  tcase_add_test(tp, test_no_leak);
  suite_add_tcase(s, tp);
  return s;
}

const tu_program tu_prog = { .suite = itab_suite };
