/* check_values.c - valuetypes through idl2c (docs/idl2c.md "Values",
 * docs/c-mapping.md "Values"): the code generated from
 * tests/interop/Bench.idl and tests/values/values.idl -- layouts,
 * descriptors, TypeCodes, registration; Node/SubNode/TruncNode lists of 0, 1
 * and 50 nodes, a cyclic list, a Pair sharing one value, truncation of an
 * unknown TruncNode, value boxes and a custom value through libcdr with
 * exact octets; graphs and CORBA_free (every block given back, cyclic
 * graphs included); and the generated stubs against the generated
 * skeletons in one process, against the native bench server (BENCH_IOR)
 * and omniORB's tests/interop/omni-server (OMNI_IOR) when
 * tests/values.test names them. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "Bench.h"
#include "values.h"
#include "orbutil.h"
#include "testutil.h"

/* ---------------------------------------------------------------- memory */

static cdr_mem_counter mc;

static void count_on(void)
{
  /* the graph-reference table grows once to its first size: before counting */
  Bench_Node *w = Bench_Node__alloc();
  CORBA_free(w);
  cdr_pool_flush(); /* what the pools hold came from the allocator before */
  cdr_mem_counter_init(&mc, NULL);
  cdr_mem_set_global(&mc.alloc);
}

static void count_off(void)
{
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
}

/* The custom value's hooks (values.idl: custom valuetype Blob): the state
 * is its len, then len octets 0, 1, 2 ... */
int V_Blob__marshal(cdr_out *o, const void *value, const cdr_value_type *t)
{
  (void)t;
  const V_Blob *b = value;
  cdr_put_long(o, b->len);
  for (CORBA_long k = 0; k < b->len; k++)
    cdr_put_octet(o, (uint8_t)k);
  return cdr_out_status(o);
}

int V_Blob__unmarshal(cdr_in *i, void *value, const cdr_value_type *t)
{
  (void)t;
  V_Blob *b = value;
  b->len = cdr_get_long(i);
  for (CORBA_long k = 0; k < b->len && cdr_in_status(i) == CDR_OK; k++)
    if (cdr_get_octet(i) != (uint8_t)k)
      return CDR_E_INVALID;
  return cdr_in_status(i);
}

/* A list of N nodes in one graph: ids 1..N, node K a SubNode (extra K*10)
 * when K % 3 == 2 with SUB set; NULL for N == 0. */
static Bench_Node *make_list(int n, int sub)
{
  Bench_Node *head = NULL, *last = NULL;
  for (int k = 1; k <= n; k++) {
    Bench_Node *x;
    if (sub && k % 3 == 2) {
      Bench_SubNode *s = head ? Bench_SubNode__alloc_in(head) : Bench_SubNode__alloc();
      ck_assert_ptr_nonnull(s);
      s->extra = k * 10;
      x = &s->_base;
    } else {
      x = head ? Bench_Node__alloc_in(head) : Bench_Node__alloc();
    }
    ck_assert_ptr_nonnull(x);
    x->id = k;
    if (last)
      last->next = x;
    else
      head = x;
    last = x;
  }
  return head;
}

static void check_list(const Bench_Node *h, int n, int sub)
{
  for (int k = 1; k <= n; k++, h = h->next) {
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(h->id, k);
    Bench_SubNode *s = Bench_SubNode__downcast(h);
    if (sub && k % 3 == 2) {
      ck_assert_ptr_nonnull(s);
      ck_assert_int_eq(s->extra, k * 10);
    } else {
      ck_assert_ptr_null(s);
      ck_assert_ptr_eq(h->_hdr.type, &Bench_Node__vt);
    }
  }
  ck_assert_ptr_null(h);
}

/* ---------------------------------------------------------------- descriptors */

