/* check_cases.c - the stream-level cases of docs/hostile-input.md, each
 * generalised to its kind of fault (both byte orders, every reader the
 * fault can reach, the boundary values on either side).  Every rejection
 * asserts the error code and the offset the stream records; lengths read off
 * the wire must allocate nothing. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include "testutil.h"

#define ASSERT_ERR(in, code, off)                                                        \
  do {                                                                                   \
    ck_assert_msg(cdr_in_status(in) == (code), "status %d (%s), want %d",                \
                  cdr_in_status(in), cdr_in_error_message(in), (int)(code));             \
    ck_assert_msg(cdr_in_error_offset(in) == (size_t)(off), "error offset %zu, want %zu", \
                  cdr_in_error_offset(in), (size_t)(off));                               \
    ck_assert_str_ne(cdr_in_error_message(in), "");                                      \
  } while (0)

static cdr_opts opts_of(int minor, unsigned flags)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.giop_minor = (uint8_t)minor;
  op.flags = flags;
  return op;
}

/* An input stream over a heap copy of exactly the test bytes (so that
 * AddressSanitizer sees any over-read), decoding into an arena whose
 * allocator counts what it is asked for. */
typedef struct fixture {
  uint8_t *data;
  size_t n;
  cdr_mem_counter mem;
  cdr_arena arena;
  cdr_in in;
} fixture;

static void fx_open(fixture *f, const void *b, size_t n, int order, const cdr_opts *op)
{
  f->data = tu_dup(b, n);
  f->n = n;
  cdr_mem_counter_init(&f->mem, NULL);
  cdr_arena_init(&f->arena, &f->mem.alloc);
  ck_assert_int_eq(cdr_in_init(&f->in, f->data, n, order, op), CDR_OK);
  cdr_in_set_arena(&f->in, &f->arena);
}

/* Nothing came out of the arena and no memory was asked for. */
static void fx_assert_nothing_allocated(const fixture *f)
{
  ck_assert_uint_eq(cdr_arena_used(&f->arena), 0);
  ck_assert_uint_eq(f->mem.attempts, 0);
}

static void fx_close(fixture *f)
{
  cdr_in_close(&f->in);
  cdr_arena_free(&f->arena);
  ck_assert_int_eq(f->mem.live, 0);
  free(f->data);
}

/* ================================================================== C01 */

/* A string whose length is far larger than the message: 0x7FFFFFF0 with 24
 * octets after it, at the start of a body and after 8 octets of other data;
 * also as wstring (both GIOP versions), sequence<octet> and sequence count. */
START_TEST(test_c01_string_length_far_beyond_message)
{
  static const uint32_t lens[] = { 0x7FFFFFF0u, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFF0u };
  for (int order = 0; order <= 1; order++)
    for (size_t li = 0; li < 4; li++)
      for (size_t at = 0; at <= 8; at += 8) {
        tu_buf w = { .n = 0 };
        for (size_t k = 0; k < at; k++)
          tu_u8(&w, 0x31);
        tu_num(&w, 0, lens[li], 4, order);
        for (int k = 0; k < 24; k++)
          tu_u8(&w, 'A');
        for (int reader = 0; reader < 6; reader++) {
          fixture f;
          cdr_opts op = opts_of(reader == 3 ? 1 : 2, 0);
          fx_open(&f, w.b, w.n, order, &op);
          ck_assert_ptr_nonnull(cdr_get_raw_view(&f.in, at));
          const char *s = "untouched";
          const uint8_t *ov = NULL;
          uint32_t n = 77;
          switch (reader) {
          case 0: ck_assert_ptr_null(cdr_get_string(&f.in, &n)); break;
          case 1: ck_assert_int_eq(cdr_get_string_view(&f.in, &s, &n), CDR_E_LENGTH); break;
          case 2: /* GIOP 1.2 wstring: an octet count */
          case 3: /* GIOP 1.1 wstring: a count of 2-octet units */
            ck_assert_ptr_null(cdr_get_wstring(&f.in, &n));
            break;
          case 4: ck_assert_int_eq(cdr_get_octets_view(&f.in, &ov, &n), CDR_E_LENGTH); break;
          case 5: ck_assert_ptr_null(cdr_get_seq(&f.in, 1, &n)); break;
          }
          ASSERT_ERR(&f.in, CDR_E_LENGTH, at); /* an odd GIOP 1.2 count is LENGTH too */
          ck_assert_uint_eq(n, 77);
          ck_assert_str_eq(s, "untouched");
          ck_assert_uint_eq(cdr_in_pos(&f.in), at); /* nothing consumed */
          fx_assert_nothing_allocated(&f);
          fx_close(&f);
        }
      }
}
END_TEST

/* Length = what remains + 1 fails, length = what remains passes. */
START_TEST(test_c01_string_length_remaining_plus_one)
{
  for (int order = 0; order <= 1; order++) {
    /* 8 octets of prefix, the length at 8, then "abcdefghijk\0" (12). */
    for (int extra = 1; extra >= 0; extra--) {
      tu_buf w = { .n = 0 };
      tu_num(&w, 0, 1, 4, order);
      tu_num(&w, 0, 2, 4, order);
      tu_num(&w, 0, 12 + (uint32_t)extra, 4, order);
      tu_put(&w, "abcdefghijk", 12);
      for (int reader = 0; reader < 2; reader++) {
        fixture f;
        fx_open(&f, w.b, w.n, order, NULL);
        (void)cdr_get_ulonglong(&f.in);
        uint32_t n = 77;
        const char *s = NULL;
        if (reader == 0)
          s = cdr_get_string(&f.in, &n);
        else
          (void)cdr_get_string_view(&f.in, &s, &n);
        if (extra) {
          ASSERT_ERR(&f.in, CDR_E_LENGTH, 8);
          ck_assert_uint_eq(n, 77);
          fx_assert_nothing_allocated(&f);
        } else {
          ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
          ck_assert_str_eq(s, "abcdefghijk");
          ck_assert_uint_eq(n, 11);
          ck_assert_uint_eq(cdr_in_remaining(&f.in), 0);
        }
        fx_close(&f);
      }
      /* The same for a GIOP 1.2 wstring: 12 octets = BOM + 5 units. */
      tu_buf ww = { .n = 0 };
      tu_num(&ww, 0, 12 + 2 * (uint32_t)extra, 4, order);
      tu_put(&ww, "\xFE\xFF\0a\0b\0c\0d\0e", 12);
      fixture f;
      fx_open(&f, ww.b, ww.n, order, NULL);
      uint32_t n = 77;
      cdr_wchar *ws = cdr_get_wstring(&f.in, &n);
      if (extra) {
        ck_assert_ptr_null(ws);
        ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
        fx_assert_nothing_allocated(&f);
      } else {
        ck_assert_ptr_nonnull(ws);
        ck_assert_uint_eq(n, 5);
        ck_assert_uint_eq(ws[4], 'e');
      }
      fx_close(&f);
    }
  }
}
END_TEST

