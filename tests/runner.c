/* runner.c - the main() of every tests/check_* program.  Each check_*.c
 * defines tu_prog (testutil.h): its suite, and the work it needs once around
 * the whole run (outside the processes Check forks for the tests). */
#include <check.h>
#include <stdlib.h>
#include "testutil.h"

int main(void)
{
  if (tu_prog.setup && tu_prog.setup() != 0)
    return EXIT_FAILURE;
  SRunner *sr = srunner_create(tu_prog.suite());
  srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY, CK_NORMAL when unset */
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (tu_prog.teardown)
    tu_prog.teardown();
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
