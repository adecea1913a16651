/* check_cases30.c - hostile counts and TypeCodes against the type-driven
 * reader, as the code idl2c generates uses it and as an Any carries them
 * (docs/hostile-input.md C02, C07, C09):
 *
 * - sequences of idl2c-generated structs and unions (T_PointSeq,
 *   T_NodeSeq, T_Inner_RecSeq, T_LongSeqSeq) with counts of 0xFFFFFFFF,
 *   0x80000000, 0x10000000 and one more than the octets left can hold:
 *   refused (CDR_E_LENGTH or CDR_E_LIMIT) with no arena allocation larger
 *   than 64 KiB; the exact count that fits decodes to the right values;
 *   a T_Node nested a million deep stops at max_depth;
 * - Anys whose TypeCode claims 0x10000000 members (struct, union, enum,
 *   exception) with a few octets left; union discriminators of a kind IDL
 *   does not allow (float, double, string, any, struct, octet strings);
 *   indirections forward, to themselves and into the middle of a
 *   TypeCode; sequence TypeCodes nested past max_depth.
 * Every refused input must be refused before an allocation in proportion
 * to the bogus count (a counting allocator under the arena checks it). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include "base.h"
#include "types.h"
#include "testutil.h"

/* ---------------------------------------------------------------- a counting allocator */

static size_t biggest;                /* the largest single request */

static void *c_malloc(size_t n, void *ud)
{
  (void)ud;
  if (n > biggest)
    biggest = n;
  return malloc(n);
}
static void *c_realloc(void *p, size_t n, void *ud)
{
  (void)ud;
  if (n > biggest)
    biggest = n;
  return realloc(p, n);
}
static void c_free(void *p, void *ud)
{
  (void)ud;
  free(p);
}
static const cdr_allocator counting = { c_malloc, c_realloc, c_free, NULL };

#define SMALL_ALLOC ((size_t)64 << 10)

/* The arena of the last read_as(): what it decoded lives until the next
 * read_as() or done(). */
static cdr_arena ar;
static int ar_live;

static void done(void)
{
  if (ar_live)
    cdr_arena_free(&ar);
  ar_live = 0;
}

/* Read one value of type T from the little-endian octets B (N), with the
 * counting arena; the status. */
static int read_as(cdr_typecode t, const uint8_t *b, size_t n, void *dst, size_t *used)
{
  done();
  cdr_arena_init(&ar, &counting);
  ar_live = 1;
  uint8_t *d = tu_dup(b, n);
  cdr_in i;
  cdr_in_init(&i, d, n, 1, NULL);
  cdr_in_set_arena(&i, &ar);
  biggest = 0;
  int rc = cdr_read(&i, t, dst);
  if (used)
    *used = n - cdr_in_remaining(&i);
  cdr_in_close(&i);
  free(d);
  return rc;
}

static int refused(int rc) { return rc == CDR_E_LENGTH || rc == CDR_E_LIMIT; }

/* ---------------------------------------------------------------- idl2c sequences */

/* sequence<Base::Point> (8 octets an element): bogus counts over 40 octets
 * of data are refused; count 5 reads the five points. */
START_TEST(test_point_seq_counts)
{
  static const uint32_t bogus[] = { 0xFFFFFFFFu, 0x80000000u, 0x10000000u, 6 };
  for (size_t k = 0; k <= sizeof bogus / sizeof bogus[0]; k++) {
    uint32_t count = k < sizeof bogus / sizeof bogus[0] ? bogus[k] : 5;
    tu_buf w;
    memset(&w, 0, sizeof w);
    tu_num(&w, 0, count, 4, 1);
    for (int j = 0; j < 10; j++)
      tu_num(&w, 0, (uint64_t)(j + 1), 4, 1);
    T_PointSeq s;
    memset(&s, 0, sizeof s);
    size_t used = 0;
    int rc = read_as(TC_T_PointSeq, w.b, w.n, &s, &used);
    TU_CTX("count %u", count);
    if (count == 5) {
      ck_assert_int_eq(rc, CDR_OK);
      ck_assert_uint_eq(used, 44);
      ck_assert_uint_eq(s._length, 5);
      ck_assert_int_eq(s._buffer[4].x, 9);
      ck_assert_int_eq(s._buffer[4].y, 10);
    } else {
      ck_assert_msg(refused(rc), "%s: rc %d", tu_ctx, rc);
    }
    ck_assert_msg(biggest <= SMALL_ALLOC, "%s: allocated %zu", tu_ctx, biggest);
  }
}
END_TEST

