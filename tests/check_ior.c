/* check_ior.c - IORs, their components, stringified IORs, corbaloc URLs and
 * code set negotiation (iiop/ior.h): exact octets in both byte orders,
 * round trips that re-encode byte for byte, docs/hostile-input.md C01, C08 and C20, and
 * IORs that omniORB 4.2.5 really produced. */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <iiop/giop.h>
#include <iiop/msg.h>
#include <iiop/ior.h>
#include <iiop/ior_any.h>
#include <iiop/naming.h>
#include "testutil.h"

/* ---------------------------------------------------------------- hand encoding
 * Every builder writes into a tu_buf whose position 0 is the alignment
 * origin: an encapsulation's byte-order octet, or a message's first octet. */

static void put_str(tu_buf *t, const char *s, int le)
{
  size_t n = strlen(s) + 1;
  tu_num(t, 0, n, 4, le);
  tu_put(t, s, n);
}

static void put_octets(tu_buf *t, const void *p, size_t n, int le)
{
  tu_num(t, 0, n, 4, le);
  if (n)
    tu_put(t, p, n);
}

typedef struct tpart {
  uint32_t tag;
  const uint8_t *data;
  size_t len;
} tpart;

/* An encapsulation starts with its byte-order octet BO (any value, for the
 * negative cases); its contents use BO & 1. */
static void encap_start(tu_buf *e, uint8_t bo)
{
  e->n = 0;
  tu_u8(e, bo);
}

static void enc_codesets(tu_buf *e, uint8_t bo, uint32_t cn, const uint32_t *cc, size_t ncc,
                         uint32_t wn, const uint32_t *wc, size_t nwc)
{
  int le = bo & 1;
  encap_start(e, bo);
  tu_num(e, 0, cn, 4, le);
  tu_num(e, 0, ncc, 4, le);
  for (size_t k = 0; k < ncc; k++)
    tu_num(e, 0, cc[k], 4, le);
  tu_num(e, 0, wn, 4, le);
  tu_num(e, 0, nwc, 4, le);
  for (size_t k = 0; k < nwc; k++)
    tu_num(e, 0, wc[k], 4, le);
}

static void enc_ulong_encap(tu_buf *e, uint8_t bo, uint32_t v)
{
  encap_start(e, bo);
  tu_num(e, 0, v, 4, bo & 1);
}

static void enc_ssl(tu_buf *e, uint8_t bo, uint16_t s, uint16_t r, uint16_t port)
{
  encap_start(e, bo);
  tu_num(e, 0, s, 2, bo & 1);
  tu_num(e, 0, r, 2, bo & 1);
  tu_num(e, 0, port, 2, bo & 1);
}

static void enc_iiop_body(tu_buf *e, uint8_t bo, uint8_t major, uint8_t minor, const char *host,
                          uint16_t port, const void *key, size_t klen, const tpart *c, size_t nc)
{
  int le = bo & 1;
  encap_start(e, bo);
  tu_u8(e, major);
  tu_u8(e, minor);
  put_str(e, host, le);
  tu_num(e, 0, port, 2, le);
  put_octets(e, key, klen, le);
  if (minor >= 1) {
    tu_num(e, 0, nc, 4, le);
    for (size_t k = 0; k < nc; k++) {
      tu_num(e, 0, c[k].tag, 4, le);
      put_octets(e, c[k].data, c[k].len, le);
    }
  }
}

static void enc_ior(tu_buf *t, int le, const char *type_id, const tpart *p, size_t np)
{
  put_str(t, type_id, le);
  tu_num(t, 0, np, 4, le);
  for (size_t k = 0; k < np; k++) {
    tu_num(t, 0, p[k].tag, 4, le);
    put_octets(t, p[k].data, p[k].len, le);
  }
}

static char *hex_ior(const uint8_t *p, size_t n)
{
  char *s = malloc(4 + 2 * n + 1);
  ck_assert_ptr_nonnull(s);
  memcpy(s, "IOR:", 4);
  for (size_t k = 0; k < n; k++)
    snprintf(s + 4 + 2 * k, 3, "%02x", p[k]);
  s[4 + 2 * n] = 0;
  return s;
}

/* omniORB's code sets (docs/wire-notes.md): char ISO-8859-1 converting UTF-8,
 * wchar UTF-16 converting UTF-16. */
static const uint32_t omni_cconv[] = { CDR_CS_UTF8 };
static const uint32_t omni_wconv[] = { CDR_CS_UTF16 };

static void assert_omni_codesets(const iiop_component *c, cdr_arena *a)
{
  ck_assert_ptr_nonnull(c);
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_codeset_info_decode(c, a, &cs), CDR_OK);
  ck_assert_uint_eq(cs.for_char.native, CDR_CS_ISO8859_1);
  ck_assert_uint_eq(cs.for_char.nconv, 1);
  ck_assert_uint_eq(cs.for_char.conv[0], CDR_CS_UTF8);
  ck_assert_uint_eq(cs.for_wchar.native, CDR_CS_UTF16);
  ck_assert_uint_eq(cs.for_wchar.nconv, 1);
  ck_assert_uint_eq(cs.for_wchar.conv[0], CDR_CS_UTF16);
}

/* Parse S, check that it re-encodes to exactly S in its own byte order. */
static void assert_reencodes(const char *s, cdr_arena *a)
{
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, a, &ior), CDR_OK);
  ck_assert(s[4] == '0' && (s[5] == '0' || s[5] == '1'));
  char *back = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, s[5] - '0', a, &back), CDR_OK);
  ck_assert_str_eq(back, s);
}

/* ---------------------------------------------------------------- omniORB data
 *
 * omniORB 4.2.5 (Debian 12 packages omniorb, omniorb-nameserver), produced
 * on this machine with
 *   omniNames -start 12345 -logdir /tmp/onl -ORBendPoint giop:tcp:127.0.0.1:12345
 * which logged "Root context is IOR:...".  `catior` prints for it:
 *
 *   Type ID: "IDL:omg.org/CosNaming/NamingContextExt:1.0"
 *   Profiles:
 *   1. IIOP 1.2 127.0.0.1 12345 "NameService"
 *         TAG_ORB_TYPE omniORB (ATT\x00)
 *         TAG_CODE_SETS char native code set:       ISO-8859-1
 *                       char conversion code sets:  UTF-8
 *                       wchar native code set:      UTF-16
 *                       wchar conversion code sets: UTF-16
 *
 *         TAG_OMNIORB_PERSISTENT_ID 0x88a20d6b010038a0  (8 bytes)
 *
 * and `catior -x` the key as "0x4e616d6553657276696365  (11 bytes)".
 * TAG_OMNIORB_PERSISTENT_ID is omniORB's component 0x41545403, opaque here
 * (kept raw). */
static const char omninames_ior[] =
  "IOR:010000002b00000049444c3a6f6d672e6f72672f436f734e616d696e672f4e616d696e67436f6e746578"
  "744578743a312e30000001000000000000006c000000010102000a0000003132372e302e302e310039300b00"
  "00004e616d6553657276696365000300000000000000080000000100000000545441010000001c0000000100"
  "0000010001000100000001000105090101000100000009010100035454410800000088a20d6b010038a0";

/* `genior IDL:Bench/Echo:1.0 127.0.0.1 2809 Echo` (omniORB 4.2.5's genior);
 * catior: 1. IIOP 1.2 127.0.0.1 2809 "Echo", then TAG_ORB_TYPE and
 * TAG_CODE_SETS as above. */
static const char genior_echo[] =
  "IOR:010000001300000049444c3a42656e63682f4563686f3a312e300000010000000000000054000000010102"
  "000a0000003132372e302e302e3100f90a040000004563686f0200000000000000080000000100000000545441"
  "010000001c00000001000000010001000100000001000105090101000100000009010100";

/* `genior IDL:X:1.0 '[fe80::1]' 1 ab`: omniORB keeps the brackets in the
 * profile's host (catior: 1. IIOP 1.2 [fe80::1] 1 "ab"), which is our policy
 * too (docs/hostile-input.md C20). */
static const char genior_v6[] =
  "IOR:010000000a00000049444c3a583a312e30000000010000000000000054000000010102000a0000005b6665"
  "38303a3a315d00010002000000616200000200000000000000080000000100000000545441010000001c0000"
  "0001000000010001000100000001000105090101000100000009010100";

START_TEST(test_omninames_ior)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, &a, &ior), CDR_OK);
  /* Type ID: "IDL:omg.org/CosNaming/NamingContextExt:1.0" */
  ck_assert_str_eq(ior.type_id, "IDL:omg.org/CosNaming/NamingContextExt:1.0");
  ck_assert_uint_eq(ior.nprofiles, 1);
  /* 1. IIOP 1.2 127.0.0.1 12345 "NameService" */
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_eq(p, &ior.profiles[0]);
  ck_assert_uint_eq(p->tag, IIOP_TAG_INTERNET_IOP);
  ck_assert_uint_eq(p->iiop_ok, 1);
  ck_assert_uint_eq(p->major, 1);
  ck_assert_uint_eq(p->minor, 2);
  ck_assert_str_eq(p->host, "127.0.0.1");
  ck_assert_uint_eq(p->port, 12345);
  ck_assert_uint_eq(p->key_len, 11);
  ck_assert_mem_eq(p->key, "NameService", 11);
  ck_assert_uint_eq(p->len, 0x6c);
  ck_assert_uint_eq(p->ncomponents, 3);
  /* TAG_ORB_TYPE omniORB (ATT\x00) */
  ck_assert_uint_eq(p->components[0].tag, IIOP_TAG_ORB_TYPE);
  uint32_t orb = 0;
  ck_assert_int_eq(iiop_orb_type_decode(iiop_profile_component(p, IIOP_TAG_ORB_TYPE), &orb), CDR_OK);
  ck_assert_uint_eq(orb, IIOP_ORB_TYPE_OMNIORB);
  ck_assert_uint_eq(orb, 0x41545400u); /* "ATT\0" read as a big-endian number */
  /* TAG_CODE_SETS char ISO-8859-1 / UTF-8, wchar UTF-16 / UTF-16 */
  ck_assert_uint_eq(p->components[1].tag, IIOP_TAG_CODE_SETS);
  assert_omni_codesets(iiop_profile_component(p, IIOP_TAG_CODE_SETS), &a);
  /* TAG_OMNIORB_PERSISTENT_ID 0x88a20d6b010038a0  (8 bytes): kept raw */
  ck_assert_uint_eq(p->components[2].tag, 0x41545403u);
  ck_assert_uint_eq(p->components[2].len, 8);
  static const uint8_t pid[8] = { 0x88, 0xa2, 0x0d, 0x6b, 0x01, 0x00, 0x38, 0xa0 };
  ck_assert_mem_eq(p->components[2].data, pid, 8);
  ck_assert_ptr_null(iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS));
  /* Byte for byte back, and the same again in the other byte order. */
  assert_reencodes(omninames_ior, &a);
  char *be = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &be), CDR_OK);
  ck_assert_uint_eq(strncmp(be, "IOR:00", 6), 0);
  iiop_ior j;
  ck_assert_int_eq(iiop_ior_from_string(be, &a, &j), CDR_OK);
  ck_assert_str_eq(j.type_id, ior.type_id);
  ck_assert_uint_eq(j.nprofiles, 1);
  /* The profile body keeps its own (little-endian) order inside a
   * big-endian IOR. */
  TU_CTX("omniNames profile inside a big-endian IOR");
  TU_ASSERT_BYTES(j.profiles[0].data, j.profiles[0].len, p->data, p->len);
  ck_assert_str_eq(j.profiles[0].host, "127.0.0.1");
  ck_assert_uint_eq(j.profiles[0].port, 12345);
  cdr_arena_free(&a);
}
END_TEST

