/* check_fragread.c - the reassembler's predictive scatter reads
 * (giop_reasm_bufferv(), iiop/frag.h): Fragments of the predicted size land
 * in place (exact read counts, the data found inside the message buffer),
 * and every way a stream can differ from the prediction -- a short final
 * Fragment, a size change, another request's Fragment or a new message in a
 * predicted slot, a wrong type, byte order, version or request ID, garbage,
 * limits, a cancel during the read, a stream cut short -- gives exactly what
 * giop_reasm_feed() of the same octets gives: the same messages, octet for
 * octet, the same error, the same pending octets and phase.  And the
 * fragmenter's batch step, octet for octet against its single step. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/frag.h>
#include "testutil.h"

/* ---------------------------------------------------------------- streams */

typedef struct stream {
  uint8_t *p;
  size_t n, cap;
} stream;

static void put(stream *s, const void *d, size_t n)
{
  if (s->n + n > s->cap) {
    s->cap = (s->n + n) * 2 + 64;
    s->p = realloc(s->p, s->cap);
    ck_assert_ptr_nonnull(s->p);
  }
  memcpy(s->p + s->n, d, n);
  s->n += n;
}

static void put_hdr(stream *s, int minor, int flags, int type, uint32_t size)
{
  uint8_t h[12] = { 'G', 'I', 'O', 'P', 1, (uint8_t)minor, (uint8_t)flags, (uint8_t)type };
  tu_store(h + 8, size, 4, flags & 1);
  put(s, h, 12);
}

static void put_u32(stream *s, uint32_t v, int little)
{
  uint8_t b[4];
  tu_store(b, v, 4, little);
  put(s, b, 4);
}

