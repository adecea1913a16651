/* tc-dump.c - the TypeCodes of tclist.h's types, from idl2c's descriptors.
 *
 *   tc-dump            print "NAME HEX" per type: the TypeCode as
 *                      cdr_put_typecode writes it (little-endian, offset 0)
 *   tc-dump OMNI.txt   compare with omni-tc-dump's lines: omniORB's octets
 *                      are read back (cdr_get_typecode), must be
 *                      TypeCode::equal to idl2c's descriptor, and written
 *                      again must give exactly idl2c's octets (omniORB
 *                      leaves its alignment padding uninitialised, so the
 *                      raw octets differ there).  Exit 1 on any difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "types.h"

/* TC's octets into a malloc'd buffer *P (its size *N); a status. */
static int put(CORBA_TypeCode tc, uint8_t **p, size_t *n)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = 1;
  cdr_out o;
  cdr_out_init(&o, &op);
  int st = cdr_put_typecode(&o, tc);
  if (st == CDR_OK) {
    *n = cdr_out_size(&o);
    *p = malloc(*n ? *n : 1);
    if (!*p)
      st = CDR_E_NOMEM;
    else
      memcpy(*p, cdr_out_data(&o), *n);
  }
  cdr_out_close(&o);
  return st;
}

static char *omni_text;

/* omniORB's octets of NAME into *P, *N: 0, or -1 when absent or malformed. */
static int omni_octets(const char *name, uint8_t **p, size_t *n)
{
  size_t len = strlen(name);
  for (const char *l = omni_text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (strncmp(l, name, len) || l[len] != ' ')
      continue;
    const char *h = l + len + 1;
    size_t hn = strcspn(h, "\n");
    if (hn % 2)
      return -1;
    *n = hn / 2;
    *p = malloc(*n ? *n : 1);
    if (!*p)
      return -1;
    for (size_t k = 0; k < *n; k++) {
      unsigned v;
      if (sscanf(h + 2 * k, "%2x", &v) != 1)
        return -1;
      (*p)[k] = (uint8_t)v;
    }
    return 0;
  }
  return -1;
}

static int compare(const char *name, CORBA_TypeCode tc)
{
  uint8_t *mine = NULL, *theirs = NULL, *again = NULL;
  size_t nm = 0, nt = 0, na = 0;
  int bad = 1;
  cdr_arena arena;
  cdr_arena_init(&arena, NULL);
  if (put(tc, &mine, &nm) != CDR_OK) {
    fprintf(stderr, "%s: cannot write idl2c's TypeCode\n", name);
    goto out;
  }
  if (omni_octets(name, &theirs, &nt)) {
    fprintf(stderr, "%s: no omniORB TypeCode\n", name);
    goto out;
  }
  cdr_in i;
  cdr_in_init(&i, theirs, nt, 1, NULL);
  cdr_in_set_arena(&i, &arena);
  cdr_typecode otc;
  int st = cdr_get_typecode(&i, &otc);
  if (st != CDR_OK || cdr_in_remaining(&i) != 0) {
    fprintf(stderr, "%s: omniORB's TypeCode does not read: %s\n", name, cdr_strerror(st));
    goto out;
  }
  if (cdr_tc_equal(otc, tc) != 1) {
    fprintf(stderr, "%s: omniORB's TypeCode is not equal to idl2c's\n", name);
    goto out;
  }
  if (put(otc, &again, &na) != CDR_OK || na != nm || memcmp(again, mine, nm)) {
    fprintf(stderr, "%s: omniORB's TypeCode written again differs from idl2c's\n", name);
    goto out;
  }
  bad = 0;
out:
  cdr_arena_free(&arena);
  free(mine);
  free(theirs);
  free(again);
  return bad;
}

static int dump(const char *name, CORBA_TypeCode tc)
{
  uint8_t *p;
  size_t n;
  int st = put(tc, &p, &n);
  if (st != CDR_OK) {
    fprintf(stderr, "tc-dump: %s: %s\n", name, cdr_strerror(st));
    return 1;
  }
  printf("%s ", name);
  for (size_t k = 0; k < n; k++)
    printf("%02x", p[k]);
  printf("\n");
  free(p);
  return 0;
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  size_t r;
  while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      char *nb = realloc(b, 2 * cap + 1);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (b)
    b[n] = 0;
  return b;
}

int main(int argc, char **argv)
{
  int bad = 0, count = 0;
  if (argc > 1) {
    omni_text = slurp(argv[1]);
    if (!omni_text) {
      perror(argv[1]);
      return 2;
    }
#define X(c, cxx) bad += compare(#c, TC_##c), count++;
#include "tclist.h"
#undef X
    free(omni_text);
    printf("tc-dump: %d of %d TypeCodes equal to omniORB's\n", count - bad, count);
    return bad != 0;
  }
#define X(c, cxx) bad |= dump(#c, TC_##c);
#include "tclist.h"
#undef X
  return bad;
}
