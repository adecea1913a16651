/* tests/fuzz/fuzz_ior.c - fuzz target: IORs as CDR octets and as strings,
 * their standard components, code set negotiation and corbaloc URLs
 * (iiop/ior.h).
 *
 * Input: one mode octet, then the data:
 *   mode 0: an IOR as an encapsulation (byte-order octet first);
 *   mode 1: a stringified IOR ("IOR:..." text);
 *   mode 2: a corbaloc URL;
 *   mode 3: one component: a tag octet, then its component data.
 *
 * Checks: a decoded IOR written back (raw profile bodies, as
 * iiop_ior_to_string() does) and decoded again gives the same fields, and
 * writing that gives the same octets (decode-encode-decode); its IIOP
 * profiles encoded from their decoded fields instead (data NULL) decode to
 * the same fields.  Standard components decode, re-encode and decode to the
 * same values.  A parsed corbaloc URL printed again (every key octet
 * %-escaped) parses to the same addresses and key.
 */
#include <cdr/cdr.h>
#include <iiop/ior.h>
#include <iiop/naming.h>
#include "fuzz.h"

static void same_str(const char *a, const char *b)
{
  FUZZ_CHECK(a && b && strcmp(a, b) == 0);
}

static void same_profile_fields(const iiop_profile *a, const iiop_profile *b)
{
  FUZZ_CHECK(a->tag == b->tag && a->iiop_ok == b->iiop_ok);
  if (!a->iiop_ok)
    return;
  FUZZ_CHECK(a->major == b->major && a->minor == b->minor && a->port == b->port);
  same_str(a->host, b->host);
  FUZZ_SAME(a->key, a->key_len, b->key, b->key_len);
  FUZZ_CHECK(a->ncomponents == b->ncomponents);
  for (uint32_t k = 0; k < a->ncomponents; k++) {
    FUZZ_CHECK(a->components[k].tag == b->components[k].tag);
    FUZZ_SAME(a->components[k].data, a->components[k].len, b->components[k].data,
              b->components[k].len);
  }
}

static void same_ior(const iiop_ior *a, const iiop_ior *b, int raw_too)
{
  same_str(a->type_id, b->type_id);
  FUZZ_CHECK(a->nprofiles == b->nprofiles);
  for (uint32_t k = 0; k < a->nprofiles; k++) {
    same_profile_fields(&a->profiles[k], &b->profiles[k]);
    if (raw_too)
      FUZZ_SAME(a->profiles[k].data, a->profiles[k].len, b->profiles[k].data, b->profiles[k].len);
  }
}

/* The standard components: decode; encode what was decoded; decode again. */
static void check_component(const iiop_component *c, cdr_arena *a)
{
  iiop_component e;
  switch (c->tag) {
  case IIOP_TAG_CODE_SETS: {
    iiop_codeset_info cs, back;
    if (iiop_codeset_info_decode(c, a, &cs) != CDR_OK)
      return;
    for (int order = 0; order < 2; order++) {
      FUZZ_CHECK(iiop_codeset_info_encode(&cs, order, a, &e) == CDR_OK);
      FUZZ_CHECK(iiop_codeset_info_decode(&e, a, &back) == CDR_OK);
      FUZZ_CHECK(back.for_char.native == cs.for_char.native);
      FUZZ_CHECK(back.for_wchar.native == cs.for_wchar.native);
      FUZZ_SAME(back.for_char.conv, back.for_char.nconv * 4, cs.for_char.conv, cs.for_char.nconv * 4);
      FUZZ_SAME(back.for_wchar.conv, back.for_wchar.nconv * 4, cs.for_wchar.conv,
                cs.for_wchar.nconv * 4);
    }
    /* Negotiation with this component as the server's: the result is one
     * of the code sets named, a fallback, or none. */
    static const uint32_t conv[] = { CDR_CS_UTF8, CDR_CS_UTF16 };
    for (int w = 0; w < 2; w++) {
      const iiop_codeset_component *s = w ? &cs.for_wchar : &cs.for_char;
      uint32_t native = w ? CDR_CS_UTF16 : CDR_CS_ISO8859_1;
      uint32_t r = iiop_codeset_negotiate(native, conv, 2, s, w);
      int named = r == 0 || r == native || r == s->native || r == CDR_CS_UTF8 || r == CDR_CS_UTF16
                  || r == CDR_CS_ISO8859_1;
      for (uint32_t k = 0; k < s->nconv; k++)
        named |= r == s->conv[k];
      FUZZ_CHECK(named);
      /* A native of 0 gives 0, unless the server gave no information
       * (then the defaults stand: ISO-8859-1 for char, none for wchar). */
      int absent = s->native == 0 && (s->nconv == 0 || !s->conv);
      FUZZ_CHECK(iiop_codeset_negotiate(0, NULL, 0, s, w) == (absent && !w ? CDR_CS_ISO8859_1 : 0));
    }
    break;
  }
  case IIOP_TAG_SSL_SEC_TRANS: {
    uint16_t s, r, p, s2, r2, p2;
    if (iiop_ssl_component_decode(c, &s, &r, &p) != CDR_OK)
      return;
    for (int order = 0; order < 2; order++) {
      FUZZ_CHECK(iiop_ssl_component_encode(s, r, p, order, a, &e) == CDR_OK);
      FUZZ_CHECK(iiop_ssl_component_decode(&e, &s2, &r2, &p2) == CDR_OK);
      FUZZ_CHECK(s == s2 && r == r2 && p == p2);
    }
    break;
  }
  case IIOP_TAG_ORB_TYPE: {
    uint32_t t, t2;
    if (iiop_orb_type_decode(c, &t) != CDR_OK)
      return;
    for (int order = 0; order < 2; order++) {
      FUZZ_CHECK(iiop_orb_type_encode(t, order, a, &e) == CDR_OK);
      FUZZ_CHECK(iiop_orb_type_decode(&e, &t2) == CDR_OK && t == t2);
    }
    break;
  }
  case IIOP_TAG_ALTERNATE_IIOP_ADDRESS: {
    const char *host;
    uint16_t port;
    if (iiop_alternate_address_decode(c, &host, &port) == CDR_OK)
      FUZZ_CHECK(host != NULL);
    break;
  }
  default:
    break;
  }
}