static uint32_t ld32(const uint8_t *p, int little)
{
  return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

/* N data octets: a pattern that tells each message and offset apart. */
static void put_data(stream *s, uint32_t id, size_t off, size_t n)
{
  for (size_t k = 0; k < n; k++) {
    uint8_t b = (uint8_t)((off + k) * 31u + id * 7u + ((off + k) >> 8));
    put(s, &b, 1);
  }
}

/* The first message of a fragmented GIOP 1.2 Request ID: BODY octets (the
 * request ID, then data), more fragments to come. */
static void first12(stream *s, int little, uint32_t id, size_t body)
{
  put_hdr(s, 2, little | 2, 0, (uint32_t)body);
  put_u32(s, id, little);
  put_data(s, id, 4, body - 4);
}

/* A GIOP 1.2 Fragment of ID with DATA octets (its data at message offset OFF). */
static void frag12(stream *s, int little, uint32_t id, size_t data, bool more, size_t off)
{
  put_hdr(s, 2, little | (more ? 2 : 0), 7, (uint32_t)(data + 4));
  put_u32(s, id, little);
  put_data(s, id, off, data);
}

/* ID's message fragmented as our fragmenter does with FRAG_SIZE: BODY
 * octets of body in all. */
static void fragmented(stream *s, int little, uint32_t id, size_t body, size_t frag_size)
{
  stream m = { 0 };
  put_hdr(&m, 2, little, 0, (uint32_t)body);
  put_u32(&m, id, little);
  put_data(&m, id, 4, body - 4);
  giop_fragmenter f;
  ck_assert_int_eq(giop_fragmenter_init(&f, m.p, m.n, frag_size, id), CDR_OK);
  struct iovec v[2];
  int n;
  while (giop_fragmenter_next(&f, v, &n) == 1)
    for (int k = 0; k < n; k++)
      put(s, v[k].iov_base, v[k].iov_len);
  free(m.p);
}

/* ---------------------------------------------------------------- runs */

/* What a reassembler gave: the messages (each as 4 length octets, then its
 * octets), the last status, the pending octets and the phase at the end. */
typedef struct outcome {
  stream msgs;
  int rc;
  size_t pending;
  int phase;
  unsigned nmsg;
  /* bufferv runs only: */
  unsigned reads, scatter;     /* reads in all, reads of more than one iovec */
  size_t in_place;             /* data octets of predicted slots found in their message */
  size_t cancel_pos;           /* octets committed before the cancel */
} outcome;

/* Stream positions no read reaches across (a peer that waits for a reply
 * after each request): g_bound[0..g_nbound), ascending. */
static size_t g_bound[8];
static int g_nbound;

static void drain(giop_reasm *r, outcome *o)
{
  uint8_t *m;
  size_t len;
  while (giop_reasm_next(r, &m, &len)) {
    put_u32(&o->msgs, (uint32_t)len, 1);
    put(&o->msgs, m, len);
    o->nmsg++;
    giop_reasm_release(r, m);
  }
}

static giop_reasm *mk(size_t max_message)
{
  giop_reasm_opts op;
  giop_reasm_opts_default(&op);
  if (max_message)
    op.max_message = max_message;
  giop_reasm *r = giop_reasm_new(&op);
  ck_assert_ptr_nonnull(r);
  return r;
}

static void finish(giop_reasm *r, outcome *o, int rc)
{
  drain(r, o);
  o->rc = rc;
  o->pending = giop_reasm_pending_bytes(r);
  o->phase = giop_reasm_phase(r);
  giop_reasm_free(r);
}

/* The reference: giop_reasm_feed() of S whole; CANCEL_AT (if not
 * SIZE_MAX): giop_reasm_cancel(CANCEL_ID) after that many octets. */
static outcome ref_run(const stream *s, size_t max_message, size_t cancel_at, uint32_t cancel_id)
{
  outcome o = { 0 };
  giop_reasm *r = mk(max_message);
  size_t at = cancel_at < s->n ? cancel_at : s->n;
  int rc = giop_reasm_feed(r, s->p, at);
  if (cancel_at != SIZE_MAX)
    (void)giop_reasm_cancel(r, cancel_id);
  if (rc == CDR_OK)
    rc = giop_reasm_feed(r, s->p + at, s->n - at);
  finish(r, &o, rc);
  return o;
}

/* What a socket would do: scatter up to CHUNK octets (0: all it can) of S
 * from *POS into IOV.  Remembers the predicted slots' bodies it filled
 * (every iovec past the first that is not 16 octets) in SLOTS. */
typedef struct slot {
  const uint8_t *p;
  size_t n;
} slot;

/* The slots filled and not yet found in a completed message; an
 * allocator that moves them along when a buffer moves (realloc). */
static slot *g_slots;
static size_t g_nslots, g_capslots;

#define AHDR 16
static void *mv_malloc(size_t n, void *ud)
{
  (void)ud;
  uint8_t *p = malloc(n + AHDR);
  if (!p)
    return NULL;
  memcpy(p, &n, sizeof n);
  return p + AHDR;
}
static void *mv_realloc(void *q, size_t n, void *ud)
{
  (void)ud;
  if (!q)
    return mv_malloc(n, ud);
  uint8_t *old = (uint8_t *)q - AHDR;
  size_t on;
  memcpy(&on, old, sizeof on);
  uint8_t *p = malloc(n + AHDR);       /* always moves: the worst case */
  if (!p)
    return NULL;
  memcpy(p + AHDR, q, on < n ? on : n);
  memcpy(p, &n, sizeof n);
  for (size_t k = 0; k < g_nslots; k++)
    if (g_slots[k].p >= (uint8_t *)q && g_slots[k].p < (uint8_t *)q + on)
      g_slots[k].p = p + AHDR + (g_slots[k].p - (uint8_t *)q);
  free(old);
  return p + AHDR;
}
static void mv_free(void *q, void *ud)
{
  (void)ud;
  if (q)
    free((uint8_t *)q - AHDR);
}
static const cdr_allocator mv_alloc = { mv_malloc, mv_realloc, mv_free, NULL };

/* giop_reasm_bufferv()/commit() over S, reads of at most CHUNK octets
 * (0: as many as posted; SEED != 0: random sizes up to CHUNK); cancel as
 * in ref_run() (between the reservation and the commit of the read that
 * passes CANCEL_AT). */
static outcome vec_run(const stream *s, size_t chunk, uint64_t seed, size_t max_message,
                       size_t cancel_at, uint32_t cancel_id)
{
  outcome o = { 0 };
  o.cancel_pos = SIZE_MAX;
  giop_reasm_opts op;
  giop_reasm_opts_default(&op);
  op.alloc = &mv_alloc;
  if (max_message)
    op.max_message = max_message;
  giop_reasm *r = giop_reasm_new(&op);
  ck_assert_ptr_nonnull(r);
  size_t pos = 0;
  int rc = CDR_OK;
  g_nslots = 0;
  bool cancelled = cancel_at == SIZE_MAX;
  uint64_t x = seed;
  while (pos < s->n) {
    struct iovec iov[GIOP_REASM_IOV_MAX];
    int n = -1;
    rc = giop_reasm_bufferv(r, iov, GIOP_REASM_IOV_MAX, &n);
    if (rc != CDR_OK) {
      ck_assert_int_eq(n, 0);
      break;
    }
    ck_assert(n >= 1 && n <= GIOP_REASM_IOV_MAX);
    size_t want = s->n - pos, posted = 0;
    for (int k = 0; k < n; k++)
      posted += iov[k].iov_len;
    ck_assert(posted >= 1);
    if (want > posted)
      want = posted;
    size_t c = chunk;
    if (seed && chunk) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      c = 1 + (size_t)((x >> 33) % chunk);
    }
    if (c && want > c)
      want = c;
    for (int b = 0; b < g_nbound; b++)
      if (g_bound[b] > pos && pos + want > g_bound[b])
        want = g_bound[b] - pos;
    if (!cancelled && pos + want > cancel_at) {
      (void)giop_reasm_cancel(r, cancel_id);
      o.cancel_pos = pos;
      cancelled = true;
    }
    size_t got = 0;
    for (int k = 0; k < n && got < want; k++) {
      size_t t = iov[k].iov_len < want - got ? iov[k].iov_len : want - got;
      memcpy(iov[k].iov_base, s->p + pos + got, t);
      if (k > 0 && iov[k].iov_len != 16) {
        if (g_nslots == g_capslots) {
          g_capslots = g_capslots * 2 + 16;
          g_slots = realloc(g_slots, g_capslots * sizeof *g_slots);
          ck_assert_ptr_nonnull(g_slots);
        }
        g_slots[g_nslots].p = iov[k].iov_base;
        g_slots[g_nslots].n = t;
        g_nslots++;
      }
      got += t;
    }
    o.reads++;
    if (n > 1)
      o.scatter++;
    pos += got;
    rc = giop_reasm_commit(r, got);
    /* Slots that hold their data in place in a message now complete
     * (counted before it is released: buffers are reused). */
    uint8_t *m;
    size_t len;
    while (giop_reasm_next(r, &m, &len)) {
      size_t keep = 0;
      for (size_t k = 0; k < g_nslots; k++) {
        if (g_slots[k].p >= m && g_slots[k].p + g_slots[k].n <= m + len)
          o.in_place += g_slots[k].n;
        else
          g_slots[keep++] = g_slots[k];
      }
      g_nslots = keep;
      put_u32(&o.msgs, (uint32_t)len, 1);
      put(&o.msgs, m, len);
      o.nmsg++;
      giop_reasm_release(r, m);
    }
    if (rc != CDR_OK)
      break;
  }
  if (!cancelled) {
    (void)giop_reasm_cancel(r, cancel_id);
    o.cancel_pos = pos;
  }
  finish(r, &o, rc);
  g_nslots = 0;
  return o;
}

