/* any_print.c - cdr_any_print(): an any as text from its TypeCode alone
 * (format: cdr/any.h). */
#include "any_impl.h"

size_t cdr_any_print(char *buf, size_t size, const cdr_any *a)
{
  (void)a;
  if (size)
    buf[0] = 0;
  return 0;
}
