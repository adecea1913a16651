/* repoid.c - repository IDs: the IDL form, the RMI hashed form, the per-type cache. */
#include "internal.h"
#include <cdr/repoid.h>
#include <stdlib.h>
#include <openssl/evp.h>

/* Hidden, for check_repoid: the DataOutputStream image SHA-1 runs over. */
CDR_HIDDEN int cdr__rmi_hash_input(const cdr_rmi_class *cls, const cdr_allocator *a,
                                   uint8_t **image_out, size_t *len_out);

#define HEX16 16 /* a 64-bit value as upper-case hex */
#define JAVA_UTF_MAX 65535u /* writeUTF's length field is 16 bits */
#define RMI_MAX_FIELDS 65535u
#define JVM_MAX_DIMS 255u

static const char hexdigits[] = "0123456789ABCDEF";

static int is_alpha(int c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* ------------------------------------------------------------ IDL form */

/* The components of a scoped name, either "A::B" or "A/B". */
struct scoped {
  const char *s;   /* after any leading "::" */
  size_t seplen;   /* 2 for "::", 1 for "/" */
};

static size_t ident_len(const char *s)
{
  size_t n = 0;
  if (!(is_alpha(s[0]) || s[0] == '_'))
    return 0;
  while (is_alpha(s[n]) || is_digit(s[n]) || s[n] == '_')
    n++;
  return n;
}

/* Validates SCOPED; sets *LEN to the bytes of its ID-style form ("A/B"). */
static int scoped_parse(const char *scoped, struct scoped *sc, size_t *len)
{
  const char *p = scoped;
  size_t n = 0;
  sc->seplen = strstr(scoped, "::") ? 2 : 1;
  if (sc->seplen == 2 && p[0] == ':' && p[1] == ':')
    p += 2;
  sc->s = p;
  for (;;) {
    size_t id = ident_len(p);
    if (id == 0)
      return CDR_E_INVALID;
    n += id;
    p += id;
    if (*p == '\0')
      break;
    if (sc->seplen == 2 ? (p[0] != ':' || p[1] != ':') : p[0] != '/')
      return CDR_E_INVALID;
    p += sc->seplen;
    n++;
  }
  *len = n;
  return CDR_OK;
}

static int prefix_check(const char *prefix, size_t *len)
{
  size_t n = 0, seg = 0;
  for (; prefix[n]; n++) {
    int c = (unsigned char)prefix[n];
    if (c == '/') {
      if (seg == 0)
        return CDR_E_INVALID;
      seg = 0;
    } else if (is_alpha(c) || is_digit(c) || c == '_' || c == '-' || c == '.') {
      seg++;
    } else {
      return CDR_E_INVALID;
    }
  }
  if (seg == 0)
    return CDR_E_INVALID;
  *len = n;
  return CDR_OK;
}

static int version_check(const char *v, size_t *len)
{
  size_t n = 0, dot;
  while (is_digit(v[n]))
    n++;
  if (n == 0 || v[n] != '.')
    return CDR_E_INVALID;
  dot = n++;
  while (is_digit(v[n]))
    n++;
  if (n == dot + 1 || v[n] != '\0')
    return CDR_E_INVALID;
  *len = n;
  return CDR_OK;
}

struct idl_id {
  const char *prefix, *version;
  size_t plen, slen, vlen, len;
  struct scoped sc;
};

static int idl_measure(const char *prefix, const char *scoped, const char *version, struct idl_id *id)
{
  int rc;
  if (scoped == NULL)
    return CDR_E_INVALID;
  id->prefix = prefix && prefix[0] ? prefix : NULL;
  id->version = version ? version : "1.0";
  id->plen = 0;
  if (id->prefix && (rc = prefix_check(id->prefix, &id->plen)) < 0)
    return rc;
  if ((rc = scoped_parse(scoped, &id->sc, &id->slen)) < 0)
    return rc;
  if ((rc = version_check(id->version, &id->vlen)) < 0)
    return rc;
  id->len = 4 + (id->prefix ? id->plen + 1 : 0) + id->slen + 1 + id->vlen;
  return CDR_OK;
}

static void idl_write(const struct idl_id *id, char *dst)
{
  const char *p = id->sc.s;
  memcpy(dst, "IDL:", 4);
  dst += 4;
  if (id->prefix) {
    memcpy(dst, id->prefix, id->plen);
    dst += id->plen;
    *dst++ = '/';
  }
  while (*p) {
    if (*p == ':' || *p == '/') {
      *dst++ = '/';
      p += id->sc.seplen;
    } else {
      *dst++ = *p++;
    }
  }
  *dst++ = ':';
  memcpy(dst, id->version, id->vlen + 1);
}

int cdr_repoid_idl(const char *prefix, const char *scoped, const char *version,
                   char *buf, size_t bufsize, size_t *len_out)
{
  struct idl_id id;
  int rc;
  if (len_out == NULL || (buf == NULL && bufsize != 0))
    return CDR_E_INVALID;
  if ((rc = idl_measure(prefix, scoped, version, &id)) < 0)
    return rc;
  if (buf != NULL) {
    if (bufsize <= id.len)
      return CDR_E_LIMIT;
    idl_write(&id, buf);
  }
  *len_out = id.len;
  return CDR_OK;
}

int cdr_repoid_idl_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  const cdr_repoid_idl_name *nm = arg;
  struct idl_id id;
  char *s;
  int rc;
  if (nm == NULL || id_out == NULL)
    return CDR_E_INVALID;
  if ((rc = idl_measure(nm->prefix, nm->scoped, nm->version, &id)) < 0)
    return rc;
  if ((s = cdr__malloc(a, id.len + 1)) == NULL)
    return CDR_E_NOMEM;
  idl_write(&id, s);
  *id_out = s;
  return CDR_OK;
}

