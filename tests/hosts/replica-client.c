/* replica-client.c - the client side of tests/hosts.test: several threads
 * spread calls over the replicas of Hosts::Replica (replica.idl) that a
 * naming context lists, through the OMG C mapping (idl2c, libcorbaorb),
 * and go on with the others when one dies.
 *
 *   replica-client [-ORB options] CONTEXT-URL [--threads N] [--after MS]
 *                  [--killed NAME]
 *   replica-client [-ORB options] CONTEXT-URL --list
 *
 * CONTEXT-URL names the naming context of the replicas
 * ("corbaname::HOST:PORT#replicas"); it is resolved through
 * CORBA_ORB_string_to_object and listed (CosNaming list, then resolve of
 * each binding: the CosNaming stubs that idl2c generates from omniORB's
 * CosNaming.idl) at the start and again after each failed call (at most
 * every 100 ms).  Calls carry a timeout (-ORBclientCallTimeOutPeriod,
 * default here 2000 ms): every call returns or raises.
 *
 * With --list it prints the names listed, one a line, and exits.
 *
 * Each of N threads (default 4) sends ask(seq) to the next replica that is
 * up, round robin.  A replica whose call raised is down: not chosen for a
 * back-off (250 ms, doubling to 2 s while it keeps failing, reset by a
 * success), then tried again.  That is what a deployment does: a crashed
 * replica's binding stays in the naming service (nobody unbinds it; a
 * restarted replica rebinds its name), so the list alone cannot tell a
 * dead replica from a live one.  The request of a failed call is sent
 * again to another replica: every request is answered while one replica
 * lives.
 *
 * Once every listed replica has answered 20 calls (and 300 ms have gone)
 * it prints "warm" and waits (up to 20 s) for SIGUSR1: the moment of the
 * kill, which the test sends just before it kills a replica.  MS (default
 * 2000) milliseconds later the threads stop; it prints the report: calls
 * made, succeeded, failed by reason (exception id, minor code, completion
 * status) and by replica, lost (made - succeeded - failed: calls that
 * neither returned nor raised), per replica the successes before and
 * after the kill, and the longest time without a successful call from
 * the kill (or the first failure, if earlier) to the end.
 *
 * Exit status 0 when the report holds: lost 0, every answer from the
 * replica called with the seq sent, every request answered, the longest
 * gap under 1 s, no re-listing failed, and with --killed NAME: successes
 * on every replica before the kill and on every other replica after it,
 * at least one failure, failures only TRANSIENT or COMM_FAILURE and only
 * from NAME.  1 when one fails (a line "FAIL ..." says which), 2 for
 * usage or setup.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "CosNaming.h"
#include "replica.h"

#define MAX_REPLICAS 16
#define MAX_THREADS 32
#define MAX_REASONS 16
#define MAX_OK_TIMES (1u << 16) /* successes timed per thread (about 500 a second) */
#define MS 1000000LL            /* nanoseconds */
#define BACKOFF_MIN (250 * MS)
#define BACKOFF_MAX (2000 * MS)
#define REFRESH_EVERY (100 * MS)
#define GAP_LIMIT (1000 * MS)
#define WARM_CALLS 20

typedef struct replica {
  char name[64];
  CORBA_Object ref;    /* the table's reference; NIL while not listed */
  int64_t down_until;  /* not chosen before this time (0: up) */
  int64_t backoff;     /* the next down time */
  unsigned long ok_before, ok_after, failed;
  unsigned long failed_by[MAX_REASONS];
} replica;

typedef struct worker {
  pthread_t thread;
  int index;
  int64_t *ok_times;   /* completion times of successes after "warm" */
  unsigned n_ok_times;
  int overflow;
  int done;            /* atomic: the thread has ended */
  /* per replica: the last "served" this thread saw (answers of one
   * replica to one thread must count up) */
  CORBA_unsigned_long last_served[MAX_REPLICAS];
} worker;