/* A length that fits in the message but not under opts.max_string. */
START_TEST(test_c01_string_length_over_max_string)
{
  tu_buf w = { .n = 0 };
  tu_num(&w, 0, 9, 4, CDR_BIG_ENDIAN);
  tu_put(&w, "12345678", 9);
  cdr_opts op = opts_of(2, 0);
  op.max_string = 8;
  fixture f;
  fx_open(&f, w.b, w.n, CDR_BIG_ENDIAN, &op);
  ck_assert_ptr_null(cdr_get_string(&f.in, NULL));
  ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
  fx_assert_nothing_allocated(&f);
  fx_close(&f);
  op.max_string = 9;
  fx_open(&f, w.b, w.n, CDR_BIG_ENDIAN, &op);
  ck_assert_str_eq(cdr_get_string(&f.in, NULL), "12345678");
  fx_close(&f);
}
END_TEST

/* ================================================================== C02 */

/* (a) sequence<string> with count 0x10000000 and 40 octets left: each
 * string needs at least 5 octets. */
START_TEST(test_c02_a_seq_count_times_min_size)
{
  static const uint32_t counts[] = { 0x10000000u, 9, 0xFFFFFFFFu, 0x33333334u };
  for (int order = 0; order <= 1; order++) {
    for (size_t ci = 0; ci < 4; ci++) {
      tu_buf w = { .n = 0 };
      tu_num(&w, 0, 7, 4, order);          /* some other field first */
      tu_num(&w, 0, counts[ci], 4, order); /* the count at 4 */
      for (int k = 0; k < 40; k++)
        tu_u8(&w, 0);
      fixture f;
      fx_open(&f, w.b, w.n, order, NULL);
      (void)cdr_get_ulong(&f.in);
      ck_assert_uint_eq(cdr_get_seq_count(&f.in, 5), 0);
      ASSERT_ERR(&f.in, CDR_E_LENGTH, 4);
      ck_assert_uint_eq(cdr_in_pos(&f.in), 4);
      fx_assert_nothing_allocated(&f);
      fx_close(&f);
    }
    /* 8 strings of 5 octets fit exactly in 40. */
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 7, 4, order);
    tu_num(&w, 0, 8, 4, order);
    for (int k = 0; k < 40; k++)
      tu_u8(&w, 0);
    fixture f;
    fx_open(&f, w.b, w.n, order, NULL);
    (void)cdr_get_ulong(&f.in);
    ck_assert_uint_eq(cdr_get_seq_count(&f.in, 5), 8);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    ck_assert_uint_eq(cdr_in_remaining(&f.in), 40);
    fx_close(&f);
  }
}
END_TEST

/* (b) zero-size elements: count 0xFFFFFFFF with no element octets passes
 * the size check and must be stopped by opts.max_seq. */
START_TEST(test_c02_b_zero_size_elements_max_seq)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 0xFFFFFFFFu, 4, order);
    fixture f;
    fx_open(&f, w.b, w.n, order, NULL);
    ck_assert_uint_eq(cdr_get_seq_count(&f.in, 0), 0);
    ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
    fx_assert_nothing_allocated(&f);
    fx_close(&f);
    /* The default limit is 16 Mi elements; the limit is configurable and
     * inclusive. */
    cdr_opts op = opts_of(2, 0);
    ck_assert_uint_eq(op.max_seq, 16u << 20);
    for (uint32_t c = (16u << 20); c <= (16u << 20) + 1; c++) {
      w.n = 0;
      tu_num(&w, 0, c, 4, order);
      fx_open(&f, w.b, w.n, order, &op);
      uint32_t got = cdr_get_seq_count(&f.in, 0);
      if (c == (16u << 20)) {
        ck_assert_uint_eq(got, c);
        ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
      } else {
        ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
      }
      fx_close(&f);
    }
    op.max_seq = 1000;
    for (uint32_t c = 1000; c <= 1001; c++) {
      w.n = 0;
      tu_num(&w, 0, c, 4, order);
      fx_open(&f, w.b, w.n, order, &op);
      uint32_t got = cdr_get_seq_count(&f.in, 0);
      if (c == 1000)
        ck_assert_uint_eq(got, 1000);
      else
        ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
      fx_close(&f);
    }
    /* A count within the size check but over max_seq: LIMIT too. */
    w.n = 0;
    tu_num(&w, 0, 1001, 4, order);
    for (int k = 0; k < 1001; k++)
      tu_u8(&w, 1);
    fx_open(&f, w.b, w.n, order, &op);
    uint32_t n = 5;
    ck_assert_ptr_null(cdr_get_seq(&f.in, 1, &n));
    ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
    ck_assert_uint_eq(n, 5);
    fx_assert_nothing_allocated(&f);
    fx_close(&f);
  }
}
END_TEST

/* ================================================================== C03 */

/* struct { sequence<ulong> s; ulong after; } as 80 00 00 00 00 00 00 2A:
 * never an empty sequence with after = 42. */
START_TEST(test_c03_high_bit_length)
{
  static const uint8_t be[8] = { 0x80, 0, 0, 0, 0, 0, 0, 0x2A };
  static const uint8_t le[8] = { 0, 0, 0, 0x80, 0x2A, 0, 0, 0 };
  for (int order = 0; order <= 1; order++) {
    const uint8_t *b = order ? le : be;
    static const size_t esizes[] = { 4, 1, 2, 8 };
    for (size_t k = 0; k < 4; k++) {
      fixture f;
      fx_open(&f, b, 8, order, NULL);
      uint32_t n = 12345;
      ck_assert_ptr_null(cdr_get_seq(&f.in, esizes[k], &n));
      ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
      ck_assert_uint_eq(n, 12345);
      /* after is not readable as 42 either: the stream has stopped. */
      ck_assert_uint_eq(cdr_get_ulong(&f.in), 0);
      fx_assert_nothing_allocated(&f);
      fx_close(&f);
    }
    fixture f;
    fx_open(&f, b, 8, order, NULL);
    ck_assert_uint_eq(cdr_get_seq_count(&f.in, 1), 0);
    ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
    fx_close(&f);
    /* Elements that may be empty: the count still exceeds max_seq. */
    fx_open(&f, b, 8, order, NULL);
    ck_assert_uint_eq(cdr_get_seq_count(&f.in, 0), 0);
    ASSERT_ERR(&f.in, CDR_E_LIMIT, 0);
    fx_close(&f);
    /* As a string length, an octet sequence, an encapsulation length. */
    fx_open(&f, b, 8, order, NULL);
    ck_assert_ptr_null(cdr_get_string(&f.in, NULL));
    ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
    fx_assert_nothing_allocated(&f);
    fx_close(&f);
    const uint8_t *ov;
    uint32_t on;
    fx_open(&f, b, 8, order, NULL);
    ck_assert_int_eq(cdr_get_octets_view(&f.in, &ov, &on), CDR_E_LENGTH);
    ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
    fx_close(&f);
    fx_open(&f, b, 8, order, NULL);
    ck_assert_int_eq(cdr_in_begin_encap(&f.in), CDR_E_LENGTH);
    ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
    fx_close(&f);
  }
}
END_TEST

/* A length or count that follows padding is reported at the field itself,
 * not at the padding before it (cdr_get_array already reports "where the
 * data would be"). */
