/* cdr-bench.c - in-process CDR marshalling benchmark for libcdr (no sockets).
 *
 * Prints ns per write and per read, and GB/s, for the items of a typical
 * small request -- a struct of 4 longs, a double, a 16-character string, a
 * 64-octet sequence and a sequence of 16 longs, alone and together as one
 * 184-octet message -- and for 1 MiB octet and double sequences, beside
 * memcpy of the same sizes measured in the same run.
 *
 * Method.  Writes reuse one output stream, emptied with cdr_out_reset() per
 * message, so the steady state allocates nothing.  Reads run cdr_in_init()
 * over the encoded message per message; copying reads allocate from one arena
 * that is cdr_arena_reset() per message, and the *_view readers allocate
 * nothing.  A counting allocator is the process-wide allocator for the whole
 * run (cdr_mem_set_global() before any other libcdr call, as cdr/mem.h
 * requires); the allocations made during the timed batches, after warm-up,
 * are printed per op and should be 0.  Each figure is calibrated to batches of
 * about 100 ms (10 ms with --quick); the best (minimum) and the median of 5
 * batches are printed, and GB/s and the ratio to memcpy use the minimum.
 * Results of every op go into a volatile sink so nothing is optimised away.
 *
 * The memcpy baselines call the C library's memcpy with a size the compiler
 * cannot see, i.e. what copying those octets costs as a function call, not
 * the few inline moves a constant-size memcpy compiles to.
 *
 * Value graphs.  A list of 50 and one of 10,000 valuetypes (Bench IDL:
 * valuetype Node { public long id; public Node next; }, and TruncNode, a
 * truncatable Node with a long more, so chunked) is encoded and decoded as a
 * GIOP call would: encode: per message a fresh stream (cdr_out_init,
 * cdr_put_value, cdr_out_close), and for comparison one stream reused with
 * cdr_out_reset; decode: per message cdr_in_init, an arena from
 * cdr_arena_get(), cdr_get_value, cdr_in_close, cdr_arena_put.  Each is timed
 * with the indirection-table pool on (cdr_tables_set_pool(1, ...), the cap on
 * a pooled table set by --table-cap) and off, and reports ns per node,
 * allocations and bytes allocated per message, and the table pool's own
 * counters (cdr_tables_get_stats) over the timed batches, which show the
 * blocks the cap keeps out of the pool.  Before each figure the list is
 * encoded once and compared with the reference encoding, or decoded once and
 * checked node by node (type, id, length), outside the timed loop.  The
 * nodes of a list are one contiguous array (the best case for the caches).
 *
 * Exit status: 0 when the run completed (targets missed included), 1 when an
 * encoding was wrong or a stream failed, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cdr/error.h>
#include <cdr/mem.h>
#include <cdr/arena.h>
#include <cdr/out.h>
#include <cdr/in.h>
#include <cdr/type.h>
#include <cdr/value.h>
#include <cdr/tables.h>
#include <cdr/pool.h>
#include "benchutil.h"

/* ---------------------------------------------------------------- data */

#define STR16 "CORBA-CDR-bench!"          /* 16 characters */
#define OCT_SMALL 64
#define LONG_SMALL 16
#define BULK_BYTES ((size_t)1 << 20)
#define BULK_DOUBLES (BULK_BYTES / sizeof(double))
#define COMPOSITE_WIRE 184                  /* octets the five items take together */
#define REPEATS 5
#define TARGET_SMALL_NS 30.0
#define TARGET_BULK_RATIO 1.5

typedef struct four_longs {
  int32_t a, b, c, d;
} four_longs;

typedef struct composite {
  four_longs s;
  double d;
  char *str;
  cdr_seq oct;    /* sequence<octet> */
  cdr_seq longs;  /* sequence<long> */
} composite;

static const cdr_member four_longs_members[] = {
  CDR_MEMBER(four_longs, a, &cdr_type_long),
  CDR_MEMBER(four_longs, b, &cdr_type_long),
  CDR_MEMBER(four_longs, c, &cdr_type_long),
  CDR_MEMBER(four_longs, d, &cdr_type_long),
};
static const cdr_type four_longs_type =
  CDR_STRUCT_TYPE(four_longs, "FourLongs", "IDL:bench/FourLongs:1.0", four_longs_members);

static const cdr_type octet_seq_type = CDR_SEQUENCE_TYPE(&cdr_type_octet, 0);
static const cdr_type long_seq_type = CDR_SEQUENCE_TYPE(&cdr_type_long, 0);

static const cdr_member composite_members[] = {
  CDR_MEMBER(composite, s, &four_longs_type),
  CDR_MEMBER(composite, d, &cdr_type_double),
  CDR_MEMBER(composite, str, &cdr_type_string),
  CDR_MEMBER(composite, oct, &octet_seq_type),
  CDR_MEMBER(composite, longs, &long_seq_type),
};
static const cdr_type composite_type =
  CDR_STRUCT_TYPE(composite, "Composite", "IDL:bench/Composite:1.0", composite_members);

/* The encoded messages that the read benchmarks decode. */
enum { M_STRUCT, M_DOUBLE, M_STRING, M_OCT, M_LONGS, M_COMPOSITE, M_BULK_OCT, M_BULK_DBL, M_COUNT };

typedef struct encoded {
  uint8_t *buf;
  size_t len;
  int order;
} encoded;

static struct {
  cdr_mem_counter counter;  /* the process-wide allocator */
  cdr_opts opts;
  cdr_out out;              /* the one output stream all writes reuse */
  cdr_arena arena;          /* the one arena all copying reads reuse */
  four_longs fl;
  double dbl;
  char str[sizeof STR16];
  uint8_t oct[OCT_SMALL];
  int32_t longs[LONG_SMALL];
  composite comp;           /* the same five values, for cdr_write() */
  uint8_t *bulk_oct;
  double *bulk_dbl;
  encoded msg[M_COUNT];
  uint8_t *mc_src, *mc_dst; /* memcpy baselines */
  size_t mc_size;
  int loop_errors;          /* streams that failed inside a timed loop */
  cdr_out gout;             /* the reused stream of a list's "encode (reuse)" rows: one per
                             * list, so that its tables are sized for that list */
  int64_t live_base;        /* blocks that stay allocated for good (the global registry) */
  unsigned max_tables;      /* table pool: the library's default */
  unsigned table_cap;       /* table pool: max entries of a pooled table (--table-cap) */
} G;

static volatile uint64_t sink;

/* Force the compiler to assume memory was read and written here. */
static inline void clobber(void) { __asm__ volatile("" ::: "memory"); }

/* Wrapping sum of the four members (no signed overflow). */
static inline uint64_t sum4(const four_longs *v)
{
  return (uint32_t)v->a + (uint32_t)v->b + (uint32_t)v->c + (uint32_t)v->d;
}

static inline uint64_t dbits(double d)
{
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* ---------------------------------------------------------------- encoders */

static inline void put_struct_hand(cdr_out *o)
{
  cdr_put_long(o, G.fl.a);
  cdr_put_long(o, G.fl.b);
  cdr_put_long(o, G.fl.c);
  cdr_put_long(o, G.fl.d);
}
static inline void put_double(cdr_out *o) { cdr_put_double(o, G.dbl); }
static inline void put_string(cdr_out *o) { cdr_put_string(o, G.str); }
static inline void put_oct(cdr_out *o) { cdr_put_seq(o, G.oct, OCT_SMALL, 1); }
static inline void put_longs(cdr_out *o) { cdr_put_seq(o, G.longs, LONG_SMALL, 4); }
static inline void put_composite_hand(cdr_out *o)
{
  put_struct_hand(o);
  put_double(o);
  put_string(o);
  put_oct(o);
  put_longs(o);
}
static inline void put_bulk_oct(cdr_out *o) { cdr_put_seq(o, G.bulk_oct, BULK_BYTES, 1); }
static inline void put_bulk_dbl(cdr_out *o) { cdr_put_seq(o, G.bulk_dbl, BULK_DOUBLES, 8); }

/* ---------------------------------------------------------------- timed loops */

typedef uint64_t (*loop_fn)(uint64_t n);

#define WRITE_LOOP(fname, ...)                           \
  static uint64_t fname(uint64_t n)                      \
  {                                                      \
    cdr_out *o = &G.out;                                 \
    uint64_t acc = 0;                                    \
    int bad = 0;                                         \
    for (uint64_t k = 0; k < n; k++) {                   \
      cdr_out_reset(o);                                  \
      __VA_ARGS__;                                       \
      bad |= cdr_out_status(o);                          \
      acc += cdr_out_size(o);                            \
      clobber();                                         \
    }                                                    \
    G.loop_errors += bad != 0;                           \
    return acc;                                          \
  }

WRITE_LOOP(w_empty, (void)0)
WRITE_LOOP(w_struct_hand, put_struct_hand(o))
WRITE_LOOP(w_struct_generic, (void)cdr_write(o, &four_longs_type, &G.fl))
WRITE_LOOP(w_double, put_double(o))
WRITE_LOOP(w_string, put_string(o))
WRITE_LOOP(w_oct, put_oct(o))
WRITE_LOOP(w_longs, put_longs(o))
WRITE_LOOP(w_composite_hand, put_composite_hand(o))
WRITE_LOOP(w_composite_generic, (void)cdr_write(o, &composite_type, &G.comp))
WRITE_LOOP(w_bulk_oct, put_bulk_oct(o))
WRITE_LOOP(w_bulk_dbl, put_bulk_dbl(o))

/* BODY reads from the cdr_in `in` and adds what it decoded to `acc`.  With
 * USE_ARENA the arena is reset and attached per message (copying reads). */
#define READ_LOOP(fname, msgidx, use_arena, ...)                 \
  static uint64_t fname(uint64_t n)                              \
  {                                                              \
    const encoded *m = &G.msg[msgidx];                           \
    cdr_in in;                                                   \
    uint64_t acc = 0;                                            \
    int bad = 0;                                                 \
    for (uint64_t k = 0; k < n; k++) {                           \
      cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);       \
      if (use_arena) {                                           \
        cdr_arena_reset(&G.arena);                               \
        cdr_in_set_arena(&in, &G.arena);                         \
      }                                                          \
      __VA_ARGS__                                                \
      bad |= cdr_in_status(&in);                                 \
    }                                                            \
    G.loop_errors += bad != 0;                                   \
    return acc;                                                  \
  }

/* The bodies of the octet-sequence loops (M_OCT, M_BULK_OCT): the
 * sequence read (into the arena) or viewed in place, its length and last
 * octet summed. */
#define READ_OCT_SEQ                                 \
  {                                                  \
    uint32_t cnt = 0;                                \
    const uint8_t *p = cdr_get_seq(&in, 1, &cnt);    \
    if (p)                                           \
      acc += cnt + p[cnt - 1];                       \
  }
#define READ_OCT_VIEW                                            \
  {                                                              \
    const uint8_t *p = NULL;                                     \
    uint32_t cnt = 0;                                            \
    if (cdr_get_octets_view(&in, &p, &cnt) == CDR_OK)            \
      acc += cnt + p[cnt - 1];                                   \
  }

