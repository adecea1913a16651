/* check_alloc.c - allocation failure: with a counting allocator that fails
 * the first, second, third ... allocation in turn, every operation that
 * allocates (growing an output stream, decoding into an arena, the
 * type-driven reader and writer, the global allocator with its per-thread
 * pools) must stop with CDR_E_NOMEM, never crash, and leak nothing once
 * its objects are closed and freed. */
#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include "testutil.h"

/* A scenario runs with C as its allocator and returns the final status. */
typedef int (*scenario_fn)(cdr_mem_counter *c, const void *ud);

/* Run FN with allocation 1, 2, 3 ... failing until a run completes without
 * a failure; every failing run must end with CDR_E_NOMEM, every run must
 * leave no block live.  Returns the allocations a full run makes. */
static uint64_t fail_each_allocation(const char *name, scenario_fn fn, const void *ud,
                                     cdr_mem_counter *c, uint64_t min_allocs)
{
  cdr_mem_counter_init(c, NULL);
  int rc = fn(c, ud);
  ck_assert_msg(rc == CDR_OK, "%s: status %d without failures", name, rc);
  ck_assert_msg(c->live == 0, "%s: %" PRId64 " blocks live after a clean run", name, c->live);
  uint64_t total = c->attempts;
  if (getenv("TU_VERBOSE"))
    fprintf(stderr, "%s: %" PRIu64 " allocations in a clean run\n", name, total);
  ck_assert_msg(total >= min_allocs, "%s: only %" PRIu64 " allocations, expected >= %" PRIu64,
                name, total, min_allocs);
  for (uint64_t k = 1;; k++) {
    ck_assert_msg(k <= total + 1, "%s: still failing past %" PRIu64 " allocations", name, total);
    cdr_mem_counter_init(c, NULL);
    c->fail_at = k;
    rc = fn(c, ud);
    ck_assert_msg(c->live == 0, "%s: allocation %" PRIu64 " failed: %" PRId64 " blocks leaked",
                  name, k, c->live);
    if (c->attempts < k) { /* the failure was never reached: a clean run */
      ck_assert_msg(rc == CDR_OK, "%s: status %d on a clean run", name, rc);
      ck_assert_uint_eq(k, total + 1);
      break;
    }
    ck_assert_msg(rc == CDR_E_NOMEM, "%s: allocation %" PRIu64 " failed: status %d (%s)", name, k,
                  rc, cdr_strerror(rc));
  }
  return total;
}

/* ------------------------------------------------------------ large writes */

#define W_ITEMS 20000

static void w_item_string(char *buf, size_t cap, uint32_t k)
{
  snprintf(buf, cap, "item-%" PRIu32 "-%.*s", k, (int)(k % 23), "abcdefghijklmnopqrstuvw");
}

static void write_large(cdr_out *o)
{
  char s[64];
  for (uint32_t k = 0; k < W_ITEMS; k++) {
    cdr_put_ulong(o, k);
    w_item_string(s, sizeof s, k);
    cdr_put_string(o, s);
    cdr_put_double(o, k * 0.5);
  }
}

static void check_large(const uint8_t *d, size_t n, int order)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in in;
  cdr_in_init(&in, d, n, order, NULL);
  cdr_in_set_arena(&in, &a);
  char s[64];
  for (uint32_t k = 0; k < W_ITEMS; k++) {
    ck_assert_uint_eq(cdr_get_ulong(&in), k);
    const char *v;
    ck_assert_int_eq(cdr_get_string_view(&in, &v, NULL), CDR_OK);
    w_item_string(s, sizeof s, k);
    ck_assert_str_eq(v, s);
    ck_assert(cdr_get_double(&in) == k * 0.5);
  }
  ck_assert_int_eq(cdr_in_status(&in), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&in), 0);
  cdr_arena_free(&a);
}

/* ud: 0 close, 1 detach. */
static int sc_write_large(cdr_mem_counter *c, const void *ud)
{
  int detach = *(const int *)ud;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_BIG_ENDIAN;
  op.alloc = &c->alloc;
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  ck_assert_uint_eq(c->attempts, 0); /* init allocates nothing */
  write_large(&o);
  int rc = cdr_out_status(&o);
  ck_assert(rc == CDR_OK || rc == CDR_E_NOMEM);
  if (rc == CDR_OK)
    check_large(cdr_out_data(&o), cdr_out_size(&o), CDR_BIG_ENDIAN);
  if (detach) {
    uint8_t *d = NULL;
    size_t n = 0;
    int drc = cdr_out_detach(&o, &d, &n);
    ck_assert_int_eq(drc, rc);
    if (drc == CDR_OK) {
      check_large(d, n, CDR_BIG_ENDIAN);
      cdr_out_buffer_free(&op, d);
    } else {
      ck_assert_ptr_null(d);
      cdr_out_close(&o);
    }
  } else {
    cdr_out_close(&o);
  }
  return rc;
}

START_TEST(test_alloc_write_large_message)
{
  cdr_mem_counter c;
  const int close_it = 0, detach_it = 1;
  /* 8 KiB doubling to past 512 KiB: at least 7 allocations. */
  fail_each_allocation("write+close", sc_write_large, &close_it, &c, 7);
  fail_each_allocation("write+detach", sc_write_large, &detach_it, &c, 7);
}
END_TEST

/* Detach from a caller's fixed buffer copies it: that copy can fail. */
static int sc_detach_fixed(cdr_mem_counter *c, const void *ud)
{
  (void)ud;
  uint8_t buf[64];
  cdr_opts op;
  cdr_opts_default(&op);
  op.alloc = &c->alloc;
  cdr_out o;
  cdr_out_init_buffer(&o, &op, buf, sizeof buf);
  cdr_put_string(&o, "fixed");
  uint8_t *d = NULL;
  size_t n = 0;
  int rc = cdr_out_detach(&o, &d, &n);
  if (rc == CDR_OK) {
    ck_assert_uint_eq(n, 10);
    ck_assert_mem_eq(d + 4, "fixed", 6);
    cdr_out_buffer_free(&op, d);
  } else {
    ck_assert_ptr_null(d);
    ck_assert_int_eq(cdr_out_status(&o), CDR_E_NOMEM);
    cdr_out_close(&o);
  }
  return rc;
}

START_TEST(test_alloc_detach_fixed_buffer)
{
  cdr_mem_counter c;
  ck_assert_uint_eq(fail_each_allocation("detach fixed", sc_detach_fixed, NULL, &c, 1), 1);
}
END_TEST

/* ------------------------------------------------------- decoding to arenas */

#define D_STRINGS 3000
#define D_SEQS 600
#define D_WSTRINGS 100
#define D_BLOB (100u << 10)

/* A message built once per process (per test child when forking). */
typedef struct msg {
  uint8_t *b;
  size_t n;
} msg;

static msg msg_of(const cdr_out *o)
{
  msg m = { tu_dup(cdr_out_data(o), cdr_out_size(o)), cdr_out_size(o) };
  return m;
}

static msg d_input;             /* the decoding message */
static size_t d_latin1_at;       /* where the part read with conversion starts */

