/* wlock.h - the connection write lock (internal to libiiop; tests reach it
 * through libcorbaiiop-internal.la).
 *
 * A flag taken by compare-and-set; a thread that finds it taken takes the
 * mutex, counts itself a waiter, retries the CAS, and waits on the
 * condition variable.  Unlock stores false, then (sequentially consistent)
 * reads the waiter count and signals only when it is not zero: no mutex is
 * touched while the lock is free.  iiop__wlock_close() wakes every waiter
 * (a state change: the connection closed), after which lock attempts fail
 * with CDR_E_CLOSED.
 */
#ifndef IIOP_WLOCK_H
#define IIOP_WLOCK_H

#include <pthread.h>
#include <iiop/export.h>
#include "internal.h"

typedef struct iiop__wlock {
  int locked;                 /* accessed atomically */
  int waiters;                /* accessed atomically */
  int closed;                 /* accessed atomically */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} iiop__wlock;

IIOP_HIDDEN void iiop__wlock_init(iiop__wlock *l);
IIOP_HIDDEN void iiop__wlock_destroy(iiop__wlock *l);
/* CDR_OK, or CDR_E_CLOSED after iiop__wlock_close(). */
IIOP_HIDDEN int iiop__wlock_lock(iiop__wlock *l) IIOP_WUR;
IIOP_HIDDEN void iiop__wlock_unlock(iiop__wlock *l);
/* Take the lock if it is free, never waiting: 1 taken, 0 not (held, or
 * closed). */
IIOP_HIDDEN int iiop__wlock_trylock(iiop__wlock *l) IIOP_WUR;
/* Mark closed and wake every waiter. */
IIOP_HIDDEN void iiop__wlock_close(iiop__wlock *l);

#endif
