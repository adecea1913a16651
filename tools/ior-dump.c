/* ior-dump - print what a stringified IOR or a corbaloc URL holds.
 *
 * The IOR output follows omniORB's catior line for line (type ID, then each
 * profile: IIOP version, host, port, object key, decoded components), so the
 * two can be compared with diff; by default one line per IIOP profile is
 * added with the object key in hex (--catior leaves it out).  Code set names
 * come from cdr_codeset_name() first, so UCS-2 level 1 prints as "UCS-2"
 * where catior says "UCS-2-level-1".  A component the library rejects
 * (malformed ORB type, code sets, SSL or alternate address) makes the whole
 * IOR malformed, as it does for an ORB using it; catior would print
 * "Broken component" and go on.
 *
 * Exit status: 0 printed, 1 malformed input (with a message on stderr),
 * 2 usage error. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cdr/cdr.h>
#include <iiop/ior.h>

#define INPUT_MAX (64u << 20)

static const char *prog = "ior-dump";
static bool opt_hex, opt_omni, opt_catior;

static void usage(FILE *f)
{
  fprintf(f,
          "usage: %s [OPTION]... [IOR-or-URL]\n"
          "Print the contents of a stringified IOR (\"IOR:...\") or a corbaloc URL\n"
          "(\"corbaloc:iiop:1.2@host:port/key\"), read from standard input when no\n"
          "argument is given (surrounding white space is ignored).\n"
          "\n"
          "  -x, --hex      print object keys in hex on the profile line (as catior -x)\n"
          "  -o, --omni     decode omniORB object keys: POA path, BOA or Unknown (catior -o)\n"
          "  -c, --catior   print exactly what catior prints: no extra hex key line\n"
          "  -h, --help     show this help and exit\n"
          "\n"
          "Exit status: 0 printed, 1 malformed input, 2 usage error.\n",
          prog);
}

/* ---------------------------------------------------------------- output helpers */

static void put_char_esc(unsigned c)
{
  if (c >= ' ' && c <= '~')
    putchar((int)c);
  else
    printf("\\x%02x", c);
}

static void print_key_text(const uint8_t *k, uint32_t n)
{
  putchar('"');
  for (uint32_t j = 0; j < n; j++)
    put_char_esc(k[j]);
  puts("\"");
}

static void print_key_hex(const uint8_t *k, uint32_t n)
{
  fputs("0x", stdout);
  for (uint32_t j = 0; j < n; j++)
    printf("%02x", k[j]);
  printf("  (%lu bytes)\n", (unsigned long)n);
}

static void print_key(const uint8_t *k, uint32_t n, bool hex)
{
  if (hex)
    print_key_hex(k, n);
  else
    print_key_text(k, n);
}

/* omniORB object keys: 0xff-separated POA names, an optional transient
 * suffix (0xfe and 8 octets), a NUL, then the object ID; a BOA key is 12
 * octets.  Writes the POA path ("root/child") to BUF. */
static bool omni_poa_path(const uint8_t *k, uint32_t n, char *buf, size_t cap)
{
  size_t w = (size_t)snprintf(buf, cap, "root");
  if (n == 0 || (k[0] != 0xfe && k[0] != 0xff))
    return false;
  uint32_t pos = 0;
  while (pos < n && k[pos] == 0xff) {
    uint32_t start = ++pos;
    while (pos < n && k[pos] && k[pos] != 0xff && k[pos] != 0xfe)
      pos++;
    if (pos == n)
      return false;
    if (w < cap)
      w += (size_t)snprintf(buf + w, cap - w, "/%.*s", (int)(pos - start), (const char *)k + start);
  }
  if (pos == n)
    return false;
  if (k[pos] == 0xfe)
    pos += 9;
  return pos < n && k[pos] == 0;
}

