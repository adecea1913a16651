/* run.c - `iiop-bench run`: server CPU per call of our IIOP stack beside
 * omniORB's and beside a raw TCP ping-pong of the same octets (the floor),
 * in one run, on three scenarios (README.md, "Benchmarks"):
 *
 *   ping    Echo::ping(long)
 *   graph   Echo::echoGraph, a list of 50 Node values each way
 *   string  Echo::echoString, 64 KiB each way
 *
 * Systems, each a server and a client process of its own:
 *   ours           bench/iiop-bench server + client, the library's default
 *                  fragment size
 *   ours_frag1024  the same with --fragment-size 1024 on both sides
 *   omniorb        tests/interop/omni-server + omni-client (omniORB 4.2;
 *                  built with `make -C tests/interop` when omniORB is
 *                  installed and they are not built yet)
 *   floor          bench/tcp-floor server + client: per call one write of
 *                  as many octets as our request, one write of as many
 *                  octets as our reply
 *
 * Method.
 * - Octets per call (for the floor): our client makes 20 and then 220 calls
 *   through a counting TCP proxy in this process; the difference over 200
 *   calls is exact (connection set-up, the first request's service contexts
 *   and the closing message cancel out).
 * - Rounds: each round runs every scenario, and in it every system, in an
 *   order that rotates from round to round.  One cell: start a fresh
 *   server (pinned to one CPU), run a warm-up client process, then the
 *   measured client process (pinned to another CPU; it makes a few untimed
 *   calls of its own first so that its latencies are warm); the server's
 *   CPU time is read just before and just after the measured client.  The
 *   window thus holds no server start-up and no warm-up, only the measured
 *   client's connection (accept, a thread, resolve: tens of microseconds
 *   over thousands of calls).  The first round calibrates the calls per
 *   run to a target duration; later rounds reuse that count.
 * - Server CPU is the process CPU clock of the server (clock_getcpuclockid:
 *   the sum of every thread's time, nanoseconds, threads that ended
 *   included: a thread per connection ends with its connection, so the sum
 *   over /proc/PID/task/x/schedstat would miss it and /proc/PID/stat counts
 *   10 ms ticks), falling back to utime+stime of /proc/PID/stat.  Before
 *   each read we wait (up to 200 ms) for the server's thread count to come
 *   back to what it was, so a connection thread that is still closing is
 *   counted in its own window.
 * - calls/s, p50 and p99 are the measured client's (its last line).
 *   Figures are medians across rounds, with the range (min..max).
 * - Allocations (a separate pass, so that counting costs no CPU in the
 *   timed runs): the server runs with bench/.libs/malloc-count.so
 *   preloaded, its counters in a shared page read live (malloc-count.h);
 *   after a warm-up client, a client of 100 calls and one of 1100; the
 *   difference over 1000 calls is allocation calls (malloc, calloc,
 *   realloc, aligned) and octets asked for per call in the steady state,
 *   connection set-up excluded.  The same counter for all four systems.
 * - --instructions: the server under callgrind (user space, every thread),
 *   once with a client of N calls and once with 10N; the difference of the
 *   totals over 9N calls.
 *
 * Helpers are found from this program's own path (/proc/self/exe, a
 * libtool .libs folder counting as its parent): BENCH/iiop-bench (the real
 * binary in BENCH/.libs when BENCH/iiop-bench is libtool's wrapper script,
 * with LD_LIBRARY_PATH set to the build's library folders),
 * BENCH/tcp-floor, BENCH/.libs/malloc-count.so, TOP/tests/interop/omni-*
 * (or under abs_top_srcdir read from TOP/Makefile).  IIOP_BENCH_BUILDDIR in
 * the environment overrides TOP (BENCH is TOP/bench).
 *
 * Logs (each child's standard error) go to a temporary folder, removed when
 * the run succeeds and kept, with its path printed, when something failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "malloc-count.h"
#include "run.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

#define MAX_ROUNDS 1000
#define MAX_CHILDREN 16
#define SIZE_CALLS_1 20        /* octets per call: runs of 20 and 220 calls */
#define SIZE_CALLS_2 220
#define ALLOC_CALLS_1 100      /* allocations per call: runs of 100 and 1100 calls */
#define ALLOC_CALLS_2 1100
#define SETTLE_MS 200
#define SERVER_START_MS 30000
#define VALGRIND_START_MS 180000

extern char **environ;

/* ---------------------------------------------------------------- the matrix */

enum { SC_PING, SC_GRAPH, SC_STRING, N_SCEN };
/* SYS_IDL: Bench::Echo's server on idl2c's skeleton and libcorbaorb
 * (bench/idl-bench), called by our native client as SYS_OURS is: only the
 * server differs from SYS_OURS's. */
enum { SYS_OURS, SYS_FRAG, SYS_IDL, SYS_OMNI, SYS_FLOOR, N_SYS };

static const struct {
  const char *name;
  const char *arg, *val;       /* the client option giving its size */
  unsigned long warm0;         /* first warm-up run, before any rate is known */
  unsigned long instr_n;       /* --instructions: runs of N and 10N calls */
} scen[N_SCEN] = {
  { "ping", NULL, NULL, 1000, 200 },
  { "graph", "--nodes", "50", 500, 100 },
  { "string", "--size", "65536", 300, 40 },
};

static const char *const sys_name[N_SYS] = { "ours", "ours_frag1024", "ours_idl", "omniorb",
                                              "floor" };

typedef struct cell {
  bool failed;                 /* stop running it; the reason was printed */
  unsigned long calls;         /* measured calls per round, 0 until calibrated */
  double rate;                 /* calls/s seen so far */
  int n;                       /* rounds measured */
  double *cpu_us, *cps, *p50, *p99;
  unsigned long *window_calls;
  bool have_alloc;
  double allocs_pc, bytes_pc;
  bool have_instr;
  double instr_pc;
} cell;

static cell cells[N_SCEN][N_SYS];

/* Thread rows: ping and graph with T client threads on one reference, ours
 * and omniORB, for each T > 1 of --threads (default 1,8,32).  conns: the
 * most connections the measured client had established at once. */
#define MAX_TLIST 8
#define N_TSCEN 2                      /* SC_PING, SC_GRAPH */
enum { TS_OURS, TS_OMNI, N_TSYS };
static const int tsys_sys[N_TSYS] = { SYS_OURS, SYS_OMNI };
static unsigned long tlist[MAX_TLIST] = { 1, 8, 32 };
static int ntlist = 3;
typedef struct tcell {
  cell c;
  double *conns;
} tcell;
static tcell tcells[N_TSCEN][MAX_TLIST][N_TSYS];
static bool sys_ok[N_SYS];              /* the system can run at all */
static bool sys_sanitized[N_SYS];       /* its server is built with ASan or TSan */
static char sys_why[N_SYS][PATH_MAX + 512]; /* why not */
static const char *sys_short[N_SYS];    /* the same in a few words, for the table */
static unsigned long req_octets[N_SCEN], rep_octets[N_SCEN];
static bool have_sizes[N_SCEN];

static struct {
  bool quick, instructions, no_chart, no_pin;
  int cpus[2];                 /* --cpus S,C; -1: choose */
  const char *json, *chart;
  unsigned long rounds, calls;
  double target_s, warm_s;
} ro;

static bool g_any_failure;

/* ---------------------------------------------------------------- helpers' paths */

static char g_top[PATH_MAX], g_benchdir[PATH_MAX];
static char g_ours[PATH_MAX + 16], g_floor[PATH_MAX + 16], g_mcount[PATH_MAX + 32];
static char g_idl[PATH_MAX + 16];
static char g_omni_srv[PATH_MAX], g_omni_cli[PATH_MAX];
static pid_t g_client_pid;     /* atomic: the measured client while it runs (0: none) */
static char g_valgrind[PATH_MAX], g_gnuplot[PATH_MAX];
static char g_tmp[512];
static int cpu_server = -1, cpu_client = -1;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
}

static bool is_exec(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static bool is_dir(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool path_join(char *out, size_t sz, const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la + lb + 2 > sz)
    return false;
  memcpy(out, a, la);
  out[la] = '/';
  memcpy(out + la + 1, b, lb + 1);
  return true;
}

/* Copy S into OUT of SZ octets, cut if need be. */
static void copy_str(char *out, size_t sz, const char *s)
{
  size_t n = strnlen(s, sz - 1);
  memcpy(out, s, n);
  out[n] = 0;
}

/* Strip the last component of P in place (no trailing slash left). */
static void dir_up(char *p)
{
  char *s = strrchr(p, '/');
  if (s && s != p)
    *s = 0;
  else if (s)
    s[1] = 0;
}

/* A program of the build in DIR: DIR/NAME, or DIR/.libs/NAME when DIR/NAME
 * is libtool's wrapper script (the script would add a shell to every run
 * and hide the program from valgrind). */
static bool find_program(const char *dir, const char *name, char *out, size_t sz)
{
  char p[PATH_MAX], real[PATH_MAX + 16];
  if (!path_join(p, sizeof p, dir, name) || !is_exec(p))
    return false;
  char head[2] = { 0, 0 };
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, head, 2) != 2)
      head[0] = 0;
    close(fd);
  }
  snprintf(real, sizeof real, "%s/.libs/%s", dir, name);
  const char *use = head[0] == '#' && head[1] == '!' && is_exec(real) ? real : p;
  if (strlen(use) + 1 > sz)
    return false;
  strcpy(out, use);
  return true;
}

/* Whether the program at PATH needs a sanitizer runtime that owns malloc
 * (a DT_NEEDED of libasan or libtsan): LD_PRELOAD of malloc-count.so would
 * make it refuse to start, and its figures are not representative. */
static bool sanitized(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  bool found = false;
  if (fd < 0)
    return false;
  void *m = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return false;
  const unsigned char *b = m;
  size_t size = (size_t)st.st_size;
  const Elf64_Ehdr *eh = m;
  if (memcmp(b, ELFMAG, SELFMAG) == 0 && b[EI_CLASS] == ELFCLASS64 && eh->e_shoff < size
      && eh->e_shentsize == sizeof(Elf64_Shdr)
      && eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr)) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
    for (unsigned k = 0; k < eh->e_shnum && !found; k++) {
      if (sh[k].sh_type != SHT_DYNAMIC || sh[k].sh_link >= eh->e_shnum)
        continue;
      const Elf64_Shdr *str = &sh[sh[k].sh_link];
      if (sh[k].sh_offset > size || sh[k].sh_size > size - sh[k].sh_offset
          || str->sh_offset > size || str->sh_size > size - str->sh_offset)
        break;
      const Elf64_Dyn *d = (const Elf64_Dyn *)(b + sh[k].sh_offset);
      for (size_t i = 0; i < sh[k].sh_size / sizeof *d && d[i].d_tag != DT_NULL; i++) {
        if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= str->sh_size)
          continue;
        const char *name = (const char *)b + str->sh_offset + d[i].d_un.d_val;
        size_t left = str->sh_size - d[i].d_un.d_val;
        if ((left > 10 && strncmp(name, "libasan.so", 10) == 0)
            || (left > 10 && strncmp(name, "libtsan.so", 10) == 0))
          found = true;
      }
    }
  }
  munmap(m, size);
  return found;
}