READ_LOOP(r_empty, M_STRUCT, 0, { acc += cdr_in_remaining(&in); })
READ_LOOP(r_struct_hand, M_STRUCT, 0, {
  four_longs v;
  v.a = cdr_get_long(&in);
  v.b = cdr_get_long(&in);
  v.c = cdr_get_long(&in);
  v.d = cdr_get_long(&in);
  acc += sum4(&v);
})
READ_LOOP(r_struct_generic, M_STRUCT, 0, {
  four_longs v;
  (void)cdr_read(&in, &four_longs_type, &v);
  acc += sum4(&v);
})
READ_LOOP(r_double, M_DOUBLE, 0, { acc += dbits(cdr_get_double(&in)); })
READ_LOOP(r_string, M_STRING, 1, {
  uint32_t len = 0;
  const char *s = cdr_get_string(&in, &len);
  if (s)
    acc += len + (uint8_t)s[len - 1];
})
READ_LOOP(r_string_view, M_STRING, 0, {
  const char *s = NULL;
  uint32_t len = 0;
  if (cdr_get_string_view(&in, &s, &len) == CDR_OK)
    acc += len + (uint8_t)s[len - 1];
})
READ_LOOP(r_oct, M_OCT, 1, READ_OCT_SEQ)
READ_LOOP(r_oct_view, M_OCT, 0, READ_OCT_VIEW)
READ_LOOP(r_longs, M_LONGS, 1, {
  uint32_t cnt = 0;
  const int32_t *p = cdr_get_seq(&in, 4, &cnt);
  if (p)
    acc += cnt + (uint64_t)p[cnt - 1];
})
READ_LOOP(r_composite_hand, M_COMPOSITE, 1, {
  four_longs v;
  uint32_t slen = 0, noct = 0, nlong = 0;
  v.a = cdr_get_long(&in);
  v.b = cdr_get_long(&in);
  v.c = cdr_get_long(&in);
  v.d = cdr_get_long(&in);
  double d = cdr_get_double(&in);
  const char *s = cdr_get_string(&in, &slen);
  const uint8_t *oct = cdr_get_seq(&in, 1, &noct);
  const int32_t *lg = cdr_get_seq(&in, 4, &nlong);
  if (__builtin_expect(s && oct && lg, 1))
    acc += sum4(&v) + dbits(d) + (uint8_t)s[slen - 1]
           + oct[noct - 1] + (uint64_t)lg[nlong - 1];
})
READ_LOOP(r_composite_generic, M_COMPOSITE, 1, {
  composite v;
  if (__builtin_expect(cdr_read(&in, &composite_type, &v) == CDR_OK, 1))
    acc += sum4(&v.s) + dbits(v.d) + (uint8_t)v.str[0]
           + ((const uint8_t *)v.oct._buffer)[v.oct._length - 1]
           + (uint64_t)((const int32_t *)v.longs._buffer)[v.longs._length - 1];
})
READ_LOOP(r_bulk_oct, M_BULK_OCT, 1, READ_OCT_SEQ)
READ_LOOP(r_bulk_oct_view, M_BULK_OCT, 0, READ_OCT_VIEW)
READ_LOOP(r_bulk_dbl, M_BULK_DBL, 1, {
  uint32_t cnt = 0;
  const double *p = cdr_get_seq(&in, 8, &cnt);
  if (p)
    acc += cnt + dbits(p[cnt - 1]);
})

static uint64_t loop_memcpy(uint64_t n)
{
  uint8_t *dst = G.mc_dst;
  const uint8_t *src = G.mc_src;
  size_t size = G.mc_size;
  uint64_t acc = 0;
  for (uint64_t k = 0; k < n; k++) {
    memcpy(dst, src, size);
    clobber();
    acc += dst[size - 1];
  }
  return acc;
}

/* ---------------------------------------------------------------- what is measured */

/* memcpy baselines: the payload sizes of the cases below. */
enum { B_8, B_16, B_17, B_64, B_184, B_1M, B_COUNT };
#define B_NONE (-1) /* no payload: the fixed cost of a message */
#define M_NONE (-1)
static const struct {
  size_t size;
  const char *what;
} baselines[B_COUNT] = {
  [B_8] = { 8, "double" },
  [B_16] = { 16, "struct of 4 longs" },
  [B_17] = { 17, "16 chars + NUL" },
  [B_64] = { 64, "64 octets / 16 longs" },
  [B_184] = { COMPOSITE_WIRE, "the 184-octet message" },
  [B_1M] = { BULK_BYTES, "1 MiB" },
};

enum target { T_NONE, T_SMALL_NS, T_BULK_RATIO };

typedef struct figure {
  double min_ns, med_ns;   /* per op */
  double allocs_per_op;    /* during the timed batches */
  double bytes_per_op;     /* octets those allocations requested, per op */
  uint64_t iters;          /* ops per batch */
  uint64_t ops;            /* ops timed: iters * REPEATS */
  uint64_t mallocs;        /* allocations during the timed batches */
  cdr_tables_stats tbl;    /* table pool counters during the timed batches (the
                            * two snapshot fields: at the end) */
} figure;

typedef struct bcase {
  const char *id;          /* JSON name */
  const char *item;
  const char *op;          /* "write", "read" (copying), "read view" (zero-copy) */
  int msg;                 /* encoded message: its length is the wire size (or M_NONE) */
  int base;                /* memcpy baseline: its size is the payload (or B_NONE) */
  int target;
  loop_fn fn;
  figure f;
} bcase;

#define CASE(id_, item_, op_, msg_, base_, target_, fn_)                          \
  { .id = id_, .item = item_, .op = op_, .msg = msg_, .base = base_, .target = target_, \
    .fn = fn_ }
static bcase cases[] = {
  CASE("empty_write", "empty (fixed cost)", "write", M_NONE, B_NONE, T_NONE, w_empty),
  CASE("empty_read", "empty (fixed cost)", "read", M_NONE, B_NONE, T_NONE, r_empty),
  CASE("struct4_hand_write", "struct 4 longs, hand", "write", M_STRUCT, B_16, T_SMALL_NS,
       w_struct_hand),
  CASE("struct4_hand_read", "struct 4 longs, hand", "read", M_STRUCT, B_16, T_SMALL_NS,
       r_struct_hand),
  CASE("struct4_generic_write", "struct 4 longs, generic", "write", M_STRUCT, B_16, T_SMALL_NS,
       w_struct_generic),
  CASE("struct4_generic_read", "struct 4 longs, generic", "read", M_STRUCT, B_16, T_SMALL_NS,
       r_struct_generic),
  CASE("double_write", "double", "write", M_DOUBLE, B_8, T_NONE, w_double),
  CASE("double_read", "double", "read", M_DOUBLE, B_8, T_NONE, r_double),
  CASE("string16_write", "string of 16 chars", "write", M_STRING, B_17, T_NONE, w_string),
  CASE("string16_read", "string of 16 chars", "read", M_STRING, B_17, T_NONE, r_string),
  CASE("string16_read_view", "string of 16 chars", "read view", M_STRING, B_17, T_NONE,
       r_string_view),
  CASE("octseq64_write", "sequence<octet> 64", "write", M_OCT, B_64, T_NONE, w_oct),
  CASE("octseq64_read", "sequence<octet> 64", "read", M_OCT, B_64, T_NONE, r_oct),
  CASE("octseq64_read_view", "sequence<octet> 64", "read view", M_OCT, B_64, T_NONE, r_oct_view),
  CASE("longseq16_write", "sequence<long> 16", "write", M_LONGS, B_64, T_NONE, w_longs),
  CASE("longseq16_read", "sequence<long> 16", "read", M_LONGS, B_64, T_NONE, r_longs),
  CASE("composite_hand_write", "all five, hand", "write", M_COMPOSITE, B_184, T_NONE,
       w_composite_hand),
  CASE("composite_hand_read", "all five, hand", "read", M_COMPOSITE, B_184, T_NONE,
       r_composite_hand),
  CASE("composite_generic_write", "all five, generic", "write", M_COMPOSITE, B_184, T_NONE,
       w_composite_generic),
  CASE("composite_generic_read", "all five, generic", "read", M_COMPOSITE, B_184, T_NONE,
       r_composite_generic),
  CASE("octseq1m_write", "sequence<octet> 1 MiB", "write", M_BULK_OCT, B_1M, T_BULK_RATIO,
       w_bulk_oct),
  CASE("octseq1m_read", "sequence<octet> 1 MiB", "read", M_BULK_OCT, B_1M, T_BULK_RATIO,
       r_bulk_oct),
  CASE("octseq1m_read_view", "sequence<octet> 1 MiB", "read view", M_BULK_OCT, B_1M, T_NONE,
       r_bulk_oct_view),
  CASE("doubleseq1m_write", "sequence<double> 1 MiB", "write", M_BULK_DBL, B_1M, T_BULK_RATIO,
       w_bulk_dbl),
  CASE("doubleseq1m_read", "sequence<double> 1 MiB", "read", M_BULK_DBL, B_1M, T_BULK_RATIO,
       r_bulk_dbl),
};
#define NCASES (sizeof cases / sizeof cases[0])

static figure base_fig[B_COUNT];

static bool is_view(const bcase *c) { return strcmp(c->op, "read view") == 0; }
static bool has_base(const bcase *c) { return c->base != B_NONE; }
static bool has_rate(const bcase *c) { return has_base(c) && !is_view(c); }
static size_t bytes_of(const bcase *c) { return has_base(c) ? baselines[c->base].size : 0; }
static size_t wire_of(const bcase *c) { return c->msg != M_NONE ? G.msg[c->msg].len : 0; }
static double ratio_of(const bcase *c) { return c->f.min_ns / base_fig[c->base].min_ns; }

static bool target_met(const bcase *c)
{
  switch (c->target) {
  case T_SMALL_NS: return c->f.min_ns <= TARGET_SMALL_NS;
  case T_BULK_RATIO: return ratio_of(c) <= TARGET_BULK_RATIO;
  default: return true;
  }
}

static const char *target_text(int t)
{
  switch (t) {
  case T_SMALL_NS: return "<= 30 ns";
  case T_BULK_RATIO: return "<= 1.5x memcpy";
  default: return "";
  }
}

/* ---------------------------------------------------------------- timing */

static struct {
  bool quick;
  double batch_ns;   /* wanted duration of one timed batch */
  double calib_ns;   /* calibration stops once a batch takes this long */
  double gbatch_ns;  /* the same for the value-graph figures (shorter: there are many) */
  double gcalib_ns;
} cfg = { false, 100e6, 10e6, 50e6, 5e6 };

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_batch(loop_fn fn, uint64_t n)
{
  double t0 = now_ns();
  uint64_t r = fn(n);
  double t1 = now_ns();
  sink += r;
  return t1 - t0;
}

static uint64_t mallocs_now(void)
{
  return __atomic_load_n(&G.counter.mallocs, __ATOMIC_RELAXED);
}

static uint64_t bytes_now(void)
{
  return __atomic_load_n(&G.counter.bytes, __ATOMIC_RELAXED);
}

/* A - B for the counters; the snapshots of A. */
static cdr_tables_stats tables_delta(const cdr_tables_stats *a, const cdr_tables_stats *b)
{
  cdr_tables_stats d = *a;
  d.pool_hits -= b->pool_hits;
  d.shared_hits -= b->shared_hits;
  d.allocs -= b->allocs;
  d.pooled -= b->pooled;
  d.shared_puts -= b->shared_puts;
  d.freed_over_cap -= b->freed_over_cap;
  d.freed_full -= b->freed_full;
  d.frees -= b->frees;
  return d;
}

/* Warm up while growing the batch until it takes CALIB_NS, size the batch
 * for BATCH_NS, then time REPEATS batches. */
static figure measure_for(loop_fn fn, double batch_ns, double calib_ns)
{
  figure f = { 0 };
  uint64_t n = 1;
  double t;
  for (;;) {
    t = time_batch(fn, n);
    if (t >= calib_ns || n >= ((uint64_t)1 << 40))
      break;
    n *= t < calib_ns / 16 ? 8 : 2;
  }
  double want = (double)n * batch_ns / (t > 1 ? t : 1);
  f.iters = want < 1 ? 1 : (uint64_t)want;

  double per_op[REPEATS];
  cdr_tables_stats ts0, ts1;
  cdr_tables_get_stats(&ts0);
  uint64_t m0 = mallocs_now(), b0 = bytes_now();
  for (int r = 0; r < REPEATS; r++)
    per_op[r] = time_batch(fn, f.iters) / (double)f.iters;
  uint64_t m1 = mallocs_now(), b1 = bytes_now();
  cdr_tables_get_stats(&ts1);

  for (int a = 1; a < REPEATS; a++) /* insertion sort */
    for (int b = a; b > 0 && per_op[b] < per_op[b - 1]; b--) {
      double x = per_op[b];
      per_op[b] = per_op[b - 1];
      per_op[b - 1] = x;
    }
  f.min_ns = per_op[0];
  f.med_ns = per_op[REPEATS / 2];
  f.ops = f.iters * REPEATS;
  f.mallocs = m1 - m0;
  f.allocs_per_op = (double)(m1 - m0) / (double)f.ops;
  f.bytes_per_op = (double)(b1 - b0) / (double)f.ops;
  f.tbl = tables_delta(&ts1, &ts0);
  return f;
}

