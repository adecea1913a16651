/* check_naming.c - names: the string-name and corbaname parsers
 * (iiop/naming.h), libiiop's corbaname: and corbaloc:rir: URLs
 * (iiop_client_resolve()), and libcorbaorb's corbaorb_naming_* helpers
 * (corbaorb/naming.h), against a private omniNames (Debian package
 * omniorb-nameserver; $OMNINAMES or omniNames on PATH): started on a free
 * port with its own data directory, killed at exit.  Without omniNames the
 * tests that need none run, then the program exits 77 (skipped) -- 1 when
 * HAVE_OMNIORB=yes (CI has it).  Its own main(): the skip needs one. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <corbaorb/corba.h>
#include <corbaorb/naming.h>
#include <iiop/ior.h>
#include <iiop/naming.h>
#include <iiop/orb.h>
#include "netutil.h"

static pid_t ns_pid, main_pid;
static unsigned ns_port;
static char ns_dir[64];

/* ---------------------------------------------------------------- the parsers */

START_TEST(test_name_parse)
{
  char buf[64];
  iiop_name_component c[8];
  size_t n = 99;
  strcpy(buf, "a\\.b.c/d/.k/.");
  ck_assert_int_eq(iiop_name_parse(buf, c, 8, &n), CDR_OK);
  ck_assert_uint_eq(n, 4);
  ck_assert_str_eq(c[0].id, "a.b");
  ck_assert_str_eq(c[0].kind, "c");
  ck_assert_str_eq(c[1].id, "d");
  ck_assert_str_eq(c[1].kind, "");
  ck_assert_str_eq(c[2].id, "");
  ck_assert_str_eq(c[2].kind, "k");
  ck_assert_str_eq(c[3].id, "");
  ck_assert_str_eq(c[3].kind, "");
  ck_assert_uint_eq(iiop_name_max_components("a/b/c"), 3);
  strcpy(buf, "a/b/c");
  ck_assert_int_eq(iiop_name_parse(buf, c, 2, &n), CDR_E_LIMIT);
  const char *bad[] = { "", "a//b", "/a", "a/", "a.b.c", "a.", "a\\", "x/a.b.c" };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    strcpy(buf, bad[i]);
    n = 99;
    ck_assert_msg(iiop_name_parse(buf, c, 8, &n) == CDR_E_INVALID, "%s", bad[i]);
    ck_assert_uint_eq(n, 99);
  }
  ck_assert_int_eq(iiop_url_unescape("a%2Fb%5c", 8, buf), CDR_OK);
  ck_assert_str_eq(buf, "a/b\\");
  ck_assert_int_eq(iiop_url_unescape("a%2", 3, buf), CDR_E_INVALID);
  ck_assert_int_eq(iiop_url_unescape("a%00", 4, buf), CDR_E_INVALID);
  ck_assert_int_eq(iiop_url_unescape("a%g0", 4, buf), CDR_E_INVALID);

  cdr_arena a;
  cdr_arena_init(&a, NULL);
  iiop_corbaname cn;
  ck_assert_int_eq(iiop_corbaname_parse("corbaname::h:1#x%2Fy.k/z", &a, &cn), CDR_OK);
  ck_assert_str_eq(cn.base, "corbaloc::h:1/NameService");
  ck_assert_int_eq(cn.has_name, 1);
  ck_assert_uint_eq(cn.ncomps, 3); /* %2F decodes to '/', which then separates */
  ck_assert_str_eq(cn.comps[0].id, "x");
  ck_assert_str_eq(cn.comps[1].id, "y");
  ck_assert_str_eq(cn.comps[1].kind, "k");
  ck_assert_str_eq(cn.comps[2].id, "z");
  ck_assert_int_eq(iiop_corbaname_parse("CORBANAME:rir:/Other", &a, &cn), CDR_OK);
  ck_assert_str_eq(cn.base, "corbaloc:rir:/Other");
  ck_assert_int_eq(cn.has_name, 0);
  const char *badurl[] = { "corbaname:", "corbaname:#x", "corbaname::h#", "corbaname::h#a//b",
                           "corbaname::h#a%zz", "corbaloc::h/k" };
  for (size_t i = 0; i < sizeof badurl / sizeof *badurl; i++)
    ck_assert_msg(iiop_corbaname_parse(badurl[i], &a, &cn) == CDR_E_INVALID, "%s", badurl[i]);
  char key[8];
  ck_assert_int_eq(iiop_rir_key("", key, sizeof key), CDR_E_LIMIT); /* "NameService" */
  ck_assert_int_eq(iiop_rir_key("/K%41", key, sizeof key), CDR_OK);
  ck_assert_str_eq(key, "KA");
  ck_assert_int_eq(iiop_rir_key(",:h:1/k", key, sizeof key), CDR_E_INVALID);
  cdr_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- native, no service */

static iiop_client *new_client(void)
{
  iiop_client_opts o;
  iiop_client_opts_default(&o);
  o.timeout_ms = 10000;
  iiop_client *c = iiop_client_new(&o);
  ck_assert_ptr_nonnull(c);
  return c;
}

