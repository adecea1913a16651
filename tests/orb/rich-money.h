/* rich-money.h - Rich::Money (rich.idl's fixed<6,2>) as a count of
 * hundredths and back, for the C client and server of rich.idl
 * (tests/orb/rich-client.c, rich-server.c).  Include it after "rich.h". */
#ifndef TESTS_ORB_RICH_MONEY_H
#define TESTS_ORB_RICH_MONEY_H

#include <string.h>

/* CENTS hundredths as a fixed<6,2> (six digits, the sign apart; a value
 * of more than six digits keeps its last six). */
static inline Rich_Money money(long cents)
{
  Rich_Money m;
  memset(&m, 0, sizeof m);
  m.digits = 6;
  m.scale = 2;
  m.negative = cents < 0;
  unsigned long u = cents < 0 ? (unsigned long)-cents : (unsigned long)cents;
  for (int i = 5; i >= 0; i--, u /= 10)
    m.d[i] = (CORBA_octet)(u % 10);
  return m;
}

/* M (of scale 2 at most) as a count of hundredths. */
static inline long money_cents(const Rich_Money *m)
{
  long v = 0;
  for (int i = 0; i < m->digits; i++)
    v = v * 10 + m->d[i];
  for (int i = m->scale; i < 2; i++)
    v *= 10;
  return m->negative ? -v : v;
}

#endif