static figure measure(loop_fn fn) { return measure_for(fn, cfg.batch_ns, cfg.calib_ns); }

/* ---------------------------------------------------------------- machine */

typedef struct machine {
  char cpu[256];
  long cores_online, cores_conf;
  char kernel[256];
  const char *compiler;
  const char *build;
  double load1;      /* 1-minute load average at start; -1 if unknown */
} machine;

static void rstrip(char *s)
{
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = 0;
}

static void machine_get(machine *m)
{
  snprintf(m->cpu, sizeof m->cpu, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      /* x86 says "model name"; some other architectures "Processor"/"cpu model". */
      if (strncmp(line, "model name", 10) && strncmp(line, "cpu model", 9)
          && strncmp(line, "Processor", 9))
        continue;
      char *colon = strchr(line, ':');
      if (!colon)
        continue;
      colon++;
      while (*colon == ' ' || *colon == '\t')
        colon++;
      snprintf(m->cpu, sizeof m->cpu, "%s", colon);
      rstrip(m->cpu);
      break;
    }
    fclose(f);
  }
  m->cores_online = sysconf(_SC_NPROCESSORS_ONLN);
  m->cores_conf = sysconf(_SC_NPROCESSORS_CONF);
  struct utsname u;
  if (uname(&u) == 0)
    snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
  else
    snprintf(m->kernel, sizeof m->kernel, "unknown");
  m->load1 = -1;
  f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &m->load1) != 1)
      m->load1 = -1;
    fclose(f);
  }
#if defined(__clang__)
  m->compiler = __VERSION__;
#elif defined(__GNUC__)
  m->compiler = "gcc " __VERSION__;
#else
  m->compiler = __VERSION__;
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  m->build = "SANITIZED build: figures are not representative";
#elif !defined(__OPTIMIZE__)
  m->build = "UNOPTIMIZED build: figures are not representative";
#else
  m->build = "optimized";
#endif
}

/* ---------------------------------------------------------------- setup and checks */

static int fail(const char *what, int status)
{
  fprintf(stderr, "cdr-bench: %s: %s\n", what, status ? cdr_strerror(status) : "mismatch");
  return 1;
}

static int encode(int idx, void (*put)(cdr_out *))
{
  cdr_out_reset(&G.out);
  put(&G.out);
  if (cdr_out_status(&G.out) != CDR_OK)
    return fail("encoding a benchmark message", cdr_out_status(&G.out));
  encoded *m = &G.msg[idx];
  m->len = cdr_out_size(&G.out);
  m->order = cdr_out_byte_order(&G.out);
  m->buf = malloc(m->len);
  if (!m->buf)
    return fail("encoding a benchmark message", CDR_E_NOMEM);
  memcpy(m->buf, cdr_out_data(&G.out), m->len);
  return 0;
}

static void fill_values(void)
{
  G.fl = (four_longs){ 0x01020304, -5, 1000000007, -2147483647 };
  G.dbl = 3.14159265358979;
  memcpy(G.str, STR16, sizeof STR16);
  for (int k = 0; k < OCT_SMALL; k++)
    G.oct[k] = (uint8_t)(k * 7 + 1);
  for (int k = 0; k < LONG_SMALL; k++)
    G.longs[k] = (int32_t)(k * 100003 - 7);
  for (size_t k = 0; k < BULK_BYTES; k++)
    G.bulk_oct[k] = (uint8_t)(k * 131 + (k >> 11));
  for (size_t k = 0; k < BULK_DOUBLES; k++)
    G.bulk_dbl[k] = (double)k * 0.5 - 1000.25;
  memset(G.mc_src, 0x5a, BULK_BYTES);
  memset(G.mc_dst, 0, BULK_BYTES);
  G.comp.s = G.fl;
  G.comp.d = G.dbl;
  G.comp.str = G.str;
  G.comp.oct = (cdr_seq){ OCT_SMALL, OCT_SMALL, G.oct, 0 };
  G.comp.longs = (cdr_seq){ LONG_SMALL, LONG_SMALL, G.longs, 0 };
}

static bool same_composite(const composite *v)
{
  return memcmp(&v->s, &G.fl, sizeof G.fl) == 0 && dbits(v->d) == dbits(G.dbl)
         && v->str && strcmp(v->str, G.str) == 0
         && v->oct._length == OCT_SMALL && memcmp(v->oct._buffer, G.oct, OCT_SMALL) == 0
         && v->longs._length == LONG_SMALL && memcmp(v->longs._buffer, G.longs, sizeof G.longs) == 0;
}

/* Encode every message, check the composite is 184 octets, that the generic
 * encoder writes the same octets as the hand-written calls, and that every
 * message decodes back to its values, both ways. */
static int prepare(void)
{
  fill_values();
  static void (*const put[M_COUNT])(cdr_out *) = {
    [M_STRUCT] = put_struct_hand, [M_DOUBLE] = put_double, [M_STRING] = put_string,
    [M_OCT] = put_oct, [M_LONGS] = put_longs, [M_COMPOSITE] = put_composite_hand,
    [M_BULK_OCT] = put_bulk_oct, [M_BULK_DBL] = put_bulk_dbl,
  };
  for (int k = 0; k < M_COUNT; k++)
    if (encode(k, put[k]))
      return 1;
  if (G.msg[M_COMPOSITE].len != COMPOSITE_WIRE) {
    fprintf(stderr, "cdr-bench: the composite message is %zu octets, expected %d\n",
            G.msg[M_COMPOSITE].len, COMPOSITE_WIRE);
    return 1;
  }

  /* Generic encoding: byte-identical to the hand-written one. */
  cdr_out_reset(&G.out);
  int rc = cdr_write(&G.out, &four_longs_type, &G.fl);
  if (rc != CDR_OK)
    return fail("cdr_write(FourLongs)", rc);
  if (cdr_out_size(&G.out) != G.msg[M_STRUCT].len
      || memcmp(cdr_out_data(&G.out), G.msg[M_STRUCT].buf, G.msg[M_STRUCT].len))
    return fail("cdr_write(FourLongs) differs from the hand-written encoding", 0);
  cdr_out_reset(&G.out);
  rc = cdr_write(&G.out, &composite_type, &G.comp);
  if (rc != CDR_OK)
    return fail("cdr_write(Composite)", rc);
  if (cdr_out_size(&G.out) != COMPOSITE_WIRE
      || memcmp(cdr_out_data(&G.out), G.msg[M_COMPOSITE].buf, COMPOSITE_WIRE))
    return fail("cdr_write(Composite) differs from the hand-written encoding", 0);

  /* Decoding, hand-written and generic. */
  cdr_in in;
  const encoded *m = &G.msg[M_COMPOSITE];
  cdr_arena_reset(&G.arena);
  cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
  cdr_in_set_arena(&in, &G.arena);
  composite v;
  v.s.a = cdr_get_long(&in);
  v.s.b = cdr_get_long(&in);
  v.s.c = cdr_get_long(&in);
  v.s.d = cdr_get_long(&in);
  v.d = cdr_get_double(&in);
  v.str = cdr_get_string(&in, NULL);
  v.oct._buffer = cdr_get_seq(&in, 1, &v.oct._length);
  v.longs._buffer = cdr_get_seq(&in, 4, &v.longs._length);
  if (cdr_in_status(&in) != CDR_OK)
    return fail("decoding the composite message", cdr_in_status(&in));
  if (cdr_in_remaining(&in) != 0 || !same_composite(&v))
    return fail("decoding the composite message by hand", 0);

  cdr_arena_reset(&G.arena);
  cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
  cdr_in_set_arena(&in, &G.arena);
  memset(&v, 0, sizeof v);
  rc = cdr_read(&in, &composite_type, &v);
  if (rc != CDR_OK)
    return fail("cdr_read(Composite)", rc);
  if (cdr_in_remaining(&in) != 0 || !same_composite(&v))
    return fail("cdr_read(Composite) decoded other values", 0);

  four_longs fl;
  m = &G.msg[M_STRUCT];
  cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
  rc = cdr_read(&in, &four_longs_type, &fl);
  if (rc != CDR_OK)
    return fail("cdr_read(FourLongs)", rc);
  if (memcmp(&fl, &G.fl, sizeof fl))
    return fail("cdr_read(FourLongs) decoded other values", 0);

  m = &G.msg[M_BULK_DBL];
  cdr_arena_reset(&G.arena);
  cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
  cdr_in_set_arena(&in, &G.arena);
  uint32_t n = 0;
  const double *dv = cdr_get_seq(&in, 8, &n);
  if (!dv || n != BULK_DOUBLES || memcmp(dv, G.bulk_dbl, BULK_BYTES))
    return fail("decoding the 1 MiB double sequence", cdr_in_status(&in));

  m = &G.msg[M_BULK_OCT];
  const uint8_t *ov = NULL;
  cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
  rc = cdr_get_octets_view(&in, &ov, &n);
  if (rc != CDR_OK || n != BULK_BYTES || memcmp(ov, G.bulk_oct, BULK_BYTES))
    return fail("decoding the 1 MiB octet sequence", rc);
  return 0;
}

/* ---------------------------------------------------------------- value graphs */

/* Bench IDL:
 *   valuetype Node { public long id; public Node next; };
 *   valuetype TruncNode : truncatable Node { public long extra; };  */
typedef struct Node {
  cdr_value hdr;
  int32_t id;
  struct Node *next;
} Node;

typedef struct TruncNode {
  Node base;
  int32_t extra;
} TruncNode;

/* Not const: the library caches the repository ID in a descriptor. */
static cdr_value_type Node_vt;
static const cdr_type Node_ref_type = {
  .kind = CDR_K_VALUE, .size = sizeof(void *), .align = _Alignof(void *), .u.val.vt = &Node_vt,
};
static const cdr_member Node_members[] = {
  CDR_MEMBER(Node, id, &cdr_type_long),
  CDR_MEMBER(Node, next, &Node_ref_type),
};
static cdr_value_type Node_vt = {
  .name = "Node", .repo_id = "IDL:Bench/Node:1.0", .members = Node_members, .nmembers = 2,
  .size = sizeof(Node), .align = _Alignof(Node),
};
static const cdr_member TruncNode_members[] = {
  CDR_MEMBER(TruncNode, extra, &cdr_type_long),
};
static cdr_value_type TruncNode_vt = {
  .name = "TruncNode", .repo_id = "IDL:Bench/TruncNode:1.0", .base = &Node_vt,
  .flags = CDR_VT_TRUNCATABLE, .members = TruncNode_members, .nmembers = 1,
  .size = sizeof(TruncNode), .align = _Alignof(TruncNode),
};

#define GRAPH_SMALL 50
#define GRAPH_LARGE 10000
#define TARGET_GRAPH_NS 15.0
#define CAP_CHECK_MSGS 8

enum { L_NODE_S, L_NODE_L, L_TRUNC_S, L_TRUNC_L, L_COUNT };
enum { P_ON, P_OFF, P_COUNT };
enum { GO_ENC, GO_ENC_REUSE, GO_DEC, GO_COUNT };
#define GO_SUM GO_COUNT /* the encode+decode row: GO_ENC + GO_DEC */
enum { GT_NONE, GT_NS, GT_NOALLOC, GT_CAPONLY };

static const char *const gop_name[GO_COUNT + 1] = { "encode", "encode (reuse)", "decode",
                                                    "encode+decode" };
static const char *const gop_id[GO_COUNT + 1] = { "encode", "encode_reuse", "decode",
                                                  "encode_decode" };
static const char *const pool_name[P_COUNT] = { "on", "off" };

typedef struct glist {
  const char *id;                 /* JSON name */
  const char *type;               /* the nodes' value type */
  uint32_t nodes;
  bool trunc;                     /* TruncNode */
  void *mem;                      /* the nodes: one contiguous array */
  Node *head;
  encoded msg;                    /* the reference encoding (fresh stream) */
  figure f[P_COUNT][GO_COUNT];
  /* Untimed check that the cap is what allocates: a cap that fits, and the
   * allocations a message then, encoding and decoding (-1: not run). */
  unsigned fit_cap;
  double fit_allocs[2];
} glist;

