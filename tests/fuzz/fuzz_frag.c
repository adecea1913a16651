/* tests/fuzz/fuzz_frag.c - fuzz target: GIOP fragment reassembly and
 * fragmentation (iiop/frag.h).
 *
 * Input: three configuration octets, then a byte stream as a connection
 * delivers it (messages and fragments of GIOP 1.0-1.2, either byte order,
 * interleaved requests).  Octet 0 seeds the chunking; octet 1 bits 0-1 pick
 * the reassembler's max_message (default, 256, 4096, 65536 octets), bits 2-3
 * its max_pending (default, 1, 2, 4), bit 4 feeds the chunks through the
 * zero-copy giop_reasm_buffer()/giop_reasm_commit() path; octet 2 gives the
 * fragment size of the round trip (64 + 8 * octet).
 *
 * Checks: the stream fed whole and fed in random chunks (messages taken as
 * they complete) gives the same messages, octet for octet, and the same
 * status; every message that comes out and may be fragmented is split again
 * by giop_fragmenter (each non-final fragment message within the size, a
 * multiple of 8 octets in GIOP 1.2 and 4 mod 8 in 1.1) and reassembles to
 * the same octets.
 */
#include <cdr/cdr.h>
#include <iiop/giop.h>
#include <iiop/frag.h>
#include "fuzz.h"

#define MAX_MSGS 256

typedef struct msgs {
  size_t n;
  uint8_t *v[MAX_MSGS];
  size_t len[MAX_MSGS];
} msgs;

static void take_all(giop_reasm *r, msgs *out)
{
  uint8_t *m;
  size_t len;
  while (giop_reasm_next(r, &m, &len)) {
    if (out->n < MAX_MSGS) {
      uint8_t *c = malloc(len);
      FUZZ_CHECK(c != NULL);
      memcpy(c, m, len);
      out->v[out->n] = c;
      out->len[out->n++] = len;
    }
    giop_reasm_release(r, m);
  }
}

static void free_msgs(msgs *m)
{
  for (size_t k = 0; k < m->n; k++)
    free(m->v[k]);
}

static int feed_chunked(giop_reasm *r, const uint8_t *p, size_t n, uint64_t seed, int zero_copy,
                        msgs *out)
{
  size_t pos = 0;
  int rc = CDR_OK;
  while (pos < n && rc == CDR_OK) {
    uint32_t x = fuzz_rand(&seed);
    size_t chunk = (x & 3) == 0 ? 1 + (x >> 2) % 4 : 1 + (x >> 2) % 97;
    if (chunk > n - pos)
      chunk = n - pos;
    if (zero_copy) {
      uint8_t *b;
      size_t room;
      rc = giop_reasm_buffer(r, &b, &room);
      if (rc != CDR_OK)
        break;
      FUZZ_CHECK(room >= 1);
      if (chunk > room)
        chunk = room;
      memcpy(b, p + pos, chunk);
      rc = giop_reasm_commit(r, chunk);
    } else {
      rc = giop_reasm_feed(r, p + pos, chunk);
    }
    pos += chunk;
    take_all(r, out);
  }
  take_all(r, out);
  return rc;
}

static uint32_t load32(const uint8_t *p, int little)
{
  return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

/* Fragment MSG again and reassemble it: the same octets must come out. */
static void refragment(const uint8_t *msg, size_t len, size_t frag_size)
{
  uint32_t id = len >= 16 ? load32(msg + 12, msg[6] & GIOP_FLAG_LITTLE_ENDIAN) : 0;
  giop_fragmenter fr;
  if (giop_fragmenter_init(&fr, msg, len, frag_size, id) != CDR_OK)
    return;
  size_t eff = frag_size / 8 * 8;
  if (eff < GIOP_FRAG_MIN)
    eff = GIOP_FRAG_MIN;
  giop_reasm *r = giop_reasm_new(NULL);
  FUZZ_CHECK(r != NULL);
  struct iovec iov[2];
  int n, nfrag = 0;
  size_t total = 0;
  uint8_t last_flags = 0;
  while (giop_fragmenter_next(&fr, iov, &n)) {
    FUZZ_CHECK(n >= 1 && n <= 2);
    size_t flen = 0;
    for (int k = 0; k < n; k++) {
      FUZZ_CHECK(giop_reasm_feed(r, iov[k].iov_base, iov[k].iov_len) == CDR_OK);
      flen += iov[k].iov_len;
    }
    FUZZ_CHECK(iov[0].iov_len >= GIOP_HEADER_SIZE);
    last_flags = ((const uint8_t *)iov[0].iov_base)[6];
    if (last_flags & GIOP_FLAG_MORE_FRAGMENTS) {
      FUZZ_CHECK(flen <= eff);
      FUZZ_CHECK(msg[5] == 2 ? flen % 8 == 0 : flen % 8 == 4);
    }
    total += flen;
    nfrag++;
  }
  FUZZ_CHECK(nfrag >= 1 && !(last_flags & GIOP_FLAG_MORE_FRAGMENTS));
  FUZZ_CHECK(nfrag > 1 || total == len);
  uint8_t *m;
  size_t mlen;
  FUZZ_CHECK(giop_reasm_next(r, &m, &mlen) == 1);
  FUZZ_SAME(m, mlen, msg, len);
  giop_reasm_release(r, m);
  FUZZ_CHECK(giop_reasm_next(r, &m, &mlen) == 0);
  FUZZ_CHECK(giop_reasm_pending_bytes(r) == 0);
  giop_reasm_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const size_t max_message[4] = { 0, 256, 4096, 65536 };
  static const uint32_t max_pending[4] = { 0, 1, 2, 4 };
  fuzz_in f = { data, size };
  uint8_t c0 = fuzz_byte(&f), c1 = fuzz_byte(&f), c2 = fuzz_byte(&f);
  giop_reasm_opts ro;
  giop_reasm_opts_default(&ro);
  if (max_message[c1 & 3])
    ro.max_message = max_message[c1 & 3];
  if (max_pending[(c1 >> 2) & 3])
    ro.max_pending = max_pending[(c1 >> 2) & 3];

  giop_reasm *whole = giop_reasm_new(&ro), *chunked = giop_reasm_new(&ro);
  FUZZ_CHECK(whole && chunked);
  msgs a = { 0 }, b = { 0 };
  int rc_whole = giop_reasm_feed(whole, f.p, f.n);
  take_all(whole, &a);
  int rc_chunked = feed_chunked(chunked, f.p, f.n, c0 * 0x100000001ull + f.n, (c1 >> 4) & 1, &b);
  FUZZ_CHECK(rc_whole == rc_chunked);
  FUZZ_CHECK(a.n == b.n);
  for (size_t k = 0; k < a.n; k++)
    FUZZ_SAME(a.v[k], a.len[k], b.v[k], b.len[k]);
  if (rc_whole == CDR_OK)
    FUZZ_CHECK(giop_reasm_pending_bytes(whole) == giop_reasm_pending_bytes(chunked));
  giop_reasm_free(whole);
  giop_reasm_free(chunked);

  for (size_t k = 0; k < a.n; k++) {
    giop_header h;
    FUZZ_CHECK(giop_header_parse(a.v[k], a.len[k], &h) == CDR_OK);
    FUZZ_CHECK(!(h.flags & GIOP_FLAG_MORE_FRAGMENTS));
    FUZZ_CHECK(h.size == a.len[k] - GIOP_HEADER_SIZE);
    refragment(a.v[k], a.len[k], 64 + 8 * (size_t)c2);
  }
  free_msgs(&a);
  free_msgs(&b);
  return 0;
}