static void d_string(char *s, size_t cap, uint32_t k)
{
  size_t n = (k * 37) % 200;
  if (n >= cap)
    n = cap - 1;
  for (size_t j = 0; j < n; j++)
    s[j] = (char)('A' + (k + j) % 26);
  s[n] = 0;
}

static const msg *decode_input(void)
{
  if (d_input.b)
    return &d_input;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  cdr_out o;
  cdr_out_init(&o, &op);
  char s[256];
  for (uint32_t k = 0; k < D_STRINGS; k++) {
    d_string(s, sizeof s, k);
    cdr_put_string(&o, s);
  }
  for (uint32_t k = 0; k < D_SEQS; k++) {
    uint32_t v[64];
    uint32_t n = k % 64;
    for (uint32_t j = 0; j < n; j++)
      v[j] = k * 1000 + j;
    if (k % 3 == 0) {
      double dv[64];
      for (uint32_t j = 0; j < n; j++)
        dv[j] = v[j] / 4.0;
      cdr_put_seq(&o, dv, n, 8);
    } else {
      cdr_put_seq(&o, v, n, 4);
    }
  }
  for (uint32_t k = 0; k < D_WSTRINGS; k++) {
    cdr_wchar w[40];
    size_t n = k % 40;
    for (size_t j = 0; j < n; j++)
      w[j] = (j & 1) ? 0x1F0A0 + (cdr_wchar)j : 0x430 + (cdr_wchar)j;
    cdr_put_wstring(&o, w, n);
  }
  uint8_t *blob = malloc(D_BLOB);
  ck_assert_ptr_nonnull(blob);
  for (size_t j = 0; j < D_BLOB; j++)
    blob[j] = (uint8_t)(j * 13);
  cdr_put_seq(&o, blob, D_BLOB, 1);
  free(blob);
  /* Latin-1 strings, to be read with native UTF-8 (conversion into the arena). */
  d_latin1_at = cdr_out_size(&o);
  for (uint32_t k = 0; k < 200; k++)
    cdr_put_string(&o, k & 1 ? "caf\xE9 cr\xE8me br\xFBl\xE9" : "plain");
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  d_input = msg_of(&o);
  cdr_out_close(&o);
  return &d_input;
}

static int sc_decode(cdr_mem_counter *c, const void *ud)
{
  (void)ud;
  const msg *m = decode_input();
  const uint8_t *b = m->b;
  cdr_arena a;
  cdr_arena_init(&a, &c->alloc);
  ck_assert_uint_eq(c->attempts, 0);
  cdr_in in;
  cdr_in_init(&in, b, d_latin1_at, CDR_LITTLE_ENDIAN, NULL);
  cdr_in_set_arena(&in, &a);
  char want[256];
  for (uint32_t k = 0; k < D_STRINGS && cdr_in_status(&in) == CDR_OK; k++) {
    uint32_t n;
    char *s = cdr_get_string(&in, &n);
    if (!s)
      break;
    d_string(want, sizeof want, k);
    ck_assert_str_eq(s, want);
  }
  for (uint32_t k = 0; k < D_SEQS && cdr_in_status(&in) == CDR_OK; k++) {
    uint32_t n = 0;
    void *p = cdr_get_seq(&in, k % 3 == 0 ? 8 : 4, &n);
    if (!p)
      break;
    ck_assert_uint_eq(n, k % 64);
    for (uint32_t j = 0; j < n; j++) {
      if (k % 3 == 0)
        ck_assert(((double *)p)[j] == (k * 1000 + j) / 4.0);
      else
        ck_assert_uint_eq(((uint32_t *)p)[j], k * 1000 + j);
    }
  }
  for (uint32_t k = 0; k < D_WSTRINGS && cdr_in_status(&in) == CDR_OK; k++) {
    uint32_t n = 0;
    cdr_wchar *w = cdr_get_wstring(&in, &n);
    if (!w)
      break;
    ck_assert_uint_eq(n, k % 40);
    for (uint32_t j = 0; j < n; j++)
      ck_assert_uint_eq(w[j], (j & 1) ? 0x1F0A0 + j : 0x430 + j);
  }
  if (cdr_in_status(&in) == CDR_OK) {
    uint32_t n = 0;
    uint8_t *blob = cdr_get_seq(&in, 1, &n);
    if (blob) {
      ck_assert_uint_eq(n, D_BLOB);
      for (size_t j = 0; j < D_BLOB; j += 997)
        ck_assert_uint_eq(blob[j], (uint8_t)(j * 13));
    }
  }
  int rc = cdr_in_status(&in);
  if (rc == CDR_OK)
    ck_assert_uint_eq(cdr_in_remaining(&in), 0);
  cdr_in_close(&in);

  /* The Latin-1 tail, converted to UTF-8, into the same arena. */
  if (rc == CDR_OK) {
    cdr_opts op;
    cdr_opts_default(&op);
    op.ncs_c = CDR_CS_UTF8;
    cdr_in_init(&in, b + d_latin1_at, m->n - d_latin1_at, CDR_LITTLE_ENDIAN, &op);
    cdr_in_set_arena(&in, &a);
    for (uint32_t k = 0; k < 200; k++) {
      char *s = cdr_get_string(&in, NULL);
      if (!s)
        break;
      ck_assert_str_eq(s, k & 1 ? "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9" : "plain");
    }
    rc = cdr_in_status(&in);
    cdr_in_close(&in);
  }
  if (rc != CDR_OK)
    ck_assert_int_eq(rc, CDR_E_NOMEM);
  cdr_arena_free(&a);
  return rc;
}

START_TEST(test_alloc_decode_into_arena)
{
  cdr_mem_counter c;
  /* 4 KiB blocks doubling to hold ~450 KB, and a 100 KiB block of its own. */
  fail_each_allocation("decode", sc_decode, NULL, &c, 7);
}
END_TEST

/* A reset arena keeps its largest block: decoding the same message again
 * allocates nothing more, and a failure on the way leaves it reusable. */
START_TEST(test_alloc_arena_reset_reuse)
{
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_arena a;
  cdr_arena_init(&a, &c.alloc);
  static const uint8_t hello[] = { 0, 0, 0, 6, 'h', 'e', 'l', 'l', 'o', 0 };
  for (int round = 0; round < 3; round++) {
    cdr_in in;
    cdr_in_init(&in, hello, sizeof hello, CDR_BIG_ENDIAN, NULL);
    cdr_in_set_arena(&in, &a);
    ck_assert_str_eq(cdr_get_string(&in, NULL), "hello");
    ck_assert_uint_eq(cdr_arena_used(&a), 6);
    cdr_arena_reset(&a);
    ck_assert_uint_eq(cdr_arena_used(&a), 0);
    ck_assert_uint_eq(c.attempts, 1);
  }
  ck_assert_int_eq(c.live, 1);
  cdr_arena_free(&a);
  ck_assert_int_eq(c.live, 0);

  /* The arena's own limit (cdr_arena_set_max) turns into CDR_E_NOMEM. */
  cdr_arena_init(&a, &c.alloc);
  cdr_arena_set_max(&a, 5);
  cdr_in in;
  cdr_in_init(&in, hello, sizeof hello, CDR_BIG_ENDIAN, NULL);
  cdr_in_set_arena(&in, &a);
  ck_assert_ptr_null(cdr_get_string(&in, NULL));
  ck_assert_int_eq(cdr_in_status(&in), CDR_E_NOMEM);
  cdr_arena_free(&a);
  ck_assert_int_eq(c.live, 0);
}
END_TEST

