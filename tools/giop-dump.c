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
 * Two more inputs are recognised by their first octets, with or without
 * --hex:
 *  - a pcap or pcapng capture file (read through libpcap): the TCP payloads
 *    of each connection and direction are put in sequence order
 *    (retransmitted, overlapping and out-of-order segments handled) and each
 *    direction's octets are decoded as above, the messages of all streams in
 *    the order they completed in the capture, each labelled with its stream
 *    ("127.0.0.1:40000 -> 127.0.0.1:2809") and with offsets in that stream;
 *  - text whose first non-blank character is '#', as giop-proxy.py writes
 *    (tests/interop/captures/): '#' lines are comments, and a comment
 *    "# conn N c2s" or "# conn N s2c" starts a message of that connection
 *    and direction; each other line is "OFFSET OCTETS...", the hex offset in
 *    the message of the first octet on the line, then octets of two hex
 *    digits each.
 *
 * Exit status: 0 well-formed input; 1 malformed input (one line on standard
 * error naming the offset and what is wrong); 2 usage error or unreadable
 * input (a capture file when built without libpcap, a link type not read).
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
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
/* GIOP_DUMP_WITHOUT_PCAP builds the tool as if libpcap were missing (the
 * test suite checks what that build says about a capture file). */
#if defined HAVE_LIBPCAP && !defined GIOP_DUMP_WITHOUT_PCAP
#define WITH_PCAP 1
#include <arpa/inet.h>
#include <pcap/pcap.h>
#endif

#define EXIT_MALFORMED 1
#define EXIT_USAGE 2

static const char *prog = "giop-dump";

/* What a build without libpcap says about a capture file. */
#define PCAP_HOWTO "rebuild with libpcap-dev installed: apt-get install libpcap-dev"

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
          "Recognised whatever the options:\n"
          "  a pcap or pcapng capture: each TCP connection's payloads are put in\n"
          "    sequence order and each direction is decoded, messages labelled with\n"
          "    their stream (\"10.0.0.1:40000 -> 10.0.0.2:2809\") and stream offsets;\n"
          "    link types Ethernet, Linux cooked (SLL, SLL2), loopback, raw IP; octets\n"
          "    missing from the capture are malformed input;%s\n"
          "  text whose first non-blank character is '#': giop-proxy.py's captures\n"
          "    (\"# conn N c2s\" starts a message, then lines \"OFFSET OCTETS...\").\n"
          "\n"
          "Offsets inside a message are message offsets (0 = first octet of its GIOP\n"
          "header, fragment headers not counted), in decimal and hex.\n"
          "Exit status: 0 well-formed input, 1 malformed input (one line on standard\n"
          "error names the offset and what is wrong), 2 usage error or unreadable input.\n",
          prog,
#ifdef WITH_PCAP
          ""
#else
          "\n    NOT IN THIS BUILD: " PCAP_HOWTO
#endif
          );
}

/* ---------------------------------------------------------------- input */

typedef struct input {
  uint8_t *b;
  size_t n;
} input;

/* Most octets read from the input: a dump of more is refused rather than
 * read until memory runs out (an endless stream such as /dev/zero). */
#define MAX_INPUT ((size_t)256 << 20)

/* Read F to its end into IN, after the NPRE octets at PRE (read from F
 * already, at most 16). */
static int read_all(FILE *f, const char *name, const uint8_t *pre, size_t npre, input *in)
{
  size_t cap = 65536, n = npre;
  uint8_t *b = malloc(cap);
  if (!b) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return EXIT_USAGE;
  }
  memcpy(b, pre, npre);
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

/* The one line on standard error for malformed input: "giop-dump: ", AT (where
 * in the input), then FMT.  Returns EXIT_MALFORMED. */
static int vmalformed(const char *at, const char *fmt, va_list ap)
{
  fflush(stdout);
  fprintf(stderr, "%s: %s", prog, at);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  return EXIT_MALFORMED;
}