static void same(const outcome *a, const outcome *b)
{
  ck_assert_msg(a->rc == b->rc, "%s: status %d, want %d", tu_ctx, a->rc, b->rc);
  ck_assert_msg(a->nmsg == b->nmsg, "%s: %u messages, want %u", tu_ctx, a->nmsg, b->nmsg);
  TU_ASSERT_BYTES(a->msgs.p, a->msgs.n, b->msgs.p, b->msgs.n);
  ck_assert_uint_eq(a->pending, b->pending);
  ck_assert_int_eq(a->phase, b->phase);
}

/* S read every way (whole reads, reads of a few fixed sizes, random ones)
 * gives what feeding it whole gives; returns the whole-read run. */
static outcome check_all(const stream *s, size_t max_message, size_t cancel_at, uint32_t cid)
{
  outcome ref = ref_run(s, max_message, SIZE_MAX, 0);
  static const size_t chunks[] = { 1, 7, 16, 17, 100, 1008, 1024, 1040, 4096, 5000, 0 };
  size_t nc = sizeof chunks / sizeof chunks[0];
  outcome last = { 0 };
  for (size_t k = 0; k < nc + 20; k++) {
    bool rnd = k >= nc;
    if (rnd)
      TU_CTX("random chunks, seed %zu", k - nc + 1);
    else
      TU_CTX("chunk %zu", chunks[k]);
    outcome v = vec_run(s, rnd ? 3000 : chunks[k], rnd ? k - nc + 1 : 0, max_message, cancel_at,
                        cid);
    if (cancel_at != SIZE_MAX) {
      /* Cancelled where this run's reads put it. */
      outcome rc = ref_run(s, max_message, v.cancel_pos, cid);
      same(&v, &rc);
      free(rc.msgs.p);
    } else {
      same(&v, &ref);
    }
    if (k == nc - 1)
      last = v;                         /* whole reads */
    else
      free(v.msgs.p);
  }
  free(ref.msgs.p);
  return last;
}

/* The message the reassembler should give for ID: header (no more
 * fragments, the size of all), then BODY octets (the request ID, then the
 * data put_data() made). */
