/* check_frag.c - GIOP fragmentation and reassembly (iiop/frag.h): the exact
 * octets of fragments, round trips through every way of feeding (whole, one
 * octet at a time, random chunks, zero-copy reads), interleaved GIOP 1.2
 * requests, cancel, caps and allocation failures, and docs/hostile-input.md C11 and C13. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/frag.h>
#include "testutil.h"

/* ---------------------------------------------------------------- helpers */

/* A counting allocator that also records the largest single request. */
typedef struct track {
  cdr_allocator alloc;
  cdr_mem_counter c;
  size_t largest;
} track;

static void *tr_malloc(size_t n, void *ud)
{
  track *t = ud;
  if (n > t->largest)
    t->largest = n;
  return t->c.alloc.malloc(n, t->c.alloc.ud);
}
static void *tr_realloc(void *p, size_t n, void *ud)
{
  track *t = ud;
  if (n > t->largest)
    t->largest = n;
  return t->c.alloc.realloc(p, n, t->c.alloc.ud);
}
static void tr_free(void *p, void *ud)
{
  track *t = ud;
  t->c.alloc.free(p, t->c.alloc.ud);
}
static void track_init(track *t)
{
  cdr_mem_counter_init(&t->c, NULL);
  t->alloc.malloc = tr_malloc;
  t->alloc.realloc = tr_realloc;
  t->alloc.free = tr_free;
  t->alloc.ud = t;
  t->largest = 0;
}

static giop_reasm *reasm_new(const cdr_allocator *a, size_t max_message, uint32_t max_pending)
{
  giop_reasm_opts o;
  giop_reasm_opts_default(&o);
  o.alloc = a;
  if (max_message)
    o.max_message = max_message;
  if (max_pending)
    o.max_pending = max_pending;
  giop_reasm *r = giop_reasm_new(&o);
  ck_assert_ptr_nonnull(r);
  return r;
}

/* An assertion for hot loops: Check's own ones report every success to the
 * parent process (one write each), which is slow by the million. */
#define HOT(cond)                                                           \
  do {                                                                      \
    if (!(cond))                                                            \
      ck_abort_msg("%s:%d: %s (%s)", __FILE__, __LINE__, #cond, tu_ctx);    \
  } while (0)

static void put32(uint8_t *p, uint32_t v, int little) { tu_store(p, v, 4, little); }

/* A complete message: 12-octet header, then BODY octets (for GIOP 1.2 the
 * request ID first, the rest pseudo-random).  Heap copy of exact size. */
static uint8_t *make_msg(int minor, int little, int type, size_t body, uint32_t id, uint64_t seed,
                         size_t *len)
{
  uint8_t *m = malloc(12 + body + 1);
  ck_assert_ptr_nonnull(m);
  giop_header h = { 1, (uint8_t)minor, (uint8_t)(little ? 1 : 0), (uint8_t)type, (uint32_t)body };
  ck_assert_int_eq(giop_header_write(&h, m), CDR_OK);
  tu_rng rng = { seed };
  for (size_t k = 0; k < body; k++)
    m[12 + k] = (uint8_t)tu_next(&rng);
  if (body >= 4)
    put32(m + 12, id, little);
  *len = 12 + body;
  return m;
}

/* A growable octet buffer for fragment streams. */
typedef struct obuf {
  uint8_t *b;
  size_t n, cap;
} obuf;

static void ob_put(obuf *o, const void *p, size_t n)
{
  if (o->n + n > o->cap) {
    size_t c = o->cap ? o->cap : 4096;
    while (c < o->n + n)
      c *= 2;
    o->b = realloc(o->b, c);
    ck_assert_ptr_nonnull(o->b);
    o->cap = c;
  }
  memcpy(o->b + o->n, p, n);
  o->n += n;
}

/* Where each fragment message lies in a stream. */
typedef struct fraglist {
  size_t off[4096], len[4096];
  size_t n;
} fraglist;

/* Fragment MSG with the library and append the fragment messages to OUT,
 * checking what frag.h promises about each. */
static void fragment_into(obuf *out, const uint8_t *msg, size_t len, size_t fs, uint32_t id,
                          fraglist *fl)
{
  giop_fragmenter f;
  ck_assert_int_eq(giop_fragmenter_init(&f, msg, len, fs, id), CDR_OK);
  size_t eff = fs ? fs & ~(size_t)7 : GIOP_FRAG_DEFAULT;
  if (eff < GIOP_FRAG_MIN)
    eff = GIOP_FRAG_MIN;
  int minor = msg[5], little = msg[6] & 1;
  struct iovec iov[2];
  int n, count = 0;
  size_t data_pos = 12;   /* message coordinate of the next data octet */
  bool saw_last = false;
  while (giop_fragmenter_next(&f, iov, &n)) {
    HOT(!saw_last);
    HOT(n == 1 || n == 2);
    size_t start = out->n, total = 0;
    for (int k = 0; k < n; k++) {
      ob_put(out, iov[k].iov_base, iov[k].iov_len);
      total += iov[k].iov_len;
    }
    if (fl) {
      HOT((fl->n) < (4096));
      fl->off[fl->n] = start;
      fl->len[fl->n++] = total;
    }
    const uint8_t *fm = out->b + start;
    giop_header h;
    HOT((giop_header_parse(fm, total, &h)) == (CDR_OK));
    HOT((h.size + 12) == (total));
    HOT((h.flags & 1) == (little));
    HOT((h.minor) == (minor));
    bool more = h.flags & GIOP_FLAG_MORE_FRAGMENTS;
    if (count == 0 && n == 1) {
      /* whole and unchanged, from MSG itself (no copy) */
      HOT((iov[0].iov_base) == (msg));
      HOT((len) <= (eff));
      HOT(!more);
      saw_last = true;
    } else {
      HOT((total) <= (eff));
      /* the data iovec points into MSG: no copy */
      HOT((iov[1].iov_base) == (msg + data_pos));
      size_t hl = count == 0 ? 12 : (minor == 2 ? 16 : 12);
      HOT((iov[0].iov_len) == (hl));
      HOT((h.type) == (count == 0 ? msg[7] : GIOP_FRAGMENT));
      if (count > 0 && minor == 2) {
        uint32_t got = little ? (uint32_t)fm[12] | (uint32_t)fm[13] << 8 | (uint32_t)fm[14] << 16
                                    | (uint32_t)fm[15] << 24
                              : (uint32_t)fm[15] | (uint32_t)fm[14] << 8 | (uint32_t)fm[13] << 16
                                    | (uint32_t)fm[12] << 24;
        HOT((got) == (id));
      }
      data_pos += iov[1].iov_len;
      if (more) {
        /* 1.2: splits at multiples of 8; 1.1: at 4 mod 8 (see frag.c) */
        HOT((total % 8) == (minor == 2 ? 0 : 4));
        HOT((data_pos % 8) == (minor == 2 ? 0 : 4));
      } else {
        saw_last = true;
        HOT((data_pos) == (len));
      }
    }
    count++;
  }
  ck_assert(saw_last);
  ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 0);
  ck_assert_int_eq(n, 0);
}

enum { FEED_WHOLE, FEED_BYTES, FEED_RANDOM, FEED_ZC, FEED_ZC_BYTES, FEED_MODES };

/* Feed N octets at P in MODE; returns the first error (or CDR_OK). */
static int feed_mode(giop_reasm *r, const uint8_t *p, size_t n, int mode, tu_rng *rng)
{
  size_t off = 0;
  int rc = CDR_OK;
  while (off < n && rc == CDR_OK) {
    size_t k = n - off;
    if (mode == FEED_BYTES || mode == FEED_ZC_BYTES)
      k = 1;
    else if (mode == FEED_RANDOM || mode == FEED_ZC) {
      size_t lim = tu_below(rng, 4) == 0 ? 17 : 70000;
      size_t c = 1 + (size_t)tu_below(rng, lim);
      if (c < k)
        k = c;
    }
    if (mode == FEED_ZC || mode == FEED_ZC_BYTES) {
      uint8_t *b;
      size_t room;
      rc = giop_reasm_buffer(r, &b, &room);
      if (rc != CDR_OK)
        break;
      HOT(room >= 1);
      if (k > room)
        k = room;
      memcpy(b, p + off, k);
      rc = giop_reasm_commit(r, k);
    } else {
      rc = giop_reasm_feed(r, p + off, k);
    }
    off += k;
  }
  return rc;
}

/* The next complete message must equal WANT; released afterwards. */
static void expect_msg(giop_reasm *r, const uint8_t *want, size_t wlen)
{
  uint8_t *m;
  size_t l;
  ck_assert_msg(giop_reasm_next(r, &m, &l) == 1, "%s: no message", tu_ctx);
  TU_ASSERT_BYTES(m, l, want, wlen);
  giop_reasm_release(r, m);
}

/* ---------------------------------------------------------------- fragmenter: exact octets */

/* A ulong with no alignment (the buffer holds several messages). */
static void u32(tu_buf *t, uint32_t v, int little)
{
  uint8_t b[4];
  put32(b, v, little);
  tu_put(t, b, 4);
}

static void hdr(tu_buf *t, int minor, int flags, int type, uint32_t size, int little)
{
  const uint8_t g[8] = { 'G', 'I', 'O', 'P', 1, (uint8_t)minor, (uint8_t)flags, (uint8_t)type };
  tu_put(t, g, 8);
  u32(t, size, little);
}

START_TEST(test_fragment_exact_12)
{
  for (int little = 0; little <= 1; little++) {
    size_t len;
    uint8_t *m = make_msg(2, little, GIOP_REQUEST, 150, 0x0A0B0C0Du, 1, &len);
    ck_assert_uint_eq(len, 162);
    /* FRAG_SIZE 64: first message 64 (size 52), Fragments of 16 + 48 (size
     * 52), then 16 + 2 (size 6) without the flag. */
    tu_buf w = { .n = 0 };
    hdr(&w, 2, little | 2, GIOP_REQUEST, 52, little);
    tu_put(&w, m + 12, 52);
    hdr(&w, 2, little | 2, GIOP_FRAGMENT, 52, little);
    u32(&w, 0x0A0B0C0Du, little);
    tu_put(&w, m + 64, 48);
    hdr(&w, 2, little | 2, GIOP_FRAGMENT, 52, little);
    u32(&w, 0x0A0B0C0Du, little);
    tu_put(&w, m + 112, 48);
    hdr(&w, 2, little, GIOP_FRAGMENT, 6, little);
    u32(&w, 0x0A0B0C0Du, little);
    tu_put(&w, m + 160, 2);
    ck_assert_uint_eq(w.n, 64 + 64 + 64 + 18);
    obuf o = { 0 };
    fraglist fl = { .n = 0 };
    fragment_into(&o, m, len, 64, 0x0A0B0C0Du, &fl);
    TU_CTX("GIOP 1.2 fragments, little=%d", little);
    TU_ASSERT_BYTES(o.b, o.n, w.b, w.n);
    ck_assert_uint_eq(fl.n, 4);
    /* the message itself is untouched */
    ck_assert_int_eq(m[6], little);
    ck_assert_uint_eq(m[little ? 8 : 11], 150);
    free(o.b);
    free(m);
  }
}
END_TEST

