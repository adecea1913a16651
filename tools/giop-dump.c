/* giop-dump - show the GIOP messages in a file or on standard input.
 *
 *   giop-dump [--hex] [FILE]
 *
 * The input holds GIOP messages back to back, as raw octets or (--hex) as
 * hex digits with any white space.  Fragmented messages are reassembled
 * (iiop/frag.h) and shown once, with the fragment messages they came from.
 * For each message: the 12-octet header, the Request/Reply/Locate header
 * (iiop/msg.h), the service contexts (CodeSets by name) and the body in hex.
 * Offsets inside a message are message offsets (octet 0 is the first octet
 * of its GIOP header, fragment headers not counted), given in decimal and
 * hex; offsets of messages in the input are input offsets.
 *
 * Exit status: 0 well-formed input; 1 malformed input (one line on standard
 * error naming the offset and what is wrong); 2 usage error or unreadable
 * input.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/giop.h>
#include <iiop/msg.h>
#include <iiop/frag.h>

#define EXIT_MALFORMED 1
#define EXIT_USAGE 2

static const char *prog = "giop-dump";

static void usage(FILE *f)
{
  fprintf(f,
          "Usage: %s [--hex] [FILE]\n"
          "Show the GIOP messages in FILE (standard input when FILE is absent or -).\n"
          "Fragmented messages are reassembled and shown once, with their fragments.\n"
          "\n"
          "  -x, --hex    the input is hex digits (white space anywhere is ignored)\n"
          "  -h, --help   show this help and exit\n"
          "\n"
          "Offsets inside a message are message offsets (0 = first octet of its GIOP\n"
          "header, fragment headers not counted), in decimal and hex.\n"
          "Exit status: 0 well-formed input, 1 malformed input (one line on standard\n"
          "error names the offset and what is wrong), 2 usage error or unreadable input.\n",
          prog);
}

/* ---------------------------------------------------------------- input */

typedef struct input {
  uint8_t *b;
  size_t n;
} input;

/* Most octets read from the input: a dump of more is refused rather than
 * read until memory runs out (an endless stream such as /dev/zero). */
#define MAX_INPUT ((size_t)256 << 20)

static int read_all(FILE *f, const char *name, input *in)
{
  size_t cap = 65536, n = 0;
  uint8_t *b = malloc(cap);
  if (!b) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return EXIT_USAGE;
  }
  for (;;) {
    if (n > MAX_INPUT) {
      free(b);
      fprintf(stderr, "%s: %s: input larger than %zu MiB\n", prog, name, MAX_INPUT >> 20);
      return EXIT_MALFORMED;
    }
    if (n == cap) {
      uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
      if (!nb) {
        free(b);
        fprintf(stderr, "%s: %s: input too large for memory\n", prog, name);
        return EXIT_USAGE;
      }
      b = nb;
      cap *= 2;
    }
    size_t k = fread(b + n, 1, cap - n, f);
    n += k;
    if (k == 0) {
      if (ferror(f)) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
        free(b);
        return EXIT_USAGE;
      }
      break;
    }
  }
  in->b = b;
  in->n = n;
  return 0;
}

