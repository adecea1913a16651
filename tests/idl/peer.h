/* peer.h - what the C peers of idl2c's IDL tests (tests/idl/wide-peer.c,
 * tests/idlzoo/zoo-peer.c) share: an exception check that ends the
 * process, a deep copy of a value by its TypeCode, the inout/out rule for
 * variable-length types; the server's IOR lines and run loop; the client's
 * TAP-style checks ("ok N - what", "not ok N - what") and their summary;
 * and main, which starts the ORB and runs the server or the client.
 * Define PEER_NAME (the program's name, for messages) before including
 * it. */
#ifndef TESTS_IDL_PEER_H
#define TESTS_IDL_PEER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cdr/any.h>
#include <cdr/cdr.h>
#include <corbaorb/corba.h>

static CORBA_ORB orb; /* the peer's ORB: peer_main makes and destroys it */

/* EV raised something: say what (WHAT, the exception's ID) and exit 1. */
static inline void check(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return;
  fprintf(stderr, PEER_NAME ": %s: %s\n", what, CORBA_exception_id(ev));
  exit(1);
}

/* a new CORBA_free block holding a deep copy of the value at SRC of type TC */
static inline void *dupv(CORBA_TypeCode tc, const void *src)
{
  void *p = corbaorb_alloc(tc, 1);
  if (!p || corbaorb_copy(tc, p, src) != CDR_OK) {
    fprintf(stderr, PEER_NAME ": out of memory\n");
    exit(1);
  }
  return p;
}

/* the rule for a variable-length T: *c = old b, b = a, return a */
static inline void *rotate(CORBA_TypeCode tc, const void *a, void *b, void **c)
{
  *c = dupv(tc, b);
  corbaorb_free_contents(tc, b);
  if (corbaorb_copy(tc, b, a) != CDR_OK)
    exit(1);
  return dupv(tc, a);
}

/* ---------------------------------------------------------------- server */

/* O's IOR on a line of stdout; exits 1 when the ORB does not stringify it. */
static inline void print_ref(CORBA_Object o, CORBA_Environment *ev)
{
  CORBA_char *ior = CORBA_ORB_object_to_string(orb, o, ev);
  check(ev, "object_to_string");
  printf("%s\n", ior);
  CORBA_free(ior);
}

/* The server, its IORs printed: stdout flushed (the test reads the IORs
 * off it), POA's manager activated and the ORB run until a client's
 * shutdown ends it.  Exits 1 on an exception. */
static inline void peer_run(PortableServer_POA poa, CORBA_Environment *ev)
{
  fflush(stdout);
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(poa, ev), ev);
  check(ev, "activate POAManager");
  CORBA_ORB_run(orb, ev);
  check(ev, "run");
}

/* ---------------------------------------------------------------- client */

static int nchecks, nfailed;

/* One check: "ok N - WHAT" when COND holds, else "not ok N - WHAT" (and
 * counted as failed). */
static inline void ok(int cond, const char *what)
{
  nchecks++;
  if (!cond)
    nfailed++;
  printf("%s %d - %s\n", cond ? "ok" : "not ok", nchecks, what);
}

/* 1 when EV holds no exception; else a failed check "WHAT: exception ID",
 * EV freed, and 0. */
static inline int no_ex(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 1;
  char m[200];
  snprintf(m, sizeof m, "%s: exception %s", what, CORBA_exception_id(ev));
  ok(0, m);
  CORBA_exception_free(ev);
  return 0;
}

static inline int eq(CORBA_TypeCode tc, const void *a, const void *b)
{
  return cdr_value_equal(tc, a, b) == 1;
}

/* check a rotated call: RET == A, B == A, C == OLD_B; frees RET and C and B's contents */
static inline void rot_check(CORBA_TypeCode tc, const char *what, const void *a, void *b,
                      const void *old_b, void *ret, void *c)
{
  char m[200];
  snprintf(m, sizeof m, "%s: result, inout and out", what);
  ok(ret && c && eq(tc, ret, a) && eq(tc, b, a) && eq(tc, c, old_b), m);
  CORBA_free(ret);
  CORBA_free(c);
  corbaorb_free_contents(tc, b);
}

/* The client's last line, "N checks, M failed"; its exit status: 1 when a
 * check failed, else 0. */
static inline int peer_summary(void)
{
  printf("%d checks, %d failed\n", nchecks, nfailed);
  return nfailed ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

/* The peer's main: the ORB made from ARGC/ARGV (exit 1 when it is not);
 * then "server": SERVER()'s status; "client REF1 .. REF<NREFS>
 * [--shutdown]": CLIENT(the NREFS stringified references, whether
 * --shutdown follows them)'s status, the ORB destroyed after; anything
 * else: "usage: PEER_NAME server | client USAGE [--shutdown]" on stderr
 * and 2. */
static inline int peer_main(int argc, char **argv, int (*server)(void), int nrefs,
                     int (*client)(char **refs, int shutdown), const char *usage)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  orb = CORBA_ORB_init(&argc, argv, "", &ev);
  check(&ev, "ORB_init");
  int rc;
  if (argc >= 2 && strcmp(argv[1], "server") == 0) {
    rc = server();
  } else if (argc >= 2 + nrefs && strcmp(argv[1], "client") == 0) {
    rc = client(argv + 2, argc >= 3 + nrefs && strcmp(argv[2 + nrefs], "--shutdown") == 0);
    CORBA_ORB_destroy(orb, &ev);
  } else {
    fprintf(stderr, "usage: " PEER_NAME " server | client %s [--shutdown]\n", usage);
    rc = 2;
  }
  return rc;
}

#endif
