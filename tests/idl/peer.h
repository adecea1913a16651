/* peer.h - what the C peers of idl2c's IDL tests (tests/idl/wide-peer.c,
 * tests/idlzoo/zoo-peer.c) share: an exception check that ends the
 * process, a deep copy of a value by its TypeCode, and the inout/out rule
 * for variable-length types.  Define PEER_NAME (the program's name, for
 * messages) before including it. */
#ifndef TESTS_IDL_PEER_H
#define TESTS_IDL_PEER_H

#include <stdio.h>
#include <stdlib.h>
#include <cdr/cdr.h>
#include <corbaorb/corba.h>

/* EV raised something: say what (WHAT, the exception's ID) and exit 1. */
static void check(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return;
  fprintf(stderr, PEER_NAME ": %s: %s\n", what, CORBA_exception_id(ev));
  exit(1);
}

/* a new CORBA_free block holding a deep copy of the value at SRC of type TC */
static void *dupv(CORBA_TypeCode tc, const void *src)
{
  void *p = corbaorb_alloc(tc, 1);
  if (!p || corbaorb_copy(tc, p, src) != CDR_OK) {
    fprintf(stderr, PEER_NAME ": out of memory\n");
    exit(1);
  }
  return p;
}

/* the rule for a variable-length T: *c = old b, b = a, return a */
static void *rotate(CORBA_TypeCode tc, const void *a, void *b, void **c)
{
  *c = dupv(tc, b);
  corbaorb_free_contents(tc, b);
  if (corbaorb_copy(tc, b, a) != CDR_OK)
    exit(1);
  return dupv(tc, a);
}

#endif