START_TEST(test_layout_and_descriptors)
{
  ck_assert_uint_eq(offsetof(Bench_Node, _hdr), 0);
  ck_assert_uint_eq(offsetof(Bench_SubNode, _base), 0);
  ck_assert_uint_eq(offsetof(Bench_SubNode, extra), sizeof(Bench_Node));
  ck_assert_uint_eq(Bench_Node__vt.size, sizeof(Bench_Node));
  ck_assert_uint_eq(Bench_Node__vt.nmembers, 2);
  ck_assert_str_eq(Bench_Node__vt.members[1].name, "next");
  ck_assert_ptr_eq(Bench_Node__vt.members[1].type, TC_Bench_Node);
  ck_assert_ptr_null(Bench_Node__vt.base);
  ck_assert_ptr_eq(Bench_SubNode__vt.base, &Bench_Node__vt);
  ck_assert_uint_eq(Bench_SubNode__vt.flags, 0);
  ck_assert_ptr_eq(Bench_TruncNode__vt.base, &Bench_Node__vt);
  ck_assert_uint_eq(Bench_TruncNode__vt.flags, CDR_VT_TRUNCATABLE);
  ck_assert_str_eq(Bench_TruncNode__vt.repo_id, "IDL:Bench/TruncNode:1.0");
  ck_assert_int_eq(TC_Bench_Node->kind, CDR_K_VALUE);
  ck_assert_uint_eq(TC_Bench_Node->size, sizeof(void *));
  ck_assert_ptr_eq(TC_Bench_Node->u.val.vt, &Bench_Node__vt);
  ck_assert_uint_eq(TC_Bench_Pair->u.st.count, 2);
  ck_assert_ptr_eq(TC_Bench_Pair->u.st.members[1].type, TC_Bench_Node);
  ck_assert_int_eq(cdr_type_validate(TC_Bench_Pair), CDR_OK);
  ck_assert_int_eq(cdr_type_validate(TC_V_Holder), CDR_OK);
  ck_assert_int_eq(cdr_type_validate(TC_V_Circle), CDR_OK);

  /* values.idl: private members, an abstract base left out, boxes, custom */
  ck_assert_uint_eq(V_Named__vt.nmembers, 2);
  ck_assert_ptr_nonnull(V_Named__vt.visibility);
  ck_assert_int_eq(V_Named__vt.visibility[0], CDR_PUBLIC_MEMBER);
  ck_assert_int_eq(V_Named__vt.visibility[1], CDR_PRIVATE_MEMBER);
  ck_assert_ptr_null(V_Named__vt.base); /* Shape is abstract: no state */
  ck_assert_ptr_eq(V_Circle__vt.base, &V_Named__vt);
  ck_assert_ptr_null(V_Circle__vt.visibility);
  ck_assert_uint_eq(offsetof(V_Circle, _base), 0);
  ck_assert_uint_eq(V_StrBox__vt.flags, CDR_VT_BOX);
  ck_assert_uint_eq(V_StrBox__vt.nmembers, 1);
  ck_assert_uint_eq(offsetof(V_StrBox, _value), V_StrBox__vt.members[0].offset);
  ck_assert_ptr_eq(V_PtBox__vt.members[0].type, TC_V_Pt);
  ck_assert_int_eq(V_LongsBox__vt.members[0].type->kind, CDR_K_SEQUENCE);
  ck_assert_uint_eq(V_Blob__vt.flags, CDR_VT_CUSTOM);
  ck_assert_ptr_eq(V_Blob__vt.marshal, V_Blob__marshal);
  ck_assert_ptr_eq(V_Blob__vt.unmarshal, V_Blob__unmarshal);
  ck_assert_int_eq(TC_V_NamedAlias->kind, CDR_K_ALIAS);
  ck_assert_ptr_eq(TC_V_NamedAlias->u.alias.type, TC_V_Named);
  ck_assert_ptr_eq(TC_V_Fwd->u.val.vt->members[1].type->u.seq.elem, TC_V_Named);

  /* registered with the global registry when the program started */
  const cdr_registry *g = cdr_registry_global();
  const char *ids[] = { "IDL:Bench/Node:1.0", "IDL:Bench/SubNode:1.0", "IDL:Bench/TruncNode:1.0",
                        "IDL:V/Circle:1.0", "IDL:V/StrBox:1.0", "IDL:V/Blob:1.0" };
  const cdr_value_type *vts[] = { &Bench_Node__vt, &Bench_SubNode__vt, &Bench_TruncNode__vt,
                                  &V_Circle__vt, &V_StrBox__vt, &V_Blob__vt };
  for (int k = 0; k < 6; k++)
    ck_assert_ptr_eq(cdr_registry_find(g, ids[k], strlen(ids[k])), vts[k]);
  ck_assert_int_eq(IDL2C_Bench_register_values(NULL), CDR_OK); /* again: a no-op */
  cdr_registry *r = cdr_registry_new();
  ck_assert_int_eq(IDL2C_values_register_values(r), CDR_OK);
  ck_assert_ptr_eq(cdr_registry_find(r, "IDL:V/Named:1.0", 15), &V_Named__vt);
  ck_assert_ptr_null(cdr_registry_find(r, "IDL:Bench/Node:1.0", 18));
  cdr_registry_free(r);
}
END_TEST

/* The TypeCodes: written, read back, equal; kinds, modifiers, bases and
 * visibilities as the IDL says. */
START_TEST(test_typecodes)
{
  CORBA_TypeCode tcs[] = { TC_Bench_Node, TC_Bench_SubNode, TC_Bench_TruncNode, TC_Bench_Pair,
                           TC_V_Named, TC_V_Circle, TC_V_StrBox, TC_V_PtBox, TC_V_LongsBox,
                           TC_V_Holder, TC_V_Blob };
  for (unsigned k = 0; k < sizeof tcs / sizeof tcs[0]; k++) {
    TU_CTX("TypeCode %u", k);
    cdr_out o;
    cdr_out_init(&o, NULL);
    ck_assert_int_eq(cdr_put_typecode(&o, tcs[k]), CDR_OK);
    cdr_arena *a = cdr_arena_get();
    cdr_in i;
    cdr_in_init(&i, cdr_out_data(&o), cdr_out_size(&o), CDR_HOST_ORDER, NULL);
    cdr_in_set_arena(&i, a);
    cdr_typecode t = NULL;
    ck_assert_int_eq(cdr_get_typecode(&i, &t), CDR_OK);
    ck_assert_msg(cdr_tc_equal(t, tcs[k]), "%s", tu_ctx);
    cdr_in_close(&i);
    cdr_arena_put(a);
    cdr_out_close(&o);
  }
  ck_assert_int_eq(cdr_tc_kind(TC_V_StrBox), CDR_TK_VALUE_BOX);
  ck_assert_int_eq(cdr_tc_kind(TC_Bench_Node), CDR_TK_VALUE);
  int16_t m = -1;
  ck_assert_int_eq(cdr_tc_type_modifier(TC_Bench_TruncNode, &m), CDR_OK);
  ck_assert_int_eq(m, CDR_VM_TRUNCATABLE);
  ck_assert_int_eq(cdr_tc_type_modifier(TC_V_Blob, &m), CDR_OK);
  ck_assert_int_eq(m, CDR_VM_CUSTOM);
  ck_assert_int_eq(cdr_tc_type_modifier(TC_Bench_SubNode, &m), CDR_OK);
  ck_assert_int_eq(m, CDR_VM_NONE);
  cdr_typecode b = NULL;
  ck_assert_int_eq(cdr_tc_concrete_base_type(TC_Bench_SubNode, &b), CDR_OK);
  ck_assert_int_eq(cdr_tc_kind(b), CDR_TK_VALUE);
  ck_assert_ptr_eq(b->u.val.vt, &Bench_Node__vt);
  int16_t v = -1;
  ck_assert_int_eq(cdr_tc_member_visibility(TC_V_Named, 1, &v), CDR_OK);
  ck_assert_int_eq(v, CDR_PRIVATE_MEMBER);
  ck_assert_int_eq(cdr_tc_member_visibility(TC_V_Named, 0, &v), CDR_OK);
  ck_assert_int_eq(v, CDR_PUBLIC_MEMBER);
}
END_TEST

