/* internal.h - what every libiiop module shares and no user sees: the
 * hidden-symbol marker, the allocator calls, 32-bit wire loads and stores,
 * and the clock and poll() helpers (deadlines and poll() in libiiop/clock.c).
 *
 * Allocators: every object that takes an allocator option keeps the
 * resolved one (iiop__alloc_or_global: NULL is cdr_mem_global()) and passes
 * it to iiop__malloc/iiop__free for everything it owns, so that a
 * cdr_mem_counter given to iiop_client_opts or iiop_server_opts sees every
 * block the client or server allocates itself.
 */
#ifndef IIOP_INTERNAL_H
#define IIOP_INTERNAL_H

#include "config.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cdr/arena.h>
#include <cdr/mem.h>
#include <cdr/stream.h>
#include <cdr/error.h>
#include <iiop/giop.h>
#include <iiop/msg.h>
#include <iiop/export.h>

#define IIOP_HIDDEN __attribute__((visibility("hidden")))

/* ---------------------------------------------------------------- allocator */

static inline const cdr_allocator *iiop__alloc_or_global(const cdr_allocator *a)
{
  return a ? a : cdr_mem_global();
}

static inline void *iiop__malloc(const cdr_allocator *a, size_t n) { return a->malloc(n, a->ud); }

/* Free P (NULL: nothing). */
static inline void iiop__free(const cdr_allocator *a, void *p)
{
  if (p)
    a->free(p, a->ud);
}

/* A NUL-terminated copy of the N octets at P; NULL when allocation fails. */
static inline char *iiop__strndup(const cdr_allocator *a, const char *p, size_t n)
{
  char *d = iiop__malloc(a, n + 1);
  if (d) {
    memcpy(d, p, n);
    d[n] = 0;
  }
  return d;
}

/* ---------------------------------------------------------------- short paths
 * msg.c reads the common GIOP 1.2 Request (KeyAddr, no service contexts)
 * and writes the common 1.2 Reply header (no contexts) straight from and
 * to octets; true here turns both off, every message going the general
 * way.  For the tests that check both give the same results; never set
 * otherwise. */
IIOP_HIDDEN extern int iiop__msg_general;

/* giop_parse() in one pass for the common small request: when the LEN
 * octets at BUF are a whole, unfragmented GIOP 1.2 Request (KeyAddr, no
 * service contexts) that passes every check giop_parse() makes with OPTS
 * (which must have been accepted by a stream before: they are not checked
 * again), fill *M exactly as giop_parse() would (M->body over BUF at the
 * body, ARENA its arena) and return true.  Anything else: false, *M
 * untouched but for scratch in M->u; the caller calls giop_parse(). */
struct giop_message;
/* The last request iiop__parse_request_12() scanned for one connection:
 * its length, octets 0-11 (message_size too: a caller's buffer whose
 * message_size disagrees with its length is scanned, and refused) and 16
 * up to the body (all but the request ID), and where the scan found
 * things.  A request of the same length with the
 * same octets there scans the same (with the same options), so it is not
 * scanned again: a client's repeated call costs a comparison.  All zero:
 * none. */
#define IIOP__MEMO_MAX 96
typedef struct iiop__req_memo {
  uint32_t len;              /* the message's octets (0: no memo) */
  uint32_t span;             /* octets of o[]: 16 .. body */
  uint32_t body;             /* the body's position */
  uint32_t kl;               /* the object key's length (at 28) */
  uint32_t op, ol;           /* the operation's offset and length (its NUL included) */
  uint8_t head[12];          /* octets 0-11: the GIOP header */
  uint8_t o[IIOP__MEMO_MAX];
} iiop__req_memo;
/* MEMO: the connection's (NULL: none). */
IIOP_HIDDEN bool iiop__parse_request_12(struct giop_message *m, const uint8_t *buf, size_t len,
                                        const cdr_opts *opts, cdr_arena *arena,
                                        iiop__req_memo *memo);

/* ---------------------------------------------------------------- small reads
 * frag.c's short path for connection.c's reader.  iiop__reasm_direct():
 * when R is at a message boundary with nothing buffered, pending or held,
 * reserve its whole empty spare buffer as giop_reasm_buffer() would (*BUF,
 * *ROOM octets) and return 1; else 0 and nothing changes (use
 * giop_reasm_buffer()).  iiop__reasm_take(), after reading N octets into
 * that reservation: when they are exactly one whole unfragmented message
 * that passes the reassembler's header checks, it becomes the message
 * handed out (*MSG, *LEN, as giop_reasm_next() would; released with
 * giop_reasm_release()) and 1 is returned; else 0, the reservation still
 * open for giop_reasm_commit(R, N). */