/* PATH lookup. */
static bool find_in_path(const char *name, char *out, size_t sz)
{
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/bin:/bin";
  while (*path) {
    const char *e = strchr(path, ':');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    char p[PATH_MAX];
    if (n && n + strlen(name) + 2 < sizeof p) {
      memcpy(p, path, n);
      p[n] = '/';
      strcpy(p + n + 1, name);
      if (is_exec(p) && strlen(p) < sz) {
        strcpy(out, p);
        return true;
      }
    }
    path += n + (e ? 1 : 0);
  }
  return false;
}

/* The source tree's top folder, from TOP/Makefile (VPATH builds). */
static bool read_srcdir(char *out, size_t sz)
{
  char mk[PATH_MAX];
  if (!path_join(mk, sizeof mk, g_top, "Makefile"))
    return false;
  FILE *f = fopen(mk, "r");
  if (!f)
    return false;
  char line[PATH_MAX + 64];
  bool ok = false;
  while (!ok && fgets(line, sizeof line, f)) {
    if (strncmp(line, "abs_top_srcdir = ", 17) == 0) {
      line[strcspn(line, "\n")] = 0;
      if (strlen(line + 17) + 1 <= sz && line[17]) {
        strcpy(out, line + 17);
        ok = true;
      }
    }
  }
  fclose(f);
  return ok;
}

/* ---------------------------------------------------------------- children */

static pid_t g_children[MAX_CHILDREN];

static void child_add(pid_t pid)
{
  for (int k = 0; k < MAX_CHILDREN; k++)
    if (!g_children[k]) {
      g_children[k] = pid;
      return;
    }
}

static void child_del(pid_t pid)
{
  for (int k = 0; k < MAX_CHILDREN; k++)
    if (g_children[k] == pid)
      g_children[k] = 0;
}

static void on_fatal_signal(int sig)
{
  for (int k = 0; k < MAX_CHILDREN; k++)
    if (g_children[k] > 0)
      kill(g_children[k], SIGKILL);
  static const char msg[] = "\niiop-bench run: interrupted; servers and clients killed; "
                            "logs left in ";
  ssize_t w = write(2, msg, sizeof msg - 1);
  w = write(2, g_tmp, strlen(g_tmp));
  w = write(2, "\n", 1);
  (void)w;
  signal(sig, SIG_DFL);
  raise(sig);
}

/* An argument vector with its own storage for formatted arguments. */
typedef struct argvec {
  char *v[64];
  int n;
  char store[8192];
  size_t used;
} argvec;

static void av_add(argvec *a, const char *s)
{
  if (a->n < 63) {
    a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
  }
}

static void av_addf(argvec *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void av_addf(argvec *a, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(a->store + a->used, sizeof a->store - a->used, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof a->store - a->used)
    return;
  av_add(a, a->store + a->used);
  a->used += (size_t)n + 1;
}

/* The environment of the children: ours, less variables that would change
 * what is measured, plus SET ("NAME=value", NULL-terminated). */
static char **make_env(const char *const *set)
{
  static const char *const drop[] = { "IIOP_BENCH_COUNT_ALLOCS=", "MALLOC_COUNT_SHM=",
                                      "MALLOC_COUNT_FILE=", NULL };
  size_t n = 0, ns = 0;
  while (environ[n])
    n++;
  while (set && set[ns])
    ns++;
  char **env = calloc(n + ns + 1, sizeof *env);
  if (!env)
    return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    bool skip = false;
    for (int d = 0; drop[d] && !skip; d++)
      skip = strncmp(environ[i], drop[d], strlen(drop[d])) == 0;
    for (size_t s = 0; s < ns && !skip; s++) {
      size_t len = strcspn(set[s], "=") + 1;
      skip = strncmp(environ[i], set[s], len) == 0;
    }
    if (!skip)
      env[k++] = environ[i];
  }
  for (size_t s = 0; s < ns; s++)
    env[k++] = (char *)set[s];
  env[k] = NULL;
  return env;
}

static char **g_env_plain;
static char g_ldpath_var[4 * PATH_MAX + 128];

typedef struct proc {
  pid_t pid;
  int out;                     /* read end of its standard output, or -1 */
  char log[PATH_MAX + 256];    /* its standard error */
} proc;

/* Start ARGV (argv[0] a path) on CPU (-1: anywhere), standard error to
 * g_tmp/LOGNAME, standard output to a pipe. */
static int spawn(proc *p, char *const argv[], char *const envp[], int cpu, const char *logname)
{
  int pfd[2];
  p->pid = -1;
  p->out = -1;
  snprintf(p->log, sizeof p->log, "%s/%s", g_tmp, logname);
  int lfd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (lfd < 0 || pipe2(pfd, O_CLOEXEC) != 0) {
    say("iiop-bench run: %s: %s", p->log, strerror(errno));
    if (lfd >= 0)
      close(lfd);
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    say("iiop-bench run: fork: %s", strerror(errno));
    close(lfd);
    close(pfd[0]);
    close(pfd[1]);
    return -1;
  }
  if (pid == 0) {
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0)
      dup2(nul, 0);
    dup2(pfd[1], 1);
    dup2(lfd, 2);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (cpu >= 0) {
      cpu_set_t cs;
      CPU_ZERO(&cs);
      CPU_SET(cpu, &cs);
      sched_setaffinity(0, sizeof cs, &cs);
    }
    execve(argv[0], argv, envp);
    dprintf(2, "iiop-bench run: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(lfd);
  close(pfd[1]);
  p->pid = pid;
  p->out = pfd[0];
  child_add(pid);
  return 0;
}

static int64_t mono_ms(void) { return (int64_t)(bench_now_ns() / 1000000u); }

static void sleep_ms(int ms)
{
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Wait up to TIMEOUT_MS for P to exit and reap it: 0, or -1 on timeout. */
static int wait_exit(proc *p, int timeout_ms, int *status)
{
  int pfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
  int64_t deadline = mono_ms() + timeout_ms;
  if (pfd >= 0) {
    int r;
    do {
      int64_t left = deadline - mono_ms();
      struct pollfd q = { pfd, POLLIN, 0 };
      r = poll(&q, 1, left > 0 ? (int)left : 0);
    } while (r < 0 && errno == EINTR);
    close(pfd);
    if (r == 0)
      return -1;
  } else {
    for (;;) {
      pid_t w = waitpid(p->pid, status, WNOHANG);
      if (w == p->pid)
        goto reaped;
      if (mono_ms() >= deadline)
        return -1;
      sleep_ms(2);
    }
  }
  while (waitpid(p->pid, status, 0) < 0 && errno == EINTR)
    ;
reaped:
  child_del(p->pid);
  if (p->out >= 0)
    close(p->out);
  p->out = -1;
  p->pid = -1;
  return 0;
}

/* Stop a server: SIGTERM, then SIGKILL after TIMEOUT_MS.  Its status. */
static int stop_proc(proc *p, int timeout_ms)
{
  int st = 0;
  if (p->pid <= 0)
    return 0;
  kill(p->pid, SIGTERM);
  if (wait_exit(p, timeout_ms, &st) != 0) {
    kill(p->pid, SIGKILL);
    wait_exit(p, 10000, &st);
    return -1;
  }
  return st;
}

/* Read P's standard output until it has WANT_LINES lines (0: until end of
 * file), or until TIMEOUT_MS: the number of complete lines read, -1 on
 * timeout.  BUF holds what was read, NUL-terminated (the start is kept when
 * it fills). */
static int read_out(proc *p, int want_lines, int timeout_ms, char *buf, size_t sz)
{
  size_t len = 0;
  int lines = 0;
  int64_t deadline = mono_ms() + timeout_ms;
  buf[0] = 0;
  for (;;) {
    int64_t left = deadline - mono_ms();
    if (left <= 0)
      return -1;
    struct pollfd q = { p->out, POLLIN, 0 };
    int r = poll(&q, 1, (int)left);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    char tmp[4096];
    ssize_t n = read(p->out, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return lines;
    for (ssize_t k = 0; k < n; k++) {
      if (len + 1 < sz)
        buf[len++] = tmp[k];
      if (tmp[k] == '\n')
        lines++;
    }
    buf[len] = 0;
    if (want_lines && lines >= want_lines)
      return lines;
  }
}

/* The last lines of a log on our standard error. */
static void show_log(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char *lines[8] = { 0 };
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    free(lines[n % 8]);
    lines[n % 8] = strdup(line);
    n++;
  }
  fclose(f);
  if (n)
    say("  --- last lines of %s ---", path);
  for (int k = n > 8 ? n - 8 : 0; k < n; k++) {
    fprintf(stderr, "  | %s", lines[k % 8] ? lines[k % 8] : "\n");
    free(lines[k % 8]);
    lines[k % 8] = NULL;
  }
  for (int k = 0; k < 8; k++)
    free(lines[k]);
}

/* ---------------------------------------------------------------- /proc */

/* All threads' CPU time of PID, dead threads included, in ns. */
static bool proc_cpu_ns(pid_t pid, uint64_t *ns)
{
  clockid_t cid;
  struct timespec ts;
  if (clock_getcpuclockid(pid, &cid) == 0 && clock_gettime(cid, &ts) == 0) {
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
  }
  char path[64], buf[2048];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = 0;
  char *s = strrchr(buf, ')');
  unsigned long ut, st;
  /* fields 3..15 after the command: state ... utime stime */
  if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
    return false;
  long hz = sysconf(_SC_CLK_TCK);
  *ns = (uint64_t)(ut + st) * (1000000000u / (uint64_t)(hz > 0 ? hz : 100));
  return true;
}

static int proc_threads(pid_t pid)
{
  char path[64], buf[2048];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = 0;
  char *s = strrchr(buf, ')');
  long th;
  /* field 20, num_threads */
  if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                   "%ld", &th) != 1)
    return -1;
  return (int)th;
}

/* After a client has gone: wait (up to SETTLE_MS) until PID has no more
 * than BASE threads, or until its thread count has stayed the same for
 * 5 ms (a server may keep an idle thread or two once it has served a
 * connection: omniORB does).  The thread count then. */
static int settle(pid_t pid, int base)
{
  int64_t start = mono_ms(), since = start;
  int last = proc_threads(pid);
  while (last > base && mono_ms() - start < SETTLE_MS) {
    sleep_ms(1);
    int t = proc_threads(pid);
    if (t < 0)
      return last;
    if (t != last) {
      last = t;
      since = mono_ms();
    } else if (mono_ms() - since >= 5) {
      break;
    }
  }
  return last;
}

/* ---------------------------------------------------------------- servers and clients */

typedef struct server {
  proc p;
  int sys;
  char target[16384];          /* IOR, or HOST:PORT for the floor */
  char corbaloc[256];
  unsigned port;
} server;

typedef struct client_result {
  unsigned long calls, failed;
  double wall_s, cps, p50, p99;
} client_result;

/* Start SYS's server.  ENVP: NULL for the plain environment.  VG_OUT: run
 * it under callgrind writing there. */
