/* tests/fuzz/make-seeds.c - writes the seed corpora of the fuzz targets.
 *
 *   make-seeds CORPUS_DIR [CAPTURE.hex]...
 *
 * Seeds come from the library's own encoders (GIOP messages of every type
 * and version in both byte orders with service contexts and every target
 * address, fragmented messages, IORs and their components, strings and
 * wstrings in every code set) and from the interop captures
 * (the .hex files of tests/interop/captures: the messages, the streams of each
 * direction, and the value-graph bodies).  Each file is
 * CORPUS_DIR/<target>/seed-<what> or cap-<capture>-<n>, in the input
 * format of its target (the configuration octets first; see each
 * fuzz_*.c).  `make fuzz-seeds` runs it over the tree's corpus.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cdr/cdr.h>
#include <iiop/giop.h>
#include <iiop/msg.h>
#include <iiop/frag.h>
#include <iiop/ior.h>

static const char *corpus;

static void die(const char *what)
{
  fprintf(stderr, "make-seeds: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Write PRE (NPRE octets: the target's configuration) then DATA as
 * CORPUS/TARGET/NAME. */
static void put_seed(const char *target, const char *name, const void *pre, size_t npre,
                     const void *data, size_t n)
{
  char *dir, *path;
  if (asprintf(&dir, "%s/%s", corpus, target) < 0 || asprintf(&path, "%s/%s", dir, name) < 0)
    die("asprintf");
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    die(dir);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(pre, 1, npre, f) != npre || fwrite(data, 1, n, f) != n || fclose(f) != 0)
    die(path);
  free(dir);
  free(path);
}

static void out_init(cdr_out *o, int order, int minor)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)order;
  op.giop_minor = (uint8_t)minor;
  if (cdr_out_init(o, &op) != CDR_OK)
    die("cdr_out_init");
}

/* ---------------------------------------------------------------- GIOP */

static const uint8_t key[] = { 'E', 'c', 'h', 'o' };

static giop_sc_list contexts(uint8_t cs[12], giop_service_context sc[2])
{
  giop_codeset_context c = { CDR_CS_ISO8859_1, CDR_CS_UTF16 };
  giop_codeset_context_encode(&c, cs);
  static const uint8_t other[] = { 1, 0, 0, 0, 0x2a, 0, 0, 0 };
  sc[0] = (giop_service_context){ GIOP_SC_CODE_SETS, 12, cs };
  sc[1] = (giop_service_context){ 0x41545402u, sizeof other, other };
  return (giop_sc_list){ 2, sc };
}

static void target_for(giop_target *t, int disp, const uint8_t *ior, uint32_t ior_len)
{
  static const uint8_t profile[] = { 0, 1, 2, 0, 0, 0, 0, 4, 'h', 'o', 's', 0, 0x0b, 0xb8 };
  memset(t, 0, sizeof *t);
  t->disposition = (uint16_t)disp;
  t->key = key;
  t->key_len = sizeof key;
  t->profile_tag = IIOP_TAG_INTERNET_IOP;
  t->profile = profile;
  t->profile_len = sizeof profile;
  t->profile_index = 0;
  t->ior = ior;
  t->ior_len = ior_len;
}

/* Every message type, version and byte order; one seed each, also fed to
 * the reassembler as a stream, and fragmented where it may be. */
