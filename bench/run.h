/* run.h - `iiop-bench run`: the IIOP benchmark against omniORB and the TCP
 * floor (bench/run.c has the method). */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

/* Runs the benchmark.  ARGV[0] is the command's name ("run"); the options
 * follow (--help lists them).  Returns the exit status: 0 the run
 * completed (systems that are not installed, such as omniORB, are reported
 * as missing, not as failures), 1 a helper program is missing or a
 * measurement failed, 2 a usage error. */
int iiop_bench_run_main(int argc, char **argv);

#endif