/* A zero-size request on a fresh arena is not a failure (NULL means
 * failure to the caller). */
START_TEST(test_alloc_arena_zero_size)
{
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_arena a;
  cdr_arena_init(&a, &c.alloc);
  void *z = cdr_arena_alloc(&a, 0, 1);
  ck_assert_msg(z != NULL, "cdr_arena_alloc(fresh, 0, 1) returned NULL (reads as a failure)");
  z = cdr_arena_alloc(&a, 0, 8);
  ck_assert_ptr_nonnull(z);
  cdr_arena_free(&a);
  ck_assert_int_eq(c.live, 0);
}
END_TEST

/* A request too large to exist -- where size plus alignment overflows --
 * is NULL, never a pointer into a small block: on a fresh arena, after a
 * reset, and with a block in use. */
START_TEST(test_alloc_arena_huge_size)
{
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_arena a;
  static const size_t huge[] = { SIZE_MAX, SIZE_MAX - 3, SIZE_MAX - 7, SIZE_MAX / 2 + 1 };
  for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++)
    for (int state = 0; state < 3; state++) {
      cdr_arena_init(&a, &c.alloc);
      if (state >= 1)
        ck_assert_ptr_nonnull(cdr_arena_alloc(&a, 16, 8)); /* a first block */
      if (state == 2)
        cdr_arena_reset(&a);
      size_t used = cdr_arena_used(&a);
      void *p = cdr_arena_alloc(&a, huge[k], 8);
      ck_assert_msg(p == NULL, "cdr_arena_alloc(%zu octets, 8) %s returned %p (used now %zu)",
                    huge[k], state == 0 ? "on a fresh arena" : state == 1 ? "after 16" : "after a reset",
                    p, cdr_arena_used(&a));
      ck_assert_uint_eq(cdr_arena_used(&a), used);
      void *q = cdr_arena_alloc(&a, 16, 8); /* the arena still works */
      ck_assert_ptr_nonnull(q);
      memset(q, 0xAB, 16);
      cdr_arena_free(&a);
      ck_assert_int_eq(c.live, 0);
    }
}
END_TEST

/* -------------------------------------------------- type-driven read/write */

typedef struct rec {
  cdr_seq names;   /* sequence<string> */
  cdr_seq groups;  /* sequence<sequence<string>> */
  int32_t id;
  char *title;
} rec;

static const cdr_type seq_string_t = CDR_SEQUENCE_TYPE(&cdr_type_string, 0);
static const cdr_type seq_seq_string_t = CDR_SEQUENCE_TYPE(&seq_string_t, 0);
static const cdr_member rec_members[] = {
  CDR_MEMBER(rec, names, &seq_string_t),
  CDR_MEMBER(rec, groups, &seq_seq_string_t),
  CDR_MEMBER(rec, id, &cdr_type_long),
  CDR_MEMBER(rec, title, &cdr_type_string),
};
static const cdr_type rec_type = CDR_STRUCT_TYPE(rec, "Rec", "IDL:Rec:1.0", rec_members);

#define R_NAMES 300
#define R_GROUPS 60

static void r_name(char *s, size_t cap, uint32_t g, uint32_t k)
{
  snprintf(s, cap, "g%" PRIu32 "-n%" PRIu32 "%.*s", g, k, (int)((g + k) % 17), "xxxxxxxxxxxxxxxxx");
}

static uint32_t r_group_len(uint32_t g) { return (g * 7) % 31; }

static msg r_input;

/* The record's encoding, written by hand with the stream primitives. */
static const msg *rec_input(void)
{
  if (r_input.b)
    return &r_input;
  cdr_out o;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_BIG_ENDIAN;
  cdr_out_init(&o, &op);
  char s[64];
  cdr_put_ulong(&o, R_NAMES);
  for (uint32_t k = 0; k < R_NAMES; k++) {
    r_name(s, sizeof s, 1000, k);
    cdr_put_string(&o, s);
  }
  cdr_put_ulong(&o, R_GROUPS);
  for (uint32_t g = 0; g < R_GROUPS; g++) {
    cdr_put_ulong(&o, r_group_len(g));
    for (uint32_t k = 0; k < r_group_len(g); k++) {
      r_name(s, sizeof s, g, k);
      cdr_put_string(&o, s);
    }
  }
  cdr_put_long(&o, -42);
  cdr_put_string(&o, "title");
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  r_input = msg_of(&o);
  cdr_out_close(&o);
  return &r_input;
}

static void check_rec(const rec *r)
{
  char s[64];
  ck_assert_uint_eq(r->names._length, R_NAMES);
  for (uint32_t k = 0; k < R_NAMES; k++) {
    r_name(s, sizeof s, 1000, k);
    ck_assert_str_eq(((char **)r->names._buffer)[k], s);
  }
  ck_assert_uint_eq(r->groups._length, R_GROUPS);
  for (uint32_t g = 0; g < R_GROUPS; g++) {
    const cdr_seq *gs = &((cdr_seq *)r->groups._buffer)[g];
    ck_assert_uint_eq(gs->_length, r_group_len(g));
    for (uint32_t k = 0; k < gs->_length; k++) {
      r_name(s, sizeof s, g, k);
      ck_assert_str_eq(((char **)gs->_buffer)[k], s);
    }
  }
  ck_assert_int_eq(r->id, -42);
  ck_assert_str_eq(r->title, "title");
}

static int sc_cdr_read(cdr_mem_counter *c, const void *ud)
{
  (void)ud;
  const msg *m = rec_input();
  cdr_arena a;
  cdr_arena_init(&a, &c->alloc);
  cdr_in in;
  cdr_in_init(&in, m->b, m->n, CDR_BIG_ENDIAN, NULL);
  cdr_in_set_arena(&in, &a);
  rec r;
  memset(&r, 0, sizeof r);
  int rc = cdr_read(&in, &rec_type, &r);
  ck_assert_int_eq(rc, cdr_in_status(&in));
  if (rc == CDR_OK) {
    check_rec(&r);
    ck_assert_uint_eq(cdr_in_remaining(&in), 0);
  }
  cdr_in_close(&in);
  cdr_arena_free(&a);
  return rc;
}

START_TEST(test_alloc_cdr_read_nested_sequences)
{
  cdr_mem_counter c;
  fail_each_allocation("cdr_read", sc_cdr_read, NULL, &c, 3);
}
END_TEST

static int sc_cdr_write(cdr_mem_counter *c, const void *ud)
{
  const rec *r = ud;
  const msg *m = rec_input();
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_BIG_ENDIAN;
  op.alloc = &c->alloc;
  cdr_out o;
  cdr_out_init(&o, &op);
  int rc = cdr_write(&o, &rec_type, r);
  ck_assert_int_eq(rc, cdr_out_status(&o));
  if (rc == CDR_OK) {
    TU_CTX("cdr_write of the record");
    TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), m->b, m->n);
  }
  cdr_out_close(&o);
  return rc;
}

