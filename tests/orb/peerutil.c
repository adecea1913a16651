/* peerutil.c - what the C-mapping test peers share (peerutil.h). */
#include <stdio.h>
#include "peerutil.h"

sigset_t peer_stop_signals(void)
{
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &s, NULL);
  return s;
}

static void *stopper_main(void *arg)
{
  peer_stopper *p = arg;
  int sig;
  sigwait(&p->stop, &sig);
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_ORB_shutdown(p->orb, CORBA_FALSE, &ev);
  return NULL;
}

int peer_stopper_start(peer_stopper *p, CORBA_ORB orb, const sigset_t *stop)
{
  p->orb = orb;
  p->stop = *stop;
  return pthread_create(&p->thread, NULL, stopper_main, p) == 0 ? 0 : -1;
}

void peer_stopper_join(peer_stopper *p) { pthread_join(p->thread, NULL); }

int peer_run(CORBA_ORB orb, const sigset_t *stop, CORBA_Environment *ev)
{
  peer_stopper t;
  if (peer_stopper_start(&t, orb, stop) != 0)
    return -1;
  CORBA_ORB_run(orb, ev);
  if (ev->_major == CORBA_NO_EXCEPTION)
    peer_stopper_join(&t);
  return 0;
}

int peer_failed(const char *prog, CORBA_Environment *ev, const char *what)
{
  if (ev->_major == CORBA_NO_EXCEPTION)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", prog, what, CORBA_exception_id(ev));
  return 1;
}

CORBA_Object peer_activate(CORBA_ORB orb, const char *id, PortableServer_Servant servant,
                           PortableServer_POA *poa, PortableServer_ObjectId **oid,
                           CORBA_char **ior, const char **what, CORBA_Environment *ev)
{
  const char *step;
  if (!what)
    what = &step;
  *oid = NULL;
  *ior = NULL;
  *what = "omniINSPOA";
  *poa = (PortableServer_POA)CORBA_ORB_resolve_initial_references(orb, "omniINSPOA", ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return NULL;
  *what = "activate";
  *oid = PortableServer_string_to_ObjectId(id, ev);
  PortableServer_POA_activate_object_with_id(*poa, *oid, servant, ev);
  CORBA_Object self = PortableServer_POA_servant_to_reference(*poa, servant, ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return NULL;
  *ior = CORBA_ORB_object_to_string(orb, self, ev);
  *what = "POAManager";
  PortableServer_POAManager_activate(PortableServer_POA__get_the_POAManager(*poa, ev), ev);
  if (ev->_major != CORBA_NO_EXCEPTION)
    return NULL;
  return self;
}
