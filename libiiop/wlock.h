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
#include <stdbool.h>
#include <cdr/error.h>
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
/* The parts that touch the mutex (wlock.c): waiting for the lock, and
 * waking a waiter. */
IIOP_HIDDEN int iiop__wlock_lock_slow(iiop__wlock *l) IIOP_WUR;
IIOP_HIDDEN void iiop__wlock_wake(iiop__wlock *l);

/* One attempt to take the flag. */
static inline bool iiop__wlock_try_take(iiop__wlock *l)
{
#ifndef WLOCK_BROKEN
  int expected = 0;
  return __atomic_compare_exchange_n(&l->locked, &expected, 1, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_RELAXED);
#else
  /* Deliberately wrong: the test and the set are two operations. */
  if (__atomic_load_n(&l->locked, __ATOMIC_ACQUIRE))
    return false;
  __atomic_store_n(&l->locked, 1, __ATOMIC_RELAXED);
  return true;
#endif
}

/* CDR_OK, or CDR_E_CLOSED after iiop__wlock_close().  Inline up to the
 * compare-and-set: a free lock costs a load and the CAS, no call. */
static inline IIOP_WUR int iiop__wlock_lock(iiop__wlock *l)
{
  if (__builtin_expect(__atomic_load_n(&l->closed, __ATOMIC_ACQUIRE), 0))
    return CDR_E_CLOSED;
  if (__builtin_expect(iiop__wlock_try_take(l), 1))
    return CDR_OK;
  return iiop__wlock_lock_slow(l);
}

static inline void iiop__wlock_unlock(iiop__wlock *l)
{
  __atomic_store_n(&l->locked, 0, __ATOMIC_SEQ_CST);
  if (__builtin_expect(__atomic_load_n(&l->waiters, __ATOMIC_SEQ_CST) != 0, 0))
    iiop__wlock_wake(l);
}

/* Take the lock if it is free, never waiting: 1 taken, 0 not (held, or
 * closed). */
IIOP_HIDDEN int iiop__wlock_trylock(iiop__wlock *l) IIOP_WUR;
/* Mark closed and wake every waiter. */
IIOP_HIDDEN void iiop__wlock_close(iiop__wlock *l);

#endif
