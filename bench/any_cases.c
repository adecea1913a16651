/* any_cases.c - BenchAny::AnyEcho: descriptors, the Any cases, echoAny's stub
 * and skeleton (see any_cases.h). */
#include <inttypes.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/cdr.h>
#include <cdr/any.h>
#include <iiop/orb.h>
#include <iiop/msg.h>
#include "bench_idl.h"
#include "any_cases.h"

/* ---------------------------------------------------------------- descriptors */

static const cdr_member point_m[] = {
  CDR_MEMBER(BenchAny_Point, x, &cdr_type_long),
  CDR_MEMBER(BenchAny_Point, y, &cdr_type_double),
  CDR_MEMBER(BenchAny_Point, label, &cdr_type_string),
};
const cdr_type BenchAny_Point_type = CDR_STRUCT_TYPE(BenchAny_Point, "Point",
                                                     "IDL:BenchAny/Point:1.0", point_m);
static const cdr_type pointseq_seq_t = CDR_SEQUENCE_TYPE(&BenchAny_Point_type, 0);
const cdr_type BenchAny_PointSeq_type = {
  .kind = CDR_K_ALIAS, .size = sizeof(cdr_seq), .align = alignof(cdr_seq), .name = "PointSeq",
  .repo_id = "IDL:BenchAny/PointSeq:1.0", .u.alias.type = &pointseq_seq_t,
};

static const cdr_type tree_seq_t = CDR_SEQUENCE_TYPE(&BenchAny_Tree_type, 0);
static const cdr_member tree_m[] = {
  CDR_MEMBER(BenchAny_Tree, value, &cdr_type_long),
  CDR_MEMBER(BenchAny_Tree, children, &tree_seq_t),
};
const cdr_type BenchAny_Tree_type = CDR_STRUCT_TYPE(BenchAny_Tree, "Tree", "IDL:BenchAny/Tree:1.0",
                                                    tree_m);

static const cdr_union_case choice_c[] = {
  { 1, "l", &cdr_type_long, offsetof(BenchAny_Choice, _u.l) },
  { 2, "s", &cdr_type_string, offsetof(BenchAny_Choice, _u.s) },
  { 0, "d", &cdr_type_double, offsetof(BenchAny_Choice, _u.d) },
};
const cdr_type BenchAny_Choice_type = {
  .kind = CDR_K_UNION, .size = sizeof(BenchAny_Choice), .align = alignof(BenchAny_Choice),
  .name = "Choice", .repo_id = "IDL:BenchAny/Choice:1.0",
  .u.un = { &cdr_type_short, offsetof(BenchAny_Choice, _d), choice_c, 3, 2 },
};

static const char *const color_n[] = { "RED", "GREEN", "BLUE" };
const cdr_type BenchAny_Color_type = {
  .kind = CDR_K_ENUM, .size = sizeof(uint32_t), .align = alignof(uint32_t), .name = "Color",
  .repo_id = "IDL:BenchAny/Color:1.0", .u.en = { 3, color_n },
};

const cdr_type BenchAny_AnyEcho_type = {
  .kind = CDR_K_OBJREF, .size = sizeof(void *), .align = alignof(void *), .name = "AnyEcho",
  .repo_id = BENCHANY_ANYECHO_ID,
};

const cdr_type any_seq_any_type = CDR_SEQUENCE_TYPE(&cdr_type_any, 0);
const cdr_type any_CORBA_AnySeq_type = {
  .kind = CDR_K_ALIAS, .size = sizeof(cdr_seq), .align = alignof(cdr_seq), .name = "AnySeq",
  .repo_id = "IDL:omg.org/CORBA/AnySeq:1.0", .u.alias.type = &any_seq_any_type,
};

static const cdr_type fixed_10_3_t = {
  .kind = CDR_K_FIXED, .size = sizeof(cdr_fixed), .align = alignof(cdr_fixed),
  .u.fx = { 10, 3 },
};

/* Value types in an any: their TypeCodes are tk_value of the type. */
static const cdr_type subnode_t = {
  .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *), .name = "SubNode",
  .repo_id = BENCH_SUBNODE_ID, .u.val.vt = &Bench_SubNode_vt,
};
static const cdr_type truncnode_t = {
  .kind = CDR_K_VALUE, .size = sizeof(void *), .align = alignof(void *), .name = "TruncNode",
  .repo_id = BENCH_TRUNCNODE_ID, .u.val.vt = &Bench_TruncNode_vt,
};

/* ---------------------------------------------------------------- values
 * As omni-client's (tests/interop/README.md, "AnyEcho"). */