START_TEST(test_c03_error_offset_is_the_length_field)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_u8(&w, 0x01);                        /* an octet, then padding 1..3 */
    tu_num(&w, 0, 0x80000000u, 4, order);   /* the bad length at 4 */
    tu_num(&w, 0, 42, 4, order);
    char bad[256] = "";
    static const char *const names[] = { "string", "sequence", "octet view", "encapsulation" };
    for (int reader = 0; reader < 4; reader++) {
      fixture f;
      fx_open(&f, w.b, w.n, order, NULL);
      (void)cdr_get_octet(&f.in);
      uint32_t n;
      const uint8_t *ov;
      switch (reader) {
      case 0: (void)cdr_get_string(&f.in, &n); break;
      case 1: (void)cdr_get_seq(&f.in, 4, &n); break;
      case 2: (void)cdr_get_octets_view(&f.in, &ov, &n); break;
      case 3: (void)cdr_in_begin_encap(&f.in); break;
      }
      ck_assert_int_eq(cdr_in_status(&f.in), CDR_E_LENGTH);
      if (cdr_in_error_offset(&f.in) != 4)
        snprintf(bad + strlen(bad), sizeof bad - strlen(bad), " %s at %zu;", names[reader],
                 cdr_in_error_offset(&f.in));
      fx_close(&f);
    }
    ck_assert_msg(bad[0] == 0, "%s: the length field is at 4, errors reported at:%s",
                  order ? "LE" : "BE", bad);
  }
}
END_TEST

/* ================================================================== C05 */

static void c05_expect_string_error(const tu_buf *w, int order, unsigned flags, size_t at)
{
  for (int reader = 0; reader < 2; reader++) {
    fixture f;
    cdr_opts op = opts_of(2, flags);
    fx_open(&f, w->b, w->n, order, &op);
    (void)cdr_get_raw_view(&f.in, at);
    const char *s = "untouched";
    uint32_t n = 77;
    if (reader == 0)
      ck_assert_ptr_null(cdr_get_string(&f.in, &n));
    else
      ck_assert_int_eq(cdr_get_string_view(&f.in, &s, &n), CDR_E_STRING);
    ASSERT_ERR(&f.in, CDR_E_STRING, at);
    ck_assert_str_eq(s, "untouched");
    ck_assert_uint_eq(n, 77);
    fx_assert_nothing_allocated(&f);
    fx_close(&f);
  }
}

/* (a) length 5, "crhyv", then a ulong: no NUL terminator.  Also length 1
 * holding a non-NUL octet, and a long string missing only its NUL. */
START_TEST(test_c05_a_missing_nul)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 5, 4, order);
    tu_put(&w, "crhyv", 5);
    tu_num(&w, 0, 7, 4, order);
    c05_expect_string_error(&w, order, 0, 0);
    c05_expect_string_error(&w, order, CDR_F_LENIENT_EMPTY_STRING, 0);
    w.n = 0;
    tu_num(&w, 0, 1, 4, order);
    tu_u8(&w, 'x');
    c05_expect_string_error(&w, order, 0, 0);
    w.n = 0;
    tu_num(&w, 0, 0, 4, order);
    tu_num(&w, 0, 300, 4, order); /* at 4 */
    for (int k = 0; k < 300; k++)
      tu_u8(&w, 'a' + k % 26);
    c05_expect_string_error(&w, order, 0, 4);
  }
}
END_TEST

/* (b) length 0 then ulong 5: an error by default, "" in lenient mode (and
 * the ulong after it reads as 5). */
START_TEST(test_c05_b_zero_length)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 0, 4, order);
    tu_num(&w, 0, 5, 4, order);
    c05_expect_string_error(&w, order, 0, 0);

    cdr_opts op = opts_of(2, CDR_F_LENIENT_EMPTY_STRING);
    fixture f;
    fx_open(&f, w.b, w.n, order, &op);
    uint32_t n = 77;
    char *s = cdr_get_string(&f.in, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(cdr_get_ulong(&f.in), 5);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    fx_close(&f);
    fx_open(&f, w.b, w.n, order, &op);
    const char *v = NULL;
    n = 77;
    ck_assert_int_eq(cdr_get_string_view(&f.in, &v, &n), CDR_OK);
    ck_assert_str_eq(v, "");
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(cdr_get_ulong(&f.in), 5);
    fx_close(&f);
    /* With a code-set conversion in the way as well. */
    op.ncs_c = CDR_CS_UTF8;
    fx_open(&f, w.b, w.n, order, &op);
    s = cdr_get_string(&f.in, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(cdr_get_ulong(&f.in), 5);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    fx_close(&f);
  }
}
END_TEST

/* (c) length 4, "a\0b\0": a NUL inside. */
START_TEST(test_c05_c_nul_inside)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 4, 4, order);
    tu_put(&w, "a\0b", 4);
    c05_expect_string_error(&w, order, 0, 0);
    c05_expect_string_error(&w, order, CDR_F_LENIENT_EMPTY_STRING, 0);
    w.n = 0;
    tu_num(&w, 0, 2, 4, order);
    tu_put(&w, "\0", 2); /* two NULs */
    c05_expect_string_error(&w, order, 0, 0);
  }
}
END_TEST

/* (d) length 1, "\0": the empty string. */
START_TEST(test_c05_d_single_nul)
{
  for (int order = 0; order <= 1; order++)
    for (unsigned flags = 0; flags <= CDR_F_LENIENT_EMPTY_STRING; flags++) {
      tu_buf w = { .n = 0 };
      tu_num(&w, 0, 1, 4, order);
      tu_u8(&w, 0);
      cdr_opts op = opts_of(2, flags);
      fixture f;
      fx_open(&f, w.b, w.n, order, &op);
      uint32_t n = 77;
      char *s = cdr_get_string(&f.in, &n);
      ck_assert_ptr_nonnull(s);
      ck_assert_str_eq(s, "");
      ck_assert_uint_eq(n, 0);
      ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
      ck_assert_uint_eq(cdr_in_remaining(&f.in), 0);
      fx_close(&f);
    }
}
END_TEST

/* The encoder always writes length >= 1: "" is 00 00 00 01 00, in lenient
 * mode, with conversion, from a NULL pointer with length 0. */
START_TEST(test_c05_encoder_writes_length_at_least_one)
{
  for (int order = 0; order <= 1; order++)
    for (int variant = 0; variant < 4; variant++) {
      cdr_opts op = opts_of(2, variant == 1 ? CDR_F_LENIENT_EMPTY_STRING : 0);
      op.byte_order = (uint8_t)order;
      if (variant == 2)
        op.ncs_c = CDR_CS_UTF8;
      if (variant == 3)
        op.tcs_c = CDR_CS_UTF8;
      cdr_out o;
      ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
      cdr_put_string(&o, "");
      cdr_put_string_n(&o, NULL, 0);
      cdr_put_string_n(&o, "xyz", 0);
      ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
      tu_buf w = { .n = 0 };
      for (int k = 0; k < 3; k++) {
        tu_num(&w, 0, 1, 4, order);
        tu_u8(&w, 0);
      }
      TU_CTX("empty strings, order %d variant %d", order, variant);
      TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), w.b, w.n);
      /* A NUL inside what the caller gives is refused, not truncated. */
      size_t before = cdr_out_size(&o);
      cdr_put_string_n(&o, "a\0b", 3);
      ck_assert_int_eq(cdr_out_status(&o), CDR_E_STRING);
      ck_assert_uint_eq(cdr_out_size(&o), before);
      cdr_out_close(&o);
    }
}
END_TEST

