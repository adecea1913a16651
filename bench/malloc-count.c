/* malloc-count.c - an LD_PRELOAD object that counts a process's allocation
 * calls and the octets they ask for, whatever allocates: C, C++ (operator
 * new calls malloc), the C library itself.  Used by `iiop-bench run` to
 * give allocations per call for our server, omniORB's and the TCP floor
 * alike.
 *
 *   LD_PRELOAD=bench/.libs/malloc-count.so MALLOC_COUNT_FILE=report.txt prog ...
 *
 * Environment:
 *   MALLOC_COUNT_FILE=F  on SIGUSR2, and at exit, append one line to F:
 *       malloc-count pid=P event=usr2|exit mallocs=N callocs=N reallocs=N
 *           aligned=N frees=N bytes=N failed=N
 *     The counts are cumulative since the process started: the allocations
 *     of a window are the difference of two lines (send SIGUSR2 before and
 *     after it).  SIGUSR2 is caught (SA_RESTART) only when this is set; a
 *     program that installs its own SIGUSR2 handler replaces ours.
 *   MALLOC_COUNT_SHM=F   keep the counters in F, mapped shared, so that
 *     another process can read them live with no signal (malloc-count.h).
 *
 * The real allocator is glibc's, reached through its __libc_* entry points
 * (no dlsym, which may itself allocate).  Counting costs two relaxed atomic
 * adds per call: measure CPU time in runs without this object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "malloc-count.h"

#define EXPORT __attribute__((visibility("default")))

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

/* Counts made before the constructor maps MALLOC_COUNT_SHM (and all of them
 * when it is not set) land here. */
static malloc_count_page local_page = { .magic = MALLOC_COUNT_MAGIC };
static malloc_count_page *page = &local_page;
static char report_path[4096];

/* One call of kind FIELD asking for N octets; only successful calls add
 * their octets. */
#define COUNT(field, n, ok)                                                 \
  do {                                                                      \
    malloc_count_page *p_ = __atomic_load_n(&page, __ATOMIC_RELAXED);       \
    __atomic_fetch_add(&p_->field, 1, __ATOMIC_RELAXED);                    \
    if (ok)                                                                 \
      __atomic_fetch_add(&p_->bytes, (uint64_t)(n), __ATOMIC_RELAXED);      \
    else                                                                    \
      __atomic_fetch_add(&p_->failed, 1, __ATOMIC_RELAXED);                 \
  } while (0)

EXPORT void *malloc(size_t n)
{
  void *r = __libc_malloc(n);
  COUNT(mallocs, n, r != NULL);
  return r;
}

EXPORT void *calloc(size_t n, size_t size)
{
  void *r = __libc_calloc(n, size);
  COUNT(callocs, n * size, r != NULL); /* no overflow when it succeeded */
  return r;
}

EXPORT void *realloc(void *old, size_t n)
{
  void *r = __libc_realloc(old, n);
  /* realloc(p, 0) frees p and may return NULL: that is not a failure. */
  COUNT(reallocs, n, r != NULL || (old && n == 0));
  return r;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
  size_t total;
  if (__builtin_mul_overflow(n, size, &total)) {
    COUNT(reallocs, 0, false);
    errno = ENOMEM;
    return NULL;
  }
  return realloc(old, total);
}

EXPORT void free(void *p)
{
  if (p)
    __atomic_fetch_add(&__atomic_load_n(&page, __ATOMIC_RELAXED)->frees, 1, __ATOMIC_RELAXED);
  __libc_free(p);
}

static void *aligned(size_t align, size_t n)
{
  void *r = __libc_memalign(align, n);
  COUNT(aligned, n, r != NULL);
  return r;
}

EXPORT void *memalign(size_t align, size_t n) { return aligned(align, n); }

