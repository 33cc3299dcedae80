/* SPDX-License-Identifier: MIT */
/*
 * `mempower bench`: allocator speed against the textbook buddy reference
 * (ref_buddy.h).  See docs/benchmarks.md for what each benchmark measures.
 */
#ifndef MPM_BENCH_BENCH_H
#define MPM_BENCH_BENCH_H

/*
 * argv[0] is "bench".  Returns the process exit status: 0 success, 1 failure
 * (bad value, machine or memory trouble), 2 usage error; messages go to
 * stderr as one "mempower: ..." line.
 */
int mpm_bench_main(int argc, char **argv);

/*
 * Sort the @n > 0 run figures in @v and return their median (the mean of
 * the middle two of an even count): every figure the bench reports.
 */
double bench_median(double *v, unsigned int n);

#endif /* MPM_BENCH_BENCH_H */