struct giop_reasm;
IIOP_HIDDEN int iiop__reasm_direct(struct giop_reasm *r, uint8_t **buf, size_t *room);
IIOP_HIDDEN int iiop__reasm_take(struct giop_reasm *r, size_t n, uint8_t **msg, size_t *len);

/* ---------------------------------------------------------------- wire loads
 * A 32-bit unsigned value at P in either byte order (LITTLE non-zero:
 * little-endian), as GIOP headers carry message_size and request IDs. */
static inline __attribute__((always_inline)) uint32_t iiop__load32(const uint8_t *p, int little)
{
  uint32_t v;
  memcpy(&v, p, 4);                   /* one load, swapped when the orders differ */
  if ((little != 0) != (CDR_HOST_ORDER == CDR_LITTLE_ENDIAN))
    v = __builtin_bswap32(v);
  return v;
}

static inline void iiop__store32(uint8_t *p, uint32_t v, int little)
{
  if (little) {
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
  } else {
    p[3] = (uint8_t)v; p[2] = (uint8_t)(v >> 8); p[1] = (uint8_t)(v >> 16); p[0] = (uint8_t)(v >> 24);
  }
}

/* ---------------------------------------------------------------- GIOP headers
 * giop_header_parse() (iiop/giop.h), inline for the reassembler's and the
 * message parser's every message. */
static inline int iiop__header_valid(const giop_header *h)
{
  if (h->major != 1 || h->minor > 2 || h->type > GIOP_FRAGMENT)
    return 0;
  if (h->minor == 0)
    return h->type != GIOP_FRAGMENT && h->flags <= 1;
  return (h->flags & ~(GIOP_FLAG_LITTLE_ENDIAN | GIOP_FLAG_MORE_FRAGMENTS)) == 0;
}

static inline int iiop__header_parse(const uint8_t *buf, size_t len, giop_header *h)
{
  if (len < GIOP_HEADER_SIZE)
    return CDR_E_SHORT;
  if (memcmp(buf, "GIOP", 4) != 0)
    return CDR_E_PROTOCOL;
  giop_header t;
  t.major = buf[4];
  t.minor = buf[5];
  t.flags = buf[6];
  t.type = buf[7];
  if (!iiop__header_valid(&t))
    return CDR_E_PROTOCOL;
  t.size = iiop__load32(buf + 8, t.flags & GIOP_FLAG_LITTLE_ENDIAN);
  *h = t;
  return CDR_OK;
}

/* The GIOP minor version to answer a refused message in (MessageError):
 * the version of its header H (HAVE octets) when that is one we speak, the
 * highest we speak (1.2) below a later one ("GIOP" 1.3+ or 2.x), else
 * DFLT (no "GIOP", major 0, or too few octets to tell). */
static inline int iiop__answer_minor(const uint8_t *h, size_t have, int dflt)
{
  if (have < 6 || memcmp(h, "GIOP", 4) != 0 || h[4] == 0)
    return dflt;
  return h[4] > 1 || h[5] > 2 ? 2 : h[5];
}

/* ---------------------------------------------------------------- limits
 * Every field of L that is 0 (or negative) takes D's value; max_fragmented
 * is then at most max_message. */
struct iiop_limits;
IIOP_HIDDEN void iiop__limits_fill(struct iiop_limits *l, const struct iiop_limits *d);

/* ---------------------------------------------------------------- time and polling
 * Deadlines are CLOCK_MONOTONIC milliseconds; -1 means none.  The clock is
 * read inline: every write with a timeout reads it. */
static inline int64_t iiop__now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
/* The deadline TIMEOUT_MS from now (TIMEOUT_MS <= 0: -1, none). */
IIOP_HIDDEN int64_t iiop__deadline(int timeout_ms);
/* Milliseconds left until DEADLINE (-1: none; 0 once passed). */
IIOP_HIDDEN int iiop__remaining(int64_t deadline);
/* Wait until FD has one of EVENTS (POLLIN/POLLOUT), at most TIMEOUT_MS
 * (< 0: forever), retrying EINTR.  CDR_OK (ready, or an error/hang-up
 * condition the next read or write will report), CDR_E_TIMEOUT, CDR_E_IO. */