START_TEST(test_alloc_cdr_write_nested_sequences)
{
  /* Decode the record once (default allocator) to have one to write. */
  const msg *m = rec_input();
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in in;
  cdr_in_init(&in, m->b, m->n, CDR_BIG_ENDIAN, NULL);
  cdr_in_set_arena(&in, &a);
  rec r;
  ck_assert_int_eq(cdr_read(&in, &rec_type, &r), CDR_OK);
  cdr_mem_counter c;
  fail_each_allocation("cdr_write", sc_cdr_write, &r, &c, 2);
  cdr_arena_free(&a);
}
END_TEST

/* --------------------------------------------------------- global allocator */

/* Static: the pools may hold its blocks after a failed assertion, and the
 * fixture's teardown must still be able to free them through it. */
static cdr_mem_counter g_mem;

static void global_setup(void)
{
  cdr_pool_flush();
  cdr_tables_flush_thread();
}

static void global_teardown(void)
{
  if (cdr_mem_global() == &g_mem.alloc)
    cdr_pool_flush();
  cdr_mem_set_global(NULL);
}

/* Everything through the global allocator: an output stream on pooled
 * buffers (grown past 8 KiB several times, detached or closed), an arena
 * from the thread's pool, decoding into it, and back into the pools; then
 * the pools are flushed and nothing may be left.  ud: 0 close, 1 detach. */
static int sc_global(cdr_mem_counter *c, const void *ud)
{
  int detach = *(const int *)ud;
  cdr_pool_flush();
  cdr_mem_set_global(&c->alloc);
  int rc = CDR_OK;
  for (int round = 0; round < 2 && rc == CDR_OK; round++) {
    cdr_out o;
    cdr_out_init(&o, NULL);
    for (uint32_t k = 0; k < 3000; k++) {
      cdr_put_string(&o, "pooled buffer string");
      cdr_put_ulonglong(&o, k);
      cdr_put_seq(&o, "abcdefgh", 8, 1);
    }
    rc = cdr_out_status(&o);
    cdr_arena *a = NULL;
    if (rc == CDR_OK) {
      a = cdr_arena_get();
      if (!a)
        rc = CDR_E_NOMEM;
    }
    if (rc == CDR_OK) {
      cdr_in in;
      cdr_in_init(&in, cdr_out_data(&o), cdr_out_size(&o), CDR_HOST_ORDER, NULL);
      cdr_in_set_arena(&in, a);
      for (uint32_t k = 0; k < 3000 && cdr_in_status(&in) == CDR_OK; k++) {
        char *s = cdr_get_string(&in, NULL);
        uint64_t v = cdr_get_ulonglong(&in);
        uint32_t n = 0;
        uint8_t *q = cdr_get_seq(&in, 1, &n);
        if (cdr_in_status(&in) == CDR_OK) {
          ck_assert_str_eq(s, "pooled buffer string");
          ck_assert_uint_eq(v, k);
          ck_assert_uint_eq(n, 8);
          ck_assert_mem_eq(q, "abcdefgh", 8);
        }
      }
      rc = cdr_in_status(&in);
      cdr_in_close(&in);
    }
    if (a)
      cdr_arena_put(a);
    if (detach && rc == CDR_OK) {
      uint8_t *d = NULL;
      size_t n = 0;
      ck_assert_int_eq(cdr_out_detach(&o, &d, &n), CDR_OK);
      cdr_out_buffer_free(NULL, d);
    } else {
      cdr_out_close(&o);
    }
  }
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
  return rc;
}

START_TEST(test_alloc_global_allocator_pools)
{
  const int close_it = 0, detach_it = 1;
  fail_each_allocation("global+close", sc_global, &close_it, &g_mem, 5);
  fail_each_allocation("global+detach", sc_global, &detach_it, &g_mem, 5);
}
END_TEST

/* Without flushing, the pools keep what they were given: a second round
 * reuses the buffer and the arena instead of allocating (the point of the
 * pools), and a flush frees it all. */
START_TEST(test_alloc_global_pools_reuse)
{
  cdr_mem_counter_init(&g_mem, NULL);
  cdr_mem_set_global(&g_mem.alloc);
  uint64_t after_first = 0;
  for (int round = 0; round < 3; round++) {
    cdr_out o;
    cdr_out_init(&o, NULL);
    for (int k = 0; k < 1000; k++)
      cdr_put_ulong(&o, (uint32_t)k);
    cdr_arena *a = cdr_arena_get();
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(cdr_arena_alloc(a, 100, 8));
    cdr_arena_put(a);
    cdr_out_close(&o);
    if (round == 0)
      after_first = g_mem.attempts;
    else
      ck_assert_msg(g_mem.attempts == after_first, "round %d allocated %" PRIu64 " more", round,
                    g_mem.attempts - after_first);
  }
  ck_assert_int_gt(g_mem.live, 0);
  cdr_pool_flush();
  ck_assert_int_eq(g_mem.live, 0);
  cdr_mem_set_global(NULL);
}
END_TEST

/* --------------------------------------------------------- pool settings */

/* Each test below starts and ends with the default settings, empty pools
 * and the libc allocator (Check may run the tests in one process). */
static void value_plans_built(void);

static void pools_reset(void)
{
  value_plans_built();
  cdr_pool_config d;
  cdr_pool_config_default(&d);
  ck_assert_int_eq(cdr_pool_set_config(&d), CDR_OK);
  if (cdr_mem_global() == &g_mem.alloc)
    cdr_pool_flush();
  cdr_pool_flush_shared(); /* each object goes back to its own allocator */
  cdr_mem_set_global(NULL);
  cdr_pool_flush();
}

/* A stream over the global allocator writing N octets, closed. */
static void stream_round(size_t n)
{
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, NULL), CDR_OK);
  for (size_t k = 0; k < n / 4; k++)
    cdr_put_ulong(&o, (uint32_t)k);
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  cdr_out_close(&o);
}

/* An arena from the pool, N octets allocated from it (none: 0), put back. */
static void arena_round(size_t n)
{
  cdr_arena *a = cdr_arena_get();
  ck_assert_ptr_nonnull(a);
  if (n)
    ck_assert_ptr_nonnull(cdr_arena_alloc(a, n, 8));
  cdr_arena_put(a);
}

typedef struct PNode {
  cdr_value hdr;
  int32_t id;
} PNode;
static const cdr_member PNode_members[] = { CDR_MEMBER(PNode, id, &cdr_type_long) };
static cdr_value_type PNode_vt = { .name = "PNode", .repo_id = "IDL:Test/PNode:1.0",
                                   .members = PNode_members, .nmembers = 1,
                                   .size = sizeof(PNode), .align = _Alignof(PNode) };

/* PNode's walk plan, built on first use and kept on its descriptor (not a
 * pool's business): built before any counting starts. */
static void value_plans_built(void)
{
  int st;
  ck_assert_ptr_nonnull(cdr_value_type_plan(&PNode_vt, &st));
}

/* A stream that writes one value (its value state from the pool), closed. */
static void value_round(size_t id)
{
  PNode v = { .hdr.type = &PNode_vt, .id = (int32_t)id };
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, NULL), CDR_OK);
  ck_assert_int_eq(cdr_put_value(&o, &PNode_vt, &v), CDR_OK);
  cdr_out_close(&o);
}