static const char *vendor_name(uint32_t orb_type)
{
  /* OMG vendor tags (http://doc.omg.org/vendor-tags), as catior names them. */
  static const struct {
    uint32_t tag;
    const char *name;
  } v[] = {
    { 0x41545400, "omniORB" }, { 0x48500000, "HP" }, { 0x4e534400, "HP" },
    { 0x49424d00, "IBM" }, { 0x53554e00, "Sun" }, { 0x4f424200, "BEA" }, { 0x42454100, "BEA" },
    { 0x574c5300, "BEA" }, { 0x494c5500, "Xerox" }, { 0x58505300, "PrismTech" },
    { 0x50544300, "PrismTech" }, { 0x49534900, "AdNovum Informatik" },
    { 0x56495300, "Borland" }, { 0x4f495300, "Object Interface Systems" },
    { 0x46420000, "FloorBoard Software" }, { 0x4e4e4e00, "Rogue Wave" },
    { 0x4e550000, "Nihon Unisys" }, { 0x4a424b00, "SilverStream Software" },
    { 0x54414f00, "TAO" }, { 0x4c434200, "2AB" }, { 0x41505800, "Univ. of Erlangen-Nuernberg" },
    { 0x4f425400, "ORBit" }, { 0x47534900, "GemStone Systems" }, { 0x464a0000, "Fujitsu" },
    { 0x4f425f00, "TIBCO" }, { 0x4f414b00, "Camros Corporation" },
    { 0x4f4f4300, "IONA (Orbacus)" }, { 0x49545f00, "IONA (Orbix)" }, { 0x4e454300, "NEC" },
    { 0x424c5500, "Berry Software" }, { 0x56495400, "Vitria" },
    { 0x444f4700, "Exoffice Technologies" }, { 0xcb0e0000, "Chicago Board of Exchange" },
    { 0x4a414300, "JacORB" }, { 0x58545200, "Xtradyne Technologies" },
    { 0x54475800, "Top Graph'X" }, { 0x41646100, "AdaOS Project" }, { 0x4e4f4b00, "Nokia" },
    { 0x45524900, "Ericsson" }, { 0x52415900, "RayORB" }, { 0x53414e00, "Sankhya Technologies" },
    { 0x414e4400, "Androsoft" }, { 0x42424300, "Bionic Buffalo" },
    { 0x522e4300, "Remoting.Corba" }, { 0x504f0000, "PolyORB" }, { 0x54494400, "Telefonica" },
  };
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (v[k].tag == (orb_type & 0xffffff00u))
      return v[k].name;
  return "(unknown)";
}

/* Registry names: cdr_codeset_name() first, then the ones catior knows;
 * with --catior, catior's own spelling of UCS-2 level 1. */
static void print_codeset(uint32_t id)
{
  static const struct {
    uint32_t id;
    const char *name;
  } t[] = {
    { 0x00010002, "ISO-8859-2" }, { 0x00010003, "ISO-8859-3" }, { 0x00010004, "ISO-8859-4" },
    { 0x00010005, "ISO-8859-5" }, { 0x00010006, "ISO-8859-6" }, { 0x00010007, "ISO-8859-7" },
    { 0x00010008, "ISO-8859-8" }, { 0x00010009, "ISO-8859-9" }, { 0x0001000a, "ISO-8859-10" },
    { 0x0001000b, "ISO-8859-11" }, { 0x0001000d, "ISO-8859-13" }, { 0x0001000e, "ISO-8859-14" },
    { 0x0001000f, "ISO-8859-15" }, { 0x00010010, "ISO-8859-16" }, { 0x00010020, "ISO-646" },
    { 0x00010101, "UCS-2-level-2" }, { 0x00010102, "UCS-2-level-3" },
    { 0x100204e2, "windows-1250" }, { 0x100204e3, "windows-1251" },
    { 0x100204e4, "windows-1252" }, { 0x100204e5, "windows-1253" },
    { 0x100204e6, "windows-1254" }, { 0x100204e7, "windows-1255" },
    { 0x100204e8, "windows-1256" }, { 0x100204e9, "windows-1257" },
    { 0x100204ea, "windows-1258" }, { 0x10020025, "IBM-037" }, { 0x100201f8, "IBM-500" },
    { 0x10040366, "SNI-EDF-4" }, { 0x10020567, "GBK" },
  };
  const char *n = opt_catior && id == CDR_CS_UCS2 ? "UCS-2-level-1" : cdr_codeset_name(id);
  for (size_t k = 0; !n && k < sizeof t / sizeof t[0]; k++)
    if (t[k].id == id)
      n = t[k].name;
  if (n)
    fputs(n, stdout);
  else
    printf("(0x%08lx)", (unsigned long)id);
}