static void giop_seeds(const uint8_t *ior, uint32_t ior_len)
{
  static const uint8_t cfg0 = 0, frag_cfg[3] = { 7, 0, 0 };
  uint8_t cs[12];
  giop_service_context sc[2];
  cdr_out stream;
  out_init(&stream, 0, 2);
  for (int minor = 0; minor <= 2; minor++)
    for (int order = 0; order <= 1; order++)
      for (int type = 0; type <= GIOP_MESSAGE_ERROR; type++)
        for (int disp = 0; disp <= (minor == 2 && (type == 0 || type == 3) ? 2 : 0); disp++) {
          cdr_out o;
          out_init(&o, order, minor);
          int body = 0;
          switch (type) {
          case GIOP_REQUEST: {
            giop_request_header h = { .request_id = 4, .response_flags = GIOP_RESPONSE_EXPECTED,
                                      .operation = "echoString", .operation_len = 10 };
            target_for(&h.target, disp, ior, ior_len);
            h.contexts = contexts(cs, sc);
            giop_begin_request(&o, &h);
            giop_begin_body(&o);
            cdr_put_string(&o, "hello");
            body = 1;
            break;
          }
          case GIOP_REPLY: {
            giop_reply_header h = { .request_id = 4, .reply_status = GIOP_SYSTEM_EXCEPTION };
            h.contexts = contexts(cs, sc);
            giop_begin_reply(&o, &h);
            giop_begin_body(&o);
            giop_system_exception e = { "IDL:omg.org/CORBA/MARSHAL:1.0", GIOP_OMGVMCID | 4,
                                        GIOP_COMPLETED_NO };
            giop_put_system_exception(&o, &e);
            body = 1;
            break;
          }
          case GIOP_CANCEL_REQUEST: giop_begin_cancel_request(&o, 4); break;
          case GIOP_LOCATE_REQUEST: {
            giop_locate_request_header h = { .request_id = 2 };
            target_for(&h.target, disp, ior, ior_len);
            giop_begin_locate_request(&o, &h);
            break;
          }
          case GIOP_LOCATE_REPLY: {
            giop_locate_reply_header h = { 2, GIOP_OBJECT_FORWARD };
            giop_begin_locate_reply(&o, &h);
            cdr_put_raw(&o, ior, ior_len); /* a forward IOR (its CDR octets) */
            break;
          }
          case GIOP_CLOSE_CONNECTION: giop_begin_close_connection(&o); break;
          default: giop_begin_message_error(&o); break;
          }
          (void)body;
          if (giop_end(&o) != CDR_OK)
            die("giop encoding");
          char name[64];
          snprintf(name, sizeof name, "seed-1%d-%s-%s-%d", minor, order ? "le" : "be",
                   giop_msg_type_name(type), disp);
          put_seed("giop", name, &cfg0, 1, cdr_out_data(&o), cdr_out_size(&o));
          cdr_put_raw(&stream, cdr_out_data(&o), cdr_out_size(&o));
          if (minor >= 1 && (type == GIOP_REQUEST || type == GIOP_REPLY)) {
            /* Fragmented at 64 octets: the fragments as one stream. */
            giop_fragmenter f;
            if (giop_fragmenter_init(&f, cdr_out_data(&o), cdr_out_size(&o), 64, 4) != CDR_OK)
              die("giop_fragmenter_init");
            cdr_out fs;
            out_init(&fs, 0, 2);
            struct iovec iov[2];
            int n;
            while (giop_fragmenter_next(&f, iov, &n))
              for (int k = 0; k < n; k++)
                cdr_put_raw(&fs, iov[k].iov_base, iov[k].iov_len);
            snprintf(name, sizeof name, "seed-frag-1%d-%s-%s-%d", minor, order ? "le" : "be",
                     giop_msg_type_name(type), disp);
            put_seed("frag", name, frag_cfg, 3, cdr_out_data(&fs), cdr_out_size(&fs));
            cdr_out_close(&fs);
          }
          cdr_out_close(&o);
        }
  put_seed("frag", "seed-all-messages", frag_cfg, 3, cdr_out_data(&stream), cdr_out_size(&stream));
  cdr_out_close(&stream);
}

/* ---------------------------------------------------------------- IORs */

/* An IOR with code sets, ORB type and SSL components; its CDR octets (for
 * the GIOP seeds) go to *IOR. */
