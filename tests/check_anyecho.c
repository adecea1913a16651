#include <check.h>
#include "testutil.h"
static Suite *s(void) { return suite_create("anyecho"); }
const tu_program tu_prog = { .suite = s };
