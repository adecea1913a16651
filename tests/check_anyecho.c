/* check_anyecho.c - omniORB's echoAny octets against our Any decoder and
 * encoder.  tests/interop/captures/any/echoAny-CASE.hex hold, for each Any
 * case of the AnyEcho interop test, the Request omniORB 4.2.5's client sent
 * and the Reply its server sent back (captures/capture.sh: omni-client ->
 * giop-proxy.py -> omni-server, GIOP 1.2, little-endian).  The expected
 * values are the cases of bench/any_cases.c, which are omni-client's.  For
 * each case and each of the two messages:
 *   - our decoder reads the Any to exactly the case: a TypeCode equal to
 *     ours (equivalent only, where omniORB's differs from CORBA's: the
 *     value types, below) and a value equal to the case's (cdr_any_equal),
 *     using the whole body;
 *   - our encoder writes the octets omniORB wrote: the same length and the
 *     same octet everywhere except where omniORB left alignment padding
 *     uninitialised (we write 0 there) -- for the value types after giving
 *     our descriptors omniORB's inverted member visibilities;
 *   - sending the decoded Any on writes omniORB's octets exactly (its
 *     original octets, padding included), and after
 *     cdr_any_forget_octets() our own encoding again.
 * The files are read at run time from $srcdir (make check sets it). */
#include <check.h>
#include <endian.h>
#include <stdalign.h>
#include <cdr/cdr.h>
#include <cdr/any.h>
#include <iiop/msg.h>
#include <iiop/ior.h>
#include "testutil.h"
#include "../bench/bench_idl.h"
#include "../bench/any_cases.h"

/* ---------------------------------------------------------------- captures */

typedef struct capmsg {
  uint8_t *b;
  size_t n;
} capmsg;

/* Read captures/any/echoAny-NAME.hex: the first c2s Request into *REQ and
 * the first s2c Reply into *REP (malloc'd).  Every offset line must
 * continue its message exactly. */
static void load(const char *name, capmsg *req, capmsg *rep)
{
  const char *src = getenv("srcdir");
  char path[512];
  snprintf(path, sizeof path, "%s/tests/interop/captures/any/echoAny-%s.hex", src ? src : ".",
           name);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  capmsg *cur = NULL;
  req->b = rep->b = NULL;
  req->n = rep->n = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') {
      cur = NULL;
      if (strstr(line, " c2s ") && strstr(line, " Request ") && !req->b)
        cur = req;
      else if (strstr(line, " s2c ") && strstr(line, " Reply ") && !rep->b)
        cur = rep;
      if (cur)
        cur->b = malloc(65536);
      continue;
    }
    if (!cur)
      continue;
    char *p = line, *end;
    unsigned long off = strtoul(p, &end, 16);
    ck_assert_msg(end != p && off == cur->n, "%s: offset %lx, expected %zx", path, off, cur->n);
    p = end;
    for (;;) {
      unsigned long v = strtoul(p, &end, 16);
      if (end == p)
        break;
      ck_assert(v <= 0xff && cur->n < 65536);
      cur->b[cur->n++] = (uint8_t)v;
      p = end;
    }
  }
  fclose(f);
  ck_assert_msg(req->b && rep->b, "%s: no Request or no Reply", path);
}

static cdr_opts omni_opts(void)
{
  cdr_opts op;
  cdr_opts_default(&op);
  op.byte_order = CDR_LITTLE_ENDIAN;
  op.flags |= CDR_F_LDOUBLE_X87; /* omniORB on x86-64 */
  return op;
}

/* ---------------------------------------------------------------- omniORB's value TypeCodes
 * omniORB 4.2.5 writes a value member's visibility inverted (public as 0,
 * CORBA's PRIVATE_MEMBER; see tests/check_typecode.c): Bench.idl's value
 * types as omniORB describes them, for the encoder comparison. */