static void want_msg(stream *w, int little, uint32_t id, size_t body)
{
  put_u32(w, (uint32_t)(12 + body), 1);
  put_hdr(w, 2, little, 0, (uint32_t)body);
  put_u32(w, id, little);
  put_data(w, id, 4, body - 4);
}

/* ---------------------------------------------------------------- tests */

/* 64 KiB in 1 KiB Fragments (our fragmenter), twice, the peer waiting
 * after each: the data arrives in place.  The first message: a 16 KiB read
 * into the spare (its first part and 15 Fragments, copied), then predicted
 * reads.  The second: its first part and the next header (1040 octets),
 * then the rest of that Fragment's body with the Fragments after it,
 * predicted.  A predicted read takes up to 128 Fragments and 128 KiB, as
 * far as the message buffer has room (it grows ahead of a prediction by
 * 16 KiB at most): 6 reads in all, 4 of them scatter reads (10 and 8 with
 * reads of 16 Fragments). */
START_TEST(test_predicted_in_place)
{
  for (int little = 0; little < 2; little++) {
    stream s = { 0 }, w = { 0 };
    size_t body = 65536 + 40;
    fragmented(&s, little, 5, body, 1024);
    g_bound[0] = s.n;
    g_nbound = 1;
    fragmented(&s, little, 6, body, 1024);
    want_msg(&w, little, 5, body);
    want_msg(&w, little, 6, body);
    /* 1024 + 64 Fragments of 1024 + a final one of 16 + 52: 12 + 65576 in all. */
    ck_assert_uint_eq(s.n, 2 * (1024 + 64 * 1024 + 16 + 52));
    outcome o = check_all(&s, 0, SIZE_MAX, 0);
    g_nbound = 0;
    TU_CTX("whole reads, little %d", little);
    ck_assert_int_eq(o.rc, CDR_OK);
    ck_assert_uint_eq(o.nmsg, 2);
    TU_ASSERT_BYTES(o.msgs.p, o.msgs.n, w.p, w.n);
    ck_assert_uint_eq(o.reads, 6);
    ck_assert_uint_eq(o.scatter, 4);
    ck_assert_uint_eq(o.in_place, (49 + 63) * 1008 + 2 * 52);
    free(o.msgs.p);
    free(s.p);
    free(w.p);
  }
}
END_TEST

/* A final Fragment exactly as large as the others, then a whole small
 * message and a new fragmented one in the same read: the octets past the
 * final Fragment are moved and processed, nothing is lost. */
START_TEST(test_final_full_size_then_more)
{
  stream s = { 0 };
  first12(&s, 1, 9, 1012);                  /* 1024 in all */
  for (int k = 0; k < 20; k++)
    frag12(&s, 1, 9, 1008, k < 19, 1012 + (size_t)k * 1008);
  put_hdr(&s, 2, 1, 2, 4);                  /* a CancelRequest */
  put_u32(&s, 77, 1);
  fragmented(&s, 1, 10, 5000, 1024);
  outcome o = check_all(&s, 0, SIZE_MAX, 0);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_uint_eq(o.nmsg, 3);
  ck_assert_uint_eq(o.msgs.n, 4 + 12 + 1012 + 20 * 1008 + 4 + 16 + 4 + 12 + 5000);
  ck_assert(o.scatter > 0);
  free(o.msgs.p);
  free(s.p);
}
END_TEST

/* The Fragments' size changes in the middle (smaller, larger, back). */
START_TEST(test_size_change)
{
  stream s = { 0 };
  size_t off = 1012;
  fragmented(&s, 0, 2, 3000, 1024);         /* a message of small parts before */
  g_bound[0] = s.n;
  g_nbound = 1;
  first12(&s, 0, 3, 1012);
  static const size_t sizes[] = { 1008, 1008, 1008, 504, 504, 2008, 1008, 1008, 8, 1008 };
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    frag12(&s, 0, 3, sizes[k], true, off);
    off += sizes[k];
  }
  frag12(&s, 0, 3, 100, false, off);
  off += 100;
  outcome o = check_all(&s, 0, SIZE_MAX, 0);
  g_nbound = 0;
  stream w = { 0 };
  want_msg(&w, 0, 2, 3000);
  put_u32(&w, (uint32_t)(12 + off), 1);
  put_hdr(&w, 2, 0, 0, (uint32_t)off);
  put_u32(&w, 3, 0);
  put_data(&w, 3, 4, off - 4);
  ck_assert_int_eq(o.rc, CDR_OK);
  TU_ASSERT_BYTES(o.msgs.p, o.msgs.n, w.p, w.n);
  ck_assert(o.scatter > 0);
  free(o.msgs.p);
  free(s.p);
  free(w.p);
}
END_TEST

