/* testutil.h - helpers shared by the Check suites: octet comparison with a
 * readable hex diff, big/little-endian stores for building expected octets,
 * a seeded PRNG, a monotonic clock and sleep in milliseconds, and what each
 * tests/check_*.c defines for the one main() in tests/runner.c
 * (tu_program).  Raw TCP peers and GIOP messages: tests/netutil.h; test
 * certificates: tests/tlsutil.h. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/codeset.h>
#include <cdr/stream.h>

/* What a failing octet comparison is about (set it before a batch of
 * checks; printed with the diff). */
static char tu_ctx[160] __attribute__((unused));
#define TU_CTX(...) snprintf(tu_ctx, sizeof tu_ctx, __VA_ARGS__)

/* The default options in BYTE_ORDER with the char code sets of PAIRING
 * (0..3: bit 0 native UTF-8, else ISO-8859-1; bit 1 transmission UTF-8,
 * else ISO-8859-1), named in tu_ctx. */
static inline cdr_opts tu_opts_pairing(int pairing, int byte_order)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)byte_order;
  op.ncs_c = pairing & 1 ? CDR_CS_UTF8 : CDR_CS_ISO8859_1;
  op.tcs_c = pairing & 2 ? CDR_CS_UTF8 : CDR_CS_ISO8859_1;
  TU_CTX("ncs %s tcs %s", cdr_codeset_name(op.ncs_c), cdr_codeset_name(op.tcs_c));
  return op;
}

/* "0a 1b .." for at most 64 octets of P into BUF (CAP >= 200). */
static inline const char *tu_hex(char *buf, size_t cap, const uint8_t *p, size_t n)
{
  size_t k = 0, q = 0;
  buf[0] = 0;
  for (; k < n && k < 64 && q + 4 < cap; k++)
    q += (size_t)snprintf(buf + q, cap - q, "%02x ", p[k]);
  if (k < n && q + 3 < cap)
    snprintf(buf + q, cap - q, "..");
  return buf;
}

static inline size_t tu_first_diff(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
  size_t k = 0;
  while (k < na && k < nb && a[k] == b[k])
    k++;
  return k;
}

/* Assert that GOT (GOTLEN octets) equals WANT (WANTLEN octets). */
#define TU_ASSERT_BYTES(got, gotlen, want, wantlen)                                   \
  do {                                                                                \
    const uint8_t *tu_g = (const uint8_t *)(got);                                     \
    const uint8_t *tu_w = (const uint8_t *)(want);                                    \
    size_t tu_gl = (gotlen), tu_wl = (wantlen);                                       \
    if (tu_gl != tu_wl || (tu_wl && memcmp(tu_g, tu_w, tu_wl) != 0)) {                \
      char tu_hg[256], tu_hw[256];                                                    \
      ck_abort_msg("%s: octets differ (got %zu, want %zu, first difference at %zu)\n" \
                   "  got:  %s\n  want: %s",                                          \
                   tu_ctx, tu_gl, tu_wl, tu_first_diff(tu_g, tu_gl, tu_w, tu_wl),             \
                   tu_hex(tu_hg, sizeof tu_hg, tu_g, tu_gl),                          \
                   tu_hex(tu_hw, sizeof tu_hw, tu_w, tu_wl));                         \
    }                                                                                 \
  } while (0)

/* Store the low N octets of V at P, most significant first (BE) or last. */
static inline void tu_store(uint8_t *p, uint64_t v, size_t n, int little)
{
  for (size_t k = 0; k < n; k++) {
    uint8_t b = (uint8_t)(v >> (8 * k));
    if (little)
      p[k] = b;
    else
      p[n - 1 - k] = b;
  }
}

/* A small octet buffer for building expected encodings. */
typedef struct tu_buf {
  uint8_t b[4096];
  size_t n;
} tu_buf;

static inline void tu_put(tu_buf *t, const void *p, size_t n)
{
  ck_assert_uint_le(t->n + n, sizeof t->b);
  memcpy(t->b + t->n, p, n);
  t->n += n;
}
static inline void tu_u8(tu_buf *t, uint8_t v) { tu_put(t, &v, 1); }
static inline void tu_pad(tu_buf *t, size_t origin, size_t align)
{
  while ((t->n - origin) % align)
    tu_u8(t, 0);
}
/* Align relative to ORIGIN, then store N octets of V. */
static inline void tu_num(tu_buf *t, size_t origin, uint64_t v, size_t n, int little)
{
  tu_pad(t, origin, n);
  ck_assert_uint_le(t->n + n, sizeof t->b);
  tu_store(t->b + t->n, v, n, little);
  t->n += n;
}

/* splitmix64: a seeded PRNG so that failures reproduce. */
typedef struct tu_rng {
  uint64_t s;
} tu_rng;
static inline uint64_t tu_next(tu_rng *r)
{
  uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}
/* Uniform in 0..N-1 (N > 0; the tiny modulo bias does not matter here). */
static inline uint64_t tu_below(tu_rng *r, uint64_t n) { return tu_next(r) % n; }

/* A heap copy of exactly N octets, so that AddressSanitizer catches any read
 * past the end of an input. */
static inline uint8_t *tu_dup(const void *p, size_t n)
{
  uint8_t *d = malloc(n ? n : 1);
  ck_assert_ptr_nonnull(d);
  if (n)
    memcpy(d, p, n);
  return d;
}

/* Milliseconds on CLOCK_MONOTONIC (for deadlines and elapsed times). */
static inline int64_t tu_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep MS milliseconds (resumed after a signal). */
static inline void tu_sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Each tests/check_*.c program defines one of these, named tu_prog, and
 * links tests/runner.c, which holds the one main(): setup (where given),
 * the suite, teardown (where given); the exit status is EXIT_SUCCESS only
 * when every test passed.  Check reads CK_FORK (no: every test in this
 * process), CK_DEFAULT_TIMEOUT, CK_RUN_SUITE, CK_RUN_CASE and CK_VERBOSITY
 * (silent, minimal, normal (the default), verbose) from the environment. */
typedef struct tu_program {
  Suite *(*suite)(void);  /* builds the program's suite */
  /* NULL, or run once in the main process before the suite is built and run
   * (before Check forks a test): nonzero ends the program with EXIT_FAILURE,
   * without running any test or the teardown. */
  int (*setup)(void);
  void (*teardown)(void); /* NULL, or run once after the last test */
} tu_program;
extern const tu_program tu_prog;

#endif