static void print_codeset_list(const iiop_codeset_component *c)
{
  for (uint32_t k = 0; k < c->nconv; k++) {
    if (k)
      fputs(", ", stdout);
    print_codeset(c->conv[k]);
  }
  putchar('\n');
}

/* ---------------------------------------------------------------- components */

/* Open a component's data as an encapsulation over the arena A. */
static bool comp_in(cdr_in *i, const iiop_component *c, cdr_arena *a)
{
  if (cdr_in_init_encap(i, c->data, c->len, NULL) != CDR_OK)
    return false;
  cdr_in_set_arena(i, a);
  return true;
}

static bool print_policies(const iiop_component *c, cdr_arena *a)
{
  cdr_in i;
  bool ok = comp_in(&i, c, a);
  /* A PolicyValue is at least a ulong type and a ulong length. */
  uint32_t n = ok ? cdr_get_seq_count(&i, 8) : 0;
  bool broken = false;
  for (uint32_t k = 0; ok && !broken && k < n; k++) {
    broken = true; /* until this policy is printed */
    uint32_t type = cdr_get_ulong(&i);
    const uint8_t *v = NULL;
    uint32_t vn = 0;
    if (cdr_get_octets_view(&i, &v, &vn) != CDR_OK)
      break;
    fputs(k == 0 ? "      TAG_POLICIES " : "                   ", stdout);
    cdr_in pe;
    if (type == 64) { /* ZIOP::COMPRESSION_ENABLING_POLICY_ID */
      if (cdr_in_init_encap(&pe, v, vn, NULL) != CDR_OK)
        break;
      bool on = cdr_get_boolean(&pe);
      if (cdr_in_status(&pe) != CDR_OK)
        break;
      printf("ZIOP::COMPRESSION_ENABLING_POLICY_ID: %s\n", on ? "true" : "false");
      broken = false;
    } else if (type == 65) { /* ZIOP::COMPRESSOR_ID_LEVEL_LIST_POLICY_ID */
      static const char *const names[] = { "NONE", "GZIP", "PKZIP", "BZIP2", "ZLIB",
                                           "LZMA", "LZO",  "RZIP",  "7X",    "XAR" };
      if (cdr_in_init_encap(&pe, v, vn, NULL) != CDR_OK)
        break;
      puts("ZIOP::COMPRESSOR_ID_LEVEL_LIST_POLICY_ID: ");
      uint32_t m = cdr_get_seq_count(&pe, 4);
      for (uint32_t j = 0; j < m; j++) {
        uint16_t id = cdr_get_ushort(&pe), level = cdr_get_ushort(&pe);
        if (cdr_in_status(&pe) != CDR_OK)
          break;
        printf("                           compressor %s, level %u\n",
               id < sizeof names / sizeof names[0] ? names[id] : "unknown", level);
      }
      if (cdr_in_status(&pe) != CDR_OK)
        break;
      broken = false;
    } else {
      printf("unknown(%lu)\n", (unsigned long)type);
      broken = false;
    }
  }
  ok = ok && !broken && cdr_in_status(&i) == CDR_OK;
  cdr_in_close(&i);
  return ok;
}

static bool print_strings(const iiop_component *c, cdr_arena *a, const char *label, int n)
{
  cdr_in i;
  if (!comp_in(&i, c, a))
    return false;
  const char *s[2] = { "", "" };
  for (int k = 0; k < n; k++)
    if (cdr_get_string_view(&i, &s[k], NULL) != CDR_OK)
      break;
  bool ok = cdr_in_status(&i) == CDR_OK;
  cdr_in_close(&i);
  if (!ok)
    return false;
  printf("      %s %s%s%s\n", label, s[0], n > 1 ? " " : "", n > 1 ? s[1] : "");
  return true;
}