static glist glists[L_COUNT] = {
  [L_NODE_S] = { .id = "node50", .type = "Node", .nodes = GRAPH_SMALL, .trunc = false },
  [L_NODE_L] = { .id = "node10k", .type = "Node", .nodes = GRAPH_LARGE, .trunc = false },
  [L_TRUNC_S] = { .id = "truncnode50", .type = "TruncNode", .nodes = GRAPH_SMALL, .trunc = true },
  [L_TRUNC_L] = { .id = "truncnode10k", .type = "TruncNode", .nodes = GRAPH_LARGE, .trunc = true },
};

static const glist *gcur; /* the list the timed loops work on */

static int32_t node_id(uint32_t k) { return (int32_t)(k * 2654435761u + 17u); }
static int32_t node_extra(uint32_t k) { return (int32_t)(k ^ 0xa5a5a5a5u); }

static int gfail(const glist *l, const char *what, int status)
{
  fprintf(stderr, "cdr-bench: %s list of %u: %s: %s\n", l->type, l->nodes, what,
          status ? cdr_strerror(status) : "mismatch");
  return 1;
}

/* V is L's list, node by node: type, id, extra, length. */
static bool graph_same(const glist *l, const void *v)
{
  const cdr_value_type *want = l->trunc ? &TruncNode_vt : &Node_vt;
  const Node *p = v;
  uint32_t k = 0;
  for (; p && k < l->nodes; p = p->next, k++) {
    if (p->hdr.type != want || p->id != node_id(k))
      return false;
    if (l->trunc && ((const TruncNode *)p)->extra != node_extra(k))
      return false;
  }
  return k == l->nodes && p == NULL;
}

/* Encode L with a fresh stream and with REUSE (reset first): both must give
 * L's reference encoding. */
static int graph_check_encode(const glist *l, cdr_out *reuse)
{
  cdr_out o;
  cdr_out_init(&o, &G.opts);
  int rc = cdr_put_value(&o, &Node_vt, l->head);
  bool same = rc == CDR_OK && cdr_out_size(&o) == l->msg.len
              && memcmp(cdr_out_data(&o), l->msg.buf, l->msg.len) == 0;
  cdr_out_close(&o);
  if (!same)
    return gfail(l, "encoding with a fresh stream", rc);
  cdr_out_reset(reuse);
  rc = cdr_put_value(reuse, &Node_vt, l->head);
  if (rc != CDR_OK || cdr_out_size(reuse) != l->msg.len
      || memcmp(cdr_out_data(reuse), l->msg.buf, l->msg.len) != 0)
    return gfail(l, "encoding with a reused stream", rc);
  /* Twice: the second time its tables start from the blocks it kept. */
  cdr_out_reset(reuse);
  rc = cdr_put_value(reuse, &Node_vt, l->head);
  if (rc != CDR_OK || cdr_out_size(reuse) != l->msg.len
      || memcmp(cdr_out_data(reuse), l->msg.buf, l->msg.len) != 0)
    return gfail(l, "encoding again with a reused stream", rc);
  return 0;
}

/* Decode L's message as the timed loop does and check every node. */
static int graph_check_decode(const glist *l)
{
  cdr_arena *a = cdr_arena_get();
  if (!a)
    return gfail(l, "cdr_arena_get", CDR_E_NOMEM);
  cdr_in in;
  cdr_in_init(&in, l->msg.buf, l->msg.len, l->msg.order, &G.opts);
  cdr_in_set_arena(&in, a);
  void *v = NULL;
  int rc = cdr_get_value(&in, &Node_vt, &v);
  bool ok = rc == CDR_OK && cdr_in_remaining(&in) == 0 && graph_same(l, v);
  if (rc != CDR_OK)
    fprintf(stderr, "cdr-bench: at offset %zu: %s\n", cdr_in_error_offset(&in),
            cdr_in_error_message(&in));
  cdr_in_close(&in);
  cdr_arena_put(a);
  return ok ? 0 : gfail(l, "decoding", rc);
}

/* Build L's nodes and its reference encoding, and check both ways. */
static int graph_prepare(glist *l)
{
  size_t esize = l->trunc ? sizeof(TruncNode) : sizeof(Node);
  l->mem = calloc(l->nodes, esize);
  if (!l->mem)
    return gfail(l, "allocating the nodes", CDR_E_NOMEM);
  for (uint32_t k = 0; k < l->nodes; k++) {
    Node *n = (Node *)((char *)l->mem + k * esize);
    n->hdr.type = l->trunc ? &TruncNode_vt : &Node_vt;
    n->id = node_id(k);
    n->next = k + 1 < l->nodes ? (Node *)((char *)l->mem + (k + 1) * esize) : NULL;
    if (l->trunc)
      ((TruncNode *)n)->extra = node_extra(k);
  }
  l->head = l->mem;
  cdr_out o;
  cdr_out_init(&o, &G.opts);
  int rc = cdr_put_value(&o, &Node_vt, l->head);
  if (rc == CDR_OK) {
    l->msg.len = cdr_out_size(&o);
    l->msg.order = cdr_out_byte_order(&o);
    l->msg.buf = malloc(l->msg.len);
    if (l->msg.buf)
      memcpy(l->msg.buf, cdr_out_data(&o), l->msg.len);
    else
      rc = CDR_E_NOMEM;
  }
  cdr_out_close(&o);
  if (rc != CDR_OK)
    return gfail(l, "cdr_put_value", rc);
  /* Plain Nodes go with no type information (the actual type is the
   * declared one): a tag and an id each, and the final null. */
  if (!l->trunc && l->msg.len != (size_t)l->nodes * 8 + 4)
    return gfail(l, "unexpected encoded size", 0);
  l->fit_allocs[0] = l->fit_allocs[1] = -1;
  cdr_out reuse;
  cdr_out_init(&reuse, &G.opts);
  rc = graph_check_encode(l, &reuse);
  cdr_out_close(&reuse);
  return rc || graph_check_decode(l);
}

/* ---- the timed loops (gcur) */

static uint64_t g_encode(uint64_t n)
{
  const Node *head = gcur->head;
  uint64_t acc = 0;
  int bad = 0;
  for (uint64_t k = 0; k < n; k++) {
    cdr_out o;
    cdr_out_init(&o, &G.opts);
    bad |= cdr_put_value(&o, &Node_vt, head);
    acc += cdr_out_size(&o);
    clobber();
    cdr_out_close(&o);
  }
  G.loop_errors += bad != 0;
  return acc;
}

static uint64_t g_encode_reuse(uint64_t n)
{
  const Node *head = gcur->head;
  cdr_out *o = &G.gout;
  uint64_t acc = 0;
  int bad = 0;
  for (uint64_t k = 0; k < n; k++) {
    cdr_out_reset(o);
    bad |= cdr_put_value(o, &Node_vt, head);
    acc += cdr_out_size(o);
    clobber();
  }
  G.loop_errors += bad != 0;
  return acc;
}

static uint64_t g_decode(uint64_t n)
{
  const encoded *m = &gcur->msg;
  uint64_t acc = 0;
  int bad = 0;
  for (uint64_t k = 0; k < n; k++) {
    cdr_in in;
    cdr_in_init(&in, m->buf, m->len, m->order, &G.opts);
    cdr_arena *a = cdr_arena_get();
    cdr_in_set_arena(&in, a);
    void *v = NULL;
    bad |= cdr_get_value(&in, &Node_vt, &v);
    if (__builtin_expect(v != NULL, 1))
      acc += (uint32_t)((const Node *)v)->id;
    cdr_in_close(&in);
    cdr_arena_put(a);
  }
  G.loop_errors += bad != 0;
  return acc;
}

static const loop_fn gloop[GO_COUNT] = { g_encode, g_encode_reuse, g_decode };

/* ---- targets */

static int gtarget(const glist *l, int pool, int op)
{
  if (pool != P_ON)
    return GT_NONE;
  if (op == GO_SUM)
    return l->trunc ? GT_NONE : GT_NS;
  return l->nodes <= GRAPH_SMALL ? GT_NOALLOC : GT_CAPONLY;
}

static const char *gtarget_text(int t)
{
  switch (t) {
  case GT_NS: return "<= 15 ns/node";
  case GT_NOALLOC: return "0 allocs";
  case GT_CAPONLY: return "cap only";
  default: return "";
  }
}

/* Every allocation is a table block, and blocks were allocated only while the
 * cap was sending blocks back to the allocator. */
static bool cap_only(const figure *f)
{
  return f->mallocs == f->tbl.allocs && (f->tbl.allocs == 0 || f->tbl.freed_over_cap > 0);
}

/* The encode+decode figures: fresh-stream encode plus decode. */
static double gsum_min(const glist *l, int p)
{
  return l->f[p][GO_ENC].min_ns + l->f[p][GO_DEC].min_ns;
}
static double gsum_med(const glist *l, int p)
{
  return l->f[p][GO_ENC].med_ns + l->f[p][GO_DEC].med_ns;
}

static bool gtarget_met(const glist *l, int pool, int op)
{
  switch (gtarget(l, pool, op)) {
  case GT_NS: return gsum_min(l, pool) / l->nodes <= TARGET_GRAPH_NS;
  case GT_NOALLOC: return l->f[pool][op].mallocs == 0;
  case GT_CAPONLY: return cap_only(&l->f[pool][op]);
  default: return true;
  }
}

/* The rows a list has: every op with the pool on; with it off, no "encode
 * (reuse)" (a reused stream keeps its table blocks across cdr_out_reset, so
 * the pool never comes into it). */
static bool grow_exists(int pool, int op)
{
  return !(pool == P_OFF && op == GO_ENC_REUSE);
}

static void graph_targets(int *met, int *missed)
{
  for (int k = 0; k < L_COUNT; k++)
    for (int p = 0; p < P_COUNT; p++)
      for (int op = 0; op <= GO_SUM; op++) {
        const glist *l = &glists[k];
        if ((op < GO_SUM && !grow_exists(p, op)) || gtarget(l, p, op) == GT_NONE)
          continue;
        gtarget_met(l, p, op) ? (*met)++ : (*missed)++;
      }
}

/* ---- output */

static void print_graph_head(FILE *out)
{
  fprintf(out, "\nvalue graphs: lists of valuetype Node { long id; Node next; } (TruncNode: "
          "truncatable Node + long extra, chunked)\ntable pool on: cdr_tables_set_pool(1, %u, %u) "
          "(max tables a thread, max entries a pooled table: --table-cap); off: pool disabled\n",
          G.max_tables, G.table_cap);
  fprintf(out, "\n%-9s %6s %-4s %-14s %7s %11s %11s %10s %9s %7s %10s  %s\n", "list", "nodes",
          "pool", "op", "wire B", "min ns/node", "med ns/node", "min us/msg", "alloc/msg",
          "blk/msg", "bytes/msg", "target");
}

static void fmt_count(char *buf, size_t n, double v)
{
  if (v == 0)
    snprintf(buf, n, "0");
  else if (v >= 100)
    snprintf(buf, n, "%.0f", v);
  else
    snprintf(buf, n, "%.3g", v);
}

