/* benchutil.c - helpers shared by the benchmark programs. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include "benchutil.h"

uint64_t bench_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool bench_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
  if (!s || *s < '0' || *s > '9')
    return false;
  errno = 0;
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || *end || v < min || v > max)
    return false;
  *out = v;
  return true;
}

int bench_cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

double bench_percentile_us(const uint64_t *v, size_t n, double p)
{
  if (!n)
    return 0;
  size_t k = (size_t)(p * (double)n);
  if (k > 0 && (double)k == p * (double)n)
    k--;
  if (k >= n)
    k = n - 1;
  return (double)v[k] / 1000.0;
}

int bench_usage_error(const char *prog, void (*usage)(FILE *), const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  usage(stderr);
  return 2;
}

void bench_block_stop_signals(sigset_t *stop)
{
  sigemptyset(stop);
  sigaddset(stop, SIGINT);
  sigaddset(stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, stop, NULL);
  signal(SIGPIPE, SIG_IGN);
}

void bench_json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}
