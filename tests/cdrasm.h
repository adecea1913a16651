/* cdrasm.h - octets assembled by CDR's rules, independently of the
 * library, for the TypeCode and Any tests (check_typecode, check_any):
 * numbers aligned relative to the innermost open encapsulation, strings,
 * encapsulations (length patched at a_end), TypeCode kinds, heads and
 * indirections.  Header-only, on testutil.h's tu_buf. */
#ifndef CDRASM_H
#define CDRASM_H

#include "testutil.h"

/* Octets being assembled: the buffer, the byte order, the open
 * encapsulations' origins and length fields (at most 16 deep). */
typedef struct asmb {
  tu_buf t;
  int le;
  size_t origin[16], lenpos[16];
  int depth;
} asmb;

static inline void a_init(asmb *a, int le)
{
  memset(a, 0, sizeof *a);
  a->le = le;
}
/* Where alignment counts from: the innermost encapsulation's start. */
static inline size_t a_org(const asmb *a) { return a->depth ? a->origin[a->depth - 1] : 0; }
static inline void a_num(asmb *a, uint64_t v, size_t n) { tu_num(&a->t, a_org(a), v, n, a->le); }
static inline void a_ul(asmb *a, uint32_t v) { a_num(a, v, 4); }
static inline void a_us(asmb *a, uint16_t v) { a_num(a, v, 2); }
static inline void a_oct(asmb *a, uint8_t v) { tu_u8(&a->t, v); }
/* A TypeCode kind K; the position of its field (for indirections). */
static inline size_t a_kind(asmb *a, uint32_t k)
{
  tu_pad(&a->t, a_org(a), 4);
  size_t at = a->t.n;
  a_ul(a, k);
  return at;
}
static inline void a_str(asmb *a, const char *s)
{
  a_ul(a, (uint32_t)strlen(s) + 1);
  tu_put(&a->t, s, strlen(s) + 1);
}
/* Open an encapsulation: its length (patched by a_end) and byte-order octet. */
static inline void a_begin(asmb *a)
{
  ck_assert_int_lt(a->depth, 16);
  a_ul(a, 0);
  a->lenpos[a->depth] = a->t.n - 4;
  a->origin[a->depth++] = a->t.n;
  a_oct(a, (uint8_t)a->le);
}
static inline void a_end(asmb *a)
{
  a->depth--;
  tu_store(a->t.b + a->lenpos[a->depth], a->t.n - a->origin[a->depth], 4, a->le);
}
/* An indirection to the kind field at TARGET. */
static inline void a_ind(asmb *a, size_t target)
{
  a_ul(a, 0xffffffffu);
  a_ul(a, (uint32_t)(int32_t)((int64_t)target - (int64_t)a->t.n));
}
/* Complex TypeCode head: kind, encapsulation, ID and name; the kind's
 * position. */
static inline size_t a_head(asmb *a, uint32_t k, const char *id, const char *name)
{
  size_t at = a_kind(a, k);
  a_begin(a);
  a_str(a, id);
  a_str(a, name);
  return at;
}

#endif
