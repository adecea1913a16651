/* frag.c - GIOP fragmentation and reassembly (iiop/frag.h).
 *
 * Split points.  GIOP 1.2: every split is at a multiple of 8 in message
 * coordinates (octet 0 is the first octet of the original 12-octet header),
 * so the first message is FRAG_SIZE octets in all (message_size 4 mod 8, as
 * omniORB's 8180) and each non-final Fragment is 16 + a multiple of 8.
 * Fragment data then starts at offset 16 of its Fragment message and at a
 * stream position that is 0 mod 8: alignment relative to the reassembled
 * stream and relative to the Fragment message agree, and no aligned
 * primitive of 8 octets or less is split.
 *
 * GIOP 1.1 (our choice, as frag.h leaves it open): splits at positions that
 * are 4 mod 8, so the first message is FRAG_SIZE - 4 octets in all and each
 * non-final Fragment 12 + a multiple of 8.  Fragment data starts at offset
 * 12 of its Fragment message and at a stream position that is 12 mod 8 too,
 * so a receiver that aligns relative to the continued stream (the spec
 * reading, and our reassembler) and one that aligns relative to each
 * Fragment message (the Eclipse ORB, docs/wire-notes.md) read the same thing.  The
 * price: an 8-octet primitive at an 8-aligned position may straddle a split
 * (the fragmenter does not know the message's types); ulong and smaller
 * never do.  We send GIOP 1.2 by default, so 1.1 is for old peers only.
 *
 * Reassembly.  A message is assembled in one buffer from the allocator: the
 * header and body of an unfragmented message (one memcpy from the caller's
 * read buffer, or none when it was read through giop_reasm_buffer() into a
 * "spare" buffer that then simply becomes the message), or the first
 * message followed by each Fragment's data (fragment headers dropped).  A
 * buffer never grows past the octets its header announced for an
 * unfragmented message; a fragmented message's buffer doubles (bounded by
 * max_message) so that a long run of Fragments costs linear copying.
 * Buffers carry their bookkeeping in front of the data, so a message handed
 * out by giop_reasm_next() is found again in O(1) by giop_reasm_release().
 * Released buffers are kept for reuse (8 of up to 256 KiB, 64 in all of up
 * to 16 KiB: rb_drop()), so a steady stream of messages read through
 * giop_reasm_buffer() allocates nothing, even with the replies of up to 64
 * callers of one connection out at once.
 *
 * GIOP 1.1 fragments are concatenated as they are.  A sender that aligns each
 * 1.1 Fragment on its own start and puts splits at other positions than ours
 * (the Eclipse ORB puts them anywhere) produces data that no contiguous
 * stream represents; such messages decode correctly only when the splits
 * happen to fall at positions 4 mod 8.  Peers speaking 1.2 have no such
 * problem.
 */
#include "config.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <iiop/frag.h>
#include "internal.h"

/* ---------------------------------------------------------------- helpers */

/* May a message of TYPE be fragmented in GIOP 1.MINOR?  (1.1: Request and
 * Reply; 1.2 adds LocateRequest and LocateReply.) */
static bool fragmentable(unsigned minor, unsigned type)
{
  if (minor == 1)
    return type == GIOP_REQUEST || type == GIOP_REPLY;
  if (minor == 2)
    return type == GIOP_REQUEST || type == GIOP_REPLY || type == GIOP_LOCATE_REQUEST
           || type == GIOP_LOCATE_REPLY;
  return false;
}

/* ---------------------------------------------------------------- fragmenter */

int giop_fragmenter_init(giop_fragmenter *f, const uint8_t *msg, size_t len, size_t frag_size,
                         uint32_t request_id)
{
  giop_header h;
  if (f == NULL || msg == NULL || len < GIOP_HEADER_SIZE)
    return CDR_E_INVALID;
  if (giop_header_parse(msg, len, &h) != CDR_OK || (h.flags & GIOP_FLAG_MORE_FRAGMENTS)
      || !fragmentable(h.minor, h.type))
    return CDR_E_INVALID;
  if ((uint64_t)h.size != (uint64_t)len - GIOP_HEADER_SIZE)
    return CDR_E_PROTOCOL;
  if (frag_size == 0)
    frag_size = GIOP_FRAG_DEFAULT;
  frag_size &= ~(size_t)7;
  if (frag_size < GIOP_FRAG_MIN)
    frag_size = GIOP_FRAG_MIN;

  giop_fragmenter t;
  memset(&t, 0, sizeof t);
  t.msg = msg;
  t.len = len;
  t.frag_size = frag_size;
  t.request_id = request_id;
  t.minor = h.minor;
  t.flags = h.flags;
  if (len > frag_size) {
    /* The first message: 1.2 ends at FRAG_SIZE (0 mod 8), 1.1 at
     * FRAG_SIZE - 4 (4 mod 8); see the top of the file. */
    size_t first = h.minor == 2 ? frag_size : frag_size - 4;
    giop_header fh = h;
    fh.flags |= GIOP_FLAG_MORE_FRAGMENTS;
    fh.size = (uint32_t)(first - GIOP_HEADER_SIZE);
    giop_header_write(&fh, t.hdr);
    t.pos = first;
  }
  *f = t;
  return CDR_OK;
}

int giop_fragmenter_init_iov(giop_fragmenter *f, const struct iovec *segs, int nseg,
                             size_t len, size_t frag_size, uint32_t request_id)
{
  if (f == NULL || segs == NULL || nseg < 1 || segs[0].iov_len < GIOP_HEADER_SIZE)
    return CDR_E_INVALID;
  size_t sum = 0;
  for (int k = 0; k < nseg; k++)
    sum += segs[k].iov_len;
  if (sum != len)
    return CDR_E_INVALID;
  /* The header is in the first piece: the offsets below are the message's,
   * mapped onto the pieces by giop_fragmenter_nextv(). */
  int rc = giop_fragmenter_init(f, segs[0].iov_base, len, frag_size, request_id);
  if (rc != CDR_OK)
    return rc;
  f->segs = segs;
  f->nseg = nseg;
  f->si = 0;
  f->sbase = 0;
  return CDR_OK;
}

/* The next fragment: its header (*HL octets at f->hdr; 0: the message goes
 * whole) and its data, *D octets at message offset *OFF.  0 when done. */
static inline __attribute__((always_inline)) int frag_step(giop_fragmenter *f, size_t *hl,
                                                          size_t *off, size_t *d)
{
  if (f->done)
    return 0;
  if (!f->first_done) {
    f->first_done = 1;
    if (f->len <= f->frag_size) {
      *hl = 0;
      *off = 0;
      *d = f->len;
      f->done = 1;
      return 1;
    }
    *hl = GIOP_HEADER_SIZE;
    *off = GIOP_HEADER_SIZE;
    *d = f->pos - GIOP_HEADER_SIZE;
    return 1;
  }
  /* A Fragment: 16 + d octets (1.2) or 12 + d (1.1), d a multiple of 8, at
   * most FRAG_SIZE (1.2) or FRAG_SIZE - 4 (1.1) in all: d <= FRAG_SIZE - 16
   * in both. */
  size_t rest = f->len - f->pos, cap = f->frag_size - 16;
  bool last = rest <= cap;
  size_t dd = last ? rest : cap;
  int little = f->flags & GIOP_FLAG_LITTLE_ENDIAN;
  /* The header written in place (what giop_header_write() writes; its
   * fields are valid by construction: version 1.1 or 1.2, a Fragment). */
  uint8_t *h = f->hdr;
  memcpy(h, "GIOP", 4);
  h[4] = 1;
  h[5] = f->minor;
  h[6] = (uint8_t)(little | (last ? 0 : GIOP_FLAG_MORE_FRAGMENTS));
  h[7] = GIOP_FRAGMENT;
  iiop__store32(h + 8, (uint32_t)(dd + (f->minor == 2 ? 4 : 0)), little);
  *hl = GIOP_HEADER_SIZE;
  if (f->minor == 2) {
    iiop__store32(f->hdr + GIOP_HEADER_SIZE, f->request_id, little);
    *hl += 4;
  }
  *off = f->pos;
  *d = dd;
  f->pos += dd;
  if (last)
    f->done = 1;
  return 1;
}

int giop_fragmenter_next(giop_fragmenter *f, struct iovec iov[2], int *n)
{
  size_t hl, off, d;
  if (!frag_step(f, &hl, &off, &d)) {
    *n = 0;
    return 0;
  }
  int k = 0;
  if (hl) {
    iov[k].iov_base = f->hdr;
    iov[k].iov_len = hl;
    k++;
  }
  iov[k].iov_base = (void *)(f->msg + off);
  iov[k].iov_len = d;
  *n = k + 1;
  return 1;
}