static int start_server(int sys, server *s, char *const envp[], const char *vg_out,
                        const char *tag)
{
  argvec a = { .n = 0 };
  memset(s, 0, sizeof *s);
  s->sys = sys;
  s->p.pid = -1;
  s->p.out = -1;
  if (vg_out) {
    av_add(&a, g_valgrind);
    av_add(&a, "--tool=callgrind");
    av_addf(&a, "--callgrind-out-file=%s", vg_out);
    av_add(&a, "--dump-instr=no");
    av_add(&a, "--trace-children=no");
  }
  switch (sys) {
  case SYS_OURS:
  case SYS_FRAG:
    av_add(&a, g_ours);
    av_add(&a, "server");
    av_add(&a, "--listen");
    av_add(&a, "127.0.0.1:0");
    if (sys == SYS_FRAG) {
      av_add(&a, "--fragment-size");
      av_add(&a, "1024");
    }
    break;
  case SYS_IDL:
    av_add(&a, g_idl);
    av_add(&a, "server");
    av_add(&a, "--listen");
    av_add(&a, "127.0.0.1:0");
    break;
  case SYS_OMNI:
    av_add(&a, g_omni_srv);
    av_add(&a, "--listen");
    av_add(&a, "127.0.0.1:0");
    break;
  default:
    av_add(&a, g_floor);
    av_add(&a, "server");
    av_add(&a, "--listen");
    av_add(&a, "127.0.0.1:0");
    break;
  }
  char logname[128];
  snprintf(logname, sizeof logname, "%s-server.log", tag);
  if (spawn(&s->p, a.v, envp ? envp : g_env_plain, cpu_server, logname) != 0)
    return -1;
  int want = sys == SYS_FLOOR ? 1 : 2;
  char buf[sizeof s->target + 512];
  int got = read_out(&s->p, want, vg_out ? VALGRIND_START_MS : SERVER_START_MS, buf, sizeof buf);
  if (got < want) {
    say("iiop-bench run: %s server did not start (%s)", sys_name[sys],
        got < 0 ? "no address printed in time" : "it exited");
    stop_proc(&s->p, 2000);
    show_log(s->p.log);
    return -1;
  }
  char *nl = strchr(buf, '\n');
  *nl = 0;
  if (sys == SYS_FLOOR) {
    const char *colon = strrchr(buf, ':');
    s->port = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
    copy_str(s->target, sizeof s->target, buf);
  } else {
    copy_str(s->corbaloc, sizeof s->corbaloc, buf);
    char *ior = nl + 1;
    ior[strcspn(ior, "\r\n")] = 0;
    copy_str(s->target, sizeof s->target, ior);
    /* corbaloc:iiop:1.2@127.0.0.1:PORT/Echo */
    char *colon = strrchr(s->corbaloc, ':');
    s->port = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
  }
  if (!s->port || (sys != SYS_FLOOR && strncmp(s->target, "IOR:", 4) != 0)) {
    say("iiop-bench run: %s server printed something unexpected: %.200s", sys_name[sys], buf);
    stop_proc(&s->p, 2000);
    return -1;
  }
  return 0;
}