START_TEST(test_genior_iors)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(genior_echo, &a, &ior), CDR_OK);
  ck_assert_str_eq(ior.type_id, "IDL:Bench/Echo:1.0");
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(p->major, 1);
  ck_assert_uint_eq(p->minor, 2);
  ck_assert_str_eq(p->host, "127.0.0.1");
  ck_assert_uint_eq(p->port, 2809);
  ck_assert_uint_eq(p->key_len, 4);
  ck_assert_mem_eq(p->key, "Echo", 4);
  ck_assert_uint_eq(p->ncomponents, 2);
  assert_omni_codesets(iiop_profile_component(p, IIOP_TAG_CODE_SETS), &a);
  assert_reencodes(genior_echo, &a);

  /* The same IOR made by iiop_ior_make() with omniORB's components in
   * omniORB's (little-endian) order is the same string. */
  iiop_component comps[2];
  ck_assert_int_eq(iiop_orb_type_encode(IIOP_ORB_TYPE_OMNIORB, CDR_LITTLE_ENDIAN, &a, &comps[0]),
                   CDR_OK);
  iiop_codeset_info cs = { { CDR_CS_ISO8859_1, 1, omni_cconv }, { CDR_CS_UTF16, 1, omni_wconv } };
  ck_assert_int_eq(iiop_codeset_info_encode(&cs, CDR_LITTLE_ENDIAN, &a, &comps[1]), CDR_OK);
  iiop_ior made;
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:Bench/Echo:1.0", 1, 2, "127.0.0.1", 2809,
                                 (const uint8_t *)"Echo", 4, comps, 2, &made),
                   CDR_OK);
  char *s = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&made, CDR_LITTLE_ENDIAN, &a, &s), CDR_OK);
  ck_assert_str_eq(s, genior_echo);

  /* IPv6 host in a profile: kept exactly as given, brackets included. */
  ck_assert_int_eq(iiop_ior_from_string(genior_v6, &a, &ior), CDR_OK);
  p = iiop_ior_iiop_profile(&ior);
  ck_assert_str_eq(ior.type_id, "IDL:X:1.0");
  ck_assert_str_eq(p->host, "[fe80::1]");
  ck_assert_uint_eq(p->port, 1);
  ck_assert_uint_eq(p->key_len, 2);
  ck_assert_mem_eq(p->key, "ab", 2);
  assert_reencodes(genior_v6, &a);
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- byte orders */

/* An IOR with a big mix: the outer encapsulation in OUTER, the IIOP
 * profile body in PROF, its code sets component in CS, its ORB type and SSL
 * components in the opposite order of the profile, an unknown component and
 * an unknown profile kept raw.  Values are chosen so that any swap shows. */
static void mixed_ior(tu_buf *t, int outer, int prof, int cs)
{
  static const uint32_t cconv[] = { CDR_CS_UTF8, 0x10020025u };
  static const uint32_t wconv[] = { CDR_CS_UTF16, CDR_CS_UCS4, 0x00010102u };
  static tu_buf ecs, eorb, essl, body;
  enc_codesets(&ecs, (uint8_t)cs, CDR_CS_ISO8859_1, cconv, 2, CDR_CS_UTF16, wconv, 3);
  enc_ulong_encap(&eorb, (uint8_t)!prof, 0x12345678u);
  enc_ssl(&essl, (uint8_t)!prof, 0x0066, 0x0042, 0xABCD);
  static const uint8_t odd[5] = { 1, 2, 3, 4, 5 };
  tpart comps[] = {
    { IIOP_TAG_ORB_TYPE, eorb.b, eorb.n },
    { 0x7F000001u, odd, sizeof odd },
    { IIOP_TAG_CODE_SETS, ecs.b, ecs.n },
    { IIOP_TAG_SSL_SEC_TRANS, essl.b, essl.n },
  };
  static const uint8_t key[7] = { 0, 0xff, 'E', 'c', 'h', 'o', 1 };
  enc_iiop_body(&body, (uint8_t)prof, 1, 2, "host-7.example", 0xA1B2, key, sizeof key, comps, 4);
  static const uint8_t other[3] = { 0xde, 0xad, 0x01 };
  tpart profs[] = {
    { 0x0000ABCDu, other, sizeof other },
    { IIOP_TAG_INTERNET_IOP, body.b, body.n },
  };
  t->n = 0;
  tu_u8(t, (uint8_t)outer);
  enc_ior(t, outer, "IDL:Mixed/Orders:1.0", profs, 2);
}

static void assert_mixed_fields(const iiop_ior *ior, cdr_arena *a)
{
  ck_assert_str_eq(ior->type_id, "IDL:Mixed/Orders:1.0");
  ck_assert_uint_eq(ior->nprofiles, 2);
  const iiop_profile *u = &ior->profiles[0];
  ck_assert_uint_eq(u->tag, 0xABCD);
  ck_assert_uint_eq(u->iiop_ok, 0);
  ck_assert_uint_eq(u->len, 3);
  ck_assert_mem_eq(u->data, "\xde\xad\x01", 3);
  const iiop_profile *p = iiop_ior_iiop_profile(ior);
  ck_assert_ptr_eq(p, &ior->profiles[1]);
  ck_assert_uint_eq(p->major, 1);
  ck_assert_uint_eq(p->minor, 2);
  ck_assert_str_eq(p->host, "host-7.example");
  ck_assert_uint_eq(p->port, 0xA1B2);
  ck_assert_uint_eq(p->key_len, 7);
  ck_assert_mem_eq(p->key, "\0\xff" "Echo\x01", 7);
  ck_assert_uint_eq(p->ncomponents, 4);
  uint32_t orb = 0;
  ck_assert_int_eq(iiop_orb_type_decode(iiop_profile_component(p, IIOP_TAG_ORB_TYPE), &orb), CDR_OK);
  ck_assert_uint_eq(orb, 0x12345678u);
  const iiop_component *x = iiop_profile_component(p, 0x7F000001u);
  ck_assert_ptr_nonnull(x);
  ck_assert_uint_eq(x->len, 5);
  ck_assert_mem_eq(x->data, "\1\2\3\4\5", 5);
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_codeset_info_decode(iiop_profile_component(p, IIOP_TAG_CODE_SETS), a, &cs),
                   CDR_OK);
  ck_assert_uint_eq(cs.for_char.native, CDR_CS_ISO8859_1);
  ck_assert_uint_eq(cs.for_char.nconv, 2);
  ck_assert_uint_eq(cs.for_char.conv[0], CDR_CS_UTF8);
  ck_assert_uint_eq(cs.for_char.conv[1], 0x10020025u);
  ck_assert_uint_eq(cs.for_wchar.native, CDR_CS_UTF16);
  ck_assert_uint_eq(cs.for_wchar.nconv, 3);
  ck_assert_uint_eq(cs.for_wchar.conv[0], CDR_CS_UTF16);
  ck_assert_uint_eq(cs.for_wchar.conv[1], CDR_CS_UCS4);
  ck_assert_uint_eq(cs.for_wchar.conv[2], 0x00010102u);
  uint16_t sup = 0, req = 0, port = 0;
  ck_assert_int_eq(iiop_ssl_component_decode(iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS),
                                             &sup, &req, &port),
                   CDR_OK);
  ck_assert_uint_eq(sup, 0x66);
  ck_assert_uint_eq(req, 0x42);
  ck_assert_uint_eq(port, 0xABCD);
}

START_TEST(test_byte_order_combinations)
{
  int outer = _i & 1, prof = (_i >> 1) & 1, cs = (_i >> 2) & 1;
  static tu_buf t;
  mixed_ior(&t, outer, prof, cs);
  char *s = hex_ior(t.b, t.n);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_OK);
  assert_mixed_fields(&ior, &a);
  assert_reencodes(s, &a);
  /* Re-encoded in the other order: only the outer octets change. */
  char *o = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, !outer, &a, &o), CDR_OK);
  ck_assert_str_ne(o, s);
  iiop_ior j;
  ck_assert_int_eq(iiop_ior_from_string(o, &a, &j), CDR_OK);
  assert_mixed_fields(&j, &a);
  TU_CTX("profile body after re-encoding, orders %d/%d/%d", outer, prof, cs);
  TU_ASSERT_BYTES(j.profiles[1].data, j.profiles[1].len, ior.profiles[1].data, ior.profiles[1].len);
  /* Through a stream too (iiop_ior_read/iiop_ior_write directly). */
  cdr_in in;
  ck_assert_int_eq(cdr_in_init_encap(&in, t.b, t.n, NULL), CDR_OK);
  cdr_in_set_arena(&in, &a);
  ck_assert_int_eq(iiop_ior_read(&in, &j), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&in), 0);
  cdr_in_close(&in);
  assert_mixed_fields(&j, &a);
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)outer;
  cdr_out out;
  ck_assert_int_eq(cdr_out_init(&out, &op), CDR_OK);
  cdr_put_octet(&out, (uint8_t)outer);
  ck_assert_int_eq(iiop_ior_write(&out, &j), CDR_OK);
  TU_CTX("iiop_ior_write, orders %d/%d/%d", outer, prof, cs);
  TU_ASSERT_BYTES(cdr_out_data(&out), cdr_out_size(&out), t.b, t.n);
  cdr_out_close(&out);
  free(s);
  cdr_arena_free(&a);
}
END_TEST

/* iiop_ior_make + iiop_ior_to_string give exactly the octets the spec
 * lays out, in both byte orders, and parse back to the same fields. */