/* sequence<sequence<long>>: an outer count that fits (2) whose inner count
 * is bogus; an outer count of 0x40000000 with only empty inner sequences
 * (4 octets each) after it. */
START_TEST(test_long_seq_seq_counts)
{
  tu_buf w;
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 2, 4, 1);
  tu_num(&w, 0, 0, 4, 1);
  tu_num(&w, 0, 0xFFFFFFF0u, 4, 1);
  tu_num(&w, 0, 7, 4, 1);
  T_LongSeqSeq s;
  memset(&s, 0, sizeof s);
  ck_assert(refused(read_as(TC_T_LongSeqSeq, w.b, w.n, &s, NULL)));
  ck_assert_uint_le(biggest, SMALL_ALLOC);
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 0x40000000u, 4, 1);
  for (int j = 0; j < 16; j++)
    tu_num(&w, 0, 0, 4, 1);
  memset(&s, 0, sizeof s);
  ck_assert(refused(read_as(TC_T_LongSeqSeq, w.b, w.n, &s, NULL)));
  ck_assert_uint_le(biggest, SMALL_ALLOC);
  /* 16 empty ones: fine */
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 16, 4, 1);
  for (int j = 0; j < 16; j++)
    tu_num(&w, 0, 0, 4, 1);
  memset(&s, 0, sizeof s);
  size_t used;
  ck_assert_int_eq(read_as(TC_T_LongSeqSeq, w.b, w.n, &s, &used), CDR_OK);
  ck_assert_uint_eq(used, 68);
}
END_TEST

/* The recursive T_Node { long value; sequence<Node> kids; }: a bogus kid
 * count at depth 3; a chain of one kid each, a million deep (8 octets a
 * level), stops at max_depth without exhausting the C stack. */
START_TEST(test_node_seq_counts_and_depth)
{
  tu_buf w;
  memset(&w, 0, sizeof w);
  for (int d = 0; d < 3; d++) {
    tu_num(&w, 0, (uint64_t)d, 4, 1);
    tu_num(&w, 0, 1, 4, 1);
  }
  tu_num(&w, 0, 9, 4, 1);
  tu_num(&w, 0, 0x20000000u, 4, 1);
  tu_num(&w, 0, 0, 4, 1);
  T_Node n;
  memset(&n, 0, sizeof n);
  ck_assert(refused(read_as(TC_T_Node, w.b, w.n, &n, NULL)));
  ck_assert_uint_le(biggest, SMALL_ALLOC);

  size_t levels = 1000000;
  uint8_t *deep = malloc(levels * 8 + 8);
  ck_assert_ptr_nonnull(deep);
  for (size_t d = 0; d < levels; d++) {
    tu_store(deep + 8 * d, d, 4, 1);
    tu_store(deep + 8 * d + 4, 1, 4, 1);
  }
  tu_store(deep + 8 * levels, 0, 4, 1);
  tu_store(deep + 8 * levels + 4, 0, 4, 1);
  memset(&n, 0, sizeof n);
  int rc = read_as(TC_T_Node, deep, levels * 8 + 8, &n, NULL);
  ck_assert_int_eq(rc, CDR_E_LIMIT);
  free(deep);
}
END_TEST