START_TEST(test_fragment_exact_11)
{
  for (int little = 0; little <= 1; little++) {
    size_t len;
    uint8_t *m = make_msg(1, little, GIOP_REPLY, 150, 0, 2, &len);
    /* FRAG_SIZE 64, GIOP 1.1: first message 60 (size 48), Fragments of
     * 12 + 48, then 12 + 6 without the flag; no request IDs. */
    tu_buf w = { .n = 0 };
    hdr(&w, 1, little | 2, GIOP_REPLY, 48, little);
    tu_put(&w, m + 12, 48);
    hdr(&w, 1, little | 2, GIOP_FRAGMENT, 48, little);
    tu_put(&w, m + 60, 48);
    hdr(&w, 1, little | 2, GIOP_FRAGMENT, 48, little);
    tu_put(&w, m + 108, 48);
    hdr(&w, 1, little, GIOP_FRAGMENT, 6, little);
    tu_put(&w, m + 156, 6);
    obuf o = { 0 };
    fragment_into(&o, m, len, 64, 0, NULL);
    TU_CTX("GIOP 1.1 fragments, little=%d", little);
    TU_ASSERT_BYTES(o.b, o.n, w.b, w.n);
    free(o.b);
    free(m);
  }
}
END_TEST

START_TEST(test_fragment_whole_and_sizes)
{
  size_t len;
  uint8_t *m = make_msg(2, 1, GIOP_REPLY, 52, 9, 3, &len);   /* 64 octets */
  giop_fragmenter f;
  struct iovec iov[2];
  int n;
  ck_assert_int_eq(giop_fragmenter_init(&f, m, len, 64, 9), CDR_OK);
  ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 1);
  ck_assert_int_eq(n, 1);
  ck_assert_ptr_eq(iov[0].iov_base, m);
  ck_assert_uint_eq(iov[0].iov_len, 64);
  ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 0);
  ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 0);
  free(m);

  /* FRAG_SIZE rounding: 100 -> 96, 10 -> 64, 0 -> 8192 */
  static const size_t asked[] = { 100, 10, 0, 8199 };
  static const size_t first[] = { 96, 64, 8192, 8192 };
  for (size_t k = 0; k < 4; k++) {
    m = make_msg(2, 0, GIOP_REQUEST, 20000, 1, 4, &len);
    ck_assert_int_eq(giop_fragmenter_init(&f, m, len, asked[k], 1), CDR_OK);
    ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 1);
    ck_assert_uint_eq(iov[0].iov_len + iov[1].iov_len, first[k]);
    ck_assert_int_eq(giop_fragmenter_next(&f, iov, &n), 1);
    ck_assert_uint_eq(iov[0].iov_len + iov[1].iov_len, first[k]);
    free(m);
  }
}
END_TEST


/* giop_fragmenter_nextv over a message in pieces gives the octets
 * giop_fragmenter_next gives over the same message whole, fragment for
 * fragment, the data pointing into the pieces. */
START_TEST(test_fragment_pieces_same_octets)
{
  static const size_t bodies[] = { 40, 1000, 5000, 70000 };
  static const size_t sizes[] = { 64, 1024, 8192, 0 };
  for (int minor = 1; minor <= 2; minor++)
    for (size_t bi = 0; bi < sizeof bodies / sizeof bodies[0]; bi++)
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t len;
        uint8_t *m = make_msg(minor, (int)(bi & 1), GIOP_REPLY, bodies[bi], 5, bi * 7 + si, &len);
        /* Pieces: the header and a little, then cuts at odd places. */
        size_t cuts[] = { 20, len / 3 + 1, len / 2 + 3, len - 1, len };
        struct iovec seg[5];
        int ns = 0;
        size_t at = 0;
        for (int k = 0; k < 5; k++) {
          size_t c = cuts[k] < len ? cuts[k] : len;
          if (c <= at)
            continue;
          seg[ns].iov_base = m + at;
          seg[ns].iov_len = c - at;
          ns++;
          at = c;
        }
        giop_fragmenter f, g;
        ck_assert_int_eq(giop_fragmenter_init(&f, m, len, sizes[si], 5), CDR_OK);
        ck_assert_int_eq(giop_fragmenter_init_iov(&g, seg, ns, len, sizes[si], 5), CDR_OK);
        struct iovec a[2], b[8];
        int na, nb;
        for (;;) {
          int ra = giop_fragmenter_next(&f, a, &na);
          ck_assert_int_eq(giop_fragmenter_nextv(&g, b, ns, &nb), CDR_E_INVALID);
          int rb = giop_fragmenter_nextv(&g, b, 8, &nb);
          ck_assert_int_eq(ra, rb);
          if (!ra)
            break;
          obuf oa = { 0 }, ob = { 0 };
          for (int k = 0; k < na; k++)
            ob_put(&oa, a[k].iov_base, a[k].iov_len);
          for (int k = 0; k < nb; k++) {
            ob_put(&ob, b[k].iov_base, b[k].iov_len);
            /* Data entries point into the message (the pieces are in M). */
            if (b[k].iov_base != (void *)g.hdr)
              ck_assert(b[k].iov_base >= (void *)m && (uint8_t *)b[k].iov_base < m + len);
          }
          TU_ASSERT_BYTES(ob.b, ob.n, oa.b, oa.n);
          free(oa.b);
          free(ob.b);
        }
        free(m);
      }
  /* Pieces that do not add up, a first piece without the whole header. */
  uint8_t h[64] = { 0 };
  size_t len;
  uint8_t *m = make_msg(2, 0, GIOP_REPLY, 52, 5, 1, &len);
  memcpy(h, m, len);
  free(m);
  giop_fragmenter f;
  struct iovec seg[2] = { { h, 10 }, { h + 10, 54 } };
  ck_assert_int_eq(giop_fragmenter_init_iov(&f, seg, 2, 64, 64, 5), CDR_E_INVALID);
  seg[0].iov_len = 12;
  seg[1].iov_base = h + 12;
  seg[1].iov_len = 51;
  ck_assert_int_eq(giop_fragmenter_init_iov(&f, seg, 2, 64, 64, 5), CDR_E_INVALID);
  seg[1].iov_len = 52;
  ck_assert_int_eq(giop_fragmenter_init_iov(&f, seg, 2, 64, 64, 5), CDR_OK);
}
END_TEST


/* Octets that cannot begin "GIOP" are refused as soon as they are seen,
 * whether the header arrives in one piece or a few octets at a time
 * (tests/fuzz/fuzz_frag: the two used to differ). */