/* ------------------------------------------------------------ Java strings */

/* Java strings are UTF-16 units; ours are UTF-8 that may also use modified
 * UTF-8's C0 80 and 3-byte surrogates.  u16_next() decodes the character at
 * S[*POS] (POS < N) into 1 or 2 units, and returns how many, or
 * CDR_E_CODESET. */
static int u16_next(const unsigned char *s, size_t n, size_t *pos, uint16_t u[2])
{
  size_t i = *pos, need;
  uint32_t c = s[i], min;
  if (c < 0x80) {
    *pos = i + 1;
    u[0] = (uint16_t)c;
    return 1;
  }
  if (c == 0xC0 && i + 1 < n && s[i + 1] == 0x80) { /* modified UTF-8's U+0000 */
    *pos = i + 2;
    u[0] = 0;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1, min = 0x80, c &= 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2, min = 0x800, c &= 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3, min = 0x10000, c &= 0x07;
  } else {
    return CDR_E_CODESET;
  }
  if (n - i - 1 < need)
    return CDR_E_CODESET;
  for (size_t k = 1; k <= need; k++) {
    if ((s[i + k] & 0xC0) != 0x80)
      return CDR_E_CODESET;
    c = (c << 6) | (s[i + k] & 0x3F);
  }
  if (c < min || c > 0x10FFFF)
    return CDR_E_CODESET;
  *pos = i + 1 + need;
  if (c < 0x10000) {
    u[0] = (uint16_t)c; /* surrogates pass: Java strings may hold them */
    return 1;
  }
  c -= 0x10000;
  u[0] = (uint16_t)(0xD800 + (c >> 10));
  u[1] = (uint16_t)(0xDC00 + (c & 0x3FF));
  return 2;
}

static size_t mutf8_unit_len(uint16_t u)
{
  return u == 0 ? 2 : u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
}

static char *mutf8_put(char *dst, uint16_t u)
{
  if (u != 0 && u < 0x80) {
    *dst++ = (char)u;
  } else if (u < 0x800) {
    *dst++ = (char)(0xC0 | (u >> 6));
    *dst++ = (char)(0x80 | (u & 0x3F));
  } else {
    *dst++ = (char)(0xE0 | (u >> 12));
    *dst++ = (char)(0x80 | ((u >> 6) & 0x3F));
    *dst++ = (char)(0x80 | (u & 0x3F));
  }
  return dst;
}

/* The bytes of S in Java's modified UTF-8 (what writeUTF writes after its
 * length), or CDR_E_CODESET / CDR_E_LIMIT. */
static int mutf8_len(const char *s, size_t *len)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s), pos = 0, total = 0;
  uint16_t u[2];
  while (pos < n) {
    int k = u16_next(p, n, &pos, u);
    if (k < 0)
      return k;
    for (int j = 0; j < k; j++)
      total += mutf8_unit_len(u[j]);
    if (total > JAVA_UTF_MAX)
      return CDR_E_LIMIT;
  }
  *len = total;
  return CDR_OK;
}

