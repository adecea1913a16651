#include "config.h"
/* wlock.c - the connection write lock (wlock.h): a flag taken by
 * compare-and-set, a mutex and condition variable only for threads that
 * find it taken.
 *
 * Why no wakeup is lost: a waiter increments `waiters` (sequentially
 * consistent) before it retries the CAS, and the unlocker stores
 * `locked = 0` (sequentially consistent) before it reads `waiters`.  In the
 * single total order of those four operations either the unlocker reads the
 * waiter's increment (and then signals under the mutex, which the waiter
 * holds from its increment until pthread_cond_wait releases it, so the
 * signal cannot fall between the waiter's CAS and its wait) or the
 * waiter's CAS comes after the store of 0 and succeeds.
 *
 * The uncontended lock and unlock are inline in wlock.h; this file holds
 * the waiting and the waking.  Building libiiop with -DWLOCK_BROKEN (in
 * CPPFLAGS: every file that includes wlock.h) replaces the CAS with a load
 * followed by a store (test-then-set): two threads can both see the flag clear and both
 * take the lock.  tests/check_wlock.c must fail against that build; it
 * exists only to prove that the test can see the difference.
 */
#include <stdbool.h>
#include <pthread.h>
#include <cdr/error.h>
#include "wlock.h"

void iiop__wlock_init(iiop__wlock *l)
{
  l->locked = 0;
  l->waiters = 0;
  l->closed = 0;
  pthread_mutex_init(&l->mu, NULL);
  pthread_cond_init(&l->cv, NULL);
}

void iiop__wlock_destroy(iiop__wlock *l)
{
  pthread_cond_destroy(&l->cv);
  pthread_mutex_destroy(&l->mu);
}

int iiop__wlock_lock_slow(iiop__wlock *l)
{
  int rc;
  pthread_mutex_lock(&l->mu);
  __atomic_add_fetch(&l->waiters, 1, __ATOMIC_SEQ_CST);
  for (;;) {
    if (__atomic_load_n(&l->closed, __ATOMIC_ACQUIRE)) {
      rc = CDR_E_CLOSED;
      break;
    }
    if (iiop__wlock_try_take(l)) {
      rc = CDR_OK;
      break;
    }
    pthread_cond_wait(&l->cv, &l->mu);
  }
  __atomic_sub_fetch(&l->waiters, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&l->mu);
  return rc;
}

int iiop__wlock_trylock(iiop__wlock *l)
{
  if (__atomic_load_n(&l->closed, __ATOMIC_ACQUIRE))
    return 0;
  return iiop__wlock_try_take(l) ? 1 : 0;
}

void iiop__wlock_wake(iiop__wlock *l)
{
  pthread_mutex_lock(&l->mu);
  pthread_cond_signal(&l->cv);
  pthread_mutex_unlock(&l->mu);
}

void iiop__wlock_close(iiop__wlock *l)
{
  __atomic_store_n(&l->closed, 1, __ATOMIC_SEQ_CST);
  /* Under the mutex: a waiter that saw closed == 0 is already waiting. */
  pthread_mutex_lock(&l->mu);
  pthread_cond_broadcast(&l->cv);
  pthread_mutex_unlock(&l->mu);
}