static int16_t v_short = -12345;
static int32_t v_long = -1234567890;
static uint16_t v_ushort = 54321;
static uint32_t v_ulong = 4000000000u;
static int64_t v_longlong = -1234567890123456789LL;
static uint64_t v_ulonglong = 18000000000000000000ULL;
static float v_float = 3.1415927f;
static double v_double = 2.718281828459045;
static long double v_longdouble = 0x1.123456789abcdefp+3L; /* 60 fraction bits: not a double */
static bool v_boolean = true;
static char v_char = 'Z';
static uint8_t v_octet = 0xA5;
static cdr_wchar v_wchar = 0x20AC;
static char *v_string = "h\xe9llo, Any";                   /* ISO-8859-1 */
static cdr_wchar v_wstring_buf[] = { 'a', 0xE9, 0x4E2D, 0x1F600, 'z', 0 };
static cdr_wchar *v_wstring = v_wstring_buf;
static cdr_fixed v_fixed = { 10, 3, 1, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 1 } }; /* -1234567.891 */
static cdr_typecode v_typecode = &BenchAny_Tree_type;
static void *v_objref;                                     /* any_cases_set_objref() */
static BenchAny_Point v_point = { -7, 2.5, "origin" };
static BenchAny_Point v_points[] = { { 1, 0.5, "a" }, { 2, -1.5, "bb" }, { 3, 1e100, "" } };
static cdr_seq v_pointseq = { 3, 3, v_points, 0 };
/* Tree {1, [{2, []}, {3, [{4, []}]}]} */
static BenchAny_Tree v_tree4[] = { { 4, { 0, 0, NULL, 0 } } };
static BenchAny_Tree v_tree23[] = { { 2, { 0, 0, NULL, 0 } }, { 3, { 1, 1, v_tree4, 0 } } };
static BenchAny_Tree v_tree = { 1, { 2, 2, v_tree23, 0 } };
static BenchAny_Choice v_choice_l = { 1, { .l = -42 } };
static BenchAny_Choice v_choice_s = { 2, { .s = "two" } };
static BenchAny_Choice v_choice_default = { 7, { .d = 0.125 } };
static uint32_t v_color = BenchAny_BLUE;
/* Nodes 0 -> 1 -> 2 -> 0 */
static Bench_Node v_cyc[3] = {
  { { &Bench_Node_vt }, 0, &v_cyc[1] },
  { { &Bench_Node_vt }, 1, &v_cyc[2] },
  { { &Bench_Node_vt }, 2, &v_cyc[0] },
};
static Bench_Node *v_node_cycle = &v_cyc[0];
/* Pair { a = b = Nodes 10 -> 11 } */
static Bench_Node v_sh[2] = {
  { { &Bench_Node_vt }, 10, &v_sh[1] },
  { { &Bench_Node_vt }, 11, NULL },
};
static Bench_Pair v_node_shared = { &v_sh[0], &v_sh[0] };
static Bench_Node *v_node_null = NULL;
static Bench_SubNode v_sub = { { { &Bench_SubNode_vt }, 5, NULL }, 36 };
static Bench_Node *v_subnode = &v_sub.base;
/* TruncNode {6, next = Node 7, extra 45} */
static Bench_Node v_n7 = { { &Bench_Node_vt }, 7, NULL };
static Bench_TruncNode v_trunc = { { { &Bench_TruncNode_vt }, 6, &v_n7 }, 45 };
static Bench_Node *v_truncnode = &v_trunc.base;
static uint32_t v_seven = 7;
static cdr_any v_any_in_any = { ._type = &cdr_type_ulong, ._value = &v_seven };
/* seq-any: [long 1, string "two", Color GREEN]; anyseq: [double 0.5, an empty any] */
static int32_t v_one = 1;
static char *v_two = "two";
static uint32_t v_green = BenchAny_GREEN;
static cdr_any v_anys3[] = {
  { ._type = &cdr_type_long, ._value = &v_one },
  { ._type = &cdr_type_string, ._value = &v_two },
  { ._type = &BenchAny_Color_type, ._value = &v_green },
};
static cdr_seq v_seq_any = { 3, 3, v_anys3, 0 };
static double v_half = 0.5;
static cdr_any v_anys2[] = {
  { ._type = &cdr_type_double, ._value = &v_half },
  { ._type = &cdr_type_null, ._value = NULL },
};
static cdr_seq v_anyseq = { 2, 2, v_anys2, 0 };