/* Start counting every allocation through the global allocator. */
static void count_global(void)
{
  cdr_pool_flush();
  cdr_mem_counter_init(&g_mem, NULL);
  cdr_mem_set_global(&g_mem.alloc);
}

/* GOT must hold exactly the settings of WANT. */
static void assert_config(const cdr_pool_config *got, const cdr_pool_config *want)
{
  ck_assert_uint_eq(got->buffers, want->buffers);
  ck_assert_uint_eq(got->buffer_max_bytes, want->buffer_max_bytes);
  ck_assert_uint_eq(got->arenas, want->arenas);
  ck_assert_uint_eq(got->arena_max_bytes, want->arena_max_bytes);
  ck_assert_uint_eq(got->value_states, want->value_states);
  ck_assert_int_eq(got->tables, want->tables);
  ck_assert_uint_eq(got->table_blocks, want->table_blocks);
  ck_assert_uint_eq(got->table_max_entries, want->table_max_entries);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    ck_assert_uint_eq(got->shared[k], want->shared[k]);
}

START_TEST(test_pool_config_defaults)
{
  pools_reset();
  cdr_pool_config d, c;
  memset(&d, 0xff, sizeof d);
  cdr_pool_config_default(&d);
  ck_assert_uint_eq(d.buffers, 4);
  ck_assert_uint_eq(d.buffer_max_bytes, 4u << 20);
  ck_assert_uint_eq(d.arenas, 4);
  ck_assert_uint_eq(d.arena_max_bytes, 1u << 20);
  ck_assert_uint_eq(d.value_states, 4);
  ck_assert_int_eq(d.tables, 1);
  ck_assert_uint_eq(d.table_blocks, 8);
  ck_assert_uint_eq(d.table_max_entries, 1024);
  ck_assert_uint_eq(d.shared[CDR_POOL_BUFFERS], 16);
  ck_assert_uint_eq(d.shared[CDR_POOL_ARENAS], 16);
  ck_assert_uint_eq(d.shared[CDR_POOL_VALUE_STATES], 32);
  ck_assert_uint_eq(d.shared[CDR_POOL_TABLE_BLOCKS], 32);
  memset(&c, 0xff, sizeof c);
  cdr_pool_get_config(&c); /* what the library starts with */
  assert_config(&c, &d);
}
END_TEST

/* A count over its maximum is refused and changes nothing; the maximum
 * itself is taken; the table settings are the ones cdr_tables_set_pool()
 * sets, and it leaves the others alone. */
START_TEST(test_pool_config_set_get)
{
  pools_reset();
  cdr_pool_config c, got;
  cdr_pool_config_default(&c);
  c.buffers = CDR_POOL_MAX_BUFFERS + 1;
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_E_INVALID);
  cdr_pool_config_default(&c);
  c.arenas = CDR_POOL_MAX_ARENAS + 1;
  c.buffers = 1; /* must not be applied either */
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_E_INVALID);
  cdr_pool_config_default(&c);
  c.value_states = CDR_POOL_MAX_VALUE_STATES + 1;
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_E_INVALID);
  cdr_pool_config_default(&c);
  c.table_blocks = CDR_TABLES_POOL_MAX + 1;
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_E_INVALID);
  for (int k = 0; k < CDR_POOL_KINDS; k++) {
    cdr_pool_config_default(&c);
    c.shared[k] = CDR_POOL_MAX_SHARED + 1;
    ck_assert_int_eq(cdr_pool_set_config(&c), CDR_E_INVALID);
  }
  ck_assert_int_eq(cdr_pool_set_config(NULL), CDR_E_INVALID);
  cdr_pool_get_config(&got);
  cdr_pool_config_default(&c);
  assert_config(&got, &c);

  c = (cdr_pool_config){ .buffers = CDR_POOL_MAX_BUFFERS, .buffer_max_bytes = 12345,
                         .arenas = CDR_POOL_MAX_ARENAS, .arena_max_bytes = 0,
                         .value_states = CDR_POOL_MAX_VALUE_STATES, .tables = 7,
                         .table_blocks = CDR_TABLES_POOL_MAX, .table_max_entries = 16,
                         .shared = { CDR_POOL_MAX_SHARED, 0, 1, 2 } };
  ck_assert_int_eq(cdr_pool_set_config(&c), CDR_OK);
  cdr_pool_get_config(&got);
  cdr_pool_config want = { .buffers = 16, .buffer_max_bytes = 12345, .arenas = 16,
                           .arena_max_bytes = 0, .value_states = 16,
                           .tables = 1, /* non-zero reads back as 1 */
                           .table_blocks = 32, .table_max_entries = 16,
                           .shared = { 64, 0, 1, 2 } };
  assert_config(&got, &want);
  int en = -1;
  unsigned mt = 0, me = 0;
  cdr_tables_get_pool(&en, &mt, &me);
  ck_assert_int_eq(en, 1);
  ck_assert_uint_eq(mt, 32);
  ck_assert_uint_eq(me, 16);

  ck_assert_int_eq(cdr_tables_set_pool(0, 3, 64), CDR_OK);
  cdr_pool_get_config(&got);
  want.tables = 0;
  want.table_blocks = 3;
  want.table_max_entries = 64;
  assert_config(&got, &want);
  pools_reset();
}
END_TEST

/* Run ROUND(N): the global allocator must then have been asked for DELTA
 * more blocks and hold LIVE. */
static void expect_round(void (*round)(size_t), size_t n, uint64_t delta, int64_t live)
{
  uint64_t before = g_mem.attempts;
  round(n);
  ck_assert_uint_eq(g_mem.attempts - before, delta);
  ck_assert_int_eq(g_mem.live, live);
}

static void set_config(const cdr_pool_config *c)
{
  ck_assert_int_eq(cdr_pool_set_config(c), CDR_OK);
}

/* Buffer slots and the largest buffer kept decide what a close frees. */
START_TEST(test_pool_config_buffers)
{
  pools_reset();
  count_global();
  /* Default: the 8 KiB buffer is kept, and the next stream reuses it. */
  expect_round(stream_round, 4000, 1, 1);
  expect_round(stream_round, 4000, 0, 1);

  /* 0 slots: every close frees its buffer (the one kept stays until taken). */
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  c.buffers = 0;
  set_config(&c);
  expect_round(stream_round, 4000, 0, 0); /* takes the kept buffer, frees it */
  for (int round = 0; round < 3; round++)
    expect_round(stream_round, 4000, 1, 0);

  /* 2 slots: of three buffers closed together, two are kept. */
  c.buffers = 2;
  set_config(&c);
  cdr_out o[3];
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(cdr_out_init(&o[k], NULL), CDR_OK);
    cdr_put_ulong(&o[k], 1);
  }
  ck_assert_int_eq(g_mem.live, 3);
  for (int k = 0; k < 3; k++)
    cdr_out_close(&o[k]);
  ck_assert_int_eq(g_mem.live, 2);
  cdr_pool_flush();
  ck_assert_int_eq(g_mem.live, 0);

  /* Largest buffer kept 8 KiB: one grown to 16 KiB (a reallocation) is
   * freed, an 8 KiB one kept. */
  c.buffers = 4;
  c.buffer_max_bytes = 8192;
  set_config(&c);
  expect_round(stream_round, 10000, 2, 0);
  expect_round(stream_round, 4000, 1, 1);
  pools_reset();
  ck_assert_int_eq(g_mem.live, 0);
}
END_TEST

