/* zoo-peer.c - tests/idlzoo's IDL (zoo.idl, zoobase.idl, pragmas.idl,
 * ckw.idl) through idl2c's skeletons and stubs (tests/idlzoo.test).
 *
 *   zoo-peer server [-ORB options]   prints three IORs, one a line:
 *                                    Zoo::Keeper, Prag::Probe and
 *                                    auto::interface; serves until
 *                                    Keeper::shutdown
 *   zoo-peer client KEEPER PROBE KW [--shutdown]
 *                                    calls every operation, prints "ok N -
 *                                    what" or "not ok N - what" per check,
 *                                    exits 0 when all passed
 *
 * The service (tests/idlzoo/omni-zoo.cc is the same in C++):
 *   Keeper: name "keeper", labels ["a", "b"], tickets() 12, speciality()
 *   REPTILE; animals [leo (MAMMAL), tweety (BIRD)]; house { "home",
 *   [[1,2,3],[4,5,6]], ["ann","bob"], [], 1.50 }, formula { 0: num 42 },
 *   stash an any of long 7, grid [[[1],[]],[[2,3],[4]]], charge 9.99,
 *   badge "chief", infos [{MAMMAL, CALM, 190.00}, {BIRD, ANGRY, 0.25}];
 *   note(c, t, a) adds c.dims[1][2] + t.length (+ a's long, when a holds
 *   one) to notes(); every op_X(a, inout b, out c) returns a, sets c to
 *   the old b and b to a; adopt(n, k) makes an Animal named n of kind k
 *   (CALM, weight 1.00); kind_of(a) asks a for its info's kind; find("nf")
 *   raises Common::NotFound { "nf", 404, ["x","y"] }, find("esc") Escaped
 *   { house, FISH, 100.25 }, find("closed") Closed, find("sick")
 *   Animal::Sick { ANGRY, "flu" }, anything else returns.
 *   Animal: name, labels (starts empty), about { kind, mood, weight },
 *   feeling (the mood); feed(g) adds g to the weight and returns about,
 *   raising Sick { ANGRY, "too much" } for g over 1000.00.
 *   Probe: give(1..5) an any of Plain {5}, Inner::Deep {"deep"},
 *   Inner::Bare::Naked {HIGH}, Inner::Bare::Level LOW, Zoo::When
 *   {123456789012, "stamper"}; raise_it(1) Inner::Bad {1}, (2) Odd
 *   {"odd"}, (3) Zoo::Common::NotFound {"gone", 3, []}.
 *   auto::interface (C keywords and macros as names): attribute starts
 *   5, oneway(n) adds n to it; sizeof is "sz" until Bool(TRUE, FALSE,
 *   'b'), then "bool-ok"; return(if, inout in, out out) raises inline
 *   { if, "null" } for a negative if, else adds if to in.break, sets
 *   in.errno to "set", out to { 2: else "else" } and returns 2 if;
 *   typedef(EOF, inout stdin, out long) returns EOF, steps stdin to the
 *   next enumerator (cyclic) and sets long to EOF's length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cdr/any.h>
#include "zoo.h"
#include "pragmas.h"
#include "ckw.h"
#define PEER_NAME "zoo-peer"
#include "../idl/peer.h"

static PortableServer_POA root;

/* a fixed<9,2> from its text ("-12.50") */
static Zoo_Money money(const char *s)
{
  Zoo_Money m;
  memset(&m, 0, sizeof m);
  if (cdr_fixed_from_string(s, strlen(s), 9, 2, &m) != CDR_OK)
    exit(1);
  return m;
}

/* a fixed<9,2> as hundredths */
static long cents(const Zoo_Money *m)
{
  long v = 0;
  for (int i = 0; i < m->digits; i++)
    v = v * 10 + m->d[i];
  for (int i = m->scale; i < 2; i++)
    v *= 10;
  return m->negative ? -v : v;
}

/* a sequence of N strings (any sequence of a string type: Zoo_Common_Tags
 * is a CORBA_sequence_Zoo_Common_Tag, of the same layout) */
static void strs(void *seq, int n, const char *const *v)
{
  CORBA_sequence_CORBA_string *s = seq;
  s->_buffer = CORBA_sequence_CORBA_string_allocbuf((CORBA_unsigned_long)n);
  s->_maximum = s->_length = (CORBA_unsigned_long)n;
  s->_release = CORBA_TRUE;
  for (int i = 0; i < n; i++)
    s->_buffer[i] = CORBA_string_dup(v[i]);
}

static void longs(CORBA_sequence_CORBA_long *s, int n, const CORBA_long *v)
{
  s->_buffer = CORBA_sequence_CORBA_long_allocbuf((CORBA_unsigned_long)n);
  s->_maximum = s->_length = (CORBA_unsigned_long)n;
  s->_release = CORBA_TRUE;
  for (int i = 0; i < n; i++)
    s->_buffer[i] = v[i];
}

/* the house: { label, [[d,d+1,d+2],[d+3,d+4,d+5]], [k0,k1], [], cost } */
static void cage(Zoo_Cage *c, const char *label, CORBA_long d, const char *k0, const char *k1,
                 const char *cost)
{
  memset(c, 0, sizeof *c);
  c->label = CORBA_string_dup(label);
  for (int i = 0; i < 6; i++)
    c->dims[i / 3][i % 3] = d + i;
  c->keepers[0] = CORBA_string_dup(k0);
  c->keepers[1] = CORBA_string_dup(k1);
  c->cost = money(cost);
}

/* ---------------------------------------------------------------- server */

typedef struct AnimalServant {
  POA_Zoo_Animal servant;
  CORBA_char *name;
  Zoo_Common_Tags labels;
  Zoo_Animal_Info info;
} AnimalServant;

typedef struct Keeper {
  POA_Zoo_Keeper servant;
  Zoo_Common_Tags labels;
  Zoo_Herd animals;
  Zoo_Cage house;
  Zoo_Expr formula;
  CORBA_any stash;
  Zoo_Row grid;
  Zoo_Fee charge;
  CORBA_char *badge;
  Zoo_Animal_Infos infos;
  CORBA_long notes;
} Keeper;
static Keeper kp;

static CORBA_string s_name(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup("keeper");
}

static Zoo_Common_Tags *s_get_labels(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return dupv(TC_Zoo_Common_Tags, &kp.labels);
}

static void s_set_labels(PortableServer_Servant s, const Zoo_Common_Tags *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  corbaorb_free_contents(TC_Zoo_Common_Tags, &kp.labels);
  corbaorb_copy(TC_Zoo_Common_Tags, &kp.labels, v);
}

static CORBA_long s_tickets(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return 12; }
static Zoo_Kind s_speciality(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return Zoo_REPTILE; }