/* DataOutputStream.writeUTF(S); S was validated by mutf8_len(). */
static char *write_utf(char *dst, const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s), pos = 0, mlen;
  char *start = dst + 2;
  uint16_t u[2];
  dst = start;
  while (pos < n) {
    int k = u16_next(p, n, &pos, u);
    for (int j = 0; j < k; j++)
      dst = mutf8_put(dst, u[j]);
  }
  mlen = (size_t)(dst - start);
  start[-2] = (char)(mlen >> 8);
  start[-1] = (char)(mlen & 0xFF);
  return dst;
}

/* String.compareTo: UTF-16 code unit order (not code point order). */
static int u16_cmp(const char *x, const char *y)
{
  const unsigned char *a = (const unsigned char *)x, *b = (const unsigned char *)y;
  size_t na = strlen(x), nb = strlen(y), pa = 0, pb = 0;
  uint16_t ua[2], ub[2];
  int ka = 0, kb = 0, ia = 0, ib = 0;
  for (;;) {
    if (ia == ka) {
      if (pa == na)
        break;
      ka = u16_next(a, na, &pa, ua), ia = 0;
    }
    if (ib == kb) {
      if (pb == nb)
        return 1;
      kb = u16_next(b, nb, &pb, ub), ib = 0;
    }
    if (ua[ia] != ub[ib])
      return ua[ia] < ub[ib] ? -1 : 1;
    ia++, ib++;
  }
  return (ib == kb && pb == nb) ? 0 : -1;
}

/* A JVM field descriptor (JVMS 4.3.2) with a non-empty class name in each
 * '/' segment; the characters themselves are checked by the encoder. */
static int descriptor_check(const char *d)
{
  size_t i = 0, seg = 0;
  while (d[i] == '[')
    if (++i > JVM_MAX_DIMS)
      return CDR_E_INVALID;
  switch (d[i]) {
  case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
    return d[i + 1] == '\0' ? CDR_OK : CDR_E_INVALID;
  case 'L':
    for (i++; d[i] != ';'; i++) {
      if (d[i] == '\0' || d[i] == '.' || d[i] == '[')
        return CDR_E_INVALID;
      if (d[i] == '/') {
        if (seg == 0)
          return CDR_E_INVALID;
        seg = 0;
      } else {
        seg++;
      }
    }
    return seg != 0 && d[i + 1] == '\0' ? CDR_OK : CDR_E_INVALID;
  default:
    return CDR_E_INVALID;
  }
}

/* ------------------------------------------------------------ RMI hash */

static int rmi_hash_depth(const cdr_rmi_class *cls, const cdr_allocator *a, unsigned depth, uint64_t *hash);

static int serial_field(const cdr_rmi_field *f)
{
  return !(f->modifiers & (CDR_RMI_FIELD_STATIC | CDR_RMI_FIELD_TRANSIENT));
}

static int field_order(const void *x, const void *y)
{
  const cdr_rmi_field *f = *(const cdr_rmi_field *const *)x, *g = *(const cdr_rmi_field *const *)y;
  return u16_cmp(f->name, g->name);
}