static void ior_seeds(cdr_arena *a, uint8_t **ior_out, uint32_t *ior_len)
{
  iiop_component comps[3];
  static const uint32_t conv_c[] = { CDR_CS_UTF8 }, conv_w[] = { CDR_CS_UTF16 };
  iiop_codeset_info cs = { { CDR_CS_ISO8859_1, 1, conv_c }, { CDR_CS_UTF16, 1, conv_w } };
  if (iiop_codeset_info_encode(&cs, CDR_BIG_ENDIAN, a, &comps[0]) != CDR_OK
      || iiop_orb_type_encode(IIOP_ORB_TYPE_OMNIORB, CDR_LITTLE_ENDIAN, a, &comps[1]) != CDR_OK
      || iiop_ssl_component_encode(0x66, 0x46, 2810, CDR_BIG_ENDIAN, a, &comps[2]) != CDR_OK)
    die("component encoding");
  static const uint8_t mode3[][2] = { { 3, 0 }, { 3, 1 }, { 3, 2 }, { 3, 3 } };
  put_seed("ior", "seed-comp-orbtype", mode3[0], 2, comps[1].data, comps[1].len);
  put_seed("ior", "seed-comp-codesets", mode3[1], 2, comps[0].data, comps[0].len);
  put_seed("ior", "seed-comp-ssl", mode3[3], 2, comps[2].data, comps[2].len);
  static const uint8_t alt[] = { 0, 0, 0, 0, 0, 0, 0, 10, 'l', 'o', 'c', 'a', 'l', 'h', 'o',
                                 's', 't', 0, 0x0b, 0xb8 };
  put_seed("ior", "seed-comp-alternate", mode3[2], 2, alt, sizeof alt);

  static const char *const hosts[] = { "127.0.0.1", "[fe80::1]", "example.org" };
  for (int v = 0; v <= 2; v++)
    for (int order = 0; order <= 1; order++) {
      iiop_ior ior;
      if (iiop_ior_make(a, "IDL:Bench/Echo:1.0", 1, (uint8_t)v, hosts[v], 2809, key, sizeof key,
                        v ? comps : NULL, v ? 3 : 0, &ior) != CDR_OK)
        die("iiop_ior_make");
      char *s;
      if (iiop_ior_to_string(&ior, order, a, &s) != CDR_OK)
        die("iiop_ior_to_string");
      char name[64];
      static const uint8_t m0 = 0, m1 = 1;
      snprintf(name, sizeof name, "seed-string-1%d-%s", v, order ? "le" : "be");
      put_seed("ior", name, &m1, 1, s, strlen(s));
      /* The encapsulation itself: the string's hex digits as octets. */
      size_t n = (strlen(s) - 4) / 2;
      uint8_t *b = cdr_arena_alloc(a, n, 8);
      for (size_t k = 0; k < n; k++)
        sscanf(s + 4 + 2 * k, "%2hhx", &b[k]);
      snprintf(name, sizeof name, "seed-octets-1%d-%s", v, order ? "le" : "be");
      put_seed("ior", name, &m0, 1, b, n);
      if (v == 2 && order == 0) {
        /* The IOR's CDR octets after the byte-order octet and padding. */
        *ior_out = b + 4;
        *ior_len = (uint32_t)(n - 4);
      }
    }
  static const char *const urls[] = {
    "corbaloc::127.0.0.1:2809/Echo",
    "corbaloc:iiop:1.2@host.example.org:1234,:[fe80::1%25eth0]:99/a%2fb%00c",
    "corbaloc:IIOP:1.0@[::1]/",
    "corbaloc:rir:/NameService",
  };
  static const uint8_t m2 = 2;
  for (size_t k = 0; k < sizeof urls / sizeof urls[0]; k++) {
    char name[32];
    snprintf(name, sizeof name, "seed-corbaloc-%zu", k);
    put_seed("ior", name, &m2, 1, urls[k], strlen(urls[k]));
  }
}

/* ---------------------------------------------------------------- code sets */