static CORBA_ORB orb;
static const char *ctx_url;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the table and counters below */
static replica replicas[MAX_REPLICAS];
static int n_replicas;
static unsigned long rr;                /* the replica chosen last (round robin) */
static char *reasons[MAX_REASONS];      /* "ID minor 0xM completed C" */
static unsigned long reason_count[MAX_REASONS];
static int n_reasons;
static unsigned long bad_answers, refresh_ok, refresh_failed;
static char first_bad[160];

static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER; /* one lister at a time */
static int64_t last_refresh;

/* atomics */
static unsigned long calls_made, calls_ok, calls_failed;
static unsigned long requests, answered;
static CORBA_unsigned_long next_seq;
static int64_t mark_ns, warm_ns, stop_ns = INT64_MAX, first_fail_ns = INT64_MAX;

static int64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void on_usr1(int sig)
{
  (void)sig;
  int64_t zero = 0, t = now_ns(); /* clock_gettime is async-signal-safe */
  __atomic_compare_exchange_n(&mark_ns, &zero, t, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void sleep_ms(long ms)
{
  struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&t, NULL);
}

/* The index of the reason of the exception in EV (lock held); -1 when the
 * table is full. */
static int reason_of(CORBA_Environment *ev)
{
  char key[160];
  const char *id = CORBA_exception_id(ev);
  if (ev->_major == CORBA_SYSTEM_EXCEPTION) {
    const CORBA_SystemException *se = CORBA_exception_value(ev);
    static const char *const completed[] = { "YES", "NO", "MAYBE" };
    snprintf(key, sizeof key, "%s minor 0x%x completed %s", id ? id : "?", se ? se->minor : 0,
             se && se->completed <= 2 ? completed[se->completed] : "?");
  } else {
    snprintf(key, sizeof key, "%s (user exception)", id ? id : "?");
  }
  for (int i = 0; i < n_reasons; i++)
    if (!strcmp(reasons[i], key))
      return i;
  if (n_reasons == MAX_REASONS)
    return -1;
  reasons[n_reasons] = strdup(key);
  return reasons[n_reasons] ? n_reasons++ : -1;
}

static int find_replica(const char *name)
{
  for (int i = 0; i < n_replicas; i++)
    if (!strcmp(replicas[i].name, name))
      return i;
  return -1;
}

/* List the context again: each binding (an object named "NAME", no kind)
 * resolved in it; names already known keep their counters and down time
 * and get the new reference, new names are added, names no longer listed
 * are not chosen.  Skipped when another thread lists or the last listing
 * is less than REFRESH_EVERY old (unless FORCE).  0, or -1 when a call to
 * the naming service raised. */
static int refresh(int force)
{
  if (pthread_mutex_trylock(&refresh_lock) != 0)
    return 0;
  int64_t t = now_ns();
  if (!force && t - last_refresh < REFRESH_EVERY) {
    pthread_mutex_unlock(&refresh_lock);
    return 0;
  }
  last_refresh = t;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  CORBA_Object found[MAX_REPLICAS] = { 0 };
  char names[MAX_REPLICAS][64];
  int n = 0, rc = -1;
  CosNaming_BindingList *bl = NULL;
  CosNaming_BindingIterator it = CORBA_OBJECT_NIL;
  CosNaming_NamingContext ctx = CORBA_ORB_string_to_object(orb, ctx_url, &ev);
  if (ev._major != CORBA_NO_EXCEPTION)
    goto out;
  CosNaming_NamingContext_list(ctx, MAX_REPLICAS, &bl, &it, &ev);
  if (ev._major != CORBA_NO_EXCEPTION)
    goto out;
  for (CORBA_unsigned_long i = 0; i < bl->_length && n < MAX_REPLICAS; i++) {
    CosNaming_Binding *b = &bl->_buffer[i];
    if (b->binding_type != CosNaming_nobject || b->binding_name._length != 1 ||
        b->binding_name._buffer[0].kind[0] ||
        strlen(b->binding_name._buffer[0].id) >= sizeof names[0])
      continue;
    found[n] = CosNaming_NamingContext_resolve(ctx, &b->binding_name, &ev);
    if (ev._major != CORBA_NO_EXCEPTION)
      goto out;
    strcpy(names[n++], b->binding_name._buffer[0].id);
  }
  rc = 0;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < n_replicas; i++) {
    CORBA_Object_release(replicas[i].ref, &ev);
    replicas[i].ref = CORBA_OBJECT_NIL;
  }
  for (int k = 0; k < n; k++) {
    int i = find_replica(names[k]);
    if (i < 0 && n_replicas < MAX_REPLICAS) {
      i = n_replicas++;
      strcpy(replicas[i].name, names[k]);
      replicas[i].backoff = BACKOFF_MIN;
    }
    if (i >= 0) {
      replicas[i].ref = found[k];
      found[k] = CORBA_OBJECT_NIL;
    }
  }
  pthread_mutex_unlock(&lock);
out:
  if (rc)
    CORBA_exception_free(&ev);
  for (int k = 0; k < n; k++)
    CORBA_Object_release(found[k], &ev);
  CORBA_free(bl);
  if (!CORBA_Object_is_nil(it, &ev)) { /* more than MAX_REPLICAS: the rest is not used */
    CosNaming_BindingIterator_destroy(it, &ev);
    CORBA_exception_free(&ev);
    CORBA_Object_release(it, &ev);
  }
  CORBA_Object_release(ctx, &ev);
  pthread_mutex_lock(&lock);
  if (rc)
    refresh_failed++;
  else
    refresh_ok++;
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&refresh_lock);
  return rc;
}

