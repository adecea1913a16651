/* check_corba.c - libcorbaorb (corbaorb/corba.h) in one process: the
 * mapping's memory rules (deep CORBA_free, replaced members, copies, every
 * allocation failure of a copy), CORBA_Environment, CORBA_ORB_init's
 * options and what it leaves in argv, object strings (IOR, corbaloc, nil,
 * malformed), initial references, the POA subset (activation,
 * deactivation and finalize, ObjectIds, child POAs and their policies), and
 * the steady state of calls through the generated stubs and skeletons of
 * tests/orb/shop.idl: exact allocation counts per call. */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iiop/ior.h>
#include "shop.h"
#include "orbutil.h"
#include "testutil.h"
#include "../libcorbaorb/orb_impl.h" /* the values ORB_init read (test_orb_init_used_values) */

/* ---------------------------------------------------------------- memory */

static cdr_mem_counter mc;

static void count_on(void)
{
  cdr_mem_counter_init(&mc, NULL);
  cdr_mem_set_global(&mc.alloc);
}

static void count_off(void)
{
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
}

static Shop_Item *new_item(const char *name, CORBA_long qty, unsigned nprices)
{
  Shop_Item *it = Shop_Item__alloc();
  ck_assert_ptr_nonnull(it);
  it->name = CORBA_string_dup(name);
  it->qty = qty;
  it->prices._buffer = CORBA_sequence_CORBA_double_allocbuf(nprices);
  it->prices._maximum = it->prices._length = nprices;
  it->prices._release = CORBA_TRUE;
  for (unsigned i = 0; i < nprices; i++)
    it->prices._buffer[i] = i + 0.5;
  return it;
}

START_TEST(test_deep_free)
{
  count_on();
  CORBA_char *s = CORBA_string_alloc(3);
  ck_assert_int_eq(s[3], 0);
  memcpy(s, "abc", 3);
  ck_assert_str_eq(s, "abc");
  CORBA_free(s);
  ck_assert_int_eq(mc.live, 0);

  /* a struct: its string and its sequence buffer go with it, also after
   * the user replaced the string as the mapping allows */
  Shop_Item *it = new_item("apple", 3, 4);
  ck_assert_int_eq(mc.live, 3);
  CORBA_free(it->name);
  it->name = CORBA_string_dup("pear");
  ck_assert_int_eq(mc.live, 3);
  CORBA_free(it);
  ck_assert_int_eq(mc.live, 0);

  /* a sequence of structs, and of strings */
  Shop_ItemSeq *q = Shop_ItemSeq__alloc();
  q->_buffer = Shop_ItemSeq_allocbuf(3);
  q->_maximum = 3;
  q->_length = 2;
  q->_release = CORBA_TRUE;
  for (int i = 0; i < 2; i++) {
    Shop_Item *t = new_item("x", i, 2);
    q->_buffer[i] = *t;
    memset(t, 0, sizeof *t);
    CORBA_free(t);
  }
  ck_assert_int_eq(mc.live, 2 + 2 * 2);
  CORBA_free(q);
  ck_assert_int_eq(mc.live, 0);

  /* _release 0: the buffer is not the sequence's to free */
  Shop_Names *n = Shop_Names__alloc();
  CORBA_string *buf = Shop_Names_allocbuf(1);
  buf[0] = CORBA_string_dup("kept");
  n->_buffer = buf;
  n->_maximum = n->_length = 1;
  n->_release = CORBA_FALSE;
  CORBA_free(n);
  ck_assert_int_eq(mc.live, 2);
  ck_assert_str_eq(buf[0], "kept");
  CORBA_free(buf);
  ck_assert_int_eq(mc.live, 0);

  /* a union frees the branch its discriminator selects */
  Shop_U *u = Shop_U__alloc();
  u->_d = 2;
  u->_u.s = CORBA_string_dup("branch");
  CORBA_free(u);
  ck_assert_int_eq(mc.live, 0);

  /* wstrings */
  CORBA_wchar w[] = { 'h', 0x1F600, 0 };
  CORBA_wchar *wd = CORBA_wstring_dup(w);
  ck_assert_uint_eq(CORBA_wstring_len(wd), 2);
  ck_assert_uint_eq(wd[1], 0x1F600);
  CORBA_free(wd);
  ck_assert_int_eq(mc.live, 0);
  CORBA_free(NULL);
  count_off();
}
END_TEST

START_TEST(test_copy)
{
  count_on();
  Shop_Item *a = new_item("apple", 3, 2);
  Shop_Item b;
  ck_assert_int_eq(corbaorb_copy(TC_Shop_Item, &b, a), CDR_OK);
  ck_assert_ptr_ne(b.name, a->name);
  ck_assert_str_eq(b.name, "apple");
  ck_assert_int_eq(b.qty, 3);
  ck_assert_uint_eq(b.prices._length, 2);
  ck_assert(b.prices._buffer[1] == 1.5);
  ck_assert_int_eq(b.prices._release, 1);
  CORBA_free(a);
  corbaorb_free_contents(TC_Shop_Item, &b);
  ck_assert_int_eq(mc.live, 0);
  ck_assert(corbaorb_tc_is_variable(TC_Shop_Item));
  ck_assert(!corbaorb_tc_is_variable(TC_Shop_Pt));
  ck_assert(corbaorb_tc_is_variable(TC_Shop_U));
  ck_assert(!corbaorb_tc_is_variable(TC_Shop_Vec));
  ck_assert(corbaorb_tc_is_variable(TC_Shop_Store));
  ck_assert_uint_eq(corbaorb_tc_flags(TC_Shop_Item), CORBAORB_F_KNOWN | CORBAORB_F_VAR);
  ck_assert_uint_eq(corbaorb_tc_flags(TC_Shop_Pt), CORBAORB_F_KNOWN);
  ck_assert_uint_eq(corbaorb_tc_flags(TC_Shop_Vec), CORBAORB_F_KNOWN | CORBAORB_F_ARRAY);
  ck_assert_uint_eq(corbaorb_tc_flags(TC_CORBA_string),
                    CORBAORB_F_KNOWN | CORBAORB_F_VAR | CORBAORB_F_PTR);
  ck_assert_uint_eq(corbaorb_tc_flags(TC_Shop_Base),
                    CORBAORB_F_KNOWN | CORBAORB_F_VAR | CORBAORB_F_PTR | CORBAORB_F_OBJREF);
  count_off();
}
END_TEST

/* Every allocation of a deep copy failing in turn: CDR_E_NOMEM, and what
 * was copied frees without a leak. */
START_TEST(test_copy_nomem)
{
  Shop_ItemSeq src = { 3, 3, NULL, 0 };
  Shop_Item items[3];
  for (int i = 0; i < 3; i++) {
    Shop_Item *t = new_item("item", i, 2);
    items[i] = *t;
    memset(t, 0, sizeof *t);
    CORBA_free(t);
  }
  src._buffer = items;
  count_on();
  int failures = 0;
  for (uint64_t k = 1;; k++) {
    cdr_mem_counter_init(&mc, NULL);
    mc.fail_at = k;
    Shop_ItemSeq d;
    int rc = corbaorb_copy(TC_Shop_ItemSeq, &d, &src);
    corbaorb_free_contents(TC_Shop_ItemSeq, &d);
    ck_assert_int_eq(mc.live, 0);
    if (rc == CDR_OK) {
      ck_assert_uint_eq(k, 1 + 3 * 2 + 1); /* buffer, 3 x (name, prices), then none */
      break;
    }
    ck_assert_int_eq(rc, CDR_E_NOMEM);
    failures++;
  }
  ck_assert_int_eq(failures, 7);
  count_off();
  for (int i = 0; i < 3; i++)
    corbaorb_free_contents(TC_Shop_Item, &items[i]);
}
END_TEST

/* ---------------------------------------------------------------- exceptions */

START_TEST(test_environment)
{
  count_on();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_null(CORBA_exception_id(&ev));
  ck_assert_ptr_null(CORBA_exception_value(&ev));

  corbaorb_exception_set_system_minor(&ev, ex_CORBA_TRANSIENT, 0x4f4d0002u, CORBA_COMPLETED_MAYBE);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), "IDL:omg.org/CORBA/TRANSIENT:1.0");
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, 0x4f4d0002u);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_MAYBE);

  /* a new exception frees the old one */
  Shop_NotFound *nf = Shop_NotFound__alloc();
  nf->what = CORBA_string_dup("w");
  nf->code = 9;
  CORBA_exception_set(&ev, CORBA_USER_EXCEPTION, ex_Shop_NotFound, nf);
  ck_assert_int_eq(ev._major, CORBA_USER_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), "IDL:Shop/NotFound:1.0");
  ck_assert_ptr_eq(CORBA_exception_value(&ev), nf);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(mc.live, 0);

  CORBA_exception_set_system(&ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
  se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, 0);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(mc.live, 0);
  count_off();
}
END_TEST

/* ---------------------------------------------------------------- TypeCodes */