START_TEST(test_reasm_bad_magic_in_pieces)
{
  static const uint8_t bad[11] = { 'G', 'I', 'O', 8, 0, 8, 0, 0, 0, 0, 0 };
  giop_reasm *r = giop_reasm_new(NULL);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(giop_reasm_feed(r, bad, sizeof bad), CDR_E_PROTOCOL);
  giop_reasm_free(r);
  for (size_t cut = 1; cut < 4; cut++) {
    r = giop_reasm_new(NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(giop_reasm_feed(r, bad, cut), CDR_OK);   /* "G", "GI", "GIO": may begin it */
    ck_assert_int_eq(giop_reasm_feed(r, bad + cut, sizeof bad - cut), CDR_E_PROTOCOL);
    giop_reasm_free(r);
  }
  /* The same through giop_reasm_buffer()/commit(). */
  r = giop_reasm_new(NULL);
  ck_assert_ptr_nonnull(r);
  for (size_t k = 0; k < 3; k++) {
    uint8_t *b;
    size_t room;
    ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
    b[0] = bad[k];
    ck_assert_int_eq(giop_reasm_commit(r, 1), CDR_OK);
  }
  uint8_t *b;
  size_t room;
  ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
  b[0] = bad[3];
  ck_assert_int_eq(giop_reasm_commit(r, 1), CDR_E_PROTOCOL);
  giop_reasm_free(r);
}
END_TEST

/* giop_reasm_error_minor(): the version to answer a refused header in, fed
 * whole, in two pieces (6 octets, then the rest) and through
 * giop_reasm_buffer()/commit(); -1 before any error, for a body-level or
 * limit error, and where the octets give no version.  giop_reasm_error_text()
 * of each: the same words whichever way the octets came. */
START_TEST(test_reasm_error_minor)
{
  static const struct {
    uint8_t h[16];
    size_t n;
    int rc, minor;
    const char *text;
  } c[] = {
    { { 'G', 'I', 'O', 'P', 1, 0, 1, GIOP_FRAGMENT, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 0,
      "a malformed GIOP 1.0 message (type 7, flags 0x01)" },
    { { 'G', 'I', 'O', 'P', 1, 0, 1, 8, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 0,
      "a malformed GIOP 1.0 message (type 8, flags 0x01)" },
    { { 'G', 'I', 'O', 'P', 1, 0, 2, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 0,
      "a malformed GIOP 1.0 message (type 0, flags 0x02)" },
    { { 'G', 'I', 'O', 'P', 1, 1, 3, GIOP_LOCATE_REQUEST, 8, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 1,
      "a malformed GIOP 1.1 message (type 3, flags 0x03)" },
    { { 'G', 'I', 'O', 'P', 1, 1, 1, GIOP_FRAGMENT, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 1,
      "a malformed GIOP 1.1 message (type 7, flags 0x01)" },
    /* a 1.2 Fragment for no pending message (refused past the header) */
    { { 'G', 'I', 'O', 'P', 1, 2, 1, GIOP_FRAGMENT, 4, 0, 0, 0, 9, 0, 0, 0 }, 16, CDR_E_PROTOCOL, 2,
      "a malformed GIOP 1.2 message (type 7, flags 0x01)" },
    { { 'G', 'I', 'O', 'P', 1, 2, 1, 8, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 2,
      "a malformed GIOP 1.2 message (type 8, flags 0x01)" },
    { { 'G', 'I', 'O', 'P', 1, 3, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 2,
      "GIOP 1.3, a version this ORB does not speak" },
    { { 'G', 'I', 'O', 'P', 1, 255, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 2,
      "GIOP 1.255, a version this ORB does not speak" },
    { { 'G', 'I', 'O', 'P', 2, 0, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, 2,
      "GIOP 2.0, a version this ORB does not speak" },
    { { 'G', 'I', 'O', 'P', 0, 9, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, -1,
      "GIOP 0.9, a version this ORB does not speak" },
    { { 'G', 'I', 'O', 'X', 1, 0, 1, GIOP_REQUEST, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, -1,
      "not GIOP: the stream begins 47 49 4f 58 (\"GIOX\")" },
    { { 0x16, 0x03, 0x01, 0x02, 0, 1, 0, 0, 0, 0, 0, 0 }, 12, CDR_E_PROTOCOL, -1,
      "not GIOP: the stream begins 16 03 01 02" }, /* a TLS ClientHello: no text shown */
    /* over max_message: a limit, not a malformed header */
    { { 'G', 'I', 'O', 'P', 1, 0, 1, GIOP_REQUEST, 0, 0, 0, 0x7f }, 12, CDR_E_LIMIT, -1,
      "a GIOP message of 2130706444 octets, over the limit of 67108864" },
    /* a good header: no error */
    { { 'G', 'I', 'O', 'P', 1, 0, 1, GIOP_REQUEST, 4, 0, 0, 0 }, 12, CDR_OK, -1, "" },
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    for (int way = 0; way < 3; way++) {
      giop_reasm *r = giop_reasm_new(NULL);
      ck_assert_ptr_nonnull(r);
      ck_assert_int_eq(giop_reasm_error_minor(r), -1);
      int rc;
      if (way == 0) {
        rc = giop_reasm_feed(r, c[k].h, c[k].n);
      } else if (way == 1) {
        rc = giop_reasm_feed(r, c[k].h, 6);
        if (rc == CDR_OK)
          rc = giop_reasm_feed(r, c[k].h + 6, c[k].n - 6);
      } else {
        uint8_t *b;
        size_t room;
        ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
        ck_assert_uint_ge(room, c[k].n);
        memcpy(b, c[k].h, c[k].n);
        rc = giop_reasm_commit(r, c[k].n);
      }
      ck_assert_msg(rc == c[k].rc && giop_reasm_error_minor(r) == c[k].minor,
                    "case %zu way %d: rc %d minor %d, want %d %d", k, way, rc,
                    giop_reasm_error_minor(r), c[k].rc, c[k].minor);
      char t[GIOP_REASM_TEXT_MAX];
      ck_assert_uint_eq(giop_reasm_error_text(r, t, sizeof t), strlen(c[k].text));
      ck_assert_msg(!strcmp(t, c[k].text), "case %zu way %d: \"%s\", want \"%s\"", k, way, t,
                    c[k].text);
      giop_reasm_free(r);
    }
  }
  ck_assert_int_eq(giop_reasm_error_minor(NULL), -1);
  ck_assert_uint_eq(giop_reasm_error_text(NULL, NULL, 0), 0);

  /* fewer than 4 octets that cannot begin "GIOP"; a text cut to CAP */
  giop_reasm *r = giop_reasm_new(NULL);
  ck_assert_int_eq(giop_reasm_feed(r, "GX", 2), CDR_E_PROTOCOL);
  char t[GIOP_REASM_TEXT_MAX];
  ck_assert_uint_eq(giop_reasm_error_text(r, t, sizeof t), 40);
  ck_assert_str_eq(t, "not GIOP: the stream begins 47 58 (\"GX\")");
  ck_assert_uint_eq(giop_reasm_error_text(r, t, 9), 40);
  ck_assert_str_eq(t, "not GIOP");
  giop_reasm_free(r);

  /* a fragmented message over max_fragmented: a 1.2 Request of 1016 octets
   * that says more come, then a Fragment of 112 past the 1024 allowed */
  giop_reasm_opts o;
  giop_reasm_opts_default(&o);
  o.max_fragmented = 1024;
  r = giop_reasm_new(&o);
  uint8_t m[1016 + 112];
  memset(m, 0, sizeof m);
  static const uint8_t first[12] = { 'G', 'I', 'O', 'P', 1, 2, 3, GIOP_REQUEST, 0xec, 3, 0, 0 };
  static const uint8_t frag[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, GIOP_FRAGMENT, 100, 0, 0, 0 };
  memcpy(m, first, 12);
  m[12] = 5;                           /* request ID 5, in both */
  memcpy(m + 1016, frag, 12);
  m[1016 + 12] = 5;
  ck_assert_int_eq(giop_reasm_feed(r, m, 1016), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, m + 1016, 112), CDR_E_LIMIT);
  ck_assert_uint_eq(giop_reasm_error_text(r, t, sizeof t), 55);
  ck_assert_str_eq(t, "a fragmented GIOP message over the limit of 1024 octets");
  giop_reasm_free(r);
}
END_TEST

/* Large fragments read as a socket delivers them (every read fills the
 * room the reassembler offers: a fragment's header alone, its body with
 * the next header, a message start sized by the last fragmented message)
 * and in random pieces: the messages come out octet for octet, in GIOP
 * 1.1 and 1.2, mixed with small ones and with fragments of another size. */
START_TEST(test_reasm_large_fragments_as_read)
{
  static const size_t fsz[] = { 4096, 8192, 16384 };
  for (int minor = 1; minor <= 2; minor++)
    for (size_t fi = 0; fi < 3; fi++) {
      size_t la, lb, lc, ld;
      uint8_t *a = make_msg(minor, 1, GIOP_REQUEST, 70000, 21, 5 + fi, &la);
      uint8_t *b = make_msg(minor, 1, GIOP_REQUEST, 40, 22, 6, &lb);
      uint8_t *c = make_msg(minor, 0, GIOP_REPLY, 30001, 23, 7, &lc);
      uint8_t *d = make_msg(minor, 1, GIOP_REQUEST, 9000, 24, 8, &ld);
      obuf o = { 0 };
      fragment_into(&o, a, la, fsz[fi], 21, NULL);
      ob_put(&o, b, lb);
      fragment_into(&o, c, lc, 4096, 23, NULL);
      fragment_into(&o, a, la, fsz[fi], 21, NULL);
      fragment_into(&o, d, ld, 1024, 24, NULL);
      fragment_into(&o, a, la, fsz[fi], 21, NULL);
      for (int mode = 0; mode < 2; mode++) {
        tu_rng rng = { 99 + fi };
        giop_reasm *r = giop_reasm_new(NULL);
        ck_assert_ptr_nonnull(r);
        int rc;
        if (mode == 0) {
          size_t off = 0;
          rc = CDR_OK;
          while (off < o.n && rc == CDR_OK) {
            uint8_t *p;
            size_t room;
            rc = giop_reasm_buffer(r, &p, &room);
            ck_assert_int_eq(rc, CDR_OK);
            size_t k = room < o.n - off ? room : o.n - off;
            memcpy(p, o.b + off, k);
            off += k;
            rc = giop_reasm_commit(r, k);
          }
        } else {
          rc = feed_mode(r, o.b, o.n, FEED_ZC, &rng);
        }
        ck_assert_int_eq(rc, CDR_OK);
        expect_msg(r, a, la);
        expect_msg(r, b, lb);
        expect_msg(r, c, lc);
        expect_msg(r, a, la);
        expect_msg(r, d, ld);
        expect_msg(r, a, la);
        uint8_t *m;
        size_t ml;
        ck_assert_int_eq(giop_reasm_next(r, &m, &ml), 0);
        ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
        giop_reasm_free(r);
      }
      free(o.b);
      free(a);
      free(b);
      free(c);
      free(d);
    }
}
END_TEST

START_TEST(test_fragment_init_errors)
{
  giop_fragmenter f;
  memset(&f, 0x5A, sizeof f);
  size_t len;
  uint8_t *m = make_msg(2, 1, GIOP_REQUEST, 100, 1, 5, &len);
  ck_assert_int_eq(giop_fragmenter_init(&f, m, 11, 64, 1), CDR_E_INVALID);
  ck_assert_int_eq(giop_fragmenter_init(&f, m, len - 1, 64, 1), CDR_E_PROTOCOL);
  ck_assert_int_eq(giop_fragmenter_init(&f, m, len + 1, 64, 1), CDR_E_PROTOCOL);
  ck_assert_uint_eq(f.len, 0x5A5A5A5A5A5A5A5Aull);   /* untouched on error */
  m[6] |= GIOP_FLAG_MORE_FRAGMENTS;                  /* already a fragment */
  ck_assert_int_eq(giop_fragmenter_init(&f, m, len, 64, 1), CDR_E_INVALID);
  m[6] = 1;
  m[0] = 'X';
  ck_assert_int_eq(giop_fragmenter_init(&f, m, len, 64, 1), CDR_E_INVALID);
  free(m);
  static const struct { int minor, type, ok; } c[] = {
    { 0, GIOP_REQUEST, 0 },          /* 1.0 has no fragments */
    { 1, GIOP_REQUEST, 1 },        { 1, GIOP_REPLY, 1 },
    { 1, GIOP_LOCATE_REQUEST, 0 }, { 1, GIOP_LOCATE_REPLY, 0 },
    { 2, GIOP_LOCATE_REQUEST, 1 }, { 2, GIOP_LOCATE_REPLY, 1 },
    { 2, GIOP_CANCEL_REQUEST, 0 }, { 2, GIOP_CLOSE_CONNECTION, 0 },
    { 2, GIOP_MESSAGE_ERROR, 0 },  { 2, GIOP_FRAGMENT, 0 },
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    m = make_msg(c[k].minor, 0, c[k].type, 100, 1, 6, &len);
    ck_assert_int_eq(giop_fragmenter_init(&f, m, len, 64, 1), c[k].ok ? CDR_OK : CDR_E_INVALID);
    free(m);
  }
}
END_TEST

/* ---------------------------------------------------------------- round trips */

static const size_t rt_sizes[] = { 0, 1, 4, 8, 51, 52, 53, 60, 100, 127, 128, 1000, 4083, 4084,
                                   4085, 8180, 8181, 8188, 8189, 20000, 65543, 200003 };
static const size_t rt_frags[] = { 64, 72, 128, 1000, 4096, 8192 };

/* One message, every feeding mode, both versions and byte orders. */
START_TEST(test_roundtrip_sizes)
{
  tu_rng rng = { 0xF00D };
  for (size_t si = 0; si < sizeof rt_sizes / sizeof rt_sizes[0]; si++)
    for (size_t fi = 0; fi < sizeof rt_frags / sizeof rt_frags[0]; fi++)
      for (int minor = 1; minor <= 2; minor++)
        for (int little = 0; little <= 1; little++)
          for (int mode = 0; mode < FEED_MODES; mode++) {
            size_t body = rt_sizes[si], fs = rt_frags[fi];
            /* one octet at a time only where it stays quick */
            if ((mode == FEED_BYTES || mode == FEED_ZC_BYTES) && body > 20000 && fs != 64)
              continue;
            size_t len;
            uint8_t *m = make_msg(minor, little, si & 1 ? GIOP_REPLY : GIOP_REQUEST,
                                  body < 4 ? 4 : body, 1000 + (uint32_t)si, si * 131 + fi, &len);
            obuf o = { 0 };
            fragment_into(&o, m, len, fs, 1000 + (uint32_t)si, NULL);
            uint8_t *wire = tu_dup(o.b, o.n);
            track t;
            track_init(&t);
            giop_reasm *r = reasm_new(&t.alloc, 0, 0);
            TU_CTX("body %zu frag %zu minor %d little %d mode %d", body, fs, minor, little, mode);
            ck_assert_int_eq(feed_mode(r, wire, o.n, mode, &rng), CDR_OK);
            ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
            expect_msg(r, m, len);
            uint8_t *x;
            size_t xl;
            ck_assert_int_eq(giop_reasm_next(r, &x, &xl), 0);
            /* no buffer beyond what the message needs (plus bookkeeping) */
            ck_assert_uint_le(t.largest, (2 * len > 16384 ? 2 * len : 16384) + 256);
            giop_reasm_free(r);
            ck_assert_int_eq(t.c.live, 0);
            free(wire);
            free(o.b);
            free(m);
          }
}
END_TEST

/* Many messages back to back, fragmented and not, GIOP 1.0/1.1/1.2. */
START_TEST(test_roundtrip_stream)
{
  tu_rng rng = { 77 };
  for (int round = 0; round < 6; round++) {
    enum { NM = 40 };
    uint8_t *msgs[NM];
    size_t lens[NM];
    obuf o = { 0 };
    for (int k = 0; k < NM; k++) {
      int minor = (int)tu_below(&rng, 3);
      int little = (int)tu_below(&rng, 2);
      size_t body = 4 + (size_t)tu_below(&rng, tu_below(&rng, 4) ? 300 : 30000);
      msgs[k] = make_msg(minor, little, GIOP_REPLY, body, (uint32_t)k * 2, tu_next(&rng), &lens[k]);
      if (minor == 0 || tu_below(&rng, 3) == 0)
        ob_put(&o, msgs[k], lens[k]);   /* unfragmented */
      else
        fragment_into(&o, msgs[k], lens[k], 64 + 8 * (size_t)tu_below(&rng, 1100),
                      (uint32_t)k * 2, NULL);
    }
    for (int mode = 0; mode < FEED_MODES; mode++) {
      cdr_mem_counter c;
      cdr_mem_counter_init(&c, NULL);
      giop_reasm *r = reasm_new(&c.alloc, 0, 0);
      TU_CTX("stream round %d mode %d", round, mode);
      ck_assert_int_eq(feed_mode(r, o.b, o.n, mode, &rng), CDR_OK);
      for (int k = 0; k < NM; k++)
        expect_msg(r, msgs[k], lens[k]);
      ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
      giop_reasm_free(r);
      ck_assert_int_eq(c.live, 0);
    }
    for (int k = 0; k < NM; k++)
      free(msgs[k]);
    free(o.b);
  }
}
END_TEST

/* Several GIOP 1.2 requests whose fragments interleave, with unfragmented
 * messages in between: each comes out when its last fragment is in. */
START_TEST(test_interleaved_12)
{
  tu_rng rng = { 4242 };
  for (int round = 0; round < 20; round++) {
    enum { NR = 6 };
    uint8_t *msgs[NR + 1];
    size_t lens[NR + 1];
    obuf parts[NR] = { { 0 } };
    fraglist *fl = calloc(NR, sizeof *fl);
    size_t next[NR] = { 0 };
    int little = round & 1;
    for (int k = 0; k < NR; k++) {
      msgs[k] = make_msg(2, little, k & 1 ? GIOP_REPLY : GIOP_REQUEST,
                         500 + (size_t)tu_below(&rng, 5000), 100 + 2 * (uint32_t)k, tu_next(&rng),
                         &lens[k]);
      fragment_into(&parts[k], msgs[k], lens[k], 64 + 8 * (size_t)tu_below(&rng, 60),
                    100 + 2 * (uint32_t)k, &fl[k]);
      ck_assert_uint_ge(fl[k].n, 2);
    }
    msgs[NR] = make_msg(2, little, GIOP_LOCATE_REQUEST, 20, 999, 1, &lens[NR]);
    /* Interleave at random; note the order in which messages complete. */
    obuf o = { 0 };
    int order[NR + 1], done = 0, left = NR;
    bool small_sent = false;
    while (left) {
      int k = (int)tu_below(&rng, NR);
      if (next[k] == fl[k].n)
        continue;
      ob_put(&o, parts[k].b + fl[k].off[next[k]], fl[k].len[next[k]]);
      if (++next[k] == fl[k].n) {
        order[done++] = k;
        left--;
      }
      if (!small_sent && tu_below(&rng, 10) == 0) {
        ob_put(&o, msgs[NR], lens[NR]);
        order[done++] = NR;
        small_sent = true;
      }
    }
    if (!small_sent) {
      ob_put(&o, msgs[NR], lens[NR]);
      order[done++] = NR;
    }
    for (int mode = 0; mode < FEED_MODES; mode++) {
      cdr_mem_counter c;
      cdr_mem_counter_init(&c, NULL);
      giop_reasm *r = reasm_new(&c.alloc, 0, 0);
      TU_CTX("interleaved round %d mode %d", round, mode);
      ck_assert_int_eq(feed_mode(r, o.b, o.n, mode, &rng), CDR_OK);
      for (int k = 0; k < done; k++)
        expect_msg(r, msgs[order[k]], lens[order[k]]);
      ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
      giop_reasm_free(r);
      ck_assert_int_eq(c.live, 0);
    }
    for (int k = 0; k <= NR; k++)
      free(msgs[k]);
    for (int k = 0; k < NR; k++)
      free(parts[k].b);
    free(fl);
    free(o.b);
  }
}
END_TEST

/* ---------------------------------------------- C11 (docs/hostile-input.md) */

START_TEST(test_c11a_huge_message_size)
{
  static const uint8_t h[2][12] = {
    { 'G', 'I', 'O', 'P', 1, 2, 1, 0, 0xF0, 0xFF, 0xFF, 0xFF },   /* 0xFFFFFFF0 little-endian */
    { 'G', 'I', 'O', 'P', 1, 2, 0, 1, 0xFF, 0xFF, 0xFF, 0xF0 },   /* big-endian */
  };
  for (int k = 0; k < 2; k++)
    for (int mode = 0; mode < FEED_MODES; mode++) {
      track t;
      track_init(&t);
      giop_reasm *r = reasm_new(&t.alloc, 0, 0);
      uint64_t base = t.c.bytes;
      tu_rng rng = { 1 };
      uint8_t *d = tu_dup(h[k], 12);
      ck_assert_int_eq(feed_mode(r, d, 12, mode, &rng), CDR_E_LIMIT);
      /* the feed path allocates nothing; the zero-copy path only its 16 KiB
       * read buffer, which is freed again */
      ck_assert_uint_le(t.c.bytes - base, 16384 + 256);
      ck_assert_uint_le(t.largest, 16384 + 256);
      ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
      ck_assert_int_eq(t.c.live, 1);   /* only the reassembler itself */
      /* sticky */
      ck_assert_int_eq(giop_reasm_feed(r, d, 12), CDR_E_LIMIT);
      uint8_t *b;
      size_t room;
      ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_E_LIMIT);
      giop_reasm_free(r);
      ck_assert_int_eq(t.c.live, 0);
      free(d);
    }
}
END_TEST

/* A header that announces a large but allowed size, then a trickle: the
 * buffer grows with what arrives, never to the announced size at once. */
START_TEST(test_c11a_announced_not_allocated)
{
  track t;
  track_init(&t);
  giop_reasm *r = reasm_new(&t.alloc, 0, 0);
  uint8_t h[12];
  giop_header gh = { 1, 2, 1, GIOP_REQUEST, 60u << 20 };
  ck_assert_int_eq(giop_header_write(&gh, h), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, h, 12), CDR_OK);
  uint8_t chunk[1000] = { 0 };
  ck_assert_int_eq(giop_reasm_feed(r, chunk, sizeof chunk), CDR_OK);
  ck_assert_uint_le(t.largest, 65536 + 256);
  ck_assert_uint_eq(giop_reasm_pending_bytes(r), 1012);
  giop_reasm_free(r);
  ck_assert_int_eq(t.c.live, 0);
}
END_TEST

START_TEST(test_c11b_fragment_flood)
{
  const size_t max = (size_t)16 << 20;
  for (int mode = 0; mode < 2; mode++) {
    track t;
    track_init(&t);
    giop_reasm *r = reasm_new(&t.alloc, max, 0);
    int64_t base_live = t.c.live;
    int little = 1;
    /* A Request of 64 octets with the more-fragments flag ... */
    uint8_t first[64] = { 0 };
    giop_header gh = { 1, 2, 3, GIOP_REQUEST, 52 };
    ck_assert_int_eq(giop_header_write(&gh, first), CDR_OK);
    put32(first + 12, 7, little);
    /* ... then Fragments of 64 KiB in all (16 + 65520), all with the flag. */
    const size_t fl = 65536;
    uint8_t *frag = calloc(1, fl);
    giop_header fh = { 1, 2, 3, GIOP_FRAGMENT, (uint32_t)(fl - 12) };
    ck_assert_int_eq(giop_header_write(&fh, frag), CDR_OK);
    put32(frag + 12, 7, little);
    tu_rng rng = { 5 };
    ck_assert_int_eq(feed_mode(r, first, 64, mode ? FEED_ZC : FEED_WHOLE, &rng), CDR_OK);
    /* the running total passes max after k Fragments: 64 + k * 65520 > max */
    size_t expect_k = (max - 64) / (fl - 16) + 1;
    size_t k;
    int rc = CDR_OK;
    for (k = 1; k <= 1000; k++) {
      rc = feed_mode(r, frag, fl, mode ? FEED_ZC : FEED_WHOLE, &rng);
      if (rc != CDR_OK)
        break;
      ck_assert_uint_eq(giop_reasm_pending_bytes(r), 64 + k * (fl - 16));
    }
    ck_assert_int_eq(rc, CDR_E_LIMIT);
    ck_assert_uint_eq(k, expect_k);
    /* what was buffered is freed: the total, not each fragment, was checked */
    ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
    ck_assert_int_eq(t.c.live, base_live);
    ck_assert_uint_le(t.largest, 2 * max);
    /* geometric growth: a few dozen allocations for ~256 Fragments */
    ck_assert_uint_le(t.c.mallocs, 40);
    ck_assert_int_eq(giop_reasm_feed(r, frag, fl), CDR_E_LIMIT);
    giop_reasm_free(r);
    ck_assert_int_eq(t.c.live, 0);
    free(frag);
  }
}
END_TEST

START_TEST(test_c11c_fragment_never_opened)
{
  for (int little = 0; little <= 1; little++) {
    cdr_mem_counter c;
    cdr_mem_counter_init(&c, NULL);
    giop_reasm *r = reasm_new(&c.alloc, 0, 0);
    uint8_t f[24] = { 0 };
    giop_header fh = { 1, 2, (uint8_t)little, GIOP_FRAGMENT, 12 };
    ck_assert_int_eq(giop_header_write(&fh, f), CDR_OK);
    put32(f + 12, 99, little);
    ck_assert_int_eq(giop_reasm_feed(r, f, 24), CDR_E_PROTOCOL);
    giop_reasm_free(r);

    /* request 5 is open; a Fragment for 6 is not its */
    r = reasm_new(&c.alloc, 0, 0);
    uint8_t first[32] = { 0 };
    giop_header gh = { 1, 2, (uint8_t)(little | 2), GIOP_REQUEST, 20 };
    ck_assert_int_eq(giop_header_write(&gh, first), CDR_OK);
    put32(first + 12, 5, little);
    ck_assert_int_eq(giop_reasm_feed(r, first, 32), CDR_OK);
    put32(f + 12, 6, little);
    ck_assert_int_eq(giop_reasm_feed(r, f, 24), CDR_E_PROTOCOL);
    ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
    giop_reasm_free(r);
    ck_assert_int_eq(c.live, 0);
  }
}
END_TEST

START_TEST(test_c11d_fragment_11_nothing_pending)
{
  for (int little = 0; little <= 1; little++)
    for (int more = 0; more <= 1; more++) {
      giop_reasm *r = reasm_new(NULL, 0, 0);
      uint8_t f[20] = { 0 };
      giop_header fh = { 1, 1, (uint8_t)(little | (more ? 2 : 0)), GIOP_FRAGMENT, 8 };
      ck_assert_int_eq(giop_header_write(&fh, f), CDR_OK);
      ck_assert_int_eq(giop_reasm_feed(r, f, 20), CDR_E_PROTOCOL);
      giop_reasm_free(r);
    }
  /* nor one continuing a GIOP 1.2 message */
  giop_reasm *r = reasm_new(NULL, 0, 0);
  uint8_t first[32] = { 0 };
  giop_header gh = { 1, 2, 3, GIOP_REQUEST, 20 };
  ck_assert_int_eq(giop_header_write(&gh, first), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, first, 32), CDR_OK);
  uint8_t f[20] = { 0 };
  giop_header fh = { 1, 1, 1, GIOP_FRAGMENT, 8 };
  ck_assert_int_eq(giop_header_write(&fh, f), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, f, 20), CDR_E_PROTOCOL);
  giop_reasm_free(r);
}
END_TEST

/* ---------------------------------------------- C13 (docs/hostile-input.md) */

#define C13_N 100000

typedef struct c13 {
  uint8_t *msg;
  size_t len;
  size_t *lenpos;       /* position of each string's length field */
  uint32_t *slen;       /* its value (octets with the NUL) */
  size_t seq_end;       /* after the last string */
  size_t dbl_pos;       /* the 8-aligned double */
  uint32_t filler;      /* sequence<octet> length before it */
} c13;

/* A 1.2 Reply: header by hand, then { sequence<string> names;
 * sequence<octet> filler; double value; ulong tail; }. */
static void c13_build(c13 *c, int little, uint32_t filler)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)little;
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  giop_header h = { 1, 2, (uint8_t)little, GIOP_REPLY, 0 };
  uint8_t hb[12];
  ck_assert_int_eq(giop_header_write(&h, hb), CDR_OK);
  cdr_put_raw(&o, hb, 12);
  cdr_put_ulong(&o, 7);            /* request_id */
  cdr_put_ulong(&o, 0);            /* NO_EXCEPTION */
  cdr_put_ulong(&o, 0);            /* no service contexts */
  cdr_out_align(&o, 8);
  ck_assert_uint_eq(cdr_out_size(&o), 24);
  cdr_put_ulong(&o, C13_N);
  tu_rng rng = { 1313 };
  char s[98];
  for (size_t k = 0; k < C13_N; k++) {
    size_t l = 1 + (size_t)tu_below(&rng, 97);
    for (size_t j = 0; j < l; j++)
      s[j] = (char)('a' + tu_below(&rng, 26));
    c->lenpos[k] = (cdr_out_size(&o) + 3) & ~(size_t)3;
    c->slen[k] = (uint32_t)l + 1;
    cdr_put_string_n(&o, s, l);
  }
  c->seq_end = cdr_out_size(&o);
  cdr_put_ulong(&o, filler);
  for (uint32_t k = 0; k < filler; k++)
    cdr_put_octet(&o, (uint8_t)k);
  cdr_out_align(&o, 8);
  c->dbl_pos = cdr_out_size(&o);
  cdr_put_double(&o, 3.25);
  cdr_put_ulong(&o, 0xC13C13u);
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  uint8_t *d;
  size_t n;
  ck_assert_int_eq(cdr_out_detach(&o, &d, &n), CDR_OK);
  h.size = (uint32_t)(n - 12);
  ck_assert_int_eq(giop_header_write(&h, d), CDR_OK);
  c->msg = tu_dup(d, n);
  c->len = n;
  c->filler = filler;
  cdr_out_buffer_free(&op, d);
}

static void c13_free(c13 *c)
{
  free(c->msg);
  c->msg = NULL;
}

/* What a split at message position P falls on. */
enum { B_OTHER = 0, B_IN_BODY = 1, B_LEN_BODY = 2, B_DOUBLE = 4 };
static int c13_where(const c13 *c, size_t p)
{
  if (p == c->dbl_pos)
    return B_DOUBLE;
  /* the last string whose length field starts before P */
  size_t lo = 0, hi = C13_N;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (c->lenpos[mid] < p)
      lo = mid;
    else
      hi = mid;
  }
  if (c->lenpos[lo] >= p)
    return B_OTHER;
  size_t body = c->lenpos[lo] + 4;
  if (p == body)
    return B_LEN_BODY;
  if (p > body && p < body + c->slen[lo])
    return B_IN_BODY;
  return B_OTHER;
}

/* Split C's message at SPLITS (increasing multiples of 8) by hand. */
static void c13_split(const c13 *c, const size_t *splits, size_t ns, int little, obuf *o)
{
  uint8_t h[16];
  giop_header gh = { 1, 2, (uint8_t)(little | 2), GIOP_REPLY, (uint32_t)(splits[0] - 12) };
  ck_assert_int_eq(giop_header_write(&gh, h), CDR_OK);
  ob_put(o, h, 12);
  ob_put(o, c->msg + 12, splits[0] - 12);
  for (size_t k = 0; k < ns; k++) {
    size_t from = splits[k], to = k + 1 < ns ? splits[k + 1] : c->len;
    bool last = k + 1 == ns;
    giop_header fh = { 1, 2, (uint8_t)(little | (last ? 0 : 2)), GIOP_FRAGMENT,
                       (uint32_t)(to - from + 4) };
    ck_assert_int_eq(giop_header_write(&fh, h), CDR_OK);
    put32(h + 12, 7, little);
    ob_put(o, h, 16);
    ob_put(o, c->msg + from, to - from);
  }
}

/* Decode the reassembled message with cdr_in: every string where it was
 * written, and the double. */
static void c13_decode(const c13 *c, const uint8_t *m, size_t len, int little)
{
  TU_ASSERT_BYTES(m, len, c->msg, c->len);
  giop_header h;
  ck_assert_int_eq(giop_header_parse(m, len, &h), CDR_OK);
  ck_assert_int_eq(h.flags, little);
  ck_assert_uint_eq(h.size + 12, len);
  cdr_in in;
  ck_assert_int_eq(cdr_in_init(&in, m, len, little, NULL), CDR_OK);
  ck_assert_int_eq(cdr_in_seek(&in, 12), CDR_OK);
  ck_assert_uint_eq(cdr_get_ulong(&in), 7);
  ck_assert_uint_eq(cdr_get_ulong(&in), 0);
  ck_assert_uint_eq(cdr_get_ulong(&in), 0);
  cdr_in_align(&in, 8);
  ck_assert_uint_eq(cdr_get_seq_count(&in, 5), C13_N);
  for (size_t k = 0; k < C13_N; k++) {
    const char *s;
    uint32_t l;
    cdr_in_align(&in, 4);
    HOT(cdr_in_pos(&in) == c->lenpos[k]);
    HOT(cdr_get_string_view(&in, &s, &l) == CDR_OK);
    HOT(l + 1 == c->slen[k]);
    HOT((const uint8_t *)s == m + c->lenpos[k] + 4);
  }
  const uint8_t *f;
  uint32_t fl;
  ck_assert_int_eq(cdr_get_octets_view(&in, &f, &fl), CDR_OK);
  ck_assert_uint_eq(fl, c->filler);
  cdr_in_align(&in, 8);
  ck_assert_uint_eq(cdr_in_pos(&in), c->dbl_pos);
  ck_assert(cdr_get_double(&in) == 3.25);
  ck_assert_uint_eq(cdr_get_ulong(&in), 0xC13C13u);
  ck_assert_int_eq(cdr_in_status(&in), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&in), 0);
  cdr_in_close(&in);
}

static void c13_reassemble(const c13 *c, const obuf *o, int little, int mode, tu_rng *rng)
{
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  giop_reasm *r = reasm_new(&mc.alloc, 0, 0);
  uint8_t *wire = tu_dup(o->b, o->n);
  ck_assert_int_eq(feed_mode(r, wire, o->n, mode, rng), CDR_OK);
  uint8_t *m;
  size_t len;
  ck_assert_int_eq(giop_reasm_next(r, &m, &len), 1);
  c13_decode(c, m, len, little);
  giop_reasm_release(r, m);
  ck_assert_int_eq(giop_reasm_next(r, &m, &len), 0);
  ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
  giop_reasm_free(r);
  ck_assert_int_eq(mc.live, 0);
  free(wire);
}

/* Hand-made boundaries: one inside a string body, one between a length and
 * its body, one just before the double, plus random others (the reassembler
 * takes any multiple of 8). */
START_TEST(test_c13_handmade_boundaries)
{
  c13 c;
  c.lenpos = malloc(C13_N * sizeof *c.lenpos);
  c.slen = malloc(C13_N * sizeof *c.slen);
  tu_rng rng = { 99 };
  for (int little = 0; little <= 1; little++) {
    c13_build(&c, little, 5);
    size_t cap = 400, ns = 0;
    size_t *sp = malloc(cap * sizeof *sp);
    /* inside a string body: the first string past octet 1000 with a multiple
     * of 8 strictly inside its body */
    for (size_t k = 0; k < C13_N; k++) {
      size_t b = c.lenpos[k] + 4, p = (b + 8) & ~(size_t)7;
      if (b > 1000 && p < b + c.slen[k]) {
        sp[ns++] = p;
        break;
      }
    }
    /* between a length and its body: a body starting at a multiple of 8,
     * well after */
    for (size_t k = C13_N / 2; k < C13_N; k++)
      if ((c.lenpos[k] + 4) % 8 == 0) {
        sp[ns++] = c.lenpos[k] + 4;
        break;
      }
    ck_assert_uint_eq(c.dbl_pos % 8, 0);
    sp[ns++] = c.dbl_pos;
    while (ns < 300)
      sp[ns++] = 16 + 8 * (size_t)tu_below(&rng, (c.len - 24) / 8);
    /* sort, drop duplicates */
    for (size_t i = 1; i < ns; i++)
      for (size_t j = i; j > 0 && sp[j - 1] > sp[j]; j--) {
        size_t t = sp[j];
        sp[j] = sp[j - 1];
        sp[j - 1] = t;
      }
    size_t u = 0;
    for (size_t i = 0; i < ns; i++)
      if (u == 0 || sp[i] != sp[u - 1])
        sp[u++] = sp[i];
    ns = u;
    int seen = 0;
    for (size_t i = 0; i < ns; i++)
      seen |= c13_where(&c, sp[i]);
    ck_assert_int_eq(seen, B_IN_BODY | B_LEN_BODY | B_DOUBLE);
    obuf o = { 0 };
    c13_split(&c, sp, ns, little, &o);
    for (int mode = 0; mode < FEED_MODES; mode++) {
      if (mode == FEED_ZC_BYTES && little)
        continue;
      TU_CTX("C13 handmade little %d mode %d", little, mode);
      c13_reassemble(&c, &o, little, mode, &rng);
    }
    free(o.b);
    free(sp);
    c13_free(&c);
  }
  free(c.lenpos);
  free(c.slen);
}
END_TEST

/* The library's fragmenter with a FRAG_SIZE chosen so that its splits fall
 * inside a string body and between a length and its body, and a filler
 * chosen so that one falls just before the double. */
START_TEST(test_c13_fragmenter_boundaries)
{
  c13 c;
  c.lenpos = malloc(C13_N * sizeof *c.lenpos);
  c.slen = malloc(C13_N * sizeof *c.slen);
  tu_rng rng = { 7 };
  for (int little = 0; little <= 1; little++) {
    c13_build(&c, little, 0);
    /* GIOP 1.2 splits: FS, then every FS - 16 */
    size_t fs = 0;
    for (size_t cand = 8192; cand >= 64 && !fs; cand -= 8) {
      int seen = 0;
      for (size_t p = cand; p < c.seq_end; p += cand - 16)
        seen |= c13_where(&c, p);
      if (seen == (B_IN_BODY | B_LEN_BODY))
        fs = cand;
    }
    ck_assert_uint_ne(fs, 0);
    /* the first split at or after where the double would go with no
     * filler; the filler moves the double there */
    size_t p = fs;
    while (p < c.dbl_pos)
      p += fs - 16;
    size_t filler_at = ((c.seq_end + 3) & ~(size_t)3) + 4;
    c13_free(&c);
    c13_build(&c, little, (uint32_t)(p - filler_at));
    ck_assert_uint_eq(c.dbl_pos, p);
    int seen = 0;
    for (size_t q = fs; q < c.len; q += fs - 16)
      seen |= c13_where(&c, q);
    ck_assert_int_eq(seen, B_IN_BODY | B_LEN_BODY | B_DOUBLE);
    obuf o = { 0 };
    fraglist *fl = malloc(sizeof *fl);
    fl->n = 0;
    /* more fragments than fraglist holds at small sizes: count only */
    fragment_into(&o, c.msg, c.len, fs, 7, c.len / (fs - 16) < 4000 ? fl : NULL);
    for (int mode = 0; mode < FEED_MODES; mode++) {
      if (mode == FEED_BYTES || mode == FEED_ZC_BYTES)
        continue;
      TU_CTX("C13 fragmenter fs %zu little %d mode %d", fs, little, mode);
      c13_reassemble(&c, &o, little, mode, &rng);
    }
    free(fl);
    free(o.b);
    c13_free(&c);
  }
  free(c.lenpos);
  free(c.slen);
}
END_TEST

/* Negative cases of C13 and the other protocol errors of frag.h. */
START_TEST(test_c13_negative)
{
  for (int little = 0; little <= 1; little++) {
    /* a non-final 1.2 first message of 1001 octets in all */
    uint8_t *m = calloc(1, 1001);
    giop_header gh = { 1, 2, (uint8_t)(little | 2), GIOP_REPLY, 989 };
    ck_assert_int_eq(giop_header_write(&gh, m), CDR_OK);
    giop_reasm *r = reasm_new(NULL, 0, 0);
    ck_assert_int_eq(giop_reasm_feed(r, m, 1001), CDR_E_PROTOCOL);
    giop_reasm_free(r);
    /* ... and a non-final Fragment of 1001 */
    r = reasm_new(NULL, 0, 0);
    gh.size = 1012;
    ck_assert_int_eq(giop_header_write(&gh, m), CDR_OK);
    uint8_t *first = calloc(1, 1024);
    memcpy(first, m, 12);
    put32(first + 12, 3, little);
    ck_assert_int_eq(giop_reasm_feed(r, first, 1024), CDR_OK);
    giop_header fh = { 1, 2, (uint8_t)(little | 2), GIOP_FRAGMENT, 989 };
    ck_assert_int_eq(giop_header_write(&fh, m), CDR_OK);
    put32(m + 12, 3, little);
    ck_assert_int_eq(giop_reasm_feed(r, m, 1001), CDR_E_PROTOCOL);
    ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
    giop_reasm_free(r);
    /* the final Fragment may have any length */
    r = reasm_new(NULL, 0, 0);
    ck_assert_int_eq(giop_reasm_feed(r, first, 1024), CDR_OK);
    fh.flags = (uint8_t)little;
    ck_assert_int_eq(giop_header_write(&fh, m), CDR_OK);
    ck_assert_int_eq(giop_reasm_feed(r, m, 1001), CDR_OK);
    uint8_t *x;
    size_t xl;
    ck_assert_int_eq(giop_reasm_next(r, &x, &xl), 1);
    ck_assert_uint_eq(xl, 1024 + 985);
    ck_assert_int_eq(x[6], little);
    giop_reasm_free(r);   /* taken, not released: freed too */
    /* a Fragment whose byte order differs from the first message's, with
     * the request ID written either way */
    for (int idorder = 0; idorder <= 1; idorder++) {
      r = reasm_new(NULL, 0, 0);
      ck_assert_int_eq(giop_reasm_feed(r, first, 1024), CDR_OK);
      giop_header bh = { 1, 2, (uint8_t)(!little), GIOP_FRAGMENT, 12 };
      uint8_t f[24] = { 0 };
      ck_assert_int_eq(giop_header_write(&bh, f), CDR_OK);
      put32(f + 12, 3, idorder);
      ck_assert_int_eq(giop_reasm_feed(r, f, 24), CDR_E_PROTOCOL);
      ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
      giop_reasm_free(r);
    }
    /* the same in GIOP 1.1 */
    r = reasm_new(NULL, 0, 0);
    giop_header h11 = { 1, 1, (uint8_t)(little | 2), GIOP_REQUEST, 100 };
    ck_assert_int_eq(giop_header_write(&h11, first), CDR_OK);
    ck_assert_int_eq(giop_reasm_feed(r, first, 112), CDR_OK);
    giop_header f11 = { 1, 1, (uint8_t)(!little), GIOP_FRAGMENT, 8 };
    ck_assert_int_eq(giop_header_write(&f11, m), CDR_OK);
    ck_assert_int_eq(giop_reasm_feed(r, m, 20), CDR_E_PROTOCOL);
    giop_reasm_free(r);
    free(first);
    free(m);
  }
}
END_TEST

/* ---------------------------------------------------------------- other errors */

static uint8_t *first_part(int minor, int little, int type, uint32_t id, size_t total)
{
  uint8_t *b = calloc(1, total);
  giop_header gh = { 1, (uint8_t)minor, (uint8_t)(little | 2), (uint8_t)type,
                     (uint32_t)(total - 12) };
  ck_assert_int_eq(giop_header_write(&gh, b), CDR_OK);
  if (total >= 16)
    put32(b + 12, id, little);
  return b;
}

START_TEST(test_protocol_errors)
{
  /* a second fragmented 1.2 message reusing a pending request ID */
  giop_reasm *r = reasm_new(NULL, 0, 0);
  uint8_t *a = first_part(2, 1, GIOP_REQUEST, 4, 32);
  ck_assert_int_eq(giop_reasm_feed(r, a, 32), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, a, 32), CDR_E_PROTOCOL);
  ck_assert_int_eq(giop_reasm_feed(r, a, 32), CDR_E_PROTOCOL);   /* sticky */
  giop_reasm_free(r);
  free(a);
  /* more than max_pending */
  r = reasm_new(NULL, 0, 3);
  for (uint32_t id = 0; id < 4; id++) {
    a = first_part(2, 0, GIOP_REPLY, id, 32);
    ck_assert_int_eq(giop_reasm_feed(r, a, 32), id < 3 ? CDR_OK : CDR_E_PROTOCOL);
    free(a);
  }
  giop_reasm_free(r);
  /* a second fragmented 1.1 message while one is in progress; an
   * unfragmented one in between is fine */
  r = reasm_new(NULL, 0, 0);
  a = first_part(1, 1, GIOP_REQUEST, 0, 40);
  ck_assert_int_eq(giop_reasm_feed(r, a, 40), CDR_OK);
  size_t len;
  uint8_t *u = make_msg(1, 1, GIOP_CANCEL_REQUEST, 4, 1, 1, &len);
  ck_assert_int_eq(giop_reasm_feed(r, u, len), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, a, 40), CDR_E_PROTOCOL);
  uint8_t *x;
  size_t xl;
  ck_assert_int_eq(giop_reasm_next(r, &x, &xl), 1);   /* completed ones stay */
  TU_ASSERT_BYTES(x, xl, u, len);
  giop_reasm_release(r, x);
  giop_reasm_free(r);
  free(a);
  free(u);
  /* types that may not be fragmented: CancelRequest in 1.2, LocateRequest
   * in 1.1 */
  static const struct { int minor, type; } nf[] = {
    { 2, GIOP_CANCEL_REQUEST }, { 2, GIOP_CLOSE_CONNECTION }, { 2, GIOP_MESSAGE_ERROR },
    { 1, GIOP_LOCATE_REQUEST }, { 1, GIOP_LOCATE_REPLY },
  };
  for (size_t k = 0; k < sizeof nf / sizeof nf[0]; k++) {
    r = reasm_new(NULL, 0, 0);
    a = first_part(nf[k].minor, 0, nf[k].type, 1, 16);
    ck_assert_int_eq(giop_reasm_feed(r, a, 16), CDR_E_PROTOCOL);
    giop_reasm_free(r);
    free(a);
  }
  /* a fragmented 1.2 message too short for its request ID */
  r = reasm_new(NULL, 0, 0);
  uint8_t s[12];
  giop_header sh = { 1, 2, 3, GIOP_REQUEST, 0 };
  ck_assert_int_eq(giop_header_write(&sh, s), CDR_OK);
  ck_assert_int_eq(giop_reasm_feed(r, s, 12), CDR_E_PROTOCOL);
  giop_reasm_free(r);
  /* bad magic, version, type: one octet at a time too */
  static const uint8_t bad[][12] = {
    { 'G', 'I', 'O', 'X', 1, 2, 0, 0, 0, 0, 0, 0 },
    { 'G', 'I', 'O', 'P', 2, 0, 0, 0, 0, 0, 0, 0 },
    { 'G', 'I', 'O', 'P', 1, 3, 0, 0, 0, 0, 0, 0 },
    { 'G', 'I', 'O', 'P', 1, 2, 0, 8, 0, 0, 0, 0 },
    { 'G', 'I', 'O', 'P', 1, 0, 0, 7, 0, 0, 0, 0 },
    { 'G', 'I', 'O', 'P', 1, 0, 2, 0, 0, 0, 0, 0 },
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    for (int mode = 0; mode < FEED_MODES; mode++) {
      tu_rng rng = { k };
      r = reasm_new(NULL, 0, 0);
      ck_assert_int_eq(feed_mode(r, bad[k], 12, mode, &rng), CDR_E_PROTOCOL);
      giop_reasm_free(r);
    }
  /* max_message on an unfragmented message: 12 + size, exactly at the cap is fine */
  r = reasm_new(NULL, 1000, 0);
  u = make_msg(2, 1, GIOP_REPLY, 988, 1, 1, &len);
  ck_assert_int_eq(giop_reasm_feed(r, u, len), CDR_OK);
  free(u);
  u = make_msg(2, 1, GIOP_REPLY, 989, 1, 1, &len);
  ck_assert_int_eq(giop_reasm_feed(r, u, len), CDR_E_LIMIT);
  free(u);
  giop_reasm_free(r);
}
END_TEST

START_TEST(test_giop10_and_empty)
{
  giop_reasm *r = reasm_new(NULL, 0, 0);
  size_t l1, l2, l3;
  uint8_t *a = make_msg(0, 0, GIOP_REQUEST, 40, 1, 1, &l1);
  uint8_t *b = make_msg(2, 1, GIOP_CLOSE_CONNECTION, 0, 0, 1, &l2);
  uint8_t *c = make_msg(1, 1, GIOP_MESSAGE_ERROR, 0, 0, 1, &l3);
  ck_assert_uint_eq(l2, 12);
  obuf o = { 0 };
  ob_put(&o, a, l1);
  ob_put(&o, b, l2);
  ob_put(&o, c, l3);
  for (int mode = 0; mode < FEED_MODES; mode++) {
    tu_rng rng = { 3 };
    ck_assert_int_eq(feed_mode(r, o.b, o.n, mode, &rng), CDR_OK);
    expect_msg(r, a, l1);
    expect_msg(r, b, l2);
    expect_msg(r, c, l3);
  }
  ck_assert_int_eq(giop_reasm_feed(r, a, 0), CDR_OK);
  giop_reasm_free(r);
  free(o.b);
  free(a);
  free(b);
  free(c);
}
END_TEST

/* ---------------------------------------------------------------- cancel */

START_TEST(test_cancel)
{
  for (int zc = 0; zc <= 1; zc++) {
    cdr_mem_counter mc;
    cdr_mem_counter_init(&mc, NULL);
    giop_reasm *r = reasm_new(&mc.alloc, 0, 0);
    size_t len, ul;
    uint8_t *m = make_msg(2, 1, GIOP_REQUEST, 1000, 8, 1, &len);
    uint8_t *u = make_msg(2, 1, GIOP_REPLY, 30, 2, 2, &ul);
    obuf o = { 0 };
    fraglist fl = { .n = 0 };
    fragment_into(&o, m, len, 256, 8, &fl);
    ck_assert_uint_eq(fl.n, 5);
    tu_rng rng = { 11 };
    int mode = zc ? FEED_ZC : FEED_WHOLE;
    /* the first message, the first Fragment and half of the second */
    size_t cut = fl.off[2] + fl.len[2] / 2;
    ck_assert_int_eq(feed_mode(r, o.b, cut, mode, &rng), CDR_OK);
    ck_assert_uint_eq(giop_reasm_pending_bytes(r), 12 + (cut - 12) - 16 - 16);
    ck_assert_int_eq(giop_reasm_cancel(r, 9), 0);
    ck_assert_int_eq(giop_reasm_cancel(r, 8), 1);
    ck_assert_int_eq(giop_reasm_cancel(r, 8), 0);
    ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
    /* the rest of that Fragment is skipped; then a message comes out */
    ck_assert_int_eq(feed_mode(r, o.b + cut, fl.off[3] - cut, mode, &rng), CDR_OK);
    ck_assert_int_eq(feed_mode(r, u, ul, mode, &rng), CDR_OK);
    expect_msg(r, u, ul);
    /* a further Fragment for it is a protocol error */
    ck_assert_int_eq(feed_mode(r, o.b + fl.off[3], fl.len[3], mode, &rng), CDR_E_PROTOCOL);
    giop_reasm_free(r);
    ck_assert_int_eq(mc.live, 0);
    free(o.b);
    free(m);
    free(u);
  }
}
END_TEST

/* Cancel between giop_reasm_buffer() and giop_reasm_commit(): the reserved
 * buffer stays valid until the commit. */
START_TEST(test_cancel_with_reservation)
{
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  giop_reasm *r = reasm_new(&mc.alloc, 0, 0);
  size_t len;
  uint8_t *m = make_msg(2, 0, GIOP_REPLY, 3000, 6, 1, &len);
  obuf o = { 0 };
  fraglist fl = { .n = 0 };
  fragment_into(&o, m, len, 1024, 6, &fl);
  ck_assert_int_eq(giop_reasm_feed(r, o.b, fl.off[1] + 100), CDR_OK);
  uint8_t *b;
  size_t room;
  ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
  ck_assert_uint_eq(room, fl.len[1] - 100);
  ck_assert_int_eq(giop_reasm_cancel(r, 6), 1);
  memcpy(b, o.b + fl.off[1] + 100, room);   /* ASan: still valid */
  ck_assert_int_eq(giop_reasm_commit(r, room), CDR_OK);
  ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
  ck_assert_int_eq(giop_reasm_commit(r, 1), CDR_E_INVALID);   /* no reservation */
  ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
  ck_assert_int_eq(giop_reasm_commit(r, room + 1), CDR_E_INVALID);
  ck_assert_int_eq(giop_reasm_commit(r, 0), CDR_OK);
  giop_reasm_free(r);
  ck_assert_int_eq(mc.live, 0);
  free(o.b);
  free(m);
}
END_TEST

/* ---------------------------------------------------------------- copies and allocations */

/* A message read through giop_reasm_buffer() in one read is the buffer it
 * was read into; released, that buffer is the next read's. */
START_TEST(test_zero_copy_in_place)
{
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  giop_reasm *r = reasm_new(&mc.alloc, 0, 0);
  size_t len;
  uint8_t *m = make_msg(2, 1, GIOP_REQUEST, 500, 2, 1, &len);
  uint8_t *first = NULL;
  uint64_t mallocs = 0;
  for (int k = 0; k < 100; k++) {
    uint8_t *b;
    size_t room;
    ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
    ck_assert_uint_ge(room, len);
    if (k == 0) {
      first = b;
      mallocs = mc.mallocs;
    }
    ck_assert_ptr_eq(b, first);
    memcpy(b, m, len);
    ck_assert_int_eq(giop_reasm_commit(r, len), CDR_OK);
    uint8_t *x;
    size_t xl;
    ck_assert_int_eq(giop_reasm_next(r, &x, &xl), 1);
    ck_assert_ptr_eq(x, b);   /* in place: no copy */
    ck_assert_uint_eq(xl, len);
    giop_reasm_release(r, x);
  }
  ck_assert_uint_eq(mc.mallocs, mallocs);   /* steady state: no allocation */

  /* A large message: the read buffer becomes the message and the rest is
   * read in place after it. */
  size_t big;
  uint8_t *bm = make_msg(2, 0, GIOP_REPLY, 300000, 4, 2, &big);
  size_t off = 0;
  uint8_t *msgstart = NULL;
  while (off < big) {
    uint8_t *b;
    size_t room;
    ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
    if (off == 0)
      msgstart = b;
    else
      ck_assert_uint_le(room, big - off);   /* never past the message */
    size_t k = room < big - off ? room : big - off;
    memcpy(b, bm + off, k);
    ck_assert_int_eq(giop_reasm_commit(r, k), CDR_OK);
    off += k;
  }
  uint8_t *x;
  size_t xl;
  ck_assert_int_eq(giop_reasm_next(r, &x, &xl), 1);
  TU_ASSERT_BYTES(x, xl, bm, big);
  (void)msgstart;   /* may have moved when the buffer grew */
  giop_reasm_release(r, x);

  /* Feeding: one buffer per message, no more. */
  uint64_t before = mc.mallocs;
  uint8_t *held[10];
  for (int k = 0; k < 10; k++) {
    ck_assert_int_eq(giop_reasm_feed(r, m, len), CDR_OK);
    ck_assert_int_eq(giop_reasm_next(r, &held[k], &xl), 1);
  }
  ck_assert_uint_le(mc.mallocs - before, 10);
  for (int k = 0; k < 10; k++)
    giop_reasm_release(r, held[k]);
  giop_reasm_release(r, NULL);
  giop_reasm_free(r);
  ck_assert_int_eq(mc.live, 0);
  free(m);
  free(bm);
}
END_TEST

/* Replies of N callers of one connection in each read, all N out at once
 * (taken, not released) before any is released, as a client's leader
 * hands them out, each such read followed by one that brings a reply
 * alone (the spare's buffer becomes that message): after the first rounds
 * the reassembler allocates nothing for N up to 64, and what it keeps
 * stays bounded (64 buffers and the spare) for more. */
static void reads_of_n(giop_reasm *r, const uint8_t *wire, size_t n, const uint8_t *m, size_t len,
                       unsigned nmsg)
{
  size_t off = 0;
  while (off < n) {
    uint8_t *b;
    size_t room;
    HOT(giop_reasm_buffer(r, &b, &room) == CDR_OK);
    size_t k = room < n - off ? room : n - off;
    memcpy(b, wire + off, k);
    HOT(giop_reasm_commit(r, k) == CDR_OK);
    off += k;
  }
  uint8_t *out[100];
  size_t xl;
  for (unsigned k = 0; k < nmsg; k++) {
    HOT(giop_reasm_next(r, &out[k], &xl) == 1);
    HOT(xl == len && memcmp(out[k], m, len) == 0);
  }
  HOT(giop_reasm_next(r, &out[0], &xl) == 0);
  for (unsigned k = 0; k < nmsg; k++)
    giop_reasm_release(r, out[k]);
}

START_TEST(test_many_out_at_once_no_alloc)
{
  static const unsigned ns[] = { 1, 8, 9, 16, 32, 64, 100 };
  size_t len;
  uint8_t *m = make_msg(2, 1, GIOP_REPLY, 88, 7, 3, &len);
  ck_assert_uint_eq(len, 100);
  uint8_t *wire = malloc(100 * len);
  for (unsigned k = 0; k < 100; k++)
    memcpy(wire + k * len, m, len);
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    unsigned n = ns[i];
    cdr_mem_counter mc;
    cdr_mem_counter_init(&mc, NULL);
    giop_reasm *r = reasm_new(&mc.alloc, 0, 0);
    int64_t own = mc.live;   /* the reassembler's own */
    for (int round = 0; round < 3; round++) {
      reads_of_n(r, wire, n * len, m, len, n);
      reads_of_n(r, wire, len, m, len, 1);
    }
    uint64_t before = mc.attempts;
    for (int round = 0; round < 200; round++) {
      reads_of_n(r, wire, n * len, m, len, n);
      reads_of_n(r, wire, len, m, len, 1);   /* one alone: read in place */
    }
    if (n <= 64)
      ck_assert_msg(mc.attempts == before, "%u out at once: %llu allocations in 200 rounds", n,
                    (unsigned long long)(mc.attempts - before));
    else
      ck_assert_int_eq(mc.live - own, 64 + 1);   /* the cache full, and the spare */
    giop_reasm_free(r);
    ck_assert_int_eq(mc.live, 0);
  }
  free(wire);
  free(m);
}
END_TEST

/* ---------------------------------------------------------------- the memory budget */

/* A budget of MAX octets (giop_reasm_opts.charge). */
typedef struct tbudget {
  size_t used, max, refusals;
} tbudget;

static int tb_charge(void *ud, size_t n)
{
  tbudget *b = ud;
  if (n > b->max - b->used) {
    b->refusals++;
    return CDR_E_LIMIT;
  }
  b->used += n;
  return CDR_OK;
}

static void tb_uncharge(void *ud, size_t n)
{
  tbudget *b = ud;
  ck_assert_uint_ge(b->used, n);
  b->used -= n;
}

static giop_reasm *reasm_budget(const cdr_allocator *a, tbudget *b)
{
  giop_reasm_opts o;
  giop_reasm_opts_default(&o);
  o.alloc = a;
  o.charge = tb_charge;
  o.uncharge = tb_uncharge;
  o.charge_ud = b;
  giop_reasm *r = giop_reasm_new(&o);
  ck_assert_ptr_nonnull(r);
  return r;
}

/* A fragmented request read through giop_reasm_buffer()/commit() with a
 * budget that refuses every charge until granted: each refusal leaves
 * the reassembler as it was (buffer) or holds the octets back (commit),
 * never sticky; after a refused commit, the next giop_reasm_buffer()
 * stores the held octets first, and when they complete the message it is
 * there for giop_reasm_next() before anything more is read.  Sizes vary
 * so that the refusal falls both in a buffer (an unfragmented message
 * read into its own buffer) and in a commit whose read also holds the
 * last Fragment. */
START_TEST(test_budget_refusals_not_sticky)
{
  int held_completed = 0, buffer_refused = 0;
  for (size_t body = 66000; body <= 90000; body += 1000) {
    cdr_mem_counter mc;
    cdr_mem_counter_init(&mc, NULL);
    tbudget bud = { 0, 0, 0 };
    giop_reasm *r = reasm_budget(&mc.alloc, &bud);
    size_t len;
    uint8_t *m = make_msg(2, body & 1000 ? 1 : 0, GIOP_REQUEST, body, 9, body, &len);
    obuf o = { 0 };
    fraglist fl = { .n = 0 };
    if (body / 1000 % 2)
      fragment_into(&o, m, len, 1024, 9, &fl);
    else
      ob_put(&o, m, len);   /* read into its own buffer: refused in giop_reasm_buffer() */
    size_t off = 0;
    int got = 0;
    while (!got) {
      uint8_t *b;
      size_t room;
      int rc = giop_reasm_buffer(r, &b, &room);
      if (rc == CDR_E_LIMIT) {
        buffer_refused++;
        ck_assert_uint_lt(off, o.n);
        ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_E_LIMIT);   /* again */
        bud.max = SIZE_MAX;                                               /* granted */
        continue;
      }
      ck_assert_int_eq(rc, CDR_OK);
      uint8_t *x;
      size_t xl;
      if (giop_reasm_next(r, &x, &xl)) {
        /* Completed by the octets held back: nothing more was read. */
        ck_assert_uint_eq(off, o.n);
        ck_assert_int_eq(giop_reasm_commit(r, 0), CDR_OK);
        held_completed++;
        TU_ASSERT_BYTES(x, xl, m, len);
        giop_reasm_release(r, x);
        got = 1;
        break;
      }
      ck_assert_uint_lt(off, o.n);
      size_t k = room < o.n - off ? room : o.n - off;
      memcpy(b, o.b + off, k);
      off += k;
      rc = giop_reasm_commit(r, k);
      if (rc == CDR_E_LIMIT) {
        ck_assert_int_eq(giop_reasm_phase(r), GIOP_REASM_BODY);
        bud.max = SIZE_MAX;
        continue;
      }
      ck_assert_int_eq(rc, CDR_OK);
      if (giop_reasm_next(r, &x, &xl)) {
        ck_assert_uint_eq(off, o.n);
        TU_ASSERT_BYTES(x, xl, m, len);
        giop_reasm_release(r, x);
        got = 1;
      }
    }
    ck_assert_uint_ge(bud.refusals, 1);
    ck_assert_int_eq(giop_reasm_phase(r), GIOP_REASM_EMPTY);
    giop_reasm_free(r);
    ck_assert_uint_eq(bud.used, 0);   /* every charge given back */
    ck_assert_int_eq(mc.live, 0);
    free(o.b);
    free(m);
  }
  ck_assert_int_gt(held_completed, 0);
  ck_assert_int_gt(buffer_refused, 0);
}
END_TEST

