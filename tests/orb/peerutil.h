/* peerutil.h - what the C-mapping test peers (tests/orb/fwd-peer,
 * tls-peer, tmo-peer; tests/orb/peerutil.c) share: the stop signals, the
 * thread that shuts a server ORB down when one comes, and a servant
 * activated in omniINSPOA with its IOR. */
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

/* ORB run (CORBA_ORB_run) until a signal of STOP comes, a peer_stopper
 * shutting it down, and that thread joined: 0, or -1 when the thread does
 * not start (ORB not run).  When run raises an exception (in EV) the
 * thread is not joined (no signal may come; the caller exits). */
int peer_run(CORBA_ORB orb, const sigset_t *stop, CORBA_Environment *ev);

/* 0 when EV holds no exception; else "PROG: WHAT: ID" on stderr and 1. */
int peer_failed(const char *prog, CORBA_Environment *ev, const char *what);

/* SERVANT (its POA_..._init done) activated in ORB's omniINSPOA under the
 * ObjectId ID (its object key, so that corbaloc::HOST:PORT/ID reaches it),
 * and the POA's manager activated: the object's reference, *POA the POA,
 * *OID the ObjectId (CORBA_free it; for deactivate_object) and *IOR the
 * stringified reference (CORBA_free it).  On an exception: NULL, EV holding
 * it and *WHAT (unless WHAT is NULL) the step that raised it
 * ("omniINSPOA", "activate", "POAManager"). */
CORBA_Object peer_activate(CORBA_ORB orb, const char *id, PortableServer_Servant servant,
                           PortableServer_POA *poa, PortableServer_ObjectId **oid,
                           CORBA_char **ior, const char **what, CORBA_Environment *ev);

#endif