static void check_ior(const iiop_ior *ior, cdr_arena *a)
{
  const iiop_profile *ip = iiop_ior_iiop_profile(ior);
  FUZZ_CHECK(!ip || (ip->tag == IIOP_TAG_INTERNET_IOP && ip->iiop_ok));
  for (uint32_t k = 0; k < ior->nprofiles; k++) {
    const iiop_profile *p = &ior->profiles[k];
    for (uint32_t c = 0; c < p->ncomponents; c++) {
      FUZZ_CHECK(iiop_profile_component(p, p->components[c].tag) != NULL);
      check_component(&p->components[c], a);
    }
  }
  for (int order = 0; order < 2; order++) {
    /* Raw bodies: decode-encode-decode. */
    char *s1, *s2;
    iiop_ior back, again;
    FUZZ_CHECK(iiop_ior_to_string(ior, order, a, &s1) == CDR_OK);
    FUZZ_CHECK(iiop_ior_from_string(s1, a, &back) == CDR_OK);
    same_ior(ior, &back, 1);
    FUZZ_CHECK(iiop_ior_to_string(&back, order, a, &s2) == CDR_OK);
    same_str(s1, s2);
    FUZZ_CHECK(iiop_ior_from_string(s2, a, &again) == CDR_OK);
    same_ior(&back, &again, 1);

    /* IIOP bodies encoded from their fields. */
    if (ior->nprofiles == 0)
      continue;
    iiop_ior fields = *ior;
    iiop_profile *ps = cdr_arena_alloc(a, ior->nprofiles * sizeof *ps, _Alignof(iiop_profile));
    FUZZ_CHECK(ps != NULL);
    memcpy(ps, ior->profiles, ior->nprofiles * sizeof *ps);
    for (uint32_t k = 0; k < ior->nprofiles; k++)
      if (ps[k].iiop_ok) {
        ps[k].data = NULL;
        ps[k].len = 0;
      }
    fields.profiles = ps;
    int rc = iiop_ior_to_string(&fields, order, a, &s1);
    FUZZ_CHECK(rc == CDR_OK || rc == CDR_E_INVALID);
    if (rc == CDR_OK) {
      FUZZ_CHECK(iiop_ior_from_string(s1, a, &back) == CDR_OK);
      same_ior(ior, &back, 0);
    }
  }
}