/* Read the octets O (one or more messages) through giop_reasm_buffer()/
 * commit() until a message is out; assert it is M (LEN octets) and that
 * the budget B holds at least LEN for it while it is out; release it. */
static void read_charged(giop_reasm *r, const obuf *o, const uint8_t *m, size_t len, tbudget *b)
{
  size_t off = 0;
  for (;;) {
    uint8_t *x, *buf;
    size_t xl, room;
    if (giop_reasm_next(r, &x, &xl)) {
      ck_assert_uint_eq(off, o->n);
      TU_ASSERT_BYTES(x, xl, m, len);
      ck_assert_msg(b->used >= len, "used %zu len %zu off %zu", b->used, len, off);   /* charged while it is out */
      giop_reasm_release(r, x);
      return;
    }
    ck_assert_int_eq(giop_reasm_buffer(r, &buf, &room), CDR_OK);
    ck_assert_uint_lt(off, o->n);
    size_t k = room < o->n - off ? room : o->n - off;
    memcpy(buf, o->b + off, k);
    off += k;
    ck_assert_int_eq(giop_reasm_commit(r, k), CDR_OK);
  }
}

/* Large messages one after another (70,000 octets, over the 64 KiB that
 * are charged: whole, and in 1 KiB Fragments): each is charged while it
 * is out, the budget is all given back once it is released (a buffer kept
 * for reuse holds no charge: a connection that sends nothing more holds
 * none of the budget), and after warm-up no message allocates. */