static void codeset_seeds(void)
{
  static const char utf8[] = "a \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xc3\xbf";
  static const uint8_t m[] = { 0, 1, 5, 2 };
  put_seed("codeset", "seed-utf8", &m[0], 1, utf8, sizeof utf8 - 1);
  static const cdr_wchar cps[] = { 'a', 0xE9, 0x4E2D, 0x1F600, 0xFEFF, 0xFFFE, 0x10FFFF };
  put_seed("codeset", "seed-code-points", &m[3], 1, cps, sizeof cps);
  for (int little = 0; little < 2; little++) {
    uint8_t b[64];
    size_t len;
    b[0] = little ? 0xFF : 0xFE;
    b[1] = little ? 0xFE : 0xFF;
    if (cdr_utf16_encode(cps, 7, little, b + 2, sizeof b - 2, &len) != CDR_OK)
      die("utf16");
    put_seed("codeset", little ? "seed-utf16-le" : "seed-utf16-be", &m[1 + little], 1, b, len + 2);
  }
  /* Streams: string (char code set pairings), wstring and wchar in GIOP
   * 1.1 and 1.2, both byte orders. */
  for (int minor = 1; minor <= 2; minor++)
    for (int order = 0; order <= 1; order++)
      for (int op = 0; op < 3; op++) {
        cdr_out o;
        out_init(&o, order, minor);
        if (op == 0)
          cdr_put_string(&o, "Gr\xfc\xdf" "e");
        else if (op == 1)
          cdr_put_wstring(&o, cps, 4);
        else
          cdr_put_wchar(&o, 0x4E2D);
        uint8_t pre[3] = { 3, (uint8_t)(order | minor << 1), (uint8_t)op };
        char name[48];
        snprintf(name, sizeof name, "seed-stream-1%d-%s-%d", minor, order ? "le" : "be", op);
        put_seed("codeset", name, pre, 3, cdr_out_data(&o), cdr_out_size(&o));
        cdr_out_close(&o);
      }
}

/* ---------------------------------------------------------------- CDR streams */

/* fuzz_cdr's operation numbers (its enum). */
enum { OP_OCTET, OP_BOOL, OP_CHAR, OP_SHORT, OP_USHORT, OP_LONG, OP_ULONG, OP_LLONG, OP_ULLONG,
       OP_FLOAT, OP_DOUBLE, OP_LDOUBLE, OP_WCHAR, OP_FIXED, OP_STRING, OP_STRING_VIEW,
       OP_WSTRING, OP_OCTETS_VIEW, OP_SEQ_LONG, OP_SEQ_DOUBLE, OP_ARRAY_SHORT, OP_ARRAY_BOOL,
       OP_RAW, OP_BEGIN_ENCAP, OP_END_ENCAP, OP_ALIGN, OP_SEQ_COUNT, NOPS };

static void cdr_seeds(void)
{
  for (int order = 0; order <= 1; order++) {
    /* Descriptor 0 (Prims): every primitive, then a string and a wstring. */
    cdr_out o;
    out_init(&o, order, 2);
    cdr_put_octet(&o, 7);
    cdr_put_boolean(&o, 1);
    cdr_put_char(&o, 'x');
    cdr_put_wchar(&o, 0xE9);
    cdr_put_short(&o, -2);
    cdr_put_ushort(&o, 3);
    cdr_put_long(&o, -4);
    cdr_put_ulong(&o, 5);
    cdr_put_longlong(&o, -6);
    cdr_put_ulonglong(&o, 7);
    cdr_put_float(&o, 1.5f);
    cdr_put_double(&o, -2.25);
    cdr_put_longdouble(&o, 3.0L);
    cdr_put_string(&o, "abc");
    static const cdr_wchar w[] = { 'w', 0x1F600 };
    cdr_put_wstring(&o, w, 2);
    uint8_t pre[2] = { 0, (uint8_t)(order | 2 << 1) };
    put_seed("cdr", order ? "seed-prims-le" : "seed-prims-be", pre, 2, cdr_out_data(&o),
             cdr_out_size(&o));
    cdr_out_reset(&o);
    /* Descriptor 2 (union U): case 2, a string. */
    cdr_put_long(&o, 2);
    cdr_put_string(&o, "s");
    pre[0] = 2;
    put_seed("cdr", order ? "seed-union-le" : "seed-union-be", pre, 2, cdr_out_data(&o),
             cdr_out_size(&o));
    cdr_out_reset(&o);
    /* Descriptor 5 (sequence<sequence<short>>). */
    static const int16_t sh[] = { 1, -1, 2 };
    cdr_put_ulong(&o, 2);
    cdr_put_seq(&o, sh, 3, 2);
    cdr_put_seq(&o, sh, 1, 2);
    pre[0] = 5;
    put_seed("cdr", order ? "seed-seqseq-le" : "seed-seqseq-be", pre, 2, cdr_out_data(&o),
             cdr_out_size(&o));
    cdr_out_reset(&o);
    /* An operation program: ulong, string, encapsulation { double, wstring },
     * fixed<4,0>, octet sequence. */
    uint8_t prog[2 + 8] = { 0x80 | 7, (uint8_t)(order | 2 << 1), OP_ULONG, OP_STRING,
                            OP_BEGIN_ENCAP, OP_DOUBLE, OP_WSTRING, OP_END_ENCAP,
                            OP_FIXED + NOPS, OP_OCTETS_VIEW };
    cdr_put_ulong(&o, 42);
    cdr_put_string(&o, "op");
    cdr_out_begin_encap_order(&o, !order);
    cdr_put_double(&o, 0.5);
    cdr_put_wstring(&o, w, 2);
    cdr_out_end_encap(&o);
    cdr_fixed fx = { 4, 0, 1, { 1, 2, 3, 4 } };
    cdr_put_fixed(&o, &fx);
    static const uint8_t oc[] = { 1, 2, 3 };
    cdr_put_seq(&o, oc, 3, 1);
    put_seed("cdr", order ? "seed-ops-le" : "seed-ops-be", prog, sizeof prog, cdr_out_data(&o),
             cdr_out_size(&o));
    cdr_out_close(&o);
  }
}