#define GETSET(name, T, field)                                                  \
  static T *s_get_##name(PortableServer_Servant s, CORBA_Environment *ev)       \
  {                                                                             \
    (void)s; (void)ev;                                                          \
    return dupv(TC_##T, &kp.field);                                             \
  }                                                                             \
  static void s_set_##name(PortableServer_Servant s, const T *v, CORBA_Environment *ev) \
  {                                                                             \
    (void)s; (void)ev;                                                          \
    corbaorb_free_contents(TC_##T, &kp.field);                                  \
    corbaorb_copy(TC_##T, &kp.field, v);                                        \
  }
GETSET(house, Zoo_Cage, house)
GETSET(formula, Zoo_Expr, formula)
GETSET(stash, Zoo_Blob, stash)

static Zoo_Herd *s_get_animals(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return dupv(TC_Zoo_Herd, &kp.animals);
}

static Zoo_Animal_Infos *s_get_infos(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return dupv(TC_Zoo_Animal_Infos, &kp.infos);
}

static Zoo_Row_slice *s_get_grid(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return dupv(TC_Zoo_Row, kp.grid);
}

static void s_set_grid(PortableServer_Servant s, const Zoo_Row v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  corbaorb_free_contents(TC_Zoo_Row, kp.grid);
  corbaorb_copy(TC_Zoo_Row, kp.grid, v);
}

static Zoo_Fee s_get_charge(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return kp.charge; }
static void s_set_charge(PortableServer_Servant s, const Zoo_Fee *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  kp.charge = *v;
}

static Zoo_Common_Tag s_get_badge(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(kp.badge);
}

static void s_set_badge(PortableServer_Servant s, const CORBA_char *v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_free(kp.badge);
  kp.badge = CORBA_string_dup(v);
}

static void s_note(PortableServer_Servant s, const Zoo_Cage *c, const Zoo_Common_Tags *t,
                   const CORBA_any *a, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  kp.notes += c->dims[1][2] + (CORBA_long)t->_length;
  if (a->_type && cdr_tc_equal(a->_type, TC_CORBA_long))
    kp.notes += *(const CORBA_long *)a->_value;
}

static CORBA_long s_notes(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return kp.notes; }

#define ROT(fn, T)                                                                    \
  static T *fn(PortableServer_Servant s, const T *a, T *b, T **c, CORBA_Environment *ev) \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    return rotate(TC_##T, a, b, (void **)c);                                          \
  }
ROT(s_cage, Zoo_Cage)
ROT(s_cages, Zoo_Cages)
ROT(s_expr, Zoo_Expr)
ROT(s_ll, Zoo_ByLL)
ROT(s_ul, Zoo_ByUL)
ROT(s_us, Zoo_ByUS)
ROT(s_kind, Zoo_ByKind)
ROT(s_digests, Zoo_Digests)
ROT(s_bools, Zoo_Bools)
ROT(s_chars, Zoo_Chars)
ROT(s_when, Zoo_When)
ROT(s_herd, Zoo_Herd)
ROT(s_any, CORBA_any)

#define ROTA(fn, T)                                                                   \
  static T##_slice *fn(PortableServer_Servant s, const T a, T b, T##_slice **c,      \
                       CORBA_Environment *ev)                                         \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    return rotate(TC_##T, a, b, (void **)c);                                          \
  }
ROTA(s_row, Zoo_Row)
ROTA(s_kinds3, Zoo_Kinds3)
ROTA(s_pets, Zoo_Pets)

/* fixed-length: out in the caller's storage, the result by value */
#define ROTF(fn, T)                                                                   \
  static T fn(PortableServer_Servant s, const T *a, T *b, T *c, CORBA_Environment *ev) \
  {                                                                                   \
    (void)s; (void)ev;                                                                \
    *c = *b;                                                                          \
    *b = *a;                                                                          \
    return *a;                                                                        \
  }
ROTF(s_flag, Zoo_Flag)
ROTF(s_fee, Zoo_Fee)
ROTF(s_info, Zoo_Animal_Info)

static Zoo_Common_Tag s_tag(PortableServer_Servant s, const CORBA_char *a, Zoo_Common_Tag *b,
                            Zoo_Common_Tag *c, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *c = *b;
  *b = CORBA_string_dup(a);
  return CORBA_string_dup(a);
}

static CORBA_TypeCode s_tc(PortableServer_Servant s, CORBA_TypeCode a, CORBA_TypeCode *b,
                           CORBA_TypeCode *c, CORBA_Environment *ev)
{
  (void)s;
  *c = *b;
  *b = (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)a, ev);
  return (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)a, ev);
}

static CORBA_Object s_obj(PortableServer_Servant s, CORBA_Object a, CORBA_Object *b,
                          CORBA_Object *c, CORBA_Environment *ev)
{
  (void)s;
  *c = *b;
  *b = CORBA_Object_duplicate(a, ev);
  return CORBA_Object_duplicate(a, ev);
}

/* Animal */
static CORBA_string a_name(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return CORBA_string_dup(((AnimalServant *)s)->name);
}

static Zoo_Common_Tags *a_get_labels(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return dupv(TC_Zoo_Common_Tags, &((AnimalServant *)s)->labels);
}

static void a_set_labels(PortableServer_Servant s, const Zoo_Common_Tags *v, CORBA_Environment *ev)
{
  (void)ev;
  AnimalServant *a = (AnimalServant *)s;
  corbaorb_free_contents(TC_Zoo_Common_Tags, &a->labels);
  corbaorb_copy(TC_Zoo_Common_Tags, &a->labels, v);
}

static Zoo_Animal_Info a_about(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return ((AnimalServant *)s)->info;
}

static Zoo_Animal_Mood a_get_feeling(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)ev;
  return ((AnimalServant *)s)->info.temper;
}

static void a_set_feeling(PortableServer_Servant s, Zoo_Animal_Mood m, CORBA_Environment *ev)
{
  (void)ev;
  ((AnimalServant *)s)->info.temper = m;
}

static Zoo_Animal_Info a_feed(PortableServer_Servant s, const Zoo_Money *g, CORBA_Environment *ev)
{
  AnimalServant *a = (AnimalServant *)s;
  Zoo_Animal_Info none;
  memset(&none, 0, sizeof none);
  if (cents(g) > 100000) {
    Zoo_Animal_Sick *e = Zoo_Animal_Sick__alloc();
    e->temper = Zoo_Animal_ANGRY;
    e->why = CORBA_string_dup("too much");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Animal_Sick, e);
    return none;
  }
  char buf[40];
  long w = cents(&a->info.weight) + cents(g);
  snprintf(buf, sizeof buf, "%ld.%02ld", w / 100, w % 100);
  a->info.weight = money(buf);
  return a->info;
}

static PortableServer_ServantBase__epv base_epv = { NULL, NULL, NULL };
static POA_Zoo_Common_Named__epv named_epv = { NULL, s_name, s_get_labels, s_set_labels };
static POA_Zoo_People_Visitor__epv visitor_epv = { NULL, s_tickets };
static POA_Zoo_People_Worker__epv worker_epv = { NULL, s_speciality };

static Zoo_Animal s_adopt(PortableServer_Servant s, const CORBA_char *name, Zoo_Kind k,
                          CORBA_Environment *ev);
static Zoo_Kind s_kind_of(PortableServer_Servant s, Zoo_Animal a, CORBA_Environment *ev);
static void s_find(PortableServer_Servant s, const CORBA_char *what, CORBA_Environment *ev);
static void s_shutdown(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s;
  CORBA_ORB_shutdown(orb, CORBA_FALSE, ev);
}

static POA_Zoo_Keeper__epv keeper_epv = {
  ._private = NULL,
  ._get_animals = s_get_animals, ._get_house = s_get_house, ._set_house = s_set_house,
  ._get_formula = s_get_formula, ._set_formula = s_set_formula, ._get_stash = s_get_stash,
  ._set_stash = s_set_stash, ._get_grid = s_get_grid, ._set_grid = s_set_grid,
  ._get_charge = s_get_charge, ._set_charge = s_set_charge, ._get_badge = s_get_badge,
  ._set_badge = s_set_badge, ._get_infos = s_get_infos, .note = s_note, .notes = s_notes,
  .op_cage = s_cage, .op_cages = s_cages, .op_expr = s_expr, .op_ll = s_ll, .op_ul = s_ul,
  .op_us = s_us, .op_kind = s_kind, .op_flag = s_flag, .op_row = s_row,
  .op_kinds3 = s_kinds3, .op_pets = s_pets, .op_digests = s_digests, .op_bools = s_bools,
  .op_chars = s_chars, .op_fee = s_fee, .op_tag = s_tag, .op_when = s_when,
  .op_any = s_any, .op_tc = s_tc, .op_obj = s_obj, .op_herd = s_herd, .op_info = s_info,
  .adopt = s_adopt, .kind_of = s_kind_of, .find = s_find, .shutdown = s_shutdown,
};
static POA_Zoo_Keeper__vepv keeper_vepv = { &base_epv, &named_epv, &visitor_epv, &worker_epv,
                                            &keeper_epv };

static void animal_finalize(PortableServer_Servant s, CORBA_Environment *ev)
{
  AnimalServant *a = (AnimalServant *)s;
  POA_Zoo_Animal__fini(s, ev);
  CORBA_free(a->name);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &a->labels);
  free(a);
}

static PortableServer_ServantBase__epv animal_base_epv = { NULL, animal_finalize, NULL };
static POA_Zoo_Common_Named__epv animal_named_epv = { NULL, a_name, a_get_labels, a_set_labels };
static POA_Zoo_Animal__epv animal_epv = { NULL, a_about, a_get_feeling, a_set_feeling, a_feed };
static POA_Zoo_Animal__vepv animal_vepv = { &animal_base_epv, &animal_named_epv, &animal_epv };