/* ---------------------------------------------------------------- through libcdr */

/* Write T's value at SRC, read it back into DST from arena A (a private
 * REGISTRY if given); returns the octets written. */
static size_t round_trip(CORBA_TypeCode t, const void *src, void *dst, cdr_arena *a,
                         const cdr_registry *registry)
{
  cdr_out o;
  cdr_out_init(&o, NULL);
  ck_assert_int_eq(cdr_write(&o, t, src), CDR_OK);
  size_t n = cdr_out_size(&o);
  cdr_in i;
  cdr_in_init(&i, cdr_out_data(&o), n, CDR_HOST_ORDER, NULL);
  cdr_in_set_arena(&i, a);
  if (registry) {
    cdr_value_opts vo;
    cdr_value_opts_default(&vo);
    vo.registry = registry;
    ck_assert_int_eq(cdr_in_set_value_opts(&i, &vo), CDR_OK);
  }
  ck_assert_int_eq(cdr_read(&i, t, dst), CDR_OK);
  ck_assert_uint_eq(cdr_in_remaining(&i), 0);
  cdr_in_close(&i);
  cdr_out_close(&o);
  return n;
}

START_TEST(test_lists_octets)
{
  cdr_arena *a = cdr_arena_get();
  /* 0 nodes: the null value, a long 0 */
  Bench_Node *h = NULL, *back = (Bench_Node *)1;
  ck_assert_uint_eq(round_trip(TC_Bench_Node, &h, &back, a, NULL), 4);
  ck_assert_ptr_null(back);
  /* 1 node: value tag 0x7fffff00 (no type information), id, null next */
  h = make_list(1, 0);
  cdr_out o;
  cdr_out_init(&o, NULL);
  ck_assert_int_eq(cdr_write(&o, TC_Bench_Node, &h), CDR_OK);
  static const uint8_t one_le[] = { 0x00, 0xff, 0xff, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0 };
  if (CDR_HOST_ORDER == CDR_LITTLE_ENDIAN)
    TU_ASSERT_BYTES(cdr_out_data(&o), cdr_out_size(&o), one_le, sizeof one_le);
  cdr_out_close(&o);
  ck_assert_uint_eq(round_trip(TC_Bench_Node, &h, &back, a, NULL), 12);
  check_list(back, 1, 0);
  CORBA_free(h);
  /* 50 nodes: 50 tags and ids, one null */
  h = make_list(50, 0);
  ck_assert_uint_eq(round_trip(TC_Bench_Node, &h, &back, a, NULL), 50 * 8 + 4);
  check_list(back, 50, 0);
  CORBA_free(h);
  /* 50 with SubNodes: each SubNode carries its one repository ID (the
   * first one in full, 4 + 4 + 22 octets, aligned, the others an
   * indirection) and its extra */
  h = make_list(50, 1);
  size_t n = round_trip(TC_Bench_Node, &h, &back, a, NULL);
  ck_assert_uint_eq(n, 50 * 8 + 4 + 17 * 8 + (4 + 22 + 2) - 8 + 17 * 4);
  check_list(back, 50, 1);
  CORBA_free(h);
  cdr_arena_put(a);
}
END_TEST

START_TEST(test_cycle_and_sharing)
{
  cdr_arena *a = cdr_arena_get();
  Bench_Node *h = make_list(3, 0);
  h->next->next->next = h; /* 1 -> 2 -> 3 -> 1 */
  Bench_Node *back = NULL;
  /* three tags and ids, then the indirection: 0xffffffff and the offset */
  ck_assert_uint_eq(round_trip(TC_Bench_Node, &h, &back, a, NULL), 3 * 8 + 8);
  ck_assert_int_eq(back->id, 1);
  ck_assert_int_eq(back->next->next->id, 3);
  ck_assert_ptr_eq(back->next->next->next, back);
  CORBA_free(h); /* the cyclic graph, whole */

  Bench_Pair p = { make_list(2, 0), NULL }, q = { NULL, NULL };
  p.b = p.a;
  ck_assert_uint_eq(round_trip(TC_Bench_Pair, &p, &q, a, NULL), 2 * 8 + 4 + 8);
  ck_assert_ptr_eq(q.a, q.b); /* one object after decoding */
  ck_assert_int_eq(q.a->next->id, 2);
  p.b = p.a->next; /* b points into a's graph */
  ck_assert_uint_eq(round_trip(TC_Bench_Pair, &p, &q, a, NULL), 2 * 8 + 4 + 8);
  ck_assert_ptr_eq(q.a->next, q.b);
  CORBA_free(p.a);
  cdr_arena_put(a);
}
END_TEST