/* Arena slots and the largest next block decide what cdr_arena_put() keeps. */
START_TEST(test_pool_config_arenas)
{
  pools_reset();
  count_global();
  /* Default: the arena and its 4 KiB block are kept, and reused. */
  expect_round(arena_round, 100, 2, 2);
  expect_round(arena_round, 100, 0, 2);
  cdr_pool_flush();
  ck_assert_int_eq(g_mem.live, 0);

  /* 0 slots: every put frees the arena. */
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  c.arenas = 0;
  set_config(&c);
  expect_round(arena_round, 100, 2, 0);
  expect_round(arena_round, 100, 2, 0);

  /* Largest next block 4 KiB: an arena that allocated nothing (next block
   * 4 KiB) is kept, one with a 4 KiB block (next one 8 KiB) freed; at 8 KiB
   * that one is kept too. */
  c.arenas = 4;
  c.arena_max_bytes = 4096;
  set_config(&c);
  expect_round(arena_round, 0, 1, 1);
  expect_round(arena_round, 100, 1, 0); /* the kept arena, a new block */
  c.arena_max_bytes = 8192;
  set_config(&c);
  expect_round(arena_round, 100, 2, 2);
  pools_reset();
  ck_assert_int_eq(g_mem.live, 0);
}
END_TEST

/* A pooled arena comes back as a fresh one would: the previous user's
 * cdr_arena_set_max() does not stay with it. */
START_TEST(test_pool_arena_forgets_max)
{
  pools_reset();
  cdr_arena *a = cdr_arena_get();
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(cdr_arena_alloc(a, 100, 8));
  cdr_arena_set_max(a, 16);
  ck_assert_ptr_null(cdr_arena_alloc(a, 100, 8));
  cdr_arena_put(a);
  cdr_arena *b = cdr_arena_get();
  ck_assert_ptr_eq(b, a); /* the pooled one */
  ck_assert_ptr_nonnull(cdr_arena_alloc(b, 100, 8));
  ck_assert_ptr_nonnull(cdr_arena_alloc(b, 10000, 8));
  ck_assert_uint_ge(cdr_arena_used(b), 10100);
  cdr_arena_put(b);
  pools_reset();
}
END_TEST

/* Value-state slots decide whether a value stream's close keeps its state
 * (buffers are not kept here, so what stays is the state alone). */
START_TEST(test_pool_config_value_states)
{
  pools_reset();
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  c.buffers = 0;
  set_config(&c);
  value_round(1); /* anything made once per process, before counting */
  count_global();
  expect_round(value_round, 2, 2, 1); /* the buffer and the state; the state kept */
  expect_round(value_round, 3, 1, 1); /* the buffer only */
  cdr_pool_flush();
  ck_assert_int_eq(g_mem.live, 0);

  c.value_states = 0;
  set_config(&c);
  expect_round(value_round, 4, 2, 0);
  expect_round(value_round, 5, 2, 0);
  pools_reset();
}
END_TEST

/* Every shared pool's bound set to N. */
static void set_shared(unsigned n)
{
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    c.shared[k] = n;
  set_config(&c);
}

/* The process-wide shared-pool counts, and their change since *S0. */
static cdr_pool_stats pstats(void)
{
  cdr_pool_stats s;
  cdr_pool_get_stats(&s);
  return s;
}
#define PDELTA(a, b, f, k) ((b).f[k] - (a).f[k])

/* At thread exit the one exit hook hands every shelf on: with the shared
 * pools off, nothing the thread kept stays live; with them on (the
 * default), the buffer, the arena and the state wait there, and the next
 * thread takes them instead of allocating. */
static void *pools_thread(void *arg)
{
  (void)arg;
  stream_round(4000);
  arena_round(100);
  value_round(1);
  return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, fn, arg), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
}

START_TEST(test_pool_thread_exit_frees)
{
  pools_reset();
  value_round(1);
  set_shared(0);
  count_global();
  cdr_pool_stats s0 = pstats();
  run_thread(pools_thread, NULL);
  cdr_pool_stats s1 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 4); /* buffer, arena and its block, state */
  ck_assert_int_eq(g_mem.live, 0);
  for (int k = 0; k < CDR_POOL_KINDS; k++) {
    ck_assert_uint_eq(PDELTA(s0, s1, shared_puts, k), 0);
    ck_assert_uint_eq(s1.shared_pooled[k], 0);
  }
  ck_assert_uint_eq(PDELTA(s0, s1, shared_full, CDR_POOL_BUFFERS), 1);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_full, CDR_POOL_ARENAS), 1);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_full, CDR_POOL_VALUE_STATES), 1);
  pools_reset();
}
END_TEST

START_TEST(test_pool_thread_exit_shares)
{
  pools_reset();
  value_round(1);
  count_global();
  cdr_pool_stats s0 = pstats();
  run_thread(pools_thread, NULL);
  cdr_pool_stats s1 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 4); /* buffer, arena and its block, state */
  ck_assert_int_eq(g_mem.live, 4);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_BUFFERS], 1);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_ARENAS], 1);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_VALUE_STATES], 1);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_TABLE_BLOCKS], 0);
  for (int k = 0; k < CDR_POOL_TABLE_BLOCKS; k++) {
    ck_assert_uint_eq(PDELTA(s0, s1, shared_puts, k), 1);
    ck_assert_uint_eq(PDELTA(s0, s1, shared_hits, k), 0);
    ck_assert_uint_eq(PDELTA(s0, s1, shared_full, k), 0);
  }
  /* A second thread: everything from the shared pools, nothing allocated. */
  run_thread(pools_thread, NULL);
  cdr_pool_stats s2 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 4);
  ck_assert_int_eq(g_mem.live, 4);
  for (int k = 0; k < CDR_POOL_TABLE_BLOCKS; k++) {
    ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, k), 1);
    ck_assert_uint_eq(PDELTA(s1, s2, shared_puts, k), 1);
    ck_assert_uint_eq(s2.shared_pooled[k], 1);
  }
  /* The calling thread's own counts are its own: it took nothing. */
  cdr_pool_stats mine;
  cdr_pool_get_thread_stats(&mine);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    ck_assert_uint_eq(mine.shared_hits[k] + mine.shared_puts[k], 0);
  cdr_pool_flush_shared();
  ck_assert_int_eq(g_mem.live, 0);
  ck_assert_uint_eq(pstats().shared_pooled[CDR_POOL_BUFFERS], 0);
  pools_reset();
}
END_TEST

/* The bound of a shared pool: of the 4 buffers a thread keeps, a pool of 2
 * takes 2 and the others are freed; of 2 more threads' 4 each, none fits. */
static void *four_buffers_thread(void *arg)
{
  (void)arg;
  cdr_out o[4];
  for (int k = 0; k < 4; k++)
    if (cdr_out_init(&o[k], NULL) == CDR_OK)
      cdr_put_ulong(&o[k], 1);
  for (int k = 0; k < 4; k++)
    cdr_out_close(&o[k]);
  return NULL;
}

