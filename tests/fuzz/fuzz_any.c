/* tests/fuzz/fuzz_any.c - fuzz target: the any reader (cdr_get_any(),
 * cdr/any.h): a TypeCode of any kind and a value by it alone, in the C
 * layout of the mapping; nested anys, valuetypes, object references (as
 * IOR structures); and what a program then does with it: print, deep copy,
 * compare, free, send on (as its original octets and encoded again).
 *
 * Input: a configuration octet, then CDR octets: an any.  Configuration:
 * bit 0 byte order, bit 1 small limits (max_seq 64, max_depth 16), bit 2
 * GIOP 1.1.
 *
 * Checks: an any that decodes prints the same text with any buffer size
 * (the length it returns is that of the whole text), its heap copy is equal
 * to it (cdr_any_equal) and prints the same text; written as its original
 * octets (when kept) it gives exactly the input's octets of the any;
 * encoded again it reads back equal to the first decode and encodes to the
 * same octets (decode-encode-decode).
 */
#include <cdr/cdr.h>
#include "fuzz.h"

#define PBUF 4096

static void check_print(const cdr_any *a, char *buf)
{
  size_t n = cdr_any_print(buf, PBUF, a);
  FUZZ_CHECK(cdr_any_print(NULL, 0, a) == n);
  if (n < PBUF)
    FUZZ_CHECK(strlen(buf) == n);
  char small[8];
  FUZZ_CHECK(cdr_any_print(small, sizeof small, a) == n);
  FUZZ_CHECK(strlen(small) == (n < sizeof small ? n : sizeof small - 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in f = { data, size };
  uint8_t cfg = fuzz_byte(&f);
  int order = cfg & 1;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)order;
  if (cfg & 2) {
    op.max_seq = 64;
    op.max_depth = 16;
  }
  if (cfg & 4)
    op.giop_minor = 1;
  static char p1[PBUF], p2[PBUF];
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  cdr_arena_set_max(&ar, 64u << 20);
  cdr_in i;
  cdr_in_init(&i, f.p, f.n, order, &op);
  cdr_in_set_arena(&i, &ar);
  cdr_any a;
  if (cdr_get_any(&i, &a) == CDR_OK) {
    size_t used = f.n - cdr_in_remaining(&i);
    check_print(&a, p1);
    cdr_any c;
    cdr_any_init(&c);
    if (cdr_any_copy(&c, &a) == CDR_OK) {
      FUZZ_CHECK(cdr_any_equal(&c, &a) == 1);
      check_print(&c, p2);
      FUZZ_CHECK(strcmp(p1, p2) == 0);
    }
    cdr_any_free(&c);
    cdr_out o1, o2;
    if (a._cdr_octets) { /* the original octets: the input's */
      cdr_out_init(&o1, &op);
      FUZZ_CHECK(cdr_put_any(&o1, &a) == CDR_OK);
      FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), f.p, used);
      cdr_out_close(&o1);
    }
    cdr_any e = a;
    cdr_any_forget_octets(&e);
    cdr_out_init(&o1, &op);
    if (cdr_put_any(&o1, &e) == CDR_OK) {
      cdr_in j;
      cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), order, &op);
      cdr_in_set_arena(&j, &ar);
      cdr_any b;
      FUZZ_CHECK(cdr_get_any(&j, &b) == CDR_OK);
      FUZZ_CHECK(cdr_in_remaining(&j) == 0);
      cdr_in_close(&j);
      FUZZ_CHECK(cdr_any_equal(&a, &b) == 1);
      cdr_any_forget_octets(&b);
      cdr_out_init(&o2, &op);
      FUZZ_CHECK(cdr_put_any(&o2, &b) == CDR_OK);
      FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
      cdr_out_close(&o2);
    }
    cdr_out_close(&o1);
  }
  cdr_in_close(&i);
  cdr_arena_free(&ar);
  return 0;
}