int giop_fragmenter_nextv(giop_fragmenter *f, struct iovec *iov, int max, int *n)
{
  *n = 0;
  if (!f->segs || max < f->nseg + 1)
    return CDR_E_INVALID;
  size_t hl, off, d;
  if (!frag_step(f, &hl, &off, &d))
    return 0;
  int k = 0;
  if (hl) {
    iov[k].iov_base = f->hdr;
    iov[k].iov_len = hl;
    k++;
  }
  /* The pieces [off, off + d) falls on; fragments come in order, so the
   * cursor only moves forward. */
  while (f->si < f->nseg && f->sbase + f->segs[f->si].iov_len <= off) {
    f->sbase += f->segs[f->si].iov_len;
    f->si++;
  }
  int si = f->si;
  size_t base = f->sbase;
  while (d > 0 && si < f->nseg) {
    size_t in = off - base, take = f->segs[si].iov_len - in;
    if (take > d)
      take = d;
    iov[k].iov_base = (uint8_t *)f->segs[si].iov_base + in;
    iov[k].iov_len = take;
    k++;
    off += take;
    d -= take;
    if (d > 0) {
      base += f->segs[si].iov_len;
      si++;
    }
  }
  *n = k;
  return 1;
}

int giop_fragmenter_nextv_batch(giop_fragmenter *f, uint8_t (*hdr)[16], int nh,
                                struct iovec *iov, int max, int *n)
{
  *n = 0;
  if (!f->segs || nh < 1 || max < f->nseg + 1)
    return CDR_E_INVALID;
  int nf = 0, k = 0;
  size_t cap = f->frag_size - 16, hl = f->minor == 2 ? 16 : GIOP_HEADER_SIZE;
  /* A non-final Fragment's header: the same for all of them (what
   * frag_step() writes). */
  int little = f->flags & GIOP_FLAG_LITTLE_ENDIAN;
  uint8_t t[16];
  memcpy(t, "GIOP", 4);
  t[4] = 1;
  t[5] = f->minor;
  t[6] = (uint8_t)(little | GIOP_FLAG_MORE_FRAGMENTS);
  t[7] = GIOP_FRAGMENT;
  iiop__store32(t + 8, (uint32_t)(cap + (f->minor == 2 ? 4 : 0)), little);
  iiop__store32(t + GIOP_HEADER_SIZE, f->request_id, little);
  /* The fragmenter's fields in locals: the stores through IOV and HDR
   * could alias them, and the loop would reload them at every step. */
  const struct iovec *segs = f->segs;
  const int nseg = f->nseg;
  size_t len = f->len;
  while (nf < nh && !f->done && k + nseg + 1 <= max) {
    if (!f->first_done || len - f->pos <= cap) {
      /* The first part, or the final Fragment: the general step. */
      int m = 0;
      int rc = giop_fragmenter_nextv(f, iov + k, max - k, &m);
      if (rc < 0)
        return rc;
      if (rc == 0)
        break;
      if (iov[k].iov_base == (void *)f->hdr) {
        memcpy(hdr[nf], f->hdr, 16);
        iov[k].iov_base = hdr[nf];
      }
      k += m;
      nf++;
      continue;
    }
    /* Non-final Fragments, as many as fit: C of them (each takes at most
     * NSEG + 1 entries). */
    size_t pos = f->pos, sbase = f->sbase;
    int si = f->si;
    size_t c = (len - pos - 1) / cap;
    if (c > (size_t)(nh - nf))
      c = (size_t)(nh - nf);
    if (c > (size_t)((max - k) / (nseg + 1)))
      c = (size_t)((max - k) / (nseg + 1));
    for (size_t j = 0; j < c; j++) {
      memcpy(hdr[nf], t, 16);
      iov[k].iov_base = hdr[nf];
      iov[k].iov_len = hl;
      k++;
      nf++;
      while (si < nseg && sbase + segs[si].iov_len <= pos) {
        sbase += segs[si].iov_len;
        si++;
      }
      if (pos + cap <= sbase + segs[si].iov_len) {
        /* Inside one piece (the common case). */
        iov[k].iov_base = (uint8_t *)segs[si].iov_base + (pos - sbase);
        iov[k].iov_len = cap;
        k++;
        pos += cap;
        continue;
      }
      size_t off = pos, d = cap;
      pos += cap;
      int sj = si;
      size_t base = sbase;
      while (d > 0 && sj < nseg) {
        size_t in = off - base, take = segs[sj].iov_len - in;
        if (take > d)
          take = d;
        iov[k].iov_base = (uint8_t *)segs[sj].iov_base + in;
        iov[k].iov_len = take;
        k++;
        off += take;
        d -= take;
        if (d > 0) {
          base += segs[sj].iov_len;
          sj++;
        }
      }
    }
    if (c == 0)
      break;                          /* no room for one more */
    f->pos = pos;
    f->sbase = sbase;
    f->si = si;
  }
  *n = k;
  return nf;
}

/* ---------------------------------------------------------------- reassembler */

#define SPARE_CAP ((size_t)16384)     /* a zero-copy read at a message start */
#define PRED_READ_MAX ((size_t)131072) /* most octets a predicted read posts */
#define INIT_CAP ((size_t)65536)      /* first buffer of a large message */
#define FRAG_HDR_ONLY ((size_t)4096) /* parts this large are read header first */
#define SMALL_CAP ((size_t)4096)      /* least room of a message buffer, so that small
                                       * messages (several arriving in one read) reuse
                                       * cached buffers instead of allocating each */
#define CACHE_N 8                     /* released buffers kept for reuse ... */
#define CACHE_MAX ((size_t)262144)    /* ... when no larger than this, ... */
#define CACHE_SMALL_N 64              /* ... and up to this many when no larger than */
#define CACHE_SMALL ((size_t)16384)   /* this (SPARE_CAP): the replies of that many
                                       * callers of one connection, out at once */

enum { K_NONE, K_MSG, K_PEND12, K_PEND11, K_DONE, K_TAKEN };
enum { ST_HDR, ST_BODY };
enum { RM_SPARE, RM_BODY, RM_SKIP, RM_PRED };

/* A message buffer: this header, then CAP octets of message. */
typedef struct rbuf {
  struct rbuf *next, *prev;  /* pending list (1.2), done queue, taken list */
  size_t cap;                /* octets of room */
  size_t len;                /* octets filled */
  size_t total;              /* fragmented: 12 + body octets announced so far */
  uint32_t id;               /* fragmented 1.2: the request ID */
  size_t charged;            /* octets charged to the memory budget for it */
  uint8_t kind;              /* K_* */
  uint8_t order;             /* fragmented: the first message's byte-order flag */
  uint8_t drop;              /* fragmented: dropped (giop_reasm_skip_current): its later
                              * Fragments are skipped, and it has no data */
  uint8_t quota;             /* cached uncharged after a charge: CAP counted in
                              * uncharged_cached */
} rbuf;

/* Octets of buffers that were charged to a memory budget and now wait
 * uncharged in a reassembler's cache, over every reassembler of the
 * process: at most UNCHARGED_CACHE_MAX.  A charged buffer kept charged
 * would hold budget that a connection which sends nothing more never
 * gives back (no budget waiter could get it: docs/hostile-input.md);
 * freed, a steady stream of large messages (a 64 KiB string echo) would
 * allocate per call.  Past the bound such buffers are freed. */
#define UNCHARGED_CACHE_MAX ((size_t)8 << 20)
static size_t uncharged_cached; /* atomic */

static bool quota_take(size_t n)
{
  size_t was = __atomic_fetch_add(&uncharged_cached, n, __ATOMIC_RELAXED);
  if (was + n <= UNCHARGED_CACHE_MAX)
    return true;
  __atomic_fetch_sub(&uncharged_cached, n, __ATOMIC_RELAXED);
  return false;
}

static void quota_give(rbuf *b)
{
  if (b->quota) {
    __atomic_fetch_sub(&uncharged_cached, b->cap, __ATOMIC_RELAXED);
    b->quota = 0;
  }
}

#define RB_HDR ((sizeof(rbuf) + 15) & ~(size_t)15)
static inline uint8_t *rb_data(rbuf *b) { return (uint8_t *)b + RB_HDR; }