START_TEST(test_pool_shared_bound)
{
  pools_reset();
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  c.shared[CDR_POOL_BUFFERS] = 2;
  set_config(&c);
  count_global();
  cdr_pool_stats s0 = pstats();
  run_thread(four_buffers_thread, NULL);
  cdr_pool_stats s1 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 4);
  ck_assert_int_eq(g_mem.live, 2);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_BUFFERS], 2);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_puts, CDR_POOL_BUFFERS), 2);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_full, CDR_POOL_BUFFERS), 2);
  /* The next thread takes the 2 shared buffers and allocates 2; at its exit
   * the pool takes 2 of its 4 again. */
  run_thread(four_buffers_thread, NULL);
  cdr_pool_stats s2 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 6);
  ck_assert_int_eq(g_mem.live, 2);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, CDR_POOL_BUFFERS), 2);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_puts, CDR_POOL_BUFFERS), 2);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_full, CDR_POOL_BUFFERS), 2);
  ck_assert_uint_eq(s2.shared_pooled[CDR_POOL_BUFFERS], 2);
  /* Lowered to 0: what is shared stays there (and is taken), nothing more
   * is put. */
  c.shared[CDR_POOL_BUFFERS] = 0;
  set_config(&c);
  run_thread(four_buffers_thread, NULL);
  cdr_pool_stats s3 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 10); /* a pool of 0 is not looked in */
  ck_assert_int_eq(g_mem.live, 2);
  ck_assert_uint_eq(PDELTA(s2, s3, shared_puts, CDR_POOL_BUFFERS), 0);
  ck_assert_uint_eq(PDELTA(s2, s3, shared_full, CDR_POOL_BUFFERS), 4);
  ck_assert_uint_eq(s3.shared_pooled[CDR_POOL_BUFFERS], 2);
  cdr_pool_flush_shared();
  ck_assert_int_eq(g_mem.live, 0);
  pools_reset();
}
END_TEST

/* Thread per task: each task a thread of its own that encodes and decodes
 * a list of 50 values (a stream's buffer and value state, an indirection
 * table past its inline entries each way, an arena) and exits.  After the
 * first batch, no task allocates: every object comes from the shared pools
 * that the tasks before left it in. */
typedef struct LNode {
  cdr_value hdr;
  int32_t id;
  struct LNode *next;
} LNode;
static cdr_value_type LNode_vt;
static const cdr_type LNode_ref = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                    .align = _Alignof(void *), .u.val.vt = &LNode_vt };
static const cdr_member LNode_members[] = { CDR_MEMBER(LNode, id, &cdr_type_long),
                                            CDR_MEMBER(LNode, next, &LNode_ref) };
static cdr_value_type LNode_vt = { .name = "LNode", .repo_id = "IDL:Test/LNode:1.0",
                                   .members = LNode_members, .nmembers = 2,
                                   .size = sizeof(LNode), .align = _Alignof(LNode) };
#define TASK_NODES 50
#define TASK_BATCH 4
#define TASK_BATCHES 25

static LNode task_list[TASK_NODES];

typedef struct ptask {
  pthread_barrier_t *hold; /* the warm-up batch: every task holds its objects at once */
  unsigned errors;
  uint64_t attempts;  /* the global allocator's attempts in this task */
} ptask;

static void *ptask_run(void *arg)
{
  ptask *t = arg;
  uint64_t a0 = __atomic_load_n(&g_mem.attempts, __ATOMIC_RELAXED);
  cdr_out o;
  t->errors += cdr_out_init(&o, NULL) != CDR_OK;
  t->errors += cdr_put_value(&o, &LNode_vt, &task_list[0]) != CDR_OK;
  cdr_in in;
  cdr_in_init(&in, cdr_out_data(&o), cdr_out_size(&o), cdr_out_byte_order(&o), NULL);
  cdr_arena *a = cdr_arena_get();
  t->errors += a == NULL;
  cdr_in_set_arena(&in, a);
  void *v = NULL;
  t->errors += cdr_get_value(&in, &LNode_vt, &v) != CDR_OK;
  uint32_t n = 0;
  for (const LNode *p = v; p; p = p->next, n++)
    t->errors += p->id != (int32_t)n;
  t->errors += n != TASK_NODES;
  if (t->hold)
    pthread_barrier_wait(t->hold);
  cdr_in_close(&in);
  cdr_arena_put(a);
  cdr_out_close(&o);
  t->attempts = __atomic_load_n(&g_mem.attempts, __ATOMIC_RELAXED) - a0;
  return NULL;
}

START_TEST(test_pool_thread_per_task_steady)
{
  pools_reset();
  for (int k = 0; k < TASK_NODES; k++)
    task_list[k] = (LNode){ .hdr.type = &LNode_vt, .id = k,
                            .next = k + 1 < TASK_NODES ? &task_list[k + 1] : NULL };
  int st;
  ck_assert_ptr_nonnull(cdr_value_type_plan(&LNode_vt, &st));
  cdr_tables_flush_shared();
  count_global();
  cdr_pool_stats s0 = pstats();
  uint64_t first = 0, later = 0;
  cdr_pool_stats s1 = s0;
  pthread_barrier_t hold;
  pthread_barrier_init(&hold, NULL, TASK_BATCH);
  for (int b = 0; b < TASK_BATCHES; b++) {
    ptask t[TASK_BATCH];
    pthread_t th[TASK_BATCH];
    memset(t, 0, sizeof t);
    uint64_t before = g_mem.attempts;
    for (int i = 0; i < TASK_BATCH; i++) {
      t[i].hold = b == 0 ? &hold : NULL;
      ck_assert_int_eq(pthread_create(&th[i], NULL, ptask_run, &t[i]), 0);
    }
    for (int i = 0; i < TASK_BATCH; i++) {
      ck_assert_int_eq(pthread_join(th[i], NULL), 0);
      ck_assert_uint_eq(t[i].errors, 0);
    }
    if (b == 0) {
      first = g_mem.attempts - before;
      s1 = pstats();
    } else {
      later += g_mem.attempts - before;
      for (int i = 0; i < TASK_BATCH; i++)
        ck_assert_uint_eq(t[i].attempts, 0);
    }
  }
  pthread_barrier_destroy(&hold);
  cdr_pool_stats s2 = pstats();
  /* The warm-up batch, all its tasks at once, each: a buffer; two states
   * (the stream is open while the decoder runs); a table block of 16 grown
   * to 32 and 64 (encoding), the 32 grown to 64 again (decoding, from the
   * newest block of the thread's pool); an arena and its block. */
  ck_assert_uint_eq(first, TASK_BATCH * 9);
  ck_assert_uint_eq(later, 0);
  /* Later tasks took from the shared pools what they used: a buffer, two
   * states (each with its value table's block: a pooled state keeps it), an
   * arena; so no table block on its own. */
  uint64_t tasks = (TASK_BATCHES - 1) * TASK_BATCH;
  ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, CDR_POOL_BUFFERS), tasks);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, CDR_POOL_ARENAS), tasks);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, CDR_POOL_VALUE_STATES), 2 * tasks);
  ck_assert_uint_eq(PDELTA(s1, s2, shared_hits, CDR_POOL_TABLE_BLOCKS), 0);
  ck_assert_uint_eq(PDELTA(s0, s2, shared_puts, CDR_POOL_BUFFERS), tasks + TASK_BATCH);
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    ck_assert_uint_eq(PDELTA(s0, s2, shared_full, k), 0);
  /* Everything went back: the warm-up's objects, the states with their
   * tables' blocks, and on their own the two blocks each warm-up task's
   * tables outgrew. */
  ck_assert_uint_eq(s2.shared_pooled[CDR_POOL_BUFFERS], TASK_BATCH);
  ck_assert_uint_eq(s2.shared_pooled[CDR_POOL_VALUE_STATES], 2 * TASK_BATCH);
  ck_assert_uint_eq(s2.shared_pooled[CDR_POOL_ARENAS], TASK_BATCH);
  ck_assert_uint_eq(s2.shared_pooled[CDR_POOL_TABLE_BLOCKS], 2 * TASK_BATCH);
  ck_assert_int_gt(g_mem.live, 0);
  cdr_pool_flush_shared();
  ck_assert_int_eq(g_mem.live, 0);
  cdr_value_type_clear(&LNode_vt);
  pools_reset();
}
END_TEST