/* An unknown TruncNode (a receiver that registered Node only) arrives as a
 * Node: the library finds the truncatable base in the ID list. */
START_TEST(test_truncation)
{
  cdr_arena *a = cdr_arena_get();
  Bench_TruncNode *t = Bench_TruncNode__alloc();
  t->_base.id = 7;
  t->extra = 70;
  Bench_Node *n = Bench_Node__alloc_in(t);
  n->id = 8;
  t->_base.next = n;
  cdr_registry *r = cdr_registry_new();
  ck_assert_int_eq(cdr_registry_add(r, &Bench_Node__vt), CDR_OK);
  Bench_Node *h = &t->_base, *back = NULL;
  round_trip(TC_Bench_Node, &h, &back, a, r);
  ck_assert_ptr_eq(back->_hdr.type, &Bench_Node__vt);
  ck_assert_ptr_null(Bench_TruncNode__downcast(back));
  ck_assert_int_eq(back->id, 7);
  ck_assert_int_eq(back->next->id, 8);
  ck_assert_ptr_null(back->next->next);
  /* with TruncNode known (the global registry), it stays one */
  round_trip(TC_Bench_Node, &h, &back, a, NULL);
  Bench_TruncNode *bt = Bench_TruncNode__downcast(back);
  ck_assert_ptr_nonnull(bt);
  ck_assert_int_eq(bt->extra, 70);
  ck_assert_ptr_nonnull(Bench_Node__downcast(bt)); /* a TruncNode is a Node */
  cdr_registry_free(r);
  CORBA_free(t);
  cdr_arena_put(a);
}
END_TEST

START_TEST(test_boxes_and_custom)
{
  cdr_arena *a = cdr_arena_get();
  V_StrBox *s = V_StrBox__alloc();
  s->_value = corbaorb_value_strdup(s, "hi");
  V_StrBox *sb = NULL;
  /* tag, the string: length 3, "hi", NUL */
  ck_assert_uint_eq(round_trip(TC_V_StrBox, &s, &sb, a, NULL), 4 + 4 + 3);
  ck_assert_str_eq(sb->_value, "hi");
  ck_assert_ptr_eq(sb->_hdr.type, &V_StrBox__vt);
  CORBA_free(s);

  V_PtBox *p = V_PtBox__alloc();
  p->_value.x = -3;
  p->_value.y = 9;
  V_PtBox *pb = NULL;
  ck_assert_uint_eq(round_trip(TC_V_PtBox, &p, &pb, a, NULL), 12);
  ck_assert_int_eq(pb->_value.x, -3);
  ck_assert_int_eq(pb->_value.y, 9);
  CORBA_free(p);

  V_LongsBox *l = V_LongsBox__alloc();
  CORBA_long xs[3] = { 1, 2, 3 };
  l->_value._buffer = xs;
  l->_value._length = l->_value._maximum = 3;
  V_LongsBox *lb = NULL;
  ck_assert_uint_eq(round_trip(TC_V_LongsBox, &l, &lb, a, NULL), 4 + 4 + 12);
  ck_assert_uint_eq(lb->_value._length, 3);
  ck_assert_int_eq(lb->_value._buffer[2], 3);
  CORBA_free(l);

  /* a custom value: chunked, its state as the hooks write it */
  V_Blob *b = V_Blob__alloc();
  b->len = 5;
  V_Blob *bb = NULL;
  size_t n = round_trip(TC_V_Blob, &b, &bb, a, NULL);
  /* tag with one ID, ID (4 + 15), chunk length, len, 5 octets, end tag */
  ck_assert_uint_eq(n, 4 + 4 + 15 + 1 + 4 + 4 + 5 + 3 + 4);
  ck_assert_int_eq(bb->len, 5);
  CORBA_free(b);

  /* a Circle: derived from Named (private member), a forward-declared Fwd
   * holding a sequence of Nameds that point back at the circle */
  V_Circle *c = V_Circle__alloc();
  c->_base.name = corbaorb_value_strdup(c, "disc");
  c->_base.secret = 42;
  c->r = 1.5;
  c->link = V_Fwd__alloc_in(c);
  c->link->n = 2;
  V_Named *buf[2] = { &c->_base, NULL };
  c->link->kids._buffer = buf;
  c->link->kids._length = c->link->kids._maximum = 2;
  V_Named *named = &c->_base, *nb = NULL;
  round_trip(TC_V_Named, &named, &nb, a, NULL);
  V_Circle *cb = V_Circle__downcast(nb);
  ck_assert_ptr_nonnull(cb);
  ck_assert_str_eq(cb->_base.name, "disc");
  ck_assert_int_eq(cb->_base.secret, 42);
  ck_assert(cb->r == 1.5);
  ck_assert_int_eq(cb->link->n, 2);
  ck_assert_uint_eq(cb->link->kids._length, 2);
  ck_assert_ptr_eq(cb->link->kids._buffer[0], nb); /* the cycle through the sequence */
  ck_assert_ptr_null(cb->link->kids._buffer[1]);
  CORBA_free(c);
  cdr_arena_put(a);
}
END_TEST

/* A value in an any: the generated TypeCode is what the any carries. */
START_TEST(test_any)
{
  cdr_arena *a = cdr_arena_get();
  Bench_Node *h = make_list(2, 1);
  CORBA_any in = { ._type = TC_Bench_Node, ._value = &h, ._release = CORBA_FALSE }, out;
  memset(&out, 0, sizeof out);
  round_trip(TC_CORBA_any, &in, &out, a, NULL);
  ck_assert(cdr_tc_equal(out._type, TC_Bench_Node));
  Bench_Node *v = *(Bench_Node **)out._value;
  ck_assert_int_eq(v->id, 1);
  ck_assert_int_eq(Bench_SubNode__downcast(v->next)->extra, 20);
  CORBA_free(h);
  cdr_arena_put(a);
}
END_TEST