START_TEST(test_budget_released_cached_uncharged)
{
  for (int frag = 0; frag < 2; frag++) {
    cdr_mem_counter mc;
    cdr_mem_counter_init(&mc, NULL);
    tbudget bud = { 0, SIZE_MAX, 0 };
    giop_reasm *r = reasm_budget(&mc.alloc, &bud);
    size_t len;
    uint8_t *m = make_msg(2, 1, GIOP_REQUEST, 70000, 5, 70000, &len);
    obuf o = { 0 };
    fraglist fl = { .n = 0 };
    if (frag)
      fragment_into(&o, m, len, 1024, 5, &fl);
    else
      ob_put(&o, m, len);
    for (int k = 0; k < 3; k++) {
      read_charged(r, &o, m, len, &bud);
      ck_assert_uint_eq(bud.used, 0);
    }
    uint64_t before = mc.attempts;
    for (int k = 0; k < 50; k++) {
      read_charged(r, &o, m, len, &bud);
      ck_assert_uint_eq(bud.used, 0);
    }
    ck_assert_msg(mc.attempts == before, "fragmented %d: %llu allocations in 50 messages", frag,
                  (unsigned long long)(mc.attempts - before));
    ck_assert_uint_eq(bud.refusals, 0);
    giop_reasm_free(r);
    ck_assert_int_eq(mc.live, 0);
    free(o.b);
    free(m);
  }
}
END_TEST