static int rmi_image(const cdr_rmi_class *cls, const cdr_allocator *a, unsigned depth,
                     uint8_t **image_out, size_t *len_out)
{
  const cdr_rmi_class *sup = cls->superclass;
  const cdr_rmi_field **order = NULL;
  uint64_t super_hash = 0;
  size_t n = 0, len = 12, nlen, dlen;
  char *img, *p;
  int rc;

  if (cls->nfields > 0 && cls->fields == NULL)
    return CDR_E_INVALID;
  if (cls->nfields > RMI_MAX_FIELDS)
    return CDR_E_LIMIT;
  for (size_t i = 0; i < cls->nfields; i++) {
    const cdr_rmi_field *f = &cls->fields[i];
    if (!serial_field(f))
      continue;
    if (f->name == NULL || f->name[0] == '\0' || f->descriptor == NULL)
      return CDR_E_INVALID;
    if ((rc = descriptor_check(f->descriptor)) < 0 || (rc = mutf8_len(f->name, &nlen)) < 0 ||
        (rc = mutf8_len(f->descriptor, &dlen)) < 0)
      return rc;
    if (4 + nlen + dlen > SIZE_MAX - len) /* only a 32-bit size_t can overflow */
      return CDR_E_LIMIT;
    len += 4 + nlen + dlen;
    n++;
  }
  if (sup != NULL && sup->kind != CDR_RMI_NOT_SERIALIZABLE) {
    if (sup->kind != CDR_RMI_SERIALIZABLE)
      return CDR_E_INVALID;
    if ((rc = rmi_hash_depth(sup, a, depth + 1, &super_hash)) < 0)
      return rc;
  }
  if (n > 0) {
    if ((order = cdr__malloc(a, n * sizeof *order)) == NULL)
      return CDR_E_NOMEM;
    n = 0;
    for (size_t i = 0; i < cls->nfields; i++)
      if (serial_field(&cls->fields[i]))
        order[n++] = &cls->fields[i];
    qsort(order, n, sizeof *order, field_order);
    for (size_t i = 1; i < n; i++) {
      if (u16_cmp(order[i - 1]->name, order[i]->name) == 0) {
        cdr__free(a, order);
        return CDR_E_INVALID;
      }
    }
  }
  if ((img = cdr__malloc(a, len)) == NULL) {
    cdr__free(a, order);
    return CDR_E_NOMEM;
  }
  for (int i = 0; i < 8; i++) /* writeLong: big-endian */
    img[i] = (char)(super_hash >> (56 - 8 * i));
  memcpy(img + 8, cls->has_write_object ? "\0\0\0\2" : "\0\0\0\1", 4); /* writeInt */
  p = img + 12;
  for (size_t i = 0; i < n; i++) {
    p = write_utf(p, order[i]->name);
    p = write_utf(p, order[i]->descriptor);
  }
  cdr__free(a, order);
  *image_out = (uint8_t *)img;
  *len_out = len;
  return CDR_OK;
}

static int sha1_fold(const uint8_t *data, size_t len, uint64_t *hash)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int ok;
  uint64_t h = 0;
  if (ctx == NULL)
    return CDR_E_NOMEM;
  ok = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) == 1 && EVP_DigestUpdate(ctx, data, len) == 1 &&
       EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen >= 8;
  EVP_MD_CTX_free(ctx);
  if (!ok)
    return CDR_E_UNSUPPORTED;
  for (int i = 0; i < 8; i++)
    h |= (uint64_t)md[i] << (8 * i);
  *hash = h;
  return CDR_OK;
}

static int rmi_hash_depth(const cdr_rmi_class *cls, const cdr_allocator *a, unsigned depth, uint64_t *hash)
{
  uint8_t *img;
  size_t len;
  int rc;
  if (depth > CDR_RMI_MAX_DEPTH)
    return CDR_E_LIMIT;
  switch (cls->kind) {
  case CDR_RMI_NOT_SERIALIZABLE:
    *hash = 0;
    return CDR_OK;
  case CDR_RMI_EXTERNALIZABLE:
    *hash = 1;
    return CDR_OK;
  case CDR_RMI_SERIALIZABLE:
    break;
  default:
    return CDR_E_INVALID;
  }
  if ((rc = rmi_image(cls, a, depth, &img, &len)) < 0)
    return rc;
  rc = sha1_fold(img, len, hash);
  cdr__free(a, img);
  return rc;
}

int cdr__rmi_hash_input(const cdr_rmi_class *cls, const cdr_allocator *a,
                        uint8_t **image_out, size_t *len_out)
{
  if (cls == NULL || image_out == NULL || len_out == NULL || cls->kind != CDR_RMI_SERIALIZABLE)
    return CDR_E_INVALID;
  return rmi_image(cls, a, 0, image_out, len_out);
}

int cdr_rmi_hash(const cdr_rmi_class *cls, const cdr_allocator *a, uint64_t *hash_out)
{
  uint64_t h;
  int rc;
  if (cls == NULL || hash_out == NULL)
    return CDR_E_INVALID;
  if ((rc = rmi_hash_depth(cls, a, 0, &h)) < 0)
    return rc;
  *hash_out = h;
  return CDR_OK;
}

/* ------------------------------------------------------------ RMI ID */

/* Latin-1 characters that stay as they are in an RMI class name: those legal
 * in an IDL identifier, plus '.' (the JDK's RepositoryId.IDL_IDENTIFIER_CHARS,
 * which GlassFish shares).  Bit c of word c / 32. */