/* ---------------------------------------------------------------- graphs and CORBA_free */

START_TEST(test_graph_memory)
{
  /* what a process's first decoding of a value makes once and keeps (the
   * value registry's table, the per-thread pools' own): before counting */
  Bench_Node warm = { { &Bench_Node__vt }, 1, NULL }, *wp = &warm, *wc = NULL;
  ck_assert_int_eq(corbaorb_copy(TC_Bench_Node, &wc, &wp), CDR_OK);
  CORBA_free(wc);
  count_on();
  Bench_Node *h = make_list(50, 1);
  ck_assert_int_gt(mc.live, 0);
  ck_assert_ptr_null(corbaorb_value_dup(h->next)); /* not a reference */
  CORBA_free(h);
  ck_assert_int_eq(mc.live, 0);

  h = make_list(3, 0);
  h->next->next->next = h;
  CORBA_free(h); /* cyclic */
  ck_assert_int_eq(mc.live, 0);

  /* a Pair the ORB would free: two references to one graph */
  Bench_Pair *p = Bench_Pair__alloc();
  p->a = make_list(4, 0);
  p->b = corbaorb_value_dup(p->a->next ? p->a : NULL);
  ck_assert_ptr_eq(p->b, p->a);
  Bench_Node *keep = corbaorb_value_dup(p->a);
  CORBA_free(p);
  ck_assert_int_gt(mc.live, 0);
  ck_assert_int_eq(keep->next->next->next->id, 4); /* still valid */
  CORBA_free(keep);
  ck_assert_int_eq(mc.live, 0);

  /* a copy of a struct holding references holds its own */
  Bench_Pair q = { make_list(1, 0), NULL }, r;
  ck_assert_int_eq(corbaorb_copy(TC_Bench_Pair, &r, &q), CDR_OK);
  ck_assert_ptr_eq(r.a, q.a);
  CORBA_free(q.a);
  ck_assert_int_eq(r.a->id, 1);
  corbaorb_free_contents(TC_Bench_Pair, &r);
  ck_assert_int_eq(mc.live, 0);
  /* values that are no references (a request's in values, values on the
   * stack) are copied deeply, into a graph of their own that the copy holds
   * references to: sharing and cycles kept */
  Bench_Node stack = { { &Bench_Node__vt }, 1, NULL };
  Bench_Node ring[3] = { { { &Bench_Node__vt }, 10, &ring[1] },
                         { { &Bench_Node__vt }, 11, &ring[2] },
                         { { &Bench_Node__vt }, 12, &ring[0] } };
  q.a = &stack;
  q.b = &ring[0];
  ck_assert_int_eq(corbaorb_copy(TC_Bench_Pair, &r, &q), CDR_OK);
  ck_assert_ptr_ne(r.a, &stack);
  ck_assert_int_eq(r.a->id, 1);
  ck_assert_ptr_null(r.a->next);
  ck_assert_ptr_ne(r.b, &ring[0]);
  ck_assert_int_eq(r.b->id, 10);
  ck_assert_int_eq(r.b->next->id, 11);
  ck_assert_int_eq(r.b->next->next->id, 12);
  ck_assert_ptr_eq(r.b->next->next->next, r.b);          /* the cycle, in the copy */
  ck_assert_ptr_eq(corbaorb_value_dup(r.a), r.a);        /* a reference: one more */
  CORBA_free(r.a);
  corbaorb_free_contents(TC_Bench_Pair, &r);
  /* the same in an any (what a servant's CORBA_any__copy of an in any does) */
  CORBA_any sa = { ._type = TC_Bench_Node, ._value = &q.b, ._release = CORBA_FALSE };
  CORBA_any *ca = CORBA_any__alloc();
  CORBA_any__copy(ca, &sa);
  ck_assert(cdr_tc_equal(ca->_type, TC_Bench_Node));
  Bench_Node *cv = *(Bench_Node **)ca->_value;
  ck_assert_ptr_ne(cv, &ring[0]);
  ck_assert_int_eq(cv->next->next->id, 12);
  ck_assert_ptr_eq(cv->next->next->next, cv);
  CORBA_free(ca);
  cdr_pool_flush(); /* the CDR buffer the copies used went back to the pools */
  ck_assert_int_eq(mc.live, 0);
  ck_assert_ptr_null(V_Named__alloc_in(&stack));
  ck_assert_ptr_null(corbaorb_value_strdup(&stack, "x"));
  ck_assert_ptr_null(corbaorb_value_new(NULL, NULL));
  ck_assert_int_eq(mc.live, 0);

  /* many graphs at once: the reference table grows and shrinks */
  enum { N = 1000 };
  static Bench_Node *many[N];
  for (int k = 0; k < N; k++) {
    many[k] = make_list(k % 4 + 1, 0);
    many[k]->id = k;
  }
  for (int k = 0; k < N; k += 2)
    CORBA_free(many[k]);
  for (int k = 1; k < N; k += 2) {
    ck_assert_int_eq(many[k]->id, k);
    ck_assert_ptr_eq(corbaorb_value_dup(many[k]), many[k]);
    CORBA_free(many[k]);
    CORBA_free(many[k]);
  }
  count_off();
  ck_assert_int_eq(mc.live, 1); /* the table grown past its first size stays */
}
END_TEST