/* ================================================================== C06 */

/* struct { boolean b; octet o; } as FF 07, then 02 07: CDR_E_VALUE at the
 * boolean's offset; 00 07 and 01 07 decode. */
START_TEST(test_c06_boolean_single)
{
  static const uint8_t bad[][2] = { { 0xFF, 0x07 }, { 0x02, 0x07 }, { 0x80, 0x07 } };
  for (size_t k = 0; k < 3; k++)
    for (size_t at = 0; at <= 3; at += 3) {
      uint8_t b[5] = { 9, 9, 9, bad[k][0], bad[k][1] };
      fixture f;
      fx_open(&f, at ? b : b + 3, at ? 5 : 2, CDR_BIG_ENDIAN, NULL);
      (void)cdr_get_raw_view(&f.in, at);
      bool v = cdr_get_boolean(&f.in);
      uint8_t raw;
      memcpy(&raw, &v, 1);
      ck_assert_uint_eq(raw, 0); /* false, never the raw octet */
      ASSERT_ERR(&f.in, CDR_E_VALUE, at);
      ck_assert_uint_eq(cdr_get_octet(&f.in), 0);
      fx_close(&f);
    }
  for (uint8_t bv = 0; bv <= 1; bv++) {
    uint8_t b[2] = { bv, 0x07 };
    fixture f;
    fx_open(&f, b, 2, CDR_LITTLE_ENDIAN, NULL);
    bool v = cdr_get_boolean(&f.in);
    uint8_t raw;
    memcpy(&raw, &v, 1);
    ck_assert_uint_eq(raw, bv);
    ck_assert_uint_eq(cdr_get_octet(&f.in), 7);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    fx_close(&f);
  }
}
END_TEST

/* sequence<boolean> holding 00 01 05: the bulk copy checks every octet
 * before storing any, and never stores a raw byte. */
START_TEST(test_c06_boolean_bulk)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 3, 4, order);
    tu_put(&w, "\x00\x01\x05", 3);
    fixture f;
    fx_open(&f, w.b, w.n, order, NULL);
    uint32_t n = cdr_get_seq_count(&f.in, 1);
    ck_assert_uint_eq(n, 3);
    uint8_t dst[3] = { 0x5A, 0x5A, 0x5A };
    ck_assert_int_eq(cdr_get_array_boolean(&f.in, (bool *)dst, n), CDR_E_VALUE);
    ASSERT_ERR(&f.in, CDR_E_VALUE, 6);
    ck_assert_mem_eq(dst, "\x5A\x5A\x5A", 3); /* untouched */
    fx_close(&f);

    /* Valid octets are stored as exactly 0 and 1. */
    w.n = 0;
    tu_num(&w, 0, 4, 4, order);
    tu_put(&w, "\x01\x00\x01\x01", 4);
    fx_open(&f, w.b, w.n, order, NULL);
    n = cdr_get_seq_count(&f.in, 1);
    bool ok[4];
    memset(ok, 0x5A, sizeof ok);
    ck_assert_int_eq(cdr_get_array_boolean(&f.in, ok, n), CDR_OK);
    ck_assert_mem_eq(ok, "\x01\x00\x01\x01", 4);
    fx_close(&f);
  }
}
END_TEST

typedef struct c06_bo {
  bool b;
  uint8_t o;
} c06_bo;
static const cdr_member c06_bo_members[] = {
  CDR_MEMBER(c06_bo, b, &cdr_type_boolean),
  CDR_MEMBER(c06_bo, o, &cdr_type_octet),
};
static const cdr_type c06_bo_type = CDR_STRUCT_TYPE(c06_bo, "BO", "IDL:BO:1.0", c06_bo_members);
static const cdr_type c06_boolseq_type = CDR_SEQUENCE_TYPE(&cdr_type_boolean, 0);

/* The same through the type-driven reader. */
START_TEST(test_c06_boolean_via_cdr_read)
{
  static const uint8_t bad[][2] = { { 0xFF, 0x07 }, { 0x02, 0x07 } };
  for (size_t k = 0; k < 2; k++) {
    fixture f;
    fx_open(&f, bad[k], 2, CDR_BIG_ENDIAN, NULL);
    c06_bo v;
    memset(&v, 0, sizeof v);
    ck_assert_int_eq(cdr_read(&f.in, &c06_bo_type, &v), CDR_E_VALUE);
    ck_assert_uint_eq(cdr_in_error_offset(&f.in), 0);
    uint8_t raw;
    memcpy(&raw, &v.b, 1);
    ck_assert_uint_le(raw, 1);
    fx_close(&f);
  }
  static const uint8_t good[2] = { 0x01, 0x07 };
  fixture f;
  fx_open(&f, good, 2, CDR_BIG_ENDIAN, NULL);
  c06_bo v;
  ck_assert_int_eq(cdr_read(&f.in, &c06_bo_type, &v), CDR_OK);
  ck_assert(v.b == true);
  ck_assert_uint_eq(v.o, 7);
  fx_close(&f);

  static const uint8_t seq_bad[7] = { 0, 0, 0, 3, 0, 1, 5 };
  fx_open(&f, seq_bad, 7, CDR_BIG_ENDIAN, NULL);
  cdr_seq s = { 0, 0, NULL, 0 };
  ck_assert_int_eq(cdr_read(&f.in, &c06_boolseq_type, &s), CDR_E_VALUE);
  ck_assert_uint_eq(cdr_in_error_offset(&f.in), 6);
  /* If a buffer was handed out, it holds no raw byte. */
  for (uint32_t k = 0; s._buffer && k < s._length; k++)
    ck_assert_uint_le(((uint8_t *)s._buffer)[k], 1);
  fx_close(&f);
  static const uint8_t seq_good[7] = { 0, 0, 0, 3, 0, 1, 1 };
  fx_open(&f, seq_good, 7, CDR_BIG_ENDIAN, NULL);
  ck_assert_int_eq(cdr_read(&f.in, &c06_boolseq_type, &s), CDR_OK);
  ck_assert_uint_eq(s._length, 3);
  ck_assert_mem_eq(s._buffer, "\x00\x01\x01", 3);
  fx_close(&f);
}
END_TEST

/* ================================================================== C08 */

/* A little-endian Reply body carrying an IOR whose IIOP ProfileBody
 * encapsulation is big-endian and whose TAG_CODE_SETS component inside it
 * is little-endian, followed by a double that must be aligned by the outer
 * stream again.  Offsets are from the start of the body. */