START_TEST(test_make_exact_octets)
{
  int le = _i & 1, cs_le = (_i >> 1) & 1;
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_codeset_info info = { { CDR_CS_ISO8859_1, 1, omni_cconv }, { CDR_CS_UTF16, 1, omni_wconv } };
  iiop_component comps[3];
  ck_assert_int_eq(iiop_orb_type_encode(0xCAFE0001u, le, &a, &comps[0]), CDR_OK);
  ck_assert_int_eq(iiop_codeset_info_encode(&info, cs_le, &a, &comps[1]), CDR_OK);
  ck_assert_int_eq(iiop_ssl_component_encode(0x66, 0x02, 2810, le, &a, &comps[2]), CDR_OK);
  static const uint8_t key[3] = { 'k', 0, 0xfe };
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:Bench/Echo:1.0", 1, 2, "server.example", 2809, key, 3,
                                 comps, 3, &ior),
                   CDR_OK);
  char *s = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, le, &a, &s), CDR_OK);

  static tu_buf eorb, ecs, essl, body, t;
  enc_ulong_encap(&eorb, (uint8_t)le, 0xCAFE0001u);
  enc_codesets(&ecs, (uint8_t)cs_le, CDR_CS_ISO8859_1, omni_cconv, 1, CDR_CS_UTF16, omni_wconv, 1);
  enc_ssl(&essl, (uint8_t)le, 0x66, 0x02, 2810);
  tpart tc[] = { { IIOP_TAG_ORB_TYPE, eorb.b, eorb.n },
                 { IIOP_TAG_CODE_SETS, ecs.b, ecs.n },
                 { IIOP_TAG_SSL_SEC_TRANS, essl.b, essl.n } };
  enc_iiop_body(&body, (uint8_t)le, 1, 2, "server.example", 2809, key, 3, tc, 3);
  tpart tp[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
  t.n = 0;
  tu_u8(&t, (uint8_t)le);
  enc_ior(&t, le, "IDL:Bench/Echo:1.0", tp, 1);
  char *want = hex_ior(t.b, t.n);
  ck_assert_str_eq(s, want);

  iiop_ior back;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &back), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&back);
  ck_assert_str_eq(back.type_id, "IDL:Bench/Echo:1.0");
  ck_assert_str_eq(p->host, "server.example");
  ck_assert_uint_eq(p->port, 2809);
  ck_assert_uint_eq(p->key_len, 3);
  ck_assert_mem_eq(p->key, key, 3);
  assert_omni_codesets(iiop_profile_component(p, IIOP_TAG_CODE_SETS), &a);
  uint16_t port = 0;
  ck_assert_int_eq(iiop_ssl_component_decode(iiop_profile_component(p, IIOP_TAG_SSL_SEC_TRANS),
                                             NULL, NULL, &port),
                   CDR_OK);
  ck_assert_uint_eq(port, 2810);
  free(want);
  cdr_arena_free(&a);
}
END_TEST

START_TEST(test_versions_and_nil)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  /* IIOP 1.0: no components on the wire. */
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:Old:1.0", 1, 0, "old.example", 900,
                                 (const uint8_t *)"key", 3, NULL, 0, &ior),
                   CDR_OK);
  char *s = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_OK);
  static tu_buf body, t;
  enc_iiop_body(&body, 0, 1, 0, "old.example", 900, "key", 3, NULL, 0);
  tpart tp[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
  t.n = 0;
  tu_u8(&t, 0);
  enc_ior(&t, 0, "IDL:Old:1.0", tp, 1);
  char *want = hex_ior(t.b, t.n);
  ck_assert_str_eq(s, want);
  free(want);
  iiop_ior back;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &back), CDR_OK);
  ck_assert_uint_eq(back.profiles[0].minor, 0);
  ck_assert_uint_eq(back.profiles[0].ncomponents, 0);
  ck_assert_ptr_null(back.profiles[0].components);
  ck_assert_str_eq(back.profiles[0].host, "old.example");

  /* IIOP 1.3 and a later minor: 1.1's layout (CORBA 3.0 15.7.2), decoded
   * as omniORB decodes them, components and all; octets after the
   * components (a later minor's own) skipped; re-encoded as they came. */
  static const uint8_t junk[4] = { 9, 9, 9, 9 };
  static const uint8_t orbtype[] = { 1, 0, 0, 0, 0x49, 0x4f, 0x4e, 0x41 }; /* LE "IONA" */
  tpart comp[] = { { 0 /* TAG_ORB_TYPE */, orbtype, sizeof orbtype } };
  for (int minor = 3; minor <= 9; minor += 6) {
    enc_iiop_body(&body, 1, 1, (uint8_t)minor, "new.example", 1, junk, 4, comp, 1);
    if (minor == 9) {
      tu_u8(&body, 0x77); /* a later minor's field */
      tu_u8(&body, 0x78);
    }
    tpart tp2[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
    t.n = 0;
    tu_u8(&t, 1);
    enc_ior(&t, 1, "IDL:New:1.0", tp2, 1);
    want = hex_ior(t.b, t.n);
    ck_assert_int_eq(iiop_ior_from_string(want, &a, &back), CDR_OK);
    ck_assert_uint_eq(back.nprofiles, 1);
    const iiop_profile *p = iiop_ior_iiop_profile(&back);
    ck_assert_ptr_eq(p, &back.profiles[0]);
    ck_assert_uint_eq(p->iiop_ok, 1);
    ck_assert_uint_eq(p->major, 1);
    ck_assert_uint_eq(p->minor, (unsigned)minor);
    ck_assert_str_eq(p->host, "new.example");
    ck_assert_uint_eq(p->port, 1);
    ck_assert_uint_eq(p->key_len, 4);
    ck_assert_mem_eq(p->key, junk, 4);
    ck_assert_uint_eq(p->ncomponents, 1);
    ck_assert_uint_eq(p->components[0].tag, 0);
    ck_assert_uint_eq(p->components[0].len, sizeof orbtype);
    ck_assert_mem_eq(p->components[0].data, orbtype, sizeof orbtype);
    assert_reencodes(want, &a);
    free(want);
  }

  /* IIOP 2.0 (another major: a layout we cannot know): kept raw, not
   * iiop_ok, re-encoded as is. */
  enc_iiop_body(&body, 1, 2, 0, "new.example", 1, junk, 4, NULL, 0);
  tpart tp3[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
  t.n = 0;
  tu_u8(&t, 1);
  enc_ior(&t, 1, "IDL:New:1.0", tp3, 1);
  want = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(want, &a, &back), CDR_OK);
  ck_assert_uint_eq(back.nprofiles, 1);
  ck_assert_uint_eq(back.profiles[0].iiop_ok, 0);
  ck_assert_uint_eq(back.profiles[0].major, 2);
  ck_assert_uint_eq(back.profiles[0].minor, 0);
  ck_assert_ptr_null(iiop_ior_iiop_profile(&back));
  assert_reencodes(want, &a);
  free(want);

  /* A nil reference: type ID "" and no profiles. */
  iiop_ior nil = { "", NULL, 0 };
  ck_assert_int_eq(iiop_ior_to_string(&nil, CDR_LITTLE_ENDIAN, &a, &s), CDR_OK);
  ck_assert_str_eq(s, "IOR:01000000010000000000000000000000");
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &back), CDR_OK);
  ck_assert_str_eq(back.type_id, "");
  ck_assert_uint_eq(back.nprofiles, 0);
  ck_assert_ptr_null(iiop_ior_iiop_profile(&back));
  nil.type_id = NULL; /* written as "" */
  ck_assert_int_eq(iiop_ior_to_string(&nil, CDR_BIG_ENDIAN, &a, &s), CDR_OK);
  ck_assert_str_eq(s, "IOR:00000000000000010000000000000000");
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- C08 */

/* A little-endian GIOP 1.2 Reply (NO_EXCEPTION) whose body is an IOR; its
 * IIOP profile body has byte-order octet PROF_BO, and its TAG_CODE_SETS
 * component CS_BO.  CS_OVERRUN: the code sets component's length runs one
 * octet past the profile body (still inside the message: a second profile
 * follows).  *AT gets message offsets: [0] the profile's byte-order octet,
 * [1] the code sets component's length field, [2] its byte-order octet. */
static void c08_message(tu_buf *m, uint8_t prof_bo, uint8_t cs_bo, int cs_overrun, size_t at[3])
{
  static const uint32_t wconv[] = { CDR_CS_UTF16, CDR_CS_UCS4 };
  static tu_buf ecs, eorb, essl, body;
  enc_codesets(&ecs, cs_bo, CDR_CS_ISO8859_1, omni_cconv, 1, CDR_CS_UTF16, wconv, 2);
  enc_ulong_encap(&eorb, 0, IIOP_ORB_TYPE_OMNIORB);
  enc_ssl(&essl, 0, 0x0066, 0x0002, 0x2BAD);
  tpart comps[] = { { IIOP_TAG_ORB_TYPE, eorb.b, eorb.n },
                    { IIOP_TAG_CODE_SETS, ecs.b, ecs.n },
                    { IIOP_TAG_SSL_SEC_TRANS, essl.b, essl.n } };
  static const uint8_t key[7] = { 0, 0xff, 'E', 'c', 'h', 'o', 1 };
  /* Under a bogus octet 2 the contents are big-endian (2 & 1). */
  enc_iiop_body(&body, prof_bo, 1, 2, "192.168.1.20", 0xA1B2, key, sizeof key, comps, 3);
  int ple = prof_bo & 1;
  /* Where the code sets component's length field sits in the body: find
   * the code sets tag followed by that length, on a 4-aligned position. */
  size_t cs_len_at = 0;
  for (size_t k = 0; k + 8 <= body.n; k += 4) {
    uint8_t tag[4];
    tu_store(tag, IIOP_TAG_CODE_SETS, 4, ple);
    uint8_t len[4];
    tu_store(len, ecs.n, 4, ple);
    if (memcmp(body.b + k, tag, 4) == 0 && memcmp(body.b + k + 4, len, 4) == 0) {
      cs_len_at = k + 4;
      break;
    }
  }
  ck_assert_uint_gt(cs_len_at, 0);
  if (cs_overrun)
    tu_store(body.b + cs_len_at, body.n - (cs_len_at + 4) + 1, 4, ple);
  static const uint8_t other[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  tpart profs[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n }, { 0x7EEEu, other, sizeof other } };

  m->n = 0;
  uint8_t hdr[GIOP_HEADER_SIZE] = { 0 };
  tu_put(m, hdr, sizeof hdr);
  tu_num(m, 0, 7, 4, 1);                  /* request_id */
  tu_num(m, 0, GIOP_NO_EXCEPTION, 4, 1);  /* reply_status */
  tu_num(m, 0, 0, 4, 1);                  /* service_context: none */
  tu_pad(m, 0, 8);                        /* GIOP 1.2 body alignment */
  size_t body_at = m->n;
  ck_assert_uint_eq(body_at % 8, 0);
  /* The body's alignment origin is the message start; body_at is a
   * multiple of 8, so building it from here keeps every alignment. */
  static tu_buf b;
  b.n = 0;
  enc_ior(&b, 1, "IDL:Bench/Echo:1.0", profs, 2);
  /* Offsets: type ID (4 + 19 -> 23), pad to 24, count (28), tag (32), length (36), body. */
  size_t prof_at = body_at + 36;
  tu_put(m, b.b, b.n);
  at[0] = prof_at;
  at[1] = prof_at + cs_len_at;
  at[2] = prof_at + cs_len_at + 4;
  giop_header h = { 1, 2, GIOP_FLAG_LITTLE_ENDIAN, GIOP_REPLY, (uint32_t)(m->n - GIOP_HEADER_SIZE) };
  ck_assert_int_eq(giop_header_write(&h, m->b), CDR_OK);
}

/* Parse the message M with giop_parse, then the IOR from its body; for the
 * negative cases (the message copy is freed before returning). */