/* ---------------------------------------------------------------- the ORB */

/* Bench::Echo: echoes what it is given (bench/echo-servant.h). */
#include "../bench/echo-servant.h"

/* V::Zoo: new values the ORB frees after the reply */
typedef struct { POA_V_Zoo servant; int sets; } Zoo;
static V_Named z_current = { { &V_Named__vt }, (CORBA_char *)"static", 3 };

static V_Named *new_named(const char *name, CORBA_long secret)
{
  V_Named *n = V_Named__alloc();
  n->name = corbaorb_value_strdup(n, name);
  n->secret = secret;
  return n;
}

static V_Named *z_pass(PortableServer_Servant s, const V_Named *n, V_Named **io, V_Named **o,
                       CORBA_Environment *ev)
{
  (void)s;
  if (n && n->secret < 0) {
    V_Bad *b = V_Bad__alloc();
    b->why = new_named("negative", n->secret);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_V_Bad, b);
    return NULL;
  }
  if (*io)
    (*io)->secret += 100; /* a reference the ORB made: changed in place */
  *o = (V_Named *)(uintptr_t)n;
  return new_named("fresh", n ? n->secret + 1 : -1);
}
static V_Named *z_get_current(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return &z_current; /* static: no reference, not freed */
}
static void z_set_current(PortableServer_Servant s, const V_Named *v, CORBA_Environment *ev)
{
  (void)ev;
  ((Zoo *)s)->sets += v ? v->secret : 1000;
}
static V_Holder *z_hold(PortableServer_Servant s, const V_Holder *h, V_Holder **o,
                        CORBA_Environment *ev)
{
  (void)s; (void)ev;
  V_Holder *r = V_Holder__alloc();
  r->one = h->many._length ? h->many._buffer[h->many._length - 1] : NULL; /* request arena */
  r->label = V_StrBox__alloc();
  r->label->_value = corbaorb_value_strdup(r->label, h->label ? h->label->_value : "none");
  *o = V_Holder__alloc();
  (*o)->many._buffer = V_NamedSeq_allocbuf(2);
  (*o)->many._maximum = (*o)->many._length = 2;
  (*o)->many._release = CORBA_TRUE;
  (*o)->many._buffer[0] = new_named("zero", 0);
  (*o)->many._buffer[1] = corbaorb_value_dup((*o)->many._buffer[0]); /* shared */
  return r;
}
static V_Named *z_alias(PortableServer_Servant s, const V_Named *a, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return (V_Named *)(uintptr_t)a;
}
static V_StrBox *z_box(PortableServer_Servant s, const V_StrBox *b, const V_PtBox *p,
                       const V_LongsBox *l, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  char buf[96];
  snprintf(buf, sizeof buf, "%s %d,%d %u", b ? b->_value : "-", p ? p->_value.x : 0,
           p ? p->_value.y : 0, l ? (unsigned)l->_value._length : 0u);
  V_StrBox *r = V_StrBox__alloc();
  r->_value = corbaorb_value_strdup(r, buf);
  return r;
}
static CORBA_any *z_wrap(PortableServer_Servant s, const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s;
  CORBA_any *r = CORBA_any__alloc();
  if (CORBA_TypeCode_equivalent(a->_type, TC_V_Named, ev)) {
    const V_Named *n = *(V_Named *const *)a->_value;
    r->_type = TC_V_Named;
    r->_value = corbaorb_alloc(TC_V_Named, 1);
    r->_release = CORBA_TRUE;
    *(V_Named **)r->_value = new_named(n->name, n->secret * 2);
  } else {
    CORBA_any__copy(r, a); /* its values are the request's: copied deeply */
  }
  return r;
}

static PortableServer_ServantBase__epv z_base = { NULL, NULL, NULL };
static POA_V_Zoo__epv z_epv = { NULL, z_pass, z_get_current, z_set_current, z_hold, z_alias,
                                z_box, z_wrap };
static POA_V_Zoo__vepv z_vepv = { &z_base, &z_epv };

/* The Echo calls every server must answer alike (ours through the
 * generated skeleton, the native bench server, omniORB's omni-server). */