/* sequence<Rec>, Rec a union on short whose branch -1 holds sequence<Rec>
 * again: a bogus count inside a branch; a discriminator that names no
 * branch and no default (the union has none: an empty value). */
START_TEST(test_rec_seq_counts)
{
  tu_buf w;
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 1, 4, 1);                    /* one Rec */
  tu_num(&w, 0, 0xFFFF, 2, 1);               /* _d = -1 */
  tu_pad(&w, 0, 4);
  tu_num(&w, 0, 0xFFFFFFFFu, 4, 1);          /* its RecSeq: 0xFFFFFFFF */
  tu_num(&w, 0, 0, 4, 1);
  T_Inner_RecSeq s;
  memset(&s, 0, sizeof s);
  ck_assert(refused(read_as(TC_T_Inner_RecSeq, w.b, w.n, &s, NULL)));
  ck_assert_uint_le(biggest, SMALL_ALLOC);
  /* count 0x10000000 of Recs each claiming only a 2-octet discriminator */
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 0x10000000u, 4, 1);
  for (int j = 0; j < 8; j++)
    tu_num(&w, 0, 0x0007, 2, 1);             /* _d = 7: no branch */
  memset(&s, 0, sizeof s);
  ck_assert(refused(read_as(TC_T_Inner_RecSeq, w.b, w.n, &s, NULL)));
  ck_assert_uint_le(biggest, SMALL_ALLOC);
  /* an enum branch out of range (case 5: Kind { K1, K2 } = 2) */
  memset(&w, 0, sizeof w);
  tu_num(&w, 0, 1, 4, 1);
  tu_num(&w, 0, 5, 2, 1);
  tu_pad(&w, 0, 4);
  tu_num(&w, 0, 2, 4, 1);
  memset(&s, 0, sizeof s);
  ck_assert_int_eq(read_as(TC_T_Inner_RecSeq, w.b, w.n, &s, NULL), CDR_E_VALUE);
}
END_TEST

/* ---------------------------------------------------------------- Anys */

/* Read an Any from the octets of W (little-endian), counting allocator;
 * the status. */
static int any_from(const tu_buf *w)
{
  cdr_arena aa;
  cdr_arena_init(&aa, &counting);
  uint8_t *d = tu_dup(w->b, w->n);
  cdr_in i;
  cdr_in_init(&i, d, w->n, 1, NULL);
  cdr_in_set_arena(&i, &aa);
  biggest = 0;
  cdr_any a;
  cdr_any_init(&a);
  int rc = cdr_get_any(&i, &a);
  if (rc == CDR_OK)
    cdr_any_free(&a);
  cdr_in_close(&i);
  free(d);
  cdr_arena_free(&aa);
  return rc;
}

/* A little-endian CDR string (with NUL) at W's end. */
static void w_str(tu_buf *w, const char *s)
{
  tu_num(w, 0, (uint64_t)strlen(s) + 1, 4, 1);
  tu_put(w, s, strlen(s) + 1);
}

/* Begin a complex TypeCode of kind K (encapsulation length patched by
 * w_end): kind, a length placeholder, byte order, id, name; returns the
 * encapsulation's first offset. */
static size_t w_begin(tu_buf *w, uint32_t k, const char *id, const char *name)
{
  tu_pad(w, 0, 4);
  tu_num(w, 0, k, 4, 1);
  tu_num(w, 0, 0, 4, 1);
  size_t at = w->n;
  tu_u8(w, 1);
  if (id) {
    /* strings inside the encapsulation align to its start; 1 octet in,
     * then 3 of padding */
    while ((w->n - at) % 4)
      tu_u8(w, 0);
    w_str(w, id);
    while ((w->n - at) % 4)
      tu_u8(w, 0);
    w_str(w, name);
  }
  return at;
}

static void w_ul(tu_buf *w, size_t at, uint32_t v)
{
  while ((w->n - at) % 4)
    tu_u8(w, 0);
  tu_num(w, 0, v, 4, 1);
}