static int reply_ior(const tu_buf *m, cdr_arena *a, iiop_ior *ior, size_t *err_at)
{
  uint8_t *copy = tu_dup(m->b, m->n);
  giop_message msg;
  ck_assert_int_eq(giop_parse(&msg, copy, m->n, NULL, a), CDR_OK);
  ck_assert_uint_eq(msg.hdr.type, GIOP_REPLY);
  ck_assert_uint_eq(msg.u.reply.request_id, 7);
  ck_assert_uint_eq(msg.u.reply.reply_status, GIOP_NO_EXCEPTION);
  ck_assert_uint_eq(msg.u.reply.contexts.n, 0);
  int rc = iiop_ior_read(&msg.body, ior);
  ck_assert_int_eq(rc, cdr_in_status(&msg.body));
  if (err_at)
    *err_at = cdr_in_error_offset(&msg.body);
  cdr_in_close(&msg.body);
  free(copy);
  return rc;
}

START_TEST(test_c08_nested_byte_orders)
{
  static tu_buf m;
  size_t at[3];
  c08_message(&m, 0, 1, 0, at);
  ck_assert_uint_eq(m.b[at[0]], 0); /* big-endian profile body */
  ck_assert_uint_eq(m.b[at[2]], 1); /* little-endian code sets inside it */
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  uint8_t *copy = tu_dup(m.b, m.n);
  giop_message msg;
  ck_assert_int_eq(giop_parse(&msg, copy, m.n, NULL, &a), CDR_OK);
  ck_assert_uint_eq(msg.hdr.flags & GIOP_FLAG_LITTLE_ENDIAN, GIOP_FLAG_LITTLE_ENDIAN);
  ck_assert_uint_eq(msg.u.reply.request_id, 7);
  ck_assert_uint_eq(msg.u.reply.reply_status, GIOP_NO_EXCEPTION);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_read(&msg.body, &ior), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&msg.body), 0);
  cdr_in_close(&msg.body);

  ck_assert_str_eq(ior.type_id, "IDL:Bench/Echo:1.0");
  ck_assert_uint_eq(ior.nprofiles, 2);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_ptr_eq(p, &ior.profiles[0]);
  ck_assert_uint_eq(p->major, 1);
  ck_assert_uint_eq(p->minor, 2);
  ck_assert_str_eq(p->host, "192.168.1.20");
  ck_assert_uint_eq(p->port, 0xA1B2);
  ck_assert_uint_eq(p->key_len, 7);
  ck_assert_mem_eq(p->key, "\0\xff" "Echo\x01", 7);
  ck_assert_uint_eq(p->ncomponents, 3);
  uint32_t orb = 0;
  ck_assert_int_eq(iiop_orb_type_decode(&p->components[0], &orb), CDR_OK);
  ck_assert_uint_eq(orb, IIOP_ORB_TYPE_OMNIORB);
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_codeset_info_decode(&p->components[1], &a, &cs), CDR_OK);
  ck_assert_uint_eq(cs.for_char.native, CDR_CS_ISO8859_1);
  ck_assert_uint_eq(cs.for_char.nconv, 1);
  ck_assert_uint_eq(cs.for_char.conv[0], CDR_CS_UTF8);
  ck_assert_uint_eq(cs.for_wchar.native, CDR_CS_UTF16);
  ck_assert_uint_eq(cs.for_wchar.nconv, 2);
  ck_assert_uint_eq(cs.for_wchar.conv[0], CDR_CS_UTF16);
  ck_assert_uint_eq(cs.for_wchar.conv[1], CDR_CS_UCS4);
  uint16_t sup, req, port;
  ck_assert_int_eq(iiop_ssl_component_decode(&p->components[2], &sup, &req, &port), CDR_OK);
  ck_assert_uint_eq(sup, 0x66);
  ck_assert_uint_eq(req, 0x02);
  ck_assert_uint_eq(port, 0x2BAD);
  ck_assert_uint_eq(ior.profiles[1].tag, 0x7EEE);
  ck_assert_uint_eq(ior.profiles[1].len, 12);
  free(copy);
  cdr_arena_free(&a);
}
END_TEST

/* C08 variants: byte-order octet 2 (profile body, then code sets), an inner
 * length running past the outer encapsulation: MARSHAL-class errors at the
 * right offsets. */
START_TEST(test_c08_variants)
{
  static const struct {
    uint8_t prof_bo, cs_bo;
    int overrun;
    int rc;
    int at; /* index into at[] of the expected error offset */
  } v[] = {
    { 2, 1, 0, CDR_E_VALUE, 0 },
    { 0, 2, 0, CDR_E_VALUE, 2 },
    { 0, 1, 1, CDR_E_LENGTH, 1 },
    { 1, 0, 1, CDR_E_LENGTH, 1 },
  };
  static tu_buf m;
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    size_t at[3];
    c08_message(&m, v[k].prof_bo, v[k].cs_bo, v[k].overrun, at);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    iiop_ior ior;
    memset(&ior, 0xA5, sizeof ior);
    iiop_ior before = ior;
    size_t err_at = 0;
    ck_assert_int_eq(reply_ior(&m, &a, &ior, &err_at), v[k].rc);
    ck_assert_uint_eq(err_at, at[v[k].at]);
    ck_assert_mem_eq(&ior, &before, sizeof ior);
    ck_assert_str_eq(cdr_status_exception(v[k].rc), "MARSHAL");
    cdr_arena_free(&a);
  }
}
END_TEST

/* ---------------------------------------------------------------- C01 */

static void c01_message(tu_buf *m, uint32_t len, int le)
{
  m->n = 0;
  uint8_t hdr[GIOP_HEADER_SIZE] = { 0 };
  tu_put(m, hdr, sizeof hdr);
  tu_num(m, 0, 7, 4, le);
  tu_num(m, 0, GIOP_NO_EXCEPTION, 4, le);
  tu_num(m, 0, 0, 4, le);
  tu_pad(m, 0, 8);
  tu_num(m, 0, len, 4, le);           /* the IOR's type_id length */
  tu_put(m, "IDL:omg.org/CORBA/Object", 24); /* 24 octets follow, no NUL */
  giop_header h = { 1, 2, (uint8_t)(le ? GIOP_FLAG_LITTLE_ENDIAN : 0), GIOP_REPLY,
                    (uint32_t)(m->n - GIOP_HEADER_SIZE) };
  ck_assert_int_eq(giop_header_write(&h, m->b), CDR_OK);
}

START_TEST(test_c01_huge_type_id)
{
  static const uint32_t lens[] = { 0x7FFFFFF0u, 25u, 0xFFFFFFFFu, 0x80000000u };
  static tu_buf m;
  for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
    for (int le = 0; le <= 1; le++) {
      c01_message(&m, lens[k], le);
      cdr_mem_counter c;
      cdr_mem_counter_init(&c, NULL);
      cdr_arena a;
      cdr_arena_init(&a, &c.alloc);
      uint8_t *copy = tu_dup(m.b, m.n);
      giop_message msg;
      ck_assert_int_eq(giop_parse(&msg, copy, m.n, NULL, &a), CDR_OK);
      ck_assert_uint_eq(cdr_in_remaining(&msg.body), 28);
      iiop_ior ior;
      memset(&ior, 0x5A, sizeof ior);
      iiop_ior before = ior;
      ck_assert_int_eq(iiop_ior_read(&msg.body, &ior), CDR_E_LENGTH);
      ck_assert_uint_eq(cdr_in_error_offset(&msg.body), 24); /* at the length field */
      ck_assert_mem_eq(&ior, &before, sizeof ior);
      /* Nothing allocated for the string: at most what giop_parse took,
       * and never more than what remains. */
      ck_assert_uint_le(cdr_arena_used(&a), 28);
      ck_assert_uint_le(c.bytes, 8192);
      cdr_in_close(&msg.body);
      cdr_arena_free(&a);
      ck_assert_int_eq(c.live, 0);
      free(copy);
    }
}
END_TEST

/* Counts read off the wire are checked before anything is allocated:
 * profiles (at least 8 octets each), components (likewise), and the same
 * type-ID length through a stringified IOR. */
/* An IOR's type_id is UTF-8 on the C side whatever the native code set:
 * written converted to the transmission code set, read back as UTF-8. */
START_TEST(test_type_id_in_every_code_set_pairing)
{
  static const char id[] = "IDL:\xc3\x9c:1.0"; /* U+00DC, as UTF-8 */
  static const uint8_t wire_l1[] = { 10, 0, 0, 0, 'I', 'D', 'L', ':', 0xdc, ':', '1', '.', '0', 0, 0, 0,
                                     0, 0, 0, 0 };
  static const uint8_t wire_u8[] = { 11, 0, 0, 0, 'I', 'D', 'L', ':', 0xc3, 0x9c, ':', '1', '.', '0', 0, 0,
                                     0, 0, 0, 0 };
  for (int pairing = 0; pairing < 4; pairing++) {
    cdr_opts op = tu_opts_pairing(pairing, CDR_LITTLE_ENDIAN);
    const uint8_t *want = op.tcs_c == CDR_CS_UTF8 ? wire_u8 : wire_l1;
    iiop_ior ior = { id, NULL, 0 };
    cdr_out o;
    ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
    ck_assert_int_eq(iiop_ior_write(&o, &ior), CDR_OK);
    TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), want, sizeof wire_l1);
    cdr_out_close(&o);
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    cdr_in i;
    ck_assert_int_eq(cdr_in_init(&i, want, sizeof wire_l1, CDR_LITTLE_ENDIAN, &op), CDR_OK);
    cdr_in_set_arena(&i, &a);
    iiop_ior back;
    ck_assert_int_eq(iiop_ior_read(&i, &back), CDR_OK);
    ck_assert_str_eq(back.type_id, id);
    ck_assert_uint_eq(back.nprofiles, 0);
    cdr_in_close(&i);
    cdr_arena_free(&a);
  }
}
END_TEST

