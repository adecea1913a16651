/* peerutil.h - what the C-mapping test peers (tests/orb/fwd-peer,
 * tls-peer, tmo-peer; tests/orb/peerutil.c) share: the stop signals, and
 * the thread that shuts a server ORB down when one comes. */
#ifndef PEERUTIL_H
#define PEERUTIL_H

#include <pthread.h>
#include <signal.h>
#include <corbaorb/corba.h>

/* SIGINT and SIGTERM blocked in the calling thread (threads started later
 * inherit the mask); their set, for sigwait. */
sigset_t peer_stop_signals(void);

/* A thread that waits for a signal of its STOP set, then shuts ORB down
 * (CORBA_ORB_shutdown, not waiting for completion): CORBA_ORB_run then
 * returns. */
typedef struct peer_stopper {
  CORBA_ORB orb;
  sigset_t stop;
  pthread_t thread;
} peer_stopper;

/* Start P's thread for ORB and the signals STOP: 0, or -1 when it does
 * not start. */
int peer_stopper_start(peer_stopper *p, CORBA_ORB orb, const sigset_t *stop);

/* Wait for P's thread to end (after its signal came). */
void peer_stopper_join(peer_stopper *p);

#endif
