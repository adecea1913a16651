/* naming.c - CosNaming string names and corbaname URLs (iiop/naming.h). */
#include "internal.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <iiop/naming.h>

size_t iiop_name_max_components(const char *s)
{
  size_t n = 1;
  for (; s && *s; s++)
    n += *s == '/';
  return n;
}

int iiop_name_parse(char *buf, iiop_name_component *out, size_t max, size_t *count)
{
  if (!buf || !out || !count)
    return CDR_E_INVALID;
  size_t n = 0;
  char *r = buf, *w = buf;
  for (;;) {
    if (n == max)
      return CDR_E_LIMIT;
    char *id = w, *kind = NULL;
    int any = 0;
    while (*r && *r != '/') {
      if (*r == '\\') {
        if (!r[1])
          return CDR_E_INVALID;
        *w++ = r[1];
        r += 2;
        any = 1;
      } else if (*r == '.') {
        if (kind)
          return CDR_E_INVALID;
        *w++ = '\0';
        kind = w;
        r++;
      } else {
        *w++ = *r++;
        any = 1;
      }
    }
    int last = *r == '\0';
    *w++ = '\0';
    r++;
    if (!any && !kind)
      return CDR_E_INVALID; /* an empty component */
    if (kind && !*kind && *id)
      return CDR_E_INVALID; /* "id." */
    out[n].id = id;
    out[n].kind = kind ? kind : w - 1; /* the NUL just written: "" */
    n++;
    if (last) {
      *count = n;
      return CDR_OK;
    }
  }
}

static int hexdigit(int h)
{
  if (h >= '0' && h <= '9')
    return h - '0';
  if (h >= 'a' && h <= 'f')
    return h - 'a' + 10;
  if (h >= 'A' && h <= 'F')
    return h - 'A' + 10;
  return -1;
}

int iiop_url_unescape(const char *s, size_t n, char *out)
{
  if ((!s && n) || !out)
    return CDR_E_INVALID;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    int c = (unsigned char)s[i];
    if (c == '%') {
      int hi = i + 1 < n ? hexdigit((unsigned char)s[i + 1]) : -1;
      int lo = i + 2 < n ? hexdigit((unsigned char)s[i + 2]) : -1;
      if (hi < 0 || lo < 0 || (hi | lo) == 0)
        return CDR_E_INVALID;
      c = hi << 4 | lo;
      i += 2;
    } else if (c == 0) {
      return CDR_E_INVALID;
    }
    out[o++] = (char)c;
  }
  out[o] = '\0';
  return CDR_OK;
}

int iiop_corbaname_parse(const char *url, cdr_arena *a, iiop_corbaname *out)
{
  return iiop_corbaname_parse_why(url, a, out, NULL);
}

static void why_set(iiop_url_error *why, iiop_url_stage stage, int code)
{
  if (why) {
    why->stage = stage;
    why->code = code;
  }
}

/* A corbaname URL refused for its NAME (STAGE): omniORB reads the
 * addresses and key first, so their faults come first. */
static int name_refused(const char *base, cdr_arena *a, iiop_url_error *why, iiop_url_stage stage)
{
  if (why) {
    iiop_corbaloc cl;
    iiop_url_error bw;
    int rc = iiop_corbaloc_parse_why(base, a, &cl, &bw);
    if (rc == CDR_E_NOMEM) {
      why_set(why, IIOP_URL_OK, CDR_E_NOMEM); /* (refused all the same) */
      return CDR_E_INVALID;
    }
    if (rc != CDR_OK && bw.stage != IIOP_URL_OK) {
      *why = bw;
      return CDR_E_INVALID;
    }
    why_set(why, stage, CDR_E_INVALID);
  }
  return CDR_E_INVALID;
}

int iiop_corbaname_parse_why(const char *url, cdr_arena *a, iiop_corbaname *out,
                             iiop_url_error *why)
{
  why_set(why, IIOP_URL_OK, CDR_OK);
  if (!url || !a || !out)
    return CDR_E_INVALID;
  if (strncasecmp(url, "corbaname:", 10) != 0) {
    why_set(why, IIOP_URL_SCHEME, CDR_E_INVALID);
    return CDR_E_INVALID;
  }
  const char *addrs = url + 10, *hash = strchr(addrs, '#');
  size_t alen = hash ? (size_t)(hash - addrs) : strlen(addrs);
  if (alen == 0) {
    why_set(why, IIOP_URL_SCHEME, CDR_E_INVALID); /* no address, so no protocol */
    return CDR_E_INVALID;
  }
  int has_key = memchr(addrs, '/', alen) != NULL;
  size_t blen = 9 + alen + (has_key ? 0 : 12) + 1;
  iiop_corbaname t = { 0 };
  t.base = cdr_arena_alloc(a, blen, 1);
  if (!t.base)
    return CDR_E_NOMEM;
  snprintf(t.base, blen, "corbaloc:%.*s%s", (int)alen, addrs, has_key ? "" : "/NameService");
  if (hash && hash[1] == '\0')
    return name_refused(t.base, a, why, IIOP_URL_SYNTAX);
  if (hash) {
    size_t nlen = strlen(hash + 1);
    char *name = cdr_arena_alloc(a, nlen + 1, 1);
    if (!name)
      return CDR_E_NOMEM;
    if (iiop_url_unescape(hash + 1, nlen, name) != CDR_OK)
      return name_refused(t.base, a, why, IIOP_URL_KEY);
    size_t max = iiop_name_max_components(name); /* of the decoded name: %2F is a '/' */
    t.comps = cdr_arena_alloc(a, max * sizeof *t.comps, _Alignof(iiop_name_component));
    if (!t.comps)
      return CDR_E_NOMEM;
    if (iiop_name_parse(name, t.comps, max, &t.ncomps) != CDR_OK)
      return name_refused(t.base, a, why, IIOP_URL_SYNTAX);
    t.has_name = 1;
  }
  *out = t;
  return CDR_OK;
}

int iiop_rir_key(const char *rest, char *buf, size_t size)
{
  if (!rest || !buf || size == 0)
    return CDR_E_INVALID;
  if (*rest == '\0' || !strcmp(rest, "/")) {
    if (size < sizeof "NameService")
      return CDR_E_LIMIT;
    memcpy(buf, "NameService", sizeof "NameService");
    return CDR_OK;
  }
  if (*rest != '/')
    return CDR_E_INVALID; /* "rir:,iiop:..." or junk: rir stands alone */
  size_t n = strlen(rest + 1);
  if (n >= size)
    return CDR_E_LIMIT;
  return iiop_url_unescape(rest + 1, n, buf);
}