/* Malformed text at text offset K, column COL of line LINE. */
static int bad_text(size_t k, size_t line, size_t col, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
static int bad_text(size_t k, size_t line, size_t col, const char *fmt, ...)
{
  char at[96];
  snprintf(at, sizeof at, "text offset %zu (line %zu, column %zu): ", k, line, col);
  va_list ap;
  va_start(ap, fmt);
  int st = vmalformed(at, fmt, ap);
  va_end(ap);
  return st;
}

static int not_hex(size_t k, size_t line, size_t col, int c)
{
  if (isprint(c))
    return bad_text(k, line, col, "'%c' is not a hex digit", c);
  return bad_text(k, line, col, "octet 0x%02x is not a hex digit", (unsigned)c);
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
    if (v < 0)
      return not_hex(k, line, col, c);
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
  uint8_t flags, type; /* octets 6 and 7 of its GIOP header */
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

/* The decoder of one input or one stream of a capture. */
typedef struct dumper {
  giop_reasm *r;
  cdr_arena arena;
  pending *pend;
  size_t npend, cappend;
  size_t messages, fragments;
} dumper;

/* Messages shown so far, all streams together. */
static size_t shown;

/* The stream being decoded, in a capture; NULL for plain input.  It names
 * the stream in each message line and error line. */
static const char *where;

static bool dumper_init(dumper *d, size_t max_message)
{
  memset(d, 0, sizeof *d);
  giop_reasm_opts o;
  giop_reasm_opts_default(&o);
  o.max_message = max_message;
  o.max_pending = UINT32_MAX;
  d->r = giop_reasm_new(&o);
  cdr_arena_init(&d->arena, NULL);
  return d->r != NULL;
}

static void dumper_free(dumper *d)
{
  cdr_arena_free(&d->arena);
  giop_reasm_free(d->r);
  for (size_t k = 0; k < d->npend; k++)
    free(d->pend[k].v);
  free(d->pend);
}

static int malformed(size_t off, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int malformed(size_t off, const char *fmt, ...)
{
  char at[192];
  snprintf(at, sizeof at, "%s%soffset %zu (0x%zx): ", where ? where : "", where ? " " : "", off,
           off);
  va_list ap;
  va_start(ap, fmt);
  int st = vmalformed(at, fmt, ap);
  va_end(ap);
  return st;
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
  shown++;
  giop_header h;
  if (giop_header_parse(msg, len, &h) != CDR_OK) /* checked by the caller already */
    return malformed(frags[0].in_off, "bad GIOP header");
  printf("message %zu at %s%soffset %zu (0x%zx): GIOP %u.%u %s, %zu octets", shown,
         where ? where : "", where ? " " : "", frags[0].in_off, frags[0].in_off, h.major, h.minor,
         giop_msg_type_name(h.type), len);
  if (nf > 1)
    printf(", reassembled from %zu fragment messages", nf);
  printf("\n");
  printf("  header: flags 0x%02x (%s-endian), message_size %u\n", h.flags,
         (h.flags & GIOP_FLAG_LITTLE_ENDIAN) ? "little" : "big", h.size);
  if (nf > 1) {
    printf("  fragments:\n");
    for (size_t k = 0; k < nf; k++) {
      const frag *f = &frags[k];
      size_t data = f->len - f->hl;
      size_t mo = k == 0 ? 0 : f->msg_off;
      size_t me = k == 0 ? f->len : f->msg_off + data;
      printf("    [%zu] offset %zu (0x%zx), %zu octets: %s%s, message octets %zu..%zu "
             "(0x%zx..0x%zx)\n",
             k, f->in_off, f->in_off, f->len, giop_msg_type_name(f->type),
             (f->flags & GIOP_FLAG_MORE_FRAGMENTS) ? " (more fragments)" : "", mo,
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

/* Decode the GIOP messages in B[0..N), whose first octet is at input offset
 * BASE, showing each complete one; *USED is set to the octets of the complete
 * ones.  With AT_END the input ends at B + N, so that an incomplete message
 * there is malformed; without, it is left for a call with more octets.
 * Returns 0 or the exit status of malformed input (the line printed). */
static int dump_octets(dumper *d, const uint8_t *b, size_t n, size_t base, bool at_end,
                       size_t *used)
{
  size_t at = 0;
  char why[128];
  *used = 0;
  while (at < n) {
    const uint8_t *p = b + at;
    size_t left = n - at, off = base + at;
    if (left < GIOP_HEADER_SIZE) {
      if (at_end)
        return malformed(off, "truncated GIOP header: %zu of 12 octets", left);
      break;
    }
    giop_header h;
    if (giop_header_parse(p, left, &h) != CDR_OK)
      return malformed(off, "%s", header_problem(p, why, sizeof why));
    uint64_t total = (uint64_t)h.size + GIOP_HEADER_SIZE;
    if (total > left) {
      if (at_end)
        return malformed(off, "truncated %s: message_size %u needs %llu octets, %zu present",
                         giop_msg_type_name(h.type), h.size, (unsigned long long)total, left);
      break;
    }
    int little = h.flags & GIOP_FLAG_LITTLE_ENDIAN;
    bool more = h.minor >= 1 && (h.flags & GIOP_FLAG_MORE_FRAGMENTS);
    pending *pm = NULL;
    frag f = { off, (size_t)total, 0, 0, h.flags, h.type };
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
    at += (size_t)total;
    *used = at;
  }
  return 0;
}

/* The input ends at input offset END: malformed if a fragmented message is
 * still pending. */
static int dump_end(dumper *d, size_t end)
{
  for (size_t k = 0; k < d->npend; k++) {
    pending *p = &d->pend[k];
    if (!p->used)
      continue;
    if (p->minor == 2)
      return malformed(end, "input ends inside fragmented message with request ID %u "
                              "(%zu fragment messages from offset %zu, last one had the "
                              "more-fragments flag)", p->id, p->n, p->v[0].in_off);
    return malformed(end, "input ends inside a fragmented GIOP 1.1 message (%zu fragment "
                            "messages from offset %zu)", p->n, p->v[0].in_off);
  }
  return 0;
}

static const char *plural(size_t n)
{
  return n == 1 ? "" : "s";
}

/* Plain input: the messages of IN back to back. */
static int dump_input(const input *in)
{
  dumper d;
  if (!dumper_init(&d, SIZE_MAX / 4)) { /* the input bounds every message */
    fprintf(stderr, "%s: out of memory\n", prog);
    return EXIT_USAGE;
  }
  size_t used;
  int st = dump_octets(&d, in->b, in->n, 0, true, &used);
  if (st == 0)
    st = dump_end(&d, in->n);
  if (st == 0)
    printf("%zu message%s in %zu GIOP message%s, %zu octets\n", d.messages, plural(d.messages),
           d.fragments, plural(d.fragments), in->n);
  dumper_free(&d);
  return st;
}

/* ---------------------------------------------------------------- streams of a capture */

/* The octets of one direction of one connection (TCP in a capture file, a
 * "# conn N c2s" stream in a hex capture), decoded as they arrive in order. */

/* Most octets held out of order, all TCP streams together: beyond it the
 * missing octets are reported as a gap rather than waited for until memory
 * runs out. */
#define MAX_OUT_OF_ORDER ((size_t)64 << 20)
#define STREAM_BUCKETS 4096

enum { KIND_UNKNOWN, KIND_GIOP, KIND_OTHER };

/* A TCP segment ahead of the octets in order. */
typedef struct seg {
  struct seg *next;
  uint64_t off;        /* stream offset of b[0] */
  size_t len;
  size_t frame;        /* the frame of the capture it came in (1 = first) */
  uint8_t b[];
} seg;

typedef struct stream {
  struct stream *hnext, *next;
  uint8_t key[40];
  size_t keylen;
  char label[112];     /* "127.0.0.1:40000 -> 127.0.0.1:2809", "conn 1 c2s" */
  dumper d;
  int kind;            /* KIND_GIOP once its first octets are "GIOP" */
  uint8_t first[4];    /* its first octets */
  size_t nfirst;
  uint8_t *buf;        /* octets in order not yet decoded */
  size_t len, cap;
  size_t done;         /* stream offset of buf[0] */
  uint64_t total;      /* octets in order so far */
  bool have_seq;       /* TCP: seq0 is known */
  uint32_t seq0;       /* TCP: the sequence number of stream offset 0 */
  seg *ooo;            /* TCP: segments beyond total, by offset */
} stream;

typedef struct capture {
  stream *bucket[STREAM_BUCKETS];
  stream *head, **tail; /* every stream, in the order it first appeared */
  size_t ooo_bytes;
  size_t frames;        /* frames read so far */
  size_t ip_fragments;  /* IP fragments skipped */
} capture;

static capture *capture_new(void)
{
  capture *c = calloc(1, sizeof *c);
  if (c)
    c->tail = &c->head;
  return c;
}

static void capture_free(capture *c)
{
  stream *s = c->head;
  while (s) {
    stream *next = s->next;
    while (s->ooo) {
      seg *g = s->ooo;
      s->ooo = g->next;
      free(g);
    }
    dumper_free(&s->d);
    free(s->buf);
    free(s);
    s = next;
  }
  free(c);
}

static size_t key_bucket(const uint8_t *key, size_t n)
{
  uint32_t h = 2166136261u;
  for (size_t k = 0; k < n; k++)
    h = (h ^ key[k]) * 16777619u;
  return h % STREAM_BUCKETS;
}

static stream *stream_find(capture *c, const uint8_t *key, size_t n)
{
  for (stream *s = c->bucket[key_bucket(key, n)]; s; s = s->hnext)
    if (s->keylen == n && memcmp(s->key, key, n) == 0)
      return s;
  return NULL;
}

static stream *stream_add(capture *c, const uint8_t *key, size_t n, const char *label)
{
  stream *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  if (!dumper_init(&s->d, MAX_INPUT)) {
    dumper_free(&s->d);
    free(s);
    return NULL;
  }
  memcpy(s->key, key, n);
  s->keylen = n;
  snprintf(s->label, sizeof s->label, "%s", label);
  size_t b = key_bucket(key, n);
  s->hnext = c->bucket[b];
  c->bucket[b] = s;
  *c->tail = s;
  c->tail = &s->next;
  return s;
}

static int out_of_memory(void)
{
  fflush(stdout);
  fprintf(stderr, "%s: out of memory\n", prog);
  return EXIT_USAGE;
}

/* The next N octets of S in order: decode the messages they complete. */
static int stream_push(stream *s, const uint8_t *p, size_t n)
{
  s->total += n;
  if (s->kind == KIND_OTHER)
    return 0;
  for (size_t k = 0; s->nfirst < 4 && k < n; k++)
    s->first[s->nfirst++] = p[k];
  if (memcmp(s->first, "GIOP", s->nfirst) != 0) {
    s->kind = KIND_OTHER;
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    return 0;
  }
  if (s->nfirst == 4)
    s->kind = KIND_GIOP;
  where = s->label;
  size_t used;
  int st;
  if (s->len == 0) { /* decode in place what is complete, keep the rest */
    st = dump_octets(&s->d, p, n, s->done, false, &used);
    s->done += used;
    p += used;
    n -= used;
    if (st || n == 0)
      return st;
  }
  if (n > MAX_INPUT - s->len)
    return malformed(s->done, "a message of more than %zu MiB: not read", MAX_INPUT >> 20);
  if (s->len + n > s->cap) {
    size_t c = s->cap ? s->cap : 4096;
    while (c < s->len + n)
      c *= 2;
    uint8_t *b = realloc(s->buf, c);
    if (!b)
      return out_of_memory();
    s->buf = b;
    s->cap = c;
  }
  bool fresh = s->len == 0;
  memcpy(s->buf + s->len, p, n);
  s->len += n;
  if (fresh) /* tried above */
    return 0;
  st = dump_octets(&s->d, s->buf, s->len, s->done, false, &used);
  memmove(s->buf, s->buf + used, s->len - used);
  s->len -= used;
  s->done += used;
  return st;
}

static int stream_gap(stream *s, uint64_t next, size_t frame)
{
  where = s->label;
  return malformed((size_t)s->total,
                   "gap in the TCP stream: %" PRIu64 " octets (sequence numbers %" PRIu32
                   " to %" PRIu32 ") are not in the capture; the stream goes on in frame %zu",
                   next - s->total, (uint32_t)(s->seq0 + s->total), (uint32_t)(s->seq0 + next - 1),
                   frame);
}

/* S has ended: malformed if octets are missing or a message is incomplete. */
static int stream_end(stream *s)
{
  if (s->kind == KIND_OTHER)
    return 0;
  if (s->ooo)
    return stream_gap(s, s->ooo->off, s->ooo->frame);
  where = s->label;
  size_t used;
  int st = dump_octets(&s->d, s->buf, s->len, s->done, true, &used);
  if (st)
    return st;
  s->done += s->len;
  s->len = 0;
  return dump_end(&s->d, s->done);
}

/* Every stream has ended: check them, then print what each held. */
static int capture_end(capture *c)
{
  for (stream *s = c->head; s; s = s->next) {
    int st = stream_end(s);
    if (st)
      return st;
  }
  where = NULL;
  size_t messages = 0, fragments = 0, octets = 0, streams = 0;
  for (stream *s = c->head; s; s = s->next) {
    if (s->total == 0)
      continue;
    streams++;
    if (s->kind == KIND_OTHER) {
      printf("%s: not GIOP (first octets ", s->label);
      octets_inline(s->first, s->nfirst);
      printf("), %" PRIu64 " octets skipped\n", s->total);
      continue;
    }
    printf("%s: %zu message%s in %zu GIOP message%s, %" PRIu64 " octets\n", s->label,
           s->d.messages, plural(s->d.messages), s->d.fragments, plural(s->d.fragments),
           s->total);
    messages += s->d.messages;
    fragments += s->d.fragments;
    octets += (size_t)s->total;
  }
  if (c->ip_fragments)
    printf("%zu IP fragment%s skipped (not reassembled)\n", c->ip_fragments,
           plural(c->ip_fragments));
  printf("%zu message%s in %zu GIOP message%s, %zu octets in %zu stream%s\n", messages,
         plural(messages), fragments, plural(fragments), octets, streams, plural(streams));
  return 0;
}

/* ---------------------------------------------------------------- hex captures */

/* Text with '#' comment lines, as giop-proxy.py writes: a "# conn N c2s" or
 * "# conn N s2c" line starts a message of that stream, and each other line
 * is "OFFSET OCTETS...", OFFSET counting from the message's first octet. */
static bool is_hex_capture(const input *in)
{
  size_t k = 0;
  while (k < in->n && isspace(in->b[k]))
    k++;
  return k < in->n && in->b[k] == '#';
}

/* The stream a "# conn N DIR" comment (LEN octets at P) names, or NULL for
 * another comment; *ERR is set when there is no memory for it. */
static stream *conn_stream(capture *c, const uint8_t *p, size_t len, bool *err)
{
  char text[64], dir[4];
  unsigned conn;
  int end = 0;
  size_t tl = len < sizeof text - 1 ? len : sizeof text - 1;
  memcpy(text, p, tl);
  text[tl] = '\0';
  if (sscanf(text, "# conn %u %3s%n", &conn, dir, &end) != 2
      || (text[end] != '\0' && !isspace((unsigned char)text[end]))
      || (strcmp(dir, "c2s") != 0 && strcmp(dir, "s2c") != 0))
    return NULL;
  uint8_t key[6] = { 'c', (uint8_t)(conn >> 24), (uint8_t)(conn >> 16), (uint8_t)(conn >> 8),
                     (uint8_t)conn, (uint8_t)dir[0] };
  stream *s = stream_find(c, key, sizeof key);
  if (!s) {
    char label[32];
    snprintf(label, sizeof label, "conn %u %s", conn, dir);
    s = stream_add(c, key, sizeof key, label);
    *err = s == NULL;
  }
  return s;
}

static int dump_hex_capture(const input *in)
{
  capture *c = capture_new();
  if (!c)
    return out_of_memory();
  const uint8_t *b = in->b;
  stream *cur = NULL;
  size_t msg = 0; /* octets of the current message so far */
  size_t line = 0;
  int st = 0;
  for (size_t k = 0; k < in->n && st == 0;) {
    size_t ls = k, le = k;
    while (le < in->n && b[le] != '\n')
      le++;
    line++;
    k = le < in->n ? le + 1 : le;
    size_t j = ls;
    while (j < le && isspace(b[j]))
      j++;
    if (j == le)
      continue;
    if (b[j] == '#') {
      bool err = false;
      stream *s = conn_stream(c, b + j, le - j, &err);
      if (err)
        st = out_of_memory();
      if (s) {
        cur = s;
        msg = 0;
      }
      continue;
    }
    if (!cur && !(cur = stream_add(c, (const uint8_t *)"i", 1, "input"))) {
      st = out_of_memory();
      break;
    }
    size_t o = j;
    uint64_t offset = 0;
    for (; o < le && hexval(b[o]) >= 0; o++) {
      if (o - j == 16) {
        st = bad_text(j, line, j - ls + 1, "offset of more than 16 hex digits");
        break;
      }
      offset = offset << 4 | (unsigned)hexval(b[o]);
    }
    if (st)
      break;
    if (o == j || (o < le && !isspace(b[o]))) {
      st = not_hex(o, line, o - ls + 1, b[o]);
      break;
    }
    if (offset != msg) {
      st = bad_text(j, line, j - ls + 1, "offset 0x%" PRIx64 ", but %zu (0x%zx) octets of "
                    "this message precede the line", offset, msg, msg);
      break;
    }
    uint8_t oct[64];
    size_t no = 0;
    while (st == 0) {
      while (o < le && isspace(b[o]))
        o++;
      if (o == le)
        break;
      int hi = hexval(b[o]), lo = o + 1 < le ? hexval(b[o + 1]) : -1;
      if (hi < 0) {
        st = not_hex(o, line, o - ls + 1, b[o]);
      } else if (lo < 0 && o + 1 < le && !isspace(b[o + 1])) {
        st = not_hex(o + 1, line, o - ls + 2, b[o + 1]);
      } else if (lo < 0 || (o + 2 < le && !isspace(b[o + 2]))) {
        st = bad_text(o, line, o - ls + 1, "octets are written as two hex digits each");
      } else {
        oct[no++] = (uint8_t)(hi << 4 | lo);
        o += 2;
        if (no == sizeof oct) {
          msg += no;
          st = stream_push(cur, oct, no);
          no = 0;
        }
      }
    }
    if (st == 0 && no) {
      msg += no;
      st = stream_push(cur, oct, no);
    }
  }
  if (st == 0)
    st = capture_end(c);
  capture_free(c);
  return st;
}

/* ---------------------------------------------------------------- capture files */

static const char *capture_format(const uint8_t *p)
{
  static const uint8_t magics[4][4] = {
    { 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 }, /* pcap, microseconds */
    { 0xa1, 0xb2, 0x3c, 0x4d }, { 0x4d, 0x3c, 0xb2, 0xa1 }, /* pcap, nanoseconds */
  };
  for (size_t k = 0; k < 4; k++)
    if (memcmp(p, magics[k], 4) == 0)
      return "pcap";
  if (memcmp(p, "\x0a\x0d\x0d\x0a", 4) == 0)
    return "pcapng";
  return NULL;
}

#ifdef WITH_PCAP
static uint32_t be16(const uint8_t *p)
{
  return (uint32_t)p[0] << 8 | p[1];
}

/* One direction of a TCP connection. */
typedef struct flow {
  int family;          /* 4 or 6 */
  uint8_t src[16], dst[16];
  uint32_t sport, dport;
} flow;

static size_t flow_key(const flow *f, uint8_t *key)
{
  size_t a = f->family == 4 ? 4 : 16;
  key[0] = (uint8_t)f->family;
  memcpy(key + 1, f->src, a);
  memcpy(key + 1 + a, f->dst, a);
  uint8_t *p = key + 1 + 2 * a;
  p[0] = (uint8_t)(f->sport >> 8);
  p[1] = (uint8_t)f->sport;
  p[2] = (uint8_t)(f->dport >> 8);
  p[3] = (uint8_t)f->dport;
  return 1 + 2 * a + 4;
}

static void flow_label(const flow *f, char *buf, size_t cap)
{
  char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
  int af = f->family == 4 ? AF_INET : AF_INET6;
  inet_ntop(af, f->src, s, sizeof s);
  inet_ntop(af, f->dst, d, sizeof d);
  if (f->family == 4)
    snprintf(buf, cap, "%s:%u -> %s:%u", s, f->sport, d, f->dport);
  else
    snprintf(buf, cap, "[%s]:%u -> [%s]:%u", s, f->sport, d, f->dport);
}

#define TCP_SYN 0x02

/* S stays in the list (for the summary) but is no longer found by its key. */
static void stream_unhash(capture *c, stream *s)
{
  stream **pp = &c->bucket[key_bucket(s->key, s->keylen)];
  while (*pp != s)
    pp = &(*pp)->hnext;
  *pp = s->hnext;
}


/* Hold the N octets at P, stream offset OFF, until the octets before them are in. */
static int hold_segment(capture *c, stream *s, uint64_t off, const uint8_t *p, size_t n)
{
  if (n > MAX_OUT_OF_ORDER - c->ooo_bytes) /* too much is missing */
    return s->ooo ? stream_gap(s, s->ooo->off, s->ooo->frame) : stream_gap(s, off, c->frames);
  seg *g = malloc(sizeof *g + n);
  if (!g)
    return out_of_memory();
  g->off = off;
  g->len = n;
  g->frame = c->frames;
  memcpy(g->b, p, n);
  seg **pp = &s->ooo;
  while (*pp && (*pp)->off <= off)
    pp = &(*pp)->next;
  g->next = *pp;
  *pp = g;
  c->ooo_bytes += n;
  return 0;
}

/* The segments held for S that are now in order. */
static int release_segments(capture *c, stream *s)
{
  while (s->ooo && s->ooo->off <= s->total) {
    seg *g = s->ooo;
    s->ooo = g->next;
    c->ooo_bytes -= g->len;
    int st = 0;
    if (g->off + g->len > s->total) {
      size_t skip = (size_t)(s->total - g->off);
      st = stream_push(s, g->b + skip, g->len - skip);
    }
    free(g);
    if (st)
      return st;
  }
  return 0;
}

/* A TCP segment of flow F: sequence number SEQ, FLAGS, N payload octets at P;
 * CUT when the capture holds only part of its payload. */
static int tcp_segment(capture *c, const flow *f, uint32_t seq, unsigned flags, const uint8_t *p,
                       size_t n, bool cut)
{
  uint8_t key[40];
  size_t kn = flow_key(f, key);
  stream *s = stream_find(c, key, kn);
  if (s && (flags & TCP_SYN) && s->have_seq && seq + 1 != s->seq0 && (s->total || s->ooo)) {
    /* a new connection with the same addresses and ports */
    int st = stream_end(s);
    if (st)
      return st;
    stream_unhash(c, s);
    s = NULL;
  }
  if (!s) {
    char label[112];
    flow_label(f, label, sizeof label);
    if (!(s = stream_add(c, key, kn, label)))
      return out_of_memory();
  }
  if (flags & TCP_SYN) {
    if (!s->have_seq) {
      s->have_seq = true;
      s->seq0 = seq + 1;
    }
    seq++;
  }
  if (n == 0 || s->kind == KIND_OTHER)
    return 0;
  if (!s->have_seq) { /* the capture began after the handshake */
    s->have_seq = true;
    s->seq0 = seq;
  }
  int64_t off = (int64_t)s->total + (int32_t)(seq - (uint32_t)(s->seq0 + s->total));
  if (off + (int64_t)n <= (int64_t)s->total)
    return 0; /* a retransmission of octets in already */
  if (cut) {
    where = s->label;
    return malformed(off < 0 ? 0 : (size_t)off, "frame %zu holds only part of its TCP payload "
                     "(cut by the capture's snapshot length): capture with a larger one",
                     c->frames);
  }
  if ((uint64_t)off > s->total)
    return hold_segment(c, s, (uint64_t)off, p, n);
  size_t skip = (size_t)(s->total - (uint64_t)off); /* overlaps octets in already */
  int st = stream_push(s, p + skip, n - skip);
  return st ? st : release_segments(c, s);
}

static bool link_type_read(int dlt)
{
  switch (dlt) {
  case DLT_EN10MB:
  case DLT_LINUX_SLL:
  case DLT_LINUX_SLL2:
  case DLT_NULL:
  case DLT_LOOP:
  case DLT_RAW:
  case DLT_IPV4:
  case DLT_IPV6:
    return true;
  default:
    return false;
  }
}

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd

/* The ethertype of the packet after the link-layer header of type DLT (N
 * octets at P), and in *HL that header's length; 0 when it is no IP packet,
 * 1 when the IP version octet tells. */
static uint32_t link_payload(int dlt, const uint8_t *p, size_t n, size_t *hl)
{
  uint32_t t;
  switch (dlt) {
  case DLT_EN10MB:
    if (n < 14)
      return 0;
    t = be16(p + 12);
    *hl = 14;
    while ((t == 0x8100 || t == 0x88a8 || t == 0x9100) && n >= *hl + 4) { /* VLAN tags */
      t = be16(p + *hl + 2);
      *hl += 4;
    }
    return t;
  case DLT_LINUX_SLL:
    *hl = 16;
    return n < 16 ? 0 : be16(p + 14);
  case DLT_LINUX_SLL2:
    *hl = 20;
    return n < 20 ? 0 : be16(p);
  case DLT_NULL:
  case DLT_LOOP: {
    if (n < 4)
      return 0;
    /* the address family: network order for DLT_LOOP, the writer's for DLT_NULL */
    uint32_t be = rd32(p, 0), le = rd32(p, 1);
    uint32_t af = dlt == DLT_LOOP || le > 0xffff ? be : le;
    *hl = 4;
    return af == 2 ? ETHERTYPE_IPV4 : af == 24 || af == 28 || af == 30 ? ETHERTYPE_IPV6 : 0;
  }
  default:
    *hl = 0;
    return 1;
  }
}

/* One frame of a capture with link type DLT. */
static int capture_frame(capture *c, int dlt, const struct pcap_pkthdr *h, const uint8_t *p)
{
  size_t n = h->caplen, hl = 0;
  uint32_t et = link_payload(dlt, p, n, &hl);
  if (et == 0 || hl > n)
    return 0;
  p += hl;
  n -= hl;
  if (et == 1 && n > 0)
    et = p[0] >> 4 == 4 ? ETHERTYPE_IPV4 : p[0] >> 4 == 6 ? ETHERTYPE_IPV6 : 0;
  flow f;
  size_t ip_hl, ip_len;
  bool cut = false;
  unsigned proto;
  if (et == ETHERTYPE_IPV4) {
    if (n < 20 || p[0] >> 4 != 4)
      return 0;
    ip_hl = (p[0] & 15) * 4u;
    ip_len = be16(p + 2);
    if (ip_hl < 20 || ip_len < ip_hl || p[9] != 6)
      return 0;
    if (be16(p + 6) & 0x3fff) { /* more fragments, or a fragment offset */
      c->ip_fragments++;
      return 0;
    }
    f.family = 4;
    memcpy(f.src, p + 12, 4);
    memcpy(f.dst, p + 16, 4);
    proto = 6;
  } else if (et == ETHERTYPE_IPV6) {
    if (n < 40 || p[0] >> 4 != 6)
      return 0;
    ip_len = 40 + be16(p + 4);
    proto = p[6];
    ip_hl = 40;
    /* extension headers: hop-by-hop, routing, destination options, authentication */
    while ((proto == 0 || proto == 43 || proto == 60 || proto == 51) && ip_hl + 8 <= n) {
      size_t el = proto == 51 ? (p[ip_hl + 1] + 2u) * 4 : (p[ip_hl + 1] + 1u) * 8;
      proto = p[ip_hl];
      ip_hl += el;
    }
    if (proto == 44) {
      c->ip_fragments++;
      return 0;
    }
    if (proto != 6 || ip_hl > ip_len)
      return 0;
    f.family = 6;
    memcpy(f.src, p + 8, 16);
    memcpy(f.dst, p + 24, 16);
  } else {
    return 0;
  }
  if (ip_len > n) { /* cut by the snapshot length */
    cut = true;
    ip_len = n;
  }
  /* ip_len, not n: an Ethernet frame may carry padding after the packet */
  const uint8_t *t = p + ip_hl;
  size_t tn = ip_len > ip_hl ? ip_len - ip_hl : 0;
  if (tn < 20)
    return 0;
  size_t doff = (t[12] >> 4) * 4u;
  if (doff < 20 || doff > tn)
    return 0;
  f.sport = be16(t);
  f.dport = be16(t + 2);
  return tcp_segment(c, &f, rd32(t + 4, 0), t[13], t + doff, tn - doff, cut);
}

/* Decode the TCP streams of the capture PC (of NAME). */
static int dump_pcap(pcap_t *pc, const char *name)
{
  int dlt = pcap_datalink(pc);
  if (!link_type_read(dlt)) {
    const char *dn = pcap_datalink_val_to_name(dlt);
    fprintf(stderr, "%s: %s: link type %s (%d) is not read (Ethernet, Linux cooked SLL and "
            "SLL2, BSD loopback and raw IP are)\n", prog, name, dn ? dn : "unknown", dlt);
    return EXIT_USAGE;
  }
  capture *c = capture_new();
  if (!c)
    return out_of_memory();
  struct pcap_pkthdr *h;
  const u_char *data;
  int r, st = 0;
  while (st == 0 && (r = pcap_next_ex(pc, &h, &data)) == 1) {
    c->frames++;
    st = capture_frame(c, dlt, h, data);
  }
  if (st == 0 && r == PCAP_ERROR) {
    fflush(stdout);
    fprintf(stderr, "%s: %s: frame %zu, file offset %ld: %s\n", prog, name, c->frames + 1,
            ftell(pcap_file(pc)), pcap_geterr(pc));
    st = EXIT_MALFORMED;
  }
  if (st == 0)
    st = capture_end(c);
  capture_free(c);
  return st;
}

/* Open the capture F (rewound; pcap_close closes it) or, when F is NULL, the
 * capture IN in memory; then decode it. */
static int dump_capture(FILE *f, const input *in, const char *name)
{
  char err[PCAP_ERRBUF_SIZE] = "";
  if (!f && !(f = fmemopen(in->b, in->n, "rb"))) {
    fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
    return EXIT_USAGE;
  }
  pcap_t *pc = pcap_fopen_offline(f, err);
  if (!pc) {
    fclose(f);
    fprintf(stderr, "%s: %s: file offset 0: %s\n", prog, name, err);
    return EXIT_MALFORMED;
  }
  int st = dump_pcap(pc, name);
  pcap_close(pc);
  return st;
}
#endif

/* Exit status ST, or 2 when the output could not be written. */
static int flushed(int st)
{
  if (fflush(stdout) != 0 && st == 0) {
    fprintf(stderr, "%s: writing output: %s\n", prog, strerror(errno));
    return EXIT_USAGE;
  }
  return st;
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
  const char *shown_name = strcmp(name, "-") ? name : "standard input";
  uint8_t head[4];
  size_t nhead = fread(head, 1, sizeof head, f);
  const char *format = nhead == sizeof head ? capture_format(head) : NULL;
  int st;
  if (format) {
#ifdef WITH_PCAP
    if (fseek(f, 0, SEEK_SET) == 0) /* libpcap reads the file itself */
      return flushed(dump_capture(f, NULL, shown_name));
#else
    fprintf(stderr, "%s: %s: a %s capture file, and this giop-dump was built without libpcap: "
            PCAP_HOWTO "\n", prog, shown_name, format);
    if (f != stdin)
      fclose(f);
    return EXIT_USAGE;
#endif
  }
  input in;
  st = read_all(f, shown_name, head, nhead, &in);
  if (f != stdin)
    fclose(f);
  if (st)
    return st;
  if (format) {
#ifdef WITH_PCAP
    st = dump_capture(NULL, &in, shown_name); /* from a pipe */
#endif
  } else if (is_hex_capture(&in)) {
    st = dump_hex_capture(&in);
  } else if (hex && (st = unhex(&in)) != 0) {
    free(in.b);
    return st;
  } else {
    st = dump_input(&in);
  }
  free(in.b);
  return flushed(st);
}