struct giop_reasm {
  const cdr_allocator *a;
  size_t max_message;
  size_t max_total;          /* a fragmented message in all */
  uint32_t max_pending;
  int err;                   /* sticky */
  int err_minor;             /* the version to answer ERR in (giop_reasm_error_minor) */
  uint8_t err_hdr[GIOP_HEADER_SIZE]; /* the refused header's first octets (giop_reasm_error_text) */
  uint8_t err_hdr_n;         /* how many */
  int st;                    /* ST_HDR: expecting a header; ST_BODY: a part's octets */
  rbuf *tgt;                 /* ST_BODY: where they go (NULL: cancelled, skip them) */
  size_t rem;                /* ST_BODY: octets of the current part still to come */
  uint8_t last;              /* ST_BODY: the part completes its message */
  uint8_t hdr_have;          /* ST_HDR: header octets gathered in hdr */
  size_t last_part;          /* octets of the last part begun, header included */
  size_t first_part;         /* ... of the first part of the last fragmented message */
  uint8_t hdr[16];
  rbuf *spare;               /* zero-copy read buffer at a message start */
  size_t room;               /* the reservation giop_reasm_buffer() gave; 0: none */
  int rmode;                 /* RM_*: where that reservation is */
  uint8_t *resv;             /* RM_BODY: where it starts */
  size_t resv_body;          /* RM_BODY: octets of it that are the current part's body;
                              * past them, up to 16 header octets of the next part */
  rbuf *zombie;              /* a target cancelled while a reservation was in it */
  rbuf *pend;                /* GIOP 1.2 fragmented messages in progress */
  uint32_t npend;
  rbuf *p11;                 /* the GIOP 1.1 fragmented message in progress */
  rbuf *done_head, *done_tail;
  rbuf *taken;               /* handed out, not released */
  rbuf *cache[CACHE_SMALL_N]; /* released buffers: at most CACHE_N larger than
                              * CACHE_SMALL, CACHE_SMALL_N in all */
  unsigned ncache;
  int (*charge)(void *ud, size_t n);    /* the memory budget (NULL: none) */
  void (*uncharge)(void *ud, size_t n);
  void *charge_ud;
  bool held;                 /* the spare holds octets a refused charge left unprocessed */
  /* Predictive scatter reads (giop_reasm_bufferv): */
  uint32_t pred_id;          /* the last part was a non-final 1.2 Fragment of this ID ... */
  size_t pred_d;             /* ... with this many data octets (0: no prediction) */
  size_t small_first;        /* the last message begun was fragmented, its first part this
                              * large and < FRAG_HDR_ONLY (0: otherwise) */
  rbuf *ptgt;                /* RM_PRED: the message the slots are in (NULL: cancelled) */
  size_t pred_rem0;          /* RM_PRED: octets of the current part's body posted first */
  unsigned pred_k;           /* RM_PRED: predicted Fragments posted after them ... */
  size_t pred_dd;            /* RM_PRED: ... each with this many data octets ... */
  uint8_t *pbase;            /* RM_PRED: ... the first posted body octet's place */
  uint8_t phdr[GIOP_REASM_PRED_MAX][16];  /* RM_PRED: their headers' slots */
  uint8_t pexp[16];          /* RM_PRED: a non-final Fragment's header as predicted */
};

void giop_reasm_opts_default(giop_reasm_opts *o)
{
  o->max_message = (size_t)64 << 20;
  o->max_fragmented = 0;
  o->max_pending = 64;
  o->alloc = NULL;
  o->charge = NULL;
  o->uncharge = NULL;
  o->charge_ud = NULL;
}

static void rb_free(giop_reasm *r, rbuf *b)
{
  if (b) {
    if (b->charged)
      r->uncharge(r->charge_ud, b->charged);
    quota_give(b);
    r->a->free(b, r->a->ud);
  }
}

/* A buffer with room for CAP octets: the smallest cached one that is big
 * enough (so that small messages leave the spare's size to the spare), or
 * a new one.  A cached one taken keeps its place in uncharged_cached when
 * KEEP_QUOTA (the spare: uncharged while it waits for a read). */
static rbuf *rb_take(giop_reasm *r, size_t cap, bool keep_quota)
{
  unsigned best = r->ncache;
  for (unsigned k = 0; k < r->ncache; k++)
    if (r->cache[k]->cap >= cap && (best == r->ncache || r->cache[k]->cap < r->cache[best]->cap)) {
      best = k;
      if (r->cache[k]->cap == cap)
        break;
    }
  if (best < r->ncache) {
    rbuf *b = r->cache[best];
    r->cache[best] = r->cache[--r->ncache];
    if (!keep_quota)
      quota_give(b);
    b->len = 0;
    b->kind = K_NONE;
    b->drop = 0;
    return b;
  }
  if (cap > SIZE_MAX - RB_HDR)
    return NULL;
  rbuf *b = r->a->malloc(RB_HDR + cap, r->a->ud);
  if (!b)
    return NULL;
  memset(b, 0, sizeof *b);
  b->cap = cap;
  return b;
}

static rbuf *rb_new(giop_reasm *r, size_t cap)
{
  return rb_take(r, cap, false);
}

/* The spare S becomes a message: a large buffer reused as the spare is
 * charged as the message it now is; refused, it stays counted in
 * uncharged_cached (bounded) and is charged if it grows. */
static inline void spare_charge(giop_reasm *r, rbuf *s)
{
  if (s->quota && r->charge && r->charge(r->charge_ud, s->cap) == CDR_OK) {
    quota_give(s);
    s->charged = s->cap;
  }
}

/* Done with B: keep it for reuse or free it.  A buffer charged to the
 * budget is kept only uncharged, within UNCHARGED_CACHE_MAX (else freed):
 * kept charged, its charge would stay held by a connection that may send
 * nothing more, which no waiter for the budget could ever get back
 * (docs/hostile-input.md, the budget).  The cache only
 * ever holds buffers that were out at once (a buffer is allocated only
 * when none cached fits), so it holds no more than the most messages that
 * were out at once -- e.g. the replies of a connection's callers that one
 * read brought -- and at most CACHE_N buffers of up to CACHE_MAX octets
 * plus CACHE_SMALL_N - CACHE_N of up to CACHE_SMALL (2.9 MiB in all). */
static void rb_drop(giop_reasm *r, rbuf *b)
{
  if (!r->err && b->cap >= SMALL_CAP && b->cap <= CACHE_MAX &&
      (r->ncache < CACHE_N || (b->cap <= CACHE_SMALL && r->ncache < CACHE_SMALL_N)) &&
      (!b->charged || quota_take(b->cap))) {
    if (b->charged) {
      r->uncharge(r->charge_ud, b->charged);
      b->charged = 0;
      b->quota = 1;
    }
    b->kind = K_NONE;
    r->cache[r->ncache++] = b;
  } else {
    rb_free(r, b);
  }
}

static void list_free(giop_reasm *r, rbuf *b)
{
  while (b) {
    rbuf *n = b->next;
    rb_free(r, b);
    b = n;
  }
}

static rbuf *find12(const giop_reasm *r, uint32_t id)
{
  for (rbuf *b = r->pend; b; b = b->next)
    if (b->id == id)
      return b;
  return NULL;
}

static void pend_unlink(giop_reasm *r, rbuf *b)
{
  if (b->prev)
    b->prev->next = b->next;
  else
    r->pend = b->next;
  if (b->next)
    b->next->prev = b->prev;
  b->next = b->prev = NULL;
  r->npend--;
}

/* Free everything incomplete, the spare and the cache. */
static void free_incomplete(giop_reasm *r)
{
  if (r->tgt && r->tgt->kind == K_MSG)
    rb_free(r, r->tgt);
  r->tgt = NULL;
  list_free(r, r->pend);
  r->pend = NULL;
  r->npend = 0;
  rb_free(r, r->p11);
  r->p11 = NULL;
  rb_free(r, r->spare);
  r->spare = NULL;
  rb_free(r, r->zombie);
  r->zombie = NULL;
  while (r->ncache)
    rb_free(r, r->cache[--r->ncache]);
  r->st = ST_HDR;
  r->hdr_have = 0;
  r->rem = 0;
  r->room = 0;
  r->held = false;
}

/* Record ERR and free everything incomplete: nothing more is accepted, so
 * nothing incomplete can ever complete.  Completed messages stay available. */
static int fail(giop_reasm *r, int err)
{
  if (!r->err) {
    r->err = err;
    free_incomplete(r);
  }
  return r->err;
}

/* fail() for the header H (HAVE octets) of the part being refused: a
 * protocol error records the version to answer it in. */
static int fail_hdr(giop_reasm *r, int err, const uint8_t *h, size_t have)
{
  if (!r->err) {
    if (err == CDR_E_PROTOCOL)
      r->err_minor = iiop__answer_minor(h, have, -1);
    r->err_hdr_n = (uint8_t)(have < GIOP_HEADER_SIZE ? have : GIOP_HEADER_SIZE);
    memcpy(r->err_hdr, h, r->err_hdr_n);
  }
  return fail(r, err);
}