static const char *why(iiop_client *c)
{
  static char b[IIOP_CLIENT_ERROR_MAX];
  iiop_client_last_error(c, b, sizeof b);
  return b;
}

START_TEST(test_native_urls)
{
  iiop_client *c = new_client();
  iiop_ref *r = NULL;
  const char *bad[] = { "corbaname:", "corbaname:#x", "corbaname::127.0.0.1:1#",
                        "corbaname::127.0.0.1:1#a//b", "corbaname::127.0.0.1:1#a%zz",
                        "corbaname::127.0.0.1:1#a.b.c", "corbaname:bogus:1#a",
                        "corbaname::127.0.0.1:99999#a", "corbaloc:rir:x", "corbaloc:rir:,:h:1/k",
                        "corbaloc:rir:/a%00" };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_msg(iiop_client_resolve(c, bad[i], &r) == CDR_E_INVALID, "%s", bad[i]);
    ck_assert_ptr_null(r);
  }
  ck_assert_str_eq(why(c), "corbaloc:rir:/a%00: malformed corbaloc:rir: URL");
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:#x", &r), CDR_E_INVALID);
  ck_assert_str_eq(why(c), "corbaname:#x: malformed corbaname URL");

  /* no initial references yet */
  ck_assert_int_eq(iiop_client_resolve(c, "corbaloc:rir:/NameService", &r), CDR_E_NOTFOUND);
  ck_assert_str_eq(why(c), "corbaloc:rir:/NameService: no initial reference \"NameService\"");
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:#a", &r), CDR_E_NOTFOUND);
  ck_assert_str_eq(why(c), "corbaloc:rir:/NameService: no initial reference \"NameService\"");
  ck_assert_int_eq(iiop_client_set_initial_reference(c, NULL, "x"), CDR_E_INVALID);
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "", "x"), CDR_E_INVALID);
  ck_assert_int_eq(iiop_client_set_initial_reference(NULL, "a", "x"), CDR_E_INVALID);

  /* rir to a corbaloc: the same reference, not connected */
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "Obj", "corbaloc::127.0.0.1:1/Obj"),
                   CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaloc:rir:/Obj", &r), CDR_OK);
  ck_assert_ptr_nonnull(r);
  iiop_ref_free(r);
  r = NULL;
  /* removed */
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "Obj", NULL), CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaloc:rir:/Obj", &r), CDR_E_NOTFOUND);

  /* loops are bounded: 8 indirections */
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "Loop", "corbaloc:rir:/Loop"), CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaloc:rir:/Loop", &r), CDR_E_LIMIT);
  ck_assert_str_eq(why(c), "corbaloc:rir:/Loop: more than 8 rir:/corbaname: indirections");
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "NameService", "corbaname:rir:"), CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:#x", &r), CDR_E_LIMIT);

  /* a well-formed name reaches the naming service: none listens */
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "NameService",
                                                     "corbaloc::127.0.0.1:1/NameService"),
                   CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname::127.0.0.1:1#a.b/c", &r), CDR_E_IO);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:#a", &r), CDR_E_IO);
  ck_assert_str_eq(why(c), "connect to 127.0.0.1:1: Connection refused");
  ck_assert_ptr_null(r);
  iiop_client_free(c);
}
END_TEST

/* ---------------------------------------------------------------- native, a fake naming service */

/* A native echo servant: "twice" returns its long argument times two. */
static int op_twice(void *sv, iiop_request *req, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)req;
  int32_t v = cdr_get_long(a);
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  cdr_put_long(o, v * 2);
  return CDR_OK;
}
static const iiop_operation twice_ops[] = { { "twice", op_twice } };
static const iiop_interface twice_iface __attribute__((unused)) = { "IDL:Test/Twice:1.0",
                                                                    twice_ops, 1, NULL };

static iiop_server *twice_server(void)
{
  iiop_server_opts so;
  iiop_server_opts_default(&so);
  iiop_server *srv;
  ck_assert_int_eq(iiop_server_new(&so, &srv), CDR_OK);
  ck_assert_int_eq(iiop_server_start(srv), CDR_OK);
  return srv;
}

static int32_t call_twice(iiop_ref *r, int32_t v)
{
  iiop_call *call;
  cdr_out *args;
  cdr_in *res;
  ck_assert_int_eq(iiop_call_begin(r, "twice", 0, &call, &args), CDR_OK);
  cdr_put_long(args, v);
  ck_assert_int_eq(iiop_call_invoke(call, &res), CDR_OK);
  int32_t got = cdr_get_long(res);
  ck_assert_int_eq(cdr_in_status(res), CDR_OK);
  iiop_call_end(call);
  return got;
}

