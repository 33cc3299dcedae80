/* SPDX-License-Identifier: MIT */
/* Workload programs that run on ksim, and the idle system they run on. */
#ifndef MPM_SIM_WORKLOAD_PROGS_H
#define MPM_SIM_WORKLOAD_PROGS_H

#include "sim/ksim.h"
#include "sim/workload.h"

int mpm_pagetest_start(struct ksim *k, const struct mpm_pagetest_wl *p,
		       void (*on_exit)(struct ksim *, struct kprocess *));

/*
 * kernbench (kernbench.c): a make process that runs the compiles and exits
 * after the last one; @on_exit is called for the make process only.
 */
int mpm_kernbench_start(struct ksim *k, const struct mpm_kernbench_wl *p,
			void (*on_exit)(struct ksim *, struct kprocess *));

/* pagecache (pagecache_wl.c): one reader process per file, @on_exit for each. */
int mpm_pagecache_start(struct ksim *k, const struct mpm_pagecache_wl *p,
			void (*on_exit)(struct ksim *, struct kprocess *));

/*
 * read(2) of [from, to) of @f by @t: the copy is CPU time (returned); the
 * disk time of the misses is *@io_ns, which the reader sleeps.
 */
static inline uint64_t wl_read_file(struct ksim *k, struct ktask *t, struct kfile *f,
				    uint32_t from, uint32_t to, uint64_t *io_ns)
{
	uint64_t misses = k->c.cache_misses;
	uint64_t used = ksim_read_file(k, f, from, to, t->cpu, false);
	uint64_t io;

	misses = k->c.cache_misses - misses;
	io = misses * (k->p.readin_ns_per_page > k->p.read_ns_per_page ?
		       k->p.readin_ns_per_page - k->p.read_ns_per_page : 0);
	*io_ns = io < used ? io : used;
	return used - *io_ns;
}

/*
 * The system as it sits idle after boot: daemons with their anonymous
 * memory and the page cache and slab of what was read at boot, sized from
 * the machine (boot.c; figures in docs/sim-parameters.md).
 */
int mpm_boot_idle_system(struct ksim *k);

#endif /* MPM_SIM_WORKLOAD_PROGS_H */