#define CASE(n, tc, v) { n, { ._type = (tc), ._value = (v), ._release = 0 } }
static any_case cases[] = {
  CASE("short", &cdr_type_short, &v_short),
  CASE("long", &cdr_type_long, &v_long),
  CASE("ushort", &cdr_type_ushort, &v_ushort),
  CASE("ulong", &cdr_type_ulong, &v_ulong),
  CASE("longlong", &cdr_type_longlong, &v_longlong),
  CASE("ulonglong", &cdr_type_ulonglong, &v_ulonglong),
  CASE("float", &cdr_type_float, &v_float),
  CASE("double", &cdr_type_double, &v_double),
  CASE("longdouble", &cdr_type_longdouble, &v_longdouble),
  CASE("boolean", &cdr_type_boolean, &v_boolean),
  CASE("char", &cdr_type_char, &v_char),
  CASE("octet", &cdr_type_octet, &v_octet),
  CASE("wchar", &cdr_type_wchar, &v_wchar),
  CASE("string", &cdr_type_string, &v_string),
  CASE("wstring", &cdr_type_wstring, &v_wstring),
  CASE("fixed", &fixed_10_3_t, &v_fixed),
  CASE("empty", &cdr_type_null, NULL),
  CASE("typecode", &cdr_type_typecode, &v_typecode),
  CASE("objref", &BenchAny_AnyEcho_type, &v_objref),
  CASE("point", &BenchAny_Point_type, &v_point),
  CASE("pointseq", &BenchAny_PointSeq_type, &v_pointseq),
  CASE("tree", &BenchAny_Tree_type, &v_tree),
  CASE("choice-l", &BenchAny_Choice_type, &v_choice_l),
  CASE("choice-s", &BenchAny_Choice_type, &v_choice_s),
  CASE("choice-default", &BenchAny_Choice_type, &v_choice_default),
  CASE("color", &BenchAny_Color_type, &v_color),
  CASE("node-cycle", &Bench_Node_type, &v_node_cycle),
  CASE("node-shared", &Bench_Pair_type, &v_node_shared),
  CASE("node-null", &Bench_Node_type, &v_node_null),
  CASE("subnode", &subnode_t, &v_subnode),
  CASE("truncnode", &truncnode_t, &v_truncnode),
  CASE("any-in-any", &cdr_type_any, &v_any_in_any),
  CASE("seq-any", &any_seq_any_type, &v_seq_any),
  CASE("anyseq", &any_CORBA_AnySeq_type, &v_anyseq),
};
#undef CASE
#define NCASES (sizeof cases / sizeof cases[0])

size_t any_case_count(void) { return NCASES; }
const any_case *any_case_at(size_t k) { return k < NCASES ? &cases[k] : NULL; }

const any_case *any_case_find(const char *name)
{
  for (size_t k = 0; k < NCASES; k++)
    if (strcmp(cases[k].name, name) == 0)
      return &cases[k];
  return NULL;
}

/* The decoded IOR of the objref case lives in this arena until exit. */
static cdr_arena objref_arena;
static bool objref_arena_init;