static double field(const char *line, const char *key)
{
  const char *p = strstr(line, key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* Run SYS's client for scenario SC against TARGET: CALLS timed calls after
 * WARMUP untimed ones in the same process.  0, or -1 (reported). */
static int run_client_t(int sys, int sc, const char *target, unsigned long calls,
                        unsigned long warmup, unsigned long threads, int timeout_ms,
                        const char *tag, client_result *r)
{
  argvec a = { .n = 0 };
  switch (sys) {
  case SYS_OURS:
  case SYS_FRAG:
  case SYS_IDL:
  case SYS_OMNI:
    av_add(&a, sys == SYS_OMNI ? g_omni_cli : g_ours);
    if (sys != SYS_OMNI)
      av_add(&a, "client");
    av_add(&a, "--target");
    av_add(&a, target);
    av_add(&a, "--scenario");
    av_add(&a, scen[sc].name);
    if (scen[sc].arg) {
      av_add(&a, scen[sc].arg);
      av_add(&a, scen[sc].val);
    }
    if (sys == SYS_FRAG) {
      av_add(&a, "--fragment-size");
      av_add(&a, "1024");
    }
    break;
  default:
    av_add(&a, g_floor);
    av_add(&a, "client");
    av_add(&a, "--target");
    av_add(&a, target);
    av_add(&a, "--scenario");
    av_add(&a, scen[sc].name);
    av_add(&a, "--req");
    av_addf(&a, "%lu", req_octets[sc]);
    av_add(&a, "--rep");
    av_addf(&a, "%lu", rep_octets[sc]);
    break;
  }
  av_add(&a, "--calls");
  av_addf(&a, "%lu", calls);
  av_add(&a, "--warmup");
  av_addf(&a, "%lu", warmup);
  if (threads > 1) {
    av_add(&a, "--threads");
    av_addf(&a, "%lu", threads);
  }

  char logname[128];
  snprintf(logname, sizeof logname, "%s-client.log", tag);
  proc p;
  if (spawn(&p, a.v, g_env_plain, cpu_client, logname) != 0)
    return -1;
  __atomic_store_n(&g_client_pid, p.pid, __ATOMIC_RELEASE);
  char out[8192];
  int lines = read_out(&p, 0, timeout_ms, out, sizeof out);
  __atomic_store_n(&g_client_pid, 0, __ATOMIC_RELEASE);
  int st = 0;
  if (lines < 0) {
    say("iiop-bench run: %s: %s client did not finish in %d s; killed", scen[sc].name,
        sys_name[sys], timeout_ms / 1000);
    kill(p.pid, SIGKILL);
    wait_exit(&p, 10000, &st);
    show_log(p.log);
    return -1;
  }
  if (wait_exit(&p, 10000, &st) != 0) {
    kill(p.pid, SIGKILL);
    wait_exit(&p, 10000, &st);
    st = -1;
  }
  /* The last line that starts with "scenario=". */
  char *last = NULL;
  for (char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (strncmp(l, "scenario=", 9) == 0)
      last = l;
  if (last)
    last[strcspn(last, "\n")] = 0;
  memset(r, 0, sizeof *r);
  if (last) {
    r->calls = (unsigned long)field(last, " calls=");
    r->failed = (unsigned long)field(last, " failed=");
    r->wall_s = field(last, " wall_s=");
    r->cps = field(last, " calls_per_s=");
    r->p50 = field(last, " p50_us=");
    r->p99 = field(last, " p99_us=");
  }
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && last && r->failed == 0
            && r->calls == calls && isfinite(r->cps) && isfinite(r->p50) && isfinite(r->p99);
  if (!ok) {
    say("iiop-bench run: %s: %s client failed (%s%d)%s%s", scen[sc].name, sys_name[sys],
        WIFEXITED(st) ? "exit status " : "signal ", WIFEXITED(st) ? WEXITSTATUS(st)
        : WIFSIGNALED(st) ? WTERMSIG(st) : -1, last ? ": " : ", no result line", last ? last : "");
    show_log(p.log);
    return -1;
  }
  return 0;
}

static int run_client(int sys, int sc, const char *target, unsigned long calls,
                      unsigned long warmup, int timeout_ms, const char *tag, client_result *r)
{
  return run_client_t(sys, sc, target, calls, warmup, 1, timeout_ms, tag, r);
}

/* ---------------------------------------------------------------- connections */

/* Connections established to 127.0.0.1:PORT from the client side now
 * (/proc/net/tcp: remote port PORT, state 01), or -1. */
static int tcp_established_to(unsigned port)
{
  FILE *f = fopen("/proc/net/tcp", "r");
  if (!f)
    return -1;
  char line[512];
  int n = 0;
  if (!fgets(line, sizeof line, f)) { /* the header */
    fclose(f);
    return -1;
  }
  while (fgets(line, sizeof line, f)) {
    unsigned lp, rp, st;
    if (sscanf(line, " %*d: %*x:%x %*x:%x %x", &lp, &rp, &st) == 3 && rp == port && st == 1)
      n++;
  }
  fclose(f);
  return n;
}

/* Established TCP connections of process PID (PIDFD: its pidfd) to
 * 127.0.0.1:PORT now, or -1 when they cannot be told this way.  Each of its
 * socket descriptors is copied into this process (pidfd_getfd) and asked
 * for its peer and its TCP state: a few system calls per socket.  (A scan
 * of /proc/net/tcp, or a sock_diag dump, walks the kernel's whole
 * connection hash, 2^18 buckets here: 2 to 8 ms of CPU each, so sampled
 * every 2 ms it took most of a CPU from the server or the client it
 * measured.) */
static int tcp_established_of(pid_t pid, int pidfd, unsigned port)
{
#if defined(SYS_pidfd_getfd) && defined(TCP_INFO)
  char dir[64];
  snprintf(dir, sizeof dir, "/proc/%ld/fd", (long)pid);
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  int n = 0, copied = 0, sockets = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    char path[64 + sizeof e->d_name], link[64];
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ssize_t l = readlink(path, link, sizeof link - 1);
    if (l <= 0)
      continue;
    link[l] = 0;
    if (strncmp(link, "socket:", 7) != 0)
      continue;
    sockets++;
    int fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(e->d_name), 0);
    if (fd < 0)
      continue;
    copied++;
    struct sockaddr_in peer;
    socklen_t pl = sizeof peer;
    struct tcp_info ti;
    socklen_t tl = sizeof ti;
    if (getpeername(fd, (struct sockaddr *)&peer, &pl) == 0 && peer.sin_family == AF_INET
        && ntohs(peer.sin_port) == port
        && getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 && ti.tcpi_state == 1)
      n++;                              /* TCP_ESTABLISHED */
    close(fd);
  }
  closedir(d);
  return sockets > 0 && copied == 0 ? -1 : n;
#else
  (void)pid;
  (void)pidfd;
  (void)port;
  return -1;
#endif
}

/* A thread that samples the measured client's established connections
 * every 2 ms while it runs and keeps the most seen: tcp_established_of(),
 * or where that cannot be used (no pidfd_getfd, not permitted)
 * tcp_established_to() every 100 ms. */
typedef struct conn_sampler {
  pthread_t th;
  unsigned port;
  volatile int stop;
  int most;
} conn_sampler;

static void *conn_sampler_main(void *arg)
{
  conn_sampler *cs = arg;
  pid_t pid = 0;
  int pidfd = -1, slow = 0;
  while (!cs->stop) {
    pid_t now = __atomic_load_n(&g_client_pid, __ATOMIC_ACQUIRE);
    if (now != pid) {
      if (pidfd >= 0)
        close(pidfd);
      pidfd = -1;
      pid = now;
#ifdef SYS_pidfd_open
      if (pid > 0)
        pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    }
    int n = -1;
    if (pid > 0 && pidfd >= 0 && !slow && (n = tcp_established_of(pid, pidfd, cs->port)) < 0)
      slow = 1;
    if (slow)
      n = tcp_established_to(cs->port);
    if (n > cs->most)
      cs->most = n;
    struct timespec ts = { 0, slow ? 100000000 : 2000000 };
    nanosleep(&ts, NULL);
  }
  if (pidfd >= 0)
    close(pidfd);
  return NULL;
}

/* ---------------------------------------------------------------- octets per call */

typedef struct proxy {
  int lfd, wake[2];
  unsigned port, to_port;
  uint64_t up, down;           /* atomic: client->server, server->client */
  int active, accepted;        /* atomic */
  pthread_t th;
} proxy;

typedef struct pump_arg {
  proxy *px;
  int cfd;
} pump_arg;

static bool write_all(int fd, const char *b, size_t n)
{
  while (n) {
    ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    b += w;
    n -= (size_t)w;
  }
  return true;
}

static void *pump_main(void *arg)
{
  pump_arg pa = *(pump_arg *)arg;
  free(arg);
  proxy *px = pa.px;
  int sfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)px->to_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (sfd >= 0 && connect(sfd, (struct sockaddr *)&sa, sizeof sa) == 0) {
    int one = 1;
    setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(pa.cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bool c_open = true, s_open = true;
    char *buf = malloc(65536);
    while (buf && (c_open || s_open)) {
      struct pollfd q[2] = { { c_open ? pa.cfd : -1, POLLIN, 0 }, { s_open ? sfd : -1, POLLIN, 0 } };
      int r = poll(q, 2, 30000);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      for (int k = 0; k < 2; k++) {
        if (!q[k].revents)
          continue;
        int from = k == 0 ? pa.cfd : sfd, to = k == 0 ? sfd : pa.cfd;
        ssize_t n = recv(from, buf, 65536, 0);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0) {
          shutdown(to, SHUT_WR);
          if (k == 0)
            c_open = false;
          else
            s_open = false;
          continue;
        }
        __atomic_add_fetch(k == 0 ? &px->up : &px->down, (uint64_t)n, __ATOMIC_RELAXED);
        if (!write_all(to, buf, (size_t)n)) {
          c_open = s_open = false;
          break;
        }
      }
    }
    free(buf);
  }
  if (sfd >= 0)
    close(sfd);
  close(pa.cfd);
  __atomic_sub_fetch(&px->active, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *proxy_main(void *arg)
{
  proxy *px = arg;
  for (;;) {
    struct pollfd q[2] = { { px->lfd, POLLIN, 0 }, { px->wake[0], POLLIN, 0 } };
    if (poll(q, 2, -1) < 0 && errno != EINTR)
      return NULL;
    if (q[1].revents)
      return NULL;
    if (!(q[0].revents & POLLIN))
      continue;
    int cfd = accept4(px->lfd, NULL, NULL, SOCK_CLOEXEC);
    if (cfd < 0)
      continue;
    pump_arg *pa = malloc(sizeof *pa);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    __atomic_add_fetch(&px->active, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&px->accepted, 1, __ATOMIC_RELAXED);
    if (!pa || (pa->px = px, pa->cfd = cfd, pthread_create(&th, &at, pump_main, pa)) != 0) {
      free(pa);
      close(cfd);
      __atomic_sub_fetch(&px->active, 1, __ATOMIC_RELAXED);
    }
    pthread_attr_destroy(&at);
  }
}

static int proxy_start(proxy *px, unsigned to_port)
{
  memset(px, 0, sizeof *px);
  px->to_port = to_port;
  px->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t sl = sizeof sa;
  if (px->lfd < 0 || bind(px->lfd, (struct sockaddr *)&sa, sizeof sa) != 0
      || listen(px->lfd, 16) != 0 || getsockname(px->lfd, (struct sockaddr *)&sa, &sl) != 0
      || pipe2(px->wake, O_CLOEXEC) != 0) {
    if (px->lfd >= 0)
      close(px->lfd);
    return -1;
  }
  px->port = ntohs(sa.sin_port);
  if (pthread_create(&px->th, NULL, proxy_main, px) != 0) {
    close(px->lfd);
    close(px->wake[0]);
    close(px->wake[1]);
    return -1;
  }
  return 0;
}

static void proxy_stop(proxy *px)
{
  char b = 1;
  ssize_t w = write(px->wake[1], &b, 1);
  (void)w;
  pthread_join(px->th, NULL);
  /* Pumps still running (none, normally) end when their sockets close. */
  int64_t end = mono_ms() + 2000;
  while (__atomic_load_n(&px->active, __ATOMIC_ACQUIRE) > 0 && mono_ms() < end)
    sleep_ms(1);
  close(px->lfd);
  close(px->wake[0]);
  close(px->wake[1]);
}

/* Octets per call of our client and server for every scenario. */
static void measure_sizes(void)
{
  for (int sc = 0; sc < N_SCEN; sc++) {
    server s;
    char tag[64];
    snprintf(tag, sizeof tag, "sizes-%s", scen[sc].name);
    if (start_server(SYS_OURS, &s, NULL, NULL, tag) != 0)
      continue;
    proxy px;
    if (proxy_start(&px, s.port) != 0) {
      say("iiop-bench run: cannot start the counting proxy: %s", strerror(errno));
      stop_proc(&s.p, 5000);
      continue;
    }
    char target[128];
    snprintf(target, sizeof target, "corbaloc:iiop:1.2@127.0.0.1:%u/Echo", px.port);
    uint64_t up[2] = { 0, 0 }, down[2] = { 0, 0 };
    unsigned long n[2] = { SIZE_CALLS_1, SIZE_CALLS_2 };
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++) {
      uint64_t u0 = __atomic_load_n(&px.up, __ATOMIC_RELAXED);
      uint64_t d0 = __atomic_load_n(&px.down, __ATOMIC_RELAXED);
      int acc0 = __atomic_load_n(&px.accepted, __ATOMIC_RELAXED);
      client_result r;
      char t2[80];
      snprintf(t2, sizeof t2, "%s-%lu", tag, n[k]);
      ok = run_client(SYS_OURS, sc, target, n[k], 0, 120000, t2, &r) == 0;
      /* The proxy has seen the whole session once its pumps are done. */
      int64_t end = mono_ms() + 5000;
      while (ok && (__atomic_load_n(&px.accepted, __ATOMIC_RELAXED) == acc0
                    || __atomic_load_n(&px.active, __ATOMIC_ACQUIRE) > 0)
             && mono_ms() < end)
        sleep_ms(1);
      up[k] = __atomic_load_n(&px.up, __ATOMIC_RELAXED) - u0;
      down[k] = __atomic_load_n(&px.down, __ATOMIC_RELAXED) - d0;
    }
    stop_proc(&s.p, 5000);
    proxy_stop(&px);
    unsigned long dn = n[1] - n[0];
    if (!ok || up[1] <= up[0] || down[1] <= down[0]) {
      say("iiop-bench run: %s: could not measure our octets per call; no floor for it",
          scen[sc].name);
      g_any_failure = true;
      continue;
    }
    req_octets[sc] = (unsigned long)((up[1] - up[0] + dn / 2) / dn);
    rep_octets[sc] = (unsigned long)((down[1] - down[0] + dn / 2) / dn);
    have_sizes[sc] = true;
    bool exact = (up[1] - up[0]) % dn == 0 && (down[1] - down[0]) % dn == 0;
    say("[sizes] %-6s ours moves %lu octets per request, %lu per reply (GIOP, through a "
        "counting proxy)%s", scen[sc].name, req_octets[sc], rep_octets[sc],
        exact ? "" : " -- not a whole number per call: rounded");
  }
}

/* ---------------------------------------------------------------- timed rounds */

/* Runtime allowed for a client of CALLS calls at RATE calls/s. */
static int client_timeout_ms(unsigned long calls, double rate)
{
  double s = rate > 0 ? (double)calls / rate : 60.0;
  s = s * 20 + 60;
  return s > 3600 ? 3600000 : (int)(s * 1000);
}

/* One round of cell C: SYS's server, a warm-up client and the measured one,
 * THREADS client threads each; CONNS (non-NULL) gets the most connections
 * the measured client had established at once. */
static void time_one(int round, int sc, int sys, cell *c, unsigned long threads, double *conns)
{
  char tag[64];
  if (threads > 1)
    snprintf(tag, sizeof tag, "r%d-%s-%s-t%lu", round + 1, scen[sc].name, sys_name[sys], threads);
  else
    snprintf(tag, sizeof tag, "r%d-%s-%s", round + 1, scen[sc].name, sys_name[sys]);
  server s;
  if (start_server(sys, &s, NULL, NULL, tag) != 0) {
    c->failed = true;
    g_any_failure = true;
    return;
  }
  int base = proc_threads(s.p.pid);
  /* Warm-up client: server pools, caches, code paths; and the rate. */
  unsigned long wcalls;
  if (ro.calls)
    wcalls = ro.calls / 4 > 20 ? ro.calls / 4 : 20;
  else if (c->rate > 0)
    wcalls = (unsigned long)(c->rate * ro.warm_s);
  else
    wcalls = scen[sc].warm0;
  if (wcalls < 20)
    wcalls = 20;
  client_result r;
  char t2[80];
  snprintf(t2, sizeof t2, "%s-warmup", tag);
  if (wcalls < 20 * threads)
    wcalls = 20 * threads;
  if (run_client_t(sys, sc, s.target, wcalls, 0, threads, client_timeout_ms(wcalls, c->rate), t2,
                   &r) != 0) {
    stop_proc(&s.p, 5000);
    c->failed = true;
    g_any_failure = true;
    return;
  }
  if (!c->calls) {
    c->rate = r.cps;
    if (ro.calls) {
      c->calls = ro.calls;
    } else {
      double n = r.cps * ro.target_s;
      c->calls = n < 200 ? 200 : n > 5e6 ? 5000000 : (unsigned long)n;
    }
    if (c->calls < 100 * threads)
      c->calls = 100 * threads;
  }
  /* The measured client's own untimed calls warm its side for the latency
   * figures; the server serves them inside the window, so they count. */
  unsigned long inner = c->calls / 20;
  inner = inner < 10 ? 10 : inner > 200 ? 200 : inner;
  base = settle(s.p.pid, base);
  uint64_t cpu0, cpu1;
  bool ok0 = proc_cpu_ns(s.p.pid, &cpu0);
  snprintf(t2, sizeof t2, "%s-measured", tag);
  conn_sampler cs = { .port = s.port, .most = 0 };
  bool sampling = conns && pthread_create(&cs.th, NULL, conn_sampler_main, &cs) == 0;
  int rc = run_client_t(sys, sc, s.target, c->calls, inner, threads,
                        client_timeout_ms(c->calls, c->rate), t2, &r);
  if (sampling) {
    cs.stop = 1;
    pthread_join(cs.th, NULL);
  }
  settle(s.p.pid, base);
  bool ok1 = proc_cpu_ns(s.p.pid, &cpu1);
  int st = stop_proc(&s.p, 10000);
  if (rc != 0 || !ok0 || !ok1) {
    if (rc == 0)
      say("iiop-bench run: cannot read the CPU time of the %s server", sys_name[sys]);
    c->failed = true;
    g_any_failure = true;
    return;
  }
  if (st != 0 && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
    say("iiop-bench run: note: the %s server exited with status 0x%x when stopped",
        sys_name[sys], st);
  /* The inner warm-up calls are per client thread. */
  unsigned long wc = c->calls + inner * threads;
  int k = c->n++;
  if (conns)
    conns[k] = sampling ? cs.most : NAN;
  c->cpu_us[k] = (double)(cpu1 - cpu0) / 1000.0 / (double)wc;
  c->cps[k] = r.cps;
  c->p50[k] = r.p50;
  c->p99[k] = r.p99;
  c->window_calls[k] = wc;
  c->rate = r.cps;
  char th[64] = "";
  if (threads > 1)
    snprintf(th, sizeof th, "  %lu threads, %.0f conn", threads, conns ? conns[k] : NAN);
  say("[round %d/%lu] %-6s %-13s server CPU %8.2f us/call  %9.0f calls/s  p50 %7.1f us  "
      "p99 %7.1f us  (%lu calls)%s", round + 1, ro.rounds, scen[sc].name, sys_name[sys],
      c->cpu_us[k], r.cps, r.p50, r.p99, wc, th);
}

static void time_cell(int round, int sc, int sys)
{
  time_one(round, sc, sys, &cells[sc][sys], 1, NULL);
}

/* ---------------------------------------------------------------- allocations */

static void count_allocs(int sc, int sys)
{
  cell *c = &cells[sc][sys];
  if (sys_sanitized[sys]) {
    say("[allocs] %-6s %-13s not counted: its server is built with a sanitizer", scen[sc].name,
        sys_name[sys]);
    return;
  }
  char tag[64], shm[sizeof g_tmp + 80], pre[sizeof g_mcount + 16], shmv[sizeof shm + 32];
  snprintf(tag, sizeof tag, "allocs-%s-%s", scen[sc].name, sys_name[sys]);
  snprintf(shm, sizeof shm, "%s/%s.count", g_tmp, tag);
  int fd = open(shm, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ftruncate(fd, MALLOC_COUNT_SHM_SIZE) != 0) {
    say("iiop-bench run: %s: %s", shm, strerror(errno));
    if (fd >= 0)
      close(fd);
    return;
  }
  malloc_count_page *pg = mmap(NULL, MALLOC_COUNT_SHM_SIZE, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (pg == MAP_FAILED)
    return;
  snprintf(pre, sizeof pre, "LD_PRELOAD=%s", g_mcount);
  snprintf(shmv, sizeof shmv, "MALLOC_COUNT_SHM=%s", shm);
  const char *set[4] = { pre, shmv, NULL, NULL };
  if (g_ldpath_var[0])
    set[2] = g_ldpath_var;
  char **env = make_env(set);
  server s;
  if (!env || start_server(sys, &s, env, NULL, tag) != 0) {
    free(env);
    munmap(pg, MALLOC_COUNT_SHM_SIZE);
    g_any_failure = true;
    return;
  }
  int base = proc_threads(s.p.pid);
  uint64_t calls[3], bytes[3];
  unsigned long n[3] = { scen[sc].warm0, ALLOC_CALLS_1, ALLOC_CALLS_2 };
  bool ok = true;
  for (int k = 0; k < 3 && ok; k++) {
    client_result r;
    char t2[80];
    snprintf(t2, sizeof t2, "%s-%lu", tag, n[k]);
    ok = run_client(sys, sc, s.target, n[k], 0, client_timeout_ms(n[k], c->rate), t2, &r) == 0;
    base = settle(s.p.pid, base);
    calls[k] = malloc_count_calls(pg);
    bytes[k] = __atomic_load_n(&pg->bytes, __ATOMIC_RELAXED);
  }
  bool mapped = __atomic_load_n(&pg->magic, __ATOMIC_ACQUIRE) == MALLOC_COUNT_MAGIC;
  stop_proc(&s.p, 10000);
  munmap(pg, MALLOC_COUNT_SHM_SIZE);
  free(env);
  if (!ok || !mapped) {
    if (ok)
      say("iiop-bench run: %s: %s: malloc-count.so did not count (not preloaded?)",
          scen[sc].name, sys_name[sys]);
    g_any_failure = true;
    return;
  }
  double dn = (double)(ALLOC_CALLS_2 - ALLOC_CALLS_1);
  double a = ((double)(calls[2] - calls[1]) - (double)(calls[1] - calls[0])) / dn;
  double b = ((double)(bytes[2] - bytes[1]) - (double)(bytes[1] - bytes[0])) / dn;
  /* Noise (a pool growing in one run, not the other) can make it a hair
   * negative; a steady state that allocates nothing is 0. */
  c->allocs_pc = a < 0 ? 0 : a;
  c->bytes_pc = b < 0 ? 0 : b;
  c->have_alloc = true;
  say("[allocs] %-6s %-13s %7.2f allocations, %9.0f octets per call (server)", scen[sc].name,
      sys_name[sys], c->allocs_pc, c->bytes_pc);
}

/* ---------------------------------------------------------------- instructions */

static bool callgrind_total(const char *path, uint64_t *ir)
{
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char line[1024];
  bool ok = false;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "totals:", 7) == 0 || (!ok && strncmp(line, "summary:", 8) == 0)) {
      char *p = strchr(line, ':') + 1;
      *ir = strtoull(p, NULL, 10);
      ok = true;
    }
  }
  fclose(f);
  return ok;
}