giop_reasm *giop_reasm_new(const giop_reasm_opts *opts)
{
  giop_reasm_opts o;
  if (opts)
    o = *opts;
  else
    giop_reasm_opts_default(&o);
  const cdr_allocator *a = o.alloc ? o.alloc : cdr_mem_global();
  giop_reasm *r = a->malloc(sizeof *r, a->ud);
  if (!r)
    return NULL;
  memset(r, 0, sizeof *r);
  r->a = a;
  r->err_minor = -1;
  r->max_message = o.max_message;
  r->max_total = o.max_fragmented && o.max_fragmented < o.max_message ? o.max_fragmented
                                                                      : o.max_message;
  r->max_pending = o.max_pending;
  if (o.charge && o.uncharge) {
    r->charge = o.charge;
    r->uncharge = o.uncharge;
    r->charge_ud = o.charge_ud;
  }
  return r;
}

void giop_reasm_free(giop_reasm *r)
{
  if (!r)
    return;
  free_incomplete(r);
  list_free(r, r->done_head);
  list_free(r, r->taken);
  r->a->free(r, r->a->ud);
}

/* B moved (realloc): point its neighbours, or the list head, at it. */
static void relink(giop_reasm *r, rbuf *b)
{
  if (b->kind == K_PEND12) {
    if (b->prev)
      b->prev->next = b;
    else
      r->pend = b;
    if (b->next)
      b->next->prev = b;
  } else if (b->kind == K_PEND11) {
    r->p11 = b;
  }
}

/* Make room for NEED octets in the current target (need > cap). */
static int grow(giop_reasm *r, size_t need)
{
  rbuf *t = r->tgt;
  size_t nc = t->cap > SIZE_MAX / 2 ? SIZE_MAX : t->cap * 2;
  if (t->kind == K_MSG) {
    /* Never past what its header announced. */
    if (nc < INIT_CAP)
      nc = INIT_CAP;
    if (nc < need)
      nc = need;
    if (nc > t->len + r->rem)
      nc = t->len + r->rem;
  } else {
    /* A fragmented message: at most twice what has been announced so far,
     * and within max_total (which NEED is too). */
    if (nc < need)
      nc = need;
    if (nc > r->max_total)
      nc = need > r->max_total ? need : r->max_total;
  }
  if (nc > SIZE_MAX - RB_HDR)
    return fail(r, CDR_E_NOMEM);
  size_t add = 0;
  if (r->charge && (nc > GIOP_REASM_CHARGE_ABOVE || t->charged)) {
    /* The whole buffer is charged once it passes the threshold (or was
     * charged from the start: begin()); a refusal
     * leaves everything as it was (not sticky: the caller may retry). */
    add = nc - t->charged;
    int rc = r->charge(r->charge_ud, add);
    if (rc != CDR_OK)
      return rc;
    quota_give(t);   /* counted at its old size; charged now */
  }
  rbuf *nb = r->a->realloc(t, RB_HDR + nc, r->a->ud);
  if (!nb) {
    if (add)
      r->uncharge(r->charge_ud, add);
    return fail(r, CDR_E_NOMEM);
  }
  nb->cap = nc;
  nb->charged += add;
  if (nb != t) {
    relink(r, nb);
    r->tgt = nb;
  }
  return CDR_OK;
}

/* The current part is complete. */
static int part_done(giop_reasm *r)
{
  rbuf *t = r->tgt;
  r->st = ST_HDR;
  r->tgt = NULL;
  if (!t || !r->last)
    return CDR_OK;
  if (t->kind != K_MSG) {
    if (t->kind == K_PEND12)
      pend_unlink(r, t);
    else
      r->p11 = NULL;
    /* The first message's header, now describing the whole message. */
    uint8_t *d = rb_data(t);
    d[6] &= (uint8_t)~GIOP_FLAG_MORE_FRAGMENTS;
    iiop__store32(d + 8, (uint32_t)(t->len - GIOP_HEADER_SIZE), d[6] & GIOP_FLAG_LITTLE_ENDIAN);
  }
  t->kind = K_DONE;
  t->next = t->prev = NULL;
  if (r->done_tail)
    r->done_tail->next = t;
  else
    r->done_head = t;
  r->done_tail = t;
  return CDR_OK;
}

/* Look at the header octets H (HAVE of them).  Returns CDR_OK with *NEED
 * the header's length (12, or 16 where the 1.2 request ID is needed too) when
 * HAVE covers it, 1 when more octets are needed (*NEED of them in all), or
 * an error. */
static int classify(const giop_reasm *r, const uint8_t *h, size_t have, giop_header *gh,
                    size_t *need)
{
  if (have < GIOP_HEADER_SIZE) {
    /* Octets that cannot begin "GIOP" need no more to be refused. */
    if (memcmp(h, "GIOP", have < 4 ? have : 4) != 0)
      return CDR_E_PROTOCOL;
    *need = GIOP_HEADER_SIZE;
    return 1;
  }
  if (iiop__header_parse(h, have, gh) != CDR_OK)
    return CDR_E_PROTOCOL;
  /* Before anything is allocated for it (docs/hostile-input.md C11 a). */
  if ((uint64_t)gh->size + GIOP_HEADER_SIZE > (uint64_t)r->max_message)
    return CDR_E_LIMIT;
  size_t hl = GIOP_HEADER_SIZE;
  bool more = gh->minor >= 1 && (gh->flags & GIOP_FLAG_MORE_FRAGMENTS);
  if (more && gh->type != GIOP_FRAGMENT && !fragmentable(gh->minor, gh->type))
    return CDR_E_PROTOCOL;
  if (gh->minor == 2 && (more || gh->type == GIOP_FRAGMENT)) {
    if (gh->size < 4)                   /* no room for the request ID */
      return CDR_E_PROTOCOL;
    if (more && ((gh->size + GIOP_HEADER_SIZE) & 7) != 0)
      return CDR_E_PROTOCOL;            /* docs/hostile-input.md C13: 1001 octets in all */
    hl = 16;
  }
  *need = hl;
  return have >= hl ? CDR_OK : 1;
}

/* Start the part whose header GH is complete: HL octets at H, in the input
 * (PEEK: not consumed yet, AVAIL octets there) or in r->hdr.  SPARE_N > 0:
 * the input is the whole of the spare buffer, which may become the message.
 * *CONSUMED: input octets used up here. */
static int begin(giop_reasm *r, const giop_header *gh, const uint8_t *h, size_t hl, bool peek,
                 size_t avail, size_t spare_n, size_t *consumed)
{
  int little = gh->flags & GIOP_FLAG_LITTLE_ENDIAN;
  bool more = gh->minor >= 1 && (gh->flags & GIOP_FLAG_MORE_FRAGMENTS);
  size_t total = (size_t)gh->size + GIOP_HEADER_SIZE;
  *consumed = 0;
  r->last_part = total;
  if (more && gh->type != GIOP_FRAGMENT)
    r->first_part = total;
  if (gh->type != GIOP_FRAGMENT)
    r->small_first = more && total < FRAG_HDR_ONLY ? total : 0;
  r->pred_d = 0;
  if (more && gh->type == GIOP_FRAGMENT && gh->minor == 2) {
    r->pred_id = iiop__load32(h + GIOP_HEADER_SIZE, little);
    r->pred_d = gh->size - 4;
  }

  if (gh->type == GIOP_FRAGMENT) {
    rbuf *pm = gh->minor == 1 ? r->p11 : find12(r, iiop__load32(h + GIOP_HEADER_SIZE, little));
    if (!pm || pm->order != little)
      return fail_hdr(r, CDR_E_PROTOCOL, h, hl);
    size_t data = gh->size - (gh->minor == 2 ? 4 : 0);
    /* The running total (docs/hostile-input.md C11 b): max_message >= 12 here. */
    if (pm->total > r->max_total || data > r->max_total - pm->total
        || pm->total - GIOP_HEADER_SIZE + data > UINT32_MAX)
      return fail(r, CDR_E_LIMIT);
    pm->total += data;
    if (peek)
      *consumed = hl;
    else
      r->hdr_have = 0;
    r->tgt = pm->drop ? NULL : pm; /* a dropped message's Fragments are skipped */
    if (pm->drop && !more) {
      if (pm->kind == K_PEND12)
        pend_unlink(r, pm);
      else
        r->p11 = NULL;
      rb_free(r, pm);
    }
    r->rem = data;
    r->last = !more;
    r->st = ST_BODY;
    return data ? CDR_OK : part_done(r);
  }

  uint32_t id = 0;
  if (more) {
    if (gh->minor == 1) {
      if (r->p11)
        return fail_hdr(r, CDR_E_PROTOCOL, h, hl);
    } else {
      id = iiop__load32(h + GIOP_HEADER_SIZE, little);
      if (find12(r, id) || r->npend >= r->max_pending)
        return fail_hdr(r, CDR_E_PROTOCOL, h, hl);
    }
  }
  rbuf *t;
  if (spare_n && peek && total >= spare_n) {
    /* The read landed in place: the spare becomes the message. */
    t = r->spare;
    r->spare = NULL;
    t->len = spare_n;
    *consumed = spare_n;
    spare_charge(r, t);
  } else {
    size_t cap = avail > INIT_CAP ? avail : INIT_CAP;
    if (cap > total)
      cap = total > SMALL_CAP ? total : SMALL_CAP;
    t = rb_new(r, cap);
    if (!t)
      return fail(r, CDR_E_NOMEM);
    if (r->charge && t->cap > GIOP_REASM_CHARGE_ABOVE && t->charged < t->cap) {
      /* A large first read (giop_reasm_feed()): its octets cannot wait. */
      int rc = r->charge(r->charge_ud, t->cap - t->charged);
      if (rc != CDR_OK) {
        rb_free(r, t);
        return fail(r, rc);
      }
      t->charged = t->cap;
    }
    if (!peek) {
      memcpy(rb_data(t), r->hdr, r->hdr_have);
      t->len = r->hdr_have;
      r->hdr_have = 0;
    }
  }
  if (more && r->charge && t->charged < t->cap && (r->npend > 0 || r->p11)) {
    /* Another fragmented message is in progress: this one's buffer is
     * charged from its first octet, so that the max_pending messages a
     * connection may interleave cannot each hold 64 KiB uncharged (only
     * the first does).  A refusal ends the connection: a peer that
     * interleaves while the budget is spent gets no wait. */
    int rc = r->charge(r->charge_ud, t->cap - t->charged);
    if (rc != CDR_OK) {
      rb_free(r, t);
      return fail(r, rc);
    }
    t->charged = t->cap;
  }
  t->total = total;
  t->id = id;
  t->order = (uint8_t)little;
  t->next = t->prev = NULL;
  if (!more) {
    t->kind = K_MSG;
  } else if (gh->minor == 1) {
    t->kind = K_PEND11;
    r->p11 = t;
  } else {
    t->kind = K_PEND12;
    t->next = r->pend;
    if (r->pend)
      r->pend->prev = t;
    r->pend = t;
    r->npend++;
  }
  r->tgt = t;
  r->rem = total - t->len;
  r->last = !more;
  r->st = ST_BODY;
  return r->rem ? CDR_OK : part_done(r);
}