/* Two requests' Fragments interleaved (GIOP 1.2 allows it): another ID in
 * a predicted slot, and a new message's header in one. */
START_TEST(test_interleaved)
{
  stream s = { 0 };
  first12(&s, 1, 1, 1012);
  size_t o1 = 1012, o2 = 1012;
  for (int k = 0; k < 6; k++) {
    frag12(&s, 1, 1, 1008, true, o1);
    o1 += 1008;
  }
  first12(&s, 1, 2, 1012);                  /* a Request where a Fragment of 1 was due */
  for (int k = 0; k < 30; k++) {
    uint32_t id = (k % 3 == 2) ? 2 : 1;     /* 1, 1, 2, 1, 1, 2, ... */
    size_t *off = id == 1 ? &o1 : &o2;
    frag12(&s, 1, id, 1008, true, *off);
    *off += 1008;
  }
  frag12(&s, 1, 2, 16, false, o2);
  o2 += 16;
  frag12(&s, 1, 1, 24, false, o1);
  o1 += 24;
  outcome o = check_all(&s, 0, SIZE_MAX, 0);
  stream w = { 0 };
  want_msg(&w, 1, 2, o2);
  want_msg(&w, 1, 1, o1);
  ck_assert_int_eq(o.rc, CDR_OK);
  ck_assert_uint_eq(o.nmsg, 2);
  TU_ASSERT_BYTES(o.msgs.p, o.msgs.n, w.p, w.n);
  free(o.msgs.p);
  free(s.p);
  free(w.p);
}
END_TEST

/* Headers in a predicted slot that are wrong: each gives the plain path's
 * error at the same point, with the messages completed before it. */
START_TEST(test_wrong_headers)
{
  for (int v = 0; v < 9; v++) {
    stream s = { 0 };
    fragmented(&s, 0, 40, 3000, 1024);     /* a whole message first */
    first12(&s, 0, 41, 1012);
    size_t off = 1012;
    for (int k = 0; k < 5; k++) {
      frag12(&s, 0, 41, 1008, true, off);
      off += 1008;
    }
    size_t at = s.n;                        /* the 6th Fragment's header */
    frag12(&s, 0, 41, 1008, true, off);
    frag12(&s, 0, 41, 1008, false, off + 1008);
    uint8_t *h = s.p + at;
    switch (v) {
    case 0: h[15] ^= 1; break;              /* another request ID (none pending) */
    case 1: h[7] = 0; break;                /* a Request, same ID (pending: PROTOCOL) */
    case 2: h[7] = 9; break;                /* no such type */
    case 3: h[6] |= 1; break;               /* the other byte order */
    case 4: h[5] = 1; break;                /* a 1.1 Fragment */
    case 5: h[2] = 'X'; break;              /* not GIOP */
    case 6: h[11] -= 8; break;              /* smaller, still a multiple of 8 */
    case 7: h[11] += 4; break;              /* not a multiple of 8 */
    case 8: h[6] |= 4; break;               /* an unknown flag */
    }
    TU_CTX("variant %d", v);
    outcome o = check_all(&s, 0, SIZE_MAX, 0);
    /* The other byte order reads the size as 0xf4030000: over max_message. */
    ck_assert_int_eq(o.rc, v == 3 ? CDR_E_LIMIT : CDR_E_PROTOCOL);
    ck_assert_uint_eq(o.nmsg, 1);
    free(o.msgs.p);
    free(s.p);
  }
}
END_TEST

/* The running total passes max_message inside a predicted read: the same
 * CDR_E_LIMIT as the plain path. */
START_TEST(test_limit_in_prediction)
{
  stream s = { 0 };
  fragmented(&s, 1, 50, 20000, 1024);
  for (size_t max = 9000; max <= 21000; max += 1000) {
    TU_CTX("max_message %zu", max);
    outcome o = check_all(&s, max, SIZE_MAX, 0);
    ck_assert_int_eq(o.rc, max < 20012 ? CDR_E_LIMIT : CDR_OK);
    ck_assert_uint_eq(o.nmsg, max < 20012 ? 0 : 1);
    free(o.msgs.p);
  }
  free(s.p);
}
END_TEST

/* giop_reasm_cancel() of the message being read into, between the
 * reservation and the commit: as the plain path (its later Fragments are
 * a protocol error; a message completed before is kept). */