START_TEST(test_bogus_counts)
{
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_arena a;
  cdr_arena_init(&a, &c.alloc);
  static tu_buf t;
  iiop_ior ior;
  /* type_id length 0x7FFFFFF0 in a stringified IOR. */
  t.n = 0;
  tu_u8(&t, 1);
  tu_num(&t, 0, 0x7FFFFFF0u, 4, 1);
  tu_put(&t, "abcdefghijklmnopqrstuvwx", 24);
  char *s = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_LENGTH);
  free(s);
  /* 0x10000000 profiles and 40 octets. */
  t.n = 0;
  tu_u8(&t, 0);
  put_str(&t, "IDL:X:1.0", 0);
  tu_num(&t, 0, 0x10000000u, 4, 0);
  for (int k = 0; k < 40; k++)
    tu_u8(&t, 0);
  s = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_LENGTH);
  free(s);
  /* 5 profiles need at least 40 octets: 39 is too few. */
  t.n = 0;
  tu_u8(&t, 0);
  put_str(&t, "IDL:X:1.0", 0);
  tu_num(&t, 0, 5, 4, 0);
  for (int k = 0; k < 39; k++)
    tu_u8(&t, 0);
  s = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_LENGTH);
  free(s);
  /* 0x20000000 components in a profile body. */
  static tu_buf body;
  encap_start(&body, 1);
  tu_u8(&body, 1);
  tu_u8(&body, 2);
  put_str(&body, "h", 1);
  tu_num(&body, 0, 1, 2, 1);
  put_octets(&body, "k", 1, 1);
  tu_num(&body, 0, 0x20000000u, 4, 1);
  tu_num(&body, 0, 0, 4, 1);
  tpart tp[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
  t.n = 0;
  tu_u8(&t, 1);
  enc_ior(&t, 1, "IDL:X:1.0", tp, 1);
  s = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_LENGTH);
  free(s);
  /* Code sets with 0x40000000 conversion code sets. */
  static tu_buf ecs;
  encap_start(&ecs, 0);
  tu_num(&ecs, 0, CDR_CS_ISO8859_1, 4, 0);
  tu_num(&ecs, 0, 0x40000000u, 4, 0);
  tu_num(&ecs, 0, 0, 4, 0);
  iiop_component comp = { IIOP_TAG_CODE_SETS, (uint32_t)ecs.n, ecs.b };
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_codeset_info_decode(&comp, &a, &cs), CDR_E_LENGTH);
  /* The same component inside a profile fails the whole IOR. */
  tpart tc[] = { { IIOP_TAG_CODE_SETS, ecs.b, ecs.n } };
  enc_iiop_body(&body, 1, 1, 2, "h", 1, "k", 1, tc, 1);
  tpart tp2[] = { { IIOP_TAG_INTERNET_IOP, body.b, body.n } };
  t.n = 0;
  tu_u8(&t, 1);
  enc_ior(&t, 1, "IDL:X:1.0", tp2, 1);
  s = hex_ior(t.b, t.n);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_LENGTH);
  free(s);
  ck_assert_uint_le(c.bytes, 16384);
  cdr_arena_free(&a);
  ck_assert_int_eq(c.live, 0);
}
END_TEST

/* ---------------------------------------------------------------- C20 */

START_TEST(test_c20_stringified_ior_syntax)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  memset(&ior, 0x77, sizeof ior);
  iiop_ior before = ior;
  static const char *const bad[] = {
    "IOR:0",                          /* odd number of digits */
    "IOR:010",
    "IOR:01000000g1000000",           /* non-hex */
    "IOR:0100000001000000000000000000000 ", /* trailing space */
    "IOR:",                           /* nothing */
    "IOR",
    "",
    "IOX:01000000010000000000000000000000",
    "corbaloc::h/k",
    " IOR:01000000010000000000000000000000",
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ck_assert_msg(iiop_ior_from_string(bad[k], &a, &ior) == CDR_E_INVALID, "%s", bad[k]);
    ck_assert_str_eq(cdr_status_exception(CDR_E_INVALID), "BAD_PARAM");
  }
  /* The odd digit is rejected wherever it is, even after a valid IOR. */
  char *s = malloc(strlen(omninames_ior) + 2);
  strcpy(s, omninames_ior);
  strcat(s, "0");
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_INVALID);
  s[strlen(s) - 1] = 'z';
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_INVALID);
  s[strlen(s) - 1] = 0;
  s[10] = 'G';
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_E_INVALID);
  free(s);
  ck_assert_mem_eq(&ior, &before, sizeof ior);
  ck_assert_uint_eq(cdr_arena_used(&a), 0); /* checked before allocating */
  /* Bad byte-order octet: MARSHAL, not BAD_PARAM. */
  ck_assert_int_eq(iiop_ior_from_string("IOR:02000000010000000000000000000000", &a, &ior),
                   CDR_E_VALUE);
  /* Truncated: MARSHAL. */
  ck_assert_int_eq(iiop_ior_from_string("IOR:01000000010000", &a, &ior), CDR_E_SHORT);
  ck_assert_int_eq(iiop_ior_from_string("IOR:0100000001000000", &a, &ior), CDR_E_LENGTH);
  ck_assert_mem_eq(&ior, &before, sizeof ior);
  /* Upper-case digits and a lower-case prefix are accepted. */
  ck_assert_int_eq(iiop_ior_from_string("ior:01000000010000000000000000000000", &a, &ior), CDR_OK);
  ck_assert_int_eq(iiop_ior_from_string("IOR:0000000000000001000000000000000A", &a, &ior),
                   CDR_E_LENGTH); /* 10 profiles, no octets */
  /* Argument checks. */
  ck_assert_int_eq(iiop_ior_from_string(NULL, &a, &ior), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, NULL, &ior), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, &a, NULL), CDR_E_INVALID);
  char *out = (char *)"untouched";
  ck_assert_int_eq(iiop_ior_to_string(&ior, 2, &a, &out), CDR_E_INVALID);
  ck_assert_str_eq(out, "untouched");
  cdr_arena_free(&a);
}
END_TEST

START_TEST(test_c20_corbaloc)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_corbaloc u;

  /* The long numeric component is a host name, nothing overflows. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc:iiop:1.2@1234567890123.1.1.1:2809/NameService",
                                       &a, &u),
                   CDR_OK);
  ck_assert_uint_eq(u.naddrs, 1);
  ck_assert_uint_eq(u.addrs[0].major, 1);
  ck_assert_uint_eq(u.addrs[0].minor, 2);
  ck_assert_str_eq(u.addrs[0].host, "1234567890123.1.1.1");
  ck_assert_uint_eq(u.addrs[0].port, 2809);
  ck_assert_uint_eq(u.key_len, 11);
  ck_assert_mem_eq(u.key, "NameService", 11);

  /* Bracketed IPv6, stored without the brackets. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc:iiop:[::1]:2809/x", &a, &u), CDR_OK);
  ck_assert_uint_eq(u.naddrs, 1);
  ck_assert_str_eq(u.addrs[0].host, "::1");
  ck_assert_uint_eq(u.addrs[0].port, 2809);
  ck_assert_uint_eq(u.addrs[0].major, 1);
  ck_assert_uint_eq(u.addrs[0].minor, 0);
  ck_assert_uint_eq(u.key_len, 1);
  ck_assert_mem_eq(u.key, "x", 1);

  /* Defaults: ":" means iiop, version 1.0, port 2809. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::host.example/Echo", &a, &u), CDR_OK);
  ck_assert_uint_eq(u.naddrs, 1);
  ck_assert_str_eq(u.addrs[0].host, "host.example");
  ck_assert_uint_eq(u.addrs[0].port, 2809);
  ck_assert_uint_eq(u.addrs[0].major, 1);
  ck_assert_uint_eq(u.addrs[0].minor, 0);
  ck_assert_mem_eq(u.key, "Echo", 4);

  /* Several addresses, IPv6 with a zone, percent-escaped key. */
  ck_assert_int_eq(iiop_corbaloc_parse("CORBALOC:iiop:1.1@a.example:1000,:b,iiop:1.2@"
                                       "[fe80::1%25eth0]:3,:[2001:db8::7]/a%2Fb%00c%7e/",
                                       &a, &u),
                   CDR_OK);
  ck_assert_uint_eq(u.naddrs, 4);
  ck_assert_str_eq(u.addrs[0].host, "a.example");
  ck_assert_uint_eq(u.addrs[0].minor, 1);
  ck_assert_uint_eq(u.addrs[0].port, 1000);
  ck_assert_str_eq(u.addrs[1].host, "b");
  ck_assert_uint_eq(u.addrs[1].minor, 0);
  ck_assert_uint_eq(u.addrs[1].port, 2809);
  ck_assert_str_eq(u.addrs[2].host, "fe80::1%eth0");
  ck_assert_uint_eq(u.addrs[2].minor, 2);
  ck_assert_uint_eq(u.addrs[2].port, 3);
  ck_assert_str_eq(u.addrs[3].host, "2001:db8::7");
  ck_assert_uint_eq(u.addrs[3].port, 2809);
  ck_assert_uint_eq(u.key_len, 7);
  ck_assert_mem_eq(u.key, "a/b\0c~/", 7);

  /* Port bounds, an empty key. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::h:65535/", &a, &u), CDR_OK);
  ck_assert_uint_eq(u.addrs[0].port, 65535);
  ck_assert_uint_eq(u.key_len, 0);
  ck_assert_ptr_nonnull(u.key);
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::h:0/k", &a, &u), CDR_OK);
  ck_assert_uint_eq(u.addrs[0].port, 0);

  /* What the spec leaves out and omniORB reads so: an empty address is
   * localhost port 2809 version 1.0 (the spec's optional iiop_addr), an
   * empty port the default 2809; a version 1.3 or later is kept (the
   * client speaks 1.2). */
  static const struct {
    const char *url, *host;
    unsigned major, minor, tls, port;
  } fill[] = {
    { "corbaloc:iiop:/x", "localhost", 1, 0, 0, 2809 },
    { "corbaloc::/x", "localhost", 1, 0, 0, 2809 },
    { "corbaloc:iiop:host:/x", "host", 1, 0, 0, 2809 },
    { "corbaloc:iiop:1.2@h:/x", "h", 1, 2, 0, 2809 },
    { "corbaloc:iiop:[::1]:/x", "::1", 1, 0, 0, 2809 },
    { "corbaloc:iiop:1.3@host/x", "host", 1, 3, 0, 2809 },
    { "corbaloc:iiop:1.255@host:7/x", "host", 1, 255, 0, 7 },
    /* omniORB's ssliop: the version read, then ignored (always 1.2) */
    { "corbaloc:ssliop:h:1234/x", "h", 1, 2, 1, 1234 },
    { "corbaloc:ssliop:1.0@h/x", "h", 1, 2, 1, 2809 },
    { "corbaloc:ssliop:2.0@h:/x", "h", 1, 2, 1, 2809 },
    { "corbaloc:ssliop:/x", "localhost", 1, 2, 1, 2809 },
    { "corbaloc:ssliop:[::1]:5/x", "::1", 1, 2, 1, 5 },
  };
  for (size_t k = 0; k < sizeof fill / sizeof fill[0]; k++) {
    ck_assert_msg(iiop_corbaloc_parse(fill[k].url, &a, &u) == CDR_OK, "%s", fill[k].url);
    ck_assert_uint_eq(u.naddrs, 1);
    ck_assert_str_eq(u.addrs[0].host, fill[k].host);
    ck_assert_msg(u.addrs[0].major == fill[k].major && u.addrs[0].minor == fill[k].minor
                    && u.addrs[0].tls == fill[k].tls && u.addrs[0].port == fill[k].port,
                  "%s: %u.%u tls %u port %u", fill[k].url, u.addrs[0].major, u.addrs[0].minor,
                  u.addrs[0].tls, u.addrs[0].port);
    ck_assert_uint_eq(u.key_len, 1);
    ck_assert_mem_eq(u.key, "x", 1);
  }
  /* an empty first address beside a second one */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc:iiop:,ssliop:h2:5/x", &a, &u), CDR_OK);
  ck_assert_uint_eq(u.naddrs, 2);
  ck_assert_str_eq(u.addrs[0].host, "localhost");
  ck_assert_uint_eq(u.addrs[0].tls, 0);
  ck_assert_str_eq(u.addrs[1].host, "h2");
  ck_assert_uint_eq(u.addrs[1].tls, 1);
  ck_assert_uint_eq(u.addrs[1].port, 5);

  memset(&u, 0x33, sizeof u);
  iiop_corbaloc before = u;
  static const char *const bad[] = {
    "corbaloc:iiop:1.2@h:70000/x",           /* port out of range */
    "corbaloc:iiop:h:65536/x",
    "corbaloc:iiop:h:99999999999999999999999/x",
    "corbaloc:iiop:h:12a/x",
    "corbaloc:iiop:h:-1/x",
    "corbaloc:iiop::2809/x",                 /* a port without its host */
    "corbaloc:iiop::/x",
    "corbaloc:iiop:1.2@:2809/x",
    "corbaloc:iiop:[]:2809/x",
    "corbaloc:iiop:h,/x",                    /* empty second address */
    "corbaloc:iiop:[::1/x",                  /* no closing bracket */
    "corbaloc:iiop:[zz::1]/x",
    "corbaloc:iiop:[1.2.3.4]/x",
    "corbaloc:iiop:[::1]x/x",
    "corbaloc:iiop:[fe80::1%25]/x",
    "corbaloc:iiop:ho st/x",                 /* bad host characters */
    "corbaloc:iiop:h%41/x",
    "corbaloc:iiop:2.0@h/x",                 /* bad versions */
    "corbaloc:iiop:1@h/x",
    "corbaloc:iiop:1.x@h/x",
    "corbaloc:iiop:1.256@h/x",
    "corbaloc:iiop:.2@h/x",
    "corbaloc:iiop:1.2@/x",
    "corbaloc:iiop:h/a%4",                   /* bad escapes */
    "corbaloc:iiop:h/a%",
    "corbaloc:iiop:h/a%zz",
    "corbaloc:iiop:h/a b",                   /* unescaped space */
    "corbaloc:iiop:h",                       /* no key separator */
    "corbaloc:http:h/x",                     /* unknown protocol */
    "corbaloc:IIOP:h/x",                     /* protocols in lower case only */
    "corbaloc:Iiop:h/x",
    "corbaloc:SSLIOP:h/x",
    "corbaloc:ssliop:1.256@h/x",
    "corbaloc:ssliop::5/x",
    "corbaloc:h/x",
    "corbaname::h/x",
    "iiop:h/x",
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    ck_assert_msg(iiop_corbaloc_parse(bad[k], &a, &u) == CDR_E_INVALID, "%s", bad[k]);
    ck_assert_mem_eq(&u, &before, sizeof u);
  }
  /* A purely numeric host is still a host name. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::2809/x", &a, &u), CDR_OK);
  ck_assert_str_eq(u.addrs[0].host, "2809");
  ck_assert_uint_eq(u.addrs[0].port, 2809);
  /* A 256-octet host name is too long; 255 is fine. */
  char url[400];
  memset(url, 0, sizeof url);
  strcpy(url, "corbaloc::");
  memset(url + 10, 'a', 255);
  strcat(url, "/k");
  ck_assert_int_eq(iiop_corbaloc_parse(url, &a, &u), CDR_OK);
  ck_assert_uint_eq(strlen(u.addrs[0].host), 255);
  memset(url + 10, 'a', 256);
  strcpy(url + 266, "/k");
  ck_assert_int_eq(iiop_corbaloc_parse(url, &a, &u), CDR_E_INVALID);
  /* rir names the local ORB, not an address. */
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc:rir:/NameService", &a, &u), CDR_E_UNSUPPORTED);
  ck_assert_int_eq(iiop_corbaloc_parse(NULL, &a, &u), CDR_E_INVALID);
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::h/k", NULL, &u), CDR_E_INVALID);
  ck_assert_int_eq(iiop_corbaloc_parse("corbaloc::h/k", &a, NULL), CDR_E_INVALID);
  cdr_arena_free(&a);
}
END_TEST