static int get_spare(giop_reasm *r);

/* Take N octets at P.  SPARE: P is the spare buffer's data, starting at a
 * message boundary. */
static int process(giop_reasm *r, const uint8_t *p, size_t n, bool spare)
{
  size_t off = 0;
  while (off < n) {
    if (r->st == ST_BODY) {
      size_t k = n - off < r->rem ? n - off : r->rem;
      if (r->tgt) {
        if (r->tgt->cap - r->tgt->len < k) {
          int rc = grow(r, r->tgt->len + k);
          if (rc != CDR_OK && r->err)
            return rc;
          if (rc != CDR_OK) {
            /* Refused.  Octets read into the spare wait there, unprocessed,
             * for the next giop_reasm_buffer(); others cannot wait. */
            if (!spare || !r->spare || p != rb_data(r->spare))
              return fail(r, rc);
            memmove(rb_data(r->spare), p + off, n - off);
            r->spare->len = n - off;
            r->held = true;
            return rc;
          }
        }
        rbuf *t = r->tgt;
        memcpy(rb_data(t) + t->len, p + off, k);
        t->len += k;
      }
      r->rem -= k;
      off += k;
      if (r->rem == 0)
        part_done(r);
      continue;
    }
    bool peek = r->hdr_have == 0;
    const uint8_t *h = peek ? p + off : r->hdr;
    size_t have = peek ? n - off : r->hdr_have, need;
    giop_header gh;
    int rc = classify(r, h, have, &gh, &need);
    if (rc < 0)
      return fail_hdr(r, rc, h, have);
    if (rc == 1) {
      size_t k = need - r->hdr_have;
      if (k > n - off)
        k = n - off;
      memcpy(r->hdr + r->hdr_have, p + off, k);
      r->hdr_have = (uint8_t)(r->hdr_have + k);
      off += k;
      if (r->hdr_have < need) {
        /* The input is used up.  Octets that cannot begin "GIOP" are
         * refused now, as when they arrive in one piece (classify()). */
        if (r->hdr_have < GIOP_HEADER_SIZE
            && memcmp(r->hdr, "GIOP", r->hdr_have < 4 ? r->hdr_have : 4) != 0)
          return fail_hdr(r, CDR_E_PROTOCOL, r->hdr, r->hdr_have);
        continue;
      }
      /* Complete now, even if the input is used up (a 12-octet message). */
      peek = false;
      h = r->hdr;
      rc = classify(r, h, r->hdr_have, &gh, &need);
      if (rc < 0)
        return fail_hdr(r, rc, h, r->hdr_have);
      if (rc == 1)
        continue;                       /* 16 octets needed after all */
    }
    size_t used;
    size_t part = (size_t)gh.size + GIOP_HEADER_SIZE;
    if (spare && off == 0 && gh.type != GIOP_FRAGMENT && part >= FRAG_HDR_ONLY && part < n
        && n - part <= 16) {
      /* A large first part and no more than the next part's header, read
       * together (giop_reasm_buffer() sizes a read at a message start so
       * after large fragmented messages): the spare becomes the message,
       * as when the read ends with the part, instead of the part being
       * copied out of it.  The header octets are taken out first and
       * processed from the copy: the spare is the message's buffer now.
       * (They fit behind the part: no growing while they are processed.) */
      uint8_t tail[16];
      size_t tn = n - part;
      memcpy(tail, p + part, tn);
      rc = begin(r, &gh, h, need, peek, part, part, &used);
      if (rc != CDR_OK)
        return rc;
      /* A new spare at once: giop_reasm_buffer() reads the next part's
       * header with a Fragment's body only when there is one to take it. */
      if (get_spare(r) != CDR_OK)
        return r->err;
      return process(r, tail, tn, false);
    }
    rc = begin(r, &gh, h, need, peek, n - off, spare && off == 0 ? n : 0, &used);
    if (rc != CDR_OK)
      return rc;
    off += used;
  }
  return CDR_OK;
}

/* Forget a reservation from giop_reasm_buffer(). */
static void end_reservation(giop_reasm *r)
{
  r->room = 0;
  rb_free(r, r->zombie);
  r->zombie = NULL;
}

/* Process the octets a refused charge left in the spare: CDR_OK once they
 * all went somewhere, else the (repeated) refusal or an error. */
static int flush_held(giop_reasm *r)
{
  if (!r->held)
    return CDR_OK;
  r->held = false;
  int rc = process(r, rb_data(r->spare), r->spare->len, true);
  if (rc == CDR_OK && r->spare)
    r->spare->len = 0;
  return rc;
}

int giop_reasm_feed(giop_reasm *r, const void *data, size_t len)
{
  if (r->err)
    return r->err;
  end_reservation(r);
  int hrc = flush_held(r);
  if (hrc != CDR_OK)
    return r->held ? fail(r, hrc) : hrc;
  if (r->spare && r->spare->len) {
    /* Header octets a reservation left in the spare (< 16 of them). */
    memcpy(r->hdr, rb_data(r->spare), r->spare->len);
    r->hdr_have = (uint8_t)r->spare->len;
    r->spare->len = 0;
  }
  return len ? process(r, data, len, false) : CDR_OK;
}

static int get_spare(giop_reasm *r)
{
  if (!r->spare) {
    r->spare = rb_take(r, SPARE_CAP, true);
    if (!r->spare)
      return fail(r, CDR_E_NOMEM);
    r->spare->len = 0;
  }
  return CDR_OK;
}