START_TEST(test_cancel_during_read)
{
  stream s = { 0 };
  fragmented(&s, 0, 60, 2000, 1024);
  size_t start = s.n;
  g_bound[0] = start;
  g_nbound = 1;
  fragmented(&s, 0, 61, 40000, 1024);
  for (size_t at = start + 1100; at < s.n; at += 2999) {
    TU_CTX("cancel at %zu", at);
    outcome o = check_all(&s, 0, at, 61);
    /* Whole reads: the cancel comes before the read that holds octet AT,
     * which holds a Fragment header of 61 after it. */
    ck_assert_uint_eq(o.nmsg, 1);
    ck_assert_int_eq(o.rc, CDR_E_PROTOCOL);
    free(o.msgs.p);
  }
  g_nbound = 0;
  free(s.p);
}
END_TEST

/* The stream ends anywhere (the peer closed): no message completes that
 * should not, and what is pending is what the plain path holds. */
START_TEST(test_truncated)
{
  stream s = { 0 };
  fragmented(&s, 1, 70, 12000, 1024);
  fragmented(&s, 1, 71, 30000, 1024);
  size_t first = 12 + 12000 + 16 * 11;     /* the first message's octets: 1024 + 11 Fragments */
  stream t = { 0 };
  for (size_t cut = 1; cut < s.n; cut += cut < 2100 ? 1 : 37) {
    t.n = 0;
    put(&t, s.p, cut);
    TU_CTX("cut at %zu", cut);
    outcome ref = ref_run(&t, 0, SIZE_MAX, 0);
    outcome v = vec_run(&t, 0, 0, 0, SIZE_MAX, 0);
    same(&v, &ref);
    ck_assert_int_eq(v.rc, CDR_OK);
    ck_assert_uint_eq(v.nmsg, cut >= first ? 1 : 0);
    /* (A fragmented 1.2 message's header is 16 octets with its request ID.) */
    ck_assert_int_eq(v.phase, cut == first ? GIOP_REASM_EMPTY
                              : cut < 16 || (cut > first && cut < first + 16) ? GIOP_REASM_HEADER
                                                               : GIOP_REASM_BODY);
    free(ref.msgs.p);
    free(v.msgs.p);
    outcome r2 = vec_run(&t, 1500, 3, 0, SIZE_MAX, 0);
    outcome ref2 = ref_run(&t, 0, SIZE_MAX, 0);
    same(&r2, &ref2);
    free(r2.msgs.p);
    free(ref2.msgs.p);
  }
  free(t.p);
  free(s.p);
}
END_TEST

static size_t rnd(uint64_t *x, size_t n)
{
  *x = *x * 6364136223846793005u + 1442695040888963407u;
  return (size_t)((*x >> 33) % n);
}

/* Random streams: messages of random sizes, fragmented with random
 * fragment sizes, Fragments of a few requests interleaved, read in random
 * chunks; now and then an octet flipped. */
START_TEST(test_random_streams)
{
  uint64_t x = 12345;
#define RND(n) rnd(&x, n)
  for (int round = 0; round < 60; round++) {
    stream s = { 0 };
    /* Up to 3 messages in progress, each a list of parts. */
    stream parts[3] = { { 0 } };
    size_t np[3][1024], cnt[3] = { 0 }, pos[3] = { 0 };
    int little = (int)RND(2);
    for (int m = 0; m < 3; m++) {
      stream one = { 0 };
      size_t body = 100 + RND(20000), fs = 64 + 8 * RND(300);
      fragmented(&one, little, (uint32_t)(100 + m), body, fs);
      /* Split it into its parts again (headers say how long). */
      size_t o = 0;
      while (o < one.n) {
        uint32_t sz = ld32(one.p + o + 8, little);
        ck_assert_uint_lt(cnt[m], 1024);    /* at most 20100 / 48 + 1 parts */
        np[m][cnt[m]++] = 12 + sz;
        o += 12 + sz;
      }
      parts[m] = one;
    }
    size_t left = cnt[0] + cnt[1] + cnt[2], off[3] = { 0 };
    while (left) {
      int m = (int)RND(3);
      if (pos[m] == cnt[m])
        continue;
      put(&s, parts[m].p + off[m], np[m][pos[m]]);
      off[m] += np[m][pos[m]];
      pos[m]++;
      left--;
    }
    if (round % 4 == 3)
      s.p[RND(s.n)] ^= (uint8_t)(1u << RND(8));
    TU_CTX("round %d", round);
    outcome ref = ref_run(&s, 0, SIZE_MAX, 0);
    if (round % 4 != 3) {
      ck_assert_int_eq(ref.rc, CDR_OK);
      ck_assert_uint_eq(ref.nmsg, 3);
    }
    for (uint64_t seed = 1; seed <= 6; seed++) {
      outcome v = vec_run(&s, seed == 6 ? 0 : 5000, seed, 0, SIZE_MAX, 0);
      same(&v, &ref);
      free(v.msgs.p);
    }
    free(ref.msgs.p);
    for (int m = 0; m < 3; m++)
      free(parts[m].p);
    free(s.p);
  }
#undef RND
}
END_TEST