static void print_graph_row(FILE *out, const glist *l, int pool, int op)
{
  double min_ns, med_ns, allocs, bytes, blk;
  if (op == GO_SUM) {
    const figure *e = &l->f[pool][GO_ENC], *d = &l->f[pool][GO_DEC];
    min_ns = gsum_min(l, pool);
    med_ns = gsum_med(l, pool);
    allocs = e->allocs_per_op + d->allocs_per_op;
    bytes = e->bytes_per_op + d->bytes_per_op;
    blk = ((double)e->tbl.allocs / (double)e->ops) + ((double)d->tbl.allocs / (double)d->ops);
  } else {
    const figure *f = &l->f[pool][op];
    min_ns = f->min_ns;
    med_ns = f->med_ns;
    allocs = f->allocs_per_op;
    bytes = f->bytes_per_op;
    blk = (double)f->tbl.allocs / (double)f->ops;
  }
  char al[16], bl[16], by[24], line[256];
  fmt_count(al, sizeof al, allocs);
  fmt_count(bl, sizeof bl, blk);
  fmt_count(by, sizeof by, bytes);
  int t = gtarget(l, pool, op);
  snprintf(line, sizeof line, "%-9s %6u %-4s %-14s %7zu %11.2f %11.2f %10.2f %9s %7s %10s  %-14s %s",
           l->type, l->nodes, pool_name[pool], gop_name[op], l->msg.len, min_ns / l->nodes,
           med_ns / l->nodes, min_ns / 1e3, al, bl, by, gtarget_text(t),
           t == GT_NONE ? "" : gtarget_met(l, pool, op) ? "pass" : "MISS");
  rstrip(line);
  fprintf(out, "%s\n", line);
}

static double per(uint64_t v, const figure *f) { return (double)v / (double)f->ops; }

/* The table pool's counters over L's timed batches with the pool on. */
static void print_table_stats(FILE *out, const glist *l)
{
  fprintf(out, "\n  table pool over the timed %u-node %s batches, pool on (cdr_tables_get_stats, "
          "per message):\n", l->nodes, l->type);
  fprintf(out, "  %-14s %9s %9s %9s %9s %9s %9s %9s\n", "op", "pool hit", "shared", "allocs",
          "pooled", "over cap", "full", "frees");
  for (int op = 0; op < GO_COUNT; op++) {
    const figure *f = &l->f[P_ON][op];
    const cdr_tables_stats *s = &f->tbl;
    fprintf(out, "  %-14s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", gop_name[op],
            per(s->pool_hits, f), per(s->shared_hits, f), per(s->allocs, f), per(s->pooled, f),
            per(s->freed_over_cap, f), per(s->freed_full, f), per(s->frees, f));
  }
  const figure *e = &l->f[P_ON][GO_ENC], *d = &l->f[P_ON][GO_DEC];
  fprintf(out, "  blocks pooled now: %u in this thread, %u shared\n",
          l->f[P_ON][GO_DEC].tbl.thread_pooled, l->f[P_ON][GO_DEC].tbl.shared_pooled);
  fprintf(out, "  allocations the cap of %u entries causes: %.3g a message encoding, %.3g "
          "decoding (%s)\n", G.table_cap,
          e->tbl.freed_over_cap ? per(e->tbl.allocs, e) : 0.0,
          d->tbl.freed_over_cap ? per(d->tbl.allocs, d) : 0.0,
          cap_only(e) && cap_only(d) ? "every allocation of these batches"
                                     : "OTHER ALLOCATIONS TOO: see alloc/msg");
  if (l->fit_allocs[0] >= 0)
    fprintf(out, "  with --table-cap %u instead (untimed, %d messages each way after "
            "warm-up): %.3g allocations a message encoding, %.3g decoding\n",
            l->fit_cap, CAP_CHECK_MSGS, l->fit_allocs[0], l->fit_allocs[1]);
}

/* ---- running */

static void pool_config(int enabled, unsigned cap)
{
  (void)cdr_tables_set_pool(enabled, G.max_tables, cap);
}

/* Allocations a message of LOOP after a short warm-up. */
static double allocs_per_msg(loop_fn loop)
{
  sink += loop(3);
  uint64_t m0 = mallocs_now();
  sink += loop(CAP_CHECK_MSGS);
  return (double)(mallocs_now() - m0) / CAP_CHECK_MSGS;
}

/* Untimed: with a cap that fits L's tables, does L still allocate?  The
 * pooled blocks are flushed afterwards so that the blocks kept under the big
 * cap do not serve later figures. */
static void graph_cap_check(glist *l)
{
  unsigned fit = 16;
  while (fit < l->nodes)
    fit *= 2;
  if (G.table_cap >= fit)
    return;
  l->fit_cap = fit;
  pool_config(1, fit);
  l->fit_allocs[0] = allocs_per_msg(g_encode);
  l->fit_allocs[1] = allocs_per_msg(g_decode);
  pool_config(1, G.table_cap);
  cdr_tables_flush_thread();
}

/* Time every row of every list, printing as it goes. */
static int run_graphs(FILE *out)
{
  print_graph_head(out);
  for (int k = 0; k < L_COUNT; k++) {
    glist *l = &glists[k];
    gcur = l;
    /* Each list starts from empty table pools: a thread's pool hands out its
     * newest block whatever its size, and a table starting from a block sized
     * for another list would measure that mix, not this list's steady state. */
    cdr_tables_flush_thread();
    cdr_tables_flush_shared();
    int rc = cdr_out_init(&G.gout, &G.opts);
    if (rc != CDR_OK)
      return fail("cdr_out_init", rc);
    for (int p = 0; p < P_COUNT; p++) {
      pool_config(p == P_ON, G.table_cap);
      for (int op = 0; op < GO_COUNT; op++) {
        if (!grow_exists(p, op))
          continue;
        if (op == GO_DEC ? graph_check_decode(l) : graph_check_encode(l, &G.gout))
          return 1;
        l->f[p][op] = measure_for(gloop[op], cfg.gbatch_ns, cfg.gcalib_ns);
        print_graph_row(out, l, p, op);
        fflush(out);
      }
      print_graph_row(out, l, p, GO_SUM);
      fflush(out);
    }
    cdr_out_close(&G.gout);
    pool_config(1, G.table_cap);
    if (l->nodes > GRAPH_SMALL) {
      graph_cap_check(l);
      print_table_stats(out, l);
      if (k + 1 < L_COUNT)
        fputc('\n', out);
    }
  }
  return 0;
}

static void print_graph_notes(FILE *out)
{
  fprintf(out, "\nvalue graphs: encode: cdr_out_init + cdr_put_value + cdr_out_close per message "
          "(reuse: one stream, cdr_out_reset);\ndecode: cdr_in_init + cdr_arena_get + "
          "cdr_get_value + cdr_in_close + cdr_arena_put per message; encode+decode: encode +\n"
          "decode.  alloc/msg, bytes/msg: allocator calls and octets requested per message "
          "during the timed batches;\nblk/msg: of those, indirection-table blocks.  Targets "
          "(pool on): encode+decode <= %.0f ns/node for Node lists;\nno allocation for "
          "%u-node lists; for %u-node lists, only table blocks that the cap keeps out of the "
          "pool (cap only).\n", TARGET_GRAPH_NS, GRAPH_SMALL, GRAPH_LARGE);
}

/* Pool-on rows: anything allocated other than table blocks over the cap? */
static bool graph_allocs_clean(void)
{
  for (int k = 0; k < L_COUNT; k++)
    for (int op = 0; op < GO_COUNT; op++)
      if (!cap_only(&glists[k].f[P_ON][op]))
        return false;
  return true;
}

static void graph_list_misses(FILE *out, const char **sep)
{
  for (int k = 0; k < L_COUNT; k++)
    for (int p = 0; p < P_COUNT; p++)
      for (int op = 0; op <= GO_SUM; op++) {
        const glist *l = &glists[k];
        if ((op < GO_SUM && !grow_exists(p, op)) || gtarget(l, p, op) == GT_NONE
            || gtarget_met(l, p, op))
          continue;
        if (op == GO_SUM)
          fprintf(out, "%s%s %u %s (%.2f ns/node)", *sep, l->type, l->nodes, gop_name[op],
                  gsum_min(l, p) / l->nodes);
        else
          fprintf(out, "%s%s %u %s (%.3g allocs/msg)", *sep, l->type, l->nodes, gop_name[op],
                  l->f[p][op].allocs_per_op);
        *sep = "; ";
      }
}

static void json_graph_fig(FILE *j, const glist *l, int p, int op, bool last)
{
  fprintf(j, "      {\"list\": \"%s\", \"type\": \"%s\", \"nodes\": %u, \"pool\": \"%s\", "
          "\"op\": \"%s\", \"wire_bytes\": %zu, ",
          l->id, l->type, l->nodes, pool_name[p], gop_id[op], l->msg.len);
  if (op == GO_SUM) {
    const figure *e = &l->f[p][GO_ENC], *d = &l->f[p][GO_DEC];
    fprintf(j, "\"ns_per_node_min\": %.4f, \"ns_per_node_median\": %.4f, \"ns_per_msg_min\": "
            "%.2f, \"allocs_per_msg\": %g, \"bytes_per_msg\": %.1f, "
            "\"table_block_allocs_per_msg\": %g, \"msgs_per_batch\": null, ",
            gsum_min(l, p) / l->nodes, gsum_med(l, p) / l->nodes, gsum_min(l, p),
            e->allocs_per_op + d->allocs_per_op, e->bytes_per_op + d->bytes_per_op,
            per(e->tbl.allocs, e) + per(d->tbl.allocs, d));
  } else {
    const figure *f = &l->f[p][op];
    const cdr_tables_stats *s = &f->tbl;
    fprintf(j, "\"ns_per_node_min\": %.4f, \"ns_per_node_median\": %.4f, \"ns_per_msg_min\": "
            "%.2f, \"allocs_per_msg\": %g, \"bytes_per_msg\": %.1f, "
            "\"table_block_allocs_per_msg\": %g, \"msgs_per_batch\": %" PRIu64 ", "
            "\"table_stats_per_msg\": {\"pool_hits\": %g, \"shared_hits\": %g, \"allocs\": %g, "
            "\"pooled\": %g, \"shared_puts\": %g, \"freed_over_cap\": %g, \"freed_full\": %g, "
            "\"frees\": %g}, ",
            f->min_ns / l->nodes, f->med_ns / l->nodes, f->min_ns, f->allocs_per_op,
            f->bytes_per_op, per(s->allocs, f), f->iters, per(s->pool_hits, f),
            per(s->shared_hits, f), per(s->allocs, f), per(s->pooled, f), per(s->shared_puts, f),
            per(s->freed_over_cap, f), per(s->freed_full, f), per(s->frees, f));
  }
  int t = gtarget(l, p, op);
  if (t == GT_NONE)
    fprintf(j, "\"target\": null, \"pass\": null}");
  else
    fprintf(j, "\"target\": \"%s\", \"pass\": %s}", gtarget_text(t),
            gtarget_met(l, p, op) ? "true" : "false");
  fprintf(j, "%s\n", last ? "" : ",");
}

static void write_json_graphs(FILE *j)
{
  fprintf(j, "  \"value_graphs\": {\n    \"batch_ms\": %g, \"table_pool\": {\"max_tables\": %u, "
          "\"max_entries\": %u, \"default_max_entries\": %u},\n    \"results\": [\n",
          cfg.gbatch_ns / 1e6, G.max_tables, G.table_cap, CDR_TABLES_DEFAULT_MAX_ENTRIES);
  int nrows = 0, row = 0;
  for (int k = 0; k < L_COUNT; k++)
    for (int p = 0; p < P_COUNT; p++)
      for (int op = 0; op <= GO_SUM; op++)
        nrows += op == GO_SUM || grow_exists(p, op);
  for (int k = 0; k < L_COUNT; k++)
    for (int p = 0; p < P_COUNT; p++)
      for (int op = 0; op <= GO_SUM; op++)
        if (op == GO_SUM || grow_exists(p, op))
          json_graph_fig(j, &glists[k], p, op, ++row == nrows);
  fprintf(j, "    ],\n    \"cap_check\": [");
  const char *sep = "";
  for (int k = 0; k < L_COUNT; k++) {
    const glist *l = &glists[k];
    if (l->fit_allocs[0] < 0)
      continue;
    fprintf(j, "%s\n      {\"list\": \"%s\", \"max_entries\": %u, \"allocs_per_msg_encode\": %g, "
            "\"allocs_per_msg_decode\": %g}", sep, l->id, l->fit_cap, l->fit_allocs[0],
            l->fit_allocs[1]);
    sep = ",";
  }
  fprintf(j, "%s]\n  },\n", *sep ? "\n    " : "");
}

/* ---------------------------------------------------------------- output */