int giop_reasm_buffer(giop_reasm *r, uint8_t **buf, size_t *room)
{
  if (r->err)
    return r->err;
  end_reservation(r);
  int hrc = flush_held(r);
  if (hrc != CDR_OK)
    return hrc;               /* a refusal again (not sticky), or the error */
  if (r->st == ST_BODY && r->tgt) {
    if (r->tgt->cap == r->tgt->len) {
      int rc = grow(r, r->tgt->len + 1);
      if (rc != CDR_OK)
        return rc;            /* a refused charge is not sticky */
    }
    rbuf *t = r->tgt;
    size_t k = t->cap - t->len;
    *buf = rb_data(t) + t->len;
    *room = k < r->rem ? k : r->rem;
    r->resv = *buf;
    r->resv_body = *room;
    /* The rest of a Fragment that is not the last: read the next part's
     * header with it when the buffer has room behind the body (one read a
     * fragment instead of two); commit hands those octets on as the spare's. */
    if (!r->last && r->spare && r->last_part >= FRAG_HDR_ONLY && k >= r->rem + 16)
      *room = r->rem + 16;
    r->rmode = RM_BODY;
  } else {
    if (get_spare(r) != CDR_OK)
      return r->err;
    rbuf *s = r->spare;
    if (r->st == ST_BODY) {           /* skipping a cancelled message's part */
      *buf = rb_data(s);
      *room = s->cap < r->rem ? s->cap : r->rem;
      r->rmode = RM_SKIP;
    } else {
      if (r->hdr_have) {
        memcpy(rb_data(s), r->hdr, r->hdr_have);
        s->len = r->hdr_have;
        r->hdr_have = 0;
      }
      *buf = rb_data(s) + s->len;
      *room = s->cap - s->len;
      /* While a fragmented message is pending the next part is most
       * likely its Fragment: when its parts are large, read just the
       * header, so that the body that follows is read straight into the
       * message (no copy out of the spare; small parts are cheaper copied
       * than read one system call each). */
      if ((r->pend || r->p11) && r->last_part >= FRAG_HDR_ONLY && s->len < 16)
        *room = 16 - s->len;
      /* At a message start after large fragmented messages: no more than
       * such a first part and the next header, so that a message like the
       * last one does not bring its second Fragment into the spare (to be
       * copied out); a smaller message comes whole all the same. */
      else if (!r->pend && !r->p11 && r->first_part >= FRAG_HDR_ONLY
               && r->first_part + 16 < s->cap && s->len < r->first_part + 16)
        *room = r->first_part + 16 - s->len;
      r->rmode = RM_SPARE;
    }
  }
  r->room = *room;
  return CDR_OK;
}


/* ---------------------------------------------------------------- predictive reads
 *
 * A long message in small Fragments (1 KiB from a peer told to fragment
 * so) costs a copy per Fragment when read into the spare, and a read per
 * Fragment when read header first.  Every non-final Fragment of a message
 * has the same size with our fragmenter and omniORB's, so once one has been
 * seen, giop_reasm_bufferv() posts the rest of its body and the next K
 * Fragments as one scatter read: each predicted header (16 octets, 1.2)
 * into a slot of r->phdr, each predicted body straight at its place in the
 * message buffer.  giop_reasm_commit() checks every header that arrived
 * (pred_ok(): what begin() would accept, and the size predicted, or a final
 * Fragment no longer than predicted) and takes its body where it lies.  At
 * the first one that is not as predicted (another request's Fragment,
 * another size, a new message, garbage, a header cut short), everything
 * from there on is copied into the spare, in stream order, and processed
 * as if read there (pred_misplaced()): the same results, errors included,
 * as the plain path.  A read posts at most PRED_READ_MAX octets (128 KiB:
 * 64 KiB in 1 KiB Fragments, or in 8 KiB ones, is one read after the
 * first part's), and at most GIOP_REASM_PRED_MAX Fragments; misplaced
 * octets beyond the spare's 16 KiB go into a spare of their size for the
 * time they are processed (an allocation only then, bounded by
 * PRED_READ_MAX). */

/* Whether the 16 octets at H are a 1.2 Fragment of PM as predicted: D
 * data octets and more to come, or a final one of at most D; and within
 * the limits begin() and classify() enforce.  *DATA, *MORE: its data octets
 * and flag. */
static inline bool pred_ok(const giop_reasm *r, const rbuf *pm, const uint8_t *h, size_t d,
                           size_t *data, bool *more)
{
  int little = pm->order;
  if (memcmp(h, "GIOP\x01\x02", 6) != 0 || h[7] != GIOP_FRAGMENT
      || (h[6] & ~GIOP_FLAG_MORE_FRAGMENTS) != little
      || iiop__load32(h + GIOP_HEADER_SIZE, little) != pm->id)
    return false;
  uint32_t sz = iiop__load32(h + 8, little);
  bool m = (h[6] & GIOP_FLAG_MORE_FRAGMENTS) != 0;
  if (m ? sz != d + 4 : (sz < 4 || sz - 4 > d))
    return false;
  size_t dd = (size_t)sz - 4;
  if ((uint64_t)sz + GIOP_HEADER_SIZE > (uint64_t)r->max_message || pm->total > r->max_total
      || dd > r->max_total - pm->total || pm->total - GIOP_HEADER_SIZE + dd > UINT32_MAX)
    return false;
  *data = dd;
  *more = m;
  return true;
}

int giop_reasm_bufferv(giop_reasm *r, struct iovec *iov, int max, int *n)
{
  uint8_t *buf;
  size_t room;
  *n = 0;
  if (max < 1)
    return CDR_E_INVALID;
  int rc = giop_reasm_buffer(r, &buf, &room);
  if (rc != CDR_OK)
    return rc;
  iov[0].iov_base = buf;
  iov[0].iov_len = room;
  *n = 1;
  rbuf *pm;
  size_t rem0;
  if (r->rmode == RM_BODY) {
    pm = r->tgt;
    if (!pm || pm->kind != K_PEND12 || r->last || !r->pred_d || pm->id != r->pred_id
        || r->resv_body < r->rem)
      return CDR_OK;
    rem0 = r->rem;
  } else if (r->rmode == RM_SPARE && r->st == ST_HDR && r->spare->len == 0) {
    if (!r->pend || !r->pred_d) {
      /* A message start after a message of small parts: no more than its
       * first part and the next header, so that the Fragments after them
       * come by predicted reads, not copied out of the spare.  (Only the
       * first start after it: an unfragmented message clears small_first;
       * and only where predicted reads can follow: MAX >= 3.) */
      if (max >= 3 && !r->pend && !r->p11 && r->small_first && room > r->small_first + 16) {
        iov[0].iov_len = r->room = r->small_first + 16;
      }
      return CDR_OK;
    }
    pm = find12(r, r->pred_id);
    if (!pm || pm->drop)
      return CDR_OK;
    rem0 = 0;
  } else {
    return CDR_OK;
  }
  size_t d = r->pred_d;
  if (max < 3 || d > SPARE_CAP - 16 || rem0 > PRED_READ_MAX - 16 - d)
    return CDR_OK;
  bool grown = false;
  /* The buffer grows ahead of a prediction by no more than 16 Fragments
   * and 16 KiB (what the plain path would soon grow it by), so that the
   * sizes buffers grow to, and so their reuse, stay as without predicted
   * reads; a read takes up to PRED_READ_MAX of the room there is. */
  size_t kwant = SPARE_CAP / (16 + d);
  if (kwant > 16)
    kwant = 16;
  if ((pm->cap - pm->len - rem0) / d < kwant) {
    /* Room for fewer predicted bodies than a read takes: grow as the plain
     * path soon would, where that charges no budget (a refusal must come
     * from the plain path, where the connection expects it), and not past
     * max_total. */
    size_t need = pm->len + rem0 + kwant * d;
    if (need > r->max_total)
      need = r->max_total;
    size_t nc = pm->cap > SIZE_MAX / 2 ? SIZE_MAX : pm->cap * 2;
    if (nc < need)
      nc = need;
    if (nc > r->max_total)
      nc = need > r->max_total ? need : r->max_total;
    if (need > pm->cap && !(r->charge && nc > GIOP_REASM_CHARGE_ABOVE)) {
      rbuf *keep = r->tgt;
      r->tgt = pm;
      rc = grow(r, need);
      pm = r->tgt;
      r->tgt = keep == NULL ? NULL : pm;
      if (rc != CDR_OK) {
        *n = 0;
        return r->err ? r->err : rc;
      }
      grown = true;
    }
  }
  size_t k = (pm->cap - pm->len - rem0) / d;
  /* No more than the limits let through as predicted (begin()'s running
   * total), so that the commit need not check them for each; a Fragment
   * past them goes the plain way, to its error. */
  if ((uint64_t)d + 16 > (uint64_t)r->max_message || pm->total > r->max_total
      || pm->total - GIOP_HEADER_SIZE > UINT32_MAX)
    return CDR_OK;
  size_t lim = (r->max_total - pm->total) / d;
  if ((uint64_t)lim * d > (uint64_t)UINT32_MAX - (pm->total - GIOP_HEADER_SIZE))
    lim = (size_t)(((uint64_t)UINT32_MAX - (pm->total - GIOP_HEADER_SIZE)) / d);
  if (k > lim)
    k = lim;
  if (k > GIOP_REASM_PRED_MAX)
    k = GIOP_REASM_PRED_MAX;
  if (k > (size_t)(max - 1) / 2)
    k = (size_t)(max - 1) / 2;
  if (k > (PRED_READ_MAX - rem0) / (16 + d))
    k = (PRED_READ_MAX - rem0) / (16 + d);
  if (k == 0) {
    if (grown && rem0) {
      /* The plain reservation pointed into the buffer before it grew. */
      rc = giop_reasm_buffer(r, &buf, &room);
      iov[0].iov_base = buf;
      iov[0].iov_len = room;
      *n = rc == CDR_OK;
    }
    return rc;
  }
  uint8_t *p = rb_data(pm) + pm->len;
  int i = 0;
  if (rem0) {
    iov[i].iov_base = p;
    iov[i].iov_len = rem0;
    i++;
  }
  uint8_t *b = p + rem0;
  for (size_t j = 0; j < k; j++, b += d) {
    iov[i].iov_base = r->phdr[j];
    iov[i].iov_len = 16;
    iov[i + 1].iov_base = b;
    iov[i + 1].iov_len = d;
    i += 2;
  }
  uint8_t *e = r->pexp;
  memcpy(e, "GIOP\x01\x02", 6);
  e[6] = (uint8_t)(pm->order | GIOP_FLAG_MORE_FRAGMENTS);
  e[7] = GIOP_FRAGMENT;
  iiop__store32(e + 8, (uint32_t)(d + 4), pm->order);
  iiop__store32(e + GIOP_HEADER_SIZE, pm->id, pm->order);
  r->rmode = RM_PRED;
  r->ptgt = pm;
  r->pred_rem0 = rem0;
  r->pred_k = (unsigned)k;
  r->pred_dd = d;
  r->pbase = p;
  r->room = rem0 + k * (16 + d);
  *n = i;
  return CDR_OK;
}