static Zoo_Animal new_animal(const char *name, Zoo_Kind k, CORBA_Environment *ev)
{
  AnimalServant *a = calloc(1, sizeof *a);
  if (!a)
    exit(1);
  a->servant.vepv = &animal_vepv;
  a->name = CORBA_string_dup(name);
  a->info.sort = k;
  a->info.temper = Zoo_Animal_CALM;
  a->info.weight = money("1.00");
  POA_Zoo_Animal__init(a, ev);
  check(ev, "Animal init");
  Zoo_Animal r = PortableServer_POA_servant_to_reference(root, a, ev);
  check(ev, "Animal reference");
  return r;
}

static Zoo_Animal s_adopt(PortableServer_Servant s, const CORBA_char *name, Zoo_Kind k,
                          CORBA_Environment *ev)
{
  (void)s;
  return new_animal(name, k, ev);
}

static Zoo_Kind s_kind_of(PortableServer_Servant s, Zoo_Animal a, CORBA_Environment *ev)
{
  (void)s;
  Zoo_Animal_Info i = Zoo_Animal__get_about(a, ev);
  return i.sort;
}

static void s_find(PortableServer_Servant s, const CORBA_char *what, CORBA_Environment *ev)
{
  (void)s;
  if (strcmp(what, "nf") == 0) {
    Zoo_Common_NotFound *e = Zoo_Common_NotFound__alloc();
    e->what = CORBA_string_dup("nf");
    e->code = 404;
    strs(&e->near, 2, (const char *const[]){ "x", "y" });
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Common_NotFound, e);
  } else if (strcmp(what, "esc") == 0) {
    Zoo_Escaped *e = Zoo_Escaped__alloc();
    corbaorb_copy(TC_Zoo_Cage, &e->from, &kp.house);
    e->what = Zoo_FISH;
    e->bounty = money("100.25");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Escaped, e);
  } else if (strcmp(what, "closed") == 0) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Closed, NULL);
  } else if (strcmp(what, "sick") == 0) {
    Zoo_Animal_Sick *e = Zoo_Animal_Sick__alloc();
    e->temper = Zoo_Animal_ANGRY;
    e->why = CORBA_string_dup("flu");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Animal_Sick, e);
  }
}

/* Probe */
static CORBA_any *p_give(PortableServer_Servant s, CORBA_long which, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  CORBA_any *a = CORBA_any__alloc();
  Prag_Plain plain = { 5 };
  Prag_Inner_Deep deep = { "deep" };
  Prag_Inner_Bare_Naked naked = { Prag_Inner_Bare_HIGH };
  Prag_Inner_Bare_Level level = Prag_Inner_Bare_LOW;
  Zoo_When when = { 123456789012ULL, "stamper" };
  CORBA_any v = { ._release = CORBA_FALSE };
  switch (which) {
  case 1: v._type = TC_Prag_Plain; v._value = &plain; break;
  case 2: v._type = TC_Prag_Inner_Deep; v._value = &deep; break;
  case 3: v._type = TC_Prag_Inner_Bare_Naked; v._value = &naked; break;
  case 4: v._type = TC_Prag_Inner_Bare_Level; v._value = &level; break;
  default: v._type = TC_Zoo_When; v._value = &when; break;
  }
  CORBA_any__copy(a, &v);
  return a;
}

static void p_raise(PortableServer_Servant s, CORBA_long which, CORBA_Environment *ev)
{
  (void)s;
  if (which == 1) {
    Prag_Inner_Bad *e = Prag_Inner_Bad__alloc();
    e->why = 1;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Prag_Inner_Bad, e);
  } else if (which == 2) {
    Prag_Odd *e = Prag_Odd__alloc();
    e->what = CORBA_string_dup("odd");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Prag_Odd, e);
  } else if (which == 3) {
    Zoo_Common_NotFound *e = Zoo_Common_NotFound__alloc();
    e->what = CORBA_string_dup("gone");
    e->code = 3;
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_Zoo_Common_NotFound, e);
  }
}

static POA_Prag_Probe__epv probe_epv = { NULL, p_give, p_raise };
static POA_Prag_Probe__vepv probe_vepv = { &base_epv, &probe_epv };
static POA_Prag_Probe probe = { NULL, &probe_vepv };

/* auto::interface */
static CORBA_long kw_attr = 5;
static int kw_bool_ok;

static CORBA_long k_get_attr(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; return kw_attr; }
static void k_set_attr(PortableServer_Servant s, CORBA_long v, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  kw_attr = v;
}

static CORBA_string k_sizeof(PortableServer_Servant s, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  return CORBA_string_dup(kw_bool_ok ? "bool-ok" : "sz");
}

static auto_int k_return(PortableServer_Servant s, auto_int _if, auto_register *in,
                         auto_switch **out, CORBA_Environment *ev)
{
  (void)s;
  if (_if < 0) {
    auto_inline *e = auto_inline__alloc();
    e->_restrict = _if;
    e->_NULL = CORBA_string_dup("null");
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_auto_inline, e);
    return 0;
  }
  in->_break += _if;
  CORBA_free(in->_errno);
  in->_errno = CORBA_string_dup("set");
  *out = auto_switch__alloc();
  (*out)->_d = 2;
  (*out)->_u._else = CORBA_string_dup("else");
  return 2 * _if;
}

static auto_while *k_typedef(PortableServer_Servant s, const auto_while *_EOF, auto_signed *_stdin,
                             CORBA_long_long *_long, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  *_stdin = (auto_signed)((*_stdin + 1) % 3);
  *_long = _EOF->_length;
  return dupv(TC_auto_while, _EOF);
}

static void k_bool(PortableServer_Servant s, CORBA_boolean t, CORBA_boolean f, CORBA_char b,
                   CORBA_Environment *ev)
{
  (void)s; (void)ev;
  kw_bool_ok = t == CORBA_TRUE && f == CORBA_FALSE && b == 'b';
}

static void k_oneway(PortableServer_Servant s, CORBA_long n, CORBA_Environment *ev)
{
  (void)s; (void)ev;
  kw_attr += n;
}

static void k_shutdown(PortableServer_Servant s, CORBA_Environment *ev) { (void)s; (void)ev; }

static POA_auto_interface__epv kw_epv = {
  ._private = NULL, ._get_attribute = k_get_attr, ._set_attribute = k_set_attr,
  ._get_sizeof = k_sizeof, ._return = k_return, ._typedef = k_typedef, .Bool = k_bool,
  .oneway = k_oneway, .shutdown = k_shutdown,
};
static POA_auto_interface__vepv kw_vepv = { &base_epv, &kw_epv };
static POA_auto_interface kw = { NULL, &kw_vepv };

static int server(void)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  root = (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "RootPOA", &ev);
  check(&ev, "RootPOA");
  strs(&kp.labels, 2, (const char *const[]){ "a", "b" });
  kp.animals._buffer = Zoo_Herd_allocbuf(2);
  kp.animals._maximum = kp.animals._length = 2;
  kp.animals._release = CORBA_TRUE;
  kp.animals._buffer[0] = new_animal("leo", Zoo_MAMMAL, &ev);
  kp.animals._buffer[1] = new_animal("tweety", Zoo_BIRD, &ev);
  cage(&kp.house, "home", 1, "ann", "bob", "1.50");
  kp.formula._d = 0;
  kp.formula._u.num = 42;
  CORBA_long seven = 7;
  CORBA_any a7 = { ._type = TC_CORBA_long, ._value = &seven, ._release = CORBA_FALSE };
  CORBA_any__copy(&kp.stash, &a7);
  longs(&kp.grid[0][0], 1, (const CORBA_long[]){ 1 });
  longs(&kp.grid[1][0], 2, (const CORBA_long[]){ 2, 3 });
  longs(&kp.grid[1][1], 1, (const CORBA_long[]){ 4 });
  kp.charge = money("9.99");
  kp.badge = CORBA_string_dup("chief");
  kp.infos._buffer = Zoo_Animal_Infos_allocbuf(2);
  kp.infos._maximum = kp.infos._length = 2;
  kp.infos._release = CORBA_TRUE;
  kp.infos._buffer[0] = (Zoo_Animal_Info){ Zoo_MAMMAL, Zoo_Animal_CALM, money("190.00") };
  kp.infos._buffer[1] = (Zoo_Animal_Info){ Zoo_BIRD, Zoo_Animal_ANGRY, money("0.25") };

  kp.servant.vepv = &keeper_vepv;
  POA_Zoo_Keeper__init(&kp, &ev);
  POA_Prag_Probe__init(&probe, &ev);
  POA_auto_interface__init(&kw, &ev);
  check(&ev, "init");
  CORBA_Object k = PortableServer_POA_servant_to_reference(root, &kp, &ev);
  CORBA_Object p = PortableServer_POA_servant_to_reference(root, &probe, &ev);
  CORBA_Object w = PortableServer_POA_servant_to_reference(root, &kw, &ev);
  check(&ev, "servant_to_reference");
  print_ref(k, &ev);
  print_ref(p, &ev);
  print_ref(w, &ev);
  peer_run(root, &ev);
  CORBA_Object_release(k, &ev);
  CORBA_Object_release(p, &ev);
  CORBA_Object_release(w, &ev);
  corbaorb_free_contents(TC_Zoo_Herd, &kp.animals);
  CORBA_ORB_destroy(orb, &ev);
  POA_Zoo_Keeper__fini(&kp, &ev);
  POA_Prag_Probe__fini(&probe, &ev);
  POA_auto_interface__fini(&kw, &ev);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &kp.labels);
  corbaorb_free_contents(TC_Zoo_Cage, &kp.house);
  corbaorb_free_contents(TC_Zoo_Expr, &kp.formula);
  corbaorb_free_contents(TC_CORBA_any, &kp.stash);
  corbaorb_free_contents(TC_Zoo_Row, kp.grid);
  corbaorb_free_contents(TC_Zoo_Animal_Infos, &kp.infos);
  CORBA_free(kp.badge);
  return 0;
}