/* The *_why parsers: the step that refused each string, as omniORB reads
 * it (left to right; its minors in iiop/ior.h), with the return codes of
 * the plain parsers unchanged. */
START_TEST(test_url_stages)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  static const struct {
    const char *url;
    int rc;
    iiop_url_stage stage;
  } loc[] = {
    { "corbaloc::h/k", CDR_OK, IIOP_URL_OK },
    { "corbaloc:rir:/k", CDR_E_UNSUPPORTED, IIOP_URL_OK },
    { "http://h/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:foo:x", CDR_E_INVALID, IIOP_URL_SCHEME },   /* before the missing key */
    { "corbaloc::h,/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:ssliop:h/k", CDR_OK, IIOP_URL_OK },
    { "CORBALOC::h/k", CDR_OK, IIOP_URL_OK },
    { "corbaloc:IIOP:h/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:SSLIOP:h/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc:RIR:/k", CDR_E_INVALID, IIOP_URL_SCHEME },
    { "corbaloc::h:65536/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::h:99999999999999999999/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::h:/k", CDR_OK, IIOP_URL_OK },
    { "corbaloc:ssliop:h:70000/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::[::1/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::[zz::1]/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::ho st/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::h,:h:70000/k", CDR_E_INVALID, IIOP_URL_ADDRESS },
    { "corbaloc::1@h/k", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::1.256@h/k", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::1.2@:2809/k", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::[]/k", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::/k", CDR_OK, IIOP_URL_OK },
    { "corbaloc:ssliop:x@h/k", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::1.3@h/k", CDR_OK, IIOP_URL_OK },
    { "corbaloc::h/a#b", CDR_E_INVALID, IIOP_URL_SYNTAX },
    { "corbaloc::h", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h:12a/k", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h:-1/k", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::[::1]x/k", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h#x/k", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h/a%zz", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h/a%4", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h/a b", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h/a|b", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h/a\x80", CDR_E_INVALID, IIOP_URL_KEY },
    { "corbaloc::h,rir:/k", CDR_E_UNSUPPORTED, IIOP_URL_KEY },
    { "corbaloc::2.0@h/k", CDR_E_INVALID, IIOP_URL_VERSION },
  };
  for (size_t k = 0; k < sizeof loc / sizeof *loc; k++) {
    iiop_corbaloc u;
    iiop_url_error why = { (iiop_url_stage)99, 99 };
    int rc = iiop_corbaloc_parse_why(loc[k].url, &a, &u, &why);
    ck_assert_msg(rc == loc[k].rc && why.stage == loc[k].stage, "%s: rc %d stage %d", loc[k].url,
                  rc, (int)why.stage);
    ck_assert_int_eq(iiop_corbaloc_parse(loc[k].url, &a, &u), loc[k].rc);
  }
  /* the parsed result is the plain parser's */
  iiop_corbaloc u;
  iiop_url_error why;
  ck_assert_int_eq(iiop_corbaloc_parse_why("corbaloc:iiop:1.2@h.example:1000/a%2Fb", &a, &u, NULL),
                   CDR_OK);
  ck_assert_str_eq(u.addrs[0].host, "h.example");
  ck_assert_uint_eq(u.addrs[0].port, 1000);
  ck_assert_uint_eq(u.key_len, 3);
  ck_assert(!memcmp(u.key, "a/b", 3));
  /* omniORB's key characters, unescaped */
  ck_assert_int_eq(iiop_corbaloc_parse_why("corbaloc::h/;/?:@&=+$,-_.!~*()'", &a, &u, &why),
                   CDR_OK);
  ck_assert_uint_eq(u.key_len, 19);
  ck_assert_int_eq(why.stage, IIOP_URL_OK);

  static const struct {
    const char *s;
    int rc;
    iiop_url_stage stage;
    int code;
  } ior[] = {
    { "IOR:00000000000000010000000000000000", CDR_OK, IIOP_URL_OK, CDR_OK },
    { "ior:zz", CDR_E_INVALID, IIOP_URL_HEX, CDR_E_INVALID },
    { "XOR:00", CDR_E_INVALID, IIOP_URL_SCHEME, CDR_E_INVALID },
    { "IOR:0z", CDR_E_INVALID, IIOP_URL_HEX, CDR_E_INVALID },
    { "IOR:", CDR_E_INVALID, IIOP_URL_DECODE, CDR_E_SHORT },      /* no octets */
    { "IOR:z", CDR_E_INVALID, IIOP_URL_DECODE, CDR_E_SHORT },     /* no whole pair */
    { "IOR:0", CDR_E_INVALID, IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:000", CDR_E_INVALID, IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:00", CDR_E_SHORT, IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:0100000001000000", CDR_E_LENGTH, IIOP_URL_DECODE, CDR_E_LENGTH },
    { "IOR:0100000001000000410000000000000000", CDR_E_STRING, IIOP_URL_DECODE, CDR_E_STRING },
    /* an empty type ID, as omniORB reads it ("") and then what follows */
    { "IOR:0000000000000000", CDR_E_STRING, IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:00000000000000000000000000000000", CDR_E_STRING, IIOP_URL_DECODE, CDR_E_STRING },
    /* byte order 2 read as little-endian: the type ID's length 0x01000000 */
    { "IOR:020000000000000100000000000000000000", CDR_E_VALUE, IIOP_URL_DECODE, CDR_E_LENGTH },
    { "IOR:ffffffff", CDR_E_VALUE, IIOP_URL_DECODE, CDR_E_SHORT },
    /* a profile count refused at 8 octets a profile; omniORB reads on */
    { "IOR:0000000000000001000000000000000100000000", CDR_E_LENGTH, IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:00000000000000010000000000000002000000000000000000000000", CDR_E_LENGTH,
      IIOP_URL_DECODE, CDR_E_SHORT },
    { "IOR:00000000000000010000000000000001", CDR_E_LENGTH, IIOP_URL_DECODE, CDR_E_LENGTH },
    /* an odd digit (or stray character) after octets that decode */
    { "IOR:000000000000000100000000000000000", CDR_E_INVALID, IIOP_URL_HEX, CDR_E_INVALID },
    { "IOR:00000000000000010000000000000000x", CDR_E_INVALID, IIOP_URL_HEX, CDR_E_INVALID },
    /* ... or do not */
    { "IOR:0000000000000001000000000000000", CDR_E_INVALID, IIOP_URL_DECODE, CDR_E_SHORT },
  };
  for (size_t k = 0; k < sizeof ior / sizeof *ior; k++) {
    iiop_ior v;
    iiop_url_error w = { (iiop_url_stage)99, 99 };
    int rc = iiop_ior_from_string_why(ior[k].s, &a, &v, &w);
    ck_assert_msg(rc == ior[k].rc && w.stage == ior[k].stage && w.code == ior[k].code,
                  "%s: rc %d stage %d code %d", ior[k].s, rc, (int)w.stage, w.code);
    ck_assert_int_eq(iiop_ior_from_string(ior[k].s, &a, &v), ior[k].rc);
  }
  iiop_ior v;
  ck_assert_int_eq(iiop_ior_from_string_why(NULL, &a, &v, &why), CDR_E_INVALID);
  ck_assert_int_eq(why.stage, IIOP_URL_OK);

  static const struct {
    const char *url;
    iiop_url_stage stage;
  } cn[] = {
    { "corbaname:", IIOP_URL_SCHEME },
    { "corbaname:#a", IIOP_URL_SCHEME },
    { "corbaloc::h/k", IIOP_URL_SCHEME },
    { "corbaname::h#", IIOP_URL_SYNTAX },
    { "corbaname::h#a//b", IIOP_URL_SYNTAX },
    { "corbaname::h#a%zz", IIOP_URL_KEY },
    /* the addresses and key are read first */
    { "corbaname:foo:h#a%zz", IIOP_URL_SCHEME },
    { "corbaname::h:99999#", IIOP_URL_ADDRESS },
    { "corbaname::h/%zz#a//b", IIOP_URL_KEY },
    { "corbaname:rir:#", IIOP_URL_SYNTAX },
  };
  for (size_t k = 0; k < sizeof cn / sizeof *cn; k++) {
    iiop_corbaname n;
    iiop_url_error w = { (iiop_url_stage)99, 99 };
    int rc = iiop_corbaname_parse_why(cn[k].url, &a, &n, &w);
    ck_assert_msg(rc == CDR_E_INVALID && w.stage == cn[k].stage, "%s: rc %d stage %d", cn[k].url,
                  rc, (int)w.stage);
    ck_assert_int_eq(iiop_corbaname_parse(cn[k].url, &a, &n), CDR_E_INVALID);
  }
  /* an accepted URL's addresses are not checked here */
  iiop_corbaname n;
  ck_assert_int_eq(iiop_corbaname_parse_why("corbaname::h:99999#a", &a, &n, &why), CDR_OK);
  ck_assert_int_eq(why.stage, IIOP_URL_OK);
  ck_assert_str_eq(n.base, "corbaloc::h:99999/NameService");
  cdr_arena_free(&a);
}
END_TEST

START_TEST(test_c20_ior_hosts_and_ports)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  /* A profile host "[fe80::1]" is kept as given (documented policy). */
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, "[fe80::1]", 65535, NULL, 0, NULL, 0, &ior),
                   CDR_OK);
  char *s;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_OK);
  iiop_ior back;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &back), CDR_OK);
  ck_assert_str_eq(back.profiles[0].host, "[fe80::1]");
  ck_assert_uint_eq(back.profiles[0].port, 65535);
  ck_assert_uint_eq(back.profiles[0].key_len, 0);
  /* A numeric-looking host in a profile is just a string. */
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, "1234567890123.1.1.1", 2809,
                                 (const uint8_t *)"k", 1, NULL, 0, &ior),
                   CDR_OK);
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_LITTLE_ENDIAN, &a, &s), CDR_OK);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &back), CDR_OK);
  ck_assert_str_eq(back.profiles[0].host, "1234567890123.1.1.1");
  /* iiop_ior_make rejects what it cannot encode. */
  iiop_ior keep;
  memset(&keep, 0x11, sizeof keep);
  iiop_ior before = keep;
  iiop_component c = { 99, 0, NULL };
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, "", 1, NULL, 0, NULL, 0, &keep),
                   CDR_E_INVALID); /* empty host */
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, NULL, 1, NULL, 0, NULL, 0, &keep),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_make(&a, NULL, 1, 2, "h", 1, NULL, 0, NULL, 0, &keep), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 2, 0, "h", 1, NULL, 0, NULL, 0, &keep),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 3, "h", 1, NULL, 0, NULL, 0, &keep),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 0, "h", 1, NULL, 0, &c, 1, &keep),
                   CDR_E_INVALID); /* components need 1.1 */
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, "h", 1, NULL, 3, NULL, 0, &keep),
                   CDR_E_INVALID);
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 2, "h", 1, NULL, 0, NULL, 2, &keep),
                   CDR_E_INVALID);
  ck_assert_mem_eq(&keep, &before, sizeof keep);
  /* Writing a profile that cannot be encoded. */
  ck_assert_int_eq(iiop_ior_make(&a, "IDL:X:1.0", 1, 1, "h", 1, NULL, 0, &c, 1, &ior), CDR_OK);
  ior.profiles[0].minor = 0; /* components in 1.0 */
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_E_INVALID);
  ior.profiles[0].minor = 1;
  ior.profiles[0].host = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_E_INVALID);
  ior.profiles[0].host = "h";
  ior.profiles[0].iiop_ok = 0;
  ior.profiles[0].len = 4; /* raw, but no data */
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_E_INVALID);
  ior.nprofiles = 2;
  ior.profiles = NULL;
  ck_assert_int_eq(iiop_ior_to_string(&ior, CDR_BIG_ENDIAN, &a, &s), CDR_E_INVALID);
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- components */

