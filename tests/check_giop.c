/* check_giop.c - the GIOP message header: exact octets both byte orders,
 * and every rejection a receiver answers with MessageError. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <iiop/giop.h>
#include "testutil.h"

START_TEST(test_header_write_exact)
{
  uint8_t out[12];
  giop_header h = { 1, 2, GIOP_FLAG_LITTLE_ENDIAN | GIOP_FLAG_MORE_FRAGMENTS, GIOP_REQUEST, 8180 };
  ck_assert_int_eq(giop_header_write(&h, out), CDR_OK);
  static const uint8_t le[12] = { 'G', 'I', 'O', 'P', 1, 2, 3, 0, 0xF4, 0x1F, 0, 0 };
  ck_assert_mem_eq(out, le, 12);
  h.flags = 0;
  h.type = GIOP_REPLY;
  h.size = 0x01020304;
  ck_assert_int_eq(giop_header_write(&h, out), CDR_OK);
  static const uint8_t be[12] = { 'G', 'I', 'O', 'P', 1, 2, 0, 1, 1, 2, 3, 4 };
  ck_assert_mem_eq(out, be, 12);
}
END_TEST

START_TEST(test_header_parse_roundtrip)
{
  for (int minor = 0; minor <= 2; minor++)
    for (int type = 0; type <= 7; type++)
      for (int flags = 0; flags <= 3; flags++) {
        giop_header h = { 1, (uint8_t)minor, (uint8_t)flags, (uint8_t)type, 0xA1B2C3D4u };
        uint8_t out[12];
        int valid = !(minor == 0 && (type == GIOP_FRAGMENT || flags > 1));
        ck_assert_int_eq(giop_header_write(&h, out), valid ? CDR_OK : CDR_E_INVALID);
        if (!valid)
          continue;
        giop_header g;
        ck_assert_int_eq(giop_header_parse(out, 12, &g), CDR_OK);
        ck_assert_int_eq(g.minor, minor);
        ck_assert_int_eq(g.type, type);
        ck_assert_int_eq(g.flags, flags);
        ck_assert_uint_eq(g.size, 0xA1B2C3D4u);
      }
}
END_TEST

START_TEST(test_header_parse_rejects)
{
  giop_header g = { 9, 9, 9, 9, 9 };
  const uint8_t ok[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, 0, 0, 0, 0, 0 };
  ck_assert_int_eq(giop_header_parse(ok, 11, &g), CDR_E_SHORT);
  ck_assert_int_eq(g.major, 9); /* untouched */
  uint8_t b[12];
  memcpy(b, ok, 12); b[0] = 'g';
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[4] = 2;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[5] = 3;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[7] = 8;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[6] = 4;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[5] = 0; b[7] = GIOP_FRAGMENT;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  memcpy(b, ok, 12); b[5] = 0; b[6] = 2;
  ck_assert_int_eq(giop_header_parse(b, 12, &g), CDR_E_PROTOCOL);
  /* docs/hostile-input.md C11 (a): a huge message_size parses; the caller compares it with
   * its maximum before allocating anything. */
  const uint8_t huge[12] = { 'G', 'I', 'O', 'P', 1, 2, 1, 0, 0xF0, 0xFF, 0xFF, 0xFF };
  ck_assert_int_eq(giop_header_parse(huge, 12, &g), CDR_OK);
  ck_assert_uint_eq(g.size, 0xFFFFFFF0u);
}
END_TEST

START_TEST(test_type_names)
{
  ck_assert_str_eq(giop_msg_type_name(GIOP_REQUEST), "Request");
  ck_assert_str_eq(giop_msg_type_name(GIOP_FRAGMENT), "Fragment");
  ck_assert_str_eq(giop_msg_type_name(8), "unknown");
  ck_assert_str_eq(giop_msg_type_name(-1), "unknown");
}
END_TEST

static Suite *giop_suite(void)
{
  Suite *s = suite_create("giop");
  TCase *tc = tcase_create("header");
  tcase_add_test(tc, test_header_write_exact);
  tcase_add_test(tc, test_header_parse_roundtrip);
  tcase_add_test(tc, test_header_parse_rejects);
  tcase_add_test(tc, test_type_names);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = giop_suite };