static void check_corbaloc(const char *url, cdr_arena *a)
{
  iiop_corbaloc c, d;
  if (iiop_corbaloc_parse(url, a, &c) != CDR_OK)
    return;
  FUZZ_CHECK(c.naddrs >= 1 && c.addrs != NULL);
  size_t cap = 32 + 3 * (size_t)c.key_len;
  for (uint32_t k = 0; k < c.naddrs; k++) {
    FUZZ_CHECK(c.addrs[k].host && c.addrs[k].host[0]);
    cap += 40 + 3 * strlen(c.addrs[k].host);
  }
  char *s = cdr_arena_alloc(a, cap, 1), *w = s;
  FUZZ_CHECK(s != NULL);
  w += sprintf(w, "corbaloc:");
  for (uint32_t k = 0; k < c.naddrs; k++) {
    const iiop_corbaloc_addr *x = &c.addrs[k];
    w += sprintf(w, "%s%s:%u.%u@", k ? "," : "", x->tls ? "ssliop" : "iiop", x->major, x->minor);
    if (strchr(x->host, ':')) {
      /* IPv6: brackets, a zone's '%' escaped as RFC 6874 writes it. */
      *w++ = '[';
      for (const char *h = x->host; *h; h++)
        w += *h == '%' ? sprintf(w, "%%25") : sprintf(w, "%c", *h);
      *w++ = ']';
    } else {
      w += sprintf(w, "%s", x->host);
    }
    w += sprintf(w, ":%u", x->port);
  }
  *w++ = '/';
  for (uint32_t k = 0; k < c.key_len; k++)
    w += sprintf(w, "%%%02x", c.key[k]);
  *w = 0;
  FUZZ_CHECK(iiop_corbaloc_parse(s, a, &d) == CDR_OK);
  FUZZ_CHECK(c.naddrs == d.naddrs);
  for (uint32_t k = 0; k < c.naddrs; k++) {
    FUZZ_CHECK(c.addrs[k].major == d.addrs[k].major && c.addrs[k].minor == d.addrs[k].minor);
    FUZZ_CHECK(c.addrs[k].tls == d.addrs[k].tls);
    FUZZ_CHECK(c.addrs[k].port == d.addrs[k].port);
    same_str(c.addrs[k].host, d.addrs[k].host);
  }
  FUZZ_SAME(c.key, c.key_len, d.key, d.key_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in f = { data, size };
  unsigned mode = fuzz_byte(&f) & 3;
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  switch (mode) {
  case 0: {
    cdr_in i;
    if (cdr_in_init_encap(&i, f.p, f.n, NULL) == CDR_OK) {
      cdr_in_set_arena(&i, &a);
      if (iiop_ior_read(&i, &ior) == CDR_OK)
        check_ior(&ior, &a);
    }
    cdr_in_close(&i);
    break;
  }
  case 1:
  case 2: {
    char *s = malloc(f.n + 1);
    FUZZ_CHECK(s != NULL);
    memcpy(s, f.p, f.n);
    s[f.n] = 0;
    if (mode == 1) {
      int rc = iiop_ior_from_string(s, &a, &ior);
      if (rc == CDR_OK)
        check_ior(&ior, &a);
      /* the step that refused it: one exactly when refused */
      iiop_url_error why;
      FUZZ_CHECK(iiop_ior_from_string_why(s, &a, &ior, &why) == rc);
      FUZZ_CHECK((rc == CDR_OK) == (why.stage == IIOP_URL_OK && why.code == CDR_OK));
      FUZZ_CHECK(rc == CDR_OK || rc == CDR_E_NOMEM || why.stage != IIOP_URL_OK ||
                 why.code == CDR_E_NOMEM);
    } else {
      check_corbaloc(s, &a);
      iiop_corbaloc c;
      iiop_url_error why;
      int rc = iiop_corbaloc_parse(s, &a, &c);
      FUZZ_CHECK(iiop_corbaloc_parse_why(s, &a, &c, &why) == rc);
      FUZZ_CHECK(rc != CDR_OK || why.stage == IIOP_URL_OK);
      FUZZ_CHECK(rc != CDR_E_INVALID || why.stage != IIOP_URL_OK);
      iiop_corbaname n;
      rc = iiop_corbaname_parse(s, &a, &n);
      FUZZ_CHECK(iiop_corbaname_parse_why(s, &a, &n, &why) == rc);
      FUZZ_CHECK(rc != CDR_OK || why.stage == IIOP_URL_OK);
      FUZZ_CHECK(rc != CDR_E_INVALID || why.stage != IIOP_URL_OK || why.code == CDR_E_NOMEM);
    }
    free(s);
    break;
  }
  default: {
    static const uint32_t tags[4] = { IIOP_TAG_ORB_TYPE, IIOP_TAG_CODE_SETS,
                                      IIOP_TAG_ALTERNATE_IIOP_ADDRESS, IIOP_TAG_SSL_SEC_TRANS };
    iiop_component c;
    c.tag = tags[fuzz_byte(&f) & 3];
    c.len = (uint32_t)f.n;
    c.data = f.p;
    check_component(&c, &a);
    break;
  }
  }
  cdr_arena_free(&a);
  return 0;
}