START_TEST(test_component_decoders)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  static tu_buf e;
  /* SSL, standard layout in both orders. */
  for (int le = 0; le <= 1; le++) {
    enc_ssl(&e, (uint8_t)le, 0x0066, 0x0040, 443);
    ck_assert_uint_eq(e.n, 8);
    iiop_component c = { IIOP_TAG_SSL_SEC_TRANS, (uint32_t)e.n, e.b };
    uint16_t s = 0, r = 0, p = 0;
    ck_assert_int_eq(iiop_ssl_component_decode(&c, &s, &r, &p), CDR_OK);
    ck_assert_uint_eq(s, 0x66);
    ck_assert_uint_eq(r, 0x40);
    ck_assert_uint_eq(p, 443);
    iiop_component made;
    ck_assert_int_eq(iiop_ssl_component_encode(0x66, 0x40, 443, le, &a, &made), CDR_OK);
    TU_CTX("SSL component, order %d", le);
    TU_ASSERT_BYTES(made.data, made.len, e.b, e.n);
  }
  /* SSL, VisiBroker's layout (ulong, ulong, ushort), as omniORB reads it. */
  encap_start(&e, 0);
  tu_num(&e, 0, 0x66, 4, 0);
  tu_num(&e, 0, 0x02, 4, 0);
  tu_num(&e, 0, 8443, 2, 0);
  iiop_component vb = { IIOP_TAG_SSL_SEC_TRANS, (uint32_t)e.n, e.b };
  uint16_t s = 0, r = 0, p = 0;
  ck_assert_int_eq(iiop_ssl_component_decode(&vb, &s, &r, &p), CDR_OK);
  ck_assert_uint_eq(s, 0x66);
  ck_assert_uint_eq(r, 0x02);
  ck_assert_uint_eq(p, 8443);
  tu_store(e.b + 4, 0x10000, 4, 0);
  ck_assert_int_eq(iiop_ssl_component_decode(&vb, &s, &r, &p), CDR_E_VALUE);
  ck_assert_uint_eq(p, 8443); /* untouched */
  /* Short SSL component. */
  iiop_component shortc = { IIOP_TAG_SSL_SEC_TRANS, 5, e.b };
  ck_assert_int_eq(iiop_ssl_component_decode(&shortc, &s, &r, &p), CDR_E_SHORT);
  /* Alternate address. */
  encap_start(&e, 1);
  put_str(&e, "backup.example", 1);
  tu_num(&e, 0, 2810, 2, 1);
  iiop_component alt = { IIOP_TAG_ALTERNATE_IIOP_ADDRESS, (uint32_t)e.n, e.b };
  const char *h = NULL;
  uint16_t port = 0;
  ck_assert_int_eq(iiop_alternate_address_decode(&alt, &h, &port), CDR_OK);
  ck_assert_str_eq(h, "backup.example");
  ck_assert_uint_eq(port, 2810);
  /* Wrong tags, NULLs. */
  uint32_t orb;
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_orb_type_decode(&alt, &orb), CDR_E_INVALID);
  ck_assert_int_eq(iiop_codeset_info_decode(&alt, &a, &cs), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ssl_component_decode(&alt, &s, &r, &p), CDR_E_INVALID);
  ck_assert_int_eq(iiop_alternate_address_decode(&vb, &h, &port), CDR_E_INVALID);
  ck_assert_int_eq(iiop_orb_type_decode(NULL, &orb), CDR_E_INVALID);
  ck_assert_int_eq(iiop_codeset_info_decode(NULL, &a, &cs), CDR_E_INVALID);
  /* Bad byte-order octet, empty data. */
  static const uint8_t bad[8] = { 2, 0, 0, 0, 0, 0, 0, 1 };
  iiop_component bo = { IIOP_TAG_ORB_TYPE, 8, bad };
  ck_assert_int_eq(iiop_orb_type_decode(&bo, &orb), CDR_E_VALUE);
  iiop_component empty = { IIOP_TAG_CODE_SETS, 0, NULL };
  ck_assert_int_eq(iiop_codeset_info_decode(&empty, &a, &cs), CDR_E_SHORT);
  /* Code sets encode/decode, empty conversion lists. */
  iiop_codeset_info in = { { CDR_CS_UTF8, 0, NULL }, { 0, 0, NULL } };
  iiop_component c;
  ck_assert_int_eq(iiop_codeset_info_encode(&in, CDR_BIG_ENDIAN, &a, &c), CDR_OK);
  ck_assert_uint_eq(c.tag, IIOP_TAG_CODE_SETS);
  ck_assert_uint_eq(c.len, 20);
  ck_assert_int_eq(iiop_codeset_info_decode(&c, &a, &cs), CDR_OK);
  ck_assert_uint_eq(cs.for_char.native, CDR_CS_UTF8);
  ck_assert_uint_eq(cs.for_char.nconv, 0);
  ck_assert_uint_eq(cs.for_wchar.native, 0);
  ck_assert_int_eq(iiop_codeset_info_encode(&in, 3, &a, &c), CDR_E_INVALID);
  in.for_char.nconv = 2;
  ck_assert_int_eq(iiop_codeset_info_encode(&in, 0, &a, &c), CDR_E_INVALID);
  ck_assert_int_eq(iiop_orb_type_encode(1, 0, NULL, &c), CDR_E_INVALID);
  ck_assert_int_eq(iiop_ssl_component_encode(1, 2, 3, -1, &a, &c), CDR_E_INVALID);
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- negotiation */