static const uint32_t rmi_name_chars[8] = {
  0x00000000, /* 00-1f */
  0x03FF4000, /* 20-3f: '.', '0'-'9' */
  0x87FFFFFE, /* 40-5f: 'A'-'Z', '_' */
  0x07FFFFFE, /* 60-7f: 'a'-'z' */
  0x00000000, /* 80-9f */
  0x00000000, /* a0-bf */
  0x9F7EFFFF, /* c0-df: all but D0 D7 DD DE */
  0x9F7EFFFF, /* e0-ff: all but F0 F7 FD FE */
};

static int rmi_name_keeps(uint16_t u)
{
  return u < 256 && (rmi_name_chars[u >> 5] >> (u & 31)) & 1;
}

/* Validates the Java binary name S[0..N) and measures it escaped. */
static int class_name_measure(const char *s, size_t n, size_t *len)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t pos = 0, total = 0, seg = 0;
  uint16_t u[2];
  if (n == 0)
    return CDR_E_INVALID;
  if (n > (SIZE_MAX - 64) / 6 - JVM_MAX_DIMS) /* each unit escapes to at most 6 bytes */
    return CDR_E_LIMIT;
  while (pos < n) {
    int k = u16_next(p, n, &pos, u);
    if (k < 0)
      return k;
    for (int j = 0; j < k; j++) {
      if (u[j] == '/' || u[j] == ';' || u[j] == '[')
        return CDR_E_INVALID;
      if (u[j] == '.') {
        if (seg == 0)
          return CDR_E_INVALID;
        seg = 0;
      } else {
        seg++;
      }
      total += !rmi_name_keeps(u[j]) ? 6 : u[j] < 0x80 ? 1 : 2;
    }
  }
  if (seg == 0)
    return CDR_E_INVALID;
  *len = total;
  return CDR_OK;
}

static char *class_name_write(char *dst, const char *s, size_t n)
{
  const unsigned char *p = (const unsigned char *)s;
  size_t pos = 0;
  uint16_t u[2];
  while (pos < n) {
    int k = u16_next(p, n, &pos, u);
    for (int j = 0; j < k; j++) {
      uint16_t c = u[j];
      if (!rmi_name_keeps(c)) {
        *dst++ = '\\';
        *dst++ = 'U';
        for (int sh = 12; sh >= 0; sh -= 4)
          *dst++ = hexdigits[(c >> sh) & 0xF];
      } else if (c < 0x80) {
        *dst++ = (char)c;
      } else {
        *dst++ = (char)(0xC0 | (c >> 6));
        *dst++ = (char)(0x80 | (c & 0x3F));
      }
    }
  }
  return dst;
}

static char *hex16_write(char *dst, uint64_t v)
{
  for (int sh = 60; sh >= 0; sh -= 4)
    *dst++ = hexdigits[(v >> sh) & 0xF];
  return dst;
}

/* Everything an RMI ID is written from. */
struct rmi_id {
  const char *name;  /* the bytes escaped (the element's name for arrays of objects) */
  size_t name_n;
  size_t dims;       /* array dimensions: '[' written before 'L' */
  int primitive;     /* an array of primitives: NAME is copied as it is */
  int suid_too;      /* the SUID follows the hash */
  uint64_t hash, suid;
  size_t len;
};

static int rmi_measure(const cdr_rmi_class *cls, const cdr_allocator *a, struct rmi_id *id)
{
  const cdr_rmi_class *c = cls;
  size_t esc;
  int rc;
  if (cls == NULL || cls->name == NULL)
    return CDR_E_INVALID;
  memset(id, 0, sizeof *id);
  if (cls->kind == CDR_RMI_ARRAY) {
    const char *n = cls->name;
    while (n[id->dims] == '[')
      if (++id->dims > JVM_MAX_DIMS)
        return CDR_E_INVALID;
    if (id->dims == 0)
      return CDR_E_INVALID;
    n += id->dims;
    if (n[0] != 'L') {
      if (strchr("BCDFIJSZ", n[0]) == NULL || n[0] == '\0' || n[1] != '\0' || cls->element)
        return CDR_E_INVALID;
      id->primitive = 1;
      id->name = cls->name;
      id->name_n = id->dims + 1;
      id->len = 4 + id->name_n + 1 + HEX16;
      return CDR_OK;
    }
    c = cls->element;
    if (c == NULL || c->kind == CDR_RMI_ARRAY || c->name == NULL)
      return CDR_E_INVALID;
    size_t en = strlen(c->name);
    if (strncmp(n + 1, c->name, en) != 0 || n[1 + en] != ';' || n[2 + en] != '\0')
      return CDR_E_INVALID;
  } else if (cls->element) {
    return CDR_E_INVALID;
  }
  id->name = c->name;
  id->name_n = strlen(c->name);
  if ((rc = class_name_measure(id->name, id->name_n, &esc)) < 0)
    return rc;
  if ((rc = cdr_rmi_hash(c, a, &id->hash)) < 0)
    return rc;
  id->suid_too = c->kind != CDR_RMI_NOT_SERIALIZABLE;
  id->suid = c->suid;
  id->len = 4 + (id->dims ? id->dims + 2 : 0) + esc + 1 + HEX16 + (id->suid_too ? 1 + HEX16 : 0);
  return CDR_OK;
}