static int hexval(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decode hex in place.  On malformed text, prints the line and returns 1. */
static int unhex(input *in)
{
  size_t o = 0, line = 1, col = 0;
  int hi = -1;
  size_t hi_at = 0;
  for (size_t k = 0; k < in->n; k++) {
    int c = in->b[k];
    col++;
    if (c == '\n') {
      line++;
      col = 0;
      continue;
    }
    if (isspace(c))
      continue;
    int v = hexval(c);
    if (v < 0) {
      if (isprint(c))
        fprintf(stderr, "%s: text offset %zu (line %zu, column %zu): '%c' is not a hex digit\n",
                prog, k, line, col, c);
      else
        fprintf(stderr, "%s: text offset %zu (line %zu, column %zu): octet 0x%02x is not a hex "
                "digit\n", prog, k, line, col, (unsigned)c);
      return EXIT_MALFORMED;
    }
    if (hi < 0) {
      hi = v;
      hi_at = k;
    } else {
      in->b[o++] = (uint8_t)(hi << 4 | v);
      hi = -1;
    }
  }
  if (hi >= 0) {
    fprintf(stderr, "%s: text offset %zu: odd number of hex digits (octet %zu has one digit)\n",
            prog, hi_at, o);
    return EXIT_MALFORMED;
  }
  in->n = o;
  return 0;
}

/* ---------------------------------------------------------------- output helpers */

static void hexdump(const uint8_t *msg, size_t from, size_t to, const char *indent)
{
  for (size_t line = from & ~(size_t)15; line < to; line += 16) {
    printf("%s%8zu (0x%06zx) ", indent, line, line);
    for (size_t k = line; k < line + 16; k++) {
      if (k == line + 8)
        putchar(' ');
      if (k >= from && k < to)
        printf(" %02x", msg[k]);
      else
        printf("   ");
    }
    printf("  |");
    for (size_t k = line; k < line + 16; k++) {
      if (k >= from && k < to)
        putchar(msg[k] >= 0x20 && msg[k] < 0x7f ? msg[k] : '.');
      else
        putchar(' ');
    }
    printf("|\n");
  }
}

/* Octets as hex, then as text when they are all printable. */
static void octets_inline(const uint8_t *p, size_t n)
{
  for (size_t k = 0; k < n; k++)
    printf("%s%02x", k ? " " : "", p[k]);
  bool text = n > 0;
  for (size_t k = 0; k < n && text; k++)
    text = p[k] >= 0x20 && p[k] < 0x7f;
  if (text)
    printf(" \"%.*s\"", (int)n, (const char *)p);
}

static void print_string(const char *s, size_t n)
{
  putchar('"');
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c >= 0x20 && c < 0x7f)
      putchar(c);
    else
      printf("\\x%02x", c);
  }
  putchar('"');
}

static const char *sc_name(uint32_t id)
{
  static const char *const names[] = {
    "TransactionService", "CodeSets", "ChainBypassCheck", "ChainBypassInfo",
    "LogicalThreadId", "BI_DIR_IIOP", "SendingContextRunTime", "INVOCATION_POLICIES",
    "FORWARDED_IDENTITY", "UnknownExceptionInfo", "RTCorbaPriority", "RTCorbaPriorityRange",
    "FT_GROUP_VERSION", "FT_REQUEST", "ExceptionDetailMessage", "SecurityAttributeService",
    "ActivityService", "RMICustomMaxStreamFormat"
  };
  return id < sizeof names / sizeof names[0] ? names[id] : NULL;
}

static const char *reply_status_name(uint32_t s)
{
  static const char *const names[] = {
    "NO_EXCEPTION", "USER_EXCEPTION", "SYSTEM_EXCEPTION", "LOCATION_FORWARD",
    "LOCATION_FORWARD_PERM", "NEEDS_ADDRESSING_MODE"
  };
  return s < 6 ? names[s] : "unknown";
}

static const char *locate_status_name(uint32_t s)
{
  static const char *const names[] = {
    "UNKNOWN_OBJECT", "OBJECT_HERE", "OBJECT_FORWARD", "OBJECT_FORWARD_PERM",
    "LOC_SYSTEM_EXCEPTION", "LOC_NEEDS_ADDRESSING_MODE"
  };
  return s < 6 ? names[s] : "unknown";
}

static void print_codeset(const char *what, uint32_t id)
{
  const char *n = cdr_codeset_name(id);
  printf("%s %s (0x%08x)", what, n ? n : "unknown code set", id);
}

/* ---------------------------------------------------------------- messages */

/* A fragment message of the input. */
typedef struct frag {
  size_t in_off;       /* input offset of its GIOP header */
  size_t len;          /* octets in all */
  size_t hl;           /* header octets not part of the reassembled message */
  size_t msg_off;      /* message offset of its first data octet */
} frag;

/* A fragmented message in progress. */
typedef struct pending {
  bool used;
  uint8_t minor, order;
  uint32_t id;
  frag *v;
  size_t n, cap;
  size_t total;        /* octets of the reassembled message so far */
} pending;

typedef struct dumper {
  const input *in;
  giop_reasm *r;
  cdr_arena arena;
  pending *pend;
  size_t npend, cappend;
  size_t messages, fragments;
} dumper;