static void count_instructions(int sc, int sys)
{
  cell *c = &cells[sc][sys];
  unsigned long n[2] = { scen[sc].instr_n, 10 * scen[sc].instr_n };
  uint64_t ir[2];
  for (int k = 0; k < 2; k++) {
    char tag[80], out[PATH_MAX + 96];
    snprintf(tag, sizeof tag, "instr-%s-%s-%lu", scen[sc].name, sys_name[sys], n[k]);
    snprintf(out, sizeof out, "%s/%s.callgrind", g_tmp, tag);
    server s;
    if (start_server(sys, &s, NULL, out, tag) != 0) {
      g_any_failure = true;
      return;
    }
    client_result r;
    int rc = run_client(sys, sc, s.target, n[k], 10, 600000, tag, &r);
    int st = stop_proc(&s.p, 120000);
    if (rc != 0 || st != 0 || !callgrind_total(out, &ir[k])) {
      if (rc == 0)
        say("iiop-bench run: %s: %s: no callgrind totals in %s (server status 0x%x)",
            scen[sc].name, sys_name[sys], out, st);
      show_log(s.p.log);
      g_any_failure = true;
      return;
    }
  }
  c->instr_pc = ((double)ir[1] - (double)ir[0]) / (double)(n[1] - n[0]);
  c->have_instr = true;
  say("[instr]  %-6s %-13s %9.0f instructions per call (server, user space)", scen[sc].name,
      sys_name[sys], c->instr_pc);
}

/* ---------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
  if (n <= 0)
    return NAN;
  double *t = malloc((size_t)n * sizeof *t);
  if (!t)
    return NAN;
  memcpy(t, v, (size_t)n * sizeof *t);
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  free(t);
  return m;
}

static double vmin(const double *v, int n)
{
  double m = INFINITY;
  for (int k = 0; k < n; k++)
    m = v[k] < m ? v[k] : m;
  return m;
}

static double vmax(const double *v, int n)
{
  double m = -INFINITY;
  for (int k = 0; k < n; k++)
    m = v[k] > m ? v[k] : m;
  return m;
}

static bool cell_has(int sc, int sys) { return sys_ok[sys] && cells[sc][sys].n > 0; }

/* ---------------------------------------------------------------- machine */

static struct {
  char cpu[256], kernel[256], host[256], date[64], omniorb[64], valgrind[64];
  long ncpu, nallowed;
} mach;

static void read_machine(void)
{
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  strcpy(mach.cpu, "unknown");
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      if (v) {
        v++;
        while (*v == ' ' || *v == '\t')
          v++;
        v[strcspn(v, "\n")] = 0;
        snprintf(mach.cpu, sizeof mach.cpu, "%s", v);
      }
      break;
    }
  }
  if (f)
    fclose(f);
  struct utsname u;
  if (uname(&u) == 0) {
    snprintf(mach.kernel, sizeof mach.kernel, "%s %s %s", u.sysname, u.release, u.machine);
    snprintf(mach.host, sizeof mach.host, "%s", u.nodename);
  }
  mach.ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(mach.date, sizeof mach.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* First line of a command's output (a helper's version), or "". */
static void first_line_of(const char *cmd, char *out, size_t sz)
{
  out[0] = 0;
  FILE *p = popen(cmd, "r");
  if (!p)
    return;
  if (fgets(out, (int)sz, p))
    out[strcspn(out, "\n")] = 0;
  pclose(p);
}

/* The CPUs of servers and clients: the first two we may run on, or
 * --cpus; false when --cpus names one we may not use. */
static bool pick_cpus(void)
{
  cpu_set_t cs;
  CPU_ZERO(&cs);
  if (sched_getaffinity(0, sizeof cs, &cs) != 0)
    return true;
  mach.nallowed = CPU_COUNT(&cs);
  if (ro.no_pin)
    return true;
  if (ro.cpus[0] >= 0) {
    for (int k = 0; k < 2; k++)
      if (!CPU_ISSET(ro.cpus[k], &cs)) {
        say("iiop-bench run: --cpus: this process may not run on CPU %d", ro.cpus[k]);
        return false;
      }
    cpu_server = ro.cpus[0];
    cpu_client = ro.cpus[1];
    return true;
  }
  for (int k = 0; k < CPU_SETSIZE; k++) {
    if (!CPU_ISSET(k, &cs))
      continue;
    if (cpu_server < 0)
      cpu_server = k;
    else if (cpu_client < 0)
      cpu_client = k;
  }
  if (cpu_client < 0)
    cpu_server = -1; /* one CPU: nothing to separate */
  return true;
}

/* ---------------------------------------------------------------- output */

static void json_num(FILE *f, double v, int prec)
{
  if (isfinite(v))
    fprintf(f, "%.*f", prec, v);
  else
    fputs("null", f);
}

/* A cell's figures as a JSON object, left open (the caller adds fields and
 * the closing brace). */
static void json_cell(FILE *f, const cell *c)
{
  fputs("{\"server_cpu_us_per_call\": [", f);
  for (int k = 0; k < c->n; k++) {
    if (k)
      fputs(", ", f);
    json_num(f, c->cpu_us[k], 4);
  }
  fputs("], \"median_server_cpu_us\": ", f);
  json_num(f, median(c->cpu_us, c->n), 4);
  fputs(", \"calls_per_s\": ", f);
  json_num(f, median(c->cps, c->n), 1);
  fputs(", \"p50_us\": ", f);
  json_num(f, median(c->p50, c->n), 1);
  fputs(", \"p99_us\": ", f);
  json_num(f, median(c->p99, c->n), 1);
  fputs(", \"mallocs_per_call\": ", f);
  json_num(f, c->have_alloc ? c->allocs_pc : NAN, 3);
  fputs(", \"bytes_per_call\": ", f);
  json_num(f, c->have_alloc ? c->bytes_pc : NAN, 1);
  fputs(", \"instructions_per_call\": ", f);
  json_num(f, c->have_instr ? c->instr_pc : NAN, 0);
  fprintf(f, ", \"calls_per_round\": %lu", c->window_calls[0]);
}

/* The thread rows of scenario SC (ping, graph) as "threads": {...}. */
static void json_threads(FILE *f, int sc)
{
  fputs(",\n      \"threads\": {", f);
  bool first = true;
  for (int t = 0; t < ntlist; t++) {
    if (tlist[t] <= 1)
      continue;
    fprintf(f, "%s\n        \"%lu\": {", first ? "" : ",", tlist[t]);
    first = false;
    for (int k = 0; k < N_TSYS; k++) {
      const tcell *tc = &tcells[sc][t][k];
      fprintf(f, "%s\"%s\": ", k ? ", " : "", sys_name[tsys_sys[k]]);
      if (!sys_ok[tsys_sys[k]] || tc->c.n == 0) {
        fputs("null", f);
        continue;
      }
      json_cell(f, &tc->c);
      fprintf(f, ", \"client_threads\": %lu, \"connections\": ", tlist[t]);
      json_num(f, median(tc->conns, tc->c.n), 0);
      fputc('}', f);
    }
    fputc('}', f);
  }
  fputs(first ? "}" : "\n      }", f);
}