/* The machine; with the method and the composite message's check unless
 * ONLY_MACHINE (the --threads run has neither). */
static void print_machine(FILE *out, const machine *m, bool only_machine)
{
  fprintf(out, "cdr-bench: libcdr marshalling in process (no sockets)\n");
  fprintf(out, "  cpu       %s\n", m->cpu);
  fprintf(out, "  cores     %ld online (%ld configured)\n", m->cores_online, m->cores_conf);
  fprintf(out, "  kernel    %s\n", m->kernel);
  fprintf(out, "  compiler  %s (bench: %s)\n", m->compiler, m->build);
  if (m->load1 >= 0)
    fprintf(out, "  load      %.2f (1-min average at start)%s\n", m->load1,
            m->load1 >= 0.5 ? ": other work is running, figures may be noisy" : "");
  if (only_machine)
    return;
  fprintf(out, "  order     %s (the host's: no swapping)\n",
          G.msg[M_STRUCT].order == CDR_LITTLE_ENDIAN ? "little-endian" : "big-endian");
  fprintf(out, "  method    best and median of %d batches of ~%.0f ms per figure (value graphs: "
          "~%.0f ms)%s\n", REPEATS, cfg.batch_ns / 1e6, cfg.gbatch_ns / 1e6,
          cfg.quick ? " (--quick)" : "");
  fprintf(out, "\ncomposite message (4 longs, double, string, sequence<octet> 64, "
          "sequence<long> 16):\n  %zu octets on the wire (expected %d): %s\n",
          G.msg[M_COMPOSITE].len, COMPOSITE_WIRE,
          G.msg[M_COMPOSITE].len == COMPOSITE_WIRE ? "ok" : "WRONG");
}

static void print_baseline_head(FILE *out)
{
  fprintf(out, "\nmemcpy baselines (libc memcpy, size not known at compile time)\n");
  fprintf(out, "%-24s %9s %11s %11s %8s\n", "copy of", "bytes", "min ns/op", "med ns/op", "GB/s");
}

static void print_baseline(FILE *out, int b)
{
  const figure *f = &base_fig[b];
  fprintf(out, "%-24s %9zu %11.2f %11.2f %8.2f\n", baselines[b].what, baselines[b].size,
          f->min_ns, f->med_ns, (double)baselines[b].size / f->min_ns);
}

static void print_case_head(FILE *out)
{
  fprintf(out, "\n%-23s %-9s %7s %7s %10s %10s %7s %9s %7s %8s  %s\n", "item", "op", "B",
          "wire B", "min ns/op", "med ns/op", "GB/s", "memcpy ns", "ratio", "alloc/op",
          "target");
}

static void print_case(FILE *out, const bcase *c)
{
  char gbs[16] = "-", mc[16] = "-", ratio[16] = "-", al[16] = "0", line[256];
  if (has_rate(c))
    snprintf(gbs, sizeof gbs, "%.2f", (double)bytes_of(c) / c->f.min_ns);
  if (has_base(c)) {
    snprintf(mc, sizeof mc, "%.2f", base_fig[c->base].min_ns);
    double r = ratio_of(c);
    if (r < 0.01)
      snprintf(ratio, sizeof ratio, "<0.01x");
    else
      snprintf(ratio, sizeof ratio, "%.2fx", r);
  }
  if (c->f.allocs_per_op != 0)
    snprintf(al, sizeof al, "%.3g", c->f.allocs_per_op);
  snprintf(line, sizeof line, "%-23s %-9s %7zu %7zu %10.2f %10.2f %7s %9s %7s %8s  %-14s %s",
           c->item, c->op, bytes_of(c), wire_of(c), c->f.min_ns, c->f.med_ns, gbs, mc, ratio, al,
           target_text(c->target), c->target == T_NONE ? "" : target_met(c) ? "pass" : "MISS");
  rstrip(line);
  fprintf(out, "%s\n", line);
}

/* The JSON's opening brace and its "machine" member. */
static void json_machine(FILE *j, const machine *m)
{
  fprintf(j, "{\n  \"machine\": {\"cpu\": ");
  bench_json_str(j, m->cpu);
  fprintf(j, ", \"cores_online\": %ld, \"cores_configured\": %ld, \"kernel\": ", m->cores_online,
          m->cores_conf);
  bench_json_str(j, m->kernel);
  fprintf(j, ", \"compiler\": ");
  bench_json_str(j, m->compiler);
  fprintf(j, ", \"build\": ");
  bench_json_str(j, m->build);
  fprintf(j, ", \"load_avg_1min\": %.2f},\n", m->load1);
}

static int write_json(FILE *j, const machine *m, double total_s)
{
  json_machine(j, m);
  fprintf(j, "  \"method\": {\"repeats\": %d, \"batch_ms\": %g, \"quick\": %s, "
          "\"clock\": \"CLOCK_MONOTONIC\", \"gb\": 1e9},\n",
          REPEATS, cfg.batch_ns / 1e6, cfg.quick ? "true" : "false");
  fprintf(j, "  \"composite_octets\": %zu,\n  \"memcpy\": [\n", G.msg[M_COMPOSITE].len);
  for (int b = 0; b < B_COUNT; b++) {
    const figure *f = &base_fig[b];
    fprintf(j, "    {\"bytes\": %zu, \"what\": ", baselines[b].size);
    bench_json_str(j, baselines[b].what);
    fprintf(j, ", \"ns_min\": %.4f, \"ns_median\": %.4f, \"gb_per_s\": %.4f, "
            "\"ops_per_batch\": %" PRIu64 "}%s\n",
            f->min_ns, f->med_ns, (double)baselines[b].size / f->min_ns, f->iters,
            b + 1 < B_COUNT ? "," : "");
  }
  fprintf(j, "  ],\n  \"results\": [\n");
  int met = 0, missed = 0;
  for (size_t k = 0; k < NCASES; k++) {
    const bcase *c = &cases[k];
    fprintf(j, "    {\"id\": \"%s\", \"item\": ", c->id);
    bench_json_str(j, c->item);
    fprintf(j, ", \"op\": \"%s\", \"bytes\": %zu, \"wire_bytes\": %zu, \"ns_min\": %.4f, "
            "\"ns_median\": %.4f, ",
            c->op, bytes_of(c), wire_of(c), c->f.min_ns, c->f.med_ns);
    if (has_rate(c))
      fprintf(j, "\"gb_per_s\": %.4f, ", (double)bytes_of(c) / c->f.min_ns);
    else
      fprintf(j, "\"gb_per_s\": null, ");
    if (has_base(c))
      fprintf(j, "\"memcpy_ns\": %.4f, \"ratio_to_memcpy\": %.4f, ", base_fig[c->base].min_ns,
              ratio_of(c));
    else
      fprintf(j, "\"memcpy_ns\": null, \"ratio_to_memcpy\": null, ");
    fprintf(j, "\"allocs_per_op\": %g, \"ops_per_batch\": %" PRIu64 ", ", c->f.allocs_per_op,
            c->f.iters);
    if (c->target == T_NONE) {
      fprintf(j, "\"target\": null, \"pass\": null}");
    } else {
      bool ok = target_met(c);
      ok ? met++ : missed++;
      fprintf(j, "\"target\": \"%s\", \"pass\": %s}", target_text(c->target),
              ok ? "true" : "false");
    }
    fprintf(j, "%s\n", k + 1 < NCASES ? "," : "");
  }
  fprintf(j, "  ],\n");
  write_json_graphs(j);
  graph_targets(&met, &missed);
  fprintf(j, "  \"targets\": {\"met\": %d, \"missed\": %d},\n", met, missed);
  fprintf(j, "  \"total_seconds\": %.2f\n}\n", total_s);
  return ferror(j) ? -1 : 0;
}

/* ---------------------------------------------------------------- threads (--threads) */

/* The thread sweep: the 50-node Node list, one message = a fresh-stream
 * encode and a decode (as a GIOP call's reply and next request), on N
 * threads at a time, in three passes:
 *   long  N long-lived threads: warm-up messages, then messages timed for
 *         about a batch each;
 *   task  a fresh thread per message, N at a time (thread per task: each
 *         thread's cache dies with it, and the shared pools must catch
 *         what it leaves), from the shared pools that the long-lived
 *         threads filled at their exit; each driver's first TASK_WARM
 *         tasks are warm-up;
 *   off   as long, with every pool off (per-thread and shared).
 * With --task-controls, three more passes take the gap between long and
 * task apart:
 *   long1  as long, each message timed alone (a task's one message carries
 *          a clock read that long's 16-message runs share);
 *   churn  as long1, and each thread creates and joins a thread that does
 *          nothing before each message (what a thread's creation and exit
 *          leave in the caches, without a fresh thread's own state);
 *   task2  as task, the task's second message timed (its first not): a
 *          fresh thread once it has run a message.
 * Messages are timed inside each thread (a thread's creation is not what is
 * measured).  Allocations are counted per thread by the process allocator
 * (thread-local counters: no shared line to measure), shared-pool hits by
 * cdr_pool_get_thread_stats(), both over the timed messages only. */

enum { TP_LONG, TP_TASK, TP_OFF, TP_COUNT, TP_LONG1 = TP_COUNT, TP_CHURN, TP_TASK2, TP_ALL };
static const char *const tpass_id[TP_ALL] = { "long", "task", "off", "long1", "churn", "task2" };
static const char *const tpass_name[TP_ALL] = { "long-lived threads", "thread per task",
                                                "pools off", "long, 1-msg runs",
                                                "long + thread churn", "task, 2nd message" };
#define MAX_SWEEP 16        /* thread counts in --threads */
#define MAX_SWEEP_THREADS 1024
#define TWARM_MSGS 64       /* a long-lived thread's warm-up */
#define TASK_MIN 100        /* tasks a driver times at least */
#define TASK_WARM 8         /* a driver's first tasks, not timed (the shared pools fill) */

static __thread uint64_t tl_allocs; /* allocator calls of this thread */

static void *tl_malloc(size_t n, void *ud)
{
  (void)ud;
  tl_allocs++;
  return malloc(n);
}
static void *tl_realloc(void *p, size_t n, void *ud)
{
  (void)ud;
  tl_allocs++;
  return realloc(p, n);
}
static void tl_free(void *p, void *ud)
{
  (void)ud;
  free(p);
}
static const cdr_allocator tl_alloc = { tl_malloc, tl_realloc, tl_free, NULL };

typedef struct tfig {
  uint64_t msgs, ns, allocs, hits[CDR_POOL_KINDS];
  unsigned errors;
  /* ns per message of each timed run (a task's message; 16 messages of a
   * long-lived thread), for the median */
  double *samples;
  size_t nsamples, cap;
  double median;
} tfig;