static bool print_restricted(const iiop_component *c, cdr_arena *a)
{
  cdr_in i;
  if (!comp_in(&i, c, a))
    return false;
  uint8_t version = cdr_get_octet(&i);
  uint16_t flags = cdr_get_ushort(&i);
  uint32_t id = cdr_get_ulong(&i), maxc = cdr_get_ulong(&i), maxt = cdr_get_ulong(&i);
  bool ok = cdr_in_status(&i) == CDR_OK;
  cdr_in_close(&i);
  if (!ok)
    return false;
  printf("      TAG_OMNIORB_RESTRICTED_CONNECTION version         %u\n", version);
  fputs("                                        flags          ", stdout);
  if (flags & 1)
    fputs(" data_batch", stdout);
  if (flags & 2)
    fputs(" permit_interleaved", stdout);
  if (flags & 4)
    fputs(" hold_open", stdout);
  if (!flags)
    fputs(" (none)", stdout);
  putchar('\n');
  printf("                                        connection_id   %lu\n", (unsigned long)id);
  printf("                                        max_connections %lu\n", (unsigned long)maxc);
  printf("                                        max_threads     %lu\n", (unsigned long)maxt);
  return true;
}

/* An IPv6 host goes in brackets, as in a URI. */
static void print_host_port(const char *h, uint16_t port)
{
  if (strchr(h, ':') && h[0] != '[')
    printf("[%s]:%u\n", h, port);
  else
    printf("%s:%u\n", h, port);
}

/* CSIIOP::CompoundSecMechList: boolean stateful, then CompoundSecMechs.  As
 * catior does, the first mechanism with no authentication or attribute
 * layer requirements over TLS (TAG_TLS_SEC_TRANS) gives the endpoints. */
static bool print_csi_mech_list(const iiop_component *c, cdr_arena *a)
{
  cdr_in i;
  if (!comp_in(&i, c, a))
    return false;
  (void)cdr_get_boolean(&i); /* stateful */
  const uint8_t *v;
  uint32_t vn;
  /* A CompoundSecMech takes at least 40 octets. */
  uint32_t n = cdr_get_seq_count(&i, 40);
  for (uint32_t k = 0; k < n && cdr_in_status(&i) == CDR_OK; k++) {
    (void)cdr_get_ushort(&i); /* target_requires */
    uint32_t ttag = cdr_get_ulong(&i);
    const uint8_t *tdata = NULL;
    uint32_t tlen = 0;
    cdr_get_octets_view(&i, &tdata, &tlen);
    (void)cdr_get_ushort(&i); /* as_context_mech.target_supports */
    uint16_t as_req = cdr_get_ushort(&i);
    cdr_get_octets_view(&i, &v, &vn); /* client_authentication_mech */
    cdr_get_octets_view(&i, &v, &vn); /* target_name */
    (void)cdr_get_ushort(&i); /* sas_context_mech.target_supports */
    uint16_t sas_req = cdr_get_ushort(&i);
    uint32_t np = cdr_get_seq_count(&i, 8); /* privilege_authorities */
    for (uint32_t j = 0; j < np && cdr_in_status(&i) == CDR_OK; j++) {
      (void)cdr_get_ulong(&i);
      cdr_get_octets_view(&i, &v, &vn);
    }
    uint32_t nn = cdr_get_seq_count(&i, 4); /* supported_naming_mechanisms */
    for (uint32_t j = 0; j < nn && cdr_in_status(&i) == CDR_OK; j++)
      cdr_get_octets_view(&i, &v, &vn);
    (void)cdr_get_ulong(&i); /* supported_identity_types */
    if (cdr_in_status(&i) != CDR_OK)
      break;
    if (as_req == 0 && sas_req == 0 && ttag == IIOP_TAG_TLS_SEC_TRANS) {
      cdr_in t;
      bool ok = cdr_in_init_encap(&t, tdata, tlen, NULL) == CDR_OK;
      (void)cdr_get_ushort(&t); /* target_supports */
      (void)cdr_get_ushort(&t); /* target_requires */
      /* A TransportAddress is at least a 5-octet string and a ushort. */
      uint32_t na = ok ? cdr_get_seq_count(&t, 8) : 0;
      for (uint32_t j = 0; ok && j < na; j++) {
        const char *h;
        if (cdr_get_string_view(&t, &h, NULL) != CDR_OK)
          break;
        uint16_t port = cdr_get_ushort(&t);
        if (cdr_in_status(&t) != CDR_OK)
          break;
        fputs(j == 0 ? "      TAG_CSI_SEC_MECH_LIST endpoints " : "                                      ",
              stdout);
        print_host_port(h, port);
      }
      ok = ok && cdr_in_status(&t) == CDR_OK;
      cdr_in_close(&t);
      cdr_in_close(&i);
      return ok;
    }
  }
  bool ok = cdr_in_status(&i) == CDR_OK;
  cdr_in_close(&i);
  if (ok)
    puts("      TAG_CSI_SEC_MECH_LIST (no usable endpoints)");
  return ok;
}

