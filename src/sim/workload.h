/* SPDX-License-Identifier: MIT */
/*
 * Workload strings: NAME or NAME:key=value,key=value.
 *
 *   none    the machine as after boot; the run stops at t = 0
 *   churn   a seeded mix of allocations and frees that holds memory
 *           occupancy around a target:
 *             occupancy=0.6    target fraction of managed pages in use (0, 0.95]
 *             ops=N            operations per virtual second; default scales
 *                              with memory (managed pages / 128, at least 256)
 *             maxorder=10      largest allocation order (0..10)
 *             movable=0.7      share of allocations that are movable
 *             reclaimable=0.1  share that are reclaimable; the rest unmovable
 */
#ifndef MPM_SIM_WORKLOAD_H
#define MPM_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mpm_workload_kind {
	MPM_WORKLOAD_NONE,
	MPM_WORKLOAD_CHURN,
	MPM_WORKLOAD_EBIZZY,
	MPM_WORKLOAD_PAGETEST,
	MPM_WORKLOAD_KERNBENCH,
	MPM_WORKLOAD_PAGECACHE,
};

/*
 *   ebizzy  `ebizzy -s s -n n -t t -S S`, `instances` of them side by side:
 *             s=256M (bytes, K/M/G suffixes)  n=2  t=32  S=60
 *             instances=1  thp=never|always
 *             jitter=0 (each iteration's copy costs 1 +- jitter times the
 *             model's, uniform, from the seed: a timing perturbation)
 *   pagetest one process allocates and touches size, holds it for hold
 *            seconds, then frees it if free=1:
 *             size=512M  free=0  hold=1  thp=never|always
 *   kernbench `make -jJOBS` of a kernel tree: a make process keeps up to
 *            jobs compiles running, each a process that reads the toolchain,
 *            its .c file and includes headers through the page cache, grows
 *            a cc1 heap of heap bytes over cpu ms of CPU, writes its object
 *            and .cmd files (and a .d file it deletes), then exits:
 *             jobs=0 (= 2 x CPUs)  files=19264  headers=15905  includes=300
 *             heap=48M  cpu=570 (ms)  prime=1 (cat the tree first)
 *             thp=never|always
 *   pagecache streaming reads: one reader process per file reads it
 *            sequentially passes times, 128 KiB at a time:
 *             size=0 (each file 5/4 of memory)  files=1  passes=2
 *
 * The kernel-model workloads (ebizzy, pagetest, kernbench, pagecache) also
 * take sched=rr|cfs: each CPU's tasks take turns round robin (rr, the
 * default), or in CFS's vruntime order with wakeup preemption (cfs).
 */
struct mpm_ebizzy_wl {
	uint64_t size;
	unsigned int chunks, threads, seconds, instances;
	double jitter;			/* copy cost +- this fraction per iteration; 0: none */
};

#define MPM_EBIZZY_MAX_JITTER	0.5	/* jitter's upper bound */

struct mpm_pagetest_wl {
	uint64_t size;
	bool free;
	unsigned int hold;
};

struct mpm_kernbench_wl {
	unsigned int jobs;		/* 0 = 2 x CPUs */
	unsigned int files;		/* compilation units (.c files) */
	unsigned int headers;		/* .h files in the tree */
	unsigned int includes;		/* headers read per unit */
	uint64_t heap;			/* cc1 anonymous memory, bytes */
	unsigned int cpu_ms;		/* CPU time per unit */
	bool prime;			/* read the whole tree first */
};

struct mpm_pagecache_wl {
	uint64_t size;			/* bytes per file; 0 = 5/4 of memory */
	unsigned int files;		/* one reader each */
	unsigned int passes;
};

struct mpm_churn_params {
	double occupancy;
	uint64_t ops;			/* 0 = scale with memory */
	unsigned int maxorder;
	double movable;
	double reclaimable;
};

struct mpm_workload {
	enum mpm_workload_kind kind;
	struct mpm_churn_params churn;
	struct mpm_ebizzy_wl ebizzy;
	struct mpm_pagetest_wl pagetest;
	struct mpm_kernbench_wl kernbench;
	struct mpm_pagecache_wl pagecache;
	bool thp;			/* ebizzy, pagetest, kernbench: transparent_hugepage=always */
	bool sched_cfs;			/* every kernel-model workload: sched=cfs */
};

#define MPM_WORKLOAD_NAMES "none, churn, ebizzy, pagetest, kernbench, pagecache"

/* rr or cfs into *@cfs (sched=, compare --sched); 0 on success, -1 otherwise. */
int mpm_sched_parse(const char *val, bool *cfs);

/* 0 on success; -1 with a one-line reason in @err. */
/*
 * ebizzy, pagetest, kernbench and pagecache run on the kernel model (ksim),
 * which is stepped, sampled and priced second by second; none and churn
 * drive the allocator directly.
 */
static inline bool mpm_workload_is_kernel_model(enum mpm_workload_kind kind)
{
	return kind != MPM_WORKLOAD_NONE && kind != MPM_WORKLOAD_CHURN;
}

int mpm_workload_parse(const char *s, struct mpm_workload *w,
		       char *err, size_t errlen);

#endif /* MPM_SIM_WORKLOAD_H */