/* ---------------------------------------------------------------- captures */

/* The messages of a capture file (its "# conn" lines start each one, the
 * hex lines follow), as seeds for every target that reads them. */
static void capture_seeds(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    die(path);
  char *base = strdup(path), *name = basename(base), *dot = strrchr(name, '.');
  if (dot)
    *dot = 0;
  uint8_t *msg = NULL;
  size_t n = 0, cap = 0;
  int nmsg = 0;
  cdr_out streams[2];
  out_init(&streams[0], 0, 2);
  out_init(&streams[1], 0, 2);
  int dir = 0;
  char line[512];
  for (int more = 1; more;) {
    more = fgets(line, sizeof line, f) != NULL;
    if (!more || strncmp(line, "# conn", 6) == 0) {
      if (n > 0) {
        static const uint8_t cfg0 = 0;
        char sname[128];
        snprintf(sname, sizeof sname, "cap-%s-%d", name, nmsg);
        put_seed("giop", sname, &cfg0, 1, msg, n);
        cdr_put_raw(&streams[dir], msg, n);
        /* The body of a Request or Reply: a value-graph seed (declared
         * Node; Pair for echoPair). */
        giop_message m;
        cdr_arena a;
        cdr_arena_init(&a, NULL);
        if (giop_parse(&m, msg, n, NULL, &a) == CDR_OK
            && (m.hdr.type == GIOP_REQUEST || m.hdr.type == GIOP_REPLY)
            && cdr_in_remaining(&m.body) > 0 && strstr(name, "Graph")) {
          uint8_t pre[2] = { 0, (uint8_t)((m.hdr.flags & 1) | m.hdr.minor << 1) };
          put_seed("value_reader", sname, pre, 2, m.body.buf + cdr_in_pos(&m.body),
                   cdr_in_remaining(&m.body));
        } else if (m.hdr.type == GIOP_REQUEST || m.hdr.type == GIOP_REPLY) {
          if (cdr_in_remaining(&m.body) > 0 && strstr(name, "Pair")) {
            uint8_t pre[2] = { 1, (uint8_t)((m.hdr.flags & 1) | m.hdr.minor << 1) };
            put_seed("value_reader", sname, pre, 2, m.body.buf + cdr_in_pos(&m.body),
                     cdr_in_remaining(&m.body));
          }
        }
        cdr_in_close(&m.body);
        cdr_arena_free(&a);
        nmsg++;
        n = 0;
      }
      if (more)
        dir = strstr(line, " s2c ") != NULL;
      continue;
    }
    if (line[0] == '#')
      continue;
    char *p = line, *end;
    strtoul(p, &end, 16); /* the offset */
    for (p = end;;) {
      unsigned long v = strtoul(p, &end, 16);
      if (end == p)
        break;
      if (n == cap && !(msg = realloc(msg, cap = cap ? 2 * cap : 256)))
        die("realloc");
      msg[n++] = (uint8_t)v;
      p = end;
    }
  }
  fclose(f);
  static const uint8_t frag_cfg[3] = { 3, 0, 5 };
  for (int d = 0; d < 2; d++) {
    char sname[128];
    snprintf(sname, sizeof sname, "cap-%s-%s", name, d ? "s2c" : "c2s");
    if (cdr_out_size(&streams[d]) > 0)
      put_seed("frag", sname, frag_cfg, 3, cdr_out_data(&streams[d]), cdr_out_size(&streams[d]));
    cdr_out_close(&streams[d]);
  }
  free(msg);
  free(base);
}