START_TEST(test_codeset_negotiation)
{
  /* omniORB's server component. */
  iiop_codeset_component omni_c = { CDR_CS_ISO8859_1, 1, omni_cconv };
  iiop_codeset_component omni_w = { CDR_CS_UTF16, 1, omni_wconv };
  static const uint32_t to_latin1[] = { CDR_CS_ISO8859_1 };
  static const uint32_t to_utf8[] = { CDR_CS_UTF8 };
  static const uint32_t ebcdic_conv[] = { 0x10020025u, 0x100201f8u };

  /* 1. Natives equal. */
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_ISO8859_1, to_utf8, 1, &omni_c, 0), CDR_CS_ISO8859_1);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF16, NULL, 0, &omni_w, 1), CDR_CS_UTF16);
  /* 2. The client converts to the server's native. */
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, to_latin1, 1, &omni_c, 0), CDR_CS_ISO8859_1);
  /* 3. The server converts from the client's native. */
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, NULL, 0, &omni_c, 0), CDR_CS_UTF8);
  /* 2 before 3: both could convert, the server's native wins. */
  iiop_codeset_component both = { CDR_CS_ISO8859_1, 1, to_utf8 };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, to_latin1, 1, &both, 0), CDR_CS_ISO8859_1);
  /* 4. A common conversion code set: the server's first one the client has. */
  static const uint32_t sconv[] = { 0x00010020u, 0x10020025u, 0x100201f8u };
  iiop_codeset_component s4 = { 0x00030010u, 3, sconv };
  static const uint32_t cconv[] = { 0x100201f8u, 0x10020025u };
  ck_assert_uint_eq(iiop_codeset_negotiate(0x00030011u, cconv, 2, &s4, 0), 0x10020025u);
  /* 5. Fallback: no conversion in common, compatible natives. */
  iiop_codeset_component s5 = { CDR_CS_UTF8, 0, NULL };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_ISO8859_1, NULL, 0, &s5, 0), CDR_CS_UTF8);
  iiop_codeset_component s5w = { CDR_CS_UTF16, 0, NULL };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UCS4, NULL, 0, &s5w, 1), CDR_CS_UTF16);
  iiop_codeset_component s5w2 = { CDR_CS_UCS2, 1, ebcdic_conv };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UCS4, to_utf8, 1, &s5w2, 1), CDR_CS_UTF16);
  /* 6. Incompatible: EBCDIC against omniORB. */
  ck_assert_uint_eq(iiop_codeset_negotiate(0x10020025u, NULL, 0, &omni_c, 0), 0);
  ck_assert_uint_eq(iiop_codeset_negotiate(0x10020025u, ebcdic_conv, 2, &omni_c, 0), 0);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, NULL, 0, &s4, 0), 0);
  /* No component (or an empty one): ISO-8859-1 for char, no wchar. */
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, to_latin1, 1, NULL, 0), CDR_CS_ISO8859_1);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF16, NULL, 0, NULL, 1), 0);
  iiop_codeset_component none = { 0, 0, NULL };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF16, NULL, 0, &none, 1), 0);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, NULL, 0, &none, 0), CDR_CS_ISO8859_1);
  /* A server with only conversion code sets (native unspecified). */
  iiop_codeset_component conv_only = { 0, 1, to_utf8 };
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, NULL, 0, &conv_only, 0), CDR_CS_UTF8);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_ISO8859_1, to_utf8, 1, &conv_only, 0), CDR_CS_UTF8);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_ISO8859_1, NULL, 0, &conv_only, 0), 0);
  /* A client without a native code set gets nothing. */
  ck_assert_uint_eq(iiop_codeset_negotiate(0, to_utf8, 1, &omni_c, 0), 0);

  /* Against the real omniORB IOR. */
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, &a, &ior), CDR_OK);
  iiop_codeset_info cs;
  ck_assert_int_eq(iiop_codeset_info_decode(
                     iiop_profile_component(iiop_ior_iiop_profile(&ior), IIOP_TAG_CODE_SETS), &a, &cs),
                   CDR_OK);
  /* A UTF-8 client with no conversions: omniORB converts (TCS-C UTF-8). */
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF8, NULL, 0, &cs.for_char, 0), CDR_CS_UTF8);
  ck_assert_uint_eq(iiop_codeset_negotiate(CDR_CS_UTF16, NULL, 0, &cs.for_wchar, 1), CDR_CS_UTF16);
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- robustness */

static void decode_bytes(const uint8_t *p, size_t n, int *rc_out)
{
  uint8_t *copy = tu_dup(p, n);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in in;
  int rc = cdr_in_init_encap(&in, copy, n, NULL);
  if (rc == CDR_OK) {
    cdr_in_set_arena(&in, &a);
    iiop_ior ior;
    rc = iiop_ior_read(&in, &ior);
    if (rc == CDR_OK) {
      /* Whatever decodes re-encodes and decodes again. */
      char *s = NULL;
      ck_assert_int_eq(iiop_ior_to_string(&ior, copy[0] & 1, &a, &s), CDR_OK);
      iiop_ior j;
      ck_assert_int_eq(iiop_ior_from_string(s, &a, &j), CDR_OK);
      ck_assert_uint_eq(j.nprofiles, ior.nprofiles);
      ck_assert_str_eq(j.type_id, ior.type_id);
    }
  }
  cdr_in_close(&in);
  cdr_arena_free(&a);
  free(copy);
  *rc_out = rc;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
  size_t n = strlen(s) / 2;
  ck_assert_uint_le(n, cap);
  for (size_t k = 0; k < n; k++) {
    unsigned v;
    ck_assert_int_eq(sscanf(s + 2 * k, "%2x", &v), 1);
    out[k] = (uint8_t)v;
  }
  return n;
}

START_TEST(test_truncation_and_corruption)
{
  static uint8_t b[1024];
  size_t n = unhex(omninames_ior + 4, b, sizeof b);
  int rc;
  for (size_t k = 0; k < n; k++) {
    decode_bytes(b, k, &rc);
    ck_assert_msg(rc < 0, "prefix %zu decoded", k);
  }
  decode_bytes(b, n, &rc);
  ck_assert_int_eq(rc, CDR_OK);
  tu_rng r = { 20260101 };
  for (int it = 0; it < 3000; it++) {
    uint8_t m[1024];
    memcpy(m, b, n);
    int flips = 1 + (int)tu_below(&r, 3);
    for (int f = 0; f < flips; f++)
      m[tu_below(&r, n)] ^= (uint8_t)(1 + tu_below(&r, 255));
    decode_bytes(m, n, &rc);
  }
}
END_TEST

static int fail_run(cdr_mem_counter *c, iiop_ior *ior)
{
  cdr_arena a;
  cdr_arena_init(&a, &c->alloc);
  int rc = iiop_ior_from_string(omninames_ior, &a, ior);
  cdr_arena_free(&a);
  return rc;
}

START_TEST(test_allocation_failures)
{
  cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  iiop_ior ior;
  ck_assert_int_eq(fail_run(&c, &ior), CDR_OK);
  uint64_t need = c.attempts;
  ck_assert_uint_ge(need, 1);
  ck_assert_int_eq(c.live, 0);
  for (uint64_t k = 1; k <= need; k++) {
    cdr_mem_counter_init(&c, NULL);
    c.fail_at = k;
    memset(&ior, 0x3C, sizeof ior);
    iiop_ior before = ior;
    ck_assert_int_eq(fail_run(&c, &ior), CDR_E_NOMEM);
    ck_assert_mem_eq(&ior, &before, sizeof ior);
    ck_assert_int_eq(c.live, 0);
  }
  /* An arena maximum works the same way. */
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_arena_set_max(&a, 200);
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, &a, &ior), CDR_E_NOMEM);
  cdr_arena_free(&a);
}
END_TEST

/* omniNames' IOR as an any's object reference (cdr_ior) and back: the same
 * fields, the same octets; inside an any it goes as the IOR's octets. */
START_TEST(test_ior_any)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior, back;
  ck_assert_int_eq(iiop_ior_from_string(omninames_ior, &a, &ior), CDR_OK);
  cdr_ior c;
  ck_assert_int_eq(iiop_ior_to_cdr(&ior, &a, &c), CDR_OK);
  ck_assert_str_eq(c.type_id, "IDL:omg.org/CosNaming/NamingContextExt:1.0");
  ck_assert_uint_eq(c.profiles._length, 1);
  const cdr_tagged_profile *tp = c.profiles._buffer;
  ck_assert_uint_eq(tp->tag, IIOP_TAG_INTERNET_IOP);
  TU_CTX("profile body as the any's octets");
  TU_ASSERT_BYTES(tp->profile_data._buffer, tp->profile_data._length, ior.profiles[0].data,
                  ior.profiles[0].len);
  ck_assert_int_eq(iiop_ior_from_cdr(&c, &a, &back), CDR_OK);
  ck_assert_str_eq(back.type_id, ior.type_id);
  ck_assert_str_eq(back.profiles[0].host, "127.0.0.1");
  ck_assert_uint_eq(back.profiles[0].port, 12345);
  /* In an any: the TypeCode, then exactly what iiop_ior_write() writes. */
  cdr_any any = { cdr_tc_Object, &(cdr_ior *){ &c }, 0, NULL };
  cdr_out o1, o2;
  cdr_out_init(&o1, NULL);
  cdr_out_init(&o2, NULL);
  ck_assert_int_eq(cdr_put_any(&o1, &any), CDR_OK);
  ck_assert_int_eq(cdr_put_typecode(&o2, cdr_tc_Object), CDR_OK);
  ck_assert_int_eq(iiop_ior_write(&o2, &ior), CDR_OK);
  TU_CTX("an object reference in an any");
  TU_ASSERT_BYTES(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
  cdr_out_close(&o1);
  cdr_out_close(&o2);
  /* Nil both ways; a cdr_ior without a type_id is refused. */
  iiop_ior nil = { 0 };
  ck_assert_int_eq(iiop_ior_to_cdr(&nil, &a, &c), CDR_OK);
  ck_assert_str_eq(c.type_id, "");
  ck_assert_uint_eq(c.profiles._length, 0);
  ck_assert_int_eq(iiop_ior_from_cdr(&c, &a, &back), CDR_OK);
  ck_assert_uint_eq(back.nprofiles, 0);
  c.type_id = NULL;
  ck_assert_int_eq(iiop_ior_from_cdr(&c, &a, &back), CDR_E_INVALID);
  cdr_arena_free(&a);
}
END_TEST

static Suite *ior_suite(void)
{
  Suite *s = suite_create("ior");
  TCase *tc = tcase_create("ior");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_omninames_ior);
  tcase_add_test(tc, test_genior_iors);
  tcase_add_loop_test(tc, test_byte_order_combinations, 0, 8);
  tcase_add_loop_test(tc, test_make_exact_octets, 0, 4);
  tcase_add_test(tc, test_versions_and_nil);
  tcase_add_test(tc, test_c08_nested_byte_orders);
  tcase_add_test(tc, test_c08_variants);
  tcase_add_test(tc, test_c01_huge_type_id);
  tcase_add_test(tc, test_bogus_counts);
  tcase_add_test(tc, test_type_id_in_every_code_set_pairing);
  tcase_add_test(tc, test_c20_stringified_ior_syntax);
  tcase_add_test(tc, test_c20_corbaloc);
  tcase_add_test(tc, test_url_stages);
  tcase_add_test(tc, test_c20_ior_hosts_and_ports);
  tcase_add_test(tc, test_component_decoders);
  tcase_add_test(tc, test_codeset_negotiation);
  tcase_add_test(tc, test_truncation_and_corruption);
  tcase_add_test(tc, test_allocation_failures);
  tcase_add_test(tc, test_ior_any);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = ior_suite };
