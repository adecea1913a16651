/* peerutil.c - what the C-mapping test peers share (peerutil.h). */
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