/* ---------------------------------------------------------------- TypeCodes */

typedef struct TNode {
  int32_t v;
  cdr_seq kids;
} TNode;
static const cdr_type tnode_t;
static const cdr_type tnode_kids_t = CDR_SEQUENCE_TYPE(&tnode_t, 0);
static const cdr_member tnode_m[] = { CDR_MEMBER(TNode, v, &cdr_type_long),
                                      CDR_MEMBER(TNode, kids, &tnode_kids_t) };
static const cdr_type tnode_t = CDR_STRUCT_TYPE(TNode, "Node", "IDL:T/Node:1.0", tnode_m);
typedef struct TPair {
  TNode a, b;
} TPair;
static const cdr_member tpair_m[] = { CDR_MEMBER(TPair, a, &tnode_t), CDR_MEMBER(TPair, b, &tnode_t) };
static const cdr_type tpair_t = CDR_STRUCT_TYPE(TPair, "Pair", "IDL:T/Pair:1.0", tpair_m);
typedef struct TU {
  int32_t _d;
  union {
    int32_t a;
    char *b;
  } _u;
} TU;
static const cdr_union_case tu_c[] = { { 1, "a", &cdr_type_long, offsetof(TU, _u.a) },
                                       { 0, "b", &cdr_type_string, offsetof(TU, _u.b) } };
static const char *const tcolor_n[] = { "R", "G" };
static const cdr_type tcolor_t = { .kind = CDR_K_ENUM, .size = 4, .align = 4, .name = "Color",
                                   .repo_id = "IDL:T/Color:1.0", .u.en = { 2, tcolor_n } };
static const cdr_type tu_t = { .kind = CDR_K_UNION, .size = sizeof(TU), .align = _Alignof(TU),
                               .name = "U", .repo_id = "IDL:T/U:1.0",
                               .u.un = { &cdr_type_long, offsetof(TU, _d), tu_c, 2, 1 } };
typedef struct TAll {
  TU u;
  uint32_t color;
  int32_t arr[2][3];
  cdr_fixed fx;
  char *bs;
  cdr_seq bseq;
  cdr_typecode tc;
  cdr_seq principal;
  int32_t l;
} TAll;
static const cdr_type tarr3_t = { .kind = CDR_K_ARRAY, .size = 12, .align = 4,
                                  .u.arr = { &cdr_type_long, 3 } };
static const cdr_type tarr_t = { .kind = CDR_K_ARRAY, .size = 24, .align = 4,
                                 .u.arr = { &tarr3_t, 2 } };
static const cdr_type tfx_t = { .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed),
                                .align = _Alignof(cdr_fixed), .u.fx = { 5, 2 } };
static const cdr_type tbs_t = { .kind = CDR_K_STRING, .size = sizeof(char *),
                                .align = _Alignof(char *), .u.str.bound = 8 };
static const cdr_type tbseq_t = CDR_SEQUENCE_TYPE(&cdr_type_octet, 4);
static const cdr_type tlong_alias_t = { .kind = CDR_K_ALIAS, .size = 4, .align = 4, .name = "L",
                                        .repo_id = "IDL:T/L:1.0", .u.alias.type = &cdr_type_long };
