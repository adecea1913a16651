/* tests/fuzz/fuzz_typecode.c - fuzz target: the TypeCode reader
 * (cdr_get_typecode(), cdr/typecode.h): every TCKind, encapsulations in
 * either byte order, indirection (recursion, repeated types, and the
 * strays and loops that must be refused), counts, C layouts; and, when the
 * configuration asks, a value of the decoded type read with cdr_read() by
 * that TypeCode alone (as an Any's value is).
 *
 * Input: a configuration octet, then CDR octets: a TypeCode, then (bit 1)
 * a value of its type.  Configuration: bit 0 byte order, bit 1 read a
 * value after the TypeCode, bit 2 small limits (max_seq 64, max_depth 16).
 *
 * Checks: a TypeCode that decodes is written back (in the input's byte
 * order) and read again: both decoded TypeCodes are equal (cdr_tc_equal)
 * and write the same octets (decode-encode-decode); its heap copy is equal
 * to it and its compact form equivalent.  A value that decodes is written
 * by the decoded TypeCode, read back and written again: the same octets.
 */
#include <cdr/cdr.h>
#include "fuzz.h"

/* TC written in byte order ORDER: the stream, open (close it). */
static int put(cdr_out *o, cdr_typecode tc, int order)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)order;
  cdr_out_init(o, &op);
  return cdr_put_typecode(o, tc);
}

static void value_round_trip(cdr_in *i, cdr_typecode t, cdr_arena *a, const cdr_opts *op)
{
  /* As an Any's reader must: no allocation for a value its octets cannot
   * hold. */
  if (t->size > (1u << 20) || cdr_type_min_wire(t) > cdr_in_remaining(i))
    return;
  void *v = cdr_arena_alloc(a, t->size ? t->size : 1, 16);
  if (!v || cdr_read(i, t, v) != CDR_OK)
    return;
  cdr_opts wo = *op;
  cdr_out o1, o2;
  cdr_out_init(&o1, &wo);
  if (cdr_write(&o1, t, v) == CDR_OK) {
    cdr_in j;
    cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), wo.byte_order, op);
    cdr_in_set_arena(&j, a);
    void *w = cdr_arena_alloc(a, t->size ? t->size : 1, 16);
    FUZZ_CHECK(w && cdr_read(&j, t, w) == CDR_OK);
    cdr_in_close(&j);
    cdr_out_init(&o2, &wo);
    FUZZ_CHECK(cdr_write(&o2, t, w) == CDR_OK);
    FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
    cdr_out_close(&o2);
  }
  cdr_out_close(&o1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in f = { data, size };
  uint8_t cfg = fuzz_byte(&f);
  int order = cfg & 1;
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = (uint8_t)order;
  if (cfg & 4) {
    op.max_seq = 64;
    op.max_depth = 16;
  }
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  cdr_in i;
  cdr_in_init(&i, f.p, f.n, order, &op);
  cdr_in_set_arena(&i, &a);
  cdr_typecode t1 = NULL, t2 = NULL;
  if (cdr_get_typecode(&i, &t1) == CDR_OK) {
    cdr_out o1, o2;
    FUZZ_CHECK(put(&o1, t1, order) == CDR_OK);
    cdr_in j;
    cdr_in_init(&j, cdr_out_data(&o1), cdr_out_size(&o1), order, NULL);
    cdr_in_set_arena(&j, &a);
    FUZZ_CHECK(cdr_get_typecode(&j, &t2) == CDR_OK);
    FUZZ_CHECK(cdr_in_remaining(&j) == 0);
    cdr_in_close(&j);
    FUZZ_CHECK(cdr_tc_equal(t1, t2) == 1);
    FUZZ_CHECK(put(&o2, t2, order) == CDR_OK);
    FUZZ_SAME(cdr_out_data(&o1), cdr_out_size(&o1), cdr_out_data(&o2), cdr_out_size(&o2));
    cdr_out_close(&o2);
    cdr_out_close(&o1);

    int st;
    cdr_typecode h = cdr_tc_dup(t1, &st);
    FUZZ_CHECK(st == CDR_OK && h);
    cdr_typecode c = NULL;
    FUZZ_CHECK(cdr_tc_get_compact(h, &c) == CDR_OK);
    FUZZ_CHECK(cdr_tc_equal(h, t1) == 1);
    FUZZ_CHECK(cdr_tc_equivalent(c, t1) == 1);
    cdr_tc_release(c);
    cdr_tc_release(h);

    if (cfg & 2)
      value_round_trip(&i, t1, &a, &op);
  }
  cdr_in_close(&i);
  cdr_arena_free(&a);
  return 0;
}