static int write_json(const char *path)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    say("iiop-bench run: --json %s: %s", path, strerror(errno));
    return -1;
  }
  fputs("{\n  \"machine\": {\"cpu\": ", f);
  bench_json_str(f, mach.cpu);
  fprintf(f, ", \"cpus_online\": %ld, \"cpus_allowed\": %ld, \"kernel\": ", mach.ncpu,
          mach.nallowed);
  bench_json_str(f, mach.kernel);
  fputs(", \"host\": ", f);
  bench_json_str(f, mach.host);
  fputs(", \"compiler\": ", f);
  bench_json_str(f, "gcc " __VERSION__);
  fprintf(f, ", \"server_cpu\": %d, \"client_cpu\": %d, \"date\": ", cpu_server, cpu_client);
  bench_json_str(f, mach.date);
  fputs(", \"omniorb\": ", f);
  if (mach.omniorb[0])
    bench_json_str(f, mach.omniorb);
  else
    fputs("null", f);
  fputs(", \"valgrind\": ", f);
  if (mach.valgrind[0])
    bench_json_str(f, mach.valgrind);
  else
    fputs("null", f);
  fprintf(f, "},\n  \"run\": {\"rounds\": %lu, \"quick\": %s, \"instructions\": %s, "
          "\"cpu_clock\": \"process CPU clock of the server (all threads)\", "
          "\"alloc_window_calls\": %d},\n", ro.rounds, ro.quick ? "true" : "false",
          ro.instructions ? "true" : "false", ALLOC_CALLS_2 - ALLOC_CALLS_1);
  fputs("  \"scenarios\": {\n", f);
  for (int sc = 0; sc < N_SCEN; sc++) {
    fprintf(f, "    \"%s\": {\n", scen[sc].name);
    for (int sys = 0; sys < N_SYS; sys++) {
      const cell *c = &cells[sc][sys];
      fprintf(f, "      \"%s\": ", sys_name[sys]);
      if (!cell_has(sc, sys)) {
        fputs("null", f);
      } else {
        json_cell(f, c);
        if (sys == SYS_FLOOR)
          fprintf(f, ", \"request_octets\": %lu, \"reply_octets\": %lu", req_octets[sc],
                  rep_octets[sc]);
        fputc('}', f);
      }
      fputs(sys + 1 < N_SYS ? ",\n" : "", f);
    }
    if (sc < N_TSCEN)
      json_threads(f, sc);
    fprintf(f, "\n    }%s\n", sc + 1 < N_SCEN ? "," : "");
  }
  fputs("  }\n}\n", f);
  if (fclose(f) != 0) {
    say("iiop-bench run: writing %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

static void fmt_num(char *out, size_t sz, double v, int prec)
{
  if (isfinite(v))
    snprintf(out, sz, "%.*f", prec, v);
  else
    snprintf(out, sz, "-");
}

static bool any_thread_rows(void)
{
  for (int t = 0; t < ntlist; t++)
    if (tlist[t] > 1)
      return true;
  return false;
}

/* The thread rows: T client threads on one reference (conn: the most
 * connections the measured client had established at once). */
static void print_thread_rows(void)
{
  if (!any_thread_rows())
    return;
  printf("\nclient threads: T threads of one client process calling through one reference; "
         "conn: connections\nthe client had established at most (sampled every 2 ms); "
         "ratio: ours/omniORB calls/s\n");
  printf("%-7s %7s %-9s %22s %10s %9s %9s %5s %7s\n", "", "threads", "", "server CPU us/call",
         "calls/s", "p50 us", "p99 us", "conn", "ratio");
  for (int sc = 0; sc < N_TSCEN; sc++)
    for (int t = 0, named = 0; t < ntlist; t++) {
      if (tlist[t] <= 1)
        continue;
      for (int k = 0; k < N_TSYS; k++) {
        const tcell *tc = &tcells[sc][t][k];
        const cell *c = &tc->c;
        int sys = tsys_sys[k];
        const char *sn = named++ ? "" : scen[sc].name;
        if (!sys_ok[sys] || c->n == 0) {
          printf("%-7s %7lu %-9s (%s)\n", sn, tlist[t], sys_name[sys],
                 !sys_ok[sys] ? (sys_short[sys] ? sys_short[sys] : "not run")
                              : "failed: see the messages");
          continue;
        }
        char cpu[64], ratio[16] = "";
        snprintf(cpu, sizeof cpu, "%.2f [%.2f..%.2f]", median(c->cpu_us, c->n),
                 vmin(c->cpu_us, c->n), vmax(c->cpu_us, c->n));
        const cell *o = &tcells[sc][t][TS_OMNI].c;
        if (k == TS_OURS && sys_ok[SYS_OMNI] && o->n > 0)
          snprintf(ratio, sizeof ratio, "%.2f", median(c->cps, c->n) / median(o->cps, o->n));
        printf("%-7s %7lu %-9s %22s %10.0f %9.1f %9.1f %5.0f %7s\n", sn, tlist[t],
               sys_name[sys], cpu, median(c->cps, c->n), median(c->p50, c->n),
               median(c->p99, c->n), median(tc->conns, c->n), ratio);
      }
    }
}

static void print_table(void)
{
  printf("\n== iiop-bench run: medians of %lu round%s%s ==\n", ro.rounds,
         ro.rounds == 1 ? "" : "s", ro.quick ? " (--quick)" : "");
  printf("machine: %s, %ld CPUs online, %s, %s\n", mach.cpu, mach.ncpu, mach.kernel, mach.date);
  if (cpu_server >= 0)
    printf("pinning: servers on CPU %d, clients on CPU %d\n", cpu_server, cpu_client);
  else
    printf("pinning: none (%s)\n", ro.no_pin ? "--no-pin" : "one CPU available");
  printf("server CPU: all threads of the server process over the measured client run, "
         "per call; [min..max] across rounds\n");
  printf("allocs, octets: asked of malloc & co. by the server per call in the steady state "
         "(LD_PRELOAD counter)\n");
  printf("instr: server user-space instructions per call (callgrind)%s\n\n",
         ro.instructions ? "" : ": with --instructions");
  printf("%-7s %-14s %22s %10s %9s %9s %10s %11s %11s\n", "", "", "server CPU us/call",
         "calls/s", "p50 us", "p99 us", "allocs", "octets", "instr");
  for (int sc = 0; sc < N_SCEN; sc++) {
    for (int sys = 0; sys < N_SYS; sys++) {
      const cell *c = &cells[sc][sys];
      const char *sn = sys == 0 ? scen[sc].name : "";
      if (!cell_has(sc, sys)) {
        printf("%-7s %-14s (%s)\n", sn, sys_name[sys],
               !sys_ok[sys] ? (sys_short[sys] ? sys_short[sys] : "not run")
               : sys == SYS_FLOOR && !have_sizes[sc] ? "not run: our octets per call unknown"
               : "failed: see the messages");
        continue;
      }
      char cpu[64], al[32], by[32], in[32];
      snprintf(cpu, sizeof cpu, "%.2f [%.2f..%.2f]", median(c->cpu_us, c->n),
               vmin(c->cpu_us, c->n), vmax(c->cpu_us, c->n));
      fmt_num(al, sizeof al, c->have_alloc ? c->allocs_pc : NAN, 2);
      fmt_num(by, sizeof by, c->have_alloc ? c->bytes_pc : NAN, 0);
      fmt_num(in, sizeof in, c->have_instr ? c->instr_pc : NAN, 0);
      printf("%-7s %-14s %22s %10.0f %9.1f %9.1f %10s %11s %11s\n", sn, sys_name[sys], cpu,
             median(c->cps, c->n), median(c->p50, c->n), median(c->p99, c->n), al, by, in);
    }
    if (have_sizes[sc])
      printf("%-7s (floor: %lu octets request, %lu octets reply per call, as ours)\n", "",
             req_octets[sc], rep_octets[sc]);
  }
  printf("\nratios of the medians: server CPU per call (p50 latency)\n");
  printf("%-7s %-20s %-20s %-20s %-20s %-20s\n", "", "ours/omniORB", "ours/floor",
         "frag1024/omniORB", "frag1024/floor", "ours_idl/ours");
  for (int sc = 0; sc < N_SCEN; sc++) {
    printf("%-7s", scen[sc].name);
    static const int pairs[5][2] = { { SYS_OURS, SYS_OMNI }, { SYS_OURS, SYS_FLOOR },
                                     { SYS_FRAG, SYS_OMNI }, { SYS_FRAG, SYS_FLOOR },
                                     { SYS_IDL, SYS_OURS } };
    for (int k = 0; k < 5; k++) {
      int a = pairs[k][0], b = pairs[k][1];
      char s[64] = "-";
      if (cell_has(sc, a) && cell_has(sc, b)) {
        const cell *x = &cells[sc][a], *y = &cells[sc][b];
        snprintf(s, sizeof s, "%.2f (%.2f)", median(x->cpu_us, x->n) / median(y->cpu_us, y->n),
                 median(x->p50, x->n) / median(y->p50, y->n));
      }
      printf(" %-20s", s);
    }
    printf("\n");
  }
  /* The generated server against the native one: server instructions per
   * call (what the C mapping's skeleton and POA add to the same libiiop). */
  bool idl_instr = false;
  for (int sc = 0; sc < N_SCEN; sc++)
    idl_instr |= cells[sc][SYS_IDL].have_instr && cells[sc][SYS_OURS].have_instr;
  if (idl_instr) {
    printf("\nserver instructions per call, ours_idl/ours (idl2c's skeleton over libcorbaorb "
           "against the\nhand-written servant, same client):");
    for (int sc = 0; sc < N_SCEN; sc++) {
      const cell *x = &cells[sc][SYS_IDL], *y = &cells[sc][SYS_OURS];
      if (x->have_instr && y->have_instr && y->instr_pc > 0)
        printf(" %s %.3f (%+.0f)", scen[sc].name, x->instr_pc / y->instr_pc,
               x->instr_pc - y->instr_pc);
      else
        printf(" %s -", scen[sc].name);
    }
    printf("\n");
  }
  print_thread_rows();
  /* A loopback ping-pong costs a few microseconds of server CPU on bare
   * metal; much more means wake-ups across CPUs are dear here (a VM exit
   * per idle CPU woken, typically), which then dominates every system. */
  if (cpu_server >= 0 && cpu_server != cpu_client && cell_has(SC_PING, SYS_FLOOR)) {
    const cell *f = &cells[SC_PING][SYS_FLOOR];
    double m = median(f->cpu_us, f->n);
    if (m > 10)
      printf("\nnote: the TCP floor alone costs %.1f us of server CPU per ping here: waking a "
             "thread on\nanother CPU is expensive on this machine (a VM?) and weighs on every "
             "system alike;\n`--cpus %d,%d` runs servers and clients on one CPU, where the "
             "stacks' own costs show.\n", m, cpu_server, cpu_server);
  }
  fflush(stdout);
}

/* A PNG: median server CPU per call with the range, one panel per scenario. */
static void write_chart(const char *png)
{
  char dat[PATH_MAX + 32];
  snprintf(dat, sizeof dat, "%s/chart.dat", g_tmp);
  FILE *d = fopen(dat, "w");
  if (!d)
    return;
  for (int sc = 0; sc < N_SCEN; sc++) {
    for (int sys = 0; sys < N_SYS; sys++) {
      const cell *c = &cells[sc][sys];
      if (cell_has(sc, sys))
        fprintf(d, "%s %d %.4f %.4f %.4f\n", sys_name[sys], sys + 1, median(c->cpu_us, c->n),
                vmin(c->cpu_us, c->n), vmax(c->cpu_us, c->n));
      else
        fprintf(d, "%s %d NaN NaN NaN\n", sys_name[sys], sys + 1);
    }
    fputs("\n\n", d);
  }
  bool trows = any_thread_rows();
  for (int sc = 0; sc < N_TSCEN && trows; sc++) { /* index N_SCEN + sc: threads, ours, omniORB */
    for (int t = 0; t < ntlist; t++) {
      if (tlist[t] <= 1)
        continue;
      fprintf(d, "%lu", tlist[t]);
      for (int k = 0; k < N_TSYS; k++) {
        const cell *c = &tcells[sc][t][k].c;
        fprintf(d, " %.1f", sys_ok[tsys_sys[k]] && c->n ? median(c->cps, c->n) : NAN);
      }
      fputc('\n', d);
    }
    fputs("\n\n", d);
  }
  fclose(d);
  char cmd[sizeof g_gnuplot + sizeof g_tmp + 64];
  snprintf(cmd, sizeof cmd, "'%s' 2>'%s/gnuplot.log'", g_gnuplot, g_tmp);
  FILE *g = popen(cmd, "w");
  if (!g)
    return;
  fprintf(g, "set terminal pngcairo size 1200,%d noenhanced font ',10'\n"
             "set output '%s'\n"
             "set multiplot layout %d,3 title 'server CPU per call, us (median of %lu rounds, "
             "range) -- %s'\n"
             "set style fill solid 0.7 border -1\nset boxwidth 0.6\nset yrange [0:*]\n"
             "set xrange [0.3:%d.7]\nset grid ytics\nunset key\n"
             "set xtics rotate by -20\n", trows ? 900 : 450, png, trows ? 2 : 1, ro.rounds,
             mach.cpu, N_SYS);
  for (int sc = 0; sc < N_SCEN; sc++)
    fprintf(g, "set title '%s'\nplot '%s' index %d using 2:3:(0.6):2:xtic(1) with boxes "
               "lc variable, '' index %d using 2:3:4:5 with yerrorbars lc rgb 'black' lw 1.5 ps 0\n",
            scen[sc].name, dat, sc, sc);
  for (int sc = 0; sc < N_TSCEN && trows; sc++)
    fprintf(g, "set title '%s: calls/s by client threads'\nset key top left\nset logscale x 2\n"
               "set xrange [*:*]\nset xtics norotate\nset style data linespoints\n"
               "plot '%s' index %d using 1:2 title 'ours' lw 2, '' index %d using 1:3 title "
               "'omniorb' lw 2\nunset logscale x\n",
            scen[sc].name, dat, N_SCEN + sc, N_SCEN + sc);
  fputs("unset multiplot\n", g);
  int st = pclose(g);
  if (st != 0) {
    say("iiop-bench run: gnuplot failed; no chart (see %s/gnuplot.log)", g_tmp);
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%s/gnuplot.log", g_tmp);
    show_log(log);
    g_any_failure = true;
    return;
  }
  say("iiop-bench run: chart written to %s", png);
}

/* ---------------------------------------------------------------- setup */

static bool find_helpers(void)
{
  const char *top = getenv("IIOP_BENCH_BUILDDIR");
  if (top && *top) {
    if (!realpath(top, g_top)) {
      say("iiop-bench run: IIOP_BENCH_BUILDDIR=%s: %s", top, strerror(errno));
      return false;
    }
    path_join(g_benchdir, sizeof g_benchdir, g_top, "bench");
  } else {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
      say("iiop-bench run: cannot read /proc/self/exe: %s", strerror(errno));
      return false;
    }
    self[n] = 0;
    dir_up(self);
    const char *base = strrchr(self, '/');
    if (base && strcmp(base, "/.libs") == 0)
      dir_up(self);
    snprintf(g_benchdir, sizeof g_benchdir, "%s", self);
    snprintf(g_top, sizeof g_top, "%s", self);
    dir_up(g_top);
  }
  bool ok = true;
  if (!find_program(g_benchdir, "iiop-bench", g_ours, sizeof g_ours)) {
    say("iiop-bench run: missing %s/iiop-bench (our server and client): build it with `make "
        "bench/iiop-bench`%s", g_benchdir,
        top ? "" : " (or point IIOP_BENCH_BUILDDIR at the build folder)");
    ok = false;
  }
  char d1[PATH_MAX + 16], d2[PATH_MAX + 16], d3[PATH_MAX + 24];
  snprintf(d1, sizeof d1, "%s/libiiop/.libs", g_top);
  snprintf(d2, sizeof d2, "%s/libcdr/.libs", g_top);
  snprintf(d3, sizeof d3, "%s/libcorbaorb/.libs", g_top);
  if (is_dir(d1) && is_dir(d2)) {
    const char *old = getenv("LD_LIBRARY_PATH");
    bool orb = is_dir(d3);
    snprintf(g_ldpath_var, sizeof g_ldpath_var, "LD_LIBRARY_PATH=%s:%s%s%s%s%s", d1, d2,
             orb ? ":" : "", orb ? d3 : "", old && *old ? ":" : "", old && *old ? old : "");
  }
  sys_ok[SYS_OURS] = sys_ok[SYS_FRAG] = ok;
  if (ok && sanitized(g_ours)) {
    sys_sanitized[SYS_OURS] = sys_sanitized[SYS_FRAG] = true;
    say("iiop-bench run: warning: %s is built with a sanitizer (configure "
        "--enable-sanitizers?): its figures are not representative, and its allocations "
        "cannot be counted", g_ours);
  }
  sys_ok[SYS_IDL] = ok && find_program(g_benchdir, "idl-bench", g_idl, sizeof g_idl);
  if (sys_ok[SYS_IDL]) {
    sys_sanitized[SYS_IDL] = sanitized(g_idl);
  } else if (ok) {
    snprintf(sys_why[SYS_IDL], sizeof sys_why[0], "missing %s/idl-bench: build it with "
             "`make bench/idl-bench`; the ours_idl row will be null", g_benchdir);
    sys_short[SYS_IDL] = "not run: bench/idl-bench missing";
  }

  sys_ok[SYS_FLOOR] = find_program(g_benchdir, "tcp-floor", g_floor, sizeof g_floor);
  if (sys_ok[SYS_FLOOR])
    sys_sanitized[SYS_FLOOR] = sanitized(g_floor);
  else {
    snprintf(sys_why[SYS_FLOOR], sizeof sys_why[0], "missing %s/tcp-floor: build it with "
             "`make bench/tcp-floor`; the floor column will be null", g_benchdir);
    sys_short[SYS_FLOOR] = "not run: bench/tcp-floor missing";
    g_any_failure = true;
  }

  snprintf(g_mcount, sizeof g_mcount, "%s/.libs/malloc-count.so", g_benchdir);
  if (access(g_mcount, R_OK) != 0) {
    say("iiop-bench run: missing %s (the allocation counter): build it with `make "
        "bench/malloc-count.la`; allocations will be null", g_mcount);
    g_mcount[0] = 0;
    g_any_failure = true;
  }

  /* omniORB's peers: in the build tree, else in the source tree; built on
   * demand when omniORB is installed. */
  char srcdir[PATH_MAX] = "";
  const char *dirs[2] = { g_top, read_srcdir(srcdir, sizeof srcdir) ? srcdir : NULL };
  for (int pass = 0; pass < 2 && !sys_ok[SYS_OMNI]; pass++) {
    for (int k = 0; k < 2 && !sys_ok[SYS_OMNI]; k++) {
      if (!dirs[k])
        continue;
      char dir[PATH_MAX + 32];
      snprintf(dir, sizeof dir, "%s/tests/interop", dirs[k]);
      if (snprintf(g_omni_srv, sizeof g_omni_srv, "%s/omni-server", dir) >= (int)sizeof g_omni_srv
          || snprintf(g_omni_cli, sizeof g_omni_cli, "%s/omni-client", dir)
             >= (int)sizeof g_omni_cli)
        continue;
      if (is_exec(g_omni_srv) && is_exec(g_omni_cli)) {
        sys_ok[SYS_OMNI] = true;
      } else if (pass == 1) {
        char mk[sizeof dir + 16], tool[PATH_MAX];
        snprintf(mk, sizeof mk, "%s/Makefile", dir);
        if (access(mk, R_OK) != 0)
          continue;
        if (!find_in_path("omniidl", tool, sizeof tool) || system("pkg-config --exists "
                                                                  "omniDynamic4 2>/dev/null") != 0) {
          snprintf(sys_why[SYS_OMNI], sizeof sys_why[0], "omniORB is not installed (apt-get "
                   "install omniorb omniidl libomniorb4-dev g++); the omniORB column will be "
                   "null");
          sys_short[SYS_OMNI] = "not run: omniORB not installed";
          continue;
        }
        say("iiop-bench run: building omniORB's peers: make -C %s", dir);
        char cmd[sizeof dir + sizeof g_tmp + 64];
        snprintf(cmd, sizeof cmd, "make -s -C '%s' >'%s/make-interop.log' 2>&1", dir, g_tmp);
        if (system(cmd) == 0 && is_exec(g_omni_srv) && is_exec(g_omni_cli)) {
          sys_ok[SYS_OMNI] = true;
        } else {
          char log[PATH_MAX + 32];
          snprintf(log, sizeof log, "%s/make-interop.log", g_tmp);
          show_log(log);
          snprintf(sys_why[SYS_OMNI], sizeof sys_why[0], "building %s failed; the omniORB "
                   "column will be null", dir);
          sys_short[SYS_OMNI] = "not run: building omniORB's peers failed";
          g_any_failure = true;
        }
      }
    }
  }
  if (!sys_ok[SYS_OMNI] && !sys_why[SYS_OMNI][0])
    snprintf(sys_why[SYS_OMNI], sizeof sys_why[0], "omniORB's peers (tests/interop/omni-server, "
             "omni-client) are not built and cannot be: no tests/interop/Makefile under %s; the "
             "omniORB column will be null", g_top);
  if (!sys_ok[SYS_OMNI] && !sys_short[SYS_OMNI])
    sys_short[SYS_OMNI] = "not run: omniORB's peers not built";
  for (int sys = 0; sys < N_SYS; sys++)
    if (!sys_ok[sys] && sys_why[sys][0])
      say("iiop-bench run: %s: %s", sys_name[sys], sys_why[sys]);
  if (sys_ok[SYS_OMNI])
    first_line_of("pkg-config --modversion omniORB4 2>/dev/null", mach.omniorb,
                  sizeof mach.omniorb);

  if (ro.instructions) {
    if (find_in_path("valgrind", g_valgrind, sizeof g_valgrind)) {
      first_line_of("valgrind --version 2>/dev/null", mach.valgrind, sizeof mach.valgrind);
    } else {
      say("iiop-bench run: --instructions: valgrind is not installed (apt-get install "
          "valgrind); instructions will be null");
      g_valgrind[0] = 0;
    }
  }
  if (!ro.no_chart && !find_in_path("gnuplot", g_gnuplot, sizeof g_gnuplot)) {
    g_gnuplot[0] = 0;
    say("iiop-bench run: gnuplot is not installed: no chart (apt-get install gnuplot-nox)");
  }
  return ok;
}

static void rm_tmp(void)
{
  DIR *d = opendir(g_tmp);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char p[PATH_MAX + 260];
    snprintf(p, sizeof p, "%s/%s", g_tmp, e->d_name);
    unlink(p);
  }
  closedir(d);
  rmdir(g_tmp);
}