/* ---------------------------------------------------------------- client */

static int streq(const char *a, const char *b)
{
  return a && b && strcmp(a, b) == 0;
}

/* op(a, inout copy of B, out c) on a variable-length T; A and B stay the caller's */
#define ROTCALL(fn, T, A, B, what)                                   \
  do {                                                               \
    T b2_, *c_ = NULL;                                               \
    corbaorb_copy(TC_##T, &b2_, (B));                                \
    T *r_ = fn(k, (A), &b2_, &c_, &ev);                              \
    if (no_ex(&ev, what))                                            \
      rot_check(TC_##T, what, (A), &b2_, (B), r_, c_);               \
    else                                                             \
      corbaorb_free_contents(TC_##T, &b2_);                          \
  } while (0)

/* the same for a variable-length array */
#define ROTARR(fn, T, A, B, what)                                    \
  do {                                                               \
    T b2_;                                                           \
    T##_slice *c_ = NULL;                                            \
    corbaorb_copy(TC_##T, b2_, (B));                                 \
    T##_slice *r_ = fn(k, (A), b2_, &c_, &ev);                       \
    if (no_ex(&ev, what))                                            \
      rot_check(TC_##T, what, (A), b2_, (B), r_, c_);                \
    else                                                             \
      corbaorb_free_contents(TC_##T, b2_);                           \
  } while (0)

static const char *animal_name(Zoo_Animal a, CORBA_Environment *ev)
{
  static char buf[64];
  if (CORBA_Object_is_nil(a, ev))
    return "(nil)";
  CORBA_string n = Zoo_Animal__get_name(a, ev);
  if (ev->_major != CORBA_NO_EXCEPTION) {
    CORBA_exception_free(ev);
    return "(error)";
  }
  snprintf(buf, sizeof buf, "%s", n);
  CORBA_free(n);
  return buf;
}

static int names_are(const Zoo_Animal *v, CORBA_unsigned_long n, const char *const *want,
                     CORBA_Environment *ev)
{
  for (CORBA_unsigned_long i = 0; i < n; i++)
    if (strcmp(animal_name(v[i], ev), want[i]) != 0)
      return 0;
  return 1;
}

static void client_keeper(Zoo_Keeper k, CORBA_Environment *ev_)
{
  CORBA_Environment ev = *ev_;
  char m[200];

  /* the diamond across modules and files: Named's through every name */
  CORBA_string n1 = Zoo_Keeper__get_name(k, &ev), n2 = Zoo_Common_Named__get_name(k, &ev),
               n3 = Zoo_People_Visitor__get_name(k, &ev), n4 = Zoo_People_Worker__get_name(k, &ev);
  ok(no_ex(&ev, "name") && streq(n1, "keeper") && streq(n2, "keeper") && streq(n3, "keeper") &&
     streq(n4, "keeper"), "name through Keeper, Common::Named, Visitor, Worker");
  CORBA_free(n1); CORBA_free(n2); CORBA_free(n3); CORBA_free(n4);
  ok(Zoo_Keeper_tickets(k, &ev) == 12 && Zoo_People_Visitor_tickets(k, &ev) == 12 &&
     Zoo_Keeper_speciality(k, &ev) == Zoo_REPTILE && no_ex(&ev, "tickets"),
     "tickets 12, speciality REPTILE");
  static const char *const ids[] = {
    "IDL:zoo.example/Zoo/Keeper:1.7", "IDL:zoo.example/Zoo/People/Visitor:1.0",
    "IDL:zoo.example/Zoo/People/Worker:1.0", "IDL:base.zoo/Zoo/Common/Named:1.0" };
  int isa = 1;
  for (int i = 0; i < 4; i++)
    isa &= CORBA_Object_is_a(k, ids[i], &ev) == CORBA_TRUE;
  ok(isa && !CORBA_Object_is_a(k, "IDL:zoo.example/Zoo/Animal:1.0", &ev) && no_ex(&ev, "is_a"),
     "_is_a Keeper:1.7, Visitor, Worker, Named (the included file's prefix), not Animal");

  /* attributes */
  Zoo_Common_Tags *tg = Zoo_Keeper__get_labels(k, &ev);
  ok(no_ex(&ev, "labels") && tg && tg->_length == 2 && streq(tg->_buffer[0], "a") &&
     streq(tg->_buffer[1], "b"), "labels [a, b] (bounded sequence of bounded strings)");
  CORBA_free(tg);
  Zoo_Common_Tags nt = { 0, 0, NULL, CORBA_FALSE };
  strs(&nt, 4, (const char *const[]){ "w", "x", "y", "sixteen-chars-ok" });
  Zoo_Keeper__set_labels(k, &nt, &ev);
  tg = Zoo_Keeper__get_labels(k, &ev);
  ok(no_ex(&ev, "labels") && tg && eq(TC_Zoo_Common_Tags, tg, &nt), "labels set to 4 at the bounds");
  CORBA_free(tg);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &nt);
  strs(&nt, 5, (const char *const[]){ "1", "2", "3", "4", "5" });
  Zoo_Keeper__set_labels(k, &nt, &ev);
  ok(ev._major == CORBA_SYSTEM_EXCEPTION && streq(CORBA_exception_id(&ev), "IDL:omg.org/CORBA/MARSHAL:1.0"),
     "labels of 5 (bound 4): MARSHAL");
  CORBA_exception_free(&ev);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &nt);

  Zoo_Herd *herd = Zoo_Keeper__get_animals(k, &ev);
  ok(no_ex(&ev, "animals") && herd && herd->_length == 2 &&
     names_are(herd->_buffer, 2, (const char *const[]){ "leo", "tweety" }, &ev),
     "animals: references to leo and tweety");

  Zoo_Cage home;
  cage(&home, "home", 1, "ann", "bob", "1.50");
  Zoo_Cage *h = Zoo_Keeper__get_house(k, &ev);
  ok(no_ex(&ev, "house") && h && eq(TC_Zoo_Cage, h, &home), "house as set by the server");
  CORBA_free(h);
  Zoo_Cage c2;
  cage(&c2, "barn", 10, "cy", "", "-0.01");
  c2.inner._buffer = Zoo_Cages_allocbuf(1);
  c2.inner._maximum = c2.inner._length = 1;
  c2.inner._release = CORBA_TRUE;
  cage(&c2.inner._buffer[0], "stall", 20, "dee", "eve", "1234567.89");
  Zoo_Keeper__set_house(k, &c2, &ev);
  h = Zoo_Keeper__get_house(k, &ev);
  ok(no_ex(&ev, "house") && h && eq(TC_Zoo_Cage, h, &c2) && h->inner._length == 1 &&
     h->inner._buffer[0].dims[1][2] == 25 && cents(&h->inner._buffer[0].cost) == 123456789,
     "house set to a cage holding a cage");
  CORBA_free(h);
  CORBA_free(c2.label);
  c2.label = CORBA_string_dup("ninechars");
  Zoo_Keeper__set_house(k, &c2, &ev);
  ok(ev._major == CORBA_SYSTEM_EXCEPTION && streq(CORBA_exception_id(&ev), "IDL:omg.org/CORBA/MARSHAL:1.0"),
     "a label of 9 (string<8>): MARSHAL");
  CORBA_exception_free(&ev);
  CORBA_free(c2.label);
  c2.label = CORBA_string_dup("barn");

  Zoo_Expr *f = Zoo_Keeper__get_formula(k, &ev);
  ok(no_ex(&ev, "formula") && f && f->_d == 0 && f->_u.num == 42, "formula {0: num 42}");
  CORBA_free(f);
  Zoo_Expr leaf[2] = { { ._d = 0 }, { ._d = 3 } };
  leaf[0]._u.num = -9000000000LL;
  leaf[1]._u.name = "x";
  Zoo_Expr mid = { ._d = 2 };
  mid._u.args = (Zoo_Exprs){ 2, 2, leaf, CORBA_FALSE };
  Zoo_Expr top = { ._d = 1 };
  top._u.args = (Zoo_Exprs){ 1, 1, &mid, CORBA_FALSE };
  Zoo_Keeper__set_formula(k, &top, &ev);
  f = Zoo_Keeper__get_formula(k, &ev);
  ok(no_ex(&ev, "formula") && f && eq(TC_Zoo_Expr, f, &top) && f->_u.args._buffer[0]._d == 2 &&
     f->_u.args._buffer[0]._u.args._buffer[0]._u.num == -9000000000LL,
     "formula set to {1: [{2: [num -9000000000, name x]}]} (recursive union)");
  CORBA_free(f);

  CORBA_any *st = Zoo_Keeper__get_stash(k, &ev);
  ok(no_ex(&ev, "stash") && st && st->_type && cdr_tc_equal(st->_type, TC_CORBA_long) &&
     *(CORBA_long *)st->_value == 7, "stash: an any of long 7");
  CORBA_free(st);
  CORBA_any sa = { ._type = TC_Zoo_Expr, ._value = &top, ._release = CORBA_FALSE };
  Zoo_Keeper__set_stash(k, &sa, &ev);
  st = Zoo_Keeper__get_stash(k, &ev);
  ok(no_ex(&ev, "stash") && st && st->_type && cdr_tc_equal(st->_type, TC_Zoo_Expr) &&
     eq(TC_Zoo_Expr, st->_value, &top), "stash set to an any of the recursive union");
  CORBA_free(st);

  Zoo_Row want;
  memset(want, 0, sizeof want);
  longs(&want[0][0], 1, (const CORBA_long[]){ 1 });
  longs(&want[1][0], 2, (const CORBA_long[]){ 2, 3 });
  longs(&want[1][1], 1, (const CORBA_long[]){ 4 });
  Zoo_Row_slice *g = Zoo_Keeper__get_grid(k, &ev);
  ok(no_ex(&ev, "grid") && g && eq(TC_Zoo_Row, g, want), "grid [[[1],[]],[[2,3],[4]]]");
  CORBA_free(g);
  Zoo_Row ng;
  memset(ng, 0, sizeof ng);
  longs(&ng[0][1], 3, (const CORBA_long[]){ -1, 0, 2147483647 });
  Zoo_Keeper__set_grid(k, ng, &ev);
  g = Zoo_Keeper__get_grid(k, &ev);
  ok(no_ex(&ev, "grid") && g && eq(TC_Zoo_Row, g, ng), "grid set");
  CORBA_free(g);

  Zoo_Fee fee = Zoo_Keeper__get_charge(k, &ev);
  ok(no_ex(&ev, "charge") && cents(&fee) == 999 && fee.digits == 9 && fee.scale == 2,
     "charge 9.99 (fixed<9,2> through a typedef chain)");
  fee = money("-9999999.99");
  Zoo_Keeper__set_charge(k, &fee, &ev);
  fee = Zoo_Keeper__get_charge(k, &ev);
  ok(no_ex(&ev, "charge") && cents(&fee) == -999999999, "charge set to -9999999.99");

  Zoo_Common_Tag b = Zoo_Keeper__get_badge(k, &ev);
  ok(no_ex(&ev, "badge") && streq(b, "chief"), "badge \"chief\"");
  CORBA_free(b);
  Zoo_Keeper__set_badge(k, "deputy", &ev);
  b = Zoo_Keeper__get_badge(k, &ev);
  ok(no_ex(&ev, "badge") && streq(b, "deputy"), "badge set to \"deputy\"");
  CORBA_free(b);

  Zoo_Animal_Infos *inf = Zoo_Keeper__get_infos(k, &ev);
  ok(no_ex(&ev, "infos") && inf && inf->_length == 2 && inf->_buffer[0].sort == Zoo_MAMMAL &&
     inf->_buffer[0].temper == Zoo_Animal_CALM && cents(&inf->_buffer[0].weight) == 19000 &&
     inf->_buffer[1].sort == Zoo_BIRD && inf->_buffer[1].temper == Zoo_Animal_ANGRY &&
     cents(&inf->_buffer[1].weight) == 25, "infos (a sequence typedef'd in an interface)");
  CORBA_free(inf);

  /* oneway with variable parameters */
  {
    Zoo_Common_Tags t3 = { 0, 0, NULL, CORBA_FALSE };
    strs(&t3, 3, (const char *const[]){ "x", "y", "z" });
    CORBA_long hundred = 100;
    CORBA_any al = { ._type = TC_CORBA_long, ._value = &hundred, ._release = CORBA_FALSE };
    const char *hi = "hi";
    CORBA_any as = { ._type = TC_CORBA_string, ._value = &hi, ._release = CORBA_FALSE };
    Zoo_Common_Tags t0 = { 0, 0, NULL, CORBA_FALSE };
    Zoo_Keeper_note(k, &home, &t3, &al, &ev);
    Zoo_Keeper_note(k, &home, &t0, &as, &ev);
    no_ex(&ev, "note");
    CORBA_long p = 0;
    for (int i = 0; i < 200 && (p = Zoo_Keeper_notes(k, &ev)) != 115; i++) {
      struct timespec ts = { 0, 20000000 };
      nanosleep(&ts, NULL);
    }
    ok(p == 115 && no_ex(&ev, "notes"), "two oneway notes with a cage, tags and an any: 115");
    corbaorb_free_contents(TC_Zoo_Common_Tags, &t3);
  }

  /* rotations */
  ROTCALL(Zoo_Keeper_op_cage, Zoo_Cage, &c2, &home, "Cage");
  {
    Zoo_Cages a = { 2, 2, NULL, CORBA_FALSE }, bb = { 0, 0, NULL, CORBA_FALSE };
    Zoo_Cage two[2] = { home, c2 };
    a._buffer = two;
    ROTCALL(Zoo_Keeper_op_cages, Zoo_Cages, &a, &bb, "Cages (2) / (empty)");
  }
  {
    Zoo_Expr e0 = { ._d = 0 };
    e0._u.num = 1;
    ROTCALL(Zoo_Keeper_op_expr, Zoo_Expr, &top, &e0, "Expr recursive / {0: 1}");
  }
  {
    Zoo_ByLL a = { ._d = -5000000000LL }, bb = { ._d = 99 };
    a._u.pen = home;
    bb._u.small = "four";
    ROTCALL(Zoo_Keeper_op_ll, Zoo_ByLL, &a, &bb, "ByLL {-5000000000: Cage} / {99: default string<4>}");
    Zoo_ByLL w = { ._d = 7 };
    static CORBA_char *words[] = { "one", "two", "three" };
    w._u.words = (CORBA_sequence_CORBA_string){ 3, 3, words, CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_ll, Zoo_ByLL, &w, &a, "ByLL {7: sequence<string,3>}");
  }
  {
    static CORBA_wchar wv[] = { 'w', 0xFC, 0x20AC, 0 };
    Zoo_ByUL a = { ._d = 4294967295U }, bb = { ._d = 0 }, none = { ._d = 17 };
    a._u.k = Zoo_FISH;
    bb._u.w = wv;
    ROTCALL(Zoo_Keeper_op_ul, Zoo_ByUL, &a, &bb, "ByUL {4294967295: FISH} / {0: wstring}");
    ROTCALL(Zoo_Keeper_op_ul, Zoo_ByUL, &none, &a, "ByUL {17: implicit default, no member}");
  }
  {
    Zoo_ByUS a = { ._d = 1 }, bb = { ._d = 65535 };
    a._u.inner._d = 0;
    static CORBA_wchar wv[] = { 'i', 0 };
    a._u.inner._u.w = wv;
    bb._u.stamp = (Zoo_Common_Stamp){ 18446744073709551615ULL, "max" };
    ROTCALL(Zoo_Keeper_op_us, Zoo_ByUS, &a, &bb, "ByUS {1: union} / {65535: default Stamp}");
  }
  {
    Zoo_ByKind a = { ._d = Zoo_BIRD }, bb = { ._d = Zoo_REPTILE }, cc = { ._d = Zoo_FISH };
    CORBA_long legs[] = { 2, 2 };
    a._u.legs = (CORBA_sequence_CORBA_long){ 2, 2, legs, CORBA_FALSE };
    bb._u.who = herd->_buffer[0];
    cc._u.c = 'f';
    Zoo_ByKind b2, *c_ = NULL;
    corbaorb_copy(TC_Zoo_ByKind, &b2, &bb);
    Zoo_ByKind *r = Zoo_Keeper_op_kind(k, &a, &b2, &c_, &ev);
    ok(no_ex(&ev, "op_kind") && r && c_ && eq(TC_Zoo_ByKind, r, &a) && eq(TC_Zoo_ByKind, &b2, &a) &&
       c_->_d == Zoo_REPTILE && streq(animal_name(c_->_u.who, &ev), "leo"),
       "ByKind {BIRD: legs} / {REPTILE: an Animal reference, called}");
    CORBA_free(r);
    CORBA_free(c_);
    corbaorb_free_contents(TC_Zoo_ByKind, &b2);
    ROTCALL(Zoo_Keeper_op_kind, Zoo_ByKind, &cc, &a, "ByKind {FISH: default char}");
  }
  {
    Zoo_Flag a = { ._d = CORBA_TRUE }, bb = { ._d = CORBA_FALSE }, c = { ._d = CORBA_TRUE };
    a._u.yes = 0.125;
    Zoo_Flag r = Zoo_Keeper_op_flag(k, &a, &bb, &c, &ev);
    ok(no_ex(&ev, "op_flag") && r._d == CORBA_TRUE && r._u.yes == 0.125 && bb._d == CORBA_TRUE &&
       bb._u.yes == 0.125 && c._d == CORBA_FALSE, "Flag (boolean, no FALSE case): fixed-length union");
  }
  ROTARR(Zoo_Keeper_op_row, Zoo_Row, ng, want, "Row (sequence<long>[2][2])");
  {
    Zoo_Kinds3 a, bb;
    memset(a, 0, sizeof a);
    memset(bb, 0, sizeof bb);
    CORBA_long legs[] = { 4, 4, 4, 4 };
    a[0]._d = Zoo_MAMMAL;
    a[0]._u.legs = (CORBA_sequence_CORBA_long){ 4, 4, legs, CORBA_FALSE };
    a[1]._d = Zoo_FISH;
    a[1]._u.c = 'z';
    a[2]._d = Zoo_REPTILE;
    a[2]._u.who = CORBA_OBJECT_NIL;
    for (int i = 0; i < 3; i++) {
      bb[i]._d = Zoo_FISH;
      bb[i]._u.c = (CORBA_char)('a' + i);
    }
    ROTARR(Zoo_Keeper_op_kinds3, Zoo_Kinds3, a, bb, "Kinds3 (ByKind[3], a nil reference)");
  }
  {
    Zoo_Pets a = { herd->_buffer[1], herd->_buffer[0] }, bb = { herd->_buffer[0], CORBA_OBJECT_NIL };
    Zoo_Pets b2;
    Zoo_Pets_slice *c_ = NULL;
    b2[0] = CORBA_Object_duplicate(bb[0], &ev);
    b2[1] = CORBA_OBJECT_NIL;
    Zoo_Pets_slice *r = Zoo_Keeper_op_pets(k, a, b2, &c_, &ev);
    ok(no_ex(&ev, "op_pets") && r && c_ &&
       names_are(r, 2, (const char *const[]){ "tweety", "leo" }, &ev) &&
       names_are(b2, 2, (const char *const[]){ "tweety", "leo" }, &ev) &&
       names_are(c_, 2, (const char *const[]){ "leo", "(nil)" }, &ev),
       "Pets (Animal[2]): result, inout, out references");
    CORBA_free(r);
    CORBA_free(c_);
    corbaorb_free_contents(TC_Zoo_Pets, b2);
  }
  {
    CORBA_octet d0[16], d1[3] = { 0, 255, 7 };
    for (int i = 0; i < 16; i++)
      d0[i] = (CORBA_octet)(i * 17);
    Zoo_Digest ds[2] = { { 16, 16, d0, CORBA_FALSE }, { 3, 3, d1, CORBA_FALSE } };
    Zoo_Digests a = { 2, 2, ds, CORBA_FALSE }, bb = { 1, 1, &ds[1], CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_digests, Zoo_Digests, &a, &bb, "Digests (sequence<octet,16> at its bound)");
    CORBA_octet d17[17] = { 0 };
    Zoo_Digest over = { 17, 17, d17, CORBA_FALSE };
    Zoo_Digests ao = { 1, 1, &over, CORBA_FALSE }, b2, *c_ = NULL;
    corbaorb_copy(TC_Zoo_Digests, &b2, &bb);
    Zoo_Digests *r = Zoo_Keeper_op_digests(k, &ao, &b2, &c_, &ev);
    ok(ev._major == CORBA_SYSTEM_EXCEPTION && !r && streq(CORBA_exception_id(&ev), "IDL:omg.org/CORBA/MARSHAL:1.0") &&
       eq(TC_Zoo_Digests, &b2, &bb), "a Digest of 17: MARSHAL, the inout untouched");
    CORBA_exception_free(&ev);
    corbaorb_free_contents(TC_Zoo_Digests, &b2);
  }
  {
    CORBA_boolean bv[] = { CORBA_TRUE, CORBA_FALSE, CORBA_TRUE };
    Zoo_Bools a = { 3, 3, bv, CORBA_FALSE }, bb = { 0, 0, NULL, CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_bools, Zoo_Bools, &a, &bb, "Bools");
    CORBA_char cv[] = { 'z', '\0', '\n' };
    Zoo_Chars ca = { 3, 3, cv, CORBA_FALSE }, cb = { 1, 1, cv, CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_chars, Zoo_Chars, &ca, &cb, "Chars (a NUL among them)");
  }
  {
    Zoo_Fee a = money("1234567.89"), bb = money("-0.05"), c;
    memset(&c, 0, sizeof c);
    Zoo_Fee r = Zoo_Keeper_op_fee(k, &a, &bb, &c, &ev);
    ok(no_ex(&ev, "op_fee") && cents(&r) == 123456789 && cents(&bb) == 123456789 && cents(&c) == -5,
       "Fee (fixed<9,2>): result, inout, out");
  }
  {
    Zoo_Common_Tag bb = CORBA_string_dup("old"), c = NULL;
    Zoo_Common_Tag r = Zoo_Keeper_op_tag(k, "sixteen-chars-ok", &bb, &c, &ev);
    ok(no_ex(&ev, "op_tag") && streq(r, "sixteen-chars-ok") && streq(bb, "sixteen-chars-ok") &&
       streq(c, "old"), "Tag (string<16> at its bound): result, inout, out");
    CORBA_free(r);
    CORBA_free(c);
    r = Zoo_Keeper_op_tag(k, "seventeen-chars-x", &bb, &c, &ev);
    ok(ev._major == CORBA_SYSTEM_EXCEPTION && !r && streq(bb, "sixteen-chars-ok"),
       "Tag of 17: an exception, the inout untouched");
    CORBA_exception_free(&ev);
    CORBA_free(bb);
  }
  {
    Zoo_When a = { 1, "me" }, bb = { 18446744073709551615ULL, "you" };
    ROTCALL(Zoo_Keeper_op_when, Zoo_When, &a, &bb, "When (a typedef of the included file's struct)");
  }
  {
    /* anys holding user types: a union, an enum, an array, a reference, an exception */
    Zoo_Kind kind = Zoo_FISH;
    CORBA_any ak = { ._type = TC_Zoo_Kind, ._value = &kind, ._release = CORBA_FALSE };
    CORBA_any ar = { ._type = TC_Zoo_Row, ._value = want, ._release = CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_any, CORBA_any, &sa, &ak, "any: the recursive union / an enum");
    ROTCALL(Zoo_Keeper_op_any, CORBA_any, &ar, &sa, "any: an array of sequences");
    Zoo_Animal leo = herd->_buffer[0];
    CORBA_any ao = { ._type = TC_Zoo_Animal, ._value = &leo, ._release = CORBA_FALSE };
    CORBA_any b2, *c_ = NULL;
    corbaorb_copy(TC_CORBA_any, &b2, &ak);
    CORBA_any *r = Zoo_Keeper_op_any(k, &ao, &b2, &c_, &ev);
    ok(no_ex(&ev, "op_any ref") && r && r->_type && cdr_tc_equal(r->_type, TC_Zoo_Animal) &&
       streq(animal_name(*(Zoo_Animal *)r->_value, &ev), "leo") && c_ &&
       eq(TC_CORBA_any, c_, &ak), "any: an Animal reference, called after the round trip");
    CORBA_free(r);
    CORBA_free(c_);
    corbaorb_free_contents(TC_CORBA_any, &b2);
    Zoo_OldNode k2[1] = { { 3, { 0, 0, NULL, CORBA_FALSE } } };
    Zoo_OldNode k1[2] = { { 1, { 0, 0, NULL, CORBA_FALSE } }, { 2, { 1, 1, k2, CORBA_FALSE } } };
    Zoo_OldNode on = { 0, { 2, 2, k1, CORBA_FALSE } };
    CORBA_any an = { ._type = TC_Zoo_OldNode, ._value = &on, ._release = CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_any, CORBA_any, &an, &ak, "any: a struct recursive through an anonymous sequence");
    Zoo_Escaped ex = { home, Zoo_BIRD, money("0.01") };
    CORBA_any ae = { ._type = TC_Zoo_Escaped, ._value = &ex, ._release = CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_any, CORBA_any, &ae, &ak, "any: an exception value");
  }
  {
    CORBA_TypeCode bb = (CORBA_TypeCode)CORBA_Object_duplicate((CORBA_Object)TC_Zoo_Cage, &ev), c = NULL;
    CORBA_TypeCode r = Zoo_Keeper_op_tc(k, TC_Zoo_Expr, &bb, &c, &ev);
    ok(no_ex(&ev, "op_tc") && r && c && cdr_tc_equal(r, TC_Zoo_Expr) && cdr_tc_equal(bb, TC_Zoo_Expr) &&
       cdr_tc_equal(c, TC_Zoo_Cage) && streq(c->repo_id, "IDL:zoo.example/Zoo/Cage:2.0") &&
       CORBA_TypeCode_kind(r, &ev) == CORBA_tk_union, "TypeCode: the recursive union's and Cage's, result, inout, out");
    CORBA_Object_release((CORBA_Object)r, &ev);
    CORBA_Object_release((CORBA_Object)bb, &ev);
    CORBA_Object_release((CORBA_Object)c, &ev);
  }
  {
    CORBA_Object bb = CORBA_Object_duplicate(herd->_buffer[1], &ev), c = CORBA_OBJECT_NIL;
    CORBA_Object r = Zoo_Keeper_op_obj(k, k, &bb, &c, &ev);
    ok(no_ex(&ev, "op_obj") && CORBA_Object_is_a(r, "IDL:zoo.example/Zoo/Keeper:1.7", &ev) &&
       CORBA_Object_is_a(bb, "IDL:zoo.example/Zoo/Keeper:1.7", &ev) &&
       streq(animal_name(c, &ev), "tweety"), "Object: the Keeper itself, an Animal as Object");
    CORBA_Object_release(r, &ev);
    CORBA_Object_release(bb, &ev);
    CORBA_Object_release(c, &ev);
  }
  {
    Zoo_Herd bb = { 0, 0, NULL, CORBA_FALSE };
    ROTCALL(Zoo_Keeper_op_herd, Zoo_Herd, herd, &bb, "Herd (sequence<Animal,8>)");
  }
  {
    Zoo_Animal_Info a = { Zoo_REPTILE, Zoo_Animal_ANGRY, money("0.01") },
                    bb = { Zoo_FISH, Zoo_Animal_CALM, money("-1.00") }, c;
    memset(&c, 0, sizeof c);
    Zoo_Animal_Info r = Zoo_Keeper_op_info(k, &a, &bb, &c, &ev);
    ok(no_ex(&ev, "op_info") && r.sort == Zoo_REPTILE && r.temper == Zoo_Animal_ANGRY &&
       cents(&r.weight) == 1 && bb.sort == Zoo_REPTILE && c.sort == Zoo_FISH && cents(&c.weight) == -100,
       "Animal::Info (a struct scoped in an interface): result, inout, out");
  }

  /* references made by the server, passed back to it, called by it */
  Zoo_Animal nemo = Zoo_Keeper_adopt(k, "nemo", Zoo_FISH, &ev);
  ok(no_ex(&ev, "adopt") && streq(animal_name(nemo, &ev), "nemo"), "adopt(nemo, FISH)");
  ok(Zoo_Keeper_kind_of(k, nemo, &ev) == Zoo_FISH && Zoo_Keeper_kind_of(k, herd->_buffer[1], &ev) == Zoo_BIRD &&
     no_ex(&ev, "kind_of"), "kind_of(nemo) FISH, kind_of(tweety) BIRD (the server calls them)");
  Zoo_Money gr = money("2.50");
  Zoo_Animal_Info ni = Zoo_Animal_feed(nemo, &gr, &ev);
  ok(no_ex(&ev, "feed") && ni.sort == Zoo_FISH && cents(&ni.weight) == 350, "feed(2.50): weight 3.50");
  gr = money("1000.01");
  ni = Zoo_Animal_feed(nemo, &gr, &ev);
  {
    Zoo_Animal_Sick *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), ex_Zoo_Animal_Sick) &&
       streq(ex_Zoo_Animal_Sick, "IDL:zoo.example/Zoo/Animal/Sick:1.0") && e->temper == Zoo_Animal_ANGRY &&
       streq(e->why, "too much") && ni.sort == 0, "feed(1000.01) raises Animal::Sick { ANGRY, \"too much\" }");
    CORBA_exception_free(&ev);
  }
  Zoo_Animal__set_feeling(nemo, Zoo_Animal_ANGRY, &ev);
  ok(Zoo_Animal__get_feeling(nemo, &ev) == Zoo_Animal_ANGRY && no_ex(&ev, "feeling"), "feeling set to ANGRY");
  Zoo_Common_Tags one = { 0, 0, NULL, CORBA_FALSE };
  strs(&one, 1, (const char *const[]){ "wet" });
  Zoo_Common_Named__set_labels(nemo, &one, &ev);
  tg = Zoo_Animal__get_labels(nemo, &ev);
  ok(no_ex(&ev, "nemo labels") && tg && eq(TC_Zoo_Common_Tags, tg, &one), "nemo's labels through Named's and Animal's names");
  CORBA_free(tg);
  corbaorb_free_contents(TC_Zoo_Common_Tags, &one);
  CORBA_Object_release(nemo, &ev);

  /* user exceptions, one operation raising four */
  Zoo_Keeper_find(k, "nf", &ev);
  {
    Zoo_Common_NotFound *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), "IDL:base.zoo/Zoo/Common/NotFound:1.0") && streq(e->what, "nf") &&
       e->code == 404 && e->near._length == 2 && streq(e->near._buffer[1], "y"),
       "find(nf) raises the included file's NotFound { nf, 404, [x, y] }");
    CORBA_exception_free(&ev);
  }
  Zoo_Keeper_find(k, "esc", &ev);
  {
    Zoo_Escaped *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), ex_Zoo_Escaped) && eq(TC_Zoo_Cage, &e->from, &c2) &&
       e->what == Zoo_FISH && cents(&e->bounty) == 10025, "find(esc) raises Escaped { house, FISH, 100.25 }");
    CORBA_exception_free(&ev);
  }
  Zoo_Keeper_find(k, "closed", &ev);
  ok(ev._major == CORBA_USER_EXCEPTION && streq(CORBA_exception_id(&ev), "IDL:zoo.example/Zoo/Closed:1.0"),
     "find(closed) raises Closed {}");
  CORBA_exception_free(&ev);
  Zoo_Keeper_find(k, "sick", &ev);
  {
    Zoo_Animal_Sick *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), ex_Zoo_Animal_Sick) && e->temper == Zoo_Animal_ANGRY &&
       streq(e->why, "flu"), "find(sick) raises Animal::Sick { ANGRY, flu }");
    CORBA_exception_free(&ev);
  }
  Zoo_Keeper_find(k, "ok", &ev);
  ok(no_ex(&ev, "find(ok)"), "find(ok) returns");
  snprintf(m, sizeof m, "checked %d keeper calls", nchecks);
  (void)m;
  CORBA_free(herd);
  corbaorb_free_contents(TC_Zoo_Cage, &home);
  corbaorb_free_contents(TC_Zoo_Cage, &c2);
  corbaorb_free_contents(TC_Zoo_Row, want);
  corbaorb_free_contents(TC_Zoo_Row, ng);
}