/* A stream closed by another key's destructor after the library's exit
 * hook ran (glibc runs destructors in key order, and the library's key is
 * the older one): its buffer and value state must not be kept by a thread
 * that has gone: they go to the shared pools (freed when those are off). */
static pthread_key_t late_key;

static void late_close(void *arg)
{
  cdr_out_close(arg);
}

static void *late_thread(void *arg)
{
  cdr_out *o = arg;
  stream_round(4000); /* this thread's cache is entered: its hook is set */
  PNode v = { .hdr.type = &PNode_vt, .id = 7 };
  if (cdr_out_init(o, NULL) == CDR_OK && cdr_put_value(o, &PNode_vt, &v) == CDR_OK)
    (void)pthread_setspecific(late_key, o);
  return NULL;
}

START_TEST(test_pool_release_after_exit_hook)
{
  pools_reset();
  value_round(1); /* the library's key exists before late_key */
  ck_assert_int_eq(pthread_key_create(&late_key, late_close), 0);
  set_shared(0);
  count_global();
  cdr_out o;
  run_thread(late_thread, &o);
  ck_assert_uint_eq(g_mem.attempts, 2); /* a buffer (the value stream reuses it), the state */
  ck_assert_int_eq(g_mem.live, 0);
  /* Shared pools on: both wait there. */
  pools_reset();
  count_global();
  cdr_pool_stats s0 = pstats();
  run_thread(late_thread, &o);
  cdr_pool_stats s1 = pstats();
  ck_assert_uint_eq(g_mem.attempts, 2);
  ck_assert_int_eq(g_mem.live, 2);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_puts, CDR_POOL_BUFFERS), 1);
  ck_assert_uint_eq(PDELTA(s0, s1, shared_puts, CDR_POOL_VALUE_STATES), 1);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_BUFFERS], 1);
  ck_assert_uint_eq(s1.shared_pooled[CDR_POOL_VALUE_STATES], 1);
  cdr_pool_flush_shared();
  ck_assert_int_eq(g_mem.live, 0);
  pthread_key_delete(late_key);
  pools_reset();
}
END_TEST

/* Without a thread-exit hook (no pthread key left for the library) a
 * thread keeps nothing itself, so that nothing leaks when it exits: with
 * the shared pools off everything is freed; with them on, what it releases
 * goes there and it takes it back from there.  Only in a process of its
 * own (CK_FORK): the library makes its key once per process. */
START_TEST(test_pool_no_key_keeps_nothing)
{
  const char *fork_mode = getenv("CK_FORK");
  if (fork_mode && strcmp(fork_mode, "no") == 0)
    return;
  pools_reset();
  enum { KEYS = 4096 };
  static pthread_key_t keys[KEYS];
  unsigned nkeys = 0;
  while (nkeys < KEYS && pthread_key_create(&keys[nkeys], NULL) == 0)
    nkeys++;
  ck_assert_uint_lt(nkeys, KEYS);
  set_shared(0);
  count_global();
  expect_round(stream_round, 4000, 1, 0);
  expect_round(arena_round, 100, 2, 0);
  expect_round(value_round, 1, 2, 0); /* a buffer and the state */
  expect_round(stream_round, 4000, 1, 0);
  set_shared(CDR_POOL_DEFAULT_SHARED_BUFFERS);
  expect_round(stream_round, 4000, 1, 1);  /* the buffer to the shared pool */
  expect_round(arena_round, 100, 2, 3);    /* the arena and its block too */
  expect_round(value_round, 1, 1, 4);      /* the shared buffer, a new state */
  expect_round(stream_round, 4000, 0, 4);
  expect_round(arena_round, 100, 0, 4);
  expect_round(value_round, 2, 0, 4);
  cdr_pool_flush_shared();
  ck_assert_int_eq(g_mem.live, 0);
  for (unsigned k = 0; k < nkeys; k++)
    pthread_key_delete(keys[k]);
  pools_reset();
}
END_TEST

static Suite *alloc_suite(void)
{
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("streams");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_alloc_write_large_message);
  tcase_add_test(tc, test_alloc_detach_fixed_buffer);
  tcase_add_test(tc, test_alloc_decode_into_arena);
  tcase_add_test(tc, test_alloc_arena_reset_reuse);
  tcase_add_test(tc, test_alloc_arena_zero_size);
  tcase_add_test(tc, test_alloc_arena_huge_size);
  suite_add_tcase(s, tc);

  tc = tcase_create("types");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_alloc_cdr_read_nested_sequences);
  tcase_add_test(tc, test_alloc_cdr_write_nested_sequences);
  suite_add_tcase(s, tc);

  tc = tcase_create("global");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, global_setup, global_teardown);
  tcase_add_test(tc, test_alloc_global_allocator_pools);
  tcase_add_test(tc, test_alloc_global_pools_reuse);
  suite_add_tcase(s, tc);

  tc = tcase_create("pool settings");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, global_setup, global_teardown);
  tcase_add_test(tc, test_pool_config_defaults);
  tcase_add_test(tc, test_pool_config_set_get);
  tcase_add_test(tc, test_pool_config_buffers);
  tcase_add_test(tc, test_pool_config_arenas);
  tcase_add_test(tc, test_pool_arena_forgets_max);
  tcase_add_test(tc, test_pool_config_value_states);
  tcase_add_test(tc, test_pool_thread_exit_frees);
  tcase_add_test(tc, test_pool_thread_exit_shares);
  tcase_add_test(tc, test_pool_shared_bound);
  tcase_add_test(tc, test_pool_thread_per_task_steady);
  tcase_add_test(tc, test_pool_release_after_exit_hook);
  tcase_add_test(tc, test_pool_no_key_keeps_nothing);
  suite_add_tcase(s, tc);
  return s;
}

static void alloc_teardown(void)
{
  free(d_input.b);
  free(r_input.b);
}

const tu_program tu_prog = { .suite = alloc_suite, .teardown = alloc_teardown };