START_TEST(test_typecode_ops)
{
  count_on();
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  ck_assert_int_eq(CORBA_TypeCode_kind(TC_Shop_Item, &ev), CORBA_tk_struct);
  CORBA_char *s = CORBA_TypeCode_id(TC_Shop_Item, &ev);
  ck_assert_str_eq(s, "IDL:Shop/Item:1.0");
  CORBA_free(s);
  s = CORBA_TypeCode_name(TC_Shop_Item, &ev);
  ck_assert_str_eq(s, "Item");
  CORBA_free(s);
  ck_assert_uint_eq(CORBA_TypeCode_member_count(TC_Shop_Item, &ev), 3);
  s = CORBA_TypeCode_member_name(TC_Shop_Item, 1, &ev);
  ck_assert_str_eq(s, "qty");
  CORBA_free(s);
  CORBA_TypeCode t = CORBA_TypeCode_member_type(TC_Shop_Item, 2, &ev);
  ck_assert_int_eq(CORBA_TypeCode_kind(t, &ev), CORBA_tk_sequence);
  ck_assert_uint_eq(CORBA_TypeCode_length(t, &ev), 0);
  CORBA_TypeCode e = CORBA_TypeCode_content_type(t, &ev);
  ck_assert_int_eq(CORBA_TypeCode_kind(e, &ev), CORBA_tk_double);
  CORBA_Object_release((CORBA_Object)(void *)e, &ev);
  CORBA_Object_release((CORBA_Object)(void *)t, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_TypeCode_equal(TC_Shop_Item, TC_Shop_Item, &ev));
  ck_assert(!CORBA_TypeCode_equal(TC_Shop_Item, TC_Shop_Pt, &ev));
  /* Vec is an alias of long[3] */
  ck_assert_int_eq(CORBA_TypeCode_kind(TC_Shop_Vec, &ev), CORBA_tk_alias);
  t = CORBA_TypeCode_content_type(TC_Shop_Vec, &ev);
  ck_assert_int_eq(CORBA_TypeCode_kind(t, &ev), CORBA_tk_array);
  ck_assert_uint_eq(CORBA_TypeCode_length(t, &ev), 3);
  CORBA_Object_release((CORBA_Object)(void *)t, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  /* unions: labels as anys, the default index */
  ck_assert_int_eq(CORBA_TypeCode_default_index(TC_Shop_U, &ev), 2);
  CORBA_any *l = CORBA_TypeCode_member_label(TC_Shop_U, 1, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(CORBA_TypeCode_kind(l->_type, &ev), CORBA_tk_long);
  ck_assert_int_eq(*(CORBA_long *)l->_value, 2);
  CORBA_free(l);
  l = CORBA_TypeCode_member_label(TC_Shop_U, 2, &ev);
  ck_assert_int_eq(CORBA_TypeCode_kind(l->_type, &ev), CORBA_tk_octet);
  ck_assert_int_eq(*(CORBA_octet *)l->_value, 0);
  CORBA_free(l);

  /* BadKind, Bounds */
  CORBA_TypeCode_member_count(TC_CORBA_long, &ev);
  ck_assert_int_eq(ev._major, CORBA_USER_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TypeCode_BadKind);
  CORBA_exception_free(&ev);
  ck_assert_ptr_null(CORBA_TypeCode_member_name(TC_Shop_Item, 3, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TypeCode_Bounds);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(mc.live, 0);
  count_off();
}
END_TEST

/* ---------------------------------------------------------------- ORB_init, object strings */

START_TEST(test_orb_init_options)
{
  char a0[] = "prog", a1[] = "-ORBInitRef", a2[] = "Echo=corbaloc::127.0.0.1:2809/EchoKey",
       a3[] = "-foo", a4[] = "-ORBendPoint", a5[] = "giop:tcp:127.0.0.1:0", a6[] = "bar",
       a7[] = "-ORBDefaultInitRef", a8[] = "corbaloc::10.0.0.1:4000";
  char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, NULL };
  int argc = 9;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 3);
  ck_assert_str_eq(argv[0], "prog");
  ck_assert_str_eq(argv[1], "-foo");
  ck_assert_str_eq(argv[2], "bar");

  /* -ORBInitRef: the URL's key and address */
  CORBA_Object o = CORBA_ORB_resolve_initial_references(orb, "Echo", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_char *s = CORBA_ORB_object_to_string(orb, o, &ev);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_str_eq(p->host, "127.0.0.1");
  ck_assert_uint_eq(p->port, 2809);
  ck_assert_uint_eq(p->key_len, 7);
  ck_assert(!memcmp(p->key, "EchoKey", 7));
  CORBA_free(s);
  CORBA_Object_release(o, &ev);

  /* -ORBDefaultInitRef: URL/NAME */
  o = CORBA_ORB_resolve_initial_references(orb, "NameService", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  s = CORBA_ORB_object_to_string(orb, o, &ev);
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_OK);
  p = iiop_ior_iiop_profile(&ior);
  ck_assert_str_eq(p->host, "10.0.0.1");
  ck_assert_uint_eq(p->port, 4000);
  ck_assert_uint_eq(p->key_len, 11);
  ck_assert(!memcmp(p->key, "NameService", 11));
  CORBA_free(s);
  CORBA_Object_release(o, &ev);
  cdr_arena_free(&a);
  CORBA_ORB_destroy(orb, &ev);

  /* without a default: InvalidName */
  char *argv2[] = { a0, NULL };
  argc = 1;
  orb = CORBA_ORB_init(&argc, argv2, "", &ev);
  o = CORBA_ORB_resolve_initial_references(orb, "NameService", &ev);
  ck_assert_ptr_null(o);
  ck_assert_int_eq(ev._major, CORBA_USER_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_ORB_InvalidName);
  CORBA_exception_free(&ev);
  CORBA_ORB_destroy(orb, &ev);

  /* a missing value, a malformed endpoint or InitRef: INITIALIZE (as omniORB) */
  char b1[] = "-ORBendPoint", b2[] = "udp:x:1", b3[] = "-ORBInitRef", b4[] = "NoEquals";
  char *bad[][3] = { { a0, b1, NULL }, { a0, b1, b2 }, { a0, b3, b4 } };
  for (int i = 0; i < 3; i++) {
    argc = bad[i][2] ? 3 : 2;
    char *v[4] = { bad[i][0], bad[i][1], bad[i][2], NULL };
    orb = CORBA_ORB_init(&argc, v, "", &ev);
    ck_assert_ptr_null(orb);
    ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
    ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INITIALIZE);
    ck_assert_uint_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->minor,
                      CORBAORB_MINOR_BAD_ORB_ARG);
    CORBA_exception_free(&ev);
  }
}
END_TEST

/* The ORB's -ORB options, omniORB's way (measured against omniORB 4.2.5's
 * CORBA::ORB_init): an option omniORB does not know is INITIALIZE with
 * minor CORBAORB_MINOR_BAD_ORB_ARG (INITIALIZE_InvalidORBInitArgs) and a
 * text naming it; each one it knows that this ORB has no equivalent for is
 * taken from argv with its value and ignored, its value checked as omniORB
 * checks it. */
static CORBA_ORB init_args(int *argc, char **argv, CORBA_Environment *ev, char *why, size_t cap)
{
  CORBA_exception_init(ev);
  CORBA_ORB orb = CORBA_ORB_init(argc, argv, "", ev);
  corbaorb_ORB_last_error(NULL, why, cap);
  return orb;
}

static void expect_refused(CORBA_Environment *ev, const char *why, const char *text)
{
  ck_assert_int_eq(ev->_major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(ev), ex_CORBA_INITIALIZE);
  CORBA_SystemException *se = CORBA_exception_value(ev);
  ck_assert_uint_eq(se->minor, CORBAORB_MINOR_BAD_ORB_ARG);
  ck_assert_uint_eq(se->minor, 0x4154001eu);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  if (text)
    ck_assert_str_eq(why, text);
  CORBA_exception_free(ev);
}

/* The options this ORB uses read as omniORB 4.2.5 reads them (its
 * -ORBdumpConfiguration, measured): booleans strtol's number, 0 or 1 ("yes",
 * "abc" and "" are 0, "1x" 1); -ORBclientCallTimeOutPeriod and
 * -ORBmaxGIOPConnectionPerServer strtoul's, cut to 32 bits (here at most
 * 2^31 - 1 ms and 64 connections). */