static void client_probe(Prag_Probe p, CORBA_Environment *ev_)
{
  CORBA_Environment ev = *ev_;
  ok(CORBA_Object_is_a(p, "IDL:probe.example/Probe:3.1", &ev) && no_ex(&ev, "probe is_a"),
     "_is_a IDL:probe.example/Probe:3.1 (#pragma ID)");
  static const char *const want[] = { NULL, "IDL:outer.example/Prag/Plain:1.0", "LOCAL:deep",
                                      "IDL:Naked:4.0", "IDL:Level:1.0", "IDL:base.zoo/Zoo/When:1.0" };
  for (int i = 1; i <= 5; i++) {
    CORBA_any *a = Prag_Probe_give(p, i, &ev);
    char m[200];
    snprintf(m, sizeof m, "give(%d): an any of %s", i, want[i]);
    int good = no_ex(&ev, m) && a && a->_type;
    if (good) {
      CORBA_TypeCode t = a->_type;
      if (i == 5) {                 /* Zoo::When, an alias of Stamp */
        good = t->kind == CDR_K_ALIAS && streq(t->repo_id, want[i]) &&
               cdr_tc_content_type(t, &t) == CDR_OK;
      }
      switch (i) {
      case 1: good = good && streq(t->repo_id, want[1]) && ((Prag_Plain *)a->_value)->v == 5; break;
      case 2: good = good && streq(t->repo_id, want[2]) && streq(((Prag_Inner_Deep *)a->_value)->s, "deep"); break;
      case 3: good = good && streq(t->repo_id, want[3]) &&
                     ((Prag_Inner_Bare_Naked *)a->_value)->l == Prag_Inner_Bare_HIGH; break;
      case 4: good = good && streq(t->repo_id, want[4]) &&
                     *(Prag_Inner_Bare_Level *)a->_value == Prag_Inner_Bare_LOW; break;
      default: good = good && streq(t->repo_id, "IDL:base.zoo/Zoo/Common/Stamp:1.0") &&
                      ((Zoo_When *)a->_value)->when == 123456789012ULL &&
                      streq(((Zoo_When *)a->_value)->who, "stamper"); break;
      }
    }
    ok(good, m);
    CORBA_free(a);
  }
  Prag_Probe_raise_it(p, 1, &ev);
  {
    Prag_Inner_Bad *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), "IDL:inner.example/Bad:1.0") && e->why == 1,
       "raise_it(1): IDL:inner.example/Bad:1.0 (a prefix set inside a module)");
    CORBA_exception_free(&ev);
  }
  Prag_Probe_raise_it(p, 2, &ev);
  {
    Prag_Odd *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), "IDL:outer.example/Prag/Odd:2.5") && streq(e->what, "odd"),
       "raise_it(2): IDL:outer.example/Prag/Odd:2.5 (#pragma version)");
    CORBA_exception_free(&ev);
  }
  Prag_Probe_raise_it(p, 3, &ev);
  {
    Zoo_Common_NotFound *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), "IDL:base.zoo/Zoo/Common/NotFound:1.0") &&
       streq(e->what, "gone") && e->code == 3 && e->near._length == 0,
       "raise_it(3): the included file's NotFound");
    CORBA_exception_free(&ev);
  }
}