/* A message the budget refuses is dropped with giop_reasm_skip_current():
 * giop_reasm_current() shows what arrived of it (its header first), its
 * charge is given back at once, the rest of it -- its later Fragments too
 * -- is skipped as it arrives, and the message after it is whole. */
START_TEST(test_budget_skip_current)
{
  for (int frag = 0; frag <= 1; frag++) {
    cdr_mem_counter mc;
    cdr_mem_counter_init(&mc, NULL);
    tbudget bud = { 0, 200000, 0 };
    giop_reasm *r = reasm_budget(&mc.alloc, &bud);
    size_t len, len2;
    uint8_t *m = make_msg(2, 0, GIOP_REQUEST, 500000, 5, 3, &len);
    uint8_t *m2 = make_msg(2, 0, GIOP_REQUEST, 3000, 6, 4, &len2);
    obuf o = { 0 };
    fraglist fl = { .n = 0 };
    if (frag)
      fragment_into(&o, m, len, 4096, 5, &fl);
    else
      ob_put(&o, m, len);
    size_t first_end = o.n;
    ob_put(&o, m2, len2);
    size_t off = 0;
    int rc;
    for (;;) {
      uint8_t *b;
      size_t room;
      rc = giop_reasm_buffer(r, &b, &room);
      if (rc != CDR_OK)
        break;
      size_t k = room < first_end - off ? room : first_end - off;
      memcpy(b, o.b + off, k);
      off += k;
      rc = giop_reasm_commit(r, k);
      if (rc != CDR_OK)
        break;
    }
    ck_assert_int_eq(rc, CDR_E_LIMIT);
    ck_assert_uint_lt(off, first_end);
    ck_assert_uint_gt(bud.used, 0);
    ck_assert_uint_le(bud.used, bud.max);
    const uint8_t *cur;
    size_t cl;
    ck_assert_int_eq(giop_reasm_current(r, &cur, &cl), frag ? 2 : 1);
    ck_assert_uint_ge(cl, 16);
    ck_assert_mem_eq(cur + 12, m + 12, 4);   /* the request ID */
    ck_assert_int_eq(giop_reasm_skip_current(r), CDR_OK);
    ck_assert_int_eq(giop_reasm_skip_current(r), CDR_E_STATE);   /* nothing current now */
    ck_assert_uint_eq(bud.used, 0);          /* given back at once */
    /* Only octets a refused commit held back (read, not yet stored) remain. */
    ck_assert_uint_le(giop_reasm_pending_bytes(r), frag ? 16384 : 0);
    /* The rest, and the next message, in reads of any size. */
    uint8_t *x;
    size_t xl;
    int got = 0;
    while (off < o.n) {
      uint8_t *b;
      size_t room;
      ck_assert_int_eq(giop_reasm_buffer(r, &b, &room), CDR_OK);
      size_t k = room < o.n - off ? room : o.n - off;
      if (k > 777)
        k = 777;
      memcpy(b, o.b + off, k);
      off += k;
      ck_assert_int_eq(giop_reasm_commit(r, k), CDR_OK);
      if (giop_reasm_next(r, &x, &xl)) {
        ck_assert_uint_eq(off, o.n);          /* the skipped one never comes out */
        TU_ASSERT_BYTES(x, xl, m2, len2);
        giop_reasm_release(r, x);
        got = 1;
      }
    }
    ck_assert_int_eq(got, 1);
    ck_assert_int_eq(giop_reasm_phase(r), GIOP_REASM_EMPTY);
    ck_assert_int_eq(giop_reasm_skip_current(r), CDR_E_STATE);
    giop_reasm_free(r);
    ck_assert_uint_eq(bud.used, 0);
    ck_assert_int_eq(mc.live, 0);
    free(o.b);
    free(m);
    free(m2);
  }
}
END_TEST

