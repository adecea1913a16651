/* env.c - CORBA_Environment and exceptions (corbaorb/corba.h). */
#include "orb_impl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OWN_ID 1u
#define OWN_PARAMS 2u

void CORBA_exception_init(CORBA_Environment *ev)
{
  if (ev)
    memset(ev, 0, sizeof *ev);
}

void CORBA_exception_free(CORBA_Environment *ev)
{
  if (!ev)
    return;
  if (ev->_flags & OWN_PARAMS)
    CORBA_free(ev->_params);
  if (ev->_flags & OWN_ID)
    CORBA_free(ev->_id);
  memset(ev, 0, sizeof *ev);
}

static void set_nomem(CORBA_Environment *ev)
{
  ev->_major = CORBA_SYSTEM_EXCEPTION;
  ev->_id = (char *)ex_CORBA_NO_MEMORY;
  ev->_sys.minor = 0;
  ev->_sys.completed = CORBA_COMPLETED_NO;
  ev->_params = &ev->_sys;
  ev->_flags = 0;
}

void CORBA_exception_set(CORBA_Environment *ev, CORBA_exception_type major,
                         const CORBA_char *except_repos_id, void *param)
{
  if (!ev)
    return;
  CORBA_exception_free(ev);
  if (major == CORBA_NO_EXCEPTION) {
    if (param)
      CORBA_free(param);
    return;
  }
  char *id = CORBA_string_dup(except_repos_id ? except_repos_id : "");
  if (!id) {
    if (major == CORBA_USER_EXCEPTION && param)
      CORBA_free(param);
    set_nomem(ev);
    return;
  }
  ev->_major = major;
  ev->_id = id;
  ev->_flags = OWN_ID;
  if (major == CORBA_SYSTEM_EXCEPTION) {
    if (param)
      ev->_sys = *(const CORBA_SystemException *)param;
    else {
      ev->_sys.minor = 0;
      ev->_sys.completed = CORBA_COMPLETED_NO;
    }
    ev->_params = &ev->_sys;
  } else {
    ev->_params = param;
    if (param)
      ev->_flags |= OWN_PARAMS;
  }
}

void corbaorb_exception_set_system_minor(CORBA_Environment *ev, const CORBA_char *id,
                                         CORBA_unsigned_long minor,
                                         CORBA_completion_status completed)
{
  CORBA_SystemException se = { minor, completed };
  CORBA_exception_set(ev, CORBA_SYSTEM_EXCEPTION, id, &se);
}

void CORBA_exception_set_system(CORBA_Environment *ev, const CORBA_char *id,
                                CORBA_completion_status completed)
{
  corbaorb_exception_set_system_minor(ev, id, 0, completed);
}

CORBA_char *CORBA_exception_id(CORBA_Environment *ev)
{
  return ev && ev->_major != CORBA_NO_EXCEPTION ? ev->_id : NULL;
}

void *CORBA_exception_value(CORBA_Environment *ev)
{
  return ev && ev->_major != CORBA_NO_EXCEPTION ? ev->_params : NULL;
}

void corbaorb_env_status(CORBA_Environment *ev, int st, CORBA_completion_status completed)
{
  const char *name = cdr_status_exception(st);
  uint32_t minor = cdr_status_minor(st);
  char id[96];
  snprintf(id, sizeof id, "IDL:omg.org/CORBA/%s:1.0", name ? name : "UNKNOWN");
  corbaorb_exception_set_system_minor(ev, id, minor ? 0x4f4d0000u | minor : 0, completed);
}