/* A native servant answering NamingContext::resolve as the first
 * component's id says -- "self": its own reference; "nil": a nil one;
 * "invalid": InvalidName; "cannot": CannotProceed; "huge": a NotFound
 * whose rest_of_name claims 2^32 - 1 components and ends; "other": a user
 * exception resolve does not have; "sys": NO_IMPLEMENT -- and "twice".  It
 * keeps the last name it got as "id|kind/id|kind". */
static pthread_mutex_t fake_mu = PTHREAD_MUTEX_INITIALIZER;
static char fake_got[256];
static char fake_ior[1024];

static int put_user(cdr_out *o, const char *id)
{
  cdr_put_string(o, id);
  return IIOP_R_USER_EXCEPTION;
}

static int op_fake_resolve(void *sv, iiop_request *req, cdr_in *a, cdr_out *o)
{
  (void)sv, (void)req;
  uint32_t n = cdr_get_ulong(a), l;
  char got[256] = "", first[64] = "";
  size_t gl = 0;
  for (uint32_t k = 0; k < n && cdr_in_status(a) == CDR_OK; k++) {
    const char *id, *kind;
    if (cdr_get_string_view(a, &id, &l) != CDR_OK || cdr_get_string_view(a, &kind, &l) != CDR_OK)
      return cdr_in_status(a);
    if (k == 0)
      snprintf(first, sizeof first, "%s", id);
    gl += (size_t)snprintf(got + gl, sizeof got - gl, "%s%s|%s", k ? "/" : "", id, kind);
  }
  if (cdr_in_status(a) != CDR_OK)
    return cdr_in_status(a);
  pthread_mutex_lock(&fake_mu);
  memcpy(fake_got, got, sizeof got);
  pthread_mutex_unlock(&fake_mu);
  if (!strcmp(first, "self")) {
    cdr_arena ar;
    cdr_arena_init(&ar, NULL);
    iiop_ior ior;
    int rc = iiop_ior_from_string(fake_ior, &ar, &ior);
    if (rc == CDR_OK)
      rc = iiop_ior_write(o, &ior);
    cdr_arena_free(&ar);
    return rc;
  }
  if (!strcmp(first, "nil")) {
    cdr_put_string(o, "");
    cdr_put_ulong(o, 0);
    return CDR_OK;
  }
  if (!strcmp(first, "invalid"))
    return put_user(o, "IDL:omg.org/CosNaming/NamingContext/InvalidName:1.0");
  if (!strcmp(first, "cannot")) {
    put_user(o, "IDL:omg.org/CosNaming/NamingContext/CannotProceed:1.0");
    cdr_put_string(o, ""); /* cxt: nil */
    cdr_put_ulong(o, 0);
    cdr_put_ulong(o, 0);   /* rest_of_name */
    return IIOP_R_USER_EXCEPTION;
  }
  if (!strcmp(first, "huge")) {
    put_user(o, "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0");
    cdr_put_ulong(o, 1);          /* not_context */
    cdr_put_ulong(o, 0xffffffffu); /* rest_of_name: and nothing after */
    return IIOP_R_USER_EXCEPTION;
  }
  if (!strcmp(first, "other"))
    return put_user(o, "IDL:Other/Ex:1.0");
  return CDR_E_UNSUPPORTED; /* "sys": NO_IMPLEMENT */
}

static const iiop_operation fake_ops[] = { { "resolve", op_fake_resolve }, { "twice", op_twice } };
static const iiop_interface fake_iface = { "IDL:omg.org/CosNaming/NamingContext:1.0", fake_ops, 2,
                                           NULL };