static const cdr_member tall_m[] = {
  CDR_MEMBER(TAll, u, &tu_t), CDR_MEMBER(TAll, color, &tcolor_t), CDR_MEMBER(TAll, arr, &tarr_t),
  CDR_MEMBER(TAll, fx, &tfx_t), CDR_MEMBER(TAll, bs, &tbs_t), CDR_MEMBER(TAll, bseq, &tbseq_t),
  CDR_MEMBER(TAll, tc, &cdr_type_typecode), CDR_MEMBER(TAll, principal, &cdr_type_principal),
  CDR_MEMBER(TAll, l, &tlong_alias_t),
};
static const cdr_type tall_t = CDR_STRUCT_TYPE(TAll, "All", "IDL:T/All:1.0", tall_m);
typedef struct TOops {
  int32_t code;
} TOops;
static const cdr_member toops_m[] = { CDR_MEMBER(TOops, code, &cdr_type_long) };
static const cdr_type toops_t = { .kind = CDR_K_EXCEPT, .size = 4, .align = 4, .name = "Oops",
                                  .repo_id = "IDL:T/Oops:1.0", .u.st = { toops_m, 1 } };
typedef struct TVal {
  cdr_value hdr;
  int32_t a;
  struct TVal *next;
} TVal;
static cdr_value_type tval_vt;
static const cdr_type tval_ref_t = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                     .align = _Alignof(void *), .u.val.vt = &tval_vt };
static const cdr_member tval_m[] = { CDR_MEMBER(TVal, a, &cdr_type_long),
                                     CDR_MEMBER(TVal, next, &tval_ref_t) };
static cdr_value_type tval_vt = { .name = "Val", .repo_id = "IDL:T/Val:1.0", .members = tval_m,
                                  .nmembers = 2, .size = sizeof(TVal), .align = _Alignof(TVal) };
typedef struct TBox {
  cdr_value hdr;
  char *value;
} TBox;
static const cdr_member tbox_m[] = { CDR_MEMBER(TBox, value, &cdr_type_string) };
static cdr_value_type tbox_vt = { .name = "Box", .repo_id = "IDL:T/Box:1.0", .flags = CDR_VT_BOX,
                                  .members = tbox_m, .nmembers = 1, .size = sizeof(TBox),
                                  .align = _Alignof(TBox) };
static const cdr_type tbox_ref_t = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                     .align = _Alignof(void *), .u.val.vt = &tbox_vt };

/* fuzz_typecode: configuration octet (bit 0 byte order, bit 1 a value
 * follows), a TypeCode, then a value of its type for some. */
static void typecode_seeds(void)
{
  static const struct { const char *name; const cdr_type *t; } tcs[] = {
    { "node", &tnode_t }, { "pair", &tpair_t }, { "all", &tall_t }, { "except", &toops_t },
    { "value", &tval_ref_t }, { "box", &tbox_ref_t }, { "object", &cdr_type_object },
  };
  for (int order = 0; order <= 1; order++)
    for (size_t k = 0; k < sizeof tcs / sizeof tcs[0]; k++) {
      cdr_out o;
      out_init(&o, order, 2);
      if (cdr_put_typecode(&o, tcs[k].t) != CDR_OK)
        die("cdr_put_typecode");
      uint8_t pre = (uint8_t)order;
      if (tcs[k].t == &tall_t) { /* with a value */
        static uint8_t prin[2] = { 1, 2 };
        TAll v = { .u = { ._d = 1, ._u.a = 7 }, .color = 1, .arr = { { 1, 2, 3 }, { 4, 5, 6 } },
                   .fx = { .digits = 5, .scale = 2, .d = { 1, 2, 3, 4, 5 } }, .bs = "short",
                   .bseq = { 2, 2, prin, 0 }, .tc = &tpair_t, .principal = { 2, 2, prin, 0 },
                   .l = -1 };
        if (cdr_write(&o, &tall_t, &v) != CDR_OK)
          die("cdr_write");
        pre |= 2;
      }
      if (tcs[k].t == &tnode_t) {
        TNode leaf = { .v = 2 };
        TNode root = { .v = 1, .kids = { 1, 1, &leaf, 0 } };
        if (cdr_write(&o, &tnode_t, &root) != CDR_OK)
          die("cdr_write");
        pre |= 2;
      }
      char name[64];
      snprintf(name, sizeof name, "seed-%s-%s", tcs[k].name, order ? "le" : "be");
      put_seed("typecode", name, &pre, 1, cdr_out_data(&o), cdr_out_size(&o));
      cdr_out_close(&o);
    }
}