EXPORT void *aligned_alloc(size_t align, size_t n) { return aligned(align, n); }

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
  if (align < sizeof(void *) || (align & (align - 1)) != 0)
    return EINVAL;
  int saved = errno;
  void *r = aligned(align, n);
  errno = saved;
  if (!r)
    return ENOMEM;
  *out = r;
  return 0;
}

EXPORT void *valloc(size_t n) { return aligned((size_t)sysconf(_SC_PAGESIZE), n); }

EXPORT void *pvalloc(size_t n)
{
  size_t ps = (size_t)sysconf(_SC_PAGESIZE);
  if (n > SIZE_MAX - ps) {
    COUNT(aligned, 0, false);
    errno = ENOMEM;
    return NULL;
  }
  return aligned(ps, (n + ps - 1) & ~(ps - 1));
}

/* ---------------------------------------------------------------- reports */

/* Async-signal-safe: no stdio, no allocation. */
static char *put_str(char *p, const char *s)
{
  while (*s)
    *p++ = *s++;
  return p;
}

static char *put_u64(char *p, uint64_t v)
{
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    *p++ = tmp[--n];
  return p;
}

static void report(const char *event)
{
  if (!report_path[0])
    return;
  int saved = errno;
  const malloc_count_page *pg = __atomic_load_n(&page, __ATOMIC_RELAXED);
  char line[512], *p = line;
  p = put_str(p, "malloc-count pid=");
  p = put_u64(p, (uint64_t)getpid());
  p = put_str(p, " event=");
  p = put_str(p, event);
  static const struct { const char *name; size_t off; } f[] = {
    { " mallocs=", offsetof(malloc_count_page, mallocs) },
    { " callocs=", offsetof(malloc_count_page, callocs) },
    { " reallocs=", offsetof(malloc_count_page, reallocs) },
    { " aligned=", offsetof(malloc_count_page, aligned) },
    { " frees=", offsetof(malloc_count_page, frees) },
    { " bytes=", offsetof(malloc_count_page, bytes) },
    { " failed=", offsetof(malloc_count_page, failed) },
  };
  for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
    p = put_str(p, f[k].name);
    p = put_u64(p, __atomic_load_n((const uint64_t *)((const char *)pg + f[k].off),
                                   __ATOMIC_RELAXED));
  }
  *p++ = '\n';
  int fd = open(report_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    /* One write with O_APPEND: lines of several processes do not mix. */
    ssize_t w = write(fd, line, (size_t)(p - line));
    (void)w;
    close(fd);
  }
  errno = saved;
}

static void on_usr2(int sig)
{
  (void)sig;
  report("usr2");
}

/* Map MALLOC_COUNT_SHM and move the counts made so far into it. */
static void map_shared(const char *path)
{
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  struct stat st;
  if (fstat(fd, &st) != 0 || (st.st_size < MALLOC_COUNT_SHM_SIZE
                              && ftruncate(fd, MALLOC_COUNT_SHM_SIZE) != 0)) {
    close(fd);
    return;
  }
  malloc_count_page *m = mmap(NULL, MALLOC_COUNT_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                              fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return;
  /* Only this thread runs yet (constructors run before main). */
  m->mallocs += local_page.mallocs;
  m->callocs += local_page.callocs;
  m->reallocs += local_page.reallocs;
  m->aligned += local_page.aligned;
  m->frees += local_page.frees;
  m->bytes += local_page.bytes;
  m->failed += local_page.failed;
  __atomic_store_n(&m->magic, MALLOC_COUNT_MAGIC, __ATOMIC_RELEASE);
  __atomic_store_n(&page, m, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void malloc_count_init(void)
{
  const char *shm = getenv("MALLOC_COUNT_SHM");
  if (shm && *shm)
    map_shared(shm);
  const char *file = getenv("MALLOC_COUNT_FILE");
  if (file && *file && strlen(file) < sizeof report_path) {
    strcpy(report_path, file);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr2;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
  }
}

__attribute__((destructor)) static void malloc_count_fini(void)
{
  report("exit");
}