static const int16_t omni_vis1[] = { CDR_PRIVATE_MEMBER };
static const int16_t omni_vis2[] = { CDR_PRIVATE_MEMBER, CDR_PRIVATE_MEMBER };
static cdr_value_type o_node_vt, o_sub_vt, o_trunc_vt;
static const cdr_type o_node_t = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                   .align = alignof(void *), .name = "Node",
                                   .repo_id = BENCH_NODE_ID, .u.val.vt = &o_node_vt };
static const cdr_member o_node_m[] = { CDR_MEMBER(Bench_Node, id, &cdr_type_long),
                                       CDR_MEMBER(Bench_Node, next, &o_node_t) };
static cdr_value_type o_node_vt = { .name = "Node", .repo_id = BENCH_NODE_ID,
                                    .members = o_node_m, .nmembers = 2,
                                    .size = sizeof(Bench_Node), .align = alignof(Bench_Node),
                                    .visibility = omni_vis2 };
static const cdr_member o_sub_m[] = { CDR_MEMBER(Bench_SubNode, extra, &cdr_type_long) };
static cdr_value_type o_sub_vt = { .name = "SubNode", .repo_id = BENCH_SUBNODE_ID,
                                   .base = &o_node_vt, .members = o_sub_m, .nmembers = 1,
                                   .size = sizeof(Bench_SubNode),
                                   .align = alignof(Bench_SubNode), .visibility = omni_vis1 };
static cdr_value_type o_trunc_vt = { .name = "TruncNode", .repo_id = BENCH_TRUNCNODE_ID,
                                     .base = &o_node_vt, .flags = CDR_VT_TRUNCATABLE,
                                     .members = o_sub_m, .nmembers = 1,
                                     .size = sizeof(Bench_TruncNode),
                                     .align = alignof(Bench_TruncNode), .visibility = omni_vis1 };
static const cdr_type o_sub_t = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                  .align = alignof(void *), .name = "SubNode",
                                  .repo_id = BENCH_SUBNODE_ID, .u.val.vt = &o_sub_vt };
static const cdr_type o_trunc_t = { .kind = CDR_K_VALUE, .size = sizeof(void *),
                                    .align = alignof(void *), .name = "TruncNode",
                                    .repo_id = BENCH_TRUNCNODE_ID, .u.val.vt = &o_trunc_vt };
static const cdr_member o_pair_m[] = { CDR_MEMBER(Bench_Pair, a, &o_node_t),
                                       CDR_MEMBER(Bench_Pair, b, &o_node_t) };
static const cdr_type o_pair_t = CDR_STRUCT_TYPE(Bench_Pair, "Pair", BENCH_PAIR_ID, o_pair_m);

/* The value cases' values, built with omniORB's descriptors as their
 * actual types (the same graphs as bench/any_cases.c's). */
static Bench_Node o_cyc[3], o_sh[2], o_n7;
static Bench_SubNode o_sub;
static Bench_TruncNode o_trunc;
static Bench_Node *o_cycle_p, *o_null_p, *o_sub_p, *o_trunc_p;
static Bench_Pair o_pair;

static void o_node(Bench_Node *n, const cdr_value_type *t, int32_t id, Bench_Node *next)
{
  n->hdr.type = t;
  n->id = id;
  n->next = next;
}

/* The any to encode for case C as omniORB would: C's own, or for the value
 * cases the same graph with omniORB's descriptors.  false when C is not a
 * value case. */