static const uint8_t c08_ior[104] = {
  /*  0 type_id */ 0x0A, 0, 0, 0, 'I', 'D', 'L', ':', 'A', ':', '1', '.', '0', 0,
  /* 14 pad */ 0, 0,
  /* 16 profiles */ 1, 0, 0, 0,
  /* 20 TAG_INTERNET_IOP */ 0, 0, 0, 0,
  /* 24 profile_data length (LE) */ 64, 0, 0, 0,
  /* 28 byte order: big-endian */ 0,
  /* 29 version */ 1, 2,
  /* 31 pad */ 0,
  /* 32 host */ 0, 0, 0, 10, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't', 0,
  /* 46 port 2809 */ 0x0A, 0xF9,
  /* 48 object_key */ 0, 0, 0, 4, 'E', 'c', 'h', 'o',
  /* 56 components */ 0, 0, 0, 1,
  /* 60 TAG_CODE_SETS */ 0, 0, 0, 1,
  /* 64 component_data length (BE) */ 0, 0, 0, 24,
  /* 68 byte order: little-endian */ 1,
  /* 69 pad */ 0, 0, 0,
  /* 72 char native ISO-8859-1 */ 0x01, 0x00, 0x01, 0x00,
  /* 76 conversion count */ 1, 0, 0, 0,
  /* 80 UTF-8 */ 0x01, 0x00, 0x01, 0x05,
  /* 84 wchar native UTF-16 */ 0x09, 0x01, 0x01, 0x00,
  /* 88 conversion count */ 0, 0, 0, 0,
  /* 92 pad (outer stream: 96 is 8-aligned; 92 would be relative to 28) */ 0, 0, 0, 0,
  /* 96 double 2.5 (LE) */ 0, 0, 0, 0, 0, 0, 0x04, 0x40,
};

/* Decode c08_ior; returns the stream status. */
static int c08_decode(fixture *f)
{
  cdr_in *in = &f->in;
  uint32_t n;
  char *type_id = cdr_get_string(in, &n);
  uint32_t nprof = cdr_get_ulong(in);
  uint32_t tag = cdr_get_ulong(in);
  if (cdr_in_begin_encap(in) != CDR_OK)
    return cdr_in_status(in);
  ck_assert_int_eq(cdr_in_byte_order(in), CDR_BIG_ENDIAN);
  uint8_t major = cdr_get_octet(in), minor = cdr_get_octet(in);
  char *host = cdr_get_string(in, NULL);
  uint16_t port = cdr_get_ushort(in);
  const uint8_t *key;
  uint32_t keylen = 0;
  (void)cdr_get_octets_view(in, &key, &keylen);
  uint32_t ncomp = cdr_get_ulong(in);
  uint32_t ctag = cdr_get_ulong(in);
  if (cdr_in_begin_encap(in) != CDR_OK)
    return cdr_in_status(in);
  ck_assert_int_eq(cdr_in_byte_order(in), CDR_LITTLE_ENDIAN);
  uint32_t cnative = cdr_get_ulong(in);
  uint32_t nconv = 0;
  uint32_t *conv = cdr_get_seq(in, 4, &nconv);
  uint32_t wnative = cdr_get_ulong(in);
  uint32_t nwconv = 99;
  (void)cdr_get_seq(in, 4, &nwconv);
  ck_assert_uint_eq(cdr_in_remaining(in), 0);
  if (cdr_in_end_encap(in) != CDR_OK)
    return cdr_in_status(in);
  ck_assert_int_eq(cdr_in_byte_order(in), CDR_BIG_ENDIAN);
  ck_assert_uint_eq(cdr_in_remaining(in), 0);
  if (cdr_in_end_encap(in) != CDR_OK)
    return cdr_in_status(in);
  ck_assert_int_eq(cdr_in_byte_order(in), CDR_LITTLE_ENDIAN);
  double after = cdr_get_double(in);
  if (cdr_in_status(in) != CDR_OK)
    return cdr_in_status(in);
  ck_assert_str_eq(type_id, "IDL:A:1.0");
  ck_assert_uint_eq(nprof, 1);
  ck_assert_uint_eq(tag, 0);
  ck_assert_uint_eq(major, 1);
  ck_assert_uint_eq(minor, 2);
  ck_assert_str_eq(host, "localhost");
  ck_assert_uint_eq(port, 2809);
  ck_assert_uint_eq(keylen, 4);
  ck_assert_mem_eq(key, "Echo", 4);
  ck_assert_uint_eq(ncomp, 1);
  ck_assert_uint_eq(ctag, 1);
  ck_assert_uint_eq(cnative, CDR_CS_ISO8859_1);
  ck_assert_uint_eq(nconv, 1);
  ck_assert_uint_eq(conv[0], CDR_CS_UTF8);
  ck_assert_uint_eq(wnative, CDR_CS_UTF16);
  ck_assert_uint_eq(nwconv, 0);
  ck_assert(after == 2.5);
  ck_assert_uint_eq(cdr_in_remaining(in), 0);
  return CDR_OK;
}

START_TEST(test_c08_nested_encaps_mixed_byte_orders)
{
  fixture f;
  fx_open(&f, c08_ior, sizeof c08_ior, CDR_LITTLE_ENDIAN, NULL);
  ck_assert_int_eq(c08_decode(&f), CDR_OK);
  fx_close(&f);

  /* The encoder produces exactly these octets. */
  cdr_opts op = opts_of(2, 0);
  op.byte_order = CDR_LITTLE_ENDIAN;
  cdr_out o;
  cdr_out_init(&o, &op);
  cdr_put_string(&o, "IDL:A:1.0");
  cdr_put_ulong(&o, 1);
  cdr_put_ulong(&o, 0);
  cdr_out_begin_encap_order(&o, CDR_BIG_ENDIAN);
  cdr_put_octet(&o, 1);
  cdr_put_octet(&o, 2);
  cdr_put_string(&o, "localhost");
  cdr_put_ushort(&o, 2809);
  cdr_put_seq(&o, "Echo", 4, 1);
  cdr_put_ulong(&o, 1);
  cdr_put_ulong(&o, 1);
  cdr_out_begin_encap_order(&o, CDR_LITTLE_ENDIAN);
  cdr_put_ulong(&o, CDR_CS_ISO8859_1);
  const uint32_t conv[1] = { CDR_CS_UTF8 };
  cdr_put_seq(&o, conv, 1, 4);
  cdr_put_ulong(&o, CDR_CS_UTF16);
  cdr_put_seq(&o, conv, 0, 4);
  cdr_out_end_encap(&o);
  cdr_out_end_encap(&o);
  cdr_put_double(&o, 2.5);
  ck_assert_int_eq(cdr_out_status(&o), CDR_OK);
  TU_CTX("C08 IOR encoding");
  TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), c08_ior, sizeof c08_ior);
  cdr_out_close(&o);
}
END_TEST

/* Alignment restarts at each encapsulation's byte-order octet: 8-octet
 * items whose padding differs with the origin used.  Stream LE (origin 0),
 * encapsulation BE at 12 (4 mod 8), inner LE at 32 (4 mod 8 from 12). */
static const uint8_t c08_align[64] = {
  /*  0 */ 0x44, 0x33, 0x22, 0x11,
  /*  4 */ 0x99, 0, 0, 0,
  /*  8 L1=48 LE */ 48, 0, 0, 0,
  /* 12 bo BE */ 0,
  /* 13 */ 0x07, 0, 0,
  /* 16 ulong BE */ 1, 2, 3, 4,
  /* 20 ulonglong BE (relative 8) */ 1, 2, 3, 4, 5, 6, 7, 8,
  /* 28 L2=18 BE */ 0, 0, 0, 18,
  /* 32 bo LE */ 1,
  /* 33 */ 0x55, 0, 0, 0, 0, 0, 0,
  /* 40 double 1.5 LE (relative 8) */ 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,
  /* 48 ushort LE */ 0x34, 0x12,
  /* 50 pad (relative to 12: 38 -> 40) */ 0, 0,
  /* 52 ulonglong BE */ 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
  /* 60 ulong LE */ 0xBE, 0xBA, 0xFE, 0xCA,
};