/* MAX < 3 never predicts; MAX < 1 is refused. */
START_TEST(test_max_iov)
{
  giop_reasm *r = mk(0);
  struct iovec iov[2];
  int n = 5;
  ck_assert_int_eq(giop_reasm_bufferv(r, iov, 0, &n), CDR_E_INVALID);
  ck_assert_int_eq(n, 0);
  stream s = { 0 };
  fragmented(&s, 0, 1, 9000, 1024);
  size_t pos = 0;
  unsigned reads = 0;
  while (pos < s.n) {
    ck_assert_int_eq(giop_reasm_bufferv(r, iov, 2, &n), CDR_OK);
    ck_assert_int_eq(n, 1);
    size_t t = iov[0].iov_len < s.n - pos ? iov[0].iov_len : s.n - pos;
    memcpy(iov[0].iov_base, s.p + pos, t);
    pos += t;
    ck_assert_int_eq(giop_reasm_commit(r, t), CDR_OK);
    reads++;
  }
  uint8_t *m;
  size_t len;
  ck_assert_int_eq(giop_reasm_next(r, &m, &len), 1);
  ck_assert_uint_eq(len, 9012);
  giop_reasm_release(r, m);
  giop_reasm_free(r);
  free(s.p);
}
END_TEST


/* giop_fragmenter_nextv_batch() gives the octets giop_fragmenter_nextv()
 * gives, fragment for fragment, whatever the pieces, fragment size,
 * version, byte order, batch size and room. */
static void gather(stream *o, const struct iovec *v, int n)
{
  for (int k = 0; k < n; k++)
    put(o, v[k].iov_base, v[k].iov_len);
}

START_TEST(test_fragmenter_batch)
{
  uint64_t x = 777;
  for (int round = 0; round < 400; round++) {
    int minor = 1 + (int)rnd(&x, 2), little = (int)rnd(&x, 2);
    size_t body = 8 + rnd(&x, 30000);
    stream m = { 0 };
    put_hdr(&m, minor, little, (int)(minor == 2 ? rnd(&x, 2) : 1), (uint32_t)body);
    put_data(&m, 9, 0, body);
    /* Cut into up to 6 pieces, the first holding the header. */
    struct iovec seg[6];
    int nseg = 1 + (int)rnd(&x, 6);
    size_t at = 0;
    for (int k = 0; k < nseg; k++) {
      size_t left = m.n - at, take;
      if (k == nseg - 1)
        take = left;
      else
        take = (k == 0 ? 12 : 0) + rnd(&x, left - (k == 0 ? 12 : 0) + 1);
      seg[k].iov_base = m.p + at;
      seg[k].iov_len = take;
      at += take;
    }
    size_t fs = 64 + rnd(&x, 3000);
    uint32_t id = (uint32_t)rnd(&x, 1000);
    giop_fragmenter a, b;
    ck_assert_int_eq(giop_fragmenter_init_iov(&a, seg, nseg, m.n, fs, id), CDR_OK);
    ck_assert_int_eq(giop_fragmenter_init_iov(&b, seg, nseg, m.n, fs, id), CDR_OK);
    stream wa = { 0 }, wb = { 0 };
    unsigned na = 0, nb = 0;
    struct iovec v[64];
    int n;
    while (giop_fragmenter_nextv(&a, v, 64, &n) == 1) {
      gather(&wa, v, n);
      na++;
    }
    int nh = 1 + (int)rnd(&x, 8), max = nseg + 1 + (int)rnd(&x, 20);
    uint8_t hdr[8][16];
    for (;;) {
      int rc = giop_fragmenter_nextv_batch(&b, hdr, nh, v, max, &n);
      ck_assert_int_ge(rc, 0);
      ck_assert_int_le(rc, nh);
      ck_assert_int_le(n, max);
      if (rc == 0)
        break;
      gather(&wb, v, n);
      nb += (unsigned)rc;
    }
    TU_CTX("round %d: 1.%d, %zu octets in %d pieces, fragments of %zu", round, minor, m.n, nseg, fs);
    ck_assert_uint_eq(na, nb);
    TU_ASSERT_BYTES(wb.p, wb.n, wa.p, wa.n);
    free(m.p);
    free(wa.p);
    free(wb.p);
  }
  giop_fragmenter f;
  stream m = { 0 };
  put_hdr(&m, 2, 0, 0, 4000);
  put_data(&m, 1, 0, 4000);
  struct iovec seg = { m.p, m.n }, v[4];
  uint8_t hdr[1][16];
  int n = 9;
  ck_assert_int_eq(giop_fragmenter_init_iov(&f, &seg, 1, m.n, 1024, 1), CDR_OK);
  ck_assert_int_eq(giop_fragmenter_nextv_batch(&f, hdr, 0, v, 4, &n), CDR_E_INVALID);
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(giop_fragmenter_nextv_batch(&f, hdr, 1, v, 1, &n), CDR_E_INVALID);
  ck_assert_int_eq(giop_fragmenter_init(&f, m.p, m.n, 1024, 1), CDR_OK);
  ck_assert_int_eq(giop_fragmenter_nextv_batch(&f, hdr, 1, v, 4, &n), CDR_E_INVALID);
  free(m.p);
}
END_TEST

