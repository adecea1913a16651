/* shop-client.c - checks a Shop::Store (shop.idl) through the C mapping:
 * every operation's exact results, the exceptions, attributes, oneway,
 * inherited operations by the base's and the derived interface's names,
 * object references both ways, _is_a and _non_existent, corbaloc.
 *
 *   shop-client [-ORB options] IOR [--shutdown]
 * Prints "ok N - what" per check, "not ok N - what: detail" on a mismatch;
 * exit status 0 when every check passed.  The Store may be shop-server
 * (C) or omni-shop (omniORB): both behave as shop-server.c says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iiop/ior.h>
#include "shop.h"
#include "checks.h"

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = CORBA_ORB_init(&argc, argv, "", &ev);
  if (ev._major != CORBA_NO_EXCEPTION || argc < 2) {
    fprintf(stderr, "usage: shop-client [-ORB options] IOR [--shutdown]\n");
    return 2;
  }
  int do_shutdown = argc > 2 && !strcmp(argv[2], "--shutdown");
  Shop_Store st = CORBA_ORB_string_to_object(orb, argv[1], &ev);
  if (!no_exc(&ev, "string_to_object"))
    return 1;
  char d[512];

  /* inherited operations: by the derived interface's name and the base's */
  CORBA_long r = Shop_Store_ping(st, 41, &ev);
  if (no_exc(&ev, "Store_ping"))
    ok(r == 42, "Store_ping(41) = 42", "");
  r = Shop_Base_ping(st, -1, &ev);
  if (no_exc(&ev, "Base_ping"))
    ok(r == 0, "Base_ping(-1) = 0", "");

  /* attributes */
  CORBA_char *s = Shop_Store__get_label(st, &ev);
  if (no_exc(&ev, "_get_label")) {
    ok(!strcmp(s, "shop"), "label = \"shop\"", s);
    CORBA_free(s);
  }
  Shop_Counter__set_count(st, 10, &ev);
  no_exc(&ev, "_set_count");
  r = Shop_Store__get_count(st, &ev);
  if (no_exc(&ev, "_get_count"))
    ok(r == 10, "count = 10 after _set_count(10)", "");
  CORBA_long by = 5;
  Shop_Store_bump(st, &by, &ev);
  if (no_exc(&ev, "bump"))
    ok(by == 15, "bump(inout 5) gives 15", "");

  /* a variable-length struct result; a user exception with members */
  Shop_Item *it = Shop_Store_find(st, "apple", &ev);
  if (no_exc(&ev, "find(apple)")) {
    snprintf(d, sizeof d, "%s %d %u", it->name, it->qty, it->prices._length);
    ok(!strcmp(it->name, "apple") && it->qty == 3 && it->prices._length == 2 &&
         it->prices._buffer[0] == 1.5 && it->prices._buffer[1] == 2.25,
       "find(apple) = { apple, 3, [1.5, 2.25] }", d);
    /* the mapping lets a user replace a member: CORBA_free still frees all */
    CORBA_free(it->name);
    it->name = CORBA_string_dup("pear");
    CORBA_free(it);
  }
  it = Shop_Store_find(st, "kiwi", &ev);
  ok(it == NULL && ev._major == CORBA_USER_EXCEPTION &&
       !strcmp(CORBA_exception_id(&ev), ex_Shop_NotFound),
     "find(kiwi) raises NotFound", CORBA_exception_id(&ev));
  if (ev._major == CORBA_USER_EXCEPTION) {
    Shop_NotFound *nf = CORBA_exception_value(&ev);
    ok(nf && !strcmp(nf->what, "kiwi") && nf->code == 404, "NotFound = { kiwi, 404 }", "");
  }
  CORBA_exception_free(&ev);

  /* an in struct, a fixed-length out */
  Shop_Item pear = { "pear", 7, { 1, 1, (CORBA_double[]){ 0.5 }, CORBA_FALSE } };
  CORBA_long total = 0;
  Shop_Store_add(st, &pear, &total, &ev);
  if (no_exc(&ev, "add"))
    ok(total == 2, "add(pear) total = 2", "");

  Shop_ItemSeq *all = Shop_Store_all(st, &ev);
  if (no_exc(&ev, "all")) {
    ok(all->_length == 2 && !strcmp(all->_buffer[0].name, "apple") &&
         !strcmp(all->_buffer[1].name, "pear") && all->_buffer[1].qty == 7 &&
         all->_buffer[1].prices._length == 1 && all->_buffer[1].prices._buffer[0] == 0.5,
       "all() = [apple, pear {7, [0.5]}]", "");
    CORBA_free(all);
  }

  /* strings: in, inout (replaced), out, result */
  CORBA_char *to = CORBA_string_dup("b");
  CORBA_char *old = NULL;
  s = Shop_Store_rename(st, "a", &to, &old, &ev);
  if (no_exc(&ev, "rename")) {
    snprintf(d, sizeof d, "%s %s %s", s, to, old);
    ok(!strcmp(s, "a") && !strcmp(to, "a+b") && !strcmp(old, "b"),
       "rename(a, inout b, out) = a, to a+b, old b", d);
    CORBA_free(s);
    CORBA_free(old);
  }
  CORBA_free(to);

  /* fixed-length struct in, inout, out, result */
  Shop_Pt p = { 1, 2 }, q = { 10, 20 }, rp = { 0, 0 };
  Shop_Pt mv = Shop_Store_move(st, &p, &q, &rp, &ev);
  if (no_exc(&ev, "move"))
    ok(mv.x == 2 && mv.y == 1 && q.x == 20 && q.y == 40 && rp.x == 11 && rp.y == 22,
       "move({1,2}, {10,20}) = {2,1}, q {20,40}, r {11,22}", "");

  /* sequence result, variable out */
  Shop_ItemSeq *items = NULL;
  Shop_Names *names = Shop_Store_listNames(st, &items, &ev);
  if (no_exc(&ev, "listNames")) {
    ok(names->_length == 2 && !strcmp(names->_buffer[0], "apple") &&
         !strcmp(names->_buffer[1], "pear") && items && items->_length == 2 &&
         !strcmp(items->_buffer[1].name, "pear"),
       "listNames = [apple, pear], items of 2", "");
    CORBA_free(names);
    CORBA_free(items);
  }

  /* unions */
  Shop_U u;
  memset(&u, 0, sizeof u);
  u._d = 2;
  u._u.s = "hey";
  Shop_U *uo = NULL;
  Shop_U *ur = Shop_Store_pick(st, &u, &uo, &ev);
  if (no_exc(&ev, "pick")) {
    ok(ur->_d == 2 && !strcmp(ur->_u.s, "picked") && uo->_d == 2 && !strcmp(uo->_u.s, "hey!"),
       "pick({2: hey}) = {2: picked}, o {2: hey!}", "");
    CORBA_free(ur);
    CORBA_free(uo);
  }
  u._d = 7;
  u._u.d = 3.0;
  ur = Shop_Store_pick(st, &u, &uo, &ev);
  if (no_exc(&ev, "pick default")) {
    ok(uo->_d == 7 && uo->_u.d == 1.5, "pick({7: 3.0}) o = {7: 1.5}", "");
    CORBA_free(ur);
    CORBA_free(uo);
  }

  /* enums, arrays */
  Shop_Mood m = Shop_Store_flip(st, Shop_HAPPY, &ev);
  if (no_exc(&ev, "flip"))
    ok(m == Shop_SAD, "flip(HAPPY) = SAD", "");
  Shop_Vec v = { 1, 2, 3 }, w = { 0, 0, 0 };
  Shop_Vec_slice *sv = Shop_Store_scale(st, v, 10, w, &ev);
  if (no_exc(&ev, "scale")) {
    ok(sv[0] == 11 && sv[1] == 12 && sv[2] == 13 && w[0] == 10 && w[1] == 20 && w[2] == 30,
       "scale([1,2,3], 10) = [11,12,13], w [10,20,30]", "");
    CORBA_free(sv);
  }

  /* wstrings and wchars (code sets negotiated through the IOR: UTF-16) */
  {
    static const CORBA_wchar ws[] = { 'h', 0xE9, 0x4E2D, 0 };
    CORBA_wchar first = 0;
    CORBA_wchar *sh = Shop_Store_shout(st, ws, &first, &ev);
    if (no_exc(&ev, "shout")) {
      ok(CORBA_wstring_len(sh) == 4 && sh[0] == 'h' && sh[1] == 0xE9 && sh[2] == 0x4E2D &&
           sh[3] == '!' && first == 'h',
         "shout(h\\u00e9\\u4e2d) = h\\u00e9\\u4e2d!, first h", "");
      CORBA_free(sh);
    }
  }

  /* oneway, then a two-way call sees its effect: CORBA orders neither (an
   * ORB may dispatch a connection's requests on several threads, as
   * omniORB does), so a few tries, 10 ms apart */
  Shop_Store_note(st, "hello oneway", &ev);
  no_exc(&ev, "note");
  for (int tries = 0;; tries++) {
    s = Shop_Store_lastNote(st, &ev);
    if (!no_exc(&ev, "lastNote"))
      break;
    if (!strcmp(s, "hello oneway") || tries == 200) {
      ok(!strcmp(s, "hello oneway"), "lastNote after oneway note", s);
      CORBA_free(s);
      break;
    }
    CORBA_free(s);
    nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
  }

  /* object references as results and parameters */
  Shop_Store me = Shop_Store_self(st, &ev);
  if (no_exc(&ev, "self")) {
    ok(me != CORBA_OBJECT_NIL && CORBA_Object_is_equivalent(me, st, &ev),
       "self() is equivalent to the Store", "");
    r = Shop_Store_ping(me, 1, &ev);
    if (no_exc(&ev, "ping through self()"))
      ok(r == 2, "ping(1) through self() = 2", "");
    Shop_Base b = Shop_Store_echoRef(st, me, &ev);
    if (no_exc(&ev, "echoRef")) {
      r = Shop_Base_ping(b, 99, &ev);
      if (no_exc(&ev, "ping through echoRef()"))
        ok(r == 100, "Base_ping(99) through echoRef(self) = 100", "");
      CORBA_Object_release(b, &ev);
    }
    Shop_Base nb = Shop_Store_echoRef(st, CORBA_OBJECT_NIL, &ev);
    if (no_exc(&ev, "echoRef(nil)"))
      ok(CORBA_Object_is_nil(nb, &ev), "echoRef(nil) = nil", "");
    /* references inside a struct and a sequence */
    Shop_Tagged tg = { "t", me };
    Shop_Tagged *tr = Shop_Store_wrap(st, &tg, &ev);
    if (no_exc(&ev, "wrap")) {
      r = Shop_Base_ping(tr->ref, 5, &ev);
      ok(!strcmp(tr->tag, "t!") && r == 6 && ev._major == CORBA_NO_EXCEPTION,
         "wrap({t, self}) = {t!, a reference that pings}", tr->tag);
      CORBA_exception_free(&ev);
      CORBA_free(tr);
    }
    Shop_Bases *bs = Shop_Store_many(st, me, 3, &ev);
    if (no_exc(&ev, "many")) {
      int good = bs->_length == 3;
      for (CORBA_unsigned_long i = 0; good && i < bs->_length; i++)
        good = Shop_Base_ping(bs->_buffer[i], (CORBA_long)i, &ev) == (CORBA_long)i + 1 &&
               ev._major == CORBA_NO_EXCEPTION;
      ok(good, "many(self, 3) = 3 references that ping", "");
      CORBA_exception_free(&ev);
      CORBA_free(bs);
    }
    CORBA_Object_release(me, &ev);
  }

  /* anys: a long, a struct, a string */
  {
    CORBA_long lv = 42;
    Shop_Pt pt = { 3, -4 };
    CORBA_char *str = "in an any";
    CORBA_TypeCode tcs[] = { TC_CORBA_long, TC_Shop_Pt, TC_CORBA_string };
    void *vals[] = { &lv, &pt, &str };
    for (int k = 0; k < 3; k++) {
      CORBA_any in;
      memset(&in, 0, sizeof in);
      in._type = tcs[k];
      in._value = vals[k];
      CORBA_any *out = Shop_Store_echoAny(st, &in, &ev);
      if (!no_exc(&ev, "echoAny"))
        continue;
      int good = out->_type && CORBA_TypeCode_equal(out->_type, tcs[k], &ev);
      if (good && k == 0)
        good = *(CORBA_long *)out->_value == 42;
      if (good && k == 1)
        good = ((Shop_Pt *)out->_value)->x == 3 && ((Shop_Pt *)out->_value)->y == -4;
      if (good && k == 2)
        good = !strcmp(*(CORBA_char **)out->_value, "in an any");
      ok(good, k == 0 ? "echoAny(long 42)" : k == 1 ? "echoAny(Pt {3, -4})"
                                                     : "echoAny(string)", "");
      CORBA_free(out);
    }
  }

  /* _is_a with every base, _non_existent */
  ok(CORBA_Object_is_a(st, "IDL:Shop/Base:1.0", &ev) && ev._major == CORBA_NO_EXCEPTION,
     "_is_a(Shop/Base)", "");
  ok(CORBA_Object_is_a(st, "IDL:Shop/Counter:1.0", &ev) && ev._major == CORBA_NO_EXCEPTION,
     "_is_a(Shop/Counter)", "");
  ok(CORBA_Object_is_a(st, "IDL:Shop/Store:1.0", &ev), "_is_a(Shop/Store)", "");
  ok(!CORBA_Object_is_a(st, "IDL:Shop/Nope:1.0", &ev) && ev._major == CORBA_NO_EXCEPTION,
     "!_is_a(Shop/Nope)", "");
  ok(!CORBA_Object_non_existent(st, &ev) && ev._major == CORBA_NO_EXCEPTION,
     "!_non_existent", "");

  /* exceptions: with members, without, a system exception's minor and
   * completion */
  Shop_Store_fail(st, 1, &ev);
  ok(ev._major == CORBA_USER_EXCEPTION && !strcmp(CORBA_exception_id(&ev), ex_Shop_NotFound) &&
       ((Shop_NotFound *)CORBA_exception_value(&ev))->code == 1,
     "fail(1) raises NotFound { how, 1 }", CORBA_exception_id(&ev));
  CORBA_exception_free(&ev);
  Shop_Store_fail(st, 2, &ev);
  ok(ev._major == CORBA_USER_EXCEPTION && !strcmp(CORBA_exception_id(&ev), ex_Shop_Empty),
     "fail(2) raises Empty", CORBA_exception_id(&ev));
  CORBA_exception_free(&ev);
  Shop_Store_fail(st, 3, &ev);
  {
    CORBA_SystemException *se = CORBA_exception_value(&ev);
    snprintf(d, sizeof d, "%s minor %u completed %d", CORBA_exception_id(&ev),
             se ? se->minor : 0, se ? (int)se->completed : -1);
    ok(ev._major == CORBA_SYSTEM_EXCEPTION &&
         !strcmp(CORBA_exception_id(&ev), ex_CORBA_NO_PERMISSION) && se->minor == 7 &&
         se->completed == CORBA_COMPLETED_YES,
       "fail(3) raises NO_PERMISSION minor 7 COMPLETED_YES", d);
  }
  CORBA_exception_free(&ev);
  Shop_Store_fail(st, 0, &ev);
  ok(ev._major == CORBA_NO_EXCEPTION, "fail(0) returns", CORBA_exception_id(&ev));

  /* corbaloc::HOST:PORT/Store reaches the same object (omniINSPOA) */
  {
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    iiop_ior ior;
    if (iiop_ior_from_string(argv[1], &a, &ior) == CDR_OK && iiop_ior_iiop_profile(&ior)) {
      const iiop_profile *pr = iiop_ior_iiop_profile(&ior);
      char url[300];
      snprintf(url, sizeof url, "corbaloc::1.2@%s:%u/Store", pr->host, pr->port);
      CORBA_Object lo = CORBA_ORB_string_to_object(orb, url, &ev);
      if (no_exc(&ev, url)) {
        r = Shop_Store_ping(lo, 7, &ev);
        if (no_exc(&ev, "ping through corbaloc"))
          ok(r == 8, "ping(7) through corbaloc = 8", url);
        CORBA_Object_release(lo, &ev);
      }
    } else {
      ok(0, "the IOR decodes", argv[1]);
    }
    cdr_arena_free(&a);
  }

  /* a dead key: OBJECT_NOT_EXIST */
  {
    CORBA_Object bad = NULL;
    cdr_arena a;
    cdr_arena_init(&a, NULL);
    iiop_ior ior;
    if (iiop_ior_from_string(argv[1], &a, &ior) == CDR_OK) {
      const iiop_profile *pr = iiop_ior_iiop_profile(&ior);
      char url[300];
      snprintf(url, sizeof url, "corbaloc::1.2@%s:%u/NoSuchKey", pr->host, pr->port);
      bad = CORBA_ORB_string_to_object(orb, url, &ev);
    }
    cdr_arena_free(&a);
    if (no_exc(&ev, "corbaloc NoSuchKey")) {
      Shop_Store_ping(bad, 1, &ev);
      ok(ev._major == CORBA_SYSTEM_EXCEPTION &&
           !strcmp(CORBA_exception_id(&ev), ex_CORBA_OBJECT_NOT_EXIST),
         "ping on a dead key raises OBJECT_NOT_EXIST", CORBA_exception_id(&ev));
      CORBA_exception_free(&ev);
      CORBA_Object_release(bad, &ev);
    }
  }

  if (do_shutdown) {
    Shop_Store_shutdown(st, &ev);
    no_exc(&ev, "shutdown");
  }
  CORBA_Object_release(st, &ev);
  CORBA_ORB_destroy(orb, &ev);
  printf("%d checks, %d failed\n", n_checks, n_failed);
  return n_failed ? 1 : 0;
}