/* The next replica that is up after the one chosen last, with a reference of its own
 * (release it); when all are down, the one that comes up first.  -1 when
 * none is listed. */
static int pick(CORBA_Object *ref)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  int64_t t = now_ns();
  int best = -1;
  pthread_mutex_lock(&lock);
  for (int k = 1; k <= n_replicas; k++) {
    int i = (int)((rr + (unsigned long)k) % (unsigned long)n_replicas);
    if (!replicas[i].ref)
      continue;
    if (replicas[i].down_until <= t) {
      best = i;
      break;
    }
    if (best < 0 || replicas[i].down_until < replicas[best].down_until)
      best = i;
  }
  if (best >= 0) {
    rr = (unsigned long)best;
    *ref = CORBA_Object_duplicate(replicas[best].ref, &ev);
  }
  pthread_mutex_unlock(&lock);
  return best;
}

static void *work(void *arg)
{
  worker *w = arg;
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  while (now_ns() < __atomic_load_n(&stop_ns, __ATOMIC_ACQUIRE)) {
    CORBA_unsigned_long seq = __atomic_add_fetch(&next_seq, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&requests, 1, __ATOMIC_RELAXED);
    /* the request until it is answered (retries end 2 s after the stop) */
    for (;;) {
      int64_t stop = __atomic_load_n(&stop_ns, __ATOMIC_ACQUIRE);
      if (stop != INT64_MAX && now_ns() > stop + 2000 * MS)
        break;
      CORBA_Object ref = CORBA_OBJECT_NIL;
      int r = pick(&ref);
      if (r < 0) {
        refresh(0);
        sleep_ms(10);
        continue;
      }
      __atomic_add_fetch(&calls_made, 1, __ATOMIC_SEQ_CST);
      Hosts_Answer *a = Hosts_Replica_ask(ref, seq, &ev);
      int64_t t = now_ns();
      CORBA_Object_release(ref, &ev);
      int64_t mark = __atomic_load_n(&mark_ns, __ATOMIC_ACQUIRE);
      int64_t warm = __atomic_load_n(&warm_ns, __ATOMIC_ACQUIRE);
      if (ev._major == CORBA_NO_EXCEPTION) {
        __atomic_add_fetch(&calls_ok, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_lock(&lock);
        replica *p = &replicas[r];
        if (strcmp(a->replica, p->name) || a->seq != seq || a->served <= w->last_served[r]) {
          if (!bad_answers++)
            snprintf(first_bad, sizeof first_bad,
                     "asked %s seq %u (last served %u): answer %.40s seq %u served %u", p->name,
                     seq, w->last_served[r], a->replica, a->seq, a->served);
        }
        w->last_served[r] = a->served;
        if (mark && t >= mark)
          p->ok_after++;
        else
          p->ok_before++;
        p->down_until = 0;
        p->backoff = BACKOFF_MIN;
        pthread_mutex_unlock(&lock);
        if (warm && t >= warm) {
          if (w->n_ok_times < MAX_OK_TIMES)
            w->ok_times[w->n_ok_times++] = t;
          else
            w->overflow = 1;
        }
        CORBA_free(a);
        __atomic_add_fetch(&answered, 1, __ATOMIC_RELAXED);
        break;
      }
      __atomic_add_fetch(&calls_failed, 1, __ATOMIC_SEQ_CST);
      int64_t first = __atomic_load_n(&first_fail_ns, __ATOMIC_RELAXED);
      while (t < first &&
             !__atomic_compare_exchange_n(&first_fail_ns, &first, t, 0, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED))
        ;
      pthread_mutex_lock(&lock);
      replica *p = &replicas[r];
      int why = reason_of(&ev);
      if (why >= 0) {
        reason_count[why]++;
        p->failed_by[why]++;
      }
      p->failed++;
      p->down_until = t + p->backoff;
      p->backoff = p->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : p->backoff * 2;
      pthread_mutex_unlock(&lock);
      CORBA_exception_free(&ev);
      refresh(0); /* bindings may have changed: a replica restarted, one added */
    }
  }
  __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int fails;
static void check(int ok, const char *fmt, const char *arg)
{
  if (ok)
    return;
  printf("FAIL ");
  printf(fmt, arg);
  printf("\n");
  fails++;
}

int main(int argc, char **argv)
{
  CORBA_Environment ev;
  CORBA_exception_init(&ev);
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* a default call timeout in front of the caller's options (the last given wins) */
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args)
    return 2;
  args[0] = argv[0];
  args[1] = "-ORBclientCallTimeOutPeriod";
  args[2] = "2000";
  for (int i = 1; i < argc; i++)
    args[i + 2] = argv[i];
  int nargs = argc + 2;
  orb = CORBA_ORB_init(&nargs, args, "", &ev);
  if (ev._major != CORBA_NO_EXCEPTION) {
    fprintf(stderr, "replica-client: ORB_init: %s\n", CORBA_exception_id(&ev));
    return 2;
  }
  int n_threads = 4;
  long after_ms = 2000;
  const char *killed = NULL;
  int usage = 0, list_only = 0;
  for (int i = 1; i < nargs && !usage; i++) {
    if (!strcmp(args[i], "--threads") && i + 1 < nargs)
      n_threads = atoi(args[++i]);
    else if (!strcmp(args[i], "--after") && i + 1 < nargs)
      after_ms = atol(args[++i]);
    else if (!strcmp(args[i], "--killed") && i + 1 < nargs)
      killed = args[++i];
    else if (!strcmp(args[i], "--list"))
      list_only = 1;
    else if (!ctx_url && args[i][0] != '-')
      ctx_url = args[i];
    else
      usage = 1;
  }
  if (usage || !ctx_url || n_threads < 1 || n_threads > MAX_THREADS || after_ms < 100 ||
      after_ms > 60000) {
    fprintf(stderr, "usage: replica-client [-ORB options] CONTEXT-URL [--threads 1-%d] "
                    "[--after 100-60000] [--killed NAME] | CONTEXT-URL --list\n", MAX_THREADS);
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);

  if (refresh(1) != 0 || !n_replicas) {
    fprintf(stderr, "replica-client: %s lists no replica\n", ctx_url);
    return 2;
  }
  int n_listed = n_replicas;
  if (list_only) {
    for (int i = 0; i < n_listed; i++) {
      printf("%s\n", replicas[i].name);
      CORBA_Object_release(replicas[i].ref, &ev);
    }
    free(args);
    CORBA_ORB_destroy(orb, &ev);
    return 0;
  }
  printf("replica-client: %d threads, %d replicas listed in %s:", n_threads, n_listed, ctx_url);
  for (int i = 0; i < n_listed; i++)
    printf(" %s", replicas[i].name);
  printf("\n");

  static worker workers[MAX_THREADS];
  int started = 0;
  for (; started < n_threads; started++) {
    worker *w = &workers[started];
    w->index = started;
    w->ok_times = malloc(MAX_OK_TIMES * sizeof *w->ok_times);
    if (!w->ok_times || pthread_create(&w->thread, NULL, work, w) != 0) {
      fprintf(stderr, "replica-client: cannot start thread %d\n", started);
      return 2;
    }
  }

  /* warm: every replica listed at the start has answered */
  int64_t t0 = now_ns(), t;
  for (;;) {
    t = now_ns();
    int warm = t - t0 >= 300 * MS;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_listed; i++)
      warm = warm && replicas[i].ok_before >= WARM_CALLS;
    pthread_mutex_unlock(&lock);
    if (warm || t - t0 > 15000 * MS)
      break;
    sleep_ms(5);
  }
  int was_warm = t - t0 <= 15000 * MS;
  if (was_warm) {
    __atomic_store_n(&warm_ns, t, __ATOMIC_RELEASE);
    printf("warm\n");
    while (!__atomic_load_n(&mark_ns, __ATOMIC_ACQUIRE) && now_ns() - t < 20000 * MS)
      sleep_ms(1);
  }
  int64_t mark = __atomic_load_n(&mark_ns, __ATOMIC_ACQUIRE);
  int64_t stop = (mark ? mark : now_ns()) + after_ms * MS;
  __atomic_store_n(&stop_ns, stop, __ATOMIC_RELEASE);

  /* every thread ends by stop + 2 s of retries + one call's timeout; one
   * that has not by a second after is stuck in a call: lost */
  int stuck = 0;
  for (int k = 0; k < started; k++) {
    while (!__atomic_load_n(&workers[k].done, __ATOMIC_ACQUIRE) && now_ns() < stop + 5000 * MS)
      sleep_ms(5);
    if (__atomic_load_n(&workers[k].done, __ATOMIC_ACQUIRE))
      pthread_join(workers[k].thread, NULL);
    else
      stuck++;
  }

  unsigned long made = __atomic_load_n(&calls_made, __ATOMIC_SEQ_CST);
  unsigned long ok = __atomic_load_n(&calls_ok, __ATOMIC_SEQ_CST);
  unsigned long failed = __atomic_load_n(&calls_failed, __ATOMIC_SEQ_CST);
  unsigned long lost = made - ok - failed;
  pthread_mutex_lock(&lock); /* a stuck thread holds no lock: it is in a call */
  printf("calls made %lu, succeeded %lu, failed %lu, lost %lu\n", made, ok, failed, lost);
  printf("requests %lu, answered %lu (a failed call's request is sent again to another replica)\n",
         __atomic_load_n(&requests, __ATOMIC_SEQ_CST), __atomic_load_n(&answered, __ATOMIC_SEQ_CST));
  for (int i = 0; i < n_reasons; i++)
    printf("failed: %lu %s\n", reason_count[i], reasons[i]);
  for (int i = 0; i < n_replicas; i++) {
    printf("replica %s: succeeded %lu before the kill, %lu after; failed %lu", replicas[i].name,
           replicas[i].ok_before, replicas[i].ok_after, replicas[i].failed);
    for (int k = 0; k < n_reasons; k++)
      if (replicas[i].failed_by[k])
        printf("%s%lu %s", k ? ", " : ": ", replicas[i].failed_by[k], reasons[k]);
    printf("\n");
  }
  printf("naming context listed %lu times (%lu failed)\n", refresh_ok + refresh_failed,
         refresh_failed);

  /* the longest time without a success, from the kill (or the first
   * failure, when that came first: the kill was before the mark) to the stop */
  int64_t from = mark && first_fail_ns < mark ? first_fail_ns : mark;
  int64_t gap = -1;
  int overflow = 0;
  if (mark && !stuck) {
    size_t total = 0;
    for (int k = 0; k < started; k++)
      total += workers[k].n_ok_times;
    int64_t *all = malloc((total + 1) * sizeof *all);
    if (all) {
      size_t n = 0;
      for (int k = 0; k < started; k++) {
        overflow |= workers[k].overflow;
        for (unsigned j = 0; j < workers[k].n_ok_times; j++)
          if (workers[k].ok_times[j] >= from && workers[k].ok_times[j] <= stop)
            all[n++] = workers[k].ok_times[j];
      }
      qsort(all, n, sizeof *all, cmp_i64);
      int64_t prev = from;
      gap = 0;
      for (size_t j = 0; j < n; j++) {
        if (all[j] - prev > gap)
          gap = all[j] - prev;
        prev = all[j];
      }
      if (stop - prev > gap)
        gap = stop - prev;
      free(all);
    }
    printf("longest gap without a successful call after the kill: %.1f ms (limit %lld ms)\n",
           (double)gap / MS, GAP_LIMIT / MS);
  }

  char num[32];
  snprintf(num, sizeof num, "%lu", lost);
  check(!stuck && lost == 0, "lost %s calls (neither returned nor raised)", num);
  check(was_warm, "%s: not every replica answered within 15 s", "warm");
  check(mark != 0, "%s: no SIGUSR1 (the kill) within 20 s of warm", "mark");
  check(!bad_answers, "a wrong answer: %s", first_bad);
  check(requests == answered, "%s: a request was never answered", "requests");
  check(gap >= 0 && gap < GAP_LIMIT, "%s: the longest gap is 1 s or more", "gap");
  check(!overflow, "%s: too many successes to time", "gap");
  check(!refresh_failed, "%s: listing the naming context failed", ctx_url);
  if (killed) {
    check(find_replica(killed) >= 0, "%s is not listed", killed);
    unsigned long killed_failed = 0;
    for (int i = 0; i < n_replicas; i++) {
      replica *p = &replicas[i];
      check(p->ok_before > 0, "%s: no success before the kill", p->name);
      if (!strcmp(p->name, killed))
        killed_failed = p->failed;
      else {
        check(p->ok_after > 0, "%s: no success after the kill", p->name);
        check(p->failed == 0, "%s: failed calls on a live replica", p->name);
      }
    }
    check(killed_failed > 0, "%s: no call failed (was it killed?)", killed);
    for (int k = 0; k < n_reasons; k++)
      check(!strncmp(reasons[k], ex_CORBA_TRANSIENT " ", strlen(ex_CORBA_TRANSIENT) + 1) ||
              !strncmp(reasons[k], ex_CORBA_COMM_FAILURE " ", strlen(ex_CORBA_COMM_FAILURE) + 1),
            "failed with %s (only TRANSIENT or COMM_FAILURE expected)", reasons[k]);
  }
  pthread_mutex_unlock(&lock);
  if (stuck) { /* a thread is still in a call: no clean-up under it */
    fflush(stdout);
    _exit(1);
  }
  for (int i = 0; i < n_replicas; i++)
    CORBA_Object_release(replicas[i].ref, &ev);
  for (int i = 0; i < n_reasons; i++)
    free(reasons[i]);
  for (int k = 0; k < started; k++)
    free(workers[k].ok_times);
  free(args);
  CORBA_ORB_destroy(orb, &ev);
  printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