/* The LEFT octets posted from predicted slot K on (its header first, or
 * its body from octet OFF when INBODY) were not where the prediction put
 * them: copy them into the spare in stream order and process them there. */
static int pred_misplaced(giop_reasm *r, unsigned k, bool inbody, size_t off, size_t left)
{
  if (get_spare(r) != CDR_OK)
    return r->err;
  rbuf *big = NULL;
  if (left > r->spare->cap) {
    /* More than the spare holds (at most PRED_READ_MAX): a spare of that
     * size while they are processed, the usual one again after. */
    big = rb_new(r, left);
    if (!big)
      return fail(r, CDR_E_NOMEM);
    rb_free(r, r->spare);
    r->spare = big;
  }
  rbuf *sp = r->spare;
  uint8_t *o = rb_data(sp);
  size_t d = r->pred_dd, m = 0;
  const uint8_t *body = r->pbase + r->pred_rem0 + (size_t)k * d;
  while (m < left) {
    if (!inbody) {
      size_t c = left - m < 16 ? left - m : 16;
      memcpy(o + m, r->phdr[k], c);
      m += c;
      off = 0;
    }
    size_t c = left - m < d - off ? left - m : d - off;
    memcpy(o + m, body + off, c);
    m += c;
    inbody = false;
    k++;
    body += d;
  }
  sp->len = m;
  int rc = process(r, o, m, true);
  if (rc != CDR_OK)
    return rc;
  if (r->spare)
    r->spare->len = 0;
  if (big && r->spare == big) {
    rb_free(r, big);                  /* not the message: get_spare() makes a 16 KiB one */
    r->spare = NULL;
  }
  return CDR_OK;
}

/* giop_reasm_commit() of N octets read into a predicted reservation. */
static int pred_commit(giop_reasm *r, size_t n)
{
  rbuf *pm = r->ptgt;
  size_t d = r->pred_dd, rem0 = r->pred_rem0;
  unsigned kmax = r->pred_k;
  r->room = 0;                        /* the zombie, if any, lives until the end */
  size_t a = n < rem0 ? n : rem0, left = n - a;
  if (a) {
    /* The current part's body (skipped if its message was cancelled). */
    if (r->tgt)
      r->tgt->len += a;
    r->rem -= a;
    if (r->rem == 0)
      part_done(r);
  }
  int rc = CDR_OK;
  unsigned k = 0;
  /* Whole Fragments exactly as predicted (the limits were checked when
   * they were posted): their data is in place; what begin() and
   * part_done() would do for each, at once. */
  if (pm && r->st == ST_HDR) {
    while (k < kmax && left >= 16 + d && memcmp(r->phdr[k], r->pexp, 16) == 0) {
      k++;
      left -= 16 + d;
    }
    if (k) {
      pm->total += (size_t)k * d;
      pm->len += (size_t)k * d;
      r->last_part = 16 + d;
      r->pred_d = d;
    }
  }
  while (left > 0) {
    size_t data;
    bool more;
    if (!pm || k >= kmax || left < 16 || !pred_ok(r, pm, r->phdr[k], d, &data, &more)) {
      rc = pred_misplaced(r, k, false, 0, left);
      break;
    }
    /* What begin() does for this Fragment. */
    pm->total += data;
    r->last_part = 16 + data;
    r->pred_d = more ? data : 0;
    r->tgt = pm;
    r->rem = data;
    r->last = !more;
    r->st = ST_BODY;
    left -= 16;
    size_t b = left < data ? left : data;
    pm->len += b;
    r->rem -= b;
    left -= b;
    if (r->rem == 0)
      part_done(r);
    if (b < d || !more) {
      /* A final Fragment (or the read ended): any octets past its body
       * are the next part's. */
      if (left)
        rc = pred_misplaced(r, k, true, b, left);
      break;
    }
    k++;
  }
  rb_free(r, r->zombie);
  r->zombie = NULL;
  return rc;
}

int giop_reasm_commit(giop_reasm *r, size_t n)
{
  if (r->err)
    return r->err;
  if (n > r->room)
    return CDR_E_INVALID;
  if (r->rmode == RM_PRED && r->room)
    return pred_commit(r, n);
  int mode = r->rmode;
  uint8_t next[16];
  size_t extra = 0;
  if (mode == RM_BODY && n > r->resv_body) {
    /* Header octets of the next part behind the body (see giop_reasm_buffer):
     * taken out before the reservation ends (its buffer may be a zombie). */
    extra = n - r->resv_body;
    /* All 16 (the reservation has them behind the body): a fixed-size
     * copy, no call; only EXTRA of them count. */
    memcpy(next, r->resv + r->resv_body, sizeof next);
    n = r->resv_body;
  }
  end_reservation(r);
  if (n == 0)
    return CDR_OK;
  if (mode == RM_SPARE) {
    rbuf *s = r->spare;
    if (s->len == 0 && r->st == ST_HDR && r->hdr_have == 0 && n >= GIOP_HEADER_SIZE) {
      /* The common read: exactly one whole unfragmented message at a
       * message start.  What process() would do (classify(), the spare
       * becoming the message in begin(), part_done()), without its loop
       * and calls; anything else goes through process(). */
      const uint8_t *p = rb_data(s);
      giop_header gh;
      size_t need;
      if (classify(r, p, n, &gh, &need) == CDR_OK && gh.type != GIOP_FRAGMENT
          && !(gh.minor >= 1 && (gh.flags & GIOP_FLAG_MORE_FRAGMENTS))
          && (size_t)gh.size + GIOP_HEADER_SIZE == n) {
        r->spare = NULL;
        spare_charge(r, s);
        r->last_part = n;
        s->len = n;
        s->total = n;
        s->id = 0;
        s->order = (uint8_t)(gh.flags & GIOP_FLAG_LITTLE_ENDIAN);
        s->kind = K_DONE;
        s->next = s->prev = NULL;
        r->tgt = NULL;
        r->rem = 0;
        r->last = 1;
        if (r->done_tail)
          r->done_tail->next = s;
        else
          r->done_head = s;
        r->done_tail = s;
        return CDR_OK;
      }
    }
    s->len += n;
    int rc = process(r, rb_data(s), s->len, true);
    if (rc != CDR_OK)
      return rc;
    if (r->spare)
      r->spare->len = 0;              /* all of it went somewhere */
    return CDR_OK;
  }
  if (mode == RM_BODY && r->tgt)
    r->tgt->len += n;
  /* else RM_SKIP, or the target was cancelled after giop_reasm_buffer() */
  r->rem -= n;
  if (r->rem == 0)
    part_done(r);
  if (extra) {
    /* As if read into the spare at a part boundary. */
    rbuf *sp = r->spare;
    memcpy(rb_data(sp), next, extra);
    sp->len = extra;
    int rc = process(r, rb_data(sp), sp->len, true);
    if (rc != CDR_OK)
      return rc;
    if (r->spare)
      r->spare->len = 0;
  }
  return CDR_OK;
}

/* ---------------------------------------------------------------- the small-message path
 * (internal.h): a read that is exactly one whole unfragmented message
 * becomes the message handed out, without the reservation's general
 * bookkeeping, process(), the done queue or the buffer cache. */

