/* ior.c - interoperable object references, their standard components,
 * stringified IORs, corbaloc URLs and code set negotiation (iiop/ior.h). */
#include "config.h"
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <iiop/ior.h>

/* ---------------------------------------------------------------- helpers */

static void *arena_dup(cdr_arena *a, const void *p, size_t n, size_t align)
{
  void *d = cdr_arena_alloc(a, n ? n : 1, align);
  if (d && n)
    memcpy(d, p, n);
  return d;
}

/* N elements of SIZE octets (at least one element's room, so that an
 * empty array is a valid pointer); NULL on overflow or exhaustion. */
static void *arena_array(cdr_arena *a, size_t n, size_t size, size_t align)
{
  if (n > SIZE_MAX / size)
    return NULL;
  return cdr_arena_alloc(a, (n ? n : 1) * size, align);
}

static char *arena_strndup(cdr_arena *a, const char *s, size_t n)
{
  char *d = cdr_arena_alloc(a, n + 1, 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

static bool order_ok(int byte_order)
{
  return byte_order == CDR_BIG_ENDIAN || byte_order == CDR_LITTLE_ENDIAN;
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

/* Open the next sequence<octet> of I as an encapsulation and hand back its
 * raw octets too: a profile or component is kept raw (so that it re-encodes
 * byte for byte) and decoded in place, with the errors and offsets of the
 * enclosing stream. */
static int encap_open(cdr_in *i, const uint8_t **data, uint32_t *len)
{
  cdr_in_align(i, 4);
  size_t at = cdr_in_pos(i);
  if (cdr_get_octets_view(i, data, len) != CDR_OK)
    return cdr_in_status(i);
  if (cdr_in_seek(i, at) != CDR_OK)
    return cdr_in_status(i);
  return cdr_in_begin_encap(i);
}

/* ---------------------------------------------------------------- component bodies
 * Each reader works on a stream positioned just after the component's
 * byte-order octet, so that it serves both the check inside iiop_ior_read()
 * and the public decoders over a component's own octets. */

/* CONV_FRAME::CodeSetComponent; with A NULL the conversion list is only
 * checked and skipped. */
static void codeset_comp_get(cdr_in *i, cdr_arena *a, iiop_codeset_component *c)
{
  c->native = cdr_get_ulong(i);
  if (a) {
    c->conv = cdr_get_seq(i, 4, &c->nconv);
    return;
  }
  uint32_t n = cdr_get_seq_count(i, 4);
  cdr_in_align(i, 4);
  (void)cdr_get_raw_view(i, (size_t)n * 4);
  c->nconv = n;
  c->conv = NULL;
}

static int codesets_get(cdr_in *i, cdr_arena *a, iiop_codeset_info *out)
{
  codeset_comp_get(i, a, &out->for_char);
  codeset_comp_get(i, a, &out->for_wchar);
  return cdr_in_status(i);
}

/* SSLIOP::SSL; LEN is the component's data length (8 for the standard
 * layout: byte-order octet, one padding octet, three ushorts). */
static int ssl_get(cdr_in *i, uint32_t len, uint16_t v[3])
{
  if (len == 8) {
    v[0] = cdr_get_ushort(i);
    v[1] = cdr_get_ushort(i);
    v[2] = cdr_get_ushort(i);
    return cdr_in_status(i);
  }
  /* VisiBroker's layout, which omniORB accepts too. */
  uint32_t s = cdr_get_ulong(i);
  uint32_t r = cdr_get_ulong(i);
  v[2] = cdr_get_ushort(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  if (s > 0xFFFF || r > 0xFFFF)
    return cdr_in_fail(i, CDR_E_VALUE, "SSL association options above 0xFFFF");
  v[0] = (uint16_t)s;
  v[1] = (uint16_t)r;
  return CDR_OK;
}

static int alt_addr_get(cdr_in *i, const char **host, uint16_t *port)
{
  const char *h = NULL;
  if (cdr_get_string_view(i, &h, NULL) != CDR_OK)
    return cdr_in_status(i);
  uint16_t p = cdr_get_ushort(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  *host = h;
  *port = p;
  return CDR_OK;
}

static bool component_known(uint32_t tag)
{
  return tag == IIOP_TAG_ORB_TYPE || tag == IIOP_TAG_CODE_SETS || tag == IIOP_TAG_SSL_SEC_TRANS
         || tag == IIOP_TAG_ALTERNATE_IIOP_ADDRESS;
}

/* Check a known component's body (I just after its byte-order octet). */
static int component_check(cdr_in *i, const iiop_component *c)
{
  switch (c->tag) {
  case IIOP_TAG_ORB_TYPE:
    (void)cdr_get_ulong(i);
    break;
  case IIOP_TAG_CODE_SETS: {
    iiop_codeset_info cs;
    (void)codesets_get(i, NULL, &cs);
    break;
  }
  case IIOP_TAG_SSL_SEC_TRANS: {
    uint16_t v[3];
    (void)ssl_get(i, c->len, v);
    break;
  }
  case IIOP_TAG_ALTERNATE_IIOP_ADDRESS: {
    const char *h;
    uint16_t p;
    (void)alt_addr_get(i, &h, &p);
    break;
  }
  default:
    break;
  }
  return cdr_in_status(i);
}

/* ---------------------------------------------------------------- reading */

static int component_get(cdr_in *i, iiop_component *c)
{
  c->tag = cdr_get_ulong(i);
  c->data = NULL;
  c->len = 0;
  if (!component_known(c->tag))
    return cdr_get_octets_view(i, &c->data, &c->len);
  if (encap_open(i, &c->data, &c->len) != CDR_OK)
    return cdr_in_status(i);
  if (component_check(i, c) != CDR_OK)
    return cdr_in_status(i);
  return cdr_in_end_encap(i);
}

static int iiop_body_get(cdr_in *i, cdr_arena *a, iiop_profile *p)
{
  if (encap_open(i, &p->data, &p->len) != CDR_OK)
    return cdr_in_status(i);
  p->major = cdr_get_octet(i);
  p->minor = cdr_get_octet(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  /* Every IIOP 1.x profile from 1.1 on has 1.1's layout (CORBA 3.0
   * 15.7.2): a later minor (1.3 and up) is read as 1.1, octets after the
   * components skipped, as omniORB reads it; a client speaks GIOP 1.2 to
   * it.  Another major is a layout we cannot know: kept raw. */
  if (p->major != 1)
    return cdr_in_end_encap(i);
  if (cdr_get_string_view(i, &p->host, NULL) != CDR_OK)
    return cdr_in_status(i);
  p->port = cdr_get_ushort(i);
  if (cdr_get_octets_view(i, &p->key, &p->key_len) != CDR_OK)
    return cdr_in_status(i);
  if (p->minor >= 1) {
    /* A component takes at least 8 octets: tag and data length. */
    uint32_t n = cdr_get_seq_count(i, 8);
    if (cdr_in_status(i) != CDR_OK)
      return cdr_in_status(i);
    iiop_component *v = arena_array(a, n, sizeof *v, _Alignof(iiop_component));
    if (!v)
      return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
    for (uint32_t k = 0; k < n; k++)
      if (component_get(i, &v[k]) != CDR_OK)
        return cdr_in_status(i);
    p->components = v;
    p->ncomponents = n;
  }
  if (cdr_in_end_encap(i) != CDR_OK)
    return cdr_in_status(i);
  p->iiop_ok = 1;
  return CDR_OK;
}

static int profile_get(cdr_in *i, cdr_arena *a, iiop_profile *p)
{
  memset(p, 0, sizeof *p);
  p->tag = cdr_get_ulong(i);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  if (p->tag != IIOP_TAG_INTERNET_IOP)
    return cdr_get_octets_view(i, &p->data, &p->len);
  return iiop_body_get(i, a, p);
}

int iiop_ior_read(cdr_in *i, iiop_ior *ior)
{
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  if (!ior)
    return cdr_in_fail(i, CDR_E_INVALID, "no IOR to decode into");
  cdr_arena *a = cdr_in_arena(i);
  if (!a)
    return cdr_in_fail(i, CDR_E_STATE, "no arena to decode into");
  iiop_ior t = { NULL, NULL, 0 };
  if (cdr_get_string_utf8(i, &t.type_id, NULL) != CDR_OK)
    return cdr_in_status(i);
  /* A profile takes at least 8 octets: tag and data length. */
  uint32_t n = cdr_get_seq_count(i, 8);
  if (cdr_in_status(i) != CDR_OK)
    return cdr_in_status(i);
  t.profiles = arena_array(a, n, sizeof *t.profiles, _Alignof(iiop_profile));
  if (!t.profiles)
    return cdr_in_fail(i, CDR_E_NOMEM, "arena allocation failed");
  for (uint32_t k = 0; k < n; k++)
    if (profile_get(i, a, &t.profiles[k]) != CDR_OK)
      return cdr_in_status(i);
  t.nprofiles = n;
  *ior = t;
  return CDR_OK;
}

/* ---------------------------------------------------------------- writing */

static void octets_put(cdr_out *o, const uint8_t *p, uint32_t n)
{
  cdr_put_ulong(o, n);
  if (n)
    cdr_put_raw(o, p, n);
}

static int iiop_body_put(cdr_out *o, const iiop_profile *p)
{
  if (p->major != 1 || !p->host || (!p->key && p->key_len)
      || (!p->components && p->ncomponents) || (p->minor == 0 && p->ncomponents))
    return cdr_out_fail(o, CDR_E_INVALID, "IIOP profile invalid (version, host, key or components)");
  for (uint32_t k = 0; k < p->ncomponents; k++)
    if (!p->components[k].data && p->components[k].len)
      return cdr_out_fail(o, CDR_E_INVALID, "IIOP profile component with NULL data of nonzero length");
  cdr_out_begin_encap(o);
  cdr_put_octet(o, p->major);
  cdr_put_octet(o, p->minor);
  cdr_put_string(o, p->host);
  cdr_put_ushort(o, p->port);
  octets_put(o, p->key, p->key_len);
  if (p->minor >= 1) {
    cdr_put_ulong(o, p->ncomponents);
    for (uint32_t k = 0; k < p->ncomponents; k++) {
      cdr_put_ulong(o, p->components[k].tag);
      octets_put(o, p->components[k].data, p->components[k].len);
    }
  }
  cdr_out_end_encap(o);
  return cdr_out_status(o);
}

int iiop_ior_write(cdr_out *o, const iiop_ior *ior)
{
  if (!ior || (!ior->profiles && ior->nprofiles))
    return cdr_out_fail(o, CDR_E_INVALID, !ior ? "no IOR to encode" : "IOR with profiles but no profile array");
  cdr_put_string_utf8(o, ior->type_id ? ior->type_id : "");
  cdr_put_ulong(o, ior->nprofiles);
  for (uint32_t k = 0; k < ior->nprofiles && cdr_out_status(o) == CDR_OK; k++) {
    const iiop_profile *p = &ior->profiles[k];
    cdr_put_ulong(o, p->tag);
    if (p->data || !p->iiop_ok) {
      if (!p->data && p->len)
        return cdr_out_fail(o, CDR_E_INVALID, "IOR profile with NULL data of nonzero length");
      octets_put(o, p->data, p->len);
    } else if (p->tag == IIOP_TAG_INTERNET_IOP) {
      iiop_body_put(o, p);
    } else {
      return cdr_out_fail(o, CDR_E_INVALID, "IOR profile without raw data and not TAG_INTERNET_IOP");
    }
  }
  return cdr_out_status(o);
}

/* ---------------------------------------------------------------- stringified IORs */

static void why_set(iiop_url_error *why, iiop_url_stage stage, int code)
{
  if (why) {
    why->stage = stage;
    why->code = code;
  }
}

/* Decode the N octets at BUF (in A) as an encapsulated IOR into *IOR. */
static int ior_decode(uint8_t *buf, size_t n, cdr_arena *a, iiop_ior *ior)
{
  cdr_in in;
  int rc = cdr_in_init_encap(&in, buf, n, NULL);
  if (rc == CDR_OK) {
    cdr_in_set_arena(&in, a);
    iiop_ior t;
    rc = iiop_ior_read(&in, &t);
    if (rc == CDR_OK)
      *ior = t;
  }
  cdr_in_close(&in);
  return rc;
}

/* Why the N octets at BUF are refused, as omniORB decodes them: its
 * byte-order octet is a boolean, any value but 0 read as little-endian,
 * and an empty type ID (length 0, no NUL) is "".  LEFTOVER: digits came after them (an odd
 * one, a stray character).  BUF is the caller's to change. */
/* omniORB's reading of the profile sequence of the encapsulated IOR at B
 * (N octets; a type ID that decodes): a count past the octets left is
 * CDR_E_LENGTH, else each profile's tag and length are read in turn
 * (CDR_E_SHORT where they run out, CDR_E_LENGTH for a length past the
 * end).  iiop_ior_read refuses a count the octets cannot hold at 8 octets
 * a profile, sooner.  CDR_OK: no difference found. */
static int profiles_walk(const uint8_t *b, size_t n)
{
  bool le = b[0] != 0;
#define U32_AT(o)                                                                     \
  (le ? (uint32_t)b[o] | (uint32_t)b[(o) + 1] << 8 | (uint32_t)b[(o) + 2] << 16 |     \
          (uint32_t)b[(o) + 3] << 24                                                  \
      : (uint32_t)b[o] << 24 | (uint32_t)b[(o) + 1] << 16 | (uint32_t)b[(o) + 2] << 8 | \
          (uint32_t)b[(o) + 3])
  if (n < 8)
    return CDR_OK;
  uint32_t tl = U32_AT(4);
  size_t off = 8;
  if (tl > n - off)
    return CDR_OK;
  off = (off + tl + 3) & ~(size_t)3;
  if (off > n || n - off < 4)
    return CDR_OK;
  uint32_t count = U32_AT(off);
  off += 4;
  if (count > n - off)
    return CDR_E_LENGTH;
  for (uint32_t k = 0; k < count; k++) {
    off = (off + 3) & ~(size_t)3;
    if (off > n || n - off < 8)
      return CDR_E_SHORT; /* the tag, or the length after it */
    uint32_t len = U32_AT(off + 4);
    off += 8;
    if (len > n - off)
      return CDR_E_LENGTH;
    off += len;
  }
#undef U32_AT
  return CDR_OK;
}

static void ior_decode_why(uint8_t *buf, size_t n, cdr_arena *a, iiop_url_error *why,
                           bool leftover)
{
  iiop_ior t;
  int first = ior_decode(buf, n, a, &t), rc = first;
  if (rc == CDR_E_VALUE && n && buf[0] > 1) {
    buf[0] = 1;
    rc = ior_decode(buf, n, a, &t);
  }
  uint32_t len0 = n >= 8 ? (uint32_t)buf[4] | buf[5] | buf[6] | buf[7] : 1;
  if (rc == CDR_E_STRING && len0 == 0) {
    /* the type ID as "" (length 1, a NUL, padding): what follows it may
     * fail first; every later item keeps its alignment modulo 4 (an IOR
     * holds nothing aligned on 8) */
    uint8_t *b2 = cdr_arena_alloc(a, n + 4, 8);
    if (!b2) {
      why_set(why, IIOP_URL_OK, CDR_E_NOMEM);
      return;
    }
    memcpy(b2, buf, 4);
    memset(b2 + 4, 0, 8);
    b2[buf[0] ? 4 : 7] = 1;
    memcpy(b2 + 12, buf + 8, n - 8);
    rc = ior_decode(b2, n + 4, a, &t);
    if (rc == CDR_E_LENGTH && profiles_walk(b2, n + 4) != CDR_OK)
      rc = profiles_walk(b2, n + 4);
  } else if (rc == CDR_E_LENGTH && profiles_walk(buf, n) != CDR_OK) {
    rc = profiles_walk(buf, n);
  }
  if (rc == CDR_E_NOMEM || first == CDR_E_NOMEM)
    why_set(why, IIOP_URL_OK, CDR_E_NOMEM);
  else if (rc != CDR_OK)
    why_set(why, IIOP_URL_DECODE, rc);
  else if (leftover) /* the octets decode as omniORB's do: the digits' fault */
    why_set(why, IIOP_URL_HEX, CDR_E_INVALID);
  else if (first != CDR_OK) /* omniORB would take them; this decoder does not */
    why_set(why, IIOP_URL_DECODE, first);
  else
    why_set(why, IIOP_URL_OK, CDR_OK);
}

int iiop_ior_from_string(const char *s, cdr_arena *a, iiop_ior *ior)
{
  return iiop_ior_from_string_why(s, a, ior, NULL);
}

int iiop_ior_from_string_why(const char *s, cdr_arena *a, iiop_ior *ior, iiop_url_error *why)
{
  why_set(why, IIOP_URL_OK, CDR_OK);
  if (!s || !a || !ior)
    return CDR_E_INVALID;
  if (strncasecmp(s, "IOR:", 4) != 0) {
    why_set(why, IIOP_URL_SCHEME, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  const char *h = s + 4;
  size_t nd = strlen(h), bad = nd;
  for (size_t k = 0; k < nd; k++)
    if (hexval((unsigned char)h[k]) < 0) {
      bad = k;
      break;
    }
  /* Whole pairs of digits only become octets (omniORB reads no more). */
  size_t n = nd / 2;
  if (bad < nd || nd == 0 || nd % 2) {
    if (why) {
      if (bad < 2 * n) {
        why_set(why, IIOP_URL_HEX, CDR_E_INVALID);
      } else {
        /* every pair is hex: what decoding them says (an odd digit left
         * over, or a stray character after them, comes second) */
        uint8_t *buf = cdr_arena_alloc(a, n ? n : 1, 8);
        if (buf) {
          for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)(hexval((unsigned char)h[2 * k]) << 4 |
                               hexval((unsigned char)h[2 * k + 1]));
          ior_decode_why(buf, n, a, why, true);
        } else {
          why_set(why, IIOP_URL_OK, CDR_E_NOMEM); /* (refused all the same) */
        }
      }
    }
    return CDR_E_INVALID;
  }
  /* Aligned on 8 so that a reader's view of the octets is as aligned as
   * the CDR positions inside are. */
  uint8_t *buf = cdr_arena_alloc(a, n, 8);
  if (!buf) {
    why_set(why, IIOP_URL_OK, CDR_E_NOMEM);
    return CDR_E_NOMEM;
  }
  for (size_t k = 0; k < n; k++)
    buf[k] = (uint8_t)(hexval((unsigned char)h[2 * k]) << 4 | hexval((unsigned char)h[2 * k + 1]));
  int rc = ior_decode(buf, n, a, ior);
  if (rc == CDR_E_NOMEM)
    why_set(why, IIOP_URL_OK, CDR_E_NOMEM);
  if (rc != CDR_OK && rc != CDR_E_NOMEM && why) {
    why_set(why, IIOP_URL_DECODE, rc);
    if ((rc == CDR_E_VALUE && buf[0] > 1) || rc == CDR_E_STRING || rc == CDR_E_LENGTH)
      ior_decode_why(buf, n, a, why, false); /* (the string is refused all the same) */
  }
  return rc;
}

int iiop_ior_to_string(const iiop_ior *ior, int byte_order, cdr_arena *a, char **out)
{
  if (!ior || !a || !out || !order_ok(byte_order))
    return CDR_E_INVALID;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)byte_order;
  cdr_out o;
  int rc = cdr_out_init(&o, &op);
  if (rc == CDR_OK) {
    /* The stream's position 0 is the byte-order octet: alignment inside
     * the encapsulation is relative to it, as CDR requires. */
    cdr_put_octet(&o, (uint8_t)byte_order);
    rc = iiop_ior_write(&o, ior);
  }
  if (rc == CDR_OK) {
    static const char digits[] = "0123456789abcdef";
    const uint8_t *d = cdr_out_data(&o);
    size_t n = cdr_out_size(&o);
    char *s = n <= (SIZE_MAX - 5) / 2 ? cdr_arena_alloc(a, 4 + 2 * n + 1, 1) : NULL;
    if (!s) {
      rc = CDR_E_NOMEM;
    } else {
      memcpy(s, "IOR:", 4);
      for (size_t k = 0; k < n; k++) {
        s[4 + 2 * k] = digits[d[k] >> 4];
        s[4 + 2 * k + 1] = digits[d[k] & 15];
      }
      s[4 + 2 * n] = 0;
      *out = s;
    }
  }
  cdr_out_close(&o);
  return rc;
}

/* ---------------------------------------------------------------- look-ups */

const iiop_profile *iiop_ior_iiop_profile(const iiop_ior *ior)
{
  if (!ior || !ior->profiles)
    return NULL;
  for (uint32_t k = 0; k < ior->nprofiles; k++)
    if (ior->profiles[k].tag == IIOP_TAG_INTERNET_IOP && ior->profiles[k].iiop_ok)
      return &ior->profiles[k];
  return NULL;
}

const iiop_component *iiop_profile_component(const iiop_profile *p, uint32_t tag)
{
  if (!p || !p->components)
    return NULL;
  for (uint32_t k = 0; k < p->ncomponents; k++)
    if (p->components[k].tag == tag)
      return &p->components[k];
  return NULL;
}

/* ---------------------------------------------------------------- component decoders */

static bool component_is(const iiop_component *c, uint32_t tag)
{
  return c && c->tag == tag && (c->data || !c->len);
}

int iiop_codeset_info_decode(const iiop_component *c, cdr_arena *a, iiop_codeset_info *out)
{
  if (!a || !out || !component_is(c, IIOP_TAG_CODE_SETS))
    return CDR_E_INVALID;
  cdr_in in;
  int rc = cdr_in_init_encap(&in, c->data, c->len, NULL);
  if (rc == CDR_OK) {
    cdr_in_set_arena(&in, a);
    iiop_codeset_info t;
    rc = codesets_get(&in, a, &t);
    if (rc == CDR_OK)
      *out = t;
  }
  cdr_in_close(&in);
  return rc;
}

int iiop_ssl_component_decode(const iiop_component *c, uint16_t *target_supports,
                              uint16_t *target_requires, uint16_t *port)
{
  if (!component_is(c, IIOP_TAG_SSL_SEC_TRANS))
    return CDR_E_INVALID;
  cdr_in in;
  int rc = cdr_in_init_encap(&in, c->data, c->len, NULL);
  uint16_t v[3];
  if (rc == CDR_OK)
    rc = ssl_get(&in, c->len, v);
  cdr_in_close(&in);
  if (rc != CDR_OK)
    return rc;
  if (target_supports)
    *target_supports = v[0];
  if (target_requires)
    *target_requires = v[1];
  if (port)
    *port = v[2];
  return CDR_OK;
}

int iiop_orb_type_decode(const iiop_component *c, uint32_t *orb_type)
{
  if (!orb_type || !component_is(c, IIOP_TAG_ORB_TYPE))
    return CDR_E_INVALID;
  cdr_in in;
  int rc = cdr_in_init_encap(&in, c->data, c->len, NULL);
  uint32_t v = 0;
  if (rc == CDR_OK) {
    v = cdr_get_ulong(&in);
    rc = cdr_in_status(&in);
  }
  cdr_in_close(&in);
  if (rc == CDR_OK)
    *orb_type = v;
  return rc;
}

int iiop_alternate_address_decode(const iiop_component *c, const char **host, uint16_t *port)
{
  if (!host || !port || !component_is(c, IIOP_TAG_ALTERNATE_IIOP_ADDRESS))
    return CDR_E_INVALID;
  cdr_in in;
  int rc = cdr_in_init_encap(&in, c->data, c->len, NULL);
  if (rc == CDR_OK)
    rc = alt_addr_get(&in, host, port);
  cdr_in_close(&in);
  return rc;
}

/* ---------------------------------------------------------------- component encoders */

/* Start a component's encapsulation in BYTE_ORDER (checked by the caller);
 * a failure stays in O's status for encap_finish(). */
static void encap_begin(cdr_out *o, int byte_order)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)byte_order;
  if (cdr_out_init(o, &op) == CDR_OK)
    cdr_put_octet(o, (uint8_t)byte_order);
}

/* Copy O's octets into A as component TAG and close O. */
static int encap_finish(cdr_out *o, uint32_t tag, cdr_arena *a, iiop_component *out)
{
  int rc = cdr_out_status(o);
  if (rc == CDR_OK && cdr_out_size(o) > UINT32_MAX)
    rc = CDR_E_LIMIT;
  if (rc == CDR_OK) {
    uint8_t *d = arena_dup(a, cdr_out_data(o), cdr_out_size(o), 8);
    if (!d) {
      rc = CDR_E_NOMEM;
    } else {
      out->tag = tag;
      out->len = (uint32_t)cdr_out_size(o);
      out->data = d;
    }
  }
  cdr_out_close(o);
  return rc;
}

int iiop_codeset_info_encode(const iiop_codeset_info *cs, int byte_order, cdr_arena *a,
                             iiop_component *out)
{
  if (!cs || !a || !out || !order_ok(byte_order) || (!cs->for_char.conv && cs->for_char.nconv)
      || (!cs->for_wchar.conv && cs->for_wchar.nconv))
    return CDR_E_INVALID;
  cdr_out o;
  encap_begin(&o, byte_order);
  const iiop_codeset_component *c[2] = { &cs->for_char, &cs->for_wchar };
  for (int k = 0; k < 2; k++) {
    cdr_put_ulong(&o, c[k]->native);
    cdr_put_ulong(&o, c[k]->nconv);
    if (c[k]->nconv)
      cdr_put_array(&o, c[k]->conv, c[k]->nconv, 4);
  }
  return encap_finish(&o, IIOP_TAG_CODE_SETS, a, out);
}

int iiop_orb_type_encode(uint32_t orb_type, int byte_order, cdr_arena *a, iiop_component *out)
{
  if (!a || !out || !order_ok(byte_order))
    return CDR_E_INVALID;
  cdr_out o;
  encap_begin(&o, byte_order);
  cdr_put_ulong(&o, orb_type);
  return encap_finish(&o, IIOP_TAG_ORB_TYPE, a, out);
}

int iiop_ssl_component_encode(uint16_t target_supports, uint16_t target_requires, uint16_t port,
                              int byte_order, cdr_arena *a, iiop_component *out)
{
  if (!a || !out || !order_ok(byte_order))
    return CDR_E_INVALID;
  cdr_out o;
  encap_begin(&o, byte_order);
  cdr_put_ushort(&o, target_supports);
  cdr_put_ushort(&o, target_requires);
  cdr_put_ushort(&o, port);
  return encap_finish(&o, IIOP_TAG_SSL_SEC_TRANS, a, out);
}

/* ---------------------------------------------------------------- code set negotiation */

static bool cs_in(uint32_t cs, const uint32_t *v, uint32_t n)
{
  for (uint32_t k = 0; k < n; k++)
    if (v[k] == cs)
      return true;
  return false;
}

/* Code sets whose characters are all in ISO 10646, so that converting to
 * and from the fallback code set (UTF-8 / UTF-16) is defined for them. */
static bool cs_unicode_based(uint32_t cs)
{
  return cs == CDR_CS_ISO8859_1 || cs == CDR_CS_UTF8 || cs == CDR_CS_UTF16 || cs == CDR_CS_UCS2
         || cs == CDR_CS_UCS4;
}

uint32_t iiop_codeset_negotiate(uint32_t native, const uint32_t *conv, uint32_t nconv,
                                const iiop_codeset_component *s, int for_wchar)
{
  if (!s || (s->native == 0 && (s->nconv == 0 || !s->conv)))
    return for_wchar ? 0 : CDR_CS_ISO8859_1;
  if (native == 0)
    return 0;
  if (!conv)
    nconv = 0;
  const uint32_t *sconv = s->conv;
  uint32_t nsconv = sconv ? s->nconv : 0;
  uint32_t sn = s->native;
  if (sn != 0 && sn == native)
    return native;
  if (sn != 0 && cs_in(sn, conv, nconv))
    return sn;
  if (cs_in(native, sconv, nsconv))
    return native;
  for (uint32_t k = 0; k < nsconv; k++)
    if (sconv[k] != 0 && cs_in(sconv[k], conv, nconv))
      return sconv[k];
  if (sn != 0 && cs_unicode_based(native) && cs_unicode_based(sn))
    return for_wchar ? CDR_CS_UTF16 : CDR_CS_UTF8;
  return 0;
}

/* ---------------------------------------------------------------- corbaloc */

#define HOST_MAX 255

static bool host_char(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
         || c == '.' || c == '_';
}

static bool zone_char(int c)
{
  return host_char(c) || c == '~';
}

/* Decimal digits [P, E) into *V, at most MAX; false if empty, not decimal
 * or too large (no overflow: it stops as soon as the value passes MAX). */
static bool decimal(const char *p, const char *e, unsigned max, unsigned *v)
{
  if (p == e)
    return false;
  unsigned x = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9')
      return false;
    x = x * 10 + (unsigned)(*p - '0');
    if (x > max)
      return false;
  }
  *v = x;
  return true;
}

/* An address's port or what follows its host, from AFTER to E: ":" and
 * decimal digits, as omniORB reads it: a value past 65535 is the address's
 * fault (IIOP_URL_ADDRESS), anything else left before E means the key
 * does not start where it should (IIOP_URL_KEY: "h:12a/x", "h:-1/x",
 * "[::1]x/x"); an empty port ("h:/x") leaves *PORT at its default, as the
 * spec's absent port and omniORB. */
static int port_parse(const char *after, const char *e, uint16_t *port, iiop_url_error *why)
{
  if (after == e)
    return CDR_OK;
  if (*after != ':') {
    why_set(why, IIOP_URL_KEY, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  const char *d = after + 1, *q = d;
  while (q < e && *q >= '0' && *q <= '9')
    q++;
  unsigned v;
  if (q == d && q == e)
    return CDR_OK;
  if (q == d) {
    why_set(why, IIOP_URL_KEY, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  if (!decimal(d, q, 65535, &v)) {
    why_set(why, IIOP_URL_ADDRESS, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  if (q != e) {
    why_set(why, IIOP_URL_KEY, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  *port = (uint16_t)v;
  return CDR_OK;
}

static int bad_addr(iiop_url_error *why, iiop_url_stage stage)
{
  why_set(why, stage, CDR_E_INVALID);
  return CDR_E_INVALID;
}

/* One IIOP address, [version@]host[:port], in [P, E); TLS: an ssliop
 * address (its version read, then ignored, as omniORB: always 1.2).  An
 * empty address is "localhost" port 2809 (the spec's optional iiop_addr;
 * omniORB's), version 1.0 (ssliop: 1.2). */
static int iiop_addr_parse(const char *p, const char *e, cdr_arena *a, iiop_corbaloc_addr *ad,
                           bool tls, iiop_url_error *why)
{
  ad->major = 1;
  ad->minor = tls ? 2 : 0;
  ad->tls = tls;
  ad->port = 2809;
  if (p == e) {
    ad->host = "localhost";
    return CDR_OK;
  }
  const char *at = memchr(p, '@', (size_t)(e - p));
  if (at) {
    const char *dot = memchr(p, '.', (size_t)(at - p));
    unsigned ma, mi;
    if (!dot || !decimal(p, dot, 255, &ma) || !decimal(dot + 1, at, 255, &mi))
      return bad_addr(why, IIOP_URL_SYNTAX);
    if (!tls) {
      if (ma != 1)
        return bad_addr(why, IIOP_URL_VERSION);
      ad->major = (uint8_t)ma;
      ad->minor = (uint8_t)mi;
    }
    p = at + 1;
  }
  const char *after;
  char *host;
  if (p < e && *p == '[') {
    const char *rb = memchr(p, ']', (size_t)(e - p));
    if (!rb)
      return bad_addr(why, IIOP_URL_ADDRESS);
    const char *h = p + 1, *zone = NULL;
    size_t n = 0;
    bool colon = false;
    for (const char *q = h; q < rb; q++) {
      if (*q == '%') {
        zone = q;
        break;
      }
      if (*q == ':')
        colon = true;
      else if (hexval((unsigned char)*q) < 0 && *q != '.')
        return bad_addr(why, IIOP_URL_ADDRESS);
      n++;
    }
    if (rb == h)
      return bad_addr(why, IIOP_URL_SYNTAX); /* "[]": no host */
    if (!colon || n > HOST_MAX)
      return bad_addr(why, IIOP_URL_ADDRESS);
    size_t zn = 0;
    const char *z = NULL;
    if (zone) {
      z = zone + 1;
      if (rb - z >= 2 && z[0] == '2' && z[1] == '5') /* RFC 6874: "%25" is the '%' */
        z += 2;
      zn = (size_t)(rb - z);
      if (zn == 0 || n + 1 + zn > HOST_MAX)
        return bad_addr(why, IIOP_URL_ADDRESS);
      for (size_t k = 0; k < zn; k++)
        if (!zone_char((unsigned char)z[k]))
          return bad_addr(why, IIOP_URL_ADDRESS);
    }
    host = cdr_arena_alloc(a, n + (zone ? 1 + zn : 0) + 1, 1);
    if (!host)
      return CDR_E_NOMEM;
    memcpy(host, h, n);
    if (zone) {
      host[n] = '%';
      memcpy(host + n + 1, z, zn);
      n += 1 + zn;
    }
    host[n] = 0;
    after = rb + 1;
  } else {
    const char *q = p;
    while (q < e && *q != ':') {
      if (!host_char((unsigned char)*q))
        /* omniORB's host ends at a '#', and the key should start there */
        return bad_addr(why, *q == '#' ? IIOP_URL_KEY : IIOP_URL_ADDRESS);
      q++;
    }
    if (q == p)
      return bad_addr(why, IIOP_URL_SYNTAX); /* no host: "1.2@:2809", ":2809" */
    if (q - p > HOST_MAX)
      return bad_addr(why, IIOP_URL_ADDRESS);
    host = arena_strndup(a, p, (size_t)(q - p));
    if (!host)
      return CDR_E_NOMEM;
    after = q;
  }
  int rc = port_parse(after, e, &ad->port, why);
  if (rc != CDR_OK)
    return rc;
  ad->host = host;
  return CDR_OK;
}

/* omniORB's key characters besides letters and digits (RFC 2396's
 * reserved and unreserved ones); others must be %-escaped. */
static bool key_char(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c && strchr(";/?:@&=+$,-_.!~*()'", c));
}

int iiop_corbaloc_parse(const char *url, cdr_arena *a, iiop_corbaloc *out)
{
  return iiop_corbaloc_parse_why(url, a, out, NULL);
}

int iiop_corbaloc_parse_why(const char *url, cdr_arena *a, iiop_corbaloc *out, iiop_url_error *why)
{
  why_set(why, IIOP_URL_OK, CDR_OK);
  if (!url || !a || !out)
    return CDR_E_INVALID;
  if (strncasecmp(url, "corbaloc:", 9) != 0) {
    why_set(why, IIOP_URL_SCHEME, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  const char *list = url + 9;
  /* Host names, versions and ports hold no '/': the first one ends the
   * list.  Without one the addresses are read all the same, as omniORB
   * reads them (an unknown protocol comes before the missing key). */
  const char *slash = strchr(list, '/');
  const char *lend = slash ? slash : list + strlen(list);
  size_t naddr = 1;
  for (const char *q = list; q < lend; q++)
    naddr += *q == ',';
  iiop_corbaloc t;
  if (naddr > UINT32_MAX)
    return CDR_E_LIMIT;
  t.addrs = arena_array(a, naddr, sizeof *t.addrs, _Alignof(iiop_corbaloc_addr));
  if (!t.addrs)
    return CDR_E_NOMEM;
  t.naddrs = (uint32_t)naddr;
  const char *p = list;
  for (size_t k = 0; k < naddr; k++) {
    const char *e = memchr(p, ',', (size_t)(lend - p));
    if (!e)
      e = lend;
    size_t n = (size_t)(e - p);
    bool tls = false;
    /* the protocol tokens in lower case only, as omniORB */
    if (n >= 5 && strncmp(p, "iiop:", 5) == 0) {
      p += 5;
    } else if (n >= 7 && strncmp(p, "ssliop:", 7) == 0) {
      p += 7;
      tls = true;
    } else if (n >= 1 && *p == ':') {
      p += 1;
    } else if (n >= 4 && strncmp(p, "rir:", 4) == 0) {
      /* rir: stands alone (omniORB: BAD_PARAM_BadURIOther beside others) */
      why_set(why, naddr > 1 ? IIOP_URL_KEY : IIOP_URL_OK, CDR_E_UNSUPPORTED);
      return CDR_E_UNSUPPORTED;
    } else {
      why_set(why, IIOP_URL_SCHEME, CDR_E_INVALID);
      return CDR_E_INVALID;
    }
    int rc = iiop_addr_parse(p, e, a, &t.addrs[k], tls, why);
    if (rc != CDR_OK)
      return rc;
    p = e + 1;
  }
  if (!slash) {
    why_set(why, IIOP_URL_KEY, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  const char *k = slash + 1;
  size_t kn = strlen(k);
  uint8_t *key = cdr_arena_alloc(a, kn ? kn : 1, 1);
  if (!key)
    return CDR_E_NOMEM;
  size_t n = 0;
  for (size_t j = 0; j < kn; j++) {
    unsigned char c = (unsigned char)k[j];
    if (c == '%') {
      if (j + 2 >= kn)
        return bad_addr(why, IIOP_URL_KEY);
      int hi = hexval((unsigned char)k[j + 1]), lo = hexval((unsigned char)k[j + 2]);
      if (hi < 0 || lo < 0)
        return bad_addr(why, IIOP_URL_KEY);
      key[n++] = (uint8_t)(hi << 4 | lo);
      j += 2;
    } else if (c == '#') {
      /* omniORB's key ends there, and a corbaloc URL must end with it */
      return bad_addr(why, IIOP_URL_SYNTAX);
    } else if (!key_char(c)) {
      return bad_addr(why, IIOP_URL_KEY);
    } else {
      key[n++] = c;
    }
  }
  if (n > UINT32_MAX)
    return CDR_E_LIMIT;
  t.key = key;
  t.key_len = (uint32_t)n;
  *out = t;
  return CDR_OK;
}

/* ---------------------------------------------------------------- making IORs */

int iiop_ior_make(cdr_arena *a, const char *type_id, uint8_t major, uint8_t minor,
                  const char *host, uint16_t port, const uint8_t *key, uint32_t key_len,
                  const iiop_component *comps, uint32_t ncomps, iiop_ior *out)
{
  if (!a || !type_id || !host || !*host || !out || (!key && key_len) || (!comps && ncomps)
      || major != 1 || minor > 2 || (minor == 0 && ncomps))
    return CDR_E_INVALID;
  for (uint32_t k = 0; k < ncomps; k++)
    if (!comps[k].data && comps[k].len)
      return CDR_E_INVALID;
  iiop_profile *p = cdr_arena_alloc(a, sizeof *p, _Alignof(iiop_profile));
  char *tid = arena_strndup(a, type_id, strlen(type_id));
  char *h = arena_strndup(a, host, strlen(host));
  uint8_t *kd = arena_dup(a, key, key_len, 1);
  iiop_component *cv = ncomps ? arena_array(a, ncomps, sizeof *cv, _Alignof(iiop_component)) : NULL;
  if (!p || !tid || !h || !kd || (ncomps && !cv))
    return CDR_E_NOMEM;
  for (uint32_t k = 0; k < ncomps; k++) {
    cv[k].tag = comps[k].tag;
    cv[k].len = comps[k].len;
    cv[k].data = arena_dup(a, comps[k].data, comps[k].len, 8);
    if (!cv[k].data)
      return CDR_E_NOMEM;
  }
  memset(p, 0, sizeof *p);
  p->tag = IIOP_TAG_INTERNET_IOP;
  p->major = major;
  p->minor = minor;
  p->iiop_ok = 1;
  p->host = h;
  p->port = port;
  p->key = kd;
  p->key_len = key_len;
  p->components = cv;
  p->ncomponents = ncomps;
  out->type_id = tid;
  out->profiles = p;
  out->nprofiles = 1;
  return CDR_OK;
}