START_TEST(test_c08_alignment_restarts_in_each_encap)
{
  fixture f;
  fx_open(&f, c08_align, sizeof c08_align, CDR_LITTLE_ENDIAN, NULL);
  cdr_in *in = &f.in;
  ck_assert_uint_eq(cdr_get_ulong(in), 0x11223344);
  ck_assert_uint_eq(cdr_get_octet(in), 0x99);
  ck_assert_int_eq(cdr_in_begin_encap(in), CDR_OK);
  ck_assert_uint_eq(cdr_get_octet(in), 0x07);
  ck_assert_uint_eq(cdr_get_ulong(in), 0x01020304);
  ck_assert_uint_eq(cdr_get_ulonglong(in), UINT64_C(0x0102030405060708));
  ck_assert_uint_eq(cdr_in_pos(in), 28);
  ck_assert_int_eq(cdr_in_begin_encap(in), CDR_OK);
  ck_assert_uint_eq(cdr_get_octet(in), 0x55);
  ck_assert(cdr_get_double(in) == 1.5);
  ck_assert_uint_eq(cdr_get_ushort(in), 0x1234);
  ck_assert_int_eq(cdr_in_end_encap(in), CDR_OK);
  ck_assert_uint_eq(cdr_get_ulonglong(in), UINT64_C(0x1122334455667788));
  ck_assert_int_eq(cdr_in_end_encap(in), CDR_OK);
  ck_assert_uint_eq(cdr_get_ulong(in), 0xCAFEBABE);
  ck_assert_int_eq(cdr_in_status(in), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(in), 0);
  fx_close(&f);
}
END_TEST

/* Variant: a byte-order octet of 2 (in the outer and in the inner
 * encapsulation): CDR_E_VALUE at that octet. */
START_TEST(test_c08_byte_order_octet_2)
{
  static const size_t at[] = { 28, 68 };
  for (size_t k = 0; k < 2; k++)
    for (uint8_t bo = 2; bo != 0; bo = bo == 2 ? 0xFF : 0) {
      uint8_t b[sizeof c08_ior];
      memcpy(b, c08_ior, sizeof b);
      b[at[k]] = bo;
      fixture f;
      fx_open(&f, b, sizeof b, CDR_LITTLE_ENDIAN, NULL);
      ck_assert_int_eq(c08_decode(&f), CDR_E_VALUE);
      ASSERT_ERR(&f.in, CDR_E_VALUE, at[k]);
      fx_close(&f);
    }
}
END_TEST

/* cdr_in_init_encap over the profile body alone: the bad octet is the
 * first one, at offset 0. */
START_TEST(test_c08_byte_order_octet_2_init_encap)
{
  uint8_t b[sizeof c08_ior];
  memcpy(b, c08_ior, sizeof b);
  b[28] = 2;
  cdr_in in;
  ck_assert_int_eq(cdr_in_init_encap(&in, b + 28, 64, NULL), CDR_E_VALUE);
  ck_assert_uint_eq(cdr_in_error_offset(&in), 0);
}
END_TEST

/* Variant: an inner length that runs past the outer encapsulation (by one,
 * and by far), and an outer one that runs past the message. */
START_TEST(test_c08_inner_length_past_outer)
{
  static const struct { size_t at; int le; uint32_t len; } v[] = {
    { 64, 0, 25 }, { 64, 0, 0x7FFFFFFF }, { 64, 0, 0xFFFFFFFF },
    { 24, 1, 77 }, { 24, 1, 0x80000000u },
  };
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    uint8_t b[sizeof c08_ior];
    memcpy(b, c08_ior, sizeof b);
    tu_store(b + v[k].at, v[k].len, 4, v[k].le);
    fixture f;
    fx_open(&f, b, sizeof b, CDR_LITTLE_ENDIAN, NULL);
    ck_assert_int_eq(c08_decode(&f), CDR_E_LENGTH);
    ASSERT_ERR(&f.in, CDR_E_LENGTH, v[k].at);
    fx_close(&f);
  }
  /* The inner encapsulation exactly filling the outer one passes: the
   * outer (64) and inner (24) end together at 92. */
  fixture f;
  fx_open(&f, c08_ior, sizeof c08_ior, CDR_LITTLE_ENDIAN, NULL);
  ck_assert_int_eq(c08_decode(&f), CDR_OK);
  fx_close(&f);
  /* Data that runs past its encapsulation's end while the message goes on
   * is short, not read from the parent: the inner sequence count claims 2. */
  uint8_t b[sizeof c08_ior];
  memcpy(b, c08_ior, sizeof b);
  b[88] = 1;
  fx_open(&f, b, sizeof b, CDR_LITTLE_ENDIAN, NULL);
  ck_assert_int_ne(c08_decode(&f), CDR_OK);
  ck_assert_uint_le(cdr_in_error_offset(&f.in), 92);
  fx_close(&f);
}
END_TEST

/* ================================================================== C18 */

static cdr_wchar *c18_read(fixture *f, const tu_buf *w, int order, int minor, unsigned flags,
                           uint32_t *n)
{
  cdr_opts op = opts_of(minor, flags);
  fx_open(f, w->b, w->n, order, &op);
  return cdr_get_wstring(&f->in, n);
}

/* A GIOP 1.2 wstring body in its length field's order. */
static void c18_body(tu_buf *w, int order, const void *octets, uint32_t n)
{
  w->n = 0;
  tu_num(w, 0, n, 4, order);
  tu_put(w, octets, n);
}

/* (a) FE FF D8 3C DC A1 00 41 00 42: U+1F0A1 then "AB". */
START_TEST(test_c18_a_bom_be_surrogate_pair)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w;
    c18_body(&w, order, "\xFE\xFF\xD8\x3C\xDC\xA1\x00\x41\x00\x42", 10);
    fixture f;
    uint32_t n = 0;
    cdr_wchar *s = c18_read(&f, &w, order, 2, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(s[0], 0x1F0A1);
    ck_assert_uint_eq(s[1], 'A');
    ck_assert_uint_eq(s[2], 'B');
    ck_assert_uint_eq(s[3], 0);
    ck_assert_uint_eq(cdr_in_remaining(&f.in), 0);
    fx_close(&f);
  }
}
END_TEST

/* (b) FF FE 3C D8 A1 DC: U+1F0A1 (little-endian by its BOM, in either
 * stream order). */
START_TEST(test_c18_b_bom_le)
{
  for (int order = 0; order <= 1; order++)
    for (unsigned flags = 0; flags <= CDR_F_WCHAR_NOBOM_STREAM_ORDER;
         flags += CDR_F_WCHAR_NOBOM_STREAM_ORDER) {
      tu_buf w;
      c18_body(&w, order, "\xFF\xFE\x3C\xD8\xA1\xDC", 6);
      fixture f;
      uint32_t n = 0;
      cdr_wchar *s = c18_read(&f, &w, order, 2, flags, &n);
      ck_assert_ptr_nonnull(s);
      ck_assert_uint_eq(n, 1);
      ck_assert_uint_eq(s[0], 0x1F0A1);
      ck_assert_uint_eq(s[1], 0);
      fx_close(&f);
    }
}
END_TEST

