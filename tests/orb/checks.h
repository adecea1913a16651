/* checks.h - the checks of the C-mapping test clients (tests/orb/
 * shop-client.c, rich-client.c): one line a check on stdout, "ok N -
 * what" or "not ok N - what: detail", counted in n_checks and n_failed
 * (the client's exit status is 1 when n_failed is not 0). */
#ifndef TESTS_ORB_CHECKS_H
#define TESTS_ORB_CHECKS_H

#include <stdio.h>
#include <corbaorb/corba.h>

static int n_checks, n_failed;

/* One check: passed when COND holds; DETAIL (NULL: none) says what came
 * instead. */
static inline void ok(int cond, const char *what, const char *detail)
{
  n_checks++;
  if (cond) {
    printf("ok %d - %s\n", n_checks, what);
  } else {
    n_failed++;
    printf("not ok %d - %s: %s\n", n_checks, what, detail ? detail : "");
  }
}

/* 1 when EV holds no exception; else a failed check WHAT ("exception
 * ID"), EV freed, and 0. */
static inline int no_exc(CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 1;
  char d[256];
  snprintf(d, sizeof d, "exception %s", CORBA_exception_id(ev));
  ok(0, what, d);
  CORBA_exception_free(ev);
  return 0;
}

#endif