START_TEST(test_native_fake_service)
{
  iiop_server *srv = twice_server();
  ck_assert_int_eq(iiop_server_activate(srv, "NameService", 11, &fake_iface, NULL), CDR_OK);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior;
  ck_assert_int_eq(iiop_server_ior(srv, "NameService", 11, &a, &ior), CDR_OK);
  snprintf(fake_ior, sizeof fake_ior, "%s", ior);
  unsigned port = iiop_server_port(srv);
  iiop_client *c = new_client();
  iiop_ref *r = NULL;
  char url[160], want[400];

  /* the name as sent: %XX-decoded, then parsed; a reference back */
  snprintf(url, sizeof url, "corbaname:iiop:1.2@127.0.0.1:%u#self/a%%5C.b.k/.x/%%2E", port);
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  pthread_mutex_lock(&fake_mu);
  ck_assert_str_eq(fake_got, "self|/a.b|k/|x/|");
  pthread_mutex_unlock(&fake_mu);
  ck_assert_int_eq(call_twice(r, 7), 14);
  iiop_ref_free(r);
  r = NULL;

  struct { const char *name; int rc; const char *why; } cases[] = {
    { "nil", CDR_E_NOTFOUND, "bound to a nil reference" },
    { "invalid", CDR_E_INVALID, "IDL:omg.org/CosNaming/NamingContext/InvalidName:1.0" },
    { "cannot", CDR_E_NOTFOUND, "IDL:omg.org/CosNaming/NamingContext/CannotProceed:1.0" },
    { "huge", CDR_E_NOTFOUND,
      "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0 (not_context, rest of name )" },
    { "other", CDR_E_TYPE, "IDL:Other/Ex:1.0" },
    { "sys", CDR_E_NOTFOUND,
      "resolve raised IDL:omg.org/CORBA/NO_IMPLEMENT:1.0 (minor 0x00000000)" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(url, sizeof url, "corbaname::127.0.0.1:%u#%s", port, cases[i].name);
    ck_assert_msg(iiop_client_resolve(c, url, &r) == cases[i].rc, "%s", cases[i].name);
    ck_assert_ptr_null(r);
    snprintf(want, sizeof want, "%s: %s", url, cases[i].why);
    ck_assert_str_eq(why(c), want);
  }
  /* no name: the context itself, nothing sent */
  snprintf(url, sizeof url, "corbaname::127.0.0.1:%u", port);
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  ck_assert_int_eq(call_twice(r, 1), 2);
  iiop_ref_free(r);
  iiop_client_free(c);
  cdr_arena_free(&a);
  iiop_server_free(srv);
}
END_TEST

/* ---------------------------------------------------------------- libcorbaorb, no service */

static CORBA_ORB orb_new(CORBA_Environment *ev)
{
  int argc = 0;
  CORBA_ORB orb = CORBA_ORB_init(&argc, NULL, "", ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  return orb;
}

#define want_user(ev, id) want_user_at(ev, id, __LINE__)
static __attribute__((unused)) void want_user_at(CORBA_Environment *ev, const char *id,
                                                 int line)
{
  ck_assert_msg(ev->_major == CORBA_USER_EXCEPTION, "line %d: %d %s, want %s", line, ev->_major,
                ev->_major ? CORBA_exception_id(ev) : "", id);
  ck_assert_str_eq(CORBA_exception_id(ev), id);
}

static void want_sys(CORBA_Environment *ev, const char *id)
{
  ck_assert_int_eq(ev->_major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_str_eq(CORBA_exception_id(ev), id);
  CORBA_exception_free(ev);
}

#ifndef CORBAORB_TEST_COSNAMING
/* libcorbaorb built without CosNaming.idl: every helper is NO_IMPLEMENT */
START_TEST(test_helpers_absent)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = orb_new(&ev);
  CORBA_Object ctx = CORBA_ORB_string_to_object(orb, "corbaloc::127.0.0.1:1/NameService", &ev);
  ck_assert_ptr_null(corbaorb_naming_resolve(ctx, "a", &ev));
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  corbaorb_naming_bind(ctx, "a", ctx, &ev);
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  corbaorb_naming_rebind(ctx, "a", ctx, &ev);
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  corbaorb_naming_unbind(ctx, "a", &ev);
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  ck_assert_ptr_null(corbaorb_naming_bind_context(ctx, "a", &ev));
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  ck_assert_ptr_null(corbaorb_naming_list(ctx, NULL, 0, &ev));
  want_sys(&ev, ex_CORBA_NO_IMPLEMENT);
  CORBA_Object_release(ctx, &ev);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST
#else
START_TEST(test_helpers_offline)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = orb_new(&ev);
  CORBA_Object ctx = CORBA_ORB_string_to_object(orb, "corbaloc::127.0.0.1:1/NameService", &ev);
  ck_assert_ptr_nonnull(ctx);
  /* a malformed name: InvalidName, nothing sent (nothing listens on port 1) */
  const char *bad[] = { "", "a//b", "/a", "a/", "a.b.c", "a." };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_ptr_null(corbaorb_naming_resolve(ctx, bad[i], &ev));
    want_user(&ev, CORBAORB_NAMING_INVALIDNAME_ID);
    CORBA_exception_free(&ev);
    corbaorb_naming_bind(ctx, bad[i], ctx, &ev);
    want_user(&ev, CORBAORB_NAMING_INVALIDNAME_ID);
    CORBA_exception_free(&ev);
    ck_assert_ptr_null(corbaorb_naming_bind_context(ctx, bad[i], &ev));
    want_user(&ev, CORBAORB_NAMING_INVALIDNAME_ID);
    CORBA_exception_free(&ev);
  }
  corbaorb_naming_unbind(ctx, NULL, &ev);
  want_user(&ev, CORBAORB_NAMING_INVALIDNAME_ID);
  CORBA_exception_free(&ev);
  ck_assert_ptr_null(corbaorb_naming_list(ctx, "a//b", 0, &ev));
  want_user(&ev, CORBAORB_NAMING_INVALIDNAME_ID);
  CORBA_exception_free(&ev);
  /* no context */
  ck_assert_ptr_null(corbaorb_naming_resolve(CORBA_OBJECT_NIL, "a", &ev));
  want_sys(&ev, ex_CORBA_BAD_PARAM);
  ck_assert_ptr_null(corbaorb_naming_list(CORBA_OBJECT_NIL, NULL, 0, &ev));
  want_sys(&ev, ex_CORBA_BAD_PARAM);
  /* well-formed: sent, nobody answers */
  ck_assert_ptr_null(corbaorb_naming_resolve(ctx, "a.b/c", &ev));
  want_sys(&ev, ex_CORBA_TRANSIENT);
  ck_assert_ptr_null(corbaorb_naming_list(ctx, NULL, 0, &ev));
  want_sys(&ev, ex_CORBA_TRANSIENT);
  CORBA_Object_release(ctx, &ev);
  CORBA_ORB_destroy(orb, &ev);
}
END_TEST

/* ---------------------------------------------------------------- against omniNames */


static CORBA_Object root_of(CORBA_ORB orb, CORBA_Environment *ev)
{
  char url[80];
  snprintf(url, sizeof url, "corbaloc::127.0.0.1:%u/NameService", ns_port);
  CORBA_Object root = CORBA_ORB_string_to_object(orb, url, ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  return root;
}

/* A live native object (twice_iface) under KEY of SRV, as a reference
 * and (*STR, malloc'd) its IOR string. */
static CORBA_Object live_ref(CORBA_ORB orb, iiop_server *srv, const char *key, char **str,
                             CORBA_Environment *ev)
{
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *s;
  ck_assert_int_eq(iiop_server_activate(srv, key, strlen(key), &twice_iface, NULL), CDR_OK);
  ck_assert_int_eq(iiop_server_ior(srv, key, strlen(key), &a, &s), CDR_OK);
  CORBA_Object o = CORBA_ORB_string_to_object(orb, s, ev);
  ck_assert_int_eq(ev->_major, CORBA_NO_EXCEPTION);
  *str = strdup(s);
  cdr_arena_free(&a);
  return o;
}

#define want_not_found(ev, w, rest) want_not_found_at(ev, w, rest, __LINE__)
static void want_not_found_at(CORBA_Environment *ev, corbaorb_naming_not_found_reason w,
                              const char *rest, int line)
{
  want_user_at(ev, CORBAORB_NAMING_NOTFOUND_ID, line);
  const corbaorb_naming_NotFound *e = CORBA_exception_value(ev);
  ck_assert_msg(e->why == w, "line %d: why %d", line, (int)e->why);
  char got[256] = "";
  size_t n = 0;
  for (CORBA_unsigned_long i = 0; i < e->rest_of_name._length; i++)
    n += (size_t)snprintf(got + n, sizeof got - n, "%s%s|%s", i ? "/" : "",
                          e->rest_of_name._buffer[i].id, e->rest_of_name._buffer[i].kind);
  ck_assert_msg(!strcmp(got, rest), "line %d: rest %s", line, got);
  CORBA_exception_free(ev);
}

START_TEST(test_helpers)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = orb_new(&ev);
  CORBA_Object root = root_of(orb, &ev);
  char *s1, *s2;
  iiop_server *srv = twice_server();
  CORBA_Object o1 = live_ref(orb, srv, "one", &s1, &ev), o2 = live_ref(orb, srv, "two", &s2, &ev);

  /* bind, resolve: the same IOR back */
  corbaorb_naming_bind(root, "t1.obj", o1, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object r = corbaorb_naming_resolve(root, "t1.obj", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_equivalent(r, o1, &ev));
  CORBA_char *rs = CORBA_ORB_object_to_string(orb, r, &ev);
  ck_assert_str_eq(rs, s1);
  CORBA_free(rs);
  CORBA_Object_release(r, &ev);
  /* bind again: AlreadyBound; rebind replaces */
  corbaorb_naming_bind(root, "t1.obj", o2, &ev);
  want_user(&ev, CORBAORB_NAMING_ALREADYBOUND_ID);
  CORBA_exception_free(&ev);
  corbaorb_naming_rebind(root, "t1.obj", o2, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  r = corbaorb_naming_resolve(root, "t1.obj", &ev);
  ck_assert(CORBA_Object_is_equivalent(r, o2, &ev));
  ck_assert(!CORBA_Object_is_equivalent(r, o1, &ev));
  CORBA_Object_release(r, &ev);
  /* "t1" (no kind) is another name */
  ck_assert_ptr_null(corbaorb_naming_resolve(root, "t1", &ev));
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "t1|");

  /* NotFound: why and rest_of_name */
  ck_assert_ptr_null(corbaorb_naming_resolve(root, "nope.ctx/x.k", &ev));
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "nope|ctx/x|k");
  ck_assert_ptr_null(corbaorb_naming_resolve(root, "t1.obj/x.k", &ev));
  want_not_found(&ev, CORBAORB_NAMING_NOT_CONTEXT, "t1|obj/x|k");
  corbaorb_naming_bind(root, "nope/x", o1, &ev);
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "nope|/x|");

  /* unbind, and unbind again */
  corbaorb_naming_unbind(root, "t1.obj", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_null(corbaorb_naming_resolve(root, "t1.obj", &ev));
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "t1|obj");
  corbaorb_naming_unbind(root, "t1.obj", &ev);
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "t1|obj");

  /* nested contexts, made as mkdir -p makes directories */
  CORBA_Object rep = corbaorb_naming_bind_context(root, "replicas", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_nonnull(rep);
  corbaorb_naming_bind(root, "replicas/r1", o1, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object again = corbaorb_naming_bind_context(root, "replicas", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_equivalent(again, rep, &ev));
  r = corbaorb_naming_resolve(again, "r1", &ev); /* relative to the context */
  ck_assert(CORBA_Object_is_equivalent(r, o1, &ev));
  CORBA_Object_release(r, &ev);
  CORBA_Object_release(again, &ev);
  CORBA_Object_release(rep, &ev);
  CORBA_Object deep = corbaorb_naming_bind_context(root, "a/b.k/c", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  corbaorb_naming_bind(deep, "leaf", o2, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  r = corbaorb_naming_resolve(root, "a/b.k/c/leaf", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert(CORBA_Object_is_equivalent(r, o2, &ev));
  CORBA_Object_release(r, &ev);
  CORBA_Object_release(deep, &ev);
  /* a context path through an object: NotFound not_context from there on */
  ck_assert_ptr_null(corbaorb_naming_bind_context(root, "replicas/r1/x", &ev));
  want_not_found(&ev, CORBAORB_NAMING_NOT_CONTEXT, "r1|/x|");
  /* rebinding a context's name to an object: omniNames replaces it */
  corbaorb_naming_rebind(root, "a", o1, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_ptr_null(corbaorb_naming_resolve(root, "a/b.k/c/leaf", &ev));
  want_not_found(&ev, CORBAORB_NAMING_NOT_CONTEXT, "a|/b|k/c|/leaf|");

  /* list: more bindings than one batch (3), through the iterator */
  CORBA_Object many = corbaorb_naming_bind_context(root, "many", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  const char *names[] = { "e0", "e1.k", "e\\.2.k\\/k", ".only", "e4", "e5", "e6" };
  for (size_t i = 0; i < 7; i++) {
    corbaorb_naming_bind(many, names[i], o1, &ev);
    ck_assert_msg(ev._major == CORBA_NO_EXCEPTION, "%s", names[i]);
  }
  CORBA_Object sub = corbaorb_naming_bind_context(many, "sub.dir", &ev);
  CORBA_Object_release(sub, &ev);
  corbaorb_naming_bindings *bl;
  for (CORBA_unsigned_long batch = 1; batch <= 9; batch += 4) {
    bl = corbaorb_naming_list(root, "many", batch, &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    ck_assert_uint_eq(bl->_length, 8);
    int seen = 0;
    for (CORBA_unsigned_long i = 0; i < bl->_length; i++) {
      const corbaorb_naming_entry *e = &bl->_buffer[i];
      int k = -1;
      for (int j = 0; j < 7; j++)
        if (!strcmp(e->name, names[j]))
          k = j;
      if (!strcmp(e->name, "sub.dir")) {
        ck_assert_int_eq(e->type, CORBAORB_NAMING_CONTEXT);
        ck_assert_str_eq(e->id, "sub");
        ck_assert_str_eq(e->kind, "dir");
        k = 7;
      } else {
        ck_assert_msg(k >= 0, "unexpected %s", e->name);
        ck_assert_int_eq(e->type, CORBAORB_NAMING_OBJECT);
      }
      if (k == 2) {
        ck_assert_str_eq(e->id, "e.2");
        ck_assert_str_eq(e->kind, "k/k");
      }
      if (k == 3) {
        ck_assert_str_eq(e->id, "");
        ck_assert_str_eq(e->kind, "only");
      }
      seen |= 1 << k;
    }
    ck_assert_int_eq(seen, 0xff);
    CORBA_free(bl);
  }
  /* batch 1 returns one binding: the other 7 came through the iterator.
   * CORBA_free frees the whole result: counted, nothing stays live (the
   * call's own buffers are pooled: a first call warms them up) */
  cdr_mem_counter mc;
  cdr_mem_counter_init(&mc, NULL);
  cdr_mem_set_global(&mc.alloc);
  for (int round = 0; round < 2; round++) {
    long long start = (long long)mc.live;
    bl = corbaorb_naming_list(root, "many", 1, &ev);
    ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
    ck_assert_uint_eq(bl->_length, 8);
    if (round == 1)
      ck_assert_int_ge(mc.live, 1 + 1 + 8 * 3); /* the sequence, its buffer, 3 strings each */
    long long before = (long long)mc.live;
    CORBA_free(bl);
    if (round == 1) {
      ck_assert_int_eq((long long)mc.live, before - (1 + 1 + 8 * 3));
      ck_assert_int_eq((long long)mc.live, start); /* and nothing else stayed */
    }
  }
  cdr_mem_set_global(NULL);

  /* the root: what the steps above left in it */
  bl = corbaorb_naming_list(root, NULL, 0, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_uint_eq(bl->_length, 3); /* replicas and many, a now an object */
  for (CORBA_unsigned_long i = 0; i < bl->_length; i++) {
    const corbaorb_naming_entry *e = &bl->_buffer[i];
    if (!strcmp(e->name, "a"))
      ck_assert_int_eq(e->type, CORBAORB_NAMING_OBJECT);
    else
      ck_assert_msg((!strcmp(e->name, "replicas") || !strcmp(e->name, "many")) &&
                      e->type == CORBAORB_NAMING_CONTEXT, "%s", e->name);
  }
  CORBA_free(bl);
  /* an empty context, a missing one */
  CORBA_Object empty = corbaorb_naming_bind_context(root, "empty", &ev);
  CORBA_Object_release(empty, &ev);
  bl = corbaorb_naming_list(root, "empty", 2, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  ck_assert_uint_eq(bl->_length, 0);
  CORBA_free(bl);
  ck_assert_ptr_null(corbaorb_naming_list(root, "nothere", 2, &ev));
  want_not_found(&ev, CORBAORB_NAMING_MISSING_NODE, "nothere|");

  CORBA_Object_release(many, &ev);
  CORBA_Object_release(o1, &ev);
  CORBA_Object_release(o2, &ev);
  CORBA_Object_release(root, &ev);
  free(s1);
  free(s2);
  CORBA_ORB_destroy(orb, &ev);
  iiop_server_free(srv);
}
END_TEST

START_TEST(test_native_corbaname)
{
  iiop_server *srv = twice_server();
  ck_assert_int_eq(iiop_server_activate(srv, "Twice", 5, &twice_iface, NULL), CDR_OK);
  cdr_arena a;
  cdr_arena_init(&a, NULL);
  char *ior;
  ck_assert_int_eq(iiop_server_ior(srv, "Twice", 5, &a, &ior), CDR_OK);

  /* bound by the C mapping's helpers, in a context */
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB orb = orb_new(&ev);
  CORBA_Object root = root_of(orb, &ev);
  CORBA_Object obj = CORBA_ORB_string_to_object(orb, ior, &ev);
  CORBA_Object ctx = corbaorb_naming_bind_context(root, "native", &ev);
  corbaorb_naming_rebind(root, "native/Tw\\.ice.svc", obj, &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);

  iiop_client *c = new_client();
  char url[160];
  iiop_ref *r = NULL;
  snprintf(url, sizeof url, "corbaname::127.0.0.1:%u#native/Tw%%5C.ice.svc", ns_port);
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_OK);
  ck_assert_int_eq(call_twice(r, 21), 42);
  iiop_ref_free(r);
  /* through rir: */
  snprintf(url, sizeof url, "corbaloc::127.0.0.1:%u/NameService", ns_port);
  ck_assert_int_eq(iiop_client_set_initial_reference(c, "NameService", url), CDR_OK);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:#native/Tw%5C.ice.svc", &r), CDR_OK);
  ck_assert_int_eq(call_twice(r, -4), -8);
  iiop_ref_free(r);
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:/NameService#native/Tw%5C.ice.svc", &r),
                   CDR_OK);
  ck_assert_int_eq(call_twice(r, 5), 10);
  iiop_ref_free(r);
  /* the context itself, then a name not bound */
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:", &r), CDR_OK);
  iiop_ref_free(r);
  r = NULL;
  ck_assert_int_eq(iiop_client_resolve(c, "corbaname:rir:#native/nope.svc", &r), CDR_E_NOTFOUND);
  ck_assert_ptr_null(r);
  ck_assert_str_eq(why(c), "corbaname:rir:#native/nope.svc: "
                           "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0 "
                           "(missing_node, rest of name nope.svc)");
  snprintf(url, sizeof url, "corbaname::127.0.0.1:%u#native/Tw%%5C.ice.svc/x", ns_port);
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_E_NOTFOUND);
  char want[320];
  /* the rest of the name as the service sent it, written as a string name */
  snprintf(want, sizeof want, "%s: IDL:omg.org/CosNaming/NamingContext/NotFound:1.0 "
                              "(not_context, rest of name Tw\\.ice.svc/x)", url);
  ck_assert_str_eq(why(c), want);
  /* a wrong key: omniNames has no such object */
  snprintf(url, sizeof url, "corbaname::127.0.0.1:%u/NoSuch#a", ns_port);
  ck_assert_int_eq(iiop_client_resolve(c, url, &r), CDR_E_NOTFOUND);
  snprintf(want, sizeof want, "%s: resolve raised IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0", url);
  ck_assert_int_eq(strncmp(why(c), want, strlen(want)), 0);
  iiop_client_free(c);
  /* the C mapping's corbaname: of a name not bound: BAD_PARAM, and the
   * ORB's last error names the exception, why and the rest of the name */
  snprintf(url, sizeof url, "corbaname::127.0.0.1:%u#native/Tw%%5C.ice.svc/x", ns_port);
  ck_assert_ptr_null(CORBA_ORB_string_to_object(orb, url, &ev));
  ck_assert_int_eq(ev._major, CORBA_SYSTEM_EXCEPTION);
  ck_assert_uint_eq(((CORBA_SystemException *)CORBA_exception_value(&ev))->minor, 0x4f4d000au);
  want_sys(&ev, ex_CORBA_BAD_PARAM);
  char got[CORBAORB_ERROR_MAX];
  corbaorb_ORB_last_error(orb, got, sizeof got);
  snprintf(want, sizeof want, "string_to_object: \"%s\": the naming service raised "
           "IDL:omg.org/CosNaming/NamingContext/NotFound:1.0 (not_context, rest of name "
           "Tw\\.ice.svc/x)", url);
  ck_assert_str_eq(got, want);

  corbaorb_naming_unbind(root, "native/Tw\\.ice.svc", &ev);
  ck_assert_int_eq(ev._major, CORBA_NO_EXCEPTION);
  CORBA_Object_release(ctx, &ev);
  CORBA_Object_release(obj, &ev);
  CORBA_Object_release(root, &ev);
  CORBA_ORB_destroy(orb, &ev);
  cdr_arena_free(&a);
  iiop_server_free(srv);
}
END_TEST

#endif /* CORBAORB_TEST_COSNAMING */

/* ---------------------------------------------------------------- omniNames */

static void ns_kill(void)
{
  if (getpid() != main_pid || ns_pid <= 0)
    return;
  kill(ns_pid, SIGTERM);
  waitpid(ns_pid, NULL, 0);
  ns_pid = 0;
  char cmd[96];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", ns_dir);
  if (system(cmd) != 0)
    fprintf(stderr, "check_naming: could not remove %s\n", ns_dir);
}

static int port_open(unsigned port)
{
  int fd = nu_try_connect(NULL, (uint16_t)port);
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

/* Start omniNames on a free port with its own data directory; 0, or -1
 * when there is no omniNames or it did not start. */
static int ns_start(void)
{
  const char *bin = getenv("OMNINAMES");
  if (!bin || !*bin)
    bin = access("/usr/bin/omniNames", X_OK) == 0 ? "/usr/bin/omniNames" : NULL;
  if (!bin || access(bin, X_OK) != 0)
    return -1;
  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  for (int tries = 0; tries < 10; tries++) {
    ns_port = 20000 + (unsigned)(rand() % 30000);
    if (port_open(ns_port))
      continue;
    snprintf(ns_dir, sizeof ns_dir, "/tmp/check_naming.%d.%d", (int)getpid(), tries);
    if (mkdir(ns_dir, 0700) != 0 && errno != EEXIST)
      return -1;
    char port[16], ep[64], log[96];
    snprintf(port, sizeof port, "%u", ns_port);
    snprintf(ep, sizeof ep, "giop:tcp:127.0.0.1:%u", ns_port);
    snprintf(log, sizeof log, "%s/log", ns_dir);
    pid_t p = fork();
    if (p == 0) {
      int fd = open("/dev/null", 1);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      execl(bin, bin, "-start", port, "-always", "-datadir", ns_dir, "-errlog", log,
            "-ORBendPoint", ep, (char *)NULL);
      _exit(127);
    }
    if (p < 0)
      return -1;
    ns_pid = p;
    for (int i = 0; i < 100; i++) {
      if (port_open(ns_port))
        return 0;
      if (waitpid(p, NULL, WNOHANG) == p)
        break;
      struct timespec ts = { 0, 100 * 1000 * 1000 };
      nanosleep(&ts, NULL);
    }
    if (waitpid(p, NULL, WNOHANG) == 0) {
      kill(p, SIGKILL);
      waitpid(p, NULL, 0);
    }
    ns_pid = 0;
  }
  return -1;
}

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  main_pid = getpid();
  int have_ns = ns_start() == 0;
  if (have_ns)
    atexit(ns_kill);
  Suite *s = suite_create("naming");
  TCase *tc = tcase_create("offline");
  tcase_add_test(tc, test_name_parse);
  tcase_add_test(tc, test_native_urls);
  tcase_add_test(tc, test_native_fake_service);
#ifdef CORBAORB_TEST_COSNAMING
  tcase_add_test(tc, test_helpers_offline);
#else
  tcase_add_test(tc, test_helpers_absent);
  have_ns = 0; /* nothing binds names: the tests against omniNames need the helpers */
#endif
  suite_add_tcase(s, tc);
#ifdef CORBAORB_TEST_COSNAMING
  if (have_ns) {
    tc = tcase_create("omniNames");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_helpers);
    tcase_add_test(tc, test_native_corbaname);
    suite_add_tcase(s, tc);
  }
#endif
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (failed)
    return EXIT_FAILURE;
  if (!have_ns) {
    const char *ci = getenv("HAVE_OMNIORB");
    fprintf(stderr, "check_naming: omniNames not found or did not start (Debian package "
                    "omniorb-nameserver): the tests against it are not run\n");
    return ci && !strcmp(ci, "yes") ? EXIT_FAILURE : 77;
  }
  return EXIT_SUCCESS;
}