static void echo_calls(Bench_Echo e)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert_int_eq(Bench_Echo_ping(e, 41, &ev), 41);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  static const int sizes[] = { 0, 1, 50 };
  for (int sub = 0; sub < 2; sub++)
    for (int k = 0; k < 3; k++) {
      Bench_Node *h = make_list(sizes[k], sub);
      Bench_Node *r = Bench_Echo_echoGraph(e, h, &ev);
      ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
      check_list(r, sizes[k], sub);
      CORBA_free(r);
      CORBA_free(h);
    }
  /* a cyclic list of 5 */
  Bench_Node *c = make_list(5, 1);
  c->next->next->next->next->next = c;
  Bench_Node *r = Bench_Echo_echoGraph(e, c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(r->next->next->next->next->id, 5);
  ck_assert_ptr_eq(r->next->next->next->next->next, r);
  ck_assert_int_eq(Bench_SubNode__downcast(r->next)->extra, 20);
  CORBA_free(r);
  /* a TruncNode in the middle: known here, so it comes back as one */
  Bench_TruncNode *t = Bench_TruncNode__alloc_in(c);
  t->_base.id = 99;
  t->extra = 990;
  c->next->next->next->next->next = &t->_base;
  r = Bench_Echo_echoGraph(e, c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Bench_TruncNode *rt = Bench_TruncNode__downcast(r->next->next->next->next->next);
  ck_assert_ptr_nonnull(rt);
  ck_assert_int_eq(rt->extra, 990);
  ck_assert_ptr_null(rt->_base.next);
  CORBA_free(r);
  /* a Pair whose a and b are the same value: one object after decoding */
  Bench_Pair p = { c, c };
  Bench_Pair *rp = Bench_Echo_echoPair(e, &p, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_eq(rp->a, rp->b);
  ck_assert_int_eq(rp->a->next->next->id, 3);
  CORBA_free(rp);
  p.b = c->next->next;
  rp = Bench_Echo_echoPair(e, &p, &ev);
  ck_assert_ptr_eq(rp->a->next->next, rp->b);
  CORBA_Environment ev2;
  CORBA_exception_init(&ev2);
  Bench_Node *keep = corbaorb_value_dup(rp->b); /* b is a reference too */
  ck_assert_ptr_eq(keep, rp->b);
  CORBA_free(rp);
  ck_assert_int_eq(keep->id, 3);
  CORBA_free(keep);
  p.a = p.b = NULL;
  rp = Bench_Echo_echoPair(e, &p, &ev);
  ck_assert_ptr_null(rp->a);
  ck_assert_ptr_null(rp->b);
  CORBA_free(rp);
  CORBA_free(c);
  CORBA_char *s = Bench_Echo_echoString(e, "values", &ev);
  ck_assert_str_eq(s, "values");
  CORBA_free(s);
}

static void zoo_calls(V_Zoo z, Zoo *zoo)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  int sets0 = zoo->sets;

  /* in, inout, out and result */
  V_Named *n = new_named("in", 5), *io = new_named("io", 1), *o = NULL;
  V_Named *r = V_Zoo_pass(z, n, &io, &o, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(r->name, "fresh");
  ck_assert_int_eq(r->secret, 6);
  ck_assert_int_eq(io->secret, 101); /* replaced by the reply's */
  ck_assert_str_eq(io->name, "io");
  ck_assert_str_eq(o->name, "in");
  CORBA_free(r);
  CORBA_free(o);
  /* nulls both ways */
  V_Named *io2 = NULL;
  r = V_Zoo_pass(z, NULL, &io2, &o, &ev);
  ck_assert_int_eq(r->secret, -1);
  ck_assert_ptr_null(io2);
  ck_assert_ptr_null(o);
  CORBA_free(r);
  /* a user exception holding a value */
  n->secret = -4;
  r = V_Zoo_pass(z, n, &io, &o, &ev);
  ck_assert_int_eq(ev._major, CORBA_USER_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_V_Bad);
  V_Bad *bad = CORBA_exception_value(&ev);
  ck_assert_str_eq(bad->why->name, "negative");
  ck_assert_int_eq(bad->why->secret, -4);
  CORBA_exception_free(&ev);
  CORBA_free(n);
  CORBA_free(io);

  /* attributes */
  V_Named *cur = V_Zoo__get_current(z, &ev);
  ck_assert_str_eq(cur->name, "static");
  ck_assert_int_eq(cur->secret, 3);
  CORBA_free(cur);
  V_Named set = { { &V_Named__vt }, (CORBA_char *)"x", 30 };
  V_Zoo__set_current(z, &set, &ev); /* a value on the stack goes as any other */
  V_Zoo__set_current(z, NULL, &ev);
  ck_assert_int_eq(zoo->sets - sets0, 1030);

  /* values in structs and sequences, a box */
  V_Holder h;
  memset(&h, 0, sizeof h);
  V_Named *one = new_named("one", 1);
  V_Named *buf[3] = { one, V_Named__alloc_in(one), one };
  buf[1]->name = corbaorb_value_strdup(one, "two");
  h.one = one;
  h.many._buffer = buf;
  h.many._length = h.many._maximum = 3;
  V_StrBox lbl = { { &V_StrBox__vt }, (CORBA_char *)"lbl" };
  h.label = &lbl;
  V_Holder *ho = NULL;
  V_Holder *hr = V_Zoo_hold(z, &h, &ho, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(hr->one->name, "one");
  ck_assert_str_eq(hr->label->_value, "lbl");
  ck_assert_uint_eq(ho->many._length, 2);
  ck_assert_ptr_eq(ho->many._buffer[0], ho->many._buffer[1]);
  ck_assert_str_eq(ho->many._buffer[1]->name, "zero");
  CORBA_free(hr);
  CORBA_free(ho);
  CORBA_free(one);

  V_Named *al = V_Zoo_alias(z, &set, &ev);
  ck_assert_int_eq(al->secret, 30);
  CORBA_free(al);

  V_PtBox pb = { { &V_PtBox__vt }, { 3, 4 } };
  CORBA_long ls[2] = { 8, 9 };
  V_LongsBox lb = { { &V_LongsBox__vt }, { 2, 2, ls, CORBA_FALSE } };
  V_StrBox *bx = V_Zoo_box(z, &lbl, &pb, &lb, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(bx->_value, "lbl 3,4 2");
  CORBA_free(bx);
  bx = V_Zoo_box(z, NULL, NULL, NULL, &ev);
  ck_assert_str_eq(bx->_value, "- 0,0 0");
  CORBA_free(bx);

  /* a value in an any, both ways */
  V_Named *an = new_named("any", 21);
  CORBA_any a = { ._type = TC_V_Named, ._value = &an, ._release = CORBA_FALSE };
  CORBA_any *ar = V_Zoo_wrap(z, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_TypeCode_equivalent(ar->_type, TC_V_Named, &ev));
  V_Named *got = *(V_Named **)ar->_value;
  ck_assert_str_eq(got->name, "any");
  ck_assert_int_eq(got->secret, 42);
  CORBA_free(ar);
  /* an any the servant copies (CORBA_any__copy of the in any, whose values
   * live in the request): the graph comes back whole, shared as it went */
  V_Holder ha = { an, { 2, 2, (V_Named *[]){ an, an }, CORBA_FALSE }, NULL };
  a._type = TC_V_Holder;
  a._value = &ha;
  ar = V_Zoo_wrap(z, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_TypeCode_equivalent(ar->_type, TC_V_Holder, &ev));
  V_Holder *har = ar->_value;
  ck_assert_ptr_nonnull(har->one);
  ck_assert_str_eq(har->one->name, "any");
  ck_assert_int_eq(har->one->secret, 21);
  ck_assert_uint_eq(har->many._length, 2);
  ck_assert_ptr_eq(har->many._buffer[0], har->one);
  ck_assert_ptr_eq(har->many._buffer[1], har->one);
  ck_assert_ptr_null(har->label);
  CORBA_free(ar);
  CORBA_free(an);
}

START_TEST(test_stub_skeleton)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  POA_Bench_Echo echo = { NULL, &e_vepv };
  POA_Bench_Echo__init(&echo, &ev);
  Zoo zoo = { { NULL, &z_vepv }, 0 };
  POA_V_Zoo__init(&zoo.servant, &ev);
  Bench_Echo e = PortableServer_POA_servant_to_reference(root, &echo, &ev);
  V_Zoo z = PortableServer_POA_servant_to_reference(root, &zoo.servant, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  echo_calls(e); /* warm-up: pools, connection, reference table */

  zoo_calls(z, &zoo);
  /* the steady state: a second round allocates as much as it frees, so
   * every graph (cyclic ones included), box, any and exception the calls
   * made was given back (the server threads' pools stay warm) */
  count_on();
  echo_calls(e);
  zoo_calls(z, &zoo);
  int64_t live1 = __atomic_load_n(&mc.live, __ATOMIC_SEQ_CST);
  for (int k = 0; k < 3; k++) {
    echo_calls(e);
    zoo_calls(z, &zoo);
  }
  int64_t live2 = __atomic_load_n(&mc.live, __ATOMIC_SEQ_CST);
  cdr_mem_set_global(NULL);
  ck_assert_int_eq(live2, live1);
  ck_assert_int_eq(zoo.sets, 5 * 1030);

  CORBA_Object_release(e, &ev);
  CORBA_Object_release(z, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Bench_Echo__fini(&echo, &ev);
  POA_V_Zoo__fini(&zoo.servant, &ev);
}
END_TEST

/* Against another server, named by its IOR in the environment
 * (tests/values.test): the native bench server or omniORB's. */
static void remote(const char *var)
{
  const char *ior = getenv(var);
  if (!ior || !*ior)
    return; /* not asked for: tests/values.test says so */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t";
  char *argv[] = { a0, NULL };
  int argc = 1;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  Bench_Echo e = CORBA_ORB_string_to_object(orb, ior, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  echo_calls(e);
  CORBA_Object_release(e, &ev);
  CORBA_ORB_destroy(orb, &ev);
}

START_TEST(test_bench_server)
{
  remote("BENCH_IOR");
}
END_TEST

START_TEST(test_omni_server)
{
  remote("OMNI_IOR");
}
END_TEST

/* The native bench server with --no-trunc-type knows Node and SubNode
 * only: a TruncNode in a list comes back truncated to a Node. */
START_TEST(test_bench_server_truncates)
{
  const char *ior = getenv("BENCH_NT_IOR");
  if (!ior || !*ior)
    return;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t";
  char *argv[] = { a0, NULL };
  int argc = 1;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  Bench_Echo e = CORBA_ORB_string_to_object(orb, ior, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Bench_Node *h = make_list(3, 1);
  Bench_TruncNode *t = Bench_TruncNode__alloc_in(h);
  t->_base.id = 4;
  t->extra = 40;
  t->_base.next = Bench_Node__alloc_in(h);
  t->_base.next->id = 5;
  h->next->next->next = &t->_base;
  Bench_Node *r = Bench_Echo_echoGraph(e, h, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Bench_Node *x = r->next->next->next;
  ck_assert_int_eq(x->id, 4);
  ck_assert_ptr_eq(x->_hdr.type, &Bench_Node__vt);
  ck_assert_ptr_null(Bench_TruncNode__downcast(x));
  ck_assert_int_eq(x->next->id, 5);
  ck_assert_int_eq(Bench_SubNode__downcast(r->next)->extra, 20);
  CORBA_free(r);
  CORBA_free(h);
  CORBA_Object_release(e, &ev);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

static Suite *values_suite(void)
{
  Suite *s = suite_create("values");
  TCase *tc = tcase_create("values");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_layout_and_descriptors);
  tcase_add_test(tc, test_typecodes);
  tcase_add_test(tc, test_lists_octets);
  tcase_add_test(tc, test_cycle_and_sharing);
  tcase_add_test(tc, test_truncation);
  tcase_add_test(tc, test_boxes_and_custom);
  tcase_add_test(tc, test_any);
  tcase_add_test(tc, test_graph_memory);
  tcase_add_test(tc, test_stub_skeleton);
  suite_add_tcase(s, tc);
  /* against other servers: tests/values.test runs this case alone */
  tc = tcase_create("remote");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_bench_server);
  tcase_add_test(tc, test_bench_server_truncates);
  tcase_add_test(tc, test_omni_server);
  suite_add_tcase(s, tc);
  return s;
}

static int values_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = values_suite, .setup = values_setup };