static bool omni_value_any(const any_case *c, cdr_any *a)
{
  o_node(&o_cyc[0], &o_node_vt, 0, &o_cyc[1]);
  o_node(&o_cyc[1], &o_node_vt, 1, &o_cyc[2]);
  o_node(&o_cyc[2], &o_node_vt, 2, &o_cyc[0]);
  o_node(&o_sh[0], &o_node_vt, 10, &o_sh[1]);
  o_node(&o_sh[1], &o_node_vt, 11, NULL);
  o_node(&o_sub.base, &o_sub_vt, 5, NULL);
  o_sub.extra = 36;
  o_node(&o_n7, &o_node_vt, 7, NULL);
  o_node(&o_trunc.base, &o_trunc_vt, 6, &o_n7);
  o_trunc.extra = 45;
  o_cycle_p = &o_cyc[0];
  o_null_p = NULL;
  o_sub_p = &o_sub.base;
  o_trunc_p = &o_trunc.base;
  o_pair.a = o_pair.b = &o_sh[0];
  cdr_any_init(a);
  if (!strcmp(c->name, "node-cycle"))
    a->_type = &o_node_t, a->_value = &o_cycle_p;
  else if (!strcmp(c->name, "node-shared"))
    a->_type = &o_pair_t, a->_value = &o_pair;
  else if (!strcmp(c->name, "node-null"))
    a->_type = &o_node_t, a->_value = &o_null_p;
  else if (!strcmp(c->name, "subnode"))
    a->_type = &o_sub_t, a->_value = &o_sub_p;
  else if (!strcmp(c->name, "truncnode"))
    a->_type = &o_trunc_t, a->_value = &o_trunc_p;
  else
    return false;
  return true;
}

/* ---------------------------------------------------------------- checks */

/* Encode A at offset 0 of a fresh omniORB-like stream (the Any starts
 * 8-aligned in both messages, as at 0 here); *N its length.  malloc'd. */
static uint8_t *encode(const cdr_any *a, size_t *n)
{
  cdr_opts op = omni_opts();
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  ck_assert_int_eq(cdr_put_any(&o, a), CDR_OK);
  *n = cdr_out_size(&o);
  uint8_t *b = malloc(*n ? *n : 1);
  memcpy(b, cdr_out_data(&o), *n);
  cdr_out_close(&o);
  return b;
}

/* Our octets OURS against omniORB's OMNI: equal length, and equal octets
 * except where we wrote a 0 (omniORB's uninitialised padding). */
static void same_but_padding(const char *what, const uint8_t *ours, size_t n, const uint8_t *omni,
                             size_t m)
{
  ck_assert_msg(n == m, "%s: we write %zu octets, omniORB %zu", what, n, m);
  for (size_t j = 0; j < n; j++)
    ck_assert_msg(ours[j] == omni[j] || ours[j] == 0,
                  "%s: octet %zu: we write %02x, omniORB %02x", what, j, ours[j], omni[j]);
}

/* The objref case: the decoded reference must be the IOR of omni-server's
 * AnyEcho (through the proxy: host 127.0.0.1, key "AnyEcho"); the case
 * then holds it, so that the value and encoding checks compare with it. */
static void check_objref(const cdr_any *a)
{
  const cdr_ior *ior = *(cdr_ior *const *)a->_value;
  ck_assert_ptr_nonnull(ior);
  ck_assert_str_eq(ior->type_id, BENCHANY_ANYECHO_ID);
  ck_assert_uint_ge(ior->profiles._length, 1);
  /* Back to a stringified IOR, which libiiop's parser must read. */
  cdr_opts op = omni_opts();
  cdr_out o;
  ck_assert_int_eq(cdr_out_init(&o, &op), CDR_OK);
  cdr_put_octet(&o, CDR_LITTLE_ENDIAN);
  ck_assert_int_eq(cdr_write(&o, &cdr_type_ior, ior), CDR_OK);
  size_t n = cdr_out_size(&o);
  char *s = malloc(4 + 2 * n + 1);
  strcpy(s, "IOR:");
  for (size_t k = 0; k < n; k++)
    sprintf(s + 4 + 2 * k, "%02x", cdr_out_data(&o)[k]);
  cdr_out_close(&o);
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  iiop_ior parsed;
  ck_assert_int_eq(iiop_ior_from_string(s, &ar, &parsed), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&parsed);
  ck_assert_ptr_nonnull(p);
  ck_assert_str_eq(p->host, "127.0.0.1");
  ck_assert_uint_eq(p->key_len, 7);
  ck_assert_mem_eq(p->key, "AnyEcho", 7);
  cdr_arena_free(&ar);
  ck_assert_int_eq(any_cases_set_objref(s), CDR_OK);
  free(s);
}