START_TEST(test_orb_init_used_values)
{
  static const struct {
    const char *opt, *val;
    int timeout, offer, accept, transient, conns;
  } v[] = {
    { "-ORBclientCallTimeOutPeriod", "abc", 0, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "", 0, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "12abc", 12, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", " +7", 7, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "1e3", 1, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "0x10", 0, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "4294967296", 0, 0, 0, 0, 0 },      /* omniORB: 0 */
    { "-ORBclientCallTimeOutPeriod", "4294967306", 10, 0, 0, 0, 0 },     /* 10 */
    { "-ORBclientCallTimeOutPeriod", "2147483647", 2147483647, 0, 0, 0, 0 },
    { "-ORBclientCallTimeOutPeriod", "-5", 2147483647, 0, 0, 0, 0 },     /* 4294967291 */
    { "-ORBofferBiDirectionalGIOP", "yes", -1, 0, 0, 0, 0 },
    { "-ORBofferBiDirectionalGIOP", "true", -1, 0, 0, 0, 0 },
    { "-ORBofferBiDirectionalGIOP", "1x", -1, 1, 0, 0, 0 },
    { "-ORBofferBiDirectionalGIOP", "01", -1, 1, 0, 0, 0 },
    { "-ORBofferBiDirectionalGIOP", "-0", -1, 0, 0, 0, 0 },
    { "-ORBacceptBiDirectionalGIOP", " +1", -1, 0, 1, 0, 0 },
    { "-ORBacceptBiDirectionalGIOP", "abc", -1, 0, 0, 0, 0 },
    { "-ORBthrowTransientOnTimeOut", "1yes", -1, 0, 0, 1, 0 },
    { "-ORBthrowTransientOnTimeOut", "", -1, 0, 0, 0, 0 },
    { "-ORBmaxGIOPConnectionPerServer", "3x", -1, 0, 0, 0, 3 },
    { "-ORBmaxGIOPConnectionPerServer", "65", -1, 0, 0, 0, 64 },
    { "-ORBmaxGIOPConnectionPerServer", "4294967297", -1, 0, 0, 0, 1 },  /* omniORB: 1 */
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    char p[] = "prog", o[64], val[64];
    snprintf(o, sizeof o, "%s", v[i].opt);
    snprintf(val, sizeof val, "%s", v[i].val);
    char *argv[] = { p, o, val, NULL };
    int argc = 3;
    CORBA_Environment ev;
    CORBA_exception_init(&ev);
    CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
    ck_assert_msg(orb && ev._major == CORBA_NO_EXCEPTION, "%s \"%s\" refused", v[i].opt, v[i].val);
    ck_assert_int_eq(argc, 1);
    ck_assert_msg(orb->timeout_ms == v[i].timeout && orb->offer_bidir == v[i].offer
                    && orb->accept_bidir == v[i].accept
                    && orb->transient_on_timeout == v[i].transient && orb->max_conns == v[i].conns,
                  "%s \"%s\": timeout %d offer %d accept %d transient %d conns %d", v[i].opt,
                  v[i].val, orb->timeout_ms, orb->offer_bidir, orb->accept_bidir,
                  orb->transient_on_timeout, orb->max_conns);
    CORBA_ORB_destroy(orb, &ev);
  }
  /* what omniORB refuses: a boolean other than 0 or 1, a number past
   * unsigned long, no connections */
  static const struct {
    const char *opt, *val, *text;
  } bad[] = {
    { "-ORBofferBiDirectionalGIOP", "2", "not 0 or 1" },
    { "-ORBofferBiDirectionalGIOP", "-1", "not 0 or 1" },
    { "-ORBofferBiDirectionalGIOP", "4294967296", "not 0 or 1" },
    { "-ORBacceptBiDirectionalGIOP", "3x", "not 0 or 1" },
    { "-ORBthrowTransientOnTimeOut", "2", "not 0 or 1" },
    { "-ORBclientCallTimeOutPeriod", "18446744073709551616", "not a number of milliseconds n >= 0" },
    { "-ORBmaxGIOPConnectionPerServer", "abc", "not a number of connections n >= 1" },
    { "-ORBmaxGIOPConnectionPerServer", "4294967296", "not a number of connections n >= 1" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char p[] = "prog", o[64], val[64], why[CORBAORB_ERROR_MAX], want[CORBAORB_ERROR_MAX];
    snprintf(o, sizeof o, "%s", bad[i].opt);
    snprintf(val, sizeof val, "%s", bad[i].val);
    char *argv[] = { p, o, val, NULL };
    int argc = 3;
    CORBA_Environment ev;
    ck_assert_ptr_null(init_args(&argc, argv, &ev, why, sizeof why));
    snprintf(want, sizeof want, "%s \"%s\": %s", bad[i].opt, bad[i].val, bad[i].text);
    expect_refused(&ev, why, want);
  }
}
END_TEST

START_TEST(test_orb_init_omniorb_options)
{
  CORBA_Environment ev;
  char why[CORBAORB_ERROR_MAX];
  char p[] = "prog", a1[] = "-ORBfooBar", a2[] = "1";
  char *v1[] = { p, a1, a2, NULL };
  int argc = 3;
  ck_assert_ptr_null(init_args(&argc, v1, &ev, why, sizeof why));
  expect_refused(&ev, why, "-ORBfooBar: unknown option in -ORB arguments");
  /* names are matched exactly, case included */
  char b1[] = "-ORBtracelevel", b2[] = "1";
  char *v2[] = { p, b1, b2, NULL };
  argc = 3;
  ck_assert_ptr_null(init_args(&argc, v2, &ev, why, sizeof why));
  expect_refused(&ev, why, "-ORBtracelevel: unknown option in -ORB arguments");
  /* a missing value; a value omniORB refuses */
  char c1[] = "-ORBtraceLevel";
  char *v3[] = { p, c1, NULL };
  argc = 2;
  ck_assert_ptr_null(init_args(&argc, v3, &ev, why, sizeof why));
  expect_refused(&ev, why, "-ORBtraceLevel: no value");
  char d1[] = "-ORBgiopMaxMsgSize", d2[] = "1";
  char *v4[] = { p, d1, d2, NULL };
  argc = 3;
  ck_assert_ptr_null(init_args(&argc, v4, &ev, why, sizeof why));
  expect_refused(&ev, why, "-ORBgiopMaxMsgSize \"1\": not a number n >= 8192");
  /* omniORB reads "abc" as 0: a trace level; twice: both taken, each checked */
  char e1[] = "-ORBtraceLevel", e2[] = "abc", e3[] = "x", e4[] = "-ORBtraceLevel", e5[] = "2",
       e6[] = "-ORB", e7[] = "-ORBhelp", e8[] = "y";
  char *v5[] = { p, e1, e2, e3, e4, e5, e6, e7, e8, NULL };
  argc = 9;
  CORBA_ORB orb = init_args(&argc, v5, &ev, why, sizeof why);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  /* "-ORB" alone is left, as omniORB leaves it; -ORBhelp takes no value */
  ck_assert_int_eq(argc, 4);
  ck_assert_str_eq(v5[1], "x");
  ck_assert_str_eq(v5[2], "-ORB");
  ck_assert_str_eq(v5[3], "y");
  ck_assert_ptr_null(v5[4]);
  CORBA_ORB_destroy(orb, &ev);
  char f1[] = "-ORBgiopMaxMsgSize", f2[] = "9000", f3[] = "-ORBgiopMaxMsgSize", f4[] = "1";
  char *v6[] = { p, f1, f2, f3, f4, NULL };
  argc = 5;
  ck_assert_ptr_null(init_args(&argc, v6, &ev, why, sizeof why));
  expect_refused(&ev, why, "-ORBgiopMaxMsgSize \"1\": not a number n >= 8192");

  /* every other option omniORB's -ORBhelp lists (its SSL transport's
   * included): a value it takes is taken; one it refuses, refused */
  static const struct {
    const char *name, *good, *bad;
  } opts[] = {
    { "abortOnInternalError", "1", "2" },
    { "abortOnNativeException", "1", "2" },
    { "acceptMisalignedTcIndirections", "1", "2" },
    { "bootstrapAgentHostname", "1", NULL },
    { "bootstrapAgentPort", "1", "0" },
    { "clientConnectTimeOutPeriod", "1", NULL },
    { "configFile", "1", NULL },
    { "connectionWatchImmediate", "1", "2" },
    { "connectionWatchPeriod", "1", NULL },
    { "copyValuesInLocalCalls", "1", "2" },
    { "defaultCharCodeSet", "UTF-8", "0" },
    { "defaultWCharCodeSet", "UTF-16", "0" },
    { "diiThrowsSysExceptions", "1", "2" },
    { "dumpConfiguration", "1", "2" },
    { "endPointNoListen", "1", NULL },
    { "endPointNoPublish", "1", NULL },
    { "endPointPublish", "1", NULL },
    { "endPointPublishAllIFs", "1", "2" },
    { "giopMaxMsgSize", "-2", "0" },
    { "giopTargetAddressMode", "1", "-2" },
    { "id", "omniORB4", "0" },
    { "idleThreadTimeout", "1", "0" },
    { "immediateAddressSwitch", "1", "2" },
    { "inConScanPeriod", "1", NULL },
    { "lcdMode", "1", "2" },
    { "listenBacklog", "1", "0" },
    { "maxClientThreadPoolSize", "1", "0" },
    { "maxGIOPVersion", "1.2", "0" },
    { "maxInterleavedCallsPerConnection", "1", "0" },
    { "maxServerThreadPerConnection", "1", "0" },
    { "maxServerThreadPoolSize", "1", "0" },
    { "maxSocketRecv", "-2", "0" },
    { "maxSocketSend", "-2", "0" },
    { "nativeCharCodeSet", "UTF-8", "0" },
    { "nativeWCharCodeSet", "UTF-16", "0" },
    { "objectTableSize", "1", NULL }, /* (omniORB: "-2" is INITIALIZE_FailedORBInit, later) */
    { "oneCallPerConnection", "1", "2" },
    { "outConScanPeriod", "1", NULL },
    { "poaHoldRequestTimeout", "1", NULL },
    { "poaUniquePersistentSystemIds", "1", "2" },
    { "principal", "1", NULL },
    { "resetTimeOutOnRetries", "1", "2" },
    { "resolveNamesForTransportRules", "1", "2" },
    { "retainAddressOrder", "1", "2" },
    { "scanGranularity", "1", NULL },
    { "serverCallTimeOutPeriod", "1", NULL },
    { "socketSendBuffer", "1", "-2" },
    { "sslAcceptTimeOut", "1", NULL },
    { "sslCAPath", "1", "" },
    { "strictIIOP", "1", "2" },
    { "supportBootstrapAgent", "1", "2" },
    { "supportCurrent", "1", "2" },
    { "supportPerThreadTimeOut", "1", "2" },
    { "tcAliasExpand", "1", "2" },
    { "threadPerConnectionLowerLimit", "1", "0" },
    { "threadPerConnectionPolicy", "1", "2" },
    { "threadPerConnectionUpperLimit", "1", "0" },
    { "threadPoolWatchConnection", "1", NULL },
    { "traceExceptions", "1", "2" },
    { "traceFile", "1", "" },
    { "traceInvocationReturns", "1", "2" },
    { "traceInvocations", "1", "2" },
    { "traceLevel", "1", NULL },
    { "traceLocking", "1", "2" },
    { "traceThreadId", "1", "2" },
    { "traceTime", "1", "2" },
    { "unixTransportDirectory", "1", NULL },
    { "unixTransportPermission", "1", "abc" },
    { "useTypeCodeIndirections", "1", "2" },
    { "validateUTF8", "1", "2" },
    { "verifyObjectExistsAndType", "1", "2" },
    /* the forms beyond the first good and bad value above */
    { "traceLevel", "99", "99999999999999999999" },
    { "giopMaxMsgSize", "8192", "8191" },
    { "maxSocketSend", "-2", "1023" }, /* (strtoul: "-2" is a large number) */
    { "bootstrapAgentPort", "65535", "65536" },
    { "socketSendBuffer", "-1", "-2" },
    { "giopTargetAddressMode", "2", "3" },
    { "maxGIOPVersion", "1.0", "1.256" },
    { "unixTransportPermission", "0755", "9" },
    { "nativeCharCodeSet", "ISO-8859-1", "ISO-8859-2" },
    { "nativeWCharCodeSet", "UTF-16", "UCS-4" },
    { "strictIIOP", "0", "-1" },
    { "id", "omniORB4", "omniORB" },
  };
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
    char name[64], val[32], keep[] = "keep";
    snprintf(name, sizeof name, "-ORB%s", opts[i].name);
    snprintf(val, sizeof val, "%s", opts[i].good);
    char *v[] = { p, name, val, keep, NULL };
    argc = 4;
    orb = init_args(&argc, v, &ev, why, sizeof why);
    ck_assert_msg(orb != NULL, "%s %s: %s", name, val, why);
    ck_assert_int_eq(argc, 2);
    ck_assert_str_eq(v[1], "keep");
    CORBA_ORB_destroy(orb, &ev);
    if (!opts[i].bad)
      continue;
    snprintf(val, sizeof val, "%s", opts[i].bad);
    char *w[] = { p, name, val, NULL };
    argc = 3;
    ck_assert_msg(!init_args(&argc, w, &ev, why, sizeof why), "%s \"%s\" taken", name, val);
    char want[128];
    snprintf(want, sizeof want, "%s \"%s\": ", name, val);
    ck_assert_msg(!strncmp(why, want, strlen(want)), "%s", why);
    expect_refused(&ev, why, NULL);
  }
}
END_TEST

/* corbaloc:rir:[/KEY]: the reference resolve_initial_references(KEY)
 * gives (KEY "NameService" when absent), through -ORBInitRef values that
 * are themselves rir URLs; a loop of them, an unknown key or another
 * address beside rir: BAD_PARAM minor 10 (omniORB's BadURIOther). */
static void check_rir_target(CORBA_ORB orb, const char *url, const char *host, unsigned port,
                             const char *key)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object o = CORBA_ORB_string_to_object(orb, url, &ev);
  ck_assert_msg(ev._major == CORBA_NO_EXCEPTION, "%s: %s", url,
                ev._major ? CORBA_exception_id(&ev) : "");
  ck_assert_ptr_nonnull(o);
  CORBA_char *s = CORBA_ORB_object_to_string(orb, o, &ev);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, &a, &ior), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_str_eq(p->host, host);
  ck_assert_uint_eq(p->port, port);
  ck_assert_uint_eq(p->key_len, strlen(key));
  ck_assert(!memcmp(p->key, key, strlen(key)));
  cdr_arena_free(&a);
  CORBA_free(s);
  CORBA_Object_release(o, &ev);
}