IIOP_HIDDEN int iiop__poll(int fd, short events, int timeout_ms);

/* iiop__parse_request_12()'s first step, inline for the dispatcher: when
 * the LEN octets at BUF are those MEMO's scan passed but for the request
 * ID (octets 12-15), the same result, *M filled as the scan would (the
 * options are the connection's, fixed), true; else false and *M untouched
 * (then iiop__parse_request_12()). */
static inline bool iiop__parse_request_memo(struct giop_message *m, const uint8_t *buf, size_t len,
                                            const cdr_opts *opts, cdr_arena *arena,
                                            const iiop__req_memo *memo)
{
  if (memo->len != len || iiop__msg_general || memcmp(buf, memo->head, 12) != 0
      || memcmp(buf + 16, memo->o, memo->span) != 0)
    return false;
  bool le = buf[6] != 0;
  giop_request_header *r = &m->u.request;
  r->principal = NULL;
  r->principal_len = 0;
  r->contexts.n = 0;
  r->contexts.v = NULL;
  r->request_id = iiop__load32(buf + 12, le);
  r->response_flags = buf[16];
  memset(&r->target, 0, sizeof r->target);
  r->target.disposition = GIOP_KEY_ADDR;
  r->target.key = buf + 28;
  r->target.key_len = memo->kl;
  r->operation = (const char *)buf + memo->op;
  r->operation_len = memo->ol - 1;
  m->hdr.major = 1;
  m->hdr.minor = 2;
  m->hdr.flags = buf[6];
  m->hdr.type = GIOP_REQUEST;
  m->hdr.size = (uint32_t)(len - GIOP_HEADER_SIZE);
  cdr_in_init_trusted(&m->body, buf, len, le ? CDR_LITTLE_ENDIAN : CDR_BIG_ENDIAN, opts,
                      memo->body, arena);
  return true;
}

/* client.c: how many held requests (client.c, "Holding requests") a
 * caller other than their own wrote, since the client was created. */
struct iiop_client;
IIOP_HIDDEN uint64_t iiop__client_held(struct iiop_client *c);
/* ... and how many held requests were never written: their call's
 * deadline passed first (CDR_E_TIMEOUT, counted in timeout_call, but no
 * late reply can come for them). */
IIOP_HIDDEN uint64_t iiop__client_held_expired(struct iiop_client *c);

/* client.c: the held requests' counts since the client was created:
 * held, as iiop__client_held(); batches, the lists of held requests
 * written together (park_flush()); writes, the gather writes they took
 * (one per batch unless a batch's iovecs exceed IIOP__MSGS_IOV_MAX);
 * joined, batches written by the caller whose own request went last in
 * them (the next request sent once the woken callers had run, or the
 * HOLD_MAX-th held); late, batches a held caller wrote itself once its
 * bound (iiop__client_set_hold_bound()) had passed with no request sent;
 * expired, as iiop__client_held_expired(). */
typedef struct iiop__hold_stats {
  uint64_t held, batches, writes, joined, late, expired;
} iiop__hold_stats;
IIOP_HIDDEN void iiop__client_hold_stats(struct iiop_client *c, iiop__hold_stats *st);
/* ... and how long a held request waits for the next request sent on its
 * connection before its caller writes it (milliseconds, at least 1;
 * default HOLD_BOUND_MS, 2).  For tests; set before any call. */
IIOP_HIDDEN void iiop__client_set_hold_bound(struct iiop_client *c, int ms);
/* ... and for tests: on the first open connection of REF's endpoint
 * (its base target's), count DELTA (1, 0 or -1) more callers in nwoken,
 * as if a read's replies had woken them and they had not run yet (-1 runs
 * one of them: as the last one, the held requests become due or are
 * written at once), then report the connection's state in *PR.  CDR_OK;
 * CDR_E_STATE: no connection open, or -1 with none counted;
 * CDR_E_INVALID. */
struct iiop_ref;
typedef struct iiop__hold_probe {
  unsigned nwoken, npark;    /* counted callers; requests held */
  int due;                   /* the held requests wait for the next request sent */
  int leader_held;           /* the leader reads with its own request held */
  unsigned asleep;           /* pending callers waiting that no one has woken */
} iiop__hold_probe;
IIOP_HIDDEN int iiop__ref_hold_probe(struct iiop_ref *r, int delta, iiop__hold_probe *pr);

#endif