static int malformed(size_t off, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int malformed(size_t off, const char *fmt, ...)
{
  fflush(stdout);
  fprintf(stderr, "%s: offset %zu (0x%zx): ", prog, off, off);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return EXIT_MALFORMED;
}

static bool pend_add_frag(pending *p, frag f)
{
  if (p->n == p->cap) {
    size_t c = p->cap ? p->cap * 2 : 8;
    frag *v = realloc(p->v, c * sizeof *v);
    if (!v)
      return false;
    p->v = v;
    p->cap = c;
  }
  p->v[p->n++] = f;
  return true;
}

static pending *pend_find(dumper *d, int minor, uint32_t id)
{
  for (size_t k = 0; k < d->npend; k++) {
    pending *p = &d->pend[k];
    if (p->used && p->minor == minor && (minor == 1 || p->id == id))
      return p;
  }
  return NULL;
}

static pending *pend_new(dumper *d)
{
  for (size_t k = 0; k < d->npend; k++)
    if (!d->pend[k].used)
      return &d->pend[k];
  if (d->npend == d->cappend) {
    size_t c = d->cappend ? d->cappend * 2 : 8;
    pending *v = realloc(d->pend, c * sizeof *v);
    if (!v)
      return NULL;
    memset(v + d->cappend, 0, (c - d->cappend) * sizeof *v);
    d->pend = v;
    d->cappend = c;
  }
  return &d->pend[d->npend++];
}

/* The input offset of message offset MOFF of a message made of FRAGS. */
static size_t input_offset(const frag *frags, size_t nf, size_t moff)
{
  size_t k = 0;
  while (k + 1 < nf && frags[k + 1].msg_off <= moff)
    k++;
  if (k == 0)
    return frags[0].in_off + moff;
  return frags[k].in_off + frags[k].hl + (moff - frags[k].msg_off);
}

static void print_contexts(const uint8_t *msg, const giop_sc_list *l)
{
  printf("  service contexts: %u\n", l->n);
  for (uint32_t k = 0; k < l->n; k++) {
    const giop_service_context *c = &l->v[k];
    const char *n = sc_name(c->id);
    size_t at = (size_t)(c->data - msg);
    printf("    [%u] %s (id %u = 0x%08x), %u octets at %zu (0x%zx)", k, n ? n : "unknown", c->id,
           c->id, c->len, at, at);
    if (c->id == GIOP_SC_CODE_SETS) {
      giop_codeset_context cs;
      if (giop_codeset_context_decode(c, &cs) == CDR_OK) {
        printf(": ");
        print_codeset("char", cs.char_data);
        printf(", ");
        print_codeset("wchar", cs.wchar_data);
        printf("\n");
        continue;
      }
      printf(" (not a valid CodeSetContext)");
    }
    if (c->len <= 16) {
      printf("%s", c->len ? ": " : "");
      octets_inline(c->data, c->len);
      printf("\n");
    } else {
      printf("\n");
      hexdump(msg, at, at + c->len, "      ");
    }
  }
}

static void print_target(const giop_target *t)
{
  switch (t->disposition) {
  case GIOP_KEY_ADDR:
    printf("  target: KeyAddr, object key (%u octets): ", t->key_len);
    octets_inline(t->key, t->key_len);
    printf("\n");
    break;
  case GIOP_PROFILE_ADDR:
    printf("  target: ProfileAddr, profile tag %u, %u octets of profile data\n", t->profile_tag,
           t->profile_len);
    break;
  default:
    printf("  target: ReferenceAddr, selected profile %u of an IOR of %u octets\n",
           t->profile_index, t->ior_len);
    break;
  }
}

static const char *response_name(int minor, uint8_t f)
{
  if (minor < 2)
    return f ? "response expected" : "no response expected";
  switch (f) {
  case GIOP_RESPONSE_NONE:
    return "none (oneway)";
  case GIOP_RESPONSE_SYNC_WITH_SERVER:
    return "SYNC_WITH_SERVER";
  case GIOP_RESPONSE_EXPECTED:
    return "two-way";
  default:
    return "undefined bits";
  }
}

/* Show the complete message MSG (LEN octets) made of FRAGS (NF of them;
 * one for an unfragmented message). */
static int show_parsed(dumper *d, const giop_message *m, int rc, const uint8_t *msg, size_t len,
                       const frag *frags, size_t nf);

static int show(dumper *d, const uint8_t *msg, size_t len, const frag *frags, size_t nf)
{
  giop_message m;
  cdr_arena_reset(&d->arena);
  int rc = giop_parse(&m, msg, len, NULL, &d->arena);
  int st = show_parsed(d, &m, rc, msg, len, frags, nf);
  cdr_in_close(&m.body);
  return st;
}

static int show_parsed(dumper *d, const giop_message *m, int rc, const uint8_t *msg, size_t len,
                       const frag *frags, size_t nf)
{
  d->messages++;
  giop_header h;
  if (giop_header_parse(msg, len, &h) != CDR_OK) /* checked by the caller already */
    return malformed(frags[0].in_off, "bad GIOP header");
  printf("message %zu at offset %zu (0x%zx): GIOP %u.%u %s, %zu octets", d->messages,
         frags[0].in_off, frags[0].in_off, h.major, h.minor, giop_msg_type_name(h.type), len);
  if (nf > 1)
    printf(", reassembled from %zu fragment messages", nf);
  printf("\n");
  printf("  header: flags 0x%02x (%s-endian), message_size %u\n", h.flags,
         (h.flags & GIOP_FLAG_LITTLE_ENDIAN) ? "little" : "big", h.size);
  if (nf > 1) {
    printf("  fragments:\n");
    for (size_t k = 0; k < nf; k++) {
      const frag *f = &frags[k];
      const uint8_t *fh = d->in->b + f->in_off;
      size_t data = f->len - f->hl;
      size_t mo = k == 0 ? 0 : f->msg_off;
      size_t me = k == 0 ? f->len : f->msg_off + data;
      printf("    [%zu] offset %zu (0x%zx), %zu octets: %s%s, message octets %zu..%zu "
             "(0x%zx..0x%zx)\n",
             k, f->in_off, f->in_off, f->len, giop_msg_type_name(fh[7]),
             (fh[6] & GIOP_FLAG_MORE_FRAGMENTS) ? " (more fragments)" : "", mo,
             me ? me - 1 : 0, mo, me ? me - 1 : 0);
    }
  }
  if (rc != CDR_OK) {
    size_t eo = cdr_in_error_offset(&m->body);
    const char *em = cdr_in_error_message(&m->body);
    return malformed(input_offset(frags, nf, eo),
                     "message offset %zu (0x%zx): %s (%s)", eo, eo, em[0] ? em : cdr_strerror(rc),
                     cdr_strerror(rc));
  }
  int minor = h.minor;
  switch (h.type) {
  case GIOP_REQUEST: {
    const giop_request_header *r = &m->u.request;
    printf("  request_id %u\n", r->request_id);
    printf("  response_flags 0x%02x (%s)\n", r->response_flags,
           response_name(minor, r->response_flags));
    print_target(&r->target);
    printf("  operation ");
    print_string(r->operation, r->operation_len);
    printf("\n");
    if (minor < 2)
      printf("  requesting_principal: %u octets\n", r->principal_len);
    print_contexts(msg, &r->contexts);
    break;
  }
  case GIOP_REPLY: {
    const giop_reply_header *r = &m->u.reply;
    printf("  request_id %u\n", r->request_id);
    printf("  reply_status %u (%s)\n", r->reply_status, reply_status_name(r->reply_status));
    print_contexts(msg, &r->contexts);
    if (r->reply_status == GIOP_SYSTEM_EXCEPTION) {
      cdr_in copy = m->body;
      giop_system_exception e;
      if (giop_get_system_exception(&copy, &e) != CDR_OK) {
        size_t eo = cdr_in_error_offset(&copy);
        return malformed(input_offset(frags, nf, eo),
                         "message offset %zu (0x%zx): system exception body: %s", eo, eo,
                         cdr_in_error_message(&copy));
      }
      printf("  system exception %s, minor 0x%08x, completed %s\n", e.repo_id, e.minor,
             e.completed == GIOP_COMPLETED_YES  ? "YES"
             : e.completed == GIOP_COMPLETED_NO ? "NO"
                                                : "MAYBE");
    }
    break;
  }
  case GIOP_CANCEL_REQUEST:
    printf("  request_id %u\n", m->u.cancel_request_id);
    break;
  case GIOP_LOCATE_REQUEST:
    printf("  request_id %u\n", m->u.locate_request.request_id);
    print_target(&m->u.locate_request.target);
    break;
  case GIOP_LOCATE_REPLY:
    printf("  request_id %u\n", m->u.locate_reply.request_id);
    printf("  locate_status %u (%s)\n", m->u.locate_reply.locate_status,
           locate_status_name(m->u.locate_reply.locate_status));
    break;
  default:
    break;
  }
  size_t bpos = cdr_in_pos(&m->body);
  if (bpos < len) {
    printf("  body: %zu octets at %zu (0x%zx)\n", len - bpos, bpos, bpos);
    hexdump(msg, bpos, len, "    ");
  } else if (h.type == GIOP_REQUEST || h.type == GIOP_REPLY || h.type == GIOP_LOCATE_REPLY) {
    printf("  body: none\n");
  }
  return 0;
}

/* Why the 12 octets at P are not a GIOP header we accept. */
static const char *header_problem(const uint8_t *p, char *buf, size_t cap)
{
  if (memcmp(p, "GIOP", 4) != 0)
    snprintf(buf, cap, "bad magic %02x %02x %02x %02x (\"GIOP\" expected)", p[0], p[1], p[2], p[3]);
  else if (p[4] != 1 || p[5] > 2)
    snprintf(buf, cap, "unsupported GIOP version %u.%u", p[4], p[5]);
  else if (p[7] > GIOP_FRAGMENT)
    snprintf(buf, cap, "unknown message type %u", p[7]);
  else if (p[5] == 0 && p[7] == GIOP_FRAGMENT)
    snprintf(buf, cap, "Fragment in GIOP 1.0");
  else if (p[5] == 0)
    snprintf(buf, cap, "GIOP 1.0 byte_order octet %u (0 or 1 expected)", p[6]);
  else
    snprintf(buf, cap, "undefined flag bits 0x%02x", p[6] & ~3u);
  return buf;
}

static int fragmentable(int minor, int type)
{
  return type == GIOP_REQUEST || type == GIOP_REPLY
         || (minor == 2 && (type == GIOP_LOCATE_REQUEST || type == GIOP_LOCATE_REPLY));
}

static uint32_t rd32(const uint8_t *p, int little)
{
  return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static int dump(dumper *d)
{
  const input *in = d->in;
  size_t off = 0;
  char why[128];
  while (off < in->n) {
    const uint8_t *p = in->b + off;
    size_t left = in->n - off;
    if (left < GIOP_HEADER_SIZE)
      return malformed(off, "truncated GIOP header: %zu of 12 octets", left);
    giop_header h;
    if (giop_header_parse(p, left, &h) != CDR_OK)
      return malformed(off, "%s", header_problem(p, why, sizeof why));
    uint64_t total = (uint64_t)h.size + GIOP_HEADER_SIZE;
    if (total > left)
      return malformed(off, "truncated %s: message_size %u needs %llu octets, %zu present",
                       giop_msg_type_name(h.type), h.size, (unsigned long long)total, left);
    int little = h.flags & GIOP_FLAG_LITTLE_ENDIAN;
    bool more = h.minor >= 1 && (h.flags & GIOP_FLAG_MORE_FRAGMENTS);
    pending *pm = NULL;
    frag f = { off, (size_t)total, 0, 0 };
    /* Say precisely what is wrong before the reassembler refuses it. */
    if (more && h.type != GIOP_FRAGMENT && !fragmentable(h.minor, h.type))
      return malformed(off, "%s with the more-fragments flag: GIOP 1.%u does not fragment it",
                       giop_msg_type_name(h.type), h.minor);
    if (h.minor == 2 && (more || h.type == GIOP_FRAGMENT) && h.size < 4)
      return malformed(off, "%s too short for its request ID (message_size %u)",
                       giop_msg_type_name(h.type), h.size);
    if (h.minor == 2 && more && total % 8 != 0)
      return malformed(off, "non-final GIOP 1.2 fragment message of %llu octets (not a multiple of 8)",
                       (unsigned long long)total);
    if (h.type == GIOP_FRAGMENT) {
      uint32_t id = h.minor == 2 ? rd32(p + 12, little) : 0;
      pm = pend_find(d, h.minor, id);
      if (!pm) {
        if (h.minor == 2)
          return malformed(off, "Fragment for request ID %u with no fragmented message pending", id);
        return malformed(off, "GIOP 1.1 Fragment with no fragmented message pending");
      }
      if (pm->order != little)
        return malformed(off, "Fragment in %s-endian, its first message in %s-endian",
                         little ? "little" : "big", little ? "big" : "little");
      f.hl = h.minor == 2 ? 16 : 12;
      f.msg_off = pm->total;
    } else if (more) {
      uint32_t id = h.minor == 2 ? rd32(p + 12, little) : 0;
      if (pend_find(d, h.minor, id)) {
        if (h.minor == 2)
          return malformed(off, "fragmented %s reuses request ID %u, still pending",
                           giop_msg_type_name(h.type), id);
        return malformed(off, "second fragmented GIOP 1.1 message while one is pending");
      }
    }
    int rc = giop_reasm_feed(d->r, p, (size_t)total);
    if (rc != CDR_OK)
      return malformed(off, "reassembly: %s", cdr_strerror(rc));
    d->fragments++;
    if (h.type == GIOP_FRAGMENT) {
      if (!pend_add_frag(pm, f))
        return malformed(off, "out of memory");
      pm->total += f.len - f.hl;
    } else if (more) {
      pm = pend_new(d);
      if (!pm || !pend_add_frag(pm, f))
        return malformed(off, "out of memory");
      pm->used = true;
      pm->minor = h.minor;
      pm->order = (uint8_t)little;
      pm->id = h.minor == 2 ? rd32(p + 12, little) : 0;
      pm->total = f.len;
    }
    uint8_t *msg;
    size_t len;
    if (giop_reasm_next(d->r, &msg, &len)) {
      int st;
      if (pm) {
        st = show(d, msg, len, pm->v, pm->n);
        pm->used = false;
        pm->n = 0;
      } else {
        st = show(d, msg, len, &f, 1);
      }
      giop_reasm_release(d->r, msg);
      if (st)
        return st;
    }
    off += (size_t)total;
  }
  for (size_t k = 0; k < d->npend; k++) {
    pending *p = &d->pend[k];
    if (!p->used)
      continue;
    if (p->minor == 2)
      return malformed(in->n, "input ends inside fragmented message with request ID %u "
                              "(%zu fragment messages from offset %zu, last one had the "
                              "more-fragments flag)", p->id, p->n, p->v[0].in_off);
    return malformed(in->n, "input ends inside a fragmented GIOP 1.1 message (%zu fragment "
                            "messages from offset %zu)", p->n, p->v[0].in_off);
  }
  printf("%zu message%s in %zu GIOP message%s, %zu octets\n", d->messages,
         d->messages == 1 ? "" : "s", d->fragments, d->fragments == 1 ? "" : "s", in->n);
  return 0;
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
    { "hex", no_argument, NULL, 'x' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool hex = false;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "xh", longopts, NULL)) != -1) {
    switch (c) {
    case 'x':
      hex = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      if (optopt && optopt != '?')
        fprintf(stderr, "%s: unknown option -%c\n", prog, optopt);
      else
        fprintf(stderr, "%s: unknown option %s\n", prog, argv[optind - 1]);
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "%s: at most one FILE\n", prog);
    usage(stderr);
    return EXIT_USAGE;
  }
  const char *name = optind < argc ? argv[optind] : "-";
  FILE *f = stdin;
  if (strcmp(name, "-") != 0) {
    f = fopen(name, "rb");
    if (!f) {
      fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
      return EXIT_USAGE;
    }
  }
  input in;
  int st = read_all(f, strcmp(name, "-") ? name : "standard input", &in);
  if (f != stdin)
    fclose(f);
  if (st)
    return st;
  if (hex && (st = unhex(&in)) != 0) {
    free(in.b);
    return st;
  }

  dumper d;
  memset(&d, 0, sizeof d);
  d.in = &in;
  giop_reasm_opts o;
  giop_reasm_opts_default(&o);
  o.max_message = SIZE_MAX / 4;     /* the input bounds every message */
  o.max_pending = UINT32_MAX;
  d.r = giop_reasm_new(&o);
  if (!d.r) {
    fprintf(stderr, "%s: out of memory\n", prog);
    free(in.b);
    return EXIT_USAGE;
  }
  cdr_arena_init(&d.arena, NULL);
  st = dump(&d);
  cdr_arena_free(&d.arena);
  giop_reasm_free(d.r);
  for (size_t k = 0; k < d.npend; k++)
    free(d.pend[k].v);
  free(d.pend);
  free(in.b);
  if (fflush(stdout) != 0 && st == 0) {
    fprintf(stderr, "%s: writing output: %s\n", prog, strerror(errno));
    return EXIT_USAGE;
  }
  return st;
}