int iiop__reasm_direct(giop_reasm *r, uint8_t **buf, size_t *room)
{
  /* Where giop_reasm_buffer() would reserve the whole empty spare: at a
   * message boundary, nothing pending, held or queued, no large first part
   * that would make it reserve less. */
  rbuf *s = r->spare;
  if (r->err || r->st != ST_HDR || r->hdr_have || r->pend || r->p11 || r->done_head || r->held
      || r->room || r->zombie || r->first_part >= FRAG_HDR_ONLY || !s || s->len)
    return 0;
  *buf = rb_data(s);
  *room = s->cap;
  r->room = s->cap;
  r->rmode = RM_SPARE;
  return 1;
}

/* B handed to the caller: on the taken list (giop_reasm_release() takes
 * it off). */
static void take(giop_reasm *r, rbuf *b)
{
  b->kind = K_TAKEN;
  b->prev = NULL;
  b->next = r->taken;
  if (r->taken)
    r->taken->prev = b;
  r->taken = b;
}

int iiop__reasm_take(giop_reasm *r, size_t n, uint8_t **msg, size_t *len)
{
  rbuf *s = r->spare;
  if (n < GIOP_HEADER_SIZE || n > r->room || r->rmode != RM_SPARE)
    return 0;
  const uint8_t *p = rb_data(s);
  giop_header gh;
  /* classify()'s checks, and the message whole and unfragmented */
  if (iiop__header_parse(p, n, &gh) != CDR_OK || gh.type == GIOP_FRAGMENT
      || (gh.minor >= 1 && (gh.flags & GIOP_FLAG_MORE_FRAGMENTS))
      || (uint64_t)gh.size + GIOP_HEADER_SIZE != (uint64_t)n || n > r->max_message)
    return 0;
  r->room = 0;                        /* the reservation ends (no zombie: RM_SPARE) */
  r->spare = NULL;
  spare_charge(r, s);
  r->last_part = n;
  r->tgt = NULL;
  r->rem = 0;
  r->last = 1;
  s->len = n;
  s->total = n;
  s->id = 0;
  s->order = (uint8_t)(gh.flags & GIOP_FLAG_LITTLE_ENDIAN);
  take(r, s);
  *msg = rb_data(s);
  *len = n;
  return 1;
}

int giop_reasm_next(giop_reasm *r, uint8_t **msg, size_t *len)
{
  rbuf *t = r->done_head;
  if (!t)
    return 0;
  r->done_head = t->next;
  if (!r->done_head)
    r->done_tail = NULL;
  take(r, t);
  *msg = rb_data(t);
  *len = t->len;
  return 1;
}

int giop_reasm_ready(const giop_reasm *r) { return r->done_head != NULL; }

void giop_reasm_release(giop_reasm *r, uint8_t *msg)
{
  if (!msg)
    return;
  rbuf *t = (rbuf *)(msg - RB_HDR);
  if (t->kind != K_TAKEN)
    return;
  if (t->prev)
    t->prev->next = t->next;
  else
    r->taken = t->next;
  if (t->next)
    t->next->prev = t->prev;
  if (!r->spare && !r->err && t->cap == SPARE_CAP && !t->charged) {
    /* A spare that became a message: the spare again, for the next read
     * (no trip through the cache). */
    t->kind = K_NONE;
    t->len = 0;
    t->drop = 0;
    r->spare = t;
    return;
  }
  rb_drop(r, t);
}

int giop_reasm_cancel(giop_reasm *r, uint32_t request_id)
{
  rbuf *t = find12(r, request_id);
  if (!t)
    return 0;
  pend_unlink(r, t);
  if (r->room && r->rmode == RM_PRED && r->ptgt == t) {
    r->ptgt = NULL;                   /* the commit treats the slots' octets as unknown */
    if (r->tgt == t)
      r->tgt = NULL;
    r->zombie = t;                    /* the caller may be reading into it */
    return 1;
  }
  if (r->tgt == t) {
    r->tgt = NULL;                    /* skip the rest of its current part */
    if (r->room && r->rmode == RM_BODY) {
      r->zombie = t;                  /* the caller may be reading into it */
      return 1;
    }
  }
  rb_drop(r, t);
  return 1;
}

size_t giop_reasm_pending_bytes(const giop_reasm *r)
{
  size_t n = r->hdr_have;
  if (r->spare)
    n += r->spare->len;
  if (r->tgt && r->tgt->kind == K_MSG)
    n += r->tgt->len;
  for (const rbuf *b = r->pend; b; b = b->next)
    n += b->len;
  if (r->p11)
    n += r->p11->len;
  return n;
}

int giop_reasm_error_minor(const giop_reasm *r)
{
  return r && r->err == CDR_E_PROTOCOL ? r->err_minor : -1;
}

size_t giop_reasm_error_text(const giop_reasm *r, char *buf, size_t cap)
{
  char t[GIOP_REASM_TEXT_MAX];
  const uint8_t *h = r ? r->err_hdr : NULL;
  size_t n = r ? r->err_hdr_n : 0;
  t[0] = 0;
  if (!r || !r->err) {
    /* nothing refused */
  } else if (r->err == CDR_E_LIMIT && n == GIOP_HEADER_SIZE) {
    uint64_t total = (uint64_t)iiop__load32(h + 8, h[6] & GIOP_FLAG_LITTLE_ENDIAN)
                     + GIOP_HEADER_SIZE;
    snprintf(t, sizeof t, "a GIOP message of %" PRIu64 " octets, over the limit of %zu",
             total, r->max_message);
  } else if (r->err == CDR_E_LIMIT) {
    snprintf(t, sizeof t, "a fragmented GIOP message over the limit of %zu octets",
             r->max_total);
  } else if (r->err == CDR_E_PROTOCOL && n && memcmp(h, "GIOP", n < 4 ? n : 4) != 0) {
    /* the first octets as hex, and as text where all of them are printable */
    size_t k = n < 4 ? n : 4, at;
    bool text = true;
    at = (size_t)snprintf(t, sizeof t, "not GIOP: the stream begins");
    for (size_t i = 0; i < k; i++) {
      at += (size_t)snprintf(t + at, sizeof t - at, " %02x", h[i]);
      text = text && isprint(h[i]);
    }
    if (text)
      snprintf(t + at, sizeof t - at, " (\"%.*s\")", (int)k, (const char *)h);
  } else if (r->err == CDR_E_PROTOCOL && n >= 6 && (h[4] != 1 || h[5] > 2)) {
    snprintf(t, sizeof t, "GIOP %u.%u, a version this ORB does not speak", h[4], h[5]);
  } else if (r->err == CDR_E_PROTOCOL && n >= 8) {
    snprintf(t, sizeof t, "a malformed GIOP %u.%u message (type %u, flags 0x%02x)", h[4],
             h[5], h[7], h[6]);
  } else {
    snprintf(t, sizeof t, "%s", r->err == CDR_E_PROTOCOL ? "a malformed GIOP message"
                                                         : cdr_strerror(r->err));
  }
  if (buf && cap)
    snprintf(buf, cap, "%s", t);
  return strlen(t);
}

int giop_reasm_phase(const giop_reasm *r)
{
  if (r->st == ST_BODY || r->pend || r->p11)
    return GIOP_REASM_BODY;
  if (r->hdr_have || (r->spare && r->spare->len))
    return GIOP_REASM_HEADER;
  return GIOP_REASM_EMPTY;
}

int giop_reasm_current(const giop_reasm *r, const uint8_t **msg, size_t *len)
{
  if (r->err || r->st != ST_BODY || !r->tgt)
    return 0;
  *msg = rb_data(r->tgt);
  *len = r->tgt->len;
  return r->tgt->kind == K_MSG ? 1 : 2;
}

int giop_reasm_skip_current(giop_reasm *r)
{
  if (r->err || r->st != ST_BODY || !r->tgt)
    return CDR_E_STATE;
  rbuf *t = r->tgt;
  r->tgt = NULL;                 /* the rest of this part is skipped as it arrives */
  if (t->kind == K_MSG || r->last) {
    if (t->kind == K_PEND12)
      pend_unlink(r, t);
    else if (t->kind == K_PEND11)
      r->p11 = NULL;
    rb_free(r, t);
    return CDR_OK;
  }
  /* A fragmented message with Fragments to come: it stays pending, without
   * its data, so that they are recognised and skipped. */
  if (t->charged) {
    r->uncharge(r->charge_ud, t->charged);
    t->charged = 0;
  }
  rbuf *nb = r->a->realloc(t, RB_HDR, r->a->ud);
  if (nb && nb != t)
    relink(r, nb);
  t = nb ? nb : t;
  t->cap = t->len = 0;
  t->drop = 1;
  return CDR_OK;
}