/* (c) an odd octet length: CDR_E_LENGTH at the length field, whatever the
 * octets after it. */
START_TEST(test_c18_c_odd_length)
{
  static const uint32_t lens[] = { 7, 1, 3, 0xFFFFFFFF };
  for (int order = 0; order <= 1; order++)
    for (size_t k = 0; k < 4; k++) {
      tu_buf w = { .n = 0 };
      tu_num(&w, 0, lens[k], 4, order);
      tu_put(&w, "\xFE\xFF\x00\x41\x00\x42\x00\x43", 8);
      fixture f;
      uint32_t n = 77;
      ck_assert_ptr_null(c18_read(&f, &w, order, 2, 0, &n));
      ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
      ck_assert_uint_eq(n, 77);
      fx_assert_nothing_allocated(&f);
      fx_close(&f);
    }
}
END_TEST

/* (d) a lone high surrogate D8 3C: malformed, CDR_E_VALUE (MARSHAL, as
 * in.h documents), reported at the wstring or at the surrogate -- not
 * past it; U+FFFD with CDR_F_WCHAR_REPLACE_INVALID.  Also a lone low
 * surrogate, a high one followed by a non-surrogate, one after a BOM. */
START_TEST(test_c18_d_lone_surrogate)
{
  static const struct { const char *oct; uint32_t n; size_t bad; cdr_wchar repl[3]; uint32_t rn; } v[] = {
    { "\xD8\x3C", 2, 4, { 0xFFFD }, 1 },
    { "\xDC\xA1", 2, 4, { 0xFFFD }, 1 },
    { "\x00\x41\xD8\x3C\x00\x42", 6, 6, { 'A', 0xFFFD, 'B' }, 3 },
    { "\xFE\xFF\x00\x41\xD8\x3C", 6, 8, { 'A', 0xFFFD }, 2 },
    { "\xFF\xFE\x3C\xD8\x3C\xD8", 6, 6, { 0xFFFD, 0xFFFD }, 2 },
  };
  for (int order = 0; order <= 1; order++)
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
      tu_buf w;
      c18_body(&w, order, v[k].oct, v[k].n);
      fixture f;
      uint32_t n = 77;
      ck_assert_ptr_null(c18_read(&f, &w, order, 2, 0, &n));
      ck_assert_msg(cdr_in_status(&f.in) == CDR_E_VALUE, "#%zu: status %d", k,
                    cdr_in_status(&f.in));
      size_t off = cdr_in_error_offset(&f.in);
      ck_assert_msg(off == 0 || off == v[k].bad,
                    "#%zu: error offset %zu; the wstring is at 0, the surrogate at %zu", k, off,
                    v[k].bad);
      ck_assert_uint_eq(n, 77);
      fx_close(&f);

      cdr_wchar *s = c18_read(&f, &w, order, 2, CDR_F_WCHAR_REPLACE_INVALID, &n);
      ck_assert_ptr_nonnull(s);
      ck_assert_uint_eq(n, v[k].rn);
      ck_assert_mem_eq(s, v[k].repl, v[k].rn * sizeof(cdr_wchar));
      ck_assert_uint_eq(s[n], 0);
      fx_close(&f);
    }
  /* GIOP 1.1 alike: "A", lone D800, NUL. */
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 3, 4, order);
    tu_num(&w, 0, 'A', 2, order);
    tu_num(&w, 0, 0xD800, 2, order);
    tu_num(&w, 0, 0, 2, order);
    fixture f;
    uint32_t n = 77;
    ck_assert_ptr_null(c18_read(&f, &w, order, 1, 0, &n));
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_E_VALUE);
    size_t off = cdr_in_error_offset(&f.in);
    ck_assert_msg(off == 0 || off == 6, "GIOP 1.1: error offset %zu", off);
    fx_close(&f);
    cdr_wchar *s = c18_read(&f, &w, order, 1, CDR_F_WCHAR_REPLACE_INVALID, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(s[0], 'A');
    ck_assert_uint_eq(s[1], 0xFFFD);
    fx_close(&f);
  }
}
END_TEST

/* (e) length 0: the empty wstring (not NULL); a BOM alone is empty too. */
START_TEST(test_c18_e_zero_length)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 0, 4, order);
    tu_num(&w, 0, 0x55667788, 4, order);
    fixture f;
    uint32_t n = 77;
    cdr_wchar *s = c18_read(&f, &w, order, 2, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(s[0], 0);
    ck_assert_uint_eq(cdr_get_ulong(&f.in), 0x55667788);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    fx_close(&f);
    c18_body(&w, order, "\xFE\xFF", 2);
    s = c18_read(&f, &w, order, 2, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 0);
    fx_close(&f);
  }
}
END_TEST

/* (f) GIOP 1.1: the length counts characters including the NUL; units in
 * the stream's order. */
START_TEST(test_c18_f_giop11_length_counts_chars)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 4, 4, order);
    tu_num(&w, 0, 'A', 2, order);
    tu_num(&w, 0, 0x20AC, 2, order);
    tu_num(&w, 0, 'B', 2, order);
    tu_num(&w, 0, 0, 2, order);
    tu_num(&w, 0, 9, 2, order); /* a ushort after it */
    fixture f;
    uint32_t n = 0;
    cdr_wchar *s = c18_read(&f, &w, order, 1, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(s[0], 'A');
    ck_assert_uint_eq(s[1], 0x20AC);
    ck_assert_uint_eq(s[2], 'B');
    ck_assert_uint_eq(s[3], 0);
    ck_assert_uint_eq(cdr_get_ushort(&f.in), 9);
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_OK);
    fx_close(&f);

    /* Length 1: only the NUL. */
    w.n = 0;
    tu_num(&w, 0, 1, 4, order);
    tu_num(&w, 0, 0, 2, order);
    s = c18_read(&f, &w, order, 1, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 0);
    fx_close(&f);

    /* The last unit not NUL; a NUL inside; a count of units past the end. */
    w.n = 0;
    tu_num(&w, 0, 2, 4, order);
    tu_num(&w, 0, 'A', 2, order);
    tu_num(&w, 0, 'B', 2, order);
    ck_assert_ptr_null(c18_read(&f, &w, order, 1, 0, &n));
    ASSERT_ERR(&f.in, CDR_E_STRING, 0);
    fx_close(&f);
    w.n = 0;
    tu_num(&w, 0, 3, 4, order);
    tu_num(&w, 0, 0, 2, order);
    tu_num(&w, 0, 'B', 2, order);
    tu_num(&w, 0, 0, 2, order);
    ck_assert_ptr_null(c18_read(&f, &w, order, 1, 0, &n));
    ck_assert_int_eq(cdr_in_status(&f.in), CDR_E_STRING);
    fx_close(&f);
    w.n = 0;
    tu_num(&w, 0, 0x40000000u, 4, order);
    tu_num(&w, 0, 0, 2, order);
    ck_assert_ptr_null(c18_read(&f, &w, order, 1, 0, &n));
    ASSERT_ERR(&f.in, CDR_E_LENGTH, 0);
    fx_assert_nothing_allocated(&f);
    fx_close(&f);

    /* Length 0 has no room for the NUL: an error by default. */
    w.n = 0;
    tu_num(&w, 0, 0, 4, order);
    ck_assert_ptr_null(c18_read(&f, &w, order, 1, 0, &n));
    ASSERT_ERR(&f.in, CDR_E_STRING, 0);
    fx_close(&f);
  }
}
END_TEST