START_TEST(test_corbaloc_rir)
{
  char a0[] = "prog", a1[] = "-ORBInitRef", a2[] = "NameService=corbaloc::127.0.0.1:2809/NameService",
       a3[] = "-ORBInitRef", a4[] = "Echo=corbaloc::10.0.0.2:4000/Echo%20Key",
       a5[] = "-ORBInitRef", a6[] = "Alias=corbaloc:rir:/Echo", a7[] = "-ORBInitRef",
       a8[] = "Loop=corbaloc:rir:/Loop", a9[] = "-ORBInitRef", a10[] = "Odd Name=corbaloc::10.0.0.3:5/K";
  char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, NULL };
  int argc = 11;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 1);

  check_rir_target(orb, "corbaloc:rir:", "127.0.0.1", 2809, "NameService");
  check_rir_target(orb, "corbaloc:rir:/", "127.0.0.1", 2809, "NameService");
  check_rir_target(orb, "corbaloc:rir:/NameService", "127.0.0.1", 2809, "NameService");
  check_rir_target(orb, "CORBALOC:rir:/Echo", "10.0.0.2", 4000, "Echo Key");
  check_rir_target(orb, "corbaloc:rir:/Alias", "10.0.0.2", 4000, "Echo Key");
  check_rir_target(orb, "corbaloc:rir:/Odd%20Name", "10.0.0.3", 5, "K");
  /* resolve_initial_references follows an InitRef that is a rir URL too */
  CORBA_Object o = CORBA_ORB_resolve_initial_references(orb, "Alias", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object o2 = CORBA_ORB_string_to_object(orb, "corbaloc::10.0.0.2:4000/Echo%20Key", &ev);
  ck_assert(CORBA_Object_is_equivalent(o, o2, &ev));
  CORBA_Object_release(o, &ev);
  CORBA_Object_release(o2, &ev);

  /* the built-in POAs through rir */
  o = CORBA_ORB_string_to_object(orb, "corbaloc:rir:/RootPOA", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  o2 = CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  ck_assert_ptr_eq(o, o2);

  /* a key no initial reference has: minor 10 (omniORB's BAD_PARAM_BadURIOther) */
  o = CORBA_ORB_string_to_object(orb, "corbaloc:rir:/Unknown", &ev);
  ck_assert_ptr_null(o);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  ck_assert_uint_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->minor,
                    0x4f4d0000u | 10);
  CORBA_exception_free(&ev);
  char said[CORBAORB_ERROR_MAX];
  corbaorb_ORB_last_error(orb, said, sizeof said);
  ck_assert_str_eq(said, "string_to_object: \"corbaloc:rir:/Unknown\": no initial reference "
                         "Unknown");
  /* malformed, or rir URLs more than 8 deep: minor 10 (BadURIOther, as
   * omniORB's recursion limit and its rir: key parsing) */
  const char *bad[] = { "corbaloc:rir:/Loop", "corbaloc:rir:,:h:1/k",
                        "corbaloc:rir:x", "corbaloc:rir:/a%2", "corbaloc:rir:/a%00b",
                        "corbaloc:rir:/a%zzb" };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    o = CORBA_ORB_string_to_object(orb, bad[i], &ev);
    ck_assert_ptr_null(o);
    ck_assert_msg(ev._major == CORBA_SYSTEM_EXCEPTION, "%s", bad[i]);
    ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
    CORBA_SystemException *se = CORBA_exception_value(&ev);
    ck_assert_uint_eq(se->minor, 0x4f4d0000u | 10);
    ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
    CORBA_exception_free(&ev);
    /* and why: the loop at its ninth level, the others' keys */
    char want[CORBAORB_ERROR_MAX];
    snprintf(want, sizeof want, "string_to_object: \"%s\": %s", bad[i],
             i == 0 ? "more than 8 rir: and corbaname: indirections"
                    : "a malformed rir: key (or another address beside rir:)");
    corbaorb_ORB_last_error(orb, said, sizeof said);
    ck_assert_str_eq(said, want);
  }

#ifdef CORBAORB_TEST_COSNAMING
  /* corbaname: a malformed URL or string name is refused before anything
   * is sent (port 1: nothing listens there), with omniORB's minor: the
   * addresses first (no address: 7, a port past 65535: 8), a bad %-escape
   * 10, a name that is not a string name 9 */
  static const struct {
    const char *s;
    unsigned minor;
  } badname[] = { { "corbaname:#x", 7 }, { "corbaname:", 7 }, { "corbaname:/x", 7 },
                  { "corbaname:foo:h#a", 7 }, { "corbaname::h:99999#a", 8 },
                  { "corbaname::h:99999#", 8 }, { "corbaname::h/%zz#a", 10 },
                  { "corbaname::1.2@:/x", 9 }, { "corbaname::127.0.0.1:1#", 9 },
                  { "corbaname::127.0.0.1:1#a//b", 9 }, { "corbaname::127.0.0.1:1#a/", 9 },
                  { "corbaname::127.0.0.1:1#/a", 9 }, { "corbaname::127.0.0.1:1#a.b.c", 9 },
                  { "corbaname::127.0.0.1:1#a.", 9 }, { "corbaname::127.0.0.1:1#a%5C", 9 },
                  { "corbaname::127.0.0.1:1#a%zz", 10 },
                  /* (omniORB sends "a\0"; a NUL is no part of a name here) */
                  { "corbaname::127.0.0.1:1#a%00", 10 } };
  for (size_t i = 0; i < sizeof badname / sizeof *badname; i++) {
    o = CORBA_ORB_string_to_object(orb, badname[i].s, &ev);
    ck_assert_ptr_null(o);
    ck_assert_msg(ev._major == CORBA_SYSTEM_EXCEPTION, "%s", badname[i].s);
    ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
    ck_assert_msg(((CORBA_SystemException *)CORBA_exception_value(&ev))->minor ==
                    (0x4f4d0000u | badname[i].minor), "%s", badname[i].s);
    CORBA_exception_free(&ev);
  }
  /* well-formed names reach the naming service: none listens, TRANSIENT */
  const char *good[] = { "corbaname::127.0.0.1:1#a.b/c", "corbaname::127.0.0.1:1/NameService#.",
                         "corbaname::127.0.0.1:1#.kind", "corbaname::127.0.0.1:1#a%5C.b%5C%2Fc" };
  for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
    o = CORBA_ORB_string_to_object(orb, good[i], &ev);
    ck_assert_ptr_null(o);
    ck_assert_msg(ev._major == CORBA_SYSTEM_EXCEPTION, "%s", good[i]);
    ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TRANSIENT);
    CORBA_exception_free(&ev);
  }
#endif
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