static void print_component(const iiop_component *c, cdr_arena *a)
{
  bool ok = true;
  switch (c->tag) {
  case IIOP_TAG_ORB_TYPE: {
    uint32_t t;
    if ((ok = iiop_orb_type_decode(c, &t) == CDR_OK)) {
      printf("      TAG_ORB_TYPE %s (", vendor_name(t));
      for (int s = 24; s >= 0; s -= 8)
        put_char_esc((t >> s) & 0xff);
      puts(")");
    }
    break;
  }
  case IIOP_TAG_CODE_SETS: {
    iiop_codeset_info cs;
    if ((ok = iiop_codeset_info_decode(c, a, &cs) == CDR_OK)) {
      fputs("      TAG_CODE_SETS char native code set:       ", stdout);
      print_codeset(cs.for_char.native);
      fputs("\n                    char conversion code sets:  ", stdout);
      print_codeset_list(&cs.for_char);
      fputs("                    wchar native code set:      ", stdout);
      print_codeset(cs.for_wchar.native);
      fputs("\n                    wchar conversion code sets: ", stdout);
      print_codeset_list(&cs.for_wchar);
      putchar('\n');
    }
    break;
  }
  case 2: /* TAG_POLICIES */
    ok = print_policies(c, a);
    break;
  case IIOP_TAG_ALTERNATE_IIOP_ADDRESS: {
    const char *h;
    uint16_t port;
    if ((ok = iiop_alternate_address_decode(c, &h, &port) == CDR_OK))
      printf("      TAG_ALTERNATE_IIOP_ADDRESS %s %u\n", h, port);
    break;
  }
  case IIOP_TAG_SSL_SEC_TRANS: {
    uint16_t s, r, port;
    fputs("      TAG_SSL_SEC_TRANS", stdout);
    if (iiop_ssl_component_decode(c, &s, &r, &port) == CDR_OK)
      printf(" port = %u supports %u requires %u%s\n", port, s, r,
             c->len != 8 ? " (visibroker format)" : "");
    else
      puts(" (non-standard and unknown format)");
    break;
  }
  case 33: /* TAG_CSI_SEC_MECH_LIST */
    ok = print_csi_mech_list(c, a);
    break;
  case 0x41545401u:
    ok = print_strings(c, a, "TAG_OMNIORB_BIDIR", 1);
    break;
  case 0x41545402u:
    ok = print_strings(c, a, "TAG_OMNIORB_UNIX_TRANS", 2);
    break;
  case 0x41545403u:
    fputs("      TAG_OMNIORB_PERSISTENT_ID ", stdout);
    print_key_hex(c->data, c->len);
    putchar('\n');
    break;
  case 0x41545404u:
    ok = print_restricted(c, a);
    break;
  default:
    printf("      Unknown component tag %lu\n", (unsigned long)c->tag);
    break;
  }
  if (!ok)
    printf("            Broken component with tag %lu\n", (unsigned long)c->tag);
}

/* ---------------------------------------------------------------- profiles */