/* fuzz_any: configuration octet (bit 0 byte order), then an any. */
static void any_seeds(void)
{
  static uint8_t prin[2] = { 1, 2 };
  TAll all = { .u = { ._d = 1, ._u.a = 7 }, .color = 1, .arr = { { 1, 2, 3 }, { 4, 5, 6 } },
               .fx = { .digits = 5, .scale = 2, .d = { 1, 2, 3, 4, 5 } }, .bs = "short",
               .bseq = { 2, 2, prin, 0 }, .tc = &tpair_t, .principal = { 2, 2, prin, 0 },
               .l = -1 };
  TNode leaf = { .v = 2 };
  TNode root = { .v = 1, .kids = { 1, 1, &leaf, 0 } };
  TVal v1 = { .hdr = { &tval_vt }, .a = 1 };
  TVal *pv = &v1;
  uint8_t pd[3] = { 1, 2, 3 };
  cdr_tagged_profile prof = { 0, { 3, 3, pd, 0 } };
  cdr_ior ior = { "IDL:T/I:1.0", { 1, 1, &prof, 0 } };
  cdr_ior *pior = &ior;
  cdr_any inner = { &cdr_type_string, &(char *){ "in\"ner" }, 0, NULL };
  cdr_seq anys = { 1, 1, &inner, 0 };
  static const cdr_type anyseq_t = CDR_SEQUENCE_TYPE(&cdr_type_any, 0);
  const struct { const char *name; const cdr_type *t; const void *v; } as[] = {
    { "long", &cdr_type_long, &(int32_t){ -2 } },
    { "double", &cdr_type_double, &(double){ 0.5 } },
    { "all", &tall_t, &all },
    { "node", &tnode_t, &root },
    { "value", &tval_ref_t, &pv },
    { "objref", &cdr_type_object, &pior },
    { "any", &cdr_type_any, &inner },
    { "anyseq", &anyseq_t, &anys },
    { "null", &cdr_type_null, NULL }, { "int-null", &cdr_type_long, &(int32_t){ 0 } },
  };
  for (int order = 0; order <= 1; order++)
    for (size_t k = 0; k < sizeof as / sizeof as[0]; k++) {
      cdr_out o;
      out_init(&o, order, 2);
      cdr_any a = { as[k].t, (void *)as[k].v, 0, NULL };
      if (cdr_put_any(&o, &a) != CDR_OK)
        die("cdr_put_any");
      uint8_t pre = (uint8_t)order;
      char name[64];
      snprintf(name, sizeof name, "seed-%s-%s", as[k].name, order ? "le" : "be");
      put_seed("any", name, &pre, 1, cdr_out_data(&o), cdr_out_size(&o));
      cdr_out_close(&o);
    }
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: make-seeds CORPUS_DIR [CAPTURE.hex]...\n");
    return 2;
  }
  corpus = argv[1];
  if (mkdir(corpus, 0777) != 0 && errno != EEXIST)
    die(corpus);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  uint8_t *ior = NULL;
  uint32_t ior_len = 0;
  ior_seeds(&a, &ior, &ior_len);
  giop_seeds(ior, ior_len);
  codeset_seeds();
  cdr_seeds();
  typecode_seeds();
  any_seeds();
  for (int k = 2; k < argc; k++)
    capture_seeds(argv[k]);
  cdr_arena_free(&a);
  cdr_pool_flush();
  return 0;
}