static void client_kw(auto_interface w, CORBA_Environment *ev_)
{
  CORBA_Environment ev = *ev_;
  ok(auto_interface__get_attribute(w, &ev) == 5 && no_ex(&ev, "attribute"), "attribute 5");
  auto_interface__set_attribute(w, 40, &ev);
  auto_interface_oneway(w, 2, &ev);
  CORBA_long v = 0;
  for (int i = 0; i < 200 && (v = auto_interface__get_attribute(w, &ev)) != 42; i++) {
    struct timespec ts = { 0, 20000000 };
    nanosleep(&ts, NULL);
  }
  ok(v == 42 && no_ex(&ev, "attribute"), "attribute set to 40, oneway(2): 42");
  CORBA_string s = auto_interface__get_sizeof(w, &ev);
  ok(no_ex(&ev, "sizeof") && streq(s, "sz"), "sizeof \"sz\"");
  CORBA_free(s);
  auto_interface_Bool(w, CORBA_TRUE, CORBA_FALSE, 'b', &ev);
  s = auto_interface__get_sizeof(w, &ev);
  ok(no_ex(&ev, "Bool") && streq(s, "bool-ok"), "Bool(TRUE, FALSE, 'b'), then sizeof \"bool-ok\"");
  CORBA_free(s);
  auto_register in = { ._break = 1, ._continue = auto_goto, ._unix = 7, ._linux = 8 };
  in._errno = CORBA_string_dup("orig");
  auto_switch *out = NULL;
  auto_int r = auto_interface_return(w, 20, &in, &out, &ev);
  ok(no_ex(&ev, "return") && r == 40 && in._break == 21 && in._continue == auto_goto &&
     streq(in._errno, "set") && in._unix == 7 && in._linux == 8 && out && out->_d == 2 &&
     streq(out->_u._else, "else"), "return(20, inout register, out switch): 40, members named errno, unix, linux");
  CORBA_free(out);
  out = NULL;
  r = auto_interface_return(w, -3, &in, &out, &ev);
  {
    auto_inline *e = ev._major == CORBA_USER_EXCEPTION ? CORBA_exception_value(&ev) : NULL;
    ok(e && streq(CORBA_exception_id(&ev), "IDL:auto/inline:1.0") && e->_restrict == -3 &&
       streq(e->_NULL, "null") && r == 0 && !out && in._break == 21,
       "return(-3) raises inline { restrict -3, NULL \"null\" }, the inout untouched");
    CORBA_exception_free(&ev);
  }
  corbaorb_free_contents(TC_auto_register, &in);
  auto_register regs[2] = { { 1, auto_extern, "e1", 2, 3 }, { 4, auto_volatile, "e2", 5, 6 } };
  auto_while wh = { 2, 2, regs, CORBA_FALSE };
  auto_signed sg = auto_volatile;
  CORBA_long_long len = 0;
  auto_while *rw = auto_interface_typedef(w, &wh, &sg, &len, &ev);
  ok(no_ex(&ev, "typedef") && rw && eq(TC_auto_while, rw, &wh) && sg == auto_extern && len == 2,
     "typedef(while of 2, inout volatile, out long long): the while back, extern, 2");
  CORBA_free(rw);
  ok(streq(TC_auto_register->name, "register") && streq(TC_auto_interface->repo_id, "IDL:auto/interface:1.0"),
     "TypeCodes keep the IDL names (register, interface)");
}

/* the three references KEEPER, PROBE, KW; SHUTDOWN: the keeper's shutdown after */
static int client(char **refs, int shutdown)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  Zoo_Keeper k = CORBA_ORB_string_to_object(orb, refs[0], &ev);
  Prag_Probe p = CORBA_ORB_string_to_object(orb, refs[1], &ev);
  auto_interface w = CORBA_ORB_string_to_object(orb, refs[2], &ev);
  check(&ev, "string_to_object");
  client_keeper(k, &ev);
  client_probe(p, &ev);
  client_kw(w, &ev);
  if (shutdown) {
    Zoo_Keeper_shutdown(k, &ev);
    no_ex(&ev, "shutdown");
  }
  CORBA_Object_release(k, &ev);
  CORBA_Object_release(p, &ev);
  CORBA_Object_release(w, &ev);
  return peer_summary();
}

int main(int argc, char **argv)
{
  return peer_main(argc, argv, server, 3, client, "KEEPER PROBE KW");
}