static void w_end(tu_buf *w, size_t at)
{
  tu_store(w->b + at - 4, w->n - at, 4, 1);
}

/* Complex TypeCodes claiming 0x10000000 members with a few octets left. */
START_TEST(test_any_huge_member_counts)
{
  static const uint32_t kinds[] = { 15 /* struct */, 22 /* except */, 17 /* enum */,
                                    16 /* union */, 29 /* value */ };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    tu_buf w;
    memset(&w, 0, sizeof w);
    size_t at = w_begin(&w, kinds[k], "IDL:T/H:1.0", "H");
    if (kinds[k] == 16) {
      w_ul(&w, at, 3);                       /* discriminator tk_long */
      w_ul(&w, at, 0xFFFFFFFFu);             /* default index -1 */
    }
    if (kinds[k] == 29) {
      while ((w.n - at) % 2)
        tu_u8(&w, 0);
      tu_num(&w, 0, 0, 2, 1);                /* modifier */
      w_ul(&w, at, 0);                       /* concrete base tk_null */
    }
    w_ul(&w, at, 0x10000000u);
    for (int j = 0; j < 6; j++)
      w_ul(&w, at, 0x00000002u);             /* short strings / kinds */
    w_end(&w, at);
    tu_num(&w, 0, 0, 4, 1);
    int rc = any_from(&w);
    ck_assert_msg(rc == CDR_E_LENGTH || rc == CDR_E_LIMIT, "kind %u: rc %d", kinds[k], rc);
    ck_assert_msg(biggest <= SMALL_ALLOC, "kind %u: allocated %zu", kinds[k], biggest);
  }
}
END_TEST

/* A union TypeCode whose discriminator is of a kind IDL does not allow. */
START_TEST(test_any_bad_discriminator_kinds)
{
  /* float, double, string, any, struct (via tk_null stand-in), octet,
   * tk_void, tk_TypeCode, long double */
  static const uint32_t kinds[] = { 3 /* control: long */, 6, 7, 18, 11, 0, 1, 12, 25 };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    tu_buf w;
    memset(&w, 0, sizeof w);
    size_t at = w_begin(&w, 16, "IDL:T/BU:1.0", "BU");
    w_ul(&w, at, kinds[k]);
    if (kinds[k] == 18)
      w_ul(&w, at, 0);                       /* unbounded */
    w_ul(&w, at, 0xFFFFFFFFu);               /* no default */
    w_ul(&w, at, 1);                         /* one member */
    w_ul(&w, at, 1);                         /* its label (as a long-sized value) */
    w_ul(&w, at, 2);
    tu_put(&w, "m", 2);
    w_ul(&w, at, 3);                         /* tk_long */
    w_end(&w, at);
    tu_num(&w, 0, 1, 4, 1);
    tu_num(&w, 0, 1, 4, 1);
    int rc = any_from(&w);
    if (kinds[k] == 3) {                     /* the same union switched on long decodes */
      ck_assert_int_eq(rc, CDR_OK);
      continue;
    }
    ck_assert_msg(rc != CDR_OK, "discriminator kind %u accepted", kinds[k]);
    ck_assert_msg(rc == CDR_E_TYPE || rc == CDR_E_VALUE, "kind %u: rc %d", kinds[k], rc);
  }
  /* a default index past the members */
  tu_buf w;
  memset(&w, 0, sizeof w);
  size_t at = w_begin(&w, 16, "IDL:T/BU:1.0", "BU");
  w_ul(&w, at, 3);
  w_ul(&w, at, 5);
  w_ul(&w, at, 1);
  w_ul(&w, at, 1);
  w_ul(&w, at, 2);
  tu_put(&w, "m", 2);
  w_ul(&w, at, 3);
  w_end(&w, at);
  tu_num(&w, 0, 1, 4, 1);
  tu_num(&w, 0, 1, 4, 1);
  ck_assert_int_eq(any_from(&w), CDR_E_TYPE);
}
END_TEST

