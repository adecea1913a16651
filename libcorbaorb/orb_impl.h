/* orb_impl.h - libcorbaorb's private declarations. */
#ifndef CORBAORB_ORB_IMPL_H
#define CORBAORB_ORB_IMPL_H

#include <corbaorb/corba.h>

/* TC with its aliases removed (bounded). */
CORBA_TypeCode corbaorb_tc_unalias(CORBA_TypeCode tc);
/* The branch the discriminator at P selects in union TC, or NULL. */
const cdr_union_case *corbaorb_union_case(CORBA_TypeCode tc, const void *p);
int corbaorb_tc_variable_depth(CORBA_TypeCode tc, int depth);

/* Reference counting without an environment (NIL allowed). */
CORBA_Object corbaorb_object_dup(CORBA_Object obj);
void corbaorb_object_release(CORBA_Object obj);

/* EV set to the system exception of a libcdr/libiiop status ST. */
void corbaorb_env_status(CORBA_Environment *ev, int st, CORBA_completion_status completed);

#endif