static int fail(const char *what, const char *detail)
{
  fflush(stdout);
  fprintf(stderr, "%s: %s%s%s\n", prog, what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

static int fail_stream(const char *what, const cdr_in *i)
{
  char detail[256];
  int st = cdr_in_status(i);
  snprintf(detail, sizeof detail, "%s at octet %zu (%s; CORBA::%s)", cdr_in_error_message(i),
           cdr_in_error_offset(i), cdr_strerror(st), cdr_status_exception(st));
  return fail(what, detail);
}

static void print_iiop_profile(unsigned idx, const iiop_profile *p, cdr_arena *a)
{
  printf("%u. IIOP %u.%u %s %u ", idx, p->major, p->minor, p->host, p->port);
  if (opt_omni) {
    char path[512];
    if (omni_poa_path(p->key, p->key_len, path, sizeof path))
      printf("POA(%s) ", path);
    else if (p->key_len == 12)
      fputs("BOA ", stdout);
    else
      fputs("Unknown ", stdout);
  }
  print_key(p->key, p->key_len, opt_hex);
  if (!opt_hex && !opt_catior) {
    fputs("      object key ", stdout);
    print_key_hex(p->key, p->key_len);
  }
  for (uint32_t k = 0; k < p->ncomponents; k++)
    print_component(&p->components[k], a);
  putchar('\n');
}

/* TAG_MULTIPLE_COMPONENTS: an encapsulated sequence<TaggedComponent>. */
static int print_multi_profile(unsigned idx, const iiop_profile *p, cdr_arena *a)
{
  cdr_in i;
  int rc = cdr_in_init_encap(&i, p->data, p->len, NULL);
  uint32_t n = rc == CDR_OK ? cdr_get_seq_count(&i, 8) : 0;
  iiop_component *v = NULL;
  if (cdr_in_status(&i) == CDR_OK) {
    v = cdr_arena_alloc(a, (n ? n : 1) * sizeof *v, _Alignof(iiop_component));
    if (!v)
      cdr_in_fail(&i, CDR_E_NOMEM, "out of memory");
  }
  for (uint32_t k = 0; k < n && cdr_in_status(&i) == CDR_OK; k++) {
    v[k].tag = cdr_get_ulong(&i);
    cdr_get_octets_view(&i, &v[k].data, &v[k].len);
  }
  if (cdr_in_status(&i) != CDR_OK) {
    rc = fail_stream("malformed multiple-components profile", &i);
    cdr_in_close(&i);
    return rc;
  }
  cdr_in_close(&i);
  printf("%u. Multiple Component Profile ", idx);
  for (uint32_t k = 0; k < n; k++)
    print_component(&v[k], a);
  putchar('\n');
  return 0;
}

/* ---------------------------------------------------------------- IORs and URLs */

static int dump_ior(const char *s)
{
  /* The syntax is checked here (rather than only by iiop_ior_from_string)
   * to say what is wrong, and the octets are decoded through a stream of
   * our own to report where. */
  const char *h = s + 4;
  size_t nd = strlen(h);
  for (size_t k = 0; k < nd; k++)
    if (!isxdigit((unsigned char)h[k])) {
      char d[96];
      snprintf(d, sizeof d, "character '%c' (0x%02x) at position %zu is not a hex digit",
               isprint((unsigned char)h[k]) ? h[k] : '?', (unsigned char)h[k], k + 4);
      return fail("malformed stringified IOR", d);
    }
  if (nd == 0)
    return fail("malformed stringified IOR", "no hex digits after \"IOR:\"");
  if (nd % 2) {
    char d[80];
    snprintf(d, sizeof d, "odd number of hex digits (%zu)", nd);
    return fail("malformed stringified IOR", d);
  }
  size_t n = nd / 2;
  uint8_t *buf = malloc(n);
  if (!buf)
    return fail("out of memory", NULL);
  for (size_t k = 0; k < n; k++) {
    unsigned v;
    sscanf(h + 2 * k, "%2x", &v);
    buf[k] = (uint8_t)v;
  }
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in in;
  iiop_ior ior;
  int rc = 0;
  if (cdr_in_init_encap(&in, buf, n, NULL) != CDR_OK) {
    rc = fail_stream("invalid IOR", &in);
  } else {
    cdr_in_set_arena(&in, &a);
    if (iiop_ior_read(&in, &ior) != CDR_OK)
      rc = fail_stream("invalid IOR", &in);
  }
  cdr_in_close(&in);
  if (rc == 0 && ior.nprofiles == 0 && ior.type_id[0] == 0) {
    puts("IOR is a nil object reference.");
  } else if (rc == 0) {
    printf("Type ID: \"%s\"\nProfiles:\n", ior.type_id);
    for (uint32_t k = 0; k < ior.nprofiles && rc == 0; k++) {
      const iiop_profile *p = &ior.profiles[k];
      unsigned idx = k + 1;
      if (p->tag == IIOP_TAG_INTERNET_IOP && p->iiop_ok)
        print_iiop_profile(idx, p, &a);
      else if (p->tag == IIOP_TAG_INTERNET_IOP)
        printf("%u. IIOP %u.%u profile of %lu octets, a version not decoded here\n\n", idx,
               p->major, p->minor, (unsigned long)p->len);
      else if (p->tag == IIOP_TAG_MULTIPLE_COMPONENTS)
        rc = print_multi_profile(idx, p, &a);
      else
        printf("%u. Unrecognised profile tag: 0x%lx\n", idx, (unsigned long)p->tag);
    }
  }
  cdr_arena_free(&a);
  free(buf);
  return rc;
}

static int dump_corbaloc(const char *s)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_corbaloc u;
  int rc = iiop_corbaloc_parse(s, &a, &u);
  if (rc != CDR_OK) {
    cdr_arena_free(&a);
    char d[160];
    snprintf(d, sizeof d, "%s (CORBA::%s)",
             rc == CDR_E_UNSUPPORTED ? "\"rir:\" names the local ORB's initial references, "
                                       "not an address"
                                     : "bad syntax: protocol, version, host, port, escape "
                                       "or missing '/'",
             cdr_status_exception(rc));
    return fail("malformed corbaloc URL", d);
  }
  printf("corbaloc URL with %lu address%s:\n", (unsigned long)u.naddrs, u.naddrs == 1 ? "" : "es");
  for (uint32_t k = 0; k < u.naddrs; k++)
    printf("%lu. IIOP %u.%u %s %u\n", (unsigned long)k + 1, u.addrs[k].major, u.addrs[k].minor,
           u.addrs[k].host, u.addrs[k].port);
  fputs("Object key: ", stdout);
  print_key(u.key, u.key_len, opt_hex);
  if (!opt_hex) {
    fputs("Object key: ", stdout);
    print_key_hex(u.key, u.key_len);
  }
  cdr_arena_free(&a);
  return 0;
}

static char *read_stdin(size_t *len)
{
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  if (!b)
    return NULL;
  for (;;) {
    if (n + 1 == cap) {
      if (cap >= INPUT_MAX) {
        free(b);
        errno = EFBIG;
        return NULL;
      }
      char *nb = realloc(b, cap * 2);
      if (!nb) {
        free(b);
        return NULL;
      }
      b = nb;
      cap *= 2;
    }
    size_t r = fread(b + n, 1, cap - 1 - n, stdin);
    n += r;
    if (r == 0)
      break;
  }
  if (ferror(stdin)) {
    free(b);
    return NULL;
  }
  b[n] = 0;
  *len = n;
  return b;
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
    { "hex", no_argument, NULL, 'x' },
    { "omni", no_argument, NULL, 'o' },
    { "catior", no_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;
  while ((c = getopt_long(argc, argv, "xoch", longopts, NULL)) != -1) {
    switch (c) {
    case 'x':
      opt_hex = true;
      break;
    case 'o':
      opt_omni = true;
      break;
    case 'c':
      opt_catior = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "%s: one IOR or URL at a time\n", prog);
    usage(stderr);
    return 2;
  }
  char *owned = NULL;
  const char *in = argv[optind];
  if (!in) {
    size_t n = 0;
    owned = read_stdin(&n);
    if (!owned) {
      fprintf(stderr, "%s: reading standard input: %s\n", prog, strerror(errno));
      return 1;
    }
    if (memchr(owned, 0, n)) {
      free(owned);
      return fail("malformed input", "NUL character in standard input");
    }
    in = owned;
  }
  /* Trim white space (a trailing newline from echo or a file). */
  while (isspace((unsigned char)*in))
    in++;
  size_t len = strlen(in);
  while (len && isspace((unsigned char)in[len - 1]))
    len--;
  char *s = malloc(len + 1);
  if (!s) {
    free(owned);
    return fail("out of memory", NULL);
  }
  memcpy(s, in, len);
  s[len] = 0;
  int rc;
  if (len == 0)
    rc = fail("no input", "expected \"IOR:...\" or \"corbaloc:...\"");
  else if (strncasecmp(s, "IOR:", 4) == 0)
    rc = dump_ior(s);
  else if (strncasecmp(s, "corbaloc:", 9) == 0)
    rc = dump_corbaloc(s);
  else
    rc = fail("not a stringified IOR or corbaloc URL", "expected \"IOR:...\" or \"corbaloc:...\"");
  free(s);
  free(owned);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: writing standard output: %s\n", prog, strerror(errno));
    return 1;
  }
  return rc;
}