/* Indirections inside the Any's TypeCode: forward (+8), to itself (-4),
 * into an encapsulation length (not a kind field), before the Any. */
START_TEST(test_any_bad_indirections)
{
  for (int how = 0; how < 4; how++) {
    tu_buf w;
    memset(&w, 0, sizeof w);
    tu_num(&w, 0, 0xAAAAAAAAu, 4, 1);        /* an octet run before the any */
    size_t start = w.n;
    size_t at = w_begin(&w, 19, NULL, NULL); /* sequence< indirection > */
    while ((w.n - at) % 4)
      tu_u8(&w, 0);
    size_t ind = w.n;
    tu_num(&w, 0, 0xFFFFFFFFu, 4, 1);
    int32_t off;
    switch (how) {
    case 0: off = 8; break;
    case 1: off = -4; break;
    case 2: off = (int32_t)((int64_t)at - 4 - (int64_t)(ind + 4)); break; /* the length */
    default: off = (int32_t)((int64_t)start - 4 - (int64_t)(ind + 4)); break;
    }
    tu_num(&w, 0, (uint32_t)off, 4, 1);
    w_ul(&w, at, 0);                          /* bound */
    w_end(&w, at);
    tu_num(&w, 0, 0, 4, 1);                   /* an empty sequence */
    cdr_arena ia;
    cdr_arena_init(&ia, &counting);
    uint8_t *d = tu_dup(w.b, w.n);
    cdr_in i;
    cdr_in_init(&i, d, w.n, 1, NULL);
    cdr_in_set_arena(&i, &ia);
    ck_assert_uint_eq(cdr_get_ulong(&i), 0xAAAAAAAAu);
    cdr_any a;
    cdr_any_init(&a);
    int rc = cdr_get_any(&i, &a);
    ck_assert_msg(rc == CDR_E_INDIRECTION, "how %d: rc %d", how, rc);
    cdr_in_close(&i);
    free(d);
    cdr_arena_free(&ia);
  }
}
END_TEST

/* sequence<sequence<...<long>...>> nested 200 deep (past max_depth 64):
 * CDR_E_LIMIT. */
START_TEST(test_any_deep_typecode)
{
  enum { DEEP = 200 };
  tu_buf w;
  memset(&w, 0, sizeof w);
  size_t *ats = malloc(DEEP * sizeof *ats);
  ck_assert_ptr_nonnull(ats);
  for (int d = 0; d < DEEP; d++)
    ats[d] = w_begin(&w, 19, NULL, NULL);
  w_ul(&w, ats[DEEP - 1], 3);
  for (int d = DEEP - 1; d >= 0; d--) {
    w_ul(&w, ats[d], 0);
    w_end(&w, ats[d]);
  }
  tu_num(&w, 0, 0, 4, 1);
  ck_assert_int_eq(any_from(&w), CDR_E_LIMIT);
  free(ats);
}
END_TEST

static Suite *cases30_suite(void)
{
  Suite *s = suite_create("cases30");
  TCase *tc = tcase_create("C02");
  tcase_add_checked_fixture(tc, NULL, done);
  tcase_add_test(tc, test_point_seq_counts);
  tcase_add_test(tc, test_long_seq_seq_counts);
  tcase_add_test(tc, test_node_seq_counts_and_depth);
  tcase_add_test(tc, test_rec_seq_counts);
  tcase_add_test(tc, test_any_huge_member_counts);
  suite_add_tcase(s, tc);
  tc = tcase_create("C07");
  tcase_add_test(tc, test_any_bad_discriminator_kinds);
  suite_add_tcase(s, tc);
  tc = tcase_create("C09");
  tcase_add_test(tc, test_any_bad_indirections);
  tcase_add_test(tc, test_any_deep_typecode);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = cases30_suite };