/* ---------------------------------------------------------------- misplaced past the spare
 * A predicted read posts up to 128 KiB; what lands in it past a final
 * Fragment (the next messages, garbage) can be more than the 16 KiB spare
 * holds: it is moved into a spare of its size and processed as the plain
 * path would, with the same results. */

/* A fragmented request, then at once a 40 KiB unfragmented one and another
 * fragmented one: whole reads take the second message into the predicted
 * slots of the first (more than 16 KiB misplaced). */
START_TEST(test_misplaced_large)
{
  for (int little = 0; little < 2; little++) {
    stream s = { 0 }, w = { 0 };
    fragmented(&s, little, 21, 20000, 1024);
    size_t one = s.n;
    put_hdr(&s, 2, little, 0, 40000);
    put_u32(&s, 22, little);
    put_data(&s, 22, 4, 40000 - 4);
    fragmented(&s, little, 23, 30000, 1024);
    want_msg(&w, little, 21, 20000);
    want_msg(&w, little, 22, 40000);
    want_msg(&w, little, 23, 30000);
    outcome o = check_all(&s, 0, SIZE_MAX, 0);
    TU_CTX("whole reads, little %d", little);
    ck_assert_int_eq(o.rc, CDR_OK);
    ck_assert_uint_eq(o.nmsg, 3);
    TU_ASSERT_BYTES(o.msgs.p, o.msgs.n, w.p, w.n);
    /* Whole reads: the spare's 16 KiB (the first part and 15 Fragments),
     * then one predicted read (the room of the first message's buffer)
     * that took its last 3 Fragments in place, the final one, and more
     * than 16 KiB of what follows, misplaced; then plain reads. */
    ck_assert(s.n - one > 16384 && s.n - 16384 < 131072);
    ck_assert_uint_eq(o.reads, 5);
    ck_assert_uint_eq(o.scatter, 1);
    ck_assert_uint_eq(o.in_place, 3 * 1008);
    free(o.msgs.p);
    free(s.p);
    free(w.p);
  }
}
END_TEST

/* The same with 30 KiB of garbage after the final Fragment: the error the
 * plain path gives (check_all() compares every read pattern's outcome). */
START_TEST(test_misplaced_large_garbage)
{
  stream s = { 0 };
  fragmented(&s, 1, 31, 20000, 1024);
  for (int k = 0; k < 30000; k++)
    put(&s, "X", 1);
  outcome o = check_all(&s, 0, SIZE_MAX, 0);
  ck_assert_int_eq(o.rc, CDR_E_PROTOCOL);
  ck_assert_uint_eq(o.nmsg, 1);
  free(o.msgs.p);
  free(s.p);
}
END_TEST

static Suite *fragread_suite(void)
{
  Suite *s = suite_create("fragread");
  TCase *tc = tcase_create("predicted");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_predicted_in_place);
  tcase_add_test(tc, test_final_full_size_then_more);
  tcase_add_test(tc, test_size_change);
  tcase_add_test(tc, test_interleaved);
  tcase_add_test(tc, test_wrong_headers);
  tcase_add_test(tc, test_limit_in_prediction);
  tcase_add_test(tc, test_cancel_during_read);
  tcase_add_test(tc, test_truncated);
  tcase_add_test(tc, test_random_streams);
  tcase_add_test(tc, test_max_iov);
  tcase_add_test(tc, test_fragmenter_batch);
  tcase_add_test(tc, test_misplaced_large);
  tcase_add_test(tc, test_misplaced_large_garbage);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = fragread_suite };