/* (f) in lenient mode a GIOP 1.1 wstring of length 0 is accepted (the
 * reader's code has a branch for it): it must give "" -- followed here by
 * a ulong that must still read correctly. */
START_TEST(test_c18_f_giop11_zero_length_lenient)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf w = { .n = 0 };
    tu_num(&w, 0, 0, 4, order);
    tu_num(&w, 0, 0xD800D800u, 4, order);
    fixture f;
    uint32_t n = 77;
    cdr_wchar *s = c18_read(&f, &w, order, 1, CDR_F_LENIENT_EMPTY_STRING, &n);
    ck_assert_msg(s != NULL, "status %d (%s)", cdr_in_status(&f.in), cdr_in_error_message(&f.in));
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(s[0], 0);
    ck_assert_uint_eq(cdr_in_pos(&f.in), 4);
    ck_assert_uint_eq(cdr_get_ulong(&f.in), 0xD800D800u);
    fx_close(&f);
  }
}
END_TEST

/* No BOM: big-endian by default (whatever the stream's order), the
 * stream's order with CDR_F_WCHAR_NOBOM_STREAM_ORDER.  Both settings, both
 * stream orders. */
START_TEST(test_c18_no_bom_byte_order)
{
  for (int order = 0; order <= 1; order++) {
    tu_buf be, le;
    c18_body(&be, order, "\x00\x41\x00\x42", 4);
    c18_body(&le, order, "\x41\x00\x42\x00", 4);
    fixture f;
    uint32_t n;
    /* Default: big-endian. */
    cdr_wchar *s = c18_read(&f, &be, order, 2, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(s[0], 'A');
    ck_assert_uint_eq(s[1], 'B');
    fx_close(&f);
    s = c18_read(&f, &le, order, 2, 0, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s[0], 0x4100);
    ck_assert_uint_eq(s[1], 0x4200);
    fx_close(&f);
    /* Stream order. */
    s = c18_read(&f, order ? &le : &be, order, 2, CDR_F_WCHAR_NOBOM_STREAM_ORDER, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(s[0], 'A');
    ck_assert_uint_eq(s[1], 'B');
    fx_close(&f);
    s = c18_read(&f, order ? &be : &le, order, 2, CDR_F_WCHAR_NOBOM_STREAM_ORDER, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s[0], 0x4100);
    fx_close(&f);
  }
}
END_TEST

/* (g), stream level: with no wchar code set negotiated a wstring fails
 * cleanly both ways (the GIOP layer maps it to a system exception). */
START_TEST(test_c18_g_no_wchar_codeset)
{
  cdr_opts op = opts_of(2, 0);
  op.tcs_w = 0;
  tu_buf w;
  c18_body(&w, CDR_BIG_ENDIAN, "\xFE\xFF\x00\x41", 4);
  fixture f;
  fx_open(&f, w.b, w.n, CDR_BIG_ENDIAN, &op);
  uint32_t n = 77;
  ck_assert_ptr_null(cdr_get_wstring(&f.in, &n));
  ASSERT_ERR(&f.in, CDR_E_CODESET, 0);
  ck_assert_uint_eq(n, 77);
  fx_assert_nothing_allocated(&f);
  fx_close(&f);
  cdr_out o;
  cdr_out_init(&o, &op);
  static const cdr_wchar a[1] = { 'A' };
  cdr_put_wstring(&o, a, 1);
  ck_assert_int_eq(cdr_out_status(&o), CDR_E_CODESET);
  ck_assert_uint_eq(cdr_out_size(&o), 0);
  cdr_out_close(&o);
  ck_assert_str_eq(cdr_status_exception(CDR_E_CODESET), "DATA_CONVERSION");
}
END_TEST

static Suite *cases_suite(void)
{
  Suite *s = suite_create("cases");
  TCase *tc = tcase_create("C01");
  tcase_add_test(tc, test_c01_string_length_far_beyond_message);
  tcase_add_test(tc, test_c01_string_length_remaining_plus_one);
  tcase_add_test(tc, test_c01_string_length_over_max_string);
  suite_add_tcase(s, tc);
  tc = tcase_create("C02");
  tcase_add_test(tc, test_c02_a_seq_count_times_min_size);
  tcase_add_test(tc, test_c02_b_zero_size_elements_max_seq);
  suite_add_tcase(s, tc);
  tc = tcase_create("C03");
  tcase_add_test(tc, test_c03_high_bit_length);
  tcase_add_test(tc, test_c03_error_offset_is_the_length_field);
  suite_add_tcase(s, tc);
  tc = tcase_create("C05");
  tcase_add_test(tc, test_c05_a_missing_nul);
  tcase_add_test(tc, test_c05_b_zero_length);
  tcase_add_test(tc, test_c05_c_nul_inside);
  tcase_add_test(tc, test_c05_d_single_nul);
  tcase_add_test(tc, test_c05_encoder_writes_length_at_least_one);
  suite_add_tcase(s, tc);
  tc = tcase_create("C06");
  tcase_add_test(tc, test_c06_boolean_single);
  tcase_add_test(tc, test_c06_boolean_bulk);
  tcase_add_test(tc, test_c06_boolean_via_cdr_read);
  suite_add_tcase(s, tc);
  tc = tcase_create("C08");
  tcase_add_test(tc, test_c08_nested_encaps_mixed_byte_orders);
  tcase_add_test(tc, test_c08_alignment_restarts_in_each_encap);
  tcase_add_test(tc, test_c08_byte_order_octet_2);
  tcase_add_test(tc, test_c08_byte_order_octet_2_init_encap);
  tcase_add_test(tc, test_c08_inner_length_past_outer);
  suite_add_tcase(s, tc);
  tc = tcase_create("C18");
  tcase_add_test(tc, test_c18_a_bom_be_surrogate_pair);
  tcase_add_test(tc, test_c18_b_bom_le);
  tcase_add_test(tc, test_c18_c_odd_length);
  tcase_add_test(tc, test_c18_d_lone_surrogate);
  tcase_add_test(tc, test_c18_e_zero_length);
  tcase_add_test(tc, test_c18_f_giop11_length_counts_chars);
  tcase_add_test(tc, test_c18_no_bom_byte_order);
  tcase_add_test(tc, test_c18_g_no_wchar_codeset);
  suite_add_tcase(s, tc);
  /* Last, and in a case of its own: with the bug it guards against, this
   * test corrupts memory (run CK_FORK=no builds with CK_EXCLUDE_CASES-style
   * CK_RUN_CASE selection if it must be skipped). */
  tc = tcase_create("C18_lenient_giop11");
  tcase_add_test(tc, test_c18_f_giop11_zero_length_lenient);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = cases_suite };