static int hexval(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

int any_cases_set_objref(const char *ior)
{
  if (strncmp(ior, "IOR:", 4) != 0)
    return CDR_E_VALUE;
  const char *h = ior + 4;
  size_t n = strlen(h);
  if (n % 2 || n < 2)
    return CDR_E_VALUE;
  uint8_t *oct = malloc(n / 2);
  if (!oct)
    return CDR_E_NOMEM;
  for (size_t k = 0; k < n / 2; k++) {
    int hi = hexval(h[2 * k]), lo = hexval(h[2 * k + 1]);
    if (hi < 0 || lo < 0) {
      free(oct);
      return CDR_E_VALUE;
    }
    oct[k] = (uint8_t)(hi << 4 | lo);
  }
  if (!objref_arena_init) {
    cdr_arena_init(&objref_arena, NULL);
    objref_arena_init = true;
  }
  /* An encapsulation: the byte-order octet, then the IOR.  Read it as an
   * any of the reference's TypeCode would be, so the value has the layout
   * (or the hooks' form) cdr_get_any() gives an object reference. */
  cdr_in in;
  int rc = cdr_in_init_encap(&in, oct, n / 2, NULL);
  if (rc == CDR_OK) {
    cdr_in_set_arena(&in, &objref_arena);
    void *ref = NULL;
    rc = cdr_read(&in, &BenchAny_AnyEcho_type, &ref);
    if (rc == CDR_OK)
      v_objref = ref;
  }
  cdr_in_close(&in);
  free(oct);
  return rc;
}

void any_cases_cleanup(void)
{
  v_objref = NULL;
  if (objref_arena_init)
    cdr_arena_free(&objref_arena);
  objref_arena_init = false;
}

bool any_case_matches(const any_case *c, const cdr_any *reply, char *why, size_t whysz)
{
  cdr_typecode rt = reply->_type ? reply->_type : &cdr_type_null;
  cdr_tckind rk = cdr_tc_kind(rt), sk = cdr_tc_kind(c->any._type);
  int e = cdr_tc_equivalent(rt, c->any._type);
  if (e != 1) {
    snprintf(why, whysz, "the reply's TypeCode (kind %d) is %s the one sent (kind %d)", (int)rk,
             e == 0 ? "not equivalent to" : "not comparable with", (int)sk);
    return false;
  }
  e = cdr_any_equal(reply, &c->any);
  if (e != 1) {
    char got[160], sent[160];
    cdr_any_print(got, sizeof got, reply);
    cdr_any_print(sent, sizeof sent, &c->any);
    snprintf(why, whysz, "%s: %s, sent %s", e == 0 ? "value differs" : "cannot compare", got,
             sent);
    return false;
  }
  return true;
}

/* ---------------------------------------------------------------- calls */

int BenchAny_AnyEcho_echoAny(iiop_ref *r, const cdr_any *a, unsigned flags, cdr_any *ret,
                             iiop_call **callp)
{
  *callp = NULL;
  iiop_call *call;
  cdr_out *args;
  int rc = iiop_call_begin(r, "echoAny", 0, &call, &args);
  if (rc != CDR_OK)
    return rc;
  *callp = call;
  if (flags & ANY_X87)
    args->opts.flags |= CDR_F_LDOUBLE_X87;
  cdr_put_any(args, a); /* a failure is sticky: invoke reports it */
  cdr_in *res;
  rc = iiop_call_invoke(call, &res);
  if (rc != CDR_OK)
    return rc;
  if (flags & ANY_X87)
    res->opts.flags |= CDR_F_LDOUBLE_X87;
  return cdr_get_any(res, ret);
}

static const any_case *only;        /* any_cases_only() */
static int reported[NCASES];        /* atomic: the case's failure was printed */

bool any_cases_only(const char *name)
{
  only = any_case_find(name);
  return only != NULL;
}

unsigned long any_cases_round(void) { return only ? 1 : NCASES; }

int any_case_call(iiop_ref *r, unsigned long i, bool check, unsigned flags)
{
  const any_case *c = only ? only : &cases[i % NCASES];
  cdr_any reply;
  cdr_any_init(&reply);
  iiop_call *call = NULL;
  int rc = BenchAny_AnyEcho_echoAny(r, &c->any, flags, &reply, &call);
  int res = 0;
  char why[400];
  if (rc != CDR_OK) {
    const giop_system_exception *e = call ? iiop_call_exception(call) : NULL;
    if (e) {
      const char *name = giop_system_exception_name(e->repo_id, strlen(e->repo_id));
      snprintf(why, sizeof why, "call failed: case %s: system exception CORBA::%s "
               "minor=0x%08" PRIx32 "%s%s%s", c->name, name ? name : e->repo_id, e->minor,
               rc < 0 ? " (local: " : "", rc < 0 ? cdr_strerror(rc) : "", rc < 0 ? ")" : "");
    } else {
      const char *name = rc < 0 ? cdr_status_exception(rc) : NULL;
      snprintf(why, sizeof why, "call failed: case %s: %s%s (%s)", c->name,
               name ? "CORBA::" : "", name ? name : "error",
               rc < 0 ? cdr_strerror(rc) : "a user exception");
    }
    res = 3;
  } else if (check) {
    char d[360];
    if (!any_case_matches(c, &reply, d, sizeof d)) {
      snprintf(why, sizeof why, "reply differs: case %s: %s", c->name, d);
      res = 1;
    }
  }
  if (res && __atomic_exchange_n(&reported[c - cases], 1, __ATOMIC_RELAXED) == 0) {
    fprintf(stderr, "%s\n", why);
    fflush(stderr);
  }
  if (call)
    iiop_call_end(call);
  return res;
}

/* ---------------------------------------------------------------- servant */

static int sk_echoAny(void *servant, iiop_request *req, cdr_in *args, cdr_out *result)
{
  (void)req;
  const BenchAny_AnyEcho_servant *s = servant;
  if (s->on_request)
    s->on_request();
  if (s->flags & ANY_X87) {
    args->opts.flags |= CDR_F_LDOUBLE_X87;
    result->opts.flags |= CDR_F_LDOUBLE_X87;
  }
  cdr_any a;
  int rc = cdr_get_any(args, &a);
  if (rc != CDR_OK)
    return rc;
  if (s->flags & ANY_REENCODE)
    cdr_any_forget_octets(&a);
  return cdr_put_any(result, &a);
}

static const iiop_operation anyecho_ops[] = {
  { "echoAny", sk_echoAny },
};

const iiop_interface BenchAny_AnyEcho_interface = {
  BENCHANY_ANYECHO_ID, anyecho_ops, sizeof anyecho_ops / sizeof anyecho_ops[0], NULL,
};