START_TEST(test_object_strings)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  int argc = 0;
  CORBA_ORB orb = CORBA_ORB_init(&argc, NULL, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  /* nil both ways */
  CORBA_char *s = CORBA_ORB_object_to_string(orb, CORBA_OBJECT_NIL, &ev);
  ck_assert_str_eq(s, "IOR:00000000000000010000000000000000");
  CORBA_Object o = CORBA_ORB_string_to_object(orb, s, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_nil(o, &ev));
  CORBA_free(s);

  /* malformed: the exception and minor omniORB 4.2's string_to_object
   * raises for each (measured), from the first step of reading the string
   * that refuses it; completion NO */
  static const struct {
    const char *s, *id;
    CORBA_unsigned_long minor;
  } bad[] = {
    /* no known scheme, an unknown or missing address protocol: BadSchemeName */
    { "bogus", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "IOR", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:rubbish", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:/k", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:foo:x/y", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:foo:x", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:h/k", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc::h,/k", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc::h,foo:h/k", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:http:h/k", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    /* a port past 65535, an IPv6 literal without its ']': BadAddress */
    { "corbaloc::127.0.0.1:99999/x", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::h:65536/k", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::h:99999999999999999999/k", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::1.2@h:99999/k", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::[::1/x", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::[::1]:99999/k", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc::h,:h:99999/k", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    /* a malformed version, no host, text after the key: BadSchemeSpecificPart */
    { "corbaloc::1.2@:/x", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::1.2@/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::1.x@h/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::x@h/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::1@h/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::1.256@h/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::.2@h/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::[]/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc:iiop::2809/k", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    { "corbaloc::h/a#b", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    /* no key where it should start, a key character to escape, a bad
     * %-escape, rir: beside another address or malformed: BadURIOther */
    { "corbaloc::host", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h:abc/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h:-1/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h:12a/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h:2809:1/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::[::1]x/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h#x/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/%zz", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/%", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/%4", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/a b", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/a\"b", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/a{b", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/a\\b", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h/a^b", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc::h,rir:/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc:rir:,:h:1/k", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc:rir:x", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc:rir:/a%2", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc:rir:/a%zzb", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    { "corbaloc:rir:/NoSuch", ex_CORBA_BAD_PARAM, 0x4f4d000au },
    /* the protocol tokens in lower case only (the scheme in any case) */
    { "corbaloc:IIOP:h/x", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:SSLIOP:h/x", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "CORBALOC:RIR:/NameService", ex_CORBA_BAD_PARAM, 0x4f4d0007u },
    { "corbaloc:ssliop:h:99999/x", ex_CORBA_BAD_PARAM, 0x4f4d0008u },
    { "corbaloc:ssliop:x@h/x", ex_CORBA_BAD_PARAM, 0x4f4d0009u },
    /* a version whose major is not 1: no IOR can carry it */
    { "corbaloc::2.0@h/k", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    { "corbaloc::0.9@h/k", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    { "corbaloc::1.2@h,:2.0@h/k", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    /* "IOR:" with a non-hex character in a pair of digits */
    { "IOR:zz", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    { "IOR:0z", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    { "IOR:0zz", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    { "IOR:00zz", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    /* the octets (the whole pairs of digits) end too soon */
    { "IOR:0", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:z", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:00", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:000", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:0000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:01000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:010000000100000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:ffffffff", ex_CORBA_MARSHAL, CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    /* a profile count the octets left hold, but not at 8 octets a profile:
     * read on, as omniORB reads, until they run out */
    { "IOR:0000000000000001000000000000000100000000", ex_CORBA_MARSHAL,
      CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    { "IOR:0100000001000000000000000100000000000000", ex_CORBA_MARSHAL,
      CORBAORB_MINOR_PASS_END_OF_MESSAGE },
    /* a length or count past the octets left (a byte-order octet 2 read
     * as little-endian, as omniORB reads it) */
    { "IOR:0100000001000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_SEQUENCE_TOO_LONG },
    { "IOR:00000000000000010000000000000001", ex_CORBA_MARSHAL, CORBAORB_MINOR_SEQUENCE_TOO_LONG },
    { "IOR:000000000000000100000000ffffffff", ex_CORBA_MARSHAL, CORBAORB_MINOR_SEQUENCE_TOO_LONG },
    { "IOR:000000000000000100000000000000010000000000000004", ex_CORBA_MARSHAL, CORBAORB_MINOR_SEQUENCE_TOO_LONG },
    { "IOR:020000000000000100000000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_SEQUENCE_TOO_LONG },
    /* a string without its NUL (the type ID, an IIOP profile's host) */
    { "IOR:0100000001000000410000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_STRING_NOT_END_WITH_NULL },
    { "IOR:000000000000000141000000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_STRING_NOT_END_WITH_NULL },
    { "IOR:000000000000000100000000000000010000000000000008000100000000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_STRING_NOT_END_WITH_NULL },
    { "IOR:00000000000000010000000000000001000000000000001000000000000000000000000000000000", ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
    /* an IIOP profile of version 0.0: unreadable */
    { "IOR:00000000000000010000000000000001000000000000001000000000000000000000000000000000",
      ex_CORBA_MARSHAL, CORBAORB_MINOR_INVALID_IOR },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o = CORBA_ORB_string_to_object(orb, bad[i].s, &ev);
    ck_assert_msg(!o, "%s", bad[i].s);
    ck_assert_msg(ev._major == CORBA_SYSTEM_EXCEPTION, "%s", bad[i].s);
    CORBA_SystemException *se = CORBA_exception_value(&ev);
    ck_assert_msg(!strcmp(CORBA_exception_id(&ev), bad[i].id) && se->minor == bad[i].minor,
                  "\"%s\": %s 0x%x, want %s 0x%x", bad[i].s, CORBA_exception_id(&ev),
                  (unsigned)se->minor, bad[i].id, (unsigned)bad[i].minor);
    ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
    CORBA_exception_free(&ev);
  }
  /* the ORB's last error says which step refused the string */
  static const struct {
    const char *s, *why;
  } said[] = {
    { "bogus", "string_to_object: \"bogus\": no scheme known (IOR:, corbaloc:, corbaname:) or "
               "no address protocol known (iiop:, ssliop:, rir:, or empty)" },
    { "corbaloc::h:65536/k", "string_to_object: \"corbaloc::h:65536/k\": a bad address (a port "
                             "past 65535, a malformed IPv6 literal or a character no host name "
                             "has)" },
    { "corbaloc::h", "string_to_object: \"corbaloc::h\": a bad object key (no '/' after the "
                     "addresses, a character that must be %-escaped, a bad %-escape, or rir: "
                     "beside another address)" },
    { "corbaloc::2.0@h/k", "string_to_object: \"corbaloc::2.0@h/k\": an IIOP version whose "
                           "major is not 1" },
    { "IOR:0g", "string_to_object: \"IOR:0g\": a character that is not a hex digit, or an odd "
                "digit, after IOR:" },
    { "IOR:nonsense", "string_to_object: \"IOR:nonsense\": a character that is not a hex digit, "
                      "or an odd digit, after IOR:" },
    { "IOR:01000000", "string_to_object: \"IOR:01000000\": its octets are no encapsulated IOR: "
                      "input ends before the item is complete" },
    { "IOR:0000000000000001000000000000000100000000000000000000000000000000000000000000000000000000",
      "string_to_object: \"IOR:000000000000000100000000000000010000000000000000000000000000...\""
      ": its octets are no encapsulated IOR: length or count exceeds the bytes that remain" },
  };
  for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
    o = CORBA_ORB_string_to_object(orb, said[i].s, &ev);
    ck_assert_msg(!o && ev._major == CORBA_SYSTEM_EXCEPTION, "%s", said[i].s);
    CORBA_exception_free(&ev);
    char why[CORBAORB_ERROR_MAX];
    corbaorb_ORB_last_error(orb, why, sizeof why);
    ck_assert_str_eq(why, said[i].why);
  }

  /* accepted, and the IOR made of it, byte for byte omniORB 4.2.5's
   * (measured): an empty address is localhost, an empty port 2809, ssliop an
   * IIOP 1.2 profile of port 0 with TAG_SSL_SEC_TRANS {0, 0, port}; a
   * version 1.3 or later gives a 1.2 profile here (omniORB: 1.x as written) */
  static const struct {
    const char *s, *ior;
  } good[] = {
    { "corbaloc:iiop:/x", "IOR:010000000100000000000000010000000000000019000000010100000a0000006c6f63616c686f737400f90a0100000078" },
    { "corbaloc::/x", "IOR:010000000100000000000000010000000000000019000000010100000a0000006c6f63616c686f737400f90a0100000078" },
    { "corbaloc:iiop:,:h/x", "IOR:010000000100000000000000010000000000000019000000010100000a0000006c6f63616c686f737400f90a0100000078" },
    { "corbaloc:iiop:host:/x", "IOR:0100000001000000000000000100000000000000150000000101000005000000686f73740000f90a0100000078" },
    { "corbaloc:iiop:1.2@h:/x", "IOR:01000000010000000000000001000000000000001800000001010200020000006800f90a010000007800000000000000" },
    { "corbaloc:iiop:[::1]:/x", "IOR:01000000010000000000000001000000000000001500000001010000040000003a3a3100f90a00000100000078" },
    { "CORBALOC::h/x", "IOR:01000000010000000000000001000000000000001100000001010000020000006800f90a0100000078" },
    { "corbaloc:iiop:1.3@host/x", "IOR:01000000010000000000000001000000000000001c0000000101020005000000686f73740000f90a010000007800000000000000" },
    { "corbaloc:iiop:1.255@host/x", "IOR:01000000010000000000000001000000000000001c0000000101020005000000686f73740000f90a010000007800000000000000" },
    { "corbaloc:ssliop:h:1234/x", "IOR:0100000001000000000000000100000000000000280000000101020002000000680000000100000078000000010000001400000008000000010000000000d204" },
    { "corbaloc:ssliop:1.2@h:1234/x", "IOR:0100000001000000000000000100000000000000280000000101020002000000680000000100000078000000010000001400000008000000010000000000d204" },
    { "corbaloc:ssliop:2.0@h/x", "IOR:0100000001000000000000000100000000000000280000000101020002000000680000000100000078000000010000001400000008000000010000000000f90a" },
    { "corbaloc:ssliop:/x", "IOR:010000000100000000000000010000000000000030000000010102000a0000006c6f63616c686f73740000000100000078000000010000001400000008000000010000000000f90a" },
    { "corbaloc:ssliop:[::1]/x", "IOR:01000000010000000000000001000000000000002c00000001010200040000003a3a3100000000000100000078000000010000001400000008000000010000000000f90a" },
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    o = CORBA_ORB_string_to_object(orb, good[i].s, &ev);
    ck_assert_msg(ev._major == CORBA_NO_EXCEPTION && o, "%s: %s", good[i].s,
                  ev._major ? CORBA_exception_id(&ev) : "nil");
    s = CORBA_ORB_object_to_string(orb, o, &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    ck_assert_msg(!strcmp(s, good[i].ior), "%s: %s", good[i].s, s);
    CORBA_free(s);
    CORBA_Object_release(o, &ev);
  }

  /* duplicate/release, equivalence, hash */
  o = CORBA_ORB_string_to_object(orb, "corbaloc::127.0.0.1:1/K", &ev);
  CORBA_Object o2 = CORBA_ORB_string_to_object(orb, "corbaloc:iiop:1.2@127.0.0.1:1/K", &ev);
  CORBA_Object o3 = CORBA_ORB_string_to_object(orb, "corbaloc::127.0.0.1:1/L", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_equivalent(o, o2, &ev));
  ck_assert(!CORBA_Object_is_equivalent(o, o3, &ev));
  ck_assert_uint_eq(CORBA_Object_hash(o, 1000, &ev), CORBA_Object_hash(o2, 1000, &ev));
  ck_assert_uint_le(CORBA_Object_hash(o3, 1000, &ev), 1000);
  CORBA_Object d = CORBA_Object_duplicate(o, &ev);
  ck_assert_ptr_eq(d, o);
  CORBA_Object_release(d, &ev);
  CORBA_Object_release(o, &ev);
  CORBA_Object_release(o2, &ev);

  /* a NULL for a parameter passed by pointer (an in struct, an out):
   * BAD_PARAM, COMPLETED_NO, before any connection is tried */
  CORBA_long total = 7;
  Shop_Store_add(o3, NULL, &total, &ev);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  ck_assert_int_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->completed,
                   CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  Shop_Item item = { .name = "x" };
  Shop_Store_add(o3, &item, NULL, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(total, 7);

  /* a call to a port nobody listens on: TRANSIENT, COMPLETED_NO */
  CORBA_long r = Shop_Store_ping(o3, 1, &ev);
  ck_assert_int_eq(r, 0);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TRANSIENT);
  ck_assert_int_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->completed,
                   CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  CORBA_Object_release(o3, &ev);

  /* a nil reference: INV_OBJREF */
  Shop_Store_ping(CORBA_OBJECT_NIL, 1, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INV_OBJREF);
  CORBA_exception_free(&ev);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* ---------------------------------------------------------------- a servant */

typedef struct Impl {
  POA_Shop_Store servant;
  int finalized;
  int finalized_in_op;       /* finalize ran while bump() was still running */
  int in_op;
  CORBA_long count;
  PortableServer_POA poa;    /* for bump(-1): deactivate itself */
  PortableServer_ObjectId *oid;
  int pings;                 /* ping() calls this servant ran */
  int forward;               /* ping(): 1 raise ForwardRequest to fwd, 2 with a nil reference,
                                3 raise corbaorb_LocationForwardPerm to fwd */
  Shop_Store fwd;
} Impl;

/* ping(-99) raises a user exception ping's raises clause does not list;
 * ping(-98) a system exception of the servant's choosing; ping(PING_SLEEP
 * + MS) answers after MS milliseconds */
#define PING_SLEEP 1000000
/* What ping saw of its request through corbaorb_current_request() while
 * sc_probe is set (test_service_contexts). */
static int sc_probe;
static struct {
  uint8_t ctx[16];
  uint32_t ctx_len, nctx, key_len;
  uint8_t key[64];
  uint8_t major, minor;
  char peer[IIOP_PEER_HOST_MAX];
  int peer_rc;
} sc_seen;

static void probe_request(void)
{
  iiop_request *r = corbaorb_current_request();
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(iiop_request_operation(r), "ping");
  const uint8_t *d;
  uint32_t l;
  sc_seen.ctx_len = 0;
  if (iiop_request_service_context(r, 0x100, &d, &l) == CDR_OK && l <= sizeof sc_seen.ctx) {
    memcpy(sc_seen.ctx, d, l);
    sc_seen.ctx_len = l;
  }
  sc_seen.nctx = iiop_request_service_contexts(r, NULL);
  const uint8_t *k = iiop_request_object_key(r, &sc_seen.key_len);
  ck_assert_uint_le(sc_seen.key_len, sizeof sc_seen.key);
  memcpy(sc_seen.key, k, sc_seen.key_len);
  ck_assert_int_eq(iiop_request_giop_version(r, &sc_seen.major, &sc_seen.minor), CDR_OK);
  sc_seen.peer_rc = iiop_request_peer(r, sc_seen.peer, sizeof sc_seen.peer, NULL);
  ck_assert_int_eq(iiop_request_add_reply_service_context(r, 0x300, "back", 4), CDR_OK);
}

static CORBA_long i_ping(PortableServer_Servant s, CORBA_long x, CORBA_Environment *ev)
{
  Impl *im = (Impl *)s;
  im->pings++;
  if (im->forward == 3) {
    corbaorb_LocationForwardPerm *fp = corbaorb_LocationForwardPerm__alloc();
    ck_assert_ptr_nonnull(fp);
    fp->forward_reference = CORBA_Object_duplicate(im->fwd, ev);
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_corbaorb_LocationForwardPerm, fp);
    return 0;
  }
  if (sc_probe)
    probe_request();
  if (im->forward) {
    PortableServer_ForwardRequest *fr = PortableServer_ForwardRequest__alloc();
    ck_assert_ptr_nonnull(fr);
    fr->forward_reference =
      im->forward == 1 ? CORBA_Object_duplicate(im->fwd, ev) : CORBA_OBJECT_NIL;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_PortableServer_ForwardRequest, fr);
    return 0;
  }
  if (x == -99) {
    Shop_NotFound *nf = Shop_NotFound__alloc();
    nf->what = CORBA_string_dup("unlisted");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Shop_NotFound, nf);
    return 0;
  }
  if (x == -98) {
    corbaorb_exception_set_system_minor(ev, ex_CORBA_TRANSIENT, 0x4f4d0003u, CORBA_COMPLETED_MAYBE);
    return 0;
  }
  if (x >= PING_SLEEP && x < PING_SLEEP + 100000) { /* sleeps x - PING_SLEEP ms first */
    struct timespec ts = { (x - PING_SLEEP) / 1000, (long)((x - PING_SLEEP) % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
      ;
  }
  return x + 1;
}
/* label: NULL (a servant's mistake) while count is -1 */
static CORBA_string i_label(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return ((struct Impl *)s)->count == -1 ? NULL : CORBA_string_dup("label");
}
static CORBA_long i_get_count(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return ((Impl *)s)->count;
}
static void i_set_count(PortableServer_Servant s, CORBA_long v, CORBA_Environment *ev)
{
  (void)ev;
  ((Impl *)s)->count = v;
}
static Shop_Pt i_move(PortableServer_Servant s, const Shop_Pt *p, Shop_Pt *q, Shop_Pt *r,
                      CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *r = *q;
  q->x = p->x;
  Shop_Pt ret = { p->y, p->x };
  return ret;
}
/* bump(-1): the servant deactivates itself from inside the operation; its
 * finalize must wait until the operation has returned */
static void i_bump(PortableServer_Servant s, CORBA_long *by, CORBA_Environment *ev)
{
  Impl *im = (Impl *)s;
  im->in_op = 1;
  if (*by == -1)
    PortableServer_POA_deactivate_object(im->poa, im->oid, ev);
  *by = im->finalized;
  im->in_op = 0;
}
static Shop_Tagged *i_wrap(PortableServer_Servant s, const Shop_Tagged *t, CORBA_Environment *ev)
{
  (void)s;
  Shop_Tagged *r = Shop_Tagged__alloc();
  r->tag = CORBA_string_dup(t->tag);
  r->ref = CORBA_Object_duplicate(t->ref, ev);
  return r;
}
static void i_finalize(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  ((Impl *)s)->finalized++;
  if (((Impl *)s)->in_op)
    ((Impl *)s)->finalized_in_op++;
}

static PortableServer_ServantBase__epv i_base = { NULL, i_finalize, NULL };
static POA_Shop_Base__epv i_base_epv = { NULL, i_ping, i_label };
static POA_Shop_Counter__epv i_counter_epv = { NULL, i_get_count, i_set_count, i_bump };
static POA_Shop_Store__epv i_store_epv = { .move = i_move, .wrap = i_wrap };
static POA_Shop_Store__vepv i_vepv = { &i_base, &i_base_epv, &i_counter_epv, &i_store_epv };

static void impl_init(Impl *im, CORBA_Environment *ev)
{
  memset(im, 0, sizeof *im);
  im->servant.vepv = &i_vepv;
  POA_Shop_Store__init(im, ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
}

START_TEST(test_poa)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);

  Impl a;
  impl_init(&a, &ev);
  PortableServer_ObjectId *id = PortableServer_POA_activate_object(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_uint_eq(id->_length, IIOP_GENERATED_KEY_LEN);
  /* twice: ServantAlreadyActive */
  PortableServer_ObjectId *id2 = PortableServer_POA_activate_object(root, &a, &ev);
  ck_assert_ptr_null(id2);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_PortableServer_POA_ServantAlreadyActive);
  CORBA_exception_free(&ev);

  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_ObjectId *back = PortableServer_POA_reference_to_id(root, ref, &ev);
  ck_assert_uint_eq(back->_length, id->_length);
  ck_assert(!memcmp(back->_buffer, id->_buffer, id->_length));
  CORBA_free(back);
  ck_assert_int_eq(Shop_Store_ping(ref, 5, &ev), 6);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_a(ref, "IDL:Shop/Counter:1.0", &ev));

  /* deactivation: finalize runs once; the reference then gets
   * OBJECT_NOT_EXIST; a second deactivation ObjectNotActive */
  PortableServer_POA_deactivate_object(root, id, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(a.finalized, 1);
  Shop_Store_ping(ref, 5, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_OBJECT_NOT_EXIST);
  CORBA_exception_free(&ev);
  ck_assert(CORBA_Object_non_existent(ref, &ev));
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_POA_deactivate_object(root, id, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_PortableServer_POA_ObjectNotActive);
  CORBA_exception_free(&ev);
  CORBA_Object_release(ref, &ev);
  CORBA_free(id);

  /* a child POA with PERSISTENT and USER_ID */
  CORBA_Policy pol[2] = {
    PortableServer_POA_create_lifespan_policy(root, PortableServer_PERSISTENT, &ev),
    PortableServer_POA_create_id_assignment_policy(root, PortableServer_USER_ID, &ev)
  };
  CORBA_PolicyList pl = { 2, 2, pol, CORBA_FALSE };
  PortableServer_POA child = PortableServer_POA_create_POA(
    root, "Kids", PortableServer_POA__get_the_POAManager(root, &ev), &pl, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_POA_create_POA(root, "Kids", NULL, &pl, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_PortableServer_POA_AdapterAlreadyExists);
  CORBA_exception_free(&ev);
  CORBA_Policy_destroy(pol[0], &ev);
  CORBA_Policy_destroy(pol[1], &ev);
  Impl b;
  impl_init(&b, &ev);
  ck_assert_ptr_null(PortableServer_POA_activate_object(child, &b, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_PortableServer_POA_WrongPolicy);
  CORBA_exception_free(&ev);
  id = PortableServer_string_to_ObjectId("bob", &ev);
  PortableServer_POA_activate_object_with_id(child, id, &b, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ref = PortableServer_POA_id_to_reference(child, id, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  back = PortableServer_POA_reference_to_id(child, ref, &ev);
  CORBA_char *bs = PortableServer_ObjectId_to_string(back, &ev);
  ck_assert_str_eq(bs, "bob");
  CORBA_free(bs);
  CORBA_free(back);
  Shop_Counter__set_count(ref, 77, &ev);
  ck_assert_int_eq(Shop_Counter__get_count(ref, &ev), 77);
  ck_assert_int_eq(b.count, 77);
  /* the root POA does not know the child's ids */
  ck_assert_ptr_null(PortableServer_POA_reference_to_id(root, ref, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_PortableServer_POA_WrongAdapter);
  CORBA_exception_free(&ev);
  CORBA_Object_release(ref, &ev);
  CORBA_free(id);

  /* omniINSPOA: the object key is the bare ObjectId, corbaloc reaches it */
  PortableServer_POA ins =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  Impl c;
  impl_init(&c, &ev);
  id = PortableServer_string_to_ObjectId("Plain", &ev);
  PortableServer_POA_activate_object_with_id(ins, id, &c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ref = PortableServer_POA_id_to_reference(ins, id, &ev);
  CORBA_char *is = CORBA_ORB_object_to_string(orb, ref, &ev);
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(is, &ar, &ior), CDR_OK);
  const iiop_profile *p = iiop_ior_iiop_profile(&ior);
  ck_assert_uint_eq(p->key_len, 5);
  ck_assert(!memcmp(p->key, "Plain", 5));
  ck_assert_str_eq(ior.type_id, "IDL:Shop/Store:1.0");
  char url[128];
  snprintf(url, sizeof url, "corbaloc::127.0.0.1:%u/Plain", p->port);
  cdr_arena_free(&ar);
  CORBA_free(is);
  CORBA_Object lo = CORBA_ORB_string_to_object(orb, url, &ev);
  ck_assert_int_eq(Shop_Base_ping(lo, 1, &ev), 2);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(lo, &ev);
  CORBA_Object_release(ref, &ev);
  CORBA_free(id);

  /* destroy lets the servants still active go: finalize runs */
  CORBA_ORB_destroy(orb, &ev);
  ck_assert_int_eq(b.finalized, 1);
  ck_assert_int_eq(c.finalized, 1);
  ck_assert_int_eq(a.finalized, 1);
  POA_Shop_Store__fini(&a, &ev);
  POA_Shop_Store__fini(&b, &ev);
  POA_Shop_Store__fini(&c, &ev);
}
END_TEST

/* The steady state through the generated stubs and skeletons: a call with
 * fixed-length parameters and result allocates nothing on either side; a
 * string result exactly the mapping's two strings (the servant's result,
 * freed by the ORB after the reply, and the caller's copy). */
START_TEST(test_steady_state)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  static cdr_mem_counter c;
  cdr_mem_counter_init(&c, NULL);
  cdr_mem_set_global(&c.alloc);
  for (int i = 0; i < 50; i++) { /* warm the pools and the connection */
    Shop_Store_ping(ref, i, &ev);
    Shop_Pt p = { 1, 2 }, q = { 3, 4 }, r;
    Shop_Store_move(ref, &p, &q, &r, &ev);
    CORBA_free(Shop_Store__get_label(ref, &ev));
  }
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  uint64_t m0 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 200; i++) {
    ck_assert_int_eq(Shop_Store_ping(ref, i, &ev), i + 1);
    Shop_Pt p = { 1, 2 }, q = { 3, 4 }, r = { 0, 0 };
    Shop_Pt m = Shop_Store_move(ref, &p, &q, &r, &ev);
    ck_assert(m.x == 2 && m.y == 1 && q.x == 1 && q.y == 4 && r.x == 3 && r.y == 4);
  }
  uint64_t m1 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t live1 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 100; i++) {
    CORBA_char *s = Shop_Store__get_label(ref, &ev);
    ck_assert_str_eq(s, "label");
    CORBA_free(s);
  }
  uint64_t m2 = __atomic_load_n(&c.mallocs, __ATOMIC_SEQ_CST);
  int64_t live2 = __atomic_load_n(&c.live, __ATOMIC_SEQ_CST);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
  cdr_pool_flush();
  cdr_mem_set_global(NULL);
  ck_assert_msg(m1 == m0, "%llu allocations in 400 fixed-length calls",
                (unsigned long long)(m1 - m0));
  ck_assert_msg(m2 - m1 == 200, "%llu allocations in 100 string results",
                (unsigned long long)(m2 - m1));
  ck_assert_int_eq(live2, live1);
}
END_TEST

/* -ORBgiopMaxMsgSize on the server's side: a request over it is refused
 * (MessageError, the connection closed) before the servant sees it; a
 * smaller one on the next connection is served. */
START_TEST(test_server_max_msg_size)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  char a0[] = "t", a1[] = "-ORBendPoint", a2[] = "giop:tcp:127.0.0.1:0",
       a3[] = "-ORBgiopMaxMsgSize", a4[] = "16384";
  char *argv[] = { a0, a1, a2, a3, a4, NULL };
  int argc = 5;
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_char *ior = CORBA_ORB_object_to_string(orb, ref, &ev);
  CORBA_ORB corb = ou_orb_local(&ev); /* a client with the default limit */
  CORBA_Object o = CORBA_ORB_string_to_object(corb, ior, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  static char id[20001];
  memset(id, 'x', sizeof id - 1);
  ck_assert(!CORBA_Object_is_a(o, id, &ev));
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_COMM_FAILURE);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, CORBAORB_MINOR_UNMARSHAL_RESULTS);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_MAYBE);
  CORBA_exception_free(&ev);
  char why[CORBAORB_ERROR_MAX];
  corbaorb_ORB_last_error(corb, why, sizeof why);
  static const char said[] = ": MessageError: the server refused a message of this client's "
                             "(too large for it, or one it cannot read); connection closed";
  ck_assert_msg(!strncmp(why, "GIOP from 127.0.0.1:", 20) && strlen(why) > sizeof said &&
                  !strcmp(why + strlen(why) - (sizeof said - 1), said), "%s", why);
  ck_assert(CORBA_Object_is_a(o, "IDL:Shop/Store:1.0", &ev));
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(o, &ev);
  CORBA_ORB_destroy(corb, &ev);
  CORBA_free(ior);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* Exceptions a servant raises that the operation cannot: UNKNOWN; a
 * servant's own system exception with its minor and completion; a NULL
 * string result: BAD_PARAM, the connection still good. */
START_TEST(test_servant_exceptions)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  Shop_Store_ping(ref, -99, &ev);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_UNKNOWN);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, 0x4f4d0001u);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_MAYBE);
  CORBA_exception_free(&ev);

  Shop_Store_ping(ref, -98, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TRANSIENT);
  se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, 0x4f4d0003u);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_MAYBE);
  CORBA_exception_free(&ev);

  Shop_Counter__set_count(ref, -1, &ev);
  ck_assert_ptr_null(Shop_Store__get_label(ref, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  Shop_Counter__set_count(ref, 0, &ev);
  CORBA_char *l = Shop_Store__get_label(ref, &ev);
  ck_assert_str_eq(l, "label");
  CORBA_free(l);

  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* Interceptor hooks of test_service_contexts: the client's adds "C:op"
 * and records the reply's 0x300 context; the server's refuses _get_label. */
static char sc_log[512];

static int sc_cli_send(void *ud, iiop_call *call)
{
  (void)ud;
  const char *op = iiop_call_operation(call);
  size_t n = strlen(sc_log);
  snprintf(sc_log + n, sizeof sc_log - n, "C>%s ", op);
  return iiop_call_add_service_context(call, 0x200, op, strlen(op));
}

static void sc_cli_recv(void *ud, iiop_call *call, int status)
{
  (void)ud;
  const uint8_t *d;
  uint32_t l;
  size_t n = strlen(sc_log);
  if (iiop_call_reply_service_context(call, 0x300, &d, &l) == CDR_OK)
    snprintf(sc_log + n, sizeof sc_log - n, "C<%d[%.*s] ", status, (int)l, (const char *)d);
  else
    snprintf(sc_log + n, sizeof sc_log - n, "C<%d ", status);
}

static int sc_srv_recv(void *ud, iiop_request *req)
{
  (void)ud;
  const char *op = iiop_request_operation(req);
  const uint8_t *d;
  uint32_t l;
  ck_assert_int_eq(iiop_request_service_context(req, 0x200, &d, &l), CDR_OK);
  size_t n = strlen(sc_log);
  snprintf(sc_log + n, sizeof sc_log - n, "S>%s[%.*s] ", op, (int)l, (const char *)d);
  return strcmp(op, "_get_label") == 0;
}

/* The C mapping's service contexts (our extension): a context set on an
 * object reference reaches the servant, which reads it, its object key
 * (the ObjectId), GIOP version and peer through corbaorb_current_request()
 * and adds a reply context; ORB-level interceptors see operation names,
 * add contexts, and the server's refusal is NO_PERMISSION. */
START_TEST(test_service_contexts)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  static const iiop_client_interceptor ci = { sc_cli_send, sc_cli_recv };
  static const iiop_server_interceptor si = { sc_srv_recv, NULL };
  corbaorb_orb_add_client_interceptor(orb, &ci, NULL, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  corbaorb_orb_add_server_interceptor(orb, &si, NULL, &ev); /* before the server exists */
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  corbaorb_orb_add_client_interceptor(orb, NULL, NULL, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  PortableServer_ObjectId *oid = PortableServer_POA_activate_object(root, &a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_null(corbaorb_current_request());

  corbaorb_object_set_service_context(ref, 0x100, (const CORBA_octet *)"orb-ctx", 7, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  sc_probe = 1;
  sc_log[0] = 0;
  ck_assert_int_eq(Shop_Store_ping(ref, 41, &ev), 42);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  sc_probe = 0;
  TU_ASSERT_BYTES(sc_seen.ctx, sc_seen.ctx_len, "orb-ctx", 7);
  ck_assert_uint_eq(sc_seen.nctx, 3); /* CodeSets, the reference's, the interceptor's */
  TU_ASSERT_BYTES(sc_seen.key, sc_seen.key_len, oid->_buffer, oid->_length);
  ck_assert_uint_eq(sc_seen.major, 1);
  ck_assert_uint_eq(sc_seen.minor, 2);
  ck_assert_int_eq(sc_seen.peer_rc, CDR_OK);
  ck_assert_str_eq(sc_seen.peer, "127.0.0.1");
  ck_assert_str_eq(sc_log, "C>ping S>ping[ping] C<0[back] ");

  /* the server's interceptor refuses _get_label */
  sc_log[0] = 0;
  ck_assert_ptr_null(Shop_Store__get_label(ref, &ev));
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_NO_PERMISSION);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  ck_assert_str_eq(sc_log, "C>_get_label S>_get_label[_get_label] C<2 ");

  /* removed: the servant sees no 0x100 any more */
  corbaorb_object_remove_service_context(ref, 0x100, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  corbaorb_object_remove_service_context(ref, 0x100, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  sc_probe = 1;
  ck_assert_int_eq(Shop_Store_ping(ref, 1, &ev), 2);
  sc_probe = 0;
  ck_assert_uint_eq(sc_seen.ctx_len, 0);
  ck_assert_uint_eq(sc_seen.nctx, 1);
  corbaorb_object_set_service_context(CORBA_OBJECT_NIL, 1, NULL, 0, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INV_OBJREF);
  CORBA_exception_free(&ev);

  CORBA_free(oid);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* A servant raising PortableServer::ForwardRequest: the client follows the
 * LOCATION_FORWARD to the second servant, gets its result, and sends later
 * calls on that reference straight there; a nil forward_reference gets
 * BAD_PARAM. */
START_TEST(test_forward_request)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a, b, c;
  impl_init(&a, &ev);
  impl_init(&b, &ev);
  impl_init(&c, &ev);
  Shop_Store ra = PortableServer_POA_servant_to_reference(root, &a, &ev);
  Shop_Store rb = PortableServer_POA_servant_to_reference(root, &b, &ev);
  Shop_Store rc = PortableServer_POA_servant_to_reference(root, &c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  a.forward = 1;
  a.fwd = rb;
  b.count = 42;
  c.forward = 2;

  ck_assert_int_eq(Shop_Store_ping(ra, 5, &ev), 6);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(a.pings, 1);
  ck_assert_int_eq(b.pings, 1);
  ck_assert_int_eq(Shop_Store_ping(ra, 7, &ev), 8);
  ck_assert_int_eq(Shop_Store_ping(ra, 9, &ev), 10);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(a.pings, 1); /* remembered: straight to b */
  ck_assert_int_eq(b.pings, 3);
  ck_assert_int_eq(Shop_Counter__get_count(ra, &ev), 42); /* another operation too */
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  Shop_Store_ping(rc, 1, &ev);
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_SystemException *se = CORBA_exception_value(&ev);
  ck_assert_uint_eq(se->minor, 0);
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_NO);
  CORBA_exception_free(&ev);
  Shop_Store_ping(rc, 1, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(c.pings, 2);
  ck_assert_int_eq(b.pings, 3);

  CORBA_Object_release(ra, &ev);
  CORBA_Object_release(rb, &ev);
  CORBA_Object_release(rc, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
  POA_Shop_Store__fini(&b, &ev);
  POA_Shop_Store__fini(&c, &ev);
}
END_TEST

/* corbaorb_LocationForwardPerm against ForwardRequest: two forwarders in
 * one ORB (a with PERM, c plain) to a target b in a second ORB.  Both are
 * followed once and remembered; once the target's ORB is gone, a's
 * clients stay on the replaced reference (TRANSIENT, a not asked again)
 * while c's go back to c (which forwards once more to the dead target,
 * then TRANSIENT).  Through a GIOP 1.0 corbaloc reference PERM is a plain
 * LOCATION_FORWARD: back to a, as with c. */
static void perm_case(int giop10)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  CORBA_ORB orb2 = ou_orb_local(&ev);
  ck_assert_ptr_ne(orb, orb2);
  PortableServer_POA root =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  PortableServer_POA ins =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", &ev);
  PortableServer_POA root2 =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb2, "RootPOA", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(root, &ev), &ev);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(ins, &ev), &ev);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(root2, &ev), &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Impl a, b, c;
  impl_init(&a, &ev);
  impl_init(&b, &ev);
  impl_init(&c, &ev);
  PortableServer_ObjectId *oid = PortableServer_string_to_ObjectId("PermA", &ev);
  PortableServer_POA_activate_object_with_id(ins, oid, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Shop_Store ra0 = PortableServer_POA_servant_to_reference(ins, &a, &ev);
  Shop_Store rb = PortableServer_POA_servant_to_reference(root2, &b, &ev);
  Shop_Store rc = PortableServer_POA_servant_to_reference(root, &c, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Shop_Store ra = ra0;
  if (giop10) {
    /* the same object through corbaloc::1.0@ (the port from a's IOR) */
    CORBA_char *s = CORBA_ORB_object_to_string(orb, ra0, &ev);
    iiop_ior ior;
    cdr_arena ar;
    cdr_arena_init(&ar, NULL);
    ck_assert_int_eq(iiop_ior_from_string(s, &ar, &ior), CDR_OK);
    const iiop_profile *p = iiop_ior_iiop_profile(&ior);
    ck_assert_ptr_nonnull(p);
    char url[96];
    snprintf(url, sizeof url, "corbaloc::1.0@127.0.0.1:%u/PermA", (unsigned)p->port);
    cdr_arena_free(&ar);
    CORBA_free(s);
    ra = CORBA_ORB_string_to_object(orb, url, &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  }
  a.forward = 3;
  a.fwd = rb;
  c.forward = 1;
  c.fwd = rb;
  for (CORBA_long i = 0; i < 5; i++) {
    ck_assert_int_eq(Shop_Store_ping(ra, 10 * i, &ev), 10 * i + 1);
    ck_assert_int_eq(Shop_Store_ping(rc, 10 * i + 5, &ev), 10 * i + 6);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  }
  ck_assert_int_eq(a.pings, 1);
  ck_assert_int_eq(c.pings, 1);
  ck_assert_int_eq(b.pings, 10);

  /* the target goes */
  CORBA_ORB_destroy(orb2, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  Shop_Store_ping(ra, 1, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TRANSIENT);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(a.pings, (giop10 ? 2 : 1)); /* PERM: the reference is b's now */
  Shop_Store_ping(rc, 1, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_TRANSIENT);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(c.pings, 2);              /* back to c, which forwards again */
  ck_assert_int_eq(b.pings, 10);

  if (ra != ra0)
    CORBA_Object_release(ra, &ev);
  CORBA_Object_release(ra0, &ev);
  CORBA_Object_release(rb, &ev);
  CORBA_Object_release(rc, &ev);
  CORBA_free(oid);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
  POA_Shop_Store__fini(&b, &ev);
  POA_Shop_Store__fini(&c, &ev);
}

START_TEST(test_location_forward_perm)
{
  perm_case(0);
}
END_TEST

START_TEST(test_location_forward_perm_giop10)
{
  perm_case(1);
}
END_TEST

/* -ORBendPoint giop:tcp:[::1]:0: the server listens on ::1 and its
 * references carry it (as omniORB writes IPv6 hosts: unbracketed in the
 * profile), and calls go through. */
START_TEST(test_ipv6_endpoint)
{
  char a0[] = "t", a1[] = "-ORBendPoint", a2[] = "giop:tcp:[::1]:0";
  char *argv[] = { a0, a1, a2, NULL };
  int argc = 3;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 1);
  PortableServer_POA root =
    (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  if (ev._major != CORBA_NO_EXCEPTION) { /* no IPv6 loopback on this host */
    CORBA_exception_free(&ev);
    CORBA_ORB_destroy(orb, &ev);
    return;
  }
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(root, &ev), &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_char *s = CORBA_ORB_object_to_string(orb, ref, &ev);
  cdr_arena ar;
  cdr_arena_init(&ar, NULL);
  iiop_ior ior;
  ck_assert_int_eq(iiop_ior_from_string(s, &ar, &ior), CDR_OK);
  ck_assert_str_eq(iiop_ior_iiop_profile(&ior)->host, "::1");
  cdr_arena_free(&ar);
  CORBA_free(s);
  ck_assert_int_eq(Shop_Store_ping(ref, 10, &ev), 11);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* A servant deactivating itself from one of its operations: the reply
 * comes, finalize runs after the operation, later calls get
 * OBJECT_NOT_EXIST. */
START_TEST(test_deactivate_from_operation)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  a.poa = root;
  a.oid = PortableServer_POA_activate_object(root, &a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_long by = 1;
  Shop_Counter_bump(ref, &by, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(by, 0);
  by = -1;
  Shop_Counter_bump(ref, &by, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(by, 0);             /* not finalized while the operation ran */
  ck_assert_int_eq(a.finalized, 1);    /* but once it returned */
  ck_assert_int_eq(a.finalized_in_op, 0);
  Shop_Counter_bump(ref, &by, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_OBJECT_NOT_EXIST);
  CORBA_exception_free(&ev);
  CORBA_free(a.oid);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  ck_assert_int_eq(a.finalized, 1);    /* destroy does not finalize it again */
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* References inside a struct are made through a live ORB: the first one
 * destroyed, the next takes over. */
START_TEST(test_refs_after_first_orb)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  int argc = 0;
  CORBA_ORB first = CORBA_ORB_init(&argc, NULL, "", &ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  CORBA_ORB_destroy(first, &ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  Shop_Tagged t = { "tag", ref };
  Shop_Tagged *r = Shop_Store_wrap(ref, &t, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_str_eq(r->tag, "tag");
  ck_assert(CORBA_Object_is_equivalent(r->ref, ref, &ev));
  ck_assert_int_eq(Shop_Base_ping(r->ref, 1, &ev), 2);
  CORBA_free(r);
  t.ref = CORBA_OBJECT_NIL;
  r = Shop_Store_wrap(ref, &t, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_nil(r->ref, &ev));
  CORBA_free(r);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

/* Threads sharing one reference (and one connection): every result exact. */
typedef struct { Shop_Store ref; int base; int bad; } thr_arg;

static void *thr_calls(void *p)
{
  thr_arg *t = p;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  for (int i = 0; i < 300; i++) {
    Shop_Store r = CORBA_Object_duplicate(t->ref, &ev);
    if (Shop_Base_ping(r, t->base + i, &ev) != t->base + i + 1 || ev._major)
      t->bad++;
    CORBA_char *s = Shop_Store__get_label(r, &ev);
    if (!s || strcmp(s, "label"))
      t->bad++;
    CORBA_free(s);
    CORBA_Object_release(r, &ev);
  }
  return NULL;
}

START_TEST(test_threads)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = ou_orb_local(&ev);
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  pthread_t th[4];
  thr_arg ta[4];
  for (int i = 0; i < 4; i++) {
    ta[i] = (thr_arg){ ref, i * 100000, 0 };
    ck_assert_int_eq(pthread_create(&th[i], NULL, thr_calls, &ta[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    ck_assert_int_eq(ta[i].bad, 0);
  }
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);
}
END_TEST

static int64_t mono_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ping(PING_SLEEP + SLEEP) on REF: the result, EV holding the exception;
 * *MS how long it took. */
static CORBA_long timed_ping(Shop_Store ref, int sleep, int64_t *ms, CORBA_Environment *ev)
{
  int64_t t0 = mono_ms();
  CORBA_long r = Shop_Store_ping(ref, PING_SLEEP + sleep, ev);
  *ms = mono_ms() - t0;
  return r;
}

/* EV holds a call timeout: ID, omniORB's minor, completion MAYBE, within
 * LIMIT ms (and 2 s of slack for a loaded machine). */
static void check_call_timed_out(CORBA_Environment *ev, const char *id, int64_t ms, int limit)
{
  ck_assert_int_eq(ev->_major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(ev), id);
  CORBA_SystemException *se = CORBA_exception_value(ev);
  ck_assert_ptr_nonnull(se);
  ck_assert_uint_eq(se->minor, CORBAORB_MINOR_CALL_TIMED_OUT);
  ck_assert_uint_eq(se->minor, 0x41540008u); /* omniORB's TIMEOUT_CallTimedOutOnClient */
  ck_assert_int_eq(se->completed, CORBA_COMPLETED_MAYBE);
  ck_assert_int_ge(ms, limit - 5);
  ck_assert_int_le(ms, limit + 2000);
  CORBA_exception_free(ev);
}

/* -ORBclientCallTimeOutPeriod, the per-object and per-thread timeouts and
 * their order (object > thread > ORB), -ORBthrowTransientOnTimeOut; after
 * a timeout the same reference goes on with the right results. */
START_TEST(test_call_timeouts)
{
  char a0[] = "t", a1[] = "-ORBendPoint", a2[] = "giop:tcp:127.0.0.1:0",
       a3[] = "-ORBclientCallTimeOutPeriod", a4[] = "300", a5[] = "x";
  char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
  int argc = 6;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 2);
  ck_assert_str_eq(argv[1], "x");
  PortableServer_POA root = ou_root_poa(orb, &ev);
  Impl a;
  impl_init(&a, &ev);
  Shop_Store ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  int64_t ms;

  /* The ORB's 300 ms. */
  ck_assert_int_eq(timed_ping(ref, 0, &ms, &ev), PING_SLEEP + 1);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  timed_ping(ref, 1000, &ms, &ev);
  check_call_timed_out(&ev, ex_CORBA_TIMEOUT, ms, 300);
  /* The object's: 3 s (the sleep's late reply comes first, then this). */
  ck_assert_int_eq(corbaorb_Object_call_timeout(ref), CORBAORB_TIMEOUT_DEFAULT);
  corbaorb_Object_set_call_timeout(ref, 3000, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(corbaorb_Object_call_timeout(ref), 3000);
  ck_assert_int_eq(Shop_Store_ping(ref, 5, &ev), 6);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(timed_ping(ref, 600, &ms, &ev), PING_SLEEP + 601);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  /* The object's 0: none. */
  corbaorb_Object_set_call_timeout(ref, 0, &ev);
  ck_assert_int_eq(timed_ping(ref, 600, &ms, &ev), PING_SLEEP + 601);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  /* Errors. */
  corbaorb_Object_set_call_timeout(CORBA_OBJECT_NIL, 5, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INV_OBJREF);
  CORBA_exception_free(&ev);
  corbaorb_Object_set_call_timeout(ref, -2, &ev);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_BAD_PARAM);
  CORBA_exception_free(&ev);
  ck_assert_int_eq(corbaorb_Object_call_timeout(ref), 0);
  ck_assert_int_eq(corbaorb_Object_call_timeout(CORBA_OBJECT_NIL), CORBAORB_TIMEOUT_DEFAULT);

  /* The thread's: wins over the ORB's, not over the object's. */
  corbaorb_Object_set_call_timeout(ref, CORBAORB_TIMEOUT_DEFAULT, &ev);
  ck_assert_int_eq(corbaorb_set_thread_call_timeout(0), CORBAORB_TIMEOUT_DEFAULT);
  ck_assert_int_eq(timed_ping(ref, 600, &ms, &ev), PING_SLEEP + 601);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(corbaorb_set_thread_call_timeout(-7), 0); /* ignored */
  corbaorb_Object_set_call_timeout(ref, 200, &ev);
  timed_ping(ref, 1000, &ms, &ev);
  check_call_timed_out(&ev, ex_CORBA_TIMEOUT, ms, 200);
  ck_assert_int_eq(corbaorb_set_thread_call_timeout(CORBAORB_TIMEOUT_DEFAULT), 0);
  corbaorb_Object_set_call_timeout(ref, 5000, &ev);
  ck_assert_int_eq(Shop_Store_ping(ref, 7, &ev), 8);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);

  /* -ORBthrowTransientOnTimeOut 1: TRANSIENT, the same minor. */
  char b3[] = "-ORBthrowTransientOnTimeOut", b4[] = "1", b5[] = "-ORBclientCallTimeOutPeriod",
       b6[] = "250";
  char *argv2[] = { a0, a1, a2, b3, b4, b5, b6, NULL };
  argc = 7;
  orb = CORBA_ORB_init(&argc, argv2, "", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_int_eq(argc, 1);
  root = ou_root_poa(orb, &ev);
  impl_init(&a, &ev);
  ref = PortableServer_POA_servant_to_reference(root, &a, &ev);
  timed_ping(ref, 1000, &ms, &ev);
  check_call_timed_out(&ev, ex_CORBA_TRANSIENT, ms, 250);
  corbaorb_Object_set_call_timeout(ref, 5000, &ev);
  ck_assert_int_eq(Shop_Store_ping(ref, 9, &ev), 10);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(ref, &ev);
  CORBA_ORB_destroy(orb, &ev);
  POA_Shop_Store__fini(&a, &ev);

  /* A value other than 0 or 1: INITIALIZE (as omniORB). */
  char c4[] = "2";
  char *argv3[] = { a0, b3, c4, NULL };
  argc = 3;
  orb = CORBA_ORB_init(&argc, argv3, "", &ev);
  ck_assert_ptr_null(orb);
  ck_assert_str_eq(CORBA_exception_id(&ev), ex_CORBA_INITIALIZE);
  CORBA_exception_free(&ev);
}
END_TEST

static Suite *corba_suite(void)
{
  Suite *s = suite_create("corba");
  TCase *tc = tcase_create("memory");
  tcase_add_test(tc, test_deep_free);
  tcase_add_test(tc, test_copy);
  tcase_add_test(tc, test_copy_nomem);
  tcase_add_test(tc, test_environment);
  tcase_add_test(tc, test_typecode_ops);
  suite_add_tcase(s, tc);
  tc = tcase_create("orb");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_orb_init_options);
  tcase_add_test(tc, test_orb_init_omniorb_options);
  tcase_add_test(tc, test_orb_init_used_values);
  tcase_add_test(tc, test_object_strings);
  tcase_add_test(tc, test_corbaloc_rir);
  tcase_add_test(tc, test_poa);
  tcase_add_test(tc, test_steady_state);
  tcase_add_test(tc, test_server_max_msg_size);
  tcase_add_test(tc, test_servant_exceptions);
  tcase_add_test(tc, test_service_contexts);
  tcase_add_test(tc, test_forward_request);
  tcase_add_test(tc, test_location_forward_perm);
  tcase_add_test(tc, test_location_forward_perm_giop10);
  tcase_add_test(tc, test_threads);
  tcase_add_test(tc, test_ipv6_endpoint);
  tcase_add_test(tc, test_refs_after_first_orb);
  tcase_add_test(tc, test_deactivate_from_operation);
  tcase_add_test(tc, test_call_timeouts);
  suite_add_tcase(s, tc);
  return s;
}

static int corba_setup(void)
{
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

const tu_program tu_prog = { .suite = corba_suite, .setup = corba_setup };