/* Record X in F's samples (dropped when memory runs out). */
static void tfig_sample(tfig *f, double x)
{
  if (f->nsamples == f->cap) {
    size_t ncap = f->cap ? 2 * f->cap : 1024;
    double *p = realloc(f->samples, ncap * sizeof *p);
    if (!p)
      return;
    f->samples = p;
    f->cap = ncap;
  }
  f->samples[f->nsamples++] = x;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct tresult {
  unsigned threads;
  tfig f[TP_ALL];
} tresult;

static struct {
  unsigned list[MAX_SWEEP];
  unsigned n;
  tresult r[MAX_SWEEP];
  double pass_ns;          /* how long a pass runs */
  bool controls;           /* --task-controls: passes TP_COUNT.. too */
} TS;

static void tfig_add(tfig *a, const tfig *b)
{
  a->msgs += b->msgs;
  a->ns += b->ns;
  a->allocs += b->allocs;
  a->errors += b->errors;
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    a->hits[k] += b->hits[k];
  for (size_t k = 0; k < b->nsamples; k++)
    tfig_sample(a, b->samples[k]);
}

/* One message of the 50-node list; 1 if a stream failed or the value read
 * back is not the list. */
static unsigned thread_msg(const glist *l, uint64_t *acc)
{
  cdr_out o;
  cdr_out_init(&o, &G.opts);
  int bad = cdr_put_value(&o, &Node_vt, l->head);
  *acc += cdr_out_size(&o);
  clobber();
  cdr_out_close(&o);
  cdr_in in;
  cdr_in_init(&in, l->msg.buf, l->msg.len, l->msg.order, &G.opts);
  cdr_arena *a = cdr_arena_get();
  cdr_in_set_arena(&in, a);
  void *v = NULL;
  bad |= cdr_get_value(&in, &Node_vt, &v);
  if (v)
    *acc += (uint32_t)((const Node *)v)->id;
  else
    bad = 1;
  cdr_in_close(&in);
  cdr_arena_put(a);
  return bad != 0;
}

/* Time MSGS messages (0: until DEADLINE) on the calling thread into F. */
static void thread_timed(const glist *l, uint64_t msgs, double deadline, tfig *f)
{
  cdr_pool_stats p0, p1;
  uint64_t acc = 0;
  cdr_pool_get_thread_stats(&p0);
  uint64_t a0 = tl_allocs, n = 0;
  double t0 = now_ns(), t1, tb = t0;
  for (;;) {
    uint64_t n0 = n;
    for (int k = 0; k < 16 && (msgs == 0 || n < msgs); k++, n++)
      f->errors += thread_msg(l, &acc);
    t1 = now_ns();
    tfig_sample(f, (t1 - tb) / (double)(n - n0));
    tb = t1;
    if (msgs ? n >= msgs : t1 >= deadline)
      break;
  }
  uint64_t a1 = tl_allocs;
  cdr_pool_get_thread_stats(&p1);
  f->msgs += n;
  f->ns += (uint64_t)(t1 - t0);
  f->allocs += a1 - a0;
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    f->hits[k] += p1.shared_hits[k] - p0.shared_hits[k];
  __atomic_add_fetch(&sink, acc, __ATOMIC_RELAXED); /* threads share it */
}

typedef struct tworker {
  pthread_t th;
  pthread_barrier_t *go;
  double deadline;
  int pass;
  bool warm;            /* task: this driver's first task is not counted */
  tfig f;
} tworker;

/* noinline: the passes that share it start in functions of their own, so
 * that a profile (callgrind --separate-callers) tells them apart. */
static __attribute__((noinline)) void *long_main(void *arg)
{
  tworker *w = arg;
  uint64_t acc = 0;
  for (int k = 0; k < TWARM_MSGS; k++)
    w->f.errors += thread_msg(gcur, &acc);
  __atomic_add_fetch(&sink, acc, __ATOMIC_RELAXED); /* threads share it */
  pthread_barrier_wait(w->go);
  thread_timed(gcur, 0, now_ns() + TS.pass_ns, &w->f);
  return NULL;
}

static void *off_main(void *arg)
{
  void *r = long_main(arg);
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a call, not a jump: a frame of its own */
  return r;
}

static void *nop_main(void *arg)
{
  return arg;
}

/* long1 and churn: messages timed one by one. */
static void *long1_main(void *arg)
{
  tworker *w = arg;
  uint64_t acc = 0;
  for (int k = 0; k < TWARM_MSGS; k++)
    w->f.errors += thread_msg(gcur, &acc);
  __atomic_add_fetch(&sink, acc, __ATOMIC_RELAXED); /* threads share it */
  pthread_barrier_wait(w->go);
  double deadline = now_ns() + TS.pass_ns;
  while (now_ns() < deadline || w->f.msgs < TASK_MIN) {
    if (w->pass == TP_CHURN) {
      pthread_t th;
      if (pthread_create(&th, NULL, nop_main, NULL) != 0) {
        w->f.errors++;
        break;
      }
      pthread_join(th, NULL);
    }
    thread_timed(gcur, 1, 0, &w->f);
  }
  return NULL;
}

static void *task_main(void *arg)
{
  tworker *w = arg;
  tfig f = { 0 };
  if (w->pass == TP_TASK2) { /* the first message, not timed */
    uint64_t acc = 0;
    f.errors += thread_msg(gcur, &acc);
    __atomic_add_fetch(&sink, acc, __ATOMIC_RELAXED);
  }
  thread_timed(gcur, 1, 0, &f);
  if (w->warm)
    w->f.errors += f.errors;
  else
    tfig_add(&w->f, &f);
  free(f.samples);
  return NULL;
}

/* A driver: a fresh thread per message until the deadline. */
static void *driver_main(void *arg)
{
  tworker *w = arg;
  pthread_barrier_wait(w->go);
  double deadline = now_ns() + TS.pass_ns;
  for (unsigned k = 0;; k++) {
    w->warm = k < TASK_WARM;
    if (!w->warm && now_ns() >= deadline && w->f.msgs >= TASK_MIN)
      break;
    pthread_t th;
    if (pthread_create(&th, NULL, task_main, w) != 0) {
      w->f.errors++;
      break;
    }
    pthread_join(th, NULL);
  }
  return NULL;
}

/* Every pool on (the defaults) or off; the pools flushed (the shared ones
 * too) when FLUSH. */
static void pools_set(bool off, bool flush)
{
  cdr_pool_config c;
  cdr_pool_config_default(&c);
  if (off) {
    c.buffers = c.arenas = c.value_states = 0;
    c.tables = 0;
    for (int k = 0; k < CDR_POOL_KINDS; k++)
      c.shared[k] = 0;
  }
  (void)cdr_pool_set_config(&c);
  if (flush) {
    cdr_pool_flush();
    cdr_pool_flush_shared();
  }
}

static int run_pass(int pass, unsigned n, tfig *out)
{
  tworker *w = calloc(n, sizeof *w);
  pthread_barrier_t go;
  if (!w || pthread_barrier_init(&go, NULL, n) != 0) {
    free(w);
    return fail("allocating the threads", CDR_E_NOMEM);
  }
  /* The task pass starts from the shared pools as the long-lived threads
   * left them at their exit (N objects of each kind: as many as N tasks at
   * a time need, so that the first tasks are steady state already). */
  bool task = pass == TP_TASK || pass == TP_TASK2;
  pools_set(pass == TP_OFF, !task);
  void *(*start)(void *) = task ? driver_main
                           : pass == TP_OFF ? off_main
                           : pass == TP_LONG ? long_main : long1_main;
  unsigned started = 0;
  int rc = 0;
  for (; started < n; started++) {
    w[started].go = &go;
    w[started].pass = pass;
    if (pthread_create(&w[started].th, NULL, start, &w[started]) != 0)
      break;
  }
  if (started < n) { /* the started ones wait at the barrier for good */
    fprintf(stderr, "cdr-bench: cannot start %u threads\n", n);
    exit(1);
  }
  memset(out, 0, sizeof *out);
  for (unsigned k = 0; k < n; k++) {
    pthread_join(w[k].th, NULL);
    tfig_add(out, &w[k].f);
    free(w[k].f.samples);
  }
  if (out->nsamples) {
    qsort(out->samples, out->nsamples, sizeof *out->samples, cmp_double);
    out->median = out->samples[out->nsamples / 2];
  }
  free(out->samples);
  out->samples = NULL;
  out->nsamples = out->cap = 0;
  pthread_barrier_destroy(&go);
  free(w);
  if (pass == TP_OFF)
    pools_set(false, true);
  if (out->errors) {
    fprintf(stderr, "cdr-bench: %u messages failed on %u threads (%s)\n", out->errors, n,
            tpass_id[pass]);
    rc = 1;
  }
  return rc;
}

static double t_ns(const tfig *f) { return f->msgs ? (double)f->ns / (double)f->msgs : 0; }
static double t_rate(const tfig *f, unsigned n) { return f->ns ? n * 1e9 / t_ns(f) : 0; }
static double t_per(const tfig *f, uint64_t v) { return f->msgs ? (double)v / f->msgs : 0; }
static uint64_t t_hits(const tfig *f)
{
  uint64_t h = 0;
  for (int k = 0; k < CDR_POOL_KINDS; k++)
    h += f->hits[k];
  return h;
}

static int run_threads(FILE *out)
{
  gcur = &glists[L_NODE_S];
  fprintf(out, "\nthreads: the %u-node Node list, one message = fresh-stream encode + decode "
          "(%u octets), timed inside each thread\n", gcur->nodes, (unsigned)gcur->msg.len);
  fprintf(out, "%7s  %-20s %10s %10s %14s %10s %11s %8s\n", "threads", "pass", "ns/msg p50",
          "mean", "msgs/s (all)", "alloc/msg", "shared/msg", "msgs");
  for (unsigned i = 0; i < TS.n; i++) {
    tresult *r = &TS.r[i];
    r->threads = TS.list[i];
    for (int p = 0; p < (TS.controls ? TP_ALL : TP_COUNT); p++) {
      if (run_pass(p, r->threads, &r->f[p]))
        return 1;
      const tfig *f = &r->f[p];
      fprintf(out, "%7u  %-20s %10.1f %10.1f %14.0f %10.3g %11.3g %8" PRIu64 "\n", r->threads,
              tpass_name[p], f->median, t_ns(f), t_rate(f, r->threads), t_per(f, f->allocs),
              t_per(f, t_hits(f)), f->msgs);
      fflush(out);
    }
    const tfig *lf = &r->f[TP_LONG], *tf = &r->f[TP_TASK];
    fprintf(out, "%7s  thread per task / long-lived: %.2fx the median time per message "
            "(%.2fx the mean)\n", "", tf->median / lf->median, t_ns(tf) / t_ns(lf));
    if (TS.controls)
      fprintf(out, "%7s  medians over long-lived: 1-msg runs %.2fx, thread churn %.2fx, "
              "task's 2nd message %.2fx\n", "", r->f[TP_LONG1].median / lf->median,
              r->f[TP_CHURN].median / lf->median, r->f[TP_TASK2].median / lf->median);
  }
  fprintf(out, "\nns/msg p50: the median ns per message of every timed run (a task's message; "
          "16 messages of a\nlong-lived thread), every thread's; mean: timed ns over timed "
          "messages; msgs/s (all): threads x 1e9 / mean;\nalloc/msg: allocator calls per message; shared/msg: "
          "objects taken from the shared pools per message\n(buffers, arenas, value states, "
          "table blocks).  %d CPUs online: past that, threads share them.\n",
          (int)sysconf(_SC_NPROCESSORS_ONLN));
  return 0;
}

static void write_json_threads(FILE *j, const machine *m, double total_s)
{
  json_machine(j, m);
  fprintf(j, "  \"threads\": {\n    \"list\": \"%s\", \"nodes\": %u, \"wire_bytes\": %zu, "
          "\"pass_ms\": %g,\n    \"message\": \"fresh-stream encode + decode\",\n"
          "    \"results\": [\n", glists[L_NODE_S].id, glists[L_NODE_S].nodes,
          glists[L_NODE_S].msg.len, TS.pass_ns / 1e6);
  static const char *const kind_id[CDR_POOL_KINDS] = { "buffers", "arenas", "value_states",
                                                       "table_blocks" };
  for (unsigned i = 0; i < TS.n; i++) {
    const tresult *r = &TS.r[i];
    fprintf(j, "      {\"threads\": %u", r->threads);
    for (int p = 0; p < (TS.controls ? TP_ALL : TP_COUNT); p++) {
      const tfig *f = &r->f[p];
      fprintf(j, ",\n       \"%s\": {\"ns_per_msg_per_thread\": %.1f, "
              "\"ns_per_msg_median\": %.1f, \"msgs_per_s\": %.0f, \"allocs_per_msg\": %g, "
              "\"shared_hits_per_msg\": %g, \"shared_hits_per_msg_by_kind\": {",
              tpass_id[p], t_ns(f), f->median, t_rate(f, r->threads), t_per(f, f->allocs),
              t_per(f, t_hits(f)));
      for (int k = 0; k < CDR_POOL_KINDS; k++)
        fprintf(j, "%s\"%s\": %g", k ? ", " : "", kind_id[k], t_per(f, f->hits[k]));
      fprintf(j, "}, \"msgs\": %" PRIu64 "}", f->msgs);
    }
    fprintf(j, ",\n       \"task_over_long_median\": %.4f, \"task_over_long_mean\": %.4f}%s\n",
            r->f[TP_TASK].median / r->f[TP_LONG].median,
            t_ns(&r->f[TP_TASK]) / t_ns(&r->f[TP_LONG]), i + 1 < TS.n ? "," : "");
  }
  fprintf(j, "    ]\n  },\n  \"total_seconds\": %.2f\n}\n", total_s);
}

/* The --threads run: the thread-local counting allocator is the process
 * allocator (before any other libcdr call), the 50-node list, the sweep. */
static int threads_main(FILE *json, const char *json_path, FILE *out, double t_start)
{
  cdr_mem_set_global(&tl_alloc);
  cdr_opts_default(&G.opts);
  G.table_cap = CDR_TABLES_DEFAULT_MAX_ENTRIES;
  if (graph_prepare(&glists[L_NODE_S]))
    return 1;
  machine mach;
  machine_get(&mach);
  print_machine(out, &mach, true);
  int status = run_threads(out);
  double total_s = (now_ns() - t_start) / 1e9;
  fprintf(out, "total run time: %.1f s\n", total_s);
  if (json && status == 0) {
    write_json_threads(json, &mach, total_s);
    if ((json != stdout ? fclose(json) : fflush(json)) != 0) {
      fprintf(stderr, "cdr-bench: writing %s failed\n", json_path);
      status = 1;
    }
  }
  cdr_pool_flush();
  cdr_pool_flush_shared();
  return status;
}

/* "1,2,4" into TS.list; false on anything else. */
static bool parse_thread_list(const char *s)
{
  TS.n = 0;
  while (*s) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || v == 0 || v > MAX_SWEEP_THREADS || TS.n == MAX_SWEEP)
      return false;
    TS.list[TS.n++] = (unsigned)v;
    if (*end == ',' && end[1])
      end++;
    else if (*end)
      return false;
    s = end;
  }
  return TS.n > 0;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
  fprintf(out,
          "usage: cdr-bench [--quick] [--table-cap N] [--threads LIST [--task-controls]]\n"
          "                 [--json FILE] [--help]\n"
          "\n"
          "Times libcdr writes and reads in process (no sockets) beside memcpy of the\n"
          "same sizes: a struct of 4 longs (hand-written calls and cdr_write/cdr_read),\n"
          "a double, a 16-char string, a 64-octet sequence, a 16-long sequence, all five\n"
          "as one 184-octet message, and 1 MiB octet and double sequences.  Then value\n"
          "graphs: lists of 50 and 10,000 valuetypes (Node, and a truncatable TruncNode)\n"
          "encoded and decoded with the indirection-table pool on and off.\n"
          "\n"
          "  --quick        short batches (~3 s in all instead of ~20-25 s)\n"
          "  --table-cap N  max entries of a pooled indirection table (default %u,\n"
          "                 the library's); larger tables are freed, not pooled\n"
          "  --threads LIST instead, the thread sweep: the 50-node list encoded and\n"
          "                 decoded on N threads for each N of LIST (e.g. 1,2,4,8,16),\n"
          "                 in three passes: long-lived threads, a fresh thread per\n"
          "                 message (thread per task), pools off; ns per message per\n"
          "                 thread, messages/s in all, allocations and shared-pool hits\n"
          "                 per message (~0.25 s a pass, 0.05 s with --quick)\n"
          "  --task-controls with --threads, three more passes that take the gap\n"
          "                 between long-lived threads and thread per task apart:\n"
          "                 long-lived with each message timed alone; the same with\n"
          "                 a thread created and joined before each message (thread\n"
          "                 churn: what creation and exit do to the caches); a fresh\n"
          "                 thread per message with its second message timed\n"
          "  --json FILE    also write the figures as JSON to FILE ('-': stdout, and\n"
          "                 the table goes to stderr)\n"
          "  --help         this text\n"
          "\n"
          "Exit status: 0 when the run completed, missed targets included; 1 when a\n"
          "stream failed or an encoding was wrong; 2 on a usage error.\n",
          CDR_TABLES_DEFAULT_MAX_ENTRIES);
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
    { "quick", no_argument, NULL, 'q' },
    { "json", required_argument, NULL, 'j' },
    { "table-cap", required_argument, NULL, 'c' },
    { "threads", required_argument, NULL, 't' },
    { "task-controls", no_argument, NULL, 'k' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *json_path = NULL;
  long long table_cap = -1;
  int ch;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (ch) {
    case 'q':
      cfg.quick = true;
      cfg.batch_ns = 10e6;
      cfg.calib_ns = 2e6;
      cfg.gbatch_ns = 5e6;
      cfg.gcalib_ns = 1e6;
      break;
    case 'c': {
      char *end;
      errno = 0;
      table_cap = strtoll(optarg, &end, 10);
      if (errno || end == optarg || *end || table_cap < 0 || table_cap > UINT32_MAX) {
        fprintf(stderr, "cdr-bench: --table-cap: '%s' is not a count of entries (0..%" PRIu32
                ")\nTry 'cdr-bench --help'.\n", optarg, UINT32_MAX);
        return 2;
      }
      break;
    }
    case 'j':
      json_path = optarg;
      break;
    case 't':
      if (!parse_thread_list(optarg)) {
        fprintf(stderr, "cdr-bench: --threads: '%s' is not a list of thread counts (1..%d, "
                "at most %d, e.g. 1,2,4)\nTry 'cdr-bench --help'.\n", optarg,
                MAX_SWEEP_THREADS, MAX_SWEEP);
        return 2;
      }
      break;
    case 'k':
      TS.controls = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      fprintf(stderr, "Try 'cdr-bench --help'.\n");
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "cdr-bench: unexpected argument '%s'\nTry 'cdr-bench --help'.\n",
            argv[optind]);
    return 2;
  }

  if (TS.controls && !TS.n) {
    fprintf(stderr, "cdr-bench: --task-controls needs --threads\nTry 'cdr-bench --help'.\n");
    return 2;
  }

  FILE *json = NULL, *out = stdout;
  if (json_path) {
    if (strcmp(json_path, "-") == 0) {
      json = stdout;
      out = stderr;
    } else if (!(json = fopen(json_path, "w"))) {
      fprintf(stderr, "cdr-bench: %s: %s\n", json_path, strerror(errno));
      return 1;
    }
  }

  double t_start = now_ns();
  if (TS.n) {
    TS.pass_ns = cfg.quick ? 50e6 : 250e6;
    return threads_main(json, json_path, out, t_start);
  }
  /* Before any other libcdr call, as cdr/mem.h requires. */
  cdr_mem_counter_init(&G.counter, NULL);
  cdr_mem_set_global(&G.counter.alloc);

  /* The receiver knows TruncNode.  This creates the global registry, which
   * stays allocated for good. */
  int rc = cdr_registry_add(cdr_registry_global(), &TruncNode_vt);
  if (rc != CDR_OK)
    return fail("cdr_registry_add(TruncNode)", rc);
  G.live_base = __atomic_load_n(&G.counter.live, __ATOMIC_RELAXED);
  cdr_tables_get_pool(NULL, &G.max_tables, NULL);
  G.table_cap = table_cap >= 0 ? (unsigned)table_cap : CDR_TABLES_DEFAULT_MAX_ENTRIES;
  if ((rc = cdr_tables_set_pool(1, G.max_tables, G.table_cap)) != CDR_OK)
    return fail("cdr_tables_set_pool", rc);

  cdr_opts_default(&G.opts);
  rc = cdr_out_init(&G.out, &G.opts);
  if (rc != CDR_OK)
    return fail("cdr_out_init", rc);
  cdr_arena_init(&G.arena, NULL);
  G.bulk_oct = malloc(BULK_BYTES);
  G.bulk_dbl = malloc(BULK_BYTES);
  G.mc_src = malloc(BULK_BYTES);
  G.mc_dst = malloc(BULK_BYTES);
  if (!G.bulk_oct || !G.bulk_dbl || !G.mc_src || !G.mc_dst)
    return fail("allocating test data", CDR_E_NOMEM);
  if (prepare())
    return 1;
  for (int k = 0; k < L_COUNT; k++)
    if (graph_prepare(&glists[k]))
      return 1;

  machine mach;
  machine_get(&mach);
  print_machine(out, &mach, false);
  fflush(out);

  /* Bring the core out of its idle state before the first figure. */
  G.mc_size = BULK_BYTES;
  for (double t_end = now_ns() + cfg.batch_ns; now_ns() < t_end;)
    sink += loop_memcpy(64);

  print_baseline_head(out);
  for (int b = 0; b < B_COUNT; b++) {
    G.mc_size = baselines[b].size;
    base_fig[b] = measure(loop_memcpy);
    print_baseline(out, b);
    fflush(out);
  }

  print_case_head(out);
  int met = 0, missed = 0;
  bool allocs = false;
  for (size_t k = 0; k < NCASES; k++) {
    bcase *c = &cases[k];
    c->f = measure(c->fn);
    print_case(out, c);
    fflush(out);
    if (c->target != T_NONE)
      target_met(c) ? met++ : missed++;
    allocs |= c->f.allocs_per_op != 0;
  }

  fprintf(out, "\nB: payload octets (GB/s = B / min time, 1 GB = 1e9 octets; ratio = min time / "
          "memcpy of B octets)\nwire B: the encoded message.  write: cdr_out_reset + encode "
          "into one reused stream.\nread: cdr_in_init + decode, copies in an arena reset per "
          "message; read view: zero-copy.\nalloc/op: allocator calls per op during the timed "
          "batches, after warm-up.\nempty: cdr_out_reset alone (write), cdr_in_init alone "
          "(read): the fixed cost in every row.\n");
  if (run_graphs(out))
    return 1;
  print_graph_notes(out);
  graph_targets(&met, &missed);

  fprintf(out, "\ntargets: %d met, %d missed", met, missed);
  const char *sep = ": ";
  for (size_t k = 0; k < NCASES; k++)
    if (cases[k].target != T_NONE && !target_met(&cases[k])) {
      fprintf(out, "%s%s %s (%.2f ns, %.2fx memcpy)", sep, cases[k].item, cases[k].op,
              cases[k].f.min_ns, ratio_of(&cases[k]));
      sep = "; ";
    }
  graph_list_misses(out, &sep);
  fprintf(out, "\nsteady state: %s\n",
          allocs ? "SOME OPS ALLOCATE (see alloc/op)" : "no allocation in any timed loop");
  fprintf(out, "value graphs, pool on: %s\n",
          graph_allocs_clean() ? "no allocation but table blocks over the cap"
                               : "SOME ROWS ALLOCATE MORE THAN THE CAP EXPLAINS (see alloc/msg)");

  int status = 0;
  if (G.loop_errors) {
    fprintf(stderr, "cdr-bench: %d timed loops saw a stream error\n", G.loop_errors);
    status = 1;
  }

  cdr_out_close(&G.out);
  cdr_arena_free(&G.arena);
  cdr_pool_flush();
  cdr_tables_flush_thread();
  cdr_tables_flush_shared();
  /* The descriptors' walk plans, from the counting allocator. */
  cdr_value_type_clear(&Node_vt);
  cdr_value_type_clear(&TruncNode_vt);
  int64_t live = __atomic_load_n(&G.counter.live, __ATOMIC_RELAXED) - G.live_base;
  if (live != 0) {
    fprintf(stderr, "cdr-bench: %" PRId64 " blocks still allocated after cleanup\n", live);
    status = 1;
  }
  cdr_mem_set_global(NULL);

  double total_s = (now_ns() - t_start) / 1e9;
  fprintf(out, "total run time: %.1f s\n", total_s);
  if (json) {
    int jr = write_json(json, &mach, total_s);
    if (json != stdout)
      jr |= fclose(json);
    if (jr) {
      fprintf(stderr, "cdr-bench: writing %s failed\n", json_path);
      status = 1;
    }
  }
  for (int k = 0; k < M_COUNT; k++)
    free(G.msg[k].buf);
  for (int k = 0; k < L_COUNT; k++) {
    free(glists[k].msg.buf);
    free(glists[k].mem);
  }
  free(G.bulk_oct);
  free(G.bulk_dbl);
  free(G.mc_src);
  free(G.mc_dst);
  return status;
}