/* "1,8,32" into tlist; false on anything else. */
static bool parse_tlist(const char *arg)
{
  int n = 0;
  const char *p = arg;
  while (*p) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(p, &end, 10);
    if (errno || end == p || v < 1 || v > 4096 || n == MAX_TLIST || *p == '-')
      return false;
    tlist[n++] = v;
    if (*end == ',' && end[1])
      end++;
    else if (*end)
      return false;
    p = end;
  }
  if (!n)
    return false;
  ntlist = n;
  return true;
}

static void run_usage(FILE *f)
{
  fputs("usage: iiop-bench run [--quick] [--rounds N] [--calls N] [--instructions]\n"
        "                      [--json FILE] [--chart FILE.png | --no-chart]\n"
        "                      [--cpus S,C | --no-pin] [--threads LIST]\n"
        "Server CPU per call, calls/s, p50/p99 latency and allocations per call of our\n"
        "IIOP stack (default fragment size and 1024), its server on idl2c's skeleton\n"
        "(ours_idl: bench/idl-bench, our client), omniORB and a raw TCP ping-pong of\n"
        "the same octets, on ping, a 50-node value graph and a 64 KiB string each way.\n"
        "  --quick         3 rounds of short runs: about 20 s\n"
        "  --rounds N      rounds (default 5; 3 with --quick)\n"
        "  --calls N       measured calls per client run (default: calibrated to about\n"
        "                  1 s, 0.25 s with --quick)\n"
        "  --instructions  also server instructions per call under callgrind (slow)\n"
        "  --json FILE     write the results as JSON\n"
        "  --chart FILE    the PNG chart (gnuplot; default: the --json name with .png,\n"
        "                  or iiop-bench-run.png)\n"
        "  --no-chart      no chart\n"
        "  --cpus S,C      pin servers to CPU S and clients to CPU C (default: the\n"
        "                  first two CPUs this process may use; S == C allowed)\n"
        "  --no-pin        pin nothing\n"
        "  --threads LIST  thread rows: ping and graph with T client threads on one\n"
        "                  reference, ours and omniORB, for each T > 1 of LIST (default\n"
        "                  1,8,32; 1 alone: none), with the connections each client opened\n"
        "Helpers: bench/iiop-bench, bench/idl-bench, bench/tcp-floor,\n"
        "bench/.libs/malloc-count.so and\n"
        "tests/interop/omni-server, omni-client, found next to this program (or under\n"
        "$IIOP_BENCH_BUILDDIR).  Progress goes to standard error, the table to standard\n"
        "output.  Exit status: 0 done, 1 a helper missing or a measurement failed,\n"
        "2 usage error.\n", f);
}