/* Every allocation failing in turn: CDR_E_NOMEM (sticky), never a crash
 * or a leak; or success when the failing allocation is not reached. */
START_TEST(test_alloc_failures)
{
  tu_rng rng = { 8 };
  obuf o = { 0 };
  enum { NM = 8 };
  uint8_t *msgs[NM];
  size_t lens[NM];
  for (int k = 0; k < NM; k++) {
    msgs[k] = make_msg(k % 3, k & 1, GIOP_REPLY, 40 + (size_t)k * 9000, (uint32_t)k, (uint64_t)k,
                       &lens[k]);
    if (k % 3 == 0)
      ob_put(&o, msgs[k], lens[k]);
    else
      fragment_into(&o, msgs[k], lens[k], 1024, (uint32_t)k, NULL);
  }
  for (int mode = 0; mode < FEED_MODES; mode++) {
    if (mode == FEED_BYTES || mode == FEED_ZC_BYTES)
      continue;
    for (uint64_t fail = 1;; fail++) {
      cdr_mem_counter mc;
      cdr_mem_counter_init(&mc, NULL);
      mc.fail_at = fail;
      giop_reasm_opts op;
      giop_reasm_opts_default(&op);
      op.alloc = &mc.alloc;
      giop_reasm *r = giop_reasm_new(&op);
      if (!r) {
        ck_assert_uint_eq(fail, 1);
        continue;
      }
      tu_rng rr = rng;
      int rc = feed_mode(r, o.b, o.n, mode, &rr);
      ck_assert(rc == CDR_OK || rc == CDR_E_NOMEM);
      if (rc == CDR_E_NOMEM) {
        ck_assert_uint_eq(giop_reasm_pending_bytes(r), 0);
        ck_assert_int_eq(giop_reasm_feed(r, o.b, 1), CDR_E_NOMEM);
      }
      int got = 0;
      uint8_t *x;
      size_t xl;
      while (giop_reasm_next(r, &x, &xl)) {
        TU_CTX("fail at %llu mode %d message %d", (unsigned long long)fail, mode, got);
        TU_ASSERT_BYTES(x, xl, msgs[got], lens[got]);
        giop_reasm_release(r, x);
        got++;
      }
      giop_reasm_free(r);
      ck_assert_int_eq(mc.live, 0);
      if (rc == CDR_OK) {
        ck_assert_int_eq(got, NM);
        break;
      }
      ck_assert_uint_lt(fail, 1000);
    }
  }
  for (int k = 0; k < NM; k++)
    free(msgs[k]);
  free(o.b);
}
END_TEST