static bool is_value_case(const char *name)
{
  return !strncmp(name, "node-", 5) || !strcmp(name, "subnode") || !strcmp(name, "truncnode");
}

/* One message M of case C: decode, compare, encode. */
static void check_message(const any_case *c, const capmsg *m, int reply)
{
  const char *what = reply ? "Reply" : "Request";
  cdr_opts op = omni_opts();
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  giop_message g;
  ck_assert_int_eq(giop_parse(&g, m->b, m->n, &op, &ar), CDR_OK);
  if (reply) {
    ck_assert_int_eq(g.hdr.type, GIOP_REPLY);
    ck_assert_uint_eq(g.u.reply.reply_status, GIOP_NO_EXCEPTION);
  } else {
    ck_assert_int_eq(g.hdr.type, GIOP_REQUEST);
    ck_assert_str_eq(g.u.request.operation, "echoAny");
    ck_assert_uint_eq(g.u.request.target.key_len, 7);
    ck_assert_mem_eq(g.u.request.target.key, "AnyEcho", 7);
  }
  size_t body = g.body.pos;
  ck_assert_uint_eq(body % 8, 0);

  /* decode */
  cdr_any a;
  cdr_any_init(&a);
  ck_assert_msg(cdr_get_any(&g.body, &a) == CDR_OK, "%s %s: %s at %zu", c->name, what,
                cdr_strerror(cdr_in_status(&g.body)), g.body.err_pos);
  ck_assert_msg(g.body.pos == m->n, "%s %s: the any ends at %zu of %zu", c->name, what,
                g.body.pos, m->n);
  if (!strcmp(c->name, "objref"))
    check_objref(&a);
  ck_assert_msg(cdr_tc_equivalent(a._type, c->any._type) == 1, "%s %s: TypeCode not equivalent",
                c->name, what);
  /* omniORB's value TypeCodes have its inverted visibilities: not equal */
  ck_assert_msg(cdr_tc_equal(a._type, c->any._type) == !is_value_case(c->name),
                "%s %s: TypeCode equal %d", c->name, what, cdr_tc_equal(a._type, c->any._type));
  ck_assert_msg(cdr_any_equal(&a, &c->any) == 1, "%s %s: value differs", c->name, what);

  /* encode: ours as omniORB's, but for its padding */
  const uint8_t *omni = m->b + body;
  size_t omni_n = m->n - body;
  cdr_any oa;
  bool value = omni_value_any(c, &oa);
  const cdr_any *mine = value ? &oa : &c->any;
  size_t n;
  uint8_t *ours = encode(mine, &n);
  char ctx[96];
  snprintf(ctx, sizeof ctx, "%s %s", c->name, what);
  if (strcmp(c->name, "truncnode") != 0) {
    same_but_padding(ctx, ours, n, omni, omni_n);
  } else {
    /* omniORB writes a TruncNode in an any with no type information and
     * unchunked (tag 0x7fffff00), as if it were not truncatable; we send
     * it chunked with its ID list, as outside an any.  The TypeCodes are
     * the same. */
    size_t tcn;
    cdr_typecode tcv = &o_trunc_t;
    cdr_any tc_only = { ._type = &cdr_type_typecode, ._value = &tcv };
    uint8_t *tco = encode(&tc_only, &tcn); /* tk_TypeCode's kind, then the TypeCode */
    tcn -= 4;
    same_but_padding(ctx, ours, tcn, omni, tcn);
    free(tco);
    tcn = (tcn + 3) & ~(size_t)3; /* the value tag, a long */
    uint32_t omni_tag, our_tag;
    memcpy(&omni_tag, omni + tcn, 4);
    memcpy(&our_tag, ours + tcn, 4);
    ck_assert_uint_eq(le32toh(omni_tag), 0x7fffff00u);
    ck_assert_uint_eq(le32toh(our_tag), 0x7fffff0eu);
  }

  /* sending the decoded any on: omniORB's octets exactly where the any
   * keeps them (no value inside it), else our encoding again ... */
  size_t n2;
  uint8_t *sent = encode(&a, &n2);
  TU_CTX("%s %s, sent on", c->name, what);
  if (value && strcmp(c->name, "node-null") != 0)
    TU_ASSERT_BYTES(sent, n2, ours, n);
  else
    TU_ASSERT_BYTES(sent, n2, omni, omni_n);
  free(sent);
  /* ... and once re-encoded, ours (omniORB's visibilities came with its
   * TypeCode; an any nested in it keeps its own octets, omniORB's
   * padding) */
  cdr_any_forget_octets(&a);
  sent = encode(&a, &n2);
  snprintf(ctx, sizeof ctx, "%s %s, re-encoded", c->name, what);
  same_but_padding(ctx, ours, n, sent, n2);
  free(sent);
  free(ours);
  cdr_in_close(&g.body); /* its value-graph state */
  cdr_arena_free(&ar);
}