static void rmi_write(const struct rmi_id *id, char *dst)
{
  memcpy(dst, "RMI:", 4);
  dst += 4;
  if (id->primitive) {
    memcpy(dst, id->name, id->name_n);
    dst += id->name_n;
  } else {
    if (id->dims) {
      memset(dst, '[', id->dims);
      dst += id->dims;
      *dst++ = 'L';
    }
    dst = class_name_write(dst, id->name, id->name_n);
    if (id->dims)
      *dst++ = ';';
  }
  *dst++ = ':';
  dst = hex16_write(dst, id->hash);
  if (id->suid_too) {
    *dst++ = ':';
    dst = hex16_write(dst, id->suid);
  }
  *dst = '\0';
}

int cdr_repoid_rmi(const cdr_rmi_class *cls, const cdr_allocator *a,
                   char *buf, size_t bufsize, size_t *len_out)
{
  struct rmi_id id;
  int rc;
  if (len_out == NULL || (buf == NULL && bufsize != 0))
    return CDR_E_INVALID;
  if ((rc = rmi_measure(cls, a, &id)) < 0)
    return rc;
  if (buf != NULL) {
    if (bufsize <= id.len)
      return CDR_E_LIMIT;
    rmi_write(&id, buf);
  }
  *len_out = id.len;
  return CDR_OK;
}

int cdr_repoid_rmi_compute(const void *arg, char **id_out, const cdr_allocator *a)
{
  struct rmi_id id;
  char *s;
  int rc;
  if (id_out == NULL)
    return CDR_E_INVALID;
  if ((rc = rmi_measure(arg, a, &id)) < 0)
    return rc;
  if ((s = cdr__malloc(a, id.len + 1)) == NULL)
    return CDR_E_NOMEM;
  rmi_write(&id, s);
  *id_out = s;
  return CDR_OK;
}

/* ------------------------------------------------------------ cache */

static const char *cache_fill(cdr_repoid_cache *c, const cdr_allocator *a,
                              cdr_repoid_compute_fn compute, const void *arg, int *status_out)
{
  const char *expected = NULL;
  char *mine = NULL;
  int rc = compute(arg, &mine, a);
  if (rc != CDR_OK || mine == NULL) {
    if (status_out)
      *status_out = rc < 0 ? rc : CDR_E_INVALID;
    return NULL;
  }
  if (status_out)
    *status_out = CDR_OK;
  /* Release publishes the string's bytes with the pointer; a loser's acquire
   * sees the winner's bytes. */
  if (__atomic_compare_exchange_n(&c->id, &expected, mine, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
    return mine;
  cdr__free(a, mine);
  return expected;
}

const char *cdr_repoid_cache_get(cdr_repoid_cache *c, const cdr_allocator *a,
                                 cdr_repoid_compute_fn compute, const void *arg, int *status_out)
{
  const char *id;
  if (c == NULL || compute == NULL) {
    if (status_out)
      *status_out = CDR_E_INVALID;
    return NULL;
  }
  id = __atomic_load_n(&c->id, __ATOMIC_ACQUIRE);
  if (CDR_LIKELY(id != NULL)) {
    if (status_out)
      *status_out = CDR_OK;
    return id;
  }
  return cache_fill(c, a, compute, arg, status_out);
}

void cdr_repoid_cache_clear(cdr_repoid_cache *c, const cdr_allocator *a)
{
  const char *id;
  if (c == NULL)
    return;
  id = __atomic_exchange_n(&c->id, NULL, __ATOMIC_ACQUIRE);
  cdr__free(a, (void *)id);
}
