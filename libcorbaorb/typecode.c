/* typecode.c - CORBA::TypeCode's operations (corbaorb/corba.h) over
 * libcdr's TypeCodes (cdr/typecode.h). */
#include "orb_impl.h"
#include <string.h>

/* EV from an accessor's status; nonzero when it failed. */
static int tc_fail(int rc, CORBA_Environment *ev)
{
  if (rc == CDR_OK)
    return 0;
  if (rc == CDR_E_BADKIND)
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_CORBA_TypeCode_BadKind, NULL);
  else if (rc == CDR_E_BOUNDS)
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_CORBA_TypeCode_Bounds, NULL);
  else
    corbaorb_env_status(ev, rc, CORBA_COMPLETED_NO);
  return 1;
}

static int bad(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  if (tc)
    return 0;
  CORBA_exception_set_system(ev, ex_CORBA_BAD_PARAM, CORBA_COMPLETED_NO);
  return 1;
}

static CORBA_char *dup_or_nomem(const char *s, CORBA_Environment *ev)
{
  CORBA_char *d = CORBA_string_dup(s);
  if (!d)
    CORBA_exception_set_system(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
  return d;
}

static CORBA_TypeCode tc_dup_ev(CORBA_TypeCode t, CORBA_Environment *ev)
{
  int st = CDR_OK;
  CORBA_TypeCode d = cdr_tc_dup(t, &st);
  if (!d)
    tc_fail(st ? st : CDR_E_NOMEM, ev);
  return d;
}

CORBA_TCKind CORBA_TypeCode_kind(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  if (bad(tc, ev))
    return CORBA_tk_null;
  int k = cdr_tc_kind(tc);
  if (k < 0) {
    CORBA_exception_set(ev, CORBA_USER_EXCEPTION, ex_CORBA_TypeCode_BadKind, NULL);
    return CORBA_tk_null;
  }
  return (CORBA_TCKind)k;
}

static CORBA_boolean cmp(int r, CORBA_Environment *ev)
{
  if (r < 0) {
    tc_fail(r, ev);
    return 0;
  }
  return r ? 1 : 0;
}

CORBA_boolean CORBA_TypeCode_equal(CORBA_TypeCode tc, CORBA_TypeCode other, CORBA_Environment *ev)
{
  if (bad(tc, ev) || bad(other, ev))
    return 0;
  return cmp(cdr_tc_equal(tc, other), ev);
}

CORBA_boolean CORBA_TypeCode_equivalent(CORBA_TypeCode tc, CORBA_TypeCode other,
                                        CORBA_Environment *ev)
{
  if (bad(tc, ev) || bad(other, ev))
    return 0;
  int r = cdr_tc_equivalent(tc, other);
  if (r == 1 && tc != other) {
    /* Equivalent by repository ID, yet maybe of another C layout: a
     * TypeCode off the wire that names the program's type with other
     * members (another version of it, or a hostile peer).  Not
     * equivalent then, so that the mapping's way to read an any --
     * compare its TypeCode, cast _value (docs/c-mapping.md) -- never reads
     * one layout as another (cdr_any_get()'s check). */
    cdr_any t;
    cdr_any_init(&t);
    t._type = (cdr_typecode)tc;
    const void *v;
    int g = cdr_any_get(&t, other, &v);
    if (g == CDR_E_TYPE)
      r = 0;
    else if (g < 0)
      r = g;
  }
  return cmp(r, ev);
}

CORBA_TypeCode CORBA_TypeCode_get_compact_typecode(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  CORBA_TypeCode out = NULL;
  if (bad(tc, ev) || tc_fail(cdr_tc_get_compact(tc, &out), ev))
    return NULL;
  return out;
}

CORBA_char *CORBA_TypeCode_id(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  const char *s;
  if (bad(tc, ev) || tc_fail(cdr_tc_id(tc, &s), ev))
    return NULL;
  return dup_or_nomem(s, ev);
}

CORBA_char *CORBA_TypeCode_name(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  const char *s;
  if (bad(tc, ev) || tc_fail(cdr_tc_name(tc, &s), ev))
    return NULL;
  return dup_or_nomem(s, ev);
}

CORBA_unsigned_long CORBA_TypeCode_member_count(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  uint32_t n = 0;
  if (bad(tc, ev) || tc_fail(cdr_tc_member_count(tc, &n), ev))
    return 0;
  return n;
}

CORBA_char *CORBA_TypeCode_member_name(CORBA_TypeCode tc, CORBA_unsigned_long index,
                                       CORBA_Environment *ev)
{
  const char *s;
  if (bad(tc, ev) || tc_fail(cdr_tc_member_name(tc, index, &s), ev))
    return NULL;
  return dup_or_nomem(s, ev);
}

CORBA_TypeCode CORBA_TypeCode_member_type(CORBA_TypeCode tc, CORBA_unsigned_long index,
                                          CORBA_Environment *ev)
{
  CORBA_TypeCode t;
  if (bad(tc, ev) || tc_fail(cdr_tc_member_type(tc, index, &t), ev))
    return NULL;
  return tc_dup_ev(t, ev);
}

CORBA_any *CORBA_TypeCode_member_label(CORBA_TypeCode tc, CORBA_unsigned_long index,
                                       CORBA_Environment *ev)
{
  int64_t label;
  CORBA_TypeCode lt;
  if (bad(tc, ev) || tc_fail(cdr_tc_member_label(tc, index, &label, &lt), ev))
    return NULL;
  CORBA_any *a = CORBA_any__alloc();
  CORBA_TypeCode u = corbaorb_tc_unalias(lt);
  void *v = a ? corbaorb_alloc(u, 1) : NULL;
  if (!v) {
    CORBA_free(a);
    CORBA_exception_set_system(ev, ex_CORBA_NO_MEMORY, CORBA_COMPLETED_NO);
    return NULL;
  }
  switch (u->size) { /* integers, enums, chars, booleans: the label's low octets */
  case 1: { uint8_t x = (uint8_t)label; memcpy(v, &x, 1); break; }
  case 2: { uint16_t x = (uint16_t)label; memcpy(v, &x, 2); break; }
  case 4: { uint32_t x = (uint32_t)label; memcpy(v, &x, 4); break; }
  default: memcpy(v, &label, 8); break;
  }
  a->_type = tc_dup_ev(lt, ev);
  a->_value = v;
  a->_release = 1;
  if (!a->_type) {
    a->_type = TC_null;
    CORBA_free(a);
    return NULL;
  }
  return a;
}

CORBA_TypeCode CORBA_TypeCode_discriminator_type(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  CORBA_TypeCode t;
  if (bad(tc, ev) || tc_fail(cdr_tc_discriminator_type(tc, &t), ev))
    return NULL;
  return tc_dup_ev(t, ev);
}

CORBA_long CORBA_TypeCode_default_index(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  int32_t i = -1;
  if (bad(tc, ev) || tc_fail(cdr_tc_default_index(tc, &i), ev))
    return -1;
  return i;
}

CORBA_unsigned_long CORBA_TypeCode_length(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  uint32_t n = 0;
  if (bad(tc, ev) || tc_fail(cdr_tc_length(tc, &n), ev))
    return 0;
  return n;
}

CORBA_TypeCode CORBA_TypeCode_content_type(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  CORBA_TypeCode t;
  if (bad(tc, ev) || tc_fail(cdr_tc_content_type(tc, &t), ev))
    return NULL;
  return tc_dup_ev(t, ev);
}

CORBA_unsigned_short CORBA_TypeCode_fixed_digits(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  uint16_t d = 0;
  if (bad(tc, ev) || tc_fail(cdr_tc_fixed_digits(tc, &d), ev))
    return 0;
  return d;
}

CORBA_short CORBA_TypeCode_fixed_scale(CORBA_TypeCode tc, CORBA_Environment *ev)
{
  int16_t s = 0;
  if (bad(tc, ev) || tc_fail(cdr_tc_fixed_scale(tc, &s), ev))
    return 0;
  return s;
}