START_TEST(test_captured)
{
  const any_case *c = any_case_at((size_t)_i);
  capmsg req, rep;
  load(c->name, &req, &rep);
  check_message(c, &req, 0);
  check_message(c, &rep, 1);
  free(req.b);
  free(rep.b);
}
END_TEST

/* The checks can fail: a changed octet in the value is a different value,
 * a changed TypeCode octet a different (or malformed) TypeCode. */
START_TEST(test_detects_changes)
{
  const any_case *c = any_case_find("point");
  capmsg req, rep;
  load("point", &req, &rep);
  cdr_opts op = omni_opts();
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  giop_message g;
  /* the last octets are the label "origin": change its first letter */
  req.b[req.n - 7] = 'O';
  ck_assert_int_eq(giop_parse(&g, req.b, req.n, &op, &ar), CDR_OK);
  size_t body = g.body.pos;
  cdr_any a;
  ck_assert_int_eq(cdr_get_any(&g.body, &a), CDR_OK);
  ck_assert_int_eq(cdr_tc_equal(a._type, c->any._type), 1);
  ck_assert_int_eq(cdr_any_equal(&a, &c->any), 0);
  char why[200];
  ck_assert(!any_case_matches(c, &a, why, sizeof why));
  /* the TypeCode's kind: tk_struct (15) into tk_except (22), which has
   * the same parameters: an exception, not equivalent to Point */
  req.b[req.n - 7] = 'o';
  req.b[body] = 22;
  cdr_in_close(&g.body);
  cdr_arena_reset(&ar);
  ck_assert_int_eq(giop_parse(&g, req.b, req.n, &op, &ar), CDR_OK);
  ck_assert_int_eq(cdr_get_any(&g.body, &a), CDR_OK);
  ck_assert_int_eq(cdr_tc_kind(a._type), CDR_TK_EXCEPT);
  ck_assert_int_eq(cdr_tc_equivalent(a._type, c->any._type), 0);
  ck_assert(!any_case_matches(c, &a, why, sizeof why));
  /* and into 99, no TCKind: an error */
  req.b[body] = 99;
  cdr_in_close(&g.body);
  cdr_arena_reset(&ar);
  ck_assert_int_eq(giop_parse(&g, req.b, req.n, &op, &ar), CDR_OK);
  ck_assert_int_eq(cdr_get_any(&g.body, &a), CDR_E_VALUE);
  cdr_in_close(&g.body);
  cdr_arena_free(&ar);
  free(req.b);
  free(rep.b);
}
END_TEST

static Suite *anyecho_suite(void)
{
  Suite *s = suite_create("anyecho");
  TCase *tc = tcase_create("captured");
  tcase_add_loop_test(tc, test_captured, 0, (int)any_case_count());
  tcase_add_test(tc, test_detects_changes);
  suite_add_tcase(s, tc);
  return s;
}

const tu_program tu_prog = { .suite = anyecho_suite };