int iiop_bench_run_main(int argc, char **argv)
{
  enum { O_QUICK = 256, O_JSON, O_INSTR, O_ROUNDS, O_CALLS, O_CHART, O_NOCHART, O_CPUS, O_NOPIN,
         O_THREADS, O_HELP };
  static const struct option lo[] = {
    { "quick", no_argument, NULL, O_QUICK },
    { "json", required_argument, NULL, O_JSON },
    { "instructions", no_argument, NULL, O_INSTR },
    { "rounds", required_argument, NULL, O_ROUNDS },
    { "calls", required_argument, NULL, O_CALLS },
    { "chart", required_argument, NULL, O_CHART },
    { "no-chart", no_argument, NULL, O_NOCHART },
    { "cpus", required_argument, NULL, O_CPUS },
    { "no-pin", no_argument, NULL, O_NOPIN },
    { "threads", required_argument, NULL, O_THREADS },
    { "help", no_argument, NULL, O_HELP },
    { NULL, 0, NULL, 0 },
  };
  int c;
  ro.cpus[0] = ro.cpus[1] = -1;
  opterr = 0;
  optind = 0; /* glibc: start afresh, whatever parsed options before */
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    switch (c) {
    case O_QUICK: ro.quick = true; break;
    case O_JSON: ro.json = optarg; break;
    case O_INSTR: ro.instructions = true; break;
    case O_ROUNDS:
      if (!bench_parse_ulong(optarg, 1, MAX_ROUNDS, &ro.rounds))
        return bench_usage_error("iiop-bench run", run_usage, "--rounds: a number from 1 to %d, not '%s'", MAX_ROUNDS, optarg);
      break;
    case O_CALLS:
      if (!bench_parse_ulong(optarg, 1, 100000000, &ro.calls))
        return bench_usage_error("iiop-bench run", run_usage, "--calls: a number from 1 to 100000000, not '%s'", optarg);
      break;
    case O_CHART: ro.chart = optarg; break;
    case O_NOCHART: ro.no_chart = true; break;
    case O_CPUS: {
      unsigned a, b;
      int end = 0;
      if (sscanf(optarg, "%u,%u%n", &a, &b, &end) != 2 || optarg[end] || a >= CPU_SETSIZE
          || b >= CPU_SETSIZE)
        return bench_usage_error("iiop-bench run", run_usage, "--cpus: SERVER,CLIENT CPU numbers, not '%s'", optarg);
      ro.cpus[0] = (int)a;
      ro.cpus[1] = (int)b;
      break;
    }
    case O_NOPIN: ro.no_pin = true; break;
    case O_THREADS:
      if (!parse_tlist(optarg))
        return bench_usage_error("iiop-bench run", run_usage, "--threads: up to %d thread counts from 1 to 4096, e.g. 1,8,32, not '%s'", MAX_TLIST, optarg);
      break;
    case 'h':
    case O_HELP: run_usage(stdout); return EXIT_OK;
    case ':': return bench_usage_error("iiop-bench run", run_usage, "%s needs an argument", argv[optind - 1]);
    default: return bench_usage_error("iiop-bench run", run_usage, "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind < argc)
    return bench_usage_error("iiop-bench run", run_usage, "unexpected argument '%s'", argv[optind]);
  if (!ro.rounds)
    ro.rounds = ro.quick ? 3 : 5;
  ro.target_s = ro.quick ? 0.25 : 1.0;
  ro.warm_s = ro.quick ? 0.08 : 0.25;

  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);

  if (!pick_cpus())
    return EXIT_USAGE;
  const char *tmpbase = getenv("TMPDIR");
  if (!tmpbase || !*tmpbase || strlen(tmpbase) > 256)
    tmpbase = "/tmp";
  snprintf(g_tmp, sizeof g_tmp, "%s/iiop-bench-run.XXXXXX", tmpbase);
  if (!mkdtemp(g_tmp)) {
    say("iiop-bench run: mkdtemp %s: %s", g_tmp, strerror(errno));
    return EXIT_FAIL;
  }
  read_machine();
  if (!find_helpers()) {
    rm_tmp();
    return EXIT_FAIL;
  }
  const char *plain_set[] = { g_ldpath_var, NULL };
  g_env_plain = make_env(g_ldpath_var[0] ? plain_set : NULL);
  for (int sc = 0; sc < N_SCEN; sc++)
    for (int sys = 0; sys < N_SYS; sys++) {
      cell *ce = &cells[sc][sys];
      ce->cpu_us = calloc(ro.rounds, sizeof(double));
      ce->cps = calloc(ro.rounds, sizeof(double));
      ce->p50 = calloc(ro.rounds, sizeof(double));
      ce->p99 = calloc(ro.rounds, sizeof(double));
      ce->window_calls = calloc(ro.rounds, sizeof(unsigned long));
      if (!g_env_plain || !ce->cpu_us || !ce->cps || !ce->p50 || !ce->p99 || !ce->window_calls) {
        say("iiop-bench run: out of memory");
        return EXIT_FAIL;
      }
    }
  for (int sc = 0; sc < N_TSCEN; sc++)
    for (int t = 0; t < ntlist; t++)
      for (int k = 0; k < N_TSYS; k++) {
        cell *ce = &tcells[sc][t][k].c;
        ce->cpu_us = calloc(ro.rounds, sizeof(double));
        ce->cps = calloc(ro.rounds, sizeof(double));
        ce->p50 = calloc(ro.rounds, sizeof(double));
        ce->p99 = calloc(ro.rounds, sizeof(double));
        ce->window_calls = calloc(ro.rounds, sizeof(unsigned long));
        tcells[sc][t][k].conns = calloc(ro.rounds, sizeof(double));
        if (!ce->cpu_us || !ce->cps || !ce->p50 || !ce->p99 || !ce->window_calls
            || !tcells[sc][t][k].conns) {
          say("iiop-bench run: out of memory");
          return EXIT_FAIL;
        }
      }
  say("iiop-bench run: %lu rounds%s; ours %s; logs in %s", ro.rounds,
      ro.quick ? " (--quick)" : "", g_ours, g_tmp);
  if (cpu_server >= 0)
    say("iiop-bench run: servers pinned to CPU %d, clients to CPU %d", cpu_server, cpu_client);
  else
    say("iiop-bench run: servers and clients not pinned (%s)",
        ro.no_pin ? "--no-pin" : "one CPU available");
  int64_t t_start = mono_ms();

  if (sys_ok[SYS_FLOOR]) {
    measure_sizes();
    bool any = false;
    for (int sc = 0; sc < N_SCEN; sc++)
      any |= have_sizes[sc];
    if (!any) {
      sys_ok[SYS_FLOOR] = false;
      snprintf(sys_why[SYS_FLOOR], sizeof sys_why[0], "our octets per call are unknown");
      sys_short[SYS_FLOOR] = "not run: our octets per call unknown";
    }
  }

  for (unsigned long round = 0; round < ro.rounds; round++) {
    for (int sc = 0; sc < N_SCEN; sc++) {
      for (int k = 0; k < N_SYS; k++) {
        int sys = (int)((k + round) % N_SYS);
        if (!sys_ok[sys] || cells[sc][sys].failed || (sys == SYS_FLOOR && !have_sizes[sc]))
          continue;
        time_cell((int)round, sc, sys);
      }
    }
    for (int sc = 0; sc < N_TSCEN; sc++)
      for (int t = 0; t < ntlist; t++)
        for (int k = 0; k < N_TSYS; k++) {
          int ts = (int)((k + round) % N_TSYS), sys = tsys_sys[ts];
          tcell *tc = &tcells[sc][t][ts];
          if (tlist[t] > 1 && sys_ok[sys] && !tc->c.failed)
            time_one((int)round, sc, sys, &tc->c, tlist[t], tc->conns);
        }
  }

  if (g_mcount[0])
    for (int sc = 0; sc < N_SCEN; sc++)
      for (int sys = 0; sys < N_SYS; sys++)
        if (cell_has(sc, sys))
          count_allocs(sc, sys);

  if (ro.instructions && g_valgrind[0])
    for (int sc = 0; sc < N_SCEN; sc++)
      for (int sys = 0; sys < N_SYS; sys++)
        if (cell_has(sc, sys))
          count_instructions(sc, sys);

  say("iiop-bench run: measured in %.1f s", (double)(mono_ms() - t_start) / 1000.0);
  print_table();
  int rc = g_any_failure ? EXIT_FAIL : EXIT_OK;
  if (ro.json && write_json(ro.json) != 0)
    rc = EXIT_FAIL;
  else if (ro.json)
    say("iiop-bench run: results written to %s", ro.json);
  if (!ro.no_chart && g_gnuplot[0]) {
    char png[PATH_MAX];
    if (ro.chart) {
      snprintf(png, sizeof png, "%s", ro.chart);
    } else if (ro.json) {
      snprintf(png, sizeof png, "%s", ro.json);
      size_t n = strlen(png);
      if (n > 5 && strcmp(png + n - 5, ".json") == 0)
        png[n - 5] = 0;
      strncat(png, ".png", sizeof png - strlen(png) - 1);
    } else {
      snprintf(png, sizeof png, "iiop-bench-run.png");
    }
    write_chart(png);
  }
  if (g_any_failure)
    say("iiop-bench run: something failed: logs kept in %s", g_tmp);
  else
    rm_tmp();
  return rc;
}
