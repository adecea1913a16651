/* benchutil.h - small helpers the benchmark programs share (iiop-bench,
 * its run command, idl-bench, tcp-floor, cdr-bench). */
#ifndef BENCH_BENCHUTIL_H
#define BENCH_BENCHUTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);
/* A decimal number in [MIN, MAX] (no sign, no trailing characters). */
bool bench_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* Block SIGINT and SIGTERM in the calling thread (and the threads it
 * starts after), their set into *STOP for sigwait(); ignore SIGPIPE. */
void bench_block_stop_signals(sigset_t *stop);
/* qsort comparator for uint64_t. */
int bench_cmp_u64(const void *a, const void *b);
/* Nearest-rank percentile P (0..1) of the N sorted nanosecond values V, in
 * microseconds; 0 when N is 0. */
double bench_percentile_us(const uint64_t *v, size_t n, double p);
/* Print "PROG: " and the message to stderr, then the usage text (USAGE),
 * and return 2 (the usage-error exit status). */
int bench_usage_error(const char *prog, void (*usage)(FILE *), const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* S (NUL-terminated) as a JSON string on F: in double quotes, '"' and '\\'
 * escaped with a backslash, control characters as \u00XX; other octets
 * (UTF-8 included) as they are. */
void bench_json_str(FILE *f, const char *s);

#endif