static Suite *frag_suite(void)
{
  Suite *s = suite_create("frag");
  TCase *tc = tcase_create("fragmenter");
  tcase_add_test(tc, test_fragment_exact_12);
  tcase_add_test(tc, test_fragment_exact_11);
  tcase_add_test(tc, test_fragment_whole_and_sizes);
  tcase_add_test(tc, test_fragment_init_errors);
  tcase_add_test(tc, test_fragment_pieces_same_octets);
  tcase_add_test(tc, test_reasm_bad_magic_in_pieces);
  tcase_add_test(tc, test_reasm_large_fragments_as_read);
  suite_add_tcase(s, tc);
  tc = tcase_create("roundtrip");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_roundtrip_sizes);
  tcase_add_test(tc, test_roundtrip_stream);
  tcase_add_test(tc, test_interleaved_12);
  suite_add_tcase(s, tc);
  tc = tcase_create("cases");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_c11a_huge_message_size);
  tcase_add_test(tc, test_c11a_announced_not_allocated);
  tcase_add_test(tc, test_c11b_fragment_flood);
  tcase_add_test(tc, test_c11c_fragment_never_opened);
  tcase_add_test(tc, test_c11d_fragment_11_nothing_pending);
  tcase_add_test(tc, test_c13_handmade_boundaries);
  tcase_add_test(tc, test_c13_fragmenter_boundaries);
  tcase_add_test(tc, test_c13_negative);
  suite_add_tcase(s, tc);
  tc = tcase_create("reassembler");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_protocol_errors);
  tcase_add_test(tc, test_giop10_and_empty);
  tcase_add_test(tc, test_cancel);
  tcase_add_test(tc, test_cancel_with_reservation);
  tcase_add_test(tc, test_zero_copy_in_place);
  tcase_add_test(tc, test_many_out_at_once_no_alloc);
  tcase_add_test(tc, test_alloc_failures);
  tcase_add_test(tc, test_budget_refusals_not_sticky);
  tcase_add_test(tc, test_budget_skip_current);
  tcase_add_test(tc, test_budget_released_cached_uncharged);
  tcase_add_test(tc, test_reasm_error_minor);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = frag_suite };
